"""Tuning reel strips and feature weight tables together in one run.

:func:`tune_joint` moves the stop counts (or weights) of one or more reel
sets and the weights of one or more weight tables (coin values, jackpots,
wheel segments, ...) so that the game's **exact** figures meet the targets:
for a hold-and-spin game, the base strips for the line RTP and the hit
frequency, the coin-value weights for the feature's share of the RTP.

Method (block coordinate descent)
    1. The component-share bands (each RTP component's share within
       ``share0 * (1 +- component_share)``) are set once, from the game
       file's figures, and every limit is the game file's: each stop count
       and each weight within its shape bounds *of the file*, however far
       the other block has moved.
    2. *Strip block*: the strip tuner's search
       (:class:`~slotmath.tuning.reelsolver.Solver`) on the game with the
       tables as they stand, from the strips as they stand.
    3. *Table block*: the table tuner's search
       (:class:`~slotmath.tuning.tabletune.TableSearch`) on the game with
       the strips as they stand (laid out), from the weights as they stand.
    4. *Bands first*: when a round ends with a band missed (a feature's
       share of the RTP, say), the next round starts with a table block
       that puts the bands missed inside them by a tenth of their width,
       the RTP left free (each table trades the feature's RTP against the
       total one for one, so with the RTP held it cannot move the share),
       then the strip block brings the RTP back and the table block
       polishes.
    5. Rounds go on until every target is met, a whole round improves
       nothing, or the budget (exact evaluations, shared) or the time
       limit is spent.  Each search keeps a candidate only if its exact
       figures improve (violations first, then the RTP error), and the run
       returns the best point judged.
    6. The figures reported are those of the written game, evaluated
       exactly once more at the end (never a model's).

The reels alike in the file stay together (``--asymmetric`` releases them);
a run that misses a target says why: the target is infeasible under the
bounds (:func:`joint_reach`), or the budget or the time limit ran out, or
neither block improves on the best point, with the limits that bind there.

The joint reach (:func:`joint_reach`, tables of degree 1)
    The feature that reads the table states the round's figures are linear
    in its draw probabilities ``p = w / W``
    (:class:`~slotmath.features.tunables.Tunable`): for strips ``s`` fixed,
    ``RTP(s, p) = sum_i p_i R_i(s)``, ``R_i(s)`` the RTP with every draw on
    entry ``i`` (``p`` on the simplex).  With ``U_i >= R_i(s)`` for every
    ``s`` within the strips' limits, ``p_i >= 0`` gives ``RTP(s, p) <=
    sum_i p_i U_i``, so the highest RTP strips and table reach together is
    at most the linear programme ``max sum_i p_i U_i`` over the table's
    limits (each weight within its factor, the total held); the lowest, at
    least ``min sum_i p_i L_i``.  ``U_i`` and ``L_i`` are the strip tuner's
    relaxation (:func:`~slotmath.tuning.tune.strip_reach`) on the game with
    table ``e_i``, proven only where it is proven (the strip lengths fixed,
    the units of each reel one class, its ends exact); otherwise, or with a
    table of higher degree (or a round cap), nothing is claimed.

    Several tables, each of degree 1: the RTP is affine in each table's
    ``p`` with the others held, so multi-affine,
    ``sum_c prod_t p_t(c_t) R_c(s)`` over the combinations ``c`` of one
    entry per table.  The products ``prod_t p_t(c_t)`` are a joint draw
    ``r_c >= 0`` whose marginals are the tables' ``p_t``; the linear
    programme over every such ``r`` (the marginals within the tables'
    limits) contains them, so ``max sum_c r_c U_c`` bounds the highest RTP
    (:func:`_table_programme`; at most :data:`MAX_REACH_COMBOS`
    combinations, each one strip reach).
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from slotmath.errors import BoundsError, EngineTooLarge, GameFileError
from slotmath.tuning.linearmodels import Evaluator
from slotmath.tuning.reelsolver import Solver
from slotmath.tuning.reelspace import Bounds, ReelSpace
from slotmath.tuning.tablespace import TableSpace
from slotmath.tuning.tabletune import TIME_LIMIT, TableSearch, TableTuning
from slotmath.tuning.targets import (
    DEFAULT_COMPONENT_SHARE,
    Targets,
    assess,
    band_scale,
    component_share_bands,
)
from slotmath.tuning.tune import TuningResult, progress_bar, run_setup, strip_reach

MAX_BLOCK_ROUNDS = 6  # rounds of (strip block, table block)
AIM_MARGIN = 0.1  # a bands-first table block aims this share of a missed band's width inside it
#: exact evaluations the joint reach costs per combination of one entry per table (an estimate,
#: for the time limit), and the most combinations it evaluates
REACH_EVALUATIONS = 2.5
MAX_REACH_COMBOS = 64
FREE_RTP = 1.0  # the RTP tolerance of a bands-first table block [x total bet]: the RTP left free


@dataclass
class JointTuning:
    """Outcome of :func:`tune_joint`.

    Attributes
    ----------
    strips : TuningResult
        The strip side: moves, strip layout, limits reached.
    tables : TableTuning
        The table side: weights before and after, their moves.
    rounds : list of dict
        One row per block run: ``round``, ``block`` (``strips`` or
        ``tables``), ``units moved`` in that block, ``rtp`` after it and
        ``violation`` [as :class:`~slotmath.tuning.targets.Assessment`],
        ``evaluations`` so far.
    evaluations : int
        Exact evaluations of the searches (both blocks).
    seconds : float
    stopped : str
        Why the search ended early (budget, time limit); "" otherwise.
    reach : dict or None
        ``{level: (lo, hi, binds_lo, binds_hi)}``: the RTP [x total bet]
        strips and table reach together, a valid bound
        (:func:`joint_reach`; computed when a target is missed), or None.
    reach_why : str
        Why :attr:`reach` is None ("" when it is computed or not needed).
    """

    strips: TuningResult
    tables: TableTuning
    rounds: list
    evaluations: int
    seconds: float
    stopped: str = ""
    reach: dict | None = None
    reach_why: str = ""

    @property
    def feasible(self) -> bool:
        """Whether every target is met by the tuned game (exact figures)."""
        return self.strips.assessment.feasible

    @property
    def units_moved(self) -> dict:
        """``{"strips": n, "tables": n}``: units moved in each block."""
        mv = self.strips.moves
        return {
            "strips": int(mv["change"].abs().sum()) if len(mv) else 0,
            "tables": self.tables.units_moved,
        }

    @property
    def nothing_moved_why(self) -> str:
        """Why neither a strip nor a weight moved ("" when one did)."""
        if any(self.units_moved.values()):
            return ""
        if self.strips.assessment_before.feasible:
            return "every target is met by the game file"
        return self.feasibility["statement"]

    @property
    def binds(self) -> list:
        """The limits the tuned strips and weights sit on."""
        b = self.strips.binding
        strips = [
            f"{what} {limit}"
            for what, limit, note in zip(b["what"], b["limit"], b["note"], strict=True)
            if note == "shape/range limit reached"
        ]
        tables = [f"{u} {text}" for u, text in self.tables.space.binding(self.tables.x_after)]
        return strips + tables

    @property
    def feasibility(self) -> dict:
        """``verdict`` (``met``, ``stopped``, ``stalled``), ``statement``,
        ``binds`` (the limits reached at the best point) and ``best_rtp``."""
        res = self.strips
        lv0 = next(iter(res.after))
        best = float(res.after[lv0]["rtp"])
        out = {"verdict": "met", "statement": "every target met", "binds": [], "best_rtp": best}
        if self.feasible:
            return out
        t, tol = float(res.targets.rtp), res.targets.tolerance
        for lv, (lo, hi, binds_lo, binds_hi) in (self.reach or {}).items():
            if not lo - tol <= t <= hi + tol:
                above = t > hi
                binds = binds_hi if above else binds_lo
                statement = (
                    f"infeasible under the bounds: the target RTP {t:.4%} is "
                    f"{'above the highest' if above else 'below the lowest'} RTP the strips and the tables "
                    f"reach together at bet {lv} ({hi if above else lo:.4%}; relaxation: the tables' "
                    f"linear programme over the strips' reach with every draw on one entry); there: "
                    + "; ".join(binds)
                )
                return {**out, "verdict": "infeasible", "statement": statement, "binds": binds}
        missed = "; ".join(
            f"{c.figure} (bet {c.level}) missed by {float(c.miss):.6%}"
            if c.figure.split("/")[-1].startswith(("rtp", "hit_frequency", "feature_frequency"))
            else f"{c.figure} (bet {c.level}) missed by {float(c.miss):.6g}"
            for c in res.assessment.checks
            if not c.ok
        )
        binds = self.binds
        limits = (
            "limits reached there: " + "; ".join(binds) + " (release with the shape options)"
            if binds
            else "no strip count or weight is at a limit (the whole-number steps or the bands bind)"
        )
        why = (
            self.stopped
            if self.stopped
            else "neither the strips (tables held) nor the tables (strips held) improve on the best point"
        )
        within = (
            "the target RTP is within the reach of strips and tables together ("
            + ", ".join(f"bet {lv}: {r[0]:.4%} .. {r[1]:.4%}" for lv, r in self.reach.items())
            + ")"
            if self.reach
            else f"the reach of strips and tables together is not computed: {self.reach_why or 'not needed'}"
        )
        statement = (
            f"not shown infeasible ({within}): {why}; {limits}; best point reached: RTP {best:.6%} "
            f"(bet {lv0}), {missed}"
        )
        return {
            **out,
            "verdict": "stopped" if self.stopped else "stalled",
            "statement": statement,
            "binds": binds,
        }

    def text(self) -> str:
        """The report: headline, what moved (strips, then tables), why a target is missed, the figures."""
        res, tab = self.strips, self.tables
        summary = res.summary
        units = self.units_moved
        head = {
            "units moved": f"{units['strips'] + units['tables']} ({units['strips']} on the strips, "
            f"{units['tables']} in the tables)",
            "exact evaluations": self.evaluations,
            "time [s]": f"{self.seconds:.2f}",
        }
        rows = [(k, head.get(k, v)) for k, v in zip(summary["item"], summary["value"], strict=True)]
        i = next(i for i, (k, _) in enumerate(rows) if k.startswith("reel set"))
        rows.insert(i + 1, ("tables", ", ".join(t.path for t in tab.space.tables)))
        rows.append(
            (
                "table bounds",
                (
                    f"each weight within x{tab.space.weight_factor:g}"
                    if tab.space.weight_factor
                    else "weights free (at least 1)"
                )
                + "; each table's total weight held"
                + (f"; weights scaled x{tab.space.scale} first" if tab.space.scale > 1 else ""),
            )
        )
        rounds = pd.DataFrame(self.rounds)
        parts = [
            f"Strip and table tuning: {res.game.title} ({res.game.name}), {res.sets_text} and "
            f"{len(tab.space.tables)} weight table{'s' if len(tab.space.tables) > 1 else ''}",
            *(f"{k:<18} {v}" for k, v in rows),
            "",
            "What moved: reel strips",
            res.moves.to_string(index=False)
            if len(res.moves)
            else f"nothing moved on the strips{self.nothing_moved_why and ': ' + self.nothing_moved_why}",
            "",
            "What moved: weight tables",
            tab.moves.to_string(index=False) if tab.units_moved else "nothing moved in the tables",
        ]
        if not self.feasible:
            parts += ["", "Why the targets are not met", "feasibility: " + self.feasibility["statement"]]
        parts += [
            "",
            "Rounds (the exact figures after each block)",
            rounds.to_string(index=False) if len(rounds) else "none",
            "",
            "Strips",
            res.strip_changes.to_string(index=False),
            "",
            "Figures (exact, laid-out strips and tuned tables)",
            tab.figures.drop(columns="after exact").to_string(index=False),
        ]
        return "\n".join(parts)

    def json(self) -> dict:
        """The table side's JSON (``tables``, ``tables_before``) with the
        joint run's verdict; the strip side's keys are the caller's
        (:func:`slotmath.cli.tune.result_json` of :attr:`strips`)."""
        units = self.units_moved
        return {
            **{k: self.tables.json()[k] for k in ("tables", "tables_before")},
            "table_moves": self.tables.moves.to_dict(orient="records"),
            "nothing_moved_why": self.nothing_moved_why,
            "targets_met": self.feasible,
            "units_moved": units,
            "rounds": self.rounds,
            "evaluations": self.evaluations,
            "seconds": self.seconds,
            "stopped": self.stopped,
            "feasibility": self.feasibility,
        }

    def write(self, path=None, backup: bool = True):
        """Write the tuned game file: the strips of every tuned set and the
        table weights replaced, the rest of the file as it was."""
        from slotmath.io.gamewriter import write_game

        res, tab = self.strips, self.tables
        strips = {rs: res.tuned.strips(rs) for rs in res.reel_sets}
        weights = {t.path: [int(w) for w in x] for t, x in zip(tab.space.tables, tab.x_after, strict=True)}
        return write_game(res.game, strips, path, backup=backup, weights=weights)


def _moved(a: list, b: list) -> int:
    return int(sum(np.abs(np.asarray(x) - np.asarray(y)).sum() for x, y in zip(a, b, strict=True)))


def tune_joint(
    game,
    targets: Targets,
    tables,
    bounds: Bounds | None = None,
    reel_set: str | tuple | None = None,
    weight_factor: float | None = 2.0,
    component_share: float | None = DEFAULT_COMPONENT_SHARE,
    max_evaluations: int = 400,
    time_limit: float | None = None,
    max_rounds: int = 12,
    progress=True,
    scale: int = 1,
    verbose: bool = False,
) -> JointTuning:
    """Tune the strips of ``reel_set`` and the weight tables ``tables`` of ``game`` together.

    Parameters
    ----------
    game : Game or str
    targets : Targets
    tables : sequence of str
        Weight table paths (``options.hold_and_spin.values``) or ``["all"]``.
    bounds : Bounds, optional
        The strips' limits (:class:`~slotmath.tuning.reelspace.Bounds`).
    reel_set : str or tuple of str, optional
        As for :func:`~slotmath.tuning.tune.tune`.
    weight_factor : float or None
        Each table weight within ``[ceil(w0 / f), floor(w0 * f)]`` of the
        game file's ``w0`` (None: from 1 to the table's total).
    component_share : float or None
        Each RTP component's share of the RTP within ``share0 * (1 +- b)``
        of the game file's (None: free).
    max_evaluations : int
        Budget of exact evaluations, both blocks together.
    time_limit : float, optional
        Wall-clock budget [s], the closing figures included; the best point
        so far is returned.
    max_rounds : int
        Integer-programme rounds of each block's search.
    progress : bool
        A tqdm bar on stderr for runs over 2 s.
    scale : int
        Every table weight is first multiplied by ``scale`` (the same draw law).
    verbose : bool
        Print the strip search's steps on stderr.

    Returns
    -------
    JointTuning
    """
    t0 = time.perf_counter()
    game, sets, targets, levels = run_setup(game, targets, reel_set)
    set_arg = sets[0] if len(sets) == 1 else sets
    bar = progress_bar(max_evaluations, "tuning strips and tables") if progress else None
    say = (lambda m: print(m, file=sys.stderr)) if verbose else None
    try:
        run = _Blocks(
            game, tables, weight_factor, scale, set_arg, bounds, targets, levels, max_rounds,
            max_evaluations, time_limit, t0, bar, say,
        )  # fmt: skip
        x_tables = run.file_tables.x0
        space = run.strip_space(x_tables)
        ev = Evaluator(space, targets, levels)
        x_before = space.x0
        first = ev.figures(x_before, set(targets.figures) | {"rtp"})[levels[0]]
        extra = component_share_bands(first, targets, component_share)
        if extra:
            targets = dataclasses.replace(targets, bands={**targets.bands, **extra})
            run.targets = targets
            ev = Evaluator(space, targets, levels)
        t_all = time.perf_counter()
        before = ev.figures(x_before)
        run.reserve = time.perf_counter() - t_all  # the closing figures cost as much
        run.longest = ev.longest
        xs, xt = [x.copy() for x in x_before], [x.copy() for x in x_tables]
        best = assess(ev.figures(xs, ev.needed), targets)
        bxs, bxt = xs, xt  # the best point so far; (xs, xt): where the search stands
        aimed = None
        for rnd in range(1, MAX_BLOCK_ROUNDS + 1):
            key = best.key
            steps = [("strips", targets), ("tables", targets)]
            if rnd > 1 and aimed is not None:
                steps = [("tables, bands first", aimed), ("strips", targets), ("tables", targets)]
            for block, goal in steps:
                if block == "strips":
                    xs_new, a = run.strips(xs, xt)
                    moved, xs = _moved(xs_new, xs), xs_new
                else:
                    xt_new, a = run.tables(xs, xt, goal)
                    moved, xt = _moved(xt_new, xt), xt_new
                if a is None:
                    break
                if a.better_than(best):
                    bxs, bxt, best = xs, xt, a
                run.rounds.append(_round_row(rnd, block, moved, a, run.count))
                if best.feasible or run.stopped:
                    break
            if best.feasible or run.stopped:
                break
            # not met: next round the tables first aim inside the bands missed
            # (the RTP free), and the strips then bring the RTP back
            aimed = _aim_inside(targets, best, run.sens)
            if best.key >= key and (rnd > 1 or aimed is None):
                break  # a whole round improved nothing
            xs, xt = bxs, bxt
        xs, xt = bxs, bxt
        count, stopped, rounds, sens = run.count, run.stopped, run.rounds, run.sens
        space = run.strip_space(xt)
        after = Evaluator(space, targets, levels).figures(xs)
        tspace_end = run.table_space(xs, xt)
    except (GameFileError, EngineTooLarge) as exc:
        problem = f"{exc.field}: {exc.problem}" if isinstance(exc, GameFileError) else str(exc)
        raise BoundsError(
            f"--table: the exact figures are refused, so strips and tables cannot be tuned: {problem}"
        ) from None
    finally:
        if bar is not None:
            bar.close()
    tuned = space.game_for(xs)
    result = assess(after, targets)
    seconds = time.perf_counter() - t0
    strips = TuningResult(
        game,
        tuned,
        space.reel_set,
        targets,
        space,
        x_before,
        xs,
        before,
        after,
        assess(before, targets),
        result,
        pd.DataFrame(),
        count,
        seconds,
        stopped,
        extra,
    )
    tabs = TableTuning(
        game,
        tuned,
        tspace_end,
        targets,
        [x.copy() for x in x_tables],
        xt,
        before,
        after,
        assess(before, targets),
        result,
        sens,
        count,
        seconds,
        stopped,
        extra,
    )
    reach, reach_why = None, ""
    if not result.feasible:
        # about two exact evaluations per combination of table entries (the ends of each strip reach)
        cost = REACH_EVALUATIONS * int(np.prod([len(x) for x in run.file_tables.x0])) * run.longest
        if stopped.startswith("time limit") or (
            time_limit is not None and time.perf_counter() - t0 + cost > time_limit
        ):
            reach_why = "the time limit leaves no time for it"
        else:
            try:
                reach, reach_why = joint_reach(run)
            except (GameFileError, EngineTooLarge) as exc:
                reach_why = f"a game with every draw on one entry is refused ({exc})"
        seconds = time.perf_counter() - t0
    return JointTuning(strips, tabs, rounds, count, seconds, stopped, reach, reach_why)


def joint_reach(run: _Blocks) -> tuple:
    """The RTP [x total bet] the strips and the tables reach together, within
    every limit of the file (module notes): ``({level: (lo, hi, binds_lo,
    binds_hi)}, "")``, or ``(None, why)`` when no bound is proven.
    ``binds_*`` name the table weights at a limit at the linear programme's
    end and the strips (at their relaxation's end)."""
    tables = run.file_tables
    for table in tables.tables:
        if table.tunable.degree != 1:
            d = table.tunable.degree
            why = "a round cap, or rules that play their own features" if d is None else f"degree {d}"
            return None, f"{table.path} is not linear in its draw probabilities ({why})"
    drawn = [np.flatnonzero(hi > 0) for hi in tables.hi]  # an entry held at 0 is never drawn
    combos = list(itertools.product(*drawn))
    if len(combos) > MAX_REACH_COMBOS:
        return None, (
            f"{len(combos)} combinations of one entry per table, above {MAX_REACH_COMBOS} (each is "
            "a reach of the strips)"
        )
    ends: dict = {}  # level -> ([L_c], [U_c]) per combination c
    for combo in combos:
        pure = [np.zeros(len(x), dtype=np.int64) for x in tables.x0]
        for t, i in enumerate(combo):
            pure[t][i] = 1
        space = ReelSpace(tables.game_for(pure), run.reel_set, run.bounds)
        solver = Solver(space, run.targets, run.levels, 1, 1)
        _, _, totals, unproven, _ = strip_reach(solver, space.x0)
        if unproven or not totals:
            return None, unproven or "the strips' reach of the features is not modelled for this game"
        for lv, (lo, hi) in totals.items():
            ends.setdefault(lv, ([], []))
            ends[lv][0].append(lo)
            ends[lv][1].append(hi)
    out = {}
    for lv, (lows, highs) in ends.items():
        sides = []
        for sign, vals in ((1.0, lows), (-1.0, highs)):
            found = _table_programme(tables, drawn, combos, sign * np.array(vals))
            if found is None:
                return None, "the tables' linear programme failed"
            sides.append((sign * found[0], found[1] + ["the strips at their relaxation's end"]))
        out[lv] = (sides[0][0], sides[1][0], sides[0][1], sides[1][1])
    return out, ""


def _table_programme(tables: TableSpace, drawn: list, combos: list, cost) -> tuple | None:
    """``min sum_c r_c cost_c`` over joint draws ``r`` (one entry per table,
    ``r >= 0``) whose marginals are ``w_t / W_t`` with each table's weights
    ``w_t`` within their limits and total ``W_t``: ``(minimum, binds)``.  The
    tables' own draws (the product of the marginals) are among these ``r``,
    so the minimum is at most theirs (module notes)."""
    C = len(combos)
    index = {}  # (table, entry) -> column of its weight
    for t, entries in enumerate(drawn):
        for i in entries:
            index[(t, int(i))] = C + len(index)
    n = C + len(index)
    rows, rhs = [], []
    for t, entries in enumerate(drawn):
        total = float(tables.x0[t].sum())
        for i in entries:
            row = np.zeros(n)
            row[[c for c, combo in enumerate(combos) if combo[t] == i]] = 1.0
            row[index[(t, int(i))]] = -1.0 / total  # sum of the joint draws on i = w_i / W
            rows.append(row)
            rhs.append(0.0)
        row = np.zeros(n)
        row[[index[(t, int(i))] for i in entries]] = 1.0
        rows.append(row)
        rhs.append(total)
    bounds = [(0.0, None)] * C + [(float(tables.lo[t][i]), float(tables.hi[t][i])) for (t, i) in index]
    c = np.concatenate([np.asarray(cost, dtype=float), np.zeros(len(index))])
    res = linprog(c, A_eq=np.array(rows), b_eq=rhs, bounds=bounds)
    if res.x is None:
        return None
    binds = []
    for (t, i), col in index.items():
        w, lo, hi = res.x[col], tables.lo[t][i], tables.hi[t][i]
        if lo < hi and (w <= lo + 1e-9 or w >= hi - 1e-9):
            side, limit = ("lower", lo) if w <= lo + 1e-9 else ("upper", hi)
            binds.append(f"{tables.label(t, i)} at its {side} limit {limit}")
    return float(res.fun), binds


def _round_row(rnd: int, block: str, moved: int, a, count: int) -> dict:
    first = next(c for c in a.checks if c.figure == "rtp")
    return {
        "round": rnd,
        "block": block,
        "units moved": moved,
        "rtp": float(first.value),
        "violation": round(float(a.violation), 9),
        "targets met": a.feasible,
        "evaluations": count,
    }


def _aim_inside(targets: Targets, a, sens: dict) -> Targets | None:
    """Targets for a table block that puts the bands ``a`` misses inside
    them by :data:`AIM_MARGIN` of their width (the RTP free), or None when
    every band is met or none missed moves with the tables (``sens``:
    ``{level: {figure: sensitivities}}`` of a table block)."""
    moves = {n for figs in sens.values() for n, g in figs.items() if np.any(g)}
    missed = {c.figure for c in a.checks if not c.ok and c.figure in targets.bands and c.figure in moves}
    if not missed:
        return None
    bands = dict(targets.bands)
    for name in missed:
        lo, hi = bands[name]
        m = AIM_MARGIN * band_scale(lo, hi)
        bands[name] = (None if lo is None else lo + m, None if hi is None else hi - m)
    return dataclasses.replace(targets, tolerance=FREE_RTP, bands=bands)


class _StripSolver(Solver):
    """The strip tuner's search, with no time kept for the line RTP's reach
    (a joint run does not compute it)."""

    def reach_seconds(self) -> float:
        return 0.0


class _Blocks:
    """The two blocks of :func:`tune_joint`, sharing one budget of exact
    evaluations, one deadline and one progress bar."""

    def __init__(
        self, game, tables, weight_factor, scale, reel_set, bounds, targets, levels, max_rounds,
        max_evaluations, time_limit, t0, bar, say,
    ):  # fmt: skip
        self.game, self.paths, self.weight_factor, self.scale = game, tables, weight_factor, scale
        self.reel_set, self.bounds, self.targets, self.levels = reel_set, bounds, targets, levels
        self.max_rounds, self.max_evaluations, self.time_limit = max_rounds, max_evaluations, time_limit
        self.t0, self.bar, self.say = t0, bar, say
        self.reserve = 0.0  # [s] kept for the closing figures
        self.file_tables = TableSpace(game, tables, weight_factor, scale)
        self.count, self.longest, self.stopped, self.rounds, self.sens = 0, 0.0, "", [], {}

    def strip_space(self, xt) -> ReelSpace:
        """The file's strips and limits, the tables at ``xt``."""
        return ReelSpace(self.file_tables.game_for(xt), self.reel_set, self.bounds)

    def table_space(self, xs, xt) -> TableSpace:
        """The strips at ``xs`` (laid out), the limits of the file's weights."""
        tuned = self.strip_space(xt).game_for(xs)
        return TableSpace(
            dataclasses.replace(tuned, options=self.game.options), self.paths, self.weight_factor, self.scale
        )

    @property
    def deadline(self) -> float | None:
        """When the last exact evaluation of the searches must end [:func:`time.perf_counter` s]."""
        return None if self.time_limit is None else self.t0 + self.time_limit - self.reserve

    def late(self) -> bool:
        """Whether an evaluation started now would end after the deadline (then ``stopped`` says so)."""
        if self.deadline is not None and time.perf_counter() + self.longest > self.deadline:
            self.stopped = f"time limit ({self.time_limit:g} s) reached"
        return bool(self.stopped)

    def strips(self, xs, xt) -> tuple:
        """The strip search from ``xs``, tables at ``xt``: ``(strips,
        assessment)``; None for the assessment when the time is up."""
        if self.late():
            return xs, None
        done, bar = self.count, self.bar

        def tick(status):
            if bar is not None:
                bar.update(max(0, done + status["evaluations"] - bar.n))

        solver = _StripSolver(
            self.strip_space(xt),
            self.targets,
            self.levels,
            self.max_rounds,
            self.max_evaluations - done,
            self.say,
            time_limit=self.time_limit,
            progress=tick,
        )
        solver.t0, solver.reserve = self.t0, self.reserve
        solver.ev.longest = self.longest
        x_new, a = solver.run(xs)
        self.count += solver.ev.count
        self.longest = max(self.longest, solver.ev.longest)
        if solver.stopped:
            self.stopped = solver.stopped.replace(
                f"evaluation budget ({self.max_evaluations - done})",
                f"evaluation budget ({self.max_evaluations})",
            )
        return x_new, a

    def tables(self, xs, xt, goal: Targets) -> tuple:
        """The table search from ``xt`` toward ``goal``, strips at ``xs``:
        ``(weights, assessment by the run's targets)``; None for the
        assessment when the time is up (nothing searched)."""
        if self.late():
            return xt, None
        search = TableSearch(self.table_space(xs, xt), goal, self.levels, self.max_evaluations - self.count)
        search.ev.deadline, search.ev.longest = self.deadline, self.longest
        if self.bar is not None:
            search.ev.tick = lambda: self.bar.update(1)  # type: ignore[assignment]  # Evaluator.tick starts as None
        xt_new, grad = search.run(xt, self.max_rounds)
        if goal is self.targets:
            self.sens = self.sens or grad
        self.count += search.ev.count
        self.longest = max(self.longest, search.ev.longest)
        if search.stopped == TIME_LIMIT:
            self.stopped = f"time limit ({self.time_limit:g} s) reached"
        elif search.stopped:
            self.stopped = f"evaluation budget ({self.max_evaluations}) spent"
        figs = search.ev.figures(xt_new, search.ev.needed | set(self.targets.figures))
        return xt_new, assess(figs, self.targets)
