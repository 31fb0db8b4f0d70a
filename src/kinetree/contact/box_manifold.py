"""The contact manifold of two boxes, compiled: the points where one box's face (or edge)
meets the other, for rigid contact, so that a box standing on another rests on a patch of
up to eight points rather than on one.

The separating-axis test over the boxes' face normals and edge cross products finds the
axis of least penetration (or of greatest separation). On a face axis, the face of the
other box most opposed to it (the incident face) is clipped against the side planes of
that face (the reference face), and the clipped corners below the reference plane, or
within ``margin`` above it, are the contact points; of more than four, four are kept: the
one farthest along a fixed direction of the reference face (``FIRST_DIRECTION``), the
farthest from it, and the two that span the largest area with those on either side of
the line between them, so that the patch keeps its extent. On an edge axis the two
edges' nearest points are one contact. Biases prefer A's faces to B's and faces to edges
(``RELATIVE_BIAS``), so that stacked boxes keep their face patches.

A resting patch must keep the same points, with the same names, from one step to the
next: the rigid stepper starts each contact's impulse from its last, and a point dropped
for another makes the whole stack's load find its way anew (hundreds of solver sweeps).
So the points are chosen by where they are, not by their depth, which ties on a face
lying flat, and each is named by the two edges that meet there (an incident face's
edge or a reference face's side: a corner of the incident face, an edge crossing a side,
or a corner of the reference face), not by its place in the clipped polygon, which
shifts as corners come and go.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, column3, cross3, dot3, scale3, sub3

RELATIVE_BIAS, SIZE_BIAS = 0.05, 1e-4
"""A face of B is chosen over one of A, or an edge axis over a face, only where its
separation is larger by this fraction of the depth plus this fraction of the boxes'
size: a box resting on another, whose touching faces tie, keeps one reference face from
step to step, and a box tilted a little on another keeps its face patch."""
MAX_POINTS = 8
"""A quadrilateral clipped by a rectangle's four sides keeps at most eight corners."""
PATCH_POINTS = 4
"""The contact points kept of a face patch."""
FIRST_DIRECTION = (math.cos(0.3), math.sin(0.3))
"""The first point kept of a larger patch is the farthest along this direction of the
reference face's plane (its components along the face's two side axes): turned from
both axes and from their diagonals, so that it ties with a polygon's edge only at a
turn no one sets up on purpose."""
CLIP_SLACK = 1e-6
"""A corner within this fraction of the reference face's half width of one of its sides
is on that side: boxes of one size stacked square have corners on each other's sides,
where round-off would otherwise keep a corner at one step and clip it at the next,
renaming the point."""
LABELS = 64
"""Each face's points are named by a pair of edge numbers below 8 (0-3 the incident
face's edges, 4-7 the reference face's sides): their feature is LABELS times the face
plus min * 8 + max; the edge-edge contacts come after the twelve faces'."""
EDGE_EDGE = 12 * LABELS
ON_A, POINT, BENEATH, NORMAL, GAP, FEATURE = 0, 1, 4, 7, 10, 11
"""Columns of a manifold row: 1 if the reference face is A's, the other box's point (G),
the reference plane's point beneath it (G), the reference face's outward unit normal (G),
their separation (m, < 0 in penetration), and which point of the patch it is (the
reference face's axis and side, and the two edges meeting there: the same point at the
next step, for a warm start)."""
EDGE_IN, EDGE_OUT = 3, 4
"""Columns of a polygon corner in the scratch ``work`` after its point (G): the numbers
of the edges arriving at it and leaving it."""
WORK_COLUMNS = 5
COLUMNS = 12


@helper
def _support_radius(R, half, n):
    """The box's extent from its centre along the unit n."""
    return (abs(dot3(column3(R, 0), n)) * half[0] + abs(dot3(column3(R, 1), n)) * half[1]
            + abs(dot3(column3(R, 2), n)) * half[2])


@helper
def _sign(x):
    return 1.0 if x >= 0.0 else -1.0


@helper
def _corner(dst, k, x, edge_in, edge_out):
    dst[k, 0], dst[k, 1], dst[k, 2] = x
    dst[k, EDGE_IN], dst[k, EDGE_OUT] = edge_in, edge_out


@helper
def _clip(src, n_src, dst, normal, offset, side, slack):
    """dst = the part of polygon src[:n_src] (corners in G, with their edges' numbers)
    where normal·p ≤ offset (Sutherland-Hodgman); the clipped edge is numbered ``side``.
    A corner within ``slack`` (m) of the plane is on it: kept, moved onto it, and no
    crossing is made beside it. Returns the corner count."""
    n_dst = 0
    for k in range(n_src):
        p = (src[k, 0], src[k, 1], src[k, 2])
        j = (k + 1) % n_src
        q = (src[j, 0], src[j, 1], src[j, 2])
        dp, dq = dot3(normal, p) - offset, dot3(normal, q) - offset
        if dp <= slack:
            _corner(dst, n_dst, sub3(p, scale3(max(dp, 0.0), normal)), src[k, EDGE_IN],
                    src[k, EDGE_OUT])
            n_dst += 1
        if (dp < -slack and dq > slack) or (dp > slack and dq < -slack):
            x = add3(p, scale3(dp / (dp - dq), sub3(q, p)))
            # leaving the kept side along edge k's line onto the side, or coming back
            if dp < 0.0:
                _corner(dst, n_dst, x, src[k, EDGE_OUT], side)
            else:
                _corner(dst, n_dst, x, side, src[k, EDGE_OUT])
            n_dst += 1
    return n_dst


@helper
def _face(R, p, half, axis, sign, out):
    """Write the box's face on ``axis`` at ``sign`` into out[:4] (its corners in G,
    counter-clockwise seen from outside, edge k from corner k to k + 1); returns (its
    outward unit normal, its centre)."""
    u, v = (axis + 1) % 3, (axis + 2) % 3
    n = scale3(sign, column3(R, axis))
    c = add3(p, scale3(half[axis], n))
    du, dv = scale3(half[u], column3(R, u)), scale3(half[v], column3(R, v))
    corners = (add3(add3(c, du), dv), add3(sub3(c, du), dv), sub3(sub3(c, du), dv),
               sub3(add3(c, du), dv))
    for k in range(4):
        _corner(out, k, corners[k] if sign > 0.0 else corners[3 - k], (k + 3) % 4, k)
    return n, c


@helper
def _segments(p1, d1, p2, d2):
    """The nearest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]."""
    r = sub3(p1, p2)
    a, e, f = dot3(d1, d1), dot3(d2, d2), dot3(d2, r)
    b, c = dot3(d1, d2), dot3(d1, r)
    den = a * e - b * b
    s = min(1.0, max(0.0, (b * f - c * e) / den)) if den > 1e-14 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0 or t > 1.0:
        t = min(1.0, max(0.0, t))
        s = min(1.0, max(0.0, (b * t - c) / a))
    return add3(p1, scale3(s, d1)), add3(p2, scale3(t, d2))


@helper
def _write(out, k, on_a, point, beneath, normal, gap, feature):
    out[k, ON_A] = 1.0 if on_a else 0.0
    out[k, FEATURE] = feature
    for i in range(3):
        out[k, POINT + i] = point[i]
        out[k, BENEATH + i] = beneath[i]
        out[k, NORMAL + i] = normal[i]
    out[k, GAP] = gap


@helper
def manifold(R_a, p_a, half_a, R_b, p_b, half_b, margin, out, work):
    """The contact points of boxes A and B (rotations R_GA, R_GB, centres p_a, p_b in G,
    half lengths) into the rows of out (MAX_POINTS x COLUMNS, columns ON_A ...); returns their
    number, 0 where the boxes are farther apart than ``margin``. ``work`` is 2 x
    MAX_POINTS x WORK_COLUMNS of scratch."""
    p_a, p_b = (p_a[0], p_a[1], p_a[2]), (p_b[0], p_b[1], p_b[2])
    d = sub3(p_b, p_a)
    size = max(half_a[0], half_a[1], half_a[2]) + max(half_b[0], half_b[1], half_b[2])
    best, best_kind, best_i, best_j, best_n = -math.inf, 0, 0, 0, (0.0, 0.0, 0.0)
    # kinds: 0 A's face, 1 B's face, 2 an edge of each
    for k in range(15):
        if k < 3:
            kind, i, j, n = 0, k, 0, column3(R_a, k)
        elif k < 6:
            kind, i, j, n = 1, k - 3, 0, column3(R_b, k - 3)
        else:
            kind, i, j = 2, (k - 6) // 3, (k - 6) % 3
            n = cross3(column3(R_a, i), column3(R_b, j))
            length = math.sqrt(dot3(n, n))
            if not length > 1e-9:
                continue
            n = scale3(1.0 / length, n)
        if dot3(d, n) < 0.0:
            n = scale3(-1.0, n)
        separation = dot3(d, n) - _support_radius(R_a, half_a, n) \
            - _support_radius(R_b, half_b, n)
        if separation > margin:
            return 0        # an axis that separates them by more than the margin
        bias = 0.0 if kind == 0 else RELATIVE_BIAS * abs(best) + SIZE_BIAS * size
        if separation > best + bias:
            best, best_kind, best_i, best_j, best_n = separation, kind, i, j, n
    if best > margin:
        return 0
    n = best_n
    if best_kind == 2:
        i, j = best_i, best_j
        # each box's edge along its axis, the corner nearest the other box
        ca, cb = p_a, p_b
        for k in range(3):
            if k != i:
                ca = add3(ca, scale3(_sign(dot3(column3(R_a, k), n)) * half_a[k],
                                     column3(R_a, k)))
            if k != j:
                cb = add3(cb, scale3(-_sign(dot3(column3(R_b, k), n)) * half_b[k],
                                     column3(R_b, k)))
        ea, eb = scale3(half_a[i], column3(R_a, i)), scale3(half_b[j], column3(R_b, j))
        qa, qb = _segments(sub3(ca, ea), scale3(2.0, ea), sub3(cb, eb), scale3(2.0, eb))
        _write(out, 0, True, qb, qa, n, dot3(n, sub3(qb, qa)), EDGE_EDGE + 3 * i + j)
        return 1
    if best_kind == 0:
        ref_R, ref_p, ref_half, inc_R, inc_p, inc_half, normal = \
            R_a, p_a, half_a, R_b, p_b, half_b, n
    else:
        ref_R, ref_p, ref_half, inc_R, inc_p, inc_half, normal = \
            R_b, p_b, half_b, R_a, p_a, half_a, scale3(-1.0, n)
    # the reference face: the reference box's face along its axis facing the other box
    axis = best_i
    side_sign = _sign(dot3(column3(ref_R, axis), normal))
    ref_n, ref_c = _face(ref_R, ref_p, ref_half, axis, side_sign, work[1])
    # the incident face: the other box's face most opposed to the reference normal
    inc_axis, most = 0, -1.0
    for k in range(3):
        if abs(dot3(column3(inc_R, k), ref_n)) > most:
            inc_axis, most = k, abs(dot3(column3(inc_R, k), ref_n))
    _face(inc_R, inc_p, inc_half, inc_axis, -_sign(dot3(column3(inc_R, inc_axis), ref_n)),
          work[0])
    count, src, side_number = 4, 0, 4
    for k in range(3):
        if k == axis:
            continue
        side = column3(ref_R, k)
        for s in (1.0, -1.0):
            count = _clip(work[src], count, work[1 - src], scale3(s, side),
                          s * dot3(side, ref_p) + ref_half[k], side_number,
                          CLIP_SLACK * ref_half[k])
            src = 1 - src
            side_number += 1
            if count == 0:
                return 0
    found = 0
    for k in range(count):
        q = (work[src, k, 0], work[src, k, 1], work[src, k, 2])
        gap = dot3(ref_n, sub3(q, ref_c))
        if gap <= margin:
            face = 6 * best_kind + 2 * axis + (1 if side_sign > 0.0 else 0)
            e1, e2 = int(work[src, k, EDGE_IN]), int(work[src, k, EDGE_OUT])
            _write(out, found, best_kind == 0, q, sub3(q, scale3(gap, ref_n)), ref_n, gap,
                   LABELS * face + 8 * min(e1, e2) + max(e1, e2))
            found += 1
    first = add3(scale3(FIRST_DIRECTION[0], column3(ref_R, (axis + 1) % 3)),
                 scale3(FIRST_DIRECTION[1], column3(ref_R, (axis + 2) % 3)))
    return _reduce(out, found, ref_n, first)


@helper
def _point(out, k):
    return (out[k, POINT], out[k, POINT + 1], out[k, POINT + 2])


@helper
def _reduce(out, found, n, direction):
    """Keep PATCH_POINTS of the ``found`` rows of out (module docstring: the first is the
    farthest along ``direction``, in G), in their order; returns how many are kept."""
    if found <= PATCH_POINTS:
        return found
    first = 0
    for k in range(found):
        if dot3(direction, _point(out, k)) > dot3(direction, _point(out, first)):
            first = k
    p0 = _point(out, first)
    far, most = first, -1.0
    for k in range(found):
        d = sub3(_point(out, k), p0)
        if dot3(d, d) > most:
            far, most = k, dot3(d, d)
    line = sub3(_point(out, far), p0)
    left, right, most_left, most_right = -1, -1, 0.0, 0.0
    for k in range(found):
        area = dot3(cross3(line, sub3(_point(out, k), p0)), n)
        if area > most_left:
            left, most_left = k, area
        if area < most_right:
            right, most_right = k, area
    kept = 0
    for k in range(found):
        if k == first or k == far or k == left or k == right:
            for i in range(COLUMNS):
                out[kept, i] = out[k, i]
            kept += 1
    return kept


@numba.njit(cache=True)
def _manifold_kernel(R_a, p_a, half_a, R_b, p_b, half_b, margin, out):
    work = np.empty((2, MAX_POINTS, WORK_COLUMNS))
    return manifold(R_a, p_a, half_a, R_b, p_b, half_b, margin, out, work)


def box_box_manifold(R_a, p_a, half_a, R_b, p_b, half_b, margin: float) -> list:
    """The contact points of boxes A and B (rotations R_GA, R_GB, centres in G, half
    lengths), each (whether the plane is A's, the other box's point (in G), the plane's
    point beneath it, the plane's unit normal toward that point, their separation (m, < 0
    in penetration), the point's name among the pair's); empty where they are farther
    apart than ``margin``."""
    def array(x):
        return np.ascontiguousarray(x, dtype=float)

    out = np.empty((MAX_POINTS, COLUMNS))
    count = _manifold_kernel(array(R_a), array(p_a), array(half_a), array(R_b), array(p_b),
                             array(half_b), float(margin), out)
    return [(bool(row[ON_A]), row[POINT:POINT + 3].copy(), row[BENEATH:BENEATH + 3].copy(),
             row[NORMAL:NORMAL + 3].copy(), float(row[GAP]), int(row[FEATURE]))
            for row in out[:count]]
