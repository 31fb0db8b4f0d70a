"""Force.TwoPointConstantForce: a force of fixed magnitude between two stations."""

from __future__ import annotations

from kinetree.forces.elements._stations import (
    add_station_force,
    finite,
    two_station_line,
    vector3,
)
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.registry import FORCES

CODE = FORCES["two_point_constant_force"]


def two_stations(element, where, body1, station1, body2, station2) -> list[float]:
    """Set the two bodies of a two-point element; its first six parameters, the stations
    (m, each in its body's frame)."""
    element._mobods = (body1, body2)
    element._body1 = body1.get_mobilized_body_index()
    element._body2 = body2.get_mobilized_body_index()
    return [*vector3(station1, where, "station1"), *vector3(station2, where, "station2")]


class TwoPointConstantForce(TableForce):
    """A force of magnitude f (N) along the line between the stations; positive f pushes
    them apart. Potential energy -f d."""

    CODE = CODE

    def __init__(self, forces, body1, station1, body2, station2, force):
        where = "Force.TwoPointConstantForce"
        stations = two_stations(self, where, body1, station1, body2, station2)
        super().__init__(forces, [*stations, finite(force, where, "force")])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [s1 (3), s2 (3), f]."""
    r1, r2, d, length = two_station_line(cache, fi[1], ff[0:3], fi[2], ff[3:6])
    if length == 0.0:
        return 0.0
    s = ff[6] / length                     # on body2, away from body1
    f = (s * d[0], s * d[1], s * d[2])
    add_station_force(body_forces, fi[1], r1, (-f[0], -f[1], -f[2]))
    add_station_force(body_forces, fi[2], r2, f)
    return -ff[6] * length
