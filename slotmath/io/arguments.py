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


def spin_count(text: str) -> int:
    """Parse a spin count such as ``1000000`` or ``1e6``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1: {text!r}")
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
