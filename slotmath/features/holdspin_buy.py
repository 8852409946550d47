"""A bought hold-and-spin: the feature started at once from ``coins`` held coins.

A bet mode may buy the hold-and-spin (``buy: {feature: hold_and_spin, coins:
K}``, docs/game-format.md, Bet modes): no base spin; the round starts with
``K`` coins held on ``K`` cells drawn uniformly among the ``C(H R, K)`` sets
of cells, each coin's prize drawn from ``start_values`` (the table of the
coins the feature starts with; default ``values``); then the respins play as
declared, from ``respins`` respins (``K`` = 0: an empty screen that still
gets its respins; ``K`` = H R: a full screen at once).

Exact method: the start law is a mixture over the chain's own start states
(:mod:`slotmath.features.holdspin_chain`), so every figure is the mixture of
those of the round's keys:

* ``total`` state: the one start ``K``;
* ``reels`` state: per-reel counts ``k`` with ``sum k = K``, probability
  ``prod_r C(H, k_r) / C(H R, K)`` (the multivariate hypergeometric law);
* ``masks`` state: every mask of ``K`` cells, probability ``1 / C(H R, K)``.

The final-count law is the weighted sum of the chain's laws from those
starts, the award law the prize sums mixed by it
(:class:`~slotmath.features.holdspin_chain.PrizeSums`), the mean
``K E[S] + (E[n] - K) E[V] + P(full) G`` (on the total count the chain's
exact mean from ``K`` coins), exact Fractions where the chain runs exact.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb, prod

import numpy as np

from slotmath.engine.distribution import WinDistribution
from slotmath.errors import ensure
from slotmath.features.cost import counted
from slotmath.features.holdspin import (
    HoldAndSpinSpec,
    award_top,
    chain_state,
    count_laws,
    count_means,
    mask_count_laws,
    mean_of_law,
    odds_of_starts,
    reel_state_means,
)
from slotmath.features.holdspin_chain import PrizeSums
from slotmath.model import Game

__all__ = ["start_law", "bought_count_law", "bought_mean", "bought_feature", "bought_notes"]


def start_law(game: Game, spec: HoldAndSpinSpec, coins: int) -> dict:
    """``{start state: P}`` of ``coins`` coins on cells drawn uniformly, on
    the chain's state (:func:`~slotmath.features.holdspin_chain.chain_state`):
    the count itself (``total``), per-reel counts (``reels``) or masks, bit
    ``reel * H + row`` (``masks``) [probability, Fractions]."""
    H, R = game.rows, game.reels
    cells = H * R
    if not 0 <= coins <= cells:
        raise ValueError(f"{coins} coins do not fit {cells} cells")
    ways = comb(cells, coins)
    kind = chain_state(game, spec).kind
    if kind == "total":
        return {coins: Fraction(1)}
    if kind == "reels":
        return {
            key: Fraction(prod(comb(H, k) for k in key), ways)
            for key in product(range(H + 1), repeat=R)
            if sum(key) == coins
        }
    from slotmath.features.landing import popcount

    masks = np.flatnonzero(popcount(cells) == coins)
    return {int(m): Fraction(1, ways) for m in masks}


def bought_count_law(game: Game, spec: HoldAndSpinSpec, coins: int, exact: bool | None = None) -> np.ndarray:
    """Law of the final number of coins from ``coins`` coins on uniform
    cells, shape (H R + 1,) [probability] (object Fractions when the chain
    runs exact, else float64)."""
    starts = start_law(game, spec, coins)
    kind = chain_state(game, spec).kind
    if kind == "masks":
        V = mask_count_laws(game, spec, exact)  # (n, mask)
        columns = [V[:, m] for m in starts]
    else:
        L = count_laws(game, spec, exact)
        ensure(L is not None, "holdspin_buy.py: the count states have laws")
        columns = [L[s] for s in starts]
    weights = list(starts.values())
    if columns[0].dtype == object:
        return sum((w * c for w, c in zip(weights, columns, strict=True)), np.zeros_like(columns[0]))
    return sum(float(w) * c for w, c in zip(weights, columns, strict=True))


def bought_mean(game: Game, spec: HoldAndSpinSpec, coins: int, exact: bool | None = None):
    """Mean award [x total bet] of the feature bought with ``coins`` coins:
    the chain's exact mean from that count on the ``total`` state, the
    start law's mixture of the exact per-reel state means
    (:func:`~slotmath.features.holdspin.reel_state_means`) on the ``reels``
    state, else ``K E[S] + (E[n] - K) E[V] + P(full) G`` of
    :func:`bought_count_law` (a Fraction when that law is exact)."""
    kind = chain_state(game, spec).kind
    if kind == "total" and exact is not False:
        return count_means(game, spec, exact)[coins]
    V = reel_state_means(game, spec, exact) if kind == "reels" else None
    if V is not None:  # exact on the chain of per-reel counts
        return sum((w * V[key] for key, w in start_law(game, spec, coins).items()), Fraction(0))
    return mean_of_law(spec, coins, bought_count_law(game, spec, coins, exact), game.rows * game.reels)


def bought_feature(game: Game, level: int, spec: HoldAndSpinSpec, coins: int, exact: bool | None = None):
    """The bought hold-and-spin as a :class:`slotmath.features.round.Feature`
    of the one-key round a bought mode plays (every key starts it): its mean,
    award law, largest award and odds from ``coins`` coins."""
    from slotmath.features.round import Feature, Trigger

    cells = game.rows * game.reels
    law = bought_count_law(game, spec, coins, exact)
    mean = bought_mean(game, spec, coins, exact)
    sums = PrizeSums(spec, cells)
    bet = game.bet(level)
    award = WinDistribution.from_grid(sums.mixture(coins, law), sums.g * bet.total_bet, bet.total_bet, True)

    def odds(probs: dict) -> dict:
        p = {k: Fraction(q) for k, q in probs.items()}
        out = odds_of_starts(
            game, spec, p, dict.fromkeys(p, mean), dict.fromkeys(p, law), dict.fromkeys(p, coins), coins
        )
        return {"coins_bought": coins, **out}

    return Feature(
        "hold_and_spin",
        Trigger(spec.symbol),
        lambda key: True,
        lambda key: mean,
        lambda key: award,
        odds=odds,
        top=lambda key: award_top(spec, coins, law),
    )


def bought_notes(game: Game, spec: HoldAndSpinSpec, coins: int) -> list:
    """Method notes of a bought hold-and-spin round."""
    cells = game.rows * game.reels
    state = chain_state(game, spec)
    start = (
        "an empty screen"
        if coins == 0
        else f"{counted(coins, 'coin')} held on cells drawn uniformly among the "
        f"{comb(cells, coins):,} sets of {coins} of the {cells} cells, each coin's prize from start_values"
    )
    return [
        f"Bought round: the hold-and-spin started at once (no base spin) from {start}; then "
        f"{counted(spec.respins, 'respin')} ({spec.rule}).",
        state.describe(),
    ]
