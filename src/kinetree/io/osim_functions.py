"""The numbers and Functions of .osim elements, read alike by the model builder
(``io/osim.py``) and by the elements that read their own properties (a muscle's curves)."""

from __future__ import annotations

import numpy as np

from kinetree.errors import KinetreeError
from kinetree.math.functions import Constant, Function, Linear

__all__ = ["OsimError", "function_of", "number", "numbers"]


class OsimError(KinetreeError):
    """The .osim file cannot be built: the message names the element and what to fix."""


def numbers(element, tag: str, count: int | None, where: str, default=None) -> np.ndarray:
    """The finite numbers of ``element``'s child ``tag`` (``count`` of them unless None),
    or ``default`` where the child is missing or empty."""
    text = element.findtext(tag)
    if text is None or not text.strip():
        if default is not None:
            return np.array(default, dtype=float)
        raise OsimError(f"{where}: <{tag}> is missing.")
    try:
        values = np.array([float(v) for v in text.split()], dtype=float)
    except ValueError:
        raise OsimError(f"{where}: <{tag}> is {text.strip()!r}, not numbers.") from None
    if count is not None and values.size != count:
        raise OsimError(f"{where}: <{tag}> has {values.size} numbers, expected {count}.")
    if not np.all(np.isfinite(values)):
        raise OsimError(f"{where}: <{tag}> has a non-finite number: {text.strip()!r}.")
    return values


def number(element, tag: str, where: str, default: float | None = None) -> float:
    """The one number of ``element``'s child ``tag``, or ``default``."""
    return float(numbers(element, tag, 1, where, None if default is None else [default])[0])


def function_of(f, where: str, nargs: int = 1) -> Function:
    """The kinetree Function of the OpenSim Function element ``f``, taking ``nargs``
    arguments (a Constant any number, the others one)."""
    tag = f.tag
    fwhere = f"{where} {tag}"
    if tag == "Constant":
        return Constant(number(f, "value", fwhere), nargs)
    if tag == "LinearFunction":
        return _one_argument(Linear(numbers(f, "coefficients", 2, fwhere)), nargs, fwhere)
    if tag in ("SimmSpline", "NaturalCubicSpline", "PiecewiseLinearFunction"):
        x, y = numbers(f, "x", None, fwhere), numbers(f, "y", None, fwhere)
        cls = {"SimmSpline": "SimmSpline", "NaturalCubicSpline": "Spline",
               "PiecewiseLinearFunction": "PiecewiseLinear"}[tag]
        return _one_argument(getattr(Function, cls)(x, y), nargs, fwhere)
    if tag == "GCVSpline":      # OpenSim refits it from x and y; so does kinetree
        return _one_argument(Function.GCVSpline(
            2 * int(number(f, "half_order", fwhere)) - 1, numbers(f, "x", None, fwhere),
            numbers(f, "y", None, fwhere), number(f, "error_variance", fwhere, 0.0)),
            nargs, fwhere)
    if tag == "PolynomialFunction":
        c = numbers(f, "coefficients", None, fwhere)
        return _one_argument(Function.Polynomial(c), nargs, fwhere)
    if tag == "MultiplierFunction":
        inner = next((c for c in f.findall("function/*")), None)
        if inner is None:
            raise OsimError(f"{fwhere}: <function> is empty.")
        scale = number(f, "scale", fwhere, 1.0)
        return Function.Multiplier(function_of(inner, fwhere, nargs), scale)
    raise OsimError(f"{fwhere}: kinetree has no such function; supported are Constant, "
                    "LinearFunction, SimmSpline, NaturalCubicSpline, GCVSpline, "
                    "PiecewiseLinearFunction, PolynomialFunction, MultiplierFunction.")


def _one_argument(f: Function, nargs: int, where: str) -> Function:
    if nargs != 1:
        raise OsimError(f"{where}: a function of one coordinate, but the axis names "
                        f"{nargs}.")
    return f
