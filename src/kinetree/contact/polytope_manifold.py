"""The contact patch of a convex hull on a box or on another hull, compiled, for rigid
contact: a hull standing on a box rests on the corners of its face, not on the one
deepest point, which would rock it from step to step.

The pair's closest (or deepest) points come first (``convex.pair_kernel``). Where the
normal there is a face's normal (a face of A's, of B's, or both), that face is the
reference face and the other shape's face most opposed to it the incident face: as for
two boxes (``box_manifold``), the incident face is clipped against the reference face's
sides, and its corners below the reference plane, or within the margin above it, are
the contact points, four of them kept (``box_manifold._reduce``). An edge on an edge
gives a normal across both: one point, where the edges pass nearest each other.

A cylinder on a box's or a hull's face (standing, lying on its side, or tipped on its
rim) touches at the points of its rims a half space would meet (``rim_point``: four on
each, from the rim's point deepest toward the face) that lie over the face: the face's
side planes keep them. A face lying on a cap touches it also at its corners over the
cap's disk, so that a box smaller than the cap, or reaching past its rim, rests on
them.

A box's faces are its six rectangles; a hull's are its polygons (``Convex.get_polygons``:
its coplanar triangles merged). Each point is named by the two edges meeting there, an
incident face's edge (numbered from 0) or a reference face's side (from SIDES), and the
two faces, so that a resting patch keeps its names from step to step (the warm start
finds each contact's impulse by its name).
"""

from __future__ import annotations

import math

from kinetree.contact import box_manifold as bm
from kinetree.contact.convex import BOX, CYLINDER
from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, column3, cross3, dot3, scale3, sub3

MAX_CORNERS = 32
"""A face of more corners is not clipped: the pair keeps its one deepest point."""
SIDES = 32
"""The reference face's sides are numbered from SIDES, the incident face's edges from 0."""
MAX_POINTS = 2 * MAX_CORNERS
"""A polygon of n corners clipped by one of m sides keeps at most n + m corners."""
FACE_COSINE = 1.0 - 1e-6
"""The pair's normal is a face's where it is within about 1.4e-3 rad of it."""
FACE_NAMES = 15
"""The two faces of a patch name it by one of 1..FACE_NAMES, times 4096 (64 × 64 edge
numbers): a feature below the 65536 of a contact key."""


@helper
def _face_toward(kind, poly_start, poly_normal, s, R, direction):
    """(the face of shape s (a box, or a hull's polygons from poly_start[s], their
    outward normals poly_normal in S) whose outward normal is most along ``direction``
    (G), that cosine)."""
    best, most = 0, -2.0
    if kind == BOX:
        for f in range(6):
            axis, sign = f // 2, 1.0 if f % 2 else -1.0
            c = sign * dot3(column3(R, axis), direction)
            if c > most:
                best, most = f, c
        return best, most
    # the direction in S, once, against each face's normal in S
    d_S = (R[0, 0] * direction[0] + R[1, 0] * direction[1] + R[2, 0] * direction[2],
           R[0, 1] * direction[0] + R[1, 1] * direction[1] + R[2, 1] * direction[2],
           R[0, 2] * direction[0] + R[1, 2] * direction[1] + R[2, 2] * direction[2])
    for f in range(poly_start[s], poly_start[s + 1]):
        c = poly_normal[f, 0] * d_S[0] + poly_normal[f, 1] * d_S[1] + poly_normal[f, 2] * d_S[2]
        if c > most:
            best, most = f - poly_start[s], c
    return best, most


@helper
def _write_face(kind, half, verts, vert_start, poly_start, poly_vstart, poly_verts, s, R, p,
                face, out):
    """Write face ``face`` of shape s into out (its corners in G, counter-clockwise seen
    from outside, corner k with edges k - 1 and k); returns its corner count, 0 for a
    face of more than MAX_CORNERS."""
    if kind == BOX:
        axis, sign = face // 2, 1.0 if face % 2 else -1.0
        bm._face(R, (p[0], p[1], p[2]), half, axis, sign, out)
        return 4
    f = poly_start[s] + face
    first, count = poly_vstart[f], poly_vstart[f + 1] - poly_vstart[f]
    if count > MAX_CORNERS:
        return 0
    for k in range(count):
        bm._corner(out, k, _vertex(kind, half, verts, vert_start, s, R, p,
                                   poly_verts[first + k]),
                   (k + count - 1) % count, k)
    return count


@helper
def _vertex(kind, half, verts, vert_start, s, R, p, k):
    """Corner k of shape s (a box's eight by the signs of k's bits, or a hull's
    vertices), in G."""
    if kind == BOX:
        x = ((1.0 if k & 1 else -1.0) * half[0], (1.0 if k & 2 else -1.0) * half[1],
             (1.0 if k & 4 else -1.0) * half[2])
    else:
        v = vert_start[s] + k
        x = (verts[v, 0], verts[v, 1], verts[v, 2])
    return (R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2] + p[0],
            R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2] + p[1],
            R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2] + p[2])


@helper
def _support_edge(kind, half, verts, vert_start, s, R, p, direction):
    """(the two corners of shape s farthest along ``direction`` (G) where exactly two
    are, within 1e-9 of its size; whether they are)."""
    count = 8 if kind == BOX else vert_start[s + 1] - vert_start[s]
    most, size = -math.inf, 0.0
    for k in range(count):
        x = _vertex(kind, half, verts, vert_start, s, R, p, k)
        most = max(most, dot3(x, direction))
        size = max(size, abs(dot3(sub3(x, (p[0], p[1], p[2])), direction)))
    first, second, found = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0
    for k in range(count):
        x = _vertex(kind, half, verts, vert_start, s, R, p, k)
        if dot3(x, direction) >= most - 1e-9 * size:
            if found == 0:
                first = x
            else:
                second = x
            found += 1
    return first, second, found == 2


@helper
def _edge_on_edge(a, b, kind, dims, vert_start, verts, R, p, normal, out):
    """Where the normal is no face's: if each shape meets the other along one edge, the
    edges' nearest points as one row (the pair query's witness points may lie anywhere
    along the edges); else -1 (a corner's point, the pair query's, stands)."""
    a0, a1, on_a = _support_edge(kind[a], dims[a], verts, vert_start, a, R[a], p[a], normal)
    b0, b1, on_b = _support_edge(kind[b], dims[b], verts, vert_start, b, R[b], p[b],
                                 scale3(-1.0, normal))
    if not (on_a and on_b):
        return -1
    qa, qb = bm._segments(a0, sub3(a1, a0), b0, sub3(b1, b0))
    bm._write(out, 0, True, qb, qa, normal, dot3(normal, sub3(qb, qa)), 0)
    return 1


@helper
def _corner_of(work, face, k):
    return (work[face, k, 0], work[face, k, 1], work[face, k, 2])


@helper
def _face_normal(work, corners):
    """The outward unit normal of the face in work[2] (``corners`` corners,
    counter-clockwise seen from outside), by Newell's sum: corners on a line do not
    upset it."""
    n = (0.0, 0.0, 0.0)
    for k in range(corners):
        n = add3(n, cross3(_corner_of(work, 2, k), _corner_of(work, 2, (k + 1) % corners)))
    return scale3(1.0 / math.sqrt(dot3(n, n)), n)


@helper
def manifold(a, b, kind, dims, vert_start, verts, poly_start, poly_vstart, poly_verts,
             poly_normal, R, p, margin, normal, out, work):
    """The patch of shapes a and b (boxes or hulls, posed R[s], p[s] in G) whose pair
    query found the unit ``normal`` (G, from a toward b), into the rows of out (columns of
    ``box_manifold``: ON_A ... FEATURE); returns their number, or -1 where the normal is
    no face's or a face has more than MAX_CORNERS corners (the pair's point stands).
    ``work`` is 3 x MAX_POINTS x box_manifold.WORK_COLUMNS of scratch."""
    fa, ca = _face_toward(kind[a], poly_start, poly_normal, a, R[a], normal)
    fb, cb = _face_toward(kind[b], poly_start, poly_normal, b, R[b], scale3(-1.0, normal))
    if max(ca, cb) < FACE_COSINE:
        return _edge_on_edge(a, b, kind, dims, vert_start, verts, R, p, normal, out)
    # A's face unless B's is clearly nearer the normal: a face resting on a face ties
    on_a = ca >= cb - 1e-9
    ref, inc, ref_face = (a, b, fa) if on_a else (b, a, fb)
    n_ref = _write_face(kind[ref], dims[ref], verts, vert_start, poly_start, poly_vstart,
                        poly_verts, ref, R[ref], p[ref], ref_face, work[2])
    if n_ref == 0:
        return -1
    ref_n = _face_normal(work, n_ref)
    v0, v1 = _corner_of(work, 2, 0), _corner_of(work, 2, 1)
    inc_face, _ = _face_toward(kind[inc], poly_start, poly_normal, inc, R[inc],
                               scale3(-1.0, ref_n))
    count = _write_face(kind[inc], dims[inc], verts, vert_start, poly_start, poly_vstart,
                        poly_verts, inc, R[inc], p[inc], inc_face, work[0])
    if count == 0:
        return -1
    # the reference face's extent, for the clipping slack
    centre = (0.0, 0.0, 0.0)
    for k in range(n_ref):
        centre = add3(centre, scale3(1.0 / n_ref, _corner_of(work, 2, k)))
    extent = 0.0
    for k in range(n_ref):
        d = sub3(_corner_of(work, 2, k), centre)
        extent = max(extent, math.sqrt(dot3(d, d)))
    src = 0
    for k in range(n_ref):
        x, y = _corner_of(work, 2, k), _corner_of(work, 2, (k + 1) % n_ref)
        side = cross3(sub3(y, x), ref_n)
        side = scale3(1.0 / math.sqrt(dot3(side, side)), side)
        count = bm._clip(work[src], count, work[1 - src], side, dot3(side, x), SIDES + k,
                         bm.CLIP_SLACK * extent)
        src = 1 - src
        if count == 0:
            return 0
    base = 4096 * (1 + (7 * ref_face + 3 * inc_face + (1 if on_a else 0)) % FACE_NAMES)
    found = 0
    for k in range(count):
        q = _corner_of(work, src, k)
        gap = dot3(ref_n, sub3(q, v0))
        if gap <= margin:
            e1, e2 = int(work[src, k, bm.EDGE_IN]), int(work[src, k, bm.EDGE_OUT])
            bm._write(out, found, on_a, q, sub3(q, scale3(gap, ref_n)), ref_n, gap,
                      base + 64 * min(e1, e2) + max(e1, e2))
            found += 1
    u = sub3(v1, v0)
    u = scale3(1.0 / math.sqrt(dot3(u, u)), u)
    first = add3(scale3(bm.FIRST_DIRECTION[0], u),
                 scale3(bm.FIRST_DIRECTION[1], cross3(ref_n, u)))
    return bm._reduce(out, found, ref_n, first)


@helper
def rim_point(R, p, dims, n, cap, e):
    """Point e (0-3) of rim ``cap`` (0 at +z, 1 at -z) of a cylinder (radius dims[0], half
    length dims[1] along its z, posed R, p in G) facing a plane of outward unit normal n
    (G): the rim's point deepest into the plane, then a quarter turn at a time (a rim
    square to n starts at the cylinder's x)."""
    axis = column3(R, 2)
    down = sub3(scale3(-1.0, n), scale3(-dot3(n, axis), axis))
    size = math.sqrt(dot3(down, down))
    down = scale3(1.0 / size, down) if size > 1e-12 else column3(R, 0)
    side = cross3(axis, down)
    c = add3((p[0], p[1], p[2]), scale3(dims[1] * (1.0 if cap == 0 else -1.0), axis))
    ce, se = (1.0, 0.0, -1.0, 0.0)[e], (0.0, 1.0, 0.0, -1.0)[e]
    return add3(c, add3(scale3(dims[0] * ce, down), scale3(dims[0] * se, side)))


@helper
def cylinder_on_face(a, b, kind, dims, vert_start, verts, poly_start, poly_vstart,
                     poly_verts, poly_normal, R, p, margin, normal, out, work):
    """The patch of a cylinder and a box or a hull (a and b, either way round) whose pair
    query found the unit ``normal`` (G, from a toward b): where that is the normal of a
    face of the box or hull, the cylinder's rim points (``rim_point``) within ``margin``
    of that face and over it (the face the reference), and where the face lies on a cap,
    the face's corners within ``margin`` of the cap and over its disk (the cap the
    reference), in the rows of out (``box_manifold``'s columns), four of them kept; -1
    where the normal is no face's, or no point is found (the pair's point stands).
    ``work`` as ``manifold``'s."""
    cyl, q = (a, b) if kind[a] == CYLINDER else (b, a)
    toward_cyl = normal if q == a else scale3(-1.0, normal)
    face, cosine = _face_toward(kind[q], poly_start, poly_normal, q, R[q], toward_cyl)
    if cosine < FACE_COSINE:
        return -1
    corners = _write_face(kind[q], dims[q], verts, vert_start, poly_start, poly_vstart,
                          poly_verts, q, R[q], p[q], face, work[2])
    if corners == 0:
        return -1
    n_f = _face_normal(work, corners)
    v0 = _corner_of(work, 2, 0)
    slack = bm.CLIP_SLACK * dims[cyl, 0]
    base = 4096 * (1 + face % FACE_NAMES)
    found = 0
    for cap in range(2):
        for e in range(4):
            x = rim_point(R[cyl], p[cyl], dims[cyl], n_f, cap, e)
            gap = dot3(n_f, sub3(x, v0))
            if gap > margin:
                continue
            over = True
            for k in range(corners):
                u, w = _corner_of(work, 2, k), _corner_of(work, 2, (k + 1) % corners)
                side = cross3(sub3(w, u), n_f)
                if dot3(side, sub3(x, u)) > slack * math.sqrt(dot3(side, side)):
                    over = False
            if over:
                bm._write(out, found, q == a, x, sub3(x, scale3(gap, n_f)), n_f, gap,
                          base + 4 * cap + e)
                found += 1
    axis = column3(R[cyl], 2)
    along = dot3(axis, n_f)
    if abs(along) >= FACE_COSINE:
        # The face lies on a cap (0 at +z, facing a face whose normal is along -z): a
        # face smaller than the cap, or reaching past its rim, rests on its corners too.
        n_cap = axis if along < 0.0 else scale3(-1.0, axis)
        centre = add3((p[cyl, 0], p[cyl, 1], p[cyl, 2]), scale3(dims[cyl, 1], n_cap))
        reach = dims[cyl, 0] + slack
        for k in range(corners):
            x = _corner_of(work, 2, k)
            d = sub3(x, centre)
            gap = dot3(n_cap, d)
            radial = sub3(d, scale3(dot3(d, axis), axis))
            if gap <= margin and dot3(radial, radial) <= reach * reach:
                bm._write(out, found, cyl == a, x, sub3(x, scale3(gap, n_cap)), n_cap, gap,
                          base + 8 + k)
                found += 1
    if found == 0:
        return -1
    u = column3(R[cyl], 0)
    return bm._reduce(out, found, n_f, sub3(u, scale3(dot3(u, n_f), n_f)))
