"""Piggy Bankin' Superlock (``rules: piggy_bankin_superlock``).

:mod:`.check` holds the game file checks (imported with the package);
:mod:`.analysis` is the exact analysis and the Monte Carlo sampler.  :mod:`.rules` puts
the game on the rules contract (:mod:`slotmath.rules.contract`); the
analysis's names are also looked up in :mod:`.analysis`, imported when first
asked for.
"""

import importlib

from slotmath.rules.piggy_bankin_superlock.check import check

__all__ = ["check"]


_SUBMODULES = ("analysis", "cache", "check", "rtp", "rules", "sampler", "screens", "steps", "structure")


def __getattr__(name: str):
    if name.startswith("__") or name in _SUBMODULES:  # imported as modules, not looked up
        raise AttributeError(name)
    return getattr(importlib.import_module(f"{__name__}.analysis"), name)
