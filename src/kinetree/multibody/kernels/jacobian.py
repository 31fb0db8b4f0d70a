"""The system Jacobian J (6 nb x nu): the spatial velocities of all bodies, each about its
origin in Ground, are J u. Column block of body a's mobilities in body b's rows, for a an
ancestor of b (or b itself): [H_ang; H_lin − (p_GB − p_GA) × H_ang]. The products J u and
Jᵀ F are O(n) sweeps that never form J."""

from kinetree.jit import helper
from kinetree.multibody.kernels.small import (
    shift_acceleration_from_parent,
    shift_force_to_parent_add,
)
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@kernel
def calc_system_jacobian(tree_i, tree_f, kinds, buf, status, J):
    """Fill J (6 nb x nu, zeroed here); POSITION must be filled."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    J[:, :] = 0.0
    for b in range(1, tree.parent.shape[0]):
        row = 6 * b
        pb = cache.p_GB[b]
        a = b
        while a != 0:
            H, pa = mobility_rows(tree, cache.H_cols, a).T, cache.p_GB[a]
            d0, d1, d2 = pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]
            for j in range(tree.nu[a]):
                col = tree.u_start[a] + j
                w0, w1, w2 = H[0, j], H[1, j], H[2, j]
                J[row, col], J[row + 1, col], J[row + 2, col] = w0, w1, w2
                J[row + 3, col] = H[3, j] - (d1 * w2 - d2 * w1)
                J[row + 4, col] = H[4, j] - (d2 * w0 - d0 * w2)
                J[row + 5, col] = H[5, j] - (d0 * w1 - d1 * w0)
            a = tree.parent[a]


@kernel
def multiply_by_system_jacobian(tree_i, tree_f, kinds, buf, status, u, V):
    """V (nb x 6) = J u in O(n): base to tip, V_B = phi(p_PB)ᵀ V_P + H u_B."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    V[0, :] = 0.0
    for b in range(1, tree.parent.shape[0]):
        Vb, H, us = V[b], mobility_rows(tree, cache.H_cols, b).T, tree.u_start[b]
        shift_acceleration_from_parent(V[tree.parent[b]], cache.p_PB[b], Vb)
        for i in range(6):
            s = 0.0
            for j in range(tree.nu[b]):
                s += H[i, j] * u[us + j]
            Vb[i] += s


@helper
def _jacobian_transpose(tree, cache, F, acc, f):
    """f = Jᵀ F with ``acc`` (nb x 6) as the running subtree forces."""
    nb = tree.parent.shape[0]
    for b in range(nb):
        for i in range(6):
            acc[b, i] = F[b, i]
    for b in range(nb - 1, 0, -1):
        H, us = mobility_rows(tree, cache.H_cols, b).T, tree.u_start[b]
        for j in range(tree.nu[b]):
            s = 0.0
            for k in range(6):
                s += H[k, j] * acc[b, k]
            f[us + j] = s
        p = tree.parent[b]
        if p != 0:
            shift_force_to_parent_add(acc[b], cache.p_PB[b], acc[p])


@kernel
def multiply_by_system_jacobian_transpose(tree_i, tree_f, kinds, buf, status, F, f):
    """f (nu) = Jᵀ F in O(n): tip to base, each body's force plus its subtree's, moved to
    its origin, projected on its hinge: f_B = Hᵀ F_subtree. Uses cache.F_work."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    _jacobian_transpose(tree, cache, F, cache.F_work, f)


@kernel
def multiply_by_system_jacobian_transpose_columns(tree_i, tree_f, kinds, buf, status, F, f):
    """f[c] = Jᵀ F[c] for each of the sets of body forces F (k x nb x 6): k products in one
    call. Uses cache.F_work."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    for c in range(F.shape[0]):
        _jacobian_transpose(tree, cache, F[c], cache.F_work, f[c])
