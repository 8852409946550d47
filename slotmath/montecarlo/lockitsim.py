"""Compiled sampler of a shape-award lock-it (:mod:`slotmath.features.lockit_round`).

:func:`play_lockit` plays one lock-it literally from a held ``mask`` (bit
``reel * H + row``) and mark ``flag``: every respin draws a weighted stop on
each reel of the respin reel set (``after_mark`` once a mark is on screen),
the held symbols it shows on empty cells are held (a mark among them sets
the flag), the counter counts down or resets; the final mask is packed
into shapes (the table of :func:`slotmath.features.shapes.shape_count_table`)
and each shape draws its award, a mark at the end one wheel spin.  Awards
are in grid steps of :func:`lockit_args` (exact integers).

The interface for a round kernel: ``args, g = lockit_args(game, level)``
once, then per triggering window ``award = play_lockit(rng, mask, flag,
args, events)`` [grid steps, x g = x total bet]; ``events`` is an int64
array it adds to: [0] full screens, [1] marks on screen at the end, and
[3 + k] the hits of jackpot k of
:func:`~slotmath.features.lockit_round.jackpot_names` ([2] is the slot's
award, added by :func:`play_lockit_slot`).

The lock-it is a slot of the round sampler
(:mod:`slotmath.montecarlo.roundsim`, component ``lockit``) beside every
other feature: :func:`lockit_slot_args` once, :func:`lockit_start` reads
the trigger off the base stops (``trigger`` or more held symbols),
:func:`play_lockit_slot` plays it and counts its events
(:data:`~slotmath.features.lockit_round.FEATURE_EVENTS`, then ``lockit
jackpot NAME`` per jackpot: every shape award and wheel outcome naming it
counts one hit).  With ``in_free_games`` a free game's window at the free
stops starts it too (:func:`play_free_lockit`, read off the free reel set's
patterns), its events counted apart (named
:func:`~slotmath.features.infree.in_free_games_event`).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from slotmath.engine.reels import windows
from slotmath.errors import ensure
from slotmath.features.infree import in_free_games_event
from slotmath.features.lockit_round import (
    FEATURE_EVENTS,
    award_step,
    jackpot_event,
    jackpot_names,
    load_line_lockit,
    required_lockit,
    shape_counts,
)
from slotmath.model import Game
from slotmath.montecarlo.linesim import MAX_REEL_WEIGHT, draw_args, draw_stops, uniform_below, weighted_index
from slotmath.montecarlo.slots import FreeReels, SamplerSlot

__all__ = [
    "respin",
    "play_respins",
    "play_lockit",
    "lockit_args",
    "lockit_start",
    "play_lockit_slot",
    "play_free_lockit",
    "lockit_slot_args",
    "LOCKIT_SLOT",
]


@nb.njit(cache=True)
def respin(rng, stop, mask, flag, reels, H):
    """One lock-it respin on ``reels`` = (stop draw, (held pattern, marked held
    pattern, ...) per (reel, stop)): the held mask and mark flag after it, and
    whether a cell was added."""
    draw_stops(rng, stop, *reels[0])
    pat, mpat = reels[1][0], reels[1][1]
    added = False
    for r in range(stop.shape[0]):
        new = pat[r, stop[r]] & ~(mask >> (r * H)) & ((1 << H) - 1)
        if new:
            added = True
            mask |= new << (r * H)
            if mpat[r, stop[r]] & new:
                flag = 1
    return mask, flag, added


@nb.njit(cache=True)
def play_respins(rng, mask, flag, spins, reset, before, after, H):
    """The respins of one lock-it from (``mask``, ``flag``): ``spins`` counting
    down (``reset`` 1: back to ``spins`` whenever a cell is added) on
    ``before`` while no mark is on screen, ``after`` once one is (each as
    :func:`respin` reads it), until they run out or the screen is full;
    returns the final (mask, flag)."""
    R = before[0][0].shape[0]
    full = (1 << (R * H)) - 1
    stop = np.empty(R, dtype=np.int64)
    left = spins
    while left > 0 and mask != full:
        if flag == 0:
            mask, flag, added = respin(rng, stop, mask, flag, before, H)
        else:
            mask, flag, added = respin(rng, stop, mask, flag, after, H)
        left = spins if (reset and added) else left - 1
    return mask, flag


@nb.njit(cache=True)
def play_lockit(rng, mask, flag, args, events):
    """Play one lock-it from (``mask``, ``flag``); returns its award [grid steps].

    ``args`` = (dims, before, after, packed, awards, wheel) of :func:`lockit_args`;
    ``events[0]`` += 1 on a full screen, ``events[1]`` += 1 for a mark at the end,
    ``events[j]`` += 1 for each jackpot drawn (``j`` its entry's index in the
    awards' or wheel's jackpot array, -1 for a plain prize).
    """
    dims, before, after, packed, awards, wheel = args
    H, R, spins, reset, mark_paid = dims[0], dims[1], dims[2], dims[3], dims[4]
    mask, flag = play_respins(rng, mask, flag, spins, reset, before, after, H)
    if mask == (1 << (R * H)) - 1:
        events[0] += 1
    if flag:
        events[1] += 1
    units, cum, n, jack = awards
    award = 0
    for sh in range(packed.shape[1]):
        for _ in range(packed[mask, sh]):
            j = weighted_index(rng, cum[sh], n[sh])
            award += units[sh, j]
            if jack[sh, j] >= 0:
                events[jack[sh, j]] += 1
    if flag and mark_paid:
        w_units, w_cum, pre, w_jack = wheel
        if uniform_below(rng, pre[1]) < pre[0]:
            award += pre[2]
            if pre[3] >= 0:
                events[pre[3]] += 1
        else:
            j = weighted_index(rng, w_cum, w_cum.shape[0])
            award += w_units[j]
            if w_jack[j] >= 0:
                events[w_jack[j]] += 1
    return award


def _patterns(game: Game, lk, reel_set: str) -> tuple:
    """(held pattern, marked held pattern, 0) per (reel, stop), padded to the longest strip."""
    held = np.zeros(len(game.symbols), dtype=bool)
    held[[game.symbol_index[s] for s in lk.spec.symbols]] = True
    mark = np.zeros_like(held)
    if lk.spec.mark:
        mark[game.symbol_index[lk.spec.mark]] = True
    bits = 1 << np.arange(game.rows)
    n_max = max(len(s) for s in game.strips(reel_set))
    pat = np.zeros((game.reels, n_max), dtype=np.int64)
    mpat = np.zeros((game.reels, n_max), dtype=np.int64)
    for r, strip in enumerate(game.strips(reel_set)):
        w = windows(game, strip)
        pat[r, : len(w)] = (held[w] * bits).sum(axis=1)
        mpat[r, : len(w)] = (mark[w] * bits).sum(axis=1)
    return pat, mpat, np.zeros(1, dtype=np.int64)


def _table(entries, g: Fraction) -> tuple:
    return [int(v / g) for v in entries[0]], np.cumsum(entries[1]).astype(np.int64)


def lockit_args(game: Game, level: int) -> tuple:
    """``(args of play_lockit, grid step g [x total bet])`` at bet ``level``;
    jackpot k of :func:`~slotmath.features.lockit_round.jackpot_names` counts
    at index 3 + k of ``play_lockit``'s events."""
    from slotmath.features import wheel as wheel_mod

    lk = required_lockit(game)
    g = award_step(lk, level)
    at = {label: 3 + k for k, label in enumerate(jackpot_names(lk, level))}
    src = lk.source
    before = (draw_args(game, src.reels), _patterns(game, lk, src.reels))
    after_set = src.after_mark or src.reels
    after = (draw_args(game, after_set), _patterns(game, lk, after_set))
    dims = np.array(
        [game.rows, game.reels, src.spins, int(lk.spec.rule == "reset"), int(lk.mark_paid)], dtype=np.int64
    )
    tables = lk.spec.awards.table(src.awards, level)
    k = max(len(t) for t in tables)
    units = np.zeros((len(tables), k), dtype=np.int64)
    cum = np.ones((len(tables), k), dtype=np.int64)
    jack = np.full((len(tables), k), -1, dtype=np.int64)
    n = np.array([len(t) for t in tables], dtype=np.int64)
    for s, t in enumerate(tables):
        u, c = _table(([a.value for a in t], [a.weight for a in t]), g)
        units[s, : len(t)], cum[s, : len(t)] = u, c
        jack[s, : len(t)] = [at.get(a.label, -1) for a in t]
    if lk.mark_paid:
        w = lk.wheel
        w_units, w_cum = _table(([v for _, v, _ in w.segments], [x for _, _, x in w.segments]), g)
        q = w.pre_probability
        if q.denominator >= MAX_REEL_WEIGHT:
            raise ValueError(f"{game.name}: the wheel's before probability needs a denominator below 2**62")
        pre_jack = at.get(w.pre_name, -1) if q else -1
        pre = np.array([q.numerator, q.denominator, int(w.pre_prize / g), pre_jack], dtype=np.int64)
        w_jack = np.array([at.get(label, -1) for label, _, _ in w.segments], dtype=np.int64)
        ensure(wheel_mod.outcomes(w), "lockitsim.py: expected wheel_mod.outcomes(w)")  # declared segments
    else:
        w_units, w_cum, pre = [0], np.ones(1, dtype=np.int64), np.array([0, 1, 0, -1], dtype=np.int64)
        w_jack = np.full(1, -1, dtype=np.int64)
    packed = np.ascontiguousarray(shape_counts(game, lk.spec), dtype=np.int64)
    wheel = (np.array(w_units, dtype=np.int64), w_cum, pre, w_jack)
    return (dims, before, after, packed, (units, cum, n, jack), wheel), g


@nb.njit(cache=True, inline="always")
def lockit_start(stop, pat, mpat, head):
    """The start of a lock-it off the base window at ``stop``: ``2 * mask +
    flag`` (held mask, bit ``reel * H + row``; flag 1 when a mark shows) when
    it shows ``trigger`` or more held symbols, else -1 (``pat``, ``mpat``,
    ``head``: the first three arrays of :func:`lockit_slot_args`)."""
    if head[0] > head[3]:  # no lock-it declared: nothing to read
        return -1
    H = head[2]
    mask, flag, count = 0, 0, 0
    for r in range(stop.shape[0]):
        p = pat[r, stop[r]]
        mask |= p << (r * H)
        if mpat[r, stop[r]]:
            flag = 1
        while p:
            count += p & 1
            p >>= 1
    return 2 * mask + flag if count >= head[0] else -1


@nb.njit(cache=True)
def play_lockit_slot(rng, state, lock, events):
    """The lock-it slot of the round: play it from ``state`` of
    :func:`lockit_start`, count its events from ``head[1]``; its award [x total bet]."""
    head, g, args = lock[2], lock[3], lock[4]
    at = head[1]
    award = play_lockit(rng, state >> 1, state & 1, args, events[at + 1 :])
    events[at] += 1
    events[at + 3] += award
    return award * g[0]


@nb.njit(cache=True)
def play_free_lockit(rng, fstop, lock, events):
    """The lock-it of a free game (``in_free_games``, ``head[4]`` 1): its award
    [x total bet] when the free window at ``fstop`` shows ``trigger`` or more
    held symbols (read off the free reel set's patterns ``lock[5]``,
    ``lock[6]``), else 0.  Its events are counted ``head[5]`` places after the
    base game's lock-it's (named :func:`~slotmath.features.infree.in_free_games_event`)."""
    head = lock[2]
    if head[4] == 0:
        return 0.0
    state = lockit_start(fstop, lock[5], lock[6], head)
    if state < 0:
        return 0.0
    return play_lockit_slot(rng, state, lock, events[head[5] :])


def lockit_slot_args(game: Game, level: int, at: int, free_reels: str | None = None) -> tuple:
    """The ``lock`` slot of :func:`play_lockit_slot` for ``game``'s
    ``options.lockit`` (events counted from index ``at``) = (held pattern,
    marked held pattern per base reel and stop, (trigger, at, rows H, cells,
    in free games 0/1, places from the first event to the first of the free
    games' lock-it), (grid step [x total bet],), :func:`play_lockit`'s args,
    held and marked held pattern per reel and stop of the free reel set
    ``free_reels``), and the names of its events; without a lock-it, arrays
    of the same types that never trigger and no events."""
    H, R = game.rows, game.reels
    if load_line_lockit(game) is None:
        head = np.array([H * R + 1, at, H, H * R, 0, 0], dtype=np.int64)
        n_max = max(len(s) for s in game.strips("base"))
        none = np.zeros((R, n_max), dtype=np.int64)
        blank = np.zeros((R, 1), dtype=np.int64)
        pats = (blank, blank, np.zeros(1, dtype=np.int64))
        reels = (draw_args(game, "base"), pats)
        one = np.ones(1, dtype=np.int64)
        dims = np.array([H, R, 0, 0, 0], dtype=np.int64)
        no_jack = np.full((1, 1), -1, dtype=np.int64)
        awards = (np.zeros((1, 1), dtype=np.int64), np.ones((1, 1), dtype=np.int64), one, no_jack)
        wheel = (np.zeros(1, dtype=np.int64), one, np.array([0, 1, 0, -1], dtype=np.int64), no_jack[0])
        args = (dims, reels, reels, np.zeros((1, 1), dtype=np.int64), awards, wheel)
        return (none, none, head, np.ones(1), args, none, none), ()
    lk = required_lockit(game)
    args, g = lockit_args(game, level)
    pat, mpat, _ = _patterns(game, lk, "base")
    names = FEATURE_EVENTS + tuple(jackpot_event(label) for label in jackpot_names(lk, level))
    in_free = int(lk.spec.in_free_games and free_reels is not None)
    fpat, fmpat = _patterns(game, lk, free_reels)[:2] if in_free and free_reels else (pat * 0, mpat * 0)
    head = np.array([lk.spec.trigger, at, H, H * R, in_free, len(names)], dtype=np.int64)
    if in_free:  # the lock-its free games start: the same events, counted apart
        names += tuple(in_free_games_event(name) for name in names)
    return (pat, mpat, head, np.array([float(g)]), args, fpat, fmpat), names


@nb.njit(cache=True, inline="always")
def _slot_start(stop, lock):
    """:attr:`SamplerSlot.start`: :func:`lockit_start` on the slot's base patterns."""
    return lockit_start(stop, lock[0], lock[1], lock[2])


@nb.njit(cache=True)
def _slot_play(rng, state, lock, events):
    """:attr:`SamplerSlot.play`: :func:`play_lockit_slot`; it awards no free games."""
    return play_lockit_slot(rng, state, lock, events), 0, 0.0


def _slot_args(game: Game, level: int, at: int, free: FreeReels | None) -> tuple:
    return lockit_slot_args(game, level, at, None if free is None else free.reels)


def _silent(lock: tuple) -> tuple:
    return (np.zeros_like(lock[0]), np.zeros_like(lock[1]), *lock[2:])  # it plays in free games only


#: The lock-it's slot of the round sampler (``options.lockit``).
LOCKIT_SLOT = SamplerSlot(_slot_args, _slot_start, _slot_play, play_free_lockit, _silent)
