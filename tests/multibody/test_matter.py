"""The matter subsystem through the public API: analytic pendulum and top, energy
conservation, operators against each other, stage checks, and the Euler-angle switch."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import kinetree as kt


def point_mass(m=1.0):
    return kt.Body.Rigid(kt.MassProperties(m, [0, 0, 0], kt.Inertia(0.0)))


def pendulum(L=1.5, g=9.81):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -g, 0])
    link = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), point_mass(),
                                kt.Transform([0, L, 0]))
    return system, matter, link


@pytest.mark.parametrize("theta", [0.1, 1.0, 2.5])
def test_pendulum_acceleration_is_analytic(theta):
    L, g = 1.5, 9.81
    system, matter, link = pendulum(L, g)
    state = system.realize_topology()
    link.set_one_q(state, 0, theta)
    link.set_one_u(state, 0, 0.7)
    system.realize(state, kt.Stage.ACCELERATION)
    assert link.get_one_u_dot(state, 0) == pytest.approx(-g / L * np.sin(theta), rel=1e-12)
    np.testing.assert_allclose(link.get_body_origin_location(state),
                               [L * np.sin(theta), -L * np.cos(theta), 0], atol=1e-14)
    # centripetal acceleration of the bob points at the pivot: |a_n| = L θ̇²
    a = link.get_body_acceleration(state)[3:]
    r = link.get_body_origin_location(state)
    assert -a @ r / L == pytest.approx(L * 0.7**2, rel=1e-12)


def test_state_must_be_realized_for_body_accessors():
    system, matter, link = pendulum()
    state = system.realize_topology()
    with pytest.raises(kt.StageTooLowError, match="MobilizedBody 1 .*get_body_transform"):
        link.get_body_transform(state)
    system.realize(state, kt.Stage.POSITION)
    with pytest.raises(kt.StageTooLowError, match="VELOCITY"):
        link.get_body_velocity(state)


def chain(n, euler=False, kinds=("Pin", "Ball", "Gimbal", "Universal", "Free")):
    """A chain of bricks on assorted mobilizers under gravity."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(
        1.0, [0.05, -0.2, 0.0],
        kt.UnitInertia.brick(0.05, 0.2, 0.05).shift_from_centroid([0.05, -0.2, 0.0])))
    parent = matter.Ground()
    for i in range(n):
        cls = getattr(kt.MobilizedBody, kinds[i % len(kinds)])
        parent = cls(parent, kt.Transform(kt.Rotation.about_x(0.3 * i), [0, -0.4, 0]), body,
                     kt.Transform(kt.Rotation.about_z(0.2), [0, 0.1, 0.02]))
    state = system.realize_topology()
    if euler:
        matter.set_use_euler_angles(state, True)
        system.realize_model(state)
    rng = np.random.default_rng(n)
    q = state.upd_q()
    q[:] += rng.uniform(-0.5, 0.5, q.size)
    state.upd_u()[:] = rng.uniform(-1, 1, state.get_num_u())
    return system, matter, state


@pytest.mark.parametrize("euler", [False, True])
def test_energy_is_conserved(euler):
    system, matter, state = chain(6, euler)

    def rhs(t, y):
        state.set_time(t)
        state.set_y(y)
        system.realize(state, kt.Stage.ACCELERATION)
        return state.get_y_dot().copy()

    system.realize(state, kt.Stage.DYNAMICS)
    e0 = system.calc_energy(state)
    sol = solve_ivp(rhs, (0, 1.0), state.get_y().copy(), method="DOP853", rtol=1e-10,
                    atol=1e-10)
    state.set_y(sol.y[:, -1])
    system.realize(state, kt.Stage.DYNAMICS)
    assert system.calc_energy(state) == pytest.approx(e0, abs=1e-6 * max(1, abs(e0)))


def test_operators_agree():
    system, matter, state = chain(7)
    system.realize(state, kt.Stage.ACCELERATION)
    n = state.get_num_u()
    M = matter.calc_m(state)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, n)
    np.testing.assert_allclose(matter.multiply_by_m(state, a), M @ a, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(matter.multiply_by_m_inv(state, M @ a), a, rtol=1e-9,
                               atol=1e-10)
    np.testing.assert_allclose(matter.calc_m_inv(state) @ M, np.eye(n), atol=1e-9)
    # inverse dynamics of the realized u̇ with the applied forces gives zero residual
    udot = state.get_u_dot()
    F = matter.upd_body_forces(state).copy()
    f = matter.upd_mobility_forces(state).copy()
    np.testing.assert_allclose(matter.calc_residual_force(state, f, F, udot), 0, atol=1e-10)
    # ½ uᵀ M u is the kinetic energy; N⁻¹ N = 1
    u = state.get_u()
    assert 0.5 * u @ M @ u == pytest.approx(system.calc_kinetic_energy(state), rel=1e-12)
    np.testing.assert_allclose(matter.multiply_by_n_inv(state, matter.multiply_by_n(state, u)),
                               u, atol=1e-12)


def test_euler_switch_changes_nq():
    system, matter, state = chain(5)
    nq_quat = state.get_num_q()
    matter.set_use_euler_angles(state, True)
    system.realize_model(state)
    # Ball and Free each lose one q
    assert state.get_num_q() == nq_quat - 2
    assert state.get_num_u() == 1 + 3 + 3 + 2 + 6


def test_torque_free_symmetric_top_precesses_at_the_analytic_rate():
    """A free symmetric body (I1 = I2 = 2, I3 = 3) spinning with w = (wx, 0, w3) in its
    body frame: the body-frame angular velocity turns about the symmetry axis at
    Ω = (I3 - I1)/I1 · w3 (Euler's equations): ẇ = Ω z × w in the body frame."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    I1, I3 = 2.0, 3.0
    top = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(2.0, [0, 0, 0], kt.Inertia(I1, I1, I3))))
    state = system.realize_topology()
    w = np.array([0.4, 0.0, 2.0])
    R = kt.Rotation.from_body_fixed_xyz([0.3, -0.2, 0.5])
    top.set_q(state, np.concatenate([R.convert_rotation_to_quaternion(), [0, 0, 0]]))
    top.set_u(state, np.concatenate([R @ w, [0, 0, 0]]))
    system.realize(state, kt.Stage.ACCELERATION)
    wdot_B = R.invert() @ top.get_body_acceleration(state)[:3]
    Omega = (I3 - I1) / I1 * w[2]
    np.testing.assert_allclose(wdot_B, np.cross([0, 0, Omega], w), atol=1e-12)
