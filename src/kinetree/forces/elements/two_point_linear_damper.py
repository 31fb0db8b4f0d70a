"""Force.TwoPointLinearDamper: a dashpot between a station on each of two bodies."""

from __future__ import annotations

import numpy as np

from kinetree.forces.elements._stations import TwoStations, add_station_force, station_velocity
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class TwoPointLinearDamper(TwoStations, Force):
    """Force c ḋ (N) along the line between the stations, opposing the rate of change of
    their distance d; it dissipates power c ḋ²."""

    def __init__(self, forces, body1, station1, body2, station2, damping):
        self._set_stations("Force.TwoPointLinearDamper", body1, station1, body2, station2)
        self._c = float(damping)
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        c, d_vec, r1, r2 = self._line(state, Stage.VELOCITY, "Force.TwoPointLinearDamper")
        d = np.linalg.norm(d_vec)
        if d == 0.0:
            return
        e = d_vec / d
        d_dot = e @ (station_velocity(c, self._b2, r2) - station_velocity(c, self._b1, r1))
        f = self._c * d_dot * e                      # on body1: follows body2 when parting
        add_station_force(body_forces, self._b1, r1, f)
        add_station_force(body_forces, self._b2, r2, -f)
