"""Ellipsoid: orientation with coordinated translation over an ellipsoid fixed on F, with
semi-axes (prm[0], prm[1], prm[2]) (m) along F's x, y, z. q and u are as for Ball (a
quaternion or x-y-z angles; u = w_FM in F, so q̇ ≠ u). With n = M's z axis in F and
D = diag(radii), M's origin is at p_FM = D n, the point of the ellipsoid that the unit
sphere's point n maps to (Simbody's rule, checked against OpenSim's EllipsoidJoint). At the
default q, M is at the ellipsoid's +z pole.
"""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import ball, gimbal
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["ellipsoid"]
NQ = 4
NQ_EULER = 3
NU = 3
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0)
DEFAULT_RADII = (0.5, 1.0 / 3.0, 0.25)
"""Simbody's semi-axes (m) where none are given."""


@helper
def _normal(q):
    """n = M's z axis in F (the third column of R_FM) for a quaternion or x-y-z angles."""
    if q.shape[0] == 4:
        s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
        w, x, y, z = q[0], q[1], q[2], q[3]
        return (s * (x * z + w * y), s * (y * z - w * x), 1.0 - s * (x * x + y * y))
    ca, sa, cb, sb = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    return (sb, -sa * cb, ca * cb)


@helper
def x_fm(q, prm, R_FM, p_FM):
    ball.rotation(q, R_FM)
    for i in range(3):
        p_FM[i] = prm[i] * R_FM[i, 2]


@helper
def h_fm(q, prm, H):
    """[1; -D [n]x]: ṗ = D ṅ = D (w × n)."""
    n0, n1, n2 = _normal(q)
    H[:, :3] = 0.0
    H[0, 0] = H[1, 1] = H[2, 2] = 1.0
    H[3, 1], H[3, 2] = prm[0] * n2, -prm[0] * n1
    H[4, 0], H[4, 2] = -prm[1] * n2, prm[1] * n0
    H[5, 0], H[5, 1] = prm[2] * n1, -prm[2] * n0


@helper
def hdot_u(q, u, prm, out):
    """(0, D n̈) with n̈ = w × (w × n) for w = u held fixed."""
    n0, n1, n2 = _normal(q)
    w0, w1, w2 = u[0], u[1], u[2]
    d0, d1, d2 = w1 * n2 - w2 * n1, w2 * n0 - w0 * n2, w0 * n1 - w1 * n0
    out[:3] = 0.0
    out[3] = prm[0] * (w1 * d2 - w2 * d1)
    out[4] = prm[1] * (w2 * d0 - w0 * d2)
    out[5] = prm[2] * (w0 * d1 - w1 * d0)


@helper
def n_mult(q, v, prm, out):
    ball.rate(q, v, out)


@helper
def n_inv_mult(q, v, prm, out):
    ball.rate_inverse(q, v, out)


@helper
def ndot_u(q, u, prm, out):
    ball.rate_dot(q, u, out)


def q_to_fit_rotation(R_FM, prm, nq):
    """Simbody's rule for a rotation alone: q = R_FM's orientation, as for Ball (the
    translation follows)."""
    return ball.orientation_to_fit(R_FM, nq)


def u_to_fit_angular_velocity(q, w_FM, prm):
    """Simbody's rule for an angular velocity alone: u = w_FM (in F)."""
    return np.array(w_FM, dtype=float)


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = R_FM's orientation, as for Ball; then, as in Simbody, a nonzero p_FM (in F)
    re-aims Mz so that M's origin D·Mz lies on the ray from F's origin through p_FM, keeping
    R_FM's spin (its last body-fixed x-y-z angle). Exact for X_FM(q) of any q."""
    p = np.asarray(p_FM, dtype=float)
    if np.linalg.norm(p) < np.finfo(float).eps:
        return ball.orientation_to_fit(R_FM, nq)
    spin = float(gimbal.xyz_angles_to_fit(R_FM)[2])
    n = p / np.asarray(prm[:3], dtype=float)       # D⁻¹ p: the Mz that D maps onto p's ray
    n /= np.linalg.norm(n)
    a, b = math.atan2(-n[1], n[2]), math.atan2(n[0], math.hypot(n[1], n[2]))
    if nq == 3:
        return np.array([a, b, spin])
    R = np.empty((3, 3))
    gimbal.xyz_rotation(a, b, spin, R)             # Rx(a) Ry(b) e_z = n
    return ball.orientation_to_fit(R, 4)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = w_FM's spin about Mz plus the tilt rate w ⊥ Mz whose D (w × Mz) fits v_FM best
    (least squares, in F), at the current q: Simbody's order (v_FM decides all but the spin),
    exact on an ellipsoid where Simbody's formula holds only for a sphere."""
    R = ball.rotation_of(q)
    mx, my, mz = R[:, 0], R[:, 1], R[:, 2]
    radii = np.asarray(prm[:3], dtype=float)
    # w = α Mx + β My + σ Mz moves M's origin at D (w × Mz) = α (−D My) + β (D Mx)
    A = np.column_stack([-radii * my, radii * mx])
    alpha, beta = np.linalg.lstsq(A, np.asarray(v_FM, dtype=float), rcond=None)[0]
    sigma = float(mz @ np.asarray(w_FM, dtype=float))
    return alpha * mx + beta * my + sigma * mz
