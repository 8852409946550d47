"""Free games with a sticky wild, played literally by the compiled round sampler.

Each free spin draws its stops, writes the window with every held cell
showing the sticky wild (a wild landing in a free cell is held from then
on), and pays lines or ways, scatters and the retrigger count on that
window (the rule of :mod:`slotmath.features.sticky`).  No exact table is
used.  Ways are read from the stop features of every (held pattern, stop)
of each free reel (:func:`held_windows`): a reel's stop ``s`` with the
cells of pattern ``p`` (bit ``row``) held is row ``p x stops + s``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.scatters import scatter_symbols
from slotmath.model import Game
from slotmath.montecarlo.linesim import draw_stops, window_line_win
from slotmath.montecarlo.wayssim import no_ways_args, round_ways_win, ways_args

__all__ = ["sticky_args", "sticky_free_play", "held_windows"]


def sticky_args(game: Game, level: int, spec, sym: np.ndarray) -> tuple:
    """The last argument of :func:`sticky_free_play`: ``[wild, trigger symbol,
    scatter symbols...]`` as symbol indices (``[-1]`` without a sticky
    wild), and on a ways game the ways evaluation of :func:`held_windows`
    of the free windows ``sym`` (reel, stop, row) (one paying nothing else)."""
    if spec is None or spec.sticky is None:
        return np.full(1, -1, dtype=np.int64), no_ways_args(game)
    from slotmath.engine.payrule import pay_rule

    idx = game.symbol_index
    symbols = [spec.sticky, spec.symbol, *scatter_symbols(game)]
    wild = idx[spec.sticky]
    if pay_rule(game).sampler_pays == "ways":
        ways = ways_args(game, level, spec.reels, [], held_windows(sym, wild))
    else:
        ways = no_ways_args(game)
    return np.array([idx[s] for s in symbols], dtype=np.int64), ways


def held_windows(sym: np.ndarray, wild: int) -> np.ndarray:
    """Every (held pattern, stop) window of ``sym`` (reel, stop, row): row
    ``p x stops + s`` of a reel is stop ``s`` with the rows of pattern ``p``
    (bit ``row``) showing ``wild``; shape (reels, 2**rows x stops, rows)."""
    R, N, H = sym.shape
    held = (np.arange(1 << H)[:, None] >> np.arange(H)[None, :]) & 1  # (patterns, rows)
    out = np.where(held[None, :, None, :] == 1, wild, sym[:, None, :, :])  # (R, patterns, N, H)
    return np.ascontiguousarray(out.reshape(R, (1 << H) * N, H))


@nb.njit(cache=True)
def _count_in(window, symbol):
    c = 0
    for x in window:
        c += x == symbol
    return c


@nb.njit(cache=True)
def sticky_free_play(rng, games, stop, window, events, free_draw, free_ev, again, reprize, cap_games, sticky):
    """Play ``games`` free games with the sticky wild ``sticky[0][0]`` (retriggers
    by the count of ``sticky[0][1]``, at most ``cap_games`` games when >= 0;
    ways by ``sticky[1]``, :func:`sticky_args`): (their win before the
    multiplier [x total bet], games played)."""
    bound, use_table, table, cum, n_stops = free_draw
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = free_ev
    R, rows, N = dims[0], dims[6], sym.shape[1]
    marks, ways = sticky
    wild, trig, scat = marks[0], marks[1], marks[2:]
    held = np.zeros(R * rows, dtype=np.bool_)
    at = np.empty(R, dtype=np.int64)  # each reel's row of the held windows' ways
    left, played, fg = games, 0, 0.0
    while left > 0 and (cap_games < 0 or played < cap_games):
        left -= 1
        played += 1
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        for r in range(R):
            pattern = 0
            for k in range(rows):
                c = r * rows + k
                x = sym[r, stop[r], k]
                if held[c]:
                    x = wild
                elif x == wild:
                    held[c] = True
                if held[c]:
                    pattern |= 1 << k
                window[c] = x
            at[r] = pattern * N + stop[r]
        w = window_line_win(window, dims, cells, codes, offsets, label_coins, events)
        w += round_ways_win(rng, at, ways, events)
        for j in range(scat.shape[0]):
            n = _count_in(window, scat[j])
            w += sc_pay[j, n]
            if sc_event[j, n] >= 0:
                events[sc_event[j, n]] += 1
        k = _count_in(window, trig)
        fg += w + reprize[k]
        left += again[k]
    return fg, played
