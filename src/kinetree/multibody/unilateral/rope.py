"""Rope: two body points kept no farther apart than a length (Simbody's Rope), a rope
that goes slack but never stretches; taut, it jerks with restitution."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral.unilateral_contact import UnilateralContact


class Rope(UnilateralContact):
    """``Rope(body1, station1, body2, station2, length, min_cor)``: |p2 - p1| ≤ length (m),
    the stations in their bodies' frames (m)."""

    def __init__(self, body1, station1, body2, station2, length, min_cor):
        super().__init__(min_cor)
        self.body1, self.body2 = body1, body2
        self.station1 = np.asarray(station1, dtype=float).reshape(3)
        self.station2 = np.asarray(station2, dtype=float).reshape(3)
        self.length = float(length)
        if not self.length > 0.0:
            raise InvalidArgumentError(f"Rope: the length must be positive (m), got "
                                       f"{length!r}.")

    def _span(self, state) -> np.ndarray:
        return (self.body2.find_station_location_in_ground(state, self.station2)
                - self.body1.find_station_location_in_ground(state, self.station1))

    def get_separation(self, state) -> float:
        self._check_adopted("get_separation")
        return float(self.length - np.linalg.norm(self._span(state)))

    def calc_rows(self, state) -> np.ndarray:
        matter = self._check_adopted("calc_rows")
        d = self._span(state)
        d /= np.linalg.norm(d)
        J = matter.calc_station_jacobian(state, self.body2, self.station2) \
            - matter.calc_station_jacobian(state, self.body1, self.station1)
        return -(d @ J)[None, :]
