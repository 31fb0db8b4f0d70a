"""Force.MobilityDiscreteForce: a generalized force on one speed, held in the State and set
by user code (an event handler, a controller sampled at discrete times)."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._mobility import MobilityForce, u_index
from kinetree.forces.elements._stations import finite
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["mobility_discrete_force"]


def check_which_u(value, where: str) -> int:
    """A mobilizer's speed number, checked to be a whole number >= 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 0:
        raise InvalidArgumentError(
            f"{where}: which_u must be a whole number >= 0 (the mobilizer's speed, first "
            f"is 0), got {value!r}; for a one-speed mobilizer pass the force as "
            f"default_force=...")
    return int(value)


class MobilityDiscreteForce(MobilityForce):
    """Generalized force f on speed ``which_u`` of ``mobod``'s mobilizer (N for a
    translation, N m for a rotation: f u is a power). f is a per-State value
    (``set_mobility_force``) that stays until changed, starting at ``default_force``;
    changing it backs the State up to VELOCITY. It has no potential energy."""

    CODE = CODE
    STAGE = Stage.MODEL

    def __init__(self, forces, mobod, which_u: int = 0, default_force: float = 0.0):
        where = "Force.MobilityDiscreteForce"
        self._set_mobility(mobod, check_which_u(which_u, where))
        super().__init__(forces, [finite(default_force, where, "default_force")])

    def set_default_mobility_force(self, default_force) -> MobilityDiscreteForce:
        """The f of a new State; a topology change."""
        self._defaults[0] = finite(default_force,
                                   "Force.MobilityDiscreteForce.set_default_mobility_force",
                                   "default_force")
        self._forces.invalidate_subsystem_topology_cache()
        return self

    def get_default_mobility_force(self) -> float:
        return float(self._defaults[0])

    def set_mobility_force(self, state, f) -> None:
        """f in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 0, [finite(
            f, "Force.MobilityDiscreteForce.set_mobility_force", "f")])

    def get_mobility_force(self, state) -> float:
        return float(self._params(state)[0])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [f]."""
    mobility_forces[u_index(tree, fi)] += ff[0]
    return 0.0
