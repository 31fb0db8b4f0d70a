"""Shared pieces of the mobilizers whose q̇ = u and whose hinge matrix is constant in F
(Slider, Cylinder, Screw, Planar, Translation): Ḣ = 0, N = identity, Ṅ = 0. Also the
plain-Python rule that every mobilizer turning about the common z axis uses to fit its angle
to a rotation."""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.math.rotation import matrix_to_body_fixed_xyz


@helper
def hdot_u(q, u, prm, out):
    out[:] = 0.0


@helper
def n_mult(q, v, prm, out):
    for i in range(out.shape[0]):
        out[i] = v[i]


@helper
def ndot_u(q, u, prm, out):
    out[:] = 0.0


@helper
def rotation_z(angle, R):
    """R = Rz(angle)."""
    c, s = math.cos(angle), math.sin(angle)
    R[0, 0], R[0, 1], R[0, 2] = c, -s, 0.0
    R[1, 0], R[1, 1], R[1, 2] = s, c, 0.0
    R[2, 0], R[2, 1], R[2, 2] = 0.0, 0.0, 1.0


@helper
def identity(R):
    R[:, :] = 0.0
    R[0, 0] = R[1, 1] = R[2, 2] = 1.0


def z_angle_to_fit(R_FM) -> float:
    """The angle (rad) about the common z axis that Simbody fits to a rotation R_FM: the
    last of its body-fixed x-y-z angles, so a rotation about a tilted axis keeps only what
    is left about Mz once the x and y tilts are taken out (not the z part of its angle-axis)."""
    return float(matrix_to_body_fixed_xyz(np.ascontiguousarray(R_FM, dtype=float))[2])
