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

import math
from collections import namedtuple

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

PARAM_SIZE = 4
"""Per-mobilizer constant parameters (screw pitch, ...): the width of the parameter rows
of a model whose mobilizers need no more. A model with a mobilizer whose row is longer (a
compiled FunctionBased's function tables) has rows of the longest width; every kind reads
only its own row, and ``unpack_tree`` recovers the width from the buffer's size."""

TreeModel = namedtuple("TreeModel", [
    "parent",     # (nb,) int64: parent body index (-1 for Ground)
    "code",       # (nb,) int64: mobilizer type code
    "q_start",    # (nb,) int64: first q of the body's mobilizer
    "nq",         # (nb,) int64
    "u_start",    # (nb,) int64: first u of the body's mobilizer
    "nu",         # (nb,) int64
    "reversed",   # (nb,) int64: 1 if the mobilizer is reversed (its q define X_MF, not X_FM)
    "prm",        # (nb, W): mobilizer parameters, W >= PARAM_SIZE (the longest row)
    "R_PF",       # (nb, 3, 3): inboard frame F on the parent P
    "p_PF",       # (nb, 3)
    "R_MB",       # (nb, 3, 3): the body frame B on the outboard frame M (X_MB = X_BM⁻¹)
    "p_MB",       # (nb, 3)
    "mass",       # (nb,): kg
    "com_B",      # (nb, 3): mass center in B (m)
    "inertia_B",  # (nb, 3, 3): inertia about B's origin, in B (kg m²)
    "kinds",      # Kinds of the mobilizer types in ``code`` (engine/kinds.py)
])

TreeCache = namedtuple("TreeCache", [
    # POSITION
    "R_FM", "p_FM",      # mobilizer transform X_FM
    "R_GF", "r_F",       # F's orientation in G; M's origin to B's origin, in F
    "R_GB", "p_GB",      # body transform X_GB
    "p_PB",              # parent origin to body origin, in G
    # The 6 x nu matrices H_F, H and U are stored by columns, one row per mobility: row
    # u_start[b] + j of H_cols is column j of body b's H (``mobility_rows(tree,
    # cache.H_cols, b).T`` is H). A one-mobility body's H is then 6 contiguous floats.
    "H_F_cols",          # (nu, 6) hinge matrix in F: V_FM = H_F u
    "H_cols",            # (nu, 6) hinge matrix in G about B's origin: V_PB = H u
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
    "P",                 # (nb, 6, 6)
    "U_cols",            # (nu, 6) U = P H, by columns as H_cols
    "Dinv",              # (nu, 6): row u_start[b] + j holds row j of body b's nu x nu D⁻¹
    "z",                 # (nb, 6)
    "eps",               # (nu,)
    # ACCELERATION
    "A_GB",              # (nb, 6)
    # work space of the sweeps and operators (never results)
    "A_work", "F_work",  # (nb, 6) accelerations and forces of inverse dynamics
    "Ic",                # (nb, 6, 6) composite inertias of CRBA
    "zero",              # (nb, 6) zeros: the bias terms of M u̇ products
    "T", "Fc",           # (6, 6) scratch of one body's step; CRBA's force columns
    "M_dense",           # (nu, nu) for nu <= DENSE_LIMIT, else (0, 0): the mass matrix and
                         # its Cholesky factor (lower triangle) when the tree is solved by M
    # prescribed motion (locks and Motions, ``multibody/motion.py``), set at INSTANCE
    "q_presc",           # (nq,) the q of bodies prescribed at POSITION with constant values
    "u_presc",           # (nu,) the u of bodies prescribed at VELOCITY or POSITION (constant)
    "udot_presc",        # (nu,) the u̇ of bodies prescribed at any level (constant)
    "motion_prm",        # (nb, 3) a sinusoid's amplitude, rate (rad/s) and phase (rad)
    "tau",               # (nu,) ACCELERATION: the prescribed mobilities' motion forces τ
    "time",              # (1,) the time (s) the prescribed motion is evaluated at
    "level",             # (nb,) int64 view of status: the level at which each body's motion
                         # is prescribed: FREE, or PRESCRIBED_ACCELERATION/_VELOCITY/_POSITION
    "method",            # (nb,) int64 view of status: CONSTANT (the *_presc arrays) or SINUSOID
    "status",            # (10 + 2 nb,) int64: [0 ok, else 1 + index of a body whose D is
                         # singular; nb; nu; M_dense's size; 1 if u̇ comes from M_dense, else
                         # 0; nq; the number of prescribed bodies; 1 if inconsistent
                         # constraints fail a realization; 1 once they were met; 1 while q̈
                         # is deferred; level; method]
])

FREE, PRESCRIBED_ACCELERATION, PRESCRIBED_VELOCITY, PRESCRIBED_POSITION = 0, 1, 2, 3
"""cache.level of a body: its motion comes from forces, or is known from the given level
down (a body prescribed at POSITION has known q, u and u̇; at VELOCITY u and u̇)."""

CONSTANT, SINUSOID = 0, 1
"""cache.method of a prescribed body: its values are those of q_presc, u_presc and
udot_presc (locks, Motion.Steady, and a Motion.Custom's values written before each stage),
or a sinusoid of time a sin(ω t + φ) at its level (Motion.Sinusoid)."""

PRESCRIBED_COUNT, RAISE_INCONSISTENT, INCONSISTENT_SEEN, QDOTDOT_DEFERRED, LEVELS = \
    6, 7, 8, 9, 10
"""status[PRESCRIBED_COUNT] is the number of prescribed bodies; status[RAISE_INCONSISTENT]
is 1 where a realization whose constraints have no solution fails (else it keeps the
least-squares u̇ and multipliers, and sets status[INCONSISTENT_SEEN] for Python to warn);
status[QDOTDOT_DEFERRED] is 1 while a compiled run of steps realizes its derivatives,
which need no q̈: the run computes q̈ once when it returns; the levels start at
status[LEVELS], the methods nb entries later."""

DENSE_LIMIT = 64
"""The most mobilities for which the cache holds a dense mass matrix (32 KB), the
articulated-body method's fallback for ill-conditioned trees (``kernels/dense.py``)."""

kernel = numba.njit(cache=True, _nrt=False)
"""Decorator of the tree sweeps. They allocate nothing, so they are compiled without
numba's reference-counting runtime: a view of a body's row (``cache.P[b]``) then costs no
atomic reference-count updates, which halves the time of the sweeps. An allocation inside
a kernel fails to compile, which keeps the hot path free of them.

The helpers the sweeps call are ``kinetree.jit.helper``s (``forceinline=True``, compiled
to LLVM code only): each is typed and lowered once and LLVM inlines it into its callers,
which keeps the arithmetic as fast as spelled-out loops.
numba's own inlining (``inline="always"``) gives the same code but types every helper
again at every call site, which tripled the first compilation of the realization; only
the unpacking functions below, which return views, keep it."""

_TREE_FLOATS_PER_BODY = PARAM_SIZE + 9 + 3 + 9 + 3 + 1 + 3 + 9
_CACHE_FLOATS_PER_BODY = 192
_CACHE_FLOATS_PER_MOBILITY = 28
_CACHE_FLOATS_SHARED = 73


def take_view(buf, at, shape):
    """(view, at + its size): the items of a flat C-ordered ``buf`` from ``at`` on, seen
    as a C-ordered array of ``shape`` (a tuple of integers). The unpacking functions
    below run compiled inside the kernels and as plain numpy in Python (their
    ``py_func``), which gives Python the same views without compiling a function that
    returns forty arrays to it."""
    size = math.prod(shape)
    return buf[at:at + size].reshape(shape), at + size


@intrinsic
def _take_view(typingctx, buf, at, shape):
    """take_view in compiled code: ``buf[at:].reshape`` without the runtime call numba's
    reshape makes to check the strides; with some forty views per unpacking, that call
    was a microsecond of every kernel launch. The caller keeps the views inside ``buf``;
    the view holds ``buf``'s memory like any slice."""
    if not (isinstance(buf, types.Array) and buf.ndim == 1 and buf.layout == "C"
            and isinstance(at, types.Integer) and isinstance(shape, types.BaseTuple)
            and all(isinstance(d, types.Integer) for d in shape)):
        return None
    view_type = types.Array(buf.dtype, len(shape), "C")
    result_type = types.Tuple((view_type, types.intp))

    def codegen(context, builder, sig, args):
        buf_value, at_value, shape_value = args
        source = make_array(buf)(context, builder, buf_value)
        dims = [context.cast(builder, d, t, types.intp)
                for d, t in zip(cgutils.unpack_tuple(builder, shape_value), shape)]
        start = context.cast(builder, at_value, at, types.intp)
        strides = [source.itemsize]
        for d in reversed(dims[1:]):
            strides.insert(0, builder.mul(strides[0], d))
        size = dims[0]
        for d in dims[1:]:
            size = builder.mul(size, d)
        view = make_array(view_type)(context, builder)
        populate_array(view, data=builder.gep(source.data, [start]), shape=dims,
                       strides=strides, itemsize=source.itemsize, meminfo=source.meminfo,
                       parent=source.parent)
        view_value = impl_ret_borrowed(context, builder, view_type, view._getvalue())
        return context.make_tuple(builder, result_type,
                                  [view_value, builder.add(start, size)])

    return result_type(buf, at, shape), codegen


@overload(take_view, inline="always")
def _take_view_overload(buf, at, shape):
    return lambda buf, at, shape: _take_view(buf, at, shape)


@numba.njit(cache=True, inline="always")
def unpack_tree(tree_i, tree_f, kinds):
    """TreeModel views of the model buffers: ``tree_i`` (nb, 7) int64, one row of
    integers per body (every sweep reads several of a body's at once), ``tree_f`` flat;
    ``kinds`` the Kinds of its mobilizers, which the hinge switches are compiled for."""
    nb = tree_i.shape[0]
    m33 = (nb, 3, 3)
    v3 = (nb, 3)
    width = tree_f.shape[0] // nb - (_TREE_FLOATS_PER_BODY - PARAM_SIZE)
    prm, at = take_view(tree_f, 0, (nb, width))
    R_PF, at = take_view(tree_f, at, m33)
    p_PF, at = take_view(tree_f, at, v3)
    R_MB, at = take_view(tree_f, at, m33)
    p_MB, at = take_view(tree_f, at, v3)
    mass, at = take_view(tree_f, at, (nb,))
    com_B, at = take_view(tree_f, at, v3)
    inertia_B, at = take_view(tree_f, at, m33)
    return TreeModel(tree_i[:, 0], tree_i[:, 1], tree_i[:, 2], tree_i[:, 3], tree_i[:, 4],
                     tree_i[:, 5], tree_i[:, 6],
                     prm, R_PF, p_PF, R_MB, p_MB, mass, com_B, inertia_B, kinds)


@numba.njit(cache=True, inline="always")
def unpack_cache(buf, status):
    """TreeCache views of the flat cache buffer (``nb * _CACHE_FLOATS_PER_BODY + nu *
    _CACHE_FLOATS_PER_MOBILITY + _CACHE_FLOATS_SHARED`` floats, then the dense mass
    matrix's and nq for q_presc) and the status array, which also holds nb, nu, nq, the
    dense size and each body's prescribed motion. The time is the buffer's last float, so
    compiled callers can set it without unpacking. The scratch T and Fc are shared by all
    bodies, so a step's temporaries stay in L1 instead of streaming through memory with
    the per-body rows."""
    nb, nu = status[1], status[2]
    m33 = (nb, 3, 3)
    m66 = (nb, 6, 6)
    v3 = (nb, 3)
    v6 = (nb, 6)
    R_FM, at = take_view(buf, 0, m33)
    p_FM, at = take_view(buf, at, v3)
    R_GF, at = take_view(buf, at, m33)
    r_F, at = take_view(buf, at, v3)
    R_GB, at = take_view(buf, at, m33)
    p_GB, at = take_view(buf, at, v3)
    p_PB, at = take_view(buf, at, v3)
    H_F_cols, at = take_view(buf, at, (nu, 6))
    H_cols, at = take_view(buf, at, (nu, 6))
    com_G, at = take_view(buf, at, v3)
    I_G, at = take_view(buf, at, m33)
    V_FM, at = take_view(buf, at, v6)
    V_GB, at = take_view(buf, at, v6)
    V_PB, at = take_view(buf, at, v6)
    c, at = take_view(buf, at, v6)
    b, at = take_view(buf, at, v6)
    hdot_u, at = take_view(buf, at, v6)
    P, at = take_view(buf, at, m66)
    U_cols, at = take_view(buf, at, (nu, 6))
    Dinv, at = take_view(buf, at, (nu, 6))
    z, at = take_view(buf, at, v6)
    eps, at = take_view(buf, at, (nu,))
    A_GB, at = take_view(buf, at, v6)
    A_work, at = take_view(buf, at, v6)
    F_work, at = take_view(buf, at, v6)
    Ic, at = take_view(buf, at, m66)
    zero, at = take_view(buf, at, v6)
    T, at = take_view(buf, at, (6, 6))
    Fc, at = take_view(buf, at, (6, 6))
    M_dense, at = take_view(buf, at, (status[3], status[3]))
    q_presc, at = take_view(buf, at, (status[5],))
    u_presc, at = take_view(buf, at, (nu,))
    udot_presc, at = take_view(buf, at, (nu,))
    motion_prm, at = take_view(buf, at, (nb, 3))
    tau, at = take_view(buf, at, (nu,))
    time, at = take_view(buf, at, (1,))
    level = status[LEVELS:LEVELS + nb]
    method = status[LEVELS + nb:LEVELS + 2 * nb]
    return TreeCache(R_FM, p_FM, R_GF, r_F, R_GB, p_GB, p_PB, H_F_cols, H_cols, com_G,
                     I_G, V_FM, V_GB, V_PB, c, b, hdot_u, P, U_cols, Dinv, z, eps, A_GB,
                     A_work, F_work, Ic, zero, T, Fc, M_dense, q_presc, u_presc,
                     udot_presc, motion_prm, tau, time, level, method, status)


def cache_views(buf: np.ndarray, status: np.ndarray) -> TreeCache:
    """``unpack_cache`` for Python: the same views, made by numpy."""
    return unpack_cache.py_func(buf, status)


def pack_tree(model: TreeModel) -> tuple[np.ndarray, np.ndarray]:
    """The two model buffers (tree_i, tree_f) holding ``model``'s arrays (its ``kinds``
    travels beside them)."""
    tree_i = np.array([model.parent, model.code, model.q_start, model.nq, model.u_start,
                       model.nu, model.reversed], dtype=np.int64).T.copy()
    tree_f = np.concatenate([np.ascontiguousarray(a, dtype=float).ravel() for a in (
        model.prm, model.R_PF, model.p_PF, model.R_MB, model.p_MB, model.mass, model.com_B,
        model.inertia_B)])
    assert tree_f.size == tree_i.shape[0] * (
        _TREE_FLOATS_PER_BODY - PARAM_SIZE + np.shape(model.prm)[1])
    return tree_i, tree_f


def allocate_cache(nb: int, nu: int, nq: int,
                   raise_inconsistent: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed cache buffers (buf, status) for a tree of ``nb`` bodies (Ground included),
    ``nu`` mobilities and ``nq`` coordinates, every body free; Ground's orientation is the
    identity. ``raise_inconsistent``: status[RAISE_INCONSISTENT]."""
    dense = nu if nu <= DENSE_LIMIT else 0
    buf = np.zeros(nb * _CACHE_FLOATS_PER_BODY + nu * _CACHE_FLOATS_PER_MOBILITY
                   + _CACHE_FLOATS_SHARED + dense * dense + nq)
    status = np.zeros(LEVELS + 2 * nb, dtype=np.int64)
    status[1:6] = nb, nu, dense, 0, nq
    status[RAISE_INCONSISTENT] = int(raise_inconsistent)
    cache = cache_views(buf, status)
    assert cache.time.ctypes.data + 8 == buf.ctypes.data + buf.nbytes, \
        "the _CACHE_FLOATS_* sizes disagree with unpack_cache's fields"
    cache.R_GB[0] = np.eye(3)
    return buf, status


@numba.njit(cache=True, inline="always")
def mobility_rows(tree, rows, b):
    """Body b's nu rows of a per-mobility cache array (H_cols, U_cols, Dinv, eps)."""
    us = tree.u_start[b]
    return rows[us:us + tree.nu[b]]


def numba_types():
    """(numba's type of a TreeModel, of a TreeCache) as compiled code unpacks them from
    writable buffers: the declared argument types of the compiled functions that take
    them through an address (a force element's ``calc``, ``engine/kinds.py``)."""
    from kinetree.engine.kinds import Kinds

    nb, nu, nq = 3, 2, 2      # sizes at which numpy's views have compiled code's layouts
    tree_i = np.zeros((nb, 7), dtype=np.int64)
    tree_f = np.zeros(nb * _TREE_FLOATS_PER_BODY)
    tree = unpack_tree.py_func(tree_i, tree_f, Kinds("mobilizers"))
    return numba.typeof(tree), numba.typeof(cache_views(*allocate_cache(nb, nu, nq)))
