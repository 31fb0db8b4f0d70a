"""Calling a compiled function from Python without numba's per-call dispatch.

On every call numba's dispatcher types each argument to pick the compiled version: some
70-100 ns per array, a microsecond or more for a realization's two dozen arrays, as much
as the arithmetic of a small model. The engine calls its kernels with the same arrays
over and over (a State's buffers, an integrator's work arrays), so it looks the compiled
version up once and keeps it.
"""

import numba


def entry_point(dispatcher, arguments: tuple):
    """``dispatcher``'s compiled function for the types of ``arguments`` (compiled, or
    loaded from the cache, now if need be), callable from Python as the dispatcher is.
    Call it only with arguments of those same types: it does not check them."""
    signature = tuple(numba.typeof(a) for a in arguments)
    compiled = dispatcher.overloads.get(signature)
    if compiled is None:
        dispatcher.compile(signature)
        compiled = dispatcher.overloads[signature]
    return compiled.entry_point
