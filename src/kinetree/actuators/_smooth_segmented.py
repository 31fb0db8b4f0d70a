"""OpenSim's smooth segmented functions: C2-continuous curves y(x) made of quintic Bézier
sections, linear outside their domain, and the constructions of Millard's muscle curves
from their properties (OpenSim's SmoothSegmentedFunction and SmoothSegmentedFunctionFactory).

A curve is a flat float array, so that it can live in a muscle's parameters:
``[n, x0, x1, y0, y1, dydx0, dydx1]`` (its number of sections, its domain, the values and
slopes at the domain's ends), then per section its six x control points and its six y
control points, then a table of u(x) at NODES + 1 equally spaced x across the section:
u and du/dx at each, then x(u) and y(u) in power form. Each section is x(u), y(u) for u
in [0, 1], x increasing in u; a value at x finds the section, starts from the table's
cubic Hermite interpolation of u(x) and polishes x(u) = x by Halley's method (mostly one
step), then evaluates y(u) and its derivatives by the chain rule. The polynomials are
evaluated in power form, a value and its slope in one Horner pass, as OpenSim does. The
constructions and their checks are OpenSim's; the solution of x(u) = x is carried to
machine precision (OpenSim stops within 2.2e-14 of x), so values agree with OpenSim's to
about 1e-13.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper

HEADER = 7
"""Floats before a curve's first section."""
NODES = 32
"""Intervals of a section's table of u(x): enough that its interpolation starts Halley's
method within HALLEY_DONE of the root almost everywhere."""
HALLEY_DONE = 1e-6
"""A Halley step in u shorter than this leaves an error of the order of its cube: the
step is taken and the search ends."""
_TABLE = 12
"""Offset in a section of its table of u(x)."""
_POWER = _TABLE + 2 * (NODES + 1)
"""Offset in a section of its x(u) and y(u) in power form."""
SECTION = _POWER + 12
"""Floats per section: six x then six y control points, then (u, du/dx) at NODES + 1
equally spaced x, then the coefficients of u^0 to u^5 of x(u) and of y(u)."""

_EPS = np.finfo(float).eps
_ROOT_EPS = math.sqrt(_EPS)
SIGNIFICANT_REAL = _EPS ** 0.875
"""Simbody's SignificantReal: the smallest difference OpenSim's muscles treat as real."""


def curve_size(sections: int) -> int:
    """The number of floats of a curve of ``sections`` sections."""
    return HEADER + SECTION * sections


# ---------------------------------------------------------------- constructions
def _scale_curviness(curviness: float) -> float:
    """OpenSim's map of a curviness in [0, 1] to the Bézier corner parameter."""
    return 0.1 + 0.8 * curviness


def corner_control_points(x0, y0, dydx0, x1, y1, dydx1, curviness):
    """The x and y control points (6 each) of the quintic Bézier from (x0, y0) with slope
    dydx0 to (x1, y1) with slope dydx1, bent toward the corner where the two end tangents
    meet by ``curviness`` (0: a straight line, 1: the sharpest corner)."""
    if not 0.0 <= curviness <= 1.0:
        raise InvalidArgumentError(f"a curve corner's curviness is {curviness}; it must "
                                   f"be in [0, 1].")
    if abs(dydx0 - dydx1) > _ROOT_EPS:
        xc = (y1 - y0 - x1 * dydx1 + x0 * dydx0) / (dydx0 - dydx1)
    else:
        xc = (x1 + x0) / 2
    yc = (xc - x1) * dydx1 + y1
    # the corner must lie between the end points: each end nearer it than to the other end
    a = (xc - x0) ** 2 + (yc - y0) ** 2
    b = (xc - x1) ** 2 + (yc - y1) ** 2
    c = (x1 - x0) ** 2 + (y1 - y0) ** 2
    if not (c > a and c > b):
        raise InvalidArgumentError(
            f"the tangents at ({x0}, {y0}) with slope {dydx0} and at ({x1}, {y1}) with slope "
            f"{dydx1} do not meet between the points; the curve's properties are "
            f"inconsistent.")
    x0_mid = x0 + curviness * (xc - x0)
    y0_mid = y0 + curviness * (yc - y0)
    x1_mid = x1 + curviness * (xc - x1)
    y1_mid = y1 + curviness * (yc - y1)
    return ((x0, x0_mid, x0_mid, x1_mid, x1_mid, x1),
            (y0, y0_mid, y0_mid, y1_mid, y1_mid, y1))


def _bernstein(c, u, derivative=False):
    """The quintic Bézier of the six control points ``c`` (or its d/du) at the array u."""
    c = np.asarray(c, dtype=float)
    if derivative:
        c, degree = 5.0 * np.diff(c), 4
    else:
        degree = 5
    binomial = [math.comb(degree, i) for i in range(degree + 1)]
    u = u[..., None]
    i = np.arange(degree + 1)
    return (binomial * u ** i * (1.0 - u) ** (degree - i) * c).sum(axis=-1)


@functools.lru_cache(maxsize=1024)
def _u_table(xs: tuple) -> list[float]:
    """(u, du/dx) at NODES + 1 equally spaced x of the section of x control points
    ``xs``, u found by bisection to the last bit (x(u) increases); kept for the curves
    of the next muscle, which often has the same."""
    x = np.linspace(xs[0], xs[5], NODES + 1)
    lo, hi = np.zeros_like(x), np.ones_like(x)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        below = _bernstein(xs, mid) < x
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    u = 0.5 * (lo + hi)
    u[0], u[-1] = 0.0, 1.0
    table = np.empty((NODES + 1, 2))
    table[:, 0] = u
    table[:, 1] = 1.0 / _bernstein(xs, u, derivative=True)
    return table.ravel().tolist()


def _power_form(points) -> list[float]:
    """The coefficients of u^0 to u^5 of the quintic Bézier of six control points."""
    return [sum(points[i] * math.comb(5, i) * math.comb(5 - i, j - i) * (-1) ** (j - i)
                for i in range(j + 1)) for j in range(6)]


def _pack(sections, x0, x1, y0, y1, dydx0, dydx1) -> np.ndarray:
    """The flat array of a curve of ``sections`` [(xs, ys), ...] (module docstring)."""
    out = [float(len(sections)), x0, x1, y0, y1, dydx0, dydx1]
    for xs, ys in sections:
        out.extend(xs)
        out.extend(ys)
        out.extend(_u_table(tuple(float(x) for x in xs)))
        out.extend(_power_form([float(x) for x in xs]))
        out.extend(_power_form([float(y) for y in ys]))
    return np.asarray(out, dtype=float)


def _require(ok: bool, where: str, message: str) -> None:
    if not ok:
        raise InvalidArgumentError(f"{where}: {message}")


def active_force_length_curve(min_norm_active_fiber_length=0.47 - 0.0259,
                              transition_norm_fiber_length=0.73,
                              max_norm_active_fiber_length=1.8123,
                              shallow_ascending_slope=0.8616, minimum_value=0.1,
                              where="ActiveForceLengthCurve") -> np.ndarray:
    """OpenSim's ActiveForceLengthCurve: the active force multiplier (1 at the optimal
    fiber length 1) of the normalized fiber length, ``minimum_value`` outside
    [min, max]_norm_active_fiber_length, with a shallow ascending limb from
    ``transition_norm_fiber_length`` to the plateau (five sections)."""
    x0, x1, x2, x3 = (min_norm_active_fiber_length, transition_norm_fiber_length, 1.0,
                      max_norm_active_fiber_length)
    ylow, dydx = minimum_value, shallow_ascending_slope
    _require(x0 >= 0 and x1 > x0 + _ROOT_EPS and x2 > x1 + _ROOT_EPS
             and x3 > x2 + _ROOT_EPS, where,
             f"min_norm_active_fiber_length ({x0}) < transition_norm_fiber_length ({x1}) "
             f"< 1 < max_norm_active_fiber_length ({x3}) must hold, the first >= 0.")
    _require(ylow >= 0, where, f"minimum_value is {ylow}; it must be >= 0.")
    upper = (1 - ylow) / (x2 - x1)
    _require(0 <= dydx < upper, where,
             f"shallow_ascending_slope is {dydx}; it must be in [0, {upper}).")
    c = _scale_curviness(1.0)
    x_delta = 0.05 * x2              # half the width of the plateau
    xs = x2 - x_delta
    y0, dydx0 = 0.0, 0.0
    y1 = 1 - dydx * (xs - x1)
    dydx01 = 1.25 * (y1 - y0) / (x1 - x0)
    x01 = x0 + 0.5 * (x1 - x0)
    y01 = y0 + 0.5 * (y1 - y0)
    x1s = x1 + 0.5 * (xs - x1)
    y1s = y1 + 0.5 * (1 - y1)
    y2, dydx2, y3, dydx3 = 1.0, 0.0, 0.0, 0.0
    x23 = (x2 + x_delta) + 0.5 * (x3 - (x2 + x_delta))
    y23 = y2 + 0.5 * (y3 - y2)
    dydx23 = (y3 - y2) / ((x3 - x_delta) - (x2 + x_delta))
    sections = [
        corner_control_points(x0, ylow, dydx0, x01, y01, dydx01, c),
        corner_control_points(x01, y01, dydx01, x1s, y1s, dydx, c),
        corner_control_points(x1s, y1s, dydx, x2, y2, dydx2, c),
        corner_control_points(x2, y2, dydx2, x23, y23, dydx23, c),
        corner_control_points(x23, y23, dydx23, x3, ylow, dydx3, c),
    ]
    return _pack(sections, x0, x3, ylow, ylow, 0.0, 0.0)


def _force_velocity_sections(fmax_e, dydx_c, dydx_near_c, dydx_iso, dydx_e, dydx_near_e,
                             conc_curviness, ecc_curviness, where):
    """The four sections of the force-velocity multiplier of the normalized fiber
    velocity (-1 at the maximum shortening speed, 1 at the maximum lengthening speed),
    its curvinesses checked."""
    _check_curviness(where, conc_curviness, ecc_curviness)
    c_c, c_e = _scale_curviness(conc_curviness), _scale_curviness(ecc_curviness)
    x_c, y_c = -1.0, 0.0
    x_near_c = -0.9
    y_near_c = y_c + 0.5 * dydx_near_c * (x_near_c - x_c) + 0.5 * dydx_c * (x_near_c - x_c)
    x_iso, y_iso = 0.0, 1.0
    x_e, y_e = 1.0, fmax_e
    x_near_e = 0.9
    y_near_e = y_e + 0.5 * dydx_near_e * (x_near_e - x_e) + 0.5 * dydx_e * (x_near_e - x_e)
    return [
        corner_control_points(x_c, y_c, dydx_c, x_near_c, y_near_c, dydx_near_c, c_c),
        corner_control_points(x_near_c, y_near_c, dydx_near_c, x_iso, y_iso, dydx_iso, c_c),
        corner_control_points(x_iso, y_iso, dydx_iso, x_near_e, y_near_e, dydx_near_e, c_e),
        corner_control_points(x_near_e, y_near_e, dydx_near_e, x_e, y_e, dydx_e, c_e),
    ]


def _check_curviness(where, conc, ecc):
    _require(0 <= conc <= 1, where, f"concentric_curviness is {conc}; it must be in [0, 1].")
    _require(0 <= ecc <= 1, where, f"eccentric_curviness is {ecc}; it must be in [0, 1].")


def force_velocity_curve(concentric_slope_at_vmax=0.0, concentric_slope_near_vmax=0.25,
                         isometric_slope=5.0, eccentric_slope_at_vmax=0.0,
                         eccentric_slope_near_vmax=0.15,
                         max_eccentric_velocity_force_multiplier=1.4,
                         concentric_curviness=0.6, eccentric_curviness=0.9,
                         where="ForceVelocityCurve") -> np.ndarray:
    """OpenSim's ForceVelocityCurve: the force multiplier of the normalized fiber
    velocity (lengthening positive), 0 at -1, 1 at 0, the eccentric maximum at 1."""
    fmax = max_eccentric_velocity_force_multiplier
    _require(fmax > 1.0, where, f"max_eccentric_velocity_force_multiplier is {fmax}; it "
                                f"must be > 1.")
    _require(0.0 <= concentric_slope_at_vmax < 1, where,
             f"concentric_slope_at_vmax is {concentric_slope_at_vmax}; it must be in [0, 1).")
    _require(concentric_slope_at_vmax < concentric_slope_near_vmax <= 1, where,
             f"concentric_slope_near_vmax is {concentric_slope_near_vmax}; it must be in "
             f"(concentric_slope_at_vmax, 1].")
    _require(isometric_slope > 1, where, f"isometric_slope is {isometric_slope}; it must "
                                         f"be > 1.")
    _require(0.0 <= eccentric_slope_at_vmax < fmax - 1, where,
             f"eccentric_slope_at_vmax is {eccentric_slope_at_vmax}; it must be in "
             f"[0, {fmax - 1}).")
    _require(eccentric_slope_at_vmax <= eccentric_slope_near_vmax < fmax - 1, where,
             f"eccentric_slope_near_vmax is {eccentric_slope_near_vmax}; it must be in "
             f"[eccentric_slope_at_vmax, {fmax - 1}).")
    sections = _force_velocity_sections(
        fmax, concentric_slope_at_vmax, concentric_slope_near_vmax, isometric_slope,
        eccentric_slope_at_vmax, eccentric_slope_near_vmax, concentric_curviness,
        eccentric_curviness, where)
    return _pack(sections, -1.0, 1.0, 0.0, fmax, concentric_slope_at_vmax,
                 eccentric_slope_at_vmax)


def force_velocity_inverse_curve(concentric_slope_at_vmax=0.1,
                                 concentric_slope_near_vmax=0.25, isometric_slope=5.0,
                                 eccentric_slope_at_vmax=0.1, eccentric_slope_near_vmax=0.15,
                                 max_eccentric_velocity_force_multiplier=1.4,
                                 concentric_curviness=0.6, eccentric_curviness=0.9,
                                 where="ForceVelocityInverseCurve") -> np.ndarray:
    """OpenSim's ForceVelocityInverseCurve: the normalized fiber velocity of a
    force-velocity multiplier, the ForceVelocityCurve of the same properties with x and
    y exchanged (its end slopes must be > 0 to be invertible)."""
    fmax = max_eccentric_velocity_force_multiplier
    _require(fmax > 1.0, where, f"max_eccentric_velocity_force_multiplier is {fmax}; it "
                                f"must be > 1.")
    _require(SIGNIFICANT_REAL < concentric_slope_at_vmax < 1, where,
             f"concentric_slope_at_vmax is {concentric_slope_at_vmax}; it must be in (0, 1).")
    _require(concentric_slope_at_vmax < concentric_slope_near_vmax < 1, where,
             f"concentric_slope_near_vmax is {concentric_slope_near_vmax}; it must be in "
             f"(concentric_slope_at_vmax, 1).")
    _require(isometric_slope > 1, where, f"isometric_slope is {isometric_slope}; it must "
                                         f"be > 1.")
    _require(SIGNIFICANT_REAL < eccentric_slope_at_vmax < fmax - 1, where,
             f"eccentric_slope_at_vmax is {eccentric_slope_at_vmax}; it must be in "
             f"(0, {fmax - 1}).")
    _require(eccentric_slope_at_vmax <= eccentric_slope_near_vmax < fmax - 1, where,
             f"eccentric_slope_near_vmax is {eccentric_slope_near_vmax}; it must be in "
             f"[eccentric_slope_at_vmax, {fmax - 1}).")
    sections = _force_velocity_sections(
        fmax, concentric_slope_at_vmax, concentric_slope_near_vmax, isometric_slope,
        eccentric_slope_at_vmax, eccentric_slope_near_vmax, concentric_curviness,
        eccentric_curviness, where)
    return _pack([(ys, xs) for xs, ys in sections], 0.0, fmax, -1.0, 1.0,
                 1 / concentric_slope_at_vmax, 1 / eccentric_slope_at_vmax)


def fiber_force_length_curve(strain_at_zero_force=0.0, strain_at_one_norm_force=0.7,
                             stiffness_at_low_force=None, stiffness_at_one_norm_force=None,
                             curviness=None, where="FiberForceLengthCurve") -> np.ndarray:
    """OpenSim's FiberForceLengthCurve: the passive fiber force multiplier of the
    normalized fiber length, 0 up to 1 + strain_at_zero_force and 1 at 1 +
    strain_at_one_norm_force. The three optional properties are all given or all None
    (OpenSim's fitted values: 0.2, 2 / (e1 - e0), 0.75)."""
    e0, e1 = strain_at_zero_force, strain_at_one_norm_force
    optional = (stiffness_at_low_force, stiffness_at_one_norm_force, curviness)
    _require(all(v is None for v in optional) or all(v is not None for v in optional),
             where, "stiffness_at_low_force, stiffness_at_one_norm_force and curviness "
                    "must all be given or all be absent.")
    if stiffness_at_low_force is None:
        k_low, k_iso, curviness = 0.2, 2.0 / (e1 - e0), 0.75
    else:
        k_low, k_iso = stiffness_at_low_force, stiffness_at_one_norm_force
    _require(e1 > e0, where, f"strain_at_one_norm_force ({e1}) must exceed "
                             f"strain_at_zero_force ({e0}).")
    _require(k_iso > 1.0 / (e1 - e0), where,
             f"stiffness_at_one_norm_force is {k_iso}; it must be > {1.0 / (e1 - e0)}.")
    _require(0.0 < k_low < 1 / (e1 - e0), where,
             f"stiffness_at_low_force is {k_low}; it must be in (0, {1 / (e1 - e0)}).")
    _require(0 <= curviness <= 1, where, f"curviness is {curviness}; it must be in [0, 1].")
    c = _scale_curviness(curviness)
    x_zero, y_zero = 1 + e0, 0.0
    x_iso, y_iso = 1 + e1, 1.0
    delta_x = min(0.1 * (1.0 / k_iso), 0.1 * (x_iso - x_zero))
    x_low = x_zero + delta_x
    x_foot = x_zero + 0.5 * (x_low - x_zero)
    y_low = 0.0 + k_low * (x_low - x_foot)
    sections = [corner_control_points(x_zero, y_zero, 0, x_low, y_low, k_low, c),
                corner_control_points(x_low, y_low, k_low, x_iso, y_iso, k_iso, c)]
    return _pack(sections, x_zero, x_iso, y_zero, y_iso, 0.0, k_iso)


def tendon_force_length_curve(strain_at_one_norm_force=0.049,
                              stiffness_at_one_norm_force=None, norm_force_at_toe_end=None,
                              curviness=None, where="TendonForceLengthCurve") -> np.ndarray:
    """OpenSim's TendonForceLengthCurve: the tendon force multiplier of the normalized
    tendon length, 0 when slack (<= 1), 1 at 1 + strain_at_one_norm_force, linear past
    the toe. The three optional properties are all given or all None (OpenSim's fitted
    values: 1.375 / strain, 2/3, 0.5)."""
    e_iso = strain_at_one_norm_force
    optional = (stiffness_at_one_norm_force, norm_force_at_toe_end, curviness)
    _require(all(v is None for v in optional) or all(v is not None for v in optional),
             where, "stiffness_at_one_norm_force, norm_force_at_toe_end and curviness must "
                    "all be given or all be absent.")
    _require(e_iso > 0, where, f"strain_at_one_norm_force is {e_iso}; it must be > 0.")
    if stiffness_at_one_norm_force is None:
        k_iso, f_toe, curviness = 1.375 / e_iso, 2.0 / 3.0, 0.5
    else:
        k_iso, f_toe = stiffness_at_one_norm_force, norm_force_at_toe_end
    _require(0 < f_toe < 1, where, f"norm_force_at_toe_end is {f_toe}; it must be in "
                                   f"(0, 1).")
    _require(k_iso > 1 / e_iso, where, f"stiffness_at_one_norm_force is {k_iso}; it must "
                                       f"be > {1 / e_iso}.")
    _require(0 <= curviness <= 1, where, f"curviness is {curviness}; it must be in [0, 1].")
    c = _scale_curviness(curviness)
    x0, y0, dydx0 = 1.0, 0.0, 0.0
    x_iso, y_iso = 1.0 + e_iso, 1.0
    y_toe = f_toe
    x_toe = (y_toe - 1) / k_iso + x_iso
    x_foot, y_foot = 1.0 + (x_toe - 1.0) / 10.0, 0.0
    y_toe_mid = y_toe * 0.5
    x_toe_mid = (y_toe_mid - y_iso) / k_iso + x_iso
    dydx_toe_mid = (y_toe_mid - y_foot) / (x_toe_mid - x_foot)
    x_toe_ctrl = x_foot + 0.5 * (x_toe_mid - x_foot)
    y_toe_ctrl = y_foot + dydx_toe_mid * (x_toe_ctrl - x_foot)
    sections = [
        corner_control_points(x0, y0, dydx0, x_toe_ctrl, y_toe_ctrl, dydx_toe_mid, c),
        corner_control_points(x_toe_ctrl, y_toe_ctrl, dydx_toe_mid, x_toe, y_toe, k_iso, c),
    ]
    return _pack(sections, x0, x_toe, y0, y_toe, dydx0, k_iso)


# ---------------------------------------------------------------- evaluation
@helper(error_model="numpy")
def _poly(c, k, u):
    """(p(u), dp/du) of the quintic of coefficients c[k:k+6] (of u^0 to u^5), by Horner."""
    p = c[k + 5]
    d = p
    p = p * u + c[k + 4]
    d = d * u + p
    p = p * u + c[k + 3]
    d = d * u + p
    p = p * u + c[k + 2]
    d = d * u + p
    p = p * u + c[k + 1]
    d = d * u + p
    return p * u + c[k], d


@helper(error_model="numpy")
def _poly2(c, k, u):
    """(p(u), dp/du, d²p/du²) of the quintic of coefficients c[k:k+6], by Horner."""
    p = c[k + 5]
    d = 0.0
    dd = 0.0
    for i in range(4, -1, -1):
        dd = dd * u + d
        d = d * u + p
        p = p * u + c[k + i]
    return p, d, 2.0 * dd


@helper(error_model="numpy")
def _poly_du2(c, k, u):
    """d²p/du² of the quintic of coefficients c[k:k+6]."""
    return ((20.0 * c[k + 5] * u + 12.0 * c[k + 4]) * u + 6.0 * c[k + 3]) * u \
        + 2.0 * c[k + 2]


@helper(error_model="numpy")
def _section_of(c, at, x):
    """The offset in ``c`` of the section of the curve at ``at`` holding x in its
    [start, end) (the last section also holds its end), or -1."""
    n = int(c[at])
    for s in range(n):
        k = at + HEADER + SECTION * s
        if c[k] <= x < c[k + 5]:
            return k
    k = at + HEADER + SECTION * (n - 1)
    if x == c[k + 5]:
        return k
    return -1


@helper(error_model="numpy")
def _solve_u(c, k, x):
    """u in [0, 1] where the section's x(u) = x: from the cubic Hermite interpolation of
    the section's table, Halley's method (Newton's with the curvature: the error cubed
    at each step) kept inside the table interval's bracket (x(u) increases), halving
    the bracket when a step would leave it, and ending after a step below HALLEY_DONE."""
    span = c[k + 5] - c[k]
    if not span > 0.0:
        return 0.5
    t = (x - c[k]) / span * NODES
    j = min(max(int(t), 0), NODES - 1)
    s = t - j
    r = k + _TABLE + 2 * j
    lo, hi = c[r], c[r + 2]
    h = span / NODES
    s2 = s * s
    s3 = s2 * s
    u = ((2.0 * s3 - 3.0 * s2 + 1.0) * lo + (s3 - 2.0 * s2 + s) * h * c[r + 1]
         + (3.0 * s2 - 2.0 * s3) * hi + (s3 - s2) * h * c[r + 3])
    u = min(max(u, lo), hi)
    for _ in range(60):
        f, d, dd = _poly2(c, k + _POWER, u)
        f -= x
        if f == 0.0:
            break
        if f < 0.0:
            lo = u
        else:
            hi = u
        nxt = u - 2.0 * f * d / (2.0 * d * d - f * dd) if d > 0.0 else -1.0
        if lo <= nxt <= hi:
            if abs(nxt - u) < HALLEY_DONE:
                return nxt
            u = nxt
        else:
            u = 0.5 * (lo + hi)
            if hi - lo < 1e-16:
                break
    return u


@helper(error_model="numpy")
def curve(c, at, x):
    """(y, dy/dx) of the curve stored at c[at:] (module docstring) at x: linear beyond
    its domain, NaN for a NaN x."""
    if x < c[at + 1]:
        return c[at + 3] + c[at + 5] * (x - c[at + 1]), c[at + 5]
    if x > c[at + 2]:
        return c[at + 4] + c[at + 6] * (x - c[at + 2]), c[at + 6]
    k = _section_of(c, at, x)
    if k < 0:
        return np.nan, np.nan
    u = _solve_u(c, k, x)
    y, dy = _poly(c, k + _POWER + 6, u)
    return y, dy / _poly(c, k + _POWER, u)[1]


@helper(error_model="numpy")
def on_section(c, k, u):
    """(x, y, dy/dx, dx/du) of the section at c[k:] at u: the curve's point at a u
    known without solving for it (a Newton iteration in u)."""
    x, dx = _poly(c, k + _POWER, u)
    y, dy = _poly(c, k + _POWER + 6, u)
    return x, y, dy / dx, dx


@helper(error_model="numpy")
def on_section2(c, k, u):
    """(x, dx/du, d²x/du², y, dy/du, d²y/du²) of the section at c[k:] at u."""
    x, dx, ddx = _poly2(c, k + _POWER, u)
    y, dy, ddy = _poly2(c, k + _POWER + 6, u)
    return x, dx, ddx, y, dy, ddy


@helper(error_model="numpy")
def curve_value(c, at, x):
    """y of the curve stored at c[at:] at x."""
    return curve(c, at, x)[0]


@helper(error_model="numpy")
def curve_derivative(c, at, x, order):
    """The ``order``-th derivative (0, 1 or 2) of the curve stored at c[at:] at x, as
    OpenSim's calcDerivative (the second is 0 beyond the domain); NaN for another order."""
    if order == 0 or order == 1:
        return curve(c, at, x)[order]
    if order != 2:
        return np.nan
    if x < c[at + 1] or x > c[at + 2]:
        return 0.0
    k = _section_of(c, at, x)
    if k < 0:
        return np.nan
    u = _solve_u(c, k, x)
    dx, dy = _poly(c, k + _POWER, u)[1], _poly(c, k + _POWER + 6, u)[1]
    ddx, ddy = _poly_du2(c, k + _POWER, u), _poly_du2(c, k + _POWER + 6, u)
    return (ddy * dx - dy * ddx) / (dx * dx * dx)
