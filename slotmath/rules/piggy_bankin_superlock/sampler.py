"""Piggy Bankin' Superlock: Monte Carlo, the rules played literally.

Independent of the exact engine's round: no screen table, chain or value
function is read.  Generic pieces: the weighted stop draw and the line
evaluation of a window (:mod:`slotmath.montecarlo.linesim`, the pay rules
compiled by :mod:`slotmath.engine.lines`), the free reels' expanding WILD_3
(:mod:`slotmath.montecarlo.roundsim`), weighted award draws and the
packing of a final mask into shapes (the table of
:func:`slotmath.features.shapes.shape_count_table` the exact figures use
too, in the declared order).  Piggy's own: the round (lock-it from 6+ held
cells, the selection at 3+ BONUS with its two choices, free games with a
lock-it inside), the respins on reel sets switched by the WHEEL mark, the
per-shape award tables with their jackpot labels and the wheel."""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.reels import pack_reels
from slotmath.model import Game
from slotmath.montecarlo.linesim import (
    draw_args,
    draw_stops,
    evaluation_args,
    play_evaluation,
    uniform_below,
    weighted_index,
)
from slotmath.montecarlo.lockitsim import play_respins
from slotmath.montecarlo.roundsim import free_evaluation
from slotmath.montecarlo.run import RoundSampler
from slotmath.rules.piggy_bankin_superlock.check import BASE, BASE_REELS, FREE, PARTS, POLICIES
from slotmath.rules.piggy_bankin_superlock.rtp import breakdown
from slotmath.rules.piggy_bankin_superlock.structure import features_of, lockit_shape_counts, symbol_set

# ===========================================================================
# Monte Carlo: the rules played literally (independent of the exact engine)
# ===========================================================================
EVENTS = (
    "lockit_base_game",
    "lockit_free_games",
    "lockit_selection",
    "selection",
    "free_games",
    "full_screen",
    "wheel",
    "superlock",
    "MINI",
    "MINOR",
    "MAJOR",
    "GRAND",
)
JACKPOT_ORDER = ("MINI", "MINOR", "MAJOR", "GRAND")


@nb.njit(cache=True)
def _screen(stop, screen, H):
    """(held mask, BONUS count, 1 if a held symbol carries the mark) of the
    window at ``stop``; mask bit ``H r + row``; ``screen`` = (held pattern,
    marked held pattern, BONUS count) per (reel, stop)."""
    pat, mpat, bon = screen
    mask, n_bonus, flag = 0, 0, 0
    for r in range(stop.shape[0]):
        mask |= pat[r, stop[r]] << (r * H)
        n_bonus += bon[r, stop[r]]
        if mpat[r, stop[r]]:
            flag = 1
    return mask, n_bonus, flag


@nb.njit(cache=True)
def _popcount(mask):
    n = 0
    while mask:
        n += mask & 1
        mask >>= 1
    return n


@nb.njit(cache=True)
def spin_wheel(rng, wheel, events):
    """One Superlock wheel spin [x total bet] (rule 5.6)."""
    wh_val, wh_cum, wh_jp, pre = wheel
    events[6] += 1
    if uniform_below(rng, pre[1]) < pre[0]:
        events[7] += 1
        return wh_val[-1]  # the before-jackpot value is stored last
    i = weighted_index(rng, wh_cum, wh_cum.shape[0])
    if wh_jp[i] >= 0:
        events[8 + wh_jp[i]] += 1
    return wh_val[i]


@nb.njit(cache=True)
def pack(rng, mask, packed, full_shape, table, awards, events):
    """Prize [x total bet] of the final held ``mask``: each shape its packing
    places (``packed[mask]``, shapes of each kind) draws its award from
    table ``table``."""
    aw_val, aw_cum, aw_n, aw_jp = awards
    prize = 0.0
    for sh in range(packed.shape[1]):
        for _ in range(packed[mask, sh]):
            if sh == full_shape:
                events[5] += 1
            i = weighted_index(rng, aw_cum[table, sh], aw_n[table, sh])
            if aw_jp[table, sh, i] >= 0:
                events[8 + aw_jp[table, sh, i]] += 1
            prize += aw_val[table, sh, i]
    return prize


@nb.njit(cache=True)
def sample_lockit(rng, mask, flag, spins, reset, source, H, packed, table, awards, wheel, wheel_paid, events):
    """Play one lock-it from the held ``mask`` and mark ``flag``; returns its
    prize [x total bet].  ``source`` = (reels before a mark shows, reels
    after), each (stop draw, screen)."""
    mask, flag = play_respins(rng, mask, flag, spins, reset, source[0], source[1], H)
    prize = pack(rng, mask, packed[0], packed[1][0], table, awards, events)
    if flag and wheel_paid:
        prize += spin_wheel(rng, wheel, events)
    return prize


@nb.njit(cache=True)
def piggy_kernel(rng, n, ints, base, free, sources, packed, awards, wheel, counts, mult):
    """Play ``n`` rounds; wins [x total bet], event counts (see ``EVENTS``)
    and wins by part [x total bet] (see ``PARTS``: base lines, selection
    prizes, lock-it base game, lock-it selection or free games).

    ``base``, ``free`` = (stop draw, line evaluation, screen) of the base and
    free-game reels (:mod:`slotmath.montecarlo.linesim`); ``sources`` the
    respin reels of the lock-it sources base game, selection, free games;
    ``packed`` = (shapes of each kind in the packing of every mask, the
    index of the full-screen shape or -1);
    ``ints`` = (policy 0 lock-it / 1 free games, lock-it trigger, minimum
    BONUS, rows, reset 0/1), then per source (base game, selection, free
    games) its spins, award table and 1 if a WHEEL at the end is paid
    (``ints[5:8]``, ``[8:11]``, ``[11:14]``); ``counts`` by BONUS count: selection prize,
    selection lock-it spins, selection award table, awarded free games,
    free-game BONUS prize, retrigger games."""
    policy, trigger, min_bonus, H, reset = ints[0], ints[1], ints[2], ints[3], ints[4]
    spins, table, paid = ints[5:8], ints[8:11], ints[11:14]
    sel_prize, sel_spins, sel_table, sel_games, fg_prize, fg_games = counts
    R = base[0][0].shape[0]
    wins = np.zeros(n, dtype=np.float64)
    parts = np.zeros((n, 4), dtype=np.float64)
    events = np.zeros(12, dtype=np.int64)
    line_events = np.zeros(max(base[1][0][5], free[1][0][5]) + 1, dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    window = np.empty(R * H, dtype=np.int64)
    top = sel_prize.shape[0] - 1
    for i in range(n):
        draw_stops(rng, stop, *base[0])
        win = play_evaluation(stop, window, base[1], line_events)
        parts[i, 0] = win
        mask, n_bonus, flag = _screen(stop, base[2], H)
        if _popcount(mask) >= trigger:  # rule 5.1: lock-it from the base game
            events[0] += 1
            parts[i, 2] = sample_lockit(
                rng, mask, flag, spins[0], reset, sources[0], H, packed, table[0], awards, wheel,
                paid[0], events,
            )  # fmt: skip
            win += parts[i, 2]
        if n_bonus >= min_bonus:  # rule 4: feature selection
            b = min(n_bonus, top)
            events[3] += 1
            parts[i, 1] = sel_prize[b]
            win += sel_prize[b]
            if policy == 0:
                events[2] += 1
                parts[i, 3] = sample_lockit(
                    rng, mask, flag, sel_spins[b], reset, sources[1], H, packed, sel_table[b], awards, wheel,
                    paid[1], events,
                )  # fmt: skip
                win += parts[i, 3]
            else:
                events[4] += 1
                left = sel_games[b]
                fg_win = 0.0
                while left > 0:
                    left -= 1
                    draw_stops(rng, stop, *free[0])
                    fg_win += play_evaluation(stop, window, free[1], line_events)
                    m2, b2, f2 = _screen(stop, free[2], H)
                    if b2 >= min_bonus:
                        fg_win += fg_prize[min(b2, top)]
                        left += fg_games[min(b2, top)]
                    if _popcount(m2) >= trigger:
                        events[1] += 1
                        fg_win += sample_lockit(
                            rng, m2, f2, spins[2], reset, sources[2], H, packed, table[2], awards, wheel,
                            paid[2], events,
                        )  # fmt: skip
                parts[i, 3] = mult * fg_win
                win += mult * fg_win
        wins[i] = win
    return wins, events, parts


def screen_args(game: Game, sym: np.ndarray) -> tuple:
    """(held pattern, marked held pattern, BONUS count) per (reel, stop) of
    window symbols ``sym`` (R, stops, rows); bit ``row`` of a pattern."""
    f = features_of(game)
    held = symbol_set(game, f.lockit.symbols)
    marked = held & symbol_set(game, [f.lockit.mark] if f.lockit.mark else [])
    bits = 1 << np.arange(game.rows)
    bonus = (sym == game.symbol_index[f.free_games.symbol]).sum(axis=2)
    return (
        (held[sym] * bits).sum(axis=2).astype(np.int64),
        (marked[sym] * bits).sum(axis=2).astype(np.int64),
        bonus.astype(np.int64),
    )


def _reels(game: Game, reel_set: str) -> tuple:
    """(stop draw, screen) of a respin reel set."""
    return draw_args(game, reel_set), screen_args(game, pack_reels(game, reel_set)[0])


def round_sampler(game: Game, level: int, policy: str = "lockit") -> RoundSampler:
    """Round sampler at bet ``level`` under a pure selection ``policy``."""
    f = features_of(game)
    lk, fgs, sel = f.lockit, f.free_games, f.selection
    base_ev, _ = evaluation_args(game, level, BASE_REELS)
    base = (draw_args(game, BASE_REELS), base_ev, screen_args(game, base_ev[1]))
    free_ev, _, free_sym = free_evaluation(game, level, fgs.reels, fgs.nudge, fgs.scatter_pays)
    free = (draw_args(game, fgs.reels), free_ev, screen_args(game, free_sym))
    order = (lk.sources[BASE], lk.sources[sel.lockit_source], lk.sources[FREE])
    sources = tuple((_reels(game, s.reels), _reels(game, s.after_mark or s.reels)) for s in order)
    n_shapes = len(lk.shapes)
    full = [k for k, (rows, reels) in enumerate(lk.shapes) if (rows, reels) == (game.rows, game.reels)]
    packed = (
        np.ascontiguousarray(lockit_shape_counts(game), dtype=np.int64),
        np.array(full or [-1], dtype=np.int64),
    )
    top = game.reels * game.rows + 1
    options = {b: sel.option(b) for b in range(top)}
    tables = sorted({s.awards for s in order} | {o.lockit_awards for o in options.values() if o})
    K = max(len(a) for t in tables for a in lk.awards.table(t, level))
    aw_val = np.zeros((len(tables), n_shapes, K))
    aw_cum = np.zeros((len(tables), n_shapes, K), dtype=np.int64)
    aw_n = np.zeros((len(tables), n_shapes), dtype=np.int64)
    aw_jp = np.full((len(tables), n_shapes, K), -1, dtype=np.int64)
    for t, name in enumerate(tables):
        for s, awards in enumerate(lk.awards.table(name, level)):
            aw_n[t, s] = len(awards)
            aw_cum[t, s, : len(awards)] = np.cumsum([a.weight for a in awards])
            for j, a in enumerate(awards):
                aw_val[t, s, j] = float(a.value)
                if a.label in JACKPOT_ORDER:
                    aw_jp[t, s, j] = JACKPOT_ORDER.index(a.label)
    w = f.wheel
    wheel = (
        np.array([float(v) for _, v, _ in w.segments] + [float(w.pre_prize)]),
        np.cumsum([wt for _, _, wt in w.segments]).astype(np.int64),
        np.array(
            [JACKPOT_ORDER.index(lab) if lab in JACKPOT_ORDER else -1 for lab, _, _ in w.segments],
            dtype=np.int64,
        ),
        np.array([w.pre_probability.numerator, w.pre_probability.denominator], dtype=np.int64),
    )
    counts = (
        np.array([float(o.prize) if o else 0.0 for o in options.values()]),
        np.array([o.lockit_spins if o else 0 for o in options.values()], dtype=np.int64),
        np.array([tables.index(o.lockit_awards) if o else 0 for o in options.values()], dtype=np.int64),
        np.array([o.free_games if o else 0 for o in options.values()], dtype=np.int64),
        np.array([float(fgs.retrigger_prize(b)) for b in range(top)]),
        np.array([fgs.retrigger_games(b) for b in range(top)], dtype=np.int64),
    )
    ints = np.array(
        [POLICIES.index(policy), lk.trigger, sel.min_count, game.rows, int(lk.rule == "reset")]
        + [s.spins for s in order]
        + [tables.index(s.awards) for s in order]
        + [int(bool(s.mark_award)) for s in order],
        dtype=np.int64,
    )
    awards = (aw_val, aw_cum, aw_n, aw_jp)
    args = (ints, base, free, sources, packed, awards, wheel, counts, float(fgs.multiplier))
    return RoundSampler(piggy_kernel, args, EVENTS, PARTS[policy])


def exact_events(game: Game, level: int, policy: str = "lockit") -> dict:
    """Expected count per round of every simulator event (see ``EVENTS``)."""
    b = breakdown(game, level)
    o = b.odds
    fg = policy == "free_games"
    out = {
        "lockit_base_game": o["lockit base game"],
        "lockit_free_games": o["lockit in free games (policy free_games)"] if fg else 0.0,
        "lockit_selection": 0.0 if fg else o["selection"],
        "selection": o["selection"],
        "free_games": o["selection"] if fg else 0.0,
        "full_screen": o[f"full screen (policy {policy})"],
        "wheel": o[f"wheel (policy {policy})"],
        "superlock": o[f"Superlock jackpot (policy {policy})"],
    }
    for j in JACKPOT_ORDER:
        out[j] = o[f"{j} (policy {policy})"]
    return out


def simulate(game: Game, level: int, spins: int, seed: int = 0, policy: str = "lockit"):
    """Monte Carlo rounds with the compiled sampler; z-scores against the exact RTP.

    Returns a :class:`~slotmath.montecarlo.results.SimulationResult` (simulated figures)."""
    from slotmath.montecarlo.run import simulate_sampler

    exact = {"rtp": breakdown(game, level).rtp[policy]}
    return simulate_sampler(round_sampler(game, level, policy), game, level, spins, seed, exact)
