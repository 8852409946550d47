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
  (prize, free games at the choice's multiplier, wheel spins);

and cap the round at ``round_cap``.  Every feature reads its trigger off the
base stops (free spins draw into stops of their own).

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
their starts and jackpots, :func:`prize_args`).  Every jackpot event counts
the jackpots the sampler draws, compared with the feature's exact hits per
round.

Adding a base-triggered feature
-------------------------------
A feature is one *slot* of the round: a tuple of arrays built in Python
(``x_args(game, at)``, ``at`` the index of its first event; arrays of the
same types that never trigger when the game does not declare it, so one
compiled kernel serves every game), an inlined njit ``x_start(stop, ...)``
reading its trigger off the base ``stop`` (a key, or -1), and an njit
``play_x(rng, key, args, events)`` that plays the feature, counts its
events and returns its award [x total bet].  Plugging it in is local: its
column comes from its kind in the registry (:data:`COMPONENTS`, a named
constant such as :data:`HOLD`), one argument of :func:`round_kernel` (its
trigger read in the loop, next to the others) passed on to
:func:`_features` (one block there, in the order of ``round_features``),
and its args and event names in :func:`sampler_args`.  The hold-and-spin
is such a slot (:func:`~slotmath.montecarlo.holdspinsim.hold_and_spin_args`,
``hold_and_spin_start``, ``play_hold_and_spin``), and so is the lock-it
(:func:`~slotmath.montecarlo.lockitsim.lockit_slot_args`, ``lockit_start``,
``play_lockit_slot``).  A feature whose award does not depend on the window
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
from slotmath.montecarlo.holdspinsim import (
    hold_and_spin_args,
    hold_and_spin_start,
    play_free_hold_and_spin,
    play_hold_and_spin,
)
from slotmath.montecarlo.linesim import (
    draw_args,
    draw_stops,
    drawn_line_win,
    evaluation_args,
    key_count,
    no_line_args,
    scatter_win,
)
from slotmath.montecarlo.lockitsim import lockit_slot_args, lockit_start, play_free_lockit, play_lockit_slot
from slotmath.montecarlo.payeval import PAY_EVALUATIONS, pays_args
from slotmath.montecarlo.run import RoundSampler
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
#: the column of each slot of the kernel
FREE, CAP, WHEEL, SELECTION, HOLD, LOCKIT = (
    COMPONENTS.index(c) for c in ("free_games", "round_cap", "wheel", "selection", "hold_and_spin", "lockit")
)
#: The pay channels of the pay rules: each is paid in column 0 of :data:`COMPONENTS`.
PAY_CHANNELS = ("lines", "ways", "anywhere", "cluster")


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
def _count(stop, trig):
    c = 0
    for r in range(stop.shape[0]):
        c += trig[r, stop[r]]
    return c


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
def _free_prizes(rng, fstop, prizes, events):
    """The wheel or selection a free game's window at ``fstop`` starts
    (``in_free_games``: counts of the free reel set ``prizes[14]``,
    ``prizes[15]``, thresholds ``prizes[16]``, events ``prizes[17]`` and
    jackpot events ``prizes[18:21]``, named
    :func:`~slotmath.features.infree.in_free_games_event`): its award [x
    total bet], 0 when none starts."""
    pp, wvalues, wcum, ccum, cprize, cwheel = prizes[2], prizes[3], prizes[4], prizes[5], prizes[6], prizes[9]
    fwtrig, fstrig, fpp, fpev, fwjack, fsjack, fcjack = (
        prizes[14],
        prizes[15],
        prizes[16],
        prizes[17],
        prizes[18],
        prizes[19],
        prizes[20],
    )
    out = 0.0
    if _count(fstop, fwtrig) >= fpp[0]:
        events[fpev[0]] += 1
        out += _wheel_spins(rng, pp[1], wvalues, wcum, fwjack, events)
    if _count(fstop, fstrig) >= fpp[1]:
        events[fpev[1]] += 1
        k = _pick(rng, ccum)
        if fcjack[k] >= 0:
            events[fcjack[k]] += 1
        out += cprize[k] + _wheel_spins(rng, cwheel[k], wvalues, wcum, fsjack, events)
    return out


@nb.njit(cache=True)
def _free_play(
    rng,
    games,
    stop,
    window,
    fg_events,
    events,
    free_draw,
    free_ev,
    free_ways,
    ftrig,
    feat,
    hold,
    prizes,
    lock,
):
    """Play ``games`` free games on one reel set (``free_draw``, ``free_ev``,
    ``free_ways``, trigger counts ``ftrig``; with retriggers, at most ``max
    games``), drawing into ``stop``: (their win before the multiplier [x total bet],
    games played); a free game's window may trigger the hold-and-spin
    (``in_free_games``: :func:`~slotmath.montecarlo.holdspinsim.play_free_hold_and_spin`)
    or the lock-it (:func:`~slotmath.montecarlo.lockitsim.play_free_lockit`)
    or the wheel or selection (:func:`_free_prizes`), its events counted in
    ``events``, its award part of that game's win."""
    again, reprize, cap_games, need, on_lines = feat[4], feat[5], feat[6][1], feat[10], feat[12]
    if feat[8][0][0] >= 0:  # a sticky wild (slotmath.montecarlo.stickysim)
        return sticky_free_play(
            rng, games, stop, window, fg_events, free_draw, free_ev, again, reprize, cap_games, feat[8]
        )
    left = games
    played = 0
    fg = 0.0
    while left > 0 and (cap_games < 0 or played < cap_games):
        left -= 1
        played += 1
        lines, sc = _spin(rng, stop, window, free_draw, free_ev, free_ways, fg_events)
        k = _key(stop, ftrig, need, on_lines)
        fg += lines + sc + reprize[k] + play_free_hold_and_spin(rng, stop, hold, events)
        fg += _free_prizes(rng, stop, prizes, events) + play_free_lockit(rng, stop, lock, events)
        left += again[k]
    return fg, played


@nb.njit(cache=True)
def _pick(rng, cum):
    """Index drawn with the cumulative probabilities ``cum``."""
    i = np.searchsorted(cum, rng.random() * cum[-1], side="right")
    return min(i, cum.shape[0] - 1)


@nb.njit(cache=True)
def _wheel_spins(rng, spins, values, cum, jack, events):
    """Total of ``spins`` wheel awards [x total bet]; a jackpot outcome ``j``
    counts one hit of event ``jack[j]`` (-1: a plain prize)."""
    out = 0.0
    for _ in range(spins):
        j = _pick(rng, cum)
        out += values[j]
        if jack[j] >= 0:
            events[jack[j]] += 1
    return out


@nb.njit(cache=True)
def _features(rng, comp, starts, fstop, window, events, spare, fg_events, sets, feat, prizes, hold, lock):
    """Play the features the base window triggered (the order of
    ``linegame.round_features``) into ``comp``: ``starts`` = (``c``,
    ``mask``, ``lstate``, ``cw``, ``cs``), ``c``, ``cw``, ``cs`` the
    free-games, wheel and selection symbol counts, ``mask`` the held coins
    (a mask, or the code of the per-reel counts; -1: no hold-and-spin),
    ``lstate`` the lock-it's start (-1: none); ``spare`` (shaped as
    ``events``) takes the events of free games a selection awards, which
    the exact rates leave out."""
    c, mask, lstate, cw, cs = starts
    _, _, free_draw, free_ev, _, free_ways = sets
    games, prize, mults, fg_at = feat[2], feat[3], feat[9], feat[7][0]
    by_count, played_sets = feat[11]
    pp, wvalues, wcum, ccum, cprize, cgames, cmult, cwheel = prizes[2:10]
    pev, wjack, sjack, cjack = prizes[10:14]
    if games[c] > 0:
        events[fg_at] += 1
        s_draw, s_ev, s_ways, s_trig = played_sets[by_count[c]]  # the reel set the count starts
        fg, played = _free_play(
            rng,
            games[c],
            fstop,
            window,
            fg_events,
            events,
            s_draw,
            s_ev,
            s_ways,
            s_trig,
            feat,
            hold,
            prizes,
            lock,
        )
        events[fg_at + 1] += played
        comp[FREE] = prize[c] + mults[c] * fg
    if mask >= 0:
        comp[HOLD] = play_hold_and_spin(rng, mask, hold, events)
    if lstate >= 0:
        comp[LOCKIT] = play_lockit_slot(rng, lstate, lock, events)
    if cw >= pp[0]:
        events[pev[0]] += 1
        comp[WHEEL] = _wheel_spins(rng, pp[1], wvalues, wcum, wjack, events)
    if cs >= pp[2]:
        events[pev[1]] += 1
        k = _pick(rng, ccum)
        if cjack[k] >= 0:
            events[cjack[k]] += 1
        comp[SELECTION] = cprize[k] + _wheel_spins(rng, cwheel[k], wvalues, wcum, sjack, events)
        if cgames[k] > 0:
            # the exact rates count the free games the base window starts: these apart
            fg, _ = _free_play(
                rng,
                cgames[k],
                fstop,
                window,
                fg_events,
                spare,
                free_draw,
                free_ev,
                free_ways,
                feat[1],
                feat,
                hold,
                prizes,
                lock,
            )
            comp[SELECTION] += cmult[k] * fg


@nb.njit(cache=True)
def round_kernel(
    rng,
    n,
    cols,
    n_events,
    base_draw,
    base_ev,
    free_draw,
    free_ev,
    base_ways,
    free_ways,
    feat,
    prizes,
    hold,
    lock,
    drawn,
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
    ``prizes`` = (wheel and selection symbol counts per base stop, (wheel
    trigger, wheel spins, selection trigger), wheel values, their cumulative
    probabilities, choices' cumulative probabilities, prizes, free games,
    multipliers, wheel spins);
    ``hold`` = the hold-and-spin slot (:func:`hold_and_spin_args`);
    ``lock`` = the lock-it slot (:func:`lockit_slot_args`);
    ``drawn`` = the generic slot of the features whose award is drawn from
    its law (:func:`drawn_args`), paid in the columns after
    :data:`COMPONENTS`.

    The loop plays the base spin and reads every trigger with arrays
    unpacked once, here (taking an array out of a tuple inside the loop
    costs a reference count update per array and round, several times the
    base spin); :func:`_features` plays the features only when one triggers.
    """
    bound, use_table, table, cum, n_stops = base_draw
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = base_ev
    trig, games, cap_win, need, on_lines = feat[0], feat[2], feat[6][2], feat[10], feat[12]
    wtrig, strig, pp = prizes[0], prizes[1], prizes[2]
    coins, head = hold[0], hold[1]
    held, marked, lhead = lock[0], lock[1], lock[2]
    dtrig, dthr, dvalues, dcum, dev = drawn
    sets = (base_draw, base_ev, free_draw, free_ev, base_ways, free_ways)
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
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        comp[0] = drawn_line_win(rng, stop, window, dims, sym, cells, codes, offsets, label_coins, events)
        comp[0] += _pays_win(rng, stop, base_ways, events)
        comp[1] = scatter_win(stop, sc_count, sc_pay, sc_event, events)
        for j in range(2, comp.shape[0]):
            comp[j] = 0.0
        # every feature's trigger, read off the base stops
        c = _key(stop, trig, need, on_lines)
        mask = hold_and_spin_start(stop, coins, head)
        lstate = lockit_start(stop, held, marked, lhead)
        cw = _count(stop, wtrig)
        cs = _count(stop, strig)
        if games[c] > 0 or mask >= 0 or lstate >= 0 or cw >= pp[0] or cs >= pp[2]:
            starts = (c, mask, lstate, cw, cs)
            _features(
                rng, comp, starts, fstop, window, events, spare, fg_events, sets, feat, prizes, hold, lock
            )
        for f in range(dthr.shape[0]):  # features drawn from their award law (after the others)
            if _count(stop, dtrig[f]) >= dthr[f]:
                events[dev[f]] += 1
                comp[len(COMPONENTS) + f] = dvalues[f, _pick(rng, dcum[f])]
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
        return _trigger_counts(game, sym, spec.symbol)
    shows = sym == game.symbol_index[spec.symbol]
    return (shows << np.arange(sym.shape[2], dtype=np.int64)).sum(axis=2).astype(np.int64)


def _trigger_counts(game: Game, sym: np.ndarray, symbol: str) -> np.ndarray:
    return (sym == game.symbol_index[symbol]).sum(axis=2).astype(np.int64)


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
    hold, hold_events = hold_and_spin_args(game, len(names), None if spec is None else spec.reels)
    names += hold_events
    lock, lock_events = lockit_slot_args(game, level, len(names), None if spec is None else spec.reels)
    names += lock_events
    prizes, prize_events = prize_args(game, level, base_ev[1], len(names), fsym)
    names += prize_events
    drawn, drawn_events = drawn_args(game, level, base_ev[1], len(names))
    names += drawn_events
    sets = (base_draw, base_ev, free_draw, free_ev, base_ways, free_ways)
    return (np.array([len(names)], dtype=np.int64), *sets, feat, prizes, hold, lock, drawn), names


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
        dtrig[f] = _trigger_counts(game, sym, symbol)
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


def prize_args(game: Game, level: int, sym: np.ndarray, at: int, fsym: np.ndarray | None = None) -> tuple:
    """The ``prizes`` argument of :func:`_round` from ``options.wheel`` and
    ``options.selection`` (never triggered when absent), and the names of
    their events, counted from index ``at``: ``wheel starts`` and ``wheel
    jackpot NAME`` per jackpot of the wheel, ``selection starts`` and
    ``selection jackpot NAME`` per jackpot a choice pays (its label or its
    wheel spins'), named by :func:`slotmath.features.prizes.prize_event`;
    then, for one that plays in free games (``in_free_games``, read on the
    free reel set's symbols ``fsym``), the same events of its starts in free
    games (:func:`_free_prizes`)."""
    from slotmath.features import wheel as wheel_mod
    from slotmath.features.infree import in_free_games_event
    from slotmath.features.prizes import jackpot_rates, prize_event

    never = game.reels * game.rows + 1
    none = np.zeros(sym.shape[:2], dtype=np.int64)
    wtrig, strig = none, none
    pp = np.array([never, 0, never], dtype=np.int64)
    wvalues, wcum = np.zeros(1), np.ones(1)
    ccum, cprize, cmult = np.ones(1), np.zeros(1), np.zeros(1)
    cgames, cwheel = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    pev = np.zeros(2, dtype=np.int64)  # never counted where never triggered
    wjack, sjack, cjack = (np.full(1, -1, dtype=np.int64) for _ in range(3))
    names: list = []

    def event(name: str) -> int:
        names.append(name)
        return at + len(names) - 1

    from slotmath.features.options import plays_prizes

    if plays_prizes(game):  # else absent, or the lock-it's mark award (its slot spins it)
        from slotmath.features.prizes import load_line_prizes, selection_feature

        prizes = load_line_prizes(game)
        if prizes.wheel is not None:
            o = wheel_mod.outcomes(prizes.wheel.wheel)
            wvalues = np.array([float(v) for _, v, _ in o])
            wcum = np.cumsum([float(p) for _, _, p in o])
            if prizes.wheel.symbol is not None:
                wtrig = _trigger_counts(game, sym, prizes.wheel.symbol)
                pp[0], pp[1] = prizes.wheel.trigger or 0, prizes.wheel.spins
                pev[0] = event(prize_event("wheel"))
                named = {k: event(prize_event("wheel", k)) for k in jackpot_rates(prizes.wheel.wheel)}
                wjack = np.array([named.get(label, -1) for label, _, _ in o], dtype=np.int64)
        sel = prizes.selection
        if sel is not None:
            strig = _trigger_counts(game, sym, sel.symbol)
            pp[2] = sel.trigger
            # the policy's choice probabilities (max_rtp compares the exact means)
            odds = selection_feature(game, level, sel, prizes).odds
            ensure(odds is not None, "roundsim.py: expected odds is not None")
            figures = odds({0: 1})
            probs = figures["choices"]
            pev[1] = event(prize_event("selection"))
            named = {k: event(prize_event("selection", k)) for k in figures["jackpots"]}
            cjack = np.array([named.get(c.label, -1) if c.label else -1 for c in sel.choices], dtype=np.int64)
            if prizes.wheel is not None:
                o = wheel_mod.outcomes(prizes.wheel.wheel)
                sjack = np.array([named.get(label, -1) for label, _, _ in o], dtype=np.int64)
            ccum = np.cumsum([probs[c.name]["probability"] for c in sel.choices])
            cprize = np.array([float(c.prize) for c in sel.choices])
            cgames = np.array([c.free_games for c in sel.choices], dtype=np.int64)
            cmult = np.array([float(c.multiplier or 0) for c in sel.choices])
            cwheel = np.array([c.wheel for c in sel.choices], dtype=np.int64)
    fsym = sym if fsym is None else fsym
    fnone = np.zeros(fsym.shape[:2], dtype=np.int64)
    fwtrig, fstrig = fnone, fnone
    fpp = np.array([never, never], dtype=np.int64)
    fpev = np.zeros(2, dtype=np.int64)
    fwjack, fsjack, fcjack = wjack, sjack, cjack
    if plays_prizes(game):
        base = tuple(names)
        at_of = {n: event(in_free_games_event(n)) for n in base if _in_free(prizes, n)}
        if prizes.wheel is not None and prizes.wheel.in_free_games:
            fwtrig, fpp[0] = _trigger_counts(game, fsym, prizes.wheel.symbol), prizes.wheel.trigger
            fpev[0] = at_of[prize_event("wheel")]
            fwjack = np.array([at_of.get(base[j - at], -1) if j >= 0 else -1 for j in wjack], dtype=np.int64)
        if sel is not None and sel.in_free_games:
            fstrig, fpp[1] = _trigger_counts(game, fsym, sel.symbol), sel.trigger
            fpev[1] = at_of[prize_event("selection")]
            fsjack = np.array([at_of.get(base[j - at], -1) if j >= 0 else -1 for j in sjack], dtype=np.int64)
            fcjack = np.array([at_of.get(base[j - at], -1) if j >= 0 else -1 for j in cjack], dtype=np.int64)
    args = (wtrig, strig, pp, wvalues, wcum, ccum, cprize, cgames, cmult, cwheel, pev, wjack, sjack, cjack)
    args += (fwtrig, fstrig, fpp, fpev, fwjack, fsjack, fcjack)
    return args, tuple(names)


def _in_free(prizes, name: str) -> bool:
    """The wheel's or selection's event ``name`` (:func:`prize_event`) is
    also counted in free games: its feature plays there."""
    feature = name.split(" ")[0]
    spec = getattr(prizes, feature)
    return spec is not None and spec.in_free_games


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
    n_events, base_draw, base_ev, free_draw, free_ev, _, free_ways, feat, prizes, hold, lock, drawn = args
    drawn = (drawn[0], np.full_like(drawn[1], 1 << 30), *drawn[2:])  # the silent base spin starts none
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = base_ev
    no_pay = (np.zeros_like(codes), offsets, label_coins, sc_count, np.zeros_like(sc_pay))
    silent = (dims, sym, cells, *no_pay, np.full_like(sc_event, -1))
    trig, ftrig, games, prize, again, reprize, params, fg_at, sticky, mults, need, (by_count, sets), lines = (
        feat
    )
    bought = np.full_like(games, bought_games)
    hold = (np.zeros_like(hold[0]), *hold[1:])  # a hold-and-spin plays in the free games only
    lock = (np.zeros_like(lock[0]), np.zeros_like(lock[1]), *lock[2:])  # so does a lock-it
    prizes = (np.zeros_like(prizes[0]), np.zeros_like(prizes[1]), *prizes[2:])  # so do a wheel, a selection
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
        prizes,
        hold,
        lock,
        drawn,
    )
    parts = ("free_games",) + (("round_cap",) if load_features(game).round_cap is not None else ())
    column = {p: i for i, p in enumerate(COMPONENTS)}
    cols = np.array([column[p] for p in parts], dtype=np.int64)
    return RoundSampler(round_kernel, (cols, *args), names, parts)
