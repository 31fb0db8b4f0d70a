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

from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.ball import (
    add_coincident_force,
    coincident_offsets,
    slip_acceleration,
    slip_velocity,
)
from kinetree.multibody.kernels.small import (
    add3,
    cross3,
    dot3,
    rotate3,
    rotate3_transpose,
    scale3,
    sub3,
    vec3,
)
from kinetree.registry import CONSTRAINTS

CODE = CONSTRAINTS["point_on_line"]
_WHERE = "Constraint.PointOnLine"
_B, _F = 0, 1
"""The constrained bodies: the line body B and the follower F."""


# ------------------------------------------------------------------ physics
# cf = [x (3), y (3), p_BP (3, m), p_FS (3, m, in F)]: the plane normals and the point on the
# line, in B.

@helper
def _offsets(cf, R_AB, p_AB):
    """(r_S, r_C): the offsets (m, in A) of S from F's origin and of the line body's point
    C at S from B's origin."""
    r_S, r_C, _ = coincident_offsets(R_AB, p_AB, _B, _F, vec3(cf[9:12]))
    return r_S, r_C


@helper
def _project(cf, v_B, out):
    """out[:2] = [v_B·x, v_B·y] for a vector v_B in B."""
    out[0] = dot3(v_B, vec3(cf[0:3]))
    out[1] = dot3(v_B, vec3(cf[3:6]))


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = [p_PC·x, p_PC·y], p_PC = p_BC - p_BP."""
    _, r_C = _offsets(cf, R_AB, p_AB)
    _project(cf, sub3(rotate3_transpose(R_AB[_B], r_C), vec3(cf[6:9])), perr)


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = [v·x, v·y], v = R_AB⁻¹ (v_AS - v_AC)."""
    r_S, r_C = _offsets(cf, R_AB, p_AB)
    _project(cf, rotate3_transpose(R_AB[_B], slip_velocity(V_AB, _B, _F, r_S, r_C)), uerr)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = [a·x, a·y], a = R_AB⁻¹ (a_AS - a_AC - 2 w_AB × (v_AS - v_AC))."""
    r_S, r_C = _offsets(cf, R_AB, p_AB)
    v_CS = slip_velocity(V_AB, _B, _F, r_S, r_C)
    a_CS = slip_acceleration(V_AB, A_AB, _B, _F, r_S, r_C)
    a = sub3(a_CS, scale3(2.0, cross3(vec3(V_AB[_B, :3]), v_CS)))
    _project(cf, rotate3_transpose(R_AB[_B], a), aerr)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """f = R_AB (λ₀ x + λ₁ y) at S on F, -f at C on B."""
    r_S, r_C = _offsets(cf, R_AB, p_AB)
    f_B = add3(scale3(lam[0], vec3(cf[0:3])), scale3(lam[1], vec3(cf[3:6])))
    add_coincident_force(F_A, _B, _F, r_S, r_C, rotate3(R_AB[_B], f_B))


# ------------------------------------------------------------------ the class
class _PointOnLineImplementation(BuiltinImplementation):
    """perr = [p_PC·x, p_PC·y]; constrained bodies 0 (line body B) and 1 (follower F)."""

    CODE = CODE

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

    def parameters(self, state) -> np.ndarray:
        return np.concatenate([self._normals.ravel(), self._point_on_line, self._point])


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
