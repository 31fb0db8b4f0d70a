"""Force.MobilityConstantForce: a constant generalized force on one speed."""

from __future__ import annotations

from kinetree.forces.elements._mobility import mobility_index
from kinetree.forces.force import Force


class MobilityConstantForce(Force):
    """Generalized force f (N or N m, as the speed is a translation or a rotation) on
    speed ``which`` of a mobilizer."""

    def __init__(self, forces, mobod, which, force):
        self._mobod, self._which, self._f = mobod, int(which), float(force)
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        iu = mobility_index(self._mobod, state, self._which, "u", "Force.MobilityConstantForce")
        mobility_forces[iu] += self._f
