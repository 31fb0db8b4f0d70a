"""Many report rows: a Trajectory of thousands of rows holds the States a TimeStepper
reaches at those times (the same interpolated, projected and realized States), rows of a
constrained model lie on its constraints, and the rows agree with a far more accurate
run. These guard any change that makes rows cheaper (bench/report_rows.py)."""

import numpy as np
import pytest
from support import ball_pendulum_on_a_rod

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.study.simulate import report_times

T_FINAL = 2.0
INTERVAL = 2.0 ** -10       # s: 2049 rows, many per step; binary, so multiples are exact
ACCURACY = 1e-6


def double_pendulum():
    """Two 1 kg Pins with 1 m links under gravity, swung out by half a radian."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1e-3)))
    link1 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body,
                                 kt.Transform([0, 1, 0]))
    link2 = kt.MobilizedBody.Pin(link1, kt.Transform(), body, kt.Transform([0, 1, 0]))
    state = system.realize_topology()
    link1.set_one_q(state, 0, 0.5)
    return system, state, link2


@pytest.fixture(scope="module")
def many_rows():
    system, state, tip = double_pendulum()
    outputs = {"t_seen": lambda s: s.get_time(),           # the row State's own time
               "udot1": lambda s: s.get_u_dot()[1],         # needs ACCELERATION
               "tip_y": lambda s: tip.get_body_origin_location(s)[1]}
    traj = kt.simulate(system, state, T_FINAL, accuracy=ACCURACY,
                       report_interval=INTERVAL, outputs=outputs)
    return system, state, tip, traj


def test_many_rows_are_the_states_step_to_reaches(many_rows):
    """Each row is what an own loop of step_to calls at the report times gives: the same
    steps, the same interpolation, the same energy."""
    system, state, _, traj = many_rows
    times = report_times(0.0, T_FINAL, INTERVAL)
    assert len(traj) == times.size > 10 * traj.stats["steps_taken"]
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(ACCURACY)
    stepper = kt.TimeStepper(system, integ)
    stepper.initialize(state)
    t, y, energy = [], [], []
    for target in times:
        stepper.step_to(target)
        s = stepper.get_state()
        t.append(s.get_time())
        y.append(np.array(s.get_y()))
        energy.append(system.calc_energy(s))
    y = np.array(y)
    np.testing.assert_array_equal(traj.t, t)
    np.testing.assert_array_equal(traj.q, y[:, :2])
    np.testing.assert_array_equal(traj.u, y[:, 2:])
    np.testing.assert_allclose(traj.columns["energy"], energy, rtol=1e-13, atol=0)
    assert traj.stats["steps_taken"] == integ.get_num_steps_taken()


def test_each_row_is_a_state_realized_at_its_time(many_rows):
    """The outputs saw a State at the row's time, realized through ACCELERATION: its u̇,
    tip height and energy are those of a State rebuilt from the row and realized."""
    system, state, tip, traj = many_rows
    np.testing.assert_array_equal(traj.columns["t_seen"], traj.t)
    s = state.copy()
    for i in (0, 1, 777, 1500, len(traj) - 1):
        s.set_time(traj.t[i])
        s.set_q(traj.q[i])
        s.set_u(traj.u[i])
        system.realize(s, kt.Stage.ACCELERATION)
        assert traj.columns["udot1"][i] == pytest.approx(s.get_u_dot()[1], rel=1e-12,
                                                         abs=1e-12)
        assert traj.columns["tip_y"][i] == pytest.approx(
            tip.get_body_origin_location(s)[1], rel=1e-14, abs=1e-14)
        assert traj.columns["energy"][i] == pytest.approx(system.calc_energy(s), rel=1e-13)


def test_the_rows_do_not_change_the_steps(many_rows):
    """Seventeen rows or two thousand: the same steps, and the rows they share agree."""
    system, state, _, traj = many_rows
    few = kt.simulate(system, state, T_FINAL, accuracy=ACCURACY,
                      report_interval=128 * INTERVAL)
    assert few.stats["steps_taken"] == traj.stats["steps_taken"]
    shared = np.searchsorted(traj.t, few.t)
    np.testing.assert_array_equal(traj.t[shared], few.t)
    np.testing.assert_array_equal(traj.q[shared], few.q)
    np.testing.assert_array_equal(traj.u[shared], few.u)


def test_interpolated_rows_agree_with_a_far_more_accurate_run(many_rows):
    """The rows between the steps are as accurate as the steps: within a few α of a run at
    α = 1e-11 (q in rad, u in rad/s)."""
    system, state, _, traj = many_rows
    tight = kt.simulate(system, state, T_FINAL, accuracy=1e-11, report_interval=INTERVAL)
    np.testing.assert_array_equal(tight.t, traj.t)
    assert np.abs(traj.q - tight.q).max() < 100 * ACCURACY
    assert np.abs(traj.u - tight.u).max() < 100 * ACCURACY


def test_rows_of_a_constrained_model_lie_on_its_constraints():
    """A Ball (quaternion q) tied to Ground by a Rod, a row every 2 ms: every row's
    position error is within the constraint tolerance and its quaternion unit length,
    as each interpolated State is projected before it is realized."""
    system, state, ball = ball_pendulum_on_a_rod()
    tolerance = 1e-8
    traj = kt.simulate(system, state, 1.0, accuracy=1e-5, report_interval=2e-3,
                       constraint_tolerance=tolerance,
                       outputs={"perr": lambda s: np.abs(s.get_q_err()).max()})
    assert len(traj) == 501 > 5 * traj.stats["steps_taken"]
    assert traj.columns["perr"].max() <= tolerance
    assert np.abs(np.linalg.norm(traj.q[:, :4], axis=1) - 1.0).max() < 1e-12


def test_one_row_state_is_that_row_of_states():
    """traj.state(i) is states()[i] without copying the template for every other row."""
    system, state, tip = double_pendulum()
    traj = kt.simulate(system, state, 0.5, report_interval=0.05)
    states = traj.states()
    for i in (0, 3, -1, len(traj) - 1, -len(traj), np.int64(7)):
        one, expected = traj.state(i), states[i]
        assert one is not expected and one.get_time() == expected.get_time()
        np.testing.assert_array_equal(one.get_y(), expected.get_y())
        system.realize(one, kt.Stage.POSITION)
        system.realize(expected, kt.Stage.POSITION)
        np.testing.assert_array_equal(tip.get_body_origin_location(one),
                                      tip.get_body_origin_location(expected))
    other = state.copy()
    other.set_time(123.0)
    assert traj.state(-1, template=other).get_time() == traj.t[-1]


def test_one_row_state_refuses_what_is_no_row():
    system, state, _ = double_pendulum()
    traj = kt.simulate(system, state, 0.5, report_interval=0.05)
    for bad in (len(traj), -len(traj) - 1, 1.0, True, "0", None):
        with pytest.raises(InvalidArgumentError, match="Trajectory.state: .* not a row"):
            traj.state(bad)
    table = kt.Trajectory(traj.t, traj.q, traj.u)         # as read from a file: no template
    with pytest.raises(InvalidArgumentError, match="holds no State"):
        table.state(0)
    assert table.state(0, template=state).get_time() == traj.t[0]
