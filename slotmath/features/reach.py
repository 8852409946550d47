"""What a reel set can show: the most cells of a window that show a symbol.

A feature started by ``count`` of a symbol in the window can start only if
some window shows that many; a symbol no strip holds can start nothing.
``validate`` refuses such declarations (a feature worth 0 with no message
would be a silently wrong PAR sheet).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from slotmath.model import Game


def most_on_reel(strip, rows: int, names: frozenset) -> int:
    """Most of the ``rows`` cells one stop of ``strip`` shows (stops of
    weight 0 never show) that hold a symbol of ``names``."""
    n = len(strip.symbols)
    flags = np.fromiter((s in names for s in strip.symbols), dtype=np.int64, count=n)
    if not flags.any():
        return 0
    k = min(rows, n)
    ext = np.concatenate([flags, flags[: k - 1]]) if k > 1 else flags
    sums = np.convolve(ext, np.ones(k, dtype=np.int64), mode="valid")[:n]
    if strip.weights is not None:
        sums = sums[np.asarray(strip.weights, dtype=object) != 0]
    return int(sums.max()) if len(sums) else 0


def most_in_window(game: Game, symbols: str | Iterable[str], reel_set: str = "base") -> int:
    """Most cells of one window of ``reel_set`` that show one of ``symbols``
    (a name or several): the sum over reels of each reel's most (with reel
    heights, at the reel's largest height)."""
    names = frozenset([symbols] if isinstance(symbols, str) else symbols)
    rows = game.heights.max_heights if game.heights is not None else (game.rows,) * game.reels
    return sum(most_on_reel(s, h, names) for s, h in zip(game.strips(reel_set), rows, strict=True))


def on_reels(game: Game, symbol: str, reel_sets: Iterable[str] | None = None) -> bool:
    """Whether some strip of ``reel_sets`` (default: every set) holds ``symbol``
    on a stop of non-zero weight."""
    sets = game.reel_sets if reel_sets is None else reel_sets
    return any(most_on_reel(s, 1, frozenset([symbol])) for r in sets for s in game.strips(r))


def reach_problem(
    game: Game, symbol: str, counts, where: str, what: str, reel_set: str = "base", symbol_field: str = ""
):
    """``(field, problem)`` when the feature ``what`` declared at ``where``
    can never start: ``symbol`` on no reel of ``reel_set`` (field
    ``symbol_field``, default ``{where}.symbol``), or a count (``counts``:
    (field, count) pairs) above the most one window shows; None when every
    count can start it."""
    most = most_in_window(game, symbol, reel_set)
    if most == 0:
        return (
            symbol_field or f"{where}.symbol",
            f"{symbol!r} is on no reel of reel set {reel_set!r}: {what} can never start",
        )
    for at, c in counts:
        if c > most:
            return at, (
                f"no window of reel set {reel_set!r} shows {c} {symbol} (at most {most}): {what} "
                f"can never start on {c}"
            )
    return None


def dead_pays(game: Game) -> list:
    """``"pays[i]: NAME can never hit: ..."`` for each line or ways pay that
    needs, on some reel, a symbol (or a wild substituting for it) that no
    reel set shows on that reel (stops of weight 0 never show); empty for
    pays by count (anywhere or by cluster)."""
    if game.pays_by_count:
        return []
    wilds = [s for s in game.symbols if s.wild is not None]
    sets = list(game.reel_sets)
    out = []
    for i, pay in enumerate(game.line_pays):
        for r, allowed in enumerate(pay.positions):
            names = set(allowed) | {w.name for w in wilds if w.wild.substitutes & allowed}
            if not any(most_on_reel(game.strips(rs)[r], 1, frozenset(names)) for rs in sets):
                out.append(
                    f"pays[{i}]: {pay.name} can never hit: {' or '.join(sorted(names))} is on reel {r + 1} "
                    f"of no reel set ({', '.join(sets)})"
                )
                break
    return out
