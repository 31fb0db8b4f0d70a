"""Simbody's ``Function``: a real-valued function of m real arguments, with derivatives.

A Function is what a ``Constraint.CoordinateCoupler``, ``Constraint.SpeedCoupler``,
``Constraint.PrescribedMotion`` or ``MobilizedBody.FunctionBased`` is given to say how its
coordinates are related. Users subclass :class:`Function`; the common cases are built in and
reachable as nested names, as in Simbody: ``Function.Constant``, ``Function.Linear``,
``Function.Polynomial``, ``Function.Sinusoid``, ``Function.Step`` and ``Function.Spline``.
The kinds OpenSim model files add (``Function.SimmSpline``, ``Function.GCVSpline``,
``Function.PiecewiseLinear``, ``Function.Multiplier``) live in
``kinetree.math.opensim_functions`` and are attached here too.

Every built-in returns Python floats. Arguments are not checked for NaN or infinity: a
non-finite argument gives a non-finite result, as ``math`` functions do. Construction data
(coefficients, spline points, step ends) must be finite and is refused otherwise.
"""

from __future__ import annotations

import math
import operator
import sys
from bisect import bisect_right

import numpy as np

from kinetree.errors import InvalidArgumentError

__all__ = [
    "Function",
    "Constant",
    "Linear",
    "Polynomial",
    "Sinusoid",
    "Step",
    "Spline",
    "SimmSpline",
    "GCVSpline",
    "PiecewiseLinear",
    "Multiplier",
]

UNLIMITED_DERIVATIVE_ORDER = sys.maxsize
"""What ``get_max_derivative_order()`` returns when every order can be computed (Simbody
returns ``std::numeric_limits<int>::max()``)."""


def _finite_float(value, where: str, what: str) -> float:
    """``value`` as a finite Python float, or InvalidArgumentError naming ``where``."""
    if isinstance(value, bool):
        raise InvalidArgumentError(f"{where}: {what} must be a real number, got {value!r}.")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"{where}: {what} must be a real number, got {value!r}."
        ) from exc
    if arr.shape != ():
        raise InvalidArgumentError(
            f"{where}: {what} must be a single real number, got an array of shape {arr.shape}."
        )
    result = float(arr)
    if not math.isfinite(result):
        raise InvalidArgumentError(f"{where}: {what} must be finite, got {result}.")
    return result


def _finite_vector(value, where: str, what: str) -> np.ndarray:
    """``value`` as a new 1-D float64 array of finite numbers, or InvalidArgumentError."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"{where}: {what} must be a sequence of real numbers, got {value!r}."
        ) from exc
    if arr.ndim != 1:
        raise InvalidArgumentError(
            f"{where}: {what} must be a 1-D sequence of real numbers, got an array of shape "
            f"{arr.shape}."
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            f"{where}: {what}[{i}] is {arr[i]}; every entry must be finite. Remove or "
            f"replace the non-finite values."
        )
    return arr


class Function:
    """A real-valued function f(x) of m real arguments x = [x0, ..., x(m-1)], with partial
    derivatives (Simbody's ``Function``, i.e. ``Function_<Real>``; seed Simbody Advanced
    Programming Guide §2.3).

    A subclass implements four methods:

    ``calc_value(x)``
        f at x, where x is a vector of ``get_argument_size()`` reals (a plain scalar is
        also accepted when m is 1).
    ``calc_derivative(deriv_components, x)``
        A partial derivative of f at x. ``deriv_components`` lists the arguments to
        differentiate with respect to, one entry per differentiation, so its length is the
        order of the derivative: ``[0]`` is df/dx0, ``[1]`` is df/dx1, ``[0, 0]`` is
        d2f/dx0^2 and ``[0, 1]`` the mixed partial d2f/dx0dx1.
    ``get_argument_size()``
        m, the number of arguments ``calc_value`` expects (Function is not told m by its
        type, so it must say it).
    ``get_max_derivative_order()``
        The highest order ``calc_derivative`` can compute. A function whose derivatives of
        every order are known (for instance because all beyond some order are zero) returns
        ``sys.maxsize``, as Simbody returns the largest int. A Function used by a constraint
        (CoordinateCoupler, SpeedCoupler, PrescribedMotion) must provide at least second
        derivatives, since the acceleration-level constraint equations need them.

    The base class implements none of them: each raises NotImplementedError saying which
    method the subclass is missing. It provides non-virtual helpers for implementations:
    :meth:`check_arguments` (and :meth:`check_scalar_argument` for one-argument functions)
    validates x against ``get_argument_size()`` and ``deriv_components`` against the argument
    count and ``get_max_derivative_order()``, raising InvalidArgumentError with the fix; and
    ``f(x)`` is ``f.calc_value(x)``.

    The seed's example, the coupler c(q) = q0 - q1::

        class CoordinateCoupler(Function):
            def calc_value(self, x):
                x = self.check_arguments(x)
                return float(x[0] - x[1])

            def calc_derivative(self, deriv_components, x):
                self.check_arguments(x, deriv_components)
                if len(deriv_components) == 1:
                    return 1.0 if deriv_components[0] == 0 else -1.0
                return 0.0

            def get_argument_size(self):
                return 2

            def get_max_derivative_order(self):
                return sys.maxsize
    """

    # ----------------------------------------------------------------- the interface

    def calc_value(self, x) -> float:
        """f(x); x holds ``get_argument_size()`` reals. Subclasses must implement it."""
        raise NotImplementedError(self._missing("calc_value(x)"))

    def calc_derivative(self, deriv_components, x) -> float:
        """The partial derivative of f at x with respect to the arguments listed in
        ``deriv_components`` (its length is the order). Subclasses must implement it."""
        raise NotImplementedError(self._missing("calc_derivative(deriv_components, x)"))

    def get_argument_size(self) -> int:
        """The number of arguments f takes. Subclasses must implement it."""
        raise NotImplementedError(self._missing("get_argument_size()"))

    def get_max_derivative_order(self) -> int:
        """The highest derivative order ``calc_derivative`` supports (``sys.maxsize`` for
        unlimited). Subclasses must implement it."""
        raise NotImplementedError(self._missing("get_max_derivative_order()"))

    def __call__(self, x) -> float:
        """``f(x)`` is ``f.calc_value(x)``; a one-argument function also takes a scalar."""
        return self.calc_value(x)

    # ----------------------------------------------------------------- helpers (non-virtual)

    def check_arguments(self, x, deriv_components=None) -> np.ndarray:
        """Validate the arguments of ``calc_value(x)`` or, when ``deriv_components`` is
        given, of ``calc_derivative(deriv_components, x)``, and return x as a new 1-D float64
        array of length ``get_argument_size()``.

        x must be a vector of ``get_argument_size()`` reals (a scalar is accepted when that
        size is 1). ``deriv_components`` must be a non-empty sequence of integer argument
        indices, each in ``[0, get_argument_size())``, no longer than
        ``get_max_derivative_order()``. Raises InvalidArgumentError naming this function,
        the method and the fix.
        """
        method = "calc_value" if deriv_components is None else "calc_derivative"
        where = f"{self._name()}.{method}"
        m = self.get_argument_size()
        if deriv_components is not None:
            self._check_deriv_components(deriv_components, m, where)
        try:
            arr = np.array(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"{where}: x must be numeric, got {x!r}; pass a vector of {m} real number(s)."
            ) from exc
        if arr.ndim == 0:
            if m == 1:
                return arr.reshape(1)
            raise InvalidArgumentError(
                f"{where}: got the single number {x!r}, but this function takes {m} "
                f"arguments (get_argument_size() == {m}); pass a vector of {m} real numbers."
            )
        if arr.ndim != 1 or arr.shape[0] != m:
            raise InvalidArgumentError(
                f"{where}: x must be a vector of {m} real number(s) "
                f"(get_argument_size() == {m}), got shape {arr.shape}; pass exactly {m}."
            )
        return arr

    def check_scalar_argument(self, x, deriv_components=None) -> float:
        """:meth:`check_arguments` for a function of one argument: the same checks, but x is
        returned as a Python float. x may be a scalar or a vector of length 1."""
        if deriv_components is not None:
            self._check_deriv_components(deriv_components, 1, f"{self._name()}.calc_derivative")
        if isinstance(x, (float, int)):
            return float(x)
        method = "calc_value" if deriv_components is None else "calc_derivative"
        where = f"{self._name()}.{method}"
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"{where}: x must be a real number, got {x!r}; this function takes one "
                f"argument, pass a scalar or a vector of length 1."
            ) from exc
        if arr.shape == () or arr.shape == (1,):
            return float(arr.reshape(()))
        raise InvalidArgumentError(
            f"{where}: this function takes 1 argument (get_argument_size() == 1), got x of "
            f"shape {arr.shape}; pass a scalar or a vector of length 1."
        )

    def _check_deriv_components(self, deriv_components, m: int, where: str) -> None:
        if isinstance(deriv_components, (str, bytes)) or not hasattr(deriv_components, "__len__"):
            raise InvalidArgumentError(
                f"{where}: deriv_components must be a sequence of argument indices such as "
                f"[0] (df/dx0) or [0, 1] (d2f/dx0dx1), got {deriv_components!r}."
            )
        order = len(deriv_components)
        if order == 0:
            raise InvalidArgumentError(
                f"{where}: deriv_components is empty; list at least one argument index "
                f"(e.g. [0] for df/dx0), or call calc_value for the value itself."
            )
        max_order = self.get_max_derivative_order()
        if order > max_order:
            raise InvalidArgumentError(
                f"{where}: asked for a derivative of order {order}, but {self._name()} "
                f"provides orders up to {max_order} (get_max_derivative_order()); ask for "
                f"a lower order or use a smoother function."
            )
        for k, c in enumerate(deriv_components):
            try:
                if isinstance(c, bool):
                    raise TypeError
                i = operator.index(c)
            except TypeError:
                raise InvalidArgumentError(
                    f"{where}: deriv_components[{k}] is {c!r}; argument indices must be integers."
                ) from None
            if m == 0:
                raise InvalidArgumentError(
                    f"{where}: this function takes no arguments, so it has no derivatives."
                )
            if not 0 <= i < m:
                raise InvalidArgumentError(
                    f"{where}: deriv_components[{k}] is {i}, not an argument index of this "
                    f"{m}-argument function; use indices 0 to {m - 1}."
                )

    def _name(self) -> str:
        return type(self).__qualname__

    def _missing(self, method: str) -> str:
        return (
            f"{self._name()} must implement {method}: a Function subclass overrides "
            f"calc_value, calc_derivative, get_argument_size and get_max_derivative_order."
        )


# --------------------------------------------------------------------------- built-ins


class Constant(Function):
    """``Function.Constant(value, argument_size=1)``: f(x) = value for x of any
    ``argument_size`` reals (0 is allowed: a function of no arguments, as the seed's
    FunctionBased mobilizer uses). Every derivative is 0; every order is available."""

    def __init__(self, value, argument_size: int = 1):
        where = "Function.Constant"
        self._value = _finite_float(value, where, "value")
        if isinstance(argument_size, bool) or not isinstance(argument_size, (int, np.integer)):
            raise InvalidArgumentError(
                f"{where}: argument_size must be a non-negative integer, got {argument_size!r}."
            )
        if argument_size < 0:
            raise InvalidArgumentError(f"{where}: argument_size must be >= 0, got {argument_size}.")
        self._argument_size = int(argument_size)

    def calc_value(self, x) -> float:
        self.check_arguments(x)
        return self._value

    def calc_derivative(self, deriv_components, x) -> float:
        self.check_arguments(x, deriv_components)
        return 0.0

    def get_argument_size(self) -> int:
        return self._argument_size

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_value(self) -> float:
        """The constant value."""
        return self._value

    def set_value(self, value) -> None:
        """Change the value this function returns."""
        self._value = _finite_float(value, "Function.Constant.set_value", "value")

    def __repr__(self) -> str:
        return f"Function.Constant({self._value!r}, argument_size={self._argument_size})"


class Linear(Function):
    """``Function.Linear(coefficients)``: f(x) = a0 x0 + a1 x1 + ... + a(n-1) x(n-1) + an,
    with n = len(coefficients) - 1 arguments (at least 2 coefficients). df/dxi = ai; every
    higher derivative is 0, and every order is available.

    OpenSim's LinearFunction is this function: its ``<coefficients>slope intercept
    </coefficients>`` are passed unchanged, ``Function.Linear([slope, intercept])``."""

    def __init__(self, coefficients):
        where = "Function.Linear"
        coeffs = _finite_vector(coefficients, where, "coefficients")
        if coeffs.shape[0] < 2:
            raise InvalidArgumentError(
                f"{where}: needs at least 2 coefficients (a0 x0 + a1), got "
                f"{coeffs.shape[0]}; for a function without arguments use Function.Constant."
            )
        self._coefficients = coeffs
        self._slopes = coeffs[:-1].copy()
        self._slope_list = [float(a) for a in self._slopes]
        self._offset = float(coeffs[-1])

    def calc_value(self, x) -> float:
        x = self.check_arguments(x)
        return float(self._slopes @ x) + self._offset

    def calc_derivative(self, deriv_components, x) -> float:
        self.check_arguments(x, deriv_components)
        if len(deriv_components) == 1:
            return self._slope_list[operator.index(deriv_components[0])]
        return 0.0

    def get_argument_size(self) -> int:
        return len(self._slope_list)

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_coefficients(self) -> np.ndarray:
        """A copy of the coefficients [a0, ..., an]."""
        return self._coefficients.copy()

    def __repr__(self) -> str:
        return f"Function.Linear({self._coefficients.tolist()!r})"


class Polynomial(Function):
    """``Function.Polynomial(coefficients)``: a polynomial of one argument with coefficients
    in order of decreasing powers (Simbody's order, as ``numpy.polyval``):
    f(x) = c0 x^n + c1 x^(n-1) + ... + cn. Derivatives of every order are exact: the
    coefficients are differentiated and evaluated by Horner's rule.

    OpenSim's PolynomialFunction is this function: its ``<coefficients>`` (highest power
    first) are passed unchanged."""

    def __init__(self, coefficients):
        where = "Function.Polynomial"
        coeffs = _finite_vector(coefficients, where, "coefficients")
        if coeffs.shape[0] == 0:
            raise InvalidArgumentError(
                f"{where}: needs at least one coefficient; pass [c] for the constant c."
            )
        self._coefficients = coeffs
        self._coeff_list = [float(c) for c in coeffs]

    def calc_value(self, x) -> float:
        x = self.check_scalar_argument(x)
        result = 0.0
        for c in self._coeff_list:
            result = result * x + c
        return result

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        k = len(deriv_components)
        degree = len(self._coeff_list) - 1
        if k > degree:
            return 0.0
        result = 0.0
        # The term c x^p contributes c p!/(p-k)! x^(p-k) to the k-th derivative.
        for j in range(degree - k + 1):
            p = degree - j
            result = result * x + self._coeff_list[j] * math.perm(p, k)
        return float(result)

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_coefficients(self) -> np.ndarray:
        """A copy of the coefficients, highest power first."""
        return self._coefficients.copy()

    def __repr__(self) -> str:
        return f"Function.Polynomial({self._coefficients.tolist()!r})"


class Sinusoid(Function):
    """``Function.Sinusoid(amplitude, frequency, phase=0)``: f(x) = a sin(w x + p) of one
    argument, with w in radians per unit of x and p in radians. The k-th derivative is
    a w^k sin(w x + p + k pi/2), exact for every order."""

    def __init__(self, amplitude, frequency, phase=0.0):
        self._amplitude = _finite_float(amplitude, "Function.Sinusoid", "amplitude")
        self._frequency = _finite_float(frequency, "Function.Sinusoid", "frequency")
        self._phase = _finite_float(phase, "Function.Sinusoid", "phase")

    def calc_value(self, x) -> float:
        x = self.check_scalar_argument(x)
        return self._amplitude * math.sin(self._frequency * x + self._phase)

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        k = len(deriv_components)
        angle = self._frequency * x + self._phase
        # sin shifted by k quarter turns, exactly: sin, cos, -sin, -cos.
        quarter = k % 4
        if quarter == 0:
            s = math.sin(angle)
        elif quarter == 1:
            s = math.cos(angle)
        elif quarter == 2:
            s = -math.sin(angle)
        else:
            s = -math.cos(angle)
        return self._amplitude * self._frequency**k * s

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_amplitude(self) -> float:
        return self._amplitude

    def get_frequency(self) -> float:
        """w, in radians per unit of x."""
        return self._frequency

    def get_phase(self) -> float:
        return self._phase

    def set_amplitude(self, amplitude) -> None:
        self._amplitude = _finite_float(amplitude, "Function.Sinusoid.set_amplitude", "amplitude")

    def set_frequency(self, frequency) -> None:
        """Set w, in radians per unit of x."""
        self._frequency = _finite_float(frequency, "Function.Sinusoid.set_frequency", "frequency")

    def set_phase(self, phase) -> None:
        self._phase = _finite_float(phase, "Function.Sinusoid.set_phase", "phase")

    def __repr__(self) -> str:
        return f"Function.Sinusoid({self._amplitude!r}, {self._frequency!r}, {self._phase!r})"


class Step(Function):
    """``Function.Step(y0, y1, x0, x1)``: a smooth S-shaped step of one argument from y0 to
    y1 as x goes from x0 to x1.

    f = y0 where (x - x0) sign(x1 - x0) <= 0, f = y1 where (x - x1) sign(x1 - x0) >= 0, and
    in between f = y0 + (y1 - y0) s^3 (10 - 15 s + 6 s^2) with s = (x - x0)/(x1 - x0). The
    quintic makes f, f' and f'' continuous, with f' = f'' = 0 at both ends; f''' jumps there.
    x0 > x1 is allowed (the step then runs the other way in x); x0 == x1 is refused.
    Derivatives of orders 1 to 3 are exact; ``get_max_derivative_order()`` is 3.
    """

    def __init__(self, y0, y1, x0, x1):
        where = "Function.Step"
        self._y0 = _finite_float(y0, where, "y0")
        self._y1 = _finite_float(y1, where, "y1")
        self._x0 = _finite_float(x0, where, "x0")
        self._x1 = _finite_float(x1, where, "x1")
        if self._x0 == self._x1:
            raise InvalidArgumentError(
                f"{where}: x0 and x1 are both {self._x0}; a step needs an interval of "
                f"nonzero width, so pass x0 != x1."
            )
        self._dx = self._x1 - self._x0
        self._dy = self._y1 - self._y0

    def _before(self, x: float) -> bool:
        return (x - self._x0) * self._dx <= 0.0

    def _after(self, x: float) -> bool:
        return (x - self._x1) * self._dx >= 0.0

    def calc_value(self, x) -> float:
        x = self.check_scalar_argument(x)
        if self._before(x):
            return self._y0
        if self._after(x):
            return self._y1
        s = (x - self._x0) / self._dx
        return self._y0 + self._dy * (s * s * s * (10.0 + s * (-15.0 + 6.0 * s)))

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        k = len(deriv_components)
        if self._before(x) or self._after(x):
            return 0.0
        s = (x - self._x0) / self._dx
        if k == 1:
            ds = 30.0 * s * s * (1.0 - s) * (1.0 - s)
        elif k == 2:
            ds = 60.0 * s * (1.0 + s * (-3.0 + 2.0 * s))
        else:
            ds = 60.0 + s * (-360.0 + 360.0 * s)
        return self._dy * ds / self._dx**k

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return 3

    def __repr__(self) -> str:
        return f"Function.Step({self._y0!r}, {self._y1!r}, {self._x0!r}, {self._x1!r})"


_MIN_SMOOTHING_POINTS = 5
"""scipy.interpolate.make_smoothing_spline needs at least 5 points."""


class Spline(Function):
    """``Function.Spline(x, y, smoothing=None)``: a cubic spline of one argument through (or
    near) the data points (x[i], y[i]), built with ``scipy.interpolate``.

    ``smoothing`` chooses the spline:

    - ``None``: the interpolating natural cubic spline (``CubicSpline(x, y,
      bc_type="natural")``): it passes through every point and f'' = 0 at x[0] and x[-1].
      Needs at least 2 points.
    - ``"gcv"``: the smoothing cubic spline whose smoothing parameter lam is chosen by
      generalized cross-validation (``make_smoothing_spline(x, y, lam=None)``; Woltring's
      GCVSPL criterion, as Simbody's ``SplineFitter``). Needs at least 5 points.
    - a float lam >= 0: the smoothing cubic spline minimizing
      sum (y[i] - f(x[i]))^2 + lam * integral f''(x)^2 dx (``make_smoothing_spline(x, y,
      lam=lam)``); 0 interpolates, larger values approach the least-squares straight line.
      lam has units of y^2 x^3 / y^2 = x^3, so it depends on the scale of x. Needs at least
      5 points.

    x must be strictly increasing (sort the points, remove or average duplicates); x and y
    must be finite and of the same length.

    Derivatives of orders 1 to 3 come from the spline (the third is piecewise constant; at
    a data point it is that of the piece to the right); every order above 3 is 0, so
    ``get_max_derivative_order()`` is unlimited. Outside [x[0], x[-1]] the spline is
    extrapolated as scipy does (``extrapolate=True``): the first and last cubic pieces are
    continued, so it is not the straight-line continuation of a natural spline, and it
    diverges cubically far from the data. Keep queries within the data or add points.

    Evaluation uses the spline's piecewise-polynomial coefficients in plain Python (one
    bisection and a Horner step), which agrees with scipy's evaluation to rounding.
    """

    def __init__(self, x, y, smoothing=None):
        where = "Function.Spline"
        xs = _finite_vector(x, where, "x")
        ys = _finite_vector(y, where, "y")
        if xs.shape[0] != ys.shape[0]:
            raise InvalidArgumentError(
                f"{where}: x and y must have the same length, got {xs.shape[0]} x values "
                f"and {ys.shape[0]} y values."
            )
        steps = np.diff(xs)
        bad = np.flatnonzero(~(steps > 0.0))
        if bad.size:
            i = int(bad[0])
            raise InvalidArgumentError(
                f"{where}: x must be strictly increasing, but x[{i + 1}] = {xs[i + 1]} does "
                f"not exceed x[{i}] = {xs[i]}; sort the points by x and remove (or average) "
                f"duplicate x values."
            )
        n = xs.shape[0]
        self._x = xs
        self._y = ys

        if smoothing is None:
            if n < 2:
                raise InvalidArgumentError(
                    f"{where}: an interpolating spline needs at least 2 data points, got {n}."
                )
            from scipy.interpolate import CubicSpline  # scipy is slow to import: when first needed
            spline = CubicSpline(xs, ys, bc_type="natural")
            self._lam = None
        else:
            gcv = isinstance(smoothing, str) and smoothing.lower() == "gcv"
            if not gcv:
                if isinstance(smoothing, str):
                    raise InvalidArgumentError(
                        f"{where}: smoothing must be None, 'gcv' or a number lam >= 0, got "
                        f"{smoothing!r}."
                    )
                lam = _finite_float(smoothing, where, "smoothing (lam)")
                if lam < 0.0:
                    raise InvalidArgumentError(
                        f"{where}: the smoothing parameter lam must be >= 0, got {lam}; pass "
                        f"0 to interpolate, a larger value to smooth more."
                    )
            if n < _MIN_SMOOTHING_POINTS:
                raise InvalidArgumentError(
                    f"{where}: a smoothing spline needs at least {_MIN_SMOOTHING_POINTS} data "
                    f"points (scipy.interpolate.make_smoothing_spline's minimum), got {n}; "
                    f"add points or pass smoothing=None to interpolate."
                )
            try:
                from scipy.interpolate import make_smoothing_spline
                spline = make_smoothing_spline(xs, ys, lam=None if gcv else lam)
            except ValueError as exc:  # scipy's own refusal, e.g. an ill-posed system
                raise InvalidArgumentError(
                    f"{where}: scipy could not fit the smoothing spline ({exc}); check the "
                    f"data or choose a different smoothing."
                ) from exc
            self._lam = _recover_lam(spline, xs, ys) if gcv else lam

        # Coefficients of each piece about its left data point, highest power first.
        left = xs[:-1]
        mid = 0.5 * (xs[:-1] + xs[1:])
        coeffs = np.column_stack(
            [spline(mid, 3) / 6.0, spline(left, 2) / 2.0, spline(left, 1), spline(left)]
        )
        self._breaks = [float(v) for v in xs]
        self._pieces = [tuple(float(c) for c in row) for row in coeffs]
        self._last_piece = len(self._pieces) - 1

    def _locate(self, x: float):
        i = bisect_right(self._breaks, x) - 1
        if i < 0:
            i = 0
        elif i > self._last_piece:
            i = self._last_piece
        return self._pieces[i], x - self._breaks[i]

    def calc_value(self, x) -> float:
        x = self.check_scalar_argument(x)
        (a, b, c, d), h = self._locate(x)
        return ((a * h + b) * h + c) * h + d

    def calc_value_and_derivatives(self, x: float) -> tuple[float, float, float]:
        """(f, f', f'') at the float x in one lookup and without argument checks: the
        fast path for callers that evaluate the spline every realization (FunctionBased
        mobilizers)."""
        (a, b, c, d), h = self._locate(x)
        return ((a * h + b) * h + c) * h + d, (3.0 * a * h + 2.0 * b) * h + c, \
            6.0 * a * h + 2.0 * b

    def calc_derivative(self, deriv_components, x) -> float:
        x = self.check_scalar_argument(x, deriv_components)
        k = len(deriv_components)
        if k > 3:
            return 0.0
        (a, b, c, _), h = self._locate(x)
        if k == 1:
            return (3.0 * a * h + 2.0 * b) * h + c
        if k == 2:
            return 6.0 * a * h + 2.0 * b
        return 6.0 * a

    def get_argument_size(self) -> int:
        return 1

    def get_max_derivative_order(self) -> int:
        return UNLIMITED_DERIVATIVE_ORDER

    def get_x(self) -> np.ndarray:
        """A copy of the data abscissas."""
        return self._x.copy()

    def get_y(self) -> np.ndarray:
        """A copy of the data ordinates (not the smoothed values)."""
        return self._y.copy()

    def get_smoothing_parameter(self):
        """None for the interpolating spline; otherwise the lam of the smoothing spline.

        For ``smoothing="gcv"`` scipy does not return the lam it chose, so it is read back
        from the fitted spline: a smoothing spline satisfies (y[i] - f(x[i])) =
        lam * (jump of f''' at x[i]) at every data point (f''' = 0 outside the data), and lam
        is the least-squares solution of those equations. For data sets of up to a few
        hundred points this matches scipy's internal value to about 1e-7 relative or better;
        for much larger data sets, or very large lam, scipy's own fit is ill-conditioned and
        the value read back is less accurate (the spline itself is scipy's). A negative
        reading from rounding is reported as 0.0; if the fitted spline is exactly a straight
        line, every lam beyond some value fits the same, and math.inf is reported (0.0 when
        the data are fitted exactly).
        """
        return self._lam

    def __repr__(self) -> str:
        smoothing = "" if self._lam is None else f", smoothing={self._lam!r}"
        return f"Function.Spline(<{self._x.shape[0]} points>{smoothing})"


def _recover_lam(spline, x: np.ndarray, y: np.ndarray) -> float:
    """The lam of a smoothing spline, from its optimality conditions
    y[i] - f(x[i]) = lam * (f'''(x[i]+) - f'''(x[i]-)), solved in the least-squares sense."""
    third = np.concatenate([[0.0], spline(0.5 * (x[:-1] + x[1:]), 3), [0.0]])
    jumps = np.diff(third)
    residuals = y - spline(x)
    denom = float(jumps @ jumps)
    if denom == 0.0:
        return 0.0 if not np.any(residuals) else math.inf
    lam = float(residuals @ jumps) / denom
    return lam if lam > 0.0 else 0.0


# OpenSim's kinds live in their own module, which needs the names above; it is imported
# here, last, so that ``Function.SimmSpline`` and the rest exist whenever Function does.
from kinetree.math.opensim_functions import (  # noqa: E402
    GCVSpline,
    Multiplier,
    PiecewiseLinear,
    SimmSpline,
)

for _cls in (Constant, Linear, Polynomial, Sinusoid, Step, Spline, SimmSpline, GCVSpline,
             PiecewiseLinear, Multiplier):
    _cls.__qualname__ = f"Function.{_cls.__name__}"
    setattr(Function, _cls.__name__, _cls)
del _cls
