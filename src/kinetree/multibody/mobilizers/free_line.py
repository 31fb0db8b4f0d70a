"""FreeLine: unrestricted motion of a body inertialess about its own z axis. q =
[orientation as LineOrientation (4 or 3) | p_FM (3, m, in F)]; u = [wx, wy of w_FM in M |
v_FM (3, m/s, in F)]."""

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import free, line_orientation
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["free_line"]
NQ = 7
NQ_EULER = 6
NU = 5
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    nr = q.shape[0] - 3
    line_orientation.x_fm(q[:nr], prm, R_FM, p_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[nr], q[nr + 1], q[nr + 2]


@helper
def h_fm(q, prm, H):
    nr = q.shape[0] - 3
    H[:, :5] = 0.0
    line_orientation.h_fm(q[:nr], prm, H)
    H[3, 2] = H[4, 3] = H[5, 4] = 1.0


hdot_u = free.hdot_u


@helper
def n_mult(q, v, prm, out):
    free.rates(q, v, out, True)


@helper
def n_inv_mult(q, v, prm, out):
    free.speeds(q, v, out, True)


@helper
def ndot_u(q, u, prm, out):
    free.rates_dot(q, u, out, True)


q_to_fit_transform = free.q_to_fit_transform
"""q = [quaternion (nq = 7) or body-fixed x-y-z angles (nq = 6) of R_FM, p_FM (in F)],
exact (Simbody's rule, as for Free)."""


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = [x, y components in M of w_FM (given in F) at the current q, v_FM (in F)]; the
    spin about Mz is out of reach and dropped."""
    nr = len(q) - 3
    return np.concatenate([line_orientation.u_to_fit_velocity(q[:nr], w_FM, v_FM, prm),
                           np.asarray(v_FM, dtype=float)])
