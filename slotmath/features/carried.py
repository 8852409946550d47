"""Free games whose tumble progression carries on through the round
(``options.tumble.reset: round``, docs/features.md "Tumbles").

The rule: in the free games of one trigger the progression does not restart
at each free spin; the ``j``-th paying drop of the round (its retriggered
games included) pays the ``j``-th value of the free games' progression (the
last repeating).  The base game still restarts at every spin.

The free spins are then not independent, but a free spin depends on the
past only through the progression's position ``p`` it starts at
(positions from the last value on are one state, the last value
repeating): its law keyed by ``p`` and by the paying drops ``d`` it adds
(capped where the position saturates) is the tumble enumeration's with the
progression started at ``p`` (:func:`slotmath.engine.tumble.tumble_keyed`,
``start``, ``drops``).  The round is a chain over (games played, games
left, position): a spin from ``p`` with ``d`` paying drops and ``e`` extra
games moves to (played + 1, left - 1 + e, min(p + d, L - 1)), at most
``max_games`` played.  Exact: the mean and second moment of the sum of the
free spins' wins are Fractions (backward recursion over the chain, each
spin's law grouped by (d, e)), the largest award and its odds too; the
award law is float64 (forward over the chain on the lattice of the wins'
gcd), refused in one line above :data:`MAX_CHAIN_STEPS`.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import cache
from math import gcd, prod

import numpy as np

from slotmath.engine.distribution import MaxWin
from slotmath.errors import EngineTooLarge
from slotmath.features.expanding import nudged_game
from slotmath.features.freespin import (
    award_distribution,
    free_spin_den,
    free_spin_entries,
    free_spin_triggers,
)
from slotmath.features.options import FreeGamesSpec
from slotmath.features.round import Feature
from slotmath.model import Game

__all__ = ["CarriedChain", "carried_chain", "carried_feature", "MAX_CHAIN_STEPS", "MAX_CHAIN_POINTS"]

#: (state, spin outcome, lattice point) steps the award law's forward pass may take
MAX_CHAIN_STEPS = 2 * 10**9
#: lattice points of the award law (the sum of the free spins' wins)
MAX_CHAIN_POINTS = 1 << 25


@dataclasses.dataclass(frozen=True, eq=False)
class CarriedChain:
    """The free spin's law by start position: ``groups[p]`` = {(d, e):
    {y: stop combinations}} (``y`` the spin's win [1/den coins], ``d`` its
    paying drops capped at ``positions - 1``, ``e`` its extra games), each
    over ``cycle``; ``cap`` the most games played (``max_games``; None:
    without retriggers, the games awarded)."""

    groups: tuple
    cycle: int
    den: int
    positions: int
    cap: int | None
    #: the game file the refusals name
    where: str

    def _next(self, t: int, left: int, p: int, d: int, e: int, limit: int) -> tuple:
        """The state after a spin (played ``t`` + 1)."""
        return t + 1, min(left - 1 + e, limit - t - 1), min(p + d, self.positions - 1)

    def _limit(self, n: int) -> int:
        return n if self.cap is None else self.cap

    @cache  # noqa: B019 (one chain per game and level, cached by the feature)
    def moments(self, n: int) -> tuple:
        """(E[S], E[S^2]) [1/den coins, (1/den coins)^2, exact] of the sum
        ``S`` of the free spins' wins of ``n`` games from position 0."""
        limit = self._limit(n)
        stats = [
            {
                de: (
                    sum(ys.values()),
                    sum(y * c for y, c in ys.items()),
                    sum(y * y * c for y, c in ys.items()),
                )
                for de, ys in g.items()
            }
            for g in self.groups
        ]
        memo: dict = {}

        def value(t: int, left: int, p: int) -> tuple:
            if left <= 0:
                return Fraction(0), Fraction(0)
            key = (t, left, p)
            if key not in memo:
                m1 = m2 = Fraction(0)
                for (d, e), (c, s1, s2) in stats[p].items():
                    v1, v2 = value(*self._next(t, left, p, d, e, limit))
                    m1 += s1 + c * v1
                    m2 += s2 + 2 * s1 * v1 + c * v2
                memo[key] = (m1 / self.cycle, m2 / self.cycle)
            return memo[key]

        return _iterative(value, limit, min(n, limit), self.positions)

    @cache  # noqa: B019
    def top(self, n: int) -> tuple:
        """(largest S [1/den coins], its probability) exact."""
        limit = self._limit(n)
        tops = [
            {de: (max(ys), Fraction(ys[max(ys)], self.cycle)) for de, ys in g.items()} for g in self.groups
        ]
        memo: dict = {}

        def value(t: int, left: int, p: int) -> tuple:
            if left <= 0:
                return 0, Fraction(1)
            key = (t, left, p)
            if key not in memo:
                best, prob = None, Fraction(0)
                for (d, e), (y, q) in tops[p].items():
                    b, r = value(*self._next(t, left, p, d, e, limit))
                    if best is None or y + b > best:
                        best, prob = y + b, q * r
                    elif y + b == best:
                        prob += q * r
                memo[key] = (best, prob)
            return memo[key]

        return _iterative(value, limit, min(n, limit), self.positions)

    @cache  # noqa: B019
    def law(self, n: int) -> tuple:
        """(probabilities of S = j x unit, unit [1/den coins]): forward over
        the chain (float64)."""
        limit = self._limit(n)
        ys = {y for g in self.groups for law in g.values() for y in law}
        unit = gcd(*ys) or 1
        top = limit * max(ys) // unit + 1
        outcomes = max(sum(len(v) for v in g.values()) for g in self.groups)
        steps = limit * limit * self.positions * outcomes * top
        if top > MAX_CHAIN_POINTS or steps > MAX_CHAIN_STEPS:
            raise EngineTooLarge(
                f"the award law of the carried progression would take {steps:.3g} steps on {top:,} "
                f"points, above the bounds {MAX_CHAIN_STEPS:.2g} steps and {MAX_CHAIN_POINTS:,} points; "
                "run `slotmath simulate` instead",
                file=self.where,
                field="options.tumble.reset",
            )
        parts = [
            {
                de: (
                    np.array(sorted(law), dtype=np.int64) // unit,
                    np.array([law[y] for y in sorted(law)], dtype=np.float64) / self.cycle,
                )
                for de, law in g.items()
            }
            for g in self.groups
        ]
        done = np.zeros(top)
        frontier = {(min(n, limit), 0): np.ones(1)}
        for t in range(limit):
            nxt: dict = {}
            for (left, p), a in frontier.items():
                for (d, e), (idx, prob) in parts[p].items():
                    _, left2, p2 = self._next(t, left, p, d, e, limit)
                    out = np.zeros(len(a) + int(idx[-1]))
                    for i, q in zip(idx.tolist(), prob.tolist(), strict=True):
                        out[i : i + len(a)] += q * a
                    if left2 <= 0:
                        done[: len(out)] += out
                    else:
                        at = nxt.get((left2, p2))
                        if at is None or len(at) < len(out):
                            grown = np.zeros(len(out))
                            if at is not None:
                                grown[: len(at)] = at
                            at = grown
                        at[: len(out)] += out
                        nxt[(left2, p2)] = at
            frontier = nxt
        return done, unit


def _iterative(value, limit: int, n: int, positions: int):
    """``value(0, n, 0)`` of a memoised recursion over (played, left,
    position), evaluated from the last game played back (no deep recursion)."""
    for t in range(limit - 1, 0, -1):
        for left in range(1, limit - t + 1):
            for p in range(positions):
                value(t, left, p)
    return value(0, n, 0)


def carried_chain(game: Game, level: int, spec: FreeGamesSpec) -> CarriedChain:
    """The chain of the free games ``spec`` with the progression carried."""
    from slotmath.engine.joint import key_radix, keyed_wins
    from slotmath.engine.tumble import tumble_keyed
    from slotmath.engine.tumble_spec import tumble_spec

    g = nudged_game(game, spec.reels, spec.nudge)
    positions = len(tumble_spec(game).free_multipliers)
    triggers = free_spin_triggers(g, spec)
    n_keys = prod(key_radix(g, triggers))
    groups = []
    cycle = 0
    for p in range(positions):
        wins, codes, counts, unit_den, total_bet, cycle = tumble_keyed(
            g, level, triggers, spec.reels, None, p, positions
        )
        kw = keyed_wins(g, triggers, wins, codes % n_keys, counts, unit_den, total_bet, cycle)
        table: dict = {}
        for (y, _, n, c), d in zip(
            free_spin_entries(game, g, level, spec, kw), (codes // n_keys).tolist(), strict=True
        ):
            law = table.setdefault((d, spec.retrigger_games(n)), {})
            law[y] = law.get(y, 0) + c
        groups.append(table)
    cap = spec.max_games
    where = str(game.source or game.name)
    return CarriedChain(tuple(groups), cycle, free_spin_den(g, level, spec), positions, cap, where)


def carried_feature(game: Game, level: int, spec: FreeGamesSpec, feature: Feature) -> Feature:
    """``feature`` (the free games as :func:`slotmath.features.freeround.free_games_feature_of`
    builds them) with its award read from the carried chain: mean, second
    moment, law, largest award; its odds' award means (``mean_award``,
    each count's) and ``free_spin_mean`` (the round's win per game played)
    follow the chain, the games played do not change (a spin's extra games
    do not depend on the position)."""
    chain = carried_chain(game, level, spec)
    total_bet = game.bet(level).total_bet
    scale = chain.den * total_bet
    at = spec.count_of

    def mean(count) -> Fraction:
        return spec.prize(count) + spec.multiplier_of(count) * chain.moments(spec.games(count))[0] / scale

    def second_moment(count) -> float:
        m1, m2 = chain.moments(spec.games(count))
        prize, mult = spec.prize(count), Fraction(spec.multiplier_of(count))
        return float(prize**2 + 2 * prize * mult * m1 / scale + mult**2 * m2 / scale**2)

    @cache
    def award(count):
        probs, unit = chain.law(spec.games(count))
        return award_distribution(
            probs, unit, chain.den, spec.multiplier_of(count), spec.prize(count), total_bet
        )

    def top(count) -> MaxWin:
        best, prob = chain.top(spec.games(count))
        return MaxWin(
            spec.prize(count) + Fraction(spec.multiplier_of(count)) * Fraction(best, scale),
            prob,
            True,
            "the largest sum of free-spin wins over every sequence of free spins and progression "
            "positions, exact over (games played, games left, position)",
        )

    def odds(keys: dict) -> dict:
        out = feature.odds(keys) if feature.odds is not None else {}
        started = {k: q for k, q in keys.items() if spec.games(at(k)) > 0}
        p = float(sum(started.values(), Fraction(0)))
        if not p:
            return out
        out["mean_award"] = sum(float(q * mean(at(k))) for k, q in started.items()) / p
        rows = out.get("by_count", {})
        for c, row in rows.items():
            row["mean_award"] = float(mean(int(c)))
        won = sum(float(q * (mean(at(k)) - spec.prize(at(k)))) for k, q in started.items())
        played = sum(float(q) * rows[str(at(k))]["mean_games_played"] for k, q in started.items())
        out["free_spin_mean"] = won / played if played else 0.0
        return out

    return dataclasses.replace(
        feature,
        mean=lambda key: mean(at(key)),
        award=lambda key: award(at(key)),
        odds=odds,
        top=lambda key: top(at(key)),
        second_moment=lambda key: second_moment(at(key)),
    )
