"""Planar: rotation q0 (rad) about the common z axis, then translation (q1, q2) (m) along
F's x and y; u = q̇."""

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

CODE = MOBILIZERS["planar"]
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    rotation_z(q[0], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[1], q[2], 0.0


@helper
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[2, 0] = 1.0
    H[3, 1] = 1.0
    H[4, 2] = 1.0


n_inv_mult = n_mult


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = [z angle of R_FM (the last body-fixed x-y-z angle, as for Pin), p_FM[0],
    p_FM[1]] (Simbody's rule); the tilt of Mz and p_FM[2] are ignored."""
    return np.array([z_angle_to_fit(R_FM), float(p_FM[0]), float(p_FM[1])])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = [w_FM[2], v_FM[0], v_FM[1]] (in F); w_FM's x, y and v_FM's z components are
    out of reach and dropped."""
    return np.array([float(w_FM[2]), float(v_FM[0]), float(v_FM[1])])
