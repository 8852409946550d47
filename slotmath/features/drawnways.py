"""Exact ways figures of drawn wild multipliers from the law of the drawn
wilds' count on each way (``options.wild_multipliers`` on ``pays_by: ways``;
no rewrite of the reels).

Imported by the computations only: the declaration and its checks are
:mod:`slotmath.features.wildmult`, the line figures
:mod:`slotmath.features.wilddraws`.

Rule: every drawn wild in the window draws its own multiplier; a way
through drawn wilds (one cell per reel) is multiplied by the product
(``combine: multiply``) or the sum (``combine: add``; x1 without one) of
their multipliers, times the fixed multipliers of the other wilds on it.

Method: given the stops, a symbol's run length, and on each of its ways
the ``by_count`` digits ``m`` and the number ``j`` of drawn wilds, do not
depend on the draws; the draws are independent with the table's law, so a
way's mean multiplier is ``factor[m] x E[M_j]``
(:func:`~slotmath.features.wilddraws.count_mean`: ``mu**j`` multiplied,
``j mu`` added, 1 for ``j = 0``).  Reel by reel the ways alive are a linear
map of those before: ``N[m, j]``, the stop combinations times their ways
with digits ``m`` and ``j`` drawn wilds, are integers over the game's own
cycle, summed class by class of each reel's stops.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from slotmath.engine.combinations import combination_row
from slotmath.engine.reels import pack_reels
from slotmath.engine.ways import WaysPays, compile_ways, stop_features, ways_classes
from slotmath.errors import ensure
from slotmath.features.wilddraws import count_mean
from slotmath.features.wildmult import load_wild_multipliers
from slotmath.model import Game

__all__ = ["DrawnWays", "drawn_ways_figures", "drawn_runs"]


@dataclass(frozen=True)
class DrawnWays:
    """Exact ways figures of a game with drawn wild multipliers.

    Attributes
    ----------
    rtp : Fraction
        Ways RTP [x total bet].
    rows : list of dict
        Combination-table rows (:func:`slotmath.engine.ways.ways_table`'s
        columns): one per symbol and run length, its win the mean win per
        hit over the stops and the draws [coins].
    """

    rtp: Fraction
    rows: list


def drawn_runs(game: Game, wp: WaysPays, p: int, means: list, reel_set: str = "base") -> dict:
    """For paying symbol ``p`` of ``wp`` (the game's ways, the drawn wild
    counted as a plain one): run length n -> [spins, mean multiplied ways
    summed over those spins] over the cycle (spins exact ints, ways exact
    Fractions).  ``means[j]``: the mean multiplier of ``j`` drawn wilds on
    a way (:func:`~slotmath.features.wilddraws.count_mean`)."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnways.py: expected spec is not None")
    R, B = game.reels, wp.step.shape[1]
    drawn = game.symbol_index[spec.symbol]
    substitutes = int(wp.weight[drawn, p] > 0)
    win, weights, n_stops = pack_reels(game, reel_set)
    tail = [1] * (R + 1)
    for r in range(R - 1, -1, -1):
        tail[r] = tail[r + 1] * game.strips(reel_set)[r].total_weight
    factor = wp.factor.tolist()

    def mean_ways(ways: dict) -> Fraction:
        return sum((c * factor[m] * means[j] for (m, j), c in ways.items()), Fraction(0))

    ways, alive, runs = {(0, 0): 1}, 1, {}  # (digits m, drawn wilds j) -> stop combinations x ways
    for k in range(R):
        cells = win[k, : n_stops[k]]
        feat = stop_features(wp, cells)[:, p * (1 + B) : (p + 1) * (1 + B)]
        d = (cells == drawn).sum(axis=1) * substitutes
        feat = np.column_stack([feat[:, :1] - d[:, None], d, feat[:, 1:]])  # plain, drawn, digits
        classes, cw, _ = ways_classes(feat, weights[k, : n_stops[k]], np.zeros(n_stops[k], dtype=np.int64))
        nxt: dict = {}
        dead = 0
        for f, w in zip(classes.tolist(), cw.tolist(), strict=True):
            if not any(f):
                dead += w
                continue
            for (m, j), c in ways.items():
                moves = [((m, j), f[0]), ((m, j + 1), f[1])] + [
                    ((int(wp.step[m, b]), j), f[2 + b]) for b in range(B)
                ]
                for key, x in moves:
                    if x:
                        nxt[key] = nxt.get(key, 0) + c * w * x
        if dead:
            runs[k] = [alive * dead * tail[k + 1], mean_ways(ways) * dead * tail[k + 1]]
        alive *= game.strips(reel_set)[k].total_weight - dead
        ways = nxt
        if not ways:
            return runs
    runs[R] = [alive, mean_ways(ways)]
    return runs


def drawn_ways_figures(game: Game, level: int, reel_set: str = "base") -> DrawnWays:
    """Exact ways RTP and combination rows of ``game`` with its drawn wild
    multipliers, from the law of the drawn wilds' count on each way (no
    rewrite of the reels; see the module notes)."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnways.py: expected spec is not None")
    wp = compile_ways(game, level)
    means = [count_mean(spec, j) for j in range(game.reels + 1)]
    cycle, bet = game.cycle(reel_set), game.bet(level)
    rows = []
    for p in range(len(wp.symbols)):
        for n, (hits, ways) in sorted(drawn_runs(game, wp, p, means, reel_set).items()):
            e = int(wp.entry[p, n])
            if e < 0 or hits == 0 or wp.pay[p, n] == 0:
                continue
            win = Fraction(int(wp.pay[p, n])) * ways / hits
            rows.append(combination_row("ways", game.line_pays[e].name, 1, win, hits, cycle, bet.total_bet))
    return DrawnWays(sum((r["rtp_exact"] for r in rows), Fraction(0)), rows)
