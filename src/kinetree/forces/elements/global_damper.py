"""Force.GlobalDamper: damping on every generalized speed."""

from __future__ import annotations

from kinetree.forces.elements._stations import finite, same_system_matter
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["global_damper"]


class GlobalDamper(TableForce):
    """Generalized forces -c u on all speeds of the matter subsystem; dissipates c |u|²."""

    CODE = CODE
    NONNEGATIVE = (0,)
    STAGE = Stage.VELOCITY

    def __init__(self, forces, matter, damping):
        self._matter = same_system_matter(forces, matter, "Force.GlobalDamper")
        super().__init__(forces, [finite(damping, "Force.GlobalDamper", "damping", 0.0)])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [c]."""
    for i in range(u.shape[0]):
        mobility_forces[i] -= ff[0] * u[i]
    return 0.0
