"""The PAR sheet of a game at one bet level: every figure of a report.

:func:`par_sheet` runs the exact engine (at every bet level), the player
sessions (:mod:`slotmath.engine.session`) and the Monte Carlo cross-check, and
returns a :class:`ParSheet` whose ``sections`` hold titled tables
(:class:`slotmath.report.sheettable.Table`) and figures (:mod:`slotmath.report.plots`).
``notebooks/par_sheet.ipynb`` shows them (``sheet.show(key)``) and saves
``par.json``, ``par.txt`` and ``par.xlsx`` (``sheet.save(folder)``).
"""
from __future__ import annotations

import base64
import hashlib
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from fractions import Fraction
from functools import cached_property
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from slotmath import __version__
from slotmath.report import plots
from slotmath.analysis.simulation import cross_check
from slotmath.engine.distribution import CONFIDENCE_LEVELS, z_value
from slotmath.report.featuresheet import feature_tables, walk_estimates, walk_scalars
from slotmath.io.files import write_text_atomic
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.model import Game
from slotmath.rules.par import ParResult, fraction_str, par
from slotmath.engine.session import SESSION_LENGTHS, session
from slotmath.report.sheettable import Section, Table, escape, exact_str, figure_table, label
from slotmath.report.workbook import write_workbook

ROOT = Path(__file__).resolve().parents[2]   # the source tree (slotmath/report/sheet.py)
DEFAULT_SPINS = 1_000_000
DEFAULT_SEED = 20240601
WIN_BANDS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000)
#: Name part of a report folder being built (``reports/.<game>.partial-*``).
PARTIAL = ".partial-"
#: Set to ``1`` (by ``slotmath report``) to show the steps of :func:`par_sheet`.
PROGRESS_ENV = "SLOTMATH_PROGRESS"
FIGURE_NAMES = {"rtp": "RTP [x total bet]", "hit_frequency": "hit frequency",
                "sd": "SD [x total bet]"}


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def git_revision(paths) -> str:
    """Commit of the checkout holding the package, noting uncommitted
    changes under ``paths``; 'unknown' outside a git checkout."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=20)
        if head.returncode:
            return "unknown (not a git checkout)"
        status = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                 *map(str, paths)], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"
    commit = head.stdout.strip()
    if status.stdout.strip():
        commit += " + uncommitted changes in the game folder or the package"
    return commit


def _installed_folder(out, name: str):
    """The report folder as the reader finds it: a temporary build folder
    (``.<game>.partial-*``) is shown as the folder it is installed as."""
    if out is None:
        return None
    p = Path(out)
    if p.name.startswith(f".{name}{PARTIAL}"):
        p = p.parent / name
    return _relative(p)


def _relative(path: str | Path) -> str:
    p = Path(path).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


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
    generated: str

    # ------------------------------------------------------------ display
    def show(self, key: str) -> None:
        """Display section ``key`` in a notebook (tables and figures)."""
        from IPython.display import HTML, display

        display(HTML(self.section_html(key)))

    def section_html(self, key: str) -> str:
        if key == "title":
            return self.title_html()
        sec = self.sections[key]
        parts = [f"<p>{escape(sec.text)}</p>"] if sec.text else []
        figures = [figure_html(build(), caption) for caption, build in sec.figures]
        if sec.figures_first:
            parts += figures
        for i, t in enumerate(t for t in sec.tables if t.html):
            parts.append(t.to_html(f"{key}{i}"))
            parts += [figure_html(build(), caption) for caption, build in t.figures]
        if not sec.figures_first:
            parts += figures
        return "\n".join(parts)

    def title_html(self) -> str:
        g, b = self.game, self.par.bet
        sub = (f"{g.reels} reels x {g.rows} rows, {len(g.paylines)} lines, bet level {b.level} "
               f"({b.total_bet} coins total bet); RTP {float(self.par.rtp):.4%}; "
               f"generated {self.generated}")
        return (f"<h1>PAR sheet: {escape(g.title)}</h1>"
                f'<p class="par-subtitle">{escape(sub)}</p>')

    # ------------------------------------------------------------ files
    def save(self, out: str | Path | None) -> None:
        """Write par.json, par.txt and par.xlsx into folder ``out`` (None:
        nothing is written, as when the notebook is run by hand)."""
        if out is None:
            return
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_text_atomic(out / "par.json", self.par.to_json(indent=2) + "\n")
        write_text_atomic(out / "par.txt", self.par.text() + "\n")
        write_workbook(self, out / "par.xlsx")

    # ------------------------------------------------------------ sections
    @cached_property
    def sections(self) -> dict:
        builders = (self._identification, self._reels, self._symbols, self._paytable,
                    self._combinations, self._summary, self._volatility, self._distribution,
                    self._sessions, self._features, self._simulation, self._notes)
        return {s.key: s for s in (b() for b in builders)}

    def _identification(self) -> Section:
        g, b, p = self.game, self.par.bet, self.parameters
        folder = Path(g.source).parent
        rows = [("game", g.title, "text"), ("game name", g.name, "text"),
                ("rules", g.rules, "text")]
        if g.description:
            rows.append(("description", g.description, "text"))
        rows += [("game file", _relative(g.source), "text"),
                 ("game file SHA-256", file_sha256(g.source), "text")]
        # a game folder (data/games/<name>/game.yaml) may hold strip and table files
        extras = sorted(f for f in folder.iterdir() if f.is_file() and f.name != "game.yaml"
                        and not f.name.startswith(".")) if Path(g.source).name == "game.yaml" else []
        for extra in extras:
            rows.append((f"data file {extra.name} SHA-256", file_sha256(extra), "text"))
        rows += [("grid", f"{g.reels} reels x {g.rows} rows", "text"),
                 ("paylines", len(g.paylines), "int"),
                 ("bet levels offered", ", ".join(map(str, g.levels)), "text"),
                 ("bet level of this sheet", b.level, "int"),
                 ("line bet [coins]", b.line_bet, "int"),
                 ("total bet [coins]", b.total_bet, "int")]
        for name in g.reel_sets:
            rows.append((f"cycle of reel set '{name}'", g.cycle(name), "int"))
        rows += [("slotmath version", __version__, "text"),
                 ("git commit", git_revision([folder, Path(__file__).parent]), "text"),
                 ("generated", self.generated, "text")]
        shown = dict(p, out=_installed_folder(p.get("out"), g.name))
        params = [(f"parameter {k}", "default" if v is None else v,
                   "int" if isinstance(v, int) and not isinstance(v, bool) else "text")
                  for k, v in shown.items()]
        return Section("identification", "Identification", "Identification",
                       [figure_table("Game and provenance", rows),
                        figure_table("Notebook parameters", params)])

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
            tables.append(Table(f"Reel set '{name}': strips", pd.DataFrame(cols), formats,
                                note=f"Stops per reel: {lengths}; cycle {g.cycle(name):,}. "
                                     f"Stop s shows positions s..s+{g.rows - 1} top to bottom."))
            figures.append((f"Reel set '{name}', stop 0 at the top.",
                            lambda name=name: plots.reel_strips(g, name)))
        return Section("reels", "Reel strips", "Reel strips", tables, figures, figures_first=True)

    def _symbols(self) -> Section:
        g = self.game
        rows = []
        for s in g.symbols:
            subs = mult = ""
            if s.wild:
                subs = ", ".join(sorted(s.wild.substitutes))
                mult = (" / ".join(f"{m}" for m in s.wild.by_count[1:]) + " by wild count"
                        if s.wild.by_count else
                        (f"x{s.wild.per_wild} per wild" if s.wild.per_wild > 1 else "none"))
            rows.append({"symbol": s.name, "label": s.label or s.name, "kind": s.kind,
                         "substitutes for": subs, "multiplier": mult})
        tables = [Table("Symbols", pd.DataFrame(rows))]
        for name, strips in g.reel_sets.items():
            counts = {}
            for r, s in enumerate(strips):
                w = s.stop_weights()
                col = {sym: 0 for sym in g.symbol_names}
                for sym, wt in zip(s.symbols, w.tolist()):
                    col[sym] += wt
                counts[f"reel {r + 1}"] = col
            frame = pd.DataFrame(counts)
            frame = frame[(frame != 0).any(axis=1)]
            frame.loc["total"] = frame.sum()
            frame = frame.reset_index(names="symbol")
            weighted = any(s.weights is not None for s in strips)
            tables.append(Table(f"Reel set '{name}': symbol {'weights' if weighted else 'counts'}"
                                " per reel", frame, total_row=True,
                                note="Stop weights summed per symbol (virtual reel)."
                                if weighted else ""))
        return Section("symbols", "Symbols and counts per reel", "Symbols", tables)

    def _paytable(self) -> Section:
        g = self.game
        rows = []
        for p in g.line_pays:
            if p.anywhere:
                form = f"exactly {p.exactly} {p.anywhere} anywhere on the line"
            else:
                form = " ".join("|".join(sorted(pos)) if len(pos) > 1 else next(iter(pos))
                                for pos in p.positions)
            row = {"combination": p.name, "symbols (from reel 1)": form}
            row.update({f"pays at level {lv} [coins]": pay for lv, pay in zip(g.levels, p.pays)})
            rows.append(row)
        tables = [Table("Line pays [coins per line at each bet level]", pd.DataFrame(rows),
                        note="Only the highest win per line is paid; wins are paid left to "
                             "right on adjacent reels.")]
        if g.scatter_pays:
            sc = pd.DataFrame([{"symbol": s.symbol, "count (or more)": s.count,
                                "pay [x total bet]": float(s.pay),
                                "pay exact": exact_str(s.pay)} for s in g.scatter_pays])
            tables.append(Table("Scatter pays (anywhere in the window)", sc,
                                {"pay [x total bet]": "x"}))
        return Section("paytable", "Pay table", "Pay table", tables)

    def _combinations(self) -> Section:
        c = self.par.combinations
        frame = pd.DataFrame({
            "kind": c["kind"], "combination": c["combination"], "multiplier": c["multiplier"],
            "win [coins]": c["win"], "hits": c["hits"], "probability": c["probability"],
            "1 in N": c["one_in"], "RTP contribution": c["rtp"],
            "RTP exact": [exact_str(v) for v in c["rtp_exact"]]})
        total = sum(c["rtp_exact"], Fraction(0))
        frame.loc[len(frame)] = ["total", "", None, None, int(c["hits"].sum()),
                                 float(c["probability"].sum()), None, float(total),
                                 exact_str(total)]
        return Section("combinations", "Combination table", "Combinations", [Table(
            "Hits over the full cycle for every pay", frame,
            {"win [coins]": "x", "hits": "int", "probability": "prob", "1 in N": "odds",
             "RTP contribution": "pct6", "multiplier": "int"}, total_row=True,
            note=f"Cycle {self.par.cycle:,}. Hits are summed over all lines; probability is "
                 "hits / cycle (expected occurrences per spin). The multiplier is the wild "
                 "multiplier on the line.")])

    def _summary(self) -> Section:
        r, d = self.par, self.par.distribution
        rtp = float(r.rtp)
        hit = r.hit_frequency
        pmax = float(d.max_win_probability)
        rows = [("RTP [x total bet]", rtp, "pct6"),
                ("RTP exact", fraction_str(r.rtp) or "n/a (float computation)", "text"),
                ("hit frequency: paying spins [probability]", hit, "pct"),
                ("hit frequency: 1 in N spins", 1 / hit if hit else math.inf, "odds"),
                ("SD [x total bet]", r.sd, "num")]
        rows += [(f"VI {k} % [x total bet]", v, "num") for k, v in r.volatility_index.items()]
        rows += [("max win [x total bet]", float(d.max_win), "x"),
                 ("max win: 1 in N spins", 1 / pmax if pmax else math.inf, "odds"),
                 ("cycle", r.cycle, "int"), ("total bet [coins]", r.bet.total_bet, "int")]
        headline = figure_table("Headline figures", rows, note=(
            "Hit frequency counts spins (rounds, where features follow a spin) paying "
            "anything: all lines, scatters and features together, not per-line hits."))
        channels = pd.DataFrame({
            "channel": list(r.components) + ["total"],
            "RTP [x total bet]": [float(v) for v in r.components.values()] + [rtp],
            "share of RTP": [float(v) / rtp if rtp else 0.0 for v in r.components.values()]
                            + [1.0 if rtp else 0.0],
            "exact": [exact_str(v) for v in r.components.values()] + [exact_str(r.rtp)]})
        shown, caption = channel_groups(r.components)
        by_channel = Table("RTP by channel", channels,
                           {"RTP [x total bet]": "pct6", "share of RTP": "pct"}, total_row=True,
                           figures=[(caption, lambda: plots.rtp_by_channel(shown, r.rtp))])
        tables = [headline, by_channel,
                  Table("Plays per feature and per jackpot", self.odds_frame(),
                        {"1 in N spins": "odds", "probability per spin": "prob"}),
                  Table("Figures by bet level", self.levels_frame(),
                        {"RTP": "pct6", "hit frequency": "pct", "SD [x total bet]": "num",
                         "VI 90 % [x total bet]": "num", "max win [x total bet]": "x"})]
        return Section("summary", "Summary", "Summary", tables)

    def odds_frame(self) -> pd.DataFrame:
        """Plays per feature, jackpot and top award: 1 in N spins."""
        rows = []
        c = self.par.combinations
        if len(c):
            top = c.loc[c["win"].astype(float).idxmax()]
            mult = f" (x{top['multiplier']})" if top["multiplier"] != 1 else ""
            rows.append((f"top award: {top['combination']}{mult}",
                         float(top["one_in"]), "combination table"))
        for _, row in c[~c["kind"].isin(["line", "scatter"])].iterrows():
            rows.append((f"{row['kind']}: {row['combination']}", float(row["one_in"]),
                         "combination table"))
        found: dict = {}   # 1 in N -> labels: one event reported under several keys
        for path, value in walk_scalars(self.par.features):
            leaf = path[-1]
            if isinstance(value, (int, float)) and not isinstance(value, bool) and (
                    leaf == "one_in" or leaf.endswith("_one_in") or leaf.startswith("plays_per")):
                label = " / ".join(p for p in path if p != "one_in").replace("_", " ")
                found.setdefault(float(value), []).append(label)
        rows += [(" = ".join(labels), value, "features") for value, labels in found.items()]
        pmax = float(self.par.distribution.max_win_probability)
        rows.append((f"max total win ({float(self.par.distribution.max_win):g}x total bet)",
                     1 / pmax if pmax else math.inf, "win distribution"))
        return pd.DataFrame({"event": [r[0] for r in rows], "1 in N spins": [r[1] for r in rows],
                             "probability per spin": [1 / r[1] if r[1] else 0.0 for r in rows],
                             "source": [r[2] for r in rows]})

    def levels_frame(self) -> pd.DataFrame:
        """RTP, hit frequency, SD, VI 90 % and max win at every bet level
        (blank where the rules module's figures leave one out)."""
        def num(figs, key):
            v = figs.get(key)
            return None if v is None else float(v)

        rows = []
        for lv, figs in self.levels.items():
            rows.append({"bet level": lv, "total bet [coins]": self.game.bet(lv).total_bet,
                         "RTP": float(figs["rtp"]), "RTP exact": exact_str(figs["rtp"]),
                         "hit frequency": num(figs, "hit_frequency"),
                         "SD [x total bet]": num(figs, "sd"),
                         "VI 90 % [x total bet]": num(figs, "vi"),
                         "max win [x total bet]": num(figs, "max_win")})
        return pd.DataFrame(rows)

    def _volatility(self) -> Section:
        r = self.par
        rows = [("SD [x total bet]", "", r.sd, "num")]
        rows += [(f"VI {round(c * 100)} %", z_value(c), r.volatility_index[str(round(c * 100))],
                  "num") for c in CONFIDENCE_LEVELS]
        vol = figure_table("Standard deviation and volatility index", rows,
                           columns=("figure", "z", "value [x total bet]"),
                           note="VI = z x SD of the total win of a spin; z is the two-sided "
                                "normal quantile.")
        conf = r.confidence_table()
        wide = pd.DataFrame({"spins N": sorted(set(conf["spins"]))})
        formats = {"spins N": "int"}
        for c in CONFIDENCE_LEVELS:
            t = conf[conf["confidence"] == c].set_index("spins")
            for side in ("low", "high"):
                col = f"{c:.0%} {side}"
                wide[col] = wide["spins N"].map(t[side])
                formats[col] = "pct"
        band = Table("Payback confidence table: RTP +- VI / sqrt(N)", wide, formats,
                     note="Range the payback of N spins falls in with the stated confidence "
                          "(normal approximation).",
                     figures=[("Payback range after N spins at 90, 95 and 99 % confidence.",
                               lambda: plots.confidence_band(conf, r.rtp))])
        return Section("volatility", "Volatility", "Volatility", [vol, band])

    def _distribution(self) -> Section:
        d = self.par.distribution
        x, p = d.x, d.probabilities
        rtp = float(d.mean)
        rows = [{"win [x total bet]": "no win", "probability": float(p[x == 0].sum())}]
        edges = [e for e in WIN_BANDS if e < x.max()] + [math.inf]
        for lo, hi in zip(edges[:-1], edges[1:]):
            m = (x > lo) & (x < hi) if lo == 0 else (x >= lo) & (x < hi)
            label = (f"above 0, below {hi:g}" if lo == 0 else
                     f"{lo:g} to below {hi:g}" if hi != math.inf else f"{lo:g} and above")
            rows.append({"win [x total bet]": label, "probability": float(p[m].sum()),
                         "RTP share": float((x[m] * p[m]).sum()) / rtp if rtp else 0.0})
        bands = pd.DataFrame(rows)
        bands["1 in N"] = [1 / v if v else math.inf for v in bands["probability"]]
        bands["cumulative RTP share"] = bands["RTP share"].fillna(0).cumsum()
        bands = bands[["win [x total bet]", "probability", "1 in N", "RTP share",
                       "cumulative RTP share"]]
        ladder = [t for t in (0.01, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
                              10_000, 20_000, 50_000) if t <= x.max()]
        ex = d.exceedance_table(ladder + [float(d.max_win)])
        ex.columns = ["win at least [x total bet]", "probability", "1 in N"]
        full = d.to_frame()
        full = pd.DataFrame({"win [x total bet]": full["win"],
                             "weight": full["weight"], "probability": full["probability"],
                             "P(win >= x)": full["probability"][::-1].cumsum()[::-1]})
        figures = [("Probability per spin by win size (log scales).",
                    lambda: plots.win_histogram(x, p)),
                   ("Cumulative share of the RTP paid by wins up to each size.",
                    lambda: plots.cumulative_rtp(x, p, rtp))]
        paid = float(self.par.rtp) - rtp
        share_note = ("" if abs(paid) < 1e-12 else
                      f"Shares are of the return paid as spin wins ({rtp:.4%}); the other "
                      f"{paid:.4%} of the RTP is not a spin win (see the RTP by channel).")
        tables = [Table("Wins by size", bands, {"probability": "prob", "1 in N": "odds",
                                                "RTP share": "pct", "cumulative RTP share": "pct"},
                        figures=figures, note=share_note),
                  Table("P(win >= x)", ex, {"win at least [x total bet]": "x",
                                            "probability": "prob", "1 in N": "odds"}),
                  Table("Distribution of the total win of a spin", full,
                        {"win [x total bet]": "x", "probability": "prob", "P(win >= x)": "prob",
                         "weight": "int" if d.exact else "prob"}, html=False,
                        note="Weights are hit counts over the cycle." if d.exact else
                        "Weights are probabilities (float64).")]
        return Section("distribution", "Win distribution", "Win distribution", tables)

    def _sessions(self) -> Section:
        labels = [f"{s.spins:,} spins" for s in self.sessions]
        spec = [("expected net result [x total bet]", lambda s: s.mean, "x"),
                ("SD of the net result [x total bet]", lambda s: s.sd, "x"),
                ("P(ahead: net result > 0)", lambda s: s.p_ahead, "pctp"),
                ("P(exactly even)", lambda s: s.p_even, "pctp"),
                ("P(lose half the stake or more)", lambda s: s.p_at_most(-s.spins / 2), "pctp")]
        spec += [(f"{q:.0%} quantile of the net result [x total bet]",
                  lambda s, q=q: s.quantile(q), "x") for q in (0.05, 0.25, 0.5, 0.75, 0.95)]
        spec += [("P(net result above the computed range)", lambda s: s.tail, "prob"),
                 ("top of the computed range [x total bet]", lambda s: s.upper, "x")]
        rows = [(name, *[f(s) for s in self.sessions], fmt) for name, f, fmt in spec]
        exact = all(s.exact_lattice for s in self.sessions)
        note = ("Exact lattice convolution of the per-spin distribution (FFT, float64, absolute "
                "error per probability of order 1e-14)." if exact else
                "Wins moved to a coarser lattice (mean kept) to bound the size; figures are "
                "approximate.")
        table = figure_table("Net result of a session", rows, note=note,
                             columns=("figure", *labels))
        return Section("sessions", "Player sessions", "Sessions", [table],
                       [("Distribution of the net result after each session length.",
                         lambda: plots.session_cdf(self.sessions))])

    def _features(self) -> Section:
        tables = feature_tables(self.par.features, self.par.tables, self.game)
        text = "" if tables else "This game has no feature beyond its line and scatter pays."
        return Section("features", "Feature sheets", "Features", tables, text=text)

    def _simulation(self) -> Section:
        sim = self.simulation
        title, sheet = "Monte Carlo cross-check", "Monte Carlo"
        if sim is None:
            return Section("simulation", title, sheet,
                           text="No simulation was run (Monte Carlo spins = 0).")
        d = sim.to_dict()
        head = (f"Simulated: {d.get('spins', 0):,} rounds, seed {d.get('seed')}"
                + (f", {d['chunks']} chunk{'s' * (d['chunks'] != 1)} of {d['chunk']:,} rounds (the "
                   "result does not depend on the number of processes)" if "chunks" in d else ""))
        conv = getattr(sim, "convergence", None)
        if conv is None:
            return Section("simulation", title, sheet, [self._estimates_table(d)], text=head)
        f = conv.figures
        figures = pd.DataFrame({"figure": f["figure"], "exact": f["exact"],
                                "simulated": f["simulated"], "standard error": f["se"],
                                "95 % CI low": f["ci_low"], "95 % CI high": f["ci_high"],
                                "z": f["z"], "agrees (|z| < 4)": [_agrees(z) for z in f["z"]]})
        fmt = {c: "num" for c in ("exact", "simulated", "standard error", "95 % CI low",
                                  "95 % CI high")}
        fmt["z"] = "odds"
        tables = [Table("RTP, hit frequency and SD", figures, fmt,
                        note="z = (simulated - exact) / standard error. The SD's standard "
                             "error comes from the sample's fourth moment: when rare large "
                             "wins are missing from the sample (see the rounds by win size), "
                             "the simulated SD falls short and its z overstates the gap.")]
        e = conv.events
        if len(e):
            events = pd.DataFrame({"event": e["event"], "hits": e["hits"],
                                   "simulated 1 in N": e["one_in"],
                                   "exact 1 in N": e["exact_one_in"], "z": e["z"],
                                   "agrees (|z| < 4)": [_agrees(z) for z in e["z"]]})
            tables.append(Table("Pays and features: simulated against exact frequency", events,
                                {"hits": "int", "simulated 1 in N": "odds",
                                 "exact 1 in N": "odds", "z": "odds"}))
        h = conv.histogram
        h = h[(h["rounds"] > 0) | (h["exact"].fillna(0) > 0)]
        tables.append(Table("Rounds by win size [x total bet]", pd.DataFrame({
            "win [x total bet]": h["bin"], "rounds": h["rounds"], "simulated": h["probability"],
            "exact": h["exact"], "z": h["z"], "agrees (|z| < 4)": [_agrees(z) for z in h["z"]]}),
            {"rounds": "int", "simulated": "prob", "exact": "prob", "z": "odds"},
            note=f"Largest |z| over all rows: {conv.max_abs_z:.2f}."))
        return Section("simulation", title, sheet, tables, text=head)

    def _estimates_table(self, d: dict) -> Table:
        rows = []
        for path, est in walk_estimates(d):
            z = est.get("z")
            lo, hi = est.get("ci95") or (None, None)
            rows.append({"figure": " / ".join(FIGURE_NAMES.get(p, label(p)) for p in path),
                         "exact": est.get("exact"), "simulated": est["value"],
                         "standard error": est.get("se"), "95 % CI low": lo, "95 % CI high": hi,
                         "z": z, "agrees (|z| < 4)": _agrees(z)})
        fmt = {c: "num" for c in ("exact", "simulated", "standard error", "95 % CI low",
                                  "95 % CI high")}
        fmt["z"] = "odds"
        return Table("Simulated figures", pd.DataFrame(rows), fmt,
                     note="z = (simulated - exact) / standard error.")

    def _notes(self) -> Section:
        notes = list(self.par.notes) + [
            "Figures are per spin (or per round, where a feature follows the spin) and relative "
            "to the total bet unless a unit says otherwise.",
            "Exact figures come from full-cycle counting with integer hit counts; the RTP is "
            "given as an exact fraction where all inputs are integers.",
            "Simulated figures are marked as such and only cross-check the exact ones."]
        return Section("notes", "Notes", "Notes",
                       [Table("Notes", pd.DataFrame({"note": notes}))])


def channel_groups(components: dict, most: int = 12):
    """RTP channels for the chart and its caption: with more than ``most``
    channels, those named ``"group: part"`` are summed per group."""
    caption = "RTP contribution by channel [% of total bet]."
    if len(components) <= most:
        return dict(components), caption
    grouped: dict = {}
    for name, value in components.items():
        key = name.split(": ", 1)[0]
        grouped[key] = grouped.get(key, 0) + value
    return grouped, caption[:-1] + ", channels named 'group: part' summed per group."


def _agrees(z):
    """'yes' / 'no' for |z| < 4, '' without an exact value."""
    if z is None or (isinstance(z, float) and math.isnan(z)):
        return ""
    return "yes" if abs(z) < 4 else "NO"


def figure_html(fig, caption: str) -> str:
    """A figure as an embedded PNG with its caption."""
    data = base64.b64encode(plots.to_png(fig)).decode("ascii")
    return (f'<div class="par-figure"><img alt="{escape(caption)}" '
            f'src="data:image/png;base64,{data}"/></div>'
            f'<p class="par-caption">{escape(caption)}</p>')


def par_sheet(game: str | Game, level: int | None = None, spins: int = DEFAULT_SPINS,
              seed: int = DEFAULT_SEED, out: str | None = None,
              session_lengths=SESSION_LENGTHS, progress: bool | None = None) -> ParSheet:
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
    parameters = {"game": game if isinstance(game, str) else game.name, "bet": level,
                  "spins": spins, "seed": seed, "out": out}
    if not isinstance(game, Game):
        game = load_game(game)
    if level is not None and level not in game.levels:
        raise GameFileError(game.source, "bet.levels", f"bet level {level} is not offered "
                            f"(levels: {', '.join(map(str, game.levels))})")
    level = game.bet(level).level
    from slotmath.analysis.metrics import equivalent_levels

    same = equivalent_levels(game)
    others = len({same[lv] for lv in game.levels} - {same[level]})
    if progress is None:
        progress = os.environ.get(PROGRESS_ENV) == "1"
    with tqdm(total=2 + others + bool(spins), desc=game.name, unit="step", leave=True,
              file=sys.__stderr__, disable=not progress, dynamic_ncols=True) as bar:
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
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ParSheet(game, main, levels, sessions, simulation, parameters, generated)


def level_figures(game: Game, main: ParResult, bar=None) -> dict:
    """Exact figures at every bet level: {level: figures of
    :func:`slotmath.analysis.metrics.game_figures`}.  The sheet's own level comes from
    ``main``; levels with provably the same figures (a linear pay table) share
    them; the others are computed the cheapest way the rules module offers."""
    from slotmath.analysis.metrics import equivalent_levels, game_figures, par_figures

    same = equivalent_levels(game)
    done = {same[main.bet.level]: par_figures(main)}
    for lv in game.levels:
        if same[lv] not in done:
            if bar is not None:
                bar.set_postfix_str(f"figures at bet level {lv}")
            done[same[lv]] = game_figures(game, lv)
            if bar is not None:
                bar.update()
    return {lv: done[same[lv]] for lv in game.levels}
