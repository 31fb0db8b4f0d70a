"""The scene of one System in a viser server: what is drawn, and each frame's poses.

``Scene`` builds the fixed part once: every decoration fixed to a body (its own, its
contact surfaces, or, for a body with neither, a frame and a line to each child) and to
Ground, a ground grid, and the up direction opposite gravity. ``frame_of`` reads one State
into a ``Frame`` (body poses and the per-frame decorations, in G), made in the
simulation's thread; ``Scene.show`` draws it, in another.

Decorations are drawn in batches (``Batch``): all those of one Shape key (the same mesh;
lines of one thickness; ...) are one viser node whose instances or points move together,
so a frame costs a few messages to the browser however many bodies the model has.
``shapes.py`` says what each decoration type looks like.
"""

from __future__ import annotations

import contextlib
import io
import socket
from typing import NamedTuple

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.system.stage import Stage
from kinetree.viz import decorations as deco
from kinetree.viz.shapes import shape_of

CONTACT_COLOR = (0.45, 0.65, 0.85)
DEFAULT_GEOMETRY_COLOR = (0.55, 0.55, 0.6)


def start_server(host: str, port: int):
    """A viser server at host:port (the next free port if that one is taken; 0: any),
    without viser's banner on stdout. The port and the host are checked first: viser
    starts its server in a thread of its own, and a failure there would leave this call
    waiting for ever."""
    import viser

    if isinstance(port, bool) or not isinstance(port, (int, np.integer)) \
            or not 0 <= port <= 65535:
        raise InvalidArgumentError(
            f"Visualizer: port must be a whole number from 0 to 65535 (0: any free one), "
            f"got {port!r}.")
    try:
        with socket.socket(socket.AF_INET6 if ":" in str(host) else socket.AF_INET,
                           socket.SOCK_STREAM) as probe:
            probe.bind((host, 0))
    except (OSError, TypeError, UnicodeError) as error:
        raise InvalidArgumentError(
            f"Visualizer: cannot serve at host {host!r} ({error}); use '127.0.0.1' for "
            f"this machine only, or '0.0.0.0' for every network interface.") from None
    with contextlib.redirect_stdout(io.StringIO()):
        return viser.ViserServer(host=host, port=int(port), verbose=False)


def stop_server(server) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        server.stop()


class Frame(NamedTuple):
    """One drawn instant: simulated time t (s), each body's orientation R_GB (nb, 3, 3) and
    origin p_GB (nb, 3, m) in Ground, and the per-frame decorations as (X_GD, geometry)
    pairs in Ground."""
    t: float
    R_GB: np.ndarray
    p_GB: np.ndarray
    generated: list


def contact_decoration(shape):
    """The decoration showing a contact surface's shape in its frame S, or None for a
    shape without one."""
    from kinetree.contact import geometry as cg
    from kinetree.contact import mesh as cm
    from kinetree.contact.capsule import Capsule
    from kinetree.contact.convex_hull import Convex

    if isinstance(shape, cg.Sphere):
        return deco.DecorativeSphere(shape.get_radius())
    if isinstance(shape, cg.Ellipsoid):
        return deco.DecorativeEllipsoid(shape.get_radii())
    if isinstance(shape, cm.Brick):
        return deco.DecorativeBrick(shape.get_half_lengths())
    if isinstance(shape, cm.Cylinder):
        # The contact cylinder runs along z; the decoration along y.
        return deco.DecorativeCylinder(shape.get_radius(), shape.get_half_length()) \
            .set_transform(Transform(Rotation.about_x(np.pi / 2), np.zeros(3)))
    if isinstance(shape, cm.TriangleMesh):
        return deco.DecorativeMesh(shape)
    if isinstance(shape, Capsule):
        import trimesh

        solid = trimesh.creation.capsule(height=2.0 * shape.get_half_length(),
                                         radius=shape.get_radius())
        return deco.DecorativeMesh((np.asarray(solid.vertices), np.asarray(solid.faces)))
    if isinstance(shape, Convex):
        return deco.DecorativeMesh((shape.get_vertices(), shape.get_faces()))
    if isinstance(shape, cg.HalfSpace):
        # The half space x > 0 of S: a thin slab below its surface plane x = 0.
        return deco.DecorativeBrick((0.005, 2.0, 2.0)).set_opacity(0.6) \
            .set_transform(Transform(Rotation(), [0.005, 0.0, 0.0]))
    return None


def _implementations(system) -> list:
    """What may suggest decorations: the user implementations of custom mobilizers,
    constraints and forces, and subsystems that draw their elements (the actuators'
    muscle paths)."""
    matter = system.get_matter_subsystem()
    found = []
    for b in range(1, matter.get_num_bodies()):
        getter = getattr(matter.get_mobilized_body(b), "get_implementation", None)
        if getter is not None:
            found.append(getter())
    for c in range(matter.get_num_constraints()):
        found.append(matter.get_constraint(c).get_implementation())
    for s in range(system.get_num_subsystems()):
        sub = system.get_subsystem(s)
        if hasattr(sub, "calc_decorative_geometry_and_append"):
            found.append(sub)       # a subsystem drawing its elements (muscle paths)
        for f in range(sub.get_num_forces() if hasattr(sub, "get_num_forces") else 0):
            getter = getattr(sub.get_force(f), "get_implementation", None)
            if getter is not None:
                found.append(getter())
    return [i for i in found if hasattr(i, "calc_decorative_geometry_and_append")]


def suggested_decorations(implementations, state, stage) -> list:
    """What the implementations append for ``stage`` (TOPOLOGY: fixed to their bodies;
    POSITION: drawn each frame)."""
    out: list = []
    for implementation in implementations:
        implementation.calc_decorative_geometry_and_append(state, stage, out)
    return out


def up_direction(system) -> str:
    """viser's up axis: the Ground axis nearest to -g of the system's gravity, "+y" (as in
    Simbody's examples) when it has none."""
    from kinetree.forces.elements.gravity import Gravity
    from kinetree.forces.elements.uniform_gravity import UniformGravity

    for s in range(system.get_num_subsystems()):
        sub = system.get_subsystem(s)
        for f in range(sub.get_num_forces() if hasattr(sub, "get_num_forces") else 0):
            force = sub.get_force(f)
            if isinstance(force, (UniformGravity, Gravity)):
                g = np.asarray(force.get_default_gravity() if isinstance(force, UniformGravity)
                               else force.get_default_gravity_vector(), dtype=float)
                if np.linalg.norm(g) > 0:
                    k = int(np.argmax(np.abs(g)))
                    return ("-" if g[k] > 0 else "+") + "xyz"[k]
    return "+y"


def _default_geometry(matter, b: int, length: float) -> list:
    """A frame at body b's origin and a line to where each child hangs (its inboard frame
    F), for a body with nothing else to show."""
    out = [deco.DecorativeFrame(0.3 * length)]
    for child in range(b + 1, matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(child)
        if mobod.get_parent_mobilized_body().get_mobilized_body_index() == b:
            p = np.asarray(mobod.get_default_inboard_frame().p, dtype=float)
            if np.linalg.norm(p) > 0:
                out.append(deco.DecorativeLine((0, 0, 0), p).set_line_thickness(3)
                           .set_color(DEFAULT_GEOMETRY_COLOR))
    return out


def length_scale(matter) -> float:
    """A typical length of the model (m): the median distance between a body and where
    its children hang, 0.1 m for a model with none."""
    distances = []
    for b in range(1, matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(b)
        for X in (mobod.get_default_inboard_frame(), mobod.get_default_outboard_frame()):
            d = float(np.linalg.norm(X.p))
            if d > 0:
                distances.append(d)
    return float(np.median(distances)) if distances else 0.1


def orientations(R_GB: np.ndarray) -> np.ndarray:
    """Unit quaternions (n, 4), scalar first, of the rotation matrices R_GB (n, 3, 3)."""
    from scipy.spatial.transform import Rotation as ScipyRotation

    return ScipyRotation.from_matrix(R_GB).as_quat(scalar_first=True)


def frame_of(system, state, generators=(), implementations=()) -> Frame:
    """The Frame of ``state`` (realized through POSITION here if it is not): body poses,
    then what each generator's ``generate_decorations(state, geometry)`` and each custom
    element's ``calc_decorative_geometry_and_append`` for POSITION add, in Ground."""
    if state.get_system_stage() < Stage.POSITION:
        system.realize(state, Stage.POSITION)
    d = system.get_matter_subsystem().get_tree_data(state, Stage.POSITION, "Visualizer.report")
    R_GB, p_GB = d.cache.R_GB, d.cache.p_GB
    geometry: list = []
    for generator in generators:
        generator.generate_decorations(state, geometry)
    geometry += suggested_decorations(implementations, state, Stage.POSITION)
    generated = []
    for g in geometry:
        b = g.get_body_id()
        X = g.get_transform()
        if b != 0:
            X = Transform._trusted(Rotation._trusted(R_GB[b].copy()), p_GB[b].copy()) @ X
        generated.append((X, g))
    return Frame(float(state.get_time()), R_GB.copy(), p_GB.copy(), generated)


def _rgb(geometry) -> np.ndarray:
    """A decoration's colour (the default where none was set) in 8 bits."""
    return np.round(255 * geometry.get_color()).astype(np.uint8)


def linear_rgb(srgb: np.ndarray) -> np.ndarray:
    """8-bit sRGB colours as the 8-bit linear values that three.js's per-instance and
    per-vertex colours take (batched meshes, line segments, arrows): unlike a mesh's own
    colour, those are not converted from sRGB on the way."""
    c = srgb / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return np.round(255 * linear).astype(np.uint8)


class Batch:
    """Decorations of one Shape key drawn as one viser node. Each instance is a
    decoration on body ``bodies[i]`` at (R_BD, p_BD); ``show`` places them all from the
    body poses of a frame."""

    def __init__(self, kind: str, key: tuple):
        self.kind, self.key = kind, key
        self.bodies, self.R_BD, self.p_BD, self.colors, self.opacities = [], [], [], [], []
        self.data: list = []
        self.handle = None

    def add(self, b: int, X_BD: Transform, geometry, data) -> None:
        self.bodies.append(b)
        self.R_BD.append(X_BD.R.as_matrix())
        self.p_BD.append(np.asarray(X_BD.p, dtype=float))
        self.colors.append(_rgb(geometry))
        self.opacities.append(geometry.get_opacity())
        self.data.append(data)

    def _poses(self, frame: Frame) -> tuple[np.ndarray, np.ndarray]:
        """(R_GD (n, 3, 3), p_GD (n, 3)) of the instances."""
        R_GB, p_GB = frame.R_GB[self._b], frame.p_GB[self._b]
        return R_GB @ self._R, p_GB + np.einsum("nij,nj->ni", R_GB, self._p)

    def _points(self, frame: Frame) -> np.ndarray:
        """The instances' points (lines, arrows, points) in G, (m, 3)."""
        R_GD, p_GD = self._poses(frame)
        return (np.einsum("mij,mj->mi", R_GD[self._owner], self._local) + p_GD[self._owner])

    def create(self, scene, name: str, frame: Frame) -> None:
        """Add the node to the viser ``scene`` at the poses of ``frame``."""
        self._b = np.array(self.bodies)
        self._R, self._p = np.array(self.R_BD), np.array(self.p_BD)
        colors = np.array(self.colors)
        if self.kind in ("lines", "arrows", "points"):
            self._local = np.concatenate(self.data)
            self._owner = np.repeat(np.arange(len(self.data)), [len(d) for d in self.data])
        if self.kind == "mesh":
            vertices, faces = self.data[0]
            R_GD, p_GD = self._poses(frame)
            opacities = np.array(self.opacities)
            self.handle = scene.add_batched_meshes_simple(
                name, vertices.astype(np.float32), faces.astype(np.uint32),
                batched_wxyzs=orientations(R_GD), batched_positions=p_GD,
                batched_colors=linear_rgb(colors),
                batched_opacities=None if np.all(opacities >= 1) else opacities,
                wireframe=self.key[3], flat_shading=self.key[4], lod="off")
        elif self.kind == "axes":
            R_GD, p_GD = self._poses(frame)
            length = self.key[0]
            self.handle = scene.add_batched_axes(
                name, batched_wxyzs=orientations(R_GD), batched_positions=p_GD,
                axes_length=length, axes_radius=0.04 * length)
        elif self.kind == "lines":
            self.handle = scene.add_line_segments(
                name, self._points(frame).reshape(-1, 2, 3),
                np.repeat(linear_rgb(colors), 2, axis=0).reshape(-1, 2, 3),
                thickness=self.key[0],
                thickness_units="screen")
        elif self.kind == "arrows":
            tip = self.key[0]
            self.handle = scene.add_arrows(
                name, self._points(frame).reshape(-1, 2, 3), linear_rgb(colors),
                shaft_radius=0.15 * tip,
                head_radius=0.4 * tip, head_length=tip)
        elif self.kind == "points":
            self.handle = scene.add_point_cloud(
                name, self._points(frame).astype(np.float32),
                colors[self._owner], point_size=self.key[0], point_shape="circle")
        else:
            R_GD, p_GD = self._poses(frame)
            self.handle = [scene.add_label(f"{name}_{i}", text, position=p_GD[i],
                                           wxyz=orientations(R_GD[i:i + 1])[0])
                           for i, text in enumerate(self.data)]

    def show(self, frame: Frame) -> None:
        """Move the instances to the body poses of ``frame``."""
        if self.kind in ("mesh", "axes"):
            R_GD, p_GD = self._poses(frame)
            self.handle.batched_wxyzs = orientations(R_GD)
            self.handle.batched_positions = p_GD
        elif self.kind in ("lines", "arrows"):
            self.handle.points = self._points(frame).reshape(-1, 2, 3)
        elif self.kind == "points":
            self.handle.points = self._points(frame).astype(np.float32)
        else:
            R_GD, p_GD = self._poses(frame)
            for i, label in enumerate(self.handle):
                label.position = p_GD[i]

    def remove(self) -> None:
        for handle in self.handle if isinstance(self.handle, list) else [self.handle]:
            handle.remove()


def batches(placed) -> list:
    """The Batches of ``placed``, (body, X_BD, geometry) triples: one per
    Shape key, meshes of the same geometry instanced."""
    out: dict = {}
    for b, X_BD, g in placed:
        shape = shape_of(g)
        key = (shape.kind, shape.key)
        if key not in out:
            out[key] = Batch(shape.kind, shape.key)
        out[key].add(b, X_BD, g, shape.data)
    return list(out.values())


class Scene:
    """The nodes of one System in a viser server."""

    def __init__(self, server, system, state, *, show_default_geometry: bool = True,
                 ground_plane: bool = True, extra=(), up: str | None = None,
                 ground_height: float | None = None):
        scene = server.scene
        matter = system.get_matter_subsystem()
        self._scene = scene
        self._system = system
        self._implementations = _implementations(system)
        self._generated: list = []
        self._ground_plane = ground_plane
        self._ground_height = ground_height
        self.up = up_direction(system) if up is None else up
        scene.set_up_direction(self.up)
        self.length = length = length_scale(matter)
        fixed = [(g.get_body_id(), g) for g in
                 suggested_decorations(self._implementations, state, Stage.TOPOLOGY)]
        fixed += [(g.get_body_id(), g) for g in extra]
        for b in range(matter.get_num_bodies()):
            body = matter.get_mobilized_body(b).get_body()
            shown = [(b, body.get_decoration(k)) for k in range(body.get_num_decorations())]
            for k in range(body.get_num_contact_surfaces()):
                shape = contact_decoration(body.get_contact_surface(k).get_shape())
                if shape is not None:
                    X_BS = body.get_contact_surface_transform(k)
                    shown.append((b, shape.set_transform(X_BS @ shape.get_transform())
                                  .set_color(shape.get_color() if shape.has_color()
                                             else CONTACT_COLOR)))
            if b > 0 and not shown and show_default_geometry:
                shown = [(b, g) for g in _default_geometry(matter, b, length)]
            fixed += shown
        self._fixed = [(b, g) for b, g in fixed if b > 0]
        self._batches = batches((b, g.get_transform(), g) for b, g in fixed)
        self._created = False

    def frame_of(self, state, generators=()) -> Frame:
        """The Frame of ``state`` with the decorations of ``generators`` and of the custom
        elements for POSITION."""
        return frame_of(self._system, state, generators, self._implementations)

    def fit_view(self, server, frame: Frame, grid: bool = True) -> None:
        """Point the page's first camera at the bodies and their decorations in
        ``frame``, from above and far enough to see them all, and (with ``grid``) lay the
        ground grid at the ground height, by default through Ground's origin, or below
        the model if it hangs lower."""
        points = self._extent(frame)
        centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
        size = max(float(np.ptp(points, axis=0).max()), 4 * self.length)
        k = "xyz".index(self.up[1])
        up = np.zeros(3)
        up[k] = 1.0 if self.up[0] == "+" else -1.0
        if self._ground_plane and grid:
            height = self._ground_height
            if height is None:
                height = min(0.0, float((points @ up).min()) - size)
            plane = {"x": "yz", "y": "zx", "z": "xy"}[self.up[1]]
            grid = 10 * max(self.length, size / 4)
            self._scene.add_grid("/ground/grid", width=grid, height=grid,
                                 cell_size=grid / 40, section_size=grid / 8, plane=plane,
                                 position=height * up)
        side = 0.7 * up
        side[(k + 1) % 3], side[(k + 2) % 3] = 1.0, 1.4
        server.initial_camera.look_at = centre
        server.initial_camera.position = centre + 1.7 * size * side / np.linalg.norm(side)
        server.initial_camera.up = up

    def _extent(self, frame: Frame) -> np.ndarray:
        """Points (n, 3) in Ground spanning the bodies: their origins and where their
        decorations are."""
        points = [frame.p_GB]
        for b, g in self._fixed:
            points.append((frame.p_GB[b] + frame.R_GB[b] @ g.get_transform().p)[None])
        return np.concatenate(points)

    def show(self, frame: Frame) -> None:
        """Draw ``frame``: the fixed decorations moved to its body poses, the per-frame
        ones replaced."""
        for k, batch in enumerate(self._batches):
            if self._created:
                batch.show(frame)
            else:
                batch.create(self._scene, f"/fixed/{k}", frame)
        self._created = True
        for batch in self._generated:
            batch.remove()
        self._generated = batches((0, X_GD, g) for X_GD, g in frame.generated)
        for k, batch in enumerate(self._generated):
            batch.create(self._scene, f"/generated/{k}", frame)
