"""The contacts of the bodies' convex surfaces at a State, compiled, for the
SemiExplicitEulerTimeStepper: one pass finds, for every pair of surfaces on different
bodies (and not in one contact clique), the points where they touch or are within a
margin of touching.

Broad phase: each finite surface's axis-aligned box in G (from its support points along
±x, ±y, ±z), grown by the margin; sorting the boxes by their low x and sweeping finds the
overlapping pairs. Half spaces, unbounded, meet every finite surface.

Narrow phase, by the pair's cores (``convex.py``):
- a half space and a sphere or an ellipsoid: the deepest point; a capsule: its two end
  spheres; a box or a hull: each corner; a cylinder: four points of each rim, starting at
  the rim's deepest, so that it stands on its end, lies on its side or tips on its rim;
- two boxes: the contact patch of ``box_manifold``; a hull and a box or another hull,
  where they touch face to face (or a face on an edge or a corner), and a cylinder on a
  box's or a hull's face, the patch of ``polytope_manifold``;
- any other pair: the closest (or deepest) points of the shapes; a capsule against it
  adds its two end spheres', so that it lies along a face.

Each contact, in G: its two bodies A and B, the point midway between the surfaces' points,
the unit normal from A toward B with two tangents (the rows' directions), the separation
(m, < 0 in penetration), the friction of the two materials combined (a harmonic mean, as
compliant contact combines them), and a key that names the same contact at the next step
(the pair and the feature: a corner, an end, a patch point) for a warm start.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from kinetree.contact import box_manifold as bm
from kinetree.contact import polytope_manifold as pm
from kinetree.contact.convex import (
    BOX,
    CYLINDER,
    HALF_SPACE,
    HULL,
    POINT,
    SEGMENT,
    core_of,
    pair_kernel,
    support_G,
)
from kinetree.contact.friction import combined_mu
from kinetree.contact.geometry import HalfSpace
from kinetree.multibody.kernels.small import (
    add3,
    column3,
    dot3,
    rotate3,
    scale3,
    sub3,
    tangent_basis,
)

FEATURES = 1 << 16
"""A contact's key is its pair's number times this, plus its feature's."""


class ShapeContactSet(NamedTuple):
    """The contacts found at a State, one row each (module docstring): ``body_a``,
    ``body_b`` (n,) mobilized body indices; ``point`` (n, 3) m in G; ``frame`` (n, 3, 3)
    the normal and the two tangents as rows, in G; ``separation`` (n,) m; ``friction``
    (n, 3) μs, μd, μv; ``key`` (n,) int64."""

    body_a: np.ndarray
    body_b: np.ndarray
    point: np.ndarray
    frame: np.ndarray
    separation: np.ndarray
    friction: np.ndarray
    key: np.ndarray


@numba.njit(cache=True, _nrt=False)
def _emit(out_i, out_f, k, a, b, xa, xb, n, separation, mu_a, mu_b, key):
    """Write contact k (if within capacity) between shapes a and b: points xa, xb of their
    surfaces, normal n from a toward b (3-tuples, G)."""
    if k >= out_i.shape[0]:
        return k + 1
    out_i[k, 0], out_i[k, 1], out_i[k, 2] = a, b, key
    t1, t2 = tangent_basis(n)
    for i in range(3):
        out_f[k, i] = 0.5 * (xa[i] + xb[i])
        out_f[k, 3 + i] = n[i]
        out_f[k, 6 + i] = t1[i]
        out_f[k, 9 + i] = t2[i]
        out_f[k, 13 + i] = combined_mu(mu_a[i], mu_b[i])
    out_f[k, 12] = separation
    return k + 1


@numba.njit(cache=True, _nrt=False)
def _plane_contacts(a, b, kind, dims, margin_b, verts, R, p, n, o, limit, mu, key, out_i,
                    out_f, k):
    """Contacts of half space a (outward unit normal n through point o, G) with shape b
    (core ``kind`` posed at (R, p)): its deepest points within ``limit`` (m)."""
    if kind == POINT or kind == SEGMENT:
        ends = 1 if kind == POINT else 2
        for e in range(ends):
            c = (p[0], p[1], p[2])
            if kind == SEGMENT:
                c = add3(c, scale3(dims[0] * (1.0 if e == 0 else -1.0), column3(R, 2)))
            x = sub3(c, scale3(margin_b, n))
            gap = dot3(n, sub3(x, o))
            if gap <= limit:
                k = _emit(out_i, out_f, k, a, b, sub3(x, scale3(gap, n)), x, n, gap,
                          mu[a], mu[b], key + e)
        return k
    if kind == BOX or kind == HULL:
        count = 8 if kind == BOX else verts.shape[0]
        for e in range(count):
            if kind == BOX:
                v = ((1.0 if e & 1 else -1.0) * dims[0], (1.0 if e & 2 else -1.0) * dims[1],
                     (1.0 if e & 4 else -1.0) * dims[2])
            else:
                v = (verts[e, 0], verts[e, 1], verts[e, 2])
            x = add3(rotate3(R, v), (p[0], p[1], p[2]))
            gap = dot3(n, sub3(x, o))
            if gap <= limit:
                k = _emit(out_i, out_f, k, a, b, sub3(x, scale3(gap, n)), x, n, gap,
                          mu[a], mu[b], key + e)
        return k
    if kind == CYLINDER:
        for cap in range(2):
            for e in range(4):
                x = pm.rim_point(R, p, dims, n, cap, e)
                gap = dot3(n, sub3(x, o))
                if gap <= limit:
                    k = _emit(out_i, out_f, k, a, b, sub3(x, scale3(gap, n)), x, n, gap,
                              mu[a], mu[b], key + 4 * cap + e)
        return k
    return k


@numba.njit(cache=True, _nrt=False)
def _plane_contacts_of(a, b, kind, dims, margin, vert_start, verts, R, p, n, o, limit, mu,
                       key, out_i, out_f, k):
    """``_plane_contacts`` of half space a and shape b, taken from the pass's arrays
    here, where views cost no reference counting."""
    return _plane_contacts(a, b, kind[b], dims[b], margin[b],
                           verts[vert_start[b]:vert_start[b + 1]], R[b], p[b], n, o, limit,
                           mu, key, out_i, out_f, k)


@numba.njit(cache=True, _nrt=False)
def _poses_and_bounds(R_GB, p_GB, body, R_BS, p_BS, kind, dims, margin, vert_start, verts,
                      limit, R, p, lo, hi):
    """Each shape's pose in G (R, p) and each finite core's axis-aligned bounding box in
    G (lo, hi), grown by its margin and ``limit`` (m)."""
    for s in range(body.shape[0]):
        b = body[s]
        for i in range(3):
            for j in range(3):
                R[s, i, j] = R_GB[b, i, 0] * R_BS[s, 0, j] + R_GB[b, i, 1] * R_BS[s, 1, j] \
                    + R_GB[b, i, 2] * R_BS[s, 2, j]
            p[s, i] = p_GB[b, i] + R_GB[b, i, 0] * p_BS[s, 0] + R_GB[b, i, 1] * p_BS[s, 1] \
                + R_GB[b, i, 2] * p_BS[s, 2]
        if kind[s] == HALF_SPACE:
            continue
        vertices = verts[vert_start[s]:vert_start[s + 1]]
        grow = margin[s] + limit
        for i in range(3):
            e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
            hi[s, i] = support_G(kind[s], dims[s], vertices, R[s], p[s], e)[i] + grow
            lo[s, i] = support_G(kind[s], dims[s], vertices, R[s], p[s],
                                 scale3(-1.0, e))[i] - grow


@numba.njit(cache=True, _nrt=False)
def _box_patch(R, p, dims, a, b, margin, out, work):
    """``box_manifold.manifold`` of boxes a and b, called, not inlined."""
    return bm.manifold(R[a], p[a], dims[a], R[b], p[b], dims[b], margin, out, work)


@numba.njit(cache=True, _nrt=False)
def _polytope_patch(a, b, kind, dims, vert_start, verts, poly_start, poly_vstart, poly_verts,
                    poly_normal, R, p, margin, result, out, work):
    """The patch of ``polytope_manifold`` of shapes a and b at the normal of their pair
    query ``result`` (a cylinder on a face, or two boxes or hulls), called, not
    inlined."""
    normal = (result[7], result[8], result[9])
    if kind[a] == CYLINDER or kind[b] == CYLINDER:
        return pm.cylinder_on_face(a, b, kind, dims, vert_start, verts, poly_start,
                                   poly_vstart, poly_verts, poly_normal, R, p, margin,
                                   normal, out, work)
    return pm.manifold(a, b, kind, dims, vert_start, verts, poly_start, poly_vstart,
                       poly_verts, poly_normal, R, p, margin, normal, out, work)


@numba.njit(cache=True, _nrt=False)
def _emit_patch(patch, count, a, b, mu, key, out_i, out_f, k):
    """Write the ``count`` rows of a patch (``box_manifold``'s columns) as contacts."""
    for m in range(count):
        q = (patch[m, bm.POINT], patch[m, bm.POINT + 1], patch[m, bm.POINT + 2])
        under = (patch[m, bm.BENEATH], patch[m, bm.BENEATH + 1], patch[m, bm.BENEATH + 2])
        nn = (patch[m, bm.NORMAL], patch[m, bm.NORMAL + 1], patch[m, bm.NORMAL + 2])
        feature = int(patch[m, bm.FEATURE])
        if patch[m, bm.ON_A] > 0.5:
            k = _emit(out_i, out_f, k, a, b, under, q, nn, patch[m, bm.GAP], mu[a], mu[b],
                      key + feature)
        else:
            k = _emit(out_i, out_f, k, a, b, q, under, scale3(-1.0, nn), patch[m, bm.GAP],
                      mu[a], mu[b], key + feature)
    return k


@numba.njit(cache=True)
def _pair(a, b, ka, da, ma, va, fa, ea, Ra, pa, kb, db, mb, vb, fb, eb, Rb, pb, limit, mu,
          key, out_i, out_f, k, result):
    """The closest (or deepest) points of shapes a and b (``convex.pair_kernel``, called,
    not inlined: the pair query is compiled once) as a contact if within ``limit``."""
    pair_kernel(ka, da, ma, va, fa, ea, Ra, pa, kb, db, mb, vb, fb, eb, Rb, pb, result)
    if result[0] > limit:
        return k
    return _emit(out_i, out_f, k, a, b, (result[1], result[2], result[3]),
                 (result[4], result[5], result[6]), (result[7], result[8], result[9]),
                 result[0], mu[a], mu[b], key)


class Scratch(NamedTuple):
    """The pass's working arrays, kept from call to call: the shapes' poses ``R`` (ns, 3,
    3), ``p`` (ns, 3) and bounds ``lo``, ``hi`` (ns, 3) in G; ``order`` (ns,) the shapes
    by their low x, last call's order as the next's start; ``result`` (10,) a pair
    query's, ``ends`` (3,) a capsule end's centre; ``point_kind`` (1,) the core kind of a
    sphere (read from an array: as a literal constant it would compile the pair query
    once more, for that constant); ``work``, ``patch`` a box's or a hull's patch's."""

    R: np.ndarray
    p: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    order: np.ndarray
    result: np.ndarray
    ends: np.ndarray
    point_kind: np.ndarray
    work: np.ndarray
    patch: np.ndarray

    @classmethod
    def allocate(cls, ns: int) -> Scratch:
        return cls(np.zeros((ns, 3, 3)), np.zeros((ns, 3)), np.zeros((ns, 3)),
                   np.zeros((ns, 3)), np.arange(ns, dtype=np.int64), np.zeros(10),
                   np.zeros(3), np.full(1, POINT, np.int64),
                   np.zeros((3, pm.MAX_POINTS, bm.WORK_COLUMNS)),
                   np.zeros((pm.MAX_POINTS, bm.COLUMNS)))


@numba.njit(cache=True, _nrt=False)
def _sort_by_low_x(order, lo):
    """Insertion sort of ``order`` by lo[:, 0], from its last order: nearly linear when
    little moved."""
    for i in range(1, order.shape[0]):
        s = order[i]
        j = i - 1
        while j >= 0 and lo[order[j], 0] > lo[s, 0]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = s


@numba.njit(cache=True)
def find(R_GB, p_GB, body, R_BS, p_BS, kind, dims, margin, vert_start, verts, face_start,
         faces, edge_start, edges, poly_start, poly_vstart, poly_verts, poly_normal, mu,
         allowed, limit, out_i, out_f, R, p, lo, hi, order, result, ends, point_kind, work,
         patch):
    """The contacts (module docstring) into out_i (capacity, 3: shape a, shape b, key) and
    out_f (capacity, 16: point, normal, tangents, separation, friction); returns their
    number, which may exceed the capacity (then only the first are written). It
    allocates nothing (R ... patch are a Scratch's arrays, passed one by one: numba types
    a tuple in Python at each call); its loops over shapes and its patches run in functions
    without reference counting, where taking a view of an array costs nothing."""
    ns = body.shape[0]
    _poses_and_bounds(R_GB, p_GB, body, R_BS, p_BS, kind, dims, margin, vert_start, verts,
                      limit, R, p, lo, hi)
    k = 0
    point = point_kind[0]
    # half spaces against every finite shape
    for a in range(ns):
        if kind[a] != HALF_SPACE:
            continue
        n = scale3(-1.0, column3(R[a], 0))
        o = (p[a, 0], p[a, 1], p[a, 2])
        for b in range(ns):
            if kind[b] == HALF_SPACE or not allowed[a, b]:
                continue
            key = (a * ns + b) * FEATURES
            if kind[b] == POINT or kind[b] == SEGMENT or kind[b] == BOX or kind[b] == HULL \
                    or kind[b] == CYLINDER:
                k = _plane_contacts_of(a, b, kind, dims, margin, vert_start, verts, R, p, n,
                                       o, limit, mu, key, out_i, out_f, k)
            else:
                vs = verts[vert_start[b]:vert_start[b + 1]]
                fb = faces[face_start[b]:face_start[b + 1]]
                eb = edges[edge_start[b]:edge_start[b + 1]]
                k = _pair(a, b, kind[a], dims[a], 0.0, vs, fb, eb, R[a], p[a], kind[b],
                          dims[b], margin[b], vs, fb, eb, R[b], p[b], limit, mu, key, out_i,
                          out_f, k, result)
    # finite shapes: sweep along x, then the narrow phase
    _sort_by_low_x(order, lo)
    for i in range(ns):
        a0 = order[i]
        if kind[a0] == HALF_SPACE:
            continue
        for j in range(i + 1, ns):
            b0 = order[j]
            if lo[b0, 0] > hi[a0, 0]:
                break
            if kind[b0] == HALF_SPACE or lo[b0, 1] > hi[a0, 1] or lo[a0, 1] > hi[b0, 1] \
                    or lo[b0, 2] > hi[a0, 2] or lo[a0, 2] > hi[b0, 2] \
                    or not allowed[a0, b0]:
                continue
            a, b = min(a0, b0), max(a0, b0)
            key = (a * ns + b) * FEATURES
            if kind[a] == BOX and kind[b] == BOX:
                count = _box_patch(R, p, dims, a, b, limit, patch, work)
                k = _emit_patch(patch, count, a, b, mu, key, out_i, out_f, k)
                continue
            va, vb = verts[vert_start[a]:vert_start[a + 1]], verts[vert_start[b]:vert_start[b + 1]]
            fa, fb = faces[face_start[a]:face_start[a + 1]], faces[face_start[b]:face_start[b + 1]]
            ea, eb = edges[edge_start[a]:edge_start[a + 1]], edges[edge_start[b]:edge_start[b + 1]]
            solid_a = kind[a] == BOX or kind[a] == HULL
            solid_b = kind[b] == BOX or kind[b] == HULL
            if (solid_a and solid_b and (kind[a] == HULL or kind[b] == HULL)) \
                    or (solid_a and kind[b] == CYLINDER) or (solid_b and kind[a] == CYLINDER):
                pair_kernel(kind[a], dims[a], margin[a], va, fa, ea, R[a], p[a], kind[b],
                            dims[b], margin[b], vb, fb, eb, R[b], p[b], result)
                if result[0] > limit:
                    continue
                count = _polytope_patch(a, b, kind, dims, vert_start, verts, poly_start,
                                        poly_vstart, poly_verts, poly_normal, R, p, limit,
                                        result, patch, work)
                if count >= 0:
                    k = _emit_patch(patch, count, a, b, mu, key, out_i, out_f, k)
                else:
                    k = _emit(out_i, out_f, k, a, b, (result[1], result[2], result[3]),
                              (result[4], result[5], result[6]),
                              (result[7], result[8], result[9]), result[0], mu[a], mu[b],
                              key)
                continue
            k = _pair(a, b, kind[a], dims[a], margin[a], va, fa, ea, R[a], p[a], kind[b],
                      dims[b], margin[b], vb, fb, eb, R[b], p[b], limit, mu, key, out_i, out_f,
                      k, result)
            # a capsule's end spheres, so that it lies along the other's face
            for side in range(2):
                s, other = (a, b) if side == 0 else (b, a)
                if kind[s] != SEGMENT or kind[other] == POINT or kind[other] == SEGMENT:
                    continue
                for e in range(2):
                    c = add3((p[s, 0], p[s, 1], p[s, 2]),
                             scale3(dims[s, 0] * (1.0 if e == 0 else -1.0), column3(R[s], 2)))
                    ends[0], ends[1], ends[2] = c
                    if side == 0:
                        k = _pair(a, b, point, dims[s], margin[s], va, fa, ea, R[s], ends,
                                  kind[b], dims[b], margin[b], vb, fb, eb, R[b], p[b], limit,
                                  mu, key + 1 + e, out_i, out_f, k, result)
                    else:
                        k = _pair(a, b, kind[a], dims[a], margin[a], va, fa, ea, R[a], p[a],
                                  point, dims[s], margin[s], vb, fb, eb, R[s], ends, limit,
                                  mu, key + 1 + e, out_i, out_f, k, result)
    return k


class ShapeContacts:
    """The contact surfaces of a matter subsystem's bodies as the compiled pass sees them
    (``generate_unilateral_contacts`` makes it): ``find(state, margin)`` gives the
    contacts within ``margin`` (m) of touching, a ShapeContactSet."""

    def __init__(self, matter, surfaces, min_cor: float):
        """``surfaces``: (mobilized body, X_BS, ContactSurface) of each convex surface."""
        self.min_cor = float(min_cor)
        self._matter = matter
        ns = len(surfaces)
        self.body = np.array([m.get_mobilized_body_index() for m, _, _ in surfaces],
                             np.int64)
        self.R_BS = np.array([X.R.as_matrix() for _, X, _ in surfaces]).reshape(ns, 3, 3)
        self.p_BS = np.array([X.p for _, X, _ in surfaces], dtype=float).reshape(ns, 3)
        cores = [core_of(s.get_shape()) for _, _, s in surfaces]
        self.kind = np.array([c[0] for c in cores], np.int64)
        self.dims = np.array([c[1] for c in cores], dtype=float).reshape(ns, 3)
        self.margin = np.array([c[2] for c in cores], dtype=float)

        def packed(arrays, width, dtype):
            starts = np.concatenate(([0], np.cumsum([len(x) for x in arrays]))).astype(
                np.int64)
            return starts, np.concatenate(
                [np.asarray(x, dtype).reshape(-1, width) for x in arrays]
                + [np.zeros((0, width), dtype)])

        self.vert_start, self.verts = packed([c[3] for c in cores], 3, float)
        self.face_start, self.faces = packed([c[4] for c in cores], 3, np.int64)
        self.edge_start, self.edges = packed([c[5] for c in cores], 2, np.int64)
        # a hull's faces as polygons: poly_start per shape into the polygons, poly_vstart
        # per polygon into poly_verts (vertex numbers of its shape), poly_normal (S)
        polygons = [s.get_shape().get_polygons() if k == HULL else []
                    for (_, _, s), k in zip(surfaces, self.kind)]
        self.poly_start = np.concatenate(([0], np.cumsum([len(x) for x in polygons]))
                                         ).astype(np.int64)
        flat = [poly for shape in polygons for poly in shape]
        self.poly_vstart = np.concatenate(([0], np.cumsum([len(x) for x in flat]))
                                          ).astype(np.int64)
        self.poly_verts = np.concatenate([np.asarray(x, np.int64) for x in flat]
                                         + [np.zeros(0, np.int64)])
        self.poly_normal = np.zeros((len(flat), 3))
        at = 0
        for (_, _, s), shape in zip(surfaces, polygons):
            for poly in shape:
                v = s.get_shape().get_vertices()[poly]
                n = np.sum(np.cross(v, np.roll(v, -1, axis=0)), axis=0)
                self.poly_normal[at] = n / np.linalg.norm(n)
                at += 1
        self.mu = np.array([[m.get_static_friction(), m.get_dynamic_friction(),
                             m.get_viscous_friction()] for m in
                            (s.get_material() for _, _, s in surfaces)],
                           dtype=float).reshape(ns, 3)
        self.allowed = np.zeros((ns, ns), bool)
        for i in range(ns):
            for j in range(i + 1, ns):
                si, sj = surfaces[i][2], surfaces[j][2]
                ok = self.body[i] != self.body[j] and not si.is_in_same_clique(sj) \
                    and not (isinstance(si.get_shape(), HalfSpace)
                             and isinstance(sj.get_shape(), HalfSpace))
                self.allowed[i, j] = self.allowed[j, i] = ok
        self.surfaces = [s for _, _, s in surfaces]
        self._out_i = np.empty((64, 3), np.int64)
        self._out_f = np.empty((64, 16))
        self._scratch = Scratch.allocate(ns)

    def find(self, state, margin: float) -> ShapeContactSet:
        """The contacts within ``margin`` (m) of touching at ``state`` (POSITION), arrays
        of their own (the next call does not change them)."""
        from kinetree.multibody.unilateral.unilateral_contact import body_poses

        R_GB, p_GB = body_poses(self._matter, state, "ShapeContacts.find")
        return ShapeContactSet(*(x.copy() for x in self._find(R_GB, p_GB, margin)))

    def _find(self, R_GB, p_GB, margin: float) -> ShapeContactSet:
        """``find`` for the stepper: some of its arrays are views of the pass's buffers,
        good until the next call."""
        while True:
            count = find(R_GB, p_GB, self.body, self.R_BS, self.p_BS, self.kind, self.dims,
                         self.margin, self.vert_start, self.verts, self.face_start,
                         self.faces, self.edge_start, self.edges, self.poly_start,
                         self.poly_vstart, self.poly_verts, self.poly_normal, self.mu,
                         self.allowed,
                         float(margin), self._out_i, self._out_f, *self._scratch)
            if count <= len(self._out_i):
                break
            self._out_i = np.empty((2 * count, 3), np.int64)
            self._out_f = np.empty((2 * count, 16))
        i, f = self._out_i[:count], self._out_f[:count]
        return ShapeContactSet(self.body[i[:, 0]], self.body[i[:, 1]], f[:, 0:3],
                               f[:, 3:12].reshape(count, 3, 3), f[:, 12], f[:, 13:16],
                               i[:, 2].copy())

