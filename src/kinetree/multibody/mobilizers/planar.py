"""Planar: rotation q0 (rad) about the common z axis, then translation (q1, q2) (m) along
F's x and y; u = q̇."""

import numba

from kinetree.multibody.mobilizers._constant_hinge import (  # noqa: F401 - the contract
    hdot_u,
    identity,
    n_mult,
    ndot_u,
    rotation_z,
)

CODE = 6
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    rotation_z(q[0], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[1], q[2], 0.0


@numba.njit(cache=True)
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[2, 0] = 1.0
    H[3, 1] = 1.0
    H[4, 2] = 1.0


n_inv_mult = n_mult
