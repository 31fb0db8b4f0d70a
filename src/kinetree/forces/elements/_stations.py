"""Station kinematics shared by the force elements that act at points fixed on bodies."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.system.stage import Stage


def station_offset(cache, body: int, station_B: np.ndarray) -> np.ndarray:
    """r = R_GB s (m): the station measured from the body origin, in Ground."""
    return cache.R_GB[body] @ station_B


def station_position(cache, body: int, station_B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p_GS, r): the station in Ground and its offset from the body origin, in Ground."""
    r = station_offset(cache, body, station_B)
    return cache.p_GB[body] + r, r


def station_velocity(cache, body: int, r: np.ndarray) -> np.ndarray:
    """v_GS (m/s) of the station r away from the body origin."""
    V = cache.V_GB[body]
    return V[3:] + np.cross(V[:3], r)


def add_station_force(body_forces, body: int, r: np.ndarray, f: np.ndarray) -> None:
    """Apply f (N, in Ground) at the station r from the body origin: [r × f; f]."""
    body_forces[body, :3] += np.cross(r, f)
    body_forces[body, 3:] += f


def tree(matter, state, stage: Stage, where: str):
    """The matter subsystem's cache arrays, checked realized to ``stage``."""
    return matter._tree_data(state, stage, where).cache


def vector3(value, where: str, what: str) -> np.ndarray:
    v = np.asarray(value, dtype=float)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InvalidArgumentError(f"{where}: {what} must be 3 finite numbers, got {value!r}.")
    return v


class TwoStations:
    """What the two-point force elements share: a station on each of two bodies and the
    line between them."""

    def _set_stations(self, where, body1, station1, body2, station2) -> None:
        self._b1 = body1.get_mobilized_body_index()
        self._b2 = body2.get_mobilized_body_index()
        self._s1 = vector3(station1, where, "station1")
        self._s2 = vector3(station2, where, "station2")
        self._matter = body1.get_matter_subsystem()

    def _line(self, state, stage: Stage, where: str):
        """(cache, p2 - p1, r1, r2): the line from station 1 to station 2 in Ground and
        each station's offset from its body origin."""
        c = tree(self._matter, state, stage, where)
        p1, r1 = station_position(c, self._b1, self._s1)
        p2, r2 = station_position(c, self._b2, self._s2)
        return c, p2 - p1, r1, r2
