"""Grand Spinn Superpot: the Monte Carlo round sampler, an independent,
literal implementation of the rules of :mod:`.grand_spinn_superpot`.

It shares no evaluation code with the exact engine (neither the pay tensor
nor :func:`slotmath.engine.lines.line_pay`): it is the cross-check of that engine.

Stops
    Each reel draws an exactly uniform weight unit ``u`` below its total
    stop weight (:func:`slotmath.montecarlo.linesim.uniform_below`: 32 random bits,
    Lemire's multiply-and-reject).  ``stop_of[r, u]`` is the stop of reel
    ``r`` owning weight unit ``u`` (stop ``s`` owns ``weights[s]``
    consecutive units); reels with more than :data:`TABLE_LIMIT` units
    search the cumulative weights instead.

Lines
    :func:`literal_line` pays one line straight from the pay table: each
    entry (``pay_count`` of ``pay_symbol`` from reel 1) matches when each of
    its cells shows the symbol or a wild substituting for it; ``c`` wilds
    ``w`` standing in multiply by ``mult[w, c]``; the line pays its best
    entry (the first of equal wins).  It is tabulated once per sampler over
    every symbol tuple of a line (:func:`line_tables`, at most
    :data:`LINE_TABLE_LIMIT` tuples), together with the line's jackpot (the
    lowest, when every reel shows a jackpot symbol: R18), so a round reads
    each line as one index ``sum_r symbol_r * S**(R-1-r)`` into those
    tables.  :func:`play_stops` with ``literal=True`` plays every line by
    :func:`literal_line` instead, to check the tables.

Nudges
    :func:`nudge_reels` moves the reels one position at a time, shows a
    used arrow as a blank (``blanked[r]``) and re-pays the landing win per
    move, as the rules say.

Speed: the round functions are inlined into the kernel (``inline="always"``:
numba would otherwise pass every array through each call); about 5 M rounds
per CPU-second for the kernel (``benchmarks/bench_grand_spinn.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numba as nb
import numpy as np

from slotmath.errors import GameFileError
from slotmath.model import Game
from slotmath.montecarlo.linesim import MAX_REEL_WEIGHT, uniform_below
from slotmath.montecarlo.results import Estimate, SimulationResult
from slotmath.rules.grand_spinn_superpot.options import ARROWS, LANDING, NUDGES

#: Reels whose total stop weight is at most this draw stops from a table.
TABLE_LIMIT = 1 << 20
#: Most symbol tuples of a line the sampler tabulates (three int64 tables).
LINE_TABLE_LIMIT = 1 << 22


# ---------------------------------------------------------------- one line
@nb.njit(cache=True, inline="always")
def literal_line(cell, pay_symbol, pay_count, pay_coins, wilds, subst, mult, counts):
    """Coin win and pay entry (-1: none) of one line showing symbols ``cell``
    (reel 1 first), straight from the pay table; ``counts`` is scratch (S,)."""
    line_w, line_e = 0, -1
    first = cell[0]
    for e in range(pay_symbol.shape[0]):
        x = pay_symbol[e]
        if first != x and not subst[first, x]:
            continue
        for k in range(wilds.shape[0]):
            counts[wilds[k]] = 0
        ok = True
        for r in range(pay_count[e]):
            s = cell[r]
            if s == x:
                continue
            if subst[s, x]:
                counts[s] += 1
            else:
                ok = False
                break
        if not ok:
            continue
        w = pay_coins[e]
        for k in range(wilds.shape[0]):
            w *= mult[wilds[k], counts[wilds[k]]]
        if w > line_w:
            line_w, line_e = w, e
    return line_w, line_e


@nb.njit(cache=True, inline="always")
def line_jackpot(cell, jp_rank):
    """Rank of the lowest jackpot when every cell shows a jackpot symbol, else -1."""
    low = jp_rank.shape[0]
    for r in range(cell.shape[0]):
        k = jp_rank[cell[r]]
        if k < 0:
            return -1
        low = min(low, k)
    return low


@nb.njit(cache=True)
def line_tables(S, R, pay_symbol, pay_count, pay_coins, wilds, subst, mult, jp_rank):
    """:func:`literal_line` and :func:`line_jackpot` of every symbol tuple,
    indexed by ``sum_r symbol_r * S**(R-1-r)``: (coins, entry, jackpot rank)."""
    n = S**R
    coins = np.zeros(n, dtype=np.int64)
    entry = np.full(n, -1, dtype=np.int64)
    jackpot = np.full(n, -1, dtype=np.int64)
    cell = np.zeros(R, dtype=np.int64)
    counts = np.zeros(S, dtype=np.int64)
    for t in range(n):
        v = t
        for r in range(R - 1, -1, -1):
            cell[r] = v % S
            v //= S
        coins[t], entry[t] = literal_line(cell, pay_symbol, pay_count, pay_coins, wilds, subst, mult, counts)
        jackpot[t] = line_jackpot(cell, jp_rank)
    return coins, entry, jackpot


# ---------------------------------------------------------------- one round
@nb.njit(cache=True, inline="always")
def _cell(strip, n, pos, blanked, blank):
    p = pos % n
    if p == blanked:
        return blank
    return strip[p]


@nb.njit(cache=True, inline="always")
def _best(landing, best_w, best_e, w, e):
    """Add line win ``w`` of entry ``e``; keep the highest (first entry among equal wins)."""
    if w > best_w or (w == best_w and e < best_e):
        return landing + w, w, e
    return landing + w, best_w, best_e


@nb.njit(cache=True, inline="always")
def table_lines(pos, wcode, lines, tab_coins, tab_entry, tab_jp):
    """Landing line win [coins], its best entry (highest line win, first
    entry among equal wins; -1: none) and the best line jackpot rank (-1:
    none) of the window at stops ``pos``, from the line tables: ``wcode[r,
    s, k]`` is ``S**(R-1-r)`` times the symbol in row ``k`` of stop ``s`` of
    reel ``r``, so a line's tuple index is a sum over reels."""
    landing, best_w, best_e, jp = 0, 0, -1, -1
    for line in range(lines.shape[0]):
        t = 0
        for r in range(lines.shape[1]):
            t += wcode[r, pos[r], lines[line, r]]
        w = tab_coins[t]
        if w > 0:
            landing, best_w, best_e = _best(landing, best_w, best_e, w, tab_entry[t])
        elif tab_jp[t] > jp:
            jp = tab_jp[t]
    return landing, best_e, jp


@nb.njit(cache=True)
def literal_lines(
    pos, strips, lengths, lines, pay_symbol, pay_count, pay_coins, wilds, subst, mult, jp_rank, scratch
):
    """As :func:`table_lines`, each line played by :func:`literal_line`
    (``scratch`` (2, >= S) holds the line's symbols and the wild counts)."""
    R = lines.shape[1]
    landing, best_w, best_e, jp = 0, 0, -1, -1
    cell, counts = scratch[0, :R], scratch[1]
    for line in range(lines.shape[0]):
        for r in range(R):
            cell[r] = strips[r, (pos[r] + lines[line, r]) % lengths[r]]
        w, e = literal_line(cell, pay_symbol, pay_count, pay_coins, wilds, subst, mult, counts)
        if w > 0:
            landing, best_w, best_e = _best(landing, best_w, best_e, w, e)
        else:
            jp = max(jp, line_jackpot(cell, jp_rank))
    return landing, best_e, jp


@nb.njit(cache=True, inline="always")
def nudge_reels(pos, blanked, x, strips, lengths, arrow, blank, jp_rank):
    """Nudge the reels after a landing win whose winning symbol is ``x``;
    ``pos`` (the landing stops) becomes the final stops, ``blanked[r]`` the
    position of reel ``r``'s used arrow (-1: none).

    Returns ``(pays, arrow_pays, jackpot rank)``: ``arrow_pays`` are the
    pays a reel makes from its arrow on (the jump, then the nudges through
    the stack); ``pays = -1`` when a reel never stops nudging.
    """
    R = strips.shape[0]
    pays, arrow_pays = 1, 0
    for r in range(R):
        blanked[r] = -1
    for r in range(R):
        nr = lengths[r]
        steps = 0
        while True:
            steps += 1
            if steps > 2 * nr + 2:
                return -1, 0, -1
            top = _cell(strips[r], nr, pos[r], blanked[r], blank)
            if top == x:  # nudge one symbol down
                pos[r] = (pos[r] - 1) % nr
                pays += 1
                if blanked[r] >= 0:
                    arrow_pays += 1
            elif top == arrow and _cell(strips[r], nr, pos[r] + 1, blanked[r], blank) == x:
                blanked[r] = pos[r] % nr  # the arrow becomes a blank
                bottom = pos[r] + 1
                while _cell(strips[r], nr, bottom + 1, blanked[r], blank) == x:
                    bottom += 1
                pos[r] = (bottom - 1) % nr  # bottom of the stack in row 2
                pays += 1
                arrow_pays += 1
            else:
                break
    low = jp_rank.shape[0]
    for r in range(R):
        nr = lengths[r]
        k = jp_rank[_cell(strips[r], nr, pos[r], blanked[r], blank)]
        if k < 0 or _cell(strips[r], nr, pos[r] + 1, blanked[r], blank) != x:
            return pays, arrow_pays, -1
        low = min(low, k)
    return pays, arrow_pays, low


@nb.njit(cache=True, inline="always")
def finish_round(
    landing, best_e, jp, pos, blanked, strips, lengths, pay_symbol, arrow, blank, jp_rank, jp_coins
):
    """The rest of a round whose landing lines gave ``(landing, best_e,
    jp)`` (:func:`table_lines`); ``pos`` becomes the final stops.

    Returns ``(win [coins], pays, arrow_pays, jackpot rank)``; ``pays = -1``
    when a reel never stops nudging.
    """
    if landing == 0:  # R18: jackpot on a line, no win
        return (jp_coins[jp] if jp >= 0 else 0), 1, 0, jp
    pays, arrows, low = nudge_reels(pos, blanked, pay_symbol[best_e], strips, lengths, arrow, blank, jp_rank)
    if pays < 0:
        return 0, -1, 0, -1
    return landing * pays + (jp_coins[low] if low >= 0 else 0), pays, arrows, low


# ---------------------------------------------------------------- rounds
@nb.njit(cache=True, inline="always")
def sample_stops(rng, pos, totals, stop_of, cum, lengths):
    """Landing stops of every reel into ``pos``, each weighted by its stop weight."""
    for r in range(pos.shape[0]):
        v = uniform_below(rng, totals[r])
        if stop_of.shape[1] > 0:
            pos[r] = stop_of[r, v]
        else:
            pos[r] = np.searchsorted(cum[r, : lengths[r]], v, side="right")


@nb.njit(cache=True)
def simulate_rounds(
    rng,
    n,
    totals,
    stop_of,
    cum,
    wcode,
    lines,
    tab_coins,
    tab_entry,
    tab_jp,
    strips,
    lengths,
    pay_symbol,
    pay_count,
    pay_coins,
    wilds,
    subst,
    mult,
    arrow,
    blank,
    jp_rank,
    jp_coins,
    total_bet,
    jp_part,
):
    """Play ``n`` rounds with ``rng``; returns (wins [x total bet], event
    counts, wins by part [x total bet]).

    Events: jackpots by rank, then rounds with a line win, with a nudge or
    arrow re-pay, with an arrow, jackpots won without a line win, rounds
    whose nudge never ends (their win is recorded as 0).  Parts: the
    landing line win, the nudge re-pays, the arrow re-pays, then jackpot
    ``k``'s pay in part ``jp_part[k]`` (-1: a progressive, paid by no round).
    """
    R = strips.shape[0]
    J = jp_coins.shape[0]
    wins = np.zeros(n)
    parts = np.zeros((n, max(3, jp_part.max() + 1) if J else 3))
    events = np.zeros(J + 5, dtype=np.int64)
    pos = np.zeros(R, dtype=np.int64)
    blanked = np.full(R, -1, dtype=np.int64)
    for i in range(n):
        sample_stops(rng, pos, totals, stop_of, cum, lengths)
        landing, best_e, jp = table_lines(pos, wcode, lines, tab_coins, tab_entry, tab_jp)
        win, pays, arrows, jp = finish_round(
            landing, best_e, jp, pos, blanked, strips, lengths, pay_symbol, arrow, blank, jp_rank, jp_coins
        )
        if pays < 0:
            events[J + 4] += 1
            continue
        if jp >= 0:
            events[jp] += 1
            if jp_part[jp] >= 0:
                parts[i, jp_part[jp]] = jp_coins[jp] / total_bet
        if landing > 0:
            parts[i, 0] = landing / total_bet
            parts[i, 1] = landing * (pays - 1 - arrows) / total_bet
            parts[i, 2] = landing * arrows / total_bet
            events[J] += 1
            if pays > 1:
                events[J + 1] += 1
            if arrows > 0:
                events[J + 2] += 1
        elif jp >= 0:
            events[J + 3] += 1
        wins[i] = win / total_bet
    return wins, events, parts


@nb.njit(cache=True)
def play_stops_kernel(
    stops,
    literal,
    wcode,
    lines,
    tab_coins,
    tab_entry,
    tab_jp,
    strips,
    lengths,
    pay_symbol,
    pay_count,
    pay_coins,
    wilds,
    subst,
    mult,
    arrow,
    blank,
    jp_rank,
    jp_coins,
):
    """The round of every row of ``stops`` (n, R), lines from the tables or
    (``literal``) by :func:`literal_lines`: an (n, 6) int64 array of (win
    [coins], landing [coins], pays, arrow pays, jackpot, won without a
    line win)."""
    n, R = stops.shape
    out = np.zeros((n, 6), dtype=np.int64)
    pos = np.zeros(R, dtype=np.int64)
    blanked = np.full(R, -1, dtype=np.int64)
    scratch = np.zeros((2, max(R, jp_rank.shape[0])), dtype=np.int64)
    for i in range(n):
        for r in range(R):
            pos[r] = stops[i, r]
        if literal:
            landing, best_e, jp = literal_lines(
                pos,
                strips,
                lengths,
                lines,
                pay_symbol,
                pay_count,
                pay_coins,
                wilds,
                subst,
                mult,
                jp_rank,
                scratch,
            )
        else:
            landing, best_e, jp = table_lines(pos, wcode, lines, tab_coins, tab_entry, tab_jp)
        win, pays, arrows, jp = finish_round(
            landing, best_e, jp, pos, blanked, strips, lengths, pay_symbol, arrow, blank, jp_rank, jp_coins
        )
        out[i, 0], out[i, 1], out[i, 2] = win, landing, pays
        out[i, 3], out[i, 4], out[i, 5] = arrows, jp, landing == 0 and jp >= 0
    return out


# ---------------------------------------------------------------- sampler
@dataclass(frozen=True, eq=False)
class Sampler:
    """A compiled round sampler: ``kernel(rng, n, *args) -> (wins, events, parts)``."""

    kernel: object
    args: tuple
    event_names: tuple
    part_names: tuple = ()

    @property
    def round_args(self) -> tuple:
        """Arguments of :func:`play_stops_kernel` after ``stops``."""
        return self.args[3:-2]


def event_names(opts) -> tuple:
    """Names of the sampler's events."""
    return tuple(j.name.lower() for j in opts.jackpots) + (
        "line_win",
        "nudge",
        "arrow",
        "jackpot_without_win",
        "endless_nudge",
    )


def round_sampler(game: Game, level: int) -> Sampler:
    """The Monte Carlo round sampler of ``game`` at bet ``level``.

    Built from the game data directly (not from the exact path's arrays).
    Raises ValueError when a line has more than :data:`LINE_TABLE_LIMIT`
    symbol tuples or a reel's total stop weight is not below ``2**62``.
    """
    from slotmath.rules.grand_spinn_superpot.enumeration import pack_strips
    from slotmath.rules.grand_spinn_superpot.options import parse_options

    opts = parse_options(game)
    idx = game.symbol_index
    S, R = len(game.symbols), game.reels
    strips_, weights, lengths, win = pack_strips(game)
    totals = weights.sum(axis=1)
    if int(totals.max()) >= MAX_REEL_WEIGHT:  # a guard: the schema's weights stay below
        r = int(np.argmax(totals))
        raise GameFileError(
            game.source or game.name,
            f"reels.base[{r}].weights",
            f"the reel's total stop weight {int(totals[r]):,} is not below 2**62, the compiled "
            "simulator's exact uniform draw (par computes the game exactly)",
        )
    cum = np.cumsum(weights, axis=1)
    width = int(totals.max()) if totals.max() <= TABLE_LIMIT else 0
    stop_of = np.zeros((R, width), dtype=np.int64)
    for r in range(R):
        if width:
            stop_of[r, : totals[r]] = np.repeat(np.arange(weights.shape[1]), weights[r])
    li = game.level_index(level)
    pay_symbol = np.array([idx[next(iter(lp.positions[0]))] for lp in game.line_pays], dtype=np.int64)
    pay_count = np.array([len(lp.positions) for lp in game.line_pays], dtype=np.int64)
    pay_coins = np.array([lp.pays[li] for lp in game.line_pays], dtype=np.int64)
    subst = np.zeros((S, S), dtype=np.bool_)
    mult = np.ones((S, R + 1), dtype=np.int64)
    for s in game.symbols:
        if s.wild:
            for t in s.wild.substitutes:
                subst[idx[s.name], idx[t]] = True
            mult[idx[s.name]] = [s.wild.multiplier(c) for c in range(R + 1)]
    jp_rank = np.full(S, -1, dtype=np.int64)
    jp_coins = np.zeros(len(opts.jackpots), dtype=np.int64)
    jp_part = np.full(len(opts.jackpots), -1, dtype=np.int64)
    parts = [LANDING, NUDGES, ARROWS]
    for k, j in enumerate(opts.jackpots):
        jp_rank[idx[j.symbol]] = k
        jp_coins[k] = 0 if j.pay_per_level is None else j.pay_per_level * level
        if j.pay_per_level is not None:
            jp_part[k] = len(parts)
            parts.append(j.name)
    wilds = np.array([idx[s.name] for s in game.symbols if s.wild], dtype=np.int64)
    if S**R > LINE_TABLE_LIMIT:
        raise ValueError(
            f"{game.name}: {S}**{R} symbol tuples per line are more than the "
            f"sampler's line tables hold ({LINE_TABLE_LIMIT:,})"
        )
    tables = line_tables(S, R, pay_symbol, pay_count, pay_coins, wilds, subst, mult, jp_rank)
    radix = S ** np.arange(R - 1, -1, -1, dtype=np.int64)
    wcode = win * radix[:, None, None]
    args = (
        totals,
        stop_of,
        cum,
        wcode,
        np.array(game.paylines, dtype=np.int64),
        *tables,
        strips_,
        lengths,
        pay_symbol,
        pay_count,
        pay_coins,
        wilds,
        subst,
        mult,
        np.int64(idx[opts.arrow]),
        np.int64(idx[opts.arrow_becomes]),
        jp_rank,
        jp_coins,
        float(game.bet(level).total_bet),
        jp_part,
    )
    return Sampler(simulate_rounds, args, event_names(opts), tuple(parts))


def play_stops(sampler: Sampler, stops, literal: bool = False) -> np.ndarray:
    """The sampler's rounds from given landing stops, shape (n, R):
    an (n, 6) int64 array of (win [coins], landing [coins], pays, arrow
    moves, jackpot rank, won without a line win).  ``literal`` plays every
    line by :func:`literal_line` instead of reading the line tables."""
    stops = np.ascontiguousarray(np.atleast_2d(stops), dtype=np.int64)
    return play_stops_kernel(stops, bool(literal), *sampler.round_args)


# ---------------------------------------------------------------- direct runs
@dataclass
class RoundsSimulation(SimulationResult):
    """Simulated figures of a nudge-and-jackpot game (Monte Carlo).

    ``rtp`` is of the coin win (the progressive is not simulated; its
    contribution is the constant of the RTP convention).  ``events`` are
    counts per event name; ``event_exact`` the exact per-round probabilities.
    Event standard errors use the exact probability (score test), so a
    zero count still gives a z-score.
    """

    events: dict = field(default_factory=dict)
    event_exact: dict = field(default_factory=dict)

    def event(self, name: str) -> Estimate:
        n = self.moments.n
        p = self.events[name] / n
        p0 = self.event_exact.get(name)
        ref = p0 if p0 is not None else p
        return Estimate(p, (ref * (1 - ref) / n) ** 0.5, p0)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["rtp_note"] = "coin win only: the progressive is not simulated"
        d["events"] = {k: {"count": int(v), **self.event(k).to_dict()} for k, v in self.events.items()}
        return d

    def text(self) -> str:
        rows = [
            super().text().replace("  rtp ", "  rtp*"),
            "  (* coin win: landing, re-pays and fixed jackpots; the progressive is not simulated)",
        ]
        for k in self.events:
            e = self.event(k)
            z = "" if e.z is None else f"  exact {e.exact:.4e}  z = {e.z:+.2f}"
            rows.append(f"  {k:<20} {self.events[k]:>10,}  {e.value:.4e}{z}")
        return "\n".join(rows)


def run_sampler(sampler: Sampler, spins: int, seed: int):
    """Run ``spins`` rounds by the one simulation loop
    (:func:`slotmath.montecarlo.run.run`); returns (Moments, event counts)."""
    from slotmath.montecarlo.run import run

    outcome = run(sampler, spins, seed, workers=1, progress=False)
    return outcome.stats.moments, np.asarray(outcome.stats.events, dtype=np.int64)


def exact_events(game: Game, level: int) -> dict:
    """Exact per-round probability of each sampler event."""
    from slotmath.rules.grand_spinn_superpot.enumeration import PATH_LINE, compile_rules, enumerate_cycle

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


def simulate(game: Game, level: int, spins: int, seed: int = 0) -> RoundsSimulation:
    """Monte Carlo run of ``spins`` rounds with z-scores against the exact figures."""
    from slotmath.engine.distribution import WinDistribution
    from slotmath.rules.grand_spinn_superpot.enumeration import compile_rules, enumerate_cycle

    sampler = round_sampler(game, level)
    moments, events = run_sampler(sampler, spins, seed)
    rules = compile_rules(game, level)
    ex = enumerate_cycle(rules)
    dist = WinDistribution.from_histogram(ex.hist, 1, rules.total_bet)
    exact = {"rtp": float(dist.mean), "hit_frequency": float(dist.hit_frequency), "sd": dist.sd}
    return RoundsSimulation(
        game.name,
        level,
        spins,
        seed,
        moments,
        exact,
        dict(zip(sampler.event_names, events.tolist(), strict=True)),
        exact_events(game, level),
    )
