"""The kinematic coupling q̇ = N(q) u of every mobilizer, applied over the whole tree:
q̇ from u, u from q̇ (N⁻¹), and q̈ = N u̇ + Ṅ u."""

from kinetree.multibody.kernels import hinge
from kinetree.multibody.tree_model import kernel, unpack_tree


@kernel
def multiply_by_n(tree_i, tree_f, q, u, out):
    """out (nq) = N(q) u."""
    tree = unpack_tree(tree_i, tree_f)
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        hinge.n_mult(tree.code[b], q[qs:qs + nq], u[us:us + nu], tree.prm[b],
                     out[qs:qs + nq])


@kernel
def multiply_by_n_inv(tree_i, tree_f, q, qdot, out):
    """out (nu) = N(q)⁻¹ q̇."""
    tree = unpack_tree(tree_i, tree_f)
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        hinge.n_inv_mult(tree.code[b], q[qs:qs + nq], qdot[qs:qs + nq], tree.prm[b],
                         out[us:us + nu])


@kernel
def calc_qdotdot(tree_i, tree_f, q, u, udot, work, out):
    """out (nq) = N u̇ + Ṅ u; ``work`` is nq scratch."""
    tree = unpack_tree(tree_i, tree_f)
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        qb, o, w = q[qs:qs + nq], out[qs:qs + nq], work[qs:qs + nq]
        hinge.ndot_u(tree.code[b], qb, u[us:us + nu], tree.prm[b], o)
        hinge.n_mult(tree.code[b], qb, udot[us:us + nu], tree.prm[b], w)
        for i in range(nq):
            o[i] += w[i]
