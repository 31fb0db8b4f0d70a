"""Kinetic energy of the bodies: ½ Σ_B V_GBᵀ M_B V_GB, with V_GB = [w; v] the body's
spatial velocity at its origin in Ground and M_B its spatial inertia about its origin,
so each body adds ½ wᵀ I_G w + ½ m |v|² + m v·(w × c), c its mass centre's offset from
its origin in Ground.
"""

from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@kernel
def kinetic_energy(tree_i, tree_f, kinds, buf, status):
    """The bodies' kinetic energy (J) from the VELOCITY cache; Ground adds nothing."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    energy = 0.0
    for b in range(1, tree.parent.shape[0]):
        V, inertia, c, m = cache.V_GB[b], cache.I_G[b], cache.com_G[b], tree.mass[b]
        w0, w1, w2, v0, v1, v2 = V[0], V[1], V[2], V[3], V[4], V[5]
        rotation = (w0 * (inertia[0, 0] * w0 + inertia[0, 1] * w1 + inertia[0, 2] * w2)
                    + w1 * (inertia[1, 0] * w0 + inertia[1, 1] * w1 + inertia[1, 2] * w2)
                    + w2 * (inertia[2, 0] * w0 + inertia[2, 1] * w1 + inertia[2, 2] * w2))
        coupling = (v0 * (w1 * c[2] - w2 * c[1]) + v1 * (w2 * c[0] - w0 * c[2])
                    + v2 * (w0 * c[1] - w1 * c[0]))
        energy += 0.5 * rotation + 0.5 * m * (v0 * v0 + v1 * v1 + v2 * v2) + m * coupling
    return energy
