"""The tumble declaration (``options.tumble``): parsed and checked without
the engine (validating a game file imports it), played by
:mod:`slotmath.engine.tumble` (docs/features.md "Tumbles")."""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm

from slotmath.errors import GameFileError, unknown_key
from slotmath.model import Game

__all__ = ["TumbleSpec", "tumble_spec", "TUMBLE_KEYS", "TUMBLE_PAYS", "MAX_TUMBLES"]

#: keys of ``options.tumble``
TUMBLE_KEYS = ("refill", "multipliers", "free_multipliers", "reset", "triggers")
#: the values of ``pays_by`` tumbles are played on (the keys of
#: :data:`slotmath.engine.payrule.TUMBLE_RULES`)
TUMBLE_PAYS = ("lines", "anywhere")
#: paying evaluations one spin may take before the engine refuses (a strip
#: that pays forever would never end)
MAX_TUMBLES = 500
#: a tumble spin's largest win stays below this many win units (exact in
#: int64 counts and in float64, as the largest win of one plain spin)
MAX_TUMBLE_WIN_UNITS = 2**53


@dataclass(frozen=True)
class TumbleSpec:
    """Declared tumbles: the progression of each paying evaluation (``x1,
    x2, ...``, the last repeating) in the base game and on the free games'
    reel set ``free_reels`` (None without free games)."""

    multipliers: tuple
    free_multipliers: tuple
    free_reels: str | None

    def progression(self, reel_set: str) -> tuple:
        """The progression played on ``reel_set``."""
        return self.free_multipliers if reel_set == self.free_reels else self.multipliers


def _fail(game: Game, field: str, problem: str):
    raise GameFileError(game.source or game.name, f"options.tumble{field}", problem)


def _progression(game: Game, value, field: str) -> tuple:
    if not isinstance(value, list) or not value:
        _fail(game, field, "must be a non-empty list of positive whole multipliers, e.g. [1, 2, 3, 5]")
    for i, m in enumerate(value):
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            _fail(game, f"{field}[{i}]", f"must be a positive whole multiplier, got {m!r}")
    return tuple(value)


def _count(n: int) -> str:
    """``n`` with thousands separators, in scientific notation from 10**12
    (also beyond the range of a float)."""
    return f"{n:,}" if n < 10**12 else f"{n:.3e}" if n < 10**300 else f"10**{len(str(n)) - 1}"


def _check_top_win(game: Game, progression: tuple, field: str) -> None:
    """Refuse a progression whose spin of :data:`MAX_TUMBLES` drops, each at
    the largest pay on every line (the wilds' largest multipliers; on a
    pay-anywhere game every symbol's largest pay at once) times the largest
    multiplier, plus every scatter pay, reaches :data:`MAX_TUMBLE_WIN_UNITS`
    win units."""
    if game.reads_paylines:
        mult = 1
        for s in game.symbols:
            if s.wild:
                mult *= max(s.wild.multiplier(c) for c in range(game.reels + 1))
        top_line = max((max(lp.pays) for lp in game.line_pays), default=0) * mult * game.ways_or_lines
        every = "line win on every line"
    else:  # a count row's symbol is its only position's (slotmath.engine.anywhere.count_rows)
        top_pay: dict = {}
        for lp in game.line_pays:
            symbol = next(iter(lp.positions[0]))
            top_pay[symbol] = max(top_pay.get(symbol, 0), max(lp.pays))
        top_line = sum(top_pay.values())
        every = "pay of every symbol"
    den = lcm(*(sp.pay.denominator for sp in game.scatter_pays)) if game.scatter_pays else 1
    top_scatter = sum(sp.pay for sp in game.scatter_pays) * max(b.total_bet for b in game.bet_levels)
    top = top_line * max(progression) * MAX_TUMBLES + top_scatter
    if top * den >= MAX_TUMBLE_WIN_UNITS:
        _fail(
            game,
            field,
            f"a spin of {MAX_TUMBLES} paying drops at x{_count(max(progression))} could win "
            f"{_count(int(top))} coins "
            f"(the largest {every} each drop); the exact engine holds a spin's win "
            "below 2**53 win units: lower the multipliers",
        )


def tumble_spec(game: Game) -> TumbleSpec | None:
    """Validate and return ``options.tumble`` (None when absent); every
    problem is one line naming the field (:class:`GameFileError`)."""
    options = game.options if isinstance(game.options, dict) else {}
    if "tumble" not in options:
        return None
    spec = options["tumble"]
    if not isinstance(spec, dict):
        _fail(game, "", "must be a mapping (key: value pairs)")
    for key in spec:
        if key not in TUMBLE_KEYS:
            _fail(game, f".{key}", unknown_key(key, TUMBLE_KEYS))
    refill = spec.get("refill", "strip")
    if refill == "fresh":
        _fail(game, ".refill", "fresh draws per cell are not computed yet (refill: strip is)")
    if refill != "strip":
        _fail(game, ".refill", f"must be 'strip', got {refill!r}")
    if spec.get("reset", "spin") != "spin":
        _fail(game, ".reset", "only 'spin' is computed (the progression restarts at every spin)")
    if spec.get("triggers", "first_drop") != "first_drop":
        _fail(game, ".triggers", "only 'first_drop' is computed (triggers count the first window)")
    if game.pays_by not in TUMBLE_PAYS:
        _fail(game, "", f"tumbles are computed on line and pay-anywhere games only (pays_by: {game.pays_by})")
    for pay in game.line_pays:
        if pay.anywhere:
            _fail(game, "", f"pay {pay.name!r} (any {pay.anywhere} on the line) has no cells to remove")
    base = _progression(game, spec.get("multipliers", [1]), ".multipliers")
    _check_top_win(game, base, ".multipliers")
    free = options.get("free_games")
    free_reels = free.get("reels", "base") if isinstance(free, dict) else None
    if "free_multipliers" in spec:
        if free_reels is None:
            _fail(game, ".free_multipliers", "needs options.free_games")
        if free_reels == "base":
            _fail(
                game,
                ".free_multipliers",
                "needs options.free_games.reels to name a reel set of its own (the progression is the "
                "reel set's)",
            )
        free_prog = _progression(game, spec["free_multipliers"], ".free_multipliers")
        _check_top_win(game, free_prog, ".free_multipliers")
    else:
        free_prog = base
    if isinstance(free, dict):
        for key in ("nudge", "sticky"):
            if free.get(key) is not None:
                _fail(game, "", f"options.free_games.{key} is not computed with tumbles")
        if isinstance(free.get("trigger"), dict) and "payline" in free["trigger"]:
            _fail(game, "", "options.free_games.trigger.payline is not computed with tumbles")
        awards = free.get("awards")
        for count, award in awards.items() if isinstance(awards, dict) else ():
            if isinstance(award, dict) and "reels" in award:
                _fail(game, "", f"options.free_games.awards.{count}.reels is not computed with tumbles")
    return TumbleSpec(base, free_prog, free_reels if free_reels != "base" else None)
