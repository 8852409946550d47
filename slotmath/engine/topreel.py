"""The extra horizontal reel of a variable-height ways game (``grid.top_reel``).

One stop of the top strip is drawn per spin; it shows one cell on top of
each covered reel.  Given that stop the added cells are fixed and the reels
are independent again, so every exact figure is the mix over the top
strip's distinct windows (the covered reels' cells), each weighted by its
total stop weight: :func:`top_games` gives the games to mix, one per
window, with the window's cells written into row 0 of the covered reels of
the height-written game (:func:`slotmath.engine.reels.height_game`).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from slotmath.engine.cache import memo
from slotmath.errors import ensure
from slotmath.model import Game, Strip, TopDraw


def has_top(game: Game) -> bool:
    """True when ``game`` declares a top reel."""
    return game.heights is not None and game.heights.top is not None


@memo(maxsize=16)
def top_games(game: Game, reel_set: str) -> tuple:
    """``((weight, game_t), ...)``: one game per distinct window of
    ``reel_set``'s top strip, ``weight`` its total stop weight.

    ``game`` has its heights written (:func:`slotmath.engine.reels.height_game`);
    ``game_t`` is it with the window's cells in row 0 of every covered reel,
    no top reel, and ``reel_set`` its only reel set (a read of another set
    fails loudly).  Its cycle times the top strip's total weight is ``game``'s."""
    ensure(has_top(game) and game.heights.written, f"{game.name}: top_games reads a height-written game")
    top, H = game.heights.top, game.rows
    strips = game.strips(reel_set)
    heights = replace(game.heights, top=None)
    out = []
    for cells, weight in top.windows(reel_set).items():
        new = list(strips)
        for r, cell in zip(top.over, cells, strict=True):
            syms = list(strips[r].symbols)
            syms[0::H] = [cell] * (len(syms) // H)
            new[r] = Strip(tuple(syms), strips[r].weights)
        out.append((weight, replace(game, reel_sets={reel_set: tuple(new)}, heights=heights)))
    return tuple(out)


def mix_counts(parts) -> dict:
    """``{key: sum of weight x count}`` of ``parts`` ``[(weight, {key: count})]``
    (counts and figures additive over the cycle: ints, Fractions or lists of them)."""
    out: dict = {}
    for weight, counts in parts:
        for key, value in counts.items():
            if isinstance(value, list):
                acc = out.setdefault(key, [0] * len(value))
                for i, v in enumerate(value):
                    acc[i] += weight * v
            else:
                out[key] = out.get(key, 0) + weight * value
    return out


def mix_probabilities(parts) -> dict:
    """``{key: P(key)}`` of the mix of ``parts`` ``[(weight, {key: P(key)})]``
    (each law weighted by ``weight / total weight``) [probability]."""
    total = sum(w for w, _ in parts)
    return mix_counts([(Fraction(w, total), probs) for w, probs in parts])


def mix_arrays(parts) -> np.ndarray:
    """``sum weight x array`` of ``parts`` ``[(weight, array)]`` (equal
    lengths; Python ints where int64 could overflow)."""
    out = None
    for weight, arr in parts:
        term = np.asarray(arr, dtype=object) * weight
        out = term if out is None else out + term
    ensure(out is not None, "mix_arrays: no parts")
    return np.array(out.tolist(), dtype=np.int64) if max(out.tolist(), default=0) < 2**62 else out


def mix_forward(parts, cycle: int) -> tuple:
    """The finished forward pass (wins, key codes, counts, unit_den,
    total_bet, cycle) of the mix of ``parts`` ``[(weight, pass)]``: equal
    (win, code) pairs merged, counts weighted (Python ints when ``cycle``
    leaves int64: the top strip's weight times each pass's cycle); their
    sum is ``cycle``."""
    wide = cycle >= 2**62
    kind = object if wide else np.int64
    wins = np.concatenate([p[0] for _, p in parts])
    codes = np.concatenate([p[1] for _, p in parts])
    counts = np.concatenate([np.array(p[2].tolist(), dtype=kind) * w for w, p in parts])
    pairs, inverse = np.unique(np.stack([wins, codes]), axis=1, return_inverse=True)
    merged = np.zeros(pairs.shape[1], dtype=kind)
    np.add.at(merged, inverse.reshape(-1), counts)
    ensure(int(merged.sum()) == cycle, "topreel.py: the mixed counts do not sum to the cycle")
    unit_den, total_bet = parts[0][1][3], parts[0][1][4]
    return pairs[0].copy(), pairs[1].copy(), merged, unit_den, total_bet, cycle


def sampled_game(game: Game) -> Game:
    """The compiled samplers' game of a height-written ``game`` with a top
    reel: each covered reel's strip is its :func:`top_games` strips (one
    block per top window, in order) one after the other, the top reel
    replaced by their :class:`~slotmath.model.TopDraw` (the draw of
    :func:`slotmath.montecarlo.linesim.draw_args`: a window by its weight,
    each covered reel's stop in that window's block)."""
    top = game.heights.top
    sets, weights = {}, {}
    for name in game.reel_sets:
        games = top_games(game, name)
        strips = list(game.strips(name))
        for r in top.over:
            blocks = [g.strips(name)[r] for _, g in games]
            strips[r] = Strip(
                tuple(x for b in blocks for x in b.symbols),
                tuple(int(w) for b in blocks for w in b.stop_weights().tolist()),
            )
        sets[name] = tuple(strips)
        weights[name] = tuple(w for w, _ in games)
    heights = replace(game.heights, top=None, draw=TopDraw(top.over, weights))
    return replace(game, reel_sets=sets, heights=heights)
