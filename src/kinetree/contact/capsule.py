"""ContactGeometry.Capsule: the points within ``radius`` of the segment |z| ≤ half_length on
S's z axis, a cylinder with hemispherical caps: what robot links and limbs are often
collided as (a URDF ``<capsule>``, MuJoCo's capsule geom)."""

from __future__ import annotations

import math

import numpy as np

from kinetree.contact.geometry import (
    ContactGeometry,
    _direction,
    _frame,
    _point,
    _positive_length,
    _tangent_basis,
)


class Capsule(ContactGeometry):
    """The capsule of ``radius`` (m) around the segment from (0, 0, -half_length) to
    (0, 0, half_length) of S (m)."""

    def __init__(self, radius, half_length):
        where = "ContactGeometry.Capsule"
        self._radius = _positive_length(radius, "radius", where)
        self._half_length = _positive_length(half_length, "half_length", where)

    def get_radius(self) -> float:
        """The radius (m)."""
        return self._radius

    def get_half_length(self) -> float:
        """Half the length of its axis segment, along S's z (m)."""
        return self._half_length

    def _axis_point(self, p: np.ndarray) -> np.ndarray:
        return np.array([0.0, 0.0, min(max(p[2], -self._half_length), self._half_length)])

    def find_nearest_point(self, p_S):
        """The point ``radius`` from the segment's point nearest p_S, toward p_S."""
        p = _point(p_S, self._where("find_nearest_point"))
        c = self._axis_point(p)
        away = p - c
        r = float(np.linalg.norm(away))
        if r > 0.0:
            n = away / r
        else:                   # on the axis: any direction across it
            n = np.array([1.0, 0.0, 0.0])
        return c + self._radius * n, bool(r < self._radius), n

    def calc_surface_principal_curvatures(self, point):
        """(1/r, 1/r) on the caps; (1/r, 0) on the side, kmax around it, kmin along z."""
        n = self.find_nearest_point(
            _point(point, self._where("calc_surface_principal_curvatures")))[2]
        k = 1.0 / self._radius
        if abs(n[2]) > 0.0:
            return np.array([k, k]), _frame(_tangent_basis(n)[0], n)
        return np.array([k, 0.0]), _frame(np.array([-n[1], n[0], 0.0]), n)

    def calc_support_point(self, direction):
        """The cap's point farthest along ``direction`` (in S)."""
        d = _direction(direction, self._where("calc_support_point"))
        return np.array([0.0, 0.0, math.copysign(self._half_length, d[2])]) + self._radius * d

    def __repr__(self) -> str:
        return f"ContactGeometry.Capsule({self._radius!r}, {self._half_length!r})"


ContactGeometry.Capsule = Capsule
