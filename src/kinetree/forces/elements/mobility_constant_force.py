"""Force.MobilityConstantForce: a constant generalized force on one speed."""

from __future__ import annotations

from kinetree.forces.elements._mobility import MobilityForce, u_index
from kinetree.forces.elements._stations import finite
from kinetree.jit import helper
from kinetree.registry import FORCES

CODE = FORCES["mobility_constant_force"]


class MobilityConstantForce(MobilityForce):
    """Generalized force f (N or N m, as the speed is a translation or a rotation) on
    speed ``which`` of a mobilizer; f may differ per State (``set_force``)."""

    CODE = CODE

    def __init__(self, forces, mobod, which, force):
        self._set_mobility(mobod, which)
        super().__init__(forces, [finite(force, "Force.MobilityConstantForce", "force")])

    def get_default_force(self) -> float:
        return float(self._defaults[0])

    def set_force(self, state, force) -> None:
        """f in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 0, [finite(force, "Force.MobilityConstantForce.set_force",
                                           "force")])

    def get_force(self, state) -> float:
        return float(self._params(state)[0])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [f]."""
    mobility_forces[u_index(tree, fi)] += ff[0]
    return 0.0
