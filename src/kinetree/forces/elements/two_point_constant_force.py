"""Force.TwoPointConstantForce: a force of fixed magnitude between two stations."""

from __future__ import annotations

import numpy as np

from kinetree.forces.elements._stations import add_station_force, station_position, tree, vector3
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class TwoPointConstantForce(Force):
    """A force of magnitude f (N) along the line between the stations; positive f pushes
    them apart. Potential energy -f d."""

    def __init__(self, forces, body1, station1, body2, station2, force):
        where = "Force.TwoPointConstantForce"
        self._b1, self._b2 = body1.get_mobilized_body_index(), body2.get_mobilized_body_index()
        self._s1 = vector3(station1, where, "station1")
        self._s2 = vector3(station2, where, "station2")
        self._f = float(force)
        self._matter = body1.get_matter_subsystem()
        super().__init__(forces)

    def _geometry(self, state):
        c = tree(self._matter, state, Stage.POSITION, "Force.TwoPointConstantForce")
        p1, r1 = station_position(c, self._b1, self._s1)
        p2, r2 = station_position(c, self._b2, self._s2)
        return p2 - p1, r1, r2

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        d_vec, r1, r2 = self._geometry(state)
        d = np.linalg.norm(d_vec)
        if d == 0.0:
            return
        f = self._f * d_vec / d                      # on body2, away from body1
        add_station_force(body_forces, self._b1, r1, -f)
        add_station_force(body_forces, self._b2, r2, f)

    def calc_potential_energy(self, state) -> float:
        return -self._f * float(np.linalg.norm(self._geometry(state)[0]))
