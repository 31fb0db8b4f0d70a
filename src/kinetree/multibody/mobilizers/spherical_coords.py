"""SphericalCoords (Simbody's pure spherical coordinates): azimuth q0 (rad) about Fz = Mz,
zenith q1 about the new y axis, then radius q2 (m) along M's z: R_FM = Rz(q0) Ry(q1),
p_FM = R_FM (0, 0, q2); u = q̇. Singular at zero radius and at zenith nπ."""

import math

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.mobilizers import universal
from kinetree.registry import MOBILIZERS

CODE = MOBILIZERS["spherical_coords"]
NQ = NU = 3
DEFAULT_Q = (0.0, 0.0, 0.0)


@helper
def x_fm(q, prm, R_FM, p_FM):
    ca, sa, cz, sz = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    R_FM[0, 0], R_FM[0, 1], R_FM[0, 2] = ca * cz, -sa, ca * sz
    R_FM[1, 0], R_FM[1, 1], R_FM[1, 2] = sa * cz, ca, sa * sz
    R_FM[2, 0], R_FM[2, 1], R_FM[2, 2] = -sz, 0.0, cz
    p_FM[0], p_FM[1], p_FM[2] = q[2] * ca * sz, q[2] * sa * sz, q[2] * cz


@helper
def h_fm(q, prm, H):
    ca, sa, cz, sz = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    r = q[2]
    H[:, :3] = 0.0
    H[2, 0] = 1.0                                    # azimuth about z
    H[0, 1], H[1, 1] = -sa, ca                       # zenith about the new y
    p0, p1, p2 = r * ca * sz, r * sa * sz, r * cz
    H[3, 0], H[4, 0] = -p1, p0                       # z × p
    H[3, 1], H[4, 1], H[5, 1] = ca * p2, sa * p2, -sa * p1 - ca * p0   # y' × p
    H[3, 2], H[4, 2], H[5, 2] = ca * sz, sa * sz, cz                   # radial direction


@helper
def hdot_u(q, u, prm, out):
    ca, sa, cz, sz = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
    r = q[2]
    ad, zd, rd = u[0], u[1], u[2]
    p0, p1, p2 = r * ca * sz, r * sa * sz, r * cz
    # ṗ = H_lin u
    v0 = -p1 * ad + ca * p2 * zd + ca * sz * rd
    v1 = p0 * ad + sa * p2 * zd + sa * sz * rd
    v2 = (-sa * p1 - ca * p0) * zd + cz * rd
    # angular: d/dt(y') = (-ca, -sa, 0) ȧ
    out[0] = -ca * ad * zd
    out[1] = -sa * ad * zd
    out[2] = 0.0
    # linear: d/dt(z × p) ȧ + d/dt(y' × p) ż + d/dt(e_r) ṙ
    out[3] = -v1 * ad
    out[4] = v0 * ad
    out[5] = 0.0
    yd0, yd1 = -ca * ad, -sa * ad                    # ẏ' (z-component 0)
    y0, y1 = -sa, ca
    out[3] += (yd1 * p2 + y1 * v2) * zd
    out[4] += (-yd0 * p2 - y0 * v2) * zd
    out[5] += (yd0 * p1 + y0 * v1 - yd1 * p0 - y1 * v0) * zd
    # e_r = (ca sz, sa sz, cz)
    out[3] += (-sa * sz * ad + ca * cz * zd) * rd
    out[4] += (ca * sz * ad + sa * cz * zd) * rd
    out[5] += (-sz * zd) * rd


@helper
def n_mult(q, v, prm, out):
    out[0], out[1], out[2] = v[0], v[1], v[2]


n_inv_mult = n_mult


@helper
def ndot_u(q, u, prm, out):
    out[0] = out[1] = out[2] = 0.0


def _mz(azimuth, zenith):
    """M's z axis in F: the radial direction."""
    s = math.sin(zenith)
    return np.array([math.cos(azimuth) * s, math.sin(azimuth) * s, math.cos(zenith)])


def q_to_fit_transform(R_FM, p_FM, prm, nq):
    """q0, q1 = R_FM's body-fixed z-y angles (Simbody's two-angle rule), then q2 = p_FM·Mz,
    the reach of p_FM (in F) along the Mz just fitted; exact for X_FM(q)."""
    az, ze = universal.two_axis_angles(R_FM, 2, 1)
    return np.array([az, ze, float(np.asarray(p_FM, dtype=float) @ _mz(az, ze))])


def u_to_fit_velocity(q, w_FM, v_FM, prm):
    """At the current q: u0 = w_FM[2]; u1 = the rest of w_FM, (w_FM[0], w_FM[1], 0), on
    My = Rz(q0) y; u2 = v_FM·Mz (Simbody's rule, all in F); the rest is dropped."""
    ca, sa = math.cos(q[0]), math.sin(q[0])
    return np.array([float(w_FM[2]), -sa * float(w_FM[0]) + ca * float(w_FM[1]),
                     float(np.asarray(v_FM, dtype=float) @ _mz(q[0], q[1]))])
