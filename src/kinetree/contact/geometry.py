"""Analytic contact geometry (Simbody's ``ContactGeometry`` family) and the contact of pairs
of shapes that the Hertz model needs (paper §5.1, Appendix A.2).

Each shape lives in its own frame S; points and directions given to or returned by its
methods are expressed in S (m). Simbody's conventions are kept:

* ``ContactGeometry.HalfSpace()`` occupies the half space x > 0 of S; its surface is the
  plane x = 0 and its outward normal is -x.
* ``ContactGeometry.Sphere(radius)`` is centred at S's origin.
* ``ContactGeometry.Ellipsoid(radii)`` is centred at S's origin with semi-axes (a, b, c)
  along S's x, y, z: the surface f(p) = (x/a)² + (y/b)² + (z/c)² - 1 = 0.

``calc_surface_principal_curvatures(point)`` returns the curvatures (kmax, kmin) (1/m,
positive where the surface is convex) and the Rotation R_SP whose columns are the unit
direction of kmax, that of kmin, and the outward normal (z = x × y), as Simbody's method of
the same name. For the ellipsoid they come from the implicit function: the second
fundamental form is the Hessian of f restricted to the tangent plane divided by |∇f|.

The pair functions ``contact_*`` take each shape with its pose X_GS in a common frame G
(a :class:`~kinetree.Transform`) and return a :class:`Contact` in G whose normal points
from surface 1 into surface 2, as :mod:`kinetree.contact.hertz` expects.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from kinetree.contact.hertz import relative_curvatures
from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math import Rotation, Transform

__all__ = [
    "Contact",
    "ContactGeometry",
    "contact_half_space_ellipsoid",
    "contact_ellipsoid_ellipsoid",
    "contact_half_space_sphere",
    "contact_sphere_ellipsoid",
    "contact_sphere_sphere",
]


def _point(p, where: str) -> np.ndarray:
    try:
        arr = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{where}: the point must be 3 real numbers, got {p!r}.") \
            from exc
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(
            f"{where}: the point must be 3 finite real numbers (m, in the shape's frame S), "
            f"got {p!r}.")
    return arr


def _direction(d, where: str) -> np.ndarray:
    arr = _point(d, where)
    norm = float(np.linalg.norm(arr))
    if norm == 0.0:
        raise InvalidArgumentError(f"{where}: the direction is the zero vector; give a nonzero "
                                   "direction (in the shape's frame S).")
    return arr / norm


def _positive_length(value, name: str, where: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{where}: {name} must be a real number, got {value!r}.") \
            from exc
    if not (math.isfinite(value) and value > 0.0):
        raise NonPhysicalError(
            f"{where}: {name} = {value} m is not a positive finite length; give one > 0.")
    return value


def _three_lengths(values, name: str, where: str) -> np.ndarray:
    """Three positive lengths (a, b, c) (m) as a read-only array."""
    try:
        floats = [float(v) for v in values]
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"{where}: {name} must be three lengths (a, b, c) in m, got {values!r}.") from exc
    if len(floats) != 3:
        raise InvalidArgumentError(
            f"{where}: {name} must be three lengths (a, b, c) in m, got {len(floats)}.")
    arr = np.array([_positive_length(v, f"{name}[{i}]", where) for i, v in enumerate(floats)])
    arr.setflags(write=False)
    return arr


def _tangent_basis(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors t1, t2 with (t1, t2, n) a right-handed orthonormal frame: t1 =
    e × n normalized, e the axis n is least along (written out: numpy's cross of two
    3-vectors costs microseconds)."""
    x, y, z = n
    k = int(np.argmin(np.abs(n)))
    t1 = np.array([0.0, z, -y]) if k == 0 else (
        np.array([-z, 0.0, x]) if k == 1 else np.array([y, -x, 0.0]))
    t1 /= np.linalg.norm(t1)
    return t1, np.array([y * t1[2] - z * t1[1], z * t1[0] - x * t1[2],
                         x * t1[1] - y * t1[0]])


def _frame(kmax_dir: np.ndarray, n: np.ndarray) -> Rotation:
    """R_SP with columns (kmax direction, kmin direction, normal)."""
    return Rotation._trusted(np.column_stack((kmax_dir, np.cross(n, kmax_dir), n)))


def _pose(X, where: str) -> Transform:
    if not isinstance(X, Transform):
        raise InvalidArgumentError(
            f"{where}: a shape's pose must be a kinetree Transform X_GS (the shape's frame S "
            f"in the common frame G), got {type(X).__name__}; wrap it as Transform(R, p).")
    return X


class ContactGeometry:
    """A shape that contact is computed against, in its own frame S (Simbody's
    ``ContactGeometry``). The subclasses are ``ContactGeometry.HalfSpace``,
    ``ContactGeometry.Sphere`` and ``ContactGeometry.Ellipsoid``."""

    def find_nearest_point(self, p_S) -> tuple[np.ndarray, bool, np.ndarray]:
        """(point, inside, normal): the surface point nearest to p_S (m, in S), whether p_S
        is inside the shape, and the unit outward surface normal at that point (in S)."""
        raise NotImplementedError

    def calc_signed_distance(self, p_S) -> float:
        """The distance (m) from p_S (in S) to the surface: positive outside the shape,
        negative inside."""
        point, inside, _ = self.find_nearest_point(p_S)
        d = float(np.linalg.norm(_point(p_S, self._where("calc_signed_distance")) - point))
        return -d if inside else d

    def calc_surface_principal_curvatures(self, point) -> tuple[np.ndarray, Rotation]:
        """((kmax, kmin), R_SP) at a surface point (m, in S): the principal curvatures
        (1/m, positive where convex) and the frame whose columns are the kmax direction, the
        kmin direction and the outward normal, all in S."""
        raise NotImplementedError

    def calc_support_point(self, direction) -> np.ndarray:
        """The surface point (m, in S) farthest along ``direction`` (in S): the point whose
        outward normal is that direction. Only for bounded convex shapes."""
        raise InvalidArgumentError(
            f"{self._where('calc_support_point')}: the shape is unbounded and has no support "
            "point; use a bounded convex shape.")

    def _where(self, method: str) -> str:
        return f"ContactGeometry.{type(self).__name__}.{method}()"


class HalfSpace(ContactGeometry):
    """The half space x > 0 of S (Simbody's ``ContactGeometry::HalfSpace``): its surface is
    the plane x = 0, its outward normal -x. Useful for floors and walls."""

    _NORMAL = np.array([-1.0, 0.0, 0.0])

    def find_nearest_point(self, p_S):
        p = _point(p_S, self._where("find_nearest_point"))
        return np.array([0.0, p[1], p[2]]), bool(p[0] > 0.0), self._NORMAL.copy()

    def calc_surface_principal_curvatures(self, point):
        _point(point, self._where("calc_surface_principal_curvatures"))
        return np.zeros(2), _frame(np.array([0.0, 0.0, 1.0]), self._NORMAL)

    def __repr__(self) -> str:
        return "ContactGeometry.HalfSpace()"


class Sphere(ContactGeometry):
    """A sphere of the given radius (m) centred at S's origin (Simbody's
    ``ContactGeometry::Sphere``)."""

    def __init__(self, radius):
        self._radius = _positive_length(radius, "radius", "ContactGeometry.Sphere")

    def get_radius(self) -> float:
        """The radius (m)."""
        return self._radius

    def find_nearest_point(self, p_S):
        p = _point(p_S, self._where("find_nearest_point"))
        r = float(np.linalg.norm(p))
        n = p / r if r > 0.0 else np.array([1.0, 0.0, 0.0])
        return self._radius * n, bool(r < self._radius), n

    def calc_surface_principal_curvatures(self, point):
        p = _point(point, self._where("calc_surface_principal_curvatures"))
        r = float(np.linalg.norm(p))
        n = p / r if r > 0.0 else np.array([1.0, 0.0, 0.0])
        k = 1.0 / self._radius
        return np.array([k, k]), _frame(_tangent_basis(n)[0], n)

    def calc_support_point(self, direction):
        return self._radius * _direction(direction, self._where("calc_support_point"))

    def __repr__(self) -> str:
        return f"ContactGeometry.Sphere({self._radius!r})"


class Ellipsoid(ContactGeometry):
    """An ellipsoid centred at S's origin with semi-axes radii = (a, b, c) (m) along S's x,
    y and z (Simbody's ``ContactGeometry::Ellipsoid``)."""

    def __init__(self, radii):
        self._radii = _three_lengths(radii, "radii", "ContactGeometry.Ellipsoid")

    def get_radii(self) -> np.ndarray:
        """The semi-axes (a, b, c) (m) along S's x, y, z."""
        return self._radii

    def _gradient(self, x: np.ndarray) -> np.ndarray:
        return 2.0 * x / self._radii ** 2

    def find_nearest_point(self, p_S):
        """The nearest surface point x satisfies x_i = r_i² p_i/(r_i² + t) for the root t of
        Σ (r_i p_i/(r_i² + t))² = 1 with r_i² + t > 0 on every axis where p_i ≠ 0 (unique
        there: the sum decreases monotonically). Where p lies in a plane of symmetry p_k = 0
        the nearest point may leave that plane, at t = -r_k²; those candidates are compared
        too. Solved in u = t + r_k², r_k the smallest radius with p_k ≠ 0, by Brent's method
        on ln u (u spans hundreds of decades for points very near a plane of symmetry) and
        one Newton step to machine precision."""
        p = _point(p_S, self._where("find_nearest_point"))
        r2 = self._radii ** 2
        inside = bool(np.sum((p / self._radii) ** 2) < 1.0)
        candidates = []
        active = p != 0.0
        if np.any(active):
            ra, pa = self._radii[active], np.abs(p[active])
            k = int(np.argmin(ra))
            shift = ra ** 2 - ra[k] ** 2
            lo = ra[k] * pa[k]
            hi = ra[k] ** 2 + float(ra.max() * np.linalg.norm(pa))

            def excess(u):
                return float(np.sum((ra * pa / (shift + u)) ** 2)) - 1.0

            u = lo
            if excess(lo) > 0.0:
                eps = np.finfo(float).eps
                from scipy.optimize import brentq  # scipy is slow to import: when first needed
                u = math.exp(brentq(lambda v: excess(math.exp(v)), math.log(lo), math.log(hi),
                                    xtol=4 * eps, rtol=4 * eps, maxiter=500))
                terms = ra * pa / (shift + u)
                u += (float(np.sum(terms ** 2)) - 1.0) / float(
                    np.sum(2.0 * terms ** 2 / (shift + u)))
            x = np.zeros(3)
            x[active] = r2[active] * p[active] / (shift + u)
            candidates.append(x)
        for k in np.flatnonzero(~active):
            denom = r2 - r2[k]
            if np.any(denom[active] <= 0.0):
                continue
            x = np.zeros(3)
            x[active] = r2[active] * p[active] / denom[active]
            rest = 1.0 - float(np.sum((x / self._radii) ** 2))
            if rest >= 0.0:
                x[k] = self._radii[k] * math.sqrt(rest)
                candidates.append(x)
        x = min(candidates, key=lambda c: float(np.linalg.norm(c - p)))
        x /= math.sqrt(float(np.sum((x / self._radii) ** 2)))
        g = self._gradient(x)
        return x, inside, g / np.linalg.norm(g)

    def calc_surface_principal_curvatures(self, point):
        """Curvatures of the surface at ``point`` (m, in S; projected radially onto the
        surface if slightly off it): the eigenvalues of the Hessian of f, diag(2/r_i²),
        restricted to the tangent plane and divided by |∇f|."""
        x = _point(point, self._where("calc_surface_principal_curvatures"))
        scale = math.sqrt(float(np.sum((x / self._radii) ** 2)))
        if scale == 0.0:
            raise InvalidArgumentError(
                f"{self._where('calc_surface_principal_curvatures')}: the point is the "
                "ellipsoid's centre, not a surface point; pass a point on the surface.")
        x = x / scale
        g = self._gradient(x)
        g_norm = float(np.linalg.norm(g))
        n = g / g_norm
        t1, t2 = _tangent_basis(n)
        basis = np.column_stack((t1, t2))
        shape = basis.T @ (basis * (2.0 / self._radii ** 2)[:, None]) / g_norm
        values, vectors = np.linalg.eigh(shape)
        kmax_dir = basis @ vectors[:, 1]
        return np.array([values[1], values[0]]), _frame(kmax_dir / np.linalg.norm(kmax_dir), n)

    def calc_support_point(self, direction):
        """x_i = r_i² d_i/√(Σ r_j² d_j²): the point whose outward normal is d (in S)."""
        d = _direction(direction, self._where("calc_support_point"))
        w = self._radii ** 2 * d
        return w / math.sqrt(float(np.dot(w, d)))

    def __repr__(self) -> str:
        return f"ContactGeometry.Ellipsoid({self._radii.tolist()!r})"


ContactGeometry.HalfSpace = HalfSpace
ContactGeometry.Sphere = Sphere
ContactGeometry.Ellipsoid = Ellipsoid


class Contact(NamedTuple):
    """The contact of two surfaces, all in the common frame G.

    ``normal`` is the unit contact normal pointing from surface 1 into surface 2; ``depth``
    the overlap x (m) along it, negative for a gap; ``point1`` the point of surface 1
    deepest inside surface 2, ``point2`` that of surface 2 deepest inside surface 1, with
    point2 = point1 - depth·normal. ``curvatures1`` = (kmax, kmin) (1/m) of surface 1 at
    point1 and ``R_GP1`` its frame (columns kmax direction, kmin direction, outward normal
    = ``normal``); likewise for surface 2 at point2 (whose outward normal is -``normal``).
    """

    normal: np.ndarray
    depth: float
    point1: np.ndarray
    point2: np.ndarray
    curvatures1: np.ndarray
    R_GP1: Rotation
    curvatures2: np.ndarray
    R_GP2: Rotation

    @property
    def origin(self) -> np.ndarray:
        """O = (point1 + point2)/2 (m, in G), halfway between the undeformed surfaces, as
        :func:`kinetree.contact.contact_point` takes it."""
        return 0.5 * (self.point1 + self.point2)

    def relative_curvatures(self) -> tuple[float, float]:
        """(kmax, kmin) (1/m) of the gap paraboloid, from both surfaces' principal
        curvatures and the angle between their kmax directions
        (:func:`kinetree.contact.relative_curvatures`)."""
        d1 = self.R_GP1.as_matrix()[:, 0]
        d2 = self.R_GP2.as_matrix()[:, 0]
        angle = math.atan2(float(np.dot(np.cross(d1, d2), self.normal)), float(np.dot(d1, d2)))
        return relative_curvatures(*self.curvatures1, *self.curvatures2, angle)


def _in_G(X: Transform, curvatures: np.ndarray, R_SP: Rotation):
    return curvatures, Rotation._trusted(X.R.as_matrix() @ R_SP.as_matrix())


def contact_half_space_sphere(X_GH: Transform, X_GS: Transform, sphere: Sphere) -> Contact:
    """The contact of a half space (surface 1, pose X_GH) and a sphere (surface 2, pose
    X_GS) in G (Simbody's ``ContactTracker::HalfSpaceSphere``): normal = the half space's
    outward normal, depth = r + (the centre's x in H)."""
    where = "contact_half_space_sphere()"
    X_GH, X_GS = _pose(X_GH, where), _pose(X_GS, where)
    _check_shape(sphere, Sphere, "sphere", where)
    R_GH = X_GH.R.as_matrix()
    normal = -R_GH[:, 0]
    centre_H = R_GH.T @ (X_GS.p - X_GH.p)
    depth = sphere.get_radius() + float(centre_H[0])
    point1 = X_GH.p + R_GH @ np.array([0.0, centre_H[1], centre_H[2]])
    point2 = X_GS.p - sphere.get_radius() * normal
    k2 = 1.0 / sphere.get_radius()
    return Contact(normal, depth, point1, point2, np.zeros(2), _frame(R_GH[:, 2], normal),
                   np.array([k2, k2]), _frame(R_GH[:, 2], -normal))


def contact_sphere_sphere(X_G1: Transform, sphere1: Sphere, X_G2: Transform,
                          sphere2: Sphere) -> Contact:
    """The contact of two spheres in G (Simbody's ``ContactTracker::SphereSphere``): normal
    along the line of centres from 1 to 2 (G's x if they coincide), depth = r1 + r2 - d."""
    where = "contact_sphere_sphere()"
    X_G1, X_G2 = _pose(X_G1, where), _pose(X_G2, where)
    _check_shape(sphere1, Sphere, "sphere1", where)
    _check_shape(sphere2, Sphere, "sphere2", where)
    r1, r2 = sphere1.get_radius(), sphere2.get_radius()
    between = X_G2.p - X_G1.p
    d = float(np.linalg.norm(between))
    normal = between / d if d > 0.0 else np.array([1.0, 0.0, 0.0])
    t1 = _tangent_basis(normal)[0]
    return Contact(normal, r1 + r2 - d, X_G1.p + r1 * normal, X_G2.p - r2 * normal,
                   np.array([1.0 / r1, 1.0 / r1]), _frame(t1, normal),
                   np.array([1.0 / r2, 1.0 / r2]), _frame(t1, -normal))


def contact_half_space_ellipsoid(X_GH: Transform, X_GE: Transform,
                                 ellipsoid: Ellipsoid) -> Contact:
    """The contact of a half space (surface 1, pose X_GH) and an ellipsoid (surface 2, pose
    X_GE) in G (Simbody's ``ContactTracker::HalfSpaceEllipsoid``): point2 is the ellipsoid's
    deepest point below the plane, where its outward normal is anti-parallel to the half
    space's (the support point along H's +x); depth = its x in H; point1 its projection on
    the plane."""
    where = "contact_half_space_ellipsoid()"
    X_GH, X_GE = _pose(X_GH, where), _pose(X_GE, where)
    _check_shape(ellipsoid, Ellipsoid, "ellipsoid", where)
    R_GH, R_GE = X_GH.R.as_matrix(), X_GE.R.as_matrix()
    normal = -R_GH[:, 0]
    point2_E = ellipsoid.calc_support_point(R_GE.T @ R_GH[:, 0])
    point2 = X_GE.p + R_GE @ point2_E
    depth = float(np.dot(R_GH[:, 0], point2 - X_GH.p))
    point1 = point2 + depth * normal
    k2, R2 = _in_G(X_GE, *ellipsoid.calc_surface_principal_curvatures(point2_E))
    return Contact(normal, depth, point1, point2, np.zeros(2), _frame(R_GH[:, 2], normal),
                   k2, R2)


def contact_sphere_ellipsoid(X_GS: Transform, sphere: Sphere, X_GE: Transform,
                             ellipsoid: Ellipsoid) -> Contact:
    """The contact of a sphere (surface 1) and an ellipsoid (surface 2) in G. The
    ellipsoid's surface point nearest the sphere's centre has its normal through the centre,
    so it is where the two surfaces are deepest into each other: point2 is that point,
    normal = -(its outward normal), depth = r - (the centre's signed distance)."""
    where = "contact_sphere_ellipsoid()"
    X_GS, X_GE = _pose(X_GS, where), _pose(X_GE, where)
    _check_shape(sphere, Sphere, "sphere", where)
    _check_shape(ellipsoid, Ellipsoid, "ellipsoid", where)
    R_GE = X_GE.R.as_matrix()
    centre_E = R_GE.T @ (X_GS.p - X_GE.p)
    point2_E, inside, n2_E = ellipsoid.find_nearest_point(centre_E)
    gap = float(np.linalg.norm(centre_E - point2_E))
    signed = -gap if inside else gap
    normal = -(R_GE @ n2_E)
    r = sphere.get_radius()
    k2, R2 = _in_G(X_GE, *ellipsoid.calc_surface_principal_curvatures(point2_E))
    return Contact(normal, r - signed, X_GS.p + r * normal, X_GE.p + R_GE @ point2_E,
                   np.array([1.0 / r, 1.0 / r]), _frame(_tangent_basis(normal)[0], normal),
                   k2, R2)


def contact_ellipsoid_ellipsoid(X_G1: Transform, ellipsoid1: Ellipsoid, X_G2: Transform,
                                ellipsoid2: Ellipsoid) -> Contact:
    """The contact of two ellipsoids in G. The overlap of two convex bodies along a unit
    direction n is d(n) = h1(n) + h2(-n) - Δ·n, h_i(n) = √(nᵀ M_i n) the support function
    of ellipsoid i about its centre (M_i = R_i diag(r_i²) R_iᵀ) and Δ the vector between
    the centres; the penetration depth is its minimum over n, reached where the two
    support points face each other along n (their normals antiparallel, the line between
    them along n). Minimized on the tangent plane of the current guess, starting from the
    line of centres, until the tangential gradient vanishes to round-off; depth < 0 means
    apart (then it is a lower bound on the gap)."""
    where = "contact_ellipsoid_ellipsoid()"
    X_G1, X_G2 = _pose(X_G1, where), _pose(X_G2, where)
    _check_shape(ellipsoid1, Ellipsoid, "ellipsoid1", where)
    _check_shape(ellipsoid2, Ellipsoid, "ellipsoid2", where)
    R1, R2 = X_G1.R.as_matrix(), X_G2.R.as_matrix()
    M1 = R1 @ np.diag(ellipsoid1.get_radii() ** 2) @ R1.T
    M2 = R2 @ np.diag(ellipsoid2.get_radii() ** 2) @ R2.T
    delta = X_G2.p - X_G1.p

    def overlap_and_gradient(n):
        w1, w2 = M1 @ n, M2 @ n
        h1, h2 = math.sqrt(float(n @ w1)), math.sqrt(float(n @ w2))
        return h1 + h2 - float(delta @ n), w1 / h1 + w2 / h2 - delta

    distance = float(np.linalg.norm(delta))
    n = delta / distance if distance > 0.0 else np.array([1.0, 0.0, 0.0])
    for _ in range(20):
        T = np.column_stack(_tangent_basis(n))

        def on_plane(v, n0=n, T=T):
            m = n0 + T @ v
            length = float(np.linalg.norm(m))
            d, grad = overlap_and_gradient(m / length)
            return d, T.T @ (grad - (grad @ m / length) * m / length) / length

        from scipy.optimize import minimize
        v = minimize(on_plane, np.zeros(2), jac=True, method="BFGS",
                     options={"gtol": 1e-15, "maxiter": 200}).x
        moved = float(np.linalg.norm(v))
        n = n + T @ v
        n /= np.linalg.norm(n)
        if moved < 1e-13:
            break
    depth, _ = overlap_and_gradient(n)
    point1 = X_G1.p + M1 @ n / math.sqrt(float(n @ M1 @ n))
    point2 = X_G2.p - M2 @ n / math.sqrt(float(n @ M2 @ n))
    k1, F1 = _in_G(X_G1, *ellipsoid1.calc_surface_principal_curvatures(
        R1.T @ (point1 - X_G1.p)))
    k2, F2 = _in_G(X_G2, *ellipsoid2.calc_surface_principal_curvatures(
        R2.T @ (point2 - X_G2.p)))
    return Contact(n, depth, point1, point2, k1, F1, k2, F2)


def _check_shape(shape, kind, name: str, where: str) -> None:
    if not isinstance(shape, kind):
        raise InvalidArgumentError(
            f"{where}: {name} must be a ContactGeometry.{kind.__name__}, got "
            f"{type(shape).__name__}; pass the shapes in the order the function names them.")
