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
    np.testing.assert_allclose(
        matter.calc_residual_force_ignoring_constraints(state, f, F, udot), 0, atol=1e-10)
    # ½ uᵀ M u is the kinetic energy; N⁻¹ N = 1
    u = state.get_u()
    assert 0.5 * u @ M @ u == pytest.approx(system.calc_kinetic_energy(state), rel=1e-12)
    np.testing.assert_allclose(
        matter.multiply_by_n_inv(state, matter.multiply_by_n(state, False, u)), u, atol=1e-12)


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


@pytest.mark.parametrize("kind", ["Pin", "Universal", "Gimbal", "Ball", "Free", "Bushing",
                                  "Planar", "Translation"])
def test_fit_transform_and_velocity_round_trip(kind):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    mobod = getattr(kt.MobilizedBody, kind)(matter.Ground(), body)
    state = system.realize_topology()
    rng = np.random.default_rng(5)
    source = state.copy()
    q = source.upd_q()
    q[:] += rng.uniform(-0.8, 0.8, q.size)
    source.upd_u()[:] = rng.uniform(-1, 1, source.get_num_u())
    system.realize(source, kt.Stage.VELOCITY)
    X, V = mobod.get_mobilizer_transform(source), mobod.get_mobilizer_velocity(source)
    mobod.set_q_to_fit_transform(state, X)
    system.realize(state, kt.Stage.POSITION)
    assert mobod.get_mobilizer_transform(state).is_same_transform(X, 1e-9)
    mobod.set_u_to_fit_velocity(state, V)
    system.realize(state, kt.Stage.VELOCITY)
    np.testing.assert_allclose(mobod.get_mobilizer_velocity(state), V, atol=1e-10)


def test_jacobians_and_momentum():
    system, matter, state = chain(5)
    system.realize(state, kt.Stage.VELOCITY)
    J = matter.calc_system_jacobian(state)
    u = state.get_u()
    V = (J @ u).reshape(-1, 6)
    np.testing.assert_allclose(matter.multiply_by_system_jacobian(state, u), V, atol=1e-12)
    for b in range(1, matter.get_num_bodies()):
        np.testing.assert_allclose(V[b], matter.get_mobilized_body(b).get_body_velocity(state),
                                   atol=1e-12)
    tip = matter.get_mobilized_body(matter.get_num_bodies() - 1)
    s = [0.1, -0.2, 0.05]
    np.testing.assert_allclose(matter.calc_station_jacobian(state, tip, s) @ u,
                               tip.find_station_velocity_in_ground(state, s), atol=1e-12)
    np.testing.assert_allclose(matter.multiply_by_station_jacobian(state, tip, s, u),
                               tip.find_station_velocity_in_ground(state, s), atol=1e-12)
    # momentum: linear = M_total v_com, and Jᵀ maps body forces to generalized forces
    F = np.random.default_rng(0).uniform(-1, 1, (matter.get_num_bodies(), 6))
    assert u @ matter.multiply_by_system_jacobian_transpose(state, F) == pytest.approx(
        np.sum(F * V))
    np.testing.assert_allclose(matter.multiply_by_system_jacobian_transpose(state, F),
                               J.T @ F.ravel(), atol=1e-12)
    h = matter.calc_system_central_momentum(state)
    q, dt = state.get_q().copy(), 1e-6
    qdot = matter.multiply_by_n(state, False, u)
    plus, minus = state.copy(), state.copy()
    plus.set_q(q + dt * qdot)
    minus.set_q(q - dt * qdot)
    for s_ in (plus, minus):
        system.realize(s_, kt.Stage.POSITION)
    v_com = (matter.calc_system_mass_center_location_in_ground(plus)
             - matter.calc_system_mass_center_location_in_ground(minus)) / (2 * dt)
    np.testing.assert_allclose(h[3:], 5.0 * v_com, rtol=1e-6)


def test_free_system_conserves_central_momentum():
    """No forces on a floating chain: momentum about the mass center is constant."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    com = [0.05, -0.2, 0.02]
    body = kt.Body.Rigid(kt.MassProperties(
        1.2, com, kt.Inertia(0.03, 0.01, 0.025).shift_from_mass_center(com, 1.2)))
    base = kt.MobilizedBody.Free(matter.Ground(), body)
    arm = kt.MobilizedBody.Ball(base, kt.Transform([0, -0.4, 0]), body, kt.Transform())
    kt.MobilizedBody.Pin(arm, kt.Transform(kt.Rotation.about_x(0.7), [0, -0.4, 0]), body,
                         kt.Transform())
    state = system.realize_topology()
    state.set_u(np.random.default_rng(4).uniform(-2, 2, state.get_num_u()))
    system.realize(state, kt.Stage.VELOCITY)
    h0 = matter.calc_system_central_momentum(state)

    def rhs(t, y):
        state.set_y(y)
        system.realize(state, kt.Stage.ACCELERATION)
        return state.get_y_dot().copy()

    sol = solve_ivp(rhs, (0, 0.5), state.get_y().copy(), rtol=1e-11, atol=1e-12)
    state.set_y(sol.y[:, -1])
    system.realize(state, kt.Stage.VELOCITY)
    np.testing.assert_allclose(matter.calc_system_central_momentum(state), h0, atol=1e-7)
    assert np.abs(h0[:3]).max() > 0.1


def test_small_angle_compound_pendulum_period():
    """A brick on a pin, 1e-3 rad amplitude: T = 2π √(I_o / (m g arm))."""
    g, m, arm = 9.81, 2.0, 0.6               # arm: pivot to mass center (m)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -g, 0])
    central = m * kt.UnitInertia.brick(0.05, 0.7, 0.05)
    body = kt.Body.Rigid(kt.MassProperties(m, [0, 0, 0], central))
    link = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform([0, arm, 0]))
    state = system.realize_topology()
    link.set_one_q(state, 0, 1e-3)

    def rhs(t, y):
        state.set_y(y)
        system.realize(state, kt.Stage.ACCELERATION)
        return state.get_y_dot().copy()

    def crossing(t, y):
        return y[1]                        # u changes sign at each turning point
    crossing.direction = 1

    sol = solve_ivp(rhs, (0, 5), state.get_y().copy(), events=crossing, rtol=1e-11,
                    atol=1e-14)
    turns = sol.t_events[0]
    I_o = central.get_moments()[2] + m * arm**2
    expected = 2 * np.pi * np.sqrt(I_o / (m * g * arm))
    assert turns[1] - turns[0] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("euler", [False, True])
def test_n_dot_gives_q_dot_dot(euler):
    system, matter, state = chain(6, euler)
    system.realize(state, kt.Stage.ACCELERATION)
    u, udot = state.get_u(), state.get_u_dot()
    qdd = matter.multiply_by_n(state, False, udot) + matter.multiply_by_n_dot(state, u)
    np.testing.assert_allclose(qdd, state.get_q_dot_dot(), rtol=1e-7, atol=1e-7)


def test_default_q_and_u_flow_into_new_states():
    system, matter, link = pendulum()
    old = system.realize_topology()
    link.set_default_q([0.3]).set_default_u([-1.0])
    with pytest.raises(kt.errors.TopologyChangedError):
        system.realize(old)
    state = system.realize_topology()
    assert (link.get_one_q(state, 0), link.get_one_u(state, 0)) == (0.3, -1.0)
    with pytest.raises(kt.errors.InvalidArgumentError, match="expected 1 values"):
        link.set_default_q([0.0, 1.0])


def test_free_bodies_whose_hinge_is_the_identity_agree_with_inverse_dynamics():
    """Free mobilizers with frames aligned with Ground (H = 1 in G, the articulated-body
    step's short path, also for a Free child of a body at the identity orientation, whose
    parent then feels no inertia through it) give the u̇ that inverse dynamics (RNEA, a
    different algorithm) turns back into the applied forces, and the u̇ of the same model
    with the short path's frames turned slightly off the identity, in the limit."""
    def build(tilt):
        system = kt.MultibodySystem()
        matter = kt.SimbodyMatterSubsystem(system)
        forces = kt.GeneralForceSubsystem(system)
        kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
        body = kt.Body.Rigid(kt.MassProperties(2.0, [0.1, -0.2, 0.05],
                                               kt.Inertia(0.3, 0.2, 0.25, 0.01, -0.02, 0.03)))
        X = kt.Transform(kt.Rotation.about_axis(tilt, [1, 2, 3]))
        a = kt.MobilizedBody.Free(matter.Ground(), X, body, X)
        b = kt.MobilizedBody.Free(a, kt.Transform(), body, kt.Transform())
        c = kt.MobilizedBody.Pin(b, kt.Transform(), body, kt.Transform([0.3, 0, 0]))
        state = system.realize_topology()
        rng = np.random.default_rng(11)
        b.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_axis(0.7, [1, 1, 0]),
                                                     [0.1, -0.4, 0.2]))
        c.set_one_q(state, 0, 0.4)
        state.set_u(rng.uniform(-1, 1, state.get_num_u()))
        system.realize(state, kt.Stage.ACCELERATION)
        return matter, state

    matter, state = build(0.0)
    F = matter.upd_body_forces(state).copy()
    f = matter.upd_mobility_forces(state).copy()
    udot = state.get_u_dot()
    np.testing.assert_allclose(
        matter.calc_residual_force_ignoring_constraints(state, f, F, udot), 0, atol=1e-10)
    _, tilted = build(1e-9)
    np.testing.assert_allclose(tilted.get_u_dot(), udot, rtol=0, atol=1e-6)
