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
from slotmath.rules.contract import PackageRules
from slotmath.rules.piggy_bankin_superlock.check import OPTION_KEYS, check


class PiggyBankinSuperlockRules(PackageRules):
    """Piggy Bankin' Superlock: figures under the selection policy "always
    lock-it" (the PAR headline); ``features["by_choice"]`` gives both pure
    policies, and tuning holds both to the target RTP
    (:meth:`tuning_constraints`)."""

    analysis = "slotmath.rules.piggy_bankin_superlock.analysis"
    options = OPTION_KEYS
    fast_figures = True
    figures_honour_needed = True
    has_round_sampler = True

    def check_game(self, game: Game) -> None:
        check(game)

    def components(self, game: Game, level: int) -> dict:
        """RTP by component under the policy "always lock-it" (the exact
        breakdown, without the round distribution)."""
        return dict(self.module().breakdown(game, level).components["lockit"])

    def part_components(self, game: Game, level: int) -> dict:
        """RTP by the parts of the round sampler's win under "always
        lock-it" (``PARTS``: the breakdown's components grouped by the fast
        path, :func:`.rtp.components`)."""
        return self.module().components(game, level)

    def figures(self, game: Game, level: int, reel_set: str = "base", needed: Iterable | None = None) -> dict:
        return self.module().tuning_figures(game, level, needed=needed)

    def tuning_constraints(self, game: Game) -> dict:
        return self.module().tuning_constraints(game)
