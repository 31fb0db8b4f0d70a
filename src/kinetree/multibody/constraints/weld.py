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
from kinetree.jit import helper
from kinetree.math.transform import Transform
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks
from kinetree.multibody.constraints._stations import location, offset
from kinetree.multibody.constraints.ball import (
    add_coincident_force,
    coincident_offsets,
    slip_acceleration,
    slip_velocity,
)
from kinetree.multibody.constraints.constant_orientation import (
    add_orientation_torques,
    orientation_dot_dot_errors,
    orientation_dot_errors,
    orientation_errors,
)
from kinetree.multibody.kernels.small import sub3, vec3
from kinetree.registry import CONSTRAINTS

CODE = CONSTRAINTS["weld"]
_WHERE = "Constraint.Weld"
_B, _F = 0, 1
"""The constrained bodies: body 1 (Simbody's B) and body 2 (Simbody's F)."""


# ------------------------------------------------------------------ physics
# cf = [R_B1F1 (9, row by row), p_B1F1 (3), R_B2F2 (9, row by row), p_B2F2 (3)]: the two
# frames' rotations and origins, each in its body's frame (origins in m).

@helper
def _origin_offsets(cf, R_AB, p_AB):
    """(r_S, r_C): the offsets (m, in A) of F2 from body 2's origin and of the material
    point C of body 1 at F2 from body 1's origin."""
    r_S, r_C, _ = coincident_offsets(R_AB, p_AB, _B, _F, vec3(cf[21:24]))
    return r_S, r_C


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = [orientation errors; p_AF2 - p_AF1]."""
    orientation_errors(cf, 0, 12, R_AB, _B, _F, perr)
    e = sub3(location(p_AB, _F, offset(R_AB, _F, vec3(cf[21:24]))),
             location(p_AB, _B, offset(R_AB, _B, vec3(cf[9:12]))))
    perr[3], perr[4], perr[5] = e


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = [orientation rates; v_AF2 - v_AC]."""
    orientation_dot_errors(cf, 0, 12, R_AB, V_AB, _B, _F, uerr)
    r_S, r_C = _origin_offsets(cf, R_AB, p_AB)
    e = slip_velocity(V_AB, _B, _F, r_S, r_C)
    uerr[3], uerr[4], uerr[5] = e


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = [orientation accelerations; a_AF2 - a_AC]."""
    orientation_dot_dot_errors(cf, 0, 12, R_AB, V_AB, A_AB, _B, _F, aerr)
    r_S, r_C = _origin_offsets(cf, R_AB, p_AB)
    e = slip_acceleration(V_AB, A_AB, _B, _F, r_S, r_C)
    aerr[3], aerr[4], aerr[5] = e


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """The orientation torques of λ[:3] on body 2 (their negative on body 1); λ[3:] at F2
    on body 2 and -λ[3:] at C on body 1."""
    add_orientation_torques(cf, 0, 12, R_AB, _B, _F, lam, F_A)
    r_S, r_C = _origin_offsets(cf, R_AB, p_AB)
    add_coincident_force(F_A, _B, _F, r_S, r_C, (lam[3], lam[4], lam[5]))


# ------------------------------------------------------------------ the class
class _WeldImplementation(BuiltinImplementation):
    """perr = [orientation errors; p_AF2 - p_AF1]; constrained bodies 0 (body 1, Simbody's
    B) and 1 (body 2, Simbody's F)."""

    CODE = CODE

    def __init__(self, body1, frame1, body2, frame2):
        matter = _checks.two_bodies(body1, body2, _WHERE, "body1", "body2")
        self._X_B1 = _checks.transform(frame1, _WHERE, "the frame on body 1")
        self._X_B2 = _checks.transform(frame2, _WHERE, "the frame on body 2")
        super().__init__(matter, 6, 0, 0)
        self._B = self.add_constrained_body(body1)
        self._F = self.add_constrained_body(body2)

    def parameters(self, state) -> np.ndarray:
        X1, X2 = self._X_B1, self._X_B2
        return np.concatenate([X1.R.as_matrix().ravel(), X1.p, X2.R.as_matrix().ravel(), X2.p])


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
