"""Prescribed motion of a mobilizer: Motion.Steady, Motion.Sinusoid and Motion.Custom, and
the locks of ``MobilizedBody.lock`` (Simbody's Motion and mobilizer locking).

A Motion makes a mobilizer's motion known instead of computed from forces, at a level:
POSITION (q, and so u and u̇, are functions of time), VELOCITY (u and u̇; q integrates)
or ACCELERATION (u̇; u and q integrate). It applies to all of the mobilizer's mobilities.
The realization carries a prescribed body rigidly in the articulated-body sweeps
(``kernels/prescribed.py``): no multipliers, no constraint equations and no drift, at
the cost of the free mobilizer. The generalized forces τ that produce the motion are
``mobod.get_tau_as_vector(state)`` and ``matter.find_motion_forces(state)``.

A lock is a Motion of constant values that overrides the mobilizer's own Motion while it
is on. Both are Instance-stage choices: locking, unlocking, enabling or disabling a Motion
or changing a Steady rate lowers the State to MODEL.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.tree_model import (
    CONSTANT,
    FREE,
    PRESCRIBED_ACCELERATION,
    PRESCRIBED_COUNT,
    PRESCRIBED_POSITION,
    PRESCRIBED_VELOCITY,
    SINUSOID,
)
from kinetree.registry import MOBILIZERS
from kinetree.system.stage import Stage


class Level(IntEnum):
    """The highest level a Motion or a lock drives; the levels below it are driven too
    (Simbody's Motion::Level)."""

    NO_LEVEL = -1
    ACCELERATION = 0
    VELOCITY = 1
    POSITION = 2


_CODE = {Level.ACCELERATION: PRESCRIBED_ACCELERATION, Level.VELOCITY: PRESCRIBED_VELOCITY,
         Level.POSITION: PRESCRIBED_POSITION}
"""cache.level's code for each Level."""

_RATE_MOBILIZERS = {MOBILIZERS[name] for name in (
    "ball", "ellipsoid", "free", "free_line", "line_orientation", "scapulothoracic",
    "custom")}
"""Mobilizer kinds whose q̇ is not u (quaternions, rotation-rate maps, custom N): a
position-level sinusoid or Custom Motion, which prescribes q̇ through q, needs q̇ = u."""


def level_of(level, where: str) -> Level:
    """``level`` as a Level (a Level, or its name or value), else a clear error."""
    try:
        if isinstance(level, str):
            return Level[level.upper()]
        return Level(level)
    except (KeyError, ValueError):
        raise InvalidArgumentError(
            f"{where}: {level!r} is not a Motion level; use Motion.Level.POSITION, "
            f"VELOCITY or ACCELERATION.") from None


class Motion:
    """The base of the built-in Motions: one per mobilizer, made by constructing it on the
    MobilizedBody (``Motion.Sinusoid(mobod, ...)``)."""

    Level = Level

    def __init__(self, mobod):
        matter = mobod.get_matter_subsystem()
        if mobod.is_ground():
            raise InvalidArgumentError(f"{type(self).__name__}: Ground has no mobilizer to "
                                       "drive.")
        if mobod._index in matter._motions:
            raise InvalidArgumentError(
                f"{type(self).__name__}: {mobod._name()} already has a "
                f"{type(matter._motions[mobod._index]).__name__}; a mobilizer takes one "
                "Motion.")
        self._mobod = mobod
        self._matter = matter
        self._disabled_by_default = False
        matter._motions[mobod._index] = self
        matter.invalidate_subsystem_topology_cache()

    def get_mobilized_body(self):
        return self._mobod

    def _where(self, method: str) -> str:
        return f"{type(self).__name__} on {self._mobod._name()}.{method}"

    # ------------------------------------------------------- enabling
    def set_disabled_by_default(self, disabled: bool) -> Motion:
        """Whether this Motion starts disabled in a new State (a topology change)."""
        self._disabled_by_default = bool(disabled)
        self._matter.invalidate_subsystem_topology_cache()
        return self

    def is_disabled_by_default(self) -> bool:
        return self._disabled_by_default

    def disable(self, state) -> None:
        """Let the mobilizer move freely in ``state`` (unless it is locked): INSTANCE."""
        self._matter._set_motion_setting(state, self, "disabled", True)

    def enable(self, state) -> None:
        """Drive the mobilizer again in ``state``; q and u follow at the next realization."""
        self._matter._set_motion_setting(state, self, "disabled", False)

    def is_disabled(self, state) -> bool:
        return bool(self._matter._motion_setting(state, self, "disabled"))

    def get_level(self, state) -> Level:
        """The level this Motion drives in ``state`` (NO_LEVEL while disabled)."""
        if self.is_disabled(state):
            return Level.NO_LEVEL
        return self._level(state)

    # ------------------------------------------------------- realization
    def _level(self, state) -> Level:
        raise NotImplementedError

    def _default_settings(self) -> dict:
        return {"disabled": self._disabled_by_default}

    def _write(self, state, data, sl_q: slice, sl_u: slice) -> int:
        """Fill this body's method and prescribed values in the cache (INSTANCE); returns
        its cache.method."""
        raise NotImplementedError

    def _check_q_dot_is_u(self, data) -> None:
        b = self._mobod._index
        if (data.tree.code[b] in _RATE_MOBILIZERS or data.tree.nq[b] != data.tree.nu[b]):
            raise InvalidArgumentError(
                f"{self._where('realize')}: a position-level {type(self).__name__} sets "
                f"each q and takes u = q̇, which {type(self._mobod).__name__}'s q and u do "
                "not satisfy (its q̇ ≠ u). Drive it at Motion.Level.VELOCITY or "
                "ACCELERATION, or use a mobilizer whose q̇ = u (Pin, Slider, Gimbal, ...).")


class Steady(Motion):
    """A constant rate on every mobility: u prescribed at VELOCITY level, u̇ = 0, q
    integrated. ``u`` is one rate for all mobilities or one per mobility."""

    def __init__(self, mobod, u):
        # The rates are checked before the Motion joins the body, so a refused one
        # leaves the body as it was.
        self._mobod = mobod
        rates = None if mobod.is_ground() else self._rates(u, "Motion.Steady")
        super().__init__(mobod)
        self._default_rates = rates

    def _rates(self, u, where: str) -> np.ndarray:
        nu = self._mobod._default_u.size
        refused = InvalidArgumentError(
            f"{where}: the rate must be one finite number or {nu} of them (one per "
            f"mobility of {self._mobod._name()}); got {u!r}.")
        if isinstance(u, (str, bytes)) or np.iscomplexobj(u):
            raise refused
        try:
            rates = np.atleast_1d(np.asarray(u, dtype=float))
        except (TypeError, ValueError):
            raise refused from None
        if rates.ndim != 1 or rates.size not in (1, nu) or not np.all(np.isfinite(rates)):
            raise refused
        return np.full(nu, rates[0]) if rates.size == 1 else rates.copy()

    def set_default_rate(self, u: float) -> Steady:
        self._default_rates = self._rates(u, self._where("set_default_rate"))
        self._matter.invalidate_subsystem_topology_cache()
        return self

    def set_one_default_rate(self, which: int, u: float) -> Steady:
        rates = self._default_rates.copy()
        rates[self._which(which)] = float(u)
        self._default_rates = self._rates(rates, self._where("set_one_default_rate"))
        self._matter.invalidate_subsystem_topology_cache()
        return self

    def get_one_default_rate(self, which: int) -> float:
        return float(self._default_rates[self._which(which)])

    def set_rate(self, state, u: float) -> None:
        """Every mobility's rate in ``state`` (INSTANCE)."""
        self._matter._set_motion_setting(state, self, "rates",
                                         self._rates(u, self._where("set_rate")))

    def set_one_rate(self, state, which: int, u: float) -> None:
        rates = self._matter._motion_setting(state, self, "rates").copy()
        rates[self._which(which)] = float(u)
        self._matter._set_motion_setting(state, self, "rates",
                                         self._rates(rates, self._where("set_one_rate")))

    def get_one_rate(self, state, which: int) -> float:
        return float(self._matter._motion_setting(state, self, "rates")[self._which(which)])

    def _which(self, which: int) -> int:
        n = self._default_rates.size
        if not 0 <= int(which) < n:
            raise InvalidArgumentError(
                f"{self._where('rate')}: mobility {which} is out of range; it has {n}.")
        return int(which)

    def _default_settings(self) -> dict:
        return {**super()._default_settings(), "rates": self._default_rates.copy()}

    def _level(self, state) -> Level:
        return Level.VELOCITY

    def _write(self, state, data, sl_q, sl_u) -> int:
        data.cache.u_presc[sl_u] = self._matter._motion_setting(state, self, "rates")
        data.cache.udot_presc[sl_u] = 0.0
        return CONSTANT


class Sinusoid(Motion):
    """a sin(ω t + φ) prescribed at ``level`` on every mobility (every q at POSITION, for a
    mobilizer whose q̇ = u), its time derivatives on the levels below: amplitude ``a`` in
    the level's units, ``rate`` ω in rad/s, ``phase`` φ in rad."""

    def __init__(self, mobod, level, amplitude: float, rate: float, phase: float):
        super().__init__(mobod)
        self._level_value = level_of(level, "Motion.Sinusoid")
        if self._level_value == Level.NO_LEVEL:
            raise InvalidArgumentError("Motion.Sinusoid: the level must be POSITION, "
                                       "VELOCITY or ACCELERATION.")
        values = [float(amplitude), float(rate), float(phase)]
        if not all(math.isfinite(v) for v in values):
            raise InvalidArgumentError(
                f"Motion.Sinusoid: amplitude, rate and phase must be finite; got {values}.")
        self._prm = values

    def _level(self, state) -> Level:
        return self._level_value

    def _write(self, state, data, sl_q, sl_u) -> int:
        if self._level_value == Level.POSITION:
            self._check_q_dot_is_u(data)
        data.cache.motion_prm[self._mobod._index] = self._prm
        return SINUSOID


class Custom(Motion):
    """A Motion computed by user code: ``Motion.Custom(mobod, implementation)``, the
    implementation a ``Motion.Custom.Implementation``. It runs in Python at each
    realization, before the compiled stages that read its values."""

    class Implementation:
        """What a custom Motion computes. ``get_level`` says which level it drives; then,
        for that level, the methods below it in this list are called at each realization
        (each returns one value per q for the position ones, per u for the others):

        - POSITION (the mobilizer's q̇ must be u): ``calc_prescribed_position(state)`` q(t),
          ``calc_prescribed_position_dot(state)`` q̇, ``calc_prescribed_position_dot_dot``
          q̈;
        - VELOCITY: ``calc_prescribed_velocity(state)`` u, ``calc_prescribed_velocity_dot``
          u̇;
        - ACCELERATION: ``calc_prescribed_acceleration(state)`` u̇.

        The state is realized to TIME for the positions, POSITION for the velocities and
        VELOCITY for the accelerations; read nothing of a later stage."""

        def get_level(self, state) -> Level:
            raise NotImplementedError("Motion.Custom.Implementation.get_level")

        def calc_prescribed_position(self, state):
            raise NotImplementedError("calc_prescribed_position")

        def calc_prescribed_position_dot(self, state):
            raise NotImplementedError("calc_prescribed_position_dot")

        def calc_prescribed_position_dot_dot(self, state):
            raise NotImplementedError("calc_prescribed_position_dot_dot")

        def calc_prescribed_velocity(self, state):
            raise NotImplementedError("calc_prescribed_velocity")

        def calc_prescribed_velocity_dot(self, state):
            raise NotImplementedError("calc_prescribed_velocity_dot")

        def calc_prescribed_acceleration(self, state):
            raise NotImplementedError("calc_prescribed_acceleration")

    def __init__(self, mobod, implementation: Custom.Implementation):
        if not isinstance(implementation, Custom.Implementation):
            raise InvalidArgumentError(
                "Motion.Custom: the implementation must be a Motion.Custom.Implementation "
                f"subclass instance; got {type(implementation).__name__}.")
        super().__init__(mobod)
        self._impl = implementation

    def get_implementation(self) -> Custom.Implementation:
        return self._impl

    def _level(self, state) -> Level:
        return level_of(self._impl.get_level(state),
                        self._where("Implementation.get_level"))

    def _write(self, state, data, sl_q, sl_u) -> int:
        if self._level(state) == Level.POSITION:
            self._check_q_dot_is_u(data)
        return CONSTANT

    def _values(self, state, method: str, n: int) -> np.ndarray:
        values = np.asarray(getattr(self._impl, method)(state), dtype=float).reshape(-1)
        if values.size != n or not np.all(np.isfinite(values)):
            raise InvalidArgumentError(
                f"{self._where('Implementation.' + method)}: expected {n} finite values, "
                f"got {values!r}.")
        return values

    def _prescribe(self, state, data, stage: Stage) -> None:
        """Write this Motion's values for ``stage`` into the cache, before the compiled
        stage reads them."""
        b = self._mobod._index
        level = data.cache.level[b]
        qs, nq = data.tree.q_start[b], data.tree.nq[b]
        us, nu = data.tree.u_start[b], data.tree.nu[b]
        c = data.cache
        if stage == Stage.POSITION and level == PRESCRIBED_POSITION:
            c.q_presc[qs:qs + nq] = self._values(state, "calc_prescribed_position", nq)
        elif stage == Stage.VELOCITY and level == PRESCRIBED_POSITION:
            c.u_presc[us:us + nu] = self._values(state, "calc_prescribed_position_dot", nu)
        elif stage == Stage.VELOCITY and level == PRESCRIBED_VELOCITY:
            c.u_presc[us:us + nu] = self._values(state, "calc_prescribed_velocity", nu)
        elif stage == Stage.ACCELERATION and level == PRESCRIBED_POSITION:
            c.udot_presc[us:us + nu] = self._values(
                state, "calc_prescribed_position_dot_dot", nu)
        elif stage == Stage.ACCELERATION and level == PRESCRIBED_VELOCITY:
            c.udot_presc[us:us + nu] = self._values(state, "calc_prescribed_velocity_dot", nu)
        elif stage == Stage.ACCELERATION and level == PRESCRIBED_ACCELERATION:
            c.udot_presc[us:us + nu] = self._values(state, "calc_prescribed_acceleration", nu)


Motion.Steady = Steady
Motion.Sinusoid = Sinusoid
Motion.Custom = Custom


def write_prescriptions(matter, state, data, locks: tuple) -> None:
    """Fill ``data``'s cache.level, cache.method and prescribed values for ``state``
    (INSTANCE): each body's lock, else its enabled Motion, else free."""
    c, tree = data.cache, data.tree
    c.level[:] = FREE
    c.method[:] = CONSTANT
    c.tau[:] = 0.0                  # stays zero while nothing is prescribed
    count = 0
    for b in range(1, len(tree.parent)):
        qs, nq, us, nu = tree.q_start[b], tree.nq[b], tree.u_start[b], tree.nu[b]
        sl_q, sl_u = slice(qs, qs + nq), slice(us, us + nu)
        lock = locks[b]
        motion = matter._motions.get(b)
        if lock is not None:
            level, value = lock
            c.level[b] = _CODE[level]
            c.u_presc[sl_u] = value if level == Level.VELOCITY else 0.0
            c.udot_presc[sl_u] = value if level == Level.ACCELERATION else 0.0
            if level == Level.POSITION:
                c.q_presc[sl_q] = value
        elif motion is not None and not motion.is_disabled(state):
            level = motion._level(state)
            if level == Level.NO_LEVEL:
                continue
            c.level[b] = _CODE[level]
            c.method[b] = motion._write(state, data, sl_q, sl_u)
        else:
            continue
        count += 1
    data.status[PRESCRIBED_COUNT] = count
