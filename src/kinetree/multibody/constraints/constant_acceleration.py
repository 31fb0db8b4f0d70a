"""Constraint.ConstantAcceleration: one generalized acceleration held at a set value, u̇ = a
(Simbody's ``Constraint::ConstantAcceleration``).

An acceleration-only equation: aerr = u̇ - a, with no position or velocity condition (so
nothing to project); the multiplier is the generalized force λ on that mobility. The
default is a topological setting; each State holds its own a, an Acceleration-stage
discrete variable of the matter subsystem (``set_acceleration`` invalidates Acceleration).
What it shares with ConstantSpeed is in ``_one_mobility.py``.
"""

from __future__ import annotations

from kinetree.jit import helper
from kinetree.multibody.constraints import _checks, _one_mobility
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["constant_acceleration"]


# ------------------------------------------------------------------ physics
# cf = [which_u (stored as a float), a]; the one constrained mobilizer's u̇ are udot_c.

@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """aerr = u̇ - a."""
    aerr[0] = udot[int(cf[0])] - cf[1]


forces = _one_mobility.forces


# ------------------------------------------------------------------ the class
class _ConstantAccelerationImplementation(_one_mobility.OneMobilityImplementation):
    """aerr = u̇ - a for one u of one constrained mobilizer."""

    CODE = CODE
    WHERE = "Constraint.ConstantAcceleration"
    QUANTITY = "acceleration"
    STAGE = Stage.ACCELERATION
    COUNTS = (0, 0, 1)


class ConstantAcceleration(_one_mobility.OneMobilityConstraint):
    """``Constraint.ConstantAcceleration(mobilizer, which_u, default_acceleration)``, or
    ``(mobilizer, default_acceleration)`` for its first u: holds that generalized
    acceleration u̇ at a, in the u's units per second (rad/s² or m/s²)."""

    _implementation = _ConstantAccelerationImplementation

    def get_default_acceleration(self) -> float:
        return self._impl._default

    def set_default_acceleration(self, accel: float) -> ConstantAcceleration:
        """The a new States start with (a topological change)."""
        self._set_default(accel, "set_default_acceleration")
        return self

    def set_acceleration(self, state, accel: float) -> None:
        """This State's a (invalidates its Acceleration stage)."""
        self._set_value(state, accel, "set_acceleration")

    def get_acceleration(self, state) -> float:
        return self._impl.get_value(state)

    def get_acceleration_error(self, state) -> float:
        """u̇ - a (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")
