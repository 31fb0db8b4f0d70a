"""Force.ConstantTorque: a fixed torque (in Ground) on a body."""

from __future__ import annotations

from kinetree.forces.elements._stations import vector3
from kinetree.forces.force import Force


class ConstantTorque(Force):
    """Torque t_G (N m, in Ground) on the body."""

    def __init__(self, forces, mobod, torque):
        self._b = mobod.get_mobilized_body_index()
        self._t = vector3(torque, "Force.ConstantTorque", "torque")
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        body_forces[self._b, :3] += self._t
