"""Piggy Bankin' Superlock: feature screens (joint line win, mask, flag, BONUS
by enumeration) and the prize distributions."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slotmath.engine.cache import game_cache, no_sets
from slotmath.engine.distribution import WinDistribution
from slotmath.engine.hashtable import dict_arrays
from slotmath.engine.joint import spin_distribution
from slotmath.engine.lines import pay_tensor
from slotmath.engine.reels import window_game
from slotmath.engine.stopwalk import enter_reel, next_stop
from slotmath.errors import ensure
from slotmath.features import wheel as wheel_mod
from slotmath.features.lockit_round import ShapePrizes, shape_classes
from slotmath.model import Game
from slotmath.rules.piggy_bankin_superlock.cache import feature_sets, this_set
from slotmath.rules.piggy_bankin_superlock.check import BASE, BASE_REELS, BATCH, FREE, LINES, POLICIES
from slotmath.rules.piggy_bankin_superlock.structure import (
    ReelData,
    features_of,
    game_lockit_chain,
    popcount15,
    reel_classes,
    reel_data,
    structure,
)


# ===========================================================================
# feature screens: joint (line win, mask, flag, BONUS) by enumeration
# ===========================================================================
@nb.njit(cache=True)
def candidate_table(cls_start, cls_order, max_p, max_b, min_pigs, min_bonus):
    """Stops of each reel r after which a feature can still start, for every
    (PIGGY, BONUS) count ``(p, b)`` of the reels before it: ``flat[start[r, p,
    b]:start[r, p, b] + size[r, p, b]]``.  ``max_*[r]``: the most reels r..
    can add; stops are grouped by class ``(H + 1) pigs + BONUS``."""
    R = cls_start.shape[0]
    k = cls_start.shape[1] - 1  # classes (H + 1)**2
    h1 = int(np.sqrt(k) + 0.5)
    top = (h1 - 1) * R + 1
    start = np.zeros((R, top, top), dtype=np.int64)
    size = np.zeros((R, top, top), dtype=np.int64)
    flat = np.zeros(R * top * top * cls_order.shape[1], dtype=np.int64)
    n = 0
    for r in range(R):
        need_p, need_b = min_pigs - max_p[r + 1], min_bonus - max_b[r + 1]
        for p in range(top):
            for b in range(top):
                start[r, p, b] = n
                for c in range(k):
                    if p + c // h1 >= need_p or b + c % h1 >= need_b:
                        for j in range(cls_start[r, c], cls_start[r, c + 1]):
                            flat[n] = cls_order[r, j]
                            n += 1
                size[r, p, b] = n - start[r, p, b]
    return flat[:n], start, size


@nb.njit(cache=True)
def feature_screens(
    sym,
    weight,
    n_stops,
    pattern,
    mark,
    bonus,
    lines,
    tables,
    offsets,
    S,
    min_pigs,
    min_bonus,
    pigs_of,
    cls_start,
    cls_order,
    suffix_f,
    suffix_q,
    suffix_at,
    last_f,
    last_q,
    n_b,
):
    """Every stop combination that starts a feature (pigs >= ``min_pigs`` or
    BONUS >= ``min_bonus``), aggregated by (line win, BONUS, flag, mask), or
    -- given suffix tables -- the sums ``sum count win f(flag, mask, BONUS)``
    and ``sum count [win = 0] q(flag, mask, BONUS)`` over them.

    Depth-first walk over the reels with an explicit stack (any reel count).
    Stops are visited by class (pigs, BONUS) so that only prefixes that can
    still start a feature are expanded; a payline whose win its prefix
    already fixes (``tables``, :func:`slotmath.engine.lines.prefix_determined`
    concatenated at ``offsets``) is not looked up again below that prefix.
    With suffix tables (``suffix_at`` not empty, :func:`suffix_tables`; the
    screen's own table ``last_*``), a prefix whose every line is fixed is not
    expanded: its line win times the table entry of its (flag, BONUS, mask)
    is the sum over all its completions.

    Returns (keys, counts, win_f, quiet_q); without tables key = ((win *
    (R H + 1) + bonus) * 2 + flag) * 2**(R H) + mask, win in the units of
    ``tables``; with tables keys and counts are empty.
    """
    R, H, L = sym.shape[0], sym.shape[2], lines.shape[0]
    B = R * H + 1
    M = 1 << (R * H)
    max_p = np.zeros(R + 1, dtype=np.int64)  # most PIGGY / BONUS reels r.. can add
    max_b = np.zeros(R + 1, dtype=np.int64)
    for r in range(R - 1, -1, -1):
        mp, mb = 0, 0
        for s in range(n_stops[r]):
            if weight[r, s] > 0:
                mp = max(mp, pigs_of[pattern[r, s]])
                mb = max(mb, bonus[r, s])
        max_p[r] = max_p[r + 1] + mp
        max_b[r] = max_b[r + 1] + mb
    out = Dict.empty(key_type=types.int64, value_type=types.int64)
    sums = suffix_at.shape[0] > 0
    win_f = 0.0
    quiet_q = 0
    cand, c_start, c_size = candidate_table(cls_start, cls_order, max_p, max_b, min_pigs, min_bonus)
    pos = np.zeros(R, dtype=np.int64)
    end = np.zeros(R, dtype=np.int64)
    pidx = np.zeros((R + 1, L), dtype=np.int64)  # tensor index of each live line's prefix
    live = np.zeros((R + 1, L), dtype=np.int64)  # live lines after reels < level
    n_live = np.zeros(R + 1, dtype=np.int64)
    fixed = np.zeros(R + 1, dtype=np.int64)  # win of the lines already fixed
    pigs = np.zeros(R + 1, dtype=np.int64)
    bon = np.zeros(R + 1, dtype=np.int64)
    msk = np.zeros(R + 1, dtype=np.int64)
    flg = np.zeros(R + 1, dtype=np.int64)
    wt = np.ones(R + 1, dtype=np.int64)
    for line in range(L):
        live[0, line] = line
    n_live[0] = L
    level = enter_reel(pos, end, 0, c_start[0, 0, 0], c_start[0, 0, 0] + c_size[0, 0, 0])
    while level >= 0:
        if not next_stop(pos, end, level):
            level -= 1
            continue
        s = cand[pos[level]]
        nxt = level + 1
        pigs[nxt] = pigs[level] + pigs_of[pattern[level, s]]
        bon[nxt] = bon[level] + bonus[level, s]
        msk[nxt] = msk[level] | (pattern[level, s] << (level * H))
        flg[nxt] = flg[level] | mark[level, s]
        wt[nxt] = wt[level] * weight[level, s]
        off = offsets[level]
        acc = fixed[level]
        n = 0
        for i in range(n_live[level]):
            line = live[level, i]
            q = pidx[level, line] * S + sym[level, s, lines[line, level]]
            v = tables[off + q]
            if v < 0:
                pidx[nxt, line] = q
                live[nxt, n] = line
                n += 1
            else:
                acc += v
        if sums and (n == 0 or nxt == R):  # every completion has line win acc
            at = ((flg[nxt] * n_b + bon[nxt]) << (nxt * H)) + msk[nxt]
            if nxt == R:
                qv, fv = last_q[at], last_f[at]
            else:
                qv, fv = suffix_q[suffix_at[nxt] + at], suffix_f[suffix_at[nxt] + at]
            if acc == 0:
                quiet_q += wt[nxt] * qv
            else:
                win_f += float(wt[nxt]) * acc * fv
            continue
        if nxt == R:  # every line is fixed at full length
            key = ((acc * B + bon[nxt]) * 2 + flg[nxt]) * M + msk[nxt]
            out[key] = out.get(key, 0) + wt[nxt]
            continue
        fixed[nxt] = acc
        n_live[nxt] = n
        first = c_start[nxt, pigs[nxt], bon[nxt]]
        level = enter_reel(pos, end, nxt, first, first + c_size[nxt, pigs[nxt], bon[nxt]])
    keys, vals = dict_arrays(out)
    return keys, vals, win_f, quiet_q


def stop_classes(d: ReelData, pigs_of: np.ndarray):
    """Stops of every reel ordered by class ``(H + 1) pigs + BONUS`` (weight > 0 only):
    ``cls_order[r, cls_start[r, c]:cls_start[r, c + 1]]`` are the stops of class c."""
    R, nmax, H = d.sym.shape
    k = (H + 1) ** 2
    cls_start = np.zeros((R, k + 1), dtype=np.int64)
    cls_order = np.zeros((R, nmax), dtype=np.int64)
    for r in range(R):
        stops = np.flatnonzero(d.weight[r] > 0)
        cls = (H + 1) * pigs_of[d.pattern[r, stops]] + d.bonus[r, stops]
        order = np.argsort(cls, kind="stable")
        cls_order[r, : len(stops)] = stops[order]
        cls_start[r, 1:] = np.cumsum(np.bincount(cls, minlength=k))
    return cls_start, cls_order


@game_cache(no_sets, maxsize=16)
def prefix_tables(game, level):
    """:func:`slotmath.engine.lines.prefix_determined` of the pay table at ``level``,
    concatenated: ``(tables, offsets)``."""
    from slotmath.engine.lines import prefix_determined

    prefix = prefix_determined(pay_tensor(game, level))
    return (np.concatenate(prefix), np.cumsum([0] + [len(t) for t in prefix[:-1]]).astype(np.int64))


def walk_feature_screens(game, reel_set, level):
    """The feature-starting stop combinations of ``reel_set`` of a window game
    (:func:`slotmath.engine.reels.window_game`) aggregated by (line win [coins at ``level``],
    BONUS, flag, mask): arrays ``(win, bonus, flag, mask, count)`` in key order."""
    keys, vals, _, _ = run_feature_walk(game, reel_set, level, None)
    order = np.argsort(keys)
    keys, vals = keys[order], vals[order]
    cells = game.reels * game.rows
    rest = keys >> cells
    return (rest // (2 * (cells + 1)), (rest // 2) % (cells + 1), rest % 2, keys % (1 << cells), vals)


def feature_screen_sums(game, reel_set, level, f, q):
    """``(sum count x win x f, sum count x [win = 0] x q)`` over the
    feature-starting stop combinations of ``reel_set`` of a window game
    [coins at ``level`` x f, stop combinations x q], ``f`` (float) and ``q``
    (integer) arrays [flag, BONUS, mask] of shape (2, n_b, 2**(R H)) that are
    0 off the feature starts; the walk does not visit each combination
    (:func:`suffix_tables`)."""
    _, _, win_f, quiet_q = run_feature_walk(game, reel_set, level, (f, q))
    return win_f, int(quiet_q)


def run_feature_walk(game, reel_set, level, suffix):
    """:func:`feature_screens` on ``reel_set`` of a window game; with
    ``suffix = (f, q)`` through their suffix tables."""
    f = features_of(game)
    d = reel_data(game, reel_set)
    tables, offsets = prefix_tables(game, level)
    pigs_of = popcount15(game.rows)
    cls_start, cls_order = stop_classes(d, pigs_of)
    if suffix is None:
        lf, lq, n_b = np.zeros(0), np.zeros(0, dtype=np.int8), 0
        sf, sq, at = lf, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    else:
        lf, lq, n_b = suffix[0].ravel(), suffix[1].ravel(), suffix[0].shape[1]
        sf, sq, at = suffix_tables(lf, lq, d.pattern, d.mark, d.bonus, d.weight, d.n_stops, game.rows, n_b)
    return feature_screens(
        d.sym,
        d.weight,
        d.n_stops,
        d.pattern,
        d.mark,
        d.bonus,
        np.array(game.paylines, dtype=np.int64),
        tables,
        offsets,
        len(game.symbols),
        f.lockit.trigger,
        f.free_games.min_count,
        pigs_of,
        cls_start,
        cls_order,
        sf,
        sq,
        at,
        lf,
        lq,
        n_b,
    )


@nb.njit(cache=True)
def suffix_tables(f_last, q_last, pattern, mark, bonus, weight, n_stops, H, n_b):
    """Suffix sums of a function of the whole screen's (flag, BONUS, mask).

    ``f_last``, ``q_last``: flattened [flag, BONUS, mask] arrays of the
    screen (shape (2, n_b, 2**(R H))).  For every prefix length r = 0..R-1
    the table of r reels holds, at ``at[r] + (flag n_b + BONUS) 2**(r H) +
    mask`` (the prefix's flag, BONUS count and mask), the weighted sum of
    ``f`` (``q``) over every completion by reels r..R-1 (for r = R the
    arrays themselves, not copied).  Returns (f, q, at)."""
    R = pattern.shape[0]
    at = np.zeros(R + 1, dtype=np.int64)
    for r in range(1, R + 1):
        at[r] = at[r - 1] + (2 * n_b << ((r - 1) * H))
    tf = np.zeros(at[R])
    tq = np.zeros(at[R], dtype=np.int64)
    reach = np.zeros(R + 1, dtype=np.int64)  # most BONUS reels < r show
    for r in range(R):
        most = 0
        for s in range(n_stops[r]):
            if weight[r, s] > 0:
                most = max(most, bonus[r, s])
        reach[r + 1] = reach[r] + most
    for r in range(R - 1, -1, -1):
        classes = reel_classes(pattern, mark, bonus, weight, n_stops[r], r, H)
        if r == R - 1:
            suffix_step(tf, tq, at[r], f_last, q_last, 0, classes, r * H, H, n_b, reach[r])
        else:
            suffix_step(tf, tq, at[r], tf, tq, at[r + 1], classes, r * H, H, n_b, reach[r])
    return tf, tq, at


@nb.njit(cache=True)
def suffix_step(tf, tq, here, nf, nq, there, classes, shift, H, n_b, reach):
    """One reel of :func:`suffix_tables`: the table of the prefix of reels
    before it (at ``here`` in ``tf``/``tq``) from the table one reel longer
    (at ``there`` in ``nf``/``nq``) and the reel's stop classes."""
    size = 1 << shift
    for p, mk, bb, w in classes:
        for fl in range(2):
            for b in range(min(n_b - bb, reach + 1)):
                src = here + (fl * n_b + b) * size
                dst = there + (((fl | mk) * n_b + b + bb) << (shift + H)) + (p << shift)
                for m in range(size):
                    tf[src + m] += w * nf[dst + m]
                    tq[src + m] += w * nq[dst + m]


@dataclass(frozen=True, eq=False)
class Screens:
    """Outcomes of one spin of a reel set by what the round does next.

    ``plain[w]``: stop combinations with line win ``w`` [u] and no feature;
    ``win, bonus, flag, mask, count``: the feature-starting combinations,
    aggregated.  Exact integer counts; ``cycle`` their total."""

    plain: np.ndarray
    win: np.ndarray
    bonus: np.ndarray
    flag: np.ndarray
    mask: np.ndarray
    count: np.ndarray
    cycle: int


def screens(game: Game, reel_set: str) -> Screens:
    """Enumerate the feature-starting screens of ``reel_set`` (bet independent)."""
    return reel_set_screens(game, reel_set)


@game_cache(this_set, maxsize=8)
def reel_set_screens(game, reel_set):
    game = window_game(game, reel_set)
    unit = game.levels[0]
    win, bonus, flag, mask, vals = walk_feature_screens(game, reel_set, unit)
    if (win % unit).any():
        raise ValueError("a line win is not a whole number of bet-multiplier units")
    win = win // unit
    all_lines = spin_distribution(game, game.levels[0], reel_set)
    ensure(all_lines.unit_den == 1, "screens.py: expected all_lines.unit_den == 1")
    plain = np.zeros(int(max(all_lines.wins.max() // unit, win.max(initial=0))) + 1, dtype=np.int64)
    plain[all_lines.wins // unit] = np.array(all_lines.weights, dtype=np.int64)
    np.subtract.at(plain, win, vals)
    ensure(plain.min() >= 0, "screens.py: expected plain.min() >= 0")
    return Screens(plain, win, bonus, flag, mask, vals, game.cycle(reel_set))


# ===========================================================================
# prize distributions
# ===========================================================================
@game_cache(no_sets, maxsize=8)
def lockit_shape_classes(game):
    return shape_classes(game, features_of(game).lockit)


class PrizeDistributions(ShapePrizes):
    """Distributions of the final lock-it prize [x total bet] for one award
    table at one bet, by shape-count vector (memoised convolutions, see
    :class:`slotmath.features.lockit_round.ShapePrizes`)."""

    def __init__(self, game: Game, table: str, level: int):
        f = features_of(game)
        shapes = f.lockit.awards.distributions(table, level)
        super().__init__(shapes, wheel_mod.distribution(f.wheel), *lockit_shape_classes(game))


def add_shifted(a: np.ndarray, b: np.ndarray, shift: int = 0) -> np.ndarray:
    """``a + b`` shifted by ``shift`` points, padding the shorter."""
    n = max(len(a), len(b) + shift)
    out = np.zeros(n)
    out[: len(a)] += a
    out[shift : shift + len(b)] += b
    return out


def upsample(p: np.ndarray, factor: int) -> np.ndarray:
    out = np.zeros((len(p) - 1) * factor + 1)
    out[::factor] = p
    return out


@game_cache(lambda game, reel_set, *args: tuple(sorted({reel_set, *feature_sets(game)})), maxsize=64)
def group_finals(game, reel_set, source, bonus, spins):
    """Final (flag, mask) per distinct line win among screens starting the
    lock-it ``source`` (pigs trigger when ``bonus`` is None, else with that
    BONUS count): list of (win [u], weight [stop combinations], final)."""
    sc = screens(game, reel_set)
    f = features_of(game)
    pigs = popcount15()[sc.mask] >= f.lockit.trigger
    if bonus is None:
        sel = pigs & (sc.bonus < f.free_games.min_count)
    else:
        sel = sc.bonus == bonus
        if (sel & pigs).any():
            raise NotImplementedError(
                "screens with both a lock-it trigger and a selection "
                "need per-screen convolution (absent from this game's strips)"
            )
    chain = game_lockit_chain(game, source, spins)
    mark_paid = f.lockit.sources[source].mark_award
    n_masks = 1 << (game.reels * game.rows)
    wins, inverse = np.unique(sc.win[sel], return_inverse=True)
    flag, mask, count = sc.flag[sel], sc.mask[sel], sc.count[sel].astype(float)
    totals = np.bincount(inverse, weights=count, minlength=len(wins))
    starts, s_inv = np.unique(flag * n_masks + mask, return_inverse=True)
    if len(starts) < len(wins):
        # fewer distinct starts than wins: play each start once and mix the
        # finals per win (the chain is linear in its start distribution)
        fin_s = run_groups(
            chain,
            starts // n_masks,
            np.arange(len(starts)),
            starts % n_masks,
            np.ones(len(starts)),
            len(starts),
            n_masks,
        )
        mix = np.zeros((len(wins), len(starts)))
        np.add.at(mix, (inverse, s_inv), count)
        fin = np.einsum("ws,fsm->fwm", mix / totals[:, None], fin_s)
    else:
        fin = run_groups(chain, flag, inverse, mask, count, len(wins), n_masks)
    out = []
    for j in range(len(wins)):
        fj = fin[:, j]
        if not mark_paid:
            fj = np.stack([fj.sum(axis=0), np.zeros_like(fj[0])])
        out.append((int(wins[j]), int(round(totals[j])), fj))
    return out


def run_groups(chain, flag, group, mask, weight, n_groups, n_masks) -> np.ndarray:
    """Final (flag, mask) distribution of each group's start distribution
    (``weight`` at ``(flag, mask)`` for group ``group``, normalised per group),
    ``BATCH`` groups per chain run; shape (2, n_groups, n_masks)."""
    out = np.empty((2, n_groups, n_masks))
    for lo in range(0, n_groups, BATCH):
        hi = min(lo + BATCH, n_groups)
        rows = (group >= lo) & (group < hi)
        start = np.zeros((2, hi - lo, n_masks))
        np.add.at(start, (flag[rows], group[rows] - lo, mask[rows]), weight[rows])
        out[:, lo:hi] = chain.run_batch(start / start.sum(axis=(0, 2))[None, :, None])
    return out


def lines_given_bonus(sc: Screens, b: int) -> np.ndarray:
    rows = sc.bonus == b
    h = np.zeros(int(sc.win.max(initial=0)) + 1)
    np.add.at(h, sc.win[rows], sc.count[rows].astype(float))
    return h


def free_spin_table(game: Game, level: int) -> np.ndarray:
    """Per free spin, P(win = y [u, before the x2], extra games = k), shape (Y, K)."""
    st = structure(game)
    f = st.features
    fgs = f.free_games
    reel_set = fgs.reels
    sc = screens(st.fg_game, reel_set)
    U = LINES
    cols = {0: sc.plain.astype(float)}
    pd_ = PrizeDistributions(game, f.lockit.sources[FREE].awards, level)
    for w, cnt, fin in group_finals(st.fg_game, reel_set, FREE, None, None):
        cols[0] = add_shifted(cols[0], cnt * upsample(pd_.of_final(fin), U), w)
    for b in range(fgs.min_count, 16):
        if not (sc.bonus == b).any():
            continue
        k = fgs.retrigger_games(b)
        h = lines_given_bonus(sc, b)
        cols[k] = add_shifted(cols.get(k, np.zeros(1)), h, int(fgs.retrigger_prize(b) * U))
    n = max(len(c) for c in cols.values())
    table = np.zeros((n, max(cols) + 1))
    for k, c in cols.items():
        table[: len(c), k] = c
    return table / sc.cycle


@dataclass
class RoundDistribution:
    """Distribution of the total win of a round [u = 1/20 total bet grid]."""

    probs: np.ndarray
    policy: str
    dropped: float = 0.0  # mass below the FFT noise floor set to 0


def round_distribution(
    game: Game, level: int, policy: str = "lockit", fg_size: int = 1 << 20
) -> RoundDistribution:
    """Distribution of the total win of a round (base spin and every feature
    it leads to) at bet ``level`` under a pure selection ``policy``.

    Float64.  Lock-it parts are forward chain runs per distinct line win
    (relative error ~1e-13); the free-games part is solved on a cyclic FFT
    grid of ``fg_size`` points (see :func:`slotmath.features.freegames.fourier_distribution`),
    and values below 1e-16 (its noise floor) are set to 0 and reported as
    ``dropped``."""
    from scipy.signal import fftconvolve

    from slotmath.features.freegames import fourier_distribution

    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}")
    st = structure(game)
    f = st.features
    U = LINES
    sc = screens(game, BASE_REELS)
    out = sc.plain.astype(float)
    pz = PrizeDistributions(game, f.lockit.sources[BASE].awards, level)
    for w, cnt, fin in group_finals(game, BASE_REELS, BASE, None, None):
        out = add_shifted(out, cnt * upsample(pz.of_final(fin), U), w)
    dropped = 0.0
    fg_table = None
    for b in range(f.selection.min_count, 16):
        opt = f.selection.option(b)
        if opt is None or not (sc.bonus == b).any():
            continue
        shift = int(opt.prize * U)
        if policy == "lockit":
            pzs = PrizeDistributions(game, opt.lockit_awards, level)
            for w, cnt, fin in group_finals(game, BASE_REELS, f.selection.lockit_source, b, opt.lockit_spins):
                out = add_shifted(out, cnt * upsample(pzs.of_final(fin), U), w + shift)
        else:
            if fg_table is None:
                fg_table = free_spin_table(game, level)
            fg = fourier_distribution(fg_table, opt.free_games, fg_size // 2)
            m = int(f.free_games.multiplier)
            fg = upsample(fg, m)
            small = fg < 1e-16
            dropped += float(fg[small].sum()) * float((sc.count[sc.bonus == b]).sum()) / sc.cycle
            fg[small] = 0.0
            conv = np.maximum(fftconvolve(lines_given_bonus(sc, b), fg), 0.0)
            conv[conv < 1e-16 * conv.max()] = 0.0
            out = add_shifted(out, conv, shift)
    out = out / sc.cycle
    nz = np.flatnonzero(out)
    return RoundDistribution(out[: nz[-1] + 1], policy, dropped)


def win_distribution(game: Game, level: int, policy: str = "lockit") -> WinDistribution:
    """:class:`~slotmath.engine.distribution.WinDistribution` of a round [coins at ``level``]."""
    rd = round_distribution(game, level, policy)
    nz = np.flatnonzero(rd.probs)
    bet = game.bet(level)
    unit = bet.total_bet // LINES  # coins per u at this level
    return WinDistribution(nz.astype(np.int64) * unit, rd.probs[nz], 1, bet.total_bet)
