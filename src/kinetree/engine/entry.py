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
from numba.core import cgutils, types
from numba.extending import intrinsic


def _compiled(dispatcher, arguments: tuple):
    signature = tuple(numba.typeof(a) for a in arguments)
    compiled = dispatcher.overloads.get(signature)
    if compiled is None:
        dispatcher.compile(signature)
        compiled = dispatcher.overloads[signature]
    return compiled


def entry_point(dispatcher, arguments: tuple):
    """``dispatcher``'s compiled function for the types of ``arguments`` (compiled, or
    loaded from the cache, now if need be), callable from Python as the dispatcher is.
    Call it only with arguments of those same types: it does not check them."""
    return _compiled(dispatcher, arguments).entry_point


def native_address(dispatcher, arguments: tuple) -> int:
    """The address of ``dispatcher``'s compiled code for the types of ``arguments``
    (compiled, or loaded from the cache, now if need be), for ``call_native``. It is valid
    in this process only; pass it to compiled code as an argument, never store it."""
    compiled = _compiled(dispatcher, arguments)
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)


@intrinsic
def call_native(typingctx, address, *args):
    """call_native(address, *args) in compiled code: the int64 the function at
    ``address`` (``native_address``) returns for ``args``, which must have the types it
    was compiled for. An exception it raises goes on to the caller."""
    argument_types = tuple(types.unliteral(a) for a in args)
    signature = types.int64(address, types.StarArgTuple.from_types(tuple(args)))

    def codegen(context, builder, sig, llargs):
        values = [builder.extract_value(llargs[1], i) for i in range(len(args))]
        function = context.call_conv.get_function_type(types.int64, argument_types)
        pointer = builder.inttoptr(llargs[0], function.as_pointer())
        status, result = context.call_conv.call_function(builder, pointer, types.int64,
                                                         argument_types, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result

    return signature, codegen
