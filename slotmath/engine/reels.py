"""Per-reel counting: windows, row marginals and symbol-count distributions.

All results are integer stop weights (counts), never probabilities, so that
everything built on them stays exact.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from slotmath.errors import ensure
from slotmath.model import Game, Strip, Symbol


def strip_indices(game: Game, strip: Strip) -> np.ndarray:
    """Symbol index of every strip position."""
    idx = game.symbol_index
    return np.array([idx[s] for s in strip.symbols], dtype=np.int64)


def windows(game: Game, strip: Strip) -> np.ndarray:
    """Window of every stop, shape (N, rows): ``[s, k] = strip[(s + k) % N]``;
    refused on a game whose reel heights are not written in (:func:`height_game`)."""
    ensure(
        game.heights is None or game.heights.written,
        f"{game.name}: windows of a game with reel heights are read from height_game(game)",
    )
    ensure(
        game.heights is None or game.heights.top is None,
        f"{game.name}: windows of a game with a top reel are read from topreel.top_games(game)",
    )
    sym = strip_indices(game, strip)
    n = len(sym)
    pos = (np.arange(n)[:, None] + np.arange(game.rows)[None, :]) % n
    return sym[pos]


def reel_windows(game: Game, reel_set: str = "base") -> list:
    """Windows of every reel of ``reel_set``."""
    return [windows(game, s) for s in game.strips(reel_set)]


def window_game(game: Game, reel_set: str, change=None) -> Game:
    """``game`` with each strip of ``reel_set`` replaced by its distinct windows.

    ``change(reel, window) -> window`` (tuples of symbol names), when given,
    replaces each window first (e.g. cells held by a sticky wild).

    A reel's stops that show the same window (the windows of an expanding wild,
    repeated runs) are merged into one stop whose weight
    is their total, laid out like :func:`slotmath.features.expanding.nudged_strip`
    (window ``i`` at positions ``H i .. H i + H - 1``, its weight on the first,
    0 on the others).  Every window-based figure is unchanged (same windows,
    same weights, same cycle); enumerations visit fewer stops."""
    H = game.rows
    strips = []
    for strip in game.strips(reel_set):
        n, syms, w = len(strip), strip.symbols, strip.stop_weights()
        merged: dict = {}
        for stop in range(n):
            if w[stop]:
                window = tuple(syms[(stop + k) % n] for k in range(H))
                if change is not None:
                    window = change(len(strips), window)
                merged[window] = merged.get(window, 0) + int(w[stop])
        strips.append(window_strip(merged, H))
    sets = dict(game.reel_sets)
    sets[reel_set] = tuple(strips)
    return replace(game, reel_sets=sets)


def window_strip(merged: dict, rows: int) -> Strip:
    """The strip whose stops are the windows of ``merged`` (window -> weight):
    window ``i`` at positions ``rows i .. rows i + rows - 1``, its weight on
    the first, 0 on the others."""
    return Strip(
        tuple(x for window in merged for x in window),
        tuple(v for c in merged.values() for v in [c] + [0] * (rows - 1)),
    )


#: the padding symbol of :func:`height_game`: the cells below a reel's height
#: (no game file can name it: symbol names are identifiers)
NO_CELL = "(no cell)"


def height_game(game: Game) -> Game:
    """``game`` with its reel heights (``grid.heights``) written into its strips;
    ``game`` itself without heights or when they are written already.

    Reel r's new stops are its (height h, stop s) pairs: the window shows
    ``strip[s .. s + h - 1]`` in rows 0..h-1 and :data:`NO_CELL` (a blank
    that nothing pays, counts or triggers on) below; its weight is
    ``weight_h x weight_s``, equal windows merged (:func:`window_strip`).
    Given the heights the reels are independent and the heights are drawn
    independently per reel, so every window figure (ways per reel, scatter
    and trigger counts) is exact over the new cycle, the product of
    ``sum_h weight_h x`` the reel's total stop weight.

    With a top reel (``grid.top_reel``) the window has one more row: row 0
    of a covered reel is the top reel's cell (:data:`NO_CELL` here, written
    by :func:`slotmath.engine.topreel.top_games` for each top stop), its
    own cells below it; an uncovered reel's cells start at row 0."""
    heights = game.heights
    if heights is None or heights.written:
        return game
    over = heights.top.over if heights.top is not None else ()
    H = game.rows + (1 if over else 0)
    sets = {}
    for name, strips in game.reel_sets.items():
        out = []
        for r, strip in enumerate(strips):
            n, syms, w = len(strip), strip.symbols, strip.stop_weights()
            lead = (NO_CELL,) if r in over else ()
            merged: dict = {}
            for h, wh in heights.tables[r]:
                for stop in range(n):
                    if w[stop]:
                        cells = lead + tuple(syms[(stop + k) % n] for k in range(h))
                        window = cells + (NO_CELL,) * (H - len(cells))
                        merged[window] = merged.get(window, 0) + wh * int(w[stop])
            out.append(window_strip(merged, H))
        sets[name] = tuple(out)
    return replace(
        game,
        rows=H,
        reel_sets=sets,
        symbols=(*game.symbols, Symbol(NO_CELL, "blank")),
        heights=replace(heights, written=True),
    )


def row_marginal(game: Game, strip: Strip, row: int) -> np.ndarray:
    """Weighted count of stops showing each symbol in ``row`` [stop weights]."""
    return _weighted_bincount(windows(game, strip)[:, row], strip.stop_weights(), len(game.symbols))


def _weighted_bincount(values: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, values, weights)
    return out


def symbol_counts(game: Game, reel_set: str = "base") -> np.ndarray:
    """Stop weight of each symbol per reel, shape (R, S) (row 0 of the window)."""
    return np.array([row_marginal(game, s, 0) for s in game.strips(reel_set)], dtype=np.int64)


def window_symbol_count(game: Game, strip: Strip, symbol) -> np.ndarray:
    """Number of ``symbol`` (a name, or a tuple of names counted together) in
    the window of every stop, shape (N,)."""
    if isinstance(symbol, tuple):
        return np.isin(windows(game, strip), [game.symbol_index[s] for s in symbol]).sum(axis=1)
    return (windows(game, strip) == game.symbol_index[symbol]).sum(axis=1)


def count_distribution(counts: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Weighted histogram of per-stop counts: ``[c]`` = weight of stops with count ``c``."""
    return _weighted_bincount(counts, weights, size)


def convolve_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact convolution of two integer count vectors (Python ints if int64 would overflow)."""
    if (
        a.dtype == object
        or b.dtype == object
        or float(a.max(initial=0)) * float(b.max(initial=0)) * min(len(a), len(b)) >= 2**62
    ):
        out = np.zeros(len(a) + len(b) - 1, dtype=object)
        for i, x in enumerate(a.tolist()):
            if x:
                out[i : i + len(b)] += np.array([x * y for y in b.tolist()], dtype=object)
        return out
    return np.convolve(a.astype(np.int64), b.astype(np.int64))


def pack_reels(game: Game, reel_set: str):
    """Windows and weights padded into (R, Nmax, H) / (R, Nmax) arrays."""
    wins = reel_windows(game, reel_set)
    strips = game.strips(reel_set)
    R, H = game.reels, game.rows
    nmax = max(len(s) for s in strips)
    win = np.zeros((R, nmax, H), dtype=np.int64)
    weights = np.zeros((R, nmax), dtype=np.int64)
    for r, (w, s) in enumerate(zip(wins, strips, strict=True)):
        win[r, : len(s)] = w
        weights[r, : len(s)] = s.stop_weights()
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    return win, weights, n_stops


def reel_radix(game: Game, trigger) -> int:
    """Radix of one reel's key digit of a per-reel trigger: ``rows + 1``
    counts, or with ``rows`` (the rows showing the symbol) ``2**rows``,
    doubled when a ``mark`` adds a digit bit."""
    if not getattr(trigger, "rows", False):
        return game.rows + 1
    return (1 << game.rows) * (2 if getattr(trigger, "mark", None) else 1)


def reel_digits(game: Game, strip, trigger) -> np.ndarray:
    """Key digit of every stop of ``strip``: the trigger symbol's count in the
    window, or with ``rows`` its row pattern (bit k: row k shows it) plus
    ``2**rows`` when the window shows the trigger's ``mark``."""
    if not getattr(trigger, "rows", False):
        return window_symbol_count(game, strip, trigger.symbol)
    w = windows(game, strip)
    names = trigger.symbol if isinstance(trigger.symbol, tuple) else (trigger.symbol,)
    held = np.isin(w, [game.symbol_index[n] for n in names])
    out = (held * (1 << np.arange(game.rows))).sum(axis=1)
    if getattr(trigger, "mark", None):
        out += (w == game.symbol_index[trigger.mark]).any(axis=1).astype(np.int64) << game.rows
    return out
