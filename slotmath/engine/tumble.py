"""Tumbles (cascading reels) with a strip refill: a spin stage wrapping a pay rule.

The rule (``options.tumble``, docs/features.md "Tumbles")
---------------------------------------------------------
After a paying evaluation of the window, every cell of every paying line
combination (the cells of the line's first ``n`` reels, ``n`` the length
of its winning pay entry) is removed; the symbols above fall down in each
reel and the gaps are refilled from the strip above the window: reel ``r``
stopped at ``s`` shows strip stops ``s .. s + rows - 1`` (top to bottom),
and the next symbols to fall are ``s - 1``, ``s - 2``, ... wrapping around
the cycle (the high-water mark of strip games).  Evaluation repeats until
no line pays.  The ``k``-th paying evaluation (k = 1, 2, ...) pays its
line win times the progression's ``k``-th value (the last value repeats);
the progression restarts at every spin (free spins included, with the
free games' progression on their reel set).  Scatters pay, and every
trigger (free games) counts, on the first drop only; a scatter is never
removed by its own pay, it falls with its reel.

Exactness
---------
The whole sequence is a function of the stop vector, so the exact law is
an enumeration of every stop vector of the cycle (integer stop weights),
each played to its end by :func:`tumble_line_units` in the compiled
:func:`enumerate_tumbles`: a histogram of the spin's total win in integer
units [1/unit_den coins] (and of its key, the first drop's trigger counts:
:func:`slotmath.engine.joint.key_codes`).  Its cost is estimated first
(:func:`tumble_cost`: stop vectors x the mean evaluations per spin measured
on a sample x lines) and refused above :data:`MAX_TUMBLE_STEPS`.
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slotmath.engine.cache import game_cache
from slotmath.engine.lines import line_outcome, line_outcomes
from slotmath.engine.tumble_spec import MAX_TUMBLES, tumble_spec
from slotmath.errors import EngineTooLarge, GameFileError, ensure
from slotmath.model import Game

__all__ = [
    "tumble_args",
    "tumble_line_units",
    "enumerate_tumbles",
    "tumble_cost",
    "tumble_keyed",
    "MAX_TUMBLE_STEPS",
    "MAX_TUMBLES",
]

#: line evaluations x lines the exact enumeration takes on before it refuses
MAX_TUMBLE_STEPS = 6 * 10**10
#: line steps per second of :func:`enumerate_tumbles` on one core (measured
#: on the avalanche5 data game, benchmarks/bench_tumbles.py)
TUMBLE_STEPS_PER_SECOND = 8e7
#: wins below this many units are counted in a dense array, above in a hash map
DENSE_UNITS = 1 << 14


# ------------------------------------------------------------ compiled play
@nb.njit(cache=True, inline="always")
def tumble_line_units(
    window, ptr, strip, n_stops, dims, cells, codes, offsets, label_coins, label_len, mults, removed, events
):
    """Line win of a whole tumble sequence [coins x multiplier] from the first
    ``window`` (cell ``reel x rows + row``, row 0 at the top) and ``ptr`` (per
    reel, the strip stop that falls next); both are changed.  Returns
    (win, paying evaluations), evaluations ``-1`` past :data:`MAX_TUMBLES`.
    The first drop's line wins are counted in ``events`` (one per label, the
    combination table's rows) when it is not empty."""
    R, L, S, H, first = dims[0], dims[1], dims[2], dims[3], dims[4]
    M = mults.shape[0]
    total = 0
    k = 0
    while True:
        coins = 0
        for c in range(R * H):
            removed[c] = 0
        for line in range(L):
            v = line_outcome(window, line, cells, S, first, codes, offsets)
            if v > 0:
                coins += label_coins[v - 1]
                if k == 0 and events.shape[0] > 0:
                    events[v - 1] += 1
                for j in range(label_len[v - 1]):
                    removed[cells[line, j]] = 1
        if coins == 0:
            return total, k
        total += coins * mults[min(k, M - 1)]
        k += 1
        if k > dims[5]:
            return total, -1
        for r in range(R):
            w = H - 1
            for row in range(H - 1, -1, -1):
                if removed[r * H + row] == 0:
                    window[r * H + w] = window[r * H + row]
                    w -= 1
            while w >= 0:
                window[r * H + w] = strip[r, ptr[r]]
                ptr[r] = ptr[r] - 1 if ptr[r] > 0 else n_stops[r] - 1
                w -= 1


@nb.njit(cache=True, inline="always")
def drop_window(stop, window, ptr, strip, n_stops, H):
    """The first window of ``stop`` and the next stop to fall on each reel."""
    for r in range(stop.shape[0]):
        n = n_stops[r]
        for k in range(H):
            at = stop[r] + k  # below 2 n (the window is no taller than the strip): no division
            window[r * H + k] = strip[r, at - n if at >= n else at]
        ptr[r] = stop[r] - 1 if stop[r] > 0 else n - 1


@nb.njit(cache=True)
def enumerate_tumbles(
    strip,
    weights,
    n_stops,
    dims,
    cells,
    codes,
    offsets,
    label_coins,
    label_len,
    mults,
    sc_code,
    sc_units,
    key_code,
    n_keys,
    unit_den,
    sample,
):
    """Every stop vector of the cycle played to its end (or the stop vectors
    of ``sample``, shape (n, R), when it has rows: the cost estimate).

    Returns (dense counts by ``units x n_keys + key`` below
    :data:`DENSE_UNITS` units, sparse (keys, counts) above, vectors past
    :data:`MAX_TUMBLES`, evaluations played); a win is ``unit_den x line
    units + scatter units`` [1/unit_den coins], counts are stop weights."""
    R, H = dims[0], dims[3]
    dense = np.zeros(DENSE_UNITS * n_keys, dtype=np.int64)
    sparse = Dict.empty(key_type=types.int64, value_type=types.int64)
    window = np.empty(R * H, dtype=np.int64)
    ptr = np.empty(R, dtype=np.int64)
    removed = np.empty(R * H, dtype=np.int64)
    no_events = np.zeros(0, dtype=np.int64)  # the enumeration counts no events
    stop = np.zeros(R, dtype=np.int64)
    endless = 0
    evaluations = 0
    n_sample = sample.shape[0]
    i = 0
    while True:
        if n_sample:
            if i == n_sample:
                break
            stop[:] = sample[i]
        w = 1
        sc = 0
        key = 0
        for r in range(R):
            w *= weights[r, stop[r]]
            sc += sc_code[r, stop[r]]
            key += key_code[r, stop[r]]
        if w > 0 or n_sample:
            drop_window(stop, window, ptr, strip, n_stops, H)
            units, k = tumble_line_units(
                window,
                ptr,
                strip,
                n_stops,
                dims,
                cells,
                codes,
                offsets,
                label_coins,
                label_len,
                mults,
                removed,
                no_events,
            )
            if k < 0:
                endless += 1
                k = dims[5]
            evaluations += k + 1
            units = units * unit_den + sc_units[sc]
            if units < DENSE_UNITS:
                dense[units * n_keys + key] += w
            else:
                at = units * n_keys + key
                sparse[at] = sparse.get(at, 0) + w
        i += 1
        if not n_sample:  # the next stop vector (odometer, last reel fastest)
            r = R - 1
            while r >= 0:
                stop[r] += 1
                if stop[r] < n_stops[r]:
                    break
                stop[r] = 0
                r -= 1
            if r < 0:
                break
    keys = np.empty(len(sparse), dtype=np.int64)
    counts = np.empty(len(sparse), dtype=np.int64)
    j = 0
    for a, c in sparse.items():
        keys[j] = a
        counts[j] = c
        j += 1
    return dense, keys, counts, endless, evaluations


# ------------------------------------------------------------ arrays
def tumble_args(game: Game, level: int, reel_set: str = "base", first: int = 3) -> tuple:
    """Arrays of :func:`tumble_line_units`: ``(strip, n_stops, dims, cells,
    codes, offsets, label_coins, label_len, mults)``; ``dims`` = (reels,
    lines, symbols, rows, first, :data:`MAX_TUMBLES`), ``label_coins``
    [coins] and ``label_len`` (cells removed) of each line outcome code
    (the prefix tables of :func:`slotmath.engine.lines.prefix_determined`)."""
    from slotmath.engine.reels import strip_indices

    spec = tumble_spec(game)
    if spec is None:
        raise ValueError(f"{game.name}: declares no options.tumble")
    strips = game.strips(reel_set)
    R, S, L, H = game.reels, len(game.symbols), len(game.paylines), game.rows
    n_max = max(len(s) for s in strips)
    strip = np.zeros((R, n_max), dtype=np.int64)
    for r, s in enumerate(strips):
        strip[r, : len(s)] = strip_indices(game, s)
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    cells, codes, offsets, entries, _, label_coins = line_outcomes(game, level)
    label_len = np.array([len(game.line_pays[e].positions) for e in entries.tolist()], dtype=np.int64)
    mults = np.array(spec.progression(reel_set), dtype=np.int64)
    dims = np.array([R, L, S, H, max(1, min(first, R)), MAX_TUMBLES], dtype=np.int64)
    return strip, n_stops, dims, cells, codes, offsets, label_coins, label_len, mults


def _first_drop(game: Game, level: int, reel_set: str, triggers) -> tuple:
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


def tumble_cost(game: Game, level: int, reel_set: str = "base", samples: int = 2048) -> tuple:
    """(stop vectors, mean evaluations per spin on a seeded sample of
    ``samples`` uniform stop vectors, estimated line steps) of the exact
    enumeration."""
    args = tumble_args(game, level, reel_set)
    strip, n_stops, dims = args[0], args[1], args[2]
    weights, sc_code, sc_units, key_code, n_keys, unit_den = _first_drop(game, level, reel_set, ())
    rng = np.random.default_rng(20261202)
    sample = np.stack([rng.integers(0, n, samples) for n in n_stops.tolist()], axis=1).astype(np.int64)
    *_, evaluations = enumerate_tumbles(  # type: ignore[call-arg]
        strip, weights, n_stops, dims, *args[3:], sc_code, sc_units, key_code, 1, unit_den, sample
    )
    vectors = int(np.prod(n_stops.astype(object)))
    mean = evaluations / samples
    return vectors, mean, vectors * mean * int(dims[1])


def check_tumble_cost(game: Game, level: int, reel_set: str = "base", limit: int | None = None) -> None:
    """Refuse (:class:`EngineTooLarge`, one line) an enumeration whose
    estimate (:func:`tumble_cost`) passes ``limit`` (:data:`MAX_TUMBLE_STEPS`)."""
    vectors, mean, steps = tumble_cost(game, level, reel_set)
    bound = MAX_TUMBLE_STEPS if limit is None else limit
    if steps > bound:
        raise EngineTooLarge(
            f"{game.source or game.name}: options.tumble: the exact tumble law on reel set {reel_set!r} "
            f"would play {vectors:.3g} stop vectors x {mean:.3g} evaluations x {len(game.paylines)} lines "
            f"= {steps:.2e} line steps (about {steps / TUMBLE_STEPS_PER_SECOND:,.0f} s on one core), "
            f"above the bound {bound:.0e}; run `slotmath simulate` instead"
        )


def tumble_keyed(game: Game, level: int, triggers=(), reel_set: str = "base", limit: int | None = None):
    """:func:`enumerated_tumbles` (cached on the game's value, the level, the
    triggers and the reel set's strips)."""
    return _tumble_keyed(game, level, tuple(triggers), reel_set, limit)


def _reel_set_of(game, level, triggers, reel_set, limit) -> tuple:
    return (reel_set,)


@game_cache(_reel_set_of, maxsize=8)
def _tumble_keyed(game: Game, level: int, triggers: tuple, reel_set: str, limit: int | None):
    return enumerated_tumbles(game, level, triggers, reel_set, limit)


def enumerated_tumbles(game: Game, level: int, triggers=(), reel_set: str = "base", limit: int | None = None):
    """Exact law of (spin win, first-drop key) of a tumble spin over the
    full cycle: ``(wins [1/unit_den coins], key codes, counts, unit_den,
    total_bet, cycle)`` (the forward pass's form, :func:`slotmath.engine.joint.keyed_wins`)."""
    from slotmath.engine.joint import INT64_SAFE

    cycle = game.cycle(reel_set)
    if cycle >= INT64_SAFE:
        raise OverflowError(f"cycle {cycle} is too large for exact int64 counts")
    check_tumble_cost(game, level, reel_set, limit)
    args = tumble_args(game, level, reel_set)
    strip, n_stops, dims = args[0], args[1], args[2]
    weights, sc_code, sc_units, key_code, n_keys, unit_den = _first_drop(
        game, level, reel_set, tuple(triggers)
    )
    top = int(args[6].max(initial=0)) * int(dims[1]) * int(args[8].max()) * MAX_TUMBLES * unit_den
    if top + int(sc_units.max(initial=0)) >= INT64_SAFE // max(n_keys, 1):
        raise EngineTooLarge(
            f"a tumble spin's win bound ({top:.3e} win units, {MAX_TUMBLES} drops at the largest "
            f"multiplier) does not fit int64 counts beside {n_keys} trigger keys; lower the multipliers",
            file=game.source or game.name,
            field="options.tumble",
        )
    dense, skeys, scounts, endless, _ = enumerate_tumbles(  # type: ignore[call-arg]
        strip,
        weights,
        n_stops,
        dims,
        *args[3:],
        sc_code,
        sc_units,
        key_code,
        n_keys,
        unit_den,
        np.zeros((0, game.reels), dtype=np.int64),
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
    return at // n_keys, at % n_keys, counts, unit_den, game.bet(level).total_bet, cycle


def tumble_rtp(game: Game, level: int, reel_set: str = "base") -> tuple:
    """(line RTP of the tumbles [x total bet, exact], scatter RTP [x total bet, exact])."""
    from slotmath.engine.combinations import scatter_rtp

    wins, _, counts, unit_den, total_bet, cycle = tumble_keyed(game, level, (), reel_set)
    total = sum((int(w) * int(c) for w, c in zip(wins.tolist(), counts.tolist(), strict=True)), 0)
    scatter = scatter_rtp(game, level, reel_set)[0] if game.scatter_pays else Fraction(0)
    return Fraction(total, unit_den * total_bet * cycle) - scatter, scatter
