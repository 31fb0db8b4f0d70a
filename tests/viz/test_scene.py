"""The scene a Visualizer draws: each decoration becomes the viser node of its shape, at
its pose; bodies move to X_GB each frame; contact surfaces and default geometry appear
where Simbody would show them; mesh files read as the shapes they hold."""

import math
from pathlib import Path

import numpy as np
import pytest
import trimesh
from support import world

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.viz import scene as viz_scene
from kinetree.viz.meshes import read_mesh


class Recorder:
    """A stand-in for viser's scene API: records each node added (name -> (kind,
    arguments)) and hands back handles whose pose can be set."""

    class Handle:
        def __init__(self, nodes, name):
            self.nodes, self.name = nodes, name
            self.position, self.wxyz = np.zeros(3), np.array([1.0, 0, 0, 0])

        def remove(self):
            del self.nodes[self.name]

    def __init__(self):
        self.nodes, self.handles, self.up = {}, {}, None
        self.scene = self

    def set_up_direction(self, up):
        self.up = up

    def __getattr__(self, method):
        if not method.startswith("add_"):
            raise AttributeError(method)

        def add(name, *args, **kwargs):
            self.nodes[name] = (method, args, kwargs)
            self.handles[name] = Recorder.Handle(self.nodes, name)
            return self.handles[name]
        return add


def pendulum(decorate=True):
    system, matter, forces, link = world()
    if decorate:
        link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.1).set_color("red"))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    return system, matter, pin


def test_every_decoration_type_becomes_its_shape_at_its_pose():
    system, matter, _ = pendulum(decorate=False)
    X = kt.Transform(kt.Rotation.about_z(0.3), [0.1, 0.2, 0.3])
    shapes = [
        (kt.DecorativeSphere(0.2), "add_icosphere", {"radius": 0.2}),
        (kt.DecorativeBrick([0.1, 0.2, 0.3]), "add_box", {"dimensions": (0.2, 0.4, 0.6)}),
        (kt.DecorativeCylinder(0.1, 0.4), "add_cylinder", {"radius": 0.1, "height": 0.8}),
        (kt.DecorativeEllipsoid([0.1, 0.2, 0.3]), "add_icosphere", {"scale": (0.1, 0.2, 0.3)}),
        (kt.DecorativeLine([0, 0, 0], [1, 2, 3]), "add_line_segments", {}),
        (kt.DecorativeFrame(0.5), "add_frame", {"axes_length": 0.5}),
        (kt.DecorativeArrow([0, 0, 0], [0, 1, 0], 0.2), "add_arrows", {"head_length": 0.2}),
        (kt.DecorativeMesh(([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])),
         "add_mesh_simple", {}),
        (kt.DecorativeText("hello"), "add_label", {}),
        (kt.DecorativePoint([1, 2, 3]), "add_point_cloud", {}),
        (kt.DecorativeTorus(1.0, 0.1), "add_mesh_simple", {}),
    ]
    assert {type(g) for g, _, _ in shapes} == set(viz_scene.DRAW)
    for geometry, method, expected in shapes:
        rec = Recorder()
        viz_scene.draw(rec.scene, "/d", geometry, X)
        kind, args, kwargs = rec.nodes["/d"]
        assert kind == method, type(geometry).__name__
        for key, value in expected.items():
            assert np.allclose(kwargs[key], value), (type(geometry).__name__, key)
        np.testing.assert_allclose(kwargs["position"], X.p)
        np.testing.assert_allclose(kwargs["wxyz"], [math.cos(0.15), 0, 0, math.sin(0.15)])
    line = Recorder()
    viz_scene.draw(line.scene, "/l", kt.DecorativeLine([0, 0, 0], [1, 2, 3]), X)
    np.testing.assert_allclose(line.nodes["/l"][1][0], [[[0, 0, 0], [1, 2, 3]]])


def test_colour_opacity_and_representation_reach_the_node():
    rec = Recorder()
    g = (kt.DecorativeBrick([1, 1, 1]).set_color([1, 0.5, 0]).set_opacity(0.25)
         .set_representation(kt.DecorativeGeometry.Representation.WIREFRAME))
    viz_scene.draw(rec.scene, "/b", g, kt.Transform())
    kwargs = rec.nodes["/b"][2]
    assert kwargs["color"] == (255, 128, 0)
    assert kwargs["opacity"] == 0.25 and kwargs["wireframe"] is True


def test_torus_mesh_encloses_the_volume_of_a_torus():
    vertices, faces = viz_scene._torus_mesh(1.0, 0.2, resolution=4)
    mesh = trimesh.Trimesh(vertices, faces, process=True)
    assert mesh.is_watertight and mesh.euler_number == 0       # a torus: genus one
    assert mesh.volume == pytest.approx(2 * math.pi**2 * 1.0 * 0.2**2, rel=2e-3)


def test_bodies_follow_their_transforms_in_ground():
    system, matter, pin = pendulum()
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.7)
    rec = Recorder()
    scene = viz_scene.Scene(rec, system, state)
    frame = scene.frame_of(state)
    scene.show(frame)
    X_GB = pin.get_body_transform(state)
    node = rec.handles["/bodies/1"]
    np.testing.assert_allclose(node.position, X_GB.p, atol=1e-15)
    np.testing.assert_allclose(kt.Rotation.from_quaternion(node.wxyz).as_matrix(),
                               X_GB.R.as_matrix(), atol=1e-14)
    # The sphere hangs 0.5 m below the pin in the body frame: where X_GB puts that point.
    sphere = next(v for k, v in rec.nodes.items() if k.startswith("/bodies/1/"))
    assert sphere[0] == "add_icosphere"
    np.testing.assert_allclose(sphere[2]["position"], [0, -0.5, 0])
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
    rec = Recorder()
    viz_scene.Scene(rec, system, system.realize_topology())
    ground = [v for k, v in rec.nodes.items() if k.startswith("/ground/d")]
    assert [g[0] for g in ground] == ["add_box"]                   # the half space
    sphere = [v for k, v in rec.nodes.items() if k.startswith("/bodies/3/")]
    assert [s[0] for s in sphere] == ["add_icosphere"]
    np.testing.assert_allclose(sphere[0][2]["position"], [0, 0.1, 0])
    assert sphere[0][2]["radius"] == 0.05
    # The first link has nothing of its own: a frame and a line to where its child hangs.
    first_link = [v for k, v in rec.nodes.items() if k.startswith("/bodies/1/")]
    assert sorted(g[0] for g in first_link) == ["add_frame", "add_line_segments"]
    line = next(g for g in first_link if g[0] == "add_line_segments")
    np.testing.assert_allclose(line[1][0], [[[0, 0, 0], [0, -1, 0]]])


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
    assert sorted(k for k in rec.nodes if k.startswith("/generated")) == [
        "/generated/d0", "/generated/d1"]


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
    assert [v[0] for k, v in rec.nodes.items() if k.startswith("/ground/d")] == [
        "add_line_segments"]
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
