"""What OpenSim's muscles whose relations are Functions of one argument share
(RigidTendonMuscle, Schutte1993Muscle_Deprecated): the curves given, or OpenSim's
default SimmSplines, each compiled as a Function record in the muscle's parameters after
its head; their reading from an .osim file; the checks of the tendon and pennation
properties; and the evaluation of one curve in compiled code."""

from __future__ import annotations

import math

from kinetree.actuators.actuator import OUT_POWER, Muscle
from kinetree.errors import InvalidArgumentError
from kinetree.io.osim_functions import function_of
from kinetree.jit import helper
from kinetree.math import function_table
from kinetree.math.functions import Function
from kinetree.math.opensim_functions import SimmSpline

ARGUMENT = OUT_POWER
"""The column of ``out`` that holds a curve's argument while it is evaluated: the
records read their argument from an array, and the outputs are one at hand (the muscle
writes its power last)."""


class CurveMuscle(Muscle):
    """A muscle whose ``CURVES`` (property names, in the order of its parameters) are
    Functions of one argument, OpenSim's ``DEFAULT_POINTS`` (x, y of a SimmSpline) where
    not given. Its parameters are its properties, then ``_derived()`` (its head ends at
    ``HEAD``), then where each curve's record begins (from its first parameter), then the
    records."""

    CURVES: tuple[str, ...] = ()
    DEFAULT_POINTS: dict = {}
    HEAD = 0

    def __init__(self, name: str, path=None, curves: dict | None = None, **properties):
        self.curves = {}
        for key in self.CURVES:
            function = (curves or {}).get(key)
            function = self.default_curve(key) if function is None else function
            if function_table.record(function, [ARGUMENT]) is None:
                raise InvalidArgumentError(
                    f"{type(self).__name__} {name!r}: {key} is {type(function).__name__}; "
                    f"it must be a Function of one argument kinetree compiles (SimmSpline, "
                    f"PiecewiseLinear, Spline, Polynomial, Linear, Constant, GCVSpline, "
                    f"or a Multiplier of one).")
            self.curves[key] = function
        super().__init__(name, path, **properties)

    @classmethod
    def default_curve(cls, name: str) -> Function:
        """OpenSim's default Function of the curve property ``name``."""
        return SimmSpline(*cls.DEFAULT_POINTS[name])

    @classmethod
    def osim_properties(cls, element) -> dict:
        """Its properties in an .osim element, its curves as Functions: a
        ``<active_force_length_curve>`` holding a ``<SimmSpline>`` (or another Function),
        or a ``<SimmSpline name="active_force_length_curve">`` (OpenSim 4's form of the
        deprecated muscles), and the like."""
        found = super().osim_properties(element)
        where = f"{element.tag} {element.get('name')!r}"
        for key in cls.CURVES:
            holder = element.find(key)
            inner = None if holder is None else next(iter(holder), None)
            if inner is None:
                inner = next((child for child in element if child.get("name") == key),
                             None)
            if inner is not None:
                found[key] = function_of(inner, f"{where}: {key}")
        return found

    def check_tendon_and_pennation(self, where: str) -> None:
        """Refuse a negative tendon slack length or a pennation outside [0, pi/2)."""
        p = self.properties
        if not p["tendon_slack_length"] >= 0.0:
            raise InvalidArgumentError(
                f"{where}: tendon_slack_length is {p['tendon_slack_length']}; it must be "
                f">= 0.")
        if not 0.0 <= p["pennation_angle_at_optimal"] < math.pi / 2:
            raise InvalidArgumentError(
                f"{where}: pennation_angle_at_optimal is {p['pennation_angle_at_optimal']}"
                f"; it must be in [0, pi/2) rad.")

    def _derived(self) -> list[float]:
        """The parameters it derives from its properties (between them and the curves'
        starts)."""
        return []

    def _params(self) -> list[float]:
        records = [function_table.record(self.curves[key], [ARGUMENT])
                   for key in self.CURVES]
        starts, at = [], self.HEAD
        for r in records:
            starts.append(float(at))
            at += len(r)
        return ([float(v) for v in self.properties.values()] + self._derived() + starts
                + [float(v) for r in records for v in r])


@helper(error_model="numpy")
def curve(af, at, out, x):
    """The curve whose record is at af[at:] at argument ``x`` (``out[ARGUMENT]`` holds
    it meanwhile)."""
    out[ARGUMENT] = x
    return function_table.evaluate(af, at, out)[0]
