"""Constraint.ConstantSpeed: one generalized speed held at a set value, u = s (Simbody's
``Constraint::ConstantSpeed``).

verr = u - s, vaerr = u̇; the multiplier is the generalized force λ on that mobility. The
default speed is a topological setting; each State holds its own s, a Velocity-stage
discrete variable of the matter subsystem (``set_speed`` invalidates Velocity and above).
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["constant_speed"]
_WHERE = "Constraint.ConstantSpeed"


# ------------------------------------------------------------------ physics
# cf = [which_u (stored as a float), s]; the one constrained mobilizer's u are u_c.

@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """verr = u - s."""
    uerr[0] = u[int(cf[0])] - cf[1]


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """vaerr = u̇."""
    aerr[0] = udot[int(cf[0])]


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """The generalized force λ on the mobility."""
    f[int(cf[0])] += lam[0]


# ------------------------------------------------------------------ the class
class _ConstantSpeedImplementation(BuiltinImplementation):
    """verr = u - s for one u of one constrained mobilizer."""

    CODE = CODE

    def __init__(self, mobilizer, which_u: int, default_speed: float):
        matter = _checks.same_matter(mobilizer, _WHERE, "the mobilizer")
        ((mobod, which),) = _checks.coordinates(matter, [mobilizer], [which_u], _WHERE,
                                                "mobilizer", "which_u", "u", single=True)
        self._default_speed = _checks.real(default_speed, _WHERE, "the default speed")
        super().__init__(matter, 0, 1, 0)
        self._mobilizer = self.add_constrained_mobilizer(mobod)
        self._which_u = which
        self._speed_index = None

    def realize_topology(self, state) -> None:
        self._speed_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, Stage.VELOCITY, self._default_speed)

    def get_speed(self, state) -> float:
        return float(self.get_matter_subsystem().get_discrete_variable(state, self._slot()))

    def set_speed(self, state, speed: float) -> None:
        self.get_matter_subsystem().set_discrete_variable(state, self._slot(), speed)
        self._parameters_changed(state)

    def _slot(self) -> int:
        if self._speed_index is None:
            raise InvalidArgumentError(
                f"{_WHERE}: the speed lives in the State; call system.realize_topology() "
                f"(after creating the constraint) and use the State it returns.")
        return self._speed_index

    def parameters(self, state) -> np.ndarray:
        return np.array([self._which_u, self.get_speed(state)], dtype=float)


class ConstantSpeed(Constraint):
    """``Constraint.ConstantSpeed(mobilizer, which_u, default_speed)``, or
    ``(mobilizer, default_speed)`` for its first u: holds that generalized speed at s, in
    the u's units (rad/s or m/s)."""

    def __init__(self, mobilizer, *args):
        if len(args) == 1:
            which_u, default_speed = 0, args[0]
        elif len(args) == 2:
            which_u, default_speed = args
        else:
            raise InvalidArgumentError(
                f"{_WHERE}: call it as ConstantSpeed(mobilizer, which_u, default_speed) or "
                f"ConstantSpeed(mobilizer, default_speed).")
        super().__init__(_ConstantSpeedImplementation(mobilizer, which_u, default_speed))

    def get_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_mobilizer(
            self._impl._mobilizer)

    def get_which_u(self) -> int:
        return self._impl._which_u

    def get_default_speed(self) -> float:
        return self._impl._default_speed

    def set_default_speed(self, speed: float) -> ConstantSpeed:
        """The s new States start with (a topological change)."""
        self._impl._default_speed = _checks.real(speed, f"{self._name()}.set_default_speed",
                                                 "speed")
        self._impl.invalidate_topology_cache()
        return self

    def set_speed(self, state, speed: float) -> None:
        """This State's s (invalidates its Velocity stage and above)."""
        self._impl.set_speed(state, _checks.real(speed, f"{self._name()}.set_speed", "speed"))

    def get_speed(self, state) -> float:
        return self._impl.get_speed(state)

    def get_velocity_error(self, state) -> float:
        """u - s (VELOCITY)."""
        return _checks.one(self, self.get_velocity_errors_as_vector(state),
                           "get_velocity_error")

    def get_acceleration_error(self, state) -> float:
        """u̇ (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")

    def get_multiplier(self, state) -> float:
        """λ; the generalized force the constraint applies to its mobility is -λ
        (ACCELERATION)."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")
