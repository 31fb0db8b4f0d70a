"""Finding the overlapping pairs of a set of contact surfaces (Simbody's contact tracking),
shared by ``ContactTrackerSubsystem`` and ``GeneralContactSubsystem``.

The surfaces are flattened at TOPOLOGY into a :class:`SurfaceTable` (constant arrays: body,
pose X_BS, kind, bounding sphere, group, clique mask). At POSITION :func:`find_contacts`
runs three compiled passes and a short Python one:

1. ``surface_poses``: X_GS = X_GB X_BS and each bounding sphere's centre in G.
2. ``broad_phase``: sweep and prune of the bounding spheres along the axis of largest
   spread (the sort starts from the previous call's order, so it is nearly linear when
   little moved), plus each half space against every finite surface. Pairs on one body, in
   different groups or sharing a clique are dropped. A scene of N surfaces costs
   O(N + pairs) in the common case, not O(N²).
3. ``sphere_contacts``: the exact narrow phase of half space-sphere and sphere-sphere pairs.
4. Python, per remaining candidate: ellipsoid pairs (with a half space, a sphere or another
   ellipsoid) through the analytic functions of
   :mod:`~kinetree.contact.geometry`, and pairs involving a triangle mesh, for which the
   mesh's face centroids inside the other surface are found (the elastic foundation's
   springs), both ways when both are meshes.

Point contacts report, in G: the normal (unit, from surface 1 into surface 2), the
overlap depth x (m), the origin O halfway between the undeformed surfaces, the relative
curvatures kmax ≥ kmin (1/m) of the gap and the direction of kmax. Surface 1 is the one
of lower kind (half space < sphere < ellipsoid < mesh), as in Simbody's algorithm table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from kinetree.contact import geometry as geo
from kinetree.contact.mesh import TriangleMesh, find_nearest_points
from kinetree.errors import InvalidArgumentError
from kinetree.math import Rotation, Transform
from kinetree.system.stage import Stage

HALF_SPACE, SPHERE, ELLIPSOID, MESH = 0, 1, 2, 3
_KIND_NAMES = ("HalfSpace", "Sphere", "Ellipsoid", "TriangleMesh")


def kind_of(geometry) -> int:
    if isinstance(geometry, geo.HalfSpace):
        return HALF_SPACE
    if isinstance(geometry, geo.Sphere):
        return SPHERE
    if isinstance(geometry, geo.Ellipsoid):
        return ELLIPSOID
    if isinstance(geometry, TriangleMesh):
        return MESH
    raise InvalidArgumentError(
        f"contact: no contact algorithms for {type(geometry).__name__}; use a HalfSpace, "
        f"Sphere, Ellipsoid or TriangleMesh (Brick and Cylinder are meshes).")


@dataclass
class SurfaceTable:
    """The constant description of n surfaces (built at TOPOLOGY)."""

    geometries: list
    body: np.ndarray        # (n,) int64 mobilized body index
    R_BS: np.ndarray        # (n, 3, 3)
    p_BS: np.ndarray        # (n, 3) m
    kind: np.ndarray        # (n,) int64
    radius: np.ndarray      # (n,) m: sphere radius, else bounding radius (inf: half space)
    centre_S: np.ndarray    # (n, 3) m: bounding-sphere centre in S
    group: np.ndarray       # (n,) int64: only surfaces of one group meet
    clique: np.ndarray      # (n,) int64 bit mask: surfaces sharing a bit never meet

    @classmethod
    def build(cls, entries, where: str) -> SurfaceTable:
        """``entries``: (body index, X_BS, geometry, group, clique ids) per surface."""
        n = len(entries)
        table = cls([], np.zeros(n, np.int64), np.zeros((n, 3, 3)), np.zeros((n, 3)),
                    np.zeros(n, np.int64), np.zeros(n), np.zeros((n, 3)),
                    np.zeros(n, np.int64), np.zeros(n, np.int64))
        clique_bits: dict[int, int] = {}
        for i, (body, X_BS, geometry, group, cliques) in enumerate(entries):
            table.geometries.append(geometry)
            table.body[i], table.group[i] = body, group
            table.R_BS[i], table.p_BS[i] = X_BS.R.as_matrix(), X_BS.p
            kind = table.kind[i] = kind_of(geometry)
            if kind == HALF_SPACE:
                table.radius[i] = np.inf
            elif kind == SPHERE:
                table.radius[i] = geometry.get_radius()
            elif kind == ELLIPSOID:
                table.radius[i] = float(np.max(geometry.get_radii()))
            else:
                centre, radius = geometry.get_bounding_sphere()
                table.centre_S[i], table.radius[i] = centre, radius
            for c in cliques:
                bit = clique_bits.setdefault(c, len(clique_bits))
                if bit >= 63:
                    raise InvalidArgumentError(
                        f"{where}: more than 63 contact cliques are in use; merge cliques "
                        f"or put the surfaces that must not touch on one body.")
                table.clique[i] |= 1 << bit
        return table

    def __len__(self) -> int:
        return len(self.geometries)


@dataclass
class MeshContact:
    """The springs of one mesh inside another surface: the mesh's surface index, the other
    surface's, the faces whose centroids are inside, the centroids ("springs") and the
    nearest points of the other surface in G (m), and the faces' areas (m²)."""

    mesh: int
    other: int
    faces: np.ndarray
    spring_G: np.ndarray
    nearest_G: np.ndarray
    area: np.ndarray


@dataclass
class ContactList:
    """The contacts of one configuration (module docstring); arrays sized to the count."""

    surf: np.ndarray        # (m, 2) surface indices (surface 1, surface 2)
    normal: np.ndarray      # (m, 3)
    depth: np.ndarray       # (m,) m
    origin: np.ndarray      # (m, 3) m
    kmax: np.ndarray        # (m,) 1/m
    kmin: np.ndarray        # (m,) 1/m
    kdir: np.ndarray        # (m, 3) unit direction of kmax, ⊥ normal
    meshes: list = field(default_factory=list)   # MeshContact, one per mesh and pair

    def __len__(self) -> int:
        return len(self.depth)


class ContactWork:
    """The per-State buffers of :func:`find_contacts` for ``table`` (the sweep order of
    its finite surfaces persists between calls)."""

    def __init__(self, table: SurfaceTable):
        n = len(table)
        self.R_GS, self.p_GS = np.zeros((n, 3, 3)), np.zeros((n, 3))
        self.centre_G = np.zeros((n, 3))
        self.order = np.flatnonzero(table.kind != HALF_SPACE).astype(np.int64)
        self.pairs = np.zeros((max(16, 4 * n), 2), np.int64)
        self._grow_contacts(max(16, n))

    def _grow_contacts(self, cap: int) -> None:
        self.surf = np.zeros((cap, 2), np.int64)
        self.normal, self.depth = np.zeros((cap, 3)), np.zeros(cap)
        self.origin, self.kdir = np.zeros((cap, 3)), np.zeros((cap, 3))
        self.kmax, self.kmin = np.zeros(cap), np.zeros(cap)
        self.rest = np.zeros(cap, np.int64)


class ContactSearch:
    """What the subsystems that find contacts share (ContactTrackerSubsystem,
    GeneralContactSubsystem): a SurfaceTable built at TOPOLOGY, and per State a POSITION
    cache entry for the ContactList and a TOPOLOGY one for the search's buffers."""

    def _allocate_search(self, state, entries, where: str) -> None:
        """Build the table of ``entries`` (see SurfaceTable.build) and allocate the cache
        entries; called from realize_topology."""
        self._table = SurfaceTable.build(entries, where)
        self._contacts_index = self.allocate_cache_entry(state, Stage.POSITION,
                                                         Stage.POSITION, None)
        self._work_index = self.allocate_cache_entry(state, Stage.TOPOLOGY, Stage.TOPOLOGY,
                                                     ContactWork(self._table))

    def _search(self, state, where: str) -> ContactList:
        """The contacts at ``state``'s body poses (matter realized to POSITION)."""
        matter = self.get_system().get_matter_subsystem()
        cache = matter.get_tree_data(state, Stage.POSITION, where).cache
        return find_contacts(self._table, self.get_cache_entry(state, self._work_index),
                             cache.R_GB, cache.p_GB)


kernel = numba.njit(cache=True, _nrt=False)


@kernel
def surface_poses(body, R_BS, p_BS, centre_S, R_GB, p_GB, R_GS, p_GS, centre_G):
    """X_GS = X_GB X_BS of every surface and its bounding-sphere centre in G."""
    for s in range(body.shape[0]):
        b = body[s]
        for i in range(3):
            p_GS[s, i] = p_GB[b, i]
            for j in range(3):
                acc = 0.0
                for k in range(3):
                    acc += R_GB[b, i, k] * R_BS[s, k, j]
                R_GS[s, i, j] = acc
                p_GS[s, i] += R_GB[b, i, j] * p_BS[s, j]
        for i in range(3):
            c = p_GS[s, i]
            for j in range(3):
                c += R_GS[s, i, j] * centre_S[s, j]
            centre_G[s, i] = c


@kernel
def _keep(i, j, body, group, clique):
    return body[i] != body[j] and group[i] == group[j] and (clique[i] & clique[j]) == 0


@kernel
def broad_phase(kind, radius, centre_G, R_GS, p_GS, body, group, clique, order, pairs):
    """Candidate pairs (i, j), i of lower or equal kind, into ``pairs``; returns how many
    there are (more than ``pairs`` holds means: grow it and call again)."""
    n_finite = order.shape[0]
    cap = pairs.shape[0]
    count = 0
    # Axis of largest spread of the finite surfaces' centres.
    axis = 0
    if n_finite > 1:
        best = -1.0
        for a in range(3):
            lo, hi = np.inf, -np.inf
            for k in range(n_finite):
                x = centre_G[order[k], a]
                lo, hi = min(lo, x), max(hi, x)
            if hi - lo > best:
                best, axis = hi - lo, a
    # Insertion sort by the lower end of each bounding interval, from the last order.
    for k in range(1, n_finite):
        s = order[k]
        key = centre_G[s, axis] - radius[s]
        m = k - 1
        while m >= 0 and centre_G[order[m], axis] - radius[order[m]] > key:
            order[m + 1] = order[m]
            m -= 1
        order[m + 1] = s
    for k in range(n_finite):
        a = order[k]
        upper = centre_G[a, axis] + radius[a]
        for m in range(k + 1, n_finite):
            b = order[m]
            if centre_G[b, axis] - radius[b] > upper:
                break
            if not _keep(a, b, body, group, clique):
                continue
            d2 = 0.0
            for i in range(3):
                d = centre_G[a, i] - centre_G[b, i]
                d2 += d * d
            reach = radius[a] + radius[b]
            if d2 <= reach * reach:
                if count < cap:
                    if kind[a] <= kind[b]:
                        pairs[count, 0], pairs[count, 1] = a, b
                    else:
                        pairs[count, 0], pairs[count, 1] = b, a
                count += 1
    for h in range(kind.shape[0]):
        if kind[h] != 0:
            continue
        for k in range(n_finite):
            s = order[k]
            if not _keep(h, s, body, group, clique):
                continue
            x = 0.0          # the centre's x in H: inside the half space when > 0
            for i in range(3):
                x += R_GS[h, i, 0] * (centre_G[s, i] - p_GS[h, i])
            if x + radius[s] > 0.0:
                if count < cap:
                    pairs[count, 0], pairs[count, 1] = h, s
                count += 1
    return count


@kernel
def _perpendicular(n, out, row):
    """A unit vector ⊥ n into out[row]."""
    ax = 0
    if abs(n[1]) < abs(n[ax]):
        ax = 1
    if abs(n[2]) < abs(n[ax]):
        ax = 2
    # e_ax × n, normalized
    if ax == 0:
        x, y, z = 0.0, -n[2], n[1]
    elif ax == 1:
        x, y, z = n[2], 0.0, -n[0]
    else:
        x, y, z = -n[1], n[0], 0.0
    s = np.sqrt(x * x + y * y + z * z)
    out[row, 0], out[row, 1], out[row, 2] = x / s, y / s, z / s


@kernel
def sphere_contacts(kind, radius, R_GS, p_GS, pairs, n_pairs, surf, normal, depth, origin,
                    kmax, kmin, kdir, rest):
    """The exact contact of each half space-sphere and sphere-sphere candidate; returns
    (contacts written, candidates of other kinds written to ``rest``)."""
    m = 0
    n_rest = 0
    for k in range(n_pairs):
        a, b = pairs[k, 0], pairs[k, 1]
        if kind[a] == 0 and kind[b] == 1:
            r = radius[b]
            x = 0.0
            for i in range(3):
                x += R_GS[a, i, 0] * (p_GS[b, i] - p_GS[a, i])
            x += r
            if x <= 0.0:
                continue
            for i in range(3):
                normal[m, i] = -R_GS[a, i, 0]
                origin[m, i] = p_GS[b, i] + (r - 0.5 * x) * R_GS[a, i, 0]
            kmax[m] = kmin[m] = 1.0 / r
        elif kind[a] == 1 and kind[b] == 1:
            d2 = 0.0
            for i in range(3):
                d = p_GS[b, i] - p_GS[a, i]
                d2 += d * d
            d = np.sqrt(d2)
            x = radius[a] + radius[b] - d
            if x <= 0.0 or d == 0.0:
                continue
            for i in range(3):
                normal[m, i] = (p_GS[b, i] - p_GS[a, i]) / d
                origin[m, i] = p_GS[a, i] + (radius[a] - 0.5 * x) * normal[m, i]
            kmax[m] = kmin[m] = 1.0 / radius[a] + 1.0 / radius[b]
        else:
            rest[n_rest] = k
            n_rest += 1
            continue
        surf[m, 0], surf[m, 1] = a, b
        depth[m] = x
        _perpendicular(normal[m], kdir, m)
        m += 1
    return m, n_rest


def _pose(work: ContactWork, s: int) -> Transform:
    return Transform(Rotation._trusted(work.R_GS[s]), work.p_GS[s])


def _gap_curvatures(c: geo.Contact) -> tuple[float, float, np.ndarray]:
    """(kmax, kmin, kmax direction in G) of the gap between the two surfaces of ``c``: the
    eigen-decomposition of the sum of their curvature tensors on the tangent plane."""
    n = c.normal
    t1 = c.R_GP1.as_matrix()[:, 0]
    t2 = np.cross(n, t1)
    K = np.zeros((2, 2))
    for curv, R in ((c.curvatures1, c.R_GP1), (c.curvatures2, c.R_GP2)):
        R = R.as_matrix()
        for k, d in zip(curv, (R[:, 0], R[:, 1])):
            e = np.array([d @ t1, d @ t2])
            K += k * np.outer(e, e)
    w, v = np.linalg.eigh(K)
    return float(w[1]), float(w[0]), v[0, 1] * t1 + v[1, 1] * t2


def _analytic_contact(table: SurfaceTable, work: ContactWork, a: int, b: int):
    ga, gb = table.geometries[a], table.geometries[b]
    Xa, Xb = _pose(work, a), _pose(work, b)
    if table.kind[a] == HALF_SPACE:
        return geo.contact_half_space_ellipsoid(Xa, Xb, gb)
    if table.kind[a] == SPHERE:
        return geo.contact_sphere_ellipsoid(Xa, ga, Xb, gb)
    return geo.contact_ellipsoid_ellipsoid(Xa, ga, Xb, gb)


@kernel
def springs_in_simple_surface(centroids_M, R_GM, p_GM, R_GO, p_GO, other_kind, radius,
                              faces, spring_G, nearest_G):
    """The mesh face centroids (in M) inside a half space or sphere O: their faces,
    positions in G and O's nearest surface points in G, written to the first entries of
    the outputs; returns how many."""
    count = 0
    for f in range(centroids_M.shape[0]):
        cx = p_GM[0]
        cy = p_GM[1]
        cz = p_GM[2]
        for j in range(3):
            cx += R_GM[0, j] * centroids_M[f, j]
            cy += R_GM[1, j] * centroids_M[f, j]
            cz += R_GM[2, j] * centroids_M[f, j]
        dx, dy, dz = cx - p_GO[0], cy - p_GO[1], cz - p_GO[2]
        if other_kind == 0:          # half space: inside where x_O > 0; nearest: x_O = 0
            x = R_GO[0, 0] * dx + R_GO[1, 0] * dy + R_GO[2, 0] * dz
            if x <= 0.0:
                continue
            nearest_G[count, 0] = cx - x * R_GO[0, 0]
            nearest_G[count, 1] = cy - x * R_GO[1, 0]
            nearest_G[count, 2] = cz - x * R_GO[2, 0]
        else:                        # sphere about O's origin
            d = np.sqrt(dx * dx + dy * dy + dz * dz)
            if d >= radius or d == 0.0:
                continue
            scale = radius / d
            nearest_G[count, 0] = p_GO[0] + dx * scale
            nearest_G[count, 1] = p_GO[1] + dy * scale
            nearest_G[count, 2] = p_GO[2] + dz * scale
        spring_G[count, 0], spring_G[count, 1], spring_G[count, 2] = cx, cy, cz
        faces[count] = f
        count += 1
    return count


def _mesh_springs(table: SurfaceTable, work: ContactWork, mesh: int, other: int):
    """The faces of ``mesh`` whose centroids are inside ``other``, or None."""
    geometry = table.geometries[mesh]
    R_GM, p_GM = work.R_GS[mesh], work.p_GS[mesh]
    R_GO, p_GO = work.R_GS[other], work.p_GS[other]
    if table.kind[other] in (HALF_SPACE, SPHERE):
        nf = geometry.get_num_faces()
        faces, spring_G, nearest_G = np.empty(nf, np.int64), np.empty((nf, 3)), \
            np.empty((nf, 3))
        count = springs_in_simple_surface(geometry.face_centroids(), R_GM, p_GM, R_GO, p_GO,
                                          table.kind[other], table.radius[other], faces,
                                          spring_G, nearest_G)
        if count == 0:
            return None
        faces = faces[:count]
        return MeshContact(mesh, other, faces, spring_G[:count], nearest_G[:count],
                           geometry.face_areas()[faces])
    centroids_G = geometry.face_centroids() @ R_GM.T + p_GM
    points_O = (centroids_G - p_GO) @ R_GO
    nearest_O, inside, _ = find_nearest_points(table.geometries[other], points_O)
    if not inside.any():
        return None
    faces = np.flatnonzero(inside)
    return MeshContact(mesh, other, faces, centroids_G[faces],
                       nearest_O[faces] @ R_GO.T + p_GO, geometry.face_areas()[faces])


def find_contacts(table: SurfaceTable, work: ContactWork, R_GB, p_GB) -> ContactList:
    """The contacts of all surfaces of ``table`` at body poses R_GB, p_GB (module
    docstring)."""
    surface_poses(table.body, table.R_BS, table.p_BS, table.centre_S, R_GB, p_GB,
                  work.R_GS, work.p_GS, work.centre_G)
    args = (table.kind, table.radius, work.centre_G, work.R_GS, work.p_GS, table.body,
            table.group, table.clique, work.order)
    n_pairs = broad_phase(*args, work.pairs)
    if n_pairs > len(work.pairs):
        work.pairs = np.zeros((2 * n_pairs, 2), np.int64)
        n_pairs = broad_phase(*args, work.pairs)
    if n_pairs > len(work.depth):
        work._grow_contacts(2 * n_pairs)
    m, n_rest = sphere_contacts(table.kind, table.radius, work.R_GS, work.p_GS, work.pairs,
                                n_pairs, work.surf, work.normal, work.depth, work.origin,
                                work.kmax, work.kmin, work.kdir, work.rest)
    meshes = []
    for k in work.rest[:n_rest]:
        a, b = work.pairs[k]
        if table.kind[b] == MESH:
            for mesh, other in ((b, a), (a, b)) if table.kind[a] == MESH else ((b, a),):
                springs = _mesh_springs(table, work, mesh, other)
                if springs is not None:
                    meshes.append(springs)
            continue
        c = _analytic_contact(table, work, a, b)
        if c.depth <= 0.0:
            continue
        work.surf[m] = a, b
        work.normal[m], work.depth[m], work.origin[m] = c.normal, c.depth, c.origin
        work.kmax[m], work.kmin[m], work.kdir[m] = _gap_curvatures(c)
        m += 1
    return ContactList(work.surf[:m].copy(), work.normal[:m].copy(), work.depth[:m].copy(),
                       work.origin[:m].copy(), work.kmax[:m].copy(), work.kmin[:m].copy(),
                       work.kdir[:m].copy(), meshes)
