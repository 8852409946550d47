"""Spin-win law of a line reel set with drawn wild multipliers, without
writing the draws into the stops (``options.wild_multipliers`` whose rewrite
leaves the engine's counts: :func:`slotmath.features.wildmult.rewrite_refusal`),
keyed by the count of a trigger symbol (the free spin's retrigger key).

Method: a window's draws matter only through its *draw profile*.  Every
stop vector of the declared strips is listed once (no draw): each payline's
symbol tuple is labelled (:func:`slotmath.features.wilddraws.drawn_labels`)
by the entry that pays it whatever the draws, its fixed pay ``F`` [coins]
and the window cells of the drawn wilds it counts, or as *mixed* (which
entry pays depends on the draws).  A line without counted drawn wilds adds
``F`` to the window's fixed win; the others form the profile.  With
``combine: add`` and no mixed line the draw part is affine in the cells'
independent draws, ``sum_c a_c m_c`` (``a_c`` the sum of ``F`` over the
lines counting cell ``c``), so the profile is the sorted list of the
``a_c``; otherwise it is the sorted list of (``F``, cells) of its lines
(the mixed ones by their tuple).  Stop combinations are counted exactly
(int64) per (profile, trigger count, fixed win); each distinct profile's
law is then computed once, exactly (integer weights over ``T**u``, ``T``
the table's total, ``u`` its cells: a convolution of the scaled tables when
affine, else every draw of its cells, each line paying its best entry).

Error: a probability is ``sum (count / cycle) x (weight / T**u)``: both
quotients correctly rounded, their product rounded once (``3 u`` relative,
``u = 2**-53``), summed per (win, count) by Neumaier's compensated
summation of positive terms (``2 u + 2 n u**2``, ``n`` the terms): every
probability is within :attr:`DrawnLaw.bound` = ``6 u + 2 n u**2``.

Cost: the window pass lists :func:`drawn_law_cost` stop vectors (refused
above :data:`MAX_DRAWN_WINDOWS`); the draw pass lists, per distinct
profile, every draw of its cells or the convolution's terms, estimated
before it starts and refused above :data:`MAX_DRAW_TERMS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import lcm, prod

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slotmath.engine.distribution import WinDistribution
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.reels import windows
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.errors import ensure
from slotmath.features.wilddraws import line_candidates, tuple_labels
from slotmath.features.wildmult import load_wild_multipliers
from slotmath.model import Game

__all__ = [
    "MAX_DRAWN_WINDOWS",
    "MAX_DRAW_TERMS",
    "DrawnLaw",
    "drawn_keyed_law",
    "drawn_law_cost",
    "drawn_spin_law",
    "shows_wild",
]

#: most stop vectors :func:`drawn_keyed_law` lists (3.7e8 windows of 20 lines
#: took 177 s on a loaded 2-core machine)
MAX_DRAWN_WINDOWS = 10**8
#: most draws (or convolution terms) the distinct profiles' laws list
MAX_DRAW_TERMS = 2 * 10**7
_U = 2.0**-53
_GROUP = types.UniTuple(types.int64, 3)  # (profile, trigger count, fixed win)
_POINT = types.UniTuple(types.int64, 2)  # (win, trigger count)


def _wild_counts(game: Game, reel_set: str) -> list:
    """Per reel, the multiplier wilds each stop of nonzero weight shows."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnlaw.py: expected spec is not None")
    out = []
    for strip in game.strips(reel_set):
        n, w = len(strip.symbols), strip.stop_weights().tolist()
        shown = [[strip.symbols[(s + k) % n] for k in range(game.rows)].count(spec.symbol) for s in range(n)]
        out.append([k for k, x in zip(shown, w, strict=True) if x])
    return out


def drawn_law_cost(game: Game, reel_set: str = "base") -> int:
    """Stop vectors :func:`drawn_keyed_law` lists on ``reel_set``:
    ``prod_r`` (stops of nonzero weight of reel ``r``)."""
    return prod(len(ks) for ks in _wild_counts(game, reel_set))


def shows_wild(game: Game, reel_set: str) -> bool:
    """Whether a window of ``reel_set`` shows the multiplier wild."""
    return any(any(ks) for ks in _wild_counts(game, reel_set))


@dataclass(frozen=True)
class DrawnLaw:
    """Joint law of (spin win, trigger count) of one reel set.

    Attributes
    ----------
    wins : ndarray of int64
        Spin win (lines and scatters) [1/``unit`` coins].
    keys : ndarray of int64
        The trigger symbol's count in the window (0 without a trigger symbol).
    probabilities : ndarray of float64
        [probability], each within relative error ``bound``.
    unit : int
        Win units per coin.
    bound : float
        Relative error bound of each probability (module notes).
    profiles : int
        Distinct draw profiles.
    """

    wins: np.ndarray
    keys: np.ndarray
    probabilities: np.ndarray
    unit: int
    bound: float
    profiles: int


@nb.njit(cache=True)
def _neumaier(sums, comps, i, x):
    s = sums[i]
    t = s + x
    if abs(s) >= abs(x):
        comps[i] += (s - t) + x
    else:
        comps[i] += (x - t) + s
    sums[i] = t


@nb.njit(cache=True)
def _hash(buf, n):
    h = np.uint64(1469598103934665603)
    for i in range(n):
        for part in (buf[i] & 0xFFFFFFFF, (buf[i] >> 32) & 0xFFFFFFFF):
            h ^= np.uint64(part) + np.uint64(0x9E3779B97F4A7C15)
            h *= np.uint64(1099511628211)
            h ^= h >> np.uint64(29)
    return np.int64(h >> np.uint64(1))


@nb.njit(cache=True)
def _sort_pairs(buf, start, n):
    """Sort the ``n`` pairs ``buf[start + 2 i], buf[start + 2 i + 1]`` (insertion)."""
    for i in range(1, n):
        a, b = buf[start + 2 * i], buf[start + 2 * i + 1]
        j = i - 1
        while j >= 0 and (buf[start + 2 * j] > a or (buf[start + 2 * j] == a and buf[start + 2 * j + 1] > b)):
            buf[start + 2 * j + 2] = buf[start + 2 * j]
            buf[start + 2 * j + 3] = buf[start + 2 * j + 1]
            j -= 1
        buf[start + 2 * j + 2] = a
        buf[start + 2 * j + 3] = b


@nb.njit(cache=True)
def _profiles(
    sym,
    n_stops,
    stop_w,
    rows,
    S,
    entry,
    fixed,
    mask,
    mixed,
    line_cells,
    key_count,
    sc_count,
    sc_units,
    unit,
    add,
):
    """Window pass: exact stop-combination counts per (profile, trigger
    count, fixed win [units]); the profiles' contents (``[flag, n, items]``:
    flag 0 the sorted cell coefficients, 1 the sorted (F or -1 - line, cells
    or tuple) pairs) in ``data`` from ``starts``; ``clash`` when two
    profiles share a hash (then nothing is returned)."""
    R, H = sym.shape[0], sym.shape[2]
    L = rows.shape[0]
    n_cells = R * H
    prof_of = Dict.empty(key_type=types.int64, value_type=types.int64)
    groups = Dict.empty(key_type=_GROUP, value_type=types.int64)
    data = np.zeros(1024, dtype=np.int64)
    starts = np.zeros(64, dtype=np.int64)
    n_prof, used = 0, 0
    buf = np.zeros(2 + 2 * L + n_cells, dtype=np.int64)
    coef = np.zeros(n_cells, dtype=np.int64)
    items = np.zeros((L, 2), dtype=np.int64)
    stop = np.zeros(R, dtype=np.int64)
    J = sc_count.shape[0]
    t_head = np.zeros(L, dtype=np.int64)
    sc_head = np.zeros(J, dtype=np.int64)
    last = R - 1
    while True:  # reels 1..R-1 (the odometer), then every stop of the last reel
        w_head, key_head = 1, 0
        for r in range(last):
            w_head *= stop_w[r, stop[r]]
            key_head += key_count[r, stop[r]]
        for j in range(J):
            sc_head[j] = 0
            for r in range(last):
                sc_head[j] += sc_count[j, r, stop[r]]
        for line in range(L):
            t = 0
            for r in range(last):
                t = t * S + sym[r, stop[r], rows[line, r]]
            t_head[line] = t * S
        for s_last in range(n_stops[last] if w_head > 0 else 0):
            w = w_head * stop_w[last, s_last]
            if w == 0:
                continue
            key = key_head + key_count[last, s_last]
            const = 0
            for j in range(J):
                const += sc_units[j, sc_head[j] + sc_count[j, last, s_last]]
            n_items, has_mixed = 0, False
            for line in range(L):
                t = t_head[line] + sym[last, s_last, rows[line, last]]
                if entry[t] >= 0:
                    if mask[t] == 0:
                        const += fixed[t] * unit
                    else:
                        items[n_items, 0] = fixed[t]
                        items[n_items, 1] = line_cells[line, mask[t]]
                        n_items += 1
                elif mixed[t]:
                    items[n_items, 0] = -1 - line
                    items[n_items, 1] = t
                    n_items += 1
                    has_mixed = True
            if add and not has_mixed:
                for i in range(n_items):
                    cm = items[i, 1]
                    for c in range(n_cells):
                        if cm >> c & 1:
                            coef[c] += items[i, 0]
                n = 0
                for c in range(n_cells):
                    if coef[c]:
                        buf[2 + n] = coef[c]
                        coef[c] = 0
                        n += 1
                buf[2 : 2 + n].sort()
                buf[0], buf[1] = 0, n
                size = 2 + n
            else:
                for i in range(n_items):
                    buf[2 + 2 * i] = items[i, 0]
                    buf[3 + 2 * i] = items[i, 1]
                _sort_pairs(buf, 2, n_items)
                buf[0], buf[1] = 1, n_items
                size = 2 + 2 * n_items
            h = _hash(buf, size)
            if h in prof_of:
                pid = prof_of[h]
                s0 = starts[pid]
                same = starts[pid + 1] - s0 == size
                if same:
                    for i in range(size):
                        if data[s0 + i] != buf[i]:
                            same = False
                            break
                if not same:
                    return data[:0], starts[:0], np.zeros((0, 4), dtype=np.int64), True
            else:
                pid = n_prof
                prof_of[h] = pid
                while used + size > data.shape[0]:
                    data = np.concatenate((data, np.zeros(data.shape[0], dtype=np.int64)))
                if pid + 2 > starts.shape[0]:
                    starts = np.concatenate((starts, np.zeros(starts.shape[0], dtype=np.int64)))
                data[used : used + size] = buf[:size]
                used += size
                n_prof += 1
                starts[n_prof] = used
            g = (pid, key, const)
            if g in groups:
                groups[g] += w
            else:
                groups[g] = w
        r = last - 1  # the next stop vector of reels 1..R-1
        while r >= 0 and stop[r] == n_stops[r] - 1:
            stop[r] = 0
            r -= 1
        if r < 0:
            break
        stop[r] += 1
    out = np.zeros((len(groups), 4), dtype=np.int64)
    i = 0
    for g, w in groups.items():
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = g[0], g[1], g[2], w
        i += 1
    return data[:used], starts[: n_prof + 1], out, False


@nb.njit(cache=True)
def _combine(groups, group_p, law_start, law_wins, law_p):
    """``(wins, keys, sums, compensations, terms)``: every group's fixed win
    plus each point of its profile's law, Neumaier-summed per (win, key)."""
    index = Dict.empty(key_type=_POINT, value_type=types.int64)
    sums = np.zeros(64)
    comps = np.zeros(64)
    wins = np.zeros(64, dtype=np.int64)
    keys = np.zeros(64, dtype=np.int64)
    terms = 0
    for g in range(groups.shape[0]):
        pid, key, const = groups[g, 0], groups[g, 1], groups[g, 2]
        for j in range(law_start[pid], law_start[pid + 1]):
            at = (const + law_wins[j], key)
            if at in index:
                i = index[at]
            else:
                i = len(index)
                if i == sums.shape[0]:
                    sums = np.concatenate((sums, np.zeros(i)))
                    comps = np.concatenate((comps, np.zeros(i)))
                    wins = np.concatenate((wins, np.zeros(i, dtype=np.int64)))
                    keys = np.concatenate((keys, np.zeros(i, dtype=np.int64)))
                index[at] = i
                wins[i], keys[i] = at[0], at[1]
            _neumaier(sums, comps, i, group_p[g] * law_p[j])
            terms += 1
    n = len(index)
    return wins[:n], keys[:n], sums[:n], comps[:n], terms


def _bits(mask: int) -> list:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


def _profile_law(profile: list, spec, line_alternatives) -> dict:
    """Exact law ``{draw part [coins]: integer weight}`` over ``T**u`` of one
    profile (``u`` its cells), and ``u``."""
    flag, n, items = profile[0], profile[1], profile[2:]
    table = spec.table
    if flag == 0:  # affine: the convolution of the cells' scaled tables
        law = {0: 1}
        for a in items[:n]:
            nxt: dict = {}
            for v, q in law.items():
                for m, w in table:
                    nxt[v + a * m] = nxt.get(v + a * m, 0) + q * w
            law = nxt
        return law, n
    lines = []  # per line its alternatives [(F, cells)]
    union = 0
    for i in range(n):
        a, b = items[2 * i], items[2 * i + 1]
        alts = [(a, _bits(b))] if a >= 0 else line_alternatives(-1 - a, b)
        for _, cells in alts:
            for c in cells:
                union |= 1 << c
        lines.append(alts)
    cells = _bits(union)
    join = sum if spec.combine == "add" else prod
    law = {}
    for draw in product(table, repeat=len(cells)):
        m = {c: x for c, (x, _) in zip(cells, draw, strict=True)}
        q = prod(w for _, w in draw)
        v = sum(max(F * (join(m[c] for c in cs) if cs else 1) for F, cs in alts) for alts in lines)
        law[v] = law.get(v, 0) + q
    return law, len(cells)


def _profile_cost(profile: list, K: int, top: int, line_cells: np.ndarray) -> int:
    """Draws (or convolution terms) :func:`_profile_law` lists for ``profile``
    (a mixed line's cells bounded by its line's)."""
    flag, n, items = profile[0], profile[1], profile[2:]
    if flag == 0:
        cost, support, span = 0, 1, 0
        for a in items[:n]:
            span += a * top
            cost += support * K
            support = min(support * K, span + 1)
        return cost
    union = 0
    for i in range(n):
        a, b = items[2 * i], items[2 * i + 1]
        union |= b if a >= 0 else int(line_cells[-1 - a, -1])
    return K ** bin(union).count("1") * max(n, 1)


def drawn_keyed_law(
    game: Game, level: int, reel_set: str = "base", key_symbol: str | None = None
) -> DrawnLaw:
    """Joint law of the spin win (lines and scatters) of ``reel_set`` with
    its drawn wild multipliers and the count of ``key_symbol`` in the
    window [float64, each probability within :attr:`DrawnLaw.bound`]
    (module notes); refused in one line
    (:class:`~slotmath.engine.limits.EngineTooLarge`) above its cost bounds."""
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "drawnlaw.py: expected spec is not None")
    field = "options.wild_multipliers.table"
    windows_listed = drawn_law_cost(game, reel_set)
    if windows_listed > MAX_DRAWN_WINDOWS:
        raise EngineTooLarge(
            f"the drawn multipliers' law of reel set {reel_set!r} would list {windows_listed:.3g} windows, "
            f"above {MAX_DRAWN_WINDOWS:.0e}",
            file=game.source or game.name,
            field=field,
        )
    cycle = game.cycle(reel_set)
    ensure(cycle < 2**62, "drawnlaw.py: the cycle exceeds int64 counts")
    strips = game.strips(reel_set)
    R, H, S = game.reels, game.rows, len(game.symbols)
    n_max = max(len(s) for s in strips)
    sym = np.zeros((R, n_max, H), dtype=np.int64)
    stop_w = np.zeros((R, n_max), dtype=np.int64)
    for r, strip in enumerate(strips):
        sym[r, : len(strip)] = windows(game, strip)
        stop_w[r, : len(strip)] = strip.stop_weights()
    cp, drawn, (entry, fixed, _, mixed, mask) = tuple_labels(game, level)
    rows = np.array(game.paylines, dtype=np.int64).reshape(-1, R)
    L = rows.shape[0]
    line_cells = np.zeros((L, 1 << R), dtype=np.int64)  # line, position mask -> cell mask
    for line in range(L):
        for m in range(1 << R):
            line_cells[line, m] = sum(1 << (i * H + int(rows[line, i])) for i in range(R) if m >> i & 1)
    bet = game.bet(level).total_bet
    scatters = scatter_symbols(game)
    n_cells = R * H
    pays = [[scatter_pay(game, name, c) * bet for c in range(n_cells + 1)] for name in scatters]
    unit = lcm(1, *(Fraction(p).denominator for row in pays for p in row))
    sc_units = np.array([[int(p * unit) for p in row] for row in pays], dtype=np.int64).reshape(
        -1, n_cells + 1
    )
    sc_count = np.zeros((len(scatters), R, n_max), dtype=np.int64)
    for j, name in enumerate(scatters):
        sc_count[j] = (sym == game.symbol_index[name]).sum(axis=2)
    key_count = np.zeros((R, n_max), dtype=np.int64)
    if key_symbol is not None:
        key_count = (sym == game.symbol_index[key_symbol]).sum(axis=2).astype(np.int64)
    n_stops = np.array([len(s) for s in strips], dtype=np.int64)
    data, starts, groups, clash = _profiles(
        sym, n_stops, stop_w, rows, S, entry, fixed, mask, mixed, line_cells,
        key_count, sc_count, sc_units, unit, spec.combine == "add",
    )  # fmt: skip
    ensure(not clash, "drawnlaw.py: two draw profiles share a hash")
    profiles = [data[starts[i] : starts[i + 1]].tolist() for i in range(len(starts) - 1)]
    K, top = len(spec.table), max(m for m, _ in spec.table)
    terms = sum(_profile_cost(p, K, top, line_cells) for p in profiles)
    if terms > MAX_DRAW_TERMS:
        raise EngineTooLarge(
            f"the drawn multipliers' law of reel set {reel_set!r} would list {terms:.3g} draws over its "
            f"{len(profiles):,} draw profiles, above {MAX_DRAW_TERMS:.0e}",
            file=game.source or game.name,
            field=field,
        )

    def line_alternatives(line: int, t: int) -> list:  # a mixed line's entries: (F, cells)
        x = np.array(np.unravel_index(t, (S,) * R), dtype=np.int64)
        a, c = line_candidates(x, cp.arrays, drawn)
        return [
            (int(f), _bits(int(line_cells[line, m])))
            for f, m in zip(a.tolist(), c.tolist(), strict=True)
            if f > 0
        ]

    law_start, law_wins, law_p = [0], [], []
    for p in profiles:
        law, u = _profile_law(p, spec, line_alternatives)
        den = spec.total**u
        for v, q in sorted(law.items()):
            law_wins.append(v * unit)
            law_p.append(q / den)  # correctly rounded (int / int)
        law_start.append(len(law_wins))
    group_p = np.array([w / cycle for w in groups[:, 3].tolist()])
    wins, keys, sums, comps, n = _combine(
        groups, group_p, np.array(law_start, dtype=np.int64), np.array(law_wins, dtype=np.int64),
        np.array(law_p, dtype=np.float64),
    )  # fmt: skip
    order = np.lexsort((keys, wins))
    bound = 6 * _U + 2 * n * _U * _U
    return DrawnLaw(wins[order], keys[order], (sums + comps)[order], unit, bound, len(profiles))


def drawn_spin_law(game: Game, level: int, reel_set: str = "base") -> tuple:
    """``(law, bound)``: the law of the spin win of ``reel_set``
    (:func:`drawn_keyed_law`'s, its keys summed, Neumaier) as a
    :class:`~slotmath.engine.distribution.WinDistribution` [float64] and the
    relative error bound of each probability."""
    law = drawn_keyed_law(game, level, reel_set)
    uniq, inverse = np.unique(law.wins, return_inverse=True)
    sums, comps = np.zeros(len(uniq)), np.zeros(len(uniq))
    for i, x in zip(inverse.ravel().tolist(), law.probabilities.tolist(), strict=True):
        _neumaier(sums, comps, i, x)
    # a key-merged probability: the merged terms' bound, plus Neumaier over the keys
    bound = law.bound + 3 * _U
    return WinDistribution(uniq, sums + comps, law.unit, game.bet(level).total_bet), bound


def drawn_free_table(game: Game, level: int, spec) -> tuple:
    """A free spin of ``spec`` (:class:`~slotmath.features.options.FreeGamesSpec`)
    with its drawn multipliers: ``(d, table, unit)``, ``d`` the exact shift
    of its mean win the draws give [x total bet] (the line RTP of the free
    reel set with the draws, from the law of the counted wilds, less the one
    without), ``table`` the float law of (win [1/``unit`` coins], extra
    games) from :func:`drawn_keyed_law` keyed by the trigger count [each
    probability within its bound], its mean checked against the exact one
    within that bound."""
    from dataclasses import replace

    from slotmath.engine.payrule import pay_rule
    from slotmath.features.wilddraws import drawn_line_figures

    undrawn = replace(game, options={k: v for k, v in game.options.items() if k != "wild_multipliers"})
    reels, bet = spec.reels, game.bet(level).total_bet
    d = drawn_line_figures(game, level, reels).rtp - pay_rule(undrawn).channel_rtp(undrawn, level, reels)[0]
    law = drawn_keyed_law(game, level, reels, spec.symbol)
    extra = np.array([spec.retrigger_games(spec.count_of(int(k))) for k in law.keys.tolist()], dtype=np.int64)
    width = int(extra.max(initial=0)) + 1
    table = np.zeros((int(law.wins.max()) + 1, width))
    np.add.at(table, (law.wins, extra), law.probabilities)
    # the exact mean with the draws: the undrawn spin's lines and scatters, plus d
    exact = pay_rule(undrawn).channel_rtp(undrawn, level, reels)[0] + d + _scatter_mean(undrawn, level, reels)
    mean = float(np.dot(law.wins.astype(float), law.probabilities)) / (law.unit * bet)
    ensure(
        abs(mean - float(exact)) <= 4 * law.bound * float(exact) + 1e-15,
        f"drawnlaw.py: the drawn free spin's mean {mean!r} is not its exact {float(exact)!r}",
    )
    return d, table, law.unit


def _scatter_mean(game: Game, level: int, reel_set: str) -> Fraction:
    """Mean scatter win of one spin of ``reel_set`` [x total bet, exact]."""
    from slotmath.engine.combinations import combination_table

    table = combination_table(game, level, reel_set)
    return sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
