"""Where numba caches kinetree's compiled kernels, decided before any kernel is defined.

numba caches a ``cache=True`` kernel in the ``__pycache__`` folder beside its source file.
In a read-only install (a site-packages owned by root, a read-only container image) it
cannot, and where it finds no writable place at all it raises as the kernel is defined,
which made ``import kinetree`` fail. ``configure`` runs first thing in ``kinetree/__init__``
and picks, in order: the user's own NUMBA_CACHE_DIR; numba's default when the package
folder is writable; a per-user cache folder; else no cache, with one warning.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import warnings
from pathlib import Path

from numba.core import config, event
from numba.core.dispatcher import Dispatcher

PACKAGE_DIR = Path(__file__).resolve().parent

cache_dir: Path | None = None
"""The folder kinetree's kernels are cached under, as ``configure`` chose it; None when they
are not cached. With numba's default it is the package folder: each module's kernels go to
the ``__pycache__`` folder beside it."""


class UncachedKernelsWarning(UserWarning):
    """No folder for numba's cache was writable: every process compiles the kernels anew."""


def user_cache_dir() -> Path | None:
    """The per-user folder for kinetree's kernels: $XDG_CACHE_HOME/kinetree/numba, else the
    platform's cache folder (~/.cache, ~/Library/Caches, %LOCALAPPDATA%); None without a
    home folder to put it in."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):  # the XDG spec ignores a relative path
        return Path(xdg) / "kinetree" / "numba"
    try:
        home = Path.home()
    except RuntimeError:
        return None
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = home / ".cache"
    return base / "kinetree" / "numba"


def writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be made in it: the test numba
    itself makes (``_CacheLocator.ensure_cache_path``), so the answer is the one numba gets,
    read-only file systems and root included."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def configure() -> Path | None:
    """Choose where numba caches kinetree's kernels (see the module's docstring), make numba
    use it, and return it (``cache_dir``)."""
    global cache_dir
    if config.CACHE_DIR:
        cache_dir = Path(config.CACHE_DIR)
    elif writable(PACKAGE_DIR / "__pycache__"):
        cache_dir = PACKAGE_DIR
    elif (user_dir := user_cache_dir()) is not None and writable(user_dir):
        # the variable as well as the setting: numba re-reads its settings from the
        # environment whenever a NUMBA_ variable changes, and child processes inherit it
        os.environ["NUMBA_CACHE_DIR"] = config.CACHE_DIR = str(user_dir)
        cache_dir = user_dir
    else:
        _compile_kinetree_kernels_uncached()
        tried = " and ".join(str(f) for f in (PACKAGE_DIR / "__pycache__", user_dir) if f)
        warnings.warn(
            f"kinetree: no writable folder for numba's cache of compiled kernels (tried "
            f"{tried}), so they will be recompiled on every run, which takes a minute or "
            f"more. Set the NUMBA_CACHE_DIR environment variable to a writable folder to "
            f"keep them.", UncachedKernelsWarning, stacklevel=3)
        cache_dir = None
    if cache_dir is not None:
        event.register("numba:compile", _FirstCompilationNotice())
    return cache_dir


COMPILING_NOTICE = (
    "kinetree: compiling kernels for the kinds of elements this model uses (first run "
    "only: up to a few minutes; the compiled code is cached for every later run, and "
    "`python -m kinetree warmup` compiles the common kinds ahead).")
"""What the first compilation of a kinetree kernel in a process logs (logger "kinetree",
level WARNING, so that it shows without any logging set up), once."""


class _FirstCompilationNotice(event.Listener):
    """Logs COMPILING_NOTICE when numba starts compiling a kinetree kernel (not loading it
    from the cache: numba signals a compilation only after a cache miss), once per
    process, so that a program paused for minutes on its first run says why."""

    def __init__(self):
        self.told = False

    def on_start(self, ev):
        if self.told:
            return
        module = ev.data["dispatcher"].py_func.__module__ or ""
        if module.partition(".")[0] == __name__.partition(".")[0]:
            self.told = True
            logging.getLogger("kinetree").warning(COMPILING_NOTICE)

    def on_end(self, ev):
        pass


def _compile_kinetree_kernels_uncached() -> None:
    """Make ``cache=True`` a no-op for kinetree's kernels, leaving them numba's in-memory
    NullCache. numba raises when a cached kernel finds no writable locator, and a locator
    (NUMBA_CACHE_LOCATOR_CLASSES) cannot decline to save, so the cache is skipped where the
    Dispatcher would enable it; kernels of other packages are cached as before."""
    enable_caching = Dispatcher.enable_caching
    package = __name__.partition(".")[0]

    def enable_caching_outside_kinetree(self):
        module = self.py_func.__module__ or ""
        if module != package and not module.startswith(package + "."):
            enable_caching(self)

    Dispatcher.enable_caching = enable_caching_outside_kinetree
