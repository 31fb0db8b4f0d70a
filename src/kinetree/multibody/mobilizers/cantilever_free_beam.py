"""CantileverFreeBeam (Simbody 3.8): Gimbal's rotation, R_FM = Rx(q0) Ry(q1) Rz(q2) (rad;
u = q̇), with M's origin moving as the free end of a cantilever beam of length L = prm[0]
(m) along Fz: p_FM = L (2/3 q1, -2/3 q0, 1 - 4/15 (q0² + q1²)) in F.

The end of a beam clamped at one end and loaded across at the other deflects 2/3 θ L for
an end slope θ, and bending shortens it by 4/15 θ² L. The coupling is kinematic only: the
mobilizer has no stiffness. Its H is Gimbal's rotation rows with the translation rows
∂p_FM/∂q: columns L (0, -2/3, -8/15 q0) and L (2/3, 0, -8/15 q1).
"""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers.gimbal import (  # noqa: F401 - the contract
    n_inv_mult,
    n_mult,
    ndot_u,
    xyz_angles_to_fit,
    xyz_rate_matrix,
    xyz_rate_matrix_dot_times,
    xyz_rates_to_fit,
    xyz_rotation,
)
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["cantilever_free_beam"]
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)
DEFAULT_LENGTH = 0.5
"""Simbody's beam length (m) where none is given."""

DEFLECTION, SHORTENING = 2.0 / 3.0, 4.0 / 15.0
"""The end's deflection and shortening per unit length: 2/3 θ and 4/15 θ²."""


@helper
def x_fm(q, prm, R_FM, p_FM):
    xyz_rotation(q[0], q[1], q[2], R_FM)
    length = prm[0]
    p_FM[0] = DEFLECTION * length * q[1]
    p_FM[1] = -DEFLECTION * length * q[0]
    p_FM[2] = length - SHORTENING * length * (q[0] * q[0] + q[1] * q[1])


@helper
def h_fm(q, prm, H):
    H[:, :3] = 0.0
    xyz_rate_matrix(q[0], q[1], H)
    length = prm[0]
    H[4, 0] = -DEFLECTION * length
    H[5, 0] = -2.0 * SHORTENING * length * q[0]
    H[3, 1] = DEFLECTION * length
    H[5, 1] = -2.0 * SHORTENING * length * q[1]


@helper
def hdot_u(q, u, prm, out):
    """Gimbal's angular part; d/dt of the translation rows times u: only the shortening's
    -8/15 L (u0² + u1²) along Fz."""
    out[:] = 0.0
    xyz_rate_matrix_dot_times(q[0], q[1], u[0], u[1], u, out)
    out[5] = -2.0 * SHORTENING * prm[0] * (u[0] * u[0] + u[1] * u[1])


def q_to_fit_rotation(R_FM, prm, nq):
    """Simbody's rule for a rotation alone: q = R_FM's body-fixed x-y-z angles (the
    translation follows)."""
    return xyz_angles_to_fit(R_FM)


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """Simbody's order: q from R_FM's body-fixed x-y-z angles, then a nonzero p_FM (in F)
    decides the bend: q0 = -p1 / (2/3 L) and q1 = p0 / (2/3 L), the spin q2 then the
    turn about Mz left of R_FM. Exact for X_FM(q) of any q, where Simbody aims Mz along
    p_FM, which its own X_FM does not give back."""
    q = xyz_angles_to_fit(R_FM)
    p = np.asarray(p_FM, dtype=float)
    if float(np.linalg.norm(p)) < np.finfo(float).eps:
        return q
    reach = DEFLECTION * float(prm[0])
    q[0], q[1] = -p[1] / reach, p[0] / reach
    bend = np.empty((3, 3))
    xyz_rotation(float(q[0]), float(q[1]), 0.0, bend)
    spin = bend.T @ np.asarray(R_FM, dtype=float)   # Rz(q2)
    q[2] = math.atan2(spin[1, 0], spin[0, 0])
    return q


def u_to_fit_angular_velocity(q, w_FM, prm):
    """Simbody's rule for an angular velocity alone: u = the angle rates of w_FM (in F)."""
    return xyz_rates_to_fit(q, w_FM)


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """Simbody's order: u = the angle rates of w_FM (in F), then q̇0 and q̇1 refitted to
    v_FM (in F) by least squares on the translation rows of H, keeping q̇2."""
    u = xyz_rates_to_fit(q, w_FM)
    length = float(prm[0])
    A = np.array([[0.0, DEFLECTION * length], [-DEFLECTION * length, 0.0],
                  [-2.0 * SHORTENING * length * float(q[0]),
                   -2.0 * SHORTENING * length * float(q[1])]])
    u[:2] = np.linalg.lstsq(A, np.asarray(v_FM, dtype=float), rcond=None)[0]
    return u
