"""Body: what a MobilizedBody carries, its mass properties (Simbody's ``Body::Rigid``), the
contact surfaces fixed to it (``Body::addContactSurface``) and the decorations a
Visualizer draws on it (``Body::addDecoration``)."""

from __future__ import annotations

import copy

from kinetree.errors import InvalidArgumentError
from kinetree.math.inertia import Inertia, MassProperties
from kinetree.math.transform import Transform


class Body:
    """The base of body types (``Body.Rigid``, ``Body.Ground``): holds the contact surfaces
    fixed to the body, each with its pose X_BS in the body frame B, and its decorations."""

    def __init__(self):
        self._surfaces: list = []
        self._decorations: list = []
        self._owner = None

    def add_decoration(self, X_BD, geometry) -> int:
        """Draw ``geometry`` (a DecorativeGeometry) on this body with its frame D at X_BD
        (a Transform, m) in B, composed with the geometry's own transform; returns its
        index on this body. The body keeps a copy."""
        from kinetree.viz.decorations import DecorativeGeometry

        if not isinstance(X_BD, Transform):
            raise InvalidArgumentError(
                f"Body.add_decoration: X_BD must be a Transform (the decoration's frame in "
                f"the body frame), got {type(X_BD).__name__}.")
        if not isinstance(geometry, DecorativeGeometry):
            raise InvalidArgumentError(
                f"Body.add_decoration: expected a DecorativeGeometry (kt.DecorativeSphere, "
                f"kt.DecorativeMesh, ...), got {type(geometry).__name__}.")
        mine = geometry.copy()
        mine.set_transform(X_BD @ geometry.get_transform())
        mine.set_index_on_body(len(self._decorations))
        self._decorations.append(mine)
        return len(self._decorations) - 1

    def get_num_decorations(self) -> int:
        return len(self._decorations)

    def get_decoration(self, index: int):
        """Decoration ``index`` of this body, its transform X_BD in the body frame."""
        if not isinstance(index, int) or not 0 <= index < len(self._decorations):
            raise InvalidArgumentError(
                f"Body: no decoration {index!r}; this body has {len(self._decorations)}.")
        return self._decorations[index]

    def add_contact_surface(self, X_BS, surface) -> int:
        """Fix a :class:`~kinetree.ContactSurface` to this body with its frame S at X_BS
        (a Transform, m) in B; returns its index on this body. A MobilizedBody copies its
        Body when built, so add surfaces before building it or through
        ``mobod.upd_body()``."""
        from kinetree.contact.surface import ContactSurface

        if not isinstance(X_BS, Transform):
            raise InvalidArgumentError(
                f"Body.add_contact_surface: X_BS must be a Transform (the surface frame in "
                f"the body frame), got {type(X_BS).__name__}.")
        if not isinstance(surface, ContactSurface):
            raise InvalidArgumentError(
                f"Body.add_contact_surface: expected a ContactSurface(geometry, material), "
                f"got {type(surface).__name__}.")
        self._surfaces.append((X_BS, surface))
        if self._owner is not None:
            self._owner.invalidate_subsystem_topology_cache()
        return len(self._surfaces) - 1

    def get_num_contact_surfaces(self) -> int:
        return len(self._surfaces)

    def get_contact_surface(self, index: int):
        return self._surfaces[self._surface_index(index)][1]

    def get_contact_surface_transform(self, index: int) -> Transform:
        """X_BS: the surface frame in the body frame."""
        return self._surfaces[self._surface_index(index)][0]

    def _surface_index(self, index) -> int:
        if not isinstance(index, int) or not 0 <= index < len(self._surfaces):
            raise InvalidArgumentError(
                f"Body: no contact surface {index!r}; this body has {len(self._surfaces)}.")
        return index

    def _adopted_copy(self, owner) -> Body:
        """The copy a MobilizedBody keeps; changes to its surfaces invalidate ``owner``'s
        topology."""
        mine = copy.copy(self)
        mine._surfaces = list(self._surfaces)
        mine._decorations = list(self._decorations)
        mine._owner = owner
        return mine


class Rigid(Body):
    """A rigid body with fixed mass properties about its own origin, in its own frame."""

    def __init__(self, mass_properties: MassProperties | None = None):
        super().__init__()
        if mass_properties is None:
            mass_properties = MassProperties(1.0, [0, 0, 0], Inertia(1.0))
        if not isinstance(mass_properties, MassProperties):
            raise InvalidArgumentError(
                f"Body.Rigid: expected MassProperties, got {type(mass_properties).__name__};"
                f" build one with kt.MassProperties(mass, com, inertia).")
        self._mass_properties = mass_properties

    def get_default_rigid_body_mass_properties(self) -> MassProperties:
        return self._mass_properties

    def set_default_rigid_body_mass_properties(self, mass_properties: MassProperties):
        """A MobilizedBody copies its Body when it is built, so on a Body of your own this
        affects the MobilizedBodies built afterwards; on a MobilizedBody's own copy
        (``mobod.upd_body()``) it changes that MobilizedBody's mass properties, a
        topological change: get new States from ``system.realize_topology()``."""
        if not isinstance(mass_properties, MassProperties):
            raise InvalidArgumentError(
                f"Body.set_default_rigid_body_mass_properties: expected MassProperties, got "
                f"{type(mass_properties).__name__}; build one with kt.MassProperties(mass, "
                f"com, inertia).")
        self._mass_properties = mass_properties
        if self._owner is not None:
            self._owner.invalidate_subsystem_topology_cache()
        return self

    def __repr__(self) -> str:
        return f"Body.Rigid({self._mass_properties!r})"


class Massless(Rigid):
    """Simbody's Body::Massless: a body with no mass and no inertia, a frame between
    mobilizers (the chain of massless Pins that makes a skewed-axes gimbal, say). As in
    Simbody the tree must not end at one: a massless terminal body has a singular mass
    matrix."""

    def __init__(self):
        super().__init__(MassProperties(0.0, [0, 0, 0], Inertia(0.0)))

    def __repr__(self) -> str:
        return "Body.Massless()"


class GroundBody(Body):
    """Ground's body: immobile, infinitely massive; it may carry contact surfaces."""

    def __repr__(self) -> str:
        return "Body.Ground()"


Rigid.__qualname__ = "Body.Rigid"
GroundBody.__qualname__ = "Body.Ground"
Massless.__qualname__ = "Body.Massless"
Body.Rigid = Rigid
Body.Massless = Massless
Body.Ground = GroundBody
