"""Ball (spherical): orientation only. q is a quaternion [w, x, y, z] (need not be unit:
the kinematics normalize it) or, in Euler-angle mode, body-fixed x-y-z angles; the mode is
read from the length of q. u is always w_FM, M's angular velocity in F expressed in F
(Simbody's convention), so H = [1; 0] and q̇ = N(q) u with, for the quaternion,
q̇ = ½ (0, w) ⊗ q. The quaternion helpers here serve Free too.
"""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.math.rotation import (
    matrix_to_body_fixed_xyz,
    matrix_to_quaternion,
    quaternion_to_matrix_into,
)
from kinetree.multibody.mobilizers import gimbal
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["ball"]
NQ = 4
NQ_EULER = 3
NU = 3
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0)


@helper
def quaternion_rate(q, w, out):
    """out = ½ (0, w) ⊗ q: q̇ for angular velocity w expressed in F."""
    out[0] = -0.5 * (w[0] * q[1] + w[1] * q[2] + w[2] * q[3])
    out[1] = 0.5 * (q[0] * w[0] + w[1] * q[3] - w[2] * q[2])
    out[2] = 0.5 * (q[0] * w[1] + w[2] * q[1] - w[0] * q[3])
    out[3] = 0.5 * (q[0] * w[2] + w[0] * q[2] - w[1] * q[1])


@helper
def rate_inverse_tuple(q, qd):
    """w (in F) that produces q̇ of an orientation block, as a 3-tuple."""
    if q.shape[0] == 4:
        s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
        return (s * (q[0] * qd[1] - qd[0] * q[1] - (qd[2] * q[3] - qd[3] * q[2])),
                s * (q[0] * qd[2] - qd[0] * q[2] - (qd[3] * q[1] - qd[1] * q[3])),
                s * (q[0] * qd[3] - qd[0] * q[3] - (qd[1] * q[2] - qd[2] * q[1])))
    ca, sa, cb, sb = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    return (qd[0] + sb * qd[2], ca * qd[1] - sa * cb * qd[2], sa * qd[1] + ca * cb * qd[2])


@helper
def rotation(q, R):
    """R_FM of an orientation block: quaternion (4) or x-y-z angles (3)."""
    if q.shape[0] == 4:
        quaternion_to_matrix_into(q, R)
    else:
        gimbal.xyz_rotation(q[0], q[1], q[2], R)


@helper
def rate(q, w, out):
    """q̇ of an orientation block for w_FM in F."""
    if q.shape[0] == 4:
        quaternion_rate(q, w, out)
    else:
        gimbal.xyz_rates_from_w(q[0], q[1], w, out)


@helper
def rate_inverse(q, qd, out):
    """w (in F) that produces q̇ of an orientation block (the q̇ tangent to |q| for a
    quaternion: 2 vec(q̇ ⊗ q*) / |q|²)."""
    out[0], out[1], out[2] = rate_inverse_tuple(q, qd)


@helper
def rate_dot(q, w, out):
    """(dN/dt) w of an orientation block: for the quaternion N is linear in q, so it is
    N(q̇) w with q̇ = N(q) w."""
    if q.shape[0] == 4:
        qd0 = -0.5 * (w[0] * q[1] + w[1] * q[2] + w[2] * q[3])
        qd1 = 0.5 * (q[0] * w[0] + w[1] * q[3] - w[2] * q[2])
        qd2 = 0.5 * (q[0] * w[1] + w[2] * q[1] - w[0] * q[3])
        qd3 = 0.5 * (q[0] * w[2] + w[0] * q[2] - w[1] * q[1])
        out[0] = -0.5 * (w[0] * qd1 + w[1] * qd2 + w[2] * qd3)
        out[1] = 0.5 * (qd0 * w[0] + w[1] * qd3 - w[2] * qd2)
        out[2] = 0.5 * (qd0 * w[1] + w[2] * qd1 - w[0] * qd3)
        out[3] = 0.5 * (qd0 * w[2] + w[0] * qd2 - w[1] * qd1)
    else:
        gimbal.xyz_rates_dot(q[0], q[1], w, out)


@helper
def x_fm(q, prm, R_FM, p_FM):
    rotation(q, R_FM)
    p_FM[:] = 0.0


@helper
def h_fm(q, prm, H):
    H[:, :3] = 0.0
    H[0, 0] = H[1, 1] = H[2, 2] = 1.0


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@helper
def n_mult(q, v, prm, out):
    rate(q, v, out)


@helper
def n_inv_mult(q, v, prm, out):
    rate_inverse(q, v, out)


@helper
def ndot_u(q, u, prm, out):
    rate_dot(q, u, out)


def orientation_to_fit(R_FM, n):
    """The n orientation coordinates of R_FM (a new array): the quaternion [w, x, y, z] with
    w ≥ 0 when n == 4, else body-fixed x-y-z angles (Simbody's rule in either mode)."""
    R = np.ascontiguousarray(R_FM, dtype=float)
    return matrix_to_quaternion(R) if n == 4 else matrix_to_body_fixed_xyz(R)


def rotation_of(q):
    """R_FM (a new 3x3 array) of an orientation block: a quaternion (any norm) or x-y-z
    angles."""
    R = np.empty((3, 3))
    rotation(np.ascontiguousarray(q, dtype=float), R)
    return R


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = the quaternion (nq = 4) or body-fixed x-y-z angles (nq = 3) of R_FM, exact;
    p_FM is ignored."""
    return orientation_to_fit(R_FM, nq)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = w_FM (M's angular velocity in F, expressed in F) in either q mode, exact; v_FM is
    dropped."""
    return np.array(w_FM, dtype=float)
