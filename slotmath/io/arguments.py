"""Command-line argument types and the usage error, shared by the commands
that each layer registers with :mod:`slotmath.cli` (light: argparse only)."""

from __future__ import annotations

import argparse

from slotmath.errors import UsageError as UsageError
from slotmath.io.gamefile import check_level, load_game


def game_and_level(spec: str, level: int | None):
    """Load GAME and check that ``level`` is one of its bet levels."""
    game = load_game(spec)
    check_level(game, level)
    return game, game.bet(level).level


#: The most rounds a run (or a chunk) may count: above 2**53 the float64
#: sums and the rates of a run are no longer exact in the last unit, and a
#: larger count would run for centuries rather than be refused.
MAX_SPINS = 2**53


def spin_count(text: str) -> int:
    """Parse a spin count such as ``1000000`` or ``1e6``, from 1 to
    :data:`MAX_SPINS`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1: {text!r}")
    if value > MAX_SPINS:
        raise argparse.ArgumentTypeError(
            f"{value:.3g} rounds is above 2**53 ({MAX_SPINS:.4g}), the most a run counts exactly: {text!r}"
        )
    return int(value)


def positive_int(text: str) -> int:
    """Parse a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text!r}")
    return value
