"""The explicit integrators and the TimeStepper against analytic solutions: order of
convergence, error control, energy conservation, constraint manifolds, dense output and
events (issue 5's evidence)."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import IntegrationError, InvalidArgumentError

EXPLICIT = {  # integrator: order of its propagated solution
    kt.ExplicitEulerIntegrator: 1,
    kt.RungeKutta2Integrator: 2,
    kt.RungeKutta3Integrator: 3,
    kt.RungeKutta4Integrator: 4,
    kt.RungeKuttaMersonIntegrator: 4,
    kt.RungeKuttaFeldbergIntegrator: 5,
    kt.SemiExplicitEulerIntegrator: 1,
    kt.SemiExplicitEuler2Integrator: 1,
    kt.VerletIntegrator: 2,
}
ERROR_CONTROLLED = [c for c in EXPLICIT if c.has_error_control]


def oscillator(mass=2.0, stiffness=50.0, x0=0.3, v0=-1.0):
    """A body on a Slider held by a linear spring: x(t) = x0 cos ωt + (v0/ω) sin ωt."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(mass, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    kt.Force.MobilityLinearSpring(forces, slider, 0, stiffness, 0.0)
    state = system.realize_topology()
    slider.set_one_q(state, 0, x0)
    slider.set_one_u(state, 0, v0)
    w = math.sqrt(stiffness / mass)

    def exact(t):
        return (x0 * math.cos(w * t) + v0 / w * math.sin(w * t),
                -x0 * w * math.sin(w * t) + v0 * math.cos(w * t))
    return system, state, exact


def pendulum_3d(rod=False):
    """A Pin-Ball double pendulum under gravity; with ``rod``, its tip is also tied to a
    Ground point by a Rod, closing a loop."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0, 0.05],
                                           kt.Inertia(0.02, 0.03, 0.04)))
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body,
                                 kt.Transform([0, 1, 0]))
    lower = kt.MobilizedBody.Ball(upper, kt.Transform(), body, kt.Transform([0, 1, 0]))
    state = system.realize_topology()
    upper.set_one_q(state, 0, 0.6)
    lower.set_u(state, [1.0, 2.0, 0.5])
    if rod:
        kt.Constraint.Rod(matter.Ground(), [1.2, -0.8, 0.3], lower, [0, -1, 0], 1.0)
        state = system.realize_topology()
        upper.set_one_q(state, 0, 0.6)
        lower.set_q(state, kt.Rotation.about_z(0.4).convert_rotation_to_quaternion())
        lower.set_u(state, [1.0, 2.0, 0.5])
        assembler = kt.Assembler(system)
        assembler.set_tolerance(1e-12)
        assembler.assemble(state)
        system.project(state, 1e-12)
    return system, state


class Recorder(kt.PeriodicEventReporter):
    def __init__(self, system, interval):
        super().__init__(interval)
        self.system = system
        self.times, self.energies, self.perr, self.q = [], [], [], []

    def handle_event(self, state):
        self.times.append(state.get_time())
        self.energies.append(self.system.calc_energy(state))
        self.perr.append(np.max(np.abs(state.get_q_err()), initial=0.0))
        self.q.append(state.get_q().copy())


@pytest.mark.parametrize("method", list(EXPLICIT), ids=lambda c: c.__name__)
def test_order_of_convergence(method):
    """Fixed steps h and h/2 on the oscillator: the error at t = 1 shrinks by 2^p."""
    system, state, exact = oscillator()
    errors = []
    for h in (0.02, 0.01):
        integ = method(system, h)
        integ.initialize(state)
        integ.step_to(1.0)
        x, v = exact(1.0)
        y = integ.get_state().get_y()
        errors.append(math.hypot(y[0] - x, y[1] - v))
    order = math.log2(errors[0] / errors[1])
    assert abs(order - EXPLICIT[method]) < 0.25, (errors, order)


@pytest.mark.parametrize("method", ERROR_CONTROLLED, ids=lambda c: c.__name__)
def test_error_control_follows_the_accuracy(method):
    """Tightening α by 100x shrinks the global error about 100^(p/(p+1)) times (the error
    estimate is O(h^(p+1)), the global error O(h^p)), and takes more steps."""
    system, state, exact = oscillator()
    errors, steps = [], []
    for accuracy in (1e-3, 1e-5):
        integ = method(system)
        integ.set_accuracy(accuracy)
        integ.initialize(state)
        integ.step_to(2.0)
        x, v = exact(2.0)
        y = integ.get_state().get_y()
        errors.append(math.hypot(y[0] - x, 0.1 * (y[1] - v)))
        steps.append(integ.get_num_steps_taken())
        assert integ.get_num_steps_attempted() >= integ.get_num_steps_taken()
        assert integ.get_num_realizations() >= integ.get_num_steps_taken()
    p = EXPLICIT[method]
    assert errors[1] < errors[0] / (0.5 * 100 ** (p / (p + 1))), errors
    # a first-order method's global error is the sum of many local ones
    assert errors[1] < (2000 if EXPLICIT[method] == 1 else 100) * 1e-5, errors
    assert steps[1] > steps[0]


def test_energy_drift_within_accuracy():
    """A conservative 3-D double pendulum over 10 s: total energy moves by no more than
    the requested accuracy relative to its scale (the kinetic plus |potential|)."""
    system, state = pendulum_3d()
    system.realize(state, kt.Stage.ACCELERATION)
    scale = system.calc_kinetic_energy(state) + abs(system.calc_potential_energy(state))
    for accuracy in (1e-4, 1e-7):
        integ = kt.RungeKuttaMersonIntegrator(system)
        integ.set_accuracy(accuracy)
        recorder = system.add_event_reporter(Recorder(system, 0.5))
        ts = kt.TimeStepper(system, integ)
        ts.initialize(state)
        ts.step_to(10.0)
        drift = np.max(np.abs(np.array(recorder.energies) - recorder.energies[0])) / scale
        assert drift <= accuracy, (accuracy, drift)
        system._event_reporters.remove(recorder)


def test_constrained_system_stays_on_its_manifold():
    """The pendulum closed by a Rod, 10 s of RungeKuttaMerson with projection: position
    errors at every report stay within the constraint tolerance, and the quaternion of
    the Ball stays unit length."""
    system, state = pendulum_3d(rod=True)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-5)
    integ.set_constraint_tolerance(1e-8)
    recorder = system.add_event_reporter(Recorder(system, 0.1))
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(10.0)
    assert len(recorder.times) == 101
    assert max(recorder.perr) <= 1e-8
    quaternions = np.array(recorder.q)[:, 1:5]
    assert np.allclose(np.linalg.norm(quaternions, axis=1), 1.0, atol=1e-12)
    assert integ.get_num_projections() >= integ.get_num_steps_taken()


def test_reports_land_on_exact_times_with_accurate_dense_output():
    """Reports every 0.01 s from steps much longer than that: the report times are exact,
    and the interpolated states agree with the analytic solution to about the accuracy."""
    system, state, exact = oscillator()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-7)
    recorder = system.add_event_reporter(Recorder(system, 0.01))
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(1.0)
    assert integ.get_num_steps_taken() < 60
    k = np.arange(101)
    assert np.array_equal(recorder.times, k * 0.01) or \
        np.max(np.abs(np.array(recorder.times) - k * 0.01)) < 1e-14
    x = np.array([exact(t)[0] for t in recorder.times])
    # cubic Hermite between step ends: O(h⁴) inside steps of ~0.05 s
    assert np.max(np.abs(np.array(recorder.q)[:, 0] - x)) < 1e-5


class Floor(kt.TriggeredEventHandler):
    """A ball on a vertical Slider bouncing on the floor y = 0 with restitution e."""

    def __init__(self, slider, restitution):
        super().__init__(kt.Stage.POSITION)
        self.get_trigger_info().set_trigger_on_rising_sign_transition(False)
        self.slider, self.e, self.times = slider, restitution, []

    def get_value(self, state):
        return self.slider.get_one_q(state, 0)

    def handle_event(self, state, accuracy):
        self.times.append(state.get_time())
        self.slider.set_one_u(state, 0, -self.e * self.slider.get_one_u(state, 0))


def test_bouncing_ball_meets_the_analytic_impact_times():
    """Dropped from h0 = 1 m with restitution 0.8: impacts at t1 = √(2h0/g), then
    intervals 2 e^k v1 / g; isolated to 1e-9."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    g, h0, e = 9.81, 1.0, 0.8
    kt.Force.UniformGravity(forces, matter, [0, -g, 0])
    ball = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(kt.Rotation.about_z(
        math.pi / 2)), ball, kt.Transform(kt.Rotation.about_z(math.pi / 2)))
    floor = system.add_event_handler(Floor(slider, e))
    state = system.realize_topology()
    slider.set_one_q(state, 0, h0)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-8)
    integ.set_maximum_step_size(0.1)  # a bounce (>= 0.3 s here) never fits in one step
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(3.0)
    t1 = math.sqrt(2 * h0 / g)
    v1 = g * t1
    expected = [t1]
    while expected[-1] < 3.0:
        expected.append(expected[-1] + 2 * e ** len(expected) * v1 / g)
    expected = [t for t in expected if t < 3.0]
    assert len(floor.times) == len(expected)
    assert np.max(np.abs(np.array(floor.times) - expected)) < 1e-9
    assert abs(ts.get_time() - 3.0) < 1e-15


class SwitchOff(kt.ScheduledEventHandler):
    """At t_switch, disables a force element: a scheduled change of the State."""

    def __init__(self, force, t_switch):
        self.force, self.t_switch, self.seen = force, t_switch, []

    def get_next_event_time(self, state, include_current_time):
        t = state.get_time()
        return self.t_switch if t < self.t_switch or (
            include_current_time and t == self.t_switch) else math.inf

    def handle_event(self, state, accuracy):
        self.seen.append(state.get_time())
        self.force.disable(state)


def test_scheduled_handler_changes_the_state_at_its_exact_time():
    """A spring switched off at t = 0.37: afterwards the body coasts at the speed it had,
    which matches the analytic oscillator at 0.37."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    spring = kt.Force.MobilityLinearSpring(forces, slider, 0, 50.0, 0.0)
    handler = system.add_event_handler(SwitchOff(spring, 0.37))
    state = system.realize_topology()
    slider.set_one_q(state, 0, 0.3)
    integ = kt.RungeKuttaFeldbergIntegrator(system)
    integ.set_accuracy(1e-9)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(1.0)
    assert handler.seen == [0.37]
    w = 5.0
    x, v = 0.3 * math.cos(w * 0.37), -0.3 * w * math.sin(w * 0.37)
    final = ts.get_state()
    assert slider.get_one_u(final, 0) == pytest.approx(v, abs=1e-7)
    assert slider.get_one_q(final, 0) == pytest.approx(x + v * 0.63, abs=1e-7)


def test_handler_can_end_the_simulation():
    class Stop(kt.PeriodicEventHandler):
        def handle_event(self, state, accuracy):
            return True

    system, state, _ = oscillator()
    system.add_event_handler(Stop(0.25))
    integ = kt.RungeKutta3Integrator(system)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    assert ts.step_to(1.0) == kt.SuccessfulStepStatus.END_OF_SIMULATION
    assert ts.get_time() == pytest.approx(0.25)
    assert integ.get_termination_reason() == \
        kt.TerminationReason.ANY_EVENT_HANDLER_REQUESTED_TERMINATION


def test_reporters_due_at_the_final_time_report():
    system, state, _ = oscillator()
    recorder = system.add_event_reporter(Recorder(system, 0.25))
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_final_time(1.0)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    assert ts.step_to(5.0) == kt.SuccessfulStepStatus.END_OF_SIMULATION
    assert recorder.times == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_integrator_stops_at_final_time_and_at_step_limits():
    system, state, _ = oscillator()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_final_time(0.5)
    integ.initialize(state)
    assert integ.step_to(2.0) == kt.SuccessfulStepStatus.END_OF_SIMULATION
    assert integ.get_time() == 0.5
    assert integ.is_simulation_over()
    with pytest.raises(IntegrationError, match="over"):
        integ.step_to(3.0)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-8)
    integ.set_internal_step_limit(3)
    integ.initialize(state)
    assert integ.step_to(2.0) == kt.SuccessfulStepStatus.REACHED_STEP_LIMIT
    assert integ.get_num_steps_taken() == 3


def test_bad_input_is_refused_with_the_fix():
    system, state, _ = oscillator()
    with pytest.raises(InvalidArgumentError, match="step size"):
        kt.SemiExplicitEulerIntegrator(system)
    integ = kt.RungeKuttaMersonIntegrator(system)
    with pytest.raises(InvalidArgumentError, match="positive"):
        integ.set_accuracy(0)
    with pytest.raises(InvalidArgumentError, match="initialize"):
        integ.step_to(1.0)
    integ.initialize(state)
    integ.step_to(0.5)
    with pytest.raises(InvalidArgumentError, match="before the current time"):
        integ.step_to(0.1)
    with pytest.raises(InvalidArgumentError, match="interval"):
        kt.PeriodicEventReporter(0.0)
    with pytest.raises(InvalidArgumentError, match="another System"):
        kt.TimeStepper(kt.MultibodySystem(), integ)


def test_minimum_step_size_failure_names_the_fix():
    system, state, _ = oscillator(stiffness=1e10)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-6)
    integ.set_minimum_step_size(1e-3)
    integ.initialize(state)
    with pytest.raises(IntegrationError, match="CPodes"):
        integ.step_to(1.0)


class EnableAt(kt.ScheduledEventHandler):
    def __init__(self, constraint, t_on):
        self.constraint, self.t_on = constraint, t_on

    def get_next_event_time(self, state, include_current_time):
        return self.t_on if state.get_time() < self.t_on else math.inf

    def handle_event(self, state, accuracy):
        self.constraint.enable(state)


def test_handler_enabling_a_constraint_changes_the_equations_in_use():
    """A ConstantSpeed constraint, disabled by default, switched on at t = 0.4 by a
    handler: from then on the slider's speed is held at 2 m/s against its spring (the
    restart projects u onto it), before it the oscillator moves freely."""
    system, state, exact = oscillator()
    matter = system.get_matter_subsystem()
    slider = matter.get_mobilized_body(1)
    speed = kt.Constraint.ConstantSpeed(slider, 0, 2.0)
    speed.set_disabled_by_default(True)
    system.add_event_handler(EnableAt(speed, 0.4))
    state = system.realize_topology()
    slider.set_one_q(state, 0, 0.3)
    slider.set_one_u(state, 0, -1.0)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-8)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(0.3)
    assert slider.get_one_q(ts.get_state(), 0) == pytest.approx(exact(0.3)[0], abs=1e-6)
    ts.step_to(1.0)
    final = ts.get_state()
    assert not speed.is_disabled(final)
    assert slider.get_one_u(final, 0) == pytest.approx(2.0, abs=1e-10)
    assert slider.get_one_q(final, 0) == pytest.approx(exact(0.4)[0] + 2.0 * 0.6, abs=1e-6)


class CountingOscillator(kt.Subsystem):
    """q̈ = -k q with its own events (seed 000 §3.5.4): a trigger slot q at POSITION whose
    zero crossings it records, and a scheduled event at t = 1 s that quadruples k."""

    def realize_topology(self, state):
        self.allocate_q(state, [1.0])
        self.allocate_u(state, [0.0])
        self.k = self.allocate_discrete_variable(state, kt.Stage.DYNAMICS, 1.0)
        self.crossings, self.switched = [], []

    def realize_instance(self, state):
        self.allocate_event_triggers_by_stage(state, kt.Stage.POSITION, 1)

    def realize_position(self, state):
        self.upd_event_triggers_by_stage(state, kt.Stage.POSITION)[0] = self.get_q(state)[0]

    def realize_velocity(self, state):
        self.upd_q_dot(state)[:] = self.get_u(state)

    def realize_acceleration(self, state):
        k = self.get_discrete_variable(state, self.k)
        self.upd_u_dot(state)[:] = -k * self.get_q(state)

    def calc_time_of_next_scheduled_event(self, state, include_current_time):
        return (1.0, ["stiffen"]) if state.get_time() < 1.0 else (math.inf, [])

    def handle_events(self, state, cause, event_ids, accuracy):
        if cause == "scheduled":
            self.switched.append((state.get_time(), list(event_ids)))
            self.set_discrete_variable(state, self.k, 4.0)
        else:
            self.crossings.append((state.get_time(), list(event_ids)))


def test_subsystem_events_scheduled_and_triggered():
    """Zero crossings of cos t at π/2 and 3π/2 ... until t = 1 s, then of the stiffer
    oscillator continuing from there; at accuracy 1e-12 each is found to 1e-9."""
    system = kt.System()
    osc = CountingOscillator(system)
    state = system.realize_topology()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-12)
    integ.set_maximum_step_size(0.2)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(6.0)
    assert osc.switched == [(1.0, ["stiffen"])]
    # after t = 1: q = cos 1 cos 2(t-1) - (sin 1 / 2) sin 2(t-1) = A cos(2(t-1) + φ)
    phase = math.atan2(math.sin(1.0) / 2, math.cos(1.0))
    expected = [(math.pi / 2 + n * math.pi - phase) / 2 + 1.0 for n in range(5)]
    expected = [t for t in expected if 1.0 < t < 6.0]
    times = [t for t, ids in osc.crossings]
    assert all(ids == [(kt.Stage.POSITION, 0)] for _, ids in osc.crossings)
    assert len(times) == len(expected)
    assert np.max(np.abs(np.array(times) - expected)) < 1e-9


def test_runge_kutta4_takes_fixed_steps_of_four_realizations():
    """Classic RK4: three stages and the step's end realized per step (Merson: five),
    and no step without a step size, since it has no error estimate to choose one."""
    system, state, exact = oscillator()
    integ = kt.RungeKutta4Integrator(system, 0.01)
    integ.initialize(state)
    before = integ.get_num_realizations()
    integ.step_to(1.0)
    assert integ.get_num_steps_taken() == 100
    assert integ.get_num_realizations() - before == 4 * 100
    with pytest.raises(InvalidArgumentError, match="no error control"):
        kt.RungeKutta4Integrator(system)
    with pytest.raises(InvalidArgumentError, match="fixed_step_size"):
        kt.simulate(system, state, 1.0, integrator="RungeKutta4", progress=False)
