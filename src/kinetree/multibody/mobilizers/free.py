"""Free: unrestricted motion. q = [orientation | p_FM], the orientation a quaternion
[w, x, y, z] (4) or, in Euler-angle mode, body-fixed x-y-z angles (3), and p_FM (m) M's
origin in F; u = [w_FM | v_FM], M's angular velocity and its origin's velocity in F, both
expressed in F (Simbody's convention), so H = 1 and q̇ ≠ u for the orientation.
"""

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import ball, line_orientation
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["free"]
NQ = 7
NQ_EULER = 6
NU = 6
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    nr = q.shape[0] - 3
    ball.rotation(q[:nr], R_FM)
    p_FM[0], p_FM[1], p_FM[2] = q[nr], q[nr + 1], q[nr + 2]


@helper
def h_fm(q, prm, H):
    H[:, :] = 0.0
    for i in range(6):
        H[i, i] = 1.0


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@helper
def rates(q, v, out, line):
    """q̇ = N u for q = [orientation | p_FM]: the orientation's rates from the angular
    u (a ball's 3, or a line's 2 when ``line``), then ṗ_FM = v_FM (in F). FreeLine's
    too."""
    nr, nw = q.shape[0] - 3, 2 if line else 3
    if line:
        line_orientation.rate(q[:nr], v[:2], out[:nr])
    else:
        ball.rate(q[:nr], v[:3], out[:nr])
    out[nr], out[nr + 1], out[nr + 2] = v[nw], v[nw + 1], v[nw + 2]


@helper
def speeds(q, qdot, out, line):
    """u = N⁻¹ q̇, the inverse of ``rates``."""
    nr, nw = q.shape[0] - 3, 2 if line else 3
    if line:
        line_orientation.rate_inverse(q[:nr], qdot[:nr], out[:2])
    else:
        ball.rate_inverse(q[:nr], qdot[:nr], out[:3])
    out[nw], out[nw + 1], out[nw + 2] = qdot[nr], qdot[nr + 1], qdot[nr + 2]


@helper
def rates_dot(q, u, out, line):
    """Ṅ u of ``rates``: the orientation's alone (the translation's N is constant)."""
    nr = q.shape[0] - 3
    if line:
        line_orientation.rate_dot(q[:nr], u[:2], out[:nr])
    else:
        ball.rate_dot(q[:nr], u[:3], out[:nr])
    out[nr] = out[nr + 1] = out[nr + 2] = 0.0


@helper
def n_mult(q, v, prm, out):
    rates(q, v, out, False)


@helper
def n_inv_mult(q, v, prm, out):
    speeds(q, v, out, False)


@helper
def ndot_u(q, u, prm, out):
    rates_dot(q, u, out, False)


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = [quaternion (nq = 7) or body-fixed x-y-z angles (nq = 6) of R_FM, p_FM (in F)],
    exact."""
    return np.concatenate([ball.orientation_to_fit(R_FM, nq - 3),
                           np.asarray(p_FM, dtype=float)])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = [w_FM, v_FM] (both in F), exact in either q mode."""
    return np.concatenate([np.asarray(w_FM, dtype=float), np.asarray(v_FM, dtype=float)])
