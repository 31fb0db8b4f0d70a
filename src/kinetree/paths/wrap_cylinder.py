"""OpenSim's WrapCylinder: a path wrapping over a cylinder of the z axis of its frame W,
computed as OpenSim 4.6 computes it (WrapCylinder::wrapLine and _make_spiral_path): the
tangent points from the planes through each end tangent to the cylinder, slid along the
axis onto the plane of the two ends and an apex on the surface, joined by a helix.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, cross3, dot3, scale3, sub3, vec3
from kinetree.paths.wrap_object import (
    _EPS,
    _ROUNDOFF,
    AXIS,
    INSIDE_RADIUS,
    MANDATORY_WRAP,
    NO_WRAP,
    SIGN,
    SINGLE,
    WRAPPED,
    WrapObject,
    closest_point_on_line,
    distance_squared,
    distance_squared_to_line,
    dsign,
    intersect_lines,
    intersect_segment_plane,
    normalize_or_zero,
    positive,
    store_result,
    store_wrap,
)
from kinetree.registry import WRAPS

CODE = WRAPS["wrap_cylinder"]

_P0 = (0.0, 0.0, -1.0)
_DN = (0.0, 0.0, 1.0)
"""A point of the axis and its direction, in W."""

_MAX_ITERATIONS = 100
_TANGENCY = 0.1 * math.pi / 180.0
_COS_TANGENCY = math.cos(_TANGENCY)
"""OpenSim slides a tangent point until the path's angle to the axis on either side of it
differs by at most this (rad), at most _MAX_ITERATIONS times."""
_COS_TANGENCY_SQUARED = _COS_TANGENCY * _COS_TANGENCY

_SEGMENT = 0.002
"""OpenSim's length (m) of the pieces of the helix it draws; the sliding looks at the
first piece."""


class WrapCylinder(WrapObject):
    """A cylinder of ``radius`` (m) about the z axis of W, of ``length`` (m) centered at
    W's origin: a path wraps only if a tangent point lies within the length."""

    CODE = CODE
    KIND = "wrap_cylinder"

    def __init__(self, radius: float, length: float, **kwargs):
        super().__init__(**kwargs)
        self.radius = positive(radius, self._where(), "radius")
        self.length = positive(length, self._where(), "length")

    def _params(self) -> list:
        return [self.radius, self.length]

    def surface_points(self, p1, p2, n: int = 16, method: str = "hybrid",
                       single: bool = True) -> np.ndarray:
        """(n + 1, 3) points (m, in W) along the helix between the tangent points of the
        segment p1-p2, for drawing; none (0, 3) when the path does not wrap."""
        code, r1, r2, length = self.wrap_line(p1, p2, method, single)
        if code not in (WRAPPED, MANDATORY_WRAP):
            return np.zeros((0, 3))
        angle = _helix_angle(r1, r2, length, self.radius)
        t = np.linspace(0.0, 1.0, n + 1)
        c, s = np.cos(angle * t), np.sin(angle * t)
        return np.stack([c * r1[0] - s * r1[1], s * r1[0] + c * r1[1],
                         r1[2] + t * (r2[2] - r1[2])], axis=1)


def _helix_angle(r1, r2, length, radius) -> float:
    """The signed angle (rad, about z) the helix of ``length`` between r1 and r2 turns."""
    turn = math.sqrt(max(length * length - (r2[2] - r1[2]) ** 2, 0.0)) / radius
    short = math.atan2(r1[0] * r2[1] - r1[1] * r2[0], r1[0] * r2[0] + r1[1] * r2[1])
    if abs(abs(short) - turn) <= abs(2.0 * math.pi - abs(short) - turn):
        return math.copysign(turn, short)
    return -math.copysign(turn, short)


@helper(error_model="numpy")
def _unit(v):
    """v / |v| (SimTK's UnitVec3: NaN for a zero vector)."""
    return scale3(1.0 / math.sqrt(dot3(v, v)), v)


@helper(error_model="numpy")
def _tangent_candidates(p, radius):
    """(pa, pb, p_axis, distance): the two points where planes through p touch the
    cylinder, the point of the axis nearest p, and p's distance from the axis."""
    p_axis, _ = closest_point_on_line(p, _P0, _DN)
    vv, dist_axis = normalize_or_zero(sub3(p, p_axis))
    d = radius * (radius / dist_axis)
    pp = add3(p_axis, scale3(d, vv))
    d = math.sqrt(radius * radius - d * d)
    uu = cross3(_DN, vv)
    return add3(pp, scale3(d, uu)), sub3(pp, scale3(d, uu)), p_axis, dist_axis


@helper(error_model="numpy")
def _angle(a, b):
    return math.acos(dot3(a, b) / (math.sqrt(dot3(a, a)) * math.sqrt(dot3(b, b))))


@helper(error_model="numpy")
def _axis_cosine_sine(squared, root, z):
    """(cos, sin) of the angle to the axis z of a vector of squared length ``squared``
    whose part across the axis has length ``root`` and whose part along it is z; (0, 1)
    for a vector shorter than machine epsilon, whose direction OpenSim takes as zero."""
    mag = math.sqrt(squared)
    if mag < _EPS:
        return 0.0, 1.0
    return z / mag, root / mag


@helper(error_model="numpy")
def _slide_constants(pt, r, wx, wy):
    """What sliding r along the axis (between the path point pt and the helix point w
    of x, y = wx, wy) keeps: the squared lengths across the axis of r - pt and w - r
    with their roots, that of w - pt, and the fraction s of w - pt across the axis at
    which r lies."""
    ax, ay = r[0] - pt[0], r[1] - pt[1]
    bx, by = wx - r[0], wy - r[1]
    dx, dy = wx - pt[0], wy - pt[1]
    ha = ax * ax + ay * ay
    hb = bx * bx + by * by
    hd = dx * dx + dy * dy
    return ha, math.sqrt(ha), hb, math.sqrt(hb), hd, (ax * dx + ay * dy) / hd


SETTLED, SLIDES, TO_NAN = 0, 1, 2
"""What OpenSim's _adjust_tangent_point does to a tangent point: leaves it, slides it
along the axis, or sets its z to NaN (where the line it aims at runs along the axis)."""


@helper(error_model="numpy")
def _slide(pt_z, r_z, w_z, k):
    """How OpenSim's _adjust_tangent_point moves the tangent point r (z = r_z) between the
    path point pt and the helix point w (``k`` from _slide_constants): it slides where
    the lines pt-r and r-w meet the axis at angles differing by more than _TANGENCY,
    compared by the cosine of their difference."""
    ha, root_a, hb, root_b, hd, _ = k
    a_z, b_z = r_z - pt_z, w_z - r_z
    a2, b2 = ha + a_z * a_z, hb + b_z * b_z
    if a2 < _EPS * _EPS or b2 < _EPS * _EPS:
        ca, sa = _axis_cosine_sine(a2, root_a, a_z)
        cb, sb = _axis_cosine_sine(b2, root_b, b_z)
        settled = not ca * cb + sa * sb < _COS_TANGENCY
    else:
        # cos(angle of a - angle of b) = (a_z b_z + |a_xy| |b_xy|) / (|a| |b|), squared
        cosine = a_z * b_z + root_a * root_b
        settled = not (cosine <= 0.0 or cosine * cosine < _COS_TANGENCY_SQUARED * (a2 * b2))
    if settled:
        return SETTLED
    d_z = w_z - pt_z
    if abs(d_z) < _EPS or hd <= _ROUNDOFF * (hd + d_z * d_z):
        return TO_NAN
    return SLIDES


@helper(forceinline=False, error_model="numpy")
def _spiral(p1, p2, r1, r2, radius, long_wrap, adjust):
    """OpenSim's _make_spiral_path: (r1, r2, length) of the helix from r1 to r2, the long
    way round for ``long_wrap``; with ``adjust`` (a path of several PathWraps) the
    tangent points are first slid along the axis to tangency with the helix, looking at
    its first and last pieces, up to _MAX_ITERATIONS times (OpenSim's slides rarely
    settle: most paths take them all).

    A slide moves only the points' z: the turn of the helix, its pieces' ends across the
    axis and the parts across the axis of the tangency test are worked out once for each
    count of pieces, and a slide is an affine map of (z1, z2). OpenSim moves r1 1.5
    times the way to the point s1 of the line p1-w1 (w1 = z1 + t (z2 - z1), the
    helix's point at t), then r2 likewise toward the line p2-w2 with w2 = z1' + (1 - t)
    (z2 - z1) taken from the moved r1; each new z is written here from the old z1, z2."""
    sense = -1.0 if long_wrap else 1.0
    theta = math.atan2(r1[0] * r2[1] - r1[1] * r2[0], r1[0] * r2[0] + r1[1] * r2[1])
    if long_wrap:
        theta = 2.0 * math.pi - theta
    x = radius * theta
    # the helix turns sense t theta to its point at t, sense (1 - t) theta to that at 1 - t
    cos_theta, sin_theta = math.cos(theta), sense * math.sin(theta)
    z1, z2 = r1[2], r2[2]
    pieces = -1
    t = 0.0
    k1 = k2 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    one = (0.0, 0.0, 0.0)       # z1' after r1's slide: one . (z1, z2, 1)
    both = (0.0, 0.0, 0.0)      # z2' after both slides
    two = (0.0, 0.0, 0.0)       # z2' after r2's slide alone
    iterations = 0
    while True:
        axial = z2 - z1
        length = math.sqrt(x * x + axial * axial)
        if not adjust or iterations >= _MAX_ITERATIONS or not length / _SEGMENT >= 2.0:
            return (r1[0], r1[1], z1), (r2[0], r2[1], z2), length
        if int(length / _SEGMENT) != pieces:
            pieces = int(length / _SEGMENT)
            t = 1.0 / pieces
            c1, s1 = math.cos(t * theta), sense * math.sin(t * theta)
            c2, s2 = cos_theta * c1 + sin_theta * s1, sin_theta * c1 - cos_theta * s1
            k1 = _slide_constants(p1, r1, c1 * r1[0] - s1 * r1[1], s1 * r1[0] + c1 * r1[1])
            k2 = _slide_constants(p2, r2, c2 * r1[0] - s2 * r1[1], s2 * r1[0] + c2 * r1[1])
            g1, g2 = 1.5 * k1[5], 1.5 * k2[5]     # 1.5 s: how far each slide goes
            one = (g1 * (1.0 - t) - 0.5, g1 * t, (1.5 - g1) * p1[2])
            two = (g2 * t, g2 * (1.0 - t) - 0.5, (1.5 - g2) * p2[2])
            both = (g2 * one[0] - g2 * (1.0 - t), two[1] + g2 * one[1], two[2] + g2 * one[2])
        slide1 = _slide(p1[2], z1, z1 + t * axial, k1)
        if slide1 == SETTLED:
            new1 = z1
        elif slide1 == SLIDES:
            new1 = one[0] * z1 + one[1] * z2 + one[2]
        else:
            new1 = math.nan
        slide2 = _slide(p2[2], z2, new1 + (1.0 - t) * axial, k2)
        if slide2 == SETTLED:
            if slide1 == SETTLED:
                return (r1[0], r1[1], z1), (r2[0], r2[1], z2), length
        elif slide2 == TO_NAN or slide1 == TO_NAN:
            z2 = math.nan
        elif slide1 == SLIDES:
            z2 = both[0] * z1 + both[1] * z2 + both[2]
        else:
            z2 = two[0] * z1 + two[1] * z2 + two[2]
        z1 = new1
        iterations += 1


@helper(forceinline=False, error_model="numpy")
def cylinder_wrap(radius, length, axis, sign, adjust, p1, p2):
    """OpenSim's WrapCylinder::wrapLine of the segment p1-p2 (m, in W) over the cylinder
    of ``radius`` and ``length`` about z, wrapping on the side ``sign`` of ``axis`` (sign
    0: any side): (WrapAction, r1, r2, length over the surface); r1, r2 NaN where OpenSim
    leaves them so."""
    nan3 = (math.nan, math.nan, math.nan)
    r_squared = radius * radius
    if distance_squared_to_line(p1, _P0, _DN) < r_squared or \
            distance_squared_to_line(p2, _P0, _DN) < r_squared:
        return INSIDE_RADIUS, nan3, nan3, 0.0
    _, near12, t12, near00, _ = intersect_lines(p1, p2, (0.0, 0.0, -0.5 * length),
                                                (0.0, 0.0, 0.5 * length))
    crosses = distance_squared(near12, near00) < r_squared and t12 > 0.0 and t12 < 1.0
    constrained = sign != 0
    code = WRAPPED
    if not constrained:
        if not crosses:
            return NO_WRAP, nan3, nan3, 0.0
        code = MANDATORY_WRAP
    r1a, r1b, p11, p11_dist = _tangent_candidates(p1, radius)
    r2a, r2b, p22, p22_dist = _tangent_candidates(p2, radius)
    far_side = False
    long_wrap = False
    if constrained:
        if dsign(p1[axis]) == sign or dsign(p2[axis]) == sign:
            if crosses:
                code = MANDATORY_WRAP
            elif dsign(p1[axis]) != dsign(p2[axis]) and dsign(near12[axis]) != sign:
                code = WRAPPED
            else:
                return NO_WRAP, nan3, nan3, 0.0
        alpha = _angle(sub3(r1a, p11), sub3(r2b, p22))
        beta = _angle(sub3(r1b, p11), sub3(r2a, p22))
        on1a, on1b = dsign(r1a[axis]) == sign, dsign(r1b[axis]) == sign
        # the pairs (r1a, r2b) and (r1b, r2a) turn opposite ways round the axis
        if on1a and on1b:
            if dsign(r2a[axis]) == sign:
                r1, r2, far_side = r1b, r2a, not alpha > beta
            else:
                r1, r2, far_side = r1a, r2b, alpha > beta
        elif on1a:
            r1, r2, far_side = r1a, r2b, alpha > beta
        elif on1b:
            r1, r2, far_side = r1b, r2a, not alpha > beta
        elif dsign(r2a[axis]) == sign:
            r1, r2, far_side = r1b, r2a, not alpha > beta
        elif dsign(r2b[axis]) == sign:
            r1, r2, far_side = r1a, r2b, alpha > beta
        elif alpha > beta:
            r1, r2, far_side = r1a, r2b, True
        else:
            r1, r2, far_side = r1b, r2a, True
        sum_musc = add3(sub3(r1, p1), sub3(r2, p2))
        sum_r = add3(sub3(r1, p11), sub3(r2, p22))
        long_wrap = dot3(sum_r, sum_musc) < 0.0
    else:
        u1a, _ = normalize_or_zero(sub3(r1a, p11))
        u1b, _ = normalize_or_zero(sub3(r1b, p11))
        u2a, _ = normalize_or_zero(sub3(r2a, p22))
        u2b, _ = normalize_or_zero(sub3(r2b, p22))
        dot1, dot2 = dot3(u1a, u2a), dot3(u1a, u2b)
        dot3_, dot4 = dot3(u1b, u2a), dot3(u1b, u2b)
        if dot1 > dot2 and dot1 > dot3_ and dot1 > dot4:
            r1, r2 = r1a, r2a
        elif dot2 > dot3_ and dot2 > dot4:
            r1, r2 = r1a, r2b
        elif dot3_ > dot4:
            r1, r2 = r1b, r2a
        else:
            r1, r2 = r1b, r2b

    # the apex: where the plane of p1, p2 and the axis point below them meets the surface
    t = p11_dist / (p11_dist + p22_dist)
    mpt = add3(p1, scale3(t, sub3(p2, p1)))
    axis_pt, _ = closest_point_on_line(mpt, _P0, _DN)
    l1, _ = normalize_or_zero(sub3(p1, axis_pt))
    l2, _ = normalize_or_zero(sub3(p2, axis_pt))
    normal, _ = normalize_or_zero(_unit(cross3(l1, l2)))
    vert1, _ = normalize_or_zero(cross3(_DN, normal))
    vert2, _ = normalize_or_zero(cross3(normal, _DN))
    apex1 = add3(axis_pt, scale3(radius, vert1))
    apex2 = add3(axis_pt, scale3(radius, vert2))
    nearer1 = distance_squared(mpt, apex1) < distance_squared(mpt, apex2)
    apex = apex2 if nearer1 == far_side else apex1

    # slide r1 and r2 along the axis onto the plane of p1, p2 and the apex
    uu, _ = normalize_or_zero(sub3(p1, apex))
    vv, _ = normalize_or_zero(sub3(p2, apex))
    normal = _unit(cross3(uu, vv))
    d = -dot3(p1, normal)
    hit1, r1p = intersect_segment_plane(sub3(r1, scale3(10.0, _DN)),
                                        add3(r1, scale3(10.0, _DN)), normal, d)
    hit2, r2p = intersect_segment_plane(sub3(r2, scale3(10.0, _DN)),
                                        add3(r2, scale3(10.0, _DN)), normal, d)
    # OpenSim measures along the line through p11 in the direction of the point p22 (and
    # back), the axis itself unless p22 is W's origin
    if hit1:
        q, _ = closest_point_on_line(r1p, p11, p22)
        if distance_squared(q, p22) < distance_squared(p11, p22):
            r1 = r1p
    if hit2:
        q, _ = closest_point_on_line(r2p, p22, p11)
        if distance_squared(q, p11) < distance_squared(p22, p11):
            r2 = r2p
    half = 0.5 * length
    if (r1[2] < -half or r1[2] > half) and (r2[2] < -half or r2[2] > half):
        return NO_WRAP, r1, r2, 0.0
    r1, r2, wrap_length = _spiral(p1, p2, r1, r2, radius, long_wrap, adjust)
    return code, r1, r2, wrap_length


@helper(forceinline=False, error_model="numpy")
def wrap_line(wi, wf, p1, p2, previous, result):
    """wf = [radius, length]. OpenSim's WrapCylinder wrapPathSegment in W."""
    code, r1, r2, length = cylinder_wrap(wf[0], wf[1], wi[AXIS], wi[SIGN], wi[SINGLE] == 0,
                                         vec3(p1), vec3(p2))
    if code == WRAPPED or code == MANDATORY_WRAP:
        store_wrap(result, previous, r1, r2, length)
    else:
        store_result(result, r1, r2, length)
    return code
