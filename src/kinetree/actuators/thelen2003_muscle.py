"""Thelen2003Muscle: OpenSim's Hill-type muscle of Thelen (2003), an elastic tendon in
series with a fiber whose force-length, passive and tendon curves are exponentials and
whose fiber velocity comes from inverting Thelen's force-velocity relation, with a
fixed-width pennation model (``_pennation.py``) and first-order activation dynamics
(``_activation.py``), as OpenSim 4.6 computes it.

Its states are the activation and the fiber length (m). The fiber never gets shorter
than the pennation model's minimum length: a fiber state below it is read as the
minimum, and a fiber at the minimum that would shorten stays still and its active force
vanishes (OpenSim's "clamped" fiber), while the tendon keeps the force of its length.
Beyond its valid range (no force, or past a threshold of the eccentric asymptote) the
force-velocity relation is extrapolated linearly, so the fiber velocity is finite at
every force.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.actuators._activation import activation_rate, clamp_activation
from kinetree.actuators._pennation import (
    SIGNIFICANT_REAL,
    fiber_length_from_along_tendon,
    pennation_angle,
    pennation_constants,
)
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

_SQRT_EPS = math.sqrt(float(np.finfo(float).eps))
EQUILIBRIUM_ITERATIONS = 20
"""OpenSim's limit on the Newton iterations of the initial fiber-tendon force balance."""
FV_INVERSE_ITERATIONS = 100
"""OpenSim's limit on the Newton iterations inverting the force-velocity relation."""

_PROPERTIES = {
    "max_isometric_force": 1000.0,
    "optimal_fiber_length": 0.1,
    "tendon_slack_length": 0.2,
    "pennation_angle_at_optimal": 0.0,
    "max_contraction_velocity": 10.0,
    "ignore_tendon_compliance": False,
    "ignore_activation_dynamics": False,
    "default_activation": 0.05,
    "default_fiber_length": 0.1,
    "FmaxTendonStrain": 0.04,
    "FmaxMuscleStrain": 0.6,
    "KshapeActive": 0.45,
    "KshapePassive": 5.0,
    "Af": 0.25,
    "Flen": 1.4,
    "fv_linear_extrap_threshold": 0.95,
    "maximum_pennation_angle": math.acos(0.1),
    "activation_time_constant": 0.015,
    "deactivation_time_constant": 0.050,
    "minimum_activation": 0.01,
}
# the parameters: the properties in order, then constants derived from them
(P_FISO, P_LOPT, P_LTS, P_PHI_OPT, P_VMAX, P_RIGID, P_NO_ACTIVATION,
 P_DEFAULT_ACTIVATION, P_DEFAULT_FIBER_LENGTH, P_TENDON_STRAIN, P_MUSCLE_STRAIN,
 P_K_ACTIVE, P_K_PASSIVE, P_AF, P_FLEN, P_FV_THRESHOLD, P_MAX_PENNATION, P_TAU_ACTIVATION,
 P_TAU_DEACTIVATION, P_MIN_ACTIVATION,
 # the pennation model's height, sin(max pennation), minimum fiber length (also along
 # the tendon), and the tendon curve's toe strain and linear stiffness
 P_HEIGHT, P_SIN_MAX, P_MIN_LENGTH, P_MIN_ALONG, P_TOE_STRAIN, P_TENDON_STIFFNESS,
 ) = range(26)
NUM_PARAMS = 26

FAILED_EQUILIBRIUM = 1
"""``equilibrate``'s code when the force balance was not met in 20 Newton iterations."""
FAILED_FV_INVERSE = 2
"""``equilibrate``'s code when the force-velocity relation could not be inverted."""

# Thelen's tendon curve: an exponential toe of shape 3 up to 0.33 of the maximum
# isometric force, then a line reaching 1 at the strain FmaxTendonStrain
_K_TOE = 3.0
_F_TOE = 33.0 / 100.0


def tendon_toe(tendon_strain_at_one: float) -> tuple[float, float]:
    """(strain where the toe ends, slope of the linear part per unit strain) of Thelen's
    tendon curve reaching 1 at ``tendon_strain_at_one``: the exact values of the toe and
    line meeting with a continuous slope, of which the paper's 0.609 e0 is a rounding."""
    e3 = math.exp(0.3e1)
    toe = (0.99e2 * tendon_strain_at_one * e3) / (0.166e3 * e3 - 0.67e2)
    stiffness = (0.67e2 / 0.100e3) * 1.0 / (
        tendon_strain_at_one - (0.99e2 * tendon_strain_at_one * e3) / (0.166e3 * e3 - 0.67e2))
    return toe, stiffness


class Thelen2003Muscle(Muscle):
    """``Thelen2003Muscle(name, path, **properties)``: OpenSim's muscle of that name
    (module docstring), its properties OpenSim's in SI units with OpenSim's defaults.
    OpenSim implements neither ignore_tendon_compliance nor ignore_activation_dynamics
    for it, and refuses them; so does kinetree. Its states are ``activation`` and
    ``fiber_length`` (m)."""

    CODE = ACTUATORS["thelen2003_muscle"]
    PROPERTIES = _PROPERTIES
    STATES = ("activation", "fiber_length")

    def check_properties(self, where: str) -> None:
        p = self.properties
        self.positive(where, p, "max_isometric_force", "optimal_fiber_length",
                      "tendon_slack_length", "max_contraction_velocity", "FmaxTendonStrain",
                      "FmaxMuscleStrain", "KshapeActive", "KshapePassive", "Af",
                      "activation_time_constant", "deactivation_time_constant")
        for key in ("ignore_tendon_compliance", "ignore_activation_dynamics"):
            if p[key]:
                raise InvalidArgumentError(
                    f"{where}: {key} is true, which OpenSim does not implement for "
                    f"Thelen2003Muscle; set it false, or use Millard2012EquilibriumMuscle.")
        if not p["Flen"] > 1.0:
            raise InvalidArgumentError(f"{where}: Flen is {p['Flen']}; it must be > 1.")
        if not p["fv_linear_extrap_threshold"] > 1.0 / p["Flen"]:
            raise InvalidArgumentError(
                f"{where}: fv_linear_extrap_threshold is {p['fv_linear_extrap_threshold']}"
                f"; it must be > 1/Flen = {1.0 / p['Flen']:.6g}.")
        if not 0.0 <= p["pennation_angle_at_optimal"] <= math.pi / 2 - SIGNIFICANT_REAL:
            raise InvalidArgumentError(
                f"{where}: pennation_angle_at_optimal is {p['pennation_angle_at_optimal']}"
                f"; it must be in [0, pi/2) rad.")
        if not 0.0 <= p["maximum_pennation_angle"] <= math.pi / 2:
            raise InvalidArgumentError(
                f"{where}: maximum_pennation_angle is {p['maximum_pennation_angle']}; it "
                f"must be in [0, pi/2] rad.")
        if not 0.01 <= p["minimum_activation"] <= 1.0 - SIGNIFICANT_REAL:
            raise InvalidArgumentError(
                f"{where}: minimum_activation is {p['minimum_activation']}; it must be in "
                f"[0.01, 1) (the fiber velocity is singular at zero activation).")

    def _params(self) -> list[float]:
        p = self.properties
        h, sin_max, minimum, along = pennation_constants.py_func(
            p["optimal_fiber_length"], p["pennation_angle_at_optimal"],
            p["maximum_pennation_angle"])
        return [float(v) for v in p.values()] + [h, sin_max, minimum, along,
                                                  *tendon_toe(p["FmaxTendonStrain"])]

    def _initial_z(self) -> list[float]:
        return [self.properties["default_activation"],
                self.properties["default_fiber_length"]]

    def get_minimum_fiber_length(self) -> float:
        """The shortest its fiber gets (m): the pennation model's minimum."""
        return self._params()[P_MIN_LENGTH]

    def failure(self, code: int) -> str:
        if code == FAILED_EQUILIBRIUM:
            return (f"its fiber and tendon forces could not be balanced in "
                    f"{EQUILIBRIUM_ITERATIONS} Newton iterations (as in OpenSim, whose "
                    f"equilibrateMuscles fails there too): check its tendon_slack_length "
                    f"and optimal_fiber_length against its path's length")
        if code == FAILED_FV_INVERSE:
            return (f"its force-velocity relation could not be inverted in "
                    f"{FV_INVERSE_ITERATIONS} Newton iterations while balancing the fiber "
                    f"and the tendon (OpenSim fails there too)")
        return super().failure(code)


# ---------------------------------------------------------------- the curves
@helper(error_model="numpy")
def tendon_force_length(normalized_tendon_length, toe_strain, stiffness):
    """(f_SE, d f_SE / d(l_T / l_TS)): the tendon force over max_isometric_force at
    tendon length over slack length, 0 when slack."""
    x = normalized_tendon_length - 1.0
    if x > toe_strain:
        return stiffness * (x - toe_strain) + _F_TOE, stiffness
    if x > 0.0:
        scale = _F_TOE / (math.exp(_K_TOE) - 1.0)
        return (scale * (math.exp(_K_TOE * x / toe_strain) - 1.0),
                scale * (_K_TOE / toe_strain) * math.exp(_K_TOE * x / toe_strain))
    return 0.0, 0.0


@helper(error_model="numpy")
def active_force_length(normalized_fiber_length, k_active):
    """(f_L, d f_L / d(l_M / l_opt)): the Gaussian exp(-(l - 1)^2 / KshapeActive)."""
    t = normalized_fiber_length - 1.0
    x = t * t
    inverse = 1.0 / k_active
    return math.exp(-x / k_active), -2.0 * t * inverse * math.exp(-x * inverse)


@helper(error_model="numpy")
def passive_force_length(normalized_fiber_length, muscle_strain, k_passive):
    """(f_PE, d f_PE / d(l_M / l_opt)): the passive fiber force over max_isometric_force,
    exponential in strain past the optimal length (reaching 1 at FmaxMuscleStrain), 0
    below."""
    if normalized_fiber_length > 1.0:
        inverse = 1.0 / muscle_strain
        denominator = math.exp(k_passive) - 1.0
        return ((math.exp(k_passive * (normalized_fiber_length - 1.0) / muscle_strain) - 1.0)
                / denominator,
                k_passive * inverse * math.exp(
                    k_passive * (normalized_fiber_length - 1.0) * inverse) / denominator)
    return 0.0, 0.0


@helper(error_model="numpy")
def normalized_fiber_velocity(a, fal, force, af, flen, threshold):
    """(v_M / (v_max l_opt), its derivative with respect to ``force``) at the active
    fiber force a f_L f_V = ``force`` (over max_isometric_force): Thelen's equations 6
    and 7 between no force and ``threshold`` times the eccentric asymptote a f_L Flen,
    extrapolated along their tangent outside."""
    afl = a * fal
    eccentric = afl * flen
    inside = force > 0.0 and force < eccentric * threshold
    if inside:
        at, concentric = force, force <= afl
    elif force <= 0.0:
        at, concentric = 0.0, True
    else:
        at, concentric = threshold * eccentric, False
    if concentric:
        b = afl + at / af
        db = 1.0 / af
    else:
        b = ((2.0 + 2.0 / af) * (afl * flen - at)) / (flen - 1.0)
        db = ((2.0 + 2.0 / af) * (-1.0)) / (flen - 1.0)
    scale = 0.25 + 0.75 * a
    velocity = scale * (at - afl) / b
    slope = scale * 1.0 / b - (scale * (at - afl) / (b * b)) * db
    if inside:
        return velocity, slope
    return velocity + slope * (force - at), slope


@helper(error_model="numpy")
def force_velocity_inverse(a, fal, velocity, af, flen, threshold, tolerance):
    """(f_V, converged): the force-velocity multiplier at normalized fiber velocity
    ``velocity`` and a f_L, by Newton's method on ``normalized_fiber_velocity`` from f_V
    = 1 to ``tolerance`` in velocity, at most 100 steps, then kept >= 0."""
    error = 1.0
    force = a * fal
    iterations = 0
    while abs(error) >= tolerance and iterations < FV_INVERSE_ITERATIONS:
        v, slope = normalized_fiber_velocity(a, fal, force, af, flen, threshold)
        error = v - velocity
        if abs(slope) > SIGNIFICANT_REAL:
            force = force - error / slope
        iterations += 1
    if abs(error) < tolerance:
        fv = force / (a * fal)
        return (fv if fv > 0.0 else 0.0), True
    return np.nan, False


# ---------------------------------------------------------------- the muscle
@helper(error_model="numpy")
def fiber_dynamics(af, at, activation, fiber_length, length, speed, out):
    """The muscle of parameters af[at:] with ``activation`` (clamped) and fiber length
    state ``fiber_length`` (m) on a path of ``length`` (m) lengthening at ``speed``
    (m/s): fills ``out`` (``actuator.OUT_*``) as OpenSim's length, velocity and dynamics
    infos, and returns (tendon force (N), fiber velocity (m/s)). The fiber velocity
    inverts the force-velocity relation at the force the tendon and the passive fiber
    leave to the active fiber."""
    fiso, lopt, lts = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS]
    h, lmin = af[at + P_HEIGHT], af[at + P_MIN_LENGTH]
    lce = max(lmin, fiber_length)
    lce_n = lce / lopt
    phi = pennation_angle(lce, af[at + P_PHI_OPT], af[at + P_MAX_PENNATION], h,
                          af[at + P_SIN_MAX], lmin)
    cos_phi = math.cos(phi)
    tendon_length = length - lce * cos_phi
    fpe = passive_force_length(lce_n, af[at + P_MUSCLE_STRAIN], af[at + P_K_PASSIVE])[0]
    fal = active_force_length(lce_n, af[at + P_K_ACTIVE])[0]
    fse = tendon_force_length(tendon_length / lts, af[at + P_TOE_STRAIN],
                              af[at + P_TENDON_STIFFNESS])[0]
    # the active fiber force the tendon and the passive element leave, a f_L f_V
    afalfv = (fse / cos_phi) - fpe
    fv = afalfv / (activation * fal)
    dlce_n = normalized_fiber_velocity(activation, fal, afalfv, af[at + P_AF],
                                       af[at + P_FLEN], af[at + P_FV_THRESHOLD])[0]
    dlce = dlce_n * af[at + P_VMAX] * lopt
    active = 0.0
    if fiber_length <= lmin and dlce_n <= 0.0:
        dlce = 0.0
    else:
        active = (activation * fal * fv) * fiso
    tension = fse * fiso
    out[OUT_FORCE] = tension
    out[OUT_ACTIVATION] = activation
    out[OUT_FIBER_LENGTH] = lce
    out[OUT_FIBER_VELOCITY] = dlce
    out[OUT_TENDON_LENGTH] = tendon_length
    out[OUT_TENDON_FORCE] = tension
    out[OUT_ACTIVE_FIBER_FORCE] = active
    out[OUT_PASSIVE_FIBER_FORCE] = fpe * fiso
    out[OUT_PENNATION_ANGLE] = phi
    out[OUT_NORMALIZED_FIBER_LENGTH] = lce_n
    out[OUT_POWER] = -tension * speed
    return tension, dlce


@helper(error_model="numpy")
def _balance(af, at, lce, length):
    """(phi, cos(phi), tendon length (m), f_L, f_PE, f_SE) of fiber length ``lce`` (m)
    on a muscle of ``length`` (m)."""
    lopt, lts = af[at + P_LOPT], af[at + P_LTS]
    phi = pennation_angle(lce, af[at + P_PHI_OPT], af[at + P_MAX_PENNATION],
                          af[at + P_HEIGHT], af[at + P_SIN_MAX], af[at + P_MIN_LENGTH])
    cos_phi = math.cos(phi)
    tl = length - lce * cos_phi
    fse = tendon_force_length(tl / lts, af[at + P_TOE_STRAIN],
                              af[at + P_TENDON_STIFFNESS])[0]
    fal = active_force_length(lce / lopt, af[at + P_K_ACTIVE])[0]
    fpe = passive_force_length(lce / lopt, af[at + P_MUSCLE_STRAIN],
                               af[at + P_K_PASSIVE])[0]
    return phi, cos_phi, tl, fal, fpe, fse


@helper(error_model="numpy")
def _balance_slopes(af, at, a, fv, lce, phi, cos_phi, tl, fm):
    """(d(F_M cos(phi))/d l_M, the same times cos(phi), dF_T/d l_T, dF_T/d l_M) (N/m)
    at fiber length ``lce`` (m), fiber force ``fm`` (N) and tendon length ``tl`` (m),
    the force-velocity multiplier ``fv`` held."""
    fiso, lopt, lts, h = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS], af[at + P_HEIGHT]
    lce_n = lce / lopt
    dfal = active_force_length(lce_n, af[at + P_K_ACTIVE])[1]
    dfpe = passive_force_length(lce_n, af[at + P_MUSCLE_STRAIN], af[at + P_K_PASSIVE])[1]
    dfm = ((a * fv) * dfal + dfpe) * fiso * (1.0 / lopt)
    hh = h * h
    ll = lce * lce
    dcos = hh / (ll * lce * math.pow(1.0 - hh / ll, 0.5))
    dfm_at = dfm * cos_phi + fm * dcos
    dfse = tendon_force_length(tl / lts, af[at + P_TOE_STRAIN],
                               af[at + P_TENDON_STIFFNESS])[1]
    dft_dtl = dfse * (fiso / lts)
    r = h / lce
    dphi = -h / (lce * lce * math.pow(1.0 - r * r, 0.5))
    dtl = -math.cos(phi) + lce * math.sin(phi) * dphi
    return dfm_at, dfm_at * cos_phi, dft_dtl, dfse * dtl * (fiso / lts)


@helper(error_model="numpy")
def _moving_fiber_fv(af, at, a, speed, fal, cos_phi, tl, dfm_at_at, dft_dtl, tol):
    """(force-velocity multiplier, converged) of the fiber of the muscle of parameters
    af[at:] on a path lengthening at ``speed`` (m/s): the fiber takes the share of the
    speed the tendon's and the fiber's stiffnesses along the tendon leave it (all of it
    with a slack tendon of length ``tl`` (m)), as OpenSim's computeFiberEquilibrium."""
    if abs(dfm_at_at + dft_dtl) > SIGNIFICANT_REAL and tl > af[at + P_LTS]:
        dtl = (dfm_at_at / (dfm_at_at + dft_dtl)) * speed
    else:
        dtl = speed
    velocity = (speed - dtl) * cos_phi / (af[at + P_VMAX] * af[at + P_LOPT])
    return force_velocity_inverse(a, fal, velocity, af[at + P_AF], af[at + P_FLEN],
                                  af[at + P_FV_THRESHOLD], tol)


@helper(error_model="numpy")
def equilibrium_fiber_length(af, at, a, length, speed):
    """(fiber length (m), status) balancing the fiber force along the tendon with the
    tendon force at activation ``a``, path ``length`` (m) and lengthening ``speed``
    (m/s), OpenSim's initMuscleState: damped Newton steps from a tendon 1% past slack to
    1e-8 max_isometric_force, the fiber velocity taken as the share of the path's speed
    that the fiber's stiffness leaves it (rigid while the tendon is slack). Status 0
    when balanced or when the fiber ends at its minimum length, FAILED_EQUILIBRIUM after
    20 iterations, FAILED_FV_INVERSE when the force-velocity relation cannot be inverted
    on the way."""
    fiso, lts = af[at + P_FISO], af[at + P_LTS]
    lmin = af[at + P_MIN_LENGTH]
    tol = max(1e-8 * fiso, SIGNIFICANT_REAL * 10.0)
    lce = fiber_length_from_along_tendon(length - lts * 1.01, af[at + P_HEIGHT], lmin,
                                         af[at + P_MIN_ALONG])
    phi, cos_phi, tl, fal, fpe, fse = _balance(af, at, lce, length)
    fv = 1.0
    fm = 0.0
    dfm_at, dfm_at_at, dft_dtl, dft_dlce = _balance_slopes(af, at, a, fv, lce, phi,
                                                           cos_phi, tl, fm)
    fv, ok = _moving_fiber_fv(af, at, a, speed, fal, cos_phi, tl, dfm_at_at, dft_dtl, tol)
    if not ok:
        return lce, FAILED_FV_INVERSE
    fm = (a * fal * fv + fpe) * fiso
    err = fm * cos_phi - fse * fiso
    dfm_at, dfm_at_at, dft_dtl, dft_dlce = _balance_slopes(af, at, a, fv, lce, phi,
                                                           cos_phi, tl, fm)
    err_prev, lce_prev = err, lce
    iteration = 0
    while abs(err) > tol and iteration < EQUILIBRIUM_ITERATIONS:
        slope = dfm_at - dft_dlce
        step = 1.0
        while abs(err) >= abs(err_prev):
            delta = -step * err_prev / slope
            if abs(delta) > SIGNIFICANT_REAL:
                lce = lce_prev + delta
            else:
                lce = lce_prev - (1.0 if delta > 0.0 else -1.0 if delta < 0.0 else 0.0) \
                    * _SQRT_EPS
                step = 0.0
            if lce < lmin:
                lce = lmin
            phi, cos_phi, tl, fal, fpe, fse = _balance(af, at, lce, length)
            fm = (a * fal * fv + fpe) * fiso
            err = fm * cos_phi - fse * fiso
            if step <= _SQRT_EPS:
                break
            step = 0.5 * step
        err_prev, lce_prev = err, lce
        dfm_at, dfm_at_at, dft_dtl, dft_dlce = _balance_slopes(af, at, a, fv, lce, phi,
                                                               cos_phi, tl, fm)
        fv, ok = _moving_fiber_fv(af, at, a, speed, fal, cos_phi, tl, dfm_at_at, dft_dtl,
                                  tol)
        if not ok:
            return lce, FAILED_FV_INVERSE
        iteration += 1
    if abs(err) < tol:
        return lce, 0
    if lce <= lmin:
        return lmin, 0
    return lce, FAILED_EQUILIBRIUM


# ---------------------------------------------------------------- the kind's functions
@helper(forceinline=False, error_model="numpy")
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """The muscle's tendon force (N) and outputs (``fiber_dynamics``); da/dt and the
    fiber velocity (m/s) into ``zdot``."""
    at = ai[AT]
    excitation = controls[ai[CONTROL]]
    ia = ai[Z]
    a = clamp_activation(z[ia], af[at + P_MIN_ACTIVATION])
    tension, dlce = fiber_dynamics(af, at, a, z[ia + 1], length, speed, out)
    out[OUT_EXCITATION] = excitation
    zdot[ia] = activation_rate(a, excitation, af[at + P_TAU_ACTIVATION],
                               af[at + P_TAU_DEACTIVATION], af[at + P_MIN_ACTIVATION])
    zdot[ia + 1] = dlce
    return tension


@helper(forceinline=False, error_model="numpy")
def equilibrate(ai, af, z, controls, length, speed, out):
    """Set the fiber length state where the fiber force balances the tendon's at the
    path's ``length`` and ``speed`` and the current activation (OpenSim's
    computeInitialFiberEquilibrium, ``equilibrium_fiber_length``); 0, or a failure code
    leaving z as it was."""
    at = ai[AT]
    a = clamp_activation(z[ai[Z]], af[at + P_MIN_ACTIVATION])
    lce, status = equilibrium_fiber_length(af, at, a, length, speed)
    if status == 0:
        z[ai[Z] + 1] = lce
    return status
