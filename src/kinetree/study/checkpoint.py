"""Checkpoints: everything a TimeStepper needs to go on from where it stopped, bit for bit
as if it had never stopped, in a file of the State file's kind (numpy arrays and a JSON
header in a zip; no pickle, so loading one from someone else never runs code).

A checkpoint holds the integrator's advanced State, its last step (both ends and their
derivatives), step size, counters, error weights and trigger values, and the method's
own history (the BDF differences and Jacobian of CPodes, Verlet's q̈); the State step_to
last returned is rebuilt from those, interpolated where it was.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError, StateMismatchError
from kinetree.integrators import step_control as control
from kinetree.integrators.integrator import TerminationReason
from kinetree.system import state_file
from kinetree.system.stage import Stage

FORMAT = "kinetree.Checkpoint"

_INTEGRATOR = {"_control_f": "array", "_control_i": "array", "_work": "ends",
               "_unit_weights": "weights", "_trigger_values": "array",
               "_pending_trigger": "bool", "_convergence_failures": "count",
               "_returned_time": "time", "_is_interpolated": "bool"}
"""What every integrator keeps between steps, by the kind of value it is (``_checked``);
a method adds its own ``_CHECKPOINT`` entries. A checkpoint sets these and nothing else."""


def save(path, stepper) -> None:
    """Write ``stepper``'s checkpoint to ``path`` (TimeStepper.save_checkpoint)."""
    integ = stepper.get_integrator()
    if integ._advanced is None:
        raise InvalidArgumentError(
            "TimeStepper.save_checkpoint: nothing to save yet; initialize(state) first.")
    if stepper._unhandled is not None:
        raise InvalidArgumentError(
            "TimeStepper.save_checkpoint: an event handler raised and its event is still "
            "to be handled; call step_to again first.")
    state = integ.get_advanced_state()
    encoder = state_file.Encoder()
    header = {
        "integrator": type(integ).__name__,
        "state": state_file.encode_state(encoder, state._signature, state.get_time(),
                                         state._state_parts()),
        "values": {name: encoder.encode(getattr(integ, name), f"integrator value {name}")
                   for name in _fields(integ)},
        "termination": None if integ._termination is None else integ._termination.name,
        "include_current_time": stepper._include_current_time,
    }
    state_file.write_archive(path, FORMAT, header, encoder.arrays)


def load(path, stepper) -> None:
    """Put ``stepper`` (of the System and integrator class that saved ``path``) where the
    checkpoint was taken (TimeStepper.load_checkpoint)."""
    where = "TimeStepper.load_checkpoint"
    header, arrays = state_file.read_archive(path, FORMAT, where)
    integ, system = stepper.get_integrator(), stepper.get_system()
    if header.get("integrator") != type(integ).__name__:
        raise StateMismatchError(
            f"{where}: {path} was saved by a {header.get('integrator')}; give the "
            f"TimeStepper a {header.get('integrator')} to go on with it.")
    try:
        t, parts = state_file.decode_state(header["state"], arrays,
                                           system.get_default_state()._signature,
                                           f"{where}: {path}")
        values = {name: state_file.decode(value, arrays)
                  for name, value in header["values"].items()}
        termination = header["termination"]
        include_current_time = header["include_current_time"]
    except KinetreeError:
        raise
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        # A part of the header of another kind than it should be.
        raise StateMismatchError(
            f"{where}: {path} is damaged: {type(error).__name__} {error}.") from None
    state = system.get_default_state()._load_parts(system, t, parts, str(path))
    integ._initializes_measures = False      # the measures go on from the saved State
    try:
        stepper.initialize(state)
    finally:
        del integ._initializes_measures
    fields = _fields(integ)
    if set(values) != set(fields):
        raise StateMismatchError(
            f"{where}: {path} holds the integrator values {sorted(values)}; a "
            f"{type(integ).__name__} keeps {sorted(fields)}. It is not a checkpoint this "
            f"version of kinetree wrote for this integrator.")
    checked = {name: _checked(name, values[name], getattr(integ, name), kind,
                              integ.max_order, f"{where}: {path}")
               for name, kind in fields.items()}
    _check_control(checked["_control_f"], checked["_control_i"], state.get_time(),
                   f"{where}: {path}")
    if not (termination is None or termination in TerminationReason.__members__) or \
            not isinstance(include_current_time, bool):
        raise StateMismatchError(
            f"{where}: {path} is damaged: its termination {termination!r} or "
            f"include_current_time {include_current_time!r} is not one a TimeStepper has.")
    for name, value in checked.items():
        current = getattr(integ, name)
        if isinstance(current, np.ndarray):
            current[...] = value                # in place: other arrays are views of it
        else:
            setattr(integ, name, value)
    _clear_run(integ)
    integ._termination = None if termination is None else TerminationReason[termination]
    stepper._include_current_time = include_current_time
    # The advanced State at the saved end of the last step, exactly, and realized.
    advanced = integ.get_advanced_state()
    integ._write(advanced, integ._t1, integ._y1)
    system.realize(advanced, Stage.ACCELERATION)
    if integ._is_interpolated:
        integ._report_at(integ._returned_time)


def _fields(integ) -> dict:
    """The values a checkpoint of ``integ`` holds, by kind."""
    return {**_INTEGRATOR, **integ._CHECKPOINT}


def _checked(name: str, value, current, kind: str, max_order: int, where: str):
    """``value`` read for the integrator value ``name`` (now ``current``), if it is of
    its ``kind``: an array of the current one's shape and dtype ("array"; finite for
    "finite", in its four rows y0, ẏ0, y1, ẏ1 for "ends", positive and finite for
    "weights"), a bool, a
    count (int >= 0), a method order (0 to ``max_order``), a finite time, a float that
    is finite or NaN ("float_or_nan"), a step size (positive and finite, or None:
    "step_or_none"), or an LU factorization of an ny x ny matrix, or None ("lu")."""
    def refuse(what: str):
        return StateMismatchError(
            f"{where}: the integrator value {name} {what}; the file was not written by "
            f"this kinetree's TimeStepper.save_checkpoint, or it was changed since.")

    def like(array, target) -> np.ndarray:
        if not (isinstance(array, np.ndarray) and array.shape == target.shape
                and array.dtype == target.dtype):
            raise refuse(f"must be a {target.dtype} array of shape {target.shape}")
        return array

    if kind in ("array", "finite", "ends", "weights"):
        array = like(value, current)
        if kind == "finite" and not np.isfinite(array).all():
            raise refuse("holds a value that is not finite")
        if kind == "ends" and not np.isfinite(array[:4]).all():
            raise refuse("holds a value that is not finite in y or ẏ")
        if kind == "weights" and not (np.isfinite(array).all() and (array > 0).all()):
            raise refuse("holds a weight that is not positive and finite")
        return array
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise refuse(f"must be a bool, not {value!r}")
        return bool(value)
    if kind in ("count", "order"):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or value < 0 or (kind == "order" and value > max_order):
            raise refuse(f"must be a {kind} (an int from 0"
                         f"{' to ' + str(max_order) if kind == 'order' else ''}), not "
                         f"{value!r}")
        return int(value)
    if kind == "lu":
        if value is None:
            return None
        n = current.shape[0] if isinstance(current, np.ndarray) else None
        if not (isinstance(value, tuple) and len(value) == 2):
            raise refuse("must be an LU factorization (a matrix and its pivots) or None")
        matrix, pivots = value
        if not (isinstance(matrix, np.ndarray) and matrix.dtype == float and matrix.ndim == 2
                and matrix.shape[0] == matrix.shape[1] and (n is None or matrix.shape[0] == n)
                and np.isfinite(matrix).all()
                and isinstance(pivots, np.ndarray) and pivots.dtype.kind == "i"
                and pivots.shape == matrix.shape[:1]
                and ((0 <= pivots) & (pivots < matrix.shape[0])).all()):
            raise refuse("is not an LU factorization of a square matrix of y's size")
        return matrix, pivots
    if kind == "step_or_none" and value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise refuse(f"must be a number, not {value!r}")
    value = float(value)
    if kind == "float_or_nan" and (np.isfinite(value) or np.isnan(value)):
        return value
    if kind == "time" and np.isfinite(value):
        return value
    if kind == "step_or_none" and np.isfinite(value) and value > 0:
        return value
    raise refuse(f"cannot be {value!r}")


def _check_control(f: np.ndarray, i: np.ndarray, t: float, where: str) -> None:
    """Control arrays read from a checkpoint (``step_control``'s layout): the last step
    ending at the State's time ``t``, a next step size that is positive (or not chosen
    yet) and counters that are counts."""
    def refuse(what: str):
        return StateMismatchError(
            f"{where}: the integrator's last step {what}; the file was not written by "
            f"this kinetree's TimeStepper.save_checkpoint, or it was changed since.")

    t0, t1, h_next, h_taken = (f.item(k) for k in (control.T0, control.T1, control.H_NEXT,
                                                    control.H_TAKEN))
    if not (np.isfinite([t0, t1, h_taken]).all() and t0 <= t1 and h_taken >= 0):
        raise refuse(f"is not a step: from t = {t0!r} to {t1!r}, of {h_taken!r} s")
    if t1 != t:
        raise refuse(f"ends at t = {t1!r}, not at the State's time {t!r}")
    if not (np.isnan(h_next) or (np.isfinite(h_next) and h_next >= control.TIME_RESOLUTION)):
        raise refuse(f"leaves a next step size of {h_next!r} s")
    counters = i[control.STEPS:control.PROJECTION_FAILURES + 1]
    if (counters < 0).any() or i[control.END_PENDING] not in (0, 1):
        raise refuse("holds counters that are not counts")


def _clear_run(integ) -> None:
    """After a checkpoint's control arrays are read: the settings are the integrator's
    own, not the file's, and nothing of a run in progress is left."""
    f, i = integ._control_f, integ._control_i
    for k in (control.T_STOP, control.T_REPORT, control.H_ATTEMPT, control.H_START,
              control.T_NEED, control.H_PROPOSED):
        f[k] = 0.0
    for k in (control.STEP_LIMIT, control.PYTHON, control.STEP_START_HOOK, control.PHASE,
              control.NEED_ROW, control.VERDICT):
        i[k] = 0
    integ._send_settings()
