"""Articulated-body forward dynamics (Featherstone's ABA in Ground coordinates): u̇ from
applied forces in O(n).

Two sweeps. ``calc_articulated_body_inertias`` (positions only) accumulates, tip to base,
the articulated inertias P, U = P H and D⁻¹ = (Hᵀ U)⁻¹. ``calc_tree_accelerations`` then
accumulates the articulated bias forces z tip to base and solves u̇ base to tip:
  ε = f - Hᵀ z,  z_P += phi (z + P c + U D⁻¹ (ε - Uᵀ c)),
  A' = phiᵀ A_P + c,  u̇ = D⁻¹ (ε - Uᵀ A'),  A = A' + H u̇.
Body forces F are spatial forces about each body's origin in G; f are mobility forces.
"""

import numba

from kinetree.multibody.kernels.small import (
    invert_spd_in_place,
    shift_acceleration_from_parent,
    shift_force_to_parent_add,
    shift_inertia_to_parent_add,
    spatial_inertia,
)
from kinetree.multibody.tree_model import unpack_cache, unpack_tree


@numba.njit(cache=True)
def calc_articulated_body_inertias(tree_i, tree_f, buf, status):
    """Fill P, U and Dinv; sets cache.status[0] to 1 + b if body b's D is singular (a
    massless body at a tip, for instance), else 0."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    nb = tree.parent.shape[0]
    P = cache.P
    P[0, :, :] = 0.0
    for b in range(1, nb):
        spatial_inertia(tree.mass[b], cache.com_G[b], cache.I_G[b], P[b])
    cache.status[0] = 0
    for b in range(nb - 1, 0, -1):
        nu = tree.nu[b]
        H, U, Dinv, Pb = cache.H[b], cache.U[b], cache.Dinv[b], P[b]
        for i in range(6):
            for j in range(nu):
                s = 0.0
                for k in range(6):
                    s += Pb[i, k] * H[k, j]
                U[i, j] = s
        for i in range(nu):
            for j in range(nu):
                s = 0.0
                for k in range(6):
                    s += H[k, i] * U[k, j]
                Dinv[i, j] = s
        if not invert_spd_in_place(Dinv, nu):
            cache.status[0] = b + 1
            return
        p = tree.parent[b]
        if p == 0:
            continue
        Pa = cache.T[b]
        for i in range(6):
            for j in range(6):
                s = Pb[i, j]
                for k in range(nu):
                    for m in range(nu):
                        s -= U[i, k] * Dinv[k, m] * U[j, m]
                Pa[i, j] = s
        shift_inertia_to_parent_add(Pa, cache.p_PB[b], cache.Fc[b], P[p])


@numba.njit(cache=True)
def calc_tree_accelerations(tree_i, tree_f, buf, status, velocity_terms, f, F, udot):
    """u̇ (into ``udot``) for mobility forces f and body forces F. With
    ``velocity_terms`` the Coriolis and gyroscopic biases are included and the body
    accelerations land in cache.A_GB; without them (and F zero) u̇ = M⁻¹ f, and the body
    accelerations go to the work array A_work."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    if velocity_terms:
        c, bias, A = cache.c, cache.b, cache.A_GB
    else:
        c, bias, A = cache.zero, cache.zero, cache.A_work
    nb = tree.parent.shape[0]
    z, eps = cache.z, cache.eps
    for b in range(nb):
        for i in range(6):
            z[b, i] = bias[b, i] - F[b, i]
    for b in range(nb - 1, 0, -1):
        nu, us = tree.nu[b], tree.u_start[b]
        H, U, Dinv, Pb = cache.H[b], cache.U[b], cache.Dinv[b], cache.P[b]
        zb, cb, eb = z[b], c[b], eps[b]
        work = cache.T[b]
        za, g = work[0], work[1]
        for j in range(nu):
            s = f[us + j]
            t = 0.0
            for k in range(6):
                s -= H[k, j] * zb[k]
                t += U[k, j] * cb[k]
            eb[j] = s
            work[2, j] = s - t
        for j in range(nu):
            s = 0.0
            for k in range(nu):
                s += Dinv[j, k] * work[2, k]
            g[j] = s
        for i in range(6):
            s = zb[i]
            for k in range(6):
                s += Pb[i, k] * cb[k]
            for k in range(nu):
                s += U[i, k] * g[k]
            za[i] = s
        p = tree.parent[b]
        if p != 0:
            shift_force_to_parent_add(za, cache.p_PB[b], z[p])
    A[0, :] = 0.0
    for b in range(1, nb):
        nu, us = tree.nu[b], tree.u_start[b]
        H, U, Dinv = cache.H[b], cache.U[b], cache.Dinv[b]
        Ab = A[b]
        shift_acceleration_from_parent(A[tree.parent[b]], cache.p_PB[b], Ab)
        for i in range(6):
            Ab[i] += c[b, i]
        work = cache.T[b]
        for j in range(nu):
            s = eps[b, j]
            for k in range(6):
                s -= U[k, j] * Ab[k]
            work[2, j] = s
        for j in range(nu):
            s = 0.0
            for k in range(nu):
                s += Dinv[j, k] * work[2, k]
            udot[us + j] = s
        for i in range(6):
            s = 0.0
            for j in range(nu):
                s += H[i, j] * udot[us + j]
            Ab[i] += s
