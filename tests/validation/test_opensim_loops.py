"""Loop joints in .osim files, against OpenSim 4.6 loading the same files.

OpenSim (Model::createMultibodyTree, Simbody's MultibodyGraphMaker) grows the tree from
Ground breadth first, in the JointSet's order, and a joint whose two bodies are both in the
tree by then closes a loop: unless it is a WeldJoint it mobilizes a "slave" copy of its
child body from its parent, welded to the body (the master) by the constraint
``<body>_slave_<k>_weld``, master and slaves each carrying an even share of the body's mass
properties. kinetree makes the same tree, slaves and welds; these tests compare, at states
kinetree projects onto the loops (OpenSim's ``Model::assemble`` leaves a model whose
ConstraintSet is empty unassembled) and copies into OpenSim by coordinate name: OpenSim's
own constraint errors there, the mass matrix and u̇ coordinate by coordinate.

Three linkages: a four-bar of pins whose breadth-first tree makes its third joint (not the
last in the file) the loop joint; a five-bar closed by a SliderJoint; and a four-bar whose
first link is massless, where the graph maker carries a branch on through the massless
body at once. The bodies they split have 2 kg with the mass centre at the origin.

Two of OpenSim's loop bodies are known deviations, each checked to be the whole difference:

- OpenSim 4.6 gives a slave a wrong inertia: Body::extendConnectToModel sets the slave's
  inertia property to the body's unit inertia about its origin, which is then read as the
  slave's central inertia in kg m². kinetree gives the slave its share (1/n of the body's
  inertia). The two agree where the split body has mass n (= master + slaves) and its
  mass centre at the origin, as above; elsewhere they differ, and agree to 1e-8 once the
  slave is given OpenSim's mass properties.
- A WeldJoint that closes a loop is a Weld constraint between its frames in both, but
  OpenSim's WeldJoint also adds a welded copy of its child body, so that body's mass
  counts twice there. They agree to 1e-8 once kinetree's model gets that copy too.
"""

import warnings

import numpy as np
import pytest
from osim_xml import GENERAL, NEUTRAL, body, document, four_bar, joint

import kinetree as kt
from kinetree.io import OsimSkippedWarning, load_osim

osim = pytest.importorskip("opensim")

RTOL = 1e-8


def five_bar_with_a_slider() -> str:
    """Two pinned chains from Ground (A then B, C then D), B and D joined by a SliderJoint
    along B's x: the slider closes the loop and D (its child) is split. Two degrees of
    freedom."""
    bodies = [body("A", 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0)),
              body("B", 1.2, (0.25, 0, 0.01), (0.002, 0.025, 0.026, 0, 0, 0.001)),
              body("C", 0.9, (0.01, 0.25, 0), (0.02, 0.002, 0.021, 0.001, 0, 0)),
              body("D", 2.0, (0, 0, 0), (0.01, 0.03, 0.035, 0.001, 0, 0))]
    joints = [joint("PinJoint", "ja", "ground", (0, 0, 0), "A", (0, 0, 0), [("qa", 0)]),
              joint("PinJoint", "jb", "A", (0, 0.5, 0), "B", (0, 0, 0), [("qb", 0)]),
              joint("PinJoint", "jc", "ground", (1.5, 0, 0), "C", (0, 0, 0), [("qc", 0)]),
              joint("PinJoint", "jd", "C", (0, 0.5, 0), "D", (0, 0, 0), [("qd", 0)]),
              joint("SliderJoint", "slide", "B", (0.5, 0, 0), "D", (-0.5, 0, 0),
                    [("s", 0.5)])]
    return document("five_bar", bodies, joints)


def four_bar_with_a_massless_link() -> str:
    """Ground-A (massless)-C-B-Ground. In file order the tree would reach C through B and
    end in the massless A; the graph maker instead carries A's branch on to C at once, so
    jbc closes the loop (C split, its slave on B)."""
    bodies = [body("A", 0.0, (0, 0, 0), (0, 0, 0, 0, 0, 0)),
              body("B", 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0)),
              body("C", *NEUTRAL)]
    joints = [joint("PinJoint", "ja", "ground", (0, 0, 0), "A", (0, 0, 0), [("qa", 0)]),
              joint("PinJoint", "jb", "ground", (1, 0, 0), "B", (0, 0, 0), [("qb", 0)]),
              joint("PinJoint", "jbc", "B", (0, 0.5, 0), "C", (1, 0, 0), [("qbc", 0)]),
              joint("PinJoint", "jac", "A", (0, 0.5, 0), "C", (0, 0, 0), [("qac", 0)])]
    return document("massless_link", bodies, joints)


D_MASS = (1.3, (-0.2, 0.05, 0.0), (0.01, 0.03, 0.035, 0.001, 0, 0))


def four_bar_closed_by_a_weld() -> str:
    """Ground-A-B and Ground-C-D pinned chains, B welded to D by a WeldJoint that closes
    the loop (a four-bar whose coupler is B and D welded)."""
    bodies = [body("A", 1.0, (0, 0.25, 0), (0.02, 0.002, 0.02, 0, 0, 0)),
              body("B", 1.2, (0.25, 0, 0.01), (0.002, 0.025, 0.026, 0, 0, 0.001)),
              body("C", 0.9, (0.01, 0.25, 0), (0.02, 0.002, 0.021, 0.001, 0, 0)),
              body("D", *D_MASS)]
    joints = [joint("PinJoint", "ja", "ground", (0, 0, 0), "A", (0, 0, 0), [("qa", 0)]),
              joint("PinJoint", "jb", "A", (0, 0.5, 0), "B", (0, 0, 0), [("qb", 0)]),
              joint("PinJoint", "jc", "ground", (1, 0, 0), "C", (0, 0, 0), [("qc", 0)]),
              joint("PinJoint", "jd", "C", (0, 0.5, 0), "D", (0, 0, 0), [("qd", 0)]),
              joint("WeldJoint", "weld", "B", (0.5, 0, 0), "D", (-0.5, 0, 0))]
    return document("weld_loop", bodies, joints)


LINKAGES = {"four_bar": four_bar, "five_bar_slider": five_bar_with_a_slider,
            "massless_link": four_bar_with_a_massless_link}
SPLIT = {"four_bar": ("link3", "link2", "q3"), "five_bar_slider": ("D", "B", "s"),
         "massless_link": ("C", "B", "qbc")}
"""The body each splits, the slave's parent, and the loop joint's coordinate."""


def write(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.osim"
    path.write_text(text)
    return path


def load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        return load_osim(path)


def state_on_the_loops(model, seed: int):
    """kinetree's State: every coordinate moved from its default by up to 0.2, random
    speeds in [-1, 1], then projected onto the constraints."""
    state = model.get_default_state()
    rng = np.random.default_rng(seed)
    for c in model.coordinates.values():
        c.set_value(state, c.default_value + rng.uniform(-0.2, 0.2))
        c.set_speed_value(state, rng.uniform(-1.0, 1.0))
    model.system.project(state, 1e-12)
    model.system.realize(state, kt.Stage.ACCELERATION)
    return state


def opensim_copy(path, model, state):
    """OpenSim's model of ``path`` at kinetree's coordinate values and speeds, realized to
    ACCELERATION."""
    om = osim.Model(str(path))
    ostate = om.initSystem()
    coordinates = om.getCoordinateSet()
    for i in range(coordinates.getSize()):
        c = coordinates.get(i)
        ours = model.coordinates[c.getName()]
        c.setValue(ostate, ours.get_value(state), False)
        c.setSpeedValue(ostate, ours.get_speed_value(state))
    om.realizeAcceleration(ostate)
    return om, ostate


def vector(v) -> np.ndarray:
    return np.array([v.get(i) for i in range(v.size())])


def udot_differences(model, state, om, ostate) -> dict:
    coordinates = om.getCoordinateSet()
    out = {}
    for i in range(coordinates.getSize()):
        c = coordinates.get(i)
        expected = c.getAccelerationValue(ostate)
        got = model.coordinates[c.getName()].get_acceleration_value(state)
        out[c.getName()] = abs(got - expected) / max(1.0, abs(expected))
    return out


def opensim_u_index(om, ostate) -> dict:
    """Coordinate name -> its index in OpenSim's u."""
    coordinates = om.getCoordinateSet()
    saved = ostate.getU()
    saved = osim.Vector(saved)
    out = {}
    for i in range(coordinates.getSize()):
        ostate.setU(osim.Vector(ostate.getNU(), 0.0))
        coordinates.get(i).setSpeedValue(ostate, 1.0)
        out[coordinates.get(i).getName()] = int(np.argmax(vector(ostate.getU())))
    ostate.setU(saved)
    return out


@pytest.mark.parametrize("name", list(LINKAGES))
def test_the_tree_slaves_and_welds_are_opensims(tmp_path, name):
    """The same coordinates (names and order), the same split body and weld, the loop
    coordinate on the slave, whose parent is the loop joint's parent body; and the same
    mass matrix, coordinate by coordinate (it changes with where the loop is cut)."""
    path = write(tmp_path, name, LINKAGES[name]())
    model = load(path)
    split, parent, coordinate = SPLIT[name]
    om, ostate = opensim_copy(path, model, state_on_the_loops(model, 0))

    coordinates = om.getCoordinateSet()
    assert [coordinates.get(i).getName() for i in range(coordinates.getSize())] == \
        list(model.coordinates)
    welds = sorted(c.getName() for c in om.getComponentsList()
                   if c.getConcreteClassName() == "WeldConstraint")
    assert welds == [f"{split}_slave_0_weld"] == sorted(model.constraints)
    slave = model.coordinates[coordinate].mobilized_body
    assert slave is not model.bodies[split]
    assert slave.get_parent_mobilized_body() is model.bodies[parent]
    weld = model.constraints[f"{split}_slave_0_weld"]
    assert weld.get_body2_mobilized_body_index() == slave.get_mobilized_body_index()

    state = state_on_the_loops(model, 1)
    om, ostate = opensim_copy(path, model, state)
    M = osim.Matrix()
    om.getMatterSubsystem().calcM(ostate, M)
    M = np.array([[M.get(i, j) for j in range(M.ncol())] for i in range(M.nrow())])
    theirs = opensim_u_index(om, ostate)
    names = list(model.coordinates)
    ours = [model.coordinates[n].u_index for n in names]
    expected = M[np.ix_([theirs[n] for n in names], [theirs[n] for n in names])]
    np.testing.assert_allclose(model.matter.calc_m(state)[np.ix_(ours, ours)], expected,
                               rtol=0, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("name", list(LINKAGES))
def test_udot_on_closed_loops_matches_opensim(tmp_path, name):
    """At states on the loops (OpenSim's own position and velocity errors there below
    1e-10), u̇ by coordinate name equals OpenSim's to 1e-8 relative."""
    path = write(tmp_path, name, LINKAGES[name]())
    model = load(path)
    for seed in range(3):
        state = state_on_the_loops(model, seed)
        om, ostate = opensim_copy(path, model, state)
        assert np.abs(vector(ostate.getQErr())).max() < 1e-10
        assert np.abs(vector(ostate.getUErr())).max() < 1e-10
        worst = udot_differences(model, state, om, ostate)
        assert max(worst.values()) <= RTOL, worst
        assert max(abs(model.coordinates[n].get_acceleration_value(state))
                   for n in worst) > 0.1          # the loop moves: not a trivial zero


def same_coordinates(other, model, state):
    """A default state of the Model ``other`` with the coordinate values and speeds of
    ``state`` (of ``model``), by name, realized to ACCELERATION."""
    again = other.get_default_state()
    for name, coordinate in model.coordinates.items():
        other.coordinates[name].set_value(again, coordinate.get_value(state))
        other.coordinates[name].set_speed_value(again, coordinate.get_speed_value(state))
    other.system.realize(again, kt.Stage.ACCELERATION)
    return again


def test_opensims_slave_inertia_is_its_only_difference_on_a_general_body(tmp_path):
    """A four-bar whose split link has its mass centre off the origin: OpenSim's u̇ differs
    (its slave inertia); with the slave given OpenSim's mass properties (mass m/2, the mass
    centre c, and as central inertia the body's inertia about its origin divided by m)
    kinetree's u̇ is OpenSim's to 1e-8."""
    path = write(tmp_path, "four_bar_general", four_bar(GENERAL))
    model = load(path)
    state = state_on_the_loops(model, 2)
    om, ostate = opensim_copy(path, model, state)
    assert max(udot_differences(model, state, om, ostate).values()) > 1e-3

    m, c, six = GENERAL
    c = np.array(c, dtype=float)
    about_origin = kt.Inertia(*six).shift_from_mass_center(c, m).as_mat33()
    central = about_origin / m                                # OpenSim's slave, in kg m²
    offset = (m / 2) * (c @ c * np.eye(3) - np.outer(c, c))
    patched = load(path)
    slave = patched.coordinates["q3"].mobilized_body
    slave.upd_body().set_default_rigid_body_mass_properties(
        kt.MassProperties(m / 2, c, kt.Inertia(central + offset)))
    again = same_coordinates(patched, model, state)
    worst = udot_differences(patched, again, om, ostate)
    assert max(worst.values()) <= RTOL, worst


def test_a_loop_weld_joint_is_a_weld_constraint_and_opensim_adds_a_copy_of_its_child(
        tmp_path):
    """The WeldJoint that closes the four-bar is the Weld constraint ``weld_Loop``
    between its frames in both (no slave). OpenSim's u̇ differs: its WeldJoint also welds
    a second copy of D (with D's mass properties) to B; with that copy added to
    kinetree's model, u̇ agrees to 1e-8."""
    path = write(tmp_path, "weld_loop", four_bar_closed_by_a_weld())
    model = load(path)
    assert list(model.constraints) == ["weld_Loop"]
    om, ostate = opensim_copy(path, model, state_on_the_loops(model, 0))
    loops = [c.getName() for c in om.getComponentsList()
             if c.getConcreteClassName() == "WeldConstraint"]
    assert loops == ["weld_Loop"]
    state = state_on_the_loops(model, 3)
    om, ostate = opensim_copy(path, model, state)
    assert np.abs(vector(ostate.getQErr())).max() < 1e-10
    assert max(udot_differences(model, state, om, ostate).values()) > 1e-3

    copied = load(path)
    m, c, six = D_MASS
    kt.MobilizedBody.Weld(copied.bodies["B"], kt.Transform(kt.Rotation(), [0.5, 0, 0]),
                          kt.Body.Rigid(kt.MassProperties(
                              m, c, kt.Inertia(*six).shift_from_mass_center(c, m))),
                          kt.Transform(kt.Rotation(), [-0.5, 0, 0]))
    again = same_coordinates(copied, model, state)
    worst = udot_differences(copied, again, om, ostate)
    assert max(worst.values()) <= RTOL, worst
