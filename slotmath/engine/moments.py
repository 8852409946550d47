"""Exact second moment and hit frequency of a line game, without its distribution.

The full distribution of the total win (:mod:`slotmath.engine.joint`) is the
expensive part of a line game's figures.  Two of its figures need much less:

* the **second moment** ``E[T^2]`` of the total win ``T = sum_l W_l + Sc``
  (line wins and the scatter win) expands into pairwise terms
  ``E[W_l W_m]``, ``E[W_l Sc]`` and ``E[Sc^2]``.  The reels are independent,
  so each pairwise term is a dynamic programme over the reels whose state
  is the pair of "what the two lines can still pay" (see below) and whose
  step, for reel ``r``, reads the joint weight of the two symbols that the
  reel's stops show on the two lines' rows.  This is the pairwise
  contraction of the pay tensor with the per-reel joint (row a, row b)
  symbol weights, done on a compressed pay function;
* the **hit frequency** ``P(T > 0)`` is one minus the weight of the stop
  combinations with no win at all, counted by a depth-first walk over the
  stops that drops a prefix as soon as one line is sure to win and, once no
  line can pay any more, adds the prefix with the weight of the suffix
  reels' scatter counts that pay nothing.

The compressed pay function (:class:`PayAutomaton`) is the minimal layered
automaton of the pay tensor: after ``k`` reels, two symbol prefixes are the
same state when every completion pays them the same.  It is built from the
pay tensor (cached on the pay table, never on the strips) and carries, per
state, the least and the largest win still possible.  Dead states (nothing
can pay) are dropped from the pairwise programme; sure-win states prune the
hit-frequency walk.

All sums are integers over the full cycle (int64 where the bound
``lines^2 x cycle`` keeps them below 2**62, which is checked; the final
products with the wins in Python integers), so the variance is an exact
Fraction equal to the joint distribution's.

Complexity: the automaton costs ``O(S**R log)`` once per pay table.  Per
distinct pair of line row patterns the programme costs
``O(sum_r nnz_r x N_r)`` where ``nnz_r`` is the number of live state pairs
before reel ``r`` (tens to a few hundred); the walk visits the stop
prefixes on which no line has won yet and some line can still win.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numba as nb
import numpy as np

from slotmath.engine.cache import ValueCache, memo
from slotmath.engine.lines import pay_table_key, pay_tensor
from slotmath.engine.reels import pack_reels
from slotmath.engine.scatters import scatter_counts, suffix_scatter, win_denominator
from slotmath.engine.stopwalk import enter_reel, next_stop
from slotmath.model import Game

INT64_SAFE = 2**62


@dataclass(frozen=True)
class PayAutomaton:
    """The line pay function as a minimal layered automaton.

    Attributes
    ----------
    trans : ndarray of int64, shape (R, n, S)
        ``trans[k, q, x]``: state after reel ``k + 1`` from state ``q``
        after reel ``k`` when the line shows symbol ``x`` on reel ``k + 1``
        (state 0 is the empty prefix; rows past ``n_states[k]`` unused).
    lo, hi : ndarray of int64, shape (R + 1, n)
        Least and largest line win still possible from each state [coins].
    value : ndarray of int64, shape (n,)
        Line win of each final state (after all reels) [coins].
    n_states : tuple of int
        States after 0..R reels.
    """

    trans: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    value: np.ndarray
    n_states: tuple


def unique_rows(rows: np.ndarray) -> tuple:
    """Distinct rows in lexicographic order and each row's index among them
    (``np.unique(rows, axis=0, return_inverse=True)``): rows of
    non-negative entries whose base-``max + 1`` number fits in int64 by that
    number (:func:`unique_codes`; its order is the rows' lexicographic one),
    others by a lexsort."""
    if rows.ndim == 2 and rows.size and rows.shape[1] and rows.min() >= 0:
        base, width = int(rows.max()) + 1, rows.shape[1]
        if base**width < 2**62:
            weights = np.array([base ** (width - 1 - i) for i in range(width)], dtype=np.int64)
            keys, inv = unique_codes(rows.astype(np.int64, copy=False) @ weights)
            one = np.empty(len(keys), dtype=np.int64)
            one[inv] = np.arange(len(inv))  # a row of each key (equal keys: equal rows)
            return rows[one], inv
    order = np.lexsort(rows.T[::-1])
    srt = rows[order]
    new = np.ones(len(rows), dtype=np.bool_)
    new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    ids = np.cumsum(new) - 1
    inv = np.empty(len(rows), dtype=np.int64)
    inv[order] = ids
    return srt[new], inv


def unique_codes(values: np.ndarray) -> tuple:
    """Distinct values in ascending order and each value's index among them,
    flattened: ``np.unique(values, return_inverse=True)``.  numpy 2.4's
    ``unique`` took 6.7 s on a pay tensor of 1.7e7 entries and 11 wins (and
    2.1 s on 2e6 distinct keys, where a sort takes 0.03 s): the values are
    sorted, and each found by a binary search among few distinct ones, else
    numbered in the order of a stable argsort."""
    flat = np.asarray(values).ravel()
    srt = np.sort(flat)
    new = np.ones(len(srt), dtype=np.bool_)
    np.not_equal(srt[1:], srt[:-1], out=new[1:])
    uniq = srt[new]
    if len(uniq) <= 4096:
        return uniq, np.searchsorted(uniq, flat)
    order = np.argsort(flat, kind="stable")
    new[:] = True
    np.not_equal(flat[order[1:]], flat[order[:-1]], out=new[1:])
    inv = np.empty(len(flat), dtype=np.int64)
    inv[order] = np.cumsum(new) - 1
    return uniq, inv


def build_automaton(wins: np.ndarray, n_symbols: int, n_reels: int) -> PayAutomaton:
    """Minimal layered automaton of a flattened pay tensor (see the module notes)."""
    S, R = n_symbols, n_reels
    values, cur = unique_codes(wins)
    layers = []
    for k in range(R - 1, -1, -1):
        rows = cur.reshape(S**k, S)
        uniq, inv = unique_rows(rows)
        layers.append(uniq)
        cur = inv.ravel()
    layers.reverse()  # layers[k]: (n_k, S) -> states after k + 1 reels
    n_states = tuple(len(t) for t in layers) + (len(values),)
    n = max(n_states)
    trans = np.zeros((R, n, S), dtype=np.int64)
    lo = np.zeros((R + 1, n), dtype=np.int64)
    hi = np.zeros((R + 1, n), dtype=np.int64)
    lo[R, : len(values)] = values
    hi[R, : len(values)] = values
    for k in range(R - 1, -1, -1):
        t = layers[k]
        trans[k, : len(t)] = t
        lo[k, : len(t)] = lo[k + 1][t].min(axis=1)
        hi[k, : len(t)] = hi[k + 1][t].max(axis=1)
    value = np.zeros(n, dtype=np.int64)
    value[: len(values)] = values
    return PayAutomaton(trans, lo, hi, value, n_states)


_AUTOMATA = ValueCache(maxsize=64)


def pay_automaton(game: Game, level: int) -> PayAutomaton:
    """:func:`build_automaton` of ``game``'s pay tensor at ``level``, cached
    on the pay table (:func:`slotmath.engine.lines.pay_table_key`)."""
    key = pay_table_key(game, level)
    auto = _AUTOMATA.get(key)
    if auto is None:
        tensor = pay_tensor(game, level)
        auto = _AUTOMATA.put(key, build_automaton(tensor.wins, tensor.n_symbols, tensor.n_reels))
    return auto


# ===========================================================================
# kernels
# ===========================================================================
@nb.njit(cache=True)
def _pair_counts(pairs, mult, ju, jv, jw, jn, trans, hi, n_final):
    """Sum over line pairs (row patterns ``pairs[p] = (rows_l, rows_m)``,
    each counted ``mult[p]`` times) of the weight of every pair of final
    states: ``out[q, t]`` = weighted number of (stops, pair) with line l
    ending in state q and line m in state t, both able to pay."""
    R = jn.shape[0]
    n = trans.shape[1]
    out = np.zeros((n_final, n_final), dtype=np.int64)
    M = np.zeros((n, n), dtype=np.int64)
    new = np.zeros((n, n), dtype=np.int64)
    qs = np.zeros(n * n, dtype=np.int64)  # live state pairs before reel r
    ts = np.zeros(n * n, dtype=np.int64)
    qs2 = np.zeros(n * n, dtype=np.int64)  # ... and after it
    ts2 = np.zeros(n * n, dtype=np.int64)
    for p in range(pairs.shape[0]):
        M[0, 0] = 1
        nq = 1
        qs[0] = 0
        ts[0] = 0
        for r in range(R):
            a = pairs[p, 0, r]
            b = pairs[p, 1, r]
            new_n = 0
            for i in range(nq):
                q = qs[i]
                t = ts[i]
                m = M[q, t]
                M[q, t] = 0
                for j in range(jn[r, a, b]):
                    w = jw[r, a, b, j]
                    q2 = trans[r, q, ju[r, a, b, j]]
                    if hi[r + 1, q2] == 0:
                        continue
                    t2 = trans[r, t, jv[r, a, b, j]]
                    if hi[r + 1, t2] == 0:
                        continue
                    if new[q2, t2] == 0:
                        qs2[new_n] = q2
                        ts2[new_n] = t2
                        new_n += 1
                    new[q2, t2] += m * w
            nq = new_n
            qs, qs2 = qs2, qs
            ts, ts2 = ts2, ts
            M, new = new, M
        for i in range(nq):
            q = qs[i]
            t = ts[i]
            out[q, t] += mult[p] * M[q, t]
            M[q, t] = 0
    return out


@nb.njit(cache=True)
def _line_scatter_counts(rows, mult, win, weights, n_stops, codes, trans, hi, n_final, size):
    """Sum over lines (row patterns ``rows[p]``, ``mult[p]`` lines each) of
    the weight of (final line state, scatter code) pairs, lines able to pay."""
    R = n_stops.shape[0]
    n = trans.shape[1]
    out = np.zeros((n_final, size), dtype=np.int64)
    for p in range(rows.shape[0]):
        Q = np.zeros((n, size), dtype=np.int64)
        Q[0, 0] = 1
        for r in range(R):
            new = np.zeros((n, size), dtype=np.int64)
            a = rows[p, r]
            for q in range(n):
                for c in range(size):
                    m = Q[q, c]
                    if m == 0:
                        continue
                    for s in range(n_stops[r]):
                        w = weights[r, s]
                        if w == 0:
                            continue
                        q2 = trans[r, q, win[r, s, a]]
                        if hi[r + 1, q2] == 0:
                            continue
                        new[q2, c + codes[r, s]] += m * w
            Q = new
        for q in range(n_final):
            for c in range(size):
                out[q, c] += mult[p] * Q[q, c]
    return out


BITS = 62  # stops per int64 word of a stop set


@nb.njit(cache=True)
def _stop_sets(win, weights, n_stops, lines, trans, lo, hi, n_states):
    """Per reel k, line l and line state q before reel k: the set of stops
    of reel k after which the line is sure to win (``sure``) or may still
    win (``live``), as bit sets over the stops (stops of weight 0 left out)."""
    R = n_stops.shape[0]
    L = lines.shape[0]
    n = trans.shape[1]
    words = (win.shape[1] + BITS - 1) // BITS
    sure = np.zeros((R, L, n, words), dtype=np.int64)
    live = np.zeros((R, L, n, words), dtype=np.int64)
    for k in range(R):
        for line in range(L):
            row = lines[line, k]
            for q in range(n_states[k]):
                for s in range(n_stops[k]):
                    if weights[k, s] == 0:
                        continue
                    q2 = trans[k, q, win[k, s, row]]
                    bit = np.int64(1) << (s % BITS)
                    if lo[k + 1, q2] > 0:
                        sure[k, line, q, s // BITS] |= bit
                    elif hi[k + 1, q2] > 0:
                        live[k, line, q, s // BITS] |= bit
    return sure, live


@nb.njit(cache=True)
def _no_win_chunk(first_lo, first_hi, win, n_stops, weights, lines, trans, sure, live, codes, zero_suffix):
    """Weight of the stop combinations paying nothing, reel-1 stops in
    [first_lo, first_hi): a depth-first walk over the stops that skips every
    stop after which some line is sure to win and, where no line can win
    any more, adds the suffix weight of the scatter counts that pay nothing."""
    R = n_stops.shape[0]
    L = lines.shape[0]
    words = sure.shape[3]
    state = np.zeros((R + 1, L), dtype=np.int64)
    wprod = np.ones(R + 1, dtype=np.int64)
    code = np.zeros(R + 1, dtype=np.int64)
    stop = np.zeros(R, dtype=np.int64)
    end = np.zeros(R, dtype=np.int64)
    todo = np.zeros((R, words), dtype=np.int64)
    deeper = np.zeros((R, words), dtype=np.int64)
    total = 0
    _stop_bits(0, L, words, state, sure, live, todo, deeper)
    level = enter_reel(stop, end, 0, first_lo, first_hi)
    while level >= 0:
        if not next_stop(stop, end, level):
            level -= 1
            continue
        s = stop[level]
        if weights[level, s] == 0 or ((todo[level, s // BITS] >> (s % BITS)) & 1) == 0:
            continue
        w = wprod[level] * weights[level, s]
        c = code[level] + codes[level, s]
        if (deeper[level, s // BITS] >> (s % BITS)) & 1:
            for line in range(L):
                state[level + 1, line] = trans[level, state[level, line], win[level, s, lines[line, level]]]
            wprod[level + 1] = w
            code[level + 1] = c
            _stop_bits(level + 1, L, words, state, sure, live, todo, deeper)
            level = enter_reel(stop, end, level + 1, 0, n_stops[level + 1])
        else:
            total += w * zero_suffix[level + 1, c]
    return total


@nb.njit(cache=True, inline="always")
def _stop_bits(level, L, words, state, sure, live, todo, deeper):
    """The stops of reel ``level`` to visit (no line sure to win: ``todo``)
    and to go deeper from (some line may still win: ``deeper``), for the
    line states reached before it."""
    for j in range(words):
        bad = np.int64(0)
        go = np.int64(0)
        for line in range(L):
            bad |= sure[level, line, state[level, line], j]
            go |= live[level, line, state[level, line], j]
        ok = ~bad
        todo[level, j] = ok
        deeper[level, j] = ok & go


# ===========================================================================
# figures
# ===========================================================================
@dataclass(frozen=True)
class LineMoments:
    """Exact integer sums over the cycle of a line game's total win.

    ``T`` is the total win of a spin in win units (1/``unit_den`` coin).

    Attributes
    ----------
    cycle : int
    unit_den : int
    total_bet : int [coins]
    sum_win : int
        Sum over the cycle of T [win units].
    sum_square : int
        Sum over the cycle of T**2 [win units squared].
    no_win : int
        Weight of the stop combinations where T = 0.
    scatter_paid : int
        Weight of the stop combinations with a scatter win.
    """

    cycle: int
    unit_den: int
    total_bet: int
    sum_win: int
    sum_square: int
    no_win: int
    scatter_paid: int

    @property
    def mean(self) -> Fraction:
        """RTP [x total bet]."""
        return Fraction(self.sum_win, self.cycle * self.unit_den * self.total_bet)

    @property
    def second_moment(self) -> Fraction:
        """E[X^2] [(x total bet)^2]."""
        return Fraction(self.sum_square, self.cycle * (self.unit_den * self.total_bet) ** 2)

    @property
    def variance(self) -> Fraction:
        """Var X [(x total bet)^2]."""
        return self.second_moment - self.mean**2

    @property
    def sd(self) -> float:
        """Standard deviation [x total bet] (as :attr:`WinDistribution.sd`)."""
        return float(self.variance) ** 0.5

    @property
    def hit_frequency(self) -> Fraction:
        """P(T > 0) [probability]."""
        return Fraction(self.cycle - self.no_win, self.cycle)

    @property
    def feature_frequency(self) -> Fraction:
        """P(a scatter pays) [probability]."""
        return Fraction(self.scatter_paid, self.cycle)


@nb.njit(cache=True)
def joint_row_weights(win, weights, n_stops, n_symbols):
    """Per reel and pair of rows (a, b), the distinct symbol pairs (u, v)
    its stops show in rows a and b and their total stop weight.

    Returns ``ju, jv, jw`` of shape (R, H, H, Nmax) and ``jn`` (R, H, H),
    the number of pairs listed (weights > 0 only).
    """
    R, nmax, H = win.shape
    S = n_symbols
    ju = np.zeros((R, H, H, nmax), dtype=np.int64)
    jv = np.zeros_like(ju)
    jw = np.zeros_like(ju)
    jn = np.zeros((R, H, H), dtype=np.int64)
    acc = np.zeros((S, S), dtype=np.int64)
    for r in range(R):
        for a in range(H):
            for b in range(H):
                k = 0
                for s in range(n_stops[r]):
                    u = win[r, s, a]
                    v = win[r, s, b]
                    if weights[r, s] == 0:
                        continue
                    if acc[u, v] == 0:
                        ju[r, a, b, k] = u
                        jv[r, a, b, k] = v
                        k += 1
                    acc[u, v] += weights[r, s]
                for j in range(k):
                    jw[r, a, b, j] = acc[ju[r, a, b, j], jv[r, a, b, j]]
                    acc[ju[r, a, b, j], jv[r, a, b, j]] = 0
                jn[r, a, b] = k
    return ju, jv, jw, jn


@memo(maxsize=64)
def _pair_patterns(paylines) -> tuple:
    """Distinct unordered pairs of line row patterns with their multiplicity
    in the double sum over (l, m)."""
    rows = [tuple(int(x) for x in p) for p in paylines]
    count: dict = {}
    for i, a in enumerate(rows):
        for j in range(i, len(rows)):
            b = rows[j]
            key = (a, b) if a <= b else (b, a)
            count[key] = count.get(key, 0) + (1 if i == j else 2)
    keys = sorted(count)
    pairs = np.array(keys, dtype=np.int64).reshape(len(keys), 2, -1)
    return pairs, np.array([count[k] for k in keys], dtype=np.int64)


@memo(maxsize=64)
def _line_patterns(paylines) -> tuple:
    rows = [tuple(int(x) for x in p) for p in paylines]
    keys = sorted(set(rows))
    return (
        np.array(keys, dtype=np.int64).reshape(len(keys), -1),
        np.array([rows.count(k) for k in keys], dtype=np.int64),
    )


def _quad(counts: np.ndarray, a: np.ndarray, b: np.ndarray) -> int:
    """sum_{q,t} counts[q,t] a[q] b[t] in Python integers."""
    q, t = np.nonzero(counts)
    return sum(
        int(c) * int(x) * int(y)
        for c, x, y in zip(counts[q, t].tolist(), a[q].tolist(), b[t].tolist(), strict=True)
    )


def line_moments(game: Game, level: int, reel_set: str = "base") -> LineMoments:
    """Exact sums of the total win and its square, and the no-win weight,
    of line game ``game`` at bet ``level`` over the cycle of ``reel_set``
    (see the module notes)."""
    bet = game.bet(level)
    auto = pay_automaton(game, level)
    cycle = game.cycle(reel_set)
    L = len(game.paylines)
    if L * L * cycle >= INT64_SAFE:
        raise OverflowError(f"lines^2 x cycle = {L * L * cycle} is too large for int64 sums")
    win, weights, n_stops = pack_reels(game, reel_set)
    unit_den = win_denominator(game, bet.total_bet)
    sc = scatter_counts(game, reel_set, bet.total_bet, unit_den)
    size = len(sc.pay_units)
    codes = np.zeros((game.reels, win.shape[1]), dtype=np.int64)
    for r, c in enumerate(sc.codes):
        codes[r, : len(c)] = c
    suffix, _ = suffix_scatter(sc.codes, weights, size)
    pay_units = sc.pay_units
    if (auto.value < 0).any() or (pay_units < 0).any():
        raise ValueError("negative wins: the no-win count needs wins >= 0")
    R, n_final = game.reels, auto.n_states[-1]
    value = auto.value[:n_final]
    # first moment: lines by the pair-free contraction of each line, scatters directly
    rows, mult = _line_patterns(tuple(map(tuple, game.paylines)))
    ls = _line_scatter_counts(rows, mult, win, weights, n_stops, codes, auto.trans, auto.hi, n_final, size)
    line_sum = int(sum(int(v) * int(c) for v, c in zip(value.tolist(), ls.sum(axis=1).tolist(), strict=True)))
    scatter_counts_all = suffix[0]
    sc_sum = sum(
        int(c) * int(p) for c, p in zip(scatter_counts_all.tolist(), pay_units.tolist(), strict=True)
    )
    sc_sq = sum(
        int(c) * int(p) ** 2 for c, p in zip(scatter_counts_all.tolist(), pay_units.tolist(), strict=True)
    )
    cross = _quad(ls, value, pay_units)
    pairs, pmult = _pair_patterns(tuple(map(tuple, game.paylines)))
    ju, jv, jw, jn = joint_row_weights(win, weights, n_stops, len(game.symbols))
    pc = _pair_counts(pairs, pmult, ju, jv, jw, jn, auto.trans, auto.hi, n_final)
    line_sq = _quad(pc, value, value)
    sum_win = line_sum * unit_den + sc_sum
    sum_square = line_sq * unit_den**2 + 2 * cross * unit_den + sc_sq
    # hit frequency: the weight of the stop combinations paying nothing
    zero = pay_units == 0
    zero_suffix = np.zeros((R + 1, size), dtype=np.int64)
    for k in range(R + 1):
        for c in range(size):
            nz = np.flatnonzero(suffix[k][: size - c])
            zero_suffix[k, c] = int(suffix[k][nz][zero[c + nz]].sum())
    lines = np.array(game.paylines, dtype=np.int64)
    sure, live = _stop_sets(
        win, weights, n_stops, lines, auto.trans, auto.lo, auto.hi, np.array(auto.n_states, dtype=np.int64)
    )
    no_win = int(
        _no_win_chunk(
            0, int(n_stops[0]), win, n_stops, weights, lines, auto.trans, sure, live, codes, zero_suffix
        )
    )
    scatter_paid = int(scatter_counts_all[pay_units > 0].sum())
    return LineMoments(cycle, unit_den, bet.total_bet, sum_win, sum_square, no_win, scatter_paid)
