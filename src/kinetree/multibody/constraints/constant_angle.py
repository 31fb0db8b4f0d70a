"""Constraint.ConstantAngle: a fixed angle θ between a unit vector b fixed on a base body B and a
unit vector f fixed on a follower body F (Simbody's ``Constraint::ConstantAngle``).

One holonomic equation, in the ancestor frame A, and its derivatives (taken in A):

    perr  = b_A·f_A - cos θ
    pverr = (w_AF - w_AB)·(f_A × b_A)
    paerr = (α_AF - α_AB)·(f_A × b_A) + (w_AF - w_AB)·((w_AF × f_A) × b_A - (w_AB × b_A) × f_A)

The multiplier's force Gᵀλ is the torque λ (f_A × b_A) on F and its negative on B (the
constraint applies the opposite, Simbody's sign). The equation is best conditioned at θ = π/2
and singular at 0 and π (aligning two vectors takes two equations), so those angles are
refused. ConstantOrientation and Weld use the same equation three times.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints._stations import add_torque, offset
from kinetree.multibody.kernels.small import cross3, dot3, scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS

CODE = CONSTRAINTS["constant_angle"]
_WHERE = "Constraint.ConstantAngle"
_B, _F = 0, 1
"""The constrained bodies: the base B and the follower F."""

_MIN_SIN = 1e-6
"""Angles with |sin θ| below this are refused: the equation has no gradient there."""


# --------------------------------------------- one pair of perpendicular-ish axes
# Shared with ConstantOrientation and Weld: f_A fixed on the follower, b_A on the base, both
# unit vectors in A; w and α are the bodies' angular velocities and accelerations in A.

@helper
def angle_rate(f_A, b_A, w_AB, w_AF):
    """d/dt (b_A·f_A) = (w_AF - w_AB)·(f_A × b_A) (1/s)."""
    return dot3(sub3(w_AF, w_AB), cross3(f_A, b_A))


@helper
def angle_acceleration(f_A, b_A, w_AB, w_AF, b_AB, b_AF):
    """d²/dt² (b_A·f_A) (1/s²), with α_AB = b_AB and α_AF = b_AF the angular
    accelerations: (α_AF - α_AB)·(f_A × b_A) + (w_AF - w_AB)·((w_AF × f_A) × b_A -
    (w_AB × b_A) × f_A)."""
    return (dot3(sub3(b_AF, b_AB), cross3(f_A, b_A))
            + dot3(sub3(w_AF, w_AB), sub3(cross3(cross3(w_AF, f_A), b_A),
                                          cross3(cross3(w_AB, b_A), f_A))))


@helper
def add_angle_torque(F_A, base, follower, f_A, b_A, lam):
    """The torque λ (f_A × b_A) (N·m, in A) on the follower and its negative on the
    base: the force Gᵀλ of one angle equation."""
    t = scale3(lam, cross3(f_A, b_A))
    add_torque(F_A, follower, t)
    add_torque(F_A, base, scale3(-1.0, t))


# ------------------------------------------------------------------ physics
# cf = [base axis (3, in B), follower axis (3, in F), cos θ].

@helper
def _axes(cf, R_AB):
    """(b_A, f_A): the two unit vectors in A."""
    return offset(R_AB, _B, vec3(cf[0:3])), offset(R_AB, _F, vec3(cf[3:6]))


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = b_A·f_A - cos θ."""
    b_A, f_A = _axes(cf, R_AB)
    perr[0] = dot3(b_A, f_A) - cf[6]


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = (w_AF - w_AB)·(f_A × b_A)."""
    b_A, f_A = _axes(cf, R_AB)
    uerr[0] = angle_rate(f_A, b_A, vec3(V_AB[_B, :3]), vec3(V_AB[_F, :3]))


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = d²/dt² (b_A·f_A)."""
    b_A, f_A = _axes(cf, R_AB)
    aerr[0] = angle_acceleration(f_A, b_A, vec3(V_AB[_B, :3]), vec3(V_AB[_F, :3]),
                                 vec3(A_AB[_B, :3]), vec3(A_AB[_F, :3]))


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """λ (f_A × b_A) on F, its negative on B."""
    b_A, f_A = _axes(cf, R_AB)
    add_angle_torque(F_A, _B, _F, f_A, b_A, lam[0])


# ------------------------------------------------------------------ the class
def _angle(angle, where: str) -> float:
    theta = _checks.real(angle, where, "the angle")
    if abs(math.sin(theta)) < _MIN_SIN:
        raise InvalidArgumentError(
            f"{where}: the angle {theta:g} rad makes the vectors (anti)parallel, where one "
            f"equation cannot hold them (its gradient vanishes); to align two axes use two "
            f"ConstantAngle constraints at pi/2 on axes perpendicular to them, or a "
            f"ConstantOrientation.")
    return theta


class _ConstantAngleImplementation(BuiltinImplementation):
    """perr = b_A·f_A - cos θ; constrained bodies 0 (base B) and 1 (follower F)."""

    CODE = CODE

    def __init__(self, base_body, base_axis, follower_body, follower_axis, angle):
        matter = _checks.two_bodies(base_body, follower_body, _WHERE, "base_body",
                                    "follower_body")
        self._axis_B = _checks.unit_vec3(base_axis, _WHERE, "the base axis")
        self._axis_F = _checks.unit_vec3(follower_axis, _WHERE, "the follower axis")
        self._set_angle(_angle(angle, _WHERE))
        super().__init__(matter, 1, 0, 0)
        self._B = self.add_constrained_body(base_body)
        self._F = self.add_constrained_body(follower_body)

    def _set_angle(self, theta: float) -> None:
        self._angle = theta
        self._cos = math.cos(theta)

    def parameters(self, state) -> np.ndarray:
        return np.concatenate([self._axis_B, self._axis_F, [self._cos]])


class ConstantAngle(Constraint):
    """``Constraint.ConstantAngle(base_body, base_axis, follower_body, follower_axis,
    angle=pi/2)``: the angle (rad) between base_axis (fixed in the base body, in its frame)
    and follower_axis (fixed in the follower, in its frame) stays constant. The axes are
    normalized; the angle must keep clear of 0 and pi."""

    def __init__(self, base_body, base_axis, follower_body, follower_axis,
                 angle: float = math.pi / 2):
        super().__init__(_ConstantAngleImplementation(base_body, base_axis, follower_body,
                                                      follower_axis, angle))

    # ------------------------------------------------------------ topology
    def get_base_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_follower_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._F)

    def get_default_base_axis(self) -> np.ndarray:
        """The unit base axis, in the base body's frame."""
        return self._impl._axis_B.copy()

    def get_default_follower_axis(self) -> np.ndarray:
        """The unit follower axis, in the follower body's frame."""
        return self._impl._axis_F.copy()

    def get_default_angle(self) -> float:
        """θ (rad)."""
        return self._impl._angle

    def set_default_base_axis(self, axis) -> ConstantAngle:
        """The base axis (in the base frame, normalized); a topological change."""
        self._impl._axis_B = _checks.unit_vec3(
            axis, f"{self._name()}.set_default_base_axis", "the axis")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_follower_axis(self, axis) -> ConstantAngle:
        """The follower axis (in the follower frame, normalized); a topological change."""
        self._impl._axis_F = _checks.unit_vec3(
            axis, f"{self._name()}.set_default_follower_axis", "the axis")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_angle(self, angle: float) -> ConstantAngle:
        """θ (rad, clear of 0 and pi); a topological change."""
        self._impl._set_angle(_angle(angle, f"{self._name()}.set_default_angle"))
        self._impl.invalidate_topology_cache()
        return self

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """b·f - cos θ (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_error(self, state) -> float:
        """d/dt (b·f) (1/s) (VELOCITY)."""
        return _checks.one(self, self.get_velocity_errors_as_vector(state),
                           "get_velocity_error")

    def get_acceleration_error(self, state) -> float:
        """d²/dt² (b·f) (1/s²) (ACCELERATION)."""
        return _checks.one(self, self.get_acceleration_errors_as_vector(state),
                           "get_acceleration_error")

    def get_multiplier(self, state) -> float:
        """λ (N·m); the constraint applies the torque -λ (f × b) to the follower
        (ACCELERATION)."""
        return _checks.one(self, self.get_multipliers_as_vector(state), "get_multiplier")
