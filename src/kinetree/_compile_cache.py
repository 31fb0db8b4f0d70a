"""Where numba caches kinetree's compiled kernels, decided before any kernel is defined.

The kernels are cached in one folder per user (``$XDG_CACHE_HOME/kinetree/numba``, else
the platform's cache folder; the user's own NUMBA_CACHE_DIR instead when set), in a
sub-folder named by the content of kinetree's source files and numba's version: every
checkout, virtual environment and install of the same source shares it, a changed source
gets a folder of its own (a kernel inlines helpers from other files, so any file's change
can change any kernel), and file times play no part. numba writes each cache file whole
under a temporary name and renames it into place, so processes starting together (a pool
of workers, two terminals) share the folder safely. ``configure`` runs first thing in
``kinetree/__init__``; where no folder is writable the kernels compile uncached, with one
warning.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numba
from numba.core import config, event
from numba.core.caching import CompileResultCacheImpl, _CacheLocator
from numba.core.dispatcher import Dispatcher

PACKAGE_DIR = Path(__file__).resolve().parent

cache_dir: Path | None = None
"""The folder kinetree's kernels are cached in, as ``configure`` chose it; None when they
are not cached."""


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


def source_key() -> str:
    """The name of this source's cache folder: a digest of every Python file of the
    package (its path in the package and its bytes) and numba's version."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return f"{digest.hexdigest()[:20]}-numba{numba.__version__}"


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


class SourceKeyedLocator(_CacheLocator):
    """numba's cache locator for kinetree's functions: the file of a function of
    ``kinetree/<dir>/<file>.py`` goes to ``cache_dir/<dir>/``, stamped with the source
    key (the folder's name) rather than the file's time or path."""

    def __init__(self, py_func, py_file):
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_dir.joinpath(*_package_folder(py_file)))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return cache_dir.name

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        if cache_dir is None or _package_folder(py_file) is None:
            return None
        return cls(py_func, py_file)


@functools.cache
def _package_folder(py_file: str) -> tuple[str, ...] | None:
    """The folders from the package's to ``py_file``'s (() for the package's own), or None
    for a file outside the package."""
    folder = Path(py_file).resolve().parent
    return folder.relative_to(PACKAGE_DIR).parts if folder.is_relative_to(PACKAGE_DIR) else None


def configure() -> Path | None:
    """Choose where numba caches kinetree's kernels (see the module's docstring), make numba
    use it, and return it (``cache_dir``)."""
    global cache_dir
    base = Path(config.CACHE_DIR) if config.CACHE_DIR else user_cache_dir()
    folder = None if base is None else base / source_key()
    if folder is not None and writable(folder):
        cache_dir = folder
        if SourceKeyedLocator not in CompileResultCacheImpl._locator_classes:
            CompileResultCacheImpl._locator_classes.insert(0, SourceKeyedLocator)
        event.register("numba:compile", _FirstCompilationNotice())
        _tell_once_to_warm_up(folder)
    else:
        _compile_kinetree_kernels_uncached()
        warnings.warn(
            f"kinetree: no writable folder for numba's cache of compiled kernels (tried "
            f"{folder}), so they will be recompiled on every run, which takes minutes. Set "
            f"the NUMBA_CACHE_DIR environment variable to a writable folder to keep them.",
            UncachedKernelsWarning, stacklevel=3)
        cache_dir = None
    return cache_dir


WARMED = "warmed-up"
"""The file ``python -m kinetree warmup`` leaves in the cache folder when it is done."""

WARMUP_NOTICE = (
    "kinetree: this version's kernels are not compiled yet. Run `python -m kinetree warmup` "
    "once (about 3 minutes of CPU, on every core; the README's `make` commands do it); "
    "until then a program compiles what it uses on its first run.")
"""What the first import of a version of kinetree whose kernels are not compiled logs
(logger "kinetree", level WARNING), once for that version."""


def _tell_once_to_warm_up(folder: Path) -> None:
    told = folder / "told-to-warm-up"
    if not (folder / WARMED).exists() and not told.exists():
        logging.getLogger("kinetree").warning(WARMUP_NOTICE)
        told.touch()


COMPILING_NOTICE = (
    "kinetree: compiling kernels this program uses (once for this version of kinetree: "
    "they are cached for every later run; `python -m kinetree warmup` compiles them all "
    "ahead, on every core).")
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
