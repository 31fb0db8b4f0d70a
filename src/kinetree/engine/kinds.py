"""The element kinds a model uses, as a compile-time argument of the compiled code.

A model is made of a few kinds of each family of elements (mobilizers, force elements,
contact models; ``registry.py`` lists them all). Compiled code reaches an element's
functions through a switch on its kind's type code, and numba compiles every branch of
a switch, so a model of Pin joints and gravity would compile the Ellipsoid joint and the
LinearBushing too. ``Kinds`` is a set of codes of one family, passed to the compiled
code as an argument whose numba type carries the codes: the switches ``switch`` and
``each`` build are then typed with a branch for those codes only.

Each distinct set is a compiled version of the realization, which costs as much to
compile as the first, so a model's mobilizers and force elements are rounded up: to the
family's common kinds (``registry.COMMON``) when it uses no other, else to every kind of
the family. A model of Pin, Ball and Free joints with gravity, springs and dampers
compiles the common kinds only (a third less than everything), and every other such
model reuses that version; a model with a rare kind (an Ellipsoid joint, a
LinearBushing) compiles the whole family once, for every model like it. Constraints are
compiled all together as soon as a model has one, and not at all otherwise. The contact
parts (the search and each force model) are compiled as a model has them.
"""

from __future__ import annotations

import importlib

import numba
from numba.core import types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from kinetree.jit import HELPER_OPTIONS
from kinetree.registry import ALL_OR_NONE, COMMON, FAMILIES


class Kinds:
    """The type codes a model's realization is compiled for in one family of elements
    (``"mobilizers"``, ``"forces"``, ``"contact"``, ``"constraints"``): those of
    ``used``, rounded up as the module docstring says. Compiled code receives it as an
    argument; it holds no data there, only its type (``KindsType``), which names the
    codes."""

    __slots__ = ("family", "codes")

    def __init__(self, family: str, used=()):
        every = FAMILIES[family][1]
        used = {int(c) for c in used}
        unknown = sorted(used - set(every.values()))
        if unknown:
            raise ValueError(f"no {family} kind has the code {unknown[0]}; the codes are "
                             f"those of kinetree.registry.{family.upper()}")
        self.family = family
        if family in COMMON:
            common = {every[name] for name in COMMON[family]}
            used = common if used <= common else set(every.values())
        elif family in ALL_OR_NONE and used:
            used = set(every.values())
        self.codes = tuple(sorted(used))

    def __repr__(self) -> str:
        return f"Kinds({self.family!r}, {list(self.codes)})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Kinds) and self.family == other.family
                and self.codes == other.codes)

    def __hash__(self) -> int:
        return hash((self.family, self.codes))

    def __getstate__(self):
        return self.family, self.codes

    def __setstate__(self, state):
        self.family, self.codes = state


class KindsType(types.Type):
    """numba's type of a Kinds: a family and its codes, which the switches read when
    they are typed."""

    def __init__(self, family: str, codes: tuple):
        self.family = family
        self.codes = codes
        super().__init__(name=f"Kinds({family}: {', '.join(map(str, codes))})")


@typeof_impl.register(Kinds)
def _typeof_kinds(value, context):
    return KindsType(value.family, value.codes)


register_model(KindsType)(models.OpaqueModel)


@unbox(KindsType)
def _unbox_kinds(typ, obj, context):
    return NativeValue(context.context.get_constant_null(typ))


def _element_functions(family: str, kinds: KindsType, function: str) -> list:
    """[(code, name, function)] of the kinds in ``kinds`` whose module has ``function``
    (its own, or one it shares with other kinds), in the registry's order."""
    if not isinstance(kinds, KindsType) or kinds.family != family:
        raise numba.core.errors.TypingError(
            f"expected the Kinds of {family}, got {kinds}")
    package, registry = FAMILIES[family]
    found = []
    for name, code in registry.items():
        if code in kinds.codes:
            module = importlib.import_module(f"{package}.{name}")
            if hasattr(module, function):
                found.append((code, name, getattr(module, function)))
    return found


def _compiled(source: str, functions: dict):
    """The function defined by ``source``, with ``functions`` as its globals."""
    namespace = dict(functions)
    exec(compile(source, "<kinetree.engine.kinds>", "exec"), namespace)
    return namespace["impl"]


def switch(family: str, function: str, default=None):
    """A function ``f(kinds, code, *args)`` for compiled code: ``<module>.function(*args)``
    of the element module whose type code is ``code``, for the codes in ``kinds`` (a
    Kinds of ``family``); ``default`` for any other code. Typed for a Kinds of Pin and
    Free mobilizers, ``switch("mobilizers", "x_fm")`` is

        if code == 1: return pin.x_fm(*args)
        if code == 9: return free.x_fm(*args)
        return None
    """

    def dispatch(kinds, code, *args):
        raise TypeError(f"{family} switch on {function} is for compiled code")

    @overload(dispatch, jit_options=HELPER_OPTIONS)
    def _typed(kinds, code, *args):
        lines = ["def impl(kinds, code, *args):"]
        functions = {"default": default}
        for c, name, f in _element_functions(family, kinds, function):
            lines += [f"    if code == {c}:", f"        return {name}(*args)"]
            functions[name] = f
        lines.append("    return default")
        return _compiled("\n".join(lines), functions)

    dispatch.__name__ = dispatch.__qualname__ = f"{function}_switch"
    return dispatch


def each(family: str, function: str):
    """A function ``f(kinds, *args)`` for compiled code calling ``<module>.function(*args)``
    of every kind in ``kinds`` (a Kinds of ``family``) whose module defines it, in the
    registry's order; with none it does nothing and compiles nothing."""

    def apply(kinds, *args):
        raise TypeError(f"{family} {function} of each kind is for compiled code")

    @overload(apply, jit_options=HELPER_OPTIONS)
    def _typed(kinds, *args):
        lines = ["def impl(kinds, *args):"]
        functions = {}
        for _, name, f in _element_functions(family, kinds, function):
            lines.append(f"    {name}(*args)")
            functions[name] = f
        lines.append("    return None")
        return _compiled("\n".join(lines), functions)

    apply.__name__ = apply.__qualname__ = f"each_{function}"
    return apply


def when_used(family: str, function):
    """A function ``f(kinds, *args)`` for compiled code returning ``function(kinds,
    *args)`` when ``kinds`` (a Kinds of ``family``) has any code; with none it returns 0
    and compiles nothing of ``function``."""

    def apply(kinds, *args):
        raise TypeError(f"{family} {function.__name__} is for compiled code")

    @overload(apply, jit_options=HELPER_OPTIONS)
    def _typed(kinds, *args):
        if not isinstance(kinds, KindsType) or kinds.family != family:
            raise numba.core.errors.TypingError(f"expected the Kinds of {family}, got {kinds}")
        if kinds.codes:
            return _compiled("def impl(kinds, *args):\n    return function(kinds, *args)\n",
                             {"function": function})
        return _compiled("def impl(kinds, *args):\n    return 0\n", {})

    apply.__name__ = apply.__qualname__ = f"when_{function.__name__}"
    return apply
