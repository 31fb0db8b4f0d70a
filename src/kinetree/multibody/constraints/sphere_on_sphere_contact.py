"""Constraint.SphereOnSphereContact: a sphere on one body touching a sphere on another, optionally
rolling on it without slip (Simbody's ``Constraint::SphereOnSphereContact``): balls in a bearing,
a ball on a ball.

Body F carries a sphere of center Sf (p_FSf, m, in F) and radius rf, body B one of center Sb
(p_BSb, in B) and radius rb. Signs treat F as if it were fixed: the contact normal Cz points from
Sf to Sb. With p = p_SfSb the center-to-center vector and d = |p|, the contact point Co lies on
the center line, dividing it in proportion to the radii, Co = Sf + rf/(rf + rb) p, and the
contact frame C has origin Co, z axis Cz = p/d (F's z axis while the centers coincide) and x, y
axes built from Cz as Simbody's ``Rotation::setRotationFromOneAxis`` does in the ancestor frame
A (arbitrary, but fixed by the pose). In A:

    perr  = d - (rf + rb)
    pverr = ṗ·Cz                        paerr = p̈·Cz + ṗ·Ċz,   Ċz = (ṗ - (ṗ·Cz) Cz)/d
    verr  = v·[Cx, Cy]                  vaerr = v̇·[Cx, Cy] + v·[Ċx, Ċy]

with v the velocity of B's material point at Co less that of F's (the slip velocity in F) and
v̇ its time derivative in A, Co moving over both bodies. Each level is the exact time derivative
of the one before: Ċx and Ċy are the derivatives of the tangents as built from Cz (Simbody
instead takes the tangents not to spin about Cz relative to F; the two agree wherever the slip
is zero, so the motion is the same). The multipliers' force Gᵀλ is λz Cz at Sb on B and -λz Cz
at Sf on F (the same as at Co, the force lying along the center line), plus, when rolling,
f = λx Cx + λy Cy at B's material point at Co and -f at F's; the constraint applies their
negatives (Simbody's sign), so λ is the negative of the force on sphere B, in C. The centers
and radii are Position-stage variables of each State, initialized from the defaults.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.constraint import BuiltinImplementation, Constraint
from kinetree.multibody.constraints import _checks, _contact
from kinetree.multibody.constraints._stations import (
    acceleration,
    add_force,
    location,
    offset,
    velocity,
)
from kinetree.multibody.constraints.ball import add_coincident_force, slip_velocity
from kinetree.multibody.kernels.small import add3, cross3, dot3, scale3, sub3, vec3
from kinetree.registry import CONSTRAINTS
from kinetree.system.stage import Stage

CODE = CONSTRAINTS["sphere_on_sphere_contact"]
_WHERE = "Constraint.SphereOnSphereContact"
_F, _B = 0, 1
"""The constrained bodies: F (the first sphere's, treated as fixed) and B."""

_SINGULAR = np.finfo(float).eps ** 1.25
"""Center distances (m) below this count as coincident (Simbody's TinyReal)."""


# ------------------------------------------------------------------ physics
# cf = [p_FSf (3, m, in F), rf (m), p_BSb (3, m, in B), rb (m), rolling (1 or 0)].

@helper
def _centers(cf, R_AB, p_AB):
    """(r_Sf, r_Sb, p, d, Cz): the centers' offsets from their body origins, the center
    line p = p_SfSb, its length d and the normal Cz (all in A; F's z axis where d ~ 0)."""
    r_Sf = offset(R_AB, _F, vec3(cf[0:3]))
    r_Sb = offset(R_AB, _B, vec3(cf[4:7]))
    p = sub3(location(p_AB, _B, r_Sb), location(p_AB, _F, r_Sf))
    d = math.sqrt(dot3(p, p))
    if d >= _SINGULAR:
        return r_Sf, r_Sb, p, d, scale3(1.0 / d, p)
    R = R_AB[_F]
    return r_Sf, r_Sb, p, d, (R[0, 2], R[1, 2], R[2, 2])


@helper
def _contact_offsets(cf, p_AB, r_Sf, p):
    """(k, r_FCo, r_BCo): Co's fraction k = rf/(rf + rb) along the center line and its
    offsets (m, in A) from F's and B's origins."""
    k = cf[3] / (cf[3] + cf[7])
    r_FCo = add3(r_Sf, scale3(k, p))
    return k, r_FCo, sub3(r_FCo, sub3(vec3(p_AB[_B]), vec3(p_AB[_F])))


@helper(forceinline=False)
def position_errors(cf, R_AB, p_AB, perr):
    """perr = d - (rf + rb)."""
    perr[0] = _centers(cf, R_AB, p_AB)[3] - (cf[3] + cf[7])


@helper(forceinline=False)
def velocity_errors(cf, R_AB, p_AB, V_AB, u, uerr):
    """pverr = ṗ·Cz; verr = v·[Cx, Cy] when rolling."""
    r_Sf, r_Sb, p, _, Cz = _centers(cf, R_AB, p_AB)
    pd = sub3(velocity(V_AB, _B, r_Sb), velocity(V_AB, _F, r_Sf))
    uerr[0] = dot3(pd, Cz)
    if cf[8] != 0.0:
        _, r_FCo, r_BCo = _contact_offsets(cf, p_AB, r_Sf, p)
        v = slip_velocity(V_AB, _F, _B, r_BCo, r_FCo)
        Cx, Cy = _contact.tangents(Cz)
        uerr[1], uerr[2] = dot3(v, Cx), dot3(v, Cy)


@helper(forceinline=False)
def acceleration_errors(cf, R_AB, p_AB, V_AB, A_AB, udot, aerr):
    """paerr = p̈·Cz + ṗ·Ċz; vaerr = v̇·[Cx, Cy] + v·[Ċx, Ċy] when rolling."""
    r_Sf, r_Sb, p, d, Cz = _centers(cf, R_AB, p_AB)
    w_F = vec3(V_AB[_F, :3])
    v_ASf = velocity(V_AB, _F, r_Sf)
    pd = sub3(velocity(V_AB, _B, r_Sb), v_ASf)
    pdd = sub3(acceleration(V_AB, A_AB, _B, r_Sb), acceleration(V_AB, A_AB, _F, r_Sf))
    if d >= _SINGULAR:
        Czd = scale3(1.0 / d, sub3(pd, scale3(dot3(pd, Cz), Cz)))
    else:
        Czd = cross3(w_F, Cz)
    aerr[0] = dot3(pdd, Cz) + dot3(pd, Czd)
    if cf[8] != 0.0:
        k, r_FCo, r_BCo = _contact_offsets(cf, p_AB, r_Sf, p)
        w_B = vec3(V_AB[_B, :3])
        Co_dot = add3(v_ASf, scale3(k, pd))          # d/dt_A of Co
        vd_FCo = add3(add3(vec3(A_AB[_F, 3:]), cross3(vec3(A_AB[_F, :3]), r_FCo)),
                      cross3(w_F, sub3(Co_dot, vec3(V_AB[_F, 3:]))))
        vd_BCo = add3(add3(vec3(A_AB[_B, 3:]), cross3(vec3(A_AB[_B, :3]), r_BCo)),
                      cross3(w_B, sub3(Co_dot, vec3(V_AB[_B, 3:]))))
        vd = sub3(vd_BCo, vd_FCo)
        v = slip_velocity(V_AB, _F, _B, r_BCo, r_FCo)
        Cx, Cy = _contact.tangents(Cz)
        Cxd, Cyd = _contact.tangent_rates(Cz, Czd)
        aerr[1] = dot3(vd, Cx) + dot3(v, Cxd)
        aerr[2] = dot3(vd, Cy) + dot3(v, Cyd)


@helper(forceinline=False)
def forces(cf, R_AB, p_AB, lam, F_A, f):
    """λz Cz at Sb on B and -λz Cz at Sf on F; when rolling, λx Cx + λy Cy at B's point at
    Co and its opposite at F's."""
    r_Sf, r_Sb, p, _, Cz = _centers(cf, R_AB, p_AB)
    add_force(F_A, _B, r_Sb, scale3(lam[0], Cz))
    add_force(F_A, _F, r_Sf, scale3(-lam[0], Cz))
    if cf[8] != 0.0:
        _, r_FCo, r_BCo = _contact_offsets(cf, p_AB, r_Sf, p)
        Cx, Cy = _contact.tangents(Cz)
        add_coincident_force(F_A, _F, _B, r_BCo, r_FCo,
                             add3(scale3(lam[1], Cx), scale3(lam[2], Cy)))


@helper(forceinline=False)
def contact_frame(cf, R_AB, p_AB):
    """(Cx, Cy, Cz, p_ACo): the contact frame's axes and origin (m), in A."""
    r_Sf, _, p, _, Cz = _centers(cf, R_AB, p_AB)
    _, r_FCo, _ = _contact_offsets(cf, p_AB, r_Sf, p)
    Cx, Cy = _contact.tangents(Cz)
    return Cx, Cy, Cz, add3(vec3(p_AB[_F]), r_FCo)


# ------------------------------------------------------------------ the class
class _Parameters(NamedTuple):
    """One State's spheres: centers (m, each in its body's frame) and radii (m)."""

    p_FSf: np.ndarray
    radius_F: float
    p_BSb: np.ndarray
    radius_B: float


class _SphereOnSphereContactImplementation(_contact.StateParameters, BuiltinImplementation):
    """perr = |p_SfSb| - (rf + rb), verr = v·[Cx, Cy] when rolling; constrained bodies 0
    (F) and 1 (B)."""

    CODE = CODE

    def __init__(self, mobod_F, center_F, radius_F, mobod_B, center_B, radius_B,  # noqa: N803
                 rolling):
        matter = _checks.two_bodies(mobod_F, mobod_B, _WHERE, "mobod_F", "mobod_B")
        self.rolling = _contact.flag(rolling, _WHERE, "enforce_rolling")
        self._defaults = _Parameters(
            _checks.vec3(center_F, _WHERE, "the center on F"),
            _contact.positive(radius_F, _WHERE, "the radius on F"),
            _checks.vec3(center_B, _WHERE, "the center on B"),
            _contact.positive(radius_B, _WHERE, "the radius on B"))
        super().__init__(matter, 1, 2 if self.rolling else 0, 0)
        self._F = self.add_constrained_body(mobod_F)
        self._B = self.add_constrained_body(mobod_B)
        self._parameters_index = None

    # ------------------------------------------------- per-State parameters
    _WHERE = _WHERE
    _PARAMETERS = "the centers and radii"

    def _initial_parameters(self) -> _Parameters:
        d = self._defaults
        return _Parameters(d.p_FSf.copy(), d.radius_F, d.p_BSb.copy(), d.radius_B)

    def parameters(self, state) -> np.ndarray:
        p = self.get_parameters(state)
        return np.concatenate([p.p_FSf, [p.radius_F], p.p_BSb,
                               [p.radius_B, 1.0 if self.rolling else 0.0]])

    def calc_decorative_geometry_and_append(self, state, stage, geometry: list) -> None:
        """At POSITION: the two spheres as wireframes, F's green and B's orange."""
        if stage != Stage.POSITION:
            return
        from kinetree.viz.decorations import DecorativeSphere, Representation

        p = self.get_parameters(state)
        for body, center, radius, color in ((self._F, p.p_FSf, p.radius_F, "green"),
                                            (self._B, p.p_BSb, p.radius_B, "orange")):
            geometry.append(DecorativeSphere(radius)
                            .set_body_id(self._bodies[body].get_mobilized_body_index())
                            .set_transform(Transform(center)).set_color(color)
                            .set_representation(Representation.WIREFRAME))


class SphereOnSphereContact(Constraint):
    """``Constraint.SphereOnSphereContact(mobod_F, default_center_on_F, default_radius_on_F,
    mobod_B, default_center_on_B, default_radius_on_B, enforce_rolling)``: the sphere of
    center default_center_on_F (p_FSf, m, in F) and radius default_radius_on_F (m, > 0) on
    mobod_F touches the sphere of center default_center_on_B (p_BSb, m, in B) and radius
    default_radius_on_B on mobod_B; with ``enforce_rolling`` they also roll on each other
    without slipping. One holonomic equation, and two nonholonomic ones when rolling."""

    def __init__(self, mobod_F, default_center_on_F, default_radius_on_F,  # noqa: N803
                 mobod_B, default_center_on_B, default_radius_on_B,  # noqa: N803
                 enforce_rolling):
        super().__init__(_SphereOnSphereContactImplementation(
            mobod_F, default_center_on_F, default_radius_on_F, mobod_B, default_center_on_B,
            default_radius_on_B, enforce_rolling))

    # ------------------------------------------------------------ topology
    def get_mobilized_body_f(self):
        """The body F of the first sphere."""
        return self.get_mobilized_body_from_constrained_body(self._impl._F)

    def get_mobilized_body_b(self):
        """The body B of the second sphere."""
        return self.get_mobilized_body_from_constrained_body(self._impl._B)

    def is_enforcing_rolling(self) -> bool:
        """Whether the no-slip equations are enforced (fixed at construction)."""
        return self._impl.rolling

    def get_default_center_on_f(self) -> np.ndarray:
        """The default p_FSf (m, in F)."""
        return self._impl._defaults.p_FSf.copy()

    def get_default_radius_on_f(self) -> float:
        """The default rf (m)."""
        return self._impl._defaults.radius_F

    def get_default_center_on_b(self) -> np.ndarray:
        """The default p_BSb (m, in B)."""
        return self._impl._defaults.p_BSb.copy()

    def get_default_radius_on_b(self) -> float:
        """The default rb (m)."""
        return self._impl._defaults.radius_B

    def _set_default(self, **change) -> SphereOnSphereContact:
        self._impl._defaults = self._impl._defaults._replace(**change)
        self._impl.invalidate_topology_cache()
        return self

    def set_default_center_on_f(self, default_center) -> SphereOnSphereContact:
        """The p_FSf (m, in F) new States start with (a topological change)."""
        where = f"{self._name()}.set_default_center_on_f"
        return self._set_default(p_FSf=_checks.vec3(default_center, where, "the center"))

    def set_default_radius_on_f(self, default_radius: float) -> SphereOnSphereContact:
        """The rf (m, > 0) new States start with (a topological change)."""
        where = f"{self._name()}.set_default_radius_on_f"
        return self._set_default(radius_F=_contact.positive(default_radius, where, "the radius"))

    def set_default_center_on_b(self, default_center) -> SphereOnSphereContact:
        """The p_BSb (m, in B) new States start with (a topological change)."""
        where = f"{self._name()}.set_default_center_on_b"
        return self._set_default(p_BSb=_checks.vec3(default_center, where, "the center"))

    def set_default_radius_on_b(self, default_radius: float) -> SphereOnSphereContact:
        """The rb (m, > 0) new States start with (a topological change)."""
        where = f"{self._name()}.set_default_radius_on_b"
        return self._set_default(radius_B=_contact.positive(default_radius, where, "the radius"))

    # -------------------------------------------------- Position variables
    def _set(self, state, **change) -> SphereOnSphereContact:
        self._impl.set_parameters(state, self._impl.get_parameters(state)._replace(**change))
        return self

    def set_center_on_f(self, state, sphere_center) -> SphereOnSphereContact:
        """This State's p_FSf (m, in F); a Position-stage change."""
        return self._set(state, p_FSf=_checks.vec3(
            sphere_center, f"{self._name()}.set_center_on_f", "the center"))

    def set_radius_on_f(self, state, sphere_radius: float) -> SphereOnSphereContact:
        """This State's rf (m, > 0); a Position-stage change."""
        return self._set(state, radius_F=_contact.positive(
            sphere_radius, f"{self._name()}.set_radius_on_f", "the radius"))

    def set_center_on_b(self, state, sphere_center) -> SphereOnSphereContact:
        """This State's p_BSb (m, in B); a Position-stage change."""
        return self._set(state, p_BSb=_checks.vec3(
            sphere_center, f"{self._name()}.set_center_on_b", "the center"))

    def set_radius_on_b(self, state, sphere_radius: float) -> SphereOnSphereContact:
        """This State's rb (m, > 0); a Position-stage change."""
        return self._set(state, radius_B=_contact.positive(
            sphere_radius, f"{self._name()}.set_radius_on_b", "the radius"))

    def get_center_on_f(self, state) -> np.ndarray:
        """This State's p_FSf (m, in F)."""
        return np.array(self._impl.get_parameters(state).p_FSf)

    def get_radius_on_f(self, state) -> float:
        """This State's rf (m)."""
        return float(self._impl.get_parameters(state).radius_F)

    def get_center_on_b(self, state) -> np.ndarray:
        """This State's p_BSb (m, in B)."""
        return np.array(self._impl.get_parameters(state).p_BSb)

    def get_radius_on_b(self, state) -> float:
        """This State's rb (m)."""
        return float(self._impl.get_parameters(state).radius_B)

    # ---------------------------------------------------------- results
    def get_position_error(self, state) -> float:
        """The signed distance (m) between the sphere surfaces: positive when apart,
        negative when interpenetrating (POSITION)."""
        return _checks.one(self, self.get_position_errors_as_vector(state),
                           "get_position_error")

    def get_velocity_errors(self, state) -> np.ndarray:
        """[v·Cx, v·Cy, d/dt perr] (m/s, in C): the slip velocity of B's material point at
        Co relative to F's (zeros when rolling is not enforced) and the normal rate
        (VELOCITY)."""
        return _contact.enabled_values(self, self.get_velocity_errors_as_vector(state),
                                       "get_velocity_errors")

    def get_acceleration_errors(self, state) -> np.ndarray:
        """The time derivative of get_velocity_errors (m/s², in C) (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_acceleration_errors_as_vector(state),
                                       "get_acceleration_errors")

    def get_multipliers(self, state) -> np.ndarray:
        """[λx, λy, λz] (N, in C): the negative of the force on sphere B at the contact
        point (x, y zero when rolling is not enforced) (ACCELERATION)."""
        return _contact.enabled_values(self, self.get_multipliers_as_vector(state),
                                       "get_multipliers")

    def find_force_on_sphere_b_in_g(self, state) -> np.ndarray:
        """The force (N, in Ground) the constraint applies to sphere B at Co; sphere F
        gets its opposite. Zero while disabled (ACCELERATION)."""
        if self.is_disabled(state):
            return np.zeros(3)
        return self.find_contact_frame_in_g(state).R.as_matrix() @ -self.get_multipliers(
            state)

    def find_contact_frame_in_g(self, state) -> Transform:
        """X_GC: the contact frame in Ground, origin Co on the center line (m), z the
        normal from Sf towards Sb, x and y arbitrary but fixed by the pose; whether or not
        the constraint is enabled or satisfied (POSITION)."""
        R_AB, p_AB, R_GA, p_GA = _contact.poses_in_ancestor(self, state)
        Cx, Cy, Cz, p_ACo = contact_frame(self._impl.parameters(state), R_AB, p_AB)
        R_AC = np.column_stack([Cx, Cy, Cz])
        return Transform(Rotation(R_GA @ R_AC, reorthonormalize=True),
                         p_GA + R_GA @ np.array(p_ACo))

    def find_separation(self, state) -> float:
        """|p_SfSb| - (rf + rb) (m): positive when apart; whether or not the constraint is
        enabled (POSITION)."""
        R_AB, p_AB, _, _ = _contact.poses_in_ancestor(self, state)
        perr = np.zeros(1)
        position_errors(self._impl.parameters(state), R_AB, p_AB, perr)
        return float(perr[0])
