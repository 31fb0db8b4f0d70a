"""Event handlers and reporters (Simbody's EventHandler / EventReporter family).

An event is a moment at which the continuous integration stops so that something discrete
can happen: a handler may change the State (a velocity reversed at an impact, a constraint
enabled, a discrete variable set), after which integration restarts cleanly; a reporter
only looks at the State. Scheduled events happen at times the object names in advance;
triggered events happen where a trigger function of the State changes sign, which the
integrator isolates to a small time window. Add them with ``system.add_event_handler`` and
``system.add_event_reporter``; a TimeStepper calls them.
"""

from __future__ import annotations

import math

from kinetree.errors import InvalidArgumentError
from kinetree.system.stage import Stage


class EventTriggerInfo:
    """Which sign transitions of a trigger function count as events, and how closely the
    integrator must isolate them: the window is this fraction of accuracy × time scale
    (seconds), Simbody's required localization time window."""

    def __init__(self):
        self._rising = True
        self._falling = True
        self._window = 0.1

    def set_trigger_on_rising_sign_transition(self, flag: bool) -> EventTriggerInfo:
        self._rising = bool(flag)
        return self

    def set_trigger_on_falling_sign_transition(self, flag: bool) -> EventTriggerInfo:
        self._falling = bool(flag)
        return self

    def should_trigger_on_rising_sign_transition(self) -> bool:
        return self._rising

    def should_trigger_on_falling_sign_transition(self) -> bool:
        return self._falling

    def set_required_localization_time_window(self, window: float) -> EventTriggerInfo:
        if not window > 0:
            raise InvalidArgumentError(
                f"EventTriggerInfo.set_required_localization_time_window: the window must be "
                f"positive, got {window!r}.")
        self._window = float(window)
        return self

    def get_required_localization_time_window(self) -> float:
        return self._window

    def calc_transition(self, before: float, after: float) -> int:
        """+1 for a watched rising transition (negative to non-negative), -1 for a watched
        falling one (positive to non-positive), 0 otherwise."""
        if before < 0 <= after and self._rising:
            return 1
        if before > 0 >= after and self._falling:
            return -1
        return 0


class EventHandler:
    """Base of objects that may change the State at an event."""

    def handle_event(self, state, accuracy: float):
        """Change ``state`` as the event requires, to ``accuracy``. Return True to end the
        simulation."""
        raise NotImplementedError(
            f"{type(self).__qualname__}.handle_event: override it to say what the event "
            f"does to the State.")


class EventReporter:
    """Base of objects that look at the State at an event without changing it."""

    def handle_event(self, state) -> None:
        raise NotImplementedError(
            f"{type(self).__qualname__}.handle_event: override it to say what to report.")


def _next_multiple(t: float, interval: float, include_current_time: bool) -> float:
    """The smallest multiple of ``interval`` after t (or at t, if ``include_current_time``),
    robust to t being a multiple up to rounding."""
    k = math.floor(t / interval + 0.5)
    candidate = k * interval
    tol = 1e-12 * max(1.0, abs(t))
    if include_current_time and abs(candidate - t) <= tol:
        return candidate
    return (k + 1) * interval if candidate <= t + tol else candidate


class _Interval:
    """What the periodic handler and reporter share: an event at every multiple of the
    interval (s)."""

    def __init__(self, interval: float):
        if not (interval > 0 and math.isfinite(interval)):
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: the event interval must be positive and finite, "
                f"got {interval!r}.")
        self._interval = float(interval)

    def get_event_interval(self) -> float:
        return self._interval

    def get_next_event_time(self, state, include_current_time: bool) -> float:
        return _next_multiple(state.get_time(), self._interval, include_current_time)


class _Triggered:
    """What the triggered handler and reporter share: the stage their trigger function
    needs, its EventTriggerInfo, and the function itself to override."""

    def __init__(self, stage=Stage.POSITION):
        self._stage = Stage.coerce(stage, type(self).__qualname__)
        self._trigger_info = EventTriggerInfo()

    def get_required_stage(self) -> Stage:
        return self._stage

    def get_trigger_info(self) -> EventTriggerInfo:
        return self._trigger_info

    def get_value(self, state) -> float:
        raise NotImplementedError(
            f"{type(self).__qualname__}.get_value: override it to return the trigger "
            f"function, which changes sign at the event.")


class _Scheduled:
    """What the scheduled handler and reporter share: the time of the next event."""

    def get_next_event_time(self, state, include_current_time: bool) -> float:
        raise NotImplementedError(
            f"{type(self).__qualname__}.get_next_event_time: override it to return the time "
            f"(s) of the next event (at the current time only if include_current_time), or "
            f"inf for none.")


class ScheduledEventHandler(_Scheduled, EventHandler):
    """A handler that names the time of its next event; override get_next_event_time."""


class PeriodicEventHandler(_Interval, ScheduledEventHandler):
    """A handler called at every multiple of ``interval`` (s)."""


class TriggeredEventHandler(_Triggered, EventHandler):
    """A handler called where ``get_value(state)`` changes sign; ``stage`` is the stage the
    value needs (POSITION for a height, VELOCITY for a speed, ...)."""


class ScheduledEventReporter(_Scheduled, EventReporter):
    """A reporter that names the time of its next report; override get_next_event_time."""


class PeriodicEventReporter(_Interval, ScheduledEventReporter):
    """A reporter called at every multiple of ``interval`` (s)."""


class TriggeredEventReporter(_Triggered, EventReporter):
    """A reporter called where ``get_value(state)`` changes sign."""


class SubsystemTrigger:
    """One trigger slot a Subsystem allocated (``allocate_event_triggers_by_stage``),
    watched like a TriggeredEventHandler: both sign transitions count, and the event goes
    to the subsystem's ``handle_events`` with cause "triggered" and id (stage, index)."""

    def __init__(self, subsystem, stage: Stage, index: int):
        self._subsystem, self._stage, self._index = subsystem, stage, index
        self._trigger_info = EventTriggerInfo()

    def get_required_stage(self) -> Stage:
        return self._stage

    def get_trigger_info(self) -> EventTriggerInfo:
        return self._trigger_info

    def get_value(self, state) -> float:
        return float(self._subsystem.get_event_triggers_by_stage(state, self._stage)
                     [self._index])

    def handle_event(self, state, accuracy: float):
        return self._subsystem.handle_events(state, "triggered", [(self._stage, self._index)],
                                             accuracy)


class SubsystemScheduledEvents:
    """A Subsystem's scheduled events due at one time, called like a handler (or, with
    ``report``, like a reporter)."""

    def __init__(self, subsystem, event_ids, report: bool = False):
        self._subsystem, self._ids, self._report = subsystem, list(event_ids), report

    def handle_event(self, state, accuracy: float | None = None):
        if self._report:
            return self._subsystem.report_events(state, "scheduled", self._ids)
        return self._subsystem.handle_events(state, "scheduled", self._ids, accuracy)
