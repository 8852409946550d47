"""What the reel tuner may change: the integer variables of a reel set.

Each reel is tuned in one of two ways, chosen by its strip:

* ``counts`` (an unweighted strip): one variable per symbol, the number of
  its copies on the strip; the strip length is their sum.  New counts are
  laid out on the strip by :func:`slotmath.tuning.layout.lay_out`.
* ``weights`` (a weighted strip, a virtual reel): one variable per stop,
  its weight; the symbol sequence never changes.

A *unit* is one variable.  ``incidence[u, k, x]`` is 1 when one unit of
``u`` adds a stop weight that shows symbol ``x`` in window row ``k``, so
every row marginal is ``x_r @ incidence[:, k, :]`` -- the link to the
multilinear line figures (:mod:`slotmath.engine.multilinear`).

Limits (:class:`Bounds`): symbols held fixed (default: scatter and special
kinds), per-symbol minimum and maximum counts (for weighted reels: of the
symbol's total weight), strip length or total weight, per-stop weight
limits.  By default a symbol absent from a reel stays absent (a rule such as
"WILD only on reels 2-5" is kept) and a present one keeps at least one copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from slotmath.errors import BoundsError as BoundsError
from slotmath.model import Game, Strip
from slotmath.tuning.layout import lay_out, stacked_symbols

HELD_KINDS = ("scatter", "special")


@dataclass(frozen=True)
class Bounds:
    """Limits on what tuning may change in a reel set.

    Attributes
    ----------
    fixed : tuple of str or None
        Symbols held at their current count (or stop weights); None holds
        every scatter and special symbol.
    counts : mapping
        ``{(reel, symbol): (lo, hi)}``; ``reel`` is 0-based or None for
        every reel; ``hi`` None means no upper limit.  On a weighted reel
        the limits apply to the symbol's total weight.
    lengths : mapping
        ``{reel or None: (lo, hi)}``: strip length (counts) or total stop
        weight (weights); default the current value (no change).
    weights : (lo, hi)
        Limits on each stop weight of weighted reels (``hi`` None: none).
    new_symbols : bool
        Whether a symbol may appear on a reel that does not show it now.
    stacked : tuple of str or None
        Symbols laid out as stacks (None: those all of whose copies sit in
        stacks now, per reel).
    weight_factor : float or None
        Shape bound (default 2): each stop weight (unweighted reels: each symbol count)
        stays within ``[ceil(x0 / f), floor(x0 * f)]`` of its value in the game file,
        widened to ``x0 +- 1`` so small values can move (None: no bound).
    symbol_share : float or None
        Shape bound (default 0.5): each tuned symbol's share of a reel (its count, or its
        total weight, over the strip length or total weight) stays within
        ``share0 * (1 +- b)``, widened to one unit either way (None: no bound).
    max_run : int or None
        Longest run of one symbol the layout may make on an unweighted
        strip (None: each symbol's longest run on the strip in the file;
        :func:`slotmath.tuning.layout.run_limits`).
    symmetric : bool
        Shape bound (default True): reels of one reel set alike in the file
        (the same symbol counts, or on weighted reels the same stops and
        weights, and the same limits) form a group that moves together,
        the same change on each reel (:attr:`ReelSpace.groups`); False
        tunes every reel on its own.
    """

    fixed: tuple | None = None
    counts: Mapping = field(default_factory=dict)
    lengths: Mapping = field(default_factory=dict)
    weights: tuple = (1, None)
    new_symbols: bool = False
    stacked: tuple | None = None
    weight_factor: float | None = 2.0
    symbol_share: float | None = 0.5
    max_run: int | None = None
    symmetric: bool = True

    def held(self, game: Game) -> set:
        """Names of the symbols held fixed."""
        if self.fixed is None:
            return {s.name for s in game.symbols if s.kind in HELD_KINDS}
        return set(self.fixed)

    def check(self, game: Game, n_reels: int) -> None:
        known = set(game.symbol_names)
        for name in self.fixed or ():
            if name not in known:
                raise BoundsError(f"fixed: unknown symbol {name!r}")
        for (reel, sym), (lo, hi) in self.counts.items():
            if sym not in known:
                raise BoundsError(f"count limits: unknown symbol {sym!r}")
            if reel is not None and not 0 <= reel < n_reels:
                raise BoundsError(
                    f"count limits for {sym}: reel {reel + 1} does not exist (reels 1..{n_reels})"
                )
            if lo < 0 or (hi is not None and hi < lo):
                raise BoundsError(f"count limits for {sym}: bad range {lo}:{hi}")
        for reel, (lo, hi) in self.lengths.items():
            if reel is not None and not 0 <= reel < n_reels:
                raise BoundsError(f"length limits: reel {reel + 1} does not exist")
            if lo < 1 or (hi is not None and hi < lo):
                raise BoundsError(f"length limits: bad range {lo}:{hi}")
        lo, hi = self.weights
        if lo < 0 or (hi is not None and hi < lo):
            raise BoundsError(f"stop weight limits: bad range {lo}:{hi}")
        if self.weight_factor is not None and not self.weight_factor >= 1:
            raise BoundsError(f"weight factor: {self.weight_factor:g} is below 1")
        if self.max_run is not None and self.max_run < 1:
            raise BoundsError(f"longest run: {self.max_run} is below 1")
        if self.symbol_share is not None and not 0 <= self.symbol_share:
            raise BoundsError(f"symbol share band: {self.symbol_share:g} is negative")


def factor_limits(x0: np.ndarray, lo: np.ndarray, hi: np.ndarray, factor) -> tuple:
    """``lo``/``hi`` narrowed to ``[x0 / factor, x0 * factor]`` (at least
    ``x0 +- 1``; fixed units stay fixed)."""
    if factor is None:
        return lo, hi
    free = lo < hi
    f_lo = np.minimum(np.ceil(x0 / factor), x0 - 1)
    f_hi = np.maximum(np.floor(x0 * factor), x0 + 1)
    new_lo = np.where(free, np.maximum(lo, f_lo), lo).astype(np.int64)
    new_hi = np.where(free, np.minimum(hi, f_hi), hi).astype(np.int64)
    return new_lo, np.maximum(new_hi, new_lo)


def share_limits(masks: list, x0: np.ndarray, lo: np.ndarray, hi: np.ndarray, band) -> tuple:
    """``(mask, s_lo, s_hi, name)`` share limits of each tuned symbol
    (``masks``: ``(name, mask)``): ``share0 * (1 +- band)``, at least one
    unit either way."""
    if band is None:
        return ()
    t = float(x0.sum())
    out = []
    for name, m in masks:
        v = float(x0[m].sum())
        if v == 0 or np.all(lo[m] == hi[m]):
            continue
        s0 = v / t
        out.append((m, min(s0 * (1 - band), (v - 1) / t), max(s0 * (1 + band), (v + 1) / t), name))
    return tuple(out)


def _pick(mapping: Mapping, reel: int, key=None):
    """Reel-specific entry, else the all-reels entry, else None."""
    if key is None:
        return mapping.get(reel, mapping.get(None))
    return mapping.get((reel, key), mapping.get((None, key)))


@dataclass(frozen=True)
class ReelVariables:
    """Tuning variables of one reel (reel ``reel``, 0-based, of reel set
    ``reel_set``).

    ``mode`` is ``counts`` or ``weights``; ``labels[u]`` names unit ``u``
    (a symbol, or ``stop k SYMBOL``); ``symbol[u]`` is the symbol index it
    adds (-1 for a weighted stop, whose window spans several symbols);
    ``x0`` the current values; ``lo``/``hi`` per-unit limits; ``total``
    the (lo, hi) range of the sum; ``groups`` extra ``(mask, lo, hi)``
    limits on sums of units; ``shares`` ``(mask, s_lo, s_hi, name)`` limits
    ``s_lo * sum(x) <= mask . x <= s_hi * sum(x)`` (a symbol's share of the
    reel); ``incidence`` shape (U, rows, S).
    """

    reel: int
    mode: str
    labels: tuple
    symbol: np.ndarray
    x0: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    total: tuple
    groups: tuple
    incidence: np.ndarray
    shares: tuple = ()
    reel_set: str = "base"

    @property
    def size(self) -> int:
        return len(self.labels)

    def feasible(self, x: np.ndarray) -> bool:
        """Whether ``x`` respects every limit of this reel."""
        if np.any(x < self.lo) or np.any(x > self.hi):
            return False
        t = int(x.sum())
        if not self.total[0] <= t <= self.total[1]:
            return False
        return all(lo <= int(x[m].sum()) <= hi for m, lo, hi in self.groups) and all(
            s_lo * t - 1e-6 <= int(x[m].sum()) <= s_hi * t + 1e-6 for m, s_lo, s_hi, _ in self.shares
        )

    def binding(self, x: np.ndarray) -> list:
        """Shape and range limits that ``x`` sits on: ``(unit or symbol, text)``."""
        out = []
        for u in range(self.size):
            if self.lo[u] == self.hi[u]:
                continue
            if x[u] == self.hi[u] and x[u] > self.x0[u]:
                out.append((self.labels[u], f"at its upper limit {int(self.hi[u])}"))
            elif x[u] == self.lo[u] and x[u] < self.x0[u]:
                out.append((self.labels[u], f"at its lower limit {int(self.lo[u])}"))
        t = int(x.sum())
        for m, s_lo, s_hi, name in self.shares:
            v = int(x[m].sum())
            if v + 1 > s_hi * t + 1e-9 and v > int(self.x0[m].sum()):
                out.append((name, f"share of the reel at its upper limit {s_hi:.2%}"))
            elif v - 1 < s_lo * t - 1e-9 and v < int(self.x0[m].sum()):
                out.append((name, f"share of the reel at its lower limit {s_lo:.2%}"))
        return out


class ReelSpace:
    """The tunable variables of a game's reel sets and the map back to strips.

    Parameters
    ----------
    game : Game
    reel_set : str or tuple of str
        The reel set tuned, or several: their reels are the variables at
        once, in the order named (``reels``, ``strips``: every set's reels,
        set after set; :attr:`blocks` says which are whose).
    bounds : Bounds, optional
        Limits that name a reel apply to that reel of every set tuned.
    """

    def __init__(self, game: Game, reel_set: str | tuple = "base", bounds: Bounds | None = None):
        names = (reel_set,) if isinstance(reel_set, str) else tuple(reel_set)
        for name in names:
            if name not in game.reel_sets:
                raise BoundsError(f"no reel set {name!r} (reel sets: {', '.join(game.reel_sets)})")
        if not names or len(set(names)) != len(names):
            raise BoundsError(f"reel sets tuned: {', '.join(names) or 'none'} (each once, at least one)")
        self.game, self.reel_sets, self.reel_set = game, names, names[0]
        self.bounds = bounds or Bounds()
        self.blocks: dict = {}  # {reel set: range of its reels in reels/strips}
        strips: list = []
        for name in names:
            self.blocks[name] = range(len(strips), len(strips) + len(game.strips(name)))
            strips += game.strips(name)
        self.strips = tuple(strips)
        self.bounds.check(game, len(game.strips(self.reel_set)))
        self.held = self.bounds.held(game)
        self.reels = [
            self._reel(r - self.blocks[name].start, strips[r], name)
            for name in names
            for r in self.blocks[name]
        ]
        self.stacked = [
            set(self.bounds.stacked) if self.bounds.stacked is not None else stacked_symbols(s.symbols)
            for s in self.strips
        ]
        # reels alike in the file (symmetric bounds), and the groups moved together now
        self.alike = self._alike() if self.bounds.symmetric else tuple((r,) for r in range(len(self.reels)))
        self.groups = self.alike
        self.group_of = {r: g for g in self.groups for r in g}

    def untie(self) -> None:
        """Move every reel on its own from now on (:attr:`alike` is kept)."""
        self.groups = tuple((r,) for r in range(len(self.reels)))
        self.group_of = {r: g for g in self.groups for r in g}

    def _alike(self) -> tuple:
        """Groups of reels (indices into :attr:`reels`, in order) of one
        reel set whose variables, values and limits are the same."""
        keys: dict = {}
        for r, rv in enumerate(self.reels):
            key = (
                rv.reel_set,
                rv.mode,
                rv.labels,
                rv.x0.tobytes(),
                rv.lo.tobytes(),
                rv.hi.tobytes(),
                rv.total,
                tuple((m.tobytes(), lo, hi) for m, lo, hi in rv.groups),
                tuple((m.tobytes(), lo, hi) for m, lo, hi, _ in rv.shares),
            )
            keys.setdefault(key, []).append(r)
        return tuple(sorted(tuple(g) for g in keys.values()))

    def tied(self, alike: bool = False) -> tuple:
        """The groups of two or more reels that move together now (``alike``:
        those alike in the file, whether tied now or not)."""
        return tuple(g for g in (self.alike if alike else self.groups) if len(g) > 1)

    def set_of(self, r: int) -> str:
        """The reel set of reel ``r`` (an index into :attr:`reels`)."""
        return next(name for name, block in self.blocks.items() if r in block)

    # ------------------------------------------------------------ building
    def _reel(self, r: int, strip: Strip, reel_set: str) -> ReelVariables:
        g, b = self.game, self.bounds
        S, rows = len(g.symbols), g.rows
        idx = g.symbol_index
        names = g.symbol_names
        sym_of_stop = np.array([idx[s] for s in strip.symbols], dtype=np.int64)
        if strip.weights is None:
            x0 = np.bincount(sym_of_stop, minlength=S).astype(np.int64)
            lo, hi = np.zeros(S, np.int64), np.zeros(S, np.int64)
            t0 = len(strip)
            t_lo, t_hi = _pick(b.lengths, r) or (t0, t0)
            t_hi = t_hi if t_hi is not None else max(t0, t_lo) * 4
            for u, name in enumerate(names):
                if name in self.held:
                    lo[u] = hi[u] = x0[u]
                elif x0[u] == 0 and not b.new_symbols:
                    lo[u] = hi[u] = 0
                else:
                    lo[u], hi[u] = (1 if x0[u] > 0 else 0), t_hi
                lim = _pick(b.counts, r, name)
                if lim is not None and name not in self.held:
                    lo[u] = lim[0]
                    hi[u] = t_hi if lim[1] is None else min(lim[1], t_hi)
            incidence = np.zeros((S, rows, S), dtype=np.int8)
            for u in range(S):
                incidence[u, :, u] = 1
            lo, hi = factor_limits(x0, lo, hi, b.weight_factor)
            shares = share_limits(
                [(n, np.arange(S) == u) for u, n in enumerate(names)], x0, lo, hi, b.symbol_share
            )
            return ReelVariables(
                r,
                "counts",
                names,
                np.arange(S),
                x0,
                lo,
                hi,
                (int(t_lo), int(t_hi)),
                (),
                incidence,
                shares,
                reel_set,
            )
        # weighted strip: one variable per stop
        N = len(strip)
        x0 = np.asarray(strip.weights, dtype=np.int64)
        t0 = int(x0.sum())
        t_lo, t_hi = _pick(b.lengths, r) or (t0, t0)
        t_hi = t_hi if t_hi is not None else max(t0, t_lo) * 4
        w_lo, w_hi = b.weights
        lo = np.full(N, w_lo, np.int64)
        hi = np.full(N, t_hi if w_hi is None else w_hi, np.int64)
        for s in range(N):
            if strip.symbols[s] in self.held:
                lo[s] = hi[s] = x0[s]
        groups = []
        for name in names:
            lim = _pick(b.counts, r, name)
            if lim is not None and name not in self.held:
                mask = np.array([sym == name for sym in strip.symbols])
                if mask.any():
                    groups.append((mask, int(lim[0]), int(t_hi if lim[1] is None else lim[1])))
        incidence = np.zeros((N, rows, S), dtype=np.int8)
        for s in range(N):
            for k in range(rows):
                incidence[s, k, sym_of_stop[(s + k) % N]] = 1
        labels = tuple(f"stop {s} {strip.symbols[s]}" for s in range(N))
        lo, hi = factor_limits(x0, lo, hi, b.weight_factor)
        masks = [(n, np.array([sym == n for sym in strip.symbols])) for n in dict.fromkeys(strip.symbols)]
        shares = share_limits(masks, x0, lo, hi, b.symbol_share)
        return ReelVariables(
            r,
            "weights",
            labels,
            np.full(N, -1),
            x0,
            lo,
            hi,
            (int(t_lo), int(t_hi)),
            tuple(groups),
            incidence,
            shares,
            reel_set,
        )

    # ------------------------------------------------------------ mapping
    @property
    def x0(self) -> list:
        """Current values of every reel's variables."""
        return [rv.x0.copy() for rv in self.reels]

    def feasible(self, xs: list) -> bool:
        return all(rv.feasible(x) for rv, x in zip(self.reels, xs, strict=True))

    def strip(self, r: int, x: np.ndarray) -> Strip:
        """Reel ``r``'s strip for values ``x``."""
        rv, old = self.reels[r], self.strips[r]
        if rv.mode == "weights":
            return Strip(old.symbols, tuple(int(v) for v in x))
        if np.array_equal(x, rv.x0):
            return old
        counts = {name: int(c) for name, c in zip(rv.labels, x, strict=True)}
        return Strip(
            lay_out(old.symbols, counts, self.stacked[r], pinned=self.held, max_run=self.bounds.max_run), None
        )

    def strips_for(self, xs: list) -> tuple:
        return tuple(self.strip(r, x) for r, x in enumerate(xs))

    def game_for(self, xs: list) -> Game:
        """The game with the tuned reel sets replaced by the strips for ``xs``."""
        return self.game_with(self.strips_for(xs))

    def game_with(self, strips) -> Game:
        """The game with the tuned reel sets holding ``strips`` (every set's reels, in order)."""
        game = self.game
        for name, block in self.blocks.items():
            game = with_strips(game, name, tuple(strips[r] for r in block))
        return game

    def strips_by_set(self, xs: list) -> dict:
        """``{reel set: its strips for xs}``."""
        strips = self.strips_for(xs)
        return {name: tuple(strips[r] for r in block) for name, block in self.blocks.items()}

    def reel_label(self, r: int) -> str:
        """``reel N`` of reel ``r``, ``SET reel N`` when several sets are tuned."""
        rv = self.reels[r]
        return f"reel {rv.reel + 1}" if len(self.reel_sets) == 1 else f"{rv.reel_set} reel {rv.reel + 1}"

    def moves(self, xs: list, before: list | None = None) -> pd.DataFrame:
        """Every variable that differs from ``before`` (default: the file)."""
        before = self.x0 if before is None else before
        rows = []
        several = len(self.reel_sets) > 1
        for rv, x, b in zip(self.reels, xs, before, strict=True):
            for u in np.flatnonzero(x != b):
                rows.append(
                    {
                        **({"reel set": rv.reel_set} if several else {}),
                        "reel": rv.reel + 1,
                        "unit": rv.labels[u],
                        "before": int(b[u]),
                        "after": int(x[u]),
                        "change": int(x[u] - b[u]),
                    }
                )
        columns = ["reel", "unit", "before", "after", "change"]
        return pd.DataFrame(rows, columns=["reel set", *columns] if several else columns)

    def composition(self, xs: list | None = None) -> pd.DataFrame:
        """Symbol counts (or total weights) per reel: symbols x reels."""
        xs = self.x0 if xs is None else xs
        names = self.game.symbol_names
        data = {}
        for r, (rv, x) in enumerate(zip(self.reels, xs, strict=True)):
            if rv.mode == "counts":
                data[self.reel_label(r)] = [int(v) for v in x]
            else:
                strip = self.strips[r]
                data[self.reel_label(r)] = [
                    int(sum(int(w) for w, s in zip(x, strip.symbols, strict=True) if s == n)) for n in names
                ]
        return pd.DataFrame(data, index=list(names))


def with_strips(game: Game, reel_set: str, strips) -> Game:
    """A copy of ``game`` whose reel set ``reel_set`` holds ``strips``."""
    from dataclasses import replace

    reel_sets = dict(game.reel_sets)
    reel_sets[reel_set] = tuple(strips)
    return replace(game, reel_sets=reel_sets)
