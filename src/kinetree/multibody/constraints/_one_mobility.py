"""What ConstantSpeed and ConstantAcceleration share: one generalized speed or acceleration
of one mobilizer held at a value each State holds, a discrete variable of the matter
subsystem of the stage the value belongs to. Each constraint's own file gives its equation
and its names.

The constraint's parameter row is cf = [which_u (stored as a float), the value]; its
multiplier λ is the generalized force on that mobility (Gᵀλ = λ on it).
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """The generalized force λ on the mobility."""
    f[int(cf[0])] += lam[0]


class OneMobilityImplementation(BuiltinImplementation):
    """One u of one constrained mobilizer held at the State's value (``quantity``: "speed"
    or "acceleration"), its equation at the level of ``counts`` (mp, mv, ma)."""

    WHERE = ""
    QUANTITY = ""
    STAGE = None
    COUNTS = (0, 0, 0)

    def __init__(self, mobilizer, which_u: int, default: float):
        matter = _checks.same_matter(mobilizer, self.WHERE, "the mobilizer")
        ((mobod, which),) = _checks.coordinates(matter, [mobilizer], [which_u], self.WHERE,
                                                "mobilizer", "which_u", "u", single=True)
        self._default = _checks.real(default, self.WHERE, f"the default {self.QUANTITY}")
        super().__init__(matter, *self.COUNTS)
        self._mobilizer = self.add_constrained_mobilizer(mobod)
        self._which_u = which
        self._value_index = None

    def realize_topology(self, state) -> None:
        self._value_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, self.STAGE, self._default)

    def get_value(self, state) -> float:
        return float(self.get_matter_subsystem().get_discrete_variable(state, self._slot()))

    def set_value(self, state, value: float) -> None:
        self.get_matter_subsystem().set_discrete_variable(state, self._slot(), value)
        self._parameters_changed(state)

    def _slot(self) -> int:
        if self._value_index is None:
            raise InvalidArgumentError(
                f"{self.WHERE}: the {self.QUANTITY} lives in the State; call "
                f"system.realize_topology() (after creating the constraint) and use the "
                f"State it returns.")
        return self._value_index

    def parameters(self, state) -> np.ndarray:
        return np.array([self._which_u, self.get_value(state)], dtype=float)


class OneMobilityConstraint(Constraint):
    """The public class: ``(mobilizer, which_u, default)``, or ``(mobilizer, default)`` for
    its first u."""

    _implementation: type = OneMobilityImplementation

    def __init__(self, mobilizer, *args):
        impl = self._implementation
        if len(args) == 1:
            which_u, default = 0, args[0]
        elif len(args) == 2:
            which_u, default = args
        else:
            name = impl.WHERE.rpartition(".")[2]
            raise InvalidArgumentError(
                f"{impl.WHERE}: call it as {name}(mobilizer, which_u, default_"
                f"{impl.QUANTITY}) or {name}(mobilizer, default_{impl.QUANTITY}).")
        super().__init__(impl(mobilizer, which_u, default))

    def get_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_mobilizer(
            self._impl._mobilizer)

    def get_which_u(self) -> int:
        return self._impl._which_u

    def _set_default(self, value: float, method: str) -> None:
        self._impl._default = _checks.real(value, f"{self._name()}.{method}",
                                           self._impl.QUANTITY)
        self._impl.invalidate_topology_cache()

    def _set_value(self, state, value: float, method: str) -> None:
        self._impl.set_value(state, _checks.real(value, f"{self._name()}.{method}",
                                                 self._impl.QUANTITY))

    def get_multiplier(self, state) -> float:
        """λ; the generalized force the constraint applies to its mobility is -λ
        (ACCELERATION)."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")
