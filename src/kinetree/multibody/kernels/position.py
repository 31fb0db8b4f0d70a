"""Position kinematics: X_FM, X_GB and the hinge matrices of every body, base to tip.

For body B on parent P: X_GB = X_GP X_PF X_FM(q) X_MB, and the hinge matrix H maps the
body's u to V_PB, B's velocity relative to P at B's origin, expressed in G:
H = [R_GF H_ang; R_GF (H_lin - r_F × H_ang)], with H_F = [H_ang; H_lin] the mobilizer's
own hinge matrix in F and r_F the vector from M's origin to B's origin in F.
"""

import numba

from kinetree.multibody.kernels import hinge
from kinetree.multibody.kernels.small import mat_mul, mat_mul_bt, mat_t_vec, mat_vec
from kinetree.multibody.tree_model import unpack_cache, unpack_tree


@numba.njit(cache=True)
def calc_position_kinematics(tree_i, tree_f, q, buf, status):
    """Fill the POSITION part of the cache from q."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    nb = tree.parent.shape[0]
    for b in range(1, nb):
        p = tree.parent[b]
        qb = q[tree.q_start[b]:tree.q_start[b] + tree.nq[b]]
        R_FM, p_FM = cache.R_FM[b], cache.p_FM[b]
        hinge.x_fm(tree.code[b], qb, tree.prm[b], R_FM, p_FM)

        work = cache.T[b]
        p_MB, p_FB, tmp = work[0, :3], work[1, :3], work[2, :3]
        R_FB = work[3:, 3:]
        R_GF, r_F = cache.R_GF[b], cache.r_F[b]
        mat_mul(cache.R_GB[p], tree.R_PF[b], R_GF)
        mat_t_vec(tree.R_BM[b], tree.p_BM[b], p_MB)
        for i in range(3):
            p_MB[i] = -p_MB[i]
        mat_vec(R_FM, p_MB, r_F)
        mat_mul_bt(R_FM, tree.R_BM[b], R_FB)
        mat_mul(R_GF, R_FB, cache.R_GB[b])
        for i in range(3):
            p_FB[i] = p_FM[i] + r_F[i]
        p_PB = cache.p_PB[b]
        mat_vec(cache.R_GB[p], tree.p_PF[b], p_PB)
        mat_vec(R_GF, p_FB, tmp)
        for i in range(3):
            p_PB[i] += tmp[i]
            cache.p_GB[b, i] = cache.p_GB[p, i] + p_PB[i]

        H_F, H = cache.H_F[b], cache.H[b]
        hinge.h_fm(tree.code[b], qb, tree.prm[b], H_F)
        for j in range(tree.nu[b]):
            ang, lin = H_F[:3, j], H_F[3:, j]
            for i in range(3):
                tmp[i] = lin[i]
            tmp[0] -= r_F[1] * ang[2] - r_F[2] * ang[1]
            tmp[1] -= r_F[2] * ang[0] - r_F[0] * ang[2]
            tmp[2] -= r_F[0] * ang[1] - r_F[1] * ang[0]
            mat_vec(R_GF, ang, H[:3, j])
            mat_vec(R_GF, tmp, H[3:, j])

        R_GB = cache.R_GB[b]
        mat_vec(R_GB, tree.com_B[b], cache.com_G[b])
        RI = work[3:, :3]
        mat_mul(R_GB, tree.inertia_B[b], RI)
        mat_mul_bt(RI, R_GB, cache.I_G[b])
