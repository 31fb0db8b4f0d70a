"""Force.ConstantForce: a fixed force (in Ground) applied at a station of a body."""

from __future__ import annotations

from kinetree.forces.elements._stations import add_station_force, station_offset, vector3
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.multibody.kernels.small import vec3
from kinetree.registry import FORCES

CODE = FORCES["constant_force"]


class ConstantForce(TableForce):
    """Force f_G (N, in Ground) applied at station s (m, in the body frame)."""

    CODE = CODE

    def __init__(self, forces, mobod, station, force):
        self._mobods = (mobod,)
        self._body1 = mobod.get_mobilized_body_index()
        super().__init__(forces, [*vector3(station, "Force.ConstantForce", "station"),
                                  *vector3(force, "Force.ConstantForce", "force")])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [s (3), f (3)]."""
    add_station_force(body_forces, fi[1], station_offset(cache, fi[1], ff[0:3]),
                      vec3(ff[3:6]))
    return 0.0
