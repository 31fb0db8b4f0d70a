"""An exception inside a step (a user's force raising once, KeyboardInterrupt) leaves the
integrator as it was before the step: calling step_to again continues exactly as an
uninterrupted run, for every integrator."""

import numpy as np
import pytest
from support import INTEGRATOR_IDS, INTEGRATORS, world

import kinetree as kt


class Flaky(kt.Force.Custom.Implementation):
    """A light spring on the first mobility that raises ``error`` on its ``fail_at``-th
    evaluation (counting from 1), once."""

    def __init__(self, fail_at=None, error=RuntimeError):
        self.calls, self.fail_at, self.error = 0, fail_at, error

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.error("the sensor dropped out")
        mobility_forces[0] -= 0.5 * state.get_q()[0]


def double_pendulum(flaky):
    system, matter, forces, body = world()
    kt.Force.Custom(forces, flaky)
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    lower = kt.MobilizedBody.Pin(upper, kt.Transform([0, -1, 0]), body, kt.Transform())
    state = system.realize_topology()
    upper.set_one_q(state, 0, 1.2)
    lower.set_one_q(state, 0, -0.7)
    return system, state


def run(integrator, fixed, flaky, reports):
    system, state = double_pendulum(flaky)
    integ = integrator(system, fixed) if fixed else integrator(system)
    if not fixed:
        integ.set_accuracy(1e-8)
    integ.initialize(state)
    interrupted = 0
    for t in reports:
        while True:
            try:
                integ.step_to(t)
                break
            except (RuntimeError, KeyboardInterrupt):
                interrupted += 1
    return integ, interrupted


@pytest.mark.parametrize("integrator,fixed", INTEGRATORS, ids=INTEGRATOR_IDS)
@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_step_that_raises_is_taken_again_as_if_nothing_happened(integrator, fixed, error):
    reports = np.linspace(0.01, 0.1, 10)
    reference, _ = run(integrator, fixed, Flaky(), reports)
    # Raise at evaluations landing on every position inside a step (its stages, the
    # derivative at its end, the projection's realizations).
    for fail_at in range(41, 48):
        integ, interrupted = run(integrator, fixed, Flaky(fail_at, error), reports)
        assert interrupted == 1
        assert integ.get_time() == reference.get_time()
        assert integ.get_state().get_y().tobytes() == \
            reference.get_state().get_y().tobytes(), fail_at
        assert integ.get_num_steps_taken() == reference.get_num_steps_taken()


def test_the_advanced_state_after_an_exception_is_the_last_accepted_one():
    flaky = Flaky(45)
    system, state = double_pendulum(flaky)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.initialize(state)
    with pytest.raises(RuntimeError, match="dropped out"):
        integ.step_to(1.0)
    advanced = integ.get_advanced_state()
    assert advanced.get_time() == integ.get_advanced_time() < 1.0
    assert advanced.get_system_stage() == kt.Stage.ACCELERATION
    again = advanced.copy()
    system.realize(again, kt.Stage.ACCELERATION)
    np.testing.assert_array_equal(again.get_u_dot(), advanced.get_u_dot())


def test_simulate_keeps_what_it_made_when_a_force_raises():
    flaky = Flaky(200)
    system, state = double_pendulum(flaky)
    with pytest.raises(kt.errors.SimulationError) as caught:
        kt.simulate(system, state, 1.0, accuracy=1e-6, progress=False)
    error = caught.value
    assert isinstance(error.__cause__, RuntimeError)
    assert "stopped at t = " in str(error) and "dropped out" in str(error)
    assert "force 1 of GeneralForceSubsystem (Custom)" in str(error)
    reports = error.trajectory
    assert 0 < len(reports.t) < 101 and reports.t[-1] <= error.time
    assert error.state.get_time() == error.time
    # Going on from the last accepted State ends where an uninterrupted run ends.
    rest = kt.simulate(system, error.state, 1.0, accuracy=1e-6, progress=False)
    whole = kt.simulate(system, state, 1.0, accuracy=1e-6, progress=False)
    np.testing.assert_allclose(rest.q[-1], whole.q[-1], atol=1e-5)


class Kick(kt.ScheduledEventHandler):
    """At t = 0.05 s adds 1 rad/s to the first speed; fails the first time if asked."""

    def __init__(self, fail_once):
        self.fail_once, self.calls = fail_once, 0

    def get_next_event_time(self, state, include_current_time):
        t = state.get_time()
        return 0.05 if t < 0.05 or (include_current_time and t == 0.05) else float("inf")

    def handle_event(self, state, accuracy):
        self.calls += 1
        state.upd_u()[0] += 1.0
        if self.fail_once and self.calls == 1:
            raise RuntimeError("the handler failed half-way")
        return False


def kicked_run(fail_once):
    system, state = double_pendulum(Flaky())
    kick = Kick(fail_once)
    system.add_event_handler(kick)
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.initialize(state)
    try:
        stepper.step_to(0.1)
    except RuntimeError:
        stepper.step_to(0.1)
    return stepper.get_state().get_y(), kick.calls


def test_an_event_handler_that_raises_leaves_the_state_as_the_event_found_it():
    y, calls = kicked_run(False)
    y_retried, calls_retried = kicked_run(True)
    assert (calls, calls_retried) == (1, 2)
    assert y_retried.tobytes() == y.tobytes()


class At(kt.ScheduledEventHandler):
    """Due at ``times`` (s), each once: ``get_next_event_time`` returns the first of them
    after the current time (or at it, with include_current_time), as Simbody asks."""

    def __init__(self, times):
        self.times, self.handled = sorted(times), []

    def get_next_event_time(self, state, include_current_time):
        t = state.get_time()
        return next((s for s in self.times if s > t or (include_current_time and s == t)),
                    float("inf"))

    def handle_event(self, state, accuracy):
        self.handled.append(state.get_time())
        return False


def test_a_scheduled_event_fires_once_at_its_time():
    system, state = double_pendulum(Flaky())
    at = At([0.013, 0.05, 0.05 + 1e-9, 0.2])
    system.add_event_handler(at)
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.initialize(state)
    for t in (0.01, 0.05, 0.1, 0.3):
        stepper.step_to(t)
    assert at.handled == at.times
