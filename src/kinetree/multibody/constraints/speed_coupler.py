"""Constraint.SpeedCoupler: one nonholonomic equation f(u_sel; q_sel) = 0 (Simbody's
``Constraint::SpeedCoupler``).

verr = f(x), x = [selected u; selected q] in the order given. The q are taken as fixed:
only the selected u are constrained mobilities and get the force λ ∂f/∂uᵢ, and projection
moves only u. vaerr = Σ ∂f/∂uᵢ u̇ᵢ + Σ ∂f/∂qⱼ q̇ⱼ. As in Simbody, the selected q are read
from the State, their mobilizers are not constrained mobilizers, and f should be linear in
u for the velocity projection (one linear step) to be exact.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.constraint import ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.custom import Custom

_WHERE = "Constraint.SpeedCoupler"


class _SpeedCouplerImplementation(ConstraintImplementation):
    """verr = f(u_sel, q_sel); one constrained mobilizer per distinct body whose u is
    selected."""

    def __init__(self, matter, function, speed_body, speed_index, coord_body, coord_index):
        speeds = _checks.coordinates(matter, speed_body, speed_index, _WHERE, "speed_body",
                                     "speed_index", "u")
        if (coord_body is None) != (coord_index is None):
            raise InvalidArgumentError(
                f"{_WHERE}: give both coord_body and coord_index, or neither.")
        coords = [] if coord_body is None else _checks.coordinates(
            matter, coord_body, coord_index, _WHERE, "coord_body", "coord_index", "q")
        if not speeds:
            raise InvalidArgumentError(
                f"{_WHERE}: speed_body is empty; a speed coupler needs at least one "
                f"generalized speed to constrain.")
        self._function = _checks.function(
            function, len(speeds) + len(coords), _WHERE,
            f"{len(speeds)} speed(s) then {len(coords)} coordinate(s)")
        super().__init__(matter, 0, 1, 0)
        registered: dict[int, int] = {}
        self._speeds = []      # (ConstrainedMobilizerIndex, MobilizerUIndex) per u argument
        for mobod, which in speeds:
            key = mobod.get_mobilized_body_index()
            if key not in registered:
                registered[key] = self.add_constrained_mobilizer(mobod)
            self._speeds.append((registered[key], which))
        self._coords = coords  # (MobilizedBody, MobilizerQIndex) per q argument

    def get_function(self):
        return self._function

    def realize_instance(self, state) -> None:
        _checks.check_num_q(state, self._coords, _WHERE, "coord_index")

    def _q(self, state) -> list[float]:
        return [mobod.get_one_q(state, k) for mobod, k in self._coords]

    def _x_from_state(self, state) -> np.ndarray:
        return np.array([self.get_one_u_from_state(state, m, k) for m, k in self._speeds]
                        + self._q(state))

    def calc_velocity_errors(self, state, V_AB, constrained_u, verr) -> None:
        x = np.array([self.get_one_u(state, constrained_u, m, k) for m, k in self._speeds]
                     + self._q(state))
        verr[0] = self._function.calc_value(x)

    def calc_velocity_dot_errors(self, state, A_AB, constrained_udot, vaerr) -> None:
        x = self._x_from_state(state)
        f, n = self._function, len(self._speeds)
        total = 0.0
        for i, (m, k) in enumerate(self._speeds):
            total += f.calc_derivative([i], x) * self.get_one_u_dot(state, constrained_udot,
                                                                     m, k)
        for j, (mobod, k) in enumerate(self._coords):
            total += f.calc_derivative([n + j], x) * float(mobod.get_q_dot(state)[k])
        vaerr[0] = total

    def add_in_velocity_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          mobility_forces) -> None:
        x = self._x_from_state(state)
        for i, (m, k) in enumerate(self._speeds):
            force = multipliers[0] * self._function.calc_derivative([i], x)
            self.add_in_one_mobility_force(state, m, k, force, mobility_forces)


class SpeedCoupler(Custom):
    """``Constraint.SpeedCoupler(matter, function, speed_body, speed_index[, coord_body,
    coord_index])``: keeps f(u; q) = 0, the Function's arguments being the selected u (rad/s
    or m/s) and then the selected q, each given by a mobilized body (or its index) and the
    index within it; only the u are adjusted to satisfy it."""

    def __init__(self, matter, function, speed_body, speed_index, coord_body=None,
                 coord_index=None):
        super().__init__(_SpeedCouplerImplementation(matter, function, speed_body,
                                                     speed_index, coord_body, coord_index))
