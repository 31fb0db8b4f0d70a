"""Rotation matrices: Simbody's ``Rotation`` and the plain-array kernels of the compiled core.

A ``Rotation`` R_AB is the orientation of frame B in frame A: its columns are B's unit axes
expressed in A, so ``R_AB @ v_B`` gives the same vector expressed in A (``v_A``) and
``R_AB @ R_BC`` is ``R_AC``. Rotations are immutable and always proper orthonormal.

The class converts to and from Euler/Tait-Bryan angles, quaternions and angle-axis through
``scipy.spatial.transform.Rotation``. The ``@numba.njit`` functions below work on plain
float64 arrays, validate nothing, and are what compiled kernels call; they are compiled on
first use and cached on disk. Quaternions are [w, x, y, z] (scalar first, Simbody's order).
Angles are in radians.
"""

from __future__ import annotations

import math
import warnings
from enum import Enum
from typing import TYPE_CHECKING

import numba
import numpy as np

from kinetree.errors import InvalidArgumentError, NonPhysicalError

if TYPE_CHECKING:
    from scipy.spatial.transform import Rotation as _ScipyRotation

_ORTHONORMAL_TOL = 1e-6
"""Largest max |R^T R - I| accepted without ``reorthonormalize=True``."""

_ROUNDOFF_TOL = 1e-14
"""Deviations from orthonormal at or below this are left as they are (rounding only)."""

_AXIS_NAMES = "xyz"


class BodyOrSpaceType(Enum):
    """Whether the three rotations of an angle sequence are about the axes of the moving
    (body) frame, each after the previous rotation, or about the fixed (space) axes."""

    BodyRotationSequence = 0
    SpaceRotationSequence = 1


def _float_array(value, where: str, what: str) -> np.ndarray:
    """``value`` as a new float64 array; InvalidArgumentError when it is not numeric."""
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"{where}: {what} must be numeric, got {value!r}; pass numbers or a numeric array."
        ) from exc


def _finite_real(value, where: str, what: str) -> float:
    """``value`` as a finite float: InvalidArgumentError for a non-scalar, NonPhysicalError
    for NaN or infinity."""
    arr = _float_array(value, where, what)
    if arr.shape != ():
        raise InvalidArgumentError(
            f"{where}: {what} must be a single real number, got an array of shape {arr.shape}."
        )
    if not np.isfinite(arr):
        raise NonPhysicalError(f"{where}: {what} is {float(arr)}; it must be finite.")
    return float(arr)


def _finite_array(value, shape: tuple, where: str, what: str) -> np.ndarray:
    """``value`` as a new finite float64 array of exactly ``shape``: InvalidArgumentError for
    another shape, NonPhysicalError for NaN or infinite entries."""
    arr = _float_array(value, where, what)
    if arr.shape != shape:
        raise InvalidArgumentError(
            f"{where}: {what} must have shape {shape}, got shape {arr.shape}; "
            f"pass {'x'.join(str(n) for n in shape)} numbers."
        )
    if not np.all(np.isfinite(arr)):
        raise NonPhysicalError(
            f"{where}: {what} has non-finite entries {arr.tolist()}; every entry must be finite."
        )
    return arr


def _vectors(value, where: str, what: str) -> np.ndarray:
    """``value`` as a float64 array of shape (3,) or (3, n), the shapes a 3x3 matrix maps;
    InvalidArgumentError otherwise."""
    arr = _float_array(value, where, what)
    if arr.ndim not in (1, 2) or arr.shape[0] != 3:
        raise InvalidArgumentError(
            f"{where}: {what} must have shape (3,) or (3, n), got shape {arr.shape}; "
            "put vectors in the columns of a 3-row array."
        )
    return arr


def _read_only(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def _nearest_rotation(m: np.ndarray) -> np.ndarray:
    """The rotation matrix nearest ``m`` in the Frobenius norm (the orthonormal factor of its
    polar decomposition, from the SVD ``m = U S V^T``: ``U V^T``); ``m`` must have det > 0."""
    u, _, vt = np.linalg.svd(m)
    return u @ vt


def _orthonormality_error(m: np.ndarray) -> float:
    return float(np.max(np.abs(m.T @ m - np.eye(3))))


def _axis_index(axis, where: str, what: str) -> int:
    """An axis given as 0/1/2 or 'x'/'y'/'z' (either case), as 0, 1 or 2."""
    if isinstance(axis, str) and axis.lower() in ("x", "y", "z"):
        return _AXIS_NAMES.index(axis.lower())
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and 0 <= axis <= 2:
        return int(axis)
    raise InvalidArgumentError(
        f"{where}: {what} is {axis!r}; give an axis as 0, 1, 2 or 'x', 'y', 'z'."
    )


def _sequence(body_or_space, axes, where: str) -> str:
    """The scipy sequence string of three axes: upper case (intrinsic) for a body sequence,
    lower case (extrinsic) for a space sequence. Refuses consecutive equal axes."""
    if not isinstance(body_or_space, BodyOrSpaceType):
        raise InvalidArgumentError(
            f"{where}: body_or_space is {body_or_space!r}; pass "
            "BodyOrSpaceType.BodyRotationSequence or BodyOrSpaceType.SpaceRotationSequence."
        )
    idx = [_axis_index(a, where, f"axis{n}") for n, a in enumerate(axes, start=1)]
    for n in (0, 1):
        if idx[n] == idx[n + 1]:
            raise InvalidArgumentError(
                f"{where}: axis{n + 1} and axis{n + 2} are both '{_AXIS_NAMES[idx[n]]}'; "
                "consecutive rotation axes must differ (two rotations about the same axis "
                "are one rotation)."
            )
    seq = "".join(_AXIS_NAMES[i] for i in idx)
    return seq.upper() if body_or_space is BodyOrSpaceType.BodyRotationSequence else seq


def _scipy_rotation():
    """scipy's Rotation class, imported when first needed (scipy is slow to import)."""
    from scipy.spatial.transform import Rotation
    return Rotation


def _as_euler(scipy_rotation: _ScipyRotation, seq: str) -> np.ndarray:
    """scipy's angles for ``seq``, without its gimbal-lock warning: at gimbal lock it sets the
    third angle to zero and the angles still reproduce the rotation."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Gimbal lock", category=UserWarning)
        return scipy_rotation.as_euler(seq)


class Rotation:
    """An immutable proper rotation matrix R_AB (orientation of frame B in frame A).

    ``Rotation()`` is the identity and ``Rotation(other_rotation)`` a copy.
    ``Rotation(matrix)`` takes a 3x3 array-like: it refuses non-finite entries, a determinant
    <= 0 (a reflection or a singular matrix), and a matrix farther than 1e-6
    (max |R^T R - I|) from orthonormal unless ``reorthonormalize=True``, in which case the
    nearest rotation (polar decomposition) is used. Smaller deviations are always replaced by
    the nearest rotation, silently.
    """

    __slots__ = ("_m",)
    __array_ufunc__ = None

    def __init__(self, matrix=None, *, reorthonormalize: bool = False):
        if matrix is None:
            m = np.eye(3)
        elif isinstance(matrix, Rotation):
            m = matrix._m.copy()
        else:
            m = _finite_array(matrix, (3, 3), "Rotation", "the matrix")
            det = float(np.linalg.det(m))
            if det <= 0.0:
                kind = "a reflection" if det < 0.0 else "singular"
                raise NonPhysicalError(
                    f"Rotation: the matrix has determinant {det:.6g}, so it is {kind}; a "
                    "rotation matrix is orthonormal with determinant +1. Give a proper "
                    "rotation (negate one column of a reflection to make it one)."
                )
            err = _orthonormality_error(m)
            if err > _ORTHONORMAL_TOL and not reorthonormalize:
                raise NonPhysicalError(
                    f"Rotation: the matrix is {err:.3g} from orthonormal (max |R^T R - I|), "
                    f"more than the {_ORTHONORMAL_TOL:g} allowed; fix the matrix or pass "
                    "reorthonormalize=True to use the nearest rotation."
                )
            if err > _ROUNDOFF_TOL:
                m = _nearest_rotation(m)
        object.__setattr__(self, "_m", _read_only(m))

    @classmethod
    def _trusted(cls, m: np.ndarray) -> Rotation:
        """A Rotation around a matrix already known to be a rotation (no checks)."""
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_m", _read_only(np.array(m, dtype=np.float64)))
        return obj

    @classmethod
    def _from_scipy(cls, r: _ScipyRotation) -> Rotation:
        return cls._trusted(r.as_matrix())

    def __setattr__(self, name, value):
        raise AttributeError("Rotation is immutable; build a new Rotation instead.")

    def __deepcopy__(self, memo) -> Rotation:
        return self      # immutable: a copy may share it

    def __reduce__(self):
        return (Rotation._trusted, (np.array(self._m),))

    # ---- construction -------------------------------------------------------------------

    @classmethod
    def about_x(cls, angle) -> Rotation:
        """Rotation by ``angle`` (rad) about the common x axis of frames A and B."""
        c, s = _cos_sin(angle, "Rotation.about_x")
        return cls._trusted([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])

    @classmethod
    def about_y(cls, angle) -> Rotation:
        """Rotation by ``angle`` (rad) about the common y axis of frames A and B."""
        c, s = _cos_sin(angle, "Rotation.about_y")
        return cls._trusted([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])

    @classmethod
    def about_z(cls, angle) -> Rotation:
        """Rotation by ``angle`` (rad) about the common z axis of frames A and B."""
        c, s = _cos_sin(angle, "Rotation.about_z")
        return cls._trusted([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    @classmethod
    def about_axis(cls, angle, axis) -> Rotation:
        """Rotation by ``angle`` (rad, right-handed) about ``axis``, a nonzero 3-vector fixed
        in both frames (expressed in A, equally in B); it is normalized here."""
        where = "Rotation.about_axis"
        angle = _finite_real(angle, where, "the angle")
        unit = _unit_axis(axis, where)
        return cls._from_scipy(_scipy_rotation().from_rotvec(angle * unit))

    @classmethod
    def from_body_fixed_xyz(cls, angles) -> Rotation:
        """R = Rx(a) Ry(b) Rz(c) for ``angles`` = [a, b, c] (rad): rotate about x, then about
        the new y, then about the newest z."""
        angles = _finite_array(angles, (3,), "Rotation.from_body_fixed_xyz", "angles")
        return cls._from_scipy(_scipy_rotation().from_euler("XYZ", angles))

    @classmethod
    def from_three_angles_three_axes(
        cls, body_or_space, a1, axis1, a2, axis2, a3, axis3
    ) -> Rotation:
        """Any of the 12 Euler/Tait-Bryan sequences, angles in rad, axes 0/1/2 or 'x'/'y'/'z'.

        A body sequence (i, j, k) gives R = R_i(a1) R_j(a2) R_k(a3) (each rotation about an
        axis of the frame already rotated); a space sequence gives R = R_k(a3) R_j(a2)
        R_i(a1) (all about the fixed axes of A). Consecutive axes must differ.
        """
        where = "Rotation.from_three_angles_three_axes"
        seq = _sequence(body_or_space, (axis1, axis2, axis3), where)
        angles = [_finite_real(a, where, name) for a, name in ((a1, "a1"), (a2, "a2"), (a3, "a3"))]
        return cls._from_scipy(_scipy_rotation().from_euler(seq, angles))

    @classmethod
    def from_one_axis(cls, uvec, axis) -> Rotation:
        """R_AB whose ``axis`` (0/1/2 or 'x'/'y'/'z') of B is ``uvec`` (in A, normalized
        here), the other two axes picked as Simbody's Rotation(UnitVec3, CoordinateAxis)
        picks them: the next axis is uvec × (the coordinate axis of A making the largest
        angle with uvec), normalized, and the last completes a right-handed frame."""
        where = "Rotation.from_one_axis"
        i = _axis_index(axis, where, "axis")
        u = _unit_axis(uvec, where)
        a = np.abs(u)
        least = (0 if a[0] <= a[2] else 2) if a[0] <= a[1] else (1 if a[1] <= a[2] else 2)
        v = np.cross(u, np.eye(3)[least])
        v /= np.linalg.norm(v)
        w = np.cross(u, v)
        w /= np.linalg.norm(w)
        m = np.empty((3, 3))
        m[:, i], m[:, (i + 1) % 3], m[:, (i + 2) % 3] = u, v, w
        return cls._trusted(m)

    @classmethod
    def from_quaternion(cls, q) -> Rotation:
        """The rotation of quaternion ``q`` = [w, x, y, z], normalized here (it need not be
        unit); a zero or non-finite quaternion is refused."""
        q = _finite_array(q, (4,), "Rotation.from_quaternion", "the quaternion")
        if not np.any(q):
            raise NonPhysicalError(
                "Rotation.from_quaternion: the quaternion is zero, which is no rotation; "
                "give a nonzero [w, x, y, z] ([1, 0, 0, 0] is the identity)."
            )
        q = q / np.linalg.norm(q)
        return cls._from_scipy(_scipy_rotation().from_quat([q[1], q[2], q[3], q[0]]))

    # ---- conversion ---------------------------------------------------------------------

    def as_matrix(self) -> np.ndarray:
        """The 3x3 matrix R_AB, as a new writable array."""
        return self._m.copy()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """The 3x3 matrix for numpy: ``np.asarray(R)`` a read-only view, ``np.array(R)``
        a copy."""
        m = self._m if dtype is None else self._m.astype(dtype)
        return m.copy() if copy else m

    def x(self) -> np.ndarray:
        """B's x axis expressed in A: the first column of R_AB (a unit vector)."""
        return self._m[:, 0].copy()

    def y(self) -> np.ndarray:
        """B's y axis expressed in A: the second column of R_AB (a unit vector)."""
        return self._m[:, 1].copy()

    def z(self) -> np.ndarray:
        """B's z axis expressed in A: the third column of R_AB (a unit vector)."""
        return self._m[:, 2].copy()

    # ---- kinematic matrices (Simbody's static Rotation::calc... and convert...) ---------

    @staticmethod
    def calc_n_for_body_xyz_in_body_frame(q) -> np.ndarray:
        """N_B (3x3) with q̇ = N_B w_PB_B for body-fixed x-y-z angles q (rad), w_PB_B being
        B's angular velocity in P expressed in B; singular as q[1] nears ±90°."""
        q = _finite_array(q, (3,), "Rotation.calc_n_for_body_xyz_in_body_frame", "q")
        s1, c1, s2, c2 = math.sin(q[1]), math.cos(q[1]), math.sin(q[2]), math.cos(q[2])
        return np.array([[c2 / c1, -s2 / c1, 0.0],
                         [s2, c2, 0.0],
                         [-s1 * c2 / c1, s1 * s2 / c1, 1.0]])

    @staticmethod
    def calc_n_dot_for_body_xyz_in_body_frame(q, qdot) -> np.ndarray:
        """Ṅ_B (3x3), the time derivative of ``calc_n_for_body_xyz_in_body_frame`` at angles
        q (rad) changing at q̇ (rad/s)."""
        where = "Rotation.calc_n_dot_for_body_xyz_in_body_frame"
        q, qdot = _finite_array(q, (3,), where, "q"), _finite_array(qdot, (3,), where, "qdot")
        s1, c1, s2, c2 = math.sin(q[1]), math.cos(q[1]), math.sin(q[2]), math.cos(q[2])
        s2oc1, c2oc1 = s2 / c1, c2 / c1
        t = qdot[1] * s1 / c1
        a = t * s2oc1 + qdot[2] * c2oc1  # d/dt s2/c1
        b = t * c2oc1 - qdot[2] * s2oc1  # d/dt c2/c1
        return np.array([[b, -a, 0.0],
                         [qdot[2] * c2, -qdot[2] * s2, 0.0],
                         [-(s1 * b + qdot[1] * c2), s1 * a + qdot[1] * s2, 0.0]])

    @staticmethod
    def calc_n_inv_for_body_xyz_in_body_frame(q) -> np.ndarray:
        """N_B⁻¹ (3x3) with w_PB_B = N_B⁻¹ q̇ for body-fixed x-y-z angles q (rad); never
        singular."""
        q = _finite_array(q, (3,), "Rotation.calc_n_inv_for_body_xyz_in_body_frame", "q")
        s1, c1, s2, c2 = math.sin(q[1]), math.cos(q[1]), math.sin(q[2]), math.cos(q[2])
        return np.array([[c1 * c2, s2, 0.0],
                         [-c1 * s2, c2, 0.0],
                         [s1, 0.0, 1.0]])

    @staticmethod
    def calc_unnormalized_n_for_quaternion(q) -> np.ndarray:
        """N (4x3) with q̇ = N w_PB_P for a quaternion q = [w, x, y, z], not normalized
        (N = |q| N' with N' that of q/|q|); w_PB_P is in the parent frame."""
        e = _finite_array(q, (4,), "Rotation.calc_unnormalized_n_for_quaternion", "q") / 2
        return np.array([[-e[1], -e[2], -e[3]],
                         [e[0], e[3], -e[2]],
                         [-e[3], e[0], e[1]],
                         [e[2], -e[1], e[0]]])

    @staticmethod
    def calc_unnormalized_n_inv_for_quaternion(q) -> np.ndarray:
        """N⁻¹ (3x4) with w_PB_P = N⁻¹ q̇ for a quaternion q, not normalized: N⁻¹ N =
        |q|² I (the identity for a unit quaternion)."""
        e = 2 * _finite_array(q, (4,), "Rotation.calc_unnormalized_n_inv_for_quaternion", "q")
        return np.array([[-e[1], e[0], -e[3], e[2]],
                         [-e[2], e[3], e[0], -e[1]],
                         [-e[3], -e[2], e[1], e[0]]])

    @staticmethod
    def convert_ang_vel_dot_in_body_frame_to_body_xyz_dot_dot(q, w_PB_B, wdot_PB_B):
        """q̈ = N_B ẇ + Ṅ_B w of body-fixed x-y-z angles q (rad), from B's angular velocity
        w_PB_B (rad/s) and acceleration wdot_PB_B (rad/s²) in P, both expressed in B."""
        where = "Rotation.convert_ang_vel_dot_in_body_frame_to_body_xyz_dot_dot"
        w = _finite_array(w_PB_B, (3,), where, "w_PB_B")
        wdot = _finite_array(wdot_PB_B, (3,), where, "wdot_PB_B")
        N = Rotation.calc_n_for_body_xyz_in_body_frame(q)
        NDot = Rotation.calc_n_dot_for_body_xyz_in_body_frame(q, N @ w)
        return N @ wdot + NDot @ w

    @staticmethod
    def convert_ang_vel_dot_to_quaternion_dot_dot(q, w_PB, b_PB) -> np.ndarray:
        """q̈ = N b + Ṅ w = N b - |w|²/4 q of a quaternion q (not normalized), from B's
        angular velocity w_PB (rad/s) and acceleration b_PB (rad/s²) in P, in P."""
        where = "Rotation.convert_ang_vel_dot_to_quaternion_dot_dot"
        q = _finite_array(q, (4,), where, "q")
        w = _finite_array(w_PB, (3,), where, "w_PB")
        b = _finite_array(b_PB, (3,), where, "b_PB")
        return Rotation.calc_unnormalized_n_for_quaternion(q) @ b - 0.25 * (w @ w) * q

    def _scipy(self) -> _ScipyRotation:
        return _scipy_rotation().from_matrix(self._m)

    def convert_rotation_to_body_fixed_xyz(self) -> np.ndarray:
        """Angles [a, b, c] (rad) with R = Rx(a) Ry(b) Rz(c); b in [-pi/2, pi/2], a and c in
        [-pi, pi]. At gimbal lock (|b| = pi/2) c is 0 and the angles still reproduce R."""
        return _as_euler(self._scipy(), "XYZ")

    def convert_three_axes_rotation_to_three_angles(
        self, body_or_space, axis1, axis2, axis3
    ) -> np.ndarray:
        """Angles [a1, a2, a3] (rad) that ``from_three_angles_three_axes`` turns back into this
        rotation with the same sequence. a1 and a3 are in [-pi, pi]; a2 in [-pi/2, pi/2] for a
        Tait-Bryan sequence (three different axes) and in [0, pi] for an Euler one
        (axis1 == axis3). At gimbal lock one angle is set to 0 and R is still reproduced."""
        where = "Rotation.convert_three_axes_rotation_to_three_angles"
        seq = _sequence(body_or_space, (axis1, axis2, axis3), where)
        return _as_euler(self._scipy(), seq)

    def convert_rotation_to_quaternion(self) -> np.ndarray:
        """The unit quaternion [w, x, y, z] of this rotation, in canonical form (w >= 0)."""
        x, y, z, w = self._scipy().as_quat(canonical=True)
        return np.array([w, x, y, z])

    def convert_rotation_to_angle_axis(self) -> np.ndarray:
        """[angle, ax, ay, az]: the angle (rad, in [0, pi]) and unit axis (in A, equally in
        B) of this rotation; the identity gives [0, 1, 0, 0]."""
        rotvec = self._scipy().as_rotvec()
        largest = float(np.abs(rotvec).max())
        if largest == 0.0:
            return np.array([0.0, 1.0, 0.0, 0.0])
        scaled = rotvec / largest           # avoids underflow for tiny angles
        axis = scaled / np.linalg.norm(scaled)
        return np.concatenate(([min(float(np.linalg.norm(rotvec)), math.pi)], axis))

    # ---- algebra ------------------------------------------------------------------------

    def invert(self) -> Rotation:
        """R_BA, the inverse of R_AB (its transpose)."""
        return Rotation._trusted(self._m.T)

    def transpose(self) -> Rotation:
        """The transpose, which for a rotation is the inverse R_BA."""
        return self.invert()

    def reorthonormalize(self) -> Rotation:
        """The rotation nearest this one's matrix; removes rounding drift accumulated by long
        chains of products."""
        return Rotation._trusted(_nearest_rotation(self._m))

    def is_same_rotation(self, other: Rotation, tol: float = 1e-12) -> bool:
        """True when the rotation carrying this one into ``other`` turns by at most ``tol``
        radians (computed with atan2, accurate for tiny angles)."""
        if not isinstance(other, Rotation):
            raise InvalidArgumentError(
                f"Rotation.is_same_rotation: other is a {type(other).__name__}; pass a "
                "Rotation (wrap a matrix with Rotation(matrix))."
            )
        d = self._m.T @ other._m
        skew = np.array([d[2, 1] - d[1, 2], d[0, 2] - d[2, 0], d[1, 0] - d[0, 1]])
        angle = math.atan2(0.5 * float(np.linalg.norm(skew)), 0.5 * (float(np.trace(d)) - 1.0))
        return angle <= tol

    def __matmul__(self, other):
        """R_AB @ R_BC = R_AC; R_AB @ v_B = v_A for a vector (3,) or vectors in columns
        (3, n)."""
        if isinstance(other, Rotation):
            return Rotation._trusted(self._m @ other._m)
        return self._m @ _vectors(other, "Rotation @", "the vector")

    def __repr__(self) -> str:
        return f"Rotation({self._m.tolist()!r})"


def _cos_sin(angle, where: str) -> tuple[float, float]:
    angle = _finite_real(angle, where, "the angle")
    return math.cos(angle), math.sin(angle)


def _unit_axis(axis, where: str) -> np.ndarray:
    """``axis`` (a finite 3-vector) normalized; a zero axis is refused."""
    axis = _finite_array(axis, (3,), where, "the axis")
    norm = float(np.linalg.norm(axis))
    if norm == 0.0:
        raise NonPhysicalError(
            f"{where}: the axis is zero, which has no direction; give a nonzero 3-vector."
        )
    return axis / norm


# ---- plain-array kernels (numba) -----------------------------------------------------------


@numba.njit(cache=True)
def quaternion_normalize(q):
    """q / |q| for a quaternion [w, x, y, z] (length-4 float array); a zero q gives NaN."""
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    out = np.empty(4)
    for i in range(4):
        out[i] = q[i] / n
    return out


@numba.njit(cache=True)
def quaternion_to_matrix_into(q, r):
    """Write into r (3x3) the rotation matrix of quaternion q = [w, x, y, z]; q need not
    be unit (it is normalized by dividing by |q|^2), but must be nonzero."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    s = 2.0 / (w * w + x * x + y * y + z * z)
    r[0, 0] = 1.0 - s * (y * y + z * z)
    r[0, 1] = s * (x * y - w * z)
    r[0, 2] = s * (x * z + w * y)
    r[1, 0] = s * (x * y + w * z)
    r[1, 1] = 1.0 - s * (x * x + z * z)
    r[1, 2] = s * (y * z - w * x)
    r[2, 0] = s * (x * z - w * y)
    r[2, 1] = s * (y * z + w * x)
    r[2, 2] = 1.0 - s * (x * x + y * y)


@numba.njit(cache=True)
def quaternion_to_matrix(q):
    """The 3x3 rotation matrix of quaternion q = [w, x, y, z] (a new array); see
    quaternion_to_matrix_into."""
    r = np.empty((3, 3))
    quaternion_to_matrix_into(q, r)
    return r


@numba.njit(cache=True)
def matrix_to_quaternion(r):
    """The unit quaternion [w, x, y, z] (w >= 0) of rotation matrix r, by Shepperd's method:
    the largest of 4w^2, 4x^2, 4y^2, 4z^2 is computed from the diagonal, the other three
    from off-diagonal sums and differences, so no division by a small number occurs."""
    tr = r[0, 0] + r[1, 1] + r[2, 2]
    q = np.empty(4)
    if tr >= r[0, 0] and tr >= r[1, 1] and tr >= r[2, 2]:
        q[0] = 0.5 * math.sqrt(1.0 + tr)
        f = 0.25 / q[0]
        q[1] = (r[2, 1] - r[1, 2]) * f
        q[2] = (r[0, 2] - r[2, 0]) * f
        q[3] = (r[1, 0] - r[0, 1]) * f
    elif r[0, 0] >= r[1, 1] and r[0, 0] >= r[2, 2]:
        q[1] = 0.5 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        f = 0.25 / q[1]
        q[0] = (r[2, 1] - r[1, 2]) * f
        q[2] = (r[0, 1] + r[1, 0]) * f
        q[3] = (r[0, 2] + r[2, 0]) * f
    elif r[1, 1] >= r[2, 2]:
        q[2] = 0.5 * math.sqrt(1.0 - r[0, 0] + r[1, 1] - r[2, 2])
        f = 0.25 / q[2]
        q[0] = (r[0, 2] - r[2, 0]) * f
        q[1] = (r[0, 1] + r[1, 0]) * f
        q[3] = (r[1, 2] + r[2, 1]) * f
    else:
        q[3] = 0.5 * math.sqrt(1.0 - r[0, 0] - r[1, 1] + r[2, 2])
        f = 0.25 / q[3]
        q[0] = (r[1, 0] - r[0, 1]) * f
        q[1] = (r[0, 2] + r[2, 0]) * f
        q[2] = (r[1, 2] + r[2, 1]) * f
    if q[0] < 0.0:
        for i in range(4):
            q[i] = -q[i]
    return q


@numba.njit(cache=True)
def body_fixed_xyz_to_matrix(angles):
    """R = Rx(a) Ry(b) Rz(c) for angles = [a, b, c] (rad)."""
    ca, sa = math.cos(angles[0]), math.sin(angles[0])
    cb, sb = math.cos(angles[1]), math.sin(angles[1])
    cc, sc = math.cos(angles[2]), math.sin(angles[2])
    r = np.empty((3, 3))
    r[0, 0] = cb * cc
    r[0, 1] = -cb * sc
    r[0, 2] = sb
    r[1, 0] = ca * sc + sa * sb * cc
    r[1, 1] = ca * cc - sa * sb * sc
    r[1, 2] = -sa * cb
    r[2, 0] = sa * sc - ca * sb * cc
    r[2, 1] = sa * cc + ca * sb * sc
    r[2, 2] = ca * cb
    return r


@numba.njit(cache=True)
def matrix_to_body_fixed_xyz(r):
    """Angles [a, b, c] (rad) with r = Rx(a) Ry(b) Rz(c), b in [-pi/2, pi/2], a and c in
    [-pi, pi]. c is computed from a (not independently), so the angles reproduce r near
    gimbal lock too; at gimbal lock (cos b below 1e-13) c is 0, as the class's
    ``convert_rotation_to_body_fixed_xyz`` gives."""
    cb = math.sqrt(r[0, 0] * r[0, 0] + r[0, 1] * r[0, 1])
    b = math.atan2(r[0, 2], cb)
    if cb <= 1e-13:
        a = math.atan2(r[2, 1], r[1, 1])
        c = 0.0
    else:
        a = math.atan2(-r[1, 2], r[2, 2])
        ca, sa = math.cos(a), math.sin(a)
        c = math.atan2(ca * r[1, 0] + sa * r[2, 0], ca * r[1, 1] + sa * r[2, 1])
    out = np.empty(3)
    out[0] = a
    out[1] = b
    out[2] = c
    return out


@numba.njit(cache=True)
def angle_axis_to_matrix(angle, axis):
    """Rotation by ``angle`` (rad) about ``axis`` (a nonzero 3-vector, normalized here), by
    Rodrigues' formula R = cos(angle) 1 + sin(angle) [k]x + (1 - cos(angle)) k k^T."""
    n = math.sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
    kx, ky, kz = axis[0] / n, axis[1] / n, axis[2] / n
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    r = np.empty((3, 3))
    r[0, 0] = c + t * kx * kx
    r[0, 1] = t * kx * ky - s * kz
    r[0, 2] = t * kx * kz + s * ky
    r[1, 0] = t * kx * ky + s * kz
    r[1, 1] = c + t * ky * ky
    r[1, 2] = t * ky * kz - s * kx
    r[2, 0] = t * kx * kz - s * ky
    r[2, 1] = t * ky * kz + s * kx
    r[2, 2] = c + t * kz * kz
    return r
