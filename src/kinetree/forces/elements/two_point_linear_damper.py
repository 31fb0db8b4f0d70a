"""Force.TwoPointLinearDamper: a dashpot between a station on each of two bodies."""

from __future__ import annotations

import numpy as np

from kinetree.forces.elements._stations import (
    add_station_force,
    station_position,
    station_velocity,
    tree,
    vector3,
)
from kinetree.forces.force import Force
from kinetree.system.stage import Stage


class TwoPointLinearDamper(Force):
    """Force c ḋ (N) along the line between the stations, opposing the rate of change of
    their distance d; it dissipates power c ḋ²."""

    def __init__(self, forces, body1, station1, body2, station2, damping):
        where = "Force.TwoPointLinearDamper"
        self._b1, self._b2 = body1.get_mobilized_body_index(), body2.get_mobilized_body_index()
        self._s1 = vector3(station1, where, "station1")
        self._s2 = vector3(station2, where, "station2")
        self._c = float(damping)
        self._matter = body1.get_matter_subsystem()
        super().__init__(forces)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        c = tree(self._matter, state, Stage.VELOCITY, "Force.TwoPointLinearDamper")
        p1, r1 = station_position(c, self._b1, self._s1)
        p2, r2 = station_position(c, self._b2, self._s2)
        d_vec = p2 - p1
        d = np.linalg.norm(d_vec)
        if d == 0.0:
            return
        e = d_vec / d
        d_dot = e @ (station_velocity(c, self._b2, r2) - station_velocity(c, self._b1, r1))
        f = self._c * d_dot * e                      # on body1: follows body2 when parting
        add_station_force(body_forces, self._b1, r1, f)
        add_station_force(body_forces, self._b2, r2, -f)
