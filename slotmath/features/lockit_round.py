"""Lock-it with shape awards (held symbols, shapes, award tables, mark -> wheel)
in the generic round of ``rules: lines``.

The feature
-----------
``options.lockit`` is declared with the keys the lock-it parser reads
(:func:`slotmath.features.options.load_features`) and exactly one source,
``base_game``: ``trigger`` or more of the held ``symbols`` anywhere in the
base window start it; they are held and the other cells respin ``spins``
times on the reel set ``reels`` (``after_mark`` once a ``mark`` is on
screen), with the ``rule`` countdown or reset.  The final screen is packed
into ``shapes`` (``order``, greedy) and each shape pays an award drawn from
its row of the award table ``awards`` at the bet level (a number [x total
bet] or a jackpot name); with ``mark_award: wheel`` a mark on screen at the
end pays one spin of ``options.wheel`` (which is then the lock-it's wheel).
With ``in_free_games: true`` a free game's window starts it too, by the same
trigger read on the free games' reel set (the same respins and awards): its
award is part of that free game's win, times the free games' multiplier, in
the ``free_games`` component (:mod:`slotmath.features.infree`).

Exact method
------------
The feature's key is, per reel of the base window, the rows showing a held
symbol plus ``2**H`` when the reel shows the mark
(:class:`~slotmath.features.round.Trigger` with ``rows``): the line engine
carries it as one more state digit, so (base win, key) come out jointly and
exact, and the key fixes the start state (flag, mask) of the chain.  The
final screen matters only through its *group*: the shape-count vector of its
packing and the mark flag.  The :class:`~slotmath.features.lockit.LockIt`
chain is run backward once per group (``V_g(flag, mask) = P(final in g |
start)``) and once for the full screen, and read at every triggering start
(the keys of the base window and, in free games, of the free window: one
run serves both).  Given the key the award is independent of the base win, so the round's
distribution is exact up to float64 rounding: the feature gives its award
as a mixture of the groups' laws (:func:`lockit_parts`), each convolved once
with the base wins of every key weighted by ``P(group | key)``; and

* ``mean(key) = sum_g P(g | key) (n_g . m + flag_g w)`` [x total bet],
  ``m`` the per-shape mean awards, ``w`` the wheel's mean;
* ``award(key)`` the mixture over groups of the convolution of the shapes'
  award laws (and the wheel's when the flag is paid), float64 on the grid of
  the largest step dividing every award.

Arithmetic: exact Fractions when the grid has at most :data:`EXACT_CELLS`
cells (stop weights are integers), else float64 with the bound of
:mod:`slotmath.features.lockit` (relative error below about 1e-12).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import gcd, lcm

import numpy as np

from slotmath.engine.cache import game_cache
from slotmath.engine.distribution import WinDistribution
from slotmath.errors import ensure
from slotmath.features import wheel as wheel_mod
from slotmath.features.cost import counted
from slotmath.features.declaration import Reader
from slotmath.features.infree import check_in_free_games, in_free_tables, per_round_figures
from slotmath.features.kinds import FeatureKind
from slotmath.features.landing import start_state
from slotmath.features.options import (
    LockItSource,
    LockItSpec,
    load_features,
    lockit_chain,
    shape_counts,
)
from slotmath.features.tunables import inline_table
from slotmath.features.wheel import WheelSpec
from slotmath.model import Game

__all__ = [
    "BASE_SOURCE",
    "EXACT_CELLS",
    "MAX_CELLS",
    "LineLockIt",
    "ShapePrizes",
    "load_line_lockit",
    "check_line_lockit",
    "trigger",
    "trigger_keys",
    "start_sets",
    "free_lockit",
    "lockit_free_figures",
    "shape_classes",
    "group_laws",
    "lockit_means",
    "lockit_awards",
    "lockit_parts",
    "lockit_odds",
    "lockit_feature",
    "FEATURE_EVENTS",
    "jackpot_event",
    "jackpot_names",
    "SHAPES_TABLE",
]

#: the one source a lock-it of the generic round may declare
BASE_SOURCE = "base_game"
#: largest window the chain runs on (2**cells masks per value function)
MAX_CELLS = 20
#: grids with at most this many cells run the chain in exact Fractions
EXACT_CELLS = 6
#: events of the compiled sampler (:mod:`slotmath.montecarlo.lockitsim`), after the pays'
FEATURE_EVENTS = ("lockit triggers", "lockit full screens", "lockit marks", "lockit award [grid]")


def jackpot_event(label: str) -> str:
    """The sampler's event of a lock-it jackpot's hits (after
    :data:`FEATURE_EVENTS`); its exact rate is the jackpot's hits per round."""
    return f"lockit jackpot {label}"


def jackpot_names(lk: LineLockIt, level: int) -> list:
    """The jackpots a lock-it pays at bet ``level``, each once: those the
    shapes' award table names, then the wheel's (a mark's spin)."""
    from slotmath.features import wheel as wheel_mod

    out: list = []
    for awards in lk.spec.awards.table(lk.source.awards, level):
        out += [a.label for a in awards if a.label in lk.jackpots and a.label not in out]
    if lk.mark_paid:
        for label, _, _ in wheel_mod.outcomes(lk.wheel):
            if (label in lk.jackpots or label == lk.wheel.pre_name) and label not in out:
                out.append(label)
    return out


#: name of the PAR table of shapes given a trigger
SHAPES_TABLE = "Lock-it: shapes given a trigger"


# ===========================================================================
# declaration
# ===========================================================================
@dataclass(frozen=True)
class LineLockIt:
    """A lock-it of the generic round: the declaration, its base-game source,
    the wheel a mark pays (None: marks pay nothing) and the jackpots."""

    spec: LockItSpec
    source: LockItSource
    wheel: WheelSpec | None
    jackpots: dict

    @property
    def symbol(self):
        """The trigger's symbol: the held symbol, or the tuple of them."""
        return self.spec.symbols[0] if len(self.spec.symbols) == 1 else self.spec.symbols

    @property
    def mark_paid(self) -> bool:
        """True when a mark on screen at the end pays a wheel spin."""
        return self.wheel is not None and self.spec.mark_award == "wheel" and self.source.mark_award


def load_line_lockit(game: Game) -> LineLockIt | None:
    """Parse and validate ``options.lockit`` of a ``rules: lines`` game (None
    when absent); errors name the field (:class:`GameFileError`)."""
    if not isinstance(game.options, dict) or "lockit" not in game.options:
        return None
    return _load(game)


@game_cache(maxsize=16)
def _load(game: Game) -> LineLockIt:
    rd = Reader(game)
    opts = game.options
    for other in ("selection", "hold_and_spin"):
        if other in opts:
            rd.fail(f"options.{other}", "beside options.lockit is not played under rules: lines")
    declared = load_features(game)
    spec = declared.lockit
    ensure(spec is not None, "lockit_round.py: expected spec is not None")
    for name in spec.sources:
        if name != BASE_SOURCE:
            rd.fail(
                f"options.lockit.sources.{name}",
                f"is not played under rules: lines (the round starts a lock-it from the base "
                f"window only: declare the one source {BASE_SOURCE})",
            )
    if BASE_SOURCE not in spec.sources:
        rd.fail("options.lockit.sources", f"must declare the source {BASE_SOURCE}")
    src = spec.sources[BASE_SOURCE]
    where = f"options.lockit.sources.{BASE_SOURCE}"
    cells = game.rows * game.reels
    if cells > MAX_CELLS:
        problem = f"{game.reels}x{game.rows} is {cells} cells; the chain runs on {MAX_CELLS} at most"
        rd.fail("options.lockit", problem)
    if spec.packing != "greedy":
        rd.fail("options.lockit.packing", f"{spec.packing!r} is not played under rules: lines (greedy only)")
    if spec.mark is None:
        if spec.mark_award is not None:
            rd.fail("options.lockit.mark_award", "is given but options.lockit has no mark")
        if src.after_mark is not None:
            rd.fail(f"{where}.after_mark", "is given but options.lockit has no mark")
    wheel = declared.wheel
    if wheel is not None and spec.mark_award != "wheel":
        rd.fail("options.wheel", "is declared but options.lockit has no mark_award: wheel to spin it")
    if wheel is not None and not src.mark_award:
        rd.fail(f"{where}.mark_award", "is false, so options.wheel would never be spun")
    out = LineLockIt(spec, spec.sources[BASE_SOURCE], wheel, declared.jackpots)
    if not trigger_keys(game, out):
        rd.fail("options.lockit.trigger", f"no window of reel set 'base' shows {spec.trigger} held symbols")
    used = {a.label for t in spec.awards.tables.values() for lv in t.values() for s in lv for a in s}
    if wheel is not None:
        used |= {label for label, _, _ in wheel.segments}
    for name in declared.jackpots:
        if name not in used:
            rd.fail(f"options.jackpots.{name}", "is not awarded by any lock-it award or wheel segment")
    return out


def check_line_lockit(game: Game) -> None:
    """Validate a lock-it declared under ``rules: lines`` (one line naming the field)."""
    load_line_lockit(game)


def required_lockit(game: Game) -> LineLockIt:
    lk = load_line_lockit(game)
    if lk is None:
        Reader(game).fail("options.lockit", "is required (no lock-it declared)")
    return lk


# ===========================================================================
# the key: per reel, the rows of the held symbols and the mark
# ===========================================================================
def trigger(lk: LineLockIt):
    """The round's :class:`~slotmath.features.round.Trigger` of the lock-it:
    per reel, the rows showing a held symbol plus ``2**H`` when the reel
    shows the mark."""
    from slotmath.features.round import Trigger

    return Trigger(lk.symbol, per_reel=True, rows=True, mark=lk.spec.mark)


def trigger_keys(game: Game, lk: LineLockIt, reels: str = "base") -> dict:
    """Exact probability of every triggering key of a window of reel set
    ``reels`` [probability]: reels are independent, so P(key) is the product
    of its digits' stop weights over the cycle; only keys with ``trigger`` or
    more held cells are listed."""
    from slotmath.engine.reels import reel_digits, reel_radix

    t = trigger(lk)
    H = game.rows
    per_reel = []
    for strip in game.strips(reels):
        w = np.bincount(reel_digits(game, strip, t), strip.stop_weights(), reel_radix(game, t))
        per_reel.append({int(d): int(n) for d, n in enumerate(w.astype(np.int64)) if n})
    total = 1
    for w in per_reel:
        total *= sum(w.values())
    held = [max(bin(d & ((1 << H) - 1)).count("1") for d in w) for w in per_reel]
    out: dict = {}

    def walk(r, key, n, count):  # prune prefixes that cannot reach the trigger
        if count + sum(held[r:]) < lk.spec.trigger:
            return
        if r == len(per_reel):
            out[key] = Fraction(n, total)
            return
        for d, m in per_reel[r].items():
            walk(r + 1, key + (d,), n * m, count + bin(d & ((1 << H) - 1)).count("1"))

    walk(0, (), 1, 0)
    return out


def start_sets(game: Game, lk: LineLockIt) -> tuple:
    """The reel sets whose window starts the lock-it: ``base``, and the free
    games' reel set when it plays in free games (``in_free_games``)."""
    free = load_features(game).free_games if lk.spec.in_free_games else None
    return ("base",) if free is None or free.reels == "base" else ("base", free.reels)


# ===========================================================================
# groups of final screens
# ===========================================================================
def shape_classes(game: Game, spec: LockItSpec) -> tuple:
    """(distinct shape-count vectors (G, S), group of every mask (2**(H R),))."""
    vectors, cv = np.unique(shape_counts(game, spec), axis=0, return_inverse=True)
    return vectors, cv.ravel()


@dataclass(frozen=True, eq=False)
class GroupLaws:
    """``by_key[key]``: P(final group | key), shape (2, G) [flag, vector];
    ``full[key]``: P(full screen | key); ``vectors`` (G, S); ``exact``."""

    vectors: np.ndarray
    by_key: dict
    full: dict
    exact: bool


def group_laws(game: Game, exact: bool | None = None) -> GroupLaws:
    """The chain run backward once per group (shape-count vector x flag) and
    for the full screen, read at the start state of every triggering key of
    every reel set that starts it (:func:`start_sets`: one run serves the
    base game and the free games)."""
    return _group_laws(game, exact)


@game_cache(maxsize=8)
def _group_laws(game, exact):
    lk = required_lockit(game)
    H, R = game.rows, game.reels
    if exact is None:
        exact = H * R <= EXACT_CELLS
    chain = lockit_chain(game, lk.spec, BASE_SOURCE, exact=exact)
    vectors, cv = shape_classes(game, lk.spec)
    G, M = len(vectors), 1 << (H * R)
    keys = list(dict.fromkeys(k for name in start_sets(game, lk) for k in trigger_keys(game, lk, name)))
    flags, masks = np.array([start_state(k, H) for k in keys], dtype=np.int64).reshape(-1, 2).T
    # prizes: P(final in group g with flag) for every (flag, g), then the full screen
    labels = [(flag, g) for flag in (0, 1) for g in range(G)] + [None]
    rows = []
    for label in labels:  # one backward run each, read at the starts
        f = np.zeros((2, M), dtype=np.int64)
        if label is None:
            f[:, M - 1] = 1
        else:
            f[label[0], cv == label[1]] = 1
        rows.append(chain.values(f)[flags, masks])
    at = np.stack(rows)  # (2 G + 1, keys)
    by_key = {k: at[:-1, i].reshape(2, G) for i, k in enumerate(keys)}
    p_full = {k: at[-1, i] for i, k in enumerate(keys)}
    return GroupLaws(vectors, by_key, p_full, exact)


# ===========================================================================
# awards
# ===========================================================================
class ShapePrizes:
    """Laws of the final lock-it prize on a grid, by shape-count vector
    (memoised convolutions of the shapes' award laws), and mixtures of them.

    Parameters
    ----------
    shape_laws : list of ndarray
        Per shape, P(award = j grid steps) [probability].
    wheel : ndarray
        P(wheel award = j grid steps) [probability].
    vectors : ndarray, shape (G, S)
        The shape-count vectors.
    cv : ndarray, shape (2**(H R),), optional
        Group of every mask (for :meth:`of_final`).
    """

    def __init__(self, shape_laws, wheel, vectors, cv=None):
        self.shape, self.wheel = shape_laws, wheel
        self.vectors, self.cv = vectors, cv
        self.memo = {(0,) * len(self.shape): np.ones(1)}

    def of_vector(self, vec: tuple) -> np.ndarray:
        if vec not in self.memo:
            s = next(i for i, n in enumerate(vec) if n)
            rest = list(vec)
            rest[s] -= 1
            self.memo[vec] = np.convolve(self.of_vector(tuple(rest)), self.shape[s])
        return self.memo[vec]

    @cached_property
    def matrix(self) -> np.ndarray:
        """Prize law of every shape-count vector, shape (vectors, points)."""
        rows = [self.of_vector(tuple(int(x) for x in v)) for v in self.vectors]
        out = np.zeros((len(rows), max(len(r) for r in rows)))
        for i, r in enumerate(rows):
            out[i, : len(r)] = r
        return out

    def of_groups(self, pv: np.ndarray) -> np.ndarray:
        """Prize law of the group probabilities ``pv`` [flag, vector]: the
        mixture over vectors, the wheel's award added under flag 1 (trailing
        zeros trimmed); ``pv`` of shape (K, 2, G) gives K laws, shape (K, points)."""
        mix = np.asarray(pv, dtype=float) @ self.matrix
        width = mix.shape[-1]
        out = np.zeros(mix.shape[:-2] + (width + len(self.wheel) - 1,))
        out[..., :width] = mix[..., 0, :]
        if mix[..., 1, :].any():
            for j in np.flatnonzero(self.wheel):
                out[..., j : j + width] += self.wheel[j] * mix[..., 1, :]
        return np.trim_zeros(out, "b") if out.ndim == 1 else out

    def of_final(self, final: np.ndarray) -> np.ndarray:
        """Prize law of a final (flag, mask) distribution."""
        n = len(self.vectors)
        pv = np.stack([np.bincount(self.cv, weights=final[flag], minlength=n) for flag in (0, 1)])
        return self.of_groups(pv)


def award_step(lk: LineLockIt, level: int) -> Fraction:
    """Largest step g [x total bet] with every award and wheel outcome a whole multiple of it."""
    values = [a.value for s in lk.spec.awards.table(lk.source.awards, level) for a in s]
    if lk.mark_paid:
        values += [v for _, v, _ in wheel_mod.outcomes(lk.wheel)]
    den = lcm(*(x.denominator for x in values))
    num = 0
    for x in values:
        num = gcd(num, int(x * den))
    return Fraction(num or 1, den)


def _prizes(lk: LineLockIt, level: int, vectors) -> tuple:
    g = award_step(lk, level)
    shapes = lk.spec.awards.distributions(lk.source.awards, level, g)
    wheel = wheel_mod.distribution(lk.wheel, g) if lk.mark_paid else np.ones(1)
    return g, ShapePrizes(shapes, wheel, vectors)


def _paid(laws: GroupLaws, lk: LineLockIt, key) -> np.ndarray:
    """P(group | key) with the flag dropped when a mark pays nothing."""
    pv = laws.by_key[key]
    if lk.mark_paid:
        return pv
    return np.stack([pv[0] + pv[1], pv[1] * 0])


def lockit_means(game: Game, level: int, exact: bool | None = None) -> dict:
    """Mean award [x total bet] of every triggering key (Fractions when the chain is exact)."""
    lk = required_lockit(game)
    laws = group_laws(game, exact)
    m1, _ = lk.spec.awards.moments(lk.source.awards, level)
    wm = wheel_mod.moments(lk.wheel)[0] if lk.mark_paid else Fraction(0)
    if not laws.exact:
        m1, wm = [float(x) for x in m1], float(wm)
    per = [sum((int(n) * m for n, m in zip(v, m1, strict=True)), 0 * wm) for v in laws.vectors]
    out = {}
    for key in laws.by_key:
        pv = _paid(laws, lk, key)
        out[key] = sum((pv[0][g] * per[g] + pv[1][g] * (per[g] + wm) for g in range(len(per))), 0 * wm)
    return out


def lockit_awards(game: Game, level: int, exact: bool | None = None) -> dict:
    """Law of the award of every triggering key: :class:`WinDistribution`
    (float64 probabilities; wins in 1/``unit_den`` coins at bet ``level``)."""
    lk = required_lockit(game)
    laws = group_laws(game, exact)
    g, pz = _prizes(lk, level, laws.vectors)
    bet = game.bet(level)
    step = g * bet.total_bet
    keys = list(laws.by_key)
    out = {}
    for lo in range(0, len(keys), 256):  # laws of 256 keys per matrix product
        chunk = keys[lo : lo + 256]
        hists = np.maximum(pz.of_groups(np.array([_paid(laws, lk, k) for k in chunk], dtype=float)), 0.0)
        for key, hist in zip(chunk, hists, strict=True):
            out[key] = WinDistribution.from_grid(hist, step, bet.total_bet, normalise=True)
    return out


def lockit_parts(game: Game, level: int, exact: bool | None = None) -> tuple:
    """The award as a mixture: ``(parts, mixture)``, ``parts`` the laws of the
    2 G groups of final screens (flag 0 then flag 1, by shape-count vector;
    an unpaid mark's groups are empty) and ``mixture(keys)`` the (keys, 2 G)
    matrix of P(group | key) (float64)."""
    lk = required_lockit(game)
    laws = group_laws(game, exact)
    g, pz = _prizes(lk, level, laws.vectors)
    bet = game.bet(level)
    G = len(laws.vectors)
    one_hot = np.eye(2 * G).reshape(2 * G, 2, G)
    hists = np.maximum(pz.of_groups(one_hot), 0.0)
    parts = [WinDistribution.from_grid(h, g * bet.total_bet, bet.total_bet, normalise=True) for h in hists]

    def mixture(keys):
        return np.array([np.asarray(_paid(laws, lk, k), dtype=float).ravel() for k in keys])

    return parts, mixture


def lockit_odds(game: Game, level: int, probs: dict, exact: bool | None = None) -> dict:
    """Feature odds (JSON-ready) from ``probs`` = {triggering key: P(key)}:
    trigger probability and 1 in N, mean award, P(full screen), P(mark at the
    end), expected shapes of each kind per feature, jackpot hits per round and
    the sampler's event rates (``event_rates``)."""
    lk = required_lockit(game)
    laws = group_laws(game, exact)
    means = lockit_means(game, level, exact)
    m1, _ = lk.spec.awards.moments(lk.source.awards, level)
    p = sum(probs.values(), Fraction(0))
    pf = float(p)
    full = sum(float(q) * float(laws.full[k]) for k, q in probs.items())
    mark = sum(float(q) * float(sum(laws.by_key[k][1])) for k, q in probs.items())
    groups = sum(np.array(laws.by_key[k], dtype=float).sum(axis=0) * float(q) for k, q in probs.items())
    shapes = groups @ laws.vectors  # expected shapes of each kind per round
    cells = game.rows * game.reels
    at_trigger, at_end = np.zeros(cells + 1), np.zeros(cells + 1)
    for k, q in probs.items():  # held cells at the trigger: the key's mask
        at_trigger[bin(start_state(k, game.rows)[1]).count("1")] += float(q)
    areas = np.array([h * w for h, w in lk.spec.shapes])
    np.add.at(at_end, laws.vectors @ areas, groups)  # every held cell is in a shape (1x1 is declared)
    rtp = sum(float(q) * float(means[k]) for k, q in probs.items())
    jackpots: dict = {}
    for s, awards in enumerate(lk.spec.awards.table(lk.source.awards, level)):
        total = sum(a.weight for a in awards)
        for a in awards:
            if a.label in lk.jackpots:
                jackpots[a.label] = jackpots.get(a.label, 0.0) + shapes[s] * a.weight / total
    if lk.mark_paid:
        for label, _, q in wheel_mod.outcomes(lk.wheel):
            if label in lk.jackpots or (label == lk.wheel.pre_name and lk.wheel.pre_probability):
                jackpots[label] = jackpots.get(label, 0.0) + mark * float(q)
    g = award_step(lk, level)
    wm = float(wheel_mod.moments(lk.wheel)[0]) if lk.mark_paid else 0.0
    return {
        "trigger_probability": pf,
        "trigger_probability_exact": f"{p.numerator}/{p.denominator}",
        "trigger_one_in": 1 / pf,
        "mean_award": rtp / pf,
        "full_screen_probability": full,
        "full_screen_given_trigger": full / pf,
        "mark_probability": mark,
        "mark_given_trigger": mark / pf,
        "rtp": rtp,
        "jackpot_hits_per_round": jackpots,
        "cells_given_trigger": [
            {"cells": n, "at_trigger": at_trigger[n] / pf, "at_end": at_end[n] / pf}
            for n in range(lk.spec.trigger, cells + 1)
        ],
        "shapes_given_trigger": [
            {
                "shape": name,
                "expected": float(shapes[s]) / pf,
                "mean_award": float(m1[s]),
                "rtp": float(shapes[s]) * float(m1[s]),
            }
            for s, name in enumerate(lk.spec.shape_names)
        ]
        + (  # the mark's wheel spin: the rows add up to the feature's RTP
            [{"shape": "wheel (mark)", "expected": mark / pf, "mean_award": wm, "rtp": mark * wm}]
            if lk.mark_paid
            else []
        ),
        "event_rates": dict(zip(FEATURE_EVENTS, (pf, full, mark, rtp / float(g)), strict=True))
        | {jackpot_event(label): jackpots[label] for label in jackpot_names(lk, level)},
    }


def lockit_feature(game: Game, level: int, exact: bool | None = None):
    """The lock-it as a :class:`slotmath.features.round.Feature` (component
    ``lockit``): trigger = per reel the rows of the held symbols and the mark."""
    from slotmath.features.round import Feature

    lk = required_lockit(game)
    means = lockit_means(game, level, exact)
    laws: dict = {}  # award laws and parts, built when first read (RTP figures need only the means)

    def award(key):
        if "keys" not in laws:
            laws["keys"] = lockit_awards(game, level, exact)
        return laws["keys"][key]

    def parts():
        if "parts" not in laws:
            laws["parts"] = lockit_parts(game, level, exact)
        return laws["parts"]

    return Feature(
        "lockit",
        trigger(lk),
        means.__contains__,
        means.__getitem__,
        award,
        group=lambda key: start_state(key, game.rows),  # one award law per start screen
        odds=lambda probs: lockit_odds(game, level, probs, exact),
        mixture=lambda keys: parts()[1](keys),
        parts=lambda: parts()[0],
    )


# ---------------------------------------------------------------------------
# PAR tables (the feature object's ``tables``)
# ---------------------------------------------------------------------------
def lockit_rules(game: Game) -> list:
    """The declared lock-it (its base-game source) in words."""
    from slotmath.features.lockit_round import load_line_lockit

    lk = load_line_lockit(game)
    if lk is None:
        return []
    spec, src = lk.spec, lk.source
    held = " or ".join(spec.symbols)
    out = [
        f"{spec.trigger} or more {held} anywhere on the base window start the feature; "
        "they hold and every other cell respins.",
        f"{counted(src.spins, 'respin')} on reel set {src.reels}; "
        + ("a new held symbol resets them." if spec.rule == "reset" else "they count down whatever lands."),
    ]
    if spec.mark is not None:
        out.append(
            f"{spec.mark} is a held symbol carrying a mark"
            + (f"; once one is on screen the respins use reel set {src.after_mark}" if src.after_mark else "")
            + ("; a mark on screen at the end spins the wheel once" if lk.mark_paid else "")
            + "."
        )
    names = ", ".join(spec.shape_names)
    out.append(
        f"At the end the held cells are packed into the shapes {names} ({spec.packing}, {spec.order} order); "
        f"each shape draws a prize from award table {src.awards}; the feature pays the sum."
    )
    if spec.in_free_games:
        out.append(
            f"It also starts on a free game's window ({spec.trigger} or more {held} on the free games' reel "
            "set, the same respins and awards); such a feature's award is part of that free game's win, "
            "times the free games' multiplier, and is paid in the free games' component."
        )
    return out


def lockit_tables(game: Game, lk: dict, rtp: float, level: int) -> dict:
    """Lock-it: rules, each shape's prizes, trigger / full-screen / mark odds,
    jackpots and the award's mean and share of RTP."""
    import pandas as pd

    from slotmath.features.lockit_round import load_line_lockit
    from slotmath.features.sheetrows import SHARE, jackpot_rows, prize_rows, share, trigger_row

    line = load_line_lockit(game)
    if line is None:
        return {}
    spec = line.spec
    rows = []
    for shape, awards in zip(spec.shape_names, spec.awards.table(line.source.awards, level), strict=True):
        rows += prize_rows(awards, {"shape": shape}, "shape")
    p = lk["trigger_probability"]
    odds = [trigger_row("the feature starts", p), trigger_row("a full screen", lk["full_screen_probability"])]
    if spec.mark is not None:
        odds.append(trigger_row(f"a mark ({spec.mark}) on screen at the end", lk["mark_probability"]))
    out = {
        "Lock-it: rules": pd.DataFrame({"rule": lockit_rules(game)}),
        "Lock-it: shape prizes": pd.DataFrame(rows),
        "Lock-it: trigger, full-screen and mark odds": pd.DataFrame(odds),
    }
    values = {name: float(v) for name, v in line.jackpots.items()}
    jackpots = jackpot_rows(lk.get("jackpot_hits_per_round", {}), values, rtp)
    if jackpots:
        out["Lock-it: jackpots"] = pd.DataFrame(jackpots)
    out["Lock-it: held cells given a trigger"] = pd.DataFrame(
        {
            "held cells": [r["cells"] for r in lk["cells_given_trigger"]],
            "probability given a trigger: at the trigger": [
                r["at_trigger"] for r in lk["cells_given_trigger"]
            ],
            "probability given a trigger: at the end": [r["at_end"] for r in lk["cells_given_trigger"]],
        }
    )
    out["Lock-it: award"] = pd.DataFrame(
        [
            {
                "mean award [x total bet]": lk["mean_award"],
                "full screen given a trigger [probability]": lk["full_screen_given_trigger"],
                SHARE: share(lk["rtp"], rtp),
            }
        ]
    )
    return out


# ---------------------------------------------------------------------------
# the feature object (slotmath.features.registry)
# ---------------------------------------------------------------------------
def _lockit_spec(game: Game):
    return load_features(game).lockit


def _lockit_notes(game: Game, law) -> list:
    if "lockit" not in law.figures:
        return []
    out = [
        "Lock-it: key = per reel the rows of the held symbols and the mark, joint with "
        "the base win in the pay rule's pass; the chain of the held symbols run "
        "backward once per group of final screens (shape-count vector x mark flag) and "
        "read at each key's start; award = the shapes' award laws convolved (plus one "
        f"wheel spin where a mark pays). Means exact Fractions up to {EXACT_CELLS} cells, else "
        "float64 (relative error below about 1e-12)."
    ]
    if "lockit_per_free_game" in law.figures.get("free_games", {}):
        out.append(
            "Lock-it in free games: a free game's window starts it on the free reel set by the same "
            "trigger (its key read in the free spin's pass, the chain read at that key's start); its "
            "award is part of that game's win (times the free games' multiplier, in the free_games "
            "component); mean exact by Wald's identity (E[games played] x E[award per free game]), "
            "award law through the per-game (win, extra games) table (float64)."
        )
    return out


def _lockit_tables(game: Game, figures: dict, rtp: float, level: int) -> dict:
    import pandas as pd

    odds = figures.get("lockit")
    if not odds:
        return {}
    columns = {
        "expected": "expected shapes per feature",
        "rtp": "RTP [x total bet]",
        "mean_award": "mean award [x total bet]",
    }
    shapes = pd.DataFrame(odds["shapes_given_trigger"]).rename(columns=columns)
    inside = figures.get("free_games", {}).get("lockit_in_free_games")
    free = {} if inside is None else in_free_tables(game, "Lock-it", inside, rtp)
    return {**lockit_tables(game, odds, rtp, level), SHAPES_TABLE: shapes, **free}


def _plays_in_free_games(game: Game) -> bool:
    spec = _lockit_spec(game)
    return spec is not None and spec.in_free_games


def _check_in_free_games(game: Game) -> None:
    """Refuse ``options.lockit.in_free_games`` where it is not computed, in one
    line naming it (:func:`slotmath.features.infree.check_in_free_games`), or
    when no window of the free reel set shows ``trigger`` held symbols."""
    if not _plays_in_free_games(game):
        return
    lk = required_lockit(game)

    def reach(free_reels: str) -> str | None:
        if trigger_keys(game, lk, free_reels):
            return None
        held = " or ".join(lk.spec.symbols)
        return f"no window of the free games' reel set {free_reels!r} shows {lk.spec.trigger} or more {held}"

    check_in_free_games(game, "options.lockit.in_free_games", reach)


def free_lockit(game: Game, level: int, free_reels: str):
    """The lock-it of a free game as a :class:`~slotmath.features.round.Feature`:
    the base game's (its means and laws are read at the start of every key of
    :func:`start_sets`, the free reel set ``free_reels`` among them)."""
    lk = required_lockit(game)
    ensure(free_reels in start_sets(game, lk), f"lockit_round.py: reel set {free_reels!r} does not start it")
    return lockit_feature(game, level)


def lockit_free_figures(per_game: dict, games: Fraction, weighted: Fraction) -> dict:
    """Figures per round of the lock-it free games start
    (:func:`~slotmath.features.infree.per_round_figures`, and its marks at
    the end per round)."""
    return per_round_figures(per_game, games, weighted) | {
        "marks_per_round": float(games) * per_game["mark_probability"]
    }


def _lockit_tunables(game: Game) -> tuple:
    """The inline award tables, one per (table, bet level, shape): each shape
    pays one draw, so the feature's RTP at that level is linear in their
    draw probabilities (a CSV file's table is not tuned)."""
    awards = game.options["lockit"].get("awards")
    if not isinstance(awards, dict):
        return ()
    moves = ("lockit", "free_games") if _plays_in_free_games(game) else ("lockit",)
    found = (
        inline_table(game.options, ("lockit", "awards", name, level, shape), moves, levels=(int(level),))
        for name, by_level in awards.items()
        for level, by_shape in by_level.items()
        for shape in by_shape
    )
    return tuple(t for t in found if t is not None)


LOCKIT = FeatureKind(
    key="lockit",
    title="lock-it",
    parse=_lockit_spec,
    component="lockit",
    starts=lambda game: _lockit_spec(game) is not None,
    exact=lambda game, level: lockit_feature(game, level),
    combines=check_line_lockit,
    check=_check_in_free_games,
    reel_sets=lambda game: _lockit_spec(game).reel_sets(),
    in_free_games=_plays_in_free_games,
    free_feature=free_lockit,
    free_figures=lockit_free_figures,
    free_sets=lambda game: _lockit_spec(game).reel_sets(),
    notes=_lockit_notes,
    tables=_lockit_tables,
    tunables=_lockit_tunables,
    example="tests/data/lockit_tiny/game.yaml",
    schema={
        "type": "object",
        "description": "Hold & respin (lock-it) feature with shape awards; under rules: lines its one "
        "source is base_game, and in_free_games: true starts it on a free game's window too: "
        "docs/features.md.",
        "additionalProperties": False,
        "properties": {
            "symbols": {},
            "mark": {},
            "trigger": {},
            "rule": {},
            "shapes": {},
            "order": {},
            "packing": {},
            "awards": {},
            "mark_award": {},
            "sources": {},
            "in_free_games": {},
        },
    },
    slot="slotmath.montecarlo.lockitsim:LOCKIT_SLOT",
)
