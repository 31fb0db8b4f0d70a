"""One thread at a time: a State, an integrator or a TimeStepper keeps its work in itself,
so two threads using one at once would read each other's numbers. Their long operations
(a realization with Python in it, a step_to) run between ``enter`` and ``leave``, which
refuse a second thread instead of letting it in; the same thread may enter again (a force of yours
realizing a scratch copy, a TimeStepper calling its integrator). One object per thread is
safe.
"""

from __future__ import annotations

import threading

from kinetree.errors import ConcurrentUseError


def _in_use(what: str) -> ConcurrentUseError:
    return ConcurrentUseError(
        f"{what} is in use by another thread: a State, an integrator and a TimeStepper each "
        f"belong to one thread at a time. Give each thread its own (state.copy(), a new "
        f"integrator), or wait for the other to finish.")


def new_guard(obj) -> None:
    """Give ``obj`` what ``enter`` keeps: the thread inside (None), how deep, a lock."""
    obj._user, obj._user_depth, obj._user_lock = None, 0, threading.Lock()


def enter(obj, what: str) -> None:
    """Become the one thread using ``obj`` (``what`` names it in the error), until the
    matching ``leave``: ConcurrentUseError if another thread is using it. Call ``leave``
    in a ``finally``."""
    me = threading.get_ident()
    if obj._user != me:
        if not obj._user_lock.acquire(blocking=False):
            raise _in_use(what)
        obj._user = me
    obj._user_depth += 1


def leave(obj) -> None:
    """End the use ``enter`` began."""
    obj._user_depth -= 1
    if obj._user_depth == 0:
        obj._user = None
        obj._user_lock.release()


def refuse_if_in_use(obj, what: str) -> None:
    """Raise ConcurrentUseError if another thread has entered ``obj``: the check of a
    short operation that needs no ``enter`` of its own."""
    user = obj._user
    if user is not None and user != threading.get_ident():
        raise _in_use(what)
