"""Recursive Newton-Euler inverse dynamics: the residual mobility forces
f_res = M u̇ + c(q, u) - f_applied for given u̇, in O(n).

Base to tip: A = phiᵀ A_P + H u̇ + c. Each body then needs F = M A + b - F_applied about its
origin; tip to base these accumulate into the parent and f_res = Hᵀ F - f.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.small import (
    shift_acceleration_from_parent,
    shift_force_to_parent_add,
    spatial_inertia_times,
)
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@kernel
def calc_residual_forces(tree_i, tree_f, kinds, buf, status, velocity_terms, udot, f, F, out):
    """``out`` = Hᵀ F_net - f: the mobility forces that, added to f and F, would produce
    u̇. Without ``velocity_terms``, and with f and F zero, this is M u̇."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    c = cache.c if velocity_terms else cache.zero
    bias = cache.b if velocity_terms else cache.zero
    residual_forces(tree, cache, c, bias, udot, f, F, out)


@helper
def residual_forces(tree, cache, c, bias, udot, f, F, out):
    """``out`` = M u̇ + (the velocity terms ``c`` and ``bias``, cache.c and cache.b or
    zeros) - f - Jᵀ F, with cache.A_work and cache.F_work as work space."""
    nb = tree.parent.shape[0]
    A, Fn = cache.A_work, cache.F_work
    A[0, :] = 0.0
    for b in range(1, nb):
        nu, us = tree.nu[b], tree.u_start[b]
        Ab, H = A[b], mobility_rows(tree, cache.H_cols, b).T
        shift_acceleration_from_parent(A[tree.parent[b]], cache.p_PB[b], Ab)
        for i in range(6):
            s = c[b, i]
            for j in range(nu):
                s += H[i, j] * udot[us + j]
            Ab[i] += s
        spatial_inertia_times(tree.mass[b], cache.com_G[b], cache.I_G[b], Ab, Fn[b])
        for i in range(6):
            Fn[b, i] += bias[b, i] - F[b, i]
    for b in range(nb - 1, 0, -1):
        nu, us = tree.nu[b], tree.u_start[b]
        H = mobility_rows(tree, cache.H_cols, b).T
        for j in range(nu):
            s = -f[us + j]
            for k in range(6):
                s += H[k, j] * Fn[b, k]
            out[us + j] = s
        p = tree.parent[b]
        if p != 0:
            shift_force_to_parent_add(Fn[b], cache.p_PB[b], Fn[p])
