"""Projection onto the constraints (Simbody's ``project``), one definition for every caller.

``project_steps`` moves the q and u of an EngineModel/EngineData pair (``data.py``) onto
the constraint manifold:

  q   every quaternion normalized, then damped Newton steps q += s N Δu, Δu the smallest
      change (unit weights) that zeroes the linearized position errors and s halved until
      the errors shrink, until max |qerr| <= OVERSHOOT × the tolerance (settling, like
      Simbody, for the tolerance when the steps stall);
  u   u += Δu, the smallest change that zeroes the velocity errors.

It is resumable, like the run of steps (``step.py``): where it stands is kept in its
control arrays. Given the address of the compiled realization it realizes the State
itself and runs to the end in one call; that is how a compiled run of steps projects.
Given none (a model with Python in its realization, custom mobilizers or Python
constraints) it stops to ask its caller to realize the State, to write the Python
constraints' rows of G, or to add the custom mobilizers' blocks of N Δu (the NEED_*
codes), and is called again to go on; that is how ``SimbodyMatterSubsystem.project_q``
and ``project_u`` run it. Both take the same steps.
"""

import numba
import numpy as np

from kinetree.engine.entry import call_native, entry_point
from kinetree.jit import helper
from kinetree.multibody.constraint_table import unpack_constraints
from kinetree.multibody.kernels.constraints import constraint_rows, project_rows
from kinetree.multibody.kernels.n_matrix import n_sweep, normalize_quaternions
from kinetree.multibody.tree_model import unpack_cache, unpack_tree
from kinetree.system.stage import Stage

POSITION, VELOCITY = int(Stage.POSITION), int(Stage.VELOCITY)

MAX_ITERATIONS = 20
HALVINGS = 12
OVERSHOOT = 0.1
"""A projection takes at most MAX_ITERATIONS Newton steps, each halved up to HALVINGS
times until the errors shrink, and tries for OVERSHOOT of the tolerance, settling for
the tolerance (Simbody's default overshoot factor)."""

SIGNIFICANT = np.finfo(float).eps ** 0.875
"""Errors this small are zero (Simbody's SignificantReal): no Newton step tries below."""

PROJECTED, NOT_NEEDED, PROJECTION_FAILED = 0, -1, -2
"""What a projection returns when done (or the failure code of a realization)."""

NEED_POSITION, NEED_VELOCITY, NEED_ROWS, NEED_N = 20, 21, 22, 23
"""What a projection without a realization address asks its caller, to be called again
after: the State realized through POSITION (or VELOCITY) at data.q and data.u (q
changed since the last request if control_i[Q_CHANGED]); the Python constraints' first
control_i[ROWS] rows of G written into the constraint table; the custom mobilizers'
blocks of dq = N du written (scratch rows 1 and 2)."""

FORCE, DO_Q, DO_U, PYTHON_ROWS, PYTHON_N = 1, 2, 4, 8, 16
"""Flags of control_i[FLAGS]: project even when no error exceeds the tolerance; project
q; project u; ask for the Python constraints' rows; ask for the custom mobilizers' N."""

PHASE, FLAGS, ITERATIONS, HALVINGS_TRIED, ROWS, WORST_ROW, Q_CHANGED = 0, 1, 2, 3, 4, 5, 6
N_CONTROL_I = 7
TOLERANCE, WORST, SIZE, U_CHANGE = 0, 1, 2, 3
N_CONTROL_F = 4
"""The control arrays: control_i (int64) holds where the projection stands, its flags,
the Newton steps taken, the halvings tried of the step under way, the rows asked for,
the row of the largest position error at the last step's start, and whether q changed
since the last request; control_f (float64) the tolerance, that largest error, the norm
of the errors at the step's start and the largest change of u."""

START, FROM_Q, NEWTON, ROWS_Q, STEP, TRY, TRIED, Q_DONE, U_CHECK, ROWS_U = range(10)
"""Where a projection stands (control_i[PHASE])."""


@helper
def _largest_at(a):
    """(the index of the largest |a_i|, that |a_i|); (-1, 0) for an empty a."""
    at, worst = -1, 0.0
    for i in range(a.shape[0]):
        if abs(a[i]) > worst or at < 0:
            at, worst = i, abs(a[i])
    return at, worst


@helper
def _norm(a):
    """|a| (2-norm)."""
    s = 0.0
    for x in a:
        s += x * x
    return s ** 0.5


@helper
def needs_projection(quaternion_err, qerr, uerr, tolerance):
    """Whether an error of the quaternions' norms, the position or the velocity
    constraints exceeds ``tolerance``: when a projection that is not forced moves the
    State."""
    return max(_largest_at(quaternion_err)[1], _largest_at(qerr)[1],
               _largest_at(uerr)[1]) > tolerance


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
    return _realized(realize, POSITION, model, data, control_i, resume)


@numba.njit(cache=True)
def project_steps(model, data, realize, scratch, control_i, control_f):
    """Project data.q and data.u (module docstring) as control_i[FLAGS] asks, from where
    control_i[PHASE] says (START for a new projection); ``realize`` is the address of the
    compiled ``realize_stages`` or 0. ``scratch`` (3 x ny) holds q at a Newton step's
    start, its N Δu and Δu. Returns PROJECTED, NOT_NEEDED, PROJECTION_FAILED, a request
    (NEED_*) or a realization's failure code."""
    q, u, qerr, uerr = data.q, data.u, data.qerr, data.uerr
    nq, nu, mp = q.shape[0], u.shape[0], qerr.shape[0]
    flags = control_i[FLAGS]
    tolerance = control_f[TOLERANCE]
    target = max(OVERSHOOT * tolerance, SIGNIFICANT)
    kinds = model.constraint_kinds
    tree = unpack_tree(model.tree_i, model.tree_f, model.mobilizer_kinds)
    cache = unpack_cache(data.buf, data.status)
    con = unpack_constraints(model.con_i, data.con_index, data.con_f, data.con_buf, q, u)
    q_start, dq, du = scratch[0, :nq], scratch[1, :nq], scratch[2, :nu]
    phase = control_i[PHASE]
    if phase == START:
        control_i[ITERATIONS] = 0
        control_i[Q_CHANGED] = 0
        control_f[U_CHANGE] = 0.0
        if flags & FORCE:
            phase = FROM_Q
        else:
            status = _realized(realize, VELOCITY, model, data, control_i, FROM_Q)
            if status != 0:
                return status
            if not needs_projection(data.quaternion_err, qerr, uerr, tolerance):
                return NOT_NEEDED
            phase = FROM_Q
    if phase == FROM_Q:         # projecting, from q
        if not flags & DO_Q:
            phase = Q_DONE
        else:
            status = _q_moved(realize, model, data, control_i, NEWTON)
            if status != 0:
                return status
            phase = NEWTON
    while phase == NEWTON or phase == ROWS_Q or phase == STEP or phase == TRY \
            or phase == TRIED:
        if phase == NEWTON:     # realized at a Newton iterate
            at, worst = _largest_at(qerr)
            if worst <= target:
                phase = Q_DONE
                break
            if control_i[ITERATIONS] == MAX_ITERATIONS:
                if worst <= tolerance:
                    phase = Q_DONE
                    break
                control_i[WORST_ROW] = at
                control_f[WORST] = worst
                return PROJECTION_FAILED
            control_i[WORST_ROW] = at
            control_f[WORST] = worst
            for i in range(nq):
                q_start[i] = q[i]
            phase = ROWS_Q
            if flags & PYTHON_ROWS:
                control_i[ROWS] = mp
                control_i[PHASE] = ROWS_Q
                return NEED_ROWS
        if phase == ROWS_Q:     # the rows of G at q_start written
            constraint_rows(kinds, tree, cache, con)
            project_rows(tree, cache, con, mp, qerr, du)
            n_sweep(tree, q, du, dq)
            phase = STEP
            if flags & PYTHON_N:
                control_i[PHASE] = STEP
                return NEED_N
        if phase == STEP:       # dq = N du in place
            control_f[SIZE] = _norm(qerr)
            control_i[HALVINGS_TRIED] = 0
            phase = TRY
        if phase == TRY:
            for i in range(nq):
                q[i] = q_start[i] + dq[i]
            status = _q_moved(realize, model, data, control_i, TRIED)
            if status != 0:
                return status
            phase = TRIED
        if phase == TRIED:      # realized at the step tried
            if _norm(qerr) < control_f[SIZE]:
                control_i[ITERATIONS] += 1
                phase = NEWTON
                continue
            control_i[HALVINGS_TRIED] += 1
            if control_i[HALVINGS_TRIED] < HALVINGS:
                for i in range(nq):
                    dq[i] *= 0.5
                phase = TRY
                continue
            for i in range(nq):         # no step shrinks the errors: back to its start
                q[i] = q_start[i]
            control_i[Q_CHANGED] = 1
            if control_f[WORST] > tolerance:
                return PROJECTION_FAILED
            phase = Q_DONE
    if phase == Q_DONE:
        if not flags & DO_U or uerr.shape[0] == 0:
            return PROJECTED
        status = _realized(realize, VELOCITY, model, data, control_i, U_CHECK)
        if status != 0:
            return status
        phase = U_CHECK
    if phase == U_CHECK:        # realized at the projected q
        if _largest_at(uerr)[1] <= tolerance:
            return PROJECTED
        phase = ROWS_U
        if flags & PYTHON_ROWS:
            control_i[ROWS] = uerr.shape[0]
            control_i[PHASE] = ROWS_U
            return NEED_ROWS
    constraint_rows(kinds, tree, cache, con)        # ROWS_U: the rows of G written
    project_rows(tree, cache, con, uerr.shape[0], uerr, du)
    for i in range(nu):
        u[i] += du[i]
    control_f[U_CHANGE] = _largest_at(du)[1]
    return PROJECTED


def steps_entry(model, data):
    """``project_steps`` compiled for ``model`` and ``data`` (loaded from the cache, or
    compiled, now if need be), called without numba's dispatch, which would type their
    forty arrays at every call: call it only with these model and data, a realization
    address of 0 and the control arrays' types."""
    return entry_point(project_steps, (model, data, 0, np.zeros((3, 1)),
                                       np.zeros(N_CONTROL_I, dtype=np.int64),
                                       np.zeros(N_CONTROL_F)))


@numba.njit(cache=True)
def project_y(model, data, realize, y, scratch, tolerance, force):
    """``project_steps`` of q and u to the end on y = [q | u] (which it updates) by the
    compiled realization at ``realize``, to ``tolerance``, unless ``force`` only if an
    error exceeds it: how a compiled run of steps projects a step's end. Returns
    PROJECTED, NOT_NEEDED, PROJECTION_FAILED or a realization's failure code."""
    q, u = data.q, data.u
    nq = q.shape[0]
    for i in range(nq):
        q[i] = y[i]
    for i in range(u.shape[0]):
        u[i] = y[nq + i]
    control_i = np.zeros(N_CONTROL_I, dtype=np.int64)
    control_f = np.zeros(N_CONTROL_F)
    control_i[FLAGS] = DO_Q | DO_U | (FORCE if force else 0)
    control_f[TOLERANCE] = tolerance
    status = project_steps(model, data, realize, scratch, control_i, control_f)
    if status == PROJECTED:
        for i in range(nq):
            y[i] = q[i]
        for i in range(u.shape[0]):
            y[nq + i] = u[i]
    return status
