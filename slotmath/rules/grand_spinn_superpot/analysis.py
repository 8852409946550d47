"""Grand Spinn Superpot: 3x3, 10 fixed lines, multiplier wilds, the nudge
feature with up arrows, Mini and Midi fixed jackpots and the Super progressive.

The rules are pinned down in ``docs/games/grand_spinn_superpot.md`` (rule
numbers R1..R22 below refer to it).  In short, for a spin at bet level ``v``:

* the landing window pays every line (:func:`slotmath.lines.line_pay`
  through the engine's pay tensor): ``W0`` coins in total (R5-R8);
* with ``W0 > 0`` the *winning symbol* ``X`` is the symbol of the highest
  line win (R9); reels 1, 2, 3 in turn nudge down while their top row shows
  ``X``, each nudge paying ``W0`` again (R10-R12); a reel that stops with an
  up arrow on top and ``X`` below goes back to the bottom of that stack of
  ``X`` and nudges up through it again, paying ``W0`` once per symbol of the
  stack; the arrow is a blank for the rest of the spin (R13-R15);
* after the nudges, if every reel shows a jackpot symbol on top of ``X``, the
  lowest of those jackpots is won (R16-R17); without a line win, three
  jackpot symbols on a bet line win the lowest of them (R18);
* Mini and Midi pay ``pay_per_level * v`` coins, not multiplied (R19-R20);
  the Super is progressive (R21).

Exact analysis (:func:`analyse`): every stop combination is played out
(:func:`round_outcome`, numba, via :func:`play_all`) and weighted by its stop
weights; the integer
totals give the RTP by channel as Fractions and the exact distribution of
the coin win of a spin.  The nudge is also solved as absorbing Markov chains
(:mod:`slotmath.nudge`), checked against the enumeration.  The Super's
figures come from :mod:`slotmath.progressive` under the convention of R22.

Monte Carlo (:func:`simulate`, :func:`round_sampler`): a separate, literal
implementation in :mod:`.grand_spinn_superpot_sampler` (its own line rule,
reels moved step by step with the used arrow blanked), re-exported here.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numba as nb
import numpy as np
import pandas as pd

from ..combinations import combination_table, line_rtp
from ..distribution import WinDistribution
from ..draw import Frame, draw_frames
from ..gamefile import GameFileError
from ..lines import compile_pays, line_pay, pay_tensor, prefix_determined
from ..model import Game
from ..nudge import joint_distribution, nudge_reel, reel_cap, reel_chains, sum_distribution
from ..par import ParResult, fraction_str
from ..progressive import Progressive, renewal_figures
from ..reels import strip_indices, windows
from .grand_spinn_superpot_sampler import (RoundsSimulation, Sampler, event_names,  # noqa: F401
                                           play_stops, round_sampler, run_sampler, simulate,
                                           simulate_rounds)

#: Outcome of a round's jackpot check (``path`` of :func:`play_round`).
PATH_NONE, PATH_NUDGE, PATH_LINE = 0, 1, 2

#: Component names of the RTP, in report order.
LANDING, NUDGES, ARROWS = "line wins (landing)", "nudge re-pays", "arrow re-pays"


# ===========================================================================
# options and validation
# ===========================================================================
@dataclass(frozen=True)
class Jackpot:
    """One jackpot: its name, symbol and coin award per bet level (None = progressive)."""

    name: str
    symbol: str
    pay_per_level: int | None


@dataclass(frozen=True)
class Network:
    """Assumptions for the Super's network figures."""

    players: int
    seconds_per_spin: float
    window_seconds: float
    reference_bet: float


@dataclass(frozen=True)
class Options:
    """The game's ``options:`` mapping, validated."""

    arrow: str
    arrow_becomes: str
    jackpots: tuple
    progressive: Progressive
    coin_values: tuple
    network: Network

    @property
    def progressive_jackpot(self) -> Jackpot | None:
        return next((j for j in self.jackpots if j.pay_per_level is None), None)


def _fail(game, fieldname, problem):
    raise GameFileError(game.source, fieldname, problem)


def _number(game, value, fieldname, positive=True, integer=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        _fail(game, fieldname, f"must be a number, got {value!r}")
    try:
        x = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        _fail(game, fieldname, f"must be a number, got {value!r}")
    if integer and x.denominator != 1:
        _fail(game, fieldname, f"must be a whole number, got {value!r}")
    if positive and x <= 0:
        _fail(game, fieldname, f"must be positive, got {value!r}")
    if not positive and x < 0:
        _fail(game, fieldname, f"must not be negative, got {value!r}")
    return x


def _mapping(game, value, fieldname):
    if not isinstance(value, dict):
        _fail(game, fieldname, "must be a mapping (key: value pairs)")
    return value


def _known_keys(game, spec, fieldname, allowed):
    for key in spec:
        if key not in allowed:
            _fail(game, f"{fieldname}.{key}", f"unknown option (allowed: {', '.join(allowed)})")


def _symbol(game, name, fieldname, kinds):
    if not isinstance(name, str) or name not in game.symbol_index:
        _fail(game, fieldname, f"unknown symbol {name!r}")
    kind = game.symbol(name).kind
    if kind not in kinds:
        _fail(game, fieldname, f"{name!r} is of kind {kind!r}; need {' or '.join(kinds)}")
    return name


def parse_options(game: Game) -> Options:
    """Validate ``game.options`` (GameFileError naming ``options.<field>``)."""
    opts = _mapping(game, game.options, "options")
    _known_keys(game, opts, "options",
                ("arrow", "arrow_becomes", "jackpots", "progressive", "coin_values", "network"))
    for key in ("arrow", "arrow_becomes", "jackpots", "progressive"):
        if key not in opts:
            _fail(game, f"options.{key}", "is required by the grand_spinn_superpot rules")
    arrow = _symbol(game, opts["arrow"], "options.arrow", ("special",))
    blank = _symbol(game, opts["arrow_becomes"], "options.arrow_becomes", ("blank",))

    jps = opts["jackpots"]
    if not isinstance(jps, list) or not jps:
        _fail(game, "options.jackpots", "must be a non-empty list, lowest jackpot first")
    jackpots, seen = [], set()
    for i, spec in enumerate(jps):
        f = f"options.jackpots[{i}]"
        spec = _mapping(game, spec, f)
        _known_keys(game, spec, f, ("name", "symbol", "pay_per_level", "progressive"))
        if "symbol" not in spec:
            _fail(game, f"{f}.symbol", "is required")
        sym = _symbol(game, spec["symbol"], f"{f}.symbol", ("special",))
        if sym == arrow:
            _fail(game, f"{f}.symbol", "the up arrow cannot be a jackpot symbol")
        if sym in seen:
            _fail(game, f"{f}.symbol", f"{sym!r} is already a jackpot symbol")
        seen.add(sym)
        progressive = spec.get("progressive", False)
        if not isinstance(progressive, bool):
            _fail(game, f"{f}.progressive", "must be true or false")
        if progressive == ("pay_per_level" in spec):
            _fail(game, f, "give exactly one of 'pay_per_level' (fixed) and 'progressive: true'")
        pay = None if progressive else int(_number(game, spec["pay_per_level"],
                                                   f"{f}.pay_per_level", integer=True))
        jackpots.append(Jackpot(str(spec.get("name", sym)), sym, pay))
    if sum(j.pay_per_level is None for j in jackpots) > 1:
        _fail(game, "options.jackpots", "at most one jackpot may be progressive")
    fixed = [j.pay_per_level for j in jackpots if j.pay_per_level is not None]
    if fixed != sorted(fixed) or len(set(fixed)) != len(fixed):
        _fail(game, "options.jackpots", "fixed jackpots must be listed lowest first, "
              "with increasing pay_per_level")
    if any(j.pay_per_level is None for j in jackpots[:-1]):
        _fail(game, "options.jackpots", "the progressive jackpot must be the highest (listed last)")

    prog_spec = _mapping(game, opts["progressive"], "options.progressive")
    _known_keys(game, prog_spec, "options.progressive",
                ("meter_rate", "reserve_rate", "reseed", "currency"))
    for key in ("meter_rate", "reserve_rate", "reseed"):
        if key not in prog_spec:
            _fail(game, f"options.progressive.{key}", "is required")
    meter = _number(game, prog_spec["meter_rate"], "options.progressive.meter_rate", positive=False)
    reserve = _number(game, prog_spec["reserve_rate"], "options.progressive.reserve_rate",
                      positive=False)
    if meter + reserve >= 1:
        _fail(game, "options.progressive", "meter_rate + reserve_rate must be below 1")
    reseed = _number(game, prog_spec["reseed"], "options.progressive.reseed", positive=False)
    currency = str(prog_spec.get("currency", "EUR"))
    progressive = Progressive(meter, reserve, reseed, currency)

    coins = opts.get("coin_values", [1])
    if not isinstance(coins, list) or not coins:
        _fail(game, "options.coin_values", "must be a non-empty list of coin values")
    coin_values = tuple(_number(game, c, f"options.coin_values[{i}]") for i, c in enumerate(coins))

    net = _mapping(game, opts.get("network", {}), "options.network")
    _known_keys(game, net, "options.network",
                ("players", "seconds_per_spin", "window_seconds", "reference_bet"))
    network = Network(
        int(_number(game, net.get("players", 1000), "options.network.players", integer=True)),
        float(_number(game, net.get("seconds_per_spin", 4), "options.network.seconds_per_spin")),
        float(_number(game, net.get("window_seconds", 30), "options.network.window_seconds")),
        float(_number(game, net.get("reference_bet", 1), "options.network.reference_bet")))
    return Options(arrow, blank, tuple(jackpots), progressive, coin_values, network)


def check(game: Game) -> None:
    """Rule-specific checks of a Grand Spinn Superpot game file.

    Raises GameFileError for: invalid ``options``; fewer than 2 rows (the
    nudge needs a top row and a row below it); a pay entry that is not ``n``
    of one regular symbol (the nudge needs one winning symbol per line win);
    a wild that substitutes for the arrow, a blank or a jackpot symbol; and
    a strip that shows one paying symbol at every stop, on which a nudge
    would never end.
    """
    opts = parse_options(game)
    if game.rows < 2:
        _fail(game, "grid.rows", "the nudge needs at least 2 rows (a top row and one below)")
    for i, lp in enumerate(game.line_pays):
        names = {n for pos in lp.positions for n in pos}
        if lp.anywhere is not None or len(names) != 1 or \
                game.symbol(next(iter(names))).kind != "regular":
            _fail(game, f"pays[{i}]", "grand_spinn_superpot pays n of one regular symbol "
                  "(symbol + count); the nudge follows that symbol")
    special = {opts.arrow, opts.arrow_becomes} | {j.symbol for j in opts.jackpots}
    for s in game.symbols:
        if s.wild and s.wild.substitutes & special:
            bad = sorted(s.wild.substitutes & special)[0]
            _fail(game, f"symbols[{game.symbol_index[s.name]}]",
                  f"wild {s.name!r} may not substitute for {bad!r} (rule R4)")
    paying = {next(iter(lp.positions[0])) for lp in game.line_pays}
    for set_name, strips in game.reel_sets.items():
        for r, strip in enumerate(strips):
            if len(set(strip.symbols)) == 1 and strip.symbols[0] in paying:
                _fail(game, f"reels.{set_name}[{r}]",
                      f"every stop shows {strip.symbols[0]!r}: a nudge on {strip.symbols[0]!r} "
                      "would never end (the strip needs another symbol)")


# ===========================================================================
# compiled rules
# ===========================================================================
@dataclass(frozen=True, eq=False)
class Rules:
    """The game at one bet level as arrays for the numba kernels.

    Attributes
    ----------
    strips, weights : ndarray of int64, shape (R, Nmax)
        Symbol index and stop weight of every strip position (zero-padded).
    lengths : ndarray of int64, shape (R,)
    windows : ndarray of int64, shape (R, Nmax, H)
        Window of every stop (:func:`slotmath.reels.windows`).
    lines : ndarray of int64, shape (L, R)
    wins, entries : ndarray of int64, shape (S**R,)
        The engine's pay tensor: coin win and pay-table entry of every
        symbol tuple.
    entry_symbol : ndarray of int64, shape (E,)
        Symbol of each pay-table entry (the winning symbol of its wins).
    arrow : int
    jp_rank : ndarray of int64, shape (S,)
        Jackpot rank of each symbol (0 = lowest), -1 for other symbols.
    jp_coins : ndarray of int64, shape (J,)
        Coin award of each jackpot at this level (0 for the progressive).
    part, jp_lines : ndarray of int64
        Per-reel line pieces (:func:`line_parts`).
    """

    game: Game
    level: int
    total_bet: int
    options: Options
    strips: np.ndarray
    weights: np.ndarray
    lengths: np.ndarray
    windows: np.ndarray
    lines: np.ndarray
    wins: np.ndarray
    entries: np.ndarray
    entry_symbol: np.ndarray
    arrow: int
    jp_rank: np.ndarray
    jp_coins: np.ndarray
    part: np.ndarray
    jp_lines: np.ndarray

    @property
    def n_symbols(self) -> int:
        return len(self.game.symbols)

    @property
    def round_args(self) -> tuple:
        """Arguments of :func:`play_round` after ``stops``."""
        return (self.part, self.jp_lines, self.strips, self.lengths, self.windows, self.lines,
                self.wins, self.entries, self.entry_symbol, self.arrow, self.jp_rank,
                len(self.jp_coins))


def pack_strips(game: Game, reel_set: str = "base"):
    """Physical strips, stop weights, lengths and windows as padded arrays."""
    strips = game.strips(reel_set)
    R, H = game.reels, game.rows
    nmax = max(len(s) for s in strips)
    sym = np.zeros((R, nmax), dtype=np.int64)
    wts = np.zeros((R, nmax), dtype=np.int64)
    win = np.zeros((R, nmax, H), dtype=np.int64)
    for r, s in enumerate(strips):
        sym[r, :len(s)] = strip_indices(game, s)
        wts[r, :len(s)] = s.stop_weights()
        win[r, :len(s)] = windows(game, s)
    return sym, wts, np.array([len(s) for s in strips], dtype=np.int64), win


@lru_cache(maxsize=32)
def compile_rules(game: Game, level: int) -> Rules:
    """Arrays of ``game`` at bet ``level`` for the kernels (cached)."""
    opts = parse_options(game)
    bet = game.bet(level)
    idx = game.symbol_index
    strips, weights, lengths, win = pack_strips(game)
    tensor = pay_tensor(game, level)
    entry_symbol = np.array([idx[next(iter(lp.positions[0]))] for lp in game.line_pays],
                            dtype=np.int64)
    jp_rank = np.full(len(game.symbols), -1, dtype=np.int64)
    jp_coins = np.zeros(len(opts.jackpots), dtype=np.int64)
    for k, j in enumerate(opts.jackpots):
        jp_rank[idx[j.symbol]] = k
        jp_coins[k] = 0 if j.pay_per_level is None else j.pay_per_level * bet.level
    lines = np.array(game.paylines, dtype=np.int64)
    if len(lines) > 62:
        raise GameFileError(game.source, "paylines", "at most 62 lines (line bit masks)")
    part, jp_lines = line_parts(win, lengths, lines, len(game.symbols), jp_rank)
    return Rules(game, level, bet.total_bet, opts, strips, weights, lengths, win, lines,
                 tensor.wins, tensor.entries, entry_symbol, idx[opts.arrow], jp_rank, jp_coins,
                 part, jp_lines)


# ===========================================================================
# one round (exact path)
# ===========================================================================
@nb.njit(cache=True)
def line_parts(windows, lengths, lines, S, jp_rank):
    """Per-reel pieces of every line's outcome, for every stop.

    ``part[r, s, l]`` is ``S**(R-1-r)`` times the symbol that stop ``s`` of
    reel ``r`` shows on line ``l``, so a line's index into the pay tensor is
    the sum of its parts over the reels.  ``jp_lines[r, s]`` has bit ``l``
    set when that symbol is a jackpot symbol (one bit per line).
    """
    R, N, _ = windows.shape
    L = lines.shape[0]
    part = np.zeros((R, N, L), dtype=np.int64)
    jp_lines = np.zeros((R, N), dtype=np.int64)
    for r in range(R):
        scale = S ** (R - 1 - r)
        for s in range(lengths[r]):
            for l in range(L):
                sym = windows[r, s, lines[l, r]]
                part[r, s, l] = scale * sym
                if jp_rank[sym] >= 0:
                    jp_lines[r, s] |= 1 << l
    return part, jp_lines


@nb.njit(cache=True, inline="always")
def lines_win(tidx, wins, entries):
    """Total line win and the entry of the highest line win.

    ``tidx[l]`` indexes line ``l``'s symbols in the pay tensor.  The highest
    win is the largest coin win; a tie goes to the entry listed first in the
    pay table (rule R9).  Returns ``(total [coins], entry)``, entry -1 for
    no win.
    """
    total = 0
    best_w, best_e = 0, -1
    for l in range(tidx.shape[0]):
        w = wins[tidx[l]]
        if w > 0:
            total += w
            e = entries[tidx[l]]
            if w > best_w or (w == best_w and e < best_e):
                best_w, best_e = w, e
    return total, best_e


@nb.njit(cache=True, inline="always")
def line_jackpot(mask, stops, windows, lines, jp_rank):
    """Jackpot won by jackpot symbols on bet lines without a line win (rule R18).

    ``mask`` has bit ``l`` set for the lines showing a jackpot symbol on
    every reel; each such line offers the lowest of its jackpots and the
    round takes the highest offer.  Returns the rank, -1 for none.
    """
    best = -1
    l = 0
    while mask:
        if mask & 1:
            low = 1 << 30
            for r in range(lines.shape[1]):
                low = min(low, jp_rank[windows[r, stops[r], lines[l, r]]])
            best = max(best, low)
        mask >>= 1
        l += 1
    return best


@nb.njit(cache=True, inline="always")
def round_outcome(tidx, mask, stops, strips, lengths, windows, lines, wins, entries,
                  entry_symbol, arrow, jp_rank, n_jp):
    """The outcome of a round from its landing ``stops``, given the lines'
    pay-tensor indices ``tidx`` and jackpot-line mask ``mask``.

    Returns ``(landing, nudges, arrow_pays, jackpot, path, symbol)``:
    landing line win ``W0`` [coins]; nudges and arrow pays over all reels
    (each re-pays ``W0``); the jackpot rank (-1 none) and how it was won
    (:data:`PATH_NUDGE`, :data:`PATH_LINE`); the winning symbol (-1 without
    a win).  ``nudges = -1`` flags a reel whose nudge would never end.
    """
    landing, entry = lines_win(tidx, wins, entries)
    if landing == 0:
        jp = line_jackpot(mask, stops, windows, lines, jp_rank) if mask else -1
        return 0, 0, 0, jp, PATH_LINE if jp >= 0 else PATH_NONE, -1
    x = entry_symbol[entry]
    nudges, arrow_pays = 0, 0
    lowest = n_jp
    for r in range(strips.shape[0]):
        n = lengths[r]
        u, stack, top = nudge_reel(strips[r], n, stops[r], x, arrow)
        if u >= n:
            return landing, -1, 0, -1, PATH_NONE, x
        nudges += u
        arrow_pays += stack
        cap = reel_cap(strips[r], n, top, x, stack)
        k = jp_rank[cap] if cap >= 0 else -1
        if k < 0:
            lowest = -1
        elif lowest >= 0:
            lowest = min(lowest, k)
    if lowest >= 0:
        return landing, nudges, arrow_pays, lowest, PATH_NUDGE, x
    return landing, nudges, arrow_pays, -1, PATH_NONE, x


@nb.njit(cache=True)
def play_round(stops, part, jp_lines, strips, lengths, windows, lines, wins, entries,
               entry_symbol, arrow, jp_rank, n_jp):
    """Play one round from landing ``stops`` (see :func:`round_outcome`)."""
    L = lines.shape[0]
    tidx = np.zeros(L, dtype=np.int64)
    mask = (1 << L) - 1
    for r in range(strips.shape[0]):
        mask &= jp_lines[r, stops[r]]
        for l in range(L):
            tidx[l] += part[r, stops[r], l]
    return round_outcome(tidx, mask, stops, strips, lengths, windows, lines, wins, entries,
                         entry_symbol, arrow, jp_rank, n_jp)


# ===========================================================================
# full enumeration
# ===========================================================================
@nb.njit(cache=True)
def _play_all(part, jp_lines, dead, strips, lengths, windows, lines, wins, entries,
              entry_symbol, arrow, jp_rank, jp_coins, landing, symbol, nudges, arrow_pays,
              jackpot, path, win):
    """Play every stop combination; round ``t`` (C order over the reels'
    stops) gets its landing win, winning symbol, nudges, arrow pays,
    jackpot, jackpot path and coin win.  The output arrays come filled
    with the outcome of a losing round (0, -1, 0, 0, -1, 0, 0).

    An odometer over the reels builds each line's pay-tensor index and the
    jackpot-line mask reel by reel.  A prefix of stops after which every
    line is lost whatever the remaining reels show (``dead[k][prefix]``,
    from :func:`slotmath.lines.prefix_determined`) and no jackpot line is
    possible is skipped with all its extensions: they lose.  Returns the
    number of rounds whose nudge never ends (0 for a valid game).
    """
    R = strips.shape[0]
    L = lines.shape[0]
    n_jp = jp_coins.shape[0]
    S = jp_rank.shape[0]
    stops = np.full(R, -1, dtype=np.int64)
    acc = np.zeros((R, L), dtype=np.int64)   # acc[r]: line parts of reels < r
    tidx = np.zeros(L, dtype=np.int64)
    tacc = np.zeros(R, dtype=np.int64)       # flat round index of the prefix
    macc = np.full(R, (1 << L) - 1, dtype=np.int64)
    errors = 0
    level = 0
    while level >= 0:
        stops[level] += 1
        if stops[level] >= lengths[level]:
            stops[level] = -1
            level -= 1
            continue
        s = stops[level]
        if level < R - 1:
            mask = macc[level] & jp_lines[level, s]
            scale = S ** (R - 1 - level)
            alive = mask != 0
            for l in range(L):
                acc[level + 1, l] = acc[level, l] + part[level, s, l]
                if not alive and not dead[level, acc[level + 1, l] // scale]:
                    alive = True
            if not alive:          # every extension loses: leave the defaults
                continue
            macc[level + 1] = mask
            tacc[level + 1] = (tacc[level] + s) * lengths[level + 1]
            level += 1
            continue
        t = tacc[level] + s
        for l in range(L):
            tidx[l] = acc[level, l] + part[level, s, l]
        w0, u, a, jp, how, x = round_outcome(
            tidx, macc[level] & jp_lines[level, s], stops, strips, lengths, windows, lines,
            wins, entries, entry_symbol, arrow, jp_rank, n_jp)
        if u < 0:
            errors += 1
            continue
        landing[t], symbol[t], nudges[t], arrow_pays[t], jackpot[t], path[t] = w0, x, u, a, jp, how
        win[t] = w0 * (1 + u + a) + (jp_coins[jp] if jp >= 0 else 0)
    return errors


@nb.njit(cache=True)
def _accumulate(landing, nudges, arrow_pays, jackpot, path, weight, jp_coins, hist, pays_hist,
                pays_w0, jp_counts, sums):
    """Weighted totals of the rounds played by :func:`_play_all`."""
    for t in range(landing.shape[0]):
        w = weight[t]
        if w == 0:
            continue
        w0 = landing[t]
        pays = 1 + nudges[t] + arrow_pays[t]
        win = w0 * pays
        jp = jackpot[t]
        if jp >= 0:
            win += jp_coins[jp]
            jp_counts[path[t], jp] += w
        hist[win] += w
        sums[0] += w
        if w0 > 0:
            sums[1] += w * w0
            sums[2] += w * w0 * nudges[t]
            sums[3] += w * w0 * arrow_pays[t]
            sums[4] += w
            sums[5] += w * nudges[t]
            sums[6] += w * arrow_pays[t]
            if nudges[t] > 0:
                sums[7] += w
            if arrow_pays[t] > 0:
                sums[8] += w
            if pays > 1:
                sums[9] += w
            pays_hist[pays] += w
            pays_w0[pays] += w * w0


@dataclass(frozen=True)
class Enumeration:
    """Integer totals of the full cycle at one bet level.

    Attributes
    ----------
    cycle : int
        Sum of the weights of all stop combinations.
    hist : ndarray of int64
        ``hist[c]``: weight of the rounds winning ``c`` coins (line wins,
        re-pays and fixed jackpots; the progressive is not a coin win).
    landing, nudge, arrow : int
        Sums over the cycle of weight x landing win, x landing win x nudges,
        x landing win x arrow pays [coins].
    win_rounds, nudge_rounds, arrow_rounds, repay_rounds : int
        Weight of rounds with a landing line win, with at least one nudge,
        with an arrow fired, with any re-pay (a nudge or an arrow).
    nudge_count, arrow_count : int
        Sums of weight x nudges, x arrow pays over winning rounds.
    pays_hist, pays_w0 : ndarray of int64
        ``[n]``: weight (and weight x landing win) of winning rounds paid
        ``n`` times (the landing pay, nudges and arrow pays).
    jp_counts : ndarray of int64, shape (3, J)
        Weight of rounds winning jackpot ``j`` by path (after nudges, on a
        line without a win).
    round_landing, round_symbol : ndarray of int64, shape (N_1, ..., N_R)
        Landing line win [coins] and winning symbol (-1 none) by stops.
    """

    cycle: int
    hist: np.ndarray
    landing: int
    nudge: int
    arrow: int
    win_rounds: int
    nudge_rounds: int
    arrow_rounds: int
    repay_rounds: int
    nudge_count: int
    arrow_count: int
    pays_hist: np.ndarray
    pays_w0: np.ndarray
    jp_counts: np.ndarray
    round_landing: np.ndarray
    round_symbol: np.ndarray


@dataclass(frozen=True)
class Rounds:
    """Every stop combination played out: arrays of shape (N_1, ..., N_R)
    (C order over the reels' stops).

    Attributes: ``landing`` [coins], ``symbol`` (winning symbol, -1 none),
    ``nudges``, ``arrow_pays``, ``jackpot`` (rank, -1 none), ``path``
    (:data:`PATH_NUDGE` / :data:`PATH_LINE`), ``weight`` (product of the
    stop weights) and ``win`` (coin win of the round, progressive excluded).
    """

    landing: np.ndarray
    symbol: np.ndarray
    nudges: np.ndarray
    arrow_pays: np.ndarray
    jackpot: np.ndarray
    path: np.ndarray
    weight: np.ndarray
    win: np.ndarray

    @property
    def pays(self) -> np.ndarray:
        """Times the landing win is paid (1 + nudges + arrow pays)."""
        return 1 + self.nudges + self.arrow_pays


def dead_prefixes(rules: Rules) -> np.ndarray:
    """``dead[k, p]``: a line whose first ``k + 1`` symbols have index ``p``
    (base S) loses whatever the other reels show (:func:`slotmath.lines.prefix_determined`)."""
    prefix = prefix_determined(pay_tensor(rules.game, rules.level))
    R = rules.game.reels
    out = np.zeros((R, len(prefix[-1])), dtype=np.bool_)
    for k, table in enumerate(prefix):
        out[k, :len(table)] = table == 0
    return out


def play_all(rules: Rules) -> Rounds:
    """Play out every stop combination of ``rules`` (numba)."""
    n = int(np.prod(rules.lengths))
    landing, nudges, arrow_pays, path, win = (np.zeros(n, dtype=np.int64) for _ in range(5))
    symbol, jackpot = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    errors = _play_all(rules.part, rules.jp_lines, dead_prefixes(rules), rules.strips,
                       rules.lengths, rules.windows, rules.lines, rules.wins, rules.entries,
                       rules.entry_symbol, rules.arrow, rules.jp_rank, rules.jp_coins, landing,
                       symbol, nudges, arrow_pays, jackpot, path, win)
    if errors:
        raise GameFileError(rules.game.source, "reels.base",
                            "a reel shows one paying symbol at every stop: its nudge never ends")
    weight = np.ones((), dtype=np.int64)
    for r in range(rules.game.reels):
        weight = np.multiply.outer(weight, rules.weights[r, :rules.lengths[r]])
    shape = tuple(int(x) for x in rules.lengths)
    return Rounds(*(a.reshape(shape) for a in (landing, symbol, nudges, arrow_pays, jackpot,
                                                path)), weight, win.reshape(shape))


def enumerate_cycle(rules: Rules, rounds: Rounds | None = None) -> Enumeration:
    """Play out every stop combination of ``rules`` and total the cycle exactly
    (``rounds``: the play-out when already known, :func:`play_all`)."""
    cycle = rules.game.cycle()
    rounds = play_all(rules) if rounds is None else rounds
    landing, nudges, arrow_pays = (a.ravel() for a in (rounds.landing, rounds.nudges,
                                                         rounds.arrow_pays))
    jackpot, path, weight, wins = (a.ravel() for a in (rounds.jackpot, rounds.path,
                                                       rounds.weight, rounds.win))
    pays = 1 + nudges + arrow_pays
    if float(cycle) * float(max(int(wins.max()), 1)) * float(pays.max()) >= 2.0 ** 62:
        raise OverflowError(f"cycle {cycle} x wins too large for exact int64 sums")
    hist = np.zeros(int(wins.max()) + 1, dtype=np.int64)
    pays_hist = np.zeros(int(pays.max()) + 1, dtype=np.int64)
    pays_w0 = np.zeros_like(pays_hist)
    jp_counts = np.zeros((3, len(rules.jp_coins)), dtype=np.int64)
    sums = np.zeros(10, dtype=np.int64)
    _accumulate(landing, nudges, arrow_pays, jackpot, path, weight, rules.jp_coins, hist,
                pays_hist, pays_w0, jp_counts, sums)
    assert int(sums[0]) == cycle, "enumeration weights do not add up to the cycle"
    return Enumeration(cycle, hist, *(int(x) for x in sums[1:4]), int(sums[4]), int(sums[7]),
                       int(sums[8]), int(sums[9]), int(sums[5]), int(sums[6]), pays_hist,
                       pays_w0, jp_counts, rounds.landing, rounds.symbol)


# ===========================================================================
# the nudge as absorbing Markov chains
# ===========================================================================
@dataclass(frozen=True)
class NudgeChain:
    """The nudge solved as absorbing Markov chains and mixed over the landing.

    Attributes
    ----------
    chains : slotmath.nudge.ReelChains
        One chain per (reel, winning symbol, landing window).
    pays : ndarray
        ``pays[n]`` = P(a winning spin is paid n times) [probability].
    repay_factor : float
        Total line win over landing line win, ``E[W0 N] / E[W0]``.
    expected_pays : float
        ``E[N | win]``: pays per winning spin.
    nudge_rtp, arrow_rtp : float
        Nudge and arrow re-pays [x total bet].
    jackpot_after_nudge : ndarray, shape (J,)
        P(jackpot j is won after the nudges) per spin [probability].
    reel_table : DataFrame
        Per reel: P(nudge k+1 | k nudges), P(arrow), over winning spins.
    class_prob : ndarray, shape (R, X, D)
        P(reel r lands in class d and the winning symbol is the x-th).
    """

    chains: object
    pays: np.ndarray
    repay_factor: float
    expected_pays: float
    nudge_rtp: float
    arrow_rtp: float
    jackpot_after_nudge: np.ndarray
    reel_table: pd.DataFrame
    class_prob: np.ndarray

    def busiest(self, reel: int = 0) -> tuple:
        """(reel, symbol position, class) of the reel's most likely chain."""
        x, d = np.unravel_index(np.argmax(self.class_prob[reel]), self.class_prob[reel].shape)
        return reel, int(x), int(d)


def nudge_chain(rules: Rules, ex: Enumeration) -> NudgeChain:
    """Solve the nudge as absorbing Markov chains (see :mod:`slotmath.nudge`).

    Landing classes are the distinct windows of each reel.  Given the
    reels' windows the landing win ``W0`` and the winning symbol ``X`` are
    fixed (read from the enumeration at one stop per class) and the stops
    are independent within their classes, so each reel nudges by the chain
    of (reel, ``X``, window) and a spin is the landing-weighted mixture of
    the reels' independent chains.
    """
    game = rules.game
    R = game.reels
    klass = np.zeros_like(rules.strips)
    reps, n_classes = [], []
    for r in range(R):
        n = rules.lengths[r]
        _, first, inv = np.unique(rules.windows[r, :n], axis=0, return_index=True,
                                  return_inverse=True)
        klass[r, :n] = inv.ravel()
        reps.append(first)
        n_classes.append(len(first))
    D = max(n_classes)
    xs = np.unique(rules.entry_symbol)
    chains = reel_chains(rules.strips, rules.lengths, rules.weights, klass, D, xs, rules.arrow,
                         rules.n_symbols)
    landing = ex.round_landing[np.ix_(*reps)].astype(np.float64)
    symbol = ex.round_symbol[np.ix_(*reps)]
    prob = np.ones(())
    for r in range(R):
        cwr = chains.class_weight[r, :n_classes[r]].astype(np.float64)
        prob = np.multiply.outer(prob, cwr / cwr.sum())
    moves = chains.moves_distribution
    nudge_mean, arrow_mean = chains.nudge_arrow_means
    S = rules.n_symbols
    J = len(rules.jp_coins)
    # cap index -> jackpot code: 0 none, 1 + rank for a jackpot symbol on top of X
    cap_code = np.zeros(S + 2, dtype=np.int64)
    for s in range(S):
        if rules.jp_rank[s] >= 0:
            cap_code[s] = 1 + rules.jp_rank[s]
    pays = np.zeros(moves.shape[-1] * R + 1)
    e_w0, e_w0_nudge, e_w0_arrow, p_win = 0.0, 0.0, 0.0, 0.0
    jackpots = np.zeros(J)
    class_prob = np.zeros(chains.visits.shape[:3])  # P(reel r lands class d, winning symbol x)
    grid = np.stack(np.meshgrid(*([np.arange(J + 1)] * R), indexing="ij"))
    all_jp = (grid > 0).all(axis=0)   # every reel caps its stack with a jackpot symbol
    low = grid.min(axis=0) - 1        # the lowest of them (rule R17)
    for xi, x in enumerate(chains.symbols):
        mask = symbol == x
        if not mask.any():
            continue
        # only the classes that take part in a win with x
        keep = [np.flatnonzero(mask.any(axis=tuple(a for a in range(R) if a != r)))
                for r in range(R)]
        sub = np.ix_(*keep)
        T = np.where(mask[sub], prob[sub], 0.0)
        TW = T * landing[sub]
        p_win += T.sum()
        e_w0 += TW.sum()
        factors = [moves[r, xi, keep[r]] for r in range(R)]
        dist = sum_distribution(T, factors)
        pays[1:1 + len(dist)] += dist
        for r in range(R):
            axes = tuple(a for a in range(R) if a != r)
            class_prob[r, xi, keep[r]] = T.sum(axis=axes)
            marg = TW.sum(axis=axes)
            e_w0_nudge += marg @ nudge_mean[r, xi, keep[r]]
            e_w0_arrow += marg @ arrow_mean[r, xi, keep[r]]
        caps = []
        for r in range(R):
            cd = chains.cap_distribution[r, xi, keep[r]]
            g = np.zeros((len(keep[r]), J + 1))
            for c in range(S + 2):
                g[:, cap_code[c]] += cd[:, c]
            caps.append(g)
        joint = joint_distribution(T, caps)
        for j in range(J):
            jackpots[j] += joint[all_jp & (low == j)].sum()
    pays = pays[:np.flatnonzero(pays)[-1] + 1] / p_win
    bet = rules.total_bet
    return NudgeChain(chains, pays, (e_w0 + e_w0_nudge + e_w0_arrow) / e_w0,
                      float((pays * np.arange(len(pays))).sum()), e_w0_nudge / bet,
                      e_w0_arrow / bet, jackpots, _reel_table(chains, class_prob, p_win),
                      class_prob)


def solve_nudge(game: Game, level: int) -> NudgeChain:
    """The nudge chains of ``game`` at ``level`` (see :func:`nudge_chain`)."""
    rules = compile_rules(game, level)
    return nudge_chain(rules, enumerate_cycle(rules))


def _reel_table(chains, class_prob, p_win) -> pd.DataFrame:
    """Per reel and state ``(k nudges, arrow unused)``, the chains'
    transition probabilities averaged over winning spins (each chain
    weighted by its probability of reaching the state)."""
    R = class_prob.shape[0]
    K = int((~chains.arrow_used).sum())
    rows = []
    for r in range(R):
        v = np.einsum("xd,xdt->t", class_prob[r], chains.visits[r])
        flow = np.einsum("xd,xdt,xdts->ts", class_prob[r], chains.visits[r], chains.Q[r])
        for k in range(K - 1):
            if v[k] > 0:
                nxt, arrow = flow[k, k + 1], flow[k, K:].sum()
                rows.append({"reel": r + 1, "nudges so far": k, "P(reach | win)": v[k] / p_win,
                             "P(nudge again)": nxt / v[k], "P(arrow fires)": arrow / v[k],
                             "P(stop)": 1 - (nxt + arrow) / v[k]})
    return pd.DataFrame(rows)


# ===========================================================================
# analysis
# ===========================================================================
def cycle_figures(rules: Rules, ex: Enumeration) -> tuple:
    """RTP components [x total bet], jackpot probabilities, RTP, RTP without
    the progressive and the coin-win distribution of an enumerated cycle."""
    opts = rules.options
    C, tb = ex.cycle, rules.total_bet
    components = {LANDING: Fraction(ex.landing, C * tb), NUDGES: Fraction(ex.nudge, C * tb),
                  ARROWS: Fraction(ex.arrow, C * tb)}
    jp_prob = {}
    for k, j in enumerate(opts.jackpots):
        hits = int(ex.jp_counts[:, k].sum())
        jp_prob[j.name] = Fraction(hits, C)
        if j.pay_per_level is not None:
            components[j.name] = Fraction(hits * int(rules.jp_coins[k]), C * tb)
        else:
            components[j.name] = opts.progressive.contribution_rate
    rtp = sum(components.values(), Fraction(0))
    dist = WinDistribution.from_histogram(ex.hist, 1, tb)
    base = rtp - sum((components[j.name] for j in opts.jackpots if j.pay_per_level is None),
                     Fraction(0))
    assert dist.mean == base, "win distribution disagrees with the RTP components"
    return components, jp_prob, rtp, base, dist


def analyse(game: Game, level: int) -> ParResult:
    """Exact PAR figures of Grand Spinn Superpot at bet ``level``."""
    rules = compile_rules(game, level)
    opts = rules.options
    bet = game.bet(level)
    ex = enumerate_cycle(rules)
    C, tb = ex.cycle, bet.total_bet
    components, jp_prob, rtp, base, dist = cycle_figures(rules, ex)
    lines_rtp, per_line = line_rtp(game, level)
    assert lines_rtp == components[LANDING], "landing line RTP disagrees with the engine"
    chain = nudge_chain(rules, ex)
    features = _features(game, rules, ex, chain, components, jp_prob, rtp, base, dist)
    tables = _tables(rules, ex, chain, components, jp_prob, features)
    notes = _notes(opts, features)
    return ParResult(game=game, bet=bet, cycle=C, rtp=rtp, components=components,
                     distribution=dist, combinations=combination_table(game, level),
                     per_line_rtp=per_line, features=features, tables=tables, notes=notes)


def pays_distribution(ex: Enumeration) -> np.ndarray:
    """P(a winning spin is paid n times), exact enumeration [probability]."""
    nz = np.flatnonzero(ex.pays_hist)
    out = np.array([float(Fraction(int(c), ex.win_rounds)) for c in ex.pays_hist[:nz[-1] + 1]])
    return out


def _one_in(p) -> float | None:
    return float(1 / p) if p else None


def levels_proportional(game: Game) -> bool:
    """True when every coin amount is proportional to the bet level (line
    pays by level and fixed jackpots), so the RTP is the same at every level."""
    return all(lp.pays[i] * game.levels[0] == lp.pays[0] * lv
               for lp in game.line_pays for i, lv in enumerate(game.levels))


def _features(game, rules, ex, chain, components, jp_prob, rtp, base, dist) -> dict:
    opts = rules.options
    C = ex.cycle
    exact_pays = pays_distribution(ex)
    n = max(len(exact_pays), len(chain.pays))
    a = np.zeros(n)
    b = np.zeros(n)
    a[:len(exact_pays)] = exact_pays
    b[:len(chain.pays)] = chain.pays
    repay_exact = Fraction(ex.landing + ex.nudge + ex.arrow, ex.landing) if ex.landing else None
    expected_pays_exact = Fraction(int((ex.pays_hist * np.arange(len(ex.pays_hist))).sum()),
                                   ex.win_rounds) if ex.win_rounds else None
    jp_nudge_exact = [Fraction(int(ex.jp_counts[PATH_NUDGE, k]), C)
                      for k in range(len(opts.jackpots))]
    agreement = {
        "pays_distribution_max_abs_diff": float(np.abs(a - b).max()),
        "repay_factor_abs_diff": abs(float(repay_exact) - chain.repay_factor),
        "expected_pays_abs_diff": abs(float(expected_pays_exact) - chain.expected_pays),
        "nudge_rtp_abs_diff": abs(float(components[NUDGES]) - chain.nudge_rtp),
        "arrow_rtp_abs_diff": abs(float(components[ARROWS]) - chain.arrow_rtp),
        "jackpot_after_nudge_max_abs_diff": float(max(
            abs(float(p) - q) for p, q in zip(jp_nudge_exact, chain.jackpot_after_nudge))),
    }
    jackpots = {}
    for k, j in enumerate(opts.jackpots):
        p = jp_prob[j.name]
        jackpots[j.name] = {
            "symbol": j.symbol,
            "award_coins": None if j.pay_per_level is None else int(rules.jp_coins[k]),
            "award_x_total_bet": None if j.pay_per_level is None else
            float(Fraction(int(rules.jp_coins[k]), rules.total_bet)),
            "progressive": j.pay_per_level is None,
            "probability": float(p), "probability_exact": fraction_str(p),
            "one_in": _one_in(p),
            "after_nudge_probability": float(jp_nudge_exact[k]),
            "on_line_without_win_probability": float(Fraction(int(ex.jp_counts[PATH_LINE, k]), C)),
            "rtp": float(components[j.name]),
        }
    prog = opts.progressive
    pj = opts.progressive_jackpot
    super_fig = None
    if pj is not None:
        p = jp_prob[pj.name]
        net = opts.network
        super_fig = {
            "name": pj.name,
            "convention": "RTP counts the meter and reserve contributions "
                          f"({float(prog.meter_rate):.2%} + {float(prog.reserve_rate):.2%} = "
                          f"{float(prog.contribution_rate):.2%} of every bet); the operator's "
                          f"reseed of {float(prog.reseed):,.0f} {prog.currency} is extra and "
                          "depends on the bet size (seed_rtp_by_bet)",
            "meter_rate": float(prog.meter_rate), "reserve_rate": float(prog.reserve_rate),
            "reseed": float(prog.reseed), "currency": prog.currency,
            "hit_probability": float(p), "hit_probability_exact": fraction_str(p),
            "one_in": _one_in(p),
            "reference": renewal_figures(prog, p, net.reference_bet, net.players,
                                         net.seconds_per_spin, net.window_seconds) if p else None,
            "seed_rtp_by_bet": _seed_table(game, opts, p, rtp),
        }
    per_level = levels_proportional(game)
    features = {
        "rtp_convention": "contributions",
        "rtp_excluding_progressive": float(base),
        "rtp_excluding_progressive_exact": fraction_str(base),
        "rtp_by_level": {str(lv): {"rtp": float(rtp), "rtp_exact": fraction_str(rtp)}
                         for lv in game.levels} if per_level else None,
        "rtp_same_at_every_level": per_level,
        "hit_frequency_note": "hit frequency, SD, VI and max win are of the coin win of a spin "
                              "(landing wins, nudge and arrow re-pays, fixed jackpots); the "
                              "progressive is not a coin win",
        "line_win_probability": float(Fraction(ex.win_rounds, C)),
        "nudge": {
            "winning_spins_with_a_nudge": float(Fraction(ex.nudge_rounds, ex.win_rounds)),
            "winning_spins_with_an_arrow": float(Fraction(ex.arrow_rounds, ex.win_rounds)),
            "expected_pays_per_winning_spin": float(expected_pays_exact),
            "expected_pays_per_winning_spin_exact": fraction_str(expected_pays_exact),
            "repay_factor": float(repay_exact),
            "repay_factor_exact": fraction_str(repay_exact),
            "pays_distribution": [
                {"pays": int(k), "probability": float(v), "one_in_winning_spins": _one_in(v)}
                for k, v in enumerate(exact_pays) if v > 0],
            "markov_chain": {
                "pays_distribution": [float(v) for v in chain.pays],
                "expected_pays_per_winning_spin": chain.expected_pays,
                "repay_factor": chain.repay_factor,
                "nudge_rtp": chain.nudge_rtp, "arrow_rtp": chain.arrow_rtp,
                "jackpot_after_nudge": {j.name: float(chain.jackpot_after_nudge[k])
                                        for k, j in enumerate(opts.jackpots)},
                "agreement": agreement,
            },
        },
        "jackpots": jackpots,
        "super": super_fig,
        "max_win_coins": int(dist.wins[-1]),
    }
    return features


def _seed_table(game, opts, p, rtp) -> list:
    """Reseed return as a function of the bet: every coin value x level."""
    prog = opts.progressive
    rows = []
    for cv in opts.coin_values:
        for b in game.bet_levels:
            stake = cv * b.total_bet
            seed = prog.seed_rtp(p, stake)
            rows.append({"coin_value": float(cv), "level": b.level, "total_bet": float(stake),
                         "seed_rtp": float(seed), "rtp_with_seed": float(rtp + seed)})
    return rows


def _tables(rules, ex, chain, components, jp_prob, features) -> dict:
    comp = pd.DataFrame({"component": list(components),
                         "rtp": [float(v) for v in components.values()],
                         "rtp_exact": [fraction_str(v) for v in components.values()]})
    pays = pd.DataFrame(features["nudge"]["pays_distribution"])
    pays["markov_chain"] = [chain.pays[k] if k < len(chain.pays) else 0.0 for k in pays["pays"]]
    jp = pd.DataFrame([{"jackpot": k, "probability": v["probability"], "one_in": v["one_in"],
                        "after nudges": v["after_nudge_probability"],
                        "on a line, no win": v["on_line_without_win_probability"],
                        "award [coins]": v["award_coins"], "rtp": v["rtp"]}
                       for k, v in features["jackpots"].items()])
    out = {"RTP by component": comp, "Pays per winning spin": pays, "Jackpots": jp,
           "Nudge chain by reel": chain.reel_table}
    sup = features.get("super")
    if sup and sup["reference"]:
        out["Super progressive (reference bet)"] = pd.DataFrame(
            [(k, f"{v:,.6g}" if isinstance(v, float) else v)
             for k, v in sup["reference"].items()], columns=["figure", "value"])
    return out


def _notes(opts, features) -> list:
    notes = [
        "Rules as resolved in docs/games/grand_spinn_superpot.md: nudges re-pay the whole "
        "landing line win; the winning symbol is that of the highest line win.",
        features["hit_frequency_note"] + ".",
    ]
    sup = features.get("super")
    if sup:
        notes.append(f"Super: {sup['convention']}.")
    return notes


# ===========================================================================
# step by step (pictures)
# ===========================================================================
@dataclass(frozen=True)
class Step:
    """One step of a round as the player sees it.

    Attributes
    ----------
    kind : str
        ``land``, ``nudge``, ``arrow``, ``jackpot`` or ``end``.
    reel : int or None
        Reel moved (0-based).
    stops : tuple
        Stop of every reel after the step.
    window : ndarray of str, shape (R, H)
        Symbols shown (a used arrow shows as the blank).
    pay : int
        Coins paid by this step.
    total : int
        Coins paid so far in the round.
    text : str
    highlight : ndarray of bool, shape (R, H)
    """

    kind: str
    reel: int | None
    stops: tuple
    window: np.ndarray
    pay: int
    total: int
    text: str
    highlight: np.ndarray

    def frame(self) -> Frame:
        return Frame(self.window, self.text, self.highlight)


def play_steps(game: Game, level: int, stops) -> list:
    """Play a round from landing ``stops`` step by step, for display.

    A plain-Python reading of the rules (the reels actually move, the arrow
    is blanked in place); the totals agree with :func:`play_round`.
    """
    opts = parse_options(game)
    idx = game.symbol_index
    strips = [s.symbols for s in game.strips()]
    R, H = game.reels, game.rows
    cp = compile_pays(game, level)
    bet = game.bet(level)
    stops = [int(s) % len(strips[r]) for r, s in enumerate(stops)]
    blanked = [None] * R
    jp_of = {j.symbol: k for k, j in enumerate(opts.jackpots)}

    def cell(r, pos):
        pos %= len(strips[r])
        return opts.arrow_becomes if blanked[r] == pos else strips[r][pos]

    def window():
        return np.array([[cell(r, stops[r] + k) for k in range(H)] for r in range(R)], dtype=object)

    def mask(cells):
        m = np.zeros((R, H), dtype=bool)
        for r, k in cells:
            m[r, k] = True
        return m

    win0 = window()
    line_results = []
    for l, line in enumerate(game.paylines):
        x = np.array([idx[win0[r, line[r]]] for r in range(R)], dtype=np.int64)
        w, e, m = line_pay(x, *cp.arrays)
        if w > 0:
            line_results.append((l, int(w), int(e), int(m)))
    landing = sum(w for _, w, _, _ in line_results)
    steps = []
    if landing == 0:
        best = -1
        best_line = None
        for l, line in enumerate(game.paylines):
            cells = [win0[r, line[r]] for r in range(R)]
            if all(c in jp_of for c in cells):
                low = min(jp_of[c] for c in cells)
                if low > best:
                    best, best_line = low, l
        steps.append(Step("land", None, tuple(stops), win0, 0, 0, "landing: no line win",
                          mask([])))
        if best >= 0:
            j = opts.jackpots[best]
            coins = 0 if j.pay_per_level is None else j.pay_per_level * bet.level
            cells = [(r, game.paylines[best_line][r]) for r in range(R)]
            steps.append(Step("jackpot", None, tuple(stops), win0, coins, coins,
                              f"{j.name} jackpot: 3 jackpot symbols on line {best_line + 1}",
                              mask(cells)))
        return steps
    # winning symbol: highest line win, then first pay entry, then lowest line
    top_line = min(line_results, key=lambda t: (-t[1], t[2], t[0]))
    x = next(iter(game.line_pays[top_line[2]].positions[0]))
    cells = [(r, game.paylines[l][r]) for l, *_ in line_results for r in range(R)]
    total = landing
    desc = ", ".join(f"line {l + 1}: {game.line_pays[e].name}"
                     f"{f' x{m}' if m > 1 else ''} = {w}" for l, w, e, m in line_results)
    steps.append(Step("land", None, tuple(stops), win0, landing, total,
                      f"landing: {desc}; winning symbol {x}", mask(cells)))
    for r in range(R):
        n = len(strips[r])
        guard = 0
        while True:
            guard += 1
            if guard > 2 * n + 2:
                raise RuntimeError(f"reel {r + 1}: the nudge does not end")
            top = cell(r, stops[r])
            if top == x:
                stops[r] = (stops[r] - 1) % n
                total += landing
                steps.append(Step("nudge", r, tuple(stops), window(), landing, total,
                                  f"reel {r + 1} nudges down: pays {landing} again",
                                  mask([(r, k) for k in range(H) if cell(r, stops[r] + k) == x])))
            elif top == opts.arrow and cell(r, stops[r] + 1) == x:
                blanked[r] = stops[r] % n
                bottom = stops[r] + 1
                while cell(r, bottom + 1) == x:
                    bottom += 1
                stops[r] = (bottom - 1) % n
                total += landing
                steps.append(Step("arrow", r, tuple(stops), window(), landing, total,
                                  f"reel {r + 1} up arrow: back to the bottom of the {x} stack, "
                                  f"pays {landing} again",
                                  mask([(r, k) for k in range(H) if cell(r, stops[r] + k) == x])))
            else:
                break
    final = window()
    ranks = []
    for r in range(R):
        t, below = final[r, 0], final[r, 1]
        ranks.append(jp_of[t] if t in jp_of and below == x else None)
    if all(k is not None for k in ranks):
        j = opts.jackpots[min(ranks)]
        coins = 0 if j.pay_per_level is None else j.pay_per_level * bet.level
        total += coins
        steps.append(Step("jackpot", None, tuple(stops), final, coins, total,
                          f"{j.name} jackpot: a jackpot symbol on top of every {x} stack",
                          mask([(r, 0) for r in range(R)])))
    steps.append(Step("end", None, tuple(stops), final, 0, total,
                      f"round pays {total} coins", mask([])))
    return steps


def steps_frame(steps: list) -> pd.DataFrame:
    """The steps of a round as a table (step, kind, reel, stops, pay, total, text)."""
    return pd.DataFrame([{"step": i + 1, "kind": s.kind,
                          "reel": None if s.reel is None else s.reel + 1,
                          "stops": s.stops, "pay [coins]": s.pay, "total [coins]": s.total,
                          "what happens": s.text} for i, s in enumerate(steps)])


EXAMPLES = ("any", "win", "nudge", "arrow", "jackpot", "max win")


def example_stops(game: Game, level: int, kind: str = "any", seed: int = 0) -> tuple:
    """Stops of a round drawn with the game's stop weights, given that it is
    of ``kind`` (:data:`EXAMPLES` or a jackpot name such as ``"Mini"``).

    ``"any"`` is a plain seeded spin; the others draw among the stop
    combinations with that outcome (from the enumeration), weighted.
    """
    rules = compile_rules(game, level)
    rounds = play_all(rules)
    names = [j.name for j in rules.options.jackpots]
    masks = {"any": np.ones(rounds.win.shape, dtype=bool), "win": rounds.win > 0,
             "nudge": rounds.nudges > 0, "arrow": rounds.arrow_pays > 0,
             "jackpot": rounds.jackpot >= 0, "max win": rounds.win == rounds.win.max()}
    for k, name in enumerate(names):
        masks[name] = rounds.jackpot == k
    if kind not in masks:
        raise ValueError(f"unknown example {kind!r} (choose from {', '.join(masks)})")
    idx = np.argwhere(masks[kind] & (rounds.weight > 0))
    if not len(idx):
        raise ValueError(f"no round of kind {kind!r}")
    w = rounds.weight[tuple(idx.T)].astype(np.float64)
    pick = np.random.default_rng(seed).choice(len(idx), p=w / w.sum())
    return tuple(int(v) for v in idx[pick])


def draw_round(game: Game, level: int, stops, ncols: int = 4):
    """Every step of the round from ``stops`` as a figure (see :mod:`slotmath.draw`)."""
    steps = play_steps(game, level, stops)
    frames = [Frame(s.window, f"{i + 1}. {s.text}" if len(s.text) < 60 else
                    f"{i + 1}. {s.kind}: {s.pay} (total {s.total})", s.highlight)
              for i, s in enumerate(steps)]
    return draw_frames(game, frames, ncols=ncols, title=f"{game.title}: stops {tuple(stops)}")


# ===========================================================================
# Monte Carlo: an independent, literal implementation (its own module)
# ===========================================================================
def exact_events(game: Game, level: int) -> dict:
    """Exact per-round probability of each sampler event."""
    rules = compile_rules(game, level)
    ex = enumerate_cycle(rules)
    C = ex.cycle
    out = {}
    for k, j in enumerate(rules.options.jackpots):
        out[j.name.lower()] = float(Fraction(int(ex.jp_counts[:, k].sum()), C))
    out["line_win"] = float(Fraction(ex.win_rounds, C))
    out["nudge"] = float(Fraction(ex.repay_rounds, C))
    out["arrow"] = float(Fraction(ex.arrow_rounds, C))
    out["jackpot_without_win"] = float(Fraction(int(ex.jp_counts[PATH_LINE].sum()), C))
    out["endless_nudge"] = 0.0
    return out


# ===========================================================================
# reel tuning hooks (slotmath.tune)
# ===========================================================================
def equivalent_levels(game: Game) -> dict:
    """Every level has the figures of the lowest when coin amounts are
    proportional to the level (:func:`levels_proportional`)."""
    same = levels_proportional(game)
    return {lv: game.levels[0] if same else lv for lv in game.levels}


def tuning_stop_values(game: Game, level: int, reel_set: str = "base") -> dict:
    """Exact per-stop coefficients of the tuned figures
    (:func:`slotmath.games.grand_spinn_superpot_strips.tuning_stop_values`)."""
    from .grand_spinn_superpot_strips import tuning_stop_values as values

    return values(game, level, reel_set)


# ---------------------------------------------------------------------------
# tuning_figures: the exact figures the reel-tuning workbench and the tuner
# read after every change (slotmath.figures.game_figures)
# ---------------------------------------------------------------------------
_PLAYED: dict = {}


def played_rounds(rules: Rules) -> Rounds:
    """:func:`play_all` of ``rules``, reused while only the stop weights
    change (the play-out of a stop combination does not depend on them):
    cached on the physical strips, symbols, pays, lines, options and level."""
    game = rules.game
    key = (rules.level, game.rows, game.symbols, game.line_pays, game.paylines,
           repr(game.options), rules.strips.tobytes(), rules.lengths.tobytes())
    rounds = _PLAYED.get(key)
    if rounds is None:
        rounds = play_all(rules)
        _PLAYED.clear()                      # one play-out kept (about 10 arrays of the cycle)
        _PLAYED[key] = rounds
        return rounds
    weight = np.ones((), dtype=np.int64)
    for r in range(game.reels):
        weight = np.multiply.outer(weight, rules.weights[r, :rules.lengths[r]])
    return dataclasses.replace(rounds, weight=weight)


def tuning_figures(game: Game, level: int) -> dict:
    """Exact figures of ``game`` at bet ``level`` for tuning, without the
    Markov-chain cross-check, combination and report tables of :func:`analyse`.

    ``rtp``, ``rtp:<component>``, ``hit_frequency``, ``sd``, ``max_win``
    (as :func:`slotmath.figures.par_figures` reads them from :func:`analyse`),
    ``feature_frequency`` (P(the nudge feature re-pays the win at least once:
    a nudge or an arrow)) and the nudge, line-win and Super figures of the
    PAR ``features`` as ``feature:<key>[.<sub>]``.  A change of stop weights
    reuses the play-out of every stop combination (:func:`played_rounds`).
    """
    rules = compile_rules(game, level)
    ex = enumerate_cycle(rules, played_rounds(rules))
    components, jp_prob, rtp, base, dist = cycle_figures(rules, ex)
    C = ex.cycle
    figs = {"rtp": rtp, "hit_frequency": dist.hit_frequency, "sd": dist.sd,
            "max_win": dist.max_win, "feature_frequency": Fraction(ex.repay_rounds, C)}
    figs.update({f"rtp:{name}": value for name, value in components.items()})
    figs["feature:rtp_excluding_progressive"] = float(base)
    figs["feature:line_win_probability"] = float(Fraction(ex.win_rounds, C))
    figs["feature:max_win_coins"] = int(dist.wins[-1])
    if ex.win_rounds:
        figs["feature:nudge.winning_spins_with_a_nudge"] = float(Fraction(ex.nudge_rounds, ex.win_rounds))
        figs["feature:nudge.winning_spins_with_an_arrow"] = float(Fraction(ex.arrow_rounds, ex.win_rounds))
        pays = int((ex.pays_hist * np.arange(len(ex.pays_hist))).sum())
        figs["feature:nudge.expected_pays_per_winning_spin"] = float(Fraction(pays, ex.win_rounds))
    if ex.landing:
        figs["feature:nudge.repay_factor"] = float(Fraction(ex.landing + ex.nudge + ex.arrow,
                                                            ex.landing))
    pj = rules.options.progressive_jackpot
    if pj is not None:
        figs["feature:super.hit_probability"] = float(jp_prob[pj.name])
        if jp_prob[pj.name]:
            figs["feature:super.one_in"] = _one_in(jp_prob[pj.name])
    return figs
