"""TimeStepper: runs an integrator through time and calls the System's event handlers and
reporters at their events (Simbody's TimeStepper).

The integrator stops at each scheduled event, triggered event and scheduled report time;
the TimeStepper calls who is due, lets a handler change the advanced State, then restarts
the integrator on a new continuous interval. ``step_to(t)`` returns once t is reached (or
the simulation ends), with the State at exactly t.
"""

from __future__ import annotations

import math

from kinetree.errors import IntegrationError, InvalidArgumentError
from kinetree.integrators.integrator import Integrator, SuccessfulStepStatus
from kinetree.study import checkpoint
from kinetree.system.events import TriggeredEventReporter
from kinetree.system.stage import Stage
from kinetree.system.threads import enter, leave, new_guard

_MAX_STALLED = 100
"""Events handled in a row at one time, or each barely later than the one before, before
step_to calls it a loop."""

_BARELY = 1e-9
"""An event later than the one before by less than this fraction of the System's time
scale barely advances time."""


class TimeStepper:
    """Drives ``integrator`` on ``system``: ``initialize(state)``, then ``step_to(t)``."""

    def __init__(self, system, integrator: Integrator):
        if not isinstance(integrator, Integrator):
            raise InvalidArgumentError(
                f"TimeStepper: expected an Integrator, got {type(integrator).__name__}.")
        if integrator.get_system() is not system:
            raise InvalidArgumentError(
                "TimeStepper: the integrator was made for another System; construct it with "
                "this one.")
        self._system = system
        self._integrator = integrator
        self._report_all_significant_states = False
        self._initialized = False
        self._unhandled = None      # (handlers, triggered) of an event whose handling raised
        new_guard(self)

    def get_system(self):
        return self._system

    def get_integrator(self) -> Integrator:
        return self._integrator

    def set_report_all_significant_states(self, flag: bool) -> None:
        """Return from step_to after every event as well as at the requested time."""
        self._report_all_significant_states = bool(flag)

    def initialize(self, state) -> None:
        """Start at a copy of ``state`` (projected and realized by the integrator);
        reporters due at its time report at the first step_to (handlers due then do not
        run: the State given is taken as the one after any event at that time), unless it
        is the State of a simulate error whose event handling was interrupted: that
        event is handled first, as this TimeStepper would after such an error."""
        pending = state._pending_event
        self._integrator.initialize(state)
        self._include_current_time = True
        self._reported_at = math.nan
        self._initialized = True
        self._unhandled = pending

    def save_checkpoint(self, path) -> None:
        """Write to ``path`` all it takes to go on from here (``load_checkpoint``): the
        integrator's advanced State, last step, step size, counters and method history.
        The file holds numbers only (study/checkpoint.py); loading it runs no code."""
        checkpoint.save(path, self)

    def load_checkpoint(self, path) -> None:
        """Go on from the checkpoint ``path`` saved by a TimeStepper of this System with
        an integrator of this one's class: the steps that follow are those the saving
        run would have taken, bit for bit. Replaces ``initialize``."""
        checkpoint.load(path, self)

    def get_state(self):
        return self._integrator.get_state()

    def get_time(self) -> float:
        return self._integrator.get_time()

    def step_to(self, time: float) -> SuccessfulStepStatus:
        """Advance to ``time`` (s), handling every event on the way; returns
        REACHED_REPORT_TIME there, END_OF_SIMULATION if the integrator's final time or a
        handler ended it first, or REACHED_EVENT_TRIGGER / REACHED_SCHEDULED_EVENT with
        set_report_all_significant_states. One thread at a time (ConcurrentUseError for
        a second)."""
        enter(self, "This TimeStepper")
        try:
            return self._step_to(time)
        finally:
            leave(self)

    def _step_to(self, time: float) -> SuccessfulStepStatus:
        if not self._initialized:
            raise InvalidArgumentError("TimeStepper.step_to: call initialize(state) first.")
        integ, system = self._integrator, self._system
        time = float(time)
        if time < integ.get_time() - 1e-14 * max(1.0, abs(time)):
            raise InvalidArgumentError(
                f"TimeStepper.step_to: time {time} is before the current time "
                f"{integ.get_time()}.")
        if self._unhandled is not None:
            # A handler raised last time: the event is handled now, from the State it
            # found then, which its failure left untouched.
            self._handle(*self._unhandled)
            if integ.is_simulation_over():
                return SuccessfulStepStatus.END_OF_SIMULATION
        stalled, last_time, rounds = 0, math.nan, 0
        barely = _BARELY * system.get_default_time_scale()
        limit = integ._internal_step_limit
        while True:
            current = integ.get_state()
            # Nothing may spin without advancing: events due again and again at one time,
            # or each a hair after the last, would.
            if current.get_time() - last_time < barely:
                stalled += 1
                if stalled > _MAX_STALLED:
                    due = system.calc_time_of_next_scheduled_event(current, False)[1]
                    raise IntegrationError(
                        f"TimeStepper.step_to: time has not advanced by {barely:.3g} s or "
                        f"more per event through {_MAX_STALLED} events in a row, from t = "
                        f"{last_time:.17g} s; due now: "
                        f"{', '.join(type(h).__name__ for h in due) or 'none'}. An event "
                        f"handler's get_next_event_time must leave more than {_BARELY:g} "
                        f"of the System's time scale (set_default_time_scale) between "
                        f"events.")
            else:
                stalled = 0
            last_time = current.get_time()
            # The internal step limit bounds the events handled in one call too, so that a
            # caller watching the steps and the clock (simulate) gets control back.
            rounds += 1
            if limit and rounds > limit:
                return SuccessfulStepStatus.REACHED_STEP_LIMIT
            include = self._include_current_time
            self._include_current_time = False
            t_event, handlers = system.calc_time_of_next_scheduled_event(current, False)
            t_report, reporters = system.calc_time_of_next_scheduled_report(current, include)
            if reporters and t_report <= current.get_time():
                if not abs(self._reported_at - t_report) <= _tol(t_report):
                    self._report(reporters, current)
                continue
            status = integ.step_to(min(time, t_report), t_event)
            state = integ.get_state()
            t = state.get_time()
            if status == SuccessfulStepStatus.REACHED_REPORT_TIME:
                if reporters and abs(t - t_report) <= _tol(t_report):
                    self._report(reporters, state)
                if abs(t - time) <= _tol(time):
                    return status
            elif status in (SuccessfulStepStatus.REACHED_SCHEDULED_EVENT,
                            SuccessfulStepStatus.REACHED_EVENT_TRIGGER):
                if status == SuccessfulStepStatus.REACHED_SCHEDULED_EVENT:
                    self._handle(handlers, [])
                else:
                    self._handle([], integ.get_triggered_events())
                # A report due at the event's time is given the State after the event.
                self._include_current_time = True
                if integ.is_simulation_over():
                    return SuccessfulStepStatus.END_OF_SIMULATION
                if self._report_all_significant_states:
                    return status
            elif status == SuccessfulStepStatus.END_OF_SIMULATION:
                if reporters and abs(t - t_report) <= _tol(t_report):
                    self._report(reporters, state)
                return status
            elif status in (SuccessfulStepStatus.REACHED_STEP_LIMIT,
                            SuccessfulStepStatus.TIME_HAS_ADVANCED):
                return status

    def _report(self, reporters, state) -> None:
        self._reported_at = state.get_time()
        self._system.realize(state, Stage.REPORT)
        for r in reporters:
            r.handle_event(state)

    def _handle(self, handlers, triggered) -> None:
        """Call the due handlers on a copy of the advanced State, then make it the
        advanced State and restart the integrator from it (or end the simulation if a
        handler asked to). If a handler raises, the advanced State is as the event found
        it and the next step_to handles the event again."""
        integ = self._integrator
        self._unhandled = handlers, triggered
        state = integ.get_advanced_state().copy()
        accuracy = integ.get_accuracy_in_use()
        terminate = False
        for h in handlers:
            terminate |= bool(h.handle_event(state, accuracy))
        for obj, _ in triggered:
            if isinstance(obj, TriggeredEventReporter):
                self._system.realize(state, Stage.REPORT)
                obj.handle_event(state)
            else:
                terminate |= bool(obj.handle_event(state, accuracy))
        integ._replace_advanced_state(state)
        self._unhandled = None
        integ.reinitialize(Stage.TIME, terminate)


def _tol(t: float) -> float:
    return 1e-12 * max(1.0, abs(t)) if math.isfinite(t) else 0.0
