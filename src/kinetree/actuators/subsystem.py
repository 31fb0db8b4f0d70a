"""ActuatorSubsystem: OpenSim's actuators (muscles among them), their paths and the
controllers setting their controls, as one part of the compiled realization.

Its actuators are a table (``actuator.py``): integer rows fixed at TOPOLOGY and their
parameters in the State, a Dynamics-stage discrete variable, so a per-State change of a
muscle's strength backs the State up to VELOCITY only. Each actuator's states
(activation, fiber length, ...) are this subsystem's z. The controls are, per State, the
defaults a program sets (``set_controls``; a Dynamics-stage discrete variable), plus what
each controller adds at DYNAMICS: a PrescribedController of built-in Functions of time is
evaluated in compiled code, a controller written in Python runs just before it. Within a
MultibodySystem the whole of it (paths at POSITION and VELOCITY, controls, actuators and
path forces at DYNAMICS) is computed inside the one compiled realization
(``engine/forward.py``).
"""

from __future__ import annotations

import numpy as np

from kinetree.actuators.actuator import (
    ACTUATOR_I_COLUMNS,
    ACTUATOR_OUTPUTS,
    AT,
    CODE,
    CONTROL,
    OUT_FIBER_VELOCITY,
    PATH,
    Actuator,
    Muscle,
    Z,
)
from kinetree.actuators.controllers import CONTROLLER_I_COLUMNS, Controller, control_sweep
from kinetree.actuators.dispatch import equilibrate_sweep
from kinetree.actuators.path_table import PathTable
from kinetree.engine.kinds import Kinds
from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.paths import path_kernel as pk
from kinetree.paths.geometry_path import moment_arm
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem
from kinetree.viz.decorations import DecorativeLine


class ActuatorSubsystem(Subsystem):
    """Holds a model's actuators and controllers, in the order they were added (a loaded
    model's: the file's)."""

    _CHECKS_SET_VALUES = True

    def __init__(self, system):
        self._actuators: list[Actuator] = []
        self._controllers: list[Controller] = []
        super().__init__(system, "ActuatorSubsystem")

    # ------------------------------------------------------------ contents
    def add_actuator(self, actuator: Actuator) -> int:
        """Adopt ``actuator``; its index in this subsystem."""
        if not isinstance(actuator, Actuator):
            raise InvalidArgumentError(
                f"ActuatorSubsystem.add_actuator: {actuator!r:.60} is not an Actuator; give "
                f"a CoordinateActuator, a muscle, ... (kinetree.osim).")
        if getattr(actuator, "_subsystem", None) is not None:
            raise InvalidArgumentError(
                f"ActuatorSubsystem.add_actuator: {actuator.name!r} already belongs to a "
                f"subsystem; make a new one.")
        if any(a.name == actuator.name for a in self._actuators):
            raise InvalidArgumentError(
                f"ActuatorSubsystem.add_actuator: an actuator is already named "
                f"{actuator.name!r}; give each its own name.")
        actuator._subsystem = self
        actuator._index = len(self._actuators)
        self._actuators.append(actuator)
        self.invalidate_subsystem_topology_cache()
        return actuator._index

    def add_controller(self, controller: Controller) -> int:
        """Adopt ``controller``; its index in this subsystem."""
        if not isinstance(controller, Controller):
            raise InvalidArgumentError(
                f"ActuatorSubsystem.add_controller: {controller!r:.60} is not a Controller; "
                f"give a PrescribedController or a subclass of Controller.")
        controller._subsystem = self
        self._controllers.append(controller)
        self.invalidate_subsystem_topology_cache()
        return len(self._controllers) - 1

    def get_num_actuators(self) -> int:
        return len(self._actuators)

    def get_actuator(self, index: int) -> Actuator:
        return self._actuators[index]

    def z_labels(self) -> list[str]:
        """Each z's name as OpenSim names the state in its files:
        ``/forceset/<actuator>/<state>`` (``activation``, ``fiber_length``, ...)."""
        return [f"/forceset/{a.name}/{state}" for a in self._actuators for state in a._states()]

    def muscle_outputs(self) -> dict:
        """Report columns of each muscle, by OpenSim's output names: its tendon force (N)
        and its path's length (m), as functions of a State realized to DYNAMICS, for
        ``simulate(outputs=...)``."""
        outputs = {}
        for a in self._actuators:
            if isinstance(a, Muscle):
                outputs[f"/forceset/{a.name}|tendon_force"] = a.get_tendon_force
                outputs[f"/forceset/{a.name}/geometrypath|length"] = a.get_length
        return outputs

    def get_topology_description(self) -> str:
        return super().get_topology_description() + "|" + ",".join(
            f"{type(a).__name__}:{a.name}" for a in self._actuators) + "|" + ",".join(
            type(c).__name__ for c in self._controllers)

    def _matter(self):
        return self.get_system().get_matter_subsystem()

    # ------------------------------------------------------------- layout
    def realize_topology(self, state):
        z0 = []
        self._z_first = []
        for a in self._actuators:
            self._z_first.append(len(z0))
            z0.extend(a._initial_z())
        self._paths = [a.path for a in self._actuators
                       if isinstance(a, Muscle) and a.path is not None]
        self._kinds = Kinds("actuators", {a.CODE for a in self._actuators})
        self.allocate_z(state, np.asarray(z0, dtype=float))
        self._params_index = self.allocate_discrete_variable(
            state, Stage.DYNAMICS, np.concatenate(
                [np.asarray(a._params(), dtype=float) for a in self._actuators] or
                [np.zeros(0)]))
        n = len(self._actuators)
        self._defaults_index = self.allocate_discrete_variable(state, Stage.DYNAMICS,
                                                               np.zeros(n))
        self._controls_index = self.allocate_cache_entry(
            state, Stage.DYNAMICS, Stage.DYNAMICS, np.zeros(n))
        self._python_controls_index = self.allocate_cache_entry(
            state, Stage.DYNAMICS, Stage.DYNAMICS, np.zeros(n))
        self._outputs_index = self.allocate_cache_entry(
            state, Stage.DYNAMICS, Stage.DYNAMICS, np.zeros((n, ACTUATOR_OUTPUTS)))
        self._path_values_index = self.allocate_cache_entry(
            state, Stage.POSITION, Stage.DYNAMICS, np.zeros((3, len(self._paths))))
        controller_i, controller_f = [], []
        enabled = [c for c in self._controllers if c.enabled]
        for c in enabled:
            rows, floats = c._rows(self, len(controller_f))
            controller_i.extend(rows)
            controller_f.extend(floats)
        self._controller_i = np.asarray(controller_i, dtype=np.int64).reshape(
            -1, CONTROLLER_I_COLUMNS)
        self._controller_f = np.asarray(controller_f, dtype=float)
        self._controller_i.flags.writeable = self._controller_f.flags.writeable = False
        self._python_controllers = [c for c in enabled if c._python]

    def realize_model(self, state):
        """The actuator rows (their coordinates' mobilities are known from MODEL on) and
        the paths' tables."""
        tree = self._matter().get_tree_data(state, Stage.MODEL, "ActuatorSubsystem").tree
        rows = np.full((len(self._actuators), ACTUATOR_I_COLUMNS), -1, dtype=np.int64)
        at, path = 0, 0
        for k, a in enumerate(self._actuators):
            a._check_model(tree)
            for column, value in a._row(tree).items():
                rows[k, column] = value
            rows[k, CODE] = a.CODE
            rows[k, Z] = self._z_first[k]
            rows[k, CONTROL] = k
            rows[k, AT] = at
            at += len(a._params())
            if isinstance(a, Muscle) and a.path is not None:
                rows[k, PATH] = path
                path += 1
        rows.flags.writeable = False
        self._act_i = rows
        self._path_table = PathTable(self._paths)
        self._path_work_index = self.allocate_cache_entry(
            state, Stage.POSITION, Stage.POSITION, self._path_table.new_work())

    # --------------------------------------------------------- realization
    def realize_dynamics(self, state):
        raise KinetreeError(
            "ActuatorSubsystem: its actuators are computed inside the multibody system's "
            "compiled realization, which this System does not use for them (a second "
            "ActuatorSubsystem, or a matter subsystem overriding its realize hooks); put "
            "every actuator in one ActuatorSubsystem of a MultibodySystem.")

    def engine_fields(self, state) -> dict:
        """The actuators' fields of the compiled realization's model and data
        (``engine/data.py``): views of ``state``'s arrays."""
        part = state._part_of(self, "ActuatorSubsystem")
        table = self._path_table
        values = part.cache[self._path_values_index].value
        return {"actuator_kinds": self._kinds, "act_i": self._act_i,
                "controller_i": self._controller_i, "controller_f": self._controller_f,
                "z": state._z[part.z_slice], "zdot": state._zdot[part.z_slice],
                "act_z_at": part.z_slice.start,
                "act_f": self._params_array(state),
                "control_defaults": state._discrete(self, self._defaults_index,
                                                    "ActuatorSubsystem").value,
                "python_controls": part.cache[self._python_controls_index].value,
                "controls": part.cache[self._controls_index].value,
                "act_out": part.cache[self._outputs_index].value,
                **table.engine_model(),
                "path_work": part.cache[self._path_work_index].value,
                "path_length": values[0], "path_speed": values[1], "path_tension": values[2]}

    def engine_python(self, state) -> tuple[dict, dict]:
        """(before, after): the Python controllers, run before the compiled DYNAMICS."""
        if not self._python_controllers:
            return {}, {}
        return {Stage.DYNAMICS: [self._python_dynamics]}, {}

    def _python_dynamics(self, state) -> None:
        controls = state._part_of(self, "ActuatorSubsystem").cache[
            self._python_controls_index].value
        controls[:] = 0.0
        for c in self._python_controllers:
            try:
                c.compute_controls(state, _Controls(self, controls, c))
            except Exception as error:
                error.add_note(f"raised by {type(c).__name__} {c.name!r}.compute_controls at "
                               f"t = {state.get_time():.17g} s")
                raise

    def _params_array(self, state) -> np.ndarray:
        return state._discrete(self, self._params_index, "ActuatorSubsystem").value

    def _compiled_variables(self) -> tuple:
        return (self._params_index, self._defaults_index)

    def _outputs(self, state, where: str) -> np.ndarray:
        """The actuators' outputs (``actuator.OUT_*`` columns), realized at DYNAMICS."""
        self._require(state, Stage.DYNAMICS, where)
        return state._part_of(self, "ActuatorSubsystem").cache[self._outputs_index].value

    def _path_values(self, state, stage: Stage, where: str) -> np.ndarray:
        """(3, paths): the paths' lengths (POSITION), speeds (VELOCITY), tensions
        (DYNAMICS)."""
        self._require(state, stage, where)
        return state._part_of(self, "ActuatorSubsystem").cache[self._path_values_index].value

    def _require(self, state, stage: Stage, where: str) -> None:
        if state.get_system_stage() < stage:
            raise KinetreeError(
                f"{where}: the State is realized to {state.get_system_stage().name}; it "
                f"needs {stage.name}: call system.realize(state, Stage.{stage.name}) first.")

    # ------------------------------------------------------------- controls
    def set_controls(self, state, values: dict) -> None:
        """Set the default controls of the actuators named in ``values`` ({name:
        control}), those a controller adds to (0 unless set)."""
        defaults = self.upd_discrete_variable(state, self._defaults_index)
        by_name = {a.name: a._index for a in self._actuators}
        for name, value in values.items():
            if name not in by_name:
                raise InvalidArgumentError(
                    f"set_controls: no actuator {name!r}; the actuators are "
                    f"{', '.join(list(by_name)[:12])}{' ...' if len(by_name) > 12 else ''}.")
            value = float(value)
            if not np.isfinite(value):
                raise InvalidArgumentError(
                    f"set_controls: the control of {name!r} is {value}; it must be finite.")
            defaults[by_name[name]] = value

    def get_controls(self, state) -> np.ndarray:
        """Each actuator's control (excitation for a muscle) in ``state`` (DYNAMICS)."""
        self._require(state, Stage.DYNAMICS, "get_controls")
        values = state._part_of(self, "ActuatorSubsystem").cache[self._controls_index].value
        return values.copy()

    def get_current_path(self, state, muscle: Muscle) -> np.ndarray:
        """(n, 3): the points of ``muscle``'s path in Ground (m), the wrap tangent points
        included, in order from origin to insertion (POSITION)."""
        self._require(state, Stage.POSITION, f"{muscle.name}.get_current_path")
        work = state._part_of(self, "ActuatorSubsystem").cache[self._path_work_index].value
        pi = self._path_table.layout.path_i[self._act_i[muscle._index, PATH]]
        n = int(work[pi[pk.P_HEADER]])
        rows = pi[pk.P_CURRENT] + pk.CP_SIZE * np.arange(n)
        return np.stack([work[rows + pk.CP_GROUND + i] for i in range(3)], axis=1)

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """At POSITION: each muscle's path as lines through its current points, coloured
        by its activation from blue (0) to red (1), as OpenSim's GUI draws them."""
        if stage != Stage.POSITION:
            return
        for a in self._actuators:
            if not isinstance(a, Muscle) or a.path is None:
                continue
            found = a._z(state, "activation", "draw")
            activation = float(found[0][found[1]]) if found is not None else 0.5
            activation = min(max(activation, 0.0), 1.0)
            color = (activation, 0.0, 1.0 - activation)
            points = self.get_current_path(state, a)
            for p1, p2 in zip(points[:-1], points[1:]):
                geometry.append(DecorativeLine(p1, p2).set_color(color)
                                .set_line_thickness(3.0))

    def compute_moment_arm(self, state, muscle: Muscle, coordinate) -> float:
        """The moment arm of ``muscle``'s path about ``coordinate`` (a loaded model's
        Coordinate, or anything with its ``u_index``), as OpenSim's MomentArmSolver
        computes it (``paths/geometry_path.moment_arm``), in ``state`` realized to
        POSITION."""
        u_index = getattr(coordinate, "u_index", None)
        if not isinstance(u_index, (int, np.integer)) or not \
                0 <= u_index < state.get_num_u():
            raise InvalidArgumentError(
                f"{muscle.name}.compute_moment_arm: give one of the model's Coordinates "
                f"(model.coordinates[name]), got {coordinate!r:.60}.")
        self._require(state, Stage.POSITION, f"{muscle.name}.compute_moment_arm")
        work = state._part_of(self, "ActuatorSubsystem").cache[self._path_work_index].value
        return moment_arm(self.get_system(), state, self._path_table.layout,
                          int(self._act_i[muscle._index, PATH]), int(u_index), work.copy())

    def equilibrate_muscles(self, state) -> None:
        """Each muscle's fiber state set so that its fiber and tendon forces balance at
        the State's path lengths and speeds, activations and controls (OpenSim's
        ``equilibrateMuscles``). Raises KinetreeError naming the first muscle without an
        equilibrium, and why; the State is then unchanged."""
        system = self.get_system()
        system.realize(state, Stage.VELOCITY)
        fields = system._plan_of(state).data
        controls = np.empty(len(self._actuators))
        python_controls = np.zeros(len(self._actuators))
        for c in self._python_controllers:
            c.compute_controls(state, _Controls(self, python_controls, c))
        control_sweep(self._controller_i, self._controller_f, np.array([state.get_time()]),
                      fields.control_defaults, python_controls, controls)
        z = fields.z.copy()
        failed, code = equilibrate_sweep(self._kinds, self._act_i, fields.act_f, z, controls,
                                         fields.path_length, fields.path_speed,
                                         np.zeros((len(self._actuators), ACTUATOR_OUTPUTS)))
        if failed >= 0:
            a = self._actuators[failed]
            raise KinetreeError(
                f"equilibrate_muscles: {type(a).__name__} {a.name!r} at t = "
                f"{state.get_time():.6g} s: {a.failure(int(code))}. Its path length is "
                f"{fields.path_length[self._act_i[failed, PATH]]:.6g} m; check the "
                f"coordinates, or the muscle's optimal fiber and tendon slack lengths.")
        self.upd_z(state)[:] = z

    FAR_FROM_EQUILIBRIUM = 1000.0
    """Optimal fiber lengths per second: a fiber velocity beyond this says the muscle's
    fiber state is far from balancing its tendon."""

    def diagnose(self, state) -> list[str]:
        """Why a run from ``state`` may fail, muscle by muscle: fibers moving at absurd
        speeds because their state is far from equilibrium (a model not equilibrated)."""
        self.get_system().realize(state, Stage.DYNAMICS)
        outputs = self._outputs(state, "diagnose")
        far = []
        for a in self._actuators:
            if not isinstance(a, Muscle) or "fiber_length" not in a._states():
                continue
            scale = a.properties.get("optimal_fiber_length", 1.0)
            velocity = outputs[a._index, OUT_FIBER_VELOCITY]
            if not abs(velocity) <= self.FAR_FROM_EQUILIBRIUM * scale:
                far.append(f"{a.name} ({velocity:.3g} m/s)")
        if not far:
            return []
        return [f"{len(far)} muscle(s) have fibers far from equilibrium: "
                f"{', '.join(far[:5])}{', ...' if len(far) > 5 else ''}; call "
                f"model.equilibrate_muscles(state) before simulating"]

    def check_loaded_discrete_variable(self, state, index: int, value) -> str | None:
        why = super().check_loaded_discrete_variable(state, index, value)
        if why is None and index == self._params_index:
            at = 0
            for a in self._actuators:
                n = len(a._params())
                why = a.check_parameters(np.asarray(value)[at:at + n])
                if why is not None:
                    return f"{type(a).__name__} {a.name!r}: {why}"
                at += n
        return why


class _Controls:
    """What a Python controller's ``compute_controls`` writes: the controls it adds, by
    actuator name or Actuator (``controls["biceps"] = 0.3`` adds 0.3)."""

    __slots__ = ("_subsystem", "_values", "_controller")

    def __init__(self, subsystem, values, controller):
        self._subsystem, self._values, self._controller = subsystem, values, controller

    def _index(self, key) -> int:
        actuators = self._subsystem._actuators
        if isinstance(key, Actuator) and key._subsystem is self._subsystem:
            return key._index
        for a in actuators:
            if a.name == key:
                return a._index
        raise InvalidArgumentError(
            f"{type(self._controller).__name__} {self._controller.name!r}: no actuator "
            f"{key!r}; name one of the model's actuators.")

    def __setitem__(self, key, value) -> None:
        value = float(value)
        if not np.isfinite(value):
            raise InvalidArgumentError(
                f"{type(self._controller).__name__} {self._controller.name!r} set the "
                f"control of {key!r} to {value}; a control must be finite.")
        self._values[self._index(key)] += value

    def __getitem__(self, key) -> float:
        return float(self._values[self._index(key)])
