"""Piggy Bankin' Superlock on the rules contract (``rules: piggy_bankin_superlock``).

5x3, 20 lines, lock-it, free games, a feature selection and the Superlock
wheel (``docs/games/piggy_bankin_superlock.md``).  Its features are the
game file's declarations (:mod:`slotmath.features.options`, parsed by their
own parsers); every method delegates to this package: :mod:`.check`
(imported with the class) and :mod:`.analysis` (imported when first used).
"""

from __future__ import annotations

from collections.abc import Iterable

from slotmath.model import Game
from slotmath.rules.contract import Rules
from slotmath.rules.piggy_bankin_superlock.check import OPTION_KEYS, check


def _analysis():
    from slotmath.rules.piggy_bankin_superlock import analysis

    return analysis


class PiggyBankinSuperlockRules(Rules):
    """Piggy Bankin' Superlock: figures under the selection policy "always
    lock-it" (the PAR headline); ``features["by_choice"]`` gives both pure
    policies, and tuning holds both to the target RTP
    (:meth:`tuning_constraints`)."""

    options = OPTION_KEYS
    fast_figures = True
    figures_honour_needed = True
    has_round_sampler = True

    def check_game(self, game: Game) -> None:
        check(game)

    def analyse(self, game: Game, level: int):
        return _analysis().analyse(game, level)

    def components(self, game: Game, level: int) -> dict:
        """RTP by component under the policy "always lock-it" (the exact
        breakdown, without the round distribution)."""
        return dict(_analysis().breakdown(game, level).components["lockit"])

    def part_components(self, game: Game, level: int) -> dict:
        """RTP by the parts of the round sampler's win under "always
        lock-it" (``PARTS``: the breakdown's components grouped by the fast
        path, :func:`.rtp.components`)."""
        return _analysis().components(game, level)

    def exact_events(self, game: Game, level: int) -> dict:
        return _analysis().exact_events(game, level)

    def round_sampler(self, game: Game, level: int):
        return _analysis().round_sampler(game, level)

    def simulate(self, game: Game, level: int, spins: int, seed: int = 0):
        return _analysis().simulate(game, level, spins, seed)

    def figures(self, game: Game, level: int, reel_set: str = "base", needed: Iterable | None = None) -> dict:
        return _analysis().tuning_figures(game, level, needed=needed)

    def tuning_constraints(self, game: Game) -> dict:
        return _analysis().tuning_constraints(game)
