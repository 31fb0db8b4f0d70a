"""Force.MobilityLinearDamper: a damper on one generalized speed."""

from __future__ import annotations

from kinetree.forces.elements._mobility import mobility_index
from kinetree.forces.force import Force


class MobilityLinearDamper(Force):
    """Generalized force -c u on speed ``which`` of a mobilizer; dissipates c u²."""

    def __init__(self, forces, mobod, which, damping):
        self._mobod, self._which, self._c = mobod, int(which), float(damping)
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        iu = mobility_index(self._mobod, state, self._which, "u", "Force.MobilityLinearDamper")
        mobility_forces[iu] -= self._c * self._mobod.get_matter_subsystem().get_u(state)[iu]
