"""The built-in simple constraints (seed 000 §2.3 and Simbody's library): CoordinateCoupler,
SpeedCoupler, PrescribedMotion, ConstantSpeed, ConstantAcceleration and NoSlip1D.

For each: after projection the errors vanish and u̇ solves an independently assembled KKT
system; each error level is the time derivative of the one below (central differences
along a motion with an arbitrary u̇); a short RK4 run with projection keeps the physics
(coupled coordinates equal, q following f(t) with the driving force of inverse dynamics,
constant u, constant u̇, no slip at a gear mesh and a rack and pinion); and the argument
checks, getters and per-State parameters behave as in Simbody.
"""

import math
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest
from support import UserFunction

import kinetree as kt
from kinetree.errors import InvalidArgumentError
from kinetree.multibody.constraints.coordinate_coupler import CouplingFunction

LINK = kt.Body.Rigid(kt.MassProperties(1.2, [0.05, -0.1, 0.02],
                                       kt.Inertia(0.09, 0.07, 0.08, 0.01, 0.0, 0.005)))


class Coupling(kt.Function):
    """f(x) = x0 x1 + sin(x2) - 0.1, with first and second partials."""

    def calc_value(self, x):
        return x[0] * x[1] + math.sin(x[2]) - 0.1

    def calc_derivative(self, deriv_components, x):
        c = sorted(deriv_components)
        if len(c) == 1:
            return [x[1], x[0], math.cos(x[2])][c[0]]
        if c == [0, 1]:
            return 1.0
        if c == [2, 2]:
            return -math.sin(x[2])
        return 0.0

    def get_argument_size(self):
        return 3

    def get_max_derivative_order(self):
        return 2


class SpeedFunction(kt.Function):
    """f(u0, u1; q0) = u0 - cos(q0) u1 - 0.2: linear in u, nonlinear in q."""

    def calc_value(self, x):
        return x[0] - math.cos(x[2]) * x[1] - 0.2

    def calc_derivative(self, deriv_components, x):
        if len(deriv_components) == 1:
            return [1.0, -math.cos(x[2]), math.sin(x[2]) * x[1]][deriv_components[0]]
        c = sorted(deriv_components)
        if c == [1, 2]:
            return math.sin(x[2])
        if c == [2, 2]:
            return math.cos(x[2]) * x[1]
        return 0.0

    def get_argument_size(self):
        return 3

    def get_max_derivative_order(self):
        return 2


class FirstOrderOnly(kt.Function):
    def calc_value(self, x):
        return x[0] - x[1]

    def calc_derivative(self, deriv_components, x):
        return 1.0 if deriv_components == [0] else -1.0

    def get_argument_size(self):
        return 2

    def get_max_derivative_order(self):
        return 1


def tree():
    """Pin on Ground, Gimbal on it (N not the identity), and a tilted Slider on Ground."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_x(0.3)), LINK,
                               kt.Transform([0, 0.6, 0]))
    gimbal = kt.MobilizedBody.Gimbal(pin, kt.Transform([0.1, -0.2, 0]), LINK,
                                     kt.Transform([0, 0.5, 0.1]))
    slider = kt.MobilizedBody.Slider(matter.Ground(),
                                     kt.Transform(kt.Rotation.about_z(-0.5), [1, 0, 0]), LINK,
                                     kt.Transform())
    kt.Force.MobilityLinearSpring(forces, slider, 0, 20.0, 0.1)
    return system, matter, forces, {"pin": pin, "gimbal": gimbal, "slider": slider}


def coordinate_coupler():
    system, matter, _, b = tree()
    c = kt.Constraint.CoordinateCoupler(matter, Coupling(), [b["pin"], b["gimbal"],
                                                             b["slider"]], [0, 1, 0])
    return system, matter, [c], b


KNEE = kt.Function.SimmSpline([-1.2, -0.5, 0.0, 0.4, 0.9, 1.4],
                              [0.02, -0.1, 0.05, 0.3, 0.1, -0.2])


def opensim_coupler(python=False):
    """OpenSim's coupler, slider = 0.7 SimmSpline(pin), compiled (or, with ``python``, the
    same function as user code)."""
    system, matter, _, b = tree()
    f = CouplingFunction(KNEE, 0.7, 1)
    c = kt.Constraint.CoordinateCoupler(matter, UserFunction(f) if python else f,
                                        [b["pin"], b["slider"]], [0, 0])
    assert (getattr(c._impl, "CODE", 0) == kt.registry.CONSTRAINTS["coordinate_coupler"]) != python
    return system, matter, [c], b


def speed_coupler():
    system, matter, _, b = tree()
    c = kt.Constraint.SpeedCoupler(matter, SpeedFunction(), [b["pin"], b["gimbal"]], [0, 2],
                                   [b["slider"]], [0])
    return system, matter, [c], b


def prescribed_motion():
    system, matter, _, b = tree()
    c = kt.Constraint.PrescribedMotion(matter, kt.Function.Sinusoid(0.3, 2.0, 0.1),
                                       b["gimbal"], 1)
    return system, matter, [c], b


def constant_speed():
    system, matter, _, b = tree()
    cs = [kt.Constraint.ConstantSpeed(b["gimbal"], 1, 0.7),
          kt.Constraint.ConstantSpeed(b["pin"], -0.4)]
    return system, matter, cs, b


def constant_acceleration():
    system, matter, _, b = tree()
    cs = [kt.Constraint.ConstantAcceleration(b["slider"], 2.0),
          kt.Constraint.ConstantAcceleration(b["gimbal"], 2, -1.5)]
    return system, matter, cs, b


def no_slip(case="ground"):
    """A NoSlip1D among the tree's bodies with the case Ground, the Pin (the ancestor of
    the moving Gimbal), a moving body itself, or a sibling of both (the Slider)."""
    system, matter, _, b = tree()
    p_C, n_C = [0.1, 0.2, 0.3], [0.3, 1.0, 0.2]
    if case == "ground":
        c = kt.Constraint.NoSlip1D(matter.Ground(), p_C, n_C, b["gimbal"], b["slider"])
    elif case == "ancestor":
        c = kt.Constraint.NoSlip1D(b["pin"], p_C, n_C, b["gimbal"], b["slider"])
    elif case == "moving":
        c = kt.Constraint.NoSlip1D(b["gimbal"], p_C, n_C, b["gimbal"], b["slider"])
    else:
        c = kt.Constraint.NoSlip1D(b["slider"], p_C, n_C, b["gimbal"], b["pin"])
    return system, matter, [c], b


MODELS = {
    "CoordinateCoupler": coordinate_coupler,
    "CoordinateCoupler-compiled": opensim_coupler,
    "SpeedCoupler": speed_coupler,
    "PrescribedMotion": prescribed_motion,
    "ConstantSpeed": constant_speed,
    "ConstantAcceleration": constant_acceleration,
    "NoSlip1D-ground-case": lambda: no_slip("ground"),
    "NoSlip1D-ancestor-case": lambda: no_slip("ancestor"),
    "NoSlip1D-moving-case": lambda: no_slip("moving"),
    "NoSlip1D-sibling-case": lambda: no_slip("sibling"),
}


def random_state(system, seed, t=0.37):
    rng = np.random.default_rng(seed)
    state = system.realize_topology()
    state.set_time(t)
    state.set_q(state.get_q() + rng.uniform(-0.4, 0.4, len(state.get_q())))
    state.set_u(rng.uniform(-1, 1, len(state.get_u())))
    return state


def applied_forces(matter, state):
    """The applied body and mobility forces of the state (realized to DYNAMICS)."""
    return np.array(matter.upd_mobility_forces(state)), np.array(matter.upd_body_forces(state))


def kkt(matter, state):
    """u̇ and λ from [[M, Gᵀ], [G, 0]] [u̇; λ] = [f - c; b], M by CRBA, f - c by inverse
    dynamics, G column by column and b = -bias."""
    n = len(state.get_u())
    f, F = applied_forces(matter, state)
    f_minus_c = -matter.calc_residual_force_ignoring_constraints(state, f, F, np.zeros(n))
    M, G = matter.calc_m(state), matter.calc_g(state)
    b = -matter.calc_bias_for_multiply_by_g(state)
    m = G.shape[0]
    K = np.block([[M, G.T], [G, np.zeros((m, m))]])
    sol = np.linalg.solve(K, np.concatenate([f_minus_c, b]))
    return sol[:n], sol[n:]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("name", MODELS)
def test_projection_then_accelerations_solve_the_kkt_system(name, seed):
    system, matter, constraints, _ = MODELS[name]()
    state = random_state(system, seed)
    system.project(state, 1e-12)
    system.realize(state, kt.Stage.ACCELERATION)
    assert np.abs(state.get_q_err()).max(initial=0) < 1e-11
    assert np.abs(state.get_u_err()).max(initial=0) < 1e-11
    udot, lam = kkt(matter, state)
    scale = max(1.0, np.abs(udot).max())
    np.testing.assert_allclose(state.get_u_dot(), udot, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(state.get_multipliers(), lam, rtol=0,
                               atol=1e-9 * max(1.0, np.abs(lam).max()))
    assert np.abs(state.get_u_dot_err()).max() < 1e-10 * scale
    got = np.concatenate([c.get_multipliers_as_vector(state) for c in constraints])
    np.testing.assert_allclose(got, lam, rtol=0, atol=1e-9 * max(1.0, np.abs(lam).max()))


@pytest.mark.parametrize("name", MODELS)
def test_each_error_level_is_the_time_derivative_of_the_one_below(name):
    """Along t + s, q + s q̇, u + s x for an arbitrary x (not the solved u̇): d/ds perr =
    pverr, d/ds pverr = paerr and d/ds verr = vaerr, with the acceleration errors at u̇ = x
    from G x + bias. NoSlip1D's vaerr is Simbody's, not the derivative where the contact
    point moves over the bodies (test_no_slip_is_simbodys_... in test_check_constraint.py;
    the port of Simbody's test checks it against the material points' accelerations)."""
    system, matter, _, _ = MODELS[name]()
    state = random_state(system, 11)       # not projected: the errors are not zero
    system.realize(state, kt.Stage.VELOCITY)
    mp, nv = state.get_num_q_err(), state.get_num_u_err()
    x = np.random.default_rng(12).uniform(-1, 1, len(state.get_u()))
    udoterr = matter.multiply_by_g(state, x) + matter.calc_bias_for_multiply_by_g(state)
    qdot = np.array(state.get_q_dot())

    def errors(s):
        moved = state.copy()
        moved.set_time(state.get_time() + s)
        moved.set_q(state.get_q() + s * qdot)
        moved.set_u(state.get_u() + s * x)
        system.realize(moved, kt.Stage.VELOCITY)
        return np.array(moved.get_q_err()), np.array(moved.get_u_err())

    h = 1e-5
    (p_plus, v_plus), (p_minus, v_minus) = errors(h), errors(-h)
    np.testing.assert_allclose((p_plus - p_minus) / (2 * h), state.get_u_err()[:mp],
                               rtol=0, atol=1e-8)
    if not name.startswith("NoSlip1D"):
        np.testing.assert_allclose((v_plus - v_minus) / (2 * h), udoterr[:nv], rtol=0,
                                   atol=1e-8)
    if name == "ConstantAcceleration":    # acceleration-only: aerr = u̇ᵢ - a, off x
        which = [(b, i, c.get_acceleration(state)) for c, b, i in
                 zip(*_constant_accelerations(matter))]
        expected = [float(x[_u_index(state, b, i)]) - a for b, i, a in which]
        np.testing.assert_allclose(udoterr, expected, rtol=0, atol=1e-12)


def _constant_accelerations(matter):
    cs = [matter.get_constraint(i) for i in range(matter.get_num_constraints())]
    bodies = [matter.get_mobilized_body(c.get_mobilized_body_index()) for c in cs]
    return cs, bodies, [c.get_which_u() for c in cs]


def _u_index(state, mobod, which):
    """Global index of u number ``which`` of ``mobod``."""
    probe = state.copy()
    probe.set_u(np.zeros(len(state.get_u())))
    mobod.set_one_u(probe, which, 1.0)
    return int(np.flatnonzero(probe.get_u())[0])


# ------------------------------------------------------------ short simulations
RK4 = ((0.0, 1 / 6), (0.5, 1 / 3), (0.5, 1 / 3), (1.0, 1 / 6))


def rk4_run(system, state, h, steps, check):
    """Fixed-step RK4 with projection after each step; ``check(state)`` after each."""
    system.project(state, 1e-12)
    system.realize(state, kt.Stage.ACCELERATION)
    check(state)
    for _ in range(steps):
        y0, t0 = state.get_y().copy(), state.get_time()
        slopes = []
        for c, _ in RK4:
            if slopes:
                state.set_y(y0 + c * h * slopes[-1])
            state.set_time(t0 + c * h)
            system.realize(state, kt.Stage.ACCELERATION)
            slopes.append(np.asarray(state.get_y_dot()).copy())
        state.set_time(t0 + h)
        state.set_y(y0 + h * sum(w * s for (_, w), s in zip(RK4, slopes)))
        system.project(state, 1e-12)
        system.realize(state, kt.Stage.ACCELERATION)
        check(state)
    return state


def test_coupled_coordinates_stay_equal_and_the_nonlinear_coupling_holds():
    system, matter, _, b = tree()
    equal = kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1, -1, 0]),
                                            [b["pin"], b["gimbal"]], [0, 2])
    coupling = kt.Constraint.CoordinateCoupler(matter, Coupling(),
                                               [b["pin"], b["gimbal"], b["slider"]],
                                               [0, 1, 0])
    state = random_state(system, 3, t=0.0)
    f = Coupling()
    seen = []

    def check(s):
        q_pin, q_g = b["pin"].get_one_q(s, 0), b["gimbal"].get_q(s)
        assert abs(q_pin - q_g[2]) < 1e-11
        assert abs(f.calc_value([q_pin, q_g[1], b["slider"].get_one_q(s, 0)])) < 1e-11
        assert abs(b["pin"].get_one_u(s, 0) - s.get_q_dot()[_q_index(s, b["gimbal"], 2)]) \
            < 1e-9
        seen.append(q_pin)

    rk4_run(system, state, 5e-3, 60, check)
    assert np.ptp(seen) > 0.05           # it did move
    assert equal.get_position_errors_as_vector(state).shape == (1,)
    assert coupling.get_num_constrained_mobilizers() == 3
    assert isinstance(equal, kt.Constraint.Custom)


def _q_index(state, mobod, which):
    probe = state.copy()
    probe.set_q(np.zeros(len(state.get_q())))
    mobod.set_one_q(probe, which, 1.0)
    return int(np.flatnonzero(probe.get_q())[0])


@pytest.mark.parametrize("seed", range(3))
def test_a_compiled_coupler_gives_the_python_couplers_results(seed):
    """The compiled equations (the spline as a table, q and u read by the kernels) against
    the same coupling evaluated by the Python constraint pass: errors, u̇, multipliers and
    the projection agree to round-off."""
    results = []
    for python in (False, True):
        system, matter, constraints, _ = opensim_coupler(python)
        state = random_state(system, seed)
        system.realize(state, kt.Stage.ACCELERATION)
        before = (state.get_q_err().copy(), state.get_u_err().copy(),
                  state.get_u_dot().copy(), state.get_multipliers().copy())
        system.project(state, 1e-12)
        system.realize(state, kt.Stage.ACCELERATION)
        results.append((*before, state.get_q().copy(), state.get_u_dot().copy()))
    assert abs(results[0][0][0]) > 1e-3          # the random state violates the coupling
    for compiled, python in zip(*results):
        np.testing.assert_allclose(compiled, python, rtol=1e-12, atol=1e-12)


def test_speed_coupler_keeps_its_relation_while_q_changes():
    system, matter, (c,), b = speed_coupler()
    state = random_state(system, 4, t=0.0)
    qs = []

    def check(s):
        u = [b["pin"].get_one_u(s, 0), b["gimbal"].get_one_u(s, 2)]
        q = b["slider"].get_one_q(s, 0)
        assert abs(u[0] - math.cos(q) * u[1] - 0.2) < 1e-11
        assert abs(c.get_velocity_errors_as_vector(s)[0]) < 1e-11
        qs.append(q)

    rk4_run(system, state, 5e-3, 60, check)
    assert np.ptp(qs) > 0.01
    # only the speeds are constrained mobilizers; the coupling coordinate is read
    assert c.get_num_constrained_mobilizers() == 2
    assert c.get_constrained_mobility_forces_as_vector(state).shape == (1 + 3,)


def test_prescribed_motion_follows_f_and_its_force_is_the_inverse_dynamics_force():
    system, matter, (c,), b = prescribed_motion()
    f = kt.Function.Sinusoid(0.3, 2.0, 0.1)
    state = random_state(system, 5, t=0.0)
    g = _u_index(state, b["gimbal"], 1)
    forces_seen = []

    def check(s):
        t = np.array([s.get_time()])
        assert abs(b["gimbal"].get_one_q(s, 1) - f.calc_value(t)) < 1e-11
        assert abs(b["gimbal"].get_q_dot(s)[1] - f.calc_derivative([0], t)) < 1e-10
        # the q̈ of the prescribed coordinate is f''(t)
        assert abs(s.get_q_dot_dot()[_q_index(s, b["gimbal"], 1)]
                   - f.calc_derivative([0, 0], t)) < 1e-9
        # inverse dynamics with the solved u̇: the residual M u̇ - f is the force the
        # constraint applies, -Gᵀλ, alone
        mobility, body = applied_forces(matter, s)
        residual = matter.calc_residual_force_ignoring_constraints(s, mobility, body, s.get_u_dot())
        driving = c.get_constrained_mobility_forces_as_vector(s)   # the gimbal's 3 u: Gᵀλ
        gimbal_u = [_u_index(s, b["gimbal"], k) for k in range(3)]
        np.testing.assert_allclose(residual[gimbal_u], -driving, rtol=0, atol=1e-9)
        others = np.delete(residual, gimbal_u)
        assert np.abs(others).max() < 1e-9
        assert np.abs(c.get_constrained_body_forces_as_vector(s)).max(initial=0) == 0
        forces_seen.append(residual[g])

    rk4_run(system, state, 5e-3, 60, check)
    assert np.ptp(forces_seen) > 0.1


def test_prescribed_pendulum_torque_is_the_analytic_one():
    """A pendulum (m = 2 kg at l = 0.8 m, I_com = 0.01 kg m² about z) driven through
    θ(t) = 0.5 sin(3t + 0.2): the torque is τ = (I_com + m l²) θ̈ + m g l sin θ."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    bob = kt.Body.Rigid(kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(0.01, 0.01, 0.01)))
    pendulum = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), bob,
                                    kt.Transform([0, 0.8, 0]))
    f = kt.Function.Sinusoid(0.5, 3.0, 0.2)
    drive = kt.Constraint.PrescribedMotion(matter, f, pendulum.get_mobilized_body_index(), 0)

    def check(s):
        t = [s.get_time()]
        theta, theta_dd = f.calc_value(t), f.calc_derivative([0, 0], t)
        tau = (0.01 + 2.0 * 0.8 ** 2) * theta_dd + 2.0 * 9.81 * 0.8 * math.sin(theta)
        assert pendulum.get_one_q(s, 0) == pytest.approx(theta, abs=1e-11)
        assert pendulum.get_one_u_dot(s, 0) == pytest.approx(theta_dd, abs=1e-9)
        assert -drive.get_constrained_mobility_forces_as_vector(s)[0] == \
            pytest.approx(tau, abs=1e-9)
        # and by inverse dynamics with the prescribed θ̈, independent of the solve
        mobility, body = applied_forces(matter, s)
        residual = matter.calc_residual_force_ignoring_constraints(s, mobility, body,
                                                                   [theta_dd])
        assert residual[0] == pytest.approx(tau, abs=1e-9)

    rk4_run(system, system.realize_topology(), 1e-2, 30, check)


def test_constant_speed_holds_each_speed_and_state_values_override_the_default():
    system, matter, (c1, c2), b = constant_speed()
    assert (c1.get_which_u(), c1.get_default_speed()) == (1, 0.7)
    assert (c2.get_which_u(), c2.get_default_speed()) == (0, -0.4)
    assert c1.get_mobilized_body_index() == b["gimbal"].get_mobilized_body_index()
    state = random_state(system, 6, t=0.0)
    assert c1.get_speed(state) == 0.7
    c1.set_speed(state, 1.1)                # this State only
    assert state.get_system_stage() < kt.Stage.VELOCITY

    def check(s):
        assert abs(b["gimbal"].get_one_u(s, 1) - 1.1) < 1e-12
        assert abs(b["pin"].get_one_u(s, 0) + 0.4) < 1e-12
        assert abs(c1.get_velocity_error(s)) < 1e-12
        assert abs(c1.get_acceleration_error(s)) < 1e-9
        assert abs(s.get_u_dot()[_u_index(s, b["gimbal"], 1)]) < 1e-9

    rk4_run(system, state, 5e-3, 40, check)
    # the constraint's generalized force on the held mobility is Gᵀλ = λ
    forces = c1.get_constrained_mobility_forces_as_vector(state)
    assert forces[1] == pytest.approx(c1.get_multiplier(state), abs=1e-12)
    c1.set_default_speed(0.25)
    assert c1.get_speed(system.realize_topology()) == 0.25


def test_constant_acceleration_gives_exactly_that_udot():
    system, matter, (c1, c2), b = constant_acceleration()
    state = random_state(system, 7, t=0.0)
    u_slider0, u_g0 = b["slider"].get_one_u(state, 0), b["gimbal"].get_one_u(state, 2)
    c2.set_acceleration(state, -1.25)
    assert (c2.get_acceleration(state), c2.get_default_acceleration()) == (-1.25, -1.5)

    def check(s):
        assert abs(b["slider"].get_one_u_dot(s, 0) - 2.0) < 1e-12
        assert abs(b["gimbal"].get_one_u_dot(s, 2) + 1.25) < 1e-12
        assert abs(c1.get_acceleration_error(s)) < 1e-12

    rk4_run(system, state, 5e-3, 40, check)
    t = state.get_time()
    assert b["slider"].get_one_u(state, 0) == pytest.approx(u_slider0 + 2.0 * t, abs=1e-12)
    assert b["gimbal"].get_one_u(state, 2) == pytest.approx(u_g0 - 1.25 * t, abs=1e-12)
    assert c1.get_constrained_mobility_forces_as_vector(state)[0] == \
        pytest.approx(c1.get_multiplier(state), abs=1e-12)
    # no position or velocity equations: nothing to project
    assert state.get_num_q_err() == state.get_num_u_err() == 0
    c1.set_default_acceleration(0.5)
    assert c1.get_acceleration(system.realize_topology()) == 0.5


def gears():
    """Two spur gears (radii 0.5 m and 0.3 m) on Pins about z in a gearbox that swings on a
    Pin about x under gravity; they mesh at the pitch point P on the gearbox, n along the
    common tangent. Gear 0 is driven by a constant torque."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    box = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_y(math.pi / 2)),
                               LINK, kt.Transform([0, 0.8, 0]))
    disk = kt.Body.Rigid(kt.MassProperties(0.5, [0, 0, 0], kt.Inertia(0.02, 0.02, 0.04)))
    gear0 = kt.MobilizedBody.Pin(box, kt.Transform(), disk, kt.Transform())
    gear1 = kt.MobilizedBody.Pin(box, kt.Transform([0.8, 0, 0]), disk, kt.Transform())
    kt.Force.MobilityConstantForce(forces, gear0, 0, 0.3)
    mesh = kt.Constraint.NoSlip1D(box, [0.5, 0, 0], [0, 1, 0], gear0, gear1)
    return system, matter, mesh, box, gear0, gear1


def test_meshing_gears_do_not_slip_and_turn_in_the_gear_ratio():
    system, matter, mesh, box, gear0, gear1 = gears()
    state = system.realize_topology()
    box.set_one_q(state, 0, 0.5)
    gear0.set_one_u(state, 0, 2.0)          # projection gives gear 1 its speed
    omegas = []

    def check(s):
        P_G = box.find_station_location_in_ground(s, [0.5, 0, 0])
        n_G = box.get_body_rotation(s).as_matrix() @ [0, 1, 0]
        v0 = gear0.find_station_velocity_in_ground(
            s, gear0.get_body_transform(s).shift_base_station_to_frame(P_G))
        v1 = gear1.find_station_velocity_in_ground(
            s, gear1.get_body_transform(s).shift_base_station_to_frame(P_G))
        assert abs((v1 - v0) @ n_G) < 1e-11                 # no slip
        assert abs(0.5 * gear0.get_one_u(s, 0) + 0.3 * gear1.get_one_u(s, 0)) < 1e-11
        # the force on gear 1 is along n at P, equal and opposite on gear 0
        F = mesh.get_constrained_body_forces_as_vector(s)   # box, gear0, gear1
        assert np.abs(F[0]).max() == 0
        np.testing.assert_allclose(F[1, 3:], -F[2, 3:], atol=1e-12)
        # Gᵀλ, the opposite of the force the constraint applies to gear 1
        assert F[2, 3:] @ n_G == pytest.approx(-mesh.get_force_at_contact_point(s),
                                               abs=1e-12)
        omegas.append(gear0.get_one_u(s, 0))

    rk4_run(system, state, 5e-3, 60, check)
    assert omegas[-1] - omegas[0] > 0.1       # the torque spun them up
    assert mesh.get_velocity_error(state) == pytest.approx(0, abs=1e-11)


def test_rack_and_pinion_rolls():
    """A pinion (radius 0.2 m) on a Pin about z drives a rack on a Slider along x; the case
    is Ground, P the pinion's lowest point, n along the rack."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    disk = kt.Body.Rigid(kt.MassProperties(0.5, [0, 0, 0], kt.Inertia(0.01, 0.01, 0.01)))
    pinion = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0, 0.2, 0]), disk,
                                  kt.Transform())
    rack = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), LINK, kt.Transform())
    kt.Force.MobilityConstantForce(forces, pinion, 0, -0.4)
    kt.Constraint.NoSlip1D(matter.Ground(), [0, 0, 0], [1, 0, 0], pinion, rack)
    state = system.realize_topology()
    pinion.set_one_u(state, 0, -1.0)

    def check(s):
        # the pinion's lowest point moves at ω ẑ × (-r ŷ) = ω r x̂; the rack moves with it
        assert abs(rack.get_one_u(s, 0) - 0.2 * pinion.get_one_u(s, 0)) < 1e-11

    rk4_run(system, state, 5e-3, 40, check)
    assert rack.get_one_u(state, 0) < -0.2      # the torque drove both faster


def test_no_slip_contact_info_is_per_state_and_normalized():
    system, matter, (c,), b = no_slip("ancestor")
    assert c.get_case_mobilized_body_index() == b["pin"].get_mobilized_body_index()
    assert c.get_moving_body_mobilized_body_index(0) == b["gimbal"].get_mobilized_body_index()
    assert c.get_moving_body_mobilized_body_index(1) == b["slider"].get_mobilized_body_index()
    n = np.array([0.3, 1.0, 0.2])
    np.testing.assert_allclose(c.get_default_direction(), n / np.linalg.norm(n))
    state = random_state(system, 8)
    system.realize(state, kt.Stage.VELOCITY)
    before = c.get_velocity_error(state)
    c.set_direction(state, [0, 0, 3])
    assert state.get_system_stage() < kt.Stage.INSTANCE
    np.testing.assert_allclose(c.get_direction(state), [0, 0, 1])
    c.set_contact_point(state, [0.2, 0, 0])
    np.testing.assert_allclose(c.get_contact_point(state), [0.2, 0, 0])
    np.testing.assert_allclose(c.get_direction(state), [0, 0, 1])
    system.realize(state, kt.Stage.VELOCITY)
    assert c.get_velocity_error(state) != pytest.approx(before)
    fresh = system.realize_topology()            # a new State starts from the defaults
    np.testing.assert_allclose(c.get_contact_point(fresh), [0.1, 0.2, 0.3])
    with pytest.raises(InvalidArgumentError, match="which must be 0 or 1"):
        c.get_moving_body_mobilized_body_index(2)


# ---------------------------------------------------------------- bad input
def test_bad_arguments_are_refused_naming_the_constraint_and_the_fix():
    system, matter, _, b = tree()
    pin, gimbal = b["pin"], b["gimbal"]
    with pytest.raises(InvalidArgumentError, match="CoordinateCoupler.*takes 1 argument"):
        kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1, 0]), [pin, gimbal],
                                        [0, 0])
    with pytest.raises(InvalidArgumentError, match="up to order 1.*>= 2"):
        kt.Constraint.CoordinateCoupler(matter, FirstOrderOnly(), [pin, gimbal], [0, 0])
    with pytest.raises(InvalidArgumentError, match="2 entries but coord_index has 1"):
        kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1, -1, 0]),
                                        [pin, gimbal], [0])
    with pytest.raises(InvalidArgumentError, match=r"coord_index\[0\] is 1.*only 1 q"):
        kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1, -1, 0]),
                                        [pin, gimbal], [1, 0])
    with pytest.raises(InvalidArgumentError, match="must be a kt.Function"):
        kt.Constraint.CoordinateCoupler(matter, lambda x: x[0], [pin], [0])
    with pytest.raises(InvalidArgumentError, match="MobilizedBodyIndex 99"):
        kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1, 0]), [99], [0])
    with pytest.raises(InvalidArgumentError, match="SpeedCoupler.*2 speed.*1 coordinate"):
        kt.Constraint.SpeedCoupler(matter, kt.Function.Linear([1, -1, 0]), [pin, gimbal],
                                   [0, 0], [pin], [0])
    with pytest.raises(InvalidArgumentError, match="both coord_body and coord_index"):
        kt.Constraint.SpeedCoupler(matter, kt.Function.Linear([1, 0]), [pin], [0], [pin])
    with pytest.raises(InvalidArgumentError, match="PrescribedMotion.*takes 2 argument"):
        kt.Constraint.PrescribedMotion(matter, kt.Function.Linear([1, 1, 0]), pin, 0)
    with pytest.raises(InvalidArgumentError, match=r"ConstantSpeed.*which_u is 3.*only 3 u"):
        kt.Constraint.ConstantSpeed(gimbal, 3, 1.0)
    with pytest.raises(InvalidArgumentError, match="ConstantSpeed.*Ground.*has no u"):
        kt.Constraint.ConstantSpeed(matter.Ground(), 1.0)
    with pytest.raises(InvalidArgumentError, match="ConstantAcceleration.*finite"):
        kt.Constraint.ConstantAcceleration(pin, float("nan"))
    with pytest.raises(InvalidArgumentError, match="ConstantSpeed.*call it as"):
        kt.Constraint.ConstantSpeed(pin)
    with pytest.raises(InvalidArgumentError, match="NoSlip1D.*nonzero direction"):
        kt.Constraint.NoSlip1D(matter.Ground(), [0, 0, 0], [0, 0, 0], pin, gimbal)
    with pytest.raises(InvalidArgumentError, match="NoSlip1D.*same body"):
        kt.Constraint.NoSlip1D(matter.Ground(), [0, 0, 0], [1, 0, 0], pin, pin)
    assert matter.get_num_constraints() == 0      # nothing half-built was adopted


def test_a_q_index_valid_only_with_quaternions_is_refused_at_instance():
    system, matter, _, b = tree()
    ball = kt.MobilizedBody.Ball(b["pin"], kt.Transform(), LINK, kt.Transform([0, 0.3, 0]))
    kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1, -1, 0]),
                                    [ball, b["pin"]], [3, 0])
    state = system.realize_topology()
    system.realize(state, kt.Stage.INSTANCE)       # quaternions: 4 q, index 3 is fine
    matter.set_use_euler_angles(state, True)
    with pytest.raises(InvalidArgumentError, match=r"coord_index\[0\] is 3.*3 q in this"):
        system.realize(state, kt.Stage.INSTANCE)


def test_single_value_getters_of_a_disabled_constraint_say_so():
    system, matter, (c1, _), _ = constant_speed()
    state = system.realize_topology()
    c1.disable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    with pytest.raises(InvalidArgumentError, match="disabled in this State"):
        c1.get_multiplier(state)


def test_the_example_keeps_the_coordinates_equal():
    example = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" /
                                 "coordinate_coupler.py"))
    for worst, q1, q2 in example["main"](t_final=0.5, quiet=True):
        assert worst < 1e-12 and q1 == pytest.approx(q2, abs=1e-12)
    assert sys.maxsize == example["ConstraintFunction"]().get_max_derivative_order()
