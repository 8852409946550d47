"""slotmath: exact slot-game mathematics.

Six functions cover the work (see :mod:`slotmath.api`)::

    import slotmath
    game = slotmath.load("video20")        # read and validate a game file
    slotmath.par(game).print_summary()     # its exact PAR figures

* :func:`load` reads and validates a game file into a :class:`slotmath.model.Game`;
* :func:`validate` checks a game file (``slotmath validate``);
* :func:`par` gives the exact PAR figures (:class:`slotmath.rules.result.ParResult`);
* :func:`simulate` cross-checks them by simulation;
* :func:`tune` tunes reel strips to targets;
* :func:`report` builds the PAR report.

Every error slotmath raises on purpose is a :class:`slotmath.errors.SlotmathError`
(:mod:`slotmath.errors`).

The names load lazily (PEP 562): ``import slotmath`` imports no numba,
pandas or scipy; a computation imports what it needs.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

# The package version: the one place it is written (pyproject.toml reads it
# from here, see tool.setuptools.dynamic; CHANGELOG.md names its releases).
__version__: str = "0.1.0"

# Exact figures are Fractions whose numerators and denominators can run to
# thousands of digits (a hold-and-spin on 64 cells: about 8,000); they are
# written out in full (``rtp_exact``), so Python's default limit of 4,300
# digits on int-to-text conversion is lifted for the process.
import sys as _sys

if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)

# Compiled kernels are cached per version of their source (slotmath.kernelcache).
from slotmath.kernelcache import use_kernel_cache as _use_kernel_cache

_use_kernel_cache()

#: The curated top level, in the order the API page lists it.
__all__ = ["load", "par", "simulate", "tune", "report", "validate", "SlotmathError", "__version__"]

_FROM_API = frozenset({"load", "par", "simulate", "tune", "report", "validate"})
_FROM_ERRORS = frozenset({"SlotmathError"})


def __getattr__(name: str) -> Any:
    """Import a public name (or a subpackage such as ``slotmath.testing``) on first use."""
    if name in _FROM_API:
        value = getattr(importlib.import_module("slotmath.api"), name)
    elif name in _FROM_ERRORS:
        value = getattr(importlib.import_module("slotmath.errors"), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(__all__) | {k for k in globals() if not k.startswith("_")})
