"""Grand Spinn Superpot: the rules compiled for the numba kernels, one round on
the exact path, and the full enumeration of the cycle."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from slotmath.engine.cache import game_cache
from slotmath.engine.lines import pay_tensor, prefix_determined
from slotmath.engine.reels import strip_indices, windows
from slotmath.engine.stopwalk import enter_reel, next_stop
from slotmath.features.nudge import nudge_reel, reel_cap
from slotmath.io.gamefile import GameFileError
from slotmath.model import Game
from slotmath.rules.grand_spinn_superpot.options import Options, parse_options

# ===========================================================================
# compiled rules
# ===========================================================================
#: Outcome of a round's jackpot check (``path`` of :func:`play_round`).
PATH_NONE, PATH_NUDGE, PATH_LINE = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Rules:
    """The game at one bet level as arrays for the numba kernels.

    Attributes
    ----------
    strips, weights : ndarray of int64, shape (R, Nmax)
        Symbol index and stop weight of every strip position (zero-padded).
    lengths : ndarray of int64, shape (R,)
    windows : ndarray of int64, shape (R, Nmax, H)
        Window of every stop (:func:`slotmath.engine.reels.windows`).
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
        return (
            self.part,
            self.jp_lines,
            self.strips,
            self.lengths,
            self.windows,
            self.lines,
            self.wins,
            self.entries,
            self.entry_symbol,
            self.arrow,
            self.jp_rank,
            len(self.jp_coins),
        )


def pack_strips(game: Game, reel_set: str = "base"):
    """Physical strips, stop weights, lengths and windows as padded arrays."""
    strips = game.strips(reel_set)
    R, H = game.reels, game.rows
    nmax = max(len(s) for s in strips)
    sym = np.zeros((R, nmax), dtype=np.int64)
    wts = np.zeros((R, nmax), dtype=np.int64)
    win = np.zeros((R, nmax, H), dtype=np.int64)
    for r, s in enumerate(strips):
        sym[r, : len(s)] = strip_indices(game, s)
        wts[r, : len(s)] = s.stop_weights()
        win[r, : len(s)] = windows(game, s)
    return sym, wts, np.array([len(s) for s in strips], dtype=np.int64), win


@game_cache(maxsize=32)
def compile_rules(game: Game, level: int) -> Rules:
    """Arrays of ``game`` at bet ``level`` for the kernels (cached)."""
    opts = parse_options(game)
    bet = game.bet(level)
    idx = game.symbol_index
    strips, weights, lengths, win = pack_strips(game)
    tensor = pay_tensor(game, level)
    entry_symbol = np.array([idx[next(iter(lp.positions[0]))] for lp in game.line_pays], dtype=np.int64)
    jp_rank = np.full(len(game.symbols), -1, dtype=np.int64)
    jp_coins = np.zeros(len(opts.jackpots), dtype=np.int64)
    for k, j in enumerate(opts.jackpots):
        jp_rank[idx[j.symbol]] = k
        jp_coins[k] = 0 if j.pay_per_level is None else j.pay_per_level * bet.level
    lines = np.array(game.paylines, dtype=np.int64)
    if len(lines) > 62:
        raise GameFileError(game.source, "paylines", "at most 62 lines (line bit masks)")
    part, jp_lines = line_parts(win, lengths, lines, len(game.symbols), jp_rank)
    return Rules(
        game,
        level,
        bet.total_bet,
        opts,
        strips,
        weights,
        lengths,
        win,
        lines,
        tensor.wins,
        tensor.entries,
        entry_symbol,
        idx[opts.arrow],
        jp_rank,
        jp_coins,
        part,
        jp_lines,
    )


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
            for line in range(L):
                sym = windows[r, s, lines[line, r]]
                part[r, s, line] = scale * sym
                if jp_rank[sym] >= 0:
                    jp_lines[r, s] |= 1 << line
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
    for line in range(tidx.shape[0]):
        w = wins[tidx[line]]
        if w > 0:
            total += w
            e = entries[tidx[line]]
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
    line = 0
    while mask:
        if mask & 1:
            low = 1 << 30
            for r in range(lines.shape[1]):
                low = min(low, jp_rank[windows[r, stops[r], lines[line, r]]])
            best = max(best, low)
        mask >>= 1
        line += 1
    return best


@nb.njit(cache=True, inline="always")
def round_outcome(
    tidx, mask, stops, strips, lengths, windows, lines, wins, entries, entry_symbol, arrow, jp_rank, n_jp
):
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
def play_round(
    stops, part, jp_lines, strips, lengths, windows, lines, wins, entries, entry_symbol, arrow, jp_rank, n_jp
):
    """Play one round from landing ``stops`` (see :func:`round_outcome`)."""
    L = lines.shape[0]
    tidx = np.zeros(L, dtype=np.int64)
    mask = (1 << L) - 1
    for r in range(strips.shape[0]):
        mask &= jp_lines[r, stops[r]]
        for line in range(L):
            tidx[line] += part[r, stops[r], line]
    return round_outcome(
        tidx, mask, stops, strips, lengths, windows, lines, wins, entries, entry_symbol, arrow, jp_rank, n_jp
    )


# ===========================================================================
# full enumeration
# ===========================================================================
@nb.njit(cache=True)
def _play_all(
    part,
    jp_lines,
    dead,
    strips,
    lengths,
    windows,
    lines,
    wins,
    entries,
    entry_symbol,
    arrow,
    jp_rank,
    jp_coins,
    landing,
    symbol,
    nudges,
    arrow_pays,
    jackpot,
    path,
    win,
):
    """Play every stop combination; round ``t`` (C order over the reels'
    stops) gets its landing win, winning symbol, nudges, arrow pays,
    jackpot, jackpot path and coin win.  The output arrays come filled
    with the outcome of a losing round (0, -1, 0, 0, -1, 0, 0).

    An odometer over the reels builds each line's pay-tensor index and the
    jackpot-line mask reel by reel.  A prefix of stops after which every
    line is lost whatever the remaining reels show (``dead[k][prefix]``,
    from :func:`slotmath.engine.lines.prefix_determined`) and no jackpot line is
    possible is skipped with all its extensions: they lose.  Returns the
    number of rounds whose nudge never ends (0 for a valid game).
    """
    R = strips.shape[0]
    L = lines.shape[0]
    n_jp = jp_coins.shape[0]
    S = jp_rank.shape[0]
    stops = np.zeros(R, dtype=np.int64)
    end = np.zeros(R, dtype=np.int64)
    acc = np.zeros((R, L), dtype=np.int64)  # acc[r]: line parts of reels < r
    tidx = np.zeros(L, dtype=np.int64)
    tacc = np.zeros(R, dtype=np.int64)  # flat round index of the prefix
    macc = np.full(R, (1 << L) - 1, dtype=np.int64)
    errors = 0
    level = enter_reel(stops, end, 0, 0, lengths[0])
    while level >= 0:
        if not next_stop(stops, end, level):
            level -= 1
            continue
        s = stops[level]
        if level < R - 1:
            mask = macc[level] & jp_lines[level, s]
            scale = S ** (R - 1 - level)
            alive = mask != 0
            for line in range(L):
                acc[level + 1, line] = acc[level, line] + part[level, s, line]
                if not alive and not dead[level, acc[level + 1, line] // scale]:
                    alive = True
            if not alive:  # every extension loses: leave the defaults
                continue
            macc[level + 1] = mask
            tacc[level + 1] = (tacc[level] + s) * lengths[level + 1]
            level = enter_reel(stops, end, level + 1, 0, lengths[level + 1])
            continue
        t = tacc[level] + s
        for line in range(L):
            tidx[line] = acc[level, line] + part[level, s, line]
        w0, u, a, jp, how, x = round_outcome(
            tidx,
            macc[level] & jp_lines[level, s],
            stops,
            strips,
            lengths,
            windows,
            lines,
            wins,
            entries,
            entry_symbol,
            arrow,
            jp_rank,
            n_jp,
        )
        if u < 0:
            errors += 1
            continue
        landing[t], symbol[t], nudges[t], arrow_pays[t], jackpot[t], path[t] = w0, x, u, a, jp, how
        win[t] = w0 * (1 + u + a) + (jp_coins[jp] if jp >= 0 else 0)
    return errors


@nb.njit(cache=True)
def _accumulate(
    landing, nudges, arrow_pays, jackpot, path, weight, jp_coins, hist, pays_hist, pays_w0, jp_counts, sums
):
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
    (base S) loses whatever the other reels show (:func:`slotmath.engine.lines.prefix_determined`)."""
    prefix = prefix_determined(pay_tensor(rules.game, rules.level))
    R = rules.game.reels
    out = np.zeros((R, len(prefix[-1])), dtype=np.bool_)
    for k, table in enumerate(prefix):
        out[k, : len(table)] = table == 0
    return out


def play_all(rules: Rules) -> Rounds:
    """Play out every stop combination of ``rules`` (numba)."""
    n = int(np.prod(rules.lengths))
    landing, nudges, arrow_pays, path, win = (np.zeros(n, dtype=np.int64) for _ in range(5))
    symbol, jackpot = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    errors = _play_all(
        rules.part,
        rules.jp_lines,
        dead_prefixes(rules),
        rules.strips,
        rules.lengths,
        rules.windows,
        rules.lines,
        rules.wins,
        rules.entries,
        rules.entry_symbol,
        rules.arrow,
        rules.jp_rank,
        rules.jp_coins,
        landing,
        symbol,
        nudges,
        arrow_pays,
        jackpot,
        path,
        win,
    )
    if errors:
        raise GameFileError(
            rules.game.source,
            "reels.base",
            "a reel shows one paying symbol at every stop: its nudge never ends",
        )
    weight = np.ones((), dtype=np.int64)
    for r in range(rules.game.reels):
        weight = np.multiply.outer(weight, rules.weights[r, : rules.lengths[r]])
    shape = tuple(int(x) for x in rules.lengths)
    return Rounds(
        *(a.reshape(shape) for a in (landing, symbol, nudges, arrow_pays, jackpot, path)),
        weight,
        win.reshape(shape),
    )


def enumerate_cycle(rules: Rules, rounds: Rounds | None = None) -> Enumeration:
    """Play out every stop combination of ``rules`` and total the cycle exactly
    (``rounds``: the play-out when already known, :func:`play_all`)."""
    cycle = rules.game.cycle()
    rounds = play_all(rules) if rounds is None else rounds
    landing, nudges, arrow_pays = (a.ravel() for a in (rounds.landing, rounds.nudges, rounds.arrow_pays))
    jackpot, path, weight, wins = (
        a.ravel() for a in (rounds.jackpot, rounds.path, rounds.weight, rounds.win)
    )
    pays = 1 + nudges + arrow_pays
    if float(cycle) * float(max(int(wins.max()), 1)) * float(pays.max()) >= 2.0**62:
        raise OverflowError(f"cycle {cycle} x wins too large for exact int64 sums")
    hist = np.zeros(int(wins.max()) + 1, dtype=np.int64)
    pays_hist = np.zeros(int(pays.max()) + 1, dtype=np.int64)
    pays_w0 = np.zeros_like(pays_hist)
    jp_counts = np.zeros((3, len(rules.jp_coins)), dtype=np.int64)
    sums = np.zeros(10, dtype=np.int64)
    _accumulate(
        landing,
        nudges,
        arrow_pays,
        jackpot,
        path,
        weight,
        rules.jp_coins,
        hist,
        pays_hist,
        pays_w0,
        jp_counts,
        sums,
    )
    assert int(sums[0]) == cycle, "enumeration weights do not add up to the cycle"
    return Enumeration(
        cycle,
        hist,
        *(int(x) for x in sums[1:4]),
        int(sums[4]),
        int(sums[7]),
        int(sums[8]),
        int(sums[9]),
        int(sums[5]),
        int(sums[6]),
        pays_hist,
        pays_w0,
        jp_counts,
        rounds.landing,
        rounds.symbol,
    )
