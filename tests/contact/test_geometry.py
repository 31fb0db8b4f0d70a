"""Analytic contact geometry: curvatures against closed forms and a finite difference of the
surface normal, nearest points and signed distances against brute-force sampling, pair
contacts against hand-computed cases, and pairs fed through the Hertz model (a sphere on a
half space gives (4/3) E* √R x^(3/2); an ellipsoid gives σ for its two curvatures)."""

import math

import numpy as np
import pytest

import kinetree as kt
from kinetree import contact as ct
from kinetree.errors import InvalidArgumentError, NonPhysicalError

CG = kt.ContactGeometry
RADII = np.array([3.0, 2.0, 1.0])


def ellipsoid_normal(x, radii=RADII):
    """Unit outward normal of the ellipsoid at x, from the gradient of Σ(x_i/r_i)² - 1."""
    g = x / radii ** 2
    return g / np.linalg.norm(g)


def onto_ellipsoid(x, radii=RADII):
    return x / math.sqrt(np.sum((x / radii) ** 2))


def brute_force_distance(p, radii=RADII, n=600):
    """Minimum distance from p to a dense parametric sampling of the ellipsoid."""
    u, v = np.meshgrid(np.linspace(0, np.pi, n), np.linspace(-np.pi, np.pi, 2 * n))
    pts = np.stack([radii[0] * np.sin(u) * np.cos(v), radii[1] * np.sin(u) * np.sin(v),
                    radii[2] * np.cos(u)], -1).reshape(-1, 3)
    return float(np.min(np.linalg.norm(pts - p, axis=1)))


# ---- shapes ------------------------------------------------------------------------------


def test_half_space_follows_simbody_convention():
    hs = CG.HalfSpace()
    point, inside, normal = hs.find_nearest_point([0.3, 1.0, -2.0])
    assert inside and np.allclose(point, [0, 1, -2]) and np.allclose(normal, [-1, 0, 0])
    assert hs.calc_signed_distance([0.3, 1.0, -2.0]) == pytest.approx(-0.3)
    assert hs.calc_signed_distance([-0.5, 0, 0]) == pytest.approx(0.5)
    k, R = hs.calc_surface_principal_curvatures(point)
    assert np.all(k == 0)
    assert np.allclose(R.as_matrix()[:, 2], [-1, 0, 0])
    assert np.allclose(R.as_matrix() @ R.as_matrix().T, np.eye(3))
    with pytest.raises(InvalidArgumentError):
        hs.calc_support_point([1, 0, 0])


def test_sphere_nearest_point_distance_and_curvatures():
    s = CG.Sphere(0.5)
    point, inside, normal = s.find_nearest_point([0, 0.3, 0.4 * 3])
    assert not inside
    assert np.allclose(normal, np.array([0, 0.3, 1.2]) / math.hypot(0.3, 1.2))
    assert np.allclose(point, 0.5 * normal)
    assert s.calc_signed_distance([0.1, 0.2, 0.0]) == pytest.approx(math.hypot(0.1, 0.2) - 0.5)
    k, R = s.calc_surface_principal_curvatures(point)
    assert np.allclose(k, [2.0, 2.0])
    m = R.as_matrix()
    assert np.allclose(m[:, 2], normal) and np.allclose(m.T @ m, np.eye(3))
    assert np.linalg.det(m) == pytest.approx(1.0)
    assert np.allclose(s.calc_support_point([0, 0, -3]), [0, 0, -0.5])


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_shapes_refuse_bad_sizes(bad):
    with pytest.raises(NonPhysicalError, match="Sphere"):
        CG.Sphere(bad)
    with pytest.raises(NonPhysicalError, match="Ellipsoid"):
        CG.Ellipsoid([1.0, bad, 1.0])
    with pytest.raises(InvalidArgumentError, match="Ellipsoid"):
        CG.Ellipsoid([1.0, 2.0])


def test_ellipsoid_curvatures_at_ends_of_axes():
    a, b, c = RADII
    e = CG.Ellipsoid(RADII)
    k, R = e.calc_surface_principal_curvatures([a, 0, 0])
    assert np.allclose(k, [a / c ** 2, a / b ** 2])
    assert np.allclose(np.abs(R.as_matrix()[:, 0]), [0, 0, 1])     # kmax across the c axis
    assert np.allclose(R.as_matrix()[:, 2], [1, 0, 0])
    k, _ = e.calc_surface_principal_curvatures([0, -b, 0])
    assert np.allclose(k, [b / c ** 2, b / a ** 2])
    k, R = e.calc_surface_principal_curvatures([0, 0, c])
    assert np.allclose(k, [c / b ** 2, c / a ** 2])
    assert np.allclose(np.abs(R.as_matrix()[:, 0]), [0, 1, 0])


def test_ellipsoid_curvatures_at_random_points_match_finite_difference_of_normal():
    e = CG.Ellipsoid(RADII)
    rng = np.random.default_rng(7)
    h = 1e-5
    for _ in range(10):
        x = onto_ellipsoid(rng.normal(size=3))
        k, R = e.calc_surface_principal_curvatures(x)
        m = R.as_matrix()
        assert np.allclose(m.T @ m, np.eye(3)) and np.linalg.det(m) == pytest.approx(1.0)
        assert np.allclose(m[:, 2], ellipsoid_normal(x))
        assert k[0] >= k[1] > 0
        # Shape operator by central differences of the unit normal along each direction.
        S = np.empty((2, 2))
        for j in range(2):
            plus, minus = onto_ellipsoid(x + h * m[:, j]), onto_ellipsoid(x - h * m[:, j])
            dn = (ellipsoid_normal(plus) - ellipsoid_normal(minus)) / np.linalg.norm(plus - minus)
            S[:, j] = m[:, :2].T @ dn
        assert np.allclose(S, np.diag(k), rtol=0, atol=1e-6 * k[0])


def test_ellipsoid_nearest_points_against_brute_force():
    e = CG.Ellipsoid(RADII)
    rng = np.random.default_rng(3)
    points = [rng.uniform(-4, 4, 3) for _ in range(6)] + [
        rng.uniform(-0.6, 0.6, 3) for _ in range(4)]
    points += [np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 0.5, 0]),
               np.array([2.9, 0, 0]), np.array([5.0, 0, 0])]
    for p in points:
        x, inside, normal = e.find_nearest_point(p)
        assert np.sum((x / RADII) ** 2) == pytest.approx(1.0, abs=1e-13)
        assert inside == (np.sum((p / RADII) ** 2) < 1)
        assert np.allclose(normal, ellipsoid_normal(x))
        d = np.linalg.norm(p - x)
        if d > 1e-9:    # p - x lies along the normal: x is a stationary point
            assert abs(abs(np.dot(p - x, normal)) - d) < 1e-10
        brute = brute_force_distance(p)
        assert brute - 1e-3 < d <= brute + 1e-12
        signed = e.calc_signed_distance(p)
        assert signed == pytest.approx(-d if inside else d, abs=1e-14)


def test_ellipsoid_nearest_point_is_continuous_across_a_plane_of_symmetry():
    """Inside, near the plane z = 0 of its shortest axis, the nearest point is off the plane;
    points 1e-20 and 1e-300 from the plane get the in-plane answer's mirror image."""
    e = CG.Ellipsoid(RADII)
    x0, inside, _ = e.find_nearest_point([1.0, 0.5, 0.0])
    assert inside and x0[2] > 0.8
    for z in (1e-20, 1e-300, -1e-300):
        x, _, normal = e.find_nearest_point([1.0, 0.5, z])
        assert np.allclose(x, x0 * [1, 1, np.sign(z)], rtol=1e-14, atol=0)
        assert np.allclose(normal, ellipsoid_normal(x))
    far = np.array([1e8, -1e8, 1e8])
    x, inside, normal = e.find_nearest_point(far)
    assert not inside and np.sum((x / RADII) ** 2) == pytest.approx(1.0, abs=1e-15)
    assert np.allclose(np.cross(far - x, normal) / np.linalg.norm(far - x), 0, atol=1e-14)


def test_ellipsoid_support_point_has_that_normal():
    e = CG.Ellipsoid(RADII)
    for d in ([1, 2, -3], [0, 0, 1], [-1, 0.1, 0]):
        d = np.asarray(d, float) / np.linalg.norm(d)
        x = e.calc_support_point(d)
        assert np.sum((x / RADII) ** 2) == pytest.approx(1.0)
        assert np.allclose(ellipsoid_normal(x), d)
    for shape in (e, CG.Sphere(1.0)):
        with pytest.raises(InvalidArgumentError, match="zero vector"):
            shape.calc_support_point([0, 0, 0])


# ---- pairs -------------------------------------------------------------------------------

FLOOR = kt.Transform(kt.Rotation.about_y(math.pi / 2), [0, 0, 0.1])   # surface z = 0.1, normal +z


def test_half_space_sphere_on_a_floor():
    s = CG.Sphere(0.05)
    c = ct.contact_half_space_sphere(FLOOR, kt.Transform([1.0, 2.0, 0.1 + 0.05 - 0.002]), s)
    assert np.allclose(c.normal, [0, 0, 1])
    assert c.depth == pytest.approx(0.002)
    assert np.allclose(c.point1, [1, 2, 0.1])
    assert np.allclose(c.point2, [1, 2, 0.098])
    assert np.allclose(c.point2, c.point1 - c.depth * c.normal)
    assert np.allclose(c.origin, [1, 2, 0.099])
    assert np.allclose(c.R_GP1.as_matrix()[:, 2], c.normal)
    assert np.allclose(c.R_GP2.as_matrix()[:, 2], -c.normal)
    apart = ct.contact_half_space_sphere(FLOOR, kt.Transform([0, 0, 0.2]), s)
    assert apart.depth == pytest.approx(-0.05)


def test_sphere_sphere():
    c = ct.contact_sphere_sphere(kt.Transform([0, 0, 0]), CG.Sphere(1.0),
                                 kt.Transform([0, 1.5, 0]), CG.Sphere(0.75))
    assert np.allclose(c.normal, [0, 1, 0])
    assert c.depth == pytest.approx(0.25)
    assert np.allclose(c.point1, [0, 1, 0]) and np.allclose(c.point2, [0, 0.75, 0])
    kmax, kmin = c.relative_curvatures()
    assert ct.effective_radius(kmax, kmin) == pytest.approx(1.0 * 0.75 / 1.75)


def test_half_space_ellipsoid_deepest_point():
    a, b, c_ = RADII
    # Ellipsoid turned 90° about x (R maps E's y to G's z), its centre b - 0.01 above the
    # floor: the tip of its b axis is 0.01 deep.
    R = kt.Rotation.about_x(math.pi / 2)
    X_GE = kt.Transform(R, [0.3, -0.2, 0.1 + b - 0.01])
    con = ct.contact_half_space_ellipsoid(FLOOR, X_GE, CG.Ellipsoid(RADII))
    assert np.allclose(con.normal, [0, 0, 1])
    assert con.depth == pytest.approx(0.01)
    assert np.allclose(con.point2, [0.3, -0.2, 0.09])
    assert np.allclose(con.point1, [0.3, -0.2, 0.1])
    assert np.allclose(con.curvatures2, [b / c_ ** 2, b / a ** 2])
    assert np.allclose(con.R_GP2.as_matrix()[:, 2], [0, 0, -1])
    # Tilted: the deepest point is where the ellipsoid's normal is -z, and no surface point
    # lies deeper.
    X_GE = kt.Transform(kt.Rotation.from_body_fixed_xyz([0.3, -0.7, 1.1]), [0, 0, 1.0])
    con = ct.contact_half_space_ellipsoid(FLOOR, X_GE, CG.Ellipsoid(RADII))
    rng = np.random.default_rng(1)
    samples = [onto_ellipsoid(rng.normal(size=3)) for _ in range(20000)]
    lowest = min(float((X_GE.R.as_matrix() @ s + X_GE.p)[2]) for s in samples)
    assert con.point2[2] <= lowest + 1e-12 and con.point2[2] > lowest - 1e-2
    assert con.depth == pytest.approx(0.1 - con.point2[2])


def test_sphere_ellipsoid_at_the_tip_of_an_axis():
    a, b, c_ = RADII
    r = 0.5
    con = ct.contact_sphere_ellipsoid(kt.Transform([a + r - 0.02, 0, 0]), CG.Sphere(r),
                                      kt.Transform(), CG.Ellipsoid(RADII))
    assert np.allclose(con.normal, [-1, 0, 0])
    assert con.depth == pytest.approx(0.02)
    assert np.allclose(con.point2, [a, 0, 0])
    assert np.allclose(con.point1, [a - 0.02, 0, 0])
    kmax, kmin = con.relative_curvatures()
    assert (kmax, kmin) == pytest.approx((1 / r + a / c_ ** 2, 1 / r + a / b ** 2))


def test_relative_curvatures_of_crossed_cylinders():
    """Two equal cylinders crossed at right angles touch like a sphere of the same radius."""
    n = np.array([0.0, 0.0, 1.0])
    frame1 = kt.Rotation(np.column_stack(([1, 0, 0], [0, 1, 0], n)))
    frame2 = kt.Rotation(np.column_stack(([0, 1, 0], [1, 0, 0], -n)))
    con = ct.Contact(n, 0.001, np.zeros(3), -0.001 * n, np.array([2.0, 0.0]), frame1,
                     np.array([2.0, 0.0]), frame2)
    assert con.relative_curvatures() == pytest.approx((2.0, 2.0))


# ---- through the Hertz model -------------------------------------------------------------


def test_sphere_on_half_space_gives_hertz_force():
    r, x, E_star = 0.05, 1e-3, 2e7
    con = ct.contact_half_space_sphere(FLOOR, kt.Transform([0, 0, 0.1 + r - x]), CG.Sphere(r))
    kmax, kmin = con.relative_curvatures()
    R = ct.effective_radius(kmax, kmin)
    assert R == pytest.approx(r)
    sigma = ct.eccentricity_factor(kmax, kmin)
    assert sigma == 1.0
    f = ct.hertz_force(con.depth, R, E_star, sigma)
    assert f == pytest.approx(4.0 / 3.0 * E_star * math.sqrt(r) * x ** 1.5, rel=1e-12)


def test_ellipsoid_on_half_space_gives_elliptic_sigma():
    a, b, c_ = RADII
    X_GE = kt.Transform(kt.Rotation.about_y(math.pi / 2) @ kt.Rotation.about_x(0.4),
                        [0, 0, 0.1 + a - 1e-3])
    # E's x axis points down (about_y(90°) maps x to -z): the tip of the a axis touches.
    con = ct.contact_half_space_ellipsoid(FLOOR, X_GE, CG.Ellipsoid(RADII))
    assert con.depth == pytest.approx(1e-3)
    kmax, kmin = con.relative_curvatures()
    assert (kmax, kmin) == pytest.approx((a / c_ ** 2, a / b ** 2))
    sigma = ct.eccentricity_factor(kmax, kmin)
    assert sigma == pytest.approx(ct.eccentricity_factor(a / c_ ** 2, a / b ** 2), rel=1e-12)
    assert sigma > 1.0


def test_pair_functions_refuse_wrong_arguments():
    with pytest.raises(InvalidArgumentError, match="Transform"):
        ct.contact_half_space_sphere(np.eye(4), kt.Transform(), CG.Sphere(1.0))
    with pytest.raises(InvalidArgumentError, match="Sphere"):
        ct.contact_half_space_sphere(FLOOR, kt.Transform(), CG.Ellipsoid(RADII))


def test_ellipsoid_ellipsoid_depth_is_the_separating_translation():
    """Moving ellipsoid 2 by depth·normal leaves the two just touching: no sampled point of
    its surface is inside ellipsoid 1, yet 1 mm less leaves some inside; the normal is
    antiparallel to both surface normals at the reported points."""
    rng = np.random.default_rng(3)
    e1 = kt.ContactGeometry.Ellipsoid([0.3, 0.1, 0.2])
    e2 = kt.ContactGeometry.Ellipsoid([0.2, 0.15, 0.1])
    R1 = kt.Rotation.about_x(0.4)
    for _ in range(3):
        R2 = kt.Rotation.from_body_fixed_xyz(rng.uniform(-1, 1, 3))
        p2 = rng.uniform(-0.15, 0.15, 3) + [0.3, 0.1, 0.0]
        c = ct.contact_ellipsoid_ellipsoid(kt.Transform(R1), e1, kt.Transform(R2, p2), e2)
        u = rng.standard_normal((100000, 3))
        u /= np.linalg.norm(u, axis=1)[:, None]
        surface2 = (u * e2.get_radii()) @ R2.as_matrix().T

        def deepest_level(shift, surface2=surface2, p2=p2, c=c):
            local = (surface2 + p2 + shift * c.normal) @ R1.as_matrix()
            return np.min(np.sum((local / e1.get_radii()) ** 2, axis=1))

        assert deepest_level(c.depth) >= 1.0 - 1e-9
        assert deepest_level(c.depth - 1e-3) < 1.0
        n1 = R1.as_matrix() @ e1.find_nearest_point(R1.as_matrix().T @ c.point1)[2]
        n2 = R2.as_matrix() @ e2.find_nearest_point(R2.as_matrix().T @ (c.point2 - p2))[2]
        np.testing.assert_allclose(n1, c.normal, atol=1e-9)
        np.testing.assert_allclose(n2, -c.normal, atol=1e-9)
        np.testing.assert_allclose(c.point1 - c.point2, c.depth * c.normal, atol=1e-12)
