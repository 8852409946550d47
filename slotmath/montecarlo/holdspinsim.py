"""Compiled sampler of a line game with a value-per-coin hold-and-spin.

One round: the base spin of :mod:`slotmath.montecarlo.linesim` (same stop
draw, same line and scatter evaluation), then, when the window shows
``trigger`` or more coins, :func:`play_feature` from that window's mask (bit
``reel * H + row``, as in :mod:`slotmath.features.lockit`).  Every draw is an
exactly uniform integer (:func:`~slotmath.montecarlo.linesim.uniform_below`):
a cell lands a coin when a draw below the denominator of its probability
falls below the numerator; a whole reel respins by a weighted stop of its
feature strip; a prize is a weighted draw from its table.

Events, after the line and scatter events: ``hold_and_spin triggers``,
``hold_and_spin full screens`` and ``hold_and_spin award [grid]``, the sum
of the awards in prize-grid steps (its rate x grid step is the feature RTP,
with the batch-means standard error of :meth:`ChunkStats.event_rate`).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from slotmath.features.holdspin import (
    FEATURE_EVENTS,
    HoldAndSpinSpec,
    _grid,
    _required,
    cell_probabilities,
    coin_patterns,
)
from slotmath.model import Game
from slotmath.montecarlo.linesim import (
    draw_args,
    draw_stops,
    evaluation_args,
    line_win,
    part_names,
    scatter_win,
    stop_of,
    uniform_below,
)
from slotmath.montecarlo.run import RoundSampler


@nb.njit(cache=True)
def _prize(rng, units, cum):
    """Grid units of one weighted prize draw."""
    u = uniform_below(rng, cum[-1])
    j = 0
    while cum[j] <= u:
        j += 1
    return units[j]


@nb.njit(cache=True)
def play_feature(
    rng, mask, fdims, cell_num, cell_den, fbound, fuse_table, ftable, fcum, fn_stops, fpat,
    v_units, v_cum, s_units, s_cum,
):  # fmt: skip
    """Play the feature from the held ``mask``: (award [grid units], full screen 0/1).

    ``fdims`` = (rows H, reels R, respins, reset 0/1, respin model 0 cells /
    1 reels, full-screen prize [grid units]).
    """
    H, R, respins, reset, model, full_units = fdims[0], fdims[1], fdims[2], fdims[3], fdims[4], fdims[5]
    n_cells = H * R
    full = (1 << n_cells) - 1
    award = 0
    for c in range(n_cells):
        if (mask >> c) & 1:
            award += _prize(rng, s_units, s_cum)
    left = respins
    while left > 0 and mask != full:
        new = 0
        if model == 0:
            for c in range(n_cells):
                if not (mask >> c) & 1 and cell_num[c] > 0:
                    if uniform_below(rng, cell_den[c]) < cell_num[c]:
                        new |= 1 << c
        else:
            for r in range(R):
                s = stop_of(uniform_below(rng, fbound[r]), r, fuse_table, ftable, fcum, fn_stops)
                new |= fpat[r, s] << (r * H)
            new &= ~mask
        if new:
            mask |= new
            for c in range(n_cells):
                if (new >> c) & 1:
                    award += _prize(rng, v_units, v_cum)
            left = respins if reset else left - 1
        else:
            left -= 1
    if mask == full:
        return award + full_units, 1
    return award, 0


@nb.njit(cache=True)
def holdspin_kernel(
    rng,
    n,
    dims,
    bound,
    use_table,
    table,
    cum,
    n_stops,
    sym,
    cells,
    codes,
    offsets,
    label_coins,
    sc_count,
    sc_pay,
    sc_event,
    coin_pat,
    trigger_grid,
    fdims,
    cell_num,
    cell_den,
    fbound,
    fuse_table,
    ftable,
    fcum,
    fn_stops,
    fpat,
    v_units,
    v_cum,
    s_units,
    s_cum,
):
    """Play ``n`` rounds: (wins [x total bet], event counts, wins by part:
    lines, then scatters when the game has scatter symbols, then the
    hold-and-spin award)."""
    R, H, E = dims[0], dims[6], dims[5]
    trigger, grid = trigger_grid[0], trigger_grid[1]
    scatters = sc_count.shape[0] > 0
    wins = np.empty(n, dtype=np.float64)
    parts = np.zeros((n, 2 + scatters), dtype=np.float64)
    events = np.zeros(E + 3, dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    window = np.empty(R * H, dtype=np.int64)
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        parts[i, 0] = line_win(stop, window, dims, sym, cells, codes, offsets, label_coins, events)
        if scatters:
            parts[i, 1] = scatter_win(stop, sc_count, sc_pay, sc_event, events)
        win = parts[i, 0] + parts[i, 1]
        mask = 0
        for r in range(R):
            mask |= coin_pat[r, stop[r]] << (r * H)
        count = 0
        m = mask
        while m:
            count += m & 1
            m >>= 1
        if count >= trigger:
            award, is_full = play_feature(
                rng, mask, fdims, cell_num, cell_den, fbound, fuse_table, ftable, fcum, fn_stops, fpat,
                v_units, v_cum, s_units, s_cum,
            )  # fmt: skip
            events[E] += 1
            events[E + 1] += is_full
            events[E + 2] += award
            parts[i, 1 + scatters] = award * grid
            win += award * grid
        wins[i] = win
    return wins, events, parts


def _patterns(game: Game, reel_set: str, symbol: str) -> np.ndarray:
    """Coin pattern of the window at every stop, shape (R, max stops)."""
    pats = coin_patterns(game, reel_set, symbol)
    out = np.zeros((game.reels, max(len(p) for p in pats)), dtype=np.int64)
    for r, p in enumerate(pats):
        out[r, : len(p)] = p
    return out


def _prize_arrays(table, g: Fraction) -> tuple:
    units = np.array([int(p.value / g) for p in table], dtype=np.int64)
    return units, np.cumsum([p.weight for p in table]).astype(np.int64)


def feature_args(game: Game, spec: HoldAndSpinSpec) -> tuple:
    """Arrays of :func:`play_feature` after ``rng, mask``, and the prize grid
    step g [x total bet]."""
    g = _grid(spec)
    H, R = game.rows, game.reels
    n_cells = H * R
    cell_num = np.zeros(n_cells, dtype=np.int64)
    cell_den = np.ones(n_cells, dtype=np.int64)
    if spec.respin == "cells":
        p = cell_probabilities(game, spec)
        for k in range(H):
            for r in range(R):
                cell_num[r * H + k], cell_den[r * H + k] = p[k][r].numerator, p[k][r].denominator
        if cell_den.max() >= 2**31:
            raise ValueError(f"{game.name}: cell probability denominators must be below 2**31 to sample")
        fbound, fuse, ftable, fcum, fn = draw_args(game, spec.base_reels)
        fpat = np.zeros((R, 1), dtype=np.int64)
        model = 0
    else:
        assert spec.reels is not None  # the loader requires it with respin: reels
        fbound, fuse, ftable, fcum, fn = draw_args(game, spec.reels)
        fpat = _patterns(game, spec.reels, spec.symbol)
        model = 1
    fdims = np.array(
        [H, R, spec.respins, int(spec.rule == "reset"), model, int(spec.full_screen / g)], dtype=np.int64
    )
    v = _prize_arrays(spec.values, g)
    s = _prize_arrays(spec.start_values, g)
    return (fdims, cell_num, cell_den, fbound, fuse, ftable, fcum, fn, fpat) + v + s, g


def round_sampler(game: Game, level: int, spec: HoldAndSpinSpec | None = None) -> RoundSampler:
    """Compiled round sampler (base spin + hold-and-spin) for :mod:`slotmath.montecarlo.run`."""
    spec = spec or _required(game)
    reels = spec.base_reels
    draw = draw_args(game, reels)
    evaluation, names = evaluation_args(game, level, reels)
    feature, g = feature_args(game, spec)
    head = np.array([spec.trigger, 0], dtype=np.float64)
    head[1] = float(g)
    extra = (_patterns(game, reels, spec.symbol), head) + feature
    args = (evaluation[0],) + draw + evaluation[1:] + extra
    parts = part_names(game, "lines") + ("hold_and_spin",)
    return RoundSampler(holdspin_kernel, args, names + FEATURE_EVENTS, parts)
