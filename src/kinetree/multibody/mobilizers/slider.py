"""Slider (prismatic): translation q (m) along the common x axis of F and M; u = q̇."""

import numba

from kinetree.multibody.mobilizers._constant_hinge import (  # noqa: F401 - the contract
    hdot_u,
    identity,
    n_mult,
    ndot_u,
    rotation_z,
)

CODE = 2
NQ = NU = 1
DEFAULT_Q = (0.0,)


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    identity(R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[0], 0.0, 0.0


@numba.njit(cache=True)
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[3, 0] = 1.0


n_inv_mult = n_mult
