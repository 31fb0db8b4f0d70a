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

from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints._stations import offset
from kinetree.multibody.constraints.ball import (
    add_coincident_force,
    coincident_offsets,
    slip_acceleration,
    slip_velocity,
)
from kinetree.multibody.kernels.small import cross3, dot3, scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS

CODE = CONSTRAINTS["point_in_plane"]
_WHERE = "Constraint.PointInPlane"
_B, _F = 0, 1
"""The constrained bodies: the plane body B and the follower F."""


# ------------------------------------------------------------------ physics
# cf = [n (3, in B), h (m), p_FS (3, m, in F)].

@helper
def _geometry(cf, R_AB, p_AB):
    """(r_S, r_C, n_A): the offsets (m, in A) of S from F's origin and of the plane body's
    point C at S from B's origin, and the normal in A."""
    r_S, r_C, _ = coincident_offsets(R_AB, p_AB, _B, _F, vec3(cf[4:7]))
    return r_S, r_C, offset(R_AB, _B, vec3(cf[0:3]))


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = p_BC·n - h, with p_BC·n = r_C·n_A (r_C = R_AB p_BC)."""
    _, r_C, n_A = _geometry(cf, R_AB, p_AB)
    perr[0] = dot3(r_C, n_A) - cf[3]


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = (v_AS - v_AC)·n_A."""
    r_S, r_C, n_A = _geometry(cf, R_AB, p_AB)
    uerr[0] = dot3(slip_velocity(V_AB, _B, _F, r_S, r_C), n_A)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = (a_AS - a_AC - 2 w_AB × (v_AS - v_AC))·n_A."""
    r_S, r_C, n_A = _geometry(cf, R_AB, p_AB)
    v_CS = slip_velocity(V_AB, _B, _F, r_S, r_C)
    a_CS = slip_acceleration(V_AB, A_AB, _B, _F, r_S, r_C)
    aerr[0] = dot3(sub3(a_CS, scale3(2.0, cross3(vec3(V_AB[_B, :3]), v_CS))), n_A)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """λ n_A at S on F, -λ n_A at C on B."""
    r_S, r_C, n_A = _geometry(cf, R_AB, p_AB)
    add_coincident_force(F_A, _B, _F, r_S, r_C, scale3(lam[0], n_A))


# ------------------------------------------------------------------ the class
class _PointInPlaneImplementation(BuiltinImplementation):
    """perr = p_BC·n - h; constrained bodies 0 (plane body B) and 1 (follower F)."""

    CODE = CODE

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

    def parameters(self, state) -> np.ndarray:
        return np.concatenate([self._normal, [self._height], self._point])


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
