"""Body accelerations from u̇: A_GB = J u̇ + J̇ u, base to tip.

A_B = phi(p_PB)ᵀ A_P + c_B + H u̇_B, with the Coriolis bias c from the velocity sweep; without
``velocity_terms`` the bias is left out and the result is J u̇ alone. The constraint solver
evaluates acceleration errors at trial u̇ with it, and the constrained and the
mass-matrix solves end with it.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.small import shift_acceleration_from_parent
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@kernel
def calc_body_accelerations(tree_i, tree_f, kinds, buf, status, velocity_terms, udot, A):
    """A (nb x 6, [α; a of the origin] in Ground) for the mobility accelerations u̇."""
    cache = unpack_cache(buf, status)
    body_accelerations(unpack_tree(tree_i, tree_f, kinds), cache,
                       cache.c if velocity_terms else cache.zero, udot, A)


@helper
def body_accelerations(tree, cache, c, udot, A):
    """A (nb x 6, in G) = J u̇ + the bias ``c`` (cache.c, or zeros for J u̇ alone)."""
    A[0, :] = 0.0
    for b in range(1, tree.parent.shape[0]):
        Ab, H, us = A[b], mobility_rows(tree, cache.H_cols, b).T, tree.u_start[b]
        shift_acceleration_from_parent(A[tree.parent[b]], cache.p_PB[b], Ab)
        for i in range(6):
            s = c[b, i]
            for j in range(tree.nu[b]):
                s += H[i, j] * udot[us + j]
            Ab[i] += s
