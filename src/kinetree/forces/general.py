"""GeneralForceSubsystem: a collection of Force elements, each enabled or disabled per
State (an Instance-stage choice)."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements.uniform_gravity import UniformGravity
from kinetree.forces.force import Force
from kinetree.forces.force_subsystem import ForceSubsystem
from kinetree.system.stage import Stage

_NO_GRAVITY = np.zeros(3)


class GeneralForceSubsystem(ForceSubsystem):
    """Holds Force elements; in DYNAMICS each enabled one adds its forces."""

    def __init__(self, system):
        self._forces = []
        super().__init__(system, "GeneralForceSubsystem")

    def _adopt_force(self, force) -> int:
        self._forces.append(force)
        self.invalidate_subsystem_topology_cache()
        return len(self._forces) - 1

    def get_num_forces(self) -> int:
        return len(self._forces)

    def get_force(self, index: int):
        try:
            return self._forces[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"GeneralForceSubsystem.get_force: no force {index!r}; it has "
                f"{len(self._forces)}.") from None

    def realize_topology(self, state):
        self._enabled_index = self.allocate_discrete_variable(
            state, Stage.INSTANCE, [not f._disabled_by_default for f in self._forces])
        self._with_hooks = [f for f in self._forces if type(f)._realize is not Force._realize]
        self._realize_elements(Stage.TOPOLOGY, state)

    def _realize_elements(self, stage: Stage, state) -> None:
        """Run the stage hooks of the elements that have any (custom forces)."""
        for force in self._with_hooks:
            force._realize(stage, state)

    def realize_model(self, state):
        self._realize_elements(Stage.MODEL, state)

    def realize_instance(self, state):
        self._realize_elements(Stage.INSTANCE, state)

    def realize_time(self, state):
        self._realize_elements(Stage.TIME, state)

    def realize_position(self, state):
        self._realize_elements(Stage.POSITION, state)

    def realize_velocity(self, state):
        self._realize_elements(Stage.VELOCITY, state)

    def realize_acceleration(self, state):
        self._realize_elements(Stage.ACCELERATION, state)

    def realize_report(self, state):
        self._realize_elements(Stage.REPORT, state)

    def _matter(self):
        return self.get_system().get_matter_subsystem()

    def is_force_disabled(self, state, force) -> bool:
        return not self.get_discrete_variable(state, self._enabled_index)[force._index]

    def set_force_is_disabled(self, state, force, disabled: bool) -> None:
        enabled = list(self.get_discrete_variable(state, self._enabled_index))
        enabled[force._index] = not disabled
        self.set_discrete_variable(state, self._enabled_index, enabled)

    def _enabled_forces(self, state):
        enabled = self.get_discrete_variable(state, self._enabled_index)
        return [f for f, on in zip(self._forces, enabled) if on]

    def realize_dynamics(self, state):
        self._realize_elements(Stage.DYNAMICS, state)
        d = self._matter()._tree_data(state, Stage.VELOCITY, "GeneralForceSubsystem")
        body_forces, mobility_forces = d.body_forces, d.mobility_forces
        enabled = state._discrete(self._index, self._enabled_index, "GeneralForceSubsystem")
        for force, on in zip(self._forces, enabled.value):
            if on:
                force.calc_force(state, body_forces, None, mobility_forces)

    def _forward_gravity(self, state):
        """What this subsystem adds in DYNAMICS if that is gravity alone (for the one-call
        forward pipeline, ``MultibodySystem.realize``): the g (m/s²) of its one enabled
        UniformGravity, zeros if nothing is enabled, None if anything else is enabled or
        an element has realize hooks."""
        if self._with_hooks:
            return None
        enabled = state._discrete(self._index, self._enabled_index, "GeneralForceSubsystem")
        g = None
        for force, on in zip(self._forces, enabled.value):
            if on:
                if g is not None or type(force) is not UniformGravity:
                    return None
                g = force._g
        return _NO_GRAVITY if g is None else g

    def calc_potential_energy(self, state) -> float:
        return float(sum(f.calc_potential_energy(state) for f in self._enabled_forces(state)))
