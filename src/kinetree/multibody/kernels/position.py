"""Position kinematics: X_FM, X_GB and the hinge matrices of every body, base to tip.

For body B on parent P: X_GB = X_GP X_PF X_FM(q) X_MB, and the hinge matrix H maps the
body's u to V_PB, B's velocity relative to P at B's origin, expressed in G:
H = [R_GF H_ang; R_GF (H_lin - r_F × H_ang)], with H_F = [H_ang; H_lin] the mobilizer's
own hinge matrix in F and r_F the vector from M's origin to B's origin in F. A reversed
mobilizer's q and u describe F's motion in M (Simbody's reversed mobilizers): its X_FM is
the inverse of the X its kind computes, and its H_F follows (``reverse_hinge``).
"""

from kinetree.jit import helper
from kinetree.multibody.kernels import hinge
from kinetree.multibody.kernels.small import (
    add3,
    cross3,
    mat_mul,
    rotate3,
    scale3,
    store3,
    sub3,
    vec3,
)
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@helper
def _hinge_in_ground(R_GF, r_F, H_F, H, nu):
    """H = [R_GF H_ang; R_GF (H_lin - r_F × H_ang)], column by column."""
    for j in range(nu):
        ang = vec3(H_F[:3, j])
        store3(rotate3(R_GF, ang), H[:3, j])
        store3(rotate3(R_GF, add3(vec3(H_F[3:, j]), cross3(ang, r_F))), H[3:, j])


@helper
def invert_in_place(R, p):
    """(R, p) = (R, p)⁻¹ = (Rᵀ, -Rᵀ p): a reversed mobilizer's q give X_MF, whose inverse
    is X_FM."""
    for i in range(3):
        for j in range(i + 1, 3):
            R[i, j], R[j, i] = R[j, i], R[i, j]
    store3(scale3(-1.0, rotate3(R, vec3(p))), p)


@helper
def reverse_hinge(R_FM, p_FM, H, nu):
    """A reversed mobilizer's H_F (6 x nu, in F) from its own hinge matrix H_MF in H (the
    velocity [a; b] of F in M per u, in M, b at F's origin): w_FM = -R_FM a and v_FM =
    p_FM × (R_FM a) - R_FM b, in place."""
    for j in range(nu):
        a = rotate3(R_FM, vec3(H[:3, j]))
        b = rotate3(R_FM, vec3(H[3:, j]))
        store3(scale3(-1.0, a), H[:3, j])
        store3(sub3(cross3(vec3(p_FM), a), b), H[3:, j])


@helper
def position_step(tree, cache, q, b):
    """Body b (not Ground; its parent done): X_FM, X_GB, H, com_G and I_G from q."""
    p, code, nu = tree.parent[b], tree.code[b], tree.nu[b]
    qb = q[tree.q_start[b]:tree.q_start[b] + tree.nq[b]]
    R_FM, p_FM = cache.R_FM[b], cache.p_FM[b]
    hinge.x_fm(tree.kinds, code, qb, tree.prm[b], R_FM, p_FM)
    if tree.reversed[b]:
        invert_in_place(R_FM, p_FM)

    R_GP, R_GF, R_GB = cache.R_GB[p], cache.R_GF[b], cache.R_GB[b]
    R_GM, R_I = cache.T[:3, :3], cache.T[:3, 3:]
    mat_mul(R_GP, tree.R_PF[b], R_GF)
    mat_mul(R_GF, R_FM, R_GM)
    mat_mul(R_GM, tree.R_MB[b], R_GB)
    r_F = rotate3(R_FM, vec3(tree.p_MB[b]))
    p_PB = add3(rotate3(R_GP, vec3(tree.p_PF[b])), rotate3(R_GF, add3(vec3(p_FM), r_F)))
    store3(r_F, cache.r_F[b])
    store3(p_PB, cache.p_PB[b])
    store3(add3(vec3(cache.p_GB[p]), p_PB), cache.p_GB[b])

    H_F, H = mobility_rows(tree, cache.H_F_cols, b).T, mobility_rows(tree, cache.H_cols, b).T
    hinge.h_fm(tree.kinds, code, qb, tree.prm[b], H_F)
    if tree.reversed[b]:
        reverse_hinge(R_FM, p_FM, H_F, nu)
    if nu == 1:
        _hinge_in_ground(R_GF, r_F, H_F, H, 1)
    else:
        _hinge_in_ground(R_GF, r_F, H_F, H, nu)

    store3(rotate3(R_GB, vec3(tree.com_B[b])), cache.com_G[b])
    mat_mul(R_GB, tree.inertia_B[b], R_I)
    I_G = cache.I_G[b]
    for i in range(3):
        for j in range(i + 1):
            s = R_I[i, 0] * R_GB[j, 0] + R_I[i, 1] * R_GB[j, 1] + R_I[i, 2] * R_GB[j, 2]
            I_G[i, j] = s
            I_G[j, i] = s


@helper
def position_sweep(tree, cache, q):
    """Fill the POSITION part of the cache from q, base to tip."""
    for b in range(1, tree.parent.shape[0]):
        position_step(tree, cache, q, b)


@kernel
def calc_position_kinematics(tree_i, tree_f, kinds, q, buf, status):
    """``position_sweep`` on the flat model and cache buffers."""
    position_sweep(unpack_tree(tree_i, tree_f, kinds), unpack_cache(buf, status), q)
