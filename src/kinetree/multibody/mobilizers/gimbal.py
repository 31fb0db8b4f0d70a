"""Gimbal: body-fixed x-y-z angles, R_FM = Rx(q0) Ry(q1) Rz(q2) (rad); u = q̇.

The angular velocity w_FM in F is Hᵣ q̇ with columns x, Rx(q0) y and Rx(q0) Ry(q1) z:
Hᵣ = [[1, 0, s1], [0, c0, -s0 c1], [0, s0, c0 c1]], singular at q1 = ±90°. The helpers
here are shared by Ball and Free in Euler-angle mode and by Bushing.
"""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.math.rotation import matrix_to_body_fixed_xyz
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["gimbal"]
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)


@helper
def xyz_rotation(a, b, c, R):
    """R = Rx(a) Ry(b) Rz(c)."""
    ca, sa, cb, sb, cc, sc = (math.cos(a), math.sin(a), math.cos(b), math.sin(b),
                              math.cos(c), math.sin(c))
    R[0, 0], R[0, 1], R[0, 2] = cb * cc, -cb * sc, sb
    R[1, 0] = sa * sb * cc + ca * sc
    R[1, 1] = -sa * sb * sc + ca * cc
    R[1, 2] = -sa * cb
    R[2, 0] = -ca * sb * cc + sa * sc
    R[2, 1] = ca * sb * sc + sa * cc
    R[2, 2] = ca * cb


@helper
def xyz_rate_matrix(a, b, H):
    """The 3x3 Hᵣ with w_FM(in F) = Hᵣ q̇, written into H[:3, :3]."""
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
    H[0, 0], H[0, 1], H[0, 2] = 1.0, 0.0, sb
    H[1, 0], H[1, 1], H[1, 2] = 0.0, ca, -sa * cb
    H[2, 0], H[2, 1], H[2, 2] = 0.0, sa, ca * cb


@helper
def xyz_rate_matrix_dot_times(a, b, ad, bd, v, out):
    """out = (dHᵣ/dt) v for angle rates (ad, bd); writes out[0:3]."""
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
    out[0] = cb * bd * v[2]
    out[1] = -sa * ad * v[1] + (-ca * ad * cb + sa * sb * bd) * v[2]
    out[2] = ca * ad * v[1] + (-sa * ad * cb - ca * sb * bd) * v[2]


@helper
def xyz_rates_from_w(a, b, w, out):
    """out = Hᵣ⁻¹ w: the angle rates that give angular velocity w (in F)."""
    ca, sa, cb = math.cos(a), math.sin(a), math.cos(b)
    sb = math.sin(b)
    r1 = ca * w[1] + sa * w[2]
    r2 = (-sa * w[1] + ca * w[2]) / cb
    out[0] = w[0] - sb * r2
    out[1] = r1
    out[2] = r2


@helper
def xyz_rates_dot(a, b, w, out):
    """out = d(Hᵣ⁻¹)/dt w = -Hᵣ⁻¹ (dHᵣ/dt) Hᵣ⁻¹ w, the Ṅ u of Euler-angle mobilizers whose u
    is w_FM in F."""
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
    r1 = ca * w[1] + sa * w[2]
    r2 = (-sa * w[1] + ca * w[2]) / cb
    r0 = w[0] - sb * r2
    d0 = cb * r1 * r2
    d1 = -sa * r0 * r1 + (-ca * r0 * cb + sa * sb * r1) * r2
    d2 = ca * r0 * r1 + (-sa * r0 * cb - ca * sb * r1) * r2
    e1 = ca * d1 + sa * d2
    e2 = (-sa * d1 + ca * d2) / cb
    out[0] = -(d0 - sb * e2)
    out[1] = -e1
    out[2] = -e2


@helper
def x_fm(q, prm, R_FM, p_FM):
    xyz_rotation(q[0], q[1], q[2], R_FM)
    p_FM[:] = 0.0


@helper
def h_fm(q, prm, H):
    H[:, :3] = 0.0
    xyz_rate_matrix(q[0], q[1], H)


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0
    xyz_rate_matrix_dot_times(q[0], q[1], u[0], u[1], u, out)


@helper
def n_mult(q, v, prm, out):
    out[0], out[1], out[2] = v[0], v[1], v[2]


n_inv_mult = n_mult


@helper
def ndot_u(q, u, prm, out):
    out[0] = out[1] = out[2] = 0.0


def xyz_angles_to_fit(R_FM):
    """Body-fixed x-y-z angles (rad) of R_FM, the middle one in [-π/2, π/2] (a new array)."""
    return matrix_to_body_fixed_xyz(np.ascontiguousarray(R_FM, dtype=float))


def xyz_rates_to_fit(q, w_FM):
    """The x-y-z angle rates Hᵣ⁻¹ w_FM (w_FM in F) at the angles q[0:3] (a new array)."""
    out = np.empty(3)
    xyz_rates_from_w(float(q[0]), float(q[1]), np.asarray(w_FM, dtype=float), out)
    return out


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = R_FM's body-fixed x-y-z angles (Simbody's rule), exact; p_FM is ignored."""
    return xyz_angles_to_fit(R_FM)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = q̇ = Hᵣ(q)⁻¹ w_FM (w_FM in F), the angle rates that produce w_FM at the current q,
    exact away from q[1] = ±π/2; v_FM is dropped."""
    return xyz_rates_to_fit(q, w_FM)
