"""RigidContact: a sphere on a half space treated as rigid, with impulsive collisions and a
coefficient of restitution (paper §5.3), built from the event machinery, the operators and
a constraint, as the paper says Simbody users can.

* **Impact.** An event handler fires when the sphere reaches the plane (their separation
  falls through zero). With n the plane's normal, P the contact point and
  g = J_S(P)ᵀ n - J_H(P)ᵀ n the generalized direction of the normal velocity
  v_n = gᵀ u (m/s, negative when approaching), the impulse λ = -(1 + e) v_n/(gᵀ M⁻¹ g)
  changes u by M⁻¹ g λ, so that v_n becomes -e v_n; nothing else is touched (the impact
  is frictionless).
* **Capture.** If the rebound speed e |v_n| is below the capture velocity, the impact is
  made plastic and a ``Constraint.PointInPlane`` (the sphere's centre kept at height r
  above the plane) is enabled instead: the sphere rests, rolls or slides on the plane
  without friction. This ends the infinitely many ever smaller bounces of a ball coming to
  rest.
* **Release.** While captured, a second handler watches the contact's normal force (from
  the constraint's multiplier, at ACCELERATION) and disables the constraint when it would
  have to pull.

Both handlers belong to the System (``add_event_handler``); a TimeStepper or
``kt.simulate`` isolates the events and restarts the integration after each.
"""

from __future__ import annotations

import math

from kinetree.contact.geometry import HalfSpace, Sphere
from kinetree.errors import InvalidArgumentError
from kinetree.multibody.constraints.point_in_plane import PointInPlane
from kinetree.system.events import TriggeredEventHandler
from kinetree.system.stage import Stage

__all__ = ["RigidContact"]


def _surface_of(mobod, kind, index, where: str, what: str):
    body = mobod.get_body()
    shapes = [(X, s) for X, s in body._surfaces if isinstance(s.get_shape(), kind)]
    if index >= len(shapes):
        raise InvalidArgumentError(
            f"{where}: {mobod._name()} carries {len(shapes)} {kind.__name__} contact "
            f"surface(s), not {index + 1}; add the {what} with "
            f"body.add_contact_surface(X_BS, kt.ContactSurface(kt.ContactGeometry."
            f"{kind.__name__}(...), material)) first.")
    return shapes[index]


class _Impact(TriggeredEventHandler):
    """Fires when the free sphere reaches the plane. The trigger is the separation while
    the sphere approaches and at least a tiny positive value while it recedes, so that the
    sphere leaving from slightly inside the plane after an impact does not hide the next
    impact when one step spans a whole short bounce."""

    def __init__(self, contact: RigidContact):
        super().__init__(Stage.VELOCITY)
        self._contact = contact
        self.get_trigger_info().set_trigger_on_rising_sign_transition(False)

    def get_value(self, state) -> float:
        if not self._contact._constraint.is_disabled(state):
            return 1.0          # resting: no impacts to watch for
        separation = self._contact.calc_separation(state)
        if self._contact.calc_approach_velocity(state) <= 0.0:
            return max(separation, 1e-300)
        return separation

    def handle_event(self, state, accuracy):
        self._contact._impact(state)


class _Release(TriggeredEventHandler):
    """Fires when the resting sphere's normal force would turn into a pull."""

    def __init__(self, contact: RigidContact):
        super().__init__(Stage.ACCELERATION)
        self._contact = contact
        self.get_trigger_info().set_trigger_on_rising_sign_transition(False)

    def get_value(self, state) -> float:
        if self._contact._constraint.is_disabled(state):
            return 1.0
        return self._contact.calc_normal_force(state)

    def handle_event(self, state, accuracy):
        self._contact._constraint.disable(state)


class RigidContact:
    """``RigidContact(half_space_body, sphere_body, restitution, capture_velocity=1e-3)``:
    rigid contact between the first HalfSpace surface of one MobilizedBody and the first
    Sphere surface of another (``half_space_surface``, ``sphere_surface`` pick others),
    with restitution 0 ≤ e ≤ 1 and a capture velocity (m/s) (module docstring). Create it
    before ``realize_topology``."""

    def __init__(self, half_space_body, sphere_body, restitution, capture_velocity=1e-3,
                 half_space_surface: int = 0, sphere_surface: int = 0):
        where = "RigidContact"
        e, vc = float(restitution), float(capture_velocity)
        if not 0.0 <= e <= 1.0:
            raise InvalidArgumentError(
                f"{where}: the restitution must be in [0, 1], got {restitution!r}.")
        if not (vc >= 0.0 and math.isfinite(vc)):
            raise InvalidArgumentError(
                f"{where}: the capture velocity must be a speed >= 0 in m/s, got "
                f"{capture_velocity!r}.")
        self._restitution, self._capture = e, vc
        self._plane_body, self._sphere_body = half_space_body, sphere_body
        X_BH, _ = _surface_of(half_space_body, HalfSpace, half_space_surface, where,
                              "half space")
        X_BS, sphere = _surface_of(sphere_body, Sphere, sphere_surface, where, "sphere")
        self._radius = sphere.get_shape().get_radius()
        self._centre_S = X_BS.p                                  # sphere centre in its body
        self._normal_H = -X_BH.R.as_matrix()[:, 0]               # plane normal in its body
        self._height_H = float(self._normal_H @ X_BH.p)          # plane height along it
        self._constraint = PointInPlane(half_space_body, self._normal_H,
                                        self._height_H + self._radius, sphere_body,
                                        self._centre_S)
        self._constraint.set_disabled_by_default(True)
        system = half_space_body.get_matter_subsystem().get_system()
        system.add_event_handler(_Impact(self))
        system.add_event_handler(_Release(self))
        self._system = system

    def get_restitution(self) -> float:
        return self._restitution

    def get_capture_velocity(self) -> float:
        return self._capture

    def get_constraint(self) -> PointInPlane:
        """The PointInPlane constraint enabled while the sphere rests on the plane."""
        return self._constraint

    def is_resting(self, state) -> bool:
        return not self._constraint.is_disabled(state)

    def _normal_and_centre(self, state):
        R_GH = self._plane_body.get_body_rotation(state).as_matrix()
        n = R_GH @ self._normal_H
        centre = self._sphere_body.find_station_location_in_ground(state, self._centre_S)
        return n, centre

    def calc_separation(self, state) -> float:
        """Gap (m) between sphere and plane at ``state`` (POSITION); negative when they
        overlap."""
        n, centre = self._normal_and_centre(state)
        origin = self._plane_body.get_body_origin_location(state)
        return float(n @ (centre - origin)) - self._height_H - self._radius

    def _contact_point(self, state):
        n, centre = self._normal_and_centre(state)
        return n, centre - self._radius * n

    def calc_approach_velocity(self, state) -> float:
        """-v_n (m/s) at ``state`` (VELOCITY): how fast the sphere's contact point moves
        toward the plane's coincident point along the normal."""
        n, point = self._contact_point(state)
        v = self._sphere_body.find_station_velocity_in_ground(
            state, self._sphere_body.get_body_transform(state).shift_base_station_to_frame(
                point))
        if not self._plane_body.is_ground():
            v = v - self._plane_body.find_station_velocity_in_ground(
                state, self._plane_body.get_body_transform(state)
                .shift_base_station_to_frame(point))
        return -float(n @ v)

    def calc_normal_force(self, state) -> float:
        """The plane's push on the resting sphere along the normal (N) at ``state``
        (ACCELERATION); 0 when not resting."""
        if self._constraint.is_disabled(state):
            return 0.0
        return -float(self._constraint.get_multipliers_as_vector(state)[0])

    def _impact(self, state) -> None:
        """Apply the collision impulse (module docstring) and capture if it is slow."""
        matter = self._plane_body.get_matter_subsystem()
        self._system.realize(state, Stage.VELOCITY)
        n, point = self._contact_point(state)
        station_H = self._plane_body.get_body_transform(state).shift_base_station_to_frame(
            point)
        station_S = self._sphere_body.get_body_transform(state).shift_base_station_to_frame(
            point)
        g = matter.multiply_by_station_jacobian_transpose(state, self._sphere_body,
                                                          station_S, n)
        if not self._plane_body.is_ground():
            g = g - matter.multiply_by_station_jacobian_transpose(state, self._plane_body,
                                                                  station_H, n)
        u = matter.get_u(state).copy()
        v_n = float(g @ u)
        if v_n >= 0.0:
            return                                   # already separating
        e = self._restitution if self._restitution * -v_n >= self._capture else 0.0
        w = matter.multiply_by_m_inv(state, g)
        lam = -(1.0 + e) * v_n / float(g @ w)
        matter.upd_u(state)[:] = u + lam * w
        if e == 0.0:
            self._constraint.enable(state)
