"""Subsystem: one flat piece of a System's computation.

A subclass calls ``super().__init__(system)``, which adopts it into the system, then
overrides the stage hooks it needs. Hooks receive the State; only ``realize_topology`` and
``realize_model`` may allocate state variables and cache entries (and ``realize_instance``
constraint-error and event-trigger slots). Indices returned while realizing TOPOLOGY depend
only on the System and may be stored on the subsystem; anything allocated in MODEL may
differ between States and must be kept in the State.

Everything the subsystem knows that a State cannot change is a topological property: a
setter for one must call :meth:`invalidate_subsystem_topology_cache`, so States made
before the change are refused instead of being silently stale.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.system import state_file
from kinetree.system.hooks import RealizeHooks
from kinetree.system.stage import Stage


def projection_weights(values, n: int, where: str, what: str) -> np.ndarray:
    """``values`` as the n positive finite weights of a projection (1 over a unit change or
    a unit error), or an InvalidArgumentError naming ``where`` and ``what``."""
    w = np.asarray(values, dtype=float).reshape(-1)
    if w.size != n or not np.all(np.isfinite(w) & (w > 0)):
        raise InvalidArgumentError(
            f"{where}: {what} must be {n} positive finite numbers, got {w.size}.")
    return w


class Subsystem(RealizeHooks):
    """Base class of every subsystem: state allocation, cache access and stage hooks."""

    def __init__(self, system, name: str | None = None):
        self._system = None
        self._index = -1
        self._name = name or type(self).__name__
        system.adopt_subsystem(self)

    # ------------------------------------------------------------- identity
    def get_system(self):
        return self._system

    def get_my_subsystem_index(self) -> int:
        return self._index

    def get_name(self) -> str:
        return self._name

    def _where(self, method: str) -> str:
        return f"Subsystem '{self._name}'.{method}"

    def invalidate_subsystem_topology_cache(self) -> None:
        """Declare that a topological property changed: every State made so far becomes
        unusable and the System must be realized from TOPOLOGY again."""
        if self._system is not None:
            self._system._topology_changed(f"subsystem '{self._name}'")

    def get_topology_description(self) -> str:
        """Text that identifies this subsystem's topology, folded into the System's
        topology signature (used when loading saved States). Subclasses whose structure
        lives outside the State (bodies, joints) extend it."""
        return f"{type(self).__module__}.{type(self).__qualname__}"

    def project_q(self, state, tolerance: float, **options) -> dict:
        """Move this subsystem's q onto its position constraints (the State is realized to
        TIME); return what was done. ``options`` are those of
        SimbodyMatterSubsystem.project_q. Subsystems without constraints do nothing."""
        return {}

    def project_u(self, state, tolerance: float, **options) -> dict:
        """Move this subsystem's u onto its velocity constraints (the State is realized to
        POSITION); return what was done."""
        return {}

    # -------------------------------------------------------------- stages
    def calc_q_unit_weights(self, state) -> np.ndarray:
        """For each of this subsystem's q, 1 over the change that counts as one unit of
        error (paper eq 6); ones unless overridden. The State is realized to POSITION."""
        return np.ones(len(self.get_q(state)))

    def calc_u_unit_weights(self, state) -> np.ndarray:
        """For each u, 1 over the change of rate that counts as one unit of error; ones
        unless overridden."""
        return np.ones(len(self.get_u(state)))

    def calc_z_unit_weights(self, state) -> np.ndarray:
        """For each z, 1 over the change that counts as one unit of error; ones unless
        overridden."""
        return np.ones(len(self.get_z(state)))

    # --------------------------------------------- its own events
    def calc_time_of_next_scheduled_event(self, state, include_current_time: bool):
        """(t, event_ids): when this subsystem's next scheduled event happens and which of
        its events those are; (inf, []) unless overridden."""
        return math.inf, []

    def calc_time_of_next_scheduled_report(self, state, include_current_time: bool):
        """(t, event_ids) of this subsystem's next scheduled report; (inf, []) unless
        overridden."""
        return math.inf, []

    def handle_events(self, state, cause: str, event_ids, accuracy: float):
        """Change ``state`` for the events that happened: ``cause`` is "scheduled" (ids as
        returned by calc_time_of_next_scheduled_event) or "triggered" (ids are (stage,
        index) of this subsystem's trigger slots whose value changed sign). Return True to
        end the simulation."""
        raise NotImplementedError(
            f"{self._where('handle_events')}: this subsystem has events (scheduled, or trigger "
            f"slots from allocate_event_triggers_by_stage); override handle_events.")

    def report_events(self, state, cause: str, event_ids) -> None:
        """Look at ``state`` at this subsystem's scheduled reports."""
        raise NotImplementedError(
            f"{self._where('report_events')}: this subsystem schedules reports; override "
            f"report_events.")

    def get_stage(self, state) -> Stage:
        """The stage this subsystem's part of ``state`` has been realized to."""
        return state._part_of(self, "Subsystem.get_stage").stage

    def _check(self, state) -> None:
        if self._system is not None:
            self._system._check_state(state, self._where("access"))

    # --------------------------------------------------------- allocation
    def allocate_q(self, state, initial) -> int:
        """Allocate a block of generalized coordinates with the given initial values;
        returns the index of the first within this subsystem's q."""
        return state._allocate_block(self._index, "q", initial, Stage.MODEL)

    def allocate_u(self, state, initial) -> int:
        """Allocate a block of generalized speeds; returns the first index in this
        subsystem's u."""
        return state._allocate_block(self._index, "u", initial, Stage.MODEL)

    def allocate_z(self, state, initial) -> int:
        """Allocate a block of auxiliary continuous variables; returns the first index in
        this subsystem's z."""
        return state._allocate_block(self._index, "z", initial, Stage.MODEL)

    def allocate_q_err(self, state, n: int) -> int:
        """Allocate ``n`` position-constraint error slots."""
        return state._allocate_block(self._index, "qerr", np.zeros(int(n)), Stage.INSTANCE)

    def allocate_u_err(self, state, n: int) -> int:
        """Allocate ``n`` velocity-constraint error slots."""
        return state._allocate_block(self._index, "uerr", np.zeros(int(n)), Stage.INSTANCE)

    def allocate_u_dot_err(self, state, n: int) -> int:
        """Allocate ``n`` acceleration-constraint error slots (and as many multipliers)."""
        return state._allocate_block(self._index, "udoterr", np.zeros(int(n)),
                                     Stage.INSTANCE)

    def allocate_event_triggers_by_stage(self, state, stage, n: int) -> int:
        """Allocate ``n`` event-trigger slots computed at ``stage`` (TIME..ACCELERATION);
        returns the first index within this subsystem's triggers of that stage."""
        return state._allocate_triggers(self._index, stage, n)

    def allocate_discrete_variable(self, state, stage, value) -> int:
        """Allocate a discrete variable holding any Python value; changing it backs the
        State up to the stage before ``stage``."""
        return state._allocate_discrete(self._index, stage, value)

    def allocate_cache_entry(self, state, earliest, latest, value) -> int:
        """Allocate a cache entry computable once ``earliest`` is realized and promised
        valid once ``latest`` is; ``value`` is its initial (placeholder) value."""
        return state._allocate_cache(self._index, earliest, latest, value)

    def allocate_lazy_cache_entry(self, state, earliest, value) -> int:
        """A cache entry computed only on request (latest = INFINITY)."""
        return state._allocate_cache(self._index, earliest, Stage.INFINITY, value)

    # ------------------------------------------------- discrete variables
    def get_discrete_variable(self, state, index: int):
        """The value (read-only if it is an array)."""
        self._check(state)
        value = state._discrete(self, index, "get_discrete_variable").value
        if isinstance(value, np.ndarray):
            value = value.view()
            value.flags.writeable = False
        return value

    def upd_discrete_variable(self, state, index: int):
        """The value, to change in place; the State backs up below the variable's stage."""
        self._check(state)
        d = state._discrete(self, index, "upd_discrete_variable")
        state._discrete_changed(d)
        return d.value

    _CHECKS_SET_VALUES = False
    """Whether ``set_discrete_variable`` refuses a value its variable could not hold
    (``check_loaded_discrete_variable``): so in a subsystem whose variables compiled code
    reads, where a value of another kind or shape would be read as garbage."""

    def set_discrete_variable(self, state, index: int, value) -> None:
        """Replace the value; the State backs up below the variable's stage."""
        self._check(state)
        d = state._discrete(self, index, "set_discrete_variable")
        if self._CHECKS_SET_VALUES:
            why = self.check_loaded_discrete_variable(state, index, value)
            if why is not None:
                raise InvalidArgumentError(
                    f"{self.get_name()}.set_discrete_variable({index}): {why}; change an "
                    f"element's parameters through its setters.")
            if index in self._compiled_variables():
                # Compiled code reads this array itself (a realization plan holds a view
                # of it, made at INSTANCE): the new values go into it.
                d.value[...] = value
                state._discrete_changed(d)
                return
        state._set_discrete_value(d, value)

    def _compiled_variables(self) -> tuple:
        """The indices of the discrete variables whose arrays the compiled realization
        reads in place (its plan holds views of them, made at INSTANCE):
        ``set_discrete_variable`` writes new values into those arrays."""
        return ()

    def check_loaded_discrete_variable(self, state, index: int, value) -> str | None:
        """What makes ``value``, read from a file (State.load, a checkpoint) for discrete
        variable ``index``, unfit for ``state``, a default State of this System holding
        its own value there; None if nothing does. The file is refused, naming the
        variable and this answer. The base class asks that ``value`` be like the
        variable's own (``state_file.mismatch``: of its kind, dtype and shape, finite where
        it is); a subsystem whose variables have ranges (a stiffness >= 0), or change
        their form as a State runs, overrides this, calling it first for the former."""
        d = state._discrete(self, index, "check_loaded_discrete_variable")
        return state_file.mismatch(value, d.value)

    def get_discrete_var_last_update_time(self, state, index: int) -> float:
        """The time (s) at which the variable last got a new value, by a set or upd call or
        an auto-update; nan if never since it was allocated."""
        self._check(state)
        return state._discrete(self, index, "get_discrete_var_last_update_time").time

    # ------------------------------------ auto-update discrete variables
    def allocate_auto_update_discrete_variable(self, state, invalidates, value,
                                               update_depends_on) -> int:
        """Allocate a discrete variable that updates itself: its *update value*, a lazy
        cache entry computable once ``update_depends_on`` is realized, replaces the value
        at the start of each integrator step when it has been computed (marked realized)
        since the State last changed (``State.auto_update_discrete_variables``). That swap
        invalidates nothing, so compute results from the update value, as integrators use
        a step's new q rather than the old; an explicit set or upd of the variable
        invalidates ``invalidates`` as for any discrete variable and drops the pending
        update. Returns the variable's index."""
        return state._allocate_auto_update_discrete(self._index, invalidates, value,
                                                    update_depends_on)

    def _update_entry(self, state, index: int, where: str) -> int:
        """The cache index of auto-update variable ``index``'s update value."""
        self._check(state)
        d = state._discrete(self, index, where)
        if d.update is None:
            raise InvalidArgumentError(
                f"{self._where(where)}: discrete variable {index} is not an auto-update "
                f"variable; allocate it with allocate_auto_update_discrete_variable.")
        return d.update_index

    def get_discrete_var_update_index(self, state, index: int) -> int:
        """The cache-entry index of an auto-update variable's update value (-1 for an
        ordinary discrete variable)."""
        self._check(state)
        return state._discrete(self, index, "get_discrete_var_update_index").update_index

    def get_discrete_var_update_value(self, state, index: int):
        """The value the variable will take at the next auto-update; raises unless it has
        been computed since the State last changed (as ``get_cache_entry``)."""
        return self.get_cache_entry(
            state, self._update_entry(state, index, "get_discrete_var_update_value"))

    def upd_discrete_var_update_value(self, state, index: int):
        """The update value, to fill in place; call
        ``mark_discrete_var_update_value_realized`` when it is complete."""
        return self.upd_cache_entry(
            state, self._update_entry(state, index, "upd_discrete_var_update_value"))

    def set_discrete_var_update_value(self, state, index: int, value) -> None:
        """Replace the update value (for immutable values such as floats); mark it realized
        after."""
        self.set_cache_entry(
            state, self._update_entry(state, index, "set_discrete_var_update_value"), value)

    def is_discrete_var_update_value_realized(self, state, index: int) -> bool:
        """Whether the update value has been computed since the State last changed."""
        return self.is_cache_value_realized(
            state, self._update_entry(state, index, "is_discrete_var_update_value_realized"))

    def mark_discrete_var_update_value_realized(self, state, index: int) -> None:
        """Declare the update value computed; the next auto-update will install it."""
        self.mark_cache_value_realized(
            state, self._update_entry(state, index, "mark_discrete_var_update_value_realized"))

    # -------------------------------------------------------- cache entries
    def get_cache_entry(self, state, index: int):
        """The cached value; raises if it is not current (StageTooLowError below its
        earliest stage, CacheEntryOutOfDateError if not yet recomputed)."""
        self._check(state)
        value = state._get_cache_value(self, index)
        if isinstance(value, np.ndarray):
            value = value.view()
            value.flags.writeable = False
        return value

    def upd_cache_entry(self, state, index: int):
        """The cached value to fill in place (allowed from the stage before its earliest)."""
        self._check(state)
        return state._upd_cache_value(self._index, index).value

    def set_cache_entry(self, state, index: int, value) -> None:
        """Replace the cached value (for immutable values such as floats)."""
        self._check(state)
        state._upd_cache_value(self._index, index).value = value

    def is_cache_value_realized(self, state, index: int) -> bool:
        """Whether the value is current: computed since its inputs last changed."""
        part, ce = state._cache(self, index, "is_cache_value_realized")
        return state._cache_is_current(part, ce)

    def mark_cache_value_realized(self, state, index: int) -> None:
        """Declare the value computed and current until its inputs change."""
        state._mark_cache_value_realized(self._index, index)

    def mark_cache_value_not_realized(self, state, index: int) -> None:
        """Declare the value stale, though no state variable changed: a lazy entry is then
        computed again when next asked for (one whose latest stage the State has reached
        stays current)."""
        state._cache(self, index, "mark_cache_value_not_realized")[1].version = -1

    # ------------------------------------------- this subsystem's variables
    def _part(self, state, method: str):
        """This subsystem's part of a State whose variables exist (MODEL realized)."""
        if state._y is None:
            raise StageTooLowError(Stage.MODEL, state._stage, self._where(method))
        return state._part_of(self, method)

    def get_q(self, state) -> np.ndarray:
        """This subsystem's q (read-only view)."""
        return state._q_ro[self._part(state, "get_q").q_slice]

    def get_u(self, state) -> np.ndarray:
        return state._u_ro[self._part(state, "get_u").u_slice]

    def get_z(self, state) -> np.ndarray:
        return state._z_ro[self._part(state, "get_z").z_slice]

    def upd_q(self, state) -> np.ndarray:
        """This subsystem's q, writable; the State backs up to TIME."""
        return state.upd_q()[self._part(state, "upd_q").q_slice]

    def upd_u(self, state) -> np.ndarray:
        return state.upd_u()[self._part(state, "upd_u").u_slice]

    def upd_z(self, state) -> np.ndarray:
        return state.upd_z()[self._part(state, "upd_z").z_slice]

    def get_q_dot(self, state) -> np.ndarray:
        return state.get_q_dot()[self._part(state, "get_q_dot").q_slice]

    def get_u_dot(self, state) -> np.ndarray:
        return state.get_u_dot()[self._part(state, "get_u_dot").u_slice]

    def get_z_dot(self, state) -> np.ndarray:
        return state.get_z_dot()[self._part(state, "get_z_dot").z_slice]

    def get_q_dot_dot(self, state) -> np.ndarray:
        return state.get_q_dot_dot()[self._part(state, "get_q_dot_dot").q_slice]

    def upd_q_dot(self, state) -> np.ndarray:
        """Writable q̇ cache of this subsystem, to fill in realize_velocity."""
        return state._qdot[self._part(state, "upd_q_dot").q_slice]

    def upd_u_dot(self, state) -> np.ndarray:
        """Writable u̇ cache of this subsystem, to fill in realize_acceleration."""
        return state._udot[self._part(state, "upd_u_dot").u_slice]

    def upd_z_dot(self, state) -> np.ndarray:
        """Writable ż cache of this subsystem, to fill in realize_acceleration."""
        return state._zdot[self._part(state, "upd_z_dot").z_slice]

    def upd_q_dot_dot(self, state) -> np.ndarray:
        """Writable q̈ cache of this subsystem, to fill in realize_acceleration."""
        return state._qdotdot[self._part(state, "upd_q_dot_dot").q_slice]

    def _err_part(self, state, where: str):
        part = state._part_of(self, self._where(where))
        state._errors(self._where(where))
        return part

    def get_q_err(self, state) -> np.ndarray:
        return state.get_q_err()[self._err_part(state, "get_q_err").qerr_slice]

    def get_u_err(self, state) -> np.ndarray:
        return state.get_u_err()[self._err_part(state, "get_u_err").uerr_slice]

    def get_u_dot_err(self, state) -> np.ndarray:
        return state.get_u_dot_err()[self._err_part(state, "get_u_dot_err").udoterr_slice]

    def get_multipliers(self, state) -> np.ndarray:
        return state.get_multipliers()[self._err_part(state, "get_multipliers").udoterr_slice]

    def upd_q_err(self, state) -> np.ndarray:
        return state._qerr[self._err_part(state, "upd_q_err").qerr_slice]

    def upd_u_err(self, state) -> np.ndarray:
        return state._uerr[self._err_part(state, "upd_u_err").uerr_slice]

    def upd_u_dot_err(self, state) -> np.ndarray:
        return state._udoterr[self._err_part(state, "upd_u_dot_err").udoterr_slice]

    def upd_multipliers(self, state) -> np.ndarray:
        return state._multipliers[self._err_part(state, "upd_multipliers").udoterr_slice]

    def get_event_triggers_by_stage(self, state, stage) -> np.ndarray:
        """This subsystem's trigger values of ``stage``, valid once realized to it."""
        stage = state._trigger_stage(stage, self._where("get_event_triggers_by_stage"))
        part = self._err_part(state, "get_event_triggers_by_stage")
        state._require(stage, self._where(f"get_event_triggers_by_stage({stage.name})"))
        view = state._triggers[part.trigger_slices[stage]]
        view.flags.writeable = False
        return view

    def upd_event_triggers_by_stage(self, state, stage) -> np.ndarray:
        """Writable trigger slots of ``stage``, to fill while realizing that stage."""
        stage = state._trigger_stage(stage, self._where("upd_event_triggers_by_stage"))
        part = self._err_part(state, "upd_event_triggers_by_stage")
        return state._triggers[part.trigger_slices[stage]]

    # ------------------------------------------------------------ measures
    _measures: tuple | list = ()

    def adopt_measure(self, measure) -> int:
        """Make this subsystem the owner of ``measure`` (a ``Measure``): its state variables
        and cache entries are then allocated in this subsystem's part of every State, and
        its stage work runs after this subsystem's own hooks. A measure constructed with a
        subsystem is adopted by it; returns the measure's index here. Like every
        structural change this is a topology change: call ``system.realize_topology()``
        for States that see the measure."""
        from kinetree.system.measure import Measure

        if not isinstance(measure, Measure):
            raise InvalidArgumentError(
                f"{self._where('adopt_measure')}: expected a Measure, got "
                f"{type(measure).__name__}.")
        if measure._subsystem is not None:
            raise InvalidArgumentError(
                f"{self._where('adopt_measure')}: this {type(measure).__qualname__} already "
                f"belongs to subsystem '{measure._subsystem.get_name()}'; make another "
                f"measure for this one.")
        measure._check_owner(self)
        self.invalidate_subsystem_topology_cache()
        if not self._measures:
            self._measures = []
        measure._subsystem, measure._index = self, len(self._measures)
        self._measures.append(measure)
        measure._adopted()
        return measure._index

    def get_num_measures(self) -> int:
        return len(self._measures)

    def get_measure(self, index: int):
        """The measure adopted with index ``index``."""
        try:
            return self._measures[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"{self._where('get_measure')}: no measure {index!r}; this subsystem has "
                f"{len(self._measures)}.") from None

    def _realize_measures(self, state, stage: Stage) -> None:
        """This subsystem's measures' work of ``stage``, after its own hook (as Simbody's
        Subsystem::Guts realizes its measures)."""
        for m in self._measures:
            m._realize(stage, state)

    def _measure_work(self) -> dict:
        """{stage: [work(state)]} for the stages from TIME on at which some measure of this
        subsystem has work: what a RealizationPlan runs after the subsystem's own."""
        work = {}
        for g in range(Stage.TIME, Stage.REPORT + 1):
            busy = [m for m in self._measures if m._has_hook(Stage(g))]
            if busy:
                work[Stage(g)] = [_MeasureWork(busy, Stage(g))]
        return work

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self._name}' index={self._index}>"


class _MeasureWork:
    """Some measures' work of one stage, callable with the State."""

    __slots__ = ("measures", "stage")

    def __init__(self, measures: list, stage: Stage):
        self.measures, self.stage = measures, stage

    def __call__(self, state) -> None:
        for m in self.measures:
            m._realize(self.stage, state)

