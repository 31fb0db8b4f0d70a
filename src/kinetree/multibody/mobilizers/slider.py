"""Slider (prismatic): translation q (m) along the common x axis of F and M; u = q̇."""

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

CODE = MOBILIZERS["slider"]
NQ = NU = 1
DEFAULT_Q = (0.0,)


@helper
def x_fm(q, prm, R_FM, p_FM):
    identity(R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[0], 0.0, 0.0


@helper
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[3, 0] = 1.0


n_inv_mult = n_mult


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = p_FM[0], the x component of M's origin in F (Simbody's rule); the rotation and
    the y, z components are out of reach and ignored."""
    return np.array([float(p_FM[0])])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = v_FM[0], the velocity of M's origin along the common x axis (in F); the angular
    velocity and the y, z components are out of reach and dropped."""
    return np.array([float(v_FM[0])])
