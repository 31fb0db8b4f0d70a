"""OpenSim models (.osim, OpenSim 4.x, and 3.x files rewritten first as OpenSim 4 rewrites
them, ``io/osim3.py``): ``load_osim(path)`` builds the same multibody system OpenSim builds
from the file, with its names.

What an OpenSim model becomes:

- each Body a rigid body (mass, mass centre, inertia about the mass centre in the body
  frame), Ground the Ground;
- each Joint a mobilizer between the bodies its two frames are on, F and M the joint's
  parent and child frames (PhysicalOffsetFrames resolved to their bodies): PinJoint a Pin,
  SliderJoint a Slider, UniversalJoint a Universal, PlanarJoint a Planar, GimbalJoint a
  Gimbal, BallJoint a Ball, FreeJoint a Free, EllipsoidJoint an Ellipsoid,
  ScapulothoracicJoint a Scapulothoracic (its ellipsoid radii, winging axis origin and
  direction), WeldJoint a Weld, and a CustomJoint's SpatialTransform a FunctionBased
  mobilizer (its six TransformAxis functions of the joint's coordinates). The tree is
  grown from Ground as OpenSim's graph maker (Simbody's MultibodyGraphMaker) grows it,
  breadth first in the JointSet's order; a joint met from its child's side becomes a
  reversed mobilizer;
- a joint whose two bodies are both in the tree by the time it is reached closes a loop,
  built as OpenSim builds it: a WeldJoint a Weld constraint ``<joint>_Loop`` between its
  frames; any other joint the mobilizer of a "slave" copy of its child body, from its
  parent, the slave held to the body (its master, ``model.bodies[name]``) by a Weld
  constraint ``<body>_slave_<k>_weld`` at their origins, master and slaves each with an
  even share of the body's mass properties;
- each Coordinate one q of its joint, by name, with its default value and speed, range,
  and its locked, clamped and prescribed flags: a locked coordinate is held (the whole
  mobilizer locked when all its coordinates are, else a PrescribedMotion constraint at the
  locked value), a prescribed one follows its function of time;
- CoordinateCouplerConstraint a CoordinateCoupler, dependent = scale · f(independents);
  the MarkerSet a Markers goal (``model.markers``);
- gravity a UniformGravity;
- with ``include_forces``, the passive force elements (``io/osim_forces.py``): contact
  geometry with HuntCrossleyForce and ElasticFoundationForce, CoordinateLimitForce,
  BushingForce, SpringGeneralizedForce, PointToPointSpring,
  ExpressionBasedCoordinateForce; and the muscles on their paths and wrap objects, the
  coordinate, point and torque actuators and the PrescribedControllers
  (``io/osim_actuators.py``).

Everything else (ligaments, other actuators and expression-based forces, probes,
controllers from plug-ins) is not built: each is listed in ``model.skipped`` and named in
one warning.

A file from others never executes code: the XML is parsed as data (no DTD, no entities),
and every number is checked finite.
"""

from __future__ import annotations

import copy
import math
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from kinetree.errors import NonPhysicalError
from kinetree.forces import Force, GeneralForceSubsystem
from kinetree.io import osim3
from kinetree.io.files import within
from kinetree.io.model import Coordinate, Model
from kinetree.io.osim_actuators import build_actuators
from kinetree.io.osim_forces import build_forces, why_not_built
from kinetree.io.osim_functions import OsimError, function_of
from kinetree.io.osim_functions import number as _number
from kinetree.io.osim_functions import numbers as _numbers
from kinetree.math.functions import Constant, Function
from kinetree.math.inertia import Inertia, MassProperties, _trusted_inertia
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.body import Body
from kinetree.multibody.constraints import Constraint
from kinetree.multibody.constraints.coordinate_coupler import CouplingFunction
from kinetree.multibody.matter import SimbodyMatterSubsystem
from kinetree.multibody.mobilized_body import Direction, MobilizedBody
from kinetree.multibody.multibody_system import MultibodySystem
from kinetree.study.markers import Markers

_JOINTS = {"PinJoint": "Pin", "SliderJoint": "Slider", "UniversalJoint": "Universal",
           "PlanarJoint": "Planar", "GimbalJoint": "Gimbal", "BallJoint": "Ball",
           "FreeJoint": "Free", "WeldJoint": "Weld", "EllipsoidJoint": "Ellipsoid",
           "ScapulothoracicJoint": "Scapulothoracic"}
"""OpenSim joint types with a kinetree mobilizer of the same definition (OpenSim builds
them on Simbody's mobilizers of these names; a ScapulothoracicJoint on an Ellipsoid, a Pin
and a Weld with two massless bodies between them, which kinetree's Scapulothoracic is in
one)."""

_BODY_CONSTRAINTS = ("PointOnLineConstraint", "WeldConstraint", "PointConstraint",
                     "ConstantDistanceConstraint")

_ROTATIONAL = {"Pin": [True], "Slider": [False], "Universal": [True, True],
               "Planar": [True, False, False], "Gimbal": [True] * 3, "Ball": [True] * 3,
               "Free": [True] * 3 + [False] * 3, "Weld": [], "Ellipsoid": [True] * 3,
               "Scapulothoracic": [True] * 4}


def load_osim(path, include_forces: bool = True, geometry_dirs=()) -> Model:
    """Build the model of the OpenSim 4.x file ``path``; returns a Model (its ``system``,
    ``bodies``, ``coordinates`` by name, ``markers``). With ``include_forces`` the passive
    force elements and contact are built too (without, gravity alone). The bodies'
    Mesh geometry becomes decorations for the viewer where its file is found: in
    ``geometry_dirs``, the model's folder or a ``Geometry`` folder beside it. A mesh
    path leading outside those folders (``../x.obj``, an absolute path) is not read (a
    note says so): pass its folder in ``geometry_dirs`` to allow it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise OsimError(f"load_osim: cannot read {path}: {e.strerror or e}.") from None
    folders = [Path(d) for d in geometry_dirs] + [path.parent, path.parent / "Geometry"]
    model, version = _parse(text, path)
    builder = _Builder(model, path, include_forces, folders)
    if version < 40000:             # OpenSim 3.x: rewritten as OpenSim 4 rewrites it
        builder.skipped.extend(osim3.convert(model))
    return builder.build()


def _parse(text: str, path: Path) -> tuple[ET.Element, int]:
    """(the <Model> element, the file's Version) of an .osim text: refused with a DTD or
    entities (a file must not define what the parser expands), older than OpenSim 3 or in
    a 4.0 development layout (Version 30500 to 39999); OpenSim's 'Outer::Inner' element
    names (not XML names) read as 'Outer__Inner', and the file's ``<defaults>`` filled
    in."""
    if re.search(r"<!(DOCTYPE|ENTITY)", text):
        raise OsimError(f"load_osim: {path.name} declares a DTD or entities, which an "
                        ".osim file never needs; refusing to expand them.")
    text = re.sub(r"<(/?)([A-Za-z_][\w.-]*)::([A-Za-z_][\w.-]*)", r"<\1\2__\3", text)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise OsimError(f"load_osim: {path.name} is not well-formed XML ({e}).") from None
    model = root if root.tag == "Model" else root.find("Model")
    if model is None:
        raise OsimError(f"load_osim: {path.name} has no <Model> element; is it an OpenSim "
                        "model file?")
    try:
        version = int(root.get("Version", "40000") or 40000)
    except ValueError:
        raise OsimError(f"load_osim: {path.name}: its Version {root.get('Version')!r} is "
                        "not a number.") from None
    if version < 30000 or 30500 <= version < 40000:
        kind = (f"an OpenSim {version // 10000}.x file" if version < 30000 else
                "in one of OpenSim 4.0's development layouts")
        raise OsimError(
            f"load_osim: {path.name} is {kind} (Version {version}); open it in OpenSim 4 "
            "and save it again (or `opensim-cmd`), which converts the joints and frames to "
            "the 4.x layout this loader reads.")
    _apply_defaults(model)
    return model, version


def _apply_defaults(model: ET.Element) -> None:
    """The model's ``<defaults>``: OpenSim registers each object there as the default of
    its type (Object::updateDefaultObjectsFromXMLNode) before it reads the model, so an
    element of that type anywhere in the model takes each property it omits from that
    object rather than from OpenSim's built-in defaults."""
    defaults = model.find("defaults")
    if defaults is None:
        return
    by_tag = {d.tag: d for d in defaults}
    elements = [e for child in model if child is not defaults for e in child.iter()
                if e.tag in by_tag]
    for element in elements:
        present = {c.tag for c in element}
        element.extend(copy.deepcopy(p) for p in by_tag[element.tag] if p.tag not in present)


def _flag(element, tag: str, default: bool = False) -> bool:
    text = (element.findtext(tag) or "").strip().lower()
    return default if not text else text in ("true", "1")


def _objects(model, set_name: str) -> list:
    found = model.find(f"{set_name}/objects")
    return [] if found is None else list(found)


def _frame_transform(element, where: str) -> Transform:
    """An offset frame's pose in its parent: translation (m) and body-fixed x-y-z
    orientation angles (rad)."""
    p = _numbers(element, "translation", 3, where, [0, 0, 0])
    angles = _numbers(element, "orientation", 3, where, [0, 0, 0])
    return Transform(Rotation.from_body_fixed_xyz(angles), p)


def _join(base: str, relative: str) -> str:
    """OpenSim's component path ``relative`` seen from the component at ``base``."""
    if relative.startswith("/"):
        parts = []
        relative = relative[1:]
    else:
        parts = [p for p in base.split("/") if p]
    for piece in relative.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            if parts:
                parts.pop()
        else:
            parts.append(piece)
    return "/" + "/".join(parts)


_MOBILITIES = {"PinJoint": 1, "SliderJoint": 1, "UniversalJoint": 2, "PlanarJoint": 3,
               "GimbalJoint": 3, "BallJoint": 3, "EllipsoidJoint": 3, "FreeJoint": 6,
               "WeldJoint": 0, "CustomJoint": 0, "ScapulothoracicJoint": 4}
"""The mobilities OpenSim declares to its graph maker for each joint type: the coordinates
of a default-constructed joint (a CustomJoint has none until its SpatialTransform names
some, so it counts as 0, like a weld)."""


def _spanning_tree(joints: list, masses: dict, names: list):
    """Simbody's MultibodyGraphMaker, as OpenSim runs it (Model::createMultibodyTree):
    ``joints`` (parent body, child body, joint type) in the file's order. The tree grows
    from Ground breadth first: at level h every joint, in order, whose one body is in the
    tree at level h-1 and whose other body is not becomes a mobilizer of the other body
    (reversed when that is the joint's parent). When a mobile joint brings in a massless
    body, the branch goes on at once to the heaviest body joined to it (forward joints
    first), since a tree must not end in a massless body. The joints left over, their
    two bodies both in the tree, close loops. Returns ([(joint index, reversed)] in the
    order the mobilizers are made, [loop joint indices], {body: level})."""
    level = {"/ground": 0}
    made: dict[int, int] = {}           # joint index -> level of its outboard body

    def attach(j: int) -> str:
        parent, child, _ = joints[j]
        inboard, outboard = (parent, child) if parent in level else (child, parent)
        level[outboard] = level[inboard] + 1
        made[j] = level[outboard]
        tree.append((j, outboard == parent))
        return outboard

    def heaviest(body: str, forward: bool) -> int:
        best, most = -1, 0.0
        for j, (parent, child, _) in enumerate(joints):
            inboard, other = (parent, child) if forward else (child, parent)
            if j in made or inboard != body or other in level:
                continue
            if masses[other] > most:
                best, most = j, masses[other]
        return best

    tree: list[tuple[int, bool]] = []
    h = 1
    while True:
        grown = False
        for j, (parent, child, kind) in enumerate(joints):
            if j in made:
                grown = grown or made[j] == h
                continue
            if (parent in level) == (child in level):
                continue
            if level[parent if parent in level else child] != h - 1:
                continue
            outboard = attach(j)
            grown = True
            if _MOBILITIES.get(kind, 1) == 0 or masses[outboard] > 0:
                continue
            further = heaviest(outboard, True)
            if further < 0:
                further = heaviest(outboard, False)
            if further < 0:
                raise OsimError(
                    f"{kind} {names[j]!r}: it moves the massless body "
                    f"{outboard.rsplit('/', 1)[-1]!r}, and no body with mass lies beyond it; "
                    "a tree ending in a massless moving body has no defined acceleration "
                    "(OpenSim refuses it too). Give the body mass or weld it.")
            attach(further)
        if not grown:
            break
        h += 1
    loops = [j for j in range(len(joints))
             if j not in made and joints[j][0] in level and joints[j][1] in level]
    return tree, loops, level


_LOOP_FIX = ("its parent and child frames could not be brought together: check the "
             "translation and orientation of its frames against the sizes of the bodies "
             "around the loop, or give the loop's coordinates default values near a pose "
             "that closes it")
_CONSTRAINT_FIX = ("check the bodies, frames and coordinates it names, or give the "
                   "coordinates default values near a pose that satisfies it")
"""What to do when a loop joint's or a ConstraintSet element's constraint cannot be
assembled (``Model._origins``)."""


def _loop_where(where: str, parent: str, child: str) -> str:
    """``where`` (a joint) with the names of its parent and child bodies (paths)."""
    def name(path):
        return "Ground" if path == "/ground" else repr(path.rsplit("/", 1)[-1])
    return f"{where} (parent body {name(parent)}, child body {name(child)})"


def _shared(body: Body, n: int) -> Body:
    """A body with 1/n of ``body``'s mass properties (the same mass centre, the inertia
    divided by n): a master's or a slave's share, as OpenSim divides a split body."""
    mp = body.get_default_rigid_body_mass_properties()
    return Body.Rigid(MassProperties._trusted(
        mp.get_mass() / n, np.array(mp.get_mass_center()),
        _trusted_inertia(Inertia, mp.get_inertia().as_mat33() / n)))


def _why_not_a_mesh(path: Path, error: Exception) -> str:
    """Why the mesh file ``path`` could not be read (``error`` its reader's error), said
    plainly for a note: empty, without triangles, or the reader's own reason (without the
    name of the function that gave it)."""
    from kinetree.viz.meshes import read_mesh

    try:
        if path.stat().st_size == 0:
            return "the file is empty"
        _, faces = read_mesh(path)
    except (ValueError, OSError) as again:
        error = again
    else:
        if len(faces) == 0:
            return f"no triangles could be read from it as a {path.suffix} file"
    return re.sub(r"^\w+: ", "", str(error)).rstrip(".")


class _Builder:
    def __init__(self, model_element, path: Path, include_forces: bool, folders: list):
        self.folders = folders
        self.missing_meshes: set[str] = set()
        self.outside_meshes: set[str] = set()
        self.xml = model_element
        self.path = path
        self.include_forces = include_forces
        self.name = model_element.get("name") or path.stem
        self.frames: dict[str, tuple] = {}       # path -> (parent path or None, X, element)
        self.skipped: list[str] = []
        self.notes: list[str] = []

    # ------------------------------------------------------------------ build
    def build(self) -> Model:
        system = MultibodySystem()
        matter = SimbodyMatterSubsystem(system)
        forces = GeneralForceSubsystem(system)
        self._check_unique_names()
        model = Model(self.name, system, matter, forces)
        model.skipped = self.skipped
        model._file, model._file_error = str(self.path), OsimError
        g = _numbers(self.xml, "gravity", 3, f"{self.name}", [0, -9.80665, 0])
        if np.any(g != 0):
            Force.UniformGravity(forces, matter, g)
        self._collect_frames()
        bodies = self._bodies()
        model.bodies["ground"] = matter.Ground()
        self._joints(model, bodies)
        self._constraints(model)
        self._markers(model)
        self._geometry(model)
        self.built = set(build_forces(self, model)) if self.include_forces else set()
        if self.include_forces:
            self.built |= set(build_actuators(self, model))
        self._report_skipped()
        return model

    def _check_unique_names(self) -> None:
        """Refuse two components of one set with one name, or two coordinates with one
        name, as OpenSim does: the second would silently stand for the first."""
        groups = [(f"its {child.tag}", list(child.find("objects")))
                  for child in self.xml if child.tag.endswith("Set")
                  and child.find("objects") is not None]
        groups.append(("its joints' coordinates", [
            c for joint in _objects(self.xml, "JointSet")
            for c in joint.findall("coordinates/Coordinate")]))
        for where, elements in groups:
            seen = set()
            for element in elements:
                name = element.get("name")
                if name in seen:
                    raise OsimError(
                        f"{self.path.name}: two {element.tag} elements of {where} are named "
                        f"{name!r}; OpenSim refuses duplicate names, since the second would "
                        f"stand for the first: rename one.")
                seen.add(name)

    # ------------------------------------------------------------------ frames
    def _collect_frames(self) -> None:
        """Every frame's path, its parent frame's path (None for a body or Ground) and its
        pose in that parent."""
        self.frames["/ground"] = (None, Transform(), None)
        ground = self.xml.find("Ground")
        if ground is not None:
            self._offset_frames(ground.find("components"), "/ground")
        for body in _objects(self.xml, "BodySet"):
            name = body.get("name")
            self.frames[f"/bodyset/{name}"] = (None, Transform(), body)
            self._offset_frames(body.find("components"), f"/bodyset/{name}")
        for joint in _objects(self.xml, "JointSet"):
            self._offset_frames(joint.find("frames"), f"/jointset/{joint.get('name')}")
        self._offset_frames(self.xml.find("components"), "")

    def _offset_frames(self, container, owner: str) -> None:
        if container is None:
            return
        for frame in container:
            if frame.tag != "PhysicalOffsetFrame":
                continue
            here = f"{owner}/{frame.get('name')}"
            parent = (frame.findtext("socket_parent") or "..").strip()
            self.frames[here] = (_join(here, parent), _frame_transform(frame, here), frame)
            self._offset_frames(frame.find("components"), here)

    def _resolve(self, path: str, where: str) -> tuple[str, Transform]:
        """(the body path, X_BF) of the frame at ``path``: Ground or a body, and the
        frame's pose in it."""
        X = Transform()
        seen = []
        while True:
            if path not in self.frames:
                raise OsimError(f"{where}: no frame {path!r} in the model (frames are Ground, "
                                "the bodies and their PhysicalOffsetFrames).")
            parent, X_PF, _ = self.frames[path]
            if parent is None:
                return path, X
            if path in seen:
                raise OsimError(f"{where}: the frames {seen} are each other's parents.")
            seen.append(path)
            X = X_PF @ X
            path = parent

    # ------------------------------------------------------------------ bodies
    def _bodies(self) -> dict:
        """Body path -> (Body.Rigid, element)."""
        out = {}
        for body in _objects(self.xml, "BodySet"):
            name = body.get("name")
            where = f"Body {name!r}"
            m = _number(body, "mass", where, 0.0)
            com = _numbers(body, "mass_center", 3, where, [0, 0, 0])
            I6 = _numbers(body, "inertia", 6, where, [0] * 6)
            if m < 0:
                raise OsimError(f"{where}: the mass is {m} kg; it must be >= 0.")
            xx, yy, zz, xy, xz, yz = I6
            central = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
            try:
                mp = MassProperties(m, com, Inertia(central).shift_from_mass_center(com, m))
            except NonPhysicalError as e:
                if np.linalg.eigvalsh(central)[0] < -1e-12 * max(1.0, np.abs(central).max()):
                    raise OsimError(f"{where}: {e}") from None
                # A positive semidefinite inertia whose moments break the triangle
                # inequality: no mass distribution has it, but OpenSim accepts it and
                # the dynamics are well defined, so it is used as the file gives it.
                self.notes.append(f"{where}: its inertia breaks the triangle inequality "
                                  "(moments " + ", ".join(f"{v:.6g}" for v in
                                                          np.linalg.eigvalsh(central))
                                  + "); used as given, as OpenSim does")
                mp = MassProperties._trusted(m, com, _trusted_inertia(
                    Inertia, central + m * (com @ com * np.eye(3) - np.outer(com, com))))
            out[f"/bodyset/{name}"] = Body.Rigid(mp)
        return out

    # ------------------------------------------------------------------ joints
    def _joints(self, model: Model, bodies: dict) -> None:
        """The mobilizers, as OpenSim's graph maker chooses them (``_spanning_tree``):
        the tree grown from Ground level by level, then each joint left over closes a loop.
        A loop WeldJoint becomes a Weld constraint ``<joint>_Loop`` between its frames;
        any other loop joint mobilizes a new "slave" body of its child body from its
        parent, the slave welded to the body (its master) at their origins by the
        constraint ``<body>_slave_<k>_weld``, and the body's mass properties shared evenly
        by the master and its slaves. ``model.bodies`` keeps the masters."""
        matter = model.matter
        items = []
        for joint in _objects(self.xml, "JointSet"):
            jname = joint.get("name")
            where = f"{joint.tag} {jname!r}"
            here = f"/jointset/{jname}"
            parent_path = _join(here, (joint.findtext("socket_parent_frame") or "").strip())
            child_path = _join(here, (joint.findtext("socket_child_frame") or "").strip())
            pb, X_PF = self._resolve(parent_path, where)
            cb, X_CM = self._resolve(child_path, where)
            if pb == cb:
                raise OsimError(f"{where}: its parent and child frames are both on "
                                f"{pb.rsplit('/', 1)[-1]!r}; a joint joins two bodies.")
            items.append((joint, where, pb, X_PF, cb, X_CM))
        masses = {path: b.get_default_rigid_body_mass_properties().get_mass()
                  for path, b in bodies.items()}
        masses["/ground"] = math.inf
        tree, loops, level = _spanning_tree([(i[2], i[4], i[0].tag) for i in items], masses,
                                            [i[0].get("name") for i in items])
        stray = [i[0].get("name") for i in items if i[2] not in level and i[4] not in level]
        if stray:
            names = ", ".join(repr(n) for n in stray)
            raise OsimError(f"joints {names} do not connect to Ground through the other "
                            "joints; every body needs a path of joints to Ground.")
        for path in bodies:
            if path not in level:
                raise OsimError(f"Body {path.rsplit('/', 1)[-1]!r} has no joint; give it one "
                                "(a WeldJoint to fix it, a FreeJoint to let it move).")
        slaves = {}                     # master path -> number of slaves
        for j in loops:
            joint, where, pb, _, cb, _ = items[j]
            where = f"{self.path.name}: {_loop_where(where, pb, cb)}"
            if joint.tag == "FreeJoint":
                raise OsimError(f"{where}: a FreeJoint between two bodies already joined to "
                                "the tree closes a loop that constrains nothing, and its "
                                "coordinates would have no mobilizer; remove it.")
            if joint.tag == "WeldJoint":
                continue
            if cb == "/ground":
                raise OsimError(
                    f"{where}: it closes a loop and its child frame is on Ground; OpenSim "
                    "splits a loop joint's child body, which cannot be Ground (OpenSim fails "
                    "on it too). Swap the joint's parent and child frames.")
            slaves[cb] = slaves.get(cb, 0) + 1
        shared = {cb: _shared(bodies[cb], n + 1) for cb, n in slaves.items()}
        placed = {"/ground": matter.Ground()}
        for j, reversed_ in tree:
            joint, where, pb, X_PF, cb, X_CM = items[j]
            if reversed_:
                mobod = self._mobilizer(model, joint, where, placed[cb], X_CM,
                                        shared.get(pb, bodies[pb]), X_PF, Direction.REVERSE)
                placed[pb] = model.bodies[pb.rsplit("/", 1)[-1]] = mobod
            else:
                mobod = self._mobilizer(model, joint, where, placed[pb], X_PF,
                                        shared.get(cb, bodies[cb]), X_CM, Direction.FORWARD)
                placed[cb] = model.bodies[cb.rsplit("/", 1)[-1]] = mobod
        made = {}
        for j in loops:
            joint, where, pb, X_PF, cb, X_CM = items[j]
            closing = (f"{_loop_where(where, pb, cb)}, closing a loop", _LOOP_FIX)
            if joint.tag == "WeldJoint":
                if joint.findall("coordinates/Coordinate"):
                    raise OsimError(f"{where}: a WeldJoint has 0 coordinates, the file gives "
                                    f"{len(joint.findall('coordinates/Coordinate'))}.")
                model.constraints[f"{joint.get('name')}_Loop"] = Constraint.Weld(
                    placed[pb], X_PF, placed[cb], X_CM)
                model._origins[f"{joint.get('name')}_Loop"] = closing
                continue
            k = made[cb] = made.get(cb, -1) + 1
            slave = self._mobilizer(model, joint, where, placed[pb], X_PF,
                                    _shared(bodies[cb], slaves[cb] + 1), X_CM,
                                    Direction.FORWARD)
            name = f"{cb.rsplit('/', 1)[-1]}_slave_{k}"
            model.constraints[f"{name}_weld"] = Constraint.Weld(placed[cb], Transform(),
                                                                slave, Transform())
            model._origins[f"{name}_weld"] = closing
        # the file's order, as OpenSim's CoordinateSet (the mobilizers were made in the
        # tree's order)
        made_in_tree_order = model.coordinates
        model.coordinates = {c.get("name"): made_in_tree_order[c.get("name")]
                             for i in items for c in i[0].findall("coordinates/Coordinate")}
        model.bodies = {"ground": model.bodies["ground"],
                        **{p.rsplit("/", 1)[-1]: placed[p] for p in bodies}}

    def _mobilizer(self, model, joint, where, parent_mobod, X_PF, body, X_BM, direction):
        """The mobilizer of ``joint`` from the placed ``parent_mobod`` (its frame X_PF) to
        ``body`` (a Body, its frame X_BM); the joint's coordinates into
        model.coordinates."""
        coords = joint.findall("coordinates/Coordinate")
        if joint.tag == "CustomJoint":
            mobod, rotational = self._custom(joint, where, coords, parent_mobod, X_PF, body,
                                             X_BM, direction)
        elif joint.tag in _JOINTS:
            kind = _JOINTS[joint.tag]
            args = (parent_mobod, X_PF, body, X_BM)
            if kind == "Ellipsoid":
                args += (_numbers(joint, "radii_x_y_z", 3, where),)
            elif kind == "Scapulothoracic":
                args += (_numbers(joint, "thoracic_ellipsoid_radii_x_y_z", 3, where),
                         _numbers(joint, "scapula_winging_axis_origin", 2, where, [0, 0]),
                         _number(joint, "scapula_winging_axis_direction", where, 0.0))
            mobod = getattr(MobilizedBody, kind)(*args, direction=direction)
            rotational = _ROTATIONAL[kind]
            if len(coords) != len(rotational):
                raise OsimError(f"{where}: a {joint.tag} has {len(rotational)} coordinates, "
                                f"the file gives {len(coords)}.")
        else:
            raise OsimError(f"{where}: kinetree has no {joint.tag}; the joints it reads are "
                            f"CustomJoint and {', '.join(sorted(_JOINTS))}.")
        self._coordinates(model, joint, where, coords, mobod, rotational)
        return mobod

    def _custom(self, joint, where, coords, parent_mobod, X_PF, body, X_BM, direction):
        """A CustomJoint as a FunctionBased mobilizer: rotation1..3 then translation1..3,
        each TransformAxis's function of the coordinates it names."""
        names = [c.get("name") for c in coords]
        axes, functions, indices = [], [], []
        transform = joint.find("SpatialTransform")
        by_name = {} if transform is None else {
            a.get("name"): a for a in transform.findall("TransformAxis")}
        for axis_name in ("rotation1", "rotation2", "rotation3", "translation1",
                          "translation2", "translation3"):
            a = by_name.get(axis_name)
            awhere = f"{where} {axis_name}"
            if a is None:
                raise OsimError(f"{awhere}: the SpatialTransform lacks this TransformAxis.")
            axis = _numbers(a, "axis", 3, awhere)
            if np.linalg.norm(axis) == 0:
                raise OsimError(f"{awhere}: the axis is zero.")
            used = (a.findtext("coordinates") or "").split()
            for u in used:
                if u not in names:
                    raise OsimError(f"{awhere}: names coordinate {u!r}, which is not one of "
                                    f"the joint's {names}.")
            f = self._function(a, awhere, len(used))
            axes.append(axis / np.linalg.norm(axis))
            functions.append(f)
            indices.append([names.index(u) for u in used])
        rotational = []
        for k in range(len(names)):
            in_rotation = any(k in idx for idx in indices[:3])
            rotational.append(in_rotation)
        mobod = MobilizedBody.FunctionBased(parent_mobod, X_PF, body, X_BM, len(names),
                                            functions, indices, axes, direction=direction)
        return mobod, rotational

    def _function(self, axis_element, where: str, nargs: int) -> Function:
        """The Function element of a TransformAxis (or any function property) taking
        ``nargs`` arguments."""
        for child in axis_element:
            if child.tag in ("axis", "coordinates"):
                continue
            return function_of(child, where, nargs)
        if nargs == 0:
            return Constant(0.0, 0)
        raise OsimError(f"{where}: no function is given for its coordinates.")

    # ------------------------------------------------------------ coordinates
    def _coordinates(self, model, joint, where, coords, mobod, rotational) -> None:
        jname = joint.get("name")
        q0, u0 = [], []
        locked = []
        for k, c in enumerate(coords):
            cname = c.get("name")
            cwhere = f"{where} coordinate {cname!r}"
            if cname in model.coordinates:
                raise OsimError(f"{cwhere}: the name is used twice; coordinates need unique "
                                "names.")
            rng = _numbers(c, "range", 2, cwhere, [-math.inf, math.inf])
            coordinate = Coordinate(
                cname, mobod, k, default_value=_number(c, "default_value", cwhere, 0.0),
                default_speed_value=_number(c, "default_speed_value", cwhere, 0.0),
                range=tuple(rng), locked=_flag(c, "locked"), clamped=_flag(c, "clamped"),
                prescribed=_flag(c, "prescribed"),
                motion_type="rotational" if rotational[k] else "translational",
                joint_name=jname)
            if coordinate.prescribed:
                fn = next(iter(c.findall("prescribed_function/*")), None)
                if fn is None:
                    coordinate.prescribed = False
                else:
                    coordinate.prescribed_function = function_of(fn, cwhere, 1)
            model.coordinates[cname] = coordinate
            q0.append(coordinate.default_value)
            u0.append(coordinate.default_speed_value)
            locked.append(coordinate.locked and not coordinate.prescribed)
        if not coords:
            return
        mobod.set_default_q(q0)           # Euler-angle layout for Ball and Free, as OpenSim
        mobod.set_default_u(u0)
        if all(locked):
            mobod.lock_by_default()
        else:
            for k, c in enumerate(coords):
                coordinate = model.coordinates[c.get("name")]
                if locked[k]:
                    model.constraints[f"{c.get('name')}_locked"] = \
                        Constraint.PrescribedMotion(model.matter,
                                                    Constant(coordinate.default_value, 1),
                                                    mobod, k)
                    model._origins[f"{c.get('name')}_locked"] = (
                        f"{where} coordinate {c.get('name')!r}, locked at its default_value "
                        f"{coordinate.default_value!r}", "give it a default_value the other "
                        "constraints allow, or unlock it")
        for k, c in enumerate(coords):
            coordinate = model.coordinates[c.get("name")]
            if coordinate.prescribed:
                model.constraints[f"{coordinate.name}_prescribed"] = \
                    Constraint.PrescribedMotion(model.matter, coordinate.prescribed_function,
                                                mobod, k)
                model._origins[f"{coordinate.name}_prescribed"] = (
                    f"{where} coordinate {coordinate.name!r}, prescribed by its "
                    "prescribed_function", "give it a prescribed_function the other "
                    "constraints allow at the start, or stop prescribing it")

    # ------------------------------------------------------------ constraints
    def _constraints(self, model: Model) -> None:
        for c in _objects(self.xml, "ConstraintSet"):
            name = c.get("name")
            where = f"{c.tag} {name!r}"
            if not _flag(c, "isEnforced", True):
                self.skipped.append(f"{where} (not enforced in the file)")
                continue
            if c.tag in _BODY_CONSTRAINTS:
                self._offset_frames(c.find("frames"), f"/constraintset/{name}")
                model.constraints[name] = self._body_constraint(model, c, where)
                model._origins[name] = (where, _CONSTRAINT_FIX)
                continue
            if c.tag != "CoordinateCouplerConstraint":
                self.skipped.append(f"{where} (not supported yet)")
                continue
            independent = (c.findtext("independent_coordinate_names") or "").split()
            dependent = (c.findtext("dependent_coordinate_name") or "").strip()
            for n in independent + [dependent]:
                if n not in model.coordinates:
                    raise OsimError(f"{where}: names coordinate {n!r}, which the model does "
                                    "not have.")
            fn = next(iter(c.findall("coupled_coordinates_function/*")), None)
            if fn is None:
                raise OsimError(f"{where}: <coupled_coordinates_function> is empty.")
            f = function_of(fn, where, len(independent)) if len(independent) == 1 \
                else function_of(fn, where, 1)
            scale = _number(c, "scale_factor", where, 1.0)
            coords = [model.coordinates[n] for n in independent + [dependent]]
            model.constraints[name] = Constraint.CoordinateCoupler(
                model.matter, CouplingFunction(f, scale, len(independent)),
                [k.mobilized_body for k in coords], [k.which for k in coords])
            model._origins[name] = (where, _CONSTRAINT_FIX)

    def _body(self, model, element, tag: str, where: str):
        """(MobilizedBody, X_BF) of the frame the socket ``tag`` of ``element`` names."""
        here = f"/constraintset/{element.get('name')}"
        body_path, X = self._resolve(_join(here, (element.findtext(tag) or "").strip()),
                                     f"{where} <{tag}>")
        mobod = model.matter.Ground() if body_path == "/ground" else \
            model.bodies[body_path.rsplit("/", 1)[-1]]
        return mobod, X

    def _body_constraint(self, model, c, where):
        """PointOnLine, Point (a Ball), ConstantDistance (a Rod) and Weld constraints:
        stations and frames on bodies, moved to the bodies' frames."""
        def station(tag_body, tag_point):
            mobod, X = self._body(model, c, tag_body, where)
            return mobod, X.shift_frame_station_to_base(_numbers(c, tag_point, 3, where))

        if c.tag == "PointOnLineConstraint":
            line, X = self._body(model, c, "socket_line_body", where)
            direction = X.xform_frame_vec_to_base(_numbers(c, "line_direction_vec", 3, where))
            point = X.shift_frame_station_to_base(_numbers(c, "point_on_line", 3, where))
            follower, station_f = station("socket_follower_body", "point_on_follower")
            return Constraint.PointOnLine(line, direction, point, follower, station_f)
        if c.tag == "WeldConstraint":
            b1, X1 = self._body(model, c, "socket_frame1", where)
            b2, X2 = self._body(model, c, "socket_frame2", where)
            return Constraint.Weld(b1, X1, b2, X2)
        b1, p1 = station("socket_body_1", "location_body_1")
        b2, p2 = station("socket_body_2", "location_body_2")
        if c.tag == "PointConstraint":
            return Constraint.Ball(b1, p1, b2, p2)
        return Constraint.Rod(b1, p1, b2, p2, _number(c, "constant_distance", where))

    # ------------------------------------------------------------ markers
    def _markers(self, model: Model) -> None:
        markers = Markers()
        for m in _objects(self.xml, "MarkerSet"):
            name = m.get("name")
            where = f"Marker {name!r}"
            frame = _join(f"/markerset/{name}",
                          (m.findtext("socket_parent_frame") or "").strip())
            body_path, X = self._resolve(frame, where)
            location = X.shift_frame_station_to_base(_numbers(m, "location", 3, where))
            body = model.matter.Ground() if body_path == "/ground" else \
                model.bodies[body_path.rsplit("/", 1)[-1]]
            markers.add_marker(name, body, location)
        model.markers = markers

    # ------------------------------------------------------------ geometry
    def _geometry(self, model: Model) -> None:
        """Each Mesh attached to Ground, a body or one of their offset frames, as a
        DecorativeMesh on the body (its scale factors, colour and opacity kept)."""
        for frame_path, (_, _, element) in self.frames.items():
            owner = element if element is not None else self.xml.find("Ground")
            if owner is None or frame_path.startswith("/jointset"):
                continue
            attached = owner.find("attached_geometry")
            if attached is None:
                continue
            body_path, X = self._resolve(frame_path, frame_path)
            mobod = model.matter.Ground() if body_path == "/ground" else \
                model.bodies.get(body_path.rsplit("/", 1)[-1])
            on = "Ground" if body_path == "/ground" else \
                f"Body {body_path.rsplit('/', 1)[-1]!r}"
            if frame_path != body_path:
                on += f" (its frame {frame_path.rsplit('/', 1)[-1]!r})"
            for mesh in attached.findall("Mesh"):
                self._mesh(mobod, X, mesh, frame_path, on)
        if self.outside_meshes:
            self.notes.append(
                f"{len(self.outside_meshes)} mesh file(s) outside the model's folders not "
                f"read (pass their folder in geometry_dirs to allow it): "
                + ", ".join(sorted(self.outside_meshes)[:8])
                + (", ..." if len(self.outside_meshes) > 8 else ""))
        if self.missing_meshes:
            self.notes.append(f"{len(self.missing_meshes)} mesh file(s) not found (looked in "
                              + ", ".join(str(f) for f in self.folders) + "): "
                              + ", ".join(sorted(self.missing_meshes)[:8])
                              + (", ..." if len(self.missing_meshes) > 8 else ""))

    def _mesh(self, mobod, X, mesh, where: str, on: str) -> None:
        """The DecorativeMesh of one Mesh element on ``mobod`` (the frame X in it), ``on``
        naming its body for notes. A file that is missing, outside the model's folders or
        not a mesh is left out with a note, since a drawing never stops a model loading."""
        from kinetree.viz.decorations import DecorativeMesh

        name = (mesh.findtext("mesh_file") or "").strip()
        candidates = [f / name for f in self.folders if name and (f / name).is_file()]
        found = next((c for c in candidates if within(c, self.folders)), None)
        if found is None:
            (self.outside_meshes if candidates else self.missing_meshes).add(name)
            return
        try:
            decoration = DecorativeMesh(found)
        except (ValueError, OSError) as error:
            self.skipped.append(
                f"Mesh {mesh.get('name')!r} on {on} (its mesh_file {name!r}, {found}, cannot "
                f"be read: {_why_not_a_mesh(found, error)}; the body is built without this "
                "decoration: replace the file with a mesh kinetree reads (ascii .vtp, .obj, "
                ".stl, .ply) or remove the Mesh)")
            return
        decoration.set_scale(_numbers(mesh, "scale_factors", 3, where, [1, 1, 1]))
        appearance = mesh.find("Appearance")
        if appearance is not None:
            decoration.set_color(_numbers(appearance, "color", 3, where, [1, 1, 1]))
            decoration.set_opacity(_number(appearance, "opacity", where, 1.0))
        mobod.add_body_decoration(X, decoration)

    def _report_skipped(self) -> None:
        if self.include_forces:
            for f in _objects(self.xml, "ForceSet"):
                if f.get("name") not in self.built:
                    self.skipped.append(f"{f.tag} {f.get('name')!r} ({why_not_built(f)})")
            components = self.xml.find("components")
            for c in [] if components is None else components:
                if c.tag != "PhysicalOffsetFrame" and c.get("name") not in self.built:
                    self.skipped.append(f"{c.tag} {c.get('name')!r} (a component of the "
                                        f"Model itself, outside its sets: not built)")
        for e in _objects(self.xml, "ControllerSet"):
            if e.get("name") not in self.built:
                self.skipped.append(f"{e.tag} {e.get('name')!r} (" + (
                    "a controller from an OpenSim plug-in: write it as a kinetree "
                    "Controller in Python" if e.tag != "PrescribedController" else
                    "not built") + ")")
        for e in _objects(self.xml, "ProbeSet"):
            self.skipped.append(f"{e.tag} {e.get('name')!r}")
        for e in _objects(self.xml, "ContactGeometrySet"):
            if e.get("name") not in self.built:
                self.skipped.append(f"{e.tag} {e.get('name')!r} (no contact force built "
                                    "uses it)")
        if self.notes:
            warnings.warn(f"load_osim: {self.path.name}: " + "; ".join(self.notes),
                          OsimSkippedWarning, stacklevel=3)
        if self.skipped:
            warnings.warn(
                f"load_osim: {self.path.name}: {len(self.skipped)} element(s) not built: "
                + "; ".join(self.skipped[:20])
                + ("; ..." if len(self.skipped) > 20 else "")
                + " (see model.skipped)", OsimSkippedWarning, stacklevel=3)


class OsimSkippedWarning(UserWarning):
    """Elements of an .osim file that load_osim did not build, listed by name."""


__all__ = ["OsimError", "OsimSkippedWarning", "load_osim"]
