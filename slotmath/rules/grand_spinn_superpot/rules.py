"""Grand Spinn Superpot on the rules contract (``rules: grand_spinn_superpot``).

The line round of :class:`~slotmath.rules.contract.LineRules` extended by
the nudge: a winning line is re-paid while the reels nudge down, an up
arrow re-pays once more, and jackpot symbols pay fixed and progressive
jackpots (``docs/games/grand_spinn_superpot.md``).  Every method delegates
to this package: :mod:`.options` (checks, imported with the class),
:mod:`.analysis` (exact analysis and tuning figures) and :mod:`.sampler`
(Monte Carlo), the last two imported when first used.
"""

from __future__ import annotations

from collections.abc import Iterable

from slotmath.model import Game
from slotmath.rules.contract import LineRules, PackageRules, Rules
from slotmath.rules.grand_spinn_superpot.options import OPTION_KEYS, check, parse_options


class GrandSpinnSuperpotRules(PackageRules, LineRules):
    """The line round with the nudge feature and the Superpot jackpots.

    Its options (arrow, jackpots, progressive meter, coin values, network)
    are its own, parsed by :func:`.options.parse_options`.  Tuning figures
    come from one enumeration of the cycle (reused while only stop weights
    change) and are exactly multilinear in the stop weights
    (:meth:`stop_values`).
    """

    analysis = "slotmath.rules.grand_spinn_superpot.analysis"
    options = OPTION_KEYS
    own_options = OPTION_KEYS
    fast_figures = True
    figures_honour_needed = False
    rtp_is_line_form = False
    has_round_sampler = True
    has_stop_values = True

    def for_game(self, game: Game) -> Rules:
        """Always these rules (the line round's features are not Grand Spinn's)."""
        return self

    def check_game(self, game: Game) -> None:
        """The nudge rules' checks (:func:`.options.check`); the line
        round's own checks read features of ``options`` that these rules
        replace with options of their own."""
        check(game)

    def components(self, game: Game, level: int) -> dict:
        """RTP by component from the cycle enumeration (no Markov-chain
        cross-check, no tables)."""
        return self.module().components(game, level)

    def unpaid_components(self, game: Game) -> frozenset:
        """The progressive jackpot: its RTP is the meter and reserve
        contributions, not a coin win of the spin."""
        return frozenset(j.name for j in parse_options(game).jackpots if j.pay_per_level is None)

    def figures(self, game: Game, level: int, reel_set: str = "base", needed: Iterable | None = None) -> dict:
        return self.module().tuning_figures(game, level)

    def full_figures(self, game: Game, level: int, reel_set: str = "base") -> dict:
        return Rules.full_figures(self, game, level, reel_set)

    def stop_values(self, game: Game, level: int, reel_set: str = "base") -> dict:
        return self.module().tuning_stop_values(game, level, reel_set)

    def equivalent_levels(self, game: Game) -> dict:
        return self.module().equivalent_levels(game)
