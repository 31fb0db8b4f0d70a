"""Force.TwoPointLinearSpring: a spring between a station on each of two bodies."""

from __future__ import annotations

import numpy as np

from kinetree.forces.elements._stations import add_station_force, station_position, tree, vector3
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class TwoPointLinearSpring(Force):
    """Tension k (d - x0) (N) along the line between station s1 of body1 and s2 of body2
    (stations in their bodies' frames, m), pulling them together when stretched past the
    natural length x0. Potential energy ½ k (d - x0)²."""

    def __init__(self, forces, body1, station1, body2, station2, stiffness, natural_length):
        where = "Force.TwoPointLinearSpring"
        self._b1, self._b2 = body1.get_mobilized_body_index(), body2.get_mobilized_body_index()
        self._s1 = vector3(station1, where, "station1")
        self._s2 = vector3(station2, where, "station2")
        self._k, self._x0 = float(stiffness), float(natural_length)
        self._matter = body1.get_matter_subsystem()
        super().__init__(forces)

    def _geometry(self, state):
        c = tree(self._matter, state, Stage.POSITION, "Force.TwoPointLinearSpring")
        p1, r1 = station_position(c, self._b1, self._s1)
        p2, r2 = station_position(c, self._b2, self._s2)
        return p2 - p1, r1, r2

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        d_vec, r1, r2 = self._geometry(state)
        d = np.linalg.norm(d_vec)
        if d == 0.0:
            return
        f = self._k * (d - self._x0) * d_vec / d      # on body1, toward body2
        add_station_force(body_forces, self._b1, r1, f)
        add_station_force(body_forces, self._b2, r2, -f)

    def calc_potential_energy(self, state) -> float:
        d_vec, _, _ = self._geometry(state)
        return 0.5 * self._k * (np.linalg.norm(d_vec) - self._x0) ** 2
