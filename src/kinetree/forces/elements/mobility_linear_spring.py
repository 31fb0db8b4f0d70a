"""Force.MobilityLinearSpring: a torsional or linear spring on one coordinate."""

from __future__ import annotations

from kinetree.forces.elements._mobility import mobility_index
from kinetree.forces.force import Force


class MobilityLinearSpring(Force):
    """Generalized force -k (q - q0) on coordinate ``which`` of a mobilizer whose q̇ = u
    (a Pin's angle, a Slider's translation). Potential energy ½ k (q - q0)²."""

    def __init__(self, forces, mobod, which, stiffness, q_zero):
        self._mobod, self._which = mobod, int(which)
        self._k, self._q0 = float(stiffness), float(q_zero)
        super().__init__(forces)

    def _q(self, state) -> tuple[float, int]:
        where = "Force.MobilityLinearSpring"
        iq = mobility_index(self._mobod, state, self._which, "q", where)
        iu = mobility_index(self._mobod, state, self._which, "u", where)
        return float(self._mobod.get_matter_subsystem().get_q(state)[iq]), iu

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        q, iu = self._q(state)
        mobility_forces[iu] -= self._k * (q - self._q0)

    def calc_potential_energy(self, state) -> float:
        return 0.5 * self._k * (self._q(state)[0] - self._q0) ** 2
