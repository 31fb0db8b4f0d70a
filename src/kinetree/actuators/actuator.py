"""Actuator and Muscle: the Python side of OpenSim's actuators, one row of the actuator
table the compiled realization reads (``actuators/dispatch.py``).

Each actuator is a row of integers (``ACTUATOR_I_COLUMNS``: its kind's type code, its
path, its first state in z, its control, its first parameter, the bodies or mobility it
acts on) and its parameters, OpenSim's properties in SI units, at ``params[at:]``. Its
states (activation, fiber length, ...) are z variables of the State and its controls
(excitations) a discrete variable, so that a muscle's whole force and state derivatives
are computed by compiled code at DYNAMICS with no Python per muscle.
"""

from __future__ import annotations

import math

from kinetree.errors import InvalidArgumentError
from kinetree.system.stage import Stage

ACTUATOR_I_COLUMNS = 9
CODE, PATH, Z, CONTROL, AT, BODY1, BODY2, MOBILITY, FLAGS = range(ACTUATOR_I_COLUMNS)
"""The columns of an actuator's row: type code, path (-1 for none), first z, control,
first parameter, first and second body, mobility (u index), kind-specific flags."""

ACTUATOR_OUTPUTS = 12
(OUT_FORCE, OUT_ACTIVATION, OUT_FIBER_LENGTH, OUT_FIBER_VELOCITY, OUT_TENDON_LENGTH,
 OUT_TENDON_FORCE, OUT_ACTIVE_FIBER_FORCE, OUT_PASSIVE_FIBER_FORCE, OUT_PENNATION_ANGLE,
 OUT_NORMALIZED_FIBER_LENGTH, OUT_EXCITATION, OUT_POWER) = range(ACTUATOR_OUTPUTS)
"""The columns of an actuator's outputs, written by its ``calc`` at DYNAMICS: its
actuation (a muscle's tension, N; a coordinate actuator's generalized force), the
activation, fiber length (m) and velocity (m/s), tendon length (m), tendon force (N), the
active and passive fiber forces along the fiber (N), the pennation angle (rad), the
fiber length over the optimal, the excitation, and the power it delivers (W)."""


class Actuator:
    """An OpenSim actuator. A kind sets ``CODE`` (registry.ACTUATORS), ``PROPERTIES``
    (OpenSim's property names and defaults, SI units, in the order of its parameters)
    and ``STATES`` (OpenSim's names of its z variables, in order), and may override
    ``_params`` and ``_initial_z`` when they are not simply those."""

    CODE = -1
    PROPERTIES: dict[str, float] = {}
    STATES: tuple[str, ...] = ()
    NUM_CONTROLS = 1

    def __init__(self, name: str, **properties):
        unknown = sorted(set(properties) - set(self.PROPERTIES))
        where = f"{type(self).__name__} {name!r}"
        if unknown:
            raise InvalidArgumentError(
                f"{where}: no property {unknown[0]!r}; its properties are "
                f"{', '.join(self.PROPERTIES)}.")
        self.name = str(name)
        self.properties = {}
        for key, default in self.PROPERTIES.items():
            value = properties.get(key, default)
            if isinstance(default, bool):
                self.properties[key] = bool(value)
                continue
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise InvalidArgumentError(
                    f"{where}: {key} is {value!r}; it must be a number.") from None
            if not math.isfinite(value):
                raise InvalidArgumentError(f"{where}: {key} is {value}; it must be finite.")
            self.properties[key] = value
        self.check_properties(where)

    @classmethod
    def osim_properties(cls, element) -> dict:
        """The properties this kind reads from its .osim XML ``element`` (an ElementTree
        element): each of ``PROPERTIES`` that is a direct child, as text parsed to a
        number or a boolean; a kind with nested objects (curves) adds those."""
        found = {}
        for key, default in cls.PROPERTIES.items():
            child = element.find(key)
            if child is None or child.text is None or not child.text.strip():
                continue
            text = child.text.strip()
            if isinstance(default, bool):
                found[key] = text.lower() == "true"
                continue
            try:
                found[key] = float(text)
            except ValueError:
                raise InvalidArgumentError(
                    f"{element.tag} {element.get('name')!r}: <{key}> is {text!r:.40}; it "
                    f"must be a number.") from None
        return found

    def check_properties(self, where: str) -> None:
        """Raise InvalidArgumentError, naming ``where`` and the fix, for a property out of
        its physical range; a kind adds its own checks."""

    def check_parameters(self, params) -> str | None:
        """What makes ``params`` (this actuator's parameters as a State file holds them)
        unfit: here, a value that is not finite; None if nothing does."""
        if not all(math.isfinite(float(v)) for v in params):
            return "a parameter is not finite"
        return None

    def _row(self, tree) -> dict[int, int]:
        """The columns of its row this kind fills ({column: value}: bodies, mobility),
        given the tree laid out at MODEL."""
        return {}

    def _check_model(self, tree) -> None:
        """Raise if the actuator does not fit the tree laid out at MODEL."""

    # ------------------------------------------------------------ outputs
    def _subsystem_of(self, where: str):
        subsystem = getattr(self, "_subsystem", None)
        if subsystem is None:
            raise InvalidArgumentError(
                f"{type(self).__name__} {self.name!r}.{where}: the actuator is not in a "
                f"model; add it with ActuatorSubsystem.add_actuator first.")
        return subsystem

    def _output(self, state, column: int, where: str) -> float:
        subsystem = self._subsystem_of(where)
        return float(subsystem._outputs(state, f"{self.name}.{where}")[self._index, column])

    def get_control(self, state) -> float:
        """Its control (a muscle's excitation) in ``state`` (DYNAMICS)."""
        return float(self._subsystem_of("get_control").get_controls(state)[self._index])

    def get_actuation(self, state) -> float:
        """The force it applies (N, or N m for a torque or a rotational coordinate),
        realized at DYNAMICS."""
        return self._output(state, OUT_FORCE, "get_actuation")

    def _params(self) -> list[float]:
        """This actuator's parameters (the float part of its row): its properties in
        order, booleans as 0.0 or 1.0."""
        return [float(v) for v in self.properties.values()]

    def _states(self) -> tuple[str, ...]:
        """The names of this actuator's z variables (an option may drop some)."""
        return self.STATES

    def _initial_z(self) -> list[float]:
        """The default values of this actuator's z variables."""
        return []

    def failure(self, code: int) -> str:
        """Why ``equilibrate`` returned ``code`` (non-zero), said to a user."""
        return f"its equilibrium could not be found (code {code})"


class Muscle(Actuator):
    """An OpenSim muscle: an actuator whose tension acts along its ``path`` (a
    GeometryPath), with activation and fiber states."""

    def __init__(self, name: str, path=None, **properties):
        super().__init__(name, **properties)
        self.path = path
        if path is not None:
            if getattr(path, "_muscle", None) is not None:
                raise InvalidArgumentError(
                    f"{type(self).__name__} {name!r}: its path already belongs to muscle "
                    f"{path._muscle.name!r}; give each muscle its own GeometryPath.")
            path._muscle = self

    # ------------------------------------------------------------ states
    def _z(self, state, name: str, where: str):
        """(this muscle's z array of ``state`` read-only, the index of its state
        ``name``), or None if it has no such state (an option dropped it)."""
        states = self._states()
        if name not in states:
            return None
        subsystem = self._subsystem_of(where)
        return subsystem.get_z(state), subsystem._z_first[self._index] + states.index(name)

    def _set_z(self, state, name: str, value, where: str) -> None:
        found = self._z(state, name, where)
        if found is None:
            raise InvalidArgumentError(
                f"{type(self).__name__} {self.name!r}.{where}: it has no {name} state "
                f"(its states are {', '.join(self._states()) or 'none'}).")
        value = float(value)
        if not math.isfinite(value):
            raise InvalidArgumentError(
                f"{type(self).__name__} {self.name!r}.{where}: the value is {value}; it must "
                "be finite.")
        self._subsystem.upd_z(state)[found[1]] = value

    def get_activation(self, state) -> float:
        """Its activation: the state, or (without activation dynamics) its excitation,
        realized at DYNAMICS."""
        found = self._z(state, "activation", "get_activation")
        if found is None:
            return self._output(state, OUT_ACTIVATION, "get_activation")
        return float(found[0][found[1]])

    def set_activation(self, state, activation: float) -> None:
        self._set_z(state, "activation", activation, "set_activation")

    def get_excitation(self, state) -> float:
        """Its excitation (its control), realized at DYNAMICS."""
        return self.get_control(state)

    def get_fiber_length(self, state) -> float:
        """Its fiber length (m): the state, or (rigid tendon) from its path, at DYNAMICS."""
        found = self._z(state, "fiber_length", "get_fiber_length")
        if found is None:
            return self._output(state, OUT_FIBER_LENGTH, "get_fiber_length")
        return float(found[0][found[1]])

    def set_fiber_length(self, state, length: float) -> None:
        self._set_z(state, "fiber_length", length, "set_fiber_length")

    def get_fiber_velocity(self, state) -> float:
        """m/s, realized at DYNAMICS."""
        return self._output(state, OUT_FIBER_VELOCITY, "get_fiber_velocity")

    def get_normalized_fiber_length(self, state) -> float:
        return self._output(state, OUT_NORMALIZED_FIBER_LENGTH, "get_normalized_fiber_length")

    def get_tendon_length(self, state) -> float:
        """m, realized at DYNAMICS."""
        return self._output(state, OUT_TENDON_LENGTH, "get_tendon_length")

    def get_tendon_force(self, state) -> float:
        """N, realized at DYNAMICS."""
        return self._output(state, OUT_TENDON_FORCE, "get_tendon_force")

    def get_active_fiber_force(self, state) -> float:
        """Along the fiber (N), realized at DYNAMICS."""
        return self._output(state, OUT_ACTIVE_FIBER_FORCE, "get_active_fiber_force")

    def get_passive_fiber_force(self, state) -> float:
        """Along the fiber (N), realized at DYNAMICS."""
        return self._output(state, OUT_PASSIVE_FIBER_FORCE, "get_passive_fiber_force")

    def get_pennation_angle(self, state) -> float:
        """rad, realized at DYNAMICS."""
        return self._output(state, OUT_PENNATION_ANGLE, "get_pennation_angle")

    # ------------------------------------------------------------ its path
    def _path_value(self, state, row: int, stage, where: str) -> float:
        subsystem = self._subsystem_of(where)
        values = subsystem._path_values(state, stage, f"{self.name}.{where}")
        return float(values[row, subsystem._act_i[self._index, PATH]])

    def get_length(self, state) -> float:
        """Its path's length (m), realized at POSITION."""
        return self._path_value(state, 0, Stage.POSITION, "get_length")

    def get_lengthening_speed(self, state) -> float:
        """Its path's lengthening speed (m/s), realized at VELOCITY."""
        return self._path_value(state, 1, Stage.VELOCITY, "get_lengthening_speed")

    def get_current_path(self, state):
        """(n, 3): its path's points in Ground (m), wrap tangent points included, from
        origin to insertion, realized at POSITION."""
        return self._subsystem_of("get_current_path").get_current_path(state, self)

    def compute_moment_arm(self, state, coordinate) -> float:
        """Its path's moment arm (m) about ``coordinate`` (a loaded model's Coordinate:
        m per rad for a rotational one, dimensionless for a translational one), as
        OpenSim's MomentArmSolver
        computes it: the generalized force of a unit tension on the coordinate, with the
        coordinates it drives through constraints."""
        subsystem = self._subsystem_of("compute_moment_arm")
        return subsystem.compute_moment_arm(state, self, coordinate)

    def get_power(self, state) -> float:
        """-T v (W): the power its tension delivers as the path shortens."""
        return -self.get_tendon_force(state) * self.get_lengthening_speed(state)

    @staticmethod
    def positive(where: str, properties: dict, *keys: str) -> None:
        """Raise unless each property ``keys`` is > 0."""
        for key in keys:
            if not properties[key] > 0.0:
                raise InvalidArgumentError(
                    f"{where}: {key} is {properties[key]}; it must be > 0.")
