"""Combination tables: integer hit counts for every pay over the full cycle.

A payline's symbols are independent across reels; on reel ``r`` the symbol
in row ``k`` has the weighted count ``m_{r,k}(x)`` (the row marginal).  The
number of stop combinations putting tuple ``x`` on line ``l`` is
``prod_r m_{r, row_l(r)}(x_r)``, so a pay's hits are the sum of that product
over the tuples whose highest win is the pay.  Cost O(S**R) per distinct
line profile (all lines share one profile on unweighted strips).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.engine.lines import PayTensor, pay_tensor
from slotmath.engine.moments import unique_codes
from slotmath.engine.multilinear import cycle_line_win
from slotmath.engine.reels import row_marginal
from slotmath.engine.scatters import (
    count_distribution_window,
    scatter_code_distribution,
    scatter_entry,
    scatter_pay,
    scatter_symbols,
)
from slotmath.model import Game


def tuple_weights(marginals: list) -> np.ndarray:
    """Outer product of per-reel marginals, flattened in C order (int64)."""
    w = np.ones(1, dtype=np.int64)
    for m in marginals:
        w = np.multiply.outer(w, m.astype(np.int64)).ravel()
    return w


def line_profiles(game: Game, reel_set: str) -> list:
    """Row marginals per payline, as tuples of int64 arrays."""
    strips = game.strips(reel_set)
    cache: dict = {}

    def marginal(r, row):
        if (r, row) not in cache:
            cache[(r, row)] = row_marginal(game, strips[r], row)
        return cache[(r, row)]

    return [[marginal(r, row) for r, row in enumerate(line)] for line in game.paylines]


def line_hits(game: Game, level: int, reel_set: str = "base"):
    """Hit counts of every (entry, multiplier) label, summed over lines.

    Returns
    -------
    labels : ndarray, shape (K, 2)
        (entry index, multiplier) of each winning label.
    hits : ndarray of int64, shape (K,)
        Stop combinations (over all lines) won by the label.
    per_line_win : list of int
        Sum over the cycle of each line's win [coins].
    """
    tensor: PayTensor = pay_tensor(game, level)
    win_mask = tensor.entries >= 0
    keys = tensor.entries[win_mask] * (1 << 20) + tensor.mults[win_mask]
    uniq, inverse = unique_codes(keys)
    wins = tensor.wins[win_mask]
    hits = np.zeros(len(uniq), dtype=np.int64)
    per_line_win = []
    seen: dict = {}
    for profile in line_profiles(game, reel_set):
        key = tuple(m.tobytes() for m in profile)
        if key not in seen:
            w = tuple_weights(profile)[win_mask]
            h = np.zeros(len(uniq), dtype=np.int64)
            np.add.at(h, inverse, w)
            seen[key] = (
                h,
                sum(int(a) * int(b) for a, b in zip(h, _label_wins(uniq, wins, inverse), strict=True)),
            )
        h, total = seen[key]
        hits += h
        per_line_win.append(total)
    labels = np.stack([uniq >> 20, uniq & ((1 << 20) - 1)], axis=1)
    return labels, hits, per_line_win


def _label_wins(uniq, wins, inverse) -> np.ndarray:
    out = np.zeros(len(uniq), dtype=np.int64)
    out[inverse] = wins
    return out


def combination_table(
    game: Game,
    level: int,
    reel_set: str = "base",
    pay_rows: list | None = None,
    scatter_laws: dict | None = None,
) -> pd.DataFrame:
    """Every line and scatter pay with hits, probability, 1 in N and RTP share.

    ``pay_rows`` (rows made by :func:`combination_row`) replace the line rows (ways games);
    ``scatter_laws`` ({scatter symbol: weight over the cycle by count}) the
    window's scatter counts (tumbles with ``triggers: sequence``).

    Columns: ``kind`` (line/scatter), ``combination``, ``multiplier``,
    ``win`` [coins at this level], ``hits`` (over all lines, integer),
    ``probability`` (hits / cycle: expected occurrences per spin),
    ``one_in`` (cycle / hits), ``rtp`` [x total bet] and ``rtp_exact``.
    """
    bet = game.bet(level)
    cycle = game.cycle(reel_set)
    rows = list(pay_rows) if pay_rows is not None else line_rows(game, level, reel_set)
    for sym in scatter_symbols(game):
        dist = scatter_laws[sym] if scatter_laws else count_distribution_window(game, reel_set, sym)
        by_entry: dict = {}
        for n, h in enumerate(dist.tolist()):
            name = scatter_entry(game, sym, n)
            if name and h:
                by_entry.setdefault(name, [scatter_pay(game, sym, n), 0])[1] += int(h)
        for name, (pay, h) in by_entry.items():
            rows.append(combination_row("scatter", name, 1, pay * bet.total_bet, h, cycle, bet.total_bet))
    cols = ["kind", "combination", "multiplier", "win", "hits", "probability", "one_in", "rtp", "rtp_exact"]
    table = pd.DataFrame(rows, columns=cols)
    return table.sort_values(["kind", "rtp"], ascending=[True, False], ignore_index=True)


def line_rows(game: Game, level: int, reel_set: str = "base") -> list:
    """Combination-table rows of the line pays (one per entry and multiplier)."""
    bet = game.bet(level)
    cycle = game.cycle(reel_set)
    tensor = pay_tensor(game, level)
    labels, hits, _ = line_hits(game, level, reel_set)
    rows = []
    for (e, m), h in zip(labels.tolist(), hits.tolist(), strict=True):
        if h == 0:
            continue
        win = int(tensor.compiled.pay[e]) * m
        rows.append(combination_row("line", game.line_pays[e].name, m, win, h, cycle, bet.total_bet))
    return rows


def combination_row(kind, name, mult, win, hits, cycle, total_bet) -> dict:
    """One combination-table row: ``hits`` stop combinations paying ``win``
    [coins] at ``mult`` over ``cycle``."""
    rtp = Fraction(win) * hits / (cycle * total_bet)
    return {
        "kind": kind,
        "combination": name,
        "multiplier": mult,
        "win": float(win) if isinstance(win, Fraction) else win,
        "hits": hits,
        "probability": hits / cycle,
        "one_in": cycle / hits if hits else float("inf"),
        "rtp": float(rtp),
        "rtp_exact": rtp,
    }


def line_rtp(game: Game, level: int, reel_set: str = "base"):
    """Exact line RTP and per-line RTP [x line bet] as Fractions."""
    bet = game.bet(level)
    cycle = game.cycle(reel_set)
    _, _, per_line = line_hits(game, level, reel_set)
    total = Fraction(sum(per_line), cycle * bet.total_bet)
    return total, [Fraction(w, cycle * bet.line_bet) for w in per_line]


def line_rtp_parts(game: Game, level: int, reel_set: str = "base", scatters: bool = True) -> dict:
    """Exact line and scatter RTP of a line game [x total bet], by contraction.

    Returns ``{"lines": Fraction, "scatters": Fraction, "feature_frequency":
    Fraction or None}`` (the last: P(scatter win > 0), None without scatter
    pays); only "lines" when ``scatters`` is False.
    """
    bet = game.bet(level)
    cycle = game.cycle(reel_set)
    line_sum = int(cycle_line_win(game, pay_tensor(game, level).reshaped(), reel_set))
    out = {"lines": Fraction(line_sum, cycle * bet.total_bet)}
    if scatters:
        out["scatters"], out["feature_frequency"] = scatter_rtp(game, level, reel_set)
    return out


def scatter_rtp(game: Game, level: int, reel_set: str = "base") -> tuple:
    """Exact scatter RTP [x total bet] and P(scatter win > 0) [probability]
    (0 and None without scatter pays), from the scatter code distribution."""
    if not game.scatter_pays:
        return Fraction(0), None
    bet = game.bet(level)
    cycle = game.cycle(reel_set)
    counts, pay_units, unit_den = scatter_code_distribution(game, reel_set, bet.total_bet)
    paid = sum(int(c) * int(p) for c, p in zip(counts.tolist(), pay_units.tolist(), strict=True))
    return Fraction(paid, cycle * bet.total_bet * unit_den), Fraction(int(counts[pay_units > 0].sum()), cycle)
