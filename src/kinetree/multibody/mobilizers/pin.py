"""Pin (revolute): one rotation about the common z axis of F and M.

q is the angle (rad) from Fx to Mx about Fz = Mz; u = q̇ (rad/s). Simbody's and OpenSim's
PinJoint convention.
"""

import math

import numba

CODE = 1
NQ = NU = 1
DEFAULT_Q = (0.0,)


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    c, s = math.cos(q[0]), math.sin(q[0])
    R_FM[0, 0], R_FM[0, 1], R_FM[0, 2] = c, -s, 0.0
    R_FM[1, 0], R_FM[1, 1], R_FM[1, 2] = s, c, 0.0
    R_FM[2, 0], R_FM[2, 1], R_FM[2, 2] = 0.0, 0.0, 1.0
    p_FM[:] = 0.0


@numba.njit(cache=True)
def h_fm(q, prm, H):
    H[:, 0] = 0.0
    H[2, 0] = 1.0


@numba.njit(cache=True)
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@numba.njit(cache=True)
def n_mult(q, v, prm, out):
    out[0] = v[0]


@numba.njit(cache=True)
def n_inv_mult(q, v, prm, out):
    out[0] = v[0]


@numba.njit(cache=True)
def ndot_u(q, u, prm, out):
    out[0] = 0.0
