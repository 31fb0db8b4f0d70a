"""Force.TwoPointLinearDamper: a dashpot between a station on each of two bodies."""

from __future__ import annotations

from kinetree.forces.elements._stations import (
    add_station_force,
    finite,
    station_velocity,
    two_station_line,
)
from kinetree.forces.elements._table import TableForce
from kinetree.forces.elements.two_point_constant_force import two_stations
from kinetree.jit import helper
from kinetree.multibody.kernels.small import sub3
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["two_point_linear_damper"]


class TwoPointLinearDamper(TableForce):
    """Force c ḋ (N) along the line between the stations, opposing the rate of change of
    their distance d; it dissipates power c ḋ²."""

    CODE = CODE
    NONNEGATIVE = (6,)
    STAGE = Stage.VELOCITY

    def __init__(self, forces, body1, station1, body2, station2, damping):
        where = "Force.TwoPointLinearDamper"
        stations = two_stations(self, where, body1, station1, body2, station2)
        super().__init__(forces, [*stations, finite(damping, where, "damping", 0.0)])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [s1 (3), s2 (3), c]."""
    b1, b2 = fi[1], fi[2]
    r1, r2, d, length = two_station_line(cache, b1, ff[0:3], b2, ff[3:6])
    if length == 0.0:
        return 0.0
    v = sub3(station_velocity(cache, b2, r2), station_velocity(cache, b1, r1))
    s = ff[6] * (d[0] * v[0] + d[1] * v[1] + d[2] * v[2]) / (length * length)
    f = (s * d[0], s * d[1], s * d[2])     # on body1: follows body2 when parting
    add_station_force(body_forces, b1, r1, f)
    add_station_force(body_forces, b2, r2, (-f[0], -f[1], -f[2]))
    return 0.0
