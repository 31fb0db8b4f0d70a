"""A model loaded from a file: the System it builds, with the names the file gave its
bodies, coordinates and markers (what ``load_osim`` and ``load_urdf`` return).

A coordinate is one q of a mobilizer, by name: the loaders keep the file's names and
order, so a program written against the file's names (OpenSim's ``knee_angle_r``, a URDF
joint's name) reads and writes the same quantities here.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.system.stage import Stage


class Coordinate:
    """One generalized coordinate by name: q[q_index] and its speed u[u_index] in the
    State's matter-subsystem arrays, the ``which``-th of ``mobilized_body``'s, of the
    file's joint ``joint_name``. Units are the mobilizer's: rad (and rad/s) for
    rotations (``motion_type`` "rotational"), m (and m/s) for translations
    ("translational"), as the file's coordinate says. ``velocity_limit`` and
    ``effort_limit`` (rad/s or m/s; N m or N) are the file's limits where it gives them
    (URDF's ``<limit velocity effort>``), inf otherwise; kept, not enforced."""

    def __init__(self, name: str, mobilized_body, which: int, *, default_value: float = 0.0,
                 default_speed_value: float = 0.0, range=(-math.inf, math.inf),
                 locked: bool = False, clamped: bool = False, prescribed: bool = False,
                 prescribed_function=None, motion_type: str = "rotational",
                 joint_name: str = "", velocity_limit: float = math.inf,
                 effort_limit: float = math.inf):
        self.name = name
        self.joint_name = joint_name
        self.mobilized_body = mobilized_body
        self.which = int(which)
        self.default_value = float(default_value)
        self.default_speed_value = float(default_speed_value)
        self.range = (float(range[0]), float(range[1]))
        self.locked = bool(locked)
        self.clamped = bool(clamped)
        self.prescribed = bool(prescribed)
        self.prescribed_function = prescribed_function
        self.motion_type = motion_type
        self.velocity_limit = float(velocity_limit)
        self.effort_limit = float(effort_limit)
        self.q_index = -1
        self.u_index = -1
        """Set by the Model once the System is realized to MODEL."""

    def __repr__(self) -> str:
        return f"<Coordinate {self.name!r} of {self.mobilized_body._name()} q[{self.q_index}]>"

    def _matter(self):
        return self.mobilized_body.get_matter_subsystem()

    def get_value(self, state) -> float:
        """q (rad or m)."""
        return float(self._matter().get_q(state)[self.q_index])

    def set_value(self, state, value: float) -> None:
        self._matter().upd_q(state)[self.q_index] = self._finite(value, "set_value")

    def get_speed_value(self, state) -> float:
        """u (rad/s or m/s)."""
        return float(self._matter().get_u(state)[self.u_index])

    def set_speed_value(self, state, value: float) -> None:
        self._matter().upd_u(state)[self.u_index] = self._finite(value, "set_speed_value")

    def get_acceleration_value(self, state) -> float:
        """u̇ (rad/s² or m/s²; ACCELERATION)."""
        return float(self._matter().get_u_dot(state)[self.u_index])

    def _finite(self, value, method: str) -> float:
        value = float(value)
        if not math.isfinite(value):
            raise InvalidArgumentError(
                f"Coordinate {self.name!r}.{method}: the value is {value}; it must be finite.")
        return value


class Model:
    """What a model file built: ``system`` (a MultibodySystem), its ``matter`` and
    ``forces`` subsystems, ``bodies`` (name -> MobilizedBody, Ground as "ground"),
    ``coordinates`` (name -> Coordinate, in the file's order), ``markers`` (a Markers goal
    for ``Assembler.track``, the file's marker names kept), ``force_elements`` (a force
    element's name in the file -> the kinetree Force elements built for it), ``contact``
    (the GeneralContactSubsystem of its contact forces, or None), ``actuators``,
    ``muscles`` and ``controllers`` (by name, in the file's order; all in
    ``actuator_subsystem``, or None) and ``skipped`` (the elements of the file not built,
    each with why)."""

    def __init__(self, name: str, system, matter, forces):
        self.name = name
        self.system = system
        self.matter = matter
        self.forces = forces
        self.bodies: dict = {}
        self.coordinates: dict[str, Coordinate] = {}
        self.constraints: dict = {}
        self.markers = None
        self.skipped: list[str] = []
        self.force_elements: dict[str, list] = {}
        self.contact = None
        self.actuators: dict = {}
        self.muscles: dict = {}
        self.controllers: dict = {}
        self.actuator_subsystem = None
        self._file: str | None = None
        self._file_error = KinetreeError
        self._origins: dict[str, tuple[str, str]] = {}
        """A constraint's name -> (the file's element it was built for, what to change
        there), set by the loader, so that a model that cannot be assembled names them."""

    def __repr__(self) -> str:
        return (f"<Model {self.name!r}: {len(self.bodies)} bodies, {len(self.coordinates)} "
                f"coordinates, {len(self.constraints)} constraints>")

    def get_default_state(self):
        """A new State realized to INSTANCE: every coordinate at its default value and
        speed (the mobilizers' defaults, which the loader set), locked coordinates held and
        prescribed ones following their functions, the constraints satisfied (q and u
        projected onto them, to 1e-10). Orientation mobilizers use Euler angles
        (matter.set_use_euler_angles), so that every coordinate is one q, as in OpenSim.
        Constraints that cannot be satisfied are refused naming the file's elements they
        were built for (a loop joint, a constraint, a locked coordinate) and what to
        change."""
        state = self.system.realize_topology()
        # OpenSim's coordinates are q: Ball and Free rotations as body-fixed x-y-z angles
        self.matter.set_use_euler_angles(state, True)
        self.system.realize_model(state)
        self._index_coordinates(state)
        self.system.realize(state, Stage.INSTANCE)
        if self.constraints:            # satisfied, as OpenSim's initSystem leaves them
            try:
                self.system.project(state, 1e-10)
            except KinetreeError as error:
                named = self._unsatisfied(state, 1e-10)
                if named is None:
                    raise
                raise self._file_error(named) from error
        return state

    def set_controls(self, state, values: dict) -> None:
        """Set the controls (a muscle's excitation, an actuator's control) of the
        actuators named in ``values`` ({name: value}) in ``state``: what each has when no
        controller drives it, and what a controller adds to (OpenSim's default
        controls)."""
        self._actuators("set_controls").set_controls(state, values)

    def prescribe_controls(self, path, interpolation_method: int = 1):
        """Drive the actuators with the controls of the storage file ``path`` (a time
        column, one column per actuator by name), as an OpenSim PrescribedController with
        that ``controls_file`` does; returns the PrescribedController added (it takes
        effect from the next State made or realized from TOPOLOGY)."""
        from kinetree.actuators import PrescribedController

        subsystem = self._actuators("prescribe_controls")
        controller = PrescribedController.from_file(path, self.actuators, None,
                                                    interpolation_method)
        subsystem.add_controller(controller)
        self.controllers[controller.name] = controller
        return controller

    def equilibrate_muscles(self, state) -> None:
        """Set each muscle's fiber state so that its fiber and tendon forces balance at
        the State's coordinates, speeds and activations (OpenSim's
        ``equilibrateMuscles``); raises naming the first muscle that has no
        equilibrium, and why, with the State left as it was."""
        self._actuators("equilibrate_muscles").equilibrate_muscles(state)

    def _actuators(self, where: str):
        if self.actuator_subsystem is None:
            raise InvalidArgumentError(
                f"Model.{where}: {self.name!r} has no actuators (or was loaded with "
                f"include_forces=False).")
        return self.actuator_subsystem

    def _unsatisfied(self, state, tolerance: float) -> str | None:
        """After a failed projection: the message naming the file's element whose
        constraint is furthest from satisfied (and the others not satisfied), or None
        when that constraint came from no element of a file."""
        errors = []
        try:
            self.system.realize(state, Stage.POSITION)
            for name, constraint in self.constraints.items():
                perr = np.abs(constraint.get_position_errors_as_vector(state))
                if perr.size and not perr.max() <= tolerance:       # NaN counts too
                    errors.append((float(perr.max()), name))
        except KinetreeError:
            return None
        errors.sort(reverse=True)
        if not errors or errors[0][1] not in self._origins:
            return None
        worst, name = errors[0]
        what, fix = self._origins[name]
        source = Path(self._file).name if self._file else f"model {self.name!r}"
        others = [self._origins[n][0] for _, n in errors[1:] if n in self._origins]
        also = f" Not satisfied either: {'; '.join(others[:4])}." if others else ""
        return (f"Model.get_default_state: {source}: {what}: its constraint cannot be "
                f"satisfied (position errors still {worst:.3g}, in m or rad, after "
                f"projecting the default pose onto the constraints); {fix}.{also}")

    def _index_coordinates(self, state) -> None:
        for c in self.coordinates.values():
            mobod = c.mobilized_body
            c.q_index = mobod.get_first_q_index(state) + c.which
            c.u_index = mobod.get_first_u_index(state) + c.which

    def get_coordinate_values(self, state) -> np.ndarray:
        """Every coordinate's q, in the file's order."""
        q = self.matter.get_q(state)
        return np.array([q[c.q_index] for c in self.coordinates.values()])
