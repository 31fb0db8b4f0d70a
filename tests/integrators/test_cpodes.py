"""CPodesIntegrator (implicit variable-order BDF with projection) against the exact solution
of a stiff linear chain, against RungeKuttaMerson on it (the issue's evidence: ≥10x fewer
steps at equal accuracy), on a constraint manifold, with dense output and with a triggered
event."""

import math

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.optimize import brentq
from support import ball_pendulum_on_a_rod

import kinetree as kt
from kinetree.errors import InvalidArgumentError


def stiff_chain(n=6, stiffness=1e6, mass=1.0, soft=10.0):
    """n bodies on Sliders along one line, each slider's q the stretch of the link to the
    previous body: the first held to Ground by a soft spring (soft·n·mass, period ~2 s),
    the others by stiff critically damped springs. Linear, so y(t) = expm(A t) y0 exactly,
    with A built here from M = m LᵀL (x_i = Σ_{j≤i} q_j), K and C."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(mass, [0, 0, 0], kt.Inertia(0.01)))
    parent, sliders = matter.Ground(), []
    k = np.full(n, stiffness)
    c = np.full(n, 2 * math.sqrt(stiffness * mass))
    k[0], c[0] = soft * n * mass, 0.0
    for i in range(n):
        slider = kt.MobilizedBody.Slider(parent, kt.Transform(), body, kt.Transform())
        kt.Force.MobilityLinearSpring(forces, slider, 0, k[i], 0.0)
        if c[i]:
            kt.Force.MobilityLinearDamper(forces, slider, 0, c[i])
        sliders.append(slider)
        parent = slider
    state = system.realize_topology()
    sliders[0].set_one_q(state, 0, 0.1)
    for slider in sliders[1:]:
        slider.set_one_q(state, 0, 1e-3)
    lower = np.tril(np.ones((n, n)))
    m_inv = np.linalg.inv(mass * lower.T @ lower)
    a = np.block([[np.zeros((n, n)), np.eye(n)],
                  [-m_inv @ np.diag(k), -m_inv @ np.diag(c)]])
    y0 = state.get_y().copy()

    def exact(t):
        return expm(a * t) @ y0
    return system, state, exact


class Recorder(kt.PeriodicEventReporter):
    def __init__(self, interval):
        super().__init__(interval)
        self.times, self.y, self.perr = [], [], []

    def handle_event(self, state):
        self.times.append(state.get_time())
        self.y.append(state.get_y().copy())
        self.perr.append(np.max(np.abs(state.get_q_err()), initial=0.0))


def run(integrator, state, t_end, reporter=None):
    stepper = kt.TimeStepper(integrator.get_system(), integrator)
    stepper.initialize(state)
    stepper.step_to(t_end)
    return stepper.get_state()


def test_error_follows_the_accuracy_on_a_stiff_linear_chain():
    """Against expm at t = 2 s: the global error in every y shrinks as α tightens and stays
    within 100 α (a unit of error is 1 m or 1 m/s here; each of the ~100-250 steps may add
    up to α in RMS over the 12 y, the slow mode's two carrying all of it), while the steps
    grow slowly (the order rises to keep them long)."""
    errors, steps = [], []
    for accuracy in (1e-3, 1e-5, 1e-7):
        system, state, exact = stiff_chain()
        integ = kt.CPodesIntegrator(system)
        integ.set_accuracy(accuracy)
        final = run(integ, state, 2.0)
        errors.append(np.max(np.abs(final.get_y() - exact(2.0))))
        steps.append(integ.get_num_steps_taken())
        assert errors[-1] < 100 * accuracy, (accuracy, errors[-1])
    assert errors[0] > 10 * errors[1] > 100 * errors[2], errors
    assert steps[0] < steps[1] < steps[2] < 5 * steps[0], steps


def test_stiff_chain_takes_ten_times_fewer_steps_than_merson():
    """Stiff links (1e6 N/m, ω ≈ 2e3 rad/s) hold RungeKuttaMerson at its stability limit;
    CPodes follows the slow mode. Same accuracy 1e-4 over 3 s: at least 10x fewer steps
    (and realizations), and both within the accuracy's order of the exact slow
    coordinate and of each other."""
    results = {}
    for method in (kt.CPodesIntegrator, kt.RungeKuttaMersonIntegrator):
        system, state, exact = stiff_chain()
        integ = method(system)
        integ.set_accuracy(1e-4)
        final = run(integ, state, 3.0)
        results[method] = (integ.get_num_steps_taken(), integ.get_num_realizations(),
                           final.get_q()[0])
    cp_steps, cp_realizations, cp_q = results[kt.CPodesIntegrator]
    rk_steps, rk_realizations, rk_q = results[kt.RungeKuttaMersonIntegrator]
    assert rk_steps >= 10 * cp_steps, (cp_steps, rk_steps)
    assert rk_realizations >= 10 * cp_realizations, (cp_realizations, rk_realizations)
    q_exact = exact(3.0)[0]
    assert abs(cp_q - q_exact) < 1e-3 and abs(rk_q - q_exact) < 1e-4
    assert abs(cp_q - rk_q) < 1e-3


def test_constrained_ball_pendulum_stays_on_its_manifold():
    """3 s with reports every 0.1 s: the Rod's position error stays within the constraint
    tolerance at every report, the Ball's quaternion stays unit length, every step is
    projected, and the motion agrees with a tight RungeKuttaMerson run."""
    system, state, ball = ball_pendulum_on_a_rod()
    integ = kt.CPodesIntegrator(system)
    integ.set_accuracy(1e-6)
    integ.set_constraint_tolerance(1e-8)
    recorder = system.add_event_reporter(Recorder(0.1))
    final = run(integ, state, 3.0)
    assert len(recorder.times) == 31
    assert max(recorder.perr) <= 1e-8
    quaternions = np.array(recorder.y)[:, :4]
    assert np.allclose(np.linalg.norm(quaternions, axis=1), 1.0, atol=1e-12)
    assert integ.get_num_projections() >= integ.get_num_steps_taken()
    system, state, _ = ball_pendulum_on_a_rod()
    reference = kt.RungeKuttaMersonIntegrator(system)
    reference.set_accuracy(1e-9)
    reference.set_constraint_tolerance(1e-10)
    expected = run(reference, state, 3.0)
    assert np.max(np.abs(final.get_q() - expected.get_q())) < 1e-4


def test_reports_at_exact_times_from_the_bdf_interpolant():
    """Over [1, 2] s, past the stiff transient, reports every 0.01 s come from steps
    several times longer, land on exact times and agree with expm to the accuracy's order
    (as well as the step ends do)."""
    system, state, exact = stiff_chain()
    integ = kt.CPodesIntegrator(system)
    integ.set_accuracy(1e-6)
    recorder = system.add_event_reporter(Recorder(0.01))
    stepper = kt.TimeStepper(system, integ)
    stepper.initialize(state)
    stepper.step_to(1.0)
    steps_before = integ.get_num_steps_taken()
    stepper.step_to(2.0)
    assert integ.get_num_steps_taken() - steps_before < 25
    times = np.array(recorder.times)
    assert np.max(np.abs(times - 0.01 * np.arange(201))) < 1e-14
    errors = [np.max(np.abs(y - exact(t))) for t, y in zip(times, recorder.y)]
    assert max(errors[100:]) < 100 * 1e-6, max(errors)


class Crossing(kt.TriggeredEventHandler):
    """Records when the first slider's q falls through zero."""

    def __init__(self, slider_q):
        super().__init__(kt.Stage.POSITION)
        self.get_trigger_info().set_trigger_on_rising_sign_transition(False)
        self.slider_q, self.times = slider_q, []

    def get_value(self, state):
        return state.get_q()[self.slider_q]

    def handle_event(self, state, accuracy):
        self.times.append(state.get_time())


def test_triggered_event_is_isolated_at_the_exact_crossing():
    """The soft coordinate's falling zero crossings over 3 s, against the roots of the
    expm solution: the same count, each within 3e-5 s (the crossing is isolated to
    0.1 α s; the rest is the integration error of q, ~1e-6 m, over its speed ~0.3 m/s)."""
    system, state, exact = stiff_chain()
    handler = system.add_event_handler(Crossing(0))
    integ = kt.CPodesIntegrator(system)
    integ.set_accuracy(1e-7)
    run(integ, state, 3.0)
    grid = np.linspace(0.0, 3.0, 301)
    q = np.array([exact(t)[0] for t in grid])
    expected = [brentq(lambda t: exact(t)[0], grid[i], grid[i + 1])
                for i in range(300) if q[i] > 0 >= q[i + 1]]
    assert len(handler.times) == len(expected) == 2
    assert np.max(np.abs(np.array(handler.times) - expected)) < 3e-5


def test_order_limit_and_functional_iteration():
    """The order rises above 2 on a smooth solution unless limited; functional iteration
    needs no Jacobian and solves a non-stiff system (the soft chain) as accurately."""
    system, state, exact = stiff_chain(n=3, stiffness=100.0)
    orders = {}
    for limit in (5, 2):
        integ = kt.CPodesIntegrator(system)
        integ.set_order_limit(limit)
        integ.set_accuracy(1e-6)
        integ.set_return_every_internal_step(True)
        integ.initialize(state)
        orders[limit] = set()
        while integ.get_time() < 1.0:
            integ.step_to(1.0)
            orders[limit].add(integ.get_current_order())
    assert max(orders[5]) > 2 and max(orders[2]) == 2, orders
    integ = kt.CPodesIntegrator(system, "BDF", "Functional")
    integ.set_accuracy(1e-6)
    final = run(integ, state, 1.0)
    assert integ.get_num_jacobian_evaluations() == 0
    assert np.max(np.abs(final.get_y() - exact(1.0))) < 1e-4
    assert integ.get_nonlinear_system_iteration_type() is \
        kt.CPodesIntegrator.NonlinearSystemIterationType.Functional


def test_options_are_checked_and_named():
    system, state, _ = stiff_chain(n=2)
    integ = kt.CPodesIntegrator(system, kt.CPodesIntegrator.BDF, kt.CPodesIntegrator.Newton)
    assert integ.get_method_name() == "CPodes"
    assert (integ.get_method_min_order(), integ.get_method_max_order()) == (1, 5)
    with pytest.raises(InvalidArgumentError, match="Adams"):
        kt.CPodesIntegrator(system, "Adams")
    with pytest.raises(InvalidArgumentError, match="nonlinear_system_iteration_type"):
        kt.CPodesIntegrator(system, "BDF", "Picard")
    with pytest.raises(InvalidArgumentError, match="from 1 to 5"):
        integ.set_order_limit(6)
