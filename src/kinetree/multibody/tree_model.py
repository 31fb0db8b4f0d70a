"""The flattened tree: constant model arrays (MuJoCo's mjModel) and the per-State cache
arrays the kernels fill (mjData).

Bodies are numbered in creation order, Ground is 0 and a parent always has a smaller
index, so a forward loop runs base to tip and a backward loop tip to base. All vectors of a
body are about its origin and expressed in Ground unless a name says otherwise; spatial
vectors are [angular; linear].

Each side lives in one or two flat buffers (``tree_i``/``tree_f`` for the model, ``buf``
for the cache): a compiled kernel is then called with a handful of arrays, which numba
dispatches in well under a microsecond, and ``unpack_tree`` / ``unpack_cache`` give it
named views (``tree.parent``, ``cache.R_GB``) at no cost inside compiled code.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

PARAM_SIZE = 4
"""Per-mobilizer constant parameters (screw pitch, ...)."""

TreeModel = namedtuple("TreeModel", [
    "parent",     # (nb,) int64: parent body index (-1 for Ground)
    "code",       # (nb,) int64: mobilizer type code
    "q_start",    # (nb,) int64: first q of the body's mobilizer
    "nq",         # (nb,) int64
    "u_start",    # (nb,) int64: first u of the body's mobilizer
    "nu",         # (nb,) int64
    "prm",        # (nb, PARAM_SIZE): mobilizer parameters
    "R_PF",       # (nb, 3, 3): inboard frame F on the parent P
    "p_PF",       # (nb, 3)
    "R_MB",       # (nb, 3, 3): the body frame B on the outboard frame M (X_MB = X_BM⁻¹)
    "p_MB",       # (nb, 3)
    "mass",       # (nb,): kg
    "com_B",      # (nb, 3): mass center in B (m)
    "inertia_B",  # (nb, 3, 3): inertia about B's origin, in B (kg m²)
])

TreeCache = namedtuple("TreeCache", [
    # POSITION
    "R_FM", "p_FM",      # mobilizer transform X_FM
    "R_GF", "r_F",       # F's orientation in G; M's origin to B's origin, in F
    "R_GB", "p_GB",      # body transform X_GB
    "p_PB",              # parent origin to body origin, in G
    "H_F",               # (nb, 6, 6) hinge matrix in F: V_FM = H_F u (first nu columns)
    "H",                 # (nb, 6, 6) hinge matrix in G about B's origin: V_PB = H u
    "com_G",             # mass center offset from B's origin, in G
    "I_G",               # inertia about B's origin, in G
    # VELOCITY
    "V_FM",              # (nb, 6) in F
    "V_GB",              # (nb, 6)
    "V_PB",              # (nb, 6) relative velocity of B in P, in G
    "c",                 # (nb, 6) Coriolis/centripetal acceleration bias
    "b",                 # (nb, 6) gyroscopic force bias
    "hdot_u",            # (nb, 6) (dH_F/dt) u in F (the custom pre-pass writes its bodies')
    # articulated-body quantities: P, U, Dinv from positions; z, eps from forces
    "P", "U", "Dinv",
    "z", "eps",
    # ACCELERATION
    "A_GB",              # (nb, 6)
    # work space of the sweeps and operators (never results)
    "T",                 # (nb, 6, 6) per-body scratch
    "A_work", "F_work",  # (nb, 6) accelerations and forces of inverse dynamics
    "Ic", "Fc",          # (nb, 6, 6) composite inertias and force columns of CRBA
    "zero",              # (nb, 6) zeros: the bias terms of M u̇ products
    "status",            # (1,) int64: 0 ok, else 1 + index of a body whose D is singular
])

kernel = numba.njit(cache=True, _nrt=False)
"""Decorator of the tree sweeps. They allocate nothing, so they are compiled without
numba's reference-counting runtime: a view of a body's row (``cache.H[b]``) then costs no
atomic reference-count updates, which halves the time of the sweeps. An allocation inside
a kernel fails to compile, which keeps the hot path free of them."""

_TREE_FLOATS_PER_BODY = PARAM_SIZE + 9 + 3 + 9 + 3 + 1 + 3 + 9
_CACHE_FLOATS_PER_BODY = 411


@numba.njit(cache=True, inline="always")
def _take(buf, at, n):
    return buf[at:at + n], at + n


@numba.njit(cache=True, inline="always")
def unpack_tree(tree_i, tree_f):
    """TreeModel views of the model buffers: ``tree_i`` (6, nb) int64, ``tree_f`` flat."""
    nb = tree_i.shape[1]
    at = 0
    prm, at = _take(tree_f, at, nb * PARAM_SIZE)
    R_PF, at = _take(tree_f, at, nb * 9)
    p_PF, at = _take(tree_f, at, nb * 3)
    R_MB, at = _take(tree_f, at, nb * 9)
    p_MB, at = _take(tree_f, at, nb * 3)
    mass, at = _take(tree_f, at, nb)
    com_B, at = _take(tree_f, at, nb * 3)
    inertia_B, at = _take(tree_f, at, nb * 9)
    return TreeModel(tree_i[0], tree_i[1], tree_i[2], tree_i[3], tree_i[4], tree_i[5],
                     prm.reshape((nb, PARAM_SIZE)), R_PF.reshape((nb, 3, 3)),
                     p_PF.reshape((nb, 3)), R_MB.reshape((nb, 3, 3)), p_MB.reshape((nb, 3)),
                     mass, com_B.reshape((nb, 3)), inertia_B.reshape((nb, 3, 3)))


@numba.njit(cache=True, inline="always")
def unpack_cache(buf, status):
    """TreeCache views of the flat cache buffer (``nb * _CACHE_FLOATS_PER_BODY`` floats)
    and the status array."""
    nb = buf.shape[0] // _CACHE_FLOATS_PER_BODY
    at = 0
    m33 = (nb, 3, 3)
    m66 = (nb, 6, 6)
    v3 = (nb, 3)
    v6 = (nb, 6)
    R_FM, at = _take(buf, at, nb * 9)
    p_FM, at = _take(buf, at, nb * 3)
    R_GF, at = _take(buf, at, nb * 9)
    r_F, at = _take(buf, at, nb * 3)
    R_GB, at = _take(buf, at, nb * 9)
    p_GB, at = _take(buf, at, nb * 3)
    p_PB, at = _take(buf, at, nb * 3)
    H_F, at = _take(buf, at, nb * 36)
    H, at = _take(buf, at, nb * 36)
    com_G, at = _take(buf, at, nb * 3)
    I_G, at = _take(buf, at, nb * 9)
    V_FM, at = _take(buf, at, nb * 6)
    V_GB, at = _take(buf, at, nb * 6)
    V_PB, at = _take(buf, at, nb * 6)
    c, at = _take(buf, at, nb * 6)
    b, at = _take(buf, at, nb * 6)
    hdot_u, at = _take(buf, at, nb * 6)
    P, at = _take(buf, at, nb * 36)
    U, at = _take(buf, at, nb * 36)
    Dinv, at = _take(buf, at, nb * 36)
    z, at = _take(buf, at, nb * 6)
    eps, at = _take(buf, at, nb * 6)
    A_GB, at = _take(buf, at, nb * 6)
    T, at = _take(buf, at, nb * 36)
    A_work, at = _take(buf, at, nb * 6)
    F_work, at = _take(buf, at, nb * 6)
    Ic, at = _take(buf, at, nb * 36)
    Fc, at = _take(buf, at, nb * 36)
    zero, at = _take(buf, at, nb * 6)
    return TreeCache(
        R_FM.reshape(m33), p_FM.reshape(v3), R_GF.reshape(m33), r_F.reshape(v3),
        R_GB.reshape(m33), p_GB.reshape(v3), p_PB.reshape(v3), H_F.reshape(m66),
        H.reshape(m66), com_G.reshape(v3), I_G.reshape(m33),
        V_FM.reshape(v6), V_GB.reshape(v6), V_PB.reshape(v6), c.reshape(v6), b.reshape(v6),
        hdot_u.reshape(v6),
        P.reshape(m66), U.reshape(m66), Dinv.reshape(m66), z.reshape(v6), eps.reshape(v6),
        A_GB.reshape(v6), T.reshape(m66), A_work.reshape(v6), F_work.reshape(v6),
        Ic.reshape(m66), Fc.reshape(m66), zero.reshape(v6), status)


def pack_tree(model: TreeModel) -> tuple[np.ndarray, np.ndarray]:
    """The two model buffers (tree_i, tree_f) holding ``model``'s arrays."""
    tree_i = np.array([model.parent, model.code, model.q_start, model.nq, model.u_start,
                       model.nu], dtype=np.int64)
    tree_f = np.concatenate([np.ascontiguousarray(a, dtype=float).ravel() for a in (
        model.prm, model.R_PF, model.p_PF, model.R_MB, model.p_MB, model.mass, model.com_B,
        model.inertia_B)])
    assert tree_f.size == tree_i.shape[1] * _TREE_FLOATS_PER_BODY
    return tree_i, tree_f


def allocate_cache(nb: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed cache buffers (buf, status) for a tree of ``nb`` bodies (Ground included);
    Ground's orientation is the identity."""
    buf = np.zeros(nb * _CACHE_FLOATS_PER_BODY)
    status = np.zeros(1, dtype=np.int64)
    unpack_cache(buf, status).R_GB[0] = np.eye(3)
    return buf, status
