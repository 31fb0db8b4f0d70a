"""The scene of one System in a viser server: what is drawn, and each frame's poses.

``Scene`` builds the fixed part once: a node per mobilized body at X_GB holding that
body's decorations at X_BD (its own decorations, its contact surfaces, or, for a body with
neither, a frame and a line to each child), Ground's decorations, a ground grid, and the
up direction opposite gravity. ``frame_of`` reads one State into a ``Frame`` (body poses
and the per-frame decorations, in G), and ``Scene.show`` moves the nodes to it. A Frame is
plain data, made in the simulation's thread and drawn in another.

``DRAW`` maps each decoration type to the function that adds it to the scene: adding a
decoration type is one class in ``decorations.py`` and one entry here.
"""

from __future__ import annotations

import contextlib
import io
from typing import NamedTuple

import numpy as np

from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.system.stage import Stage
from kinetree.viz import decorations as deco

CONTACT_COLOR = (0.45, 0.65, 0.85)
DEFAULT_GEOMETRY_COLOR = (0.55, 0.55, 0.6)


def start_server(host: str, port: int):
    """A viser server at host:port (the next free port if that one is taken; 0: any),
    without viser's banner on stdout."""
    import viser

    with contextlib.redirect_stdout(io.StringIO()):
        return viser.ViserServer(host=host, port=port, verbose=False)


def stop_server(server) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        server.stop()


class Frame(NamedTuple):
    """One drawn instant: simulated time t (s), each body's origin p_GB (nb, 3, m) and
    orientation as a unit quaternion wxyz_GB (nb, 4, scalar first) in Ground, and the
    per-frame decorations as (X_GD, geometry) pairs in Ground."""
    t: float
    p_GB: np.ndarray
    wxyz_GB: np.ndarray
    generated: list


def _rgb(geometry, fallback=None) -> tuple:
    color = geometry.get_color() if geometry.has_color() or fallback is None else fallback
    return tuple(int(round(255 * c)) for c in color)


def _pose(X: Transform) -> dict:
    return {"position": np.asarray(X.p, dtype=float),
            "wxyz": X.R.convert_rotation_to_quaternion()}


def _surface(g, fallback) -> dict:
    """The keyword arguments every shaded viser shape takes."""
    opacity = g.get_opacity()
    return {"color": _rgb(g, fallback), "opacity": None if opacity >= 1 else opacity,
            "wireframe": g.get_representation() == deco.Representation.WIREFRAME}


def _draw_sphere(scene, name, g, X, fallback):
    return scene.add_icosphere(name, radius=g.get_radius(), scale=tuple(g.get_scale_factors()),
                               subdivisions=3 if g.get_resolution() <= 1 else 4,
                               **_surface(g, fallback), **_pose(X))


def _draw_brick(scene, name, g, X, fallback):
    return scene.add_box(name, dimensions=tuple(2 * g.get_half_lengths()),
                         scale=tuple(g.get_scale_factors()), **_surface(g, fallback), **_pose(X))


def _draw_cylinder(scene, name, g, X, fallback):
    # three.js cylinders run along y, as Simbody's do.
    return scene.add_cylinder(name, radius=g.get_radius(), height=2 * g.get_half_height(),
                              radial_segments=max(8, int(32 * g.get_resolution())),
                              scale=tuple(g.get_scale_factors()), **_surface(g, fallback),
                              **_pose(X))


def _draw_ellipsoid(scene, name, g, X, fallback):
    return scene.add_icosphere(name, radius=1.0, scale=tuple(g.get_radii() * g.get_scale_factors()),
                               subdivisions=3, **_surface(g, fallback), **_pose(X))


def _draw_line(scene, name, g, X, fallback):
    points = np.array([[g.get_point1(), g.get_point2()]])
    return scene.add_line_segments(name, points, _rgb(g, fallback),
                                   thickness=g.get_line_thickness(), thickness_units="screen",
                                   scale=tuple(g.get_scale_factors()), **_pose(X))


def _draw_frame(scene, name, g, X, fallback):
    length = g.get_axis_length() * float(np.max(g.get_scale_factors()))
    return scene.add_frame(name, show_axes=True, axes_length=length,
                           axes_radius=0.04 * length, **_pose(X))


def _draw_arrow(scene, name, g, X, fallback):
    start, end = g.get_start_point(), g.get_end_point()
    length = float(np.linalg.norm(end - start))
    tip = min(g.get_tip_length(), 0.5 * length) if length > 0 else g.get_tip_length()
    return scene.add_arrows(name, np.array([[start, end]]), _rgb(g, fallback),
                            shaft_radius=0.15 * tip, head_radius=0.4 * tip, head_length=tip,
                            scale=tuple(g.get_scale_factors()), **_pose(X))


def _draw_mesh(scene, name, g, X, fallback):
    if g.get_representation() == deco.Representation.POINTS:
        return scene.add_point_cloud(name, g.get_vertices().astype(np.float32),
                                     _rgb(g, fallback), point_size=0.005,
                                     scale=tuple(g.get_scale_factors()), **_pose(X))
    return scene.add_mesh_simple(name, g.get_vertices().astype(np.float32),
                                 g.get_faces().astype(np.uint32),
                                 scale=tuple(g.get_scale_factors()), **_surface(g, fallback),
                                 **_pose(X))


def _draw_text(scene, name, g, X, fallback):
    return scene.add_label(name, g.get_text(), **_pose(X))


def _draw_point(scene, name, g, X, fallback):
    return scene.add_point_cloud(name, np.array([g.get_point()], dtype=np.float32),
                                 _rgb(g, fallback), point_size=0.01 * g.get_line_thickness(),
                                 point_shape="circle", **_pose(X))


def _torus_mesh(R: float, r: float, resolution: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and triangles of a torus about z: tube radius r circling at radius R."""
    n, m = max(12, int(48 * resolution)), max(6, int(16 * resolution))
    a = 2 * np.pi * np.arange(n) / n
    b = 2 * np.pi * np.arange(m) / m
    A, B = np.meshgrid(a, b, indexing="ij")
    rho = R + r * np.cos(B)
    vertices = np.stack([rho * np.cos(A), rho * np.sin(A), r * np.sin(B)], -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    v00, v10 = i * m + j, ((i + 1) % n) * m + j
    v01, v11 = i * m + (j + 1) % m, ((i + 1) % n) * m + (j + 1) % m
    faces = np.concatenate([np.stack([v00, v10, v11], -1).reshape(-1, 3),
                            np.stack([v00, v11, v01], -1).reshape(-1, 3)])
    return vertices, faces


def _draw_torus(scene, name, g, X, fallback):
    vertices, faces = _torus_mesh(g.get_torus_radius(), g.get_tube_radius(),
                                  g.get_resolution())
    return scene.add_mesh_simple(name, vertices.astype(np.float32), faces.astype(np.uint32),
                                 scale=tuple(g.get_scale_factors()), **_surface(g, fallback),
                                 **_pose(X))


DRAW = {
    deco.DecorativeSphere: _draw_sphere,
    deco.DecorativeBrick: _draw_brick,
    deco.DecorativeCylinder: _draw_cylinder,
    deco.DecorativeEllipsoid: _draw_ellipsoid,
    deco.DecorativeLine: _draw_line,
    deco.DecorativeFrame: _draw_frame,
    deco.DecorativeArrow: _draw_arrow,
    deco.DecorativeMesh: _draw_mesh,
    deco.DecorativeText: _draw_text,
    deco.DecorativePoint: _draw_point,
    deco.DecorativeTorus: _draw_torus,
}
"""The drawing function of each decoration type: (scene, name, geometry, X, fallback
colour) -> viser handle, X being the decoration's frame in its parent node's frame."""


def draw(scene, name: str, geometry, X: Transform, fallback=None):
    """Add ``geometry`` to the viser ``scene`` as node ``name`` at X."""
    for kind in type(geometry).__mro__:
        if kind in DRAW:
            return DRAW[kind](scene, name, geometry, X, fallback)
    raise TypeError(f"Visualizer: no drawing for {type(geometry).__name__}; subclass one of "
                    f"the Decorative* types.")


def contact_decoration(shape):
    """The decoration showing a contact surface's shape in its frame S, or None for a
    shape without one."""
    from kinetree.contact import geometry as cg
    from kinetree.contact import mesh as cm

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
    if isinstance(shape, cg.HalfSpace):
        # The half space x > 0 of S: a thin slab below its surface plane x = 0.
        return deco.DecorativeBrick((0.005, 2.0, 2.0)).set_opacity(0.6) \
            .set_transform(Transform(Rotation(), [0.005, 0.0, 0.0]))
    return None


def _implementations(system) -> list:
    """The user implementations that may suggest decorations: custom mobilizers, custom
    constraints and custom forces."""
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
    from kinetree.forces.elements.uniform_gravity import UniformGravity

    for s in range(system.get_num_subsystems()):
        sub = system.get_subsystem(s)
        for f in range(sub.get_num_forces() if hasattr(sub, "get_num_forces") else 0):
            force = sub.get_force(f)
            if isinstance(force, UniformGravity):
                g = np.asarray(force.get_default_gravity(), dtype=float)
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


def orientation_matrix(wxyz: np.ndarray) -> np.ndarray:
    """The rotation matrix of one unit quaternion, scalar first."""
    from scipy.spatial.transform import Rotation as ScipyRotation

    return ScipyRotation.from_quat(wxyz, scalar_first=True).as_matrix()


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
    return Frame(float(state.get_time()), p_GB.copy(), orientations(R_GB), generated)


class Scene:
    """The nodes of one System in a viser server (``server.scene``)."""

    def __init__(self, server, system, state, *, show_default_geometry: bool = True,
                 ground_plane: bool = True, extra=()):
        scene = server.scene
        matter = system.get_matter_subsystem()
        self._scene = scene
        self._system = system
        self._nb = matter.get_num_bodies()
        self._implementations = _implementations(system)
        self._generated: list = []
        self.up = up_direction(system)
        scene.set_up_direction(self.up)
        self.length = length = length_scale(matter)
        self._ground_plane = ground_plane
        self._bodies = [None] + [scene.add_frame(f"/bodies/{b}", show_axes=False)
                                 for b in range(1, self._nb)]
        fixed = [(g.get_body_id(), g) for g in
                 suggested_decorations(self._implementations, state, Stage.TOPOLOGY)]
        fixed += [(g.get_body_id(), g) for g in extra]
        for b in range(self._nb):
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
        for k, (b, g) in enumerate(fixed):
            parent = "/ground" if b == 0 else f"/bodies/{b}"
            draw(scene, f"{parent}/d{k}", g, g.get_transform())

    def frame_of(self, state, generators=()) -> Frame:
        """The Frame of ``state`` with the decorations of ``generators`` and of the custom
        elements for POSITION."""
        return frame_of(self._system, state, generators, self._implementations)

    def fit_view(self, server, frame: Frame) -> None:
        """Point the page's first camera at the bodies and their decorations in
        ``frame``, from above and far enough to see them all, and lay the ground grid
        through Ground's origin, or below the model if it hangs lower."""
        points = self._extent(frame)
        centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
        size = max(float(np.ptp(points, axis=0).max()), 4 * self.length)
        k = "xyz".index(self.up[1])
        up = np.zeros(3)
        up[k] = 1.0 if self.up[0] == "+" else -1.0
        if self._ground_plane:
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
            R = orientation_matrix(frame.wxyz_GB[b])
            points.append((frame.p_GB[b] + R @ g.get_transform().p)[None])
        return np.concatenate(points)

    def show(self, frame: Frame) -> None:
        """Move every body node to ``frame`` and replace the per-frame decorations."""
        for b in range(1, self._nb):
            node = self._bodies[b]
            node.position = frame.p_GB[b]
            node.wxyz = frame.wxyz_GB[b]
        for handle in self._generated:
            handle.remove()
        self._generated = [draw(self._scene, f"/generated/d{k}", g, X_GD)
                           for k, (X_GD, g) in enumerate(frame.generated)]
