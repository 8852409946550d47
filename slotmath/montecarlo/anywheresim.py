"""Compiled round simulator for games paid by count: anywhere (``pays_by: anywhere``)
or by cluster (``pays_by: cluster``, :func:`cluster_sampler`).

One round: draw a stop on every reel exactly as :mod:`slotmath.montecarlo.linesim`
does, read the window's cells, count every paying symbol over them with
the pay table of :func:`slotmath.engine.anywhere.compile_anywhere` (the same
arrays as the exact engine) and add the scatters.  Events: one per count
row (spins whose count falls in its range, as in the combination table)
and one per scatter pay entry.

:func:`slotmath.engine.anywhere.window_anywhere_win` evaluates any window
given as its cells (each drop of a tumble calls it again on the new cells,
:func:`slotmath.engine.anywhere.anywhere_drop`); :func:`paid_symbols` says
which symbols paid.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.anywhere import compile_anywhere, window_anywhere_win
from slotmath.engine.reels import pack_reels
from slotmath.model import Game
from slotmath.montecarlo.clustersim import cluster_args, no_cluster_args, round_cluster_win
from slotmath.montecarlo.convergence import pay_row_events
from slotmath.montecarlo.linesim import (
    TABLE_LIMIT,
    draw_args,
    draw_stops,
    part_names,
    scatter_args,
    scatter_win,
    split_win,
)
from slotmath.montecarlo.run import RoundSampler


@nb.njit(cache=True)
def paid_symbols(counts, pay, paid):
    """``paid[p]`` True when symbol p's count pays (after :func:`window_anywhere_win`)."""
    for p in range(counts.shape[0]):
        paid[p] = pay[p, counts[p]] > 0


@nb.njit(cache=True)
def anywhere_win(stop, sym, weight, pay, event, total_bet, cells, counts, events):
    """Win of the window at ``stop`` [x total bet] (``sym`` (R, Nmax, H) the
    reel set's windows; ``cells``, ``counts`` scratch)."""
    R, H = sym.shape[0], sym.shape[2]
    for r in range(R):
        for h in range(H):
            cells[r * H + h] = sym[r, stop[r], h]
    return window_anywhere_win(cells, weight, pay, event, counts, events) / total_bet


@nb.njit(cache=True, inline="always")
def round_anywhere_win(stop, anywhere, events):
    """Count-pays win [x total bet] of the window at ``stop`` with the
    arguments ``anywhere`` of :func:`anywhere_args` (0 for a game not paid anywhere)."""
    sym, weight, pay, event, total_bet, cells, counts = anywhere
    if weight.shape[1] == 0:
        return 0.0
    return anywhere_win(stop, sym, weight, pay, event, total_bet[0], cells, counts, events)


def anywhere_args(game: Game, level: int, reel_set: str, names: list, win: np.ndarray | None = None) -> tuple:
    """Arguments of :func:`round_anywhere_win` for ``reel_set``; one event per
    count row is appended to ``names``.  ``win`` (reel, stop, row), when
    given, replaces the reel set's windows."""
    ap = compile_anywhere(game, level)
    if win is None:
        win, _, _ = pack_reels(game, reel_set)
    return (
        np.ascontiguousarray(win),
        ap.weight,
        ap.pay,
        pay_row_events("anywhere", [x.name for x in game.line_pays], ap.pay, ap.entry, names),
        np.array([game.bet(level).total_bet], dtype=np.int64),
        np.zeros(game.reels * game.rows, dtype=np.int64),
        np.zeros(len(ap.symbols), dtype=np.int64),
    )


def no_anywhere_args(game: Game) -> tuple:
    """Arguments of :func:`round_anywhere_win` that pay nothing."""
    return (
        np.zeros((game.reels, 1, game.rows), dtype=np.int64),
        np.zeros((1, 0), dtype=np.int64),
        np.zeros((0, 1), dtype=np.int64),
        np.zeros((0, 1), dtype=np.int64),
        np.ones(1, dtype=np.int64),
        np.zeros(game.reels * game.rows, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )


@nb.njit(cache=True)
def count_kernel(
    rng, n, dims, bound, use_table, table, cum, n_stops, anywhere, cluster, sc_count, sc_pay, sc_event
):
    """Play ``n`` spins: (wins [x total bet], event counts, wins by part:
    count pays (anywhere, :func:`round_anywhere_win`, or by cluster,
    :func:`~slotmath.montecarlo.clustersim.round_cluster_win`; the other
    pays nothing), then scatters when the game has scatter symbols)."""
    R = dims[0]
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, 1 + (sc_count.shape[0] > 0)), dtype=np.float64)
    events = np.zeros(dims[2], dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        pays = round_anywhere_win(stop, anywhere, events) + round_cluster_win(stop, cluster, events)
        wins[i] = split_win(parts[i], pays, scatter_win(stop, sc_count, sc_pay, sc_event, events))
    return wins, events, parts


def anywhere_sampler(
    game: Game, level: int, reel_set: str = "base", table_limit: int = TABLE_LIMIT
) -> RoundSampler:
    """Compiled sampler of one spin of a pay-anywhere game at bet ``level``."""
    names: list = []
    anywhere = anywhere_args(game, level, reel_set, names)
    return count_sampler(
        game, level, reel_set, names, anywhere, no_cluster_args(game), "anywhere", table_limit
    )


def count_sampler(
    game: Game,
    level: int,
    reel_set: str,
    names: list,
    anywhere: tuple,
    cluster: tuple,
    channel: str,
    table_limit: int = TABLE_LIMIT,
) -> RoundSampler:
    """The :func:`count_kernel` sampler of ``reel_set`` with the pays' args
    (their events already in ``names``), its pays part named ``channel``."""
    sc_count, sc_pay, sc_event = scatter_args(game, reel_set, names)
    dims = np.array([game.reels, game.bet(level).total_bet, len(names)], dtype=np.int64)
    args = (dims, *draw_args(game, reel_set, table_limit), anywhere, cluster, sc_count, sc_pay, sc_event)
    return RoundSampler(count_kernel, args, tuple(names), part_names(game, channel))


def cluster_sampler(game: Game, level: int, reel_set: str = "base") -> RoundSampler:
    """Compiled sampler of one spin of a cluster game at bet ``level``
    (:mod:`slotmath.montecarlo.clustersim`'s flood fill in :func:`count_kernel`)."""
    names: list = []
    cluster = cluster_args(game, level, reel_set, names)
    return count_sampler(game, level, reel_set, names, no_anywhere_args(game), cluster, "cluster")
