"""Millard2012EquilibriumMuscle: OpenSim's Hill-type muscle of Millard et al. (2013), its
fiber and elastic tendon in force equilibrium, with smooth segmented curves for the
active and passive force-length, force-velocity and tendon force-length relations
(``_smooth_segmented.py``), a fixed-width (constant-thickness) pennation model and
first-order activation dynamics, as OpenSim 4.6 computes it.

Its options: ``ignore_tendon_compliance`` (a rigid tendon: the fiber length follows the
path, no fiber state), ``ignore_activation_dynamics`` (activation is the excitation, no
activation state), and ``fiber_damping`` (0: the fiber velocity from the inverse
force-velocity curve, singular at zero activation; > 0, the default 0.1: the damped
equilibrium solved for the fiber velocity). OpenSim adjusts the curves
to the option in use, and so does this module: the damped and the rigid-tendon models
use an active force-length minimum of 0 and force-velocity end slopes of 0, the undamped
elastic model a minimum of at least 0.1 and concentric and eccentric end slopes of at
least half the near-end slopes. The fiber never gets shorter than its minimum length
(where the active force-length curve starts, or where the pennation reaches its maximum);
there its velocity is 0 and it carries no force.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.actuators import _smooth_segmented as curves
from kinetree.actuators._smooth_segmented import SIGNIFICANT_REAL, curve
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
    Muscle,
    Z,
)
from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.registry import ACTUATORS

_EPS = float(np.finfo(float).eps)
_SQRT_EPS = math.sqrt(_EPS)
MIN_DAMPING = 0.001
"""OpenSim's smallest fiber damping in use: a smaller one is the undamped model."""
EQUILIBRIUM_ITERATIONS = 200
"""OpenSim's limit on the Newton iterations of the fiber-tendon force balance."""
DAMPED_ITERATIONS = 20
"""OpenSim's limit on the Newton iterations of the damped fiber velocity."""

_CURVES = {
    "ActiveForceLengthCurve": {
        "min_norm_active_fiber_length": 0.47 - 0.0259,
        "transition_norm_fiber_length": 0.73,
        "max_norm_active_fiber_length": 1.8123,
        "shallow_ascending_slope": 0.8616,
        "minimum_value": 0.1,
    },
    "ForceVelocityCurve": {
        "concentric_slope_at_vmax": 0.0,
        "concentric_slope_near_vmax": 0.25,
        "isometric_slope": 5.0,
        "eccentric_slope_at_vmax": 0.0,
        "eccentric_slope_near_vmax": 0.15,
        "max_eccentric_velocity_force_multiplier": 1.4,
        "concentric_curviness": 0.6,
        "eccentric_curviness": 0.9,
    },
    # -1: absent, OpenSim's values fitted to the curve's strains
    "FiberForceLengthCurve": {
        "strain_at_zero_force": 0.0,
        "strain_at_one_norm_force": 0.7,
        "stiffness_at_low_force": -1.0,
        "stiffness_at_one_norm_force": -1.0,
        "curviness": -1.0,
    },
    "TendonForceLengthCurve": {
        "strain_at_one_norm_force": 0.049,
        "stiffness_at_one_norm_force": -1.0,
        "norm_force_at_toe_end": -1.0,
        "curviness": -1.0,
    },
}
_OPTIONAL = {"FiberForceLengthCurve": ("stiffness_at_low_force",
                                       "stiffness_at_one_norm_force", "curviness"),
             "TendonForceLengthCurve": ("stiffness_at_one_norm_force",
                                        "norm_force_at_toe_end", "curviness")}

_MUSCLE = {
    "max_isometric_force": 1000.0,
    "optimal_fiber_length": 0.1,
    "tendon_slack_length": 0.2,
    "pennation_angle_at_optimal": 0.0,
    "max_contraction_velocity": 10.0,
    "ignore_tendon_compliance": False,
    "ignore_activation_dynamics": False,
    "fiber_damping": 0.1,
    "default_activation": 0.05,
    "default_fiber_length": 0.1,
    "activation_time_constant": 0.010,
    "deactivation_time_constant": 0.040,
    "minimum_activation": 0.01,
    "maximum_pennation_angle": math.acos(0.1),
}
# the parameters' order: the muscle's properties, then each curve's as "Curve.property"
(P_FISO, P_LOPT, P_LTS, P_PHI_OPT, P_VMAX, P_RIGID, P_NO_ACTIVATION, P_DAMPING,
 P_DEFAULT_ACTIVATION, P_DEFAULT_FIBER_LENGTH, P_TAU_ACTIVATION, P_TAU_DEACTIVATION,
 P_MIN_ACTIVATION, P_MAX_PENNATION, P_MIN_ACTIVE_LENGTH) = range(15)
_PROPERTIES = dict(_MUSCLE)
for _curve, _values in _CURVES.items():
    _PROPERTIES.update({f"{_curve}.{key}": value for key, value in _values.items()})
# then the pennation model's constants (``geometry``), derived from the properties
(D_H, D_SIN_MAX, D_PENNATED_MIN, D_PENNATED_MIN_AT, D_LCE_MIN) = range(
    len(_PROPERTIES), len(_PROPERTIES) + 5)
# the curves follow: active force-length (5 sections), force-velocity and its inverse (4
# each), fiber and tendon force-length (2 each)
C_FAL = len(_PROPERTIES) + 5
C_FV = C_FAL + curves.curve_size(5)
C_FV_INVERSE = C_FV + curves.curve_size(4)
C_FPE = C_FV_INVERSE + curves.curve_size(4)
C_FSE = C_FPE + curves.curve_size(2)
NUM_PARAMS = C_FSE + curves.curve_size(2)

FAILED_EQUILIBRIUM = 1
"""``equilibrate``'s code when the force balance was not met in 200 iterations."""


class Millard2012EquilibriumMuscle(Muscle):
    """``Millard2012EquilibriumMuscle(name, path, **properties)``: OpenSim's muscle of that
    name (module docstring). Its properties are OpenSim's, in SI units, with OpenSim's
    defaults; its curves' properties are named ``"<Curve>.<property>"`` (e.g.
    ``"TendonForceLengthCurve.strain_at_one_norm_force"``), and the optional ones of the
    fiber and tendon force-length curves are -1 when absent (OpenSim's fitted values).
    Its states are ``activation`` and ``fiber_length`` (m), less those its options drop."""

    CODE = ACTUATORS["millard2012_equilibrium_muscle"]
    PROPERTIES = _PROPERTIES
    STATES = ("activation", "fiber_length")

    @classmethod
    def osim_properties(cls, element) -> dict:
        """Its properties in an .osim ``<Millard2012EquilibriumMuscle>``: the muscle's
        own, and those of its nested ``<ActiveForceLengthCurve>``, ... elements."""
        found = super().osim_properties(element)
        for name, defaults in _CURVES.items():
            nested = element.find(name)
            if nested is None:
                continue
            for key in defaults:
                child = nested.find(key)
                if child is None or child.text is None or not child.text.strip():
                    continue
                try:
                    found[f"{name}.{key}"] = float(child.text)
                except ValueError:
                    raise InvalidArgumentError(
                        f"{element.tag} {element.get('name')!r}: <{name}><{key}> is "
                        f"{child.text.strip()!r:.40}; it must be a number.") from None
        return found

    # ------------------------------------------------------------ properties
    def _curve_properties(self, name: str) -> dict:
        return {key: self.properties[f"{name}.{key}"] for key in _CURVES[name]}

    def _use_damping(self) -> bool:
        return self.properties["fiber_damping"] >= MIN_DAMPING

    def _classic(self) -> bool:
        """Whether the undamped model with an elastic tendon is in use, whose curves
        OpenSim bends away from its singularities."""
        return not self.properties["ignore_tendon_compliance"] and not self._use_damping()

    def check_properties(self, where: str) -> None:
        p = self.properties
        self.positive(where, p, "max_isometric_force", "optimal_fiber_length",
                      "tendon_slack_length", "max_contraction_velocity",
                      "activation_time_constant", "deactivation_time_constant")
        if not 0.0 <= p["pennation_angle_at_optimal"] < math.pi / 2 - SIGNIFICANT_REAL:
            raise InvalidArgumentError(
                f"{where}: pennation_angle_at_optimal is {p['pennation_angle_at_optimal']}"
                f"; it must be in [0, pi/2) rad.")
        if not 0.0 <= p["maximum_pennation_angle"] <= math.pi / 2:
            raise InvalidArgumentError(
                f"{where}: maximum_pennation_angle is {p['maximum_pennation_angle']}; it "
                f"must be in [0, pi/2] rad.")
        if p["fiber_damping"] < 0.0:
            raise InvalidArgumentError(
                f"{where}: fiber_damping is {p['fiber_damping']}; it must be >= 0 (0 for "
                f"the undamped model).")
        lowest = 0.01 if self._classic() else 0.0
        if not lowest <= p["minimum_activation"] < 1.0 - SIGNIFICANT_REAL:
            fix = (" (the undamped model with an elastic tendon is singular at zero "
                   "activation; give fiber_damping > 0 for lower activations)"
                   if self._classic() else "")
            raise InvalidArgumentError(
                f"{where}: minimum_activation is {p['minimum_activation']}; it must be in "
                f"[{lowest}, 1){fix}.")
        for name in _OPTIONAL:
            given = [self.properties[f"{name}.{key}"] != -1.0 for key in _OPTIONAL[name]]
            if any(given) and not all(given):
                raise InvalidArgumentError(
                    f"{where}: {name}: {', '.join(_OPTIONAL[name])} must all be given or "
                    f"all be absent (-1).")
        fv = self._curve_properties("ForceVelocityCurve")
        for key in ("concentric_slope_near_vmax", "eccentric_slope_near_vmax"):
            if fv[key] < _SQRT_EPS:
                raise InvalidArgumentError(
                    f"{where}: ForceVelocityCurve.{key} is {fv[key]}; it must be >= "
                    f"{_SQRT_EPS:.3g}.")
        try:
            self._curves()
        except InvalidArgumentError as error:
            raise InvalidArgumentError(f"{where}: {error}") from None

    def _curves(self) -> np.ndarray:
        """Its five curves as OpenSim builds them for the model in use (module
        docstring), one after the other as the parameters hold them."""
        fal = self._curve_properties("ActiveForceLengthCurve")
        fv = self._curve_properties("ForceVelocityCurve")
        if self._classic():
            fal["minimum_value"] = max(fal["minimum_value"], 0.1)
            for end, near in (("concentric_slope_at_vmax", "concentric_slope_near_vmax"),
                              ("eccentric_slope_at_vmax", "eccentric_slope_near_vmax")):
                fv[end] = max(fv[end], 0.5 * fv[near])
        else:
            fal["minimum_value"] = min(fal["minimum_value"], 0.0)
            fv["concentric_slope_at_vmax"] = min(fv["concentric_slope_at_vmax"], 0.0)
            fv["eccentric_slope_at_vmax"] = min(fv["eccentric_slope_at_vmax"], 0.0)
        # the inverse is built from the near-end slopes, its end slopes half those
        inverse = dict(fv, concentric_slope_at_vmax=0.5 * fv["concentric_slope_near_vmax"],
                       eccentric_slope_at_vmax=0.5 * fv["eccentric_slope_near_vmax"])
        optional = {}
        for name in _OPTIONAL:
            values = self._curve_properties(name)
            optional[name] = {k: (None if v == -1.0 and k in _OPTIONAL[name] else v)
                              for k, v in values.items()}
        return np.concatenate([
            curves.active_force_length_curve(**fal),
            curves.force_velocity_curve(**fv),
            curves.force_velocity_inverse_curve(**inverse),
            curves.fiber_force_length_curve(**optional["FiberForceLengthCurve"]),
            curves.tendon_force_length_curve(**optional["TendonForceLengthCurve"]),
        ])

    def _params(self) -> list[float]:
        properties = [float(v) for v in self.properties.values()]
        return properties + list(_geometry_of(properties)) + list(self._curves())

    def _states(self) -> tuple[str, ...]:
        return tuple(s for s, dropped in (
            ("activation", self.properties["ignore_activation_dynamics"]),
            ("fiber_length", self.properties["ignore_tendon_compliance"])) if not dropped)

    def get_minimum_fiber_length(self) -> float:
        """The shortest its fiber gets (m): where the active force-length curve starts
        or where the pennation reaches its maximum, whichever is longer."""
        return float(geometry.py_func(np.asarray(self._params()), 0)[4])

    def _initial_z(self) -> list[float]:
        z = []
        if not self.properties["ignore_activation_dynamics"]:
            z.append(min(max(self.properties["default_activation"],
                             self.properties["minimum_activation"]), 1.0))
        if not self.properties["ignore_tendon_compliance"]:
            z.append(max(self.properties["default_fiber_length"],
                         self.get_minimum_fiber_length()))
        return z

    def failure(self, code: int) -> str:
        if code == FAILED_EQUILIBRIUM:
            return (f"its fiber and tendon forces could not be balanced in "
                    f"{EQUILIBRIUM_ITERATIONS} Newton iterations (as in OpenSim, whose "
                    f"equilibrateMuscles fails there too): check its tendon_slack_length "
                    f"and optimal_fiber_length against its path's length")
        return super().failure(code)


# ---------------------------------------------------------------- pennation
def _geometry_of(p: list[float]) -> tuple[float, ...]:
    """(parallelogram height h (m), sine of the maximum pennation, the pennation model's
    minimum fiber length (m), the same along the tendon (m), the muscle's minimum fiber
    length (m)) of the muscle of properties ``p`` (in their order): the fixed-width
    pennation keeps the fiber's thickness h = l_opt sin(phi_opt)."""
    lopt, phi_max = p[P_LOPT], p[P_MAX_PENNATION]
    h = lopt * math.sin(p[P_PHI_OPT])
    sin_max = math.sin(phi_max)
    pennated_min = h / sin_max if phi_max > SIGNIFICANT_REAL else lopt * 0.01
    active_min = p[P_MIN_ACTIVE_LENGTH] * lopt
    return (h, sin_max, pennated_min, pennated_min * math.cos(phi_max),
            max(SIGNIFICANT_REAL, max(active_min, pennated_min)))


@helper(error_model="numpy")
def geometry(af, at):
    """``_geometry_of`` the muscle whose parameters begin at af[at], as its parameters
    hold it."""
    return (af[at + D_H], af[at + D_SIN_MAX], af[at + D_PENNATED_MIN],
            af[at + D_PENNATED_MIN_AT], af[at + D_LCE_MIN])


@helper(error_model="numpy")
def pennation_angle(lce, phi_opt, phi_max, h, sin_max, pennated_min):
    """The pennation angle (rad) of a fiber of length lce (m): asin(h / lce), the
    maximum once the fiber is that short, 0 for an unpennated muscle."""
    if phi_opt <= _EPS:
        return 0.0
    if lce > pennated_min:
        s = h / lce
        return math.asin(s) if s < sin_max else phi_max
    return phi_max


@helper(error_model="numpy")
def dpennation_dlength(lce, h):
    """d(phi)/d(lce) (rad/m) of the fixed-width pennation at fiber length lce (m)."""
    r = h / lce
    return (-r / lce) / math.sqrt(1.0 - r * r)


# ---------------------------------------------------------------- physics
@helper(error_model="numpy")
def activation_derivative(activation, excitation, tau_act, tau_deact, min_activation):
    """da/dt (1/s) of OpenSim's first-order activation dynamics: the activation, clamped
    to [min_activation, 1], approaches the excitation with a time constant that grows
    with activation when rising and shrinks when falling."""
    a = min(max(activation, min_activation), 1.0)
    if excitation > a:
        tau = tau_act * (0.5 + 1.5 * a)
    else:
        tau = tau_deact / (0.5 + 1.5 * a)
    return (excitation - a) / tau


@helper(error_model="numpy")
def damped_fiber_velocity(fiso, a, fal, fpe, fse, beta, cos_phi, c, at_fv):
    """(normalized fiber velocity, force-velocity multiplier, converged) where the damped
    fiber force a fal fv + fpe + beta v (times fiso, along the tendon) equals the tendon
    force fse fiso; the velocity is -1 where there is no such root, as OpenSim's.

    The imbalance grows with the velocity, so the root lies in the section of the
    force-velocity curve whose ends' imbalances (at its end control points) have
    opposite signs, or beyond the curve's domain, where it is linear and the root is
    one step away. Inside a section the unknown is its parameter u (v = x(u), fv =
    y(u)), from where the chord between the ends crosses zero, by Halley's method kept
    inside the bracket of u, ending after a step below HALLEY_DONE: the root to
    round-off, where OpenSim's Newton's method in v stops anywhere within 1e-10 fiso
    (the velocities differ by that residual at most)."""
    tol = max(1.0e-10 * fiso, SIGNIFICANT_REAL * 100.0)
    n = int(c[at_fv])
    first = at_fv + curves.HEADER
    last = first + curves.SECTION * (n - 1)

    def imbalance(v, fv):
        return (fiso * (a * fal * fv) + (fiso * fpe + fiso * beta * v)) * cos_phi - fse * fiso

    # beyond the domain: a line
    err_start = imbalance(c[first], c[first + 6])
    err_end = imbalance(c[last + 5], c[last + 11])
    if err_start > 0.0 or err_end < 0.0:
        side = 0 if err_start > 0.0 else 1
        err = err_start if side == 0 else err_end
        v0, fv0, dfv = c[at_fv + 1 + side], c[at_fv + 3 + side], c[at_fv + 5 + side]
        slope = fiso * (a * fal * dfv + beta) * cos_phi
        if not abs(slope) > SIGNIFICANT_REAL:
            return -1.0, fv0, False
        v = v0 - err / slope
        fv = fv0 + dfv * (v - v0)
        if abs(imbalance(v, fv)) <= tol:
            return v, fv, True
        return -1.0, fv, False
    # the section whose end imbalances bracket the root
    k = first
    err_lo = imbalance(c[k], c[k + 6])
    err_hi = imbalance(c[k + 5], c[k + 11])
    while err_hi < 0.0 and k < last:
        k += curves.SECTION
        err_lo = err_hi
        err_hi = imbalance(c[k + 5], c[k + 11])
    if not (err_lo <= 0.0 <= err_hi):
        return -1.0, c[k + 6], False
    lo, hi = 0.0, 1.0
    u = err_lo / (err_lo - err_hi) if err_hi > err_lo else 0.5
    fv = c[k + 6]
    scale = fiso * cos_phi
    for _ in range(DAMPED_ITERATIONS):
        v, dv, ddv, fv, dfv, ddfv = curves.on_section2(c, k, u)
        err = imbalance(v, fv)
        d1 = scale * (a * fal * dfv + beta * dv)
        d2 = scale * (a * fal * ddfv + beta * ddv)
        if err < 0.0:
            lo = u
        else:
            hi = u
        den = 2.0 * d1 * d1 - err * d2
        nxt = u - 2.0 * err * d1 / den if abs(den) > SIGNIFICANT_REAL else -1.0
        if lo <= nxt <= hi:
            if abs(nxt - u) < curves.HALLEY_DONE:
                v, fv, _, _ = curves.on_section(c, k, nxt)
                return v, fv, True
            u = nxt
        elif abs(err) <= tol:
            return v, fv, True
        else:
            u = 0.5 * (lo + hi)
    return -1.0, fv, False


@helper(error_model="numpy")
def fiber_dynamics(af, at, activation, fiber_length, length, speed, out):
    """The muscle of parameters af[at:] with (clamped) ``activation`` and, with an
    elastic tendon, state ``fiber_length`` (m), on a path of ``length`` (m) lengthening
    at ``speed`` (m/s): fills ``out`` (``actuator.OUT_*``) as OpenSim's length, velocity
    and dynamics infos, and returns (tendon force (N), fiber velocity (m/s)). NaN forces
    when the damped fiber velocity does not converge (where OpenSim throws)."""
    fiso, lopt, lts = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS]
    vmax, beta = af[at + P_VMAX], af[at + P_DAMPING]
    rigid = af[at + P_RIGID] != 0.0
    damped = beta >= MIN_DAMPING
    if not damped:
        beta = 0.0
    h, sin_max, pennated_min, pennated_min_at, lce_min = geometry(af, at)
    # lengths
    if rigid:
        along = length - lts
        if along >= pennated_min_at:
            lce = math.sqrt(h * h + along * along)
        else:
            lce = pennated_min
    else:
        lce = fiber_length
    lce = max(lce, lce_min)
    lce_n = lce / lopt
    phi = pennation_angle(lce, af[at + P_PHI_OPT], af[at + P_MAX_PENNATION], h, sin_max,
                          pennated_min)
    cos_phi = math.cos(phi)
    tendon_length = length - lce * cos_phi
    fpe = curve(af, at + C_FPE, lce_n)[0]
    fal = curve(af, at + C_FAL, lce_n)[0]
    # velocities
    fse = np.nan
    if rigid:
        if tendon_length < lts - SIGNIFICANT_REAL:
            dlce, dlce_n, fv = 0.0, 0.0, 1.0
        else:
            dlce = speed * cos_phi
            dlce_n = dlce / (lopt * vmax)
            fv = curve(af, at + C_FV, dlce_n)[0]
    else:
        fse = curve(af, at + C_FSE, tendon_length / lts)[0]
        if damped:
            dlce_n, fv, converged = damped_fiber_velocity(
                fiso, activation, fal, fpe, fse, beta, cos_phi, af, at + C_FV)
            if not converged:
                fse = np.nan
        else:
            fv = (fse / cos_phi - fpe) / (activation * fal)
            dlce_n = curve(af, at + C_FV_INVERSE, fv)[0]
        dlce = dlce_n * vmax * lopt
    clamped = (lce <= lce_min and dlce <= 0.0) or lce < lce_min
    if clamped:
        dlce, dlce_n, fv = 0.0, 0.0, 1.0
    # forces
    active, passive, fiber = 0.0, 0.0, 0.0
    if not clamped:
        active = fiso * (activation * fal * fv)
        elastic = fiso * fpe
        damping = fiso * beta * dlce_n
        passive = elastic + damping
        fiber = active + passive
        if rigid and fiber < 0.0:
            # a rigid tendon cannot push: the damping takes up the rest
            fiber = 0.0
            passive = elastic + (-active - elastic)
    tension = (fiber * cos_phi / fiso if rigid else fse) * fiso
    out[OUT_FORCE] = tension
    out[OUT_ACTIVATION] = activation
    out[OUT_FIBER_LENGTH] = lce
    out[OUT_FIBER_VELOCITY] = dlce
    out[OUT_TENDON_LENGTH] = tendon_length
    out[OUT_TENDON_FORCE] = tension
    out[OUT_ACTIVE_FIBER_FORCE] = active
    out[OUT_PASSIVE_FIBER_FORCE] = passive
    out[OUT_PENNATION_ANGLE] = phi
    out[OUT_NORMALIZED_FIBER_LENGTH] = lce_n
    out[OUT_POWER] = -tension * speed
    return tension, dlce


@helper(error_model="numpy")
def _still_balance(af, at, activation, lce, length):
    """(fiber force along the tendon less the tendon force (N), the fiber force (N), cos
    and sin of the pennation, and the slopes of the active, passive and tendon curves) of
    the still fiber of length lce (m) on a path of ``length`` (m): fv = 1 and no damping
    force."""
    fiso, lopt, lts = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS]
    h, sin_max, pennated_min, _, _ = geometry(af, at)
    phi = pennation_angle(lce, af[at + P_PHI_OPT], af[at + P_MAX_PENNATION], h, sin_max,
                          pennated_min)
    cos_phi, sin_phi = math.cos(phi), math.sin(phi)
    fal, dfal = curve(af, at + C_FAL, lce / lopt)
    fpe, dfpe = curve(af, at + C_FPE, lce / lopt)
    fse, dfse = curve(af, at + C_FSE, (length - lce * cos_phi) / lts)
    fiber = fiso * (activation * fal) + fiso * fpe
    return fiber * cos_phi - fse * fiso, fiber, cos_phi, sin_phi, dfal, dfpe, dfse


@helper(error_model="numpy")
def equilibrium_fiber_length(af, at, activation, length):
    """(fiber length (m), status) where the fiber force along the tendon balances the
    tendon force at a path ``length`` (m), the fiber still (OpenSim's
    estimateMuscleFiberState for computeInitialFiberEquilibrium): damped Newton steps
    from a tendon 1% past slack, to 1e-8 max_isometric_force; status 0 when balanced or
    when the fiber ends at its minimum length, FAILED_EQUILIBRIUM otherwise."""
    fiso, lopt, lts = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS]
    h, sin_max, pennated_min, pennated_min_at, lce_min = geometry(af, at)
    tol = max(1e-8 * fiso, SIGNIFICANT_REAL * 10.0)
    along = length - lts * 1.01
    lce = math.sqrt(h * h + along * along) if along >= pennated_min_at else pennated_min
    lce = max(lce, lce_min)
    err, fiber, cos_phi, sin_phi, dfal, dfpe, dfse = _still_balance(af, at, activation,
                                                                    lce, length)
    err_prev, lce_prev = err, lce
    iteration = 0
    while abs(err) > tol and iteration < EQUILIBRIUM_ITERATIONS:
        dphi = dpennation_dlength(lce, h)
        stiffness = fiso * (activation * (dfal / lopt) + dfpe / lopt)
        dfiber_at = stiffness * cos_phi - fiber * sin_phi * dphi
        dtendon = dfse * fiso / lts * (lce * sin_phi * dphi - cos_phi)
        slope = dfiber_at - dtendon
        step = 1.0
        while abs(err) >= abs(err_prev):
            delta = -step * err_prev / slope
            if abs(delta) > SIGNIFICANT_REAL:
                lce = lce_prev + delta
            else:
                lce = lce_prev - np.sign(delta) * _SQRT_EPS
                step = 0.0
            lce = max(lce, lce_min)
            err, fiber, cos_phi, sin_phi, dfal, dfpe, dfse = _still_balance(
                af, at, activation, lce, length)
            if step <= _SQRT_EPS:
                break
            step *= 0.5
        err_prev, lce_prev = err, lce
        iteration += 1
    if abs(err) < tol:
        return max(lce, lce_min), 0
    if lce <= lce_min:
        return lce_min, 0
    return lce, FAILED_EQUILIBRIUM


@helper(error_model="numpy")
def _activation(ai, af, z, controls):
    """(activation clamped as OpenSim's activation model clamps it, its index in z or -1
    without activation dynamics)."""
    at = ai[AT]
    if af[at + P_NO_ACTIVATION] != 0.0:
        # without activation dynamics OpenSim's activation model keeps its own default
        # minimum, 0.01
        return min(max(controls[ai[CONTROL]], 0.01), 1.0), -1
    return min(max(z[ai[Z]], af[at + P_MIN_ACTIVATION]), 1.0), ai[Z]


# ---------------------------------------------------------------- the kind's functions
@helper(forceinline=False, error_model="numpy")
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """The muscle's tendon force (N) and outputs; da/dt and the fiber velocity (m/s) into
    ``zdot`` for the states it has (``fiber_dynamics``)."""
    at = ai[AT]
    excitation = controls[ai[CONTROL]]
    a, ia = _activation(ai, af, z, controls)
    rigid = af[at + P_RIGID] != 0.0
    il = ai[Z] + (0 if ia < 0 else 1)
    tension, dlce = fiber_dynamics(af, at, a, 0.0 if rigid else z[il], length, speed, out)
    out[OUT_EXCITATION] = excitation
    if ia >= 0:
        zdot[ia] = activation_derivative(z[ia], excitation, af[at + P_TAU_ACTIVATION],
                                         af[at + P_TAU_DEACTIVATION],
                                         af[at + P_MIN_ACTIVATION])
    if not rigid:
        zdot[il] = dlce
    return tension


@helper(forceinline=False, error_model="numpy")
def equilibrate(ai, af, z, controls, length, speed, out):
    """Set the fiber length state where the fiber, still, balances the tendon at the
    path's ``length`` and the current activation (OpenSim's
    computeInitialFiberEquilibrium; ``speed`` is not used); 0, or FAILED_EQUILIBRIUM
    leaving z as it was. Nothing to do with a rigid tendon."""
    at = ai[AT]
    if af[at + P_RIGID] != 0.0:
        return 0
    a, ia = _activation(ai, af, z, controls)
    lce, status = equilibrium_fiber_length(af, at, a, length)
    if status == 0:
        z[ai[Z] + (0 if ia < 0 else 1)] = lce
    return status
