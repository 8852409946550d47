"""Sensitivities: how the exact figures move for one more or one fewer symbol.

For every reel and every symbol on it (every stop on a weighted reel), the
strip is changed by +1 and by -1 copy (stop weight), laid out as tuning
would lay it out (:meth:`slotmath.tuning.reelspace.ReelSpace.strip`), and the game
is evaluated exactly.  The table gives the change of each figure
(RTP [x total bet], hit frequency [probability], SD [x total bet], ...)
from the game as it stands.  A +1 lengthens the strip (adds weight), so the
entry includes the dilution of every other symbol: it is exactly what
adding the symbol does.
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
from tqdm.auto import tqdm

from slotmath.analysis.metrics import game_figures
from slotmath.errors import BoundsError
from slotmath.model import Game
from slotmath.tuning.reelspace import Bounds, ReelSpace

DEFAULT_FIGURES = ("rtp", "hit_frequency", "sd")


def sensitivities(
    game: Game,
    level: int | None = None,
    reel_set: str = "base",
    figures=DEFAULT_FIGURES,
    bounds: Bounds | None = None,
    all_symbols: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Change of each figure for +-1 of each symbol (or stop weight) on each reel.

    Parameters
    ----------
    game : Game
    level : int, optional
        Bet level (default: the lowest).
    reel_set : str
    figures : sequence of str
        Figure names (see :mod:`slotmath.analysis.metrics`).
    bounds : Bounds, optional
        Only its held symbols matter here: they keep their places when
        strips are laid out.  Limits are not applied (every +-1 is shown).
    all_symbols : bool
        Include symbols a reel does not carry (their -1 is empty).
    progress : bool
        A tqdm bar on stderr when the table takes over 2 s.

    Returns
    -------
    DataFrame
        Columns ``reel`` (1-based), ``unit`` (symbol or ``stop k SYMBOL``),
        ``count`` (copies or stop weight now), and ``<figure> +1`` /
        ``<figure> -1`` (change from the current figure; NaN where the
        change is impossible).  ``attrs["base"]`` holds the current figures,
        ``attrs["level"]`` the bet level.
    """
    level = game.bet(level).level
    space = ReelSpace(game, reel_set, bounds)
    figures = tuple(figures)
    base = game_figures(game, level, reel_set, figures)
    xs = space.x0
    rows = []
    units = [
        (r, u)
        for r, rv in enumerate(space.reels)
        for u in range(rv.size)
        if not (rv.x0[u] == 0 and not all_symbols and rv.mode == "counts")
    ]
    bar = tqdm(
        total=len(units),
        desc="sensitivities",
        unit="row",
        delay=2.0,
        leave=False,
        disable=None if progress else True,
    )
    for r, u in units:
        rv = space.reels[r]
        row = {"reel": r + 1, "unit": rv.labels[u], "count": int(rv.x0[u])}
        for step in (1, -1):
            trial = [x.copy() for x in xs]
            trial[r][u] += step
            ok = trial[r][u] >= 0 and trial[r].sum() >= 1
            figs = game_figures(space.game_for(trial), level, reel_set, figures) if ok else {}
            for f in figures:
                row[f"{f} {step:+d}"] = (
                    (float(figs[f]) - float(base[f])) if ok and figs.get(f) is not None else float("nan")
                )
        rows.append(row)
        bar.update()
    bar.close()
    cols = ["reel", "unit", "count"] + [f"{f} {s}" for f in figures for s in ("+1", "-1")]
    table = pd.DataFrame(rows, columns=cols)
    table.attrs["base"] = {f: base.get(f) for f in figures}
    table.attrs["level"] = level
    return table


def table_sensitivities(
    game: Game, level: int | None = None, tables=("all",), figures=DEFAULT_FIGURES, progress: bool = True
) -> pd.DataFrame:
    """Change of each figure for +-1 of each weight of weight tables (the strips held).

    ``tables``: paths (``options.hold_and_spin.values``) or ``("all",)``
    (:mod:`slotmath.tuning.tablespace`).  As for a strip, a +1 adds weight to
    the table, so the entry includes the dilution of every other entry.

    Returns
    -------
    DataFrame
        Columns ``table``, ``entry`` (its prize or name), ``weight`` (now),
        ``rtp d/dw`` (the exact derivative of the RTP [x total bet per unit
        weight], :func:`table_derivatives`) and ``<figure> +1`` /
        ``<figure> -1`` (NaN where the weight would go below 0 or the
        table's total to 0); ``attrs`` as :func:`sensitivities`.
    """
    from slotmath.tuning.tablespace import TableSpace

    level = game.bet(level).level
    space = TableSpace(game, tables, None)
    figures = tuple(figures)
    base = game_figures(game, level, "base", figures)
    units = [(t, i) for t, x in enumerate(space.x0) for i in range(len(x))]
    bar = tqdm(
        total=len(units),
        desc="sensitivities",
        unit="row",
        delay=2.0,
        leave=False,
        disable=None if progress else True,
    )
    rows = []
    nan = [float("nan")] * max(len(x) for x in space.x0)
    slopes = {
        t.path: table_derivatives(game, level, t.path)["rtp"] if t.tunable.degree is not None else nan
        for t in space.tables
    }
    for t, i in units:
        table = space.tables[t]
        row = {
            "table": table.path,
            "entry": table.labels[i],
            "weight": int(space.x0[t][i]),
            "rtp d/dw": float(slopes[table.path][i]),
        }
        for step in (1, -1):
            trial = [x.copy() for x in space.x0]
            trial[t][i] += step
            ok = trial[t][i] >= 0 and trial[t].sum() >= 1
            figs = game_figures(space.game_for(trial), level, "base", figures) if ok else {}
            for f in figures:
                row[f"{f} {step:+d}"] = (
                    (float(figs[f]) - float(base[f])) if ok and figs.get(f) is not None else float("nan")
                )
        rows.append(row)
        bar.update()
    bar.close()
    cols = ["table", "entry", "weight", "rtp d/dw"] + [f"{f} {s}" for f in figures for s in ("+1", "-1")]
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["base"] = {f: base.get(f) for f in figures}
    out.attrs["level"] = level
    return out


def format_sensitivities(table: pd.DataFrame) -> str:
    """The table as text: RTP and frequencies in percentage points."""
    t = table.copy()
    for col in t.columns[3:]:
        name = col.rsplit(" ", 1)[0]
        pct = name.startswith("rtp") or name.endswith("frequency")
        t[col] = [("" if v != v else f"{v * 100:+.4f} pp" if pct else f"{v:+.5g}") for v in t[col]]
    base = table.attrs.get("base", {})
    head = ", ".join(f"{k} = {float(v):.6g}" for k, v in base.items() if v is not None)
    return f"Sensitivities at bet level {table.attrs.get('level')} (now: {head})\n" + t.to_string(index=False)


def _interpolated_slope(values: list, total: int, degree: int):
    """``d f / d t`` at ``t = 0`` from ``values[k] = f(k)`` (``k = 0..degree``),
    where ``f(t) (total + t)**degree`` is a polynomial of degree ``degree``
    in ``t`` (Lagrange's interpolation, exact in Fractions)."""
    n = degree + 1
    h = [v * (total + k) ** degree for k, v in enumerate(values)]
    slope = Fraction(0)
    for k in range(n):
        # L_k'(0) for the nodes 0..degree
        dl = Fraction(0)
        for m in range(n):
            if m == k:
                continue
            term = Fraction(1, k - m)
            for j in range(n):
                if j not in (k, m):
                    term *= Fraction(-j, k - j)
            dl += term
        slope += h[k] * dl
    return slope / Fraction(total) ** degree - degree * values[0] / total


def table_derivatives(game: Game, level: int | None, path: str) -> dict:
    """Exact derivative of the RTP and of each RTP component with respect to
    each weight of the weight table at ``path`` [x total bet per unit weight].

    The feature that reads the table states the figures are polynomials of
    degree ``d`` in its draw probabilities ``w / T``
    (:class:`~slotmath.features.tunables.Tunable`).  Along ``w + t e_i`` (the
    total ``T + t``), ``f(t) (T + t)**d`` is then a polynomial of degree
    ``d`` in ``t``: ``d`` exact evaluations more than the game's own (``t =
    1..d``, weights stay whole) give it, and its slope at 0 gives ``f'(0)``
    exactly (Fractions, when the rules' figures are; a figure the rules give
    as a float is as exact as the float).  For ``d = 1`` this is ``(f(e_i) -
    f(w)) / T`` with ``f(e_i)`` the figure with every draw on entry ``i``:
    ``(value_i - mean) / T x rate`` for a table paid by one draw per event.

    Returns
    -------
    dict
        ``{figure: tuple of Fraction}`` (one per entry, in the table's order)
        for ``rtp`` and each ``rtp:<component>`` of the game; a table that
        moves only other bet levels (:attr:`Tunable.levels`) gives zeros.

    Raises
    ------
    BoundsError
        The table's degree is unknown (:class:`~slotmath.features.tunables.Tunable`).
    """
    from slotmath.tuning.tablespace import TableSpace

    F = Fraction
    level = game.bet(level).level
    space = TableSpace(game, [path], None)
    table = space.tables[0]
    tunable = table.tunable
    if tunable.degree is None:
        raise BoundsError(
            f"{path}: the figures are no polynomial of known degree in its draw probabilities "
            "(a round cap, or rules that play their own features): no exact derivative"
        )

    def figures(x) -> dict:
        figs = game_figures(space.game_for([x]), level, "base", ("rtp",))
        return {k: F(v) for k, v in figs.items() if k == "rtp" or k.startswith("rtp:")}

    base = figures(space.x0[0])
    x0, total = space.x0[0], int(space.x0[0].sum())
    if tunable.levels is not None and level not in tunable.levels:
        return {k: tuple(F(0) for _ in x0) for k in base}
    out: dict = {k: [] for k in base}
    for i in range(len(x0)):
        points = [base]
        for t in range(1, tunable.degree + 1):
            x = x0.copy()
            x[i] += t
            points.append(figures(x))
        for k in out:
            out[k].append(_interpolated_slope([p.get(k, F(0)) for p in points], total, tunable.degree))
    return {k: tuple(v) for k, v in out.items()}
