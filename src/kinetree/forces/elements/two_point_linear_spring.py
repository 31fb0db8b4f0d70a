"""Force.TwoPointLinearSpring: a spring between a station on each of two bodies."""

from __future__ import annotations

from kinetree.forces.elements._stations import add_station_force, finite, two_station_line
from kinetree.forces.elements._table import TableForce
from kinetree.forces.elements.two_point_constant_force import two_stations
from kinetree.jit import helper
from kinetree.registry import FORCES

CODE = FORCES["two_point_linear_spring"]


class TwoPointLinearSpring(TableForce):
    """Tension k (d - x0) (N) along the line between station s1 of body1 and s2 of body2
    (stations in their bodies' frames, m), pulling them together when stretched past the
    natural length x0. Potential energy ½ k (d - x0)²."""

    CODE = CODE
    NONNEGATIVE = (7,)

    def __init__(self, forces, body1, station1, body2, station2, stiffness, natural_length):
        where = "Force.TwoPointLinearSpring"
        stations = two_stations(self, where, body1, station1, body2, station2)
        super().__init__(forces, [*stations, finite(stiffness, where, "stiffness"),
                                  finite(natural_length, where, "natural_length", 0.0)])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [s1 (3), s2 (3), k, x0]."""
    r1, r2, d, length = two_station_line(cache, fi[1], ff[0:3], fi[2], ff[3:6])
    stretch = length - ff[7]
    if length == 0.0:
        return 0.5 * ff[6] * stretch * stretch
    s = ff[6] * stretch / length           # on body1, toward body2
    f = (s * d[0], s * d[1], s * d[2])
    add_station_force(body_forces, fi[1], r1, f)
    add_station_force(body_forces, fi[2], r2, (-f[0], -f[1], -f[2]))
    return 0.5 * ff[6] * stretch * stretch
