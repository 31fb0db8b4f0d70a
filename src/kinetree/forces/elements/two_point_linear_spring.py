"""Force.TwoPointLinearSpring: a spring between a station on each of two bodies."""

from __future__ import annotations

import numpy as np

from kinetree.forces.elements._stations import TwoStations, add_station_force
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class TwoPointLinearSpring(TwoStations, Force):
    """Tension k (d - x0) (N) along the line between station s1 of body1 and s2 of body2
    (stations in their bodies' frames, m), pulling them together when stretched past the
    natural length x0. Potential energy ½ k (d - x0)²."""

    def __init__(self, forces, body1, station1, body2, station2, stiffness, natural_length):
        self._set_stations("Force.TwoPointLinearSpring", body1, station1, body2, station2)
        self._k, self._x0 = float(stiffness), float(natural_length)
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        _, d_vec, r1, r2 = self._line(state, Stage.POSITION, "Force.TwoPointLinearSpring")
        d = np.linalg.norm(d_vec)
        if d == 0.0:
            return
        f = self._k * (d - self._x0) * d_vec / d      # on body1, toward body2
        add_station_force(body_forces, self._b1, r1, f)
        add_station_force(body_forces, self._b2, r2, -f)

    def calc_potential_energy(self, state) -> float:
        d_vec = self._line(state, Stage.POSITION, "Force.TwoPointLinearSpring")[1]
        return 0.5 * self._k * (np.linalg.norm(d_vec) - self._x0) ** 2
