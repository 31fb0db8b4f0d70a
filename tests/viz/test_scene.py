"""The scene a Visualizer draws: each decoration becomes the viser node of its shape, at
its pose; bodies move to X_GB each frame; contact surfaces and default geometry appear
where Simbody would show them; mesh files read as the shapes they hold."""

import math
from pathlib import Path

import numpy as np
import pytest
import trimesh
from support import Recorder, world

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.viz import scene as viz_scene
from kinetree.viz.meshes import read_mesh
from kinetree.viz.shapes import SHAPES, shape_of, torus_mesh


def pendulum(decorate=True):
    system, matter, forces, link = world()
    if decorate:
        link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.1).set_color("red"))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    return system, matter, pin


def test_every_decoration_type_has_its_shape():
    shapes = [
        (kt.DecorativeSphere(0.2), "mesh", 4 / 3 * math.pi * 0.2**3),
        (kt.DecorativeBrick([0.1, 0.2, 0.3]), "mesh", 8 * 0.1 * 0.2 * 0.3),
        (kt.DecorativeCylinder(0.1, 0.4), "mesh", math.pi * 0.1**2 * 0.8),
        (kt.DecorativeEllipsoid([0.1, 0.2, 0.3]), "mesh", 4 / 3 * math.pi * 0.1 * 0.2 * 0.3),
        (kt.DecorativeTorus(1.0, 0.1), "mesh", 2 * math.pi**2 * 1.0 * 0.1**2),
        (kt.DecorativeMesh(trimesh.creation.box([1, 2, 3])), "mesh", 6.0),
        (kt.DecorativeMesh(kt.ContactGeometry.TriangleMesh(
            *kt.viz.shapes.unit_sphere(3))), "mesh", 4.0 / 3.0 * math.pi),
        (kt.DecorativeLine([0, 0, 0], [1, 2, 3]), "lines", None),
        (kt.DecorativeArrow([0, 0, 0], [0, 1, 0], 0.2), "arrows", None),
        (kt.DecorativeFrame(0.5), "axes", None),
        (kt.DecorativeText("hello"), "label", None),
        (kt.DecorativePoint([1, 2, 3]), "points", None),
    ]
    assert {type(g) for g, _, _ in shapes} == set(SHAPES)
    for geometry, kind, volume in shapes:
        shape = shape_of(geometry)
        assert shape.kind == kind, type(geometry).__name__
        if volume is not None:
            mesh = trimesh.Trimesh(*shape.data, process=True)
            assert mesh.is_watertight, type(geometry).__name__
            assert mesh.volume == pytest.approx(volume, rel=0.02), type(geometry).__name__
    # Simbody's cylinder runs along y; scale stretches the shape along D's axes.
    v, _ = shape_of(kt.DecorativeCylinder(0.1, 0.4).set_scale([1, 2, 1])).data
    np.testing.assert_allclose(np.ptp(v, axis=0), [0.2, 1.6, 0.2], rtol=1e-3)
    np.testing.assert_allclose(shape_of(kt.DecorativeLine([0, 0, 0], [1, 2, 3])).data,
                               [[0, 0, 0], [1, 2, 3]])


def test_torus_has_the_topology_and_volume_of_a_torus():
    mesh = trimesh.Trimesh(*torus_mesh(1.0, 0.2, resolution=4), process=True)
    assert mesh.is_watertight and mesh.euler_number == 0       # a torus: genus one
    assert mesh.volume == pytest.approx(2 * math.pi**2 * 1.0 * 0.2**2, rel=2e-3)


def test_same_meshes_are_instanced_in_one_batch_with_their_own_colours():
    system, matter, forces, link = world()
    link.add_decoration(kt.Transform(), kt.DecorativeSphere(0.1))
    first = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    second = kt.MobilizedBody.Pin(first, kt.Transform([0, -1, 0]), link, kt.Transform())
    second.add_body_decoration(kt.Transform([0, 0, 0.5]), kt.DecorativeSphere(0.1)
                               .set_color([1, 0.5, 0]).set_opacity(0.25))
    second.add_body_decoration(kt.Transform(), kt.DecorativeBrick([1, 1, 1]).set_representation(
        kt.DecorativeGeometry.Representation.WIREFRAME))
    state = system.realize_topology()
    rec = Recorder()
    scene = viz_scene.Scene(rec, system, state)
    scene.show(scene.frame_of(state))
    meshes = [v for v in rec.nodes.values() if v[0] == "add_batched_meshes_simple"]
    assert len(meshes) == 2
    spheres = next(m for m in meshes if len(m[2]["batched_positions"]) == 3)
    np.testing.assert_array_equal(spheres[2]["batched_colors"][2],
                                  viz_scene.linear_rgb(np.array([255, 128, 0])))
    np.testing.assert_allclose(spheres[2]["batched_opacities"], [1, 1, 0.25])
    brick = next(m for m in meshes if len(m[2]["batched_positions"]) == 1)
    assert brick[2]["wireframe"] is True


def test_bodies_carry_their_decorations_to_X_GB_X_BD():
    system, matter, pin = pendulum()
    pin.add_body_decoration(kt.Transform(kt.Rotation.about_x(0.4), [0.1, 0, 0]),
                            kt.DecorativeBrick([0.1, 0.1, 0.1]))
    state = system.realize_topology()
    rec = Recorder()
    scene = viz_scene.Scene(rec, system, state)
    scene.show(scene.frame_of(state))
    for q in (0.7, -1.3):
        pin.set_one_q(state, 0, q)
        scene.show(scene.frame_of(state))
        X_GB = pin.get_body_transform(state)
        X_GD = X_GB @ kt.Transform(kt.Rotation.about_x(0.4), [0.1, 0, 0])
        brick = next(h for n, h in rec.handles.items()
                     if rec.nodes[n][0] == "add_batched_meshes_simple"
                     and rec.nodes[n][1][0].shape[0] == 8)
        np.testing.assert_allclose(brick.batched_positions[0], X_GD.p, atol=1e-15)
        np.testing.assert_allclose(
            kt.Rotation.from_quaternion(brick.batched_wxyzs[0]).as_matrix(),
            X_GD.R.as_matrix(), atol=1e-14)
    assert rec.up == "+y"


def test_up_is_against_gravity():
    system, matter, forces, link = world(gravity=(0, 0, -9.81))
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    rec = Recorder()
    viz_scene.Scene(rec, system, system.realize_topology())
    assert rec.up == "+z"


def test_contact_surfaces_and_default_geometry_are_drawn():
    system, matter, forces, link = world()
    mat = kt.ContactMaterial(1e6, 0.1, 0.5, 0.3, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), mat))
    ball = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    ball.add_contact_surface(kt.Transform([0, 0.1, 0]),
                             kt.ContactSurface(kt.ContactGeometry.Sphere(0.05), mat))
    first = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    kt.MobilizedBody.Pin(first, kt.Transform([0, -1, 0]), link, kt.Transform())
    kt.MobilizedBody.Free(matter.Ground(), ball)
    tracker = kt.ContactTrackerSubsystem(system)
    kt.CompliantContactSubsystem(system, tracker)
    state = system.realize_topology()
    rec = Recorder()
    scene = viz_scene.Scene(rec, system, state)
    scene.show(scene.frame_of(state))
    kinds = {b.kind: b for b in scene._batches}
    assert sorted(kinds) == ["axes", "lines", "mesh"]
    slab, sphere = sorted((b for b in scene._batches if b.kind == "mesh"),
                          key=lambda b: b.key[0])
    assert slab.key[0] == "brick" and slab.bodies == [0]          # the half space
    assert sphere.key[0] == "sphere" and sphere.bodies == [3]
    assert sphere.key[1][0] == 0.05
    np.testing.assert_allclose(sphere.p_BD[0], [0, 0.1, 0])
    # The links have nothing of their own: a frame at each origin, and a line from the
    # first to where the second hangs.
    assert kinds["axes"].bodies == [1, 2] and kinds["lines"].bodies == [1]
    np.testing.assert_allclose(kinds["lines"].data[0], [[0, 0, 0], [0, -1, 0]])
    line = next(h for n, h in rec.handles.items() if rec.nodes[n][0] == "add_line_segments")
    np.testing.assert_allclose(rec.nodes[line.name][1][0], [[[0, 0, 0], [0, -1, 0]]],
                               atol=1e-15)


def test_generators_and_custom_elements_add_per_frame_geometry():
    system, matter, pin = pendulum()

    class Tip:
        def generate_decorations(self, state, geometry):
            geometry.append(kt.DecorativePoint([0, -1, 0]).set_body_id(1))
            geometry.append(kt.DecorativeText(f"t = {state.get_time():.1f}"))

    state = system.realize_topology()
    pin.set_one_q(state, 0, math.pi / 2)
    rec = Recorder()
    scene = viz_scene.Scene(rec, system, state)
    frame = scene.frame_of(state, [Tip()])
    (X_point, point), (X_text, _) = frame.generated
    np.testing.assert_allclose(X_point.shift_frame_station_to_base(point.get_point()),
                               pin.find_station_location_in_ground(state, [0, -1, 0]),
                               atol=1e-15)
    scene.show(frame)
    scene.show(frame)
    generated = sorted(rec.nodes[k][0] for k in rec.nodes if k.startswith("/generated"))
    assert generated == ["add_label", "add_point_cloud"]          # last frame's only


def test_body_decoration_composes_with_the_geometry_transform():
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1.0)))
    g = kt.DecorativeSphere(0.1).set_transform(kt.Transform([0, 0, 1]))
    link.add_decoration(kt.Transform(kt.Rotation.about_x(math.pi / 2), [1, 0, 0]), g)
    np.testing.assert_allclose(link.get_decoration(0).get_transform().p, [1, -1, 0],
                               atol=1e-15)
    assert g.get_transform().p[2] == 1.0                    # the caller's copy is untouched


@pytest.mark.parametrize("bad", [
    lambda: kt.DecorativeSphere(-1.0), lambda: kt.DecorativeSphere(float("nan")),
    lambda: kt.DecorativeBrick([1, 0, 1]), lambda: kt.DecorativeSphere().set_color([2, 0, 0]),
    lambda: kt.DecorativeSphere().set_color("mauve"), lambda: kt.DecorativeSphere().set_opacity(2),
    lambda: kt.DecorativeSphere().set_scale([1, 2]), lambda: kt.DecorativeSphere().set_body_id(-1),
    lambda: kt.DecorativeSphere().set_transform([0, 0, 0]),
    lambda: kt.DecorativeMesh(([[0, 0, 0]], [[0, 1, 2]])),
    lambda: kt.Body.Rigid().add_decoration(kt.Transform(), "sphere"),
])
def test_bad_decorations_are_refused_with_a_named_error(bad):
    with pytest.raises(InvalidArgumentError, match="Decorative|Body"):
        bad()


VTP = """<?xml version="1.0"?>
<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">
  <PolyData>
    <Piece NumberOfPoints="5" NumberOfPolys="5">
      <Points>
        <DataArray type="Float32" NumberOfComponents="3" format="ascii">
          0 0 0  1 0 0  1 1 0  0 1 0  0.5 0.5 1
        </DataArray>
      </Points>
      <Polys>
        <DataArray type="Int32" Name="connectivity" format="ascii">
          0 3 2 1  0 1 4  1 2 4  2 3 4  3 0 4
        </DataArray>
        <DataArray type="Int32" Name="offsets" format="ascii">4 7 10 13 16</DataArray>
      </Polys>
    </Piece>
  </PolyData>
</VTKFile>
"""


def test_vtp_polygons_are_split_into_a_closed_mesh(tmp_path):
    path = tmp_path / "pyramid.vtp"
    path.write_text(VTP)
    vertices, faces = read_mesh(path)
    mesh = trimesh.Trimesh(vertices, faces, process=False)
    assert len(faces) == 6 and mesh.is_watertight
    assert mesh.volume == pytest.approx(1 / 3)                # base 1 x 1, height 1
    np.testing.assert_array_equal(kt.DecorativeMesh(path).get_faces(), faces)


def test_mesh_files_round_trip_through_trimesh(tmp_path):
    box = trimesh.creation.box([1, 2, 3])
    for suffix in (".stl", ".obj"):
        path = tmp_path / f"box{suffix}"
        box.export(path)
        vertices, faces = read_mesh(path)
        assert trimesh.Trimesh(vertices, faces).volume == pytest.approx(6.0)


def test_bad_mesh_files_are_refused(tmp_path):
    (tmp_path / "a.vtp").write_text("<VTKFile type='ImageData'/>")
    (tmp_path / "b.vtp").write_text("not xml")
    (tmp_path / "c.xyz").write_text("")
    for name in ("a.vtp", "b.vtp", "c.xyz", "missing.stl"):
        with pytest.raises(InvalidArgumentError, match="read_mesh|read_vtp"):
            read_mesh(tmp_path / name)


def test_rod_and_custom_mobilizers_suggest_their_decorations():
    system, matter, forces, link = world()

    class Slide(kt.MobilizedBody.Custom.Implementation):
        """x translation, with a rail drawn on the parent (TOPOLOGY) and a marker at the
        body (POSITION)."""

        def __init__(self, matter):
            super().__init__(matter, 1, 1, 0)

        def calc_mobilizer_transform_from_q(self, state, q):
            return kt.Transform([q[0], 0, 0])

        def multiply_by_h_matrix(self, state, u):
            return np.array([0, 0, 0, u[0], 0, 0])

        def multiply_by_h_transpose(self, state, F):
            return np.array([F[3]])

        def multiply_by_h_dot_matrix(self, state, u):
            return np.zeros(6)

        def multiply_by_h_dot_transpose(self, state, F):
            return np.zeros(1)

        def calc_decorative_geometry_and_append(self, state, stage, geometry):
            if stage == kt.Stage.TOPOLOGY:
                geometry.append(kt.DecorativeLine([-1, 0, 0], [1, 0, 0]))
            elif stage == kt.Stage.POSITION:
                geometry.append(kt.DecorativeText(f"x = {self.get_q(state)[0]:.2f}")
                                .set_body_id(1))

    slide = kt.MobilizedBody.Custom(matter.Ground(), kt.Transform(), link, kt.Transform(),
                                    Slide(matter))
    rod = kt.Constraint.Rod(matter.Ground(), [0, 1, 0], slide, [0, -0.5, 0], 1.7)
    state = system.realize_topology()
    slide.set_one_q(state, 0, 0.4)
    rec = Recorder()
    scene = viz_scene.Scene(rec, system, state)
    rail = next(b for b in scene._batches if b.kind == "lines")
    assert rail.bodies == [0]
    frame = scene.frame_of(state)
    kinds = sorted(type(g).__name__ for _, g in frame.generated)
    assert kinds == ["DecorativeLine", "DecorativeText"]
    X_text, text = next((X, g) for X, g in frame.generated if g.get_text())
    assert text.get_text() == "x = 0.40"
    np.testing.assert_allclose(X_text.p, [0.4, 0, 0], atol=1e-15)
    X_line, line = next((X, g) for X, g in frame.generated if hasattr(g, "get_point1"))
    np.testing.assert_allclose(line.get_point1(), [0, 1, 0])
    np.testing.assert_allclose(line.get_point2(),
                               slide.find_station_location_in_ground(state, [0, -0.5, 0]))
    assert rod.get_default_rod_length() == 1.7


OPENSIM_GEOMETRY = Path(__file__).resolve().parents[3] / "shared/models/opensim/Geometry"


@pytest.mark.skipif(not OPENSIM_GEOMETRY.is_dir(), reason="OpenSim's meshes are not beside "
                    "this checkout")
def test_opensim_bone_meshes_read_whole():
    for name in ("femur_r.vtp", "tibia_r.vtp", "pelvis.vtp"):
        path = OPENSIM_GEOMETRY / name
        header = path.read_text()[:600]
        points = int(header.split('NumberOfPoints="')[1].split('"')[0])
        polys = int(header.split('NumberOfPolys="')[1].split('"')[0])
        vertices, faces = read_mesh(path)
        assert len(vertices) == points and len(faces) >= polys
        assert np.all(np.abs(vertices) < 1.0)                    # metres: a bone, not mm


def test_contact_force_arrows_show_the_weight_a_resting_ball_presses_down():
    system, matter, forces, link = world()
    mat = kt.ContactMaterial(1e7, 0.0, 0.5, 0.3, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-math.pi / 2)),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), mat))
    ball = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.01)))
    ball.add_contact_surface(kt.Transform(), kt.ContactSurface(kt.ContactGeometry.Sphere(0.1),
                                                               mat))
    body = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(kt.Rotation.about_z(math.pi / 2)),
                                   ball, kt.Transform(kt.Rotation.about_z(math.pi / 2)))
    tracker = kt.ContactTrackerSubsystem(system)
    contact = kt.CompliantContactSubsystem(system, tracker)
    state = system.realize_topology()
    # Sink the ball until the Hertz force 4/3 k √R x^1.5 carries its weight, 2 g; two
    # equal stiffnesses s combine to k = (s^⅔ s^⅔ / (s^⅔ + s^⅔))^1.5 = s / 2^1.5.
    E = 1e7 / 2**1.5
    x = (2.0 * 9.81 / (4 / 3 * E * math.sqrt(0.1))) ** (2 / 3)
    body.set_one_q(state, 0, 0.1 - x)
    arrows = []
    kt.viz.ContactForceArrows(contact, newtons_per_metre=10).generate_decorations(state, arrows)
    (arrow,) = arrows
    start, end = arrow.get_start_point(), arrow.get_end_point()
    np.testing.assert_allclose(end - start, [0, 2 * 9.81 / 10, 0], rtol=1e-9, atol=1e-12)
    assert abs(start[1]) < x
    with pytest.raises(InvalidArgumentError, match="CompliantContactSubsystem"):
        kt.viz.ContactForceArrows(forces)
