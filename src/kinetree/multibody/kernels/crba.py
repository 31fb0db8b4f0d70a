"""Composite-rigid-body mass matrix M (n x n), O(n·depth).

Composite inertias Ic accumulate tip to base; then for each body i, the force columns
Fc = Ic_i H_i climb to every ancestor j, giving the blocks M_ji = H_jᵀ Fc (and M_ij = M_jiᵀ).

M is block diagonal over the trees (the subtrees of Ground's children): its blocks alone
fill an n x (the largest tree's n) array, each column at its mobility's place in its tree.
"""

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.kernels.small import (
    shift_force_to_parent_add,
    shift_inertia_to_parent_add,
    spatial_inertia,
)
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@kernel
def calc_mass_matrix(tree_i, tree_f, kinds, buf, status, M):
    """``mass_matrix`` on the flat model and cache buffers."""
    mass_matrix(unpack_tree(tree_i, tree_f, kinds), unpack_cache(buf, status), M)


@kernel
def calc_mass_matrix_blocks(tree_i, tree_f, kinds, buf, status, column, M):
    """M's tree blocks: M[i, column[j]] = M_ij for mobilities i, j of one tree, with
    column[j] j's place in its tree's mobilities; the rest of M (n x the largest tree's
    n) zero."""
    _mass_matrix(unpack_tree(tree_i, tree_f, kinds), unpack_cache(buf, status), M, column)


_DENSE = np.zeros(0, dtype=np.int64)


@helper
def mass_matrix(tree, cache, M):
    """Fill the n x n mass matrix M (POSITION must be filled)."""
    _mass_matrix(tree, cache, M, _DENSE)


@helper
def _mass_matrix(tree, cache, M, column):
    """M, or its tree blocks where ``column`` is not empty (``calc_mass_matrix_blocks``)."""
    dense = column.shape[0] == 0
    nb = tree.parent.shape[0]
    Ic = cache.Ic
    for b in range(1, nb):
        spatial_inertia(tree.mass[b], cache.com_G[b], cache.I_G[b], Ic[b])
    for b in range(nb - 1, 0, -1):
        p = tree.parent[b]
        if p != 0:
            shift_inertia_to_parent_add(Ic[b], cache.p_PB[b], cache.T, Ic[p])
    M[:, :] = 0.0
    for i in range(1, nb):
        nu_i, us_i = tree.nu[i], tree.u_start[i]
        H, Fc = mobility_rows(tree, cache.H_cols, i).T, cache.Fc
        for r in range(6):
            for j in range(nu_i):
                s = 0.0
                for k in range(6):
                    s += Ic[i, r, k] * H[k, j]
                Fc[r, j] = s
        b = i
        while b != 0:
            nu_b, us_b = tree.nu[b], tree.u_start[b]
            Hb = mobility_rows(tree, cache.H_cols, b).T
            for a in range(nu_b):
                for j in range(nu_i):
                    s = 0.0
                    for k in range(6):
                        s += Hb[k, a] * Fc[k, j]
                    ca, cj = us_b + a, us_i + j
                    if not dense:
                        ca, cj = column[ca], column[cj]
                    M[us_b + a, cj] = s
                    M[us_i + j, ca] = s
            p = tree.parent[b]
            if p != 0:
                col = cache.F_work[i]
                for j in range(nu_i):
                    for k in range(6):
                        col[k] = 0.0
                    shift_force_to_parent_add(Fc[:, j], cache.p_PB[b], col)
                    for k in range(6):
                        Fc[k, j] = col[k]
            b = p
