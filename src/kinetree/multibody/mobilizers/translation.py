"""Translation (Cartesian): M's origin at p_FM = q (m) in F, no rotation; u = q̇."""

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers._constant_hinge import (  # noqa: F401 - the contract
    hdot_u,
    identity,
    n_mult,
    ndot_u,
    rotation_z,
)
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["translation"]
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    identity(R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[0], q[1], q[2]


@helper
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[3, 0] = H[4, 1] = H[5, 2] = 1.0


n_inv_mult = n_mult


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = p_FM (M's origin in F), exact; the rotation is out of reach and ignored."""
    return np.array(p_FM, dtype=float)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = v_FM (velocity of M's origin in F), exact; the angular velocity is dropped."""
    return np.array(v_FM, dtype=float)
