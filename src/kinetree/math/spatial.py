"""Spatial (6-vector) algebra in Simbody's conventions.

A spatial vector is a length-6 float64 array [angular; linear]. A spatial velocity
V_AB = [w_AB; v_AB] is frame B's angular velocity in A (rad/s) and the velocity of B's
origin in A (m/s), both expressed in A. A spatial force F = [m; f] is a moment about a
stated point (N m) and a force (N), expressed in some frame. Shifting a velocity to another
point changes its linear part; shifting a force changes its moment; the power F . V is the
same before and after a shift to the same point.

The rigid-body shift operator used throughout is Simbody's (Jain's) ``PhiMatrix``:
phi(r) = [[1, [r]x], [0, 1]] for r = p_PQ, from point P to point Q. Then
V_Q = phi(r)^T V_P, F_P = phi(r) F_Q (a force acting at Q seen about P), and a spatial
inertia moves as M_P = phi(r) M_Q phi(r)^T.

The public functions accept array-likes and check shapes; the ``@numba.njit`` kernels
(``cross_mat`` and the ``*_kernel`` functions) take float64 arrays, check nothing and are
what compiled code calls. They are compiled on first use and cached on disk.
"""

from __future__ import annotations

import numba
import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.rotation import Rotation, _float_array


def _shaped(value, n: int, where: str, what: str) -> np.ndarray:
    """``value`` as a float64 array of shape (n,); InvalidArgumentError otherwise."""
    arr = _float_array(value, where, what)
    if arr.shape != (n,):
        raise InvalidArgumentError(
            f"{where}: {what} must have shape ({n},), got shape {arr.shape}; "
            + ("a spatial vector is [angular; linear], 6 numbers." if n == 6 else "pass 3 numbers.")
        )
    return arr


# ---- kernels (numba) -----------------------------------------------------------------------


@numba.njit(cache=True)
def cross_mat(v):
    """The 3x3 skew-symmetric [v]x with [v]x w = v x w, for a length-3 float array v."""
    m = np.zeros((3, 3))
    m[0, 1] = -v[2]
    m[0, 2] = v[1]
    m[1, 0] = v[2]
    m[1, 2] = -v[0]
    m[2, 0] = -v[1]
    m[2, 1] = v[0]
    return m


@numba.njit(cache=True)
def shift_velocity_by_kernel(V, r):
    """[w; v + w x r]: spatial velocity V (in A, of a frame with origin P) moved to the point
    Q = P + r on the same body; r and the result are expressed in A."""
    out = V.copy()
    out[3] += V[1] * r[2] - V[2] * r[1]
    out[4] += V[2] * r[0] - V[0] * r[2]
    out[5] += V[0] * r[1] - V[1] * r[0]
    return out


@numba.njit(cache=True)
def shift_force_by_kernel(F, r):
    """[m - r x f; f]: spatial force F = [m; f] (moment about P, in A) seen about the point
    Q = P + r instead; r and the result are expressed in A."""
    out = F.copy()
    out[0] -= r[1] * F[5] - r[2] * F[4]
    out[1] -= r[2] * F[3] - r[0] * F[5]
    out[2] -= r[0] * F[4] - r[1] * F[3]
    return out


@numba.njit(cache=True)
def reexpress_spatial_vec_kernel(R_AB, V_B):
    """[R_AB a; R_AB b] for a spatial vector V_B = [a; b] expressed in B: the same spatial
    vector expressed in A (R_AB is a 3x3 float array)."""
    out = np.zeros(6)
    for i in range(3):
        for j in range(3):
            out[i] += R_AB[i, j] * V_B[j]
            out[i + 3] += R_AB[i, j] * V_B[j + 3]
    return out


@numba.njit(cache=True)
def phi_matrix_kernel(r):
    """phi(r) = [[1, [r]x], [0, 1]], the 6x6 rigid-body shift operator for r = p_PQ."""
    m = np.eye(6)
    m[:3, 3:] = cross_mat(r)
    return m


@numba.njit(cache=True)
def spatial_cross_velocity_kernel(V):
    """crm(V) = [[[w]x, 0], [[v]x, [w]x]] for V = [w; v]: crm(V) U is the motion cross
    product V x U = [w x a; w x b + v x a] for U = [a; b]."""
    m = np.zeros((6, 6))
    wx = cross_mat(V[:3])
    m[:3, :3] = wx
    m[3:, 3:] = wx
    m[3:, :3] = cross_mat(V[3:])
    return m


@numba.njit(cache=True)
def spatial_cross_force_kernel(V):
    """crf(V) = -crm(V)^T = [[[w]x, [v]x], [0, [w]x]] for V = [w; v]: crf(V) F is the force
    cross product V x* F = [w x m + v x f; w x f] for F = [m; f]."""
    m = np.zeros((6, 6))
    wx = cross_mat(V[:3])
    m[:3, :3] = wx
    m[3:, 3:] = wx
    m[:3, 3:] = cross_mat(V[3:])
    return m


# ---- public functions -----------------------------------------------------------------------


def spatial_vec(w, v) -> np.ndarray:
    """[w; v]: a spatial vector from its angular part w and linear part v (both length 3,
    expressed in the same frame)."""
    where = "spatial_vec"
    return np.concatenate((_shaped(w, 3, where, "w"), _shaped(v, 3, where, "v")))


def shift_velocity_by(V_AB, r_A) -> np.ndarray:
    """The spatial velocity, in A, of a frame fixed to B whose origin is r_A away from B's
    origin: [w_AB; v_AB + w_AB x r_A]. V_AB and r_A are expressed in A. Equals
    phi_matrix(r_A).T @ V_AB."""
    where = "shift_velocity_by"
    return shift_velocity_by_kernel(
        _shaped(V_AB, 6, where, "V_AB"), _shaped(r_A, 3, where, "r_A")
    )


def shift_velocity_from_to(V_A, from_A, to_A) -> np.ndarray:
    """A body's spatial velocity known at point ``from_A``, moved to point ``to_A`` of the
    same body: shift_velocity_by(V_A, to_A - from_A). All expressed in A; the two points are
    measured from the same origin."""
    where = "shift_velocity_from_to"
    r = _shaped(to_A, 3, where, "to_A") - _shaped(from_A, 3, where, "from_A")
    return shift_velocity_by_kernel(_shaped(V_A, 6, where, "V_A"), r)


def shift_force_by(F_A, r_A) -> np.ndarray:
    """The same spatial force applied r_A away: F_A = [m; f] with m about a point P becomes
    [m - r_A x f; f] with the moment about P + r_A. All expressed in A. Equals
    phi_matrix(-r_A) @ F_A, which is inv(phi_matrix(r_A)) @ F_A."""
    where = "shift_force_by"
    return shift_force_by_kernel(_shaped(F_A, 6, where, "F_A"), _shaped(r_A, 3, where, "r_A"))


def shift_force_from_to(F_A, from_A, to_A) -> np.ndarray:
    """A spatial force with its moment about point ``from_A`` re-taken about point ``to_A``:
    shift_force_by(F_A, to_A - from_A). All expressed in A, points from the same origin."""
    where = "shift_force_from_to"
    r = _shaped(to_A, 3, where, "to_A") - _shaped(from_A, 3, where, "from_A")
    return shift_force_by_kernel(_shaped(F_A, 6, where, "F_A"), r)


def reexpress_spatial_vec(R_AB, V_B) -> np.ndarray:
    """The spatial vector V_B (expressed in B) expressed in A instead: [R_AB a; R_AB b].
    R_AB is a Rotation or a 3x3 array (validated as a rotation). No point is shifted."""
    rotation = R_AB if isinstance(R_AB, Rotation) else Rotation(R_AB)
    return reexpress_spatial_vec_kernel(
        rotation.as_matrix(), _shaped(V_B, 6, "reexpress_spatial_vec", "V_B")
    )


def phi_matrix(r_A) -> np.ndarray:
    """phi(r) = [[1, [r]x], [0, 1]] (6x6) for r = p_PQ expressed in A: V_Q = phi(r).T @ V_P
    shifts a velocity from P to Q and F_P = phi(r) @ F_Q a force from Q back to P, so
    phi(r).T @ V == shift_velocity_by(V, r) and phi(r) @ F == shift_force_by(F, -r)."""
    return phi_matrix_kernel(_shaped(r_A, 3, "phi_matrix", "r_A"))


def spatial_cross_velocity(V) -> np.ndarray:
    """crm(V), the 6x6 motion cross-product matrix of spatial velocity V = [w; v]:
    crm(V) @ U = [w x a; w x b + v x a] for a motion vector U = [a; b] in the same frame.
    It is the rate of change of U carried along by a frame moving with V."""
    return spatial_cross_velocity_kernel(_shaped(V, 6, "spatial_cross_velocity", "V"))


def spatial_cross_force(V) -> np.ndarray:
    """crf(V) = -crm(V)^T, the 6x6 force cross-product matrix of V = [w; v]:
    crf(V) @ F = [w x m + v x f; w x f] for a force F = [m; f] in the same frame; for a body
    with spatial inertia M, crf(V) @ M @ V is its gyroscopic (velocity-product) force."""
    return spatial_cross_force_kernel(_shaped(V, 6, "spatial_cross_force", "V"))
