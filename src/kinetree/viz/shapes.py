"""What each decoration looks like to the scene: a Shape in its own frame D.

A Shape says how a decoration is drawn (``kind``), which decorations may be drawn in one
batch with it (``key``: the same mesh, the same line thickness, ...) and its data in D:
a triangle mesh, the end points of lines and arrows, points, or a text. ``SHAPES`` maps
each decoration type to the function that makes its Shape: adding a decoration type is one
class in ``decorations.py`` and one entry here.

Kinds: "mesh" (vertices, faces), "axes" (an axis length), "lines" and "arrows" (pairs of
end points), "points", "label" (a text).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from kinetree.viz import decorations as deco


class Shape(NamedTuple):
    """A decoration as drawn: kind, batch key, and data in D (scale applied)."""
    kind: str
    key: tuple
    data: object


def _midpoint(vertices: list, middle: dict, i: int, j: int) -> int:
    """The index of the vertex on the sphere halfway between vertices i and j, added to
    ``vertices`` the first time an edge asks for it."""
    key = (min(i, j), max(i, j))
    if key not in middle:
        m = vertices[i] + vertices[j]
        vertices.append(m / np.linalg.norm(m))
        middle[key] = len(vertices) - 1
    return middle[key]


@lru_cache(maxsize=8)
def unit_sphere(subdivisions: int) -> tuple[np.ndarray, np.ndarray]:
    """An icosphere of radius 1: an icosahedron whose triangles are split in four
    ``subdivisions`` times, its vertices pushed out to the sphere."""
    t = (1 + 5**0.5) / 2
    vertices = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
                (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9),
             (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2),
             (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
             (8, 6, 7), (9, 8, 1)]
    vertices = [np.array(v, dtype=float) / np.linalg.norm(v) for v in vertices]
    for _ in range(subdivisions):
        middle: dict = {}
        finer = []
        for a, b, c in faces:
            ab, bc, ca = (_midpoint(vertices, middle, i, j) for i, j in ((a, b), (b, c), (c, a)))
            finer += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = finer
    return np.array(vertices), np.array(faces)


@lru_cache(maxsize=8)
def unit_cylinder(segments: int) -> tuple[np.ndarray, np.ndarray]:
    """A closed cylinder of radius 1 along y from -1 to 1 (Simbody's orientation): a ring
    of ``segments`` vertices at each end and a centre on each cap."""
    a = 2 * np.pi * np.arange(segments) / segments
    ring = np.column_stack([np.cos(a), np.zeros(segments), -np.sin(a)])
    vertices = np.vstack([ring + [0, -1, 0], ring + [0, 1, 0], [[0, -1, 0], [0, 1, 0]]])
    i = np.arange(segments)
    j = (i + 1) % segments
    n = segments
    faces = np.vstack([np.column_stack([i, j, n + j]), np.column_stack([i, n + j, n + i]),
                       np.column_stack([np.full(n, 2 * n), j, i]),
                       np.column_stack([np.full(n, 2 * n + 1), n + i, n + j])])
    return vertices, faces


def unit_box() -> tuple[np.ndarray, np.ndarray]:
    """The cube [-1, 1]³ with outward-facing triangles."""
    vertices = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                        dtype=float)
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return vertices, faces


def torus_mesh(R: float, r: float, resolution: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and triangles of a torus about z: a tube of radius r circling at radius
    R in the xy plane."""
    n, m = max(12, int(48 * resolution)), max(6, int(24 * resolution))
    a = 2 * np.pi * np.arange(n) / n
    b = 2 * np.pi * np.arange(m) / m
    A, B = np.meshgrid(a, b, indexing="ij")
    rho = R + r * np.cos(B)
    vertices = np.stack([rho * np.cos(A), rho * np.sin(A), r * np.sin(B)], -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    v00, v10 = i * m + j, ((i + 1) % n) * m + j
    v01, v11 = i * m + (j + 1) % m, ((i + 1) % n) * m + (j + 1) % m
    faces = np.concatenate([np.stack([v00, v10, v11], -1).reshape(-1, 3),
                            np.stack([v00, v11, v01], -1).reshape(-1, 3)])
    return vertices, faces


def _mesh(g, name: str, params: tuple, vertices, faces, flat: bool = False) -> Shape:
    """A mesh Shape: ``vertices`` scaled by the decoration's scale; decorations with the
    same type, parameters, scale and representation share a batch. ``flat``: shade each
    triangle flat (boxes), not smoothly across vertices."""
    scale = g.get_scale_factors()
    wire = g.get_representation() == deco.Representation.WIREFRAME
    if g.get_representation() == deco.Representation.POINTS:
        return Shape("points", (2.0,), np.asarray(vertices) * scale)
    return Shape("mesh", (name, params, tuple(scale), wire, flat),
                 (np.asarray(vertices) * scale, np.asarray(faces)))


def _subdivisions(g) -> int:
    return 3 if g.get_resolution() <= 1 else 4


def sphere(g) -> Shape:
    v, f = unit_sphere(_subdivisions(g))
    return _mesh(g, "sphere", (g.get_radius(), _subdivisions(g)), g.get_radius() * v, f)


def brick(g) -> Shape:
    h = g.get_half_lengths()
    vertices, faces = unit_box()
    return _mesh(g, "brick", tuple(h), vertices * h, faces, flat=True)


def cylinder(g) -> Shape:
    segments = max(8, int(32 * g.get_resolution()))
    v, f = unit_cylinder(segments)
    r, h = g.get_radius(), g.get_half_height()
    return _mesh(g, "cylinder", (r, h, segments), v * [r, h, r], f)


def ellipsoid(g) -> Shape:
    v, f = unit_sphere(3)
    return _mesh(g, "ellipsoid", tuple(g.get_radii()), v * g.get_radii(), f)


def torus(g) -> Shape:
    R, r = g.get_torus_radius(), g.get_tube_radius()
    return _mesh(g, "torus", (R, r, g.get_resolution()),
                 *torus_mesh(R, r, g.get_resolution()))


def mesh(g) -> Shape:
    v, f = g.get_vertices(), g.get_faces()
    digest = hashlib.sha1(np.ascontiguousarray(v).tobytes() + np.ascontiguousarray(f).tobytes())
    return _mesh(g, "mesh", (digest.hexdigest(),), v, f)


def line(g) -> Shape:
    ends = np.array([g.get_point1(), g.get_point2()]) * g.get_scale_factors()
    return Shape("lines", (g.get_line_thickness(),), ends)


def arrow(g) -> Shape:
    ends = np.array([g.get_start_point(), g.get_end_point()]) * g.get_scale_factors()
    length = float(np.linalg.norm(ends[1] - ends[0]))
    tip = min(g.get_tip_length(), 0.5 * length) if length > 0 else g.get_tip_length()
    return Shape("arrows", (round(tip, 12),), ends)


def frame(g) -> Shape:
    return Shape("axes", (g.get_axis_length() * float(np.max(g.get_scale_factors())),), None)


def point(g) -> Shape:
    return Shape("points", (0.01 * g.get_line_thickness(),),
                 np.array([g.get_point()]) * g.get_scale_factors())


def text(g) -> Shape:
    return Shape("label", (), g.get_text())


SHAPES = {
    deco.DecorativeSphere: sphere,
    deco.DecorativeBrick: brick,
    deco.DecorativeCylinder: cylinder,
    deco.DecorativeEllipsoid: ellipsoid,
    deco.DecorativeLine: line,
    deco.DecorativeFrame: frame,
    deco.DecorativeArrow: arrow,
    deco.DecorativeMesh: mesh,
    deco.DecorativeText: text,
    deco.DecorativePoint: point,
    deco.DecorativeTorus: torus,
}
"""The Shape of each decoration type."""


def shape_of(geometry) -> Shape:
    for kind in type(geometry).__mro__:
        if kind in SHAPES:
            return SHAPES[kind](geometry)
    raise TypeError(f"Visualizer: no shape for {type(geometry).__name__}; subclass one of "
                    f"the Decorative* types.")
