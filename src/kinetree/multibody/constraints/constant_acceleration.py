"""Constraint.ConstantAcceleration: one generalized acceleration held at a set value, u̇ = a
(Simbody's ``Constraint::ConstantAcceleration``).

An acceleration-only equation: aerr = u̇ - a, with no position or velocity condition (so
nothing to project); the multiplier is the generalized force λ on that mobility. The
default is a topological setting; each State holds its own a, an Acceleration-stage
discrete variable of the matter subsystem (``set_acceleration`` invalidates Acceleration).
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["constant_acceleration"]
_WHERE = "Constraint.ConstantAcceleration"


# ------------------------------------------------------------------ physics
# cf = [which_u (stored as a float), a]; the one constrained mobilizer's u̇ are udot_c.

@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """aerr = u̇ - a."""
    aerr[0] = udot[int(cf[0])] - cf[1]


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """The generalized force λ on the mobility."""
    f[int(cf[0])] += lam[0]


# ------------------------------------------------------------------ the class
class _ConstantAccelerationImplementation(BuiltinImplementation):
    """aerr = u̇ - a for one u of one constrained mobilizer."""

    CODE = CODE

    def __init__(self, mobilizer, which_u: int, default_acceleration: float):
        matter = _checks.same_matter(mobilizer, _WHERE, "the mobilizer")
        ((mobod, which),) = _checks.coordinates(matter, [mobilizer], [which_u], _WHERE,
                                                "mobilizer", "which_u", "u", single=True)
        self._default_acceleration = _checks.real(default_acceleration, _WHERE,
                                                  "the default acceleration")
        super().__init__(matter, 0, 0, 1)
        self._mobilizer = self.add_constrained_mobilizer(mobod)
        self._which_u = which
        self._acceleration_index = None

    def realize_topology(self, state) -> None:
        self._acceleration_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, Stage.ACCELERATION, self._default_acceleration)

    def get_acceleration(self, state) -> float:
        return float(self.get_matter_subsystem().get_discrete_variable(state, self._slot()))

    def set_acceleration(self, state, accel: float) -> None:
        self.get_matter_subsystem().set_discrete_variable(state, self._slot(), accel)
        self._parameters_changed(state)

    def _slot(self) -> int:
        if self._acceleration_index is None:
            raise InvalidArgumentError(
                f"{_WHERE}: the acceleration lives in the State; call "
                f"system.realize_topology() (after creating the constraint) and use the State "
                f"it returns.")
        return self._acceleration_index

    def parameters(self, state) -> np.ndarray:
        return np.array([self._which_u, self.get_acceleration(state)], dtype=float)


class ConstantAcceleration(Constraint):
    """``Constraint.ConstantAcceleration(mobilizer, which_u, default_acceleration)``, or
    ``(mobilizer, default_acceleration)`` for its first u: holds that generalized
    acceleration u̇ at a, in the u's units per second (rad/s² or m/s²)."""

    def __init__(self, mobilizer, *args):
        if len(args) == 1:
            which_u, default_acceleration = 0, args[0]
        elif len(args) == 2:
            which_u, default_acceleration = args
        else:
            raise InvalidArgumentError(
                f"{_WHERE}: call it as ConstantAcceleration(mobilizer, which_u, "
                f"default_acceleration) or ConstantAcceleration(mobilizer, "
                f"default_acceleration).")
        super().__init__(_ConstantAccelerationImplementation(mobilizer, which_u,
                                                             default_acceleration))

    def get_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_mobilizer(
            self._impl._mobilizer)

    def get_which_u(self) -> int:
        return self._impl._which_u

    def get_default_acceleration(self) -> float:
        return self._impl._default_acceleration

    def set_default_acceleration(self, accel: float) -> ConstantAcceleration:
        """The a new States start with (a topological change)."""
        self._impl._default_acceleration = _checks.real(
            accel, f"{self._name()}.set_default_acceleration", "accel")
        self._impl.invalidate_topology_cache()
        return self

    def set_acceleration(self, state, accel: float) -> None:
        """This State's a (invalidates its Acceleration stage)."""
        self._impl.set_acceleration(
            state, _checks.real(accel, f"{self._name()}.set_acceleration", "accel"))

    def get_acceleration(self, state) -> float:
        return self._impl.get_acceleration(state)

    def get_acceleration_error(self, state) -> float:
        """u̇ - a (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")

    def get_multiplier(self, state) -> float:
        """λ; the generalized force the constraint applies to its mobility is -λ
        (ACCELERATION)."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")
