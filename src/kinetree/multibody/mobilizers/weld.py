"""Weld: no relative motion; X_FM is the identity and there are no q or u."""

import numpy as np

from kinetree.jit import helper
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["weld"]
NQ = NU = 0
DEFAULT_Q = ()


@helper
def x_fm(q, prm, R_FM, p_FM):
    R_FM[:, :] = 0.0
    R_FM[0, 0] = R_FM[1, 1] = R_FM[2, 2] = 1.0
    p_FM[:] = 0.0


@helper
def h_fm(q, prm, H):
    pass


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@helper
def n_mult(q, v, prm, out):
    pass


@helper
def n_inv_mult(q, v, prm, out):
    pass


@helper
def ndot_u(q, u, prm, out):
    pass


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """No q: nothing of X_FM can be represented."""
    return np.zeros(0)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """No u: nothing of V_FM can be represented."""
    return np.zeros(0)
