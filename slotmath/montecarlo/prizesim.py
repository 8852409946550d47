"""Compiled play of the wheel and the selection, slots of the round sampler
(:mod:`slotmath.montecarlo.roundsim`).

The wheel (``options.wheel`` with a ``symbol``): ``trigger`` or more of its
symbol in the base window spin it ``spins`` times, each spin an outcome
drawn with the wheel's probabilities (the ``before`` prize first,
:func:`slotmath.features.wheel.outcomes`).  The selection
(``options.selection``): ``trigger`` or more of its symbol draw a choice
with the policy's probabilities (``max_rtp`` compares the exact means) and
play it: its prize, its wheel spins, and its free games at its multiplier
(played by the kernel on the declared free reels, their events counted
apart: the exact rates count the free games the base window starts).
Beside a ``lockit`` the wheel is the lock-it's mark award (its slot spins
it) and neither starts here (:func:`~slotmath.features.options.plays_prizes`).

Events: ``wheel starts``, ``wheel jackpot NAME`` per jackpot of the wheel;
``selection starts``, ``selection jackpot NAME`` per jackpot a choice pays
(its label or its wheel spins'), named by
:func:`slotmath.features.prizes.prize_event`; each followed, for one that
plays in free games (``in_free_games``), by the same events of its starts
in free games (named :func:`~slotmath.features.infree.in_free_games_event`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.errors import ensure
from slotmath.model import Game
from slotmath.montecarlo.linesim import window_symbols
from slotmath.montecarlo.slots import FreeReels, SamplerSlot, pick, symbol_count, symbol_counts

__all__ = ["wheel_spins", "WHEEL_SLOT", "SELECTION_SLOT"]


@nb.njit(cache=True)
def wheel_spins(rng, spins, values, cum, jack, events):
    """Total of ``spins`` wheel awards [x total bet]; a jackpot outcome ``j``
    counts one hit of event ``jack[j]`` (-1: a plain prize)."""
    out = 0.0
    for _ in range(spins):
        j = pick(rng, cum)
        out += values[j]
        if jack[j] >= 0:
            events[jack[j]] += 1
    return out


def _wheel_table(prizes) -> tuple:
    """(outcomes, values [x total bet], cumulative probabilities) of the declared wheel."""
    from slotmath.features import wheel as wheel_mod

    if prizes is None or prizes.wheel is None:
        return [], np.zeros(1), np.ones(1)
    o = wheel_mod.outcomes(prizes.wheel.wheel)
    return o, np.array([float(v) for _, v, _ in o]), np.cumsum([float(p) for _, _, p in o])


def _declared(game: Game):
    """The wheel and selection declarations when they play as features of their own, else None."""
    from slotmath.features.options import plays_prizes
    from slotmath.features.prizes import load_line_prizes

    return load_line_prizes(game) if plays_prizes(game) else None


def _in_free(names: list, at: int, ev: np.ndarray, jack: list) -> tuple:
    """Append the in-free copy of every event of ``names`` (counted from
    ``at``); (start events, jackpot events) ``ev``, ``jack`` mapped to their copies."""
    from slotmath.features.infree import in_free_games_event

    n = len(names)
    names += [in_free_games_event(name) for name in names]
    return tuple(np.where(j >= 0, j + n, -1).astype(np.int64) for j in (ev, *jack))


def _wheel_args(game: Game, level: int, at: int, free: FreeReels | None) -> tuple:
    """(symbol counts per base reel and stop, (trigger, spins, trigger in
    free games), values [x total bet], cumulative probabilities, (starts
    event, in-free starts event), jackpot event per outcome (-1: none),
    symbol counts per free reel and stop, in-free jackpot event per
    outcome), event names; never started without a wheel of its own."""
    from slotmath.features.prizes import jackpot_rates, prize_event

    never = game.reels * game.rows + 1
    sym = window_symbols(game, "base")
    fsym = sym if free is None else free.windows
    trig, ftrig = np.zeros(sym.shape[:2], dtype=np.int64), np.zeros(fsym.shape[:2], dtype=np.int64)
    params = np.array([never, 0, never], dtype=np.int64)
    ev = np.zeros(2, dtype=np.int64)  # never counted where never triggered
    jack = fjack = np.full(1, -1, dtype=np.int64)
    names: list = []
    prizes = _declared(game)
    o, values, cum = _wheel_table(prizes)
    if prizes is not None and prizes.wheel is not None and prizes.wheel.symbol is not None:
        w = prizes.wheel
        trig = symbol_counts(game, sym, w.symbol)
        params[0], params[1] = w.trigger or 0, w.spins
        names += [prize_event("wheel")] + [prize_event("wheel", k) for k in jackpot_rates(w.wheel)]
        ev[0] = at
        named = {k: at + 1 + i for i, k in enumerate(jackpot_rates(w.wheel))}
        jack = fjack = np.array([named.get(label, -1) for label, _, _ in o], dtype=np.int64)
        if w.in_free_games:
            ftrig, params[2] = symbol_counts(game, fsym, w.symbol), w.trigger
            (fev, fjack) = _in_free(names, at, ev[:1], [jack])
            ev[1] = fev[0]
    return (trig, params, values, cum, ev, jack, ftrig, fjack), tuple(names)


@nb.njit(cache=True, inline="always")
def _count_start(stop, a):
    """:attr:`SamplerSlot.start` of the wheel and the selection: the count of
    their symbol (``a[0]``) when it reaches the trigger ``a[1][0]``, else -1."""
    c = symbol_count(stop, a[0])
    return c if c >= a[1][0] else -1


@nb.njit(cache=True)
def _wheel_play(rng, key, a, events):
    params, values, cum, ev, jack = a[1], a[2], a[3], a[4], a[5]
    events[ev[0]] += 1
    return wheel_spins(rng, params[1], values, cum, jack, events), 0, 0.0


@nb.njit(cache=True)
def _wheel_play_free(rng, fstop, a, events):
    params = a[1]
    if symbol_count(fstop, a[6]) < params[2]:
        return 0.0
    events[a[4][1]] += 1
    return wheel_spins(rng, params[1], a[2], a[3], a[7], events)


def _count_silent(a: tuple) -> tuple:
    """:attr:`SamplerSlot.silent` of the wheel and the selection: no symbol counted on the base reels."""
    return (np.zeros_like(a[0]), *a[1:])


#: The wheel's slot of the round sampler (``options.wheel`` with a ``symbol``).
WHEEL_SLOT = SamplerSlot(_wheel_args, _count_start, _wheel_play, _wheel_play_free, _count_silent)


def _selection_args(game: Game, level: int, at: int, free: FreeReels | None) -> tuple:
    """(symbol counts per base reel and stop, (trigger, trigger in free
    games), the choices' cumulative probabilities, prizes [x total bet],
    free games, multipliers, wheel spins, the wheel's values [x total bet]
    and cumulative probabilities, (starts event, in-free starts event),
    jackpot event per choice, per wheel outcome (-1: none), symbol counts
    per free reel and stop, in-free jackpot event per choice and per wheel
    outcome), event names; never started without a selection."""
    from slotmath.features.prizes import prize_event, selection_feature

    never = game.reels * game.rows + 1
    sym = window_symbols(game, "base")
    fsym = sym if free is None else free.windows
    trig, ftrig = np.zeros(sym.shape[:2], dtype=np.int64), np.zeros(fsym.shape[:2], dtype=np.int64)
    params = np.array([never, never], dtype=np.int64)
    ccum, cprize, cmult = np.ones(1), np.zeros(1), np.zeros(1)
    cgames, cwheel = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    ev = np.zeros(2, dtype=np.int64)  # never counted where never triggered
    cjack = sjack = np.full(1, -1, dtype=np.int64)
    fcjack, fsjack = cjack, sjack
    names: list = []
    prizes = _declared(game)
    o, values, cum = _wheel_table(prizes)
    sel = None if prizes is None else prizes.selection
    if prizes is not None and sel is not None:
        trig = symbol_counts(game, sym, sel.symbol)
        params[0] = sel.trigger
        # the policy's choice probabilities (max_rtp compares the exact means)
        odds = selection_feature(game, level, sel, prizes).odds
        ensure(odds is not None, "prizesim.py: expected odds is not None")
        figures = odds({0: 1})
        probs = figures["choices"]
        names += [prize_event("selection")] + [prize_event("selection", k) for k in figures["jackpots"]]
        ev[0] = at
        named = {k: at + 1 + i for i, k in enumerate(figures["jackpots"])}
        cjack = np.array([named.get(c.label, -1) if c.label else -1 for c in sel.choices], dtype=np.int64)
        if prizes.wheel is not None:
            sjack = np.array([named.get(label, -1) for label, _, _ in o], dtype=np.int64)
        fcjack, fsjack = cjack, sjack
        ccum = np.cumsum([probs[c.name]["probability"] for c in sel.choices])
        cprize = np.array([float(c.prize) for c in sel.choices])
        cgames = np.array([c.free_games for c in sel.choices], dtype=np.int64)
        cmult = np.array([float(c.multiplier or 0) for c in sel.choices])
        cwheel = np.array([c.wheel for c in sel.choices], dtype=np.int64)
        if sel.in_free_games:
            ftrig, params[1] = symbol_counts(game, fsym, sel.symbol), sel.trigger
            fev, fcjack, fsjack = _in_free(names, at, ev[:1], [cjack, sjack])
            ev[1] = fev[0]
    choices = (ccum, cprize, cgames, cmult, cwheel, values, cum)
    return (trig, params, *choices, ev, cjack, sjack, ftrig, fcjack, fsjack), tuple(names)


@nb.njit(cache=True, inline="always")
def _choose(rng, a, ev, cjack, sjack, events):
    """Draw a choice and play its prize and wheel spins: (choice, award [x total bet])."""
    ccum, cprize, cwheel, values, cum = a[2], a[3], a[6], a[7], a[8]
    events[ev] += 1
    k = pick(rng, ccum)
    if cjack[k] >= 0:
        events[cjack[k]] += 1
    return k, cprize[k] + wheel_spins(rng, cwheel[k], values, cum, sjack, events)


@nb.njit(cache=True)
def _selection_play(rng, key, a, events):
    k, award = _choose(rng, a, a[9][0], a[10], a[11], events)
    return award, a[4][k], a[5][k]


@nb.njit(cache=True)
def _selection_play_free(rng, fstop, a, events):
    """In a free game a choice's free games are not played (its prize and wheel spins are)."""
    if symbol_count(fstop, a[12]) < a[1][1]:
        return 0.0
    return _choose(rng, a, a[9][1], a[13], a[14], events)[1]


#: The selection's slot of the round sampler (``options.selection``).
SELECTION_SLOT = SamplerSlot(
    _selection_args, _count_start, _selection_play, _selection_play_free, _count_silent
)
