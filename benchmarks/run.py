"""All benchmarks: ``python benchmarks/run.py`` (``make bench``).

Runs the simulation benchmark (per game: rounds per second per core, exact
PAR time, simulation time for +-0.01 pp at 95 %), then every other
``benchmarks/bench_*.py`` script that has a ``main(argv)``, with its
defaults.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRST = "bench_simulation"


def scripts() -> list:
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    return sorted(names, key=lambda n: n != FIRST)


def main() -> int:
    sys.path.insert(0, str(HERE))
    status = 0
    for name in scripts():
        module = importlib.import_module(name)
        if not hasattr(module, "main"):
            print(f"(skipped {name}.py: no main())")
            continue
        print(f"\n=== {name}.py ===", flush=True)
        status |= module.main([]) or 0
    return status


if __name__ == "__main__":
    sys.exit(main())
