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
from slotmath.errors import ensure
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
#: Columns of an outcome (a row of :attr:`Outcomes.table`).
LANDING, SYMBOL, NUDGES, ARROW_PAYS, JACKPOT = range(5)
#: Types of the outcome numbers kept per round, narrowest first.
CODE_TYPES = (np.uint16, np.uint32)


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
    n_jp,
    weights,
    tail,
    codes,
):
    """Play every stop combination and total the stop weights by outcome.

    An outcome is ``(landing, symbol, nudges, arrow_pays, jackpot)``
    (:func:`round_outcome`); outcome 0 is the losing round ``(0, -1, 0, 0,
    -1)``.  Returns ``(errors, table, weight)``: the number of rounds whose
    nudge never ends (0 for a valid game), the distinct outcomes in order of
    first play (shape (K, 5)) and the sum of the stop-weight products of the
    rounds of each (shape (K,)).  When ``codes`` has one entry per round
    (C order over the reels' stops, filled with zeros) round ``t`` gets its
    outcome number ``codes[t]``; pass an empty array to keep nothing per
    round (memory bounded by the number of distinct outcomes).

    An odometer over the reels builds each line's pay-tensor index and the
    jackpot-line mask reel by reel.  A prefix of stops after which every
    line is lost whatever the remaining reels show (``dead[k][prefix]``,
    from :func:`slotmath.engine.lines.prefix_determined`) and no jackpot line is
    possible is skipped with all its extensions: they lose, with weight
    the prefix's times ``tail[k + 1]`` (product of the later reels' total
    weights).
    """
    R = strips.shape[0]
    L = lines.shape[0]
    S = jp_rank.shape[0]
    record = codes.shape[0] > 0
    index = {(0, -1, 0, 0, -1): 0}
    table = [(0, -1, 0, 0, -1)]
    weight = [0]
    stops = np.zeros(R, dtype=np.int64)
    end = np.zeros(R, dtype=np.int64)
    acc = np.zeros((R, L), dtype=np.int64)  # acc[r]: line parts of reels < r
    tidx = np.zeros(L, dtype=np.int64)
    tacc = np.zeros(R, dtype=np.int64)  # flat round index of the prefix
    wacc = np.ones(R, dtype=np.int64)  # wacc[r]: weight product of reels < r
    macc = np.full(R, (1 << L) - 1, dtype=np.int64)
    errors = 0
    level = enter_reel(stops, end, 0, 0, lengths[0])
    while level >= 0:
        if not next_stop(stops, end, level):
            level -= 1
            continue
        s = stops[level]
        w = wacc[level] * weights[level, s]
        if level < R - 1:
            mask = macc[level] & jp_lines[level, s]
            scale = S ** (R - 1 - level)
            alive = mask != 0
            for line in range(L):
                acc[level + 1, line] = acc[level, line] + part[level, s, line]
                if not alive and not dead[level, acc[level + 1, line] // scale]:
                    alive = True
            if not alive:  # every extension loses (outcome 0)
                weight[0] += w * tail[level + 1]
                continue
            macc[level + 1] = mask
            tacc[level + 1] = (tacc[level] + s) * lengths[level + 1]
            wacc[level + 1] = w
            level = enter_reel(stops, end, level + 1, 0, lengths[level + 1])
            continue
        for line in range(L):
            tidx[line] = acc[level, line] + part[level, s, line]
        w0, u, a, jp, _, x = round_outcome(
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
        key = (w0, x, u, a, jp)
        c = index.get(key, -1)
        if c < 0:
            c = len(table)
            index[key] = c
            table.append(key)
            weight.append(0)
        weight[c] += w
        if record:
            codes[tacc[level] + s] = c
    out = np.empty((len(table), 5), dtype=np.int64)
    for c in range(len(table)):
        row = table[c]
        out[c, 0], out[c, 1], out[c, 2], out[c, 3], out[c, 4] = row[0], row[1], row[2], row[3], row[4]
    return errors, out, np.array(weight, dtype=np.int64)


@nb.njit(cache=True, inline="always")
def _round_stops(t, lengths, stops):
    """Write into ``stops`` the stops of round ``t`` (C order over the reels)."""
    for r in range(lengths.shape[0] - 1, -1, -1):
        stops[r] = t % lengths[r]
        t //= lengths[r]


@nb.njit(cache=True)
def _outcome_weights(codes, weights, lengths, n_outcomes):
    """Sum of the stop-weight products of the rounds of each outcome
    (``codes``: outcome number of every round, C order)."""
    R = lengths.shape[0]
    out = np.zeros(n_outcomes, dtype=np.int64)
    stops = np.zeros(R, dtype=np.int64)
    for t in range(codes.shape[0]):
        _round_stops(t, lengths, stops)
        w = 1
        for r in range(R):
            w *= weights[r, stops[r]]
        out[codes[t]] += w
    return out


@nb.njit(cache=True)
def stop_sums(codes, weights, lengths, values):
    """``out[r, s, m]``: sum over the rounds with stop ``s`` on reel ``r`` of
    the other reels' stop-weight product times ``values[code, m]`` (outcome 0,
    the losing round, must have all values 0)."""
    R = lengths.shape[0]
    out = np.zeros((R, weights.shape[1], values.shape[1]))
    stops = np.zeros(R, dtype=np.int64)
    for t in range(codes.shape[0]):
        c = codes[t]
        if c == 0:
            continue
        _round_stops(t, lengths, stops)
        for r in range(R):
            w = 1.0
            for q in range(R):
                if q != r:
                    w *= weights[q, stops[q]]
            for m in range(values.shape[1]):
                out[r, stops[r], m] += w * values[c, m]
    return out


@nb.njit(cache=True)
def _landing_grid(reps, n_reps, part, wins, entries, entry_symbol, landing, symbol):
    """Landing win and winning symbol of round ``t`` of the grid of stops
    ``reps[r, :n_reps[r]]`` (C order) into ``landing[t]``, ``symbol[t]``."""
    R, L = part.shape[0], part.shape[2]
    stops = np.zeros(R, dtype=np.int64)
    tidx = np.zeros(L, dtype=np.int64)
    for t in range(landing.shape[0]):
        _round_stops(t, n_reps, stops)
        tidx[:] = 0
        for r in range(R):
            for line in range(L):
                tidx[line] += part[r, reps[r, stops[r]], line]
        w0, e = lines_win(tidx, wins, entries)
        landing[t] = w0
        symbol[t] = entry_symbol[e] if e >= 0 else -1


def landing_grid(rules: Rules, stops: list) -> tuple:
    """Landing line win [coins] and winning symbol (-1 none) of every
    combination of the stops ``stops[r]`` of each reel r: two int64 arrays
    of shape ``(len(stops[0]), ..., len(stops[R-1]))``."""
    shape = tuple(len(s) for s in stops)
    reps = np.zeros((len(stops), max(shape)), dtype=np.int64)
    for r, s in enumerate(stops):
        reps[r, : len(s)] = s
    landing = np.zeros(int(np.prod(shape)), dtype=np.int64)
    symbol = np.zeros_like(landing)
    n_reps = np.array(shape, dtype=np.int64)
    _landing_grid(reps, n_reps, rules.part, rules.wins, rules.entries, rules.entry_symbol, landing, symbol)
    return landing.reshape(shape), symbol.reshape(shape)


@dataclass(frozen=True)
class Outcomes:
    """The cycle's rounds grouped by outcome.

    Attributes
    ----------
    table : ndarray of int64, shape (K, 5)
        Distinct outcomes, columns :data:`LANDING` [coins], :data:`SYMBOL`
        (winning symbol, -1 none), :data:`NUDGES`, :data:`ARROW_PAYS`,
        :data:`JACKPOT` (rank, -1 none); row 0 is the losing round.
    weight : ndarray of int64, shape (K,)
        Sum of the stop-weight products of the rounds of each outcome.
    codes : ndarray of uint16 or uint32, shape (N_1, ..., N_R), or None
        Outcome of every stop combination, when kept (:func:`play_outcomes`).
    """

    table: np.ndarray
    weight: np.ndarray
    codes: np.ndarray | None = None

    @property
    def path(self) -> np.ndarray:
        """How each outcome's jackpot is won (:data:`PATH_NUDGE` after a
        line win, :data:`PATH_LINE` without one, :data:`PATH_NONE`)."""
        jp = self.table[:, JACKPOT] >= 0
        return np.where(jp, np.where(self.table[:, LANDING] > 0, PATH_NUDGE, PATH_LINE), PATH_NONE)

    def win(self, jp_coins: np.ndarray) -> np.ndarray:
        """Coin win of each outcome (landing win x pays + fixed jackpot)."""
        t = self.table
        jp = t[:, JACKPOT]
        fixed = np.where(jp >= 0, jp_coins[np.maximum(jp, 0)], 0)
        return t[:, LANDING] * (1 + t[:, NUDGES] + t[:, ARROW_PAYS]) + fixed


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
    pays_hist, pays_w0 : ndarray of int64, of Python int
        ``[n]``: weight (and weight x landing win) of winning rounds paid
        ``n`` times (the landing pay, nudges and arrow pays).
    jp_counts : ndarray of int64, shape (3, J)
        Weight of rounds winning jackpot ``j`` by path (after nudges, on a
        line without a win).
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


def reel_weights(rules: Rules) -> list:
    """Stop weights of each reel (int64 arrays of the strip lengths)."""
    return [rules.weights[r, : rules.lengths[r]] for r in range(rules.game.reels)]


def play_outcomes(rules: Rules, keep: bool = False) -> Outcomes:
    """Play out every stop combination of ``rules`` (numba) and group the
    rounds by outcome; ``keep`` also keeps the outcome of every round
    (2 or 4 bytes a round), so that other stop weights can be totalled
    without playing again (:func:`reweigh`)."""
    totals = [int(w.sum()) for w in reel_weights(rules)]
    tail = np.array([int(np.prod(totals[r:], dtype=object)) for r in range(len(totals) + 1)], dtype=np.int64)
    n = int(np.prod(rules.lengths))
    for dtype in CODE_TYPES:
        codes = np.zeros(n if keep else 0, dtype=dtype)
        errors, table, weight = _play_all(
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
            len(rules.jp_coins),
            rules.weights,
            tail,
            codes,
        )
        if not keep or len(table) <= np.iinfo(dtype).max + 1:
            break  # else an outcome number did not fit: play again with wider ones
    if errors:
        raise GameFileError(
            rules.game.source,
            "reels.base",
            "a reel shows one paying symbol at every stop: its nudge never ends",
        )
    shape = tuple(int(x) for x in rules.lengths)
    return Outcomes(table, weight, codes.reshape(shape) if keep else None)


def reweigh(rules: Rules, outcomes: Outcomes) -> Outcomes:
    """``outcomes`` (played with their rounds kept) totalled with the stop
    weights of ``rules`` (same strips, other weights)."""
    weight = _outcome_weights(outcomes.codes.ravel(), rules.weights, rules.lengths, len(outcomes.table))
    return Outcomes(outcomes.table, weight, outcomes.codes)


def play_all(rules: Rules) -> Rounds:
    """Every stop combination of ``rules`` played out, one array entry per
    round (memory: about 64 bytes a round; :func:`play_outcomes` keeps
    only the distinct outcomes)."""
    out = play_outcomes(rules, keep=True)
    codes = out.codes
    weight = np.ones((), dtype=np.int64)
    for w in reel_weights(rules):
        weight = np.multiply.outer(weight, w)
    t = out.table
    return Rounds(
        *(t[:, k][codes] for k in (LANDING, SYMBOL, NUDGES, ARROW_PAYS, JACKPOT)),
        out.path[codes],
        weight,
        out.win(rules.jp_coins)[codes],
    )


def enumerate_cycle(rules: Rules, outcomes: Outcomes | None = None) -> Enumeration:
    """Play out every stop combination of ``rules`` and total the cycle exactly
    (``outcomes``: the rounds grouped by outcome when already known,
    :func:`play_outcomes`).

    Weights of rounds (at most the cycle, below 2**62) are int64; sums of
    weight x coins are Python integers (one term per distinct outcome), so
    no cycle the game file allows overflows."""
    cycle = rules.game.cycle()
    out = play_outcomes(rules) if outcomes is None else outcomes
    t, w = out.table, out.weight
    landing, nudges, arrow_pays, jackpot = (t[:, k] for k in (LANDING, NUDGES, ARROW_PAYS, JACKPOT))
    pays = 1 + nudges + arrow_pays
    wins = out.win(rules.jp_coins)
    ensure(int(w.sum(dtype=object)) == cycle, "enumeration weights do not add up to the cycle")
    hist = np.zeros(int(wins.max()) + 1, dtype=np.int64)
    np.add.at(hist, wins, w)
    won = landing > 0
    pays_hist = np.zeros(int(pays.max()) + 1, dtype=np.int64)
    np.add.at(pays_hist, pays[won], w[won])
    pays_w0 = np.zeros(len(pays_hist), dtype=object)
    np.add.at(pays_w0, pays[won], w[won].astype(object) * landing[won])
    jp_counts = np.zeros((3, len(rules.jp_coins)), dtype=np.int64)
    hit = jackpot >= 0
    np.add.at(jp_counts, (out.path[hit], jackpot[hit]), w[hit])
    wo = w.astype(object)

    def total(values, where=None) -> int:
        return int((wo * values if where is None else (wo * values)[where]).sum())

    return Enumeration(
        cycle,
        hist,
        total(landing),
        total(landing * nudges),
        total(landing * arrow_pays),
        total(1, won),
        total(1, won & (nudges > 0)),
        total(1, won & (arrow_pays > 0)),
        total(1, won & (pays > 1)),
        total(nudges, won),
        total(arrow_pays, won),
        pays_hist,
        pays_w0,
        jp_counts,
    )
