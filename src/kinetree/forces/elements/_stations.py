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
