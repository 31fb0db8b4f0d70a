"""Measures (system/measure.py): each against an analytic case, through real simulations
where the measure remembers something; the stages they need, enforced; their per-State
values independent between copies of a State; and the auto-update discrete variables
they rest on."""

import math

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import (
    CacheEntryOutOfDateError,
    InvalidArgumentError,
    StageTooLowError,
    TopologyChangedError,
)

M = kt.Measure
S = kt.Stage


class Holder(kt.Subsystem):
    """A subsystem with nothing of its own: a home for measures."""


class Coordinate(kt.Subsystem):
    """One q with q̇ = u and u̇ = ``accel``: q(t) = q0 + u0 t + accel t²/2."""

    def __init__(self, system, accel=0.0):
        self.accel = accel
        super().__init__(system)

    def realize_topology(self, state):
        self.allocate_q(state, [0.0])
        self.allocate_u(state, [0.0])

    def realize_velocity(self, state):
        self.upd_q_dot(state)[:] = self.get_u(state)

    def realize_acceleration(self, state):
        self.upd_u_dot(state)[:] = self.accel


class Shifted(M.Custom.Implementation):
    """f(t) = offset + sin(w t) at TIME, with its first derivative unless ``bare``."""

    def __init__(self, offset=0.0, w=1.0, bare=False):
        self.offset, self.w, self.bare = offset, w, bare

    def get_num_time_derivatives(self):
        return 0 if self.bare else 1

    def get_depends_on_stage(self, deriv):
        return S.TIME

    def get_num_cache_entries(self):
        return 1

    def calc_cached_value(self, state, deriv):
        return self.offset + math.sin(self.w * state.get_time())

    def get_uncached_value(self, state, deriv):
        return self.w * math.cos(self.w * state.get_time())


def holder():
    system = kt.System()
    return system, Holder(system)


def pendulum(q0=0.6):
    """A 1 kg link on a pin, started ``q0`` rad from hanging."""
    system, matter, forces, link = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    return system, matter, forces, pin


def stepper(system, accuracy=1e-8, **settings):
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(accuracy)
    for name, value in settings.items():
        getattr(integ, f"set_{name}")(value)
    return kt.TimeStepper(system, integ)


# ---------------------------------------------------------------- constants
def test_constant_zero_one_and_time():
    system, sub = holder()
    three = M.Constant(sub, 3.0)
    vec = M.Constant(sub, [1.0, 2.0, 3.0])
    free = M.Constant(7.5)                                  # no subsystem needed
    zeros, ones = M.Zero(sub, 3), M.One()
    t_sub, t_free = M.Time(sub), M.Time()
    state = system.realize_topology()
    assert three.get_value(state) == 3.0 and free.get_value(state) == 7.5
    np.testing.assert_array_equal(vec.get_value(state), [1, 2, 3])
    np.testing.assert_array_equal(vec.get_value(state, 5), [0, 0, 0])
    np.testing.assert_array_equal(zeros.get_value(state), np.zeros(3))
    assert ones.get_value(state) == 1.0 and M.Zero().get_value(kt.State()) == 0.0
    assert three.get_num_time_derivatives() == M.Zero().get_num_time_derivatives() == \
        kt.system.measure.UNBOUNDED
    assert three.get_depends_on_stage() == S.TOPOLOGY and three.get_depends_on_stage(1) == \
        S.EMPTY
    with pytest.raises(ValueError):
        vec.get_value(state)[0] = 9.0                       # values are read-only
    with pytest.raises(InvalidArgumentError, match="Measure.Constant"):
        M.Zero().set_default_value(1.0)
    # Time: t, then 1, then zeros; readable from TIME on, with or without a subsystem.
    with pytest.raises(StageTooLowError) as err:
        t_sub.get_value(state)
    assert err.value.needed == S.TIME and err.value.held == S.MODEL
    state.set_time(2.5)
    system.realize(state, S.TIME)
    assert t_sub.get_value(state) == t_free.get_value(state) == 2.5
    assert (t_sub.get_value(state, 1), t_sub.get_value(state, 2)) == (1.0, 0.0)
    # A new constant value is a topology change: the State made before is refused.
    three.set_value(4.0)
    with pytest.raises(TopologyChangedError):
        three.get_value(state)
    assert three.get_value(system.realize_topology()) == 4.0


def test_sinusoid_and_its_three_derivatives():
    system, sub = holder()
    a, w, p = 2.0, 3.0, 0.5
    s = M.Sinusoid(sub, a, w, p)
    v = M.Sinusoid(sub, [1.0, 2.0], [1.0, 4.0])             # elementwise
    state = system.realize_topology()
    state.set_time(0.7)
    system.realize(state, S.TIME)
    x = w * 0.7 + p
    expected = [a * math.sin(x), a * w * math.cos(x), -a * w**2 * math.sin(x),
                -a * w**3 * math.cos(x)]
    for k, e in enumerate(expected):
        assert s.get_value(state, k) == pytest.approx(e, rel=1e-15)
        assert s.get_depends_on_stage(k) == S.TIME
    np.testing.assert_allclose(v.get_value(state), [math.sin(0.7), 2 * math.sin(2.8)])
    with pytest.raises(InvalidArgumentError, match="derivatives 0 to 3"):
        s.get_value(state, 4)
    state.set_time(0.0)                                     # back to INSTANCE
    with pytest.raises(StageTooLowError):
        s.get_value(state)


# ------------------------------------------------------------------- stages
class PositionProbe(M.Custom.Implementation):
    """The q of a Coordinate subsystem, a POSITION measure; counts its evaluations."""

    def __init__(self, coordinate):
        self.coordinate, self.evaluations = coordinate, 0

    def get_depends_on_stage(self, deriv):
        return S.POSITION

    def calc_cached_value(self, state, deriv):
        self.evaluations += 1
        return float(self.coordinate.get_q(state)[0])


class Reader(Coordinate):
    """Reads its own POSITION measure while POSITION is being realized."""

    def realize_position(self, state):
        self.seen = self.probe.get_value(state)


def test_a_position_measure_needs_position_and_is_cached_until_q_changes():
    system = kt.System()
    coord = Reader(system)
    impl = PositionProbe(coord)
    coord.probe = M.Custom(coord, impl)
    state = system.realize_topology()
    coord.upd_q(state)[:] = 0.25
    system.realize(state, S.TIME)
    with pytest.raises(StageTooLowError) as err:
        coord.probe.get_value(state)
    assert err.value.needed == S.POSITION and err.value.held == S.TIME
    system.realize(state, S.POSITION)                       # the hook reads it: allowed
    assert coord.seen == 0.25 and coord.probe.get_value(state) == 0.25
    system.realize(state, S.ACCELERATION)
    state.set_u([1.0])                                      # u: the q value stays valid
    assert coord.probe.get_value(state) == 0.25 and impl.evaluations == 1
    state.set_q([0.5])
    system.realize(state, S.POSITION)
    assert coord.probe.get_value(state) == 0.5 and impl.evaluations == 2


# --------------------------------------------------------------- arithmetic
def test_plus_minus_scale_follow_their_operands():
    system, sub = holder()
    var = M.Variable(sub, S.POSITION, 1.5)
    sine = M.Sinusoid(sub, 2.0, 1.0)
    plus, minus = M.Plus(sub, var, sine), M.Minus(sub, var, sine)
    scaled = M.Scale(sub, -3.0, plus)
    assert plus.get_depends_on_stage() == S.TIME and plus.get_num_time_derivatives() == 0
    state = system.realize_topology()
    state.set_time(0.4)
    system.realize(state, S.POSITION)
    s = 2.0 * math.sin(0.4)
    assert plus.get_value(state) == pytest.approx(1.5 + s, rel=1e-15)
    assert minus.get_value(state) == pytest.approx(1.5 - s, rel=1e-15)
    assert scaled.get_value(state) == pytest.approx(-3.0 * (1.5 + s), rel=1e-15)
    var.set_value(state, -2.0)                              # a new operand value is seen
    assert state.get_system_stage() == S.TIME
    assert plus.get_value(state) == pytest.approx(-2.0 + s, rel=1e-15)
    other = Holder(system)
    with pytest.raises(InvalidArgumentError, match="same Subsystem"):
        M.Plus(other, var, sine)


# ------------------------------------------------------- per-State variables
def test_variable_is_per_state_and_invalidates_its_stage():
    system, sub = holder()
    var = M.Variable(sub, S.DYNAMICS, np.array([1.0, 2.0]))
    assert var.get_depends_on_stage() == S.MODEL
    state = system.realize_topology()
    np.testing.assert_array_equal(var.get_value(state), [1, 2])
    system.realize(state, S.ACCELERATION)
    twin = state.copy()
    var.set_value(state, [5.0, 6.0])
    assert state.get_system_stage() == S.VELOCITY            # DYNAMICS invalidated
    np.testing.assert_array_equal(var.get_value(state), [5, 6])
    np.testing.assert_array_equal(var.get_value(twin), [1, 2])   # the copy keeps its own
    np.testing.assert_array_equal(var.get_value(state, 1), [0, 0])
    with pytest.raises(InvalidArgumentError, match="MODEL through REPORT"):
        M.Variable(sub, S.TOPOLOGY, 0.0)


def test_result_is_valid_only_once_set_and_until_its_inputs_change():
    system = kt.System()
    coord = Coordinate(system)
    result = M.Result(coord, S.POSITION, S.DYNAMICS)
    presumed = M.Result(coord, S.TIME, S.POSITION).set_is_presumed_valid_at_depends_on_stage(
        True)
    assert coord.get_measure(result.get_subsystem_measure_index()) is result
    state = system.realize_topology()
    system.realize(state, S.ACCELERATION)
    with pytest.raises(CacheEntryOutOfDateError, match="set_value"):
        result.get_value(state)
    result.set_value(state, [1.0, 2.0, 3.0])
    assert state.get_system_stage() == S.VELOCITY            # DYNAMICS invalidated
    assert result.is_valid(state)
    np.testing.assert_array_equal(result.get_value(state), [1, 2, 3])
    result.upd_value(state)[0] = 10.0                       # in place: not valid until marked
    assert not result.is_valid(state)
    result.mark_as_valid(state)
    np.testing.assert_array_equal(result.get_value(state), [10, 2, 3])
    state.set_q([1.0])                                      # its POSITION input changed
    assert not result.is_valid(state)
    assert math.isnan(presumed.get_value(state))            # valid from TIME on, unset
    presumed.upd_value(state)
    presumed.set_value(state, 4.25)
    assert presumed.get_value(state) == 4.25
    with pytest.raises(InvalidArgumentError, match="later than"):
        M.Result(coord, S.POSITION, S.POSITION)


# ------------------------------------------------------------------ calculus
def test_integrate_of_a_sinusoid_matches_its_closed_form_in_a_pendulum_simulation():
    system, matter, forces, pin = pendulum()
    a, w, p, c = 1.5, 4.0, 0.3, 0.2
    sine = M.Sinusoid(forces, a, w, p)
    integral = M.Integrate(forces, sine, M.Constant(forces, c))
    # The pendulum's own rate, integrated: ∫u dt = q(t) - q(0) for a pin.
    rate = M.Custom(matter, PinRate(pin))
    swept = M.Integrate(matter, rate, None)
    assert integral.get_num_time_derivatives() == 4
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.6)
    traj = kt.simulate(system, state, 1.5, accuracy=1e-8, report_interval=0.25,
                       outputs={"integral": integral.get_value, "swept": swept.get_value,
                                "d1": lambda s: integral.get_value(s, 1),
                                "d2": lambda s: integral.get_value(s, 2)})
    t = traj.t
    closed = c + a / w * (math.cos(p) - np.cos(w * t + p))
    np.testing.assert_allclose(traj.columns["integral"], closed, atol=1e-8)
    np.testing.assert_allclose(traj.columns["d1"], a * np.sin(w * t + p), rtol=1e-12)
    np.testing.assert_allclose(traj.columns["d2"], a * w * np.cos(w * t + p), rtol=1e-12)
    np.testing.assert_allclose(traj.columns["swept"], traj.q[:, 0] - 0.6, atol=1e-7)
    assert traj.z.shape == (len(t), 2)                      # the two integrals are z's
    # The pendulum is undisturbed: energy conserved to the accuracy asked.
    assert np.ptp(traj.columns["energy"]) < 1e-5


class PinRate(M.Custom.Implementation):
    """The generalized speed of a pin: a VELOCITY measure."""

    def __init__(self, pin):
        self.pin = pin

    def get_depends_on_stage(self, deriv):
        return S.VELOCITY

    def calc_cached_value(self, state, deriv):
        return self.pin.get_one_u(state, 0)


def test_integrate_set_value_and_state_copies_are_independent():
    system, sub = holder()
    integral = M.Integrate(sub, M.One(sub), None, [0.0, 0.0])
    state = system.realize_topology()
    system.realize(state, S.TIME)
    np.testing.assert_array_equal(integral.get_value(state), [0, 0])
    integral.set_value(state, [3.0, 4.0])
    twin = state.copy()
    system.realize(state, S.TIME)
    system.realize(twin, S.TIME)
    integral.set_value(state, [7.0, 8.0])
    system.realize(state, S.TIME)
    np.testing.assert_array_equal(integral.get_value(state), [7, 8])
    np.testing.assert_array_equal(integral.get_value(twin), [3, 4])
    with pytest.raises(InvalidArgumentError, match="expected 2 values"):
        integral.set_value(state, 1.0)


def test_differentiate_gives_the_operands_own_derivative_exactly():
    system, sub = holder()
    sine = M.Sinusoid(sub, 2.0, 3.0, 0.1)
    d = M.Differentiate(sub, sine)
    assert not d.is_using_approximation() and d.get_num_time_derivatives() == 2
    state = system.realize_topology()
    state.set_time(1.1)
    system.realize(state, S.TIME)
    assert d.get_value(state) == pytest.approx(6.0 * math.cos(3.3 + 0.1), rel=1e-14)
    assert d.get_value(state, 2) == sine.get_value(state, 3)


@pytest.mark.parametrize("forced", [False, True], ids=["no-derivative", "forced"])
def test_differentiate_estimates_a_derivative_the_operand_lacks(forced):
    """Simbody's estimate, fdot = 2 (f - f0)/h - fdot0 from samples at step starts, with
    a fixed step h: its error stays of order h² f''' where f''(0) = 0 (no first-step
    error to carry along)."""
    system = kt.System()
    sub = Coordinate(system)                                # something to integrate
    w, h = 3.0, 1e-3
    operand = M.Custom(sub, Shifted(0.0, w, bare=not forced))
    d = M.Differentiate(sub, operand)
    d.set_force_use_approximation(forced)
    assert d.is_using_approximation() and d.get_num_time_derivatives() == 0
    state = system.realize_topology()
    ts = stepper(system, fixed_step_size=h)
    ts.initialize(state)
    assert d.get_value(ts.get_state()) == 0.0               # nothing to go by at the start
    errors = []
    for t in np.arange(1, 11) * 0.1:
        ts.step_to(t)
        errors.append(d.get_value(ts.get_state()) - w * math.cos(w * t))
    assert max(map(abs, errors)) < h**2 * w**3


# ----------------------------------------------------------------- extremes
def test_extremes_of_a_known_signal_are_isolated_at_their_turning_points():
    """f = 0.3 + sin(2t) over 3 s: maximum 1.3 at t = π/4, minimum -0.7 at 3π/4, largest
    magnitude 1.3, smallest 0 where f crosses zero at (π + asin 0.3)/2."""
    system, sub = holder()
    f = M.Custom(sub, Shifted(0.3, 2.0))
    highest, lowest = M.Maximum(sub, f), M.Minimum(sub, f)
    largest, smallest = M.MaxAbs(sub, f), M.MinAbs(sub, f)
    state = system.realize_topology()
    # Triggers are watched at step ends: no step may span two turning points.
    ts = stepper(system, accuracy=1e-6, maximum_step_size=0.1)
    ts.initialize(state)
    ts.step_to(2.9)                         # before f's second zero crossing, at 2.989 s
    end = ts.get_state()
    assert highest.get_value(end) == pytest.approx(1.3, abs=1e-10)
    assert lowest.get_value(end) == pytest.approx(-0.7, abs=1e-10)
    assert largest.get_value(end) == pytest.approx(1.3, abs=1e-10)
    assert smallest.get_value(end) == pytest.approx(0.0, abs=1e-6)
    window = 1e-6                                           # accuracy × time scale, and more
    assert highest.get_time_of_extreme_value(end) == pytest.approx(math.pi / 4, abs=window)
    assert lowest.get_time_of_extreme_value(end) == pytest.approx(3 * math.pi / 4, abs=window)
    assert smallest.get_time_of_extreme_value(end) == pytest.approx(
        (math.pi + math.asin(0.3)) / 2, abs=window)
    # Not at a new extreme now: the derivative is zero.
    assert highest.get_value(end, 1) == 0.0


def test_an_extreme_without_a_derivative_is_the_extreme_of_the_step_ends():
    """No derivative, no event: the maximum is the largest value at the starts of the
    steps taken (fixed steps h here), as Simbody records it."""
    system, sub = holder()
    h = 0.07
    f = M.Custom(sub, Shifted(0.3, 2.0, bare=True))
    highest, lowest = M.Maximum(sub, f), M.Minimum(sub, f)
    state = system.realize_topology()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_fixed_step_size(h)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(70 * h)
    samples = 0.3 + np.sin(2 * h * np.arange(71))
    end = ts.get_state()
    assert highest.get_value(end) == pytest.approx(samples.max(), abs=1e-12)
    assert highest.get_value(end) < 1.3 - 1e-6              # the true peaks fell between
    assert lowest.get_value(end) == pytest.approx(samples.min(), abs=1e-12)
    highest.set_value(end, 5.0)
    system.realize(end, S.TIME)
    assert highest.get_value(end) == 5.0


# -------------------------------------------------------------------- memory
def test_delay_returns_the_signal_at_t_minus_delay():
    system, sub = holder()
    sine = M.Sinusoid(sub, 1.0, 2.0, 0.4)
    delay = 0.3
    late = M.Delay(sub, sine, delay)                        # cubic Hermite (sine has ẋ)
    linear = M.Delay(sub, sine, delay).set_use_linear_interpolation_only(True)
    state = system.realize_topology()
    ts = stepper(system, accuracy=1e-8, maximum_step_size=0.05)
    ts.initialize(state)
    for t in np.arange(1, 21) * 0.1:
        ts.step_to(t)
        s = ts.get_state()
        expected = math.sin(2.0 * max(t - delay, 0.0) + 0.4)   # flat before the start
        assert late.get_value(s) == pytest.approx(expected, abs=1e-6), t
        # Linear interpolation between step starts: within h²/8 max|f''| (h ≤ 0.05).
        assert linear.get_value(s) == pytest.approx(expected, abs=0.05**2 / 8 * 4), t
    assert late.get_depends_on_stage() == S.TIME and late.get_delay() == delay


def test_delay_using_the_current_value_when_steps_exceed_the_delay():
    system, sub = holder()
    sine = M.Sinusoid(sub, 1.0, 1.0)
    now = M.Delay(sub, sine, 0.01).set_can_use_current_value(True)
    state = system.realize_topology()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_fixed_step_size(0.1)                          # ten times the delay
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(1.0)
    assert now.get_value(ts.get_state()) == pytest.approx(math.sin(0.99), abs=2e-6)


def test_sample_and_hold_holds_the_value_of_each_sample():
    system, sub = holder()
    sine = M.Sinusoid(sub, 1.0, 3.0)
    held = M.SampleAndHold(sub, sine, 0.25)
    manual = M.SampleAndHold(sub, sine)                     # samples only when told
    state = system.realize_topology()
    state.set_time(0.1)
    ts = stepper(system)
    ts.initialize(state)
    # The start is a sample.
    assert held.get_value(ts.get_state()) == pytest.approx(math.sin(0.3), abs=1e-15)
    for t in (0.2, 0.3, 0.55, 0.74, 1.0, 1.1):
        ts.step_to(t)
        last = math.floor(t / 0.25 + 1e-9) * 0.25
        expected = math.sin(3.0 * max(last, 0.1))
        assert held.get_value(ts.get_state()) == pytest.approx(expected, abs=1e-12), t
    s = ts.get_state()
    assert manual.get_value(s) == pytest.approx(math.sin(0.3), abs=1e-15)
    manual.sample(s)                                        # TIME is invalidated
    system.realize(s, S.TIME)
    assert manual.get_value(s) == pytest.approx(math.sin(3.3), abs=1e-12)
    held.set_value(s, -4.0)
    system.realize(s, S.TIME)
    assert held.get_value(s) == -4.0


# -------------------------------------------------------------------- custom
class Counting(M.Custom.Implementation):
    """A measure of time with its own variable: how many times it was initialized, and
    which stages it was realized at."""

    def __init__(self):
        self.initialized, self.stages = 0, []

    def get_num_time_derivatives(self):
        return 2

    def get_depends_on_stage(self, deriv):
        return S.TIME

    def get_num_cache_entries(self):
        return 2                                            # value and rate; ẗ uncached

    def calc_cached_value(self, state, deriv):
        t = state.get_time()
        return t**3 if deriv == 0 else 3 * t**2

    def get_uncached_value(self, state, deriv):
        return 6 * state.get_time()

    def realize_topology(self, state):
        self.var = self.get_subsystem().allocate_discrete_variable(state, S.REPORT, 0)

    def realize_dynamics(self, state):
        self.stages.append(S.DYNAMICS)

    def initialize(self, state):
        self.initialized += 1
        self.get_subsystem().set_discrete_variable(state, self.var, state.get_time())


def test_custom_measure_from_a_user_implementation():
    system = kt.System()
    sub = Coordinate(system)
    impl = Counting()
    cube = M.Custom(sub, impl)
    with pytest.raises(InvalidArgumentError, match="Implementation"):
        M.Custom(sub, object())
    state = system.realize_topology()
    state.set_time(2.0)
    system.realize(state, S.ACCELERATION)
    assert impl.stages == [S.DYNAMICS]
    assert [cube.get_value(state, k) for k in range(3)] == [8.0, 12.0, 12.0]
    ts = stepper(system)
    ts.initialize(state)
    assert impl.initialized == 1
    assert sub.get_discrete_variable(ts.get_state(), impl.var) == 2.0


# -------------------------------------------------------- adoption, copies
def test_adoption_is_a_topology_change_and_a_measure_has_one_owner():
    system, sub = holder()
    state = system.realize_topology()
    sine = M.Sinusoid(None, 1.0, 1.0)
    with pytest.raises(InvalidArgumentError, match="belongs to no subsystem"):
        sine.get_value(state)
    index = sub.adopt_measure(sine)
    assert sub.get_measure(index) is sine and sine.is_same_subsystem(sub)
    with pytest.raises(TopologyChangedError):
        sine.get_value(state)
    with pytest.raises(InvalidArgumentError, match="already belongs"):
        Holder(system).adopt_measure(sine)
    state = system.realize_topology()
    system.realize(state, S.TIME)
    assert sine.get_value(state) == 0.0


def test_state_copies_keep_their_own_measure_memory():
    system, sub = holder()
    sine = M.Sinusoid(sub, 1.0, 2.0)
    highest = M.Maximum(sub, sine)
    integral = M.Integrate(sub, sine, None)
    state = system.realize_topology()
    ts = stepper(system)
    ts.initialize(state)
    ts.step_to(1.0)
    copy = ts.get_state().copy()
    ts.step_to(2.0)
    assert highest.get_value(copy) == pytest.approx(1.0, abs=1e-10)
    highest.set_value(copy, -1.0)
    system.realize(copy, S.TIME)
    assert highest.get_value(copy) == pytest.approx(math.sin(2.0))   # new extreme now
    assert highest.get_value(ts.get_state()) == pytest.approx(1.0, abs=1e-10)
    assert integral.get_value(copy) == pytest.approx((1 - math.cos(2.0)) / 2, abs=1e-7)
    assert integral.get_value(ts.get_state()) == pytest.approx((1 - math.cos(4.0)) / 2,
                                                               abs=1e-7)


# ------------------------------------------- auto-update discrete variables
class StepCounter(kt.Subsystem):
    """An auto-update variable whose update value is its value plus one, computed at
    ACCELERATION: the integrator installs it at the start of every step."""

    def realize_topology(self, state):
        self.count = self.allocate_auto_update_discrete_variable(state, S.REPORT, 0, S.TIME)
        self.plain = self.allocate_discrete_variable(state, S.REPORT, 0)

    def realize_acceleration(self, state):
        if not self.is_discrete_var_update_value_realized(state, self.count):
            self.set_discrete_var_update_value(
                state, self.count, self.get_discrete_variable(state, self.count) + 1)
            self.mark_discrete_var_update_value_realized(state, self.count)


def test_auto_update_variables_swap_at_the_start_of_each_step():
    system = kt.System()
    counter = StepCounter(system)
    Coordinate(system, accel=1.0)
    state = system.realize_topology()
    assert counter.get_discrete_var_update_index(state, counter.count) >= 0
    assert counter.get_discrete_var_update_index(state, counter.plain) == -1
    with pytest.raises(InvalidArgumentError, match="not an auto-update"):
        counter.get_discrete_var_update_value(state, counter.plain)
    system.realize(state, S.ACCELERATION)
    assert counter.get_discrete_var_update_value(state, counter.count) == 1
    assert state.auto_update_discrete_variables()           # swapped, nothing invalidated
    assert state.get_system_stage() == S.ACCELERATION
    assert counter.get_discrete_variable(state, counter.count) == 1
    assert not state.auto_update_discrete_variables()       # the update is stale now
    counter.set_discrete_variable(state, counter.count, 10)    # explicit: drops the update
    assert counter.get_discrete_var_last_update_time(state, counter.count) == 0.0
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_fixed_step_size(0.1)
    # A REPORT variable leaves the State realized, so the update 11 is computed when
    # initialize realizes it again, and installed at the first step's start.
    integ.initialize(state)
    integ.step_to(0.5)
    advanced = integ.get_advanced_state()
    # One swap per step (the fifth step's update is pending), as Simbody counts.
    assert integ.get_num_steps_taken() == 5
    assert counter.get_discrete_variable(advanced, counter.count) == 10 + 5
    assert counter.get_discrete_var_last_update_time(advanced, counter.count) == \
        pytest.approx(0.4)


def test_a_resumed_run_goes_on_with_the_measures_it_saved(tmp_path):
    """A checkpoint carries the measures' memory: the resumed run reports what the
    uninterrupted one does, bit for bit."""
    def build():
        system, sub = holder()
        Coordinate(system, accel=0.5)
        f = M.Custom(sub, Shifted(0.1, 3.0, bare=True))
        watched = [M.Integrate(sub, f, None), M.Maximum(sub, f), M.Delay(sub, f, 0.2),
                   M.Differentiate(sub, f)]
        return system, watched

    def values(watched, state):
        return [m.get_value(state) for m in watched]

    system, watched = build()
    whole = stepper(system, accuracy=1e-6)
    whole.initialize(system.realize_topology())
    expected = []
    for t in (0.3, 0.6, 0.9):
        whole.step_to(t)
        expected.append(values(watched, whole.get_state()))
    first = stepper(system, accuracy=1e-6)
    first.initialize(system.realize_topology())
    first.step_to(0.3)
    first.save_checkpoint(tmp_path / "run.npz")
    resumed = stepper(system, accuracy=1e-6)
    resumed.load_checkpoint(tmp_path / "run.npz")
    for t, want in zip((0.6, 0.9), expected[1:]):
        resumed.step_to(t)
        assert values(watched, resumed.get_state()) == want


class _ConstraintPower(M.Custom.Implementation):
    """The power (W) a constraint applies: an ACCELERATION value (Simbody's
    TestCustomConstraints integrates it)."""

    def __init__(self, constraint):
        self.constraint = constraint

    def get_depends_on_stage(self, deriv):
        return S.ACCELERATION

    def calc_cached_value(self, state, deriv):
        return self.constraint.calc_power(state)


def test_a_measure_reads_what_its_subsystem_computed_in_the_stage_it_realizes():
    """A matter measure of ACCELERATION (a constraint's power, from its multipliers) is
    read by an Integrate of the same subsystem while ACCELERATION is realized, as in
    Simbody, where a subsystem's measures run after it has finished the stage. The work
    integrated is the energy the constraint put in: a ConstantSpeed crank driving a
    double pendulum under gravity, E(t) - E(0) = ∫ P dt to the accuracy."""
    system, matter, forces, link = world()
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    kt.MobilizedBody.Pin(crank, kt.Transform([0, -1, 0]), link, kt.Transform())
    drive = kt.Constraint.ConstantSpeed(crank, 0.7)
    power = M.Custom(matter, _ConstraintPower(drive))
    work = M.Integrate(matter, power, M.Zero(matter))
    state = system.realize_topology()
    system.realize(state, S.ACCELERATION)
    assert work.get_value(state) == 0.0
    early = state.copy()
    early.invalidate_all(S.VELOCITY)
    with pytest.raises(StageTooLowError):   # outside a realization, the whole State's stage
        early.get_u_dot()
    with pytest.raises(StageTooLowError):
        drive.calc_power(early)
    traj = kt.simulate(system, state, 1.0, accuracy=1e-8, progress=False,
                       outputs={"work": work.get_value})
    energy, done = traj.columns["energy"], traj.columns["work"]
    assert abs(done[-1]) > 0.1
    np.testing.assert_allclose(energy - energy[0], done, rtol=0, atol=1e-6)
