"""The benchmarks' timer: interleaved batches, the best of each kept."""

from __future__ import annotations

import time


def _batch_size(fn, batch_seconds):
    """Calls of ``fn`` that take at least ``batch_seconds``."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= batch_seconds:
            return n
        n *= 2


def interleaved_best(calls, rounds=9, batch_seconds=0.05):
    """Seconds per call of each function in ``calls``: the best over ``rounds`` rounds, a
    round timing one batch (at least ``batch_seconds``) of every function in turn. The
    interleaving exposes every function alike to the load of a shared machine."""
    sizes = [_batch_size(fn, batch_seconds) for fn in calls]
    best = [float("inf")] * len(calls)
    for _ in range(rounds):
        for i, (fn, n) in enumerate(zip(calls, sizes, strict=True)):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / n)
    return best
