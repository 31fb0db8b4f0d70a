"""Simbody's PolygonalMesh: a surface as vertices (m, in its own frame) and polygonal
faces of vertex indices, with Simbody's generated sphere. A ``ContactGeometry.
TriangleMesh`` is made from one (its polygons split into triangles), as in Simbody."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError


class PolygonalMesh:
    """Vertices and faces, built with ``add_vertex`` and ``add_face`` or by
    ``create_sphere_mesh``. Faces list their vertices counter-clockwise seen from
    outside."""

    def __init__(self):
        self._vertices: list[np.ndarray] = []
        self._faces: list[tuple[int, ...]] = []

    def add_vertex(self, position) -> int:
        """Add a vertex at ``position`` (3, m); returns its index."""
        p = np.asarray(position, dtype=float)
        if p.shape != (3,) or not np.isfinite(p).all():
            raise InvalidArgumentError(
                f"PolygonalMesh.add_vertex: a position is three finite numbers (m), got "
                f"{position!r}.")
        self._vertices.append(p)
        return len(self._vertices) - 1

    def add_face(self, vertex_indices) -> int:
        """Add a face of three or more vertices (their indices, counter-clockwise seen
        from outside); returns its index."""
        face = tuple(int(i) for i in vertex_indices)
        if len(face) < 3 or not all(0 <= i < len(self._vertices) for i in face):
            raise InvalidArgumentError(
                f"PolygonalMesh.add_face: a face is three or more indices of the "
                f"{len(self._vertices)} vertices added so far, got {list(vertex_indices)}.")
        self._faces.append(face)
        return len(self._faces) - 1

    def get_num_vertices(self) -> int:
        return len(self._vertices)

    def get_num_faces(self) -> int:
        return len(self._faces)

    def get_vertex_position(self, vertex: int) -> np.ndarray:
        return self._vertices[vertex].copy()

    def get_num_vertices_for_face(self, face: int) -> int:
        return len(self._faces[face])

    def get_face_vertex(self, face: int, k: int) -> int:
        """The index of the k-th vertex of ``face``."""
        return self._faces[face][k]

    def _triangles(self) -> tuple[np.ndarray, np.ndarray]:
        """(vertices (nv, 3), faces (nf, 3)): each polygon split into a fan of triangles
        from its first vertex."""
        faces = [(f[0], f[k], f[k + 1]) for f in self._faces for k in range(1, len(f) - 1)]
        return (np.array(self._vertices, dtype=float).reshape(-1, 3),
                np.array(faces, dtype=np.int64).reshape(-1, 3))

    @staticmethod
    def create_sphere_mesh(radius: float, resolution: int = 1) -> PolygonalMesh:
        """Simbody's sphere of ``radius`` (m) about the origin: the octahedron of vertices
        on the axes, each triangle then split ``resolution`` times into four at its edges'
        midpoints pushed out onto the sphere (8 × 4^resolution triangles)."""
        if not radius > 0:
            raise InvalidArgumentError(
                f"PolygonalMesh.create_sphere_mesh: the radius is {radius}; it must be "
                f"positive.")
        if int(resolution) != resolution or resolution < 0:
            raise InvalidArgumentError(
                f"PolygonalMesh.create_sphere_mesh: the resolution is {resolution}; give a "
                f"whole number of refinements >= 0.")
        r = float(radius)
        vertices = [np.array(v, dtype=float) for v in (
            (r, 0, 0), (-r, 0, 0), (0, r, 0), (0, -r, 0), (0, 0, r), (0, 0, -r))]
        faces = [[0, 2, 4], [4, 2, 1], [1, 2, 5], [5, 2, 0],
                 [4, 3, 0], [1, 3, 4], [5, 3, 1], [0, 3, 5]]
        index = {tuple(v): i for i, v in enumerate(vertices)}

        def midpoint(i: int, j: int) -> int:
            v = vertices[i] + vertices[j]
            v = r * (v / np.sqrt(v @ v))
            key = tuple(v)
            if key not in index:
                index[key] = len(vertices)
                vertices.append(v)
            return index[key]

        for _ in range(int(resolution)):
            for f in range(len(faces)):
                v0, v1, v2 = faces[f]
                a, b, c = midpoint(v0, v2), midpoint(v0, v1), midpoint(v1, v2)
                faces[f] = [v0, b, a]
                faces += [[a, b, c], [c, v2, a], [b, v1, c]]
        mesh = PolygonalMesh()
        mesh._vertices = vertices
        mesh._faces = [tuple(f) for f in faces]
        return mesh

    def __repr__(self) -> str:
        return f"<PolygonalMesh {len(self._vertices)} vertices, {len(self._faces)} faces>"
