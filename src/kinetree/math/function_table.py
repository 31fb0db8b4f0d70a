"""Built-in Functions of one coordinate as tables that compiled code evaluates.

A mobilizer or constraint made of Functions (MobilizedBody.FunctionBased, the coordinate
couplers OpenSim's files hold) keeps each in its parameter row as a record:

    [kind, argument (the coordinate index, -1 for none), number of scales, the scales of
     its Multipliers (innermost first), then the kind's data]:
    CONSTANT    value (the function's value: it takes no coordinate, or ignores them)
    LINEAR      slope, offset
    POLYNOMIAL  n0, n1, n2, then the coefficients (highest power first) of f, f', f''
    SPLINE      n, breaks (n), pieces (n - 1 rows a, b, c, d about their left break)
    SIMM        n, x (n), y (n), b (n), c (n), d (n): OpenSim's SimmSpline, and its
                PiecewiseLinearFunction as the SIMM cubic with b the slopes and c = d = 0
                (the same ends, extrapolation and interval search, and the same bits)
    GCV         n, L, x (n), anchors (n + 1), per region L rows (v, f', f'') of Horner
                coefficients, front-padded with zeros to L rows
    STEP        y0, y1, x0, x1: Function.Step (a muscle excitation switched on)

Each kind is evaluated with the arithmetic of its Function class's own fast path, in the
same order, so compiled code and the Python Functions agree to round-off (bit for bit on
the machines tested).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from kinetree.math.functions import Constant, Linear, Polynomial, Spline, Step
from kinetree.math.opensim_functions import (
    _END_WINDOW,
    GCVSpline,
    Multiplier,
    PiecewiseLinear,
    SimmSpline,
)

K_CONSTANT, K_LINEAR, K_POLYNOMIAL, K_SPLINE, K_SIMM, K_GCV, K_STEP = range(7)
def record(function, coords) -> list | None:
    """The record of ``function`` of the coordinates ``coords`` (indices into the array
    ``evaluate`` will be given), or None if it is not one of the kinds above: a user
    Function, or a function of two or more coordinates."""
    scales, inner = [], function
    while type(inner) is Multiplier:
        scales.append(inner.get_scale())
        inner = inner.get_function()
    scales.reverse()
    kind = type(inner)
    if kind is Constant:
        # what the Python path computes each realization: its value (times the scales)
        value = function.get_value() if function is inner else \
            function.calc_value(np.zeros(len(coords)))
        return [K_CONSTANT, -1, 0, float(value)]
    if len(coords) != 1:
        return None
    head = [len(scales), *scales]
    arg = coords[0]
    if kind is Linear and inner.get_argument_size() == 1:
        slope, offset = (float(c) for c in inner.get_coefficients())
        return [K_LINEAR, arg, *head, slope, offset]
    if kind is Polynomial:
        c = [float(v) for v in inner.get_coefficients()]
        degree = len(c) - 1
        c1 = [c[j] * math.perm(degree - j, 1) for j in range(degree)]
        c2 = [c[j] * math.perm(degree - j, 2) for j in range(degree - 1)]
        return [K_POLYNOMIAL, arg, *head, len(c), len(c1), len(c2), *c, *c1, *c2]
    if kind is Spline:
        pieces = [v for row in inner._pieces for v in row]
        return [K_SPLINE, arg, *head, len(inner._breaks), *inner._breaks, *pieces]
    if kind is SimmSpline:
        return [K_SIMM, arg, *head, len(inner._xs), *inner._xs, *inner._ys, *inner._b,
                *inner._c, *inner._d]
    if kind is PiecewiseLinear:
        zeros = [0.0] * len(inner._xs)
        return [K_SIMM, arg, *head, len(inner._xs), *inner._xs, *inner._ys, *inner._slopes,
                *zeros, *zeros]
    if kind is Step:
        return [K_STEP, arg, *head, inner._y0, inner._y1, inner._x0, inner._x1]
    if kind is GCVSpline:
        width = max(len(rows) for rows in inner._pieces)
        table = []
        for rows in inner._pieces:
            table += [0.0] * (3 * (width - len(rows)))
            table += [v for row in rows for v in row]
        return [K_GCV, arg, *head, len(inner._xs), width, *inner._xs, *inner._anchors,
                *table]
    return None



@numba.njit(cache=True)
def _bisect_right(prm, start, n, x):
    """Python's bisect.bisect_right on prm[start:start + n]."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if x < prm[start + mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@numba.njit(cache=True)
def _opensim_interval(prm, start, n, t):
    """opensim_functions._opensim_interval on prm[start:start + n], for t strictly inside
    the data: OpenSim's bisection, which picks the interval a data abscissa belongs to as
    OpenSim does (and the only one holding any other t)."""
    lo, hi = 0, n
    while True:
        k = (lo + hi) // 2
        if t < prm[start + k]:
            hi = k
        elif t > prm[start + k + 1]:
            lo = k
        else:
            return k


@numba.njit(cache=True)
def evaluate(prm, at, q):
    """(f, f', f'', argument) of the record at prm[at:] at the coordinates q."""
    kind, arg, ns = int(prm[at]), int(prm[at + 1]), int(prm[at + 2])
    d = at + 3 + ns
    x = q[arg] if arg >= 0 else 0.0
    v = d1 = d2 = 0.0
    if kind == K_CONSTANT:
        return prm[d], 0.0, 0.0, -1
    if kind == K_LINEAR:
        v, d1 = prm[d] * x + prm[d + 1], prm[d]
    elif kind == K_POLYNOMIAL:
        n0, n1, n2 = int(prm[d]), int(prm[d + 1]), int(prm[d + 2])
        c = d + 3
        for j in range(n0):
            v = v * x + prm[c + j]
        for j in range(n1):
            d1 = d1 * x + prm[c + n0 + j]
        for j in range(n2):
            d2 = d2 * x + prm[c + n0 + n1 + j]
    elif kind == K_SPLINE:
        n = int(prm[d])
        k = _bisect_right(prm, d + 1, n, x) - 1
        if k < 0:
            k = 0
        elif k > n - 2:
            k = n - 2
        p = d + 1 + n + 4 * k
        a, b, cc, dd = prm[p], prm[p + 1], prm[p + 2], prm[p + 3]
        h = x - prm[d + 1 + k]
        v = ((a * h + b) * h + cc) * h + dd
        d1 = (3.0 * a * h + 2.0 * b) * h + cc
        d2 = 6.0 * a * h + 2.0 * b
    elif kind == K_SIMM:
        n = int(prm[d])
        xs, ys, bs, cs, ds = d + 1, d + 1 + n, d + 1 + 2 * n, d + 1 + 3 * n, d + 1 + 4 * n
        last = n - 1
        x0, xn = prm[xs], prm[xs + last]
        if x < x0:
            d1 = prm[bs]
            v = prm[ys] + (x - x0) * d1
        elif x > xn:
            d1 = prm[bs + last]
            v = prm[ys + last] + (x - xn) * d1
        elif abs(x - x0) <= _END_WINDOW:
            v, d1, d2 = prm[ys], prm[bs], 2.0 * prm[cs]
        elif abs(x - xn) <= _END_WINDOW:
            v, d1, d2 = prm[ys + last], prm[bs + last], 2.0 * prm[cs + last]
        else:
            k = _opensim_interval(prm, xs, n, x) if n > 2 else 0
            y, b, cc, dd = prm[ys + k], prm[bs + k], prm[cs + k], prm[ds + k]
            h = x - prm[xs + k]
            v = y + h * (b + h * (cc + h * dd))
            d1 = b + h * (2.0 * cc + 3.0 * h * dd)
            d2 = 2.0 * cc + 6.0 * h * dd
    elif kind == K_STEP:
        y0, dy = prm[d], prm[d + 1] - prm[d]
        x0, dx = prm[d + 2], prm[d + 3] - prm[d + 2]
        if (x - x0) * dx <= 0.0:
            v = y0
        elif (x - prm[d + 3]) * dx >= 0.0:
            v = prm[d + 1]
        else:
            t = (x - x0) / dx
            v = y0 + dy * (t * t * t * (10.0 + t * (-15.0 + 6.0 * t)))
            d1 = dy * (30.0 * t * t * (1.0 - t) * (1.0 - t)) / dx
            d2 = dy * (60.0 * t * (1.0 + t * (-3.0 + 2.0 * t))) / (dx * dx)
    else:  # K_GCV
        n, width = int(prm[d]), int(prm[d + 1])
        xs = d + 2
        region = _bisect_right(prm, xs, n, x)
        h = x - prm[xs + n + region]
        r = xs + n + n + 1 + 3 * width * region
        for j in range(width):
            d2 = d2 * h + prm[r + 3 * j + 2]
            d1 = d1 * h + prm[r + 3 * j + 1]
            v = v * h + prm[r + 3 * j]
    for j in range(ns):
        s = prm[at + 3 + j]
        v, d1, d2 = v * s, d1 * s, d2 * s
    return v, d1, d2, arg
