"""The expanding wild of free games (``options.free_games.nudge``).

A nudging wild that shows anywhere in its reel's window fills the whole
reel.  :func:`nudged_strip` writes the expansion into a weighted strip (the
same cycle, every window already expanded), so every engine that reads
windows and stop weights plays it unchanged; :func:`nudged_game` applies it
to one reel set of a game (cached per game and reel set).
"""

from __future__ import annotations

from slotmath.engine.cache import game_cache
from slotmath.model import Game

__all__ = ["nudged_strip", "nudged_game"]


def nudged_strip(game: Game, strip, wild: str):
    """A weighted strip whose windows are ``strip``'s windows after ``wild``
    expands to the whole reel whenever it shows (1, 2 or 3 positions).

    Stop ``s`` of the original becomes positions ``H s .. H s + H - 1`` of the
    result holding its (expanded) window, with weight ``w_s`` on the first and
    0 on the others, so every engine that reads windows and stop weights sees
    exactly the expanded outcomes (same cycle)."""
    from slotmath.model import Strip

    H = game.rows
    syms = strip.symbols
    n = len(syms)
    w = strip.stop_weights()
    out, weights = [], []
    for s in range(n):
        window = [syms[(s + k) % n] for k in range(H)]
        if wild in window:
            window = [wild] * H
        out += window
        weights += [int(w[s])] + [0] * (H - 1)
    return Strip(tuple(out), tuple(weights))


def nudged_game(game: Game, reel_set: str, wild: str | None) -> Game:
    """``game`` with ``reel_set`` replaced by its expanded-wild form (see :func:`nudged_strip`)."""

    if wild is None:
        return game
    return _nudged(game, reel_set, wild)


def _the_set(game, reel_set, *args) -> tuple:
    return (reel_set,)


@game_cache(_the_set, maxsize=16)
def _nudged(game, reel_set, wild):
    from dataclasses import replace

    sets = dict(game.reel_sets)
    sets[reel_set] = tuple(nudged_strip(game, s, wild) for s in game.strips(reel_set))
    return replace(game, reel_sets=sets)
