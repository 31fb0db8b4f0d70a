"""Forward dynamics as an operator: u̇ and the body accelerations for forces the caller
gives, without touching what the State's realization computed; and the constraint-space
impulse solve.

``calc_accelerations`` runs the realization's own algorithms on the caller's forces: the
articulated-body sweep (``aba.acceleration_sweep``, Coriolis and gyroscopic terms from the
State's velocities) for the unconstrained u̇₀, then, with ``constrained``, the
constraint solve of ``constraints.constraint_acceleration``

    (G M⁻¹ Gᵀ) λ = udoterr(u̇₀),    u̇ = u̇₀ - M⁻¹ Gᵀ λ,

with the same pivoted factorization (redundant equations get the minimum-norm λ). Those
sweeps keep their body accelerations in cache.A_GB; the kernel saves the State's values
first and puts them back, handing the new ones out in ``A``.

``solve_impulses`` solves W x = b for W = G M⁻¹ Gᵀ given as G and Y = G M⁻¹ (both m x nu),
by ``constraints.solve_semidefinite``: the factorization and rank decision forward
dynamics uses.
"""

from kinetree.multibody.constraint_table import unpack_constraints
from kinetree.multibody.kernels.aba import acceleration_sweep
from kinetree.multibody.kernels.constraints import (
    ancestor_poses,
    ancestor_velocities,
    constraint_acceleration,
    solve_semidefinite,
)
from kinetree.multibody.kernels.prescribed import prescribe_accelerations
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@kernel
def calc_accelerations(tree_i, tree_f, kinds, buf, status, constraint_kinds, con_i, con_index,
                       con_f, con_buf, constrained, q, u, f, F, udot, A, udoterr,
                       multipliers, A_saved):
    """u̇ (nu) and A (nb x 6, [α; a of each origin] in G) for mobility forces f (nu) and
    body forces F (nb x 6, about each origin, in G) at the State's q and u, the velocity
    terms from the cache (articulated inertias must be current: DYNAMICS); prescribed
    mobilities (locks and Motions) follow their prescribed u̇. With ``constrained`` the enabled
    constraints are obeyed and their acceleration errors and multipliers land in
    ``udoterr`` and ``multipliers`` (m each). ``A_saved`` (nb x 6) is work space. Returns
    1 when the constraints' equations have no solution (the least-squares u̇ is given),
    else 0."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    saved = cache.A_GB
    for b in range(saved.shape[0]):
        for i in range(6):
            A_saved[b, i] = saved[b, i]
    for i in range(udot.shape[0]):
        udot[i] = 0.0
    prescribe_accelerations(tree, cache, udot)
    acceleration_sweep(tree, cache, cache.c, cache.b, saved, f, F, udot)
    inconsistent = 0
    if constrained:
        con = unpack_constraints(con_i, con_index, con_f, con_buf, q, u)
        if con.m > 0:
            ancestor_poses(cache, con)
            ancestor_velocities(cache, con)
            inconsistent = constraint_acceleration(constraint_kinds, tree, cache, con, udot,
                                                   udoterr, multipliers)
    for b in range(saved.shape[0]):
        for i in range(6):
            A[b, i] = saved[b, i]
            saved[b, i] = A_saved[b, i]
    return inconsistent


@kernel
def solve_impulses(G, Y, b, x, L, pivots, S):
    """x (m): the minimum-norm solution of (G Yᵀ) x = b, G Yᵀ symmetric positive
    semidefinite (m x m); L and S (m x m) and ``pivots`` (m, int64) are work space."""
    solve_semidefinite(G, Y, b, x, L, pivots, S)
