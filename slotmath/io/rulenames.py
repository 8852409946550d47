"""The registry of rules names: which module analyses ``rules: NAME``.

Light on purpose: the game-file reader looks a name up here and imports the
rules package, whose ``__init__`` holds only its file checks (the analysis is
imported when first used), so validating a game file imports no analysis code.
"""

from __future__ import annotations

import sys

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


def _is_rules_module(module) -> bool:
    return callable(getattr(module, "analyse", None)) and callable(getattr(module, "check", None))


def known_rules() -> list[str]:
    """Names a game's ``rules`` may take: the registered ones and rules
    modules already imported as ``slotmath.rules.<name>`` (defining
    ``analyse`` and ``check``; a program or test may add its own)."""
    prefix = "slotmath.rules."
    names = set(RULES)
    for full, module in list(sys.modules.items()):
        name = full[len(prefix) :]
        if (
            full.startswith(prefix)
            and "." not in name
            and module is not None
            and name not in names
            and full not in RULES.values()
            and name != "par"
            and _is_rules_module(module)
        ):
            names.add(name)
    return sorted(names)
