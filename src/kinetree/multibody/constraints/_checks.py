"""Argument checks and small helpers shared by the built-in constraint types (private).

Every check raises InvalidArgumentError naming the constraint (``where``), the argument and
the fix, before anything is added to the matter subsystem.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.math.functions import Function
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.matter import SimbodyMatterSubsystem
from kinetree.multibody.mobilized_body import MobilizedBody


def index(value, where: str, what: str) -> int:
    """``value`` as a non-negative int (a MobilizerQIndex / MobilizerUIndex)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        i = operator.index(value)
    except TypeError:
        raise InvalidArgumentError(
            f"{where}: {what} must be a non-negative integer index, got {value!r}.") from None
    if i < 0:
        raise InvalidArgumentError(f"{where}: {what} must be >= 0, got {i}.")
    return i


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
    """``value`` normalized (Simbody's UnitVec3); a zero vector is refused."""
    v = vec3(value, where, what)
    norm = float(np.linalg.norm(v))
    if norm < 1e-300:
        raise InvalidArgumentError(
            f"{where}: {what} must be a nonzero direction (it is normalized), got {value!r}.")
    return v / norm


def matter_subsystem(matter, where: str) -> SimbodyMatterSubsystem:
    """``matter``, which must be a SimbodyMatterSubsystem."""
    if not isinstance(matter, SimbodyMatterSubsystem):
        raise InvalidArgumentError(
            f"{where}: the first argument must be the SimbodyMatterSubsystem the constraint "
            f"belongs to, got {type(matter).__name__}.")
    return matter


def mobilized_body(matter, body, where: str, what: str) -> MobilizedBody:
    """A MobilizedBody of ``matter`` given as itself or as its MobilizedBodyIndex."""
    if isinstance(body, MobilizedBody):
        if body.get_matter_subsystem() is not matter:
            raise InvalidArgumentError(
                f"{where}: {what} belongs to another matter subsystem; every body of a "
                f"constraint must be in the constraint's SimbodyMatterSubsystem.")
        return body
    try:
        if isinstance(body, bool):
            raise TypeError
        i = operator.index(body)
    except TypeError:
        raise InvalidArgumentError(
            f"{where}: {what} must be a MobilizedBody (or its MobilizedBodyIndex), got "
            f"{body!r}.") from None
    if not 0 <= i < matter.get_num_bodies():
        raise InvalidArgumentError(
            f"{where}: {what} is MobilizedBodyIndex {i}, but the matter subsystem has "
            f"bodies 0 to {matter.get_num_bodies() - 1}.")
    return matter.get_mobilized_body(i)


def same_matter(mobod: MobilizedBody, where: str, what: str):
    """The matter subsystem of ``mobod``, which must be a MobilizedBody."""
    if not isinstance(mobod, MobilizedBody):
        raise InvalidArgumentError(
            f"{where}: {what} must be a MobilizedBody, got {type(mobod).__name__}.")
    return mobod.get_matter_subsystem()


def max_num_q(mobod: MobilizedBody) -> int:
    """The most q the mobilizer can have (quaternion or Euler-angle layout)."""
    return max(mobod.get_default_q(False).size, mobod.get_default_q(True).size)


def coordinates(matter, bodies, indices, where: str, body_name: str, index_name: str,
                kind: str, single: bool = False) -> list[tuple[MobilizedBody, int]]:
    """Pair up a list of bodies with a list of their q (``kind`` "q") or u ("u") indices,
    checking the lengths and each index against what the mobilizer can have; ``single``:
    one body and index, named without a list subscript."""
    matter_subsystem(matter, where)
    try:
        bodies, indices = list(bodies), list(indices)
    except TypeError:
        raise InvalidArgumentError(
            f"{where}: {body_name} and {index_name} must be lists (one entry per function "
            f"argument).") from None
    if len(bodies) != len(indices):
        raise InvalidArgumentError(
            f"{where}: {body_name} has {len(bodies)} entries but {index_name} has "
            f"{len(indices)}; give one {kind} index per body.")
    pairs = []
    for k, (body, i) in enumerate(zip(bodies, indices)):
        sub = "" if single else f"[{k}]"
        mobod = mobilized_body(matter, body, where, f"{body_name}{sub}")
        i = index(i, where, f"{index_name}{sub}")
        n = max_num_q(mobod) if kind == "q" else mobod.get_default_u().size
        if n == 0:
            raise InvalidArgumentError(
                f"{where}: {body_name}{sub} is {mobod._name()}, which has no {kind}; pick a "
                f"mobilized body that can move.")
        if i >= n:
            raise InvalidArgumentError(
                f"{where}: {index_name}{sub} is {i}, but {mobod._name()} has only {n} "
                f"{kind}; use an index from 0 to {n - 1}.")
        pairs.append((mobod, i))
    return pairs


def function(fn, n_args: int, where: str, arguments: str) -> Function:
    """A kt.Function of ``n_args`` arguments with derivatives to second order."""
    if not isinstance(fn, Function):
        raise InvalidArgumentError(
            f"{where}: the function must be a kt.Function (a subclass implementing "
            f"calc_value, calc_derivative, get_argument_size and get_max_derivative_order, "
            f"or a built-in such as Function.Linear), got {type(fn).__name__}.")
    size = fn.get_argument_size()
    if size != n_args:
        raise InvalidArgumentError(
            f"{where}: the function takes {size} argument(s) (get_argument_size()) but "
            f"{n_args} are passed to it ({arguments}); make them agree.")
    order = fn.get_max_derivative_order()
    if order < 2:
        raise InvalidArgumentError(
            f"{where}: the function provides derivatives only up to order {order} "
            f"(get_max_derivative_order()), but a constraint needs second derivatives for "
            f"its acceleration equations; use a function with get_max_derivative_order() "
            f">= 2.")
    return fn


def check_num_q(state, pairs, where: str, index_name: str, single: bool = False) -> None:
    """At INSTANCE, once the q layout is known: each q index is in range."""
    for k, (mobod, i) in enumerate(pairs):
        n = mobod.get_num_q(state)
        if i >= n:
            sub = "" if single else f"[{k}]"
            raise InvalidArgumentError(
                f"{where}: {index_name}{sub} is {i}, but {mobod._name()} has {n} q in this "
                f"State (quaternions or Euler angles); use an index from 0 to {n - 1}.")


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
