"""Compiled cable path solver, forces and lengthening speed (Simbody's CableSpan).

A cable runs from its origin point through its via points to its termination point; the
via points split it into cable segments, each a sub-problem over the obstacles between two
fixed points. Over an obstacle the path is a geodesic with four natural corrections
(Scholz2015): move its first point P along the tangent and along the binormal, turn its
tangent, change its length. The solver drives the misalignment between the straight
lines and the geodesics' ends to zero by Newton steps on those corrections, either
Scholz2015's least squares or Simbody's MinimumLength (a constrained minimization of the
cable length that avoids the longest-path solutions), touching down on and lifting off
the obstacles as it goes, starting from the geodesics of the previous solution.

The arrays of one cable, m obstacles, k via points:

* ``kinds`` (m,) int64 and ``prm`` (m, 3): the surfaces (``surfaces``);
* ``X_GS`` (m, 3, 4): each surface frame in Ground, [R_GS | p_GS];
* ``geo`` (m, NG): each obstacle's geodesic record in S, updated in place (the warm start);
* ``hints`` (m, 3): contact point hints in S (nan where none);
* ``points`` (k + 2, 3): origin, via points and termination in Ground (m);
* ``seg_first`` (k + 2,): segment j holds obstacles seg_first[j] .. seg_first[j+1] - 1;
* ``settings`` (5,): geodesic accuracy, smoothness tolerance (rad), maximum iterations,
  algorithm (MINIMUM_LENGTH 0, SCHOLZ2015 1), maximum angular step (rad);
* ``result`` (3 + 6 (k + 1),): length (m), smoothness (rad), iterations, then for each
  segment the unit directions (Ground) of its first and last straight line.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.cables.surfaces import (
    CURV_P,
    CURV_Q,
    IN_CONTACT,
    INITIAL_GUESS,
    JACOBI,
    LENGTH,
    LIFTED,
    P_B,
    P_N,
    P_POINT,
    P_T,
    Q_B,
    Q_N,
    Q_POINT,
    Q_T,
    STATUS,
    TRACK,
    add,
    cross,
    dot,
    nearest_point_on_line,
    put,
    shoot_geodesic,
    unit,
    vec,
)
from kinetree.jit import helper
from kinetree.multibody.kernels.small import rotate3

MINIMUM_LENGTH, SCHOLZ2015 = 0, 1
RESULT_HEAD = 3


@helper
def to_ground(X, v):
    """The station v of S in Ground: R v + p for X_GS = [R | p] (3 x 4)."""
    r = rotate3(X, v)
    return (r[0] + X[0, 3], r[1] + X[1, 3], r[2] + X[2, 3])


@helper
def from_ground(X, v):
    """The Ground point v in S: Rᵀ (v - p)."""
    d = (v[0] - X[0, 3], v[1] - X[1, 3], v[2] - X[2, 3])
    return (X[0, 0] * d[0] + X[1, 0] * d[1] + X[2, 0] * d[2],
            X[0, 1] * d[0] + X[1, 1] * d[1] + X[2, 1] * d[2],
            X[0, 2] * d[0] + X[1, 2] * d[1] + X[2, 2] * d[2])


@helper
def in_contact(geo, i):
    s = geo[i, STATUS]
    return s == IN_CONTACT or s == INITIAL_GUESS


@helper
def _prev_point(geo, X_GS, points, first, seg, i):
    for j in range(i - 1, first - 1, -1):
        if in_contact(geo, j):
            return to_ground(X_GS[j], vec(geo[j], Q_POINT))
    return vec(points[seg], 0)


@helper
def _next_point(geo, X_GS, points, last, seg, i):
    for j in range(i + 1, last):
        if in_contact(geo, j):
            return to_ground(X_GS[j], vec(geo[j], P_POINT))
    return vec(points[seg + 1], 0)


@helper
def _update_status(kinds, prm, X_GS, geo, hints, points, first, last, seg, i, accuracy):
    """Simbody's per-iteration wrapping update of obstacle i: initialize from the hint,
    lift off a zero-length geodesic whose neighbours both lie above its tangent plane, or
    touch down where the straight line through the neighbours dips into the surface."""
    row = geo[i]
    status = row[STATUS]
    if status == IN_CONTACT and row[LENGTH] > 0.0:
        return
    X = X_GS[i]
    prev_S = from_ground(X, _prev_point(geo, X_GS, points, first, seg, i))
    next_S = from_ground(X, _next_point(geo, X_GS, points, last, seg, i))
    if status == INITIAL_GUESS:
        hint = vec(hints[i], 0)
        if math.isnan(hint[0]):
            row[STATUS] = LIFTED
            put(row, TRACK, (0.0, 0.0, 0.0))
        else:
            shoot_geodesic(kinds[i], prm[i], hint, add(next_S, prev_S, -1.0), 0.0,
                           accuracy, row)
    elif status == IN_CONTACT:
        p = vec(row, P_POINT)
        n = vec(row, P_N)
        if dot(add(prev_S, p, -1.0), n) > 0.0 and dot(add(next_S, p, -1.0), n) > 0.0:
            row[STATUS] = LIFTED
            put(row, TRACK, p)
    elif status == LIFTED:
        x, below = nearest_point_on_line(kinds[i], prm[i], prev_S, next_S, vec(row, TRACK),
                                         50, 1e-9)
        if below:
            shoot_geodesic(kinds[i], prm[i], x, add(next_S, prev_S, -1.0), 0.0, accuracy,
                           row)
        else:
            put(row, TRACK, x)


@helper
def _variations(X, row, vP, wP, vQ, wQ):
    """The variations (Ground) of the Frenet frames at P and Q with the four natural
    corrections: columns of v are dx/dq, of w the rotation vectors."""
    t, n, b = rotate3(X, vec(row, P_T)), rotate3(X, vec(row, P_N)), rotate3(X, vec(row, P_B))
    kt, kb, tau = row[CURV_P], row[CURV_P + 1], row[CURV_P + 2]
    for r in range(3):
        vP[r, 0], vP[r, 1], vP[r, 2], vP[r, 3] = t[r], b[r], 0.0, 0.0
        wP[r, 0] = tau * t[r] + kt * b[r]
        wP[r, 1] = -kb * t[r] - tau * b[r]
        wP[r, 2] = -n[r]
        wP[r, 3] = 0.0
    t, n, b = rotate3(X, vec(row, Q_T)), rotate3(X, vec(row, Q_N)), rotate3(X, vec(row, Q_B))
    kt, kb, tau = row[CURV_Q], row[CURV_Q + 1], row[CURV_Q + 2]
    a, ad, rj, rd = row[JACOBI], row[JACOBI + 1], row[JACOBI + 2], row[JACOBI + 3]
    for r in range(3):
        vQ[r, 0], vQ[r, 1], vQ[r, 2], vQ[r, 3] = t[r], a * b[r], rj * b[r], t[r]
        wQ[r, 0] = tau * t[r] + kt * b[r]
        wQ[r, 1] = -a * kb * t[r] - ad * n[r] - a * tau * b[r]
        wQ[r, 2] = -rj * kb * t[r] - rd * n[r] - rj * tau * b[r]
        wQ[r, 3] = wQ[r, 0]


@helper
def _add_block(M, row, col, v, d1, w, d2):
    """M[row, col:col+4] += vᵀ d1 + wᵀ d2 (v, w 3x4)."""
    for c in range(4):
        M[row, col + c] += (v[0, c] * d1[0] + v[1, c] * d1[1] + v[2, c] * d1[2]
                            + w[0, c] * d2[0] + w[1, c] * d2[1] + w[2, c] * d2[2])


@helper
def _axis(X, row, at):
    return rotate3(X, vec(row, at))


@helper
def _path_errors(X_GS, geo, act, na, dirs, lens, V, binormal, J, err):
    """Path errors (Scholz2015 eq 14) and their Jacobian (eq 53) for the normal axis, and
    the binormal too when ``binormal``: rows per obstacle P·n, [P·b], Q·n, [Q·b]."""
    nax = 2 if binormal else 1
    J[:, :] = 0.0
    row = 0
    zero = (0.0, 0.0, 0.0)
    for k in range(na):
        i = act[k]
        X = X_GS[i]
        vP, wP, vQ, wQ = V[k, 0], V[k, 1], V[k, 2], V[k, 3]
        e = vec(dirs[k], 0)
        for ax in range(nax):
            a = _axis(X, geo[i], P_N if ax == 0 else P_B)
            err[row] = dot(e, a)
            ea = dot(e, a)
            dv = ((a[0] - e[0] * ea) / lens[k], (a[1] - e[1] * ea) / lens[k],
                  (a[2] - e[2] * ea) / lens[k])
            _add_block(J, row, 4 * k, vP, dv, wP, cross(a, e))
            if k > 0:
                _add_block(J, row, 4 * (k - 1), V[k - 1, 2], (-dv[0], -dv[1], -dv[2]),
                           V[k - 1, 3], zero)
            row += 1
        e = vec(dirs[k + 1], 0)
        for ax in range(nax):
            a = _axis(X, geo[i], Q_N if ax == 0 else Q_B)
            err[row] = dot(e, a)
            ea = dot(e, a)
            dv = (-(a[0] - e[0] * ea) / lens[k + 1], -(a[1] - e[1] * ea) / lens[k + 1],
                  -(a[2] - e[2] * ea) / lens[k + 1])
            _add_block(J, row, 4 * k, vQ, dv, wQ, cross(a, e))
            if k + 1 < na:
                _add_block(J, row, 4 * (k + 1), V[k + 1, 0], (-dv[0], -dv[1], -dv[2]),
                           V[k + 1, 1], zero)
            row += 1


@helper
def _length_gradient_and_hessian(X_GS, geo, act, na, dirs, lens, V, g, H):
    """Gradient and Hessian (Simbody's estimate) of the cable segment's length with the
    natural corrections of its obstacles in contact."""
    g[:] = 0.0
    H[:, :] = 0.0
    E = np.empty((3, 3))
    S = np.empty((3, 3))
    for k in range(na):
        i = act[k]
        vP, wP, vQ, wQ = V[k, 0], V[k, 1], V[k, 2], V[k, 3]
        eP, eQ = vec(dirs[k], 0), vec(dirs[k + 1], 0)
        for c in range(4):
            g[4 * k + c] = (vP[0, c] * eP[0] + vP[1, c] * eP[1] + vP[2, c] * eP[2]
                            - vQ[0, c] * eQ[0] - vQ[1, c] * eQ[1] - vQ[2, c] * eQ[2])
        g[4 * k + 3] += 1.0
        for side in range(2):
            e = eP if side == 0 else eQ
            length = lens[k + side]
            for r in range(3):
                for c in range(3):
                    E[r, c] = ((1.0 if r == c else 0.0) - e[r] * e[c]) / length
            S[0, 0], S[0, 1], S[0, 2] = 0.0, -e[2], e[1]
            S[1, 0], S[1, 1], S[1, 2] = e[2], 0.0, -e[0]
            S[2, 0], S[2, 1], S[2, 2] = -e[1], e[0], 0.0
            v = vP if side == 0 else vQ
            w = wP if side == 0 else wQ
            sign = 1.0 if side == 0 else -1.0
            other = k - 1 if side == 0 else k + 1
            for r in range(4):
                for c in range(4):
                    s = 0.0
                    for p in range(3):
                        for q in range(3):
                            s += v[p, r] * (E[p, q] * v[q, c] + sign * S[p, q] * w[q, c])
                    H[4 * k + r, 4 * k + c] += s
                    if 0 <= other < na:
                        vo = V[other, 2] if side == 0 else V[other, 0]
                        s = 0.0
                        for p in range(3):
                            for q in range(3):
                                s += v[p, r] * E[p, q] * vo[q, c]
                        H[4 * k + r, 4 * other + c] -= s
            if side == 1:
                # the Jacobi scalars' own variation, known along the first and last
                # correction only, weighted by e·b which vanishes at the optimum
                eb = dot(e, _axis(X_GS[i], geo[i], Q_B))
                ad, rd = geo[i, JACOBI + 1], geo[i, JACOBI + 3]
                for c in (0, 3):
                    H[4 * k + 1, 4 * k + c] -= eb * ad
                    H[4 * k + 2, 4 * k + c] -= eb * rd


@helper
def _lines(X_GS, geo, act, na, start, end, dirs, lens):
    p = start
    for k in range(na + 1):
        if k < na:
            q = to_ground(X_GS[act[k]], vec(geo[act[k]], P_POINT))
        else:
            q = end
        d = add(q, p, -1.0)
        lens[k] = math.sqrt(dot(d, d))
        put(dirs[k], 0, (d[0] / lens[k], d[1] / lens[k], d[2] / lens[k]))
        if k < na:
            p = to_ground(X_GS[act[k]], vec(geo[act[k]], Q_POINT))


@helper
def _correct(kinds, prm, geo, i, c0, c1, c2, c3, accuracy):
    """Apply a natural correction to obstacle i's geodesic and shoot it again; a length
    that would turn negative is clamped to zero, half the excess moving P."""
    row = geo[i]
    length = row[LENGTH] + c3
    if length < 0.0:
        c0 += 0.5 * length
        length = 0.0
    t, n, b = vec(row, P_T), vec(row, P_N), vec(row, P_B)
    point = add(add(vec(row, P_POINT), t, c0), b, c1)
    s = row[CURV_P] * c0 - row[CURV_P + 2] * c1
    w = (s * b[0] - c2 * n[0], s * b[1] - c2 * n[1], s * b[2] - c2 * n[2])
    tangent = add(t, cross(w, t), 1.0)
    shoot_geodesic(kinds[i], prm[i], point, tangent, length, accuracy, row)


@helper
def _solver_step(algorithm, na, en, max_error, V, X_GS, geo, act, dirs, lens, q):
    """The path correction q (4 na) of one iteration, not yet limited in size."""
    if algorithm == SCHOLZ2015:
        A = np.zeros((5 * na, 4 * na))
        b = np.zeros(5 * na)
        _path_errors(X_GS, geo, act, na, dirs, lens, V, True, A[:4 * na], b[:4 * na])
        for k in range(na):
            A[4 * na + k, 4 * k + 3] = max_error
        sol = np.linalg.lstsq(A, b)[0]
        for r in range(4 * na):
            q[r] = -sol[r]
        return
    J = np.zeros((2 * na, 4 * na))
    _path_errors(X_GS, geo, act, na, dirs, lens, V, False, J, en)
    g = np.zeros(4 * na)
    H = np.zeros((4 * na, 4 * na))
    _length_gradient_and_hessian(X_GS, geo, act, na, dirs, lens, V, g, H)
    values, vectors = np.linalg.eigh(0.5 * (H + H.T))
    Qinv = (vectors / (np.abs(values) + max_error)) @ vectors.T
    QJt = Qinv @ J.T
    lam = np.linalg.lstsq(J @ QJt, en - J @ (Qinv @ g))[0]
    step = Qinv @ g + QJt @ lam
    for r in range(4 * na):
        q[r] = -0.5 * step[r]


@helper
def _step_limit(V, na, q, max_angle):
    """The factor (<= 1) that keeps each corrected frame's rotation within max_angle
    (rad), by Simbody's estimate: the largest |w| of a correction's column times the
    signed correction, so that, as in Simbody's calcCurveCorrectionStepSize, only
    corrections of positive sign limit the step (counting |q| instead takes more
    iterations than Simbody from a cold start: 40 instead of 34 on the first pose of
    testAllSurfaceKinds)."""
    factor = 1.0
    for k in range(na):
        worst = 0.0
        for m in (1, 3):
            w = V[k, m]
            for c in range(4):
                big = max(abs(w[0, c]), max(abs(w[1, c]), abs(w[2, c])))
                worst = max(worst, big * q[4 * k + c])
        if worst > max_angle:
            factor = min(factor, max_angle / worst)
    return factor


@helper
def solve_segment(kinds, prm, X_GS, geo, hints, points, first, last, seg, settings, result):
    """Solve cable segment ``seg`` (obstacles first .. last - 1, between points seg and
    seg + 1); add its length to result[0], raise result[1] to its smoothness, add its
    iterations to result[2] and write its end directions."""
    accuracy, tolerance = settings[0], settings[1]
    max_iterations, algorithm, max_angle = int(settings[2]), int(settings[3]), settings[4]
    m = last - first
    act = np.empty(max(m, 1), np.int64)
    dirs = np.empty((m + 1, 3))
    lens = np.empty(m + 1)
    V = np.empty((max(m, 1), 4, 3, 4))
    en = np.empty(2 * m)
    q = np.empty(4 * m)
    start, end = vec(points[seg], 0), vec(points[seg + 1], 0)
    iteration = 0
    max_error = 0.0
    na = 0
    while True:
        for i in range(first, last):
            _update_status(kinds, prm, X_GS, geo, hints, points, first, last, seg, i,
                           accuracy)
        na = 0
        for i in range(first, last):
            if in_contact(geo, i):
                act[na] = i
                _variations(X_GS[i], geo[i], V[na, 0], V[na, 1], V[na, 2], V[na, 3])
                na += 1
        _lines(X_GS, geo, act, na, start, end, dirs, lens)
        max_error = 0.0
        for k in range(na):
            i = act[k]
            for side in range(2):
                e = vec(dirs[k + side], 0)
                X = X_GS[i]
                ns = abs(dot(e, _axis(X, geo[i], P_N if side == 0 else Q_N)))
                bs = abs(dot(e, _axis(X, geo[i], P_B if side == 0 else Q_B)))
                max_error = max(max_error, max(ns, bs))
        if max_error <= tolerance or iteration >= max_iterations:
            break
        _solver_step(algorithm, na, en[:2 * na], max_error, V, X_GS, geo,
                     act, dirs, lens, q[:4 * na])
        factor = _step_limit(V, na, q, max_angle)
        for k in range(na):
            _correct(kinds, prm, geo, act[k], factor * q[4 * k], factor * q[4 * k + 1],
                     factor * q[4 * k + 2], factor * q[4 * k + 3], accuracy)
        iteration += 1
    length = 0.0
    for k in range(na + 1):
        length += lens[k]
    for k in range(na):
        length += geo[act[k], LENGTH]
    result[0] += length
    result[1] = max(result[1], max_error)
    result[2] += iteration
    at = RESULT_HEAD + 6 * seg
    put(result, at, vec(dirs[0], 0))
    put(result, at + 3, vec(dirs[na], 0))


@helper(forceinline=False)
def solve_cable(kinds, prm, X_GS, geo, hints, points, seg_first, settings, result):
    """Solve every cable segment of one cable (arrays as in the module docstring)."""
    result[:] = 0.0
    for seg in range(seg_first.shape[0] - 1):
        solve_segment(kinds, prm, X_GS, geo, hints, points, seg_first[seg],
                      seg_first[seg + 1], seg, settings, result)


@helper
def _apply(body_forces, p_GB, body, point, f):
    """Add force f (N, Ground) acting at ``point`` (Ground) to ``body``'s spatial force
    about its origin."""
    r = add(point, vec(p_GB[body], 0), -1.0)
    m = cross(r, f)
    for c in range(3):
        body_forces[body, c] += m[c]
        body_forces[body, 3 + c] += f[c]


@helper
def _power(V_GB, p_GB, body, point, f):
    """f · (velocity of the body's material point at ``point``)."""
    r = add(point, vec(p_GB[body], 0), -1.0)
    w = vec(V_GB[body], 0)
    v = add(vec(V_GB[body], 3), cross(w, r), 1.0)
    return dot(f, v)


@helper(forceinline=False)
def cable_forces(X_GS, geo, obstacle_body, points, point_body, seg_first, result,
                 p_GB, V_GB, tension, body_forces):
    """Apply the forces of a cable of ``tension`` (N) to the bodies: pulling the origin
    and termination along the cable, each via point and obstacle in contact by the
    difference of its outgoing and incoming directions. Forces go into ``body_forces``
    (nb, 6) [moment about the body origin; force], in Ground, unless it is empty; the
    return is their power (W) with the body velocities V_GB (nb, 6)."""
    apply = body_forces.shape[0] > 0
    power = 0.0
    nseg = seg_first.shape[0] - 1
    for seg in range(nseg):
        at = RESULT_HEAD + 6 * seg
        d_out = vec(result, at)
        p = vec(points[seg], 0)
        if seg == 0:
            f = (tension * d_out[0], tension * d_out[1], tension * d_out[2])
        else:
            prev = vec(result, at - 3)
            f = (tension * (d_out[0] - prev[0]), tension * (d_out[1] - prev[1]),
                 tension * (d_out[2] - prev[2]))
        if apply:
            _apply(body_forces, p_GB, point_body[seg], p, f)
        power += _power(V_GB, p_GB, point_body[seg], p, f)
        for i in range(seg_first[seg], seg_first[seg + 1]):
            if not in_contact(geo, i):
                continue
            X = X_GS[i]
            tP = rotate3(X, vec(geo[i], P_T))
            tQ = rotate3(X, vec(geo[i], Q_T))
            xP = to_ground(X, vec(geo[i], P_POINT))
            xQ = to_ground(X, vec(geo[i], Q_POINT))
            fP = (-tension * tP[0], -tension * tP[1], -tension * tP[2])
            fQ = (tension * tQ[0], tension * tQ[1], tension * tQ[2])
            b = obstacle_body[i]
            if apply:
                _apply(body_forces, p_GB, b, xP, fP)
                _apply(body_forces, p_GB, b, xQ, fQ)
            power += _power(V_GB, p_GB, b, xP, fP) + _power(V_GB, p_GB, b, xQ, fQ)
    last = vec(result, RESULT_HEAD + 6 * (nseg - 1) + 3)
    f = (-tension * last[0], -tension * last[1], -tension * last[2])
    if apply:
        _apply(body_forces, p_GB, point_body[nseg], vec(points[nseg], 0), f)
    power += _power(V_GB, p_GB, point_body[nseg], vec(points[nseg], 0), f)
    return power


@helper(forceinline=False)
def cable_length_dot(X_GS, geo, obstacle_body, points, point_body, seg_first, p_GB, V_GB):
    """The cable's lengthening speed (m/s): the sum over its straight lines of the
    relative velocity of their ends along them, each end moving with its body (the
    geodesics' own contributions cancel at the solved path, Scholz2015)."""
    nseg = seg_first.shape[0] - 1
    x0 = vec(points[0], 0)
    v0 = _station_velocity(V_GB, p_GB, point_body[0], x0)
    rate = 0.0
    for seg in range(nseg):
        for i in range(seg_first[seg], seg_first[seg + 1]):
            if not in_contact(geo, i):
                continue
            X = X_GS[i]
            x1 = to_ground(X, vec(geo[i], P_POINT))
            v1 = _station_velocity(V_GB, p_GB, obstacle_body[i], x1)
            rate += dot(unit(add(x1, x0, -1.0)), add(v1, v0, -1.0))
            x0 = to_ground(X, vec(geo[i], Q_POINT))
            v0 = _station_velocity(V_GB, p_GB, obstacle_body[i], x0)
        x1 = vec(points[seg + 1], 0)
        v1 = _station_velocity(V_GB, p_GB, point_body[seg + 1], x1)
        rate += dot(unit(add(x1, x0, -1.0)), add(v1, v0, -1.0))
        x0, v0 = x1, v1
    return rate


@helper
def _station_velocity(V_GB, p_GB, body, point):
    r = add(point, vec(p_GB[body], 0), -1.0)
    return add(vec(V_GB[body], 3), cross(vec(V_GB[body], 0), r), 1.0)
