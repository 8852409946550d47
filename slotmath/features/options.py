"""Feature declarations of a game file, turned into engine objects.

A game file may declare, under ``options:``, engine features that any rules
module can use:

``lockit``
    hold & respin feature (:mod:`slotmath.features.lockit`): which symbols are held,
    which of them carry a mark (e.g. a WHEEL), the trigger count, the spin
    rule, the rectangle shapes paid at the end (:mod:`slotmath.features.shapes`), the
    weighted award table of every shape, and one entry per *source* (where
    the feature was triggered from: spins, respin reel sets, award table).
``free_games``
    free games (:mod:`slotmath.features.freegames`): the scatter symbol, the games
    and prize [x total bet] awarded by each count, retriggers, the reel set,
    the multiplier, an optional expanding (nudging) wild, an optional sticky
    wild (:mod:`slotmath.features.sticky`)
    (:mod:`slotmath.features.freeround` plays them in the round of ``rules:
    lines``; :mod:`slotmath.testing.freetable` lists a small free-game cycle).
``selection``
    a feature selection: a scatter count pays a prize and offers a choice
    between features (lock-it with given spins and awards, or free games).
``wheel``
    a weighted prize wheel (:mod:`slotmath.features.wheel`).
``jackpots``
    named prizes that award tables and wheels may list (fixed or progressive).

The schema of every section is in ``docs/features.md``; :func:`load_features`
validates it and raises :class:`~slotmath.io.gamefile.GameFileError` naming the
field.  Award tables may sit in a CSV file beside the game file with columns
``table, level, shape, award, weight`` (``award`` a number [x total bet] or a
jackpot name).

A classic free-games game ("3+ scatters give N free spins at x M,
retriggerable, on the same reels") needs only::

    options:
      free_games:
        symbol: SCATTER
        reels: base
        multiplier: 3
        awards: {3: {games: 10}}
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from slotmath.engine.cache import all_sets, game_cache
from slotmath.engine.limits import MAX_DRAW
from slotmath.features.cost import (
    denominators_problem,
    draw_weights,
    games_problem,
    games_problem_of,
    lockit_problem,
    sci,
)
from slotmath.features.declaration import ORDERS, Reader, is_number
from slotmath.features.kinds import FeatureKind
from slotmath.features.progressive import read_jackpots
from slotmath.features.reach import reach_problem
from slotmath.features.round import Trigger, cap_note
from slotmath.features.wheel import WheelSpec
from slotmath.io.gamefile import GameFileError, named_file
from slotmath.model import Game

__all__ = [
    "Award",
    "AwardTables",
    "LockItSource",
    "LockItSpec",
    "FreeGamesSpec",
    "SelectionOption",
    "SelectionSpec",
    "Features",
    "load_features",
    "window_pattern_counts",
    "feature_landing",
    "lockit_chain",
    "shape_counts",
]


# ===========================================================================
# declarations
# ===========================================================================
@dataclass(frozen=True)
class Award:
    """One entry of a weighted award table: ``value`` [x total bet], its
    ``weight`` and ``label`` (a jackpot name or the value as text)."""

    value: Fraction
    weight: int
    label: str


@dataclass(frozen=True)
class AwardTables:
    """Weighted shape awards: ``tables[name][level][shape]`` -> tuple of :class:`Award`."""

    tables: dict

    def table(self, name: str, level: int) -> tuple:
        """Per shape, its awards for table ``name`` at bet ``level``."""
        return self.tables[name][level]

    def moments(self, name: str, level: int):
        """Per shape mean [x total bet] and second moment as Fractions."""
        m1, m2 = [], []
        for awards in self.table(name, level):
            total = sum(a.weight for a in awards)
            m1.append(sum(a.value * a.weight for a in awards) / total)
            m2.append(sum(a.value**2 * a.weight for a in awards) / total)
        return m1, m2

    def distributions(self, name: str, level: int, unit: Fraction = Fraction(1)) -> list:
        """Per shape the award distribution on the grid of ``unit`` [x total bet]:
        ``p[j]`` = P(award = j * unit) [probability]."""
        out = []
        for awards in self.table(name, level):
            total = sum(a.weight for a in awards)
            top = max(int(a.value / unit) for a in awards)
            p = np.zeros(top + 1)
            for a in awards:
                j = a.value / unit
                if j.denominator != 1:
                    raise ValueError(f"award {a.value} is not a multiple of {unit}")
                p[int(j)] += a.weight / total
            out.append(p)
        return out


@dataclass(frozen=True)
class LockItSource:
    """Where a lock-it feature comes from and how it plays from there.

    ``reels``: respin reel set while no mark is on screen; ``after_mark``:
    reel set once a mark is on screen (None: the same); ``awards``: award
    table name; ``mark_award``: True when a mark on screen at the end pays
    the declared mark award (the wheel)."""

    name: str
    spins: int
    reels: str
    after_mark: str | None
    awards: str
    mark_award: bool = True


@dataclass(frozen=True)
class LockItSpec:
    """A declared lock-it feature (see the module docstring)."""

    symbols: tuple
    mark: str | None
    trigger: int
    rule: str
    shapes: tuple
    shape_names: tuple
    order: str
    packing: str
    sources: dict
    awards: AwardTables
    mark_award: str | None
    in_free_games: bool = False

    def reel_sets(self) -> set:
        """The reel sets the lock-it respins on: each source's ``reels`` and ``after_mark``."""
        return {r for source in self.sources.values() for r in (source.reels, source.after_mark) if r}


@dataclass(frozen=True)
class FreeGamesSpec:
    """Declared free games: ``awards[count] = (prize [x total bet], games)``;
    ``multipliers[count]`` the multiplier of the feature that count starts
    (None: ``multiplier`` for every count); ``trigger_reels`` the reels (0 =
    reel 1) that must each show the trigger symbol, in the base game and for
    a retrigger (None: a count anywhere)."""

    symbol: str
    reels: str
    multiplier: Fraction
    awards: dict
    retrigger: bool = True
    nudge: str | None = None
    max_games: int | None = None
    scatter_pays: bool = True
    retrigger_awards: dict | None = None
    sticky: str | None = None
    multipliers: dict | None = None
    trigger_reels: tuple | None = None
    reels_by_count: dict | None = None
    trigger_lines: tuple | None = None

    @property
    def trigger(self) -> Trigger:
        """The window's key: the trigger symbol's count, per reel under a reel
        condition, its rows per reel for a count on a payline."""
        if self.trigger_lines is not None:
            return Trigger(self.symbol, per_reel=True, rows=True)
        return Trigger(self.symbol, per_reel=self.trigger_reels is not None)

    def reel_sets(self) -> set:
        """The reel sets the free games play: their own and each trigger count's."""
        return {self.reels} | set((self.reels_by_count or {}).values())

    def reels_of(self, count: int) -> str:
        """Reel set of the free games ``count`` scatters start (``awards.<count>.reels``,
        else :attr:`reels`); a retrigger keeps the running feature's set."""
        if self.reels_by_count is None:
            return self.reels
        return _lookup({c: (r, 0) for c, r in self.reels_by_count.items()}, count)[0] or self.reels

    def playing(self, reels: str) -> FreeGamesSpec:
        """These free games played on reel set ``reels`` alone (no set by count)."""
        return replace(self, reels=reels, reels_by_count=None)

    def count_of(self, key) -> int:
        """The count a key of :attr:`trigger` awards by: the key itself, or
        under a reel condition the total count when every listed reel shows the
        symbol and 0 otherwise."""
        if self.trigger_lines is not None:
            return line_run(key, self.trigger_lines)
        if self.trigger_reels is None:
            return key
        return sum(key) if all(key[r] for r in self.trigger_reels) else 0

    def window_count(self, key) -> int:
        """The trigger symbols a key of :attr:`trigger` shows in the window."""
        if isinstance(key, int):
            return key
        if self.trigger_lines is not None:
            return sum(bin(k).count("1") for k in key)
        return sum(key)

    def multiplier_of(self, count: int):
        """Multiplier of the free games ``count`` scatters start (the award used
        by :meth:`games`; a retrigger adds games at the running multiplier)."""
        if self.multipliers is None:
            return self.multiplier
        return _lookup({c: (m, 0) for c, m in self.multipliers.items()}, count)[0] or self.multiplier

    def games(self, count: int) -> int:
        """Games awarded by ``count`` scatters (the highest listed count not above it)."""
        return _lookup(self.awards, count)[1]

    def prize(self, count: int) -> Fraction:
        """Prize [x total bet] for ``count`` scatters."""
        return _lookup(self.awards, count)[0]

    def retrigger_games(self, count: int) -> int:
        """Games added by ``count`` scatters during free games (``retrigger_awards``,
        default ``awards``; 0 without retriggers)."""
        return _lookup(self.retrigger_awards or self.awards, count)[1] if self.retrigger else 0

    def retrigger_prize(self, count: int) -> Fraction:
        """Prize [x total bet] of ``count`` scatters during free games."""
        return _lookup(self.retrigger_awards or self.awards, count)[0]

    @property
    def min_count(self) -> int:
        return min(self.awards)


def line_run(rows: tuple, lines: tuple) -> int:
    """The longest run of a symbol from the leftmost reel along any of
    ``lines`` (each a row per reel), ``rows[r]`` the rows of reel ``r``
    showing it (bit k: row k)."""
    best = 0
    for line in lines:
        n = 0
        while n < len(line) and rows[n] >> line[n] & 1:
            n += 1
        best = max(best, n)
    return best


def _lookup(awards: dict, count: int) -> tuple:
    """``(prize, games)`` of the highest listed count not above ``count``."""
    best = (Fraction(0), 0)
    for c in sorted(awards):
        if c <= count:
            best = awards[c]
    return best


@dataclass(frozen=True)
class SelectionOption:
    """What ``count`` selection symbols award: a prize and the two choices."""

    count: int
    prize: Fraction
    lockit_spins: int
    lockit_awards: str
    free_games: int


@dataclass(frozen=True)
class SelectionSpec:
    """Declared feature selection: ``options[count]`` -> :class:`SelectionOption`."""

    symbol: str
    options: dict
    lockit_source: str

    def option(self, count: int) -> SelectionOption | None:
        best = None
        for c in sorted(self.options):
            if c <= count:
                best = self.options[c]
        return best

    @property
    def min_count(self) -> int:
        return min(self.options)


@dataclass(frozen=True)
class Features:
    """Every feature a game file declares (None where absent); a progressive's coin value is 0."""

    jackpots: dict = field(default_factory=dict)
    lockit: LockItSpec | None = None
    free_games: FreeGamesSpec | None = None
    selection: SelectionSpec | None = None
    wheel: WheelSpec | None = None
    round_cap: Fraction | None = None
    progressive: dict = field(default_factory=dict)  # {name: progressive.ProgressiveJackpot}

    def played(self) -> list:
        """The declared features a spin plays beyond the base window's pays (free games, lock-it)."""
        return [f for f in (self.free_games, self.lockit) if f is not None]


# ===========================================================================
# parsing
# ===========================================================================
#: the refusal of free games that no trigger awards and no selection choice starts
UNAWARDED_FREE_GAMES = (
    "options.free_games.awards",
    "is required (free games without awards are a selection choice's)",
)


def plays_prizes(game: Game) -> bool:
    """True when ``options.wheel`` or ``options.selection`` are round features
    of their own; beside a ``lockit``, ``options.wheel`` is the lock-it's mark
    award (and a selection is refused)."""
    opts = game.options or {}
    return "lockit" not in opts and any(k in opts for k in ("wheel", "selection"))


def load_features(game: Game) -> Features:
    """Validate and return the features ``game`` declares under ``options:``
    (the registry's keys, :mod:`slotmath.features.registry`; other keys are
    left to the game's rules)."""
    return _load_features(game)


# keyed on the strips too: the checks (a feature that could never start) read them
@game_cache(all_sets, maxsize=32)
def _load_features(game: Game) -> Features:
    rd = Reader(game)
    opts = game.options or {}
    rd.mapping(opts, "options")  # keys of no feature are the rules' own (see Rules.check)
    jackpots, progressive = read_jackpots(rd, opts)
    lockit = _lockit(rd, opts["lockit"], jackpots) if "lockit" in opts else None
    free = _free_games(rd, opts["free_games"]) if "free_games" in opts else None
    # beside a lock-it, the wheel and selection are the lock-it's (its mark award and
    # choices, read here); otherwise they are the round's prizes (slotmath.features.prizes)
    of_lockit = lockit is not None
    selection = _selection(rd, opts["selection"], lockit, free) if "selection" in opts and of_lockit else None
    wheel = read_wheel(rd, opts["wheel"], jackpots) if "wheel" in opts and of_lockit else None
    if "hold_and_spin" in opts:  # read by slotmath.features.holdspin (load_hold_and_spin)
        from slotmath.features.holdspin import load_hold_and_spin

        load_hold_and_spin(game)
    if lockit is not None and lockit.mark_award == "wheel" and wheel is None:
        rd.fail("options.lockit.mark_award", "is 'wheel' but options.wheel is not declared")
    cap = rd.amount(opts["round_cap"], "options.round_cap", positive=True) if "round_cap" in opts else None
    if progressive and "round_cap" in opts:
        rd.fail(
            "options.round_cap",
            "cannot be combined with a progressive jackpot (its return is not a coin win)",
        )
    return Features(jackpots, lockit, free, selection, wheel, cap, progressive)


SHAPE_KEYS = (
    "symbols",
    "mark",
    "trigger",
    "rule",
    "shapes",
    "order",
    "packing",
    "awards",
    "mark_award",
    "sources",
    "in_free_games",
)


def _lockit(rd: Reader, spec, jackpots) -> LockItSpec:
    from slotmath.features.lockit import RULES

    w = "options.lockit"
    rd.mapping(spec, w, SHAPE_KEYS, ("symbols", "trigger", "shapes", "awards", "sources"))
    syms = spec["symbols"]
    if not isinstance(syms, list) or not syms:
        rd.fail(f"{w}.symbols", "must be a non-empty list of symbols")
    symbols = tuple(rd.symbol(s, f"{w}.symbols[{i}]") for i, s in enumerate(syms))
    mark = spec.get("mark")
    if mark is not None:
        rd.symbol(mark, f"{w}.mark")
        if mark not in symbols:
            rd.fail(f"{w}.mark", f"{mark!r} must be one of the held symbols {list(symbols)}")
    trigger = rd.number(spec["trigger"], f"{w}.trigger", integer=True, positive=True)
    rule = spec.get("rule", "countdown")
    if rule not in RULES:
        rd.fail(f"{w}.rule", f"must be one of {', '.join(RULES)}, got {rule!r}")
    order = spec.get("order", "reel-major")
    if order not in ORDERS:
        rd.fail(f"{w}.order", f"must be one of {', '.join(ORDERS)}, got {order!r}")
    packing = spec.get("packing", "greedy")
    if packing not in ("greedy", "optimal"):
        rd.fail(f"{w}.packing", f"must be 'greedy' or 'optimal', got {packing!r}")
    shapes = []
    if not isinstance(spec["shapes"], list) or not spec["shapes"]:
        rd.fail(f"{w}.shapes", "must be a non-empty list of [rows, reels]")
    for i, s in enumerate(spec["shapes"]):
        if (
            not isinstance(s, list)
            or len(s) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in s)
        ):
            rd.fail(f"{w}.shapes[{i}]", f"must be [rows, reels] with positive whole numbers, got {s!r}")
        if s[0] > rd.game.rows or s[1] > rd.game.reels:
            rd.fail(
                f"{w}.shapes[{i}]",
                f"{s[0]} rows x {s[1]} reels do not fit the {rd.game.reels}x{rd.game.rows} grid",
            )
        if tuple(s) in shapes:
            rd.fail(f"{w}.shapes[{i}]", f"shape {s[0]}x{s[1]} is listed twice")
        shapes.append(tuple(s))
    if (1, 1) not in shapes:
        rd.fail(f"{w}.shapes", "must include [1, 1] so that every held symbol is in a shape")
    names = tuple(f"{r}x{c}" for r, c in shapes)
    mark_award = spec.get("mark_award")
    if mark_award not in (None, "wheel"):
        rd.fail(f"{w}.mark_award", f"must be 'wheel' or absent, got {mark_award!r}")
    awards = _award_tables(rd, spec["awards"], f"{w}.awards", names, jackpots)
    sources = {}
    rd.mapping(spec["sources"], f"{w}.sources")
    for name, src in spec["sources"].items():
        f = f"{w}.sources.{name}"
        rd.mapping(
            src, f, ("spins", "reels", "after_mark", "awards", "mark_award"), ("spins", "reels", "awards")
        )
        spins = rd.number(src["spins"], f"{f}.spins", integer=True, positive=True)
        reels = rd.reel_set(src["reels"], f"{f}.reels")
        after = src.get("after_mark")
        if after is not None:
            rd.reel_set(after, f"{f}.after_mark")
        table = src["awards"]
        if table not in awards.tables:
            rd.fail(f"{f}.awards", f"unknown award table {table!r} (tables: {', '.join(awards.tables)})")
        paid = src.get("mark_award", True)
        if not isinstance(paid, bool):
            rd.fail(f"{f}.mark_award", "must be true or false")
        rd.check(lockit_problem(rd.game.reels * rd.game.rows, spins, rule, f"{f}.spins"))
        sources[str(name)] = LockItSource(str(name), spins, reels, after, table, paid)
    in_free = spec.get("in_free_games", False)
    if not isinstance(in_free, bool):
        rd.fail(f"{w}.in_free_games", f"must be true or false, got {str(in_free)[:40]!r}")
    return LockItSpec(
        symbols,
        mark,
        trigger,
        rule,
        tuple(shapes),
        names,
        order,
        packing,
        sources,
        awards,
        mark_award,
        in_free,
    )


AWARD_COLUMNS = ["table", "level", "shape", "award", "weight"]


def _award_csv_rows(path: Path) -> list:
    """Rows ``(where, table, level, shape, award, weight)`` of an award CSV."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            table = list(csv.reader(fh))
    except UnicodeDecodeError as exc:
        raise GameFileError(path, "", f"cannot read CSV: not UTF-8 text (byte {exc.start})") from None
    except (OSError, csv.Error) as exc:
        raise GameFileError(path, "", f"cannot read CSV: {' '.join(str(exc).split())[:200]}") from None
    if not table or [h.strip() for h in table[0]] != AWARD_COLUMNS:
        raise GameFileError(path, "header", "must be: " + ",".join(AWARD_COLUMNS))
    rows = []
    for i, row in enumerate(table[1:]):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(AWARD_COLUMNS):
            raise GameFileError(
                path,
                f"line {i + 2}",
                f"has {len(row)} cells, expected {len(AWARD_COLUMNS)} ({','.join(AWARD_COLUMNS)})",
            )
        rows.append((f"line {i + 2}", *(c.strip() for c in row)))
    return rows


def _award_tables(rd: Reader, spec, where, shape_names, jackpots) -> AwardTables:
    """Award tables inline (``{table: {level: {shape: [[award, weight], ...]}}}``)
    or from a CSV file (``table, level, shape, award, weight``)."""
    levels = rd.game.levels
    rows = []  # (where, table, level, shape, award, weight)
    if isinstance(spec, str):
        path = named_file(Path(rd.game.source), spec, where)  # inside the folder, size checked
        rows = _award_csv_rows(path)
        fail_file = path
    else:
        rd.mapping(spec, where)
        for table, by_level in spec.items():
            rd.mapping(by_level, f"{where}.{table}")
            for level, by_shape in by_level.items():
                rd.mapping(by_shape, f"{where}.{table}.{level}")
                for shape, entries in by_shape.items():
                    f = f"{where}.{table}.{level}.{shape}"
                    if not isinstance(entries, list):
                        rd.fail(f, "must be a list of [award, weight]")
                    for j, e in enumerate(entries):
                        if not isinstance(e, list) or len(e) != 2:
                            rd.fail(f"{f}[{j}]", "must be [award, weight]")
                        rows.append((f"{f}[{j}]", str(table), str(level), str(shape), str(e[0]), str(e[1])))
        fail_file = rd.game.source
    tables: dict = {}
    for at, table, level, shape, award, weight in rows:

        def bad(problem, at=at):
            raise GameFileError(fail_file, at, problem)

        if not (level.isascii() and level.isdigit()) or len(level) > 12 or int(level) not in levels:
            bad(f"level {level[:40]!r} is not a bet level of the game ({levels})")
        if shape not in shape_names:
            bad(f"unknown shape {shape[:40]!r} (shapes: {', '.join(shape_names)})")
        if award in jackpots:
            value, label = jackpots[award], award
        elif len(award) > 30 or len(weight) > 12:
            bad("award or weight has too many characters (awards up to 30, weights up to 12)")
        elif award.isascii() and award.isdigit():  # the common case, fast
            value, label = Fraction(int(award)), award
        elif is_number(award) and Fraction(award) >= 0:
            value, label = Fraction(award), award
        else:
            bad(f"award {award[:40]!r} is neither a number nor a jackpot ({', '.join(jackpots) or 'none'})")
        if not (weight.isascii() and weight.isdigit()):
            bad(f"weight {weight[:40]!r} must be a whole number >= 0")
        entry = tables.setdefault(table, {}).setdefault(int(level), {}).setdefault(shape, [])
        entry.append(Award(value, int(weight), label))
    out = {}
    for table, by_level in tables.items():
        out[table] = {}
        for level in levels:
            if level not in by_level:
                rd.fail(where, f"award table {table!r} has no entries for bet level {level}")
            per_shape = []
            for s in shape_names:
                awards = by_level[level].get(s)
                if not awards or sum(a.weight for a in awards) == 0:
                    rd.fail(
                        where,
                        f"award table {table!r}, level {level}: shape {s} has no "
                        "award with a positive weight",
                    )
                per_shape.append(tuple(awards))
            out[table][level] = tuple(per_shape)
    if not out:
        rd.fail(where, "no award tables")
    return AwardTables(out)


def _free_games(rd: Reader, spec) -> FreeGamesSpec:
    w = "options.free_games"
    # free games without awards are started only by a selection choice (the rules check it)
    rd.mapping(spec, w, FREE_GAMES_KEYS, ("symbol", "reels"))
    symbol = rd.symbol(spec["symbol"], f"{w}.symbol")
    reels = rd.reel_set(spec["reels"], f"{w}.reels")
    held = rd.game.options.get("hold_and_spin")
    if (
        reels != "base"
        and isinstance(held, dict)
        and held.get("reels") == reels
        and not held.get("in_free_games")
    ):
        # its coins would show in free games and never pay (the hold-and-spin is not played there)
        rd.fail(
            f"{w}.reels",
            f"reel set {reels!r} is the hold-and-spin's respin set (options.hold_and_spin.reels), and the "
            "hold-and-spin is not played in free games: give the free games a reel set of their own",
        )
    mult = rd.amount(spec.get("multiplier", 1), f"{w}.multiplier", positive=True)
    awards = _games_awards(rd, spec["awards"], f"{w}.awards", by_count=True) if "awards" in spec else {}
    own = {
        c: rd.amount(_entry(spec["awards"], c)["multiplier"], f"{w}.awards.{c}.multiplier", positive=True)
        for c in awards
        if "multiplier" in _entry(spec["awards"], c)
    }
    mults = {c: own.get(c, mult) for c in awards} if own else None
    own_sets = {
        c: rd.reel_set(_entry(spec["awards"], c)["reels"], f"{w}.awards.{c}.reels")
        for c in awards
        if "reels" in _entry(spec["awards"], c)
    }
    sets = {c: own_sets.get(c, reels) for c in awards} if own_sets else None
    if sets is not None and spec.get("sticky") is not None:
        rd.fail(f"{w}.sticky", "is not computed with a reel set per trigger count (awards.<count>.reels)")
    again = spec.get("retrigger_awards")
    again = None if again is None else _games_awards(rd, again, f"{w}.retrigger_awards", zero=True)
    retrigger = spec.get("retrigger", True)
    if not isinstance(retrigger, bool):
        rd.fail(f"{w}.retrigger", "must be true or false")
    if again is not None and not retrigger:
        rd.fail(f"{w}.retrigger_awards", "is given but retrigger is false")
    scatter_pays = spec.get("scatter_pays", True)
    if not isinstance(scatter_pays, bool):
        rd.fail(f"{w}.scatter_pays", "must be true or false")
    nudge = spec.get("nudge")
    if nudge is not None:
        rd.symbol(nudge, f"{w}.nudge")
        if rd.game.symbol(nudge).kind != "wild":
            rd.fail(f"{w}.nudge", f"{nudge!r} must be a wild symbol")
    cap = spec.get("max_games")
    if cap is not None:
        cap = rd.number(cap, f"{w}.max_games", integer=True, positive=True)
    sticky = _sticky(rd, spec.get("sticky"), reels, nudge, retrigger, cap)
    on_line = _trigger_line(rd, spec.get("trigger"), awards, sticky)
    on_reels = (
        None if on_line is not None else _trigger_reels(rd, spec.get("trigger"), symbol, awards, sticky)
    )
    if awards:
        rd.check(
            reach_problem(rd.game, symbol, [(f"{w}.awards.{c}", c) for c in awards], w, "the free games")
        )
    if again:  # retriggers are played on the free reels (each count's set when it has one)
        at = f"{w}.retrigger_awards"
        found = [
            reach_problem(rd.game, symbol, [(f"{at}.{c}", c) for c in again], w, "the retrigger", rs, at)
            for rs in dict.fromkeys([reels, *(sets or {}).values()])
        ]
        rd.check(None if None in found else found[0])
    if cap is not None:
        most = max(g for _, g in list(awards.values()) + list((again or {}).values()) + [(0, 0)])
        rd.check(games_problem(cap, most, rd.game.reels * rd.game.rows, sticky is not None), f"{w}.max_games")
    if nudge is not None and not any(nudge in st.symbols for st in rd.game.strips(reels)):
        rd.fail(f"{w}.nudge", f"{nudge!r} is on no reel of the free reel set {reels!r}: it never expands")
    return FreeGamesSpec(
        symbol,
        reels,
        mult,
        awards,
        retrigger,
        nudge,
        cap,
        scatter_pays,
        again,
        sticky,
        mults,
        on_reels,
        sets,
        on_line,
    )


def _entry(awards, count: int):
    """The raw award entry of ``count`` (keys read as numbers or text)."""
    for k, v in awards.items():
        if str(k) == str(count):
            return v
    return {}


def _trigger_line(rd: Reader, trigger, awards: dict, sticky) -> tuple | None:
    """The paylines of ``options.free_games.trigger: {payline: true}`` (the
    count a run from the leftmost reel on a payline), None when absent."""
    w = "options.free_games.trigger"
    if not isinstance(trigger, dict) or "payline" not in trigger:
        return None
    rd.mapping(trigger, w, ("payline",), ("payline",))
    if trigger["payline"] is not True:
        rd.fail(f"{w}.payline", "must be true (a count on a payline from the leftmost reel)")
    if not rd.game.reads_paylines:
        rd.fail(f"{w}.payline", f"needs paylines (pays_by: lines), the game pays by {rd.game.pays_by}")
    if sticky is not None:
        rd.fail(w, "a count on a payline is not computed with a sticky wild")
    for c in awards:
        if c > rd.game.reels:
            rd.fail(
                f"options.free_games.awards.{c}", f"a payline has {rd.game.reels} reels: {c} never lie on one"
            )
    return tuple(tuple(int(r) for r in line) for line in rd.game.paylines)


def _trigger_reels(rd: Reader, trigger, symbol: str, awards: dict, sticky) -> tuple | None:
    """The reels of ``options.free_games.trigger.reels`` (0 = reel 1), None when absent."""
    w = "options.free_games.trigger"
    if trigger is None:
        return None
    rd.mapping(trigger, w, ("reels",), ("reels",))
    listed = trigger["reels"]
    if not isinstance(listed, list) or not listed:
        rd.fail(f"{w}.reels", "must list reel numbers (1 = the first reel)")
    out = []
    for i, r in enumerate(listed):
        n = rd.number(r, f"{w}.reels[{i}]", integer=True, positive=True)
        if n > rd.game.reels:
            rd.fail(f"{w}.reels[{i}]", f"reel {n} is beyond the {rd.game.reels} reels of the grid")
        if n - 1 in out:
            rd.fail(f"{w}.reels[{i}]", f"reel {n} is listed twice")
        out.append(n - 1)
    if sticky is not None:
        rd.fail(w, "a reel condition is not computed with a sticky wild")
    strips = rd.game.strips("base")
    for r in out:
        shown = [x for x, wt in zip(strips[r].symbols, strips[r].stop_weights().tolist(), strict=True) if wt]
        if symbol not in shown:
            rd.fail(
                f"{w}.reels",
                f"reel {r + 1} of reel set 'base' never shows {symbol!r}: the free games never start",
            )
    for c in awards:
        if c < len(out):
            rd.fail(
                f"options.free_games.awards.{c}",
                f"{c} {symbol} cannot lie on the {len(out)} reels the trigger needs",
            )
    return tuple(sorted(out))


def _sticky(rd: Reader, sticky, reels: str, nudge, retrigger: bool, cap) -> str | None:
    """The sticky wild of ``options.free_games.sticky`` (None when absent)."""
    w = "options.free_games.sticky"
    if sticky is None:
        return None
    rd.symbol(sticky, w)
    if rd.game.symbol(sticky).kind != "wild":
        rd.fail(w, f"{sticky!r} must be a wild symbol")
    if sticky == nudge:
        rd.fail(w, f"{sticky!r} is also the expanding wild (nudge); a wild either expands or sticks")
    if not any(sticky in s.symbols for s in rd.game.strips(reels)):
        rd.fail(w, f"{sticky!r} is on no reel of the free reel set {reels!r}")
    if retrigger and cap is None:
        rd.fail(w, "sticky wilds with retriggers need max_games (the games left are unbounded)")
    return sticky


#: keys of ``options.free_games``
FREE_GAMES_KEYS = (
    "symbol",
    "reels",
    "multiplier",
    "awards",
    "retrigger",
    "retrigger_awards",
    "scatter_pays",
    "nudge",
    "max_games",
    "sticky",
    "trigger",
)


def _games_awards(rd: Reader, value, where: str, zero: bool = False, by_count: bool = False) -> dict:
    """``{count: (prize [x total bet], games)}`` from ``{count: {games, prize}}``
    (``zero``: 0 games allowed, e.g. a retrigger count that pays a prize only;
    ``by_count``: a ``multiplier`` per count allowed, read by the caller)."""
    out = {}
    for c, a in rd.counts(value, where).items():
        f = f"{where}.{c}"
        for own in ("multiplier", "reels"):
            if not by_count and isinstance(a, dict) and own in a:
                rd.fail(
                    f"{f}.{own}",
                    f"a retrigger adds games at the running feature's {own}; give it in awards",
                )
        keys = ("prize", "games", "multiplier", "reels") if by_count else ("prize", "games")
        rd.mapping(a, f, keys, ("games",))
        games = rd.number(a["games"], f"{f}.games", integer=True, positive=not zero, minimum=0)
        rd.check(games_problem_of(games), f"{f}.games")
        out[c] = (rd.amount(a.get("prize", 0), f"{f}.prize"), games)
    return out


def _selection(rd: Reader, spec, lockit, free) -> SelectionSpec:
    w = "options.selection"
    rd.mapping(spec, w, ("symbol", "awards", "lockit_source"), ("symbol", "awards"))
    symbol = rd.symbol(spec["symbol"], f"{w}.symbol")
    if lockit is None or free is None:
        rd.fail(w, "a selection needs both options.lockit and options.free_games")
    source = spec.get("lockit_source", "selection")
    if source not in lockit.sources:
        rd.fail(f"{w}.lockit_source", f"{source!r} is not a source in options.lockit.sources")
    options = {}
    for c, a in rd.counts(spec["awards"], f"{w}.awards").items():
        f = f"{w}.awards.{c}"
        rd.mapping(a, f, ("prize", "lockit", "free_games"), ("lockit", "free_games"))
        lk = rd.mapping(a["lockit"], f"{f}.lockit", ("spins", "awards"), ("spins", "awards"))
        if lk["awards"] not in lockit.awards.tables:
            rd.fail(f"{f}.lockit.awards", f"unknown award table {lk['awards']!r}")
        options[c] = SelectionOption(
            c,
            rd.amount(a.get("prize", 0), f"{f}.prize"),
            _lockit_spins(rd, lk["spins"], f"{f}.lockit.spins", lockit.rule),
            str(lk["awards"]),
            rd.number(a["free_games"], f"{f}.free_games", integer=True, positive=True),
        )
    rd.check(reach_problem(rd.game, symbol, [(f"{w}.awards.{c}", c) for c in options], w, "the selection"))
    return SelectionSpec(symbol, options, source)


def _lockit_spins(rd: Reader, value, where: str, rule: str) -> int:
    spins = rd.number(value, where, integer=True, positive=True)
    rd.check(lockit_problem(rd.game.reels * rd.game.rows, spins, rule, where))
    return spins


def read_wheel(rd: Reader, spec, jackpots) -> WheelSpec:
    w = "options.wheel"
    rd.mapping(spec, w, ("segments", "before"), ("segments",))
    segs = spec["segments"]
    if not isinstance(segs, list) or not segs:
        rd.fail(f"{w}.segments", "must be a non-empty list of {prize, weight}")
    out = []
    for i, s in enumerate(segs):
        f = f"{w}.segments[{i}]"
        rd.mapping(s, f, ("prize", "weight"), ("prize", "weight"))
        value, label = rd.prize(s["prize"], f"{f}.prize", jackpots)
        out.append((label, value, rd.number(s["weight"], f"{f}.weight", integer=True, minimum=0)))
    if sum(s[2] for s in out) == 0:
        rd.fail(f"{w}.segments", "all weights are zero")
    reduced, problem = draw_weights([s[2] for s in out])
    rd.check(problem or denominators_problem([s[1] for s in out], "the wheel's"), f"{w}.segments")
    out = [(label, value, x) for (label, value, _), x in zip(out, reduced, strict=True)]
    pre = Fraction(0), Fraction(0), ""
    if "before" in spec:
        b = rd.mapping(
            spec["before"], f"{w}.before", ("name", "prize", "probability"), ("prize", "probability")
        )
        p = rd.number(b["probability"], f"{w}.before.probability", minimum=0)
        if p >= 1:
            rd.fail(f"{w}.before.probability", "must be below 1")
        if p.denominator >= MAX_DRAW:  # the lock-it sampler draws it exactly, below 2**62
            rd.fail(
                f"{w}.before.probability",
                f"{str(b['probability'])[:40]!r} has denominator {sci(p.denominator)}, not below 2**62, "
                "the compiled simulator's exact draw (give a fraction 'p/q' with a smaller q)",
            )
        pre = (rd.amount(b["prize"], f"{w}.before.prize", positive=True), p, str(b.get("name", "jackpot")))
    return WheelSpec(tuple(out), pre[0], pre[1], pre[2])


# ===========================================================================
# engine objects
# ===========================================================================
def _strip_flags(game: Game, strip, names) -> np.ndarray:
    idx = {game.symbol_index[n] for n in names}
    return np.array([game.symbol_index[s] in idx for s in strip.symbols], dtype=bool)


def window_pattern_counts(game: Game, spec: LockItSpec, reel_set: str) -> np.ndarray:
    """Per reel of ``reel_set``, the stop weight of every window (rows showing
    a held symbol, rows showing the mark), shape (R, 2**H, 2**H) int64."""
    from slotmath.features.lockit import window_counts

    counts = []
    for strip in game.strips(reel_set):
        hits = _strip_flags(game, strip, spec.symbols)
        marks = _strip_flags(game, strip, [spec.mark]) if spec.mark else np.zeros_like(hits)
        if strip.weights is None:
            counts.append(window_counts(hits, game.rows, marks))
        else:  # weighted stops: weight each stop's (pattern, marks) cell
            n = len(hits)
            pos = (np.arange(n)[:, None] + np.arange(game.rows)[None, :]) % n
            bits = 1 << np.arange(game.rows)
            pat = (hits[pos] * bits).sum(axis=1)
            mk = ((hits & marks)[pos] * bits).sum(axis=1)
            c = np.zeros((1 << game.rows, 1 << game.rows), dtype=np.int64)
            np.add.at(c, (pat, mk), strip.stop_weights())
            counts.append(c)
    return np.array(counts, dtype=np.int64)


def feature_landing(game: Game, spec: LockItSpec, reel_set: str):
    """:class:`~slotmath.features.lockit.Landing` of ``reel_set``: per reel, stop counts by
    (rows showing a held symbol, rows showing the mark)."""
    from slotmath.features.lockit import Landing

    return Landing.from_counts(window_pattern_counts(game, spec, reel_set))


def lockit_chain(game: Game, spec: LockItSpec, source: str, spins: int | None = None, exact: bool = False):
    """The :class:`~slotmath.features.lockit.LockIt` chain of ``source`` (spins overridable)."""
    from slotmath.features.lockit import LockIt

    src = spec.sources[source]
    landing = feature_landing(game, spec, src.reels)
    after = feature_landing(game, spec, src.after_mark) if src.after_mark else None
    return LockIt(landing, spins or src.spins, spec.rule, after_mark=after, exact=exact)


def shape_counts(game: Game, spec: LockItSpec) -> np.ndarray:
    """Shapes of each kind in the packing of every mask, shape (2**(H R), n_shapes)."""
    from slotmath.features.shapes import shape_count_table

    if spec.packing == "optimal":
        raise ValueError("optimal packing needs a prize per shape; use shapes.shape_count_table")
    return shape_count_table(game.rows, game.reels, spec.shapes, spec.order)


#: the round cap as a feature object (slotmath.features.registry): the round
#: applies it (slotmath.features.round.cap_distribution)
ROUND_CAP = FeatureKind(
    key="round_cap",
    title="round cap",
    parse=lambda game: load_features(game).round_cap,
    notes=lambda game, law: (
        [cap_note(load_features(game).round_cap)] if load_features(game).round_cap else []
    ),
    example="tests/data/capped_free_spins/game.yaml",
    schema={
        "type": "number",
        "description": "Cap on the total win of a round [x total bet] (rules: lines): docs/features.md.",
    },
)
