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

from kinetree.errors import InvalidArgumentError, StateMismatchError
from kinetree.integrators.integrator import TerminationReason
from kinetree.system import state_file
from kinetree.system.stage import Stage
from kinetree.system.state import State

FORMAT = "kinetree.Checkpoint"

_INTEGRATOR = ("_control_f", "_control_i", "_work", "_unit_weights", "_trigger_values",
               "_pending_trigger", "_convergence_failures", "_returned_time",
               "_is_interpolated")
"""What every integrator keeps between steps; a method adds its ``_CHECKPOINT`` names."""


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
                   for name in (*_INTEGRATOR, *integ._CHECKPOINT)},
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
        include_current_time = bool(header["include_current_time"])
    except (KeyError, ValueError, TypeError) as error:
        raise StateMismatchError(
            f"{where}: {path} is damaged: {type(error).__name__} {error}.") from None
    state = State._from_parts(system, t, parts, str(path))
    integ._initializes_measures = False      # the measures go on from the saved State
    try:
        stepper.initialize(state)
    finally:
        del integ._initializes_measures
    for name, value in values.items():
        current = getattr(integ, name, None)
        if isinstance(current, np.ndarray) and isinstance(value, np.ndarray) and \
                current.shape == value.shape:
            current[...] = value                # in place: other arrays are views of it
        else:
            setattr(integ, name, value)
    integ._termination = None if termination is None else TerminationReason[termination]
    stepper._include_current_time = include_current_time
    # The advanced State at the saved end of the last step, exactly, and realized.
    advanced = integ.get_advanced_state()
    integ._write(advanced, integ._t1, integ._y1)
    system.realize(advanced, Stage.ACCELERATION)
    if integ._is_interpolated:
        integ._report_at(integ._returned_time)
