"""The decorator of the helpers of kinetree's compiled code.

Most of kinetree's compiled functions are helpers only ever called by other compiled
functions: the per-body steps and sweeps, the element kinds' functions, the small linear
algebra. numba compiles each like a kernel of its own: a wrapper converting Python
objects into its arguments (for the helpers taking the model and cache structures of
``tree_model``, some fifty arrays, more code than the helper), a wrapper callable from
C, and machine code, after optimizing the whole module. A caller uses none of it: it
links the helper's LLVM code into its own module, where LLVM optimizes it, inlines it
and makes machine code once for the whole. ``helper`` compiles a function to that
linkable code only (``LinkOnlyLibrary``), which is most of what makes a first program's
compile affordable (``docs/first-run.md``). A call from Python gets an ordinary
compilation of the same function, made on its first call (``HelperDispatcher``).

The machinery leans on numba's compiler internals (its code library, compiler pipeline
and cache classes), which the tests exercise: a helper compiled, called from Python,
linked into a caller, and loaded from the cache into a new caller in another process.
"""

import numba
from llvmlite import binding as ll
from numba.core import compiler
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.codegen import JITCodeLibrary
from numba.core.registry import CPUDispatcher

from kinetree import _compile_cache

LINK_ONLY = "link-only"
"""The kind of a cached LinkOnlyLibrary (numba's own are "object" and "bitcode")."""


class LinkOnlyLibrary(JITCodeLibrary):
    """A compiled function's LLVM module, with the modules of the functions it calls
    linked in, ready to be linked into its callers' modules: it is neither optimized as
    a module nor made into machine code, which its callers do once for their whole
    module. It has no address to call."""

    def _optimize_final_module(self):
        pass  # its callers optimize it, linked into their modules

    def _finalize_final_module(self):
        # numba's, without handing the module to the JIT engine to make machine code
        self._finalize_dynamic_globals()  # a module with these is not cached
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        return 0

    @property
    def codegen(self):
        return _NoEnvironmentCodegen(self._codegen)

    def serialize_using_object_code(self):
        # what numba's cache stores of a compiled function: here its linkable module
        self._ensure_finalized()
        return self.name, LINK_ONLY, self._get_module_for_linking().as_bitcode()

    @classmethod
    def _unserialize(cls, codegen, state):
        name, kind, bitcode = state
        library = cls(codegen, name)
        library._final_module = ll.parse_bitcode(bitcode)
        library._finalized = True
        return library


class _NoEnvironmentCodegen:
    """The codegen seen through a LinkOnlyLibrary: numba stores a compiled function's
    environment (the Python objects it may reach) at an address in its machine code,
    and a link-only function has none; its callers hold it when they are compiled."""

    def __init__(self, codegen):
        self._codegen = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._codegen, name)


class LinkOnlyCompiler(compiler.Compiler):
    """numba's compiler, putting the function into a LinkOnlyLibrary."""

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = LinkOnlyLibrary(self.state.targetctx.codegen(),
                                                 func.__qualname__)
        return super().compile_extra(func)


class _LinkOnlyCacheImpl(CompileResultCacheImpl):
    """The cache of a link-only function: its own files (``.link.nbi``), apart from the
    function's ordinary compilation for Python (``HelperDispatcher.python_entry``), and
    rebuilt as a LinkOnlyLibrary. numba rebuilds a cached function through the library
    class of its codegen, shared by every function; it is pointed at LinkOnlyLibrary for
    the duration (numba holds its compiler lock meanwhile)."""

    def get_filename_base(self, fullname, abiflags):
        return super().get_filename_base(fullname, abiflags) + ".link"

    def rebuild(self, target_context, payload):
        codegen = target_context.codegen()
        codegen._library_class = LinkOnlyLibrary
        try:
            return super().rebuild(target_context, payload)
        finally:
            del codegen._library_class


class _LinkOnlyCache(FunctionCache):
    _impl_class = _LinkOnlyCacheImpl


class _NativeCacheImpl(CompileResultCacheImpl):
    """The cache of a helper's native entry (``HelperDispatcher.native_address``): its
    own files (``.native.nbi``), apart from the link-only and Python compilations of
    the same function, whose signatures it shares."""

    def get_filename_base(self, fullname, abiflags):
        return super().get_filename_base(fullname, abiflags) + ".native"


class _NativeCache(FunctionCache):
    _impl_class = _NativeCacheImpl


class HelperDispatcher(CPUDispatcher):
    """The dispatcher of a ``helper``: compiled code calls its link-only compiled
    function; a call from Python goes to a second, ordinary compilation of the same
    function (``python_entry``), made on the first such call."""

    def python_entry(self) -> CPUDispatcher:
        """An ordinary ``numba.njit`` dispatcher of this helper's function, with its
        options, for calls from Python."""
        entry = self.__dict__.get("_python_entry")
        if entry is None:
            entry = self._python_entry = numba.njit(cache=True, **self._python_options)(
                self.py_func)
        return entry

    def __call__(self, *args, **kwargs):
        return self.python_entry()(*args, **kwargs)

    def native_address(self, signature) -> int:
        """The address of this helper's function compiled by itself for ``signature``
        (a numba Signature), as machine code with neither Python nor C entry point and
        without numba's reference counting, for compiled code to call through the
        address (``engine/kinds.py``). Compiled, or loaded from the cache, on first
        use; valid in this process only."""
        entry = self.__dict__.get("_native_entry")
        if entry is None:
            options = {k: v for k, v in self._python_options.items() if k != "forceinline"}
            entry = self._native_entry = numba.njit(
                no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False,
                **options)(self.py_func)
            if _compile_cache.cache_dir is not None:
                entry.enable_caching()
                entry._cache = _NativeCache(self.py_func)
        compiled = entry.overloads.get(signature.args)
        if compiled is None:
            entry.compile(signature)
            compiled = entry.overloads[signature.args]
        return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)


HELPER_OPTIONS = {"forceinline": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True,
                  "pipeline_class": LinkOnlyCompiler}
"""numba's options of a helper; also those of the compiled implementations of the
``overload`` functions compiled code calls (``engine/kinds.py``)."""


def helper(function=None, **options):
    """``numba.njit(cache=True, forceinline=True)`` compiled to linkable code only
    (``LinkOnlyLibrary``, no Python or C entry point): for functions that compiled code
    calls; a call from Python compiles an ordinary entry on first use. ``options`` are
    numba's (``error_model``, ``forceinline=False`` for a function LLVM should decide to
    inline or not, ...)."""

    def decorate(f):
        dispatcher = numba.njit(**{**HELPER_OPTIONS, **options})(f)
        dispatcher.__class__ = HelperDispatcher
        dispatcher._python_options = options
        if _compile_cache.cache_dir is not None:  # see _compile_cache.configure
            dispatcher._cache = _LinkOnlyCache(f)
        return dispatcher

    return decorate if function is None else decorate(function)
