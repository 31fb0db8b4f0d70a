"""Articulated-body forward dynamics (Featherstone's ABA in Ground coordinates): u̇ from
applied forces in O(n).

Two sweeps. ``calc_articulated_body_inertias`` (positions only) accumulates, tip to base,
the articulated inertias P, U = P H and D⁻¹ = (Hᵀ U)⁻¹, leaving in P the part the parent
feels, P⁺ = P - U D⁻¹ Uᵀ. ``calc_tree_accelerations`` then accumulates the articulated
bias forces z tip to base and solves u̇ base to tip:
  ε = f - Hᵀ z,  z_P += phi (z + P⁺ c + U D⁻¹ ε),
  A' = phiᵀ A_P + c,  u̇ = D⁻¹ (ε - Uᵀ A'),  A = A' + H u̇.
Body forces F are spatial forces about each body's origin in G; f are mobility forces.
Each per-body step is an inline function of the body's mobility count nu; the sweeps
call it with the literal 1 or 6 for one- and six-mobility bodies, which lets the compiler
unroll it. A body whose parent is Ground passes nothing on, so its P⁺ and parent force are
skipped. ``inverse_mass_rows`` runs the bias and acceleration sweeps on several mobility
forces at once: the constraint solve's M⁻¹ Gᵀ.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.dense import (
    dense_accelerations,
    dense_inverse_mass_rows,
    factor_mass_matrix,
)
from kinetree.multibody.kernels.prescribed import prescribe_accelerations
from kinetree.multibody.kernels.small import (
    PIVOT_TOLERANCE,
    invert_spd_in_place,
    shift_acceleration_from_parent,
    shift_force_to_parent_add,
    shift_inertia_to_parent_add,
    spatial_inertia,
)
from kinetree.multibody.tree_model import (
    FREE,
    PRESCRIBED_COUNT,
    kernel,
    mobility_rows,
    unpack_cache,
    unpack_tree,
)


@helper
def _articulate(P, H, U, Dinv, W, nu, for_parent):
    """One body of the inertia sweep: U = P H, D⁻¹ = (Hᵀ U)⁻¹, then, if the parent is a
    moving body (``for_parent``), P -= U D⁻¹ Uᵀ (with W = U D⁻¹ as work space). Returns
    D's smallest relative pivot (``invert_spd_in_place``); P is left alone if D is
    singular."""
    for j in range(nu):
        for i in range(6):
            s = 0.0
            for k in range(6):
                s += P[i, k] * H[k, j]
            U[i, j] = s
        for i in range(j + 1):
            s = 0.0
            for k in range(6):
                s += H[k, i] * U[k, j]
            Dinv[i, j] = s
            Dinv[j, i] = s
    pivot = invert_spd_in_place(Dinv, nu)
    if not (pivot > PIVOT_TOLERANCE and for_parent):
        return pivot
    for i in range(6):
        for j in range(nu):
            s = 0.0
            for k in range(nu):
                s += U[i, k] * Dinv[k, j]
            W[i, j] = s
    for i in range(6):
        for j in range(i + 1):
            s = P[i, j]
            for k in range(nu):
                s -= W[i, k] * U[j, k]
            P[i, j] = s
            P[j, i] = s
    return pivot


@helper
def _is_identity(H):
    """Whether the 6x6 H is the identity: a six-mobility body whose u is its spatial
    velocity in G (a Free mobilizer on Ground with frames aligned with it)."""
    for i in range(6):
        for j in range(6):
            if H[i, j] != (1.0 if i == j else 0.0):
                return False
    return True


@helper
def _articulate_identity(P, U, Dinv, for_parent):
    """``_articulate`` for H = 1: U = P, D⁻¹ = P⁻¹, and the parent feels nothing
    (P - P P⁻¹ P = 0), in a third of the work."""
    for i in range(6):
        for j in range(6):
            U[i, j] = Dinv[i, j] = P[i, j]
    pivot = invert_spd_in_place(Dinv, 6)
    if pivot > PIVOT_TOLERANCE and for_parent:
        P[:, :] = 0.0
    return pivot


@helper
def articulate_step(tree, cache, b):
    """Body b's U, D⁻¹ and P⁺ (its children already added into P[b]), P⁺ shifted into its
    parent's P; returns D's smallest relative pivot (not above PIVOT_TOLERANCE: D is
    singular, and nothing is passed on). A prescribed body's mobilities take no part: its
    parent feels its whole articulated inertia P (and the pivot returned is 1)."""
    nu, p = tree.nu[b], tree.parent[b]
    P = cache.P
    if cache.level[b] != FREE:      # prescribed: the parent carries the whole of P
        if p != 0:
            shift_inertia_to_parent_add(P[b], cache.p_PB[b], cache.T, P[p])
        return 1.0
    H, U = mobility_rows(tree, cache.H_cols, b).T, mobility_rows(tree, cache.U_cols, b).T
    Dinv, W = mobility_rows(tree, cache.Dinv, b), cache.T
    if nu == 1:
        pivot = _articulate(P[b], H, U, Dinv, W, 1, p != 0)
    elif nu == 6:
        if _is_identity(H):
            pivot = _articulate_identity(P[b], U, Dinv, p != 0)
        else:
            pivot = _articulate(P[b], H, U, Dinv, W, 6, p != 0)
    else:
        pivot = _articulate(P[b], H, U, Dinv, W, nu, p != 0)
    if pivot > PIVOT_TOLERANCE and p != 0:
        shift_inertia_to_parent_add(P[b], cache.p_PB[b], cache.T, P[p])
    return pivot


ILL_CONDITIONED = 1e-6
"""A D whose smallest relative pivot is below this may have lost too many digits for the
P⁺ it passes on (random trees with masses over 1e-6..1e6 kg showed backward errors above
1e-10 down to pivots of 1e-7): the tree is solved through its mass matrix instead
(``kernels/dense.py``). One-mobility bodies never trigger it (their pivot is 1)."""


@helper
def inertia_sweep(tree, cache):
    """Fill P, U and Dinv, each body's P ending as P - U D⁻¹ Uᵀ, the articulated inertia
    its parent feels through the mobilizer. Where a body's D is singular or ill-conditioned
    (extreme mass ratios: a 1e-6 kg body carrying 3e5 kg) and the tree is small enough to
    hold M (cache.M_dense), M is factored instead and status[4] set to 1: u̇ then comes
    from M (``dense.py``), unless a body's motion is prescribed. Otherwise status[0] is
    set to 1 + b for a singular D of body b (a massless body at a tip, for instance), or
    left 0."""
    nb = tree.parent.shape[0]
    P = cache.P
    P[0, :, :] = 0.0
    for b in range(1, nb):
        spatial_inertia(tree.mass[b], cache.com_G[b], cache.I_G[b], P[b])
    cache.status[0] = 0
    cache.status[4] = 0
    for b in range(nb - 1, 0, -1):
        pivot = articulate_step(tree, cache, b)
        if not pivot > ILL_CONDITIONED:
            if (cache.M_dense.shape[0] > 0 and cache.status[PRESCRIBED_COUNT] == 0
                    and factor_mass_matrix(tree, cache)):
                cache.status[4] = 1
                return
            if not pivot > PIVOT_TOLERANCE:
                cache.status[0] = b + 1
                return


@kernel
def calc_articulated_body_inertias(tree_i, tree_f, kinds, buf, status):
    """``inertia_sweep`` on the flat model and cache buffers."""
    inertia_sweep(unpack_tree(tree_i, tree_f, kinds), unpack_cache(buf, status))


@helper
def _bias_force(P, H, U, Dinv, f, z, c, eps, g, za, nu, for_parent):
    """One body of the bias sweep: ε = f - Hᵀ z and, if the parent is a moving body
    (``for_parent``), g = D⁻¹ ε and the force za = z + P c + U g the body passes to it
    (before the shift to the parent's origin)."""
    for j in range(nu):
        s = f[j]
        for k in range(6):
            s -= H[k, j] * z[k]
        eps[j] = s
    if not for_parent:
        return
    for j in range(nu):
        s = 0.0
        for k in range(nu):
            s += Dinv[j, k] * eps[k]
        g[j] = s
    for i in range(6):
        s = z[i]
        for k in range(6):
            s += P[i, k] * c[k]
        for k in range(nu):
            s += U[i, k] * g[k]
        za[i] = s


@helper
def _mobility_accelerations(H, U, Dinv, eps, A, g, udot, nu):
    """One body of the acceleration sweep: u̇ = D⁻¹ (ε - Uᵀ A') from the body's
    acceleration A' before its mobilities act, then A = A' + H u̇ (g is work space)."""
    for j in range(nu):
        s = eps[j]
        for k in range(6):
            s -= U[k, j] * A[k]
        g[j] = s
    for j in range(nu):
        s = 0.0
        for k in range(nu):
            s += Dinv[j, k] * g[k]
        udot[j] = s
    for i in range(6):
        s = 0.0
        for j in range(nu):
            s += H[i, j] * udot[j]
        A[i] += s


@helper
def _prescribed_bias_force(P, H, z, c, udot, a, za, nu):
    """A prescribed body's force on its parent, before the shift to the parent's origin:
    za = z + P (c + H u̇), its known u̇ carried rigidly (``a`` is work space)."""
    for i in range(6):
        s = c[i]
        for j in range(nu):
            s += H[i, j] * udot[j]
        a[i] = s
    for i in range(6):
        s = z[i]
        for k in range(6):
            s += P[i, k] * a[k]
        za[i] = s


@helper
def bias_step(tree, cache, c, f, udot, b):
    """Body b's ε and the articulated bias force it passes to its parent (its children's
    already in z[b]); a prescribed body passes its known u̇'s (from ``udot``) instead."""
    nu, us, p = tree.nu[b], tree.u_start[b], tree.parent[b]
    H, U = mobility_rows(tree, cache.H_cols, b).T, mobility_rows(tree, cache.U_cols, b).T
    Dinv, Pb = mobility_rows(tree, cache.Dinv, b), cache.P[b]
    za, g = cache.T[0], cache.T[1]
    z, eps = cache.z, cache.eps[us:us + nu]
    fb = f[us:us + nu]
    if cache.level[b] != FREE:
        eps[:] = 0.0
        if p != 0:
            _prescribed_bias_force(Pb, H, z[b], c[b], udot[us:us + nu], g, za, nu)
            shift_force_to_parent_add(za, cache.p_PB[b], z[p])
        return
    if nu == 1:
        _bias_force(Pb, H, U, Dinv, fb, z[b], c[b], eps, g, za, 1, p != 0)
    elif nu == 6:
        _bias_force(Pb, H, U, Dinv, fb, z[b], c[b], eps, g, za, 6, p != 0)
    else:
        _bias_force(Pb, H, U, Dinv, fb, z[b], c[b], eps, g, za, nu, p != 0)
    if p != 0:
        shift_force_to_parent_add(za, cache.p_PB[b], z[p])


@helper
def acceleration_step(tree, cache, c, A, udot, b):
    """Body b's u̇ and acceleration A[b] from its parent's (a prescribed body's u̇ is
    read from ``udot``)."""
    nu, us = tree.nu[b], tree.u_start[b]
    H, U = mobility_rows(tree, cache.H_cols, b).T, mobility_rows(tree, cache.U_cols, b).T
    Dinv = mobility_rows(tree, cache.Dinv, b)
    Ab = A[b]
    shift_acceleration_from_parent(A[tree.parent[b]], cache.p_PB[b], Ab)
    for i in range(6):
        Ab[i] += c[b, i]
    ub, eps, g = udot[us:us + nu], cache.eps[us:us + nu], cache.T[2]
    if cache.level[b] != FREE:      # prescribed: u̇ known, A = A' + H u̇
        for i in range(6):
            s = 0.0
            for j in range(nu):
                s += H[i, j] * ub[j]
            Ab[i] += s
        return
    if nu == 1:
        _mobility_accelerations(H, U, Dinv, eps, Ab, g, ub, 1)
    elif nu == 6:
        _mobility_accelerations(H, U, Dinv, eps, Ab, g, ub, 6)
    else:
        _mobility_accelerations(H, U, Dinv, eps, Ab, g, ub, nu)


@helper
def acceleration_sweep(tree, cache, c, bias, A, f, F, udot):
    """u̇ (into ``udot``) for mobility forces f and body forces F, with the Coriolis
    accelerations ``c`` and gyroscopic forces ``bias`` (cache.c and cache.b, or zeros),
    the body accelerations into ``A`` (nb, 6); through M when the inertia sweep chose
    it (status[4]). The entries of prescribed bodies are read, not written: their known
    u̇ (``prescribed.prescribe_accelerations``), or zeros for M_ff⁻¹ f, the inverse of
    the free mobilities' block of M."""
    if cache.status[4] == 1:
        dense_accelerations(tree, cache, c, bias, A, f, F, udot)
        return
    nb = tree.parent.shape[0]
    z = cache.z
    for b in range(nb):
        for i in range(6):
            z[b, i] = bias[b, i] - F[b, i]
    for b in range(nb - 1, 0, -1):
        bias_step(tree, cache, c, f, udot, b)
    A[0, :] = 0.0
    for b in range(1, nb):
        acceleration_step(tree, cache, c, A, udot, b)


BLOCK = 8
"""Columns of M⁻¹ Gᵀ that ``inverse_mass_rows`` solves in one pair of sweeps."""


@helper
def _block_bias_force(H, U, Dinv, F, us, z, E, g, za, k, nu, for_parent):
    """``_bias_force`` for k right-hand sides at once, without the Coriolis term: ε = f -
    Hᵀ z into E[us:us + nu] and, if the parent is a moving body, za = z + U D⁻¹ ε (each
    array's last index the right-hand side)."""
    for j in range(nu):
        e, h = E[us + j], H[j]
        for c in range(k):
            e[c] = F[c, us + j]
        for i in range(6):
            for c in range(k):
                e[c] -= h[i] * z[i, c]
    if not for_parent:
        return
    for j in range(nu):
        for c in range(k):
            g[j, c] = 0.0
        for jj in range(nu):
            d, e = Dinv[j, jj], E[us + jj]
            for c in range(k):
                g[j, c] += d * e[c]
    for i in range(6):
        for c in range(k):
            za[i, c] = z[i, c]
        for j in range(nu):
            w = U[j, i]
            for c in range(k):
                za[i, c] += w * g[j, c]


@helper
def _block_mobility_accelerations(H, U, Dinv, E, us, A, g, t, Y, k, nu):
    """``_mobility_accelerations`` for k right-hand sides at once: u̇ = D⁻¹ (ε - Uᵀ A')
    into Y[:k, us:us + nu], then A = A' + H u̇ (g and t are work space)."""
    for j in range(nu):
        u, e = U[j], E[us + j]
        for c in range(k):
            g[j, c] = e[c]
        for i in range(6):
            for c in range(k):
                g[j, c] -= u[i] * A[i, c]
    for j in range(nu):
        for c in range(k):
            t[c] = 0.0
        for jj in range(nu):
            d = Dinv[j, jj]
            for c in range(k):
                t[c] += d * g[jj, c]
        h = H[j]
        for c in range(k):
            Y[c, us + j] = t[c]
        for i in range(6):
            for c in range(k):
                A[i, c] += h[i] * t[c]


@helper
def shift_forces_to_parent_add(za, r, zp, k):
    """zp += phi(r) za for k spatial forces side by side (za, zp: 6 x k), r the parent's
    origin to the body's, in G."""
    r0, r1, r2 = r
    for c in range(k):
        zp[0, c] += za[0, c] + r1 * za[5, c] - r2 * za[4, c]
        zp[1, c] += za[1, c] + r2 * za[3, c] - r0 * za[5, c]
        zp[2, c] += za[2, c] + r0 * za[4, c] - r1 * za[3, c]
        zp[3, c] += za[3, c]
        zp[4, c] += za[4, c]
        zp[5, c] += za[5, c]


@helper
def inverse_mass_rows(tree, cache, F, Y, Z, A, E, T, k):
    """Y = F M⁻¹ for k ≤ BLOCK rows of mobility forces F (k x nu): the rows of M⁻¹ Fᵀ,
    from ``acceleration_sweep`` with zero biases run on the k right-hand sides together,
    so that each body's H, U and D⁻¹ are read once for all of them and the innermost
    loops run along the k (call it with a literal k, BLOCK or 1, so that they unroll).
    Bodies whose subtree carries no force are skipped on the way in (they pass nothing
    on): the constraint solve's unit forces load only the paths from constrained bodies
    to Ground. Work space: Z and A (nb, 6, BLOCK) the articulated forces and the body
    accelerations, E (nu, BLOCK) the ε, T (2, 6, BLOCK). Through M's factor when the
    inertia sweep chose it (status[4]). With prescribed motion this is M_ff⁻¹: zero
    on the prescribed mobilities, which no force moves."""
    if cache.status[4] == 1:
        dense_inverse_mass_rows(cache, F, Y, k)
        return
    nb = tree.parent.shape[0]
    for b in range(nb):
        for i in range(6):
            for c in range(k):
                Z[b, i, c] = 0.0
    g, za = T[0], T[1]
    for b in range(nb - 1, 0, -1):
        us, nu, p = tree.u_start[b], tree.nu[b], tree.parent[b]
        zb = Z[b]
        if cache.level[b] != FREE:      # prescribed: passes z on whole, moves rigidly
            for j in range(nu):
                for c in range(k):
                    E[us + j, c] = 0.0
            if p != 0:
                shift_forces_to_parent_add(zb, cache.p_PB[b], Z[p], k)
            continue
        loaded = False
        for c in range(k):
            for j in range(nu):
                loaded = loaded or F[c, us + j] != 0.0
            for i in range(6):
                loaded = loaded or zb[i, c] != 0.0
        if not loaded:
            for j in range(nu):
                for c in range(k):
                    E[us + j, c] = 0.0
            continue
        H, U = mobility_rows(tree, cache.H_cols, b), mobility_rows(tree, cache.U_cols, b)
        Dinv = mobility_rows(tree, cache.Dinv, b)
        if nu == 1:
            _block_bias_force(H, U, Dinv, F, us, zb, E, g, za, k, 1, p != 0)
        else:
            _block_bias_force(H, U, Dinv, F, us, zb, E, g, za, k, nu, p != 0)
        if p == 0:
            continue
        shift_forces_to_parent_add(za, cache.p_PB[b], Z[p], k)   # z_P += phi (z + U D⁻¹ ε)
    for i in range(6):
        for c in range(k):
            A[0, i, c] = 0.0
    for b in range(1, nb):
        us, nu = tree.u_start[b], tree.nu[b]
        H, U = mobility_rows(tree, cache.H_cols, b), mobility_rows(tree, cache.U_cols, b)
        Dinv = mobility_rows(tree, cache.Dinv, b)
        r0, r1, r2 = cache.p_PB[b]
        Ab, Ap = A[b], A[tree.parent[b]]
        for c in range(k):                  # A' = phiᵀ A_P
            Ab[0, c], Ab[1, c], Ab[2, c] = Ap[0, c], Ap[1, c], Ap[2, c]
            Ab[3, c] = Ap[3, c] + Ap[1, c] * r2 - Ap[2, c] * r1
            Ab[4, c] = Ap[4, c] + Ap[2, c] * r0 - Ap[0, c] * r2
            Ab[5, c] = Ap[5, c] + Ap[0, c] * r1 - Ap[1, c] * r0
        if cache.level[b] != FREE:
            for j in range(nu):
                for c in range(k):
                    Y[c, us + j] = 0.0
            continue
        if nu == 1:
            _block_mobility_accelerations(H, U, Dinv, E, us, Ab, g, za[0], Y, k, 1)
        else:
            _block_mobility_accelerations(H, U, Dinv, E, us, Ab, g, za[0], Y, k, nu)


@kernel
def calc_tree_accelerations(tree_i, tree_f, kinds, buf, status, velocity_terms, f, F, udot):
    """``acceleration_sweep`` on the flat model and cache buffers. With
    ``velocity_terms`` the Coriolis and gyroscopic biases are included and the body
    accelerations land in cache.A_GB, prescribed bodies following their motion; without
    them (and F zero) u̇ = M_ff⁻¹ f (M⁻¹ f without prescribed motion), and the body
    accelerations go to the work array A_work."""
    tree, cache = unpack_tree(tree_i, tree_f, kinds), unpack_cache(buf, status)
    for i in range(udot.shape[0]):
        udot[i] = 0.0
    if velocity_terms:
        c, bias, A = cache.c, cache.b, cache.A_GB
        prescribe_accelerations(tree, cache, udot)
    else:
        c, bias, A = cache.zero, cache.zero, cache.A_work
    acceleration_sweep(tree, cache, c, bias, A, f, F, udot)
