"""set_q_to_fit_transform and set_u_to_fit_velocity, per mobilizer type, against Simbody's
per-type rules (RigidBodyNodeSpec_<Type>::setQToFit* / setUToFit*).

(1) A transform in reach, X_FM(q), gives back q (the quaternion up to sign and norm) and so
X_FM itself; (2) a transform out of reach lands where Simbody's rule puts it (a Pin keeps the
last body-fixed x-y-z angle, a Slider p_FM's x, a BendStretch takes its angle from p_FM ...);
(3) a velocity in reach, V_FM = H u, gives back u; out of reach, mobilizers whose H columns
are orthonormal give the least-squares u, and the others follow Simbody's own formula.
"""

import math

import numpy as np
import pytest

import kinetree as kt

PITCH = 0.13
RADII = (0.5, 0.3, 0.2)
N_DRAWS = 4

# (type, Euler-angle mode)
CASES = [("Weld", False), ("Pin", False), ("Slider", False), ("Universal", False),
         ("Cylinder", False), ("Screw", False), ("Planar", False), ("Gimbal", False),
         ("Ball", False), ("Ball", True), ("Free", False), ("Free", True),
         ("Translation", False), ("BendStretch", False), ("SphericalCoords", False),
         ("LineOrientation", False), ("LineOrientation", True), ("FreeLine", False),
         ("FreeLine", True), ("Ellipsoid", False), ("Ellipsoid", True), ("Bushing", False),
         ("CantileverFreeBeam", False)]
IDS = [f"{k}-euler" if e else k for k, e in CASES]
CASE = pytest.mark.parametrize("kind, euler", CASES, ids=IDS)
QUATERNION_TYPES = {"Ball", "Free", "LineOrientation", "FreeLine", "Ellipsoid"}


def build(kind, euler=False, radii=RADII):
    """One body on a ``kind`` mobilizer to Ground, realized to MODEL."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    extra = {"Screw": (PITCH,), "Ellipsoid": (radii,), "CantileverFreeBeam": (0.8,)}.get(
        kind, ())
    mobod = getattr(kt.MobilizedBody, kind)(matter.Ground(), body, *extra)
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize_model(state)
    return system, mobod, state


def has_quaternion(kind, euler):
    return kind in QUATERNION_TYPES and not euler


def random_q(kind, euler, nq, rng):
    """A q away from the type's singularities: angles in (-1, 1) rad (middle Euler angle far
    from ±π/2), a non-unit quaternion of any orientation, a positive BendStretch radius, and
    Screw turns beyond ±π (the translation pins them down)."""
    q = rng.uniform(-1.0, 1.0, nq)
    if has_quaternion(kind, euler):
        q[:4] = rng.normal(size=4)
        q[:4] *= 1.6 / np.linalg.norm(q[:4])
    elif kind == "BendStretch":
        q[1] = rng.uniform(0.2, 1.5)
    elif kind == "Screw":
        q[0] = rng.uniform(-7.0, 7.0)
    return q


def canonical(q, kind, euler):
    """q with its quaternion block (if any) made unit with w >= 0."""
    q = np.array(q, dtype=float)
    if has_quaternion(kind, euler):
        q[:4] /= np.linalg.norm(q[:4])
        q[:4] *= 1.0 if q[0] >= 0 else -1.0
    return q


def pose(system, mobod, state, q=None, u=None, stage=kt.Stage.VELOCITY):
    s = state.copy()
    if q is not None:
        mobod.set_q(s, q)
    if u is not None:
        mobod.set_u(s, u)
    system.realize(s, stage)
    return s


def transform(R, p):
    return kt.Transform(kt.Rotation(np.asarray(R, dtype=float)), np.asarray(p, dtype=float))


def fitted_q(system, mobod, state, X_FM):
    s = state.copy()
    mobod.set_q_to_fit_transform(s, X_FM)
    system.realize(s, kt.Stage.POSITION)
    return s, mobod.get_q(s)


def assert_same_transform(X, Y, tol=1e-12):
    np.testing.assert_allclose(X.R.as_matrix(), Y.R.as_matrix(), rtol=0, atol=tol)
    np.testing.assert_allclose(X.p, Y.p, rtol=0, atol=tol)


def hinge_columns(system, mobod, state):
    """H_FM (6 x nu) at the state's q, read column by column as V_FM of unit speeds."""
    nu = mobod.get_num_u(state)
    cols = [mobod.get_mobilizer_velocity(pose(system, mobod, state, u=np.eye(nu)[i]))
            for i in range(nu)]
    return np.array(cols).T.reshape(6, nu)


# ----------------------------------------------------------------------- (1) round trips
@CASE
def test_transform_in_reach_gives_back_q_and_x_fm(kind, euler):
    system, mobod, state = build(kind, euler)
    rng = np.random.default_rng(7)
    for _ in range(N_DRAWS):
        q = random_q(kind, euler, mobod.get_num_q(state), rng)
        X = mobod.get_mobilizer_transform(pose(system, mobod, state, q, stage=kt.Stage.POSITION))
        fit, q_fit = fitted_q(system, mobod, state, X)
        assert_same_transform(mobod.get_mobilizer_transform(fit), X)
        np.testing.assert_allclose(q_fit, canonical(q, kind, euler), rtol=0, atol=1e-12)


@CASE
def test_velocity_in_reach_gives_back_u(kind, euler):
    system, mobod, state = build(kind, euler)
    rng = np.random.default_rng(11)
    for _ in range(N_DRAWS):
        q = random_q(kind, euler, mobod.get_num_q(state), rng)
        u = rng.uniform(-1.0, 1.0, mobod.get_num_u(state))
        source = pose(system, mobod, state, q, u)
        V = mobod.get_mobilizer_velocity(source)
        target = pose(system, mobod, state, q, np.zeros_like(u), stage=kt.Stage.POSITION)
        mobod.set_u_to_fit_velocity(target, V)
        np.testing.assert_allclose(mobod.get_u(target), u, rtol=0, atol=1e-12)
        system.realize(target, kt.Stage.VELOCITY)
        np.testing.assert_allclose(mobod.get_mobilizer_velocity(target), V, rtol=0, atol=1e-12)


# --------------------------------------------------------- (2) transforms out of reach
TILTED = kt.Rotation.from_body_fixed_xyz([0.2, -0.3, 0.9])      # last angle 0.9 about Mz
P_OFF = np.array([0.4, -0.5, 0.6])


@pytest.mark.parametrize("kind, expected", [
    ("Pin", [0.9]),                  # only the angle left about Mz
    ("Slider", [0.4]),               # only p_FM's x; the rotation is ignored
    ("Cylinder", [0.9, 0.6]),
    ("Planar", [0.9, 0.4, -0.5]),
    ("Translation", [0.4, -0.5, 0.6]),
])
def test_constant_axis_types_keep_their_components(kind, expected):
    system, mobod, state = build(kind)
    _, q = fitted_q(system, mobod, state, kt.Transform(TILTED, P_OFF))
    np.testing.assert_allclose(q, expected, rtol=0, atol=1e-12)


def test_pin_takes_the_last_body_fixed_angle_not_the_angle_axis_projection():
    system, mobod, state = build("Pin")
    R = kt.Rotation.about_axis(1.1, [0.5, -0.7, 1.0])
    _, q = fitted_q(system, mobod, state, kt.Transform(R, [1.0, 2.0, 3.0]))
    m = R.as_matrix()
    assert q[0] == pytest.approx(math.atan2(-m[0, 1], m[0, 0]), abs=1e-12)
    angle, *axis = R.convert_rotation_to_angle_axis()
    projection = math.atan2(math.sin(angle) * axis[2], math.cos(angle))
    assert abs(q[0] - projection) > 1e-3      # a different rule, and Simbody's is this one


def test_screw_lets_the_translation_decide():
    system, mobod, state = build("Screw")
    _, q = fitted_q(system, mobod, state, kt.Transform(kt.Rotation.about_z(0.5),
                                                      [1.0, 2.0, 3 * PITCH]))
    assert q[0] == pytest.approx(3.0, abs=1e-12)


def _simbody_xy_angles(m):
    """Simbody's two-angle body-fixed x-y decomposition (each sine and cosine averaged from
    the element and the magnitude its row or column implies), written out for x, y."""
    def avg(direct, a, b):
        return 0.5 * (direct + (1.0 if direct > 0 else -1.0) * math.hypot(a, b))
    return [math.atan2(avg(m[2, 1], m[1, 0], m[1, 2]), avg(m[1, 1], m[2, 0], m[2, 2])),
            math.atan2(avg(m[0, 2], m[1, 0], m[2, 0]), avg(m[0, 0], m[1, 2], m[2, 2]))]


def test_universal_follows_simbodys_two_angle_rule_and_ignores_translation():
    system, mobod, state = build("Universal")
    _, q = fitted_q(system, mobod, state, kt.Transform(TILTED, P_OFF))
    np.testing.assert_allclose(q, _simbody_xy_angles(TILTED.as_matrix()), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind, euler", [("Gimbal", False), ("Ball", False), ("Ball", True),
                                         ("LineOrientation", False)])
def test_orientation_types_fit_the_rotation_exactly_and_ignore_translation(kind, euler):
    system, mobod, state = build(kind, euler)
    fit, _ = fitted_q(system, mobod, state, kt.Transform(TILTED, P_OFF))
    assert_same_transform(mobod.get_mobilizer_transform(fit), kt.Transform(TILTED))


def test_spherical_coords_stretch_along_the_fitted_radial_axis():
    system, mobod, state = build("SphericalCoords")
    R = kt.Rotation.about_z(0.4) @ kt.Rotation.about_y(0.7)
    _, q = fitted_q(system, mobod, state, kt.Transform(R, P_OFF))
    np.testing.assert_allclose(q, [0.4, 0.7, P_OFF @ R.as_matrix()[:, 2]], rtol=0, atol=1e-12)


def test_bend_stretch_takes_angle_and_nonnegative_radius_from_the_translation():
    system, mobod, state = build("BendStretch")
    _, q = fitted_q(system, mobod, state, kt.Transform(TILTED, [-0.6, 0.8, 0.5]))
    np.testing.assert_allclose(q, [math.atan2(0.8, -0.6), 1.0], rtol=0, atol=1e-12)
    _, q = fitted_q(system, mobod, state, kt.Transform(TILTED, [0.0, 0.0, 0.5]))
    np.testing.assert_allclose(q, [0.9, 0.0], rtol=0, atol=1e-12)      # Pin's rule
    # a negative stretch is out of Simbody's fit: same origin, the other way round
    X = mobod.get_mobilizer_transform(pose(system, mobod, state, [0.3, -0.8],
                                           stage=kt.Stage.POSITION))
    fit, q = fitted_q(system, mobod, state, X)
    np.testing.assert_allclose(q, [0.3 - math.pi, 0.8], rtol=0, atol=1e-12)
    np.testing.assert_allclose(mobod.get_mobilizer_transform(fit).p, X.p, rtol=0, atol=1e-12)


@pytest.mark.parametrize("euler", [False, True])
def test_ellipsoid_aims_its_origin_at_the_requested_point_keeping_the_spin(euler):
    system, mobod, state = build("Ellipsoid", euler)
    target = np.array([1.0, 1.0, 1.0])                     # off the surface
    fit, _ = fitted_q(system, mobod, state, kt.Transform(TILTED, target))
    X = mobod.get_mobilizer_transform(fit)
    assert np.sum((X.p / RADII) ** 2) == pytest.approx(1.0, abs=1e-12)     # on the surface
    np.testing.assert_allclose(np.cross(X.p, target), 0.0, atol=1e-12)   # on the ray ...
    assert X.p @ target > 0                                                  # ... not behind
    spin = X.R.convert_rotation_to_body_fixed_xyz()[2]
    assert spin == pytest.approx(0.9, abs=1e-12)
    fit, _ = fitted_q(system, mobod, state, kt.Transform(TILTED))   # no translation: Ball
    assert_same_transform(mobod.get_mobilizer_transform(fit),
                          kt.Transform(TILTED, RADII * TILTED.as_matrix()[:, 2]))


@pytest.mark.parametrize("kind", ["Ellipsoid", "CantileverFreeBeam"])
@pytest.mark.parametrize("euler", [False, True])
def test_types_whose_translation_follows_fit_a_rotation_or_spin_alone(kind, euler):
    """As Simbody's: set_q_to_fit_rotation gives exactly the rotation asked whatever the
    translation was (which follows), and set_u_to_fit_angular_velocity exactly the angular
    velocity."""
    system, mobod, state = build(kind, euler)
    mobod.set_q_to_fit_transform(state, kt.Transform(TILTED, [0.3, -0.2, 0.4]))
    mobod.set_q_to_fit_rotation(state, TILTED)
    system.realize(state, kt.Stage.POSITION)
    X = mobod.get_mobilizer_transform(state)
    np.testing.assert_allclose(X.R.as_matrix(), TILTED.as_matrix(), atol=1e-14)
    w = np.array([0.3, -0.7, 0.2])
    mobod.set_u_to_fit_angular_velocity(state, w)
    system.realize(state, kt.Stage.VELOCITY)
    np.testing.assert_allclose(mobod.get_mobilizer_velocity(state)[:3], w, atol=1e-14)


@pytest.mark.parametrize("kind, euler", [("Weld", False), ("Free", False), ("Free", True),
                                         ("FreeLine", False), ("Bushing", False)])
def test_full_types_fit_any_transform(kind, euler):
    system, mobod, state = build(kind, euler)
    X = kt.Transform(TILTED, P_OFF) if kind != "Weld" else kt.Transform()
    fit, _ = fitted_q(system, mobod, state, X)
    assert_same_transform(mobod.get_mobilizer_transform(fit), X)


# --------------------------------------------------------- (3) velocities out of reach
V_OFF = np.array([0.3, -0.2, 0.7, 1.0, 2.0, 3.0])


@pytest.mark.parametrize("kind, euler", [("Pin", False), ("Slider", False),
                                         ("Cylinder", False), ("Planar", False),
                                         ("Translation", False), ("Universal", False),
                                         ("Ball", False), ("Ball", True),
                                         ("LineOrientation", False), ("LineOrientation", True),
                                         ("FreeLine", False), ("Free", True)])
def test_orthonormal_hinges_drop_what_they_cannot_make_least_squares(kind, euler):
    """Where H's columns are orthonormal, Simbody's rule is the orthogonal projection."""
    system, mobod, state = build(kind, euler)
    q = random_q(kind, euler, mobod.get_num_q(state), np.random.default_rng(3))
    s = pose(system, mobod, state, q, stage=kt.Stage.POSITION)
    H = hinge_columns(system, mobod, s)
    np.testing.assert_allclose(H.T @ H, np.eye(H.shape[1]), atol=1e-14)
    mobod.set_u_to_fit_velocity(s, V_OFF)
    np.testing.assert_allclose(mobod.get_u(s), np.linalg.lstsq(H, V_OFF, rcond=None)[0],
                               rtol=0, atol=1e-12)


def test_pin_and_slider_keep_one_component():
    for kind, expected in (("Pin", 0.7), ("Slider", 1.0)):
        system, mobod, state = build(kind)
        s = pose(system, mobod, state, stage=kt.Stage.POSITION)
        mobod.set_u_to_fit_velocity(s, V_OFF)
        assert mobod.get_one_u(s, 0) == expected


def test_screw_speed_comes_from_the_linear_velocity():
    system, mobod, state = build("Screw")
    s = pose(system, mobod, state, stage=kt.Stage.POSITION)
    mobod.set_u_to_fit_velocity(s, V_OFF)
    assert mobod.get_one_u(s, 0) == pytest.approx(3.0 / PITCH, rel=1e-15)


def test_spherical_coords_speeds_follow_simbodys_rule():
    system, mobod, state = build("SphericalCoords")
    s = pose(system, mobod, state, [0.4, 0.7, 1.3], stage=kt.Stage.POSITION)
    R = mobod.get_mobilizer_transform(s).R.as_matrix()
    mobod.set_u_to_fit_velocity(s, V_OFF)
    w, v = V_OFF[:3], V_OFF[3:]
    expected = [w[2], R[:, 1] @ [w[0], w[1], 0.0], R[:, 2] @ v]
    np.testing.assert_allclose(mobod.get_u(s), expected, rtol=0, atol=1e-14)


def test_bend_stretch_turning_rate_comes_from_the_sideways_velocity():
    system, mobod, state = build("BendStretch")
    for r, turn in ((0.8, None), (0.0, V_OFF[2])):
        s = pose(system, mobod, state, [0.4, r], stage=kt.Stage.POSITION)
        R = mobod.get_mobilizer_transform(s).R.as_matrix()
        mobod.set_u_to_fit_velocity(s, V_OFF)
        along, across = R[:, 0] @ V_OFF[3:], R[:, 1] @ V_OFF[3:]
        expected = [across / r if turn is None else turn, along]
        np.testing.assert_allclose(mobod.get_u(s), expected, rtol=0, atol=1e-14)


def test_gimbal_and_bushing_make_w_exactly_and_drop_or_keep_v():
    for kind, v_kept in (("Gimbal", False), ("Bushing", True)):
        system, mobod, state = build(kind)
        q = random_q(kind, False, mobod.get_num_q(state), np.random.default_rng(5))
        s = pose(system, mobod, state, q, stage=kt.Stage.POSITION)
        mobod.set_u_to_fit_velocity(s, V_OFF)
        system.realize(s, kt.Stage.VELOCITY)
        V = mobod.get_mobilizer_velocity(s)
        np.testing.assert_allclose(V[:3], V_OFF[:3], rtol=0, atol=1e-14)
        np.testing.assert_allclose(V[3:], V_OFF[3:] if v_kept else 0.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("euler", [False, True])
def test_ellipsoid_keeps_the_spin_and_fits_the_origin_velocity(euler):
    system, mobod, state = build("Ellipsoid", euler)
    q = random_q("Ellipsoid", euler, mobod.get_num_q(state), np.random.default_rng(9))
    s = pose(system, mobod, state, q, stage=kt.Stage.POSITION)
    n = mobod.get_mobilizer_transform(s).R.as_matrix()[:, 2]
    mobod.set_u_to_fit_velocity(s, V_OFF)
    u = mobod.get_u(s)
    assert u @ n == pytest.approx(V_OFF[:3] @ n, abs=1e-14)        # the spin rate, as given
    system.realize(s, kt.Stage.VELOCITY)
    residual = V_OFF[3:] - mobod.get_mobilizer_velocity(s)[3:]
    H = hinge_columns(system, mobod, s)
    np.testing.assert_allclose(H[3:].T @ residual, 0.0, atol=1e-14)   # least squares in v


def test_ellipsoid_on_a_sphere_is_simbodys_formula():
    """Simbody: w in M = (-v_My / r, v_Mx / r, w_Mz), right on a sphere of radius r."""
    r = 0.4
    system, mobod, state = build("Ellipsoid", radii=(r, r, r))
    q = random_q("Ellipsoid", False, 4, np.random.default_rng(13))
    s = pose(system, mobod, state, q, stage=kt.Stage.POSITION)
    R = mobod.get_mobilizer_transform(s).R.as_matrix()
    mobod.set_u_to_fit_velocity(s, V_OFF)
    v_M, w_M = R.T @ V_OFF[3:], R.T @ V_OFF[:3]
    np.testing.assert_allclose(R.T @ mobod.get_u(s), [-v_M[1] / r, v_M[0] / r, w_M[2]],
                               rtol=0, atol=1e-14)


# ------------------------------------------------------------------------- stage checks
def test_fits_check_their_stage_and_arguments():
    system, mobod, state = build("Pin")
    mobod.set_u_to_fit_velocity(state, V_OFF)   # from q alone, at MODEL, as Simbody's
    assert mobod.get_u(state)[0] == V_OFF[2]
    early = state.copy()
    early.invalidate_all(kt.Stage.MODEL)
    with pytest.raises(kt.StageTooLowError, match="set_u_to_fit_velocity"):
        mobod.set_u_to_fit_velocity(early, V_OFF)
    s = pose(system, mobod, state, stage=kt.Stage.POSITION)
    with pytest.raises(kt.errors.InvalidArgumentError, match="6 numbers"):
        mobod.set_u_to_fit_velocity(s, V_OFF[:3])
    with pytest.raises(kt.errors.InvalidArgumentError, match="Transform"):
        mobod.set_q_to_fit_transform(s, np.eye(4))
