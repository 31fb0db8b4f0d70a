"""The contact manifold of two boxes: the points where one box's face (or edge) meets the
other, for rigid contact, so that a box standing on another rests on a patch of up to
eight points rather than on one.

The separating-axis test over the boxes' face normals and edge cross products finds the
axis of least penetration (or of greatest separation). On a face axis, the face of the
other box most opposed to it (the incident face) is clipped against the side planes of
that face (the reference face), and each of the clipped corners below the reference
plane, or within ``margin`` above it, is a contact point. On an edge axis the two edges'
nearest points are one contact. A small bias prefers face axes, so that stacked boxes keep
their face patches when an edge axis ties.
"""

from __future__ import annotations

import numpy as np

FACE_BIAS = 1e-9
"""How much deeper (m) an edge axis must be than the best face axis to be chosen."""


def _support_radius(R: np.ndarray, half: np.ndarray, n: np.ndarray) -> float:
    """The box's extent from its centre along the unit n."""
    return float(np.sum(np.abs(R.T @ n) * half))


def _clip(polygon: list, normal: np.ndarray, offset: float) -> list:
    """The part of ``polygon`` (points in G) where normal·p ≤ offset (Sutherland-Hodgman)."""
    out = []
    for k, p in enumerate(polygon):
        q = polygon[(k + 1) % len(polygon)]
        dp, dq = normal @ p - offset, normal @ q - offset
        if dp <= 0.0:
            out.append(p)
        if dp * dq < 0.0:
            out.append(p + (q - p) * (dp / (dp - dq)))
    return out


def _face(R: np.ndarray, p: np.ndarray, half: np.ndarray, axis: int, sign: float):
    """(the face's four corners in G, counter-clockwise from outside; its outward unit
    normal; its centre) of the box's face on ``axis`` at ``sign``."""
    u, v = (axis + 1) % 3, (axis + 2) % 3
    n = sign * R[:, axis]
    c = p + n * half[axis]
    du, dv = R[:, u] * half[u], R[:, v] * half[v]
    corners = [c + du + dv, c - du + dv, c - du - dv, c + du - dv]
    if sign < 0:
        corners = corners[::-1]
    return corners, n, c


def _segments(p1, d1, p2, d2):
    """The nearest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]."""
    r = p1 - p2
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    b, c = d1 @ d2, d1 @ r
    den = a * e - b * b
    s = np.clip((b * f - c * e) / den, 0.0, 1.0) if den > 1e-14 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0 or t > 1.0:
        t = float(np.clip(t, 0.0, 1.0))
        s = float(np.clip((b * t - c) / a, 0.0, 1.0))
    return p1 + s * d1, p2 + t * d2


def box_box_manifold(R_a, p_a, half_a, R_b, p_b, half_b, margin: float) -> list:
    """The contact points of boxes A and B (rotations R_GA, R_GB, centres in G, half
    lengths), each (whether the plane is A's, the other box's point (in G), the plane's
    point beneath it, the plane's unit normal toward that point, their separation (m, < 0
    in penetration)); empty where they are farther apart than ``margin``."""
    d = p_b - p_a
    best, best_axis = -np.inf, None
    candidates = [("a", i, R_a[:, i]) for i in range(3)] + \
        [("b", i, R_b[:, i]) for i in range(3)]
    for i in range(3):
        for j in range(3):
            n = np.cross(R_a[:, i], R_b[:, j])
            size = np.linalg.norm(n)
            if size > 1e-9:
                candidates.append(("edge", (i, j), n / size))
    for kind, which, n in candidates:
        if d @ n < 0.0:
            n = -n
        separation = float(d @ n) - _support_radius(R_a, half_a, n) \
            - _support_radius(R_b, half_b, n)
        if kind == "edge":
            separation -= FACE_BIAS
        if separation > best:
            best, best_axis = separation, (kind, which, n)
    if best > margin:
        return []
    kind, which, n = best_axis
    if kind == "edge":
        i, j = which
        # each box's edge along its axis, the corner nearest the other box
        ca = p_a + R_a @ (np.sign(R_a.T @ n) * half_a * (np.arange(3) != i))
        cb = p_b + R_b @ (-np.sign(R_b.T @ n) * half_b * (np.arange(3) != j))
        ea, eb = R_a[:, i] * half_a[i], R_b[:, j] * half_b[j]
        qa, qb = _segments(ca - ea, 2 * ea, cb - eb, 2 * eb)
        return [(True, qb, qa, n, float(n @ (qb - qa)))]
    if kind == "a":
        ref_R, ref_p, ref_half, inc_R, inc_p, inc_half, normal = \
            R_a, p_a, half_a, R_b, p_b, half_b, n
    else:
        ref_R, ref_p, ref_half, inc_R, inc_p, inc_half, normal = \
            R_b, p_b, half_b, R_a, p_a, half_a, -n
    # the reference face: the reference box's face along its axis facing the other box
    axis = int(which)
    sign = 1.0 if ref_R[:, axis] @ normal > 0 else -1.0
    _, ref_n, ref_c = _face(ref_R, ref_p, ref_half, axis, sign)
    # the incident face: the other box's face most opposed to the reference normal
    dots = inc_R.T @ ref_n
    inc_axis = int(np.argmax(np.abs(dots)))
    polygon, _, _ = _face(inc_R, inc_p, inc_half, inc_axis, -np.sign(dots[inc_axis]) or 1.0)
    for k in range(3):
        if k == axis:
            continue
        side = ref_R[:, k]
        polygon = _clip(polygon, side, side @ ref_p + ref_half[k])
        polygon = _clip(polygon, -side, -side @ ref_p + ref_half[k])
        if not polygon:
            return []
    found = []
    for q in polygon:
        gap = float(ref_n @ (q - ref_c))
        if gap <= margin:
            found.append((kind == "a", q, q - gap * ref_n, ref_n, gap))
    return found
