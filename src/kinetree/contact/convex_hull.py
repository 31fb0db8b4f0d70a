"""ContactGeometry.Convex: the convex hull of a set of points, the collision shape of a
convex mesh (MuJoCo collides every mesh geom as its hull; Drake and Bullet do the same
for convex shapes). It is also the TriangleMesh of the hull's triangles, so that compliant
contact puts its elastic-foundation springs on them."""

from __future__ import annotations

import numpy as np

from kinetree.contact.geometry import (
    ContactGeometry,
    _direction,
    _frame,
    _point,
    _tangent_basis,
)
from kinetree.contact.mesh import TriangleMesh
from kinetree.errors import InvalidArgumentError

CONVEX_TOLERANCE = 1e-9
"""The fraction of its hull's volume a mesh may fall short of for ``Convex.from_mesh`` to
take it as convex."""


class Convex(TriangleMesh):
    """The convex hull of ``vertices`` ((n, 3) m, in S; at least four not in one plane).
    Points inside the hull are dropped; ``get_vertices`` gives those kept. As a contact
    surface it is the mesh of the hull's triangles, one elastic-foundation spring each:
    a hull of few large triangles makes a coarse foundation (a Brick, whose sides are cut
    finer, makes a better box)."""

    def __init__(self, vertices):
        where = "ContactGeometry.Convex"
        try:
            points = np.asarray(vertices, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{where}: vertices must be an (n, 3) array of "
                                       f"numbers (m), got {vertices!r:.80}.") from None
        if points.ndim != 2 or points.shape[1] != 3 or not np.all(np.isfinite(points)):
            raise InvalidArgumentError(
                f"{where}: vertices must be an (n, 3) array of finite numbers (m), got "
                f"shape {points.shape}.")
        from scipy.spatial import ConvexHull, QhullError
        try:
            hull = ConvexHull(points)
        except (QhullError, ValueError):
            raise InvalidArgumentError(
                f"{where}: the {len(points)} vertices span no volume (fewer than four, or "
                f"all in one plane or on one line); give at least four points not in one "
                f"plane, or use a Brick or a Sphere for a thin or tiny part.") from None
        keep = np.unique(hull.simplices)
        renumber = np.full(len(points), -1)
        renumber[keep] = np.arange(len(keep))
        self._vertices = points[keep]
        faces = renumber[hull.simplices]
        # each triangle counter-clockwise seen from outside
        a, b, c = (self._vertices[faces[:, k]] for k in range(3))
        centre = self._vertices.mean(axis=0)
        flip = np.einsum("ij,ij->i", np.cross(b - a, c - a), a - centre) < 0.0
        faces[flip] = faces[flip][:, ::-1]
        self._faces = faces
        normals = np.cross(b - a, c - a)
        normals[flip] *= -1.0
        self._normals = normals / np.linalg.norm(normals, axis=1)[:, None]
        self._offsets = np.einsum("ij,ij->i", self._normals, self._vertices[faces[:, 0]])
        edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]],
                                        faces[:, [2, 0]]]), axis=1)
        self._edges = np.unique(edges, axis=0)
        for array in (self._edges, self._normals):
            array.flags.writeable = False
        super().__init__(self._vertices, self._faces)

    @classmethod
    def from_mesh(cls, mesh) -> Convex:
        """The hull of a ``TriangleMesh``, which must be convex: a mesh enclosing less
        than its hull is refused."""
        vertices = np.asarray(mesh.get_vertices())
        hull = cls(vertices)
        a, b, c = (vertices[np.asarray(mesh.get_faces())[:, k]] for k in range(3))
        volume = float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum()) / 6.0
        missing = hull._volume - volume
        if missing > CONVEX_TOLERANCE * hull._volume:
            raise InvalidArgumentError(
                f"ContactGeometry.Convex.from_mesh: the mesh is not convex: it encloses "
                f"{volume:.6g} m³ of its hull's {hull._volume:.6g} m³; collide it as a "
                f"TriangleMesh, or split it into convex parts and give each its own "
                f"Convex.")
        return hull

    def get_vertices(self) -> np.ndarray:
        """The hull's vertices ((n, 3) m, in S), read-only."""
        return self._vertices

    def get_faces(self) -> np.ndarray:
        """Its triangles ((m, 3) vertex indices, counter-clockwise from outside)."""
        return self._faces

    def get_edges(self) -> np.ndarray:
        """Its triangles' edges ((k, 2) vertex indices, each once)."""
        return self._edges

    def get_volume(self) -> float:
        """The hull's volume (m³)."""
        return self._volume

    def find_nearest_point(self, p_S):
        """Inside, the nearest face's point; outside, the hull's point nearest p_S (by the
        compiled GJK of a point against the hull)."""
        p = _point(p_S, self._where("find_nearest_point"))
        heights = self._normals @ p - self._offsets
        face = int(np.argmax(heights))
        if heights[face] <= 0.0:
            return p - heights[face] * self._normals[face], True, self._normals[face].copy()
        from kinetree.contact.convex import nearest_on_core
        nearest = nearest_on_core(self, p)
        away = p - nearest
        return nearest, False, away / np.linalg.norm(away)

    def calc_surface_principal_curvatures(self, point):
        """(0, 0): the hull is flat between its edges."""
        n = self.find_nearest_point(
            _point(point, self._where("calc_surface_principal_curvatures")))[2]
        return np.zeros(2), _frame(_tangent_basis(n)[0], n)

    def calc_support_point(self, direction):
        """The vertex farthest along ``direction`` (in S)."""
        d = _direction(direction, self._where("calc_support_point"))
        return self._vertices[int(np.argmax(self._vertices @ d))].copy()

    def __repr__(self) -> str:
        return f"ContactGeometry.Convex(<{len(self._vertices)} vertices>)"


ContactGeometry.Convex = Convex
