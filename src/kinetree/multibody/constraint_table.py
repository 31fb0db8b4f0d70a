"""The enabled constraints of a State as flat arrays (the constraint rows of MuJoCo's
``efc_*``, with Simbody's equation layout), and the work space the compiled constraint
kernels fill (``kernels/constraints.py``).

Laid out at INSTANCE, once per State:

- ``con_i`` (nc, CON_COLUMNS) int64: one row per enabled constraint, the columns named
  below: its type code (``registry.CONSTRAINTS``), its ancestor body A, where its
  constrained bodies and mobilities sit in ``con_index``, where its equations sit in the
  error arrays, and where its parameters start in ``con_f``.
- ``con_index`` int64: a header (HEADER entries: the slot counts and equation counts),
  then the mobilized body of every constrained-body slot, the global u index of every
  constrained-mobility slot, and m integers of pivot work space.
- ``con_f`` float64: each constraint's parameters (stations, axes, lengths, ...), which
  its setters change per State; a Custom constraint's rows G and bias, written by its
  Python pre-pass.
- ``con_buf`` float64: the work space ``unpack_constraints`` names (``ConstraintWork``).

The errors are Simbody's: qerr = perr (mp); uerr = [pverr; verr] (mp + mv); udoterr =
[paerr; vaerr; aerr] (m = mp + mv + ma), one multiplier per udoterr entry.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from kinetree.multibody.kernels.aba import BLOCK
from kinetree.multibody.tree_model import take_view

(CODE, ANCESTOR, BODY0, NBODIES, USLOT0, NU, P_ROW, MP, V_ROW, MV, A_ROW, MA,
 PARAMS) = range(13)
CON_COLUMNS = 13
"""Columns of ``con_i``: V_ROW is the first verr entry in uerr (and vaerr's in udoterr),
A_ROW the first aerr entry in udoterr; P_ROW the first perr entry (the same in all
three)."""

HEADER = 9
"""con_index[:HEADER] = [body slots, mobility slots, m, mp, mv, ma, most bodies of one
constraint, most mobilities of one constraint, bodies of the tree]."""

ConstraintWork = namedtuple("ConstraintWork", [
    "rows",       # (nc, CON_COLUMNS) int64: con_i
    "bodies",     # (body slots,) int64: mobilized body of each constrained-body slot
    "u_index",    # (mobility slots,) int64: global u of each constrained-mobility slot
    "pivots",     # (m,) int64: work space of the pivoted factorization
    "params",     # con_f
    "R_AB",       # (body slots, 3, 3): each constrained body's orientation in its A
    "p_AB",       # (body slots, 3): its origin from A's origin, in A (m)
    "V_AB",       # (body slots, 6): [w; v] in A, derivative taken in A (rad/s; m/s)
    "A_AB",       # (body slots, 6): [α; a] in A, for the accelerations last evaluated
    "F_A",        # (most bodies, 6): one constraint's body forces, about origins, in A
    "u_c",        # (most mobilities,): one constraint's u or u̇
    "f_c",        # (most mobilities,): its mobility forces
    "lam_c",      # (m,): its multipliers
    "err_c",      # (m,): its errors
    "G",          # (m, nu): the constraint matrix, udoterr = G u̇ + bias
    "Y",          # (m, nu): rows of M⁻¹ Gᵀ
    "L",          # (m, m): the pivoted Cholesky factor of G M⁻¹ Gᵀ (or of G Gᵀ)
    "S",          # (m, m): work space of the rank-deficient solve
    "sweep_Z",    # (nb, 6, BLOCK): articulated forces of the M⁻¹ Gᵀ sweeps
    "sweep_A",    # (nb, 6, BLOCK): their body accelerations
    "sweep_E",    # (nu, BLOCK): their ε
    "sweep_T",    # (2, 6, BLOCK): their per-body work space
    "rhs",        # (m,)
    "lam",        # (m,)
    "q",          # (nq,): the tree's q, for constraints on coordinates
    "u",          # (nu,): the tree's u
    "m", "mp", "mv", "ma",
])


@numba.njit(cache=True, inline="always")
def unpack_constraints(con_i, con_index, con_f, con_buf, q, u):
    """ConstraintWork views of the constraint arrays for a tree whose generalized
    coordinates and speeds are ``q`` and ``u``."""
    nu = u.shape[0]
    nbs, nus, m = con_index[0], con_index[1], con_index[2]
    kmax, numax, nb = con_index[6], con_index[7], con_index[8]
    at = HEADER
    bodies = con_index[at:at + nbs]
    at += nbs
    u_index = con_index[at:at + nus]
    at += nus
    pivots = con_index[at:at + m]
    R_AB, at = take_view(con_buf, 0, (nbs, 3, 3))
    p_AB, at = take_view(con_buf, at, (nbs, 3))
    V_AB, at = take_view(con_buf, at, (nbs, 6))
    A_AB, at = take_view(con_buf, at, (nbs, 6))
    F_A, at = take_view(con_buf, at, (kmax, 6))
    u_c, at = take_view(con_buf, at, (numax,))
    f_c, at = take_view(con_buf, at, (numax,))
    lam_c, at = take_view(con_buf, at, (m,))
    err_c, at = take_view(con_buf, at, (m,))
    G, at = take_view(con_buf, at, (m, nu))
    Y, at = take_view(con_buf, at, (m, nu))
    L, at = take_view(con_buf, at, (m, m))
    S, at = take_view(con_buf, at, (m, m))
    sweep_Z, at = take_view(con_buf, at, (nb, 6, BLOCK))
    sweep_A, at = take_view(con_buf, at, (nb, 6, BLOCK))
    sweep_E, at = take_view(con_buf, at, (nu, BLOCK))
    sweep_T, at = take_view(con_buf, at, (2, 6, BLOCK))
    rhs, at = take_view(con_buf, at, (m,))
    lam, at = take_view(con_buf, at, (m,))
    return ConstraintWork(con_i, bodies, u_index, pivots, con_f, R_AB, p_AB, V_AB, A_AB,
                          F_A, u_c, f_c, lam_c, err_c, G, Y, L, S, sweep_Z, sweep_A, sweep_E,
                          sweep_T, rhs, lam, q, u, m,
                          con_index[3], con_index[4], con_index[5])


def work_size(body_slots: int, kmax: int, numax: int, m: int, nu: int, nb: int) -> int:
    """The floats of ``con_buf``, as ``unpack_constraints`` carves them."""
    return (body_slots * 24 + kmax * 6 + 2 * numax + 4 * m + 2 * m * nu + 2 * m * m
            + (12 * nb + nu + 12) * BLOCK)


def work_views(con_i, con_index, con_f, con_buf, q, u) -> ConstraintWork:
    """``unpack_constraints`` for Python: the same views, made by numpy."""
    return unpack_constraints.py_func(con_i, con_index, con_f, con_buf, q, u)


def pack_constraints(entries: list, nu: int, nb: int, mp: int, mv: int, ma: int) -> tuple:
    """(con_i, con_index, con_f, con_buf) for the enabled constraints ``entries`` of a tree
    of ``nu`` mobilities and ``nb`` bodies (Ground included), each
    (code, ancestor, bodies, u_index, (p_row, mp), (v_row, mv), (a_row, ma), params) with
    rows as in ``con_i``."""
    nc = len(entries)
    con_i = np.zeros((nc, CON_COLUMNS), dtype=np.int64)
    bodies = [np.asarray(e[2], dtype=np.int64) for e in entries]
    u_index = [np.asarray(e[3], dtype=np.int64) for e in entries]
    params = [np.asarray(e[7], dtype=float) for e in entries]
    nbs = sum(len(b) for b in bodies)
    nus = sum(len(u) for u in u_index)
    m = mp + mv + ma
    body_at = u_at = f_at = 0
    for c, (code, ancestor, _, _, p, v, a, _) in enumerate(entries):
        con_i[c] = (code, ancestor, body_at, len(bodies[c]), u_at, len(u_index[c]), p[0],
                    p[1], v[0], v[1], a[0], a[1], f_at)
        body_at += len(bodies[c])
        u_at += len(u_index[c])
        f_at += len(params[c])
    kmax = max((len(b) for b in bodies), default=0)
    numax = max((len(u) for u in u_index), default=0)
    header = np.array([nbs, nus, m, mp, mv, ma, kmax, numax, nb], dtype=np.int64)
    con_index = np.concatenate([header, *bodies, *u_index, np.zeros(m, dtype=np.int64)])
    con_f = np.concatenate([np.zeros(0), *params])
    con_buf = np.zeros(work_size(nbs, kmax, numax, m, nu, nb))
    con_index = con_index.astype(np.int64)
    work = work_views(con_i, con_index, con_f, con_buf, np.zeros(0), np.zeros(nu))
    assert work.lam.size == 0 or work.lam.ctypes.data + work.lam.nbytes == \
        con_buf.ctypes.data + con_buf.nbytes, "work_size disagrees with unpack_constraints"
    return con_i, con_index, con_f, con_buf
