"""Compiled GeometryPath kernels: each path's points, wrapping and length (POSITION), its
lengthening speed (VELOCITY) and the forces of its tension (DYNAMICS), as OpenSim 4.6's
GeometryPath computes them (computePath, applyWrapObjects, computeLengtheningSpeed,
produceForces).

A path is laid out by ``geometry_path.path_table`` in constant tables:

- ``path_i`` (paths, P_COLUMNS): per path its first point row and count, its first wrap
  row and count, and where its parts of the State's work buffer begin;
- ``point_i`` (points, PT_COLUMNS): per point in file order its kind, body, coordinates
  and where its floats begin in ``path_f``: a fixed or conditional point's station s_B
  (m, in its body) and the coordinate range where it is active; a moving point's frame F
  on its body (R_BF, p_BF), the range each location function's coordinate is clamped to,
  and the records of its x, y, z location functions (``math/function_table.py``, of one
  argument read from a scratch float);
- ``wrap_rows`` (PathWraps, W_COLUMNS) and ``wrap_i`` (PathWraps, the wrap object's int
  row with this PathWrap's method): the wrap body, the object, the 0-based range of file
  points it may wrap, and where X_BW and the surface's parameters begin in ``path_f``.

The work buffer of a State holds, per path, the file points' activity and stations, the
current path (the active points with the wrap tangent points inserted: for each its
source, body, station in the body and location in Ground), and per PathWrap its kept
state (OpenSim's previous WrapResult), wrap length and tangent points. A current point's
source is its file index k >= 0, or -(1 + 2 w + j) for tangent point j (0: r1, 1: r2) of
the path's PathWrap w.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.forces.elements import _stations  # the module: importing it imports this
from kinetree.jit import helper
from kinetree.math.function_table import evaluate
from kinetree.multibody.kernels.small import add3, cross3, dot3, rotate3, rotate3_transpose, sub3
from kinetree.paths.wrap_object import STATE_RESET
from kinetree.paths.wrapping import INSIDE_RADIUS, MANDATORY_WRAP, NO_WRAP, WRAPPED, wrap_line

P_POINT, P_POINTS, P_WRAP, P_WRAPS, P_HEADER, P_ORIGINAL, P_CURRENT, P_SCRATCH, \
    P_STATE_SIZE, P_RESULT_SIZE = range(10)
P_COLUMNS = 10
"""Columns of ``path_i``: first point row and count; first wrap row and count; the work
offsets of the header [current points, scratch argument, p1 (3), p2 (3)], of the file
points ([active, s_B (3)] each), of the current points (CP_SIZE each) and of the wrap
scratch [order, result, trial state, result, best result, best state]; the sizes of a
PathWrap's kept state and of a wrap result."""

FIXED, CONDITIONAL, MOVING = 0, 1, 2
"""Point kinds: PathPoint, ConditionalPathPoint, MovingPathPoint."""

PT_KIND, PT_BODY, PT_Q, PT_AT, PT_QX, PT_UX, PT_REC = 0, 1, 2, 3, 4, 7, 10
PT_COLUMNS = 13
"""Columns of ``point_i``: kind, body, the q of a conditional point's coordinate, the
offset of its floats in ``path_f``; a moving point's q (3) and u (3) of its x, y, z
coordinates (-1 where a location is constant), the offsets of its three function records
in ``path_f``."""

W_BODY, W_OBJECT, W_START, W_END, W_ACTIVE, W_AT, W_NF, W_BLOCK = range(8)
W_COLUMNS = 8
"""Columns of ``wrap_rows``: the wrap object's body, its index among the model's wrap
objects, the first and last file points the PathWrap may wrap (0-based, inclusive), 1 if
the object is active, the offset in ``path_f`` of X_BW (R_BW by rows, p_BW) followed by
the surface's NF parameters, the work offset of its block [kept state, wrap length,
r1_B (3), r2_B (3)]."""

CP_SOURCE, CP_BODY, CP_STATION, CP_GROUND, CP_SIZE = 0, 1, 2, 5, 8
"""A current point in the work buffer: its source, body, station in the body (m) and
location in Ground (m)."""

ORIGINAL_SIZE = 4
"""A file point in the work buffer: 1.0 if active, and its station s_B (m)."""

MAX_ITERATIONS = 8
"""OpenSim's passes over the wraps of a path with two or more of them."""

CONVERGED = 0.0005
"""The length change (m) under which OpenSim stops iterating the wraps."""

SIGNIFICANT = float(np.finfo(float).eps ** 0.875)
"""SimTK::SignificantReal: under this a segment's ends coincide and its direction is NaN."""

EPS = float(np.finfo(float).eps)


@helper
def _ground(cache, b, s):
    """p_GS (m, in G) of the station s (m, in body b)."""
    return add3((cache.p_GB[b, 0], cache.p_GB[b, 1], cache.p_GB[b, 2]),
                rotate3(cache.R_GB[b], s))


@helper
def _norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@helper
def _moving_station(point_i, path_f, k, q, x):
    """s_B (m) of moving point k: its location functions of their coordinates, each
    clamped to the coordinate's range (OpenSim's MovingPathPoint::getLocation), in F,
    then in its body. ``x`` is a scratch float the records read their argument from."""
    at = point_i[k, PT_AT]
    v0 = v1 = v2 = 0.0
    for j in range(3):
        qj = point_i[k, PT_QX + j]
        x[0] = min(max(q[qj], path_f[at + 12 + j]), path_f[at + 15 + j]) if qj >= 0 else 0.0
        value = evaluate(path_f, point_i[k, PT_REC + j], x)[0]
        if j == 0:
            v0 = value
        elif j == 1:
            v1 = value
        else:
            v2 = value
    R = path_f[at:at + 9]
    return (R[0] * v0 + R[1] * v1 + R[2] * v2 + path_f[at + 9],
            R[3] * v0 + R[4] * v1 + R[5] * v2 + path_f[at + 10],
            R[6] * v0 + R[7] * v1 + R[8] * v2 + path_f[at + 11])


@helper
def _moving_velocity(point_i, path_f, k, q, u, x):
    """The velocity (m/s, in its body) of moving point k relative to its body: each
    location's derivative times its coordinate's speed."""
    at = point_i[k, PT_AT]
    w0 = w1 = w2 = 0.0
    for j in range(3):
        qj = point_i[k, PT_QX + j]
        if qj < 0:
            continue
        x[0] = q[qj]
        rate = evaluate(path_f, point_i[k, PT_REC + j], x)[1] * u[point_i[k, PT_UX + j]]
        if j == 0:
            w0 = rate
        elif j == 1:
            w1 = rate
        else:
            w2 = rate
    R = path_f[at:at + 9]
    return (R[0] * w0 + R[1] * w1 + R[2] * w2,
            R[3] * w0 + R[4] * w1 + R[5] * w2,
            R[6] * w0 + R[7] * w1 + R[8] * w2)


@helper
def _file_points(pi, point_i, path_f, q, work):
    """Each file point's activity and station s_B (m, in its body) into the work buffer
    (a conditional point is active within 1e-5 of its coordinate's range, as OpenSim's
    ConditionalPathPoint::isActive)."""
    x = work[pi[P_HEADER] + 1:pi[P_HEADER] + 2]
    for j in range(pi[P_POINTS]):
        k = pi[P_POINT] + j
        o = pi[P_ORIGINAL] + ORIGINAL_SIZE * j
        kind = point_i[k, PT_KIND]
        at = point_i[k, PT_AT]
        if kind == MOVING:
            s = _moving_station(point_i, path_f, k, q, x)
            work[o + 1], work[o + 2], work[o + 3] = s[0], s[1], s[2]
            work[o] = 1.0
            continue
        work[o + 1], work[o + 2], work[o + 3] = path_f[at], path_f[at + 1], path_f[at + 2]
        active = True
        if kind == CONDITIONAL:
            value = q[point_i[k, PT_Q]]
            active = path_f[at + 3] - 1e-5 <= value <= path_f[at + 4] + 1e-5
        work[o] = 1.0 if active else 0.0


@helper
def _set_current(cache, work, c, source, b, s):
    """Write current point c (a work offset): its source, body, station s (m, in b) and
    location in Ground."""
    work[c + CP_SOURCE] = source
    work[c + CP_BODY] = b
    work[c + CP_STATION], work[c + CP_STATION + 1], work[c + CP_STATION + 2] = s[0], s[1], s[2]
    g = _ground(cache, b, s)
    work[c + CP_GROUND], work[c + CP_GROUND + 1], work[c + CP_GROUND + 2] = g[0], g[1], g[2]


@helper
def _ground_of(work, c):
    return work[c + CP_GROUND], work[c + CP_GROUND + 1], work[c + CP_GROUND + 2]


@helper
def _path_length(pi, wrap_rows, work):
    """The length (m) of the current path: its straight segments, and over a wrap
    surface the wrap length between the two tangent points of one wrap object (OpenSim's
    calcLengthAfterPathComputation)."""
    n = int(work[pi[P_HEADER]])
    length = 0.0
    for i in range(1, n):
        c1 = pi[P_CURRENT] + CP_SIZE * (i - 1)
        c2 = c1 + CP_SIZE
        s1, s2 = work[c1 + CP_SOURCE], work[c2 + CP_SOURCE]
        if s1 < 0.0 and s2 < 0.0:
            w1, w2 = int(-s1 - 1.0) // 2, int(-s2 - 1.0) // 2
            o1 = wrap_rows[pi[P_WRAP] + w1, W_OBJECT]
            o2 = wrap_rows[pi[P_WRAP] + w2, W_OBJECT]
            if o1 == o2:
                if int(-s2 - 1.0) % 2 == 1:  # the second tangent point holds the length
                    length += work[wrap_rows[pi[P_WRAP] + w2, W_BLOCK] + pi[P_STATE_SIZE]]
                continue
        length += _norm(sub3(_ground_of(work, c1), _ground_of(work, c2)))
    return length


@helper
def _remove_wrap_points(pi, work, w):
    """Take PathWrap w's two tangent points out of the current path, if there."""
    n = int(work[pi[P_HEADER]])
    first = -(1.0 + 2.0 * w)
    for i in range(n):
        if work[pi[P_CURRENT] + CP_SIZE * i + CP_SOURCE] == first:
            for m in range(pi[P_CURRENT] + CP_SIZE * i, pi[P_CURRENT] + CP_SIZE * (n - 2)):
                work[m] = work[m + 2 * CP_SIZE]
            work[pi[P_HEADER]] = n - 2
            return


@helper
def _find_current(pi, work, source):
    """The index in the current path of the point of ``source`` (the last one), or -1."""
    found = -1
    for i in range(int(work[pi[P_HEADER]])):
        if work[pi[P_CURRENT] + CP_SIZE * i + CP_SOURCE] == source:
            found = i
    return found


@helper
def _to_wrap_frame(cache, path_f, at, b, g, out):
    """The point g (m, in Ground) in the frame W of the wrap surface on body b, whose
    X_BW begins at path_f[at]."""
    d = sub3(g, (cache.p_GB[b, 0], cache.p_GB[b, 1], cache.p_GB[b, 2]))
    s = sub3(rotate3_transpose(cache.R_GB[b], d),
             (path_f[at + 9], path_f[at + 10], path_f[at + 11]))
    out[0] = path_f[at] * s[0] + path_f[at + 3] * s[1] + path_f[at + 6] * s[2]
    out[1] = path_f[at + 1] * s[0] + path_f[at + 4] * s[1] + path_f[at + 7] * s[2]
    out[2] = path_f[at + 2] * s[0] + path_f[at + 5] * s[1] + path_f[at + 8] * s[2]


@helper
def _from_wrap_frame(path_f, at, r, j):
    """The point r[j:j + 3] (m, in W) in the wrap body's frame."""
    x, y, z = r[j], r[j + 1], r[j + 2]
    return (path_f[at] * x + path_f[at + 1] * y + path_f[at + 2] * z + path_f[at + 9],
            path_f[at + 3] * x + path_f[at + 4] * y + path_f[at + 5] * z + path_f[at + 10],
            path_f[at + 6] * x + path_f[at + 7] * y + path_f[at + 8] * z + path_f[at + 11])


@helper
def _apply_wraps(pi, wrap_rows, wrap_i, path_f, wrap_kinds, cache, work):
    """OpenSim's GeometryPath::applyWrapObjects on the current path: each PathWrap in turn
    (up to MAX_ITERATIONS passes with two or more, until the length changes by less than
    CONVERGED) tries every segment of its range and keeps the mandatory wrap, or else
    the wrap that lengthens the path least, inserting its tangent points; after a first
    pass where the first wrap missed and the second found a point inside its surface,
    the first two swap."""
    nw = pi[P_WRAPS]
    S, R = pi[P_STATE_SIZE], pi[P_RESULT_SIZE]
    order, codes = pi[P_SCRATCH], pi[P_SCRATCH] + nw
    trial = pi[P_SCRATCH] + 2 * nw
    result = trial + S
    best = result + R
    p1 = work[pi[P_HEADER] + 2:pi[P_HEADER] + 5]
    p2 = work[pi[P_HEADER] + 5:pi[P_HEADER] + 8]
    for i in range(nw):
        work[order + i] = i
    iterations = 1 if nw < 2 else MAX_ITERATIONS
    last_length = np.inf
    for kk in range(iterations):
        for i in range(nw):
            work[codes + i] = NO_WRAP
            w = int(work[order + i])
            row = pi[P_WRAP] + w
            wb = wrap_rows[row, W_BODY]
            at = wrap_rows[row, W_AT]
            block = wrap_rows[row, W_BLOCK]
            _remove_wrap_points(pi, work, w)
            if wrap_rows[row, W_ACTIVE] == 0:
                continue
            # the first and last active file points of the range, in the current path
            jfwd = wrap_rows[row, W_START]
            while jfwd <= wrap_rows[row, W_END] and \
                    work[pi[P_ORIGINAL] + ORIGINAL_SIZE * jfwd] == 0.0:
                jfwd += 1
            jrev = wrap_rows[row, W_END]
            while jrev >= wrap_rows[row, W_START] and \
                    work[pi[P_ORIGINAL] + ORIGINAL_SIZE * jrev] == 0.0:
                jrev -= 1
            if jfwd > wrap_rows[row, W_END] or jrev < wrap_rows[row, W_START]:
                return
            start = _find_current(pi, work, float(jfwd))
            end = _find_current(pi, work, float(jrev))
            if start < 0 or end < 0:
                return
            best_end = -1
            least = np.inf
            wi = wrap_i[row]
            wf = path_f[at + 12:at + 12 + wrap_rows[row, W_NF]]
            for pt1 in range(start, end):
                c1 = pi[P_CURRENT] + CP_SIZE * pt1
                c2 = c1 + CP_SIZE
                s1, s2 = work[c1 + CP_SOURCE], work[c2 + CP_SOURCE]
                if s1 < 0.0 and s2 < 0.0 and \
                        wrap_rows[pi[P_WRAP] + int(-s1 - 1.0) // 2, W_OBJECT] == \
                        wrap_rows[pi[P_WRAP] + int(-s2 - 1.0) // 2, W_OBJECT]:
                    continue
                g1, g2 = _ground_of(work, c1), _ground_of(work, c2)
                _to_wrap_frame(cache, path_f, at, wb, g1, p1)
                _to_wrap_frame(cache, path_f, at, wb, g2, p2)
                _copy(work, trial, block, S)
                code = wrap_line(wrap_kinds, wi[0], wi, wf, p1, p2, work[trial:trial + S],
                                 work[result:result + R])
                work[codes + i] = code
                if code != MANDATORY_WRAP and code != WRAPPED:
                    continue
                r1 = _ground(cache, wb, _from_wrap_frame(path_f, at, work, result))
                r2 = _ground(cache, wb, _from_wrap_frame(path_f, at, work, result + 3))
                change = _norm(sub3(g1, r1)) + work[result + 6] + _norm(sub3(g2, r2)) \
                    - _norm(sub3(g1, g2))
                if code == MANDATORY_WRAP or change < least:
                    # the PathWrap keeps it at once: later segments read it
                    _copy(work, best, result, R)
                    _copy(work, block, trial, S)
                    best_end = pt1 + 1
                    least = change
                if code == MANDATORY_WRAP:
                    break
            if best_end < 0:
                _reset_kept(work, block, S)
                continue
            work[block + S] = work[best + 6]
            r1_B = _from_wrap_frame(path_f, at, work, best)
            r2_B = _from_wrap_frame(path_f, at, work, best + 3)
            for m in range(3):
                work[block + S + 1 + m] = r1_B[m]
                work[block + S + 4 + m] = r2_B[m]
            n = int(work[pi[P_HEADER]])
            base = pi[P_CURRENT]
            for m in range(base + CP_SIZE * (n + 2) - 1, base + CP_SIZE * (best_end + 2) - 1,
                           -1):
                work[m] = work[m - 2 * CP_SIZE]
            _set_current(cache, work, base + CP_SIZE * best_end, -(1.0 + 2.0 * w), wb, r1_B)
            _set_current(cache, work, base + CP_SIZE * (best_end + 1), -(2.0 + 2.0 * w), wb,
                         r2_B)
            work[pi[P_HEADER]] = n + 2
        length = _path_length(pi, wrap_rows, work)
        if abs(length - last_length) < CONVERGED:
            break
        last_length = length
        if kk == 0 and nw > 1 and work[codes] == NO_WRAP and work[codes + 1] == INSIDE_RADIUS:
            work[order] = 1
            work[order + 1] = 0
            _remove_wrap_points(pi, work, 0)


@helper
def _copy(work, to, start, n):
    """work[to:to + n] = work[start:start + n], the ranges apart (no allocation)."""
    for m in range(n):
        work[to + m] = work[start + m]


@helper
def _reset_kept(work, block, S):
    """The kept state of a PathWrap that found no wrap: OpenSim's resetPreviousWrap, which
    sets the previous tangent points r1, r2 and sv (the state's first STATE_RESET floats)
    to -infinity and leaves c1."""
    for m in range(min(STATE_RESET, S)):
        work[block + m] = -np.inf


@helper
def path_positions(path_i, point_i, wrap_rows, wrap_i, path_f, wrap_kinds, cache, q, work,
                   lengths):
    """At POSITION: each path's current points (its active file points with the wrap
    tangent points inserted) into ``work``, and its length (m) into ``lengths``.
    ``cache`` the tree cache (R_GB, p_GB), ``q`` the State's q, ``wrap_kinds`` the
    Kinds of the wrap surfaces."""
    for p in range(path_i.shape[0]):
        pi = path_i[p]
        _file_points(pi, point_i, path_f, q, work)
        n = 0
        for j in range(pi[P_POINTS]):
            o = pi[P_ORIGINAL] + ORIGINAL_SIZE * j
            if work[o] != 0.0:
                _set_current(cache, work, pi[P_CURRENT] + CP_SIZE * n, float(j),
                             point_i[pi[P_POINT] + j, PT_BODY],
                             (work[o + 1], work[o + 2], work[o + 3]))
                n += 1
        work[pi[P_HEADER]] = n
        if pi[P_WRAPS] > 0:
            _apply_wraps(pi, wrap_rows, wrap_i, path_f, wrap_kinds, cache, work)
        lengths[p] = _path_length(pi, wrap_rows, work)


@helper
def _current_velocity(pi, point_i, path_f, cache, q, u, work, c):
    """v_GS (m/s, in G) of the current point at work offset c: moving with its body, and a
    moving point also along its location functions."""
    b = int(work[c + CP_BODY])
    r = rotate3(cache.R_GB[b], (work[c + CP_STATION], work[c + CP_STATION + 1],
                                work[c + CP_STATION + 2]))
    V = cache.V_GB[b]
    v = add3((V[3], V[4], V[5]), cross3((V[0], V[1], V[2]), r))
    source = work[c + CP_SOURCE]
    if source >= 0.0:
        k = pi[P_POINT] + int(source)
        if point_i[k, PT_KIND] == MOVING:
            x = work[pi[P_HEADER] + 1:pi[P_HEADER] + 2]
            v = add3(v, rotate3(cache.R_GB[b], _moving_velocity(point_i, path_f, k, q, u, x)))
    return v


@helper
def path_speeds(path_i, point_i, path_f, cache, q, u, work, speeds):
    """At VELOCITY, after ``path_positions``: each path's lengthening speed (m/s) into
    ``speeds``, the sum over its current segments of the rate of change of their lengths
    (OpenSim's computeLengtheningSpeed; tangent points move with the wrap body)."""
    for p in range(path_i.shape[0]):
        pi = path_i[p]
        speed = 0.0
        for i in range(int(work[pi[P_HEADER]]) - 1):
            c1 = pi[P_CURRENT] + CP_SIZE * i
            c2 = c1 + CP_SIZE
            r = sub3(_ground_of(work, c1), _ground_of(work, c2))
            v = sub3(_current_velocity(pi, point_i, path_f, cache, q, u, work, c1),
                     _current_velocity(pi, point_i, path_f, cache, q, u, work, c2))
            d = _norm(r)
            speed += _norm(v) if d < EPS else dot3(v, r) / d
        speeds[p] = speed


@helper
def _add_point_force(cache, work, c, f, body_forces):
    """Apply f (N, in G) at the current point at work offset c, on its body."""
    b = int(work[c + CP_BODY])
    r = rotate3(cache.R_GB[b], (work[c + CP_STATION], work[c + CP_STATION + 1],
                                work[c + CP_STATION + 2]))
    _stations.add_station_force(body_forces, b, r, f)


@helper
def _moving_generalized_force(pi, point_i, path_f, cache, q, work, c, f, mobility_forces):
    """If the current point at c is a moving point: the work of the force f (N, in G) on
    it along each location function, onto that function's coordinate's mobility. (OpenSim
    puts all three onto the x coordinate, the same one in its models.)"""
    source = work[c + CP_SOURCE]
    if source < 0.0:
        return
    k = pi[P_POINT] + int(source)
    if point_i[k, PT_KIND] != MOVING:
        return
    x = work[pi[P_HEADER] + 1:pi[P_HEADER] + 2]
    R_GB = cache.R_GB[int(work[c + CP_BODY])]
    # f in F: R_BFᵀ R_GBᵀ f
    f_B = rotate3_transpose(R_GB, f)
    at = point_i[k, PT_AT]
    for j in range(3):
        qj = point_i[k, PT_QX + j]
        if qj < 0:
            continue
        x[0] = q[qj]
        slope = evaluate(path_f, point_i[k, PT_REC + j], x)[1]
        f_j = path_f[at + j] * f_B[0] + path_f[at + 3 + j] * f_B[1] + path_f[at + 6 + j] * f_B[2]
        mobility_forces[point_i[k, PT_UX + j]] += slope * f_j


@helper
def path_forces(path_i, point_i, path_f, cache, q, work, tensions, body_forces,
                mobility_forces):
    """At DYNAMICS, after ``path_positions``: the forces of each path's tension
    ``tensions[p]`` (N, pulling its ends together) added into ``body_forces`` (nb x 6,
    [torque; force] about each body origin, in G) and, for moving points, into
    ``mobility_forces`` (per u), as OpenSim's GeometryPath::produceForces: at each point
    the tension along the segments to its neighbours on other bodies."""
    for p in range(path_i.shape[0]):
        pi = path_i[p]
        tension = tensions[p]
        n = int(work[pi[P_HEADER]])
        previous_valid = False
        pd = (0.0, 0.0, 0.0)
        for i in range(n):
            c = pi[P_CURRENT] + CP_SIZE * i
            b = work[c + CP_BODY]
            f = (0.0, 0.0, 0.0)
            if previous_valid:
                f = (-tension * pd[0], -tension * pd[1], -tension * pd[2])
            previous_valid = False
            if i < n - 1 and work[c + CP_SIZE + CP_BODY] != b:
                cn = c + CP_SIZE
                d = sub3(_ground_of(work, cn), _ground_of(work, c))
                length = _norm(d)
                if length < SIGNIFICANT:
                    d = (np.nan, np.nan, np.nan)
                else:
                    d = (d[0] / length, d[1] / length, d[2] / length)
                forward = (tension * d[0], tension * d[1], tension * d[2])
                f = add3(f, forward)
                _moving_generalized_force(pi, point_i, path_f, cache, q, work, c, forward,
                                          mobility_forces)
                _moving_generalized_force(pi, point_i, path_f, cache, q, work, cn,
                                          (-forward[0], -forward[1], -forward[2]),
                                          mobility_forces)
                previous_valid = True
                pd = d
            if f[0] != 0.0 or f[1] != 0.0 or f[2] != 0.0:
                _add_point_force(cache, work, c, f, body_forces)
