"""Rigid transforms: Simbody's ``Transform`` X_AB = (R_AB, p_AB).

X_AB locates frame B in frame A: R_AB is B's orientation in A and p_AB the vector from A's
origin to B's origin, expressed in A (length units of the model, usually m). A station (a
point fixed in B, given by its vector p_BQ from B's origin, expressed in B) maps to A as
p_AQ = p_AB + R_AB p_BQ, which ``X_AB @ p_BQ`` computes; ``X_AB @ X_BC`` is X_AC.
Transforms are immutable.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.rotation import Rotation, _finite_array, _read_only, _vectors


def _column(p: np.ndarray, stations: np.ndarray) -> np.ndarray:
    """``p`` shaped to broadcast against ``stations`` of shape (3,) or (3, n)."""
    return p if stations.ndim == 1 else p[:, None]


class Transform:
    """An immutable rigid transform X_AB: the pose of frame B in frame A.

    ``Transform()`` is the identity; ``Transform(p_AB)`` (a length-3 array-like) a pure
    translation; ``Transform(R_AB)`` (a Rotation) a pure rotation; ``Transform(R_AB, p_AB)``
    both, with R_AB a Rotation or a 3x3 array validated as ``Rotation(matrix)`` does.
    """

    __slots__ = ("_R", "_p")
    __array_ufunc__ = None

    def __init__(self, *args):
        if len(args) > 2:
            raise InvalidArgumentError(
                f"Transform: got {len(args)} arguments; pass none, p, R, or R and p."
            )
        rotation, translation = Rotation(), np.zeros(3)
        if len(args) == 2:
            rotation = Rotation(args[0])
            translation = _finite_array(args[1], (3,), "Transform", "the translation p")
        elif len(args) == 1:
            if isinstance(args[0], Rotation):
                rotation = args[0]
            else:
                translation = _finite_array(args[0], (3,), "Transform", "the translation p")
        object.__setattr__(self, "_R", rotation)
        object.__setattr__(self, "_p", _read_only(translation))

    @classmethod
    def _trusted(cls, rotation: Rotation, translation: np.ndarray) -> Transform:
        """A Transform of an already valid Rotation and a new (3,) array (no checks)."""
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_R", rotation)
        object.__setattr__(obj, "_p", _read_only(translation))
        return obj

    def __setattr__(self, name, value):
        raise AttributeError("Transform is immutable; build a new Transform instead.")

    def __deepcopy__(self, memo) -> Transform:
        return self      # immutable: a copy may share it

    def __reduce__(self):
        return (Transform._trusted, (self._R, np.array(self._p)))

    @property
    def R(self) -> Rotation:
        """R_AB, the orientation of frame B in frame A."""
        return self._R

    @property
    def p(self) -> np.ndarray:
        """p_AB, from A's origin to B's origin, expressed in A (a read-only array)."""
        return self._p

    def get_rotation(self) -> Rotation:
        """R_AB, the orientation of frame B in frame A."""
        return self._R

    def get_translation(self) -> np.ndarray:
        """p_AB, from A's origin to B's origin, expressed in A (a read-only array)."""
        return self._p

    def x(self) -> np.ndarray:
        """Frame B's x axis expressed in A (``R.x()``, a unit vector)."""
        return self._R.x()

    def y(self) -> np.ndarray:
        """Frame B's y axis expressed in A (``R.y()``, a unit vector)."""
        return self._R.y()

    def z(self) -> np.ndarray:
        """Frame B's z axis expressed in A (``R.z()``, a unit vector)."""
        return self._R.z()

    def invert(self) -> Transform:
        """X_BA = (R_AB^T, -R_AB^T p_AB), the pose of A in B."""
        r_ba = self._R.invert()
        return Transform._trusted(r_ba, -(r_ba @ self._p))

    def shift_frame_station_to_base(self, station_B) -> np.ndarray:
        """p_AQ = p_AB + R_AB p_BQ: a station given from B's origin and expressed in B, as a
        vector from A's origin expressed in A. Takes shape (3,) or (3, n)."""
        s = _vectors(station_B, "Transform.shift_frame_station_to_base", "the station")
        return _column(self._p, s) + self._R @ s

    def shift_base_station_to_frame(self, station_A) -> np.ndarray:
        """p_BQ = R_AB^T (p_AQ - p_AB): a station given from A's origin and expressed in A,
        as a vector from B's origin expressed in B. Takes shape (3,) or (3, n)."""
        s = _vectors(station_A, "Transform.shift_base_station_to_frame", "the station")
        return self._R.invert() @ (s - _column(self._p, s))

    def xform_frame_vec_to_base(self, vec_B) -> np.ndarray:
        """R_AB v_B: a free vector (no point of application) re-expressed from B in A."""
        return self._R @ _vectors(vec_B, "Transform.xform_frame_vec_to_base", "the vector")

    def xform_base_vec_to_frame(self, vec_A) -> np.ndarray:
        """R_AB^T v_A: a free vector re-expressed from A in B."""
        vec = _vectors(vec_A, "Transform.xform_base_vec_to_frame", "the vector")
        return self._R.invert() @ vec

    def to_mat44(self) -> np.ndarray:
        """The 4x4 homogeneous matrix [[R_AB, p_AB], [0 0 0 1]], as a new array."""
        m = np.eye(4)
        m[:3, :3] = self._R.as_matrix()
        m[:3, 3] = self._p
        return m

    def is_same_transform(self, other: Transform, tol: float = 1e-12) -> bool:
        """True when the rotations differ by at most ``tol`` rad and the origins by at most
        ``tol`` times the larger of 1 and the two translations' lengths."""
        if not isinstance(other, Transform):
            raise InvalidArgumentError(
                f"Transform.is_same_transform: other is a {type(other).__name__}; pass a "
                "Transform."
            )
        scale = max(1.0, float(np.linalg.norm(self._p)), float(np.linalg.norm(other._p)))
        return bool(
            self._R.is_same_rotation(other._R, tol)
            and np.linalg.norm(self._p - other._p) <= tol * scale
        )

    def __matmul__(self, other):
        """X_AB @ X_BC = X_AC; X_AB @ p_BQ = p_AQ for a station of shape (3,) or (3, n)."""
        if isinstance(other, Transform):
            return Transform._trusted(self._R @ other._R, self._p + self._R @ other._p)
        if isinstance(other, Rotation):
            return NotImplemented
        return self.shift_frame_station_to_base(other)

    def __repr__(self) -> str:
        return f"Transform({self._R!r}, {self._p.tolist()!r})"
