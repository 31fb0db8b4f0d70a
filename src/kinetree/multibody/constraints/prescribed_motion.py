"""Constraint.PrescribedMotion: one generalized coordinate follows a given function of time,
q = f(t) (Simbody's ``Constraint::PrescribedMotion``).

perr = q - f(t), pverr = q̇ - f'(t), paerr = q̈ - f''(t); the multiplier is the q-space
force λ on that coordinate. The generalized force that drives the motion is what the
constraint applies, ``get_constrained_mobility_forces_as_vector(state)`` (ACCELERATION),
one entry per u of the mobilizer.
"""

from __future__ import annotations

import numpy as np

from kinetree.multibody.constraint import ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.custom import Custom

_WHERE = "Constraint.PrescribedMotion"


class _PrescribedMotionImplementation(ConstraintImplementation):
    """perr = q - f(t) for one q of one constrained mobilizer."""

    def __init__(self, matter, function, coord_body, coord_index):
        (pair,) = _checks.coordinates(matter, [coord_body], [coord_index], _WHERE,
                                      "coord_body", "coord_index", "q", single=True)
        self._function = _checks.function(function, 1, _WHERE, "the time t")
        super().__init__(matter, 1, 0, 0)
        self._pair = pair
        self._mobilizer = self.add_constrained_mobilizer(pair[0])
        self._which_q = pair[1]

    def get_function(self):
        return self._function

    def realize_instance(self, state) -> None:
        _checks.check_num_q(state, [self._pair], _WHERE, "coord_index", single=True)

    def _f(self, state, order: int) -> float:
        t = np.array([state.get_time()])
        if order == 0:
            return float(self._function.calc_value(t))
        return float(self._function.calc_derivative([0] * order, t))

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        perr[0] = self.get_one_q(state, constrained_q, self._mobilizer, self._which_q) - \
            self._f(state, 0)

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        pverr[0] = self.get_one_q_dot(state, constrained_qdot, self._mobilizer, self._which_q) \
            - self._f(state, 1)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        paerr[0] = self.get_one_q_dot_dot(state, constrained_qdotdot, self._mobilizer,
                                          self._which_q) - self._f(state, 2)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        self.add_in_one_q_force(state, self._mobilizer, self._which_q, multipliers[0], q_forces)


class PrescribedMotion(Custom):
    """``Constraint.PrescribedMotion(matter, function, coord_body, coord_index)``: q number
    ``coord_index`` of ``coord_body`` (a MobilizedBody or its index) equals f(t), f a
    one-argument Function of time (s) with derivatives to order 2, in the q's units (rad, m)."""

    def __init__(self, matter, function, coord_body, coord_index):
        super().__init__(_PrescribedMotionImplementation(matter, function, coord_body,
                                                         coord_index))
