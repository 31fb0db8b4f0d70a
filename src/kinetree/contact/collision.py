"""Finding the overlapping pairs of a set of contact surfaces (Simbody's contact tracking),
shared by ``ContactTrackerSubsystem`` and ``GeneralContactSubsystem``.

The surfaces are flattened at TOPOLOGY into a :class:`SurfaceTable` (constant arrays: body,
pose X_BS, kind, bounding sphere, group, clique mask) and copied into each State's
:class:`ContactBuffers`, two flat arrays with named views (:class:`ContactData`) that the
compiled realization receives. At POSITION :func:`search_contacts` runs three compiled
passes, inside the one compiled realization of a MultibodySystem (or on its own through
``search_point_contacts``), and :func:`finish_search` a short Python one:

1. ``surface_poses``: X_GS = X_GB X_BS and each bounding sphere's centre in G.
2. ``broad_phase``: sweep and prune of the bounding spheres along the axis of largest
   spread (the sort starts from the previous call's order, so it is nearly linear when
   little moved), plus each half space against every finite surface. Pairs on one body, in
   different groups or sharing a clique are dropped. A scene of N surfaces costs
   O(N + pairs) in the common case, not O(N²).
3. ``point_contacts``: the exact narrow phase of pairs of half spaces, spheres and
   capsules (a capsule touching as the ball about its segment's nearest point, a half
   space as the ball about each end inside it, a capsule lying side by side with it as
   the balls about the ends of their overlap), and of a sphere or a capsule on a
   Brick, a Cylinder or a Convex in a ContactTrackerSubsystem: the ball about the
   nearest point of the solid (a capsule's ends each, and the deepest point between them
   where it crosses an edge or lies across), a Hertz contact of a sphere of the ball's
   radius on a plane, or on a cylinder's round side. A hull's nearest point is found
   over its triangles, and a point inside it leaves through its nearest face's plane.
4. ``mesh_springs``: for a triangle mesh against a half space, a sphere or a capsule, the
   mesh's face centroids inside the other surface (the elastic foundation's springs).
5. Python, per remaining candidate: ellipsoid pairs (with a half space, a sphere or another
   ellipsoid) through the analytic functions of
   :mod:`~kinetree.contact.geometry`; a capsule and an ellipsoid, and an ellipsoid on a
   solid, through :func:`~kinetree.contact.convex.closest_points`; a mesh against an
   ellipsoid or another mesh, both ways when both are meshes.

Point contacts report, in G: the normal (unit, from surface 1 into surface 2), the
overlap depth x (m), the origin O halfway between the undeformed surfaces, the relative
curvatures kmax ≥ kmin (1/m) of the gap and the direction of kmax. Surface 1 is the one
of lower kind (half space < sphere < capsule < ellipsoid < mesh), as in Simbody's
algorithm table.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field

import numba
import numpy as np

from kinetree.contact import geometry as geo
from kinetree.contact.capsule import Capsule
from kinetree.contact.convex import core_of, pair_kernel
from kinetree.contact.convex_hull import Convex
from kinetree.contact.mesh import (
    Brick,
    Cylinder,
    TriangleMesh,
    find_nearest_points,
    nearest_on_face,
)
from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.math import Rotation, Transform
from kinetree.multibody.kernels.small import (
    add3,
    column3,
    dot3,
    rotate3,
    rotate3_transpose,
    scale3,
    sub3,
    tangent_basis,
)
from kinetree.multibody.tree_model import take_view
from kinetree.system.stage import Stage

HALF_SPACE, SPHERE, CAPSULE, ELLIPSOID, MESH = 0, 1, 2, 3, 4
_KIND_NAMES = ("HalfSpace", "Sphere", "Capsule", "Ellipsoid", "TriangleMesh")


def kind_of(geometry) -> int:
    if isinstance(geometry, geo.HalfSpace):
        return HALF_SPACE
    if isinstance(geometry, geo.Sphere):
        return SPHERE
    if isinstance(geometry, Capsule):
        return CAPSULE
    if isinstance(geometry, geo.Ellipsoid):
        return ELLIPSOID
    if isinstance(geometry, TriangleMesh):
        return MESH
    raise InvalidArgumentError(
        f"contact: no contact algorithms for {type(geometry).__name__}; use a HalfSpace, "
        f"Sphere, Capsule, Ellipsoid or TriangleMesh (Brick and Cylinder are meshes; a "
        f"convex mesh collides as a TriangleMesh).")


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
    size: np.ndarray        # (n, 3) m: a sphere's (radius, 0, 0), a capsule's (radius,
                            # half length along S's z, 0); where balls meet solids
                            # (``solids``), a Brick's half lengths, a Cylinder's
                            # (radius, half length along S's z, 0) and a Convex's
                            # (-1, 0, 0); else 0
    group: np.ndarray       # (n,) int64: only surfaces of one group meet
    clique: np.ndarray      # (n,) int64 bit mask: surfaces sharing a bit never meet
    cores: dict = field(default_factory=dict)   # {surface: convex.core_of}, as needed

    @classmethod
    def build(cls, entries, where: str, solids: bool = False) -> SurfaceTable:
        """``entries``: (body index, X_BS, geometry, group, clique ids) per surface. With
        ``solids`` a sphere, a capsule or an ellipsoid meets a Brick as a box, a Cylinder
        as a cylinder and a Convex as its hull (Hertz point contacts), not as the
        elastic foundation of its mesh."""
        n = len(entries)
        table = cls([], np.zeros(n, np.int64), np.zeros((n, 3, 3)), np.zeros((n, 3)),
                    np.zeros(n, np.int64), np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3)),
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
                table.radius[i] = table.size[i, 0] = geometry.get_radius()
            elif kind == CAPSULE:
                table.size[i, :2] = geometry.get_radius(), geometry.get_half_length()
                table.radius[i] = geometry.get_radius() + geometry.get_half_length()
            elif kind == ELLIPSOID:
                table.radius[i] = float(np.max(geometry.get_radii()))
            else:
                centre, radius = geometry.get_bounding_sphere()
                table.centre_S[i], table.radius[i] = centre, radius
                if solids and isinstance(geometry, Brick):
                    table.size[i] = geometry.get_half_lengths()
                elif solids and isinstance(geometry, Cylinder):
                    table.size[i, :2] = geometry.get_radius(), geometry.get_half_length()
                elif solids and isinstance(geometry, Convex):
                    table.size[i, 0] = -1.0
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


ContactData = namedtuple("ContactData", [
    "header",      # (13,) int64: n surfaces, n finite, pair capacity, contact capacity,
                   # pairs found, point contacts m, candidates left for Python, overflow,
                   # mesh faces, spring capacity, springs found, hull vertices, hull
                   # triangles
    "body", "kind", "group", "clique",   # (n,) int64: the SurfaceTable's integers
    "order",       # (n finite,) int64: the finite surfaces in sweep order (persists)
    "pairs",       # (pair capacity, 2) int64: broad-phase candidates
    "surf",        # (capacity, 2) int64: surfaces of each point contact
    "rest",        # (capacity,) int64: candidates of other kinds (pair numbers)
    "R_BS", "p_BS", "radius", "centre_S",     # (n, 3, 3), (n, 3), (n,), (n, 3)
    "size",        # (n, 3): the SurfaceTable's
    "R_GS", "p_GS", "centre_G",               # surface poses in G
    "normal", "depth", "origin", "kmax", "kmin", "kdir",    # point contacts (capacity)
    "point", "force", "report",              # their forces (CompliantContactSubsystem)
    "material",    # (n, 8): per surface, its force model's parameters. Compliant:
                   # stiffness, dissipation, μs, μd, μv, thickness. Hunt-Crossley:
                   # k^(2/3), dissipation, μs, μd, μv, transition velocity, then 1 if an
                   # enabled HuntCrossleyForce applies to the surface's set; a mesh's
                   # under an enabled ElasticFoundationForce: k, c, μs, μd, μv, v_t, 1
    "face_start",  # (n + 1,) int64: surface s's faces are face_start[s]:face_start[s + 1]
    "centroid_S", "face_area",   # (faces, 3) m in S, (faces,) m²: of the mesh surfaces
    "spring_surf",  # (spring capacity, 2) int64: (mesh, other surface) of each spring
    "spring_face",  # (spring capacity,) int64: its face, numbered within the mesh
    "spring_G", "nearest_G",     # (spring capacity, 3) m: the face centroid inside the
                                 # other surface, and that surface's nearest point, in G
    "hull_start",   # (n + 1, 2) int64: surface s's hull vertices and triangles begin at
                    # row hull_start[s, 0] of hull_vertices and hull_start[s, 1] of
                    # hull_planes and hull_faces (a Convex meeting balls as a solid;
                    # others have none)
    "hull_vertices",  # (hull vertices, 3) m in S
    "hull_planes",  # (hull triangles, 4): each triangle's outward unit normal n in S and
                    # n · (a corner) (m)
    "hull_faces",   # (hull triangles, 3) int64: vertex numbers within the hull,
                    # counter-clockwise seen from outside
])
"""The contact search's per-State arrays, views of two flat buffers (``contact_i``,
``contact_f``) that the compiled realization receives as they are."""

_HEADER = 13
_N, _N_FINITE, _CAP_PAIRS, _CAP, _N_PAIRS, _M, _N_REST, _OVERFLOW = range(8)
_FACES, _CAP_SPRINGS, _N_SPRINGS, _HULL_VERTICES, _HULL_FACES = 8, 9, 10, 11, 12


@numba.njit(cache=True, inline="always")
def unpack_contacts(contact_i, contact_f):
    """ContactData views of the two buffers (sizes from the header)."""
    header, at = take_view(contact_i, 0, (_HEADER,))
    n, nf, cp, cap = header[0], header[1], header[2], header[3]
    faces, cs = header[8], header[9]
    hull_vertices_n, hull_faces_n = header[11], header[12]
    body, at = take_view(contact_i, at, (n,))
    kind, at = take_view(contact_i, at, (n,))
    group, at = take_view(contact_i, at, (n,))
    clique, at = take_view(contact_i, at, (n,))
    order, at = take_view(contact_i, at, (nf,))
    pairs, at = take_view(contact_i, at, (cp, 2))
    surf, at = take_view(contact_i, at, (cap, 2))
    rest, at = take_view(contact_i, at, (cap,))
    face_start, at = take_view(contact_i, at, (n + 1,))
    spring_surf, at = take_view(contact_i, at, (cs, 2))
    spring_face, at = take_view(contact_i, at, (cs,))
    hull_start, at = take_view(contact_i, at, (n + 1, 2))
    hull_faces, at = take_view(contact_i, at, (hull_faces_n, 3))
    R_BS, at = take_view(contact_f, 0, (n, 3, 3))
    p_BS, at = take_view(contact_f, at, (n, 3))
    radius, at = take_view(contact_f, at, (n,))
    centre_S, at = take_view(contact_f, at, (n, 3))
    size, at = take_view(contact_f, at, (n, 3))
    R_GS, at = take_view(contact_f, at, (n, 3, 3))
    p_GS, at = take_view(contact_f, at, (n, 3))
    centre_G, at = take_view(contact_f, at, (n, 3))
    normal, at = take_view(contact_f, at, (cap, 3))
    depth, at = take_view(contact_f, at, (cap,))
    origin, at = take_view(contact_f, at, (cap, 3))
    kmax, at = take_view(contact_f, at, (cap,))
    kmin, at = take_view(contact_f, at, (cap,))
    kdir, at = take_view(contact_f, at, (cap, 3))
    point, at = take_view(contact_f, at, (cap, 3))
    force, at = take_view(contact_f, at, (cap, 3))
    report, at = take_view(contact_f, at, (cap, 8))
    material, at = take_view(contact_f, at, (n, 8))
    centroid_S, at = take_view(contact_f, at, (faces, 3))
    face_area, at = take_view(contact_f, at, (faces,))
    spring_G, at = take_view(contact_f, at, (cs, 3))
    nearest_G, at = take_view(contact_f, at, (cs, 3))
    hull_vertices, at = take_view(contact_f, at, (hull_vertices_n, 3))
    hull_planes, at = take_view(contact_f, at, (hull_faces_n, 4))
    return ContactData(header, body, kind, group, clique, order, pairs, surf, rest, R_BS,
                       p_BS, radius, centre_S, size, R_GS, p_GS, centre_G, normal, depth,
                       origin, kmax, kmin, kdir, point, force, report, material, face_start,
                       centroid_S, face_area, spring_surf, spring_face, spring_G, nearest_G,
                       hull_start, hull_vertices, hull_planes, hull_faces)


def contact_views(contact_i: np.ndarray, contact_f: np.ndarray):
    """``unpack_contacts`` for Python: the same views, made by numpy."""
    return unpack_contacts.py_func(contact_i, contact_f)


class ContactBuffers:
    """One State's contact search: the two flat buffers with their named views
    (``data``), and the mesh contacts the Python part of the search found."""

    def __init__(self, table: SurfaceTable, material=None, capacity: int | None = None,
                 spring_capacity: int | None = None):
        n = len(table)
        finite = np.flatnonzero(table.kind != HALF_SPACE).astype(np.int64)
        halves = n - finite.size
        meshes = [g if k == MESH else None for g, k in zip(table.geometries, table.kind)]
        face_start = np.cumsum([0] + [0 if g is None else g.get_num_faces() for g in meshes])
        faces = int(face_start[-1])
        # Every half space may touch every finite surface, and a finite surface rarely has
        # more than a dozen neighbours; a mesh's faces rarely meet more than two surfaces
        # at once. A scene that finds more grows the buffers.
        cap = capacity or 16 + halves * finite.size + 8 * finite.size
        cs = spring_capacity or 2 * faces
        # The hulls a ball meets as solids (SurfaceTable.build), their vertices and faces.
        hulls = [g if table.size[s, 0] < 0.0 else None
                 for s, g in enumerate(table.geometries)]
        hull_start = np.zeros((n + 1, 2), np.int64)
        for s, g in enumerate(hulls):
            counts = (0, 0) if g is None else (len(g.get_vertices()), len(g.get_faces()))
            hull_start[s + 1] = hull_start[s] + counts
        hv, hf = int(hull_start[-1, 0]), int(hull_start[-1, 1])
        ints = _HEADER + 4 * n + finite.size + 2 * cap + 3 * cap + n + 1 + 3 * cs \
            + 2 * (n + 1) + 3 * hf
        floats = n * (9 + 3 + 1 + 3 + 3 + 9 + 3 + 3 + 8) \
            + cap * (3 + 1 + 3 + 1 + 1 + 3 + 3 + 3 + 8) + 4 * faces + 6 * cs + 3 * hv \
            + 4 * hf
        self.contact_i, self.contact_f = np.zeros(ints, np.int64), np.zeros(floats)
        self.contact_i[:4] = n, finite.size, cap, cap
        self.contact_i[_FACES], self.contact_i[_CAP_SPRINGS] = faces, cs
        self.contact_i[_HULL_VERTICES], self.contact_i[_HULL_FACES] = hv, hf
        d = self.data = contact_views(self.contact_i, self.contact_f)
        d.body[:], d.kind[:], d.group[:], d.clique[:] = (table.body, table.kind, table.group,
                                                         table.clique)
        d.order[:] = finite
        d.R_BS[:], d.p_BS[:], d.radius[:], d.centre_S[:] = (table.R_BS, table.p_BS,
                                                             table.radius, table.centre_S)
        d.size[:] = table.size
        d.face_start[:] = face_start
        for s, g in enumerate(meshes):
            if g is not None:
                d.centroid_S[face_start[s]:face_start[s + 1]] = g.face_centroids()
                d.face_area[face_start[s]:face_start[s + 1]] = g.face_areas()
        d.hull_start[:] = hull_start
        for s, g in enumerate(hulls):
            if g is not None:
                vertices, faces, normals = g.get_vertices(), g.get_faces(), g.face_normals()
                d.hull_vertices[hull_start[s, 0]:hull_start[s + 1, 0]] = vertices
                d.hull_faces[hull_start[s, 1]:hull_start[s + 1, 1]] = faces
                planes = d.hull_planes[hull_start[s, 1]:hull_start[s + 1, 1]]
                planes[:, :3] = normals
                planes[:, 3] = np.einsum("ij,ij->i", normals, vertices[faces[:, 0]])
        if material is not None:
            d.material[:, :material.shape[1]] = material
        self.python_meshes: list = []   # MeshContact the Python part of the last search found

    @property
    def meshes(self) -> list:
        """The MeshContact of the last search: one per run of springs of one (mesh, other
        surface) pair in the buffers, then those the Python part found."""
        d = self.data
        found, n, j = [], int(d.header[_N_SPRINGS]), 0
        while j < n:
            mesh, other = int(d.spring_surf[j, 0]), int(d.spring_surf[j, 1])
            k = j + 1
            while k < n and d.spring_surf[k, 0] == mesh and d.spring_surf[k, 1] == other:
                k += 1
            faces = d.spring_face[j:k].copy()
            found.append(MeshContact(mesh, other, faces, d.spring_G[j:k].copy(),
                                     d.nearest_G[j:k].copy(),
                                     d.face_area[d.face_start[mesh] + faces]))
            j = k
        return found + self.python_meshes

    def grown(self, table: SurfaceTable) -> ContactBuffers:
        """Buffers with twice the capacities, keeping the sweep order and materials."""
        new = ContactBuffers(table, self.data.material, 2 * int(self.data.header[_CAP]),
                             2 * int(self.data.header[_CAP_SPRINGS]))
        new.data.order[:] = self.data.order
        return new

    def __deepcopy__(self, memo) -> ContactBuffers:
        new = ContactBuffers.__new__(ContactBuffers)
        new.contact_i, new.contact_f = self.contact_i.copy(), self.contact_f.copy()
        new.data = contact_views(new.contact_i, new.contact_f)
        new.python_meshes = list(self.python_meshes)
        return new


class ContactSearch:
    """What the subsystems that find contacts share (ContactTrackerSubsystem,
    GeneralContactSubsystem): a SurfaceTable built at TOPOLOGY and, per State, the
    ContactBuffers (a TOPOLOGY cache entry) the search fills at POSITION: its compiled part
    (``search_point_contacts``, inside the one compiled realization when it can be) and its
    Python part (``finish_search``: ellipsoids and meshes)."""

    _ellipsoid_section_radii = False
    """Whether a half space meets an ellipsoid with the radii of Simbody's older contact
    API (:func:`section_curvatures`) instead of the surface's curvatures."""
    _balls_meet_solids = False
    """Whether a sphere, a capsule or an ellipsoid meets a Brick, a Cylinder or a Convex
    as that solid (SurfaceTable.build)."""

    def engine_fields(self, state) -> dict:
        """The contact search's buffers, fields of the compiled realization's data
        (``engine/data.py``)."""
        buffers = self._buffers(state)
        return {"contact_i": buffers.contact_i, "contact_f": buffers.contact_f}

    def engine_python(self, state) -> tuple[dict, dict]:
        """(before, after): per stage, the Python this subsystem runs around the compiled
        call when its search runs inside the one compiled realization: ellipsoids and
        meshes, after the search."""
        return {}, {Stage.POSITION: [self._finish_search]} if self._has_python_kinds else {}

    def _allocate_search(self, state, entries, where: str, material=None) -> None:
        """Build the table of ``entries`` (see SurfaceTable.build) and allocate the
        buffers; called from realize_topology."""
        self._table = SurfaceTable.build(entries, where, self._balls_meet_solids)
        # The Python pass runs for ellipsoids, and meshes that may meet each other.
        kinds = self._table.kind
        self._has_python_kinds = bool(np.any(kinds == ELLIPSOID) or np.sum(kinds == MESH) > 1)
        self._buffers_index = self.allocate_cache_entry(
            state, Stage.TOPOLOGY, Stage.TOPOLOGY, ContactBuffers(self._table, material))

    def _buffers(self, state) -> ContactBuffers:
        return state._part_of(self, "contact search").cache[self._buffers_index].value

    def _search(self, state, where: str) -> None:
        """Find the contacts at ``state``'s body poses (matter realized to POSITION):
        the compiled pass, then the Python one."""
        matter = self.get_system().get_matter_subsystem()
        cache = matter.get_tree_data(state, Stage.POSITION, where).cache
        buffers = self._buffers(state)
        search_point_contacts(buffers.contact_i, buffers.contact_f, cache.R_GB, cache.p_GB)
        self._finish_search(state)

    def _finish_search(self, state) -> None:
        """After the compiled pass: grow the buffers and search again if they overflowed,
        then the candidates of other kinds in Python."""
        buffers = self._buffers(state)
        if buffers.data.header[_OVERFLOW]:
            self._grow(state)
            self._search(state, "contact search")
            return
        buffers.python_meshes = finish_search(self._table, buffers.data,
                                              self._ellipsoid_section_radii) \
            if self._has_python_kinds else []

    def _grow(self, state) -> None:
        """Replace ``state``'s buffers by larger ones after an overflow."""
        part = state._part_of(self, "contact search")
        part.cache[self._buffers_index].value = self._buffers(state).grown(self._table)
        state._system_plan = None          # its arguments were the old buffers

    def _contact_list(self, state) -> ContactList:
        """The contacts found at ``state``'s POSITION, as a ContactList (copies)."""
        buffers = self._buffers(state)
        d, m = buffers.data, int(buffers.data.header[_M])
        return ContactList(d.surf[:m].copy(), d.normal[:m].copy(), d.depth[:m].copy(),
                           d.origin[:m].copy(), d.kmax[:m].copy(), d.kmin[:m].copy(),
                           d.kdir[:m].copy(), buffers.meshes)


kernel = helper(_nrt=False)
outlined = helper(_nrt=False, forceinline=False)
"""For the larger narrow-phase functions: called, not inlined at each call site, so that
they compile once."""


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
def _on_segment(p, axis, h, x):
    """(the point of the segment p ± h axis nearest x, whether it is inside the segment,
    not at an end)."""
    t = (x[0] - p[0]) * axis[0] + (x[1] - p[1]) * axis[1] + (x[2] - p[2]) * axis[2]
    inside = -h < t < h
    t = min(max(t, -h), h)
    return (p[0] + t * axis[0], p[1] + t * axis[1], p[2] + t * axis[2]), inside


@kernel
def _segments(p1, a1, h1, p2, a2, h2):
    """The nearest points of the segments p1 ± h1 a1 and p2 ± h2 a2 (unit a1, a2), each
    with whether it is inside its segment (Ericson's clamped solution, parallel segments
    met at the first's clamped parameter)."""
    r = (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])
    b = a1[0] * a2[0] + a1[1] * a2[1] + a1[2] * a2[2]
    c = a1[0] * r[0] + a1[1] * r[1] + a1[2] * r[2]
    f = a2[0] * r[0] + a2[1] * r[1] + a2[2] * r[2]
    den = 1.0 - b * b
    s = 0.0
    if den > 1e-14:
        s = min(max((b * f - c) / den, -h1), h1)
    t = b * s + f
    if t < -h2 or t > h2:
        t = min(max(t, -h2), h2)
        s = min(max(b * t - c, -h1), h1)
    q1 = (p1[0] + s * a1[0], p1[1] + s * a1[1], p1[2] + s * a1[2])
    q2 = (p2[0] + t * a2[0], p2[1] + t * a2[1], p2[2] + t * a2[2])
    return q1, -h1 < s < h1, q2, -h2 < t < h2


@kernel
def _add_curvature(K, n, e1, e2, k, along, axis):
    """K (the gap's curvature tensor on the tangent basis e1, e2, as (K11, K12, K22)) plus
    a surface's at the contact: isotropic k, or, ``along`` the side of a capsule of unit
    ``axis``, k around the axis and 0 along it."""
    if not along:
        return K[0] + k, K[1], K[2] + k
    # the circumferential direction: axis × n
    d = (axis[1] * n[2] - axis[2] * n[1], axis[2] * n[0] - axis[0] * n[2],
         axis[0] * n[1] - axis[1] * n[0])
    u = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2]
    v = d[0] * e2[0] + d[1] * e2[1] + d[2] * e2[2]
    norm2 = u * u + v * v
    if norm2 == 0.0:
        return K
    return K[0] + k * u * u / norm2, K[1] + k * u * v / norm2, K[2] + k * v * v / norm2


@kernel
def _emit(m, a, b, x, n, o, K, e1, e2, surf, normal, depth, origin, kmax, kmin, kdir):
    """Contact m: surfaces (a, b), depth x, unit normal n, origin o, and the gap's
    principal curvatures and kmax direction from its tensor K on (e1, e2)."""
    surf[m, 0], surf[m, 1] = a, b
    depth[m] = x
    for i in range(3):
        normal[m, i] = n[i]
        origin[m, i] = o[i]
    mean = 0.5 * (K[0] + K[2])
    half = 0.5 * (K[0] - K[2])
    spread = np.sqrt(half * half + K[1] * K[1])
    kmax[m] = mean + spread
    kmin[m] = mean - spread
    angle = 0.5 * np.arctan2(K[1], half) if spread > 0.0 else 0.0
    c, s = np.cos(angle), np.sin(angle)
    for i in range(3):
        kdir[m, i] = c * e1[i] + s * e2[i]


@kernel
def _row3(a, i):
    return (a[i, 0], a[i, 1], a[i, 2])


@kernel
def _column3(R, i, j):
    return (R[i, 0, j], R[i, 1, j], R[i, 2, j])


@kernel
def _balls(m, a, b, ca, ra, along_a, axis_a, cb, rb, along_b, axis_b, surf, normal, depth,
           origin, kmax, kmin, kdir):
    """The contact of the balls of radius ra about ca (surface a) and rb about cb
    (surface b), each the end or the side of its surface (``along``, on a capsule of unit
    axis); returns the contacts written (0 or 1)."""
    g = (cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2])
    d = np.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2])
    x = ra + rb - d
    if x <= 0.0 or d == 0.0:
        return 0
    n = (g[0] / d, g[1] / d, g[2] / d)
    o = (ca[0] + (ra - 0.5 * x) * n[0], ca[1] + (ra - 0.5 * x) * n[1],
         ca[2] + (ra - 0.5 * x) * n[2])
    e1, e2 = tangent_basis(n)
    K = _add_curvature((0.0, 0.0, 0.0), n, e1, e2, 1.0 / ra, along_a, axis_a)
    K = _add_curvature(K, n, e1, e2, 1.0 / rb, along_b, axis_b)
    _emit(m, a, b, x, n, o, K, e1, e2, surf, normal, depth, origin, kmax, kmin, kdir)
    return 1


@outlined
def _side_by_side(m, a, b, pa, axis_a, ra, ha, pb, axis_b, rb, hb, surf, normal, depth,
                  origin, kmax, kmin, kdir):
    """Two capsules lying side by side (axes parallel to 1e-6), their lengths
    overlapping: they touch along a line, which a Hertz point contact cannot carry (the
    gap is flat along it), so as a capsule on a floor rests on its ends, they touch as
    the balls about the two ends of the overlap. Returns the contacts written, or -1 if
    they are not side by side."""
    along = abs(dot3(axis_a, axis_b))
    if along < 1.0 - 1e-6:
        return -1
    g = dot3(sub3(pb, pa), axis_a)
    lo, hi = max(-ha, g - hb * along), min(ha, g + hb * along)
    if lo > hi:
        return -1
    written = 0
    for k in range(2 if hi > lo else 1):
        ca = add3(pa, scale3(lo if k == 0 else hi, axis_a))
        cb, _ = _on_segment(pb, axis_b, hb, ca)
        written += _balls(m + written, a, b, ca, ra, False, axis_a, cb, rb, False, axis_b,
                          surf, normal, depth, origin, kmax, kmin, kdir)
    return written


@kernel
def _hull_side(x, hull):
    """(the largest signed distance (m) of x from the planes of ``hull``'s triangles, > 0
    outside, and that triangle's outward unit normal), in the hull's frame."""
    planes = hull[1]
    best, best_f = -np.inf, 0
    for f in range(planes.shape[0]):
        gap = planes[f, 0] * x[0] + planes[f, 1] * x[1] + planes[f, 2] * x[2] - planes[f, 3]
        if gap > best:
            best, best_f = gap, f
    return best, _row3(planes, best_f)


@kernel
def _nearest_in_solid(x_B, size, hull):
    """The point of the solid nearest x_B (both in the solid's frame B): a box of half
    lengths ``size`` (all three > 0), a cylinder of radius size[0] and half length
    size[1] along B's z (size[2] = 0), or a convex hull (size[0] < 0) of ``hull``'s
    vertices, its triangles' planes and its outward-wound triangles."""
    if size[0] < 0.0:
        if _hull_side(x_B, hull)[0] <= 0.0:
            return x_B
        vertices, _, faces = hull
        best, nearest = np.inf, x_B
        for f in range(faces.shape[0]):
            d2, x, y, z, _, _, _ = nearest_on_face(x_B[0], x_B[1], x_B[2], vertices, faces, f)
            if d2 < best:
                best, nearest = d2, (x, y, z)
        return nearest
    if size[2] > 0.0:
        return (min(max(x_B[0], -size[0]), size[0]), min(max(x_B[1], -size[1]), size[1]),
                min(max(x_B[2], -size[2]), size[2]))
    rho = np.sqrt(x_B[0] * x_B[0] + x_B[1] * x_B[1])
    inward = size[0] / rho if rho > size[0] else 1.0
    return (inward * x_B[0], inward * x_B[1], min(max(x_B[2], -size[1]), size[1]))


@kernel
def _way_out(x_B, size, hull):
    """For x_B inside the solid (``_nearest_in_solid``): (the distance to its nearest
    side, that side's outward unit normal in B)."""
    if size[0] < 0.0:
        gap, n = _hull_side(x_B, hull)
        return -gap, n
    if size[2] > 0.0:
        face, gap = 0, np.inf
        for i in range(3):
            if size[i] - abs(x_B[i]) < gap:
                face, gap = i, size[i] - abs(x_B[i])
        sign = 1.0 if x_B[face] >= 0.0 else -1.0
        return gap, (sign if face == 0 else 0.0, sign if face == 1 else 0.0,
                     sign if face == 2 else 0.0)
    rho = np.sqrt(x_B[0] * x_B[0] + x_B[1] * x_B[1])
    if size[1] - abs(x_B[2]) < size[0] - rho:
        return size[1] - abs(x_B[2]), (0.0, 0.0, 1.0 if x_B[2] >= 0.0 else -1.0)
    if rho == 0.0:
        return size[0], (1.0, 0.0, 0.0)
    return size[0] - rho, (x_B[0] / rho, x_B[1] / rho, 0.0)


@outlined
def _ball_on_solid(m, a, b, c, r, along, axis, R_GB, p_GB, size, hull, surf, normal, depth,
                   origin, kmax, kmin, kdir):
    """The contact of the ball of radius r about c (surface a: a sphere, or a ball of a
    capsule, ``along`` its side of unit ``axis`` or at an end) with a box, a cylinder or
    a convex hull (surface b, posed R_GB, p_GB; ``size`` and ``hull`` as
    ``_nearest_in_solid``): along the line from c to the solid's nearest point, or, with
    c inside it, out through the nearest side.
    On a cylinder's round side the gap curves as the two surfaces do (a capsule's side
    around its axis only); on a face, an edge or a rim, as a sphere of radius r does, the
    solid taken flat (an edge's own curvature is unbounded). Returns the contacts written
    (0 or 1)."""
    c_B = rotate3_transpose(R_GB, sub3(c, p_GB))
    near_B = _nearest_in_solid(c_B, size, hull)
    out = sub3(c_B, near_B)
    d = np.sqrt(dot3(out, out))
    if d > 0.0:
        x = r - d
        n = scale3(-1.0 / d, rotate3(R_GB, out))
    else:
        gap, side = _way_out(c_B, size, hull)
        x = r + gap
        n = scale3(-1.0, rotate3(R_GB, side))       # into the solid, through that side
    if x <= 0.0:
        return 0
    e1, e2 = tangent_basis(n)
    if size[0] > 0.0 and size[2] == 0.0 and abs(c_B[2]) < size[1] \
            and c_B[0] * c_B[0] + c_B[1] * c_B[1] > size[0] * size[0]:
        # nearest the round side
        K = _add_curvature((0.0, 0.0, 0.0), n, e1, e2, 1.0 / r, along, axis)
        K = _add_curvature(K, n, e1, e2, 1.0 / size[0], True, column3(R_GB, 2))
    else:
        K = (1.0 / r, 0.0, 1.0 / r)
    _emit(m, a, b, x, n, add3(c, scale3(r - 0.5 * x, n)), K, e1, e2, surf, normal, depth,
          origin, kmax, kmin, kdir)
    return 1


@kernel
def _solid_distance(R_GB, p_GB, size, hull, x):
    """The signed distance (m) of the point x (G) from a box, a cylinder or a convex hull
    (``_nearest_in_solid``): < 0 inside."""
    x_B = rotate3_transpose(R_GB, sub3(x, p_GB))
    out = sub3(x_B, _nearest_in_solid(x_B, size, hull))
    d = np.sqrt(dot3(out, out))
    if d > 0.0:
        return d
    gap, _ = _way_out(x_B, size, hull)
    return -gap


@outlined
def _capsule_on_solid(m, a, b, p, axis, r, h, R_GB, p_GB, size, hull, surf, normal, depth,
                      origin, kmax, kmin, kdir):
    """A capsule (radius r about p ± h axis, surface a) on a box, a cylinder or a convex
    hull (surface b): the ball about each end, and where the segment crosses an edge or
    lies across the solid, the ball about its point nearest the solid, if that is deeper
    than both ends. The distance along a segment from a convex body is convex, so a golden-section
    search finds that point. Returns the contacts written."""
    top, bottom = add3(p, scale3(h, axis)), sub3(p, scale3(h, axis))
    ends_distance = min(_solid_distance(R_GB, p_GB, size, hull, top),
                        _solid_distance(R_GB, p_GB, size, hull, bottom))
    lo, hi = -h, h
    ratio = 0.5 * (np.sqrt(5.0) - 1.0)
    t1, t2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1 = _solid_distance(R_GB, p_GB, size, hull, add3(p, scale3(t1, axis)))
    f2 = _solid_distance(R_GB, p_GB, size, hull, add3(p, scale3(t2, axis)))
    for _ in range(100):            # to 1e-12 of the length in some 60
        if not hi - lo > 1e-12 * h:
            break
        if f1 < f2:                 # the minimum is left of t2: t1 becomes the new t2
            hi, t2, f2 = t2, t1, f1
            t1 = hi - ratio * (hi - lo)
            f1 = _solid_distance(R_GB, p_GB, size, hull, add3(p, scale3(t1, axis)))
        else:
            lo, t1, f1 = t1, t2, f2
            t2 = lo + ratio * (hi - lo)
            f2 = _solid_distance(R_GB, p_GB, size, hull, add3(p, scale3(t2, axis)))
    t = 0.5 * (lo + hi)
    # The search meets a smooth minimum only to √ε; alternate projections (the solid's
    # nearest point, then its projection on the segment) settle it to round-off.
    for _ in range(100):
        x_B = rotate3_transpose(R_GB, sub3(add3(p, scale3(t, axis)), p_GB))
        near_B = _nearest_in_solid(x_B, size, hull)
        if near_B == x_B:                    # the segment's point is inside the solid
            break
        near = add3(p_GB, rotate3(R_GB, near_B))
        t_new = min(max(dot3(sub3(near, p), axis), -h), h)
        done = abs(t_new - t) <= 1e-15 * h
        t = t_new
        if done:
            break
    c = add3(p, scale3(t, axis))
    written = 0
    if _solid_distance(R_GB, p_GB, size, hull, c) < ends_distance - 1e-12 * (r + h):
        written += _ball_on_solid(m, a, b, c, r, abs(t) < h, axis, R_GB, p_GB, size, hull,
                                  surf, normal, depth, origin, kmax, kmin, kdir)
    for end in (top, bottom):
        written += _ball_on_solid(m + written, a, b, end, r, False, axis, R_GB, p_GB, size,
                                  hull, surf, normal, depth, origin, kmax, kmin, kdir)
    return written


@kernel
def point_contacts(kind, radius, size, hull_start, hull_vertices, hull_planes, hull_faces,
                   R_GS, p_GS, pairs, n_pairs, surf, normal, depth, origin, kmax, kmin, kdir,
                   rest):
    """The exact contact of each candidate pair of half spaces, spheres and capsules (a
    capsule is a sphere swept along its segment: it touches as the ball about its
    segment's nearest point; on a half space, as the ball about each end inside it, so
    that one lying flat rests on both ends), and of a sphere or a capsule on a box, a
    cylinder or a convex hull (a mesh whose ``size`` is set, ``_nearest_in_solid``; hull
    s has the vertices hull_vertices[hull_start[s, 0]:hull_start[s + 1, 0]], and the
    triangles and their planes at rows hull_start[s, 1]:hull_start[s + 1, 1] of
    hull_faces and hull_planes); returns (contacts written, candidates of other kinds
    written to ``rest``); -1 contacts if the buffers are too small."""
    m = 0
    n_rest = 0
    for k in range(n_pairs):
        if m + 3 > surf.shape[0]:
            return -1, 0
        a, b = pairs[k, 0], pairs[k, 1]
        ka, kb = kind[a], kind[b]
        pa, pb = _row3(p_GS, a), _row3(p_GS, b)
        if ka == 0 and (kb == 1 or kb == 2):
            # the half space's outward normal is -x of its frame
            inward = _column3(R_GS, a, 0)
            r = size[b, 0]
            h = size[b, 1] if kb == 2 else 0.0
            axis = _column3(R_GS, b, 2)
            ends = 2 if kb == 2 else 1
            for e in range(ends):
                sign = 1.0 if e == 0 else -1.0
                c = (pb[0] + sign * h * axis[0], pb[1] + sign * h * axis[1],
                     pb[2] + sign * h * axis[2])
                x = r + (inward[0] * (c[0] - pa[0]) + inward[1] * (c[1] - pa[1])
                         + inward[2] * (c[2] - pa[2]))
                if x <= 0.0:
                    continue
                n = (-inward[0], -inward[1], -inward[2])
                o = (c[0] + (r - 0.5 * x) * inward[0], c[1] + (r - 0.5 * x) * inward[1],
                     c[2] + (r - 0.5 * x) * inward[2])
                e1, e2 = tangent_basis(n)
                _emit(m, a, b, x, n, o, (1.0 / r, 0.0, 1.0 / r), e1, e2, surf, normal,
                      depth, origin, kmax, kmin, kdir)
                m += 1
        elif ka == 1 and kb == 1:
            m += _balls(m, a, b, pa, size[a, 0], False, pa, pb, size[b, 0], False, pb, surf,
                        normal, depth, origin, kmax, kmin, kdir)
        elif ka == 1 and kb == 2:
            axis = _column3(R_GS, b, 2)
            c, along = _on_segment(pb, axis, size[b, 1], pa)
            m += _balls(m, a, b, pa, size[a, 0], False, pa, c, size[b, 0], along, axis,
                        surf, normal, depth, origin, kmax, kmin, kdir)
        elif ka == 2 and kb == 2:
            axis_a, axis_b = _column3(R_GS, a, 2), _column3(R_GS, b, 2)
            written = _side_by_side(m, a, b, pa, axis_a, size[a, 0], size[a, 1], pb,
                                    axis_b, size[b, 0], size[b, 1], surf, normal, depth,
                                    origin, kmax, kmin, kdir)
            if written < 0:
                ca, along_a, cb, along_b = _segments(pa, axis_a, size[a, 1], pb, axis_b,
                                                     size[b, 1])
                written = _balls(m, a, b, ca, size[a, 0], along_a, axis_a, cb, size[b, 0],
                                 along_b, axis_b, surf, normal, depth, origin, kmax, kmin,
                                 kdir)
            m += written
        elif (ka == 1 or ka == 2) and kb == 4 and size[b, 0] != 0.0:
            R_B, solid = R_GS[b], _row3(size, b)
            hull = (hull_vertices[hull_start[b, 0]:hull_start[b + 1, 0]],
                    hull_planes[hull_start[b, 1]:hull_start[b + 1, 1]],
                    hull_faces[hull_start[b, 1]:hull_start[b + 1, 1]])
            if ka == 1:
                m += _ball_on_solid(m, a, b, pa, size[a, 0], False, pa, R_B, pb, solid, hull,
                                    surf, normal, depth, origin, kmax, kmin, kdir)
            else:
                m += _capsule_on_solid(m, a, b, pa, _column3(R_GS, a, 2), size[a, 0],
                                       size[a, 1], R_B, pb, solid, hull, surf, normal, depth,
                                       origin, kmax, kmin, kdir)
        else:
            rest[n_rest] = k
            n_rest += 1
    return m, n_rest


def _pose(d: ContactData, s: int) -> Transform:
    return Transform(Rotation._trusted(d.R_GS[s]), d.p_GS[s])


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


def _convex_contact(Xa: Transform, ga, Xb: Transform, gb) -> geo.Contact:
    """The contact of two convex shapes (``convex.closest_points``), with each surface's
    principal curvatures at its deepest point."""
    from kinetree.contact.convex import closest_points

    found = closest_points(Xa, ga, Xb, gb)
    sides = []
    for X, g, point in ((Xa, ga, found.point_a), (Xb, gb, found.point_b)):
        curvatures, R_SP = g.calc_surface_principal_curvatures(X.R.as_matrix().T
                                                               @ (point - X.p))
        sides.append(geo._in_G(X, curvatures, R_SP))
    return geo.Contact(found.normal, -found.distance, found.point_a, found.point_b,
                       sides[0][0], sides[0][1], sides[1][0], sides[1][1])


def _around(K, t1, t2, n, axis, k):
    """K (the gap's curvature tensor on the tangent basis t1, t2 of n, as [K11, K12,
    K22]) plus a surface curved k around ``axis`` only (a capsule's or a cylinder's side):
    k in the direction axis × n. ``_add_curvature``'s arithmetic for the Python pass,
    where calling the kernel would compile an entry of its own at run time."""
    d = (axis[1] * n[2] - axis[2] * n[1], axis[2] * n[0] - axis[0] * n[2],
         axis[0] * n[1] - axis[1] * n[0])
    u, v = d[0] * t1[0] + d[1] * t1[1] + d[2] * t1[2], d[0] * t2[0] + d[1] * t2[1] + d[2] * t2[2]
    norm2 = u * u + v * v
    if norm2 > 0.0:
        K[0] += k * u * u / norm2
        K[1] += k * u * v / norm2
        K[2] += k * v * v / norm2


def _principal(K, t1, t2) -> tuple[float, float, np.ndarray]:
    """(kmax, kmin, kmax's direction in G) of the symmetric 2 x 2 tensor K on t1, t2."""
    mean, half = 0.5 * (K[0] + K[2]), 0.5 * (K[0] - K[2])
    spread = math.hypot(half, K[1])
    angle = 0.5 * math.atan2(K[1], half)
    return mean + spread, mean - spread, math.cos(angle) * t1 + math.sin(angle) * t2


def _ellipsoid_on_solid(table: SurfaceTable, d: ContactData, a: int, b: int) -> tuple:
    """The contact of an ellipsoid (surface a) with a Brick, a Cylinder or a Convex
    (surface b) met as a solid, as (normal, depth, origin, kmax, kmin, kmax direction) in
    G: at their deepest points (``convex.pair_kernel``). The gap curves as the ellipsoid
    does there, plus a cylinder's round side; faces, edges, corners and rims are taken
    flat (an edge's own curvature is unbounded: the rounder surface shapes the
    contact)."""
    ga, solid = table.geometries[a], table.geometries[b]
    for s in (a, b):
        if s not in table.cores:
            table.cores[s] = core_of(table.geometries[s])
    R_a, p_a, R_b, p_b = d.R_GS[a], d.p_GS[a], d.R_GS[b], d.p_GS[b]
    out = np.empty(10)
    pair_kernel(*table.cores[a], R_a, p_a, *table.cores[b], R_b, p_b, out)
    n, point_a = out[7:10].copy(), out[1:4].copy()
    point_b = point_a + out[0] * n
    t1, t2 = geo._tangent_basis(n)
    # the second fundamental form of f = Σ (x_i / r_i)² - 1: the Hessian of f on the
    # tangent plane over |∇f|
    inverse = 1.0 / ga.get_radii() ** 2
    along1, along2 = R_a.T @ t1, R_a.T @ t2
    gradient = float(np.linalg.norm(inverse * (R_a.T @ (point_a - p_a))))
    K = [float(inverse @ (along1 * along1)) / gradient,
         float(inverse @ (along1 * along2)) / gradient,
         float(inverse @ (along2 * along2)) / gradient]
    if isinstance(solid, Cylinder) and abs(R_b[:, 2] @ n) < 1e-6 \
            and abs(R_b[:, 2] @ (point_b - p_b)) < solid.get_half_length():
        _around(K, t1, t2, -n, R_b[:, 2], 1.0 / solid.get_radius())
    kmax, kmin, kdir = _principal(K, t1, t2)
    return n, -out[0], 0.5 * (point_a + point_b), kmax, kmin, kdir


def _analytic_contact(table: SurfaceTable, d: ContactData, a: int, b: int):
    ga, gb = table.geometries[a], table.geometries[b]
    Xa, Xb = _pose(d, a), _pose(d, b)
    if table.kind[a] == CAPSULE:
        return _convex_contact(Xa, ga, Xb, gb)
    if table.kind[a] == HALF_SPACE:
        return geo.contact_half_space_ellipsoid(Xa, Xb, gb)
    if table.kind[a] == SPHERE:
        return geo.contact_sphere_ellipsoid(Xa, ga, Xb, gb)
    return geo.contact_ellipsoid_ellipsoid(Xa, ga, Xb, gb)


@kernel
def springs_in_simple_surface(centroids_M, R_GM, p_GM, R_GO, p_GO, other_kind, r, h,
                              faces, spring_G, nearest_G):
    """The mesh face centroids (in M) inside a half space, a sphere (radius r) or a
    capsule (radius r about the segment ±h along O's z) O: their faces, positions in G and
    O's nearest surface points in G, written to the first entries of the outputs; returns
    how many."""
    count = 0
    for f in range(centroids_M.shape[0]):
        cx = p_GM[0]
        cy = p_GM[1]
        cz = p_GM[2]
        for j in range(3):
            cx += R_GM[0, j] * centroids_M[f, j]
            cy += R_GM[1, j] * centroids_M[f, j]
            cz += R_GM[2, j] * centroids_M[f, j]
        if other_kind == 0:          # half space: inside where x_O > 0; nearest: x_O = 0
            dx, dy, dz = cx - p_GO[0], cy - p_GO[1], cz - p_GO[2]
            x = R_GO[0, 0] * dx + R_GO[1, 0] * dy + R_GO[2, 0] * dz
            if x <= 0.0:
                continue
            nearest_G[count, 0] = cx - x * R_GO[0, 0]
            nearest_G[count, 1] = cy - x * R_GO[1, 0]
            nearest_G[count, 2] = cz - x * R_GO[2, 0]
        else:                        # the ball about the nearest point of O's segment
            axis = (R_GO[0, 2], R_GO[1, 2], R_GO[2, 2])
            c, _ = _on_segment((p_GO[0], p_GO[1], p_GO[2]), axis, h, (cx, cy, cz))
            dx, dy, dz = cx - c[0], cy - c[1], cz - c[2]
            d = np.sqrt(dx * dx + dy * dy + dz * dz)
            if d >= r or d == 0.0:
                continue
            scale = r / d
            nearest_G[count, 0] = c[0] + dx * scale
            nearest_G[count, 1] = c[1] + dy * scale
            nearest_G[count, 2] = c[2] + dz * scale
        spring_G[count, 0], spring_G[count, 1], spring_G[count, 2] = cx, cy, cz
        faces[count] = f
        count += 1
    return count


@kernel
def mesh_springs(kind, size, R_GS, p_GS, pairs, rest, n_rest, face_start, centroid_S,
                 spring_surf, spring_face, spring_G, nearest_G):
    """The springs of every mesh-half space, mesh-sphere and mesh-capsule candidate among
    the first ``n_rest`` of ``rest``, which keeps the others (a sphere or a capsule on a
    hull met as a solid, ``size`` -1, among them); returns (candidates kept, springs
    written), the springs -1 if their buffers were too small."""
    count = 0
    kept = 0
    for r in range(n_rest):
        k = rest[r]
        a, b = pairs[k, 0], pairs[k, 1]
        if kind[b] != MESH or kind[a] > CAPSULE or (kind[a] > HALF_SPACE and size[b, 0] < 0.0):
            rest[kept] = k
            kept += 1
            continue
        f0, f1 = face_start[b], face_start[b + 1]
        if count + f1 - f0 > spring_face.shape[0]:
            return kept, -1
        found = springs_in_simple_surface(centroid_S[f0:f1], R_GS[b], p_GS[b], R_GS[a],
                                          p_GS[a], kind[a], size[a, 0], size[a, 1],
                                          spring_face[count:], spring_G[count:],
                                          nearest_G[count:])
        for j in range(count, count + found):
            spring_surf[j, 0], spring_surf[j, 1] = b, a
        count += found
    return kept, count


def _mesh_springs(table: SurfaceTable, work: ContactData, mesh: int, other: int):
    """The faces of ``mesh`` whose centroids are inside ``other`` (an ellipsoid or a mesh),
    or None."""
    geometry = table.geometries[mesh]
    R_GM, p_GM = work.R_GS[mesh], work.p_GS[mesh]
    R_GO, p_GO = work.R_GS[other], work.p_GS[other]
    centroids_G = geometry.face_centroids() @ R_GM.T + p_GM
    points_O = (centroids_G - p_GO) @ R_GO
    nearest_O, inside, _ = find_nearest_points(table.geometries[other], points_O)
    if not inside.any():
        return None
    faces = np.flatnonzero(inside)
    return MeshContact(mesh, other, faces, centroids_G[faces],
                       nearest_O[faces] @ R_GO.T + p_GO, geometry.face_areas()[faces])


@helper
def search_contacts(d, R_GB, p_GB):
    """The compiled contact search into ContactData ``d`` (module docstring, passes 1-3):
    header[_M] point contacts, header[_N_REST] candidates left for Python; header[_OVERFLOW]
    is 1 (and nothing else is valid) if a buffer was too small."""
    h = d.header
    h[_OVERFLOW] = 0
    h[_M] = h[_N_REST] = h[_N_SPRINGS] = 0
    if h[_N] == 0:
        return
    surface_poses(d.body, d.R_BS, d.p_BS, d.centre_S, R_GB, p_GB, d.R_GS, d.p_GS,
                  d.centre_G)
    n_pairs = broad_phase(d.kind, d.radius, d.centre_G, d.R_GS, d.p_GS, d.body, d.group,
                          d.clique, d.order, d.pairs)
    h[_N_PAIRS] = n_pairs
    if n_pairs > h[_CAP_PAIRS] or n_pairs > h[_CAP]:
        h[_OVERFLOW] = 1
        return
    m, n_rest = point_contacts(d.kind, d.radius, d.size, d.hull_start, d.hull_vertices,
                               d.hull_planes, d.hull_faces, d.R_GS, d.p_GS, d.pairs, n_pairs,
                               d.surf, d.normal, d.depth, d.origin, d.kmax, d.kmin, d.kdir,
                               d.rest)
    if m < 0:
        h[_OVERFLOW] = 1
        return
    h[_M] = m
    n_rest, n_springs = mesh_springs(d.kind, d.size, d.R_GS, d.p_GS, d.pairs, d.rest,
                                     n_rest, d.face_start, d.centroid_S, d.spring_surf,
                                     d.spring_face, d.spring_G, d.nearest_G)
    h[_N_REST] = n_rest
    if n_springs < 0:
        h[_OVERFLOW] = 1
        return
    h[_N_SPRINGS] = n_springs


@kernel
def search_point_contacts(contact_i, contact_f, R_GB, p_GB):
    """``search_contacts`` on the flat buffers."""
    search_contacts(unpack_contacts(contact_i, contact_f), R_GB, p_GB)


def section_curvatures(X_GH: Transform, X_GE: Transform, radii) -> tuple:
    """(k1, k2, k1's direction in G) that Simbody's GeneralContactSubsystem gives a half
    space H touching an ellipsoid E: the inverse semi-axes of the ellipsoid's central
    section parallel to the plane, not the surface's curvatures at the contact (the two
    agree only for a sphere). OpenSim's HuntCrossleyForce on a ContactEllipsoid takes its
    effective radius √(r1 r2) from them."""
    R_EH = X_GE.R.as_matrix().T @ X_GH.R.as_matrix()
    inverse_squares = 1.0 / np.asarray(radii, float) ** 2
    t1, t2 = R_EH[:, 1], R_EH[:, 2]           # the plane's y and z axes, in E
    Q = np.array([[t1 @ (inverse_squares * t1), t1 @ (inverse_squares * t2)],
                  [t1 @ (inverse_squares * t2), t2 @ (inverse_squares * t2)]])
    w, v = np.linalg.eigh(Q)
    direction = X_GE.R.as_matrix() @ (v[0, 1] * t1 + v[1, 1] * t2)
    return math.sqrt(w[1]), math.sqrt(w[0]), direction


def finish_search(table: SurfaceTable, d: ContactData, section_radii: bool = False) -> list:
    """The candidates the compiled pass left (ellipsoids, meshes): point contacts appended
    to ``d``, and the list of MeshContact returned. With ``section_radii`` a half space on
    an ellipsoid gets :func:`section_curvatures`, as Simbody's older contact API gives."""
    meshes = []
    m = int(d.header[_M])
    for k in d.rest[:int(d.header[_N_REST])]:
        a, b = d.pairs[k]
        if table.kind[b] == MESH and table.size[b, 0] != 0.0 and table.kind[a] == ELLIPSOID:
            normal, depth, origin, kmax, kmin, kdir = _ellipsoid_on_solid(table, d, a, b)
            if depth > 0.0:
                d.surf[m] = a, b
                d.normal[m], d.depth[m], d.origin[m] = normal, depth, origin
                d.kmax[m], d.kmin[m], d.kdir[m] = kmax, kmin, kdir
                m += 1
            continue
        if table.kind[b] == MESH:
            for mesh, other in ((b, a), (a, b)) if table.kind[a] == MESH else ((b, a),):
                springs = _mesh_springs(table, d, mesh, other)
                if springs is not None:
                    meshes.append(springs)
            continue
        c = _analytic_contact(table, d, a, b)
        if c.depth <= 0.0:
            continue
        d.surf[m] = a, b
        d.normal[m], d.depth[m], d.origin[m] = c.normal, c.depth, c.origin
        if section_radii and table.kind[a] == HALF_SPACE:
            d.kmax[m], d.kmin[m], d.kdir[m] = section_curvatures(
                _pose(d, a), _pose(d, b), table.geometries[b].get_radii())
        else:
            d.kmax[m], d.kmin[m], d.kdir[m] = _gap_curvatures(c)
        m += 1
    d.header[_M] = m
    return meshes
