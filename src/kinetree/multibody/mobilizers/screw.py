"""Screw: rotation q (rad) about the common z axis with translation pitch·q (m) along it,
pitch (m/rad) in prm[0]; u = q̇."""

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

CODE = MOBILIZERS["screw"]
NQ = NU = 1
DEFAULT_Q = (0.0,)


@helper
def x_fm(q, prm, R_FM, p_FM):
    rotation_z(q[0], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = 0.0, 0.0, prm[0] * q[0]


@helper
def h_fm(q, prm, H):
    H[:, :NU] = 0.0
    H[2, 0] = 1.0
    H[5, 0] = prm[0]


n_inv_mult = n_mult


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = p_FM[2] / pitch (Simbody fits the rotation first, then lets the translation along
    z override it, so turns beyond ±π are recovered); with zero pitch, the z angle of R_FM."""
    pitch = float(prm[0])
    return np.array([float(p_FM[2]) / pitch if pitch != 0.0 else z_angle_to_fit(R_FM)])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = v_FM[2] / pitch (Simbody's order: the linear velocity along z overrides w_FM[2]);
    with zero pitch, w_FM[2]. Vectors are in F."""
    pitch = float(prm[0])
    return np.array([float(v_FM[2]) / pitch if pitch != 0.0 else float(w_FM[2])])
