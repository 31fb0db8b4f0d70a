"""Forward dynamics through the mass matrix: the articulated-body method's fallback.

At extreme mass ratios (a 1e-6 kg body carrying 3e5 kg) a light body's articulated
inertia D can be so ill-conditioned that the P⁺ it passes to its parent loses the
parent's own inertia in round-off: the articulated-body u̇ then has a backward error far
above round-off, or the parent's D is not even positive definite, although M itself is
well conditioned. ``aba.inertia_sweep`` sees this in D's pivots and, for a tree small
enough to hold M in its cache (``tree_model.DENSE_LIMIT`` mobilities), switches to these:
M from composite inertias (``crba``), factored as L Lᵀ (Cholesky is backward stable for
any positive definite M), u̇ = M⁻¹ (f - c) with the bias c from inverse dynamics at u̇ = 0
(``rnea``), and the body accelerations from u̇ (``acceleration``).
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.acceleration import body_accelerations
from kinetree.multibody.kernels.crba import mass_matrix
from kinetree.multibody.kernels.rnea import residual_forces
from kinetree.multibody.kernels.small import PIVOT_TOLERANCE
from kinetree.multibody.tree_model import kernel


@kernel
def factor_mass_matrix(tree, cache):
    """M into cache.M_dense, then its Cholesky factor L into the lower triangle (M stays
    in the upper). False if M is not positive definite: a pivot not above PIVOT_TOLERANCE
    of its own diagonal entry, the same test as the articulated inertias'."""
    M = cache.M_dense
    n = M.shape[0]
    mass_matrix(tree, cache, M)
    for j in range(n):
        d = M[j, j]
        for k in range(j):
            d -= M[j, k] * M[j, k]
        if not d > PIVOT_TOLERANCE * M[j, j]:
            return False
        d = d ** 0.5
        M[j, j] = d
        for i in range(j + 1, n):
            s = M[j, i]                   # M[i, j] of the upper triangle, still M
            for k in range(j):
                s -= M[i, k] * M[j, k]
            M[i, j] = s / d
    return True


@helper
def cholesky_solve(L, x):
    """x := M⁻¹ x in place, for M = L Lᵀ with L in the lower triangle of ``L``."""
    n = x.shape[0]
    for i in range(n):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]


@kernel
def dense_accelerations(tree, cache, c, bias, A, f, F, udot):
    """``aba.acceleration_sweep`` through the factored M: u̇ = -M⁻¹ (c - f - Jᵀ F), the
    bracket being inverse dynamics at u̇ = 0, then the body accelerations into A."""
    zero = cache.eps
    for i in range(zero.shape[0]):
        zero[i] = 0.0
    residual_forces(tree, cache, c, bias, zero, f, F, udot)
    for i in range(udot.shape[0]):
        udot[i] = -udot[i]
    cholesky_solve(cache.M_dense, udot)
    body_accelerations(tree, cache, c, udot, A)


@helper
def dense_inverse_mass_rows(cache, F, Y, k):
    """``aba.inverse_mass_rows`` through the factored M: Y[:k] = F[:k] M⁻¹."""
    for r in range(k):
        row = Y[r]
        for i in range(row.shape[0]):
            row[i] = F[r, i]
        cholesky_solve(cache.M_dense, row)
