"""Constraint.ConstantOrientation: a frame fixed on a follower body F keeps the orientation of a
frame fixed on a base body B, so F can translate but not rotate relative to B (Simbody's
``Constraint::ConstantOrientation``).

Three holonomic equations, in the ancestor frame A: with RB = R_AB R_B and RF = R_AF R_F the
two frames' axes expressed in A, perr = [RFx·RBy, RFy·RBz, RFz·RBx], three ConstantAngle
equations at π/2 (see constant_angle.py for their derivatives). The multipliers' force Gᵀλ is
the torque λ₀ (RFx × RBy) + λ₁ (RFy × RBz) + λ₂ (RFz × RBx) on F and its negative on B (the
constraint applies the opposite, Simbody's sign). As in Simbody, these perpendicularity
conditions also hold with some axes antiparallel, so start (or assemble) near the intended
orientation.
"""

from __future__ import annotations

import numpy as np

from kinetree.multibody.constraint import Constraint, ConstraintImplementation, _cross
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.constant_angle import angle_acceleration, angle_rate

_WHERE = "Constraint.ConstantOrientation"


# ------------------------------------- the three orientation equations, shared with Weld
# RB and RF are 3x3 arrays whose columns are the frames' axes expressed in A.

def _pairs(RB: np.ndarray, RF: np.ndarray):
    """The (follower axis, base axis) pairs kept perpendicular: (x, y), (y, z), (z, x)."""
    return ((RF[:, 0], RB[:, 1]), (RF[:, 1], RB[:, 2]), (RF[:, 2], RB[:, 0]))


def orientation_errors(RB, RF) -> np.ndarray:
    return np.array([f @ b for f, b in _pairs(RB, RF)])


def orientation_dot_errors(RB, RF, w_AB, w_AF) -> np.ndarray:
    return np.array([angle_rate(f, b, w_AB, w_AF) for f, b in _pairs(RB, RF)])


def orientation_dot_dot_errors(RB, RF, w_AB, w_AF, b_AB, b_AF) -> np.ndarray:
    return np.array([angle_acceleration(f, b, w_AB, w_AF, b_AB, b_AF)
                     for f, b in _pairs(RB, RF)])


def orientation_torque(RB, RF, multipliers) -> np.ndarray:
    """The torque (N·m, in A) of the three multipliers on F (its negative acts on B)."""
    torque = np.zeros(3)
    for lam, (f, b) in zip(multipliers, _pairs(RB, RF)):
        torque += lam * _cross(f, b)
    return torque


class _ConstantOrientationImplementation(ConstraintImplementation):
    """perr = [RFx·RBy, RFy·RBz, RFz·RBx]; constrained bodies 0 (base B) and 1
    (follower F)."""

    def __init__(self, base_body, base_rotation, follower_body, follower_rotation):
        matter = _checks.two_bodies(base_body, follower_body, _WHERE, "base_body",
                                    "follower_body")
        self._R_B = _checks.rotation(base_rotation, _WHERE, "the base rotation")
        self._R_F = _checks.rotation(follower_rotation, _WHERE, "the follower rotation")
        super().__init__(matter, 3, 0, 0)
        self._B = self.add_constrained_body(base_body)
        self._F = self.add_constrained_body(follower_body)

    def _frames(self, R_AB, R_AF):
        """(RB, RF): the two frames' axes as columns, expressed in A."""
        return (R_AB.as_matrix() @ self._R_B.as_matrix(),
                R_AF.as_matrix() @ self._R_F.as_matrix())

    def _frames_from_state(self, state):
        return self._frames(self.get_body_rotation_from_state(state, self._B),
                            self.get_body_rotation_from_state(state, self._F))

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        perr[:] = orientation_errors(*self._frames(X_AB[self._B].R, X_AB[self._F].R))

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        pverr[:] = orientation_dot_errors(*self._frames_from_state(state),
                                          self.get_body_angular_velocity(V_AB, self._B),
                                          self.get_body_angular_velocity(V_AB, self._F))

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        paerr[:] = orientation_dot_dot_errors(
            *self._frames_from_state(state),
            self.get_body_angular_velocity_from_state(state, self._B),
            self.get_body_angular_velocity_from_state(state, self._F),
            self.get_body_angular_acceleration(A_AB, self._B),
            self.get_body_angular_acceleration(A_AB, self._F))

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        torque_F_A = orientation_torque(*self._frames_from_state(state), multipliers[:3])
        self.add_in_body_torque(state, self._F, torque_F_A, body_forces_in_A)
        self.add_in_body_torque(state, self._B, -torque_F_A, body_forces_in_A)


class ConstantOrientation(Constraint):
    """``Constraint.ConstantOrientation(base_body, base_rotation, follower_body,
    follower_rotation)``: the frame given by follower_rotation (R_F, in the follower's
    frame) keeps the orientation of the frame given by base_rotation (R_B, in the base's
    frame). Each rotation is a kt.Rotation or a proper orthonormal 3x3 matrix."""

    def __init__(self, base_body, base_rotation, follower_body, follower_rotation):
        super().__init__(_ConstantOrientationImplementation(base_body, base_rotation,
                                                            follower_body, follower_rotation))

    # ------------------------------------------------------------ topology
    def get_base_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_follower_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._F)

    def get_default_base_rotation(self):
        """R_B: the base frame's orientation in the base body's frame."""
        return self._impl._R_B

    def get_default_follower_rotation(self):
        """R_F: the follower frame's orientation in the follower body's frame."""
        return self._impl._R_F

    def set_default_base_rotation(self, rotation) -> ConstantOrientation:
        """R_B (a topological change)."""
        self._impl._R_B = _checks.rotation(
            rotation, f"{self._name()}.set_default_base_rotation", "the rotation")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_follower_rotation(self, rotation) -> ConstantOrientation:
        """R_F (a topological change)."""
        self._impl._R_F = _checks.rotation(
            rotation, f"{self._name()}.set_default_follower_rotation", "the rotation")
        self._impl.invalidate_topology_cache()
        return self

    # ---------------------------------------------------------- results
    def get_position_errors(self, state) -> np.ndarray:
        """[RFx·RBy, RFy·RBz, RFz·RBx] (POSITION)."""
        return _checks.some(self, self.get_position_errors_as_vector(state),
                            "get_position_errors")

    def get_velocity_errors(self, state) -> np.ndarray:
        """Their rates (1/s) (VELOCITY)."""
        return _checks.some(self, self.get_velocity_errors_as_vector(state),
                            "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """Their second derivatives (1/s²) (ACCELERATION)."""
        return _checks.some(self, self.get_acceleration_errors_as_vector(state),
                            "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """λ (N·m) (ACCELERATION)."""
        return _checks.some(self, self.get_multipliers_as_vector(state), "get_multipliers")
