"""The mathematics of compliant contact (paper §5, Appendix A): materials and combining
rules, Hertz force with the elliptic eccentricity factor and patch axes checked against an
independent quadrature of the elliptic integrals and Johnson's relations, Hunt-Crossley
dissipation (clamping and the low-speed restitution e ≈ 1 - c v of a 1-DOF impact), and the
Stribeck and HuntCrossleyForce friction curves."""

import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

import kinetree as kt
from kinetree import contact as ct
from kinetree.errors import InvalidArgumentError, NonPhysicalError

# ---- independent elliptic integrals (quadrature of their definitions) ------------------


def K_quad(m):
    return quad(lambda t: 1.0 / math.sqrt(1.0 - m * math.sin(t) ** 2), 0, math.pi / 2,
                epsabs=0, epsrel=1e-12)[0]


def E_quad(m):
    return quad(lambda t: math.sqrt(1.0 - m * math.sin(t) ** 2), 0, math.pi / 2,
                epsabs=0, epsrel=1e-12)[0]


def ellipse_by_quadrature(kmax, kmin):
    """k = a/b from eq 29 solved by bisection on b/a with quadrature integrals."""
    ratio = kmax / kmin

    def g(t):  # t = b/a in (0, 1)
        m = 1 - t * t
        K, E = K_quad(m), E_quad(m)
        return (E / (t * t) - K) / (K - E) - ratio

    t = brentq(g, 1e-4, 1 - 1e-9, xtol=1e-15)
    return 1 / t, 1 - t * t


# ---- materials -----------------------------------------------------------------------


def test_material_getters_and_youngs_modulus_constructor():
    m = kt.ContactMaterial(2e6, 0.5, 0.9, 0.6, 0.1)
    assert (m.get_stiffness(), m.get_dissipation(), m.get_static_friction(),
            m.get_dynamic_friction(), m.get_viscous_friction()) == (2e6, 0.5, 0.9, 0.6, 0.1)
    assert m.get_stiffness23() == pytest.approx(2e6 ** (2 / 3), rel=1e-15)
    assert m.is_valid()
    rubber = ct.ContactMaterial.from_youngs_modulus(0.01e9, 0.5, 1.0, 0.8, 0.7)
    assert rubber.get_stiffness() == pytest.approx(0.01e9 / 0.75, rel=1e-15)
    assert ct.ContactMaterial.calc_plane_strain_stiffness(25e9, 0.15) == \
        pytest.approx(25e9 / (1 - 0.15 ** 2), rel=1e-15)
    assert ct.ContactMaterial.calc_confined_compression_stiffness(2e9, 0.25) == \
        pytest.approx(2e9 * 0.75 / (1.25 * 0.5), rel=1e-15)
    assert ct.ContactMaterial.calc_dissipation_from_observed_restitution(0.9, 0.5) == \
        pytest.approx(0.2)
    assert ct.ContactMaterial.calc_dissipation_from_observed_restitution(1.0, 0.0) == 0.0
    assert m.set_friction(0.5, 0.5) is m and m.get_viscous_friction() == 0.0


@pytest.mark.parametrize("args, words", [
    ((0.0, 0.1, 0.5, 0.4), "stiffness"),
    ((-1e6, 0.1, 0.5, 0.4), "stiffness"),
    ((math.nan, 0.1, 0.5, 0.4), "not finite"),
    ((1e6, -0.1, 0.5, 0.4), "dissipation"),
    ((1e6, 0.1, -0.5, 0.0), "static friction"),
    ((1e6, 0.1, 0.4, 0.5), "between 0 and the static"),
    ((1e6, 0.1, 0.5, -0.1), "between 0 and the static"),
    ((1e6, 0.1, 0.5, 0.4, -1.0), "viscous"),
])
def test_material_validation(args, words):
    with pytest.raises(NonPhysicalError, match=words):
        ct.ContactMaterial(*args)


def test_material_helper_validation():
    with pytest.raises(NonPhysicalError, match="nu"):
        ct.ContactMaterial.calc_plane_strain_stiffness(1e9, 0.6)
    with pytest.raises(NonPhysicalError, match="nu"):
        ct.ContactMaterial.calc_confined_compression_stiffness(1e9, 0.5)
    with pytest.raises(NonPhysicalError, match="restitution"):
        ct.ContactMaterial.calc_dissipation_from_observed_restitution(0.9, 0.0)
    with pytest.raises(InvalidArgumentError, match="real number"):
        ct.ContactMaterial("stiff", 0, 0, 0)


def test_combining_rules_by_hand():
    # k1^(2/3) = 1e4, k2^(2/3) = 4e4: s1 = 4/5, E*^(2/3) = 1e4*4e4/5e4 = 8e3.
    m1 = ct.ContactMaterial(1e6, 0.5, 0.6, 0.3, 0.2)
    m2 = ct.ContactMaterial(8e6, 1.0, 0.3, 0.3, 0.0)
    h = ct.combine_hertz(m1, m2)
    assert h.s1 == pytest.approx(0.8, rel=1e-14) and h.s2 == pytest.approx(0.2, rel=1e-13)
    assert h.stiffness == pytest.approx(8e3 ** 1.5, rel=1e-14)
    assert h.dissipation == pytest.approx(0.5 * 0.8 + 1.0 * 0.2, rel=1e-14)
    assert h.static_friction == pytest.approx(2 * 0.6 * 0.3 / 0.9, rel=1e-15)
    assert h.dynamic_friction == pytest.approx(0.3, rel=1e-15)
    assert h.viscous_friction == 0.0
    e = ct.combine_elastic_foundation(m1, m2)
    assert e.s1 == pytest.approx(8 / 9, rel=1e-15)
    assert e.stiffness == pytest.approx(8e12 / 9e6, rel=1e-15)
    assert e.dissipation == pytest.approx(0.5 * 8 / 9 + 1.0 / 9, rel=1e-15)
    assert ct.combined_friction(0.0, 0.0) == 0.0 and ct.combined_friction(0.5, 0.0) == 0.0


def test_hertz_combining_rule_gives_equal_force_on_both_bodies():
    """Appendix A.1: each body meets a rigid half space with its share x_i = s_i x of the
    deformation and its own stiffness; the forces agree with each other and with E*."""
    k1, k2, R, x = 3e7, 2e9, 0.05, 1e-4
    s1, s2 = ct.hertz_stiffness_weights(k1, k2)
    E_star = ct.hertz_composite_stiffness(k1, k2)
    f = ct.hertz_force(x, R, E_star)
    assert ct.hertz_force(s1 * x, R, k1) == pytest.approx(f, rel=1e-13)
    assert ct.hertz_force(s2 * x, R, k2) == pytest.approx(f, rel=1e-13)
    # A nearly rigid partner leaves E* at the soft material's stiffness.
    assert ct.hertz_composite_stiffness(k1, 1e30) == pytest.approx(k1, rel=1e-12)


# ---- Hertz geometry and force ----------------------------------------------------------


def test_sphere_on_half_space_and_sphere_on_sphere():
    E_star, x = 5e7, 2e-4
    for R_ball in (0.01, 0.1, 1.0):
        kmax, kmin = ct.relative_curvatures(1 / R_ball, 1 / R_ball, 0.0, 0.0)
        R = ct.effective_radius(kmax, kmin)
        assert R == pytest.approx(R_ball, rel=1e-15)
        assert ct.eccentricity_factor(kmax, kmin) == 1.0
        f = ct.hunt_crossley_normal_force(x, 0.0, R, E_star, 0.3, 1.0)
        assert f == pytest.approx(4 / 3 * E_star * math.sqrt(R_ball) * x ** 1.5, rel=1e-14)
        a, b = ct.hertz_patch_semi_axes(x, kmax, kmin)
        assert a == pytest.approx(math.sqrt(R_ball * x), rel=1e-14) and a == b
    R1, R2 = 0.03, 0.07
    kmax, kmin = ct.relative_curvatures(1 / R1, 1 / R1, 1 / R2, 1 / R2, angle=0.4)
    assert ct.effective_radius(kmax, kmin) == pytest.approx(R1 * R2 / (R1 + R2), rel=1e-14)
    assert ct.hertz_potential_energy(x, 0.02, E_star) == pytest.approx(
        quad(lambda s: ct.hertz_force(s, 0.02, E_star), 0, x, epsrel=1e-12)[0], rel=1e-8)


@pytest.mark.parametrize("case", ["crossed_cylinders", "ellipsoid_on_plane", "skew_pair"])
def test_elliptical_contact_against_quadrature_and_johnson(case):
    if case == "crossed_cylinders":  # z = x²/(2 R1) + y²/(2 R2)
        R1, R2 = 0.02, 0.15
        kmax, kmin = ct.relative_curvatures(1 / R1, 0.0, 1 / R2, 0.0, angle=math.pi / 2)
        assert (kmax, kmin) == pytest.approx((1 / R1, 1 / R2), rel=1e-14)
    elif case == "ellipsoid_on_plane":  # tip of semi-axes (0.05, 0.02, 0.03) on z
        a1, a2, a3 = 0.05, 0.02, 0.03
        kmax, kmin = ct.relative_curvatures(a3 / a2 ** 2, a3 / a1 ** 2, 0.0, 0.0)
    else:  # two doubly curved surfaces with principal directions 30° apart
        kmax, kmin = ct.relative_curvatures(40.0, 5.0, 12.0, -3.0, angle=math.radians(30))
        A_plus_B = 0.5 * (40 + 5 + 12 - 3)
        assert 0.5 * (kmax + kmin) == pytest.approx(A_plus_B, rel=1e-14)
    k_ref, m_ref = ellipse_by_quadrature(kmax, kmin)
    K, E = K_quad(m_ref), E_quad(m_ref)
    sigma_ref = math.pi * k_ref * math.sqrt(E) / (2 * K ** 1.5)
    assert ct.contact_ellipse_ratio(kmax, kmin) == pytest.approx(k_ref, rel=1e-9)
    sigma = ct.eccentricity_factor(kmax, kmin)
    assert sigma == pytest.approx(sigma_ref, rel=1e-9) and sigma > 1
    # Simbody's approximation (Antoine et al.) agrees to five digits, as the paper says.
    k_approx = ct.contact_ellipse_ratio_antoine(kmax, kmin)
    assert k_approx == pytest.approx(k_ref, rel=1e-5)

    # Johnson §4.2 (eqs 4.36-4.41): an elliptical pressure p0 √(1 - (x/a)² - (y/b)²) on
    # an ellipse a×b produces the gap A x² + B y² and approach δ with
    #   A = (p0/E*) b (K - E)/(e² a²), B = (p0/E*) b ((a/b)² E - K)/(e² a²), δ = p0 b K/E*.
    E_star, x = 2e8, 3e-5
    a, b = ct.hertz_patch_semi_axes(x, kmax, kmin)
    P = ct.hertz_force(x, ct.effective_radius(kmax, kmin), E_star, sigma)
    p0 = 3 * P / (2 * math.pi * a * b)
    e2 = 1 - (b / a) ** 2
    assert p0 / E_star * b * (K - E) / (e2 * a * a) == pytest.approx(kmin / 2, rel=1e-8)
    assert p0 / E_star * b * ((a / b) ** 2 * E - K) / (e2 * a * a) == \
        pytest.approx(kmax / 2, rel=1e-8)
    assert p0 * b * K / E_star == pytest.approx(x, rel=1e-8)


def test_hertz_argument_checks():
    with pytest.raises(InvalidArgumentError, match="kmax >= kmin > 0"):
        ct.eccentricity_factor(1.0, 2.0)
    with pytest.raises(InvalidArgumentError, match="kmax >= kmin > 0"):
        ct.effective_radius(10.0, 0.0)
    assert ct.hertz_force(-1e-3, 0.1, 1e9) == 0.0
    assert ct.hertz_patch_semi_axes(0.0, 2.0, 1.0) == (0.0, 0.0)


def test_contact_point_moves_toward_the_stiffer_surface():
    origin, n, x = np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.0, 1.0]), 0.01
    s1, _ = ct.hertz_stiffness_weights(1e6, 1e6)
    assert np.allclose(ct.contact_point(origin, n, x, s1), origin, atol=1e-16)
    s1, _ = ct.hertz_stiffness_weights(1e6, 1e40)  # surface 2 rigid: surface 1 squashed
    assert np.allclose(ct.contact_point(origin, n, x, s1), origin - 0.5 * x * n, atol=1e-15)
    s1, _ = ct.hertz_stiffness_weights(1e40, 1e6)
    assert np.allclose(ct.contact_point(origin, n, x, s1), origin + 0.5 * x * n, atol=1e-15)


# ---- Hunt-Crossley -----------------------------------------------------------------------


def test_hunt_crossley_force_is_never_negative():
    rng = np.random.default_rng(7)
    R, E_star, c = 0.05, 1e7, 2.0
    for x, xdot in zip(rng.uniform(-1e-3, 1e-2, 500), rng.uniform(-5, 5, 500)):
        f = ct.hunt_crossley_normal_force(x, xdot, R, E_star, c)
        assert f >= 0
        fh = ct.hertz_force(x, R, E_star)
        assert ct.hunt_crossley_dissipation_force(fh, xdot, c) == \
            pytest.approx(1.5 * c * xdot * fh, rel=1e-15)
        assert f == pytest.approx(max(fh * (1 + 1.5 * c * xdot), 0.0), rel=1e-14, abs=0)


def test_low_speed_restitution_follows_e_equals_1_minus_cv():
    """A point mass on a Hertz/Hunt-Crossley contact (1-DOF impact, no gravity): the
    rebound speed ratio is 1 - c v to first order in c v (paper §5.1, Hunt & Crossley).
    The full check with a dropped ball and the contact subsystem is for later."""
    mass, R, E_star, c = 0.5, 0.02, 1e8, 0.4

    def rhs(t, y):
        return [y[1], ct.hunt_crossley_normal_force(y[0], y[1], R, E_star, c) / -mass]

    def separated(t, y):
        return y[0]

    separated.terminal, separated.direction = True, -1
    for v in (0.01, 0.05, 0.1):
        sol = solve_ivp(rhs, (0, 1.0), [0.0, v], events=separated, rtol=1e-11, atol=1e-15,
                        method="DOP853", first_step=1e-9)
        e = -sol.y_events[0][0][1] / v
        assert 1 - e == pytest.approx(c * v, rel=0.05)


# ---- friction ----------------------------------------------------------------------------


US, UD, UV, VT = 0.9, 0.5, 0.2, 1e-2


def test_stribeck_values():
    mu = lambda v: ct.stribeck(v, US, UD, UV, VT)  # noqa: E731
    assert mu(0.0) == 0.0
    assert mu(VT) == pytest.approx(US + UV * VT, rel=1e-15)
    assert mu(2 * VT) == pytest.approx(0.5 * (US + UD) + UV * 2 * VT, rel=1e-15)
    assert mu(3 * VT) == pytest.approx(UD + UV * 3 * VT, rel=1e-15)
    assert mu(10.0) == pytest.approx(UD + UV * 10.0, rel=1e-15)
    v = np.linspace(0, 5 * VT, 101).reshape(101, 1)
    arr = ct.stribeck(v, US, UD, UV, VT)
    assert arr.shape == v.shape
    assert np.array_equal(arr.ravel(), [ct.stribeck_kernel(s, US, UD, UV, VT) for s in v[:, 0]])


def one_sided_derivatives(f, x0, side, h):
    """Value, first and second derivative at x0 from a quintic fitted to samples on one
    side only (each piece is a quintic plus a line, so the fit is exact to roundoff)."""
    s = x0 + side * h * np.arange(0, 12)
    p = np.polynomial.Polynomial.fit(s - x0, f(s), 5)
    return p(0.0), p.deriv(1)(0.0), p.deriv(2)(0.0)


@pytest.mark.parametrize("uv", [0.0, UV])
def test_stribeck_is_c2_at_its_joints(uv):
    f = lambda v: ct.stribeck(v, US, UD, uv, VT)  # noqa: E731
    h = VT / 20
    for joint in (VT, 3 * VT):
        left = one_sided_derivatives(f, joint, -1, h)
        right = one_sided_derivatives(f, joint, +1, h)
        scale = (1.0, 1 / VT, 1 / VT ** 2)  # derivatives scale with 1/v_t
        for lv, rv, sc in zip(left, right, scale):
            assert abs(lv - rv) <= 1e-6 * sc
    # At v = 0 the curve starts with the viscous slope and zero curvature.
    _, d1, d2 = one_sided_derivatives(f, 0.0, +1, h)
    assert abs(d1 - uv) <= 1e-6 / VT and abs(d2) <= 1e-6 / VT ** 2


def test_stribeck_shape_without_viscous_friction():
    v = np.linspace(0, 6 * VT, 601)
    mu = ct.stribeck(v, US, UD, 0.0, VT)
    rising, falling, flat = mu[v <= VT], mu[(v >= VT) & (v <= 3 * VT)], mu[v >= 3 * VT]
    assert np.all(np.diff(rising) > 0) and np.all(np.diff(falling) < 0)
    assert np.all(flat == UD) and mu.max() == pytest.approx(US, rel=1e-15)


def test_hollars_curve_of_huntcrossleyforce():
    mu = lambda v: ct.hollars(v, US, UD, UV, VT)  # noqa: E731
    assert mu(0.0) == 0.0
    assert mu(VT) == pytest.approx(US + UV * VT, rel=1e-15)
    assert mu(0.5 * VT) == pytest.approx(0.5 * (UD + 2 * (US - UD) / 1.25) + UV * 0.5 * VT)
    assert mu(1e3) == pytest.approx(UD + 2 * (US - UD) / (1 + 1e10) + UV * 1e3, rel=1e-15)
    # A corner at v_t (unlike the C2 Stribeck spline): slope μd/v_t + μv from the left,
    # -(μs - μd)/v_t + μv from the right.
    h = 1e-8
    assert (mu(VT) - mu(VT - h)) / h == pytest.approx(UD / VT + UV, rel=1e-5)
    assert (mu(VT + h) - mu(VT)) / h == pytest.approx(-(US - UD) / VT + UV, rel=1e-5)


def test_friction_argument_checks():
    with pytest.raises(InvalidArgumentError, match="static_friction >= dynamic"):
        ct.stribeck(0.1, 0.3, 0.5, 0.0, VT)
    with pytest.raises(InvalidArgumentError, match="transition_velocity"):
        ct.hollars(0.1, 0.5, 0.3, 0.0, 0.0)
    with pytest.raises(InvalidArgumentError, match="slip speeds"):
        ct.stribeck([-0.1], 0.5, 0.3, 0.0, VT)
