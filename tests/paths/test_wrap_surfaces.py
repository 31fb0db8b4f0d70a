"""The wrap surfaces against geometry worked out by hand: a sphere's great circle, a
cylinder's circle and helix, segments that miss or start inside, a quadrant forcing the
long way round, and the reading of ``<WrapObjectSet>`` elements."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from kinetree.errors import InvalidArgumentError
from kinetree.paths.wrap_cylinder import WrapCylinder
from kinetree.paths.wrap_ellipsoid import WrapEllipsoid
from kinetree.paths.wrap_object import (
    INSIDE_RADIUS,
    MANDATORY_WRAP,
    NO_WRAP,
    WRAPPED,
    WrapObject,
    initial_state,
    wrap_objects_from_osim,
)
from kinetree.paths.wrap_sphere import WrapSphere
from kinetree.paths.wrap_torus import WrapTorus, circle_coefficients, circle_residual, lmdif

R = 0.05


def _planar_wrap(p1, p2, radius, long_way=False):
    """The length of the taut path from p1 to p2 (in the plane z = 0, outside the circle
    of ``radius`` at the origin) around the circle: two tangents and an arc."""
    d1, d2 = np.linalg.norm(p1), np.linalg.norm(p2)
    between = math.acos(np.dot(p1, p2) / (d1 * d2))
    if long_way:
        between = 2.0 * math.pi - between
    arc = between - math.acos(radius / d1) - math.acos(radius / d2)
    return math.sqrt(d1 * d1 - radius * radius) + radius * arc \
        + math.sqrt(d2 * d2 - radius * radius)


def _total(p1, p2, r1, r2, length):
    return np.linalg.norm(p1 - r1) + length + np.linalg.norm(r2 - p2)


def test_sphere_great_circle():
    p1, p2 = np.array([-0.1, 0.01, 0.0]), np.array([0.12, 0.02, 0.0])
    code, r1, r2, length = WrapSphere(R).wrap_line(p1, p2)
    assert code == WRAPPED
    assert _total(p1, p2, r1, r2, length) == pytest.approx(_planar_wrap(p1, p2, R), abs=1e-12)
    for p, r in ((p1, r1), (p2, r2)):
        assert np.linalg.norm(r) == pytest.approx(R, abs=1e-12)
        assert np.dot(p - r, r) == pytest.approx(0.0, abs=1e-12)     # tangent
    assert r1[1] > 0.0 and r2[1] > 0.0                               # the short way


def test_sphere_quadrant_takes_the_long_way():
    """Constrained to -y, a line passing above the center wraps underneath, over the
    arc the other way round the center."""
    p1, p2 = np.array([-0.1, 0.01, 0.0]), np.array([0.12, 0.02, 0.0])
    code, r1, r2, length = WrapSphere(R, quadrant="-y").wrap_line(p1, p2)
    assert code == WRAPPED
    assert r1[1] < 0.0 and r2[1] < 0.0
    arc = _planar_wrap(p1, p2, R, long_way=True) - np.linalg.norm(p1 - r1) \
        - np.linalg.norm(p2 - r2)
    assert length == pytest.approx(arc, abs=1e-12)
    for p, r in ((p1, r1), (p2, r2)):
        assert np.dot(p - r, r) == pytest.approx(0.0, abs=1e-12)


def test_cylinder_circle():
    p1, p2 = np.array([-0.1, 0.01, 0.02]), np.array([0.12, 0.02, 0.02])
    code, r1, r2, length = WrapCylinder(R, 0.2).wrap_line(p1, p2)
    assert code == MANDATORY_WRAP
    assert _total(p1, p2, r1, r2, length) == pytest.approx(
        _planar_wrap(p1[:2], p2[:2], R), abs=1e-12)
    assert r1[2] == pytest.approx(0.02, abs=1e-14) and r2[2] == pytest.approx(0.02, abs=1e-14)


def test_cylinder_helix():
    """Ends at different heights: unrolled, the taut path is a straight line, its length
    the hypotenuse of the planar wrap and the rise. OpenSim's single-wrap answer is
    approximate; with its tangent points slid to within 0.1° of tangency (a path of
    several wraps) it is close to the helix."""
    p1, p2 = np.array([-0.1, 0.01, -0.03]), np.array([0.12, 0.02, 0.05])
    helix = math.hypot(_planar_wrap(p1[:2], p2[:2], R), p2[2] - p1[2])
    cylinder = WrapCylinder(R, 0.3)
    code, r1, r2, length = cylinder.wrap_line(p1, p2, single=False)
    assert code == MANDATORY_WRAP
    assert _total(p1, p2, r1, r2, length) == pytest.approx(helix, abs=2e-7)
    _, s1, s2, single = cylinder.wrap_line(p1, p2)
    assert _total(p1, p2, s1, s2, single) == pytest.approx(helix, abs=1e-5)
    assert abs(_total(p1, p2, s1, s2, single) - helix) > 1e-6
    for r in (r1, r2, s1, s2):
        assert math.hypot(r[0], r[1]) == pytest.approx(R, abs=1e-12)


def test_cylinder_beyond_its_length_does_not_wrap():
    p1, p2 = np.array([-0.1, 0.01, 0.2]), np.array([0.12, 0.02, 0.2])
    assert WrapCylinder(R, 0.2).wrap_line(p1, p2)[0] == NO_WRAP
    assert WrapCylinder(R, 0.5).wrap_line(p1, p2)[0] == MANDATORY_WRAP


@pytest.mark.parametrize("surface", [WrapSphere(R), WrapCylinder(R, 0.2),
                                     WrapEllipsoid([R, 0.07, 0.04])])
def test_miss_and_inside(surface):
    miss = surface.wrap_line([-0.1, 0.08, 0.0], [0.1, 0.09, 0.0])
    assert miss[0] == NO_WRAP and miss[3] == 0.0
    inside = surface.wrap_line([0.01, 0.0, 0.0], [0.2, 0.09, 0.0])
    assert inside[0] == INSIDE_RADIUS


def test_ellipsoid_of_equal_axes_is_the_sphere():
    """On a sphere the wrapping plane holds the center whatever the method, and the
    polyline of 1 mm chords is the great circle's arc to within its chord error."""
    p1, p2 = np.array([-0.1, 0.01, 0.003]), np.array([0.12, 0.02, -0.004])
    _, s1, s2, arc = WrapSphere(R).wrap_line(p1, p2)
    for method in ("hybrid", "midpoint", "axial"):
        code, r1, r2, length = WrapEllipsoid([R, R, R]).wrap_line(p1, p2, method)
        assert code == MANDATORY_WRAP
        np.testing.assert_allclose(r1, s1, atol=2e-5)
        np.testing.assert_allclose(r2, s2, atol=2e-5)
        assert _total(p1, p2, r1, r2, length) == pytest.approx(
            _total(p1, p2, s1, s2, arc), abs=2e-6)


def test_ellipsoid_keeps_c1_and_sv():
    state = initial_state()
    assert np.all(np.isneginf(state[:9])) and np.all(np.isnan(state[9:]))
    code, *_ = WrapEllipsoid([R, 0.07, 0.04]).wrap_line([-0.1, 0.01, 0.0],
                                                        [0.1, 0.02, 0.01], previous=state)
    assert code == MANDATORY_WRAP and np.all(np.isfinite(state))
    c1 = state[9:] / (3.0 / (R + 0.07 + 0.04))      # OpenSim keeps it scaled
    assert (c1[0] / R) ** 2 + (c1[1] / 0.07) ** 2 + (c1[2] / 0.04) ** 2 == \
        pytest.approx(1.0, abs=1e-8)


def _body(xml: str):
    return ET.fromstring(f"<Body><WrapObjectSet><objects>{xml}</objects></WrapObjectSet></Body>")


def test_from_osim():
    objects = wrap_objects_from_osim(_body(
        '<WrapCylinder name="c"><xyz_body_rotation>0.1 0.2 0.3</xyz_body_rotation>'
        '<translation>0.01 0.02 0.03</translation><quadrant>-y</quadrant>'
        '<radius>0.04</radius><length>0.2</length></WrapCylinder>'
        '<WrapEllipsoid name="e"><active>false</active>'
        '<dimensions>0.01 0.02 0.03</dimensions></WrapEllipsoid>'
        '<WrapSphere name="s"/>'), 3)
    c, e, s = objects
    assert (c.name, c.body, c.radius, c.length, c.quadrant) == ("c", 3, 0.04, 0.2, "-y")
    np.testing.assert_allclose(c.X_BW.p, [0.01, 0.02, 0.03])
    angles = c.X_BW.R.convert_rotation_to_body_fixed_xyz()
    np.testing.assert_allclose(angles, [0.1, 0.2, 0.3], atol=1e-14)
    ints, floats = c._row()
    assert list(ints[:3]) == [2, 1, -1] and list(floats) == [0.04, 0.2]
    assert not e.active and list(e.dimensions) == [0.01, 0.02, 0.03]
    assert s.radius == 0.05 and s.quadrant == "all"


@pytest.mark.parametrize("xml, words", [
    ('<WrapSphere name="s"><radius>0</radius></WrapSphere>', "radius"),
    ('<WrapCylinder name="c"><radius>0.1</radius><length>-1</length></WrapCylinder>',
     "length"),
    ('<WrapSphere name="s"><quadrant>up</quadrant></WrapSphere>', "quadrant"),
    ('<WrapCone name="k"/>', "WrapCone"),
])
def test_from_osim_errors(xml, words):
    with pytest.raises(InvalidArgumentError, match=words):
        WrapObject.from_osim(ET.fromstring(xml), 1)


def _tube_distance(p, outer):
    """The distance (m) of p from the circle of radius ``outer`` about the z axis."""
    return math.hypot(math.hypot(p[0], p[1]) - outer, p[2])


@pytest.mark.parametrize("x, long_way", [(0.09, False), (0.11, True)])
def test_torus_across_the_tube(x, long_way):
    """A segment in the plane y = 0 passing the tube wraps round the tube's circle in that
    plane, on the side facing the torus's center (the cylinder's +x), the long way round
    when the segment passes the tube's outer side."""
    outer, inner = 0.1, 0.03
    p1, p2 = np.array([x, 0.0, 0.1]), np.array([x, 0.0, -0.12])
    code, r1, r2, length = WrapTorus(inner, outer).wrap_line(p1, p2)
    assert code == WRAPPED
    center = np.array([outer, 0.0, 0.0])
    expected = _planar_wrap((p1 - center)[[0, 2]], (p2 - center)[[0, 2]], inner, long_way)
    assert _total(p1, p2, r1, r2, length) == pytest.approx(expected, abs=1e-12)
    for r in (r1, r2):
        assert r[1] == pytest.approx(0.0, abs=1e-15)
        assert r[0] < outer
        assert _tube_distance(r, outer) == pytest.approx(inner, abs=1e-12)


def test_torus_circle_residual_is_a_slope():
    """OpenSim's calcCircleResids, which kinetree keeps, is the slope along the line of the
    squared distance to the circle of twice the outer radius (its distance term is
    doubled), checked by central differences away from the z axis, where the distance
    bends sharply."""
    rng = np.random.default_rng(5)
    outer, h = 0.1, 1e-6
    checked = 0
    while checked < 50:
        p1, p2 = rng.normal(0.0, 0.15, 3), rng.normal(0.0, 0.15, 3)
        n, c = circle_coefficients(p1, p2)
        n = np.asarray(n)
        u = rng.uniform(-0.3, 0.3)
        if math.hypot(*(p1 + u * n)[:2]) < 0.01:
            continue
        checked += 1

        def squared(v, p1=p1, n=n):
            return _tube_distance(p1 + v * n, 2.0 * outer) ** 2

        slope = (squared(u + h) - squared(u - h)) / (2.0 * h)
        assert circle_residual(c, outer, u) == pytest.approx(slope, rel=1e-7, abs=1e-9)


def test_torus_lmdif_is_minpacks():
    """kinetree's lmdif is MINPACK's Levenberg-Marquardt as OpenSim runs it: scipy's
    leastsq (MINPACK itself) with OpenSim's settings and its fixed-step forward-difference
    Jacobian reaches the same u, with the same info code, on random lines. (scipy takes
    the Jacobian as a function, so it runs lmder, lmdif's iteration on a given Jacobian;
    the two differ from OpenSim's port only in its machine precision, which the tests of
    info 6-8 alone read, and in its initial step bound where the start is not 0.)"""
    leastsq = pytest.importorskip("scipy.optimize").leastsq
    rng = np.random.default_rng(2)
    outer = 0.1
    infos = set()
    for _ in range(400):
        p1, p2 = rng.normal(0.0, 0.15, 3), rng.normal(0.0, 0.15, 3)
        _, c = circle_coefficients(p1, p2)

        def residual(u, c=c):
            return [circle_residual(c, outer, float(u[0]))]

        def jacobian(u, c=c):
            f = circle_residual(c, outer, float(u[0]))
            return [[(circle_residual(c, outer, float(u[0]) + 1e-5) - f) / 1e-5]]

        u, info = lmdif(c, outer, 0.0)
        theirs, _, _, _, ier = leastsq(residual, [0.0], Dfun=jacobian, full_output=True,
                                       ftol=1e-4, xtol=1e-4, gtol=0.0, maxfev=500,
                                       factor=0.2)
        assert info == ier
        assert u == pytest.approx(theirs[0], rel=1e-14, abs=1e-17)
        infos.add(info)
    assert {1, 2} <= infos
