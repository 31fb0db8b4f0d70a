"""The matter subsystem's wave-2 operators (multibody/operators.py), each against a
computation that does not share its code: finite differences of positions and of velocity
products along q̇, dense mass and constraint matrices, body-by-body sums of mass
properties, Newton's and Euler's laws for a free-floating system, energy balance for a
working constraint, and the realized State for the forward-dynamics operators."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, StageTooLowError

H = 1e-6
"""Step of the central differences: error ~H² · third derivative, round-off ~eps / H."""


def brick(mass=1.3, com=(0.05, -0.2, 0.03)):
    """A body with an offset mass center and a full inertia about its origin."""
    central = kt.Inertia(0.03, 0.05, 0.04, 0.002, -0.001, 0.003)
    return kt.Body.Rigid(kt.MassProperties(mass, com, central.shift_from_mass_center(com, mass)))


def tree(free_base=False, gravity=(0, -9.81, 0)):
    """A branched tree of assorted mobilizers (quaternions included) under gravity:
    Ground -> Ball (or Free) -> Pin -> Universal, with a Slider branch and a Free body at
    the end of the Pin."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    if gravity is not None:
        kt.Force.UniformGravity(forces, matter, list(gravity))
    base_type = kt.MobilizedBody.Free if free_base else kt.MobilizedBody.Ball
    tilt = kt.Rotation.about_axis(0.4, [1, 2, 3])
    base = base_type(matter.Ground(), kt.Transform([0.1, 0.2, 0]), brick(),
                     kt.Transform(tilt, [0, 0.4, 0]))
    pin = kt.MobilizedBody.Pin(base, kt.Transform(tilt, [0.2, -0.4, 0.1]), brick(0.8),
                               kt.Transform([0, 0.3, 0]))
    uni = kt.MobilizedBody.Universal(pin, kt.Transform([0, -0.3, 0]), brick(0.6),
                                     kt.Transform(tilt.invert(), [0.1, 0.3, 0]))
    slider = kt.MobilizedBody.Slider(base, kt.Transform(tilt, [0.3, 0, 0]), brick(0.5),
                                     kt.Transform())
    free = kt.MobilizedBody.Free(pin, kt.Transform([0.2, 0, 0]), brick(0.4), kt.Transform())
    return system, matter, [base, pin, uni, slider, free]


def random_state(system, seed=3, scale=1.0):
    rng = np.random.default_rng(seed)
    state = system.realize_topology()
    state.set_q(rng.uniform(-1, 1, state.get_num_q()))
    state.set_u(scale * rng.uniform(-1, 1, state.get_num_u()))
    return state, rng


def shifted_q(system, state, dq):
    """A copy of ``state`` with q moved by dq, realized to POSITION."""
    s = state.copy()
    s.set_q(np.asarray(state.get_q()) + dq)
    system.realize(s, kt.Stage.POSITION)
    return s


def constrained_tree():
    """The tree with one constraint of each kind: a Rod (holonomic), a ConstantSpeed
    (nonholonomic), a ConstantAcceleration (acceleration-only) and a CoordinateCoupler
    (holonomic, its equations in Python)."""
    system, matter, bodies = tree()
    base, pin, uni, slider, free = bodies
    kt.Constraint.Rod(uni, [0.1, 0, 0], free, [0, 0.1, 0], 0.7)
    kt.Constraint.ConstantSpeed(slider, 0, 0.3)
    kt.Constraint.ConstantAcceleration(uni, 1, -0.2)
    kt.Constraint.CoordinateCoupler(matter, kt.Function.Linear([1.0, 0.5, -0.1]),
                                    [pin, uni], [0, 0])
    return system, matter, bodies


# ------------------------------------------------------------------- counts
def test_counts_follow_the_state_layout():
    system, matter, _ = constrained_tree()
    state = system.realize_topology()
    system.realize(state, kt.Stage.INSTANCE)
    # Ball 4 q / 3 u, Pin 1, Universal 2, Slider 1, Free 7 / 6
    assert (matter.get_num_q(state), matter.get_num_u(state)) == (15, 13)
    assert matter.get_num_mobilities() == 13
    assert matter.get_num_quaternions_in_use(state) == 2
    # mp = Rod + coupler, then a normalization error per quaternion; mv = 1; ma = 1
    assert matter.get_num_q_err(state) == 2 + 2
    assert matter.get_num_u_err(state) == 2 + 1
    assert matter.get_num_u_dot_err(state) == 2 + 1 + 1
    euler = state.copy()
    matter.set_use_euler_angles(euler, True)
    system.realize(euler, kt.Stage.INSTANCE)
    assert (matter.get_num_q(euler), matter.get_num_q_err(euler)) == (13, 2)


# ------------------------------------------------------------- Jacobians
def test_frame_and_station_jacobians_are_the_derivatives_of_positions():
    """Column j of JF is the velocity of the task frame for u = e_j: the rate of the
    point's location (and of the body's orientation) along q̇ = N e_j, by central
    differences of the positions alone."""
    system, matter, bodies = tree()
    state, rng = random_state(system)
    system.realize(state, kt.Stage.POSITION)
    tasks = [bodies[2], bodies[4], bodies[3], 0]
    points = rng.uniform(-0.5, 0.5, (4, 3))
    JF = matter.calc_frame_jacobian(state, tasks, points)
    JS = matter.calc_station_jacobian(state, tasks, points)
    nu = state.get_num_u()
    assert JF.shape == (24, nu) and JS.shape == (12, nu)
    for j in range(nu):
        qdot = matter.multiply_by_n(state, False, np.eye(nu)[j])
        plus, minus = shifted_q(system, state, H * qdot), shifted_q(system, state, -H * qdot)
        for t, (mobod, p) in enumerate(zip(tasks, points)):
            mobod = matter.get_mobilized_body(mobod) if isinstance(mobod, int) else mobod
            v = (mobod.find_station_location_in_ground(plus, p)
                 - mobod.find_station_location_in_ground(minus, p)) / (2 * H)
            dR = (mobod.get_body_rotation(plus).as_matrix()
                  - mobod.get_body_rotation(minus).as_matrix()) / (2 * H)
            W = dR @ mobod.get_body_rotation(state).as_matrix().T     # [w]x
            w = np.array([W[2, 1], W[0, 2], W[1, 0]])
            np.testing.assert_allclose(JF[6 * t:6 * t + 3, j], w, atol=1e-8)
            np.testing.assert_allclose(JF[6 * t + 3:6 * t + 6, j], v, atol=1e-8)
            np.testing.assert_array_equal(JS[3 * t:3 * t + 3, j], JF[6 * t + 3:6 * t + 6, j])
    assert not JF[18:].any()                               # Ground's task


def test_frame_jacobian_products_match_the_matrix_and_each_other():
    """JF u and JFᵀ F against the explicit matrix; the transpose is the power dual,
    F · (JF u) = (JFᵀ F) · u; at the body origins JF is the system Jacobian; a single
    task drops the task axis."""
    system, matter, bodies = tree()
    state, rng = random_state(system)
    system.realize(state, kt.Stage.POSITION)
    nb, nu = matter.get_num_bodies(), state.get_num_u()
    everyone = list(range(nb))
    np.testing.assert_allclose(
        matter.calc_frame_jacobian(state, everyone, np.zeros((nb, 3))),
        matter.calc_system_jacobian(state), rtol=0, atol=1e-15)
    points = rng.uniform(-1, 1, (nb, 3))
    JF = matter.calc_frame_jacobian(state, everyone, points)
    u, F = rng.uniform(-1, 1, nu), rng.uniform(-1, 1, (nb, 6))
    V = matter.multiply_by_frame_jacobian(state, everyone, points, u)
    np.testing.assert_allclose(V.ravel(), JF @ u, atol=1e-13)
    f = matter.multiply_by_frame_jacobian_transpose(state, everyone, points, F)
    np.testing.assert_allclose(f, JF.T @ F.ravel(), atol=1e-13)
    assert np.sum(F * V) == pytest.approx(f @ u, rel=1e-12)
    fs = rng.uniform(-1, 1, (nb, 3))
    np.testing.assert_allclose(matter.multiply_by_station_jacobian(state, everyone, points, u),
                               V[:, 3:], atol=1e-14)
    np.testing.assert_allclose(
        matter.multiply_by_station_jacobian_transpose(state, everyone, points, fs),
        matter.calc_station_jacobian(state, everyone, points).T @ fs.ravel(), atol=1e-13)
    one = bodies[4]
    b = one.get_mobilized_body_index()
    np.testing.assert_array_equal(matter.calc_frame_jacobian(state, one, points[b]),
                                  JF[6 * b:6 * b + 6])
    np.testing.assert_allclose(matter.multiply_by_frame_jacobian(state, b, points[b], u),
                               V[b], atol=1e-14)
    with pytest.raises(InvalidArgumentError, match="body index"):
        matter.calc_frame_jacobian(state, [nb], [[0, 0, 0]])
    with pytest.raises(InvalidArgumentError, match="points"):
        matter.calc_frame_jacobian(state, [1, 2], [[0, 0, 0]])


def test_jacobian_bias_is_the_rate_of_the_jacobian_along_qdot():
    """J̇ u = d/dt (J u) at fixed u: (J(q + h q̇) u - J(q - h q̇) u) / 2h, for the system,
    frame and station Jacobians; and A_GB = J u̇ + J̇ u at the realized u̇."""
    system, matter, bodies = tree()
    state, rng = random_state(system)
    system.realize(state, kt.Stage.ACCELERATION)
    u, qdot = np.array(state.get_u()), np.array(state.get_q_dot())
    plus, minus = shifted_q(system, state, H * qdot), shifted_q(system, state, -H * qdot)
    body, point = bodies[2], np.array([0.3, -0.2, 0.5])

    def rate(f):
        return (f(plus) - f(minus)) / (2 * H)

    np.testing.assert_allclose(matter.calc_bias_for_system_jacobian(state),
                               rate(lambda s: matter.multiply_by_system_jacobian(s, u)),
                               atol=1e-7)
    np.testing.assert_allclose(
        matter.calc_bias_for_frame_jacobian(state, body, point),
        rate(lambda s: matter.multiply_by_frame_jacobian(s, body, point, u)), atol=1e-7)
    np.testing.assert_allclose(
        matter.calc_bias_for_station_jacobian(state, [body, bodies[4]], [point, point]),
        rate(lambda s: matter.multiply_by_station_jacobian(s, [body, bodies[4]],
                                                           [point, point], u)), atol=1e-7)
    A = matter.get_tree_data(state, kt.Stage.ACCELERATION).cache.A_GB
    udot = np.array(state.get_u_dot())
    np.testing.assert_allclose(
        matter.multiply_by_system_jacobian(state, udot)
        + matter.calc_bias_for_system_jacobian(state), A, atol=1e-12)
    np.testing.assert_allclose(matter.calc_body_acceleration_from_u_dot(state, udot), A,
                               atol=1e-12)
    a_station = body.find_station_acceleration_in_ground(state, point)
    np.testing.assert_allclose(
        matter.multiply_by_station_jacobian(state, body, point, udot)
        + matter.calc_bias_for_station_jacobian(state, body, point), a_station, atol=1e-12)
    with pytest.raises(StageTooLowError):
        matter.calc_bias_for_system_jacobian(shifted_q(system, state, 0 * qdot))


# --------------------------------------------------------------- inertias
def test_composite_body_inertias_give_the_mass_matrix_diagonal_blocks():
    """Hᵀ R_B H is body B's diagonal block of M (the composite-rigid-body identity, H the
    body's own columns of J); R_B's mass block is the subtree's mass and its first moment
    the subtree's mass center, summed body by body; Ground's is infinite."""
    system, matter, bodies = tree()
    state, _ = random_state(system)
    system.realize(state, kt.Stage.POSITION)
    R = matter.calc_composite_body_inertias(state)
    M, J = matter.calc_m(state), matter.calc_system_jacobian(state)
    for mobod in bodies:
        b = mobod.get_mobilized_body_index()
        us = slice(mobod.get_first_u_index(state), mobod.get_first_u_index(state)
                   + mobod.get_num_u(state))
        Hb = J[6 * b:6 * b + 6, us]
        np.testing.assert_allclose(Hb.T @ R[b] @ Hb, M[us, us], atol=1e-12)
        subtree = [m for m in bodies if _is_outboard(m, mobod)]
        mass = sum(m.get_body_mass_properties(state).get_mass() for m in subtree)
        first_moment = sum(m.get_body_mass_properties(state).get_mass()
                           * (m.find_mass_center_location_in_ground(state)
                              - mobod.get_body_origin_location(state)) for m in subtree)
        np.testing.assert_allclose(R[b][3:, 3:], mass * np.eye(3), atol=1e-14)
        # the upper right block is m [c]x: m c is its (2, 1), (0, 2), (1, 0) entries
        mc = np.array([R[b][2, 4], R[b][0, 5], R[b][1, 3]])
        np.testing.assert_allclose(mc, first_moment, atol=1e-13)
        np.testing.assert_array_equal(matter.get_composite_body_inertia(state, mobod), R[b])
    assert np.isinf(np.diag(R[0])).all()


def _is_outboard(mobod, ancestor) -> bool:
    while not mobod.is_ground():
        if mobod is ancestor:
            return True
        mobod = mobod.get_parent_mobilized_body()
    return False


def test_velocity_dependent_forces_add_up_to_inverse_dynamics_at_zero_udot():
    """Σ Jᵀ (M_B a_coriolis + gyroscopic) = the residual force at u̇ = 0 with no forces."""
    system, matter, _ = tree()
    state, _ = random_state(system)
    system.realize(state, kt.Stage.VELOCITY)
    nb = matter.get_num_bodies()
    F = np.array([matter.get_total_centrifugal_forces(state, b) for b in range(nb)])
    np.testing.assert_allclose(
        matter.multiply_by_system_jacobian_transpose(state, F),
        matter.calc_residual_force_ignoring_constraints(state, [], [], []), atol=1e-12)
    assert not matter.get_gyroscopic_force(state, 0).any()


# ------------------------------------------------------------ whole system
def test_system_mass_properties_sum_the_bodies():
    system, matter, bodies = tree()
    state, _ = random_state(system)
    system.realize(state, kt.Stage.ACCELERATION)
    masses = [m.get_body_mass_properties(state).get_mass() for m in bodies]
    total = sum(masses)
    assert matter.calc_system_mass(state) == pytest.approx(total, rel=1e-15)
    centers = [m.find_mass_center_location_in_ground(state) for m in bodies]
    com = sum(mi * c for mi, c in zip(masses, centers)) / total
    np.testing.assert_allclose(matter.calc_system_mass_center_location_in_ground(state), com,
                               atol=1e-14)
    # central inertia: each body's central inertia in G, parallel-axis to the system's C
    central = np.zeros((3, 3))
    for mobod, mi, c in zip(bodies, masses, centers):
        props = mobod.get_body_mass_properties(state)
        R_GB = mobod.get_body_rotation(state).as_matrix()
        own = R_GB @ props.calc_central_inertia().as_mat33() @ R_GB.T
        r = c - com
        central += own + mi * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(matter.calc_system_central_inertia_in_ground(state).as_mat33(),
                               central, atol=1e-13)
    about_origin = matter.calc_system_mass_properties_in_ground(state)
    np.testing.assert_allclose(about_origin.get_inertia().as_mat33(),
                               central + total * (com @ com * np.eye(3) - np.outer(com, com)),
                               atol=1e-13)
    # velocity and acceleration of C, mass-weighted over the bodies' mass centers
    local = [m.get_body_mass_properties(state).get_mass_center() for m in bodies]
    v = sum(mi * m.find_station_velocity_in_ground(state, c)
            for m, mi, c in zip(bodies, masses, local)) / total
    a = sum(mi * m.find_station_acceleration_in_ground(state, c)
            for m, mi, c in zip(bodies, masses, local)) / total
    np.testing.assert_allclose(matter.calc_system_mass_center_velocity_in_ground(state), v,
                               atol=1e-14)
    np.testing.assert_allclose(matter.calc_system_mass_center_acceleration_in_ground(state), a,
                               atol=1e-13)
    # momentum: Σ m v_c and Σ (I_c w + p_c × m v_c)
    h, p = np.zeros(3), np.zeros(3)
    for mobod, mi, c, pc in zip(bodies, masses, local, centers):
        vc = mobod.find_station_velocity_in_ground(state, c)
        R_GB = mobod.get_body_rotation(state).as_matrix()
        Ic = R_GB @ mobod.get_body_mass_properties(state).calc_central_inertia().as_mat33() \
            @ R_GB.T
        h += Ic @ mobod.get_body_angular_velocity(state) + np.cross(pc, mi * vc)
        p += mi * vc
    momentum = matter.calc_system_momentum_about_ground_origin(state)
    np.testing.assert_allclose(momentum, np.concatenate([h, p]), atol=1e-13)
    central_momentum = matter.calc_system_central_momentum(state)
    np.testing.assert_allclose(momentum[:3], central_momentum[:3] + np.cross(com, p),
                               atol=1e-13)


def test_free_floating_system_obeys_newton_and_euler():
    """Nothing holds a free-based tree but gravity: its mass center falls at g, its
    angular momentum about the mass center is constant, and about Ground's origin it
    changes at the gravity moment p_C × M g."""
    g = np.array([0.0, -9.81, 0.0])
    system, matter, _ = tree(free_base=True, gravity=g)
    state, _ = random_state(system, seed=5)
    system.realize(state, kt.Stage.ACCELERATION)
    total = matter.calc_system_mass(state)
    np.testing.assert_allclose(matter.calc_system_mass_center_acceleration_in_ground(state), g,
                               atol=1e-12)
    # d/dt of the momenta along the motion, by a central difference in time
    qdot, udot = np.array(state.get_q_dot()), np.array(state.get_u_dot())

    def moved(sign):
        s = state.copy()
        s.set_q(np.asarray(state.get_q()) + sign * H * qdot)
        s.set_u(np.asarray(state.get_u()) + sign * H * udot)
        system.realize(s, kt.Stage.VELOCITY)
        return s

    plus, minus = moved(1), moved(-1)
    dh = (matter.calc_system_momentum_about_ground_origin(plus)
          - matter.calc_system_momentum_about_ground_origin(minus)) / (2 * H)
    com = matter.calc_system_mass_center_location_in_ground(state)
    np.testing.assert_allclose(dh, np.concatenate([np.cross(com, total * g), total * g]),
                               atol=1e-6)
    dhc = (matter.calc_system_central_momentum(plus)
           - matter.calc_system_central_momentum(minus)) / (2 * H)
    np.testing.assert_allclose(dhc[:3], 0, atol=1e-6)


# --------------------------------------------------------------- dynamics
def dense_dynamics(matter, state):
    """M, M⁻¹, c (inverse dynamics at u̇ = 0 without forces), G and the bias b of
    G u̇ = b, all as dense matrices."""
    M = matter.calc_m(state)
    c = matter.calc_residual_force_ignoring_constraints(state, [], [], [])
    G = matter.calc_g(state)
    b = -matter.calc_bias_for_multiply_by_g(state)
    return M, np.linalg.inv(M), c, G, b


def test_calc_acceleration_is_the_realized_motion_and_the_projected_solution():
    """With the State's own forces, calc_acceleration gives the realized u̇ and A_GB, and
    leaves the State's cache alone; with other forces f it gives the constrained solution
    from dense matrices, u̇ = P (f - c) + M⁻¹ Gᵀ W⁻¹ b with the projected inverse
    P = M⁻¹ - M⁻¹ Gᵀ W⁻¹ G M⁻¹ and W = G M⁻¹ Gᵀ; ignoring constraints, u̇ = M⁻¹ (f - c)."""
    system, matter, _ = constrained_tree()
    state, rng = random_state(system, seed=7)
    system.project(state, 1e-12)
    system.realize(state, kt.Stage.ACCELERATION)
    d = matter.get_tree_data(state, kt.Stage.ACCELERATION)
    A_before = d.cache.A_GB.copy()
    udot, A = matter.calc_acceleration(state, d.mobility_forces.copy(), d.body_forces.copy())
    np.testing.assert_allclose(udot, state.get_u_dot(), atol=1e-12)
    np.testing.assert_allclose(A, A_before, atol=1e-12)
    np.testing.assert_array_equal(d.cache.A_GB, A_before)

    nb, nu = matter.get_num_bodies(), state.get_num_u()
    f, F = rng.uniform(-2, 2, nu), rng.uniform(-2, 2, (nb, 6))
    M, Minv, c, G, b = dense_dynamics(matter, state)
    f_total = f + matter.multiply_by_system_jacobian_transpose(state, F) - c
    W = G @ Minv @ G.T
    Winv = np.linalg.inv(W)
    P = Minv - Minv @ G.T @ Winv @ G @ Minv
    expected = P @ f_total + Minv @ G.T @ Winv @ b
    udot, A = matter.calc_acceleration(state, f, F)
    np.testing.assert_allclose(udot, expected, atol=1e-10)
    np.testing.assert_allclose(A, matter.calc_body_acceleration_from_u_dot(state, udot),
                               atol=1e-12)
    np.testing.assert_allclose(matter.calc_constraint_acceleration_errors(state, udot), 0,
                               atol=1e-10)
    free, A_free = matter.calc_acceleration_ignoring_constraints(state, f, F)
    np.testing.assert_allclose(free, Minv @ f_total, atol=1e-10)
    np.testing.assert_allclose(
        matter.calc_residual_force_ignoring_constraints(state, f, F, free), 0, atol=1e-10)
    # empty forces are zeros
    np.testing.assert_allclose(matter.calc_acceleration_ignoring_constraints(state, [], [])[0],
                               -Minv @ c, atol=1e-10)
    with pytest.raises(StageTooLowError):
        matter.calc_acceleration(shifted_q(system, state, np.zeros(state.get_num_q())), f, F)
    with pytest.raises(InvalidArgumentError, match="body forces"):
        matter.calc_acceleration(state, f, F[1:])


def test_residual_force_with_multipliers_vanishes_at_the_realized_motion():
    """M u̇ + Gᵀλ + c - f - Jᵀ F = 0 at the realized u̇ and λ with the State's forces, and
    equals the dense expression at any other u̇ and λ."""
    system, matter, _ = constrained_tree()
    state, rng = random_state(system, seed=8)
    system.realize(state, kt.Stage.ACCELERATION)
    d = matter.get_tree_data(state, kt.Stage.ACCELERATION)
    f, F = d.mobility_forces.copy(), d.body_forces.copy()
    udot, lam = np.array(state.get_u_dot()), np.array(state.get_multipliers())
    scale = np.abs(matter.multiply_by_m(state, udot)).max()
    np.testing.assert_allclose(matter.calc_residual_force(state, f, F, udot, lam), 0,
                               atol=1e-12 * scale)
    M, _, c, G, _ = dense_dynamics(matter, state)
    udot2, lam2 = rng.uniform(-1, 1, udot.size), rng.uniform(-1, 1, lam.size)
    expected = M @ udot2 + G.T @ lam2 + c - f - matter.multiply_by_system_jacobian_transpose(
        state, F)
    np.testing.assert_allclose(matter.calc_residual_force(state, f, F, udot2, lam2), expected,
                               atol=1e-10)
    np.testing.assert_allclose(matter.calc_residual_force(state, f, F, udot2, []),
                               matter.calc_residual_force_ignoring_constraints(state, f, F,
                                                                               udot2))
    with pytest.raises(InvalidArgumentError):
        matter.calc_residual_force(state, f, F, udot2, lam2[1:])


# ---------------------------------------------------- constraint matrices
def test_projected_inverse_mass_matrix_is_g_minv_gt():
    system, matter, _ = constrained_tree()
    state, _ = random_state(system, seed=9)
    system.realize(state, kt.Stage.VELOCITY)
    _, Minv, _, G, _ = dense_dynamics(matter, state)
    W = matter.calc_projected_m_inv(state)
    np.testing.assert_allclose(W, G @ Minv @ G.T, atol=1e-12)
    np.testing.assert_allclose(W, W.T, atol=1e-12)


def test_constraint_impulses_remove_the_velocity_errors():
    """Simbody's recipe: impulses for Δv = -uerr, then u += M⁻¹ Gᵀ λ̂, leave the velocity
    constraints satisfied (their errors are linear in u)."""
    system, matter, bodies = tree()
    base, pin, uni, slider, free = bodies
    kt.Constraint.Rod(uni, [0.1, 0, 0], free, [0, 0.1, 0], 0.7)
    kt.Constraint.ConstantSpeed(slider, 0, 0.3)
    state, _ = random_state(system, seed=10)
    system.project(state, 1e-12)
    state.set_u(np.asarray(state.get_u()) + 0.3)
    system.realize(state, kt.Stage.VELOCITY)
    uerr = np.array(state.get_u_err())
    assert np.abs(uerr).max() > 0.01
    impulse = matter.solve_for_constraint_impulses(state, -uerr)
    np.testing.assert_allclose(matter.calc_projected_m_inv(state) @ impulse, -uerr, atol=1e-12)
    du = matter.multiply_by_m_inv(state, matter.multiply_by_g_transpose(state, impulse))
    state.set_u(np.asarray(state.get_u()) + du)
    system.realize(state, kt.Stage.VELOCITY)
    np.testing.assert_allclose(state.get_u_err(), 0, atol=1e-12)


def test_redundant_constraint_impulses_are_the_minimum_norm_solution():
    """Two identical Rods make W singular; for a consistent Δv the impulse is the
    pseudo-inverse's, split evenly between them."""
    system, matter, bodies = tree()
    _, _, uni, _, free = bodies
    for _ in range(2):
        kt.Constraint.Rod(uni, [0.1, 0, 0], free, [0, 0.1, 0], 0.7)
    state, _ = random_state(system, seed=11)
    system.realize(state, kt.Stage.VELOCITY)
    W = matter.calc_projected_m_inv(state)
    assert np.linalg.matrix_rank(W, tol=1e-10 * np.abs(W).max()) == 1
    delta_v = np.array([0.4, 0.4])
    impulse = matter.solve_for_constraint_impulses(state, delta_v)
    np.testing.assert_allclose(impulse, np.linalg.pinv(W, rcond=1e-10) @ delta_v, rtol=1e-9)
    assert impulse[0] == pytest.approx(impulse[1], rel=1e-12)
    with pytest.raises(InvalidArgumentError):
        matter.solve_for_constraint_impulses(state, [1.0])


def test_constraint_matrix_blocks_agree():
    """PV is the first mp + mv rows of G and the transpose of PVᵀ (from the force
    methods); P and Pᵀ are its holonomic rows; Pqᵀ is Pq's transpose; the PV products
    match the matrices; the acceleration errors are G u̇ + bias."""
    system, matter, _ = constrained_tree()
    state, rng = random_state(system, seed=12)
    system.realize(state, kt.Stage.ACCELERATION)
    mp = matter.get_num_q_err(state) - matter.get_num_quaternions_in_use(state)
    mv = matter.get_num_u_err(state) - mp
    G, PV, PVt = matter.calc_g(state), matter.calc_pv(state), matter.calc_pv_transpose(state)
    np.testing.assert_allclose(PV, G[:mp + mv], atol=1e-12)
    np.testing.assert_allclose(PV, PVt.T, atol=1e-12)
    np.testing.assert_allclose(matter.calc_p(state), G[:mp], atol=1e-12)
    np.testing.assert_allclose(matter.calc_pt(state), PVt[:, :mp], atol=1e-12)
    np.testing.assert_allclose(matter.calc_pq_transpose(state), matter.calc_pq(state).T,
                               atol=1e-12)
    x, lam = rng.uniform(-1, 1, state.get_num_u()), rng.uniform(-1, 1, mp + mv)
    np.testing.assert_allclose(matter.multiply_by_pv(state, x), PV @ x, atol=1e-12)
    np.testing.assert_allclose(matter.multiply_by_pv_transpose(state, lam), PVt @ lam,
                               atol=1e-12)
    bias = matter.calc_bias_for_acceleration_constraints(state)
    np.testing.assert_allclose(matter.calc_constraint_acceleration_errors(state, x),
                               G @ x + bias, atol=1e-12)
    np.testing.assert_allclose(
        matter.calc_constraint_acceleration_errors(state, state.get_u_dot()),
        state.get_u_dot_err(), atol=1e-12)
    np.testing.assert_allclose(matter.calc_constraint_acceleration_errors(state, []), bias)


# -------------------------------------------------------- N and coordinates
def test_multiply_by_n_takes_simbody_argument_order():
    system, matter, _ = tree()
    state, rng = random_state(system)
    system.realize(state, kt.Stage.VELOCITY)
    u = np.array(state.get_u())
    np.testing.assert_allclose(matter.multiply_by_n(state, False, u), state.get_q_dot(),
                               atol=1e-15)
    fq = rng.uniform(-1, 1, state.get_num_q())
    # Nᵀ is the power dual of N: fq · (N u) = (Nᵀ fq) · u
    assert fq @ matter.multiply_by_n(state, False, u) == pytest.approx(
        matter.multiply_by_n(state, True, fq) @ u, rel=1e-13)
    with pytest.raises(InvalidArgumentError, match="transpose flag"):
        matter.multiply_by_n(state, u, False)


@pytest.mark.parametrize("start_in_euler", [False, True])
def test_converting_between_quaternions_and_euler_angles_keeps_the_motion(start_in_euler):
    """Every body's pose and velocity survive the conversion both ways; switching the
    Model-stage flag alone (set_use_euler_angles) would reset the orientations."""
    system, matter, bodies = tree()
    state, _ = random_state(system, seed=13)
    if start_in_euler:
        state = matter.convert_to_euler_angles(state)
    system.realize(state, kt.Stage.VELOCITY)
    target = matter.convert_to_quaternions if start_in_euler else \
        matter.convert_to_euler_angles
    out = system.realize_topology()
    returned = target(state, out)
    assert returned is out
    assert matter.get_use_euler_angles(out) != start_in_euler
    assert out.get_time() == state.get_time()
    system.realize(out, kt.Stage.VELOCITY)
    for mobod in bodies:
        np.testing.assert_allclose(mobod.get_body_transform(out).R.as_matrix(),
                                   mobod.get_body_transform(state).R.as_matrix(), atol=1e-12)
        np.testing.assert_allclose(mobod.get_body_origin_location(out),
                                   mobod.get_body_origin_location(state), atol=1e-12)
        np.testing.assert_allclose(mobod.get_body_velocity(out),
                                   mobod.get_body_velocity(state), atol=1e-12)
    back = (matter.convert_to_euler_angles if start_in_euler
            else matter.convert_to_quaternions)(out)
    system.realize(back, kt.Stage.POSITION)
    for mobod in bodies:
        np.testing.assert_allclose(mobod.get_body_transform(back).R.as_matrix(),
                                   mobod.get_body_transform(state).R.as_matrix(), atol=1e-12)
    same = target(out)       # already in the target's representation: a copy
    np.testing.assert_array_equal(same.get_q(), out.get_q())
    flag_only = state.copy()
    matter.set_use_euler_angles(flag_only, not start_in_euler)
    system.realize(flag_only, kt.Stage.POSITION)
    base = bodies[0]
    assert not np.allclose(base.get_body_rotation(flag_only).as_matrix(),
                           base.get_body_rotation(state).as_matrix())


# ------------------------------------------------------------------ power
def test_constraint_power_is_zero_for_a_workless_rod_and_the_energy_rate_for_a_motor():
    """A Rod on a projected State does no work. A ConstantSpeed driving a pendulum's pin
    under gravity keeps its kinetic energy fixed, so its power is the rate of the
    potential energy, m g · v of the mass center."""
    system, matter, bodies = tree()
    _, _, uni, _, free = bodies
    rod = kt.Constraint.Rod(uni, [0.1, 0, 0], free, [0, 0.1, 0], 0.7)
    state, _ = random_state(system, seed=14)
    system.project(state, 1e-12)
    system.realize(state, kt.Stage.ACCELERATION)
    scale = np.abs(rod.get_multipliers_as_vector(state)).max()
    assert abs(rod.calc_power(state)) < 1e-10 * max(scale, 1.0)

    pendulum = kt.MultibodySystem()
    pm = kt.SimbodyMatterSubsystem(pendulum)
    forces = kt.GeneralForceSubsystem(pendulum)
    kt.Force.UniformGravity(forces, pm, [0, -9.81, 0])
    arm = kt.MobilizedBody.Pin(pm.Ground(), kt.Transform(), brick(2.0, (0.0, -0.8, 0.0)),
                               kt.Transform())
    motor = kt.Constraint.ConstantSpeed(arm, 0, 1.5)
    s = pendulum.realize_topology()
    arm.set_one_q(s, 0, 0.7)
    arm.set_one_u(s, 0, 1.5)
    pendulum.realize(s, kt.Stage.ACCELERATION)
    v_c = arm.find_station_velocity_in_ground(s, [0.0, -0.8, 0.0])
    potential_rate = 2.0 * 9.81 * v_c[1]
    assert motor.calc_power(s) == pytest.approx(potential_rate, rel=1e-12)
    motor.disable(s)
    pendulum.realize(s, kt.Stage.ACCELERATION)
    assert motor.calc_power(s) == 0.0
