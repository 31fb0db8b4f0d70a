"""The distance and the penetration of pairs of convex shapes, compiled: GJK on support
functions, and the separating-axis test for overlapping polytopes.

Each shape is its *core* swept by a sphere of radius *margin*: a Sphere is a point with a
margin, a Capsule a segment with one, a Brick, Cylinder, Ellipsoid or Convex hull its
own core with none. Its support function s(d), the core's point farthest along d, is all
GJK needs (Gilbert, Johnson and Keerthi 1988): it walks a simplex of the Minkowski
difference A - B toward the origin, and the point of that set nearest the origin is the
pair's closest points. GJK ends exactly on polytopes (a support point repeats) and, on
curved cores, once the distance's upper and lower bounds agree to 1e-13 of it.

Cores that overlap have no distance, but a penetration: the shortest translation that
separates them, along a normal of a face of A - B. For polytopes (points, segments,
bricks, hulls) those normals are the faces' normals and the edges' cross products, so
the separating-axis test over them is exact. Where a core is curved, the expanding
polytope algorithm (EPA, van den Bergen 2001) grows a polytope inside A - B from GJK's
last simplex toward the origin's nearest boundary point. The margins are then added: a
sphere's or a capsule's contact is exact whenever its core's is.

A pair's result, in G: the signed distance (m, negative in penetration), the closest
points of the two surfaces (the deepest points in penetration) and the unit normal from
A toward B.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.kernels.small import (
    add3,
    column3,
    cross3,
    dot3,
    rotate3,
    rotate3_transpose,
    scale3,
    sub3,
    tangent_basis,
)

POINT, SEGMENT, BOX, CYLINDER, ELLIPSOID, HULL, HALF_SPACE = 0, 1, 2, 3, 4, 5, 6
"""Core kinds. dims: SEGMENT (half length along z), BOX (half lengths), CYLINDER (radius,
half length along z), ELLIPSOID (semi-axes); a HULL's vertices are its own array. A
HALF_SPACE (x > 0 of its frame, Simbody's) is only ever shape A of a pair."""

GJK_ITERATIONS = 200
"""Enough for curved cores (GJK converges linearly there); polytopes end in a few."""
GJK_RELATIVE = 1e-13
"""GJK ends once the distance's upper and lower bounds differ by this fraction of it."""
GJK_TOUCH = 1e-13
"""Cores nearer than this fraction of their Minkowski difference's size touch: their
normal is then the penetration's (EPA's or the separating axes'), not round-off's."""
EPA_VERTICES = 256
EPA_FACES = 1024
EPA_RELATIVE = 1e-12
"""EPA ends once its bounds of the depth are this fraction of the polytope's size apart
(or the polytope has EPA_VERTICES vertices)."""
POLISH_STEPS = 8
"""Steps that settle the normal between a curved core and another (see ``_polish``)."""
REFINE_STEPS = 8
REFINE_DIFFERENCE = 1e-6
"""Newton steps that settle EPA's normal between curved cores, and the step (rad) of
the differences giving the overlap's curvature (see ``_refine``)."""
_TINY = 1e-300


# ---------------------------------------------------------------- support functions
@helper(error_model="numpy")
def _sign(x):
    return 1.0 if x >= 0.0 else -1.0


@helper(error_model="numpy")
def support_S(kind, dims, vertices, d):
    """The core's point (m, in its frame S) farthest along d (in S)."""
    if kind == SEGMENT:
        return (0.0, 0.0, _sign(d[2]) * dims[0])
    if kind == BOX:
        return (_sign(d[0]) * dims[0], _sign(d[1]) * dims[1], _sign(d[2]) * dims[2])
    if kind == CYLINDER:
        rho = math.sqrt(d[0] * d[0] + d[1] * d[1])
        z = _sign(d[2]) * dims[1]
        if rho <= _TINY:
            return (0.0, 0.0, z)
        return (dims[0] * d[0] / rho, dims[0] * d[1] / rho, z)
    if kind == ELLIPSOID:
        w = (dims[0] * dims[0] * d[0], dims[1] * dims[1] * d[1], dims[2] * dims[2] * d[2])
        s = math.sqrt(dot3(w, d))
        if s <= _TINY:
            return (dims[0], 0.0, 0.0)
        return (w[0] / s, w[1] / s, w[2] / s)
    if kind == HULL:
        best = 0
        most = -math.inf
        for i in range(vertices.shape[0]):
            h = vertices[i, 0] * d[0] + vertices[i, 1] * d[1] + vertices[i, 2] * d[2]
            if h > most:
                most = h
                best = i
        return (vertices[best, 0], vertices[best, 1], vertices[best, 2])
    return (0.0, 0.0, 0.0)


@helper(error_model="numpy")
def support_G(kind, dims, vertices, R, p, d):
    """The core's point (m, in G) farthest along d (in G), the core posed at X_GS = (R, p)."""
    return add3(rotate3(R, support_S(kind, dims, vertices, rotate3_transpose(R, d))),
                (p[0], p[1], p[2]))


# ---------------------------------------------------------------- GJK
@helper(error_model="numpy")
def _row(a, i):
    return (a[i, 0], a[i, 1], a[i, 2])


@helper(error_model="numpy")
def _keep(w, pa, pb, lam, n):
    """Keep the simplex vertices of positive weight (in order), with their weights."""
    m = 0
    for i in range(n):
        if lam[i] > 0.0:
            for k in range(3):
                w[m, k] = w[i, k]
                pa[m, k] = pa[i, k]
                pb[m, k] = pb[i, k]
            lam[m] = lam[i]
            m += 1
    return m


@helper(error_model="numpy")
def _closest_on_segment(a, b):
    """(weight of a, weight of b) of the point of segment ab nearest the origin."""
    ab = sub3(b, a)
    den = dot3(ab, ab)
    if den <= _TINY:
        return 1.0, 0.0
    t = -dot3(a, ab) / den
    if t <= 0.0:
        return 1.0, 0.0
    if t >= 1.0:
        return 0.0, 1.0
    return 1.0 - t, t


@helper(error_model="numpy")
def _best_edge(a, b, c):
    """Barycentric weights (of a, b, c) of the point of the triangle's boundary nearest
    the origin."""
    s0, s1 = _closest_on_segment(a, b)
    t0, t1 = _closest_on_segment(a, c)
    u0, u1 = _closest_on_segment(b, c)
    pab = add3(scale3(s0, a), scale3(s1, b))
    pac = add3(scale3(t0, a), scale3(t1, c))
    pbc = add3(scale3(u0, b), scale3(u1, c))
    dab, dac, dbc = dot3(pab, pab), dot3(pac, pac), dot3(pbc, pbc)
    if dab <= dac and dab <= dbc:
        return s0, s1, 0.0
    if dac <= dbc:
        return t0, 0.0, t1
    return 0.0, u0, u1


@helper(error_model="numpy")
def _closest_on_triangle(a, b, c):
    """Barycentric weights (of a, b, c) of the point of triangle abc nearest the origin,
    by signed areas (Montanari, Petrinic and Barbieri 2017): the origin is projected
    onto the triangle's plane and its coordinates are ratios of areas in the coordinate
    plane where the triangle's shadow is largest, accurate for the long, flat triangles
    GJK meets near a curved surface; a projection outside goes to the nearest edge."""
    n = cross3(sub3(b, a), sub3(c, a))
    nn = dot3(n, n)
    if nn <= _TINY:
        return _best_edge(a, b, c)
    po = scale3(dot3(a, n) / nn, n)
    k = 0
    if abs(n[1]) > abs(n[k]):
        k = 1
    if abs(n[2]) > abs(n[k]):
        k = 2
    i, j = (1, 2) if k == 0 else ((2, 0) if k == 1 else (0, 1))
    full = n[k]
    c0 = (b[i] - po[i]) * (c[j] - po[j]) - (b[j] - po[j]) * (c[i] - po[i])
    c1 = (c[i] - po[i]) * (a[j] - po[j]) - (c[j] - po[j]) * (a[i] - po[i])
    c2 = (a[i] - po[i]) * (b[j] - po[j]) - (a[j] - po[j]) * (b[i] - po[i])
    if c0 * full >= 0.0 and c1 * full >= 0.0 and c2 * full >= 0.0:
        total = c0 + c1 + c2
        return c0 / total, c1 / total, c2 / total
    return _best_edge(a, b, c)


@helper(error_model="numpy")
def _reduce(w, pa, pb, lam, n):
    """Replace the simplex by the smallest face holding its point nearest the origin, with
    that point's barycentric weights in lam; returns (its vertex count, whether the
    tetrahedron encloses the origin)."""
    if n == 1:
        lam[0] = 1.0
        return 1, False
    if n == 2:
        l0, l1 = _closest_on_segment(_row(w, 0), _row(w, 1))
        lam[0], lam[1] = l0, l1
        return _keep(w, pa, pb, lam, 2), False
    if n == 3:
        l0, l1, l2 = _closest_on_triangle(_row(w, 0), _row(w, 1), _row(w, 2))
        lam[0], lam[1], lam[2] = l0, l1, l2
        return _keep(w, pa, pb, lam, 3), False
    # a tetrahedron: does it hold the origin (its barycentric coordinates of the
    # origin, by signed volumes, all >= 0)? Else the nearest of its faces' points: a
    # test of the faces' sides alone errs once the simplex goes flat
    p0, p1, p2, p3 = _row(w, 0), _row(w, 1), _row(w, 2), _row(w, 3)
    volume = dot3(sub3(p1, p0), cross3(sub3(p2, p0), sub3(p3, p0)))
    scale = dot3(sub3(p1, p0), sub3(p1, p0)) + dot3(sub3(p2, p0), sub3(p2, p0)) \
        + dot3(sub3(p3, p0), sub3(p3, p0))
    if abs(volume) > 1e-12 * scale ** 1.5:
        b0 = dot3(p1, cross3(p2, p3))
        b1 = -dot3(p0, cross3(p2, p3))
        b2 = dot3(p0, cross3(p1, p3))
        b3 = -dot3(p0, cross3(p1, p2))
        inside = (b0 / volume >= 0.0 and b1 / volume >= 0.0 and b2 / volume >= 0.0
                  and b3 / volume >= 0.0)
        if inside:
            return 4, True
    best = math.inf
    faces = ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0))
    chosen = 0
    weights = (1.0, 0.0, 0.0)
    for f in range(4):
        i, j, k, _ = faces[f]
        a, b, c = _row(w, i), _row(w, j), _row(w, k)
        l0, l1, l2 = _closest_on_triangle(a, b, c)
        x = add3(add3(scale3(l0, a), scale3(l1, b)), scale3(l2, c))
        dist = dot3(x, x)
        if dist < best:
            best = dist
            chosen = f
            weights = (l0, l1, l2)
    i, j, k, _ = faces[chosen]
    lam[0], lam[1], lam[2], lam[3] = 0.0, 0.0, 0.0, 0.0
    lam[i], lam[j], lam[k] = weights
    return _keep(w, pa, pb, lam, 4), False


@helper(error_model="numpy")
def _is_curved(kind):
    return kind == CYLINDER or kind == ELLIPSOID


@helper(error_model="numpy")
def gjk(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_):
    """GJK on the cores A and B posed in G: (distance (m), point of A, point of B, in G);
    distance 0 (and NaN points) where the cores overlap."""
    w = np.empty((4, 3))
    pa = np.empty((4, 3))
    pb = np.empty((4, 3))
    lam = np.empty(4)
    dist, n = _gjk(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, lam)
    if dist == 0.0:
        nan = (math.nan, math.nan, math.nan)
        return 0.0, nan, nan
    point_a, point_b = _witnesses(pa, pb, lam, n)
    gap = sub3(point_a, point_b)
    return math.sqrt(dot3(gap, gap)), point_a, point_b


@helper(error_model="numpy")
def _witnesses(pa, pb, lam, n):
    """The points of A and of B whose difference is the simplex's point of weights lam."""
    point_a = (0.0, 0.0, 0.0)
    point_b = (0.0, 0.0, 0.0)
    total = 0.0
    for i in range(n):
        total += lam[i]
    for i in range(n):
        point_a = add3(point_a, scale3(lam[i] / total, _row(pa, i)))
        point_b = add3(point_b, scale3(lam[i] / total, _row(pb, i)))
    return point_a, point_b


@helper(error_model="numpy")
def _gjk(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, lam):
    """GJK's walk, its simplex left in w (points of A - B), pa and pb (the points of A and
    of B they are made of) and lam (the weights of its point nearest the origin):
    (distance (m), 0 where the cores overlap; the simplex's vertex count)."""
    w_kept = np.empty((4, 3))
    pa_kept = np.empty((4, 3))
    pb_kept = np.empty((4, 3))
    lam_kept = np.empty(4)
    d0 = sub3(pa_, pb_)
    if dot3(d0, d0) <= _TINY:
        d0 = (1.0, 0.0, 0.0)
    sa = support_G(ka, da, va, Ra, pa_, scale3(-1.0, d0))
    sb = support_G(kb, db, vb, Rb, pb_, d0)
    n = 1
    for k in range(3):
        pa[0, k], pb[0, k] = sa[k], sb[k]
        w[0, k] = sa[k] - sb[k]
    lam[0] = 1.0
    v = _row(w, 0)
    size = dot3(v, v)           # the square of the largest simplex point met
    for _ in range(GJK_ITERATIONS):
        vv = dot3(v, v)
        if vv <= GJK_TOUCH * GJK_TOUCH * size:
            return 0.0, n
        sa = support_G(ka, da, va, Ra, pa_, scale3(-1.0, v))
        sb = support_G(kb, db, vb, Rb, pb_, v)
        x = sub3(sa, sb)
        size = max(size, dot3(x, x))
        if vv - dot3(v, x) <= GJK_RELATIVE * vv:
            break
        repeated = False
        for i in range(n):
            if w[i, 0] == x[0] and w[i, 1] == x[1] and w[i, 2] == x[2]:
                repeated = True
        if repeated:
            break
        for i in range(n):                  # kept, should the step not help
            for k in range(3):
                w_kept[i, k], pa_kept[i, k], pb_kept[i, k] = w[i, k], pa[i, k], pb[i, k]
            lam_kept[i] = lam[i]
        n_kept = n
        for k in range(3):
            pa[n, k], pb[n, k], w[n, k] = sa[k], sb[k], x[k]
        n += 1
        n, enclosed = _reduce(w, pa, pb, lam, n)
        if enclosed:
            return 0.0, n
        nv = (0.0, 0.0, 0.0)
        for i in range(n):
            nv = add3(nv, scale3(lam[i], _row(w, i)))
        if dot3(nv, nv) >= vv:
            # no progress: round-off on a simplex gone flat has the last word, and the
            # last simplex is the best there is
            n = n_kept
            for i in range(n):
                for k in range(3):
                    w[i, k], pa[i, k], pb[i, k] = w_kept[i, k], pa_kept[i, k], pb_kept[i, k]
                lam[i] = lam_kept[i]
            break
        v = nv
    return math.sqrt(dot3(v, v)), n


# ---------------------------------------------------------------- separating axes
@helper(error_model="numpy")
def _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n):
    """(point of A - B farthest along n, A's point, B's point): A's farthest along n less
    B's farthest along -n."""
    sa = support_G(ka, da, va, Ra, pa_, n)
    sb = support_G(kb, db, vb, Rb, pb_, scale3(-1.0, n))
    return sub3(sa, sb), sa, sb


@helper(error_model="numpy")
def _overlap(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n):
    """How far B must move along the unit n (in G) to clear A: h_A(n) + h_B(-n)."""
    return dot3(n, _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n)[0])


@helper(error_model="numpy")
def _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n, best, best_n):
    """The smaller of ``best`` and the overlap along n (either sense), with its normal."""
    norm = math.sqrt(dot3(n, n))
    if norm <= 1e-12:
        return best, best_n
    n = scale3(1.0 / norm, n)
    for sense in (1.0, -1.0):
        m = scale3(sense, n)
        o = _overlap(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, m)
        if o < best:
            best = o
            best_n = m
    return best, best_n


@helper(error_model="numpy")
def _hull_normal(vertices, faces, R, i):
    """Face i's unit normal (in G) of a hull with triangles ``faces``."""
    a = (vertices[faces[i, 0], 0], vertices[faces[i, 0], 1], vertices[faces[i, 0], 2])
    b = (vertices[faces[i, 1], 0], vertices[faces[i, 1], 1], vertices[faces[i, 1], 2])
    c = (vertices[faces[i, 2], 0], vertices[faces[i, 2], 1], vertices[faces[i, 2], 2])
    n = cross3(sub3(b, a), sub3(c, a))
    return rotate3(R, n)


@helper(error_model="numpy")
def _hull_edge(vertices, edges, R, i):
    a = (vertices[edges[i, 0], 0], vertices[edges[i, 0], 1], vertices[edges[i, 0], 2])
    b = (vertices[edges[i, 1], 0], vertices[edges[i, 1], 1], vertices[edges[i, 1], 2])
    return rotate3(R, sub3(b, a))


@helper(error_model="numpy")
def _directions(kind, vertices, faces, edges, R, which, i):
    """Face normal (which 0) or edge direction (which 1) i of a core, in G."""
    if kind == HULL:
        if which == 0:
            return _hull_normal(vertices, faces, R, i)
        return _hull_edge(vertices, edges, R, i)
    if kind == SEGMENT:
        return column3(R, 2)
    return column3(R, i)


@helper(error_model="numpy")
def _counts(kind, faces, edges):
    if kind == HULL:
        return faces.shape[0], edges.shape[0]
    if kind == BOX:
        return 3, 3
    if kind == SEGMENT:
        return 0, 1
    return 0, 0


@helper(error_model="numpy")
def sat(ka, da, va, fa, ea, Ra, pa_, kb, db, vb, fb, eb, Rb, pb_):
    """The penetration (m) of overlapping polytope cores and its unit normal from A
    toward B (in G): the least overlap over A's and B's face normals and the cross
    products of their edges; for two points, or a point and a segment, the axis joining
    them."""
    best = math.inf
    best_n = (1.0, 0.0, 0.0)
    nfa, nea = _counts(ka, fa, ea)
    nfb, neb = _counts(kb, fb, eb)
    for i in range(nfa):
        best, best_n = _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_,
                                 _directions(ka, va, fa, ea, Ra, 0, i), best, best_n)
    for i in range(nfb):
        best, best_n = _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_,
                                 _directions(kb, vb, fb, eb, Rb, 0, i), best, best_n)
    for i in range(nea):
        ei = _directions(ka, va, fa, ea, Ra, 1, i)
        for j in range(neb):
            ej = _directions(kb, vb, fb, eb, Rb, 1, j)
            best, best_n = _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_,
                                     cross3(ei, ej), best, best_n)
    if nfa + nfb == 0:
        # points and segments only: they part along the line joining the centres, or
        # across a segment
        best, best_n = _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_,
                                 sub3(pb_, pa_), best, best_n)
        for i in range(nea):
            ei = _directions(ka, va, fa, ea, Ra, 1, i)
            best, best_n = _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_,
                                     cross3(ei, cross3(sub3(pb_, pa_), ei)), best, best_n)
        for j in range(neb):
            ej = _directions(kb, vb, fb, eb, Rb, 1, j)
            best, best_n = _try_axis(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_,
                                     cross3(ej, cross3(sub3(pb_, pa_), ej)), best, best_n)
    if best == math.inf:        # coincident points: any direction parts them
        return 0.0, (0.0, 0.0, 1.0)
    return best, best_n


# ---------------------------------------------------------------- EPA
@helper(error_model="numpy")
def _add_vertex(V, VA, VB, m, x, sa, sb):
    for k in range(3):
        V[m, k], VA[m, k], VB[m, k] = x[k], sa[k], sb[k]
    return m + 1


@helper(error_model="numpy")
def _set_face(V, F, FN, FD, f, i, j, k):
    """Face f = (i, j, k) of the polytope, its outward unit normal and its distance from
    the origin; a face too small to have a normal is given an infinite distance."""
    F[f, 0], F[f, 1], F[f, 2] = i, j, k
    a = _row(V, i)
    nrm = cross3(sub3(_row(V, j), a), sub3(_row(V, k), a))
    size = math.sqrt(dot3(nrm, nrm))
    if size <= _TINY:
        FN[f, 0], FN[f, 1], FN[f, 2] = 0.0, 0.0, 0.0
        FD[f] = math.inf
        return
    for c in range(3):
        FN[f, c] = nrm[c] / size
    FD[f] = dot3(_row(FN, f), a)


@helper(error_model="numpy")
def _start_tetrahedron(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, n, V, VA, VB):
    """The four vertices of a tetrahedron of A - B around the origin in V (and A's and
    B's points in VA, VB), from GJK's last simplex, blown up to four vertices by support
    points where it has fewer; returns how many it has (fewer than 4: the cores only
    touch, or are flat)."""
    m = 0
    for i in range(n):
        m = _add_vertex(V, VA, VB, m, _row(w, i), _row(pa, i), _row(pb, i))
    tries = ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0),
             (0.0, 0.0, 1.0), (0.0, 0.0, -1.0))
    scale = 0.0
    for t in range(6):
        x, _, _ = _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, tries[t])
        scale = max(scale, abs(dot3(x, tries[t])))
    eps = 1e-9 * scale
    while m < 4:
        directions = np.empty((8, 3))
        count = 0
        if m == 1:
            for t in range(6):
                for k in range(3):
                    directions[count, k] = tries[t][k]
                count += 1
        elif m == 2:
            d = sub3(_row(V, 1), _row(V, 0))
            axis = 0
            if abs(d[1]) < abs(d[axis]):
                axis = 1
            if abs(d[2]) < abs(d[axis]):
                axis = 2
            e = (1.0 if axis == 0 else 0.0, 1.0 if axis == 1 else 0.0,
                 1.0 if axis == 2 else 0.0)
            u = cross3(d, e)
            t2 = cross3(d, u)
            for c in ((u, 1.0), (u, -1.0), (t2, 1.0), (t2, -1.0)):
                for k in range(3):
                    directions[count, k] = c[1] * c[0][k]
                count += 1
        else:
            nrm = cross3(sub3(_row(V, 1), _row(V, 0)), sub3(_row(V, 2), _row(V, 0)))
            for sign in (1.0, -1.0):
                for k in range(3):
                    directions[count, k] = sign * nrm[k]
                count += 1
        added = False
        for t in range(count):
            d = _row(directions, t)
            x, sa, sb = _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, d)
            far = 0.0
            if m == 1:
                far = math.sqrt(dot3(sub3(x, _row(V, 0)), sub3(x, _row(V, 0))))
            elif m == 2:
                line = sub3(_row(V, 1), _row(V, 0))
                off = cross3(line, sub3(x, _row(V, 0)))
                far = math.sqrt(dot3(off, off) / max(dot3(line, line), _TINY))
            else:
                nrm = cross3(sub3(_row(V, 1), _row(V, 0)), sub3(_row(V, 2), _row(V, 0)))
                far = abs(dot3(nrm, sub3(x, _row(V, 0)))) / max(
                    math.sqrt(dot3(nrm, nrm)), _TINY)
            if far > eps:
                m = _add_vertex(V, VA, VB, m, x, sa, sb)
                added = True
                break
        if not added:
            break
    return m


@helper(error_model="numpy")
def _share_edge(F, f, g):
    """Whether faces f and g of the polytope share an edge (two vertices)."""
    common = 0
    for i in range(3):
        for j in range(3):
            if F[f, i] == F[g, j]:
                common += 1
    return common >= 2


@helper(error_model="numpy")
def _one_loop(edges, ne):
    """Whether the directed edges make one closed loop, each vertex met once."""
    if ne < 3:
        return False
    start = edges[0, 0]
    at = edges[0, 1]
    for step in range(1, ne + 1):
        if at == start:
            return step == ne
        following = -1
        for e in range(ne):
            if edges[e, 0] == at:
                if following >= 0:
                    return False
                following = e
        if following < 0:
            return False
        at = edges[following, 1]
    return False


@helper(error_model="numpy")
def epa(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, n):
    """The penetration (m) of overlapping cores, its unit normal from A toward B and the
    deepest points of A and of B (in G), by the expanding polytope: from a tetrahedron
    of A - B around the origin, the face nearest the origin is pushed out to the support
    point along its normal. The faces' distances bound the depth from below, the
    overlaps along their normals from above; the least overlap is the answer once the
    two bounds meet (EPA_RELATIVE of the polytope's size; exactly for polytopes)."""
    V = np.empty((EPA_VERTICES, 3))
    VA = np.empty((EPA_VERTICES, 3))
    VB = np.empty((EPA_VERTICES, 3))
    F = np.empty((EPA_FACES, 3), dtype=np.int64)
    FN = np.empty((EPA_FACES, 3))
    FD = np.empty(EPA_FACES)
    alive = np.zeros(EPA_FACES, dtype=np.bool_)
    seen = np.zeros(EPA_FACES, dtype=np.bool_)
    edges = np.empty((3 * EPA_FACES, 2), dtype=np.int64)
    m = _start_tetrahedron(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, n,
                           V, VA, VB)
    if m < 4:
        return 0.0, (0.0, 0.0, 1.0), _row(VA, 0), _row(VB, 0)
    # the tetrahedron's faces, each turned outward
    nf = 0
    quads = ((0, 1, 2, 3), (0, 3, 1, 2), (0, 2, 3, 1), (1, 3, 2, 0))
    for q in range(4):
        i, j, k, o = quads[q]
        _set_face(V, F, FN, FD, nf, i, j, k)
        if dot3(_row(FN, nf), sub3(_row(V, o), _row(V, i))) > 0.0:
            _set_face(V, F, FN, FD, nf, i, k, j)
        alive[nf] = True
        nf += 1
    scale = 0.0
    for i in range(4):
        scale = max(scale, math.sqrt(dot3(_row(V, i), _row(V, i))))
    # the least overlap met so far (an upper bound of the depth), its normal and points
    upper = math.inf
    upper_n = (0.0, 0.0, 1.0)
    upper_a = _row(VA, 0)
    upper_b = _row(VB, 0)
    lower = -math.inf
    for _ in range(EPA_VERTICES):
        best = -1
        for f in range(nf):
            if alive[f] and (best < 0 or FD[f] < FD[best]):
                best = f
        # The nearest face's distance is a lower bound of the depth, never falling in
        # exact arithmetic; where round-off makes it fall the polytope has gone wrong.
        if best < 0 or FD[best] == math.inf or FD[best] < lower - EPA_RELATIVE * scale:
            break
        lower = max(lower, FD[best])
        normal = _row(FN, best)
        x, sa, sb = _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, normal)
        reach = dot3(normal, x)
        if reach < upper:
            upper, upper_n, upper_a, upper_b = reach, normal, sa, sb
        # the nearest face is on A - B's boundary (its support is no farther), or the
        # bounds have met
        if reach - FD[best] <= EPA_RELATIVE * scale or upper - lower <= EPA_RELATIVE * scale \
                or m == EPA_VERTICES or nf + 2 * m > EPA_FACES:
            break
        # The faces x sees go, found from the nearest face through shared edges: where
        # the polytope has coplanar faces round-off may call a face across the polytope
        # visible, which would tear it. Their edges seen once are the hole's rim,
        # which must be one loop.
        for f in range(nf):
            seen[f] = False
        seen[best] = True
        grown = True
        while grown:
            grown = False
            for f in range(nf):
                if not alive[f] or seen[f]:
                    continue
                if dot3(_row(FN, f), sub3(x, _row(V, F[f, 0]))) <= 0.0:
                    continue
                for g in range(nf):
                    if seen[g] and _share_edge(F, f, g):
                        seen[f] = True
                        grown = True
                        break
        ne = 0
        for f in range(nf):
            if not seen[f]:
                continue
            for c in range(3):
                a, b = F[f, c], F[f, (c + 1) % 3]
                twin = -1
                for e in range(ne):
                    if edges[e, 0] == b and edges[e, 1] == a:
                        twin = e
                if twin >= 0:
                    ne -= 1
                    edges[twin, 0], edges[twin, 1] = edges[ne, 0], edges[ne, 1]
                else:
                    edges[ne, 0], edges[ne, 1] = a, b
                    ne += 1
        if not _one_loop(edges, ne):
            break
        for f in range(nf):
            if seen[f]:
                alive[f] = False
        new = m
        m = _add_vertex(V, VA, VB, m, x, sa, sb)
        for e in range(ne):
            _set_face(V, F, FN, FD, nf, edges[e, 0], edges[e, 1], new)
            alive[nf] = True
            nf += 1
    return upper, upper_n, upper_a, upper_b


@helper(error_model="numpy")
def _overlap_slope(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n0, t1, t2, a, b):
    """(overlap h_A(n) + h_B(-n), its slopes in a and b) along n = (n0 + a t1 + b t2)
    normalized: the overlap is positively homogeneous with gradient s_A(n) - s_B(-n)."""
    m = add3(n0, add3(scale3(a, t1), scale3(b, t2)))
    r = math.sqrt(dot3(m, m))
    n = scale3(1.0 / r, m)
    x, _, _ = _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n)
    h = dot3(n, x)
    return (h, (dot3(x, t1) - h * dot3(m, t1) / r) / r,
            (dot3(x, t2) - h * dot3(m, t2) / r) / r)


@helper(error_model="numpy")
def _refine(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, depth, n):
    """EPA's (depth, normal) of curved cores, settled by Newton's method on the overlap
    over the directions: EPA's facets resolve a curved boundary of A - B only to their
    size, which leaves the normal up to 1e-3 rad off. The slopes are exact (support
    points); their derivatives are differenced. A step is kept only if it lowers the
    overlap (at an edge or a flat face of a cylinder the overlap has a kink, where EPA
    is already exact)."""
    for _ in range(REFINE_STEPS):
        t1, t2 = tangent_basis(n)
        h, g1, g2 = _overlap_slope(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n, t1, t2,
                                   0.0, 0.0)
        _, g11, g21 = _overlap_slope(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n, t1, t2,
                                     REFINE_DIFFERENCE, 0.0)
        _, g12, g22 = _overlap_slope(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n, t1, t2,
                                     0.0, REFINE_DIFFERENCE)
        h11 = (g11 - g1) / REFINE_DIFFERENCE
        h21 = (g21 - g2) / REFINE_DIFFERENCE
        h12 = (g12 - g1) / REFINE_DIFFERENCE
        h22 = (g22 - g2) / REFINE_DIFFERENCE
        s12 = 0.5 * (h12 + h21)
        det = h11 * h22 - s12 * s12
        if not (det > 0.0 and h11 > 0.0):
            break
        a = -(h22 * g1 - s12 * g2) / det
        b = -(h11 * g2 - s12 * g1) / det
        if abs(a) + abs(b) > 0.1:
            break
        lowered = False
        for _ in range(8):
            trial, _, _ = _overlap_slope(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n, t1,
                                         t2, a, b)
            if trial < h:
                m = add3(n, add3(scale3(a, t1), scale3(b, t2)))
                n = scale3(1.0 / math.sqrt(dot3(m, m)), m)
                depth = min(depth, trial)
                lowered = True
                break
            a *= 0.5
            b *= 0.5
        if not lowered or abs(a) + abs(b) < 1e-12:
            break
    x, sa, sb = _support_K(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, n)
    return dot3(n, x), n, sa, sb


# ---------------------------------------------------------------- a pair
@helper(error_model="numpy")
def _gap(kc, dc, vc, Rc, pc, kp, dp, vp, Rp, pp, dist, xc, xp):
    """How far the distance ``dist`` between the points xc of C and xp of P may exceed
    the true one: dist less the separation of the two cores along the normal they make
    (a lower bound of the distance for any direction)."""
    n = scale3(1.0 / dist, sub3(xp, xc))
    return dist - (dot3(n, support_G(kp, dp, vp, Rp, pp, scale3(-1.0, n)))
                   - dot3(n, support_G(kc, dc, vc, Rc, pc, n)))


@helper(error_model="numpy")
def _polish(kc, dc, vc, Rc, pc, kp, dp, vp, Rp, pp, dist, xc, xp):
    """GJK's (distance, point of the curved core C, point of the polytope P), settled: a
    face of P seen from C's curved surface is met by simplex points of C found along
    older directions, which tilts the normal (by up to 1e-5 rad) though the distance is
    right. From C's support point q along the current normal, the polytope's point
    nearest q (GJK of a point and a polytope, which ends exactly) gives the next normal,
    the face's own after one step; a step is kept while it narrows the gap between the
    distance and its lower bound (``_gap``)."""
    origin = np.zeros(3)
    none = np.zeros((0, 3))
    eye = np.eye(3)
    gap = _gap(kc, dc, vc, Rc, pc, kp, dp, vp, Rp, pp, dist, xc, xp)
    for _ in range(POLISH_STEPS):
        n = scale3(1.0 / dist, sub3(xp, xc))        # from C toward P
        q = support_G(kc, dc, vc, Rc, pc, n)
        qa = np.empty(3)
        for k in range(3):
            qa[k] = q[k]
        d, _, a = gjk(POINT, origin, none, eye, qa, kp, dp, vp, Rp, pp)
        if not d > 0.0:
            break
        narrower = _gap(kc, dc, vc, Rc, pc, kp, dp, vp, Rp, pp, d, q, a)
        if not narrower < gap:
            break
        dist, xc, xp, gap = d, q, a, narrower
    return dist, xc, xp


@helper(error_model="numpy")
def pair(ka, da, ma, va, fa, ea, Ra, pa_, kb, db, mb, vb, fb, eb, Rb, pb_):
    """(signed distance (m), point of A's surface, point of B's surface, unit normal from
    A toward B, all in G): the closest points of separated shapes (GJK), the
    deepest points of overlapping ones (the separating-axis test for two polytopes, EPA
    where a core is curved)."""
    if ka == HALF_SPACE:
        # B's core point deepest into the half space, then its surface's
        inward = column3(Ra, 0)
        n = scale3(-1.0, inward)
        xb = add3(support_G(kb, db, vb, Rb, pb_, inward), scale3(mb, inward))
        height = dot3(n, sub3(xb, pa_))
        return height, sub3(xb, scale3(height, n)), xb, n
    w = np.empty((4, 3))
    pa = np.empty((4, 3))
    pb = np.empty((4, 3))
    lam = np.empty(4)
    dist, nw = _gjk(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, lam)
    if dist == 0.0 and not (_is_polytope(ka) and _is_polytope(kb)):
        depth, n, xa, xb = epa(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, w, pa, pb, nw)
        depth, n, xa, xb = _refine(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, depth, n)
        return (-depth - ma - mb, add3(xa, scale3(ma, n)), sub3(xb, scale3(mb, n)), n)
    xa, xb = _witnesses(pa, pb, lam, nw)
    if dist > 0.0 and _is_curved(kb):
        dist, xb, xa = _polish(kb, db, vb, Rb, pb_, ka, da, va, Ra, pa_, dist, xb, xa)
    if dist > 0.0 and _is_curved(ka):
        dist, xa, xb = _polish(ka, da, va, Ra, pa_, kb, db, vb, Rb, pb_, dist, xa, xb)
    if dist > 0.0:
        gap = sub3(xb, xa)
        dist = math.sqrt(dot3(gap, gap))
        n = scale3(1.0 / dist, gap)
        return (dist - ma - mb, add3(xa, scale3(ma, n)), sub3(xb, scale3(mb, n)), n)
    depth, n = sat(ka, da, va, fa, ea, Ra, pa_, kb, db, vb, fb, eb, Rb, pb_)
    # the deepest points: A's support along n, and B's along -n
    xa = support_G(ka, da, va, Ra, pa_, n)
    xb = support_G(kb, db, vb, Rb, pb_, scale3(-1.0, n))
    return (-depth - ma - mb, add3(xa, scale3(ma, n)), sub3(xb, scale3(mb, n)), n)


@helper(error_model="numpy")
def _is_polytope(kind):
    return kind == POINT or kind == SEGMENT or kind == BOX or kind == HULL


# ---------------------------------------------------------------- from Python
@numba.njit(cache=True, error_model="numpy")
def pair_kernel(ka, da, ma, va, fa, ea, Ra, pa_, kb, db, mb, vb, fb, eb, Rb, pb_, out):
    """``pair`` into out[0:10] (distance, point of A, point of B, normal)."""
    dist, xa, xb, n = pair(ka, da, ma, va, fa, ea, Ra, pa_, kb, db, mb, vb, fb, eb,
                                   Rb, pb_)
    out[0] = dist
    for k in range(3):
        out[1 + k] = xa[k]
        out[4 + k] = xb[k]
        out[7 + k] = n[k]


_NO_VERTICES = np.zeros((0, 3))
_NO_FACES = np.zeros((0, 3), dtype=np.int64)
_NO_EDGES = np.zeros((0, 2), dtype=np.int64)


def core_of(shape) -> tuple:
    """(kind, dims (3,), margin (m), vertices, faces, edges) of a ContactGeometry as the
    compiled pair sees it; refused, naming the fix, for a shape that is not convex."""
    from kinetree.contact.capsule import Capsule
    from kinetree.contact.convex_hull import Convex
    from kinetree.contact.geometry import Ellipsoid, HalfSpace, Sphere
    from kinetree.contact.mesh import Brick, Cylinder

    def row(*values):
        return np.array(values + (0.0,) * (3 - len(values)), dtype=float)

    if isinstance(shape, Sphere):
        return POINT, row(), shape.get_radius(), _NO_VERTICES, _NO_FACES, _NO_EDGES
    if isinstance(shape, Capsule):
        return (SEGMENT, row(shape.get_half_length()), shape.get_radius(), _NO_VERTICES,
                _NO_FACES, _NO_EDGES)
    if isinstance(shape, Brick):
        return (BOX, np.array(shape.get_half_lengths(), dtype=float), 0.0, _NO_VERTICES,
                _NO_FACES, _NO_EDGES)
    if isinstance(shape, Cylinder):
        return (CYLINDER, row(shape.get_radius(), shape.get_half_length()), 0.0,
                _NO_VERTICES, _NO_FACES, _NO_EDGES)
    if isinstance(shape, Ellipsoid):
        return (ELLIPSOID, np.array(shape.get_radii(), dtype=float), 0.0, _NO_VERTICES,
                _NO_FACES, _NO_EDGES)
    if isinstance(shape, Convex):
        return (HULL, row(), 0.0, np.ascontiguousarray(shape.get_vertices()),
                np.ascontiguousarray(shape.get_faces(), dtype=np.int64),
                np.ascontiguousarray(shape.get_edges(), dtype=np.int64))
    if isinstance(shape, HalfSpace):
        return HALF_SPACE, row(), 0.0, _NO_VERTICES, _NO_FACES, _NO_EDGES
    raise InvalidArgumentError(
        f"closest_points: {type(shape).__name__} is not a convex shape; the convex shapes "
        f"are Sphere, Capsule, Brick, Cylinder, Ellipsoid, Convex and a HalfSpace (as the "
        f"first); collide a TriangleMesh through a contact subsystem, or take its hull with "
        f"ContactGeometry.Convex.from_mesh.")


class ClosestPoints(NamedTuple):
    """A pair's closest points, in G: ``distance`` (m, negative where the shapes overlap,
    by their penetration), ``point_a`` and ``point_b`` on the two surfaces (the deepest
    points in penetration) and the unit ``normal`` from A toward B."""

    distance: float
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray


def _pose(X) -> tuple[np.ndarray, np.ndarray]:
    from kinetree.math import Transform
    if X is None:
        return np.eye(3), np.zeros(3)
    if not isinstance(X, Transform):
        raise InvalidArgumentError(f"closest_points: a shape's pose must be a Transform "
                                   f"X_GS, got {type(X).__name__}.")
    M = X.to_mat44()
    return np.ascontiguousarray(M[:3, :3]), np.ascontiguousarray(M[:3, 3])


def closest_points(X_GA, shape_a, X_GB, shape_b) -> ClosestPoints:
    """The closest points of two convex shapes posed at X_GA and X_GB (Transforms, or None
    for G itself), or their deepest points and penetration where they overlap. A
    HalfSpace may be shape A."""
    ka, da, ma, va, fa, ea = core_of(shape_a)
    kb, db, mb, vb, fb, eb = core_of(shape_b)
    if kb == HALF_SPACE:
        raise InvalidArgumentError("closest_points: a HalfSpace must be shape A; swap the "
                                   "two (the normal then points from it).")
    Ra, pa = _pose(X_GA)
    Rb, pb = _pose(X_GB)
    out = np.empty(10)
    pair_kernel(ka, da, ma, va, fa, ea, Ra, pa, kb, db, mb, vb, fb, eb, Rb, pb, out)
    return ClosestPoints(float(out[0]), out[1:4].copy(), out[4:7].copy(), out[7:10].copy())
