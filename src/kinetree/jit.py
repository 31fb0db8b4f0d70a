"""The decorator of the helpers of kinetree's compiled code.

numba gives every compiled function two wrappers beside its code: one that converts
Python objects to its arguments, so Python can call it, and one callable from C. Most of
kinetree's compiled functions are small helpers only ever called, and inlined, by other
compiled functions; many take the model and cache structures (``tree_model``), some
fifty arrays, whose conversion from Python is more code than the helper itself. Those
wrappers were a quarter of the compile time of a first program. ``helper`` compiles a
function without them, and makes a call from Python an error instead of the crash it
would be.
"""

import numba
from numba.core.registry import CPUDispatcher


class CompiledOnlyDispatcher(CPUDispatcher):
    """A dispatcher whose function is callable from compiled code only: calling it from
    Python raises (its ``py_func`` is the plain Python function)."""

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is a helper of "
            f"compiled code, compiled without a Python entry point; call it from a "
            f"numba-compiled function, or call its .py_func from Python")


HELPER_OPTIONS = {"forceinline": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""numba's options of a helper; also those of the compiled implementations of the
``overload`` functions compiled code calls (``engine/kinds.py``)."""


def helper(function=None, **options):
    """``numba.njit(cache=True, forceinline=True)`` without the Python and C entry
    points: for functions that only compiled code calls. ``options`` are numba's
    (``error_model``, ``forceinline=False`` for a function LLVM should decide to
    inline or not, ...)."""

    def decorate(f):
        dispatcher = numba.njit(cache=True, **{**HELPER_OPTIONS, **options})(f)
        dispatcher.__class__ = CompiledOnlyDispatcher
        return dispatcher

    return decorate if function is None else decorate(function)
