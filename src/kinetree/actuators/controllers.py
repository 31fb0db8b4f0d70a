"""Controllers: what sets an actuator's control (a muscle's excitation) as a State runs.

As in OpenSim, an actuator's control is its default (``set_controls``, 0 unless set) plus
what each controller adds. A PrescribedController gives each of its actuators a Function
of time; one of built-in Functions is a table compiled code evaluates
(``math/function_table.py``), a user Function is called from Python. A Controller
written in Python (a subclass overriding ``compute_controls``) reads the State, realized
to VELOCITY, and adds controls just before DYNAMICS is computed.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.math import function_table
from kinetree.math.functions import Function

CONTROLLER_I_COLUMNS = 2
"""A compiled control's row: the control it adds to, the first float of its Function's
record in the controllers' float table."""


class Controller:
    """A controller written in Python: override ``compute_controls(state, controls)``,
    which adds to ``controls[name]`` (an actuator's name, or the Actuator) what this
    controller wants of it; the State is realized to VELOCITY."""

    _python = True

    def __init__(self, name: str = "controller"):
        self.name = str(name)
        self._subsystem = None
        self._enabled = True

    @property
    def enabled(self) -> bool:
        """Whether it adds its controls (OpenSim's ``enabled``); a change takes effect
        from the next realization of the System's topology."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._enabled = bool(value)
        if self._subsystem is not None:
            self._subsystem.invalidate_subsystem_topology_cache()

    def compute_controls(self, state, controls) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} {self.name!r}: a Controller must override "
            f"compute_controls(state, controls).")

    def _rows(self, subsystem, at: int) -> tuple[list, list]:
        """The compiled rows and floats of this controller (none for one in Python)."""
        return [], []


class PrescribedController(Controller):
    """OpenSim's PrescribedController: ``functions`` ({actuator name: Function of time})
    each adding its value at the State's time (s) to that actuator's control."""

    def __init__(self, name: str = "prescribed_controller", functions: dict | None = None):
        super().__init__(name)
        self._functions: dict = {}
        for actuator, f in (functions or {}).items():
            self.prescribe_control_for_actuator(actuator, f)

    def prescribe_control_for_actuator(self, actuator: str, function: Function) -> None:
        """Drive ``actuator`` (its name) with ``function`` of time."""
        if not isinstance(function, Function):
            raise InvalidArgumentError(
                f"PrescribedController {self.name!r}: the control of {actuator!r} must be a "
                f"kinetree Function of time, got {type(function).__name__}.")
        self._functions[str(actuator)] = function
        if self._subsystem is not None:
            self._subsystem.invalidate_subsystem_topology_cache()

    @classmethod
    def from_file(cls, path, actuators, name: str | None = None,
                  interpolation_method: int = 1) -> PrescribedController:
        """A PrescribedController of the controls in the storage file ``path`` (.sto or
        .mot: a time column, then one column per actuator, labelled by its name or its
        path ``/forceset/<name>``), as OpenSim's ``controls_file``: each column a
        GCVSpline of degree ``interpolation_method`` (1, OpenSim's default: straight
        lines between the samples) through the samples. ``actuators`` are the model's
        actuator names; a column naming none of them is refused."""
        from pathlib import Path

        from kinetree.math.functions import Function as F
        from kinetree.study.trajectory import _read_storage

        path = Path(path)
        _, _, labels, data, _ = _read_storage(path)
        lowered = [label.lower() for label in labels]
        column = lowered.index("time") if "time" in lowered else (
            lowered.index("t") if "t" in lowered else -1)
        if column < 0:
            raise InvalidArgumentError(
                f"PrescribedController.from_file: {path} has no 'time' column; controls "
                f"are functions of time.")
        if not (isinstance(interpolation_method, int) and 1 <= interpolation_method <= 7
                and interpolation_method % 2 == 1):
            raise InvalidArgumentError(
                f"PrescribedController.from_file: interpolation_method is "
                f"{interpolation_method!r}; give an odd GCVSpline degree, 1 to 7.")
        known = set(actuators)
        controller = cls(name or path.stem)
        for k, label in enumerate(labels):
            if k == column:
                continue
            actuator = label.removeprefix("/forceset/")
            if actuator not in known:
                raise InvalidArgumentError(
                    f"PrescribedController.from_file: {path} has a column {label!r}, but "
                    f"the model has no such actuator; label each column by an actuator's "
                    f"name.")
            if not np.all(np.isfinite(data[:, k])):
                raise InvalidArgumentError(
                    f"PrescribedController.from_file: {path} column {label!r} has values "
                    f"that are not numbers; fill them in.")
            controller.prescribe_control_for_actuator(
                actuator, F.GCVSpline(interpolation_method, data[:, column], data[:, k]))
        return controller

    @property
    def _python(self) -> bool:
        return any(function_table.record(f, [0]) is None for f in self._functions.values())

    def _indices(self, subsystem) -> list[int]:
        by_name = {a.name: a._index for a in subsystem._actuators}
        missing = [n for n in self._functions if n not in by_name]
        if missing:
            raise InvalidArgumentError(
                f"PrescribedController {self.name!r}: no actuator {missing[0]!r} in the "
                f"model; name one of its actuators.")
        return [by_name[n] for n in self._functions]

    def _rows(self, subsystem, at: int) -> tuple[list, list]:
        if self._python:
            return [], []
        rows, floats = [], []
        for k, f in zip(self._indices(subsystem), self._functions.values()):
            record = function_table.record(f, [0])
            rows.append([k, at + len(floats)])
            floats.extend(record)
        return rows, floats

    def compute_controls(self, state, controls) -> None:
        t = np.array([state.get_time()])
        for name, f in self._functions.items():
            controls[name] = f.calc_value(t)


@helper
def control_sweep(controller_i, controller_f, time, defaults, python_controls, controls):
    """controls = defaults + the Python controllers' + each compiled prescribed control's
    Function at ``time`` (a 1-array, s)."""
    for k in range(controls.shape[0]):
        controls[k] = defaults[k] + python_controls[k]
    for r in range(controller_i.shape[0]):
        value, _, _, _ = function_table.evaluate(controller_f, controller_i[r, 1], time)
        controls[controller_i[r, 0]] += value
