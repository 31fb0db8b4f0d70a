"""Integrator: advances a State through time with error control, projection, dense output
and event isolation (the paper's §3.2-3.3; Simbody's Integrator).

An integrator sees only the System/State interface: it writes t and y = [q u z] into its
own State, asks ``system.realize(state, Stage.ACCELERATION)`` for ẏ, projects onto the
constraint manifold with ``system.project``, weighs errors with ``system.calc_y_unit_weights``
and watches ``system.calc_event_trigger_values``. Each method (Runge-Kutta, Verlet, BDF)
supplies one step attempt; this class owns everything around it:

- accuracy α (eq 6): a step is accepted when the weighted RMS (or infinity norm) of the
  error estimate is at most α; weights W from the System's unit weights, made relative as
  W_i / max(1, |y_i| W_i); the step size then adapts;
- constraints (eq 7): the state is projected every step to the constraint tolerance and
  quaternions normalized; a step whose projection fails is retried smaller;
- dense output: the state anywhere inside the last step by cubic Hermite interpolation of
  (y, ẏ) at its two ends, so reports land on exact times without shortening steps;
- events: trigger functions are compared at the two ends of each step; a watched sign
  change is isolated inside the step by bracketing on the interpolant, and the advanced
  state is backed up to just after it.
"""

from __future__ import annotations

import contextlib
import enum
import math

import numpy as np

from kinetree.errors import (
    IntegrationError,
    InvalidArgumentError,
    KinetreeError,
    NonFiniteError,
    SimulationDivergedError,
)
from kinetree.integrators import step_control as control
from kinetree.integrators.step_control import scaled_error_norm
from kinetree.system.stage import Stage
from kinetree.system.threads import enter, leave, new_guard

_VELOCITY, _ACCELERATION = Stage.VELOCITY, Stage.ACCELERATION   # an Enum attribute costs ~150 ns
_T1, _H_NEXT, _T_STOP, _T_REPORT = control.T1, control.H_NEXT, control.T_STOP, control.T_REPORT
_STEP_LIMIT, _END_PENDING, _STEPS = control.STEP_LIMIT, control.END_PENDING, control.STEPS


class SuccessfulStepStatus(enum.IntEnum):
    """Why ``step_to`` returned (Simbody's Integrator::SuccessfulStepStatus)."""

    REACHED_REPORT_TIME = 1
    REACHED_EVENT_TRIGGER = 2
    REACHED_SCHEDULED_EVENT = 3
    TIME_HAS_ADVANCED = 4
    REACHED_STEP_LIMIT = 5
    END_OF_SIMULATION = 6
    START_OF_CONTINUOUS_INTERVAL = 7


class TerminationReason(enum.IntEnum):
    """Why the simulation is over (Simbody's Integrator::TerminationReason)."""

    REACHED_FINAL_TIME = 1
    ANY_EVENT_HANDLER_REQUESTED_TERMINATION = 2
    EVENT_HANDLER_REQUESTED_TERMINATION = 3
    INVALID_TERMINATION_REASON = 4


class _Control:
    """An integrator's value held in its control arrays (``step_control``'s layout), where
    a compiled run of its steps reads and writes it as well: ``_control_f[index]`` as a
    float, or ``_control_i[index]`` as an int."""

    def __init__(self, index: int, floats: bool = True):
        self._index = index
        self._array = "_control_f" if floats else "_control_i"

    def __get__(self, integrator, owner=None):
        if integrator is None:
            return self
        return getattr(integrator, self._array).item(self._index)

    def __set__(self, integrator, value) -> None:
        getattr(integrator, self._array)[self._index] = value


class Integrator:
    """The interface every integrator offers (Simbody's Integrator), and the machinery
    they share. A subclass sets the class attributes and implements ``_attempt``; a
    method that compiled runs can take also names it in ``compiled_method``
    (step_control's RUNGE_KUTTA or SEMI_EXPLICIT_EULER)."""

    method_name = ""
    min_order = 1
    max_order = 1
    has_error_control = True
    compiled_method: int | None = None
    _CHECKPOINT: dict = {}
    """The method's own attributes a checkpoint saves, by the kind of value each is
    (study/checkpoint.py's ``_checked``)."""
    _initializes_measures = True
    """Whether initialize() starts the measures afresh (a checkpoint's go on as saved)."""

    # The last step's ends (s), the next and the last step size (s), and the counters.
    _t0, _t1 = _Control(control.T0), _Control(control.T1)
    _h_next, _h_taken = _Control(control.H_NEXT), _Control(control.H_TAKEN)
    _steps_taken = _Control(control.STEPS, floats=False)
    _steps_attempted = _Control(control.ATTEMPTED, floats=False)
    _realizations = _Control(control.REALIZATIONS, floats=False)
    _projections = _Control(control.PROJECTIONS, floats=False)
    _error_test_failures = _Control(control.ERROR_FAILURES, floats=False)
    _projection_failures = _Control(control.PROJECTION_FAILURES, floats=False)

    def __init__(self, system, step_size: float | None = None):
        from kinetree.system.system import System
        if not isinstance(system, System):
            raise InvalidArgumentError(
                f"{type(self).__name__}: expected a System, got {type(system).__name__}.")
        self._control_f = np.zeros(control.N_CONTROL_F)
        self._control_i = np.zeros(control.N_CONTROL_I, dtype=np.int64)
        self._system = system
        new_guard(self)
        self._accuracy = 1e-3
        self._constraint_tolerance: float | None = None
        self._fixed_step: float | None = None
        self._max_step = math.inf
        self._min_step = 0.0
        self._initial_step: float | None = None
        self._final_time = math.inf
        self._project_every_step = True
        self._infinity_norm = False
        self._return_every_internal_step = False
        self._allow_interpolation = True
        self._project_interpolated_states = True
        self._internal_step_limit = 0
        self._advanced = None
        self._scratch_state = self._interpolated_state = None
        self._is_interpolated = False
        self._stepper = None
        self._saw_nonfinite = False     # a derivative of the attempt under way was not finite
        self._send_settings()
        if step_size is not None:
            self.set_fixed_step_size(step_size)
        elif not self.has_error_control:
            raise InvalidArgumentError(
                f"{type(self).__name__} has no error control: give it a step size, "
                f"{type(self).__name__}(system, step_size).")

    # ------------------------------------------------------------ settings
    def _send_settings(self) -> None:
        """Copy the step-control settings into the control arrays (after every setter)."""
        f, i = self._control_f, self._control_i
        f[control.FIXED_STEP] = self._fixed_step or 0.0
        f[control.MAX_STEP], f[control.MIN_STEP] = self._max_step, self._min_step
        f[control.ACCURACY] = self._accuracy
        f[control.EXPONENT] = 1.0 / (self.min_order + 1)
        f[control.CONSTRAINT_TOL] = self.get_constraint_tolerance_in_use()
        i[control.PROJECT] = self._project_every_step
        i[control.INFINITY_NORM] = self._infinity_norm
        i[control.METHOD] = self.compiled_method or 0

    def _positive(self, value, method: str, allow_inf: bool = False) -> float:
        value = float(value)
        if not (value > 0 and (allow_inf or math.isfinite(value))):
            raise InvalidArgumentError(
                f"{type(self).__name__}.{method}: expected a positive value, got {value!r}.")
        return value

    def set_accuracy(self, accuracy: float) -> None:
        """α: the acceptable fraction of a unit error per step (paper eq 5-6); 1e-3 by
        default, about three significant digits. At most 1: an error as large as a unit
        of every variable is no accuracy at all."""
        accuracy = self._positive(accuracy, "set_accuracy")
        if accuracy > 1.0:
            raise InvalidArgumentError(
                f"{type(self).__name__}.set_accuracy: {accuracy!r} is above 1, an error "
                f"larger than a unit of every variable per step; use 1e-2 for a rough "
                f"run, 1e-3 (the default) for about three digits.")
        self._accuracy = accuracy
        self._send_settings()

    def get_accuracy_in_use(self) -> float:
        return self._accuracy

    def set_constraint_tolerance(self, tolerance: float) -> None:
        """The largest position-constraint error left after projection; the accuracy
        unless set."""
        self._constraint_tolerance = self._positive(tolerance, "set_constraint_tolerance")
        self._send_settings()

    def get_constraint_tolerance_in_use(self) -> float:
        return self._constraint_tolerance or self._accuracy

    def set_fixed_step_size(self, h: float) -> None:
        """Take steps of exactly ``h`` (s), with no error test (the last step before a
        stop time is shortened to land on it)."""
        self._fixed_step = self._resolved(self._positive(h, "set_fixed_step_size"),
                                          "set_fixed_step_size")
        self._send_settings()

    def _resolved(self, h: float, method: str) -> float:
        """h, if a step of h can advance time: times closer than ``step_control.time_tol``
        (1e-14 s, relative beyond 1 s) are one time to the integrator."""
        if h < control.TIME_RESOLUTION:
            raise InvalidArgumentError(
                f"{type(self).__name__}.{method}: {h!r} s is below the resolution of time "
                f"({control.TIME_RESOLUTION:g} s, relative beyond 1 s): such steps would "
                f"never advance the simulation. Use a larger step, or simulate in units "
                f"in which it is larger.")
        return h

    def set_maximum_step_size(self, h: float) -> None:
        h = self._resolved(self._positive(h, "set_maximum_step_size", allow_inf=True),
                           "set_maximum_step_size")
        self._check_step_bounds(self._min_step, h, "set_maximum_step_size")
        self._max_step = h
        self._send_settings()

    def set_minimum_step_size(self, h: float) -> None:
        """Below this step size (s) an error-test failure raises IntegrationError."""
        h = float(h)
        if not (h >= 0 and math.isfinite(h)):
            raise InvalidArgumentError(
                f"{type(self).__name__}.set_minimum_step_size: expected a finite h >= 0, "
                f"got {h!r}.")
        self._check_step_bounds(h, self._max_step, "set_minimum_step_size")
        self._min_step = h
        self._send_settings()

    def _check_step_bounds(self, minimum: float, maximum: float, method: str) -> None:
        if minimum > maximum:
            raise InvalidArgumentError(
                f"{type(self).__name__}.{method}: the minimum step size {minimum:g} s would "
                f"exceed the maximum {maximum:g} s; no step could be taken. Lower the "
                f"minimum or raise the maximum.")

    def set_initial_step_size(self, h: float) -> None:
        self._initial_step = self._positive(h, "set_initial_step_size")

    def set_final_time(self, t_final: float) -> None:
        """Past this time (s) step_to returns END_OF_SIMULATION."""
        t_final = float(t_final)
        if math.isnan(t_final):
            raise InvalidArgumentError(
                f"{type(self).__name__}.set_final_time: expected a time (s), or inf for "
                f"none; got nan.")
        self._final_time = t_final

    def set_projection_every_step(self, flag: bool) -> None:
        """Project onto the constraints after every step (the default), or only when the
        errors exceed the tolerance."""
        self._project_every_step = bool(flag)
        self._send_settings()

    def set_use_infinity_norm(self, flag: bool) -> None:
        """Test the largest weighted error instead of the RMS."""
        self._infinity_norm = bool(flag)
        self._send_settings()

    def set_return_every_internal_step(self, flag: bool) -> None:
        """Return TIME_HAS_ADVANCED after every step instead of only at report times."""
        self._return_every_internal_step = bool(flag)

    def set_allow_interpolation(self, flag: bool) -> None:
        """False: stop steps at report times instead of interpolating inside a step."""
        self._allow_interpolation = bool(flag)

    def set_project_interpolated_states(self, flag: bool) -> None:
        self._project_interpolated_states = bool(flag)

    def set_internal_step_limit(self, n: int) -> None:
        """At most ``n`` steps per step_to call (0: no limit); then REACHED_STEP_LIMIT."""
        if int(n) != n or n < 0:
            raise InvalidArgumentError(
                f"{type(self).__name__}.set_internal_step_limit: expected a whole number of "
                f"steps >= 0 (0 for no limit), got {n!r}.")
        self._internal_step_limit = int(n)

    # ------------------------------------------------------------ queries
    def get_method_name(self) -> str:
        return self.method_name

    def get_method_min_order(self) -> int:
        return self.min_order

    def get_method_max_order(self) -> int:
        return self.max_order

    def method_has_error_control(self) -> bool:
        return self.has_error_control

    def get_system(self):
        return self._system

    def get_state(self):
        """The current State: interpolated at the last report time when step_to returned
        inside a step, otherwise the advanced State."""
        self._require_initialized("get_state")
        return self._interpolated if self._is_interpolated else self._advanced

    def get_time(self) -> float:
        """The current State's time (s)."""
        if self._advanced is None:
            self._require_initialized("get_time")
        return (self._interpolated if self._is_interpolated else self._advanced)._t

    def is_state_interpolated(self) -> bool:
        return self._is_interpolated

    def get_advanced_state(self):
        """The State at the end of the last step taken."""
        self._require_initialized("get_advanced_state")
        return self._advanced

    def upd_advanced_state(self):
        """The advanced State, to change at an event; call ``reinitialize`` after."""
        self._require_initialized("upd_advanced_state")
        return self._advanced

    def get_advanced_time(self) -> float:
        return self.get_advanced_state().get_time()

    def get_previous_time_step(self) -> float:
        return self._h_taken

    def get_predicted_next_step_size(self) -> float:
        return self._h_next

    def get_num_steps_taken(self) -> int:
        return self._steps_taken

    def get_num_steps_attempted(self) -> int:
        return self._steps_attempted

    def get_num_realizations(self) -> int:
        return self._realizations

    def get_num_projections(self) -> int:
        return self._projections

    def get_num_error_test_failures(self) -> int:
        return self._error_test_failures

    def get_num_projection_failures(self) -> int:
        return self._projection_failures

    def get_num_convergence_test_failures(self) -> int:
        return self._convergence_failures

    def get_triggered_events(self) -> list:
        """The triggered handlers and reporters whose functions changed sign at the
        REACHED_EVENT_TRIGGER just returned, as (object, +1 rising / -1 falling)."""
        return list(self._triggered)

    def is_simulation_over(self) -> bool:
        return self._termination is not None

    def get_termination_reason(self) -> TerminationReason:
        if self._termination is None:
            raise InvalidArgumentError(
                f"{type(self).__name__}.get_termination_reason: the simulation is not over.")
        return self._termination

    def reset_all_statistics(self) -> None:
        self._steps_taken = self._steps_attempted = self._realizations = 0
        self._projections = self._error_test_failures = self._projection_failures = 0
        self._convergence_failures = 0

    def _require_initialized(self, method: str) -> None:
        if self._advanced is None:
            raise InvalidArgumentError(
                f"{type(self).__name__}.{method}: call initialize(state) first.")

    # ----------------------------------------------------------- lifetime
    def initialize(self, state) -> None:
        """Take a copy of ``state``, project it onto the constraints, realize it to
        ACCELERATION and get ready to step from its time."""
        self._system._check_state(state, f"{type(self).__name__}.initialize")
        self.reset_all_statistics()
        self._advanced = state.copy()
        self._termination = None
        self._triggered: list = []
        self._h_taken = 0.0
        ny = self._advanced.get_num_y()
        # The ends of the last step, the error estimate and a stage's y, in one array.
        self._work = np.empty((6, ny))
        self._y0, self._ydot0, self._y1, self._ydot1, self._err, self._stage_y = self._work[:6]
        nq, nu = self._advanced.get_num_q(), self._advanced.get_num_u()
        self._group_ends = np.array([nq, nq + nu, ny], dtype=np.int64)
        # A method without Runge-Kutta stages: what a run's signature asks for.
        self._k = np.empty((1, ny))
        self._tableau = np.zeros((4, 1))
        self._allocate(ny)
        self._runs_compiled = self._compiles_runs()
        self._begin_continuous_interval(start=self._initializes_measures)

    def _replace_advanced_state(self, state) -> None:
        """Make ``state`` (a State of this System, e.g. one an event handler changed) the
        advanced State; call ``reinitialize`` next."""
        self._system._check_state(state, f"{type(self).__name__}.reinitialize")
        self._advanced = state

    def reinitialize(self, stage=Stage.POSITION, should_terminate: bool = False) -> None:
        """After an event changed the advanced State: restart integration from it (a new
        continuous interval), or end the simulation."""
        self._require_initialized("reinitialize")
        if should_terminate:
            self._termination = TerminationReason.ANY_EVENT_HANDLER_REQUESTED_TERMINATION
            return
        self._begin_continuous_interval()

    def _begin_continuous_interval(self, start: bool = False) -> None:
        """Start integrating from the advanced State as it is now (after initialize or an
        event): the work States take its discrete variables, the step size is estimated
        afresh, and the trigger functions get new starting values. At the ``start`` of a
        study the measures are initialized and the auto-update discrete variables take
        their first update values, as Simbody's Integrator::initialize does."""
        state = self._advanced
        self._auto_updates = state._has_auto_update_variables()
        # Compiled runs of steps, when the System offers them for this State (never with
        # auto-update variables, which change between steps).
        self._stepper = None if self._auto_updates else \
            self._system._compiled_stepper(state)
        self._python_run = None
        self._step_history = None
        self._h_next = math.nan
        self._project(state, force=True, local=False)
        if start:
            self._system.initialize_measures(state)
            if self._auto_updates:
                # The first update values become the variables, and are computed afresh.
                self._realize(state)
                state.auto_update_discrete_variables()
                state.invalidate_all(Stage.INSTANCE)
        self._realize(state)
        self._scratch_state = self._interpolated_state = None
        self._unit_weights = self._system.calc_y_unit_weights(state)
        self._triggers = self._system.get_event_triggers(state)
        self._trigger_values = self._system.calc_event_trigger_values(state, self._triggers)
        t = state.get_time()
        self._t0 = self._t1 = self._returned_time = t
        self._y1[:] = state.get_y()
        self._ydot1[:] = state.get_y_dot()
        self._y0[:] = self._y1
        self._ydot0[:] = self._ydot1
        self._is_interpolated = False
        self._pending_trigger = False
        self._restart()

    def _allocate(self, ny: int) -> None:
        """Hook: allocate the method's work arrays for ``ny`` state variables."""

    def _restart(self) -> None:
        """Hook: a new continuous interval begins at the advanced State (after initialize
        or an event); methods forget any history here."""

    # ------------------------------------------------------ the main call
    def step_to(self, report_time: float, scheduled_event_time: float = math.inf):
        """Advance until the report time is reached (interpolating inside a step if it
        overshoots), an event trigger fires, the scheduled event time or the final time is
        reached, or the step limit; returns the SuccessfulStepStatus saying which. One
        thread at a time (ConcurrentUseError for a second)."""
        enter(self, "This integrator")
        try:
            return self._step_to(report_time, scheduled_event_time)
        finally:
            leave(self)

    def _step_to(self, report_time: float, scheduled_event_time: float):
        if self._advanced is None:
            self._require_initialized("step_to")
        if self._termination is not None:
            raise IntegrationError(
                f"{type(self).__name__}.step_to: the simulation is over "
                f"({self._termination.name}); initialize again to start a new one.")
        report_time = float(report_time)
        if math.isnan(report_time):
            raise InvalidArgumentError(f"{type(self).__name__}.step_to: the report time is nan.")
        # The time step_to last returned at: a call that raised (while reporting, say)
        # may have advanced the State beyond the report time it is called again with.
        now = self._returned_time
        if report_time < now - 1e-14 * max(1.0, abs(now)):
            raise InvalidArgumentError(
                f"{type(self).__name__}.step_to: report time {report_time} is before the "
                f"current time {now}.")
        status = self._advance(report_time, scheduled_event_time)
        self._returned_time = (self._interpolated if self._is_interpolated
                               else self._advanced)._t
        return status

    def _advance(self, report_time: float, scheduled_event_time: float):
        """step_to, after its checks."""
        control_f = self._control_f
        final_time = self._final_time
        t_stop = min(scheduled_event_time, final_time)
        if not self._allow_interpolation:
            t_stop = min(t_stop, report_time)
        # One step at a time where the triggers or the caller must see each step.
        one = bool(self._triggers) or self._return_every_internal_step
        steps = 0
        while True:
            t1 = control_f.item(_T1)
            tol = 1e-14 * max(1.0, abs(t1))
            if report_time < t1 - tol:
                return self._report_at(report_time)
            self._is_interpolated = False
            if self._pending_trigger:
                self._pending_trigger = False
                return SuccessfulStepStatus.REACHED_EVENT_TRIGGER
            if t1 >= final_time - tol:
                self._termination = TerminationReason.REACHED_FINAL_TIME
                return SuccessfulStepStatus.END_OF_SIMULATION
            if t1 >= scheduled_event_time - tol:
                return SuccessfulStepStatus.REACHED_SCHEDULED_EVENT
            if report_time - t1 <= tol:         # and not below -tol (above)
                return SuccessfulStepStatus.REACHED_REPORT_TIME
            limit = self._internal_step_limit
            if limit and steps >= limit:
                return SuccessfulStepStatus.REACHED_STEP_LIMIT
            taken = self._take_steps(t_stop, report_time,
                                     1 if one else limit and limit - steps)
            if not taken and control_f.item(_T1) == t1:
                raise IntegrationError(
                    f"{type(self).__name__}.step_to: no step was taken toward t = "
                    f"{report_time!r} from t = {t1!r}; this is a kinetree bug, please "
                    f"report it.")
            steps += taken
            if one:
                self._check_triggers()
                if self._return_every_internal_step and not self._pending_trigger and \
                        report_time > self._t1 + self._time_tol(self._t1):
                    return SuccessfulStepStatus.TIME_HAS_ADVANCED

    def step_by(self, interval: float, scheduled_event_time: float = math.inf):
        return self.step_to(self.get_time() + interval, scheduled_event_time)

    @staticmethod
    def _time_tol(t: float) -> float:
        return control.TIME_RESOLUTION * max(1.0, abs(t))   # step_control.time_tol, in Python

    # ------------------------------------------------------------ stepping
    def _take_steps(self, t_stop: float, report_time: float, limit: int) -> int:
        """Take steps toward ``t_stop`` until t1 reaches ``report_time`` or ``t_stop``, or
        ``limit`` steps are taken (0: no limit), in one run of steps (engine/step.py);
        returns how many. The run is compiled throughout when the System offers a
        compiled stepper and the method is one a compiled run takes; otherwise it stops
        to ask this integrator for every derivative, attempt and projection that has
        Python in it (``_answer``), and goes on. If anything raises while it is answered
        (a user's force, KeyboardInterrupt), the step under way is undone: the next call
        takes the same step, as an uninterrupted run would."""
        f, i = self._control_f, self._control_i
        if math.isnan(f[_H_NEXT]):
            f[_H_NEXT] = self._fixed_step or self._initial_step or self._starting_step()
        f[_T_STOP], f[_T_REPORT] = t_stop, report_time
        steps_before = i[_STEPS]
        i[_STEP_LIMIT] = limit and steps_before + limit
        stepper = self._stepper if self._runs_compiled else None
        while True:
            failed = None
            if stepper is not None:
                i[control.PYTHON] = i[control.STEP_START_HOOK] = 0
                i[control.METHOD] = self.compiled_method
                failed = stepper.run(self)
                if failed is None:      # Python in the realization now: answer for it
                    stepper = self._stepper = None
            if failed is None:
                failed = self._run_in_python()
            if failed == 0:
                if stepper is not None:
                    stepper.mark_realized(f.item(_T1))
                return int(i[_STEPS] - steps_before)
            if failed < control.NEED_DERIVATIVE:
                raise self._failed_run(failed)
            try:
                self._answer(failed)
            except BaseException:
                self._roll_back()
                raise

    def _run_in_python(self) -> int:
        """A run of steps that asks this integrator for Python's part (``_answer``): the
        stages' derivatives of a Runge-Kutta method, or the method's own attempts."""
        i = self._control_i
        i[control.PYTHON] = 1
        i[control.STEP_START_HOOK] = self._auto_updates
        i[control.METHOD] = self.compiled_method if (
            self._runs_compiled and self.compiled_method == control.RUNGE_KUTTA) \
            else control.PYTHON_ATTEMPT
        if self._python_run is None:
            from kinetree.engine.step import python_run
            self._python_run = python_run(self)
        run_steps, run, _ = self._python_run
        return run_steps(run)

    def _answer(self, request: int) -> None:
        """Do what a run asked for (step_control's NEED_* codes), so that it can go on."""
        f, i = self._control_f, self._control_i
        if request == control.NEED_DERIVATIVE:
            row = i.item(control.NEED_ROW)
            if row >= 0:
                self._f(f.item(control.T_NEED), self._stage_y, self._k[row])
                return
            state = self._advanced        # an accepted step's end: the advanced State
            self._write(state, f.item(control.T_NEED), self._y1)
            try:
                self._realize(state)
            except NonFiniteError as error:
                # The step reached a State whose derivative is not finite: it diverged,
                # and is taken back (by _take_steps) before this is raised.
                self._stage_y[:] = self._y1
                raise self._diverged(f.item(control.T0), f.item(control.H_TAKEN),
                                     self._stage_y) from error
            self._ydot1[:] = state.get_y_dot()
            self._accepted(f.item(control.T0), f.item(control.H_TAKEN))
        elif request == control.NEED_ATTEMPT:
            key = (f.item(control.T0), i.item(_STEPS))
            if self._step_history is None or self._step_history[0] != key:
                self._step_history = key, self._history()
            self._saw_nonfinite = False
            try:
                self._attempt_in_python(f.item(control.T0), f.item(control.H_ATTEMPT))
            except NonFiniteError:
                self._saw_nonfinite = True
            if self._saw_nonfinite:         # the attempt met a derivative that is not finite
                self._y1[:] = np.nan        # the run says the step diverged
                i[control.VERDICT] = control.NO_ESTIMATE
        elif request == control.NEED_PROJECTION:
            i[control.VERDICT] = self._project_end(f.item(control.T_NEED))
        elif self._advanced.auto_update_discrete_variables():     # NEED_STEP_START
            # A step begins: the auto-update discrete variables take the values computed
            # at its start, in the work States too (Simbody's autoUpdateDiscreteVariables).
            for work in (self._scratch_state, self._interpolated_state):
                if work is not None:
                    work._take_auto_update_values(self._advanced)

    def _attempt_in_python(self, t0: float, h: float) -> None:
        """The method's attempt of a step of h from t0 (``_attempt``), and the verdict on
        it for the run: an error estimate to test, or none."""
        err = self._attempt(t0, h)
        if err is not None and err is not self._err:
            self._err[:] = err
        self._control_i[control.VERDICT] = \
            control.NO_ESTIMATE if err is None else control.TEST_ERROR

    def _project_end(self, t: float) -> int:
        """Project y1, the end of a step at time t (s), onto the constraints, leaving it in
        the advanced State; the verdict for the run (PROJECTED, NOT_NEEDED or
        PROJECTION_FAILED)."""
        state = self._advanced
        force = self._project_every_step
        tolerance = self.get_constraint_tolerance_in_use()
        if self._auto_updates:
            state._take_pending_update_values(self._scratch)
        try:
            if self._stepper is not None:      # the projection in compiled code
                projected = self._stepper.project(self._y1, force, tolerance,
                                                  self._infinity_norm)
                self._write(state, t, self._y1)
            else:
                self._write(state, t, self._y1)
                projected = self._projected(state, force)
                self._y1[:] = state.get_y()
        except KinetreeError:
            return control.PROJECTION_FAILED
        return control.PROJECTED if projected else control.NOT_NEEDED

    def _failed_run(self, failed: int) -> Exception:
        """The exception for a run that stopped on ``failed``; the advanced State is put
        back at the last step taken, realized, first."""
        f = self._control_f
        if failed == control.TOO_SMALL:
            error = self._accuracy_unmet(f.item(control.T0), f.item(_H_NEXT))
        elif failed == control.UNRESOLVED:
            t = f.item(_T1)
            error = IntegrationError(
                f"{type(self).__name__}: a step of {f.item(control.H_ATTEMPT):.3g} s from t "
                f"= {t:.17g} s would not advance time (its resolution there is "
                f"{self._time_tol(t):.3g} s); the step size held by the checkpoint "
                f"or the settings is too small.")
        elif failed == control.DIVERGED:
            error = self._diverged(f.item(_T1), f.item(_H_NEXT), self._stage_y)
        else:
            error = self._stepper.error(failed) if self._stepper is not None else \
                IntegrationError(f"{type(self).__name__}: a run of steps failed ({failed}).")
        state = self._advanced
        self._write(state, f.item(_T1), self._y1)
        with contextlib.suppress(NonFiniteError):     # a State the motion diverged at
            self._realize(state)
            self._ydot1[:] = state.get_y_dot()
        return error

    def step_arrays(self) -> control.StepArrays:
        """The arrays a run of this integrator's steps reads and writes
        (``engine/step.py``): its control arrays, the ends of its last step, its stages,
        its method's tableau and its error norm's weights."""
        return control.StepArrays(self._control_f, self._control_i, self._work, self._k,
                                  self._tableau, self._unit_weights, self._group_ends)

    def _compiles_runs(self) -> bool:
        """Whether compiled runs may take this integrator's steps: its class names a
        ``compiled_method`` and overrides none of the step's parts from the class that
        named it."""
        cls = type(self)
        origin = next(c for c in cls.__mro__ if "compiled_method" in vars(c))
        return (origin.compiled_method is not None and cls._attempt is origin._attempt
                and cls._attempt_in_python is Integrator._attempt_in_python
                and cls._accepted is Integrator._accepted)

    def _roll_back(self) -> None:
        """Undo the step under way when answering a run raised: the last step's ends, the
        step size, the method's history and the advanced State, realized again at t1 if
        it can be."""
        f, i = self._control_f, self._control_i
        phase = i.item(control.PHASE)
        i[control.PHASE] = control.IDLE
        if phase == control.ENDING:        # the step was accepted: it is taken back
            f[_T1] = f[control.T0]
            i[_STEPS] -= 1
            i[_END_PENDING] = 0
        if phase != control.STARTING:      # the step had begun
            self._y1[:] = self._y0
            self._ydot1[:] = self._ydot0
            f[_H_NEXT] = f[control.H_START]
            history = self._step_history
            if history is not None and history[0] == (f.item(control.T0), i.item(_STEPS)):
                self._restore_history(history[1])
        state = self._advanced
        self._write(state, f.item(_T1), self._y1)
        with contextlib.suppress(Exception):
            self._system.realize(state, _ACCELERATION)

    def _history(self):
        """Hook: what of the method's own state a step changes before it is accepted
        (multistep methods: their history), for ``_restore_history``."""
        return None

    def _restore_history(self, history) -> None:
        """Hook: put back what ``_history`` returned."""

    def _diverged(self, t0: float, h: float, y_end) -> SimulationDivergedError:
        """The error for a step of h from t0 whose end ``y_end`` is not finite, or whose
        end's derivative is not (then named by the realization's diagnosis)."""
        state = self._advanced
        bad = np.flatnonzero(~np.isfinite(y_end))
        if not bad.size:
            scratch = self._scratch
            self._write(scratch, t0 + h, y_end)
            try:
                self._system.realize(scratch, _ACCELERATION)
                what = "a derivative that is not finite."
            except NonFiniteError as error:
                what = str(error).removeprefix("System.realize: ")
            return SimulationDivergedError(
                f"{type(self).__name__}: the motion diverged: a step of {h:.3g} s from t = "
                f"{t0:.17g} s reached a State where {what} The step was too large for a "
                f"stiff force, or a force grows without bound: lower the step size (or the "
                f"accuracy), check the forces, or use CPodesIntegrator for a stiff model.")
        i = int(bad[0])
        nq, nu = state.get_num_q(), state.get_num_u()
        name = f"q[{i}]" if i < nq else f"u[{i - nq}]" if i < nq + nu else f"z[{i - nq - nu}]"
        return SimulationDivergedError(
            f"{type(self).__name__}: the motion diverged: a step of {h:.3g} s from t = "
            f"{t0:.17g} s made {name} {y_end[i]}. The step was too large for a stiff "
            f"force, or a force grows without bound: lower the step size (or the accuracy), "
            f"check the forces, or use CPodesIntegrator for a stiff model.")

    def _accuracy_unmet(self, t0: float, h_new: float) -> IntegrationError:
        return IntegrationError(
            f"{type(self).__name__}: cannot meet accuracy {self._accuracy:g} at t = "
            f"{t0:.17g}: the step size fell to {h_new:.3g} s (minimum "
            f"{self._min_step:g}). The model may be stiff (try CPodesIntegrator), "
            f"discontinuous without an event, or the accuracy too tight.")

    def _accepted(self, t0: float, h: float) -> None:
        """Hook: the attempt at (t0, h) was accepted (multistep methods keep history)."""

    def _attempt(self, t0: float, h: float):
        """Compute ``self._y1`` from (t0, y0, ẏ0) over h; return the local error estimate
        (an array the size of y) or None when the method has none."""
        raise NotImplementedError

    def _starting_step(self) -> float:
        """Hairer and Wanner's starting step: h with h^(p+1) times the scaled second
        derivative about α, from the first derivative and one trial Euler step."""
        y0, f0 = self._y0, self._ydot0
        scale = self._scale(y0, y0)
        d0 = self._rms(y0 / scale)
        d1 = self._rms(f0 / scale)
        h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        h0 = min(h0, self._max_step, self._system.get_default_time_scale())
        # On the interpolated State, free until the first step ends.
        f1 = self._f(self._t0 + h0, y0 + h0 * f0, self._err, self._interpolated)
        d2 = self._rms((f1 - f0) / scale) / h0
        p = self.min_order + 1
        h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else \
            (0.01 / max(d1, d2)) ** (1.0 / p)
        return min(100 * h0, h1, self._max_step)

    # ------------------------------------------------------------ helpers
    @property
    def _scratch(self):
        """The State the method's stages, trigger searches and diagnoses realize: a copy
        of the advanced State made on first use (a compiled run of steps needs none)."""
        if self._scratch_state is None:
            self._scratch_state = self._advanced.copy()
        return self._scratch_state

    @property
    def _interpolated(self):
        """The State of reports inside a step (and of the starting step's trial): a copy
        of the advanced State made on first use (a run whose reports fall on step ends
        needs none)."""
        if self._interpolated_state is None:
            self._interpolated_state = self._advanced.copy()
        return self._interpolated_state

    def _f(self, t: float, y: np.ndarray, out: np.ndarray, state=None) -> np.ndarray:
        """ẏ at (t, y), written into ``out``: one realization of ``state`` (by default the
        scratch State); NaN where the realization's results are not finite (the step
        diverges, and says so)."""
        state = self._scratch if state is None else state
        self._write(state, t, y)
        try:
            self._realize(state)
        except NonFiniteError:
            self._saw_nonfinite = True
            out[:] = np.nan
            return out
        np.copyto(out, state.get_y_dot())
        return out

    @staticmethod
    def _write(state, t: float, y: np.ndarray) -> None:
        state.set_time(t)
        state.upd_y()[:] = y

    def _realize(self, state) -> None:
        self._system.realize(state, _ACCELERATION)
        self._realizations += 1

    def _project(self, state, force: bool, local: bool = True) -> None:
        """Project q and u onto the constraints (``_projected``), counted when it runs."""
        if self._projected(state, force, local):
            self._projections += 1

    def _projected(self, state, force: bool, local: bool = True) -> bool:
        """Project q and u onto the constraints to the constraint tolerance as Simbody's
        integrators do (``engine/project.py``): where the errors exceed it (with ``force``,
        a tenth of it), and, ``local``, stopping where the steps make them grow (all but
        the projection of the initial State). Whether it counts as a projection: forced,
        or q or u moved."""
        reports = self._system._project(state, self.get_constraint_tolerance_in_use(),
                                         force=force, local=local,
                                         infinity_norm=self._infinity_norm)
        return force or any(r.get("q_change", 0.0) > 0.0 or r.get("u_change", 0.0) > 0.0
                            for r in reports.values())

    def _scale(self, y0: np.ndarray, y1: np.ndarray) -> np.ndarray:
        """Per y, the size of one unit of error: max(1, |y| W) / W, so α is a relative
        error for large y and an absolute one (in units of 1/W) for small y."""
        w = self._unit_weights
        return np.maximum(1.0, np.maximum(np.abs(y0), np.abs(y1)) * w) / w

    def _rms(self, x: np.ndarray) -> float:
        return float(np.sqrt(np.mean(x * x))) if x.size else 0.0

    def _error_norm(self, err: np.ndarray) -> float:
        """The weighted norm of the error estimate that eq 6 compares with α: the largest
        of the RMS (or largest) scaled errors of q, of u and of z, as Simbody measures it,
        so a few badly integrated speeds are not averaged away by many exact angles."""
        return scaled_error_norm(err, self._y0, self._y1, self._unit_weights,
                                  self._group_ends, self._infinity_norm)

    # ------------------------------------------------------- dense output
    def _interpolate(self, t: float, out: np.ndarray) -> np.ndarray:
        """y(t) inside the last step by cubic Hermite interpolation of (y, ẏ) at its ends;
        methods with a better interpolant override this."""
        h = self._t1 - self._t0
        if h <= 0:
            out[:] = self._y1
            return out
        s = (t - self._t0) / h
        r = 1 - s
        h00 = (1 + 2 * s) * (r * r)
        h10 = s * (r * r)
        h01 = s * s * (3 - 2 * s)
        h11 = s * s * (s - 1)
        np.multiply(self._y0, h00, out=out)
        out += (h * h10) * self._ydot0
        out += h01 * self._y1
        out += (h * h11) * self._ydot1
        return out

    def _report_at(self, t: float):
        """Make the interpolated State the current one, at time t inside the last step."""
        state = self._interpolated
        self._write(state, t, self._interpolate(t, self._err))
        if self._project_interpolated_states:
            self._projected(state, self._project_every_step)
        self._system.realize(state, _ACCELERATION)
        self._is_interpolated = True
        return SuccessfulStepStatus.REACHED_REPORT_TIME

    # -------------------------------------------------------------- events
    def _check_triggers(self) -> None:
        """Compare the trigger functions at the two ends of the step just taken; isolate
        the first watched sign change and back the advanced State up to just after it."""
        if not self._triggers:
            return
        before = self._trigger_values
        after = self._system.calc_event_trigger_values(self._advanced, self._triggers)
        fired = [(i, info.calc_transition(before[i], after[i]))
                 for i, info in enumerate(t.get_trigger_info() for t in self._triggers)]
        fired = [(i, d) for i, d in fired if d]
        if not fired:
            self._trigger_values = after
            return
        windows = {i: self._isolate(i, before[i], self._t0, self._t1) for i, _ in fired}
        t_high = min(th for _, th in windows.values())
        self._triggered = [(self._triggers[i], d) for i, d in fired if windows[i][0] < t_high]
        y_high = self._interpolate(t_high, np.empty_like(self._y1))
        state = self._advanced
        self._write(state, t_high, y_high)
        self._project(state, force=True)
        self._realize(state)
        values = self._system.calc_event_trigger_values(state, self._triggers)
        self._accepted(self._t0, t_high - self._t0)
        self._trigger_values = values
        self._t1 = t_high
        self._y1[:] = state.get_y()
        self._ydot1[:] = state.get_y_dot()
        self._pending_trigger = True

    def _trigger_at(self, i: int, t: float) -> float:
        state = self._scratch
        self._write(state, t, self._interpolate(t, self._err))
        self._system.realize(state, self._triggers[i].get_required_stage())
        return float(self._triggers[i].get_value(state))

    def _isolate(self, i: int, value_low: float, t_low: float, t_high: float):
        """Shrink [t_low, t_high] around trigger i's first sign change to its localization
        window (window fraction × α × time scale) by the Illinois variant of regula falsi;
        the change is known to happen by t_high."""
        window = max(self._triggers[i].get_trigger_info()
                     .get_required_localization_time_window()
                     * self._accuracy * self._system.get_default_time_scale(),
                     4 * self._time_tol(t_high))
        f_low = value_low
        f_high = self._trigger_at(i, t_high)
        if np.sign(f_high) == np.sign(f_low):
            return t_low, t_high
        side = 0
        while t_high - t_low > window:
            t = (t_low * f_high - t_high * f_low) / (f_high - f_low) if f_high != f_low \
                else 0.5 * (t_low + t_high)
            lo, hi = t_low + 0.1 * window, t_high - 0.1 * window
            t = min(max(t, lo), hi) if lo < hi else 0.5 * (t_low + t_high)
            f = self._trigger_at(i, t)
            if (f < 0) == (f_low < 0) and f != 0:
                t_low, f_low = t, f
                if side == -1:
                    f_high *= 0.5
                side = -1
            else:
                t_high, f_high = t, f
                if side == 1:
                    f_low *= 0.5
                side = 1
        return t_low, t_high
