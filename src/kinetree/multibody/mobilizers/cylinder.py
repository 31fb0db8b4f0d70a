"""Cylinder: rotation q0 (rad) about the common z axis and translation q1 (m) along it;
u = q̇."""

import numba

from kinetree.multibody.mobilizers._constant_hinge import (  # noqa: F401 - the contract
    hdot_u,
    identity,
    n_mult,
    ndot_u,
    rotation_z,
)

CODE = 4
NQ = NU = 2
DEFAULT_Q = (0.0, 0.0)


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    rotation_z(q[0], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = 0.0, 0.0, q[1]


@numba.njit(cache=True)
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[2, 0] = 1.0
    H[5, 1] = 1.0


n_inv_mult = n_mult
