"""Compiled window evaluation of cluster pays (``pays_by: cluster``) for the samplers.

One spin: the stops drawn as :mod:`slotmath.montecarlo.linesim` draws them,
the window's cells read, and its clusters found by the exact engine's flood
fill (:func:`slotmath.engine.cluster.window_cluster_win`, the same arrays).
Events: one per size row (clusters whose size falls in its range, as in
the combination table).  The round sampler (:mod:`slotmath.montecarlo.roundsim`)
plays it through :func:`round_cluster_win`; a single reel set is sampled
by :func:`slotmath.montecarlo.anywheresim.cluster_sampler` (the count-pays kernel).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.cluster import cluster_arrays, flood_scratch, window_cluster_win
from slotmath.engine.reels import pack_reels
from slotmath.model import Game
from slotmath.montecarlo.convergence import pay_row_events


@nb.njit(cache=True, inline="always")
def round_cluster_win(stop, cluster, events):
    """Cluster win [x total bet] of the window at ``stop`` with the arguments
    ``cluster`` of :func:`cluster_args` (0 for a game without cluster pays)."""
    sym, weight, natural, pay, event, total_bet, cells, scratch, no_removed = cluster
    if natural.shape[0] == 0:
        return 0.0
    R, H = sym.shape[0], sym.shape[2]
    for r in range(R):
        for h in range(H):
            cells[r * H + h] = sym[r, stop[r], h]
    coins = window_cluster_win(cells, H, weight, natural, pay, event, scratch, events, 1, no_removed)
    return coins / total_bet[0]


def cluster_args(game: Game, level: int, reel_set: str, names: list, win: np.ndarray | None = None) -> tuple:
    """Arguments of :func:`round_cluster_win` for ``reel_set``; one event per
    size row is appended to ``names``.  ``win`` (reel, stop, row), when
    given, replaces the reel set's windows."""
    weight, natural, pay, entry = cluster_arrays(game, level)
    if win is None:
        win, _, _ = pack_reels(game, reel_set)
    C = game.reels * game.rows
    return (
        np.ascontiguousarray(win),
        weight,
        natural,
        pay,
        pay_row_events("cluster", [x.name for x in game.line_pays], pay, entry, names),
        np.array([game.bet(level).total_bet], dtype=np.int64),
        np.zeros(C, dtype=np.int64),
        flood_scratch(game.reels, game.rows, weight.shape[0]),
        np.zeros(0, dtype=np.int64),
    )


def no_cluster_args(game: Game) -> tuple:
    """Arguments of :func:`round_cluster_win` that pay nothing."""
    C = game.reels * game.rows
    return (
        np.zeros((game.reels, 1, game.rows), dtype=np.int64),
        np.zeros((1, 0), dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros((0, 1), dtype=np.int64),
        np.zeros((0, 1), dtype=np.int64),
        np.ones(1, dtype=np.int64),
        np.zeros(C, dtype=np.int64),
        flood_scratch(game.reels, game.rows, 1),
        np.zeros(0, dtype=np.int64),
    )
