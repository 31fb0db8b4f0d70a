"""Argument checks and small helpers shared by the built-in constraints between two bodies
(Rod, Ball, Weld, PointInPlane, PointOnLine, ConstantAngle, ConstantOrientation); private.

Every check raises InvalidArgumentError naming the constraint (``where``), the argument and
the fix, before anything is added to the matter subsystem.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.mobilized_body import MobilizedBody


def two_bodies(body1, body2, where: str, name1: str, name2: str):
    """The matter subsystem of two distinct MobilizedBody objects of the same subsystem."""
    for name, body in ((name1, body1), (name2, body2)):
        if not isinstance(body, MobilizedBody):
            raise InvalidArgumentError(
                f"{where}: {name} must be a MobilizedBody (for example matter.Ground() or a "
                f"kt.MobilizedBody.Pin), got {type(body).__name__}.")
    matter = body1.get_matter_subsystem()
    if body2.get_matter_subsystem() is not matter:
        raise InvalidArgumentError(
            f"{where}: {name1} and {name2} belong to different matter subsystems; both "
            f"bodies must be in the same SimbodyMatterSubsystem.")
    if body1 is body2:
        raise InvalidArgumentError(
            f"{where}: {name1} and {name2} are the same body ({body1._name()}), and a body "
            f"cannot move relative to itself, so the equations would be empty or "
            f"unsatisfiable; connect two different bodies.")
    return matter


def real(value, where: str, what: str) -> float:
    """``value`` as a finite float."""
    try:
        if isinstance(value, bool):
            raise TypeError
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{where}: {what} must be a real number, got {value!r}.") from None
    if not math.isfinite(x):
        raise InvalidArgumentError(f"{where}: {what} must be finite, got {x}.")
    return x


def vec3(value, where: str, what: str) -> np.ndarray:
    """``value`` as a new finite 3-vector."""
    try:
        v = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{where}: {what} must be 3 real numbers, got {value!r}.") from None
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InvalidArgumentError(
            f"{where}: {what} must be 3 finite real numbers, got {value!r}.")
    return v


def unit_vec3(value, where: str, what: str) -> np.ndarray:
    """``value`` normalized, as Simbody's UnitVec3 does; a zero vector is refused."""
    v = vec3(value, where, what)
    norm = float(np.linalg.norm(v))
    if norm < 1e-300:
        raise InvalidArgumentError(
            f"{where}: {what} must be a nonzero direction (it is normalized), got {value!r}.")
    return v / norm


def rotation(value, where: str, what: str) -> Rotation:
    """``value`` as a Rotation (a Rotation, or a proper orthonormal 3x3 matrix)."""
    if isinstance(value, Rotation):
        return value
    try:
        return Rotation(value)
    except KinetreeError as exc:
        raise InvalidArgumentError(
            f"{where}: {what} must be a kt.Rotation or a proper orthonormal 3x3 matrix; "
            f"{exc}") from None


def transform(value, where: str, what: str) -> Transform:
    """``value`` as a Transform (a Transform, a Rotation or a translation 3-vector)."""
    if isinstance(value, Transform):
        return value
    try:
        return Transform(value)
    except KinetreeError as exc:
        raise InvalidArgumentError(
            f"{where}: {what} must be a kt.Transform (or a Rotation, or a translation "
            f"p given as 3 numbers); {exc}") from None


def one(constraint, values: np.ndarray, method: str) -> float:
    """The single entry of a one-equation constraint's error or multiplier vector."""
    return float(some(constraint, values, method)[0])


def some(constraint, values: np.ndarray, method: str) -> np.ndarray:
    """A constraint's error or multiplier vector, refused while it is disabled (empty)."""
    if values.size == 0:
        raise InvalidArgumentError(
            f"{constraint._name()}.{method}: the constraint is disabled in this State, so it "
            f"has no equations; enable it first.")
    return values


def perpendicular(z: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to unit z, chosen as Simbody's UnitVec3::perp() does:
    z × (the coordinate axis along which z has its smallest |component|), normalized."""
    a = np.abs(z)
    axis = (0 if a[0] <= a[2] else 2) if a[0] <= a[1] else (1 if a[1] <= a[2] else 2)
    e = np.zeros(3)
    e[axis] = 1.0
    x = np.cross(z, e)
    return x / np.linalg.norm(x)
