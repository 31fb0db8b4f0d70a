"""The State: everything variable about a System, plus the realization cache.

Simbody's State, realized stage by stage. It holds
time t; the continuous variables y = [q | u | z] in one contiguous float64 array, each
subsystem owning a slice of q, of u and of z; discrete variables (any Python value), each
with the stage it invalidates; cache entries with an earliest and a latest stage (lazy
ones have latest = INFINITY); the derivative caches [q̇ | u̇ | ż] and q̈; constraint-error
slots qerr, uerr, u̇err with the multipliers; event-trigger slots per stage; and the stage
each subsystem and the whole State have been realized to.

Changing a state variable backs the State up to the stage before the one the variable
belongs to (t -> INSTANCE, q -> TIME, u -> POSITION, z -> VELOCITY, a discrete variable ->
one below its stage), so no cached value can outlive what it was computed from.

A State is filled by ``System.realize_topology()`` and ``System.realize()``; subsystems
allocate through their own ``allocate_*`` methods, which call the private methods here.
"""

from __future__ import annotations

import copy as _copy
import math

import numba
import numpy as np

from kinetree.engine.entry import entry_point
from kinetree.errors import (
    CacheEntryOutOfDateError,
    InvalidArgumentError,
    StageOutOfRangeError,
    StageTooLowError,
    StateMismatchError,
)
from kinetree.system import state_file
from kinetree.system.stage import STAGES, Stage
from kinetree.system.threads import new_guard

_N_STAGES = len(Stage)
_FLOAT = np.dtype(float)
# The stages as module constants: reading an attribute of an Enum class costs about
# 150 ns, which the invalidation and the getters of every realization would pay.
(_EMPTY, _TOPOLOGY, _MODEL, _INSTANCE, _TIME, _POSITION, _VELOCITY, _DYNAMICS, _ACCELERATION,
 _REPORT) = STAGES[:10]
_TRIGGER_STAGES = (_TIME, _POSITION, _VELOCITY, _DYNAMICS, _ACCELERATION)


def _read_only(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


@numba.njit(cache=True)
def _copy_if_finite(dest, values):
    """dest[:] = values (1-D, of one length) if every value is finite: -1; else the index
    of the first value that is not, and dest unchanged. One compiled call costs less than
    numpy's isfinite and its reduction."""
    for i in range(values.shape[0]):
        if not math.isfinite(values[i]):
            return i
    for i in range(values.shape[0]):
        dest[i] = values[i]
    return -1


def _copy_finite(dest, values):
    """_copy_if_finite without numba's dispatch (some 60 ns a call): give it a contiguous
    float64 dest and a 1-D float64 ndarray of values, nothing else (it does not check).
    The first call compiles (or loads from the cache) the version for any such values
    and puts its entry point in this function's place, so importing compiles nothing."""
    global _copy_finite
    any_values = np.zeros(4)[::2]           # a strided, read-only 1-D array: the widest type
    any_values.flags.writeable = False
    _copy_finite = entry_point(_copy_if_finite, (np.zeros(1), any_values))
    return _copy_finite(dest, values)


def _real_array(values, where: str) -> np.ndarray:
    """``values`` as a float array, refused with an error naming ``where`` when they are
    not real numbers (strings, mappings, complex numbers, whose imaginary part numpy
    would drop)."""
    if isinstance(values, (str, bytes, dict)) or np.iscomplexobj(values):
        raise InvalidArgumentError(
            f"{where}: expected real numbers, got {values!r:.60}.")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{where}: expected real numbers, got {values!r:.60}.") from None


_IMMUTABLE = (float, int, bool, str, slice, type(None), Stage)
"""Values a copy of a State shares with the original."""


def _copy_value(value, memo):
    """``copy.deepcopy(value, memo)``, with what a State mostly holds (numbers, stages,
    slices, arrays, and dicts and lists of them) copied directly: the generic deepcopy
    made State.copy() cost a millisecond. A container is copied once (``memo``), so two
    references to it stay one."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    copied = memo.get(id(value))
    if copied is not None:
        return copied
    if kind is np.ndarray:
        copied = memo[id(value)] = value.copy()
    elif kind is dict:
        copied = memo[id(value)] = {}
        for k, v in value.items():
            copied[k] = _copy_value(v, memo)
    elif kind is list:
        copied = memo[id(value)] = []
        copied.extend(_copy_value(v, memo) for v in value)
    else:
        copied = _copy.deepcopy(value, memo)
    return copied


class _Block:
    """A contiguous run of continuous variables (or error slots) one subsystem allocated
    while realizing ``alloc_stage``; ``values`` holds their initial values."""

    __slots__ = ("alloc_stage", "values")

    def __init__(self, alloc_stage: Stage, values: np.ndarray):
        self.alloc_stage = alloc_stage
        self.values = values

    def __deepcopy__(self, memo) -> _Block:
        return _Block(self.alloc_stage, _copy_value(self.values, memo))


class _DiscreteVariable:
    """``time`` is the time (s) of the State when the value last changed (nan: never);
    ``update`` is the cache entry holding an auto-update variable's next value, of index
    ``update_index`` in its subsystem's cache (None and -1 for an ordinary variable)."""

    __slots__ = ("stage", "alloc_stage", "value", "time", "update", "update_index")

    def __init__(self, stage: Stage, alloc_stage: Stage, value):
        self.stage = stage
        self.alloc_stage = alloc_stage
        self.value = value
        self.time = math.nan
        self.update = None
        self.update_index = -1

    def __deepcopy__(self, memo) -> _DiscreteVariable:
        new = _DiscreteVariable(self.stage, self.alloc_stage, _copy_value(self.value, memo))
        new.time = self.time
        new.update = None if self.update is None else _copy.deepcopy(self.update, memo)
        new.update_index = self.update_index
        return new


class _CacheEntry:
    """``version`` is the State's version of stage ``earliest`` when the value was last
    marked realized (-1: never); the value is current while that version is unchanged."""

    __slots__ = ("earliest", "latest", "alloc_stage", "value", "version")

    def __init__(self, earliest: Stage, latest: Stage, alloc_stage: Stage, value):
        self.earliest = earliest
        self.latest = latest
        self.alloc_stage = alloc_stage
        self.value = value
        self.version = -1

    def __deepcopy__(self, memo) -> _CacheEntry:
        copied = memo.get(id(self))       # an auto-update variable's entry is shared
        if copied is None:
            copied = memo[id(self)] = _CacheEntry(self.earliest, self.latest,
                                                  self.alloc_stage,
                                                  _copy_value(self.value, memo))
            copied.version = self.version
        return copied


class _SubsystemPart:
    """One subsystem's share of a State: its stage, allocations and slices."""

    __slots__ = (
        "index", "name", "stage",
        "q_blocks", "u_blocks", "z_blocks", "qerr_blocks", "uerr_blocks", "udoterr_blocks",
        "trigger_blocks", "discrete", "cache",
        "q_slice", "u_slice", "z_slice", "qerr_slice", "uerr_slice", "udoterr_slice",
        "trigger_slices",
    )

    def __init__(self, index: int, name: str):
        self.index = index
        self.name = name
        self.stage = _EMPTY
        self.q_blocks: list[_Block] = []
        self.u_blocks: list[_Block] = []
        self.z_blocks: list[_Block] = []
        self.qerr_blocks: list[_Block] = []
        self.uerr_blocks: list[_Block] = []
        self.udoterr_blocks: list[_Block] = []
        self.trigger_blocks: dict[Stage, list[_Block]] = {g: [] for g in _TRIGGER_STAGES}
        self.discrete: list[_DiscreteVariable] = []
        self.cache: list[_CacheEntry] = []
        self.q_slice = self.u_slice = self.z_slice = slice(0, 0)
        self.qerr_slice = self.uerr_slice = self.udoterr_slice = slice(0, 0)
        self.trigger_slices: dict[Stage, slice] = {}

    def __deepcopy__(self, memo) -> _SubsystemPart:
        new = _SubsystemPart.__new__(_SubsystemPart)
        new.index, new.name, new.stage = self.index, self.name, self.stage
        for name in ("q_blocks", "u_blocks", "z_blocks", "qerr_blocks", "uerr_blocks",
                     "udoterr_blocks", "discrete", "cache"):
            setattr(new, name, [item.__deepcopy__(memo) for item in getattr(self, name)])
        new.trigger_blocks = {g: [b.__deepcopy__(memo) for b in blocks]
                              for g, blocks in self.trigger_blocks.items()}
        new.q_slice, new.u_slice, new.z_slice = self.q_slice, self.u_slice, self.z_slice
        new.qerr_slice, new.uerr_slice = self.qerr_slice, self.uerr_slice
        new.udoterr_slice = self.udoterr_slice
        new.trigger_slices = dict(self.trigger_slices)
        return new

    def drop_allocations_after(self, stage: Stage) -> None:
        """Forget what was allocated while realizing a stage later than ``stage``."""
        keep = [b for b in self.discrete if b.alloc_stage <= stage]
        if len(keep) != len(self.discrete):
            self.discrete = keep
        keep_c = [c for c in self.cache if c.alloc_stage <= stage]
        if len(keep_c) != len(self.cache):
            self.cache = keep_c
        for name in ("q_blocks", "u_blocks", "z_blocks", "qerr_blocks", "uerr_blocks",
                     "udoterr_blocks"):
            blocks = getattr(self, name)
            setattr(self, name, [b for b in blocks if b.alloc_stage <= stage])
        for g, blocks in self.trigger_blocks.items():
            self.trigger_blocks[g] = [b for b in blocks if b.alloc_stage <= stage]


class State:
    """All variables of a System and its realization cache.

    Get one from ``system.realize_topology()`` (or ``get_default_state()``); it is then
    realized through MODEL, so q, u and z exist. ``get_*`` return read-only views,
    ``upd_*`` invalidate first and return writable views, ``set_*`` copy in and invalidate.
    A writable view from ``upd_*`` is not watched: write through it at once, before the
    State is realized again.
    """

    def __init__(self):
        self._stage = _EMPTY
        self._t = 0.0
        self._parts: list[_SubsystemPart] = []
        # Each change gets a new number (epoch), recorded at the stage it invalidates:
        # _changed[g] is the number of the last change at stage g, so the version of
        # stage g, the last change that invalidated it, is max(_changed[:g + 1])
        # (``_version``); _instance_version is that of INSTANCE, kept for the realization.
        self._changed = [0] * _N_STAGES
        self._instance_version = 0
        self._epoch = 0
        # For each stage, the key of q and u (``_kinematics_key``) it was last complete
        # at, so that a change of time alone leaves what q and u determine valid.
        self._completed: dict[int, tuple] = {}
        self._realizing: Stage | None = None
        self._system_uid: str | None = None
        self._topology_version = -1
        self._signature = ""
        # What the System last derived from this State's Instance-stage variables, tagged
        # with _instance_version then: a MultibodySystem keeps its RealizationPlan here.
        self._system_plan = None
        # An event found at this State whose handling was interrupted (a TimeStepper's
        # handlers and triggers, set on the State of simulate's error, not on its
        # copies): a run that goes on from this State handles it first
        # (TimeStepper.initialize).
        self._pending_event = None
        new_guard(self)
        self._clear_continuous()
        self._clear_instance()

    # ------------------------------------------------------------------ layout
    def _clear_continuous(self) -> None:
        self._nq = self._nu = self._nz = 0
        self._y = self._q = self._u = self._z = None
        self._y_ro = self._q_ro = self._u_ro = self._z_ro = None
        self._ydot = self._qdot = self._udot = self._zdot = self._qdotdot = None
        self._ydot_ro = self._qdot_ro = self._udot_ro = self._zdot_ro = self._qdotdot_ro = None

    def _clear_instance(self) -> None:
        self._qerr = self._uerr = self._udoterr = self._multipliers = None
        self._triggers = None
        self._trigger_stage_slices: dict[Stage, slice] = {}

    def _pack_continuous(self) -> None:
        """Lay out y = [q | u | z] from every subsystem's blocks; called once MODEL is
        realized, when the set of continuous variables is known."""
        parts = self._parts
        counts = [[sum(b.values.size for b in getattr(p, k)) for p in parts]
                  for k in ("q_blocks", "u_blocks", "z_blocks")]
        nq, nu, nz = (sum(c) for c in counts)
        y = np.empty(nq + nu + nz)
        start = 0
        for kind, per_part in zip(("q", "u", "z"), counts):
            for p, n in zip(parts, per_part):
                setattr(p, kind + "_slice", slice(start, start + n))
                at = start
                for b in getattr(p, kind + "_blocks"):
                    y[at:at + b.values.size] = b.values
                    at += b.values.size
                start += n
        self._nq, self._nu, self._nz = nq, nu, nz
        self._y = y
        self._q, self._u, self._z = y[:nq], y[nq:nq + nu], y[nq + nu:]
        self._ydot = np.zeros_like(y)
        self._qdot, self._udot, self._zdot = (self._ydot[:nq], self._ydot[nq:nq + nu],
                                              self._ydot[nq + nu:])
        self._qdotdot = np.zeros(nq)
        self._y_ro, self._q_ro, self._u_ro, self._z_ro = map(
            _read_only, (self._y, self._q, self._u, self._z))
        self._ydot_ro, self._qdot_ro, self._udot_ro, self._zdot_ro, self._qdotdot_ro = map(
            _read_only, (self._ydot, self._qdot, self._udot, self._zdot, self._qdotdot))
        # Subsystem slices were laid out over y; shift u and z slices to be relative to
        # their own arrays.
        for p in parts:
            p.u_slice = slice(p.u_slice.start - nq, p.u_slice.stop - nq)
            p.z_slice = slice(p.z_slice.start - nq - nu, p.z_slice.stop - nq - nu)

    def _pack_instance(self) -> None:
        """Lay out the constraint-error slots and event triggers; called once INSTANCE is
        realized, when the enabled constraints and events are known."""
        parts = self._parts
        sizes = {}
        for kind in ("qerr", "uerr", "udoterr"):
            start = 0
            for p in parts:
                n = sum(b.values.size for b in getattr(p, kind + "_blocks"))
                setattr(p, kind + "_slice", slice(start, start + n))
                start += n
            sizes[kind] = start
        self._qerr = np.zeros(sizes["qerr"])
        self._uerr = np.zeros(sizes["uerr"])
        self._udoterr = np.zeros(sizes["udoterr"])
        self._multipliers = np.zeros(sizes["udoterr"])
        start = 0
        self._trigger_stage_slices = {}
        for g in _TRIGGER_STAGES:
            stage_start = start
            for p in parts:
                n = sum(b.values.size for b in p.trigger_blocks[g])
                p.trigger_slices[g] = slice(start, start + n)
                start += n
            self._trigger_stage_slices[g] = slice(stage_start, start)
        self._triggers = np.zeros(start)

    # ------------------------------------------------------------ invalidation
    def _invalidate(self, stage: Stage) -> None:
        """Make ``stage`` and every later stage invalid: the State backs up to
        ``stage - 1`` and cache values of those stages go out of date."""
        # A cached value is current while its stage still has the version it was
        # computed under (``_version``).
        epoch = self._epoch = self._epoch + 1
        self._changed[stage] = epoch
        if stage <= _TIME or self._completed:
            self._invalidate_early(stage)
            if stage <= _INSTANCE:
                return
        # Stages from TIME on hold no allocations: backing up only lowers the stages.
        below = STAGES[stage - 1]
        if self._stage > below:
            self._stage = below
        for p in self._parts:
            if p.stage > below:
                p.stage = below

    def _invalidate_early(self, stage: Stage) -> None:
        """What ``_invalidate`` owes beyond lowering the stages: the record of what q and u
        gave (kept by a change of time alone, dropped from ``stage`` on by anything else),
        and for a change at INSTANCE or before, a new Instance version and the back-up
        that drops allocations."""
        completed = self._completed
        if stage == _TIME:
            for g in range(_POSITION, self._stage + 1):
                completed[g] = self._kinematics_key(2)
        else:
            for g in [g for g in completed if g >= stage]:
                del completed[g]
        if stage <= _INSTANCE:
            self._instance_version = self._epoch
            if self._stage >= stage or any(p.stage >= stage for p in self._parts):
                self._back_up_to(STAGES[stage - 1])

    def _version(self, stage: Stage) -> int:
        """The number of the last change that invalidated ``stage``."""
        return max(self._changed[:stage + 1])

    def _kinematics_key(self, depends: int) -> tuple:
        """What the lazily realized kinematics (Simbody's position and velocity
        kinematics) depend on: numbers that change with any Instance-stage change and
        with q, and (``depends`` 2) with u, but not with time alone."""
        changed = self._changed
        return (self._instance_version, changed[_POSITION], changed[_VELOCITY])[:depends + 1]

    def _advanced_to(self, t: float, stage: Stage) -> None:
        """Compiled code moved this State's variables to time ``t`` (s) and realized every
        part through ``stage``: set_time, then every part marked realized, in one go
        (once per compiled run of steps)."""
        self._t = t
        self._epoch += 1
        changed = self._changed
        changed[_TIME] = changed[_POSITION] = changed[_VELOCITY] = self._epoch
        self._stage = stage
        for p in self._parts:
            p.stage = stage

    def _back_up_to(self, stage: Stage) -> None:
        if stage < _INSTANCE:
            if stage < _MODEL and self._y is not None:
                self._keep_surviving_values(stage)
                self._clear_continuous()
            self._clear_instance()
            for p in self._parts:
                p.drop_allocations_after(stage)
        if self._stage > stage:
            self._stage = stage
        for p in self._parts:
            if p.stage > stage:
                p.stage = stage

    def _keep_surviving_values(self, stage: Stage) -> None:
        """Before y is discarded, copy the current values of the blocks that survive the
        back-up into their blocks, so a Model-stage change keeps what the user set."""
        for p in self._parts:
            for kind, arr in (("q", self._q), ("u", self._u), ("z", self._z)):
                at = getattr(p, kind + "_slice").start
                for b in getattr(p, kind + "_blocks"):
                    if b.alloc_stage <= stage:
                        b.values = arr[at:at + b.values.size].copy()
                    at += b.values.size

    def _require(self, needed: Stage, where: str, owned: str | None = None) -> None:
        """Raise StageTooLowError unless the State is realized to ``needed``. While it is
        being realized, variables of kind ``owned`` ("q", "u" or "z": their derivatives,
        errors and multipliers) may be read once every subsystem owning some has finished
        ``needed``, as a subsystem's measures read what it computed in Simbody."""
        if self._stage >= needed:
            return
        if owned is not None and self._realizing is not None and all(
                p.stage >= needed for p in self._parts
                if getattr(p, f"{owned}_slice").stop > getattr(p, f"{owned}_slice").start):
            return
        raise StageTooLowError(needed, self._stage, where)

    # ---------------------------------------------------------------- stages
    def get_system_stage(self) -> Stage:
        """The stage the whole State has been realized to."""
        return self._stage

    def get_subsystem_stage(self, subsystem_index: int) -> Stage:
        """The stage one subsystem's part of the State has been realized to."""
        return self._part(subsystem_index, "State.get_subsystem_stage").stage

    def get_num_subsystems(self) -> int:
        return len(self._parts)

    def invalidate_all(self, stage) -> None:
        """Back the whole State up so that ``stage`` and later must be realized again."""
        stage = Stage.coerce(stage, "State.invalidate_all")
        if stage <= _TOPOLOGY:
            raise InvalidArgumentError(
                "State.invalidate_all: TOPOLOGY belongs to the System, not the State; to "
                "change it, change the System and call system.realize_topology().")
        self._invalidate(stage)

    # ------------------------------------------------------------------ time
    def get_time(self) -> float:
        return self._t

    def set_time(self, t: float) -> None:
        """Set t; the State backs up to INSTANCE."""
        t = float(t)
        if not math.isfinite(t):
            raise InvalidArgumentError(f"State.set_time: t = {t} is not finite.")
        self._t = t
        self._invalidate(_TIME)

    # ---------------------------------------------------- continuous variables
    def _variables(self, where: str) -> None:
        if self._y is None:
            raise StageTooLowError(_MODEL, self._stage, where)

    def get_num_q(self) -> int:
        self._variables("State.get_num_q")
        return self._nq

    def get_num_u(self) -> int:
        self._variables("State.get_num_u")
        return self._nu

    def get_num_z(self) -> int:
        self._variables("State.get_num_z")
        return self._nz

    def get_num_y(self) -> int:
        self._variables("State.get_num_y")
        return self._y.size

    def get_q(self) -> np.ndarray:
        """Generalized coordinates q of all subsystems (read-only view)."""
        self._variables("State.get_q")
        return self._q_ro

    def get_u(self) -> np.ndarray:
        """Generalized speeds u of all subsystems (read-only view)."""
        self._variables("State.get_u")
        return self._u_ro

    def get_z(self) -> np.ndarray:
        """Auxiliary continuous variables z of all subsystems (read-only view)."""
        self._variables("State.get_z")
        return self._z_ro

    def get_y(self) -> np.ndarray:
        """y = [q | u | z] (read-only view)."""
        self._variables("State.get_y")
        return self._y_ro

    def upd_q(self) -> np.ndarray:
        """Writable q; the State backs up to TIME first."""
        self._variables("State.upd_q")
        self._invalidate(_POSITION)
        return self._q

    def upd_u(self) -> np.ndarray:
        """Writable u; the State backs up to POSITION first."""
        self._variables("State.upd_u")
        self._invalidate(_VELOCITY)
        return self._u

    def upd_z(self) -> np.ndarray:
        """Writable z; the State backs up to VELOCITY first."""
        self._variables("State.upd_z")
        self._invalidate(_DYNAMICS)
        return self._z

    def upd_y(self) -> np.ndarray:
        """Writable y = [q | u | z]; the State backs up to TIME first."""
        self._variables("State.upd_y")
        self._invalidate(_POSITION)
        return self._y

    def _copy_in(self, dest: np.ndarray, values, where: str) -> None:
        """dest[:] = values, refused (dest unchanged) unless they are as many finite
        numbers."""
        if type(values) is not np.ndarray or values.dtype is not _FLOAT \
                or values.shape != dest.shape:
            values = _real_array(values, where)
            if values.shape != dest.shape and not (values.ndim == 0 and dest.size == 1):
                raise InvalidArgumentError(
                    f"{where}: expected {dest.size} values, got an array of shape "
                    f"{values.shape}.")
            values = values.reshape(dest.shape)
        i = _copy_finite(dest, values)
        if i >= 0:
            raise InvalidArgumentError(
                f"{where}: value {i} is {values[i]}; every value must be a finite number.")

    def set_q(self, q) -> None:
        """Copy in q (as many finite numbers); the State backs up to TIME. Values that
        are refused leave the State as it was."""
        dest = self._q
        if dest is None:
            raise StageTooLowError(_MODEL, self._stage, "State.set_q")
        if type(q) is not np.ndarray or q.dtype is not _FLOAT \
                or q.shape != dest.shape or _copy_finite(dest, q) >= 0:
            self._copy_in(dest, q, "State.set_q")
        self._invalidate(_POSITION)

    def set_u(self, u) -> None:
        """Copy in u (as many finite numbers); the State backs up to POSITION. Values
        that are refused leave the State as it was."""
        dest = self._u
        if dest is None:
            raise StageTooLowError(_MODEL, self._stage, "State.set_u")
        if type(u) is not np.ndarray or u.dtype is not _FLOAT \
                or u.shape != dest.shape or _copy_finite(dest, u) >= 0:
            self._copy_in(dest, u, "State.set_u")
        self._invalidate(_VELOCITY)

    def set_z(self, z) -> None:
        """Copy in z; the State backs up to VELOCITY (refused values change nothing)."""
        self._variables("State.set_z")
        self._copy_in(self._z, z, "State.set_z")
        self._invalidate(_DYNAMICS)

    def set_y(self, y) -> None:
        """Copy in y = [q | u | z]; the State backs up to TIME (refused values change
        nothing)."""
        self._variables("State.set_y")
        self._copy_in(self._y, y, "State.set_y")
        self._invalidate(_POSITION)

    # ------------------------------------------------ derivatives (cache)
    def get_q_dot(self) -> np.ndarray:
        """q̇, valid once realized to VELOCITY."""
        self._require(_VELOCITY, "State.get_q_dot", "q")
        return self._qdot_ro

    def get_u_dot(self) -> np.ndarray:
        """u̇, valid once realized to ACCELERATION."""
        self._require(_ACCELERATION, "State.get_u_dot", "u")
        return self._udot_ro

    def get_z_dot(self) -> np.ndarray:
        """ż, valid once realized to ACCELERATION."""
        self._require(_ACCELERATION, "State.get_z_dot", "z")
        return self._zdot_ro

    def get_q_dot_dot(self) -> np.ndarray:
        """q̈, valid once realized to ACCELERATION."""
        self._require(_ACCELERATION, "State.get_q_dot_dot", "q")
        return self._qdotdot_ro

    def get_y_dot(self) -> np.ndarray:
        """ẏ = [q̇ | u̇ | ż], valid once realized to ACCELERATION."""
        self._require(_ACCELERATION, "State.get_y_dot")
        return self._ydot_ro

    def upd_q_dot(self) -> np.ndarray:
        """Writable q̇ cache, for the subsystems computing it (no invalidation)."""
        self._variables("State.upd_q_dot")
        return self._qdot

    def upd_u_dot(self) -> np.ndarray:
        self._variables("State.upd_u_dot")
        return self._udot

    def upd_z_dot(self) -> np.ndarray:
        self._variables("State.upd_z_dot")
        return self._zdot

    def upd_q_dot_dot(self) -> np.ndarray:
        self._variables("State.upd_q_dot_dot")
        return self._qdotdot

    # ------------------------------------------- constraint errors (cache)
    def _errors(self, where: str) -> None:
        if self._qerr is None:
            raise StageTooLowError(_INSTANCE, self._stage, where)

    def get_num_q_err(self) -> int:
        self._errors("State.get_num_q_err")
        return self._qerr.size

    def get_num_u_err(self) -> int:
        self._errors("State.get_num_u_err")
        return self._uerr.size

    def get_num_u_dot_err(self) -> int:
        self._errors("State.get_num_u_dot_err")
        return self._udoterr.size

    def get_q_err(self) -> np.ndarray:
        """Position constraint errors, valid once realized to POSITION."""
        self._require(_POSITION, "State.get_q_err", "q")
        return _read_only(self._qerr)

    def get_u_err(self) -> np.ndarray:
        """Velocity constraint errors, valid once realized to VELOCITY."""
        self._require(_VELOCITY, "State.get_u_err", "u")
        return _read_only(self._uerr)

    def get_u_dot_err(self) -> np.ndarray:
        """Acceleration constraint errors, valid once realized to ACCELERATION."""
        self._require(_ACCELERATION, "State.get_u_dot_err", "u")
        return _read_only(self._udoterr)

    def get_multipliers(self) -> np.ndarray:
        """Constraint multipliers λ, one per acceleration error, valid at ACCELERATION."""
        self._require(_ACCELERATION, "State.get_multipliers", "u")
        return _read_only(self._multipliers)

    def upd_q_err(self) -> np.ndarray:
        self._errors("State.upd_q_err")
        return self._qerr

    def upd_u_err(self) -> np.ndarray:
        self._errors("State.upd_u_err")
        return self._uerr

    def upd_u_dot_err(self) -> np.ndarray:
        self._errors("State.upd_u_dot_err")
        return self._udoterr

    def upd_multipliers(self) -> np.ndarray:
        self._errors("State.upd_multipliers")
        return self._multipliers

    # ---------------------------------------------------- event triggers (cache)
    def get_num_event_triggers(self) -> int:
        self._errors("State.get_num_event_triggers")
        return self._triggers.size

    def get_event_triggers(self) -> np.ndarray:
        """Every trigger-function value, grouped by stage (TIME first), valid once realized
        to ACCELERATION."""
        self._require(_ACCELERATION, "State.get_event_triggers")
        return _read_only(self._triggers)

    def get_event_triggers_by_stage(self, stage) -> np.ndarray:
        """The trigger-function values computed at ``stage``, valid once realized to it."""
        stage = self._trigger_stage(stage, "State.get_event_triggers_by_stage")
        self._require(stage, f"State.get_event_triggers_by_stage({stage.name})")
        return _read_only(self._triggers[self._trigger_stage_slices[stage]])

    def upd_event_triggers_by_stage(self, stage) -> np.ndarray:
        stage = self._trigger_stage(stage, "State.upd_event_triggers_by_stage")
        self._errors("State.upd_event_triggers_by_stage")
        return self._triggers[self._trigger_stage_slices[stage]]

    @staticmethod
    def _trigger_stage(stage, where: str) -> Stage:
        stage = Stage.coerce(stage, where)
        if stage not in _TRIGGER_STAGES:
            raise InvalidArgumentError(
                f"{where}: event triggers belong to TIME through ACCELERATION, not "
                f"{stage.name}.")
        return stage

    # ------------------------------------------------- subsystem-level access
    def _part_of(self, subsystem, where: str) -> _SubsystemPart:
        """``subsystem``'s part of this State, refused unless the State is of the System
        that subsystem belongs to."""
        system = subsystem._system
        if system is None or self._system_uid != system._uid:
            raise StateMismatchError(
                f"{where}: this State belongs to {self._system_uid or 'no System yet'}, "
                f"not to {system._uid if system is not None else 'the System'} of "
                f"'{subsystem.get_name()}'; use a State of that System (its "
                f"realize_topology() or get_default_state()).")
        return self._part(subsystem._index, where)

    def _part(self, index: int, where: str) -> _SubsystemPart:
        try:
            return self._parts[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"{where}: this State has no subsystem {index!r}; it has "
                f"{len(self._parts)}.") from None

    def _allocating(self, part: _SubsystemPart, what: str, upper: Stage) -> Stage:
        """The stage being realized, if allocating ``what`` is allowed during it."""
        g = self._realizing
        if g is None or g > upper:
            held = self._stage if g is None else g
            raise StageOutOfRangeError(
                _TOPOLOGY, held, upper, f"Subsystem '{part.name}'.allocate_{what}",
                hint=f"allocate it in realize_topology() or realize_model()"
                     f"{' or realize_instance()' if upper >= _INSTANCE else ''}.")
        return g

    def _allocate_block(self, index: int, kind: str, values, upper: Stage) -> int:
        part = self._part(index, f"State.allocate_{kind}")
        g = self._allocating(part, kind, upper)
        v = np.array(values, dtype=float).ravel()
        if not np.all(np.isfinite(v)):
            raise InvalidArgumentError(
                f"Subsystem '{part.name}'.allocate_{kind}: initial values must be finite.")
        blocks = getattr(part, kind + "_blocks")
        first = sum(b.values.size for b in blocks)
        blocks.append(_Block(g, v))
        return first

    def _allocate_triggers(self, index: int, stage, n: int) -> int:
        part = self._part(index, "State.allocate_event_triggers_by_stage")
        stage = self._trigger_stage(stage, f"Subsystem '{part.name}'.allocate_event_triggers")
        g = self._allocating(part, "event_triggers_by_stage", _INSTANCE)
        blocks = part.trigger_blocks[stage]
        first = sum(b.values.size for b in blocks)
        blocks.append(_Block(g, np.zeros(int(n))))
        return first

    def _allocate_discrete(self, index: int, stage, value) -> int:
        part = self._part(index, "State.allocate_discrete_variable")
        stage = Stage.coerce(stage, f"Subsystem '{part.name}'.allocate_discrete_variable")
        g = self._allocating(part, "discrete_variable", _MODEL)
        if not (g < stage <= _REPORT):
            raise InvalidArgumentError(
                f"Subsystem '{part.name}'.allocate_discrete_variable: its invalidation stage "
                f"{stage.name} must be later than the stage allocating it ({g.name}) and at "
                f"most REPORT; Model-stage variables are allocated in realize_topology().")
        part.discrete.append(_DiscreteVariable(stage, g, value))
        return len(part.discrete) - 1

    def _allocate_auto_update_discrete(self, index: int, stage, value, depends_on) -> int:
        """A discrete variable whose update value lives in a lazy cache entry of earliest
        stage ``depends_on``: ``auto_update_discrete_variables`` swaps the two once the
        entry is current (Simbody's allocateAutoUpdateDiscreteVariable)."""
        i = self._allocate_discrete(index, stage, value)
        part = self._parts[index]
        where = f"Subsystem '{part.name}'.allocate_auto_update_discrete_variable"
        depends_on = Stage.coerce(depends_on, where)
        c = self._allocate_cache(index, max(depends_on, _TOPOLOGY), Stage.INFINITY,
                                 _copy.deepcopy(value))
        part.discrete[i].update = part.cache[c]
        part.discrete[i].update_index = c
        return i

    def _discrete_changed(self, d: _DiscreteVariable) -> None:
        """A discrete variable was given a new value at this State's time: the State backs
        up below its stage and an auto-update variable's pending update is dropped."""
        d.time = self._t
        if d.update is not None:
            d.update.version = -1
        self._invalidate(d.stage)

    def auto_update_discrete_variables(self) -> bool:
        """Give every auto-update discrete variable whose update value is current that
        value (the two are swapped and the update marked stale), stamped with this State's
        time. No stage is invalidated: results were computed from the update values.
        Integrators call this at the start of each step, as Simbody's do; returns whether
        any variable changed."""
        swapped = False
        for part in self._parts:
            for d in part.discrete:
                ce = d.update
                if ce is not None and self._cache_is_current(part, ce):
                    d.value, ce.value = ce.value, d.value
                    d.time = self._t
                    ce.version = -1
                    swapped = True
        return swapped

    def _has_auto_update_variables(self) -> bool:
        return any(d.update is not None for part in self._parts for d in part.discrete)

    def _take_auto_update_values(self, source: State) -> None:
        """Copy the auto-update discrete variables of ``source`` (a State of the same
        System) into this one, their pending updates here dropped: an integrator's work
        States follow its advanced State from step to step."""
        for mine, theirs in zip(self._parts, source._parts):
            for d, e in zip(mine.discrete, theirs.discrete):
                if e.update is not None and d.update is not None:
                    d.value = _copy.deepcopy(e.value)
                    d.time = e.time
                    d.update.version = -1

    def _take_pending_update_values(self, source: State) -> None:
        """Take the current update values of ``source``'s auto-update discrete variables
        (a State of the same System) as this one's, current here: the values a step's
        stages computed in an integrator's work State carry on to the step's end, as
        Simbody's one advanced State carries them (a cable path's warm start)."""
        for mine, theirs in zip(self._parts, source._parts):
            for d, e in zip(mine.discrete, theirs.discrete):
                if d.update is not None and e.update is not None \
                        and source._cache_is_current(theirs, e.update):
                    d.update.value = _copy.deepcopy(e.update.value)
                    d.update.version = self._version(d.update.earliest)

    def _allocate_cache(self, index: int, earliest, latest, value) -> int:
        part = self._part(index, "State.allocate_cache_entry")
        where = f"Subsystem '{part.name}'.allocate_cache_entry"
        earliest = Stage.coerce(earliest, where)
        latest = Stage.coerce(latest, where)
        g = self._allocating(part, "cache_entry", _MODEL)
        if not (_TOPOLOGY <= earliest <= latest):
            raise InvalidArgumentError(
                f"{where}: need TOPOLOGY <= earliest <= latest, got earliest={earliest.name},"
                f" latest={latest.name}.")
        part.cache.append(_CacheEntry(earliest, latest, g, value))
        return len(part.cache) - 1

    def _owned(self, owner, where: str) -> _SubsystemPart:
        """The part of ``owner``: a Subsystem (checked to be of this State's System, as
        its elements' accessors are) or a subsystem index."""
        return self._part(owner, where) if type(owner) is int else self._part_of(owner, where)

    def _discrete(self, owner, i: int, where: str) -> _DiscreteVariable:
        part = self._owned(owner, where)
        try:
            return part.discrete[i]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"Subsystem '{part.name}'.{where}: no discrete variable {i!r} (it has "
                f"{len(part.discrete)}); realize the State to MODEL if it was allocated "
                f"there.") from None

    def _cache(self, owner, i: int, where: str) -> tuple[_SubsystemPart, _CacheEntry]:
        part = self._owned(owner, where)
        try:
            return part, part.cache[i]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"Subsystem '{part.name}'.{where}: no cache entry {i!r} (it has "
                f"{len(part.cache)}); realize the State to MODEL if it was allocated "
                f"there.") from None

    def _cache_is_current(self, part: _SubsystemPart, ce: _CacheEntry) -> bool:
        if part.stage < ce.earliest:
            return False
        return part.stage >= ce.latest or ce.version == self._version(ce.earliest)

    def _get_cache_value(self, owner, i: int):
        part, ce = self._cache(owner, i, "get_cache_entry")
        if part.stage < ce.earliest:
            raise StageTooLowError(ce.earliest, part.stage,
                                   f"Subsystem '{part.name}'.get_cache_entry({i})")
        if not (part.stage >= ce.latest or ce.version == self._version(ce.earliest)):
            raise CacheEntryOutOfDateError(
                f"Subsystem '{part.name}'.get_cache_entry({i}): the value (earliest "
                f"{ce.earliest.name}, latest {ce.latest.name}) has not been computed since "
                f"the state variables it depends on last changed; compute it and call "
                f"mark_cache_value_realized(), or realize the State to {ce.latest.name}.")
        return ce.value

    def _upd_cache_value(self, index: int, i: int):
        part, ce = self._cache(index, i, "upd_cache_entry")
        if part.stage < ce.earliest - 1:
            raise StageTooLowError(Stage(ce.earliest - 1), part.stage,
                                   f"Subsystem '{part.name}'.upd_cache_entry({i})")
        return ce

    def _mark_cache_value_realized(self, index: int, i: int) -> None:
        part, ce = self._cache(index, i, "mark_cache_value_realized")
        if part.stage < ce.earliest - 1:
            raise StageTooLowError(Stage(ce.earliest - 1), part.stage,
                                   f"Subsystem '{part.name}'.mark_cache_value_realized({i})")
        ce.version = self._version(ce.earliest)

    # ------------------------------------------------------------------ copies
    _ARRAYS = ("_y", "_ydot", "_qdotdot", "_qerr", "_uerr", "_udoterr", "_multipliers",
               "_triggers")
    """The arrays a State owns; every other array attribute is a view of these."""

    def copy(self) -> State:
        """An independent State with the same variables, cache and stage."""
        new = State.__new__(State)
        new.__setstate__(_copy_value(self.__getstate__(), {}))
        return new

    def __getstate__(self) -> dict:
        """What a copy or a pickle of the State carries: everything but the views of its
        arrays and the compiled realization plan bound to them (rebuilt on demand)."""
        state = {key: value for key, value in self.__dict__.items()
                 if not (isinstance(value, np.ndarray) or key.endswith("_ro")
                         or key in ("_system_plan", "_pending_event", "_user",
                                    "_user_depth", "_user_lock"))}
        state["_arrays"] = {name: getattr(self, name) for name in self._ARRAYS}
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        arrays = state.pop("_arrays")
        self.__dict__.update(state)
        for name, value in (("_completed", {}), ("_pending_event", None)):
            self.__dict__.setdefault(name, value)       # States saved before they existed
        if "_changed" not in self.__dict__:     # saved with a version per stage instead
            self._changed = self.__dict__.pop("_versions")
            self._instance_version = self._changed[_INSTANCE]
        self._system_plan = None
        new_guard(self)
        for name, value in arrays.items():
            setattr(self, name, value)
        if self._y is not None:
            nq, nu = self._nq, self._nu
            self._q, self._u, self._z = self._y[:nq], self._y[nq:nq + nu], self._y[nq + nu:]
            self._qdot, self._udot, self._zdot = (self._ydot[:nq], self._ydot[nq:nq + nu],
                                                  self._ydot[nq + nu:])
            self._y_ro, self._q_ro, self._u_ro, self._z_ro = map(
                _read_only, (self._y, self._q, self._u, self._z))
            self._ydot_ro, self._qdot_ro, self._udot_ro, self._zdot_ro, self._qdotdot_ro = map(
                _read_only, (self._ydot, self._qdot, self._udot, self._zdot, self._qdotdot))
        else:
            self._clear_continuous()

    def __copy__(self) -> State:
        return self.copy()

    def __deepcopy__(self, memo) -> State:
        return self.copy()

    # ----------------------------------------------------------- save and load
    def save(self, path) -> None:
        """Write t, the continuous variables and every discrete variable to ``path``
        (``system/state_file.py``: numpy arrays and a JSON header in a zip, no pickle),
        stamped with the System's topology signature.

        The cache is not saved: a loaded State is realized again from its variables. A
        discrete variable holding something other than None, bools, numbers, strings,
        numpy arrays of numbers, or lists, tuples and string-keyed dicts of those is
        refused (InvalidArgumentError naming it), before anything is written.
        """
        state_file.write(path, self._signature, self._t, self._state_parts())

    @classmethod
    def load(cls, path, system) -> State:
        """Read a State saved by :meth:`save` for ``system``; the result is realized
        through MODEL. A file that is not a State file, of another format version, or
        written for a System of another topology is refused (StateMismatchError) before
        its variables are read; so is one larger than a State of ``system`` can be
        (``state_file.size_limit``), before anything is decompressed, and one whose
        time, variables or discrete variables do not fit ``system`` (``_load_parts``).
        Loading never runs code from the file."""
        state = system.get_default_state()
        t, saved = state_file.read(path, state._signature,
                                   state_file.size_limit(state._state_parts()))
        return state._load_parts(system, t, saved, str(path))

    def _state_parts(self) -> list[dict]:
        """What a State file holds of each subsystem (``state_file.encode_state``)."""
        self._variables("State.save")
        return [{"name": p.name, "q": self._q[p.q_slice], "u": self._u[p.u_slice],
                 "z": self._z[p.z_slice],
                 "discrete": [(d.stage.name, d.value) for d in p.discrete]}
                for p in self._parts]

    def _load_parts(self, system, t: float, saved: list[dict], path: str) -> State:
        """This State, a default State of ``system``, given the parts a file held
        (``state_file.decode_state``: t finite, q, u and z finite float64 vectors). Each
        subsystem's q, u and z must be as long as the System makes them, and each
        discrete variable of the stage the System gives it and fit for it (its
        subsystem's ``check_loaded_discrete_variable``); else StateMismatchError names
        the variable and what is wrong."""
        if len(saved) != len(self._parts):
            raise StateMismatchError(
                f"State.load: {path} holds {len(saved)} subsystems; this System has "
                f"{len(self._parts)}.")

        def load_value(p: _SubsystemPart, j: int, d: _DiscreteVariable, entry):
            stage_name, value = entry
            where = f"State.load: {path}: discrete variable {j} of subsystem '{p.name}'"
            if stage_name != d.stage.name:
                raise StateMismatchError(
                    f"{where} is of stage {state_file.describe(stage_name)}; this "
                    f"System's is of stage {d.stage.name}: {state_file.DAMAGED}.")
            problem = system.get_subsystem(p.index).check_loaded_discrete_variable(
                self, j, value)
            if problem:
                raise StateMismatchError(
                    f"{where}: {problem}; {state_file.DAMAGED}. Load a file State.save "
                    f"wrote for this System.")
            return state_file.like(d.value, value)

        # Model-stage discrete variables decide which variables exist: set them first;
        # one the file leaves as it is keeps the Model stage (and its tree) realized.
        for p, rec in zip(self._parts, saved):
            for j, (d, entry) in enumerate(zip(p.discrete, rec["discrete"])):
                if d.stage <= _MODEL:
                    value = load_value(p, j, d, entry)
                    if not state_file.same(d.value, value):
                        self._set_discrete_value(d, value)
        system.realize_model(self)
        for p, rec in zip(self._parts, saved):
            sizes = (len(rec["q"]), len(rec["u"]), len(rec["z"]), len(rec["discrete"]))
            have = (p.q_slice.stop - p.q_slice.start, p.u_slice.stop - p.u_slice.start,
                    p.z_slice.stop - p.z_slice.start, len(p.discrete))
            if sizes != have:
                raise StateMismatchError(
                    f"State.load: subsystem '{p.name}' in {path} has (nq, nu, nz, "
                    f"discrete) = {sizes}, but this System gives {have}.")
            self._q[p.q_slice] = rec["q"]
            self._u[p.u_slice] = rec["u"]
            self._z[p.z_slice] = rec["z"]
            for j, (d, entry) in enumerate(zip(p.discrete, rec["discrete"])):
                if d.stage > _MODEL:
                    d.value = load_value(p, j, d, entry)
        self._t = t
        self._invalidate(_INSTANCE)
        return self

    def _set_discrete_value(self, d: _DiscreteVariable, value) -> None:
        d.value = value
        self._discrete_changed(d)

    def __repr__(self) -> str:
        if self._y is None:
            return f"<State stage={self._stage.name} t={self._t}>"
        return (f"<State stage={self._stage.name} t={self._t} nq={self._nq} nu={self._nu} "
                f"nz={self._nz}>")
