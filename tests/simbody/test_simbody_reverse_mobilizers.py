"""A port of Simbody's own test Simbody/tests/TestReverseMobilizers.cpp to kinetree.

All seven subtests, in Simbody's order: Pin, Planar, Ellipsoid, Free, Gimbal, Bushing and
CantileverFreeBeam. Each builds two free bodies A and B (200 t each, full inertia, offset
mass center, twisted mobilizer frames) joined by the mobilizer under test, twice: forward,
Ground -(Free)-> A -(joint)-> B, and reversed, Ground -(Free)-> B -(reversed joint)-> A,
where the reversed joint's q and u must mean what the forward joint's do. With the same q
and u set in both (B's Free fitted to where B ended up, A's joint u fitted to A's velocity
in B), with gravity and equal mobility forces on the joint, both bodies have the same
pose, velocity and acceleration in both systems, and the reaction of the reversed joint on
A is the forward joint's reaction on B shifted to A's mobilizer frame and negated. The Pin
subtest adds a third system with a forward Pin from B to A, whose angle and force change
sign.

The file's own ``assertEqual`` overloads are kept as ``assert_equal`` (absolute: each
component to tol, 1e-10 by default; Transforms by translation and body-fixed x-y-z
angles), with each of Simbody's tolerances. C++'s implicit Vec3 -> Transform and
MassProperties -> Body conversions are written out.
"""

import math

import numpy as np

import kinetree as kt

TOL = 1e-10

D = 1.5  # length (m)
MASS = 200000  # kg
# Mobilizer frame on A (used for both inboard and outboard).
X_AM = kt.Transform(kt.Rotation.about_axis(math.pi / 3, [.1, -.3, .3]), [-4, -5, -1])
# Mobilizer frame on B (used for both inboard and outboard).
X_BM = kt.Transform(kt.Rotation.about_axis(-math.pi / 10, [7, 5, 3]), [0, D, 0])
ORIGIN = kt.Transform([0, 0, 0])
REVERSE = kt.MobilizedBody.Direction.REVERSE


def assert_equal(val1, val2, tol=TOL):
    """The test file's assertEqual: every component |a - b| < tol (absolute); a Transform
    by its translation and its body-fixed x-y-z angles."""
    if isinstance(val1, kt.Transform):
        assert_equal(val1.p, val2.p, tol)
        assert_equal(val1.R.convert_rotation_to_body_fixed_xyz(),
                     val2.R.convert_rotation_to_body_fixed_xyz(), tol)
        return
    a, b = np.asarray(val1, dtype=float), np.asarray(val2, dtype=float)
    assert a.shape == b.shape, f"shapes {a.shape} and {b.shape}"
    assert np.all(np.abs(a - b) < tol), \
        f"max |a - b| = {np.max(np.abs(a - b)):.3g} >= {tol:.3g}; a = {a}, b = {b}"


def system_with_gravity():
    """A MultibodySystem with its matter and force subsystems and gravity (0, -1, 0)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -1, 0])
    return system, matter, forces


def the_body():
    """Simbody's body: mass 200 t, mass center (1, 2, 3), a full central inertia."""
    com = [1, 2, 3]
    central_gyration = kt.UnitInertia(1, 1.5, 2, .1, .2, .3)
    return kt.Body.Rigid(kt.MassProperties(
        MASS, com, MASS * central_gyration.shift_from_mass_center(com, 1)))


def put_body_a_somewhere(fwd_a, fwd_state):
    """Put body A somewhere arbitrary."""
    fwd_a.set_q_to_fit_transform(fwd_state, kt.Transform(
        kt.Rotation.about_axis(-1.9, [-3, 2, 4]), [-.33, .66, -.99]))


def velocity_of_b_at_m(fwd_b, fwd_state):
    """V_G_BM: B's angular velocity and the velocity of its mobilizer frame's origin."""
    return np.concatenate([fwd_b.get_body_angular_velocity(fwd_state),
                           fwd_b.find_station_velocity_in_ground(fwd_state, X_BM.p)])


def velocity_of_a_in_b(fwd_b, fwd_state):
    """(X_BA, V_BA): A's frame and velocity in B's, constructed from B's in A's."""
    X_AB = fwd_b.get_mobilizer_transform(fwd_state)
    X_BA = X_AB.invert()
    V_AB = fwd_b.get_mobilizer_velocity(fwd_state)
    V_BA = np.concatenate([-(X_BA.R @ V_AB[:3]),
                           -(X_BA.R @ (V_AB[3:] + np.cross(X_AB.p, V_AB[:3])))])
    return X_BA, V_BA


def reaction_on_a(F_AB, X_GMb, X_BA):
    """F_BA = -(F_AB + [f_AB x p_BA_G; 0]): the reaction at B's mobilizer frame moved
    over to A's and negated (AB != -BA when the joint translates)."""
    shift = np.cross(F_AB[3:], X_GMb.R @ X_BA.p)
    return -(F_AB + np.concatenate([shift, np.zeros(3)]))


def test_pin():
    """testPin: Ground (6dof) A (pin) B (6dof) Ground; reverse system 1 is A <-(pin) B
    <-(6dof) Ground, reverse system 2 is A <-(reversed pin) B <-(6dof) Ground, whose pin q
    and u mean the forward one's. HDot is zero both ways: this tests H reversal only."""
    forward, fwd_matter, fwd_forces = system_with_gravity()
    reverse1, rev1_matter, rev1_forces = system_with_gravity()
    reverse2, rev2_matter, rev2_forces = system_with_gravity()

    body = the_body()

    fwd_a = kt.MobilizedBody.Free(fwd_matter.Ground(), ORIGIN, body, X_AM)
    rev1_b = kt.MobilizedBody.Free(rev1_matter.Ground(), ORIGIN, body, X_BM)
    rev2_b = kt.MobilizedBody.Free(rev2_matter.Ground(), ORIGIN, body, X_BM)

    fwd_b = kt.MobilizedBody.Pin(fwd_a, X_AM, body, X_BM)
    rev1_a = kt.MobilizedBody.Pin(rev1_b, X_BM, body, X_AM)
    rev2_a = kt.MobilizedBody.Pin(rev2_b, X_BM, body, X_AM, REVERSE)

    kt.Force.MobilityConstantForce(fwd_forces, fwd_b, 0, -34.5)
    kt.Force.MobilityConstantForce(rev1_forces, rev1_a, 0, 34.5)
    kt.Force.MobilityConstantForce(rev2_forces, rev2_a, 0, -34.5)  # reversed

    fwd_state = forward.realize_topology()
    rev1_state = reverse1.realize_topology()
    rev2_state = reverse2.realize_topology()

    put_body_a_somewhere(fwd_a, fwd_state)

    fwd_b.set_angle(fwd_state, math.pi / 4)  # 45 degrees
    rev1_a.set_angle(rev1_state, -math.pi / 4)
    rev2_a.set_angle(rev2_state, math.pi / 4)

    # Calculate where body B ended up in the forward system and set the reverse Free
    # joints to match, so that the whole system is identically configured.
    forward.realize(fwd_state, kt.Stage.POSITION)
    X_GB = fwd_b.get_body_transform(fwd_state)
    rev1_b.set_q_to_fit_transform(rev1_state, X_GB @ X_BM)
    rev2_b.set_q_to_fit_transform(rev2_state, X_GB @ X_BM)
    reverse1.realize(rev1_state, kt.Stage.POSITION)
    reverse2.realize(rev2_state, kt.Stage.POSITION)

    assert_equal(fwd_b.get_body_transform(fwd_state), rev1_b.get_body_transform(rev1_state))
    assert_equal(fwd_b.get_body_transform(fwd_state), rev2_b.get_body_transform(rev2_state))
    assert_equal(fwd_a.get_body_transform(fwd_state), rev1_a.get_body_transform(rev1_state))
    assert_equal(fwd_a.get_body_transform(fwd_state), rev2_a.get_body_transform(rev2_state))

    fwd_b.set_rate(fwd_state, 3)
    forward.realize(fwd_state, kt.Stage.VELOCITY)

    V_G_BM = velocity_of_b_at_m(fwd_b, fwd_state)
    rev1_b.set_u_to_fit_velocity(rev1_state, V_G_BM)
    rev2_b.set_u_to_fit_velocity(rev2_state, V_G_BM)

    _, V_BA = velocity_of_a_in_b(fwd_b, fwd_state)
    rev1_a.set_u_to_fit_velocity(rev1_state, V_BA)
    rev2_a.set_u_to_fit_velocity(rev2_state, V_BA)

    assert_equal(fwd_b.get_u(fwd_state), rev2_a.get_u(rev2_state))

    reverse1.realize(rev1_state, kt.Stage.VELOCITY)
    reverse2.realize(rev2_state, kt.Stage.VELOCITY)

    assert_equal(fwd_b.get_body_velocity(fwd_state), rev1_b.get_body_velocity(rev1_state))
    assert_equal(fwd_b.get_body_velocity(fwd_state), rev2_b.get_body_velocity(rev2_state))
    assert_equal(fwd_a.get_body_velocity(fwd_state), rev1_a.get_body_velocity(rev1_state))
    assert_equal(fwd_a.get_body_velocity(fwd_state), rev2_a.get_body_velocity(rev2_state))

    forward.realize(fwd_state, kt.Stage.ACCELERATION)
    reverse1.realize(rev1_state, kt.Stage.ACCELERATION)
    reverse2.realize(rev2_state, kt.Stage.ACCELERATION)

    assert_equal(fwd_b.get_body_acceleration(fwd_state),
                 rev1_b.get_body_acceleration(rev1_state))
    assert_equal(fwd_b.get_body_acceleration(fwd_state),
                 rev2_b.get_body_acceleration(rev2_state))
    assert_equal(fwd_a.get_body_acceleration(fwd_state),
                 rev1_a.get_body_acceleration(rev1_state))
    assert_equal(fwd_a.get_body_acceleration(fwd_state),
                 rev2_a.get_body_acceleration(rev2_state))

    fwd_reac = fwd_matter.calc_mobilizer_reaction_forces(fwd_state)
    rev1_reac = rev1_matter.calc_mobilizer_reaction_forces(rev1_state)
    rev2_matter.calc_mobilizer_reaction_forces(rev2_state)

    # The AB reaction is -BA for a pin joint, which holds the origins of the mobilizer
    # frames together (not so for every joint type).
    reac_ba = -fwd_reac[fwd_b.get_mobilized_body_index()]
    reac_ba1 = rev1_reac[rev1_a.get_mobilized_body_index()]
    # Simbody's reacBA2 reads rev1Reac again (its slip, kept): rev2's reaction is unused.
    reac_ba2 = rev1_reac[rev1_a.get_mobilized_body_index()]

    assert_equal(reac_ba, reac_ba1, 1e-7)
    assert_equal(reac_ba, reac_ba2, 1e-7)


def build_pair(joint, *extra):
    """The forward and reversed two-body systems with ``joint`` between A and B (``extra``
    its arguments after X_BM, such as the radii or the beam length). Returns (forward,
    fwd_matter, fwd_forces, fwd_a, fwd_b) and the same for the reversed system."""
    forward, fwd_matter, fwd_forces = system_with_gravity()
    reverse, rev_matter, rev_forces = system_with_gravity()
    body = the_body()
    fwd_a = kt.MobilizedBody.Free(fwd_matter.Ground(), ORIGIN, body, X_AM)
    rev_b = kt.MobilizedBody.Free(rev_matter.Ground(), ORIGIN, body, X_BM)
    fwd_b = joint(fwd_a, X_AM, body, X_BM, *extra)
    rev_a = joint(rev_b, X_BM, body, X_AM, *extra, REVERSE)
    return (forward, fwd_matter, fwd_forces, fwd_a, fwd_b), \
        (reverse, rev_matter, rev_forces, rev_a, rev_b)


def three_mobility_forces(fwd_forces, fwd_b, rev_forces, rev_a):
    """The generalized speeds mean the same things, so the generalized forces do too."""
    for i, f in enumerate((-3.45, 2, -3)):
        kt.Force.MobilityConstantForce(fwd_forces, fwd_b, i, f)
    for i, f in enumerate((-3.45, 2, -3)):
        kt.Force.MobilityConstantForce(rev_forces, rev_a, i, f)  # reversed


def match_and_compare(fwd, rev, q_init, u_init, fit_angular_only=False, check_u=True,
                      accel_tol=TOL):
    """The part the subtests after testPin share: the same q in both joints, B's Free fit
    to B, the forward u and the reversed joint's u fit to A's velocity in B; then poses,
    velocities and accelerations compared. Returns what the reaction check needs."""
    forward, fwd_matter, _, fwd_a, fwd_b = fwd
    reverse, rev_matter, _, rev_a, rev_b = rev
    fwd_state = forward.realize_topology()
    rev_state = reverse.realize_topology()

    put_body_a_somewhere(fwd_a, fwd_state)

    # Set all the q's; meanings should be identical.
    fwd_b.set_q(fwd_state, q_init)
    rev_a.set_q(rev_state, q_init)

    # Calculate where body B ended up in the forward system and set the reverse Free
    # joint to match, so that the whole system is identically configured.
    forward.realize(fwd_state, kt.Stage.POSITION)
    X_GB = fwd_b.get_body_transform(fwd_state)
    X_GMb = X_GB @ X_BM
    rev_b.set_q_to_fit_transform(rev_state, X_GMb)
    reverse.realize(rev_state, kt.Stage.POSITION)

    assert_equal(fwd_b.get_body_transform(fwd_state), rev_b.get_body_transform(rev_state))
    assert_equal(fwd_a.get_body_transform(fwd_state), rev_a.get_body_transform(rev_state))

    # Handle velocities similarly.
    fwd_b.set_u(fwd_state, u_init)
    forward.realize(fwd_state, kt.Stage.VELOCITY)

    rev_b.set_u_to_fit_velocity(rev_state, velocity_of_b_at_m(fwd_b, fwd_state))

    X_BA, V_BA = velocity_of_a_in_b(fwd_b, fwd_state)
    if fit_angular_only:
        rev_a.set_u_to_fit_angular_velocity(rev_state, V_BA[:3])
    else:
        rev_a.set_u_to_fit_velocity(rev_state, V_BA)

    if check_u:
        assert_equal(fwd_b.get_u(fwd_state), rev_a.get_u(rev_state))

    reverse.realize(rev_state, kt.Stage.VELOCITY)

    assert_equal(fwd_b.get_body_velocity(fwd_state), rev_b.get_body_velocity(rev_state))
    assert_equal(fwd_a.get_body_velocity(fwd_state), rev_a.get_body_velocity(rev_state))

    forward.realize(fwd_state, kt.Stage.ACCELERATION)
    reverse.realize(rev_state, kt.Stage.ACCELERATION)

    assert_equal(fwd_b.get_body_acceleration(fwd_state),
                 rev_b.get_body_acceleration(rev_state), accel_tol)
    assert_equal(fwd_a.get_body_acceleration(fwd_state),
                 rev_a.get_body_acceleration(rev_state), accel_tol)

    fwd_reac = fwd_matter.calc_mobilizer_reaction_forces(fwd_state)
    rev_reac = rev_matter.calc_mobilizer_reaction_forces(rev_state)
    F_AB = fwd_reac[fwd_b.get_mobilized_body_index()]
    reac_ba_rev = rev_reac[rev_a.get_mobilized_body_index()]
    return F_AB, reac_ba_rev, X_GMb, X_BA


def test_planar():
    """testPlanar: reversing a Planar brings sines and cosines into H and a nonzero HDot
    where the forward one has none, so this tests H and HDot reversal (the rotation axis
    is the same both ways, so not every HDot term)."""
    fwd, rev = build_pair(kt.MobilizedBody.Planar)
    three_mobility_forces(fwd[2], fwd[4], rev[2], rev[3])
    F_AB, reac_ba2, X_GMb, X_BA = match_and_compare(
        fwd, rev, [math.pi / 4, -7, 4], [3, .3, .4])
    # The reaction AB is not -BA for a planar joint unless the translation is 0: shift
    # F_AB from B's mobilizer frame to A's, then negate.
    reac_ba = reaction_on_a(F_AB, X_GMb, X_BA)
    assert_equal(reac_ba, reac_ba2, 5e-6)


def test_ellipsoid():
    """testEllipsoid: H and HDot both populated, so the reverse HDot terms that involve
    the forward ones are tested; A's u are fitted to its angular velocity in B alone."""
    fwd, rev = build_pair(kt.MobilizedBody.Ellipsoid, [1, 2, 3])
    three_mobility_forces(fwd[2], fwd[4], rev[2], rev[3])
    quat = kt.Rotation.about_axis(math.pi / 7, [1.1, -2.2, 3.4]) \
        .convert_rotation_to_quaternion()
    F_AB, reac_ba2, X_GMb, X_BA = match_and_compare(
        fwd, rev, quat, [3, .3, .4], fit_angular_only=True)
    reac_ba = reaction_on_a(F_AB, X_GMb, X_BA)
    assert_equal(reac_ba, reac_ba2, np.linalg.norm(reac_ba) * 1e-8)


def test_free():
    """testFree: every mobilizer reversal equation; reversing a Free brings sines and
    cosines into H and a nonzero HDot, with high velocities so that wrong HDot cross terms
    would show."""
    fwd, rev = build_pair(kt.MobilizedBody.Free)
    gen_frc = [-3.45, 2, -3, .0232, 4.33, -2.4]
    for i in range(6):
        kt.Force.MobilityConstantForce(fwd[2], fwd[4], i, 1000 * gen_frc[i])
        kt.Force.MobilityConstantForce(rev[2], rev[3], i, 1000 * gen_frc[i])
    quat = kt.Rotation.about_axis(math.pi / 7, [1, 2, -3]).convert_rotation_to_quaternion()
    trans = [1.23, 2.34, -3.45]
    init = np.concatenate([quat, trans])
    F_AB, reac_ba2, X_GMb, X_BA = match_and_compare(
        fwd, rev, init, 1000 * np.array([.1, .2, -.33, 3, .3, .4]), accel_tol=1e-7)
    reac_ba = reaction_on_a(F_AB, X_GMb, X_BA)
    assert_equal(reac_ba, reac_ba2, np.linalg.norm(reac_ba) * 1e-5)


def test_gimbal():
    """testGimbal: the reaction AB is -BA, a gimbal never translating."""
    fwd, rev = build_pair(kt.MobilizedBody.Gimbal)
    three_mobility_forces(fwd[2], fwd[4], rev[2], rev[3])
    R_FM = kt.Rotation.about_axis(math.pi / 7, [1.1, -2.2, 3.4])
    F_AB, reac_ba_rev, _, _ = match_and_compare(
        fwd, rev, R_FM.convert_rotation_to_body_fixed_xyz(), [3, .3, .4], check_u=False)
    reac_ba_fwd = -F_AB
    assert_equal(reac_ba_fwd, reac_ba_rev, np.linalg.norm(reac_ba_fwd) * 1e-8)


def test_bushing():
    """testBushing."""
    fwd, rev = build_pair(kt.MobilizedBody.Bushing)
    three_mobility_forces(fwd[2], fwd[4], rev[2], rev[3])
    R_FM = kt.Rotation.about_axis(math.pi / 7, [1.1, -2.2, 3.4])
    angles = R_FM.convert_rotation_to_body_fixed_xyz()
    p_FM = [1.23, 2.34, -3.45]
    q_init = np.concatenate([angles, p_FM])
    F_AB, reac_ba_rev, X_GMb, X_BA = match_and_compare(
        fwd, rev, q_init, [.1, .2, -.33, 3, .3, .4], check_u=False)
    reac_ba_fwd = reaction_on_a(F_AB, X_GMb, X_BA)
    assert_equal(reac_ba_fwd, reac_ba_rev, np.linalg.norm(reac_ba_fwd) * 1e-8)


def test_cantilever_free_beam():
    """testCantileverFreeBeam: H and HDot both populated."""
    length = 1.23
    fwd, rev = build_pair(kt.MobilizedBody.CantileverFreeBeam, length)
    three_mobility_forces(fwd[2], fwd[4], rev[2], rev[3])
    R_FM = kt.Rotation.about_axis(math.pi / 7, [1.1, -2.2, 3.4])
    F_AB, reac_ba_rev, X_GMb, X_BA = match_and_compare(
        fwd, rev, R_FM.convert_rotation_to_body_fixed_xyz(), [3, .3, .4], check_u=False)
    reac_ba_fwd = reaction_on_a(F_AB, X_GMb, X_BA)
    assert_equal(reac_ba_fwd, reac_ba_rev, np.linalg.norm(reac_ba_fwd) * 1e-8)
