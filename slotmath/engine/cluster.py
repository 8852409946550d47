"""Cluster pays (``pays_by: cluster``): exact combination table, RTP and the
law of the spin's total win.

Rule
    A *cluster* of paying symbol X is a group of orthogonally adjacent cells
    (same reel one row apart, or same row one reel apart) each showing X or
    a wild that substitutes for X, holding at least one X, and as large as
    it can be.  A pay row ``{symbol: X, count: n, pay: p}`` pays ``p`` coins
    (per bet level) for a cluster of at least ``n`` cells and below the next
    listed count of X; the highest row pays every size up to the window.
    Every cluster pays on its own (two clusters of X pay twice).  A wild
    joins every cluster it touches: the clusters of each symbol are found
    separately, so a wild next to an X cluster and a Y cluster counts in
    both (as it would in a line of X and a line of Y).  Wilds alone form no
    cluster.  Scatters keep their own pays and triggers.

Method (exact)
    The clusters are not a function of per-reel summaries, so every stop
    vector of the cycle is evaluated: stops of one reel that show the same
    window column and scatter/key code are merged (their weights add), and
    every combination of the merged classes is flood-filled
    (:func:`window_cluster_win`) and counted with the product of its class
    weights (integers).  The cost is the number of class vectors times the
    cells times the paying symbols; :func:`check_cost` refuses above
    :data:`MAX_CLUSTER_STEPS` in one line before any work.
"""

from __future__ import annotations

from fractions import Fraction
from math import prod

import numba as nb
import numpy as np

from slotmath.engine.anywhere import compile_anywhere
from slotmath.engine.cache import game_cache
from slotmath.engine.combinations import combination_row
from slotmath.engine.distribution import WinDistribution
from slotmath.engine.joint import (
    INT64_SAFE,
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
from slotmath.engine.reels import pack_reels
from slotmath.errors import EngineTooLarge, ensure
from slotmath.model import Game

#: Flood-fill steps (stop class vectors x cells x paying symbols) per second,
#: one core, on bit boards (benchmarks/bench_cluster.py on the shared 2-core
#: machine: 5.6e8 on the 5x5 exact pass, 2.4e8 in the tumble enumeration of
#: data/games/cluster7 with its refills; the lower, rounded).
CLUSTER_STEPS_PER_SECOND = 2.5e8
#: Refuse an exact pass whose estimated steps exceed this (about 80 s).
MAX_CLUSTER_STEPS = 2 * 10**10
#: windows of at most this many cells are searched on int64 bit boards
BOARD_CELLS = 62


# ===========================================================================
# one window: the compiled flood fill
# ===========================================================================
@nb.njit(cache=True, inline="always")
def window_cluster_win(cells, H, weight, natural, pay, event, scratch, events, add, removed):
    """Coin win of the clusters of a window given as its ``cells`` (symbol
    indices, cell ``reel * H + row``) [coins]; ``events[event[p, size]] += add``
    per paying cluster when ``events`` is not empty, and ``removed[c] = 1``
    on every cell of a paying cluster when ``removed`` is not empty (a tumble
    drop).  ``weight`` (S, P): 1
    when symbol s joins clusters of paying symbol p; ``natural`` (P,) the
    symbol index of p; ``pay`` (P, C + 1) [coins] by size; ``scratch``
    the ``(stack, seen, edges)`` of :func:`flood_scratch`.  A window of at
    most :data:`BOARD_CELLS` cells is searched on bit boards
    (:func:`board_clusters`), a larger one cell by cell (:func:`search_clusters`)."""
    stack, seen, edges = scratch
    if cells.shape[0] <= BOARD_CELLS:
        return board_clusters(cells, H, weight, natural, pay, event, seen, edges, events, add, removed)
    return search_clusters(cells, H, weight, natural, pay, event, stack, seen, events, add, removed)


@nb.njit(cache=True, inline="always")
def _bit_count(x):
    """Set bits of ``x`` (int64, bit 63 clear) [cells]."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0x7F


@nb.njit(cache=True, inline="always")
def board_clusters(cells, H, weight, natural, pay, event, masks, edges, events, add, removed):
    """:func:`window_cluster_win` on bit boards (at most :data:`BOARD_CELLS`
    cells: bit c of an int64 is cell c; ``masks`` (at least S,) scratch;
    ``edges`` the boards of :func:`board_edges`).

    Per paying symbol p, ``join`` holds the cells of the symbols that join
    p; a cluster grows from the lowest cell of p's own symbol not yet in
    one, by the orthogonal neighbours of all its cells at once (one row up
    or down: a shift by 1 off the top or bottom row; one reel left or
    right: a shift by H) within ``join``, until it stops growing; its size
    is its bit count.  The same clusters as :func:`search_clusters`, with
    a few word operations per step of their breadth-first search."""
    C = cells.shape[0]
    coins = 0
    P = natural.shape[0]
    if P == 0:
        return coins
    S = weight.shape[0]
    for s in range(S):
        masks[s] = 0
    one = np.int64(1)
    for c in range(C):
        masks[cells[c]] |= one << c
    full, not_top, not_bottom = edges[0], edges[1], edges[2]
    gone = np.int64(0)  # the cells of the paying clusters
    for p in range(P):
        low = 1  # p's smallest paying size
        while low <= C and pay[p, low] == 0:
            low += 1
        join = np.int64(0)
        for s in range(S):
            if weight[s, p] > 0:
                join |= masks[s]
        if _bit_count(join) < low:  # too few cells for a paying cluster
            continue
        left = masks[natural[p]]
        if low > 1:  # a cell without a neighbour in join is a cluster of 1: pays nothing
            left &= ((join & not_top) >> 1) | ((join & not_bottom) << 1) | (join >> H) | ((join << H) & full)
        while left != 0:
            cluster = left & -left
            while True:
                grown = join & (
                    cluster
                    | ((cluster & not_top) >> 1)
                    | ((cluster & not_bottom) << 1)
                    | (cluster >> H)
                    | ((cluster << H) & full)
                )
                if grown == cluster:
                    break
                cluster = grown
            left &= ~cluster
            size = _bit_count(cluster)
            won = pay[p, size]
            if won > 0:
                coins += won
                gone |= cluster
                if events.shape[0] > 0:
                    events[event[p, size]] += add
    if gone != 0 and removed.shape[0] > 0:
        for c in range(C):
            removed[c] |= (gone >> c) & 1
    return coins


def board_edges(reels: int, rows: int) -> np.ndarray:
    """``(all cells, all but the top row, all but the bottom row)`` as bit
    boards of :func:`board_clusters` (zeros above :data:`BOARD_CELLS` cells)."""
    C = reels * rows
    if C > BOARD_CELLS:
        return np.zeros(3, dtype=np.int64)
    full = (1 << C) - 1
    top = sum(1 << (r * rows) for r in range(reels))
    return np.array([full, full & ~top, full & ~(top << (rows - 1))], dtype=np.int64)


def flood_scratch(reels: int, rows: int, symbols: int) -> tuple:
    """Scratch of :func:`window_cluster_win` for a window of ``reels`` x
    ``rows`` cells (C) and a game of ``symbols`` symbols (S): ``(stack (C,),
    seen (max(C + 1, S),), edges)``, ``edges`` of :func:`board_edges`
    (:func:`search_clusters` counts in ``seen``, :func:`board_clusters`
    keeps its symbol boards there)."""
    C = reels * rows
    return (
        np.zeros(C, dtype=np.int64),
        np.zeros(max(C + 1, symbols), dtype=np.int64),
        board_edges(reels, rows),
    )


@nb.njit(cache=True)
def search_clusters(cells, H, weight, natural, pay, event, stack, seen, events, add, removed):
    """:func:`window_cluster_win` cell by cell (any window): per paying
    symbol a breadth-first search from each of its cells not yet in a
    cluster; ``stack`` (C,) and ``seen`` (at least C + 1,) scratch
    (``seen[C]`` counts the searches: a cell is visited in this one when it
    holds its number, so nothing is reset; the search is breadth first, so
    ``stack[:size]`` holds the cluster)."""
    C = cells.shape[0]
    R = C // H
    coins = 0
    for p in range(natural.shape[0]):
        x = natural[p]
        seen[C] += 1
        mark = seen[C]
        for c0 in range(C):
            if seen[c0] == mark or cells[c0] != x:
                continue
            seen[c0] = mark
            stack[0] = c0
            top, size = 1, 0
            while size < top:
                c = stack[size]
                size += 1
                r, h = c // H, c % H
                for k in range(4):
                    if k == 0:
                        if h == 0:
                            continue
                        nb_ = c - 1
                    elif k == 1:
                        if h == H - 1:
                            continue
                        nb_ = c + 1
                    elif k == 2:
                        if r == 0:
                            continue
                        nb_ = c - H
                    else:
                        if r == R - 1:
                            continue
                        nb_ = c + H
                    if seen[nb_] != mark and weight[cells[nb_], p] > 0:
                        seen[nb_] = mark
                        stack[top] = nb_
                        top += 1
            won = pay[p, size]
            if won > 0:
                coins += won
                if events.shape[0] > 0:
                    events[event[p, size]] += add
                for i in range(size if removed.shape[0] > 0 else 0):
                    removed[stack[i]] = 1
    return coins


def cluster_arrays(game: Game, level: int) -> tuple:
    """``(weight, natural, pay, entry)`` of :func:`window_cluster_win` at bet
    ``level`` (the count-pays table of :func:`slotmath.engine.anywhere.compile_anywhere`,
    read as cluster sizes; ``entry`` the index into ``game.line_pays`` of
    each (symbol, size), -1 if unpaid)."""
    ap = compile_anywhere(game, level)
    natural = np.array([game.symbol_index[s] for s in ap.symbols], dtype=np.int64)
    return ap.weight, natural, ap.pay, ap.entry


# ===========================================================================
# the exact pass: every class vector of the cycle
# ===========================================================================
@nb.njit(cache=True)
def _enumerate(
    cols, wts, codes, offsets, H, weight, natural, pay, entry, scratch, unit_den, sc_units, n_sc, keyed
):
    """Every vector of stop classes (reel r's classes ``offsets[r]:offsets[r+1]``
    of ``cols`` (J, H) window columns, ``wts`` weights, ``codes``
    scatter/key codes; ``scratch`` of :func:`flood_scratch`): (table keys,
    wins [1/unit_den coins], counts, size, weighted cluster hits per pay entry)."""
    R = offsets.shape[0] - 1
    C = R * H
    cells = np.empty(C, dtype=np.int64)
    hits = np.zeros(max(1, entry.size and int(entry.max()) + 1), dtype=np.int64)
    no_removed = np.zeros(0, dtype=np.int64)  # the pass removes nothing
    fkeys, fwins, fcounts, fslots = new_table(1 if keyed else 0, 64, np.zeros(1, dtype=np.int64))
    fn = 0
    frow = np.zeros(fkeys.shape[1], dtype=np.int64)
    idx = offsets[:-1].copy()
    wprod = np.ones(R + 1, dtype=np.int64)
    cprod = np.zeros(R + 1, dtype=np.int64)
    first = 0  # reels from this one on changed since the last vector
    while True:
        for r in range(first, R):
            j = idx[r]
            for h in range(H):
                cells[r * H + h] = cols[j, h]
            wprod[r + 1] = wprod[r] * wts[j]
            cprod[r + 1] = cprod[r] + codes[j]
        w = wprod[R]
        coins = window_cluster_win(cells, H, weight, natural, pay, entry, scratch, hits, w, no_removed)
        code = cprod[R]
        if keyed:
            frow[0] = code // n_sc
        fkeys, fwins, fcounts, fslots, fn = add_entry(
            fkeys, fwins, fcounts, fslots, fn, frow, coins * unit_den + sc_units[code], w
        )
        r = R - 1
        while r >= 0:
            idx[r] += 1
            if idx[r] < offsets[r + 1]:
                break
            idx[r] = offsets[r]
            r -= 1
        if r < 0:
            break
        first = r
    return fkeys, fwins, fcounts, fn, hits


def _classes(game: Game, reel_set: str, codes: list) -> list:
    """Per reel the stop classes: (window columns (J, H), weights (J,), codes (J,))."""
    win, weights, n_stops = pack_reels(game, reel_set)
    out = []
    for k in range(game.reels):
        n = n_stops[k]
        _, first, w = group_stops(np.column_stack([win[k, :n], codes[k]]), weights[k, :n])
        out.append((win[k, first], w, codes[k][first]))
    return out


def cost_estimate(game: Game, reel_set: str = "base", triggers: tuple = ()) -> tuple:
    """(class vectors, steps) of the exact pass over ``reel_set``: every
    vector of stop classes flood-filled once per paying symbol over the cells."""
    _, codes, _ = _codes(game, game.levels[0], reel_set, triggers)
    vectors = prod(len(c[1]) for c in _classes(game, reel_set, codes))
    paying = len({next(iter(lp.positions[0])) for lp in game.line_pays})
    return vectors, vectors * game.reels * game.rows * max(paying, 1)


def check_cost(game: Game, reel_set: str, triggers: tuple, limit: int | None) -> None:
    """Refuse (:class:`EngineTooLarge`, one line) before a pass whose
    estimated steps exceed ``limit`` (default :data:`MAX_CLUSTER_STEPS`)."""
    bound = limit or MAX_CLUSTER_STEPS
    vectors, steps = cost_estimate(game, reel_set, triggers)
    if steps > bound:
        cells = game.reels * game.rows
        raise EngineTooLarge(
            f"the exact cluster law of reel set {reel_set!r} would flood-fill {vectors:.3g} stop "
            f"vectors x {cells} cells x {steps // (vectors * cells)} paying symbols = {steps:.2e} "
            f"steps (about {steps / CLUSTER_STEPS_PER_SECOND:,.0f} s on one core), above the bound "
            f"{bound:.0e}; run `slotmath simulate` instead",
            file=game.source or game.name,
            field=f"reels.{reel_set}",
        )


def _codes(game: Game, level: int, reel_set: str, triggers: tuple) -> tuple:
    """(scatter win units by code, per reel the code of every stop, scatter codes)."""
    bet, unit_den, sc, *_ = pass_inputs(game, level, reel_set)
    codes, sc_units, n_sc = sc.codes, sc.pay_units, len(sc.pay_units)
    if triggers:
        kcodes, n_keys = key_codes(game, reel_set, triggers)
        codes = [c + n_sc * kc for c, kc in zip(codes, kcodes, strict=True)]
        sc_units = np.tile(sc_units, n_keys)
    return sc_units, codes, n_sc


def _reel_set_of(game: Game, level: int, reel_set: str, *rest) -> tuple:
    """The reel set a pass reads (the strips of its cache key)."""
    return (reel_set,)


@game_cache(_reel_set_of, maxsize=8)
def cluster_pass(game: Game, level: int, reel_set: str, triggers: tuple, limit: int | None):
    """The exact pass (cached on the game's value, the level, the reel set's
    strips, the triggers): (wins [1/unit_den coins], key codes, counts,
    unit_den, total bet, cycle) of every (win, key) and the weighted cluster
    hits per pay entry (index into ``game.line_pays``)."""
    check_cost(game, reel_set, triggers, limit)
    weight, natural, pay, entry = cluster_arrays(game, level)
    bet, unit_den, sc, _, _, _, cycle = pass_inputs(game, level, reel_set)
    sc_units, codes, n_sc = _codes(game, level, reel_set, triggers)
    C = game.reels * game.rows
    low = int(min((np.flatnonzero(row).min() for row in pay if row.any()), default=C))
    most = C // max(low, 1)  # clusters of one window, at most
    check_win_bound(int(pay.max(initial=0)) * most * unit_den + int(sc_units.max()), unit_den)
    if cycle * max(most, 1) >= 2 * INT64_SAFE:
        raise OverflowError(f"cycle {cycle} x {most} clusters is too large for exact int64 hit counts")
    classes = _classes(game, reel_set, codes)
    offsets = np.cumsum([0] + [len(w) for _, w, _ in classes]).astype(np.int64)
    fkeys, fwins, fcounts, fn, hits = _enumerate(
        np.ascontiguousarray(np.concatenate([c for c, _, _ in classes])),
        np.concatenate([w for _, w, _ in classes]).astype(np.int64),
        np.concatenate([k for _, _, k in classes]).astype(np.int64),
        offsets,
        game.rows,
        weight,
        natural,
        pay,
        entry,
        flood_scratch(game.reels, game.rows, weight.shape[0]),
        unit_den,
        np.asarray(sc_units, dtype=np.int64),
        n_sc,
        bool(triggers),
    )
    keep = np.flatnonzero(fcounts[:fn])
    fcodes = fkeys[keep, 0].astype(np.int64) if triggers else np.zeros(len(keep), dtype=np.int64)
    ensure(int(fcounts[keep].sum()) == cycle, "cluster.py: expected the counts to sum to the cycle")
    return (fwins[keep], fcodes, fcounts[keep], unit_den, bet.total_bet, cycle), hits


def cluster_table(game: Game, level: int, reel_set: str = "base", limit: int | None = None) -> list:
    """Combination-table rows of the pays: one per symbol and size row
    (``hits`` clusters over the cycle whose size falls in the row's range,
    ``win`` its pay [coins])."""
    _, hits = cluster_pass(game, level, reel_set, (), limit)
    bet, cycle, li = game.bet(level), game.cycle(reel_set), game.level_index(level)
    return [
        combination_row("cluster", lp.name, 1, lp.pays[li], int(hits[e]), cycle, bet.total_bet)
        for e, lp in enumerate(game.line_pays)
        if e < len(hits) and hits[e] and lp.pays[li]
    ]


def cluster_rtp(game: Game, level: int, reel_set: str = "base") -> Fraction:
    """RTP of the cluster pays [x total bet, exact]."""
    return sum((r["rtp_exact"] for r in cluster_table(game, level, reel_set)), Fraction(0))


def cluster_distribution(
    game: Game, level: int, reel_set: str = "base", limit: int | None = None
) -> WinDistribution:
    """Exact distribution of the total win of one spin (cluster pays + scatters)."""
    (wins, _, counts, unit_den, total_bet, cycle), _ = cluster_pass(game, level, reel_set, (), limit)
    return final_distribution(wins, counts, unit_den, total_bet, cycle)


def cluster_key_distribution(
    game: Game, level: int, triggers, reel_set: str = "base", limit: int | None = None
) -> KeyedWins:
    """Exact joint law of (total spin win, key of ``triggers``)
    (:func:`slotmath.engine.joint.key_codes`)."""
    triggers = tuple(triggers)
    if not triggers:
        raise ValueError("give at least one trigger")
    finished, _ = cluster_pass(game, level, reel_set, triggers, limit)
    return keyed_wins(game, triggers, *finished)


# ===========================================================================
# one tumble drop (slotmath.engine.tumble)
# ===========================================================================
@nb.njit(cache=True, inline="always")
def cluster_drop(window, pays, removed, events, count):
    """The cluster rule's part of one tumble drop (:mod:`slotmath.engine.tumble`):
    the coin win of ``window`` (cell ``reel x rows + row``) [coins] by
    :func:`window_cluster_win`; sets ``removed[c] = 1`` on every cell of every
    paying cluster (its wilds too; a wild in two paying clusters once).  With
    ``count`` each paying cluster adds one to ``events`` at its (symbol, size)
    index.  ``pays``: :func:`cluster_drop_args` (no paying symbols: pays nothing)."""
    weight, natural, pay, event, scratch, rows, no_events = pays
    tally = events if count else no_events
    return window_cluster_win(window, rows[0], weight, natural, pay, event, scratch, tally, 1, removed)


def cluster_drop_args(game: Game, level: int, event: np.ndarray | None = None) -> tuple:
    """Arguments of :func:`cluster_drop`: ``(weight, natural, pay, event,
    scratch, (rows,), no events)`` of :func:`cluster_arrays` (``event``:
    the samplers' event index of each (symbol, size), default none)."""
    weight, natural, pay, _ = cluster_arrays(game, level)
    return _drop_args(game, weight, natural, pay, event)


def _drop_args(game: Game, weight, natural, pay, event) -> tuple:
    """:func:`cluster_drop`'s tuple around the pay arrays (``event`` None: -1 everywhere)."""
    if event is None:
        event = np.full(pay.shape, -1, dtype=np.int64)
    return (
        weight,
        natural,
        pay,
        event,
        flood_scratch(game.reels, game.rows, weight.shape[0]),
        np.array([game.rows], dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )
