"""The nudge feature: a reel steps down while the symbol on top repeats, an
up arrow sends it back through its stack, and the process as an absorbing
Markov chain.

Reel mechanics
--------------
A reel at stop ``s`` shows strip positions ``s, s+1, ...`` from the top row
down (:mod:`slotmath.model`).  One *nudge* moves the reel one symbol down:
the top symbol slides into the second row and the stop becomes ``s - 1``.
For a nudge symbol ``X`` a reel nudges while its top row shows ``X``, so the
number of nudges is the length of the run of ``X`` read upwards on the strip
from the top row (:func:`run_up`).  When it stops, an *up arrow* in the top
row with ``X`` below it moves the reel back to the bottom of that stack of
``X`` (bottom of the stack in the second row), which pays once, and the reel
nudges up through the stack again; the arrow is then a blank, so the reel
stops under it.  The arrow therefore adds as many pays as the stack is long
(:func:`run_down` from the second row).  :func:`nudge_reel` plays one reel.

Absorbing Markov chain
----------------------
Seen from the reel's landing, the nudge is a walk through the states
``(moves so far, arrow used)``: from ``(k, 0)`` the reel nudges again when
the next strip symbol above is ``X``, fires the arrow when it is an arrow
with ``X`` below, and stops otherwise; after the arrow, ``(m, 1)`` moves on
while the stack continues.  Given the reel's landing window (the landing
class), the transition probabilities are ratios of stop weights on the strip:
the weight of the landing stops whose strip shows the required symbol at
the next position, over the weight of the stops consistent with the state.
:func:`reel_chains` builds one chain per (reel, nudge symbol, landing class)
and solves them all at once with the fundamental matrix ``N = (I - Q)^-1``:
visits ``v = start N`` and absorption ``v_i R_ic``.  The absorbing state is
(moves, arrow used, cap), the cap being the symbol left on top of the stack.

Given the landing windows of all reels the reels nudge independently, so the
distribution of the total number of moves of a spin is the landing-weighted
mixture of convolutions of the per-reel chains (:func:`sum_distribution`),
and joint caps are products (:func:`joint_distribution`).

Arithmetic: float64.  Every chain is a DAG with at most ``T`` transient
states (``T`` < twice the longest run plus two), so ``N`` is exact up to a
relative error of a few ``T * 2**-53``; mixtures add non-negative terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numba as nb
import numpy as np

CAP_NONE = -1  #: the top symbol has no stack of the nudge symbol below it
CAP_BLANKED = -2  #: the reel used its arrow; the top shows the blanked arrow


# ---------------------------------------------------------------------------
# one reel
# ---------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def run_up(strip, n, pos, symbol):
    """Number of consecutive ``symbol`` at positions ``pos, pos-1, ...``
    (mod ``n``); ``n`` when the whole strip is ``symbol``."""
    k = 0
    while k < n and strip[(pos - k) % n] == symbol:
        k += 1
    return k


@nb.njit(cache=True, inline="always")
def run_down(strip, n, pos, symbol):
    """Number of consecutive ``symbol`` at positions ``pos, pos+1, ...`` (mod ``n``)."""
    k = 0
    while k < n and strip[(pos + k) % n] == symbol:
        k += 1
    return k


@nb.njit(cache=True, inline="always")
def nudge_reel(strip, n, stop, symbol, arrow):
    """Play one reel's nudges for nudge symbol ``symbol``.

    Parameters
    ----------
    strip : ndarray of int64
        Symbol index of every strip position (at least ``n`` entries).
    n : int
        Strip length.
    stop : int
        Landing stop (strip position in the top row).
    symbol : int
        The nudge symbol ``X``.
    arrow : int
        Symbol index of the up arrow, -1 for none.

    Returns
    -------
    nudges : int
        One-symbol nudges before the reel stops; ``n`` means it never stops.
    arrow_pays : int
        Pays added by the arrow (the stack length), 0 when it does not fire.
    top : int
        Strip position in the top row when the reel is done.  With the arrow
        fired that position holds the arrow, shown as a blank.
    """
    u = run_up(strip, n, stop, symbol)
    if u >= n:
        return n, 0, stop
    top = (stop - u) % n
    stack = 0
    if arrow >= 0 and strip[top] == arrow:
        stack = run_down(strip, n, top + 1, symbol)
    return u, stack, top


@nb.njit(cache=True, inline="always")
def reel_cap(strip, n, top, symbol, arrow_pays):
    """What the reel leaves on top of the nudge symbol's stack: the top
    symbol when the second row shows ``symbol``, :data:`CAP_NONE` when it
    does not, :data:`CAP_BLANKED` after the arrow fired."""
    if arrow_pays > 0:
        return CAP_BLANKED
    if strip[(top + 1) % n] == symbol:
        return strip[top]
    return CAP_NONE


# ---------------------------------------------------------------------------
# absorbing chains
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AbsorbingChain:
    """An absorbing Markov chain in canonical form.

    Attributes
    ----------
    Q : ndarray, shape (t, t)
        Transient -> transient transition probabilities.
    R : ndarray, shape (t, a)
        Transient -> absorbing transition probabilities.
    start : ndarray, shape (t,)
        Initial distribution over the transient states.
    transient, absorbing : tuple
        State labels.
    """

    Q: np.ndarray
    R: np.ndarray
    start: np.ndarray
    transient: tuple
    absorbing: tuple

    @cached_property
    def fundamental(self) -> np.ndarray:
        """``N = (I - Q)^-1``: expected visits to j starting from i."""
        return np.linalg.inv(np.eye(len(self.Q)) - self.Q)

    @cached_property
    def visits(self) -> np.ndarray:
        """Expected visits to each transient state from ``start``."""
        return self.start @ self.fundamental

    @cached_property
    def absorption(self) -> np.ndarray:
        """Probability of ending in each absorbing state [probability]."""
        return self.visits @ self.R

    @property
    def expected_steps(self) -> float:
        """Expected number of transient states visited before absorption."""
        return float(self.visits.sum())

    def to_frame(self):
        """Transition probabilities as a long table (from, to, probability)."""
        import pandas as pd

        rows = []
        for i, a in enumerate(self.transient):
            for j, b in enumerate(self.transient):
                if self.Q[i, j]:
                    rows.append((a, b, self.Q[i, j]))
            for j, b in enumerate(self.absorbing):
                if self.R[i, j]:
                    rows.append((a, b, self.R[i, j]))
        return pd.DataFrame(rows, columns=["from", "to", "probability"])


@dataclass(frozen=True)
class ReelChains:
    """Nudge chains of every (reel, nudge symbol, landing class), solved.

    State ``i < K`` is ``(i nudges, arrow unused)``; state ``K + m - 1`` is
    ``(m moves, arrow used)``.  Cap index ``c`` is symbol ``c`` on top of
    the stack, ``S`` = :data:`CAP_NONE`, ``S + 1`` = :data:`CAP_BLANKED`.

    Attributes
    ----------
    Q : ndarray, shape (R, X, D, T, T)
        Transient transition probabilities (zero rows for unused classes).
    rates : ndarray, shape (R, X, D, T, S + 2)
        Absorption probability from each transient state into each cap.
    visits : ndarray, shape (R, X, D, T)
        Expected visits from the start state, ``e_0 (I - Q)^-1``.
    moves : ndarray of int, shape (T,)
        Pays (moves) made on reaching each transient state.
    arrow_used : ndarray of bool, shape (T,)
    class_weight : ndarray of int64, shape (R, D)
        Stop weight of each landing class.
    symbols : ndarray of int, shape (X,)
        The nudge symbols (symbol indices).
    """

    Q: np.ndarray
    rates: np.ndarray
    visits: np.ndarray
    moves: np.ndarray
    arrow_used: np.ndarray
    class_weight: np.ndarray
    symbols: np.ndarray

    @cached_property
    def absorbed(self) -> np.ndarray:
        """P(end in transient state i with cap c | reel, symbol, class), shape (R, X, D, T, S+2)."""
        return self.visits[..., None] * self.rates

    @cached_property
    def moves_distribution(self) -> np.ndarray:
        """P(moves = m | reel, symbol, class), shape (R, X, D, M + 1)."""
        per_state = self.absorbed.sum(axis=-1)
        out = np.zeros(per_state.shape[:-1] + (int(self.moves.max()) + 1,))
        for i, m in enumerate(self.moves):
            out[..., m] += per_state[..., i]
        return out

    @cached_property
    def nudge_arrow_means(self) -> tuple:
        """E[nudges], E[arrow pays] per (reel, symbol, class).

        A path that ends in ``(m, 1)`` after entering the arrow phase from
        ``(u, 0)`` made ``u`` nudges; the expected number of nudges is the
        expected number of ``(k, 0)`` states left by a nudge, i.e. visits to
        ``(k, 0)`` for ``k >= 1``.
        """
        K = int((~self.arrow_used).sum())
        nudges = self.visits[..., 1:K].sum(axis=-1)
        total = (self.moves_distribution * np.arange(self.moves_distribution.shape[-1])).sum(axis=-1)
        return nudges, total - nudges

    @cached_property
    def cap_distribution(self) -> np.ndarray:
        """P(cap = c | reel, symbol, class), shape (R, X, D, S + 2)."""
        return self.absorbed.sum(axis=-2)

    def chain(self, reel: int, symbol_pos: int, klass: int, labels=None) -> AbsorbingChain:
        """One chain as an :class:`AbsorbingChain` with readable labels."""
        Q = self.Q[reel, symbol_pos, klass]
        rates = self.rates[reel, symbol_pos, klass]
        keep = np.flatnonzero(self.visits[reel, symbol_pos, klass] > 0)
        S = rates.shape[1] - 2
        names = list(labels) if labels is not None else [str(s) for s in range(S)]
        names += ["(no stack)", "(blanked arrow)"]
        transient = tuple((int(self.moves[i]), bool(self.arrow_used[i])) for i in keep)
        absorbing, cols = [], []
        for i in keep:
            for c in np.flatnonzero(rates[i] > 0):
                absorbing.append((int(self.moves[i]), bool(self.arrow_used[i]), names[c]))
                cols.append((i, c))
        R = np.zeros((len(keep), len(absorbing)))
        pos = {s: k for k, s in enumerate(keep)}
        for j, (i, c) in enumerate(cols):
            R[pos[i], j] = rates[i, c]
        start = np.zeros(len(keep))
        start[0] = 1.0
        return AbsorbingChain(Q[np.ix_(keep, keep)], R, start, transient, tuple(absorbing))


@nb.njit(cache=True)
def _chain_flows(strips, lengths, weights, klass, symbols, arrow, K, S, flow, absorb, visit):
    """Edge flows of every chain: for each landing stop (weight w) its path
    (0,0) -> ... -> (u,0) [-> (u+1,1) -> ... -> (u+L,1)] adds w to each edge."""
    R = strips.shape[0]
    for r in range(R):
        n = lengths[r]
        for xi in range(symbols.shape[0]):
            x = symbols[xi]
            for s in range(n):
                w = weights[r, s]
                if w == 0:
                    continue
                d = klass[r, s]
                u, stack, top = nudge_reel(strips[r], n, s, x, arrow)
                for k in range(u + 1):
                    visit[r, xi, d, k] += w
                for k in range(u):
                    flow[r, xi, d, k, k + 1] += w
                if stack > 0:
                    prev = u
                    for m in range(u + 1, u + stack + 1):
                        i = K + m - 1
                        visit[r, xi, d, i] += w
                        flow[r, xi, d, prev, i] += w
                        prev = i
                    absorb[r, xi, d, prev, S + 1] += w
                else:
                    c = reel_cap(strips[r], n, top, x, stack)
                    absorb[r, xi, d, u, c if c >= 0 else S] += w


def reel_chains(
    strips: np.ndarray,
    lengths: np.ndarray,
    weights: np.ndarray,
    klass: np.ndarray,
    n_classes: int,
    symbols: np.ndarray,
    arrow: int,
    n_symbols: int,
) -> ReelChains:
    """Build and solve the nudge chain of every (reel, symbol, landing class).

    Parameters
    ----------
    strips, weights : ndarray, shape (R, Nmax)
        Symbol index and stop weight of every strip position (padded).
    lengths : ndarray, shape (R,)
    klass : ndarray, shape (R, Nmax)
        Landing class of every stop (e.g. the index of its window).
    n_classes : int
        Number of classes per reel (the largest over reels).
    symbols : ndarray of int
        Nudge symbols to build chains for.
    arrow : int
        Up-arrow symbol index, -1 for none.
    n_symbols : int
        Number of symbols of the game (cap indices).
    """
    R = strips.shape[0]
    longest = 0
    for r in range(R):
        n = int(lengths[r])
        for x in symbols:
            for s in range(n):
                u, stack, _ = nudge_reel(strips[r], n, s, x, arrow)
                if u >= n:
                    raise ValueError(f"reel {r + 1} is all one symbol: its nudge never ends")
                longest = max(longest, u + stack)
    K = longest + 1
    T = K + longest
    X = len(symbols)
    shape = (R, X, n_classes)
    flow = np.zeros(shape + (T, T))
    absorb = np.zeros(shape + (T, n_symbols + 2))
    visit = np.zeros(shape + (T,))
    _chain_flows(
        strips,
        lengths,
        weights,
        klass,
        np.asarray(symbols, dtype=np.int64),
        arrow,
        K,
        n_symbols,
        flow,
        absorb,
        visit,
    )
    denom = np.where(visit > 0, visit, 1.0)
    Q = flow / denom[..., None]
    rates = absorb / denom[..., None]
    # visits from state 0: solve (I - Q)^T v = e_0 for every chain at once
    eye = np.broadcast_to(np.eye(T), Q.shape)
    e0 = np.zeros(shape + (T, 1))
    e0[..., 0, 0] = 1.0
    visits = np.linalg.solve(np.swapaxes(eye - Q, -1, -2), e0)[..., 0]
    used = visit[..., 0] > 0
    visits = np.where(used[..., None], visits, 0.0)
    moves = np.concatenate([np.arange(K), np.arange(1, T - K + 1)]).astype(np.int64)
    arrow_used = np.arange(T) >= K
    class_weight = np.zeros((R, n_classes), dtype=np.int64)
    for r in range(R):
        np.add.at(class_weight[r], klass[r, : lengths[r]], weights[r, : lengths[r]])
    return ReelChains(Q, rates, visits, moves, arrow_used, class_weight, np.asarray(symbols, dtype=np.int64))


# ---------------------------------------------------------------------------
# combining reels
# ---------------------------------------------------------------------------
def sum_distribution(tensor: np.ndarray, factors: list) -> np.ndarray:
    """Distribution of ``m_1 + ... + m_R`` under a landing mixture.

    ``tensor[d_1, ..., d_R]`` is the (unnormalised) weight of the landing
    classes and ``factors[r][d, m]`` the probability that reel ``r`` makes
    ``m`` moves from class ``d``; given the classes the reels are
    independent.  Returns ``out[n] = sum_d tensor[d] P(sum m = n | d)``.
    Reels are contracted one at a time, convolving in the moves axis.
    """
    acc = tensor[None, ...]  # (moves so far, d_1, ..., d_R)
    for f in factors:
        # acc[n, d_r, rest...] x f[d_r, m] -> new[n + m, rest...]
        part = np.tensordot(acc, f, axes=([1], [0]))  # (n, rest..., m)
        part = np.moveaxis(part, -1, 1)  # (n, m, rest...)
        n, m = part.shape[:2]
        new = np.zeros((n + m - 1,) + part.shape[2:])
        for j in range(m):
            new[j : j + n] += part[:, j]
        acc = new
    return acc


def joint_distribution(tensor: np.ndarray, factors: list) -> np.ndarray:
    """``out[c_1, ..., c_R] = sum_d tensor[d] prod_r factors[r][d_r, c_r]``."""
    out = tensor
    for f in factors:
        out = np.tensordot(out, f, axes=([0], [0]))  # contract the leading class axis
    return out
