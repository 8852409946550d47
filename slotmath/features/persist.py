"""Board multipliers that persist through the free games
(``options.tumble.multiplier_symbols.persist: true``, docs/features.md
"Persistent board multipliers").

The rule: in the free games of one trigger (retriggered games included) a
running total ``T`` starts at 0; each paying free spin (its tumbles pay)
first adds the values of the multiplier symbols on its final board to
``T``, then its tumble pays are paid x ``max(T, 1)`` (x1 while no value
has been collected: a free spin never pays less than without multipliers,
as a base spin with none on the board pays x1).  Scatter pays and
retrigger prizes are not multiplied; a spin that does not pay adds nothing.

Exactness: a free spin depends on the past only through the games left and
``T``; its own outcome is independent of both.  With ``W`` its tumble pay,
``S`` its added values (0 unless it pays) and ``T'`` the total before it,
``E[W max(T' + S, 1)] = E[T'] E[W] + E[W S] + P(T' = 0) E[W 1{S = 0}]``
within each state (values are >= 1, so ``T' + S = 0`` iff both are 0).
The forward chain over (games played, games left) carries per state its
probability, ``E[T' 1{state}]`` and ``P(T' = 0, state)``; each spin's
outcomes are grouped by the games they add.  The mean of the round's sum
is an exact Fraction; its distribution is not computed (the state would
need ``T``): :func:`persist_feature` refuses it in one line with the exact
mean award, pointing to ``slotmath simulate``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import cache

from slotmath.engine.limits import EngineTooLarge
from slotmath.features.freespin import free_spin_den, free_spin_entries, free_spin_triggers
from slotmath.features.options import FreeGamesSpec
from slotmath.features.round import Feature
from slotmath.model import Game

__all__ = ["PersistChain", "persist_chain", "persist_feature", "persist_rtp", "persists"]


@dataclasses.dataclass(frozen=True, eq=False)
class PersistChain:
    """One free spin's moments grouped by the games it adds: ``groups[e]`` =
    (P, E[Y0], E[A], E[A S], E[A 1{S=0}], E[S], P(S=0)) restricted to the
    outcomes adding ``e`` games, ``Y0`` the unmultiplied win (scatter pays,
    prizes) and ``A`` the tumble pays [1/den coins], ``S`` the added values;
    ``cap`` the most games played (None: the games awarded)."""

    groups: dict
    den: int
    cap: int | None

    @cache  # noqa: B019 (one chain per game and level)
    def mean(self, n: int) -> Fraction:
        """E[sum of the free spins' wins] [1/den coins, exact] of ``n`` games."""
        limit = n if self.cap is None else self.cap
        total = Fraction(0)
        states = {min(n, limit): (Fraction(1), Fraction(0), Fraction(1))}  # left: (P, E[T 1], P(T=0))
        for t in range(limit):
            nxt: dict = {}
            for left, (p, a, z) in states.items():
                for e, (q, y0, w, ws, w0, s, s0) in self.groups.items():
                    total += p * y0 + a * w + p * ws + z * w0
                    left2 = min(left - 1 + e, limit - t - 1)
                    if left2 > 0:
                        p2, a2, z2 = nxt.get(left2, (0, 0, 0))
                        nxt[left2] = (p2 + p * q, a2 + a * q + p * s, z2 + z * s0)
            states = nxt
        return total


def persists(game: Game) -> bool:
    """True when the free games' board multipliers persist through the round."""
    from slotmath.engine.tumble_spec import tumble_spec

    spec = tumble_spec(game)
    return spec is not None and spec.board is not None and spec.board.persist


def persist_chain(game: Game, level: int, spec: FreeGamesSpec) -> PersistChain:
    """The :class:`PersistChain` of the free games ``spec`` (their own reel set)."""
    from slotmath.engine.joint import keyed_wins
    from slotmath.engine.tumble import board_entries
    from slotmath.engine.tumble_spec import tumble_spec

    board = tumble_spec(game).board
    mean = board.mean()
    triggers = free_spin_triggers(game, spec)
    units, keys, sc, m, counts, sc_units, unit_den, total_bet, cycle = board_entries(
        game, level, triggers, spec.reels
    )
    den = free_spin_den(game, level, spec)
    step = den // unit_den
    extra = sc_units[sc]
    kw = keyed_wins(game, triggers, extra, keys, counts, unit_den, total_bet, cycle)
    groups: dict = {}
    for (y0, _, count, c), u, mm in zip(
        free_spin_entries(game, game, level, spec, kw), units.tolist(), m.tolist(), strict=True
    ):
        q = Fraction(int(c), cycle)
        a = int(u) * unit_den * step
        s = mm * mean if u > 0 else Fraction(0)
        s0 = 1 if s == 0 else 0
        row = (q, q * y0, q * a, q * a * s, q * a * s0, q * s, q * s0)
        e = spec.retrigger_games(count)
        old = groups.get(e)
        groups[e] = row if old is None else tuple(x + y for x, y in zip(old, row, strict=True))
    return PersistChain(groups, den, spec.max_games)


def persist_rtp(game: Game, level: int, spec: FreeGamesSpec) -> Fraction:
    """The round's RTP [x total bet, exact]: the base spin's law keyed by its
    trigger (:func:`slotmath.engine.tumble.tumble_keyed`), each trigger
    adding its free games' mean award (:func:`persist_chain`)."""
    from slotmath.engine.joint import keyed_wins
    from slotmath.engine.tumble import tumble_keyed

    chain = persist_chain(game, level, spec)
    triggers = (spec.trigger,)
    wins, codes, counts, unit_den, total_bet, cycle = tumble_keyed(game, level, triggers, "base")
    kw = keyed_wins(game, triggers, wins, codes, counts, unit_den, total_bet, cycle)
    scale = chain.den * total_bet
    total = Fraction(0)
    for w, key, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        count = spec.count_of(key[0])
        award = Fraction(0)
        if spec.games(count) > 0:
            award = spec.prize(count) + spec.multiplier_of(count) * chain.mean(spec.games(count)) / scale
        total += c * (Fraction(w, unit_den * total_bet) + award)
    return total / cycle


def persist_feature(game: Game, level: int, spec: FreeGamesSpec, feature: Feature) -> Feature:
    """``feature`` with its mean award read from :func:`persist_chain`
    (exact); its award law, largest award and second moment refused in one
    line (:class:`EngineTooLarge`) with the mean award, pointing to
    ``slotmath simulate``."""
    chain = persist_chain(game, level, spec)
    total_bet = game.bet(level).total_bet
    at = spec.count_of

    def mean(count) -> Fraction:
        return spec.prize(count) + spec.multiplier_of(count) * chain.mean(spec.games(count)) / (
            chain.den * total_bet
        )

    def refuse(count):
        # a bought feature starts on no trigger symbol (key 0): the base round's RTP is not its figure
        if count:
            rtp = persist_rtp(game, level, spec)
            which = f"the round's exact RTP is {float(rtp):.6%} = {rtp}, the free games of {count} trigger"
            which += " symbols"
        else:
            which = "the bought free games"
        raise EngineTooLarge(
            "the round distribution with persistent board multipliers is not computed (the state "
            f"would carry the running total); {which} have the exact mean award {float(mean(count)):.6f} "
            f"= {mean(count)} x total bet; run `slotmath simulate` for the distribution",
            file=game.source or game.name,
            field="options.tumble.multiplier_symbols.persist",
        )

    return dataclasses.replace(
        feature,
        mean=lambda key: mean(at(key)),
        award=lambda key: refuse(at(key)),
        top=lambda key: refuse(at(key)),
        second_moment=lambda key: refuse(at(key)),
    )
