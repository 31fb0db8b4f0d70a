"""Constraint.ConstantSpeed: one generalized speed held at a set value, u = s (Simbody's
``Constraint::ConstantSpeed``).

verr = u - s, vaerr = u̇; the multiplier is the generalized force λ on that mobility. The
default speed is a topological setting; each State holds its own s, a Velocity-stage
discrete variable of the matter subsystem (``set_speed`` invalidates Velocity and above).
What it shares with ConstantAcceleration is in ``_one_mobility.py``.
"""

from __future__ import annotations

from kinetree.jit import helper
from kinetree.multibody.constraints import _checks, _one_mobility
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["constant_speed"]


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


forces = _one_mobility.forces


# ------------------------------------------------------------------ the class
class _ConstantSpeedImplementation(_one_mobility.OneMobilityImplementation):
    """verr = u - s for one u of one constrained mobilizer."""

    CODE = CODE
    WHERE = "Constraint.ConstantSpeed"
    QUANTITY = "speed"
    STAGE = Stage.VELOCITY
    COUNTS = (0, 1, 0)


class ConstantSpeed(_one_mobility.OneMobilityConstraint):
    """``Constraint.ConstantSpeed(mobilizer, which_u, default_speed)``, or
    ``(mobilizer, default_speed)`` for its first u: holds that generalized speed at s, in
    the u's units (rad/s or m/s)."""

    _implementation = _ConstantSpeedImplementation

    def get_default_speed(self) -> float:
        return self._impl._default

    def set_default_speed(self, speed: float) -> ConstantSpeed:
        """The s new States start with (a topological change)."""
        self._set_default(speed, "set_default_speed")
        return self

    def set_speed(self, state, speed: float) -> None:
        """This State's s (invalidates its Velocity stage and above)."""
        self._set_value(state, speed, "set_speed")

    def get_speed(self, state) -> float:
        return self._impl.get_value(state)

    def get_velocity_error(self, state) -> float:
        """u - s (VELOCITY)."""
        return _checks.one(self, self.get_velocity_errors_as_vector(state),
                           "get_velocity_error")

    def get_acceleration_error(self, state) -> float:
        """u̇ (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")
