"""Reading a feature declaration of a game file: :class:`Reader`, the
validation helpers every feature's loader shares (each error names its field,
one line, :class:`~slotmath.io.gamefile.GameFileError`), and the words the
declarations are checked against.  Below every feature module, so that each
feature reads its own options without importing the others.
"""

from __future__ import annotations

from fractions import Fraction

from slotmath.errors import unknown_key
from slotmath.features.cost import amount_problem
from slotmath.io.gamefile import GameFileError, not_an_integer
from slotmath.model import Game

__all__ = ["Reader", "is_number", "prize_text", "ORDERS"]

#: orders in which shapes are packed into the window (see :mod:`slotmath.features.shapes`)
ORDERS = ("reel-major", "row-major")


class Reader:
    """Validation helpers bound to one game (every error names its field)."""

    def __init__(self, game: Game):
        self.game = game

    def fail(self, where, problem):
        raise GameFileError(self.game.source, where, problem)

    def mapping(self, value, where, allowed=None, required=()):
        if not isinstance(value, dict):
            self.fail(where, "must be a mapping (key: value pairs)")
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    self.fail(f"{where}.{key}", unknown_key(key, allowed))
        for key in required:
            if key not in value:
                self.fail(f"{where}.{key}", "is required")
        return value

    def number(self, value, where, integer=False, minimum=None, positive=False):
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            self.fail(where, f"must be a number, got {value!r}")
        try:
            x = Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            self.fail(where, f"must be a number, got {value!r}")
        if integer and (x.denominator != 1 or not isinstance(value, int)):
            self.fail(where, not_an_integer(value))
        if positive and x <= 0:
            self.fail(where, f"must be positive, got {value!r}")
        if minimum is not None and x < minimum:
            self.fail(where, f"must be at least {minimum}, got {value!r}")
        return int(x) if integer else x

    def check(self, found, where=None) -> None:
        """Fail with ``found``: a problem at ``where``, or a (field, problem) pair (None: fine)."""
        if found:
            self.fail(*((where, found) if isinstance(found, str) else found))

    def amount(self, value, where, minimum=0, positive=False):
        """A prize, jackpot, cap or multiplier [x total bet] within bounds (cost.amount_problem)."""
        x = self.number(value, where, minimum=minimum, positive=positive)
        self.check(amount_problem(x, value), where)
        return x

    def symbol(self, name, where):
        if not isinstance(name, str) or name not in self.game.symbol_index:
            self.fail(where, f"unknown symbol {name!r}")
        return name

    def reel_set(self, name, where):
        if not isinstance(name, str) or name not in self.game.reel_sets:
            self.fail(where, f"unknown reel set {name!r} (reel sets: {', '.join(self.game.reel_sets)})")
        return name

    def counts(self, value, where):
        self.mapping(value, where)
        out = {}
        for key, spec in value.items():
            c = self.number(key, f"{where}.{key}", integer=True, positive=True)
            if c > self.game.reels * self.game.rows:
                self.fail(f"{where}.{key}", f"{c} symbols do not fit the window")
            out[c] = spec
        if not out:
            self.fail(where, "must list at least one count")
        return out

    def prize(self, value, where, jackpots):
        """A prize: a number [x total bet] or a jackpot name."""
        if isinstance(value, str) and not is_number(value):
            if value not in jackpots:
                self.fail(where, f"unknown jackpot {value!r} (jackpots: {', '.join(jackpots) or 'none'})")
            return jackpots[value], value
        x = self.amount(value, where)
        return x, prize_text(x)


def is_number(text: str) -> bool:
    if "e" in text.lower() and any(len(p.lstrip("+-")) > 2 for p in text.lower().split("e")[1:]):
        return False  # an exponent beyond 99: not a usable number
    try:
        Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def prize_text(x: Fraction) -> str:
    """A prize as written in a table: ``5``, ``2.5``."""
    return str(int(x)) if x.denominator == 1 else str(float(x))
