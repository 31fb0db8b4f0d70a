"""LineOrientation: the orientation of a body inertialess about its own z axis (a line).
q as for Ball: a quaternion [w, x, y, z] or, in Euler-angle mode, body-fixed x-y-z angles;
the two u are the x and y components of w_FM expressed in M (Simbody's convention), so M
cannot spin about Mz. The helpers here serve FreeLine too."""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import ball
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["line_orientation"]
NQ = 4
NQ_EULER = 3
NU = 2
DEFAULT_Q = (1.0, 0.0, 0.0, 0.0)
DEFAULT_Q_EULER = (0.0, 0.0, 0.0)


@helper
def axes_xy(q):
    """M's x and y axes in F (the first two columns of R_FM), as six numbers
    (x0, y0, x1, y1, x2, y2) row by row."""
    if q.shape[0] == 4:
        s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
        w, x, y, z = q[0], q[1], q[2], q[3]
        return (1.0 - s * (y * y + z * z), s * (x * y - w * z),
                s * (x * y + w * z), 1.0 - s * (x * x + z * z),
                s * (x * z - w * y), s * (y * z + w * x))
    ca, sa, cb, sb, cc, sc = (math.cos(q[0]), math.sin(q[0]), math.cos(q[1]),
                              math.sin(q[1]), math.cos(q[2]), math.sin(q[2]))
    return (cb * cc, -cb * sc, sa * sb * cc + ca * sc, -sa * sb * sc + ca * cc,
            -ca * sb * cc + sa * sc, ca * sb * sc + sa * cc)


@helper
def rate(q, u, out):
    """q̇ of the orientation for speeds u (wx, wy in M)."""
    x0, y0, x1, y1, x2, y2 = axes_xy(q)
    w = (x0 * u[0] + y0 * u[1], x1 * u[0] + y1 * u[1], x2 * u[0] + y2 * u[1])
    ball.rate(q, w, out)


@helper
def rate_inverse(q, qd, out):
    """u (wx, wy in M) from q̇: w_F = N⁻¹ q̇, then its M components."""
    w = ball.rate_inverse_tuple(q, qd)
    x0, y0, x1, y1, x2, y2 = axes_xy(q)
    out[0] = x0 * w[0] + x1 * w[1] + x2 * w[2]
    out[1] = y0 * w[0] + y1 * w[1] + y2 * w[2]


@helper
def rate_dot(q, u, out):
    """(dN/dt) u: with u fixed, dw_F/dt = w_F × w_F = 0, so only Ball's Ṅ acts."""
    x0, y0, x1, y1, x2, y2 = axes_xy(q)
    w = (x0 * u[0] + y0 * u[1], x1 * u[0] + y1 * u[1], x2 * u[0] + y2 * u[1])
    ball.rate_dot(q, w, out)


@helper
def x_fm(q, prm, R_FM, p_FM):
    ball.rotation(q, R_FM)
    p_FM[:] = 0.0


@helper
def h_fm(q, prm, H):
    x0, y0, x1, y1, x2, y2 = axes_xy(q)
    H[:, :2] = 0.0
    H[0, 0], H[1, 0], H[2, 0] = x0, x1, x2
    H[0, 1], H[1, 1], H[2, 1] = y0, y1, y2


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0                  # d/dt (R (u0, u1, 0)) = w_F × w_F = 0


@helper
def n_mult(q, v, prm, out):
    rate(q, v, out)


@helper
def n_inv_mult(q, v, prm, out):
    rate_inverse(q, v, out)


@helper
def ndot_u(q, u, prm, out):
    rate_dot(q, u, out)


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q = the quaternion (nq = 4) or body-fixed x-y-z angles (nq = 3) of R_FM, as for Ball
    (the spin about Mz is kept, though no u can change it); p_FM is ignored."""
    return ball.orientation_to_fit(R_FM, nq)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """u = the x, y components in M of w_FM (given in F), at the current q; the spin about
    Mz and v_FM are out of reach and dropped."""
    w_M = ball.rotation_of(q).T @ np.asarray(w_FM, dtype=float)
    return w_M[:2].copy()
