"""The reel-tuning search: linear models, per-reel integer programmes, local search.

See :mod:`slotmath.tuning.tune` for the method in words.  Everything here works on
the integer variables of a :class:`~slotmath.tuning.reelspace.ReelSpace` and judges
every candidate on exact figures (:class:`Evaluator`).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from scipy.optimize import Bounds as VarBounds
from scipy.optimize import LinearConstraint, milp

from slotmath.errors import ensure
from slotmath.rules.registry import rules_for
from slotmath.tuning.componentmodels import channel_figure, line_form_scales, unit_classes
from slotmath.tuning.linearmodels import (  # noqa: F401  (re-exported)
    CENTRE_COST,
    MOVE_COST,
    OUTSIDE_COST,
    PROXY_OF,
    STOP,
    Evaluator,
    FigureModel,
    LineForms,
    StopForms,
    TimeLimitReached,
    fast_forms,
    proxy_kind,
    row_objective,
    stop_value_hook,
)
from slotmath.tuning.reelspace import ReelSpace
from slotmath.tuning.targets import Targets, band_scale

# Integer-programme objective, in units of the RTP tolerance:
AIM = 0.5  # aim inside half the tolerance (margin for inexact models) ...
AIM_EXACT = 0.95  # ... or nearly all of it when the RTP model is exact
MILP_NODES = 400  # branch-and-bound node limit of one reel's programme (the
# incumbent is used): a work limit, so runs are reproducible
MILP_SECONDS = 60.0  # safety net only
RANGE_SWEEPS = 3  # block-coordinate sweeps of the reachable-RTP relaxation (line_rtp_range)
PAIR_SINGLES = 400  # pairs of moves are formed among this many best single moves


class Solver:
    """The tuning loop (see the module notes)."""

    def __init__(
        self,
        space: ReelSpace,
        targets: Targets,
        levels,
        max_rounds=12,
        max_evaluations=400,
        log=None,
        time_limit=None,
        progress=None,
        cancel=None,
    ):
        self.space, self.targets = space, targets
        self.levels = tuple(levels)
        self.ev = Evaluator(space, targets, self.levels)
        self.time_limit = time_limit
        self.progress = progress  # called with each log row (see :meth:`log`)
        self.cancel = cancel  # callable: True stops the run (best so far is kept)
        self.stopped = ""
        self.best_rtp = None
        self.kept: tuple | None = None  # (values, assessment) of the best point logged
        if progress is not None:
            self.ev.tick = lambda: progress(self.status())
        self.forms = fast_forms(space, sorted(set(self.ev.rep.values())))
        self.max_rounds, self.max_evaluations = max_rounds, max_evaluations
        self.log_rows: list = []
        self.say = log or (lambda msg: None)
        self.secant: dict = {}
        self.aim = AIM
        self.rtp_exact = False
        self.rejected: set = set()
        self.t0 = time.perf_counter()
        self.reserve = 0.0  # [s] kept after the search (see :meth:`deadline`)
        self.milp_time = (0.0, 0)  # seconds and count of the reel programmes solved
        self.grouped = False  # finite differences by classes of units (a feature game's models)
        self._unproven: str | None = None  # cached :meth:`unproven`

    # -------------------------------------------------------------- helpers
    def spent(self) -> bool:
        """Whether the budget (evaluations, wall-clock seconds) is spent or
        the run was cancelled; sets ``stopped`` to the reason."""
        if self.ev.count >= self.max_evaluations:
            self.stopped = f"evaluation budget ({self.max_evaluations}) spent"
        elif self.time_limit is not None and time.perf_counter() >= self.deadline():
            self.stopped = f"time limit ({self.time_limit:g} s) reached"
        elif self.cancel is not None and self.cancel():
            self.stopped = "cancelled"
        return bool(self.stopped)

    def status(self) -> dict:
        """Progress so far: evaluations, seconds, best RTP and its distance to the target."""
        d = None if self.best_rtp is None else abs(self.best_rtp - float(self.targets.rtp))
        return {
            "evaluations": self.ev.count,
            "seconds": time.perf_counter() - self.t0,
            "best_rtp": self.best_rtp,
            "distance": d,
        }

    def deadline(self) -> float | None:
        """When the search must stop [:func:`time.perf_counter` s]: the time
        limit less the time kept for the work after the search (``reserve``,
        the report's evaluation of every figure, and :meth:`reach_seconds`)."""
        if self.time_limit is None:
            return None
        return self.t0 + self.time_limit - self.reserve - self.reach_seconds()

    def reach_seconds(self) -> float:
        """Estimated time of :func:`line_rtp_range` at every level [s]: one
        reel programme (at the mean time of those solved so far) per reel
        of the base spin's set, sweep and direction."""
        seconds, count = self.milp_time
        if not count or not self.forms.available:
            return 0.0
        reels = len(self.space.reels) // len(self.space.reel_sets)
        levels = len(set(self.ev.rep.values()))
        # a feature game's ends are evaluated exactly where they may prove (component_rtp_reach)
        ends = 2 * self.ev.longest * levels if self.grouped and not self.unproven() else 0.0
        return seconds / count * 2 * RANGE_SWEEPS * reels * levels + ends

    def milp_seconds(self) -> float:
        """Safety-net time limit of one programme (the rest of ``time_limit`` if set)."""
        if self.time_limit is None:
            return MILP_SECONDS
        return max(0.05, min(MILP_SECONDS, self.deadline() - time.perf_counter()))

    def constraints(self):
        """(level, figure, theta-or-band) items the programme models."""
        for lv in sorted(set(self.ev.rep.values())):
            for name in self.targets.rtp_figures:
                yield lv, name, "rtp"
            for name in self.targets.bands:
                yield lv, name, "band"

    def log(self, stage, xs, assessment, accepted):
        figs = self.ev.figures(xs, self.ev.needed)
        first = figs[self.levels[0]]
        self.log_rows.append(
            {
                "stage": stage,
                "accepted": accepted,
                "rtp": float(first["rtp"]),
                "violation": assessment.violation,
                "rtp_error_tol": assessment.rtp_error,
                "evaluations": self.ev.count,
                "seconds": time.perf_counter() - self.t0,
            }
        )
        r = self.log_rows[-1]
        if accepted:
            self.best_rtp = r["rtp"]
            self.kept = ([x.copy() for x in xs], assessment)
        if self.progress is not None:
            self.progress(self.status())
        self.say(
            f"{stage:>14}: {'kept' if accepted else 'rejected'}, RTP {r['rtp']:.6%}, "
            f"violation {r['violation']:.4g}, {r['evaluations']} evaluations, {r['seconds']:.1f} s"
        )

    def component_scales(self, lv, figs) -> dict | None:
        """The product-rule scales of the line form in each RTP figure at
        level ``lv`` (:func:`~slotmath.tuning.componentmodels.line_form_scales`;
        None: the general models)."""
        if not self.forms.available or rules_for(self.space.game).rtp_is_line_form:
            return None
        return line_form_scales(self.space, self.targets, figs[lv])

    def unproven(self) -> str:
        """Why a feature game's RTP is not affine in the tuned set's line RTP
        by its structure ("" when it is: every reel's length fixed and its
        units one class of :func:`~slotmath.tuning.componentmodels.unit_classes`)."""
        if self._unproven is None:
            block = self.space.blocks[self.space.reel_set]
            self._unproven = ""
            if any(self.space.reels[r].total[0] != self.space.reels[r].total[1] for r in block):
                self._unproven = "the strip lengths may change (the trigger odds and scatter pays with them)"
            elif any(len(unit_classes(self.space, r)) > 1 for r in block):
                self._unproven = (
                    "the units do not all show the same held and scatter symbols (stop weights around "
                    "them, or a released scatter, move the trigger odds and scatter pays)"
                )
        return self._unproven

    def models(self, xs, figs) -> dict:
        out = {}
        self.forms.anchor_at(xs)
        scales = {lv: self.component_scales(lv, figs) for lv in sorted(set(self.ev.rep.values()))}
        self.grouped = any(v is not None for v in scales.values())
        for lv, name, _ in self.constraints():
            v0 = float(figs[lv][name])
            comp = scales[lv]
            if comp is not None and name in comp:
                # a feature game's RTP figure: the line form at its product-rule
                # scale (0: not at all), the rest by finite differences
                rs = self.space.reel_set
                sc = comp[name]
                m = FigureModel(lv, name, v0, "win" if sc else None)
                if sc:
                    m.scale, m.proxy0 = {rs: sc}, {rs: self.forms.value("win", lv, xs, rs)}
                m.exact = name == channel_figure(self.space.game) and self.forms.exact
                m.product = True
                out[(lv, name)] = m
                continue
            if name in self.forms.stops.names:
                kind = STOP + name
                rs = self.space.reel_set
                out[(lv, name)] = FigureModel(
                    lv, name, v0, kind, {rs: 1.0}, {rs: self.forms.value(kind, lv, xs)}
                )
                continue
            kind = proxy_kind(name, self.targets) if self.forms.available else None
            kind = kind if kind in self.forms.kinds else None
            links = {rs: k for rs, k in self.ev.links_of(name).items() if k.plays}
            if kind != "win" and any(k.scale is not None for k in links.values()):
                # hit rate, second moment: the base spin's forms alone
                links = {rs: k for rs, k in links.items() if k.scale is not None}
            proxies = {} if kind is None else {rs: self.forms.value(kind, lv, xs, rs) for rs in links}
            proxies = {rs: p for rs, p in proxies.items() if p != 0}
            m = FigureModel(lv, name, v0, kind if proxies else None, proxy0=proxies)
            fixed = {rs: links[rs].scale for rs in proxies if kind == "win" and links[rs].scale is not None}
            learnt = [rs for rs in proxies if rs not in fixed]
            ratio = 1.0
            if learnt:
                # the figure less the fixed sets' part, spread over the others' forms
                rest = v0 - sum(sc * proxies[rs] for rs, sc in fixed.items())
                ratio = max(rest, 0.01 * abs(v0)) / sum(proxies[rs] for rs in learnt)
                ratio *= 0.5 if kind == "win2" else 1.0
            m.scale = {rs: self.secant.get((lv, name, rs), fixed.get(rs, ratio)) for rs in proxies}
            m.exact = (
                kind == "win"
                and bool(proxies)
                and self.forms.exact
                and all(links[rs].exact for rs in proxies)
            )
            out[(lv, name)] = m
        return out

    def exact_rtp_model(self, m: FigureModel) -> bool:
        return (m.kind == "win" and m.name in self.targets.rtp_figures and self.rtp_exact) or (
            m.kind is not None and m.kind.startswith(STOP)
        )

    def finite_differences(self, xs, models, assessment) -> None:
        """Exact +-1 differences of every violated figure (except an RTP whose
        line form is exact): the part of each change the figure's line form
        does not explain becomes its residual ``res``.  One evaluation per
        unit serves every figure."""
        bad = {(self.ev.rep[c.level], c.figure) for c in assessment.checks if not c.ok}
        todo = [
            m
            for key, m in models.items()
            if key in bad and not self.exact_rtp_model(m) and not (m.kind or "").startswith(STOP)
        ]
        if not todo:
            return
        for m in todo:
            m.res = [np.zeros(rv.size) for rv in self.space.reels]
        for group in self.space.groups:
            r = group[0]  # a group's residual is its first reel's (the others' stay 0)
            rv = self.space.reels[r]
            # a feature game: one difference per class of units alike for what the
            # forms do not explain (componentmodels), at its unit of largest value
            classes = unit_classes(self.space, r) if self.grouped else [[u] for u in range(rv.size)]
            for units in classes:
                u = max(units, key=lambda v: (int(xs[r][v]), -v))
                if rv.lo[u] == rv.hi[u]:
                    continue
                step = 1 if xs[r][u] < rv.hi[u] else -1
                trial = self.apply(xs, [(r, ((u, step),))])
                if any(trial[q][u] < 0 or trial[q].sum() < 1 for q in group):
                    continue
                if self.spent():
                    return
                figs = self.ev.figures(trial, self.ev.needed)
                for m in todo:
                    df = float(figs[m.level][m.name]) - m.value0 - m.form_change(self.forms, trial)
                    m.res[r][units] = df / step

    def reel_rows(self, models, xs0, xs, r):
        """Objective rows of reel r's programme, ``(kind, g, h, sc, fractional, aim)``
        with the modelled deviation ``(g . x + h) * sc`` (see :meth:`solve_reel`).

        With a line form the deviation ``f - theta`` is
        ``[(c0 - theta) sum(x) + (scale / K) a . x] / sum(x) + res_r . x + h_res``
        (``c0 = value0 - scale * proxy0``), linear-fractional in reel r; the
        residual is brought over the same denominator with ``sum(x) ~ sum(x_cur)``.
        """
        rows = []
        tol = self.targets.tolerance
        t_cur = float(xs[r].sum())
        rs = self.space.set_of(r)
        for (_level, name), m in models.items():
            follows = m.kind is not None and rs in m.scale  # the form of reel r's set
            if not follows and m.res is None:
                continue
            res_r = m.res[r] if m.res is not None else np.zeros(self.space.reels[r].size)
            h_res = 0.0
            if m.res is not None:
                h_res = sum(float(m.res[rr] @ (xs[rr] - xs0[rr])) for rr in range(len(xs)) if rr != r)
                h_res -= float(m.res[r] @ xs0[r])
            bounds = []
            if name in self.targets.rtp_figures:
                bounds.append(("rtp", float(self.targets.target_of(name)), 1.0 / tol, self.aim))
            if name in self.targets.bands:
                lo, hi = self.targets.bands[name]
                bs = 1.0 / band_scale(lo, hi)
                if lo is not None:
                    bounds.append(("lo", lo, bs, 0.0))
                if hi is not None:
                    bounds.append(("hi", hi, bs, 0.0))
            if follows:
                a, K = self.forms.coefficients(m.kind, m.level, xs, r)
                # the other sets' forms are constants here
                c0 = m.value0 + m.form_change(self.forms, xs, skip=rs) - m.scale[rs] * m.proxy0[rs]
                for kind, theta, w, aim in bounds:
                    g = m.scale[rs] / K * a + (c0 - theta) + t_cur * res_r
                    rows.append((kind, g, t_cur * h_res, w / t_cur, True, aim))
            else:
                v0 = m.value0 + m.form_change(self.forms, xs)
                for kind, theta, w, aim in bounds:
                    rows.append((kind, res_r.astype(np.float64), v0 - theta + h_res, w, False, aim))
        return rows

    def group_rows(self, models, xs0, xs, group):
        """Objective rows of the programme of a group of reels moved
        together (:attr:`ReelSpace.groups`), in the variables of its first
        reel: to first order a figure changes by the sum of each reel's
        change, ``d(x) = sum_m d_m(x) - (k - 1) d(x_cur)`` for ``k + 1``
        reels (the constant brought under a fractional row's ``sum(x)``)."""
        rows = self.reel_rows(models, xs0, xs, group[0])
        if len(group) == 1:
            return rows
        others = [self.reel_rows(models, xs0, xs, q) for q in group[1:]]
        ensure(all(len(o) == len(rows) for o in others), "reelsolver.py: rows of a group differ")
        x = xs[group[0]].astype(np.float64)
        k = len(others)
        out = []
        for j, (kind, g, h, sc, fractional, aim) in enumerate(rows):
            d0 = (float(g @ x) + h) * sc
            g = g + sum(o[j][1] for o in others)
            h = h + sum(o[j][2] for o in others)
            if fractional:
                g = g - k * d0 / (sc * float(x.sum()))
            else:
                h = h - k * d0 / sc
            out.append((kind, g, h, sc, fractional, aim))
        return out

    # -------------------------------------------------------------- programme
    def solve_reel(self, r, x_cur, rows, radius) -> np.ndarray:
        """One reel's integer programme.

        Each row ``(kind, g, h, sc, fractional, aim)`` models a scaled deviation
        ``d(x) = (g . x + h) * sc``: for ``rtp`` rows the RTP error in
        tolerances, for ``lo``/``hi`` rows the signed distance past a band
        edge in band scales.  A fractional row's true deviation is
        ``(g . x) / sum(x)`` and ``sc`` holds ``1 / sum(x_cur)``; its
        aim ``|d| <= aim`` is then imposed as ``|g . x| sc <= aim sum(x) / sum(x_cur)``,
        exact for any strip length.  Auxiliaries: |d| and max(0, |d| - aim)
        per RTP row, max(0, +-d) per band row, |x - x_file| per unit.
        """
        rv = self.space.reels[r]
        U = rv.size
        x_orig = rv.x0
        aux = []  # (row index, cost, sign, offset): aux >= sign*d - offset
        for j, (kind, *_rest, aim) in enumerate(rows):
            if kind == "rtp":
                aux += [(j, CENTRE_COST, (1, -1), 0.0), (j, OUTSIDE_COST, (1, -1), aim)]
            else:
                aux.append((j, OUTSIDE_COST, (1,) if kind == "hi" else (-1,), 0.0))
        M = len(aux)
        n = 2 * U + M
        c = np.concatenate([np.zeros(U), np.full(U, MOVE_COST), [a[1] for a in aux]])
        lo = rv.lo.astype(float).copy()
        hi = rv.hi.astype(float).copy()
        if radius is not None:
            box_lo = np.maximum(lo, x_cur - radius)
            box_hi = np.minimum(hi, x_cur + radius)
            if np.all(box_lo <= box_hi):
                lo, hi = box_lo, box_hi
        lb = np.concatenate([lo, np.zeros(U + M)])
        ub = np.concatenate([hi, np.full(U + M, np.inf)])
        n_rows = 1 + len(rv.groups) + 2 * len(rv.shares) + 2 * U + sum(len(a[2]) for a in aux)
        A = np.zeros((n_rows, n))
        blo, bhi = np.full(n_rows, -np.inf), np.full(n_rows, np.inf)
        A[0, :U] = 1
        blo[0], bhi[0] = rv.total
        i = 1
        for mask, glo, ghi in rv.groups:
            A[i, :U] = mask
            blo[i], bhi[i] = glo, ghi
            i += 1
        for mask, s_lo, s_hi, _ in rv.shares:
            # s_lo <= mask . x / sum(x) <= s_hi, i.e. (mask - s_lo) . x >= 0
            # and (mask - s_hi) . x <= 0 (linear: homogeneous in x)
            A[i, :U] = mask - s_lo
            blo[i] = -1e-9
            A[i + 1, :U] = mask - s_hi
            bhi[i + 1] = 1e-9
            i += 2
        for u in range(U):
            A[i, U + u], A[i, u], blo[i] = 1, -1, -x_orig[u]
            A[i + 1, U + u], A[i + 1, u], blo[i + 1] = 1, 1, x_orig[u]
            i += 2
        t_cur = float(x_cur.sum())
        for k, (j, _, signs, offset) in enumerate(aux):
            _, g, h, sc, fractional, _ = rows[j]
            for sgn in signs:
                # aux - sgn*sc*g.x (+ offset*sum(x)/t_cur) >= sgn*sc*h (- offset)
                A[i, 2 * U + k] = 1
                A[i, :U] = -sgn * sc * g + (offset / t_cur if fractional else 0.0)
                blo[i] = sgn * sc * h - (0.0 if fractional else offset)
                i += 1
        integrality = np.concatenate([np.ones(U), np.zeros(U + M)])
        t0 = time.perf_counter()
        res = milp(
            c,
            integrality=integrality,
            bounds=VarBounds(lb, ub),
            constraints=LinearConstraint(A, blo, bhi),
            options={"node_limit": MILP_NODES, "time_limit": self.milp_seconds(), "disp": False},
        )
        self.milp_time = (self.milp_time[0] + time.perf_counter() - t0, self.milp_time[1] + 1)
        if res.x is None:
            return x_cur
        x = np.rint(res.x[:U]).astype(np.int64)
        return (
            x
            if row_objective(rows, x, x_cur, rv.x0) < row_objective(rows, x_cur, x_cur, rv.x0) - 1e-9
            else x_cur
        )

    def propose(self, xs, models, radius) -> list:
        """Block-coordinate sweeps of the per-reel programmes from ``xs``;
        stops once the models put every target inside its aim."""
        xs0 = [x.copy() for x in xs]
        cur = [x.copy() for x in xs]
        for _ in range(4):
            moved = False
            for group in self.space.groups:
                r = group[0]
                if self.spent():
                    return cur
                rows = self.group_rows(models, xs0, cur, group)
                if not rows:
                    continue
                rad = None if radius is None else radius[r]
                x = self.solve_reel(r, cur[r], rows, rad)
                new = self.apply(cur, [(r, tuple((u, int(d)) for u, d in enumerate(x - cur[r]) if d))])
                if not np.array_equal(x, cur[r]) and all(self.space.reels[q].feasible(new[q]) for q in group):
                    cur = new
                    moved = True
                    if row_objective(rows, x, x, None, outside_only=True) == 0 and self.other_sets_inside(
                        models, xs0, cur, r
                    ):
                        return cur
            if not moved:
                break
        return cur

    def other_sets_inside(self, models, xs0, cur, r) -> bool:
        """Whether the models put every figure that follows another tuned
        set than reel ``r``'s inside its aim at ``cur`` (a figure only
        another set moves has no row in reel ``r``'s programme)."""
        firsts = [block.start for block in self.space.blocks.values() if r not in block]
        return all(
            row_objective(rows, cur[q], cur[q], None, outside_only=True) == 0
            for q in firsts
            for rows in [self.group_rows(models, xs0, cur, self.space.group_of[q])]
        )

    def update_secant(self, models, xs_new, figs_new):
        """Learn each figure's scale of a set's form from the exact change:
        when one set's form moved, or one whose scale is not exact did
        (the exact ones' modelled change taken off)."""
        for (lv, name), m in models.items():
            if m.kind is None or m.kind.startswith(STOP) or m.product:
                continue
            dps = {rs: self.forms.value(m.kind, lv, xs_new, rs) - p0 for rs, p0 in m.proxy0.items()}
            moved = [rs for rs, dp in dps.items() if abs(dp) > 1e-12 * max(abs(m.proxy0[rs]), 1e-300)]
            df = float(figs_new[lv][name]) - m.value0
            if len(moved) > 1:  # the sets whose scale is known: their modelled change taken off
                learnt = [rs for rs in moved if self.ev.links_of(name)[rs].scale is None]
                if len(learnt) != 1:
                    continue
                df -= sum(m.scale[rs] * dps[rs] for rs in moved if rs not in learnt)
                moved = learnt
            if len(moved) == 1:
                rs = moved[0]
                s = df / dps[rs]
                if s > 0:
                    self.secant[(lv, name, rs)] = float(np.clip(s, m.scale[rs] / 5, m.scale[rs] * 5))

    def exact_models(self, models) -> bool:
        """Whether the models are exact for any move: the RTP of a line game
        with fixed strip lengths and every scatter held (the line form is
        then the whole RTP up to a constant), or figures a rules module gives
        exactly by stop values (solved from the point each reel's programme
        starts at)."""
        if models and all((m.kind or "").startswith(STOP) for m in models.values()):
            return True
        if not rules_for(self.space.game).rtp_is_line_form:
            return False
        held = self.space.held
        scatters_held = all(s.name in held for s in self.space.game.symbols if s.kind == "scatter")
        fixed_len = all(rv.total[0] == rv.total[1] for rv in self.space.reels)
        return scatters_held and fixed_len and all(m.kind == "win" and m.exact for m in models.values())

    # -------------------------------------------------------------- main loop
    def run(self, xs):
        """Alternate programme rounds and local search until the targets are
        met, the budget is spent or a whole pass makes no progress.  With a
        time limit, no exact evaluation starts that would end after it (at
        the longest evaluation time so far): the best point kept is returned."""
        xs = [x.copy() for x in xs]
        figs, best = self.ev(xs)  # the starting point is always evaluated
        self.log("start", xs, best, True)
        self.ev.deadline = self.deadline()
        try:
            while True:
                key = best.key
                xs, figs, best = self.programme_rounds(xs, figs, best)
                xs, figs, best = self.local_search(xs, figs, best)
                if best.feasible or best.key >= key or self.spent():
                    return xs, best
        except TimeLimitReached:
            self.stopped = f"time limit ({self.time_limit:g} s) reached"
            ensure(
                self.kept is not None, "reelsolver.py: expected self.kept is not None"
            )  # the start is logged before the deadline is set
            return self.kept
        finally:
            self.ev.deadline = None

    def first_radius(self, xs) -> list:
        """The trust region of each reel's programme: an eighth of its strip,
        over the number of reels its group moves (their changes multiply)."""
        return [max(1, int(x.sum()) // (8 * len(self.space.group_of[r]))) for r, x in enumerate(xs)]

    def programme_rounds(self, xs, figs, best):
        totals = [rv.total[1] for rv in self.space.reels]
        models = self.models(xs, figs)
        tied = bool(self.space.tied())  # reels moved together: the programme is first order
        exact = self.exact_models(models) and not tied
        self.rtp_exact = self.exact_models(
            {k: m for k, m in models.items() if k[1] in self.targets.rtp_figures}
        )
        self.aim = AIM_EXACT if self.rtp_exact and not tied else AIM
        radius = None if exact else self.first_radius(xs)
        # A rules game whose targets are all RTP figures first tries their
        # line forms alone (often the rest of the RTP does not depend on the
        # tuned symbols, e.g. features driven by held symbols); finite
        # differences (one exact evaluation per unit) only if that fails.
        # Tuning several sets (finite differences cost one evaluation per
        # unit of every set), the line forms alone go on while each proposal
        # at least halves the violation.
        # A feature game's product-rule models (componentmodels) try their
        # line forms alone first too.
        line_first = self.grouped or (
            (not rules_for(self.space.game).rtp_is_line_form or not self.forms.exact)
            and bool(models)
            and all(m.kind == "win" for m in models.values())
        )
        line_only = line_first
        for rnd in range(self.max_rounds):
            if best.feasible or self.spent():
                break
            models = self.models(xs, figs)
            if not line_only:
                self.finite_differences(xs, models, best)
            cand = self.propose(xs, models, radius)
            key = Evaluator.key(cand)
            if all(np.array_equal(a, b) for a, b in zip(cand, xs, strict=True)) or key in self.rejected:
                break
            figs_c, a_c = self.ev(cand)
            self.update_secant(models, cand, figs_c)
            accepted = a_c.better_than(best)
            self.log(f"programme {rnd + 1}", cand, a_c, accepted)
            several = len(self.space.reel_sets) > 1
            line_only = line_only and several and accepted and a_c.violation <= 0.5 * best.violation
            if not accepted:
                self.rejected.add(key)
            if accepted:
                xs, figs, best = cand, figs_c, a_c
                if radius is not None:
                    radius = [min(t, 2 * r) for r, t in zip(radius, totals, strict=True)]
            elif radius is None:
                radius = self.first_radius(xs)
            elif max(radius) <= 1:
                break
            else:
                radius = [max(1, r // 2) for r in radius]
        return xs, figs, best

    # -------------------------------------------------------------- local search
    def single_moves(self, xs):
        """Moves of one unit on one reel (the first of each group: :meth:`apply`
        makes the same move on the others)."""
        for r in (group[0] for group in self.space.groups):
            rv = self.space.reels[r]
            x = xs[r]
            t = int(x.sum())
            up = [u for u in range(rv.size) if x[u] < rv.hi[u]]
            down = [u for u in range(rv.size) if x[u] > rv.lo[u]]
            for w in down:
                for u in up:
                    if u != w:
                        yield r, ((u, 1), (w, -1))
            if t < rv.total[1]:
                for u in up:
                    yield r, ((u, 1),)
            if t > rv.total[0]:
                for w in down:
                    yield r, ((w, -1),)

    def apply(self, xs, moves):
        """``xs`` with ``moves`` (``(reel, ((unit, step), ...))``) made on
        each reel of the reel's group."""
        out = [x.copy() for x in xs]
        for r, steps in moves:
            for q in self.space.group_of[r]:
                for u, d in steps:
                    out[q][u] += d
        return out

    def tied_reels(self, reels) -> list:
        """``reels`` with every reel of their groups."""
        return sorted({q for r in reels for q in self.space.group_of[r]})

    def local_search(self, xs, figs, best):
        """Single moves and pairs of moves, ranked by the models (pairs to
        first order, the best of them recomputed), judged exactly."""
        top_k = 8
        while not best.feasible and not self.spent():
            models = self.models(xs, figs)
            self.finite_differences(xs, models, best)
            keys = list(models)
            base = np.array([models[k].value0 for k in keys])
            singles = []
            for r, steps in self.single_moves(xs):
                cand = self.apply(xs, [(r, steps)])
                if all(self.space.reels[q].feasible(cand[q]) for q in self.space.group_of[r]):
                    singles.append((r, steps))
            if not singles:
                break
            D, cost = self.single_deltas(models, keys, xs, singles)
            s1 = self.score(keys, base + D) + cost
            ranked = [(s1[i], [singles[i]]) for i in np.argsort(s1, kind="stable")[: 3 * top_k]]
            # pairs among the best single moves (all of them on short strips)
            pick = np.sort(np.argsort(s1, kind="stable")[:PAIR_SINGLES])
            Dp, cp = D[pick], cost[pick]
            s2 = self.score(keys, base + Dp[:, None, :] + Dp[None, :, :]) + cp[:, None] + cp[None, :]
            s2[np.tril_indices(len(pick))] = np.inf
            flat = np.argsort(s2, axis=None, kind="stable")[: 3 * top_k]
            for f in flat:
                i, j = divmod(int(f), len(pick))
                if np.isfinite(s2[i, j]):
                    ranked.append((s2[i, j], [singles[pick[i]], singles[pick[j]]]))
            # recompute the models exactly for each ranked compound move
            rescored = []
            for _, mv in ranked:
                cand = self.apply(xs, mv)
                if not self.space.feasible(cand):
                    continue
                reels = self.tied_reels(r for r, _ in mv)
                v = np.array([self.model_value(models[k], xs, cand, reels) for k in keys])
                rescored.append(
                    (float(self.score(keys, v[None, :])[0]) + self.move_cost(xs, cand, reels), mv)
                )
            rescored += self.repair_moves(xs, models, keys, singles, D, cost, top_k)
            rescored.sort(key=lambda t: t[0])
            improved = None
            for _, mv in rescored[:top_k]:
                if self.spent():
                    break
                cand = self.apply(xs, mv)
                figs_c, a_c = self.ev(cand)
                if a_c.better_than(best) and (improved is None or a_c.better_than(improved[2])):
                    improved = (cand, figs_c, a_c)
            if improved is None:
                break
            self.update_secant(models, improved[0], improved[1])
            xs, figs, best = improved
            self.log("local search", xs, best, True)
        return xs, figs, best

    def single_deltas(self, models, keys, xs, singles) -> tuple:
        """Modelled change of every figure (``D[i, j]``: move ``i``, figure
        ``keys[j]``) and move cost of each single move, at once: with the
        other reels held a form is ``a . x_r / (K sum(x_r))`` (exact for the
        multilinear line forms and the stop forms), so a move's change
        needs only the coefficients ``a`` of its reel, computed once."""
        n = len(singles)
        reel = np.array([r for r, _ in singles])
        width = max(len(st) for _, st in singles)
        units = np.zeros((n, width), dtype=np.int64)
        steps = np.zeros((n, width), dtype=np.int64)
        for i, (_, st) in enumerate(singles):
            for j, (u, d) in enumerate(st):
                units[i, j], steps[i, j] = u, d
        D = np.zeros((n, len(keys)))
        coef: dict = {}
        for j, key in enumerate(keys):
            m = models[key]
            for r in np.unique(reel):
                sel = reel == r
                u, d = units[sel], steps[sel]
                rs = self.space.set_of(int(r))
                for q in self.space.group_of[int(r)]:  # a group's change: each reel's, added
                    x = xs[q].astype(np.float64)
                    if m.kind is not None and rs in m.scale:
                        ck = (m.kind, m.level, q)
                        if ck not in coef:
                            coef[ck] = self.forms.coefficients(m.kind, m.level, xs, q)
                        a, K = coef[ck]
                        A, T = float(a @ x), float(x.sum())
                        new = (A + (a[u] * d).sum(axis=1)) / (K * (T + d.sum(axis=1)))
                        D[sel, j] += m.scale[rs] * (new - A / (K * T))
                    if m.res is not None:
                        D[sel, j] += (m.res[q][u] * d).sum(axis=1)
        cost = np.zeros(n)
        for i, (r, st) in enumerate(singles):
            for q in self.space.group_of[r]:
                x, x0 = xs[q], self.space.reels[q].x0
                cost[i] += sum(abs(x[u] + dd - x0[u]) - abs(x[u] - x0[u]) for u, dd in st)
        return D, MOVE_COST * cost

    def repair_moves(self, xs, models, keys, singles, D, cost, n):
        """Compound moves: one of the ``n`` single moves that most help the
        bands (RTP ignored), then each other reel's programme restores the
        RTP.  Returns (modelled objective, moves) pairs."""
        band_keys = [k[1] in self.targets.bands for k in keys]
        if not any(band_keys):
            return []
        base = np.array([models[k].value0 for k in keys])
        mask = np.array(band_keys)
        band_only = dataclasses.replace(self.targets, rtp_figures=(), mode_rtp={})
        saved, self.targets = self.targets, band_only
        try:
            gain = self.score(keys, (base + D * mask)) + cost
        finally:
            self.targets = saved
        out = []
        for i in np.argsort(gain, kind="stable")[:n]:
            r1, steps = singles[i]
            start = self.apply(xs, [(r1, steps)])
            for group in self.space.groups:
                r2 = group[0]
                if r1 in group:
                    continue
                rows = self.group_rows(models, xs, start, group)
                x = self.solve_reel(r2, start[r2], rows, None)
                if np.array_equal(x, start[r2]):
                    continue
                delta = [(r2, tuple((u, int(d)) for u, d in enumerate(x - start[r2]) if d))]
                cand = self.apply(start, delta)
                mv = [(r1, steps)] + delta
                reels = self.tied_reels([r1, r2])
                v = np.array([self.model_value(models[k], xs, cand, reels) for k in keys])
                out.append((float(self.score(keys, v[None, :])[0]) + self.move_cost(xs, cand, reels), mv))
        return out

    def model_value(self, m: FigureModel, xs0, cand, reels) -> float:
        """Modelled value of figure ``m`` at ``cand`` (differs from ``xs0`` on ``reels``)."""
        v = m.value0 + m.form_change(self.forms, cand)
        if m.res is not None:
            v += sum(float(m.res[r] @ (cand[r] - xs0[r])) for r in reels)
        return v

    def move_cost(self, xs0, cand, reels) -> float:
        x0 = self.space.reels
        return MOVE_COST * sum(
            float(np.abs(cand[r] - x0[r].x0).sum() - np.abs(xs0[r] - x0[r].x0).sum()) for r in reels
        )

    def score(self, keys, V: np.ndarray) -> np.ndarray:
        """Objective of modelled figure values ``V[..., j]`` (figure ``keys[j]``)."""
        total = np.zeros(V.shape[:-1])
        tol = self.targets.tolerance
        for j, (_, name) in enumerate(keys):
            v = V[..., j]
            if name in self.targets.rtp_figures:
                e = np.abs(v - float(self.targets.target_of(name))) / tol
                total += OUTSIDE_COST * np.maximum(0.0, e - self.aim) + CENTRE_COST * e
            if name in self.targets.bands:
                lo, hi = self.targets.bands[name]
                miss = np.zeros_like(v)
                if lo is not None:
                    miss = np.maximum(miss, lo - v)
                if hi is not None:
                    miss = np.maximum(miss, v - hi)
                total += OUTSIDE_COST * miss / band_scale(lo, hi)
        return total


# ====================================================================== what binds
def reel_polytope(rv):
    """The linear limits of one reel's variables (continuous relaxation):
    ``(bounds, constraints)`` for :func:`scipy.optimize.linprog`-style use
    with :func:`scipy.optimize.milp` and no integrality."""
    U = rv.size
    rows, lo, hi = [np.ones(U)], [rv.total[0]], [rv.total[1]]
    for mask, glo, ghi in rv.groups:
        rows.append(mask.astype(float))
        lo.append(glo)
        hi.append(ghi)
    for mask, s_lo, s_hi, _ in rv.shares:
        rows += [mask - s_lo, mask - s_hi]
        lo += [-1e-9, -np.inf]
        hi += [np.inf, 1e-9]
    return VarBounds(rv.lo.astype(float), rv.hi.astype(float)), LinearConstraint(np.array(rows), lo, hi)


def line_rtp_range(
    solver: Solver, xs, level: int, sweeps: int = RANGE_SWEEPS, reel_set: str | None = None
) -> tuple | None:
    """Lowest and highest line RTP [x total bet] of tuned reel set
    ``reel_set`` (default the first) reachable within the limits (shape
    bounds included), by the continuous relaxation of each reel's
    programme, reel after reel from ``xs`` (block-coordinate LP; each reel's
    strip length held at its value in ``xs``).  The rest of the RTP
    (scatters, features) is not included.  None for a game without line pays."""
    reach = line_rtp_reach(solver, xs, level, sweeps, reel_set)
    return None if reach is None else (reach[0][0], reach[1][0])


def line_rtp_reach(
    solver: Solver, xs, level: int, sweeps: int = RANGE_SWEEPS, reel_set: str | None = None
) -> tuple | None:
    """:func:`line_rtp_range` with the points reached:
    ``((lowest, values), (highest, values))``, ``values`` the relaxed
    variables of every reel (those of other sets as in ``xs``), rounded to
    whole units; None for a game without line pays."""
    forms = solver.forms
    if not forms.available:
        return None
    block = solver.space.blocks[reel_set or solver.space.reel_set]
    out = []
    for sign in (-1.0, 1.0):
        cur = [np.asarray(x, dtype=np.float64).copy() for x in xs]
        for _ in range(sweeps):
            for r in block:
                rv = solver.space.reels[r]
                if np.all(rv.lo == rv.hi):
                    continue
                a, K = forms.coefficients("win", level, [np.rint(x).astype(np.int64) for x in cur], r)
                bounds, cons = reel_polytope(rv)
                t = float(cur[r].sum())
                fix = LinearConstraint(np.ones((1, rv.size)), [t], [t])
                res = milp(-sign * a, bounds=bounds, constraints=[cons, fix])
                if res.x is not None:
                    cur[r] = res.x
        xi = [np.rint(x).astype(np.int64) for x in cur]
        a, K = forms.coefficients("win", level, xi, block.start)
        out.append((float(a @ cur[block.start]) / (K * float(cur[block.start].sum())), xi))
    return tuple(sorted(out, key=lambda p: p[0]))


def component_rtp_reach(solver: Solver, xs, level: int, ends) -> tuple | None:
    """The whole RTP [x total bet] reachable within the limits of a feature
    game (:mod:`slotmath.tuning.componentmodels`), from the line RTP's
    relaxation ``ends`` (:func:`line_rtp_reach` at ``level``):
    ``((lo, hi), why_not_proven, clash)``; None for a game the component
    models do not cover.

    With the strip lengths fixed and every symbol that starts a feature
    held, an unweighted reel's units form one class and the trigger odds,
    the scatter pays and the held features do not move: the RTP and each
    component are then affine in the line RTP ``L`` exactly
    (``f = f0 + c (L - L0)``: ``c`` the product-rule scale, 1 for the RTP
    plus each feature whose games play the tuned set; ``f0``, ``L0`` at
    ``xs``), so the relaxation's ends give their reach.  Each end's whole
    units are evaluated exactly and must lie on those lines (to 1e-9);
    ``why_not_proven`` is "" when they do and every reel is one class,
    else says why the reach is the models' only (then it proves nothing).

    ``clash`` (proven only): None, or ``(statement, binds)`` when no line
    RTP within reach puts the RTP on target and every band on ``rtp`` or an
    ``rtp:`` component inside together (each is an interval of ``L``);
    ``binds`` names the band or target whose interval ends first and the
    one that starts last (or a fixed component outside its band)."""
    needed = solver.ev.needed
    figs = solver.ev.figures(xs, needed)
    comp = solver.component_scales(level, figs)
    if comp is None:
        return None
    l0 = solver.forms.value("win", level, xs)
    f0 = {name: float(figs[level][name]) for name in comp}
    why = solver.unproven()
    lines = sorted(line for line, _ in ends)
    reach = (f0["rtp"] + comp["rtp"] * (lines[0] - l0), f0["rtp"] + comp["rtp"] * (lines[1] - l0))
    if why:  # the models' reach only: no exact evaluation of its ends
        return reach, why, None
    for _, x_end in ends:
        exact = solver.ev.figures(x_end, needed)[level]
        dl = solver.forms.value("win", level, x_end) - l0
        for name, c in comp.items():
            model = f0[name] + c * dl
            if not why and abs(float(exact[name]) - model) > 1e-9 * max(1.0, abs(model)):
                why = (
                    f"{name} is not affine in the line RTP (exact {float(exact[name]):.9%} at a "
                    f"relaxation end, {model:.9%} by the product rule)"
                )
    return reach, why, None if why else _band_clash(solver, comp, f0, l0, lines)


def _band_clash(solver: Solver, comp: dict, f0: dict, l0: float, lines: list) -> tuple | None:
    """:func:`component_rtp_reach`'s ``clash``: each target and band as an
    interval of the line RTP, intersected with its reach ``lines``."""
    t = solver.targets
    limits = [("the line RTP's reach", lines[0], lines[1])]
    wanted = [
        (name, float(t.target_of(name)) - t.tolerance, float(t.target_of(name)) + t.tolerance, "target")
        for name in t.rtp_figures
        if name in comp
    ]
    wanted += [(name, lo, hi, "band") for name, (lo, hi) in t.bands.items() if name in comp]
    for name, lo, hi, what in wanted:
        c, v = comp[name], f0[name]
        lo = -np.inf if lo is None else lo
        hi = np.inf if hi is None else hi
        text = f"{name} {what} {_pct(lo)} .. {_pct(hi)}"
        if c == 0:
            if not lo <= v <= hi:
                return (
                    f"{name} is fixed at {v:.6%} (it does not move with these strips: its symbols are "
                    f"held) and lies outside its {what} {_pct(lo)} .. {_pct(hi)}",
                    [f"{text} ({name} fixed at {v:.6%})"],
                )
            continue
        limits.append((text, l0 + (lo - v) / c, l0 + (hi - v) / c))
    first_end = min(limits, key=lambda x: x[2])
    last_start = max(limits, key=lambda x: x[1])
    if last_start[1] <= first_end[2]:
        return None
    binds = [
        f"{last_start[0]} (needs line RTP >= {last_start[1]:.6%})",
        f"{first_end[0]} (needs line RTP <= {first_end[2]:.6%})",
    ]
    return (
        "no line RTP within reach meets the RTP target and the component bands together "
        "(each is affine in the line RTP): " + "; ".join(binds),
        binds,
    )


def _pct(v: float) -> str:
    return f"{v:.6%}" if np.isfinite(v) else ("-inf" if v < 0 else "inf")
