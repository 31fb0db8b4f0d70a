"""BendStretch: rotation q0 (rad) about the common z axis, then translation q1 (m) along
the rotated (M's) x axis: polar coordinates (θ, r) in F's xy plane; u = q̇."""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers._constant_hinge import z_angle_to_fit
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["bend_stretch"]
NQ = NU = 2
DEFAULT_Q = (0.0, 0.0)

_EPS = float(np.finfo(float).eps)
_SIGNIFICANT = _EPS ** 0.875      # Simbody's SignificantReal


@helper
def x_fm(q, prm, R_FM, p_FM):
    c, s = math.cos(q[0]), math.sin(q[0])
    R_FM[0, 0], R_FM[0, 1], R_FM[0, 2] = c, -s, 0.0
    R_FM[1, 0], R_FM[1, 1], R_FM[1, 2] = s, c, 0.0
    R_FM[2, 0], R_FM[2, 1], R_FM[2, 2] = 0.0, 0.0, 1.0
    p_FM[0], p_FM[1], p_FM[2] = q[1] * c, q[1] * s, 0.0


@helper
def h_fm(q, prm, H):
    c, s, r = math.cos(q[0]), math.sin(q[0]), q[1]
    H[:, :2] = 0.0
    H[2, 0] = 1.0
    H[3, 0], H[4, 0] = -r * s, r * c
    H[3, 1], H[4, 1] = c, s


@helper
def hdot_u(q, u, prm, out):
    c, s, r = math.cos(q[0]), math.sin(q[0]), q[1]
    th_dot, r_dot = u[0], u[1]
    out[:] = 0.0
    out[3] = -(r_dot * s + r * c * th_dot) * u[0] - s * th_dot * u[1]
    out[4] = (r_dot * c - r * s * th_dot) * u[0] + c * th_dot * u[1]


@helper
def n_mult(q, v, prm, out):
    out[0], out[1] = v[0], v[1]


n_inv_mult = n_mult


@helper
def ndot_u(q, u, prm, out):
    out[0] = out[1] = 0.0


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """Simbody's rule: when p_FM's xy part (in F) is not negligible, q = [its polar angle, its
    length], which overrides R_FM (so the stretch comes back ≥ 0, the angle from p_FM);
    otherwise q = [z angle of R_FM, as for Pin, 0]. p_FM[2] and the tilt of Mz are ignored."""
    x, y = float(p_FM[0]), float(p_FM[1])
    d = math.hypot(x, y)
    if d >= 4.0 * _EPS:
        return np.array([math.atan2(y, x), d])
    return np.array([z_angle_to_fit(R_FM), 0.0])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """At the current q: u1 = v_FM·Mx and u0 = (v_FM·My) / q1 with Mx, My = Rz(q0) x, y, or
    u0 = w_FM[2] when the stretch q1 is negligible (Simbody's rule: v_FM, where it can, sets
    the turning rate); v_FM[2] and w_FM's x, y are dropped."""
    c, s = math.cos(q[0]), math.sin(q[0])
    vx, vy = float(v_FM[0]), float(v_FM[1])
    along, across = c * vx + s * vy, -s * vx + c * vy
    r = float(q[1])
    return np.array([across / r if abs(r) >= _SIGNIFICANT else float(w_FM[2]), along])
