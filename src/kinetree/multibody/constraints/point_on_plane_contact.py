"""Constraint.PointOnPlaneContact: a point of one body kept in a plane of another and stuck to it,
neither penetrating nor slipping (Simbody's ``Constraint::PointOnPlaneContact``), the bilateral
basis of a vertex contact with friction.

The plane is a frame P fixed on the plane (surface) body S, X_SP: its z axis Pz is the normal, its
x and y axes the tangent directions, and its origin lies on the plane at height h = p_SP·Pz above
S's origin. The follower point F is a station p_BF of the follower body B. One holonomic equation,
the height of F above the plane, and two nonholonomic ones, F's velocity along the plane, all
measured in P (so with C the material point of S at F's location):

    perr   = p_SC·Pz - h
    pverr  = v_CF·Pz,                               v_CF = v_AF - v_AC
    verr   = [v_CF·Px, v_CF·Py]
    paerr, vaerr = (a_AF - a_AC - 2 w_AS × v_CF)·[Pz, Px, Py]

in the ancestor frame A: together, the velocity and acceleration of F measured in P. Unlike the
other contact constraints, Simbody always enforces the no-slip equations here (a point in a
plane without them is Constraint.PointInPlane). The multipliers' force Gᵀλ is
f = λz Pz + λx Px + λy Py (N, in A) at F on B and -f at C on S; the constraint applies its
negative, so λ is the force the follower point applies to the plane (Simbody's sign), in P. The
plane frame and the point are topological (``set_default_*``). ``get_velocity_errors``,
``get_acceleration_errors`` and ``get_multipliers`` return [x, y, z] in P, as Simbody documents
them and as the other contact constraints return theirs (Simbody's code for this class alone
returns them normal first).
"""

from __future__ import annotations

import numpy as np

from kinetree.jit import helper
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks, _contact
from kinetree.multibody.constraints.ball import (
    add_coincident_force,
    coincident_offsets,
    slip_acceleration,
    slip_velocity,
)
from kinetree.multibody.kernels.small import add3, cross3, dot3, scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["point_on_plane_contact"]
_WHERE = "Constraint.PointOnPlaneContact"
_S, _B = 0, 1
"""The constrained bodies: the plane (surface) body S and the follower body B."""


# ------------------------------------------------------------------ physics
# cf = [R_SP (9, row by row), p_SP (3, m, in S), p_BF (3, m, in B)].

@helper
def _geometry(cf, R_AB, p_AB):
    """(r_F, r_C, Px, Py, Pz): the offsets (m, in A) of F from B's origin and of S's
    material point C at F from S's origin, and the plane frame's axes in A."""
    r_F, r_C, _ = coincident_offsets(R_AB, p_AB, _S, _B, vec3(cf[12:15]))
    return (r_F, r_C, _contact.frame_axis(R_AB, _S, cf, 0, 0),
            _contact.frame_axis(R_AB, _S, cf, 0, 1), _contact.frame_axis(R_AB, _S, cf, 0, 2))


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = p_SC·Pz - h, h = p_SP·Pz."""
    _, r_C, _, _, Pz = _geometry(cf, R_AB, p_AB)
    h = cf[9] * cf[2] + cf[10] * cf[5] + cf[11] * cf[8]
    perr[0] = dot3(r_C, Pz) - h


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """[pverr; verr] = v_CF·[Pz, Px, Py]."""
    r_F, r_C, Px, Py, Pz = _geometry(cf, R_AB, p_AB)
    v = slip_velocity(V_AB, _S, _B, r_F, r_C)
    uerr[0], uerr[1], uerr[2] = dot3(v, Pz), dot3(v, Px), dot3(v, Py)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """[paerr; vaerr] = (a_AF - a_AC - 2 w_AS × v_CF)·[Pz, Px, Py]: F's acceleration in P."""
    r_F, r_C, Px, Py, Pz = _geometry(cf, R_AB, p_AB)
    v = slip_velocity(V_AB, _S, _B, r_F, r_C)
    a = sub3(slip_acceleration(V_AB, A_AB, _S, _B, r_F, r_C),
             scale3(2.0, cross3(vec3(V_AB[_S, :3]), v)))
    aerr[0], aerr[1], aerr[2] = dot3(a, Pz), dot3(a, Px), dot3(a, Py)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """f = λz Pz + λx Px + λy Py at F on B, -f at C on S."""
    r_F, r_C, Px, Py, Pz = _geometry(cf, R_AB, p_AB)
    force = add3(add3(scale3(lam[0], Pz), scale3(lam[1], Px)), scale3(lam[2], Py))
    add_coincident_force(F_A, _S, _B, r_F, r_C, force)


# ------------------------------------------------------------------ the class
class _PointOnPlaneContactImplementation(BuiltinImplementation):
    """perr = p_SC·Pz - h, verr = v_CF·[Px, Py]; constrained bodies 0 (plane body S) and
    1 (follower B)."""

    CODE = CODE

    def __init__(self, plane_body, plane_frame, follower_body, follower_point):
        matter = _checks.two_bodies(plane_body, follower_body, _WHERE, "plane_body",
                                    "follower_body")
        self._X_SP = _checks.transform(plane_frame, _WHERE, "the plane frame")
        self._p_BF = _checks.vec3(follower_point, _WHERE, "the follower point")
        super().__init__(matter, 1, 2, 0)
        self._S = self.add_constrained_body(plane_body)
        self._B = self.add_constrained_body(follower_body)
        self.plane_half_width = 1.0
        self.point_radius = 0.05

    def parameters(self, state) -> np.ndarray:
        return np.concatenate([_contact.rotation_row_by_row(self._X_SP), self._X_SP.p,
                               self._p_BF])

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """At POSITION, as Simbody draws it: the plane as a thin translucent gray square on
        the plane body and the follower point as an orange wireframe sphere."""
        if stage != Stage.POSITION or self.plane_half_width <= 0 or self.point_radius <= 0:
            return
        from kinetree.math.transform import Transform
        from kinetree.viz.decorations import DecorativeBrick, DecorativeSphere, Representation

        w, r = self.plane_half_width, self.point_radius
        plane = self._bodies[self._S].get_mobilized_body_index()
        follower = self._bodies[self._B].get_mobilized_body_index()
        geometry.append(DecorativeBrick([w, w, r / 2]).set_body_id(plane)
                        .set_transform(self._X_SP).set_color("gray").set_opacity(0.3))
        geometry.append(DecorativeSphere(r).set_body_id(follower)
                        .set_transform(Transform(self._p_BF)).set_color("orange")
                        .set_representation(Representation.WIREFRAME))


class PointOnPlaneContact(Constraint):
    """``Constraint.PointOnPlaneContact(plane_body, default_plane_frame, follower_body,
    default_follower_point)``: the station default_follower_point (p_BF, m, in the
    follower's frame B) stays in the x-y plane of the frame default_plane_frame (X_SP, a
    kt.Transform in the plane body's frame S) and does not slip along it. One holonomic and
    two nonholonomic equations."""

    def __init__(self, plane_body, default_plane_frame, follower_body,
                 default_follower_point):
        super().__init__(_PointOnPlaneContactImplementation(
            plane_body, default_plane_frame, follower_body, default_follower_point))

    # ------------------------------------------------------------ topology
    def get_plane_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._S)

    def get_follower_mobilized_body_index(self) -> int:
        return self._impl.get_mobilized_body_index_of_constrained_body(self._impl._B)

    def get_default_plane_frame(self):
        """X_SP: the plane frame in the plane body's frame (z the normal, origin on the
        plane, m)."""
        return self._impl._X_SP

    def get_default_follower_point(self) -> np.ndarray:
        """p_BF (m, in the follower's frame B)."""
        return self._impl._p_BF.copy()

    def set_default_plane_frame(self, default_plane_frame) -> PointOnPlaneContact:
        """X_SP (a kt.Transform in S); a topological change."""
        self._impl._X_SP = _checks.transform(
            default_plane_frame, f"{self._name()}.set_default_plane_frame", "the frame")
        self._impl.invalidate_topology_cache()
        return self

    def set_default_follower_point(self, default_follower_point) -> PointOnPlaneContact:
        """p_BF (m, in B); a topological change."""
        self._impl._p_BF = _checks.vec3(
            default_follower_point, f"{self._name()}.set_default_follower_point",
            "the point")
        self._impl.invalidate_topology_cache()
        return self

    def get_plane_frame(self, state):
        """X_SP in effect in ``state`` (the default: Simbody has no per-State setter)."""
        return self._impl._X_SP

    def get_follower_point(self, state) -> np.ndarray:
        """p_BF (m, in B) in effect in ``state`` (the default)."""
        return self._impl._p_BF.copy()

    # ------------------------------------------------------- visualization
    def set_plane_display_half_width(self, half_width: float) -> PointOnPlaneContact:
        """Half width (m) of the square drawn for the (infinite) plane; 0 hides the
        drawing (visualization only)."""
        self._impl.plane_half_width = max(0.0, _checks.real(
            half_width, f"{self._name()}.set_plane_display_half_width", "the half width"))
        return self

    def set_point_display_radius(self, radius: float) -> PointOnPlaneContact:
        """Radius (m) of the sphere drawn at the follower point; 0 hides the drawing
        (visualization only)."""
        self._impl.point_radius = max(0.0, _checks.real(
            radius, f"{self._name()}.set_point_display_radius", "the radius"))
        return self

    def get_plane_display_half_width(self) -> float:
        return self._impl.plane_half_width

    def get_point_display_radius(self) -> float:
        return self._impl.point_radius

    def is_enforcing_rolling(self) -> bool:
        """Always True: this constraint always has its no-slip equations."""
        return True

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """The signed height (m) of the follower point above the plane, along Pz
        (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_errors(self, state) -> np.ndarray:
        """v_PF (m/s, in P): the follower point's velocity in the plane frame, x and y the
        slip, z the rate of the height (positive when separating) (VELOCITY)."""
        return _contact.enabled_values(self, self.get_velocity_errors_as_vector(state),
                                       "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """a_PF (m/s², in P), the time derivative of get_velocity_errors (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_acceleration_errors_as_vector(state),
                                       "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """[λx, λy, λz] (N, in P): the force the follower point applies to the plane body
        (multipliers have the sign opposite to applied forces) (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_multipliers_as_vector(state),
                                       "get_multipliers")

    def get_force_on_follower_point(self, state) -> np.ndarray:
        """The force (N, in P) the plane body applies to the follower point: -λ
        (ACCELERATION)."""
        return -self.get_multipliers(state)
