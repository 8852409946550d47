"""The PAR sheet of a game at one bet level: every figure of a report.

:func:`par_sheet` runs the exact engine (at every bet level), the player
sessions (:mod:`slotmath.engine.session`) and the Monte Carlo cross-check, and
returns a :class:`ParSheet` whose ``sections`` hold titled tables
(:class:`slotmath.report.sheettable.Table`) and figures (:mod:`slotmath.report.plots`).
``notebooks/par_sheet.ipynb`` shows them (``sheet.show(key)``) and saves
``par.json``, ``par.txt`` and ``par.xlsx`` (``sheet.save(folder)``).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from slotmath import __version__
from slotmath.analysis.simulation import cross_check
from slotmath.engine.distribution import CONFIDENCE_LEVELS, WIN_EDGES, z_value
from slotmath.engine.session import SESSION_LENGTHS, session
from slotmath.io.files import write_text_atomic
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.model import Game
from slotmath.report import plots
from slotmath.report.featuresheet import feature_tables, walk_estimates, walk_scalars
from slotmath.report.sheetparts import (  # noqa: F401  (re-exported)
    LEVEL_FIGURES,
    PARTIAL,
    ROOT,
    VOLATILITY_CLASSES,
    WAYS_NOTE,
    _agrees,
    _finite,
    _installed_folder,
    _relative,
    channel_groups,
    coin_values,
    figure_html,
    file_sha256,
    fixed_floats,
    git_revision,
    last_commit_date,
    level_figures,
    odds_text,
    volatility_class,
)
from slotmath.report.sheettable import Section, Table, escape, exact_str, figure_table, human, label
from slotmath.report.workbook import write_workbook
from slotmath.rules.par import ParResult, fraction_str, par

#: Monte Carlo rounds of the cross-check: enough for its RTP test to detect an
#: error of 1 percentage point on every seed game (4 SD / sqrt(N) = 0.97 pp at
#: Piggy's SD 17.2, the largest; see :func:`slotmath.montecarlo.convergence.detectable_rtp_error`).
DEFAULT_SPINS = 50_000_000
DEFAULT_SEED = 20240601
#: Set to ``1`` (by ``slotmath report``) to show the steps of :func:`par_sheet`.
PROGRESS_ENV = "SLOTMATH_PROGRESS"
FIGURE_NAMES = {"rtp": "RTP [x total bet]", "hit_frequency": "hit frequency", "sd": "SD [x total bet]"}
#: Section key -> (heading, worksheet name, introduction).
SECTIONS = {
    "identification": (
        "Identification",
        "Identification",
        "The game file is identified by its SHA-256 digest; the package version "
        "and commit identify the code that computed the figures.",
    ),
    "reels": (
        "Reel strips",
        "Reel strips",
        "The ordered symbols of every reel, stop 0 first. A stop shows its own position "
        "in the top row and the following positions below it. Weighted (virtual) reels "
        "list the weight of every stop.",
    ),
    "symbols": (
        "Symbols and counts per reel",
        "Symbols",
        "What each symbol is and does, and how many stops (or how much stop weight) each reel gives it.",
    ),
    "paytable": ("Pay table", "Pay table", "Every paying combination with its pay at every bet level."),
    "paylines": (
        "Paylines",
        "Paylines",
        "The row each payline takes on every reel (row 1 is the top row), and the RTP each line returns.",
    ),
    "combinations": (
        "Combination table",
        "Combinations",
        "For every pay: its hits over the full cycle (all lines), probability per "
        "spin, odds and RTP contribution, grouped by pay-table entry with a sub-row "
        "per wild multiplier.",
    ),
    "summary": (
        "Summary",
        "Summary",
        "Theoretical payback and its split by component, hit frequency, volatility, "
        "odds of features, jackpots and the top award, and the same figures at every "
        "bet level the game offers.",
    ),
    "volatility": (
        "Volatility",
        "Volatility",
        "Standard deviation of the total win of a spin, the volatility index VI = "
        "z x SD at 90, 95 and 99 % confidence, and the exact range the payback of N "
        "spins falls in.",
    ),
    "distribution": (
        "Win distribution",
        "Win distribution",
        "How often each size of win occurs and how much of the RTP it pays. The "
        "full distribution is in the workbook.",
    ),
    "sessions": (
        "Player sessions",
        "Sessions",
        "The exact distribution of the result of a session of N spins at this bet, by "
        "convolution of the per-spin distribution.",
    ),
    "features": (
        "Feature sheets",
        "Features",
        "Figures of the game's features as computed by its rules module.",
    ),
    "simulation": (
        "Monte Carlo cross-check",
        "Monte Carlo",
        "A seeded simulation with an independent evaluator; each simulated figure is "
        "compared with its exact value by a test that holds for this game.",
    ),
    "notes": ("Notes", "Notes", ""),
}


@dataclass
class ParSheet:
    """Every figure of a PAR report for one game at one bet level.

    Build with :func:`par_sheet`.  ``sections`` maps a key (identification,
    reels, symbols, paytable, combinations, summary, volatility,
    distribution, sessions, features, simulation, notes) to a
    :class:`Section`.
    """

    game: Game
    par: ParResult
    levels: dict
    sessions: list
    simulation: object | None
    parameters: dict
    generated: str | None

    # ------------------------------------------------------------ display
    def show(self, key: str) -> None:
        """Display section ``key`` in a notebook (tables and figures)."""
        from IPython.display import HTML, display

        display(HTML(self.section_html(key)))

    def section_html(self, key: str) -> str:
        """Section ``key`` as HTML: its numbered heading, introduction,
        tables and figures.  The heading is kept with the first block that
        follows it (a print page never ends on a heading)."""
        if key == "title":
            return self.title_html()
        if key == "contents":
            return self.contents_html()
        if key in SECTIONS and key not in self.sections:
            return ""  # a section this game has none of (paylines of a ways game)
        sec = self.sections[key]
        number = list(self.sections).index(key) + 1
        head = [f'<h2 id="sec-{key}" class="par-section">{number}. {escape(sec.title)}</h2>']
        intro = SECTIONS[key][2]
        head += [f'<p class="par-intro">{escape(t)}</p>' for t in (intro, sec.text) if t]
        blocks = []
        figures = [figure_html(build(), caption) for caption, build in sec.figures]
        if sec.figures_first:
            blocks += figures
        for i, t in enumerate(t for t in sec.tables if t.html):
            blocks.append(t.to_html(f"{key}{i}"))
            blocks += [figure_html(build(), caption) for caption, build in t.figures]
        if not sec.figures_first:
            blocks += figures
        first = blocks.pop(0) if blocks else ""
        keep = "\n".join(head + [first])
        return "\n".join([f'<div class="par-keep">{keep}</div>'] + blocks)

    def title_html(self) -> str:
        g, b = self.game, self.par.bet
        ident = " ".join(
            x
            for x in (
                f"version {g.version}" if g.version else "",
                f"RTP variant {g.variant}" if g.variant else "",
            )
            if x
        )
        pays = f"{g.rows**g.reels:,} ways" if g.pays_by == "ways" else f"{len(g.paylines)} lines"
        sub = (
            f"{g.reels} reels x {g.rows} rows, {pays}, bet level {b.level} "
            f"({b.total_bet} coins total bet); RTP {float(self.par.rtp):.4%}"
            + (f"; {ident}" if ident else "")
            + (f"; game file of {self.generated}" if self.generated else "")
        )
        running = f"PAR sheet: {g.title}" + (f", {ident}" if ident else "")
        # a CSS string inside <style> (no HTML entities there)
        running = running.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3c ")
        page = (
            f'<style>@page {{ @top-left {{ content: "{running}"; '
            "font: 9px sans-serif; color: #5c6b7a; } }</style>"
        )
        return page + f'<h1>PAR sheet: {escape(g.title)}</h1><p class="par-subtitle">{escape(sub)}</p>'

    def contents_html(self) -> str:
        """The contents line: a link to every section."""
        links = [
            f'<a href="#sec-{k}">{i}. {escape(s.title)}</a>'
            for i, (k, s) in enumerate(self.sections.items(), start=1)
        ]
        return (
            '<p class="par-contents"><b>Contents:</b> ' + " · ".join(links) + "</p>"
            '<p class="par-intro">Every figure is exact (full-cycle counting with integer '
            "hit counts) unless it is marked as simulated or approximate. Wins, SD and "
            "volatility index are in units of the total bet of the sheet's bet level.</p>"
        )

    # ------------------------------------------------------------ files
    def save(self, out: str | Path | None) -> None:
        """Write par.json, par.txt and par.xlsx into folder ``out`` (None:
        nothing is written, as when the notebook is run by hand)."""
        if out is None:
            return
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        data = json.loads(self.par.to_json())
        # the exact payback intervals of the sheet, never the normal approximation
        data["confidence"] = self.payback_table().to_dict(orient="records")
        write_text_atomic(out / "par.json", json.dumps(fixed_floats(data), indent=2) + "\n")
        write_text_atomic(out / "par.txt", self.par.text() + "\n")
        write_workbook(self, out / "par.xlsx")

    # ------------------------------------------------------------ sections
    @cached_property
    def sections(self) -> dict:
        builders = (
            self._identification,
            self._reels,
            self._symbols,
            self._paytable,
            self._paylines,
            self._combinations,
            self._summary,
            self._volatility,
            self._distribution,
            self._sessions,
            self._features,
            self._simulation,
            self._notes,
        )
        return {s.key: s for s in (b() for b in builders) if s is not None}

    def _identification(self) -> Section:
        g, b, p = self.game, self.par.bet, self.parameters
        folder = Path(g.source).parent
        rows = [
            ("game", g.title, "text"),
            ("version", g.version or "not given in the game file", "text"),
            ("RTP variant", g.variant or "not given in the game file", "text"),
            ("game name", g.name, "text"),
            ("rules", human(g.rules), "text"),
        ]
        if g.description:
            rows.append(("description", g.description, "text"))
        rows += [
            ("game file", _relative(g.source), "text"),
            ("game file SHA-256", file_sha256(g.source), "text"),
        ]
        # a game folder (data/games/<name>/game.yaml) may hold strip and table files
        extras = (
            sorted(
                f
                for f in folder.iterdir()
                if f.is_file() and f.name != "game.yaml" and not f.name.startswith(".")
            )
            if Path(g.source).name == "game.yaml"
            else []
        )
        for extra in extras:
            rows.append((f"data file {extra.name} SHA-256", file_sha256(extra), "text"))
        rows += [
            ("grid", f"{g.reels} reels x {g.rows} rows", "text"),
            ("ways", g.rows**g.reels, "int") if g.pays_by == "ways" else ("paylines", len(g.paylines), "int"),
            ("bet levels offered", ", ".join(map(str, g.levels)), "text"),
            ("bet level of this sheet", b.level, "int"),
            ("line bet [coins]", b.line_bet, "int"),
            ("total bet [coins]", b.total_bet, "int"),
            (
                "pay table",
                "linear in the bet level"
                if self._linear()
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
            ("game file last committed", self.generated or "not committed", "text"),
        ]
        shown = dict(p, out=_installed_folder(p.get("out"), g.name))
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
        return self._section(
            "identification",
            [figure_table("Game and provenance", rows), figure_table("Notebook parameters", params)],
        )

    def _section(self, key: str, tables=(), figures=(), **kw) -> Section:
        title, sheet, _ = SECTIONS[key]
        return Section(key, title, sheet, list(tables), list(figures), **kw)

    def _linear(self) -> bool:
        from slotmath.analysis.metrics import equivalent_levels

        same = equivalent_levels(self.game)
        return len(set(same.values())) == 1

    def _reels(self) -> Section:
        g = self.game
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
        return self._section("reels", tables, figures, figures_first=True)

    def _symbols(self) -> Section:
        g = self.game
        rows = []
        for s in g.symbols:
            subs = mult = ""
            if s.wild:
                subs = ", ".join(sorted(s.wild.substitutes))
                mult = (
                    " / ".join(f"{m}" for m in s.wild.by_count[1:]) + " by wild count"
                    if s.wild.by_count
                    else (f"x{s.wild.per_wild} per wild" if s.wild.per_wild > 1 else "none")
                )
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
        return self._section("symbols", tables)

    def _paytable(self) -> Section:
        g = self.game
        rows = []
        for p in g.line_pays:
            if p.anywhere:
                form = f"exactly {p.exactly} {p.anywhere} anywhere on the line"
            else:
                form = " ".join(
                    "|".join(sorted(pos)) if len(pos) > 1 else next(iter(pos)) for pos in p.positions
                )
            row = {"combination": p.name, "symbols (from reel 1)": form}
            row.update({f"pays at level {lv} [coins]": pay for lv, pay in zip(g.levels, p.pays, strict=True)})
            rows.append(row)
        tables = [
            Table(
                "Ways pays [coins per way at each bet level]",
                pd.DataFrame(rows),
                note="Each symbol pays its longest run from reel 1 on adjacent reels, "
                "in any row, times the number of ways (the product of its "
                "matching cells per reel, wild multipliers per way).",
            )
            if g.pays_by == "ways"
            else Table(
                "Line pays [coins per line at each bet level]",
                pd.DataFrame(rows),
                note="Only the highest win per line is paid; wins are paid left to right on adjacent reels.",
            )
        ]
        if g.scatter_pays:
            sc = pd.DataFrame(
                [
                    {
                        "symbol": s.symbol,
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
        return self._section("paytable", tables)

    def _paylines(self) -> Section | None:
        g, r = self.game, self.par
        if g.pays_by == "ways":
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
        return self._section("paylines", [table])

    def _combinations(self) -> Section:
        c = self.par.combinations
        order = {p.name: i for i, p in enumerate(self.game.line_pays)}
        order.update(
            {f"{s.count} x {s.symbol}": len(order) + i for i, s in enumerate(self.game.scatter_pays)}
        )
        kinds = {"line": 0, "ways": 0, "scatter": 1}
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
                        f"x{r.multiplier}",
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
                "win [coins]",
                "hits",
                "probability",
                "1 in N",
                "RTP contribution",
                "RTP exact",
            ],
        )
        return self._section(
            "combinations",
            [
                Table(
                    "Hits over the full cycle for every pay",
                    frame,
                    {
                        "win [coins]": "x",
                        "hits": "int",
                        "probability": "prob",
                        "1 in N": "odds",
                        "RTP contribution": "pct6",
                        "multiplier": "text",
                    },
                    total_row=True,
                    note=f"Cycle {self.par.cycle:,}. "
                    + (
                        WAYS_NOTE
                        if self.game.pays_by == "ways"
                        else "Hits are summed over all lines; probability is "
                        "hits / cycle (expected occurrences per spin). The multiplier is the wild "
                        "multiplier on the line; an entry paid at several multipliers has a row for "
                        "all of them, then a sub-row per multiplier."
                    ),
                )
            ],
        )

    def _summary(self) -> Section:
        r, d = self.par, self.par.distribution
        rtp = float(r.rtp)
        hit = r.hit_frequency
        pmax = float(d.max_win_probability)
        vi = r.volatility_index
        rows = [
            ("RTP [x total bet]", rtp, "pct6"),
            (
                "RTP exact",
                fraction_str(r.rtp) or "not a fraction (float64 computation, relative error below 1e-12)",
                "text",
            ),
            ("hit frequency: paying spins [probability]", hit, "pct"),
            ("hit frequency: 1 in N spins", 1 / hit if hit else None, "odds"),
            ("SD [x total bet]", r.sd, "num"),
        ]
        rows += [(f"VI {k} % [x total bet]", v, "num") for k, v in vi.items()]
        rows += [
            ("volatility class (by VI 90 %)", volatility_class(vi["90"]), "text"),
            ("max win [x total bet]", float(d.max_win), "x"),
            ("max win: 1 in N spins", 1 / pmax if pmax else None, "odds"),
            ("cycle", r.cycle, "int"),
            ("total bet [coins]", r.bet.total_bet, "int"),
        ]
        coins, currency = coin_values(self.game)
        if coins:
            rows.append(
                (
                    f"total bet [{currency}] at coin values {coins[0]:.2f} to {coins[-1]:.2f}",
                    f"{coins[0] * r.bet.total_bet:,.2f} to {coins[-1] * r.bet.total_bet:,.2f}",
                    "text",
                )
            )
        feats = r.features if isinstance(r.features, dict) else {}
        if isinstance(feats.get("policy"), str):
            rows.append(
                (
                    "player choice assumed by every figure of this sheet",
                    f"always {human(feats['policy'])}",
                    "text",
                )
            )
            for pol, value in (feats.get("by_choice") or {}).items():
                rows.append((f"RTP if the player always chooses {human(pol)}", float(value), "pct6"))
        headline = figure_table(
            "Headline figures",
            rows,
            note=(
                "Hit frequency counts spins (rounds, where features follow a spin) paying "
                "anything: all lines, scatters and features together, not per-line hits. "
                "Volatility class: low below VI 90 % = 5, medium 5 to 10, high 10 to 20, very "
                "high above 20."
            ),
        )
        channels = pd.DataFrame(
            {
                "component": [human(k) for k in r.components] + ["total"],
                "RTP [x total bet]": [float(v) for v in r.components.values()] + [rtp],
                "share of RTP": [float(v) / rtp if rtp else 0.0 for v in r.components.values()]
                + [1.0 if rtp else 0.0],
                "exact": [exact_str(v) for v in r.components.values()] + [exact_str(r.rtp)],
            }
        )
        shown, caption = channel_groups(r.components)
        by_channel = Table(
            "RTP by component",
            channels,
            {"RTP [x total bet]": "pct6", "share of RTP": "pct", "exact": "text"},
            total_row=True,
            figures=[(caption, lambda: plots.rtp_by_channel(shown, r.rtp))],
            note="'exact' is blank where a component is computed in float64.",
        )
        tables = [
            headline,
            by_channel,
            Table(
                "Plays per feature and per jackpot",
                self.odds_frame(),
                {"1 in N spins": "odds", "probability per spin": "prob"},
            ),
            Table(
                "Figures by bet level",
                self.levels_frame(),
                {
                    "RTP": "pct6",
                    "RTP exact": "text",
                    "hit frequency": "pct",
                    "SD [x total bet]": "num",
                    "VI 90 % [x total bet]": "num",
                    "max win [x total bet]": "x",
                    "total bet [coins]": "int",
                },
            ),
        ]
        return self._section("summary", tables)

    def odds_frame(self) -> pd.DataFrame:
        """Plays per feature, jackpot and top award: 1 in N spins.  An event
        the rules module reports under several names is listed once."""
        rows = []
        c = self.par.combinations
        if len(c):
            top = c.loc[c["win"].astype(float).idxmax()]
            mult = f" (x{top['multiplier']})" if top["multiplier"] != 1 else ""
            rows.append((f"top award: {top['combination']}{mult}", float(top["one_in"]), "combination table"))
        for _, row in c[~c["kind"].isin(["line", "ways", "scatter"])].iterrows():
            rows.append(
                (f"{human(row['kind'])}: {row['combination']}", float(row["one_in"]), "combination table")
            )
        seen: set = set()  # 1 in N values already listed: one event under several keys
        for path, value in walk_scalars(self.par.features):
            leaf = path[-1]
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and (leaf == "one_in" or leaf.endswith("_one_in") or leaf.startswith("plays_per"))
            ):
                key = f"{float(value):.12g}"
                if key in seen:
                    continue
                seen.add(key)
                parts = [human(p) for p in path if p not in ("one_in", "odds")]
                if leaf.endswith("_one_in"):
                    parts[-1] = human(leaf[: -len("_one_in")])
                rows.append((": ".join(parts), float(value), "features"))
        pmax = float(self.par.distribution.max_win_probability)
        rows.append(
            (
                f"max total win ({float(self.par.distribution.max_win):g}x total bet)",
                1 / pmax if pmax else None,
                "win distribution",
            )
        )
        return pd.DataFrame(
            {
                "event": [r[0] for r in rows],
                "1 in N spins": [r[1] for r in rows],
                "probability per spin": [1 / r[1] if r[1] else 0.0 for r in rows],
                "source": [r[2] for r in rows],
            }
        )

    def levels_frame(self) -> pd.DataFrame:
        """RTP, hit frequency, SD, VI 90 % and max win at every bet level."""
        rows = []
        for lv, figs in self.levels.items():
            rows.append(
                {
                    "bet level": lv,
                    "total bet [coins]": self.game.bet(lv).total_bet,
                    "RTP": float(figs["rtp"]),
                    "RTP exact": exact_str(figs["rtp"]) or "float64",
                    "hit frequency": float(figs["hit_frequency"]),
                    "SD [x total bet]": float(figs["sd"]),
                    "VI 90 % [x total bet]": float(figs["vi"]),
                    "max win [x total bet]": float(figs["max_win"]),
                }
            )
        return pd.DataFrame(rows)

    def _volatility(self) -> Section:
        r = self.par
        rows = [("SD [x total bet]", None, r.sd, "num")]
        rows += [
            (f"VI {round(c * 100)} %", z_value(c), r.volatility_index[str(round(c * 100))], "num")
            for c in CONFIDENCE_LEVELS
        ]
        vol = figure_table(
            "Standard deviation and volatility index",
            rows,
            columns=("figure", "z", "value [x total bet]"),
            note="VI = z x SD of the total win of a spin; z is the two-sided normal quantile.",
        )
        conf = self.payback_table()
        wide = pd.DataFrame({"spins N": sorted(set(conf["spins"]))})
        formats = {"spins N": "int"}
        for c in CONFIDENCE_LEVELS:
            t = conf[conf["confidence"] == c].set_index("spins")
            for side in ("low", "high"):
                col = f"{c:.0%} {side}"
                wide[col] = wide["spins N"].map(t[side])
                formats[col] = "pct2"
        d = r.distribution
        note = (
            "Exact: the low and high ends are the (1 - c)/2 and (1 + c)/2 quantiles of the "
            "payback (total win / amount bet) of N spins, from the N-fold convolution of "
            "the exact per-spin distribution (see Player sessions for its error bound); "
            "the payback stays between 0 and the max win. The normal approximation RTP +- "
            "VI / sqrt(N) is not used: it fails for heavy-tailed wins."
        )
        if abs(float(r.rtp) - float(d.mean)) > 1e-12:
            note += (
                f" The payback counts the wins paid to the player ({float(d.mean):.4%} "
                f"of the bet on average), not the {float(r.rtp) - float(d.mean):.4%} of "
                "the RTP that is not a spin win."
            )
        band = Table(
            "Payback range after N spins",
            wide,
            formats,
            note=note,
            figures=[
                (
                    "Payback range after N spins at 90, 95 and 99 % confidence (exact quantiles).",
                    lambda: plots.confidence_band(conf, d.mean),
                )
            ],
        )
        return self._section("volatility", [vol, band])

    def payback_table(self) -> pd.DataFrame:
        """Exact payback interval after each session length at 90/95/99 %:
        columns confidence, spins, low, high [x amount bet]."""
        rows = [(c, s.spins, *s.payback_interval(c)) for c in CONFIDENCE_LEVELS for s in self.sessions]
        return pd.DataFrame(rows, columns=["confidence", "spins", "low", "high"])

    def _distribution(self) -> Section:
        d = self.par.distribution
        x, p = d.x, d.probabilities
        rtp = float(d.mean)
        rows = [{"win [x total bet]": "no win", "probability": float(p[x == 0].sum())}]
        edges = [e for e in (0, *WIN_EDGES) if e < x.max()] + [math.inf]
        for lo, hi in itertools.pairwise(edges):
            m = (x > lo) & (x < hi) if lo == 0 else (x >= lo) & (x < hi)
            label = (
                f"above 0, below {hi:g}"
                if lo == 0
                else f"{lo:g} to below {hi:g}"
                if hi != math.inf
                else f"{lo:g} and above"
            )
            rows.append(
                {
                    "win [x total bet]": label,
                    "probability": float(p[m].sum()),
                    "RTP share": float((x[m] * p[m]).sum()) / rtp if rtp else 0.0,
                }
            )
        bands = pd.DataFrame(rows)
        bands["1 in N"] = [1 / v if v else math.inf for v in bands["probability"]]
        bands["cumulative RTP share"] = bands["RTP share"].fillna(0).cumsum()
        bands = bands[["win [x total bet]", "probability", "1 in N", "RTP share", "cumulative RTP share"]]
        ladder = [t for t in (0.01, *WIN_EDGES) if t <= x.max()]
        ex = d.exceedance_table(ladder + [float(d.max_win)])
        ex.columns = ["win at least [x total bet]", "probability", "1 in N"]
        full = d.to_frame()
        full = pd.DataFrame(
            {
                "win [x total bet]": full["win"],
                "weight": full["weight"],
                "probability": full["probability"],
                "P(win >= x)": full["probability"][::-1].cumsum()[::-1],
            }
        )
        figures = [
            ("Probability per spin by win size (log scales).", lambda: plots.win_histogram(x, p)),
            (
                "Cumulative share of the RTP paid by wins up to each size.",
                lambda: plots.cumulative_rtp(x, p, rtp),
            ),
        ]
        paid = float(self.par.rtp) - rtp
        share_note = (
            ""
            if abs(paid) < 1e-12
            else f"Shares are of the return paid as spin wins ({rtp:.4%}); the other "
            f"{paid:.4%} of the RTP is not a spin win (see the RTP by channel)."
        )
        tables = [
            Table(
                "Wins by size",
                bands,
                {"probability": "prob", "1 in N": "odds", "RTP share": "pct", "cumulative RTP share": "pct"},
                figures=figures,
                note=share_note,
            ),
            Table(
                "P(win >= x)",
                ex,
                {"win at least [x total bet]": "x", "probability": "prob", "1 in N": "odds"},
            ),
            Table(
                "Distribution of the total win of a spin",
                full,
                {
                    "win [x total bet]": "x",
                    "probability": "prob",
                    "P(win >= x)": "prob",
                    "weight": "int" if d.exact else "prob",
                },
                html=False,
                note="Weights are hit counts over the cycle."
                if d.exact
                else "Weights are probabilities (float64).",
            ),
        ]
        return self._section("distribution", tables)

    def _sessions(self) -> Section:
        labels = [f"{s.spins:,} spins" for s in self.sessions]
        spec = [
            ("expected net result [x total bet]", lambda s: s.mean, "x"),
            ("SD of the net result [x total bet]", lambda s: s.sd, "x"),
            ("P(ahead: net result > 0)", lambda s: s.p_ahead, "pctp"),
            ("P(exactly even)", lambda s: s.p_even, "pctp"),
            ("P(lose half the stake or more)", lambda s: s.p_at_most(-s.spins / 2), "pctp"),
        ]
        spec += [
            (f"{q:.0%} quantile of the net result [x total bet]", lambda s, q=q: s.quantile(q), "x")
            for q in (0.05, 0.25, 0.5, 0.75, 0.95)
        ]
        spec += [
            ("largest possible net result [x total bet]", lambda s: s.max_net, "x"),
            ("top of the exact lattice [x total bet]", lambda s: s.upper, "x"),
            ("P(net result above the top of the lattice)", lambda s: s.tail, "prob"),
            ("bound on the error of a probability", lambda s: s.error_bound, "prob"),
            ("bound on the error of a cumulative probability", lambda s: s.cdf_error_bound, "prob"),
        ]
        rows = [(name, *[f(s) for s in self.sessions], fmt) for name, f, fmt in spec]
        exact = all(s.exact_lattice for s in self.sessions)
        note = (
            "Exact lattice convolution of the per-spin distribution (FFT, float64), over the "
            "whole range from losing every bet to the top of the lattice; the probability "
            "above it (up to the largest possible result, N x max win - N) is one figure. "
            "The error bounds follow from the float64 FFT error of each product."
            if exact
            else "Some wins were moved to a coarser lattice (mean kept) to bound the size; "
            "quantiles are approximate to one lattice step per spin."
        )
        table = figure_table("Net result of a session", rows, note=note, columns=("figure", *labels))
        return self._section(
            "sessions",
            [table],
            [
                (
                    "Distribution of the payback of each session length, over the "
                    "whole range up to the max win.",
                    lambda: plots.session_cdf(self.sessions),
                )
            ],
        )

    def _features(self) -> Section:
        tables = feature_tables(self.par.features, self.par.tables, self.game)
        text = "" if tables else "This game has no feature beyond its line and scatter pays."
        return self._section("features", tables, text=text)

    def _simulation(self) -> Section:
        from slotmath.montecarlo.convergence import EXACT_COUNT_BELOW, Z_PASS, detectable_rtp_error

        sim = self.simulation
        if sim is None:
            return self._section("simulation", text="No simulation was run (Monte Carlo spins = 0).")
        d = sim.to_dict()
        head = (
            f"Simulated: {d.get('spins', 0):,} rounds, seed {d.get('seed')}"
            + (
                f", {d['chunks']} chunk{'s' * (d['chunks'] != 1)} of {d['chunk']:,} rounds (the "
                "result does not depend on the number of processes)"
                if "chunks" in d
                else ""
            )
            + "."
        )
        conv = getattr(sim, "convergence", None)
        if conv is None:
            return self._section("simulation", [self._estimates_table(d)], text=head)
        f = conv.figures
        paid = float(self.par.distribution.mean)
        differs = abs(float(self.par.rtp) - paid) > 1e-12
        names = {
            "RTP": "RTP paid as round wins" if differs else "RTP",
            "hit frequency": "hit frequency",
            "SD": "SD",
        }
        row_fmt = {"RTP": "pct6", "hit frequency": "pct6", "SD": "num"}
        figures = pd.DataFrame(
            {
                "figure": [names[x] for x in f["figure"]],
                "exact": f["exact"],
                "simulated": f["simulated"],
                "standard error": f["se"],
                "95 % CI low": f["ci_low"],
                "95 % CI high": f["ci_high"],
                "z": f["z"],
            }
        )
        figures["check"] = [_agrees(z) for z in f["z"]]
        rows_fmt = [row_fmt[x] for x in f["figure"]]
        table = Table(
            "RTP, hit frequency and SD",
            figures,
            row_formats=rows_fmt,
            note="z = (simulated - exact) / standard error; a check passes when "
            f"|z| < {Z_PASS:g}. Standard errors are those of the exact "
            "distribution: the RTP's is SD / sqrt(N); the SD's comes from the "
            "exact fourth moment mu4 of the round win, sqrt((mu4 - SD^4) / N) "
            "/ (2 SD), which holds for heavy-tailed wins.",
        )
        table.row_formats = ["text" if c == "figure" else None for c in ()] or rows_fmt
        table.column_formats = {"z": "z", "check": "text"}
        tables = [table]
        sd = float(self.par.distribution.sd)
        power = [
            ("rounds simulated", int(conv.rounds), "int"),
            (
                "smallest RTP error the check detects (|z| >= 4) [x total bet]",
                detectable_rtp_error(sd, conv.rounds),
                "pct",
            ),
            ("rounds for the RTP to +-0.01 percentage points at 95 %", conv.rounds_needed, "odds"),
        ]
        tables.append(figure_table("Power of the check", power))
        e = conv.events
        if len(e):
            events = pd.DataFrame(
                {
                    "event": [human(x) for x in e["event"]],
                    "hits": e["hits"],
                    "simulated 1 in N": [_finite(v) for v in e["one_in"]],
                    "exact 1 in N": [_finite(v) for v in e["exact_one_in"]],
                    "z": e["z"],
                    "check": [_agrees(z) for z in e["z"]],
                }
            )
            tables.append(
                Table(
                    "Pays and features: simulated against exact frequency",
                    events,
                    {
                        "hits": "int",
                        "simulated 1 in N": "odds",
                        "exact 1 in N": "odds",
                        "z": "z",
                        "check": "text",
                    },
                    note=f"Events expected fewer than {EXACT_COUNT_BELOW} times are "
                    "tested with the exact Poisson tail probability (its z is "
                    "the equivalent normal quantile); 1 in N is blank for an "
                    "event never seen.",
                )
            )
        h = conv.histogram
        h = h[(h["rounds"] > 0) | (h["exact"].fillna(0) > 0)]
        tables.append(
            Table(
                "Rounds by win size [x total bet]",
                pd.DataFrame(
                    {
                        "win [x total bet]": ["no win" if b == "0" else b for b in h["bin"]],
                        "rounds": h["rounds"].tolist(),
                        "simulated": h["probability"].tolist(),
                        "exact": h["exact"].tolist(),
                        "z": h["z"].tolist(),
                        "check": [_agrees(z) for z in h["z"]],
                    }
                ),
                {"rounds": "int", "simulated": "prob", "exact": "prob", "z": "z", "check": "text"},
                note=f"Largest |z| over all rows: {conv.max_abs_z:.2f}.",
            )
        )
        notes = [n for n in conv.notes]
        failing = [
            f"{t.title}: {row[0]}"
            for t in tables
            if "check" in t.frame.columns
            for row in t.frame.itertuples(index=False)
            if row[-1] == "fails"
        ]
        text = head
        if notes:
            text += " " + " ".join(notes)
        if failing:
            text += (
                f" {len(failing)} check{'s' * (len(failing) != 1)} failed ("
                + "; ".join(failing[:5])
                + "): a failing check means the simulation and "
                "the exact figures disagree by more than chance allows; the sheet must "
                "not be published until the cause is found."
            )
        return self._section("simulation", tables, text=text)

    def _estimates_table(self, d: dict) -> Table:
        rows = []
        for path, est in walk_estimates(d):
            z = est.get("z")
            lo, hi = est.get("ci95") or (None, None)
            rows.append(
                {
                    "figure": " / ".join(FIGURE_NAMES.get(p, label(p)) for p in path),
                    "exact": est.get("exact"),
                    "simulated": est["value"],
                    "standard error": est.get("se"),
                    "95 % CI low": lo,
                    "95 % CI high": hi,
                    "z": z,
                    "agrees (|z| < 4)": _agrees(z),
                }
            )
        fmt = {c: "num" for c in ("exact", "simulated", "standard error", "95 % CI low", "95 % CI high")}
        fmt["z"] = "odds"
        return Table(
            "Simulated figures", pd.DataFrame(rows), fmt, note="z = (simulated - exact) / standard error."
        )

    def _notes(self) -> Section:
        notes = [human(n) for n in self.par.notes] + [
            "Figures are per spin (or per round, where a feature follows the spin) and relative "
            "to the total bet unless a unit says otherwise.",
            "Exact figures come from full-cycle counting with integer hit counts; the RTP is "
            "given as an exact fraction where all inputs are integers.",
            "Simulated figures are marked as such and only cross-check the exact ones.",
        ]
        return self._section("notes", [Table("Notes", pd.DataFrame({"note": notes}))])


def par_sheet(
    game: str | Game,
    level: int | None = None,
    spins: int = DEFAULT_SPINS,
    seed: int = DEFAULT_SEED,
    out: str | None = None,
    session_lengths=SESSION_LENGTHS,
    progress: bool | None = None,
) -> ParSheet:
    """Compute every figure of the PAR report of ``game`` at bet ``level``.

    Parameters
    ----------
    game : str or Game
        A game (or a path / data/games name to load).
    level : int, optional
        Bet level (default: the lowest).
    spins : int
        Monte Carlo spins of the cross-check (0: none).
    seed : int
        Seed of the cross-check.
    out : str, optional
        Output folder (recorded among the parameters).
    progress : bool, optional
        Show a bar of the steps (exact analysis, each other bet level,
        sessions, Monte Carlo) on the process's own stderr, which a report
        kernel shares with the ``slotmath report`` terminal; default: when
        the environment variable ``SLOTMATH_PROGRESS`` is ``1``.
    """
    parameters = {
        "game": game if isinstance(game, str) else game.name,
        "bet": level,
        "spins": spins,
        "seed": seed,
        "out": out,
    }
    if not isinstance(game, Game):
        game = load_game(game)
    if level is not None and level not in game.levels:
        raise GameFileError(
            game.source,
            "bet.levels",
            f"bet level {level} is not offered (levels: {', '.join(map(str, game.levels))})",
        )
    level = game.bet(level).level
    from slotmath.analysis.metrics import equivalent_levels

    same = equivalent_levels(game)
    others = len({same[lv] for lv in game.levels} - {same[level]})
    if progress is None:
        progress = os.environ.get(PROGRESS_ENV) == "1"
    with tqdm(
        total=2 + others + bool(spins),
        desc=game.name,
        unit="step",
        leave=True,
        file=sys.__stderr__,
        disable=not progress,
        dynamic_ncols=True,
    ) as bar:
        bar.set_postfix_str(f"exact analysis at bet level {level}")
        main = par(game, level)
        bar.update()
        levels = level_figures(game, main, bar)
        bar.set_postfix_str("player sessions")
        sessions = [session(main.distribution, n) for n in session_lengths]
        bar.update()
        simulation = None
        if spins:
            bar.set_postfix_str(f"Monte Carlo, {spins:,} rounds")
            simulation = cross_check(game, level, spins, seed, exact=main, progress=False)
            bar.update()
        bar.set_postfix_str("done")
    generated = last_commit_date(game.source) if game.source else None
    return ParSheet(game, main, levels, sessions, simulation, parameters, generated)


#: Figures the table of bet levels shows at every level.
