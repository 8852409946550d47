"""Wilds whose multiplier is drawn from a weighted table (``options.wild_multipliers``).

Declared under ``options:`` of a ``rules: lines`` game paid by lines or
ways (``pays_by: lines | ways``)::

    wild_multipliers: {symbol: W, table: [[2, 5], [3, 3], [5, 1]], combine: multiply}

Every ``W`` that lands in the window draws its own multiplier from
``table`` (``[multiplier, weight]`` rows), independently of the others; a
line's win is multiplied by the product of the multipliers of the wilds
counted on it (``combine: multiply``) or by their sum (``combine: add``;
no counted wild: x1).  Counted are the wilds the line engine counts: those
substituting in the winning combination, and in ``W``'s own pays the
natural ones when ``W`` declares ``multiply_own_pays``.  Another wild kind's
multiplier multiplies the product or the sum.  On a ways game the same
holds per way (one cell per reel of the symbol's run): its win is
multiplied by the product or the sum of the multipliers of the drawn wilds
on it.

The table's weights are reduced by their greatest common divisor.

Exact RTP (:mod:`slotmath.features.wilddraws`, no rewrite): on a line, a
symbol tuple paid by one entry whatever the draws has mean win ``pay x
E[M_k]`` (``k`` counted drawn wilds; ``k mu`` added, ``mu**k`` multiplied),
so the line RTP is linear in integer hit counts over the game's own cycle;
the tuples a draw decides are summed draw by draw.  On ways
(:mod:`slotmath.features.drawnways`) a way's mean multiplier is ``E[M_j]``
of its ``j`` drawn wilds, carried reel by reel as integer counts of ways
by ``j``.

Exact distribution (:func:`played_game`): the game is rewritten so that the
engine sees the draws as stops.  Each wild ``W`` becomes one wild symbol per multiplier
(``Wx2``, ``Wx3``, ... each ``per_wild`` its multiplier, substituting as
``W`` does and matching ``W``'s own pays; with ``add`` the variants are
:attr:`~slotmath.model.WildRule.summed` kinds, whose multipliers the line
and ways engines add); each stop ``s`` of a reel whose
window shows ``k`` wilds becomes one stop per assignment of multipliers to
them, its window written out (as :func:`~slotmath.features.expanding.nudged_strip`
does), weighted ``w_s x prod(table weights) x T^(kmax - k)`` (``T`` the
table's total weight, ``kmax`` the most wilds one window of that reel
shows), so every stop keeps its share of the reel.  The cycle grows by
``T^kmax`` per reel; the rewrite is refused (:func:`rewrite_refusal`,
:class:`~slotmath.engine.limits.EngineTooLarge`) when counts would leave
the int64 range of the engine (cycle x lines >= 2**62), or on ways with
``add`` when a way's sum takes more than
:data:`~slotmath.engine.limits.MAX_WAY_SUMS` values, the RTP staying
exact; the table is refused when a line's multiplier could reach 2**20
(the line engine's combination labels) or a spin's win 2**53 win units.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import product
from math import gcd

from slotmath.engine.cache import all_sets, game_cache
from slotmath.engine.payrule import pay_rule
from slotmath.errors import ensure
from slotmath.features.kinds import FeatureKind
from slotmath.features.reach import on_reels
from slotmath.features.tunables import inline_table
from slotmath.model import Game, Strip, Symbol, WildRule

__all__ = [
    "WildMultipliers",
    "COMBINE",
    "load_wild_multipliers",
    "drawn_symbols",
    "played_game",
    "rewrite_refusal",
    "variant_name",
]

#: keys of ``options.wild_multipliers``
KEYS = ("symbol", "table", "combine")
#: how the multipliers of the wilds on one line combine
COMBINE = ("multiply", "add")


@dataclass(frozen=True)
class WildMultipliers:
    """``symbol``'s multiplier table: ``((multiplier, weight), ...)``."""

    symbol: str
    table: tuple
    combine: str = "multiply"

    @property
    def total(self) -> int:
        return sum(w for _, w in self.table)

    @property
    def mean(self) -> Fraction:
        """Mean multiplier of one wild."""
        return Fraction(sum(m * w for m, w in self.table), self.total)


def variant_name(symbol: str, multiplier: int) -> str:
    """Name of the wild ``symbol`` carrying ``multiplier`` (e.g. ``Wx3``)."""
    return f"{symbol}x{multiplier}"


def load_wild_multipliers(game: Game) -> WildMultipliers | None:
    """Validate and return ``options.wild_multipliers`` (None when absent)."""
    if not game.options or "wild_multipliers" not in game.options:
        return None
    if isinstance(game.options["wild_multipliers"], WildMultipliers):  # a played game's
        return game.options["wild_multipliers"]
    return _load(game)


# keyed on the strips too: the checks (a feature that could never start) read them
@game_cache(all_sets, maxsize=32)
def _load(game: Game) -> WildMultipliers:
    from slotmath.features.declaration import Reader

    rd = Reader(game)
    w = "options.wild_multipliers"
    spec = rd.mapping(game.options["wild_multipliers"], w, KEYS, ("symbol", "table"))
    symbol = rd.symbol(spec["symbol"], f"{w}.symbol")
    sym = game.symbol(symbol)
    if sym.kind != "wild":
        rd.fail(f"{w}.symbol", f"{symbol!r} must be a wild symbol")
    if sym.wild is None or sym.wild.per_wild != 1 or sym.wild.by_count is not None:
        rd.fail(f"{w}.symbol", f"{symbol!r} already declares a multiplier under symbols; give one of them")
    if not on_reels(game, symbol):
        rd.fail(f"{w}.symbol", f"{symbol!r} is on no reel of any reel set: its multipliers are never drawn")
    combine = spec.get("combine", "multiply")
    if combine not in COMBINE:
        rd.fail(f"{w}.combine", f"must be one of {', '.join(COMBINE)}, got {combine!r}")
    refused = pay_rule(game).refusal(game)
    if refused is not None and refused[0] == w:
        rd.fail(w, refused[1])
    rows = spec["table"]
    if not isinstance(rows, list) or not rows:
        rd.fail(f"{w}.table", "must be a non-empty list of [multiplier, weight]")
    table: list[tuple[int, int]] = []
    for i, row in enumerate(rows):
        f = f"{w}.table[{i}]"
        if not isinstance(row, list) or len(row) != 2:
            rd.fail(f, "must be [multiplier, weight]")
        m = rd.number(row[0], f"{f}[0]", integer=True, positive=True)
        if m in (x for x, _ in table):
            rd.fail(f"{f}[0]", f"multiplier {m} is listed twice")
        if variant_name(symbol, m) in game.symbol_index:
            rd.fail(f"{f}[0]", f"the symbol name {variant_name(symbol, m)!r} is taken")
        table.append((m, rd.number(row[1], f"{f}[1]", integer=True, minimum=0)))
    if sum(x for _, x in table) == 0:
        rd.fail(f"{w}.table", "all weights are zero")
    common = gcd(*(x for _, x in table))  # the same law on the smallest whole weights
    table = [(m, x // common) for m, x in table]
    for lp in game.line_pays:
        if lp.anywhere == symbol:
            problem = f"pay {lp.name!r} counts {symbol} anywhere on a line: not played with drawn multipliers"
            rd.fail(w, problem)
    _refuse_triggers(rd, game, symbol)
    out = WildMultipliers(symbol, tuple((m, x) for m, x in table if x), combine)
    _check_range(rd, game, out)
    return out


#: line multipliers the engine's combination labels hold (``entry << 20 | multiplier``)
MAX_LINE_MULTIPLIER = 2**20


def _check_range(rd, game: Game, spec: WildMultipliers) -> None:
    """Refuse a table whose largest line multiplier (the top multiplier on
    every reel, times the other wilds' largest) leaves the line engine's
    labels, or whose largest win leaves the exact win units (on ways,
    :func:`_ways_bound`)."""
    from math import prod

    from slotmath.io.gamefile import check_top_win

    top, R = max(m for m, _ in spec.table), game.reels
    drawn = tuple(top**c if spec.combine == "multiply" else max(c * top, 1) for c in range(R + 1))
    kinds = [s.wild for s in game.symbols if s.wild and s.name != spec.symbol]
    top_line = drawn[-1] * prod(max(k.multiplier(c) for c in range(R + 1)) for k in kinds)
    where = "options.wild_multipliers.table"
    symbols: list = [
        replace(s, wild=replace(s.wild, by_count=drawn)) if s.name == spec.symbol else s for s in game.symbols
    ]
    spread = game.ways_or_lines
    if pay_rule(game).has_paylines:
        if top_line >= MAX_LINE_MULTIPLIER:
            rd.fail(where, f"a line's multiplier reaches {top_line:,}; the engine holds less than 2**20")
    else:  # no labels on ways: the largest win over every way
        symbols, spread = [], _ways_bound(game, spec, kinds)
    check_top_win(
        game.line_pays,
        game.scatter_pays,
        symbols,
        spread,
        game.bet_levels,
        lambda field, problem: rd.fail(where, problem),
    )


def _ways_bound(game: Game, spec: WildMultipliers, kinds: list) -> int:
    """A bound on a ways spin's win [coins per unit pay]: a way has one cell
    per reel, so each paying symbol wins at most ``(rows x the largest cell
    factor)**reels`` ways (a drawn wild's cell counts the top multiplier
    when multiplied, 1 when added), times the ``by_count`` wilds' largest
    multipliers and the largest added sum (``reels x`` the top multiplier)
    -- the ways engine's own bound on the rewritten game."""
    from math import prod

    top, R = max(m for m, _ in spec.table), game.reels
    multiplied = spec.combine == "multiply"
    cell = max([top if multiplied else 1] + [k.per_wild for k in kinds if k.by_count is None])
    by_count = prod(max(k.by_count) for k in kinds if k.by_count is not None)
    paying = len({next(iter(lp.positions[0])) for lp in game.line_pays})
    return (game.rows * cell) ** R * by_count * (1 if multiplied else R * top) * paying


def _refuse_triggers(rd, game: Game, symbol: str) -> None:
    """A feature triggered (or expanded) by the multiplier wild would miss its
    variants.  A hold-and-spin is played beside: its coins are not wilds (its
    loader refuses that), and the rewrite keeps every stop's coin pattern and
    its share of the reel, so the trigger keys, the respin landing and the
    joint law of (line win, key) are the game's."""
    opts = game.options
    fields_of = {"free_games": ("symbol", "nudge", "sticky"), "wheel": ("symbol",), "selection": ("symbol",)}
    for key, fields in fields_of.items():
        spec = opts.get(key)
        for f in fields:
            if isinstance(spec, dict) and spec.get(f) == symbol:
                rd.fail(f"options.{key}.{f}", f"{symbol!r} has drawn multipliers (options.wild_multipliers)")


def played_game(game: Game) -> Game:
    """``game`` with its drawn wild multipliers written into symbols and
    stops (see the module notes); ``game`` itself when it declares none or
    is played already (its ``options.wild_multipliers`` is then the parsed
    :class:`WildMultipliers`, which no game file can give)."""
    if not game.options or isinstance(game.options.get("wild_multipliers"), WildMultipliers):
        return game
    if load_wild_multipliers(game) is None:
        return game
    return _rewrite(game)


def rewrite_refusal(game: Game) -> str | None:
    """Why the rewrite of :func:`played_game` leaves the engine's counts
    (cycle x lines >= 2**62 or a stop weight >= 2**32 on some reel set; on
    ways with ``add``, a way's sum of more than
    :data:`~slotmath.engine.limits.MAX_WAY_SUMS` values), or None when it
    fits; computed from the windows in Python integers."""
    from slotmath.engine.limits import MAX_WAY_SUMS
    from slotmath.io.gamefile import EXACT_LIMIT, MAX_WEIGHT

    spec = load_wild_multipliers(game)
    ensure(spec is not None, "wildmult.py: expected spec is not None")
    sums = game.reels * max(m for m, _ in spec.table) + 1
    if spec.combine == "add" and not pay_rule(game).has_paylines and sums > MAX_WAY_SUMS:
        return (
            f"a way's added multipliers take up to {sums:,} values (0 to {game.reels} x the largest); "
            f"the ways engine's state carries at most {MAX_WAY_SUMS:,}"
        )
    top = max(w for _, w in spec.table)
    for name, strips in game.reel_sets.items():
        cycle, heaviest = 1, 0
        for strip in strips:
            n, H = len(strip.symbols), game.rows
            ks = [[strip.symbols[(s + k) % n] for k in range(H)].count(spec.symbol) for s in range(n)]
            kmax = max(ks)
            cycle *= strip.total_weight * spec.total**kmax
            weights = strip.weights if strip.weights is not None else (1,) * n
            heaviest = max(
                heaviest, *(w * top**k * spec.total ** (kmax - k) for w, k in zip(weights, ks, strict=True))
            )
        if cycle * max(len(game.paylines), 1) >= EXACT_LIMIT or heaviest >= MAX_WEIGHT:
            return (
                f"reel set {name!r} with its drawn multipliers written as stops has cycle {cycle:.4g} "
                f"(largest stop weight {heaviest:.4g}); the engine's counts need cycle x lines < 2**62 "
                "and weights < 2**32"
            )
    return None


@game_cache(maxsize=8)
def _rewrite(game: Game) -> Game:
    from slotmath.engine.limits import EngineTooLarge

    spec = load_wild_multipliers(game)
    ensure(spec is not None, "wildmult.py: expected spec is not None")
    refusal = rewrite_refusal(game)
    if refusal is not None:
        raise EngineTooLarge(refusal, file=game.source or game.name, field="options.wild_multipliers.table")
    variants = drawn_symbols(game)
    sets = {name: tuple(_strip(game, s, spec) for s in strips) for name, strips in game.reel_sets.items()}
    return replace(variants, reel_sets=sets)


@game_cache(maxsize=8)
def drawn_symbols(game: Game) -> Game:
    """``game`` with one wild symbol per drawn multiplier (``Wx2``, ``Wx3``,
    ...; see the module notes), its pays matching them as they match ``W``,
    and its strips as declared: the game the compiled sampler plays, writing
    each wild's draw into its cell of the window
    (:func:`slotmath.montecarlo.linesim.draw_wilds`).  Its
    ``options.wild_multipliers`` is the parsed table."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "wildmult.py: expected spec is not None")
    w = spec.symbol
    names = {variant_name(w, m) for m, _ in spec.table}

    def widen(allowed: frozenset) -> frozenset:
        return allowed | names if w in allowed else allowed

    wild = game.symbol(w).wild
    ensure(wild is not None, "wildmult.py: expected wild is not None")
    symbols = [
        replace(s, wild=replace(s.wild, substitutes=widen(s.wild.substitutes))) if s.wild else s
        for s in game.symbols
    ]
    summed = spec.combine == "add"
    rule = WildRule(widen(wild.substitutes), 1, None, wild.multiply_own_pays, summed)
    symbols += [Symbol(variant_name(w, m), "wild", replace(rule, per_wild=m)) for m, _ in spec.table]
    pays = tuple(replace(lp, positions=tuple(widen(p) for p in lp.positions)) for lp in game.line_pays)
    options = {**game.options, "wild_multipliers": spec}
    return replace(game, symbols=tuple(symbols), line_pays=pays, options=options)


def _strip(game: Game, strip: Strip, spec: WildMultipliers) -> Strip:
    """The weighted strip whose windows are ``strip``'s with every wild's multiplier drawn."""
    H, n = game.rows, len(strip.symbols)
    syms, weights = strip.symbols, strip.stop_weights().tolist()
    windows = [[syms[(s + k) % n] for k in range(H)] for s in range(n)]
    kmax = max(win.count(spec.symbol) for win in windows)
    if kmax == 0:
        return strip
    out_syms, out_weights = [], []
    for s, win in enumerate(windows):
        at = [k for k, x in enumerate(win) if x == spec.symbol]
        for draw in product(spec.table, repeat=len(at)):
            shown = list(win)
            weight = weights[s] * spec.total ** (kmax - len(at))
            for k, (m, x) in zip(at, draw, strict=True):
                shown[k] = variant_name(spec.symbol, m)
                weight *= x
            out_syms += shown
            out_weights += [weight] + [0] * (H - 1)
    return Strip(tuple(out_syms), tuple(out_weights))


def _wild_tunables(game: Game) -> tuple:
    """The multiplier table: it moves the line (or ways) pays and the free
    games' (the wilds are drawn on every reel set); a pay multiplied by
    ``k`` drawn multipliers is of degree ``k`` in the draw probabilities
    (at most one wild per reel counted on a line or way), a sum of them of
    degree 1."""
    spec = load_wild_multipliers(game)
    degree = game.reels if spec.combine == "multiply" else 1
    from slotmath.engine.payrule import pay_rule

    pays = pay_rule(game).channel  # drawn multipliers play on lines or ways only
    moves = (pays, "free_games") if "free_games" in game.options else (pays,)
    found = inline_table(game.options, ("wild_multipliers", "table"), moves, degree)
    return () if found is None else (found,)


#: the feature object (slotmath.features.registry): its exact method is the
#: rules' (the draws written into the stops, or the drawn-line figures)
WILD_MULTIPLIERS = FeatureKind(
    key="wild_multipliers",
    title="drawn wild multipliers",
    parse=load_wild_multipliers,
    check=load_wild_multipliers,
    in_free_games=lambda game: True,  # drawn on whichever reel set shows the wild
    tunables=_wild_tunables,
    example="tests/data/tune_wildmult/game.yaml",
    schema={
        "type": "object",
        "description": "Wilds whose multiplier is drawn from a weighted table (rules: lines, "
        "paid by lines or ways): docs/features.md.",
        "additionalProperties": False,
        "properties": {
            "symbol": {},
            "table": {
                "description": "[[multiplier, weight], ...]: whole multipliers >= 1, "
                "whole weights >= 0 of any size (reduced by their "
                "greatest common divisor)."
            },
            "combine": {
                "enum": ["multiply", "add"],
                "default": "multiply",
                "description": "How the drawn multipliers of the wilds on one line "
                "(or way) combine: their product (multiply) or their sum "
                "(add).",
            },
        },
    },
)
