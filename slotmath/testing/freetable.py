"""Free games of a small game by listing its free-game cycle.

:func:`free_games_table` evaluates every stop combination of the free reel
set (the reference, for small games: refused above ``max_cycle``);
:mod:`slotmath.features.freeround` gets the same table from the line
engine's joint law without listing the cycle.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from slotmath.features.expanding import nudged_game
from slotmath.features.options import FreeGamesSpec, load_features
from slotmath.model import Game

__all__ = ["free_games_table", "free_games_feature"]


def free_games_table(game: Game, level: int, spec: FreeGamesSpec, max_cycle: int = 20_000_000):
    """Per free spin joint weights of (win [coins], extra games) by full enumeration.

    For line-and-scatter games whose free-game cycle is small enough to list:
    every stop combination of ``spec.reels`` (after the nudge, if any) is
    evaluated by :mod:`slotmath.engine.evaluate`; the win includes line and scatter
    pays and the free-game prize of the scatter count.  Integer weights.

    Returns
    -------
    table : ndarray of int64, shape (max win + 1, max games + 1)
        ``table[y, k]`` stop combinations winning ``y`` coins and awarding
        ``k`` more games (before the multiplier).
    """
    from itertools import product

    from slotmath.engine.evaluate import line_wins
    from slotmath.engine.reels import reel_windows
    from slotmath.engine.scatters import scatter_pay, scatter_symbols

    if spec.sticky is not None:  # the spins are not independent: slotmath.features.sticky
        raise ValueError("free games with a sticky wild have no per-spin table; use the generic round")
    g = nudged_game(game, spec.reels, spec.nudge)
    bet = game.bet(level)
    cycle = g.cycle(spec.reels)
    if cycle > max_cycle:
        raise ValueError(f"free-game cycle {cycle} is too large to enumerate (max {max_cycle})")
    strips = g.strips(spec.reels)
    wins = reel_windows(g, spec.reels)
    weights = [s.stop_weights() for s in strips]
    sym = g.symbol_index[spec.symbol]
    acc: dict = {}
    stops = np.array(list(product(*[range(len(s)) for s in strips])), dtype=np.int64)
    for lo in range(0, len(stops), 200_000):
        chunk = stops[lo : lo + 200_000]
        win = np.stack([wins[r][chunk[:, r]] for r in range(g.reels)], axis=1)
        w = np.ones(len(chunk), dtype=np.int64)
        for r in range(g.reels):
            w *= weights[r][chunk[:, r]]
        coins = line_wins(g, level, win).sum(axis=1).astype(object)
        count = (win == sym).sum(axis=(1, 2))
        for i in range(len(chunk)):
            if w[i] == 0:
                continue
            c = int(count[i])
            total = Fraction(int(coins[i]))
            for s in scatter_symbols(g):
                total += scatter_pay(g, s, int((win[i] == g.symbol_index[s]).sum())) * bet.total_bet
            total += spec.prize(c) * bet.total_bet
            if total.denominator != 1:
                raise ValueError("free-spin wins must be whole coins for the table")
            k = spec.games(c) if spec.retrigger else 0
            key = (int(total), k)
            acc[key] = acc.get(key, 0) + int(w[i])
    top_y = max(y for y, _ in acc)
    top_k = max(k for _, k in acc)
    table = np.zeros((top_y + 1, top_k + 1), dtype=np.int64)
    for (y, k), c in acc.items():
        table[y, k] += c
    return table


def free_games_feature(game: Game, level: int, spins: int | None = None, exact: bool = True):
    """:class:`~slotmath.features.freegames.FreeGames` of a game's declared free games
    at bet ``level`` (win unit: 1 coin; ``spins`` defaults to the smallest award)."""
    from slotmath.features.freegames import FreeGames

    spec = load_features(game).free_games
    if spec is None:
        raise ValueError(f"{game.name} declares no free games")
    table = free_games_table(game, level, spec)
    n = spins or spec.games(spec.min_count)
    mult = spec.multiplier if exact else float(spec.multiplier)
    return FreeGames(table, n, mult, max_spins=spec.max_games, exact=exact)
