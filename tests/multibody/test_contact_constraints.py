"""The bilateral contact constraints (PointOnPlaneContact, SphereOnPlaneContact,
SphereOnSphereContact, LineOnLineContact), asserting physics: each level is the exact time
derivative of the one before and the forces are the transpose of the velocity map
(kt.check_constraint, on and off the constraint manifold); a solid sphere rolls down an
incline at (5/7) g sin θ with the normal force m g cos θ and the friction (2/7) m g sin θ, a
disk at (2/3) g sin θ, a frictionless sphere slides at g sin θ without spinning; a ball
rolls on a fixed sphere at (5/7) g sin φ and keeps the distance r1 + r2; an edge slides
down an inclined edge at g sin α; a stuck vertex moves as a ball joint would; every rolling
simulation keeps the contact, has zero slip and conserves energy."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

G = 9.81
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


def new_system(gravity=(0.0, -G, 0.0)):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, list(gravity))
    return system, matter


def sphere_body(mass, radius, solid=True):
    i = (0.4 if solid else 2 / 3) * mass * radius ** 2
    return kt.Body.Rigid(kt.MassProperties(mass, [0, 0, 0], kt.Inertia(i, i, i)))


def make(kind, rolling, rng, inner):
    """A constraint of ``kind`` between a Pin-jointed body and a Free body with random
    frames and geometry; both hang from Ground, or (``inner``) from a moving body, which is
    then the ancestor frame."""
    system, matter = new_system()
    base = matter.Ground()
    if inner:
        base = kt.MobilizedBody.Ball(base, random_transform(rng), random_body(rng),
                                     random_transform(rng))
    pinned = kt.MobilizedBody.Pin(base, random_transform(rng), random_body(rng),
                                  random_transform(rng))
    free = kt.MobilizedBody.Free(base, random_transform(rng, 1.0), random_body(rng),
                                 random_transform(rng))
    point = rng.uniform(-0.3, 0.3, 3)
    if kind == "PointOnPlaneContact":
        c = kt.Constraint.PointOnPlaneContact(pinned, random_transform(rng), free, point)
    elif kind == "SphereOnPlaneContact":
        c = kt.Constraint.SphereOnPlaneContact(pinned, random_transform(rng), free, point,
                                               0.4, rolling)
    elif kind == "SphereOnSphereContact":
        c = kt.Constraint.SphereOnSphereContact(pinned, rng.uniform(-0.3, 0.3, 3), 0.3, free,
                                                point, 0.4, rolling)
    else:
        c = kt.Constraint.LineOnLineContact(pinned, random_transform(rng), 0.5, free,
                                            random_transform(rng), 0.6, rolling)
    state = system.realize_topology()
    state.set_q(state.get_q() + rng.uniform(-0.5, 0.5, len(state.get_q())))
    state.set_u(rng.uniform(-1, 1, len(state.get_u())))
    return system, matter, c, state


CASES = [("PointOnPlaneContact", True)] + [
    (kind, rolling) for kind in ("SphereOnPlaneContact", "SphereOnSphereContact",
                                 "LineOnLineContact") for rolling in (False, True)]


@pytest.mark.parametrize("inner", [False, True])
@pytest.mark.parametrize("kind, rolling", CASES)
def test_levels_are_derivatives_and_forces_the_transpose(kind, rolling, inner):
    rng = np.random.default_rng(31)
    system, matter, c, state = make(kind, rolling, rng, inner)
    assert c.get_ancestor_mobilized_body().get_mobilized_body_index() == (1 if inner else 0)
    assert c.get_num_constraint_equations_in_use(state) == (1, 2 if rolling else 0, 0)
    for seed in (0, 1):
        report = kt.check_constraint(c, state, seed=seed).assert_ok()
        assert not any(e.vacuous for e in report.entries)
    # exact everywhere, not only on the constraint manifold
    kt.check_constraint(c, state, project=False).assert_ok()


# ------------------------------------------------------------ sphere on plane
def incline(theta):
    """(d, n, X_GP): the downhill direction, the normal and the plane frame (x downhill,
    z the normal) of a plane through Ground's origin tilted by theta about -z."""
    d = np.array([np.cos(theta), -np.sin(theta), 0.0])
    n = np.array([np.sin(theta), np.cos(theta), 0.0])
    return d, n, kt.Transform(kt.Rotation(np.column_stack([d, np.cross(n, d), n])))


def ball_on_incline(theta, mass, radius, rolling, speed=0.0, solid=True):
    """A Free sphere touching the incline, moving sideways at ``speed`` (rolling if
    ``rolling``)."""
    system, matter = new_system()
    d, n, X_GP = incline(theta)
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(),
                                 sphere_body(mass, radius, solid), kt.Transform())
    c = kt.Constraint.SphereOnPlaneContact(matter.Ground(), X_GP, ball, [0, 0, 0], radius,
                                           rolling)
    state = system.realize_topology()
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_x(0.7), radius * n))
    system.realize(state, kt.Stage.POSITION)
    side = np.cross(n, d)
    w = np.cross(n, speed * side) / radius if rolling else np.zeros(3)
    ball.set_u_to_fit_velocity(state, np.concatenate([w, speed * side]))
    return system, ball, c, state, (d, n, side)


@pytest.mark.parametrize("solid, factor", [(True, 5 / 7), (False, 3 / 5)])
def test_sphere_rolls_down_an_incline(solid, factor):
    """A uniform ball (I = 2/5 m r²) accelerates at (5/7) g sin θ, a thin shell (2/3 m r²)
    at (3/5) g sin θ; the plane pushes with m g cos θ and holds back with the rest."""
    theta, mass, radius = 0.3, 2.0, 0.25
    system, ball, c, state, (d, n, side) = ball_on_incline(theta, mass, radius, True, 0.8,
                                                           solid)
    system.realize(state, kt.Stage.ACCELERATION)
    a = factor * G * np.sin(theta)
    np.testing.assert_allclose(ball.get_body_origin_acceleration(state), a * d, atol=1e-12)
    friction = mass * (G * np.sin(theta) - a)
    np.testing.assert_allclose(c.get_multipliers(state),
                               [friction, 0, -mass * G * np.cos(theta)], atol=1e-12)
    np.testing.assert_allclose(c.find_force_on_sphere_in_g(state),
                               mass * G * np.cos(theta) * n - friction * d, atol=1e-12)
    # the contact point is the sphere's lowest point, and its material point is at rest
    p_GC = c.find_contact_point_in_g(state)
    np.testing.assert_allclose(p_GC, np.zeros(3), atol=1e-15)
    p_BC = ball.get_body_transform(state).invert() @ p_GC
    np.testing.assert_allclose(ball.find_station_velocity_in_ground(state, p_BC), 0,
                               atol=1e-15)
    np.testing.assert_allclose(c.get_velocity_errors(state), 0, atol=1e-15)
    assert abs(c.find_separation(state)) < 1e-15

    traj = kt.simulate(system, state, 1.0, accuracy=1e-10, report_interval=0.25,
                       allow_interpolation=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-9 * abs(energy[0])
    for t, s in zip(traj.t, traj.states()):
        system.realize(s, kt.Stage.ACCELERATION)
        # s = v0 t sideways plus a t²/2 downhill, rolling the whole way
        np.testing.assert_allclose(ball.get_body_origin_location(s) - radius * n,
                                   0.8 * t * side + 0.5 * a * t * t * d, atol=1e-7)
        assert np.abs(c.get_velocity_errors(s)).max() < 1e-9
        assert abs(c.get_position_error(s)) < 1e-9
        p_BC = ball.get_body_transform(s).invert() @ c.find_contact_point_in_g(s)
        assert np.abs(ball.find_station_velocity_in_ground(s, p_BC)).max() < 1e-9


def test_frictionless_sphere_slides_at_g_sin_theta_without_spinning():
    theta, mass, radius = 0.4, 1.5, 0.1
    system, ball, c, state, (d, n, side) = ball_on_incline(theta, mass, radius, False, 0.5)
    system.realize(state, kt.Stage.ACCELERATION)
    assert not c.is_enforcing_rolling()
    assert c.get_num_constraint_equations_in_use(state) == (1, 0, 0)
    np.testing.assert_allclose(ball.get_body_origin_acceleration(state),
                               G * np.sin(theta) * d, atol=1e-12)
    np.testing.assert_allclose(ball.get_body_angular_acceleration(state), 0, atol=1e-12)
    np.testing.assert_allclose(c.get_multipliers(state), [0, 0, -mass * G * np.cos(theta)],
                               atol=1e-12)
    # the slip is free: not an error, so reported as zero
    slip = ball.find_station_velocity_in_ground(state, -radius * n)
    assert np.linalg.norm(slip) > 0.4
    np.testing.assert_allclose(c.get_velocity_errors(state), 0, atol=1e-15)


def test_disk_rolls_down_an_incline_at_two_thirds_g_sin_theta():
    """A disk (I = m r²/2) on a Planar joint rolls in its plane: the out-of-plane no-slip
    equation is redundant (its row of G is zero), the solve is a minimum-norm one, and the
    rolling makes x + r θ constant."""
    theta, mass, radius = 0.25, 3.0, 0.4
    system, matter = new_system()
    d, n, X_GP = incline(theta)
    izz = 0.5 * mass * radius ** 2
    disk = kt.MobilizedBody.Planar(matter.Ground(), kt.Transform(), kt.Body.Rigid(
        kt.MassProperties(mass, [0, 0, 0], kt.Inertia(izz / 2, izz / 2, izz))),
        kt.Transform())
    c = kt.Constraint.SphereOnPlaneContact(matter.Ground(), X_GP, disk, [0, 0, 0], radius,
                                           True)
    state = system.realize_topology()
    disk.set_q(state, [0.3, *(radius * n[:2])])
    system.realize(state, kt.Stage.ACCELERATION)
    assert np.linalg.matrix_rank(matter.calc_g(state), tol=1e-10) == 2
    a = 2 / 3 * G * np.sin(theta)
    np.testing.assert_allclose(disk.get_body_origin_acceleration(state), a * d, atol=1e-12)
    np.testing.assert_allclose(disk.get_body_angular_acceleration(state),
                               [0, 0, -a / radius], atol=1e-12)
    np.testing.assert_allclose(c.get_multipliers(state),
                               [mass * G * np.sin(theta) / 3, 0,
                                -mass * G * np.cos(theta)], atol=1e-12)

    traj = kt.simulate(system, state, 1.0, accuracy=1e-10, report_interval=0.5,
                       allow_interpolation=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-9 * abs(energy[0])
    for t, q in zip(traj.t, traj.q):
        along = (q[1:] - radius * n[:2]) @ d[:2]
        assert along == pytest.approx(0.5 * a * t * t, abs=1e-7)
        assert along + radius * (q[0] - 0.3) == pytest.approx(0.0, abs=1e-8)


# ----------------------------------------------------------- sphere on sphere
def test_ball_rolls_on_a_fixed_sphere():
    """A uniform ball on top of a fixed sphere, released at angle φ from the top: its
    center accelerates along the circle at (5/7) g sin φ, pressed with m g cos φ; set
    rolling, it keeps the distance R + r, never slips and conserves energy."""
    R, r, mass, phi = 1.0, 0.3, 2.0, 0.4
    system, matter = new_system()
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), sphere_body(mass, r),
                                 kt.Transform())
    c = kt.Constraint.SphereOnSphereContact(matter.Ground(), [0, 0, 0], R, ball, [0, 0, 0], r,
                                            True)
    state = system.realize_topology()
    normal = np.array([np.sin(phi), np.cos(phi), 0.0])
    tangent = np.array([np.cos(phi), -np.sin(phi), 0.0])
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_y(1.1), (R + r) * normal))
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(ball.get_body_origin_acceleration(state),
                               5 / 7 * G * np.sin(phi) * tangent, atol=1e-12)
    lam = c.get_multipliers(state)
    assert lam[2] == pytest.approx(-mass * G * np.cos(phi), abs=1e-12)
    np.testing.assert_allclose(c.find_force_on_sphere_b_in_g(state),
                               mass * G * (np.cos(phi) * normal
                                           - 2 / 7 * np.sin(phi) * tangent), atol=1e-12)
    X_GC = c.find_contact_frame_in_g(state)
    np.testing.assert_allclose(X_GC.p, R * normal, atol=1e-15)
    np.testing.assert_allclose(X_GC.R.as_matrix()[:, 2], normal, atol=1e-15)

    # rolling sideways and over the top, spinning about the normal too
    ball.set_u_to_fit_velocity(state, np.concatenate([
        np.cross(normal, [0, 0, 0.7]) / r + 1.5 * normal, [0, 0, 0.7]]))
    system.realize(state, kt.Stage.VELOCITY)
    np.testing.assert_allclose(c.get_velocity_errors(state), 0, atol=1e-15)
    traj = kt.simulate(system, state, 1.0, accuracy=1e-10, report_interval=0.25,
                       allow_interpolation=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-9 * abs(energy[0])
    for s in traj.states():
        system.realize(s, kt.Stage.VELOCITY)
        center = ball.get_body_origin_location(s)
        assert np.linalg.norm(center) == pytest.approx(R + r, abs=1e-9)
        assert np.abs(c.get_velocity_errors(s)).max() < 1e-9
        p_BC = ball.get_body_transform(s).invert() @ (R / (R + r) * center)
        assert np.abs(ball.find_station_velocity_in_ground(s, p_BC)).max() < 1e-9


def test_two_free_balls_roll_on_each_other_in_free_space():
    """Without gravity two balls held in rolling contact keep their momenta and energy,
    and the contact frame sits on the center line at the radii's proportion."""
    rng = np.random.default_rng(5)
    system, matter = new_system((0.0, 0.0, 0.0))
    rf, rb = 0.2, 0.35
    f = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), random_body(rng),
                              kt.Transform())
    b = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), random_body(rng),
                              kt.Transform())
    p_FSf, p_BSb = rng.uniform(-0.1, 0.1, 3), rng.uniform(-0.1, 0.1, 3)
    c = kt.Constraint.SphereOnSphereContact(f, p_FSf, rf, b, p_BSb, rb, True)
    state = system.realize_topology()
    b.set_q_to_fit_transform(state, kt.Transform(random_rotation(rng), [0.6, 0.1, -0.2]))
    state.set_u(rng.uniform(-1, 1, 12))
    system.project(state, TOL)
    system.realize(state, kt.Stage.ACCELERATION)
    Sf = f.find_station_location_in_ground(state, p_FSf)
    Sb = b.find_station_location_in_ground(state, p_BSb)
    assert np.linalg.norm(Sb - Sf) == pytest.approx(rf + rb, abs=1e-12)
    X_GC = c.find_contact_frame_in_g(state)
    np.testing.assert_allclose(X_GC.p, Sf + rf / (rf + rb) * (Sb - Sf), atol=1e-12)
    np.testing.assert_allclose(X_GC.R.as_matrix()[:, 2], (Sb - Sf) / (rf + rb), atol=1e-12)
    p0 = matter.calc_system_momentum_about_ground_origin(state)
    traj = kt.simulate(system, state, 1.0, accuracy=1e-10, report_interval=0.5,
                       allow_interpolation=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-9 * abs(energy[0])
    s = traj.states()[-1]
    system.realize(s, kt.Stage.VELOCITY)
    np.testing.assert_allclose(matter.calc_system_momentum_about_ground_origin(s), p0,
                               atol=1e-7)
    assert abs(c.find_separation(s)) < 1e-9
    assert np.abs(c.get_velocity_errors(s)).max() < 1e-9


# -------------------------------------------------------------- line on line
def bar_on_edge(alpha, mass, rolling, height=0.0):
    """A Free bar B whose bottom edge (along its z axis, solid above it) lies across a
    fixed edge of Ground inclined by alpha (solid below it); B's mass center is ``height``
    above its edge."""
    system, matter = new_system()
    d = np.array([np.cos(alpha), -np.sin(alpha), 0.0])
    up = np.array([np.sin(alpha), np.cos(alpha), 0.0])
    X_GEf = kt.Transform(kt.Rotation(np.column_stack([d, np.cross(up, d), up])))
    bar = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), kt.Body.Rigid(
        kt.MassProperties(mass, [0, height, 0], kt.Inertia(0.4, 0.45, 0.06).shift_from_mass_center(
            [0, height, 0], mass))), kt.Transform())
    X_BEb = kt.Transform(kt.Rotation(np.array([[0, -1, 0], [0, 0, -1], [1, 0, 0.0]])))
    c = kt.Constraint.LineOnLineContact(matter.Ground(), X_GEf, 1.0, bar, X_BEb, 0.8,
                                        rolling)
    state = system.realize_topology()
    return system, bar, c, state, d, up


def test_edge_slides_down_an_inclined_edge_at_g_sin_alpha():
    alpha, mass = 0.35, 2.5
    system, bar, c, state, d, up = bar_on_edge(alpha, mass, False)
    system.realize(state, kt.Stage.ACCELERATION)
    assert c.get_position_error(state) == pytest.approx(0.0, abs=1e-15)
    X_GC = c.find_contact_frame_in_g(state)
    np.testing.assert_allclose(X_GC.R.as_matrix(), np.column_stack(
        [d, np.cross(up, d), up]), atol=1e-15)
    np.testing.assert_allclose(bar.get_body_origin_acceleration(state),
                               G * np.sin(alpha) * d, atol=1e-12)
    np.testing.assert_allclose(bar.get_body_angular_acceleration(state), 0, atol=1e-12)
    np.testing.assert_allclose(c.get_multipliers(state), [0, 0, -mass * G * np.cos(alpha)],
                               atol=1e-12)
    np.testing.assert_allclose(c.find_force_on_body_b_in_g(state),
                               mass * G * np.cos(alpha) * up, atol=1e-12)


def test_edge_stuck_on_an_inclined_edge_stays_at_rest():
    """With no slip, the contact holds the whole weight: the force on the bar is -m g."""
    alpha, mass = 0.35, 2.5
    system, bar, c, state, d, up = bar_on_edge(alpha, mass, True)
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(state.get_u_dot(), 0, atol=1e-12)
    np.testing.assert_allclose(c.find_force_on_body_b_in_g(state), [0, mass * G, 0],
                               atol=1e-12)
    np.testing.assert_allclose(c.get_multipliers(state),
                               mass * G * np.array([np.sin(alpha), 0, -np.cos(alpha)]),
                               atol=1e-12)


@pytest.mark.parametrize("rolling", [False, True])
def test_tumbling_bar_keeps_its_edge_on_the_other(rolling):
    """A bar thrown onto a fixed bar, edge across edge: the lines stay in contact (their
    closest points coincide), with no slip when rolling, and no energy is gained or lost."""
    system, bar, c, state, _, _ = bar_on_edge(0.2, 1.0, rolling, height=0.1)
    rng = np.random.default_rng(8)
    state.set_u(rng.uniform(-1, 1, 6))
    system.project(state, TOL)
    traj = kt.simulate(system, state, 1.0, accuracy=1e-10, report_interval=0.25,
                       allow_interpolation=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-9 * abs(energy[0])
    R0 = bar.get_body_rotation(state).as_matrix()
    turned = 0.0
    for s in traj.states():
        system.realize(s, kt.Stage.VELOCITY)
        Qf, Qb, parallel = c.find_closest_points_in_g(s)
        assert not parallel
        assert np.linalg.norm(Qb - Qf) < 1e-9
        assert np.abs(c.get_velocity_errors(s)).max() < 1e-9
        turned = max(turned, np.abs(bar.get_body_rotation(s).as_matrix() - R0).max())
    assert turned > 0.1


def test_closest_points_and_separation_are_the_lines_geometry():
    """Off contact, Qf and Qb are the lines' closest points (an independent least-squares
    solve), the separation is their signed distance along the outward normal, and the
    contact frame is at their midpoint with x along Ef."""
    rng = np.random.default_rng(9)
    system, matter, c, state = make("LineOnLineContact", True, rng, False)
    system.realize(state, kt.Stage.POSITION)
    F, B = c.get_mobilized_body_f(), c.get_mobilized_body_b()
    X_GEf = F.get_body_transform(state) @ c.get_edge_frame_f(state)
    X_GEb = B.get_body_transform(state) @ c.get_edge_frame_b(state)
    df, db = X_GEf.R.as_matrix()[:, 0], X_GEb.R.as_matrix()[:, 0]
    t = np.linalg.lstsq(np.column_stack([df, -db]), X_GEb.p - X_GEf.p, rcond=None)[0]
    Qf_ref, Qb_ref = X_GEf.p + t[0] * df, X_GEb.p + t[1] * db
    Qf, Qb, parallel = c.find_closest_points_in_g(state)
    assert not parallel
    np.testing.assert_allclose(Qf, Qf_ref, atol=1e-12)
    np.testing.assert_allclose(Qb, Qb_ref, atol=1e-12)
    X_GC = c.find_contact_frame_in_g(state)
    n = X_GC.R.as_matrix()[:, 2]
    np.testing.assert_allclose(X_GC.p, 0.5 * (Qf + Qb), atol=1e-12)
    np.testing.assert_allclose(X_GC.R.as_matrix()[:, 0], df, atol=1e-12)
    assert abs(n @ df) < 1e-12 and abs(n @ db) < 1e-12
    r = c.find_separation(state)
    np.testing.assert_allclose(Qb - Qf, r * n, atol=1e-12)
    assert c.get_position_error(state) == pytest.approx(r, abs=1e-12)
    # the normal points out of F's solid: along its space direction rather than against
    sf, sb = X_GEf.R.as_matrix()[:, 2], X_GEb.R.as_matrix()[:, 2]
    w = np.cross(df, db)
    clearer = (n @ sf) if abs(w @ sf) > abs(w @ sb) else -(n @ sb)
    assert clearer > 0


def test_parallel_edges_have_no_equations():
    system, bar, c, state, d, up = bar_on_edge(0.0, 1.0, True)
    c.set_edge_frame_b(state, kt.Transform(kt.Rotation(np.array(
        [[1.0, 0, 0], [0, -1, 0], [0, 0, -1]])), [0, 0, 0.3]))
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(c.get_position_errors_as_vector(state), 0)
    np.testing.assert_allclose(c.get_multipliers_as_vector(state), 0)
    np.testing.assert_allclose(bar.get_body_origin_acceleration(state), [0, -G, 0],
                               atol=1e-12)
    Qf, Qb, parallel = c.find_closest_points_in_g(state)
    assert parallel
    np.testing.assert_allclose(Qb - Qf, [0, 0, 0.3], atol=1e-15)
    assert c.find_separation(state) == pytest.approx(0.3, abs=1e-15)


# ---------------------------------------------------------- point on plane
def test_stuck_vertex_moves_as_a_ball_joint_would():
    """A body whose vertex is held on a tilted plane without slip moves exactly as the same
    body hung from a Ball joint at that vertex: same accelerations, and the multipliers
    are the force the vertex puts on the plane, expressed in the plane frame."""
    rng = np.random.default_rng(4)
    body, p_BV = random_body(rng), np.array([0.1, -0.4, 0.05])
    R0, w0 = random_rotation(rng), rng.uniform(-2, 2, 3)
    theta = 0.3
    _, _, X_GP = incline(theta)
    X_GP = kt.Transform(X_GP.R, [0.2, -0.1, 0.4])

    system, matter = new_system()
    free = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), body, kt.Transform())
    c = kt.Constraint.PointOnPlaneContact(matter.Ground(), X_GP, free, p_BV)
    s = system.realize_topology()
    free.set_q_to_fit_transform(s, kt.Transform(R0, X_GP.p - R0 @ p_BV))
    system.realize(s, kt.Stage.POSITION)
    free.set_u_to_fit_velocity(s, np.concatenate([w0, -np.cross(w0, R0 @ p_BV)]))
    system.realize(s, kt.Stage.ACCELERATION)
    np.testing.assert_allclose(c.get_velocity_errors(s), 0, atol=1e-14)
    assert c.get_position_error(s) == pytest.approx(0, abs=1e-15)

    system2, matter2 = new_system()
    ball = kt.MobilizedBody.Ball(matter2.Ground(), kt.Transform(X_GP.p), body,
                                 kt.Transform(p_BV))
    s2 = system2.realize_topology()
    ball.set_q_to_fit_transform(s2, kt.Transform(R0))
    system2.realize(s2, kt.Stage.POSITION)
    ball.set_u_to_fit_velocity(s2, np.concatenate([w0, np.zeros(3)]))
    system2.realize(s2, kt.Stage.ACCELERATION)

    np.testing.assert_allclose(free.get_body_acceleration(s), ball.get_body_acceleration(s2),
                               atol=1e-10)
    # the reaction: Newton for the whole body, F + m g = m a_com, in the plane frame
    props = free.get_body_mass_properties(s)
    m = props.get_mass()
    a_com = free.find_station_acceleration_in_ground(s, props.get_mass_center())
    f_G = m * a_com - m * np.array([0, -G, 0])
    R_GP = X_GP.R.as_matrix()
    np.testing.assert_allclose(c.get_force_on_follower_point(s), R_GP.T @ f_G, atol=1e-10)
    np.testing.assert_allclose(c.get_multipliers(s), -R_GP.T @ f_G, atol=1e-10)


# ------------------------------------------------------------- API details
def test_parameters_are_position_variables_with_defaults():
    system, ball, c, state, (d, n, side) = ball_on_incline(0.3, 1.0, 0.25, True)
    assert c.get_sphere_radius(state) == c.get_default_sphere_radius() == 0.25
    assert c.get_plane_mobilized_body().get_mobilized_body_index() == 0
    assert c.get_sphere_mobilized_body() is ball
    system.realize(state, kt.Stage.ACCELERATION)
    c.set_sphere_radius(state, 0.3)
    assert state.get_system_stage() < kt.Stage.POSITION
    system.realize(state, kt.Stage.POSITION)
    assert c.get_position_error(state) == pytest.approx(-0.05, abs=1e-14)
    c.set_plane_frame(state, kt.Transform(c.get_plane_frame(state).R, -0.1 * n))
    c.set_sphere_center(state, [0, 0.02, 0])
    system.realize(state, kt.Stage.POSITION)
    p_GO = ball.find_station_location_in_ground(state, [0, 0.02, 0])
    assert c.get_position_error(state) == pytest.approx(p_GO @ n + 0.1 - 0.3, abs=1e-14)
    # the defaults are untouched, and a new State starts from them
    fresh = system.realize_topology()
    assert c.get_sphere_radius(fresh) == 0.25
    np.testing.assert_allclose(c.get_sphere_center(fresh), 0)
    # disabled: the find_* accessors still work, the errors say the constraint is off
    c.disable(state)
    system.realize(state, kt.Stage.ACCELERATION)
    assert c.find_separation(state) == pytest.approx(p_GO @ n + 0.1 - 0.3, abs=1e-14)
    np.testing.assert_allclose(c.find_force_on_sphere_in_g(state), 0)
    with pytest.raises(InvalidArgumentError, match="disabled"):
        c.get_multipliers(state)


def test_sphere_on_sphere_and_line_on_line_setters():
    rng = np.random.default_rng(2)
    system, matter, ss, state = make("SphereOnSphereContact", False, rng, False)
    ss.set_radius_on_f(state, 0.5).set_center_on_b(state, [0.1, 0, 0])
    system.realize(state, kt.Stage.POSITION)
    Sf = ss.get_mobilized_body_f().find_station_location_in_ground(
        state, ss.get_center_on_f(state))
    Sb = ss.get_mobilized_body_b().find_station_location_in_ground(state, [0.1, 0, 0])
    assert ss.get_position_error(state) == pytest.approx(
        np.linalg.norm(Sb - Sf) - 0.9, abs=1e-12)
    assert ss.get_default_radius_on_f() == 0.3 and ss.get_radius_on_b(state) == 0.4
    ss.set_default_radius_on_b(0.6)
    assert ss.get_radius_on_b(system.realize_topology()) == 0.6

    system, matter, ll, state = make("LineOnLineContact", True, rng, False)
    ll.set_half_length_b(state, 2.0)
    assert ll.get_half_length_b(state) == 2.0 and ll.get_default_half_length_b() == 0.6
    assert ll.is_enforcing_rolling()
    X = kt.Transform(kt.Rotation.about_z(0.4), [0.1, 0.2, 0.3])
    ll.set_edge_frame_f(state, X)
    assert ll.get_edge_frame_f(state).is_same_transform(X)
    system.realize(state, kt.Stage.POSITION)
    assert ll.get_position_error(state) == pytest.approx(ll.find_separation(state),
                                                         abs=1e-14)


def test_velocity_errors_and_multipliers_are_in_xyz_order():
    """Simbody's accessors reorder [normal; x; y] to x, y, z."""
    rng = np.random.default_rng(3)
    for kind in ("PointOnPlaneContact", "SphereOnPlaneContact", "SphereOnSphereContact",
                 "LineOnLineContact"):
        system, matter, c, state = make(kind, True, rng, False)
        system.realize(state, kt.Stage.ACCELERATION)
        for raw, xyz in ((c.get_velocity_errors_as_vector(state),
                          c.get_velocity_errors(state)),
                         (c.get_acceleration_errors_as_vector(state),
                          c.get_acceleration_errors(state)),
                         (c.get_multipliers_as_vector(state), c.get_multipliers(state))):
            np.testing.assert_array_equal(xyz, raw[[1, 2, 0]])


def test_point_on_plane_contact_defaults():
    rng = np.random.default_rng(6)
    system, matter, c, state = make("PointOnPlaneContact", True, rng, False)
    X = c.get_default_plane_frame()
    assert c.get_plane_frame(state) is X
    np.testing.assert_array_equal(c.get_follower_point(state), c.get_default_follower_point())
    assert c.get_plane_mobilized_body_index() == 1
    assert c.get_follower_mobilized_body_index() == 2
    c.set_plane_display_half_width(2.0).set_point_display_radius(-1)
    assert c.get_plane_display_half_width() == 2.0 and c.get_point_display_radius() == 0.0
    c.set_default_follower_point([0, 0, 0])
    state = system.realize_topology()
    system.realize(state, kt.Stage.POSITION)
    p = matter.get_mobilized_body(2).get_body_origin_location(state)
    X_GP = matter.get_mobilized_body(1).get_body_transform(state) @ X
    assert c.get_position_error(state) == pytest.approx(
        (p - X_GP.p) @ X_GP.R.as_matrix()[:, 2], abs=1e-12)


@pytest.mark.parametrize("build, message", [
    (lambda m, a, b: kt.Constraint.SphereOnPlaneContact(a, kt.Transform(), b, [0, 0, 0], 0.0,
                                                        True), "radius must be greater"),
    (lambda m, a, b: kt.Constraint.SphereOnPlaneContact(a, kt.Transform(), b, [0, 0, 0], 0.1,
                                                        "yes"), "enforce_rolling"),
    (lambda m, a, b: kt.Constraint.SphereOnSphereContact(a, [0, 0, 0], 0.1, a, [0, 0, 0],
                                                         0.1, True), "same body"),
    (lambda m, a, b: kt.Constraint.SphereOnSphereContact(a, [0, 0], 0.1, b, [0, 0, 0],
                                                         0.1, True), "center on F"),
    (lambda m, a, b: kt.Constraint.LineOnLineContact(a, kt.Transform(), -1.0, b,
                                                     kt.Transform(), 1.0, False),
     "half length"),
    (lambda m, a, b: kt.Constraint.PointOnPlaneContact(a, "plane", b, [0, 0, 0]),
     "plane frame"),
])
def test_bad_arguments_are_refused_naming_the_constraint(build, message):
    system, matter = new_system()
    a = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), sphere_body(1, 0.1),
                             kt.Transform())
    b = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), sphere_body(1, 0.1),
                              kt.Transform())
    with pytest.raises(InvalidArgumentError, match=message):
        build(matter, a, b)


# ------------------------------------------------ Simbody's bilateral demo
def from_two_axes(x, z_approx):
    """Simbody's Rotation(UnitVec3(x), XAxis, z_approx, ZAxis): x exact, z the part of
    z_approx perpendicular to it, y = z × x."""
    x = np.asarray(x, float) / np.linalg.norm(x)
    z = np.asarray(z_approx, float) - (np.asarray(z_approx, float) @ x) * x
    z /= np.linalg.norm(z)
    return kt.Rotation(np.column_stack([x, np.cross(z, x), z]))


def test_simbodys_bilateral_contact_demo_model():
    """The model of Simbody's interactive BilateralContactConstraints program (which has
    no assertions): a brick spinning fast, tied to a platform on a Ball joint by a sphere
    on sphere contact (slipping), a Rod and an edge on edge contact (rolling). It
    assembles, and the simulation keeps the three constraints and the energy to the
    integrator's accuracy."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.Gravity(forces, matter, [0, -1, 0], 9.8 / 10)
    hdim, phdim = np.array([1, 0.5, 0.25]), np.array([5, 0.5, 2])
    platform = kt.MobilizedBody.Ball(
        matter.Ground(), kt.Transform(),
        kt.Body.Rigid(kt.MassProperties(20, [0, 0, 0], kt.UnitInertia.ellipsoid(*phdim))),
        kt.Transform(phdim / 2))
    brick = kt.MobilizedBody.Free(
        matter.Ground(), kt.Transform(),
        kt.Body.Rigid(kt.MassProperties(2, [0, 0, 0], kt.UnitInertia.brick(*hdim))),
        kt.Transform())
    spheres = kt.Constraint.SphereOnSphereContact(brick, hdim, 0.5, platform, [-3, 1, -0.5],
                                                  1.2, False)
    rod = kt.Constraint.Rod(brick, [0, hdim[1], hdim[2]], platform, [0, 3, -0.5], 1.5 * 1.2)
    edges = kt.Constraint.LineOnLineContact(
        platform, kt.Transform(from_two_axes([1, 1, 1], [-1, 0, 0]), [1, 1, 1]), 2,
        brick, kt.Transform(from_two_axes([0, 0, 1], [-1, -1, 0]), [-hdim[0], -hdim[1], 0]),
        2, True)
    state = system.realize_topology()
    brick.set_q_to_fit_transform(state, kt.Transform([0, 5, 0]))
    system.realize(state, kt.Stage.POSITION)
    brick.set_u_to_fit_velocity(state, [10, 10, 10, 0, 0, 0])
    kt.Assembler(system).assemble(state)
    system.realize(state, kt.Stage.POSITION)
    assert max(abs(spheres.find_separation(state)), abs(rod.find_length_violation(state)),
               abs(edges.find_separation(state))) < 1e-3

    accuracy = 1e-8
    traj = kt.simulate(system, state, 2.0, accuracy=accuracy, report_interval=0.5,
                       allow_interpolation=False)
    energy = traj.columns["energy"]
    assert np.ptp(energy) < 1e-7 * abs(energy[0])
    for s in traj.states():
        system.realize(s, kt.Stage.VELOCITY)
        assert abs(spheres.find_separation(s)) < 10 * accuracy
        assert abs(rod.find_length_violation(s)) < 10 * accuracy
        assert abs(edges.find_separation(s)) < 10 * accuracy
        assert np.abs(edges.get_velocity_errors(s)).max() < 10 * accuracy
    assert np.abs(traj.u[-1]).max() > 1.0


def test_states_with_changed_parameters_save_and_load(tmp_path):
    """The per-State frames, centers and radii are plain arrays and numbers, so a State
    file keeps them."""
    rng = np.random.default_rng(12)
    for kind in ("SphereOnPlaneContact", "SphereOnSphereContact", "LineOnLineContact"):
        system, matter, c, state = make(kind, True, rng, False)
        X = kt.Transform(kt.Rotation.about_y(0.3), [0.1, -0.2, 0.05])
        if kind == "SphereOnPlaneContact":
            c.set_plane_frame(state, X).set_sphere_radius(state, 0.7)
        elif kind == "SphereOnSphereContact":
            c.set_center_on_f(state, X.p).set_radius_on_b(state, 0.7)
        else:
            c.set_edge_frame_b(state, X).set_half_length_f(state, 0.7)
        system.realize(state, kt.Stage.ACCELERATION)
        path = tmp_path / f"{kind}.npz"
        state.save(path)
        back = kt.State.load(path, system)
        system.realize(back, kt.Stage.ACCELERATION)
        np.testing.assert_array_equal(c.get_multipliers(back), c.get_multipliers(state))
        np.testing.assert_array_equal(c.get_position_errors_as_vector(back),
                                      c.get_position_errors_as_vector(state))


def test_default_decorations_show_the_contact_geometry():
    """At POSITION each draws what Simbody draws: the plane and the point or sphere, both
    spheres, or both edges with their closest points and the contact frame."""
    from kinetree.viz.scene import suggested_decorations

    rng = np.random.default_rng(13)
    expected = {"PointOnPlaneContact": ["DecorativeBrick", "DecorativeSphere"],
                "SphereOnPlaneContact": ["DecorativeBrick", "DecorativeFrame",
                                         "DecorativeSphere"],
                "SphereOnSphereContact": ["DecorativeSphere", "DecorativeSphere"],
                "LineOnLineContact": ["DecorativeLine", "DecorativePoint", "DecorativeLine",
                                      "DecorativePoint", "DecorativeFrame"]}
    for kind, names in expected.items():
        system, matter, c, state = make(kind, True, rng, False)
        system.realize(state, kt.Stage.POSITION)
        drawn = suggested_decorations([c.get_implementation()], state, kt.Stage.POSITION)
        assert [type(g).__name__ for g in drawn] == names
        if kind == "LineOnLineContact":
            Qf, Qb, _ = c.find_closest_points_in_g(state)
            np.testing.assert_allclose(drawn[1].get_point(), Qf)
            np.testing.assert_allclose(drawn[3].get_point(), Qb)
        if kind == "SphereOnSphereContact":
            assert [g.get_radius() for g in drawn] == [0.3, 0.4]
