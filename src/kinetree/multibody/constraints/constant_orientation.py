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

from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints.constant_angle import (
    add_angle_torque,
    angle_acceleration,
    angle_rate,
)
from kinetree.multibody.kernels.small import dot3, rotate3, vec3
from kinetree.registry import CONSTRAINTS

CODE = CONSTRAINTS["constant_orientation"]
_WHERE = "Constraint.ConstantOrientation"
_B, _F = 0, 1
"""The constrained bodies: the base B and the follower F."""


# ------------------------------------- the three orientation equations, shared with Weld
# The frames' rotations R_B (in the base body) and R_F (in the follower) are read from cf
# at offsets o_B and o_F, 9 entries each, row by row; equation i keeps follower axis i
# perpendicular to base axis i + 1 (mod 3): the pairs (x, y), (y, z), (z, x).

@helper
def _frame_axis(cf, o, R_AB, j, k):
    """Axis k of the frame whose rotation is cf[o:o + 9], fixed on body j, in A."""
    return rotate3(R_AB[j], (cf[o + k], cf[o + 3 + k], cf[o + 6 + k]))


@helper
def _pair(cf, o_B, o_F, R_AB, base, follower, i):
    """(f_A, b_A): the follower and base axes of equation i, in A."""
    return (_frame_axis(cf, o_F, R_AB, follower, i),
            _frame_axis(cf, o_B, R_AB, base, (i + 1) % 3))


@helper
def orientation_errors(cf, o_B, o_F, R_AB, base, follower, perr):
    """perr[:3] = [RFx·RBy, RFy·RBz, RFz·RBx]."""
    for i in range(3):
        f_A, b_A = _pair(cf, o_B, o_F, R_AB, base, follower, i)
        perr[i] = dot3(f_A, b_A)


@helper
def orientation_dot_errors(cf, o_B, o_F, R_AB, V_AB, base, follower, pverr):
    """pverr[:3] = the rates of the three orientation errors (1/s)."""
    w_AB, w_AF = vec3(V_AB[base, :3]), vec3(V_AB[follower, :3])
    for i in range(3):
        f_A, b_A = _pair(cf, o_B, o_F, R_AB, base, follower, i)
        pverr[i] = angle_rate(f_A, b_A, w_AB, w_AF)


@helper
def orientation_dot_dot_errors(cf, o_B, o_F, R_AB, V_AB, A_AB, base, follower, paerr):
    """paerr[:3] = the second derivatives of the three orientation errors (1/s²)."""
    w_AB, w_AF = vec3(V_AB[base, :3]), vec3(V_AB[follower, :3])
    b_AB, b_AF = vec3(A_AB[base, :3]), vec3(A_AB[follower, :3])
    for i in range(3):
        f_A, b_A = _pair(cf, o_B, o_F, R_AB, base, follower, i)
        paerr[i] = angle_acceleration(f_A, b_A, w_AB, w_AF, b_AB, b_AF)


@helper
def add_orientation_torques(cf, o_B, o_F, R_AB, base, follower, lam, F_A):
    """The torques Σ λ[i] (f_A × b_A) (N·m, in A) of lam[:3] on the follower and their
    negative on the base."""
    for i in range(3):
        f_A, b_A = _pair(cf, o_B, o_F, R_AB, base, follower, i)
        add_angle_torque(F_A, base, follower, f_A, b_A, lam[i])


# ------------------------------------------------------------------ physics
# cf = [R_B (9, row by row), R_F (9, row by row)].

@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = [RFx·RBy, RFy·RBz, RFz·RBx]."""
    orientation_errors(cf, 0, 9, R_AB, _B, _F, perr)


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = d/dt perr."""
    orientation_dot_errors(cf, 0, 9, R_AB, V_AB, _B, _F, uerr)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = d²/dt² perr."""
    orientation_dot_dot_errors(cf, 0, 9, R_AB, V_AB, A_AB, _B, _F, aerr)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """Σ λ[i] (f_A × b_A) on F, its negative on B."""
    add_orientation_torques(cf, 0, 9, R_AB, _B, _F, lam, F_A)


# ------------------------------------------------------------------ the class
class _ConstantOrientationImplementation(BuiltinImplementation):
    """perr = [RFx·RBy, RFy·RBz, RFz·RBx]; constrained bodies 0 (base B) and 1
    (follower F)."""

    CODE = CODE

    def __init__(self, base_body, base_rotation, follower_body, follower_rotation):
        matter = _checks.two_bodies(base_body, follower_body, _WHERE, "base_body",
                                    "follower_body")
        self._R_B = _checks.rotation(base_rotation, _WHERE, "the base rotation")
        self._R_F = _checks.rotation(follower_rotation, _WHERE, "the follower rotation")
        super().__init__(matter, 3, 0, 0)
        self._B = self.add_constrained_body(base_body)
        self._F = self.add_constrained_body(follower_body)

    def parameters(self, state) -> np.ndarray:
        return np.concatenate([self._R_B.as_matrix().ravel(), self._R_F.as_matrix().ravel()])


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
