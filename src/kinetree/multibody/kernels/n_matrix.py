"""The kinematic coupling q̇ = N(q) u of every mobilizer, applied over the whole tree:
q̇ from u, u from q̇ (N⁻¹), their transposes (which carry q-space forces to u-space and
back), and q̈ = N u̇ + Ṅ u. The transposes apply each body's block to unit vectors, in the
(2, 7) scratch ``work``: N is at most 7 x 6. Quaternions are normalized here too, since
N assumes them unit."""

import math

from kinetree.jit import helper
from kinetree.multibody.kernels import hinge
from kinetree.multibody.tree_model import kernel, unpack_tree


@kernel
def multiply_by_n(tree_i, tree_f, kinds, q, u, out):
    """out (nq) = N(q) u."""
    n_sweep(unpack_tree(tree_i, tree_f, kinds), q, u, out)


@helper
def n_sweep(tree, q, u, out):
    """out (nq) = N(q) u, body by body."""
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        hinge.n_mult(tree.kinds, tree.code[b], q[qs:qs + nq], u[us:us + nu], tree.prm[b],
                     out[qs:qs + nq])


@kernel
def multiply_by_n_inv(tree_i, tree_f, kinds, q, qdot, out):
    """out (nu) = N(q)⁻¹ q̇."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        hinge.n_inv_mult(tree.kinds, tree.code[b], q[qs:qs + nq], qdot[qs:qs + nq], tree.prm[b],
                         out[us:us + nu])


@kernel
def multiply_by_n_transpose(tree_i, tree_f, kinds, q, f, work, out):
    """out (nu) = N(q)ᵀ f for f in q-space: out_j = (N e_j) · f, block by block."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    unit, column = work[0], work[1]
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        for j in range(nu):
            unit[:nu] = 0.0
            unit[j] = 1.0
            hinge.n_mult(tree.kinds, tree.code[b], q[qs:qs + nq], unit[:nu], tree.prm[b],
                         column[:nq])
            s = 0.0
            for k in range(nq):
                s += column[k] * f[qs + k]
            out[us + j] = s


@kernel
def multiply_by_n_inv_transpose(tree_i, tree_f, kinds, q, x, work, out):
    """out (nq) = N(q)⁻ᵀ x for x in u-space: out_k = (N⁻¹ e_k) · x, block by block."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    unit, column = work[0], work[1]
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        for k in range(nq):
            unit[:nq] = 0.0
            unit[k] = 1.0
            hinge.n_inv_mult(tree.kinds, tree.code[b], q[qs:qs + nq], unit[:nq], tree.prm[b],
                             column[:nu])
            s = 0.0
            for j in range(nu):
                s += column[j] * x[us + j]
            out[qs + k] = s


@helper
def qdotdot_step(tree, q, u, udot, work, out, b):
    """Body b's q̈ = N u̇ + Ṅ u into out (``work`` is scratch of the same layout)."""
    qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
    qb, o, w = q[qs:qs + nq], out[qs:qs + nq], work[qs:qs + nq]
    hinge.ndot_u(tree.kinds, tree.code[b], qb, u[us:us + nu], tree.prm[b], o)
    hinge.n_mult(tree.kinds, tree.code[b], qb, udot[us:us + nu], tree.prm[b], w)
    for i in range(nq):
        o[i] += w[i]


@helper
def qdotdot_sweep(tree, q, u, udot, work, out):
    """out (nq) = N u̇ + Ṅ u; ``work`` is nq scratch."""
    for b in range(1, tree.parent.shape[0]):
        qdotdot_step(tree, q, u, udot, work, out, b)


@kernel
def normalize_quaternions(q, quaternion_q):
    """Scale each quaternion block of q (its indices a row of ``quaternion_q``, (k, 4)) to
    unit length; the orientation it stands for is unchanged. A zero block stays zero."""
    for r in range(quaternion_q.shape[0]):
        s = 0.0
        for j in range(4):
            s += q[quaternion_q[r, j]] ** 2
        s = math.sqrt(s)
        if s > 0.0:
            for j in range(4):
                q[quaternion_q[r, j]] /= s


@helper
def quaternion_errors(q, quaternion_q, out):
    """out[k] = |q_k| - 1 for the quaternion whose q indices are row k of
    ``quaternion_q``: Simbody's normalization errors, the last entries of qerr."""
    for k in range(quaternion_q.shape[0]):
        s = 0.0
        for i in range(4):
            s += q[quaternion_q[k, i]] ** 2
        out[k] = s ** 0.5 - 1.0
