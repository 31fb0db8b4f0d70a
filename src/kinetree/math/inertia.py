"""Inertia matrices and mass properties: Simbody's ``Inertia``, ``UnitInertia`` and
``MassProperties``.

An inertia I_OF is a symmetric 3x3 matrix taken about a point O and expressed in a frame F,
in kg m^2 (a ``UnitInertia`` is per unit mass, m^2). Every inertia is checked physical:
finite, symmetric, positive semidefinite, and with principal moments obeying the triangle
inequality (each at most the sum of the other two), which every mass distribution does.
The point-mass inertia of mass m at p (from O, in F) is m (|p|^2 1 - p p^T); the
parallel-axis theorem adds it to a central inertia to move that inertia to O.

``MassProperties`` follows Simbody: the inertia is about the BODY ORIGIN, expressed in the
body frame B, and the mass center c is measured from the body origin in B.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math.rotation import (
    Rotation,
    _finite_array,
    _finite_real,
    _float_array,
    _read_only,
)
from kinetree.math.spatial import cross_mat
from kinetree.math.transform import Transform

_SYMMETRY_TOL = 1e-12
"""Largest |I[i, j] - I[j, i]| accepted, relative to the matrix's scale."""

_PHYSICAL_TOL = 1e-12
"""Slack, relative to the scale, for the PSD and triangle-inequality checks (rounding)."""

_CENTRAL_HINT = (
    "the given inertia was probably already central (about the mass center, the COM) "
    "rather than about the body origin (the point com is measured from)"
)


def _nonneg_real(value, where: str, what: str, rule: str = "it must be finite and >= 0"):
    """A finite real >= 0 (a length, a factor): InvalidArgumentError for a missing or
    non-scalar value, NonPhysicalError for a negative or non-finite one."""
    if value is None:
        raise InvalidArgumentError(f"{where}: {what} is missing; pass a number.")
    arr = _float_array(value, where, what)
    if arr.shape != ():
        raise InvalidArgumentError(
            f"{where}: {what} must be a single real number, got an array of shape {arr.shape}."
        )
    x = float(arr)
    if not (np.isfinite(x) and x >= 0.0):
        raise NonPhysicalError(f"{where}: {what} is {x}; {rule}.")
    return x


def _mass(value, where: str) -> float:
    return _nonneg_real(value, where, "mass", "a mass must be finite and >= 0")


def _point_mass_matrix(p: np.ndarray) -> np.ndarray:
    """|p|^2 1 - p p^T: the inertia of a unit point mass at p, about the origin of p."""
    return float(p @ p) * np.eye(3) - np.outer(p, p)


def _validated(m: np.ndarray, where: str, what: str, scale: float = 0.0, hint: str = ""):
    """``m`` symmetrized after checking it is a physical inertia; raise NonPhysicalError
    naming the offending values otherwise. ``scale`` (besides m's own largest entry) sets
    the rounding tolerance, for matrices computed by cancellation of larger ones."""
    tail = f"; {hint}." if hint else "."
    if not np.all(np.isfinite(m)):
        raise NonPhysicalError(
            f"{where}: {what} has non-finite entries {m.tolist()}; all must be finite{tail}"
        )
    s = max(float(np.max(np.abs(m))), scale)
    asym = np.abs(m - m.T)
    if np.max(asym) > _SYMMETRY_TOL * s:
        i, j = np.unravel_index(int(np.argmax(asym)), (3, 3))
        raise NonPhysicalError(
            f"{where}: {what} is not symmetric: I[{i},{j}] = {m[i, j]:.6g} but "
            f"I[{j},{i}] = {m[j, i]:.6g}; an inertia matrix is symmetric (give each product "
            f"of inertia once){tail}"
        )
    m = 0.5 * (m + m.T)
    moments = np.linalg.eigvalsh(m)
    slack = _PHYSICAL_TOL * s
    if moments[0] < -slack:
        raise NonPhysicalError(
            f"{where}: {what} is not positive semidefinite: its principal moments are "
            f"{moments.tolist()}, and {moments[0]:.6g} < 0; no mass distribution has a "
            f"negative moment of inertia{tail}"
        )
    if moments[2] > moments[0] + moments[1] + slack:
        raise NonPhysicalError(
            f"{where}: {what} breaks the triangle inequality: its principal moments are "
            f"{moments.tolist()}, and {moments[2]:.6g} > {moments[0]:.6g} + {moments[1]:.6g}; "
            f"each principal moment of a mass distribution is at most the sum of the other "
            f"two{tail}"
        )
    return m


class Inertia:
    """An immutable inertia matrix I_OF (kg m^2) about a point O, expressed in a frame F.

    ``Inertia(ixx, iyy, izz, ixy=0, ixz=0, iyz=0)`` from moments and products;
    ``Inertia(moment)`` the isotropic ixx = iyy = izz = moment; ``Inertia(matrix)`` from a
    symmetric 3x3 array-like. The matrix is [[ixx, ixy, ixz], [ixy, iyy, iyz],
    [ixz, iyz, izz]] (products enter with the sign they have in the matrix).
    """

    __slots__ = ("_m",)
    __array_ufunc__ = None

    def __init__(self, ixx, iyy=None, izz=None, ixy=0.0, ixz=0.0, iyz=0.0):
        where = type(self).__name__
        if iyy is None and izz is None:
            if any(np.any(np.asarray(x) != 0) for x in (ixy, ixz, iyz)):
                raise InvalidArgumentError(
                    f"{where}: products of inertia were given with a single moment or matrix; "
                    "pass ixx, iyy, izz and the products, or the full 3x3 matrix."
                )
            arr = _float_array(ixx, where, "the inertia")
            if arr.shape == ():
                m = float(arr) * np.eye(3)
            elif arr.shape == (3, 3):
                m = arr
            else:
                raise InvalidArgumentError(
                    f"{where}: got an array of shape {arr.shape}; pass one moment, a 3x3 "
                    "matrix, or ixx, iyy, izz (and optionally ixy, ixz, iyz)."
                )
        elif iyy is None or izz is None:
            raise InvalidArgumentError(
                f"{where}: give all three moments ixx, iyy and izz (or one isotropic moment)."
            )
        else:
            xx, yy, zz, xy, xz, yz = (
                _finite_real(x, where, name)
                for x, name in zip(
                    (ixx, iyy, izz, ixy, ixz, iyz), ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
                )
            )
            m = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        object.__setattr__(self, "_m", _read_only(_validated(m, where, "the inertia matrix")))

    @classmethod
    def _checked(cls, m: np.ndarray, where: str, what: str, scale=0.0, hint=""):
        """A ``cls`` around ``m`` after checking it physical (see ``_validated``)."""
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_m", _read_only(_validated(m, where, what, scale, hint)))
        return obj

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; build a new one instead.")

    def __deepcopy__(self, memo) -> Inertia:
        return self      # immutable: a copy may share it

    def __reduce__(self):
        return (_trusted_inertia, (type(self), np.array(self._m)))

    def _scale(self) -> float:
        return float(np.max(np.abs(self._m)))

    # ---- access -------------------------------------------------------------------------

    def get_moments(self) -> np.ndarray:
        """[ixx, iyy, izz], the diagonal, as a new array."""
        return np.diag(self._m).copy()

    def get_products(self) -> np.ndarray:
        """[ixy, ixz, iyz], the off-diagonal entries as they appear in the matrix."""
        return np.array([self._m[0, 1], self._m[0, 2], self._m[1, 2]])

    def as_mat33(self) -> np.ndarray:
        """The symmetric 3x3 matrix, as a new writable array."""
        return self._m.copy()

    # ---- arithmetic ---------------------------------------------------------------------

    def _sum_class(self, other):
        return type(self) if type(self) is type(other) else Inertia

    def __add__(self, other):
        """The inertia of two mass distributions together; both about the same point and
        expressed in the same frame."""
        if not isinstance(other, Inertia):
            return NotImplemented
        scale = max(self._scale(), other._scale())
        return self._sum_class(other)._checked(
            self._m + other._m, "Inertia +", "the sum", scale
        )

    def __sub__(self, other):
        """The inertia left after removing ``other`` (same point, same frame); refused when
        the remainder is not a physical inertia."""
        if not isinstance(other, Inertia):
            return NotImplemented
        scale = max(self._scale(), other._scale())
        return self._sum_class(other)._checked(
            self._m - other._m, "Inertia -", "the difference", scale
        )

    def __mul__(self, scalar):
        """This inertia scaled by a finite real >= 0; always an ``Inertia`` (so
        ``mass * unit_inertia`` is an Inertia in kg m^2)."""
        if isinstance(scalar, bool) or not isinstance(scalar, (int, float, np.number)):
            return NotImplemented
        s = _nonneg_real(scalar, f"{type(self).__name__} *", "the factor")
        return Inertia._checked(self._m * s, "Inertia *", "the scaled inertia")

    __rmul__ = __mul__

    # ---- shifting and re-expressing -----------------------------------------------------

    def shift_to_mass_center(self, com, mass) -> Inertia:
        """I_C = I_O - mass (|c|^2 1 - c c^T): this inertia, taken about a point O, moved to
        the mass center C (parallel-axis theorem); ``com`` is c = p_OC, expressed in the
        same frame as this inertia, and ``mass`` in kg."""
        where = "Inertia.shift_to_mass_center"
        c = _finite_array(com, (3,), where, "com")
        pm = _mass(mass, where) * _point_mass_matrix(c)
        scale = max(self._scale(), float(np.max(np.abs(pm))))
        return Inertia._checked(
            self._m - pm, where, "the inertia about the mass center", scale, _CENTRAL_HINT
        )

    def shift_from_mass_center(self, p, mass) -> Inertia:
        """I_P = I_C + mass (|p|^2 1 - p p^T): this inertia, taken about the mass center C,
        moved to the point P with p = p_CP expressed in the same frame (parallel-axis
        theorem); ``mass`` in kg."""
        where = "Inertia.shift_from_mass_center"
        p = _finite_array(p, (3,), where, "p")
        return Inertia._checked(
            self._m + _mass(mass, where) * _point_mass_matrix(p), where, "the shifted inertia"
        )

    def reexpress(self, R_FB) -> Inertia:
        """This inertia (about the same point) expressed in frame B instead of F:
        I_B = R_FB^T I_F R_FB. ``R_FB`` (B's orientation in F) is a Rotation or a 3x3 array.
        Keeps the class (a UnitInertia stays one)."""
        r = (R_FB if isinstance(R_FB, Rotation) else Rotation(R_FB)).as_matrix()
        return type(self)._checked(
            r.T @ self._m @ r, f"{type(self).__name__}.reexpress", "the re-expressed inertia",
            self._scale(),
        )

    def calc_principal_moments_and_axes(self) -> tuple[np.ndarray, Rotation]:
        """(moments, R_FP): the principal moments in ascending order and the Rotation whose
        columns are the matching principal axes expressed in F, so that
        I_F = R_FP diag(moments) R_FP^T."""
        moments, axes = np.linalg.eigh(self._m)
        if np.linalg.det(axes) < 0.0:
            axes[:, 2] = -axes[:, 2]
        return moments, Rotation(axes)

    @classmethod
    def point_mass_at(cls, p, mass) -> Inertia:
        """Simbody's ``Inertia(p, m)``: the inertia about the origin O of a point mass
        ``mass`` (kg) at p = p_OQ (m), expressed in the frame p is expressed in:
        mass (|p|^2 1 - p p^T)."""
        where = "Inertia.point_mass_at"
        p = _finite_array(p, (3,), where, "p")
        return Inertia._checked(
            _mass(mass, where) * _point_mass_matrix(p), where, "the point-mass inertia"
        )

    def __repr__(self) -> str:
        m = self._m
        values = ", ".join(
            repr(float(x)) for x in (m[0, 0], m[1, 1], m[2, 2], m[0, 1], m[0, 2], m[1, 2])
        )
        return f"{type(self).__name__}({values})"


def _half_lengths_squared(hx, hy, hz, where: str) -> np.ndarray:
    """[hx^2, hy^2, hz^2] after checking each is a finite length >= 0."""
    names = ("hx", "hy", "hz")
    return np.array([_nonneg_real(h, where, n) for h, n in zip((hx, hy, hz), names)]) ** 2


class UnitInertia(Inertia):
    """An inertia per unit mass (m^2), a mass distribution's shape: a mass times it gives
    an ``Inertia``. Constructed like ``Inertia`` or from the named shapes below, each about
    its own center (the point-mass one about the origin) in its own axes."""

    __slots__ = ()

    @classmethod
    def brick(cls, hx, hy=None, hz=None) -> UnitInertia:
        """A solid box of half-lengths hx, hy, hz (m) along x, y, z (or one 3-vector), about
        its center: ixx = (hy^2 + hz^2)/3 and cyclically."""
        where = "UnitInertia.brick"
        if hy is None and hz is None:
            hx, hy, hz = _finite_array(hx, (3,), where, "the half-lengths")
        h = _half_lengths_squared(hx, hy, hz, where)
        return cls._checked(
            np.diag([h[1] + h[2], h[0] + h[2], h[0] + h[1]]) / 3.0, where, "the brick inertia"
        )

    @classmethod
    def _cylinder(cls, r, h, axis: int, where: str) -> UnitInertia:
        r2 = _nonneg_real(r, where, "the radius r") ** 2
        h2 = _nonneg_real(h, where, "the half-length") ** 2
        moments = np.full(3, r2 / 4.0 + h2 / 3.0)
        moments[axis] = r2 / 2.0
        return cls._checked(np.diag(moments), where, "the cylinder inertia")

    @classmethod
    def cylinder_along_x(cls, r, hx) -> UnitInertia:
        """A solid cylinder of radius r and half-length hx (m) along x, about its center:
        ixx = r^2/2, iyy = izz = r^2/4 + hx^2/3."""
        return cls._cylinder(r, hx, 0, "UnitInertia.cylinder_along_x")

    @classmethod
    def cylinder_along_y(cls, r, hy) -> UnitInertia:
        """A solid cylinder of radius r and half-length hy (m) along y, about its center:
        iyy = r^2/2, ixx = izz = r^2/4 + hy^2/3."""
        return cls._cylinder(r, hy, 1, "UnitInertia.cylinder_along_y")

    @classmethod
    def cylinder_along_z(cls, r, hz) -> UnitInertia:
        """A solid cylinder of radius r and half-length hz (m) along z, about its center:
        izz = r^2/2, ixx = iyy = r^2/4 + hz^2/3."""
        return cls._cylinder(r, hz, 2, "UnitInertia.cylinder_along_z")

    @classmethod
    def sphere(cls, r) -> UnitInertia:
        """A solid sphere of radius r (m), about its center: 2 r^2 / 5 about every axis."""
        r2 = _nonneg_real(r, "UnitInertia.sphere", "the radius r") ** 2
        return cls._checked(0.4 * r2 * np.eye(3), "UnitInertia.sphere", "the sphere inertia")

    @classmethod
    def ellipsoid(cls, hx, hy, hz) -> UnitInertia:
        """A solid ellipsoid of semi-axes hx, hy, hz (m) along x, y, z, about its center:
        ixx = (hy^2 + hz^2)/5 and cyclically."""
        where = "UnitInertia.ellipsoid"
        h = _half_lengths_squared(hx, hy, hz, where)
        return cls._checked(
            np.diag([h[1] + h[2], h[0] + h[2], h[0] + h[1]]) / 5.0, where, "the ellipsoid inertia"
        )

    @classmethod
    def point_mass_at(cls, p) -> UnitInertia:
        """The unit inertia about the origin O of a point at p = p_OQ (m): |p|^2 1 - p p^T."""
        where = "UnitInertia.point_mass_at"
        p = _finite_array(p, (3,), where, "p")
        return cls._checked(_point_mass_matrix(p), where, "the point-mass inertia")

    def shift_to_centroid(self, com) -> UnitInertia:
        """This unit inertia, about a point O, moved to the centroid at com = p_OC (same
        frame): G - (|c|^2 1 - c c^T)."""
        where = "UnitInertia.shift_to_centroid"
        c = _finite_array(com, (3,), where, "com")
        pm = _point_mass_matrix(c)
        scale = max(self._scale(), float(np.max(np.abs(pm))))
        return UnitInertia._checked(
            self._m - pm, where, "the unit inertia about the centroid", scale, _CENTRAL_HINT
        )

    def shift_from_centroid(self, p) -> UnitInertia:
        """This unit inertia, about the centroid C, moved to the point at p = p_CP (same
        frame): G + (|p|^2 1 - p p^T)."""
        where = "UnitInertia.shift_from_centroid"
        p = _finite_array(p, (3,), where, "p")
        return UnitInertia._checked(self._m + _point_mass_matrix(p), where, "the shifted inertia")


class MassProperties:
    """A body's mass (kg), mass center c = p_BoC (m, from the body origin, in the body
    frame B) and inertia (kg m^2) ABOUT THE BODY ORIGIN, expressed in B, as Simbody keeps
    them. ``inertia`` is an ``Inertia`` (or a 3x3 array), or a ``UnitInertia``, which is
    then multiplied by the mass. Zero mass is allowed."""

    __slots__ = ("_mass", "_com", "_inertia")

    def __init__(self, mass, com, inertia):
        where = "MassProperties"
        m = _mass(mass, where)
        c = _finite_array(com, (3,), where, "the mass center com")
        if isinstance(inertia, UnitInertia):
            inertia = m * inertia
        elif not isinstance(inertia, Inertia):
            inertia = Inertia(inertia)
        with np.errstate(over="ignore", invalid="ignore"):
            pm = m * _point_mass_matrix(c)
        if not np.all(np.isfinite(pm)):
            raise NonPhysicalError(
                f"{where}: the mass center com = {c.tolist()} m is so far from the body "
                f"origin that m |c|^2 ({m:g} kg) overflows floating point; check the units "
                f"(kinetree works in metres and kilograms).")
        _validated(
            inertia._m - pm,
            where,
            "the inertia about the mass center, I_o - m (|c|^2 1 - c c^T),",
            max(inertia._scale(), float(np.max(np.abs(pm)))),
            "the inertia given to MassProperties must be about the body origin, not the "
            "COM (use Inertia.shift_from_mass_center(com, mass) to move a central inertia "
            "to the body origin)",
        )
        self._set(m, c, inertia)

    def _set(self, mass: float, com: np.ndarray, inertia: Inertia) -> None:
        object.__setattr__(self, "_mass", mass)
        object.__setattr__(self, "_com", _read_only(com))
        object.__setattr__(self, "_inertia", inertia)

    @classmethod
    def _trusted(cls, mass: float, com: np.ndarray, inertia: Inertia) -> MassProperties:
        """Mass properties derived from valid ones (no re-check)."""
        obj = cls.__new__(cls)
        obj._set(mass, com, inertia)
        return obj

    def __setattr__(self, name, value):
        raise AttributeError("MassProperties is immutable; build a new one instead.")

    def __deepcopy__(self, memo) -> MassProperties:
        return self      # immutable: a copy may share it

    def __reduce__(self):
        return (MassProperties._trusted, (self._mass, np.array(self._com), self._inertia))

    def get_mass(self) -> float:
        """The mass (kg)."""
        return self._mass

    def get_mass_center(self) -> np.ndarray:
        """c = p_BoC, the mass center from the body origin, in B (m; read-only array)."""
        return self._com

    def get_inertia(self) -> Inertia:
        """I_Bo, the inertia about the body origin, expressed in B (kg m^2)."""
        return self._inertia

    def get_unit_inertia(self) -> UnitInertia:
        """I_Bo / mass, the inertia per unit mass about the body origin, in B (m^2). A
        massless body has one only if its inertia is zero too."""
        if self._mass == 0.0:
            if np.any(self._inertia._m):
                raise NonPhysicalError(
                    "MassProperties.get_unit_inertia: the body is massless but has inertia "
                    f"{self._inertia!r}, so its inertia per unit mass is infinite; give it a "
                    "mass, or ask for get_inertia() instead."
                )
            return UnitInertia(0.0)
        return UnitInertia._checked(
            self._inertia._m / self._mass, "MassProperties.get_unit_inertia", "the unit inertia"
        )

    def calc_central_inertia(self) -> Inertia:
        """I_C, the inertia about the mass center, expressed in B (kg m^2)."""
        return self._inertia.shift_to_mass_center(self._com, self._mass)

    def calc_shifted_inertia(self, new_origin_B) -> Inertia:
        """The inertia about the point ``new_origin_B`` (from the body origin, in B, m),
        expressed in B: I_C + mass (|d|^2 1 - d d^T) with d = new_origin_B - c."""
        p = _finite_array(new_origin_B, (3,), "MassProperties.calc_shifted_inertia",
                          "new_origin_B")
        return self.calc_central_inertia().shift_from_mass_center(p - self._com, self._mass)

    def calc_shifted_mass_props(self, new_origin_B) -> MassProperties:
        """These mass properties with their origin moved to ``new_origin_B`` (from the body
        origin, in B, m); the axes are unchanged."""
        p = _finite_array(new_origin_B, (3,), "MassProperties.calc_shifted_mass_props",
                          "new_origin_B")
        return MassProperties._trusted(self._mass, self._com - p, self.calc_shifted_inertia(p))

    def reexpress(self, R_BC) -> MassProperties:
        """These mass properties expressed in frame C instead of B, same origin: the mass
        center becomes R_BC^T c and the inertia R_BC^T I R_BC. ``R_BC`` (C's orientation in
        B) is a Rotation or a 3x3 array."""
        rotation = R_BC if isinstance(R_BC, Rotation) else Rotation(R_BC)
        return MassProperties._trusted(
            self._mass, rotation.invert() @ self._com, self._inertia.reexpress(rotation)
        )

    def calc_transformed_mass_props(self, X_BC) -> MassProperties:
        """These mass properties measured from frame C's origin and expressed in C, given
        X_BC (the pose of C in B, a Transform)."""
        if not isinstance(X_BC, Transform):
            raise InvalidArgumentError(
                f"MassProperties.calc_transformed_mass_props: X_BC is a {type(X_BC).__name__};"
                " pass a Transform (Transform(R_BC, p_BC))."
            )
        inertia = self.calc_shifted_inertia(X_BC.p).reexpress(X_BC.R)
        return MassProperties._trusted(
            self._mass, X_BC.shift_base_station_to_frame(self._com), inertia
        )

    def to_spatial_mat(self) -> np.ndarray:
        """The 6x6 spatial inertia about the body origin, in B, in [angular; linear] order:
        [[I_Bo, m [c]x], [-m [c]x, m 1]]. For V = [w; v] (B's angular velocity and its
        origin's velocity, in B) M @ V is the momentum [angular about the origin; linear]
        and V . M V / 2 the kinetic energy."""
        mc = self._mass * cross_mat(np.array(self._com))
        out = np.empty((6, 6))
        out[:3, :3] = self._inertia._m
        out[:3, 3:] = mc
        out[3:, :3] = -mc
        out[3:, 3:] = self._mass * np.eye(3)
        return out

    def is_exactly_massless(self) -> bool:
        """True when the mass is exactly 0."""
        return self._mass == 0.0

    def is_exactly_central(self) -> bool:
        """True when the mass center is exactly at the body origin."""
        return not np.any(self._com)

    def __repr__(self) -> str:
        return f"MassProperties({self._mass!r}, {self._com.tolist()!r}, {self._inertia!r})"


def _trusted_inertia(cls, m: np.ndarray) -> Inertia:
    """An Inertia (or UnitInertia) around a matrix that was one already (unpickling)."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "_m", _read_only(m))
    return obj
