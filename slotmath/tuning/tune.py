"""Reel tuning: choose symbol counts or stop weights so a game hits its targets.

What is tuned
    One reel set (default ``base``), or several at once (their reels are
    the variables together).  Unweighted reels are tuned by symbol
    counts, weighted reels by stop weights, within :class:`~slotmath.tuning.reelspace.Bounds`
    (held symbols, per-symbol limits, strip length or total weight).  New
    counts are laid out on the strips by :func:`slotmath.tuning.layout.lay_out`
    (stacks kept, the rest spread), and every candidate is judged on the
    exact figures of its laid-out strips (:mod:`slotmath.analysis.metrics`).

Targets (:class:`Targets`)
    The RTP to within a tolerance, at every bet level by default (so a
    non-linear pay table is tuned to the same RTP at each level); bands on
    any named figure: ``hit_frequency``, ``vi``, ``sd``, ``feature_frequency``
    or whatever a rules module reports.  A rules module may state the game's
    own constraints with ``tuning_constraints(game) -> {"rtp_figures": [...],
    "bands": {name: (lo, hi)}}``: every figure in ``rtp_figures`` (for
    example the RTP under each choice of a feature selection) must equal the
    target RTP, which makes the choices worth the same.

Bet modes
    ``Targets.mode`` tunes a bet mode's figures (its RTP per unit of cost,
    hit frequency, VI), ``Targets.mode_rtp`` adds a target RTP for each
    other mode, met at once: every candidate is judged on each mode's exact
    figures (:func:`slotmath.analysis.metrics.mode_figures` of the game the
    mode plays).  The variables are one declared reel set, which several
    modes may play (:func:`tuned_reel_set`), or several at once
    (``reel_set=("base", "free")``, ``"all"``: :func:`tuned_reel_sets`),
    for targets no one set can meet.

Shape (default)
    The game's character is kept: each stop weight (count) within a factor
    2 of its value, each tuned symbol's share of a reel within +-50 %, each
    RTP component's share of the RTP within +-25 %, reels alike in the
    file moved together (the same change on each; released, and said so,
    only when a search with them together misses the targets) (options
    release or set each; see docs/tuning.md).  A run that misses a target says what binds
    (:attr:`TuningResult.binding`: targets missed, the RTP reachable within
    the limits by the continuous relaxation, the limits reached).

Method
    1. *Linear models.*  The line RTP, single-line hit rate and single-line
       second moment are multilinear in the per-reel variables
       (:mod:`slotmath.engine.multilinear`): exactly linear-fractional in one reel
       while the others are held.  Each target figure is modelled through the
       matching line form, scaled by a secant factor learnt from the exact
       figures (exactly 1 for the RTP of a line game), or, for a figure with
       no line form, by finite differences of the exact figure (+1 unit).
    2. *Block-coordinate integer programmes.*  For one reel at a time,
       :func:`scipy.optimize.milp` (HiGHS) minimises the RTP error in units
       of the tolerance, plus band violations, plus 1e-4 per unit moved (so
       among equally good answers the smallest change wins), subject to the
       bounds and a trust region; reels are swept until none moves.
    3. *Exact check.*  The proposal is laid out and evaluated exactly; it is
       kept only if it improves (violations first, then RTP error), else the
       trust region halves.
    4. *Local search.*  Single moves (one unit from one symbol or stop to
       another, on one reel) and pairs of them on two reels, ranked by the
       models and judged exactly, until the targets are met or nothing
       improves.
    Everything is deterministic: the same game, targets and bounds give the
    same strips.

Modules: targets and their assessment in :mod:`slotmath.tuning.targets`, the
search in :mod:`slotmath.tuning.reelsolver`, the variables and limits in
:mod:`slotmath.tuning.reelspace`, layout in :mod:`slotmath.tuning.layout`, exact figures
in :mod:`slotmath.analysis.metrics`, file writing in :mod:`slotmath.io.gamewriter`.
This module holds the entry point :func:`tune`, its result and the
``slotmath tune`` / ``slotmath sensitivities`` commands.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from slotmath.analysis.metrics import CORE_FIGURES
from slotmath.io.gamefile import load_game
from slotmath.model import Game
from slotmath.rules.modes import BASE_MODE, mode_names, mode_of, mode_reel_sets
from slotmath.rules.result import fraction_str
from slotmath.tuning.componentmodels import channel_figure
from slotmath.tuning.layout import changed_positions, longest_runs, run_limits, spread
from slotmath.tuning.linearmodels import mode_line_link
from slotmath.tuning.reelsolver import Solver, component_rtp_reach, line_rtp_reach
from slotmath.tuning.reelspace import Bounds, BoundsError, ReelSpace
from slotmath.tuning.targets import (
    DEFAULT_COMPONENT_SHARE,
    DEFAULT_TOLERANCE,
    Assessment,
    Targets,
    assess,
    component_share_bands,
    mode_figure,
    split_figure,
)

__all__ = [
    "Targets",
    "Bounds",
    "TuningResult",
    "tune",
    "tuned_reel_set",
    "tuned_reel_sets",
    "DEFAULT_TOLERANCE",
]

ALL_SETS = "all"  # reel_set: every reel set some rule of the game reads


# ====================================================================== result
@dataclass
class TuningResult:
    """Outcome of :func:`tune`: the tuned game, what moved, figures before and after.

    Attributes
    ----------
    game, tuned : Game
        The game as loaded and with the tuned reel sets.
    reel_set : str
        The (first) reel set tuned; every one: :attr:`reel_sets`.
    targets : Targets
    space : ReelSpace
    x_before, x_after : list of ndarray
        Variable values (counts or stop weights) per reel (every tuned
        set's reels, set after set).
    before, after : dict
        ``{level: {figure: value}}`` exact figures of both games.
    assessment_before, assessment : Assessment
    log : DataFrame
        One row per judged proposal (stage, accepted, rtp, violation, ...).
    evaluations : int
        Exact evaluations made.
    seconds : float
    stopped : str
        Why the search stopped early ("" when it ran its course).
    component_bands : dict
        Share-of-RTP bands added to keep each component's share (``{figure: (lo, hi)}``).
    rtp_range : dict
        ``{level: (lo, hi)}`` line RTP reachable within the limits (continuous
        relaxation, per unit of the tuned bet mode's cost; computed only when
        the targets are not met, and not for a mode whose base spin is not
        the tuned set, such as a buy).
    reach_points : dict
        ``{level: (lowest, highest)}``: the variables of every reel at the
        ends of :attr:`rtp_range` (relaxed, rounded to whole units).
    rtp_reach : dict or None
        A feature game's ``{level: (lo, hi)}`` whole RTP reachable within the
        limits (:func:`~slotmath.tuning.reelsolver.component_rtp_reach`:
        the features that ride the line RTP counted); None: the line RTP's
        range plus the rest of the RTP at the best point.
    reach_unproven : str
        Why :attr:`rtp_reach` proves nothing ("" when it does).
    band_clash : tuple or None
        A feature game's ``(statement, binds)`` when, proven, no line RTP
        within reach meets the RTP target and the component bands together
        (:func:`~slotmath.tuning.reelsolver.component_rtp_reach`).
    untied : dict or None
        None when the reels alike in the file (``space.alike``) stayed
        together; else ``{level: RTP}`` of the best point reached with them
        moved together, after which they were released (the targets were
        not met with them tied).
    untied_why : str
        Why the search with them together ended (``the search stalled``,
        ``evaluation budget (400) spent``).
    """

    game: Game
    tuned: Game
    reel_set: str
    targets: Targets
    space: ReelSpace
    x_before: list
    x_after: list
    before: dict
    after: dict
    assessment_before: Assessment
    assessment: Assessment
    log: pd.DataFrame
    evaluations: int
    seconds: float
    stopped: str = ""
    component_bands: dict | None = None
    rtp_range: dict | None = None
    reach_points: dict | None = None
    untied: dict | None = None
    untied_why: str = ""
    rtp_reach: dict | None = None
    reach_unproven: str = ""
    band_clash: tuple | None = None

    @property
    def feasible(self) -> bool:
        """Whether every target is met by the laid-out strips."""
        return self.assessment.feasible

    @property
    def reel_sets(self) -> tuple:
        """Every reel set tuned, in the order named."""
        return self.space.reel_sets

    @property
    def moves(self) -> pd.DataFrame:
        """Every count or stop weight that changed (with its reel set when
        several are tuned), with why: the exact change of its reel set's
        line RTP [pp] were this unit alone changed (line form,
        :mod:`slotmath.engine.multilinear`) and the target it serves."""
        mv = self.space.moves(self.x_after, self.x_before)
        if not len(mv) or not self.game.line_pays:
            return mv
        from slotmath.tuning.linearmodels import fast_forms

        lv = next(iter(self.after))
        forms = fast_forms(self.space, [lv])
        base = {rs: forms.value("win", lv, self.x_before, rs) for rs in self.reel_sets}
        gaps = self.rtp_gaps(lv)
        off_bands = [
            c.figure
            for c in self.assessment_before.checks
            if not c.ok and c.figure != "rtp" and c.figure not in self.targets.rtp_figures
        ]
        alone, why = [], []
        sets = mv["reel set"] if "reel set" in mv else [self.reel_set] * len(mv)
        for rs, reel, unit, change in zip(sets, mv["reel"], mv["unit"], mv["change"], strict=True):
            r = self.space.blocks[rs][reel - 1]
            xs = [x.copy() for x in self.x_before]
            xs[r][self.space.reels[r].labels.index(unit)] += change
            d = (forms.value("win", lv, xs, rs) - base[rs]) * 100
            alone.append(round(d, 6))
            name, gap = gaps[rs]
            if abs(gap) > self.targets.tolerance and d * gap > 0:
                why.append(
                    f"{'RTP' if name == 'rtp' else name} {'up' if gap > 0 else 'down'} "
                    f"(start {abs(gap) * 100:.4f} pp {'below' if gap > 0 else 'above'} target)"
                )
            elif off_bands:
                why.append(f"band: {', '.join(dict.fromkeys(off_bands))}")
            else:
                why.append("RTP balance (offsets another move)")
        columns: dict = {forms.alone: alone, "why": why}
        return mv.assign(**columns)

    def rtp_gaps(self, level: int) -> dict:
        """``{reel set: (RTP figure, target - value before)}`` at ``level``:
        the tuned RTP's; with several sets, that of the RTP target a set
        serves: one whose mode plays no other tuned set if any, else the
        one farthest from its target among those whose mode plays it."""
        before = self.before[level]
        gap = ("rtp", float(self.targets.rtp) - float(before["rtp"]))
        if len(self.reel_sets) == 1:
            return {self.reel_set: gap}
        plays = {
            n: {rs for rs, k in self.solver_links(n).items() if k.plays} for n in self.targets.rtp_figures
        }
        out = {}
        for rs in self.reel_sets:
            names = [n for n, p in plays.items() if rs in p]
            names = [n for n in names if plays[n] == {rs}] or names
            gaps = [(n, float(self.targets.target_of(n)) - float(before[n])) for n in names]
            out[rs] = max(gaps, key=lambda g: abs(g[1]), default=gap)
        return out

    def solver_links(self, name: str) -> dict:
        """``{reel set: LineLink}``: how figure ``name``'s mode plays each tuned set."""
        mode = split_figure(name)[0] or self.targets.primary
        return {rs: mode_line_link(self.space, mode, rs) for rs in self.reel_sets}

    @property
    def nothing_moved_why(self) -> str:
        """Why no count or stop weight moved ("" when some did): the
        targets met already, else the feasibility statement, and the
        game's weight tables, which ``--table`` tunes (not reel strips)."""
        if len(self.moves):
            return ""
        if self.assessment_before.feasible:
            return "every target is met by the strips in the game file"
        from slotmath.tuning.tablespace import weight_tables

        tables = list(weight_tables(self.game))
        hint = (
            f"; the feature's weight tables ({', '.join(tables)}) are not reel strips: --table tunes them"
            if tables
            else ""
        )
        return self.feasibility["statement"] + hint

    @property
    def binding(self) -> pd.DataFrame:
        """Targets missed (figure, level, value, allowed range) and the
        limits the tuned values sit on (unit, limit): what to release."""
        rows = [
            {
                "what": f"target {c.figure} (bet {c.level})",
                "value": _fmt(c.figure, float(c.value)),
                "limit": f"{_fmt(c.figure, c.lo) if c.lo is not None else '-inf'} .. "
                f"{_fmt(c.figure, c.hi) if c.hi is not None else 'inf'}",
                "note": f"missed by {_fmt(c.figure, c.miss)}" + _mode_note(c.figure, self.targets),
            }
            for c in self.assessment.checks
            if not c.ok
        ]
        t, tol = float(self.targets.rtp), self.targets.tolerance
        for lv, (lo, hi) in self.reachable_rtp().items():
            rows.append(
                {
                    "what": f"reachable RTP (bet {lv})",
                    "value": f"{lo:.4%} .. {hi:.4%}",
                    "limit": "",
                    "note": "target outside: the limits bind"
                    if not lo - tol <= t <= hi + tol
                    else "target inside",
                }
            )
        for r, (rv, x) in enumerate(zip(self.space.reels, self.x_after, strict=True)):
            for unit, text in rv.binding(x):
                rows.append(
                    {
                        "what": f"{self.space.reel_label(r)} {unit}",
                        "value": "",
                        "limit": text,
                        "note": "shape/range limit reached",
                    }
                )
        return pd.DataFrame(rows, columns=["what", "value", "limit", "note"])

    def reachable_rtp(self) -> dict:
        """``{level: (lo, hi)}``: the RTP reachable within the limits, the
        line RTP of :attr:`rtp_range` plus the rest of the RTP (scatters,
        features) of the best point; a feature game's :attr:`rtp_reach`."""
        if self.rtp_reach is not None:
            return dict(self.rtp_reach)
        out = {}
        for lv, (lo, hi) in (self.rtp_range or {}).items():
            after = self.after[lv]
            channel = after.get(channel_figure(self.game), after["rtp"])
            rest = float(after["rtp"]) - float(channel)
            out[lv] = (lo + rest, hi + rest)
        return out

    @property
    def feasibility(self) -> dict:
        """Whether a missed target is out of reach under the bounds.

        ``verdict``: ``met``; ``infeasible`` (the target RTP, with its
        tolerance, lies outside the RTP reachable within the limits at some
        bet level, by the relaxation of :attr:`rtp_range`: ``binds`` names
        the limits the relaxation's end nearest the target sits on);
        ``stopped`` (not shown infeasible; the budget of evaluations or
        time ran out, or the run was cancelled); ``stalled`` (not shown
        infeasible; the search made no further progress).  ``statement``
        says it in words, with the best point reached (``best_rtp``, at the
        first level, and each target it misses)."""
        lv0 = next(iter(self.after))
        best = float(self.after[lv0]["rtp"])
        out = {"verdict": "met", "statement": "every target met", "binds": [], "best_rtp": best}
        if self.feasible:
            return out
        t, tol = float(self.targets.rtp), self.targets.tolerance
        reach = self.reachable_rtp()
        outside = [(lv, lo, hi) for lv, (lo, hi) in reach.items() if not lo - tol <= t <= hi + tol]
        if outside and not self.reach_unproven:
            lv, lo, hi = outside[0]
            above = t > hi
            x = (self.reach_points or {})[lv][1 if above else 0]
            spin = self.space.blocks.get(self.reel_set, range(len(self.space.reels)))
            binds = [
                f"{self.space.reel_label(r)} {unit} {text}"
                for r in spin
                for unit, text in self.space.reels[r].binding(x[r])
            ] or ["the strip lengths and the held symbols (no unit can move further)"]
            statement = (
                f"infeasible under the bounds: the target RTP {t:.4%} is "
                f"{'above the highest' if above else 'below the lowest'} RTP reachable within the "
                f"limits at bet {lv} ({hi if above else lo:.4%}; relaxation"
                + ("; the features counted by the product rule, exact at its ends" if self.rtp_reach else "")
                + f"); there: {'; '.join(binds)}"
            )
            return {**out, "verdict": "infeasible", "statement": statement, "binds": binds}
        if self.band_clash is not None:
            clash, binds = self.band_clash
            statement = f"infeasible under the bounds: {clash}"
            return {**out, "verdict": "infeasible", "statement": statement, "binds": list(binds)}
        missed = "; ".join(
            f"{c.figure} (bet {c.level}) missed by {_fmt(c.figure, c.miss)}"
            for c in self.assessment.checks
            if not c.ok
        )
        within = (
            f"the target RTP {t:.4%} is within the RTP reachable within the limits "
            + ", ".join(f"(bet {lv}: {lo:.4%} .. {hi:.4%})" for lv, (lo, hi) in reach.items())
            if reach
            else "the relaxation does not apply to this run"
        )
        if self.reach_unproven:
            within = (
                "the RTP reachable within the limits is not proven ("
                + self.reach_unproven
                + "; by the models "
                + ", ".join(f"(bet {lv}: {lo:.4%} .. {hi:.4%})" for lv, (lo, hi) in reach.items())
                + ")"
            )
        why = self.stopped or "the search made no further progress (a band or the integer resolution binds)"
        statement = (
            f"not shown infeasible: {within}; {why}; best point reached: RTP {best:.6%} (bet {lv0}), {missed}"
        )
        return {**out, "verdict": "stopped" if self.stopped else "stalled", "statement": statement}

    @property
    def strip_changes(self) -> pd.DataFrame:
        """Per reel (of each tuned set): length before and after, stops
        edited by the layout, the spread before and after (the least even
        tuned symbol's :func:`~slotmath.tuning.layout.spread`: 1 evenly
        spaced, near 0 clumped; blanks and held symbols left out) and the
        runs longer than the layout's limit (``SYMBOL run>limit``; none
        expected; stacks grow unless a longest run is declared)."""
        rows = []
        several = len(self.reel_sets) > 1
        judged = {s.name for s in self.game.symbols if s.kind != "blank"} - self.space.held
        pairs = [
            (name, r, a, b)
            for name in self.reel_sets
            for r, (a, b) in enumerate(zip(self.game.strips(name), self.tuned.strips(name), strict=True))
        ]
        for rs, r, a, b in pairs:
            # the layout may change a strip's length: weights are compared on the stops both have
            rows.append(
                {
                    **({"reel set": rs} if several else {}),
                    "reel": r + 1,
                    "stops before": len(a),
                    "stops after": len(b),
                    "weight before": a.total_weight,
                    "weight after": b.total_weight,
                    "stops edited": changed_positions(a.symbols, b.symbols)
                    + sum(1 for x, y in zip(a.weights or (), b.weights or (), strict=False) if x != y),
                    **_spread_columns(a.symbols, b.symbols, judged),
                    "runs over limit": _runs_over(
                        a.symbols,
                        b.symbols,
                        self.space.bounds.max_run,
                        self.space.stacked[self.space.blocks[rs][r]],
                    ),
                }
            )
        return pd.DataFrame(rows)

    @property
    def figures(self) -> pd.DataFrame:
        """Before/after figures at every level with the targets."""
        rows = []
        bands = self.targets.bands
        for lv in self.after:
            names = list(
                dict.fromkeys(
                    list(CORE_FIGURES)
                    + [mode_figure(m, n) for m in self.targets.modes[1:] for n in CORE_FIGURES]
                    + list(self.targets.figures)
                    + [k for k in self.after[lv] if k.startswith("rtp:")]
                    + (["feature_frequency"] if "feature_frequency" in self.after[lv] else [])
                )
            )
            for name in names:
                b, a = self.before[lv].get(name), self.after[lv].get(name)
                if a is None and b is None:
                    continue
                if name in self.targets.rtp_figures:
                    tgt = f"{float(self.targets.target_of(name)):.6%} +- {self.targets.tolerance:.4%}"
                elif name in bands:
                    tgt = _band_text(name, *bands[name])
                else:
                    tgt = ""
                ok = [c.ok for c in self.assessment.checks if c.level == lv and c.figure == name]
                rows.append(
                    {
                        "level": lv,
                        "figure": name,
                        "before": _num(b),
                        "after": _num(a),
                        "change": (_num(a) - _num(b)) if a is not None and b is not None else None,
                        "target": tgt,
                        "met": (all(ok) if ok else None),
                        "after exact": fraction_str(a) if isinstance(a, Fraction) else None,
                    }
                )
        return pd.DataFrame(rows)

    @property
    def summary(self) -> pd.DataFrame:
        a = self.assessment
        rows = [
            ("game", self.game.title),
            ("reel set", self.reel_set)
            if len(self.reel_sets) == 1
            else ("reel sets", ", ".join(self.reel_sets)),
            *self.mode_rows(),
            ("target RTP", f"{float(self.targets.rtp):.6%} +- {self.targets.tolerance:.4%}"),
            ("levels", ", ".join(map(str, self.after))),
            ("targets met", "yes" if a.feasible else "NO"),
            ("units moved", int(self.moves["change"].abs().sum()) if len(self.moves) else 0),
            ("exact evaluations", self.evaluations),
            ("time [s]", f"{self.seconds:.2f}"),
        ]
        if self.stopped:
            rows.append(("stopped", self.stopped))
        b = self.space.bounds
        rows.append(
            (
                "shape bounds",
                "; ".join(
                    [
                        f"stop weight / count within x{b.weight_factor:g}"
                        if b.weight_factor
                        else "weights free",
                        f"symbol share +-{b.symbol_share:.0%}"
                        if b.symbol_share is not None
                        else "symbol shares free",
                        self.tied_text(),
                        "RTP component shares "
                        + (
                            ", ".join(
                                f"{k[4:]} {float(lo):.3%}..{float(hi):.3%}"
                                for k, (lo, hi) in self.component_bands.items()
                            )
                            if self.component_bands
                            else "free"
                        ),
                    ]
                ),
            )
        )
        return pd.DataFrame(rows, columns=["item", "value"])

    def tied_text(self) -> str:
        """The groups of reels moved together (alike in the file), or why none."""
        if not self.space.bounds.symmetric:
            return "reels tuned on their own"
        tied = self.space.tied(alike=True)
        if not tied:
            return "no two reels alike"
        label = self.space.reel_label
        groups = ", ".join("(" + ", ".join(label(r).removeprefix("reel ") for r in g) + ")" for g in tied)
        if self.untied is None:
            return f"reels moved together: {groups}"
        lv = next(iter(self.untied))
        return (
            f"reels alike {groups} moved together first, then RELEASED: the targets were not met "
            f"with them together ({self.untied_why}; best RTP {float(self.untied[lv]):.6%} at bet {lv}); "
            "--asymmetric releases them from the start"
        )

    @property
    def sets_text(self) -> str:
        """``reel set base`` or ``reel sets base, free``."""
        sets = self.reel_sets
        return f"reel set{'s' if len(sets) > 1 else ''} {', '.join(sets)}"

    def mode_rows(self) -> list:
        """Summary rows of the bet modes judged: the mode tuned (its cost)
        and every other mode's target RTP, per unit of its cost."""
        t = self.targets
        if not t.modes:
            return []
        missed: dict = {}  # {mode: {figure: (largest miss, levels)}}
        for c in self.assessment.checks:
            if not c.ok:
                mode, name = split_figure(c.figure)
                worst, levels = missed.setdefault(mode or t.primary, {}).get(name, (0.0, []))
                missed[mode or t.primary][name] = (max(worst, c.miss), [*levels, c.level])

        def misses(mode: str) -> str:
            return "".join(
                f"; {name} missed by {_fmt(name, miss)} (bet {', '.join(map(str, levels))})"
                for name, (miss, levels) in missed.get(mode, {}).items()
            )

        rows = [
            (
                "bet mode tuned",
                f"{t.primary} (cost {float(mode_of(self.game, t.primary).cost):g} x total bet)"
                + misses(t.primary),
            )
        ]
        for m in t.modes[1:]:
            goal = f"RTP {float(t.mode_rtp[m]):.6%} +- {t.tolerance:.4%}" if m in t.mode_rtp else "bands only"
            rows.append(
                (f"mode {m}", f"cost {float(mode_of(self.game, m).cost):g} x total bet, {goal}" + misses(m))
            )
        return rows

    def text(self) -> str:
        fig = self.figures.copy()
        rtp_like = set(self.targets.rtp_figures)
        for col in ("before", "after", "change"):
            fig[col] = [_fmt(n, v, n in rtp_like) for n, v in zip(fig["figure"], fig[col], strict=True)]
        fig["met"] = fig["met"].map({True: "yes", False: "NO", None: ""})
        parts = [
            f"Reel tuning: {self.game.title} ({self.game.name}), {self.sets_text}",
            *_item_lines(self.summary),
            "",
            "What moved",
            self.moves.to_string(index=False)
            if len(self.moves)
            else f"nothing moved: {self.nothing_moved_why}",
            *(
                [
                    "",
                    "Why the targets are not met (release one of these)",
                    "feasibility: " + self.feasibility["statement"],
                    self.binding.to_string(index=False),
                ]
                if not self.feasible
                else []
            ),
            "",
            "Strips",
            self.strip_changes.to_string(index=False),
            "",
            "Figures (exact, laid-out strips)",
            fig.drop(columns="after exact").to_string(index=False),
        ]
        return "\n".join(parts)

    def print_summary(self) -> None:
        print(self.text())

    def _repr_html_(self) -> str:
        return "\n".join(
            [
                f"<h4>Reel tuning: {self.game.title}, {self.sets_text}</h4>",
                self.summary.to_html(index=False, header=False),
                "<h5>What moved</h5>",
                self.moves.to_html(index=False),
                "<h5>Figures</h5>",
                self.figures.to_html(index=False),
            ]
        )

    def write(self, path=None, backup: bool = True):
        """Write the tuned game file (default: over the source, keeping a backup)."""
        from slotmath.io.gamewriter import write_game

        strips = {rs: self.tuned.strips(rs) for rs in self.reel_sets}
        return write_game(self.game, strips, path, backup=backup)


def _item_lines(summary: pd.DataFrame) -> list:
    """The (item, value) rows of :attr:`TuningResult.summary` as text lines:
    items right-aligned, values left-aligned after them (a long value, such
    as the shape bounds, does not push the short ones right)."""
    width = max(len(str(item)) for item in summary["item"])
    return [f"{item:>{width}}  {value}" for item, value in summary.itertuples(index=False)]


def _spread_columns(before, after, symbols) -> dict:
    """``spread before``, ``spread after`` (the least even of ``symbols``,
    None when none has two runs) and ``least spread`` (that symbol, after)."""
    sb, sa = spread(before, symbols), spread(after, symbols)
    worst = min(sa, key=lambda k: (sa[k], k), default=None)
    return {
        "spread before": round(min(sb.values()), 4) if sb else None,
        "spread after": round(sa[worst], 4) if worst is not None else None,
        "least spread": worst or "",
    }


def _runs_over(before, after, max_run, stacked) -> str:
    """Symbols of ``after`` with a run longer than the layout's limit from ``before``."""
    limits = run_limits(before, set(after), max_run, stacked)
    return ", ".join(
        f"{sym} {n}>{limits[sym]}"
        for sym, n in sorted(longest_runs(after).items())
        if limits[sym] is not None and n > limits[sym]
    )


def _num(v):
    return None if v is None else float(v)


def _mode_note(name: str, targets: Targets) -> str:
    mode = split_figure(name)[0]
    return f" (mode {mode})" if mode else (f" (mode {targets.primary})" if targets.modes else "")


def _fmt(name, v, percent=False) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    name = split_figure(name)[1]
    if percent or name.startswith("rtp") or name in ("hit_frequency", "feature_frequency"):
        return f"{v:.6%}"
    return f"{v:.6g}"


def _band_text(name, lo, hi) -> str:
    name = split_figure(name)[1]
    f = (
        (lambda v: f"{v:.4%}")
        if name in ("hit_frequency", "feature_frequency") or name.startswith("rtp")
        else (lambda v: f"{v:.6g}")
    )
    return f"{f(lo) if lo is not None else '-inf'} .. {f(hi) if hi is not None else 'inf'}"


# ====================================================================== entry point
def tune(
    game,
    targets: Targets,
    bounds: Bounds | None = None,
    reel_set: str | tuple | None = None,
    max_rounds: int = 12,
    max_evaluations: int = 400,
    verbose: bool = False,
    start: list | None = None,
    component_share: float | None = DEFAULT_COMPONENT_SHARE,
    time_limit: float | None = None,
    progress=True,
    cancel=None,
) -> TuningResult:
    """Tune ``reel_set`` of ``game`` to ``targets`` within ``bounds``.

    Parameters
    ----------
    game : Game or str
        The game, or a game spec for :func:`slotmath.io.gamefile.load_game`.
    targets : Targets
    bounds : Bounds, optional
    reel_set : str or tuple of str, optional
        The declared reel set tuned (default :func:`tuned_reel_set`: ``base``,
        or the set the tuned bet mode plays), or several tuned at once
        (``("base", "free")``; ``"all"``: every set some rule reads;
        :func:`tuned_reel_sets`).
    max_rounds : int
        Integer-programme rounds before the local search.
    max_evaluations : int
        Budget of exact evaluations (figures of one candidate at its levels).
    verbose : bool
        Print one line per judged proposal.
    start : list of ndarray, optional
        Variable values to start from (default: the game file's); moves
        and "before" figures are always relative to the game file.
    component_share : float or None
        Shape bound: each RTP component (lines, scatters, each feature) keeps
        its share of the RTP within ``share0 * (1 +- component_share)``
        (:func:`slotmath.tuning.targets.component_share_bands`; None: free).  The
        other shape bounds are in ``bounds`` (``weight_factor``, ``symbol_share``).
    time_limit : float, optional
        Wall-clock budget [s]; the best candidate so far is returned.
    progress : bool or callable
        True: a tqdm bar on stderr for runs over 2 s (evaluations, best RTP,
        distance to target); a callable gets the same as a dict after each
        exact evaluation; False: none.
    cancel : callable, optional
        Polled during the run; True stops it (best candidate so far).

    Returns
    -------
    TuningResult
    """
    t0 = time.perf_counter()
    game, sets, targets, levels = run_setup(game, targets, reel_set)
    space = ReelSpace(game, sets[0] if len(sets) == 1 else sets, bounds)
    say = (lambda m: print(m, file=sys.stderr)) if verbose else None
    bar = None
    if progress is True:
        bar = progress_bar(max_evaluations, "tuning")
        progress = _bar_update(bar)

    def new_solver() -> Solver:
        return Solver(
            space,
            targets,
            levels,
            max_rounds,
            max_evaluations,
            say,
            time_limit=time_limit,
            progress=progress or None,
            cancel=cancel,
        )

    solver = new_solver()
    x_before = space.x0
    # shape: each RTP component keeps its share (bands from the game file's figures)
    first = solver.ev.figures(x_before, set(targets.figures) | {"rtp"})[levels[0]]
    extra = component_share_bands(first, targets, component_share)
    if extra:
        targets = dataclasses.replace(targets, bands={**targets.bands, **extra})
        solver.targets = solver.ev.targets = targets
        solver.ev.needed = set(targets.figures)
    # every figure before, for the report; its time is kept for the same after the search
    solver.t0 = t0  # the time limit counts from the call
    t_all = time.perf_counter()
    before = solver.ev.figures(x_before)
    solver.reserve = time.perf_counter() - t_all
    untied, untied_why = None, ""
    x_start = x_before if start is None else [np.asarray(x, dtype=np.int64) for x in start]
    log_rows: list = []
    spent_tied = 0  # exact evaluations of a search with the reels alike together, when released
    try:
        x_after, best = solver.run(x_start)
        budget = f"evaluation budget ({max_evaluations}) spent"
        if not best.feasible and space.tied() and solver.stopped in ("", budget):
            # the reels alike do not meet the targets moved together (the search
            # stalled or spent its budget): a second search, every reel on its
            # own, from the start with a budget of its own (the time limit is
            # the run's; a cancel ends both); kept, and said, if it is better
            tied = (x_after, best, solver)
            spent_tied = solver.ev.count
            space.untie()
            solver = new_solver()
            solver.t0, solver.reserve = t0, tied[2].reserve
            if bar is not None:
                bar.reset(total=max_evaluations)
            x_after, best = solver.run(x_start)
            log_rows = tied[2].log_rows
            if best.better_than(tied[1]):
                untied = {lv: tied[2].ev.figures(tied[0], {"rtp"})[lv]["rtp"] for lv in levels}
                untied_why = tied[2].stopped or "the search stalled"
            else:
                space.groups, space.group_of = space.alike, {r: g for g in space.alike for r in g}
                x_after = tied[0]
    finally:
        if bar is not None:
            bar.close()
    tuned = space.game_for(x_after)
    after = solver.ev.figures(x_after)
    result = assess(after, targets)
    reach, points, totals, unproven, clash = (
        strip_reach(solver, x_after) if not result.feasible else ({}, {}, None, "", None)
    )
    return TuningResult(
        game,
        tuned,
        space.reel_set,
        targets,
        space,
        x_before,
        x_after,
        before,
        after,
        assess(before, targets),
        result,
        pd.DataFrame(log_rows + solver.log_rows),
        spent_tied + solver.ev.count,
        time.perf_counter() - t0,
        solver.stopped,
        extra,
        reach,
        points,
        untied,
        untied_why,
        totals,
        unproven,
        None if unproven else clash,
    )


def strip_reach(solver: Solver, xs) -> tuple:
    """The strips' relaxation at ``xs``: ``(reach, points, totals, unproven,
    clash)``.  ``reach``: ``{level: (lo, hi)}`` the tuned mode's line RTP
    reachable within the limits [x total bet]; ``points``: the variables at
    its ends; ``totals``: a feature game's whole RTP reachable
    (:func:`~slotmath.tuning.reelsolver.component_rtp_reach`), or None;
    ``unproven``: why ``totals`` proves nothing ("" when it does);
    ``clash``: the bands that cannot hold together, or None.  Empty when the
    relaxation does not apply (a mode whose base spin is not the tuned set)."""
    reach: dict = {}
    points: dict = {}
    totals: dict | None = None
    unproven, clash = "", None
    spin, scale = solver.ev.base_spin()  # the tuned mode's base spin, its RTP per unit of line RTP
    if scale is None:
        return reach, points, totals, unproven, clash
    for lv in sorted(set(solver.ev.rep.values())):
        ends = line_rtp_reach(solver, xs, lv, reel_set=spin)
        if ends is not None:
            reach[lv] = (ends[0][0] * scale, ends[1][0] * scale)
            points[lv] = (ends[0][1], ends[1][1])
            whole = component_rtp_reach(solver, xs, lv, ends)
            if whole is not None:
                totals = {**(totals or {}), lv: whole[0]}
                unproven = unproven or whole[1]
                clash = clash or whole[2]
    if reach and solver.forms.inexact:  # the relaxation of an approximate form bounds nothing
        unproven = unproven or solver.forms.inexact
    return reach, points, totals, unproven, clash


def run_setup(game, targets: Targets, reel_set) -> tuple:
    """What a tuning run starts from: ``(game, reel sets tuned, targets with
    the game's own constraints, the bet levels judged)``; ``game`` a Game or
    a path."""
    if not isinstance(game, Game):
        game = load_game(game)
    sets = tuned_reel_sets(game, targets, reel_set)
    targets = targets.with_game_constraints(game)
    return game, sets, targets, target_levels(game, targets)


def target_levels(game: Game, targets: Targets) -> tuple:
    """The bet levels the targets judge (every level of the game when they
    name none); a level the game does not offer is refused."""
    levels = targets.levels or tuple(game.levels)
    for lv in levels:
        if lv not in game.levels:
            raise BoundsError(f"bet level {lv} is not offered (levels: {', '.join(map(str, game.levels))})")
    return levels


def progress_bar(total: int, desc: str):
    """A tqdm bar of exact evaluations on stderr, shown once a run passes 2 s
    (none where stderr is not a terminal)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="eval", delay=2.0, file=sys.stderr, leave=False, disable=None)


def tuned_reel_set(game: Game, targets: Targets, reel_set: str | None = None) -> str:
    """The declared reel set a run tunes, checked against the bet modes the
    targets judge (each must exist and play it).  Default: ``base``; with
    ``targets.mode``, the set that mode plays as its base spin, or the one
    set it plays (a buy: its bought feature's)."""
    check_target_modes(game, targets)
    if reel_set is None:
        reel_set = "base"
        if targets.mode is not None:
            mode = mode_of(game, targets.mode)
            played = mode_reel_sets(game, targets.mode)
            sets = sorted(set(played.values()))
            if mode.buy is None and "base" in played:
                reel_set = played["base"]
            elif len(sets) == 1:
                reel_set = sets[0]
            else:
                raise BoundsError(
                    f"bet mode {targets.mode!r} plays reel sets {', '.join(sets)}: "
                    "name the one to tune (--reel-set)"
                )
    if reel_set not in game.reel_sets:
        return reel_set  # the reel space refuses it
    for name in targets.modes:
        plays = sorted(set(mode_reel_sets(game, name).values()))
        if reel_set not in plays:
            raise BoundsError(
                f"bet mode {name!r} does not play reel set {reel_set!r} (it plays {', '.join(plays)}), "
                "so its figures do not change with it"
            )
    return reel_set


def check_target_modes(game: Game, targets: Targets) -> None:
    """Refuse a bet mode the targets judge that ``game`` does not have."""
    for mode in targets.modes:
        if mode not in mode_names(game):
            what = "bet mode tuned" if mode == targets.primary else "target for bet mode"
            raise BoundsError(
                f"{what} {mode!r}: {game.name} has no such mode (modes: {', '.join(mode_names(game))})"
            )


def tuned_reel_sets(game: Game, targets: Targets, reel_set: str | tuple | None = None) -> tuple:
    """The declared reel sets a run tunes at once, checked.

    ``reel_set``: None or one name (:func:`tuned_reel_set`), several names,
    or ``"all"``: every declared set that a bet mode judged plays (without
    modes, the game as declared; a set only a mode not judged reads is left
    out, its moves could change no figure judged).  Each set named must
    exist, be named once, be read by some rule of the game and be played by
    some mode judged, and each mode judged must play one of them."""
    if reel_set is None or (isinstance(reel_set, str) and reel_set != ALL_SETS):
        return (tuned_reel_set(game, targets, reel_set),)
    names = [reel_set] if isinstance(reel_set, str) else [str(name) for name in reel_set]
    if len(names) == 1 and names[0] != ALL_SETS:
        return (tuned_reel_set(game, targets, names[0]),)
    check_target_modes(game, targets)
    judged = targets.modes or (BASE_MODE,)
    plays = {m: sets_played(game, m) for m in judged}
    if ALL_SETS in names:
        if len(names) > 1:
            raise BoundsError(f"reel set {ALL_SETS!r} names every set: give it alone")
        names = [rs for rs in game.reel_sets if any(rs in p for p in plays.values())]
    read = {rs for m in mode_names(game) for rs in sets_played(game, m)}
    for i, rs in enumerate(names):
        if rs not in game.reel_sets:
            raise BoundsError(f"no reel set {rs!r} (reel sets: {', '.join(game.reel_sets)})")
        if rs in names[:i]:
            raise BoundsError(f"reel set {rs!r} named twice")
        if rs not in read:
            raise BoundsError(f"reel set {rs!r}: no rule of {game.name} reads it, so no figure moves with it")
        if not any(rs in p for p in plays.values()):
            raise BoundsError(
                f"reel set {rs!r} is played by no bet mode judged ({', '.join(judged)}), "
                "so no figure judged changes with it"
            )
    for m, p in plays.items():
        if not p & set(names):
            raise BoundsError(
                f"bet mode {m!r} plays none of the reel sets tuned ({', '.join(names)}; "
                f"it plays {', '.join(sorted(p))}), so its figures do not change with them"
            )
    return tuple(names)


def sets_played(game: Game, mode: str) -> set:
    """The declared reel sets bet mode ``mode`` plays
    (:func:`slotmath.rules.modes.mode_reel_sets`); a game whose rules read
    option keys beyond the line round's (no modes): every declared set,
    which its rules' check holds to being read."""
    from slotmath.rules.contract import LINE_OPTIONS
    from slotmath.rules.registry import rules_for

    if not game.modes and not rules_for(game).options <= LINE_OPTIONS:
        return set(game.reel_sets)
    return set(mode_reel_sets(game, mode).values())


def _bar_update(bar):
    """A progress callback that moves a tqdm bar: evaluations, best RTP, distance to target."""

    def update(status):
        if status["best_rtp"] is not None:
            bar.set_postfix_str(
                f"best RTP {status['best_rtp']:.6%}, {status['distance'] * 100:.4f} pp from target",
                refresh=False,
            )
        bar.update(max(0, status["evaluations"] - bar.n))

    return update


def draft_game(game: Game, path, reel_set: str | None = "base") -> Game:
    """``game`` with reel set ``reel_set`` read from the reel CSV ``path``
    (a designer's draft: columns ``reel1..`` and, for weighted strips,
    ``weight1..``), validated like the game file's own reel sets.

    Tuning the result starts from the draft: the layout edits the draft's
    strips, and "before" figures and moves are the draft's, while the game
    file stays the template that :meth:`TuningResult.write` rewrites.
    """
    from slotmath.io.gamefile import GameFileError, build_strip, check_rules, read_strip_csv
    from slotmath.tuning.reelspace import with_strips

    path = Path(path)
    reel_set = reel_set or "base"
    if reel_set not in game.reel_sets:
        raise BoundsError(f"no reel set {reel_set!r} (reel sets: {', '.join(game.reel_sets)})")
    spec = read_strip_csv(path, Path(game.source), f"reels.{reel_set}")

    def fail(field, problem):
        raise GameFileError(path, field, problem)

    if len(spec) != game.reels:
        fail("header", f"has {len(spec)} reels, the grid has {game.reels}")
    known = set(game.symbol_names)
    strips = tuple(build_strip(s, f"reel{r + 1}", known, game.rows, fail) for r, s in enumerate(spec))
    draft = with_strips(game, reel_set, strips)
    try:
        check_rules(draft)
    except GameFileError as exc:
        raise GameFileError(path, exc.field, exc.problem) from None
    return draft
