"""The constraints of a tree in compiled code: every enabled constraint's errors at POSITION
and VELOCITY, and at ACCELERATION the constrained u̇ and the multipliers (the paper's eqs.
10-18).

A constraint computes its errors and forces in its ancestor frame A from the poses,
velocities and accelerations of its constrained bodies relative to A (``ancestor_*``),
through a switch on its type code to its module's functions (multibody/constraints/<type>.py):

    position_errors(cf, R_AB, p_AB, perr)                           mp entries
    velocity_errors(cf, R_AB, p_AB, V_AB, u_c, uerr)                [pverr; verr]
    acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot_c, aerr)   [paerr; vaerr; aerr]
    forces(cf, R_AB, p_AB, lam_c, F_A, f_c)                         adds Gᵀλ

(a kind without equations of a level has no function for it, and its switch does
nothing). A constraint on generalized coordinates instead (CoordinateCoupler) reads the
tree's q and u themselves and applies its forces to the mobilities directly:

    coordinate_position_errors(cf, q, perr)
    coordinate_velocity_errors(cf, q, u, uerr)
    coordinate_acceleration_errors(cf, q, u, udot, aerr)
    coordinate_forces(cf, q, lam_c, f)                              f (nu) += Gᵀλ

Here ``cf`` is a constraint's parameters, ``u_c`` / ``udot_c`` / ``f_c`` its constrained
mobilities' entries and ``F_A`` (k x 6) the spatial forces about each constrained body's
origin, in A. The acceleration errors are affine in u̇, udoterr = G u̇ + bias, and the forces of the
multipliers are Gᵀλ, so M u̇ + Gᵀλ = f. Forward dynamics solves

    (G M⁻¹ Gᵀ) λ = udoterr(u̇₀),    u̇ = u̇₀ - M⁻¹ Gᵀ λ,

u̇₀ being the unconstrained (articulated-body) solution: G's rows from the force
functions (one unit multiplier each, carried to the mobilities by Jᵀ along the path to
Ground), M⁻¹ Gᵀ by articulated-body solves (eight columns per pair of sweeps), and a
pivoted Cholesky factorization of the m x m G M⁻¹ Gᵀ that detects redundant equations,
so consistent redundant constraints still give a unique u̇ and the minimum-norm, finite
λ. The factorization forms only the columns of G M⁻¹ Gᵀ it pivots on: r of them for
rank r.
"""

from numba.core import types

from kinetree.engine.kinds import switch
from kinetree.jit import helper
from kinetree.multibody.constraint_table import (
    A_ROW,
    ANCESTOR,
    BODY0,
    CODE,
    MA,
    MP,
    MV,
    NBODIES,
    NU,
    P_ROW,
    PARAMS,
    USLOT0,
    V_ROW,
    unpack_constraints,
)
from kinetree.multibody.kernels.aba import BLOCK, inverse_mass_rows
from kinetree.multibody.kernels.acceleration import body_accelerations
from kinetree.multibody.kernels.ancestor_frame import (
    relative_acceleration,
    relative_pose,
    relative_velocity,
)
from kinetree.multibody.kernels.dense import cholesky_solve
from kinetree.multibody.kernels.small import rotate3, vec3
from kinetree.multibody.tree_model import (
    kernel,
    mobility_rows,
    unpack_cache,
    unpack_tree,
)

RANK_TOLERANCE = 1e-12
"""Pivots of G M⁻¹ Gᵀ below this fraction of its largest diagonal entry count as zero:
the directions of redundant constraint equations."""

INCONSISTENCY_TOLERANCE = 1e-6
"""Acceleration errors left by the solve above this fraction of 1 + the largest before it
mean the equations have no solution: redundant constraints asking for different motions."""

_IN1 = types.Array(types.float64, 1, "C", readonly=True)
_IN2 = types.Array(types.float64, 2, "C", readonly=True)
_IN3 = types.Array(types.float64, 3, "C", readonly=True)
_OUT1 = types.Array(types.float64, 1, "C")
_OUT2 = types.Array(types.float64, 2, "C")

position_errors = switch("constraints", "position_errors", lambda: types.none(
    _IN1, _IN3, _IN2, _OUT1))
velocity_errors = switch("constraints", "velocity_errors", lambda: types.none(
    _IN1, _IN3, _IN2, _IN2, _IN1, _OUT1))
acceleration_errors = switch("constraints", "acceleration_errors", lambda: types.none(
    _IN1, _IN3, _IN2, _IN2, _IN2, _IN1, _OUT1))
constraint_forces = switch("constraints", "forces", lambda: types.none(
    _IN1, _IN3, _IN2, _IN1, _OUT2, _OUT1))
coordinate_position_errors = switch("constraints", "coordinate_position_errors",
                                    lambda: types.none(_IN1, _IN1, _OUT1))
coordinate_velocity_errors = switch("constraints", "coordinate_velocity_errors",
                                    lambda: types.none(_IN1, _IN1, _IN1, _OUT1))
coordinate_acceleration_errors = switch("constraints", "coordinate_acceleration_errors",
                                        lambda: types.none(_IN1, _IN1, _IN1, _IN1, _OUT1))
coordinate_forces = switch("constraints", "coordinate_forces", lambda: types.none(
    _IN1, _IN1, _IN1, _OUT1))
"""The constraint functions (module docstring), every argument but the last one or two
read only; the kinds are all called through their addresses (``engine/kinds.py``)."""


@helper
def equation_row(row, r):
    """The udoterr index of local equation r of the constraint with ``con_i`` row ``row``:
    its holonomic equations first, then its nonholonomic ones, then the others."""
    mp, mv = row[MP], row[MV]
    if r < mp:
        return row[P_ROW] + r
    if r < mp + mv:
        return row[V_ROW] + r - mp
    return row[A_ROW] + r - mp - mv


@helper
def ancestor_poses(cache, con):
    """R_AB and p_AB of every constrained-body slot (POSITION)."""
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        for s in range(row[BODY0], row[BODY0] + row[NBODIES]):
            relative_pose(cache.R_GB, cache.p_GB, row[ANCESTOR], con.bodies[s], con.R_AB[s],
                          con.p_AB[s])


@helper
def ancestor_velocities(cache, con):
    """V_AB of every constrained-body slot (VELOCITY)."""
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        for s in range(row[BODY0], row[BODY0] + row[NBODIES]):
            relative_velocity(cache.R_GB, cache.p_GB, cache.V_GB, row[ANCESTOR],
                              con.bodies[s], con.V_AB[s])


@helper
def ancestor_accelerations(cache, con, A_GB):
    """A_AB of every constrained-body slot for the body accelerations A_GB."""
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        for s in range(row[BODY0], row[BODY0] + row[NBODIES]):
            relative_acceleration(cache.R_GB, cache.p_GB, cache.V_GB, A_GB, row[ANCESTOR],
                                  con.bodies[s], con.A_AB[s])


@helper
def gather_u(con, row, u, u_c):
    """The constraint's entries of u (or u̇) into u_c."""
    u0 = row[USLOT0]
    for i in range(row[NU]):
        u_c[i] = u[con.u_index[u0 + i]]


@helper
def constraint_position(kinds, tree, cache, con, qerr):
    """The poses in A and every constraint's perr into qerr (POSITION)."""
    ancestor_poses(cache, con)
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        s0, k, p0 = row[BODY0], row[NBODIES], row[P_ROW]
        position_errors(kinds, row[CODE], con.params[row[PARAMS]:], con.R_AB[s0:s0 + k],
                        con.p_AB[s0:s0 + k], qerr[p0:p0 + row[MP]])
        coordinate_position_errors(kinds, row[CODE], con.params[row[PARAMS]:], con.q,
                                   qerr[p0:p0 + row[MP]])


@helper
def constraint_velocity(kinds, tree, cache, con, u, uerr):
    """The velocities in A and every constraint's [pverr; verr] into uerr (VELOCITY)."""
    ancestor_velocities(cache, con)
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        s0, k, mp, mv = row[BODY0], row[NBODIES], row[MP], row[MV]
        if mp + mv == 0:
            continue
        err = con.err_c[:mp + mv]
        for r in range(mp + mv):
            err[r] = uerr[equation_row(row, r)]
        u_c = con.u_c[:row[NU]]
        gather_u(con, row, u, u_c)
        velocity_errors(kinds, row[CODE], con.params[row[PARAMS]:], con.R_AB[s0:s0 + k],
                        con.p_AB[s0:s0 + k], con.V_AB[s0:s0 + k], u_c, err)
        coordinate_velocity_errors(kinds, row[CODE], con.params[row[PARAMS]:], con.q, u,
                                   err)
        for r in range(mp + mv):
            uerr[equation_row(row, r)] = err[r]


@helper
def acceleration_error_sweep(kinds, cache, con, A_GB, udot, udoterr):
    """Every constraint's [paerr; vaerr; aerr] into udoterr for the accelerations u̇ with
    body accelerations A_GB."""
    ancestor_accelerations(cache, con, A_GB)
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        s0, k = row[BODY0], row[NBODIES]
        mc = row[MP] + row[MV] + row[MA]
        err, udot_c = con.err_c[:mc], con.u_c[:row[NU]]
        gather_u(con, row, udot, udot_c)
        acceleration_errors(kinds, row[CODE], con.params[row[PARAMS]:], con.R_AB[s0:s0 + k],
                            con.p_AB[s0:s0 + k], con.V_AB[s0:s0 + k], con.A_AB[s0:s0 + k],
                            udot_c, err)
        coordinate_acceleration_errors(kinds, row[CODE], con.params[row[PARAMS]:], con.q,
                                       con.u, udot, err)
        for r in range(mc):
            udoterr[equation_row(row, r)] = err[r]


@helper
def add_jacobian_transpose(tree, cache, b, moment, force, g):
    """g += Jᵀ of the spatial force [moment; force] (about body b's origin, in G) applied
    to body b: moved to each ancestor's origin on the way to Ground, projected on its
    hinge."""
    m0, m1, m2 = moment
    f0, f1, f2 = force
    a = b
    while a > 0:
        H, us = mobility_rows(tree, cache.H_cols, a), tree.u_start[a]
        for j in range(tree.nu[a]):
            h = H[j]
            g[us + j] += h[0] * m0 + h[1] * m1 + h[2] * m2 + h[3] * f0 + h[4] * f1 + h[5] * f2
        p = cache.p_PB[a]
        m0 += p[1] * f2 - p[2] * f1
        m1 += p[2] * f0 - p[0] * f2
        m2 += p[0] * f1 - p[1] * f0
        a = tree.parent[a]


@helper
def constraint_matrix(kinds, tree, cache, con):
    """con.G (m x nu), row by row: the generalized forces of each unit multiplier
    (POSITION)."""
    G = con.G
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            G[i, j] = 0.0
    for c in range(con.rows.shape[0]):
        row = con.rows[c]
        s0, k, u0, nuc = row[BODY0], row[NBODIES], row[USLOT0], row[NU]
        mc = row[MP] + row[MV] + row[MA]
        R_GA = cache.R_GB[row[ANCESTOR]]
        lam, F_A, f = con.lam_c[:mc], con.F_A[:k], con.f_c[:nuc]
        for r in range(mc):
            lam[:] = 0.0
            lam[r] = 1.0
            F_A[:, :] = 0.0
            f[:] = 0.0
            constraint_forces(kinds, row[CODE], con.params[row[PARAMS]:], con.R_AB[s0:s0 + k],
                              con.p_AB[s0:s0 + k], lam, F_A, f)
            g = G[equation_row(row, r)]
            coordinate_forces(kinds, row[CODE], con.params[row[PARAMS]:], con.q, lam, g)
            for i in range(nuc):
                g[con.u_index[u0 + i]] += f[i]
            for j in range(k):
                b = con.bodies[s0 + j]
                if b == 0:
                    continue
                add_jacobian_transpose(tree, cache, b, rotate3(R_GA, vec3(F_A[j, :3])),
                                       rotate3(R_GA, vec3(F_A[j, 3:])), g)


@helper
def pivoted_cholesky(G, Y, L, pivots, d):
    """Factor the symmetric positive semidefinite W = G Yᵀ (m x m; G and Y m x nu, W[i, j]
    = G[i] · Y[j]) as Πᵀ W Π = L Lᵀ, choosing the largest remaining diagonal entry as
    each pivot and stopping where the rest fall below RANK_TOLERANCE of the largest: L
    (m x r, lower trapezoidal) into L's lower triangle, Π into ``pivots`` (row i of the
    factored order is W's row pivots[i]); returns the rank r. Column by column
    (left-looking), so that only the r columns of W that become pivots are ever formed,
    each entry as it is needed; ``d`` (m) holds the diagonal of what is left to factor."""
    m, nu = G.shape
    largest = 0.0
    for i in range(m):
        pivots[i] = i
        s = 0.0
        for k in range(nu):
            s += G[i, k] * Y[i, k]
        d[i] = s
        largest = max(largest, s)
    tol = RANK_TOLERANCE * largest
    for k in range(m):
        best, p = d[k], k
        for i in range(k + 1, m):
            if d[i] > best:
                best, p = d[i], i
        if not best > tol:
            return k
        if p != k:
            pivots[k], pivots[p] = pivots[p], pivots[k]
            d[k], d[p] = d[p], d[k]
            for j in range(k):
                L[k, j], L[p, j] = L[p, j], L[k, j]
        lkk = best ** 0.5
        L[k, k] = lkk
        lk, yk = L[k], Y[pivots[k]]
        for i in range(k + 1, m):
            g, li = G[pivots[i]], L[i]
            s = 0.0
            for c in range(nu):
                s += g[c] * yk[c]
            for j in range(k):
                s -= li[j] * lk[j]
            s /= lkk
            li[k] = s
            d[i] -= s * s
    return m


@helper
def solve_semidefinite(G, Y, b, x, L, pivots, S, least_squares=False):
    """x = the minimum-norm solution of W x = b, W = G Yᵀ (m x m) symmetric positive
    semidefinite and b in its range (consistent equations, redundant ones included).
    With Πᵀ W Π = L Lᵀ, L = [L1; L2] (m x r): Lᵀ x̃ = v where L1 v = (Πᵀ b)[:r], and the
    smallest such x̃ is L (Lᵀ L)⁻¹ v; x = Π x̃. With ``least_squares`` (b outside the
    range: equations without a solution) x is the minimum-norm x minimizing |W x - b|,
    W's pseudo-inverse times b, as Simbody's solve: v = (Lᵀ L)⁻¹ Lᵀ Πᵀ b, the v for
    which L v is nearest Πᵀ b. L and S (m x m) are work space."""
    m = L.shape[0]
    r = pivoted_cholesky(G, Y, L, pivots, S[0])
    v = S[0]                          # forward substitution: L1 v = (Πᵀ b)[:r]
    for i in range(r):
        s = b[pivots[i]]
        for j in range(i):
            s -= L[i, j] * v[j]
        v[i] = s / L[i, i]
    if r == m:                        # full rank: back substitution, Lᵀ x̃ = v
        for i in range(m - 1, -1, -1):
            s = v[i]
            for j in range(i + 1, m):
                s -= L[j, i] * v[j]
            v[i] = s / L[i, i]
        for i in range(m):
            x[pivots[i]] = v[i]
        return
    C = S[1:r + 1, :r]                # Lᵀ L, then its Cholesky factor
    for i in range(r):
        for j in range(i + 1):
            C[i, j] = 0.0
    for k in range(m):                # row by row of L, each contiguous
        row = L[k]
        for i in range(min(k + 1, r)):
            w = row[i]
            for j in range(i + 1):
                C[i, j] += w * row[j]
    for k in range(r):
        d = C[k, k] ** 0.5
        C[k, k] = d
        for i in range(k + 1, r):
            C[i, k] /= d
        for j in range(k + 1, r):
            for i in range(j, r):
                C[i, j] -= C[i, k] * C[j, k]
    if least_squares:
        for i in range(r):            # v = (Lᵀ L)⁻¹ Lᵀ Πᵀ b
            s = 0.0
            for k in range(i, m):
                s += L[k, i] * b[pivots[k]]
            v[i] = s
        cholesky_solve(C, v[:r])
    cholesky_solve(C, v[:r])
    for i in range(m):
        s = 0.0
        for j in range(min(i + 1, r)):
            s += L[i, j] * v[j]
        x[pivots[i]] = s


@helper
def constraint_acceleration(kinds, tree, cache, con, udot, udoterr, multipliers):
    """Turn the unconstrained u̇ (``udot``, with the body accelerations in cache.A_GB) into
    the constrained u̇ in place, with its body accelerations; the multipliers λ and the
    acceleration errors left into ``multipliers`` and ``udoterr`` (ACCELERATION). Returns
    1 if those errors are beyond INCONSISTENCY_TOLERANCE (the equations have no
    solution; λ and u̇ are then the least-squares ones, as Simbody's), else 0."""
    m = con.m
    acceleration_error_sweep(kinds, cache, con, cache.A_GB, udot, con.rhs)
    constraint_matrix(kinds, tree, cache, con)
    j = 0
    while j + BLOCK <= m:           # M⁻¹ Gᵀ, BLOCK columns at a time, then one at a time
        inverse_mass_rows(tree, cache, con.G[j:j + BLOCK], con.Y[j:j + BLOCK], con.sweep_Z,
                          con.sweep_A, con.sweep_E, con.sweep_T, BLOCK)
        j += BLOCK
    while j < m:
        inverse_mass_rows(tree, cache, con.G[j:j + 1], con.Y[j:j + 1], con.sweep_Z,
                          con.sweep_A, con.sweep_E, con.sweep_T, 1)
        j += 1
    solve_semidefinite(con.G[:m], con.Y[:m], con.rhs, con.lam, con.L, con.pivots, con.S)
    free = con.sweep_E[:, 0]            # the sweeps' work space, free now: u̇₀
    for k in range(udot.shape[0]):
        free[k] = udot[k]
    inconsistent = _constrain(kinds, tree, cache, con, udot, udoterr, multipliers)
    if inconsistent:
        # No u̇ meets them all: Simbody's least-squares multipliers instead of the ones
        # meeting the independent rows exactly, from u̇₀ again.
        for k in range(udot.shape[0]):
            udot[k] = free[k]
        solve_semidefinite(con.G[:m], con.Y[:m], con.rhs, con.lam, con.L, con.pivots,
                           con.S, True)
        _constrain(kinds, tree, cache, con, udot, udoterr, multipliers)
    return inconsistent


@helper
def _constrain(kinds, tree, cache, con, udot, udoterr, multipliers):
    """u̇ -= M⁻¹ Gᵀ λ for con.lam, the multipliers, body accelerations and acceleration
    errors of the result; 1 if those errors are beyond INCONSISTENCY_TOLERANCE, else 0."""
    m = con.m
    for j in range(m):
        lam = con.lam[j]
        multipliers[j] = lam
        for k in range(udot.shape[0]):
            udot[k] -= lam * con.Y[j, k]
    body_accelerations(tree, cache, cache.c, udot, cache.A_GB)
    acceleration_error_sweep(kinds, cache, con, cache.A_GB, udot, udoterr)
    before, left = 0.0, 0.0
    for j in range(m):
        before = max(before, abs(con.rhs[j]))
        left = max(left, abs(udoterr[j]))
    return 1 if not left <= INCONSISTENCY_TOLERANCE * (1.0 + before) else 0


@helper
def constraint_rows(kinds, tree, cache, con):
    """con.G at the positions of the cache (POSITION): the rows projection and the
    operators use. A Python constraint's rows are those its pass last wrote."""
    ancestor_poses(cache, con)
    constraint_matrix(kinds, tree, cache, con)


@kernel
def calc_constraint_matrix(tree_i, tree_f, kinds, buf, status, constraint_kinds, con_i,
                           con_index, con_f, con_buf, q, u):
    """``constraint_rows`` on the flat tree, cache and constraint arrays at q and u."""
    con = unpack_constraints(con_i, con_index, con_f, con_buf, q, u)
    constraint_rows(constraint_kinds, unpack_tree(tree_i, tree_f, kinds),
                    unpack_cache(buf, status), con)
