"""OpenSim's WrapSphere: a path wrapping over a sphere centered at the origin of its frame
W, computed as OpenSim 4.6 computes it (WrapSphere::wrapLine): the tangent points of the
planes through the segment and the center, chosen for the shortest arc (or, with a
quadrant, on its side), joined by a great-circle arc.

OpenSim's quirks are kept: a segment through the center (within 1e-5 of it) wraps with
NaN tangent points (OpenSim reads its previous wrap, which it has scaled by NaN); a wrap
the far way round has a negative length, -R (2π - angle).
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, cross3, dot3, scale3, sub3, vec3
from kinetree.paths.wrap_object import (
    AXIS,
    INSIDE_RADIUS,
    MANDATORY_WRAP,
    NO_WRAP,
    SIGN,
    WRAPPED,
    WrapObject,
    closest_point_on_line,
    dsign,
    normalize_or_zero,
    positive,
    store_result,
    store_wrap,
)
from kinetree.registry import WRAPS

CODE = WRAPS["wrap_sphere"]


class WrapSphere(WrapObject):
    """A sphere of ``radius`` (m) centered at W's origin."""

    CODE = CODE
    KIND = "wrap_sphere"

    def __init__(self, radius: float, **kwargs):
        super().__init__(**kwargs)
        self.radius = positive(radius, self._where(), "radius")

    def _params(self) -> list:
        return [self.radius]

    def surface_points(self, p1, p2, n: int = 16, method: str = "hybrid",
                       single: bool = True) -> np.ndarray:
        """(n + 1, 3) points (m, in W) on the arc between the tangent points of the
        segment p1-p2, for drawing; none (0, 3) when the path does not wrap."""
        code, r1, r2, length = self.wrap_line(p1, p2, method, single)
        if code not in (WRAPPED, MANDATORY_WRAP) or not np.isfinite(length):
            return np.zeros((0, 3))
        axis = np.cross(r1, r2)
        axis /= np.linalg.norm(axis)
        angle = length / self.radius       # negative the far way round
        out = []
        for t in np.linspace(0.0, 1.0, n + 1):
            c, s = math.cos(angle * t), math.sin(angle * t)
            out.append(r1 * c + np.cross(axis, r1) * s + axis * np.dot(axis, r1) * (1 - c))
        return np.array(out)


@helper(error_model="numpy")
def _tangent_candidates(p, n, radius):
    """The two points where lines from p in the plane normal to n touch the sphere."""
    y, _ = normalize_or_zero(scale3(-1.0, p))
    z = cross3(n, y)
    dist = math.sqrt(dot3(p, p))
    angle = math.asin(radius / dist)
    c, s = math.cos(angle), math.sin(angle)
    # column 1 of [n y z] times the transpose of the rotation by +-angle about x
    a = (y[0] * c - z[0] * s, y[1] * c - z[1] * s, y[2] * c - z[2] * s)
    b = (y[0] * c + z[0] * s, y[1] * c + z[1] * s, y[2] * c + z[2] * s)
    return (add3(p, scale3(math.cos(angle), scale3(dist, a))),
            add3(p, scale3(math.cos(angle), scale3(dist, b))))


@helper(forceinline=False, error_model="numpy")
def sphere_wrap(radius, axis, sign, p1, p2):
    """OpenSim's WrapSphere::wrapLine of the segment p1-p2 (m, in W) over the sphere of
    ``radius`` at W's origin, wrapping on the side ``sign`` of ``axis`` (sign 0: any
    side): (WrapAction, r1, r2, length over the surface)."""
    nan3 = (math.nan, math.nan, math.nan)
    if math.sqrt(dot3(p1, p1)) < radius or math.sqrt(dot3(p2, p2)) < radius:
        return INSIDE_RADIUS, nan3, nan3, 0.0
    ri = sub3(p1, p2)
    mp = scale3(-1.0, p2)
    a = dot3(ri, ri)
    b = -2.0 * dot3(mp, ri)
    c = dot3(mp, mp) - radius * radius
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return NO_WRAP, nan3, nan3, 0.0
    l1 = (-b + math.sqrt(disc)) / (2.0 * a)
    l2 = (-b - math.sqrt(disc)) / (2.0 * a)
    if not (0.0 < l1 < 1.0) or not (0.0 < l2 < 1.0) or l1 < l2:
        return NO_WRAP, nan3, nan3, 0.0
    p1p2, _ = normalize_or_zero(sub3(p1, p2))
    np2, _ = normalize_or_zero(p2)
    hp2 = cross3(p1p2, np2)
    code = WRAPPED
    if math.sqrt(dot3(hp2, hp2)) < 0.00001:
        return code, nan3, nan3, math.nan
    n, _ = normalize_or_zero(hp2)
    r1a, r1b = _tangent_candidates(p1, n, radius)
    r2a, r2b = _tangent_candidates(p2, n, radius)
    u1a, _ = normalize_or_zero(r1a)
    u1b, _ = normalize_or_zero(r1b)
    u2a, _ = normalize_or_zero(r2a)
    u2b, _ = normalize_or_zero(r2b)
    j1, j2, j3, j4 = dot3(u1a, u2a), dot3(u1a, u2b), dot3(u1b, u2a), dot3(u1b, u2b)
    if j1 > j2 and j1 > j3 and j1 > j4:
        r1, r2, r11, r22 = r1a, r2a, r1b, r2b
    elif j2 > j3 and j2 > j4:
        r1, r2, r11, r22 = r1a, r2b, r1b, r2a
    elif j3 > j4:
        r1, r2, r11, r22 = r1b, r2a, r1a, r2b
    else:
        r1, r2, r11, r22 = r1b, r2b, r1a, r2a
    far_side = False
    if sign != 0:
        if dsign(p1[axis]) == sign or dsign(p2[axis]) == sign:
            mm, tt = closest_point_on_line((0.0, 0.0, 0.0), p1, p1p2)
            # OpenSim's tt is a distance along the unit p2-p1, compared with 1 as if a
            # fraction of the segment
            tt = -tt
            if dot3(mm, mm) < radius * radius and tt > 0.0 and tt < 1.0:
                code = MANDATORY_WRAP
            elif dsign(p1[axis]) != dsign(p2[axis]) and dsign(mm[axis]) != sign:
                code = WRAPPED
            else:
                return NO_WRAP, nan3, nan3, 0.0
        if dsign(p1[axis]) != sign or dsign(p2[axis]) != sign:
            towards, _ = normalize_or_zero(scale3(-1.0, add3(p1, p2)))
            if dot3(u1a, towards) > dot3(u1b, towards):
                r1, r11 = r1a, r1b
            else:
                r1, r11 = r1b, r1a
            if dot3(u2a, towards) > dot3(u2b, towards):
                r2, r22 = r2a, r2b
            else:
                r2, r22 = r2b, r2a
            sum_musc, _ = normalize_or_zero(add3(sub3(r1, p1), sub3(r2, p2)))
            if sum_musc[axis] * sign < 0.0:
                r1, r2 = r11, r22
            sum_musc = add3(sub3(r1, p1), sub3(r2, p2))
            far_side = dot3(add3(r1, r2), sum_musc) < 0.0
    r1n, _ = normalize_or_zero(r1)
    r2n, _ = normalize_or_zero(r2)
    angle = math.acos(dot3(r1n, r2n))
    if far_side:
        angle = -(2.0 * math.pi - angle)
    return code, r1, r2, radius * angle


@helper(forceinline=False, error_model="numpy")
def wrap_line(wi, wf, p1, p2, previous, result):
    """wf = [radius]. OpenSim's WrapSphere wrapPathSegment in W."""
    code, r1, r2, length = sphere_wrap(wf[0], wi[AXIS], wi[SIGN], vec3(p1), vec3(p2))
    if code == WRAPPED or code == MANDATORY_WRAP:
        store_wrap(result, previous, r1, r2, length)
    else:
        store_result(result, r1, r2, length)
    return code
