"""Triangle-mesh contact geometry (Simbody's ``ContactGeometry::TriangleMesh``) and two
meshed primitives, ``Brick`` and ``Cylinder``, for the elastic-foundation contact model,
which puts one spring on each face of a mesh and asks the other shape for the nearest
surface point to every spring at once.

As in :mod:`kinetree.contact.geometry`, each shape lives in its own frame S and every point
and direction given to or returned by its methods is in S (m). A mesh is closed, its faces
counter-clockwise seen from outside so that (v1 - v0) × (v2 - v0) is the outward normal.
Nearest points are exact point-triangle distances; whether a point is inside comes from the
face normal where the nearest point lies inside a face, and from the generalized winding
number (the sum of the faces' solid angles over 4π) where it lies on an edge or a vertex.
Many points are answered at once by the numba kernel :func:`find_nearest_points_on_mesh`,
and :func:`find_nearest_points` gives every ``ContactGeometry`` the same vectorized query.
``Brick`` and ``Cylinder`` carry a generated mesh for the springs but answer nearest-point,
distance and curvature queries analytically, for the exact box and finite cylinder.
"""

from __future__ import annotations

import math
from pathlib import Path

import numba
import numpy as np

from kinetree.contact.geometry import (
    ContactGeometry,
    HalfSpace,
    Sphere,
    _direction,
    _frame,
    _point,
    _positive_length,
    _tangent_basis,
    _three_lengths,
)
from kinetree.contact.polygonal_mesh import PolygonalMesh
from kinetree.errors import InvalidArgumentError

__all__ = [
    "Brick",
    "Cylinder",
    "TriangleMesh",
    "find_nearest_points",
    "find_nearest_points_on_mesh",
]

# A face whose doubled area is below this fraction of its longest edge squared (the sine of
# its largest angle, about) is treated as degenerate.
_DEGENERATE_SINE = 1e-12


# ---- compiled kernels --------------------------------------------------------------------


@numba.njit(cache=True)
def _closest_on_triangle(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """Barycentric (v, w) of the point a + v(b - a) + w(c - a) of triangle abc nearest p,
    and whether it lies strictly inside the face (Ericson, Real-Time Collision Detection,
    §5.1.5: test the Voronoi regions of the vertices, then the edges, then the face)."""
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return 0.0, 0.0, False
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return 1.0, 0.0, False
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        return d1 / (d1 - d3), 0.0, False
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return 0.0, 1.0, False
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        return 0.0, d2 / (d2 - d6), False
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 1.0 - w, w, False
    denom = 1.0 / (va + vb + vc)
    return vb * denom, vc * denom, True


@numba.njit(cache=True)
def nearest_on_face(px, py, pz, vertices, faces, f):
    """(squared distance, x, y, z, v, w, interior): face f's point nearest p, its barycentric
    (v, w) and whether it lies strictly inside the face."""
    a, b, c = faces[f, 0], faces[f, 1], faces[f, 2]
    v, w, interior = _closest_on_triangle(
        px, py, pz, vertices[a, 0], vertices[a, 1], vertices[a, 2],
        vertices[b, 0], vertices[b, 1], vertices[b, 2], vertices[c, 0], vertices[c, 1],
        vertices[c, 2])
    x = vertices[a, 0] + v * (vertices[b, 0] - vertices[a, 0]) \
        + w * (vertices[c, 0] - vertices[a, 0])
    y = vertices[a, 1] + v * (vertices[b, 1] - vertices[a, 1]) \
        + w * (vertices[c, 1] - vertices[a, 1])
    z = vertices[a, 2] + v * (vertices[b, 2] - vertices[a, 2]) \
        + w * (vertices[c, 2] - vertices[a, 2])
    return (px - x) ** 2 + (py - y) ** 2 + (pz - z) ** 2, x, y, z, v, w, interior


@numba.njit(cache=True)
def _winding_number(px, py, pz, vertices, faces):
    """The generalized winding number of the closed mesh about p: Σ Ω_f / 4π over the faces'
    signed solid angles (Van Oosterom and Strackee's formula); 1 inside, 0 outside."""
    total = 0.0
    for f in range(faces.shape[0]):
        i, j, k = faces[f, 0], faces[f, 1], faces[f, 2]
        ax, ay, az = vertices[i, 0] - px, vertices[i, 1] - py, vertices[i, 2] - pz
        bx, by, bz = vertices[j, 0] - px, vertices[j, 1] - py, vertices[j, 2] - pz
        cx, cy, cz = vertices[k, 0] - px, vertices[k, 1] - py, vertices[k, 2] - pz
        la = math.sqrt(ax * ax + ay * ay + az * az)
        lb = math.sqrt(bx * bx + by * by + bz * bz)
        lc = math.sqrt(cx * cx + cy * cy + cz * cz)
        det = ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
        ab = ax * bx + ay * by + az * bz
        ac = ax * cx + ay * cy + az * cz
        bc = bx * cx + by * cy + bz * cz
        total += math.atan2(det, la * lb * lc + ab * lc + ac * lb + bc * la)
    return total / (2.0 * math.pi)


@numba.njit(cache=True)
def _mesh_query(vertices, faces, face_normals, points, out_point, out_inside, out_normal,
                out_face, out_bary):
    """:func:`find_nearest_points_on_mesh`, also writing each nearest point's face index and
    its barycentric (v, w) in that face (weights of the face's second and third vertices)."""
    nf = faces.shape[0]
    centres = np.empty((nf, 3))
    radii = np.empty(nf)
    lower = np.empty(nf)
    for f in range(nf):
        for k in range(3):
            centres[f, k] = (vertices[faces[f, 0], k] + vertices[faces[f, 1], k]
                             + vertices[faces[f, 2], k]) / 3.0
        r2 = 0.0
        for m in range(3):
            dx = vertices[faces[f, m], 0] - centres[f, 0]
            dy = vertices[faces[f, m], 1] - centres[f, 1]
            dz = vertices[faces[f, m], 2] - centres[f, 2]
            r2 = max(r2, dx * dx + dy * dy + dz * dz)
        radii[f] = math.sqrt(r2)
    for i in range(points.shape[0]):
        px, py, pz = points[i, 0], points[i, 1], points[i, 2]
        first = 0
        first_bound = np.inf
        for f in range(nf):
            dx, dy, dz = px - centres[f, 0], py - centres[f, 1], pz - centres[f, 2]
            lower[f] = math.sqrt(dx * dx + dy * dy + dz * dz) - radii[f]
            if lower[f] < first_bound:
                first_bound = lower[f]
                first = f
        best_face = first
        best_d2, qx, qy, qz, best_v, best_w, best_interior = nearest_on_face(
            px, py, pz, vertices, faces, first)
        for f in range(nf):
            if f == first or (lower[f] > 0.0 and lower[f] * lower[f] >= best_d2):
                continue
            d2, x, y, z, v, w, interior = nearest_on_face(px, py, pz, vertices, faces, f)
            if d2 < best_d2:
                best_d2, best_face, best_v, best_w, best_interior = d2, f, v, w, interior
                qx, qy, qz = x, y, z
        dx, dy, dz = px - qx, py - qy, pz - qz
        nx, ny, nz = (face_normals[best_face, 0], face_normals[best_face, 1],
                      face_normals[best_face, 2])
        if best_interior:
            inside = dx * nx + dy * ny + dz * nz < 0.0
        else:
            inside = _winding_number(px, py, pz, vertices, faces) > 0.5
        d = math.sqrt(best_d2)
        # Off an edge or vertex by more than rounding: the normal is the distance gradient.
        if not best_interior and d > 1e-13 * (abs(qx) + abs(qy) + abs(qz) + radii[best_face]):
            sign = -1.0 / d if inside else 1.0 / d
            nx, ny, nz = sign * dx, sign * dy, sign * dz
        out_point[i, 0], out_point[i, 1], out_point[i, 2] = qx, qy, qz
        out_normal[i, 0], out_normal[i, 1], out_normal[i, 2] = nx, ny, nz
        out_inside[i] = inside
        out_face[i] = best_face
        out_bary[i, 0], out_bary[i, 1] = best_v, best_w


@numba.njit(cache=True)
def find_nearest_points_on_mesh(vertices, faces, face_normals, points, out_point, out_inside,
                                out_normal):
    """For each row p of ``points`` (n, 3) (m, in S), write to row i of the outputs the
    nearest point of the closed mesh (m, in S), whether p is inside, and the unit outward
    normal there (in S): the face normal where the nearest point lies inside a face, else the
    direction from it to p signed outward (the gradient of the signed distance), or the face
    normal when p is on the surface. ``vertices`` (nv, 3) float64, ``faces`` (nf, 3) integer
    (counter-clockwise seen from outside), ``face_normals`` (nf, 3); brute force over faces,
    culled by each face's bounding sphere against the best distance so far."""
    n = points.shape[0]
    _mesh_query(vertices, faces, face_normals, points, out_point, out_inside, out_normal,
                np.empty(n, np.int64), np.empty((n, 2)))


# ---- argument checks ---------------------------------------------------------------------


def _points(points, where: str, name: str = "points", rows: str = "n",
            item: str = "points[{}]") -> np.ndarray:
    """``points`` as a contiguous (n, 3) float array of finite coordinates (m, in S);
    ``name``, ``rows`` and ``item`` word the errors (the argument, its row count, a row)."""
    try:
        arr = np.array(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"{where}: {name} must be an ({rows}, 3) array of real numbers (m, in the shape's "
            f"frame S), got {type(points).__name__}.") from exc
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise InvalidArgumentError(
            f"{where}: {name} must be an ({rows}, 3) array (m, in the shape's frame S), got shape "
            f"{arr.shape}; pass one point per row (a single point as [[x, y, z]]).")
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(arr), axis=1))[0])
        raise InvalidArgumentError(
            f"{where}: {item.format(bad)} = {arr[bad].tolist()} is not finite; give finite "
            "coordinates (m).")
    return np.ascontiguousarray(arr)


def _count(value, name: str, minimum: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidArgumentError(
            f"{where}: {name} must be an integer ≥ {minimum}, got {value!r}.")
    return int(value)


def _read_only(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _edge_text(i: int, j: int) -> str:
    return f"({i} → {j})"


# ---- the mesh ----------------------------------------------------------------------------


class TriangleMesh(ContactGeometry):
    """A closed triangle mesh in S (Simbody's ``ContactGeometry::TriangleMesh``): vertices
    (nv, 3) (m, in S) and faces (nf, 3) of vertex indices, each counter-clockwise seen from
    outside. With ``smooth`` the normal at a surface point is interpolated from the vertices'
    angle-weighted normals, as Simbody does, instead of being the face's normal. Also
    ``TriangleMesh(polygonal_mesh, smooth=False)``: a PolygonalMesh, its polygons split
    into triangles."""

    def __init__(self, vertices, faces=None, smooth=False):
        where = "ContactGeometry.TriangleMesh"
        if isinstance(vertices, PolygonalMesh):
            smooth = faces if isinstance(faces, bool) else smooth
            vertices, faces = vertices._triangles()
        elif faces is None:
            raise InvalidArgumentError(
                f"{where}: give vertices (nv, 3) and faces (nf, 3), or a PolygonalMesh.")
        self._vertices = _read_only(self._checked_vertices(vertices, where))
        self._faces = _read_only(self._checked_faces(faces, len(self._vertices), where))
        v0, v1, v2 = (self._vertices[self._faces[:, k]] for k in range(3))
        cross = np.cross(v1 - v0, v2 - v0)
        doubled = np.linalg.norm(cross, axis=1)
        longest = np.max([np.sum((v1 - v0) ** 2, axis=1), np.sum((v2 - v1) ** 2, axis=1),
                          np.sum((v0 - v2) ** 2, axis=1)], axis=0)
        degenerate = doubled <= _DEGENERATE_SINE * longest
        if np.any(degenerate):
            f = int(np.flatnonzero(degenerate)[0])
            raise InvalidArgumentError(
                f"{where}: face {f} (vertices {self._faces[f].tolist()}) has zero area: its "
                "vertices coincide or are collinear; remove the face or fix its vertices.")
        self._face_areas = _read_only(0.5 * doubled)
        self._face_normals = _read_only(cross / doubled[:, None])
        self._face_centroids = _read_only((v0 + v1 + v2) / 3.0)
        self._check_closed(where)
        self._volume = float(np.sum(np.einsum("ij,ij->i", v0, np.cross(v1, v2)))) / 6.0
        scale = float(np.max(np.ptp(self._vertices, axis=0)))
        if self._volume < -1e-12 * scale ** 3:
            raise InvalidArgumentError(
                f"{where}: the mesh encloses a negative volume ({self._volume:.6g} m³): its "
                "winding is inverted (faces clockwise seen from outside); reverse each face's "
                "vertex order, e.g. faces[:, ::-1].")
        if self._volume <= 1e-12 * scale ** 3:
            raise InvalidArgumentError(
                f"{where}: the mesh encloses no volume ({self._volume:.6g} m³); give a closed "
                "surface around a solid.")
        centre = self._vertices.mean(axis=0)
        self._bounding_sphere = (
            _read_only(centre), float(np.max(np.linalg.norm(self._vertices - centre, axis=1))))
        self._smooth = bool(smooth)
        self._vertex_normals = _read_only(self._angle_weighted_normals()) if smooth else None

    @staticmethod
    def _checked_vertices(vertices, where: str) -> np.ndarray:
        arr = _points(vertices, where, "vertices", "nv", "vertex {}")
        if len(arr) < 4:
            raise InvalidArgumentError(
                f"{where}: a closed mesh needs at least 4 vertices, got {len(arr)}.")
        return arr

    @staticmethod
    def _checked_faces(faces, nv: int, where: str) -> np.ndarray:
        arr = np.asarray(faces)
        if arr.ndim != 2 or arr.shape[1] != 3 or len(arr) < 4:
            raise InvalidArgumentError(
                f"{where}: faces must be an (nf, 3) array of vertex indices with nf ≥ 4 (a "
                f"closed mesh), got shape {arr.shape}.")
        if not np.issubdtype(arr.dtype, np.integer):
            raise InvalidArgumentError(
                f"{where}: faces must hold integer vertex indices, got dtype {arr.dtype}; "
                "convert them with faces.astype(int).")
        bad = (arr < 0) | (arr >= nv)
        if np.any(bad):
            f = int(np.flatnonzero(np.any(bad, axis=1))[0])
            raise InvalidArgumentError(
                f"{where}: face {f} = {arr[f].tolist()} refers to a vertex outside 0..{nv - 1}; "
                "fix its indices (they are 0-based).")
        unused = np.setdiff1d(np.arange(nv), arr)
        if len(unused):
            raise InvalidArgumentError(
                f"{where}: vertex {int(unused[0])} is used by no face; remove unused vertices "
                "(trimesh's remove_unreferenced_vertices()).")
        return np.ascontiguousarray(arr, dtype=np.int64)

    def _check_closed(self, where: str) -> None:
        """Every directed edge i → j occurs exactly once, and so does j → i: each edge joins
        exactly two faces that run it in opposite directions (closed, consistently wound)."""
        nv = len(self._vertices)
        tails = self._faces.ravel()
        heads = self._faces[:, [1, 2, 0]].ravel()
        keys = tails * nv + heads
        unique, counts = np.unique(keys, return_counts=True)
        if np.any(counts > 1):
            key = int(unique[np.argmax(counts > 1)])
            users = (np.flatnonzero(keys == key) // 3).tolist()
            raise InvalidArgumentError(
                f"{where}: edge {_edge_text(key // nv, key % nv)} is run in the same direction "
                f"by faces {users}: neighbouring faces are wound inconsistently (or more than "
                "two faces share the edge); make every face counter-clockwise seen from "
                "outside.")
        missing = ~np.isin(heads * nv + tails, keys)
        if np.any(missing):
            e = int(np.flatnonzero(missing)[0])
            raise InvalidArgumentError(
                f"{where}: edge {_edge_text(int(tails[e]), int(heads[e]))} of face {e // 3} "
                "has no neighbouring face running it the other way: the mesh is not closed; "
                "fill its holes (e.g. trimesh's fill_holes()) so it bounds a solid.")

    def _angle_weighted_normals(self) -> np.ndarray:
        """Each vertex's normal: the faces' normals weighted by their angles there."""
        normals = np.zeros_like(self._vertices)
        for k in range(3):
            here = self._vertices[self._faces[:, k]]
            out = self._vertices[self._faces[:, (k + 1) % 3]] - here
            back = self._vertices[self._faces[:, (k + 2) % 3]] - here
            cosine = np.einsum("ij,ij->i", out, back) / (
                np.linalg.norm(out, axis=1) * np.linalg.norm(back, axis=1))
            np.add.at(normals, self._faces[:, k],
                      self._face_normals * np.arccos(np.clip(cosine, -1.0, 1.0))[:, None])
        return normals / np.linalg.norm(normals, axis=1)[:, None]

    @classmethod
    def load(cls, path, smooth=False) -> TriangleMesh:
        """A TriangleMesh (m, in S) read from an OBJ, STL or any file trimesh reads, with
        coincident vertices merged (STL stores each face's corners separately)."""
        import trimesh

        where = f"ContactGeometry.TriangleMesh.load({str(path)!r})"
        if not Path(path).is_file():
            raise InvalidArgumentError(f"{where}: no such file; check the path.")
        try:
            mesh = trimesh.load(path, force="mesh", process=True)
        except (ValueError, OSError, KeyError) as exc:
            raise InvalidArgumentError(
                f"{where}: trimesh could not read the file ({exc}); give an OBJ, STL or other "
                "mesh format trimesh reads.") from exc
        mesh.merge_vertices(merge_tex=True, merge_norm=True)
        mesh.remove_unreferenced_vertices()
        try:
            return cls.from_trimesh(mesh, smooth)
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(
                f"{where}: the file is not a valid closed mesh: {exc}") from exc

    @classmethod
    def from_trimesh(cls, mesh, smooth=False) -> TriangleMesh:
        """A TriangleMesh with the vertices (m, in S) and faces of a ``trimesh.Trimesh``."""
        if not (hasattr(mesh, "vertices") and hasattr(mesh, "faces")):
            raise InvalidArgumentError(
                "ContactGeometry.TriangleMesh.from_trimesh(): expected a trimesh.Trimesh, got "
                f"{type(mesh).__name__}; load scenes with trimesh.load(..., force='mesh').")
        return TriangleMesh(np.asarray(mesh.vertices), np.asarray(mesh.faces), smooth)

    # ---- accessors ----

    def get_num_vertices(self) -> int:
        """The number of vertices."""
        return len(self._vertices)

    def get_num_faces(self) -> int:
        """The number of triangular faces."""
        return len(self._faces)

    def get_vertices(self) -> np.ndarray:
        """All vertex positions (n, 3) in the surface frame S (m), read-only."""
        return self._vertices

    def get_faces(self) -> np.ndarray:
        """All faces (m, 3) as indices of their vertices, read-only."""
        return self._faces

    def is_smooth(self) -> bool:
        """Whether normals are interpolated from the vertex normals (else per face)."""
        return self._smooth

    def _index(self, index, count: int, name: str, method: str) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not (
                0 <= index < count):
            raise InvalidArgumentError(
                f"{self._where(method)}: {name} must be an integer in 0..{count - 1}, got "
                f"{index!r}.")
        return int(index)

    def get_vertex_position(self, i) -> np.ndarray:
        """Vertex i's position (m, in S), read-only."""
        return self._vertices[self._index(i, len(self._vertices), "i", "get_vertex_position")]

    def get_face_vertex(self, face, k) -> int:
        """The index of the k-th vertex (k = 0, 1, 2, counter-clockwise seen from outside)
        of a face."""
        f = self._index(face, len(self._faces), "face", "get_face_vertex")
        return int(self._faces[f, self._index(k, 3, "k", "get_face_vertex")])

    def get_face_area(self, face) -> float:
        """A face's area (m²)."""
        return float(self._face_areas[self._index(face, len(self._faces), "face",
                                                  "get_face_area")])

    def get_face_normal(self, face) -> np.ndarray:
        """A face's unit outward normal (in S), read-only."""
        return self._face_normals[self._index(face, len(self._faces), "face",
                                              "get_face_normal")]

    def get_face_centroid(self, face) -> np.ndarray:
        """A face's centroid (m, in S), read-only."""
        return self._face_centroids[self._index(face, len(self._faces), "face",
                                                "get_face_centroid")]

    def vertices(self) -> np.ndarray:
        """All vertex positions, (nv, 3) (m, in S), read-only."""
        return self._vertices

    def faces(self) -> np.ndarray:
        """All faces' vertex indices, (nf, 3) int64, read-only."""
        return self._faces

    def face_centroids(self) -> np.ndarray:
        """All faces' centroids, (nf, 3) (m, in S), read-only."""
        return self._face_centroids

    def face_areas(self) -> np.ndarray:
        """All faces' areas, (nf,) (m²), read-only."""
        return self._face_areas

    def face_normals(self) -> np.ndarray:
        """All faces' unit outward normals, (nf, 3) (in S), read-only."""
        return self._face_normals

    def get_volume(self) -> float:
        """The volume the mesh encloses (m³; the faceted volume for a ``Cylinder``)."""
        return self._volume

    def get_bounding_sphere(self) -> tuple[np.ndarray, float]:
        """(centre (m, in S), radius (m)) of a sphere holding every vertex: the vertices'
        mean and the largest distance from it."""
        return self._bounding_sphere

    # ---- queries ----

    def find_nearest_points(self, points) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(points (n, 3), inside (n,) bool, normals (n, 3)): :meth:`find_nearest_point`
        for each row of ``points`` (m, in S), by the compiled kernel."""
        p = _points(points, self._where("find_nearest_points"))
        n = len(p)
        nearest, inside, normals = np.empty((n, 3)), np.empty(n, np.bool_), np.empty((n, 3))
        face, bary = np.empty(n, np.int64), np.empty((n, 2))
        _mesh_query(self._vertices, self._faces, self._face_normals, p, nearest, inside,
                    normals, face, bary)
        if self._smooth:
            corners = self._vertex_normals[self._faces[face]]
            weights = np.column_stack((1.0 - bary[:, 0] - bary[:, 1], bary))
            normals = np.einsum("ij,ijk->ik", weights, corners)
            normals /= np.linalg.norm(normals, axis=1)[:, None]
        return nearest, inside, normals

    def find_nearest_point(self, p_S):
        """(point, inside, normal) for one point p_S (m, in S): the nearest surface point
        (m, in S), whether p_S is inside, and the unit outward normal there (in S); at an
        edge or vertex of a faceted mesh the normal points from the surface point to p_S
        (into the mesh when p_S is inside)."""
        p = _point(p_S, self._where("find_nearest_point"))
        nearest, inside, normals = self.find_nearest_points(p[None, :])
        return nearest[0], bool(inside[0]), normals[0]

    def calc_surface_principal_curvatures(self, point):
        """((0, 0), R_SP) at a surface point (m, in S): each face is flat, as in Simbody;
        R_SP's z column is the outward normal at the surface point nearest ``point``."""
        n = self.find_nearest_point(
            _point(point, self._where("calc_surface_principal_curvatures")))[2]
        return np.zeros(2), _frame(_tangent_basis(n)[0], n)

    def calc_support_point(self, direction):
        """The vertex (m, in S) farthest along ``direction`` (in S)."""
        d = _direction(direction, self._where("calc_support_point"))
        return self._vertices[int(np.argmax(self._vertices @ d))].copy()

    def __repr__(self) -> str:
        return (f"ContactGeometry.TriangleMesh(<{len(self._vertices)} vertices>, "
                f"<{len(self._faces)} faces>, smooth={self._smooth})")


# ---- meshed primitives -------------------------------------------------------------------


def _brick_mesh(resolution: int) -> tuple[np.ndarray, np.ndarray]:
    """The surface of the cube [-1, 1]³ with each side cut into resolution² squares, two
    triangles each, counter-clockwise seen from outside."""
    n = resolution
    corners = []
    for axis in range(3):
        for sign in (1, -1):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            if sign < 0:
                u, v = v, u
            i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
            i, j = i.ravel(), j.ravel()
            quad = []
            for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                lattice = np.empty((len(i), 3), np.int64)
                lattice[:, axis] = n if sign > 0 else 0
                lattice[:, u] = i + di
                lattice[:, v] = j + dj
                quad.append(lattice)
            corners += [np.stack((quad[0], quad[1], quad[2]), 1),
                        np.stack((quad[0], quad[2], quad[3]), 1)]
    lattice = np.concatenate(corners).reshape(-1, 3)
    points, faces = np.unique(lattice, axis=0, return_inverse=True)
    return 2.0 * points / n - 1.0, faces.reshape(-1, 3)


class Brick(TriangleMesh):
    """The box |x| ≤ a, |y| ≤ b, |z| ≤ c of S with half_lengths = (a, b, c) (m), as a
    closed mesh whose every side is cut into resolution × resolution squares (two triangles
    each) to carry elastic-foundation springs. Nearest points, distances and normals are
    those of the exact box, which the mesh reproduces."""

    def __init__(self, half_lengths, resolution=1):
        where = "ContactGeometry.Brick"
        self._half_lengths = _three_lengths(half_lengths, "half_lengths", where)
        self._resolution = _count(resolution, "resolution", 1, where)
        unit, faces = _brick_mesh(self._resolution)
        super().__init__(unit * self._half_lengths, faces)

    def get_half_lengths(self) -> np.ndarray:
        """The half lengths (a, b, c) (m) along S's x, y, z, read-only."""
        return self._half_lengths

    def find_nearest_points(self, points):
        """(points (n, 3), inside (n,) bool, normals (n, 3)) of the exact box for each row of
        ``points`` (m, in S). Outside, the nearest point clamps p to the box; inside, it is
        p moved to the nearest side, whose normal is returned."""
        p = _points(points, self._where("find_nearest_points"))
        h = self._half_lengths
        sign = np.where(p >= 0.0, 1.0, -1.0)
        nearest = np.clip(p, -h, h)
        outside = np.any(np.abs(p) > h, axis=1)
        rows = np.flatnonzero(~outside)
        side = np.argmin(h - np.abs(p[rows]), axis=1)
        nearest[rows, side] = sign[rows, side] * h[side]
        normals = np.zeros_like(p)
        normals[rows, side] = sign[rows, side]
        away = p[outside] - nearest[outside]
        normals[outside] = away / np.linalg.norm(away, axis=1)[:, None]
        return nearest, np.all(np.abs(p) < h, axis=1), normals

    def __repr__(self) -> str:
        return (f"ContactGeometry.Brick({self._half_lengths.tolist()!r}, "
                f"resolution={self._resolution})")


class Cylinder(TriangleMesh):
    """The finite cylinder x² + y² ≤ r², |z| ≤ h of S (radius r, half_length h, m), as a
    closed mesh with ``resolution`` segments around (vertices on the exact rims, caps fanned
    from their centres) to carry elastic-foundation springs. Nearest points, distances,
    normals, curvatures and support points are those of the exact cylinder, not the facets;
    the mesh's volume and areas are the faceted ones."""

    def __init__(self, radius, half_length, resolution=32):
        where = "ContactGeometry.Cylinder"
        self._radius = _positive_length(radius, "radius", where)
        self._half_length = _positive_length(half_length, "half_length", where)
        self._resolution = _count(resolution, "resolution", 3, where)
        m = self._resolution
        angle = 2.0 * math.pi * np.arange(m) / m
        ring = np.column_stack((self._radius * np.cos(angle), self._radius * np.sin(angle)))
        h = self._half_length
        vertices = np.vstack((np.column_stack((ring, np.full(m, -h))),
                              np.column_stack((ring, np.full(m, h))),
                              [[0.0, 0.0, -h], [0.0, 0.0, h]]))
        i = np.arange(m)
        j = (i + 1) % m
        bottom, top = 2 * m, 2 * m + 1
        faces = np.vstack((np.column_stack((i, j, m + j)), np.column_stack((i, m + j, m + i)),
                           np.column_stack((np.full(m, bottom), j, i)),
                           np.column_stack((np.full(m, top), m + i, m + j))))
        super().__init__(vertices, faces)

    def get_radius(self) -> float:
        """The radius (m)."""
        return self._radius

    def get_half_length(self) -> float:
        """Half the length along S's z (m)."""
        return self._half_length

    def find_nearest_points(self, points):
        """(points (n, 3), inside (n,) bool, normals (n, 3)) of the exact cylinder for each
        row of ``points`` (m, in S): the side, a cap or the rim, whichever is nearest."""
        p = _points(points, self._where("find_nearest_points"))
        r, h = self._radius, self._half_length
        rho = np.hypot(p[:, 0], p[:, 1])
        radial = np.zeros((len(p), 2))
        radial[:, 0] = 1.0
        off_axis = rho > 0.0
        radial[off_axis] = p[off_axis, :2] / rho[off_axis, None]
        up = np.where(p[:, 2] >= 0.0, 1.0, -1.0)
        dr, dz = rho - r, np.abs(p[:, 2]) - h
        rim = (dr > 0.0) & (dz > 0.0)
        side = ~rim & ((dr > 0.0) | ((dz <= 0.0) & (-dr <= -dz)))
        cap = ~rim & ~side
        nearest = p.copy()
        nearest[rim | side, :2] = r * radial[rim | side]
        nearest[rim | cap, 2] = up[rim | cap] * h
        normals = np.zeros_like(p)
        normals[side, :2] = radial[side]
        normals[cap, 2] = up[cap]
        away = p[rim] - nearest[rim]
        normals[rim] = away / np.linalg.norm(away, axis=1)[:, None]
        return nearest, (dr < 0.0) & (dz < 0.0), normals

    def calc_surface_principal_curvatures(self, point):
        """((kmax, kmin), R_SP) at a surface point (m, in S): (1/r, 0) on the side, with kmax
        around the circumference and kmin along z; (0, 0) on the caps and the rim."""
        n = self.find_nearest_point(
            _point(point, self._where("calc_surface_principal_curvatures")))[2]
        if n[2] != 0.0:
            return np.zeros(2), _frame(_tangent_basis(n)[0], n)
        return (np.array([1.0 / self._radius, 0.0]),
                _frame(np.array([-n[1], n[0], 0.0]), n))

    def calc_support_point(self, direction):
        """The point (m, in S) of the exact cylinder farthest along ``direction`` (in S): on
        the rim of the cap it points to (that cap's centre when it is along ±z)."""
        d = _direction(direction, self._where("calc_support_point"))
        across = math.hypot(d[0], d[1])
        support = np.array([0.0, 0.0, self._half_length if d[2] >= 0.0 else -self._half_length])
        if across > 0.0:
            support[:2] = self._radius * d[:2] / across
        return support

    def __repr__(self) -> str:
        return (f"ContactGeometry.Cylinder({self._radius!r}, {self._half_length!r}, "
                f"resolution={self._resolution})")


# ---- the vectorized query for every shape ------------------------------------------------


def find_nearest_points(geometry, points) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points (n, 3), inside (n,) bool, normals (n, 3)): ``geometry.find_nearest_point``
    for each row of ``points`` (m, in the shape's frame S), in closed form for a half space
    and a sphere, by the compiled kernel (or analytically) for meshes, and point by point
    for the ellipsoid and other shapes."""
    if not isinstance(geometry, ContactGeometry):
        raise InvalidArgumentError(
            f"find_nearest_points(): geometry must be a ContactGeometry, got "
            f"{type(geometry).__name__}.")
    if isinstance(geometry, TriangleMesh):
        return geometry.find_nearest_points(points)
    p = _points(points, geometry._where("find_nearest_points"))
    if isinstance(geometry, HalfSpace):
        nearest = p.copy()
        nearest[:, 0] = 0.0
        return nearest, p[:, 0] > 0.0, np.tile(HalfSpace._NORMAL, (len(p), 1))
    if isinstance(geometry, Sphere):
        r = np.linalg.norm(p, axis=1)
        normals = np.zeros_like(p)
        normals[:, 0] = 1.0
        normals[r > 0.0] = p[r > 0.0] / r[r > 0.0, None]
        return geometry.get_radius() * normals, r < geometry.get_radius(), normals
    nearest, inside, normals = np.empty_like(p), np.empty(len(p), np.bool_), np.empty_like(p)
    for i, row in enumerate(p):
        nearest[i], inside[i], normals[i] = geometry.find_nearest_point(row)
    return nearest, inside, normals


ContactGeometry.TriangleMesh = TriangleMesh
ContactGeometry.Brick = Brick
ContactGeometry.Cylinder = Cylinder
