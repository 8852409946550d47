"""Compiled round sampler of a line or ways game: the base spin and every feature it triggers.

Built from the same declarations as the exact round
(:mod:`slotmath.features.round`, :func:`slotmath.rules.linegame.round_features`)
but plays the round literally; no exact table is used.  Draw the base
stops, pay lines (:mod:`slotmath.montecarlo.linesim`) or ways
(:mod:`slotmath.montecarlo.wayssim`, the game's pay rule:
:func:`evaluation`) and scatters, then
play the features the base window triggers, in the order of
``round_features``:

* free games: pay the prize and play free spins one by one on the free reel
  set of the trigger count (:func:`played_sets`; a retrigger keeps it; a
  ``nudge`` wild fills its reel in the window, a ``sticky`` wild holds
  its cell: :mod:`slotmath.montecarlo.stickysim`), adding the games each
  retrigger count awards, until none are left or ``max_games`` were played;
  multiply the free spins' wins;
* hold-and-spin: the held coins of the base window respin
  (:func:`slotmath.montecarlo.holdspinsim.play_hold_and_spin`);
* lock-it: the held symbols of the base window respin, its shapes draw
  their awards and a mark spins its wheel
  (:func:`slotmath.montecarlo.lockitsim.play_lockit_slot`);
* wheel: draw its segments (the ``before`` prize first) for its spins;
* selection: draw the choice with the policy's probabilities and play it
  (prize, free games at the choice's multiplier, wheel spins)
  (:mod:`slotmath.montecarlo.prizesim`);

and cap the round at ``round_cap``.  Every feature reads its trigger off the
base stops (free spins draw into stops of their own).  The free games and
the cap are the kernel's own stage: the free games are the container the
other features also play in (each slot's ``play_free``), and a slot's
``play`` may award free games, which the kernel plays on the declared free
reels; every other feature is a slot the kernel iterates without naming it.

Components of a round [x total bet] (:data:`COMPONENTS`, the kernel's
columns, from the registry of features): the pay channel (lines, or ways:
:data:`PAY_CHANNELS`), the scatters, each feature's (free games: prize and
multiplied free spins), the cap's cut (0 or negative); then the features
drawn from their award law.

Events: the base spin's line and scatter events, then each declared
feature's (free games: ``free_games`` triggers and ``free_games_played``;
hold-and-spin: :data:`slotmath.features.holdspin.FEATURE_EVENTS`; lock-it:
:data:`slotmath.features.lockit_round.FEATURE_EVENTS`; each followed by one
event per jackpot it pays, ``<feature> jackpot NAME``; wheel and selection:
their starts and jackpots, :mod:`slotmath.montecarlo.prizesim`; in the
registry's order, each slot's events together).  Every jackpot event counts
the jackpots the sampler draws, compared with the feature's exact hits per
round.

Adding a base-triggered feature
-------------------------------
A feature is one *slot* of the round, a
:class:`~slotmath.montecarlo.slots.SamplerSlot` defined beside its play
(``args``: a tuple of arrays built in Python, arrays of the same numba
types that never start when the game does not declare it, so one compiled
kernel serves every game; njit ``start(stop, args)`` reading its key off
the base ``stop``, -1: not started; njit ``play(rng, key, args, events)``
returning (award [x total bet], free games awarded, their multiplier);
njit ``play_free(rng, fstop, args, events)`` its start and award inside a
free game; ``silent(args)`` for a bought round's base spin).  Plugging it
in names it once, on its kind: ``FeatureKind(..., component=C,
slot="module:NAME")``.  The kernel then pays it in the column of ``C`` in
:data:`COMPONENTS`, counts its events after the previous slot's
(:func:`slot_tuple`) and plays it after the free games, in the registry's
order; the kernel unpacks :data:`~slotmath.montecarlo.slots.MAX_SLOTS`
places (raise it, and add a place in :func:`round_kernel` and
:func:`_free_play`, for a seventh).  The hold-and-spin
(:data:`~slotmath.montecarlo.holdspinsim.HOLD_AND_SPIN_SLOT`), the lock-it
(:data:`~slotmath.montecarlo.lockitsim.LOCKIT_SLOT`), the wheel and the
selection (:data:`~slotmath.montecarlo.prizesim.WHEEL_SLOT`,
:data:`~slotmath.montecarlo.prizesim.SELECTION_SLOT`) are such slots.
A feature whose award does not depend on the window
and that a count anywhere starts needs no slot of its own: its
:class:`~slotmath.features.kinds.FeatureKind` gives ``draws`` (the law of
its award) and :func:`drawn_args` puts it in the generic slot, paid in a
column after :data:`COMPONENTS`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.scatters import scatter_symbols
from slotmath.errors import ensure
from slotmath.features.registry import feature_kinds
from slotmath.model import Game
from slotmath.montecarlo.anywheresim import round_anywhere_win
from slotmath.montecarlo.clustersim import round_cluster_win
from slotmath.montecarlo.convergence import FREE_GAMES_EVENTS
from slotmath.montecarlo.linesim import (
    draw_args,
    draw_stops,
    drawn_line_win,
    evaluation_args,
    key_count,
    no_line_args,
    scatter_win,
)
from slotmath.montecarlo.payeval import PAY_EVALUATIONS, pays_args
from slotmath.montecarlo.run import RoundSampler
from slotmath.montecarlo.slots import (
    MAX_SLOTS,
    FreeReels,
    load_slot,
    pick,
    slot_args,
    slot_at,
    slot_play,
    slot_play_free,
    slot_start,
    symbol_count,
    symbol_counts,
)
from slotmath.montecarlo.stickysim import sticky_args, sticky_free_play
from slotmath.montecarlo.wayssim import round_ways_win

__all__ = [
    "COMPONENTS",
    "FREE_GAMES_EVENTS",
    "round_sampler",
    "round_components",
    "sampler_args",
    "buy_sampler",
    "drawn_args",
    "slot_tuple",
    "slotted_kinds",
]

#: Names of the simulated components, in the kernel's column order: the pay
#: channel (:data:`PAY_CHANNELS`), the scatters, each registered feature that
#: plays in a slot of its own (:mod:`slotmath.features.registry`, in the
#: round's order) and the round cap's cut; a game's features drawn from
#: their award law (:func:`drawn_args`) take the columns after these.
COMPONENTS = (
    ("lines", "scatters")
    + tuple(k.component for k in feature_kinds() if k.component is not None and k.sampled and k.draws is None)
    + ("round_cap",)
)
#: the kernel's own columns: the free games (the stage the slots also play
#: in) and the round cap's cut
FREE, CAP = COMPONENTS.index("free_games"), COMPONENTS.index("round_cap")
#: The pay channels of the pay rules: each is paid in column 0 of :data:`COMPONENTS`.
PAY_CHANNELS = ("lines", "ways", "anywhere", "cluster")


def slotted_kinds() -> tuple:
    """The registered features with a sampler slot
    (:attr:`~slotmath.features.kinds.FeatureKind.slot`), in the round's order;
    each is paid in the column of its component."""
    kinds = tuple(k for k in feature_kinds() if k.slot is not None)
    ensure(len(kinds) <= MAX_SLOTS, f"roundsim.py: {len(kinds)} slots, the kernel plays at most {MAX_SLOTS}")
    for k in kinds:
        ensure(
            k.component in COMPONENTS, f"roundsim.py: the slot of {k.key} pays no component of the sampler"
        )
    return kinds


# Helpers taking many arrays are inlined (numba IR inlining): a compiled call
# updates a reference count per array passed (see slotmath.montecarlo.linesim).
@nb.njit(cache=True, inline="always")
def _pays_win(rng, stop, pays, events):
    """Ways, count and cluster pays win [x total bet] of the window at ``stop``:
    ``pays`` = (ways args, anywhere args, cluster args) of :func:`evaluation`
    (the rules the game is not paid by pay nothing)."""
    ways = round_ways_win(rng, stop, pays[0], events)
    return ways + round_anywhere_win(stop, pays[1], events) + round_cluster_win(stop, pays[2], events)


@nb.njit(cache=True, inline="always")
def _spin(rng, stop, window, draw, ev, ways, events):
    """Draw one spin of a reel set into ``stop``; its (line or ways win, scatter
    win) [x total bet] (events added to ``events``)."""
    bound, use_table, table, cum, n_stops = draw
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = ev
    draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
    lines = drawn_line_win(rng, stop, window, dims, sym, cells, codes, offsets, label_coins, events)
    lines += _pays_win(rng, stop, ways, events)
    return lines, scatter_win(stop, sc_count, sc_pay, sc_event, events)


@nb.njit(cache=True, inline="always")
def _key(stop, trig, need, lines):
    """The count the free games' awards are read by: the trigger count
    (:func:`~slotmath.montecarlo.linesim.key_count`), or with ``lines`` (a
    count on a payline; ``trig`` the symbol's rows per reel and stop, bit k
    row k) the longest run from the leftmost reel along a payline."""
    if lines.shape[0] == 0:
        return key_count(stop, trig, need)
    best = 0
    for i in range(lines.shape[0]):
        n = 0
        while n < lines.shape[1] and (trig[n, stop[n]] >> lines[i, n]) & 1:
            n += 1
        best = max(best, n)
    return best


@nb.njit(cache=True)
def _free_play(
    rng, games, stop, window, fg_events, events, free_draw, free_ev, free_ways, ftrig, feat, slots
):
    """Play ``games`` free games on one reel set (``free_draw``, ``free_ev``,
    ``free_ways``, trigger counts ``ftrig``; with retriggers, at most ``max
    games``), drawing into ``stop``: (their win before the multiplier [x total bet],
    games played); a free game's window may start each slot's feature
    (:attr:`~slotmath.montecarlo.slots.SamplerSlot.play_free`, in the
    registry's order), its events counted in ``events``, its award part of
    that game's win."""
    again, reprize, cap_games, need, on_lines = feat[4], feat[5], feat[6][1], feat[10], feat[12]
    if feat[8][0][0] >= 0:  # a sticky wild (slotmath.montecarlo.stickysim)
        return sticky_free_play(
            rng, games, stop, window, fg_events, free_draw, free_ev, again, reprize, cap_games, feat[8]
        )
    r0, a0, _ = slot_at(slots, 0)  # the slots, unpacked (MAX_SLOTS places)
    r1, a1, _ = slot_at(slots, 1)
    r2, a2, _ = slot_at(slots, 2)
    r3, a3, _ = slot_at(slots, 3)
    r4, a4, _ = slot_at(slots, 4)
    r5, a5, _ = slot_at(slots, 5)
    left = games
    played = 0
    fg = 0.0
    while left > 0 and (cap_games < 0 or played < cap_games):
        left -= 1
        played += 1
        lines, sc = _spin(rng, stop, window, free_draw, free_ev, free_ways, fg_events)
        k = _key(stop, ftrig, need, on_lines)
        fg += lines + sc + reprize[k]
        fg += slot_play_free(r0, rng, stop, a0, events)
        fg += slot_play_free(r1, rng, stop, a1, events)
        fg += slot_play_free(r2, rng, stop, a2, events)
        fg += slot_play_free(r3, rng, stop, a3, events)
        fg += slot_play_free(r4, rng, stop, a4, events)
        fg += slot_play_free(r5, rng, stop, a5, events)
        left += again[k]
    return fg, played


@nb.njit(cache=True)
def _play_slot(ref, args, col, key, rng, comp, events, free):
    """Play the slot ``ref`` started with ``key`` into ``comp[col]``; the free
    games it awards play on the declared free reels (``free`` = (fstop,
    window, fg_events, spare, free_draw, free_ev, free_ways, feat, slots)),
    their events counted in ``spare``.  Called only when the slot starts (a
    call updates a reference count per array passed)."""
    award, granted, mult = slot_play(ref, rng, key, args, events)
    if granted > 0:
        fstop, window, fg_events, spare, free_draw, free_ev, free_ways, feat, slots = free
        fg, _ = _free_play(
            rng, granted, fstop, window, fg_events, spare, free_draw, free_ev, free_ways, feat[1], feat, slots
        )
        award += mult * fg
    comp[col] = award


@nb.njit(cache=True)
def _free_games(rng, c, fstop, window, events, fg_events, feat, slots):
    """The free games the base window's count ``c`` starts, on the reel set
    of that count: their award [x total bet] (prize + multiplied wins)."""
    games, prize, mults, fg_at = feat[2], feat[3], feat[9], feat[7][0]
    by_count, played_sets = feat[11]
    events[fg_at] += 1
    s_draw, s_ev, s_ways, s_trig = played_sets[by_count[c]]  # the reel set the count starts
    fg, played = _free_play(
        rng, games[c], fstop, window, fg_events, events, s_draw, s_ev, s_ways, s_trig, feat, slots
    )
    events[fg_at + 1] += played
    return prize[c] + mults[c] * fg


@nb.njit(cache=True)
def round_kernel(
    rng, n, cols, n_events, base_draw, base_ev, free_draw, free_ev, base_ways, free_ways, feat, slots, drawn
):
    """Play ``n`` rounds: (wins [x total bet], event counts (``n_events[0]``
    of them), parts), ``parts`` shape (n, len(cols)): the components
    ``COMPONENTS[cols]`` of each round's win [x total bet].

    ``base_ways``, ``free_ways`` = the (ways, count pays) evaluation of each
    reel set (:func:`evaluation`: :func:`~slotmath.montecarlo.wayssim.ways_args`,
    :func:`~slotmath.montecarlo.anywheresim.anywhere_args`; each paying
    nothing on a game not paid by it, whose ``base_ev``, ``free_ev`` pay no line);
    ``feat`` = (trigger count per base stop, per free stop, games, prize,
    retrigger games, retrigger prize by count, (multiplier, max games, round
    cap), (index of the free-games trigger event,),
    :func:`~slotmath.montecarlo.stickysim.sticky_args`, multiplier by count,
    the reels a trigger needs (1: must show the symbol), (reel set by count,
    the reel sets played: :func:`played_sets`), the paylines of a count on a
    payline (:func:`trigger_lines`; then the trigger arrays hold rows));
    ``slots`` = ``(SlotRef, args, column)`` per feature with a sampler slot
    (:func:`slot_tuple`, in the round's order), unpacked once into
    :data:`~slotmath.montecarlo.slots.MAX_SLOTS` places (the empty ones
    never start): each reads its start off the base stops and, when it
    starts, plays (after the free games) into its column; the free games it
    awards play on the declared free reels, their events counted apart (the
    exact rates count the free games the base window starts);
    ``drawn`` = the generic slot of the features whose award is drawn from
    its law (:func:`drawn_args`), paid in the columns after
    :data:`COMPONENTS`.

    The loop plays the base spin and reads the triggers with arrays
    unpacked once, here (taking an array out of a tuple inside the loop
    costs a reference count update per array and round, several times the
    base spin); the slots' ``start`` are inlined.
    """
    bound, use_table, table, cum, n_stops = base_draw
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = base_ev
    trig, games, cap_win, need, on_lines = feat[0], feat[2], feat[6][2], feat[10], feat[12]
    dtrig, dthr, dvalues, dcum, dev = drawn
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, cols.shape[0]), dtype=np.float64)
    events = np.zeros(n_events[0], dtype=np.int64)
    spare = np.zeros_like(events)
    most = max(free_ev[0][5], dims[5])
    for played in feat[11][1]:
        most = max(most, played[1][0][5])
    fg_events = np.zeros(most + 1, dtype=np.int64)
    comp = np.zeros(len(COMPONENTS) + dthr.shape[0])
    stop = np.empty(dims[0], dtype=np.int64)
    fstop = np.empty(dims[0], dtype=np.int64)
    window = np.empty(dims[0] * dims[6], dtype=np.int64)
    free = (fstop, window, fg_events, spare, free_draw, free_ev, free_ways, feat, slots)
    r0, a0, c0 = slot_at(slots, 0)  # the slots, unpacked once (MAX_SLOTS places)
    r1, a1, c1 = slot_at(slots, 1)
    r2, a2, c2 = slot_at(slots, 2)
    r3, a3, c3 = slot_at(slots, 3)
    r4, a4, c4 = slot_at(slots, 4)
    r5, a5, c5 = slot_at(slots, 5)
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        comp[0] = drawn_line_win(rng, stop, window, dims, sym, cells, codes, offsets, label_coins, events)
        comp[0] += _pays_win(rng, stop, base_ways, events)
        comp[1] = scatter_win(stop, sc_count, sc_pay, sc_event, events)
        for j in range(2, comp.shape[0]):
            comp[j] = 0.0
        # every feature's trigger is read off the base stops; none draws
        c = _key(stop, trig, need, on_lines)
        if games[c] > 0:
            comp[FREE] = _free_games(rng, c, fstop, window, events, fg_events, feat, slots)
        # the slots in the registry's order (MAX_SLOTS places, the empty ones never start)
        key = slot_start(r0, stop, a0)
        if key >= 0:
            _play_slot(r0, a0, c0, key, rng, comp, events, free)
        key = slot_start(r1, stop, a1)
        if key >= 0:
            _play_slot(r1, a1, c1, key, rng, comp, events, free)
        key = slot_start(r2, stop, a2)
        if key >= 0:
            _play_slot(r2, a2, c2, key, rng, comp, events, free)
        key = slot_start(r3, stop, a3)
        if key >= 0:
            _play_slot(r3, a3, c3, key, rng, comp, events, free)
        key = slot_start(r4, stop, a4)
        if key >= 0:
            _play_slot(r4, a4, c4, key, rng, comp, events, free)
        key = slot_start(r5, stop, a5)
        if key >= 0:
            _play_slot(r5, a5, c5, key, rng, comp, events, free)
        for f in range(dthr.shape[0]):  # features drawn from their award law (after the others)
            if symbol_count(stop, dtrig[f]) >= dthr[f]:
                events[dev[f]] += 1
                comp[len(COMPONENTS) + f] = dvalues[f, pick(rng, dcum[f])]
        total = 0.0
        for j in range(comp.shape[0]):
            total += comp[j]
        if cap_win >= 0 and total > cap_win:
            comp[CAP] = cap_win - total
            total = cap_win
        wins[i] = total
        for j in range(cols.shape[0]):
            parts[i, j] = comp[cols[j]]
    return wins, events, parts


def evaluation(game: Game, level: int, reel_set: str, win: np.ndarray | None = None) -> tuple:
    """(line evaluation args, event names, (ways, count-pays, cluster args)) of
    ``reel_set`` for the pay rule of ``game``
    (:func:`slotmath.engine.payrule.pay_rule`): the other rules' args pay
    nothing.  ``win`` replaces the windows of a ways or count-pays game."""
    from slotmath.engine.payrule import pay_rule

    sampler = pay_rule(game).sampler_pays
    if sampler in PAY_EVALUATIONS:
        names: list = []
        pays = pays_args(game, level, reel_set, sampler, names, win)
        return no_line_args(game, level, reel_set, names), tuple(names), pays
    ev, line_names = evaluation_args(game, level, reel_set)
    return ev, line_names, pays_args(game, level, reel_set, sampler, [])


def free_evaluation(game: Game, level: int, reel_set: str, nudge: str | None, scatter_pays: bool):
    """Evaluation arrays of the free reel set: the expanding wild fills its reel's
    window column; scatter pays zeroed when they are not paid in free games."""
    ev, names, ways = evaluation(game, level, reel_set)
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = ev
    if nudge is not None:
        w = game.symbol_index[nudge]
        sym = sym.copy()
        shows = (sym == w).any(axis=2)
        sym[shows] = w
        sc_count = sc_count.copy()
        for j, name in enumerate(scatter_symbols(game)):
            sc_count[j] = (sym == game.symbol_index[name]).sum(axis=2)
        if ways[0][0].shape[2]:  # a ways game: its stop features from the expanded windows
            ways = evaluation(game, level, reel_set, sym)[2]
    if not scatter_pays:
        sc_pay = np.zeros_like(sc_pay)
    return (dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event), ways, sym


def _trigger_keys(game: Game, sym: np.ndarray, spec) -> np.ndarray:
    """Per reel and stop, what the free games' trigger reads: the symbol's
    count, or for a count on a payline its rows (bit k: row k)."""
    if spec.trigger_lines is None:
        return symbol_counts(game, sym, spec.symbol)
    shows = sym == game.symbol_index[spec.symbol]
    return (shows << np.arange(sym.shape[2], dtype=np.int64)).sum(axis=2).astype(np.int64)


def sampler_args(game: Game, level: int) -> tuple:
    """Arguments of :func:`round_kernel` after ``n`` and ``cols``, and the event names."""
    from slotmath.features.options import load_features
    from slotmath.features.wildmult import played_game

    game = played_game(game)
    declared = load_features(game)
    spec = declared.free_games
    base_ev, names, base_ways = evaluation(game, level, "base")
    base_draw = draw_args(game, "base")
    cells = game.reels * game.rows + 1
    if spec is None:  # a round cap alone: no free games are ever triggered
        free_ev, free_draw, fsym, free_ways = base_ev, base_draw, base_ev[1], base_ways
    else:
        free_ev, free_ways, fsym = free_evaluation(game, level, spec.reels, spec.nudge, spec.scatter_pays)
        free_draw = draw_args(game, spec.reels)
    none = np.zeros(base_ev[1].shape[:2], dtype=np.int64)
    trig = _trigger_keys(game, base_ev[1], spec) if spec else none
    ftrig = _trigger_keys(game, fsym, spec) if spec else trig
    games = np.array([spec.games(c) if spec else 0 for c in range(cells)], dtype=np.int64)
    prize = np.array([float(spec.prize(c)) if spec else 0.0 for c in range(cells)])
    again = np.array([spec.retrigger_games(c) if spec else 0 for c in range(cells)], dtype=np.int64)
    reprize = np.array([float(spec.retrigger_prize(c)) if spec else 0.0 for c in range(cells)])
    params = np.array(
        [
            float(spec.multiplier) if spec else 1.0,
            float(spec.max_games) if spec and spec.max_games else -1.0,
            float(declared.round_cap) if declared.round_cap is not None else -1.0,
        ]
    )
    names += FREE_GAMES_EVENTS if spec is not None and spec.awards else ()
    fg_at = np.array([len(names) - len(FREE_GAMES_EVENTS)], dtype=np.int64)
    mults = np.array([float(spec.multiplier_of(c)) if spec else 1.0 for c in range(cells)])
    need = np.zeros(game.reels, dtype=np.int64)
    for r in spec.trigger_reels or () if spec else ():
        need[r] = 1
    by_set = played_sets(game, level, spec, (free_draw, free_ev, free_ways, ftrig), cells)
    feat = (
        trig,
        ftrig,
        games,
        prize,
        again,
        reprize,
        params,
        fg_at,
        sticky_args(game, level, spec, fsym),
        mults,
        need,
        by_set,
        trigger_lines(game, spec),
    )
    free = None if spec is None else FreeReels(spec.reels, fsym)
    slots, slot_events = slot_tuple(game, level, len(names), free)
    names += slot_events
    drawn, drawn_events = drawn_args(game, level, base_ev[1], len(names))
    names += drawn_events
    sets = (base_draw, base_ev, free_draw, free_ev, base_ways, free_ways)
    return (np.array([len(names)], dtype=np.int64), *sets, feat, slots, drawn), names


def slot_tuple(game: Game, level: int, at: int, free: FreeReels | None) -> tuple:
    """The ``slots`` argument of :func:`round_kernel`: ``(SlotRef, args,
    column)`` per feature of :func:`slotted_kinds` (its
    :attr:`~slotmath.montecarlo.slots.SamplerSlot.args` for ``game``, never
    starting when undeclared; its column that of its component in
    :data:`COMPONENTS`), and the names of their events, counted from ``at``."""
    kinds = slotted_kinds()
    slots, names = slot_args(kinds, game, level, at, free)
    cols = (np.int64(COMPONENTS.index(k.component)) for k in kinds)
    return tuple((ref, args, col) for (ref, args), col in zip(slots, cols, strict=True)), names


def drawn_args(game: Game, level: int, sym: np.ndarray, at: int) -> tuple:
    """The ``drawn`` argument of :func:`round_kernel`: the declared features
    whose kind gives ``draws`` (:class:`~slotmath.features.kinds.FeatureKind`),
    each started by ``trigger`` or more of its symbol in the base window and
    paying an award drawn from its law; with the names of their events
    (``<component> starts``, counted from ``at``); their components take the
    kernel's columns after :data:`COMPONENTS`, in this order.  Arrays:
    symbol counts per feature, reel and stop (F, reels, stops); triggers
    (F,); award values [x total bet] and cumulative probabilities (F, M),
    padded with the last value and 1; event indices (F,)."""
    from slotmath.features.prizes import prize_event
    from slotmath.features.registry import declared_kinds

    laws = [(k.component, *k.draws(game, level)) for k in declared_kinds(game) if k.draws is not None]
    width = max([len(law[3]) for law in laws], default=1)
    dtrig = np.zeros((len(laws), *sym.shape[:2]), dtype=np.int64)
    dthr = np.zeros(len(laws), dtype=np.int64)
    dvalues = np.zeros((len(laws), width))
    dcum = np.ones((len(laws), width))
    for f, (_, symbol, trigger, values, probs) in enumerate(laws):
        dtrig[f] = symbol_counts(game, sym, symbol)
        dthr[f] = trigger
        dvalues[f, : len(values)] = values
        dvalues[f, len(values) :] = values[-1]
        dcum[f, : len(probs)] = np.cumsum(probs) / np.sum(probs)
    names = tuple(prize_event(law[0]) for law in laws)
    dev = np.arange(at, at + len(laws), dtype=np.int64)
    return (dtrig, dthr, dvalues, dcum, dev), names


def trigger_lines(game: Game, spec) -> np.ndarray:
    """The paylines (a row per reel) of a free-games trigger by a count on a
    payline, shape (lines, reels); none (0 lines) for any other trigger."""
    lines = () if spec is None or spec.trigger_lines is None else spec.trigger_lines
    return np.array(lines, dtype=np.int64).reshape(len(lines), game.reels)


def played_sets(game: Game, level: int, spec, declared: tuple, cells: int) -> tuple:
    """``(set by count, sets)``: the index in ``sets`` of the reel set the free
    games of each trigger count play, and per set its (draw, evaluation, ways,
    trigger counts); ``declared`` is the declared ``reels``' (index 0, every
    count's without ``awards.<count>.reels``).  The sets are of one numba type,
    so the kernel picks one by index."""
    by_count = np.zeros(cells, dtype=np.int64)
    sets = [declared]
    if spec is None:  # no free games: never played
        return by_count, tuple(sets)
    names = [spec.reels]
    for c in range(cells):
        name = spec.reels_of(c)
        if name not in names:
            ev, ways, fsym = free_evaluation(game, level, name, spec.nudge, spec.scatter_pays)
            sets.append((draw_args(game, name), ev, ways, _trigger_keys(game, fsym, spec)))
            names.append(name)
        by_count[c] = names.index(name)
    kinds = {nb.typeof(s) for s in sets}
    ensure(len(kinds) == 1, f"roundsim.py: the free reel sets {names} differ in type: {kinds}")
    return by_count, tuple(sets)


def round_sampler(game: Game, level: int, part_names: tuple = COMPONENTS) -> RoundSampler:
    """Compiled sampler of the round (base spin + its features) for
    :mod:`slotmath.montecarlo.run`, its round win split into ``part_names``
    (names of :data:`COMPONENTS`: the rules' RTP components)."""
    from slotmath.features.registry import declared_kinds

    drawn = tuple(k.component for k in declared_kinds(game) if k.draws is not None)
    column = {p: 0 for p in PAY_CHANNELS} | {p: i for i, p in enumerate(COMPONENTS + drawn) if i}
    unknown = [p for p in part_names if p not in column]
    if unknown:
        raise ValueError(f"{game.name}: the round sampler has no component {', '.join(unknown)}")
    args, names = sampler_args(game, level)
    cols = np.array([column[p] for p in part_names], dtype=np.int64)
    return RoundSampler(round_kernel, (cols, *args), names, tuple(part_names))


def round_components(game: Game, level: int, n: int, seed: int = 0) -> np.ndarray:
    """``n`` simulated rounds by component (:data:`COMPONENTS`), shape
    (n, len(COMPONENTS)) [x total bet]."""
    sampler = round_sampler(game, level)
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed)))
    return sampler.kernel(rng, int(n), *sampler.args)[2]


def buy_sampler(game: Game, level: int, spec, bought_games: int) -> RoundSampler:
    """Compiled sampler of a bought free-games round (the free games'
    :class:`~slotmath.features.kinds.Buy`): the round kernel with a base
    spin that pays nothing, counts no event and always starts the free games
    of ``spec`` (:class:`~slotmath.features.options.FreeGamesSpec`, every
    count starting ``bought_games`` = ``spec.games(0)`` games with no prize);
    ``game`` declares only the bought free games (and a round cap).  Its win
    is the ``free_games`` part (and the ``round_cap`` cut)."""
    from slotmath.features.options import load_features

    args, names = sampler_args(game, level)
    n_events, base_draw, base_ev, free_draw, free_ev, _, free_ways, feat, slots, drawn = args
    drawn = (drawn[0], np.full_like(drawn[1], 1 << 30), *drawn[2:])  # the silent base spin starts none
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = base_ev
    no_pay = (np.zeros_like(codes), offsets, label_coins, sc_count, np.zeros_like(sc_pay))
    silent = (dims, sym, cells, *no_pay, np.full_like(sc_event, -1))
    trig, ftrig, games, prize, again, reprize, params, fg_at, sticky, mults, need, (by_count, sets), lines = (
        feat
    )
    bought = np.full_like(games, bought_games)
    # the slots' features play in the free games only
    slots = tuple((ref, load_slot(ref.ref).silent(a), col) for ref, a, col in slots)
    mults = np.full_like(mults, float(spec.multiplier_of(0)))
    silent_feat = (np.zeros_like(trig), ftrig, bought, np.zeros_like(prize), again, reprize, params, fg_at)
    # retriggers keep the reel condition; a bought round plays the declared reels
    feat = (*silent_feat, sticky, mults, need, (np.zeros_like(by_count), sets), lines)
    args = (
        n_events,
        base_draw,
        silent,
        free_draw,
        free_ev,
        pays_args(game, level, "base", "", []),  # the silent base spin pays nothing
        free_ways,
        feat,
        slots,
        drawn,
    )
    parts = ("free_games",) + (("round_cap",) if load_features(game).round_cap is not None else ())
    column = {p: i for i, p in enumerate(COMPONENTS)}
    cols = np.array([column[p] for p in parts], dtype=np.int64)
    return RoundSampler(round_kernel, (cols, *args), names, parts)
