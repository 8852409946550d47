"""Sections of a PAR sheet that describe the game: identification, reel
strips, symbols per reel, pay table, paylines and the combination table.
Each builder takes the :class:`~slotmath.report.sheet.ParSheet` and returns a
:class:`~slotmath.report.sheettable.Section` (or ``None`` where the game has none).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from slotmath import __version__
from slotmath.engine.payrule import pay_rule
from slotmath.io.readset import read_set
from slotmath.report import plots
from slotmath.report.sheetparts import (
    coin_values,
    file_sha256,
    git_revision,
    installed_folder,
    reader_path,
)
from slotmath.report.sheettable import Section, Table, exact_str, figure_table, human
from slotmath.rules.result import HITS_PER_SPIN, SPINS_PER_HIT, WIN_COINS

if TYPE_CHECKING:
    from slotmath.report.sheet import ParSheet


def identification(sheet: ParSheet) -> Section:
    g, b, p = sheet.game, sheet.par.bet, sheet.parameters
    rule = pay_rule(g)
    folder = Path(g.source).parent
    rows = [
        ("game", g.title, "text"),
        ("version", g.version or "not given in the game file", "text"),
        ("RTP variant", g.variant or "not given in the game file", "text"),
        ("game name", g.name, "text"),
        ("rules", human(g.rules), "text"),
        ("pays by", rule.pays_words + ("" if rule.whole_spin else ", tumbling"), "text"),
    ]
    if g.description:
        rows.append(("description", g.description, "text"))
    # exactly the files the game reads (its read set), named from its folder
    read = read_set(g.source)
    rows += [
        ("game file", reader_path(g.source), "text"),
        ("files read", ", ".join(f.name if f.parent == folder else reader_path(f) for f in read), "text"),
        ("game file SHA-256", file_sha256(g.source), "text"),
    ]
    for extra in read[1:]:
        shown = extra.name if extra.parent == folder else reader_path(extra)
        rows.append((f"data file {shown} SHA-256", file_sha256(extra), "text"))
    rows += [
        ("grid", f"{g.reels} reels x {g.rows} rows{g.heights.describe() if g.heights else ''}", "text"),
        (
            "paylines" if rule.has_paylines else rule.channel + (" (most)" if g.heights else ""),
            g.ways_or_lines,
            "int",
        ),
        ("bet levels offered", ", ".join(map(str, g.levels)), "text"),
        ("bet level of this sheet", b.level, "int"),
        (rule.sheet.bet, b.line_bet, "int"),
        ("total bet [coins]", b.total_bet, "int"),
        (
            "pay table",
            "linear in the bet level"
            if sheet._linear()
            else "not linear in the bet level (see the figures by bet level)",
            "text",
        ),
    ]
    coins, currency = coin_values(g)
    if coins:
        rows.append((f"coin values [{currency}]", ", ".join(f"{c:.2f}" for c in coins), "text"))
    for name in g.reel_sets:
        rows.append((f"cycle of reel set {human(name)}", g.cycle(name), "int"))
    rows += [
        ("slotmath version", __version__, "text"),
        ("git commit", git_revision([folder, Path(__file__).parent]), "text"),
        ("game file last committed", sheet.generated or "not committed", "text"),
    ]
    shown = dict(p, out=installed_folder(p.get("out"), g.name))
    if isinstance(shown.get("game"), str) and Path(shown["game"]).is_absolute():
        game = shown["game"]  # no absolute path of the author's machine; a game folder by its name
        shown["game"] = reader_path(game, folder=Path(game).suffix not in (".yaml", ".yml"))
    names = {
        "game": "game",
        "bet": "bet level",
        "spins": "Monte Carlo rounds",
        "seed": "Monte Carlo seed",
        "out": "output folder",
    }
    params = [
        (
            f"parameter {names.get(k, human(k))}",
            "default" if v is None else v,
            "int" if isinstance(v, int) and not isinstance(v, bool) and k != "seed" else "text",
        )
        for k, v in shown.items()
    ]
    return sheet._section(
        "identification",
        [figure_table("Game and provenance", rows), figure_table("Notebook parameters", params)],
    )


def reels(sheet: ParSheet) -> Section:
    g = sheet.game
    tables, figures = [], []
    for name, strips in g.reel_sets.items():
        n = max(len(s) for s in strips)
        cols = {"stop": list(range(n))}
        formats = {"stop": "int"}
        for r, s in enumerate(strips):
            cols[f"reel {r + 1}"] = list(s.symbols) + [""] * (n - len(s))
            if s.weights is not None:
                cols[f"weight {r + 1}"] = list(s.weights) + [None] * (n - len(s))
                formats[f"weight {r + 1}"] = "int"
        lengths = ", ".join(str(len(s)) for s in strips)
        tables.append(
            Table(
                f"Reel set {human(name)}: strips",
                pd.DataFrame(cols),
                formats,
                note=f"Stops per reel: {lengths}; cycle {g.cycle(name):,}. "
                f"Stop s shows positions s..s+{g.rows - 1} top to bottom.",
            )
        )
        blocks = plots.strip_blocks(n)
        for first, stop in blocks:
            part = f", stops {first} to {stop - 1}" if len(blocks) > 1 else ""
            weighted = (
                " (stop weights beside the cells)" if any(s.weights is not None for s in strips) else ""
            )
            figures.append(
                (
                    f"Reel set {human(name)}{part}{weighted}.",
                    lambda name=name, a=first, z=stop: plots.reel_strips(g, name, a, z),
                )
            )
    return sheet._section("reels", tables, figures, figures_first=True)


def drawn_text(drawn) -> str:
    """A drawn wild multiplier table in words: ``drawn x2 (4) / x3 (1), added``
    (weights in brackets, reduced by their common divisor)."""
    how = "multiplied" if drawn.combine == "multiply" else "added"
    table = " / ".join(f"x{m} ({w})" for m, w in drawn.table)
    return f"drawn {table}, {how}"


def symbols(sheet: ParSheet) -> Section:
    from slotmath.features.wildmult import load_wild_multipliers

    g = sheet.game
    drawn = load_wild_multipliers(g)

    def multiplier(s) -> str:
        if drawn is not None and drawn.symbol == s.name:
            return drawn_text(drawn)
        if s.wild.by_count:
            return " / ".join(f"{m}" for m in s.wild.by_count[1:]) + " by wild count"
        return f"x{s.wild.per_wild} per wild" if s.wild.per_wild > 1 else "none"

    rows = []
    for s in g.symbols:
        subs = mult = ""
        if s.wild:
            subs = ", ".join(sorted(s.wild.substitutes))
            mult = multiplier(s)
        rows.append(
            {
                "symbol": s.name,
                "label": s.label or s.name,
                "kind": human(s.kind),
                "substitutes for": subs,
                "multiplier": mult,
            }
        )
    tables = [Table("Symbols", pd.DataFrame(rows))]
    for name, strips in g.reel_sets.items():
        counts = {}
        for r, s in enumerate(strips):
            w = s.stop_weights()
            col = {sym: 0 for sym in g.symbol_names}
            for sym, wt in zip(s.symbols, w.tolist(), strict=True):
                col[sym] += wt
            counts[f"reel {r + 1}"] = col
        frame = pd.DataFrame(counts)
        frame = frame[(frame != 0).any(axis=1)]
        frame.loc["total"] = frame.sum()
        frame = frame.reset_index(names="symbol")
        weighted = any(s.weights is not None for s in strips)
        tables.append(
            Table(
                f"Reel set {human(name)}: symbol {'weights' if weighted else 'counts'} per reel",
                frame,
                total_row=True,
                note="Stop weights summed per symbol (virtual reel)." if weighted else "",
            )
        )
    return sheet._section("symbols", tables)


def symbol_labels(game):
    """``name -> text`` of a symbol as every table and picture shows it: its
    label (the reel pictures' text), with the name in brackets when they differ."""

    def shown(name: str) -> str:
        label = game.symbol(name).label
        return f"{label} ({name})" if label and label != name else name

    return shown


def paytable(sheet: ParSheet) -> Section:
    g = sheet.game
    rows = []
    shown = symbol_labels(g)  # as the reel pictures show them
    words = pay_rule(g).sheet
    for p in g.line_pays:
        if p.anywhere:
            form = f"exactly {p.exactly} {shown(p.anywhere)} anywhere on the line"
        elif g.pays_by_count:  # the row's count range anywhere in the window, or in one cluster
            form = f"{p.name.split(' x ')[0]} {shown(next(iter(p.positions[0])))} {words.where}"
        else:
            form = " ".join(
                "|".join(shown(x) for x in sorted(pos)) if len(pos) > 1 else shown(next(iter(pos)))
                for pos in p.positions
            )
        row = {"combination": p.name, "symbols (from reel 1)": form}
        row.update({f"pays at level {lv} [coins]": pay for lv, pay in zip(g.levels, p.pays, strict=True)})
        rows.append(row)
    tables = [
        Table(
            words.paytable,
            pd.DataFrame(rows).rename(columns={"symbols (from reel 1)": words.form}),
            note=words.paytable_note,
        )
    ]
    if g.scatter_pays:
        sc = pd.DataFrame(
            [
                {
                    "symbol": shown(s.symbol),
                    "count (or more)": s.count,
                    "pay [x total bet]": float(s.pay),
                    "pay exact": exact_str(s.pay),
                }
                for s in g.scatter_pays
            ]
        )
        tables.append(Table("Scatter pays (anywhere in the window)", sc, {"pay [x total bet]": "x"}))
    coins, currency = coin_values(g)
    if coins:
        frame = pd.DataFrame(
            {"bet level": list(g.levels), "total bet [coins]": [g.bet(lv).total_bet for lv in g.levels]}
        )
        for c in coins:
            frame[f"total bet [{currency}] at {c:.2f} {currency} per coin"] = [
                round(c * g.bet(lv).total_bet, 10) for lv in g.levels
            ]
        tables.append(
            Table(
                f"Bets in {currency}",
                frame,
                {col: ("int" if i < 2 else "money") for i, col in enumerate(frame.columns)},
            )
        )
    return sheet._section("paytable", tables)


def paylines(sheet: ParSheet) -> Section | None:
    g, r = sheet.game, sheet.par
    if not pay_rule(g).has_paylines:
        return None  # pays by ways: no paylines
    frame = pd.DataFrame({"line": range(1, len(g.paylines) + 1)})
    for j in range(g.reels):
        frame[f"row on reel {j + 1}"] = [line[j] + 1 for line in g.paylines]
    formats = {c: "int" for c in frame.columns}
    note = "Row 1 is the top row of the window."
    if len(r.per_line_rtp) == len(g.paylines):
        frame["RTP of the line [x line bet]"] = [float(v) for v in r.per_line_rtp]
        formats["RTP of the line [x line bet]"] = "pct6"
        note += (
            " The RTP of a line is its expected line win over the line bet (base game "
            "line pays only; features are not line wins)."
        )
    table = Table(
        "Paylines",
        frame,
        formats,
        note=note,
        figures=[("Paylines: the line's cell on every reel.", lambda: plots.paylines(g))],
    )
    return sheet._section("paylines", [table])


def wild_multipliers_text(game) -> str:
    """The wild multipliers that apply on a way, in words ("" when none)."""
    parts = []
    for s in game.symbols:
        w = s.wild
        if w is None:
            continue
        if w.by_count is not None and any(m != 1 for m in w.by_count):
            parts.append(f"{s.label or s.name} x" + "/".join(str(m) for m in w.by_count[1:]) + " by count")
        elif w.per_wild != 1:
            parts.append(f"{s.label or s.name} x{w.per_wild} each")
    from slotmath.features.wildmult import load_wild_multipliers

    drawn = load_wild_multipliers(game)
    if drawn is not None:  # drawn per wild (options.wild_multipliers), the mean multiplier of one
        how = "multiplied" if drawn.combine == "multiply" else "added"
        label = game.symbol(drawn.symbol).label or drawn.symbol
        table = "/".join(str(m) for m, _ in drawn.table)
        parts.append(f"{label} drawn x{table} ({how}, mean x{float(drawn.mean):.4g})")
    return ", ".join(parts)


def ways_text(sheet: ParSheet, name: str, win) -> str:
    """The multiplier cell of a ways row: the mean number of ways per hit
    (the wild multipliers multiply the ways they are on) and which apply."""
    g = sheet.game
    entry = next(p for p in g.line_pays if p.name == name)
    pay = entry.pays[g.levels.index(sheet.par.bet.level)]
    ways = f"{float(Fraction(win) / pay):.4g} ways per hit" if pay else "ways"
    mult = wild_multipliers_text(g)
    return f"{ways} ({mult})" if mult else ways


def combinations(sheet: ParSheet) -> Section:
    c = sheet.par.combinations
    order = {p.name: i for i, p in enumerate(sheet.game.line_pays)}
    order.update({f"{s.count} x {s.symbol}": len(order) + i for i, s in enumerate(sheet.game.scatter_pays)})
    kinds = {"line": 0, "ways": 0, "anywhere": 0, "scatter": 1}
    c = c.assign(
        _k=[kinds.get(k, 2) for k in c["kind"]],
        _o=[order.get(n, len(order)) for n in c["combination"]],
        _first=range(len(c)),
    )
    rows = []
    for (_, _, kind, name), g in c.sort_values(["_k", "_o", "_first"]).groupby(
        ["_k", "_o", "kind", "combination"], sort=True
    ):
        g = g.sort_values("multiplier")
        if len(g) > 1:  # the pay-table entry, then a sub-row per multiplier
            tot = sum(g["rtp_exact"], Fraction(0))
            rows.append(
                [
                    human(kind),
                    name,
                    "all",
                    None,
                    int(g["hits"].sum()),
                    float(g["probability"].sum()),
                    1 / float(g["probability"].sum()),
                    float(tot),
                    exact_str(tot),
                ]
            )
        for r in g.itertuples(index=False):
            label = name
            rows.append(
                [
                    human(kind),
                    label,
                    ways_text(sheet, name, r.win) if kind == "ways" else f"x{r.multiplier}",
                    float(r.win),
                    int(r.hits),
                    float(r.probability),
                    float(r.one_in),
                    float(r.rtp),
                    exact_str(r.rtp_exact),
                ]
            )
    total = sum(c["rtp_exact"], Fraction(0))
    rows.append(
        [
            "total",
            "",
            "",
            None,
            int(c["hits"].sum()),
            float(c["probability"].sum()),
            None,
            float(total),
            exact_str(total),
        ]
    )
    frame = pd.DataFrame(
        rows,
        columns=[
            "kind",
            "combination",
            "multiplier",
            WIN_COINS,
            "hits",
            HITS_PER_SPIN,
            SPINS_PER_HIT,
            "RTP contribution",
            "RTP exact",
        ],
    )
    return sheet._section(
        "combinations",
        [
            Table(
                "Hits over the full cycle for every pay",
                frame,
                {
                    WIN_COINS: "x",
                    "hits": "int",
                    HITS_PER_SPIN: "prob",
                    SPINS_PER_HIT: "odds",
                    "RTP contribution": "pct6",
                    "multiplier": "text",
                },
                total_row=True,
                note=f"Cycle {sheet.par.cycle:,}. "
                + pay_rule(sheet.game).combinations_scope(sheet.game)
                + pay_rule(sheet.game).sheet.combinations_note,
            )
        ],
    )
