"""ContactGeometry.Convex: the convex hull of a set of points, the collision shape of a
convex mesh (MuJoCo collides every mesh geom as its hull; Drake and Bullet do the same
for convex shapes). It is also the TriangleMesh of the hull's triangles, so that compliant
contact puts its elastic-foundation springs on them."""

from __future__ import annotations

import numpy as np

from kinetree.contact.geometry import ContactGeometry
from kinetree.contact.mesh import TriangleMesh
from kinetree.errors import InvalidArgumentError

CONVEX_TOLERANCE = 1e-9
"""The fraction of its hull's volume a mesh may fall short of for ``Convex.from_mesh`` to
take it as convex."""


class Convex(TriangleMesh):
    """The convex hull of ``vertices`` ((n, 3) m, in S; at least four not in one plane).
    Points inside the hull are dropped; ``get_vertices`` gives those kept. It is the
    TriangleMesh of the hull's triangles (counter-clockwise from outside), whose nearest
    points, support points and volume are the hull's. As a contact surface it carries one
    elastic-foundation spring a triangle: a hull of few large triangles makes a coarse
    foundation (a Brick, whose sides are cut finer, makes a better box)."""

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
        vertices = points[keep]
        faces = renumber[hull.simplices]
        # each triangle counter-clockwise seen from outside
        a, b, c = (vertices[faces[:, k]] for k in range(3))
        inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), a - vertices.mean(axis=0)) < 0
        faces[inward] = faces[inward][:, ::-1]
        edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]],
                                        faces[:, [2, 0]]]), axis=1)
        self._edges = np.unique(edges, axis=0)
        self._edges.flags.writeable = False
        super().__init__(vertices, faces)
        self._polygons = _polygons(vertices, faces)

    @classmethod
    def from_mesh(cls, mesh) -> Convex:
        """The hull of a ``TriangleMesh``, which must be convex: a mesh enclosing less
        than its hull is refused."""
        hull = cls(mesh.get_vertices())
        volume = mesh.get_volume()
        if hull.get_volume() - volume > CONVEX_TOLERANCE * hull.get_volume():
            raise InvalidArgumentError(
                f"ContactGeometry.Convex.from_mesh: the mesh is not convex: it encloses "
                f"{volume:.6g} m³ of its hull's {hull.get_volume():.6g} m³; collide it as "
                f"a TriangleMesh, or split it into convex parts and give each its own "
                f"Convex.")
        return hull

    def get_edges(self) -> np.ndarray:
        """Its triangles' edges ((k, 2) vertex indices, each once)."""
        return self._edges

    def get_polygons(self) -> list[np.ndarray]:
        """Its faces as polygons: the triangles of each plane merged, each polygon's
        vertex indices counter-clockwise seen from outside (a box's hull has six
        quadrilaterals)."""
        return self._polygons

    def __repr__(self) -> str:
        return f"ContactGeometry.Convex(<{len(self._vertices)} vertices>)"


def _polygons(vertices: np.ndarray, faces: np.ndarray) -> list[np.ndarray]:
    """The polygons of a convex hull's triangles (outward-wound): the triangles whose
    planes agree to 1e-9 of the hull's size merged, each polygon's vertices ordered by
    their angle about its centre, counter-clockwise seen from outside."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    offsets = np.einsum("ij,ij->i", normals, a)
    size = float(np.ptp(vertices, axis=0).max())
    group = np.full(len(faces), -1)
    polygons = []
    for t in range(len(faces)):
        if group[t] >= 0:
            continue
        same = (np.abs(normals - normals[t]).max(axis=1) < 1e-9) \
            & (np.abs(offsets - offsets[t]) < 1e-9 * size) & (group < 0)
        group[same] = len(polygons)
        corners = np.unique(faces[same])
        n = normals[t]
        u = vertices[corners[0]] - vertices[corners].mean(axis=0)
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        d = vertices[corners] - vertices[corners].mean(axis=0)
        polygons.append(corners[np.argsort(np.arctan2(d @ w, d @ u))])
    return polygons


ContactGeometry.Convex = Convex
