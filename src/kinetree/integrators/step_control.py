"""Step control shared by the integrators and the compiled runs of steps (engine/step.py):
the error norm, the Runge-Kutta combination of stages, the step-size factors, and the
layout of the control arrays: an integrator's settings, its last step and its counters,
which its own Python and a compiled run of its steps both read and write."""

from collections import namedtuple

import numba
import numpy as np

from kinetree.jit import helper

SAFETY, MAX_GROWTH, MAX_SHRINK = 0.9, 5.0, 0.1
"""The safety factor on the predicted step, and the most a step may grow or shrink after
one attempt."""

# control_f, floats: the last step's ends, the next step size, where to stop, settings,
# the step size being attempted and the one the step began with, the time a request is
# for and the next step size a method in Python proposes.
T0, T1, H_NEXT, H_TAKEN, T_STOP, T_REPORT = 0, 1, 2, 3, 4, 5
FIXED_STEP, MAX_STEP, MIN_STEP, ACCURACY, EXPONENT, CONSTRAINT_TOL = 6, 7, 8, 9, 10, 11
H_ATTEMPT, H_START, T_NEED, H_PROPOSED = 12, 13, 14, 15
N_CONTROL_F = 16
# control_i, integers: settings (STEP_LIMIT: the count of steps taken at which a run
# stops, 0 for none), the integrator's counters, whether the last accepted
# step's end derivative is still owed, the method a run takes, whether the caller answers
# for the derivatives and projections (and wants a word at each step's start), where a
# run stopped to ask, what it asks for, and the caller's verdict on it.
STEP_LIMIT, PROJECT, INFINITY_NORM = 0, 1, 2
STEPS, ATTEMPTED, REALIZATIONS, PROJECTIONS, ERROR_FAILURES, PROJECTION_FAILURES = \
    3, 4, 5, 6, 7, 8
END_PENDING, METHOD, PYTHON, STEP_START_HOOK, PHASE, NEED_ROW, VERDICT = \
    9, 10, 11, 12, 13, 14, 15
N_CONTROL_I = 16

StepArrays = namedtuple("StepArrays", [
    "control_f",   # (N_CONTROL_F,) float64: the settings and the last step (indices above)
    "control_i",   # (N_CONTROL_I,) int64: settings and counters (indices above)
    "work",        # (9, ny): y0, ẏ0, y1, ẏ1, the error, a stage's y, 3 rows of scratch
    "k",           # (s, ny): the stages' derivatives
    "tableau",     # (s + 3, s): a, b, e and c of the method (``tableau``)
    "weights",     # (ny,): the unit weights W of y's entries
    "group_ends",  # (3,) int64: where the q, u and z of y end (the error norm's groups)
])
"""An integrator's arrays that a compiled run of its steps works on
(``Integrator.step_arrays``)."""

RUNGE_KUTTA, SEMI_EXPLICIT_EULER, PYTHON_ATTEMPT = 0, 1, 2
"""The methods of runs: an explicit Runge-Kutta tableau, the symplectic Euler step
u1 = u0 + h u̇0, q1 = q0 + h N(q0) u1, or an attempt the integrator makes in Python
(``Integrator._attempt``)."""

TOO_SMALL, DIVERGED, UNRESOLVED = 3, 5, 6
"""What a run returns when the error test (or the projection) kept failing down to the
minimum step, when a step's end is not finite, or when the step to attempt is below the
resolution of time (after the realization's own codes, engine/forward.py's SINGULAR 1 and
OVERFLOW 2; its INCONSISTENT is 4)."""

TIME_RESOLUTION = 1e-14
"""Times closer than this (s; relative to |t| beyond 1 s) are one time (``time_tol``):
no step may be shorter."""

WORK_PER_CALL = 2_000_000
"""A run returns to Python after about this many body realizations (bodies times
realizations; some 0.5 s), between steps, so that Ctrl-C is heard and no compiled loop
runs unbounded; the integrator then calls it again."""

NEED_DERIVATIVE, NEED_ATTEMPT, NEED_PROJECTION, NEED_STEP_START = 10, 11, 12, 13
"""What a run returns to ask its caller for Python's part, after which it is called
again and goes on where it stopped:

- NEED_DERIVATIVE: ẏ at time control_f[T_NEED] of a stage's y (work row 5) into stage
  k[control_i[NEED_ROW]], or, when NEED_ROW is -1, of the step's end y1 (work row 2),
  realizing the advanced State there, into ẏ1 (work row 3);
- NEED_ATTEMPT: the method's attempt of control_f[H_ATTEMPT] from (T0, y0, ẏ0): y1, and
  the VERDICT on it (below);
- NEED_PROJECTION: y1 at time control_f[T_NEED] projected, the VERDICT PROJECTED,
  NOT_NEEDED or PROJECTION_FAILED;
- NEED_STEP_START: a step is about to begin (the auto-update discrete variables)."""

TEST_ERROR, NO_ESTIMATE, ACCEPTED, REJECTED = 0, 1, 2, 3
"""The verdict on an attempt made in Python: test the error estimate in work row 4;
there is none; the method accepted the step itself, leaving the advanced State at its
end, projected and realized, with y1 and ẏ1 (H_PROPOSED: the next step size); or it
rejected it (H_PROPOSED: the size to try next)."""

PROJECTED, NOT_NEEDED, PROJECTION_FAILED = 0, -1, -2
"""The verdict on a projection (a compiled projection returns these too, or the failure
code of a realization)."""

IDLE, STARTING, STAGES, ATTEMPTING, PROJECTING, ENDING, RETRYING = 0, 1, 2, 3, 4, 5, 6
"""Where a run stands (control_i[PHASE]): between steps; before a step, its start
announced; in a Runge-Kutta attempt's stages (stage NEED_ROW + 1 next); waiting for the
method's attempt; for the projection; for the derivative at an accepted step's end;
about to attempt the step again, smaller."""


@helper
def attempted_step(h_next, fixed, max_step, remaining):
    """The step (s) to attempt: the fixed step (if ``fixed`` > 0) or the predicted one,
    at most ``max_step``, stretched to the ``remaining`` time to the stop when it would
    fall short of it by less than a thousandth of itself."""
    h = min(fixed if fixed > 0.0 else h_next, max_step)
    if h >= remaining or remaining - h < 1e-3 * h:
        h = remaining
    return h


@helper
def error_test(norm, accuracy, exponent, h):
    """(accepted, the next step size) for a step of h whose error norm is ``norm``: it
    passes at most ``accuracy``, and the next step is h scaled by SAFETY (accuracy /
    norm)^exponent, within MAX_SHRINK and MAX_GROWTH (at most 0.9 after a failure, at
    least 1 after a success)."""
    factor = SAFETY * (accuracy / norm) ** exponent if norm > 0 else MAX_GROWTH
    if norm > accuracy:
        return False, h * max(MAX_SHRINK, min(factor, 0.9))
    return True, h * min(MAX_GROWTH, max(1.0, factor))


@helper
def step_end(t0, h, t_stop, t_report):
    """The time a step of h from t0 ends at: t0 + h, or the stop time or the report
    time when t0 + h is within the time tolerance of it, so that fixed steps land on
    report times n h exactly instead of drifting past them by rounding."""
    t_end = t0 + h
    tol = time_tol(t_end)
    if t_stop - t_end <= tol:
        return t_stop
    if abs(t_report - t_end) <= tol:
        return t_report
    return t_end


def tableau(c, a, b, e) -> np.ndarray:
    """A Runge-Kutta method in one array, as the integrators and compiled runs read it:
    (s + 3, s), the rows of a (row i the coefficients of stage i), then b, e and the stage
    times c."""
    s = len(c)
    table = np.zeros((s + 3, s))
    for i, row in enumerate(a, start=1):
        table[i, :len(row)] = row
    table[s], table[s + 1], table[s + 2] = b, e, c
    return table


@numba.njit(cache=True)
def first_non_finite(y):
    """The index of y's first NaN or infinite entry, or -1."""
    for i in range(y.shape[0]):
        if not np.isfinite(y[i]):
            return i
    return -1


@numba.njit(cache=True)
def time_tol(t):
    """Times closer than this (s) are the same time."""
    return TIME_RESOLUTION * max(1.0, abs(t))


@numba.njit(cache=True)
def scaled_error_norm(err, y0, y1, w, group_ends, infinity_norm):
    """max over the groups q, u, z (ending at ``group_ends``) of the RMS, or the largest,
    of |err_i| W_i / max(1, max(|y0_i|, |y1_i|) W_i)."""
    norm = 0.0
    start = 0
    for end in group_ends:
        total = 0.0
        for i in range(start, end):
            size = max(abs(y0[i]), abs(y1[i])) * w[i]
            e = abs(err[i]) * w[i] / (size if size > 1.0 else 1.0)
            if infinity_norm:
                total = max(total, e)
            else:
                total += e * e
        if not infinity_norm and end > start:
            total = np.sqrt(total / (end - start))
        norm = max(norm, total)
        start = end
    return norm


@numba.njit(cache=True)
def combine(y0, h, coefficients, k, n, out):
    """out = y0 + h Σ_{j<n} coefficients_j k_j: one stage or the step's end, in one pass."""
    for i in range(y0.shape[0]):
        total = 0.0
        for j in range(n):
            total += coefficients[j] * k[j, i]
        out[i] = y0[i] + h * total
