"""Ellipsoid: orientation with coordinated translation over an ellipsoid fixed on F, with
semi-axes (prm[0], prm[1], prm[2]) (m) along F's x, y, z. q and u are as for Ball (a
quaternion or x-y-z angles; u = w_FM in F, so q̇ ≠ u). M's origin sits at the point of
the ellipsoid whose outward normal is M's z axis n: with D = diag(radii),
p_FM = D² n / |D n|. At the default q, M is at the ellipsoid's +z pole.
"""

import math

import numba

from kinetree.multibody.mobilizers import ball

CODE = 15
NQ = 4
NQ_EULER = 3
NU = 3
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0)


@numba.njit(cache=True)
def _normal(q):
    """n = M's z axis in F (the third column of R_FM) for a quaternion or x-y-z angles."""
    if q.shape[0] == 4:
        s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
        w, x, y, z = q[0], q[1], q[2], q[3]
        return (s * (x * z + w * y), s * (y * z - w * x), 1.0 - s * (x * x + y * y))
    ca, sa, cb, sb = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    return (sb, -sa * cb, ca * cb)


@numba.njit(cache=True)
def _point_rate(prm, n, nd):
    """ṗ of the contact point p = D² n / |D n| for a normal turning at ṅ."""
    a2, b2, c2 = prm[0] * prm[0], prm[1] * prm[1], prm[2] * prm[2]
    m0, m1, m2 = a2 * n[0], b2 * n[1], c2 * n[2]
    s = math.sqrt(n[0] * m0 + n[1] * m1 + n[2] * m2)
    sd = (nd[0] * m0 + nd[1] * m1 + nd[2] * m2) / s
    return (a2 * nd[0] / s - m0 * sd / (s * s), b2 * nd[1] / s - m1 * sd / (s * s),
            c2 * nd[2] / s - m2 * sd / (s * s))


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    ball.rotation(q, R_FM)
    a2, b2, c2 = prm[0] * prm[0], prm[1] * prm[1], prm[2] * prm[2]
    n0, n1, n2 = R_FM[0, 2], R_FM[1, 2], R_FM[2, 2]
    s = math.sqrt(a2 * n0 * n0 + b2 * n1 * n1 + c2 * n2 * n2)
    p_FM[0], p_FM[1], p_FM[2] = a2 * n0 / s, b2 * n1 / s, c2 * n2 / s


@numba.njit(cache=True)
def h_fm(q, prm, H):
    """Angular part identity; linear column j is ṗ for w = e_j (ṅ = e_j × n)."""
    n = _normal(q)
    H[:, :3] = 0.0
    H[0, 0] = H[1, 1] = H[2, 2] = 1.0
    for j in range(3):
        w = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
        nd = (w[1] * n[2] - w[2] * n[1], w[2] * n[0] - w[0] * n[2], w[0] * n[1] - w[1] * n[0])
        H[3, j], H[4, j], H[5, j] = _point_rate(prm, n, nd)


@numba.njit(cache=True)
def hdot_u(q, u, prm, out):
    """(0, p̈) for n turning at constant w = u: with m = D² n, s = |D n|,
    p̈ = m̈/s − 2 ṁ ṡ/s² − m s̈/s² + 2 m ṡ²/s³."""
    out[:3] = 0.0
    n = _normal(q)
    w = (u[0], u[1], u[2])
    nd = (w[1] * n[2] - w[2] * n[1], w[2] * n[0] - w[0] * n[2], w[0] * n[1] - w[1] * n[0])
    ndd = (w[1] * nd[2] - w[2] * nd[1], w[2] * nd[0] - w[0] * nd[2],
           w[0] * nd[1] - w[1] * nd[0])
    d = (prm[0] * prm[0], prm[1] * prm[1], prm[2] * prm[2])
    m = (d[0] * n[0], d[1] * n[1], d[2] * n[2])
    md = (d[0] * nd[0], d[1] * nd[1], d[2] * nd[2])
    mdd = (d[0] * ndd[0], d[1] * ndd[1], d[2] * ndd[2])
    s = math.sqrt(n[0] * m[0] + n[1] * m[1] + n[2] * m[2])
    sd = (nd[0] * m[0] + nd[1] * m[1] + nd[2] * m[2]) / s
    sdd = (ndd[0] * m[0] + ndd[1] * m[1] + ndd[2] * m[2]
           + nd[0] * md[0] + nd[1] * md[1] + nd[2] * md[2] - sd * sd) / s
    for i in range(3):
        out[3 + i] = (mdd[i] / s - 2.0 * md[i] * sd / (s * s) - m[i] * sdd / (s * s)
                      + 2.0 * m[i] * sd * sd / (s * s * s))


@numba.njit(cache=True)
def n_mult(q, v, prm, out):
    ball.rate(q, v, out)


@numba.njit(cache=True)
def n_inv_mult(q, v, prm, out):
    ball.rate_inverse(q, v, out)


@numba.njit(cache=True)
def ndot_u(q, u, prm, out):
    ball.rate_dot(q, u, out)
