"""The respin chain of the value-per-coin hold-and-spin on the coarsest exact state.

The chain of :mod:`slotmath.features.holdspin` needs, from every start, the
law of the final number of held coins (the prizes are drawn independently of
where the coins land, so the award given the final count is a convolution of
the value tables, see :class:`slotmath.features.holdspin._PrizeSums`).  The
state it runs on is the coarsest one that is exact for the declared landing:

``total``
    every empty cell lands a coin with one probability ``p`` (``respin:
    cells``, the same probability on every cell): the state is the total count
    ``n`` of held coins, ``cells + 1`` states.  One respin adds ``k`` coins with
    the binomial ``C(cells - n, k) p^k (1 - p)^(cells - n - k)``.
``reels``
    the cells of a reel land alike but reels differ: the state is the tuple
    of per-reel counts, ``(H + 1)**R`` states, reel ``r`` moving from ``c`` to
    ``c'`` coins with ``C(H - c, c' - c) p_r^(c' - c) (1 - p_r)^(H - c')``,
    independently across reels.
``masks``
    the landing depends on the rows (``respin: reels``: the whole reel spins
    under the held coins; per-cell probabilities that differ down a reel): the
    state is the mask of held cells, ``2**(H R)`` states, run by
    :class:`slotmath.features.lockit.LockIt`.

The respin counter is not a state dimension: with the ``reset`` rule a state
that gains coins restarts the counter, so the chain settles the value of
each state level by level of the total count, from the full screen down,
``V(s) = stay(s)^N f(s) + moved(s) (1 + stay + ... + stay^(N-1))`` (``N``
respins, ``stay(s)`` the probability that a respin lands nothing, ``moved``
the value of the respins that land something); with ``countdown`` the chain
is applied ``N`` times.

:func:`chain_state` chooses the state from the declaration and estimates its
work; :func:`check_cost` (called by ``validate``) refuses a declaration whose
chain exceeds :data:`MAX_LAW_ENTRIES` or :data:`MAX_MASKS`, in one line naming
the field and the estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb, gcd, lcm

import numpy as np

from slotmath.errors import ensure
from slotmath.features.holdspin_spec import HoldAndSpinSpec
from slotmath.model import Game

__all__ = [
    "KINDS",
    "MAX_LAW_ENTRIES",
    "MAX_MASKS",
    "EXACT_WORK",
    "EXACT_LAW_WORK",
    "ChainState",
    "cell_probabilities",
    "reel_probabilities",
    "chain_state",
    "check_cost",
    "count_grid",
    "count_chain_values",
    "total_count_values",
    "total_count_laws",
    "reel_count_laws",
    "prize_grid",
    "PrizeSums",
]

#: states, coarsest first
KINDS = ("total", "reels", "masks")
#: largest (states x final counts) of the per-reel count chain's laws (float64: 8 bytes each)
MAX_LAW_ENTRIES = 10_000_000
#: largest number of masks of held cells (the mask chain; 2**20 took 306 CPU-s and 1.85 GB)
MAX_MASKS = 1 << 20
#: largest estimated Fraction operations of the exact per-reel count chain (else float64)
EXACT_WORK = 400_000
#: largest (cells + 1)**3 of the total-count chain whose final-count laws run in Fractions
#: (the means are exact on every grid: one value per state)
EXACT_LAW_WORK = 30_000


@dataclass(frozen=True)
class ChainState:
    """The state of the respin chain: ``kind`` (one of :data:`KINDS`),
    ``states`` (number of chain states), ``cells`` (H R) and ``work``
    (estimated multiply-adds of the final-count laws of every start)."""

    kind: str
    states: int
    cells: int
    work: int

    def describe(self) -> str:
        """One sentence for the PAR notes."""
        what = {
            "total": "the total count of held coins (every cell lands a coin alike)",
            "reels": "the per-reel counts of held coins (the cells of a reel land alike, reels differ)",
            "masks": "the masks of held cells (the landing depends on the rows)",
        }[self.kind]
        return f"The hold-and-spin chain runs on {what}: {self.states:,} states for {self.cells} cells."


def cell_probabilities(game: Game, spec: HoldAndSpinSpec) -> tuple:
    """``respin: cells``: rows x reels probability that an empty cell lands a
    coin [probability] (Fractions): the declared ones, or the coin's share of
    the stop weight of the cell's reel strip."""
    if spec.probabilities is not None:
        return spec.probabilities
    ensure(
        spec.reels is not None, "holdspin_chain.py: expected spec.reels is not None"
    )  # the loader requires reels or probabilities
    idx = game.symbol_index[spec.symbol]
    p = []
    for strip in game.strips(spec.reels):
        w = strip.stop_weights()
        hits = np.array([game.symbol_index[s] == idx for s in strip.symbols])
        p.append(Fraction(int(w[hits].sum()), int(w.sum())))
    return (tuple(p),) * game.rows


def reel_probabilities(game: Game, spec: HoldAndSpinSpec) -> list | None:
    """Per reel, the probability that an empty cell lands a coin, when the
    respins land cell by cell with one probability per reel (the feature then
    depends on the start only through the per-reel counts); None otherwise."""
    if spec.respin != "cells":
        return None
    cols = [{row[r] for row in cell_probabilities(game, spec)} for r in range(game.reels)]
    return [c.pop() for c in cols] if all(len(c) == 1 for c in cols) else None


def chain_state(game: Game, spec: HoldAndSpinSpec) -> ChainState:
    """The coarsest exact state of the respin chain and its size (see the module docstring)."""
    H, R = game.rows, game.reels
    cells = H * R
    p = reel_probabilities(game, spec)
    steps = cells + 1 if spec.rule == "reset" else spec.respins
    if p is not None and len(set(p)) == 1:
        return ChainState("total", cells + 1, cells, (cells + 1) ** 3)
    if p is not None:
        states = (H + 1) ** R
        return ChainState("reels", states, cells, states * (cells + 1) * R * (H + 1) * steps)
    states = 1 << cells
    return ChainState("masks", states, cells, states * (cells + 1) * R * (2**H + 3))


def check_cost(game: Game, spec: HoldAndSpinSpec) -> None:
    """Refuse a hold-and-spin whose chain does not fit (one line naming the
    field and the estimate): the per-reel count chain above
    :data:`MAX_LAW_ENTRIES` (states x final counts), the mask chain above
    :data:`MAX_MASKS` masks."""
    from slotmath.io.gamefile import GameFileError

    state = chain_state(game, spec)
    w = "options.hold_and_spin"
    grid = f"{game.reels}x{game.rows}"
    if state.kind == "reels" and state.states * (state.cells + 1) > MAX_LAW_ENTRIES:
        field = f"{w}.probabilities" if spec.probabilities is not None else f"{w}.reels"
        raise GameFileError(
            game.source,
            field,
            f"the reels land coins with different probabilities, so the chain runs on per-reel counts: "
            f"{state.states:,} states x {state.cells + 1} final counts = "
            f"{state.states * (state.cells + 1):.3g} on the {grid} grid, "
            f"above the bound {MAX_LAW_ENTRIES:.3g}; "
            "one probability for every cell runs on the total count",
        )
    if state.kind == "masks" and state.states > MAX_MASKS:
        field = f"{w}.respin" if spec.respin == "reels" else f"{w}.probabilities"
        why = "whole reels respin" if spec.respin == "reels" else "the rows of a reel land differently"
        raise GameFileError(
            game.source,
            field,
            f"{why}, so the chain runs on masks of held cells: 2**{state.cells} = {state.states:.3g} masks "
            f"on the {grid} grid, above the bound 2**{MAX_MASKS.bit_length() - 1}; "
            "respin: cells with one probability per reel runs on per-reel counts",
        )


def count_grid(H: int, R: int) -> np.ndarray:
    """Total count of every per-reel count state, shape (H + 1,) * R (object ints)."""
    tot = np.zeros((H + 1,) * R, dtype=np.int64)
    for r in range(R):
        shape = [1] * R
        shape[r] = H + 1
        tot = tot + np.arange(H + 1).reshape(shape)
    return np.array(tot.tolist(), dtype=object)


def _binomial_moves(q, n: int, exact: bool) -> np.ndarray:
    """(n + 1, n + 1) upper-triangular matrix: from c to c' held of n cells
    when each empty cell lands with probability ``q``."""
    a = np.zeros((n + 1, n + 1), dtype=object)
    a[...] = Fraction(0)
    for c in range(n + 1):
        for c2 in range(c, n + 1):
            a[c, c2] = comb(n - c, c2 - c) * q ** (c2 - c) * (1 - q) ** (n - c2)
    return a if exact else a.astype(float)


def count_chain_values(
    p: list, H: int, respins: int, rule: str, f: np.ndarray, exact: bool = True
) -> np.ndarray:
    """``E[f(final per-reel counts) | start counts]`` when every empty cell of
    reel r lands a coin with probability ``p[r]``, independently.

    The state is the tuple of per-reel counts (``(H + 1)**R`` states); see the
    module docstring for the reset rule's level-by-level settlement.

    Parameters
    ----------
    p : list of Fraction
        Landing probability of an empty cell of each reel [probability].
    f : ndarray, shape (H + 1,) * R + extra
        Prize of each final state (Fractions or ints; ``extra`` trailing axes
        are carried along, e.g. one per final count).
    exact : bool
        Fractions (object arrays) when True, else float64.

    Returns
    -------
    ndarray, the shape of ``f``.
    """
    R = len(p)
    A = [_binomial_moves(q, H, exact) for q in p]
    extra = (1,) * (np.ndim(f) - R)

    def step(V):  # (T V)(s) = sum_s' T(s, s') V(s')
        for r in range(R):
            V = np.moveaxis(np.tensordot(A[r], V, axes=([1], [r])), 0, r)
        return V

    f = np.asarray(f, dtype=object) if exact else np.asarray(f, dtype=float)
    if rule == "countdown":
        V = f
        for _ in range(respins):
            V = step(V)
        return V
    stay = np.ones((1,) * R, dtype=object if exact else float)
    for r in range(R):
        shape = [1] * R
        shape[r] = H + 1
        stay = stay * np.array([A[r][c, c] for c in range(H + 1)], dtype=stay.dtype).reshape(shape)
    stay = stay.reshape(stay.shape + extra)
    stay_n = stay**respins
    geo = sum((stay**j for j in range(respins)), np.zeros_like(stay))
    level = count_grid(H, R)
    V = f.copy()
    for t in range(H * R, -1, -1):
        moved = step(V) - stay * V  # reads only states above level t once they are settled
        at = level == t
        V[at] = (stay_n * f + moved * geo)[at]
    return V


def total_count_values(
    p, cells: int, respins: int, rule: str, f: np.ndarray, exact: bool = True
) -> np.ndarray:
    """``E[f(final count) | start count]`` when every empty cell lands a coin
    with probability ``p`` (the ``total`` state).

    Parameters
    ----------
    p : Fraction
        Landing probability of an empty cell [probability].
    f : ndarray, shape (cells + 1,) + extra
        Prize of each final count (Fractions or ints).

    Returns
    -------
    ndarray, the shape of ``f`` (object Fractions when ``exact``, else float64).
    """
    T = _binomial_moves(Fraction(p), cells, exact)
    V = np.asarray(f, dtype=object) if exact else np.asarray(f, dtype=float)
    if rule == "countdown":
        for _ in range(respins):
            V = T.dot(V)
        return V
    V = V.copy()
    for n in range(cells - 1, -1, -1):  # the full screen stays as it is
        stay = T[n, n]
        geo = sum((stay**j for j in range(respins)), 0 * stay)
        V[n] = stay**respins * V[n] + geo * T[n, n + 1 :].dot(V[n + 1 :])
    return V


def total_count_laws(p, cells: int, respins: int, rule: str, exact: bool = True) -> np.ndarray:
    """Law of the final count of held coins from every start count (the
    ``total`` state, see :func:`total_count_values`).

    Returns
    -------
    ndarray, shape (cells + 1, cells + 1)
        ``[n, m]`` = P(final count = m | start count n) [probability].
    """
    eye = np.eye(cells + 1, dtype=np.int64)
    return total_count_values(p, cells, respins, rule, np.array(eye.tolist(), dtype=object), exact)


def reel_count_laws(p: list, H: int, respins: int, rule: str, exact: bool = True) -> np.ndarray:
    """Law of the final total count from every per-reel count state (the
    ``reels`` state): shape (H + 1,) * R + (H R + 1,), ``[key + (m,)]`` =
    P(final count = m | per-reel start counts ``key``) [probability]."""
    R = len(p)
    cells = H * R
    total = count_grid(H, R).astype(np.int64)
    f = (total[..., None] == np.arange(cells + 1)).astype(np.int64)
    if exact:
        f = np.array(f.tolist(), dtype=object)
    return count_chain_values(p, H, respins, rule, f, exact)


# ===========================================================================
# the award given the final count: convolutions of the value tables
# ===========================================================================
def prize_grid(spec: HoldAndSpinSpec) -> Fraction:
    """Largest prize step g [x total bet] with every prize a whole multiple of it."""
    prizes = [p.value for p in spec.values + spec.start_values] + [spec.full_screen]
    den = lcm(*(x.denominator for x in prizes))
    num = 0
    for x in prizes:
        num = gcd(num, int(x * den))
    return Fraction(num or 1, den)


def _value_law(table, g: Fraction) -> np.ndarray:
    total = sum(p.weight for p in table)
    top = max(int(p.value / g) for p in table)
    law = np.zeros(top + 1)
    for p in table:
        law[int(p.value / g)] += p.weight / total
    return law


def _add_iid(dist: np.ndarray, law: np.ndarray) -> np.ndarray:
    """Law of X + Y for X ~ ``dist`` and an independent Y ~ ``law`` (sparse direct sums)."""
    out = np.zeros(len(dist) + len(law) - 1)
    for j in np.flatnonzero(law):
        out[j : j + len(dist)] += law[j] * dist
    return out


class PrizeSums:
    """Laws of the prize sum on the grid ``g`` [x total bet] (float64 arrays,
    memoised): ``component(k0, n)`` = ``S^{*k0} * V^{*(n - k0)}`` and
    ``final(k0, n)`` the same shifted by the full-screen prize when ``n`` is
    every cell."""

    def __init__(self, spec: HoldAndSpinSpec, cells: int):
        self.g, self.cells = prize_grid(spec), cells
        self.v, self.s = _value_law(spec.values, self.g), _value_law(spec.start_values, self.g)
        self.full = int(spec.full_screen / self.g)
        self.cache: dict = {}

    def component(self, k0: int, n: int) -> np.ndarray:
        if (k0, n) not in self.cache:
            if n == k0:
                d = np.ones(1)
                for _ in range(k0):
                    d = _add_iid(d, self.s)
            else:
                d = _add_iid(self.component(k0, n - 1), self.v)
            self.cache[(k0, n)] = d
        return self.cache[(k0, n)]

    def final(self, k0: int, n: int) -> np.ndarray:
        d = self.component(k0, n)
        return np.concatenate([np.zeros(self.full), d]) if n == self.cells else d

    def mixture(self, k0: int, law) -> np.ndarray:
        """Award law given ``k0`` start coins and the final-count law ``law``."""
        hist = np.zeros(len(self.component(k0, self.cells)) + self.full)
        for n in range(k0, self.cells + 1):
            p = float(law[n])
            if p:
                d = self.final(k0, n)
                hist[: len(d)] += p * d
        return hist
