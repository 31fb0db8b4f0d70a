"""Composite-body inertias: for each body, the spatial inertia of it and everything outboard
of it, welded in the current configuration, about the body's origin in Ground.

Tip to base, R_B = I_B + Σ phi(p_BC) R_C phi(p_BC)ᵀ over B's children C, I_B the body's
own 6x6 spatial inertia [[I, m [c]x], [-m [c]x, m 1]] about its origin (``small.spatial_inertia``).
The mass-matrix kernel (``crba.py``) builds the same sums as its first step; this one
hands them out.
"""

from kinetree.multibody.kernels.small import shift_inertia_to_parent_add, spatial_inertia
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@kernel
def calc_composite_body_inertias(tree_i, tree_f, kinds, buf, status, R):
    """R (nb x 6 x 6): every body's composite spatial inertia about its origin, in G
    (POSITION); Ground's row is left zero. O(n)."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    nb = tree.parent.shape[0]
    R[0, :, :] = 0.0
    for b in range(1, nb):
        spatial_inertia(tree.mass[b], cache.com_G[b], cache.I_G[b], R[b])
    for b in range(nb - 1, 0, -1):
        p = tree.parent[b]
        if p != 0:
            shift_inertia_to_parent_add(R[b], cache.p_PB[b], cache.T, R[p])
