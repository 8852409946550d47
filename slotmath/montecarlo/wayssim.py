"""Compiled round simulator for ways games (``pays_by: ways``).

One round: draw a stop on every reel exactly as :mod:`slotmath.montecarlo.linesim`
does, then, for every paying symbol, step its ways reel by reel with the
stop's features (:func:`slotmath.engine.ways.stop_features`, the same arrays and
the same :func:`slotmath.engine.ways.step_ways` as the exact engine) until its run
ends, and add the scatters.  Events: one per ways pay entry (spins paying
it, as in the combination table) and one per scatter pay entry.

A game played with its drawn wild multipliers not written as stops
(:func:`slotmath.features.wildmult.drawn_symbols`: the declared strips, the
variant symbols ``Wx2``, ``Wx3``, ...) plays :func:`ways_kernel_drawn`: every
cell of the window showing the multiplier wild draws its variant
(:func:`draw_window_features`), so a way through drawn wilds counts the
product of their multipliers (``per_wild`` variants) or carries their sum
(``summed`` variants, a digit of the ways state), as the exact rule of
:mod:`slotmath.features.drawnways`.

A game whose ways carry one multiplier state (no wild multiplying by its
count) and whose reels weigh less than ``2**31`` plays
:func:`ways_kernel_plain`: the product of each first-reel symbol's weighted
cells per reel, the same rounds as :func:`ways_kernel`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.reels import pack_reels
from slotmath.engine.ways import compile_ways, settle_ways, step_ways, stop_features
from slotmath.model import Game
from slotmath.montecarlo.convergence import event_key
from slotmath.montecarlo.linesim import (
    TABLE_LIMIT,
    draw_args,
    draw_narrow,
    draw_stops,
    drawn_table,
    narrow,
    part_names,
    scatter_args,
    scatter_win,
    split_win,
    weighted_index,
)
from slotmath.montecarlo.run import RoundSampler


@nb.njit(cache=True)
def ways_win(stop, feat, pay, event, step, factor, total_bet, vec, out, events):
    """Ways win of the window at ``stop`` [x total bet]; adds its events.

    ``feat`` (R, Nmax, P x F) stop features, ``pay`` (P, R + 1) [coins],
    ``event`` (P, R + 1) event index or -1; ``vec``/``out`` scratch (M,).
    """
    R = stop.shape[0]
    P = pay.shape[0]
    F = feat.shape[2] // P if P > 0 else 0
    coins = 0
    for p in range(P):
        vec[:] = 0
        vec[0] = 1
        for k in range(R + 1):
            if k == R:
                ended = settle_ways(vec, factor)
            else:
                ended = step_ways(vec, out, feat[k, stop[k], p * F : (p + 1) * F], step, factor)
            if ended >= 0:
                if pay[p, k] > 0:
                    coins += pay[p, k] * ended
                    events[event[p, k]] += 1
                break
            vec[:] = out
    return coins / total_bet


@nb.njit(cache=True)
def ways_kernel(
    rng,
    n,
    dims,
    bound,
    use_table,
    table,
    cum,
    n_stops,
    feat,
    pay,
    event,
    step,
    factor,
    sc_count,
    sc_pay,
    sc_event,
):
    """Play ``n`` rounds: (wins [x total bet], event counts, wins by part:
    ways, then scatters when the game has scatter symbols)."""
    R = dims[0]
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, 1 + (sc_count.shape[0] > 0)), dtype=np.float64)
    events = np.zeros(dims[2], dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    vec = np.empty(factor.shape[0], dtype=np.int64)
    out = np.empty(factor.shape[0], dtype=np.int64)
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        ways = ways_win(stop, feat, pay, event, step, factor, dims[1], vec, out, events)
        wins[i] = split_win(parts[i], ways, scatter_win(stop, sc_count, sc_pay, sc_event, events))
    return wins, events, parts


@nb.njit(cache=True)
def ways_kernel_plain(
    rng,
    n,
    dims,
    bound,
    use_table,
    table,
    cum,
    n_stops,
    cells,
    present,
    n_present,
    pay,
    event,
    factor,
    sc_count,
    sc_pay,
    sc_event,
):
    """:func:`ways_kernel` for a game whose ways carry one multiplier state
    (no wild multiplies by its count on the way: ``factor`` has one entry)
    and whose reels draw by :func:`~slotmath.montecarlo.linesim.draw_narrow`:
    the same rounds, wins and events.

    A symbol's ways are the product of its weighted cells per reel
    (``cells[reel, stop, p]``: :func:`plain_ways_args`) up to the first reel
    without it, times ``factor[0]``; only the paying symbols on the first
    reel's window (``present[stop, :n_present[stop]]``) are followed.
    """
    R = dims[0]
    total_bet = dims[1]
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, 1 + (sc_count.shape[0] > 0)), dtype=np.float64)
    events = np.zeros(dims[2], dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    f0 = factor[0]
    for i in range(n):
        draw_narrow(rng, stop, bound, use_table, table, cum, n_stops)
        coins = 0
        s0 = stop[0]
        for j in range(n_present[s0]):
            p = present[s0, j]
            ways = cells[0, s0, p]
            k = 1
            while k < R:
                c = cells[k, stop[k], p]
                if c == 0:
                    break
                ways *= c
                k += 1
            if pay[p, k] > 0:
                coins += pay[p, k] * ways * f0
                events[event[p, k]] += 1
        wins[i] = split_win(
            parts[i], coins / total_bet, scatter_win(stop, sc_count, sc_pay, sc_event, events)
        )
    return wins, events, parts


@nb.njit(cache=True)
def draw_window_features(rng, stop, feat, n_wild, delta, cum, window):
    """Write into ``window`` (R, 1, P x F) the stop features of the window at
    ``stop`` with each multiplier wild's variant drawn: ``feat[k, stop[k]]``
    plus, for each of the ``n_wild[k, stop[k]]`` wild cells of reel ``k``,
    ``delta[j]`` of the variant ``j`` it draws (independently per cell,
    weighted by the table's cumulative weights ``cum``,
    :func:`~slotmath.montecarlo.linesim.weighted_index`).  The features are
    sums over the cells, so this is the features of the window showing the
    drawn variants; ``window`` is read as a reel set of one stop."""
    K = cum.shape[0]
    for k in range(stop.shape[0]):
        window[k, 0, :] = feat[k, stop[k]]
        for _ in range(n_wild[k, stop[k]]):
            window[k, 0, :] += delta[weighted_index(rng, cum, K)]


@nb.njit(cache=True)
def ways_kernel_drawn(
    rng,
    n,
    dims,
    bound,
    use_table,
    table,
    cum,
    n_stops,
    feat,
    n_wild,
    delta,
    wcum,
    pay,
    event,
    step,
    factor,
    sc_count,
    sc_pay,
    sc_event,
):
    """:func:`ways_kernel` with the multiplier wilds' variants drawn in each
    window (:func:`draw_window_features`; ``n_wild``, ``delta``, ``wcum``
    from :func:`drawn_ways_args`).  Its loop is :func:`ways_kernel`'s with
    that one draw added, kept apart so the undrawn kernels' arguments and
    compiled loops stay as they were."""
    R = dims[0]
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, 1 + (sc_count.shape[0] > 0)), dtype=np.float64)
    events = np.zeros(dims[2], dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    at = np.zeros(R, dtype=np.int64)  # the drawn window: a reel set of one stop
    window = np.empty((R, 1, feat.shape[2]), dtype=np.int64)
    vec = np.empty(factor.shape[0], dtype=np.int64)
    out = np.empty(factor.shape[0], dtype=np.int64)
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        draw_window_features(rng, stop, feat, n_wild, delta, wcum, window)
        ways = ways_win(at, window, pay, event, step, factor, dims[1], vec, out, events)
        wins[i] = split_win(parts[i], ways, scatter_win(stop, sc_count, sc_pay, sc_event, events))
    return wins, events, parts


def drawn_ways_args(game: Game, level: int, win: np.ndarray) -> tuple | None:
    """``(n_wild, delta, cum)`` of :func:`draw_window_features` for the
    windows ``win`` (reel, stop, row) of a game played with its drawn
    multipliers' variant symbols (:func:`~slotmath.montecarlo.linesim.drawn_table`),
    or None when its windows show no multiplier wild: per (reel, stop) the
    wild's cells, per variant its one-cell features less the wild's
    (:func:`~slotmath.engine.ways.stop_features` of a single cell), and the
    table's cumulative weights."""
    drawn = drawn_table(game, win)
    if drawn is None:
        return None
    w, variants, cum = drawn
    wp = compile_ways(game, level)
    one = stop_features(wp, np.arange(len(game.symbols), dtype=np.int64)[:, None])  # (S, P x F)
    delta = np.ascontiguousarray(one[variants] - one[w])
    n_wild = (win == w).sum(axis=2).astype(np.int64)
    return n_wild, delta, np.array(cum, dtype=np.int64)


def plain_ways_args(feat: np.ndarray, P: int) -> tuple:
    """``(cells, present, n_present)`` of :func:`ways_kernel_plain` from the
    stop features ``feat`` (R, N, P x F) of a game with one multiplier state:
    per (reel, stop, paying symbol) the weighted cells (every feature column
    adds one way per cell: a ``by_count`` wild steps to the one state), and
    the paying symbols present on each stop of the first reel."""
    R, N = feat.shape[0], feat.shape[1]
    cells = np.ascontiguousarray(feat.reshape(R, N, P, -1).sum(axis=3))
    first = cells[0]
    n_present = (first > 0).sum(axis=1).astype(np.int64)
    present = np.zeros((N, max(1, int(n_present.max(initial=0)))), dtype=np.int64)
    for st in range(N):
        idx = np.nonzero(first[st])[0]
        present[st, : len(idx)] = idx
    return cells, present, n_present


@nb.njit(cache=True, inline="always")
def round_ways_win(rng, stop, ways, events):
    """Ways win [x total bet] of the window at ``stop`` with the arguments
    ``ways`` of :func:`ways_args` (0 for a game not paid by ways); a window
    showing a multiplier wild whose draws are not written as stops draws
    them first (:func:`draw_window_features`; no draw, the same random
    stream, without one)."""
    feat, pay, event, step, factor, total_bet, vec, out, n_wild, delta, wcum, window, at = ways
    if wcum.shape[0] > 0:
        draw_window_features(rng, stop, feat, n_wild, delta, wcum, window)
        return ways_win(at, window, pay, event, step, factor, total_bet[0], vec, out, events)
    return ways_win(stop, feat, pay, event, step, factor, total_bet[0], vec, out, events)


def ways_args(game: Game, level: int, reel_set: str, names: list, win: np.ndarray | None = None) -> tuple:
    """Arguments of :func:`round_ways_win` for ``reel_set``; one event per ways
    pay entry is appended to ``names``.  ``win`` (reel, stop, row), when given,
    replaces the reel set's windows (an expanding wild's expanded ones).
    The last five: the drawn multiplier wilds' :func:`drawn_ways_args` (empty
    when the windows show none), the drawn window's scratch and its stops."""
    wp = compile_ways(game, level)
    if win is None:
        win, _, _ = pack_reels(game, reel_set)
    feat = np.stack([stop_features(wp, win[k]) for k in range(game.reels)])
    event = np.full(wp.pay.shape, -1, dtype=np.int64)
    for p, n in zip(*np.nonzero(wp.pay), strict=True):
        key = event_key("ways", game.line_pays[wp.entry[p, n]].name, 1)
        if key not in names:
            names.append(key)
        event[p, n] = names.index(key)
    M = len(wp.factor)
    drawn = drawn_ways_args(game, level, win)
    if drawn is None:
        drawn = _no_draws(game.reels, 0)
    return (
        feat,
        wp.pay,
        event,
        wp.step,
        wp.factor,
        np.array([game.bet(level).total_bet], dtype=np.int64),
        np.zeros(M, dtype=np.int64),
        np.zeros(M, dtype=np.int64),
        *drawn,
        np.zeros((game.reels, 1, feat.shape[2]), dtype=np.int64),
        np.zeros(game.reels, dtype=np.int64),
    )


def _no_draws(reels: int, width: int) -> tuple:
    """:func:`drawn_ways_args` of windows without a multiplier wild: no draw."""
    return (
        np.zeros((reels, 1), dtype=np.int64),
        np.zeros((0, width), dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )


def no_ways_args(game: Game) -> tuple:
    """Arguments of :func:`round_ways_win` that pay nothing (a game not paid by ways)."""
    return (
        np.zeros((game.reels, 1, 0), dtype=np.int64),
        np.zeros((0, game.reels + 1), dtype=np.int64),
        np.zeros((0, game.reels + 1), dtype=np.int64),
        np.zeros((1, 1), dtype=np.int64),
        np.ones(1, dtype=np.int64),
        np.ones(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        *_no_draws(game.reels, 0),
        np.zeros((game.reels, 1, 0), dtype=np.int64),
        np.zeros(game.reels, dtype=np.int64),
    )


def ways_sampler(
    game: Game, level: int, reel_set: str = "base", table_limit: int = TABLE_LIMIT, plain: bool = True
) -> RoundSampler:
    """Compiled round sampler of a ways game at bet ``level``: the faster
    :func:`ways_kernel_plain` where it applies and ``plain`` is true, else
    :func:`ways_kernel` (the same rounds); :func:`ways_kernel_drawn` when the
    windows show a multiplier wild whose draws are not written as stops."""
    wp = compile_ways(game, level)
    win, _, n_stops = pack_reels(game, reel_set)
    feat = np.stack([stop_features(wp, win[k]) for k in range(game.reels)])
    names = []
    event = np.full(wp.pay.shape, -1, dtype=np.int64)
    for p, n in zip(*np.nonzero(wp.pay), strict=True):
        event[p, n] = len(names)
        names.append(event_key("ways", game.line_pays[wp.entry[p, n]].name, 1))
    sc_count, sc_pay, sc_event = scatter_args(game, reel_set, names)
    dims = np.array([game.reels, game.bet(level).total_bet, len(names)], dtype=np.int64)
    draw = draw_args(game, reel_set, table_limit)
    drawn = drawn_ways_args(game, level, win)
    if drawn is not None:
        pays = (wp.pay, event, wp.step, wp.factor, sc_count, sc_pay, sc_event)
        args = (dims,) + draw + (feat,) + drawn + pays
        return RoundSampler(ways_kernel_drawn, args, tuple(names), part_names(game, "ways"))
    if plain and len(wp.factor) == 1 and narrow(draw[0]):
        plain = plain_ways_args(feat, wp.pay.shape[0])
        args = (dims,) + draw + plain + (wp.pay, event, wp.factor, sc_count, sc_pay, sc_event)
        return RoundSampler(ways_kernel_plain, args, tuple(names), part_names(game, "ways"))
    args = (dims,) + draw + (feat, wp.pay, event, wp.step, wp.factor, sc_count, sc_pay, sc_event)
    return RoundSampler(ways_kernel, args, tuple(names), part_names(game, "ways"))
