"""Force.MobilityLinearSpring: a torsional or linear spring on one coordinate."""

from __future__ import annotations

from kinetree.forces.elements._mobility import MobilityForce, q_index, u_index
from kinetree.forces.elements._stations import finite
from kinetree.jit import helper
from kinetree.registry import FORCES

CODE = FORCES["mobility_linear_spring"]


class MobilityLinearSpring(MobilityForce):
    """Generalized force -k (q - q0) on coordinate ``which`` of a mobilizer whose q̇ = u
    (a Pin's angle, a Slider's translation). Potential energy ½ k (q - q0)². The stiffness
    and q0 may differ per State (``set_stiffness``, ``set_q_zero``)."""

    CODE = CODE
    NONNEGATIVE = (0,)
    USES_Q = True

    def __init__(self, forces, mobod, which, stiffness, q_zero):
        where = "Force.MobilityLinearSpring"
        self._set_mobility(mobod, which)
        super().__init__(forces, [finite(stiffness, where, "stiffness", 0.0),
                                  finite(q_zero, where, "q_zero")])

    def get_default_stiffness(self) -> float:
        return float(self._defaults[0])

    def get_default_q_zero(self) -> float:
        return float(self._defaults[1])

    def set_stiffness(self, state, stiffness) -> MobilityLinearSpring:
        """k (>= 0) in ``state``; backs the State up to VELOCITY."""
        k = finite(stiffness, "Force.MobilityLinearSpring.set_stiffness", "stiffness", 0.0)
        self._set_params(state, 0, [k])
        return self

    def get_stiffness(self, state) -> float:
        return float(self._params(state)[0])

    def set_q_zero(self, state, q_zero) -> MobilityLinearSpring:
        """q0 in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 1, [finite(q_zero, "Force.MobilityLinearSpring.set_q_zero",
                                           "q_zero")])
        return self

    def get_q_zero(self, state) -> float:
        return float(self._params(state)[1])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [k, q0]."""
    x = q[q_index(tree, fi)] - ff[1]
    mobility_forces[u_index(tree, fi)] -= ff[0] * x
    return 0.5 * ff[0] * x * x
