"""What the force elements acting at points fixed on bodies share: compiled station
kinematics on the tree cache, and the checks of their arguments.

A station s is a point fixed on body b, given in b's frame (m); its offset r = R_GB s from
the body origin is in Ground, and so are the spatial forces added for it: [r × f; f] about
the body origin.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, cross3, rotate3, sub3, vec3


@helper
def station_offset(cache, b, s_B):
    """r = R_GB s (m, in G): station s_B of body b from the body origin."""
    return rotate3(cache.R_GB[b], vec3(s_B))


@helper
def station_location(cache, b, r):
    """p_GS (m, in G) of the station r from body b's origin."""
    return add3(vec3(cache.p_GB[b]), r)


@helper
def station_velocity(cache, b, r):
    """v_GS (m/s, in G) of the station r from body b's origin."""
    V = cache.V_GB[b]
    return add3(vec3(V[3:]), cross3(vec3(V[:3]), r))


@helper
def add_station_force(body_forces, b, r, f):
    """Apply f (N, in G) at the station r from body b's origin: [r × f; f]."""
    F = body_forces[b]
    m = cross3(r, f)
    F[0] += m[0]
    F[1] += m[1]
    F[2] += m[2]
    F[3] += f[0]
    F[4] += f[1]
    F[5] += f[2]


@helper
def two_station_line(cache, b1, s1, b2, s2):
    """(r1, r2, d, length): each station's offset from its body origin, the vector d from
    station 1 to station 2 (all m, in G) and its length."""
    r1 = station_offset(cache, b1, s1)
    r2 = station_offset(cache, b2, s2)
    d = sub3(station_location(cache, b2, r2), station_location(cache, b1, r1))
    return r1, r2, d, math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])


def vector3(value, where: str, what: str) -> np.ndarray:
    """``value`` as 3 finite real numbers, or an error naming ``where`` and ``what``."""
    try:
        if isinstance(value, (str, bytes)) or np.iscomplexobj(value):
            raise ValueError
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{where}: {what} must be 3 finite numbers, got {value!r}.") from None
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InvalidArgumentError(f"{where}: {what} must be 3 finite numbers, got {value!r}.")
    return v


def finite(value, where: str, what: str, minimum: float | None = None) -> float:
    """``value`` as a float, checked finite (and ≥ ``minimum`` if given)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{where}: {what} must be a number, got {value!r}.") from None
    if not math.isfinite(x) or (minimum is not None and x < minimum):
        bound = "" if minimum is None else f" and >= {minimum:g}"
        raise InvalidArgumentError(f"{where}: {what} must be finite{bound}, got {value!r}.")
    return x


def same_system_matter(forces, matter, where: str):
    """``matter``, checked to be the matter subsystem of ``forces``' System."""
    if not hasattr(matter, "get_mobilized_body") or \
            matter.get_system() is not forces.get_system():
        raise InvalidArgumentError(
            f"{where}: the matter subsystem given is not the one of the force subsystem's "
            f"System; pass that System's SimbodyMatterSubsystem.")
    return matter
