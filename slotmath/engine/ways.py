"""Ways pays (``pays_by: ways``): exact RTP, combination table and the
distribution of the spin's total win.

Rule
    A symbol X pays n of a kind when each of reels 1..n shows X, or a wild
    that substitutes for X, in any row, and reel n+1 does not (or n = R);
    a symbol's pays must list every count from its smallest to R.
    A *way* is one choice of a matching cell on each of reels 1..n; the win
    is ``pay(X, n) x sum over ways of the way's wild multiplier``.  With no
    multiplier wilds that is ``pay x prod_{r<=n} c_r`` where ``c_r`` is the
    number of matching cells on reel r (243 ways on 5x3, 4096 on 6x4).  A
    way's multiplier combines its wilds as on a payline
    (:meth:`slotmath.model.WildRule.multiplier`, kinds multiplied
    together): a ``per_wild`` factor is a factor per cell, so a cell of such
    a wild counts ``per_wild`` ways; a ``by_count`` rule needs the number
    of its wilds on the way, which is carried as a digit of the state; the
    ``summed`` kinds (drawn multipliers added, ``options.wild_multipliers``
    with ``combine: add`` written as stops) add their multipliers on the
    way, the sum (1 when none) multiplying it: one more digit, the sum.
    Every paying symbol pays independently (all symbols' wins add); only
    the longest run of a symbol pays.  A wild's own pays are refused (they
    would double-count the ways they substitute in).

Method (exact)
    Per reel, every stop has a *feature vector*: for each paying symbol,
    its weighted matching cells (naturals + non-multiplying wilds count 1,
    a ``per_wild`` wild counts its factor) and the number of each
    ``by_count`` wild's cells substituting for it; with the scatter code
    (:mod:`slotmath.engine.scatters`) this is the stop's *class*.  The forward pass
    carries states: for every paying symbol the vector of ways alive so far
    by ``by_count`` digit (all zero once its run has ended), the scatter
    code, and the settled win; states are merged in a hash table with
    integer weights (stop combinations).  A state with no symbol alive is
    finished at once with the pre-convolved scatter suffix.  Cost:
    ``sum_k E_k x J_(k+1) x P x M`` steps (``E_k`` merged states after reel
    k, ``J`` stop classes, ``P`` paying symbols, ``M`` digits), independent
    of the cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numba as nb
import numpy as np
import pandas as pd

from slotmath.engine.combinations import combination_row
from slotmath.engine.distribution import WinDistribution
from slotmath.engine.joint import (
    KeyedWins,
    add_entry,
    check_win_bound,
    final_distribution,
    group_stops,
    key_codes,
    key_digits,
    key_radix,
    keyed_wins,
    new_table,
    pass_inputs,
)
from slotmath.engine.limits import check_step_cost
from slotmath.engine.moments import unique_rows
from slotmath.engine.reels import pack_reels
from slotmath.engine.scatters import suffix_scatter
from slotmath.engine.topreel import has_top, mix_counts, mix_forward, top_games
from slotmath.errors import ensure
from slotmath.model import Game

#: Ways steps (state x stop class x state entry) per second, one core
#: (measured on data/games/ways4096: 1.0e8 steps in 6 s).
WAYS_STEPS_PER_SECOND = 1.6e7
#: Refuse a reel step above this many ways steps (about 3 minutes).
MAX_WAYS_STEPS = 3 * 10**9


# ===========================================================================
# the pay table and the per-stop features
# ===========================================================================
@dataclass(frozen=True)
class WaysPays:
    """The ways pay table at one bet level, as arrays.

    Attributes
    ----------
    symbols : tuple of str
        Paying symbols, in first-listed order (``P``).
    pay : ndarray of int64, shape (P, R + 1)
        ``pay[p, n]``: coin win of n of a kind per way [coins], 0 if unpaid.
    entry : ndarray of int64, shape (P, R + 1)
        Index into ``game.line_pays`` of that pay, -1 if unpaid.
    weight : ndarray of int64, shape (S, P)
        Ways one cell of symbol s counts towards symbol p (1 natural or
        plain wild, ``per_wild`` for such a multiplier wild, 0 otherwise).
    digit : ndarray of int64, shape (S, P)
        The digit wild kind (0..B-1: ``by_count`` or ``summed``) a cell of s
        counts as for p, -1 none.
    step : ndarray of int64, shape (M, B)
        Index of the digit vector ``m`` after one more wild of kind b.
    factor : ndarray of int64, shape (M,)
        Way multiplier of digit vector ``m`` (product over the ``by_count``
        kinds, times the summed kinds' sum or 1).
    """

    symbols: tuple
    pay: np.ndarray
    entry: np.ndarray
    weight: np.ndarray
    digit: np.ndarray
    step: np.ndarray
    factor: np.ndarray


def compile_ways(game: Game, level: int) -> WaysPays:
    """Compile ``game``'s ways pay table at bet ``level``."""
    R, li = game.reels, game.level_index(level)
    paying = []
    for lp in game.line_pays:
        name = next(iter(lp.positions[0]))
        if name not in paying:
            paying.append(name)
    P, S = len(paying), len(game.symbols)
    pay = np.zeros((P, R + 1), dtype=np.int64)
    entry = np.full((P, R + 1), -1, dtype=np.int64)
    for e, lp in enumerate(game.line_pays):
        p = paying.index(next(iter(lp.positions[0])))
        pay[p, len(lp.positions)], entry[p, len(lp.positions)] = lp.pays[li], e
    counted = [s for s in game.symbols if s.wild and (s.wild.by_count is not None or s.wild.summed)]
    groups, group_of, inc = _digit_groups(counted, R)
    caps = [len(g) for g in groups]
    M = int(np.prod(caps)) if caps else 1
    weight = np.zeros((S, P), dtype=np.int64)
    digit = np.full((S, P), -1, dtype=np.int64)
    for si, s in enumerate(game.symbols):
        for p, name in enumerate(paying):
            if s.name == name:
                weight[si, p] = 1
            elif s.wild and name in s.wild.substitutes:
                weight[si, p] = 1 if s in counted else s.wild.per_wild
                if s in counted:
                    digit[si, p] = counted.index(s)
    digits = np.array(np.unravel_index(np.arange(M), caps)).T if caps else np.zeros((1, 0), dtype=np.int64)
    step = np.zeros((M, max(len(counted), 1)), dtype=np.int64)
    factor = np.ones(M, dtype=np.int64)
    for m in range(M):
        for b in range(len(counted)):
            d, g = digits[m].copy(), group_of[b]
            d[g] = min(d[g] + inc[b], caps[g] - 1)
            step[m, b] = np.ravel_multi_index(tuple(d), caps)
        for g, table in enumerate(groups):
            factor[m] *= table[digits[m, g]]
    return WaysPays(tuple(paying), pay, entry, weight, digit, step, factor)


def _digit_groups(counted: list, reels: int) -> tuple:
    """The digits of the ways state: ``(groups, group_of, inc)``.

    Each ``by_count`` wild kind is one digit (its cells on the way, capped
    at its table's last entry; ``groups[g]`` the way multiplier by digit
    value); the ``summed`` kinds (drawn multipliers added,
    :attr:`slotmath.model.WildRule.summed`) share one digit, the sum of
    their ``per_wild`` on the way (at most ``reels x`` the largest), whose
    multiplier is the sum, or 1 when 0.  ``group_of[b]``, ``inc[b]``: the
    digit kind ``b`` of ``counted`` steps and by how much."""
    groups: list = []
    group_of, inc = [], []
    summed = [s.wild.per_wild for s in counted if s.wild.summed]
    for s in counted:
        if s.wild.summed:
            group_of.append(sum(1 for t in counted if t.wild.by_count is not None))
            inc.append(s.wild.per_wild)
        else:
            group_of.append(len(groups))
            inc.append(1)
            groups.append(tuple(s.wild.by_count))
    if summed:
        groups.append((1, *range(1, reels * max(summed) + 1)))
    return groups, group_of, inc


def stop_features(wp: WaysPays, window: np.ndarray) -> np.ndarray:
    """Per stop and paying symbol: weighted matching cells, then the count of
    each ``by_count`` wild kind's cells; shape (N, P x (1 + B))."""
    B = wp.step.shape[1]
    N, P = window.shape[0], wp.weight.shape[1]
    out = np.zeros((N, P, 1 + B), dtype=np.int64)
    out[:, :, 0] = wp.weight[window].sum(axis=1)
    for b in range(B):
        out[:, :, 1 + b] = (wp.digit[window] == b).sum(axis=1)
    out[:, :, 0] -= out[:, :, 1:].sum(axis=2)  # by_count cells are counted by their digit
    return out.reshape(N, -1)


def ways_classes(feat: np.ndarray, weights: np.ndarray, codes: np.ndarray):
    """Stops of one reel grouped by (features, scatter code): features ``(J, F)``,
    summed stop weight ``(J,)`` and scatter code ``(J,)`` (weight-0 stops dropped)."""
    uniq, _, w = group_stops(np.column_stack([feat, codes]), weights)
    return np.ascontiguousarray(uniq[:, :-1]), w, np.ascontiguousarray(uniq[:, -1])


# ===========================================================================
# one symbol's ways through one reel (shared by the exact pass and the sampler)
# ===========================================================================
@nb.njit(cache=True)
def step_ways(vec, out, f, step, factor):
    """Ways of one symbol after one more reel.

    ``vec`` (M,) ways alive by digit vector; ``f`` (1 + B,) the reel's
    features for the symbol.  Writes ``out`` and returns the multiplied
    ways of ``vec`` (their ``factor`` sum) when the run ends on this reel,
    else -1 (still alive); 0 when ``vec`` was already dead.
    """
    M, B = vec.shape[0], step.shape[1]
    alive = False
    total = 0
    for m in range(M):
        out[m] = 0
    for m in range(M):
        v = vec[m]
        if v == 0:
            continue
        total += v * factor[m]
        out[m] += v * f[0]
        for b in range(B):
            if f[1 + b] > 0:
                out[step[m, b]] += v * f[1 + b]
    for m in range(M):
        if out[m] != 0:
            alive = True
            break
    return -1 if alive else total


@nb.njit(cache=True)
def settle_ways(vec, factor):
    """Ways of a finished run: the live ways ``vec`` weighted by their multipliers ``factor``."""
    t = 0
    for m in range(vec.shape[0]):
        t += vec[m] * factor[m]
    return t


@nb.njit(cache=True)
def _advance_ways(
    keys,
    wins,
    counts,
    n,
    k,
    R,
    feat,
    cls_w,
    cls_code,
    pay_units,
    step,
    factor,
    suffix,
    suffix_nz,
    sc_units,
    fkeys,
    fwins,
    fcounts,
    fslots,
    fn,
    n_sc,
):
    """Step the ``n`` states after reel ``k`` (0-based) by every class of reel k.

    Codes are scatter code + ``n_sc`` x key code; the final table is keyed by
    (key code, win) when it has one key column, by win alone otherwise."""
    W = keys.shape[1]
    M = factor.shape[0]
    P = (W - 1) // M
    F = feat.shape[1] // P
    nk, nw, nc, ns = new_table(W, max(16, n), keys[0])
    m = 0
    row = np.empty(W, dtype=keys.dtype)
    out = np.empty(M, dtype=keys.dtype)
    frow = np.zeros(fkeys.shape[1], dtype=fkeys.dtype)
    keyed = fkeys.shape[1] > 0
    for i in range(n):
        for j in range(cls_w.shape[0]):
            w = counts[i] * cls_w[j]
            win = wins[i]
            live = False
            for p in range(P):
                vec = keys[i, p * M : (p + 1) * M]
                ended = step_ways(vec, out, feat[j, p * F : (p + 1) * F], step, factor)
                if ended > 0:
                    win += pay_units[p, k] * ended
                if ended < 0 and k == R - 1:
                    win += pay_units[p, R] * settle_ways(out, factor)
                    out[:] = 0
                elif ended < 0:
                    live = True
                row[p * M : (p + 1) * M] = out
            code = keys[i, W - 1] + cls_code[j]
            if live:
                row[W - 1] = code
                nk, nw, nc, ns, m = add_entry(nk, nw, nc, ns, m, row, win, w)
                continue
            for t in range(suffix_nz.shape[1]):
                c2 = suffix_nz[k + 1, t]
                if c2 < 0:
                    break
                if keyed:
                    frow[0] = (code + c2) // n_sc
                fkeys, fwins, fcounts, fslots, fn = add_entry(
                    fkeys, fwins, fcounts, fslots, fn, frow, win + sc_units[code + c2], w * suffix[k + 1, c2]
                )
    return nk, nw, nc, m, fkeys, fwins, fcounts, fslots, fn


def check_cost(
    game: Game,
    reel: int,
    n_states: int,
    n_classes: int,
    width: int,
    limit: int,
    what: str = "ways distribution",
) -> None:
    """Raise :class:`EngineTooLarge` (with the estimated time) before a reel
    step of more than ``limit`` steps (states x stop classes x state width)."""
    check_step_cost(
        game,
        reel,
        n_states,
        n_classes,
        width,
        limit,
        what=what,
        unit="ways digits",
        steps="steps",
        per_second=WAYS_STEPS_PER_SECOND,
    )


def ways_distribution(
    game: Game, level: int, reel_set: str = "base", max_steps: int | None = None
) -> WinDistribution:
    """Exact distribution of the total win of one spin of a ways game.

    Parameters
    ----------
    max_steps : int, optional
        Refuse (:class:`EngineTooLarge`) before a reel step of more ways
        steps than this (default :data:`MAX_WAYS_STEPS`).

    Returns
    -------
    WinDistribution
        Integer hit counts over the full cycle by total win (ways + scatters).
    """
    wins, _, counts, unit_den, total_bet, cycle = _ways_forward(game, level, reel_set, (), max_steps)
    return final_distribution(wins, counts, unit_den, total_bet, cycle)


def ways_key_distribution(
    game: Game, level: int, triggers, reel_set: str = "base", max_steps: int | None = None
) -> KeyedWins:
    """Exact joint law of (total spin win, key) of a ways game in one forward pass.

    The key is the one of :func:`slotmath.engine.joint.spin_key_distribution`
    (one item per trigger: a symbol's count in the window, in total or per
    reel), carried as one more mixed-radix digit group of the state's
    scatter code, exactly as the line engine carries it.
    """
    triggers = tuple(triggers)
    if not triggers:
        raise ValueError("give at least one trigger")
    return keyed_wins(game, triggers, *_ways_forward(game, level, reel_set, triggers, max_steps))


def ways_key_table(
    game: Game, level: int, triggers, reel_set: str = "base", max_steps: int | None = None
) -> tuple:
    """The law of :func:`ways_key_distribution` as arrays, keys not decoded
    (the form of :func:`slotmath.engine.joint.spin_key_table`): (wins
    [1/unit_den coins], key digits (entries, digits), counts, unit_den)."""
    triggers = tuple(triggers)
    wins, codes, counts, unit_den, _, _ = _ways_forward(game, level, reel_set, triggers, max_steps)
    return wins, key_digits(codes, key_radix(game, triggers)), counts, unit_den


def _ways_forward(game: Game, level: int, reel_set: str, triggers: tuple, max_steps: int | None):
    """The ways forward pass: finished (wins, key codes, counts) with the win
    unit, total bet and cycle (key codes all 0 without ``triggers``); with a
    top reel :func:`_top_forward`."""
    if has_top(game):
        return _top_forward(game, level, reel_set, triggers, max_steps)
    plan = _WaysPass(game, level, reel_set, triggers)
    state = plan.run(plan.start(), range(game.reels), max_steps)
    return plan.finish(state, plan.cycle)


def _top_forward(game: Game, level: int, reel_set: str, triggers: tuple, max_steps: int | None):
    """:func:`_ways_forward` of a game with a top reel: one pass per top
    window (:func:`slotmath.engine.topreel.top_games`) over the reels up to
    the last covered one; their states, weighted by the window's weight,
    merged (the reels after it do not read the top reel) and played once
    over the rest.  Windows are merged in groups whose weighted counts stay
    in int64 (group weight x a window's cycle below 2**62), the groups'
    passes mixed in Python ints (:func:`slotmath.engine.topreel.mix_forward`).
    Each window's reel steps are bounded by its share of ``max_steps``."""
    games = top_games(game, reel_set)
    share = max(1, (max_steps or MAX_WAYS_STEPS) // len(games))
    cycle = game.cycle(reel_set)
    cap = (2**62 - 1) // (cycle // game.heights.top.total(reel_set))
    groups: list = []
    for w, g in games:
        if groups and sum(v for v, _ in groups[-1]) + w <= cap:
            groups[-1].append((w, g))
        else:
            groups.append([(w, g)])
    parts = []
    for group in groups:
        if len(group) == 1:  # its weight outside (it may pass int64 alone)
            w, g = group[0]
            parts.append((w, _merged_forward(game, [(1, g)], level, reel_set, triggers, share, max_steps)))
        else:
            parts.append((1, _merged_forward(game, group, level, reel_set, triggers, share, max_steps)))
    return mix_forward(parts, cycle)


def _merged_forward(game: Game, group: list, level: int, reel_set: str, triggers: tuple, share, max_steps):
    """The finished pass of the windows ``group`` ``[(weight, game_t)]`` of
    :func:`_top_forward`: each over the reels up to the last covered one
    (``share`` steps a reel), merged by weight, then the rest once."""
    last = max(game.heights.top.over)
    what = f"ways distribution of each of {len(top_games(game, reel_set))} top-reel windows"
    merged = None
    for w, g in group:
        plan = _WaysPass(g, level, reel_set, triggers)
        merged = _merge_states(merged, plan.run(plan.start(), range(last + 1), share, what), w)
    keys, wins, counts, _, n, fkeys, fwins, fcounts, fslots, fn = merged
    state = (keys, wins, counts, n, fkeys, fwins, fcounts, fslots, fn)
    return plan.finish(
        plan.run(state, range(last + 1, game.reels), max_steps), plan.cycle * sum(w for w, _ in group)
    )


class _WaysPass:
    """The inputs of one ways forward pass over ``reel_set`` and its reel steps."""

    def __init__(self, game: Game, level: int, reel_set: str, triggers: tuple):
        wp = compile_ways(game, level)
        bet, unit_den, sc, win, weights, n_stops, cycle = pass_inputs(game, level, reel_set)
        R, P, M = game.reels, len(wp.symbols), len(wp.factor)
        top_ways = (int(wp.weight.max(initial=1)) * game.rows) ** R * int(wp.factor.max())
        max_total = int(wp.pay.max(initial=0)) * top_ways * P * unit_den + int(sc.pay_units.max())
        check_win_bound(max_total, unit_den)
        self.n_sc = len(sc.pay_units)
        codes, pay_units = sc.codes, sc.pay_units
        if triggers:
            kcodes, n_keys = key_codes(game, reel_set, triggers)
            codes = [c + self.n_sc * kc for c, kc in zip(codes, kcodes, strict=True)]
            pay_units = np.tile(pay_units, n_keys)
        self.suffix, self.suffix_nz = suffix_scatter(codes, weights, len(pay_units))
        self.game, self.wp, self.triggers, self.codes, self.pay_units = game, wp, triggers, codes, pay_units
        self.win, self.weights, self.n_stops, self.cycle = win, weights, n_stops, cycle
        self.unit_den, self.total_bet = unit_den, bet.total_bet
        self.width = P * M + 1

    def start(self) -> tuple:
        """The state before reel 1: one way per symbol, no win, count 1; no
        finished entry: (keys, wins, counts, n, fkeys, fwins, fcounts, fslots, fn)."""
        P, M = len(self.wp.symbols), len(self.wp.factor)
        probe = np.zeros(1, dtype=np.int64)
        keys, wins, counts, _ = new_table(self.width, 1, probe)
        keys[0] = 0
        keys[0, : P * M : M] = 1  # every symbol: one way, no wild yet
        wins[0], counts[0] = 0, 1
        fkeys, fwins, fcounts, fslots = new_table(1 if self.triggers else 0, 64, probe)
        return keys, wins, counts, 1, fkeys, fwins, fcounts, fslots, 0

    def run(self, state: tuple, reels, max_steps: int | None, what: str = "ways distribution") -> tuple:
        """``state`` stepped by every reel of ``reels`` (in order); ``what``
        names the pass in a refusal (:func:`check_cost`)."""
        keys, wins, counts, n, fkeys, fwins, fcounts, fslots, fn = state
        wp, R = self.wp, self.game.reels
        units = wp.pay * self.unit_den
        for k in reels:
            w_k = self.weights[k, : self.n_stops[k]]
            feat = stop_features(wp, self.win[k, : self.n_stops[k]])
            cls_f, cls_w, cls_code = ways_classes(feat, w_k, self.codes[k])
            check_cost(self.game, k, n, len(cls_w), self.width, max_steps or MAX_WAYS_STEPS, what)
            keys, wins, counts, n, fkeys, fwins, fcounts, fslots, fn = _advance_ways(
                keys,
                wins,
                counts,
                n,
                k,
                R,
                cls_f,
                cls_w,
                cls_code,
                units,
                wp.step,
                wp.factor,
                self.suffix,
                self.suffix_nz,
                self.pay_units,
                fkeys,
                fwins,
                fcounts,
                fslots,
                fn,
                self.n_sc,
            )
        return keys, wins, counts, n, fkeys, fwins, fcounts, fslots, fn

    def finish(self, state: tuple, cycle: int) -> tuple:
        """The finished (wins, key codes, counts, unit_den, total_bet, cycle)."""
        _, _, _, n, fkeys, fwins, fcounts, _, fn = state
        ensure(n == 0, "ways.py: expected n == 0")
        fcodes = fkeys[:fn, 0].astype(np.int64) if self.triggers else np.zeros(fn, dtype=np.int64)
        ensure(int(fcounts[:fn].sum()) == cycle, "ways.py: the counts do not sum to the cycle")
        return fwins[:fn], fcodes, fcounts[:fn], self.unit_den, self.total_bet, cycle


def _merge_states(merged: tuple | None, state: tuple, weight: int) -> tuple:
    """``merged`` plus ``weight`` x ``state`` (live and finished tables of
    :meth:`_WaysPass.run`; equal entries added)."""
    keys, wins, counts, n, fkeys, fwins, fcounts, _, fn = state
    if merged is None:
        probe = np.zeros(1, dtype=np.int64)
        mk, mw, mc, ms = new_table(keys.shape[1], max(16, n), probe)
        fk, fw, fc, fs = new_table(fkeys.shape[1], 64, probe)
        merged = (mk, mw, mc, ms, 0, fk, fw, fc, fs, 0)
    mk, mw, mc, ms, mn, fk, fw, fc, fs, mfn = merged
    mk, mw, mc, ms, mn = _merge_table(mk, mw, mc, ms, mn, keys, wins, counts, n, weight)
    fk, fw, fc, fs, mfn = _merge_table(fk, fw, fc, fs, mfn, fkeys, fwins, fcounts, fn, weight)
    return mk, mw, mc, ms, mn, fk, fw, fc, fs, mfn


@nb.njit(cache=True)
def _merge_table(keys, wins, counts, slots, n, src_keys, src_wins, src_counts, src_n, weight):
    """Add ``weight`` x the ``src_n`` entries of a table into (keys, wins, counts, slots, n)."""
    for i in range(src_n):
        keys, wins, counts, slots, n = add_entry(
            keys, wins, counts, slots, n, src_keys[i], src_wins[i], src_counts[i] * weight
        )
    return keys, wins, counts, slots, n


# ===========================================================================
# the combination table: one symbol at a time
# ===========================================================================
def symbol_runs(game: Game, wp: WaysPays, p: int, reel_set: str = "base") -> dict:
    """For paying symbol ``p``: run length n -> [spins, multiplied ways summed
    over those spins] over the full cycle (exact ints; with a top reel the
    mix over its windows, :mod:`slotmath.engine.topreel`)."""
    if has_top(game):
        return mix_counts([(w, symbol_runs(g, wp, p, reel_set)) for w, g in top_games(game, reel_set)])
    R, M, B = game.reels, len(wp.factor), wp.step.shape[1]
    strips = game.strips(reel_set)
    win, weights, n_stops = pack_reels(game, reel_set)
    tail = [1] * (R + 1)
    for r in range(R - 1, -1, -1):
        tail[r] = tail[r + 1] * strips[r].total_weight
    states = {tuple([1] + [0] * (M - 1)): 1}
    runs: dict = {}
    out = np.zeros(M, dtype=np.int64)
    for k in range(R):
        feat = stop_features(wp, win[k, : n_stops[k]])[:, p * (1 + B) : (p + 1) * (1 + B)]
        cls, inv = unique_rows(feat)
        cw = np.zeros(len(cls), dtype=np.int64)
        np.add.at(cw, inv, weights[k, : n_stops[k]])
        nxt: dict = {}
        for vec, c in states.items():
            v = np.array(vec, dtype=np.int64)
            for f, w in zip(cls, cw.tolist(), strict=True):
                if w == 0:
                    continue
                ended = int(step_ways(v, out, f, wp.step, wp.factor))
                if ended > 0:
                    acc = runs.setdefault(k, [0, 0])
                    acc[0] += c * w * tail[k + 1]
                    acc[1] += c * w * tail[k + 1] * ended
                elif ended < 0:
                    key = tuple(out.tolist())
                    nxt[key] = nxt.get(key, 0) + c * w
        states = nxt
    for vec, c in states.items():
        acc = runs.setdefault(R, [0, 0])
        acc[0] += c
        acc[1] += c * int(settle_ways(np.array(vec, dtype=np.int64), wp.factor))
    return runs


def ways_table(game: Game, level: int, reel_set: str = "base") -> pd.DataFrame:
    """Combination table rows of the ways pays: one per symbol and count.

    ``hits`` counts spins paying that n of a kind; ``win`` is the mean win
    per hit [coins] (pay x the mean number of multiplied ways); ``multiplier``
    is 1 (the ways are in the win).
    """
    bet = game.bet(level)
    cycle = game.cycle(reel_set)
    wp = compile_ways(game, level)
    rows = []
    for p in range(len(wp.symbols)):
        for n, (hits, ways) in sorted(symbol_runs(game, wp, p, reel_set).items()):
            e = int(wp.entry[p, n])
            if e < 0 or hits == 0 or wp.pay[p, n] == 0:
                continue
            rows.append(
                combination_row(
                    "ways",
                    game.line_pays[e].name,
                    1,
                    Fraction(int(wp.pay[p, n]) * ways, hits),
                    hits,
                    cycle,
                    bet.total_bet,
                )
            )
    return pd.DataFrame(rows)


# ===========================================================================
# one tumble drop (slotmath.engine.tumble)
# ===========================================================================
@nb.njit(cache=True, inline="always")
def ways_drop(window, pays, removed, events, count):
    """The ways rule's part of one tumble drop (:mod:`slotmath.engine.tumble`):
    the coin win of ``window`` (cell ``reel x rows + row``) [coins]; sets
    ``removed[c] = 1`` on every cell taking part in a paying way (the
    symbol's cells and the wilds substituting for it on reels 1..n of its
    paying run).  With ``count`` each paying (symbol, n) adds one to
    ``events`` at its index.  ``pays``: :func:`ways_drop_args` (no paying
    symbols: pays nothing)."""
    weight, digit, pay, event, step, factor, scratch, shape = pays
    P = pay.shape[0]
    R, H = shape[0], shape[1]
    M, B = factor.shape[0], step.shape[1]
    vec, out, f = scratch[0, :M], scratch[1, :M], scratch[2, : 1 + B]
    coins = 0
    for p in range(P):
        vec[:] = 0
        vec[0] = 1
        n, ways = R, 0
        for k in range(R + 1):
            if k == R:
                ways = settle_ways(vec, factor)
                break
            f[:] = 0
            for c in range(k * H, (k + 1) * H):
                d = digit[window[c], p]
                if d >= 0:
                    f[1 + d] += 1
                else:
                    f[0] += weight[window[c], p]
            ways = step_ways(vec, out, f, step, factor)
            if ways >= 0:
                n = k
                break
            for m in range(M):  # an element loop: a slice copy needs the runtime (NRT)
                vec[m] = out[m]
        if pay[p, n] > 0 and ways > 0:
            coins += pay[p, n] * ways
            if count and event[p, n] >= 0:
                events[event[p, n]] += 1
            for c in range(n * H):
                if weight[window[c], p] > 0 or digit[window[c], p] >= 0:
                    removed[c] = 1
    return coins


def ways_drop_args(game: Game, level: int, event: np.ndarray | None = None) -> tuple:
    """Arguments of :func:`ways_drop`: ``(weight, digit, pay, event, step,
    factor, scratch, (reels, rows))`` of :func:`compile_ways` (``event``: the
    samplers' event index of each (symbol, n), default none)."""
    wp = compile_ways(game, level)
    if event is None:
        event = np.full(wp.pay.shape, -1, dtype=np.int64)
    scratch = np.zeros((3, max(len(wp.factor), 1 + wp.step.shape[1])), dtype=np.int64)
    shape = np.array([game.reels, game.rows], dtype=np.int64)
    return wp.weight, wp.digit, wp.pay, event, wp.step, wp.factor, scratch, shape


# ===========================================================================
# the fast figures for tuning: per-reel means of the matching cells
# ===========================================================================
@dataclass(frozen=True)
class WaysForm:
    """The ways RTP from per-reel figures, the pay rule's fast figures for
    tuning (:meth:`slotmath.engine.pays.PayRule.tuning_form`).

    With ``E[r, p]`` the mean number of ways-weighted cells of reel r
    matching paying symbol p (the symbol, or a wild substituting for it,
    ``per_wild`` cells counting their factor) and ``Z[r, p]`` the
    probability that reel r shows none, the reels being independent::

        RTP = sum_p sum_n pay[p, n] prod_{r < n} E[r, p] Z[n, p] / total_bet

    (``Z[R, p] = 1``) [x total bet]: a run of exactly n pays its
    ``pay[p, n]`` times the product of the matching cells of reels 1..n.
    ``E`` is linear in the stop weights of a reel, and in a strip's symbol
    counts whatever the arrangement (each symbol is in ``rows`` windows);
    ``Z`` is linear in the stop weights but depends on a strip's
    arrangement (stacks).  ``exact``: the formula is the rule's RTP (no
    ``by_count`` or ``summed`` wild, whose multiplier is not a product over
    reels, and the whole spin, not a tumble's first drop).

    Attributes
    ----------
    pay : ndarray of int64, shape (P, R + 1)
        Coins per way of n of a kind (:class:`WaysPays`).
    weight : ndarray of int64, shape (S, P)
        Ways one cell of symbol s counts toward paying symbol p.
    total_bet : int
        [coins]
    exact : bool
    """

    pay: np.ndarray
    weight: np.ndarray
    total_bet: int
    exact: bool

    def cells(self, windows: np.ndarray) -> np.ndarray:
        """Ways-weighted matching cells of each window, shape (N, P)
        (``windows``: symbol indices, shape (N, rows))."""
        return self.weight[windows].sum(axis=1)

    def rtp(self, E: np.ndarray, Z: np.ndarray) -> float:
        """The RTP [x total bet] of per-reel means ``E`` and none-shown
        probabilities ``Z``, both shape (R, P)."""
        R = E.shape[0]
        total = 0.0
        run = np.ones(E.shape[1])
        for n in range(1, R + 1):
            run = run * E[n - 1]
            last = Z[n] if n < R else 1.0
            total += float((self.pay[:, n] * run * last).sum())
        return total / self.total_bet

    def reel_coefficients(self, E: np.ndarray, Z: np.ndarray, r: int) -> tuple:
        """``(ce, cz, c0)`` with ``RTP = c0 + ce . E[r] + cz . Z[r]`` while
        the other reels are held (shapes (P,), (P,), scalar) [x total bet]."""
        R, P = E.shape
        ce, cz, c0 = np.zeros(P), np.zeros(P), 0.0
        for n in range(1, R + 1):
            others = np.prod(np.delete(E[:n], r, axis=0), axis=0) if r < n else np.prod(E[:n], axis=0)
            last = Z[n] if n < R else np.ones(P)
            if r < n:  # reel r is in the run
                ce += self.pay[:, n] * others * last
            elif r == n:  # reel r ends the run
                cz += self.pay[:, n] * others
            else:
                c0 += float((self.pay[:, n] * others * last).sum())
        return ce / self.total_bet, cz / self.total_bet, c0 / self.total_bet


def ways_form(game: Game, level: int, whole_spin: bool = True) -> WaysForm:
    """:class:`WaysForm` of ``game`` at bet ``level`` (``whole_spin``: the
    rule's pays are the window's, not a tumble's first drop)."""
    wp = compile_ways(game, level)
    exact = whole_spin and bool((wp.digit < 0).all())
    return WaysForm(wp.pay, wp.weight, int(game.bet(level).total_bet), exact)
