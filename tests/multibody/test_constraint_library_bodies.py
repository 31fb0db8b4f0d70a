"""The built-in constraints between two bodies (Rod, Ball, Weld, PointInPlane, PointOnLine,
ConstantAngle, ConstantOrientation), each on a small model with random frames, asserting
physics: after projection the errors vanish and u̇ solves the KKT system built from
independent operators; pverr and paerr are the time derivatives of perr and pverr (finite
differences along q̇ = N u); G is the transpose of the force map; an RK4 integration with
projection keeps the constraint and conserves energy, so the constraint forces do no
work."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

G_VEC = np.array([0.0, -9.81, 0.0])
TOL = 1e-12


def random_rotation(rng):
    return kt.Rotation.from_body_fixed_xyz(rng.uniform(-np.pi, np.pi, 3))


def random_transform(rng, scale=0.3):
    return kt.Transform(random_rotation(rng), rng.uniform(-scale, scale, 3))


def random_body(rng):
    mass = rng.uniform(0.8, 2.0)
    com = rng.uniform(-0.15, 0.15, 3)
    central = kt.Inertia(*rng.uniform(0.03, 0.06, 3))
    return kt.Body.Rigid(kt.MassProperties(mass, com,
                                           central.shift_from_mass_center(com, mass)))


def tree(rng, inner):
    """Ground -Pin-> upper -Ball-> lower, and a Free body whose parent is Ground (the
    constraint's ancestor is Ground) or, with ``inner``, the upper link (the ancestor is
    then the upper link)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, G_VEC)
    upper = kt.MobilizedBody.Pin(matter.Ground(), random_transform(rng), random_body(rng),
                                 kt.Transform(random_rotation(rng), [0, 0.8, 0]))
    lower = kt.MobilizedBody.Ball(upper, kt.Transform([0.1, -0.3, 0.05]), random_body(rng),
                                  kt.Transform(random_rotation(rng), [0, 0.6, 0]))
    parent = upper if inner else matter.Ground()
    free = kt.MobilizedBody.Free(parent, random_transform(rng, 1.0), random_body(rng),
                                 random_transform(rng))
    return system, matter, upper, lower, free


def pose(system, rng):
    """A default State moved to random q and realized to POSITION."""
    state = system.realize_topology()
    state.set_q(state.get_q() + rng.uniform(-0.5, 0.5, len(state.get_q())))
    system.realize(state, kt.Stage.POSITION)
    return state


def make_rod(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    p1, p2 = rng.uniform(-0.3, 0.3, 3), rng.uniform(-0.3, 0.3, 3)
    d = np.linalg.norm(free.find_station_location_in_ground(s, p2)
                       - lower.find_station_location_in_ground(s, p1))
    return system, matter, kt.Constraint.Rod(lower, p1, free, p2, d), s.get_q()


def make_ball(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    p1 = rng.uniform(-0.3, 0.3, 3)
    p2 = free.get_body_transform(s).invert() @ lower.find_station_location_in_ground(s, p1)
    return system, matter, kt.Constraint.Ball(lower, p1, free, p2), s.get_q()


def make_weld(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    X_B1F1 = random_transform(rng)
    X_B2F2 = free.get_body_transform(s).invert() @ lower.get_body_transform(s) @ X_B1F1
    return system, matter, kt.Constraint.Weld(lower, X_B1F1, free, X_B2F2), s.get_q()


def make_point_in_plane(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    n, p_FS = rng.normal(size=3), rng.uniform(-0.3, 0.3, 3)
    p_BS = lower.get_body_transform(s).invert() @ free.find_station_location_in_ground(s, p_FS)
    h = p_BS @ n / np.linalg.norm(n)
    return system, matter, kt.Constraint.PointInPlane(lower, n, h, free, p_FS), s.get_q()


def make_point_on_line(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    z, p_FS = rng.normal(size=3), rng.uniform(-0.3, 0.3, 3)
    p_BS = lower.get_body_transform(s).invert() @ free.find_station_location_in_ground(s, p_FS)
    p_BP = p_BS + rng.uniform(-0.5, 0.5) * z / np.linalg.norm(z)
    return system, matter, kt.Constraint.PointOnLine(lower, z, p_BP, free, p_FS), s.get_q()


def make_constant_angle(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    while True:
        b, f = rng.normal(size=(2, 3))
        b_G = lower.get_body_rotation(s).as_matrix() @ b / np.linalg.norm(b)
        f_G = free.get_body_rotation(s).as_matrix() @ f / np.linalg.norm(f)
        angle = np.arccos(b_G @ f_G)
        if 0.4 < angle < np.pi - 0.4:
            break
    return system, matter, kt.Constraint.ConstantAngle(lower, b, free, f, angle), s.get_q()


def make_constant_orientation(rng, inner):
    system, matter, _, lower, free = tree(rng, inner)
    s = pose(system, rng)
    R_B = random_rotation(rng)
    R_F = free.get_body_rotation(s).invert() @ lower.get_body_rotation(s) @ R_B
    return (system, matter, kt.Constraint.ConstantOrientation(lower, R_B, free, R_F),
            s.get_q())


def make_planar_loop(rng, inner):
    """A four-bar of parallel Pins closed by a Ball: the equation along the pin axes is
    redundant (its row of G is zero), so the KKT solve is a minimum-norm one."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, G_VEC)
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), random_body(rng),
                                 kt.Transform([0, 0.5, 0]))
    coupler = kt.MobilizedBody.Pin(crank, kt.Transform(), random_body(rng),
                                   kt.Transform([-0.9, 0, 0]))
    rocker = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1.0, 0, 0]),
                                  random_body(rng), kt.Transform([0, 0.6, 0]))
    s = system.realize_topology()
    crank.set_one_q(s, 0, 0.3)
    coupler.set_one_q(s, 0, -0.4)
    rocker.set_one_q(s, 0, 0.2)
    system.realize(s, kt.Stage.POSITION)
    p2 = rocker.get_body_transform(s).invert() @ coupler.find_station_location_in_ground(
        s, [0, 0, 0])
    return system, matter, kt.Constraint.Ball(coupler, [0, 0, 0], rocker, p2), s.get_q()


MAKERS = {"Rod": make_rod, "Ball": make_ball, "Weld": make_weld,
          "PointInPlane": make_point_in_plane, "PointOnLine": make_point_on_line,
          "ConstantAngle": make_constant_angle,
          "ConstantOrientation": make_constant_orientation}
CASES = [(name, inner) for name in MAKERS for inner in (False, True)]


def build(name, inner, seed):
    """The model, its constraint, and a State perturbed from a consistent pose and then
    projected onto the constraint (q and u)."""
    rng = np.random.default_rng(seed)
    maker = make_planar_loop if name == "planar loop" else MAKERS[name]
    system, matter, c, q = maker(rng, inner)
    state = system.realize_topology()
    state.set_q(q + rng.uniform(-0.03, 0.03, len(q)))
    state.set_u(rng.uniform(-1, 1, len(state.get_u())))
    system.project(state, TOL)
    system.realize(state, kt.Stage.ACCELERATION)
    return system, matter, c, state, rng


def kkt(matter, state):
    """u̇ and λ from [[M, Gᵀ], [G, 0]] [u̇; λ] = [f - c; b], each block from an
    independent operator, solved in the minimum-norm sense (redundant rows allowed)."""
    n = len(state.get_u())
    d = matter.get_tree_data(state, kt.Stage.DYNAMICS, "test")
    f_minus_c = -matter.calc_residual_force_ignoring_constraints(
        state, d.mobility_forces, d.body_forces, np.zeros(n))
    M, G = matter.calc_m(state), matter.calc_g(state)
    b = -matter.calc_bias_for_multiply_by_g(state)
    m = G.shape[0]
    K = np.block([[M, G.T], [G, np.zeros((m, m))]])
    sol = np.linalg.pinv(K, rcond=1e-12) @ np.concatenate([f_minus_c, b])
    return sol[:n], sol[n:]


@pytest.mark.parametrize("name, inner", CASES + [("planar loop", False)])
def test_projected_state_solves_the_kkt_system(name, inner):
    system, matter, c, state, _ = build(name, inner, seed=11)
    ancestor = c.get_ancestor_mobilized_body()
    assert ancestor.get_mobilized_body_index() == (1 if inner else 0)
    assert np.abs(c.get_position_errors_as_vector(state)).max() <= TOL
    assert np.abs(c.get_velocity_errors_as_vector(state)).max() <= 1e-11
    udot, lam = kkt(matter, state)
    scale = max(1.0, np.abs(udot).max())
    np.testing.assert_allclose(state.get_u_dot(), udot, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(c.get_multipliers_as_vector(state), lam, rtol=0,
                               atol=1e-9 * max(1.0, np.abs(lam).max()))
    assert np.abs(c.get_acceleration_errors_as_vector(state)).max() < 1e-9 * scale
    if name == "planar loop":
        G = matter.calc_g(state)
        assert np.linalg.matrix_rank(G, tol=1e-10) == 2


@pytest.mark.parametrize("name, inner", CASES)
def test_g_is_the_transpose_of_the_force_map(name, inner):
    system, matter, c, state, _ = build(name, inner, seed=12)
    np.testing.assert_allclose(matter.calc_g(state), matter.calc_g_transpose(state).T,
                               rtol=0, atol=1e-10)
    # the applied constraint forces are -Gᵀλ and do no work at a consistent velocity
    lam = c.get_multipliers_as_vector(state)
    assert abs(matter.multiply_by_g_transpose(state, lam) @ state.get_u()) < \
        1e-9 * max(1.0, np.abs(lam).max())


@pytest.mark.parametrize("name, inner", CASES)
def test_each_level_is_the_time_derivative_of_the_one_before(name, inner):
    system, matter, c, state, rng = build(name, inner, seed=13)
    h = 1e-6

    # pverr = d/dt perr: on the position manifold, with velocities that violate the
    # constraint (so that pverr is not zero)
    s = state.copy()
    s.set_u(rng.uniform(-1, 1, len(s.get_u())))
    system.realize(s, kt.Stage.VELOCITY)
    qdot, pverr = np.array(s.get_q_dot()), c.get_velocity_errors_as_vector(s)

    def perr(t):
        x = s.copy()
        x.set_q(s.get_q() + t * qdot)
        system.realize(x, kt.Stage.POSITION)
        return c.get_position_errors_as_vector(x)

    assert np.abs(pverr).max() > 1e-2
    np.testing.assert_allclose((perr(h) - perr(-h)) / (2 * h), pverr, rtol=0,
                               atol=1e-7 * max(1.0, np.abs(pverr).max()))

    # paerr = d/dt pverr: on the velocity manifold, for an arbitrary u̇ (paerr = G u̇ - b)
    udot = rng.uniform(-2, 2, len(state.get_u()))
    paerr = matter.multiply_by_g(state, udot) + matter.calc_bias_for_multiply_by_g(state)
    qdot = np.array(state.get_q_dot())

    def pverr_at(t):
        x = state.copy()
        x.set_q(state.get_q() + t * qdot)
        x.set_u(state.get_u() + t * udot)
        system.realize(x, kt.Stage.VELOCITY)
        return c.get_velocity_errors_as_vector(x)

    assert np.abs(paerr).max() > 1e-2
    np.testing.assert_allclose((pverr_at(h) - pverr_at(-h)) / (2 * h), paerr, rtol=0,
                               atol=1e-7 * max(1.0, np.abs(paerr).max()))
    # and the realized acceleration errors are the same operator at the realized u̇
    np.testing.assert_allclose(
        c.get_acceleration_errors_as_vector(state),
        matter.multiply_by_g(state, state.get_u_dot()) + matter.calc_bias_for_multiply_by_g(
            state), rtol=0, atol=1e-9 * max(1.0, np.abs(state.get_u_dot()).max()))


def expected_position_errors(name, c, matter, state):
    """perr from Ground-frame kinematics, independently of the constraint's methods: the
    vector errors re-expressed in the ancestor frame A, the scalar ones as defined."""
    body = matter.get_mobilized_body
    X_GA = c.get_ancestor_mobilized_body().get_body_transform(state)
    R_AG = X_GA.R.as_matrix().T
    if name == "Rod":
        b1, b2 = c.get_mobilized_body1(), c.get_mobilized_body2()
        p = (b2.find_station_location_in_ground(state, c.get_point_on_body2(state))
             - b1.find_station_location_in_ground(state, c.get_point_on_body1(state)))
        return np.array([np.linalg.norm(p) - c.get_rod_length(state)])
    if name in ("Ball", "planar loop"):
        b1, b2 = body(c.get_body1_mobilized_body_index()), body(
            c.get_body2_mobilized_body_index())
        return R_AG @ (b2.find_station_location_in_ground(state, c.get_point_on_body2(state))
                       - b1.find_station_location_in_ground(state,
                                                            c.get_point_on_body1(state)))
    if name in ("Weld", "ConstantOrientation"):
        if name == "Weld":
            b1, b2 = body(c.get_body1_mobilized_body_index()), body(
                c.get_body2_mobilized_body_index())
            X1, X2 = c.get_default_frame_on_body1(), c.get_default_frame_on_body2()
        else:
            b1, b2 = body(c.get_base_mobilized_body_index()), body(
                c.get_follower_mobilized_body_index())
            X1 = kt.Transform(c.get_default_base_rotation())
            X2 = kt.Transform(c.get_default_follower_rotation())
        X_G1, X_G2 = b1.get_body_transform(state) @ X1, b2.get_body_transform(state) @ X2
        RB, RF = X_G1.R.as_matrix(), X_G2.R.as_matrix()
        angles = [RF[:, 0] @ RB[:, 1], RF[:, 1] @ RB[:, 2], RF[:, 2] @ RB[:, 0]]
        if name == "ConstantOrientation":
            return np.array(angles)
        return np.concatenate([angles, R_AG @ (X_G2.p - X_G1.p)])
    if name == "PointInPlane":
        B, F = body(c.get_plane_mobilized_body_index()), body(
            c.get_follower_mobilized_body_index())
        p_BS = B.get_body_transform(state).invert() @ F.find_station_location_in_ground(
            state, c.get_default_follower_point())
        return np.array([p_BS @ c.get_default_plane_normal() - c.get_default_plane_height()])
    if name == "PointOnLine":   # the distance from the line (the norm of perr)
        B, F = body(c.get_line_mobilized_body_index()), body(
            c.get_follower_mobilized_body_index())
        p_BS = B.get_body_transform(state).invert() @ F.find_station_location_in_ground(
            state, c.get_default_follower_point())
        return np.array([np.linalg.norm(np.cross(p_BS - c.get_default_point_on_line(),
                                                 c.get_default_line_direction()))])
    B, F = body(c.get_base_mobilized_body_index()), body(c.get_follower_mobilized_body_index())
    b_G = B.get_body_rotation(state).as_matrix() @ c.get_default_base_axis()
    f_G = F.get_body_rotation(state).as_matrix() @ c.get_default_follower_axis()
    return np.array([b_G @ f_G - np.cos(c.get_default_angle())])


@pytest.mark.parametrize("name, inner", CASES + [("planar loop", False)])
def test_position_errors_are_the_geometric_violation(name, inner):
    system, matter, c, state, rng = build(name, inner, seed=18)
    # off the manifold, perr is the violation computed from Ground-frame kinematics
    off = state.copy()
    off.set_q(state.get_q() + rng.uniform(-0.1, 0.1, len(state.get_q())))
    system.realize(off, kt.Stage.POSITION)
    perr = c.get_position_errors_as_vector(off)
    if name == "PointOnLine":
        perr = np.array([np.linalg.norm(perr)])
    expected = expected_position_errors(name, c, matter, off)
    assert np.abs(expected).max() > 1e-3
    np.testing.assert_allclose(perr, expected, rtol=0, atol=1e-12)
    # on it, the violation is gone; the Weld's frames coincide (axes parallel, not
    # antiparallel) and the ConstantOrientation's frames are aligned
    assert np.abs(expected_position_errors(name, c, matter, state)).max() <= 10 * TOL
    if name in ("Weld", "ConstantOrientation"):
        body = matter.get_mobilized_body
        if name == "Weld":
            X1 = body(c.get_body1_mobilized_body_index()).get_body_transform(state) @ \
                c.get_default_frame_on_body1()
            X2 = body(c.get_body2_mobilized_body_index()).get_body_transform(state) @ \
                c.get_default_frame_on_body2()
            assert X1.is_same_transform(X2, 1e-10)
        else:
            R1 = body(c.get_base_mobilized_body_index()).get_body_rotation(state) @ \
                c.get_default_base_rotation()
            R2 = body(c.get_follower_mobilized_body_index()).get_body_rotation(state) @ \
                c.get_default_follower_rotation()
            assert R1.is_same_rotation(R2, 1e-10)


def rms(errors):
    return float(np.sqrt(np.mean(np.square(errors))))


def rk4_step(system, state, h):
    """One classical Runge-Kutta step of q̇ = N u, u̇ = u̇(q, u) in place, then projection."""
    q0, u0 = np.array(state.get_q()), np.array(state.get_u())

    def f(q, u):
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)
        return np.array(state.get_q_dot()), np.array(state.get_u_dot())

    k1 = f(q0, u0)
    k2 = f(q0 + h / 2 * k1[0], u0 + h / 2 * k1[1])
    k3 = f(q0 + h / 2 * k2[0], u0 + h / 2 * k2[1])
    k4 = f(q0 + h * k3[0], u0 + h * k3[1])
    state.set_q(q0 + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]))
    state.set_u(u0 + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]))
    system.project(state, TOL)


@pytest.mark.parametrize("name", list(MAKERS))
def test_rk4_with_projection_keeps_the_constraint_and_conserves_energy(name):
    system, matter, c, state, _ = build(name, True, seed=14)
    e0 = system.calc_energy(state)
    worst_p = worst_v = 0.0
    for _ in range(40):
        rk4_step(system, state, 2e-3)
        system.realize(state, kt.Stage.DYNAMICS)
        worst_p = max(worst_p, rms(c.get_position_errors_as_vector(state)))
        worst_v = max(worst_v, np.abs(c.get_velocity_errors_as_vector(state)).max())
    assert worst_p <= TOL               # projection measures the errors by their RMS
    assert worst_v <= 1e-11
    drift = abs(system.calc_energy(state) - e0)
    assert drift < 1e-9 * max(1.0, abs(e0))


# ----------------------------------------------------------------- API details

def test_rod_length_and_stations_are_state_variables():
    system, matter, rod, state, _ = build("Rod", False, seed=15)
    d = rod.get_default_rod_length()
    assert rod.get_rod_length(state) == d
    np.testing.assert_allclose(rod.get_point_on_body2(state), rod.get_default_point_on_body2())
    rod.set_rod_length(state, d + 0.1)
    assert state.get_system_stage() < kt.Stage.POSITION
    system.realize(state, kt.Stage.POSITION)
    assert rod.get_position_error(state) == pytest.approx(-0.1, abs=1e-12)
    assert rod.find_length_violation(state) == pytest.approx(-0.1, abs=1e-12)
    system.project(state, TOL)
    system.realize(state, kt.Stage.ACCELERATION)
    assert abs(rod.get_position_error(state)) <= TOL
    # the default is untouched, and a new State starts from it
    assert rod.get_default_rod_length() == d
    fresh = system.realize_topology()
    assert rod.get_rod_length(fresh) == d
    # tension: the constraint force on body 2 (Gᵀλ, opposite to the force the rod
    # applies) is λ along the rod direction
    F = rod.get_constrained_body_forces_as_vector(state)
    Cz = rod.find_rod_orientation_in_g(state)
    np.testing.assert_allclose(F[1, 3:], rod.get_rod_tension(state) * Cz, atol=1e-9)


def test_rod_with_coincident_stations_pushes_along_body1_z():
    """Simbody's convention where the direction is undefined (r = 0): body 1's z axis."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    free = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(),
                                 random_body(np.random.default_rng(3)), kt.Transform())
    rod = kt.Constraint.Rod(free, matter.Ground(), 0.5)
    state = system.realize_topology()
    free.set_q_to_fit_transform(state, kt.Transform(random_rotation(np.random.default_rng(4))))
    state.set_u(np.random.default_rng(5).uniform(-1, 1, 6))
    system.realize(state, kt.Stage.VELOCITY)
    assert rod.get_position_error(state) == -0.5
    z1 = free.get_body_rotation(state).as_matrix()[:, 2]
    np.testing.assert_array_equal(rod.find_rod_orientation_in_g(state), z1)
    G = matter.calc_g(state)
    np.testing.assert_allclose(G, matter.calc_g_transpose(state).T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(G[0, 3:], -z1, atol=1e-12)   # ṙ = (v_2 - v_1)·z1, v_2 = 0


def test_ball_stations_are_instance_variables_and_default_to_the_origins():
    system, matter, c, state, _ = build("Ball", False, seed=16)
    p1 = c.get_point_on_body1(state)
    c.set_point_on_body1(state, p1 + [0.0, 0.05, 0.0])
    assert state.get_system_stage() < kt.Stage.INSTANCE
    system.realize(state, kt.Stage.POSITION)
    R_GB1 = matter.get_mobilized_body(c.get_body1_mobilized_body_index()) \
        .get_body_rotation(state).as_matrix()
    np.testing.assert_allclose(c.get_position_errors(state), -R_GB1 @ [0.0, 0.05, 0.0],
                               atol=1e-11)
    other = kt.Constraint.Ball(matter.Ground(), matter.get_mobilized_body(1))
    np.testing.assert_array_equal(other.get_default_point_on_body1(), np.zeros(3))
    np.testing.assert_array_equal(other.get_default_point_on_body2(), np.zeros(3))


def test_synonyms_and_defaults_follow_simbody():
    assert kt.Constraint.ConstantDistance is kt.Constraint.Rod
    assert kt.Constraint.CoincidentPoints is kt.Constraint.Ball
    assert kt.Constraint.Spherical is kt.Constraint.Ball
    assert kt.Constraint.CoincidentFrames is kt.Constraint.Weld
    rng = np.random.default_rng(0)
    system, matter, upper, lower, free = tree(rng, False)
    angle = kt.Constraint.ConstantAngle(lower, [0, 0, 2], free, [1, 0, 0])
    assert angle.get_default_angle() == pytest.approx(np.pi / 2)
    np.testing.assert_allclose(angle.get_default_base_axis(), [0, 0, 1])
    line = kt.Constraint.PointOnLine(lower, [0, 0, 1], [0, 0, 0], free, [0, 0, 0])
    np.testing.assert_allclose(line.get_default_line_direction(), [0, 0, 1])
    weld = kt.Constraint.Weld(lower, free)
    assert weld.get_default_frame_on_body1().is_same_transform(kt.Transform())
    assert weld.get_body2_mobilized_body_index() == free.get_mobilized_body_index()


@pytest.mark.parametrize("make, message", [
    (lambda m, a, b: kt.Constraint.Rod(a, b, 0.0), "greater than zero"),
    (lambda m, a, b: kt.Constraint.Rod(a, b), "expected Rod"),
    (lambda m, a, b: kt.Constraint.Rod(a, a, 1.0), "same body"),
    (lambda m, a, b: kt.Constraint.Ball(a, [0, 0], b, [0, 0, 0]), "3 finite"),
    (lambda m, a, b: kt.Constraint.Ball(a, "x"), "MobilizedBody"),
    (lambda m, a, b: kt.Constraint.Weld(a, np.eye(2), b, kt.Transform()), "Transform"),
    (lambda m, a, b: kt.Constraint.PointInPlane(a, [0, 0, 0], 0.0, b, [0, 0, 0]),
     "nonzero direction"),
    (lambda m, a, b: kt.Constraint.PointOnLine(a, [1, 0, 0], [0, 0, np.nan], b, [0, 0, 0]),
     "finite"),
    (lambda m, a, b: kt.Constraint.ConstantAngle(a, [1, 0, 0], b, [0, 1, 0], 0.0),
     "(anti)parallel"),
    (lambda m, a, b: kt.Constraint.ConstantOrientation(a, np.diag([1, 1, -1]), b, np.eye(3)),
     "Rotation"),
])
def test_bad_arguments_are_refused_naming_the_constraint(make, message):
    rng = np.random.default_rng(1)
    system, matter, upper, lower, free = tree(rng, False)
    with pytest.raises(InvalidArgumentError, match="Constraint\\.") as info:
        make(matter, lower, free)
    assert message in str(info.value)
    assert matter.get_num_constraints() == 0


def test_bodies_of_another_subsystem_are_refused():
    rng = np.random.default_rng(2)
    a = tree(rng, False)
    b = tree(rng, False)
    with pytest.raises(InvalidArgumentError, match="different matter subsystems"):
        kt.Constraint.Ball(a[3], b[3])


def test_disabled_constraint_accessors_say_so():
    system, matter, rod, state, _ = build("Rod", False, seed=17)
    rod.disable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    with pytest.raises(InvalidArgumentError, match="disabled"):
        rod.get_position_error(state)
    assert rod.get_rod_tension(state) == 0.0
