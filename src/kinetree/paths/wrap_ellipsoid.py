"""OpenSim's WrapEllipsoid: a path wrapping over an ellipsoid centered at the origin of its
frame W with semi-axes along W's axes, computed as OpenSim 4.6 computes it
(WrapEllipsoid::wrapLine and its helpers).

OpenSim works in coordinates scaled by 3 / (a + b + c). It wraps only a segment whose
line crosses the ellipsoid between its ends, always as a mandatory wrap. The wrapping
plane holds p1, p2 and a point c1 on the surface, found by the PathWrap's method: the
nearest surface point to where the segment crosses the coordinate plane most across it
(axial, "Frans' technique"), to the segment's midpoint (midpoint), or a blend of the
former with the average direction to the surface from 298 points of the segment
(hybrid, "the fan"). The tangent points are found in that plane by a damped
Gauss-Newton search, and the path between them is a polyline of up to 499 pieces of
about 1 mm on the plane's cut through the surface, whose length is the wrap length.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, cross3, dot3, scale3, sub3, vec3
from kinetree.paths.wrap_object import (
    _ROUNDOFF,
    AXIS,
    INSIDE_RADIUS,
    MANDATORY_WRAP,
    METHOD,
    NO_WRAP,
    SIGN,
    WrapObject,
    dsign,
    normalize_or_zero,
    positive,
    store_result,
)
from kinetree.registry import WRAPS

CODE = WRAPS["wrap_ellipsoid"]

HYBRID, MIDPOINT, AXIAL = 0, 1, 2
"""The PathWrap methods (column METHOD of the int row)."""

_MU_BLEND_MIN = 0.7073
_MU_BLEND_MAX = 0.9
"""Hybrid: where the segment's direction cosine with its most parallel axis is below
_MU_BLEND_MIN c1 is the fan's, above _MU_BLEND_MAX the axial one, a blend between."""
_FAN_SAMPLES = 300
_SV_BOUNDARY_BLEND = 0.3
_TINY = 1e-8
"""The tangent point search stops at this sum of squared residuals."""
_SEGMENT = 0.001
"""The length (m) of the pieces of the polyline over the surface."""
_MAX_SEGMENTS = 499


class WrapEllipsoid(WrapObject):
    """An ellipsoid of semi-axes ``dimensions`` (3, m) along the axes of W, centered at
    W's origin."""

    CODE = CODE
    KIND = "wrap_ellipsoid"

    def __init__(self, dimensions, **kwargs):
        super().__init__(**kwargs)
        d = np.asarray(dimensions, dtype=float).ravel()
        if d.shape != (3,):
            raise InvalidArgumentError(f"{self._where()}: dimensions are 3 semi-axes (m), "
                                       f"got {dimensions!r}.")
        self.dimensions = np.array([positive(v, self._where(), "dimensions") for v in d])

    def _params(self) -> list:
        return [float(v) for v in self.dimensions]

    def surface_points(self, p1, p2, n: int = 16, method: str = "hybrid",
                       single: bool = True) -> np.ndarray:
        """(n + 1, 3) points (m, in W) on the surface between the tangent points of the
        segment p1-p2, for drawing: the chord r1-r2 pushed out from the center onto the
        surface; none (0, 3) when the path does not wrap."""
        code, r1, r2, _ = self.wrap_line(p1, p2, method, single)
        if code != MANDATORY_WRAP:
            return np.zeros((0, 3))
        t = np.linspace(0.0, 1.0, n + 1)[:, None]
        chord = (1.0 - t) * r1 + t * r2
        scale = np.sqrt(np.sum((chord / self.dimensions) ** 2, axis=1))[:, None]
        return chord / np.where(scale > 0.0, scale, 1.0)


# ---------------------------------------------------------------- closest points

@helper(forceinline=False, error_model="numpy")
def _closest_on_ellipse(a, b, u, v):
    """(x, y): the point of the ellipse (x/a)² + (y/b)² = 1 nearest (u, v) (Eberly,
    Graphics Gems IV, with OpenSim's handling of points on the axes)."""
    a2, b2 = a * a, b * b
    a2u2, b2v2 = a2 * u * u, b2 * v * v
    near_x = abs(u) <= _ROUNDOFF
    near_y = abs(v) <= _ROUNDOFF
    if near_x and near_y:
        if a < b:
            return (-a if u < 0.0 else a), v
        return u, (-b if v < 0.0 else b)
    if near_x:
        if a >= b or abs(v) >= b - a2 / b:
            return u, (b if v >= 0.0 else -b)
        y = b2 * v / (b2 - a2)
        ydb = y / b
        return a * math.sqrt(abs(1.0 - ydb * ydb)), y
    if near_y:
        if b >= a or abs(u) >= a - b2 / a:
            return (a if u >= 0.0 else -a), v
        x = a2 * u / (a2 - b2)
        xda = x / a
        return x, b * math.sqrt(abs(1.0 - xda * xda))
    if (u / a) * (u / a) + (v / b) * (v / b) < 1.0:
        t = 0.0
    else:
        t = max(a, b) * math.sqrt(u * u + v * v)
    P = t + a2
    Q = t + b2
    for _ in range(64):
        P = t + a2
        Q = t + b2
        P2, Q2 = P * P, Q * Q
        f = P2 * Q2 - a2u2 * Q2 - b2v2 * P2
        if abs(f) < 1e-9:
            break
        t -= f / (2.0 * (P * Q * (P + Q) - a2u2 * Q - b2v2 * P))
    return a2 * u / P, b2 * v / Q


@helper(forceinline=False, error_model="numpy")
def closest_point(a, p, axis, previous):
    """The point of the ellipsoid of semi-axes a (scaled) nearest p (OpenSim's
    findClosestPoint): within the section by the coordinate plane ``axis`` (0/1/2) holding
    p, or, for axis -1, that of the narrowest section p lies on, else by Newton's method
    on the general problem; ``previous`` where that fails to converge (OpenSim leaves its
    output as it was)."""
    if axis < 0:
        least = math.inf
        for i in range(3):
            if abs(p[i]) <= _ROUNDOFF:
                radii = a[0] + a[1] + a[2] - a[i]
                if least > radii:
                    axis = i
                    least = radii
    if axis == 0:
        y, z = _closest_on_ellipse(a[1], a[2], p[1], p[2])
        return (p[0], y, z)
    if axis == 1:
        z, x = _closest_on_ellipse(a[2], a[0], p[2], p[0])
        return (x, p[1], z)
    if axis == 2:
        x, y = _closest_on_ellipse(a[0], a[1], p[0], p[1])
        return (x, y, p[2])
    a2, b2, c2 = a[0] * a[0], a[1] * a[1], a[2] * a[2]
    u, v, w = p[0], p[1], p[2]
    a2u2, b2v2, c2w2 = a2 * u * u, b2 * v * v, c2 * w * w
    if (u / a[0]) ** 2 + (v / a[1]) ** 2 + (w / a[2]) ** 2 < 1.0:
        t = 0.0
    else:
        t = max(a[0], a[1], a[2]) * math.sqrt(u * u + v * v + w * w)
    for _ in range(64):
        P, Q, R = t + a2, t + b2, t + c2
        P2, Q2, R2 = P * P, Q * Q, R * R
        f = P2 * Q2 * R2 - a2u2 * Q2 * R2 - b2v2 * P2 * R2 - c2w2 * P2 * Q2
        if abs(f) < 1e-9:
            return (a2 * u / P, b2 * v / Q, c2 * w / R)
        PQ, PR, QR = P * Q, P * R, Q * R
        fp = 2.0 * (P * Q * R * (QR + PR + PQ) - a2u2 * QR * (Q + R) - b2v2 * PR * (P + R)
                    - c2w2 * PQ * (P + Q))
        t -= f / fp
    return previous


@helper(error_model="numpy")
def _fan_start(a, r1, r1r2, j):
    """Fan point j (of 1 to 298) of the chord r1-r2, and closest_point's first t for it."""
    s = j / _FAN_SAMPLES
    p = (r1[0] + s * r1r2[0], r1[1] + s * r1r2[1], r1[2] + s * r1r2[2])
    if (p[0] / a[0]) ** 2 + (p[1] / a[1]) ** 2 + (p[2] / a[2]) ** 2 < 1.0:
        return p, 0.0
    return p, max(a[0], a[1], a[2]) * math.sqrt(dot3(p, p))


@helper(error_model="numpy")
def _fan_step(a2, p, t, done):
    """One round of closest_point's Newton iteration for the point p: (t, done), done
    once |f| < 1e-9 at t, as closest_point stops."""
    if done:
        return t, True
    a2u2, b2v2, c2w2 = a2[0] * p[0] * p[0], a2[1] * p[1] * p[1], a2[2] * p[2] * p[2]
    P, Q, R = t + a2[0], t + a2[1], t + a2[2]
    P2, Q2, R2 = P * P, Q * Q, R * R
    f = P2 * Q2 * R2 - a2u2 * Q2 * R2 - b2v2 * P2 * R2 - c2w2 * P2 * Q2
    if abs(f) < 1e-9:
        return t, True
    PQ, PR, QR = P * Q, P * R, Q * R
    fp = 2.0 * (P * Q * R * (QR + PR + PQ) - a2u2 * QR * (Q + R) - b2v2 * PR * (P + R)
                - c2w2 * PQ * (P + Q))
    return t - f / fp, False


@helper(error_model="numpy")
def _fan_add(a, a2, p, t, done, cx, v_sum):
    """(the nearest point of p, v_sum plus the direction to it): closest_point's result,
    its predecessor's cx where the iteration did not converge, as closest_point's
    ``previous``."""
    if abs(p[0]) <= _ROUNDOFF or abs(p[1]) <= _ROUNDOFF or abs(p[2]) <= _ROUNDOFF:
        cx = closest_point(a, p, -1, cx)
    elif done:
        cx = (a2[0] * p[0] / (t + a2[0]), a2[1] * p[1] / (t + a2[1]),
              a2[2] * p[2] / (t + a2[2]))
    d, _ = normalize_or_zero(sub3(cx, p))
    return cx, add3(v_sum, d)


@helper(forceinline=False, error_model="numpy")
def _fan_direction(a, r1, r1r2, cx):
    """OpenSim's fan: the unit sum of the directions from the 298 points of the chord
    r1-r2 strictly between its 300ths to their nearest points on the ellipsoid of
    (scaled) semi-axes a, each found as closest_point finds it (cx before the first).
    Four points' Newton iterations are interleaved, each stopping where closest_point's
    would: independent, they overlap in the processor (the last group repeats its last
    point)."""
    a2 = (a[0] * a[0], a[1] * a[1], a[2] * a[2])
    last = _FAN_SAMPLES - 2
    v_sum = (0.0, 0.0, 0.0)
    for j in range(1, last + 1, 4):
        j1, j2, j3 = min(j + 1, last), min(j + 2, last), min(j + 3, last)
        p0, t0 = _fan_start(a, r1, r1r2, j)
        p1, t1 = _fan_start(a, r1, r1r2, j1)
        p2, t2 = _fan_start(a, r1, r1r2, j2)
        p3, t3 = _fan_start(a, r1, r1r2, j3)
        d0 = d1 = d2 = d3 = False
        for _ in range(64):
            t0, d0 = _fan_step(a2, p0, t0, d0)
            t1, d1 = _fan_step(a2, p1, t1, d1)
            t2, d2 = _fan_step(a2, p2, t2, d2)
            t3, d3 = _fan_step(a2, p3, t3, d3)
            if d0 and d1 and d2 and d3:
                break
        cx, v_sum = _fan_add(a, a2, p0, t0, d0, cx, v_sum)
        if j1 > j:
            cx, v_sum = _fan_add(a, a2, p1, t1, d1, cx, v_sum)
        if j2 > j1:
            cx, v_sum = _fan_add(a, a2, p2, t2, d2, cx, v_sum)
        if j3 > j2:
            cx, v_sum = _fan_add(a, a2, p3, t3, d3, cx, v_sum)
    v_sum, _ = normalize_or_zero(v_sum)
    return v_sum


# ---------------------------------------------------------------- tangent points

@helper(error_model="numpy")
def _residuals(r, d1, p, a, vs, vs4):
    """OpenSim's four residuals of a tangent point r (scaled) of the line from p: r in
    the plane (vs, vs4), on the surface, and the tangent plane at r (offset d1) through r
    and p; and their sum of squares."""
    n = (2.0 * r[0] / (a[0] * a[0]), 2.0 * r[1] / (a[1] * a[1]), 2.0 * r[2] / (a[2] * a[2]))
    e0 = dot3(vs, r) + vs4
    e1 = -1.0
    for i in range(3):
        e1 += (r[i] / a[i]) ** 2
    e2 = dot3(n, r) + d1
    e3 = dot3(n, p) + d1
    return (e0, e1, e2, e3), e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3


@helper(error_model="numpy")
def _solve4(g, diag, alpha, v):
    """x with (g + alpha diag(diag)) x = v, g symmetric (10 entries: 00 10 11 20 21 22 30
    31 32 33) and damped positive definite, by Cholesky."""
    g00 = diag[0] * (1.0 + alpha)
    g11 = diag[1] * (1.0 + alpha)
    g22 = diag[2] * (1.0 + alpha)
    g33 = diag[3] * (1.0 + alpha)
    l00 = math.sqrt(g00)
    l10, l20, l30 = g[1] / l00, g[3] / l00, g[6] / l00
    l11 = math.sqrt(g11 - l10 * l10)
    l21 = (g[4] - l20 * l10) / l11
    l31 = (g[7] - l30 * l10) / l11
    l22 = math.sqrt(g22 - l20 * l20 - l21 * l21)
    l32 = (g[8] - l30 * l20 - l31 * l21) / l22
    l33 = math.sqrt(g33 - l30 * l30 - l31 * l31 - l32 * l32)
    y0 = v[0] / l00
    y1 = (v[1] - l10 * y0) / l11
    y2 = (v[2] - l20 * y0 - l21 * y1) / l22
    y3 = (v[3] - l30 * y0 - l31 * y1 - l32 * y2) / l33
    x3 = y3 / l33
    x2 = (y2 - l32 * x3) / l22
    x1 = (y1 - l21 * x2 - l31 * x3) / l11
    x0 = (y0 - l10 * x1 - l20 * x2 - l30 * x3) / l00
    return (x0, x1, x2, x3)


@helper(forceinline=False, error_model="numpy")
def tangent_point(pe, r, p, a, vs, vs4):
    """OpenSim's calcTangentPoint: the tangent point of the line from p (scaled; pe its
    ellipsoid function value) in the plane (vs, vs4), from the start r, by a
    Levenberg-Marquardt search of OpenSim's making; p itself where it is on the
    surface."""
    if abs(pe) < 0.0001:
        return p
    d1 = -dot3((2.0 * r[0] / (a[0] * a[0]), 2.0 * r[1] / (a[1] * a[1]),
                2.0 * r[2] / (a[2] * a[2])), r)
    ee, ssqo = _residuals(r, d1, p, a, vs, vs4)
    ssq = ssqo
    alpha = 0.01
    nit = 0
    pm, _ = normalize_or_zero(p)
    while ssq > _TINY and nit < 50:
        nit += 1
        # the rows of OpenSim's dedth: one per coordinate of r, and one for d1
        j0 = (vs[0], 2.0 * r[0] / a[0] ** 2, 4.0 * r[0] / a[0] ** 2, 2.0 * p[0] / a[0] ** 2)
        j1 = (vs[1], 2.0 * r[1] / a[1] ** 2, 4.0 * r[1] / a[1] ** 2, 2.0 * p[1] / a[1] ** 2)
        j2 = (vs[2], 2.0 * r[2] / a[2] ** 2, 4.0 * r[2] / a[2] ** 2, 2.0 * p[2] / a[2] ** 2)
        j3 = (0.0, 0.0, 1.0, 1.0)
        pr, _ = normalize_or_zero(sub3(p, r))
        pcos = dot3(pr, pm)
        dd = 1.0 - math.pow(pcos, 100.0) if pcos > 0.1 else 1.0
        v = (-(j0[0] * ee[0] + j0[1] * ee[1] + j0[2] * ee[2] + j0[3] * ee[3]),
             -(j1[0] * ee[0] + j1[1] * ee[1] + j1[2] * ee[2] + j1[3] * ee[3]),
             -(j2[0] * ee[0] + j2[1] * ee[1] + j2[2] * ee[2] + j2[3] * ee[3]),
             -(j3[0] * ee[0] + j3[1] * ee[1] + j3[2] * ee[2] + j3[3] * ee[3]))

        def d4(x, y):
            return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]

        g = (d4(j0, j0), d4(j1, j0), d4(j1, j1), d4(j2, j0), d4(j2, j1), d4(j2, j2),
             d4(j3, j0), d4(j3, j1), d4(j3, j2), d4(j3, j3))
        diag = (g[0], g[2], g[5], g[9])
        vt = (0.0, 0.0, 0.0, 0.0)
        nit2 = 0
        while ssq >= ssqo and nit2 < 1000:
            x = _solve4(g, diag, alpha, v)
            vt = (dd * x[0] / 16.0, dd * x[1] / 16.0, dd * x[2] / 16.0, dd * x[3] / 16.0)
            r = add3(r, (vt[0], vt[1], vt[2]))
            d1 += vt[3]
            ssqo = ssq
            ee, ssq = _residuals(r, d1, p, a, vs, vs4)
            alpha *= 4.0
            nit2 += 1
        alpha /= 8.0
        fakt = 0.5
        nit2 = 0
        # keep stepping, doubling, while it helps; then step back once
        while ssq <= ssqo and nit2 < 1000:
            fakt *= 2.0
            r = add3(r, scale3(fakt, (vt[0], vt[1], vt[2])))
            d1 += vt[3] * fakt
            ssqo = ssq
            ee, ssq = _residuals(r, d1, p, a, vs, vs4)
            nit2 += 1
        r = sub3(r, scale3(fakt, (vt[0], vt[1], vt[2])))
        d1 -= vt[3] * fakt
        ee, ssq = _residuals(r, d1, p, a, vs, vs4)
        ssqo = ssq
    return r


# ---------------------------------------------------------------- the path

@helper(error_model="numpy")
def _plane_point(i, dphi, a0, ar1, vsy, a):
    """Interior point i of the polyline: where the ray from a0 at angle (i + 1) dphi from
    ar1 in the plane (ar1, vsy) leaves the ellipsoid (scaled)."""
    phi = (i + 1) * dphi
    c, s = math.cos(phi), math.sin(phi)
    r = (ar1[0] * c + vsy[0] * s, ar1[1] * c + vsy[1] * s, ar1[2] * c + vsy[2] * s)
    f1 = (r[0] / a[0], r[1] / a[1], r[2] / a[2])
    f2 = (a0[0] / a[0], a0[1] / a[1], a0[2] / a[2])
    aa = dot3(f1, f1)
    bb = 2.0 * dot3(f1, f2)
    cc = dot3(f2, f2) - 1.0
    mu3 = (-bb + math.sqrt(bb * bb - 4.0 * aa * cc)) / (2.0 * aa)
    return add3(a0, scale3(mu3, r))


@helper(error_model="numpy")
def _distance(a, b):
    d = sub3(a, b)
    return math.sqrt(dot3(d, d))


@helper(forceinline=False, error_model="numpy")
def surface_path(r1, r2, a, vs, vs4, far_side, factor):
    """OpenSim's CalcDistanceOnEllipsoid (scaled): (length of the polyline from r1 to r2
    over the surface in the plane (vs, vs4), the far way round for ``far_side``; its
    number of points; its second point; its last but one)."""
    length = _distance(r1, r2) / factor
    if length < _SEGMENT:
        return length * factor, 2, r2, r1
    n = min(int(length / _SEGMENT), _MAX_SEGMENTS)
    imax = 0
    for i in range(1, 3):
        if abs(vs[i]) > abs(vs[imax]):
            imax = i
    mu = -vs4 / vs[imax]
    a0 = (mu if imax == 0 else 0.0, mu if imax == 1 else 0.0, mu if imax == 2 else 0.0)
    ar1, _ = normalize_or_zero(sub3(r1, a0))
    ar2, _ = normalize_or_zero(sub3(r2, a0))
    phi0 = math.acos(dot3(ar1, ar2))
    dphi = -(2.0 * math.pi - phi0) / n if far_side else phi0 / n
    vsz, _ = normalize_or_zero(cross3(ar1, ar2))
    vsy = cross3(vsz, ar1)
    interior = n - 1
    total = 0.0
    last = r1
    first = r2
    for i in range(interior):
        s = _plane_point(i, dphi, a0, ar1, vsy, a)
        if i == 0:
            first = s
        total += _distance(s, last)
        last = s
    total += _distance(r2, last)
    return total, n + 1, first, last


# ---------------------------------------------------------------- wrapLine

@helper(forceinline=False, error_model="numpy")
def _wrapping_plane_point(a, r1, r2, p1p2, method, c1, sv):
    """OpenSim's choice of the point c1 (scaled) on the surface that, with p1 and p2,
    makes the wrapping plane: (c1, sv, the fan weight, the axial parameter t of the
    segment's crossing of its most parallel coordinate plane, mu of that axis)."""
    r1r2 = sub3(r2, r1)
    mu_v, _ = normalize_or_zero(p1p2)
    mu0, mu1, mu2 = abs(mu_v[0]), abs(mu_v[1]), abs(mu_v[2])
    best = 0
    if mu1 > mu0:
        best = 1
    if mu2 > (mu1 if best == 1 else mu0):
        best = 2
    mu = mu0 if best == 0 else (mu1 if best == 1 else mu2)
    # the segment's crossings of the three coordinate planes and their nearest surface
    # points (each within that plane's section)
    tx, ty, tz = -r1[0] / r1r2[0], -r1[1] / r1r2[1], -r1[2] / r1r2[2]
    svx = add3(r1, scale3(tx, r1r2))
    svy = add3(r1, scale3(ty, r1r2))
    svz = add3(r1, scale3(tz, r1r2))
    cx = closest_point(a, svx, 0, c1)
    cy = closest_point(a, svy, 1, c1)
    cz = closest_point(a, svz, 2, c1)
    t, sv_axis, c1_axis = tx, svx, cx
    if best == 1:
        t, sv_axis, c1_axis = ty, svy, cy
    elif best == 2:
        t, sv_axis, c1_axis = tz, svz, cz
    fan_weight = -math.inf
    if method == MIDPOINT:
        sv = add3(r1, scale3(0.5, sub3(r2, r1)))
        return closest_point(a, sv, -1, c1), sv, fan_weight, t, mu
    if method == HYBRID and mu > _MU_BLEND_MIN:
        # fade the axial solution out where its crossing nears the ends of r1-r2
        s = 1.0
        if t < 0.0 or t > 1.0:
            s = 0.0
        elif t < _SV_BOUNDARY_BLEND:
            s = t / _SV_BOUNDARY_BLEND
        elif t > 1.0 - _SV_BOUNDARY_BLEND:
            s = (1.0 - t) / _SV_BOUNDARY_BLEND
        if s < 1.0:
            mu = _MU_BLEND_MIN + s * (mu - _MU_BLEND_MIN)
    if method == AXIAL or mu > _MU_BLEND_MIN:
        c1, sv = c1_axis, sv_axis
    if method == HYBRID and mu < _MU_BLEND_MAX:
        mid = add3(r1, scale3(0.5, r1r2))
        fan = add3(mid, _fan_direction(a, r1, r1r2, cx))
        if mu <= _MU_BLEND_MIN:
            c1 = closest_point(a, fan, -1, c1)
            sv = mid
            fan_weight = 1.0
        else:
            tt = (mu - _MU_BLEND_MIN) / (_MU_BLEND_MAX - _MU_BLEND_MIN)
            other = 1.0 - tt
            cy = closest_point(a, fan, -1, cy)
            blend = add3(scale3(tt, c1), scale3(other, cy))
            sv = add3(scale3(tt, sv), scale3(other, mid))
            c1 = closest_point(a, blend, -1, c1)
            fan_weight = other
    return c1, sv, fan_weight, t, mu


@helper(forceinline=False, error_model="numpy")
def wrap_line(wi, wf, p1, p2, previous, result):
    """wf = [a, b, c], the semi-axes (m). OpenSim's WrapEllipsoid wrapPathSegment in W;
    ``previous`` keeps c1 and sv (scaled) for OpenSim's fallbacks."""
    nan3 = (math.nan, math.nan, math.nan)
    factor = 3.0 / (wf[0] + wf[1] + wf[2])
    a = (wf[0] * factor, wf[1] * factor, wf[2] * factor)
    q1 = scale3(factor, vec3(p1))
    q2 = scale3(factor, vec3(p2))
    axis, sign, method = wi[AXIS], wi[SIGN], wi[METHOD]
    sv = (previous[6], previous[7], previous[8])
    c1 = (previous[9], previous[10], previous[11])
    p1e = -1.0
    p2e = -1.0
    for i in range(3):
        p1e += (q1[i] / a[i]) ** 2
        p2e += (q2[i] / a[i]) ** 2
    store_result(result, nan3, nan3, 0.0)
    if p1e < -0.0001 or p2e < -0.0001:
        return INSIDE_RADIUS
    p1p2 = sub3(q1, q2)
    n1, _ = normalize_or_zero(q1)
    n2, _ = normalize_or_zero(q2)
    if abs(dot3(n1, n2) - 1.0) < 0.0001:
        return NO_WRAP
    f1 = (p1p2[0] / a[0], p1p2[1] / a[1], p1p2[2] / a[2])
    f2 = (q2[0] / a[0], q2[1] / a[1], q2[2] / a[2])
    aa = dot3(f1, f1)
    bb = 2.0 * dot3(f1, f2)
    cc = dot3(f2, f2) - 1.0
    disc = bb * bb - 4.0 * aa * cc
    if disc < 0.0:
        return NO_WRAP
    l1 = (-bb + math.sqrt(disc)) / (2.0 * aa)
    l2 = (-bb - math.sqrt(disc)) / (2.0 * aa)
    if not (0.0 < l1 < 1.0) or not (0.0 < l2 < 1.0):
        return NO_WRAP
    # where the segment enters and leaves the ellipsoid
    r1 = add3(q2, scale3(l1, p1p2))
    r2 = add3(q2, scale3(l2, p1p2))
    c1, sv, fan_weight, t, mu = _wrapping_plane_point(a, r1, r2, p1p2, method, c1, sv)
    if method != AXIAL or (t > 0.0 and t < 1.0):
        r1 = c1
        r2 = c1
    if sign != 0 and dsign(c1[axis]) != sign:
        # flip c1 to the active side, and part way back for a fan solution
        original = c1[axis]
        flipped = -original
        c1 = (flipped if axis == 0 else c1[0], flipped if axis == 1 else c1[1],
              flipped if axis == 2 else c1[2])
        r1 = c1
        r2 = c1
        if abs(fan_weight - (-math.inf)) <= _ROUNDOFF:
            fan_weight = 1.0 - (mu - _MU_BLEND_MIN) / (_MU_BLEND_MAX - _MU_BLEND_MIN)
        fan_weight = min(fan_weight, 1.0)
        if fan_weight > 0.0:
            moved = flipped + fan_weight * (0.5 * (original + flipped) - flipped)
            c1 = (moved if axis == 0 else c1[0], moved if axis == 1 else c1[1],
                  moved if axis == 2 else c1[2])
            c1 = closest_point(a, c1, -1, c1)
    vs, _ = normalize_or_zero(cross3(p1p2, sub3(q1, c1)))
    vs4 = -dot3(vs, c1)
    r1 = tangent_point(p1e, r1, q1, a, vs, vs4)
    r2 = tangent_point(p2e, r2, q2, a, vs, vs4)
    length, n, w1, w2 = surface_path(r1, r2, a, vs, vs4, False, factor)
    if sign != 0 and n > 2:
        # a wrong-way wrap leaves r1 (or r2) back toward p1 (p2): go the far way round
        r1p1, _ = normalize_or_zero(sub3(q1, r1))
        r1w1, _ = normalize_or_zero(sub3(w1, r1))
        r2p2, _ = normalize_or_zero(sub3(q2, r2))
        r2w2, _ = normalize_or_zero(sub3(w2, r2))
        if dot3(r1p1, r1w1) > 0.0 or dot3(r2p2, r2w2) > 0.0:
            length, n, w1, w2 = surface_path(r1, r2, a, vs, vs4, True, factor)
    store_result(result, scale3(1.0 / factor, r1), scale3(1.0 / factor, r2),
                 length / factor)
    for k in range(3):
        previous[k] = r1[k] / factor
        previous[3 + k] = r2[k] / factor
        previous[6 + k] = sv[k]
        previous[9 + k] = c1[k]
    return MANDATORY_WRAP
