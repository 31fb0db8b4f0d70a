"""Universal: rotation q0 (rad) about F's x axis, then q1 about the new y axis:
R_FM = Rx(q0) Ry(q1); u = q̇. w_FM in F = x q̇0 + Rx(q0) y q̇1."""

import math

import numba

CODE = 3
NQ = NU = 2
DEFAULT_Q = (0.0, 0.0)


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    ca, sa, cb, sb = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    R_FM[0, 0], R_FM[0, 1], R_FM[0, 2] = cb, 0.0, sb
    R_FM[1, 0], R_FM[1, 1], R_FM[1, 2] = sa * sb, ca, -sa * cb
    R_FM[2, 0], R_FM[2, 1], R_FM[2, 2] = -ca * sb, sa, ca * cb
    p_FM[:] = 0.0


@numba.njit(cache=True)
def h_fm(q, prm, H):
    H[:, :2] = 0.0
    H[0, 0] = 1.0
    H[1, 1] = math.cos(q[0])
    H[2, 1] = math.sin(q[0])


@numba.njit(cache=True)
def hdot_u(q, u, prm, out):
    out[:] = 0.0
    out[1] = -math.sin(q[0]) * u[0] * u[1]
    out[2] = math.cos(q[0]) * u[0] * u[1]


@numba.njit(cache=True)
def n_mult(q, v, prm, out):
    out[0], out[1] = v[0], v[1]


n_inv_mult = n_mult


@numba.njit(cache=True)
def ndot_u(q, u, prm, out):
    out[0] = out[1] = 0.0
