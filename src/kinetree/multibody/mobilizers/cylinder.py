"""Cylinder: rotation q0 (rad) about the common z axis and translation q1 (m) along it;
u = q̇."""

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers._constant_hinge import (  # noqa: F401 - the contract
    hdot_u,
    identity,
    n_mult,
    ndot_u,
    rotation_z,
    z_angle_to_fit,
)
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["cylinder"]
NQ = NU = 2
DEFAULT_Q = (0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    rotation_z(q[0], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = 0.0, 0.0, q[1]


@helper
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[2, 0] = 1.0
    H[5, 1] = 1.0


n_inv_mult = n_mult


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = [z angle of R_FM (the last body-fixed x-y-z angle, as for Pin), p_FM[2]]
    (Simbody's rule); the tilt of Mz and p_FM's x, y components are ignored."""
    return np.array([z_angle_to_fit(R_FM), float(p_FM[2])])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = [w_FM[2], v_FM[2]], the rotation and translation rates along the common z axis
    (in F); the other components are out of reach and dropped."""
    return np.array([float(w_FM[2]), float(v_FM[2])])
