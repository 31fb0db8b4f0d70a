"""How compiled code reaches the element kinds: each kind compiled once, by itself.

A model is made of a few kinds of each family of elements (mobilizers, force elements,
contact parts, constraints; ``registry.py`` lists them and the functions each family's
kinds define). The compiled realization is one function for every model: it reaches an
element's function through a switch on the kind's type code (``switch``) in which

- the family's inline kinds (``registry.INLINE``: the commonest mobilizers and force
  elements, whose functions are a few flops) have a branch of their own, inlined, since
  a call per body through an address would cost as much as their arithmetic;
- every other kind is called through the address of its function compiled by itself,
  for the switch's declared signature (``HelperDispatcher.native_address``), read from
  the model's table of addresses (a ``Kinds``: one row per function of the family, one
  column per type code).

So the realization is compiled once, whatever mix of kinds a model has; a kind is
compiled once, alone, the first time a model uses it (``python -m kinetree warmup`` does
it for every kind ahead); and adding a kind to the library changes no other compiled
code. A user's own compiled function of a declared signature can sit in a table as well.
"""

from __future__ import annotations

import functools
import importlib

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import (
    NativeValue,
    intrinsic,
    models,
    overload,
    register_model,
    typeof_impl,
    unbox,
)

from kinetree.jit import HELPER_OPTIONS
from kinetree.registry import FAMILIES, FUNCTIONS, INLINE, REQUIRED, SWITCHES


class Kinds:
    """The element kinds (type codes) a model uses in one family (``"mobilizers"``,
    ``"forces"``, ``"contact"``, ``"constraints"``), and the addresses compiled code
    calls them through. Compiled code receives it as its ``table``: (functions, codes)
    int64, the address of each function of each used kind that is not inline, 0 where
    there is none. The table is made in each process on first use (the addresses are
    the process's own); a Kinds copies and pickles as its codes."""

    __slots__ = ("family", "codes", "_table")

    def __init__(self, family: str, used=()):
        every = FAMILIES[family][1]
        used = {int(c) for c in used}
        unknown = sorted(used - set(every.values()))
        if unknown:
            raise ValueError(f"no {family} kind has the code {unknown[0]}; the codes are "
                             f"those of kinetree.registry.{family.upper()}")
        self.family = family
        self.codes = tuple(sorted(used))
        self._table = None

    @property
    def table(self) -> np.ndarray:
        """The addresses of the kinds' functions, (len(FUNCTIONS[family]), codes) int64,
        compiling (or loading from the cache) those not compiled yet in this process."""
        if self._table is None:
            self._table = address_table(self.family, self.codes)
        return self._table

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
        self._table = None


def kind_module(family: str, name: str):
    """The module of the kind ``name`` of ``family``, checked for its family's functions:
    each one it defines must be compiled code, and it must define the required ones
    (``registry.REQUIRED``), so that a function misspelled or missing is an error here,
    not a kind silently skipped."""
    package, _ = FAMILIES[family]
    module = importlib.import_module(f"{package}.{name}")
    defined = {f for f in FUNCTIONS[family] if getattr(module, f, None) is not None}
    for f in defined:
        if not hasattr(getattr(module, f), "py_func"):
            raise TypeError(f"{module.__name__}.{f} is not compiled: decorate it with "
                            f"kinetree.jit.helper")
    if not any(set(group) <= defined for group in REQUIRED[family]):
        wanted = " or ".join("(" + ", ".join(group) + ")" for group in REQUIRED[family])
        raise TypeError(f"{module.__name__} is registered as a {family} kind but does not "
                        f"define {wanted}")
    return module


_signatures: dict = {}
"""{(family, function): a callable giving the numba Signature every kind's function is
compiled for}, filled by ``switch`` and ``each``."""


@functools.cache
def signature_of(family: str, function: str):
    """The declared numba Signature of ``function`` of ``family`` (made once: building the
    types of the structures it names takes a fraction of a millisecond)."""
    if (family, function) not in _signatures:
        importlib.import_module(SWITCHES[family])     # the module declaring its switches
    return _signatures[family, function]()


def address_table(family: str, codes) -> np.ndarray:
    """The Kinds table of the kinds ``codes`` of ``family`` (``Kinds.table``)."""
    _, registry = FAMILIES[family]
    names = {code: name for name, code in registry.items()}
    table = np.zeros((len(FUNCTIONS[family]), max(registry.values()) + 1), dtype=np.int64)
    for code in codes:
        if names[code] in INLINE.get(family, ()):
            continue
        module = kind_module(family, names[code])
        for row, function in enumerate(FUNCTIONS[family]):
            f = getattr(module, function, None)
            if f is not None:
                table[row, code] = f.native_address(signature_of(family, function))
    table.flags.writeable = False
    return table


class KindsType(types.Array):
    """numba's type of a Kinds of one family: its address table, an int64 2-d array."""

    def __init__(self, family: str):
        self.family = family
        super().__init__(types.int64, 2, "C", readonly=True, name=f"Kinds({family})")

    @property
    def key(self):
        return self.family

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        return types.Array(dtype or self.dtype, ndim or self.ndim, layout or self.layout,
                           readonly=True if readonly is None else readonly)


@functools.cache
def _kinds_type(family: str) -> KindsType:
    """The KindsType of ``family``, made once: numba's making of a type (interned, but
    built and hashed first) is most of the cost of typing a realization's arguments."""
    return KindsType(family)


@typeof_impl.register(Kinds)
def _typeof_kinds(value, context):
    return _kinds_type(value.family)


register_model(KindsType)(models.ArrayModel)


@unbox(KindsType)
def _unbox_kinds(typ, obj, c):
    table = c.pyapi.object_getattr_string(obj, "table")
    native = c.unbox(types.Array(types.int64, 2, "C", readonly=True), table)
    c.pyapi.decref(table)
    return NativeValue(native.value, is_error=native.is_error, cleanup=native.cleanup)


def _address_caller(signature):
    """An intrinsic ``call(address, *args)`` for compiled code: the result of the function
    compiled for ``signature()`` (a numba Signature) at ``address``, each argument cast
    to its declared type. An exception it raises goes on to the caller."""

    @intrinsic
    def call(typingctx, address, *args):
        sig = signature()
        if len(args) != len(sig.args) or not all(
                typingctx.can_convert(a, d) for a, d in zip(args, sig.args)):
            raise numba.core.errors.TypingError(
                f"arguments {args} do not fit the declared signature {sig}")

        def codegen(context, builder, call_sig, llargs):
            values = [context.cast(builder, builder.extract_value(llargs[1], i), a, d)
                      for i, (a, d) in enumerate(zip(args, sig.args))]
            function = context.call_conv.get_function_type(sig.return_type, sig.args)
            pointer = builder.inttoptr(llargs[0], function.as_pointer())
            status, result = context.call_conv.call_function(
                builder, pointer, sig.return_type, sig.args, values)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return result

        return sig.return_type(address, types.StarArgTuple.from_types(tuple(args))), codegen

    return call


def _expect_kinds(kinds, family: str) -> None:
    if not isinstance(kinds, KindsType) or kinds.family != family:
        raise numba.core.errors.TypingError(f"expected the Kinds of {family}, got {kinds}")


def _inline_functions(family: str, function: str) -> list:
    """[(code, name, function)] of the family's inline kinds defining ``function``."""
    _, registry = FAMILIES[family]
    found = []
    for name in INLINE.get(family, ()):
        f = getattr(kind_module(family, name), function, None)
        if f is not None:
            found.append((registry[name], name, f))
    return found


def _compiled(source: str, functions: dict):
    """The function defined by ``source``, with ``functions`` as its globals."""
    namespace = dict(functions)
    exec(compile(source, "<kinetree.engine.kinds>", "exec"), namespace)
    return namespace["impl"]


def switch(family: str, function: str, signature, default=None):
    """A function ``f(kinds, code, *args)`` for compiled code: ``<module>.function(*args)``
    of the kind of type code ``code`` (``kinds``: the model's Kinds of ``family``), or
    ``default`` where that kind has no such function. ``signature`` is a callable giving
    the numba Signature of ``function`` (the types of ``args`` and of its result), which
    every kind's function is compiled for. For the mobilizers' ``x_fm`` it is

        if code == 1: return pin.x_fm(*args)           (each inline kind)
        ...
        address = kinds[0, code]                        (any other kind)
        if address != 0: return call(address, *args)
        return default
    """
    _signatures[family, function] = signature
    row = FUNCTIONS[family].index(function)
    call = _address_caller(signature)

    def dispatch(kinds, code, *args):
        raise TypeError(f"{family} switch on {function} is for compiled code")

    @overload(dispatch, jit_options=HELPER_OPTIONS)
    def _typed(kinds, code, *args):
        _expect_kinds(kinds, family)
        lines = ["def impl(kinds, code, *args):"]
        functions = {"default": default, "call": call}
        for c, name, f in _inline_functions(family, function):
            lines += [f"    if code == {c}:", f"        return {name}(*args)"]
            functions[name] = f
        lines += [f"    address = kinds[{row}, code]",
                  "    if address != 0:",
                  "        return call(address, *args)",
                  "    return default"]
        return _compiled("\n".join(lines), functions)

    dispatch.__name__ = dispatch.__qualname__ = f"{function}_switch"
    return dispatch


def each(family: str, function: str, signature):
    """A function ``f(kinds, *args)`` for compiled code calling ``function(*args)`` of every
    kind in ``kinds`` (a Kinds of ``family``) that defines it, in the order of their type
    codes, through the addresses of the functions compiled for ``signature()``."""
    _signatures[family, function] = signature
    row = FUNCTIONS[family].index(function)
    call = _address_caller(signature)

    def apply(kinds, *args):
        raise TypeError(f"{family} {function} of each kind is for compiled code")

    @overload(apply, jit_options=HELPER_OPTIONS)
    def _typed(kinds, *args):
        _expect_kinds(kinds, family)

        def impl(kinds, *args):
            for code in range(kinds.shape[1]):
                address = kinds[row, code]
                if address != 0:
                    call(address, *args)

        return impl

    apply.__name__ = apply.__qualname__ = f"each_{function}"
    return apply
