"""Bushing: six mobilities with q̇ = u: body-fixed x-y-z angles q0..q2 (rad), R_FM =
Rx Ry Rz, then M's origin at p_FM = (q3, q4, q5) (m) in F. Unlike Free, the rotational u
are the angle rates, not w_FM."""

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import gimbal
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["bushing"]
NQ = NU = 6
DEFAULT_Q = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    gimbal.xyz_rotation(q[0], q[1], q[2], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[3], q[4], q[5]


@helper
def h_fm(q, prm, H):
    H[:, :] = 0.0
    gimbal.xyz_rate_matrix(q[0], q[1], H)
    H[3, 3] = H[4, 4] = H[5, 5] = 1.0


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0
    gimbal.xyz_rate_matrix_dot_times(q[0], q[1], u[0], u[1], u, out)


@helper
def n_mult(q, v, prm, out):
    for i in range(6):
        out[i] = v[i]


n_inv_mult = n_mult


@helper
def ndot_u(q, u, prm, out):
    out[:] = 0.0


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = [R_FM's body-fixed x-y-z angles, p_FM (in F)] (Simbody's rule), exact."""
    return np.concatenate([gimbal.xyz_angles_to_fit(R_FM), np.asarray(p_FM, dtype=float)])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = [Hᵣ(q)⁻¹ w_FM, v_FM] (both in F): Gimbal's angle rates at the current q, then the
    origin's velocity; exact away from q[1] = ±π/2."""
    return np.concatenate([gimbal.xyz_rates_to_fit(q, w_FM), np.asarray(v_FM, dtype=float)])
