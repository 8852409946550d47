"""Feature sheets: the figures a rules module reports, shown generically.

The report has no code for any particular game.  It reads two fields of
:class:`slotmath.rules.result.ParResult`:

* ``tables`` ({name: DataFrame}): the rules module's report view, every
  table shown; a per-cell grid of the window, marked by its producer with
  ``frame.attrs["heatmap"] = True``, gets a heat map (never a table merely
  of the window's shape), a table whose
  ``probability`` column sums to 1 (2 to 40 rows) a bar chart;
* ``features`` (JSON figures): scalars become tables of figures (nested
  dicts flattened into ``a / b / c`` labels), a rows x reels nested list of
  numbers a heat map; lists of records and dicts of records become tables,
  on the page when the module gives no ``tables``, otherwise in the
  workbook only (as are tables of figures and grids whose numbers the
  module's tables already show);
* names choose number formats (:func:`name_format`).

See ``docs/reports.md``.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.model import Game
from slotmath.report import plots
from slotmath.report.sheettable import Table, figure_table, format_value, human, label


def walk_scalars(obj, path=()):
    """(path, value) of every scalar in a nested JSON-ready structure."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk_scalars(v, path + (str(k),))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from walk_scalars(v, path + (str(i),))
    else:
        yield path, obj


def walk_estimates(obj, path=()):
    """(path, estimate dict) of every simulated estimate (dicts with
    ``value`` and ``se``) in a nested simulation result."""
    if isinstance(obj, dict):
        if "value" in obj and "se" in obj:
            yield path, obj
            return
        for k, v in obj.items():
            yield from walk_estimates(v, path + (str(k),))


def _is_scalar(v) -> bool:
    return v is None or isinstance(v, (str, int, float, bool, Fraction, np.generic))


def _is_grid(v, game: Game) -> bool:
    return (
        isinstance(v, (list, tuple))
        and len(v) == game.rows
        and all(
            isinstance(r, (list, tuple))
            and len(r) == game.reels
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in r)
            for r in v
        )
    )


_FRACTION = re.compile(r"-?\d+/\d+")


def _text(v: str) -> str:
    """A text figure for people: an exact fraction ``"p/q"`` too long for a
    cell (a progressive jackpot's ``rtp_exact`` of a 243-ways game has over
    1,000 digits, which widened its table past the page and out of print)
    abbreviated as the summary's RTP is
    (:func:`slotmath.rules.result.fraction_short`; the JSON keeps it whole);
    any other text in words (:func:`human`)."""
    from slotmath.rules.result import FRACTION_DISPLAY_LIMIT, fraction_short

    if len(v) > FRACTION_DISPLAY_LIMIT and _FRACTION.fullmatch(v):
        return fraction_short(Fraction(v))
    return human(v)


def _flat_rows(obj, path=()) -> list:
    rows = []
    for k, v in obj.items():
        p = path + (label(k),)
        if isinstance(v, dict):
            rows += _flat_rows(v, p)
        elif _is_scalar(v):
            rows.append((" / ".join(p), _text(v) if isinstance(v, str) else v))
        elif isinstance(v, (list, tuple)) and all(_is_scalar(x) for x in v):
            if all(
                isinstance(x, (int, float, Fraction, np.number)) and not isinstance(x, bool) for x in v
            ):  # numbers stay numbers: a row per entry
                rows += [(" / ".join(p) + f" {i + 1}", x) for i, x in enumerate(v)]
            else:
                rows.append((" / ".join(p), ", ".join(human(format_value(x, "general")) for x in v)))
    return rows


def _value_format(v, name: str = "") -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.number, Fraction)):
        return "text"
    if isinstance(v, (int, np.integer)):
        return "int"
    return name_format(name) or "general"


def feature_tables(features: dict, frames: dict, game: Game) -> list:
    """Tables (with their figures) for ``ParResult.features`` and ``ParResult.tables``.

    ``tables`` are the rules module's report-ready view: each is shown, with
    a heat map or a bar chart where its shape calls for one.  ``features``
    (the JSON figures) add their scalars and grids to the page; their
    tabular parts (lists of records, dicts of records) are shown only when
    the rules module gives no tables, and otherwise kept to the workbook.
    """
    curated = bool(frames)
    tables = []
    for name, frame in (frames or {}).items():
        title = label(name).capitalize() if name == name.lower() else str(name)
        frame = frame.copy()
        if not isinstance(frame.index, pd.RangeIndex):
            frame = frame.reset_index()
        table = records_table(title, frame)
        frame = table.frame
        if frame.attrs.get("heatmap"):  # the producer's mark, never the shape alone
            values = frame.select_dtypes("number").to_numpy(float)
            table.figures.append((title, lambda v=values, t=title: plots.grid_heatmap(v, t)))
        else:
            _distribution_figure(table)
        tables.append(table)
    loose, figures = [], []
    for key, value in (features or {}).items():
        title = label(key).capitalize()
        if _is_scalar(value):
            loose.append((label(key), _cell(value)))
        elif isinstance(value, dict):
            figures += _feature_dict(title, value, game, curated)
        else:
            figures += _feature_list(title, value, game, curated)
    if loose:
        figures.insert(0, figure_table("Feature figures", [(k, v, _value_format(v, k)) for k, v in loose]))
    if curated:  # figures the module's tables already show stay in the workbook
        known = {
            key for t in tables for v in t.frame.to_numpy().ravel() if (key := _number_key(v)) is not None
        }
        for t in figures:
            numbers = {key for v in t.frame.to_numpy().ravel() if (key := _number_key(v)) is not None}
            if (t.row_formats is not None or t.frame.attrs.get("grid")) and numbers and numbers <= known:
                t.html = False
    return tables + figures


def records_table(title: str, frame: pd.DataFrame, html: bool = True) -> Table:
    """A table of records with readable column names and the formats the
    names call for."""
    frame = frame.copy()
    frame.columns = [label(c) for c in frame.columns]
    for c in frame.columns:
        if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c]):
            frame[c] = pd.Series([_cell(v) for v in frame[c]], dtype=object, index=frame.index)
    return Table(title, frame, {c: f for c in frame.columns if (f := name_format(c))}, html=html)


_NUMBER = re.compile(r"^[-+]?[0-9][0-9,]*(\.[0-9]*)?([eE][-+]?[0-9]+)?$")


def _cell(v):
    """A table cell for the sheet: numbers a module wrote as text become
    numbers again, code names become words."""
    if not isinstance(v, str):
        return v
    if _NUMBER.match(v.strip()):
        return float(v.strip().replace(",", ""))
    return human(v)


def name_format(name: str) -> str | None:
    """Format key a column or figure name calls for: odds for "1 in", "per
    hit" and "rounds per ...", percentages for RTP, scientific notation for
    probabilities."""
    n = str(name).lower().replace("_", " ")
    if "1 in" in n or "one in" in n or " per hit" in n or n.startswith("rounds per "):
        return "odds"
    if n == "rtp" or n.startswith("rtp ") or n.endswith(" rtp") or " rtp " in n:
        return "pct"
    if "probability" in n or "per round" in n:
        return "prob"
    return None


def _number_key(v):
    """A number as a hashable key to 12 significant digits (None otherwise)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number, Fraction)):
        return None
    v = float(v)
    return None if not np.isfinite(v) else f"{v:.12g}"


def _feature_list(title, value, game, curated) -> list:
    if _is_grid(value, game):
        table = Table(title, _grid_frame(value), formats=_grid_formats(game))
        table.figures.append((title, lambda v=value, t=title: plots.grid_heatmap(v, t)))
        return [table]
    if not isinstance(value, (list, tuple)) or not value:
        return []
    if all(isinstance(x, dict) for x in value):
        table = records_table(title, pd.DataFrame(value), html=not curated)
        _distribution_figure(table)
        return [table]
    return [Table(title, pd.DataFrame({"value": list(value)}), html=not curated)]


def _grid_frame(grid) -> pd.DataFrame:
    frame = pd.DataFrame(grid, columns=[f"reel {j + 1}" for j in range(len(grid[0]))])
    frame.insert(0, "row", [f"row {i + 1}" for i in range(len(grid))])
    frame.attrs["grid"] = True
    return frame


def _grid_formats(game: Game) -> dict:
    return {f"reel {j + 1}": "general" for j in range(game.reels)}


def _feature_dict(title, value, game, curated) -> list:
    scalars = {k: v for k, v in value.items() if _is_scalar(v)}
    records = {
        k: v for k, v in value.items() if isinstance(v, dict) and v and all(_is_scalar(x) for x in v.values())
    }
    tables = []
    if len(records) >= 2 and len(records) == len(value) - len(scalars):
        if scalars:
            tables.append(
                figure_table(title, [(label(k), v, _value_format(v, k)) for k, v in scalars.items()])
            )
        frame = pd.DataFrame.from_dict(records, orient="index").reset_index(names="entry")
        table = records_table(f"{title}: by entry" if scalars else title, frame, html=not curated)
        _distribution_figure(table)
        return tables + [table]
    rest = {}
    for k, v in value.items():
        if isinstance(v, (list, tuple)) and not all(_is_scalar(x) for x in v):
            tables += _feature_list(f"{title}: {label(k)}", v, game, curated)
        else:
            rest[k] = v
    rows = _flat_rows(rest)
    if rows:
        tables.insert(0, figure_table(title, [(k, v, _value_format(v, k)) for k, v in rows]))
    return tables


def _distribution_figure(table: Table) -> None:
    """Attach a bar chart to a small table whose ``probability`` column is a
    distribution (sums to 1)."""
    frame = table.frame
    if (
        "probability" in frame.columns
        and 2 <= len(frame) <= 40
        and frame.columns[0] != "probability"
        and abs(pd.to_numeric(frame["probability"], errors="coerce").sum() - 1) < 1e-6
    ):
        first = frame.columns[0]
        table.figures.append(
            (
                f"{table.title}: probability by {first}.",
                lambda f=frame, c=first, t=table.title: plots.probability_bars(
                    f[c].tolist(), f["probability"].astype(float), str(c), t
                ),
            )
        )
