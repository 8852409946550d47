"""Value-per-symbol hold-and-spin: every held coin pays its own drawn value.

The feature
-----------
``trigger`` or more coin symbols anywhere in the base window start it.  The
coins are held; the other cells respin ``respins`` times; with the ``reset``
rule every respin that lands a new coin sets the counter back to
``respins`` (``countdown``: no reset).  Each coin carries a prize drawn
independently from a weighted table ([x total bet] or a jackpot name of
``options.jackpots``); the coins of the trigger window may draw from their own
table (``start_values``).  The feature ends when the respins run out or the
screen is full; it pays the sum of the held prizes, plus ``full_screen`` (e.g.
the GRAND) when every cell holds a coin.

Respin model (``respin``)
-------------------------
``cells``
    every empty cell spins alone: cell (row, reel) shows a coin with
    probability (coin stop weight / total stop weight) of reel ``reel`` of the
    reel set ``reels``, or the probability given in ``probabilities``
    (rows x reels), independently of every other cell.
``reels``
    the whole reel spins on its strip of ``reels`` under the held coins
    (cells of one reel are correlated).

Exact method
------------
The occupancy of the screen is the absorbing Markov chain of
:class:`slotmath.features.lockit.LockIt` on masks (bit ``reel * H + row``).
Prizes are independent of positions and of one another, so the award given
the final number ``n`` of coins, ``k0`` of which were on the trigger window, is
``S^{*k0} * V^{*(n - k0)}`` (``*``: convolution; ``S``, ``V`` the start and
respin value laws) shifted by the full-screen prize when ``n`` is every cell.
The chain is run backwards once per ``n`` (``E[1{final count = n}]`` from
every start mask, :func:`mask_count_laws`) and read at the start of the
triggering *key*.  The round convolves the base win given the key with the
award given the key, exact when they are independent given the key:

* one landing probability per reel (``respin: cells``): the law depends on
  the mask only through the per-reel coin counts, so the key is those counts
  and its law the chain averaged over the start masks it leaves possible,
  weighted by the base reel strips (given its count ``c``, reel ``r``'s
  window pattern has probability count(pattern) / count(patterns with ``c``
  coins), independently across reels);
* landing that depends on the rows (``respin: reels``, per-cell
  probabilities differing down a reel, :func:`rows_matter`): the award
  depends on which rows hold the coins and so does the line win, so they are
  correlated given the counts alone; the key is the per-reel row pattern
  (:func:`hold_and_spin_trigger`), which fixes the start mask, and the award
  a mixture over (``k0``, ``n``) weighted by ``P(n | start mask)``.

``E[award | key] = k0 E[S] + (E[n | key] - k0) E[V] + P(full | key) G``.

The chain runs on the coarsest exact state of
:mod:`slotmath.features.holdspin_chain`: the total count of held coins when
every cell lands alike (the round's key is then the number of coins anywhere,
:func:`_total_feature`), per-reel counts when reels differ, masks when the
rows matter; :func:`check_cost` refuses a chain that does not fit.

Arithmetic: integer strip counts make the chain rational.  When every cell
of a reel lands alike (``respin: cells`` from strips, or per-cell
probabilities equal down each reel) the law depends on the start only through
the key, and the means run exact in Fractions on the chain of per-reel counts
(:func:`count_chain_values`, ``(H + 1)**R`` states) for any grid.  The mask
chain runs exact on grids of at most :data:`EXACT_CELLS` cells, in float64
beyond: every probability is a sum of products of non-negative numbers, with
a relative error below ``m 2**-53``, ``m ~ steps R (2**H + 3)`` (about 1e-12
for 3 reset respins on 3 x 5, where the chain absorbs within 48 steps); the
award laws (float64 probabilities) and a float feature RTP inherit that
relative bound.
"""

from __future__ import annotations

from fractions import Fraction
from math import prod

import numpy as np

from slotmath.engine.cache import game_cache
from slotmath.engine.distribution import MaxWin, WinDistribution
from slotmath.errors import ensure
from slotmath.features.declaration import Reader, is_number
from slotmath.features.holdspin_chain import (
    EXACT_LAW_WORK,
    EXACT_WORK,
    PrizeSums,
    cell_probabilities,
    chain_state,
    check_cost,
    count_chain_values,
    count_grid,
    prize_grid,
    reel_count_laws,
    reel_probabilities,
    total_count_laws,
    total_count_values,
)
from slotmath.features.holdspin_spec import (  # noqa: F401  (re-exported)
    RESPIN_MODELS,
    SPEC_KEYS,
    HoldAndSpinSpec,
    Prize,
    read_hold_and_spin,
)
from slotmath.io.gamefile import GameFileError
from slotmath.model import Game

__all__ = [
    "EXACT_CELLS",
    "Prize",
    "HoldAndSpinSpec",
    "load_hold_and_spin",
    "check_chain_cost",
    "hold_and_spin_landing",
    "hold_and_spin_chain",
    "trigger_keys",
    "trigger_possible",
    "coin_patterns",
    "pattern_counts",
    "final_count_laws",
    "count_laws",
    "chain_state",
    "check_cost",
    "total_means",
    "mean_of_law",
    "count_means",
    "reel_state_means",
    "odds_of_starts",
    "award_top",
    "mask_count_laws",
    "mask_means",
    "rows_matter",
    "hold_and_spin_trigger",
    "key_mask",
    "cell_probabilities",
    "reel_probabilities",
    "count_chain_values",
    "hold_and_spin_means",
    "hold_and_spin_awards",
    "FEATURE_EVENTS",
    "jackpot_event",
    "jackpot_names",
    "COINS_TABLE",
    "coins_table",
    "check_jackpots",
    "depends_on_count_only",
    "feature_odds",
    "hold_and_spin_feature",
]

#: grids with at most this many cells run the chain in exact Fractions
EXACT_CELLS = 6


# ===========================================================================
# the base window and the chain
# ===========================================================================
def coin_patterns(game: Game, reel_set: str, symbol: str) -> list:
    """Per reel, the coin pattern (bit k: row k shows ``symbol``) of the window
    at every stop: a list of R int64 arrays."""
    from slotmath.engine.reels import windows

    bits = 1 << np.arange(game.rows)
    idx = game.symbol_index[symbol]
    return [((windows(game, s) == idx) * bits).sum(axis=1) for s in game.strips(reel_set)]


def pattern_counts(game: Game, reel_set: str, symbol: str) -> np.ndarray:
    """Per reel, the stop weight of every coin pattern, shape (R, 2**H) int64."""
    return np.array(
        [
            np.bincount(pat, weights=s.stop_weights(), minlength=1 << game.rows).astype(np.int64)
            for pat, s in zip(coin_patterns(game, reel_set, symbol), game.strips(reel_set), strict=True)
        ]
    )


def _base_patterns(game: Game, spec: HoldAndSpinSpec) -> np.ndarray:
    return pattern_counts(game, spec.base_reels, spec.symbol)


def trigger_possible(game, spec) -> bool:
    top = 0
    for counts in _base_patterns(game, spec):
        top += max(bin(p).count("1") for p in range(1 << game.rows) if counts[p])
    return top >= spec.trigger


def load_hold_and_spin(game: Game) -> HoldAndSpinSpec | None:
    """The declared hold-and-spin (None when absent), parsed field by field
    (:func:`~slotmath.features.holdspin_spec.read_hold_and_spin`), then
    refused in one line naming the field when no window of the base reels
    shows the trigger count or the chain is beyond the exact method's bounds
    (:func:`check_chain_cost`).  Every consumer loads the feature here.

    Raises :class:`~slotmath.io.gamefile.GameFileError` naming the game file
    and the field.
    """
    spec = read_hold_and_spin(game)
    if spec is not None:
        _check_once(game, spec)
    return spec


@game_cache(maxsize=16)
def _check_once(game: Game, spec: HoldAndSpinSpec) -> None:
    w = "options.hold_and_spin"
    rd = Reader(game)
    if not trigger_possible(game, spec):
        rd.fail(f"{w}.trigger", f"no window of reel set 'base' shows {spec.trigger} or more {spec.symbol}")
    check_chain_cost(rd, game, spec, w)


def check_chain_cost(rd: Reader, game: Game, spec: HoldAndSpinSpec, w: str) -> None:
    """Refuse a respin count beyond the exact method's bounds
    (:mod:`slotmath.features.cost`) on the chain's own state
    (:func:`slotmath.features.holdspin_chain.chain_state`: the total count,
    per-reel counts or masks), after the state's size itself
    (:func:`slotmath.features.holdspin_chain.check_cost`)."""
    from slotmath.features.cost import chain_problem

    check_cost(game, spec)
    state = chain_state(game, spec)
    # Fractions on the total count, and on masks of few cells; per-reel
    # counts turn to float64 where Fractions would be slow
    exact = state.kind == "total" or (state.kind == "masks" and state.cells <= EXACT_CELLS)
    problem = chain_problem("hold-and-spin", state.states, spec.respins, spec.rule, state.cells, exact)
    if problem:
        rd.fail(f"{w}.respins", problem)


def trigger_keys(game: Game, spec: HoldAndSpinSpec) -> dict:
    """Exact probability of every triggering key [probability].

    A key is the tuple of per-reel coin counts on the base window; reels are
    independent, so P(key) is the product of per-reel window counts over the
    cycle.  Only keys with ``trigger`` or more coins are listed.
    """
    from itertools import product

    per_reel = _count_weights(game, spec)
    total = prod(sum(c) for c in per_reel)
    out = {}
    for key in product(*[range(len(c)) for c in per_reel]):
        if sum(key) >= spec.trigger:
            n = prod(c[k] for c, k in zip(per_reel, key, strict=True))
            if n:
                out[key] = Fraction(n, total)
    return out


def _count_weights(game, spec) -> list:
    pc = [bin(p).count("1") for p in range(1 << game.rows)]
    out = []
    for counts in _base_patterns(game, spec):
        c = [0] * (game.rows + 1)
        for p, n in enumerate(counts):
            c[pc[p]] += int(n)
        out.append(c)
    return out


def respin_sets(game: Game, spec: HoldAndSpinSpec, *args) -> tuple:
    """The reel sets the respin chain reads: the respins' own (none when the
    landing odds are declared).  The chain's results are cached on these and
    the rules only, so a change of the base strips reuses them."""
    return (spec.reels,) if spec.reels else ()


def hold_and_spin_landing(game: Game, spec: HoldAndSpinSpec):
    """The :class:`~slotmath.features.lockit.Landing` of one respin (integer
    counts or Fractions: always rational)."""
    from slotmath.features.lockit import Landing

    if spec.respin == "reels":
        ensure(
            spec.reels is not None, "holdspin.py: expected spec.reels is not None"
        )  # the loader requires it
        return Landing.from_counts(pattern_counts(game, spec.reels, spec.symbol))
    return Landing.from_cells([list(row) for row in cell_probabilities(game, spec)])


def hold_and_spin_chain(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None):
    """The :class:`~slotmath.features.lockit.LockIt` chain of the respins
    (``exact`` None: exact when the grid has at most :data:`EXACT_CELLS` cells)."""
    from slotmath.features.lockit import LockIt

    if exact is None:
        exact = game.rows * game.reels <= EXACT_CELLS
    return LockIt(hold_and_spin_landing(game, spec), spec.respins, spec.rule, exact=exact)


def final_count_laws(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> dict:
    """Law of the final number of coins for every triggering key.

    Returns
    -------
    dict
        key -> array of shape (H R + 1,): P(final count = n | key) [probability]
        (Fractions in exact mode).
    """
    return _final_count_laws(game, spec, exact)


def mask_count_laws(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> np.ndarray:
    """Law of the final number of coins from every start mask: shape
    (H R + 1, 2**(H R)), ``[n, mask]`` = P(final count = n | start mask)
    [probability] (object Fractions in exact mode, else float64); one backward
    run of the chain per ``n``."""
    return _mask_count_laws(game, spec, exact)


@game_cache(respin_sets, maxsize=8)
def _mask_count_laws(game, spec, exact):
    from slotmath.features.landing import popcount

    chain = hold_and_spin_chain(game, spec, exact)
    cells = game.rows * game.reels
    pc = popcount(cells)
    values = []
    for n in range(cells + 1):
        f = (pc == n).astype(np.int64)
        f = np.array([int(x) for x in f], dtype=object) if chain.exact else f.astype(float)
        values.append(chain.values(f)[0])
    return np.stack(values)


def count_laws(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> np.ndarray | None:
    """Law of the final number of coins from every start on the count states
    of :mod:`slotmath.features.holdspin_chain`, None when the landing needs
    masks: ``total`` state, shape (H R + 1, H R + 1), ``[n, m]`` from n held
    coins; ``reels`` state, shape (H + 1,) * R + (H R + 1,), ``[key + (m,)]``
    from the per-reel counts ``key``.  Exact Fractions on the total count
    (unless ``exact`` is False); on per-reel counts when ``exact`` or when
    ``exact`` is None and the work is at most :data:`EXACT_WORK`, else float64."""
    return _count_laws(game, spec, exact)


@game_cache(respin_sets, maxsize=8)
def _count_laws(game, spec, exact):
    state = chain_state(game, spec)
    p = reel_probabilities(game, spec)
    if state.kind == "total":
        ensure(p is not None, "holdspin.py: expected p is not None")
        run_exact = bool(exact) or (exact is None and state.work <= EXACT_LAW_WORK)
        return total_count_laws(p[0], state.cells, spec.respins, spec.rule, run_exact)
    if state.kind == "reels":
        ensure(p is not None, "holdspin.py: expected p is not None")
        run_exact = bool(exact) or (exact is None and state.work <= EXACT_WORK)
        return reel_count_laws(p, game.rows, spec.respins, spec.rule, run_exact)
    return None


@game_cache(maxsize=8)
def _final_count_laws(game, spec, exact):
    L = count_laws(game, spec, exact)
    if L is None:
        return mask_final_count_laws(game, spec, exact)
    total = chain_state(game, spec).kind == "total"
    return {key: L[sum(key)] if total else L[key] for key in trigger_keys(game, spec)}


def mask_final_count_laws(game, spec, exact):
    from slotmath.features.landing import popcount, reel_average

    H, R, cells = game.rows, game.reels, game.rows * game.reels
    P = 1 << H
    V = mask_count_laws(game, spec, exact)  # (n, mask)
    exact_chain = V.dtype == object
    # average over the start patterns each reel's count leaves possible
    pat_pc = popcount(H)
    mats = []
    for counts in _base_patterns(game, spec):
        Q = np.zeros((H + 1, P), dtype=object)
        for p in range(P):
            Q[pat_pc[p], p] = int(counts[p])
        tot = Q.sum(axis=1)
        for c in range(H + 1):
            if tot[c]:
                Q[c] = [Fraction(int(x), int(tot[c])) for x in Q[c]]
        mats.append(Q if exact_chain else Q.astype(float))
    T = reel_average(V.reshape((cells + 1,) + (P,) * R), mats)  # axis 1 + (R - 1 - r) is reel r
    out = {}
    for key in trigger_keys(game, spec):
        idx = (slice(None),) + tuple(key[r] for r in range(R - 1, -1, -1))
        out[key] = T[idx]
    return out


# ===========================================================================
# awards
# ===========================================================================
def hold_and_spin_means(game: Game, level: int, spec: HoldAndSpinSpec, exact: bool | None = None) -> dict:
    """Mean award of the feature for every triggering key [x total bet].

    ``k0 E[start value] + (E[n | key] - k0) E[value] + P(full | key) x full
    screen``; the mean does not depend on the bet level (prizes are
    multiples of the total bet).  Fractions unless ``exact`` is False or the
    chain can only run in float64: when every cell of a reel lands alike
    (``respin: cells``) the exact chain on per-reel counts
    (:func:`count_chain_values`) serves any grid; otherwise the mask chain runs
    exact up to :data:`EXACT_CELLS` cells.
    """
    return _means(game, spec, exact)


def reel_state_means(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> np.ndarray | None:
    """On the ``reels`` state: mean award [x total bet] from every per-reel
    count state (its coins held at the start, prizes from ``start_values``),
    shape (H + 1,) * R, exact Fractions on the chain of per-reel counts
    (:func:`count_chain_values`) when ``exact`` or, with ``exact`` None, when
    the chain is small; else (or on another state) None."""
    return _reel_state_means(game, spec, exact)


@game_cache(respin_sets, maxsize=8)
def _reel_state_means(game, spec, exact):
    cells = game.rows * game.reels
    p = reel_probabilities(game, spec)
    state = chain_state(game, spec)
    small = state.work // (cells + 1) <= EXACT_WORK  # one value per state, not a law
    if state.kind != "reels" or not (exact or (exact is None and small)):
        return None
    ensure(p is not None, "holdspin.py: expected p is not None")
    ev, _ = HoldAndSpinSpec.table_moments(spec.values)
    es, _ = HoldAndSpinSpec.table_moments(spec.start_values)
    f = count_grid(game.rows, game.reels) * ev
    f[(game.rows,) * game.reels] += spec.full_screen
    V = count_chain_values(p, game.rows, spec.respins, spec.rule, f)
    return V - count_grid(game.rows, game.reels) * (ev - es)


@game_cache(maxsize=8)
def _means(game, spec, exact):
    cells = game.rows * game.reels
    state = chain_state(game, spec)
    V = reel_state_means(game, spec, exact)
    if V is not None:
        return {key: V[key] for key in trigger_keys(game, spec)}
    if state.kind == "total":
        by_count = total_means(game, spec, exact)
        return {key: by_count[sum(key)] for key in trigger_keys(game, spec)}
    return {
        key: mean_of_law(spec, sum(key), law, cells)
        for key, law in final_count_laws(game, spec, exact).items()
    }


def mean_of_law(spec: HoldAndSpinSpec, k0: int, law, cells: int):
    """``k0 E[S] + (E[n] - k0) E[V] + P(full) G`` for the final-count law ``law``."""
    ev, _ = HoldAndSpinSpec.table_moments(spec.values)
    es, _ = HoldAndSpinSpec.table_moments(spec.start_values)
    en = sum(n * law[n] for n in range(cells + 1))
    if isinstance(en, Fraction) or isinstance(law[0], Fraction):
        return k0 * es + (en - k0) * ev + law[cells] * spec.full_screen
    full = float(law[cells]) * float(spec.full_screen)
    return float(k0 * es) + (float(en) - k0) * float(ev) + full


def total_means(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> dict:
    """On the ``total`` state (every cell lands alike): mean award [x total
    bet] by the number of coins that trigger, ``trigger <= n <= H R``."""
    by_count = count_means(game, spec, exact)
    return {n: by_count[n] for n in range(spec.trigger, game.rows * game.reels + 1)}


def count_means(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> dict:
    """On the ``total`` state: mean award [x total bet] from ``n`` coins held
    at the start (prizes from ``start_values``), for every ``0 <= n <= H R``
    (exact Fractions unless ``exact`` is False)."""
    return _count_means(game, spec, exact)


@game_cache(respin_sets, maxsize=8)
def _count_means(game, spec, exact):
    cells = game.rows * game.reels
    ev, _ = HoldAndSpinSpec.table_moments(spec.values)
    es, _ = HoldAndSpinSpec.table_moments(spec.start_values)
    f = np.array([m * ev for m in range(cells + 1)], dtype=object)
    f[cells] += spec.full_screen
    p = reel_probabilities(game, spec)
    ensure(p is not None, "holdspin.py: expected p is not None")
    V = total_count_values(p[0], cells, spec.respins, spec.rule, f, exact is not False)
    return {n: V[n] - n * (ev - es) for n in range(cells + 1)}


def award_grid_laws(game: Game, spec: HoldAndSpinSpec, exact) -> tuple:
    """(grid g [x total bet], {key: law of the award on the grid, float64 array})."""
    sums = PrizeSums(spec, game.rows * game.reels)
    laws = final_count_laws(game, spec, exact)
    return sums.g, {key: sums.mixture(sum(key), law) for key, law in laws.items()}


def hold_and_spin_awards(game: Game, level: int, spec: HoldAndSpinSpec, exact: bool | None = None) -> dict:
    """Law of the feature's award for every triggering key.

    Returns
    -------
    dict
        key (per-reel coin counts of the base window) -> :class:`WinDistribution`
        of the award at bet ``level`` (float64 probabilities summing to 1; wins
        in 1/``unit_den`` coins, ``unit_den`` the denominator of the prize step
        times the total bet).
    """
    bet = game.bet(level)
    g, laws = award_grid_laws(game, spec, exact)
    step = g * bet.total_bet  # coins per grid step
    return {key: WinDistribution.from_grid(hist, step, bet.total_bet) for key, hist in laws.items()}


# ===========================================================================
# the row key: per reel, the rows of the coins (when the landing depends on them)
# ===========================================================================
def rows_matter(game: Game, spec: HoldAndSpinSpec) -> bool:
    """True when the respins' landing depends on the rows (``respin: reels``,
    or per-cell probabilities that differ down a reel): the award then depends
    on which rows hold the coins, and so does the base line win, so the round
    keys the trigger by the row pattern (:func:`hold_and_spin_trigger`)."""
    return reel_probabilities(game, spec) is None


def hold_and_spin_trigger(game: Game, spec: HoldAndSpinSpec):
    """The round's :class:`~slotmath.features.round.Trigger`: the coins per
    reel, by count, or by row pattern (bit k: row k) when :func:`rows_matter`."""
    from slotmath.features.round import Trigger

    return Trigger(spec.symbol, per_reel=True, rows=rows_matter(game, spec))


def key_mask(game: Game, key: tuple) -> int:
    """Start mask (bit ``reel * H + row``) of a row-pattern key."""
    from slotmath.features.landing import start_state

    return start_state(key, game.rows)[1]


def mask_means(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> np.ndarray:
    """Mean award [x total bet] from every start mask, shape (2**(H R),):
    ``k0 E[S] + (E[n | mask] - k0) E[V] + P(full | mask) G``, ``k0`` the
    mask's coins (object Fractions when the chain is exact, else float64)."""
    return _mask_means(game, spec, exact)


@game_cache(respin_sets, maxsize=8)
def _mask_means(game, spec, exact):
    from slotmath.features.landing import popcount

    V = mask_count_laws(game, spec, exact)
    cells = game.rows * game.reels
    ev, _ = HoldAndSpinSpec.table_moments(spec.values)
    es, _ = HoldAndSpinSpec.table_moments(spec.start_values)
    full = spec.full_screen
    k0 = popcount(cells)
    if V.dtype == object:
        k0 = np.array([int(x) for x in k0], dtype=object)
        n = np.array(range(cells + 1), dtype=object)
    else:
        k0, n = k0.astype(float), np.arange(cells + 1, dtype=float)
        ev, es, full = float(ev), float(es), float(full)
    en = (n[:, None] * V).sum(axis=0)
    return k0 * es + (en - k0) * ev + V[cells] * full


def _count_parts(game: Game, level: int, spec: HoldAndSpinSpec) -> tuple:
    """``(parts, column)``: the award laws of (start coins k0, final count n)
    for ``trigger <= k0 <= n <= H R`` and ``column[k0, n]`` the index of each
    (-1 elsewhere)."""
    cells = game.rows * game.reels
    sums = PrizeSums(spec, cells)
    bet = game.bet(level)
    column = np.full((cells + 1, cells + 1), -1, dtype=np.int64)
    parts = []
    for k0 in range(spec.trigger, cells + 1):
        for n in range(k0, cells + 1):
            column[k0, n] = len(parts)
            parts.append(
                WinDistribution.from_grid(
                    sums.final(k0, n), sums.g * bet.total_bet, bet.total_bet, normalise=True
                )
            )
    return parts, column


def _row_parts(game: Game, level: int, spec: HoldAndSpinSpec, exact) -> tuple:
    """The award of a row-pattern key as a mixture: ``(parts, mixture)``, the
    parts the laws of (start coins k0, final count n) for ``trigger <= k0 <= n
    <= H R`` and ``mixture(keys)`` the (keys, parts) matrix of P(n | start
    mask) in the column of (k0, n) (float64)."""
    from slotmath.features.landing import popcount

    cells = game.rows * game.reels
    parts, column = _count_parts(game, level, spec)
    V = np.asarray(mask_count_laws(game, spec, exact), dtype=float)
    pc = popcount(cells)

    def mixture(keys):
        masks = np.array([key_mask(game, k) for k in keys], dtype=np.int64)
        k0 = pc[masks]
        i, n = np.nonzero(np.arange(cells + 1)[None, :] >= k0[:, None])
        out = np.zeros((len(keys), len(parts)))
        out[i, column[k0[i], n]] = V[n, masks[i]]
        return out

    return parts, mixture


def _row_feature(game: Game, level: int, spec: HoldAndSpinSpec, exact):
    """The feature keyed by the row pattern of the coins (see :func:`rows_matter`)."""
    from slotmath.features.landing import popcount
    from slotmath.features.round import Feature

    cells = game.rows * game.reels
    means = mask_means(game, spec, exact)
    pc = popcount(cells)
    built: dict = {}  # parts, built when first read (RTP figures need only the means)

    def parts():
        if "parts" not in built:
            built["parts"] = _row_parts(game, level, spec, exact)
        return built["parts"]

    sums = PrizeSums(spec, cells)

    def award(key):  # one key's law (when another feature shares the key)
        m = key_mask(game, key)
        hist = sums.mixture(int(pc[m]), mask_count_laws(game, spec, exact)[:, m])
        bet = game.bet(level)
        return WinDistribution.from_grid(hist, sums.g * bet.total_bet, bet.total_bet, normalise=True)

    return Feature(
        "hold_and_spin",
        hold_and_spin_trigger(game, spec),
        lambda key: int(pc[key_mask(game, key)]) >= spec.trigger,
        lambda key: means[key_mask(game, key)],
        award,
        group=lambda key: key_mask(game, key),  # one award law per start screen
        odds=lambda probs: feature_odds(game, spec, probs, exact, rows=True),
        mixture=lambda keys: parts()[1](keys),
        parts=lambda: parts()[0],
        top=lambda key: award_top(
            spec,
            int(pc[key_mask(game, key)]),
            mask_count_laws(game, spec, exact)[:, key_mask(game, key)],
        ),
    )


def _top_prize(table) -> tuple:
    """(largest prize [x total bet], its exact probability per coin)."""
    total = sum(x.weight for x in table)
    top = max(x.value for x in table)
    return top, Fraction(sum(x.weight for x in table if x.value == top), total)


def award_top(spec: HoldAndSpinSpec, k0: int, law) -> MaxWin:
    """The largest award from ``k0`` start coins whose final-count law is
    ``law`` (P(n), n = 0 .. H R) [x total bet] and its probability: the most
    coins the chain can end with, every start coin at the largest start prize
    and every new coin at the largest prize, plus the full-screen prize when
    that count is every cell (prizes are positive, so no other screen
    reaches it)."""
    cells = len(law) - 1
    n = max(i for i in range(cells + 1) if law[i])
    s_top, s_p = _top_prize(spec.start_values)
    v_top, v_p = _top_prize(spec.values)
    value = k0 * s_top + (n - k0) * v_top + (spec.full_screen if n == cells else 0)
    exact = isinstance(law[n], (Fraction, int))
    p = (Fraction(law[n]) if exact else float(law[n])) * s_p**k0 * v_p ** (n - k0)
    how = (
        f"{n} coins at the end" + (" (a full screen)" if n == cells else "") + ", every coin at its "
        "table's largest prize; probability P(final count) x P(top prize) per coin"
    )
    return MaxWin(Fraction(value), p if exact else float(p), exact, how)


def required_hold_and_spin(game: Game) -> HoldAndSpinSpec:
    spec = load_hold_and_spin(game)
    if spec is None:
        raise GameFileError(game.source, "options.hold_and_spin", "is required (no hold-and-spin declared)")
    return spec


# ===========================================================================
# odds, checks and the feature of the generic round
# ===========================================================================
#: events of the compiled sampler (:mod:`slotmath.montecarlo.holdspinsim`), after the pays'
FEATURE_EVENTS = ("hold_and_spin triggers", "hold_and_spin full screens", "hold_and_spin award [grid]")


def jackpot_event(label: str) -> str:
    """The sampler's event of a hold-and-spin jackpot's hits (after
    :data:`FEATURE_EVENTS`); its exact rate is the jackpot's hits per round."""
    return f"hold_and_spin jackpot {label}"


def jackpot_names(spec: HoldAndSpinSpec) -> list:
    """The jackpots a hold-and-spin pays, each once: the prizes named by a
    jackpot (trigger coins' table, then the respin coins'), then the full
    screen's label."""
    out: list = []
    for x in (*spec.start_values, *spec.values):
        if not is_number(x.label) and x.label not in out:
            out.append(x.label)
    if spec.full_screen_pays and spec.full_screen_label not in out:
        out.append(spec.full_screen_label)
    return out


#: name of the PAR table of coins on screen
COINS_TABLE = "Hold-and-spin: coins on screen given a trigger"


def coins_table(odds: dict):
    """The :data:`COINS_TABLE` of a hold-and-spin's odds (:func:`feature_odds`):
    per number of coins, its probability given a trigger at the trigger and
    at the end (a DataFrame)."""
    import pandas as pd

    return pd.DataFrame(odds["coins_given_trigger"]).rename(
        columns={
            "at_trigger": "probability given a trigger: coins at the trigger",
            "at_end": "probability given a trigger: coins at the end",
        }
    )


def check_jackpots(game: Game, spec: HoldAndSpinSpec) -> None:
    """Refuse a declared jackpot that no prize of the hold-and-spin uses."""
    used = {p.label for p in spec.values + spec.start_values} | {spec.full_screen_label}
    for name in game.options.get("jackpots") or {}:
        if str(name) not in used:
            Reader(game).fail(f"options.jackpots.{name}", "is declared but no hold-and-spin prize uses it")


def depends_on_count_only(game: Game, spec: HoldAndSpinSpec, exact: bool | None = None) -> bool:
    """True when every key with the same number of coins has the same award law."""
    _, laws = award_grid_laws(game, spec, exact)
    first: dict = {}
    for key, law in laws.items():
        ref = first.setdefault(sum(key), law)
        n = max(len(ref), len(law))
        a, b = np.pad(ref, (0, n - len(ref))), np.pad(law, (0, n - len(law)))
        if not np.allclose(a, b, rtol=1e-12, atol=1e-15):
            return False
    return True


def feature_odds(
    game: Game,
    spec: HoldAndSpinSpec,
    probs: dict,
    exact: bool | None = None,
    rows: bool = False,
    total: bool = False,
) -> dict:
    """Feature odds (JSON-ready) from ``probs`` = {triggering key: P(key)}:
    trigger probability, mean award [x total bet], full-screen probability,
    expected jackpots per round, the coins on screen given a trigger and the
    expected count per round of the sampler's events (``event_rates``).
    Keys are per-reel counts, with ``rows`` per-reel row patterns, with
    ``total`` the total count of coins (``total`` state)."""
    if total:
        L = count_laws(game, spec, exact)
        means, laws, coins = total_means(game, spec, exact), {n: L[n] for n in probs}, {n: n for n in probs}
    elif rows:
        V, by_mask = mask_count_laws(game, spec, exact), mask_means(game, spec, exact)
        masks = {k: key_mask(game, k) for k in probs}
        laws = {k: V[:, m] for k, m in masks.items()}
        means = {k: by_mask[m] for k, m in masks.items()}
        coins = {k: bin(m).count("1") for k, m in masks.items()}
    else:
        means = hold_and_spin_means(game, 0, spec, exact)
        laws = final_count_laws(game, spec, exact)
        coins = {k: sum(k) for k in probs}
    return odds_of_starts(game, spec, probs, means, laws, coins)


def odds_of_starts(
    game: Game,
    spec: HoldAndSpinSpec,
    probs: dict,
    means: dict,
    laws: dict,
    coins: dict,
    low: int | None = None,
) -> dict:
    """The figures of :func:`feature_odds` from ``probs`` = {start: P},
    ``means`` = {start: mean award}, ``laws`` = {start: final-count law} and
    ``coins`` = {start: coins held at the start}; the table of coins on
    screen from ``low`` coins (default ``trigger``)."""
    cells = game.rows * game.reels
    low = spec.trigger if low is None else low
    p = sum(probs.values(), Fraction(0))
    pf = float(p)
    full = sum(float(probs[k]) * float(laws[k][cells]) for k in probs)
    at_trigger, at_end = np.zeros(cells + 1), np.zeros(cells + 1)
    for k, q in probs.items():
        at_trigger[coins[k]] += float(q)
        at_end += np.array([float(x) for x in laws[k]]) * float(q)
    counts = np.arange(cells + 1)
    start, end = float(at_trigger @ counts), float(at_end @ counts)
    jackpots: dict[str, float] = {}
    for table, coins in ((spec.start_values, start), (spec.values, end - start)):
        total = sum(x.weight for x in table)
        for x in table:
            if not is_number(x.label):
                jackpots[x.label] = jackpots.get(x.label, 0.0) + coins * x.weight / total
    if spec.full_screen_pays:
        jackpots[spec.full_screen_label] = jackpots.get(spec.full_screen_label, 0.0) + full
    rtp = sum(float(probs[k]) * float(means[k]) for k in probs)
    return {
        "trigger_probability": pf,
        "trigger_probability_exact": f"{p.numerator}/{p.denominator}" if isinstance(p, Fraction) else None,
        "trigger_one_in": 1 / pf,
        "mean_award": rtp / pf,
        "full_screen_probability": full,
        "rtp": rtp,
        "coins_at_trigger_mean": start / pf,
        "coins_at_end_mean": end / pf,
        "jackpot_hits_per_round": jackpots,
        "coins_given_trigger": [
            {"coins": int(n), "at_trigger": at_trigger[n] / pf, "at_end": at_end[n] / pf}
            for n in range(low, cells + 1)
        ],
        "event_rates": dict(zip(FEATURE_EVENTS, (pf, full, rtp / float(prize_grid(spec))), strict=True))
        | {jackpot_event(label): jackpots[label] for label in jackpot_names(spec)},
    }


def hold_and_spin_feature(
    game: Game, level: int, spec: HoldAndSpinSpec | None = None, exact: bool | None = None
):
    """The hold-and-spin as a :class:`slotmath.features.round.Feature` of the
    generic round: trigger = the coin counted per reel (by row pattern when
    :func:`rows_matter`: then the award given the key is independent of the
    base win, see :func:`_row_feature`); mean and award law of every
    triggering key; count keys share an award law by coin count when
    :func:`depends_on_count_only`; odds by :func:`feature_odds`."""
    from slotmath.features.round import Feature

    spec = spec or required_hold_and_spin(game)
    if rows_matter(game, spec):
        return _row_feature(game, level, spec, exact)
    if chain_state(game, spec).kind == "total":
        return _total_feature(game, level, spec, exact)
    means = hold_and_spin_means(game, level, spec, exact)
    if chain_state(game, spec).kind == "reels":
        return _reel_feature(game, level, spec, exact, means)
    awards = hold_and_spin_awards(game, level, spec, exact)
    by_count = depends_on_count_only(game, spec, exact)
    return Feature(
        "hold_and_spin",
        hold_and_spin_trigger(game, spec),
        lambda key: key in awards,
        means.__getitem__,
        awards.__getitem__,
        group=(lambda key: sum(key)) if by_count else (lambda key: key),
        odds=lambda probs: feature_odds(game, spec, probs, exact),
        top=lambda key: award_top(spec, sum(key), final_count_laws(game, spec, exact)[key]),
    )


def _total_feature(game: Game, level: int, spec: HoldAndSpinSpec, exact):
    """The feature keyed by the total number of coins (``total`` state: every
    cell lands alike, so the award depends on the start only through that
    count, and the base win depends on the key only through it too)."""
    from slotmath.features.round import Feature, Trigger

    cells = game.rows * game.reels
    L = count_laws(game, spec, exact)
    means = total_means(game, spec, exact)
    sums = PrizeSums(spec, cells)
    bet = game.bet(level)
    step = sums.g * bet.total_bet

    def award(n):
        return WinDistribution.from_grid(sums.mixture(n, L[n]), step, bet.total_bet)

    return Feature(
        "hold_and_spin",
        Trigger(spec.symbol),
        lambda n: n >= spec.trigger,
        means.__getitem__,
        award,
        odds=lambda probs: feature_odds(game, spec, probs, exact, total=True),
    )


def _reel_feature(game: Game, level: int, spec: HoldAndSpinSpec, exact, means: dict):
    """The feature keyed by per-reel counts (``reels`` state): the award of a
    key is a mixture of the laws of (start coins, final count), weighted by
    the key's final-count law, so the round convolves each (k0, n) law once
    instead of once per key."""
    from slotmath.features.round import Feature

    cells = game.rows * game.reels
    laws = final_count_laws(game, spec, exact)
    sums = PrizeSums(spec, cells)
    bet = game.bet(level)
    built: dict = {}

    def parts():
        if "parts" not in built:
            built["parts"] = _count_parts(game, level, spec)
        return built["parts"]

    def mixture(keys):
        found, column = parts()
        out = np.zeros((len(keys), len(found)))
        for i, key in enumerate(keys):
            k0 = sum(key)
            law = np.array([float(x) for x in laws[key]])
            n = np.arange(k0, cells + 1)
            out[i, column[k0, n]] = law[n]
        return out

    def award(key):
        hist = sums.mixture(sum(key), laws[key])
        return WinDistribution.from_grid(hist, sums.g * bet.total_bet, bet.total_bet, normalise=True)

    return Feature(
        "hold_and_spin",
        hold_and_spin_trigger(game, spec),
        lambda key: key in laws,
        means.__getitem__,
        award,
        odds=lambda probs: feature_odds(game, spec, probs, exact),
        mixture=mixture,
        parts=lambda: parts()[0],
    )
