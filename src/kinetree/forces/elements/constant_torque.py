"""Force.ConstantTorque: a fixed torque (in Ground) on a body."""

from __future__ import annotations

from kinetree.forces.elements._stations import vector3
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.registry import FORCES

CODE = FORCES["constant_torque"]


class ConstantTorque(TableForce):
    """Torque t_G (N m, in Ground) on the body."""

    CODE = CODE

    def __init__(self, forces, mobod, torque):
        self._mobods = (mobod,)
        self._body1 = mobod.get_mobilized_body_index()
        super().__init__(forces, vector3(torque, "Force.ConstantTorque", "torque"))


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [t (3)]."""
    F = body_forces[fi[1]]
    F[0] += ff[0]
    F[1] += ff[1]
    F[2] += ff[2]
    return 0.0
