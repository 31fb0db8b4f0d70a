"""URDF import: ``load_urdf(path)`` builds a MultibodySystem from a robot description in the
Unified Robot Description Format (ROS's, and the format most robot models are published in).

Each ``<link>`` becomes a body with its ``<inertial>`` and its ``<visual>`` shapes as
decorations; each ``<joint>`` the mobilizer that moves its child link in its parent:
revolute and continuous joints a Pin, prismatic a Slider, planar a Planar, floating a Free,
fixed a Weld, with the F and M frames turned so that the mobilizer's own axis (the Pin's z,
the Slider's x, the Planar's normal z) is the joint's ``<axis>``. A ``<mimic>`` becomes a
``Constraint.CoordinateCoupler``; ``<dynamics damping>`` a ``Force.MobilityLinearDamper``.
Gravity is -9.81 m/s² along z, URDF's convention.

The file is parsed, never executed: a DOCTYPE (and with it every entity declaration) is
refused, so a file from someone else can neither expand entities nor reach other files.
With a ``contact_material``, each ``<collision>`` shape becomes a contact surface of that
material on its link (a box a Brick, a cylinder a Cylinder, both meshes carrying the
elastic foundation's springs; a sphere a Sphere, with Hertz contact; a mesh file a
TriangleMesh), and the model gets a ContactTrackerSubsystem and a
CompliantContactSubsystem (``model.contact``): add a floor and the robot stands on it. A
joint's two links never touch each other, as in MuJoCo and Drake. Without one,
``<collision>`` is read past.

``<calibration>`` and ``<safety_controller>`` are read past (they do not change the
dynamics); transmissions, Gazebo and sensor tags, joint friction and meshes that cannot be
drawn or collided are listed in ``Model.skipped`` and reported in one warning.
"""

from __future__ import annotations

import math
import os
import warnings
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote
from xml.parsers import expat

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeWarning, NonPhysicalError
from kinetree.forces.elements.mobility_linear_damper import MobilityLinearDamper
from kinetree.forces.elements.uniform_gravity import UniformGravity
from kinetree.forces.general import GeneralForceSubsystem
from kinetree.io.files import within
from kinetree.io.model import Coordinate, Model
from kinetree.math.functions import Function
from kinetree.math.inertia import Inertia, MassProperties
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.body import Rigid
from kinetree.multibody.constraints.coordinate_coupler import CoordinateCoupler, CouplingFunction
from kinetree.multibody.matter import SimbodyMatterSubsystem
from kinetree.multibody.mobilized_body import MobilizedBody
from kinetree.multibody.multibody_system import MultibodySystem
from kinetree.viz.decorations import (
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeMesh,
    DecorativeSphere,
)

GRAVITY = (0.0, 0.0, -9.81)
"""URDF's gravity (m/s²): z is up."""

MOVING_JOINTS = ("revolute", "continuous", "prismatic", "planar", "floating")
JOINT_TYPES = MOVING_JOINTS + ("fixed",)

_PLANAR_COORDINATES = (("rz", "rotational"), ("tx", "translational"),
                       ("ty", "translational"))
"""The Planar mobilizer's q, in its order: a rotation about the normal, then translations
along F's x and y; a planar joint's coordinates are named ``<joint>_rz`` and so on."""

_READ_PAST = {
    "link": set(),
    "joint": {"calibration", "safety_controller"},
}

BOX_RESOLUTION = 4
"""A collision box's sides are cut into BOX_RESOLUTION² squares, one elastic-foundation
spring on each of their triangles."""
"""Elements that change nothing kinetree models, read past without a word."""

_WHY_SKIPPED = {
    "transmission": "transmissions (actuators and gearing) are not modelled; apply joint "
                    "torques with a Force",
    "gazebo": "Gazebo simulator settings",
    "sensor": "sensors are not modelled",
}


class _Document:
    """A parsed file: its root element and where each element starts, for messages."""

    def __init__(self, path: Path):
        self.path = path
        self.lines: dict = {}
        data = path.read_bytes()
        builder = ElementTree.TreeBuilder()
        parser = expat.ParserCreate()
        parser.buffer_text = True

        def refuse_dtd(name, *rest):
            raise InvalidArgumentError(
                f"load_urdf: {path.name} line {parser.CurrentLineNumber} declares a "
                f"DOCTYPE <!DOCTYPE {name} ...>; a URDF needs none, and kinetree refuses "
                f"document type declarations (their entities could expand without bound or "
                f"read other files). Delete the DOCTYPE and write the values in place.")

        def start(tag, attributes):
            self.lines[builder.start(tag, attributes)] = parser.CurrentLineNumber

        parser.StartDoctypeDeclHandler = refuse_dtd
        parser.EntityDeclHandler = refuse_dtd
        parser.StartElementHandler = start
        parser.EndElementHandler = builder.end
        parser.CharacterDataHandler = builder.data
        try:
            parser.Parse(data, True)
        except expat.ExpatError as error:
            raise InvalidArgumentError(
                f"load_urdf: {path.name} is not well-formed XML: {error}.") from None
        self.root = builder.close()

    def where(self, element) -> str:
        """``robot.urdf line 12, <joint name="elbow">``: the element, for messages."""
        name = element.get("name")
        label = f'<{element.tag} name="{name}">' if name is not None else f"<{element.tag}>"
        return f"{self.path.name} line {self.lines.get(element, '?')}, {label}"

    def numbers(self, element, attribute: str, count: int, default=None) -> np.ndarray:
        """``count`` finite numbers from a space-separated attribute (``default`` when the
        attribute is absent and a default is given)."""
        text = element.get(attribute)
        if text is None:
            if default is None:
                raise InvalidArgumentError(
                    f"load_urdf: {self.where(element)} has no {attribute}=\"...\"; URDF "
                    f"requires it ({count} number{'s' if count > 1 else ''}).")
            return np.array(default, dtype=float)
        try:
            values = np.array([float(word) for word in text.split()])
        except ValueError:
            values = np.zeros(0)
        if values.size != count or not np.all(np.isfinite(values)):
            raise InvalidArgumentError(
                f"load_urdf: {self.where(element)} {attribute}=\"{text}\": expected "
                f"{count} finite number{'s' if count > 1 else ''} separated by spaces.")
        return values

    def number(self, element, attribute: str, default=None, *, minimum=None,
               rule: str = "") -> float:
        """One finite number, at least ``minimum`` if given."""
        value = float(self.numbers(element, attribute, 1,
                                   None if default is None else [default])[0])
        if minimum is not None and value < minimum:
            raise InvalidArgumentError(
                f"load_urdf: {self.where(element)} {attribute}=\"{element.get(attribute)}\" "
                f"{rule or f'must be at least {minimum}'}.")
        return value

    def origin(self, element) -> Transform:
        """The pose of an element's ``<origin xyz rpy>`` (identity when absent): rpy is
        URDF's fixed-axis roll, pitch, yaw, R = Rz(yaw) Ry(pitch) Rx(roll)."""
        origin = element.find("origin")
        if origin is None:
            return Transform()
        xyz = self.numbers(origin, "xyz", 3, [0.0, 0.0, 0.0])
        rpy = self.numbers(origin, "rpy", 3, [0.0, 0.0, 0.0])
        return Transform(rpy_to_rotation(rpy), xyz)


def rpy_to_rotation(rpy) -> Rotation:
    """URDF's roll-pitch-yaw (rad) as a Rotation: about the fixed x, then the fixed y,
    then the fixed z axis, R = Rz(yaw) Ry(pitch) Rx(roll)."""
    roll, pitch, yaw = (float(a) for a in rpy)
    return Rotation.about_z(yaw) @ Rotation.about_y(pitch) @ Rotation.about_x(roll)


def rotation_taking_axis(k: int, axis) -> Rotation:
    """The smallest Rotation that turns coordinate axis ``k`` (0 x, 1 y, 2 z) into the
    unit vector ``axis``: about e_k x axis; the identity when they agree, a half turn about
    the next coordinate axis (y for x, z for y, x for z) when they are opposite."""
    e = np.zeros(3)
    e[k] = 1.0
    a = np.asarray(axis, dtype=float)
    normal = np.cross(e, a)
    if not np.any(normal):
        return Rotation() if e @ a > 0 else Rotation.about_axis(math.pi, np.roll(e, 1))
    return Rotation.about_axis(math.atan2(float(np.linalg.norm(normal)), float(e @ a)), normal)


@dataclass
class _Visual:
    element: object
    X_LV: Transform
    geometry: object


@dataclass
class _Link:
    name: str
    element: object
    mass_properties: MassProperties
    visuals: list = field(default_factory=list)
    collisions: list = field(default_factory=list)     # (X_LC, ContactGeometry)


@dataclass
class _Joint:
    name: str
    element: object
    type: str
    parent: str
    child: str
    X_PJ: Transform
    axis: np.ndarray
    limit: tuple | None = None             # (lower, upper, effort, velocity)
    damping: float = 0.0
    mimic: tuple | None = None             # (master joint, multiplier, offset, element)


class _Reader:
    """Reads one URDF file into links, joints and materials, collecting what it skips."""

    def __init__(self, path: Path, package_dirs, geometry_dirs=(), collide=False):
        self.doc = _Document(path)
        self.path = path
        self.package_dirs = package_dirs
        self.geometry_dirs = [Path(d) for d in geometry_dirs]
        self.collide = collide
        self.skipped: list[str] = []
        self.materials: dict[str, np.ndarray] = {}
        root = self.doc.root
        if root.tag != "robot":
            raise InvalidArgumentError(
                f"load_urdf: {path.name} starts with <{root.tag}>, not <robot>; it is not a "
                f"URDF file.")
        self._refuse_xacro(root)
        self.name = root.get("name") or path.stem
        for material in root.iter("material"):
            self._material_color(material)
        self.links: dict[str, _Link] = {}
        self.joints: dict[str, _Joint] = {}
        for element in root:
            if element.tag == "link":
                self._add_link(element)
            elif element.tag == "joint":
                self._add_joint(element)
            elif element.tag != "material":
                why = _WHY_SKIPPED.get(element.tag, "not a URDF element kinetree builds")
                self.skipped.append(f"{self.doc.where(element)}: {why}")
        if not self.links:
            raise InvalidArgumentError(
                f"load_urdf: {path.name} has no <link>; a robot needs at least one.")

    def _refuse_xacro(self, root) -> None:
        for element in root.iter():
            if element.tag.startswith("xacro:") or any(
                    "${" in value or "$(" in value for value in element.attrib.values()):
                raise InvalidArgumentError(
                    f"load_urdf: {self.doc.where(element)} is xacro, not URDF; expand the "
                    f"macros first (`xacro {self.path.name} > robot.urdf`) and load the "
                    f"result.")

    # ------------------------------------------------------------------ links
    def _add_link(self, element) -> None:
        doc = self.doc
        name = element.get("name")
        if not name:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)} has no name; give every link a unique "
                f"name=\"...\".")
        if name in self.links:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)}: a link named {name!r} is already "
                f"defined at line {doc.lines[self.links[name].element]}; link names must "
                f"be unique.")
        link = _Link(name, element, self._mass_properties(element))
        for child in element:
            if child.tag == "visual":
                visual = self._visual(child)
                if visual is not None:
                    link.visuals.append(visual)
            elif child.tag == "collision":
                if self.collide:
                    shape = self._collision(child)
                    if shape is not None:
                        link.collisions.append((doc.origin(child), shape))
            elif child.tag not in ("inertial",) and child.tag not in _READ_PAST["link"]:
                self.skipped.append(f"{doc.where(child)} in link {name!r}: "
                                    f"{_WHY_SKIPPED.get(child.tag, 'not built')}")
        self.links[name] = link

    def _mass_properties(self, link) -> MassProperties:
        """The link's inertial as kinetree keeps it: mass, mass centre in the link frame and
        inertia about the link origin (URDF gives the inertia about the mass centre, in
        the frame of ``<inertial><origin>``). No ``<inertial>``: massless."""
        doc = self.doc
        inertial = link.find("inertial")
        if inertial is None:
            return MassProperties(0.0, np.zeros(3), Inertia(0.0))
        mass_element = inertial.find("mass")
        if mass_element is None:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(inertial)} of link {link.get('name')!r} has no "
                f"<mass value=\"...\"/>; add it (kg).")
        mass = doc.number(mass_element, "value", minimum=0.0,
                          rule="is negative; a mass is at least 0 kg")
        X_LI = doc.origin(inertial)
        inertia_element = inertial.find("inertia")
        if inertia_element is None:
            I_I = np.zeros((3, 3))
        else:
            xx, xy, xz, yy, yz, zz = (doc.number(inertia_element, k, 0.0)
                                      for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
            I_I = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        R = X_LI.R.as_matrix()
        com = np.asarray(X_LI.p, dtype=float)
        try:
            central = Inertia(R @ I_I @ R.T)
            return MassProperties(mass, com, central.shift_from_mass_center(com, mass))
        except (NonPhysicalError, InvalidArgumentError) as error:
            raise NonPhysicalError(
                f"load_urdf: {doc.where(inertia_element)} of link {link.get('name')!r} is "
                f"not a physical inertia (about the mass centre, in the <inertial> "
                f"origin's frame): {error} Fix ixx..izz in the file.") from None

    def _material_color(self, material):
        """The RGBA of a ``<material>`` (by its own ``<color>`` or by the name of one
        defined before), or None; a named colour is remembered for later references."""
        color = material.find("color")
        name = material.get("name")
        if color is not None:
            rgba = self.doc.numbers(color, "rgba", 4)
            if np.any(rgba < 0) or np.any(rgba > 1):
                raise InvalidArgumentError(
                    f"load_urdf: {self.doc.where(color)} rgba=\"{color.get('rgba')}\": "
                    f"red, green, blue and alpha are each in [0, 1].")
            if name:
                self.materials.setdefault(name, rgba)
            return rgba
        return self.materials.get(name) if name else None

    def _shape(self, element):
        """The shape element in the ``<geometry>`` of a ``<visual>`` or ``<collision>``."""
        geometry = element.find("geometry")
        shape = None if geometry is None else next(iter(geometry), None)
        if shape is None:
            raise InvalidArgumentError(
                f"load_urdf: {self.doc.where(element)} has no <geometry> shape; give it a "
                f"<box>, <cylinder>, <sphere> or <mesh>.")
        return shape

    def _dimensions(self, shape):
        """A box's half lengths (3,), a cylinder's (radius, half length) or a sphere's
        radius (m), checked positive."""
        doc = self.doc
        if shape.tag == "box":
            size = doc.numbers(shape, "size", 3)
            self._positive(shape, "size", size)
            return size / 2
        if shape.tag == "cylinder":
            radius = doc.number(shape, "radius")
            length = doc.number(shape, "length")
            self._positive(shape, "radius and length", np.array([radius, length]))
            return radius, length / 2
        radius = doc.number(shape, "radius")
        self._positive(shape, "radius", np.array([radius]))
        return radius

    def _visual(self, element):
        """A ``<visual>`` as the decoration to draw, or None (then listed in skipped)."""
        doc = self.doc
        shape = self._shape(element)
        if shape.tag == "box":
            drawn = DecorativeBrick(self._dimensions(shape))
        elif shape.tag == "cylinder":
            radius, half_length = self._dimensions(shape)
            # URDF's cylinder runs along z, Simbody's DecorativeCylinder along y.
            drawn = DecorativeCylinder(radius, half_length).set_transform(
                Transform(Rotation.about_x(math.pi / 2)))
        elif shape.tag == "sphere":
            drawn = DecorativeSphere(self._dimensions(shape))
        elif shape.tag == "mesh":
            drawn = self._mesh(shape)
            if drawn is None:
                return None
        else:
            self.skipped.append(f"{doc.where(shape)}: a <{shape.tag}> shape is not URDF's "
                                f"(box, cylinder, sphere, mesh); not drawn")
            return None
        material = element.find("material")
        rgba = None if material is None else self._material_color(material)
        if material is not None and rgba is None and material.find("texture") is None:
            self.skipped.append(
                f"{doc.where(material)}: names no material the file defines and has no "
                f"<color rgba=\"...\"/>; drawn in the default colour")
        if rgba is not None:
            drawn.set_color(rgba[:3]).set_opacity(rgba[3])
        return _Visual(element, doc.origin(element), drawn)

    def _collision(self, element):
        """A ``<collision>`` as the ContactGeometry to collide, or None (then listed in
        skipped)."""
        from kinetree.contact.geometry import Sphere
        from kinetree.contact.mesh import Brick, Cylinder, TriangleMesh

        doc = self.doc
        shape = self._shape(element)
        if shape.tag == "box":
            return Brick(self._dimensions(shape), resolution=BOX_RESOLUTION)
        if shape.tag == "cylinder":
            return Cylinder(*self._dimensions(shape))      # both along z
        if shape.tag == "sphere":
            return Sphere(self._dimensions(shape))
        if shape.tag == "mesh":
            filename = shape.get("filename") or ""
            path, why = self._resolve(filename)
            if path is None:
                self.skipped.append(f"{doc.where(shape)} {filename!r}: {why}; not collided")
                return None
            scale = doc.numbers(shape, "scale", 3, [1.0, 1.0, 1.0])
            try:
                mesh = TriangleMesh.load(path)
                if not np.all(scale == 1.0):
                    faces = mesh.get_faces()
                    if np.prod(np.sign(scale)) < 0:
                        faces = faces[:, ::-1]
                    mesh = TriangleMesh(mesh.get_vertices() * scale, faces)
            except InvalidArgumentError as error:
                self.skipped.append(f"{doc.where(shape)} {filename!r}: {error} Not collided")
                return None
            return mesh
        self.skipped.append(f"{doc.where(shape)}: a <{shape.tag}> collision shape is not "
                            f"URDF's (box, cylinder, sphere, mesh); not collided")
        return None

    def _positive(self, element, what: str, values: np.ndarray) -> None:
        if not np.all(values > 0):
            raise InvalidArgumentError(
                f"load_urdf: {self.doc.where(element)}: the {what} must be positive (m), "
                f"got {values.tolist()}.")

    def _mesh(self, shape):
        """The DecorativeMesh of a ``<mesh filename scale>``, or None with the reason in
        skipped when the file cannot be found or read."""
        doc = self.doc
        filename = shape.get("filename")
        if not filename:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(shape)} has no filename=\"...\"; give the mesh "
                f"file.")
        scale = doc.numbers(shape, "scale", 3, [1.0, 1.0, 1.0])
        path, why = self._resolve(filename)
        if path is None:
            self.skipped.append(f"{doc.where(shape)} {filename!r}: {why}; not drawn")
            return None
        try:
            mesh = DecorativeMesh(path)
        except InvalidArgumentError as error:
            self.skipped.append(f"{doc.where(shape)} {filename!r}: {error} Not drawn")
            return None
        if np.all(scale > 0):
            return mesh.set_scale(scale)
        if not np.all(scale != 0):
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(shape)} scale=\"{shape.get('scale')}\": a zero "
                f"scale flattens the mesh; use nonzero factors.")
        # A negative factor mirrors the mesh, which set_scale does not do: mirror the
        # vertices, and turn the triangles round to keep them facing out.
        faces = mesh.get_faces()
        if np.prod(np.sign(scale)) < 0:
            faces = faces[:, ::-1]
        return DecorativeMesh((mesh.get_vertices() * scale, faces))

    def _resolve(self, filename: str) -> tuple[Path | None, str]:
        """(the file a mesh filename names, '') or (None, why not): package:// against
        package_dirs, then ROS_PACKAGE_PATH, then the folders above the URDF; file:// and
        plain paths against the URDF's folder."""
        here = self.path.parent
        if filename.startswith("package://"):
            package, _, rest = filename[len("package://"):].partition("/")
            rest = unquote(rest)
            tried = []
            for folder in self._package_folders(package):
                tried.append(str(folder))
                if (folder / rest).is_file():
                    if not within(folder / rest, [folder, *self.geometry_dirs]):
                        return None, (f"it leads outside package {package!r}; pass "
                                      f"geometry_dirs=[its folder] to load_urdf to allow it")
                    return folder / rest, ""
            return None, (f"package {package!r} not found (looked in "
                          f"{', '.join(tried) or 'no folder'}); pass "
                          f"package_dirs=[the folder holding {package}/] or "
                          f"{{{package!r}: its folder}}")
        if "://" in filename and not filename.startswith("file://"):
            return None, f"kinetree reads local files only ({filename.split('://')[0]}://)"
        local = Path(unquote(filename.removeprefix("file://")))
        path = local if local.is_absolute() else here / local
        if not path.is_file():
            return None, f"no file at {path}"
        if not within(path, [here, *self.geometry_dirs, *self._named_folders()]):
            return None, (f"{path} is outside the URDF's folder; pass geometry_dirs=[its "
                          f"folder] to load_urdf to allow it")
        return path, ""

    def _named_folders(self) -> list[Path]:
        """The folders the caller named for packages (package_dirs, ROS_PACKAGE_PATH),
        which a mesh path may reach as well as the URDF's own folder."""
        dirs = self.package_dirs
        dirs = list(dirs.values()) if isinstance(dirs, dict) else \
            [dirs] if isinstance(dirs, (str, os.PathLike)) else list(dirs or [])
        return [Path(d) for d in dirs] + [
            Path(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]

    def _package_folders(self, package: str) -> list[Path]:
        """Where a ROS package may be, in the order looked in."""
        dirs = self.package_dirs
        out = []
        if isinstance(dirs, dict):
            if package in dirs:
                out.append(Path(dirs[package]))
            dirs = []
        elif isinstance(dirs, (str, os.PathLike)):
            dirs = [dirs]
        roots = [Path(d) for d in (dirs or [])]
        roots += [Path(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep)
                  if d]
        for root in roots:
            out.append(root if root.name == package else root / package)
        out += [p for p in self.path.resolve().parents if p.name == package]
        return [p for p in dict.fromkeys(out) if p.is_dir()]

    # ----------------------------------------------------------------- joints
    def _add_joint(self, element) -> None:
        doc = self.doc
        name = element.get("name")
        if not name:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)} has no name; give every joint a unique "
                f"name=\"...\".")
        if name in self.joints:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)}: a joint named {name!r} is already "
                f"defined at line {doc.lines[self.joints[name].element]}; joint names must "
                f"be unique.")
        kind = element.get("type")
        if kind not in JOINT_TYPES:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)} has type={kind!r}; URDF's joint types are "
                f"{', '.join(JOINT_TYPES)}.")
        ends = {}
        for end in ("parent", "child"):
            tag = element.find(end)
            if tag is None or not tag.get("link"):
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(element)} has no <{end} link=\"...\"/>; every "
                    f"joint names its parent and child links.")
            ends[end] = tag.get("link")
        if ends["parent"] == ends["child"]:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)} joins link {ends['parent']!r} to itself; "
                f"the parent and child must be different links.")
        axis = np.array([1.0, 0.0, 0.0])
        axis_element = element.find("axis")
        if axis_element is not None and kind in MOVING_JOINTS[:4]:
            axis = doc.numbers(axis_element, "xyz", 3, [1.0, 0.0, 0.0])
            norm = float(np.linalg.norm(axis))
            if norm < 1e-12:
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(element)} has the axis xyz=\""
                    f"{axis_element.get('xyz')}\", of zero length; give the direction of "
                    f"the joint axis (it is normalized).")
            axis = axis / norm
        joint = _Joint(name, element, kind, ends["parent"], ends["child"],
                       doc.origin(element), axis)
        limit = element.find("limit")
        if kind in ("revolute", "prismatic"):
            if limit is None:
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(element)} is {kind} but has no <limit lower "
                    f"upper effort velocity/>; URDF requires one (use type \"continuous\" "
                    f"for a revolute joint without limits).")
            lower = doc.number(limit, "lower", 0.0)
            upper = doc.number(limit, "upper", 0.0)
            if lower > upper:
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(limit)} of joint {name!r} has lower {lower} > "
                    f"upper {upper}; swap them.")
            effort = doc.number(limit, "effort", math.inf, minimum=0.0,
                                rule="is negative; an effort limit is at least 0")
            velocity = doc.number(limit, "velocity", math.inf, minimum=0.0,
                                  rule="is negative; a velocity limit is at least 0")
            joint.limit = (lower, upper, effort, velocity)
        elif kind == "continuous" and limit is not None:
            effort = doc.number(limit, "effort", math.inf, minimum=0.0,
                                rule="is negative; an effort limit is at least 0")
            velocity = doc.number(limit, "velocity", math.inf, minimum=0.0,
                                  rule="is negative; a velocity limit is at least 0")
            joint.limit = (-math.inf, math.inf, effort, velocity)
        dynamics = element.find("dynamics")
        if dynamics is not None and kind in MOVING_JOINTS:
            joint.damping = doc.number(dynamics, "damping", 0.0, minimum=0.0,
                                       rule="is negative; damping dissipates (>= 0 N m s)")
            friction = doc.number(dynamics, "friction", 0.0, minimum=0.0,
                                  rule="is negative; friction is at least 0")
            if friction > 0:
                self.skipped.append(
                    f"{doc.where(dynamics)} of joint {name!r}: Coulomb friction {friction} "
                    f"is not modelled")
        mimic = element.find("mimic")
        if mimic is not None:
            if kind not in ("revolute", "continuous", "prismatic"):
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(mimic)}: joint {name!r} is {kind}; only a "
                    f"revolute, continuous or prismatic joint can mimic another.")
            master = mimic.get("joint")
            if not master:
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(mimic)} of joint {name!r} has no "
                    f"joint=\"...\"; name the joint it follows.")
            joint.mimic = (master, doc.number(mimic, "multiplier", 1.0),
                           doc.number(mimic, "offset", 0.0), mimic)
        known = {"origin", "parent", "child", "axis", "limit", "dynamics", "mimic"}
        for child in element:
            if child.tag not in known and child.tag not in _READ_PAST["joint"]:
                self.skipped.append(f"{doc.where(child)} in joint {name!r}: "
                                    f"{_WHY_SKIPPED.get(child.tag, 'not built')}")
        self.joints[name] = joint


def _tree_order(reader: _Reader) -> tuple[str, list[_Joint]]:
    """(the root link, the joints parent before child, siblings in file order), after
    checking the links form one tree."""
    doc = reader.doc
    parent_joint: dict[str, _Joint] = {}
    children: dict[str, list[_Joint]] = {name: [] for name in reader.links}
    for joint in reader.joints.values():
        for end in ("parent", "child"):
            link = getattr(joint, end)
            if link not in reader.links:
                raise InvalidArgumentError(
                    f"load_urdf: {doc.where(joint.element)} names the {end} link {link!r}, "
                    f"which the file does not define; add <link name=\"{link}\"> or fix "
                    f"the name.")
        if joint.child in parent_joint:
            first = parent_joint[joint.child]
            raise InvalidArgumentError(
                f"load_urdf: link {joint.child!r} has two parents: joint {first.name!r} "
                f"(line {doc.lines[first.element]}) and joint {joint.name!r} (line "
                f"{doc.lines[joint.element]}); a URDF is a tree, each link the child of one "
                f"joint. Remove one; to close a loop, add a Constraint to the loaded model.")
        parent_joint[joint.child] = joint
        children[joint.parent].append(joint)
    roots = [name for name in reader.links if name not in parent_joint]
    if len(roots) > 1:
        raise InvalidArgumentError(
            f"load_urdf: {reader.path.name} has {len(roots)} links that are no joint's "
            f"child: {', '.join(map(repr, roots))}; a URDF is one tree with one root. Join "
            f"them with joints (a fixed one to a common root).")
    order: list[_Joint] = []
    stack = list(reversed(children[roots[0]])) if roots else []
    while stack:
        joint = stack.pop()
        order.append(joint)
        stack.extend(reversed(children[joint.child]))
    if len(order) < len(reader.joints):
        placed = {j.name for j in order}
        loop = [j.name for j in reader.joints.values() if j.name not in placed]
        raise InvalidArgumentError(
            f"load_urdf: the joints {', '.join(map(repr, loop))} form a closed loop (each "
            f"of their links is the child of another); a URDF is a tree. Remove one joint "
            f"of the loop and close it with a Constraint after loading.")
    return roots[0], order


def _subtree_masses(reader: _Reader, order: list[_Joint]) -> dict[str, float]:
    """The mass (kg) each link carries: its own and that of every link below it."""
    mass = {name: link.mass_properties.get_mass() for name, link in reader.links.items()}
    for joint in reversed(order):
        mass[joint.parent] += mass[joint.child]
    return mass


def _mobilize(joint: _Joint, parent, body) -> MobilizedBody:
    """The MobilizedBody of ``joint`` (its child link as ``body``): F and M turned so the
    mobilizer's axis is the joint's, and coincident when q = 0, where URDF puts the child
    frame at the joint's origin."""
    if joint.type in ("revolute", "continuous", "planar"):
        R = Transform(rotation_taking_axis(2, joint.axis))
        kind = MobilizedBody.Planar if joint.type == "planar" else MobilizedBody.Pin
        return kind(parent, joint.X_PJ @ R, body, R)
    if joint.type == "prismatic":
        R = Transform(rotation_taking_axis(0, joint.axis))
        return MobilizedBody.Slider(parent, joint.X_PJ @ R, body, R)
    kind = MobilizedBody.Free if joint.type == "floating" else MobilizedBody.Weld
    return kind(parent, joint.X_PJ, body, Transform())


def load_urdf(path, floating_base: bool = False, package_dirs=None,
              geometry_dirs=(), contact_material=None, contact_model: str = "compliant"
              ) -> Model:
    """Build the robot of a URDF file: a Model whose ``system`` is a MultibodySystem (with
    its ``matter``, a GeneralForceSubsystem ``forces`` and gravity -9.81 m/s² along z),
    ``bodies`` by link name (and Ground as ``"ground"`` unless a link has that name; a
    root link named ``world`` IS Ground),
    ``coordinates`` one per revolute, continuous and prismatic joint, named by the joint
    and three per planar joint (``<joint>_rz``, ``_tx``, ``_ty``), in the file's order,
    and ``constraints`` the mimic couplers, by the name of the joint that follows.

    - ``floating_base``: the root link moves freely (a Free mobilizer, q = [quaternion,
      position] of the link in Ground, no Coordinates: set its pose with
      ``model.bodies[root].set_q_to_fit_transform``); otherwise it is welded to Ground
      at Ground's origin.
    - ``package_dirs``: where ``package://NAME/...`` mesh files are: a folder or a list of
      folders holding the package folder NAME (or being it), or a dict {NAME: folder}.
      ROS_PACKAGE_PATH and the folders above the URDF file are looked in after them.
    - ``geometry_dirs``: folders besides the URDF's own (and those of ``package_dirs`` and
      ROS_PACKAGE_PATH) that its mesh files may be read from; a mesh path leading
      anywhere else (``../x.stl``, ``file:///...``) is skipped, since a file from someone
      else must not reach the rest of the disk.

    - ``contact_material``: a ContactMaterial for the ``<collision>`` shapes, which then
      become contact surfaces under a CompliantContactSubsystem (``model.contact``; the
      module docstring says how each shape is collided); None reads them past.
    - ``contact_model``: ``"compliant"`` (the default: the CompliantContactSubsystem), or
      ``"rigid"``: the surfaces alone, for rigid contact; add the floor, then
      ``kt.contact.generate_unilateral_contacts(model.matter)`` and step with a
      SemiExplicitEulerTimeStepper.

    Joint limits land on ``Coordinate.range`` (``velocity_limit``, ``effort_limit``
    beside it); they are not enforced. Raises
    InvalidArgumentError (NonPhysicalError for an impossible inertia) naming the element,
    its line and the fix; warns once (KinetreeWarning) listing what was skipped.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(
            f"load_urdf: expected the path of a .urdf file, got {type(path).__name__}.")
    if isinstance(path, str) and path.lstrip().startswith("<"):
        raise InvalidArgumentError(
            "load_urdf: got URDF text, not a path; write it to a file "
            "(Path('robot.urdf').write_text(text)) and load that.")
    path = Path(path)
    if not path.is_file():
        raise InvalidArgumentError(f"load_urdf: no file at {path}.")
    if contact_material is not None:
        from kinetree.contact.material import ContactMaterial
        if not isinstance(contact_material, ContactMaterial):
            raise InvalidArgumentError(
                f"load_urdf: contact_material must be a ContactMaterial(stiffness, "
                f"dissipation, static_friction, dynamic_friction), got "
                f"{type(contact_material).__name__}.")
    if contact_model not in ("compliant", "rigid"):
        raise InvalidArgumentError(
            f"load_urdf: contact_model must be \"compliant\" or \"rigid\", got "
            f"{contact_model!r}.")
    reader = _Reader(path, package_dirs, geometry_dirs, collide=contact_material is not None)
    doc = reader.doc
    root, order = _tree_order(reader)
    carried = _subtree_masses(reader, order)
    for joint in order:
        if joint.type in MOVING_JOINTS and carried[joint.child] <= 0:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(joint.element)} moves link {joint.child!r}, which "
                f"carries no mass (it and the links below it have none), so its "
                f"acceleration is undefined. Give link {joint.child!r} an <inertial> with "
                f"a positive mass, or make the joint fixed.")
    if floating_base and root == "world":
        raise InvalidArgumentError(
            f"load_urdf: {path.name}'s root link is 'world', which is Ground; it cannot "
            f"float. Load with floating_base=False, or change the joint below 'world' to "
            f"type \"floating\".")
    if floating_base and carried[root] <= 0:
        raise InvalidArgumentError(
            f"load_urdf: {path.name} has no mass anywhere, so a floating base cannot "
            f"move; give its links <inertial> elements.")

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    UniformGravity(forces, matter, list(GRAVITY))
    model = Model(reader.name, system, matter, forces)
    ground = matter.Ground()
    model.bodies["ground"] = ground

    surfaces = _collision_surfaces(reader, contact_material)
    if contact_material is not None and contact_model == "compliant":
        from kinetree.contact.compliant import CompliantContactSubsystem
        from kinetree.contact.tracker import ContactTrackerSubsystem
        model.contact = CompliantContactSubsystem(system, ContactTrackerSubsystem(system))

    def body_of(name: str):
        body = Rigid(reader.links[name].mass_properties)
        for visual in reader.links[name].visuals:
            body.add_decoration(visual.X_LV, visual.geometry)
        for X_LC, surface in surfaces[name]:
            body.add_contact_surface(X_LC, surface)
        return body

    mobods: dict = {}
    if root == "world":
        for visual in reader.links[root].visuals:
            ground.add_body_decoration(visual.X_LV, visual.geometry)
        for X_LC, surface in surfaces[root]:
            ground.upd_body().add_contact_surface(X_LC, surface)
        mobods[root] = ground
    elif floating_base:
        mobods[root] = MobilizedBody.Free(ground, Transform(), body_of(root), Transform())
    else:
        mobods[root] = MobilizedBody.Weld(ground, Transform(), body_of(root), Transform())
    for joint in order:
        mobods[joint.child] = _mobilize(joint, mobods[joint.parent], body_of(joint.child))
    for name in reader.links:
        model.bodies[name] = mobods[name]

    coordinates: dict[str, tuple] = {}     # joint name -> (mobod, which)
    for joint in reader.joints.values():
        mobod = mobods[joint.child]
        if joint.type in ("revolute", "continuous", "prismatic"):
            lower, upper, effort, velocity = joint.limit or (-math.inf, math.inf,
                                                             math.inf, math.inf)
            model.coordinates[joint.name] = Coordinate(
                joint.name, mobod, 0, range=(lower, upper), clamped=joint.type != "continuous",
                motion_type="translational" if joint.type == "prismatic" else "rotational",
                joint_name=joint.name, velocity_limit=velocity, effort_limit=effort)
            coordinates[joint.name] = (mobod, 0)
        elif joint.type == "planar":
            for which, (suffix, motion) in enumerate(_PLANAR_COORDINATES):
                name = f"{joint.name}_{suffix}"
                if name in reader.joints:
                    raise InvalidArgumentError(
                        f"load_urdf: {doc.where(joint.element)} is planar, and its "
                        f"coordinate {name!r} would take the name of another joint; "
                        f"rename one of the two joints.")
                model.coordinates[name] = Coordinate(name, mobod, which, motion_type=motion,
                                                     joint_name=joint.name)
        if joint.damping > 0:
            for which in range(3 if joint.type == "planar" else
                               6 if joint.type == "floating" else 1):
                MobilityLinearDamper(forces, mobod, which, joint.damping)

    _add_mimics(reader, model, coordinates)
    model.skipped = reader.skipped
    if reader.skipped:
        warnings.warn(
            f"load_urdf: {path.name}: {len(reader.skipped)} element(s) not built: "
            + "; ".join(reader.skipped) + ".", KinetreeWarning, stacklevel=2)
    return model


def _collision_surfaces(reader: _Reader, material) -> dict[str, list]:
    """{link: [(X_LC, ContactSurface)]}: each link's collision shapes of ``material``,
    those of a joint's two links in one contact clique, so that they never touch."""
    from kinetree.contact.surface import ContactSurface

    surfaces = {name: [(X, ContactSurface(shape, material)) for X, shape in link.collisions]
                for name, link in reader.links.items()}
    for joint in reader.joints.values():
        clique = ContactSurface.create_new_contact_clique()
        for name in (joint.parent, joint.child):
            for _, surface in surfaces.get(name, []):
                surface.join_clique(clique)
    return surfaces


def _add_mimics(reader: _Reader, model: Model, coordinates: dict) -> None:
    """A CoordinateCoupler q = multiplier q_master + offset for each mimic joint, and that
    joint's default q set to satisfy it at the master's default (0)."""
    doc = reader.doc
    mimics = {j.name: j.mimic for j in reader.joints.values() if j.mimic is not None}
    for name, (master, _, _, element) in mimics.items():
        if master not in coordinates:
            what = ("is not defined" if master not in reader.joints else
                    f"is {reader.joints[master].type}, with no single coordinate")
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)} of joint {name!r} follows joint "
                f"{master!r}, which {what}; name a revolute, continuous or prismatic joint.")
        if master == name:
            raise InvalidArgumentError(
                f"load_urdf: {doc.where(element)}: joint {name!r} mimics itself; name the "
                f"joint it follows.")
    defaults: dict[str, float] = {}

    def default(name: str, seen: tuple) -> float:
        if name not in mimics:
            return 0.0
        if name in seen:
            cycle = " -> ".join(seen[seen.index(name):] + (name,))
            raise InvalidArgumentError(
                f"load_urdf: the mimic joints {cycle} follow each other in a circle; one "
                f"of them must follow a joint that mimics nothing.")
        if name not in defaults:
            master, multiplier, offset, _ = mimics[name]
            defaults[name] = multiplier * default(master, seen + (name,)) + offset
        return defaults[name]

    for name, (master, multiplier, offset, _) in mimics.items():
        mobod, which = coordinates[name]
        master_mobod, master_which = coordinates[master]
        value = default(name, ())
        mobod.set_default_q([value])
        model.coordinates[name].default_value = value
        model.constraints[name] = CoordinateCoupler(
            model.matter, CouplingFunction(Function.Linear([multiplier, offset]), 1.0, 1),
            [master_mobod, mobod], [master_which, which])
