"""Force.MobilityLinearDamper: a damper on one generalized speed."""

from __future__ import annotations

from kinetree.forces.elements._mobility import MobilityForce, u_index
from kinetree.forces.elements._stations import finite
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["mobility_linear_damper"]


class MobilityLinearDamper(MobilityForce):
    """Generalized force -c u on speed ``which`` of a mobilizer; dissipates c u². The
    damping may differ per State (``set_damping``)."""

    CODE = CODE
    NONNEGATIVE = (0,)
    STAGE = Stage.VELOCITY

    def __init__(self, forces, mobod, which, damping):
        self._set_mobility(mobod, which)
        super().__init__(forces, [finite(damping, "Force.MobilityLinearDamper", "damping",
                                         0.0)])

    def get_default_damping(self) -> float:
        return float(self._defaults[0])

    def set_damping(self, state, damping) -> MobilityLinearDamper:
        """c (>= 0) in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 0, [finite(damping, "Force.MobilityLinearDamper.set_damping",
                                           "damping", 0.0)])
        return self

    def get_damping(self, state) -> float:
        return float(self._params(state)[0])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [c]."""
    iu = u_index(tree, fi)
    mobility_forces[iu] -= ff[0] * u[iu]
    return 0.0
