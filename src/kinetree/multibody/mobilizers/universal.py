"""Universal: rotation q0 (rad) about F's x axis, then q1 about the new y axis:
R_FM = Rx(q0) Ry(q1); u = q̇. w_FM in F = x q̇0 + Rx(q0) y q̇1."""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["universal"]
NQ = NU = 2
DEFAULT_Q = (0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    ca, sa, cb, sb = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    R_FM[0, 0], R_FM[0, 1], R_FM[0, 2] = cb, 0.0, sb
    R_FM[1, 0], R_FM[1, 1], R_FM[1, 2] = sa * sb, ca, -sa * cb
    R_FM[2, 0], R_FM[2, 1], R_FM[2, 2] = -ca * sb, sa, ca * cb
    p_FM[:] = 0.0


@helper
def h_fm(q, prm, H):
    H[:, :2] = 0.0
    H[0, 0] = 1.0
    H[1, 1] = math.cos(q[0])
    H[2, 1] = math.sin(q[0])


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0
    out[1] = -math.sin(q[0]) * u[0] * u[1]
    out[2] = math.cos(q[0]) * u[0] * u[1]


@helper
def n_mult(q, v, prm, out):
    out[0], out[1] = v[0], v[1]


n_inv_mult = n_mult


@helper
def ndot_u(q, u, prm, out):
    out[0] = out[1] = 0.0


def _blend(direct, a, b):
    """Average of a matrix element and the magnitude sqrt(a² + b²) it must have, given the
    element's sign (Simbody's way to use all of a near-rotation's entries)."""
    sign = 1.0 if direct > 0.0 else -1.0
    return 0.5 * (direct + sign * math.hypot(a, b))


def two_axis_angles(R, i, j):
    """Simbody's body-fixed two-angle decomposition R ≈ R_i(θ1) R_j(θ2) about axes i then j
    (0, 1, 2 = x, y, z; i ≠ j), each sine and cosine averaged from two estimates."""
    R = np.asarray(R, dtype=float)
    k = 3 - i - j
    t1 = math.atan2(_blend(R[k, j], R[j, i], R[j, k]), _blend(R[j, j], R[k, i], R[k, k]))
    t2 = math.atan2(_blend(R[i, k], R[j, i], R[k, i]), _blend(R[i, i], R[j, k], R[k, k]))
    if (j - i) % 3 != 1:                 # a reverse-cyclic pair such as z, y
        t1, t2 = -t1, -t2
    return np.array([t1, t2])


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = R_FM's body-fixed x-y angles (Simbody's rule), exact when R_FM = Rx Ry; any
    rotation about a third axis and p_FM are out of reach."""
    return two_axis_angles(R_FM, 0, 1)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = [w_FM[0], My·(0, w_FM[1], w_FM[2])] with My = Rx(q0) y, M's y axis in F (Simbody's
    rule: Fx takes its own component, My the rest projected on it); v_FM is dropped."""
    c, s = math.cos(q[0]), math.sin(q[0])
    return np.array([float(w_FM[0]), c * float(w_FM[1]) + s * float(w_FM[2])])
