"""Constraint.PointOnLine: a station S of a follower body F kept on a line fixed on a line body B
(Simbody's ``Constraint::PointOnLine``).

The line passes through point P with unit direction z (both in B). As in Simbody, it is the
intersection of two planes through P with normals x = z.perp() (the perpendicular Simbody's
UnitVec3::perp() picks) and y = z × x, giving two holonomic equations. With C the material
point of B at S's location and p_PC = p_BC - p_BP (in B):

    perr  = [p_PC·x, p_PC·y]
    pverr = [v·x, v·y],  v = R_AB⁻¹ (v_AS - v_AC)
    paerr = [a·x, a·y],  a = R_AB⁻¹ (a_AS - a_AC - 2 w_AB × (v_AS - v_AC))

The multipliers' force Gᵀλ is f = R_AB (λ₀ x + λ₁ y) at S on F and -f at C on B (the
constraint applies its negative): perpendicular to the line, at one point in space, so it does
no work.
"""

from __future__ import annotations

import numpy as np

from kinetree.multibody.constraint import Constraint, ConstraintImplementation, _cross
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.ball import (
    add_in_coincident_force,
    coincident_station,
    slip_acceleration,
    slip_velocity,
)

_WHERE = "Constraint.PointOnLine"


class _PointOnLineImplementation(ConstraintImplementation):
    """perr = [p_PC·x, p_PC·y]; constrained bodies 0 (line body B) and 1 (follower F)."""

    def __init__(self, line_body, line_direction, point_on_line, follower_body,
                 follower_point):
        matter = _checks.two_bodies(line_body, follower_body, _WHERE, "line_body",
                                    "follower_body")
        self._set_direction(_checks.unit_vec3(line_direction, _WHERE, "the line direction"))
        self._point_on_line = _checks.vec3(point_on_line, _WHERE, "the point on the line")
        self._point = _checks.vec3(follower_point, _WHERE, "the follower point")
        super().__init__(matter, 2, 0, 0)
        self._B = self.add_constrained_body(line_body)
        self._F = self.add_constrained_body(follower_body)

    def _set_direction(self, z: np.ndarray) -> None:
        """z, and the two plane normals x, y (as rows of a 2x3 array), all in B."""
        self._direction = z
        x = _checks.perpendicular(z)
        self._normals = np.array([x, np.cross(z, x)])

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        p_AS = self.find_station_location(X_AB, self._F, self._point)
        p_BC = X_AB[self._B].shift_base_station_to_frame(p_AS)
        perr[:] = self._normals @ (p_BC - self._point_on_line)

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        p_BC = coincident_station(self, state, self._B, self._F, self._point)
        R_AB = self.get_body_rotation_from_state(state, self._B).as_matrix()
        v_CS_A = slip_velocity(self, state, V_AB, self._B, self._F, self._point, p_BC)
        pverr[:] = self._normals @ (R_AB.T @ v_CS_A)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        p_BC = coincident_station(self, state, self._B, self._F, self._point)
        R_AB = self.get_body_rotation_from_state(state, self._B).as_matrix()
        V_AB = self._kin(state).V_AB
        v_CS_A = slip_velocity(self, state, V_AB, self._B, self._F, self._point, p_BC)
        a_CS_A = slip_acceleration(self, state, A_AB, self._B, self._F, self._point, p_BC)
        w_AB = self.get_body_angular_velocity(V_AB, self._B)
        paerr[:] = self._normals @ (R_AB.T @ (a_CS_A - 2.0 * _cross(w_AB, v_CS_A)))

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        p_BC = coincident_station(self, state, self._B, self._F, self._point)
        R_AB = self.get_body_rotation_from_state(state, self._B).as_matrix()
        force_A = R_AB @ (np.asarray(multipliers[:2], dtype=float) @ self._normals)
        add_in_coincident_force(self, state, self._B, self._F, self._point, p_BC, force_A,
                                body_forces_in_A)


class PointOnLine(Constraint):
    """``Constraint.PointOnLine(line_body, line_direction, point_on_line, follower_body,
    follower_point)``: station follower_point (m, in the follower's frame) stays on the line
    through point_on_line (m) along line_direction (normalized), both in the line body's
    frame."""

    def __init__(self, line_body, line_direction, point_on_line, follower_body,
                 follower_point):
        super().__init__(_PointOnLineImplementation(line_body, line_direction, point_on_line,
                                                    follower_body, follower_point))

    # ------------------------------------------------------------ topology
    def get_line_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_follower_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._F)

    def get_default_line_direction(self) -> np.ndarray:
        """The unit direction z, in the line body's frame."""
        return self._impl._direction.copy()

    def get_default_point_on_line(self) -> np.ndarray:
        """P (m), in the line body's frame."""
        return self._impl._point_on_line.copy()

    def get_default_follower_point(self) -> np.ndarray:
        """S (m), in the follower's frame."""
        return self._impl._point.copy()

    def set_default_line_direction(self, direction) -> PointOnLine:
        """z (normalized, in the line body's frame); a topological change."""
        self._impl._set_direction(_checks.unit_vec3(
            direction, f"{self._name()}.set_default_line_direction", "the direction"))
        self._impl.invalidate_topology_cache()
        return self

    def set_default_point_on_line(self, point) -> PointOnLine:
        """P (m, in the line body's frame); a topological change."""
        self._impl._point_on_line = _checks.vec3(
            point, f"{self._name()}.set_default_point_on_line", "the point")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_follower_point(self, point) -> PointOnLine:
        """S (m, in the follower's frame); a topological change."""
        self._impl._point = _checks.vec3(
            point, f"{self._name()}.set_default_follower_point", "the point")
        self._impl.invalidate_topology_cache()
        return self

    # ---------------------------------------------------------- results
    def get_position_errors(self, state) -> np.ndarray:
        """S's offsets from the line along x and y (m) (POSITION)."""
        return _checks.some(self, self.get_position_errors_as_vector(state),
                            "get_position_errors")

    def get_velocity_errors(self, state) -> np.ndarray:
        """Their rates (m/s) (VELOCITY)."""
        return _checks.some(self, self.get_velocity_errors_as_vector(state),
                            "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """Their second derivatives (m/s²) (ACCELERATION)."""
        return _checks.some(self, self.get_acceleration_errors_as_vector(state),
                            "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """λ (N), along x and y (ACCELERATION)."""
        return _checks.some(self, self.get_multipliers_as_vector(state), "get_multipliers")
