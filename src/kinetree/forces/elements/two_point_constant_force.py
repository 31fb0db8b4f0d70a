"""Force.TwoPointConstantForce: a force of fixed magnitude between two stations."""

from __future__ import annotations

import numpy as np

from kinetree.forces.elements._stations import TwoStations, add_station_force
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class TwoPointConstantForce(TwoStations, Force):
    """A force of magnitude f (N) along the line between the stations; positive f pushes
    them apart. Potential energy -f d."""

    def __init__(self, forces, body1, station1, body2, station2, force):
        self._set_stations("Force.TwoPointConstantForce", body1, station1, body2, station2)
        self._f = float(force)
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        _, d_vec, r1, r2 = self._line(state, Stage.POSITION, "Force.TwoPointConstantForce")
        d = np.linalg.norm(d_vec)
        if d == 0.0:
            return
        f = self._f * d_vec / d                      # on body2, away from body1
        add_station_force(body_forces, self._b1, r1, -f)
        add_station_force(body_forces, self._b2, r2, f)

    def calc_potential_energy(self, state) -> float:
        d_vec = self._line(state, Stage.POSITION, "Force.TwoPointConstantForce")[1]
        return -self._f * float(np.linalg.norm(d_vec))
