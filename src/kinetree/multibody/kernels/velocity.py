"""Velocity kinematics: body spatial velocities, base to tip, with the velocity-dependent
bias terms the dynamics sweeps need.

V_GB = phi(p_PB)ᵀ V_GP + H u. The Coriolis bias c is the part of B's acceleration that is
not phi(p_PB)ᵀ A_GP + H u̇; with w_P the parent's angular velocity, (w_r, v_r) = V_PB and
the mobilizer's (dH/dt) u = (hd_ang, hd_lin) in F:
  c_ang = w_P × w_r + R_GF hd_ang
  c_lin = w_P × (w_P × p_PB) + 2 w_P × v_r
          + R_GF (hd_lin - r_F × hd_ang + w_FM × (w_FM × r_F)).
The gyroscopic force bias b = [w × I w; m w × (w × c)] about B's origin.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels import hinge
from kinetree.multibody.kernels.small import add3, cross3, rotate3, scale3, store3, sub3, vec3
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@helper
def _hinge_velocities(H_F, H, u, V_FM, V_PB, nu):
    """V_FM = H_F u (in F) and V_PB = H u (in G)."""
    for i in range(6):
        s = 0.0
        t = 0.0
        for j in range(nu):
            s += H_F[i, j] * u[j]
            t += H[i, j] * u[j]
        V_FM[i] = s
        V_PB[i] = t


@helper
def reverse_hdot_u(R_FM, p_FM, V_FM, hd):
    """A reversed mobilizer's (dH_F/dt) u (in F) from its kind's own [ȧ; ḃ] (in M) in
    ``hd``, in place: with w, v = V_FM and p = p_FM, the rate in F of
    w_FM = -R_FM a, v_FM = p × (R_FM a) - R_FM b at constant u is
    [-R_FM ȧ; 2 w × v + w × (p × w) + p × R_FM ȧ - R_FM ḃ]."""
    w, v, p = vec3(V_FM[:3]), vec3(V_FM[3:]), vec3(p_FM)
    ad = rotate3(R_FM, vec3(hd[:3]))
    bd = rotate3(R_FM, vec3(hd[3:]))
    lin = add3(add3(scale3(2.0, cross3(w, v)), cross3(w, cross3(p, w))),
               sub3(cross3(p, ad), bd))
    store3(scale3(-1.0, ad), hd[:3])
    store3(lin, hd[3:])


@helper
def velocity_step(tree, cache, q, u, qdot, b):
    """Body b (its position and its parent's velocity done): V_GB, the bias terms c
    and b, and its q̇ = N u."""
    p = tree.parent[b]
    nu, us = tree.nu[b], tree.u_start[b]
    ub = u[us:us + nu]
    V_FM, V_PB, V_GB = cache.V_FM[b], cache.V_PB[b], cache.V_GB[b]
    H_F, H = mobility_rows(tree, cache.H_F_cols, b).T, mobility_rows(tree, cache.H_cols, b).T
    if nu == 1:
        _hinge_velocities(H_F, H, ub, V_FM, V_PB, 1)
    else:
        _hinge_velocities(H_F, H, ub, V_FM, V_PB, nu)
    w_P, v_P = vec3(cache.V_GB[p, :3]), vec3(cache.V_GB[p, 3:])
    w_r, v_r = vec3(V_PB[:3]), vec3(V_PB[3:])
    p_PB = vec3(cache.p_PB[b])
    w = add3(w_P, w_r)
    store3(w, V_GB[:3])
    store3(add3(add3(v_P, v_r), cross3(w_P, p_PB)), V_GB[3:])

    qs, nq = tree.q_start[b], tree.nq[b]
    qb, hd = q[qs:qs + nq], cache.hdot_u[b]
    hinge.n_mult(tree.kinds, tree.code[b], qb, ub, tree.prm[b], qdot[qs:qs + nq])
    hinge.hdot_u(tree.kinds, tree.code[b], qb, ub, tree.prm[b], hd)
    if tree.reversed[b]:
        reverse_hdot_u(cache.R_FM[b], cache.p_FM[b], V_FM, hd)
    hd_ang, hd_lin = vec3(hd[:3]), vec3(hd[3:])
    r_F, w_FM = vec3(cache.r_F[b]), vec3(V_FM[:3])
    t = add3(add3(hd_lin, cross3(hd_ang, r_F)), cross3(w_FM, cross3(w_FM, r_F)))
    R_GF, c = cache.R_GF[b], cache.c[b]
    store3(add3(rotate3(R_GF, hd_ang), cross3(w_P, w_r)), c[:3])
    store3(add3(add3(rotate3(R_GF, t), cross3(w_P, cross3(w_P, p_PB))),
                cross3(w_P, scale3(2.0, v_r))), c[3:])

    gyro = cache.b[b]
    store3(cross3(w, rotate3(cache.I_G[b], w)), gyro[:3])
    store3(scale3(tree.mass[b], cross3(w, cross3(w, vec3(cache.com_G[b])))), gyro[3:])


@helper
def velocity_sweep(tree, cache, q, u, qdot):
    """Fill the VELOCITY part of the cache from u (POSITION must be filled), and q̇ = N u
    into ``qdot``, base to tip."""
    for b in range(1, tree.parent.shape[0]):
        velocity_step(tree, cache, q, u, qdot, b)


@kernel
def calc_velocity_kinematics(tree_i, tree_f, kinds, q, u, buf, status, qdot):
    """``velocity_sweep`` on the flat model and cache buffers."""
    velocity_sweep(unpack_tree(tree_i, tree_f, kinds), unpack_cache(buf, status), q, u, qdot)
