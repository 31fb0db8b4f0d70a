"""Position kinematics: X_FM, X_GB and the hinge matrices of every body, base to tip.

For body B on parent P: X_GB = X_GP X_PF X_FM(q) X_MB, and the hinge matrix H maps the
body's u to V_PB, B's velocity relative to P at B's origin, expressed in G:
H = [R_GF H_ang; R_GF (H_lin - r_F × H_ang)], with H_F = [H_ang; H_lin] the mobilizer's
own hinge matrix in F and r_F the vector from M's origin to B's origin in F.
"""

import numba

from kinetree.multibody.kernels import hinge
from kinetree.multibody.kernels.small import mat_mul, mat_vec
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@numba.njit(cache=True, inline="always")
def _hinge_in_ground(R_GF, r_F, H_F, H, nu):
    """H = [R_GF H_ang; R_GF (H_lin - r_F × H_ang)], column by column."""
    for j in range(nu):
        a0, a1, a2 = H_F[0, j], H_F[1, j], H_F[2, j]
        l0 = H_F[3, j] - (r_F[1] * a2 - r_F[2] * a1)
        l1 = H_F[4, j] - (r_F[2] * a0 - r_F[0] * a2)
        l2 = H_F[5, j] - (r_F[0] * a1 - r_F[1] * a0)
        for i in range(3):
            H[i, j] = R_GF[i, 0] * a0 + R_GF[i, 1] * a1 + R_GF[i, 2] * a2
            H[3 + i, j] = R_GF[i, 0] * l0 + R_GF[i, 1] * l1 + R_GF[i, 2] * l2


@kernel
def calc_position_kinematics(tree_i, tree_f, q, buf, status):
    """Fill the POSITION part of the cache from q."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    nb = tree.parent.shape[0]
    for b in range(1, nb):
        p, code, nu = tree.parent[b], tree.code[b], tree.nu[b]
        qb = q[tree.q_start[b]:tree.q_start[b] + tree.nq[b]]
        R_FM, p_FM = cache.R_FM[b], cache.p_FM[b]
        hinge.x_fm(code, qb, tree.prm[b], R_FM, p_FM)

        work = cache.T[b]
        R_GM, R_I, p_FB, tmp = work[:3, :3], work[:3, 3:], work[3, :3], work[4, :3]
        R_GP, R_GF, R_GB, r_F = cache.R_GB[p], cache.R_GF[b], cache.R_GB[b], cache.r_F[b]
        mat_mul(R_GP, tree.R_PF[b], R_GF)
        mat_mul(R_GF, R_FM, R_GM)
        mat_mul(R_GM, tree.R_MB[b], R_GB)
        mat_vec(R_FM, tree.p_MB[b], r_F)
        for i in range(3):
            p_FB[i] = p_FM[i] + r_F[i]
        p_PB = cache.p_PB[b]
        mat_vec(R_GP, tree.p_PF[b], p_PB)
        mat_vec(R_GF, p_FB, tmp)
        for i in range(3):
            p_PB[i] += tmp[i]
            cache.p_GB[b, i] = cache.p_GB[p, i] + p_PB[i]

        H_F = cache.H_F[b]
        hinge.h_fm(code, qb, tree.prm[b], H_F)
        if nu == 1:
            _hinge_in_ground(R_GF, r_F, H_F, cache.H[b], 1)
        else:
            _hinge_in_ground(R_GF, r_F, H_F, cache.H[b], nu)

        mat_vec(R_GB, tree.com_B[b], cache.com_G[b])
        mat_mul(R_GB, tree.inertia_B[b], R_I)
        I_G = cache.I_G[b]
        for i in range(3):
            for j in range(i + 1):
                s = R_I[i, 0] * R_GB[j, 0] + R_I[i, 1] * R_GB[j, 1] + R_I[i, 2] * R_GB[j, 2]
                I_G[i, j] = s
                I_G[j, i] = s
