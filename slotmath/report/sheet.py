"""The PAR sheet of a game at one bet level: every figure of a report.

:func:`par_sheet` runs the exact engine (at every bet level), the player
sessions (:mod:`slotmath.engine.session`) and the Monte Carlo cross-check, and
returns a :class:`ParSheet` whose ``sections`` hold titled tables
(:class:`slotmath.report.sheettable.Table`) and figures (:mod:`slotmath.report.plots`).
``notebooks/par_sheet.ipynb`` shows them (``sheet.show(key)``) and saves
``par.json``, ``par.txt`` and ``par.xlsx`` (``sheet.save(folder)``).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from slotmath.analysis.simulation import cross_check
from slotmath.engine.payrule import pay_rule
from slotmath.engine.session import SESSION_LENGTHS, session
from slotmath.errors import SetupError
from slotmath.io.files import write_text_atomic
from slotmath.io.gamefile import check_level, load_game
from slotmath.io.jsontext import json_text
from slotmath.model import Game
from slotmath.report import figure_sections, game_sections
from slotmath.report.sheetparts import (  # noqa: F401  (re-exported)
    DEFAULT_SEED,
    DEFAULT_SPINS,
    FIGURE_NAMES,
    LEVEL_FIGURES,
    PARTIAL,
    PROGRESS_ENV,
    ROOT,
    SECTIONS,
    VOLATILITY_CLASSES,
    agreement_word,
    channel_groups,
    coin_values,
    figure_html,
    file_sha256,
    finite,
    fixed_floats,
    git_revision,
    installed_folder,
    last_commit_date,
    level_figures,
    odds_text,
    reader_path,
    volatility_class,
)
from slotmath.report.sheettable import Section, escape, plain_text
from slotmath.report.workbook import write_workbook
from slotmath.rules.par import par
from slotmath.rules.result import ParResult


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
    simulation: object | str | None  # a cross-check result, or why none was run
    parameters: dict
    generated: str | None

    # ------------------------------------------------------------ display
    def show(self, key: str) -> None:
        """Display section ``key`` in a notebook (tables and figures)."""
        from IPython.display import HTML, display

        display(HTML("\n".join(self.section_html(k) for k in self.group(key))))

    def group(self, key: str) -> list:
        """The section keys ``show(key)`` displays: ``features`` stands for
        every feature's own section and the other feature figures, ``modes``
        for every declared bet mode's section (none without modes); any
        other key for its own section."""
        if key == "features":
            return [k for k in self.sections if k.startswith("features-")] + ["features"]
        if key == "modes":
            return [k for k in self.sections if k.startswith("modes-")]
        return [key]

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
        # an introduction may name the pay rule's words ({hits_over}: SheetWords)
        intro = SECTIONS[key][2].format_map(vars(pay_rule(self.game).sheet)) if key in SECTIONS else ""
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
        sub = (
            f"{g.reels} reels x {g.rows} rows, {g.ways_or_lines_text}, bet level {b.level} "
            f"({b.total_bet} coins total bet); RTP {float(self.par.rtp):.4%}"
            + (f"; {ident}" if ident else "")
            + (f"; game file of {self.generated}" if self.generated else "")
        )
        running = plain_text(f"PAR sheet: {g.title}" + (f", {ident}" if ident else ""))
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
        if self.modes:  # each mode's figures; the base mode's round is this file's
            data["modes"] = {
                name: {k: v for k, v in m.to_dict().items() if name != "base" or k != "round"}
                for name, m in self.modes.items()
            }
        write_text_atomic(out / "par.json", json_text(fixed_floats(data), indent=2) + "\n")
        write_text_atomic(out / "par.txt", self.text() + "\n")
        write_workbook(self, out / "par.xlsx")

    def text(self) -> str:
        """The sheet for people, as plain text (``par.txt``): the base mode's
        PAR, then every bet mode's headline figures when the game has modes."""
        text = self.par.text()
        if not self.modes:
            return text
        blocks = []
        for m in self.modes.values():
            rows = m.summary_rows()
            width = max(len(k) for k, _ in rows)
            blocks.append("\n".join(f"{k:<{width}}  {v}" for k, v in rows))
        head = "Bet modes (RTP per unit of cost; every table above is the base mode's)"
        return "\n\n".join([text, head, *blocks])

    # ------------------------------------------------------------ sections
    @cached_property
    def sections(self) -> dict:
        builders = (
            game_sections.identification,
            game_sections.reels,
            game_sections.symbols,
            game_sections.paytable,
            game_sections.paylines,
            game_sections.combinations,
            figure_sections.summary,
            figure_sections.volatility,
            figure_sections.distribution,
            figure_sections.sessions,
            figure_sections.features,
            figure_sections.mode_sections,
            figure_sections.simulation,
            figure_sections.notes,
        )
        built = (b(self) for b in builders)
        out = {s.key: s for x in built for s in (x if isinstance(x, list) else [x]) if s is not None}
        if self.game.modes:  # every bet mode side by side, beside the base mode's figures
            out["summary"].tables.append(figure_sections.modes_table(self))
        return out

    @cached_property
    def modes(self) -> dict:
        """``{name: ModeResult}`` of every bet mode at the sheet's level, the
        base mode (this sheet's figures) first; empty without ``modes``."""
        from slotmath.rules.modepar import ModeResult, mode_par
        from slotmath.rules.modes import mode_names, mode_of

        if not self.game.modes:
            return {}
        level = self.par.bet.level
        base, *declared = mode_names(self.game)
        out = {base: ModeResult(mode_of(self.game, base), self.par)}
        return out | {name: mode_par(self.game, name, level) for name in declared}

    def workbook_sections(self) -> list:
        """The sections of the workbook: the sheet's (a bet mode's among them)."""
        return list(self.sections.values())

    # ------------------------------------------------------------ tables used elsewhere
    def odds_frame(self) -> pd.DataFrame:
        """Odds of every winning event and feature (see :func:`figure_sections.odds_frame`)."""
        return figure_sections.odds_frame(self)

    def levels_frame(self) -> pd.DataFrame:
        """The main figures at every bet level (see :func:`figure_sections.levels_frame`)."""
        return figure_sections.levels_frame(self)

    def payback_table(self) -> pd.DataFrame:
        """Exact payback ranges of the player sessions (see :func:`figure_sections.payback_table`)."""
        return figure_sections.payback_table(self)

    def _section(self, key: str, tables=(), figures=(), **kw) -> Section:
        title, sheet, _ = SECTIONS[key]
        return Section(key, title, sheet, list(tables), list(figures), **kw)

    def _linear(self) -> bool:
        from slotmath.analysis.metrics import equivalent_levels

        same = equivalent_levels(self.game)
        return len(set(same.values())) == 1


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
    check_level(game, level)
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
            try:
                simulation = cross_check(game, level, spins, seed, exact=main, progress=False)
            except SetupError as e:  # a declared feature the sampler does not play: said on the sheet
                simulation = str(e)
            bar.update()
        bar.set_postfix_str("done")
    generated = last_commit_date(game.source) if game.source else None
    return ParSheet(game, main, levels, sessions, simulation, parameters, generated)


#: Figures the table of bet levels shows at every level.
