"""simulate: one call from a State to a Trajectory, for when the whole run is wanted rather
than a loop of ``TimeStepper.step_to`` calls.

It builds the integrator (RungeKuttaMerson unless told otherwise), drives a TimeStepper
from the State's time to ``t_final``, and records t, q, u, z, the energy (when the System
can compute it) and any requested outputs at every report time. The integrator
interpolates to the report times, so they cost no step shortening and do not change the
accuracy; event handlers and reporters of the System run as the TimeStepper meets them.
"""

from __future__ import annotations

import math
import re
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
from tqdm import tqdm

import kinetree.integrators as _integrators
from kinetree.engine.forward import OVERFLOW
from kinetree.engine.reports import NEED_OTHER, REPORT_FAILED, RUN_FAILED, CompiledReports
from kinetree.errors import (
    IntegrationError,
    InvalidArgumentError,
    KinetreeWarning,
    SimulationError,
)
from kinetree.integrators.cpodes import CPodesIntegrator
from kinetree.integrators.integrator import Integrator, SuccessfulStepStatus
from kinetree.study.time_stepper import TimeStepper
from kinetree.study.trajectory import Trajectory

DEFAULT_ACCURACY = 1e-3
DEFAULT_REPORTS = 100
"""Without a report interval, (t_final - t0) / 100: about a hundred rows."""

PROGRESS_DELAY = 2.0
"""s of wall time before the automatic progress bar (progress=None) appears."""

_NOT_THERE_YET = (SuccessfulStepStatus.REACHED_STEP_LIMIT, SuccessfulStepStatus.TIME_HAS_ADVANCED)


def simulate(system, state, t_final: float, accuracy: float | None = None,
             integrator=None, report_interval: float | None = None,
             progress: bool | None = None,
             outputs: dict[str, Callable] | None = None, checkpoint=None, resume=None,
             max_steps: int | None = None, max_wall_time: float | None = None,
             **options) -> Trajectory:
    """Integrate ``system`` from a copy of ``state`` (left unchanged) to ``t_final`` (s) and
    return the Trajectory of its report times.

    - ``accuracy``: the integrator's α (default 1e-3). It is applied to an integrator
      instance only when given here; an instance otherwise keeps its own.
    - ``integrator``: None (RungeKuttaMerson), an Integrator subclass, its name as a string
      (``"Verlet"``, ``"RungeKuttaFeldbergIntegrator"``; case-insensitive), or an instance
      made for ``system``, already configured. The last step may pass ``t_final``; the
      final row is interpolated at it, so reporters due then still report.
    - ``report_interval`` (s): rows at the initial time, at every multiple k·interval
      after it and before ``t_final``, and at ``t_final``; default (t_final - t0) / 100.
    - ``progress``: a progress bar on stderr; None shows one only on a terminal and only
      once the run has taken 2 s, True always, False never.
    - ``outputs``: extra columns, label -> function(state) -> float, evaluated on each
      report State (realized to ACCELERATION). An ``energy`` column is recorded whenever
      the System has ``calc_energy``.
    - ``checkpoint``: a path; after every report the run's checkpoint is written there
      (TimeStepper.save_checkpoint), so a run that stops for any reason can go on.
    - ``resume``: a checkpoint's path; the run goes on from it (``state`` is then
      ignored and may be None) with the same steps the saving run would have taken. Give
      the integrator class that saved it.
    - ``max_steps``, ``max_wall_time`` (s): stop with a SimulationError (the rows so far
      kept) once the run has taken that many steps or that long, saying whether the
      model looks stiff.
    - ``options``: integrator settings by the name of their setter without ``set_``:
      ``constraint_tolerance=1e-8``, ``maximum_step_size=0.01``, ``fixed_step_size=1e-3``
      (which a method without error control, such as SemiExplicitEuler, needs), ...

    The Trajectory's ``stats`` are the integrator's counts (steps taken and attempted,
    realizations, projections, error-test failures, ...) and the wall time; a handler
    that ends the simulation early ends the Trajectory at its time.

    If anything raises during the run (a user's force, an event handler, an integrator
    that cannot meet its accuracy), ``simulate`` raises SimulationError from it, saying
    when and, for a user's force, which one; its ``trajectory`` holds the reports made
    until then and its ``state`` the last accepted State. KeyboardInterrupt passes
    through, carrying the same two attributes.
    """
    integ = _make_integrator(system, integrator, accuracy, options)
    stepper = TimeStepper(system, integ)
    if resume is not None:
        stepper.load_checkpoint(resume)
    else:
        system._check_state(state, "simulate")
        try:
            stepper.initialize(state)
        except Exception as error:
            # The run never began: the State it was given is where it goes on from.
            raise SimulationError(
                f"simulate: could not start at t = {state.get_time():.6g} s: "
                f"{type(error).__name__}: {str(error).rstrip('.')}"
                + "".join(f" ({note})" for note in getattr(error, "__notes__", ()))
                + ". No report was made; fix the cause and simulate again from the same "
                "State (this error's .state).", None, state, state.get_time()) from error
    t0 = stepper.get_time()
    t_final = _seconds(t_final, "t_final")
    if not math.isfinite(t_final):
        raise InvalidArgumentError(
            f"simulate: t_final must be a finite time (s), got {t_final!r}; a run that "
            f"should go on until an event ends it takes a t_final beyond that event.")
    if not t_final > t0:
        raise InvalidArgumentError(
            f"simulate: t_final = {t_final!r} s is not after the State's time {t0!r} s; ask "
            f"for a later t_final (or state.set_time to start earlier).")
    if report_interval is None:
        report_interval = (t_final - t0) / DEFAULT_REPORTS
    report_interval = _seconds(report_interval, "report_interval")
    if not (math.isfinite(report_interval) and report_interval > 0):
        raise InvalidArgumentError(
            f"simulate: report_interval must be a positive number of seconds, got "
            f"{report_interval!r}.")
    if (t_final - t0) / report_interval > MAX_REPORTS:
        raise InvalidArgumentError(
            f"simulate: a report every {report_interval:g} s from t = {t0:g} to {t_final:g} "
            f"s makes {(t_final - t0) / report_interval:.3g} rows, more than "
            f"{MAX_REPORTS:.0e}; take a larger report_interval (the steps do not depend "
            f"on it).")
    outputs = dict(outputs or {})
    if hasattr(system, "calc_energy"):
        outputs = {"energy": system.calc_energy, **outputs}
    for label, f in outputs.items():
        if not callable(f):
            raise InvalidArgumentError(
                f"simulate: output '{label}' must be a function of the State returning a "
                f"number, got {type(f).__name__}.")

    times = report_times(t0, t_final, report_interval)
    limits = _Limits(max_steps, max_wall_time, t0)
    step_limit = integ._internal_step_limit
    if not step_limit:
        # Come back between reports now and then to look at the clock, the count and
        # the signs of stiffness (the steps themselves are the same).
        integ.set_internal_step_limit(_LIMIT_CHECK_STEPS)
    wall = time.perf_counter()
    first = stepper.get_state()
    n = len(times)
    y = np.empty((n, first.get_num_y()))
    t = np.empty(n)
    extra = {label: np.empty(n) for label in outputs}
    # (function, its column, label) once, so a row looks nothing up.
    evaluate = [(f, extra[label], label) for label, f in outputs.items()]
    bar = tqdm(total=t_final - t0, desc="simulate", unit="s", file=sys.stderr,
               disable=None if progress is None else not progress,
               delay=PROGRESS_DELAY if progress is None else 0.0,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| t = {n:.4g} of {total:.4g} s "
                          "[{elapsed}<{remaining}]")
    rows = 0

    def trajectory(final, owned: bool = False):
        nq, nu = final.get_num_q(), final.get_num_u()
        names = coordinate_labels(system, final)
        return Trajectory(
            t[:rows], y[:rows, :nq], y[:rows, nq:nq + nu], y[:rows, nq + nu:],
            q_names=names["q"], u_names=names["u"], z_names=names["z"],
            columns={label: v[:rows] for label, v in extra.items()},
            stats=integrator_statistics(integ, time.perf_counter() - wall), template=final,
            name=system.get_name(), system=system, copy_template=not owned)

    # The reports Python need not see are taken in compiled code once the compiled run
    # of steps is under way (engine/reports.py): None until then, False where they may
    # not be. The last report is Python's, which leaves the State where it would.
    fast = None if checkpoint is None and max_steps is None and max_wall_time is None \
        else False
    with bar:
        try:
            while rows < n:
                if fast is None and rows > 0 and CompiledReports.ready(integ):
                    fast = CompiledReports.for_run(system, integ, stepper, outputs, n) \
                        or False
                if fast and rows < n - 1:
                    done, stopped, code = fast.take(times, rows, integ._final_time, t, y,
                                                    extra["energy"])
                    if done > rows:
                        bar.update(t[done - 1] - t[rows - 1])
                    rows = done
                    limits.check(integ)
                    if stopped == RUN_FAILED and code != OVERFLOW:
                        raise integ._failed_run(code)
                    if stopped in (RUN_FAILED, REPORT_FAILED, NEED_OTHER):
                        fast = False    # Python takes the report again, and says why
                    continue
                target = times[rows]
                status = stepper.step_to(target)
                while status in _NOT_THERE_YET:
                    limits.check(integ)
                    status = stepper.step_to(target)
                limits.check(integ)
                current = stepper.get_state()
                t[rows] = current.get_time()
                y[rows] = current.get_y()
                for f, column, label in evaluate:
                    column[rows] = _number(f(current), label)
                bar.update(t[rows] - (t[rows - 1] if rows else t0))
                rows += 1
                if checkpoint is not None:
                    stepper.save_checkpoint(checkpoint)
                if status == SuccessfulStepStatus.END_OF_SIMULATION:
                    break
        except BaseException as error:
            # Nothing is lost: what was reported, and the last accepted State, with the
            # event whose handling was interrupted, if one was (a run from it handles it).
            last = integ.get_advanced_state().copy()
            last._pending_event = stepper._unhandled
            so_far = trajectory(last)
            if not isinstance(error, Exception):       # KeyboardInterrupt and the like
                error.trajectory, error.state, error.time = so_far, last, last.get_time()
                raise
            notes = list(getattr(error, "__notes__", ()))
            if isinstance(error, ArithmeticError):
                notes.append(_magnitudes(integ, last))
            notes += _subsystem_diagnoses(system, last)
            raise SimulationError(
                f"simulate: stopped at t = {last.get_time():.6g} s by "
                f"{type(error).__name__}: {str(error).rstrip('.')}"
                + "".join(f" ({note})" for note in notes)
                + f". The {rows} reports made until then are in this error's .trajectory, "
                f"the last accepted State in .state: fix the cause and simulate on from it.",
                so_far, last, last.get_time()) from error
        finally:
            integ._internal_step_limit = step_limit
    # The final State of an integrator made here is nobody else's: the Trajectory keeps it.
    return trajectory(stepper.get_state(), owned=integ is not integrator)


def _subsystem_diagnoses(system, state) -> list[str]:
    """What the System's subsystems say of a State a run stopped at (``diagnose``: an
    actuator subsystem names a muscle far from equilibrium), each a sentence."""
    found = []
    for i in range(system.get_num_subsystems()):
        diagnose = getattr(system.get_subsystem(i), "diagnose", None)
        if diagnose is not None:
            try:
                found += diagnose(state.copy())
            except Exception:       # a diagnosis must not hide the error it explains
                pass
    return found


_LIMIT_CHECK_STEPS = 200
_STIFF_WATCH_STEPS = 20_000
"""Steps after which a run that looks stiff says so (once)."""


def _magnitudes(integ: Integrator, last) -> str:
    """What an arithmetic failure (a division by zero, an overflow) says of the run: the
    largest |q| and |u| of the last accepted State, and for a fixed step what values
    grown without bound mean. A run whose step is too large for its stiffest element
    grows geometrically and can fail this way before any value is infinite."""
    q, u = np.abs(last.get_q()), np.abs(last.get_u())
    note = (f"the last accepted State's largest |q| is {q.max(initial=0.0):.3g} and "
            f"largest |u| {u.max(initial=0.0):.3g}")
    if integ._fixed_step is not None:
        note += (f"; if these have grown without bound, the fixed step of "
                 f"{integ._fixed_step:.3g} s is too large for the model's stiffest force "
                 f"or contact: take a smaller fixed_step_size, or leave the step to the "
                 f"integrator's error control")
    return note


class _Limits:
    """simulate's step and wall-clock limits."""

    def __init__(self, max_steps, max_wall_time, t0: float):
        if max_steps is not None and not (int(max_steps) == max_steps and max_steps > 0):
            raise InvalidArgumentError(
                f"simulate: max_steps must be a positive whole number, got {max_steps!r}.")
        if max_wall_time is not None and not (float(max_wall_time) > 0):
            raise InvalidArgumentError(
                f"simulate: max_wall_time must be a positive number of seconds, got "
                f"{max_wall_time!r}.")
        self.max_steps, self.max_wall_time, self.t0 = max_steps, max_wall_time, t0
        self.start = time.perf_counter()
        self.warned = False

    def check(self, integ: Integrator) -> None:
        steps, wall = integ.get_num_steps_taken(), time.perf_counter() - self.start
        if not self.warned and steps >= _STIFF_WATCH_STEPS and looks_stiff(integ, self.t0):
            self.warned = True
            warnings.warn(KinetreeWarning(
                f"simulate: {steps} steps so far and {wall:.3g} s of wall time. "
                + stiffness_hint(integ, self.t0)), stacklevel=3)
        if self.max_steps is not None and steps >= self.max_steps:
            why = f"the step limit ({self.max_steps} steps) was reached"
        elif self.max_wall_time is not None and wall >= self.max_wall_time:
            why = f"the wall-clock limit ({self.max_wall_time:g} s) was reached"
        else:
            return
        raise IntegrationError(f"{why} after {steps} steps, {wall:.3g} s of wall time. "
                               + stiffness_hint(integ, self.t0))


def looks_stiff(integ: Integrator, t0: float) -> bool:
    """Whether an explicit error-controlled run takes steps far below the model's time
    scale that keep failing their error test: held down by stability, not accuracy."""
    simulated = integ.get_time() - t0
    steps, attempted = integ.get_num_steps_taken(), integ.get_num_steps_attempted()
    if steps == 0 or simulated <= 0 or not attempted:
        return False
    return (integ.method_has_error_control() and not isinstance(integ, CPodesIntegrator)
            and 1.0 - steps / attempted > 0.1
            and simulated / steps < 1e-3 * integ.get_system().get_default_time_scale())


def stiffness_hint(integ: Integrator, t0: float) -> str:
    """What the integrator's counts say about why its steps are small."""
    simulated = integ.get_time() - t0
    steps, attempted = integ.get_num_steps_taken(), integ.get_num_steps_attempted()
    if steps == 0 or simulated <= 0:
        return "No step was taken."
    rejected = 1.0 - steps / attempted if attempted else 0.0
    text = (f"{simulated:.3g} s were simulated, an average step of {simulated / steps:.3g} "
            f"s, {100 * rejected:.0f}% of the attempts rejected.")
    scale = integ.get_system().get_default_time_scale()
    if looks_stiff(integ, t0):
        text += (" Steps this far below the model's time scale "
                 f"({scale:g} s) that keep failing their error test are the mark of a stiff "
                 f"model (a stiff spring or contact, strong damping): an implicit method "
                 f"takes far fewer, integrator='CPodes'; a fixed-step SemiExplicitEuler "
                 f"can serve contact-rich scenes.")
    return text


def integrator_statistics(integ: Integrator, wall_time: float) -> dict:
    """The integrator's counts after a run, its wall time (s), and why the run ended
    (``REACHED_FINAL_TIME``, or the integrator's TerminationReason when it ended first)."""
    return {
        "integrator": integ.get_method_name(),
        "accuracy": integ.get_accuracy_in_use(),
        "steps_taken": integ.get_num_steps_taken(),
        "steps_attempted": integ.get_num_steps_attempted(),
        "realizations": integ.get_num_realizations(),
        "projections": integ.get_num_projections(),
        "error_test_failures": integ.get_num_error_test_failures(),
        "projection_failures": integ.get_num_projection_failures(),
        "convergence_test_failures": integ.get_num_convergence_test_failures(),
        "termination": integ.get_termination_reason().name
        if integ.is_simulation_over() else "REACHED_FINAL_TIME",
        "wall_time_s": wall_time,
    }


def _number(value, label: str) -> float:
    """An output's value as a float, or an error naming its column."""
    if type(value) is float:        # what calc_energy and most outputs return: at once
        return value
    try:
        if np.ndim(value) != 0 or np.iscomplexobj(value):
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"simulate: output '{label}' returned {value!r}; an output is one real number "
            f"per report (make one output per component of a vector).") from None


MAX_REPORTS = 10_000_000
"""The most report rows a run may ask for (each is a row of y and of every output)."""


def _seconds(value, name: str) -> float:
    """``value`` as a float number of seconds, or an error naming simulate's ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
            or isinstance(value, (complex, np.complexfloating)):
        raise InvalidArgumentError(
            f"simulate: {name} must be a number of seconds, got {value!r}.")
    return float(value)


def report_times(t0: float, t_final: float, interval: float) -> np.ndarray:
    """t0, every k·interval strictly between t0 and t_final, and t_final (s): multiples are
    computed as products, not sums, so they are exact to rounding."""
    tol = 1e-12 * max(1.0, abs(t0), abs(t_final))
    k = np.arange(math.floor(t0 / interval), math.ceil(t_final / interval) + 1)
    inner = k * interval
    inner = inner[(inner > t0 + tol) & (inner < t_final - tol)]
    return np.concatenate([[t0], inner, [t_final]])


def integrator_classes() -> dict[str, type[Integrator]]:
    """The built-in integrators by method name ("RungeKuttaMerson", "Verlet", ...)."""
    found = (getattr(_integrators, name) for name in _integrators.__all__)
    return {cls.method_name: cls for cls in found
            if isinstance(cls, type) and issubclass(cls, Integrator) and cls.method_name}


def _make_integrator(system, integrator, accuracy, options: dict) -> Integrator:
    """An Integrator for ``system`` from what simulate was given, with the accuracy and
    options applied."""
    options = dict(options)
    if integrator is None or isinstance(integrator, str):
        integrator = _integrator_class(integrator or "RungeKuttaMerson")
    if isinstance(integrator, type) and issubclass(integrator, Integrator):
        if integrator.has_error_control:
            integ = integrator(system)
        elif "fixed_step_size" in options:
            integ = integrator(system, step_size=options.pop("fixed_step_size"))
        else:
            raise InvalidArgumentError(
                f"simulate: {integrator.__name__} has no error control; give its step size, "
                f"simulate(..., fixed_step_size=h) with h in seconds.")
        integ.set_accuracy(DEFAULT_ACCURACY if accuracy is None else accuracy)
    elif isinstance(integrator, Integrator):
        integ = integrator
        if integ.get_system() is not system:
            raise InvalidArgumentError(
                f"simulate: the {type(integ).__name__} was made for another System; "
                f"construct it with this one.")
        if accuracy is not None:
            integ.set_accuracy(accuracy)
    else:
        raise InvalidArgumentError(
            f"simulate: integrator must be None, a name, an Integrator subclass or an "
            f"instance, got {type(integrator).__name__}.")
    for key, value in options.items():
        setter = getattr(integ, f"set_{key}", None)
        if setter is None or key in ("accuracy", "final_time"):
            names = sorted(name[4:] for name in dir(integ) if name.startswith("set_")
                           and name not in ("set_accuracy", "set_final_time"))
            raise InvalidArgumentError(
                f"simulate: unknown option '{key}' for {type(integ).__name__}; the options "
                f"are {', '.join(names)} (accuracy is its own argument).")
        setter(value)
    return integ


def _integrator_class(name: str) -> type[Integrator]:
    """The integrator class named ``name``, case-insensitive, "Integrator" optional."""
    classes = integrator_classes()
    key = name.strip().lower().replace("_", "")
    key = key.removesuffix("integrator")
    for method, cls in classes.items():
        if method.lower() == key:
            return cls
    raise InvalidArgumentError(
        f"simulate: unknown integrator '{name}'; the integrators are "
        f"{', '.join(sorted(classes))}.")


def coordinate_labels(system, state) -> dict[str, list[str]]:
    """Column labels for q, u and z: ``<Type><index>.q<k>`` for a matter subsystem's
    mobilized bodies (``Pin1.q0``, ``Ball2.q3``), a subsystem's own ``z_labels`` where it
    names its z (an actuator's ``/forceset/<name>/activation``), ``<subsystem
    name>.q<k>`` for the variables of any other subsystem, in the State's order."""
    labels = {"q": [], "u": [], "z": []}
    for i in range(system.get_num_subsystems()):
        sub = system.get_subsystem(i)
        counts = {"q": sub.get_q(state).size, "u": sub.get_u(state).size,
                  "z": sub.get_z(state).size}
        per_body = _body_labels(sub, state)
        if hasattr(sub, "z_labels"):
            labels["z"] += sub.z_labels()
            counts["z"] = 0
        for kind in ("q", "u", "z"):
            if per_body is not None and kind != "z":
                labels[kind] += per_body[kind]
            else:
                tag = re.sub(r"[,\s]+", "_", sub.get_name())
                labels[kind] += [f"{tag}.{kind}{k}" for k in range(counts[kind])]
    return labels


def _body_labels(sub, state) -> dict[str, list[str]] | None:
    """Per-mobilized-body labels of a matter subsystem's q and u, or None if ``sub`` has
    no bodies or its variables are not laid out body by body."""
    if not (hasattr(sub, "get_num_bodies") and hasattr(sub, "get_mobilized_body")):
        return None
    labels = {"q": [], "u": []}
    for b in range(1, sub.get_num_bodies()):
        mobod = sub.get_mobilized_body(b)
        tag = f"{type(mobod).__name__}{b}"
        labels["q"] += [f"{tag}.q{k}" for k in range(mobod.get_num_q(state))]
        labels["u"] += [f"{tag}.u{k}" for k in range(mobod.get_num_u(state))]
    if len(labels["q"]) != sub.get_q(state).size or len(labels["u"]) != sub.get_u(state).size:
        return None
    return labels
