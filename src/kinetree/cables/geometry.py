"""The obstacle shapes a cable wraps over, and their compiled form.

A cable obstacle takes kinetree's ``ContactGeometry.Sphere`` and ``ContactGeometry.Ellipsoid``
(``kinetree.contact.geometry``) and the two shapes below, which that module does not have
yet: ``Cylinder`` (Simbody's ``ContactGeometry::Cylinder``, infinitely long, axis S's z) and
``Torus`` (``ContactGeometry::Torus``, ring in S's xy plane about S's z).
"""

from __future__ import annotations

import numpy as np

from kinetree.cables import surfaces
from kinetree.contact.geometry import ContactGeometry, Ellipsoid, Sphere, _positive_length
from kinetree.errors import InvalidArgumentError, NonPhysicalError


class Cylinder(ContactGeometry):
    """An infinitely long circular cylinder of the given radius (m) about S's z axis."""

    def __init__(self, radius):
        self._radius = _positive_length(radius, "radius", "ContactGeometry.Cylinder")

    def get_radius(self) -> float:
        return self._radius

    def __repr__(self) -> str:
        return f"Cylinder({self._radius!r})"


class Torus(ContactGeometry):
    """A torus whose tube (radius ``tube_radius``, m) circles S's z axis at distance
    ``torus_radius`` (m) in S's xy plane."""

    def __init__(self, torus_radius, tube_radius):
        where = "ContactGeometry.Torus"
        self._torus_radius = _positive_length(torus_radius, "torus_radius", where)
        self._tube_radius = _positive_length(tube_radius, "tube_radius", where)
        if self._tube_radius >= self._torus_radius:
            raise NonPhysicalError(
                f"{where}: tube_radius {self._tube_radius} m must be smaller than "
                f"torus_radius {self._torus_radius} m.")

    def get_torus_radius(self) -> float:
        return self._torus_radius

    def get_tube_radius(self) -> float:
        return self._tube_radius

    def __repr__(self) -> str:
        return f"Torus({self._torus_radius!r}, {self._tube_radius!r})"


def surface_of(geometry, where: str) -> tuple[int, np.ndarray]:
    """(kind, parameters) of a shape for the compiled functions of ``surfaces``."""
    if isinstance(geometry, Sphere):
        return surfaces.SPHERE, np.array([geometry.get_radius(), 0.0, 0.0])
    if isinstance(geometry, Cylinder):
        return surfaces.CYLINDER, np.array([geometry.get_radius(), 0.0, 0.0])
    if isinstance(geometry, Ellipsoid):
        return surfaces.ELLIPSOID, np.array(geometry.get_radii(), dtype=np.float64)
    if isinstance(geometry, Torus):
        return surfaces.TORUS, np.array(
            [geometry.get_torus_radius(), geometry.get_tube_radius(), 0.0])
    raise InvalidArgumentError(
        f"{where}: a cable obstacle must be a ContactGeometry.Sphere, ContactGeometry."
        f"Ellipsoid, kinetree.cables.Cylinder or kinetree.cables.Torus, got "
        f"{type(geometry).__name__}.")
