"""``load_osim`` on loop joints and on OpenSim 3.x files, without OpenSim (the comparisons
with OpenSim itself are tests/validation/test_opensim_loops.py and test_opensim_3x.py).

Loops: a four-bar closed by a PinJoint keeps its loop closed through a simulation (the
pin's two frames coincide, energy is kept); the body it splits shares its mass properties
evenly with its slave; loops OpenSim cannot build (a loop joint whose child is Ground, a
FreeJoint closing a loop) and other bad graphs are refused, saying why.

3.x files: what OpenSim 4 does when it converts one, checked on the converted model
(numbers rounded to six significant digits, a reversed joint's frames swapped, isDisabled
negated, constraints and markers on their bodies, display geometry as meshes), what is
not converted in ``model.skipped``, and files older than 3.0 refused."""

import warnings

import numpy as np
import pytest
from osim_xml import (
    GENERAL,
    arm3,
    body,
    body3,
    document,
    document3,
    four_bar,
    joint,
    joint3,
)

import kinetree as kt
from kinetree.io import OsimError, OsimSkippedWarning, load_osim


def load(tmp_path, text: str, name: str = "model", **options):
    path = tmp_path / f"{name}.osim"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        return load_osim(path, **options)


# ------------------------------------------------------------------ loops
def test_a_four_bar_stays_closed_through_a_simulation(tmp_path):
    """The crank turns through half a radian or more in a second under gravity, with no
    damping: the loop pin's frame on link2 and on link3 stay together (1e-6 m), the weld
    holding the slave to link3 stays satisfied, and the energy is kept."""
    model = load(tmp_path, four_bar(GENERAL))
    state = model.get_default_state()
    crank = model.coordinates["q1"]
    crank.set_speed_value(state, 3.0)
    # Simbody's projection changes each u relative to max(|u|, 1/weight): weights of 1e-3
    # make the other speeds, at 0, the cheap ones to change, so the crank keeps its 3 rad/s.
    y_weights = np.ones(state.get_num_y())
    y_weights[state.get_num_q():] = 1e-3
    y_weights[state.get_num_q() + crank.u_index] = 1.0
    model.system.project(state, 1e-12, y_weights)
    assert crank.get_speed_value(state) == pytest.approx(3.0, rel=1e-3)
    run = kt.simulate(model.system, state, t_final=1.0, accuracy=1e-7, report_interval=0.05,
                      progress=False)
    q1 = [model.coordinates["q1"].get_value(s) for s in run.states()]
    assert max(q1) - min(q1) > 0.5
    weld = model.constraints["link3_slave_0_weld"]
    for s in run.states():
        model.system.realize(s, kt.Stage.POSITION)
        on_link2 = model.bodies["link2"].find_station_location_in_ground(s, [1, 0.4, 0])
        on_link3 = model.bodies["link3"].find_station_location_in_ground(s, [0, 0, 0])
        assert np.linalg.norm(on_link2 - on_link3) < 1e-6
        assert np.abs(weld.get_position_errors(s)).max() < 1e-6
    energy = run.columns["energy"]
    assert np.ptp(energy) < 1e-5 * max(1.0, np.abs(energy).max())


def test_a_split_body_shares_its_mass_properties_evenly_with_its_slave(tmp_path):
    """link3 (1.5 kg) is split by the loop joint j3: its master (``model.bodies``) and the
    slave j3 moves each carry half its mass and inertia about the origin, with its mass
    centre; the system's mass is the file's."""
    model = load(tmp_path, four_bar(GENERAL))
    state = model.get_default_state()
    m, com, six = GENERAL
    full = kt.Inertia(*six).shift_from_mass_center(com, m).as_mat33()
    master = model.bodies["link3"]
    slave = model.coordinates["q3"].mobilized_body
    assert slave is not master
    assert slave.get_parent_mobilized_body() is model.bodies["link2"]
    for part in (master, slave):
        mp = part.get_body_mass_properties(state)
        assert mp.get_mass() == pytest.approx(m / 2, rel=1e-15)
        np.testing.assert_allclose(mp.get_mass_center(), com, rtol=0, atol=1e-15)
        np.testing.assert_allclose(mp.get_inertia().as_mat33(), full / 2, rtol=1e-14)
    assert model.matter.calc_system_mass(state) == pytest.approx(1.0 + 2.0 + m, rel=1e-14)
    assert sorted(model.bodies) == ["ground", "link1", "link2", "link3"]


def pendulums(last_joint: str) -> str:
    """A and B pinned to Ground, and ``last_joint`` joining them (both already in the tree
    when it is reached)."""
    bodies = [body("A", 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0)),
              body("B", 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0))]
    joints = [joint("PinJoint", "ja", "ground", (0, 0, 0), "A", (0, 0, 0), [("qa", 0)]),
              joint("PinJoint", "jb", "ground", (1, 0, 0), "B", (0, 0, 0), [("qb", 0)]),
              last_joint]
    return document("pendulums", bodies, joints)


@pytest.mark.parametrize(("last_joint", "message"), [
    (joint("PinJoint", "jc", "A", (0, 0.5, 0), "ground", (0, 0.5, 0), [("qc", 0)]),
     r"model.osim: PinJoint 'jc' \(parent body 'A', child body Ground\): .*child frame is "
     "on Ground"),
    (joint("FreeJoint", "jf", "A", (0, 0, 0), "B", (0, 0, 0),
           [(f"f{k}", 0) for k in range(6)]),
     r"model.osim: FreeJoint 'jf' \(parent body 'A', child body 'B'\): a FreeJoint"),
    (joint("PinJoint", "jaa", "A", (0, 0, 0), "A", (0, 0.1, 0), [("qaa", 0)]),
     "are both on 'A'"),
], ids=["ground-child", "free", "same-body"])
def test_loops_that_cannot_be_built_are_refused(tmp_path, last_joint, message):
    with pytest.raises(OsimError, match=message):
        load(tmp_path, pendulums(last_joint))


@pytest.mark.parametrize("kind", ["PinJoint", "WeldJoint"])
def test_a_loop_that_cannot_close_names_its_joint_bodies_and_fix(tmp_path, kind):
    """The four-bar's rocker made 5 m long, so that no pose brings the loop joint j3's
    frames together: the default state is refused naming the file, j3 as the file names
    it, its parent and child bodies, and what to change."""
    bodies = [body("link1", 1.0, (0, 0.2, 0), (0.02, 0.003, 0.021, 0, 0, 0)),
              body("link2", 2.0, (0.5, 0, 0), (0.01, 0.2, 0.205, 0, 0, 0)),
              body("link3", 1.5, (0, 0, 0), (0.09, 0.012, 0.085, 0, 0, 0))]
    joints = [joint("PinJoint", "j1", "ground", (0, 0, 0), "link1", (0, 0, 0), [("q1", 0)]),
              joint("PinJoint", "j2", "link1", (0, 0.4, 0), "link2", (0, 0, 0), [("q2", 0)]),
              joint(kind, "j3", "link2", (1, 0, 0), "link3", (0, 0, 0),
                    [("q3", 0)] if kind == "PinJoint" else []),
              joint("PinJoint", "j4", "ground", (1, 0, 0), "link3", (0, -5, 0), [("q4", 0)])]
    model = load(tmp_path, document("long_rocker", bodies, joints), name="long_rocker")
    with pytest.raises(OsimError) as caught:
        model.get_default_state()
    message = str(caught.value)
    for part in ("long_rocker.osim", f"{kind} 'j3' (parent body 'link2', child body "
                 "'link3'), closing a loop", "cannot be satisfied",
                 "check the translation and orientation of its frames",
                 "default values near a pose that closes it"):
        assert part in message
    assert "Constraint.Weld #" not in message


def test_a_tree_ending_in_a_massless_moving_body_is_refused(tmp_path):
    bodies = [body("A", 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0)),
              body("tip", 0.0, (0, 0, 0), (0, 0, 0, 0, 0, 0))]
    joints = [joint("PinJoint", "ja", "ground", (0, 0, 0), "A", (0, 0, 0), [("qa", 0)]),
              joint("PinJoint", "jt", "A", (0, 0.5, 0), "tip", (0, 0, 0), [("qt", 0)])]
    with pytest.raises(OsimError, match="massless body 'tip'"):
        load(tmp_path, document("massless_tip", bodies, joints))


def test_coordinates_keep_the_files_order_when_the_tree_is_built_in_another(tmp_path):
    """The JointSet lists a deep joint first: the tree is built from Ground, the
    coordinates stay in the file's order (OpenSim's CoordinateSet's)."""
    bodies = [body(n, 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0)) for n in "ABC"]
    joints = [joint("PinJoint", "jb", "A", (0, 0.5, 0), "B", (0, 0, 0), [("qb", 0)]),
              joint("PinJoint", "ja", "ground", (0, 0, 0), "A", (0, 0, 0), [("qa", 0)]),
              joint("PinJoint", "jc", "ground", (1, 0, 0), "C", (0, 0, 0), [("qc", 0)])]
    model = load(tmp_path, document("order", bodies, joints))
    assert list(model.coordinates) == ["qb", "qa", "qc"]
    model.get_default_state()                     # indexes the coordinates
    assert model.coordinates["qa"].q_index < model.coordinates["qb"].q_index


# ------------------------------------------------------------------ 3.x files
def test_a_3x_arm_is_converted_as_opensim_4_converts_it(tmp_path):
    model = load(tmp_path, arm3())
    assert list(model.coordinates) == ["shoulder_angle", "elbow", "slide"]
    assert sorted(model.bodies) == ["block", "ground", "hand", "lower", "upper"]
    state = model.get_default_state()

    # the joint offsets and the inertia rounded to six significant digits, as OpenSim
    upper = model.bodies["upper"]
    X_PF = upper.get_default_inboard_frame()
    np.testing.assert_allclose(X_PF.p, [0.0123457, 1.1, 0], rtol=0, atol=1e-16)
    np.testing.assert_allclose(
        X_PF.R.as_matrix(), kt.Rotation.from_body_fixed_xyz([0, 0, 0.314159]).as_matrix(),
        rtol=0, atol=1e-15)
    inertia = upper.get_body_mass_properties(state).calc_central_inertia().as_mat33()
    assert inertia[0, 0] == pytest.approx(0.0123457, abs=1e-15)
    # the reversed slider: its parent frame on block, the tree's mobilizer reversed
    slide = model.coordinates["slide"]
    assert slide.mobilized_body is model.bodies["block"]
    assert model.bodies["block"].get_parent_mobilized_body() is model.bodies["lower"]
    assert model.bodies["block"].is_reversed()
    assert slide.motion_type == "translational"
    # markers on their bodies, isDisabled negated, the actuator built
    k = model.markers.get_marker_index("m_ground")
    assert model.markers.get_marker_body(k) is model.matter.Ground()
    np.testing.assert_allclose(model.markers.get_marker_station(k), [0.1, 0, 0])
    assert model.force_elements["off_spring"][0].is_disabled(state)
    assert not model.force_elements["spring"][0].is_disabled(state)
    assert model.skipped == [] and list(model.actuators) == ["shoulder_motor"]


def two_bodies3(extra="", geometry="") -> str:
    j1 = joint3("PinJoint", "p1", "ground", (0, 1, 0), (0, 0, 0), (0, 0.5, 0), (0, 0, 0),
                [("q1", 0.1)])
    j2 = joint3("BallJoint", "b2", "one", (0, -0.5, 0), (0, 0, 0), (0, 0.5, 0), (0, 0, 0),
                [("r1", 0), ("r2", 0), ("r3", 0)])
    return document3("two", [body3("one", 1, (0, 0, 0), (0.1, 0.1, 0.1, 0, 0, 0), j1,
                                   geometry),
                             body3("two", 2, (0, 0, 0), (0.1, 0.1, 0.1, 0, 0, 0), j2)],
                     extra)


def test_3x_constraints_name_their_bodies_and_offsets(tmp_path):
    """A WeldConstraint's non-zero offset becomes an offset frame (rounded), a zero one the
    body itself; a PointConstraint's bodies become sockets; isDisabled true is not
    enforced; a ComponentSet is listed in ``model.skipped``."""
    constraints = (
        '<ConstraintSet><objects>'
        '<WeldConstraint name="weld"><isDisabled>false</isDisabled><body_1>one</body_1>'
        '<body_2>two</body_2><location_body_1>0.1234567891 0 0</location_body_1>'
        '<orientation_body_1>0 0.5 0</orientation_body_1>'
        '<location_body_2>0 0 0</location_body_2><orientation_body_2>0 0 0'
        '</orientation_body_2></WeldConstraint>'
        '<PointConstraint name="point"><isDisabled>false</isDisabled><body_1>two</body_1>'
        '<body_2>ground</body_2><location_body_1>0 -0.5 0</location_body_1>'
        '<location_body_2>0 0.2 0</location_body_2></PointConstraint>'
        '<PointConstraint name="idle"><isDisabled>true</isDisabled><body_1>two</body_1>'
        '<body_2>ground</body_2></PointConstraint>'
        '</objects></ConstraintSet>'
        '<ComponentSet><objects><PrescribedController name="c" /></objects></ComponentSet>')
    model = load(tmp_path, two_bodies3(constraints))
    weld = model.constraints["weld"]
    X1 = weld.get_default_frame_on_body1()
    np.testing.assert_allclose(X1.p, [0.123457, 0, 0], rtol=0, atol=1e-16)
    np.testing.assert_allclose(X1.R.as_matrix(),
                               kt.Rotation.from_body_fixed_xyz([0, 0.5, 0]).as_matrix())
    assert weld.get_default_frame_on_body2().p.tolist() == [0, 0, 0]
    assert weld.get_body1_mobilized_body_index() == \
        model.bodies["one"].get_mobilized_body_index()
    assert weld.get_body2_mobilized_body_index() == \
        model.bodies["two"].get_mobilized_body_index()
    assert sorted(model.constraints) == ["point", "weld"]
    assert "PointConstraint 'idle' (not enforced in the file)" in model.skipped
    assert any(s.startswith("PrescribedController 'c'") for s in model.skipped)


def test_3x_display_geometry_becomes_meshes_on_their_frames(tmp_path):
    """A DisplayGeometry with a transform is drawn there, scaled by its own and the
    VisibleObject's scale factors; one without is drawn at the body frame."""
    (tmp_path / "box.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    geometry = ('<VisibleObject><GeometrySet><objects>'
                '<DisplayGeometry><geometry_file>box.obj</geometry_file>'
                '<transform> 0 0 0.5 0 0.25 0</transform><scale_factors>1 2 3'
                '</scale_factors><color>1 0 0</color><opacity>0.5</opacity></DisplayGeometry>'
                '<DisplayGeometry><geometry_file>box.obj</geometry_file></DisplayGeometry>'
                '<DisplayGeometry><geometry_file>missing.obj</geometry_file>'
                '</DisplayGeometry>'
                '</objects></GeometrySet><scale_factors>2 2 2</scale_factors>'
                '</VisibleObject>')
    model = load(tmp_path, two_bodies3(geometry=geometry))
    body = model.bodies["one"].get_body()
    assert body.get_num_decorations() == 2
    placed = {tuple(np.round(body.get_decoration(i).get_transform().p, 12)): i
              for i in range(2)}
    moved = body.get_decoration(placed[(0.0, 0.25, 0.0)])
    np.testing.assert_allclose(moved.get_transform().R.as_matrix(),
                               kt.Rotation.from_body_fixed_xyz([0, 0, 0.5]).as_matrix(),
                               atol=1e-6)
    np.testing.assert_allclose(moved.get_scale_factors(), [2, 4, 6])
    np.testing.assert_allclose(moved.get_color(), [1, 0, 0])
    assert moved.get_opacity() == 0.5
    np.testing.assert_allclose(body.get_decoration(placed[(0.0, 0.0, 0.0)])
                               .get_scale_factors(), [2, 2, 2])


def test_files_older_than_opensim_3_are_refused(tmp_path):
    with pytest.raises(OsimError, match="OpenSim 2.x file .Version 20303.; open it in "
                                        "OpenSim 4"):
        load(tmp_path, two_bodies3().replace('Version="30000"', 'Version="20303"'))
    assert list(load(tmp_path, two_bodies3()).coordinates) == ["q1", "r1", "r2", "r3"]
