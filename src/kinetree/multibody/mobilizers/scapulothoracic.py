"""Scapulothoracic: OpenSim's ScapulothoracicJoint, the scapula gliding on an ellipsoid over
the thorax and winging about an axis in its own plane; four mobilities in one mobilizer.

OpenSim builds the joint from three Simbody mobilizers and two massless bodies (an
Ellipsoid, a Pin, a Weld); this kind is their composite from the joint's parent frame F to
its child frame M, with the same q and u, so that a model's u̇ is OpenSim's. The frames:

- F: the joint's parent frame. The thoracic ellipsoid is centred at F's origin, semi-axes
  D = diag(rx, ry, rz) (m, ``prm[0:3]``) along F's x, y, z.
- E = F turned +90° about z (OpenSim turns the ellipsoid so that abduction and elevation
  are positive): R_FE = Rz(π/2), so E's x is F's y and E's y is F's -x.
- N: the moving frame of Simbody's Ellipsoid mobilizer in E. R_EN(q[:-1]) is a quaternion
  [w, x, y, z] or, in Euler-angle mode, body-fixed x-y-z angles (abduction, elevation,
  upward rotation); N's origin is at D n (in F), n = N's z axis, the outward normal of the
  unit sphere mapped onto the ellipsoid (as MobilizedBody.Ellipsoid).
- S = N turned -90° about z (OpenSim's first massless body, the scapular plane: S's z is
  the surface normal n, its x and y tangent to the thorax). R_FS = Rz R_EN Rzᵀ.
- M = S turned by the winging angle q[-1] (rad) about the axis through o = (ox, oy, 0) (m,
  ``prm[3:5]``) along a = (-sin d, cos d, 0), both fixed in S, d = ``prm[5]`` (rad; the
  axis is S's y at d = 0 and turns counterclockwise about n with d).

So X_FM = X_FE · X_EN(q) · X_NS · X_SM(q[-1]): R_FM = R_FS R_a(q[-1]) and p_FM = D n +
R_FS (o - R_a o). At q = 0, M is at F's +z pole (0, 0, rz) with F's axes.

u = [w_EN in E (3); q̇ of winging]: the Ellipsoid's speeds (N's angular velocity in E,
expressed in E, Simbody's rule) and the Pin's, so q̇ ≠ u for the first three (q̇ = N(q) u
as Ball's) and q̇ = u for the last. In F that angular velocity is w = Rz u[:3] =
(-u1, u0, u2).
"""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import ball
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["scapulothoracic"]
NQ = 5
NQ_EULER = 4
NU = 4
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0, 0.0)
PARAMS = 6
"""prm = [rx, ry, rz (m), ox, oy (m), d (rad)]."""


@helper
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@helper
def _r_fs(q):
    """R_FS = Rz(π/2) R_EN Rz(π/2)ᵀ as nine scalars (row by row), from the orientation
    block q[:-1] (a quaternion of any norm, or x-y-z angles)."""
    if q.shape[0] == 5:
        w, x, y, z = q[0], q[1], q[2], q[3]
        s = 2.0 / (w * w + x * x + y * y + z * z)
        a00, a01, a02 = 1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)
        a10, a11, a12 = s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x)
        a20, a21, a22 = s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y)
    else:
        ca, sa, cb, sb = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
        cc, sc = math.cos(q[2]), math.sin(q[2])
        a00, a01, a02 = cb * cc, -cb * sc, sb
        a10, a11, a12 = sa * sb * cc + ca * sc, -sa * sb * sc + ca * cc, -sa * cb
        a20, a21, a22 = -ca * sb * cc + sa * sc, ca * sb * sc + sa * cc, ca * cb
    # Rz A Rzᵀ: Rz maps x -> y, y -> -x, z -> z
    return (a11, -a10, -a12,
            -a01, a00, a02,
            -a21, a20, a22)


@helper
def _geometry(q, prm):
    """(R_FS, a_F, o_F, r_F, c, s): R_FS (nine scalars), the winging axis a and its point o
    in F, r_F = R_FS (o - R_a o) (M's origin from S's, in F), and cos, sin of the winging
    angle."""
    S = _r_fs(q)
    angle = q[q.shape[0] - 1]
    c, s = math.cos(angle), math.sin(angle)
    ax, ay = -math.sin(prm[5]), math.cos(prm[5])
    ox, oy = prm[3], prm[4]
    along = ax * ox + ay * oy
    # o - R_a o = (1 - c) (o - (a·o) a) - s (a × o), with a × o = (0, 0, ax oy - ay ox)
    r0 = (1.0 - c) * (ox - along * ax)
    r1 = (1.0 - c) * (oy - along * ay)
    r2 = -s * (ax * oy - ay * ox)
    a_F = (S[0] * ax + S[1] * ay, S[3] * ax + S[4] * ay, S[6] * ax + S[7] * ay)
    o_F = (S[0] * ox + S[1] * oy, S[3] * ox + S[4] * oy, S[6] * ox + S[7] * oy)
    r_F = (S[0] * r0 + S[1] * r1 + S[2] * r2, S[3] * r0 + S[4] * r1 + S[5] * r2,
           S[6] * r0 + S[7] * r1 + S[8] * r2)
    return S, a_F, o_F, r_F, c, s


@helper
def x_fm(q, prm, R_FM, p_FM):
    """R_FM = R_FS R_a(q[-1]) (Rodrigues), p_FM = D n + R_FS (o - R_a o)."""
    S, a_F, o_F, r_F, c, s = _geometry(q, prm)
    ax, ay = -math.sin(prm[5]), math.cos(prm[5])
    t = 1.0 - c
    # R_a = c 1 + s [a]x + (1 - c) a aᵀ, a = (ax, ay, 0)
    p00, p01, p02 = c + t * ax * ax, t * ax * ay, s * ay
    p10, p11, p12 = t * ax * ay, c + t * ay * ay, -s * ax
    p20, p21, p22 = -s * ay, s * ax, c
    for i in range(3):
        s0, s1, s2 = S[3 * i], S[3 * i + 1], S[3 * i + 2]
        R_FM[i, 0] = s0 * p00 + s1 * p10 + s2 * p20
        R_FM[i, 1] = s0 * p01 + s1 * p11 + s2 * p21
        R_FM[i, 2] = s0 * p02 + s1 * p12 + s2 * p22
    p_FM[0] = prm[0] * S[2] + r_F[0]
    p_FM[1] = prm[1] * S[5] + r_F[1]
    p_FM[2] = prm[2] * S[8] + r_F[2]


@helper
def h_fm(q, prm, H):
    """Columns 0-2 (u0, u1, u2 along E's axes, e = Rz e_j in F: F's y, -x, z): [e; D (e ×
    n) + e × r_F], the surface glide and the turn of S carrying M's offset from S; column 3:
    [a_F; a_F × (r_F - o_F)], the turn of M about the winging axis."""
    S, a_F, o_F, r_F, c, s = _geometry(q, prm)
    n0, n1, n2 = S[2], S[5], S[8]
    H[:, :4] = 0.0
    for j in range(3):
        e0 = -1.0 if j == 1 else 0.0
        e1 = 1.0 if j == 0 else 0.0
        e2 = 1.0 if j == 2 else 0.0
        g0, g1, g2 = _cross(e0, e1, e2, n0, n1, n2)
        m0, m1, m2 = _cross(e0, e1, e2, r_F[0], r_F[1], r_F[2])
        H[0, j], H[1, j], H[2, j] = e0, e1, e2
        H[3, j] = prm[0] * g0 + m0
        H[4, j] = prm[1] * g1 + m1
        H[5, j] = prm[2] * g2 + m2
    v0, v1, v2 = _cross(a_F[0], a_F[1], a_F[2], r_F[0] - o_F[0], r_F[1] - o_F[1],
                        r_F[2] - o_F[2])
    H[0, 3], H[1, 3], H[2, 3] = a_F
    H[3, 3], H[4, 3], H[5, 3] = v0, v1, v2


@helper
def hdot_u(q, u, prm, out):
    """(dH/dt) u at fixed u, with w = Rz u[:3] (S's angular velocity in F, constant at fixed
    u), b = a_F u3 (M's in S, in F) and g = b × (r_F - o_F) (M's origin moving in S):
    angular w × b; linear D (w × (w × n)) + w × (w × r_F) + 2 w × g + b × g (the glide's
    centripetal term, then the offset's centripetal, Coriolis and winging terms)."""
    S, a_F, o_F, r_F, c, s = _geometry(q, prm)
    n0, n1, n2 = S[2], S[5], S[8]
    w0, w1, w2 = -u[1], u[0], u[2]
    b0, b1, b2 = a_F[0] * u[3], a_F[1] * u[3], a_F[2] * u[3]
    g0, g1, g2 = _cross(b0, b1, b2, r_F[0] - o_F[0], r_F[1] - o_F[1], r_F[2] - o_F[2])
    out[0], out[1], out[2] = _cross(w0, w1, w2, b0, b1, b2)
    d0, d1, d2 = _cross(w0, w1, w2, n0, n1, n2)
    dd0, dd1, dd2 = _cross(w0, w1, w2, d0, d1, d2)
    k0, k1, k2 = _cross(w0, w1, w2, r_F[0], r_F[1], r_F[2])
    kk0, kk1, kk2 = _cross(w0, w1, w2, k0, k1, k2)
    c0, c1, c2 = _cross(w0, w1, w2, g0, g1, g2)
    e0, e1, e2 = _cross(b0, b1, b2, g0, g1, g2)
    out[3] = prm[0] * dd0 + kk0 + 2.0 * c0 + e0
    out[4] = prm[1] * dd1 + kk1 + 2.0 * c1 + e1
    out[5] = prm[2] * dd2 + kk2 + 2.0 * c2 + e2


@helper
def n_mult(q, v, prm, out):
    """q̇ of the orientation block for w_EN = v[:3] in E (as Ball), then q̇ = v[3]."""
    k = q.shape[0] - 1
    ball.rate(q[:k], v[:3], out[:k])
    out[k] = v[3]


@helper
def n_inv_mult(q, v, prm, out):
    k = q.shape[0] - 1
    ball.rate_inverse(q[:k], v[:k], out[:3])
    out[3] = v[k]


@helper
def ndot_u(q, u, prm, out):
    k = q.shape[0] - 1
    ball.rate_dot(q[:k], u[:3], out[:k])
    out[k] = 0.0


_RZ = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def _axis_rotation(ax, ay, angle):
    """R_a(angle) about the unit axis (ax, ay, 0), a new array."""
    c, s, t = math.cos(angle), math.sin(angle), 1.0 - math.cos(angle)
    return np.array([[c + t * ax * ax, t * ax * ay, s * ay],
                     [t * ax * ay, c + t * ay * ay, -s * ax],
                     [-s * ay, s * ax, c]])


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """R_FM exactly; the winging angle from p_FM. With R_FS = R_FM R_a(θ)ᵀ, p_FM = D R_FS z
    + R_FS o - R_FM o is K0 + cos θ K1 + sin θ K2 (Rodrigues, three vectors of R_FM): (cos θ,
    sin θ) solve it by least squares and θ is their angle (θ = 0 where the two columns are
    degenerate); then the orientation block is R_EN = Rzᵀ R_FS Rz (a quaternion, w >= 0,
    or x-y-z angles). Exact for X_FM(q) of any q; otherwise p_FM is matched only as far
    as the winging angle can (no rule of Simbody's or OpenSim's exists for this joint)."""
    R = np.asarray(R_FM, dtype=float)
    p = np.asarray(p_FM, dtype=float)
    radii = np.asarray(prm[:3], dtype=float)
    a = np.array([-math.sin(prm[5]), math.cos(prm[5]), 0.0])
    o = np.array([prm[3], prm[4], 0.0])
    z = np.array([0.0, 0.0, 1.0])
    o_par = (a @ o) * a
    # R_a(θ)ᵀ v = (a·v) a + cos θ (v - (a·v) a) - sin θ (a × v); a·z = 0
    K0 = R @ o_par
    K1 = radii * (R @ z) + R @ (o - o_par)
    K2 = -(radii * (R @ np.cross(a, z)) + R @ np.cross(a, o))
    A = np.column_stack([K1, K2])
    rhs = p + R @ o - K0
    scale = max(float(np.abs(A).max()), float(np.abs(rhs).max()), 1.0)
    if np.linalg.matrix_rank(A, tol=1e-12 * scale) < 2:
        angle = 0.0
    else:
        cs = np.linalg.lstsq(A, rhs, rcond=None)[0]
        angle = math.atan2(cs[1], cs[0])
    R_FS = R @ _axis_rotation(a[0], a[1], angle).T
    R_EN = _RZ.T @ R_FS @ _RZ
    return np.concatenate([ball.orientation_to_fit(R_EN, nq - 1), [angle]])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = the least-squares solution of H u = [w_FM; v_FM] at the current q: exact for a
    velocity the joint can have (four of six)."""
    H = np.zeros((6, 6))
    h_fm(np.ascontiguousarray(q, dtype=float), np.asarray(prm, dtype=float), H)
    V = np.concatenate([np.asarray(w_FM, dtype=float), np.asarray(v_FM, dtype=float)])
    return np.linalg.lstsq(H[:, :4], V, rcond=None)[0]
