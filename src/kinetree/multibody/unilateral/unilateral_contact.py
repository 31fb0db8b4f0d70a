"""UnilateralContact: a one-sided constraint that the SemiExplicitEulerTimeStepper enforces
by impulses (Simbody's UnilateralContact, of ConditionalConstraint.h): a separation that may
grow but not fall below zero, optionally with Coulomb friction across it.

A contact is *proximal* when its separation is within the stepper's constraint tolerance;
then it takes part in the step: its normal row g_n of the constraint Jacobian (the
separation speed is g_n u, m/s or rad/s) and, with friction, its two tangent rows (the slip
velocity, m/s in G). Its coefficient of restitution e depends on the impact speed, and its
coefficient of friction on the slip speed at the start of the step, as Simbody's.
"""

from __future__ import annotations

import numba
import numpy as np

from kinetree.errors import InvalidArgumentError


def calc_effective_cor(min_cor, capture_speed: float, min_cor_speed: float, impact_speed):
    """The coefficient of restitution at ``impact_speed`` (≥ 0): 0 at or below the
    capture speed, ``min_cor`` at or above ``min_cor_speed``, between them rising
    linearly toward 1 as the impact speed falls (Simbody's calcEffectiveCOR). Takes
    arrays of contacts (``min_cor``, ``impact_speed``) as well as numbers."""
    speed = np.asarray(impact_speed, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rising = 1.0 - (1.0 - np.asarray(min_cor)) / min_cor_speed * speed
    e = np.where(speed <= capture_speed, 0.0,
                 np.where(speed >= min_cor_speed, min_cor, rising))
    return float(e) if e.ndim == 0 else e


@numba.njit(cache=True)
def effective_cof(mu_s, mu_d, mu_v, transition_speed, slip_speed):
    """``calc_effective_cof`` of one contact, for compiled code."""
    return mu_v * slip_speed + (mu_s if slip_speed <= transition_speed else mu_d)


def calc_effective_cof(mu_s, mu_d, mu_v, transition_speed: float, slip_speed):
    """The coefficient of friction at ``slip_speed`` (≥ 0): μs up to the transition speed
    (rolling or sticking), μd above it, plus μv times the slip speed (Simbody's
    calcEffectiveCOF). Takes arrays of contacts as well as numbers."""
    args = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (
        mu_s, mu_d, mu_v, transition_speed, slip_speed)))
    mu = np.array([effective_cof(*values) for values in zip(*(a.ravel() for a in args),
                                                             strict=True)])
    return float(mu[0]) if args[0].ndim == 0 else mu.reshape(args[0].shape)


def tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors making a right-handed frame with the unit n (the friction rows'
    directions)."""
    from kinetree.contact.geometry import _tangent_basis

    return _tangent_basis(n)


def body_poses(matter, state, where: str):
    """(R_GB (nb, 3, 3), p_GB (nb, 3) m): every body's pose in Ground at ``state``
    (POSITION), read once for all of a step's contacts."""
    from kinetree.system.stage import Stage

    cache = matter.get_tree_data(state, Stage.POSITION, where).cache
    return cache.R_GB, cache.p_GB


def unit_normal(normal_B, where: str) -> np.ndarray:
    """``normal_B`` (a plane's normal in its body's frame) made unit, refused if it has no
    direction."""
    n = np.asarray(normal_B, dtype=float).reshape(-1)
    if n.shape != (3,) or not np.isfinite(n).all() or np.linalg.norm(n) == 0.0:
        raise InvalidArgumentError(f"{where}: normal_B must be a nonzero 3-vector (in the "
                                   f"plane body's frame), got {normal_B!r}.")
    return n / np.linalg.norm(n)


def _coefficient(value, name: str, where: str, upper: float | None = None) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{where}: {name} must be a number, got {value!r}.") \
            from None
    if not (np.isfinite(value) and value >= 0.0) or (upper is not None and value > upper):
        bound = f"[0, {upper}]" if upper is not None else ">= 0"
        raise InvalidArgumentError(f"{where}: {name} is {value}; it must be {bound}.")
    return value


class UnilateralContact:
    """A one-sided contact with coefficient of restitution ``min_cor`` (its value at high
    impact speeds) and, if ``mu_s`` > 0, Coulomb friction of static, dynamic and viscous
    coefficients ``mu_s`` ≥ ``mu_d`` ≥ 0 and ``mu_v`` ≥ 0 (s/m). Adopt it with
    ``matter.adopt_unilateral_contact``."""

    FRICTION_ROWS = 0
    """Tangent rows a contact with friction has."""

    def __init__(self, min_cor, mu_s=0.0, mu_d=0.0, mu_v=0.0):
        where = type(self).__name__
        self.min_cor = _coefficient(min_cor, "min_cor (the coefficient of restitution)",
                                    where, 1.0)
        self.mu_s = _coefficient(mu_s, "mu_s", where)
        self.mu_d = _coefficient(mu_d, "mu_d", where)
        self.mu_v = _coefficient(mu_v, "mu_v", where)
        if self.mu_d > self.mu_s:
            raise InvalidArgumentError(
                f"{where}: mu_d = {self.mu_d} exceeds mu_s = {self.mu_s}; the dynamic "
                f"coefficient of friction must not exceed the static one.")
        self._matter = None

    def has_friction(self) -> bool:
        return self.FRICTION_ROWS > 0 and self.mu_s > 0.0

    def get_separation(self, state) -> float:
        """The signed separation (m, or rad for a stop on an angle): > 0 apart, < 0
        penetrating (POSITION)."""
        matter = self._check_adopted("get_separation")
        return self._separation(state, body_poses(matter, state, "get_separation"))

    def calc_rows(self, state) -> np.ndarray:
        """(1 + friction rows, nu): the normal row g_n, whose product with u is the
        separation speed, then the tangent rows (POSITION)."""
        matter = self._check_adopted("calc_rows")
        return self._rows(state, matter, body_poses(matter, state, "calc_rows"))

    def _separation(self, state, poses) -> float:
        """get_separation with the bodies' poses (``body_poses``) given."""
        raise NotImplementedError

    def _terms(self, state, poses) -> list:
        """The rows as [(body index, station (m, in its frame), coefficients (rows x 3))]:
        each term's coefficients times that station's Jacobian (velocity in G per u),
        summed; a SemiExplicitEulerTimeStepper gathers all contacts' stations into one
        Jacobian call."""
        raise NotImplementedError

    def _rows(self, state, matter, poses) -> np.ndarray:
        """calc_rows with the bodies' poses given: its terms summed."""
        return sum(coefficients @ matter.calc_station_jacobian(state, body, station)
                   for body, station, coefficients in self._terms(state, poses))

    def _check_adopted(self, where: str):
        if self._matter is None:
            raise InvalidArgumentError(
                f"{type(self).__name__}.{where}: the contact is not adopted; call "
                f"matter.adopt_unilateral_contact(contact) first.")
        return self._matter
