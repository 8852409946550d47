"""Grand Spinn Superpot (``rules: grand_spinn_superpot``).

:mod:`.options` reads and checks the game file's options (imported with the
package); :mod:`.analysis` is the exact analysis, :mod:`.sampler` the
independent Monte Carlo and :mod:`.strips` the draft strips used in tuning.
:mod:`.rules` puts the game on the rules contract
(:mod:`slotmath.rules.contract`); the analysis's names are also looked up in
:mod:`.analysis`, imported when first asked for.
"""

import importlib

from slotmath.rules.grand_spinn_superpot.options import check

__all__ = ["check"]


_SUBMODULES = ("analysis", "chains", "enumeration", "options", "rules", "sampler", "steps", "strips")


def __getattr__(name: str):
    if name.startswith("__") or name in _SUBMODULES:  # imported as modules, not looked up
        raise AttributeError(name)
    return getattr(importlib.import_module(f"{__name__}.analysis"), name)
