"""Constraint.SphereOnPlaneContact: a sphere on one body touching a plane on another, optionally
rolling on it without slip (Simbody's ``Constraint::SphereOnPlaneContact``): a ball on a floor, a
wheel's tire idealized as a sphere.

The plane is a frame P fixed on the plane ("floor") body F, X_FP: its z axis Pz is the normal, x
and y the tangents, its origin on the plane at height h = p_FP·Pz above F's origin. The sphere,
fixed on the ball body B, has center O (p_BO, m, in B) and radius r; its contact point is its
lowest point along the normal, C = O - r Pz, which is not a station of B: it moves over the ball
as the ball rolls. One holonomic equation, the height of C above the plane, and with rolling
enforced two nonholonomic ones, the slip velocity of B's material point at C measured in F, all
in P; derivatives are taken in F, where Pz does not turn:

    perr  = p_FO·Pz - (h + r)
    pverr = v_FO·Pz                    paerr = a_FO·Pz
    verr  = v_FC·[Px, Py]              vaerr = a_FC·[Px, Py]
    v_FC  = v_FO - r w_FB × Pz         a_FC = a_FO - r b_FB × Pz

with v_FO and a_FO the velocity and acceleration of O in F, w_FB and b_FB = d/dt_F w_FB the
ball's angular velocity and acceleration in F (everything computed in the ancestor frame A).
Each level is the exact time derivative of the one before. The multipliers' force Gᵀλ is
f = λz Pz + λx Px + λy Py (N, in A) at C on B and -f at F's material point at C; the constraint
applies its negative, so -λ is the force on the sphere, in P (Simbody's sign). The plane frame,
center and radius are Position-stage variables of each State, initialized from the defaults.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kinetree.jit import helper
from kinetree.math.transform import Transform
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

CODE = CONSTRAINTS["sphere_on_plane_contact"]
_WHERE = "Constraint.SphereOnPlaneContact"
_F, _B = 0, 1
"""The constrained bodies: the plane ("floor") body F and the ball body B."""


# ------------------------------------------------------------------ physics
# cf = [R_FP (9, row by row), p_FP (3, m, in F), p_BO (3, m, in B), r (m), rolling (1 or 0)].

@helper
def _geometry(cf, R_AB, p_AB):
    """(r_O, r_FO, r_C, r_FC, Px, Py, Pz): the offsets (m, in A) of the center O from B's
    origin and from F's origin, the same two for the contact point C = O - r Pz, and the
    plane frame's axes in A."""
    Pz = _contact.frame_axis(R_AB, _F, cf, 0, 2)
    r_O, r_FO, _ = coincident_offsets(R_AB, p_AB, _F, _B, vec3(cf[12:15]))
    down = scale3(cf[15], Pz)
    return (r_O, r_FO, sub3(r_O, down), sub3(r_FO, down),
            _contact.frame_axis(R_AB, _F, cf, 0, 0), _contact.frame_axis(R_AB, _F, cf, 0, 1),
            Pz)


@helper
def _center_acceleration_in_f(V_AB, A_AB, r_O, r_FO):
    """(v_FO, a_FO): the velocity and acceleration of O measured in F, in A (the relative
    kinematics of O and F's material point at O, with F's Coriolis term)."""
    v = slip_velocity(V_AB, _F, _B, r_O, r_FO)
    a = sub3(slip_acceleration(V_AB, A_AB, _F, _B, r_O, r_FO),
             scale3(2.0, cross3(vec3(V_AB[_F, :3]), v)))
    return v, a


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = p_FO·Pz - (h + r), h = p_FP·Pz."""
    _, r_FO, _, _, _, _, Pz = _geometry(cf, R_AB, p_AB)
    h = cf[9] * cf[2] + cf[10] * cf[5] + cf[11] * cf[8]
    perr[0] = dot3(r_FO, Pz) - (h + cf[15])


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = v_FO·Pz; verr = v_FC·[Px, Py] when rolling."""
    r_O, r_FO, r_C, r_FC, Px, Py, Pz = _geometry(cf, R_AB, p_AB)
    uerr[0] = dot3(slip_velocity(V_AB, _F, _B, r_O, r_FO), Pz)
    if cf[16] != 0.0:
        v = slip_velocity(V_AB, _F, _B, r_C, r_FC)
        uerr[1], uerr[2] = dot3(v, Px), dot3(v, Py)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = a_FO·Pz; vaerr = (a_FO - r b_FB × Pz)·[Px, Py] when rolling, b_FB =
    (b_AB - b_AF) - w_AF × w_AB."""
    r_O, r_FO, _, _, Px, Py, Pz = _geometry(cf, R_AB, p_AB)
    _, a_FO = _center_acceleration_in_f(V_AB, A_AB, r_O, r_FO)
    aerr[0] = dot3(a_FO, Pz)
    if cf[16] != 0.0:
        b_FB = sub3(sub3(vec3(A_AB[_B, :3]), vec3(A_AB[_F, :3])),
                    cross3(vec3(V_AB[_F, :3]), vec3(V_AB[_B, :3])))
        a_FC = sub3(a_FO, scale3(cf[15], cross3(b_FB, Pz)))
        aerr[1], aerr[2] = dot3(a_FC, Px), dot3(a_FC, Py)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """f = λz Pz (+ λx Px + λy Py when rolling) at C on B, -f at F's point at C."""
    _, _, r_C, r_FC, Px, Py, Pz = _geometry(cf, R_AB, p_AB)
    force = scale3(lam[0], Pz)
    if cf[16] != 0.0:
        force = add3(force, add3(scale3(lam[1], Px), scale3(lam[2], Py)))
    add_coincident_force(F_A, _F, _B, r_C, r_FC, force)


@helper(forceinline=False)
def contact_point(cf, R_AB, p_AB):
    """p_AC (m, in A): the sphere's lowest point along the plane normal."""
    _, _, r_C, _, _, _, _ = _geometry(cf, R_AB, p_AB)
    return add3(vec3(p_AB[_B]), r_C)


# ------------------------------------------------------------------ the class
class _Parameters(NamedTuple):
    """One State's plane frame X_FP (its rotation R_FP and origin p_FP, m, in F), sphere
    center p_BO (m, in B) and radius (m)."""

    R_FP: np.ndarray
    p_FP: np.ndarray
    p_BO: np.ndarray
    radius: float

    @property
    def X_FP(self) -> Transform:  # noqa: N802
        return _contact.frame(self.R_FP, self.p_FP)

    def with_plane_frame(self, X_FP) -> _Parameters:  # noqa: N803
        R, p = _contact.frame_arrays(X_FP)
        return self._replace(R_FP=R, p_FP=p)


class _SphereOnPlaneContactImplementation(_contact.StateParameters, BuiltinImplementation):
    """perr = p_FO·Pz - (h + r), verr = v_FC·[Px, Py] when rolling; constrained bodies 0
    (plane body F) and 1 (ball body B)."""

    CODE = CODE

    def __init__(self, plane_mobod, plane_frame, sphere_mobod, center, radius, rolling):
        matter = _checks.two_bodies(plane_mobod, sphere_mobod, _WHERE, "plane_mobod",
                                    "sphere_mobod")
        self.rolling = _contact.flag(rolling, _WHERE, "enforce_rolling")
        self._defaults = _Parameters(
            *_contact.frame_arrays(_checks.transform(plane_frame, _WHERE, "the plane frame")),
            _checks.vec3(center, _WHERE, "the sphere center"),
            _contact.positive(radius, _WHERE, "the sphere radius"))
        super().__init__(matter, 1, 2 if self.rolling else 0, 0)
        self._F = self.add_constrained_body(plane_mobod)
        self._B = self.add_constrained_body(sphere_mobod)
        self._parameters_index = None
        self.plane_half_width = 1.0

    # ------------------------------------------------- per-State parameters
    _WHERE = _WHERE
    _PARAMETERS = "the plane frame, center and radius"

    def _initial_parameters(self) -> _Parameters:
        d = self._defaults
        return _Parameters(d.R_FP.copy(), d.p_FP.copy(), d.p_BO.copy(), d.radius)

    def parameters(self, state) -> np.ndarray:
        p = self.get_parameters(state)
        return np.concatenate([np.ravel(p.R_FP), p.p_FP, p.p_BO,
                               [p.radius, 1.0 if self.rolling else 0.0]])

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """At POSITION, as Simbody draws it: the plane as a translucent gray square with its
        frame, and the sphere as an orange wireframe."""
        if stage != Stage.POSITION:
            return
        from kinetree.viz.decorations import (
            DecorativeBrick,
            DecorativeFrame,
            DecorativeSphere,
            Representation,
        )

        p = self.get_parameters(state)
        plane = self._bodies[self._F].get_mobilized_body_index()
        ball = self._bodies[self._B].get_mobilized_body_index()
        w = self.plane_half_width
        if w > 0:
            geometry.append(DecorativeBrick([w, w, p.radius / 10]).set_body_id(plane)
                            .set_transform(p.X_FP).set_color("gray").set_opacity(0.3))
            geometry.append(DecorativeFrame(w / 5).set_body_id(plane)
                            .set_transform(p.X_FP).set_color("gray"))
        geometry.append(DecorativeSphere(p.radius).set_body_id(ball)
                        .set_transform(Transform(p.p_BO)).set_color("orange")
                        .set_representation(Representation.WIREFRAME))


class SphereOnPlaneContact(Constraint):
    """``Constraint.SphereOnPlaneContact(plane_mobod, default_plane_frame, sphere_mobod,
    default_sphere_center, default_sphere_radius, enforce_rolling)``: the sphere of center
    default_sphere_center (p_BO, m, in the ball body's frame B) and radius
    default_sphere_radius (m, > 0) touches the x-y plane of default_plane_frame (X_FP, a
    kt.Transform in the plane body's frame F); with ``enforce_rolling`` it also rolls
    without slipping. One holonomic equation, and two nonholonomic ones when rolling."""

    def __init__(self, plane_mobod, default_plane_frame, sphere_mobod, default_sphere_center,
                 default_sphere_radius, enforce_rolling):
        super().__init__(_SphereOnPlaneContactImplementation(
            plane_mobod, default_plane_frame, sphere_mobod, default_sphere_center,
            default_sphere_radius, enforce_rolling))

    # ------------------------------------------------------------ topology
    def get_plane_mobilized_body(self):
        """The body F the plane is fixed on."""
        return self.get_mobilized_body_from_constrained_body(self._impl._F)

    def get_sphere_mobilized_body(self):
        """The body B the sphere is fixed on."""
        return self.get_mobilized_body_from_constrained_body(self._impl._B)

    def is_enforcing_rolling(self) -> bool:
        """Whether the no-slip equations are enforced (fixed at construction)."""
        return self._impl.rolling

    def get_default_plane_frame(self) -> Transform:
        """The default X_FP (in F; origin in m)."""
        return self._impl._defaults.X_FP

    def get_default_sphere_center(self) -> np.ndarray:
        """The default p_BO (m, in B)."""
        return self._impl._defaults.p_BO.copy()

    def get_default_sphere_radius(self) -> float:
        """The default radius (m)."""
        return self._impl._defaults.radius

    def set_default_plane_frame(self, default_plane_frame) -> SphereOnPlaneContact:
        """The X_FP new States start with (a topological change)."""
        X = _checks.transform(default_plane_frame,
                              f"{self._name()}.set_default_plane_frame", "the frame")
        self._impl._defaults = self._impl._defaults.with_plane_frame(X)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_sphere_center(self, default_sphere_center) -> SphereOnPlaneContact:
        """The p_BO (m, in B) new States start with (a topological change)."""
        p = _checks.vec3(default_sphere_center,
                         f"{self._name()}.set_default_sphere_center", "the center")
        self._impl._defaults = self._impl._defaults._replace(p_BO=p)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_sphere_radius(self, default_sphere_radius: float) -> SphereOnPlaneContact:
        """The radius (m, > 0) new States start with (a topological change)."""
        r = _contact.positive(default_sphere_radius,
                              f"{self._name()}.set_default_sphere_radius", "the radius")
        self._impl._defaults = self._impl._defaults._replace(radius=r)
        self._impl.invalidate_topology_cache()
        return self

    # ------------------------------------------------------- visualization
    def set_plane_display_half_width(self, half_width: float) -> SphereOnPlaneContact:
        """Half width (m) of the square drawn for the (infinite) plane; 0 hides it
        (visualization only)."""
        self._impl.plane_half_width = max(0.0, _checks.real(
            half_width, f"{self._name()}.set_plane_display_half_width", "the half width"))
        return self

    def get_plane_display_half_width(self) -> float:
        return self._impl.plane_half_width

    # -------------------------------------------------- Position variables
    def set_plane_frame(self, state, plane_frame) -> SphereOnPlaneContact:
        """This State's X_FP (in F); a Position-stage change."""
        X = _checks.transform(plane_frame, f"{self._name()}.set_plane_frame", "the frame")
        self._impl.set_parameters(state, self._impl.get_parameters(state).with_plane_frame(X))
        return self

    def set_sphere_center(self, state, sphere_center) -> SphereOnPlaneContact:
        """This State's p_BO (m, in B); a Position-stage change."""
        p = _checks.vec3(sphere_center, f"{self._name()}.set_sphere_center", "the center")
        self._impl.set_parameters(state, self._impl.get_parameters(state)._replace(p_BO=p))
        return self

    def set_sphere_radius(self, state, sphere_radius: float) -> SphereOnPlaneContact:
        """This State's radius (m, > 0); a Position-stage change."""
        r = _contact.positive(sphere_radius, f"{self._name()}.set_sphere_radius",
                              "the radius")
        self._impl.set_parameters(state,
                                  self._impl.get_parameters(state)._replace(radius=r))
        return self

    def get_plane_frame(self, state) -> Transform:
        """This State's X_FP (in F; origin in m, on the plane)."""
        return self._impl.get_parameters(state).X_FP

    def get_sphere_center(self, state) -> np.ndarray:
        """This State's p_BO (m, in B)."""
        return np.array(self._impl.get_parameters(state).p_BO)

    def get_sphere_radius(self, state) -> float:
        """This State's radius (m)."""
        return float(self._impl.get_parameters(state).radius)

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """The signed distance (m) from the sphere's lowest point to the plane, positive
        above it along Pz (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_errors(self, state) -> np.ndarray:
        """[v_FC·Px, v_FC·Py, d/dt perr] (m/s, in P): the slip velocity of the ball's
        material point at the contact (zeros when rolling is not enforced) and the normal
        rate (VELOCITY)."""
        return _contact.enabled_values(self, self.get_velocity_errors_as_vector(state),
                                       "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """The time derivative of get_velocity_errors (m/s², in P), not the acceleration
        of the ball's material point, since the contact point moves over the ball
        (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_acceleration_errors_as_vector(state),
                                       "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """[λx, λy, λz] (N, in P): the negative of the force on the sphere at the contact
        point (x, y zero when rolling is not enforced) (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_multipliers_as_vector(state),
                                       "get_multipliers")

    def find_force_on_sphere_in_g(self, state) -> np.ndarray:
        """The force (N, in Ground) the constraint applies to the sphere at the contact
        point; the plane body gets its opposite. Zero while disabled (ACCELERATION)."""
        if self.is_disabled(state):
            return np.zeros(3)
        R_GF = self.get_plane_mobilized_body().get_body_rotation(state).as_matrix()
        R_FP = np.asarray(self._impl.get_parameters(state).R_FP)
        return R_GF @ R_FP @ -self.get_multipliers(state)

    def find_contact_point_in_g(self, state) -> np.ndarray:
        """p_GC (m, in Ground): the point of the sphere lowest along the plane normal,
        whether or not the constraint is enabled or satisfied (POSITION)."""
        R_AB, p_AB, R_GA, p_GA = _contact.poses_in_ancestor(self, state)
        p_AC = np.array(contact_point(self._impl.parameters(state), R_AB, p_AB))
        return p_GA + R_GA @ p_AC

    def find_separation(self, state) -> float:
        """The height (m) of the sphere's lowest point above the plane along Pz: negative
        when penetrating; whether or not the constraint is enabled (POSITION)."""
        R_AB, p_AB, _, _ = _contact.poses_in_ancestor(self, state)
        perr = np.zeros(1)
        position_errors(self._impl.parameters(state), R_AB, p_AB, perr)
        return float(perr[0])
