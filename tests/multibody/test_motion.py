"""Prescribed motion: locks and Motions, checked against the partitioned equations of
motion solved densely, closed forms of the prescribed signals, and conservation laws.

With the prescribed mobilities p known (u̇_p), the free ones f obey
M_ff u̇_f = (f - c)_f - M_fp u̇_p and the motion forces are τ_p = M_pf u̇_f + M_pp u̇_p -
(f - c)_p; f - c = M u̇ of the same State with every mobilizer free (and no constraint).
"""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

LEVEL = kt.Motion.Level


def chain(n=3, spring=True):
    """n pins in a vertical plane under gravity, a linear spring on the second one."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.3, [0.1, -0.2, 0.05], kt.Inertia(0.2, 0.1, 0.15)))
    mobods, parent = [], matter.Ground()
    for i in range(n):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform([0, -0.2 * (i > 0), 0]), body,
                                      kt.Transform([0, 0.8, 0]))
        mobods.append(parent)
    if spring:
        kt.Force.MobilityLinearSpring(forces, mobods[1], 0, 7.0, 0.2)
    return system, matter, mobods


def start(system, matter, q, u):
    state = system.realize_topology()
    system.realize_model(state)
    matter.upd_q(state)[:] = q
    matter.upd_u(state)[:] = u
    return state


def free_rhs(system, matter, state, constraints=()):
    """f - c = M u̇ of ``state`` with every mobilizer free and ``constraints`` disabled."""
    free = state.copy()
    for mobod in matter._bodies[1:]:
        mobod.unlock(free)
    for m in matter._motions.values():
        m.disable(free)
    for c in constraints:
        c.disable(free)
    q, u = matter.get_q(state).copy(), matter.get_u(state).copy()
    system.realize(free, kt.Stage.ACCELERATION)
    free_q, free_u = matter.get_q(free), matter.get_u(free)
    assert np.array_equal(free_q, q) and np.array_equal(free_u, u)
    M = matter.calc_m(free)
    return M, M @ matter.get_u_dot(free)


def partitioned(M, rhs, p, udot_p):
    """(u̇, τ) of the partitioned equations, prescribed indices p with accelerations
    udot_p."""
    n = len(rhs)
    f = [i for i in range(n) if i not in p]
    udot = np.zeros(n)
    udot[p] = udot_p
    udot[f] = np.linalg.solve(M[np.ix_(f, f)], rhs[f] - M[np.ix_(f, p)] @ udot[p])
    tau = np.zeros(n)
    tau[p] = M[p] @ udot - rhs[p]
    return udot, tau


@pytest.mark.parametrize("level", [LEVEL.POSITION, LEVEL.VELOCITY, LEVEL.ACCELERATION])
def test_lock_solves_the_partitioned_equations(level):
    system, matter, (b1, b2, b3) = chain()
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    b2.lock_at(state, 0.7, level)
    system.realize(state, kt.Stage.ACCELERATION)
    M, rhs = free_rhs(system, matter, state)
    udot_p = 0.7 if level == LEVEL.ACCELERATION else 0.0
    udot, tau = partitioned(M, rhs, [1], [udot_p])
    assert np.allclose(matter.get_u_dot(state), udot, rtol=1e-12, atol=1e-12)
    assert np.allclose(matter.find_motion_forces(state), tau, rtol=1e-12, atol=1e-12)
    assert b2.get_one_tau(state, 0) == pytest.approx(tau[1], rel=1e-12)
    assert np.allclose(matter.get_motion_multipliers(state), tau[[1]], rtol=1e-12)
    assert b1.get_tau_as_vector(state)[0] == 0.0
    expected_q, expected_u = {LEVEL.POSITION: (0.7, 0.0), LEVEL.VELOCITY: (-0.2, 0.7),
                              LEVEL.ACCELERATION: (-0.2, 0.4)}[level]
    assert b2.get_one_q(state, 0) == expected_q and b2.get_one_u(state, 0) == expected_u
    assert b2.get_lock_level(state) == level and b2.is_locked(state)


def test_mass_matrix_inverse_with_a_lock_is_the_free_blocks():
    system, matter, (b1, b2, b3) = chain()
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    b2.lock(state)
    system.realize(state, kt.Stage.ACCELERATION)
    M = matter.calc_m(state)
    v = np.array([1.0, -2.0, 3.0])
    expected = np.zeros(3)
    expected[[0, 2]] = np.linalg.solve(M[np.ix_([0, 2], [0, 2])], v[[0, 2]])
    assert np.allclose(matter.multiply_by_m_inv(state, v), expected, rtol=1e-12, atol=1e-14)


def simulate(system, state, t_final, accuracy=1e-9):
    integrator = kt.RungeKuttaMersonIntegrator(system)
    integrator.set_accuracy(accuracy)
    stepper = kt.TimeStepper(system, integrator)
    stepper.initialize(state)
    stepper.step_to(t_final)
    return integrator.get_state()


def energy(system, matter, state):
    system.realize(state, kt.Stage.DYNAMICS)
    return system.calc_energy(state)


def test_position_lock_holds_q_exactly_and_conserves_energy():
    system, matter, (b1, b2, b3) = chain()
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    b2.lock(state)
    e0 = energy(system, matter, state)
    end = simulate(system, state, 2.0)
    assert b2.get_one_q(end, 0) == -0.2 and b2.get_one_u(end, 0) == 0.0
    assert energy(system, matter, end) == pytest.approx(e0, rel=1e-6)
    assert abs(b1.get_one_q(end, 0) - 0.3) > 1e-2      # the others moved


def test_velocity_and_acceleration_locks_integrate_as_their_closed_forms():
    system, matter, (b1, b2, b3) = chain()
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    b2.lock_at(state, 1.5, LEVEL.VELOCITY)
    b3.lock_at(state, -0.8, LEVEL.ACCELERATION)
    end = simulate(system, state, 1.25)
    t = end.get_time()
    assert t == pytest.approx(1.25)
    assert b2.get_one_u(end, 0) == 1.5
    assert b2.get_one_q(end, 0) == pytest.approx(-0.2 + 1.5 * t, rel=1e-10)
    assert b3.get_one_u(end, 0) == pytest.approx(-0.3 - 0.8 * t, rel=1e-10)
    assert b3.get_one_q(end, 0) == pytest.approx(0.5 - 0.3 * t - 0.4 * t * t, rel=1e-9)


@pytest.mark.parametrize("level", [LEVEL.POSITION, LEVEL.VELOCITY, LEVEL.ACCELERATION])
def test_sinusoid_follows_its_closed_form(level):
    system, matter, (b1, b2, b3) = chain()
    a, w, phase = 0.4, 3.0, 0.25
    kt.Motion.Sinusoid(b3, level, a, w, phase)
    s0 = a * math.sin(phase)
    q0, u0 = {LEVEL.POSITION: (s0, a * w * math.cos(phase)),
              LEVEL.VELOCITY: (0.1, s0), LEVEL.ACCELERATION: (0.1, 0.2)}[level]
    state = start(system, matter, [0.3, -0.2, q0], [0.1, 0.4, u0])
    end = simulate(system, state, 1.1)
    t = end.get_time()
    system.realize(end, kt.Stage.ACCELERATION)
    x = w * t + phase
    signal = [a * math.sin(x), a * w * math.cos(x), -a * w * w * math.sin(x)]
    got = [b3.get_one_q(end, 0), b3.get_one_u(end, 0), b3.get_one_u_dot(end, 0)]
    known = {LEVEL.POSITION: 3, LEVEL.VELOCITY: 2, LEVEL.ACCELERATION: 1}[level]
    for k in range(3 - known, 3):
        assert got[k] == pytest.approx(signal[k - (3 - known)], rel=1e-12, abs=1e-12)
    if level == LEVEL.VELOCITY:     # q integrates u = a sin(ω t + φ)
        assert got[0] == pytest.approx(0.1 + a / w * (math.cos(phase) - math.cos(x)),
                                       rel=1e-8)
    if level == LEVEL.ACCELERATION:
        integral = a / w * (math.cos(phase) - math.cos(x))
        assert got[1] == pytest.approx(0.2 + integral, rel=1e-8)
    M, rhs = free_rhs(system, matter, end)
    _, tau = partitioned(M, rhs, [2], [matter.get_u_dot(end)[2]])
    assert np.allclose(matter.find_motion_forces(end), tau, rtol=1e-10, atol=1e-12)
    assert np.allclose(matter.calc_motion_errors(end, kt.Stage.ACCELERATION), 0.0)


def test_steady_motion_and_its_per_state_rate():
    system, matter, (b1, b2, b3) = chain()
    steady = kt.Motion.Steady(b1, 0.5)
    state = start(system, matter, [0.3, -0.2, 0.5], [0.0, 0.4, -0.3])
    steady.set_rate(state, -1.25)
    assert steady.get_one_rate(state, 0) == -1.25 and steady.get_one_default_rate(0) == 0.5
    end = simulate(system, state, 0.8)
    assert b1.get_one_u(end, 0) == -1.25
    assert b1.get_one_q(end, 0) == pytest.approx(0.3 - 1.25 * 0.8, rel=1e-10)
    assert steady.get_level(end) == LEVEL.VELOCITY


class ConstantAcceleration(kt.Motion.Custom.Implementation):
    def __init__(self, value):
        self.value = value
        self.calls = 0

    def get_level(self, state):
        return kt.Motion.Level.ACCELERATION

    def calc_prescribed_acceleration(self, state):
        self.calls += 1
        return [self.value]


class CustomSinusoid(kt.Motion.Custom.Implementation):
    def get_level(self, state):
        return kt.Motion.Level.POSITION

    def calc_prescribed_position(self, state):
        return [0.4 * math.sin(3.0 * state.get_time() + 0.25)]

    def calc_prescribed_position_dot(self, state):
        return [1.2 * math.cos(3.0 * state.get_time() + 0.25)]

    def calc_prescribed_position_dot_dot(self, state):
        return [-3.6 * math.sin(3.0 * state.get_time() + 0.25)]


def test_custom_motion_agrees_with_the_built_in_one():
    runs = []
    for make in (lambda b: kt.Motion.Sinusoid(b, LEVEL.POSITION, 0.4, 3.0, 0.25),
                 lambda b: kt.Motion.Custom(b, CustomSinusoid())):
        system, matter, (b1, b2, b3) = chain()
        make(b3)
        state = start(system, matter, [0.3, -0.2, 0.4 * math.sin(0.25)],
                      [0.1, 0.4, 1.2 * math.cos(0.25)])
        end = simulate(system, state, 0.6)
        runs.append(np.concatenate([matter.get_q(end), matter.get_u(end)]))
    assert np.allclose(runs[0], runs[1], rtol=1e-12, atol=1e-12)


def test_custom_acceleration_motion_is_called_and_obeyed():
    system, matter, (b1, b2, b3) = chain()
    impl = ConstantAcceleration(2.0)
    kt.Motion.Custom(b2, impl)
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    system.realize(state, kt.Stage.ACCELERATION)
    assert impl.calls >= 1 and b2.get_one_u_dot(state, 0) == 2.0


def test_lock_overrides_a_motion_and_disable_frees_it():
    system, matter, (b1, b2, b3) = chain()
    motion = kt.Motion.Sinusoid(b2, LEVEL.ACCELERATION, 1.0, 2.0, 0.5)
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    system.realize(state, kt.Stage.ACCELERATION)
    assert b2.get_one_u_dot(state, 0) == pytest.approx(math.sin(0.5))
    b2.lock(state)
    system.realize(state, kt.Stage.ACCELERATION)
    assert b2.get_one_u_dot(state, 0) == 0.0 and b2.get_one_u(state, 0) == 0.0
    b2.unlock(state)
    motion.disable(state)
    assert motion.get_level(state) == LEVEL.NO_LEVEL and motion.is_disabled(state)
    system.realize(state, kt.Stage.ACCELERATION)
    M, rhs = free_rhs(system, matter, state)
    assert np.allclose(matter.get_u_dot(state), np.linalg.solve(M, rhs), rtol=1e-12)
    assert not np.any(matter.find_motion_forces(state))


def test_lock_by_default_takes_the_default_state():
    system, matter, (b1, b2, b3) = chain()
    b3.set_default_q(0.45)
    b3.lock_by_default()
    b1.lock_by_default(LEVEL.ACCELERATION)
    assert b3.is_locked_by_default() and b3.get_lock_by_default_level() == LEVEL.POSITION
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    assert b3.get_lock_value_as_vector(state).tolist() == [0.45]
    assert b3.get_one_u_dot(state, 0) == 0.0 and b1.get_one_u_dot(state, 0) == 0.0
    assert b2.get_one_u_dot(state, 0) != 0.0
    b3.lock_by_default(LEVEL.NO_LEVEL)
    assert not b3.is_locked_by_default()


def test_locks_are_per_state():
    system, matter, (b1, b2, b3) = chain()
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    other = state.copy()
    b2.lock(state)
    assert b2.is_locked(state) and not b2.is_locked(other)
    system.realize(other, kt.Stage.ACCELERATION)
    assert b2.get_one_u_dot(other, 0) != 0.0


def test_motion_errors_measure_a_changed_state():
    system, matter, (b1, b2, b3) = chain()
    kt.Motion.Sinusoid(b3, LEVEL.POSITION, 0.4, 3.0, 0.25)
    state = start(system, matter, [0.3, -0.2, 0.0], [0.1, 0.4, 0.0])
    state.set_time(0.5)
    system.realize(state, kt.Stage.TIME)
    x = 3.0 * 0.5 + 0.25
    assert matter.calc_motion_errors(state, kt.Stage.POSITION) == pytest.approx(
        [-0.4 * math.sin(x)])
    system.realize(state, kt.Stage.POSITION)      # the realization prescribes q
    assert matter.calc_motion_errors(state, kt.Stage.POSITION) == pytest.approx([0.0])
    assert matter.calc_motion_errors(state, kt.Stage.VELOCITY) == pytest.approx(
        [-1.2 * math.cos(x)])


def four_bar():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link,
                                 kt.Transform([0, 0.5, 0]))
    coupler = kt.MobilizedBody.Pin(crank, kt.Transform(), link, kt.Transform([-0.9, 0, 0]))
    rocker = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1.0, 0, 0]), link,
                                  kt.Transform([0, 0.6, 0]))
    ball = kt.Constraint.Ball(coupler, [0, 0, 0], rocker, [0, 0, 0])
    return system, matter, crank, ball


def test_assembly_and_projection_keep_a_locked_q():
    system, matter, crank, ball = four_bar()
    state = system.realize_topology()
    system.realize_model(state)
    crank.lock_at(state, 0.4)
    kt.Assembler(system).set_tolerance(1e-12).assemble(state)
    assert crank.get_one_q(state, 0) == 0.4
    system.realize(state, kt.Stage.POSITION)
    assert np.max(np.abs(matter.get_q_err(state))) < 1e-9
    matter.upd_q(state)[1:] += [0.01, -0.02]
    system.realize(state, kt.Stage.POSITION)
    matter.project_q(state, 1e-10)
    system.realize(state, kt.Stage.POSITION)
    assert crank.get_one_q(state, 0) == 0.4
    assert np.max(np.abs(matter.get_q_err(state))) < 1e-9


def test_loop_with_a_locked_joint_obeys_both():
    """A four-bar closed by a Ball constraint, its crank driven by Motion.Steady: M u̇ +
    Gᵀλ = f - c + τ with τ on the crank only, the loop's acceleration errors zero."""
    system, matter, crank, ball = four_bar()
    kt.Motion.Steady(crank, 2.0)
    state = system.realize_topology()
    system.realize_model(state)
    kt.Assembler(system).assemble(state)
    system.realize(state, kt.Stage.VELOCITY)
    matter.project_u(state, 1e-12)
    assert crank.get_one_u(state, 0) == 2.0
    system.realize(state, kt.Stage.ACCELERATION)
    assert np.max(np.abs(matter.get_u_dot_err(state))) < 1e-10
    M, rhs = free_rhs(system, matter, state, constraints=[ball])
    G = matter.calc_g(state)
    residual = M @ matter.get_u_dot(state) + G.T @ matter.get_multipliers(state) - rhs
    tau = matter.find_motion_forces(state)
    assert np.allclose(residual, tau, rtol=1e-9, atol=1e-9)
    assert tau[0] != 0.0 and tau[1] == 0.0 and tau[2] == 0.0
    end = simulate(system, state, 0.5)
    assert crank.get_one_u(end, 0) == 2.0
    # The crank's q is integrated, not prescribed: the projection of each step's end moves
    # it with the loop's other q, as Simbody's (only a prescribed position holds q still).
    assert crank.get_one_q(end, 0) == pytest.approx(crank.get_one_q(state, 0) + 1.0, abs=2e-5)
    system.realize(end, kt.Stage.POSITION)
    assert np.max(np.abs(matter.get_q_err(end))) < 1e-6


def test_bad_requests_name_the_fix():
    system, matter, (b1, b2, b3) = chain()
    state = start(system, matter, [0.3, -0.2, 0.5], [0.1, 0.4, -0.3])
    with pytest.raises(InvalidArgumentError, match="expected 1 finite"):
        b2.lock_at(state, [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="not a Motion level"):
        b2.lock(state, "sideways")
    kt.Motion.Steady(b2, 1.0)
    with pytest.raises(InvalidArgumentError, match="one Motion"):
        kt.Motion.Sinusoid(b2, LEVEL.POSITION, 1.0, 1.0, 0.0)
    ball_system = kt.MultibodySystem()
    ball_matter = kt.SimbodyMatterSubsystem(ball_system)
    ball = kt.MobilizedBody.Ball(ball_matter.Ground(), kt.Transform(),
                                 kt.Body.Rigid(kt.MassProperties(1, [0, 0, 0], kt.Inertia(1))),
                                 kt.Transform([0, 1, 0]))
    kt.Motion.Sinusoid(ball, LEVEL.POSITION, 1.0, 1.0, 0.0)
    with pytest.raises(InvalidArgumentError, match="q̇ ≠ u"):
        ball_system.realize(ball_system.realize_topology(), kt.Stage.INSTANCE)
