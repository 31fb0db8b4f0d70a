"""DeGrooteFregly2016Muscle: OpenSim's Hill-type muscle of De Groote et al. (2016), made
for optimal control: analytic curves (a sum of three Gaussian-like terms for the active
force-length relation, exponentials for the passive fiber and the tendon, an inverse
hyperbolic sine for force-velocity), a pennated fiber of constant width, and the
normalized tendon force as its elastic state, as OpenSim 4.6 computes it.

Its states are the activation (its own tanh-smoothed first-order dynamics) and the
normalized tendon force F_T / max_isometric_force, less those its options drop:
``ignore_activation_dynamics`` (the activation is the excitation) and
``ignore_tendon_compliance`` (the tendon keeps its slack length). With an elastic tendon
the state sets the tendon length through the inverse tendon curve, the fiber length
follows from the path, and the fiber velocity inverts the force-velocity curve at the
force the tendon leaves the active fiber. OpenSim's "explicit" tendon dynamics only:
its "implicit" mode belongs to direct collocation, where a solver sets the derivative.

Two of OpenSim's arithmetic choices are kept as they are, for agreement: the fiber
velocity along the tendon is the fiber velocity divided (not multiplied) by
cos(pennation), and neither the activation nor the excitation is clamped. One is not:
OpenSim 4.6 reads the activation time constants and smoothing of the first
DeGrooteFregly2016Muscle it computes into function-static variables and uses them for
every such muscle after; kinetree uses each muscle's own.
"""

from __future__ import annotations

import math

from kinetree.actuators._pennation import SIGNIFICANT_REAL
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

_PROPERTIES = {
    "max_isometric_force": 1000.0,
    "optimal_fiber_length": 0.1,
    "tendon_slack_length": 0.2,
    "pennation_angle_at_optimal": 0.0,
    "max_contraction_velocity": 10.0,
    "ignore_tendon_compliance": False,
    "ignore_activation_dynamics": False,
    "activation_time_constant": 0.015,
    "deactivation_time_constant": 0.060,
    "default_activation": 0.5,
    "default_normalized_tendon_force": 0.5,
    "active_force_width_scale": 1.0,
    "fiber_damping": 0.0,
    "passive_fiber_strain_at_one_norm_force": 0.6,
    "tendon_strain_at_one_norm_force": 0.049,
    "ignore_passive_fiber_force": False,
    "activation_dynamics_smoothing": 0.1,
}
(P_FISO, P_LOPT, P_LTS, P_PHI_OPT, P_VMAX, P_RIGID, P_NO_ACTIVATION, P_TAU_ACTIVATION,
 P_TAU_DEACTIVATION, P_DEFAULT_ACTIVATION, P_DEFAULT_TENDON_FORCE, P_WIDTH_SCALE,
 P_DAMPING, P_FIBER_STRAIN, P_TENDON_STRAIN, P_NO_PASSIVE, P_SMOOTHING) = range(17)
NUM_PARAMS = 17

# the curves' constants, De Groote et al.'s: active force-length (three Gaussian-like
# terms b1 exp(-(x - b2)^2 / (2 (b3 + b4 x)^2))), passive, tendon, force-velocity
_B = ((0.8150671134243542, 1.055033428970575, 0.162384573599574, 0.063303448465465),
      (0.433004984392647, 0.716775413397760, -0.029947116970696, 0.200356847296188),
      (0.1, 1.0, 0.353553390593274, 0.0))
_KPE = 4.0
_C1, _C2, _C3 = 0.200, 1.0, 0.200
_D1, _D2, _D3, _D4 = -0.3211346127989808, -8.149, -0.374, 0.8825327733249912
MIN_NORM_FIBER_LENGTH = 0.2
"""Where the passive fiber curve is 0 (it is negative below), of the fiber length over
the optimal."""
MIN_NORM_TENDON_FORCE, MAX_NORM_TENDON_FORCE = 0.0, 5.0
"""The bounds of the normalized tendon force, between which ``equilibrate`` searches."""
BISECTION_TOLERANCE = 1e-10
BISECTION_ITERATIONS = 100

FAILED_BRACKET = 1
"""``equilibrate``'s code when the force balance has the same sign at both bounds."""


class DeGrooteFregly2016Muscle(Muscle):
    """``DeGrooteFregly2016Muscle(name, path, **properties)``: OpenSim's muscle of that
    name (module docstring), its properties OpenSim's in SI units with OpenSim's
    defaults. Its states are ``activation`` and ``normalized_tendon_force``, less those
    its options drop."""

    CODE = ACTUATORS["degroote_fregly2016_muscle"]
    PROPERTIES = _PROPERTIES
    STATES = ("activation", "normalized_tendon_force")

    @classmethod
    def osim_properties(cls, element) -> dict:
        """Its properties in an .osim ``<DeGrooteFregly2016Muscle>``, refusing OpenSim's
        implicit tendon dynamics (``tendon_compliance_dynamics_mode``)."""
        mode = (element.findtext("tendon_compliance_dynamics_mode") or "explicit").strip()
        if mode != "explicit":
            raise InvalidArgumentError(
                f"{element.tag} {element.get('name')!r}: tendon_compliance_dynamics_mode "
                f"is {mode!r}; kinetree simulates the 'explicit' mode only (the implicit "
                f"one is for direct collocation): set it to 'explicit'.")
        return super().osim_properties(element)

    def check_properties(self, where: str) -> None:
        p = self.properties
        self.positive(where, p, "max_isometric_force", "optimal_fiber_length",
                      "tendon_slack_length", "max_contraction_velocity",
                      "activation_time_constant", "deactivation_time_constant",
                      "default_activation", "passive_fiber_strain_at_one_norm_force",
                      "tendon_strain_at_one_norm_force", "activation_dynamics_smoothing")
        if not MIN_NORM_TENDON_FORCE <= p["default_normalized_tendon_force"] \
                <= MAX_NORM_TENDON_FORCE:
            raise InvalidArgumentError(
                f"{where}: default_normalized_tendon_force is "
                f"{p['default_normalized_tendon_force']}; it must be in [0, 5].")
        if not p["active_force_width_scale"] >= 1.0:
            raise InvalidArgumentError(
                f"{where}: active_force_width_scale is {p['active_force_width_scale']}; "
                f"it must be >= 1.")
        if not p["fiber_damping"] >= 0.0:
            raise InvalidArgumentError(
                f"{where}: fiber_damping is {p['fiber_damping']}; it must be >= 0.")
        if not 0.0 <= p["pennation_angle_at_optimal"] <= math.pi / 2 - SIGNIFICANT_REAL:
            raise InvalidArgumentError(
                f"{where}: pennation_angle_at_optimal is {p['pennation_angle_at_optimal']}"
                f"; it must be in [0, pi/2) rad.")

    def _states(self) -> tuple[str, ...]:
        return tuple(s for s, dropped in (
            ("activation", self.properties["ignore_activation_dynamics"]),
            ("normalized_tendon_force", self.properties["ignore_tendon_compliance"]))
            if not dropped)

    def _initial_z(self) -> list[float]:
        defaults = {"activation": self.properties["default_activation"],
                    "normalized_tendon_force":
                        self.properties["default_normalized_tendon_force"]}
        return [defaults[s] for s in self._states()]

    def get_normalized_tendon_force(self, state) -> float:
        """Its tendon force over max_isometric_force: the state, or (rigid tendon) from
        its fiber, realized at DYNAMICS."""
        found = self._z(state, "normalized_tendon_force", "get_normalized_tendon_force")
        if found is None:
            return self.get_tendon_force(state) / self.properties["max_isometric_force"]
        return float(found[0][found[1]])

    def set_normalized_tendon_force(self, state, value: float) -> None:
        self._set_z(state, "normalized_tendon_force", value, "set_normalized_tendon_force")

    def failure(self, code: int) -> str:
        if code == FAILED_BRACKET:
            return ("its fiber and tendon forces cannot balance at any normalized tendon "
                    "force in [0, 5] (as in OpenSim, whose equilibrateMuscles fails there "
                    "too): check its tendon_slack_length and optimal_fiber_length against "
                    "its path's length")
        return super().failure(code)


# ---------------------------------------------------------------- the curves
@helper(error_model="numpy")
def active_force_length(normalized_fiber_length, width_scale):
    """The active force-length multiplier at fiber length over optimal, the curve
    widened by ``width_scale`` about 1."""
    x = (normalized_fiber_length - 1.0) / width_scale + 1.0
    total = 0.0
    for b1, b2, b3, b4 in _B:
        d = x - b2
        e = b3 + b4 * x
        total = total + b1 * math.exp(-0.5 * (d * d) / (e * e))
    return total


@helper(error_model="numpy")
def passive_force_length(normalized_fiber_length, strain_at_one):
    """The passive fiber force over max_isometric_force: exponential, 0 at 0.2 of the
    optimal length and 1 at the strain ``strain_at_one``."""
    offset = math.exp(_KPE * (MIN_NORM_FIBER_LENGTH - 1.0) / strain_at_one)
    denominator = math.exp(_KPE) - offset
    return (math.exp(_KPE * (normalized_fiber_length - 1.0) / strain_at_one) - offset) \
        / denominator


@helper(error_model="numpy")
def tendon_stiffness_parameter(strain_at_one):
    """The exponent's rate k_T of the tendon curve reaching 1 at ``strain_at_one``."""
    return math.log((1.0 + _C3) / _C1) / (1.0 + strain_at_one - _C2)


@helper(error_model="numpy")
def tendon_force_length(normalized_tendon_length, kt):
    """(f_T, d f_T / d(l_T / l_TS)): c1 exp(k_T (l - c2)) - c3, the tendon force over
    max_isometric_force at tendon length over slack length."""
    return (_C1 * math.exp(kt * (normalized_tendon_length - _C2)) - _C3,
            _C1 * kt * math.exp(kt * (normalized_tendon_length - _C2)))


@helper(error_model="numpy")
def tendon_length_of_force(normalized_tendon_force, kt):
    """The tendon length over slack length where the tendon pulls
    ``normalized_tendon_force``: the inverse of ``tendon_force_length``."""
    return math.log((1.0 / _C1) * (normalized_tendon_force + _C3)) / kt + _C2


@helper(error_model="numpy")
def force_velocity(normalized_fiber_velocity):
    """The force-velocity multiplier at the fiber velocity over v_max l_opt (negative
    shortening): d1 asinh(d2 v + d3) + d4, written as OpenSim writes it."""
    t = _D2 * normalized_fiber_velocity + _D3
    return _D1 * math.log(t + math.sqrt(t * t + 1.0)) + _D4


@helper(error_model="numpy")
def force_velocity_inverse(multiplier):
    """The normalized fiber velocity where ``force_velocity`` is ``multiplier``."""
    return (math.sinh(1.0 / _D1 * (multiplier - _D4)) - _D3) / _D2


# ---------------------------------------------------------------- the muscle
@helper(error_model="numpy")
def fiber_dynamics(af, at, activation, normalized_tendon_force, length, speed,
                   explicit, out):
    """The muscle of parameters af[at:] at ``activation`` on a path of ``length`` (m)
    lengthening at ``speed`` (m/s), with an elastic tendon at ``normalized_tendon_force``:
    fills ``out`` (``actuator.OUT_*``) as OpenSim's length, velocity and dynamics infos
    and returns (tendon force (N), fiber force along the tendon (N), tendon length over
    slack length, its rate (1/s)). ``explicit``: the fiber velocity inverts the force-velocity curve
    (OpenSim's explicit tendon dynamics); otherwise the tendon is held at its length
    and the fiber takes the whole path's speed (the equilibrium's, and a rigid
    tendon's)."""
    fiso, lopt, lts = af[at + P_FISO], af[at + P_LOPT], af[at + P_LTS]
    rigid = af[at + P_RIGID] != 0.0
    kt = tendon_stiffness_parameter(af[at + P_TENDON_STRAIN])
    width = lopt * math.sin(af[at + P_PHI_OPT])
    # lengths
    if rigid:
        tendon_n = 1.0
    else:
        tendon_n = tendon_length_of_force(normalized_tendon_force, kt)
    tendon_length = lts * tendon_n
    along = length - tendon_length
    lce = math.sqrt(along * along + width * width)
    lce_n = lce / lopt
    cos_phi = along / lce
    phi = math.asin(width / lce)
    fpe = 0.0
    if af[at + P_NO_PASSIVE] == 0.0:
        fpe = passive_force_length(lce_n, af[at + P_FIBER_STRAIN])
    fal = active_force_length(lce_n, af[at + P_WIDTH_SCALE])
    # velocities
    vmax = af[at + P_VMAX] * lopt
    if explicit and not rigid:
        fv = (normalized_tendon_force / cos_phi - fpe) / (activation * fal)
        dlce_n = force_velocity_inverse(fv)
        dlce = dlce_n * vmax
        tendon_velocity_n = (speed - dlce / cos_phi) / lts
    else:
        dlce = speed * cos_phi
        dlce_n = dlce / vmax
        fv = force_velocity(dlce_n)
        tendon_velocity_n = 0.0
    # forces
    active = fiso * (activation * fal * fv)
    elastic = fiso * fpe
    damping = fiso * af[at + P_DAMPING] * dlce_n
    fiber_along = (active + elastic + damping) * cos_phi
    tension = fiber_along if rigid else fiso * normalized_tendon_force
    out[OUT_FORCE] = tension
    out[OUT_ACTIVATION] = activation
    out[OUT_FIBER_LENGTH] = lce
    out[OUT_FIBER_VELOCITY] = dlce
    out[OUT_TENDON_LENGTH] = tendon_length
    out[OUT_TENDON_FORCE] = tension
    out[OUT_ACTIVE_FIBER_FORCE] = active
    out[OUT_PASSIVE_FIBER_FORCE] = elastic + damping
    out[OUT_PENNATION_ANGLE] = phi
    out[OUT_NORMALIZED_FIBER_LENGTH] = lce_n
    out[OUT_POWER] = -tension * speed
    return tension, fiber_along, tendon_n, tendon_velocity_n


@helper(error_model="numpy")
def activation_rate(activation, excitation, tau_activation, tau_deactivation, smoothing):
    """da/dt (1/s) of De Groote et al.'s activation dynamics: (u - a) over a time
    constant blended by 0.5 tanh(smoothing (u - a)) between the activation one, times
    (0.5 + 1.5 a), and the deactivation one, over it; a and u are not clamped."""
    factor = 0.5 + 1.5 * activation
    rising = 1.0 / (tau_activation * factor)
    falling = factor / tau_deactivation
    f = 0.5 * math.tanh(smoothing * (excitation - activation))
    return (rising * (f + 0.5) + falling * (-f + 0.5)) * (excitation - activation)


@helper(error_model="numpy")
def equilibrium_residual(af, at, activation, normalized_tendon_force, length, speed, out):
    """The tendon force less the fiber force along the tendon (over max_isometric_force)
    at ``normalized_tendon_force``, the tendon's length held (OpenSim's
    calcEquilibriumResidual with a zero tendon force derivative)."""
    fiber_along = fiber_dynamics(af, at, activation, normalized_tendon_force, length,
                                 speed, False, out)[1]
    return normalized_tendon_force - fiber_along / af[at + P_FISO]


@helper(error_model="numpy")
def equilibrium_tendon_force(af, at, activation, length, speed, out):
    """(normalized tendon force, status) balancing fiber and tendon at the path's
    ``length`` (m) and ``speed`` (m/s), the tendon's length held: OpenSim's bisection
    over [0, 5] to 1e-10, at most 100 halvings. Status FAILED_BRACKET when the balance
    has the same sign at both ends (``out`` is scratch)."""
    left, right = MIN_NORM_TENDON_FORCE, MAX_NORM_TENDON_FORCE
    at_left = equilibrium_residual(af, at, activation, left, length, speed, out)
    at_right = equilibrium_residual(af, at, activation, right, length, speed, out)
    if at_left * at_right >= 0.0:
        return left, FAILED_BRACKET
    midpoint = left
    iterations = 0
    while iterations < BISECTION_ITERATIONS and (right - left) > BISECTION_TOLERANCE:
        midpoint = 0.5 * (left + right)
        at_mid = equilibrium_residual(af, at, activation, midpoint, length, speed, out)
        if at_mid * at_left < 0.0:
            right = midpoint
        else:
            left = midpoint
            at_left = equilibrium_residual(af, at, activation, left, length, speed, out)
        iterations += 1
    return midpoint, 0


@helper
def _layout(ai, af, z, controls):
    """(activation, its index in z or -1, the tendon force state's index or -1)."""
    at = ai[AT]
    i = ai[Z]
    if af[at + P_NO_ACTIVATION] != 0.0:
        a, ia = controls[ai[CONTROL]], -1
    else:
        a, ia = z[i], i
        i += 1
    it = -1 if af[at + P_RIGID] != 0.0 else i
    return a, ia, it


# ---------------------------------------------------------------- the kind's functions
@helper(forceinline=False, error_model="numpy")
def calc(ai, af, z, zdot, controls, length, speed, R_GB, p_GB, body_forces,
         mobility_forces, out):
    """The muscle's tendon force (N) and outputs (``fiber_dynamics``); da/dt and the
    normalized tendon force's rate (1/s) into ``zdot`` for the states it has."""
    at = ai[AT]
    excitation = controls[ai[CONTROL]]
    a, ia, it = _layout(ai, af, z, controls)
    tension, _, tendon_n, tendon_velocity_n = fiber_dynamics(
        af, at, a, z[it] if it >= 0 else 0.0, length, speed, True, out)
    out[OUT_EXCITATION] = excitation
    if ia >= 0:
        zdot[ia] = activation_rate(a, excitation, af[at + P_TAU_ACTIVATION],
                                   af[at + P_TAU_DEACTIVATION], af[at + P_SMOOTHING])
    if it >= 0:
        kt = tendon_stiffness_parameter(af[at + P_TENDON_STRAIN])
        zdot[it] = tendon_velocity_n * tendon_force_length(tendon_n, kt)[1]
    return tension


@helper(forceinline=False, error_model="numpy")
def equilibrate(ai, af, z, controls, length, speed, out):
    """Set the normalized tendon force state where fiber and tendon balance at the
    path's ``length`` and ``speed`` and the current activation (OpenSim's
    computeInitialFiberEquilibrium, ``equilibrium_tendon_force``); 0, or FAILED_BRACKET
    leaving z as it was. Nothing to do with a rigid tendon."""
    a, ia, it = _layout(ai, af, z, controls)
    if it < 0:
        return 0
    force, status = equilibrium_tendon_force(af, ai[AT], a, length, speed, out)
    if status == 0:
        z[it] = force
    return status
