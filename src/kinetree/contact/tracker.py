"""ContactTrackerSubsystem: which contact surfaces overlap, found at POSITION (Simbody's
``ContactTrackerSubsystem``).

At TOPOLOGY it gathers every ContactSurface fixed to a body of the matter subsystem
(``Body.add_contact_surface``) and numbers them in body order; at POSITION it finds the
overlapping pairs (:mod:`kinetree.contact.collision`: a compiled broad phase, then each
pair's exact contact) and caches them for the force subsystems, such as
``CompliantContactSubsystem``, to use in DYNAMICS.

The onset of contact is a sign change of :meth:`calc_separation`; a
:class:`ContactEventHandler` or :class:`ContactEventReporter` watches it so that a
TimeStepper isolates the instance two surfaces start (or stop) touching.
"""

from __future__ import annotations

import numpy as np

from kinetree.contact import collision
from kinetree.contact.collision import (
    CAPSULE,
    ELLIPSOID,
    HALF_SPACE,
    MESH,
    SPHERE,
    ContactList,
    ContactSearch,
)
from kinetree.contact.mesh import find_nearest_points
from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.system.events import TriggeredEventHandler, TriggeredEventReporter
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem

__all__ = ["ContactEventHandler", "ContactEventReporter", "ContactTrackerSubsystem"]


class ContactTrackerSubsystem(ContactSearch, Subsystem):
    """Tracks the contacts among all contact surfaces of a MultibodySystem's bodies."""

    _balls_meet_solids = True

    def __init__(self, system):
        super().__init__(system, "ContactTrackerSubsystem")

    # ------------------------------------------------------------- topology
    def realize_topology(self, state):
        matter = self.get_system().get_matter_subsystem()
        self._surfaces = []          # (MobilizedBody, X_BS, ContactSurface)
        entries = []
        for mobod in matter._bodies:
            body = mobod.get_body()
            for k in range(body.get_num_contact_surfaces()):
                X_BS, surface = body._surfaces[k]
                self._surfaces.append((mobod, X_BS, surface))
                entries.append((mobod.get_mobilized_body_index(), X_BS, surface.get_shape(), 0,
                                surface.get_cliques()))
        material = np.array([[s.get_material().get_stiffness(), s.get_material().get_dissipation(),
                              s.get_material().get_static_friction(),
                              s.get_material().get_dynamic_friction(),
                              s.get_material().get_viscous_friction(), s.get_thickness()]
                             for _, _, s in self._surfaces]).reshape(-1, 6)
        self._allocate_search(state, entries, "ContactTrackerSubsystem", material)

    def realize_position(self, state):
        self._search(state, "ContactTrackerSubsystem")

    # ------------------------------------------------------------ surfaces
    def _checked(self, surface, where: str) -> int:
        self._require_topology(where)
        if not isinstance(surface, (int, np.integer)) or not 0 <= surface < len(
                self._surfaces):
            raise InvalidArgumentError(
                f"ContactTrackerSubsystem.{where}: no contact surface {surface!r}; there are "
                f"{len(self._surfaces)}, numbered in body order.")
        return int(surface)

    def _require_topology(self, where: str) -> None:
        if not hasattr(self, "_surfaces"):
            raise InvalidArgumentError(
                f"ContactTrackerSubsystem.{where}: realize the System's topology first "
                f"(system.realize_topology()); that is when surfaces are gathered.")

    def get_num_surfaces(self) -> int:
        self._require_topology("get_num_surfaces")
        return len(self._surfaces)

    def get_mobilized_body(self, surface: int):
        """The MobilizedBody surface ``surface`` is fixed to."""
        return self._surfaces[self._checked(surface, "get_mobilized_body")][0]

    def get_contact_surface(self, surface: int):
        return self._surfaces[self._checked(surface, "get_contact_surface")][2]

    def get_contact_surface_transform(self, surface: int):
        """X_BS: the surface's frame in its body's frame."""
        return self._surfaces[self._checked(surface, "get_contact_surface_transform")][1]

    def get_surface_index(self, mobod, index_on_body: int = 0) -> int:
        """The tracker's number of the ``index_on_body``-th surface of ``mobod``."""
        self._require_topology("get_surface_index")
        seen = 0
        for s, (owner, _, _) in enumerate(self._surfaces):
            if owner is mobod:
                if seen == index_on_body:
                    return s
                seen += 1
        raise InvalidArgumentError(
            f"ContactTrackerSubsystem.get_surface_index: {mobod._name()} has {seen} contact "
            f"surface(s), not {index_on_body + 1}.")

    # ------------------------------------------------------------ contacts
    def get_active_contacts(self, state) -> ContactList:
        """The overlapping pairs at ``state`` (realized to POSITION): a ContactList (arrays
        in G, see :mod:`kinetree.contact.collision`)."""
        self._check(state)
        if self.get_stage(state) < Stage.POSITION:
            raise StageTooLowError(Stage.POSITION, self.get_stage(state),
                                   "ContactTrackerSubsystem.get_active_contacts")
        return self._contact_list(state)

    def _surface_pose(self, state, surface: int):
        mobod, X_BS, _ = self._surfaces[surface]
        return mobod.get_body_transform(state) @ X_BS

    def calc_separation(self, state, surface1: int, surface2: int) -> float:
        """The signed distance (m) between two surfaces at ``state`` (POSITION): positive
        when apart, minus the overlap depth when they overlap. A trigger function for the
        onset of contact. With a mesh it is measured at the mesh's vertices (exact for a
        mesh against a half space; against a curved surface a face can touch between
        vertices first), except for a sphere, a capsule or an ellipsoid on a Brick, a
        Cylinder or a Convex met as a solid: exact."""
        a = self._checked(surface1, "calc_separation")
        b = self._checked(surface2, "calc_separation")
        table = self._table
        if table.kind[a] > table.kind[b]:
            a, b = b, a
        ka, kb = table.kind[a], table.kind[b]
        ga, gb = table.geometries[a], table.geometries[b]
        Xa, Xb = self._surface_pose(state, a), self._surface_pose(state, b)
        if ka == HALF_SPACE and kb == HALF_SPACE:
            raise InvalidArgumentError(
                "ContactTrackerSubsystem.calc_separation: two half spaces have no "
                "separation; pick a finite surface.")
        if kb == MESH and ka in (SPHERE, CAPSULE, ELLIPSOID) and table.size[b, 0] != 0.0:
            from kinetree.contact.convex import closest_points
            return closest_points(Xa, ga, Xb, gb).distance        # a ball on a solid
        if kb == MESH:
            vertices_G = gb.vertices() @ Xb.R.as_matrix().T + Xb.p
            distances = self._signed_distances(ga, Xa, vertices_G)
            if ka == MESH:
                vertices_a = ga.vertices() @ Xa.R.as_matrix().T + Xa.p
                distances = np.concatenate([distances,
                                            self._signed_distances(gb, Xb, vertices_a)])
            return float(distances.min())
        if ka == SPHERE and kb == SPHERE:
            return float(np.linalg.norm(Xb.p - Xa.p) - ga.get_radius() - gb.get_radius())
        if ka == HALF_SPACE and kb == SPHERE:
            return float(-(Xa.R.as_matrix()[:, 0] @ (Xb.p - Xa.p)) - gb.get_radius())
        if CAPSULE in (ka, kb):
            from kinetree.contact.convex import closest_points
            return closest_points(Xa, ga, Xb, gb).distance
        if kb == ELLIPSOID:
            if ka == HALF_SPACE:
                return -collision.geo.contact_half_space_ellipsoid(Xa, Xb, gb).depth
            if ka == SPHERE:
                return -collision.geo.contact_sphere_ellipsoid(Xa, ga, Xb, gb).depth
            return -collision.geo.contact_ellipsoid_ellipsoid(Xa, ga, Xb, gb).depth
        raise InvalidArgumentError(
            f"ContactTrackerSubsystem.calc_separation: no separation for "
            f"{type(ga).__name__}-{type(gb).__name__}.")

    @staticmethod
    def _signed_distances(geometry, X_GS, points_G) -> np.ndarray:
        R = X_GS.R.as_matrix()
        points_S = (points_G - X_GS.p) @ R
        nearest, inside, _ = find_nearest_points(geometry, points_S)
        d = np.linalg.norm(points_S - nearest, axis=1)
        return np.where(inside, -d, d)


class _ContactTrigger:
    """The trigger of a contact event: the separation of two tracked surfaces."""

    def __init__(self, tracker: ContactTrackerSubsystem, surface1: int, surface2: int,
                 onset: bool = True, release: bool = False):
        if not isinstance(tracker, ContactTrackerSubsystem):
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: the first argument must be the "
                f"ContactTrackerSubsystem, got {type(tracker).__name__}.")
        super().__init__(Stage.POSITION)
        self._tracker, self._pair = tracker, (surface1, surface2)
        info = self.get_trigger_info()
        info.set_trigger_on_falling_sign_transition(bool(onset))
        info.set_trigger_on_rising_sign_transition(bool(release))

    def get_value(self, state) -> float:
        return self._tracker.calc_separation(state, *self._pair)


class ContactEventHandler(_ContactTrigger, TriggeredEventHandler):
    """A handler called when two surfaces start touching (``onset``) and/or stop
    (``release``); override ``handle_event(state, accuracy)``."""


class ContactEventReporter(_ContactTrigger, TriggeredEventReporter):
    """A reporter called when two surfaces start touching (``onset``) and/or stop
    (``release``); override ``handle_event(state)``."""
