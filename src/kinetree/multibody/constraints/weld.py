"""Constraint.Weld: a frame fixed on one body kept coincident with a frame fixed on another, so the
two bodies move as one (Simbody's ``Constraint::Weld``, a.k.a. CoincidentFrames).

Six holonomic equations, in the ancestor frame A, in Simbody's order: first the three orientation
equations of ConstantOrientation (the frames' axes RFx ⊥ RBy, RFy ⊥ RBz, RFz ⊥ RBx), then the three
of Ball for the frame origins, perr = p_AF2 - p_AF1 with F1 the origin of the frame on body 1 and F2
that of the frame on body 2. The velocity and acceleration equations of the position part use the
material point C of body 1 at F2's location (see ball.py). The multipliers' forces Gᵀλ are the three
torques of ConstantOrientation and the force λ (N, in A) at F2 on body 2, with the opposite torque
and force (at C) on body 1; the constraint applies their negatives (Simbody's sign). The
perpendicularity conditions also hold with some axes antiparallel, so start (or assemble) near the
intended pose.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.transform import Transform
from kinetree.multibody.constraint import Constraint, ConstraintImplementation
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.ball import (
    add_in_coincident_force,
    coincident_station,
    slip_acceleration,
    slip_velocity,
)
from kinetree.multibody.constraints.constant_orientation import (
    orientation_dot_dot_errors,
    orientation_dot_errors,
    orientation_errors,
    orientation_torque,
)

_WHERE = "Constraint.Weld"


class _WeldImplementation(ConstraintImplementation):
    """perr = [orientation errors; p_AF2 - p_AF1]; constrained bodies 0 (body 1, Simbody's
    B) and 1 (body 2, Simbody's F)."""

    def __init__(self, body1, frame1, body2, frame2):
        matter = _checks.two_bodies(body1, body2, _WHERE, "body1", "body2")
        self._X_B1 = _checks.transform(frame1, _WHERE, "the frame on body 1")
        self._X_B2 = _checks.transform(frame2, _WHERE, "the frame on body 2")
        super().__init__(matter, 6, 0, 0)
        self._B = self.add_constrained_body(body1)
        self._F = self.add_constrained_body(body2)

    def _frames(self, R_AB, R_AF):
        """(RB, RF): the axes of the frames on body 1 and body 2 as columns, in A."""
        return (R_AB.as_matrix() @ self._X_B1.R.as_matrix(),
                R_AF.as_matrix() @ self._X_B2.R.as_matrix())

    def _frames_from_state(self, state):
        return self._frames(self.get_body_rotation_from_state(state, self._B),
                            self.get_body_rotation_from_state(state, self._F))

    def _p_BC(self, state) -> np.ndarray:
        return coincident_station(self, state, self._B, self._F, self._X_B2.p)

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        perr[:3] = orientation_errors(*self._frames(X_AB[self._B].R, X_AB[self._F].R))
        perr[3:] = (self.find_station_location(X_AB, self._F, self._X_B2.p)
                    - self.find_station_location(X_AB, self._B, self._X_B1.p))

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        pverr[:3] = orientation_dot_errors(*self._frames_from_state(state),
                                           self.get_body_angular_velocity(V_AB, self._B),
                                           self.get_body_angular_velocity(V_AB, self._F))
        pverr[3:] = slip_velocity(self, state, V_AB, self._B, self._F, self._X_B2.p,
                                  self._p_BC(state))

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        paerr[:3] = orientation_dot_dot_errors(
            *self._frames_from_state(state),
            self.get_body_angular_velocity_from_state(state, self._B),
            self.get_body_angular_velocity_from_state(state, self._F),
            self.get_body_angular_acceleration(A_AB, self._B),
            self.get_body_angular_acceleration(A_AB, self._F))
        paerr[3:] = slip_acceleration(self, state, A_AB, self._B, self._F, self._X_B2.p,
                                      self._p_BC(state))

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        torque_F_A = orientation_torque(*self._frames_from_state(state), multipliers[:3])
        self.add_in_body_torque(state, self._F, torque_F_A, body_forces_in_A)
        self.add_in_body_torque(state, self._B, -torque_F_A, body_forces_in_A)
        add_in_coincident_force(self, state, self._B, self._F, self._X_B2.p,
                                self._p_BC(state), np.asarray(multipliers[3:6], dtype=float),
                                body_forces_in_A)


class Weld(Constraint):
    """``Constraint.Weld(body1, frame1, body2, frame2)``, or ``Constraint.Weld(body1,
    body2)`` for the body frames: frame2 (X_B2F2, a kt.Transform in body 2's frame) is held
    coincident with frame1 (X_B1F1, in body 1's frame)."""

    def __init__(self, *args):
        if len(args) == 2:
            body1, body2 = args
            frame1 = frame2 = Transform()
        elif len(args) == 4:
            body1, frame1, body2, frame2 = args
        else:
            raise InvalidArgumentError(
                f"{_WHERE}: expected Weld(body1, body2) or Weld(body1, frame1, body2, "
                f"frame2), got {len(args)} arguments.")
        super().__init__(_WeldImplementation(body1, frame1, body2, frame2))

    # ------------------------------------------------------------ topology
    def get_body1_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_body2_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._F)

    def get_default_frame_on_body1(self) -> Transform:
        """X_B1F1, the frame on body 1 in body 1's frame."""
        return self._impl._X_B1

    def get_default_frame_on_body2(self) -> Transform:
        """X_B2F2, the frame on body 2 in body 2's frame."""
        return self._impl._X_B2

    def set_default_frame_on_body1(self, frame) -> Weld:
        """X_B1F1 (a topological change)."""
        self._impl._X_B1 = _checks.transform(
            frame, f"{self._name()}.set_default_frame_on_body1", "the frame")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_frame_on_body2(self, frame) -> Weld:
        """X_B2F2 (a topological change)."""
        self._impl._X_B2 = _checks.transform(
            frame, f"{self._name()}.set_default_frame_on_body2", "the frame")
        self._impl.invalidate_topology_cache()
        return self

    # ---------------------------------------------------------- results
    def get_position_errors(self, state) -> np.ndarray:
        """[orientation errors; p_AF2 - p_AF1 (m, in A)] (POSITION)."""
        return _checks.some(self, self.get_position_errors_as_vector(state),
                            "get_position_errors")

    def get_velocity_errors(self, state) -> np.ndarray:
        """[orientation rates (1/s); v_AF2 - v_AC (m/s, in A)] (VELOCITY)."""
        return _checks.some(self, self.get_velocity_errors_as_vector(state),
                            "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """[orientation accelerations (1/s²); a_AF2 - a_AC (m/s², in A)]
        (ACCELERATION)."""
        return _checks.some(self, self.get_acceleration_errors_as_vector(state),
                            "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """[λ torques (N·m); λ force (N, in A)] (ACCELERATION)."""
        return _checks.some(self, self.get_multipliers_as_vector(state), "get_multipliers")
