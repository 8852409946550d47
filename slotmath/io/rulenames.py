"""The registry of rules names: which module analyses ``rules: NAME``.

Light on purpose: the game-file reader looks a name up here and imports the
rules package, whose ``__init__`` holds only its file checks (the analysis is
imported when first used), so validating a game file imports no analysis code.
"""
from __future__ import annotations

#: rules name -> module of the rules contract (analyse, simulate, check, ...)
RULES = {
    "lines": "slotmath.rules.linegame",
    "grand_spinn_superpot": "slotmath.rules.grand_spinn_superpot",
    "piggy_bankin_superlock": "slotmath.rules.piggy_bankin_superlock",
}


def rules_module_name(name: str) -> str:
    """The module that implements ``rules: name`` (a name not registered here
    is looked for as ``slotmath.rules.<name>``)."""
    return RULES.get(name, f"slotmath.rules.{name}")
