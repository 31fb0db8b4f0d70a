"""System: a stateless collection of Subsystems that realizes States.

The System holds no values that change during a study; those live in the State. Its job
is to lay out a State for its subsystems (``realize_topology``) and to realize a State
stage by stage, running every subsystem's hook for a stage before any hook of the next.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np

from kinetree.errors import (
    InvalidArgumentError,
    RealizeTopologyMustBeCalledFirstError,
    StageTooLowError,
    StateMismatchError,
    TopologyChangedError,
)
from kinetree.system.events import (
    EventHandler,
    EventReporter,
    ScheduledEventHandler,
    ScheduledEventReporter,
    SubsystemScheduledEvents,
    SubsystemTrigger,
    TriggeredEventHandler,
    TriggeredEventReporter,
)
from kinetree.system.stage import STAGES, Stage
from kinetree.system.state import State, _SubsystemPart
from kinetree.system.subsystem import Subsystem, projection_weights
from kinetree.system.threads import enter, leave

_HOOK_NAMES = (None, "realize_topology", "realize_model", "realize_instance", "realize_time",
               "realize_position", "realize_velocity", "realize_dynamics",
               "realize_acceleration", "realize_report")
"""The subsystem hook of each stage, indexed by stage number."""

_uids = itertools.count(1)


class System:
    """A System of Subsystems. Build it, then ``state = system.realize_topology()``.

    Adding a subsystem, or a subsystem calling ``invalidate_subsystem_topology_cache()``,
    changes the topology: States made before are then refused.
    """

    def __init__(self, name: str = "System"):
        self._name = name
        self._uid = f"{type(self).__name__}#{next(_uids)}"
        self._subsystems: list = []
        self._topology_version = 0
        self._topology_realized = False
        self._last_change = "the System was built"
        self._default_state: State | None = None
        self._order: list[int] = []
        self._event_handlers: list = []
        self._event_reporters: list = []
        self._time_scale = 0.1
        self._length_scale = 1.0

    def get_name(self) -> str:
        return self._name

    # ----------------------------------------------------------- subsystems
    def adopt_subsystem(self, subsystem) -> int:
        """Add ``subsystem`` to this System; returns its index. Subsystem constructors
        call this for you."""
        if subsystem._system is not None:
            raise InvalidArgumentError(
                f"System.adopt_subsystem: subsystem '{subsystem.get_name()}' already belongs "
                f"to a System; create a new subsystem for this one.")
        subsystem._system = self
        subsystem._index = len(self._subsystems)
        self._subsystems.append(subsystem)
        self._topology_changed(f"subsystem '{subsystem.get_name()}' was added")
        return subsystem._index

    def get_num_subsystems(self) -> int:
        return len(self._subsystems)

    def get_subsystem(self, index: int):
        try:
            return self._subsystems[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"System.get_subsystem: no subsystem {index!r}; this System has "
                f"{len(self._subsystems)}.") from None

    # ------------------------------------------------------------ topology
    def _topology_changed(self, what: str) -> None:
        self._topology_version += 1
        self._topology_realized = False
        self._last_change = what
        self._default_state = None

    def get_system_topology_cache_version(self) -> int:
        """Bumped by every topological change; States remember the one they were made
        with."""
        return self._topology_version

    def system_topology_has_been_realized(self) -> bool:
        return self._topology_realized

    def realize_topology(self) -> State:
        """Lay out a fresh State for this System, realize it through MODEL, keep it as the
        default State, and return a copy of it."""
        state = State()
        state._system_uid = self._uid
        state._topology_version = self._topology_version
        state._parts = [_SubsystemPart(i, ss.get_name())
                        for i, ss in enumerate(self._subsystems)]
        self._order = list(self._realization_order())
        self._realize_stage(state, Stage.TOPOLOGY)
        state._signature = self._signature(state)
        self._topology_realized = True
        self._realize_stage(state, Stage.MODEL)
        self._default_state = state
        return state.copy()

    def get_default_state(self) -> State:
        """A copy of the default State (realized through MODEL), realizing TOPOLOGY first
        if the System changed since."""
        if self._default_state is None:
            return self.realize_topology()
        return self._default_state.copy()

    def _signature(self, state: State) -> str:
        """A digest of the structure: subsystem types and descriptions and what each
        allocated while realizing TOPOLOGY."""
        parts = []
        for ss, p in zip(self._subsystems, state._parts):
            parts.append("|".join([
                ss.get_topology_description(),
                *(f"{k}{[b.values.size for b in getattr(p, k + '_blocks')]}"
                  for k in ("q", "u", "z")),
                "d" + ",".join(f"{d.stage.name}:{type(d.value).__name__}"
                               for d in p.discrete),
                "c" + ",".join(f"{c.earliest.name}-{c.latest.name}" for c in p.cache),
            ]))
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    # ---------------------------------------------------------- realization
    def _check_state(self, state: State, where: str) -> None:
        if not isinstance(state, State):
            raise InvalidArgumentError(f"{where}: expected a State, got {type(state).__name__}.")
        if state._system_uid != self._uid:
            if state._system_uid is None:
                raise RealizeTopologyMustBeCalledFirstError(
                    f"{where}: this State is empty; get one from system.realize_topology().")
            raise StateMismatchError(
                f"{where}: this State belongs to another System ({state._system_uid}, not "
                f"{self._uid}); get one from this System's realize_topology().")
        if state._topology_version != self._topology_version:
            raise TopologyChangedError(
                f"{where}: this State was made before the System's topology changed "
                f"({self._last_change}); call system.realize_topology() for a new State.")

    def realize_model(self, state: State) -> None:
        """Realize through MODEL: allocate the state variables the Model-stage choices ask
        for."""
        self.realize(state, Stage.MODEL)

    def realize(self, state: State, stage=Stage.REPORT) -> None:
        """Realize ``state`` through ``stage``, running each subsystem's hook for every
        stage not yet realized, all subsystems for one stage before the next stage."""
        self._check_state(state, "System.realize")
        stage = Stage.coerce(stage, "System.realize")
        if stage > Stage.REPORT:
            raise InvalidArgumentError("System.realize: the highest stage is REPORT.")
        enter(state, "This State")
        try:
            for g in range(state._stage + 1, stage + 1):
                self._realize_stage(state, STAGES[g])
        finally:
            leave(state)

    def _realize_stage(self, state: State, g: Stage) -> None:
        """Run the hooks of stage ``g`` for every subsystem still below it, in the
        realization order, then lay out what becomes known at MODEL and INSTANCE."""
        hook = _HOOK_NAMES[g]
        state._realizing = g
        parts, subsystems = state._parts, self._subsystems
        try:
            for i in self._order:
                part = parts[i]
                if part.stage < g:
                    subsystem = subsystems[i]
                    getattr(subsystem, hook)(state)
                    if subsystem._measures:
                        subsystem._realize_measures(state, g)
                    part.stage = g
        finally:
            state._realizing = None
        if g == Stage.MODEL:
            state._pack_continuous()
        elif g == Stage.INSTANCE:
            state._pack_instance()
        state._stage = g

    def initialize_measures(self, state: State) -> None:
        """Start every adopted measure's own variables from ``state``, as at the start of a
        study: an Integrate from its initial-condition measure, an extreme from its
        operand's value now, a Delay's memory from its source's value now, and so on.
        ``Integrator.initialize`` calls it (Simbody's Initialization event); call it
        yourself when stepping a State by hand. The State is realized as far as the
        measures need."""
        self._check_state(state, "System.initialize_measures")
        for subsystem in self._subsystems:
            for measure in subsystem._measures:
                measure._initialize(state)

    def _realization_order(self) -> range | list[int]:
        """Subsystem indices in the order their hooks run within a stage: adoption order
        here; a System subclass may put one subsystem first (the matter of a
        MultibodySystem, whose results the force subsystems read)."""
        return range(len(self._subsystems))

    def _compiled_stepper(self, state: State):
        """An object taking an integrator's steps on ``state`` in compiled code
        (engine/step.py), or None: a System of arbitrary subsystems has none; a
        MultibodySystem of built-in elements does."""
        return None

    def project(self, state: State, tolerance: float = 1e-10, y_weights=None,
                oo_constraint_tols=None) -> dict:
        """Move q, then u, onto the constraint manifold as Simbody's project: each
        subsystem moves its own q, then the State is realized to POSITION and each moves
        its u. Errors count where the RMS of each times its entry of
        ``oo_constraint_tols`` (1 over its tolerance; one per entry of [qerr | uerr], all
        1 by default) exceeds ``tolerance``; the change of q and u is the smallest
        weighted by the u entries of ``y_weights`` (one per y = [q u z], 1 over a unit
        change; ones by default). Returns, per subsystem name, what it did (empty for
        subsystems with nothing to project)."""
        return self._project(state, tolerance, y_weights, oo_constraint_tols)

    def _project(self, state: State, tolerance: float, y_weights=None,
                 oo_constraint_tols=None, **options) -> dict:
        """``project`` with the options of the subsystems' project_q and project_u
        (``force``, ``local``, ``infinity_norm``: how an integrator projects)."""
        self._check_state(state, "System.project")
        if not tolerance > 0:
            raise InvalidArgumentError(
                f"System.project: the tolerance must be positive, got {tolerance!r}.")
        reports = {}
        self.realize(state, Stage.TIME)
        u_weights = qerr_weights = uerr_weights = None
        if y_weights is not None:
            nq = state.get_num_q()
            u_weights = projection_weights(y_weights, state.get_num_y(), "System.project",
                                           "y_weights")[nq:nq + state.get_num_u()]
        if oo_constraint_tols is not None:
            nqerr = state.get_num_q_err()
            tols = projection_weights(oo_constraint_tols, nqerr + state.get_num_u_err(),
                                      "System.project", "oo_constraint_tols")
            qerr_weights, uerr_weights = tols[:nqerr], tols[nqerr:]
        parts = {ss: part for ss, part in zip(self._subsystems, state._parts)}
        for i in self._order:
            ss = self._subsystems[i]
            part = parts[ss]
            reports[ss.get_name()] = dict(ss.project_q(
                state, tolerance, **options,
                **self._slice_of(u_weights, part.u_slice, "u_weights"),
                **self._slice_of(qerr_weights, part.qerr_slice, "qerr_weights")))
        self.realize(state, Stage.POSITION)
        for i in self._order:
            ss = self._subsystems[i]
            part = parts[ss]
            reports[ss.get_name()].update(ss.project_u(
                state, tolerance, **options,
                **self._slice_of(u_weights, part.u_slice, "u_weights"),
                **self._slice_of(uerr_weights, part.uerr_slice, "uerr_weights")))
        self.realize(state, Stage.VELOCITY)
        return reports

    @staticmethod
    def _slice_of(values, where: slice, name: str) -> dict:
        """{name: values[where]}, or nothing when ``values`` is None."""
        return {} if values is None else {name: values[where]}

    # ------------------------------------------------------ scales, weights
    def set_default_time_scale(self, time_scale: float) -> None:
        """The time (s) over which something interesting happens: it sizes the event
        localization windows and bounds the first step (default 0.1 s)."""
        self._time_scale = self._positive(time_scale, "set_default_time_scale")

    def get_default_time_scale(self) -> float:
        return self._time_scale

    def set_default_length_scale(self, length_scale: float) -> None:
        """The size (m) of a significant change of a translational coordinate; angles count
        in radians (default 1 m)."""
        self._length_scale = self._positive(length_scale, "set_default_length_scale")

    def get_default_length_scale(self) -> float:
        return self._length_scale

    @staticmethod
    def _positive(value: float, method: str) -> float:
        if not (value > 0 and math.isfinite(value)):
            raise InvalidArgumentError(f"System.{method}: expected a positive finite value, "
                                       f"got {value!r}.")
        return float(value)

    def calc_y_unit_weights(self, state: State) -> np.ndarray:
        """W of the paper's eq 6: for each y = [q u z], 1 over the change that counts as one
        unit of error (a radian or a length scale for q, a radian or a length scale per
        second for u). The State is realized to POSITION; each subsystem weighs its own
        variables."""
        self.realize(state, Stage.POSITION)
        nq, nu = state.get_num_q(), state.get_num_u()
        w = np.ones(state.get_num_y())
        for ss, part in zip(self._subsystems, state._parts):
            w[part.q_slice] = ss.calc_q_unit_weights(state)
            w[nq:nq + nu][part.u_slice] = ss.calc_u_unit_weights(state)
            w[nq + nu:][part.z_slice] = ss.calc_z_unit_weights(state)
        return w

    # ---------------------------------------------------------------- events
    def add_event_handler(self, handler: EventHandler) -> EventHandler:
        """Adopt a ScheduledEventHandler, PeriodicEventHandler or TriggeredEventHandler; a
        TimeStepper calls it. Returns it."""
        if not isinstance(handler, (ScheduledEventHandler, TriggeredEventHandler)):
            raise InvalidArgumentError(
                f"System.add_event_handler: expected a ScheduledEventHandler or "
                f"TriggeredEventHandler subclass instance, got {type(handler).__name__}.")
        self._event_handlers.append(handler)
        return handler

    def add_event_reporter(self, reporter: EventReporter) -> EventReporter:
        """Adopt a ScheduledEventReporter, PeriodicEventReporter or TriggeredEventReporter."""
        if not isinstance(reporter, (ScheduledEventReporter, TriggeredEventReporter)):
            raise InvalidArgumentError(
                f"System.add_event_reporter: expected a ScheduledEventReporter or "
                f"TriggeredEventReporter subclass instance, got {type(reporter).__name__}.")
        self._event_reporters.append(reporter)
        return reporter

    def get_event_triggers(self, state: State | None = None) -> list:
        """The triggered handlers and reporters, then (given a State realized to INSTANCE)
        a SubsystemTrigger for each trigger slot the subsystems allocated in it: the order
        of calc_event_trigger_values."""
        triggers = [e for e in (*self._event_handlers, *self._event_reporters)
                    if isinstance(e, (TriggeredEventHandler, TriggeredEventReporter))]
        if state is not None:
            self.realize(state, Stage.INSTANCE)
            for ss, part in zip(self._subsystems, state._parts):
                for stage, sl in part.trigger_slices.items():
                    triggers += [SubsystemTrigger(ss, stage, k)
                                 for k in range(sl.stop - sl.start)]
        return triggers

    def calc_event_trigger_values(self, state: State, triggers=None) -> np.ndarray:
        """The trigger functions' values at ``state``, realized as far as they need."""
        triggers = self.get_event_triggers(state) if triggers is None else triggers
        if not triggers:
            return np.empty(0)
        self.realize(state, max(t.get_required_stage() for t in triggers))
        values = np.array([t.get_value(state) for t in triggers], dtype=float)
        if np.isnan(values).any():
            bad = triggers[int(np.flatnonzero(np.isnan(values))[0])]
            raise InvalidArgumentError(
                f"{type(bad).__name__}.get_value returned nan at t = {state.get_time():.17g} "
                f"s: a trigger function must be a number whose change of sign marks the "
                f"event (a nan has no sign, so the event could never fire).")
        return values

    def calc_time_of_next_scheduled_event(self, state: State, include_current_time: bool):
        """(t, due): the time (s) of the next scheduled events, of handlers and of the
        subsystems' own, and who is due then (each callable as handle_event(state,
        accuracy))."""
        due = [(float(h.get_next_event_time(state, include_current_time)), h)
               for h in self._event_handlers if isinstance(h, ScheduledEventHandler)]
        for ss in self._scheduling("calc_time_of_next_scheduled_event"):
            t, ids = ss.calc_time_of_next_scheduled_event(state, include_current_time)
            if ids:
                due.append((float(t), SubsystemScheduledEvents(ss, ids)))
        self._check_event_times(due, "get_next_event_time")
        return self._earliest(due, state.get_time(), include_current_time)

    def calc_time_of_next_scheduled_report(self, state: State, include_current_time: bool):
        """(t, due): the time (s) of the next scheduled reports, of reporters and of the
        subsystems' own, and who is due then (each callable as handle_event(state))."""
        due = [(float(r.get_next_event_time(state, include_current_time)), r)
               for r in self._event_reporters if isinstance(r, ScheduledEventReporter)]
        for ss in self._scheduling("calc_time_of_next_scheduled_report"):
            t, ids = ss.calc_time_of_next_scheduled_report(state, include_current_time)
            if ids:
                due.append((float(t), SubsystemScheduledEvents(ss, ids, report=True)))
        self._check_event_times(due, "get_next_event_time")
        return self._earliest(due, state.get_time(), include_current_time)

    def _scheduling(self, method: str) -> list:
        """The subsystems whose type overrides ``method`` (a scheduled event or report
        time): the others have none, and asking each at every report costs a
        microsecond."""
        return [ss for ss in self._subsystems
                if getattr(type(ss), method) is not getattr(Subsystem, method)]

    @staticmethod
    def _check_event_times(due, method: str) -> None:
        for t, who in due:
            if math.isnan(t):
                raise InvalidArgumentError(
                    f"{type(who).__name__}.{method} returned nan: return the time (s) of "
                    f"its next event, or inf when it has none.")

    @staticmethod
    def _earliest(due, now: float, include_current_time: bool):
        """The earliest time in ``due`` [(t, who)] and who is due then, counting as Simbody
        does only times after ``now`` (or at it, with ``include_current_time``): a
        handler whose next time stays at the current time is not handled again and
        again."""
        # "At now" allows the rounding of two periodic schedules meeting: 9 × (1/30) s
        # and 6 × 0.05 s are one ulp apart.
        at_now = 1e-12 * max(1.0, abs(now))
        if not due:
            return math.inf, []
        due = [(ti, o) for ti, o in due
               if ti > now or (include_current_time and ti >= now - at_now)]
        t = min((ti for ti, _ in due), default=math.inf)
        if math.isinf(t):
            return t, []
        tol = 1e-12 * max(1.0, abs(t))
        return t, [o for ti, o in due if ti <= t + tol]

    def require_stage(self, state: State, stage: Stage, where: str) -> None:
        """Raise StageTooLowError unless ``state`` is realized to ``stage``; for element
        accessors."""
        if state._stage < stage:
            self._check_state(state, where)
            raise StageTooLowError(stage, state._stage, where)

    def __repr__(self) -> str:
        names = ", ".join(ss.get_name() for ss in self._subsystems)
        return f"<{type(self).__name__} '{self._name}' [{names}]>"
