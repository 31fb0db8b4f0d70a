"""Constraint.PointInPlane: a station S of a follower body F kept in a plane fixed on a plane body B
(Simbody's ``Constraint::PointInPlane``).

The plane has unit normal n and lies at height h from B's origin along n (both in B). One holonomic
equation: with C the material point of B at S's location (p_BC = X_AB⁻¹ p_AS), perr = p_BC·n - h;
its derivatives, taken in B and expressed in the ancestor frame A, are pverr = (v_AS - v_AC)·n_A and
paerr = (a_AS - a_AC - 2 w_AB × (v_AS - v_AC))·n_A. The multiplier's force Gᵀλ is λ n_A at S on F
and -λ n_A at C on B (the constraint applies its negative): one point in space, along the normal, so
it does no work.
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

_WHERE = "Constraint.PointInPlane"


class _PointInPlaneImplementation(ConstraintImplementation):
    """perr = p_BC·n - h; constrained bodies 0 (plane body B) and 1 (follower F)."""

    def __init__(self, plane_body, plane_normal, plane_height, follower_body,
                 follower_point):
        matter = _checks.two_bodies(plane_body, follower_body, _WHERE, "plane_body",
                                    "follower_body")
        self._normal = _checks.unit_vec3(plane_normal, _WHERE, "the plane normal")
        self._height = _checks.real(plane_height, _WHERE, "the plane height")
        self._point = _checks.vec3(follower_point, _WHERE, "the follower point")
        super().__init__(matter, 1, 0, 0)
        self._B = self.add_constrained_body(plane_body)
        self._F = self.add_constrained_body(follower_body)

    def _geometry(self, state):
        """(p_BC, n_A): the plane body's point at S, in B, and the normal in A."""
        p_BC = coincident_station(self, state, self._B, self._F, self._point)
        n_A = self.get_body_rotation_from_state(state, self._B).as_matrix() @ self._normal
        return p_BC, n_A

    def calc_position_errors(self, state, X_AB, constrained_q, perr) -> None:
        p_AS = self.find_station_location(X_AB, self._F, self._point)
        p_BC = X_AB[self._B].shift_base_station_to_frame(p_AS)
        perr[0] = float(p_BC @ self._normal) - self._height

    def calc_position_dot_errors(self, state, V_AB, constrained_qdot, pverr) -> None:
        p_BC, n_A = self._geometry(state)
        pverr[0] = float(slip_velocity(self, state, V_AB, self._B, self._F, self._point,
                                       p_BC) @ n_A)

    def calc_position_dot_dot_errors(self, state, A_AB, constrained_qdotdot, paerr) -> None:
        p_BC, n_A = self._geometry(state)
        V_AB = self._kin(state).V_AB
        v_CS = slip_velocity(self, state, V_AB, self._B, self._F, self._point, p_BC)
        a_CS = slip_acceleration(self, state, A_AB, self._B, self._F, self._point, p_BC)
        w_AB = self.get_body_angular_velocity(V_AB, self._B)
        paerr[0] = float((a_CS - 2.0 * _cross(w_AB, v_CS)) @ n_A)

    def add_in_position_constraint_forces(self, state, multipliers, body_forces_in_A,
                                          q_forces) -> None:
        p_BC, n_A = self._geometry(state)
        add_in_coincident_force(self, state, self._B, self._F, self._point, p_BC,
                                multipliers[0] * n_A, body_forces_in_A)


class PointInPlane(Constraint):
    """``Constraint.PointInPlane(plane_body, plane_normal, plane_height, follower_body,
    follower_point)``: station follower_point (m, in the follower's frame) stays in the
    plane {x : x·n = plane_height} of the plane body's frame, n = plane_normal normalized;
    the height is in metres."""

    def __init__(self, plane_body, plane_normal, plane_height, follower_body,
                 follower_point):
        super().__init__(_PointInPlaneImplementation(plane_body, plane_normal, plane_height,
                                                     follower_body, follower_point))

    # ------------------------------------------------------------ topology
    def get_plane_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_follower_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._F)

    def get_default_plane_normal(self) -> np.ndarray:
        """The unit normal n, in the plane body's frame."""
        return self._impl._normal.copy()

    def get_default_plane_height(self) -> float:
        """h (m), along n from the plane body's origin."""
        return self._impl._height

    def get_default_follower_point(self) -> np.ndarray:
        """S (m), in the follower's frame."""
        return self._impl._point.copy()

    def set_default_plane_normal(self, normal) -> PointInPlane:
        """n (normalized, in the plane body's frame); a topological change."""
        self._impl._normal = _checks.unit_vec3(
            normal, f"{self._name()}.set_default_plane_normal", "the normal")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_plane_height(self, height: float) -> PointInPlane:
        """h (m); a topological change."""
        self._impl._height = _checks.real(
            height, f"{self._name()}.set_default_plane_height", "the height")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_follower_point(self, point) -> PointInPlane:
        """S (m, in the follower's frame); a topological change."""
        self._impl._point = _checks.vec3(
            point, f"{self._name()}.set_default_follower_point", "the point")
        self._impl.invalidate_topology_cache()
        return self

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """The height of S above the plane (m) (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_error(self, state) -> float:
        """Its rate (m/s) (VELOCITY)."""
        return _checks.one(self, self.get_velocity_errors_as_vector(state),
                           "get_velocity_error")

    def get_acceleration_error(self, state) -> float:
        """Its second derivative (m/s²) (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")

    def get_multiplier(self, state) -> float:
        """λ (N) (ACCELERATION)."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")

    def get_force_on_follower_point(self, state) -> float:
        """The force (N) the plane applies to the follower at S, along n: -λ, applied
        forces having the opposite sign of the multiplier (ACCELERATION)."""
        return -self.get_multiplier(state)
