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
    """Clear every memoised result of the loaded ``slotmath`` modules (their
    ``functools`` caches and any module-level ``clear_caches()``), so that a
    timed analysis computes everything again; compiled numba kernels stay."""
    import sys

    for name, module in list(sys.modules.items()):
        if not name.startswith("slotmath") or module is None:
            continue
        for attr in list(vars(module).values()):
            if callable(getattr(attr, "cache_clear", None)) and getattr(attr, "__module__", None) == name:
                attr.cache_clear()
        hook = vars(module).get("clear_caches")
        if callable(hook):
            hook()
