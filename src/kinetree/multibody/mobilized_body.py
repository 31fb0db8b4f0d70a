"""MobilizedBody: a body together with the mobilizer (joint) that connects it to its parent.

A MobilizedBody has an inboard frame F fixed on the parent P (X_PF) and an outboard frame
M fixed on its own body B (X_BM); its mobilizer moves M relative to F as a function of its
generalized coordinates q. Each built-in type (``MobilizedBody.Pin`` ...) takes its
kinematics from one module in ``mobilizers/``; this file holds what all types share: the
constructor, defaults, and the accessors that read the State.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.math.inertia import MassProperties
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.body import Body
from kinetree.multibody.kernels.ancestor_frame import calc_relative_velocities
from kinetree.multibody.mobilizers import (
    ball,
    bend_stretch,
    bushing,
    cantilever_free_beam,
    custom,
    cylinder,
    ellipsoid,
    free,
    free_line,
    function_based,
    gimbal,
    line_orientation,
    pin,
    planar,
    scapulothoracic,
    screw,
    slider,
    spherical_coords,
    translation,
    universal,
    weld,
)
from kinetree.multibody.motion import Level, level_of
from kinetree.multibody.tree_model import PARAM_SIZE
from kinetree.system.stage import Stage


def _transform(value, where: str) -> Transform:
    if isinstance(value, Transform):
        return value
    raise InvalidArgumentError(f"{where}: expected a Transform, got {type(value).__name__}.")


class Direction(IntEnum):
    """Which way a mobilizer's coordinates run (Simbody's MobilizedBody::Direction). A
    REVERSE mobilizer's q and u describe the motion of its inboard frame F in its outboard
    frame M, as if the child were the parent: the same joint, defined from the other side
    (a model file's joint whose parent is the tree's child)."""

    FORWARD = 0
    REVERSE = 1


def _split_direction(args: tuple, direction) -> tuple:
    """(args, direction) with a Direction given as the last positional argument (Simbody's
    place for it) taken out."""
    if args and isinstance(args[-1], Direction):
        return args[:-1], args[-1]
    return args, Direction(direction)


class MobilizedBody:
    """Base of every mobilized body; construct one of the nested types, e.g.
    ``MobilizedBody.Pin(parent, X_PF, body, X_BM)`` or ``MobilizedBody.Pin(parent, body)``
    (both frames identity); ``MobilizedBody.Direction.REVERSE`` as a last argument (or
    ``direction=``) makes the mobilizer reversed."""

    _module = weld
    Direction = Direction
    _python_hinge = False
    """True for a body whose X_FM, H and N come from a Python implementation each
    realization (Custom, and a FunctionBased of functions the compiled kind cannot
    evaluate): the matter subsystem's pre-pass serves it."""

    def __init__(self, parent: MobilizedBody, *args, direction=Direction.FORWARD):
        args, self._direction = _split_direction(args, direction)
        where = f"MobilizedBody.{type(self).__name__}"
        if not isinstance(parent, MobilizedBody):
            raise InvalidArgumentError(
                f"{where}: the parent must be a MobilizedBody (matter.Ground() for the "
                f"first body), got {type(parent).__name__}.")
        if len(args) == 1:
            X_PF, body, X_BM = Transform(), args[0], Transform()
        elif len(args) == 3:
            X_PF, body, X_BM = args
        else:
            raise InvalidArgumentError(
                f"{where}: call it as ({type(self).__name__})(parent, X_PF, body, X_BM) or "
                f"(parent, body).")
        if not isinstance(body, Body.Rigid):
            raise InvalidArgumentError(f"{where}: expected a Body.Rigid, got {body!r}.")
        self._parent = parent
        self._matter = parent._matter
        self._X_PF = _transform(X_PF, where)
        self._X_BM = _transform(X_BM, where)
        self._body = body._adopted_copy(self._matter)
        mod = self._module
        self._default_q = np.array(mod.DEFAULT_Q, dtype=float)
        self._default_q_euler = np.array(getattr(mod, "DEFAULT_Q_EULER", mod.DEFAULT_Q),
                                         dtype=float)
        self._default_u = np.zeros(mod.NU)
        self._params = np.zeros(PARAM_SIZE)
        self._index = self._matter._adopt_mobilized_body(self)

    # ------------------------------------------------------------ topology
    def get_mobilized_body_index(self) -> int:
        return self._index

    def get_parent_mobilized_body(self) -> MobilizedBody:
        return self._parent

    def get_matter_subsystem(self):
        return self._matter

    def is_ground(self) -> bool:
        return False

    def get_default_inboard_frame(self) -> Transform:
        return self._X_PF

    def get_default_outboard_frame(self) -> Transform:
        return self._X_BM

    def get_inboard_frame(self, state) -> Transform:
        """X_PF: the mobilizer's frame F fixed on the parent body P, as the transform from
        P's body frame to F (m, in P). kinetree's frames are not changeable per State, so
        this is the default frame; the State must be realized to INSTANCE, as in Simbody."""
        self._tree(state, Stage.INSTANCE, "get_inboard_frame")
        return self._X_PF

    def get_outboard_frame(self, state) -> Transform:
        """X_BM: the mobilizer's frame M fixed on this body B, as the transform from B's
        body frame to M (m, in B); the default frame, as ``get_inboard_frame`` (INSTANCE)."""
        self._tree(state, Stage.INSTANCE, "get_outboard_frame")
        return self._X_BM

    def get_body(self) -> Body:
        """This MobilizedBody's own copy of its Body (mass properties, contact surfaces)."""
        return self._body

    def upd_body(self) -> Body:
        """The same Body, to add contact surfaces to (a topological change)."""
        return self._body

    def add_body_decoration(self, X_BD, geometry) -> int:
        """``get_body().add_decoration(X_BD, geometry)``: draw ``geometry`` on this body with
        its frame at X_BD (m) in the body frame."""
        return self._body.add_decoration(X_BD, geometry)

    @property
    def _mass_properties(self) -> MassProperties | None:
        """The mass properties of this MobilizedBody's own Body (None for Ground)."""
        body = self._body
        return body.get_default_rigid_body_mass_properties() \
            if isinstance(body, Body.Rigid) else None

    def get_body_mass_properties(self, state=None) -> MassProperties:
        """The body's mass properties (inertia about its origin, in its frame)."""
        if self._mass_properties is None:
            raise InvalidArgumentError("Ground has infinite mass; it has no MassProperties.")
        return self._mass_properties

    def set_default_q(self, q):
        """Default q for new States: in the quaternion layout when the mobilizer has one,
        or in its Euler-angle layout (body-fixed x-y-z angles in place of the quaternion;
        the length tells which), the other layout following."""
        v = np.asarray(q, dtype=float).ravel()
        if v.size == self._default_q_euler.size != self._default_q.size:
            self._default_q_euler = self._checked_default(v, self._default_q_euler,
                                                          "set_default_q")
            quaternion = Rotation.from_body_fixed_xyz(v[:3]).convert_rotation_to_quaternion()
            self._default_q = np.concatenate([quaternion, v[3:]])
            return self
        self._default_q = self._checked_default(q, self._default_q, "set_default_q")
        if self._default_q.size != self._default_q_euler.size:
            angles = Rotation.from_quaternion(self._default_q[:4]) \
                .convert_rotation_to_body_fixed_xyz()
            self._default_q_euler = np.concatenate([angles, self._default_q[4:]])
        else:
            self._default_q_euler = self._default_q.copy()
        return self

    def set_default_u(self, u):
        """Default u for new States."""
        self._default_u = self._checked_default(u, self._default_u, "set_default_u")
        return self

    def _checked_default(self, values, current: np.ndarray, method: str) -> np.ndarray:
        """``values`` as an array shaped like ``current``; a topological change."""
        v = np.asarray(values, dtype=float).ravel()
        if v.shape != current.shape:
            raise InvalidArgumentError(
                f"{self._name()}.{method}: expected {current.size} values, got {v.size}.")
        self._matter.invalidate_subsystem_topology_cache()
        return v

    def get_default_q(self, use_euler_angles: bool = False) -> np.ndarray:
        return (self._default_q_euler if use_euler_angles else self._default_q).copy()

    def get_default_u(self) -> np.ndarray:
        return self._default_u.copy()

    def _refresh_params(self) -> None:
        """Bring the parameter row up to date when the tree is laid out (realize_model):
        nothing to do for a kind whose parameters are set when it is made."""

    def _name(self) -> str:
        return f"MobilizedBody {self._index} ({type(self).__name__})"

    # ------------------------------------------------------------- state
    def _tree(self, state, stage: Stage, method: str):
        return self._matter.get_tree_data(state, stage, f"{self._name()}.{method}")

    def _q_slice(self, data) -> slice:
        s = data.tree.q_start[self._index]
        return slice(s, s + data.tree.nq[self._index])

    def _u_slice(self, data) -> slice:
        s = data.tree.u_start[self._index]
        return slice(s, s + data.tree.nu[self._index])

    def get_num_q(self, state) -> int:
        return int(self._tree(state, Stage.MODEL, "get_num_q").tree.nq[self._index])

    def get_first_q_index(self, state) -> int:
        """Where this mobilizer's q begin among the matter subsystem's q (MODEL)."""
        return int(self._tree(state, Stage.MODEL, "get_first_q_index").tree.q_start[
            self._index])

    def get_first_u_index(self, state) -> int:
        """Where this mobilizer's u begin among the matter subsystem's u (MODEL)."""
        return int(self._tree(state, Stage.MODEL, "get_first_u_index").tree.u_start[
            self._index])

    def get_num_u(self, state) -> int:
        return int(self._tree(state, Stage.MODEL, "get_num_u").tree.nu[self._index])

    def get_q(self, state) -> np.ndarray:
        data = self._tree(state, Stage.MODEL, "get_q")
        return self._matter.get_q(state)[self._q_slice(data)]

    def get_u(self, state) -> np.ndarray:
        data = self._tree(state, Stage.MODEL, "get_u")
        return self._matter.get_u(state)[self._u_slice(data)]

    def set_q(self, state, q) -> None:
        data = self._tree(state, Stage.MODEL, "set_q")
        sl = self._q_slice(data)
        state._copy_in(self._matter.upd_q(state)[sl], q, f"{self._name()}.set_q")

    def set_u(self, state, u) -> None:
        data = self._tree(state, Stage.MODEL, "set_u")
        sl = self._u_slice(data)
        state._copy_in(self._matter.upd_u(state)[sl], u, f"{self._name()}.set_u")

    def get_q_as_vector(self, state) -> np.ndarray:
        """This mobilizer's q as a new array (Simbody's getQAsVector)."""
        return np.array(self.get_q(state), dtype=float)

    def get_u_as_vector(self, state) -> np.ndarray:
        """This mobilizer's u as a new array (Simbody's getUAsVector)."""
        return np.array(self.get_u(state), dtype=float)

    def set_q_from_vector(self, state, q) -> None:
        """Set this mobilizer's q from a vector of its get_num_q(state) values (Simbody's
        setQFromVector; as ``set_q``)."""
        self.set_q(state, q)

    def set_u_from_vector(self, state, u) -> None:
        """Set this mobilizer's u from a vector of its get_num_u(state) values (Simbody's
        setUFromVector; as ``set_u``)."""
        self.set_u(state, u)

    def get_q_dot_as_vector(self, state) -> np.ndarray:
        """This mobilizer's q̇ as a new array (VELOCITY; Simbody's getQDotAsVector)."""
        return np.array(self.get_q_dot(state), dtype=float)

    def get_u_dot_as_vector(self, state) -> np.ndarray:
        """This mobilizer's u̇ as a new array (ACCELERATION; Simbody's getUDotAsVector)."""
        return np.array(self.get_u_dot(state), dtype=float)

    def get_one_from_q_partition(self, state, which: int, qlike) -> float:
        """Entry ``which`` of this mobilizer's part of ``qlike``, a vector laid out as the
        matter subsystem's q (MODEL)."""
        which = self._check_which(state, which, "q")
        data = self._tree(state, Stage.MODEL, "get_one_from_q_partition")
        return float(np.asarray(qlike, dtype=float)[self._q_slice(data)][which])

    def get_one_from_u_partition(self, state, which: int, ulike) -> float:
        """Entry ``which`` of this mobilizer's part of ``ulike``, a vector laid out as the
        matter subsystem's u (MODEL)."""
        which = self._check_which(state, which, "u")
        data = self._tree(state, Stage.MODEL, "get_one_from_u_partition")
        return float(np.asarray(ulike, dtype=float)[self._u_slice(data)][which])

    def get_one_q(self, state, which: int) -> float:
        return float(self.get_q(state)[self._check_which(state, which, "q")])

    def get_one_u(self, state, which: int) -> float:
        return float(self.get_u(state)[self._check_which(state, which, "u")])

    def set_one_q(self, state, which: int, value: float) -> None:
        which = self._check_which(state, which, "q")
        value = self._finite(value, "set_one_q")
        data = self._tree(state, Stage.MODEL, "set_one_q")
        self._matter.upd_q(state)[self._q_slice(data).start + which] = value

    def set_one_u(self, state, which: int, value: float) -> None:
        which = self._check_which(state, which, "u")
        value = self._finite(value, "set_one_u")
        data = self._tree(state, Stage.MODEL, "set_one_u")
        self._matter.upd_u(state)[self._u_slice(data).start + which] = value

    def _finite(self, value, method: str) -> float:
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"{self._name()}.{method}: expected a number, got {value!r}.") from None
        if not math.isfinite(value):
            raise InvalidArgumentError(
                f"{self._name()}.{method}: the value is {value}; it must be a finite number.")
        return value

    def _check_which(self, state, which: int, kind: str) -> int:
        n = self.get_num_q(state) if kind == "q" else self.get_num_u(state)
        if isinstance(which, (bool, np.bool_)) or not isinstance(which, (int, np.integer)):
            raise InvalidArgumentError(
                f"{self._name()}: a {kind} index is a whole number from 0 to {n - 1}, got "
                f"{which!r}.")
        if not 0 <= which < n:
            raise InvalidArgumentError(
                f"{self._name()}: {kind} index {which} is out of range; it has {n}.")
        return which

    def get_q_dot(self, state) -> np.ndarray:
        data = self._tree(state, Stage.VELOCITY, "get_q_dot")
        return self._matter.get_q_dot(state)[self._q_slice(data)]

    def get_u_dot(self, state) -> np.ndarray:
        data = self._tree(state, Stage.ACCELERATION, "get_u_dot")
        return self._matter.get_u_dot(state)[self._u_slice(data)]

    def get_one_u_dot(self, state, which: int) -> float:
        return float(self.get_u_dot(state)[self._check_which(state, which, "u")])

    def get_q_dot_dot(self, state) -> np.ndarray:
        """q̈ = N u̇ + Ṅ u of this mobilizer's q (ACCELERATION)."""
        data = self._tree(state, Stage.ACCELERATION, "get_q_dot_dot")
        return self._matter.get_q_dot_dot(state)[self._q_slice(data)]

    def get_one_q_dot(self, state, which: int) -> float:
        """q̇ of this mobilizer's q ``which`` (VELOCITY)."""
        return float(self.get_q_dot(state)[self._check_which(state, which, "q")])

    def get_one_q_dot_dot(self, state, which: int) -> float:
        """q̈ of this mobilizer's q ``which`` (ACCELERATION)."""
        return float(self.get_q_dot_dot(state)[self._check_which(state, which, "q")])

    # ------------------------------------------------------------- locking
    def lock(self, state, level=Level.POSITION) -> None:
        """Lock this mobilizer at its current q (``level`` Motion.Level.POSITION, the
        default; its u set to zero), its current u (VELOCITY), or with u̇ = 0
        (ACCELERATION). A lock overrides the mobilizer's Motion until ``unlock``
        (INSTANCE: the State drops to MODEL)."""
        level = self._lock_level(level, "lock")
        data = self._tree(state, Stage.MODEL, "lock")
        if level == Level.POSITION:
            value = np.array(self._matter.get_q(state)[self._q_slice(data)])
        elif level == Level.VELOCITY:
            value = np.array(self._matter.get_u(state)[self._u_slice(data)])
        else:
            value = np.zeros(self.get_num_u(state))
        self._apply_lock(state, level, value, data)

    def lock_at(self, state, value, level=Level.POSITION) -> None:
        """Lock this mobilizer at ``value``: its q (POSITION, the default; u set to zero),
        its u (VELOCITY) or its u̇ (ACCELERATION), one number per q or u (INSTANCE)."""
        level = self._lock_level(level, "lock_at")
        data = self._tree(state, Stage.MODEL, "lock_at")
        n = self.get_num_q(state) if level == Level.POSITION else self.get_num_u(state)
        value = np.atleast_1d(np.asarray(value, dtype=float))
        if value.shape != (n,) or not np.all(np.isfinite(value)):
            what = "q" if level == Level.POSITION else "u"
            raise InvalidArgumentError(
                f"{self._name()}.lock_at: expected {n} finite values (one per {what} at "
                f"{level.name}), got {value!r}.")
        self._apply_lock(state, level, value.copy(), data)

    def _lock_level(self, level, method: str) -> Level:
        level = level_of(level, f"{self._name()}.{method}")
        if level == Level.NO_LEVEL:
            raise InvalidArgumentError(f"{self._name()}.{method}: lock at POSITION, VELOCITY "
                                       "or ACCELERATION; unlock() removes a lock.")
        return level

    def _apply_lock(self, state, level: Level, value: np.ndarray, data) -> None:
        self._matter._set_lock(state, self, (level, value))
        if level == Level.POSITION:
            self._matter.upd_q(state)[self._q_slice(data)] = value
            self._matter.upd_u(state)[self._u_slice(data)] = 0.0
        elif level == Level.VELOCITY:
            self._matter.upd_u(state)[self._u_slice(data)] = value

    def unlock(self, state) -> None:
        """Free this mobilizer again (or return it to its Motion) in ``state``."""
        if self._matter._is_locked(state, self):
            self._matter._set_lock(state, self, None)

    def is_locked(self, state) -> bool:
        return self._matter._is_locked(state, self)

    def get_lock_level(self, state) -> Level:
        """The level this mobilizer is locked at in ``state``, or Motion.Level.NO_LEVEL."""
        lock = self._matter._locks(state)[self._index]
        return Level.NO_LEVEL if lock is None else lock[0]

    def get_lock_value_as_vector(self, state) -> np.ndarray:
        """The q, u or u̇ this mobilizer is locked at (empty when unlocked; INSTANCE)."""
        lock = self._matter._locks(state)[self._index]
        if lock is None:
            return np.zeros(0)
        if lock[1] is None:
            d = self._tree(state, Stage.MODEL, "get_lock_value_as_vector")
            return self._matter._resolved_locks(state, d)[self._index][1].copy()
        return lock[1].copy()

    def lock_by_default(self, level=Level.POSITION) -> MobilizedBody:
        """Lock this mobilizer in every new State, at its default q (POSITION), its default
        u (VELOCITY) or with u̇ = 0 (ACCELERATION); Motion.Level.NO_LEVEL undoes it. A
        topology change: realize the System again."""
        level = level_of(level, f"{self._name()}.lock_by_default")
        if level == Level.NO_LEVEL:
            self._matter._default_locks.pop(self._index, None)
        else:
            self._matter._default_locks[self._index] = level
        self._matter.invalidate_subsystem_topology_cache()
        return self

    def is_locked_by_default(self) -> bool:
        return self._index in self._matter._default_locks

    def get_lock_by_default_level(self) -> Level:
        return self._matter._default_locks.get(self._index, Level.NO_LEVEL)

    def get_tau_as_vector(self, state) -> np.ndarray:
        """The mobility forces τ that make this mobilizer follow its lock or Motion, one
        per u; zero while it moves freely (ACCELERATION)."""
        data = self._tree(state, Stage.ACCELERATION, "get_tau_as_vector")
        return data.cache.tau[self._u_slice(data)].copy()

    def get_one_tau(self, state, which: int) -> float:
        return float(self.get_tau_as_vector(state)[self._check_which(state, which, "u")])

    def set_q_to_fit_transform(self, state, X_FM: Transform) -> None:
        """Set this mobilizer's q so that X_FM(q) comes as close to the given X_FM as its
        mobilities allow, by the type's own rule (Simbody's ``setQToFitTransform``): exact
        for a transform in reach, otherwise a projection onto the mobilities (a Pin keeps
        only the z angle of the rotation, a Slider only p_FM's x component). Needs MODEL."""
        where = f"{self._name()}.set_q_to_fit_transform"
        X_FM = _transform(X_FM, where)
        data = self._tree(state, Stage.MODEL, "set_q_to_fit_transform")
        sl = self._q_slice(data)
        if sl.stop == sl.start:
            return
        self._matter.upd_q(state)[sl] = self._fit_q(state, X_FM, sl.stop - sl.start)

    def _fit_q(self, state, X_FM: Transform, nq: int) -> np.ndarray:
        """The nq q of this type's rule for X_FM (for X_MF = X_FM⁻¹ when reversed)."""
        X = self._own_transform(X_FM)
        return self._module.q_to_fit_transform(X.R.as_matrix(), np.array(X.p, dtype=float),
                                               self._params, nq)

    def _own_transform(self, X_FM: Transform) -> Transform:
        """The transform this mobilizer's kind computes from q: X_FM, or X_MF reversed."""
        return X_FM.invert() if self._direction == Direction.REVERSE else X_FM

    def _own_velocity(self, state, V_FM: np.ndarray) -> np.ndarray:
        """The velocity this mobilizer's kind maps u to: V_FM, or reversed F's velocity in
        M, w_MF = -R_FMᵀ w_FM and v_MF = R_FMᵀ (w_FM × p_FM - v_FM), at the current q."""
        if self._direction != Direction.REVERSE:
            return V_FM
        X = self._mobilizer_transform_now(state, "set_u_to_fit_velocity")
        R, w, v = X.R.as_matrix(), V_FM[:3], V_FM[3:]
        return np.concatenate([-R.T @ w, R.T @ (np.cross(w, X.p) - v)])

    def get_direction(self) -> Direction:
        return self._direction

    def is_reversed(self) -> bool:
        return self._direction == Direction.REVERSE

    def set_u_to_fit_velocity(self, state, V_FM) -> None:
        """Set u so that V_FM = H u matches the given [w_FM; v_FM] (in F) as well as the
        mobilities allow, by the type's own rule (Simbody's ``setUToFitVelocity``) at the
        current q: exact for a velocity in reach, otherwise the components it cannot make
        are dropped (a Pin keeps w_FM[2]). Needs MODEL, as Simbody's (Instance): a built-in
        mobilizer fits from its q alone, a Custom one by its implementation's
        ``set_u_to_fit_velocity``, which needs POSITION only if it reads the realized
        mobilizer transform (the default least-squares fit on H may; a reversed Custom
        one does, to reverse the velocity)."""
        data = self._tree(state, Stage.MODEL, "set_u_to_fit_velocity")
        V = np.asarray(V_FM, dtype=float)
        if V.shape != (6,):
            raise InvalidArgumentError(
                f"{self._name()}.set_u_to_fit_velocity: V_FM must be 6 numbers [w; v], got "
                f"shape {V.shape}.")
        sl = self._u_slice(data)
        if sl.stop == sl.start:
            return
        self._matter.upd_u(state)[sl] = self._fit_u(state, V, sl.stop - sl.start)

    def _fit_u(self, state, V_FM: np.ndarray, nu: int) -> np.ndarray:
        """The nu u of this type's rule for V_FM = [w_FM; v_FM] (in F) at the current q
        (for F's velocity in M when reversed)."""
        q = np.array(self.get_q(state), dtype=float)
        V = self._own_velocity(state, V_FM)
        return self._module.u_to_fit_velocity(q, V[:3], V[3:], self._params)

    def _mobilizer_transform_now(self, state, method: str) -> Transform:
        """X_FM from this mobilizer's current q alone (a Custom or FunctionBased one's from
        its State realized to POSITION)."""
        if hasattr(self, "_impl"):
            c = self._tree(state, Stage.POSITION, method).cache
            return Transform(Rotation._trusted(c.R_FM[self._index].copy()),
                             c.p_FM[self._index].copy())
        return self._mobilizer_now(state, method)[0]

    def _mobilizer_now(self, state, method: str) -> tuple:
        """(X_FM, V_FM) from this mobilizer's current q and u alone: its own X_FM(q) and
        H_F(q) u, so the fits below work right after q is set, before any realization (a
        Custom or FunctionBased mobilizer, whose kinematics are user code, needs its
        State realized to VELOCITY)."""
        if hasattr(self, "_impl"):
            data = self._tree(state, Stage.VELOCITY, method)
            c = data.cache
            return (Transform(Rotation._trusted(c.R_FM[self._index].copy()),
                              c.p_FM[self._index].copy()), c.V_FM[self._index].copy())
        q = np.array(self.get_q(state), dtype=float)
        u = np.array(self.get_u(state), dtype=float)
        R, p, H = np.eye(3), np.zeros(3), np.zeros((6, u.size))
        self._module.x_fm(q, self._params, R, p)
        self._module.h_fm(q, self._params, H)
        if self._direction == Direction.REVERSE:
            R, p = R.T, -R.T @ p
            a, b = R @ H[:3], R @ H[3:]
            H = np.vstack([-a, np.cross(p[:, None], a, axis=0) - b])
        return Transform(Rotation._trusted(R), p), H @ u

    def set_q_to_fit_rotation(self, state, R_FM) -> None:
        """Set q so that X_FM's rotation is R_FM (a Rotation or 3x3) as well as this
        mobilizer can, keeping its current translation as the target for the rest
        (Simbody's ``setQToFitRotation``); works right after q is set (MODEL)."""
        R = R_FM if isinstance(R_FM, Rotation) else Rotation(np.asarray(R_FM, dtype=float))
        fit = getattr(self._module, "q_to_fit_rotation", None)
        if fit is not None:
            # A kind whose translation follows its rotation fits the rotation alone (R_MF
            # = R_FMᵀ when reversed, as Simbody's setQToFitRotation).
            data = self._tree(state, Stage.MODEL, "set_q_to_fit_rotation")
            own = R if self._direction == Direction.FORWARD else R.invert()
            self._matter.upd_q(state)[self._q_slice(data)] = fit(
                own.as_matrix(), self._params, self.get_num_q(state))
            return
        X_now, _ = self._mobilizer_now(state, "set_q_to_fit_rotation")
        self.set_q_to_fit_transform(state, Transform(R, X_now.p))

    def set_q_to_fit_translation(self, state, p_FM) -> None:
        """Set q so that X_FM's translation is p_FM (m, in F) as well as this mobilizer
        can, keeping its current rotation as the target for the rest (Simbody's
        ``setQToFitTranslation``; a mobilizer whose translation comes from its rotation
        may turn to reach it)."""
        p = np.asarray(p_FM, dtype=float)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise InvalidArgumentError(
                f"{self._name()}.set_q_to_fit_translation: p_FM must be 3 finite numbers, "
                f"got {p_FM!r}.")
        X_now, _ = self._mobilizer_now(state, "set_q_to_fit_translation")
        self.set_q_to_fit_transform(state, Transform(X_now.R, p))

    def set_u_to_fit_angular_velocity(self, state, w_FM) -> None:
        """Set u so that V_FM's angular part is w_FM (rad/s, in F) as well as this
        mobilizer can, keeping its current linear velocity as the target for the rest
        (Simbody's ``setUToFitAngularVelocity``); works right after q and u are set."""
        fit = getattr(self._module, "u_to_fit_angular_velocity", None)
        if fit is not None:
            # A kind whose translation follows its rotation fits the angular velocity alone
            # (reversed, M's angular velocity in F becomes F's in M, w_MF = -R_FMᵀ w_FM at
            # the current q, as Simbody's setUToFitAngularVelocity).
            w = np.asarray(w_FM, dtype=float)
            if w.shape != (3,) or not np.all(np.isfinite(w)):
                raise InvalidArgumentError(
                    f"{self._name()}.set_u_to_fit_angular_velocity: w_FM must be 3 finite "
                    f"numbers (rad/s, in F), got {w_FM!r}.")
            if self._direction == Direction.REVERSE:
                X = self._mobilizer_transform_now(state, "set_u_to_fit_angular_velocity")
                w = -(X.R.as_matrix().T @ w)
            data = self._tree(state, Stage.MODEL, "set_u_to_fit_angular_velocity")
            self._matter.upd_u(state)[self._u_slice(data)] = fit(
                np.array(self.get_q(state), dtype=float), w, self._params)
            return
        self._fit_velocity_part(state, w_FM, 0, "set_u_to_fit_angular_velocity")

    def set_u_to_fit_linear_velocity(self, state, v_FM) -> None:
        """Set u so that V_FM's linear part is v_FM (m/s, in F) as well as this mobilizer
        can, keeping its current angular velocity as the target for the rest (Simbody's
        ``setUToFitLinearVelocity``)."""
        self._fit_velocity_part(state, v_FM, 3, "set_u_to_fit_linear_velocity")

    def _fit_velocity_part(self, state, part, at: int, method: str) -> None:
        part = np.asarray(part, dtype=float)
        if part.shape != (3,) or not np.all(np.isfinite(part)):
            raise InvalidArgumentError(
                f"{self._name()}.{method}: expected 3 finite numbers, got {part!r}.")
        data = self._tree(state, Stage.MODEL, method)
        sl = self._u_slice(data)
        if sl.stop == sl.start:
            return
        _, V = self._mobilizer_now(state, method)
        V[at:at + 3] = part
        self._matter.upd_u(state)[sl] = self._fit_u(state, V, sl.stop - sl.start)

    def get_body_transform(self, state) -> Transform:
        """X_GB: the body frame in Ground."""
        c = self._tree(state, Stage.POSITION, "get_body_transform").cache
        return Transform(Rotation._trusted(c.R_GB[self._index].copy()),
                         c.p_GB[self._index].copy())

    def get_body_rotation(self, state) -> Rotation:
        c = self._tree(state, Stage.POSITION, "get_body_rotation").cache
        return Rotation._trusted(c.R_GB[self._index].copy())

    def get_body_origin_location(self, state) -> np.ndarray:
        """p_GB (m): the body origin in Ground."""
        return self._tree(state, Stage.POSITION,
                          "get_body_origin_location").cache.p_GB[self._index].copy()

    def get_mobilizer_transform(self, state) -> Transform:
        """X_FM: the mobilizer's outboard frame M in its inboard frame F."""
        c = self._tree(state, Stage.POSITION, "get_mobilizer_transform").cache
        return Transform(Rotation._trusted(c.R_FM[self._index].copy()),
                         c.p_FM[self._index].copy())

    def get_body_velocity(self, state) -> np.ndarray:
        """V_GB = [w_GB; v_GB] (rad/s; m/s of the body origin), in Ground."""
        return self._tree(state, Stage.VELOCITY,
                          "get_body_velocity").cache.V_GB[self._index].copy()

    def get_body_angular_velocity(self, state) -> np.ndarray:
        return self.get_body_velocity(state)[:3]

    def get_body_origin_velocity(self, state) -> np.ndarray:
        return self.get_body_velocity(state)[3:]

    def get_mobilizer_velocity(self, state) -> np.ndarray:
        """V_FM = [w_FM; v_FM], expressed in F."""
        return self._tree(state, Stage.VELOCITY,
                          "get_mobilizer_velocity").cache.V_FM[self._index].copy()

    def get_body_acceleration(self, state) -> np.ndarray:
        """A_GB = [ẇ_GB; a_GB] (rad/s², m/s² of the body origin), in Ground."""
        return self._tree(state, Stage.ACCELERATION,
                          "get_body_acceleration").cache.A_GB[self._index].copy()

    def get_body_angular_acceleration(self, state) -> np.ndarray:
        """ẇ_GB (rad/s²), in Ground."""
        return self.get_body_acceleration(state)[:3]

    def get_body_origin_acceleration(self, state) -> np.ndarray:
        """a_GB (m/s²) of the body origin, in Ground."""
        return self.get_body_acceleration(state)[3:]

    def find_station_at_ground_point(self, state, location_G) -> np.ndarray:
        """p_BS (m, in B): the station of this body at the Ground point p_GS."""
        return self.get_body_transform(state).shift_base_station_to_frame(
            np.asarray(location_G, dtype=float))

    # ---------------------------------------------------------- applying forces
    def apply_force_to_body_point(self, state, station_B, force_G, body_forces) -> None:
        """Add to ``body_forces`` (nb x 6, [moment; force] about each body origin, in G)
        the force ``force_G`` (N, in G) applied at this body's station p_BS (m, in B):
        the force, and its moment (R_GB p_BS) × F about B's origin (POSITION)."""
        F = np.asarray(force_G, dtype=float)
        r = self.get_body_rotation(state).as_matrix() @ np.asarray(station_B, dtype=float)
        body_forces[self._index, :3] += np.cross(r, F)
        body_forces[self._index, 3:] += F

    def apply_body_torque(self, state, torque_G, body_forces) -> None:
        """Add the torque ``torque_G`` (N m, in G) on this body to ``body_forces``."""
        body_forces[self._index, :3] += np.asarray(torque_G, dtype=float)

    def apply_one_mobility_force(self, state, which_u: int, f: float, mobility_forces) -> None:
        """Add the generalized force ``f`` to this mobilizer's u number ``which_u`` in
        ``mobility_forces`` (nu) (MODEL)."""
        nu = self.get_num_u(state)
        if not 0 <= which_u < nu:
            raise InvalidArgumentError(
                f"{self._name()}.apply_one_mobility_force: which_u is {which_u}; this "
                f"mobilizer has {nu} u.")
        mobility_forces[self.get_first_u_index(state) + which_u] += float(f)

    def find_station_location_in_another_body(self, state, station_B,
                                              to_body_A) -> np.ndarray:
        """p_AS (m, in A): a station S of this body, given as p_BS, measured from body A's
        origin and expressed in A."""
        return to_body_A.find_station_at_ground_point(
            state, self.find_station_location_in_ground(state, station_B))

    def find_body_velocity_in_another_body(self, state, in_body_A) -> np.ndarray:
        """V_AB = [w_AB; v_AB] (rad/s; m/s of this body's origin): this body's velocity
        in body A's frame (the derivative taken in A), expressed in A."""
        c = self._tree(state, Stage.VELOCITY, "find_body_velocity_in_another_body").cache
        out = np.empty((1, 6))
        calc_relative_velocities(c.R_GB, c.p_GB, c.V_GB, in_body_A._index,
                                 np.array([self._index]), out)
        return out[0]

    def find_body_angular_velocity_in_another_body(self, state, in_body_A) -> np.ndarray:
        """w_AB (rad/s, in A): this body's angular velocity in body A's frame, expressed in
        A (the angular part of ``find_body_velocity_in_another_body``; VELOCITY)."""
        return self.find_body_velocity_in_another_body(state, in_body_A)[:3]

    def find_station_velocity_in_another_body(self, state, station_B,
                                              in_body_A) -> np.ndarray:
        """v_AS (m/s, in A): the velocity in body A's frame of a station S of this body,
        given as p_BS."""
        V_AB = self.find_body_velocity_in_another_body(state, in_body_A)
        R_AB = in_body_A.get_body_rotation(state).as_matrix().T @ \
            self.get_body_rotation(state).as_matrix()
        return V_AB[3:] + np.cross(V_AB[:3], R_AB @ np.asarray(station_B, dtype=float))

    def express_vector_in_ground_frame(self, state, vector_B) -> np.ndarray:
        """v_G = R_GB v_B: a vector given in this body's frame, expressed in Ground."""
        return self.get_body_rotation(state) @ np.asarray(vector_B, dtype=float)

    def express_ground_vector_in_body_frame(self, state, vector_G) -> np.ndarray:
        """v_B = R_GBᵀ v_G: a vector given in Ground, expressed in this body's frame."""
        return self.get_body_rotation(state).as_matrix().T @ np.asarray(vector_G, dtype=float)

    def express_vector_in_another_body_frame(self, state, vector_B, in_body_A) -> np.ndarray:
        """v_A = R_GAᵀ R_GB v_B: a vector given in this body's frame, expressed in body
        A's."""
        return in_body_A.express_ground_vector_in_body_frame(
            state, self.express_vector_in_ground_frame(state, vector_B))

    def find_body_transform_in_another_body(self, state, in_body_A) -> Transform:
        """X_AB = X_GA⁻¹ X_GB: this body's frame measured from and expressed in body A's."""
        return in_body_A.get_body_transform(state).invert() @ self.get_body_transform(state)

    def find_body_rotation_in_another_body(self, state, in_body_A) -> Rotation:
        """R_AB = R_GAᵀ R_GB."""
        return in_body_A.get_body_rotation(state).invert() @ self.get_body_rotation(state)

    def find_body_origin_location_in_another_body(self, state, to_body_A) -> np.ndarray:
        """p_AB (m, in A): this body's origin measured from body A's."""
        return self.find_station_location_in_another_body(state, np.zeros(3), to_body_A)

    def find_mass_center_location_in_ground(self, state) -> np.ndarray:
        """p_G of this body's mass center (m)."""
        return self.find_station_location_in_ground(
            state, self.get_body_mass_properties(state).get_mass_center())

    def get_body_mass_center_station(self, state) -> np.ndarray:
        """p_BC (m, in B): the body's mass center, a station of the body."""
        return np.array(self.get_body_mass_properties(state).get_mass_center(), dtype=float)

    def find_station_location_and_velocity_in_ground(self, state, station_B) -> tuple:
        """(p_GS (m), v_GS (m/s)) of a station fixed on the body (VELOCITY)."""
        return (self.find_station_location_in_ground(state, station_B),
                self.find_station_velocity_in_ground(state, station_B))

    def find_station_location_velocity_and_acceleration_in_ground(self, state,
                                                                  station_B) -> tuple:
        """(p_GS (m), v_GS (m/s), a_GS (m/s²)) of a station fixed on the body
        (ACCELERATION)."""
        return (self.find_station_location_in_ground(state, station_B),
                self.find_station_velocity_in_ground(state, station_B),
                self.find_station_acceleration_in_ground(state, station_B))

    def find_station_location_in_ground(self, state, station_B) -> np.ndarray:
        """p_GS for a station S fixed on the body, given as p_BS (m)."""
        return self.get_body_transform(state) @ np.asarray(station_B, dtype=float)

    def find_station_velocity_in_ground(self, state, station_B) -> np.ndarray:
        """v_GS (m/s) of a station fixed on the body."""
        V = self.get_body_velocity(state)
        r = self.get_body_rotation(state) @ np.asarray(station_B, dtype=float)
        return V[3:] + np.cross(V[:3], r)

    def find_station_acceleration_in_ground(self, state, station_B) -> np.ndarray:
        """a_GS (m/s²) of a station fixed on the body."""
        A = self.get_body_acceleration(state)
        w = self.get_body_angular_velocity(state)
        r = self.get_body_rotation(state) @ np.asarray(station_B, dtype=float)
        return A[3:] + np.cross(A[:3], r) + np.cross(w, np.cross(w, r))

    def get_h_col(self, state, which: int) -> np.ndarray:
        """Column ``which`` of H: the spatial velocity [w; v] (in G, about the body origin)
        of this body relative to its parent per unit of u[which] (POSITION)."""
        which = self._check_which(state, which, "u")
        data = self._tree(state, Stage.POSITION, "get_h_col")
        return data.cache.H_cols[self._u_slice(data).start + which].copy()

    def get_h_fm_col(self, state, which: int) -> np.ndarray:
        """Column ``which`` of H_FM: V_FM = [w_FM; v_FM] (in F) per unit of u[which]
        (POSITION)."""
        which = self._check_which(state, which, "u")
        data = self._tree(state, Stage.POSITION, "get_h_fm_col")
        return data.cache.H_F_cols[self._u_slice(data).start + which].copy()

    # -------------------------------------------------- mobilizer reactions
    def find_mobilizer_reaction_on_body_at_m_in_ground(self, state) -> np.ndarray:
        """[moment; force] (N·m, N, in G) this mobilizer applies to its body, about the
        origin of the body's M frame: applied, constraint and prescribed-motion mobility
        forces included (ACCELERATION)."""
        return self._matter.calc_mobilizer_reaction_forces(state)[self._index]

    def find_mobilizer_reaction_on_body_at_origin_in_ground(self, state) -> np.ndarray:
        """The same reaction about the body's origin B (in G)."""
        F = self.find_mobilizer_reaction_on_body_at_m_in_ground(state)
        p_BM_G = self.get_body_rotation(state) @ self._X_BM.p
        return np.concatenate([F[:3] + np.cross(p_BM_G, F[3:]), F[3:]])

    def find_mobilizer_reaction_on_parent_at_f_in_ground(self, state) -> np.ndarray:
        """[moment; force] (in G) this mobilizer applies to the parent body, about the
        origin of its F frame: the reaction on the body, reversed and moved to F."""
        F = self.find_mobilizer_reaction_on_body_at_m_in_ground(state)
        if self._parent is None:
            # Ground is welded to the universe at its origin: F = M = G, nothing to shift.
            return -F
        X_GM = self.get_body_transform(state) @ self._X_BM
        X_GF = self._parent.get_body_transform(state) @ self._X_PF
        p_FM_G = np.asarray(X_GM.p) - np.asarray(X_GF.p)
        return -np.concatenate([F[:3] + np.cross(p_FM_G, F[3:]), F[3:]])

    def find_mobilizer_reaction_on_parent_at_origin_in_ground(self, state) -> np.ndarray:
        """The reaction on the parent about the parent's origin P (in G)."""
        F = self.find_mobilizer_reaction_on_parent_at_f_in_ground(state)
        if self._parent is None:
            return F
        p_PF_G = self._parent.get_body_rotation(state) @ self._X_PF.p
        return np.concatenate([F[:3] + np.cross(p_PF_G, F[3:]), F[3:]])

    def __repr__(self) -> str:
        return f"<{self._name()}>"


class Ground(MobilizedBody):
    """The immobile body 0: the Ground frame G, with infinite mass."""

    def __init__(self, matter):
        self._parent = None
        self._matter = matter
        self._X_PF = self._X_BM = Transform()
        self._direction = Direction.FORWARD
        self._body = Body.Ground()._adopted_copy(matter)
        self._default_q = self._default_q_euler = np.zeros(0)
        self._default_u = np.zeros(0)
        self._params = np.zeros(PARAM_SIZE)
        self._index = matter._adopt_mobilized_body(self)

    def is_ground(self) -> bool:
        return True

    def _name(self) -> str:
        return "Ground"


def _mobilizer_type(name: str, module, doc: str):
    cls = type(name, (MobilizedBody,), {"_module": module, "__doc__": doc})
    cls.__qualname__ = f"MobilizedBody.{name}"
    return cls


class _Screw(MobilizedBody):
    """Rotation about the common z axis with translation along it of ``pitch`` (m/rad)
    per radian: ``MobilizedBody.Screw(parent, X_PF, body, X_BM, pitch)``."""

    _module = screw

    def __init__(self, parent, *args, direction=Direction.FORWARD):
        args, direction = _split_direction(args, direction)
        if len(args) not in (2, 4):
            raise InvalidArgumentError(
                "MobilizedBody.Screw: call it as Screw(parent, X_PF, body, X_BM, pitch) or "
                "Screw(parent, body, pitch).")
        pitch = float(args[-1])
        if not math.isfinite(pitch):
            raise InvalidArgumentError(
                f"MobilizedBody.Screw: the pitch (m/rad) is {pitch}; it must be finite.")
        super().__init__(parent, *args[:-1], direction=direction)
        self._params[0] = pitch

    def get_default_pitch(self) -> float:
        return float(self._params[0])


class _Ellipsoid(MobilizedBody):
    """Coordinated rotation and translation over an ellipsoid fixed on F with the given semi-axes
    (m): ``MobilizedBody.Ellipsoid(parent, X_PF, body, X_BM, radii)``."""

    _module = ellipsoid

    def __init__(self, parent, *args, direction=Direction.FORWARD):
        args, direction = _split_direction(args, direction)
        if len(args) in (1, 3):
            args = (*args, ellipsoid.DEFAULT_RADII)
        if len(args) not in (2, 4):
            raise InvalidArgumentError(
                "MobilizedBody.Ellipsoid: call it as Ellipsoid(parent, X_PF, body, X_BM, "
                "radii) or Ellipsoid(parent, body, radii); without radii, Simbody's "
                "(0.5, 1/3, 0.25) m.")
        radii = np.asarray(args[-1], dtype=float)
        if radii.shape != (3,) or not np.all(radii > 0):
            raise InvalidArgumentError(
                f"MobilizedBody.Ellipsoid: radii must be three positive lengths, got "
                f"{args[-1]!r}.")
        super().__init__(parent, *args[:-1], direction=direction)
        self._params[:3] = radii

    def get_default_radii(self) -> np.ndarray:
        return self._params[:3].copy()


class _CantileverFreeBeam(MobilizedBody):
    """Gimbal's rotation with M's origin moving as the free end of a cantilever beam of
    ``length`` (m, default 0.5) along Fz: ``MobilizedBody.CantileverFreeBeam(parent,
    X_PF, body, X_BM, length)`` or ``(parent, body, length)``. See
    ``mobilizers/cantilever_free_beam.py``."""

    _module = cantilever_free_beam

    def __init__(self, parent, *args, direction=Direction.FORWARD):
        args, direction = _split_direction(args, direction)
        if len(args) in (1, 3):
            args = (*args, cantilever_free_beam.DEFAULT_LENGTH)
        if len(args) not in (2, 4):
            raise InvalidArgumentError(
                "MobilizedBody.CantileverFreeBeam: call it as CantileverFreeBeam(parent, "
                "X_PF, body, X_BM, length) or CantileverFreeBeam(parent, body, length).")
        length = float(args[-1])
        if not (math.isfinite(length) and length > 0.0):
            raise InvalidArgumentError(
                f"MobilizedBody.CantileverFreeBeam: the beam length (m) is {length}; it "
                f"must be positive.")
        super().__init__(parent, *args[:-1], direction=direction)
        self._params[0] = length

    def get_default_length(self) -> float:
        return float(self._params[0])


class _Scapulothoracic(MobilizedBody):
    """OpenSim's ScapulothoracicJoint (the scapula gliding on an ellipsoid over the thorax,
    then winging): ``MobilizedBody.Scapulothoracic(parent, X_PF, body, X_BM, radii,
    winging_origin=(0, 0), winging_direction=0)`` or ``(parent, body, radii, ...)``. The
    ellipsoid is centred at F's origin with semi-axes ``radii`` (m) along F's x, y, z; the
    winging axis passes through ``winging_origin`` (x, y in m) of the scapular plane, at
    ``winging_direction`` (rad) from its y axis. q: the orientation on the ellipsoid (a
    quaternion, or abduction, elevation and upward rotation as x-y-z angles), then the
    winging angle; u: the angular velocity on the ellipsoid, then the winging rate. See
    ``mobilizers/scapulothoracic.py`` for the frames."""

    _module = scapulothoracic

    def __init__(self, parent, *args, winging_origin=(0.0, 0.0), winging_direction=0.0,
                 direction=Direction.FORWARD):
        args, direction = _split_direction(args, direction)
        where = "MobilizedBody.Scapulothoracic"
        frames = 3 if args and isinstance(args[0], Transform) else 1
        rest = args[frames:]
        if len(args) < frames or not 1 <= len(rest) <= 3:
            raise InvalidArgumentError(
                f"{where}: call it as Scapulothoracic(parent, X_PF, body, X_BM, radii[, "
                "winging_origin[, winging_direction]]) or Scapulothoracic(parent, body, "
                "radii[, ...]).")
        rest = list(rest) + [winging_origin, winging_direction][len(rest) - 1:]
        radii = np.asarray(rest[0], dtype=float)
        if radii.shape != (3,) or not np.all(np.isfinite(radii)) or not np.all(radii > 0):
            raise InvalidArgumentError(
                f"{where}: radii must be three positive lengths (m), got {rest[0]!r}.")
        origin = np.asarray(rest[1], dtype=float)
        if origin.shape != (2,) or not np.all(np.isfinite(origin)):
            raise InvalidArgumentError(
                f"{where}: winging_origin must be two finite lengths (m), got {rest[1]!r}.")
        try:
            angle = float(rest[2])
        except (TypeError, ValueError):
            angle = math.nan
        if not math.isfinite(angle):
            raise InvalidArgumentError(
                f"{where}: winging_direction must be a finite angle (rad), got {rest[2]!r}.")
        super().__init__(parent, *args[:frames], direction=direction)
        self._params = np.zeros(max(scapulothoracic.PARAMS, self._params.size))
        self._params[:3] = radii
        self._params[3:5] = origin
        self._params[5] = angle

    def get_default_radii(self) -> np.ndarray:
        """The thoracic ellipsoid's semi-axes (m) along F's x, y, z."""
        return self._params[:3].copy()

    def get_default_winging_axis_origin(self) -> np.ndarray:
        """The winging axis's point (x, y, m) in the scapular plane."""
        return self._params[3:5].copy()

    def get_default_winging_axis_direction(self) -> float:
        """The winging axis's angle (rad) from the scapular plane's y axis."""
        return float(self._params[5])


class _Custom(MobilizedBody):
    """A mobilizer whose X_FM(q), H, (dH/dt) u and N come from a Python implementation
   : ``MobilizedBody.Custom(parent, implementation, X_PF, body, X_BM)`` or
    ``MobilizedBody.Custom(parent, implementation, body)`` as in Simbody (or with the
    implementation last), the implementation a subclass of
    ``MobilizedBody.Custom.Implementation``. Every operator, constraint and integrator works
    with it as with a built-in mobilizer."""

    _module = custom
    Implementation = custom.Implementation
    _python_hinge = True

    def __init__(self, parent, *args, direction=Direction.FORWARD):
        args, direction = _split_direction(args, direction)
        where = f"MobilizedBody.{type(self).__name__}"
        if args and isinstance(args[0], custom.Implementation):
            args = (*args[1:], args[0])     # Simbody's order: the implementation first
        if len(args) not in (2, 4):
            raise InvalidArgumentError(
                f"{where}: call it as Custom(parent, implementation, X_PF, body, X_BM) or "
                f"Custom(parent, implementation, body) (Simbody's order), or with the "
                f"implementation last.")
        impl = args[-1]
        if not isinstance(impl, custom.Implementation):
            raise InvalidArgumentError(
                f"{where}: the implementation must subclass MobilizedBody.Custom."
                f"Implementation, got {type(impl).__name__}.")
        if impl._mobod is not None:
            raise InvalidArgumentError(
                f"{where}: this {type(impl).__name__} object already implements "
                f"{impl._mobod._name()}; give each Custom body its own implementation.")
        if isinstance(parent, MobilizedBody) and impl._matter is not parent._matter:
            raise InvalidArgumentError(
                f"{where}: the implementation was made for another matter subsystem; "
                f"construct it with the parent's matter subsystem.")
        super().__init__(parent, *args[:-1], direction=direction)
        self._impl = impl
        impl._mobod = self
        if impl._identity_n:
            self._params[0] = custom.IDENTITY_N
        self._default_q = np.zeros(impl._num_q(False))
        if impl._n_angles == 4:
            self._default_q[0] = 1.0
        self._default_q_euler = np.zeros(impl._num_q(True))
        self._default_u = np.zeros(impl._nu)

    def get_implementation(self) -> custom.Implementation:
        return self._impl

    def _fit_q(self, state, X_FM: Transform, nq: int) -> np.ndarray:
        """The implementation's fit of X_FM (its ``set_q_to_fit_transform``: a numerical fit
        unless it has its own)."""
        return custom._checked_vector(
            self._impl.set_q_to_fit_transform(state, self._own_transform(X_FM)), nq,
            self._impl, "set_q_to_fit_transform")

    def _fit_u(self, state, V_FM: np.ndarray, nu: int) -> np.ndarray:
        """The implementation's fit of V_FM (its ``set_u_to_fit_velocity``: least squares
        on H unless it has its own)."""
        return custom._checked_vector(
            self._impl.set_u_to_fit_velocity(state, self._own_velocity(state, V_FM)), nu,
            self._impl, "set_u_to_fit_velocity")


class _FunctionBased(_Custom):
    """Motion given by six Functions of the coordinates, with q̇ = u:
    ``MobilizedBody.FunctionBased(parent, X_PF, body, X_BM, nmobilities, functions,
    coord_indices[, axes])`` or ``(parent, body, nmobilities, functions, coord_indices[,
    axes])``. functions[0:3] are angles (rad) of body-fixed rotations about axes[0:3] in
    sequence, functions[3:6] distances (m) along axes[3:6] fixed in F (default axes x, y, z
    for both); function i takes the coordinates listed in coord_indices[i].

    When every function is a built-in one of one coordinate or a constant (Constant,
    Linear, Polynomial, Spline, SimmSpline, GCVSpline, PiecewiseLinear, and Multipliers of
    those), the mobilizer is the compiled kind ``function_based``: its functions are
    tables in its parameter row, read when the body is made, and it realizes with no
    Python; otherwise (a user Function, a function of several coordinates) its
    implementation runs each realization, as a Custom mobilizer's does."""

    def __init__(self, parent, *args, direction=Direction.FORWARD):
        args, direction = _split_direction(args, direction)
        if args and isinstance(args[0], Transform):
            frames, rest = args[:3], args[3:]
        else:
            frames, rest = args[:1], args[1:]
        if len(rest) not in (3, 4) or len(frames) not in (1, 3):
            raise InvalidArgumentError(
                "MobilizedBody.FunctionBased: call it as FunctionBased(parent, X_PF, body, "
                "X_BM, nmobilities, functions, coord_indices[, axes]) or "
                "FunctionBased(parent, body, nmobilities, functions, coord_indices[, axes]).")
        if not isinstance(parent, MobilizedBody):
            raise InvalidArgumentError(
                f"MobilizedBody.FunctionBased: the parent must be a MobilizedBody "
                f"(matter.Ground() for the first body), got {type(parent).__name__}.")
        impl = function_based.FunctionBasedImplementation(
            parent._matter, *rest[:3], rest[3] if len(rest) == 4 else None)
        super().__init__(parent, *frames, impl, direction=direction)
        params = function_based.encode(impl)
        if params is not None:
            self._module = function_based
            self._params = params
            self._python_hinge = False

    def _refresh_params(self) -> None:
        # The compiled kind's tables hold the functions' values: read them again when the
        # tree is laid out (realize_model), so that a Function changed since (a Constant's
        # set_value) is the one realized.
        if not self._python_hinge:
            self._params = function_based.encode(self._impl)


_Custom.__name__ = "Custom"
_Custom.__qualname__ = "MobilizedBody.Custom"
_FunctionBased.__name__ = "FunctionBased"
_FunctionBased.__qualname__ = "MobilizedBody.FunctionBased"

_Ellipsoid.__name__ = "Ellipsoid"
_Ellipsoid.__qualname__ = "MobilizedBody.Ellipsoid"

_Scapulothoracic.__name__ = "Scapulothoracic"
_Scapulothoracic.__qualname__ = "MobilizedBody.Scapulothoracic"

class _OneCoordinate(MobilizedBody):
    """Simbody's named accessors of a one-coordinate mobilizer, q̇ = u (``get_rate``,
    ``get_acceleration``; ``_one_coordinate_type`` adds those named after its coordinate,
    a Pin's angle in rad, a Slider's length in m)."""

    def _default(self) -> float:
        return float(self.get_default_q()[0])

    def _value(self, state) -> float:
        return self.get_one_q(state, 0)

    def _set_value(self, state, value: float) -> None:
        self.set_one_q(state, 0, value)

    def get_rate(self, state) -> float:
        """u = q̇ (rad/s or m/s, VELOCITY's input: the State's u)."""
        return self.get_one_u(state, 0)

    def set_rate(self, state, rate: float) -> None:
        self.set_one_u(state, 0, rate)

    def get_acceleration(self, state) -> float:
        """u̇ (rad/s² or m/s², ACCELERATION)."""
        return self.get_one_u_dot(state, 0)


def _one_coordinate_type(name: str, module, word: str):
    """A one-coordinate mobilizer class with Simbody's ``get_<word>``, ``set_<word>``,
    ``set_default_<word>`` and ``get_default_<word>`` beside ``get_rate``/``set_rate``."""
    cls = type(name, (_OneCoordinate,), {"_module": module, "__doc__": module.__doc__})
    cls.__qualname__ = f"MobilizedBody.{name}"
    methods = {
        f"get_{word}": (lambda self, state: self._value(state), f"The {word}: the q."),
        f"set_{word}": (lambda self, state, value: self._set_value(state, value),
                        f"Set the {word} (the q) in ``state``."),
        f"get_default_{word}": (lambda self: self._default(), f"The default {word}."),
        f"set_default_{word}": (lambda self, value: self.set_default_q([value]),
                                f"The {word} new States start from.")}
    for method, (function, doc) in methods.items():
        function.__name__, function.__doc__ = method, doc
        setattr(cls, method, function)
    return cls


class _Translation(MobilizedBody):
    """Translation along F's axes, q = p_FM (m, in F), u = q̇, with Simbody's named
    accessors. See ``mobilizers/translation.py``."""

    _module = translation

    def get_translation(self, state) -> np.ndarray:
        """p_FM (m, in F): the q."""
        return np.array(self.get_q(state), dtype=float)

    def set_translation(self, state, p_FM) -> None:
        self.set_q(state, p_FM)

    def get_velocity(self, state) -> np.ndarray:
        """v_FM (m/s, in F): the u."""
        return np.array(self.get_u(state), dtype=float)

    def set_velocity(self, state, v_FM) -> None:
        self.set_u(state, v_FM)

    def get_default_translation(self) -> np.ndarray:
        return self.get_default_q()

    def set_default_translation(self, p_FM):
        """The translation new States start from."""
        return self.set_default_q(p_FM)


_Translation.__name__ = "Translation"
_Translation.__qualname__ = "MobilizedBody.Translation"

_Screw.__name__ = "Screw"
_Screw.__qualname__ = "MobilizedBody.Screw"

_CantileverFreeBeam.__name__ = "CantileverFreeBeam"
_CantileverFreeBeam.__qualname__ = "MobilizedBody.CantileverFreeBeam"

MobilizedBody.Weld = _mobilizer_type("Weld", weld, "No relative motion: X_FM = identity.")
MobilizedBody.Pin = _one_coordinate_type("Pin", pin, "angle")
MobilizedBody.Slider = _one_coordinate_type("Slider", slider, "length")
MobilizedBody.Universal = _mobilizer_type("Universal", universal, universal.__doc__)
MobilizedBody.Cylinder = _mobilizer_type("Cylinder", cylinder, cylinder.__doc__)
MobilizedBody.Screw = _Screw
MobilizedBody.Planar = _mobilizer_type("Planar", planar, planar.__doc__)
MobilizedBody.Gimbal = _mobilizer_type("Gimbal", gimbal, gimbal.__doc__)
MobilizedBody.Ball = _mobilizer_type("Ball", ball, ball.__doc__)
MobilizedBody.Free = _mobilizer_type("Free", free, free.__doc__)
MobilizedBody.Translation = _Translation
MobilizedBody.Bushing = _mobilizer_type("Bushing", bushing, bushing.__doc__)
MobilizedBody.BendStretch = _mobilizer_type("BendStretch", bend_stretch, bend_stretch.__doc__)
MobilizedBody.SphericalCoords = _mobilizer_type("SphericalCoords", spherical_coords,
                                                spherical_coords.__doc__)
MobilizedBody.LineOrientation = _mobilizer_type("LineOrientation", line_orientation,
                                                line_orientation.__doc__)
MobilizedBody.FreeLine = _mobilizer_type("FreeLine", free_line, free_line.__doc__)
MobilizedBody.Ellipsoid = _Ellipsoid
MobilizedBody.CantileverFreeBeam = _CantileverFreeBeam
MobilizedBody.Scapulothoracic = _Scapulothoracic
MobilizedBody.Custom = _Custom
MobilizedBody.FunctionBased = _FunctionBased
MobilizedBody.Ground = Ground
# Simbody's other names for the same mobilizers.
MobilizedBody.Revolute = MobilizedBody.Torsion = MobilizedBody.Pin
MobilizedBody.Prismatic = MobilizedBody.Slider
MobilizedBody.Spherical = MobilizedBody.Orientation = MobilizedBody.Ball
MobilizedBody.Cartesian = MobilizedBody.CartesianCoords = MobilizedBody.Translation
MobilizedBody.PolarCoords = MobilizedBody.BendStretch

