"""Force.GlobalDamper: damping on every generalized speed."""

from __future__ import annotations

from kinetree.forces.force import Force


class GlobalDamper(Force):
    """Generalized forces -c u on all speeds of the matter subsystem; dissipates c |u|²."""

    def __init__(self, forces, matter, damping):
        self._matter, self._c = matter, float(damping)
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        mobility_forces -= self._c * self._matter.get_u(state)
