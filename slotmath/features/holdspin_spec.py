"""Declaration of the value-per-coin hold-and-spin (``options.hold_and_spin``).

:func:`load_hold_and_spin` reads and validates the game file's
``hold_and_spin`` mapping (one line naming the field for every problem) into
a :class:`HoldAndSpinSpec`; :mod:`slotmath.features.holdspin` computes with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from slotmath.engine.cache import game_cache
from slotmath.engine.limits import MAX_DRAW
from slotmath.features.cost import draw_weights, sci
from slotmath.features.declaration import Reader, is_number
from slotmath.features.progressive import read_jackpots
from slotmath.features.reach import on_reels
from slotmath.model import Game

__all__ = ["Prize", "HoldAndSpinSpec", "read_hold_and_spin", "SPEC_KEYS", "RESPIN_MODELS"]

SPEC_KEYS = (
    "symbol",
    "trigger",
    "respins",
    "rule",
    "respin",
    "reels",
    "probabilities",
    "values",
    "start_values",
    "full_screen",
    "in_free_games",
)
RESPIN_MODELS = ("cells", "reels")


@dataclass(frozen=True)
class Prize:
    """One entry of a coin value table: ``value`` [x total bet], its
    ``weight`` and ``label`` (a jackpot name or the value as text)."""

    value: Fraction
    weight: int
    label: str


@dataclass(frozen=True)
class HoldAndSpinSpec:
    """A declared hold-and-spin (see the module docstring).

    ``values`` / ``start_values``: tuples of :class:`Prize` (respin coins /
    coins of the trigger window); ``full_screen``: prize [x total bet] of a
    full screen and its label; ``probabilities``: rows x reels Fractions when
    declared instead of ``reels``."""

    symbol: str
    trigger: int
    respins: int
    rule: str
    respin: str
    reels: str | None
    probabilities: tuple | None
    values: tuple
    start_values: tuple
    full_screen: Fraction
    full_screen_label: str
    base_reels: str = "base"
    in_free_games: bool = False

    @property
    def full_screen_pays(self) -> bool:
        """True when a full screen wins something: a prize above 0 or a
        jackpot, a progressive one included (its coin value is 0: its
        meter pays it, and its hits are still counted)."""
        return bool(self.full_screen) or not is_number(self.full_screen_label)

    def reel_sets(self) -> set:
        """The reel sets the hold-and-spin reads: the triggering set and the respins' own."""
        return {self.base_reels} | ({self.reels} if self.reels else set())

    @staticmethod
    def table_moments(table) -> tuple:
        """Mean [x total bet] and second moment of a value table (Fractions)."""
        total = sum(p.weight for p in table)
        return (
            sum(p.value * p.weight for p in table) / total,
            sum(p.value**2 * p.weight for p in table) / total,
        )


def read_hold_and_spin(game: Game) -> HoldAndSpinSpec | None:
    """Parse and validate ``options.hold_and_spin`` field by field (None
    when absent); whether the feature can start and what its chain costs are
    checked by :func:`slotmath.features.holdspin.load_hold_and_spin`, the
    loader every consumer calls.

    Raises :class:`~slotmath.io.gamefile.GameFileError` naming the game file
    and the field.
    """
    opts = game.options or {}
    if not isinstance(opts, dict) or "hold_and_spin" not in opts:
        return None
    return _read(game)


@game_cache(maxsize=16)
def _read(game: Game) -> HoldAndSpinSpec:
    rd = Reader(game)
    w = "options.hold_and_spin"
    spec = rd.mapping(game.options["hold_and_spin"], w, SPEC_KEYS, ("symbol", "trigger", "respins", "values"))
    jackpots = read_jackpots(rd, game.options)[0]
    symbol = rd.symbol(spec["symbol"], f"{w}.symbol")
    sym = game.symbol(symbol)
    if sym.kind == "wild":
        rd.fail(f"{w}.symbol", f"{symbol!r} is a wild; a coin symbol may not substitute on lines")
    if any(symbol in pos for lp in game.line_pays for pos in lp.positions) or any(
        lp.anywhere == symbol for lp in game.line_pays
    ):
        rd.fail(f"{w}.symbol", f"{symbol!r} has line pays; a coin symbol pays only in the feature")
    if any(sp.symbol == symbol for sp in game.scatter_pays):
        rd.fail(f"{w}.symbol", f"{symbol!r} has scatter pays; a coin symbol pays only in the feature")
    cells = game.reels * game.rows
    trigger = rd.number(spec["trigger"], f"{w}.trigger", integer=True, positive=True)
    if trigger > cells:
        rd.fail(f"{w}.trigger", f"{trigger} coins do not fit the {game.reels}x{game.rows} window")
    respins = rd.number(spec["respins"], f"{w}.respins", integer=True, positive=True)
    rule = spec.get("rule", "reset")
    if rule not in ("reset", "countdown"):
        rd.fail(f"{w}.rule", f"must be 'reset' or 'countdown', got {rule!r}")
    respin = spec.get("respin", "cells")
    if respin not in RESPIN_MODELS:
        rd.fail(f"{w}.respin", f"must be one of {', '.join(RESPIN_MODELS)}, got {respin!r}")
    if ("reels" in spec) == ("probabilities" in spec):
        rd.fail(w, "declare exactly one of 'reels' (a reel set) and 'probabilities' (per cell)")
    reels, probs = None, None
    if "reels" in spec:
        reels = rd.reel_set(spec["reels"], f"{w}.reels")
        if trigger < cells and not on_reels(game, symbol, [reels]):  # every respin would land nothing
            rd.fail(
                f"{w}.reels",
                f"reel set {reels!r} shows no {symbol!r}: no coin can land in the respins "
                "(the respins are played on this set)",
            )
    else:
        if respin != "cells":
            rd.fail(f"{w}.probabilities", "per-cell probabilities need respin: cells")
        probs = _probabilities(rd, spec["probabilities"], f"{w}.probabilities")
    values = _table(rd, spec["values"], f"{w}.values", jackpots)
    start = values
    if "start_values" in spec:
        start = _table(rd, spec["start_values"], f"{w}.start_values", jackpots)
    full, full_label = rd.prize(spec.get("full_screen", 0), f"{w}.full_screen", jackpots)
    in_free = spec.get("in_free_games", False)
    if not isinstance(in_free, bool):
        rd.fail(f"{w}.in_free_games", f"must be true or false, got {str(in_free)[:40]!r}")
    free = (rd.game.options or {}).get("free_games")
    awards = free.get("awards") if isinstance(free, dict) else None
    if (
        in_free
        and isinstance(free, dict)
        and isinstance(free.get("trigger"), dict)
        and "payline" in free["trigger"]
    ):
        rd.fail(
            f"{w}.in_free_games", "is not computed with a count on a payline (free_games.trigger.payline)"
        )
    if in_free and any(isinstance(a, dict) and "reels" in a for a in (awards or {}).values()):
        rd.fail(
            f"{w}.in_free_games", "is not computed with a reel set per trigger count (awards.<count>.reels)"
        )
    out = HoldAndSpinSpec(
        symbol, trigger, respins, rule, respin, reels, probs, values, start, full, full_label, "base", in_free
    )
    return out


def _probabilities(rd: Reader, value, where) -> tuple:
    g = rd.game
    if not isinstance(value, list) or len(value) != g.rows:
        rd.fail(where, f"must be a list of {g.rows} rows of {g.reels} probabilities")
    out = []
    for k, row in enumerate(value):
        if not isinstance(row, list) or len(row) != g.reels:
            rd.fail(f"{where}[{k}]", f"must be a list of {g.reels} probabilities")
        cells = []
        for r, p in enumerate(row):
            if isinstance(p, str) and not is_number(p):
                rd.fail(f"{where}[{k}][{r}]", f"must be a number or a fraction 'p/q', got {p!r}")
            x = rd.number(p, f"{where}[{k}][{r}]", minimum=0)
            if x > 1:
                rd.fail(f"{where}[{k}][{r}]", f"must be at most 1, got {p!r}")
            if Fraction(x).denominator >= MAX_DRAW:
                rd.fail(
                    f"{where}[{k}][{r}]",
                    f"{str(p)[:40]!r} has denominator {sci(Fraction(x).denominator)}, not below 2**62, "
                    "the compiled simulator's exact draw (give a fraction 'p/q' with a smaller q)",
                )
            cells.append(x)
        out.append(tuple(cells))
    return tuple(out)


def _table(rd: Reader, value, where, jackpots) -> tuple:
    if not isinstance(value, list) or not value:
        rd.fail(where, "must be a non-empty list of {prize, weight}")
    out = []
    for i, e in enumerate(value):
        f = f"{where}[{i}]"
        rd.mapping(e, f, ("prize", "weight"), ("prize", "weight"))
        v, label = rd.prize(e["prize"], f"{f}.prize", jackpots)
        out.append(Prize(v, rd.number(e["weight"], f"{f}.weight", integer=True, minimum=0), label))
    if sum(p.weight for p in out) == 0:
        rd.fail(where, "all weights are zero")
    reduced, problem = draw_weights([p.weight for p in out])
    rd.check(problem, where)
    out = [Prize(p.value, x, p.label) for p, x in zip(out, reduced, strict=True)]
    return tuple(p for p in out if p.weight)
