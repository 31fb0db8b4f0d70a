"""Constraint.CoordinateCoupler: one holonomic equation f(q_sel) = 0 between chosen
generalized coordinates (Simbody's ``Constraint::CoordinateCoupler``).

perr = f(x), x the selected q in the order given; its derivatives come from the Function's
partials: pverr = Σ ∂f/∂xᵢ q̇ᵢ and paerr = Σᵢⱼ ∂²f/∂xᵢ∂xⱼ q̇ᵢ q̇ⱼ + Σ ∂f/∂xᵢ q̈ᵢ. The
multiplier acts as the q-space force λ ∂f/∂xᵢ on each selected coordinate (the solver maps
it to u-space through Nᵀ).
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.constraint import ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.custom import Custom

_WHERE = "Constraint.CoordinateCoupler"


class _CoordinateCouplerImplementation(ConstraintImplementation):
    """perr = f(q_sel); no constrained bodies, one constrained mobilizer per distinct body
    whose q is selected."""

    def __init__(self, matter, function, coord_body, coord_index):
        pairs = _checks.coordinates(matter, coord_body, coord_index, _WHERE, "coord_body",
                                    "coord_index", "q")
        if not pairs:
            raise InvalidArgumentError(
                f"{_WHERE}: coord_body is empty; a coordinate coupler needs at least one "
                f"generalized coordinate to constrain.")
        self._function = _checks.function(function, len(pairs), _WHERE,
                                          "one per entry of coord_body / coord_index")
        super().__init__(matter, 1, 0, 0)
        self._pairs = pairs
        registered: dict[int, int] = {}
        self._coords = []      # (ConstrainedMobilizerIndex, MobilizerQIndex) per argument
        for mobod, which in pairs:
            key = mobod.get_mobilized_body_index()
            if key not in registered:
                registered[key] = self.add_constrained_mobilizer(mobod)
            self._coords.append((registered[key], which))

    def get_function(self):
        return self._function

    def realize_instance(self, state) -> None:
        _checks.check_num_q(state, self._pairs, _WHERE, "coord_index")

    def _x_from_state(self, state) -> np.ndarray:
        return np.array([self.get_one_q_from_state(state, m, k) for m, k in self._coords])

    def _gradient(self, x) -> np.ndarray:
        f = self._function
        return np.array([f.calc_derivative([i], x) for i in range(x.size)])

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        x = np.array([self.get_one_q(state, constrained_q, m, k) for m, k in self._coords])
        perr[0] = self._function.calc_value(x)

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        qdot = np.array([self.get_one_q_dot(state, constrained_qdot, m, k)
                         for m, k in self._coords])
        pverr[0] = float(self._gradient(self._x_from_state(state)) @ qdot)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        x = self._x_from_state(state)
        qdot = np.array([self.get_one_q_dot_from_state(state, m, k) for m, k in self._coords])
        qdotdot = np.array([self.get_one_q_dot_dot(state, constrained_qdotdot, m, k)
                            for m, k in self._coords])
        f = self._function
        quadratic = 0.0
        for i in range(x.size):       # the Hessian is symmetric: each pair once
            quadratic += f.calc_derivative([i, i], x) * qdot[i] * qdot[i]
            for j in range(i + 1, x.size):
                quadratic += 2.0 * f.calc_derivative([i, j], x) * qdot[i] * qdot[j]
        paerr[0] = quadratic + float(self._gradient(x) @ qdotdot)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        gradient = self._gradient(self._x_from_state(state))
        for (m, k), g in zip(self._coords, gradient):
            self.add_in_one_q_force(state, m, k, multipliers[0] * g, q_forces)


class CoordinateCoupler(Custom):
    """``Constraint.CoordinateCoupler(matter, function, coord_body, coord_index)``: keeps
    f(q) = 0, where argument i of the Function is q number ``coord_index[i]`` of the
    mobilized body ``coord_body[i]`` (a MobilizedBody or its index); q in the mobilizer's
    own units (rad, m). The Function must take len(coord_body) arguments and provide
    derivatives to order 2."""

    def __init__(self, matter, function, coord_body, coord_index):
        super().__init__(_CoordinateCouplerImplementation(matter, function, coord_body,
                                                          coord_index))
