"""Force.MobilityLinearStop: a one-sided spring-damper keeping a coordinate within limits."""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._mobility import mobility_index
from kinetree.forces.force import Force


class MobilityLinearStop(Force):
    """Limits q_low <= q <= q_high on coordinate ``which`` (q̇ = u mobilizers). Past a
    limit, with penetration x = q - q_high (> 0) or q - q_low (< 0), the generalized force
    is -k x (1 ± d q̇) (+ above, - below), clamped so that it never pulls the coordinate
    further in: a Hunt-Crossley-like stop that dissipates on impact and release and is
    zero at first touch. Potential energy ½ k x²."""

    def __init__(self, forces, mobod, which, stiffness, dissipation, q_low, q_high):
        if stiffness < 0 or dissipation < 0 or not q_low <= q_high:
            raise InvalidArgumentError(
                f"Force.MobilityLinearStop: need stiffness >= 0, dissipation >= 0 and "
                f"q_low <= q_high; got {stiffness}, {dissipation}, [{q_low}, {q_high}].")
        self._mobod, self._which = mobod, int(which)
        self._k, self._d = float(stiffness), float(dissipation)
        self._low, self._high = float(q_low), float(q_high)
        super().__init__(forces)

    def _penetration(self, state) -> tuple[float, float, int]:
        where = "Force.MobilityLinearStop"
        iq = mobility_index(self._mobod, state, self._which, "q", where)
        iu = mobility_index(self._mobod, state, self._which, "u", where)
        q = float(self._mobod.get_matter_subsystem().get_q(state)[iq])
        x = q - self._high if q > self._high else (q - self._low if q < self._low else 0.0)
        return x, iu, iq

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        x, iu, _ = self._penetration(state)
        if x == 0.0:
            return
        qdot = float(self._mobod.get_matter_subsystem().get_u(state)[iu])
        if x > 0:
            f = min(0.0, -self._k * x * (1 + self._d * qdot))
        else:
            f = max(0.0, -self._k * x * (1 - self._d * qdot))
        mobility_forces[iu] += f

    def calc_potential_energy(self, state) -> float:
        return 0.5 * self._k * self._penetration(state)[0] ** 2
