"""The orchestrator: :func:`par` asks the game's rules
(:func:`slotmath.rules.registry.rules_for`) for their exact analysis, a
:class:`~slotmath.rules.result.ParResult`.
"""

from __future__ import annotations

from slotmath.model import Game
from slotmath.rules.result import ParResult

__all__ = ["par"]


def par(game: Game, level: int | None = None) -> ParResult:
    """Exact PAR figures of ``game`` at bet ``level`` (default: lowest)."""
    from slotmath.rules.registry import rules_for

    level = game.bet(level).level
    return rules_for(game).analyse(game, level)
