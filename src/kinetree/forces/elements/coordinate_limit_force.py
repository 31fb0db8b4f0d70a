"""Force.CoordinateLimitForce: OpenSim's smooth limit on one coordinate, a spring and damper
that fade in past each end of the coordinate's range."""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._mobility import MobilityForce, q_index, u_index
from kinetree.forces.elements._stations import finite
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["coordinate_limit_force"]


def _parameters(where, upper_stiffness, upper_limit, lower_stiffness, lower_limit, damping,
                transition) -> list[float]:
    values = [finite(upper_stiffness, where, "upper_stiffness", 0.0),
              finite(upper_limit, where, "upper_limit"),
              finite(lower_stiffness, where, "lower_stiffness", 0.0),
              finite(lower_limit, where, "lower_limit"),
              finite(damping, where, "damping", 0.0),
              finite(transition, where, "transition", 0.0)]
    if values[5] == 0.0:
        raise InvalidArgumentError(
            f"{where}: the transition width is 0; the stiffness needs a range to fade in "
            "over, so pass a transition > 0 (OpenSim's default is 0.1 degree or metre).")
    return values


class CoordinateLimitForce(MobilityForce):
    """``CoordinateLimitForce(forces, mobod, which, upper_stiffness, upper_limit,
    lower_stiffness, lower_limit, damping, transition)``: OpenSim's CoordinateLimitForce on
    coordinate ``which`` of ``mobod`` (its q and u), in SI units: limits and transition
    width in rad (or m), stiffnesses in N m/rad (or N/m), damping in N m s/rad (or
    N s/m). (OpenSim's file gives rotational ones in degrees; ``load_osim`` converts.)

    With s(x) = x³(10 - 15x + 6x²) on [0, 1] (0 below, 1 above; Simbody's Step) and w the
    transition width, past the upper limit q_up the stiffness is K_up s((q - q_up)/w),
    below the lower limit q_low it is K_low s((q_low - q)/w), and the generalized force is

        f = -K_up s_up (q - q_up) + K_low s_low (q_low - q) - c (s_up + s_low) u,

    zero inside the range. Its potential energy is OpenSim's, that of the spring alone:
    with δ the distance past the limit and K its full stiffness, K x³(2 - 5x/2 + 6x²/7) δ²
    with x = δ/w while δ < w, and K (δ²/2 - w²/7) beyond. Parameters may differ per State
    (``set_limits``, ``set_stiffness``, ``set_damping``)."""

    CODE = CODE
    STAGE = Stage.VELOCITY
    USES_Q = True

    def __init__(self, forces, mobod, which, upper_stiffness, upper_limit, lower_stiffness,
                 lower_limit, damping, transition):
        self._set_mobility(mobod, which)
        super().__init__(forces, _parameters("Force.CoordinateLimitForce", upper_stiffness,
                                             upper_limit, lower_stiffness, lower_limit,
                                             damping, transition))

    def check_parameters(self, params) -> str | None:
        """As the setters keep them: stiffnesses, damping and transition >= 0, and a
        transition > 0."""
        try:
            _parameters("Force.CoordinateLimitForce", *params)
        except InvalidArgumentError as error:
            return str(error).rstrip(".")
        return None

    def _set(self, state, where, **changes) -> None:
        names = ("upper_stiffness", "upper_limit", "lower_stiffness", "lower_limit",
                 "damping", "transition")
        current = dict(zip(names, self._params(state), strict=True))
        current.update(changes)
        self._set_params(state, 0, _parameters(where, *(current[n] for n in names)))

    def set_limits(self, state, lower_limit, upper_limit) -> CoordinateLimitForce:
        """q_low and q_up (rad or m) in ``state``; backs the State up to VELOCITY."""
        self._set(state, "Force.CoordinateLimitForce.set_limits", lower_limit=lower_limit,
                  upper_limit=upper_limit)
        return self

    def set_stiffness(self, state, lower_stiffness, upper_stiffness) -> CoordinateLimitForce:
        """K_low and K_up (>= 0) in ``state``."""
        self._set(state, "Force.CoordinateLimitForce.set_stiffness",
                  lower_stiffness=lower_stiffness, upper_stiffness=upper_stiffness)
        return self

    def set_damping(self, state, damping) -> CoordinateLimitForce:
        """c (>= 0) in ``state``."""
        self._set(state, "Force.CoordinateLimitForce.set_damping", damping=damping)
        return self

    def get_upper_stiffness(self, state) -> float:
        return float(self._params(state)[0])

    def get_upper_limit(self, state) -> float:
        return float(self._params(state)[1])

    def get_lower_stiffness(self, state) -> float:
        return float(self._params(state)[2])

    def get_lower_limit(self, state) -> float:
        return float(self._params(state)[3])

    def get_damping(self, state) -> float:
        return float(self._params(state)[4])

    def get_transition(self, state) -> float:
        return float(self._params(state)[5])


@helper
def _step(x):
    """Simbody's stepUp: 0 for x <= 0, 1 for x >= 1, x³(10 - 15x + 6x²) between."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * x * (10.0 + x * (6.0 * x - 15.0))


@helper
def _energy(K, delta, w):
    if delta >= w:
        return K * ((-2.0 / 14.0) * w * w + 0.5 * delta * delta)
    x = delta / w
    return K * x * x * x * (2.0 - 2.5 * x + (6.0 / 7.0) * x * x) * (delta * delta)


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [K_up, q_up, K_low, q_low, c, w]."""
    qi = q[q_index(tree, fi)]
    k_up, q_up, k_low, q_low, c, w = ff[0], ff[1], ff[2], ff[3], ff[4], ff[5]
    s_up = _step((qi - q_up) / w)
    s_low = _step((q_low - qi) / w)
    if s_up == 0.0 and s_low == 0.0:
        return 0.0
    iu = u_index(tree, fi)
    mobility_forces[iu] += (-k_up * s_up * (qi - q_up) + k_low * s_low * (q_low - qi)
                           - c * (s_up + s_low) * u[iu])
    if qi > q_up:
        return _energy(k_up, qi - q_up, w)
    if qi < q_low:
        return _energy(k_low, q_low - qi, w)
    return 0.0
