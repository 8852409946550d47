"""Tuning a feature's weight tables: prize, jackpot, wheel and multiplier weights.

:func:`tune_tables` moves the weights of the weight tables named
(:mod:`slotmath.tuning.tablespace`: hold-and-spin coin values and jackpots,
wheel segments, a player's selection weights, drawn wild multipliers) so
that the game's **exact** RTP meets a target within a tolerance, every band
of :class:`~slotmath.tuning.targets.Targets` is met and each RTP
component's share of the RTP stays within its band
(:func:`~slotmath.tuning.targets.component_share_bands`); the reel strips
are held.  Every candidate is judged by the exact figures of the game with
its weights (:class:`~slotmath.tuning.linearmodels.Evaluator`).

Method
    1. *Sensitivity.*  One exact evaluation per weight, that weight + 1:
       with the table's total ``W`` held, a move ``d`` (``sum d = 0``)
       changes a figure by ``sum_u g_u d_u`` with
       ``g_u = (W + 1) / W * (f(w + e_u) - f(w))``, exactly when the figure
       is linear in the table's draw probabilities (a coin's value drawn
       independently of the rest of the round; jackpots in the same
       table), to first order otherwise.
    2. *Integer programme* (:func:`scipy.optimize.milp`): minimise the RTP
       error in units of the tolerance plus each band's violation (as
       :func:`~slotmath.tuning.targets.assess` weighs them) plus 1e-4 per
       unit moved, within the weight limits, each table's total held and a
       trust region.
    3. *Exact check*: kept only if the exact figures improve, then the
       sensitivities are taken again there; else the trust region halves.
       Single moves (one unit from one weight to another of the same
       table) ranked by the model end the search.
    4. *Feasibility*: when a target is missed, the linear programme over
       the same limits gives the RTP reachable (with and without the share
       bands); its ends are whole weights, and the end nearest the target
       is evaluated exactly, so ``infeasible`` is stated on an exact figure.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd
from scipy.optimize import Bounds as VarBounds
from scipy.optimize import LinearConstraint, linprog, milp

from slotmath.analysis.metrics import CORE_FIGURES
from slotmath.errors import BoundsError, EngineTooLarge, GameFileError
from slotmath.io.gamefile import load_game
from slotmath.model import Game
from slotmath.rules.result import fraction_str
from slotmath.tuning.linearmodels import Evaluator, TimeLimitReached
from slotmath.tuning.tablespace import TableSpace
from slotmath.tuning.targets import (
    BAND_WEIGHT,
    DEFAULT_COMPONENT_SHARE,
    Assessment,
    Targets,
    assess,
    band_scale,
    component_share_bands,
)
from slotmath.tuning.tune import check_target_modes, progress_bar, target_levels

MOVE_COST = 1e-4  # objective per unit moved [tolerances]: among equal answers the smallest change
PAIR_TRIES = 6  # single moves judged exactly per step of the final search
TIME_LIMIT = "time limit reached"
LINEAR_SLACK = 1e-9  # |exact - linear model| [x total bet, relative] below which the model is the figure


def _diff(a, b) -> float:
    """``a - b`` as float, exact when both are exact (no cancellation)."""
    if isinstance(a, (Fraction, int)) and isinstance(b, (Fraction, int)):
        return float(Fraction(a) - Fraction(b))
    return float(a) - float(b)


@dataclass
class TableTuning:
    """Outcome of :func:`tune_tables`.

    Attributes
    ----------
    game, tuned : Game
        The game as loaded and with the tuned weights.
    space : TableSpace
    targets : Targets
        With the component-share bands added.
    x_before, x_after : list of ndarray
        Weights per table.
    before, after : dict
        ``{level: {figure: value}}`` exact figures of both games.
    assessment_before, assessment : Assessment
    sensitivity : dict
        ``{level: {figure: ndarray}}``: the exact change of each judged
        figure per unit moved into each movable weight (total held), at
        the game file's weights (:attr:`TableSpace.units` order).
    evaluations : int
    seconds : float
    stopped : str
        Why the search ended early (budget, time limit); "" otherwise.
    component_bands : dict
    reach : dict
        ``{level: {...}}`` the RTP reachable (computed when a target is missed).
    """

    game: Game
    tuned: Game
    space: TableSpace
    targets: Targets
    x_before: list
    x_after: list
    before: dict
    after: dict
    assessment_before: Assessment
    assessment: Assessment
    sensitivity: dict
    evaluations: int
    seconds: float
    stopped: str = ""
    component_bands: dict | None = None
    reach: dict | None = None

    @property
    def feasible(self) -> bool:
        """Whether every target is met by the tuned weights."""
        return self.assessment.feasible

    @property
    def units_moved(self) -> int:
        return int(sum(np.abs(a - b).sum() for a, b in zip(self.x_after, self.x_before, strict=True)))

    @property
    def moves(self) -> pd.DataFrame:
        """Every weight that changed: table, entry, before, after, change,
        the exact change of the RTP per unit [pp] (at the game file's
        weights, total held) and the target it serves."""
        lv = next(iter(self.after))
        sens = dict(zip(self.space.units, self.sensitivity.get(lv, {}).get("rtp", []), strict=False))
        gap = float(self.targets.rtp) - float(self.before[lv]["rtp"])
        rows = []
        for t, table in enumerate(self.space.tables):
            for i, (b, a) in enumerate(zip(self.x_before[t], self.x_after[t], strict=True)):
                if a == b:
                    continue
                g = sens.get((t, i))
                serves = g is not None and g * (a - b) * gap > 0 and abs(gap) > self.targets.tolerance
                rows.append(
                    {
                        "table": table.path,
                        "entry": table.labels[i],
                        "before": int(b),
                        "after": int(a),
                        "change": int(a - b),
                        "RTP per unit [pp]": None if g is None else round(g * 100, 6),
                        "why": f"RTP {'up' if gap > 0 else 'down'}"
                        if serves
                        else "balance (total held, bands)",
                    }
                )
        return pd.DataFrame(
            rows, columns=["table", "entry", "before", "after", "change", "RTP per unit [pp]", "why"]
        )

    @property
    def nothing_moved_why(self) -> str:
        """Why no weight moved ("" when some did)."""
        if self.units_moved:
            return ""
        if self.assessment_before.feasible:
            return "every target is met by the weights in the game file"
        if not self.space.units:
            return "no weight of the tables may move (each is 0, or held by its limits)"
        if self.sensitivity and all(
            not np.any(g) for figs in self.sensitivity.values() for g in figs.values()
        ):
            return (
                "no figure judged changes with these weights (every sensitivity is 0): "
                "the tables do not reach the figures targeted"
            )
        return self.feasibility["statement"]

    @property
    def feasibility(self) -> dict:
        """``verdict`` (``met``, ``infeasible``, ``stopped``, ``stalled``),
        ``statement``, ``binds`` (the limits that bind) and ``best_rtp``."""
        lv0 = next(iter(self.after))
        best = float(self.after[lv0]["rtp"])
        out = {"verdict": "met", "statement": "every target met", "binds": [], "best_rtp": best}
        if self.feasible:
            return out
        t, tol = float(self.targets.rtp), self.targets.tolerance
        for lv, r in (self.reach or {}).items():
            lo, hi = r["range"]
            if not lo - tol <= t <= hi + tol:
                above = t > hi
                end = r["high" if above else "low"]
                if not end["linear"]:  # the linear programme's end need not be the reach: nothing proven
                    continue
                binds = end["binds"] or ["the table totals (held) and the weights of 0 (held)"]
                statement = (
                    f"infeasible under the bounds: the target RTP {t:.4%} is "
                    f"{'above the highest' if above else 'below the lowest'} RTP the table weights reach "
                    f"within their limits at bet {lv} ({hi if above else lo:.6%}, that end evaluated "
                    f"exactly); there: {'; '.join(binds)} (release with --weight-factor)"
                )
                return {**out, "verdict": "infeasible", "statement": statement, "binds": binds}
            if r["band_binds"] and r["low"]["linear"] and r["high"]["linear"]:
                binds = r["band_binds"]
                shares = {b.split(" at its ")[0] for b in binds} <= set(self.component_bands or {})
                release = "--component-share off or a wider band" if shares else "a wider band"
                statement = (
                    f"infeasible under the bounds: the weights reach {lo:.4%} .. {hi:.4%} at bet {lv}, "
                    f"but with the RTP on target these bands cannot all hold (linear model): "
                    f"{'; '.join(binds)} (release with {release})"
                )
                return {**out, "verdict": "infeasible", "statement": statement, "binds": binds}
        missed = "; ".join(
            f"{c.figure} (bet {c.level}) missed by {_pp(c.miss)}" for c in self.assessment.checks if not c.ok
        )
        curved = [
            f"bet {lv}: the {k} end {r[k]['rtp']:.6%} exactly, {r[k]['model']:.6%} by the linear model"
            for lv, r in (self.reach or {}).items()
            for k in ("low", "high")
            if not r[k]["linear"]
        ]
        within = (
            "the RTP is not linear in the weights, so their reach is not proven (" + "; ".join(curved) + ")"
            if curved
            else "the target RTP is within reach ("
            + ", ".join(
                f"bet {lv}: {r['range'][0]:.4%} .. {r['range'][1]:.4%}" for lv, r in self.reach.items()
            )
            + ")"
            if self.reach
            else "the reach was not computed (the time limit)"
        )
        totals = ", ".join(str(int(x.sum())) for x in self.x_after)
        why = self.stopped or (
            "the search made no further progress (a band or the weights' whole-number steps bind: "
            f"each table's total is held at {totals}; --table-scale 10 makes the steps 10 times finer)"
        )
        statement = (
            f"not shown infeasible: {within}; {why}; best point reached: RTP {best:.6%} (bet {lv0}), {missed}"
        )
        return {**out, "verdict": "stopped" if self.stopped else "stalled", "statement": statement}

    @property
    def figures(self) -> pd.DataFrame:
        """Before/after figures at every level with the targets."""
        rows = []
        for lv in self.after:
            names = dict.fromkeys(
                [*CORE_FIGURES, *self.targets.figures, *(k for k in self.after[lv] if k.startswith("rtp:"))]
            )
            for name in names:
                b, a = self.before[lv].get(name), self.after[lv].get(name)
                if a is None or b is None:
                    continue
                if name in self.targets.rtp_figures:
                    tgt = f"{float(self.targets.target_of(name)):.6%} +- {self.targets.tolerance:.4%}"
                elif name in self.targets.bands:
                    lo, hi = self.targets.bands[name]
                    tgt = f"{_val(name, lo)} .. {_val(name, hi)}"
                else:
                    tgt = ""
                ok = [c.ok for c in self.assessment.checks if c.level == lv and c.figure == name]
                rows.append(
                    {
                        "level": lv,
                        "figure": name,
                        "before": _val(name, b),
                        "after": _val(name, a),
                        "target": tgt,
                        "met": ("yes" if all(ok) else "NO") if ok else "",
                        "after exact": fraction_str(a) if isinstance(a, Fraction) else None,
                    }
                )
        return pd.DataFrame(rows)

    def text(self) -> str:
        """The report: headline, what moved (or why nothing), why a target is missed, the figures."""
        head = [
            ("tables", ", ".join(t.path for t in self.space.tables)),
            *(
                [("weights scaled", f"x{self.space.scale} first (the same draw law; 'before' is scaled)")]
                if self.space.scale > 1
                else []
            ),
            *(
                [("bet mode", f"{self.targets.primary} (RTP per unit of its cost)")]
                + [(f"mode {m}", f"target RTP {float(r):.6%}") for m, r in self.targets.mode_rtp.items()]
                if self.targets.modes
                else []
            ),
            ("target RTP", f"{float(self.targets.rtp):.6%} +- {self.targets.tolerance:.4%}"),
            ("levels", ", ".join(map(str, self.after))),
            ("targets met", "yes" if self.feasible else "NO"),
            ("units moved", self.units_moved),
            ("exact evaluations", self.evaluations),
            ("time [s]", f"{self.seconds:.2f}"),
            (
                "shape bounds",
                (
                    f"each weight within x{self.space.weight_factor:g}"
                    if self.space.weight_factor
                    else "weights free (at least 1)"
                )
                + "; each table's total weight held; "
                + (
                    "component shares: " + ", ".join(self.component_bands)
                    if self.component_bands
                    else "component shares free"
                ),
            ),
        ]
        if self.stopped:
            head.append(("stopped", self.stopped))
        parts = [
            f"Table tuning: {self.game.title} ({self.game.name}); reel strips held",
            *(f"{k:<18} {v}" for k, v in head),
            "",
            "What moved",
            self.moves.to_string(index=False)
            if self.units_moved
            else f"nothing moved: {self.nothing_moved_why}",
        ]
        if not self.feasible:
            parts += ["", "Why the targets are not met", "feasibility: " + self.feasibility["statement"]]
        parts += ["", "Figures (exact)", self.figures.drop(columns="after exact").to_string(index=False)]
        return "\n".join(parts)

    def json(self) -> dict:
        """The result as one JSON-ready object."""
        fig = self.figures
        return {
            "game": self.game.name,
            "tables": {
                t.path: [int(w) for w in x] for t, x in zip(self.space.tables, self.x_after, strict=True)
            },
            "tables_before": {
                t.path: [int(w) for w in x] for t, x in zip(self.space.tables, self.x_before, strict=True)
            },
            "targets_met": self.feasible,
            "target_rtp": float(self.targets.rtp),
            "mode": self.targets.primary if self.targets.modes else None,
            "mode_targets": {k: float(v) for k, v in self.targets.mode_rtp.items()},
            "tolerance": self.targets.tolerance,
            "bands": {k: list(v) for k, v in self.targets.bands.items()},
            "moves": self.moves.to_dict(orient="records"),
            "units_moved": self.units_moved,
            "nothing_moved_why": self.nothing_moved_why,
            "figures": fig.where(fig.notna(), None).to_dict(orient="records"),
            "evaluations": self.evaluations,
            "seconds": self.seconds,
            "stopped": self.stopped,
            "component_bands": {k: list(v) for k, v in (self.component_bands or {}).items()},
            "feasibility": self.feasibility,
        }

    def write(self, path=None, backup: bool = True):
        """Write the tuned game file: the original text with each changed weight replaced in place."""
        from slotmath.io.gamewriter import write_game

        weights = {t.path: [int(w) for w in x] for t, x in zip(self.space.tables, self.x_after, strict=True)}
        return write_game(self.game, {}, path, backup=backup, weights=weights)


def _pp(v: float) -> str:
    return f"{v:.6%}"


def _val(name: str, v) -> str:
    if v is None:
        return ""
    if name.startswith("rtp") or name in ("hit_frequency", "feature_frequency"):
        return f"{float(v):.6%}"
    return f"{float(v):.6g}"


# ====================================================================== search
class TableSearch:
    """The search of :func:`tune_tables` over one :class:`TableSpace`."""

    def __init__(self, space: TableSpace, targets: Targets, levels: tuple, max_evaluations: int):
        self.space, self.targets, self.levels = space, targets, levels
        self.ev = Evaluator(space, targets, levels)  # type: ignore[arg-type]  # a table space reads as a reel space
        self.units = space.units
        self.max_evaluations = max_evaluations
        self.stopped = ""
        self.reps = sorted(set(self.ev.rep.values()))

    def spent(self) -> bool:
        if self.ev.count >= self.max_evaluations:
            self.stopped = f"evaluation budget ({self.max_evaluations}) spent"
        return bool(self.stopped)

    def judge(self, xs) -> Assessment:
        return self.ev(xs)[1]

    def gradient(self, xs) -> dict:
        """``{level: {figure: g}}``: each judged figure's change per unit
        moved into each movable weight, its table's total held (module notes)."""
        f0 = self.ev.figures(xs, self.ev.needed)
        out = {lv: {n: np.zeros(len(self.units)) for n in self.targets.figures} for lv in self.reps}
        for k, (t, i) in enumerate(self.units):
            if self.spent():
                raise TimeLimitReached
            up = [x.copy() for x in xs]
            up[t][i] += 1
            f1 = self.ev.figures(up, self.ev.needed)
            w = float(xs[t].sum())
            for lv in self.reps:
                for n in self.targets.figures:
                    out[lv][n][k] = (w + 1) / w * _diff(f1[lv][n], f0[lv][n])
        return out

    def rows(self, xs, grad) -> list:
        """``(g, aim_lo, aim_hi, cost per unit outside, name)``: each check as a linear row in the move."""
        f0 = self.ev.figures(xs, self.ev.needed)
        out = []
        tol = self.targets.tolerance
        for lv in self.reps:
            for n in self.targets.rtp_figures:
                t = float(self.targets.target_of(n)) - float(f0[lv][n])
                out.append((grad[lv][n], t, t, 1.0 / tol, n))
            for n, (lo, hi) in self.targets.bands.items():
                v = float(f0[lv][n])
                out.append(
                    (
                        grad[lv][n],
                        -np.inf if lo is None else lo - v,
                        np.inf if hi is None else hi - v,
                        BAND_WEIGHT / band_scale(lo, hi),
                        n,
                    )
                )
        return out

    def limits(self, xs, radius=None) -> tuple:
        lo = np.array([self.space.lo[t][i] - xs[t][i] for t, i in self.units], dtype=float)
        hi = np.array([self.space.hi[t][i] - xs[t][i] for t, i in self.units], dtype=float)
        if radius is not None:
            lo, hi = np.maximum(lo, -radius), np.minimum(hi, radius)
        return lo, hi

    def totals(self) -> np.ndarray:
        """One row per table: the sum of its units' moves (held at 0)."""
        a = np.zeros((len(self.space.tables), len(self.units)))
        for k, (t, _) in enumerate(self.units):
            a[t, k] = 1
        return a

    def solve(self, xs, grad, radius) -> np.ndarray:
        """The integer programme of the module notes: a move ``d`` per unit."""
        rows = self.rows(xs, grad)
        n, m = len(self.units), len(rows)
        # variables: d (n, integer), then per row an excess below and above its aim (>= 0)
        c = np.concatenate([np.zeros(n), np.repeat([r[3] for r in rows], 2), np.full(n, MOVE_COST)])
        lo, hi = self.limits(xs, radius)
        lb = np.concatenate([lo, np.zeros(2 * m), np.zeros(n)])
        ub = np.concatenate([hi, np.full(2 * m, np.inf), np.full(n, np.inf)])
        a_rows, blo, bhi = [], [], []
        for t_row in self.totals():
            a_rows.append(np.concatenate([t_row, np.zeros(2 * m + n)]))
            blo.append(0.0)
            bhi.append(0.0)
        for j, (g, aim_lo, aim_hi, _, _) in enumerate(rows):
            # g.d + below >= aim_lo and g.d - above <= aim_hi
            for sign, bound in ((1, aim_lo), (-1, aim_hi)):
                if not np.isfinite(bound):
                    continue
                r = np.zeros(n + 2 * m + n)
                r[:n] = g
                r[n + 2 * j + (0 if sign == 1 else 1)] = sign
                a_rows.append(r)
                blo.append(bound if sign == 1 else -np.inf)
                bhi.append(np.inf if sign == 1 else bound)
        for k in range(n):  # |d_k| <= moved_k
            for sign in (1, -1):
                r = np.zeros(n + 2 * m + n)
                r[k], r[n + 2 * m + k] = sign, 1
                a_rows.append(r)
                blo.append(0.0)
                bhi.append(np.inf)
        res = milp(
            c,
            integrality=np.concatenate([np.ones(n), np.zeros(2 * m + n)]),
            bounds=VarBounds(lb, ub),
            constraints=LinearConstraint(np.array(a_rows), blo, bhi),
            options={"time_limit": 10.0, "disp": False},
        )
        if res.x is None:
            return np.zeros(n, dtype=np.int64)
        return np.rint(res.x[:n]).astype(np.int64)

    def apply(self, xs, d) -> list:
        out = [x.copy() for x in xs]
        for (t, i), v in zip(self.units, d, strict=True):
            out[t][i] += int(v)
        return out

    def run(self, xs, max_rounds: int = 12) -> tuple:
        """Search from ``xs``: ``(best weights, first sensitivity)``."""
        best, first = xs, {}
        radius = None
        try:
            cur = self.judge(xs)
            grad = self.gradient(best)
            first = grad
            for _ in range(max_rounds):
                if cur.feasible or self.spent():
                    break
                d = self.solve(best, grad, radius)
                if not d.any():
                    break
                cand = self.apply(best, d)
                a = self.judge(cand)
                if a.better_than(cur):
                    best, cur, radius = cand, a, None
                    grad = self.gradient(best)
                else:
                    step = int(np.abs(d).max())
                    if step <= 1:
                        break
                    radius = step // 2
            while not cur.feasible and not self.spent():
                moved = self.single_moves(best, cur, grad)
                if moved is None:
                    break
                best, cur = moved
                grad = self.gradient(best)
        except TimeLimitReached:
            if not self.stopped:
                self.stopped = TIME_LIMIT
        return best, first

    def single_moves(self, xs, cur: Assessment, grad):
        """One unit from one weight to another of its table, the moves the
        model ranks best judged exactly; the first that improves, or None."""
        rows = self.rows(xs, grad)
        lo, hi = self.limits(xs)
        cands = []
        for a, (ta, _) in enumerate(self.units):
            for b, (tb, _) in enumerate(self.units):
                if a == b or ta != tb or hi[a] < 1 or lo[b] > -1:
                    continue
                d = np.zeros(len(self.units))
                d[a], d[b] = 1, -1
                cost = sum(w * max(0.0, float(g @ d) - ahi, alo - float(g @ d)) for g, alo, ahi, w, _ in rows)
                cands.append((cost, a, b, d))
        cands.sort(key=lambda c: (c[0], c[1], c[2]))
        for _, _, _, d in cands[:PAIR_TRIES]:
            if self.spent():
                return None
            cand = self.apply(xs, d.astype(np.int64))
            a = self.judge(cand)
            if a.better_than(cur):
                return cand, a
        return None

    def bands_at_target(self, f0: dict, grad: dict, lo, hi) -> list:
        """The bands that cannot all hold with the RTP on target (linear
        model, the weight limits, each table's total held): the least
        total violation's bands outside, ``NAME at its lower limit X``."""
        bands = [
            (n, side, b, grad[n], float(b) - float(f0[n]), band_scale(*self.targets.bands[n]))
            for n, (blo, bhi) in self.targets.bands.items()
            for side, b in (("lower", blo), ("upper", bhi))
            if b is not None
        ]
        if not bands:
            return []
        n, m = len(self.units), len(bands)
        # variables: the move d, then one excess per band side (>= 0)
        a_ub = np.zeros((m, n + m))
        b_ub = np.zeros(m)
        for j, (_, side, _, g, gap, _) in enumerate(bands):
            sign = -1.0 if side == "lower" else 1.0  # lower: g.d + s >= gap; upper: g.d - s <= gap
            a_ub[j, :n], a_ub[j, n + j], b_ub[j] = sign * g, -1.0, sign * gap
        eq = np.hstack([self.totals(), np.zeros((len(self.space.tables), m))])
        pin = np.concatenate([grad["rtp"], np.zeros(m)])
        res = linprog(
            np.concatenate([np.zeros(n), [1.0 / b[5] for b in bands]]),
            A_ub=a_ub,
            b_ub=b_ub,
            A_eq=np.vstack([eq, pin]),
            b_eq=np.concatenate([np.zeros(len(eq)), [float(self.targets.rtp) - float(f0["rtp"])]]),
            bounds=[*zip(lo, hi, strict=True), *[(0, None)] * m],
            method="highs",
        )
        if res.x is None:
            return []
        return [
            f"{name} at its {side} limit {_val(name, b)}"
            for (name, side, b, *_), s in zip(bands, res.x[n:], strict=True)
            if s > 1e-12
        ]

    def reach(self, xs, x0=None, g0=None) -> dict:
        """``{level: {range, low, high, band_binds}}``: the RTP the weights
        reach within their limits (the linear programme's ends, whole
        weights, evaluated exactly; ``low``/``high``: each end's RTP, the
        limits it sits on, and whether the linear model -- at ``xs`` and,
        given, the sensitivities ``g0`` at ``x0`` -- gives the same: only
        then is the end the reach) and the bands that cannot hold with the
        RTP on target (:meth:`bands_at_target`)."""
        grad = self.gradient(xs)
        f0 = self.ev.figures(xs, self.ev.needed)
        lo, hi = self.limits(xs)
        eq = self.totals()
        out = {}
        for lv in self.reps:
            g = grad[lv]["rtp"]
            ends = {}
            for key, sign in (("low", 1), ("high", -1)):
                res = linprog(
                    sign * g,
                    A_eq=eq,
                    b_eq=np.zeros(len(eq)),
                    bounds=list(zip(lo, hi, strict=True)),
                    method="highs",
                )
                d = np.rint(res.x).astype(np.int64) if res.x is not None else np.zeros(len(g), dtype=np.int64)
                end = self.apply(xs, d)
                exact = float(self.ev.figures(end, self.ev.needed)[lv]["rtp"])
                model = float(f0[lv]["rtp"]) + float(g @ d)
                if x0 is not None and g0:  # the first sensitivities predict the end too when linear
                    start = float(self.ev.figures(x0, self.ev.needed)[lv]["rtp"])
                    moved = np.array([end[t][i] - x0[t][i] for t, i in self.units], dtype=float)
                    linear0 = abs(exact - start - float(g0[lv]["rtp"] @ moved)) <= LINEAR_SLACK * max(
                        1.0, abs(exact)
                    )
                    model = model if linear0 else start + float(g0[lv]["rtp"] @ moved)
                ends[key] = {
                    "rtp": exact,
                    "model": model,
                    # the model is the figure (linear in the draw probabilities) up to rounding
                    "linear": abs(exact - model) <= LINEAR_SLACK * max(1.0, abs(exact)),
                    "binds": [f"{u} {text}" for u, text in self.space.binding(end)],
                }
            out[lv] = {
                "range": (ends["low"]["rtp"], ends["high"]["rtp"]),
                "low": ends["low"],
                "high": ends["high"],
                "band_binds": self.bands_at_target(f0[lv], grad[lv], lo, hi),
            }
        return {lv: out[self.ev.rep[lv]] for lv in self.levels}


def tune_tables(
    game,
    targets: Targets,
    tables,
    weight_factor: float | None = 2.0,
    component_share: float | None = DEFAULT_COMPONENT_SHARE,
    max_evaluations: int = 400,
    time_limit: float | None = None,
    max_rounds: int = 12,
    progress=True,
    scale: int = 1,
) -> TableTuning:
    """Tune the weights of the weight tables ``tables`` of ``game`` to ``targets``.

    Parameters
    ----------
    game : Game or str
    targets : Targets
        As for the strips: the game as declared, or with ``mode`` /
        ``mode_rtp`` bet modes' figures per unit of cost
        (:class:`~slotmath.tuning.linearmodels.Evaluator`); the reach of
        the feasibility statement is that of the tuned mode's RTP.
    tables : sequence of str
        Table paths (``options.hold_and_spin.values``) or ``["all"]``.
    weight_factor : float or None
        Shape bound: each weight within ``[ceil(w0 / f), floor(w0 * f)]``,
        at least ``w0 +- 1`` and never below 1 (None: from 1 to the table's total).
    component_share : float or None
        Shape bound: each RTP component's share of the RTP within
        ``share0 * (1 +- component_share)`` (None: free).
    max_evaluations : int
        Budget of exact evaluations.
    time_limit : float, optional
        Wall-clock budget [s]; the best weights so far are returned.
    progress : bool
        A tqdm bar on stderr for runs over 2 s.
    scale : int
        Every weight is first multiplied by ``scale`` (the same draw law,
        steps ``scale`` times finer; default 1).

    Returns
    -------
    TableTuning
    """
    t0 = time.perf_counter()
    if not isinstance(game, Game):
        game = load_game(game)
    check_target_modes(game, targets)
    targets = targets.with_game_constraints(game)
    levels = target_levels(game, targets)
    space = TableSpace(game, tables, weight_factor, scale)
    search = TableSearch(space, targets, levels, max_evaluations)
    ev = search.ev
    bar = None
    if progress:
        bar = progress_bar(max_evaluations, "tuning tables")
        ev.tick = lambda: bar.update(1)
    try:
        x0 = [x.copy() for x in space.x0]
        first = ev.figures(x0, set(targets.figures) | {"rtp"})[levels[0]]
        extra = component_share_bands(first, targets, component_share)
        if extra:
            targets = dataclasses.replace(targets, bands={**targets.bands, **extra})
            search.targets = ev.targets = targets
            ev.needed = set(targets.figures)
        before = ev.figures(x0)
        if time_limit is not None:  # the search's; the figures after and the reach are the answer's
            ev.deadline = t0 + time_limit
        x_after, sens = search.run(x0, max_rounds)
        ev.deadline = None
        after = ev.figures(x_after)
        result = assess(after, targets)
        reach = None
        if not result.feasible and search.stopped != TIME_LIMIT:
            search.max_evaluations = ev.count + 2 * len(search.units) + 8
            stopped, search.stopped = search.stopped, ""
            try:
                reach = search.reach(x_after, x0, sens)
            except TimeLimitReached:
                reach = None
            search.stopped = stopped
    except (GameFileError, EngineTooLarge) as exc:
        problem = f"{exc.field}: {exc.problem}" if isinstance(exc, GameFileError) else str(exc)
        raise BoundsError(
            f"--table: the exact figures are refused, so the tables cannot be tuned: {problem}"
        ) from None
    finally:
        if bar is not None:
            bar.close()
    return TableTuning(
        game,
        space.game_for(x_after),
        space,
        targets,
        x0,
        x_after,
        before,
        after,
        assess(before, targets),
        result,
        sens,
        ev.count,
        time.perf_counter() - t0,
        search.stopped,
        extra,
        reach,
    )
