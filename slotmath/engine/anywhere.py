"""Pay anywhere by count (``pays_by: anywhere``): exact RTP, combination
table and the law of the spin's total win.

Rule
    Each paying symbol X pays by its *count*: the number of cells of the
    window showing X, or a wild that substitutes for X (a wild counts once
    toward every symbol it substitutes for), anywhere in the window.  A pay
    row ``{symbol: X, count: n, pay: p}`` pays ``p`` coins (per bet level)
    for a count of at least ``n`` and below the next listed count of X; the
    highest row pays every count from its own up to the whole window (the
    "8-9, 10-11, 12+" tables).  Below the lowest row X pays nothing.  Every
    paying symbol pays independently (all symbols' wins add); scatters keep
    their own pays and triggers.

Method (exact)
    *RTP.*  A symbol's pay depends only on its own count, so
    ``E[sum_X pay_X(count_X)] = sum_X E[pay_X(count_X)]`` and each term is
    the pay table against the law of ``count_X``: a convolution of the
    reels' per-stop count histograms (:func:`symbol_count_law`; memory the
    number of distinct counts, ``rows x reels + 1``).

    *Law.*  At most a few symbols can pay at once (8 + 8 + 8 + 8 > 30
    cells), so the law is built by inclusion-exclusion over the sets U of
    symbols that all pay (:func:`_law`): one forward pass over the reels per
    U, on merged states of U's counts (capped at each symbol's top row; a
    state where some symbol of U can no longer reach its lowest row with the
    cells left is dropped) and the scatter/key code, in the line engine's
    hash table (:mod:`slotmath.engine.joint`).  Memory per pass: the capped
    count vectors of at most a few symbols times the codes, never the
    product over all symbols.  :func:`state_estimate` bounds the work before
    it starts; above :data:`MAX_ANYWHERE_STEPS` it is refused in one line.
    A wild that counts toward several symbols lets them all pay at once:
    the subsets then grow to every symbol, and the estimate says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb, prod

import numba as nb
import numpy as np

from slotmath.engine.combinations import combination_row
from slotmath.engine.distribution import WinDistribution
from slotmath.engine.joint import (
    KeyedWins,
    add_entry,
    check_win_bound,
    final_distribution,
    group_stops,
    key_codes,
    keyed_wins,
    new_table,
    pass_inputs,
)
from slotmath.engine.limits import EngineTooLarge, check_step_cost
from slotmath.engine.reels import convolve_int, count_distribution, pack_reels
from slotmath.engine.scatters import scatter_counts, win_denominator
from slotmath.errors import ensure
from slotmath.model import Game

#: Anywhere steps (state x stop class x paying symbol) per second, one core
#: (measured on data/games/candy_anywhere).
ANYWHERE_STEPS_PER_SECOND = 1.0e8
#: Refuse a pass whose estimated steps exceed this (about 3 minutes).
MAX_ANYWHERE_STEPS = 2 * 10**10


# ===========================================================================
# the pay table
# ===========================================================================
@dataclass(frozen=True)
class AnywherePays:
    """The pay-anywhere table at one bet level, as arrays.

    Attributes
    ----------
    symbols : tuple of str
        Paying symbols, in first-listed order (``P``).
    weight : ndarray of int64, shape (S, P)
        1 when a cell of symbol s counts toward symbol p (s is p, or a wild
        substituting for p), else 0.
    pay : ndarray of int64, shape (P, C + 1)
        ``pay[p, c]``: coin win of a count of c [coins] (C = cells).
    entry : ndarray of int64, shape (P, C + 1)
        Index into ``game.line_pays`` of the row paying count c, -1 if unpaid.
    low, top : ndarray of int64, shape (P,)
        Lowest and highest listed count of each symbol.
    """

    symbols: tuple
    weight: np.ndarray
    pay: np.ndarray
    entry: np.ndarray
    low: np.ndarray
    top: np.ndarray


def count_rows(game: Game) -> dict:
    """Per paying symbol (first-listed order), its pay rows as
    ``[(count, index into game.line_pays)]`` sorted by count."""
    out: dict = {}
    for e, lp in enumerate(game.line_pays):
        out.setdefault(next(iter(lp.positions[0])), []).append((len(lp.positions), e))
    return {k: sorted(v) for k, v in out.items()}


def compile_anywhere(game: Game, level: int) -> AnywherePays:
    """Compile ``game``'s pay-anywhere table at bet ``level``."""
    li = game.level_index(level)
    rows = count_rows(game)
    paying = tuple(rows)
    P, S, C = len(paying), len(game.symbols), game.reels * game.rows
    pay = np.zeros((P, C + 1), dtype=np.int64)
    entry = np.full((P, C + 1), -1, dtype=np.int64)
    for p, name in enumerate(paying):
        for n, e in rows[name]:
            pay[p, n:] = game.line_pays[e].pays[li]
            entry[p, n:] = e
    weight = np.zeros((S, P), dtype=np.int64)
    for si, s in enumerate(game.symbols):
        for p, name in enumerate(paying):
            if s.name == name or (s.wild is not None and name in s.wild.substitutes):
                weight[si, p] = 1
    low = np.array([rows[n][0][0] for n in paying], dtype=np.int64)
    top = np.array([rows[n][-1][0] for n in paying], dtype=np.int64)
    return AnywherePays(paying, weight, pay, entry, low, top)


def stop_counts(ap: AnywherePays, window: np.ndarray) -> np.ndarray:
    """Per stop of one reel (``window`` (N, H) symbol indices) the count of
    every paying symbol in its window, shape (N, P)."""
    return ap.weight[window].sum(axis=1)


# ===========================================================================
# one window given as its cells (the samplers, and each drop of a tumble)
# ===========================================================================
@nb.njit(cache=True)
def window_anywhere_win(cells, weight, pay, event, counts, events):
    """Coin win of a window given as its ``cells`` (symbol indices, any order)
    [coins]; adds its events when ``events`` is not empty.  ``weight`` (S, P)
    cells counted per paying symbol, ``pay`` (P, C + 1) [coins] by count,
    ``event`` (P, C + 1) event index or -1; ``counts`` (P,) is left holding
    each symbol's count."""
    P = weight.shape[1]
    for p in range(P):
        counts[p] = 0
    for c in range(cells.shape[0]):
        s = cells[c]
        for p in range(P):
            counts[p] += weight[s, p]
    coins = 0
    for p in range(P):
        won = pay[p, counts[p]]
        if won > 0:
            coins += won
            if events.shape[0] > 0:
                events[event[p, counts[p]]] += 1
    return coins


@nb.njit(cache=True, inline="always")
def anywhere_drop(window, pays, removed, events, count):
    """The pay-anywhere rule's part of one tumble drop
    (:mod:`slotmath.engine.tumble`): the coin win of ``window`` [coins];
    sets ``removed[c] = 1`` on every cell counted toward a paying symbol
    (its own cells and the wilds substituting for it).  With ``count`` the
    paying count rows add to ``events``.  ``pays``: :func:`anywhere_drop_args`
    (no paying symbols: pays nothing).

    The same counts as :func:`window_anywhere_win`, read from the window's
    histogram by symbol (S + S x P steps, not C x P: the sampler's speed);
    the removed cells are those whose symbol counts toward a paying symbol.
    """
    weight, pay, event, counts, by_symbol = pays
    P = weight.shape[1]
    if P == 0:
        return 0
    S = weight.shape[0]
    for s in range(S):
        by_symbol[s] = 0
    for c in range(window.shape[0]):
        by_symbol[window[c]] += 1
    for p in range(P):
        counts[p] = 0
    for s in range(S):
        n = by_symbol[s]
        if n > 0:
            for p in range(P):
                counts[p] += n * weight[s, p]
    coins = 0
    for p in range(P):
        won = pay[p, counts[p]]
        if won > 0:
            coins += won
            if count and events.shape[0] > 0:
                events[event[p, counts[p]]] += 1
    if coins > 0:
        for s in range(S):  # by_symbol now: 1 when the symbol's cells go
            gone = 0
            if by_symbol[s] > 0:
                for p in range(P):
                    if weight[s, p] > 0 and pay[p, counts[p]] > 0:
                        gone = 1
                        break
            by_symbol[s] = gone
        for c in range(window.shape[0]):
            if by_symbol[window[c]] > 0:
                removed[c] = 1
    return coins


def anywhere_drop_args(game: Game, level: int, event: np.ndarray | None = None) -> tuple:
    """Arguments of :func:`anywhere_drop`: ``(weight, pay, event, counts,
    by_symbol)`` of :func:`compile_anywhere`, ``counts`` (P,) and
    ``by_symbol`` (S,) scratch (``event``: the samplers' event index of each
    (symbol, count), default none)."""
    ap = compile_anywhere(game, level)
    if event is None:
        event = np.full(ap.pay.shape, -1, dtype=np.int64)
    scratch = np.zeros(ap.weight.shape[0], dtype=np.int64)
    return ap.weight, ap.pay, event, np.zeros(len(ap.symbols), dtype=np.int64), scratch


# ===========================================================================
# the RTP: one count law per symbol
# ===========================================================================
def symbol_count_law(game: Game, ap: AnywherePays, p: int, reel_set: str = "base") -> np.ndarray:
    """Stop combinations of the full cycle by the count of paying symbol
    ``p`` in the window (index = count, ``rows x reels + 1`` entries, exact ints)."""
    win, weights, n_stops = pack_reels(game, reel_set)
    law = np.ones(1, dtype=np.int64)
    for k in range(game.reels):
        c = stop_counts(ap, win[k, : n_stops[k]])[:, p]
        law = convolve_int(law, count_distribution(c, weights[k, : n_stops[k]], game.rows + 1))
    return law


def anywhere_table(game: Game, level: int, reel_set: str = "base") -> list:
    """Combination-table rows of the pays: one per symbol and count row
    (``hits`` spins whose count falls in the row's range, ``win`` its pay [coins])."""
    bet, cycle = game.bet(level), game.cycle(reel_set)
    ap = compile_anywhere(game, level)
    rows = []
    for p in range(len(ap.symbols)):
        law = symbol_count_law(game, ap, p, reel_set).tolist()
        hits: dict = {}
        for c, n in enumerate(law):
            e = int(ap.entry[p, c])
            if e >= 0 and n:
                hits[e] = hits.get(e, 0) + int(n)
        for e, h in hits.items():
            lp = game.line_pays[e]
            if lp.pays[game.level_index(level)]:
                rows.append(
                    combination_row(
                        "anywhere", lp.name, 1, lp.pays[game.level_index(level)], h, cycle, bet.total_bet
                    )
                )
    return rows


def anywhere_rtp(game: Game, level: int, reel_set: str = "base") -> Fraction:
    """RTP of the pays [x total bet, exact]: ``sum_X E[pay_X(count_X)]``."""
    return sum((r["rtp_exact"] for r in anywhere_table(game, level, reel_set)), Fraction(0))


# ===========================================================================
# the law: inclusion-exclusion over the sets of paying symbols
# ===========================================================================
@nb.njit(cache=True)
def _advance_subset(keys, counts, n, feat, cls_w, cls_code, low, top, left, disjoint):
    """Step the ``n`` states (counts of the subset's symbols, capped at their
    top rows, then the code) by every class of one reel (``left`` cells
    after it); a state where some symbol can no longer reach its lowest row
    is dropped (the subset cannot all pay), and with ``disjoint`` (no cell
    counts toward two symbols) one whose symbols together need more cells
    than are left."""
    W = keys.shape[1]
    U = W - 1
    nk, nw, nc, ns = new_table(W, max(16, n), keys[0])
    m = 0
    row = np.empty(W, dtype=keys.dtype)
    for i in range(n):
        for j in range(cls_w.shape[0]):
            alive = True
            need = 0
            for u in range(U):
                c = min(keys[i, u] + feat[j, u], top[u])
                if c + left < low[u]:
                    alive = False
                    break
                need += max(0, low[u] - c)
                row[u] = c
            if not alive or (disjoint and need > left):
                continue
            row[U] = keys[i, U] + cls_code[j]
            nk, nw, nc, ns, m = add_entry(nk, nw, nc, ns, m, row, 0, counts[i] * cls_w[j])
    return nk, nc, m


@nb.njit(cache=True)
def _settle_subset(keys, counts, n, pay_units, sc_units, n_sc, fkeys, fwins, fcounts, fslots, fn):
    """Add the signed terms of one subset U: for every final state (all of U
    pay) and every T within U, the win of T's pays plus the scatter win with
    sign ``(-1)**|U - T|`` (key code ``code // n_sc`` when keyed)."""
    U = keys.shape[1] - 1
    frow = np.zeros(fkeys.shape[1], dtype=fkeys.dtype)
    keyed = fkeys.shape[1] > 0
    for i in range(n):
        code = keys[i, U]
        if keyed:
            frow[0] = code // n_sc
        for mask in range(1 << U):
            win = sc_units[code]
            odd = U
            for u in range(U):
                if mask >> u & 1:
                    win += pay_units[u, keys[i, u]]
                    odd -= 1
            w = -counts[i] if odd % 2 else counts[i]
            fkeys, fwins, fcounts, fslots, fn = add_entry(fkeys, fwins, fcounts, fslots, fn, frow, win, w)
    return fkeys, fwins, fcounts, fslots, fn


def most_payers(ap: AnywherePays, cells: int) -> int:
    """Most symbols that can pay at once: all of them when a wild counts
    toward two or more, else the most lowest rows that fit in ``cells``."""
    P = len(ap.symbols)
    if (ap.weight.sum(axis=1) > 1).any():
        return P
    total, m = 0, 0
    for lo in sorted(ap.low.tolist()):
        total += lo
        if total > cells:
            break
        m += 1
    return m


def state_estimate(game: Game, level: int, reel_set: str = "base", triggers: tuple = ()) -> tuple:
    """(subsets, states, steps): an upper bound on the subsets of symbols the
    pass visits (every subset of at most :func:`most_payers` symbols), on the
    states of one subset's pass (its capped count vectors x the scatter/key
    codes a window can show) and on the
    steps (subsets x reels x states x stop classes x symbols)."""
    ap = compile_anywhere(game, level)
    codes, _ = _codes(game, level, reel_set, triggers)
    reached = {0}
    for c in codes:  # the codes a window can show (codes add without carry)
        reached = {a + b for a in reached for b in set(c.tolist())}
    n_codes = len(reached)
    P, m = len(ap.symbols), most_payers(ap, game.reels * game.rows)
    tops = sorted((ap.top + 1).tolist(), reverse=True)
    counts = [len(s) for s in game.strips(reel_set)]
    subsets, steps, states = 0, 0, 1
    for k in range(m + 1):
        n_sub = comb(P, k)
        states = min(prod(tops[:k]) * n_codes, prod(counts))  # Python integers: no int64 overflow
        subsets += n_sub
        steps += n_sub * game.reels * states * max(counts) * max(k, 1)
    return subsets, states, steps


def check_estimate(game: Game, level: int, reel_set: str, triggers: tuple, max_steps: int | None) -> None:
    """Refuse (:class:`EngineTooLarge`, one line) before a pass whose
    estimated steps exceed ``max_steps`` (default :data:`MAX_ANYWHERE_STEPS`)."""
    limit = max_steps or MAX_ANYWHERE_STEPS
    subsets, states, steps = state_estimate(game, level, reel_set, triggers)
    if steps > limit:
        raise EngineTooLarge(
            f"the exact pay-anywhere law is too large: {subsets:,} sets of paying "
            f"symbols of up to {states:,} count states each, {steps:.2e} steps (about "
            f"{steps / ANYWHERE_STEPS_PER_SECOND:,.0f} s on one core, above the bound {limit:.0e}); "
            "simulate instead",
            file=game.source or game.name,
            field="pays",
        )


def anywhere_distribution(
    game: Game, level: int, reel_set: str = "base", max_steps: int | None = None
) -> WinDistribution:
    """Exact distribution of the total win of one spin (count pays + scatters),
    integer hit counts over the full cycle."""
    wins, _, counts, unit_den, total_bet, cycle = _law(game, level, reel_set, (), max_steps)
    return final_distribution(wins, counts, unit_den, total_bet, cycle)


def anywhere_key_distribution(
    game: Game, level: int, triggers, reel_set: str = "base", max_steps: int | None = None
) -> KeyedWins:
    """Exact joint law of (total spin win, key) (the key of
    :func:`slotmath.engine.joint.spin_key_distribution`, one more digit
    group of the scatter code)."""
    triggers = tuple(triggers)
    if not triggers:
        raise ValueError("give at least one trigger")
    return keyed_wins(game, triggers, *_law(game, level, reel_set, triggers, max_steps))


def _codes(game: Game, level: int, reel_set: str, triggers: tuple) -> tuple:
    """Per reel the scatter (+ key) code of every stop, and the number of codes."""
    bet = game.bet(level)
    sc = scatter_counts(game, reel_set, bet.total_bet, win_denominator(game, bet.total_bet))
    codes, n = sc.codes, len(sc.pay_units)
    if triggers:
        kcodes, n_keys = key_codes(game, reel_set, triggers)
        codes = [c + n * kc for c, kc in zip(codes, kcodes, strict=True)]
        n *= n_keys
    return codes, n


def _law(game: Game, level: int, reel_set: str, triggers: tuple, max_steps: int | None):
    """The law by inclusion-exclusion: finished (wins, key codes, counts),
    win unit, total bet, cycle.

    With ``A_X`` the event that X pays, the indicator that exactly the set
    T pays is ``sum_{U >= T} (-1)**|U - T| 1[all of U pay]``, so the law of
    the win is ``sum_U sum_{T <= U} (-1)**|U - T|`` (law of T's pays plus
    the scatters, over the spins where all of U pay).  Each U is one forward
    pass on U's capped counts and the code; subsets are visited by size and
    the sizes stop when no subset of a size can all pay (nor can a larger one).
    """
    check_estimate(game, level, reel_set, triggers, max_steps)
    ap = compile_anywhere(game, level)
    bet, unit_den, sc, win, weights, n_stops, cycle = pass_inputs(game, level, reel_set)
    R, H, P = game.reels, game.rows, len(ap.symbols)
    max_total = int(ap.pay.max(initial=0)) * P * unit_den + int(sc.pay_units.max())
    check_win_bound(max_total, unit_den)
    n_sc = len(sc.pay_units)
    codes, sc_units = sc.codes, sc.pay_units
    if triggers:
        kcodes, n_keys = key_codes(game, reel_set, triggers)
        codes = [c + n_sc * kc for c, kc in zip(codes, kcodes, strict=True)]
        sc_units = np.tile(sc_units, n_keys)
    dtype = np.int16 if max(len(sc_units), R * H + 1) < 2**15 else np.int64
    probe = np.zeros(1, dtype=dtype)
    feats = [stop_counts(ap, win[k, : n_stops[k]]) for k in range(R)]
    units = ap.pay * unit_den
    fkeys, fwins, fcounts, fslots = new_table(1 if triggers else 0, 64, probe)
    fn = 0
    disjoint = not bool((ap.weight.sum(axis=1) > 1).any())
    for size in range(most_payers(ap, R * H) + 1):
        any_pays = False
        for subset in combinations(range(P), size):
            sub = list(subset)
            keys, _, counts, _ = new_table(size + 1, 1, probe)
            keys[0], counts[0] = 0, 1
            n = 1
            for k in range(R):
                key = np.column_stack([feats[k][:, sub], codes[k]])
                uniq, _, cls_w = group_stops(key, weights[k, : n_stops[k]])
                check_step_cost(
                    game,
                    k,
                    n,
                    len(cls_w),
                    max(size, 1),
                    max_steps or MAX_ANYWHERE_STEPS,
                    what="pay-anywhere law",
                    unit="symbols",
                    steps="steps",
                    per_second=ANYWHERE_STEPS_PER_SECOND,
                )
                keys, counts, n = _advance_subset(
                    keys,
                    counts,
                    n,
                    np.ascontiguousarray(uniq[:, :-1]).astype(dtype),
                    cls_w,
                    np.ascontiguousarray(uniq[:, -1]),
                    ap.low[sub],
                    ap.top[sub],
                    (R - 1 - k) * H,
                    disjoint,
                )
                if n == 0:
                    break
            if n == 0:
                continue
            any_pays = True
            fkeys, fwins, fcounts, fslots, fn = _settle_subset(
                keys,
                counts,
                n,
                np.ascontiguousarray(units[sub]),
                sc_units,
                n_sc,
                fkeys,
                fwins,
                fcounts,
                fslots,
                fn,
            )
        if not any_pays:
            break
    keep = np.flatnonzero(fcounts[:fn])
    ensure(bool((fcounts[keep] > 0).all()), "anywhere.py: expected non-negative counts")
    fcodes = fkeys[keep, 0].astype(np.int64) if triggers else np.zeros(len(keep), dtype=np.int64)
    return fwins[keep], fcodes, fcounts[keep], unit_den, bet.total_bet, cycle
