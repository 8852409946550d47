"""Compiled play of a value-per-coin hold-and-spin, a slot of the round sampler
(:mod:`slotmath.montecarlo.roundsim`).

When the base window shows ``trigger`` or more coins,
:func:`play_hold_and_spin` plays :func:`play_feature` from that window's
mask (bit ``reel * H + row``, as in :mod:`slotmath.features.lockit`), or,
when every cell of a reel lands alike (``respin: cells`` with one probability
per reel), :func:`play_counts` from its per-reel coin counts: the state of
:mod:`slotmath.features.holdspin_chain`, with no limit of 63 cells.  Every
draw is an exactly uniform integer
(:func:`~slotmath.montecarlo.linesim.uniform_below`): a cell lands a coin
when a draw below the denominator of its probability falls below the
numerator; a whole reel respins by a weighted stop of its feature strip; a
prize is a weighted draw from its table.

Events (:data:`~slotmath.features.holdspin.FEATURE_EVENTS`):
``hold_and_spin triggers``, ``hold_and_spin full screens`` and
``hold_and_spin award [grid]``, the sum of the awards in prize-grid steps
(its rate x grid step is the feature RTP, with the batch-means standard
error of :meth:`ChunkStats.event_rate`), then ``hold_and_spin jackpot NAME``
for each jackpot the feature pays (:func:`~slotmath.features.holdspin.jackpot_names`): every coin
drawing it and every full screen that pays it counts one hit.
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from slotmath.errors import GameFileError, ensure
from slotmath.features.cost import sci
from slotmath.features.holdspin import (
    FEATURE_EVENTS,
    HoldAndSpinSpec,
    cell_probabilities,
    coin_patterns,
    jackpot_event,
    jackpot_names,
    prize_grid,
    reel_probabilities,
)
from slotmath.features.holdspin_free import in_free_games_event
from slotmath.model import Game
from slotmath.montecarlo.linesim import MAX_REEL_WEIGHT, draw_args, stop_of, uniform_below
from slotmath.montecarlo.slots import FreeReels, SamplerSlot

__all__ = [
    "play_feature",
    "play_counts",
    "feature_args",
    "hold_and_spin_start",
    "play_hold_and_spin",
    "hold_and_spin_args",
    "play_free_hold_and_spin",
    "bought_kernel",
    "bought_sampler",
    "HOLD_AND_SPIN_SLOT",
]


@nb.njit(cache=True)
def _prize(rng, units, cum, jack, events):
    """Grid units of one weighted prize draw; a jackpot drawn counts its
    event (``jack[j]``: the event index of entry j, -1 for a plain prize)."""
    u = uniform_below(rng, cum[-1])
    j = 0
    while cum[j] <= u:
        j += 1
    if jack[j] >= 0:
        events[jack[j]] += 1
    return units[j]


@nb.njit(cache=True)
def play_feature(
    rng, mask, fdims, cell_num, cell_den, fbound, fuse_table, ftable, fcum, fn_stops, fpat,
    v_units, v_cum, v_jack, s_units, s_cum, s_jack, events,
):  # fmt: skip
    """Play the feature from the held ``mask``: (award [grid units], full screen 0/1).

    ``fdims`` = (rows H, reels R, respins, reset 0/1, respin model 0 cells /
    1 reels, 2 per-reel counts: ``mask`` is then the code of
    :func:`play_counts`, full-screen prize [grid units], event index of the
    full screen's jackpot or -1).  Every jackpot drawn or won by the full
    screen adds 1 to its event in ``events`` (``v_jack``, ``s_jack``).
    """
    H, R, respins, reset, model, full_units = fdims[0], fdims[1], fdims[2], fdims[3], fdims[4], fdims[5]
    if model == 2:
        return play_counts(
            rng, mask, fdims, cell_num, cell_den, v_units, v_cum, v_jack, s_units, s_cum, s_jack, events
        )
    n_cells = H * R
    full = (1 << n_cells) - 1
    award = 0
    for c in range(n_cells):
        if (mask >> c) & 1:
            award += _prize(rng, s_units, s_cum, s_jack, events)
    left = respins
    while left > 0 and mask != full:
        new = 0
        if model == 0:
            for c in range(n_cells):
                if not (mask >> c) & 1 and cell_num[c] > 0:
                    if uniform_below(rng, cell_den[c]) < cell_num[c]:
                        new |= 1 << c
        else:
            for r in range(R):
                s = stop_of(uniform_below(rng, fbound[r]), r, fuse_table, ftable, fcum, fn_stops)
                new |= fpat[r, s] << (r * H)
            new &= ~mask
        if new:
            mask |= new
            for c in range(n_cells):
                if (new >> c) & 1:
                    award += _prize(rng, v_units, v_cum, v_jack, events)
            left = respins if reset else left - 1
        else:
            left -= 1
    if mask == full:
        if fdims[6] >= 0:
            events[fdims[6]] += 1
        return award + full_units, 1
    return award, 0


@nb.njit(cache=True)
def play_counts(rng, code, fdims, cell_num, cell_den, v_units, v_cum, v_jack, s_units, s_cum, s_jack, events):
    """Play the feature on per-reel counts of held coins (model 2: every cell
    of a reel lands alike, so which rows hold the coins does not matter):
    ``code`` = sum over reels of count(r) (H + 1)**r.  Each empty cell of reel
    r lands a coin when a draw below ``cell_den[r H]`` falls below
    ``cell_num[r H]``; (award [grid units], full screen 0/1)."""
    H, R, respins, reset, full_units = fdims[0], fdims[1], fdims[2], fdims[3], fdims[5]
    cnt = np.empty(R, dtype=np.int64)
    held = 0
    for r in range(R):
        cnt[r] = code % (H + 1)
        code //= H + 1
        held += cnt[r]
    award = 0
    for _ in range(held):
        award += _prize(rng, s_units, s_cum, s_jack, events)
    n_cells = H * R
    left = respins
    while left > 0 and held < n_cells:
        new = 0
        for r in range(R):
            num, den = cell_num[r * H], cell_den[r * H]
            if num > 0:
                for _ in range(H - cnt[r]):
                    if uniform_below(rng, den) < num:
                        cnt[r] += 1
                        new += 1
        if new:
            held += new
            for _ in range(new):
                award += _prize(rng, v_units, v_cum, v_jack, events)
            left = respins if reset else left - 1
        else:
            left -= 1
    if held == n_cells:
        if fdims[6] >= 0:
            events[fdims[6]] += 1
        return award + full_units, 1
    return award, 0


@nb.njit(cache=True, inline="always")
def hold_and_spin_start(stop, coins, head):
    """The held coins (mask, bit ``reel * H + row``) when the base window at
    ``stop`` shows ``trigger`` or more coins, else -1 (``coins``, ``head``:
    the first two arrays of the slot of :func:`hold_and_spin_args`); on
    counts (``head[3]`` 1: ``coins`` the coin count per reel and stop) the
    code of the per-reel counts of :func:`play_counts`."""
    H = head[2]
    if head[3]:
        code = 0
        count = 0
        base = 1
        for r in range(stop.shape[0]):
            c = coins[r, stop[r]]
            code += c * base
            count += c
            base *= H + 1
        return code if count >= head[0] else -1
    mask = 0
    count = 0
    for r in range(stop.shape[0]):
        p = coins[r, stop[r]]
        mask |= p << (r * H)
        while p:
            count += p & 1
            p >>= 1
    return mask if count >= head[0] else -1


@nb.njit(cache=True)
def play_free_hold_and_spin(rng, fstop, hold, events):
    """The hold-and-spin of a free game (``in_free_games``, ``hold[1][4]`` 1):
    its award [x total bet] when the free window at ``fstop`` shows
    ``trigger`` or more coins (read off the free reel set's patterns
    ``hold[4]``), else 0.  Its events are counted ``hold[1][5]`` places after
    the base game's feature's (their names marked
    :func:`~slotmath.features.holdspin_free.in_free_games_event`)."""
    if hold[1][4] == 0:
        return 0.0
    mask = hold_and_spin_start(fstop, hold[4], hold[1])
    if mask < 0:
        return 0.0
    return play_hold_and_spin(rng, mask, hold, events[hold[1][5] :])


@nb.njit(cache=True)
def play_hold_and_spin(rng, mask, hold, events):
    """The hold-and-spin slot of the round (:mod:`slotmath.montecarlo.roundsim`):
    play the feature from the held ``mask`` (:func:`hold_and_spin_start`),
    count its events; its award [x total bet].

    ``hold`` = (coin pattern per reel and stop, (trigger, index of the first
    event, rows H, on counts 0/1, in free games 0/1, places from the first
    event to the first of the free games' feature), (prize grid step [x
    total bet],), :func:`play_feature`'s arrays, the coin pattern per reel and
    stop of the free reel set) from :func:`hold_and_spin_args`.
    """
    award, is_full = play_feature(rng, mask, *hold[3], events)
    at = hold[1][1]
    events[at] += 1
    events[at + 1] += is_full
    events[at + 2] += award
    return award * hold[2][0]


def _patterns(game: Game, reel_set: str, symbol: str) -> np.ndarray:
    """Coin pattern of the window at every stop, shape (R, max stops)."""
    pats = coin_patterns(game, reel_set, symbol)
    out = np.zeros((game.reels, max(len(p) for p in pats)), dtype=np.int64)
    for r, p in enumerate(pats):
        out[r, : len(p)] = p
    return out


def _prize_arrays(table, g: Fraction, jackpots: dict) -> tuple:
    units = np.array([int(p.value / g) for p in table], dtype=np.int64)
    jack = np.array([jackpots.get(p.label, -1) for p in table], dtype=np.int64)
    return units, np.cumsum([p.weight for p in table]).astype(np.int64), jack


def feature_args(game: Game, spec: HoldAndSpinSpec, at: int = -1) -> tuple:
    """Arrays of :func:`play_feature` after ``rng, mask`` (its jackpot events
    counted from index ``at`` of the events, in the order of
    :func:`~slotmath.features.holdspin.jackpot_names`; -1: the first event index past the feature's
    own), and the prize grid step g [x total bet]."""
    g = prize_grid(spec)
    H, R = game.rows, game.reels
    n_cells = H * R
    cell_num = np.zeros(n_cells, dtype=np.int64)
    cell_den = np.ones(n_cells, dtype=np.int64)
    if spec.respin == "cells":
        p = cell_probabilities(game, spec)
        if (H + 1) ** R >= 2**62:
            raise ValueError(f"{game.name}: (rows + 1)**reels must be below 2**62 to sample")
        den = max(p[k][r].denominator for k in range(H) for r in range(R))
        if den >= MAX_REEL_WEIGHT:  # validate refuses them: a guard for derived probabilities
            declared = "probabilities" if spec.probabilities is not None else "reels"
            raise GameFileError(
                game.source or game.name,
                f"options.hold_and_spin.{declared}",
                f"a cell's landing probability has the denominator {sci(den)}, not below 2**62, "
                "the compiled simulator's exact draw (par computes the game exactly)",
            )
        for k in range(H):
            for r in range(R):
                cell_num[r * H + k], cell_den[r * H + k] = p[k][r].numerator, p[k][r].denominator
        fbound, fuse, ftable, fcum, fn = draw_args(game, spec.base_reels)
        fpat = np.zeros((R, 1), dtype=np.int64)
        model = 2 if reel_probabilities(game, spec) is not None else 0  # on counts where rows do not matter
    else:
        ensure(
            spec.reels is not None, "holdspinsim.py: expected spec.reels is not None"
        )  # the loader requires it with respin: reels
        fbound, fuse, ftable, fcum, fn = draw_args(game, spec.reels)
        fpat = _patterns(game, spec.reels, spec.symbol)
        model = 1
    jackpots = {label: at + k for k, label in enumerate(jackpot_names(spec))} if at >= 0 else {}
    full_jack = jackpots.get(spec.full_screen_label, -1) if spec.full_screen_pays else -1
    fdims = np.array(
        [H, R, spec.respins, int(spec.rule == "reset"), model, int(spec.full_screen / g), full_jack],
        dtype=np.int64,
    )
    v = _prize_arrays(spec.values, g, jackpots)
    s = _prize_arrays(spec.start_values, g, jackpots)
    return (fdims, cell_num, cell_den, fbound, fuse, ftable, fcum, fn, fpat) + v + s, g


def hold_and_spin_args(game: Game, at: int, free_reels: str | None = None) -> tuple:
    """The ``hold`` slot of :func:`play_hold_and_spin` for ``game``'s
    ``options.hold_and_spin`` (its events counted from index ``at``) and the
    names of those events; without a hold-and-spin, arrays of the same types
    that never trigger and no events.  With ``in_free_games`` the coins of
    the free reel set ``free_reels`` too (:func:`play_free_hold_and_spin`)."""
    from slotmath.features.holdspin import load_hold_and_spin

    spec = load_hold_and_spin(game)
    H, R = game.rows, game.reels
    if spec is None:
        never = np.array([H * R + 1, at, H, 0, 0, 0], dtype=np.int64)
        unit = (np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), np.full(1, -1, dtype=np.int64))
        fdims = np.array([H, R, 0, 0, 0, 0, -1], dtype=np.int64)
        cells = (np.zeros(H * R, dtype=np.int64), np.ones(H * R, dtype=np.int64))
        feature = (fdims, *cells, *draw_args(game, "base"), np.zeros((R, 1), dtype=np.int64), *unit, *unit)
        no_coins = np.zeros((R, max(len(s) for s in game.strips("base"))), dtype=np.int64)
        return (no_coins, never, np.ones(1), feature, no_coins), ()
    feature, g = feature_args(game, spec, at + len(FEATURE_EVENTS))
    counts = int(feature[0][4] == 2)
    in_free = int(spec.in_free_games and free_reels is not None)
    names = FEATURE_EVENTS + tuple(jackpot_event(label) for label in jackpot_names(spec))
    head = np.array([spec.trigger, at, H, counts, in_free, len(names)], dtype=np.int64)

    def coins(reel_set: str) -> np.ndarray:
        pat = _patterns(game, reel_set, spec.symbol)
        if counts:  # coin count per reel and stop
            pat = np.array([[bin(int(x)).count("1") for x in row] for row in pat], dtype=np.int64)
        return pat

    pat = coins(spec.base_reels)
    free = coins(free_reels) if in_free and free_reels is not None else np.zeros_like(pat)
    if in_free:  # the features free games start: the same events, counted apart
        names += tuple(in_free_games_event(name) for name in names)
    return (pat, head, np.array([float(g)]), feature, free), names


@nb.njit(cache=True, inline="always")
def _slot_start(stop, hold):
    """:attr:`SamplerSlot.start`: :func:`hold_and_spin_start` on the slot's coins."""
    return hold_and_spin_start(stop, hold[0], hold[1])


@nb.njit(cache=True)
def _slot_play(rng, mask, hold, events):
    """:attr:`SamplerSlot.play`: :func:`play_hold_and_spin`; it awards no free games."""
    return play_hold_and_spin(rng, mask, hold, events), 0, 0.0


def _slot_args(game: Game, level: int, at: int, free: FreeReels | None) -> tuple:
    return hold_and_spin_args(game, at, None if free is None else free.reels)


def _silent(hold: tuple) -> tuple:
    return (np.zeros_like(hold[0]), *hold[1:])  # no coins: it plays in free games only


#: The hold-and-spin's slot of the round sampler (``options.hold_and_spin``).
HOLD_AND_SPIN_SLOT = SamplerSlot(_slot_args, _slot_start, _slot_play, play_free_hold_and_spin, _silent)


@nb.njit(cache=True)
def _bought_start(rng, coins, H, R, on_counts, cells):
    """The start of a bought feature: ``coins`` cells drawn uniformly without
    replacement (a partial Fisher-Yates shuffle of ``cells``, exactly uniform
    draws): their mask (bit ``reel * H + row``), or on counts the code of
    the per-reel counts of :func:`play_counts`."""
    n = H * R
    for c in range(n):
        cells[c] = c
    for i in range(coins):
        j = i + uniform_below(rng, n - i)
        cells[i], cells[j] = cells[j], cells[i]
    start = 0
    for i in range(coins):
        if on_counts:
            start += (H + 1) ** (cells[i] // H)
        else:
            start |= 1 << cells[i]
    return start


@nb.njit(cache=True)
def bought_kernel(rng, n, cols, coins, feature, g, cap):
    """Play ``n`` bought hold-and-spin rounds from ``coins`` coins on uniform
    cells: (wins [x total bet], events (:data:`FEATURE_EVENTS`), parts)
    with the parts ``hold_and_spin`` and (``cols`` of length 2) the cap's cut
    (0 or negative; ``cap`` < 0: none)."""
    fdims = feature[0]
    H, R = fdims[0], fdims[1]
    on_counts = fdims[4] == 2
    cells = np.empty(H * R, dtype=np.int64)
    wins = np.empty(n, dtype=np.float64)
    parts = np.zeros((n, cols.shape[0]), dtype=np.float64)
    events = np.zeros(len(FEATURE_EVENTS), dtype=np.int64)
    for i in range(n):
        start = _bought_start(rng, coins, H, R, on_counts, cells)
        award, is_full = play_feature(rng, start, *feature, events)  # no jackpot events (feature_args at -1)
        events[0] += 1
        events[1] += is_full
        events[2] += award
        win = award * g
        parts[i, 0] = win
        if cap >= 0 and win > cap:
            if cols.shape[0] > 1:
                parts[i, 1] = cap - win
            win = cap
        wins[i] = win
    return wins, events, parts


def bought_sampler(game: Game, level: int, spec: HoldAndSpinSpec, coins: int):
    """Compiled sampler of a bought hold-and-spin (a bet mode's ``buy:
    {feature: hold_and_spin, coins: K}``, :mod:`slotmath.features.holdspin_buy`):
    no base spin; ``coins`` cells drawn uniformly hold coins with prizes from
    ``start_values``, then the respins play as in the round's slot
    (:func:`play_feature`).  Its win is the ``hold_and_spin`` part (and the
    ``round_cap`` cut of ``game``'s cap); the prizes do not depend on the bet
    level ([x total bet])."""
    from slotmath.features.options import load_features
    from slotmath.montecarlo.run import RoundSampler

    feature, g = feature_args(game, spec)
    if feature[0][4] != 2 and game.rows * game.reels > 62:
        raise ValueError(f"{game.name}: a bought hold-and-spin on masks needs at most 62 cells to sample")
    cap = load_features(game).round_cap
    parts = ("hold_and_spin",) + (("round_cap",) if cap is not None else ())
    cols = np.arange(len(parts), dtype=np.int64)
    args = (cols, np.int64(coins), feature, float(g), -1.0 if cap is None else float(cap))
    return RoundSampler(bought_kernel, args, FEATURE_EVENTS, parts)
