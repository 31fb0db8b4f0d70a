"""Compiled surface arithmetic and geodesic shooting for cable obstacles.

An obstacle surface lives in its own frame S and is the zero set of an implicit function
f (positive outside, negative inside; Simbody's ``calcSurfaceValue`` is -f). Its kind is an
integer and its parameters three floats ``prm``:

* SPHERE: radius ``prm[0]``, centred at S's origin;
* CYLINDER: radius ``prm[0]``, axis S's z;
* ELLIPSOID: semi-axes ``prm[0:3]`` along S's x, y, z;
* TORUS: ring radius ``prm[0]``, tube radius ``prm[1]``, ring in S's xy plane about z.

A geodesic is summarized by a record (a float64 row of ``NG``, laid out below), all in S
(m, 1/m): its status, the Frenet frames at its first contact point P and last point Q
(tangent t, outward normal n, binormal b = t x n, as Scholz2015 and Simbody's CableSpan),
its arc length, the Jacobi scalars at Q, the surface curvatures along t and b (signed so
that dt/ds = kappa n, hence negative on a convex surface) and geodesic torsions at P and Q,
and the tracking point used while the cable is lifted off. Vectors are passed as 3-tuples.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.jit import helper

SPHERE, CYLINDER, ELLIPSOID, TORUS = 0, 1, 2, 3

INITIAL_GUESS, IN_CONTACT, LIFTED = 0, 1, 2

STATUS = 0
P_POINT, P_T, P_N, P_B = 1, 4, 7, 10
Q_POINT, Q_T, Q_N, Q_B = 13, 16, 19, 22
LENGTH = 25
JACOBI = 26            # a, a', r, r' at Q: translational and rotational Jacobi scalars
CURV_P = 30            # kappa_t, kappa_b, tau at P
CURV_Q = 33            # kappa_t, kappa_b, tau at Q
TRACK = 36             # the point on the straight line nearest the surface while lifted
NG = 39

_EPS = np.finfo(np.float64).eps


@helper
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@helper
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@helper
def add(a, b, s):
    """a + s b."""
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@helper
def scale(a, s):
    return (s * a[0], s * a[1], s * a[2])


@helper
def unit(a):
    n = math.sqrt(dot(a, a))
    return (a[0] / n, a[1] / n, a[2] / n)


@helper
def vec(row, at):
    """The 3-vector stored at ``row[at:at + 3]``."""
    return (row[at], row[at + 1], row[at + 2])


@helper
def put(row, at, v):
    row[at], row[at + 1], row[at + 2] = v[0], v[1], v[2]


@helper
def surface_value(kind, prm, x):
    """f(x): dimensionless, zero on the surface, positive outside."""
    if kind == SPHERE:
        return dot(x, x) / (prm[0] * prm[0]) - 1.0
    if kind == CYLINDER:
        return (x[0] * x[0] + x[1] * x[1]) / (prm[0] * prm[0]) - 1.0
    if kind == ELLIPSOID:
        return ((x[0] / prm[0]) ** 2 + (x[1] / prm[1]) ** 2 + (x[2] / prm[2]) ** 2) - 1.0
    rho = math.sqrt(x[0] * x[0] + x[1] * x[1])
    return ((rho - prm[0]) ** 2 + x[2] * x[2]) / (prm[1] * prm[1]) - 1.0


@helper
def surface_gradient(kind, prm, x):
    """∇f at x (1/m, in S)."""
    if kind == SPHERE:
        s = 2.0 / (prm[0] * prm[0])
        return (s * x[0], s * x[1], s * x[2])
    if kind == CYLINDER:
        s = 2.0 / (prm[0] * prm[0])
        return (s * x[0], s * x[1], 0.0)
    if kind == ELLIPSOID:
        return (2.0 * x[0] / prm[0] ** 2, 2.0 * x[1] / prm[1] ** 2, 2.0 * x[2] / prm[2] ** 2)
    r2 = prm[1] * prm[1]
    rho = math.sqrt(x[0] * x[0] + x[1] * x[1])
    s = 2.0 * (1.0 - prm[0] / rho) / r2
    return (s * x[0], s * x[1], 2.0 * x[2] / r2)


@helper
def surface_hessian(kind, prm, x):
    """The Hessian of f at x (1/m², in S) as (xx, yy, zz, xy, xz, yz)."""
    if kind == SPHERE:
        s = 2.0 / (prm[0] * prm[0])
        return (s, s, s, 0.0, 0.0, 0.0)
    if kind == CYLINDER:
        s = 2.0 / (prm[0] * prm[0])
        return (s, s, 0.0, 0.0, 0.0, 0.0)
    if kind == ELLIPSOID:
        return (2.0 / prm[0] ** 2, 2.0 / prm[1] ** 2, 2.0 / prm[2] ** 2, 0.0, 0.0, 0.0)
    r2 = prm[1] * prm[1]
    rho = math.sqrt(x[0] * x[0] + x[1] * x[1])
    u = 1.0 - prm[0] / rho
    c = prm[0] / (rho * rho * rho)
    return (2.0 * (u + c * x[0] * x[0]) / r2, 2.0 * (u + c * x[1] * x[1]) / r2, 2.0 / r2,
            2.0 * c * x[0] * x[1] / r2, 0.0, 0.0)


@helper
def hessian_times(h, d):
    return (h[0] * d[0] + h[3] * d[1] + h[4] * d[2],
            h[3] * d[0] + h[1] * d[1] + h[5] * d[2],
            h[4] * d[0] + h[5] * d[1] + h[2] * d[2])


@helper
def unit_normal(kind, prm, x):
    return unit(surface_gradient(kind, prm, x))


@helper
def curvature_in_direction(kind, prm, x, d):
    """Normal curvature (1/m) along the unit tangent d, positive where convex."""
    g = surface_gradient(kind, prm, x)
    return dot(d, hessian_times(surface_hessian(kind, prm, x), d)) / math.sqrt(dot(g, g))


@helper
def torsion_in_direction(kind, prm, x, d):
    """Geodesic torsion (1/m) along the unit tangent d (Simbody's sign)."""
    g = surface_gradient(kind, prm, x)
    hd = hessian_times(surface_hessian(kind, prm, x), d)
    return -dot(hd, cross(g, d)) / dot(g, g)


@helper
def gaussian_curvature(kind, prm, x):
    """K = gᵀ adj(H) g / |g|⁴ (1/m²) of the implicit surface at x."""
    g = surface_gradient(kind, prm, x)
    h = surface_hessian(kind, prm, x)
    xx, yy, zz, xy, xz, yz = h
    a00, a11, a22 = yy * zz - yz * yz, xx * zz - xz * xz, xx * yy - xy * xy
    a01, a02, a12 = xz * yz - xy * zz, xy * yz - xz * yy, xy * xz - xx * yz
    q = (a00 * g[0] * g[0] + a11 * g[1] * g[1] + a22 * g[2] * g[2]
         + 2.0 * (a01 * g[0] * g[1] + a02 * g[0] * g[2] + a12 * g[1] * g[2]))
    gg = dot(g, g)
    return q / (gg * gg)


@helper
def project_to_surface(kind, prm, x):
    """x moved along the gradient onto f = 0 by Newton steps (Simbody's downhill
    projection, to machine precision)."""
    for _ in range(50):
        f = surface_value(kind, prm, x)
        g = surface_gradient(kind, prm, x)
        x = add(x, g, -f / dot(g, g))
        if abs(f) < 4.0 * _EPS:
            break
    return x


@helper
def is_below_surface(kind, prm, x):
    return surface_value(kind, prm, x) < 0.0


@helper
def nearest_point_on_line(kind, prm, a, b, guess, max_iterations, tolerance):
    """The point on segment a-b (in S) nearest the surface, found by Simbody's damped
    Newton iteration from ``guess`` (calcNearestPointOnLineImplicitly). Returns (point,
    below): below when a point of the line lies inside the surface."""
    d = add(b, a, -1.0)
    dd = dot(d, d)
    if dd < _EPS:
        return a, surface_value(kind, prm, a) < 0.0
    alpha = min(max(-dot(d, add(a, guess, -1.0)) / dd, 0.0), 1.0)
    for _ in range(max_iterations):
        x = add(a, d, alpha)
        if surface_value(kind, prm, x) < _EPS:
            return x, True
        g = surface_gradient(kind, prm, x)
        curv = dot(d, hessian_times(surface_hessian(kind, prm, x), d))
        step = dot(g, d) / (abs(curv) + 0.5)
        previous = alpha
        alpha = min(max(alpha - min(max(step, -0.2), 0.2), 0.0), 1.0)
        if abs(alpha - previous) < tolerance:
            return add(a, d, alpha), False
    return add(a, d, alpha), False


@helper
def _frame(kind, prm, x, t):
    """(t, n, b): t projected on the tangent plane at x and normalized, n the outward
    normal, b = t x n."""
    n = unit_normal(kind, prm, x)
    t = unit(add(t, n, -dot(t, n)))
    return t, n, cross(t, n)


@helper
def _store_frame(row, at, x, t, n, b):
    put(row, at, x)
    put(row, at + 3, t)
    put(row, at + 6, n)
    put(row, at + 9, b)


@helper
def _store_curvatures(kind, prm, row, at, x, t, b):
    row[at] = -curvature_in_direction(kind, prm, x, t)
    row[at + 1] = -curvature_in_direction(kind, prm, x, b)
    row[at + 2] = torsion_in_direction(kind, prm, x, t)


@helper
def _geodesic_rates(kind, prm, x, t, a, ad, r, rd):
    """d/ds of the geodesic state: x' = t, t' = -(tᵀHt/|g|²) g, and the Jacobi equations
    a'' = -K a, r'' = -K r."""
    g = surface_gradient(kind, prm, x)
    h = surface_hessian(kind, prm, x)
    k = dot(t, hessian_times(h, t)) / dot(g, g)
    gk = gaussian_curvature(kind, prm, x)
    return t, scale(g, -k), ad, -gk * a, rd, -gk * r


@helper
def _length_scale(kind, prm):
    """The smallest radius of curvature the surface has (m), which sets the step."""
    if kind == ELLIPSOID:
        lo = min(prm[0], min(prm[1], prm[2]))
        hi = max(prm[0], max(prm[1], prm[2]))
        return lo * lo / hi
    return min(prm[1], abs(prm[0] - prm[1]))


@helper
def shoot_geodesic(kind, prm, point, tangent, length, accuracy, row):
    """Shoot a geodesic of arc length ``length`` (m) from near ``point`` along
    ``tangent`` (both in S) and write its record into ``row`` (status IN_CONTACT).

    Sphere and cylinder are closed form (great circle, helix); ellipsoid and torus are
    integrated with classical Runge-Kutta at a fixed step of accuracy^(1/4) times the
    smallest radius of curvature, projecting the point back onto the surface and the
    tangent onto its tangent plane after each step."""
    if kind == SPHERE:
        rad = prm[0]
        n = unit(point)
        t = unit(add(tangent, n, -dot(tangent, n)))
        b = cross(t, n)
        th = length / rad
        c, s = math.cos(th), math.sin(th)
        nq = add(scale(n, c), t, s)
        tq = add(scale(t, c), n, -s)
        _store_frame(row, P_POINT, scale(n, rad), t, n, b)
        _store_frame(row, Q_POINT, scale(nq, rad), tq, nq, b)
        a, ad, r, rd = c, -s / rad, rad * s, c
    elif kind == CYLINDER:
        rad = prm[0]
        n = unit((point[0], point[1], 0.0))
        t = unit(add(tangent, n, -dot(tangent, n)))
        b = cross(t, n)
        phi = -length / rad * b[2]
        c, s = math.cos(phi), math.sin(phi)
        nq = (c * n[0] - s * n[1], s * n[0] + c * n[1], 0.0)
        tq = (c * t[0] - s * t[1], s * t[0] + c * t[1], t[2])
        bq = (c * b[0] - s * b[1], s * b[0] + c * b[1], b[2])
        _store_frame(row, P_POINT, (rad * n[0], rad * n[1], point[2]), t, n, b)
        _store_frame(row, Q_POINT, (rad * nq[0], rad * nq[1], point[2] + length * t[2]),
                     tq, nq, bq)
        a, ad, r, rd = 1.0, 0.0, length, 1.0
    else:
        x = project_to_surface(kind, prm, point)
        t, n, b = _frame(kind, prm, x, tangent)
        _store_frame(row, P_POINT, x, t, n, b)
        a, ad, r, rd = 1.0, 0.0, 0.0, 1.0
        steps = 0
        if length > 0.0:
            h_max = accuracy ** 0.25 * _length_scale(kind, prm)
            steps = max(1, int(math.ceil(length / h_max)))
        h = length / steps if steps > 0 else 0.0
        for _ in range(steps):
            k1 = _geodesic_rates(kind, prm, x, t, a, ad, r, rd)
            k2 = _geodesic_rates(kind, prm, add(x, k1[0], 0.5 * h), add(t, k1[1], 0.5 * h),
                                 a + 0.5 * h * k1[2], ad + 0.5 * h * k1[3],
                                 r + 0.5 * h * k1[4], rd + 0.5 * h * k1[5])
            k3 = _geodesic_rates(kind, prm, add(x, k2[0], 0.5 * h), add(t, k2[1], 0.5 * h),
                                 a + 0.5 * h * k2[2], ad + 0.5 * h * k2[3],
                                 r + 0.5 * h * k2[4], rd + 0.5 * h * k2[5])
            k4 = _geodesic_rates(kind, prm, add(x, k3[0], h), add(t, k3[1], h),
                                 a + h * k3[2], ad + h * k3[3], r + h * k3[4], rd + h * k3[5])
            w = h / 6.0
            x = add(x, add(add(k1[0], k4[0], 1.0), add(k2[0], k3[0], 1.0), 2.0), w)
            t = add(t, add(add(k1[1], k4[1], 1.0), add(k2[1], k3[1], 1.0), 2.0), w)
            a += w * (k1[2] + 2.0 * k2[2] + 2.0 * k3[2] + k4[2])
            ad += w * (k1[3] + 2.0 * k2[3] + 2.0 * k3[3] + k4[3])
            r += w * (k1[4] + 2.0 * k2[4] + 2.0 * k3[4] + k4[4])
            rd += w * (k1[5] + 2.0 * k2[5] + 2.0 * k3[5] + k4[5])
            x = project_to_surface(kind, prm, x)
            t = _frame(kind, prm, x, t)[0]
        tq, nq, bq = _frame(kind, prm, x, t)
        _store_frame(row, Q_POINT, x, tq, nq, bq)
    row[STATUS] = IN_CONTACT
    row[LENGTH] = length
    row[JACOBI], row[JACOBI + 1], row[JACOBI + 2], row[JACOBI + 3] = a, ad, r, rd
    _store_curvatures(kind, prm, row, CURV_P, vec(row, P_POINT), vec(row, P_T),
                      vec(row, P_B))
    _store_curvatures(kind, prm, row, CURV_Q, vec(row, Q_POINT), vec(row, Q_T),
                      vec(row, Q_B))
