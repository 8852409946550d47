"""The tumble declaration (``options.tumble``): parsed and checked without
the engine (validating a game file imports it), played by
:mod:`slotmath.engine.tumble` (docs/features.md "Tumbles")."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm

from slotmath.engine.pays import base_rule
from slotmath.errors import GameFileError, unknown_key
from slotmath.model import Game

__all__ = [
    "TumbleSpec",
    "BoardMultipliers",
    "FreshDraws",
    "tumble_spec",
    "TUMBLE_KEYS",
    "MAX_TUMBLES",
    "TRIGGERS",
    "RESETS",
]

#: keys of ``options.tumble``
TUMBLE_KEYS = (
    "refill",
    "multipliers",
    "free_multipliers",
    "reset",
    "triggers",
    "multiplier_symbols",
    "draws",
)
#: values of ``options.tumble.triggers``: scatters pay and trigger on the
#: first drop, or counted over the whole tumble sequence
TRIGGERS = ("first_drop", "sequence")
#: values of ``options.tumble.reset``: the progression restarts at every
#: spin, or in free games carries on through the round of one trigger
RESETS = ("spin", "round")
#: keys of ``options.tumble.multiplier_symbols``
BOARD_KEYS = ("symbol", "values", "in", "persist")
#: the games ``options.tumble.multiplier_symbols.in`` may name
BOARD_GAMES = ("base", "free")
#: paying evaluations one spin may take before the engine refuses (a strip
#: that pays forever would never end)
MAX_TUMBLES = 500
#: a tumble spin's largest win stays below this many win units (exact in
#: int64 counts and in float64, as the largest win of one plain spin)
MAX_TUMBLE_WIN_UNITS = 2**53


@dataclass(frozen=True)
class BoardMultipliers:
    """Board multiplier symbols (``options.tumble.multiplier_symbols``):
    ``symbol`` pays nothing and no pay removes it; each one on the board at
    the end of a spin's tumbles carries a value drawn independently from
    ``values`` with integer ``weights`` (reduced by their gcd); a spin whose
    tumbles pay wins their pays x the sum of the values (x1 with none on the
    board; scatter pays are not multiplied), on the reel sets ``reel_sets``.
    ``persist``: in the free games of one trigger the values add to a
    running total that multiplies each paying free spin
    (:mod:`slotmath.features.persist`)."""

    symbol: str
    values: tuple
    weights: tuple
    reel_sets: tuple
    persist: bool = False

    def mean(self) -> Fraction:
        """Mean value of one multiplier symbol (exact)."""
        total = sum(self.weights)
        return Fraction(sum(v * w for v, w in zip(self.values, self.weights, strict=True)), total)


@dataclass(frozen=True)
class FreshDraws:
    """Fresh-draw refills of one reel set (``options.tumble.draws``): each
    gap is filled by an independent draw from reel ``r``'s table
    ``tables[r]`` = (symbols, integer weights reduced by their gcd)."""

    tables: tuple

    @property
    def shared(self) -> bool:
        """True when every reel draws from the same table (the exact chain's
        condition: then only the counts per symbol matter)."""
        return all(t == self.tables[0] for t in self.tables)

    def probability(self, reel: int, symbol: str) -> Fraction:
        """Probability of ``symbol`` in one draw on ``reel`` [probability]."""
        symbols, weights = self.tables[reel]
        w = dict(zip(symbols, weights, strict=True)).get(symbol, 0)
        return Fraction(w, sum(weights))


@dataclass(frozen=True)
class TumbleSpec:
    """Declared tumbles: the progression of each paying evaluation (``x1,
    x2, ...``, the last repeating) in the base game and on the free games'
    reel set ``free_reels`` (None without free games), and the board
    multiplier symbols (None without)."""

    multipliers: tuple
    free_multipliers: tuple
    free_reels: str | None
    board: BoardMultipliers | None = None
    #: ``"first_drop"`` or ``"sequence"`` (:data:`TRIGGERS`)
    triggers: str = "first_drop"
    #: ``"spin"`` or ``"round"`` (:data:`RESETS`)
    reset: str = "spin"
    #: fresh-draw refills by reel set (None: strip refill)
    draws: dict | None = None

    @property
    def sequence(self) -> bool:
        """True when scatters pay and trigger over the whole tumble sequence."""
        return self.triggers == "sequence"

    @property
    def carried(self) -> bool:
        """True when the free games' progression carries on through the round."""
        return self.reset == "round"

    def progression(self, reel_set: str) -> tuple:
        """The progression played on ``reel_set``."""
        return self.free_multipliers if reel_set == self.free_reels else self.multipliers

    def draws_on(self, reel_set: str) -> FreshDraws | None:
        """The fresh-draw tables of ``reel_set`` (None: strip refill)."""
        return self.draws[reel_set] if self.draws is not None else None

    def board_on(self, reel_set: str) -> BoardMultipliers | None:
        """The board multipliers played on ``reel_set`` (None: none)."""
        return self.board if self.board is not None and reel_set in self.board.reel_sets else None


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


def _check_top_win(game: Game, progression: tuple, field: str, board: int = 1) -> None:
    """Refuse a progression whose spin of :data:`MAX_TUMBLES` drops, each at
    the largest pay on every line (on a pay-anywhere game every symbol's
    largest pay at once, on a ways game every symbol's on every way, on a
    cluster game every symbol's on as many clusters as the window has cells; the
    wilds' largest multipliers) times the largest multiplier and ``board``
    (every cell at the largest value), plus every scatter pay, reaches
    :data:`MAX_TUMBLE_WIN_UNITS` win units."""
    mult = 1
    for s in game.symbols:
        if s.wild:
            mult *= max(s.wild.multiplier(c) for c in range(game.reels + 1))
    # a ways or count row's symbol is its first position's (slotmath.engine.ways.compile_ways)
    top_pay: dict = {}
    for lp in game.line_pays:
        symbol = next(iter(lp.positions[0]))
        top_pay[symbol] = max(top_pay.get(symbol, 0), max(lp.pays))
    top_line, every = base_rule(game).drop_bound(game, top_pay, mult)
    den = lcm(*(sp.pay.denominator for sp in game.scatter_pays)) if game.scatter_pays else 1
    top_scatter = sum(sp.pay for sp in game.scatter_pays) * max(b.total_bet for b in game.bet_levels)
    top = top_line * max(progression) * board * MAX_TUMBLES + top_scatter
    if top * den >= MAX_TUMBLE_WIN_UNITS:
        _fail(
            game,
            field,
            f"a spin of {MAX_TUMBLES} paying drops at x{_count(max(progression) * board)} could win "
            f"{_count(int(top))} coins "
            f"(the largest {every} each drop); the exact engine holds a spin's win "
            "below 2**53 win units: lower the multipliers" + (" or the board values" if board > 1 else ""),
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
    if refill not in ("strip", "fresh"):
        _fail(game, ".refill", f"must be 'strip' or 'fresh', got {refill!r}")
    if refill == "fresh" and "draws" not in spec:
        _fail(game, ".draws", "refill: fresh needs draws: {REEL_SET: [[SYMBOL, weight], ...]}")
    if refill == "strip" and "draws" in spec:
        _fail(game, ".draws", "is read only with refill: fresh (refill: strip refills from the strip)")
    reset = spec.get("reset", "spin")
    if reset not in RESETS:
        _fail(game, ".reset", f"must be one of {', '.join(RESETS)}, got {reset!r}")
    triggers = spec.get("triggers", "first_drop")
    if triggers not in TRIGGERS:
        _fail(game, ".triggers", f"must be one of {', '.join(TRIGGERS)}, got {triggers!r}")
    if refill == "fresh" and triggers != "first_drop":
        _fail(game, ".triggers", "sequence is not computed with refill: fresh (first_drop is)")
    if refill == "fresh" and reset != "spin":
        _fail(game, ".reset", "round is not computed with refill: fresh (spin is)")
    rule = base_rule(game)
    if not rule.tumbles:
        _fail(game, "", f"tumbles are not computed on {rule.channel} games (pays_by: {rule.name})")
    if game.heights is not None:
        _fail(game, "", "tumbles are not computed with reel heights (grid.heights)")
    for pay in game.line_pays:
        if pay.anywhere:
            _fail(game, "", f"pay {pay.name!r} (any {pay.anywhere} on the line) has no cells to remove")
    free = options.get("free_games")
    free_reels = free.get("reels", "base") if isinstance(free, dict) else None
    board = _board(game, spec["multiplier_symbols"], free_reels) if "multiplier_symbols" in spec else None
    top = game.reels * game.rows * max(board.values) if board else 1
    base = _progression(game, spec.get("multipliers", [1]), ".multipliers")
    _check_top_win(game, base, ".multipliers")
    _check_top_win(game, base, ".multiplier_symbols.values", top)
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
        _check_top_win(game, free_prog, ".multiplier_symbols.values", top)
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
    if triggers == "sequence":
        _check_sequence(game, free)
    if reset == "round":
        _check_round(game, free, board)
    if board is not None and board.persist:
        _check_persist(game, free, refill, triggers)
    own_free = free_reels if free_reels != "base" else None
    draws = _draws(game, spec["draws"], own_free) if refill == "fresh" else None
    return TumbleSpec(base, free_prog, own_free, board, triggers, reset, draws)


def _check_sequence(game: Game, free) -> None:
    """Refuse what ``triggers: sequence`` does not compute: a trigger on
    named reels, and an award count above the window's cells (the
    sequence's count is read capped there; a scatter pay's count above them
    is refused with the pays)."""
    cells = game.reels * game.rows
    if isinstance(free, dict) and isinstance(free.get("trigger"), dict) and "reels" in free["trigger"]:
        _fail(game, ".triggers", "sequence is not computed with options.free_games.trigger.reels")
    for key in ("awards", "retrigger_awards"):
        table = free.get(key) if isinstance(free, dict) else None
        for count in table if isinstance(table, dict) else ():
            if isinstance(count, int) and count > cells:
                _fail(
                    game,
                    ".triggers",
                    f"sequence reads counts up to the {cells} cells (options.free_games.{key}.{count})",
                )


def _check_persist(game: Game, free, refill: str, triggers: str) -> None:
    """Refuse what ``multiplier_symbols.persist`` does not compute: fresh
    refills, ``triggers: sequence``, retriggers without ``max_games``."""
    field = ".multiplier_symbols.persist"
    if refill == "fresh":
        _fail(game, field, "is not computed with refill: fresh (strip is)")
    if triggers != "first_drop":
        _fail(game, field, "is not computed with triggers: sequence (first_drop is)")
    if free.get("retrigger", True) and free.get("max_games") is None:
        _fail(
            game,
            field,
            "with retriggers needs options.free_games.max_games (the chain over games left is then finite)",
        )


def _check_round(game: Game, free, board) -> None:
    """Refuse what ``reset: round`` does not compute: no free games, the
    free games on the base reel set (the progression is the free set's),
    retriggers without ``max_games``."""
    if not isinstance(free, dict):
        _fail(game, ".reset", "round needs options.free_games (the base game restarts at every spin)")
    if free.get("reels", "base") == "base":
        _fail(game, ".reset", "round needs options.free_games.reels to name a reel set of its own")
    if free.get("retrigger", True) and free.get("max_games") is None:
        _fail(
            game,
            ".reset",
            "round with retriggers needs options.free_games.max_games (the chain over games left "
            "is then finite)",
        )
    if board is not None and free["reels"] in board.reel_sets:
        _fail(game, ".reset", "round is not computed with multiplier_symbols in the free games")


def _draw_table(game: Game, value, field: str) -> tuple:
    """One table ``[[SYMBOL, weight], ...]``: (symbols, weights reduced by their gcd)."""
    if not isinstance(value, list) or not value:
        _fail(game, field, "must be a non-empty list of [SYMBOL, weight] pairs, e.g. [[A, 3], [B, 1]]")
    symbols, weights = [], []
    for i, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            _fail(game, f"{field}[{i}]", f"must be a pair [SYMBOL, weight], got {pair!r}")
        symbol, weight = pair
        if symbol not in game.symbol_index:
            _fail(game, f"{field}[{i}]", f"unknown symbol {symbol!r} (declare it under symbols)")
        if symbol in symbols:
            _fail(game, f"{field}[{i}]", f"symbol {symbol} is listed twice")
        if isinstance(weight, bool) or not isinstance(weight, int) or weight < 1:
            _fail(game, f"{field}[{i}]", f"the weight must be a positive whole number, got {weight!r}")
        symbols.append(symbol)
        weights.append(weight)
    g = gcd(*weights)
    return tuple(symbols), tuple(w // g for w in weights)


def _draws(game: Game, value, free_reels: str | None) -> dict:
    """Validate ``options.tumble.draws`` (``{REEL_SET: table}``, a table one
    list of ``[SYMBOL, weight]`` for every reel or a list of such lists, one
    per reel): a :class:`FreshDraws` for every reel set tumbles are played on."""
    played = ["base"] + ([free_reels] if free_reels is not None else [])
    if not isinstance(value, dict):
        _fail(game, ".draws", "must be a mapping {REEL_SET: [[SYMBOL, weight], ...]}")
    for name in value:
        if name not in played:
            _fail(game, f".draws.{name}", f"tumbles are played on reel sets {', '.join(played)} only")
    out = {}
    for name in played:
        field = f".draws.{name}"
        if name not in value:
            _fail(game, field, f"missing: reel set {name!r} plays tumbles and needs a draw table")
        table = value[name]
        per_reel = (
            isinstance(table, list)
            and bool(table)
            and all(isinstance(t, list) and bool(t) and all(isinstance(p, list) for p in t) for t in table)
        )
        if per_reel:
            if len(table) != game.reels:
                _fail(
                    game, field, f"lists {len(table)} tables; give one per reel ({game.reels}) or one for all"
                )
            tables = tuple(_draw_table(game, t, f"{field}[{r}]") for r, t in enumerate(table))
        else:
            tables = (_draw_table(game, table, field),) * game.reels
        out[name] = FreshDraws(tables)
    return out


def _board(game: Game, value, free_reels: str | None) -> BoardMultipliers:
    """Validate ``options.tumble.multiplier_symbols`` (``{symbol, values:
    [{value, weight}, ...], in: [base, free]}``)."""
    field = ".multiplier_symbols"
    if not isinstance(value, dict):
        _fail(game, field, "must be a mapping {symbol, values: [{value, weight}, ...], in: [base, free]}")
    for key in value:
        if key not in BOARD_KEYS:
            _fail(game, f"{field}.{key}", f"unknown key (allowed: {', '.join(BOARD_KEYS)})")
    symbol = value.get("symbol")
    if symbol not in game.symbol_index:
        _fail(game, f"{field}.symbol", f"unknown symbol {symbol!r} (declare it under symbols)")
    sym = game.symbols[game.symbol_index[symbol]]
    if sym.wild or sym.kind != "regular":
        _fail(game, f"{field}.symbol", f"{symbol} is a {sym.kind}; a multiplier symbol is a regular symbol")
    if any(symbol in pos for lp in game.line_pays for pos in lp.positions):
        _fail(game, f"{field}.symbol", f"{symbol} has a pay; a multiplier symbol pays nothing")
    if any(sp.symbol == symbol for sp in game.scatter_pays):
        _fail(game, f"{field}.symbol", f"{symbol} has a scatter pay; a multiplier symbol pays nothing")
    rows = value.get("values")
    if not isinstance(rows, list) or not rows:
        _fail(
            game,
            f"{field}.values",
            "must be a non-empty list of {value, weight}, e.g. [{value: 2, weight: 5}]",
        )
    values, weights = [], []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or set(row) != {"value", "weight"}:
            _fail(game, f"{field}.values[{i}]", f"must be a mapping {{value, weight}}, got {row!r}")
        for key in ("value", "weight"):
            x = row[key]
            if isinstance(x, bool) or not isinstance(x, int) or x < 1:
                _fail(game, f"{field}.values[{i}].{key}", f"must be a positive whole number, got {x!r}")
        if row["value"] in values:
            _fail(game, f"{field}.values[{i}].value", f"value {row['value']} is listed twice")
        values.append(row["value"])
        weights.append(row["weight"])
    where = value.get("in", ["base"] + (["free"] if free_reels is not None else []))
    if not isinstance(where, list) or not where or any(w not in BOARD_GAMES for w in where):
        _fail(game, f"{field}.in", f"must be a non-empty list of {' and '.join(BOARD_GAMES)}, got {where!r}")
    if "free" in where and free_reels is None:
        _fail(game, f"{field}.in", "names free but the game declares no options.free_games")
    if len(set(where)) == 1 and free_reels == "base":
        _fail(
            game,
            f"{field}.in",
            "needs options.free_games.reels to name a reel set of its own (multipliers are per reel set)",
        )
    reel_sets = tuple({"base": "base", "free": free_reels}[w] for w in where)
    persist = value.get("persist", False)
    if not isinstance(persist, bool):
        _fail(game, f"{field}.persist", f"must be true or false, got {persist!r}")
    if persist and (where != ["free"] or free_reels in (None, "base")):
        _fail(
            game,
            f"{field}.persist",
            "needs in: [free] and options.free_games.reels naming a reel set of its own "
            "(the total persists through the free games only)",
        )
    g = gcd(*weights)
    return BoardMultipliers(symbol, tuple(values), tuple(w // g for w in weights), reel_sets, persist)
