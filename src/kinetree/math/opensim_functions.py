"""The Function kinds that OpenSim model files use beyond Simbody's own: ``SimmSpline``,
``GCVSpline``, ``PiecewiseLinear`` and ``Multiplier``, each evaluated as OpenSim 4 evaluates
it, end conditions and extrapolation rules included, so that a model read from a .osim file
moves as it does in OpenSim.

They are reachable as ``Function.SimmSpline``, ``Function.GCVSpline``,
``Function.PiecewiseLinear`` and ``Function.Multiplier`` (this module is imported by
``kinetree.math.functions``, which attaches them). OpenSim's ``LinearFunction`` and
``PolynomialFunction`` need nothing new: their ``<coefficients>`` are exactly what
``Function.Linear`` (slope, then intercept) and ``Function.Polynomial`` (highest power first)
take.

Each class has a plain constructor from the numbers a .osim file holds; parsing the XML is
the model reader's job. All of them are functions of one argument except ``Multiplier``,
which takes as many as the function it scales.
"""

from __future__ import annotations

import math
from bisect import bisect_right

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.functions import (
    UNLIMITED_DERIVATIVE_ORDER,
    Function,
    Spline,
    _finite_float,
    _finite_vector,
)

__all__ = ["SimmSpline", "GCVSpline", "PiecewiseLinear", "Multiplier"]

_TINY_STEP = 1e-7
"""OpenSim's TINY_NUMBER: the smallest abscissa step it divides by. SimmSpline and
PiecewiseLinearFunction use max(1e-7, x[i+1] - x[i]) as the width of every interval, so
repeated abscissas give an interval 1e-7 wide rather than a division by zero."""

_END_WINDOW = 2e-13
"""OpenSim's ROUNDOFF_ERROR: an argument within this (absolute) distance of the first or
last abscissa is treated as that abscissa (the end's data value and slope are returned)."""


# --------------------------------------------------------------------------- helpers


def _xy_data(x, y, where: str, min_points: int, strictly: bool) -> tuple[list, list]:
    """x and y as lists of finite floats of one length >= ``min_points``, x increasing
    (strictly, or allowing repeats), or InvalidArgumentError naming the fix."""
    xs = _finite_vector(x, where, "x")
    ys = _finite_vector(y, where, "y")
    if xs.shape[0] != ys.shape[0]:
        raise InvalidArgumentError(
            f"{where}: x and y must have the same length, got {xs.shape[0]} x values and "
            f"{ys.shape[0]} y values."
        )
    if xs.shape[0] < min_points:
        raise InvalidArgumentError(
            f"{where}: needs at least {min_points} data points, got {xs.shape[0]}."
        )
    steps = np.diff(xs)
    bad = np.flatnonzero(~(steps > 0.0) if strictly else steps < 0.0)
    if bad.size:
        i = int(bad[0])
        order = "strictly increasing" if strictly else "non-decreasing"
        raise InvalidArgumentError(
            f"{where}: x must be {order}, but x[{i + 1}] = {xs[i + 1]} follows x[{i}] = "
            f"{xs[i]}; sort the points by x"
            + (" and remove or average repeated x values." if strictly else ".")
        )
    return [float(v) for v in xs], [float(v) for v in ys]


def _opensim_interval(xs: list, t: float) -> int:
    """The interval k (xs[k] <= t <= xs[k+1]) that OpenSim's bisection in SimmSpline and
    PiecewiseLinearFunction picks for t strictly inside (xs[0], xs[-1]). Where t is a data
    abscissa, two intervals contain it and the bisection's path decides which one."""
    lo, hi = 0, len(xs)
    while True:
        k = (lo + hi) // 2
        if t < xs[k]:
            hi = k
        elif t > xs[k + 1]:
            lo = k
        else:
            return k


def _interval_at_knots(xs: list) -> dict:
    """{abscissa: the interval OpenSim's bisection picks there}, for the interior abscissas.
    Anywhere else inside the data the interval is unique and ``bisect_right`` finds it."""
    first, last = xs[0], xs[-1]
    return {v: _opensim_interval(xs, v) for v in xs if first < v < last}


# --------------------------------------------------------------------------- SimmSpline


class SimmSpline(Function):
    """``Function.SimmSpline(x, y)``: OpenSim's SimmSpline, the interpolating cubic spline of
    SIMM, of one argument, through the points (x[i], y[i]).

    This is the spline nearly every OpenSim model uses for its knee translations, coupled
    joint angles and moment-arm tables (``<SimmSpline><x>...</x><y>...</y></SimmSpline>``:
    pass the two lists as read, in file order). Use it, not ``Function.Spline``, to
    reproduce an OpenSim model: it is a different cubic. Its end condition (that of
    Forsythe, Malcolm and Moler's SPLINE) makes the third derivative in the first (last)
    interval that of the cubic through the first (last) four points, where a natural
    spline has f'' = 0 at the ends; and outside the data it continues along the end's
    tangent line. A natural cubic through gait2392's knee points differs from it by about
    1.5e-4 m.

    The rules, all OpenSim's:

    - Inside [x[0], x[-1]], f is the cubic of the interval holding the argument; f, f' and
      f'' are continuous.
    - Outside, f = y[0] + (x - x[0]) f'(x[0]) (resp. the last point and slope), f' is that
      end slope and f'' = 0: the second derivative jumps at each end.
    - An argument within 2e-13 of x[0] or x[-1] returns that end's y, slope and f''.
    - With 2 points, f is the straight line through them (everywhere, f'' = 0); with 3, the
      end third derivatives are 0.
    - Intervals narrower than 1e-7 (including repeated x values, which OpenSim accepts)
      count as 1e-7 wide in the coefficients, as in OpenSim.

    x: the abscissas (the unit of the argument: rad for a rotational coordinate, m for a
    translational one), at least 2, non-decreasing. y: the values at x (the unit of f),
    same length. Both must be finite. Derivatives of order 1 and 2 are available
    (``get_max_derivative_order()`` is 2, as in OpenSim).

    Evaluation uses the piecewise-cubic coefficients (one bisection and a Horner step);
    ``calc_value_and_derivatives`` gives f, f', f'' in one call for MobilizedBody.FunctionBased.
    """

    def __init__(self, x, y):
        where = "Function.SimmSpline"
        xs, ys = _xy_data(x, y, where, 2, strictly=False)
        self._xs, self._ys = xs, ys
        self._b, self._c, self._d = _simm_coefficients(xs, ys)
        n = len(xs)
        self._last = n - 1
        self._last_piece = n - 2
        self._knot_interval = _interval_at_knots(xs) if n >= 3 else {}
        self._pieces = [(ys[k], self._b[k], self._c[k], self._d[k]) for k in range(n - 1)]

    def _piece(self, t: float) -> int:
        k = self._knot_interval.get(t)
        if k is None:
            k = bisect_right(self._xs, t) - 1
            if k < 0:           # only for a NaN argument, which gives NaN below anyway
                k = 0
            elif k > self._last_piece:
                k = self._last_piece
        return k

    def calc_value_and_derivatives(self, x: float) -> tuple[float, float, float]:
        """(f, f', f'') at the float x in one lookup and without argument checks: the fast
        path for callers that evaluate the spline every realization (FunctionBased)."""
        xs = self._xs
        x0, xn = xs[0], xs[self._last]
        if x < x0:
            b0 = self._b[0]
            return self._ys[0] + (x - x0) * b0, b0, 0.0
        if x > xn:
            bn = self._b[self._last]
            return self._ys[self._last] + (x - xn) * bn, bn, 0.0
        if abs(x - x0) <= _END_WINDOW:
            return self._ys[0], self._b[0], 2.0 * self._c[0]
        if abs(x - xn) <= _END_WINDOW:
            return self._ys[self._last], self._b[self._last], 2.0 * self._c[self._last]
        k = self._piece(x) if self._last_piece else 0
        y, b, c, d = self._pieces[k]
        h = x - xs[k]
        return (y + h * (b + h * (c + h * d)),
                b + h * (2.0 * c + 3.0 * h * d),
                2.0 * c + 6.0 * h * d)

    def calc_value(self, x) -> float:
        return self.calc_value_and_derivatives(self.check_scalar_argument(x))[0]

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        return self.calc_value_and_derivatives(x)[len(deriv_components)]

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return 2

    def get_x(self) -> np.ndarray:
        """A copy of the data abscissas."""
        return np.array(self._xs)

    def get_y(self) -> np.ndarray:
        """A copy of the data values."""
        return np.array(self._ys)

    def get_coefficients(self) -> np.ndarray:
        """(n, 3) array: row i holds (b, c, d) of f = y[i] + b h + c h^2 + d h^3 with
        h = x - x[i] on the interval starting at x[i] (OpenSim's _b, _c, _d; the last row
        gives the end slope b and end f''/2 = c used at and beyond x[-1])."""
        return np.column_stack([self._b, self._c, self._d])

    def __repr__(self) -> str:
        return f"Function.SimmSpline(<{len(self._xs)} points>)"


def _simm_coefficients(x: list, y: list) -> tuple[list, list, list]:
    """OpenSim's SimmSpline coefficients b, c, d (lists of len(x)): on [x[i], x[i+1]],
    f = y[i] + b[i] h + c[i] h^2 + d[i] h^3 with h = x - x[i].

    The unknowns s[i] = f''(x[i]) / 6 solve the usual tridiagonal system on the interior
    points, closed by two end rows that make the third derivative in the first and last
    interval equal to that of the cubic through the first (last) four points (zero with
    only three points). The arithmetic is done in OpenSim's order, so the coefficients
    agree with OpenSim's to the last bit."""
    n = len(x)
    h = [max(_TINY_STEP, x[i + 1] - x[i]) for i in range(n - 1)]
    if n == 2:
        slope = (y[1] - y[0]) / h[0]
        return [slope, slope], [0.0, 0.0], [0.0, 0.0]

    diag = [0.0] * n
    rhs = [0.0] * n
    rhs[1] = (y[1] - y[0]) / h[0]
    for i in range(1, n - 1):
        diag[i] = 2.0 * (h[i - 1] + h[i])
        rhs[i + 1] = (y[i + 1] - y[i]) / h[i]
        rhs[i] = rhs[i + 1] - rhs[i]

    # End rows: -h0 s0 + h0 s1 = h0^2 * (third divided difference at the start), likewise at
    # the end; the off-diagonal of each row is the adjacent interval width.
    diag[0] = -h[0]
    diag[n - 1] = -h[n - 2]
    rhs[0] = 0.0
    rhs[n - 1] = 0.0
    if n > 3:
        w31 = max(_TINY_STEP, x[3] - x[1])
        w20 = max(_TINY_STEP, x[2] - x[0])
        w_last = max(_TINY_STEP, x[n - 1] - x[n - 3])
        w_prev = max(_TINY_STEP, x[n - 2] - x[n - 4])
        w30 = max(_TINY_STEP, x[3] - x[0])
        w_end = max(_TINY_STEP, x[n - 1] - x[n - 4])
        start = rhs[2] / w31 - rhs[1] / w20
        end = rhs[n - 2] / w_last - rhs[n - 3] / w_prev
        rhs[0] = start * h[0] * h[0] / w30
        rhs[n - 1] = -end * h[n - 2] * h[n - 2] / w_end

    # Symmetric tridiagonal solve (off-diagonal h[i] between rows i and i + 1).
    for i in range(1, n):
        ratio = h[i - 1] / diag[i - 1]
        diag[i] -= ratio * h[i - 1]
        rhs[i] -= ratio * rhs[i - 1]
    s = rhs
    s[n - 1] /= diag[n - 1]
    for i in range(n - 2, -1, -1):
        s[i] = (s[i] - h[i] * s[i + 1]) / diag[i]

    b = [0.0] * n
    c = [0.0] * n
    d = [0.0] * n
    b[n - 1] = (y[n - 1] - y[n - 2]) / h[n - 2] + h[n - 2] * (s[n - 2] + 2.0 * s[n - 1])
    for i in range(n - 1):
        b[i] = (y[i + 1] - y[i]) / h[i] - h[i] * (s[i + 1] + 2.0 * s[i])
        d[i] = (s[i + 1] - s[i]) / h[i]
        c[i] = 3.0 * s[i]
    c[n - 1] = 3.0 * s[n - 1]
    d[n - 1] = d[n - 2]
    return b, c, d


# --------------------------------------------------------------------------- PiecewiseLinear


class PiecewiseLinear(Function):
    """``Function.PiecewiseLinear(x, y)``: OpenSim's PiecewiseLinearFunction, the broken
    line of one argument through the points (x[i], y[i]).

    OpenSim uses it for tabulated relations where straight segments are wanted (some
    coordinate couplings, controls, muscle curves): ``<PiecewiseLinearFunction><x>...</x>
    <y>...</y></PiecewiseLinearFunction>``; pass the two lists as read, in file order.

    The rules, all OpenSim's:

    - Inside the data f follows the segment holding the argument; outside, the first
      (last) segment is continued as a straight line.
    - f' is the segment's slope; at an interior data point, where the slope jumps, it is
      the slope of the segment OpenSim's bisection lands on (the left or the right one,
      depending on the point's position in the list, reproduced exactly here). Within 2e-13
      of x[0] or x[-1] the end value and the end segment's slope are returned.
    - Every derivative of order >= 2 is 0 (``get_max_derivative_order()`` is unlimited, as
      in OpenSim), so f is not smooth at the data points: an integrator stepping across a
      kink slows down, and it is no substitute for a spline where accelerations matter.
    - One point gives the constant y[0]. Segments narrower than 1e-7 (repeated x values,
      which OpenSim accepts, make a near-vertical step) count as 1e-7 wide in the slopes.

    x: the abscissas (the argument's unit), non-decreasing, at least 1. y: the values at x
    (the unit of f), same length. Both must be finite.
    """

    def __init__(self, x, y):
        where = "Function.PiecewiseLinear"
        xs, ys = _xy_data(x, y, where, 1, strictly=False)
        n = len(xs)
        if n == 1:
            slopes = [0.0]
        else:
            slopes = [(ys[i + 1] - ys[i]) / max(_TINY_STEP, xs[i + 1] - xs[i])
                      for i in range(n - 1)]
            slopes.append(slopes[-1])
        self._xs, self._ys, self._slopes = xs, ys, slopes
        self._last = n - 1
        self._last_piece = max(n - 2, 0)
        self._knot_interval = _interval_at_knots(xs) if n >= 3 else {}

    def _value_and_slope(self, x: float) -> tuple[float, float]:
        xs, ys, b = self._xs, self._ys, self._slopes
        x0, xn = xs[0], xs[self._last]
        if x < x0:
            return ys[0] + (x - x0) * b[0], b[0]
        if x > xn:
            return ys[self._last] + (x - xn) * b[self._last], b[self._last]
        if abs(x - x0) <= _END_WINDOW:
            return ys[0], b[0]
        if abs(x - xn) <= _END_WINDOW:
            return ys[self._last], b[self._last]
        k = self._knot_interval.get(x)
        if k is None:
            k = min(max(bisect_right(xs, x) - 1, 0), self._last_piece)
        return ys[k] + (x - xs[k]) * b[k], b[k]

    def calc_value_and_derivatives(self, x: float) -> tuple[float, float, float]:
        """(f, f', f'' = 0) at the float x without argument checks (the FunctionBased
        fast path)."""
        value, slope = self._value_and_slope(x)
        return value, slope, 0.0

    def calc_value(self, x) -> float:
        return self._value_and_slope(self.check_scalar_argument(x))[0]

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        if len(deriv_components) > 1:
            return 0.0
        return self._value_and_slope(x)[1]

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_x(self) -> np.ndarray:
        """A copy of the data abscissas."""
        return np.array(self._xs)

    def get_y(self) -> np.ndarray:
        """A copy of the data values."""
        return np.array(self._ys)

    def __repr__(self) -> str:
        return f"Function.PiecewiseLinear(<{len(self._xs)} points>)"


# --------------------------------------------------------------------------- Multiplier


class Multiplier(Function):
    """``Function.Multiplier(function, scale=1.0)``: OpenSim's MultiplierFunction,
    f(x) = scale * function(x).

    OpenSim's model scaling wraps a joint's functions in it (``<MultiplierFunction>
    <function><SimmSpline>...</SimmSpline></function><scale>1.07</scale>
    </MultiplierFunction>``), so that a scaled knee moves its tibia by scaled distances.
    Pass the inner Function, built from ``<function>``, and the ``<scale>`` number (1 when
    the file omits it); scale is dimensionless, or converts the inner function's unit.

    Every derivative is scale times the inner function's; the argument count and the highest
    derivative order are the inner function's. The inner Function is held, not copied.
    """

    def __init__(self, function, scale=1.0):
        where = "Function.Multiplier"
        if not isinstance(function, Function):
            raise InvalidArgumentError(
                f"{where}: function must be a Function (Function.SimmSpline, "
                f"Function.Constant, ...), got {type(function).__name__}."
            )
        self._function = function
        self._scale = _finite_float(scale, where, "scale")

    def calc_value(self, x) -> float:
        return self._function.calc_value(x) * self._scale

    def calc_derivative(self, deriv_components, x) -> float:
        return self._function.calc_derivative(deriv_components, x) * self._scale

    def calc_value_and_derivatives(self, x: float) -> tuple[float, float, float]:
        """(f, f', f'') at the float x for a one-argument inner function: through the inner
        function's own fast path when it has one, else its calc_value and calc_derivative."""
        inner = self._function
        s = self._scale
        if type(inner) in FAST_PATH_TYPES:
            v, d1, d2 = inner.calc_value_and_derivatives(x)
        else:
            v = inner.calc_value(x)
            d1 = inner.calc_derivative((0,), x)
            d2 = inner.calc_derivative((0, 0), x)
        return v * s, d1 * s, d2 * s

    def get_argument_size(self) -> int:
        return self._function.get_argument_size()

    def get_max_derivative_order(self) -> int:
        return self._function.get_max_derivative_order()

    def get_function(self) -> Function:
        """The inner function (the same object that was passed in)."""
        return self._function

    def get_scale(self) -> float:
        return self._scale

    def set_scale(self, scale) -> None:
        """Change the factor f is multiplied by."""
        self._scale = _finite_float(scale, "Function.Multiplier.set_scale", "scale")

    def __repr__(self) -> str:
        return f"Function.Multiplier({self._function!r}, {self._scale!r})"


# --------------------------------------------------------------------------- GCVSpline


class GCVSpline(Function):
    """``Function.GCVSpline(degree, x, y, error_variance=0.0)``: OpenSim's GCVSpline, a
    natural polynomial spline of odd ``degree`` = 2m - 1 (m is the "half order") of one
    argument, fitted to the points (x[i], y[i]) by Woltring's GCVSPL.

    OpenSim uses it for smoothed data (older muscle and controller files:
    ``<GCVSpline><half_order>3</half_order><error_variance>0</error_variance><x>...</x>
    <y>...</y><weights>...</weights><coefficients>...</coefficients></GCVSpline>``). Pass:

    - ``degree = 2 * half_order - 1`` (half_order 3, OpenSim's default, is degree 5);
    - ``x``, ``y``: the data, as read (x strictly increasing, at least 2 m points);
    - ``error_variance``: the ``<error_variance>`` number (0 when the file omits it).

    The file's ``<coefficients>`` and ``<weights>`` are NOT inputs: OpenSim 4 ignores both
    when it evaluates (it refits the spline from x and y with unit weights each time a
    model is loaded, and only then overwrites the stored coefficients, which files often
    hold as zeros). ``get_coefficients()`` gives the refitted values OpenSim would write.

    The fit minimizes  sum (y[i] - f(x[i]))^2 + p * integral (f^(m))^2 dx  over natural
    splines of degree 2m - 1 (for m = 3, the integral of f'''^2). p is chosen as GCVSPL
    does with unit weights: for ``error_variance < 0`` it minimizes the generalized
    cross-validation function (mode 2: the noise level is judged from the data); for
    ``error_variance >= 0`` it minimizes GCVSPL's estimate of the true mean squared error
    for that known noise variance (mode 3; the variance is in y's unit squared). The
    default 0 means "no noise": p falls to GCVSPL's floor and the spline interpolates the
    points (to about 1e-12 of their size). The search for p (from p = 1/el, halving or
    doubling to bracket a minimum, then a golden-section search to 1e-6 relative) is
    GCVSPL's, step by step and in the same floating-point order, so the same p and the
    same coefficients result. It finds a local minimum: on few noisy points GCV may stop
    at a small p and follow the noise, exactly as OpenSim does.
    ``get_smoothing_parameter()`` reports p.

    Outside [x[0], x[-1]] the natural spline continues as a polynomial of degree m - 1 (a
    parabola for degree 5): f^(m) and higher are 0 there. Inside it is C^(2m-2); a
    derivative of order 2m - 1 is piecewise constant (at a data point: the interval to the
    right's), every higher order is 0, so ``get_max_derivative_order()`` is unlimited.

    Evaluation is by the Taylor coefficients of each interval's polynomial about its left
    data point, taken once from GCVSPL's own evaluator (SPLDER) at the data points; values
    agree with OpenSim's evaluation to rounding, and cost one bisection and a Horner step.
    """

    def __init__(self, degree, x, y, error_variance=0.0):
        where = "Function.GCVSpline"
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) \
                or degree < 1 or degree % 2 == 0:
            raise InvalidArgumentError(
                f"{where}: degree must be a positive odd integer (2 * half_order - 1: 1, 3, "
                f"5, 7, ...), got {degree!r}."
            )
        m = (int(degree) + 1) // 2
        xs, ys = _xy_data(x, y, where, 2 * m, strictly=True)
        variance = _finite_float(error_variance, where, "error_variance")
        self._m = m
        self._xs, self._ys = xs, ys
        self._error_variance = variance
        mode = 2 if variance < 0.0 else 3
        coefficients, self._p = _gcvspl_fit(xs, ys, m, mode, variance)
        self._coefficients = coefficients
        self._pieces, self._anchors = _gcv_pieces(xs, coefficients, m)
        self._n = len(xs)

    def _locate(self, x: float):
        i = bisect_right(self._xs, x)
        return self._pieces[i], x - self._anchors[i]

    def calc_value_and_derivatives(self, x: float) -> tuple[float, float, float]:
        """(f, f', f'') at the float x in one lookup and without argument checks (the
        FunctionBased fast path)."""
        coeffs, h = self._locate(x)
        v = d1 = d2 = 0.0
        for a, a1, a2 in coeffs:
            d2 = d2 * h + a2
            d1 = d1 * h + a1
            v = v * h + a
        return v, d1, d2

    def calc_value(self, x) -> float:
        return self.calc_value_and_derivatives(self.check_scalar_argument(x))[0]

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        k = len(deriv_components)
        if k <= 2:
            return self.calc_value_and_derivatives(x)[k]
        coeffs, h = self._locate(x)
        # coeffs[j] holds (a_p, ...) for the power p = len - 1 - j; the k-th derivative of
        # a_p h^p is a_p p!/(p-k)! h^(p-k).
        top = len(coeffs) - 1
        result = 0.0
        for j in range(top - k + 1):
            p = top - j
            result = result * h + coeffs[j][0] * math.perm(p, k)
        return result

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_degree(self) -> int:
        """2 m - 1."""
        return 2 * self._m - 1

    def get_half_order(self) -> int:
        """m, the ``<half_order>`` of the file."""
        return self._m

    def get_error_variance(self) -> float:
        return self._error_variance

    def get_smoothing_parameter(self) -> float:
        """The p of the fit as GCVSPL reports it. 0 means p fell below GCVSPL's floor and
        the fit used p = 1e-15 / el (el is GCVSPL's scale of the penalty against the data
        term), so the spline interpolates the data."""
        return self._p

    def get_x(self) -> np.ndarray:
        """A copy of the data abscissas."""
        return np.array(self._xs)

    def get_y(self) -> np.ndarray:
        """A copy of the data values (not the fitted ones)."""
        return np.array(self._ys)

    def get_coefficients(self) -> np.ndarray:
        """The fitted spline's GCVSPL coefficients, one per data point: what OpenSim
        writes into ``<coefficients>``. They are not the fitted values."""
        return np.array(self._coefficients)

    def __repr__(self) -> str:
        return (f"Function.GCVSpline({self.get_degree()}, <{self._n} points>, "
                f"error_variance={self._error_variance!r})")


FAST_PATH_TYPES = (Spline, SimmSpline, PiecewiseLinear, GCVSpline, Multiplier)
"""The classes whose ``calc_value_and_derivatives(x)`` gives (f, f', f'') of a one-argument
function at a float x without argument checks. Exact classes, not subclasses: a user
subclass that overrides calc_value must be evaluated through it."""


# ---------------------------------------------------------------- GCVSPL (Woltring 1986)
#
# The fit below follows GCVSPL's algorithm and its floating-point order of operations, so
# that it chooses the same smoothing parameter as OpenSim does (Simbody's SplineFitter, with
# unit weights). Arrays are 1-based lists (index 0 unused) as in the published algorithm;
# band matrices are lists of rows, row[i][k + offset] holding the entry (i, i + k).

_P_FLOOR = 1e-15
"""GCVSPL's EPS: p * el is kept within [1e-15, 1e15]."""

_GOLDEN = 1.618033983


def _gcv_basis(x: list, n: int, m: int) -> tuple[list, float]:
    """The band matrix B (entries (i, i + k), |k| <= m - 1) of GCVSPL's B-spline-like basis
    at the data points, and the mean absolute row sum of its bands (BASIS)."""
    mm1 = m - 1
    width = 2 * m - 1
    B = [[0.0] * width for _ in range(n + 1)]
    if m == 1:
        for i in range(1, n + 1):
            B[i][0] = 1.0
        return B, 1.0
    m2 = 2 * m
    for row in range(1, n + 1):
        q = [0.0] * (2 * m)                      # q[j + mm1] for j in -mm1 .. m
        q[mm1 + mm1] = 1.0
        if row != 1 and row != n:
            q[mm1 + mm1] = 1.0 / (x[row + 1] - x[row - 1])
        arg = x[row]
        for i in range(3, m2 + 1):
            ir = m + 1 - i
            v = q[ir + mm1]
            if row < i:
                for j in range(row + 1, i + 1):
                    u = v
                    v = q[ir + 1 + mm1]
                    q[ir + mm1] = u + (x[j] - arg) * v
                    ir += 1
            j1 = max(row - i + 1, 1)
            j2 = min(row - 1, n - i)
            if j1 <= j2:
                if i < m2:
                    for j in range(j1, j2 + 1):
                        yv = x[i + j]
                        u = v
                        v = q[ir + 1 + mm1]
                        q[ir + mm1] = u + (v - u) * (yv - arg) / (yv - x[j])
                        ir += 1
                else:
                    for j in range(j1, j2 + 1):
                        u = v
                        v = q[ir + 1 + mm1]
                        q[ir + mm1] = (arg - x[j]) * u + (x[i + j] - arg) * v
                        ir += 1
            first = n - i + 1
            if first < row:
                for j in range(first, row):
                    u = v
                    v = q[ir + 1 + mm1]
                    q[ir + mm1] = (arg - x[j]) * u + v
                    ir += 1
        for k in range(-mm1, mm1 + 1):
            B[row][k + mm1] = q[k + mm1]
    for i in range(1, mm1 + 1):
        for k in range(i, mm1 + 1):
            B[i][-k + mm1] = 0.0
            B[n + 1 - i][k + mm1] = 0.0
    total = 0.0
    for i in range(1, n + 1):
        for k in range(width):
            total += abs(B[i][k])
    return B, total / n


def _gcv_penalty(x: list, n: int, m: int) -> tuple[list, float]:
    """The band matrix W (entries (i, i + k), |k| <= m) of GCVSPL's penalty, built a
    column at a time from scaled divided-difference weights, and its mean absolute band sum
    (PREP, with unit weights)."""
    width = 2 * m + 1
    W = [[0.0] * width for _ in range(n + 1)]
    f1 = -1.0
    if m != 1:
        for i in range(2, m + 1):
            f1 = -f1 * i
        for i in range(m + 1, 2 * m):
            f1 *= i
    first, last = 1, m
    for col in range(1, n + 1):
        if col > n - m:
            f1 = -f1
            f = f1
        elif col < m + 1:
            f = f1
        else:
            f = f1 * (x[col + m] - x[col - m])
        if col > m + 1:
            first += 1
        if last < n:
            last += 1
        for r in range(first, last + 1):
            ff = f
            xr = x[r]
            for i in range(first, last + 1):
                if i != r:
                    ff /= xr - x[i]
            W[r][col - r + m] = ff
    total = 0.0
    for i in range(1, n + 1):
        for k in range(width):
            total += abs(W[i][k])
    return W, total / n


def _band_factor(A: list, n: int, m: int) -> None:
    """In-place LU factors (no pivoting) of the band matrix A of half-bandwidth m, stored
    as rows A[i][k + m] = (i, i + k); L has a unit diagonal (BANDET)."""
    for i in range(1, n + 1):
        di = A[i][m]
        mi = min(m, i - 1)
        if mi >= 1:
            for k in range(1, mi + 1):
                di -= A[i][-k + m] * A[i - k][k + m]
            A[i][m] = di
        lm = min(m, n - i)
        for r in range(1, lm + 1):
            dl = A[i + r][-r + m]
            km = min(m - r, i - 1)
            if km >= 1:
                du = A[i][r + m]
                for k in range(1, km + 1):
                    du -= A[i][-k + m] * A[i - k][r + k + m]
                    dl -= A[r + i][-r - k + m] * A[i - k][k + m]
                A[i][r + m] = du
            A[i + r][-r + m] = dl / di


def _band_solve(A: list, y: list, n: int, m: int) -> list:
    """The solution c of A c = y from the factors of ``_band_factor`` (BANSOL)."""
    c = [0.0] * (n + 1)
    c[1] = y[1]
    for i in range(2, n + 1):
        d = y[i]
        for r in range(1, min(m, i - 1) + 1):
            d -= A[i][-r + m] * c[i - r]
        c[i] = d
    c[n] /= A[n][m]
    for i in range(n - 1, 0, -1):
        d = c[i]
        for r in range(1, min(m, n - i) + 1):
            d -= A[i][r + m] * c[i + r]
        c[i] = d / A[i][m]
    return c


def _band_trace(W: list, A: list, n: int, m: int) -> float:
    """trace(W A^-1), from the central 2m + 1 bands of A^-1 computed in place over the
    factors of A (TRINV)."""
    upper = [0.0] * (m + 1)     # row i of U scaled by 1 / diagonal
    lower = [0.0] * (m + 1)     # column i of L
    A[n][m] = 1.0 / A[n][m]
    for i in range(n - 1, 0, -1):
        mi = min(m, n - i)
        dd = 1.0 / A[i][m]
        for k in range(1, mi + 1):
            upper[k] = A[i][k + m] * dd
            lower[k] = A[k + i][-k + m]
        dd += dd
        for j in range(mi, 0, -1):
            du = 0.0
            dl = 0.0
            for k in range(1, mi + 1):
                du -= upper[k] * A[i + k][j - k + m]
                dl -= lower[k] * A[i + j][k - j + m]
            A[i][j + m] = du
            A[j + i][-j + m] = dl
            dd -= upper[j] * dl + lower[j] * du
        A[i][m] = dd / 2.0
    total = 0.0
    for i in range(1, n + 1):
        for k in range(-min(m, i - 1), min(m, n - i) + 1):
            total += W[i][k + m] * A[k + i][-k + m]
    return total


class _GCVProblem:
    """The data and matrices of one GCVSPL fit, and its criterion at a given p (SPLC)."""

    def __init__(self, x: list, y: list, m: int, mode: int, variance: float):
        self.n, self.m = len(x) - 1, m
        self.x, self.y = x, y
        self.mode, self.variance = mode, variance
        self.B, bl = _gcv_basis(x, self.n, m)
        self.W, el = _gcv_penalty(x, self.n, m)
        self.el = el / bl
        self.c: list = []
        self.p_reported = 0.0

    def criterion(self, p: float) -> float:
        """Fit at smoothing parameter p (clamped to GCVSPL's range) into self.c; return
        the criterion GCVSPL minimizes: the GCV function esn / trn^2 (mode 2) or the
        estimated true mean squared error esn - variance (2 trn - 1) (mode 3), with esn the
        mean squared residual and trn the trace of (I - influence matrix) over n."""
        n, m, el = self.n, self.m, self.el
        B, W = self.B, self.W
        dp = p
        self.p_reported = p
        pel = p * el
        if pel < _P_FLOOR:
            dp = _P_FLOOR / el
            self.p_reported = 0.0
        if pel * _P_FLOOR > 1.0:
            dp = 1.0 / (el * _P_FLOOR)
            self.p_reported = dp
        A = [[0.0] * (2 * m + 1) for _ in range(n + 1)]
        for i in range(1, n + 1):
            for k in range(-min(m, i - 1), min(m, n - i) + 1):
                if abs(k) == m:
                    A[i][k + m] = dp * W[i][k + m]
                else:
                    A[i][k + m] = B[i][k + m - 1] + dp * W[i][k + m]
        _band_factor(A, n, m)
        c = _band_solve(A, self.y, n, m)
        self.c = c
        trn = _band_trace(W, A, n, m) * dp / n
        esn = 0.0
        for i in range(1, n + 1):
            dt = -self.y[i]
            for k in range(-min(m - 1, i - 1), min(m - 1, n - i) + 1):
                dt += B[i][k + m - 1] * c[i + k]
            esn += dt * dt
        esn /= n
        if self.mode == 3:
            return esn - self.variance * (trn * 2.0 - 1.0)
        return esn / trn / trn


def _gcvspl_fit(xs: list, ys: list, m: int, mode: int, variance: float):
    """GCVSPL's coefficients (a list, one per point) and its reported p, for unit weights,
    mode 2 (GCV) or 3 (known error variance)."""
    prob = _GCVProblem([math.nan, *xs], [math.nan, *ys], m, mode, variance)
    f = prob.criterion
    r1 = 1.0 / prob.el
    r2 = r1 * 2.0
    gf2 = f(r2)
    # Bracket the minimum: halve p while the criterion does not rise, ...
    while True:
        gf1 = f(r1)
        if gf1 > gf2:
            break
        if prob.p_reported <= 0.0:
            return _finish(prob, r1)
        r2, gf2 = r1, gf1
        r1 /= 2.0
    # ... then double it from r2 until it rises.
    r3 = r2 * 2.0
    while True:
        gf3 = f(r3)
        if gf3 > gf2:
            break
        if prob.p_reported >= 999999999999999.88 or r3 * prob.el * _P_FLOOR > 1.0:
            # GCVSPL stops growing p once it reports 1e15 or more, and then fits at r1 (the
            # lower end), as here. With a scale el > 1 it clamps p below 1e15 instead, the
            # criterion stops changing, and it would double p forever (OpenSim hangs);
            # here the doubling ends once the clamp holds, with the fit GCVSPL would make.
            return _finish(prob, r1)
        r2, gf2 = r3, gf3
        r3 *= 2.0
    # Golden-section search on [r1, r3] to 1e-6 relative.
    r2, gf2 = r3, gf3
    alpha = (r2 - r1) / _GOLDEN
    r4 = r1 + alpha
    r3 = r2 - alpha
    gf3 = f(r3)
    gf4 = f(r4)
    while True:
        if gf3 <= gf4:
            r2, gf2 = r4, gf4
            err = (r2 - r1) / (r1 + r2)
            if err * err + 1.0 == 1.0 or err <= 1e-6:
                break
            r4, gf4 = r3, gf3
            alpha /= _GOLDEN
            r3 = r2 - alpha
            gf3 = f(r3)
        else:
            r1, gf1 = r3, gf3
            err = (r2 - r1) / (r1 + r2)
            if err * err + 1.0 == 1.0 or err <= 1e-6:
                break
            r3, gf3 = r4, gf4
            alpha /= _GOLDEN
            r4 = r1 + alpha
            gf4 = f(r4)
    return _finish(prob, (r1 + r2) / 2.0)


def _finish(prob: _GCVProblem, p: float):
    prob.criterion(p)
    return prob.c[1:], prob.p_reported


def _splder(order: int, m: int, n: int, t: float, x: list, c: list, region: int) -> float:
    """The ``order``-th derivative at t of GCVSPL's spline with coefficients c (1-based),
    computed as GCVSPL's SPLDER does, on the polynomial piece ``region``: 0 left of x[1],
    l for [x[l], x[l+1]), n from x[n] on."""
    m2 = 2 * m
    k = m2 - order
    if k < 1:
        return 0.0
    q = [0.0] * (m2 + 1)
    for j in range(region + 1, region + m2 + 1):
        q[j - region] = c[j - m] if m + 1 <= j <= n + m else 0.0
    if order > 0:
        jl = region + 1 - m2
        ml = m2 - region
        top = n - m2
        for i in range(1, order + 1):
            jl += 1
            top += 1
            j1 = max(1, jl)
            j2 = min(region, top)
            span = m2 - i
            for j in range(j2, j1 - 1, -1):
                jm = ml + j
                q[jm] = (q[jm] - q[jm - 1]) / (x[j + span] - x[j])
            if jl < 1:
                for j in range(ml, i, -1):
                    q[j] = -q[j - 1]
        for j in range(1, k + 1):
            q[j] = q[j + order]
    for i in range(1, k):
        ir = k
        jj = region
        ki = k - i
        nki = n - k + i
        for _ in range(nki + 1, region + 1):
            q[ir] = q[ir - 1] + (t - x[jj]) * q[ir]
            jj -= 1
            ir -= 1
        start = region - k + 1 + i
        for _ in range(max(1, start), min(region, nki) + 1):
            xjki = x[jj + ki]
            z = q[ir]
            q[ir] = z + (xjki - t) * (q[ir - 1] - z) / (xjki - x[jj])
            ir -= 1
            jj -= 1
        if start <= 0:
            jj = ki
            for _ in range(1 - start):
                q[ir] += (x[jj] - t) * q[ir - 1]
                jj -= 1
                ir -= 1
    z = q[k]
    if order > 0:
        for j in range(k, m2):
            z *= j
    return z


def _gcv_pieces(xs: list, coefficients: list, m: int):
    """Per region (left of the data, each interval, right of the data) the Taylor
    coefficients of its polynomial about its anchor (x[0] for the left region, else the
    region's left data point), highest power first, each as (a_p, p a_p, p (p-1) a_p) so
    that Horner's rule gives f, f' and f'' together; and the anchors."""
    n = len(xs)
    x = [math.nan, *xs]
    c = [math.nan, *coefficients]
    pieces, anchors = [], []
    for region in range(n + 1):
        anchor = x[max(region, 1)]
        # The outer regions hold polynomials of degree m - 1; every interval one of 2m - 1.
        top = m - 1 if region in (0, n) else 2 * m - 1
        taylor = [_splder(r, m, n, anchor, x, c, region) / math.factorial(r)
                  for r in range(top + 1)]
        terms = []
        for p in range(top, -1, -1):
            a = taylor[p]
            terms.append((a, p * a, p * (p - 1) * a))
        pieces.append(_horner_rows(terms))
        anchors.append(anchor)
    return pieces, anchors


def _horner_rows(terms: list) -> tuple:
    """Rows (v, d1, d2) for one Horner loop computing f, f' and f'' together. ``terms``
    holds (a_p, p a_p, p (p-1) a_p) for p = top .. 0. f's coefficients are the a_p; f' has
    one power fewer and f'' two, so their columns start with one and two leading zeros
    (which leave Horner's result unchanged) and end at p = 1 and p = 2."""
    top = len(terms) - 1
    v = [t[0] for t in terms]
    d1 = [0.0] + [t[1] for t in terms[:top]]          # powers top-1 .. 0 of f'
    d2 = [0.0, 0.0] + [t[2] for t in terms[:top - 1]]  # powers top-2 .. 0 of f''
    d2 = d2[:top + 1]
    return tuple(zip(v, d1, d2, strict=True))
