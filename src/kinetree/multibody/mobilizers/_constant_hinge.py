"""Shared pieces of the mobilizers whose q̇ = u and whose hinge matrix is constant in F
(Slider, Cylinder, Screw, Planar, Translation): Ḣ = 0, N = identity, Ṅ = 0."""

import math

import numba


@numba.njit(cache=True)
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@numba.njit(cache=True)
def n_mult(q, v, prm, out):
    for i in range(out.shape[0]):
        out[i] = v[i]


@numba.njit(cache=True)
def ndot_u(q, u, prm, out):
    out[:] = 0.0


@numba.njit(cache=True)
def rotation_z(angle, R):
    """R = Rz(angle)."""
    c, s = math.cos(angle), math.sin(angle)
    R[0, 0], R[0, 1], R[0, 2] = c, -s, 0.0
    R[1, 0], R[1, 1], R[1, 2] = s, c, 0.0
    R[2, 0], R[2, 1], R[2, 2] = 0.0, 0.0, 1.0


@numba.njit(cache=True)
def identity(R):
    R[:, :] = 0.0
    R[0, 0] = R[1, 1] = R[2, 2] = 1.0
