"""Free games with a sticky wild, played literally by the compiled round sampler.

Each free spin draws its stops, writes the window with every held cell
showing the sticky wild (a wild landing in a free cell is held from then
on), and pays lines, scatters and the retrigger count on that window
(the rule of :mod:`slotmath.features.sticky`).  No exact table is used.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.scatters import scatter_symbols
from slotmath.model import Game
from slotmath.montecarlo.linesim import draw_stops, window_line_win

__all__ = ["sticky_args", "sticky_free_play"]


def sticky_args(game: Game, spec) -> np.ndarray:
    """``[wild, trigger symbol, scatter symbols...]`` as symbol indices
    (``[-1]`` without a sticky wild), the last argument of :func:`sticky_free_play`."""
    if spec is None or spec.sticky is None:
        return np.full(1, -1, dtype=np.int64)
    idx = game.symbol_index
    symbols = [spec.sticky, spec.symbol, *scatter_symbols(game)]
    return np.array([idx[s] for s in symbols], dtype=np.int64)


@nb.njit(cache=True)
def _count_in(window, symbol):
    c = 0
    for x in window:
        c += x == symbol
    return c


@nb.njit(cache=True)
def sticky_free_play(rng, games, stop, window, events, free_draw, free_ev, again, reprize, cap_games, sticky):
    """Play ``games`` free games with the sticky wild ``sticky[0]`` (retriggers
    by the count of ``sticky[1]``, at most ``cap_games`` games when >= 0):
    (their win before the multiplier [x total bet], games played)."""
    bound, use_table, table, cum, n_stops = free_draw
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = free_ev
    R, rows = dims[0], dims[6]
    wild, trig, scat = sticky[0], sticky[1], sticky[2:]
    held = np.zeros(R * rows, dtype=np.bool_)
    left, played, fg = games, 0, 0.0
    while left > 0 and (cap_games < 0 or played < cap_games):
        left -= 1
        played += 1
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        for r in range(R):
            for k in range(rows):
                c = r * rows + k
                x = sym[r, stop[r], k]
                if held[c]:
                    x = wild
                elif x == wild:
                    held[c] = True
                window[c] = x
        w = window_line_win(window, dims, cells, codes, offsets, label_coins, events)
        for j in range(scat.shape[0]):
            n = _count_in(window, scat[j])
            w += sc_pay[j, n]
            if sc_event[j, n] >= 0:
                events[sc_event[j, n]] += 1
        k = _count_in(window, trig)
        fg += w + reprize[k]
        left += again[k]
    return fg, played
