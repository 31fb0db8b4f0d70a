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

    def _span(self, poses) -> np.ndarray:
        R_GB, p_GB = poses
        b1, b2 = self.body1.get_mobilized_body_index(), self.body2.get_mobilized_body_index()
        return (R_GB[b2] @ self.station2 + p_GB[b2]) - (R_GB[b1] @ self.station1 + p_GB[b1])

    def _separation(self, state, poses) -> float:
        return float(self.length - np.linalg.norm(self._span(poses)))

    def _terms(self, state, poses) -> list:
        d = self._span(poses)
        d = (d / np.linalg.norm(d))[None, :]
        return [(self.body2.get_mobilized_body_index(), self.station2, -d),
                (self.body1.get_mobilized_body_index(), self.station1, d)]
