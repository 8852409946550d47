"""Evaluation and linear models of the exact figures in the tuning variables: figures
given exactly by stop values (:class:`StopForms`), the line forms of the
line RTP and its moments (:class:`LineForms`), the model of a figure the
solver steers (:class:`FigureModel`) and the objective of one row."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from slotmath.analysis.metrics import (
    equivalent_levels,
    game_figures,
    honours_needed,
    mode_figures,
    shared_pay_tensor,
)
from slotmath.engine.multilinear import line_total, reel_gradient, unit_coefficients
from slotmath.engine.payrule import pay_rule
from slotmath.engine.reels import windows
from slotmath.engine.ways import WaysForm
from slotmath.rules.modes import BASE_MODE, mode_game, mode_of, mode_reel_sets
from slotmath.rules.registry import rules_for
from slotmath.tuning.reelspace import ReelSpace
from slotmath.tuning.targets import Targets, assess, mode_figure, split_figure

# Integer-programme objective, in units of the RTP tolerance:
OUTSIDE_COST = 100.0  # per tolerance of RTP error beyond the aim (and per band scale outside a band)
CENTRE_COST = 0.01  # per tolerance of RTP error (prefer the centre, weakly)
MOVE_COST = 0.02  # per unit moved from the game file (prefer small changes)


class TimeLimitReached(Exception):
    """The next exact evaluation would end after the run's deadline."""


class Evaluator:
    """Exact figures of candidate variable values, cached.

    With a ``deadline`` (a :func:`time.perf_counter` reading [s]), an
    evaluation that would, at the longest time of those so far, end after
    it raises :class:`TimeLimitReached` instead of starting (the first always
    runs; the longest, not the mean, so that a slower evaluation on a busy
    machine still ends in time).

    ``levels`` are the bet levels the targets apply to; figures are computed
    once per group of equivalent levels (:func:`slotmath.analysis.metrics.equivalent_levels`).

    When the targets name bet modes (:attr:`Targets.modes`), a candidate's
    figures are each mode's (:func:`slotmath.analysis.metrics.mode_figures`
    of the candidate game): the mode tuned under the plain names, every
    other as ``MODE/FIGURE``.  Without modes, a run over several reel sets
    judges the game as declared (the figures of its base spin, ``base``).
    """

    def __init__(self, space: ReelSpace, targets: Targets, levels: tuple):
        self.space, self.targets = space, targets
        self.modes = targets.modes
        games = [space.game] + [mode_game(space.game, m) for m in self.modes]
        eqs = [equivalent_levels(g) for g in games]
        self.levels = tuple(levels)
        # a level shares another's figures only when it does in every mode
        self.rep = {lv: eqs[0][lv] if all(eq[lv] == eqs[0][lv] for eq in eqs) else lv for lv in self.levels}
        # each judged mode's link to each tuned set; without modes the game's
        # base spin is 'base' and every other set tuned moves its features
        self.links = {m: {rs: mode_line_link(space, m, rs) for rs in space.reel_sets} for m in self.modes}
        if not self.modes:
            feature = LineLink(scale=None, exact=False)
            self.links[BASE_MODE] = {rs: LineLink() if rs == "base" else feature for rs in space.reel_sets}
        self.needed = set(targets.figures)
        self.count = 0
        self.tick = None  # called after each exact evaluation
        self.deadline: float | None = None
        self.seconds = 0.0  # spent in exact evaluations [s]
        self.longest = 0.0  # the longest exact evaluation so far [s]
        self._cache: dict = {}

    @staticmethod
    def key(xs) -> bytes:
        return b"|".join(np.asarray(x, dtype=np.int64).tobytes() for x in xs)

    def figures(self, xs, needed=None) -> dict:
        """``{level: {figure: value}}`` for values ``xs`` (``needed``: figures
        wanted; rules whose figures honour ``needed`` compute fewer than
        all)."""
        if not honours_needed(self.space.game):
            needed = None
        k = (self.key(xs), None if needed is None else tuple(sorted(needed)))
        if k not in self._cache:
            t0 = time.perf_counter()
            if self.deadline is not None and self.count and t0 + self.longest > self.deadline:
                raise TimeLimitReached
            game = self.space.game_for(xs)
            self.count += 1
            per_rep = {}
            for rep in sorted(set(self.rep.values())):
                per_rep[rep] = self.figures_at(game, rep, needed)
            self._cache[k] = {lv: per_rep[self.rep[lv]] for lv in self.levels}
            spent = time.perf_counter() - t0
            self.seconds += spent
            self.longest = max(self.longest, spent)
            if self.tick is not None:
                self.tick()
        return self._cache[k]

    def figures_at(self, game, level: int, needed) -> dict:
        """Exact figures of a candidate ``game`` at one level: those of the
        tuned reel set, or with modes every mode's (see the class notes)."""
        if not self.modes:
            several = len(self.space.reel_sets) > 1
            return game_figures(game, level, "base" if several else self.space.reel_set, needed)
        out: dict = {}
        names = [split_figure(n) for n in needed or ()]
        for i, mode in enumerate(self.modes):
            want = None if needed is None else {f for m, f in names if m == (None if i == 0 else mode)}
            figs = mode_figures(game, mode, level, want)
            out.update(figs if i == 0 else {mode_figure(mode, k): v for k, v in figs.items()})
        return out

    def links_of(self, name: str) -> dict:
        """``{reel set: LineLink}``: how figure ``name`` follows the line
        forms of each tuned reel set."""
        if not self.modes and len(self.space.reel_sets) == 1:
            return {self.space.reel_set: LineLink()}
        mode = split_figure(name)[0] or (self.modes[0] if self.modes else BASE_MODE)
        return self.links[mode]

    def base_spin(self, name: str = "rtp") -> tuple:
        """``(reel set, scale)``: the tuned set that is the base spin of
        figure ``name``'s mode and its RTP per unit of that set's line RTP,
        or ``(None, None)`` (a buy)."""
        for rs, link in self.links_of(name).items():
            if link.scale is not None:
                return rs, link.scale
        return None, None

    def __call__(self, xs) -> tuple:
        figs = self.figures(xs, self.needed)
        return figs, assess(figs, self.targets)


@dataclass(frozen=True)
class LineLink:
    """How a bet mode's figures follow the line forms of the tuned reel set.

    ``plays``: the mode plays the set (else its figures do not move);
    ``scale``: the change of its RTP per unit of the set's line RTP when the
    set is its base spin (``1 / cost``; None: learnt from the exact figures,
    starting from the ratio of the figure to the form); ``exact``: that
    scale is exact (the mode's RTP is the line form up to a constant)."""

    plays: bool = True
    scale: float | None = 1.0
    exact: bool = True


def mode_line_link(space: ReelSpace, name: str, reel_set: str | None = None) -> LineLink:
    """The :class:`LineLink` of bet mode ``name`` to the tuned reel set
    ``reel_set`` (default the first)."""
    mode = mode_of(space.game, name)
    played = mode_reel_sets(space.game, name)
    sets = [k for k, v in played.items() if v == (reel_set or space.reel_set)]
    if not sets:
        return LineLink(plays=False, scale=None, exact=False)
    if mode.buy is not None or sets != ["base"]:
        return LineLink(scale=None, exact=False)
    exact = rules_for(mode_game(space.game, name)).rtp_is_line_form
    return LineLink(scale=float(1 / mode.cost), exact=exact)


PROXY_OF = {"hit_frequency": "hit", "sd": "win2", "vi": "win2"}


def proxy_kind(name: str, targets: Targets) -> str | None:
    base = split_figure(name)[1]
    if name in targets.rtp_figures or base == "rtp" or base.startswith("rtp"):
        return "win"
    return PROXY_OF.get(base)


STOP = "stop:"  # kind prefix of a figure given exactly by stop values


def stop_value_hook(space: ReelSpace):
    """The rules' :meth:`~slotmath.rules.contract.Rules.stop_values` when
    they give them, one reel set is tuned and every tuned reel is weighted
    (the coefficients are per stop), else None."""
    rules = rules_for(space.game)
    if (
        len(space.reel_sets) > 1
        or not rules.has_stop_values
        or any(rv.mode != "weights" for rv in space.reels)
    ):
        return None
    return lambda game, level, reel_set="base": rules.stop_values(game, level, reel_set)


class StopForms:
    """Figures that are exactly multilinear in the stop weights, from the
    rules' ``stop_values(game, level, reel_set) -> {figure: [a_0, a_1, ...]}``:
    with the other reels held, the part of the figure that depends on the
    weights is ``a_r . x_r / prod_q sum(x_q)`` (``a_r[s]``: the sum over the
    other reels' stops of their weight product times the figure's value in
    the round, for stop ``s`` of reel ``r``), so it is exactly
    linear-fractional in each reel.  The constant rest is taken from the
    exact figures.  Coefficients are computed at an *anchor* (the start of a
    round) and at each point a reel's programme is solved from; elsewhere a
    move on one reel is exact and moves on several reels add up their
    one-reel changes (first order in the cross terms)."""

    def __init__(self, space: ReelSpace, hook, levels):
        self.space, self.hook = space, hook
        self._cache: dict = {}
        self.anchor = None
        self.names = set(self.arrays(levels[0], space.x0)) if hook is not None else set()

    def arrays(self, level, xs) -> dict:
        k = (level, Evaluator.key(xs))
        if k not in self._cache:
            if len(self._cache) >= 64:
                self._cache.pop(next(iter(self._cache)))
            game = self.space.game_for(xs)
            self._cache[k] = {
                n: [np.asarray(a, dtype=np.float64) for a in v]
                for n, v in self.hook(game, level, self.space.reel_set).items()
            }
        return self._cache[k]

    @staticmethod
    def _part(a, x, xs, r) -> float:
        return float(a @ x) / other_reels_weight(xs, r, float(x.sum()))

    def value(self, name: str, level: int, xs) -> float:
        base = self.anchor if self.anchor is not None else xs
        arr = self.arrays(level, base)[name]
        v0 = self._part(arr[0], base[0], base, 0)
        diff = [r for r, (x, b) in enumerate(zip(xs, base, strict=True)) if not np.array_equal(x, b)]
        if len(diff) > 1 and (level, Evaluator.key(xs)) in self._cache:
            arr, diff, base = self.arrays(level, xs)[name], [], xs
            v0 = self._part(arr[0], xs[0], xs, 0)
        for r in diff:
            moved = [x if q == r else b for q, (x, b) in enumerate(zip(xs, base, strict=True))]
            v0 += self._part(arr[r], xs[r], moved, r) - self._part(arr[r], base[r], base, r)
        return v0

    def coefficients(self, name: str, level: int, xs, r: int) -> tuple:
        return self.arrays(level, xs)[name][r], other_reels_weight(xs, r)


class LineForms:
    """The multilinear line forms (win, hit, win squared) at each bet level,
    of each tuned reel set (its reels' values in ``xs``, every set's reels
    in order), and the exact stop forms the rules give (kinds
    ``stop:<figure>``; one reel set)."""

    def __init__(self, space: ReelSpace, levels):
        game = space.game
        self.space = space
        self.stops = StopForms(space, stop_value_hook(space), tuple(levels))
        self.tensors = {}
        for lv in levels:
            t = shared_pay_tensor(game, lv).reshaped()
            bet = game.bet(lv)
            self.tensors[("win", lv)] = (t, bet.total_bet)
            self.tensors[("hit", lv)] = ((t > 0).astype(np.int64), len(game.paylines))
            self.tensors[("win2", lv)] = (t.astype(np.float64) ** 2, float(bet.total_bet) ** 2)
        self.available = bool(game.line_pays)

    #: the forms given (``stop:`` kinds aside)
    kinds = frozenset({"win", "hit", "win2"})
    #: the forms are the rule's figures exactly (the line forms are)
    exact = True
    #: the column of :attr:`TuningResult.moves` that holds a unit's form change alone
    alone = "line RTP alone [pp]"
    #: why the forms are not the rule's figures exactly ("" when they are)
    inexact = ""

    def anchor_at(self, xs) -> None:
        """Start a round of models at ``xs`` (the stop forms' anchor)."""
        self.stops.anchor = [x.copy() for x in xs]

    def marginals(self, xs, reel_set: str | None = None) -> list:
        """Row marginals of reel set ``reel_set``'s reels (default the first tuned)."""
        block = self.space.blocks[reel_set or self.space.reel_set]
        return [
            np.stack(
                [
                    xs[r] @ self.space.reels[r].incidence[:, k, :].astype(np.int64)
                    for k in range(self.space.reels[r].incidence.shape[1])
                ]
            )
            for r in block
        ]

    def value(self, kind: str, level: int, xs, reel_set: str | None = None) -> float:
        """The form ``kind`` of reel set ``reel_set`` (default the first tuned) at ``xs``."""
        if kind.startswith(STOP):
            return self.stops.value(kind[len(STOP) :], level, xs)
        values, norm = self.tensors[(kind, level)]
        reel_set = reel_set or self.space.reel_set
        total = line_total(values, self.marginals(xs, reel_set), self.space.game.paylines)
        cycle = 1
        for r in self.space.blocks[reel_set]:
            cycle *= int(xs[r].sum())
        return float(Fraction(int(total), cycle) / norm) if kind != "win2" else total / cycle / norm

    def coefficients(self, kind: str, level: int, xs, r: int) -> tuple:
        """``(a, K)``: the form of reel ``r``'s set is ``a . x_r / (K * sum(x_r))``
        with the other reels at ``xs``."""
        if kind.startswith(STOP):
            return self.stops.coefficients(kind[len(STOP) :], level, xs, r)
        values, norm = self.tensors[(kind, level)]
        block = self.space.blocks[self.space.set_of(r)]
        margs = self.marginals(xs, self.space.set_of(r))
        G = reel_gradient(values, margs, self.space.game.paylines, r - block.start)
        a = unit_coefficients(G, self.space.reels[r].incidence).astype(np.float64)
        return a, other_reels_weight([xs[q] for q in block], r - block.start, float(norm))


class WaysForms:
    """The ways RTP form (kind ``win``) of each tuned reel set, from the pay
    rule's :class:`~slotmath.engine.ways.WaysForm`, with the interface of
    :class:`LineForms`, and the rules' stop forms.

    Per reel, ``E`` (mean ways-weighted matching cells of each paying
    symbol) is ``x . e / sum(x)``, exact in stop weights and in symbol
    counts alike; ``Z`` (the chance the reel shows none) is ``x . z /
    sum(x)``, exact in stop weights.  For symbol counts ``z`` depends on the
    layout: a matching copy is taken to add ``rho`` stops whose window shows
    the symbol, ``rho`` that of the strips laid out at the anchor
    (:meth:`anchor_at`), so the form is the rule's RTP there and an
    approximation elsewhere (:attr:`exact` False), which steers the search
    only: every candidate is judged on its exact figures."""

    kinds = frozenset({"win"})
    available = True

    def __init__(self, space: ReelSpace, levels):
        game = space.game
        self.space = space
        self.stops = StopForms(space, stop_value_hook(space), tuple(levels))
        self.forms = {lv: pay_rule(game).tuning_form(game, lv) for lv in levels}
        form = next(iter(self.forms.values()))
        self.counted = [rv.mode == "counts" for rv in space.reels]
        self.exact = all(f.exact for f in self.forms.values()) and not any(self.counted)
        self.alone = "ways RTP alone [pp]" if self.exact else "ways RTP alone [pp, model]"
        why = (
            ["on unweighted strips the odds a reel shows none depend on the layout"]
            if any(self.counted)
            else []
        )
        if not all(f.exact for f in self.forms.values()):
            why.append("its by_count or summed wilds, or a tumble's later drops, are not in it")
        self.inexact = f"the ways form is an approximation ({'; '.join(why)})" if why else ""
        # per reel: matching cells of each unit's window (U, P) and whether it matches
        self.e = [rv.incidence.sum(axis=1).astype(np.int64) @ form.weight for rv in space.reels]
        self.matches = [
            rv.incidence.sum(axis=1).astype(np.int64) @ (form.weight > 0) > 0 for rv in space.reels
        ]
        self.z: list = [None] * len(space.reels)
        self.anchor_at(space.x0)

    def anchor_at(self, xs) -> None:
        """Start a round of models at ``xs``: the stop forms' anchor, and each
        counted reel's ``rho`` from its strip laid out for ``xs``."""
        self.stops.anchor = [x.copy() for x in xs]
        form = next(iter(self.forms.values()))
        rows = self.space.game.rows
        for r, counted in enumerate(self.counted):
            if not counted:
                self.z[r] = (~self.matches[r]).astype(np.float64)
                continue
            shown = form.cells(windows(self.space.game, self.space.strip(r, xs[r]))) > 0  # (N, P)
            copies = xs[r].astype(np.float64) @ self.matches[r]  # matching copies per paying symbol
            rho = np.where(copies > 0, shown.sum(axis=0) / np.maximum(copies, 1), rows)
            self.z[r] = 1.0 - self.matches[r] * rho[None, :]

    def means(self, xs, reel_set: str) -> tuple:
        """``(E, Z)`` of reel set ``reel_set`` at ``xs``, shape (R, P)."""
        block = self.space.blocks[reel_set]
        t = [float(xs[r].sum()) for r in block]
        E = np.stack([xs[r] @ self.e[r] / tr for r, tr in zip(block, t, strict=True)])
        Z = np.stack([xs[r] @ self.z[r] / tr for r, tr in zip(block, t, strict=True)])
        return E, Z

    def value(self, kind: str, level: int, xs, reel_set: str | None = None) -> float:
        """The form ``kind`` of reel set ``reel_set`` (default the first tuned) at ``xs``."""
        if kind.startswith(STOP):
            return self.stops.value(kind[len(STOP) :], level, xs)
        return self.forms[level].rtp(*self.means(xs, reel_set or self.space.reel_set))

    def coefficients(self, kind: str, level: int, xs, r: int) -> tuple:
        """``(a, K)``: the form of reel ``r``'s set is ``a . x_r / (K * sum(x_r))``
        with the other reels at ``xs``."""
        if kind.startswith(STOP):
            return self.stops.coefficients(kind[len(STOP) :], level, xs, r)
        rs = self.space.set_of(r)
        ce, cz, c0 = self.forms[level].reel_coefficients(*self.means(xs, rs), r - self.space.blocks[rs].start)
        return self.e[r] @ ce + self.z[r] @ cz + c0, 1.0


def fast_forms(space: ReelSpace, levels) -> LineForms | WaysForms:
    """The forms the tuner steers by, those of the game's pay rule's fast
    figures (:meth:`~slotmath.engine.pays.PayRule.tuning_form`; a rule
    without them is refused in one line)."""
    game = space.game
    form = pay_rule(game).tuning_form(game, game.levels[0])
    return WaysForms(space, levels) if isinstance(form, WaysForm) else LineForms(space, levels)


def other_reels_weight(xs, r: int, factor: float = 1.0) -> float:
    """``factor`` times the product of the total stop weights of every reel
    but ``r`` (``xs``: the stop weights of each reel), in reel order."""
    for q, x in enumerate(xs):
        if q != r:
            factor *= float(x.sum())
    return factor


@dataclass
class FigureModel:
    """Model of one exact figure at one level around the round's start ``xs0``:

    ``f(x) = value0 + sum_s scale[s] * (proxy_s(x) - proxy0[s]) + sum_r res[r] . (x_r - xs0_r)``

    ``proxy_s`` is the multilinear line form ``kind`` of tuned reel set
    ``s`` (None: no proxy; ``scale`` and ``proxy0`` name the sets the
    figure follows), ``res`` the finite-difference residual the proxies do
    not explain (None until computed), ``exact`` whether the scales are
    exact (the figure is its line forms up to a constant) and ``product``
    whether they are a feature game's product-rule scales
    (:mod:`slotmath.tuning.componentmodels`; never learnt by secants).
    """

    level: int
    name: str
    value0: float
    kind: str | None = None
    scale: dict = field(default_factory=dict)
    proxy0: dict = field(default_factory=dict)
    res: list | None = None
    exact: bool = False
    product: bool = False  # scales from the product rule of a feature game (not learnt)

    def form_change(self, forms: LineForms, xs, skip: str | None = None) -> float:
        """``sum_s scale[s] * (proxy_s(xs) - proxy0[s])`` over the sets but ``skip``."""
        if self.kind is None:
            return 0.0
        return sum(
            sc * (forms.value(self.kind, self.level, xs, rs) - self.proxy0[rs])
            for rs, sc in self.scale.items()
            if rs != skip
        )


def row_objective(rows, x, x_cur, x_file, outside_only=False) -> float:
    """The per-reel programme's objective at ``x`` (see :meth:`Solver.solve_reel`)."""
    t_cur = float(x_cur.sum())
    total = 0.0
    for kind, g, h, sc, fractional, aim in rows:
        d = (float(g @ x) + h) * sc
        aim = aim * float(x.sum()) / t_cur if fractional else aim
        if kind == "rtp":
            total += OUTSIDE_COST * max(0.0, abs(d) - aim)
            if not outside_only:
                total += CENTRE_COST * abs(d)
        else:
            total += OUTSIDE_COST * max(0.0, d if kind == "hi" else -d)
    if not outside_only and x_file is not None:
        total += MOVE_COST * float(np.abs(x - x_file).sum())
    return total
