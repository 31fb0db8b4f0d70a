"""Task Jacobians: the spatial velocities of frames fixed on bodies, and their products.

A task is a body B and a point Ao fixed on it (the origin of a task frame A; its
orientation does not matter, every frame on B turns with B). With r = R_GB p_BAo the
offset of Ao from B's origin in G, the frame's spatial velocity in G is

    V_GA = [w_GB;  v_GB + w_GB × r] = JF u,

so JF's column block for the mobilities of an ancestor a of B is that of the system
Jacobian (``jacobian.py``) taken about Ao instead of B's origin: [H_ang; H_lin + H_ang ×
(p_GAo - p_Ga)]. A station Jacobian JS is the linear half of JF. The products JF u and
JFᵀ F are O(n + nt) sweeps that never form JF, and the bias J̇F u (the part of A_GA that
u̇ does not give) is the body's acceleration at u̇ = 0 carried rigidly to Ao:
[α_B;  a_B + α_B × r + w_GB × (w_GB × r)].

Tasks arrive as ``bodies`` (nt,) int64 mobilized body indices (Ground, 0, allowed: its
rows are zero) and ``stations`` (nt, 3): each p_BAo (m) in its body's frame.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.acceleration import body_accelerations
from kinetree.multibody.kernels.jacobian import _jacobian_transpose
from kinetree.multibody.kernels.small import (
    add3,
    cross3,
    rotate3,
    shift_acceleration_from_parent,
    store3,
    vec3,
)
from kinetree.multibody.tree_model import kernel, mobility_rows, unpack_cache, unpack_tree


@helper
def _offset(cache, b, station):
    """r = R_GB p_BAo (m, in G): the task point from its body's origin."""
    return rotate3(cache.R_GB[b], vec3(station))


@kernel
def calc_frame_jacobian(tree_i, tree_f, kinds, buf, status, bodies, stations, JF):
    """JF (6 nt x nu, zeroed here): rows 6t..6t+5 give task t's V_GA = [w; v of Ao] in G
    (POSITION). O(nt · depth · nu_path)."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    JF[:, :] = 0.0
    for t in range(bodies.shape[0]):
        b = bodies[t]
        if b == 0:
            continue
        row = 6 * t
        p = add3(vec3(cache.p_GB[b]), _offset(cache, b, stations[t]))
        a = b
        while a != 0:
            H, pa = mobility_rows(tree, cache.H_cols, a), cache.p_GB[a]
            d0, d1, d2 = p[0] - pa[0], p[1] - pa[1], p[2] - pa[2]
            for j in range(tree.nu[a]):
                col = tree.u_start[a] + j
                h = H[j]
                w0, w1, w2 = h[0], h[1], h[2]
                JF[row, col], JF[row + 1, col], JF[row + 2, col] = w0, w1, w2
                JF[row + 3, col] = h[3] + w1 * d2 - w2 * d1
                JF[row + 4, col] = h[4] + w2 * d0 - w0 * d2
                JF[row + 5, col] = h[5] + w0 * d1 - w1 * d0
            a = tree.parent[a]


@kernel
def multiply_by_frame_jacobian(tree_i, tree_f, kinds, buf, status, bodies, stations, u, out):
    """out (nt x 6) = JF u: each task frame's [w; v of Ao] in G for the speeds u, in
    O(n + nt) (POSITION). Uses cache.A_work for the bodies' velocities."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    V = cache.A_work
    V[0, :] = 0.0
    for b in range(1, tree.parent.shape[0]):
        Vb, H, us = V[b], mobility_rows(tree, cache.H_cols, b), tree.u_start[b]
        shift_acceleration_from_parent(V[tree.parent[b]], cache.p_PB[b], Vb)
        for j in range(tree.nu[b]):
            uj = u[us + j]
            for i in range(6):
                Vb[i] += H[j, i] * uj
    for t in range(bodies.shape[0]):
        b = bodies[t]
        w = vec3(V[b, :3])
        store3(w, out[t, :3])
        store3(add3(vec3(V[b, 3:]), cross3(w, _offset(cache, b, stations[t]))), out[t, 3:])


@kernel
def multiply_by_frame_jacobian_transpose(tree_i, tree_f, kinds, buf, status, bodies, stations,
                                         F, f):
    """f (nu) = JFᵀ F for spatial forces F (nt x 6, [moment; force] in G) applied at the
    task points: each moved to its body's origin ([m + r × f; f]) and summed per body,
    then the system Jacobian's transpose sweep, in O(n + nt) (POSITION). Uses
    cache.A_work (the bodies' forces) and cache.F_work."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    W = cache.A_work
    W[:, :] = 0.0
    for t in range(bodies.shape[0]):
        b = bodies[t]
        force = vec3(F[t, 3:])
        moment = add3(vec3(F[t, :3]), cross3(_offset(cache, b, stations[t]), force))
        for i in range(3):
            W[b, i] += moment[i]
            W[b, 3 + i] += force[i]
    _jacobian_transpose(tree, cache, W, cache.F_work, f)


@kernel
def calc_frame_accelerations(tree_i, tree_f, kinds, buf, status, bodies, stations, udot, out):
    """out (nt x 6) = JF u̇ + J̇F u: each task frame's spatial acceleration [α; a of Ao] in
    G for the mobility accelerations u̇, velocities from the cache (VELOCITY); with u̇ = 0
    the bias J̇F u alone (the Coriolis and centripetal part). Uses cache.A_work."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    A = cache.A_work
    body_accelerations(tree, cache, cache.c, udot, A)
    for t in range(bodies.shape[0]):
        b = bodies[t]
        r = _offset(cache, b, stations[t])
        alpha, w = vec3(A[b, :3]), vec3(cache.V_GB[b, :3])
        store3(alpha, out[t, :3])
        store3(add3(add3(vec3(A[b, 3:]), cross3(alpha, r)), cross3(w, cross3(w, r))),
               out[t, 3:])
