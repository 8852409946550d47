"""Test support for slotmath and for rules packages' own tests.

* :mod:`slotmath.testing.conformance`: the rules conformance check,
  :func:`check_rules` (stops at the first broken promise),
  :func:`rules_checks` (named checks) and :func:`parametrize_with_checks`
  (each check its own pytest test, as scikit-learn's
  ``parametrize_with_checks``);
* :mod:`slotmath.testing.holdspin_round`: a second, independent composition
  of a line game's hold-and-spin round (direct convolutions), the reference
  the feature round of ``rules: lines`` is compared with;
* :mod:`slotmath.testing.freetable`: free games of a small game by listing
  its free-game cycle (brute force).

These are references, not part of an analysis: no slotmath computation
imports them.
"""

from __future__ import annotations

from slotmath.testing.conformance import (
    CHECKS,
    ConformanceError,
    check_rules,
    parametrize_with_checks,
    rules_checks,
)

__all__ = ["check_rules", "rules_checks", "parametrize_with_checks", "CHECKS", "ConformanceError"]
