"""The one stepper of every integrator: ``run_steps``, a compiled run of steps, and
CompiledStepper, which runs it on a State whose realization from TIME to ACCELERATION is
one compiled call with no Python in it and whose projection is the matter subsystem's (a
model of built-in elements, built-in constraints included).

An integrator's settings, the ends of its last step and its counters live in its control
arrays (``step_control``), which its Python and the runs share. ``run_steps`` takes every
step up to the next report time, stop time or step limit in one call: the attempt (the
stages of an explicit Runge-Kutta method, the symplectic Euler step, or a method's own
attempt in Python), the error norm and the step-size control, the projection
(``project.py``, or the normalization of quaternions without constraints), and
the derivative at each step's end. A model with Python in its realization, or a method
that attempts its steps in Python, takes the same run: it stops to ask the integrator for
that part (step_control's NEED_* codes) and is called again to go on
(``Integrator._answer``). Every derivative at a step's end is a realization of the
integrator's advanced State, which a run leaves realized at its last step; if a run stops
on an error the integrator realizes that State again at the last step accepted before
raising, so nothing is lost. Event triggers, dense output and reports stay with the
integrator, between runs.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref
from numba.extending import overload

from kinetree.engine.data import assemble
from kinetree.engine.entry import (
    call_native,
    entry_point,
    native_address,
    unowned,
)
from kinetree.engine.forward import (
    ACCELERATION,
    NONFINITE,
    OVERFLOW,
    POSITION,
)
from kinetree.engine.kinds import Kinds
from kinetree.engine.project import end_of_step_flags, project_y
from kinetree.errors import KinetreeError
from kinetree.integrators.step_control import (
    ACCEPTED,
    ACCURACY,
    ATTEMPTED,
    ATTEMPTING,
    CONSTRAINT_TOL,
    DIVERGED,
    END_PENDING,
    ENDING,
    ERROR_FAILURES,
    EXPONENT,
    FIXED_STEP,
    H_ATTEMPT,
    H_NEXT,
    H_PROPOSED,
    H_START,
    H_TAKEN,
    IDLE,
    INFINITY_NORM,
    MAX_STEP,
    METHOD,
    MIN_STEP,
    NEED_ATTEMPT,
    NEED_DERIVATIVE,
    NEED_PROJECTION,
    NEED_ROW,
    NEED_STEP_START,
    NO_ESTIMATE,
    NOT_NEEDED,
    PHASE,
    PROJECT,
    PROJECTED,
    PROJECTING,
    PROJECTION_FAILED,
    PROJECTION_FAILURES,
    PROJECTIONS,
    PYTHON,
    PYTHON_ATTEMPT,
    REALIZATIONS,
    REJECTED,
    RETRYING,
    SEMI_EXPLICIT_EULER,
    STAGES,
    STARTING,
    STEP_LIMIT,
    STEP_START_HOOK,
    STEPS,
    T0,
    T1,
    T_NEED,
    T_REPORT,
    T_STOP,
    TEST_ERROR,
    TOO_SMALL,
    UNRESOLVED,
    VERDICT,
    WORK_PER_CALL,
    attempted_step,
    combine,
    error_test,
    first_non_finite,
    scaled_error_norm,
    step_end,
    time_tol,
)
from kinetree.jit import helper
from kinetree.multibody.constraint_table import CON_COLUMNS
from kinetree.multibody.kernels.n_matrix import (
    n_sweep,
    normalize_quaternions,
    qdotdot_sweep,
)
from kinetree.multibody.kernels.small import copy_vector as _copy
from kinetree.multibody.tree_model import QDOTDOT_DEFERRED, unpack_tree
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem

_INSTANCE, _ACCELERATION = Stage.INSTANCE, Stage.ACCELERATION   # an Enum attribute: ~150 ns
ACCEPTED_END = -1
"""run_steps' own mark of a step a method in Python accepted, its end realized."""
NONFINITE_SHRINK = 1.0 / 1024.0
"""How far a step whose end is not finite is halved (from the size it started at)
before the motion is called diverged."""


@helper
def _derivative(realize, t, y, model, data, ydot):
    """ẏ = f(t, y) by realizing the State of ``model`` and ``data`` (``realize``: the
    address of the compiled ``realize_stages``); 0 or why not."""
    data.time[0] = t
    q, u = data.q, data.u
    nq, nu = q.shape[0], u.shape[0]
    za, zf = nq + nu + model.act_z_at, nq + nu + model.force_z_at
    _copy(y[:nq], q)
    _copy(y[nq:nq + nu], u)
    _copy(y[za:za + data.z.shape[0]], data.z)
    _copy(y[zf:zf + data.force_z.shape[0]], data.force_z)
    failed = call_native(realize, POSITION, ACCELERATION, model, data)
    _copy(data.qdot, ydot[:nq])
    _copy(data.udot, ydot[nq:nq + nu])
    _copy(data.zdot, ydot[za:za + data.z.shape[0]])
    _copy(data.force_zdot, ydot[zf:zf + data.force_z.shape[0]])
    # A derivative that is not finite is the integrator's to judge: the step that used it
    # diverges, and says so.
    return 0 if failed == NONFINITE else failed


_RUN_FIELDS = ("control_f", "control_i", "work", "k", "tableau", "weights", "group_ends",
               "model", "data", "realize", "project")


@structref.register
class RunType(types.StructRef):
    """The numba type of a Run: its fields' types (``_RUN_FIELDS``)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Run(structref.StructRefProxy):
    """Everything a compiled run of steps works on, in one object that compiled code
    receives as a pointer: the integrator's control arrays (``step_control``), its
    ``work`` rows (y0, ẏ0, y1, ẏ1, the error, a stage's y), the stages ``k``, the
    ``tableau``, the unit ``weights`` and ``group_ends`` of its error norm; the State's
    realization ``model`` and ``data`` (``engine/data.py``) and the addresses of the
    compiled realization and projection. Handing these to compiled code one by one
    would cost ~0.1 µs per array on every call, some 3 µs of a small model's step. Its
    arrays do not keep their memory alive (``unowned``): whoever holds a Run holds the
    arrays too."""


structref.define_boxing(RunType, Run)


def _new_run(*fields):
    """A Run holding ``fields`` (``_RUN_FIELDS``), in compiled code."""


@overload(_new_run)
def _new_run_overload(*fields):
    run_type = RunType(list(zip(_RUN_FIELDS, fields)))

    def new(*fields):
        run = structref.new(run_type)
        (run.control_f, run.control_i, run.work, run.k, run.tableau, run.weights,
         run.group_ends, run.model, run.data, run.realize, run.project) = unowned(fields)
        return run

    return new


@numba.njit(cache=True)
def new_run(control_f, control_i, work, k, tableau, weights, group_ends, model, data,
            realize, project):
    """A Run of these (``Run``), made by compiled code: a Run's own constructor would
    be compiled again in every process."""
    return _new_run(control_f, control_i, work, k, tableau, weights, group_ends, model, data,
                    realize, project)


@helper
def _semi_explicit_step(model, y0, ydot0, h, y1, qdot, nu):
    """The symplectic Euler step: u1 = u0 + h u̇0 (and z), q1 = q0 + h N(q0) u1."""
    nq = qdot.shape[0]
    for n in range(nq, y0.shape[0]):
        y1[n] = y0[n] + h * ydot0[n]
    n_sweep(unpack_tree(model.tree_i, model.tree_f, model.mobilizer_kinds), y0[:nq],
            y1[nq:nq + nu], qdot)
    for n in range(nq):
        y1[n] = y0[n] + h * qdot[n]


@numba.njit(cache=True, nogil=True)
def run_steps(run):
    """Take steps of the integrator method ``run.control_i[METHOD]`` from (t1, y1, ẏ1)
    until t1 reaches the report time or the stop time, or the step limit is met.

    Each step: y0 = y1; for an explicit Runge-Kutta method the stages k[i] = f(t0 + c_i h,
    y0 + h Σ a_ij k_j), y1 = y0 + h Σ b_i k_i and the error h Σ e_i k_i weighed against
    the accuracy (no test with a fixed step); for the symplectic Euler step u1 = u0 + h
    u̇0, q1 = q0 + h N(q0) u1; a method in Python makes its own attempt. Then h adapted,
    quaternions normalized or constraints projected, and ẏ1 = f(y1). The step size, the
    error test and the step's end are step_control's; ``run.tableau`` holds the rows of
    a, then b, e and c (``step_control.tableau``).

    When ``control_i[PYTHON]`` is 0 every derivative realizes the State of ``run.model``
    and ``run.data`` by the compiled ``realize_stages`` at the address ``run.realize``,
    and a model with constraints is projected by the compiled ``project_y`` at
    ``run.project``. Otherwise the run asks its caller for each derivative, attempt and
    projection (step_control's NEED_* codes) and is called again to go on, so a model
    with Python in it takes the same steps. A call returns between steps once it has done
    about WORK_PER_CALL body realizations, so that no compiled loop runs unbounded. It
    releases the GIL while it runs: the members of an ensemble step in parallel threads.
    Returns 0, a request, SINGULAR or OVERFLOW from a realization, TOO_SMALL, DIVERGED or
    UNRESOLVED; after a failure the control arrays hold the last accepted step, and
    ``control_i[END_PENDING]`` says whether its end derivative is still owed. The
    derivatives need no q̈: the run computes it once, for the State it leaves realized."""
    model, data = run.model, run.data
    compiled = run.control_i[PYTHON] == 0       # a run for Python has no model of its own
    if compiled:
        data.status[QDOTDOT_DEFERRED] = 1
    failed = _run_steps(run.control_f, run.control_i, run.work, run.k, run.tableau,
                        run.weights, run.group_ends, model, data, run.realize, run.project)
    if compiled:
        data.status[QDOTDOT_DEFERRED] = 0
        qdotdot_sweep(unpack_tree(model.tree_i, model.tree_f, model.mobilizer_kinds), data.q,
                      data.u, data.udot, data.qdotdot_work, data.qdotdot)
    return failed


@numba.njit(cache=True, nogil=True, _nrt=False)
def _run_steps(control_f, control_i, work, k, tableau, weights, group_ends, model, data,
               realize, project):
    """run_steps on the fields of its Run. It is compiled without numba's reference
    counting, which the structure's fields need to be read but the loop does not: counting
    each array view the steps take would cost about 0.4 µs a realization."""
    y0, ydot0, y1, ydot1, err, stage_y = work[0], work[1], work[2], work[3], work[4], work[5]
    python = control_i[PYTHON] != 0
    constrained = model.con_i.shape[0] > 0
    s = k.shape[0]
    a, b, e, c = tableau[:s], tableau[s], tableau[s + 1], tableau[s + 2]
    fixed = control_f[FIXED_STEP]
    method = control_i[METHOD]
    # The realizations this call may do before it returns between steps (WORK_PER_CALL),
    # once it has taken a step.
    realizations_end = control_i[REALIZATIONS] + WORK_PER_CALL // max(1, model.tree_i.shape[0])
    steps_at_entry = control_i[STEPS]
    while True:
        phase = control_i[PHASE]
        if phase == IDLE:
            t1 = control_f[T1]
            if control_i[END_PENDING]:
                if python:
                    control_f[T_NEED] = t1
                    control_i[NEED_ROW] = -1
                    control_i[PHASE] = ENDING
                    return NEED_DERIVATIVE
                failed = _derivative(realize, t1, y1, model, data, ydot1)
                if failed != 0:
                    return failed
                control_i[END_PENDING] = 0
                control_i[REALIZATIONS] += 1
                if first_non_finite(ydot1) >= 0:
                    # The last step reached a State whose derivative is not finite: it
                    # diverged, and is taken back (its end left in stage_y).
                    _copy(y1, stage_y)
                    _copy(y0, y1)
                    _copy(ydot0, ydot1)
                    control_f[T1] = control_f[T0]
                    control_f[H_NEXT] = control_f[H_TAKEN]
                    control_i[STEPS] -= 1
                    return DIVERGED
            # The report test is Integrator.step_to's, written the same way: the same
            # rounding, so Python never asks for steps toward a time this run calls reached.
            tol = time_tol(t1)
            if (control_f[T_REPORT] - t1 <= tol or t1 >= control_f[T_STOP] - tol
                    or (control_i[STEP_LIMIT] > 0 and control_i[STEPS] >= control_i[STEP_LIMIT])
                    or (control_i[REALIZATIONS] >= realizations_end
                        and control_i[STEPS] > steps_at_entry)):
                return 0
            if control_i[STEP_START_HOOK]:
                control_i[PHASE] = STARTING
                return NEED_STEP_START
            phase = STARTING
        elif phase == ENDING:           # the caller realized the end: ẏ1 is in place
            control_i[END_PENDING] = 0
            control_i[PHASE] = IDLE
            continue
        t0 = control_f[T0]
        if phase == STARTING:
            # One step from (t0, y0) = (t1, y1), retried smaller until its error passes.
            t0 = control_f[T0] = control_f[T1]
            control_f[H_START] = control_f[H_NEXT]
            _copy(y1, y0)
            _copy(ydot1, ydot0)
            phase = RETRYING
        t_stop = control_f[T_STOP]
        if phase == RETRYING:
            h = attempted_step(control_f[H_NEXT], fixed, control_f[MAX_STEP], t_stop - t0)
            if fixed <= 0.0 and h < time_tol(t0):
                h = time_tol(t0)            # the shortest step that advances time
            control_f[H_ATTEMPT] = h
            if not h >= time_tol(t0):       # a fixed step that cannot advance time
                control_i[PHASE] = IDLE
                _copy(y0, y1)
                return UNRESOLVED
            control_i[ATTEMPTED] += 1
            if method == PYTHON_ATTEMPT:
                control_i[PHASE] = ATTEMPTING
                return NEED_ATTEMPT
            if method == SEMI_EXPLICIT_EULER:
                _semi_explicit_step(model, y0, ydot0, h, y1, stage_y[:data.q.shape[0]],
                                    data.u.shape[0])
                control_i[VERDICT] = NO_ESTIMATE
                phase = ATTEMPTING
            else:
                _copy(ydot0, k[0])
                control_i[NEED_ROW] = 0
                phase = STAGES
        h = control_f[H_ATTEMPT]
        if phase == STAGES:
            for i in range(control_i[NEED_ROW] + 1, s):
                combine(y0, h, a[i], k, i, stage_y)
                if python:
                    control_f[T_NEED] = t0 + c[i] * h
                    control_i[NEED_ROW] = i
                    control_i[PHASE] = STAGES
                    return NEED_DERIVATIVE
                failed = _derivative(realize, t0 + c[i] * h, stage_y, model, data, k[i])
                if failed != 0:
                    # This attempt never happened: it is taken again after the repair.
                    control_i[REALIZATIONS] -= i - 1
                    control_i[ATTEMPTED] -= 1
                    control_i[PHASE] = IDLE
                    return failed
                control_i[REALIZATIONS] += 1
            combine(y0, h, b, k, s, y1)
            for n in range(err.shape[0]):
                total = 0.0
                for j in range(s):
                    total += e[j] * k[j, n]
                err[n] = h * total
            control_i[VERDICT] = TEST_ERROR
            phase = ATTEMPTING
        if phase == ATTEMPTING:
            control_i[PHASE] = IDLE
            verdict = control_i[VERDICT]
            if verdict != REJECTED and first_non_finite(y1) >= 0:
                if fixed <= 0.0 and h * 0.5 >= control_f[H_START] * NONFINITE_SHRINK \
                        and h * 0.5 >= max(control_f[MIN_STEP], time_tol(t0)):
                    # A trial step that left the model's domain (a muscle's fiber
                    # shorter than its width): shorter ones may stay in it, as Simbody
                    # retries a step whose evaluation failed.
                    control_i[ERROR_FAILURES] += 1
                    control_f[H_NEXT] = h * 0.5
                    control_i[PHASE] = RETRYING
                    continue
                # The error norm of a NaN passes any test: stop here instead, the step's
                # end left in stage_y for the error message.
                _copy(y1, stage_y)
                _copy(y0, y1)
                control_f[H_NEXT] = h
                return DIVERGED
            h_new = control_f[H_PROPOSED] if verdict >= ACCEPTED else h
            if verdict == TEST_ERROR and fixed <= 0.0:
                norm = scaled_error_norm(err, y0, y1, weights, group_ends,
                                         control_i[INFINITY_NORM] != 0)
                accepted, h_new = error_test(norm, control_f[ACCURACY], control_f[EXPONENT], h)
                if not accepted:
                    control_i[ERROR_FAILURES] += 1
                    verdict = REJECTED
            if verdict == REJECTED:
                control_f[H_NEXT] = h_new
                if fixed > 0.0 or h_new < max(control_f[MIN_STEP], time_tol(t0)):
                    _copy(y0, y1)                   # the step is not taken
                    return TOO_SMALL
                control_i[PHASE] = RETRYING
                continue
            control_f[H_PROPOSED] = h_new
            if verdict == ACCEPTED:             # the method projected and realized the end
                phase = ACCEPTED_END
            elif python:
                control_f[T_NEED] = step_end(t0, h, t_stop, control_f[T_REPORT])
                control_i[PHASE] = PROJECTING
                return NEED_PROJECTION
            elif constrained:
                data.time[0] = t0 + h
                control_i[VERDICT] = call_native(
                    project, model, data, realize, y1, control_f[CONSTRAINT_TOL],
                    end_of_step_flags(control_i[PROJECT] != 0,
                                      control_i[INFINITY_NORM] != 0))
                phase = PROJECTING
            else:
                if control_i[PROJECT]:
                    normalize_quaternions(y1[:data.q.shape[0]], model.quaternion_q)
                    control_i[PROJECTIONS] += 1
                control_i[VERDICT] = NOT_NEEDED
                phase = PROJECTING
        if phase == PROJECTING:
            control_i[PHASE] = IDLE
            projected = control_i[VERDICT]
            if projected == PROJECTED:
                control_i[PROJECTIONS] += 1
            elif projected == PROJECTION_FAILED:
                # Halve the step and attempt it again.
                control_i[PROJECTION_FAILURES] += 1
                control_f[H_NEXT] = h * 0.5
                if fixed > 0.0 or h * 0.5 < max(control_f[MIN_STEP], time_tol(t0)):
                    _copy(y0, y1)
                    return TOO_SMALL
                control_i[PHASE] = RETRYING
                continue
            elif projected != NOT_NEEDED:
                _copy(y0, y1)
                return projected
        # The step is accepted.
        control_f[T1] = step_end(t0, h, t_stop, control_f[T_REPORT])
        control_f[H_TAKEN] = h
        if fixed <= 0.0:
            control_f[H_NEXT] = min(control_f[H_PROPOSED], control_f[MAX_STEP])
        control_i[STEPS] += 1
        control_i[END_PENDING] = phase != ACCEPTED_END
        control_i[PHASE] = IDLE


@functools.cache
def _no_model() -> tuple:
    """An EngineModel and EngineData of no bodies: what a run that asks its caller for
    every derivative and projection holds in their place (it reads neither)."""
    ints = functools.partial(np.zeros, dtype=np.int64)
    floats = np.zeros(0)
    return assemble({
        "tree_i": ints((0, 7)), "tree_f": floats, "mobilizer_kinds": Kinds("mobilizers"),
        "quaternion_q": ints((0, 4)), "constraint_kinds": Kinds("constraints"),
        "con_i": ints((0, CON_COLUMNS)), "time": np.zeros(1), "status": ints(0),
        "body_forces": np.zeros((0, 6)), "con_index": ints(0),
        **{name: floats for name in ("q", "u", "qdot", "udot", "qdotdot", "qdotdot_work",
                                     "buf", "mobility_forces", "quaternion_err", "con_f",
                                     "con_buf", "qerr", "uerr", "udoterr", "multipliers")}})


def undefer_qdotdot(data) -> None:
    """After a run of steps on ``data`` (an EngineData) raised: its realizations compute
    q̈ again (the run would have said so on its way out)."""
    data.status[QDOTDOT_DEFERRED] = 0


def python_run(integrator) -> tuple:
    """(the compiled run_steps, a Run of ``integrator``'s arrays, the arrays) for runs
    that ask the integrator for Python's part (``control_i[PYTHON]`` = 1): a model with
    Python in its realization, or a method that attempts its steps in Python."""
    arrays = (*integrator.step_arrays(), *_no_model())
    run = new_run(*arrays, 0, 0)
    return entry_point(run_steps, (run,)), run, arrays


class CompiledStepper:
    """Compiled runs of explicit Runge-Kutta steps on an integrator's advanced State
    (module docstring)."""

    def __init__(self, system, state):
        self._system, self._state = system, state
        self._entry = None

    @classmethod
    def for_state(cls, system, state) -> CompiledStepper | None:
        """A stepper on ``state`` (realized to INSTANCE), or None if its realization has
        Python in it, or something other than the matter subsystem projects, or it has
        variables the matter subsystem does not own."""
        if not _compiled_throughout(system, state, system._plan_of(state)):
            return None
        return cls(system, state)

    def run(self, integrator) -> int | None:
        """``run_steps`` of ``integrator`` (whose advanced State this stepper's is) on the
        State, its contact buffers grown and the run resumed whenever a search outgrew
        them; returns 0, SINGULAR or TOO_SMALL, or None (nothing done) if the State's
        realization has come to need Python (an Instance-stage change such as enabling a
        custom force)."""
        while True:
            if self._state._stage < _INSTANCE:
                self._system.realize(self._state, Stage.INSTANCE)
            plan = self._system._plan_of(self._state)
            entry = self._entry
            if entry is None or entry[0] is not plan or entry[1] is not plan.data:
                if not _compiled_throughout(self._system, self._state, plan):
                    return None
                entry = self._entry = (plan, plan.data, *self._new_run(integrator, plan))
            try:
                failed = entry[3](entry[2])
            except BaseException:
                undefer_qdotdot(plan.data)
                raise
            if plan._constrained:
                self._system.get_matter_subsystem()._warn_if_inconsistent(self._state)
            if failed != OVERFLOW:
                return failed
            plan._search._grow(self._state)

    @staticmethod
    def _new_run(integrator, plan) -> tuple:
        """The Run of ``integrator``'s arrays on ``plan``'s, the compiled run_steps, and
        the arrays (which the Run does not keep alive: its holder does)."""
        model, data = plan.model, plan.data
        steps = integrator.step_arrays()
        project = 0
        if model.con_i.shape[0] > 0:
            project = native_address(project_y, (
                model, data, plan.realize_address, steps.work[2], 0.0, 0))
        arrays = (*steps, model, data)
        fields = (*arrays, plan.realize_address, project)
        run = entry_point(new_run, fields)(*fields)
        return run, entry_point(run_steps, (run,)), arrays

    def error(self, failed: int) -> Exception:
        """The exception for a run that returned a realization's failure ``failed``."""
        return self._system._plan_of(self._state).failure_error(self._state, failed)

    def mark_realized(self, t: float) -> None:
        """The last run advanced the State to time ``t`` (s) and realized its arrays
        through ACCELERATION: say so."""
        self._state._advanced_to(t, _ACCELERATION)

    def project(self, y: np.ndarray, force: bool, tolerance: float,
                infinity_norm: bool) -> bool:
        """The projection of such a model's step end, in y (``project.project_y``, with
        the integrator's settings ``force`` and ``infinity_norm``); whether it moved y.
        Raises KinetreeError if it could not bring the errors under ``tolerance``."""
        plan = self._system._plan_of(self._state)
        model = plan.model
        if model.con_i.shape[0] == 0:
            if force:
                normalize_quaternions(y, model.quaternion_q)
            return force
        status = project_y(model, plan.data, plan.realize_address, y, tolerance,
                           end_of_step_flags(force, infinity_norm))
        if status == PROJECTED or status == NOT_NEEDED:
            return status == PROJECTED
        if status == PROJECTION_FAILED:
            raise KinetreeError(
                f"System.project: the constraint errors could not be brought under "
                f"{tolerance:g} by Newton steps; the configuration may be far from the "
                f"constraints.")
        raise plan.failure_error(self._state, status)


def _compiled_throughout(system, state, plan) -> bool:
    """Whether ``state``'s realization from TIME to ACCELERATION is one compiled call, its
    y is the matter subsystem's [q u], the actuators' z and the force elements' z, and
    nothing but quaternions needs projecting."""
    if plan.realization is None:
        return False
    actions = plan._plan(int(Stage.TIME), int(Stage.ACCELERATION))
    if [a[1:] for a in actions if a[0] != 2] != [(int(POSITION), int(ACCELERATION))]:
        return False
    matter = system.get_matter_subsystem()
    part = state._parts[matter.get_my_subsystem_index()]
    nq, nu = state.get_num_q(), state.get_num_u()
    if part.q_slice != slice(0, nq) or part.u_slice != slice(0, nu):
        return False
    if plan.data.z.shape[0] + plan.data.force_z.shape[0] != state.get_num_z():
        return False                                    # a z the realization does not own
    if matter._constraint_data(state).python:
        return False
    return all(ss is matter or (type(ss).project_q is Subsystem.project_q
                                and type(ss).project_u is Subsystem.project_u)
               for ss in system._subsystems)
