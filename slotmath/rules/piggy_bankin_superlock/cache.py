"""Piggy Bankin' Superlock: which reel sets a cached result reads.

The results are cached in :mod:`slotmath.engine.cache` (keyed on the game's
rules and the strips of these sets), so a tuning candidate with new base
reels reuses every feature result.
"""

from __future__ import annotations

from pathlib import Path

from slotmath.engine.cache import referenced_files
from slotmath.model import Game
from slotmath.rules.piggy_bankin_superlock.check import BASE_REELS


def game_referenced_files(game: Game, options) -> list:
    """Files next to the game file that string options name (award tables)."""
    return referenced_files(Path(game.source).parent, options) if game.source else []


def feature_sets(game: Game, *args) -> tuple:
    """The reel sets a feature result reads: every set but the base reels."""
    return tuple(sorted(n for n in game.reel_sets if n != BASE_REELS))


def this_set(game, reel_set, *args) -> tuple:
    return (reel_set,)
