"""RigidTendonMuscle: OpenSim's muscle with an inextensible tendon and no states, its
activation its excitation, its active force-length, passive force-length and
force-velocity relations Functions of one argument (SimmSplines by default), as
OpenSim 4.6 computes it.

The tendon keeps its slack length, so the fiber spans the rest of the path, pennated
with a fixed width h = l_opt sin(phi_opt): l_M = sqrt((l - l_TS)^2 + h^2), none of the
path (and no force) once it is shorter than the tendon. As in OpenSim, the fiber
velocity is the path's lengthening speed itself, the passive multiplier is clamped to
[0, 10], and the excitation is used as it is (not clamped to [0, 1]).
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.actuators._curve_muscle import CurveMuscle, curve
from kinetree.actuators.actuator import (
    AT,
    CONTROL,
    OUT_ACTIVATION,
    OUT_ACTIVE_FIBER_FORCE,
    OUT_EXCITATION,
    OUT_FIBER_LENGTH,
    OUT_FIBER_VELOCITY,
    OUT_FORCE,
    OUT_NORMALIZED_FIBER_LENGTH,
    OUT_PASSIVE_FIBER_FORCE,
    OUT_PENNATION_ANGLE,
    OUT_POWER,
    OUT_TENDON_FORCE,
    OUT_TENDON_LENGTH,
)
from kinetree.jit import helper
from kinetree.registry import ACTUATORS

_SQRT_EPS = math.sqrt(float(np.finfo(float).eps))

_PROPERTIES = {
    "max_isometric_force": 1000.0,
    "optimal_fiber_length": 0.1,
    "tendon_slack_length": 0.2,
    "pennation_angle_at_optimal": 0.0,
    "max_contraction_velocity": 10.0,
    "ignore_tendon_compliance": False,
    "ignore_activation_dynamics": False,
}
(P_FISO, P_LOPT, P_LTS, P_PHI_OPT, P_VMAX, P_RIGID, P_NO_ACTIVATION,
 # derived: the fiber's width (m), and where each curve's record begins (from at)
 P_WIDTH, P_AT_FAL, P_AT_FPE, P_AT_FV) = range(11)
_HEAD = 11

CURVES = ("active_force_length_curve", "passive_force_length_curve", "force_velocity_curve")
"""Its Function properties, each of one argument: the active force-length multiplier of
the normalized fiber length, the passive one, and the force-velocity multiplier of the
normalized fiber velocity (shortening negative)."""

# OpenSim's default curves, SimmSplines through these points
_DEFAULT_POINTS = {
    "active_force_length_curve": (
        [-5.307692, -4.307692, -1.923077, -0.884615, -0.269231, 0.230769, 0.461538,
         0.52725, 0.62875, 0.71875, 0.86125, 1.045, 1.2175, 1.43875, 1.5, 1.615385, 2.0,
         2.961538, 3.692308, 5.461538, 9.901902],
        [0.012188, 0.021899, 0.036466, 0.052493, 0.075312, 0.114158, 0.157859, 0.226667,
         0.636667, 0.856667, 0.95, 0.993333, 0.77, 0.246667, 0.193821, 0.133252, 0.072683,
         0.044417, 0.036341, 0.021899, 0.007332]),
    "passive_force_length_curve": (
        [-5.0, 0.998, 0.999, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.601, 1.602, 5.0],
        [0.0, 0.0, 0.0, 0.0, 0.035, 0.12, 0.26, 0.55, 1.17, 2.0, 2.0, 2.0, 2.0]),
    "force_velocity_curve": (
        [-1.001] + [round(-1.0 + 0.05 * k, 2) for k in range(41)],
        [0.0, 0.0, 0.010417, 0.021739, 0.034091, 0.047619, 0.0625, 0.078947, 0.097222,
         0.117647, 0.140625, 0.166667, 0.196429, 0.230769, 0.270833, 0.318182, 0.375,
         0.444444, 0.53125, 0.642857, 0.791667, 1.0, 1.482014, 1.601571, 1.655791,
         1.686739, 1.706751, 1.720753, 1.731099, 1.739055, 1.745365, 1.75049, 1.754736,
         1.758312, 1.761364, 1.763999, 1.766298, 1.768321, 1.770115, 1.771717, 1.773155,
         1.774455]),
}

class RigidTendonMuscle(CurveMuscle):
    """``RigidTendonMuscle(name, path, active_force_length_curve=None,
    passive_force_length_curve=None, force_velocity_curve=None, **properties)``:
    OpenSim's muscle of that name (module docstring). Its curves are kinetree Functions
    of one argument (SimmSpline, PiecewiseLinear, Spline, Linear, Constant, ...; None:
    OpenSim's default SimmSpline); its properties are OpenSim's, SI units. It has no
    states: its activation is its excitation."""

    CODE = ACTUATORS["rigid_tendon_muscle"]
    PROPERTIES = _PROPERTIES
    STATES = ()
    CURVES = CURVES
    DEFAULT_POINTS = _DEFAULT_POINTS
    HEAD = _HEAD

    def __init__(self, name: str, path=None, active_force_length_curve=None,
                 passive_force_length_curve=None, force_velocity_curve=None, **properties):
        super().__init__(name, path, dict(zip(CURVES, (
            active_force_length_curve, passive_force_length_curve, force_velocity_curve))),
            **properties)

    def check_properties(self, where: str) -> None:
        self.positive(where, self.properties, "max_isometric_force", "optimal_fiber_length",
                      "max_contraction_velocity")
        self.check_tendon_and_pennation(where)

    def _derived(self) -> list[float]:
        p = self.properties
        return [p["optimal_fiber_length"] * math.sin(p["pennation_angle_at_optimal"])]


default_curve = RigidTendonMuscle.default_curve


@helper(error_model="numpy")
def fiber_dynamics(af, at, activation, length, speed, out):
    """The muscle of parameters af[at:] at ``activation`` on a path of ``length`` (m)
    lengthening at ``speed`` (m/s): fills ``out`` (``actuator.OUT_*``) as OpenSim's
    length, velocity and dynamics infos and returns the tendon force (N)."""
    fiso, lopt, lts, width = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS], \
        af[at + P_WIDTH]
    along = length - lts
    along = 0.0 if along < 0.0 else along
    if width > _SQRT_EPS:
        lce = math.sqrt(along * along + width * width)
        cos_phi = along / lce
    else:
        lce = along
        cos_phi = 1.0
    lce_n = lce / lopt
    fal = curve(af, at + int(af[at + P_AT_FAL]), out, lce_n)
    fpe = min(max(curve(af, at + int(af[at + P_AT_FPE]), out, lce_n), 0.0), 10.0)
    fv = curve(af, at + int(af[at + P_AT_FV]), out, speed / (lopt * af[at + P_VMAX]))
    active = fiso * (activation * fal * fv)
    passive = fiso * fpe
    tension = (active + passive) * cos_phi
    out[OUT_FORCE] = tension
    out[OUT_ACTIVATION] = activation
    out[OUT_FIBER_LENGTH] = lce
    out[OUT_FIBER_VELOCITY] = speed
    out[OUT_TENDON_LENGTH] = lts
    out[OUT_TENDON_FORCE] = tension
    out[OUT_ACTIVE_FIBER_FORCE] = active
    out[OUT_PASSIVE_FIBER_FORCE] = passive
    out[OUT_PENNATION_ANGLE] = math.acos(cos_phi)
    out[OUT_NORMALIZED_FIBER_LENGTH] = lce_n
    out[OUT_POWER] = -tension * speed
    return tension


# ---------------------------------------------------------------- the kind's functions
@helper(forceinline=False, error_model="numpy")
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """The muscle's tendon force (N) and outputs at its excitation (``fiber_dynamics``);
    it has no states."""
    excitation = controls[ai[CONTROL]]
    tension = fiber_dynamics(af, ai[AT], excitation, length, speed, out)
    out[OUT_EXCITATION] = excitation
    return tension


@helper(forceinline=False)
def equilibrate(ai, af, z, controls, length, speed, out):
    """Nothing to balance: a rigid tendon has no fiber state. 0."""
    return 0
