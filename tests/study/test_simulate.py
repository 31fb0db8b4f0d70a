"""kt.simulate and Trajectory: physics of the recorded motion (a pendulum's analytic
small-angle motion, energy conservation to the accuracy), exact report times, CSV and
OpenSim .sto round trips, integrator selection, errors, and a quiet progress bar off a
terminal."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.study.simulate import report_times

G = 9.81


def pendulum(length=1.0, mass=2.0, links=1):
    """Pin links hanging from Ground, each a point-like mass ``length`` below its pin."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    body = kt.Body.Rigid(kt.MassProperties(mass, [0, 0, 0], kt.Inertia(1e-9)))
    parent = matter.Ground()
    for _ in range(links):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform(), body,
                                      kt.Transform([0, length, 0]))
    return system, matter, system.realize_topology()


class Oscillator(kt.Subsystem):
    """q̈ = -4 q: a System with no multibody parts (and no energy)."""

    def realize_topology(self, state):
        self.allocate_q(state, [1.0])
        self.allocate_u(state, [0.0])

    def realize_velocity(self, state):
        self.upd_q_dot(state)[:] = self.get_u(state)

    def realize_acceleration(self, state):
        self.upd_u_dot(state)[:] = -4.0 * self.get_q(state)


@pytest.fixture(scope="module")
def double_pendulum_run():
    system, matter, state = pendulum(links=2)
    matter.get_mobilized_body(1).set_one_q(state, 0, 1.0)
    matter.get_mobilized_body(2).set_one_u(state, 0, -2.0)
    return system, state, kt.simulate(system, state, 2.0, accuracy=1e-6, report_interval=0.01)


# ------------------------------------------------------------------ physics
def test_pendulum_follows_the_small_angle_solution():
    length, theta0 = 0.8, 0.01
    system, matter, state = pendulum(length)
    matter.get_mobilized_body(1).set_one_q(state, 0, theta0)
    traj = kt.simulate(system, state, 3.0, accuracy=1e-9, report_interval=0.005)
    # the amplitude's first correction to the frequency: ω (1 - θ0²/16)
    omega = math.sqrt(G / length) * (1 - theta0 ** 2 / 16)
    expected = theta0 * np.cos(omega * traj.t)
    assert np.abs(traj.q[:, 0] - expected).max() < 1e-4 * theta0
    assert np.abs(traj.u[:, 0] + theta0 * omega * np.sin(omega * traj.t)).max() < \
        1e-4 * theta0 * omega


def test_energy_is_conserved_to_the_accuracy(double_pendulum_run):
    _, _, traj = double_pendulum_run
    e = traj.columns["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) < 10 * traj.stats["accuracy"]


def test_states_rebuild_the_rows(double_pendulum_run):
    system, _, traj = double_pendulum_run
    states = traj.states()
    assert len(states) == len(traj)
    for i in (0, 57, len(traj) - 1):
        s = states[i]
        assert s.get_time() == traj.t[i]
        np.testing.assert_array_equal(s.get_q(), traj.q[i])
        np.testing.assert_array_equal(s.get_u(), traj.u[i])
        system.realize(s, kt.Stage.DYNAMICS)
        assert system.calc_energy(s) == pytest.approx(traj.columns["energy"][i], rel=1e-12)


def test_the_given_state_is_left_alone(double_pendulum_run):
    _, state, traj = double_pendulum_run
    assert state.get_time() == 0.0
    assert traj.q[0, 0] == state.get_q()[0] == 1.0


def test_events_happen_during_the_run():
    system, matter, state = pendulum()
    pin = matter.get_mobilized_body(1)

    class Stop(kt.ScheduledEventHandler):
        """Stops the pendulum at t = 0.25 s."""

        def get_next_event_time(self, state, include_current_time):
            return 0.25 if state.get_time() < 0.25 else math.inf

        def handle_event(self, state, accuracy):
            pin.set_one_u(state, 0, 0.0)

    class Count(kt.PeriodicEventReporter):
        def handle_event(self, state):
            seen.append(state.get_time())

    seen = []
    system.add_event_handler(Stop())
    system.add_event_reporter(Count(0.1))
    state = system.realize_topology()
    pin.set_one_u(state, 0, 1.0)
    traj = kt.simulate(system, state, 0.3, accuracy=1e-8, report_interval=0.05)
    assert seen == pytest.approx([0.0, 0.1, 0.2, 0.3])
    i = list(traj.t).index(0.25)
    assert traj.u[i, 0] == pytest.approx(0.0, abs=1e-12)
    assert abs(traj.u[i - 1, 0]) > 0.5


def test_a_handler_that_ends_the_run_ends_the_trajectory():
    system, matter, state = pendulum()
    pin = matter.get_mobilized_body(1)

    class StopAtBottom(kt.TriggeredEventHandler):
        """Ends the simulation when the pendulum first passes the vertical."""

        def get_value(self, state):
            return pin.get_one_q(state, 0)

        def handle_event(self, state, accuracy):
            return True

    system.add_event_handler(StopAtBottom())
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.5)
    traj = kt.simulate(system, state, 2.0, accuracy=1e-8, report_interval=0.1)
    quarter_period = math.pi / 2 * math.sqrt(1.0 / G)    # small-angle, a little early
    assert quarter_period < traj.t[-1] < 1.05 * quarter_period
    assert traj.t[-2] == 0.5 and len(traj) == 7
    assert abs(traj.q[-1, 0]) < 1e-6
    assert traj.stats["termination"] == "ANY_EVENT_HANDLER_REQUESTED_TERMINATION"


# -------------------------------------------------------------- report times
def test_report_times_are_multiples_of_the_interval():
    system, matter, state = pendulum()
    traj = kt.simulate(system, state, 0.5, report_interval=0.01)
    assert np.array_equal(traj.t, np.arange(51) * 0.01)
    assert len(traj) == 51 and traj.q.shape == (51, 1) and traj.z.shape == (51, 0)


def test_report_times_start_at_t0_and_end_at_t_final():
    np.testing.assert_array_equal(report_times(0.013, 0.105, 0.02),
                                  [0.013, 0.02, 0.04, 0.06, 0.08, 0.1, 0.105])
    system, matter, state = pendulum()
    state.set_time(0.013)
    traj = kt.simulate(system, state, 0.105, report_interval=0.02)
    np.testing.assert_array_equal(traj.t, [0.013, *(np.arange(1, 6) * 0.02), 0.105])


def test_default_report_interval_gives_a_hundred_steps():
    system, matter, state = pendulum()
    traj = kt.simulate(system, state, 2.0)
    assert len(traj) == 101
    np.testing.assert_allclose(np.diff(traj.t), 0.02, rtol=1e-12)


# ---------------------------------------------------------------------- files
def test_csv_round_trip(double_pendulum_run, tmp_path):
    _, _, traj = double_pendulum_run
    path = traj.to_csv(tmp_path / "run.csv")
    assert path.read_text().splitlines()[0] == "time,Pin1.q0,Pin2.q0,Pin1.u0,Pin2.u0,energy"
    back = kt.Trajectory.from_csv(path)
    assert back.get_labels() == traj.get_labels()
    for a, b in ((back.t, traj.t), (back.q, traj.q), (back.u, traj.u),
                 (back.columns["energy"], traj.columns["energy"])):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def test_sto_round_trip(double_pendulum_run, tmp_path):
    _, _, traj = double_pendulum_run
    path = traj.to_sto(tmp_path / "run.sto")
    lines = path.read_text().splitlines()
    assert lines[1:6] == ["version=1", f"nRows={len(traj)}", "nColumns=6", "inDegrees=no",
                          "endheader"]
    assert lines[6].split("\t") == traj.get_labels()
    back = kt.Trajectory.from_sto(path)
    assert back.name == traj.name and back.q_names == traj.q_names
    np.testing.assert_allclose(back.q, traj.q, rtol=1e-12, atol=0)
    np.testing.assert_allclose(back.u, traj.u, rtol=1e-12, atol=0)
    np.testing.assert_allclose(back.t, traj.t, rtol=1e-12, atol=0)


def test_opensim_reads_the_sto(double_pendulum_run, tmp_path):
    opensim = pytest.importorskip("opensim")
    _, _, traj = double_pendulum_run
    path = str(traj.to_sto(tmp_path / "run.sto"))
    table = opensim.TimeSeriesTable(path)
    assert list(table.getColumnLabels()) == traj.get_labels()[1:]
    assert table.getNumRows() == len(traj)
    times = np.array(table.getIndependentColumn())
    np.testing.assert_allclose(times, traj.t, rtol=1e-12, atol=0)
    q1 = table.getDependentColumn("Pin2.q0").to_numpy()
    np.testing.assert_allclose(q1, traj.q[:, 1], rtol=1e-12, atol=0)
    storage = opensim.Storage(path)
    assert storage.getSize() == len(traj)
    assert storage.getColumnLabels().getSize() == len(traj.get_labels())


def test_states_of_a_trajectory_from_a_file_need_a_template(double_pendulum_run, tmp_path):
    system, state, traj = double_pendulum_run
    back = kt.Trajectory.from_csv(traj.to_csv(tmp_path / "run.csv"))
    with pytest.raises(InvalidArgumentError, match="get_default_state"):
        back.states()
    rebuilt = back.states(system.get_default_state())
    np.testing.assert_array_equal(rebuilt[-1].get_u(), traj.u[-1])


def test_degrees_and_non_storage_files_are_refused(tmp_path):
    deg = tmp_path / "deg.sto"
    deg.write_text("x\nversion=1\nnRows=1\nnColumns=2\ninDegrees=yes\nendheader\n"
                   "time\tq0\n0\t1\n")
    with pytest.raises(InvalidArgumentError, match="radians"):
        kt.Trajectory.from_sto(deg)
    bad = tmp_path / "bad.sto"
    bad.write_text("time\tq0\n0\t1\n")
    with pytest.raises(InvalidArgumentError, match="endheader"):
        kt.Trajectory.from_sto(bad)


def test_a_generic_system_gets_subsystem_labels_and_no_energy(tmp_path):
    system = kt.System()
    Oscillator(system)
    state = system.realize_topology()
    traj = kt.simulate(system, state, math.pi, accuracy=1e-8, report_interval=math.pi / 4)
    assert traj.get_labels() == ["time", "Oscillator.q0", "Oscillator.u0"]
    np.testing.assert_allclose(traj.q[:, 0], np.cos(2 * traj.t), atol=1e-6)
    back = kt.Trajectory.from_sto(traj.to_sto(tmp_path / "osc.sto"))
    np.testing.assert_array_equal(back.u, traj.u)


def test_trajectory_refuses_labels_it_could_not_read_back():
    with pytest.raises(InvalidArgumentError, match="reserved"):
        kt.Trajectory([0.0], [[1.0]], [[0.0]], columns={"tip.q0": [1.0]})
    with pytest.raises(InvalidArgumentError, match="white space"):
        kt.Trajectory([0.0], [[1.0]], [[0.0]], columns={"tip height": [1.0]})
    with pytest.raises(InvalidArgumentError, match="shape"):
        kt.Trajectory([0.0, 1.0], [[1.0]], [[0.0]])


# ----------------------------------------------------------------- integrators
@pytest.mark.parametrize("name, method", [
    ("RungeKuttaMerson", "RungeKuttaMerson"),
    ("verlet", "Verlet"),
    ("RungeKuttaFeldbergIntegrator", "RungeKuttaFeldberg"),
    ("runge_kutta_3", "RungeKutta3"),
])
def test_integrator_by_name(name, method):
    system, matter, state = pendulum()
    matter.get_mobilized_body(1).set_one_q(state, 0, 0.3)
    traj = kt.simulate(system, state, 0.2, accuracy=1e-5, integrator=name)
    assert traj.stats["integrator"] == method
    assert traj.stats["accuracy"] == 1e-5
    assert traj.stats["steps_taken"] > 0 and traj.stats["realizations"] > 0
    assert traj.stats["termination"] == "REACHED_FINAL_TIME"


def test_integrator_by_class_and_instance():
    system, matter, state = pendulum()
    matter.get_mobilized_body(1).set_one_q(state, 0, 0.3)
    by_class = kt.simulate(system, state, 0.2, integrator=kt.RungeKutta2Integrator)
    assert by_class.stats["integrator"] == "RungeKutta2"
    assert by_class.stats["accuracy"] == 1e-3
    integ = kt.RungeKuttaFeldbergIntegrator(system)
    integ.set_accuracy(1e-7)
    kept = kt.simulate(system, state, 0.2, integrator=integ)
    assert kept.stats["accuracy"] == 1e-7
    replaced = kt.simulate(system, state, 0.2, integrator=integ, accuracy=1e-4)
    assert replaced.stats["accuracy"] == 1e-4
    assert replaced.stats["steps_taken"] < kept.stats["steps_taken"]


def test_fixed_step_integrators_and_options():
    system, matter, state = pendulum()
    matter.get_mobilized_body(1).set_one_q(state, 0, 0.3)
    with pytest.raises(InvalidArgumentError, match="fixed_step_size"):
        kt.simulate(system, state, 0.2, integrator="SemiExplicitEuler")
    traj = kt.simulate(system, state, 0.2, integrator="SemiExplicitEuler",
                       fixed_step_size=1e-3)
    assert traj.stats["steps_taken"] == 200
    fixed_rk3 = kt.simulate(system, state, 0.2, integrator="RungeKutta3", fixed_step_size=0.01)
    assert fixed_rk3.stats["steps_taken"] == 20 and fixed_rk3.stats["error_test_failures"] == 0
    capped = kt.simulate(system, state, 0.2, maximum_step_size=0.01)
    assert capped.stats["steps_taken"] >= 20


# ---------------------------------------------------------------------- errors
def test_unknown_integrator_lists_the_known_ones():
    system, _, state = pendulum()
    with pytest.raises(InvalidArgumentError, match="RungeKuttaMerson.*Verlet") as info:
        kt.simulate(system, state, 1.0, integrator="Radau5")
    assert "Radau5" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="Integrator subclass"):
        kt.simulate(system, state, 1.0, integrator=3)


def test_bad_times_and_options_are_refused():
    system, _, state = pendulum()
    state.set_time(1.0)
    with pytest.raises(InvalidArgumentError, match="not after the State's time"):
        kt.simulate(system, state, 0.5)
    with pytest.raises(InvalidArgumentError, match="not after"):
        kt.simulate(system, state, 1.0)
    with pytest.raises(InvalidArgumentError, match="report_interval"):
        kt.simulate(system, state, 2.0, report_interval=0.0)
    with pytest.raises(InvalidArgumentError, match="maximum_step_size"):
        kt.simulate(system, state, 2.0, max_step=0.1)
    with pytest.raises(InvalidArgumentError, match="output 'tip'"):
        kt.simulate(system, state, 2.0, outputs={"tip": 1.0})
    other, _, _ = pendulum()
    with pytest.raises(InvalidArgumentError, match="another System"):
        kt.simulate(system, state, 2.0, integrator=kt.RungeKuttaMersonIntegrator(other))


# -------------------------------------------------------------------- progress
def test_progress_bar_is_quiet_off_a_terminal(capsys):
    system, _, state = pendulum()
    kt.simulate(system, state, 0.5)
    assert capsys.readouterr().err == ""
    kt.simulate(system, state, 0.5, progress=False)
    assert capsys.readouterr().err == ""


def test_progress_bar_can_be_forced(capsys):
    system, _, state = pendulum()
    kt.simulate(system, state, 0.5, progress=True)
    err = capsys.readouterr().err
    assert "simulate" in err and "100%" in err
