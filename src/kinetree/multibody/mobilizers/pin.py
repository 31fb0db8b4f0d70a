"""Pin (revolute): one rotation about the common z axis of F and M.

q is the angle (rad) from Fx to Mx about Fz = Mz; u = q̇ (rad/s). Simbody's and OpenSim's
PinJoint convention.
"""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers._constant_hinge import z_angle_to_fit
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["pin"]
NQ = NU = 1
DEFAULT_Q = (0.0,)


@helper
def x_fm(q, prm, R_FM, p_FM):
    c, s = math.cos(q[0]), math.sin(q[0])
    R_FM[0, 0], R_FM[0, 1], R_FM[0, 2] = c, -s, 0.0
    R_FM[1, 0], R_FM[1, 1], R_FM[1, 2] = s, c, 0.0
    R_FM[2, 0], R_FM[2, 1], R_FM[2, 2] = 0.0, 0.0, 1.0
    p_FM[:] = 0.0


@helper
def h_fm(q, prm, H):
    H[:, 0] = 0.0
    H[2, 0] = 1.0


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@helper
def n_mult(q, v, prm, out):
    out[0] = v[0]


@helper
def n_inv_mult(q, v, prm, out):
    out[0] = v[0]


@helper
def ndot_u(q, u, prm, out):
    out[0] = 0.0


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = the z angle of R_FM (Simbody's rule: the last of its body-fixed x-y-z angles);
    any tilt of Mz away from Fz and the whole of p_FM are out of reach and ignored."""
    return np.array([z_angle_to_fit(R_FM)])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = w_FM[2], the component of M's angular velocity in F along the common z axis
    (w_FM, v_FM expressed in F); the other components are out of reach and dropped."""
    return np.array([float(w_FM[2])])
