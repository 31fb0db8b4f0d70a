"""Force.MobilityLinearStop: a one-sided spring-damper keeping a coordinate within limits."""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._mobility import MobilityForce, q_index, u_index
from kinetree.forces.elements._stations import finite
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["mobility_linear_stop"]


def _bounds(where, q_low, q_high) -> list[float]:
    low, high = finite(q_low, where, "q_low"), finite(q_high, where, "q_high")
    if not low <= high:
        raise InvalidArgumentError(f"{where}: need q_low <= q_high; got [{low}, {high}].")
    return [low, high]


class MobilityLinearStop(MobilityForce):
    """Limits q_low <= q <= q_high on coordinate ``which`` (q̇ = u mobilizers). Past a
    limit, with penetration x = q - q_high (> 0) or q - q_low (< 0), the generalized force
    is -k x (1 ± d q̇) (+ above, - below), clamped so that it never pulls the coordinate
    further in: a Hunt-Crossley-like stop that dissipates on impact and release and is
    zero at first touch. Potential energy ½ k x². Bounds, stiffness and dissipation may
    differ per State (``set_bounds``, ``set_material_properties``)."""

    CODE = CODE
    NONNEGATIVE = (0, 1)
    STAGE = Stage.VELOCITY
    USES_Q = True

    def __init__(self, forces, mobod, which, stiffness, dissipation, q_low, q_high):
        where = "Force.MobilityLinearStop"
        self._set_mobility(mobod, which)
        super().__init__(forces, [finite(stiffness, where, "stiffness", 0.0),
                                  finite(dissipation, where, "dissipation", 0.0),
                                  *_bounds(where, q_low, q_high)])

    def check_parameters(self, params) -> str | None:
        """As the setters keep them: k, d >= 0 and q_low <= q_high."""
        try:
            _bounds("Force.MobilityLinearStop", params[2], params[3])
        except InvalidArgumentError as error:
            return str(error).rstrip(".")
        return super().check_parameters(params)

    def set_bounds(self, state, q_low, q_high) -> None:
        """The limits in ``state``; backs the State up to VELOCITY."""
        self._set_params(state, 2, _bounds("Force.MobilityLinearStop.set_bounds", q_low,
                                           q_high))

    def set_material_properties(self, state, stiffness, dissipation) -> None:
        """k (>= 0) and d (>= 0) in ``state``; backs the State up to VELOCITY."""
        where = "Force.MobilityLinearStop.set_material_properties"
        self._set_params(state, 0, [finite(stiffness, where, "stiffness", 0.0),
                                    finite(dissipation, where, "dissipation", 0.0)])

    def get_lower_bound(self, state) -> float:
        return float(self._params(state)[2])

    def get_upper_bound(self, state) -> float:
        return float(self._params(state)[3])

    def get_stiffness(self, state) -> float:
        return float(self._params(state)[0])

    def get_dissipation(self, state) -> float:
        return float(self._params(state)[1])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [k, d, q_low, q_high]."""
    qi = q[q_index(tree, fi)]
    if qi > ff[3]:
        x = qi - ff[3]
    elif qi < ff[2]:
        x = qi - ff[2]
    else:
        return 0.0
    iu = u_index(tree, fi)
    if x > 0.0:
        mobility_forces[iu] += min(0.0, -ff[0] * x * (1.0 + ff[1] * u[iu]))
    else:
        mobility_forces[iu] += max(0.0, -ff[0] * x * (1.0 - ff[1] * u[iu]))
    return 0.5 * ff[0] * x * x
