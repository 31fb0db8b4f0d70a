"""Measures: named values of a State, built from one another (Simbody's ``Measure_<T>``).

A measure is a quantity a State determines (the time, a sinusoid of it, the sum of two
other measures, the integral or the derivative of one, its extreme so far, its value a
while ago) with the stage before which it cannot be read (its *depends-on* stage) and the
number of its time derivatives it can give. A measure belongs to a Subsystem: constructed
with one as its first argument it is adopted by it (or later with
``subsystem.adopt_measure(m)``); the subsystem then allocates in every State what the
measure needs (cache entries for values, z variables for an Integrate, discrete variables
for what it remembers) and realizes it after its own hooks. Constant, Zero, One and Time
need no subsystem.

Values are floats or numpy arrays, combined elementwise as Simbody's Vec and Vector
measures are; Constant, Variable and Result may hold any value. Arrays handed out are
read-only views. Adopting a measure, or changing one's structure (a default value, an
operand, an option), is a topology change: States made before are refused, and
``system.realize_topology()`` gives new ones.

What a measure remembers across a simulation (an Integrate's z, an extreme so far, a
Delay's history, a Differentiate's last sample) starts from the State at
``Integrator.initialize`` (``System.initialize_measures``) and moves forward through
auto-update discrete variables that integrators update at the start of every step.
"""

from __future__ import annotations

import enum
import math
from typing import NamedTuple

import numpy as np

from kinetree.errors import CacheEntryOutOfDateError, InvalidArgumentError, StageTooLowError
from kinetree.system.events import PeriodicEventHandler, TriggeredEventReporter
from kinetree.system.hooks import RealizeHooks
from kinetree.system.stage import STAGES, Stage
from kinetree.system.subsystem import Subsystem

UNBOUNDED = 2**31 - 1
"""The number of time derivatives of a measure all of whose derivatives exist (Simbody's
``std::numeric_limits<int>::max()``)."""

_EMPTY, _TOPOLOGY, _MODEL, _TIME, _DYNAMICS, _REPORT = (
    Stage.EMPTY, Stage.TOPOLOGY, Stage.MODEL, Stage.TIME, Stage.DYNAMICS, Stage.REPORT)
_HOOKS = {g: f"_realize_{g.name.lower()}" for g in STAGES[Stage.TOPOLOGY:Stage.REPORT + 1]}
_MISSING = object()


# ------------------------------------------------------------------ values
def _value(v):
    """A number as a float and an array of numbers as a float array of its own; any other
    value (None, a string, an object) as it is."""
    if v is None or isinstance(v, (bool, str)):
        return v
    try:
        a = np.array(v, dtype=float)
    except (TypeError, ValueError):
        return v
    return float(a) if a.ndim == 0 else a


def _zero_like(v):
    if isinstance(v, np.ndarray):
        return np.zeros_like(v, dtype=float)
    return 0.0 if isinstance(v, float) else None


def _nan_like(v):
    if isinstance(v, np.ndarray):
        return np.full_like(v, np.nan, dtype=float)
    return math.nan if isinstance(v, float) else None


def _frozen(v):
    """``v``, as a read-only view if it is an array."""
    if isinstance(v, np.ndarray):
        v = v.view()
        v.flags.writeable = False
    return v


def _number(v, where: str):
    """``v`` as a float or float array, refusing what is not numbers."""
    out = _value(v)
    if not isinstance(out, (float, np.ndarray)):
        raise InvalidArgumentError(f"{where}: expected a number or an array of numbers, got "
                                   f"{type(v).__name__}.")
    return out


def _split(args: tuple, where: str, *names: str) -> tuple:
    """(subsystem, rest): an optional Subsystem first, then ``names``'s values."""
    if args and (args[0] is None or isinstance(args[0], Subsystem)):
        subsystem, args = args[0], args[1:]
    else:
        subsystem = None
    if len(args) > len(names):
        raise InvalidArgumentError(
            f"{where}: expected ([subsystem,] {', '.join(names)}), got {len(args)} values "
            f"after the subsystem.")
    return subsystem, args


def _subsystem_of(subsystem, where: str):
    if subsystem is not None and not isinstance(subsystem, Subsystem):
        raise InvalidArgumentError(
            f"{where}: the first argument must be the Subsystem that owns the measure (or "
            f"None, to adopt it later), got {type(subsystem).__name__}.")
    return subsystem


def _operand(m, where: str, optional: bool = False):
    if m is None and optional:
        return None
    if not isinstance(m, Measure):
        raise InvalidArgumentError(f"{where}: expected a Measure, got {type(m).__name__}.")
    return m


# ------------------------------------------------------------------ Measure
class Measure:
    """The base of every measure: its value and time derivatives in a State, the stage
    each needs, and its place in a subsystem. ``get_value(state, deriv)`` gives the value
    (``deriv`` 0) or a time derivative; ``get_depends_on_stage(deriv)`` the stage the
    State (the owning subsystem's part of it) must be realized to first.

    A subclass (as Simbody's ``Measure_<T>::Implementation``) says how many derivatives
    it gives (``_num_derivatives``), their stages (``_depends_on``), and computes them:
    the first ``num_cache_entries`` orders in ``_calc_cached_value`` (kept in lazy cache
    entries of the State until what they depend on changes), the rest in
    ``_get_uncached_value``. Its stage work is ``_realize_<stage>(state)``; what it
    remembers starts in ``_initialize(state)``.
    """

    _NEEDS_SUBSYSTEM = True
    """Whether the measure keeps anything in a State (all but Constant and Time do)."""

    def __init__(self, subsystem=None, default_value=0.0, num_cache_entries: int = 1):
        self._subsystem = None
        self._index = -1
        self._default = _value(default_value)
        self._cache_ix = [-1] * num_cache_entries
        self._presume_valid = False
        subsystem = _subsystem_of(subsystem, type(self).__qualname__)
        if subsystem is not None:
            subsystem.adopt_measure(self)

    # ------------------------------------------------------ what users call
    def get_num_time_derivatives(self) -> int:
        """How many time derivatives ``get_value`` can give (UNBOUNDED: all of them)."""
        return self._num_derivatives()

    def get_depends_on_stage(self, deriv: int = 0) -> Stage:
        """The stage after which the value (``deriv`` 0) or a time derivative is available:
        reading it needs the owning subsystem's part of the State realized that far."""
        return self._depends_on(self._check_deriv(deriv, "get_depends_on_stage"))

    def get_value(self, state, deriv: int = 0):
        """The value (``deriv`` 0) or the ``deriv``-th time derivative in ``state``,
        computed on first request and kept in the State until what it depends on changes.
        Raises StageTooLowError unless the State is realized to the depends-on stage (or is
        being realized to it: a measure may be read in that stage's hooks); a value of
        TOPOLOGY stage needs no realization."""
        deriv = self._check_deriv(deriv, "get_value")
        if self._subsystem is None and self._NEEDS_SUBSYSTEM:
            self._owner("get_value")
        stage = self._depends_on(deriv)
        if stage > _TOPOLOGY:
            self._require(state, stage, "get_value")
        elif self._subsystem is not None:           # a topology value needs only the System
            self._subsystem._check(state)
        if deriv < len(self._cache_ix):
            return _frozen(self._cached(state, deriv))
        return _frozen(self._get_uncached_value(state, deriv))

    def set_default_value(self, value) -> Measure:
        """The value this measure starts from before any computation (its cache entry, its
        state variables); a topology change."""
        self._default = _value(value)
        self._topology_changed()
        return self

    def get_default_value(self):
        return _frozen(self._default)

    def is_same_measure(self, other) -> bool:
        return self is other

    def is_in_subsystem(self) -> bool:
        return self._subsystem is not None

    def get_subsystem(self):
        """The Subsystem that adopted this measure."""
        return self._owner("get_subsystem")

    def is_same_subsystem(self, subsystem) -> bool:
        return self._subsystem is not None and self._subsystem is subsystem

    def get_subsystem_measure_index(self) -> int:
        """This measure's index among its subsystem's measures."""
        self._owner("get_subsystem_measure_index")
        return self._index

    def __repr__(self) -> str:
        where = "" if self._subsystem is None else \
            f" {self._index} of '{self._subsystem.get_name()}'"
        return f"<{type(self).__qualname__}{where}>"

    # --------------------------------------------------- for the subclasses
    def _num_derivatives(self) -> int:
        return 0

    def _depends_on(self, deriv: int) -> Stage:
        raise NotImplementedError

    def _calc_cached_value(self, state, deriv: int):
        raise NotImplementedError(
            f"{type(self).__qualname__}: derivative {deriv} is cached but not computed.")

    def _get_uncached_value(self, state, deriv: int):
        raise NotImplementedError(
            f"{type(self).__qualname__}: derivative {deriv} is neither cached nor computed.")

    def _initialize(self, state) -> None:
        """Start what this measure remembers from ``state`` (System.initialize_measures)."""

    def _check_owner(self, subsystem) -> None:
        """Raise if ``subsystem`` may not adopt this measure."""

    def _adopted(self) -> None:
        """Called once a subsystem has adopted this measure."""

    def _realize_topology(self, state) -> None:
        """Allocate this measure's state variables (after its cache entries)."""

    def _realize_model(self, state) -> None: ...
    def _realize_instance(self, state) -> None: ...
    def _realize_time(self, state) -> None: ...
    def _realize_position(self, state) -> None: ...
    def _realize_velocity(self, state) -> None: ...
    def _realize_dynamics(self, state) -> None: ...
    def _realize_acceleration(self, state) -> None: ...
    def _realize_report(self, state) -> None: ...

    # ------------------------------------------------------------ machinery
    def _realize(self, stage: Stage, state) -> None:
        """This measure's part of its subsystem's realization of ``stage``."""
        if stage == _TOPOLOGY:
            self._allocate_cache_entries(state)
        getattr(self, _HOOKS[stage])(state)

    def _has_hook(self, stage: Stage) -> bool:
        name = _HOOKS[stage]
        return getattr(type(self), name) is not getattr(Measure, name)

    def _allocate_cache_entries(self, state) -> None:
        """One lazy cache entry per cached derivative, computable from its depends-on stage
        (an eager one, valid from that stage on, where the value is presumed valid); the
        value's starts at the default value, the derivatives' at nan."""
        subsystem = self._subsystem
        for k in range(len(self._cache_ix)):
            stage = max(self._depends_on(k), _TOPOLOGY)
            start = _copy_value(self._default if k == 0 else _nan_like(self._default))
            self._cache_ix[k] = (
                subsystem.allocate_cache_entry(state, stage, stage, start)
                if self._presume_valid else
                subsystem.allocate_lazy_cache_entry(state, stage, start))

    def _cached(self, state, deriv: int):
        """The cached derivative ``deriv``, computed now if it is not current."""
        subsystem = self._owner("get_value")
        part, ce = state._cache(subsystem, self._cache_ix[deriv],
                                f"{type(self).__qualname__}.get_value")
        if not state._cache_is_current(part, ce):
            ce.value = self._calc_cached_value(state, deriv)
            if part.stage >= ce.earliest - 1:
                ce.version = state._version(ce.earliest)
        return ce.value

    def _cache_entry(self, state, deriv: int, where: str):
        """(part, entry) of cached derivative ``deriv`` in ``state``."""
        subsystem = self._owner(where)
        subsystem._check(state)
        return state._cache(subsystem, self._cache_ix[deriv],
                            f"{type(self).__qualname__}.{where}")

    def _require(self, state, stage: Stage, method: str) -> None:
        """Raise StageTooLowError unless the owning subsystem's part of ``state`` (the whole
        State for a measure of no subsystem) is realized to ``stage``, or to the stage
        before while ``stage`` is being realized."""
        where = f"{type(self).__qualname__}.{method}"
        subsystem = self._subsystem
        if subsystem is not None:
            subsystem._check(state)
            held = state._part(subsystem._index, where).stage
        else:
            held = state._stage
        if held >= stage:
            return
        realizing = state._realizing
        if realizing is not None and realizing >= stage and held >= stage - 1:
            return
        raise StageTooLowError(stage, held, where)

    def _check_deriv(self, deriv, method: str) -> int:
        n = self._num_derivatives()
        if not (isinstance(deriv, (int, np.integer)) and not isinstance(deriv, bool)
                and 0 <= deriv <= n):
            offers = "only its value (deriv 0)" if n == 0 else \
                "every derivative" if n >= UNBOUNDED else f"derivatives 0 to {n}"
            raise InvalidArgumentError(
                f"{type(self).__qualname__}.{method}: deriv = {deriv!r} is out of range; "
                f"this measure gives {offers}.")
        return int(deriv)

    def _owner(self, method: str):
        if self._subsystem is None:
            raise InvalidArgumentError(
                f"{type(self).__qualname__}.{method}: this measure belongs to no subsystem; "
                f"construct it with one as its first argument, or adopt it with "
                f"subsystem.adopt_measure(measure), then call system.realize_topology().")
        return self._subsystem

    def _system(self):
        return self._owner("realize").get_system()

    def _topology_changed(self) -> None:
        if self._subsystem is not None:
            self._subsystem.invalidate_subsystem_topology_cache()

    def _same_subsystem(self, subsystem, *operands: Measure) -> None:
        """Simbody's rule for Plus, Minus and Scale: the operands live in the measure's
        subsystem."""
        for m in operands:
            if m._subsystem is not subsystem:
                raise InvalidArgumentError(
                    f"{type(self).__qualname__}: its operand {m!r} must be in the same "
                    f"Subsystem as this measure; construct the operand with that subsystem.")


def _copy_value(v):
    return v.copy() if isinstance(v, np.ndarray) else v


# ---------------------------------------------------------- constants, time
class Constant(Measure):
    """``Measure.Constant([subsystem,] value)``: a value fixed with the System (changing it
    is a topology change); every time derivative is zero. Any value may be held."""

    _NEEDS_SUBSYSTEM = False

    def __init__(self, *args):
        subsystem, rest = _split(args, "Measure.Constant", "value")
        if len(rest) != 1:
            raise InvalidArgumentError("Measure.Constant: give the value: "
                                       "Measure.Constant([subsystem,] value).")
        super().__init__(subsystem, rest[0], num_cache_entries=0)

    def set_value(self, value) -> Constant:
        """Change the constant; a topology change."""
        return self.set_default_value(value)

    def _num_derivatives(self) -> int:
        return UNBOUNDED

    def _depends_on(self, deriv: int) -> Stage:
        return _EMPTY if deriv > 0 else _TOPOLOGY

    def _get_uncached_value(self, state, deriv: int):
        return _zero_like(self._default) if deriv > 0 else self._default


class _Fixed(Constant):
    """Zero and One: a Constant of a fixed value, a float or (given a size) an array."""

    _FILL = 0.0

    def __init__(self, *args):
        name = type(self).__qualname__
        subsystem, rest = _split(args, name, "size")
        size = rest[0] if rest else None
        if size is None:
            value = self._FILL
        elif isinstance(size, (int, np.integer)) and not isinstance(size, bool) and size >= 0:
            value = np.full(int(size), self._FILL)
        else:
            raise InvalidArgumentError(f"{name}: the size must be a non-negative integer, got "
                                       f"{size!r}.")
        super().__init__(subsystem, value)
        self._fixed = True

    def set_default_value(self, value):
        if getattr(self, "_fixed", False):
            raise InvalidArgumentError(
                f"{type(self).__qualname__} cannot change its value; use a Measure.Constant "
                f"for a constant that may change.")
        return super().set_default_value(value)


class Zero(_Fixed):
    """``Measure.Zero([subsystem] [, size])``: 0, or an array of ``size`` zeros."""

    _FILL = 0.0


class One(_Fixed):
    """``Measure.One([subsystem] [, size])``: 1, or an array of ``size`` ones."""

    _FILL = 1.0


class Time(Measure):
    """``Measure.Time([subsystem])``: the State's time t (s); its derivative is 1 and the
    others 0."""

    _NEEDS_SUBSYSTEM = False

    def __init__(self, subsystem=None):
        super().__init__(subsystem, 0.0, num_cache_entries=0)

    def _num_derivatives(self) -> int:
        return UNBOUNDED

    def _depends_on(self, deriv: int) -> Stage:
        return _EMPTY if deriv > 0 else _TIME

    def _get_uncached_value(self, state, deriv: int):
        return state.get_time() if deriv == 0 else 1.0 if deriv == 1 else 0.0


# ----------------------------------------------------- state and cache values
class Variable(Measure):
    """``Measure.Variable(subsystem, invalidates, default_value)``: a discrete state
    variable of any value, one per State; ``set_value(state, v)`` backs the State up below
    ``invalidates``. Readable from MODEL on; its time derivatives are zero."""

    def __init__(self, subsystem, invalidates, default_value):
        self._invalidates = _invalidates_stage(invalidates, "Measure.Variable")
        self._var = -1
        super().__init__(subsystem, default_value, num_cache_entries=0)

    def set_value(self, state, value) -> None:
        """Change the variable in ``state``; stages from ``invalidates`` on must be realized
        again."""
        self._owner("set_value").set_discrete_variable(state, self._var, _value(value))

    def get_invalidated_stage(self) -> Stage:
        return self._invalidates

    def set_invalidated_stage(self, invalidates) -> Variable:
        """The stage a change of the value invalidates; a topology change."""
        self._invalidates = _invalidates_stage(invalidates, "Measure.Variable")
        self._topology_changed()
        return self

    def _num_derivatives(self) -> int:
        return UNBOUNDED

    def _depends_on(self, deriv: int) -> Stage:
        return _EMPTY if deriv > 0 else _MODEL

    def _get_uncached_value(self, state, deriv: int):
        if deriv > 0:
            return _zero_like(self._default)
        return self._subsystem.get_discrete_variable(state, self._var)

    def _realize_topology(self, state) -> None:
        self._var = self._subsystem.allocate_discrete_variable(
            state, self._invalidates, _copy_value(self._default))


def _invalidates_stage(stage, where: str) -> Stage:
    stage = Stage.coerce(stage, where)
    if not _MODEL <= stage <= _REPORT:
        raise InvalidArgumentError(
            f"{where}: the invalidated stage must be MODEL through REPORT (the variable is "
            f"allocated with the topology), got {stage.name}.")
    return stage


class Result(Measure):
    """``Measure.Result(subsystem, depends_on, invalidated)``: a value computed outside the
    measure (in a hook, by a study) and kept in the State's cache: ``set_value(state, v)``
    stores it and marks it valid until a state variable of ``depends_on`` or an earlier
    stage changes; storing a new one invalidates ``invalidated`` and later stages
    (INFINITY: none). Reading it while not valid raises. No time derivatives."""

    def __init__(self, subsystem, depends_on, invalidated):
        depends_on = Stage.coerce(depends_on, "Measure.Result")
        invalidated = Stage.coerce(invalidated, "Measure.Result")
        self._depends = max(depends_on, _TOPOLOGY)
        self._invalidated = invalidated
        self._check_stages("Measure.Result")
        super().__init__(subsystem, math.nan, num_cache_entries=1)

    def _check_stages(self, where: str) -> None:
        if not self._invalidated > self._depends:
            raise InvalidArgumentError(
                f"{where}: the invalidated stage ({self._invalidated.name}) must be later "
                f"than the depends-on stage ({self._depends.name}).")

    def get_invalidated_stage(self) -> Stage:
        return self._invalidated

    def set_depends_on_stage(self, depends_on) -> Result:
        """A topology change; EMPTY means TOPOLOGY."""
        depends_on = max(Stage.coerce(depends_on, "Measure.Result.set_depends_on_stage"),
                         _TOPOLOGY)
        if not depends_on < self._invalidated:
            raise InvalidArgumentError(
                f"Measure.Result.set_depends_on_stage: {depends_on.name} is not before the "
                f"invalidated stage {self._invalidated.name}; change that first.")
        self._depends = depends_on
        self._topology_changed()
        return self

    def set_invalidated_stage(self, invalidated) -> Result:
        """A topology change."""
        invalidated = Stage.coerce(invalidated, "Measure.Result.set_invalidated_stage")
        if not invalidated > self._depends:
            raise InvalidArgumentError(
                f"Measure.Result.set_invalidated_stage: {invalidated.name} is not after the "
                f"depends-on stage {self._depends.name}; change that first.")
        self._invalidated = invalidated
        self._topology_changed()
        return self

    def set_is_presumed_valid_at_depends_on_stage(self, presume: bool) -> Result:
        """Treat the value as valid whenever the depends-on stage is realized, without
        mark_as_valid: only safe if a hook of that stage always sets it. A topology
        change."""
        self._presume_valid = bool(presume)
        self._topology_changed()
        return self

    def get_is_presumed_valid_at_depends_on_stage(self) -> bool:
        return self._presume_valid

    def upd_value(self, state):
        """The stored value, to change in place (an array); marks it not valid (and
        invalidates the invalidated stage): call mark_as_valid when done."""
        self.mark_as_not_valid(state)
        return self._cache_entry(state, 0, "upd_value")[1].value

    def set_value(self, state, value) -> None:
        """Store ``value`` and mark it valid."""
        self.mark_as_not_valid(state)
        self._cache_entry(state, 0, "set_value")[1].value = _value(value)
        self.mark_as_valid(state)

    def mark_as_valid(self, state) -> None:
        """Declare the stored value valid; the subsystem must be realized at least to the
        stage before depends-on (working on depends-on)."""
        part, ce = self._cache_entry(state, 0, "mark_as_valid")
        if part.stage < self._depends - 1:
            raise StageTooLowError(Stage(self._depends - 1), part.stage,
                                   "Measure.Result.mark_as_valid")
        ce.version = state._version(ce.earliest)

    def is_valid(self, state) -> bool:
        part, ce = self._cache_entry(state, 0, "is_valid")
        return state._cache_is_current(part, ce)

    def mark_as_not_valid(self, state) -> None:
        """Declare the stored value stale, and invalidate the invalidated stage and later
        ones (no effect on a value presumed valid once its stage is realized)."""
        self._cache_entry(state, 0, "mark_as_not_valid")[1].version = -1
        if self._invalidated < Stage.INFINITY:
            state._invalidate(self._invalidated)

    def _depends_on(self, deriv: int) -> Stage:
        return _EMPTY if deriv > 0 else self._depends

    def _calc_cached_value(self, state, deriv: int):
        raise CacheEntryOutOfDateError(
            f"Measure.Result.get_value: the value is not valid in this State; a Result "
            f"does not compute itself: store it with set_value(state, value) (or upd_value "
            f"and mark_as_valid) after the State's last change at {self._depends.name} or "
            f"earlier.")


# ------------------------------------------------------------- functions of t
class Sinusoid(Measure):
    """``Measure.Sinusoid(subsystem, amplitude, frequency, phase=0)``: a sin(w t + p), with
    w in rad/s and p in rad (elementwise for arrays); three time derivatives."""

    def __init__(self, subsystem, amplitude, frequency, phase=0.0):
        where = "Measure.Sinusoid"
        self._a = _number(amplitude, where)
        self._w = _number(frequency, where)
        self._p = _number(phase, where)
        super().__init__(subsystem, _zero_like(self._a * self._w + self._p),
                         num_cache_entries=4)

    def _num_derivatives(self) -> int:
        return 3

    def _depends_on(self, deriv: int) -> Stage:
        return _TIME

    def _calc_cached_value(self, state, deriv: int):
        arg = self._w * state.get_time() + self._p
        w, a = self._w, self._a
        if deriv == 0:
            return _value(a * np.sin(arg))
        if deriv == 1:
            return _value(w * a * np.cos(arg))
        if deriv == 2:
            return _value(-w * w * a * np.sin(arg))
        return _value(-w * w * w * a * np.cos(arg))


# -------------------------------------------------------------- arithmetic
class _Binary(Measure):
    """Plus and Minus: ``(subsystem, left, right)``; no time derivatives (as Simbody's)."""

    def __init__(self, subsystem, left, right):
        where = type(self).__qualname__
        self._left = _operand(left, where)
        self._right = _operand(right, where)
        super().__init__(subsystem, 0.0, num_cache_entries=0)

    def _check_owner(self, subsystem) -> None:
        self._same_subsystem(subsystem, self._left, self._right)

    def _depends_on(self, deriv: int) -> Stage:
        return max(self._left.get_depends_on_stage(deriv),
                   self._right.get_depends_on_stage(deriv))

    def _get_uncached_value(self, state, deriv: int):
        return self._combine(self._left.get_value(state, deriv),
                             self._right.get_value(state, deriv))


class Plus(_Binary):
    """``Measure.Plus(subsystem, left, right)``: left + right."""

    @staticmethod
    def _combine(a, b):
        return a + b


class Minus(_Binary):
    """``Measure.Minus(subsystem, left, right)``: left - right."""

    @staticmethod
    def _combine(a, b):
        return a - b


class Scale(Measure):
    """``Measure.Scale(subsystem, factor, operand)``: factor × operand; no time
    derivatives (as Simbody's)."""

    def __init__(self, subsystem, factor, operand):
        self._factor = float(_number(factor, "Measure.Scale"))
        self._operand = _operand(operand, "Measure.Scale")
        super().__init__(subsystem, 0.0, num_cache_entries=0)

    def get_operand_measure(self) -> Measure:
        return self._operand

    def _check_owner(self, subsystem) -> None:
        self._same_subsystem(subsystem, self._operand)

    def _depends_on(self, deriv: int) -> Stage:
        return self._operand.get_depends_on_stage(deriv)

    def _get_uncached_value(self, state, deriv: int):
        return self._factor * self._operand.get_value(state, deriv)


# --------------------------------------------------------------- calculus
class Integrate(Measure):
    """``Measure.Integrate(subsystem, deriv, ic, init_alloc=0.0)``: the time integral of
    measure ``deriv``, held in z state variables (one per element of ``init_alloc``, which
    fixes the size) that integrators advance with the rest of y. ``System.initialize_
    measures`` (Integrator.initialize) starts it at measure ``ic``'s value, or at
    ``init_alloc`` without one. Its k-th time derivative is ``deriv``'s (k-1)-th: one more
    than ``deriv`` gives."""

    def __init__(self, subsystem, deriv, ic, init_alloc=0.0):
        self._deriv = _operand(deriv, "Measure.Integrate", optional=True)
        self._ic = _operand(ic, "Measure.Integrate", optional=True)
        self._z = -1
        super().__init__(subsystem, _number(init_alloc, "Measure.Integrate"),
                         num_cache_entries=0)

    def set_value(self, state, value) -> None:
        """Set the integral in ``state`` (its z variables; DYNAMICS and later are
        invalidated). An array must keep the size the measure was made with."""
        z = self._owner("set_value").upd_z(state)
        n = np.size(self._default)
        v = np.ravel(_number(value, "Measure.Integrate.set_value"))
        if v.size != n:
            raise InvalidArgumentError(
                f"Measure.Integrate.set_value: expected {n} values, got {v.size}.")
        z[self._z:self._z + n] = v

    def get_derivative_measure(self) -> Measure:
        if self._deriv is None:
            raise InvalidArgumentError("Measure.Integrate.get_derivative_measure: this "
                                       "integral has no derivative measure.")
        return self._deriv

    def get_initial_condition_measure(self) -> Measure:
        if self._ic is None:
            raise InvalidArgumentError("Measure.Integrate.get_initial_condition_measure: "
                                       "this integral has no initial-condition measure.")
        return self._ic

    def set_derivative_measure(self, deriv) -> Integrate:
        """A topology change."""
        self._deriv = _operand(deriv, "Measure.Integrate.set_derivative_measure")
        self._topology_changed()
        return self

    def set_initial_condition_measure(self, ic) -> Integrate:
        """A topology change."""
        self._ic = _operand(ic, "Measure.Integrate.set_initial_condition_measure")
        self._topology_changed()
        return self

    def _num_derivatives(self) -> int:
        n = UNBOUNDED if self._deriv is None else self._deriv.get_num_time_derivatives()
        return n if n >= UNBOUNDED else n + 1

    def _depends_on(self, deriv: int) -> Stage:
        if deriv == 0:
            return _TIME
        return _EMPTY if self._deriv is None else self._deriv.get_depends_on_stage(deriv - 1)

    def _get_uncached_value(self, state, deriv: int):
        if deriv > 0:
            if self._deriv is None:
                return _zero_like(self._default)
            return self._deriv.get_value(state, deriv - 1)
        # Read from z each time (no cache): an explicit set_value is seen at once.
        z = self._subsystem.get_z(state)[self._z:self._z + np.size(self._default)]
        return float(z[0]) if isinstance(self._default, float) else \
            z.reshape(np.shape(self._default)).copy()

    def _realize_topology(self, state) -> None:
        self._z = self._subsystem.allocate_z(state, np.ravel(self._default))

    def _realize_acceleration(self, state) -> None:
        zdot = self._subsystem.upd_z_dot(state)
        n = np.size(self._default)
        zdot[self._z:self._z + n] = 0.0 if self._deriv is None else \
            np.ravel(self._deriv.get_value(state))

    def _initialize(self, state) -> None:
        if self._ic is None:
            self.set_value(state, self._default)
            return
        self._system().realize(state, self._ic.get_depends_on_stage())
        self.set_value(state, self._ic.get_value(state))


class _DerivativeEstimate(NamedTuple):
    """What a Differentiate remembers between steps: its operand's value ``f`` at time
    ``t`` (s), the derivative estimated then, and whether that estimate was a real one."""

    t: float
    f: object
    fdot: object
    good: bool


class Differentiate(Measure):
    """``Measure.Differentiate(subsystem, operand)``: the time derivative of ``operand``:
    its own first derivative when it gives one (this measure then gives one derivative
    fewer), otherwise an estimate from its values at the starts of successive integrator
    steps, as Simbody makes it: fdot = 2 (f - f0) / (t - t0) - fdot0 (a quadratic fit), the
    first-order (f - f0) / (t - t0) for the first step, 0 at the start. An estimate is
    only as good as the steps are short, and it lags its operand by one step's
    information."""

    def __init__(self, subsystem, operand):
        self._operand = _operand(operand, "Measure.Differentiate")
        self._force_approx = False
        self._var = -1
        super().__init__(subsystem, 0.0, num_cache_entries=0)

    def is_using_approximation(self) -> bool:
        """Whether the value is estimated (the operand gives no derivative, or
        set_force_use_approximation(True))."""
        return self._force_approx or self._operand.get_num_time_derivatives() == 0

    def get_operand_measure(self) -> Measure:
        return self._operand

    def set_operand_measure(self, operand) -> Differentiate:
        """A topology change."""
        self._operand = _operand(operand, "Measure.Differentiate.set_operand_measure")
        self._topology_changed()
        return self

    def set_force_use_approximation(self, must_approximate: bool) -> None:
        """Estimate even when the operand gives its derivative (not recommended); a
        topology change."""
        self._force_approx = bool(must_approximate)
        self._topology_changed()

    def get_force_use_approximation(self) -> bool:
        return self._force_approx

    def _num_derivatives(self) -> int:
        if self.is_using_approximation():
            return 0
        n = self._operand.get_num_time_derivatives()
        return n if n >= UNBOUNDED else n - 1

    def _depends_on(self, deriv: int) -> Stage:
        if self.is_using_approximation():
            return self._operand.get_depends_on_stage(deriv)
        return self._operand.get_depends_on_stage(deriv + 1)

    def _get_uncached_value(self, state, deriv: int):
        if not self.is_using_approximation():
            return self._operand.get_value(state, deriv + 1)
        self._ensure_estimated(state)
        return self._subsystem.get_discrete_var_update_value(state, self._var).fdot

    def _realize_topology(self, state) -> None:
        if self.is_using_approximation():
            stage = self._operand.get_depends_on_stage()
            self._var = self._subsystem.allocate_auto_update_discrete_variable(
                state, max(stage, _TIME), _DerivativeEstimate(math.nan, 0.0, 0.0, False),
                stage)

    def _realize_acceleration(self, state) -> None:
        if self.is_using_approximation():
            self._ensure_estimated(state)

    def _has_hook(self, stage: Stage) -> bool:
        return stage == Stage.ACCELERATION and self.is_using_approximation()

    def _initialize(self, state) -> None:
        if not self.is_using_approximation():
            return
        self._system().realize(state, self._operand.get_depends_on_stage())
        f = _copy_value(self._operand.get_value(state))
        self._subsystem.set_discrete_variable(
            state, self._var, _DerivativeEstimate(state.get_time(), f, _zero_like(f), False))

    def _ensure_estimated(self, state) -> None:
        subsystem, var = self._subsystem, self._var
        if subsystem.is_discrete_var_update_value_realized(state, var):
            return
        t0, f0, fdot0, good0 = subsystem.get_discrete_variable(state, var)
        t = state.get_time()
        f = _copy_value(self._operand.get_value(state))
        good = False
        if not math.isfinite(t0):
            fdot = _zero_like(f)
        elif t == t0:
            fdot, good = fdot0, good0
        else:
            fdot = (f - f0) / (t - t0)                  # first order
            if good0:
                fdot = 2.0 * fdot - fdot0               # second order
            good = True
        subsystem.set_discrete_var_update_value(
            state, var, _DerivativeEstimate(t, f, _value(fdot), good))
        subsystem.mark_discrete_var_update_value_realized(state, var)


# ------------------------------------------------------------- extremes
class Extreme(Measure):
    """``Measure.Extreme(subsystem, operand, operation=Operation.MAX_ABS)``: the extreme
    value its operand has taken since the study began (``System.initialize_measures``) or
    ``set_value``: the most positive, the most negative, or the signed value of largest or
    smallest magnitude, elementwise for arrays. Its derivatives are the operand's while it
    is at a new extreme, zero otherwise.

    The extreme is recorded at the ends of integrator steps, in an auto-update discrete
    variable. For a scalar operand that gives a time derivative, the measure also watches
    that derivative with a triggered event (Simbody's "extreme isolation"): the
    integrator stops within its localization window of each turning point, so the
    extreme recorded is the true one, not the largest value at a step end.
    """

    class Operation(enum.Enum):
        """Which extreme: Simbody's Extreme::Operation."""

        MAX_ABS = 0
        MAXIMUM = 1
        MIN_ABS = 2
        MINIMUM = 3

    def __init__(self, subsystem, operand, operation=None):
        self._operand = _operand(operand, type(self).__qualname__)
        self._operation = self._coerce(operation)
        self._var = self._is_new = -1
        self._trap = None
        super().__init__(subsystem, 0.0, num_cache_entries=0)

    @classmethod
    def _coerce(cls, operation) -> Extreme.Operation:
        if operation is None:
            return cls.Operation.MAX_ABS
        if isinstance(operation, Extreme.Operation):
            return operation
        raise InvalidArgumentError(
            f"Measure.Extreme: the operation must be a Measure.Extreme.Operation, got "
            f"{operation!r}.")

    def set_operation(self, operation) -> Extreme:
        """A topology change."""
        self._operation = self._coerce(operation)
        self._topology_changed()
        return self

    def get_operation(self) -> Extreme.Operation:
        return self._operation

    def get_operand_measure(self) -> Measure:
        return self._operand

    def set_operand_measure(self, operand) -> Extreme:
        """A topology change."""
        self._operand = _operand(operand, "Measure.Extreme.set_operand_measure")
        self._topology_changed()
        self._watch()
        return self

    def set_value(self, state, value) -> None:
        """Make ``value`` the extreme so far in ``state`` (DYNAMICS and later are
        invalidated)."""
        subsystem = self._owner("set_value")
        subsystem.set_discrete_variable(state, self._var, _value(value))
        # Whether the operand is at a new extreme must be decided again.
        subsystem.mark_cache_value_not_realized(
            state, subsystem.get_discrete_var_update_index(state, self._is_new))

    def get_time_of_extreme_value(self, state) -> float:
        """When (s) the extreme was reached: now if the operand is at a new extreme, else
        when the recorded extreme was set."""
        self._require(state, self._operand.get_depends_on_stage(), "get_time_of_extreme_value")
        if self._ensure_updated(state):
            return state.get_time()
        return self._subsystem.get_discrete_var_last_update_time(state, self._var)

    def _num_derivatives(self) -> int:
        return self._operand.get_num_time_derivatives()

    def _depends_on(self, deriv: int) -> Stage:
        return self._operand.get_depends_on_stage(deriv)

    def _get_uncached_value(self, state, deriv: int):
        new = self._ensure_updated(state)
        if deriv > 0:
            return self._operand.get_value(state, deriv) if new else \
                _zero_like(_value(self._operand.get_value(state, deriv)))
        subsystem = self._subsystem
        return subsystem.get_discrete_var_update_value(state, self._var) if new else \
            subsystem.get_discrete_variable(state, self._var)

    def _realize_topology(self, state) -> None:
        op, Op = self._operation, Extreme.Operation
        start = math.inf if op in (Op.MINIMUM, Op.MIN_ABS) else \
            -math.inf if op == Op.MAXIMUM else 0.0
        stage = self._operand.get_depends_on_stage()
        self._var = self._subsystem.allocate_auto_update_discrete_variable(
            state, _DYNAMICS, start, stage)
        self._is_new = self._subsystem.allocate_auto_update_discrete_variable(
            state, _DYNAMICS, False, stage)

    def _realize_acceleration(self, state) -> None:
        self._ensure_updated(state)

    def _initialize(self, state) -> None:
        self._system().realize(state, self._operand.get_depends_on_stage())
        self.set_value(state, _copy_value(self._operand.get_value(state)))

    def _is_more_extreme(self, new, old):
        op, Op = self._operation, Extreme.Operation
        if op == Op.MAXIMUM:
            return new > old
        if op == Op.MINIMUM:
            return new < old
        if op == Op.MAX_ABS:
            return np.abs(new) > np.abs(old)
        return np.abs(new) < np.abs(old)

    def _ensure_updated(self, state) -> bool:
        """Whether the operand is at a new extreme in ``state``; if it is, the new extreme
        becomes the variable's update value (installed at the next step's start)."""
        subsystem = self._subsystem
        if subsystem.is_discrete_var_update_value_realized(state, self._is_new):
            return subsystem.get_discrete_var_update_value(state, self._is_new)
        previous = subsystem.get_discrete_variable(state, self._var)
        current = _value(self._operand.get_value(state))
        more = self._is_more_extreme(current, previous)
        found = bool(np.any(more))
        subsystem.set_discrete_var_update_value(state, self._is_new, found)
        subsystem.mark_discrete_var_update_value_realized(state, self._is_new)
        if found:
            subsystem.set_discrete_var_update_value(
                state, self._var, _value(np.where(more, current, previous)))
            subsystem.mark_discrete_var_update_value_realized(state, self._var)
        return found

    # The triggered event that isolates turning points.
    def _adopted(self) -> None:
        self._watch()

    def _watch(self) -> None:
        if self._trap is None and self._subsystem is not None and \
                self._operand.get_num_time_derivatives() >= 1:
            self._trap = _ExtremeTrap(self)
            self._subsystem.get_system().add_event_reporter(self._trap)

    def _trap_stage(self) -> Stage:
        if self._operand.get_num_time_derivatives() < 1:
            return _TIME
        return max(self._operand.get_depends_on_stage(0),
                   self._operand.get_depends_on_stage(1), _TIME)

    def _trap_value(self, state) -> float:
        """d h(f)/dt for the h this extreme maximizes (f, -f, |f|, -|f|): it falls through
        zero at each turning point that makes a new extreme candidate."""
        if self._operand.get_num_time_derivatives() < 1:
            return 1.0
        f = _value(self._operand.get_value(state))
        if not isinstance(f, float):
            return 1.0
        fdot = float(self._operand.get_value(state, 1))
        op, Op = self._operation, Extreme.Operation
        if op == Op.MAXIMUM:
            return fdot
        if op == Op.MINIMUM:
            return -fdot
        growth = abs(fdot) if f == 0 else math.copysign(1.0, f) * fdot
        return growth if op == Op.MAX_ABS else -growth


class _ExtremeTrap(TriggeredEventReporter):
    """The triggered event of an Extreme: the rate of the quantity it maximizes falling
    through zero. Reporting does nothing; the stop is what matters."""

    def __init__(self, measure: Extreme):
        super().__init__(_TIME)
        self._measure = measure
        self.get_trigger_info().set_trigger_on_rising_sign_transition(False)

    def get_required_stage(self) -> Stage:
        return self._measure._trap_stage()

    def get_value(self, state) -> float:
        return self._measure._trap_value(state)

    def handle_event(self, state) -> None:
        """Nothing to report: the extreme is recorded at the step that starts here."""


class Minimum(Extreme):
    """``Measure.Minimum(subsystem, operand)``: the most negative value so far."""

    def __init__(self, subsystem, operand):
        super().__init__(subsystem, operand, Extreme.Operation.MINIMUM)


class Maximum(Extreme):
    """``Measure.Maximum(subsystem, operand)``: the most positive value so far."""

    def __init__(self, subsystem, operand):
        super().__init__(subsystem, operand, Extreme.Operation.MAXIMUM)


class MinAbs(Extreme):
    """``Measure.MinAbs(subsystem, operand)``: the signed value of least magnitude so
    far."""

    def __init__(self, subsystem, operand):
        super().__init__(subsystem, operand, Extreme.Operation.MIN_ABS)


class MaxAbs(Extreme):
    """``Measure.MaxAbs(subsystem, operand)``: the signed value of greatest magnitude so
    far."""

    def __init__(self, subsystem, operand):
        super().__init__(subsystem, operand, Extreme.Operation.MAX_ABS)


# ----------------------------------------------------------------- memory
class _DelayBuffer(NamedTuple):
    """A Delay's memory: its source's values (and rates, if it gives them) at the starts
    of recent steps, oldest first; ``times`` in s."""

    times: np.ndarray
    values: np.ndarray
    rates: np.ndarray | None


class Delay(Measure):
    """``Measure.Delay(subsystem, source, delay)``: the value ``source`` had ``delay``
    seconds ago; before the study began, its value at the start. The measure keeps the
    source's values at the starts of recent steps (an auto-update discrete variable) and
    interpolates between them: a cubic Hermite interpolant where the source gives its
    derivative, else linear (``set_use_linear_interpolation_only`` forces linear). When
    t - delay falls in the current step it must extrapolate from the last two values
    (keep the maximum step size below the delay to avoid that), unless
    ``set_can_use_current_value(True)``, which interpolates to the source's value now and
    makes the Delay depend on the source's stage instead of TIME. No time derivatives."""

    def __init__(self, subsystem, source, delay):
        self._source = _operand(source, "Measure.Delay")
        self._delay = self._positive(delay, "Measure.Delay")
        self._linear_only = False
        self._use_current = False
        self._var = -1
        super().__init__(subsystem, 0.0, num_cache_entries=1)

    @staticmethod
    def _positive(delay, where: str) -> float:
        delay = float(_number(delay, where))
        if not (delay > 0 and math.isfinite(delay)):
            raise InvalidArgumentError(f"{where}: the delay must be a positive number of "
                                       f"seconds, got {delay!r}.")
        return delay

    def get_source_measure(self) -> Measure:
        return self._source

    def get_delay(self) -> float:
        """The delay (s)."""
        return self._delay

    def get_use_linear_interpolation_only(self) -> bool:
        return self._linear_only

    def get_can_use_current_value(self) -> bool:
        return self._use_current

    def set_source_measure(self, source) -> Delay:
        """A topology change."""
        source = _operand(source, "Measure.Delay.set_source_measure")
        if source is not self._source:
            self._source = source
            self._topology_changed()
        return self

    def set_delay(self, delay) -> Delay:
        """The delay (s); a topology change."""
        delay = self._positive(delay, "Measure.Delay.set_delay")
        if delay != self._delay:
            self._delay = delay
            self._topology_changed()
        return self

    def set_use_linear_interpolation_only(self, linear_only: bool) -> Delay:
        """A topology change."""
        if bool(linear_only) != self._linear_only:
            self._linear_only = bool(linear_only)
            self._topology_changed()
        return self

    def set_can_use_current_value(self, can_use_current_value: bool) -> Delay:
        """A topology change."""
        if bool(can_use_current_value) != self._use_current:
            self._use_current = bool(can_use_current_value)
            self._topology_changed()
        return self

    def _keeps_rates(self) -> bool:
        return not self._linear_only and self._source.get_num_time_derivatives() >= 1

    def _source_stage(self) -> Stage:
        """The stage reading the source (and its rate, when kept) needs."""
        stage = self._source.get_depends_on_stage(0)
        if self._keeps_rates():
            stage = max(stage, self._source.get_depends_on_stage(1))
        return max(stage, _TIME)

    def _depends_on(self, deriv: int) -> Stage:
        return self._source_stage() if self._use_current else _TIME

    def _sample(self, state):
        """(value, rate or None) of the source in ``state``, as arrays."""
        value = np.array(self._source.get_value(state), dtype=float)
        rate = np.array(self._source.get_value(state, 1), dtype=float) \
            if self._keeps_rates() else None
        return value, rate

    def _calc_cached_value(self, state, deriv: int):
        buffer = self._subsystem.get_discrete_variable(state, self._var)
        t = state.get_time()
        now = self._sample(state) if self._use_current else None
        return _value(_delayed_value(buffer, t - self._delay, t, now))

    def _realize_topology(self, state) -> None:
        empty = _DelayBuffer(np.empty(0), np.empty(0), None)
        self._var = self._subsystem.allocate_auto_update_discrete_variable(
            state, _REPORT, empty, self._source_stage())

    def _realize_acceleration(self, state) -> None:
        """The buffer with the source's value now appended and what is too old dropped,
        for the next step's start."""
        subsystem, var = self._subsystem, self._var
        if subsystem.is_discrete_var_update_value_realized(state, var):
            return
        buffer = subsystem.get_discrete_variable(state, var)
        t = state.get_time()
        subsystem.set_discrete_var_update_value(
            state, var, _appended(buffer, t - self._delay, t, *self._sample(state)))
        subsystem.mark_discrete_var_update_value_realized(state, var)

    def _initialize(self, state) -> None:
        self._system().realize(state, self._source_stage())
        value, rate = self._sample(state)
        t = state.get_time()
        self._subsystem.set_discrete_variable(state, self._var, _DelayBuffer(
            np.array([t]), value[None].copy(), None if rate is None else rate[None].copy()))
        # The buffer's stage is REPORT; a value cached from the old one must go too.
        self._subsystem.mark_cache_value_not_realized(state, self._cache_ix[0])


def _appended(buffer: _DelayBuffer, t_earliest: float, t_now: float, value, rate):
    """``buffer`` with (t_now, value, rate) appended after every entry older than t_now,
    keeping of the entries before t_earliest only the two latest (what interpolation at
    t_earliest or later can need)."""
    times = buffer.times
    if len(times) == 0:
        return _DelayBuffer(np.array([t_now]), value[None].copy(),
                            None if rate is None else rate[None].copy())
    first_later = int(np.searchsorted(times, t_earliest, side="left"))
    start = max(0, first_later - 2)
    stop = int(np.searchsorted(times, t_now, side="left"))
    start = min(start, stop)
    rates = None
    if rate is not None:
        old = buffer.rates if buffer.rates is not None else \
            np.zeros((len(times), *np.shape(rate)))
        rates = np.concatenate([old[start:stop], rate[None]])
    return _DelayBuffer(np.append(times[start:stop], t_now),
                        np.concatenate([buffer.values[start:stop], value[None]]), rates)


def _delayed_value(buffer: _DelayBuffer, t_delay: float, t_now: float, now):
    """The value at t_delay from ``buffer``, and from ``now`` (the source's (value, rate)
    at t_now) when given."""
    times, values, rates = buffer
    n = len(times)
    if n == 0:
        return math.nan if now is None else now[0]
    i = int(np.searchsorted(times, t_delay, side="left"))       # first at t_delay or after
    if i == 0:
        return values[0]                        # before the start: the value then
    if i < n:
        return _interpolate(times[i - 1], values[i - 1], None if rates is None else
                            rates[i - 1], times[i], values[i],
                            None if rates is None else rates[i], t_delay)
    if now is not None and t_now > times[-1]:
        return _interpolate(times[-1], values[-1], None if rates is None else rates[-1],
                            t_now, now[0], now[1], t_delay)
    if n == 1:
        return values[0]
    t0, t1 = times[-2], times[-1]
    return values[-2] + (t_delay - t0) / (t1 - t0) * (values[-1] - values[-2])


def _interpolate(t0, v0, r0, t1, v1, r1, t):
    """The value at t in [t0, t1]: cubic Hermite with the rates r0, r1, linear without."""
    h = t1 - t0
    s = (t - t0) / h
    if r0 is None or r1 is None:
        return v0 + s * (v1 - v0)
    return ((1 + 2 * s) * (1 - s) ** 2 * v0 + s * (1 - s) ** 2 * h * r0
            + s * s * (3 - 2 * s) * v1 + s * s * (s - 1) * h * r1)


class SampleAndHold(Measure):
    """``Measure.SampleAndHold(subsystem, source, interval=None)``: the value ``source``
    had at its last sample, held in a discrete variable between samples. The start of a
    study (``System.initialize_measures``) samples; with an ``interval`` (s) the measure
    also samples at every multiple of it, through a periodic event handler it adds to the
    System (so a TimeStepper, or ``simulate``, must drive the study); ``sample(state)``
    samples now, from any event handler. A sample changes the State discontinuously,
    which is why it happens at an event. Readable from TIME on; no time derivatives."""

    def __init__(self, subsystem, source, interval=None):
        self._source = _operand(source, "Measure.SampleAndHold")
        self._interval = None if interval is None else \
            Delay._positive(interval, "Measure.SampleAndHold")
        self._var = -1
        self._sampler = None
        super().__init__(subsystem, 0.0, num_cache_entries=0)

    def set_value(self, state, value) -> None:
        """Hold ``value`` from now on, as if sampled (TIME and later are invalidated)."""
        self._owner("set_value").set_discrete_variable(state, self._var, _value(value))

    def sample(self, state) -> None:
        """Hold the source's value now (the State is realized as far as the source
        needs)."""
        self._owner("sample").get_system().realize(
            state, self._source.get_depends_on_stage())
        self.set_value(state, _copy_value(self._source.get_value(state)))

    def get_source(self) -> Measure:
        return self._source

    def set_source(self, source) -> SampleAndHold:
        """A topology change."""
        self._source = _operand(source, "Measure.SampleAndHold.set_source")
        self._topology_changed()
        return self

    def _depends_on(self, deriv: int) -> Stage:
        return _TIME

    def _get_uncached_value(self, state, deriv: int):
        return self._subsystem.get_discrete_variable(state, self._var)

    def _realize_topology(self, state) -> None:
        self._var = self._subsystem.allocate_discrete_variable(
            state, _TIME, _copy_value(self._default))

    def _initialize(self, state) -> None:
        self.sample(state)

    def _adopted(self) -> None:
        if self._interval is not None:
            self._sampler = _Sampler(self, self._interval)
            self._subsystem.get_system().add_event_handler(self._sampler)


class _Sampler(PeriodicEventHandler):
    """The periodic event at which a SampleAndHold samples."""

    def __init__(self, measure: SampleAndHold, interval: float):
        super().__init__(interval)
        self._measure = measure

    def handle_event(self, state, accuracy: float) -> bool:
        self._measure.sample(state)
        return False


# ------------------------------------------------------------------ custom
class Implementation(RealizeHooks):
    """What a ``Measure.Custom`` computes: override ``get_depends_on_stage(deriv)`` and
    ``calc_cached_value(state, deriv)`` (or ``get_uncached_value`` for the orders past
    ``get_num_cache_entries()``), and ``get_num_time_derivatives()`` if it gives any. The
    realize hooks run after the owning subsystem's; ``initialize(state)`` at the start of
    a study. Allocate state variables in ``realize_topology`` through
    ``self.get_subsystem()``."""

    def get_num_time_derivatives(self) -> int:
        return 0

    def get_depends_on_stage(self, deriv: int) -> Stage:
        raise NotImplementedError(
            f"{type(self).__qualname__} must implement get_depends_on_stage(deriv): the "
            f"stage its value (deriv 0) and each derivative need.")

    def get_num_cache_entries(self) -> int:
        """How many orders (value first) are computed by calc_cached_value and kept in
        the State until what they depend on changes."""
        return 1

    def calc_cached_value(self, state, deriv: int):
        raise NotImplementedError(
            f"{type(self).__qualname__} must implement calc_cached_value(state, deriv).")

    def get_uncached_value(self, state, deriv: int):
        raise NotImplementedError(
            f"{type(self).__qualname__} must implement get_uncached_value(state, deriv) "
            f"for derivative {deriv}, past its cached ones.")

    def initialize(self, state) -> None:
        """Start what the measure remembers from ``state``."""

    def get_subsystem(self):
        """The Subsystem owning the measure (once it has been adopted)."""
        measure = getattr(self, "_measure", None)
        if measure is None:
            raise InvalidArgumentError(
                f"{type(self).__qualname__}.get_subsystem: not yet part of a Measure.Custom.")
        return measure.get_subsystem()


class Custom(Measure):
    """``Measure.Custom(subsystem, implementation, default_value=0.0)``: a measure whose
    value is user code, a ``Measure.Custom.Implementation``. The default value starts its
    cached value."""

    Implementation = Implementation

    def __init__(self, subsystem, implementation, default_value=0.0):
        if not isinstance(implementation, Implementation):
            raise InvalidArgumentError(
                f"Measure.Custom: the implementation must subclass "
                f"Measure.Custom.Implementation, got {type(implementation).__name__}.")
        self._impl = implementation
        implementation._measure = self
        super().__init__(subsystem, default_value,
                         num_cache_entries=int(implementation.get_num_cache_entries()))

    def get_implementation(self) -> Implementation:
        return self._impl

    def _num_derivatives(self) -> int:
        return int(self._impl.get_num_time_derivatives())

    def _depends_on(self, deriv: int) -> Stage:
        return Stage.coerce(self._impl.get_depends_on_stage(deriv),
                            f"{type(self._impl).__qualname__}.get_depends_on_stage")

    def _calc_cached_value(self, state, deriv: int):
        return _value(self._impl.calc_cached_value(state, deriv))

    def _get_uncached_value(self, state, deriv: int):
        return self._impl.get_uncached_value(state, deriv)

    def _allocate_cache_entries(self, state) -> None:
        n = int(self._impl.get_num_cache_entries())
        if not 0 <= n <= self._num_derivatives() + 1:
            raise InvalidArgumentError(
                f"{type(self._impl).__qualname__}.get_num_cache_entries: {n} is not between "
                f"0 and the number of derivatives plus one.")
        self._cache_ix = [-1] * n
        super()._allocate_cache_entries(state)

    def _realize(self, stage: Stage, state) -> None:
        if stage == _TOPOLOGY:
            self._allocate_cache_entries(state)
        getattr(self._impl, f"realize_{stage.name.lower()}")(state)

    def _has_hook(self, stage: Stage) -> bool:
        name = f"realize_{stage.name.lower()}"
        return getattr(type(self._impl), name) is not getattr(Implementation, name)

    def _initialize(self, state) -> None:
        self._impl.initialize(state)


for _name, _cls in (("Constant", Constant), ("Zero", Zero), ("One", One), ("Time", Time),
                    ("Variable", Variable), ("Result", Result), ("Sinusoid", Sinusoid),
                    ("Plus", Plus), ("Minus", Minus), ("Scale", Scale),
                    ("Integrate", Integrate), ("Differentiate", Differentiate),
                    ("Extreme", Extreme), ("Minimum", Minimum), ("Maximum", Maximum),
                    ("MinAbs", MinAbs), ("MaxAbs", MaxAbs), ("Delay", Delay),
                    ("SampleAndHold", SampleAndHold), ("Custom", Custom)):
    setattr(Measure, _name, _cls)
    _cls.__qualname__ = f"Measure.{_name}"
Implementation.__qualname__ = "Measure.Custom.Implementation"
Extreme.Operation.__qualname__ = "Measure.Extreme.Operation"
del _name, _cls
