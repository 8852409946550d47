"""Compiled sampler of a bought free-games round, by the game's pay rule:
the tumble kernel's (:func:`slotmath.montecarlo.tumblesim.tumble_sampler`
with ``bought``) when its spins tumble, else the round kernel's
(:func:`slotmath.montecarlo.roundsim.buy_sampler`).  The bought round is
the declared free games started at once with no base spin, so they tumble
as every free spin of the game does."""

from __future__ import annotations

from slotmath.engine.payrule import pay_rule
from slotmath.model import Game
from slotmath.montecarlo.run import RoundSampler

__all__ = ["free_games_buy_sampler"]


def free_games_buy_sampler(game: Game, level: int, spec, bought_games: int) -> RoundSampler:
    """The sampler of ``bought_games`` free games of ``spec`` (a
    :class:`~slotmath.features.options.FreeGamesSpec`, every count starting
    them with no prize) bought on ``game`` at bet ``level``."""
    if pay_rule(game).sampler_pays == "tumbles":
        from slotmath.montecarlo.tumblesim import tumble_sampler

        return tumble_sampler(game, level, bought=spec)
    from slotmath.montecarlo.roundsim import buy_sampler

    return buy_sampler(game, level, spec, bought_games)
