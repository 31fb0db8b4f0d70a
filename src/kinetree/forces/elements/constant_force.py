"""Force.ConstantForce: a fixed force (in Ground) applied at a station of a body."""

from __future__ import annotations

from kinetree.forces.elements._stations import add_station_force, station_offset, tree, vector3
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class ConstantForce(Force):
    """Force f_G (N, in Ground) applied at station s (m, in the body frame)."""

    def __init__(self, forces, mobod, station, force):
        self._b = mobod.get_mobilized_body_index()
        self._matter = mobod.get_matter_subsystem()
        self._s = vector3(station, "Force.ConstantForce", "station")
        self._f = vector3(force, "Force.ConstantForce", "force")
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        c = tree(self._matter, state, Stage.POSITION, "Force.ConstantForce")
        add_station_force(body_forces, self._b, station_offset(c, self._b, self._s), self._f)
