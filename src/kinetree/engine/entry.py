"""Calling compiled functions without numba's per-call dispatch, and without compiling a
callee into every caller.

On every call numba's dispatcher types each argument to pick the compiled version: some
70-100 ns per array, a microsecond or more for a realization's two dozen arrays, as much
as the arithmetic of a small model. The engine calls its kernels with the same arrays
over and over (a State's buffers, an integrator's work arrays), so it looks the compiled
version up once and keeps it (``entry_point``).

When a compiled function calls another, numba links the callee's code into the caller
and optimizes the two again together. For the realization, the largest compiled function
by far, every compiled caller (the integrators' runs of steps, the projection) would
repeat most of its compile time. Those callers take the address of the realization's
compiled code instead (``native_address``) and call it through that address
(``call_native``): it is compiled once, and they compile only their own code.
"""

import numba
from numba._dispatcher import compute_fingerprint
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

_compiled_of: dict = {}
"""{(dispatcher, the arguments' fingerprints): its compiled version for them}: a
realization plan made for every copy of a State would otherwise type its model and data
(hundreds of arrays) each time, a millisecond, and hash those types to look the version
up, a tenth of one."""


_typed_classes: set = set()
"""The classes numba has no fingerprint for (its typeof stands in), met so far: trying
one raises, which would cost a microsecond every time."""


def _fingerprint(value):
    """A key equal for values of one numba type: numba's own fingerprint (made in C, as
    its dispatchers make it), field by field in a tuple holding values it has none for."""
    kind = type(value)
    if kind not in _typed_classes:
        try:
            return compute_fingerprint(value)
        except NotImplementedError:
            if not isinstance(value, tuple):
                _typed_classes.add(kind)
    if isinstance(value, tuple):
        return kind, tuple(_fingerprint(v) for v in value)
    return numba.typeof(value)


def fingerprints(arguments: tuple) -> tuple:
    """The key of ``arguments``' types that ``entry_point`` and ``native_address`` look
    the compiled version up by: computed once, it may be handed to several lookups of
    the same arguments."""
    return tuple(_fingerprint(a) for a in arguments)


def _compiled(dispatcher, arguments: tuple, key=None):
    key = (dispatcher, fingerprints(arguments) if key is None else key)
    compiled = _compiled_of.get(key)
    if compiled is None:
        signature = tuple(numba.typeof(a) for a in arguments)
        compiled = dispatcher.overloads.get(signature)
        if compiled is None:
            dispatcher.compile(signature)
            compiled = dispatcher.overloads[signature]
        _compiled_of[key] = compiled
    return compiled


def entry_point(dispatcher, arguments: tuple, key=None):
    """``dispatcher``'s compiled function for the types of ``arguments`` (compiled, or
    loaded from the cache, now if need be), callable from Python as the dispatcher is;
    ``key``, if given, is their ``fingerprints``. Call it only with arguments of those
    same types: it does not check them."""
    return _compiled(dispatcher, arguments, key).entry_point


def native_address(dispatcher, arguments: tuple, key=None) -> int:
    """The address of ``dispatcher``'s compiled code for the types of ``arguments``
    (compiled, or loaded from the cache, now if need be), for ``call_native``; ``key``,
    if given, is their ``fingerprints``. It is valid in this process only; pass it to
    compiled code as an argument, never store it."""
    compiled = _compiled(dispatcher, arguments, key)
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)


def _call_codegen(argument_types):
    """Code calling the function at an address with ``argument_types`` (numba's calling
    convention, int64 result), the call's own arguments being the address and the rest."""

    def codegen(context, builder, sig, llargs):
        values = [builder.extract_value(llargs[1], i) for i in range(len(sig.args[1]))]
        function = context.call_conv.get_function_type(types.int64, argument_types)
        pointer = builder.inttoptr(llargs[0], function.as_pointer())
        status, result = context.call_conv.call_function(builder, pointer, types.int64,
                                                         argument_types, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result

    return codegen


@intrinsic
def call_native(typingctx, address, *args):
    """call_native(address, *args) in compiled code: the int64 the function at
    ``address`` (``native_address``) returns for ``args``, which must have the types it
    was compiled for. An exception it raises goes on to the caller."""
    argument_types = tuple(types.unliteral(a) for a in args)
    signature = types.int64(address, types.StarArgTuple.from_types(tuple(args)))
    return signature, _call_codegen(argument_types)


def _unowned(context, builder, value_type, value):
    """``value`` with every array in it (in tuples too) stripped of its memory owner."""
    if isinstance(value_type, types.Array):
        array = make_array(value_type)(context, builder, value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(value_type, types.BaseTuple):
        items = [_unowned(context, builder, t, builder.extract_value(value, i))
                 for i, t in enumerate(value_type)]
        return context.make_tuple(builder, value_type, items)
    return value


@intrinsic
def unowned(typingctx, value):
    """unowned(value) in compiled code: ``value`` (an array, or a tuple holding arrays)
    with its arrays seeing the same memory but not keeping it alive, so that compiled
    code handling them does no reference counting: two atomic operations per array each
    time it is read from a structure. Whoever stores them must keep the arrays alive
    for as long as they are used."""
    def codegen(context, builder, sig, args):
        return _unowned(context, builder, sig.args[0], args[0])

    return value(value), codegen
