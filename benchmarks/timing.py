"""Timing helper shared by the benchmark scripts."""

import statistics
import time


def median_time(fn, repeat: int) -> float:
    """Median wall time of ``repeat`` calls of ``fn()`` [s]."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def forget_cached_results() -> None:
    """Clear every memoised result of slotmath (the one cache registry,
    :func:`slotmath.engine.cache.clear`), so that a timed analysis computes
    everything again; compiled numba kernels stay."""
    from slotmath.engine.cache import clear

    clear()
