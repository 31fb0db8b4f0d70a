"""Constraint.ConstantSpeed: one generalized speed held at a set value, u = s (Simbody's
``Constraint::ConstantSpeed``).

verr = u - s, vaerr = u̇; the multiplier is the generalized force λ on that mobility. The
default speed is a topological setting; each State holds its own s, a Velocity-stage
discrete variable of the matter subsystem (``set_speed`` invalidates Velocity and above).
"""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.constraint import Constraint, ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.system.stage import Stage

_WHERE = "Constraint.ConstantSpeed"


class _ConstantSpeedImplementation(ConstraintImplementation):
    """verr = u - s for one u of one constrained mobilizer."""

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

    def _slot(self) -> int:
        if self._speed_index is None:
            raise InvalidArgumentError(
                f"{_WHERE}: the speed lives in the State; call system.realize_topology() "
                f"(after creating the constraint) and use the State it returns.")
        return self._speed_index

    def calc_velocity_errors(self, state, V_AB, constrained_u, verr) -> None:
        verr[0] = self.get_one_u(state, constrained_u, self._mobilizer, self._which_u) - \
            self.get_speed(state)

    def calc_velocity_dot_errors(self, state, A_AB, constrained_udot, vaerr) -> None:
        vaerr[0] = self.get_one_u_dot(state, constrained_udot, self._mobilizer, self._which_u)

    def add_in_velocity_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          mobility_forces) -> None:
        self.add_in_one_mobility_force(state, self._mobilizer, self._which_u, multipliers[0],
                                       mobility_forces)


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
