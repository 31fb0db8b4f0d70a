"""DecorativeGeometry: what a Visualizer draws, as Simbody's family of decorations.

A decoration is plain data: a shape in its own frame D, placed on a body by X_BD (or in
Ground, body 0), with a colour, an opacity, a scale and a representation. Bodies carry
theirs (``Body.add_decoration``); a Visualizer adds Ground-fixed ones
(``Visualizer.add_decoration``) and per-frame ones (``add_decoration_generator``). Each
setter returns the decoration, so calls chain as Simbody's do:
``kt.DecorativeSphere(0.1).set_color("red").set_opacity(0.5)``.

Lengths are metres, colours RGB in [0, 1] (or a name such as ``"red"``).
"""

from __future__ import annotations

import copy
from enum import IntEnum
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.transform import Transform

COLORS = {
    "black": (0.0, 0.0, 0.0), "gray": (0.5, 0.5, 0.5), "grey": (0.5, 0.5, 0.5),
    "white": (1.0, 1.0, 1.0), "red": (1.0, 0.0, 0.0), "green": (0.0, 1.0, 0.0),
    "blue": (0.0, 0.0, 1.0), "yellow": (1.0, 1.0, 0.0), "orange": (1.0, 0.5, 0.0),
    "magenta": (1.0, 0.0, 1.0), "purple": (0.5, 0.0, 0.5), "cyan": (0.0, 1.0, 1.0),
}
"""Simbody's named colours, RGB in [0, 1]."""

DEFAULT_COLOR = (0.75, 0.75, 0.78)
"""The colour of a decoration whose colour was never set (Simbody's default is -1,
"let the viewer choose")."""


class Representation(IntEnum):
    """How a surface is drawn: as points, as its edges, or shaded (the default)."""
    POINTS = 1
    WIREFRAME = 2
    SURFACE = 3


def _finite(value, shape, where: str, what: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=float).reshape(shape)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{where}: {what} must be {'a number' if shape == () else f'{shape[0]} numbers'}"
            f", got {value!r}.") from None
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f"{where}: {what} must be finite, got {value!r}.")
    return a


def _positive(value, where: str, what: str) -> float:
    v = float(_finite(value, (), where, what))
    if not v > 0:
        raise InvalidArgumentError(f"{where}: {what} must be positive, got {value!r}.")
    return v


def _vec3(value, where: str, what: str) -> np.ndarray:
    return _finite(value, (3,), where, what)


class DecorativeGeometry:
    """The base of every decoration: body, X_BD, scale, colour, opacity, line thickness,
    representation and resolution, with Simbody's setters and getters."""

    Representation = Representation

    def __init__(self):
        self._body = 0
        self._index_on_body = -1
        self._X_BD = Transform()
        self._scale = np.ones(3)
        self._color = None
        self._opacity = 1.0
        self._line_thickness = 1.0
        self._representation = Representation.SURFACE
        self._resolution = 1.0

    def _where(self, method: str) -> str:
        return f"{type(self).__name__}.{method}"

    def copy(self) -> DecorativeGeometry:
        return copy.deepcopy(self)

    # ---------------------------------------------------- placement
    def set_body_id(self, body: int) -> DecorativeGeometry:
        """The mobilized body (index; 0 is Ground) whose frame B the decoration moves
        with."""
        if isinstance(body, bool) or not isinstance(body, (int, np.integer)) or body < 0:
            raise InvalidArgumentError(
                f"{self._where('set_body_id')}: the body is a MobilizedBody index (0 for "
                f"Ground, or mobod.get_mobilized_body_index()), got {body!r}.")
        self._body = int(body)
        return self

    def get_body_id(self) -> int:
        return self._body

    def set_index_on_body(self, index: int) -> DecorativeGeometry:
        self._index_on_body = int(index)
        return self

    def get_index_on_body(self) -> int:
        return self._index_on_body

    def set_transform(self, X_BD) -> DecorativeGeometry:
        """X_BD: the decoration's frame D in the body frame B (a Transform, m)."""
        if not isinstance(X_BD, Transform):
            raise InvalidArgumentError(
                f"{self._where('set_transform')}: X_BD must be a Transform (the "
                f"decoration's frame in its body's frame), got {type(X_BD).__name__}.")
        self._X_BD = X_BD
        return self

    def get_transform(self) -> Transform:
        return self._X_BD

    def set_scale(self, scale) -> DecorativeGeometry:
        """Scale factors along D's x, y and z (one number scales all three)."""
        try:
            s = np.array(scale, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            s = np.zeros(0)
        if s.size not in (1, 3) or not np.all(np.isfinite(s)) or not np.all(s > 0):
            raise InvalidArgumentError(
                f"{self._where('set_scale')}: the scale is one positive number or three, "
                f"got {scale!r}.")
        self._scale = np.broadcast_to(s, (3,)).copy()
        return self

    def get_scale_factors(self) -> np.ndarray:
        return self._scale.copy()

    # ---------------------------------------------------- appearance
    def set_color(self, color) -> DecorativeGeometry:
        """RGB in [0, 1], or one of Simbody's colour names ("red", "gray", ...)."""
        where = self._where("set_color")
        if isinstance(color, str):
            if color.lower() not in COLORS:
                raise InvalidArgumentError(
                    f"{where}: unknown colour name {color!r}; use one of "
                    f"{sorted(COLORS)} or RGB values in [0, 1].")
            self._color = np.array(COLORS[color.lower()])
            return self
        c = _vec3(color, where, "the colour")
        if np.any(c < 0) or np.any(c > 1):
            raise InvalidArgumentError(
                f"{where}: colour components are in [0, 1] (Simbody's Vec3 colours), got "
                f"{color!r}; divide 0-255 values by 255.")
        self._color = c
        return self

    def get_color(self) -> np.ndarray:
        """The colour set, or the viewer's default (Simbody's -1 means "not set")."""
        return np.array(DEFAULT_COLOR if self._color is None else self._color)

    def has_color(self) -> bool:
        return self._color is not None

    def set_opacity(self, opacity) -> DecorativeGeometry:
        o = float(_finite(opacity, (), self._where("set_opacity"), "the opacity"))
        if not 0 <= o <= 1:
            raise InvalidArgumentError(
                f"{self._where('set_opacity')}: the opacity is in [0, 1] (0 transparent, 1 "
                f"opaque), got {opacity!r}.")
        self._opacity = o
        return self

    def get_opacity(self) -> float:
        return self._opacity

    def set_line_thickness(self, thickness) -> DecorativeGeometry:
        """Thickness of lines, in pixels (about 1 to 10)."""
        self._line_thickness = _positive(thickness, self._where("set_line_thickness"),
                                         "the line thickness")
        return self

    def get_line_thickness(self) -> float:
        return self._line_thickness

    def set_representation(self, representation) -> DecorativeGeometry:
        try:
            self._representation = Representation(representation)
        except ValueError:
            raise InvalidArgumentError(
                f"{self._where('set_representation')}: use "
                f"DecorativeGeometry.Representation.POINTS, WIREFRAME or SURFACE, got "
                f"{representation!r}.") from None
        return self

    def get_representation(self) -> Representation:
        return self._representation

    def set_resolution(self, resolution) -> DecorativeGeometry:
        """Relative level of detail of curved surfaces (1 is the default)."""
        self._resolution = _positive(resolution, self._where("set_resolution"),
                                     "the resolution")
        return self

    def get_resolution(self) -> float:
        return self._resolution

    def __repr__(self) -> str:
        return f"<{type(self).__name__} on body {self._body}>"


class DecorativeSphere(DecorativeGeometry):
    """A sphere of ``radius`` (m) centred on D's origin."""

    def __init__(self, radius=0.5):
        super().__init__()
        self.set_radius(radius)

    def set_radius(self, radius) -> DecorativeSphere:
        self._radius = _positive(radius, self._where("set_radius"), "the radius")
        return self

    def get_radius(self) -> float:
        return self._radius


class DecorativeBrick(DecorativeGeometry):
    """A box centred on D's origin with ``half_lengths`` (m) along D's axes."""

    def __init__(self, half_lengths=(0.5, 0.5, 0.5)):
        super().__init__()
        self.set_half_lengths(half_lengths)

    def set_half_lengths(self, half_lengths) -> DecorativeBrick:
        h = _vec3(half_lengths, self._where("set_half_lengths"), "the half lengths")
        if not np.all(h > 0):
            raise InvalidArgumentError(
                f"{self._where('set_half_lengths')}: the half lengths must be positive, got "
                f"{half_lengths!r}.")
        self._half_lengths = h
        return self

    def get_half_lengths(self) -> np.ndarray:
        return self._half_lengths.copy()


class DecorativeCylinder(DecorativeGeometry):
    """A cylinder of ``radius`` (m) along D's y axis, from -half_height to half_height
    (Simbody's orientation)."""

    def __init__(self, radius=0.5, half_height=0.5):
        super().__init__()
        self.set_radius(radius)
        self.set_half_height(half_height)

    def set_radius(self, radius) -> DecorativeCylinder:
        self._radius = _positive(radius, self._where("set_radius"), "the radius")
        return self

    def get_radius(self) -> float:
        return self._radius

    def set_half_height(self, half_height) -> DecorativeCylinder:
        self._half_height = _positive(half_height, self._where("set_half_height"),
                                      "the half height")
        return self

    def get_half_height(self) -> float:
        return self._half_height


class DecorativeEllipsoid(DecorativeGeometry):
    """An ellipsoid centred on D's origin with semi-axes ``radii`` (m) along D's axes."""

    def __init__(self, radii=(0.5, 1 / 3, 0.25)):
        super().__init__()
        self.set_radii(radii)

    def set_radii(self, radii) -> DecorativeEllipsoid:
        r = _vec3(radii, self._where("set_radii"), "the radii")
        if not np.all(r > 0):
            raise InvalidArgumentError(
                f"{self._where('set_radii')}: the radii must be positive, got {radii!r}.")
        self._radii = r
        return self

    def get_radii(self) -> np.ndarray:
        return self._radii.copy()


class DecorativeLine(DecorativeGeometry):
    """A line segment from ``point1`` to ``point2`` (m, in D)."""

    def __init__(self, point1=(0, 0, 0), point2=(1, 1, 1)):
        super().__init__()
        self.set_point1(point1)
        self.set_point2(point2)

    def set_point1(self, p) -> DecorativeLine:
        self._point1 = _vec3(p, self._where("set_point1"), "the first point")
        return self

    def set_point2(self, p) -> DecorativeLine:
        self._point2 = _vec3(p, self._where("set_point2"), "the second point")
        return self

    def set_end_points(self, point1, point2) -> DecorativeLine:
        return self.set_point1(point1).set_point2(point2)

    def get_point1(self) -> np.ndarray:
        return self._point1.copy()

    def get_point2(self) -> np.ndarray:
        return self._point2.copy()


class DecorativeFrame(DecorativeGeometry):
    """D's three axes, each ``axis_length`` long (m): x red, y green, z blue."""

    def __init__(self, axis_length=1.0):
        super().__init__()
        self.set_axis_length(axis_length)

    def set_axis_length(self, length) -> DecorativeFrame:
        self._axis_length = _positive(length, self._where("set_axis_length"),
                                      "the axis length")
        return self

    def get_axis_length(self) -> float:
        return self._axis_length


class DecorativeArrow(DecorativeGeometry):
    """An arrow from ``start_point`` to ``end_point`` (m, in D) with a head
    ``tip_length`` long."""

    def __init__(self, start_point=(0, 0, 0), end_point=(1, 1, 1), tip_length=0.35):
        super().__init__()
        self.set_start_point(start_point)
        self.set_end_point(end_point)
        self.set_tip_length(tip_length)

    def set_start_point(self, p) -> DecorativeArrow:
        self._start = _vec3(p, self._where("set_start_point"), "the start point")
        return self

    def set_end_point(self, p) -> DecorativeArrow:
        self._end = _vec3(p, self._where("set_end_point"), "the end point")
        return self

    def set_tip_length(self, length) -> DecorativeArrow:
        self._tip_length = _positive(length, self._where("set_tip_length"),
                                     "the tip length")
        return self

    def get_start_point(self) -> np.ndarray:
        return self._start.copy()

    def get_end_point(self) -> np.ndarray:
        return self._end.copy()

    def get_tip_length(self) -> float:
        return self._tip_length


class DecorativeMesh(DecorativeGeometry):
    """A triangle mesh: vertices (n, 3) in D (m) and faces (m, 3) of vertex indices, taken
    from a path (OBJ, STL, PLY, OFF through trimesh; VTK .vtp PolyData as OpenSim's bone
    meshes), a ContactGeometry.TriangleMesh, or a ``(vertices, faces)`` pair."""

    def __init__(self, mesh):
        super().__init__()
        from kinetree.viz.meshes import as_triangles

        self._vertices, self._faces = as_triangles(mesh, "DecorativeMesh")
        self._source = str(mesh) if isinstance(mesh, (str, Path)) else None

    def get_vertices(self) -> np.ndarray:
        return self._vertices

    def get_faces(self) -> np.ndarray:
        return self._faces

    def get_source(self) -> str | None:
        """The file the mesh was read from, if any."""
        return self._source


class DecorativeText(DecorativeGeometry):
    """A text label at D's origin, always facing the viewer."""

    def __init__(self, text=""):
        super().__init__()
        self.set_text(text)

    def set_text(self, text) -> DecorativeText:
        self._text = str(text)
        return self

    def get_text(self) -> str:
        return self._text


class DecorativePoint(DecorativeGeometry):
    """A point drawn as a small dot at ``point`` (m, in D)."""

    def __init__(self, point=(0, 0, 0)):
        super().__init__()
        self.set_point(point)

    def set_point(self, p) -> DecorativePoint:
        self._point = _vec3(p, self._where("set_point"), "the point")
        return self

    def get_point(self) -> np.ndarray:
        return self._point.copy()


class DecorativeTorus(DecorativeGeometry):
    """A torus about D's z axis: its tube of radius ``tube_radius`` (m) circles D's origin
    at ``torus_radius`` (m) in D's xy plane."""

    def __init__(self, torus_radius=1.0, tube_radius=0.1):
        super().__init__()
        self.set_torus_radius(torus_radius)
        self.set_tube_radius(tube_radius)

    def set_torus_radius(self, r) -> DecorativeTorus:
        self._torus_radius = _positive(r, self._where("set_torus_radius"),
                                       "the torus radius")
        return self

    def set_tube_radius(self, r) -> DecorativeTorus:
        self._tube_radius = _positive(r, self._where("set_tube_radius"), "the tube radius")
        return self

    def get_torus_radius(self) -> float:
        return self._torus_radius

    def get_tube_radius(self) -> float:
        return self._tube_radius


DECORATIONS = (DecorativeSphere, DecorativeBrick, DecorativeCylinder, DecorativeEllipsoid,
               DecorativeLine, DecorativeFrame, DecorativeArrow, DecorativeMesh,
               DecorativeText, DecorativePoint, DecorativeTorus)
"""Every built-in decoration type; ``viz/scene.py`` draws each."""
