"""OpenSim's WrapObject: a surface fixed on a body that a GeometryPath may wrap over, and
what every surface shares: the rows compiled code reads, the quadrant, the small
geometry of OpenSim's WrapMath, and the reading of a body's ``<WrapObjectSet>``.

A wrap object's surface frame W is fixed in its body B at ``X_BW`` (OpenSim's
``xyz_body_rotation``, body-fixed X-Y-Z angles in rad, and ``translation`` in m). Each
surface module (paths/wrap_<kind>.py) computes, in W, OpenSim's ``wrapPathSegment`` of
one path segment: ``wrap_line(wi, wf, p1, p2, previous, result) -> WrapAction``.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.kernels.small import cross3, dot3, scale3, sub3

CODE, AXIS, SIGN, METHOD, SINGLE = range(5)
"""Columns of a wrap row's ints: the type code (``kinetree.registry.WRAPS``); the
quadrant's axis (-1 for all, 0/1/2 for x/y/z) and sign (+1/-1, 0 for all); the
PathWrap's method (hybrid 0, midpoint 1, axial 2: the ellipsoid's); 1 when the path has
this one PathWrap only (OpenSim's WrapResult.singleWrap: the cylinder then skips sliding
its tangent points to tangency)."""

WRAP_I_COLUMNS = 5
"""The ints of a wrap row."""

WRAP_F_SIZE = {"wrap_sphere": 1, "wrap_cylinder": 2, "wrap_ellipsoid": 3, "wrap_torus": 2}
"""The float parameters of each surface: the sphere's radius; the cylinder's radius and
length; the ellipsoid's three semi-axes; the torus's inner and outer radii (all m)."""

WRAP_STATE = 12
"""The floats a PathWrap keeps between calls (OpenSim's previous WrapResult): r1 (3),
r2 (3), sv (3), c1 (3). OpenSim 4.6 scales the previous r1 and r2 by a factor its
copies reset to NaN, so no surface reads a usable previous r1, r2; the ellipsoid keeps
c1 where its closest-point search fails to converge."""

STATE_RESET = 9
"""OpenSim's resetPreviousWrap sets the state's first STATE_RESET floats (r1, r2, sv) to
-infinity and leaves c1."""

WRAP_RESULT = 7
"""The floats of a wrap result: r1 (3) and r2 (3), the tangent points (m, in W), and the
length over the surface (m)."""

NO_WRAP, INSIDE_RADIUS, WRAPPED, MANDATORY_WRAP = 0, 1, 2, 3
"""OpenSim's WrapAction (the values of ``kinetree.paths.wrapping``)."""

QUADRANTS = {
    "all": (-1, 0), "ALL": (-1, 0), "All": (-1, 0), "Unassigned": (-1, 0),
    "x": (0, 1), "+x": (0, 1), "X": (0, 1), "+X": (0, 1), "-x": (0, -1), "-X": (0, -1),
    "y": (1, 1), "+y": (1, 1), "Y": (1, 1), "+Y": (1, 1), "-y": (1, -1), "-Y": (1, -1),
    "z": (2, 1), "+z": (2, 1), "Z": (2, 1), "+Z": (2, 1), "-z": (2, -1), "-Z": (2, -1),
}
"""OpenSim's quadrant names: (axis, sign); "all" leaves the surface unconstrained."""

_EPS = float(np.finfo(float).eps)
_ROUNDOFF = 2e-13
"""OpenSim's ROUNDOFF_ERROR, the width of its EQUAL_WITHIN_ERROR."""


def initial_state() -> np.ndarray:
    """A PathWrap's kept state before its first wrap: OpenSim's resetPreviousWrap over a
    default WrapResult (r1, r2, sv -infinity; c1 NaN)."""
    state = np.full(WRAP_STATE, np.nan)
    state[:STATE_RESET] = -np.inf
    return state


# ---------------------------------------------------------------- OpenSim's WrapMath

@helper(error_model="numpy")
def dsign(x):
    """OpenSim's DSIGN: 1 for x >= 0, else -1 (so -1 for NaN)."""
    return 1 if x >= 0.0 else -1


@helper(error_model="numpy")
def normalize_or_zero(v):
    """(v / |v|, |v|), or a zero vector where |v| < machine epsilon."""
    mag = math.sqrt(dot3(v, v))
    if mag >= _EPS:
        return scale3(1.0 / mag, v), mag
    return (0.0, 0.0, 0.0), mag


@helper(error_model="numpy")
def closest_point_on_line(pt, line_pt, line):
    """(the point of the line through line_pt along ``line`` nearest pt, its parameter
    in units of |line|)."""
    v1, mag = normalize_or_zero(sub3(pt, line_pt))
    v2, mag2 = normalize_or_zero(line)
    t = dot3(v1, v2) * mag
    closest = (line_pt[0] + t * v2[0], line_pt[1] + t * v2[1], line_pt[2] + t * v2[2])
    return closest, t / mag2


@helper(error_model="numpy")
def distance_squared_to_line(pt, line_pt, line):
    """The squared distance of pt from the line through line_pt along ``line``."""
    d = sub3(line_pt, pt)
    n = scale3(1.0 / math.sqrt(dot3(line, line)), line)
    s = dot3(d, n)
    e = (d[0] - s * n[0], d[1] - s * n[1], d[2] - s * n[2])
    return dot3(e, e)


@helper(error_model="numpy")
def distance_squared(a, b):
    d = sub3(a, b)
    return dot3(d, d)


@helper(error_model="numpy")
def _det3(r0, r1, r2):
    return dot3(r0, cross3(r1, r2))


@helper(error_model="numpy")
def intersect_lines(p1, p2, p3, p4):
    """OpenSim's IntersectLines: (parallel, q1, s, q2, t), q1 = p1 + s (p2 - p1) and
    q2 = p3 + t (p4 - p3) the nearest points of the two lines; NaN where they are
    parallel."""
    vec1, mag1 = normalize_or_zero(sub3(p2, p1))
    vec2, mag2 = normalize_or_zero(sub3(p4, p3))
    cross = cross3(vec1, vec2)
    denom = dot3(cross, cross)
    nan = (math.nan, math.nan, math.nan)
    if abs(denom) <= _ROUNDOFF:
        return True, nan, math.nan, nan, math.nan
    d = sub3(p3, p1)
    t = _det3(d, vec1, cross) / denom
    q2 = (p3[0] + t * vec2[0], p3[1] + t * vec2[1], p3[2] + t * vec2[2])
    s = _det3(d, vec2, cross) / denom
    q1 = (p1[0] + s * vec1[0], p1[1] + s * vec1[1], p1[2] + s * vec1[2])
    return False, q1, s / mag1, q2, t / mag2


@helper(error_model="numpy")
def intersect_segment_plane(pt1, pt2, normal, d):
    """OpenSim's IntersectLineSegPlane: (hit, point) of the segment pt1-pt2 with the plane
    normal·x + d = 0, within 1e-5 of the segment's parameter range."""
    vec = sub3(pt2, pt1)
    dotprod = dot3(vec, normal)
    if abs(dotprod) < 1e-5:
        return False, pt1
    t = (-d - normal[0] * pt1[0] - normal[1] * pt1[1] - normal[2] * pt1[2]) / dotprod
    if t < -1e-5 or t > 1.0 + 1e-5:
        return False, pt1
    return True, (pt1[0] + t * vec[0], pt1[1] + t * vec[1], pt1[2] + t * vec[2])


@helper(error_model="numpy")
def store_result(result, r1, r2, length):
    """result = [r1, r2, length]."""
    result[0], result[1], result[2] = r1[0], r1[1], r1[2]
    result[3], result[4], result[5] = r2[0], r2[1], r2[2]
    result[6] = length


@helper(error_model="numpy")
def store_wrap(result, previous, r1, r2, length):
    """``store_result``, and the tangent points r1, r2 kept in ``previous`` (the
    PathWrap's state, OpenSim's previous WrapResult) for the next wrap."""
    store_result(result, r1, r2, length)
    for k in range(3):
        previous[k] = r1[k]
        previous[3 + k] = r2[k]


# ---------------------------------------------------------------- the Python objects

def _vector(text: str | None, where: str, what: str) -> np.ndarray:
    if text is None:
        return np.zeros(3)
    try:
        v = np.array([float(x) for x in text.split()])
    except ValueError:
        v = np.zeros(0)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InvalidArgumentError(f"{where}: <{what}> must be 3 finite numbers, got {text!r}.")
    return v


class WrapObject:
    """A wrap surface fixed on mobilized body ``body`` with its frame W at ``X_BW`` (a
    Transform: W in B, m), wrapping only on the side ``quadrant`` of W ("all", "+x",
    "-y", ...) and only while ``active``. Subclasses give CODE and ``_params``."""

    CODE = 0
    KIND = ""

    def __init__(self, name: str = "", body: int = 0, X_BW: Transform | None = None,
                 quadrant: str = "all", active: bool = True):
        where = f"{type(self).__name__} {name!r}"
        if quadrant not in QUADRANTS:
            raise InvalidArgumentError(
                f"{where}: quadrant {quadrant!r} is not one of OpenSim's (all, +x, -x, +y, "
                "-y, +z, -z); set it to one of those.")
        self.name = name
        self.body = int(body)
        self.X_BW = Transform() if X_BW is None else X_BW
        self.quadrant = quadrant
        self.active = bool(active)

    def _where(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    def _params(self) -> list:
        raise NotImplementedError

    def _row(self) -> tuple[np.ndarray, np.ndarray]:
        """(ints, floats) of this surface for compiled code: the WRAP_I_COLUMNS ints (the
        method hybrid and single PathWrap, which a path's layout overwrites) and the
        surface's parameters."""
        axis, sign = QUADRANTS[self.quadrant]
        ints = np.array([self.CODE, axis, sign, 0, 1], dtype=np.int64)
        return ints, np.array(self._params(), dtype=float)

    def wrap_line(self, p1, p2, method: str = "hybrid", single: bool = True,
                  previous: np.ndarray | None = None):
        """(WrapAction, r1, r2, length) of the segment p1-p2 (m, in W) over this surface,
        computed by the compiled ``wrap_line``; ``previous`` the kept state (updated)."""
        import importlib
        ints, params = self._row()
        ints[METHOD] = {"hybrid": 0, "midpoint": 1, "axial": 2}[method]
        ints[SINGLE] = int(single)
        module = importlib.import_module(f"kinetree.paths.{self.KIND}")
        state = initial_state() if previous is None else previous
        result = np.zeros(WRAP_RESULT)
        code = module.wrap_line(_read_only(ints), _read_only(params),
                                _read_only(np.asarray(p1, float)),
                                _read_only(np.asarray(p2, float)), state, result)
        return int(code), result[0:3].copy(), result[3:6].copy(), float(result[6])

    @classmethod
    def from_osim(cls, element, body: int) -> WrapObject:
        """The wrap object of an OpenSim XML element (ElementTree) in the ``<WrapObjectSet>``
        of mobilized body ``body``."""
        import importlib

        modules = {"WrapSphere": "wrap_sphere", "WrapCylinder": "wrap_cylinder",
                   "WrapEllipsoid": "wrap_ellipsoid", "WrapTorus": "wrap_torus"}
        name = element.get("name") or ""
        where = f"{element.tag} {name!r}"
        kind = None
        if element.tag in modules:
            try:
                module = importlib.import_module(f"kinetree.paths.{modules[element.tag]}")
            except ModuleNotFoundError:
                raise InvalidArgumentError(
                    f"{where}: kinetree does not compute <{element.tag}> yet; remove it "
                    "and the PathWraps over it, or use another surface.") from None
            kind = getattr(module, element.tag)
        if kind is None or (cls is not WrapObject and kind is not cls):
            raise InvalidArgumentError(
                f"{where}: kinetree has no wrap surface <{element.tag}>; the surfaces are "
                "WrapSphere, WrapCylinder, WrapEllipsoid and WrapTorus.")

        def text(tag):
            e = element.find(tag)
            return None if e is None or e.text is None else e.text.strip()

        angles = _vector(text("xyz_body_rotation"), where, "xyz_body_rotation")
        X_BW = Transform(Rotation.from_body_fixed_xyz(angles),
                         _vector(text("translation"), where, "translation"))
        active = (text("active") or "true").lower() not in ("false", "0")
        quadrant = text("quadrant") or "all"

        def number(tag, default):
            t = text(tag)
            try:
                return default if t is None else float(t)
            except ValueError:
                raise InvalidArgumentError(f"{where}: <{tag}> must be a number, got {t!r}.") \
                    from None

        if element.tag == "WrapSphere":
            params = (number("radius", 0.05),)
        elif element.tag == "WrapCylinder":
            params = (number("radius", 1.0), number("length", 1.0))
        elif element.tag == "WrapEllipsoid":
            params = (_vector(text("dimensions") or "0.05 0.05 0.05", where, "dimensions"),)
        else:
            params = (number("inner_radius", 0.01), number("outer_radius", 0.05))
        return kind(*params, name=name, body=body, X_BW=X_BW, quadrant=quadrant,
                    active=active)


def _read_only(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a).copy()
    a.flags.writeable = False
    return a


def positive(value, where: str, what: str) -> float:
    """``value`` as a float, which must be finite and > 0."""
    v = float(value)
    if not (math.isfinite(v) and v > 0.0):
        raise InvalidArgumentError(f"{where}: its {what} must be a finite number > 0 (m), "
                                   f"got {value!r}; give it a positive {what}.")
    return v


def wrap_objects_from_osim(body_element, body: int) -> list[WrapObject]:
    """The wrap objects of an OpenSim body (or frame) element's ``<WrapObjectSet>``."""
    container = body_element.find("WrapObjectSet/objects")
    return [] if container is None else [WrapObject.from_osim(e, body) for e in container]

