"""Tumbles (cascading reels) with a strip refill: a spin stage wrapping a pay rule.

The rule (``options.tumble``, docs/features.md "Tumbles")
---------------------------------------------------------
After a paying evaluation of the window the pay rule's paid cells are
removed: on a line game every cell of every paying line combination (the
cells of the line's first ``n`` reels, ``n`` the length of its winning pay
entry), on a pay-anywhere game every cell counted toward a paying symbol
(its own cells and the wilds substituting for it), on a ways game every
cell of a paying way (the symbol's cells and the wilds substituting for
it on reels 1..n of its paying run), on a cluster game every cell of
every paying cluster (its wilds too, once when in two).  The symbols above fall
down in each reel and the gaps are refilled from the strip above the
window: reel ``r`` stopped at ``s`` shows strip stops ``s .. s + rows - 1``
(top to bottom), and the next symbols to fall are ``s - 1``, ``s - 2``,
... wrapping around the cycle (the high-water mark of strip games).
Evaluation repeats until nothing pays.  The ``k``-th paying evaluation
(k = 1, 2, ...) pays its win times the progression's ``k``-th value (the
last value repeats); the progression restarts at every spin (free spins
included, with the free games' progression on their reel set).  Scatters
pay, and every trigger (free games) counts, on the first drop only; a
scatter is never removed by its own pay, it falls with its reel.

One kernel plays every pay rule: each rule gives the compiled evaluation
of one drop, which says what the drop pays and which cells go
(:func:`slotmath.engine.lines.line_drop`,
:func:`slotmath.engine.anywhere.anywhere_drop`,
:func:`slotmath.engine.ways.ways_drop`,
:func:`slotmath.engine.cluster.cluster_drop`), and :func:`tumble_units`
plays the fall and the refill between them.

Exactness
---------
The whole sequence is a function of the stop vector, so the exact law is
an enumeration of every stop vector of the cycle (integer stop weights),
each played to its end by :func:`tumble_units` in the compiled
:func:`enumerate_tumbles`: a histogram of the spin's total win in integer
units [1/unit_den coins] (and of its key, the first drop's trigger counts:
:func:`slotmath.engine.joint.key_codes`).  Its cost is estimated first
(:func:`tumble_cost`: stop vectors x the mean evaluations per spin measured
on a sample x the steps of one evaluation) and refused above
:data:`MAX_TUMBLE_SECONDS` of one core.  Board multiplier symbols
(``options.tumble.multiplier_symbols``) key each stop vector also by its
scatter code and the multiplier symbols M on its final board; :func:`board_mix`
then spreads each paying entry over the law of the sum of M values
(:func:`board_sums`), in integer weights over the cycle x (total weight)**max M.
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np
from numba import types
from numba.extending import overload
from numba.typed import Dict

from slotmath.engine.anywhere import anywhere_drop
from slotmath.engine.cache import game_cache
from slotmath.engine.cluster import (
    CLUSTER_STEPS_PER_SECOND,
    cluster_drop,
)
from slotmath.engine.hashtable import dict_arrays
from slotmath.engine.lines import line_drop
from slotmath.engine.pays import base_rule
from slotmath.engine.tumble_spec import MAX_TUMBLES, tumble_spec
from slotmath.engine.ways import ways_drop
from slotmath.errors import EngineTooLarge, GameFileError, InternalError, ensure
from slotmath.model import Game

__all__ = [
    "tumble_args",
    "tumble_units",
    "drop_pays",
    "fall",
    "drop_window",
    "enumerate_tumbles",
    "tumble_vectors",
    "tumble_cost",
    "tumble_keyed",
    "board_entries",
    "MAX_TUMBLE_STEPS",
    "MAX_TUMBLES",
    "board_sums",
    "board_mix",
    "sequence_args",
    "sequence_code",
    "scatter_law",
    "sequence_scatter_rtp",
    "enumerated_tumbles",
    "first_drop",
    "drop_top",
]

#: line evaluations x lines the exact enumeration of a line game takes on before it refuses
MAX_TUMBLE_STEPS = 6 * 10**10
#: line steps per second of :func:`enumerate_tumbles` on one core (measured
#: on the avalanche5 data game, benchmarks/bench_tumbles.py)
TUMBLE_STEPS_PER_SECOND = 8e7
#: cell counts (cells x paying symbols of one pay-anywhere evaluation) per
#: second of :func:`enumerate_tumbles` on one core (measured: 6.2e8 on
#: data/games/candy_anywhere with tumbles and its strips cut to 10 and 12 stops)
COUNT_STEPS_PER_SECOND = 6e8
#: cell counts (cells x paying symbols of one ways evaluation) per second of
#: :func:`enumerate_tumbles` on one core (measured: benchmarks/bench_tumbles.py,
#: the 243-ways game)
WAYS_DROP_STEPS_PER_SECOND = 1.6e8
#: one core's time the exact enumeration may take before it refuses [s]
MAX_TUMBLE_SECONDS = MAX_TUMBLE_STEPS / TUMBLE_STEPS_PER_SECOND
#: (win, key) entries the exact law with board multipliers may hold before it refuses
MAX_BOARD_ENTRIES = 2_000_000
#: wins below this many units are counted in a dense array, above in a hash map
DENSE_UNITS = 1 << 14
#: entries above :data:`DENSE_UNITS` that :func:`tumble_vectors` hands back at a time
SPILL = 4096


# ------------------------------------------------------------ compiled play
def _optional(drop):
    """One pay rule's ``drop`` as a part of :func:`drop_pays` that compiles to
    nothing when its arguments are ``None`` (the game pays by another rule):
    a rule left in the kernel, even untaken, slowed every drop of the
    samplers (candy_tumble's drop 0.23 -> 0.49 us; benchmarks/results.md)."""

    def play(window, pays, removed, events, count):  # pragma: no cover - compiled only
        raise InternalError("tumble.py: a rule's drop is compiled only")

    @overload(play)
    def _play(window, pays, removed, events, count):
        if isinstance(pays, types.NoneType):
            return lambda window, pays, removed, events, count: 0
        return lambda window, pays, removed, events, count: drop(window, pays, removed, events, count)

    return play


_line_drop = _optional(line_drop)
_anywhere_drop = _optional(anywhere_drop)
_ways_drop = _optional(ways_drop)
_cluster_drop = _optional(cluster_drop)


@nb.njit(cache=True, inline="always")
def drop_pays(window, pays, removed, events, count):
    """Coin win of one drop of ``window`` [coins] by the pay rules' drop
    functions (``pays`` as in :func:`tumble_units`: the game's rule's
    arguments, ``None`` for the others); ``removed[c]`` is set
    to 1 on every cell the pays remove (0 elsewhere); with ``count`` the
    pays add to ``events``."""
    for c in range(window.shape[0]):
        removed[c] = 0
    line_pays, count_pays, ways_pays, cluster_pays = pays
    return (
        _line_drop(window, line_pays, removed, events, count)
        + _anywhere_drop(window, count_pays, removed, events, count)
        + _ways_drop(window, ways_pays, removed, events, count)
        + _cluster_drop(window, cluster_pays, removed, events, count)
    )


@nb.njit(cache=True, inline="always")
def fall(window, removed, r, H):
    """The kept cells of reel ``r`` fall to its bottom rows; returns the gaps
    left at its top (rows ``0 .. gaps - 1`` to refill)."""
    w = H - 1
    for row in range(H - 1, -1, -1):
        if removed[r * H + row] == 0:
            window[r * H + w] = window[r * H + row]
            w -= 1
    return w + 1


@nb.njit(cache=True, inline="always")
def tumble_units(window, ptr, strip, n_stops, dims, pays, mults, removed, events, landed):
    """Win of a whole tumble sequence [coins x multiplier] from the first
    ``window`` (cell ``reel x rows + row``, row 0 at the top) and ``ptr`` (per
    reel, the strip stop that falls next); both are changed.  Each drop is
    the pay rule's: ``pays`` = (line, count, ways, cluster arguments) of
    :func:`slotmath.engine.lines.line_drop`,
    :func:`slotmath.engine.anywhere.anywhere_drop`,
    :func:`slotmath.engine.ways.ways_drop` and
    :func:`slotmath.engine.cluster.cluster_drop` (``None`` for the rules the
    game does not pay by); they say what the drop pays and which cells go
    (:func:`drop_pays`).
    Returns (win, paying evaluations),
    evaluations ``-1`` past :data:`MAX_TUMBLES`.  The first drop's pays are
    counted in ``events`` (the combination table's rows) when it is not empty;
    every refilled cell's symbol in ``landed`` (by symbol index) when it is
    not empty (``triggers: sequence``)."""
    R, H = dims[0], dims[1]
    M = mults.shape[0]
    total = 0
    k = 0
    while True:
        coins = drop_pays(window, pays, removed, events, k == 0 and events.shape[0] > 0)
        if coins == 0:
            return total, k
        total += coins * mults[min(k, M - 1)]
        k += 1
        if k > dims[2]:
            return total, -1
        for r in range(R):
            for w in range(fall(window, removed, r, H) - 1, -1, -1):
                window[r * H + w] = strip[r, ptr[r]]
                if landed.shape[0] > 0:
                    landed[strip[r, ptr[r]]] += 1
                ptr[r] = ptr[r] - 1 if ptr[r] > 0 else n_stops[r] - 1


@nb.njit(cache=True, inline="always")
def drop_window(stop, window, ptr, strip, n_stops, H):
    """The first window of ``stop`` and the next stop to fall on each reel."""
    for r in range(stop.shape[0]):
        n = n_stops[r]
        for k in range(H):
            at = stop[r] + k  # below 2 n (the window is no taller than the strip): no division
            window[r * H + k] = strip[r, at - n if at >= n else at]
        ptr[r] = stop[r] - 1 if stop[r] > 0 else n - 1


@nb.njit(cache=True, inline="always")
def sequence_code(seen, inc, place, cap):
    """Key code of the symbols ``seen`` over a sequence (counts by symbol):
    digit ``d`` counts ``sum_s seen[s] inc[s, d]``, read capped at ``cap``."""
    code = 0
    for d in range(place.shape[0]):
        n = 0
        for s in range(seen.shape[0]):
            n += seen[s] * inc[s, d]
        code += min(n, cap) * place[d]
    return code


@nb.njit(cache=True)
def enumerate_tumbles(
    strip,
    weights,
    n_stops,
    dims,
    pays,
    mults,
    sc_code,
    sc_units,
    key_code,
    n_keys,
    unit_den,
    sample,
    n_board,
    seq,
    n_drops,
):
    """Every stop vector of the cycle played to its end (or the stop vectors
    of ``sample``, shape (n, R), when it has rows: the cost estimate).

    Returns (dense counts by ``units x n_keys + key`` below
    :data:`DENSE_UNITS` units, sparse (keys, counts) above, vectors past
    :data:`MAX_TUMBLES`, evaluations played); a win is ``unit_den x
    tumble units + scatter units`` [1/unit_den coins], counts are stop
    weights.  With board multipliers (``n_board`` > 1: cells + 1) a win is
    the tumble units alone and the key ``(key x scatter codes + scatter
    code) x n_board + M``, M the multiplier symbols (``dims[3]``) on the
    final board (:func:`board_mix` mixes in their values).  With
    ``seq`` = (key increments, key places, scatter increments, scatter
    places, cap) not empty (``triggers: sequence``, :func:`sequence_args`)
    the trigger key and the scatter code count every cell that was on the
    board in any drop (:func:`sequence_code`) instead of the first drop's
    stop codes.  With ``n_drops`` > 1 the trigger key (``n_keys`` of them
    in all) is ``key + (n_keys / n_drops) x min(paying drops, n_drops - 1)``.
    Also returns the weight of each scatter code (the scatter law)."""
    R, H = dims[0], dims[1]
    n_sc = sc_units.shape[0] if n_board > 1 else 1
    n_all = n_keys * n_sc * n_board
    dense_units = max(DENSE_UNITS // (n_sc * n_board), 1)
    sizes = np.array(
        [n_keys, n_keys // n_drops, n_sc, n_all, dense_units, unit_den, n_board, n_drops], dtype=np.int64
    )
    work = (
        np.zeros(seq[0].shape[0], dtype=np.int64),  # symbols seen over a sequence
        np.empty(R * H, dtype=np.int64),  # window
        np.empty(R, dtype=np.int64),  # next stops to fall
        np.empty(R * H, dtype=np.int64),  # removed cells
        np.zeros(0, dtype=np.int64),  # the enumeration counts no events
        np.zeros(R, dtype=np.int64),  # the stop vector
        np.zeros(4, dtype=np.int64),  # (vectors played, past MAX_TUMBLES, evaluations, done)
    )
    sc_hist = np.zeros(sc_units.shape[0], dtype=np.int64)
    dense = np.zeros(dense_units * n_all, dtype=np.int64)
    sparse = Dict.empty(key_type=types.int64, value_type=types.int64)
    spill = (np.empty(SPILL, dtype=np.int64), np.empty(SPILL, dtype=np.int64))
    state = work[6]
    while state[3] == 0:
        m = tumble_vectors(
            strip,
            weights,
            n_stops,
            dims,
            pays,
            mults,
            sc_code,
            sc_units,
            key_code,
            sample,
            seq,
            sizes,
            work,
            sc_hist,
            dense,
            spill,
        )
        for j in range(m):
            sparse[spill[0][j]] = sparse.get(spill[0][j], 0) + spill[1][j]
    keys, counts = dict_arrays(sparse)
    return dense, keys, counts, state[1], state[2], sc_hist


@nb.njit(cache=True, _nrt=False)
def tumble_vectors(
    strip,
    weights,
    n_stops,
    dims,
    pays,
    mults,
    sc_code,
    sc_units,
    key_code,
    sample,
    seq,
    sizes,
    work,
    sc_hist,
    dense,
    spill,
):
    """The stop vectors of :func:`enumerate_tumbles` from ``work``'s stop
    vector on (its arguments; ``sizes`` = (keys, trigger keys, scatter
    codes, codes, dense units, unit_den, n_board, n_drops), ``work`` its
    work arrays and state), counted into ``sc_hist`` and ``dense``; the
    entries above the dense units are written to ``spill`` = (codes,
    counts), and it returns when that is full (their number) or at the
    end (``state[3]`` set).  Compiled without numba's reference counting
    (``_nrt=False``, it allocates nothing; the samplers' round loop,
    :func:`slotmath.montecarlo.tumblesim.tumble_rounds`, says why)."""
    R = dims[0]
    key_inc, key_place, sc_inc, sc_place, cap = seq
    sequence = key_inc.shape[0] > 0
    seen, window, ptr, removed, no_events, stop, state = work
    n_trig, n_sc, n_all, dense_units, unit_den, n_board, n_drops = (
        sizes[1],
        sizes[2],
        sizes[3],
        sizes[4],
        sizes[5],
        sizes[6],
        sizes[7],
    )
    n_sample = sample.shape[0]
    m = 0
    while m < spill[0].shape[0]:
        i = state[0]
        if n_sample:
            if i == n_sample:
                state[3] = 1
                return m
            for r in range(R):
                stop[r] = sample[i, r]
        w = 1
        sc = 0
        key = 0
        for r in range(R):
            w *= weights[r, stop[r]]
            sc += sc_code[r, stop[r]]
            key += key_code[r, stop[r]]
        if w > 0 or n_sample:
            drop_window(stop, window, ptr, strip, n_stops, dims[1])
            if sequence:
                seen[:] = 0
                for c in range(window.shape[0]):
                    seen[window[c]] += 1
            units, k = tumble_units(window, ptr, strip, n_stops, dims, pays, mults, removed, no_events, seen)
            if k < 0:
                state[1] += 1
                k = dims[2]
            state[2] += k + 1
            if sequence:
                key = sequence_code(seen, key_inc, key_place, cap)
                sc = sequence_code(seen, sc_inc, sc_place, cap)
            key += n_trig * min(k, n_drops - 1)
            sc_hist[sc] += w
            if n_board > 1:
                b = 0
                for c in range(window.shape[0]):
                    b += window[c] == dims[3]
                key = (key * n_sc + sc) * n_board + b
            else:
                units = units * unit_den + sc_units[sc]
            if units < dense_units:
                dense[units * n_all + key] += w
            else:
                spill[0][m] = units * n_all + key
                spill[1][m] = w
                m += 1
        state[0] = i + 1
        if not n_sample:  # the next stop vector (odometer, last reel fastest)
            r = R - 1
            while r >= 0:
                stop[r] += 1
                if stop[r] < n_stops[r]:
                    break
                stop[r] = 0
                r -= 1
            if r < 0:
                state[3] = 1
                return m
    return m


# ------------------------------------------------------------ arrays
def tumble_args(game: Game, level: int, reel_set: str = "base", events=None) -> tuple:
    """Arrays of :func:`tumble_units`: ``(strip, n_stops, dims, pays,
    mults)``; ``dims`` = (reels, rows, :data:`MAX_TUMBLES`); ``pays`` the
    (line, count, ways, cluster) drop arguments of the rule of one drop
    (:meth:`slotmath.engine.pays.PayRule.drop_pays`, with ``events``, the
    samplers' event index of each pay), ``None`` for the other rules;
    ``dims[3]`` the board multiplier symbol on ``reel_set`` (-1: none)."""
    from slotmath.engine.reels import strip_indices

    spec = tumble_spec(game)
    if spec is None:
        raise ValueError(f"{game.name}: declares no options.tumble")
    strips = game.strips(reel_set)
    R, H = game.reels, game.rows
    n_max = max(len(s) for s in strips)
    strip = np.zeros((R, n_max), dtype=np.int64)
    for r, s in enumerate(strips):
        strip[r, : len(s)] = strip_indices(game, s)
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    pays = base_rule(game).drop_pays(game, level, events)
    mults = np.array(spec.progression(reel_set), dtype=np.int64)
    board = spec.board_on(reel_set)
    dims = np.array([R, H, MAX_TUMBLES, game.symbol_index[board.symbol] if board else -1], dtype=np.int64)
    return strip, n_stops, dims, pays, mults


def drop_top(pays: tuple) -> int:
    """Largest coin win of one drop: every line at its largest label, every
    paying symbol at its largest pay (on a ways game on every way, each
    cell at its largest weight, at the largest way multiplier; on a cluster
    game on every cluster the window holds, cells over the smallest paying size)."""
    line_pays, count_pays, ways_pays, cluster_pays = pays
    top = 0
    if line_pays is not None:
        top += int(line_pays[3].max(initial=0)) * int(line_pays[0].shape[0])
    if count_pays is not None:
        top += int(count_pays[1].max(axis=1, initial=0).sum())
    if ways_pays is not None:
        weight, pay, factor, (R, H) = ways_pays[0], ways_pays[2], ways_pays[5], ways_pays[7].tolist()
        ways = (int(weight.max(initial=1)) * H) ** R * int(factor.max())
        top += int(pay.max(axis=1, initial=0).sum()) * ways
    if cluster_pays is not None:
        cpay = cluster_pays[2]
        cells = cpay.shape[1] - 1
        low = int(min((np.flatnonzero(row).min() for row in cpay if row.any()), default=cells))
        top += int(cpay.max(axis=1, initial=0).sum()) * (cells // max(low, 1))
    return top


def evaluation_steps(game: Game, pays: tuple) -> tuple:
    """(steps of one evaluation, their name, steps per second on one core):
    a line game's lines, a pay-anywhere, ways or cluster game's cells x
    paying symbols (a cluster evaluation flood-fills the cells once per
    paying symbol)."""
    line_pays, count_pays, ways_pays, cluster_pays = pays
    if line_pays is not None:
        return int(line_pays[0].shape[0]), f"{line_pays[0].shape[0]} lines", TUMBLE_STEPS_PER_SECOND
    if ways_pays is not None:
        paying, rate = ways_pays[2].shape[0], WAYS_DROP_STEPS_PER_SECOND
    elif cluster_pays is not None:
        paying, rate = cluster_pays[1].shape[0], CLUSTER_STEPS_PER_SECOND
    else:
        paying, rate = count_pays[2].shape[0], COUNT_STEPS_PER_SECOND
    cells = game.reels * game.rows
    return cells * int(paying), f"{cells} cells x {paying} paying symbols", rate


def first_drop(game: Game, level: int, reel_set: str, triggers) -> tuple:
    """(stop weights, scatter codes and units, key codes, keys, unit_den) of the first drop."""
    from slotmath.engine.joint import key_codes
    from slotmath.engine.reels import pack_reels
    from slotmath.engine.scatters import scatter_counts, win_denominator

    total_bet = game.bet(level).total_bet
    unit_den = win_denominator(game, total_bet)
    sc = scatter_counts(game, reel_set, total_bet, unit_den)
    _, weights, n_stops = pack_reels(game, reel_set)
    R, n_max = game.reels, weights.shape[1]
    sc_code = np.zeros((R, n_max), dtype=np.int64)
    key_code = np.zeros((R, n_max), dtype=np.int64)
    n_keys = 1
    codes = key_codes(game, reel_set, triggers) if triggers else None
    if codes is not None:
        n_keys = codes[1]
    for r in range(R):
        sc_code[r, : n_stops[r]] = sc.codes[r]
        if codes is not None:
            key_code[r, : n_stops[r]] = codes[0][r]
    return weights, sc_code, np.asarray(sc.pay_units, dtype=np.int64), key_code, n_keys, unit_den


def sequence_args(game: Game, triggers=(), on: bool = False) -> tuple:
    """``seq`` of :func:`enumerate_tumbles`: (key increments (symbols,
    digits), key places, scatter increments, scatter places, cap); with
    ``on`` False (``triggers: first_drop``) empty arrays.  Each trigger is
    one total-count digit (radix cells + 1, :func:`slotmath.engine.joint.key_radix`),
    each scatter symbol one digit of the scatter code
    (:func:`slotmath.engine.scatters.scatter_counts`); a count is read
    capped at the window's cells (``triggers: sequence`` refuses a listed
    count above them)."""
    from slotmath.engine.scatters import scatter_symbols

    cells = game.reels * game.rows
    if not on:
        none = np.zeros((0, 0), dtype=np.int64)
        return none, np.zeros(0, dtype=np.int64), none, np.zeros(0, dtype=np.int64), cells
    n_sym = len(game.symbols)
    key_inc = np.zeros((n_sym, len(triggers)), dtype=np.int64)
    for d, t in enumerate(triggers):
        if getattr(t, "per_reel", False) or getattr(t, "rows", False) or not hasattr(t, "symbol"):
            raise InternalError(f"{game.name}: triggers: sequence counts a total, not {t!r}")
        for name in t.symbol if isinstance(t.symbol, tuple) else (t.symbol,):
            key_inc[game.symbol_index[name], d] = 1
    syms = scatter_symbols(game)
    sc_inc = np.zeros((n_sym, len(syms)), dtype=np.int64)
    for j, name in enumerate(syms):
        sc_inc[game.symbol_index[name], j] = 1
    places = [(cells + 1) ** d for d in range(max(len(triggers), len(syms)))]
    return (
        key_inc,
        np.array(places[: len(triggers)], dtype=np.int64),
        sc_inc,
        np.array(places[: len(syms)], dtype=np.int64),
        cells,
    )


def tumble_cost(game: Game, level: int, reel_set: str = "base", samples: int = 2048) -> tuple:
    """(stop vectors, mean evaluations per spin on a seeded sample of
    ``samples`` uniform stop vectors, estimated steps, the steps' name,
    steps per second) of the exact enumeration (:func:`evaluation_steps`)."""
    strip, n_stops, dims, pays, mults = tumble_args(game, level, reel_set)
    weights, sc_code, sc_units, key_code, n_keys, unit_den = first_drop(game, level, reel_set, ())
    rng = np.random.default_rng(20261202)
    sample = np.stack([rng.integers(0, n, samples) for n in n_stops.tolist()], axis=1).astype(np.int64)
    *_, evaluations, _ = enumerate_tumbles(
        strip,
        weights,
        n_stops,
        dims,
        pays,
        mults,
        sc_code,
        sc_units,
        key_code,
        1,
        unit_den,
        sample,
        1,
        sequence_args(game),
        1,
    )
    vectors = int(np.prod(n_stops.astype(object)))
    mean = evaluations / samples
    per, name, rate = evaluation_steps(game, pays)
    return vectors, mean, vectors * mean * per, name, rate


def check_tumble_cost(
    game: Game, level: int, reel_set: str = "base", limit: int | None = None, runs: int = 1
) -> None:
    """Refuse (:class:`EngineTooLarge`, one line) an enumeration whose
    estimate (:func:`tumble_cost`), times ``runs`` enumerations of the reel
    set (the carried progression's start positions and the plain free spin),
    passes ``limit`` steps (default: the steps of :data:`MAX_TUMBLE_SECONDS`,
    :data:`MAX_TUMBLE_STEPS` line steps on a line game)."""
    vectors, mean, steps, name, rate = tumble_cost(game, level, reel_set)
    steps *= runs
    bound = MAX_TUMBLE_SECONDS * rate if limit is None else limit
    times = (
        f" x {runs} enumerations (the plain free spin and one per start position of the carried progression)"
        if runs > 1
        else ""
    )
    if steps > bound:
        raise EngineTooLarge(
            f"{game.source or game.name}: options.tumble: the exact tumble law on reel set {reel_set!r} "
            f"would play {vectors:.3g} stop vectors x {mean:.3g} evaluations x {name}{times} "
            f"= {steps:.2e} steps (about {steps / rate:,.0f} s on one core), "
            f"above the bound {bound:.2g}; run `slotmath simulate` instead"
        )


def tumble_keyed(
    game: Game,
    level: int,
    triggers=(),
    reel_set: str = "base",
    limit: int | None = None,
    start: int = 0,
    drops: int = 1,
):
    """:func:`enumerated_tumbles` (cached on the game's value, the level, the
    triggers, the reel set's strips, the start and the drops)."""
    return _tumble_keyed(game, level, tuple(triggers), reel_set, limit, start, drops)[:6]


def scatter_law(game: Game, level: int, reel_set: str = "base") -> np.ndarray:
    """Weight over the cycle of each scatter code
    (:func:`slotmath.engine.scatters.scatter_counts`) as the tumbles read
    it: the first drop's, or with ``triggers: sequence`` the whole
    sequence's (every scatter on the board in any drop, capped at the cells)."""
    return _tumble_keyed(game, level, (), reel_set, None, 0, 1)[6]


def _reel_set_of(game, level, triggers, reel_set, limit, start, drops) -> tuple:
    return (reel_set,)


@game_cache(_reel_set_of, maxsize=16)
def _tumble_keyed(
    game: Game, level: int, triggers: tuple, reel_set: str, limit: int | None, start: int, drops: int
):
    return _enumerated(game, level, triggers, reel_set, limit, start, drops)


def enumerated_tumbles(
    game: Game,
    level: int,
    triggers=(),
    reel_set: str = "base",
    limit: int | None = None,
    start: int = 0,
    drops: int = 1,
):
    """Exact law of (spin win, key) of a tumble spin over the full cycle:
    ``(wins [1/unit_den coins], key codes, counts, unit_den, total_bet,
    cycle)`` (the forward pass's form, :func:`slotmath.engine.joint.keyed_wins`);
    the key counts the trigger symbols on the first drop, or with
    ``triggers: sequence`` over the whole sequence.  ``start``: the
    progression's position the spin starts at (its ``start``-th value pays
    the first paying drop; ``reset: round``); with ``drops`` > 1 the key
    code is ``key + n x min(paying drops, drops - 1)``, ``n`` the number of
    trigger keys."""
    return _enumerated(game, level, triggers, reel_set, limit, start, drops)[:6]


def board_entries(game: Game, level: int, triggers=(), reel_set: str = "base") -> tuple:
    """The board multipliers' law before their values are drawn: ``(units,
    keys, scatter codes, M, counts, scatter units, unit_den, total_bet,
    cycle)`` per entry, ``units`` the spin's tumble pays [coins x unit_den
    / unit_den, as :func:`board_mix` reads them], ``M`` the multiplier
    symbols on its final board, the counts over ``cycle``."""
    at, counts, n_keys, sc_units, n_board, unit_den, total_bet, cycle, _ = _raw(
        game, level, triggers, reel_set, None, 0, 1
    )
    n_sc = len(sc_units)
    n_all = n_keys * n_sc * n_board
    units, code = at // n_all, at % n_all
    m, sc, key = code % n_board, (code // n_board) % n_sc, code // (n_board * n_sc)
    return units, key, sc, m, counts, sc_units, unit_den, total_bet, cycle


def _enumerated(game: Game, level: int, triggers, reel_set: str, limit, start: int, drops: int) -> tuple:
    """:func:`enumerated_tumbles` and the scatter law (:func:`scatter_law`)."""
    at, counts, n_keys, sc_units, n_board, unit_den, total_bet, cycle, sc_hist = _raw(
        game, level, triggers, reel_set, limit, start, drops
    )
    board = tumble_spec(game).board_on(reel_set)
    if board is None:
        return at // n_keys, at % n_keys, counts, unit_den, total_bet, cycle, sc_hist
    where = f"{game.source or game.name}: options.tumble.multiplier_symbols"
    wins, codes, counts, scale = board_mix(at, counts, board, n_keys, sc_units, n_board, unit_den, where)
    return wins, codes, counts, unit_den, total_bet, cycle * scale, sc_hist


def _raw(game: Game, level: int, triggers, reel_set: str, limit, start: int, drops: int) -> tuple:
    """The enumeration's entries before the board values are mixed in:
    ``(codes, counts, n_keys, sc_units, n_board, unit_den, total_bet,
    cycle, sc_hist)``."""
    from slotmath.engine.joint import INT64_SAFE

    cycle = game.cycle(reel_set)
    if cycle >= INT64_SAFE:
        raise OverflowError(f"cycle {cycle} is too large for exact int64 counts")
    check_tumble_cost(game, level, reel_set, limit, drops + 1 if drops > 1 else 1)
    strip, n_stops, dims, pays, mults = tumble_args(game, level, reel_set)
    mults = mults[min(start, len(mults) - 1) :]
    weights, sc_code, sc_units, key_code, n_keys, unit_den = first_drop(
        game, level, reel_set, tuple(triggers)
    )
    spec = tumble_spec(game)
    seq = sequence_args(game, tuple(triggers), spec.sequence)
    n_keys *= drops
    board = spec.board_on(reel_set)
    n_board = game.reels * game.rows + 1 if board else 1
    n_all = n_keys * (len(sc_units) if board else 1) * n_board
    top = drop_top(pays) * int(mults.max()) * MAX_TUMBLES * unit_den
    if top + int(sc_units.max(initial=0)) >= INT64_SAFE // n_all:
        raise EngineTooLarge(
            f"a tumble spin's win bound ({top:.3e} win units, {MAX_TUMBLES} drops at the largest "
            f"multiplier) does not fit int64 counts beside {n_keys} trigger keys; lower the multipliers",
            file=game.source or game.name,
            field="options.tumble",
        )
    dense, skeys, scounts, endless, _, sc_hist = enumerate_tumbles(
        strip,
        weights,
        n_stops,
        dims,
        pays,
        mults,
        sc_code,
        sc_units,
        key_code,
        n_keys,
        unit_den,
        np.zeros((0, game.reels), dtype=np.int64),
        n_board,
        seq,
        drops,
    )
    if endless:  # the game itself, not the method: simulate refuses it too (its sampler stops there)
        raise GameFileError(
            game.source or game.name,
            "options.tumble",
            f"{endless} stop vectors still pay after {MAX_TUMBLES} tumbles on reel set {reel_set!r}; "
            "the sequence would not end",
        )
    nz = np.flatnonzero(dense)
    at = np.concatenate([nz, skeys]).astype(np.int64)
    counts = np.concatenate([dense[nz], scounts]).astype(np.int64)
    ensure(int(counts.astype(object).sum()) == cycle, "tumble.py: the counts must sum to the cycle")
    total_bet = game.bet(level).total_bet
    return at, counts, n_keys, sc_units, n_board, unit_den, total_bet, cycle, sc_hist


def board_sums(board, most: int) -> list:
    """Law of the sum of ``m`` independent board multiplier values, ``m`` =
    0 .. ``most``: per ``m`` a dict {sum: integer weight}, the weights of
    ``m`` summing to (total weight)**m (``m`` = 0: {1: 1}, the spin's x1)."""
    out = [{1: 1}]
    if most >= 1:
        out.append(dict(zip(board.values, board.weights, strict=True)))
    for _ in range(2, most + 1):
        step: dict = {}
        for a, wa in out[-1].items():
            for v, wv in zip(board.values, board.weights, strict=True):
                step[a + v] = step.get(a + v, 0) + wa * wv
        out.append(step)
    return out


def board_mix(at, counts, board, n_keys: int, sc_units, n_board: int, unit_den: int, where: str) -> tuple:
    """Mix the board multipliers' values into :func:`enumerate_tumbles`'
    (tumble units, key) entries: ``(wins [1/unit_den coins], key codes,
    counts, scale)``, the counts exact integers over ``cycle x scale``,
    ``scale`` = (total weight)**(largest M on a paying board).  A paying
    entry with M multiplier symbols spreads over the sums of M values
    (:func:`board_sums`); its scatter units are added unmultiplied.
    Refused (:class:`EngineTooLarge`, one line) above
    :data:`MAX_BOARD_ENTRIES` mixed entries."""
    from slotmath.engine.joint import INT64_SAFE

    n_sc = len(sc_units)
    n_all = n_keys * n_sc * n_board
    units, code = at // n_all, at % n_all
    m, sc, key = code % n_board, (code // n_board) % n_sc, code // (n_board * n_sc)
    paying = (units > 0) & (m > 0)
    most = int(m[paying].max(initial=0))
    sums = board_sums(board, most)
    entries = sum(len(sums[int(k)]) for k in m[paying].tolist()) + int((~paying).sum())
    if entries > MAX_BOARD_ENTRIES:
        raise EngineTooLarge(
            f"{where}: the exact law would hold {entries:,} (win, key) entries (up to {most} multiplier "
            f"symbols on a paying board), above the bound {MAX_BOARD_ENTRIES:,}; "
            "run `slotmath simulate` instead"
        )
    total = sum(board.weights)
    scale = total**most
    top = int(units.max(initial=0)) * most * max(board.values) * unit_den + int(max(sc_units, default=0))
    if top >= INT64_SAFE:
        raise EngineTooLarge(
            f"{where}: a spin's win ({top:.3e} win units) does not fit int64; lower the values"
        )
    out: dict = {}
    for u, k, c, mm, s in zip(
        units.tolist(), key.tolist(), counts.tolist(), m.tolist(), sc.tolist(), strict=True
    ):
        extra = int(sc_units[s])
        if u == 0 or mm == 0:
            spread = {1: scale}
        else:
            lift = total ** (most - mm)
            spread = {v: w * lift for v, w in sums[mm].items()}
        for v, w in spread.items():
            at2 = (u * v * unit_den + extra, k)
            out[at2] = out.get(at2, 0) + int(c) * w
    pairs = sorted(out)
    wins = np.array([p[0] for p in pairs], dtype=np.int64)
    codes = np.array([p[1] for p in pairs], dtype=np.int64)
    return wins, codes, np.array([out[p] for p in pairs], dtype=object), scale


def tumble_rtp(game: Game, level: int, reel_set: str = "base", law: tuple | None = None) -> tuple:
    """(RTP of the pay rule's tumbles [x total bet, exact], scatter RTP [x total bet, exact])
    of the law :func:`tumble_keyed` (or ``law`` in its form, e.g. the fresh-draw chain's)."""
    from slotmath.engine.combinations import scatter_rtp

    law = tumble_keyed(game, level, (), reel_set) if law is None else law
    wins, _, counts, unit_den, total_bet, cycle = law
    total = sum((int(w) * int(c) for w, c in zip(wins.tolist(), counts.tolist(), strict=True)), 0)
    scatter = Fraction(0)
    if game.scatter_pays and tumble_spec(game).sequence:
        scatter = sequence_scatter_rtp(game, level, reel_set)
    elif game.scatter_pays:
        scatter = scatter_rtp(game, level, reel_set)[0]
    return Fraction(total, unit_den * total_bet * cycle) - scatter, scatter


def sequence_scatter_rtp(game: Game, level: int, reel_set: str = "base") -> Fraction:
    """Scatter RTP [x total bet, exact] of the tumbles' scatter law (:func:`scatter_law`)."""
    from slotmath.engine.scatters import scatter_counts, win_denominator

    total_bet = game.bet(level).total_bet
    unit_den = win_denominator(game, total_bet)
    units = scatter_counts(game, reel_set, total_bet, unit_den).pay_units
    hist = scatter_law(game, level, reel_set)
    paid = sum((int(h) * int(u) for h, u in zip(hist.tolist(), units.tolist(), strict=True)), 0)
    return Fraction(paid, unit_den * total_bet * game.cycle(reel_set))
