"""One free spin of a free-games feature: its win units, its law by key
(trigger count, unpaid scatters) and the award law a feature builds from it;
shared by the free games (:mod:`slotmath.features.freeround`) and the free
games with a sticky wild (:mod:`slotmath.features.sticky`)."""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from slotmath.engine.distribution import WinDistribution
from slotmath.features.options import FreeGamesSpec
from slotmath.features.round import Trigger
from slotmath.model import Game

__all__ = [
    "free_spin_den",
    "keyed_free_spins",
    "free_spin_triggers",
    "free_spin_entries",
    "spin_win_terms",
    "award_distribution",
    "award_group",
    "awards_added",
]


def free_spin_den(g: Game, level: int, spec: FreeGamesSpec) -> int:
    """Win units per coin of a free spin: the line engine's, refined by the
    retrigger prizes' denominators."""
    from slotmath.engine.scatters import win_denominator

    total_bet = g.bet(level).total_bet
    prizes = [spec.retrigger_prize(c) * total_bet for c in range(g.reels * g.rows + 1)]
    return lcm(win_denominator(g, total_bet), *(Fraction(x).denominator for x in prizes))


def keyed_free_spins(game: Game, g: Game, level: int, spec: FreeGamesSpec, lead: tuple = ()):
    """The free spin on ``g`` (``game``'s free reel set as played) by key.

    Returns
    -------
    entries : list of (y, lead key items, trigger count, stop combinations)
        ``y`` = the spin's win ``Y`` [1/den coins] (see the notes of :mod:`slotmath.features.freeround`);
        the trigger count is the one awards are read by (:meth:`FreeGamesSpec.count_of`).
    den : int
        Win units per coin.
    keyed : KeyedWins
        The engine's law, keyed by ``lead`` items, the trigger count and the
        unpaid scatters' counts.
    """
    from slotmath.engine.payrule import pay_rule

    kw = pay_rule(g).key_distribution(g, level, free_spin_triggers(g, spec, lead), spec.reels)
    return free_spin_entries(game, g, level, spec, kw, lead), free_spin_den(g, level, spec), kw


def free_spin_triggers(g: Game, spec: FreeGamesSpec, lead: tuple = ()) -> list:
    """The key items of a free spin: ``lead``, the trigger, and each other
    scatter symbol when scatters do not pay in free games (their pays are cut)."""
    return [*lead, spec.trigger] + [Trigger(s) for s in _unpaid_others(g, spec)]


def _unpaid_others(g: Game, spec: FreeGamesSpec) -> list:
    """The scatter symbols other than the trigger's whose pays free spins cut."""
    from slotmath.engine.scatters import scatter_symbols

    return [s for s in scatter_symbols(g) if s != spec.symbol] if not spec.scatter_pays else []


def spin_win_terms(game: Game, g: Game, level: int, spec: FreeGamesSpec, unit_den: int, at: int = 0) -> tuple:
    """What a free spin's win ``Y`` [1/den coins] is made of, from the engine's
    win ``w`` [1/unit_den coins] and its key (items of :func:`free_spin_triggers`
    from item ``at``): ``Y = w x step + prize[n] - sum(pays[shown[i]] for i, pays in cut)``,
    ``n`` the trigger count and ``shown[i]`` the count key item ``i`` shows.

    Returns
    -------
    step : int
        Units of ``Y`` per engine unit.
    prize : list of int
        The retrigger prize by trigger count [1/den coins].
    cut : list of (int, list of int)
        Per scatter pay not paid in free games, its key item and its pay by count [1/den coins].
    """
    from slotmath.engine.scatters import scatter_pay, scatter_symbols

    total_bet = game.bet(level).total_bet
    den = free_spin_den(g, level, spec)
    cells = range(g.reels * g.rows + 1)
    prize = [int(spec.retrigger_prize(c) * total_bet * den) for c in cells]
    counted = [spec.symbol] + _unpaid_others(g, spec)
    cut = [
        (at + counted.index(s), [int(scatter_pay(g, s, c) * total_bet * den) for c in cells])
        for s in (scatter_symbols(g) if not spec.scatter_pays else [])
    ]
    return den // unit_den, prize, cut


def free_spin_entries(game: Game, g: Game, level: int, spec: FreeGamesSpec, kw, lead: tuple = ()) -> list:
    """The entries of :func:`keyed_free_spins` from the engine's law ``kw``
    (keyed by :func:`free_spin_triggers`), one per entry of ``kw``, in its order."""
    at = len(lead)
    step, prize, cut = spin_win_terms(game, g, level, spec, kw.unit_den, at)
    entries = []
    for w, key, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        n = spec.count_of(key[at])
        shown = [k if isinstance(k, int) else sum(k) for k in key]  # per reel under a reel condition
        shown[at] = spec.window_count(key[at])  # (a count on a payline: rows per reel)
        y = w * step + prize[n] - sum(pays[shown[i]] for i, pays in cut)
        entries.append((y, key[:at], n, c))
    return entries


def award_distribution(probs, unit: int, den: int, multiplier, prize: Fraction, total_bet: int):
    """The award ``prize + multiplier x sum Y`` [x total bet] as a
    :class:`WinDistribution`, from ``probs[j]`` = P(sum Y = j x unit [1/den coins])."""
    mult = Fraction(multiplier)
    prize_den = (prize * total_bet * den * mult.denominator).denominator
    award_den = den * mult.denominator * prize_den
    grid = np.arange(len(probs)) * (mult.numerator * prize_den * unit)
    shift = int(prize * total_bet * award_den)
    nz = probs > 0
    return WinDistribution(grid[nz] + shift, probs[nz], award_den, total_bet)


def award_group(held, key, groups: dict) -> int:
    """Index of the award group of ``key`` for the feature ``held`` (a
    :class:`~slotmath.features.round.Feature` a free spin's window starts),
    -1 when ``key`` does not start it; ``groups`` (award group -> (its
    index, a key of it)) gains the group when new.  Keys of one group share
    one award law (:func:`awards_added`'s ``laws``)."""
    if not held.triggers(key):
        return -1
    return groups.setdefault(held.group(key), (len(groups), key))[0]


def awards_added(y, k, g, p, den: int, laws: list) -> tuple:
    """``(table, unit)``: the float law of (win with the award, extra games)
    of a free spin whose rows are (win ``y`` [1/``den`` coins], extra games
    ``k``, award group ``g``: an index into ``laws``, -1 without an award)
    at probability ``p``, each row's group's award law (a
    :class:`~slotmath.engine.distribution.WinDistribution`) added to its
    win; ``table`` indexed by win [1/``unit`` coins] and extra games,
    normalised."""
    unit = lcm(den, *(law.unit_den for law in laws))
    y = y * (unit // den)
    shifts = [law.wins * (unit // law.unit_den) for law in laws]
    top = max(
        [int(y.max())] + [int(y[g == j].max() + a.max()) for j, a in enumerate(shifts) if (g == j).any()]
    )
    width = int(k.max()) + 1
    flat = np.zeros((top + 1) * width)
    none = g < 0
    flat += np.bincount(y[none] * width + k[none], p[none], minlength=flat.size)
    for j, (a, law) in enumerate(zip(shifts, laws, strict=True)):
        sel = np.flatnonzero(g == j)
        chunk = max(1, (1 << 22) // len(a))  # rows at a time: bounded memory
        for lo in range(0, len(sel), chunk):
            r = sel[lo : lo + chunk]
            at_w = (y[r, None] + a[None, :]) * width + k[r, None]
            flat += np.bincount(
                at_w.ravel(), (p[r, None] * law.probabilities[None, :]).ravel(), minlength=flat.size
            )
    table = flat.reshape(top + 1, width)
    return table / table.sum(), unit
