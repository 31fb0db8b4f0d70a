"""Translation (Cartesian): M's origin at p_FM = q (m) in F, no rotation; u = q̇."""

import numba

from kinetree.multibody.mobilizers._constant_hinge import (  # noqa: F401 - the contract
    hdot_u,
    identity,
    n_mult,
    ndot_u,
    rotation_z,
)

CODE = 10
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)


@numba.njit(cache=True)
def x_fm(q, prm, R_FM, p_FM):
    identity(R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[0], q[1], q[2]


@numba.njit(cache=True)
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[3, 0] = H[4, 1] = H[5, 2] = 1.0


n_inv_mult = n_mult
