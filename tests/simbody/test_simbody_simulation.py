"""A port of Simbody's SimTKcommon/tests/TestSimulation.cpp (``testOne``) to kinetree.

Simbody's test builds a System of a "system" subsystem holding Result measures and a test
subsystem with three q and three u (q̇ = u, u̇ = (1, 2, 3)), two TIME triggers (t - 0.6789,
t - 1.234) and a VELOCITY trigger (Σu - 5), and gives the test subsystem nearly every
built-in measure: constants, a Sinusoid cos(2πt), its integral, its extremes, the
estimated derivative of the integral, the integral of a user measure (sin t, cos t) from
(-1, 0) as a 2-vector, a Delay of that, Time, a Delay and a Scale of Time, a Variable and
the Plus and Minus of it and the sinusoid. It then steps the State by hand, 2000 steps of
h = 1 ms of its own two-stage scheme (y += h/2 ẏ(y0); y += h/2 ẏ(y_mid)), swapping the
auto-update discrete variables at the start of each step and handling the triggers that
change sign at each stage, and prints every 100 steps what each measure holds beside what
it should hold.

The C++ test asserts only that the State's time is 0 where it starts stepping; the rest
is printed. Here each printed pair is asserted: with Simbody's own comparison
(``numerically_equal``, defined in TestSimulation.cpp and unused there) where the two must
agree to rounding, and where the scheme's truncation error enters, to a tolerance derived
from the scheme (see ``scheme_integral``). Python floats cannot be changed in place, so
the Results' first values, which the C++ writes through updValue, are given as their
default values; the rest keeps the C++ order. Printing of reference counts, weights and
stage versions, which kinetree does not have, is left out.
"""

import math

import numpy as np

import kinetree as kt

M = kt.Measure
S = kt.Stage

# SimTK's SignificantReal: eps^(7/8).
SIGNIFICANT_REAL = np.finfo(float).eps ** 0.875


def numerically_equal(v1, v2):
    """TestSimulation.cpp's numericallyEqual for doubles, elementwise: relative to the
    larger magnitude, absolute below 0.1."""
    v1, v2 = np.asarray(v1, dtype=float), np.asarray(v2, dtype=float)
    scale = np.maximum(np.maximum(np.abs(v1), np.abs(v2)), 0.1)
    return v1.shape == v2.shape and bool(np.all(np.abs(v1 - v2) < scale * SIGNIFICANT_REAL))


def assert_eq(v1, v2):
    """ASSERT_EQ of TestSimulation.cpp."""
    assert numerically_equal(v1, v2), f"{v1} != {v2}"


TRIGGER_TIME_1, TRIGGER_TIME_2, TRIGGER_USUM = 0.6789, 1.234, 5.0
ACCELERATION = np.array([1.0, 2.0, 3.0])


class TestSubsystem(kt.Subsystem):
    """TestSubsystemGuts: three q and three u allocated at MODEL, their sums cached at
    POSITION and VELOCITY, and three event triggers. (kinetree allocates cache entries
    through MODEL, not INSTANCE as the C++ does.)"""

    __test__ = False

    def __init__(self, system):
        self.handled = []
        super().__init__(system)

    def realize_topology(self, state):
        self.vars = self.allocate_cache_entry(state, S.MODEL, S.MODEL, {})

    def realize_model(self, state):
        v = self.upd_cache_entry(state, self.vars)
        v["q"] = self.allocate_q(state, np.zeros(3))
        v["u"] = self.allocate_u(state, np.zeros(3))
        v["q_sum"] = self.allocate_cache_entry(state, S.POSITION, S.POSITION, 0.0)
        v["u_sum"] = self.allocate_cache_entry(state, S.VELOCITY, S.VELOCITY, 0.0)

    def realize_instance(self, state):
        v = self.upd_cache_entry(state, self.vars)
        v["time_triggers"] = self.allocate_event_triggers_by_stage(state, S.TIME, 2)
        v["vel_trigger"] = self.allocate_event_triggers_by_stage(state, S.VELOCITY, 1)

    def realize_time(self, state):
        k = self.get_cache_entry(state, self.vars)["time_triggers"]
        t = state.get_time()
        self.upd_event_triggers_by_stage(state, S.TIME)[k:k + 2] = [t - TRIGGER_TIME_1,
                                                                    t - TRIGGER_TIME_2]

    def realize_position(self, state):
        self.set_cache_entry(state, self.get_cache_entry(state, self.vars)["q_sum"],
                             float(np.sum(self.get_q(state))))

    def realize_velocity(self, state):
        v = self.get_cache_entry(state, self.vars)
        self.upd_q_dot(state)[:] = self.get_u(state)
        u_sum = float(np.sum(self.get_u(state)))
        self.set_cache_entry(state, v["u_sum"], u_sum)
        self.upd_event_triggers_by_stage(state, S.VELOCITY)[v["vel_trigger"]] = \
            u_sum - TRIGGER_USUM

    def realize_acceleration(self, state):
        self.upd_u_dot(state)[:] = ACCELERATION
        self.upd_q_dot_dot(state)[:] = ACCELERATION

    def get_q_sum(self, state):
        return self.get_cache_entry(state, self.get_cache_entry(state, self.vars)["q_sum"])

    def get_u_sum(self, state):
        return self.get_cache_entry(state, self.get_cache_entry(state, self.vars)["u_sum"])

    def handle_events(self, state, cause, event_ids, accuracy):
        # Pretend to have changed a position; hide it by realizing again.
        self.handled.append((state.get_time(), list(event_ids)))
        state.invalidate_all(S.POSITION)
        self.get_system().realize(state, S.VELOCITY)
        return False


class SystemSubsystem(kt.Subsystem):
    """The System's own subsystem of the C++ test, home of its Result measures."""


class MySinCos(M.Custom.Implementation):
    """(sin t, cos t), a TIME measure with no derivatives, cached."""

    def get_depends_on_stage(self, deriv):
        return S.TIME

    def calc_cached_value(self, state, deriv):
        assert deriv == 0
        t = state.get_time()
        return [math.sin(t), math.cos(t)]


def scheme_integral(F, f, df, t, h):
    """What the test's scheme makes of ∫₀ᵗ f (antiderivative F, derivative df): per step
    h/2 (f(t₀) + f(t₀ + h/2)) = ∫ - (h²/4) f' - (5h³/48) f'' + O(h⁴), which sums to
    F(t) - F(0) - (h/4)(f(t) - f(0)) + (h²/48)(f'(t) - f'(0)) + O(h³ t)."""
    return F(t) - F(0) - h / 4 * (f(t) - f(0)) + h * h / 48 * (df(t) - df(0))


def test_one():
    system = kt.System()
    syssub = SystemSubsystem(system)
    subsys = TestSubsystem(system)

    # A Result on the system subsystem, of POSITION, invalidating DYNAMICS.
    vector_result = M.Result(syssub, S.POSITION, S.DYNAMICS).set_default_value(np.zeros(3))
    my_vec_res = syssub.get_measure(vector_result.get_subsystem_measure_index())
    result = M.Result(syssub, S.TIME, S.POSITION).set_default_value(1.234)
    auto_result = M.Result(syssub, S.TIME, S.POSITION).set_default_value(4.321)
    auto_result.set_is_presumed_valid_at_depends_on_stage(True)

    zero = M.Zero(subsys)
    three = M.Constant(subsys, 3)
    v3const = M.Constant(subsys, [1, 2, 3])
    cos2pit = M.Sinusoid(subsys, 1, 2 * math.pi, math.pi / 2)

    # Integrate cos(2πt) from 0: sin(2πt)/2π.
    sin2pit_over_2pi = M.Integrate(subsys, cos2pit, zero)

    # -cos t, sin t by integrating sin t, cos t from (-1, 0), fixed-size and as a Vector.
    cossin_init = M.Constant(subsys, [-1.0, 0.0])
    mysincos = M.Custom(subsys, MySinCos(), [0.0, 0.0])
    cossin = M.Integrate(subsys, mysincos, cossin_init, [0.0, 0.0])
    vcossin_init = M.Constant(subsys, [-1.0, 0.0])
    vmysincos = M.Custom(subsys, MySinCos(), [0.0, 0.0])
    vcossin = M.Integrate(subsys, vmysincos, vcossin_init, [0.0, 0.0])
    vcossin_delay_pt1 = M.Delay(subsys, vcossin, 0.1)

    min_cos2pit = M.Minimum(subsys, cos2pit)
    max_cos2pit = M.Maximum(subsys, cos2pit)
    min_abs_cos2pit = M.MinAbs(subsys, cos2pit)
    max_abs_cos2pit = M.MaxAbs(subsys, cos2pit)

    d_integ = M.Differentiate(subsys, sin2pit_over_2pi)
    d_integ.set_force_use_approximation(True)

    t_measure = M.Time()
    t_sub_meas = M.Time(subsys)
    t_delayed = M.Delay(subsys, t_sub_meas, 0.01)
    t1000 = M.Scale(subsys, 1000, t_sub_meas)

    mv = M.Variable(subsys, S.POSITION, 29)
    assert mv.get_default_value() == 29
    mv.set_default_value(-19)
    assert mv.get_default_value() == -19

    assert M.Zero().get_value(kt.State()) == 0
    assert M.One().get_value(kt.State()) == 1

    vplus = M.Plus(subsys, mv, cos2pit)
    vminus = M.Minus(subsys, mv, cos2pit)
    m = cos2pit

    state = system.realize_topology()
    system.realize_model(state)
    m = zero
    assert m.get_value(state) == 0
    system.realize(state, S.INSTANCE)

    # The Results hold values not yet valid (their defaults, see the docstring).
    vector_result.upd_value(state)[:] = [1, 2, 3]

    state.set_time(1.234)
    system.realize(state, S.TIME)
    assert_eq(t_measure.get_value(state), 1.234)
    assert_eq(t_sub_meas.get_value(state), 1.234)
    assert_eq(t1000.get_value(state), 1234.0)
    assert mv.get_value(state) == -19                       # after realize_topology
    assert_eq(cossin_init.get_value(state), [-1, 0])

    h, n_steps, output_interval = 0.001, 2000, 100
    state.set_time(0)
    assert state.get_time() == 0                            # the C++ test's ASSERT

    system.realize(state, S.POSITION)
    assert_eq(vplus.get_value(state), -19 + 1)             # cos(2π·0)
    assert_eq(vminus.get_value(state), -19 - 1)
    assert state.get_system_stage() == S.POSITION
    mv.set_value(state, 1.234)
    assert state.get_system_stage() == S.TIME                # POSITION invalidated
    assert mv.get_value(state) == 1.234
    system.realize(state, S.POSITION)

    vector_result.mark_as_valid(state)
    assert_eq(vector_result.get_value(state), [1, 2, 3])
    assert_eq(my_vec_res.get_value(state), [1, 2, 3])
    result.mark_as_valid(state)
    assert result.get_value(state) == 1.234
    assert auto_result.get_value(state) == 4.321             # presumed valid

    system.realize(state, S.ACCELERATION)
    assert state.get_system_stage() == S.ACCELERATION
    vector_result.set_value(state, [5, 9])
    assert_eq(vector_result.get_value(state), [5, 9])
    assert state.get_system_stage() == S.VELOCITY            # DYNAMICS invalidated

    cossin.set_value(state, cossin_init.get_value(state))
    vcossin.set_value(state, vcossin_init.get_value(state))
    system.initialize_measures(state)                       # the Initialization event
    system.realize(state, S.ACCELERATION)
    state.auto_update_discrete_variables()

    starts = []                                             # the times steps started at
    for i in range(n_steps + 1):
        if i % output_interval == 0:
            system.realize(state, S.REPORT)
            check_outputs(state, starts, h, locals())
        if i == n_steps:
            break
        h2 = h / 2
        ydot0 = state.get_y_dot().copy()
        triggers0 = {g: state.get_event_triggers_by_stage(g).copy()
                     for g in (S.TIME, S.POSITION, S.VELOCITY, S.DYNAMICS, S.ACCELERATION)}

        # Commit the auto-update discrete variables' values computed at the end of the
        # previous step (all results were computed from them already).
        state.auto_update_discrete_variables()
        starts.append(state.get_time())

        # First stage: the unconstrained continuous system only.
        t = state.get_time()
        state.set_y(state.get_y() + h2 * ydot0)
        state.set_time(t + h2)
        system.realize(state, S.TIME)
        system.realize(state, S.POSITION)
        system.realize(state)

        # Second (final) stage, then the events of each stage.
        ydot = state.get_y_dot().copy()
        t = state.get_time()
        state.set_y(state.get_y() + h2 * ydot)
        state.set_time(t + h2)
        stopped = False
        for g in (S.TIME, S.POSITION, S.VELOCITY, S.DYNAMICS, S.ACCELERATION):
            system.realize(state, g)
            now = state.get_event_triggers_by_stage(g)
            fired = [(g, k) for k in range(now.size) if np.sign(triggers0[g][k]) !=
                     np.sign(now[k])]
            if fired and subsys.handle_events(state, "triggered", fired, 1e-6):
                stopped = True
                break
        if stopped:
            break
        system.realize(state, S.ACCELERATION)

    # Each trigger fired once, in the step in which it changed sign.
    assert [ids for _, ids in subsys.handled] == [[(S.TIME, 0)], [(S.VELOCITY, 0)],
                                                  [(S.TIME, 1)]]
    for (t, _), when in zip(subsys.handled, (TRIGGER_TIME_1, TRIGGER_USUM / 6,
                                             TRIGGER_TIME_2)):
        assert when - 1e-12 <= t <= when + h + 1e-12      # (t is a sum of h/2's)


def check_outputs(state, starts, h, measures):
    """What the C++ test prints at an output step, asserted."""
    g = measures
    t = state.get_time()
    subsys = g["subsys"]
    assert_eq(g["t_measure"].get_value(state), t)
    assert g["t_measure"].get_value(state, 1) == 1 and g["t_measure"].get_value(state, 3) == 0
    assert_eq(g["t1000"].get_value(state), 1000 * t)
    # Time has every derivative: the Delay interpolates it exactly (flat before 0).
    assert abs(g["t_delayed"].get_value(state) - max(t - 0.01, 0.0)) < 1e-12
    # u̇ = (1, 2, 3) and q̇ = u: the scheme gives u = a t and q = a (t²/2 - h t/4) (to
    # the rounding of 2000 sums).
    assert np.allclose(state.get_u(), ACCELERATION * t, rtol=0, atol=1e-12)
    assert np.allclose(state.get_q(), ACCELERATION * (t * t / 2 - h * t / 4), rtol=0,
                       atol=1e-11)
    assert_eq(subsys.get_q_sum(state), np.sum(state.get_q()))
    assert_eq(subsys.get_u_sum(state), np.sum(state.get_u()))
    assert g["three"].get_value(state) == 3
    assert_eq(g["v3const"].get_value(state), [1, 2, 3])
    cos2pit = math.cos(2 * math.pi * t)
    assert abs(g["cos2pit"].get_value(state) - cos2pit) < 1e-12

    # Extremes, recorded at the starts of steps (no event isolates them here).
    samples = np.cos(2 * np.pi * np.array([*starts, t]))
    times = np.array([*starts, t])
    for name, pick in (("min_cos2pit", samples), ("max_cos2pit", -samples),
                       ("min_abs_cos2pit", np.abs(samples)),
                       ("max_abs_cos2pit", -np.abs(samples))):
        k = int(np.argmin(pick))                            # the first at the extreme
        assert abs(g[name].get_value(state) - samples[k]) < 1e-12, name
        assert abs(g[name].get_time_of_extreme_value(state) - times[k]) < 1e-12, name

    # Integrals: the closed form plus the scheme's truncation, to O(h³ t) ≈ 1e-9 t.
    two_pi = 2 * math.pi
    expected = scheme_integral(lambda x: math.sin(two_pi * x) / two_pi,
                               lambda x: math.cos(two_pi * x),
                               lambda x: -two_pi * math.sin(two_pi * x), t, h)
    assert abs(g["sin2pit_over_2pi"].get_value(state) - expected) < 1e-8
    assert abs(g["sin2pit_over_2pi"].get_value(state, 1) - cos2pit) < 1e-12

    # The estimated derivative of that integral: 0 at the start, for lack of anything
    # better, then Simbody's alternating estimate, within h max|f'| of the true slope.
    if not starts:
        assert g["d_integ"].get_value(state) == 0
    else:
        assert abs(g["d_integ"].get_value(state) - cos2pit) < h * two_pi

    def cossin_at(x):
        return np.array([-1.0, 0.0]) + scheme_integral(
            lambda s: np.array([-math.cos(s), math.sin(s)]),
            lambda s: np.array([math.sin(s), math.cos(s)]),
            lambda s: np.array([math.cos(s), -math.sin(s)]), x, h)

    assert np.allclose(g["cossin"].get_value(state), cossin_at(t), rtol=0, atol=1e-8)
    assert np.allclose(g["vcossin"].get_value(state), cossin_at(t), rtol=0, atol=1e-8)
    # The Delay of vcossin: its value 0.1 s ago (its start value before 0.1 s).
    assert np.allclose(g["vcossin_delay_pt1"].get_value(state),
                       cossin_at(max(t - 0.1, 0.0)), rtol=0, atol=1e-8)

    assert_eq(g["vplus"].get_value(state), 1.234 + g["cos2pit"].get_value(state))
    assert_eq(g["vminus"].get_value(state), 1.234 - g["cos2pit"].get_value(state))
