"""Friction coefficient as a function of slip speed (paper §5.1, eq 27: f_f = μ(v) f_n).

Two curves, both Simbody's, both taking the slip speed v (m/s), static and dynamic
coefficients μs ≥ μd ≥ 0 (unitless), a viscous coefficient μv (s/m) and the transition speed
v_t > 0 (m/s):

* :func:`stribeck` — the curve ``CompliantContactSubsystem`` uses (Simbody's
  ``stribeck()``), a three-segment spline in the scaled speed w = v/v_t:
  μ = μs S(w) for 0 ≤ w < 1 (stiction, rising from 0), μ = μs - (μs - μd) S((w - 1)/2) for
  1 ≤ w < 3 (Stribeck drop), μ = μd for w ≥ 3 (sliding), plus μv v throughout, where
  S(t) = 10t³ - 15t⁴ + 6t⁵ is the quintic step with zero first and second derivatives at both
  ends. μ is C2 everywhere, μ(0) = 0, μ(v_t) = μs + μv v_t, μ = μd + μv v for v ≥ 3 v_t.
* :func:`hollars` — the simpler curve of Simbody's ``HuntCrossleyForce`` (the element
  OpenSim exposes), named ``hollars()`` in Simbody's sources:
  μ = min(w, 1) (μd + 2(μs - μd)/(1 + w²)) + μv v. It is continuous with a corner at
  v = v_t, where it peaks at μs + μv v_t.

Each has a numba-compiled scalar kernel (``*_kernel``) for contact kernels and a numpy
wrapper that accepts arrays of speeds.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper

__all__ = ["checked_transition_velocity", "hollars", "hollars_kernel", "stribeck",
           "stribeck_kernel"]


@helper
def _step5(t):
    t3 = t * t * t
    return t3 * (10.0 + t * (6.0 * t - 15.0))


@helper
def combined_mu(mu1, mu2):
    """The coefficient of a pair, 2 μ1 μ2/(μ1 + μ2), 0 when either is 0 (Simbody's
    rule, ``material.combined_friction``), for compiled code."""
    product = 2.0 * mu1 * mu2
    return product / (mu1 + mu2) if product != 0.0 else 0.0


@helper
def stribeck_kernel(v, us, ud, uv, vt):
    """μ(v) of Simbody's Stribeck spline (module docstring) for one slip speed v ≥ 0 (m/s)."""
    w = v / vt
    if w >= 3.0:
        mu_dry = ud
    elif w >= 1.0:
        mu_dry = us - (us - ud) * _step5(0.5 * (w - 1.0))
    else:
        mu_dry = us * _step5(w)
    return mu_dry + uv * v


@helper
def hollars_kernel(v, us, ud, uv, vt):
    """μ(v) of Simbody's HuntCrossleyForce friction (module docstring) for one slip speed
    v ≥ 0 (m/s)."""
    w = v / vt
    return min(w, 1.0) * (ud + 2.0 * (us - ud) / (1.0 + w * w)) + uv * v


def _check(v, us, ud, uv, vt, where):
    for name, value in (("static_friction", us), ("dynamic_friction", ud),
                        ("viscous_friction", uv), ("transition_velocity", vt)):
        if not math.isfinite(value):
            raise InvalidArgumentError(f"{where}: {name} = {value} is not finite.")
    if not 0 <= ud <= us:
        raise InvalidArgumentError(
            f"{where}: need static_friction >= dynamic_friction >= 0, got us={us}, ud={ud}.")
    if uv < 0:
        raise InvalidArgumentError(f"{where}: viscous_friction {uv} s/m must be >= 0.")
    if vt <= 0:
        raise InvalidArgumentError(
            f"{where}: transition_velocity {vt} m/s must be > 0 (a small speed, negligible "
            "for the problem, e.g. 1e-3 m/s).")
    v = np.asarray(v, dtype=float)
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        raise InvalidArgumentError(f"{where}: slip speeds must be finite and >= 0 (m/s).")
    return v


def _apply(kernel, v, us, ud, uv, vt):
    flat = v.ravel()
    out = np.empty_like(flat)
    for i in range(flat.size):
        out[i] = kernel(flat[i], us, ud, uv, vt)
    return out.reshape(v.shape) if v.ndim else float(out[0])


def stribeck(v, static_friction, dynamic_friction, viscous_friction, transition_velocity):
    """μ(v), unitless, of Simbody's C2 Stribeck spline (module docstring) for slip speed(s)
    v (m/s); μs, μd unitless, μv in s/m, v_t in m/s. Returns a float for a scalar v."""
    v = _check(v, float(static_friction), float(dynamic_friction), float(viscous_friction),
               float(transition_velocity), "stribeck()")
    return _apply(stribeck_kernel, v, float(static_friction), float(dynamic_friction),
                  float(viscous_friction), float(transition_velocity))


def hollars(v, static_friction, dynamic_friction, viscous_friction, transition_velocity):
    """μ(v), unitless, of Simbody's HuntCrossleyForce friction curve (module docstring) for
    slip speed(s) v (m/s). Returns a float for a scalar v."""
    v = _check(v, float(static_friction), float(dynamic_friction), float(viscous_friction),
               float(transition_velocity), "hollars()")
    return _apply(hollars_kernel, v, float(static_friction), float(dynamic_friction),
                  float(viscous_friction), float(transition_velocity))


def checked_transition_velocity(velocity, where: str) -> float:
    """``velocity`` as the positive, finite transition speed v_t (m/s) it must be."""
    try:
        v = float(velocity)
    except (TypeError, ValueError):
        v = math.nan
    if not (v > 0 and math.isfinite(v)):
        raise InvalidArgumentError(
            f"{where}: need a positive transition speed in m/s, got {velocity!r}.")
    return v
