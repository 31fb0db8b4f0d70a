"""ContactSurface: a shape with its material (and elastic-layer thickness), fixed to a body
with ``Body.add_contact_surface(X_BS, surface)`` (Simbody's ``ContactSurface``).

Surfaces in the same contact clique never touch each other, nor do two surfaces on the same
body: a clique is how a user says "these overlap by design" (a foot's heel and toe spheres on
neighbouring bodies, say).
"""

from __future__ import annotations

import itertools
import math

from kinetree.contact.geometry import ContactGeometry
from kinetree.contact.material import ContactMaterial
from kinetree.errors import InvalidArgumentError

__all__ = ["ContactSurface"]

_next_clique = itertools.count(1)


class ContactSurface:
    """``ContactSurface(geometry, material, thickness=1)``: a ContactGeometry in its frame S,
    the ContactMaterial it is made of, and the thickness h (m) of its elastic layer, which
    only the elastic foundation model uses (spring stiffness per unit area k/h)."""

    def __init__(self, geometry, material, thickness=1.0):
        where = "ContactSurface()"
        if not isinstance(geometry, ContactGeometry):
            raise InvalidArgumentError(
                f"{where}: geometry must be a ContactGeometry (Sphere, HalfSpace, Ellipsoid, "
                f"TriangleMesh, Brick, Cylinder), got {type(geometry).__name__}.")
        if not isinstance(material, ContactMaterial):
            raise InvalidArgumentError(
                f"{where}: material must be a ContactMaterial(stiffness, dissipation, "
                f"static_friction, dynamic_friction, viscous_friction), got "
                f"{type(material).__name__}.")
        try:
            h = float(thickness)
        except (TypeError, ValueError):
            h = math.nan
        if not (h > 0 and math.isfinite(h)):
            raise InvalidArgumentError(
                f"{where}: thickness must be a positive length in m, got {thickness!r}.")
        self._geometry, self._material, self._thickness = geometry, material, h
        self._cliques: set[int] = set()

    def get_shape(self) -> ContactGeometry:
        return self._geometry

    def get_material(self) -> ContactMaterial:
        return self._material

    def get_thickness(self) -> float:
        """h (m)."""
        return self._thickness

    @staticmethod
    def create_new_contact_clique() -> int:
        """A fresh clique id for :meth:`join_clique`."""
        return next(_next_clique)

    def join_clique(self, clique: int) -> ContactSurface:
        """Put this surface in ``clique`` (from :meth:`create_new_contact_clique`); surfaces
        sharing a clique are never tested for contact."""
        if not isinstance(clique, int) or clique <= 0:
            raise InvalidArgumentError(
                f"ContactSurface.join_clique: expected an id from "
                f"ContactSurface.create_new_contact_clique(), got {clique!r}.")
        self._cliques.add(clique)
        return self

    def get_cliques(self) -> frozenset:
        return frozenset(self._cliques)

    def is_in_same_clique(self, other: ContactSurface) -> bool:
        return bool(self._cliques & other._cliques)

    def __repr__(self) -> str:
        return (f"ContactSurface({self._geometry!r}, {self._material!r}, "
                f"thickness={self._thickness!r})")
