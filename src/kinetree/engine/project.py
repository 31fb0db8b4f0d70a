"""Projection onto the constraints (Simbody's ``project``), one definition for every caller.

``project_steps`` moves the q and u of an EngineModel/EngineData pair (``data.py``) onto
the constraint manifold by the steps of Simbody's projectQ and projectU:

  q   Newton steps on the position errors perr (P = ∂perr/∂u): Δu = -M Pᵀ (P M Pᵀ)⁺ perr
      and q += N Δu, with M = Wu⁻¹ N⁺ N⁺ᵀ Wu⁻¹ block by mobilizer, so that Δq = N Δu is
      the change smallest in the q-space norm |Wu N⁺ Δq| that zeroes the linearized
      errors (Wu the u weights, 1 over a unit change). Quaternions are normalized
      before the first step (so the metric does not depend on their scale) and after
      every step. At most MAX_Q_ITERATIONS steps.
  u   the same on the velocity errors uerr with M = Eu², Eu = max(|u|, 1/Wu) at the
      start (changes relative to the speeds), to u += Δu; at most MAX_U_ITERATIONS.

The errors are measured by the RMS (with INFINITY_NORM, the largest) of each error times
its weight (1 over its unit error; 1 by default). A projection moves q (u) only where that
norm exceeds the tolerance (with FORCE, q where it exceeds OVERSHOOT times it, the
tolerance the steps try for: an integrator's every-step projection keeps positions that
tight and corrects speeds only where they are out of tolerance), and fails where it
ends above the tolerance, putting q (u) back if they got no better. With LOCAL (the
projection of a step's end) the steps stop where the norm grows: near a solution it
should not.

It is resumable, like the run of steps (``step.py``): where it stands is kept in its
control arrays. Given the address of the compiled realization it realizes the State
itself and runs to the end in one call; that is how a compiled run of steps projects.
Given none (a model with Python in its realization, custom mobilizers or Python
constraints) it stops to ask its caller to realize the State, to write the Python
constraints' rows of G, the custom mobilizers' N⁺ blocks or their blocks of N Δu (the
NEED_* codes), and is called again to go on; that is how ``SimbodyMatterSubsystem``'s
``project_q`` and ``project_u`` run it. Both take the same steps.
"""

import numba
import numpy as np

from kinetree.engine.entry import call_native, entry_point
from kinetree.jit import helper
from kinetree.multibody.constraint_table import unpack_constraints
from kinetree.multibody.kernels import hinge
from kinetree.multibody.kernels.constraints import constraint_rows, solve_semidefinite
from kinetree.multibody.kernels.n_matrix import n_sweep, normalize_quaternions
from kinetree.multibody.kernels.small import copy_vector as _copy
from kinetree.multibody.mobilizers.custom import IDENTITY_N
from kinetree.multibody.tree_model import (
    PRESCRIBED_POSITION,
    PRESCRIBED_VELOCITY,
    unpack_cache,
    unpack_tree,
)
from kinetree.registry import MOBILIZERS
from kinetree.system.stage import Stage

POSITION, VELOCITY = int(Stage.POSITION), int(Stage.VELOCITY)
CUSTOM = MOBILIZERS["custom"]

MAX_Q_ITERATIONS = 20
MAX_U_ITERATIONS = 7
OVERSHOOT = 0.1
"""Simbody's limits: at most 20 Newton steps for q and 7 for u, each trying for OVERSHOOT
of the tolerance and settling for the tolerance."""

SIGNIFICANT = np.finfo(float).eps ** 0.875
"""Errors this small are zero (Simbody's SignificantReal): no step tries below."""

PROJECTED, NOT_NEEDED, PROJECTION_FAILED = 0, -1, -2
"""What a projection returns when done (or the failure code of a realization)."""

NEED_POSITION, NEED_VELOCITY, NEED_ROWS, NEED_N, NEED_N_INV = 20, 21, 22, 23, 24
"""What a projection without a realization address asks its caller, to be called again
after: the State realized through POSITION (or VELOCITY) at data.q and data.u (q
changed since the last request if control_i[Q_CHANGED]); the Python constraints' first
control_i[ROWS] rows of G written into the constraint table; the custom mobilizers'
blocks of dq = N du written (scratch rows DQ and DU); the N⁺ blocks (nu x nq, row by
row, body after body) of the custom mobilizers whose N is not the identity written from
the start of scratch row N_INV on."""

FORCE, DO_Q, DO_U, PYTHON_ROWS, PYTHON_N, LOCAL, INFINITY_NORM = 1, 2, 4, 8, 16, 32, 64
"""Flags of control_i[FLAGS]: project q where its errors exceed OVERSHOOT times the
tolerance; project q; project u; ask for the Python constraints' rows; ask for the
custom mobilizers' N and N⁺; stop where the errors grow; measure the largest error
rather than the RMS."""

PHASE, FLAGS, ITERATIONS, U_ITERATIONS, ROWS, WORST_ROW, Q_CHANGED, U_CHANGED, MOVED = \
    range(9)
N_CONTROL_I = 9
TOLERANCE, WORST, ENTRY_NORM, NORM, U_CHANGE = 0, 1, 2, 3, 4
N_CONTROL_F = 5
"""The control arrays: control_i (int64) holds where the projection stands, its flags,
the Newton steps taken on q and on u, the rows asked for, the row of the largest
position error, whether q (u) changed since the last request and whether the
projection moved q or u at all; control_f (float64) the
tolerance, that largest error, the error norm at the start of the q (u) projection and
now, and the largest change of u."""

Q_START, DQ, DU, U_SCALE, P_WEIGHTS, PV_WEIGHTS, Q_ENTRY, U_ENTRY, U_REL, CONTROL_F = \
    range(10)
METRIC = 10
N_INV = METRIC + 8
"""The rows of a projection's scratch (``new_scratch``): q at a step's start, its N Δu
and Δu; the inputs 1/Wu (one per u) and the weights of perr and of uerr; q and u at the
start; Eu; a compiled run's control_f; eight rows of a mobilizer's N⁺ block and products
(``_q_metric``); and from row N_INV on the custom mobilizers' N⁺ blocks."""

START, ENTERED, Q_STEP, Q_METRIC, Q_N, Q_TRY, Q_TRIED, Q_DONE, U_ENTERED, U_STEP, \
    U_TRIED, U_DONE = range(12)
"""Where a projection stands (control_i[PHASE])."""


def new_scratch(nq: int, nu: int, m: int, n_inv_size: int = 0) -> np.ndarray:
    """Scratch for ``project_steps`` of nq q, nu u and m constraint equations, with room
    for ``n_inv_size`` numbers of custom N⁺ blocks; every weight 1."""
    width = max(nq, nu, m, N_CONTROL_F, 7)
    scratch = np.zeros((N_INV + 1 + n_inv_size // width, width))
    scratch[U_SCALE:PV_WEIGHTS + 1] = 1.0
    return scratch


@helper
def _largest_at(a):
    """(the index of the largest |a_i|, that |a_i|); (-1, 0) for an empty a."""
    at, worst = -1, 0.0
    for i in range(a.shape[0]):
        if abs(a[i]) > worst or at < 0:
            at, worst = i, abs(a[i])
    return at, worst


@helper
def _norm(err, weights, infinity):
    """The RMS of weights_i err_i (with ``infinity``, the largest |weights_i err_i|); 0
    for no errors."""
    n = err.shape[0]
    s = 0.0
    for i in range(n):
        e = abs(weights[i] * err[i])
        s = max(s, e) if infinity else s + e * e
    return s if infinity or n == 0 else (s / n) ** 0.5


@helper
def _realized(realize, last, model, data, control_i, resume):
    """The State of ``model`` and ``data`` realized from POSITION through ``last`` by the
    compiled realization at ``realize``: 0, or its failure code. Without an address, the
    request to the caller (NEED_POSITION or NEED_VELOCITY), the projection to resume at
    phase ``resume``."""
    if realize == 0:
        control_i[PHASE] = resume
        return NEED_POSITION if last == POSITION else NEED_VELOCITY
    return call_native(realize, POSITION, last, model, data)


@helper
def _q_moved(realize, model, data, control_i, resume):
    """After q changed: its quaternions normalized, the change noted (Q_CHANGED) and the
    State realized through POSITION (``_realized``, resuming at ``resume``)."""
    normalize_quaternions(data.q, model.quaternion_q)
    control_i[Q_CHANGED] = 1
    control_i[MOVED] = 1
    return _realized(realize, POSITION, model, data, control_i, resume)


@helper
def _unchanged(flags, control_i):
    """What a projection that ends without a step returns: PROJECTED if it normalized
    quaternions or was forced (it counts as one), else NOT_NEEDED."""
    return PROJECTED if control_i[MOVED] or flags & FORCE else NOT_NEEDED


@helper
def _custom_n(tree, b):
    """Whether body b's N is a custom mobilizer's own (not the identity): its N products
    come from the caller."""
    return tree.code[b] == CUSTOM and tree.prm[b][0] != IDENTITY_N


@helper(forceinline=False)
def _q_metric(tree, cache, con, q, n, scratch, work):
    """con.Y[:n] = G[:n] M, M = S N⁺ N⁺ᵀ S block by mobilizer (S = diag(1/Wu), scratch
    row U_SCALE), zero for a mobilizer whose q is prescribed: the q-space metric of a q
    step. A custom mobilizer's N⁺ is read from scratch row N_INV on; ``work`` is (8, >= 7)
    scratch (rows METRIC on)."""
    G, Y, scale, width = con.G, con.Y, scratch[U_SCALE], scratch.shape[1]
    C, unit = work[:6], work[6]
    at = 0
    for b in range(1, tree.parent.shape[0]):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        custom = _custom_n(tree, b)
        if cache.level[b] == PRESCRIBED_POSITION:
            for i in range(n):
                for j in range(nu):
                    Y[i, us + j] = 0.0
        elif custom:
            for j in range(nu):
                for k in range(nq):
                    i = at + j * nq + k
                    C[j, k] = scratch[N_INV + i // width, i % width]
        else:
            for k in range(nq):
                unit[:nq] = 0.0
                unit[k] = 1.0
                hinge.n_inv_mult(tree.kinds, tree.code[b], q[qs:qs + nq], unit[:nq],
                                 tree.prm[b], work[7, :nu])
                for j in range(nu):
                    C[j, k] = work[7, j]
        if custom:
            at += nu * nq
        if cache.level[b] == PRESCRIBED_POSITION:
            continue
        for i in range(n):
            for k in range(nq):         # unit[k] = (Cᵀ S g)_k, g the row's block
                s = 0.0
                for j in range(nu):
                    s += C[j, k] * scale[us + j] * G[i, us + j]
                unit[k] = s
            for j in range(nu):
                s = 0.0
                for k in range(nq):
                    s += C[j, k] * unit[k]
                Y[i, us + j] = scale[us + j] * s


@helper(forceinline=False)
def _u_metric(tree, cache, con, n, rel):
    """con.Y[:n] = G[:n] M, M = diag(``rel``²), zero for the u of a mobilizer whose u is
    prescribed: the metric of a u step."""
    G, Y = con.G, con.Y
    for b in range(1, tree.parent.shape[0]):
        us, nu = tree.u_start[b], tree.nu[b]
        fixed = cache.level[b] >= PRESCRIBED_VELOCITY
        for i in range(n):
            for j in range(nu):
                Y[i, us + j] = 0.0 if fixed else G[i, us + j] * rel[us + j] ** 2


@helper(forceinline=False)
def _rows(kinds, tree, cache, con):
    """``constraint_rows``, compiled once for the two places a projection writes G."""
    constraint_rows(kinds, tree, cache, con)


@helper(forceinline=False)
def _smallest_step(con, n, err, du):
    """du = -M Gᵀ x, (G M Gᵀ) x = err over the first n rows (con.Y[:n] = G[:n] M): the
    change smallest in the metric M that zeroes the linearized errors, the minimum-norm
    least-squares one where the rows are dependent or inconsistent."""
    x = con.lam[:n]
    solve_semidefinite(con.G[:n], con.Y[:n], err, x, con.L[:n, :n], con.pivots[:n],
                       con.S[:n, :n], True)
    Y = con.Y
    for k in range(du.shape[0]):
        s = 0.0
        for i in range(n):
            s -= Y[i, k] * x[i]
        du[k] = s


@helper
def _q_failed(data, scratch, control_i, control_f):
    """End a q projection above the tolerance: q put back if it got no better (the
    largest error at the start kept), else the largest error now noted. Returns
    PROJECTION_FAILED."""
    if control_f[NORM] < control_f[ENTRY_NORM]:
        control_i[WORST_ROW], control_f[WORST] = _largest_at(data.qerr)
    else:
        q, q_entry = data.q, scratch[Q_ENTRY]
        for i in range(q.shape[0]):
            q[i] = q_entry[i]
        control_i[Q_CHANGED] = 1
    return PROJECTION_FAILED


@numba.njit(cache=True, _nrt=False)
def project_steps(model, data, realize, scratch, control_i, control_f):
    """Project data.q and data.u (module docstring) as control_i[FLAGS] asks, from where
    control_i[PHASE] says (START for a new projection); ``realize`` is the address of the
    compiled ``realize_stages`` or 0; ``scratch`` is ``new_scratch``'s, its weights set.
    Returns PROJECTED, NOT_NEEDED, PROJECTION_FAILED, a request (NEED_*) or a
    realization's failure code."""
    q, u, qerr, uerr = data.q, data.u, data.qerr, data.uerr
    nq, nu, mp, mpv = q.shape[0], u.shape[0], qerr.shape[0], uerr.shape[0]
    flags = control_i[FLAGS]
    infinity = flags & INFINITY_NORM != 0
    tolerance = control_f[TOLERANCE]
    target = max(OVERSHOOT * tolerance, SIGNIFICANT)
    threshold = target if flags & FORCE else tolerance      # for q
    tree = unpack_tree(model.tree_i, model.tree_f, model.mobilizer_kinds)
    cache = unpack_cache(data.buf, data.status)
    con = unpack_constraints(model.con_i, data.con_index, data.con_f, data.con_buf, q, u)
    q_start, dq, du = scratch[Q_START, :nq], scratch[DQ, :nq], scratch[DU, :nu]
    p_weights, pv_weights = scratch[P_WEIGHTS, :mp], scratch[PV_WEIGHTS, :mpv]
    q_entry, u_entry, rel = scratch[Q_ENTRY, :nq], scratch[U_ENTRY, :nu], scratch[U_REL, :nu]
    phase = control_i[PHASE]
    if phase == START:
        control_i[ITERATIONS] = 0
        control_i[U_ITERATIONS] = 0
        control_i[Q_CHANGED] = 0
        control_f[U_CHANGE] = 0.0
        _copy(q, q_entry)
        _copy(u, u_entry)
        if flags & DO_Q and flags & FORCE and model.quaternion_q.shape[0] > 0:
            normalize_quaternions(q, model.quaternion_q)    # as a step's end always is
            control_i[Q_CHANGED] = control_i[MOVED] = 1
        status = _realized(realize, POSITION if flags & DO_Q else VELOCITY, model, data,
                           control_i, ENTERED)
        if status != 0:
            return status
        phase = ENTERED
    if phase == ENTERED:        # realized at the start (through VELOCITY for u alone)
        phase = U_ENTERED
        if flags & DO_Q:
            phase = Q_DONE
            norm = _norm(qerr, p_weights, infinity)
            control_f[ENTRY_NORM] = norm
            control_f[NORM] = norm
            control_i[WORST_ROW], control_f[WORST] = _largest_at(qerr)
            if norm > 0.0 and norm > threshold:
                phase = Q_STEP
                if _largest_at(data.quaternion_err)[1] > SIGNIFICANT:  # the unit ones' metric
                    status = _q_moved(realize, model, data, control_i, Q_STEP)
                    if status != 0:
                        return status
            elif not flags & FORCE and _largest_at(data.quaternion_err)[1] > tolerance:
                status = _q_moved(realize, model, data, control_i, Q_DONE)
                if status != 0:
                    return status
    while Q_STEP <= phase <= Q_TRIED:
        if phase == Q_STEP:     # realized at a Newton iterate
            _copy(q, q_start)
            phase = Q_METRIC
            if flags & PYTHON_ROWS:
                control_i[ROWS] = mp
                control_i[PHASE] = Q_METRIC
                return NEED_ROWS
        if phase == Q_METRIC:   # the rows of G at q_start written
            if flags & PYTHON_N:
                phase = Q_N
                control_i[PHASE] = Q_N
                return NEED_N_INV
            phase = Q_N
        if phase == Q_N:        # the custom N⁺ blocks written
            _rows(model.constraint_kinds, tree, cache, con)
            _q_metric(tree, cache, con, q, mp, scratch, scratch[METRIC:N_INV])
            _smallest_step(con, mp, qerr, du)
            n_sweep(tree, q, du, dq)
            phase = Q_TRY
            if flags & PYTHON_N:
                control_i[PHASE] = Q_TRY
                return NEED_N
        if phase == Q_TRY:      # dq = N du in place
            for i in range(nq):
                q[i] = q_start[i] + dq[i]
            status = _q_moved(realize, model, data, control_i, Q_TRIED)
            if status != 0:
                return status
            phase = Q_TRIED
        if phase == Q_TRIED:    # realized at the step's end
            before = control_f[NORM]
            norm = _norm(qerr, p_weights, infinity)
            control_i[ITERATIONS] += 1
            phase = Q_DONE
            if flags & LOCAL and control_i[ITERATIONS] >= 2 and norm > before:
                _copy(q_start, q)       # diverging: back to the step's start, and stop
                status = _q_moved(realize, model, data, control_i, Q_DONE)
                if status != 0:
                    return status
                break
            control_f[NORM] = norm
            if norm > target and control_i[ITERATIONS] < MAX_Q_ITERATIONS:
                phase = Q_STEP
    if phase == Q_DONE:         # q projected (and realized through POSITION)
        if flags & DO_Q and control_f[NORM] > tolerance:
            return _q_failed(data, scratch, control_i, control_f)
        if not flags & DO_U:
            return _unchanged(flags, control_i)
        status = _realized(realize, VELOCITY, model, data, control_i, U_ENTERED)
        if status != 0:
            return status
        phase = U_ENTERED
    if phase == U_ENTERED:      # realized through VELOCITY at the projected q
        if not flags & DO_U:
            return _unchanged(flags, control_i)
        norm = _norm(uerr, pv_weights, infinity)
        if not (norm > 0.0 and norm > tolerance):
            return _unchanged(flags, control_i)
        control_f[ENTRY_NORM] = norm
        control_f[NORM] = norm
        _copy(u, u_entry)
        for i in range(nu):
            rel[i] = max(abs(u[i]), scratch[U_SCALE, i])
        phase = U_STEP
        if flags & PYTHON_ROWS:
            control_i[ROWS] = mpv
            control_i[PHASE] = U_STEP
            return NEED_ROWS
    while phase == U_STEP or phase == U_TRIED:
        if phase == U_STEP:     # the rows of G written
            _rows(model.constraint_kinds, tree, cache, con)
            _u_metric(tree, cache, con, mpv, rel)
            _smallest_step(con, mpv, uerr, du)
            for i in range(nu):
                u[i] += du[i]
            control_i[U_CHANGED] = 1
            control_i[MOVED] = 1
            status = _realized(realize, VELOCITY, model, data, control_i, U_TRIED)
            if status != 0:
                return status
        before = control_f[NORM]        # U_TRIED: realized at the step's end
        norm = _norm(uerr, pv_weights, infinity)
        control_i[U_ITERATIONS] += 1
        phase = U_DONE
        if flags & LOCAL and control_i[U_ITERATIONS] >= 2 and norm > before:
            for i in range(nu):         # diverging: back to the step's start, and stop
                u[i] -= du[i]
            status = _realized(realize, VELOCITY, model, data, control_i, U_DONE)
            if status != 0:
                return status
            break
        control_f[NORM] = norm
        if norm > target and control_i[U_ITERATIONS] < MAX_U_ITERATIONS:
            phase = U_STEP
            if flags & PYTHON_ROWS:
                control_i[ROWS] = mpv
                control_i[PHASE] = U_STEP
                return NEED_ROWS
    # U_DONE: u projected, or as near as the steps came
    failed = control_f[NORM] > tolerance
    if failed and control_f[NORM] >= control_f[ENTRY_NORM]:
        _copy(u_entry, u)
        control_i[U_CHANGED] = 1
    change = 0.0
    for i in range(nu):
        change = max(change, abs(u[i] - u_entry[i]))
    control_f[U_CHANGE] = change
    return PROJECTION_FAILED if failed else PROJECTED


def steps_entry(model, data):
    """``project_steps`` compiled for ``model`` and ``data`` (loaded from the cache, or
    compiled, now if need be), called without numba's dispatch, which would type their
    forty arrays at every call: call it only with these model and data, a realization
    address of 0 and the control arrays' types."""
    return entry_point(project_steps, (model, data, 0, np.zeros((N_INV + 1, 7)),
                                       np.zeros(N_CONTROL_I, dtype=np.int64),
                                       np.zeros(N_CONTROL_F)))


@helper
def end_of_step_flags(force, infinity_norm):
    """The flags of the projection of a step's end: q and u, stopping where the errors
    grow (Simbody's LocalOnly), FORCE and INFINITY_NORM as the integrator's settings
    say."""
    return DO_Q | DO_U | LOCAL | (FORCE if force else 0) | \
        (INFINITY_NORM if infinity_norm else 0)


@numba.njit(cache=True, _nrt=False)
def project_y(model, data, realize, y, tolerance, flags):
    """``project_steps`` of q and u to the end on y = [q | u] (which it updates) by the
    compiled realization at ``realize``, to ``tolerance``, as ``flags`` ask (unit
    weights), in the scratch and control arrays of ``data`` (``project_work``,
    ``project_control``): how a compiled run of steps projects a step's end. Returns
    PROJECTED, NOT_NEEDED, PROJECTION_FAILED or a realization's failure code."""
    q, u = data.q, data.u
    nq, nu = q.shape[0], u.shape[0]
    _copy(y[:nq], q)
    _copy(y[nq:nq + nu], u)
    scratch, control_i = data.project_work, data.project_control
    control_f = scratch[CONTROL_F, :N_CONTROL_F]
    scratch[U_SCALE:PV_WEIGHTS + 1] = 1.0
    control_i[:] = 0
    control_f[:] = 0.0
    control_i[FLAGS] = flags
    control_f[TOLERANCE] = tolerance
    status = project_steps(model, data, realize, scratch, control_i, control_f)
    if status == PROJECTED:
        _copy(q, y[:nq])
        _copy(u, y[nq:nq + nu])
    return status
