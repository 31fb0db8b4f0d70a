"""Velocity kinematics: body spatial velocities, base to tip, with the velocity-dependent
bias terms the dynamics sweeps need.

V_GB = phi(p_PB)ᵀ V_GP + H u. The Coriolis bias c is the part of B's acceleration that is
not phi(p_PB)ᵀ A_GP + H u̇; with w_P the parent's angular velocity, (w_r, v_r) = V_PB and
the mobilizer's (dH/dt) u = (hd_ang, hd_lin) in F:
  c_ang = w_P × w_r + R_GF hd_ang
  c_lin = w_P × (w_P × p_PB) + 2 w_P × v_r
          + R_GF (hd_lin - r_F × hd_ang + w_FM × (w_FM × r_F)).
The gyroscopic force bias b = [w × I w; m w × (w × c)] about B's origin.
"""

import numba

from kinetree.multibody.kernels import hinge
from kinetree.multibody.kernels.small import cross_add, mat_vec
from kinetree.multibody.tree_model import unpack_cache, unpack_tree


@numba.njit(cache=True)
def calc_velocity_kinematics(tree_i, tree_f, q, u, buf, status):
    """Fill the VELOCITY part of the cache from u (POSITION must be filled)."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    nb = tree.parent.shape[0]
    for b in range(1, nb):
        p = tree.parent[b]
        nu, us = tree.nu[b], tree.u_start[b]
        ub = u[us:us + nu]
        V_FM, V_PB, V_GB = cache.V_FM[b], cache.V_PB[b], cache.V_GB[b]
        H_F, H = cache.H_F[b], cache.H[b]
        for i in range(6):
            s = 0.0
            t = 0.0
            for j in range(nu):
                s += H_F[i, j] * ub[j]
                t += H[i, j] * ub[j]
            V_FM[i] = s
            V_PB[i] = t
        w_P = cache.V_GB[p, :3]
        p_PB = cache.p_PB[b]
        for i in range(3):
            V_GB[i] = w_P[i] + V_PB[i]
            V_GB[3 + i] = cache.V_GB[p, 3 + i] + V_PB[3 + i]
        cross_add(w_P, p_PB, V_GB[3:])

        work = cache.T[b]
        hd, tmp, wxr = work[0], work[1, :3], work[2, :3]
        qb = q[tree.q_start[b]:tree.q_start[b] + tree.nq[b]]
        hinge.hdot_u(tree.code[b], qb, ub, tree.prm[b], hd)
        r_F, w_FM = cache.r_F[b], V_FM[:3]
        for i in range(3):
            tmp[i] = hd[3 + i]
            wxr[i] = 0.0
        cross_add(hd[:3], r_F, tmp)          # - r_F × hd_ang = hd_ang × r_F
        cross_add(w_FM, r_F, wxr)
        cross_add(w_FM, wxr, tmp)
        c = cache.c[b]
        mat_vec(cache.R_GF[b], hd[:3], c[:3])
        mat_vec(cache.R_GF[b], tmp, c[3:])
        cross_add(w_P, V_PB[:3], c[:3])
        for i in range(3):
            wxr[i] = 0.0
        cross_add(w_P, p_PB, wxr)
        cross_add(w_P, wxr, c[3:])
        for i in range(3):
            tmp[i] = 2.0 * V_PB[3 + i]
        cross_add(w_P, tmp, c[3:])

        w = V_GB[:3]
        bb = cache.b[b]
        mat_vec(cache.I_G[b], w, tmp)
        bb[:] = 0.0
        cross_add(w, tmp, bb[:3])
        m, com = tree.mass[b], cache.com_G[b]
        for i in range(3):
            wxr[i] = 0.0
        cross_add(w, com, wxr)
        cross_add(w, wxr, bb[3:])
        for i in range(3):
            bb[3 + i] *= m
