"""Piggy Bankin' Superlock: the rule-specific checks of a game file (light:
imported when a game file is validated) and the names the rules use."""

from __future__ import annotations

from slotmath.features.options import load_features
from slotmath.io.gamefile import GameFileError
from slotmath.model import Game

LINES = 20
BATCH = 32  # lock-it starts played together by LockIt.run_batch
POLICIES = ("lockit", "free_games")
#: Parts of the round win under each selection policy (the last part is the
#: chosen feature), named as the components of :func:`.rtp.components`.
PARTS = {
    "lockit": ("base lines", "selection prizes", "lock-it base game", "lock-it selection"),
    "free_games": ("base lines", "selection prizes", "lock-it base game", "free games"),
}
BASE, FREE, SELECT = "base_game", "free_games", "selection"
BASE_REELS = "base"
#: The features of ``options`` the rules play (each parsed by :mod:`slotmath.features.options`).
OPTION_KEYS = frozenset(("jackpots", "lockit", "free_games", "selection", "wheel"))


def check(game: Game) -> None:
    """Rule-specific checks of the game file (GameFileError naming the field)."""

    def fail(where, problem):
        raise GameFileError(game.source, where, problem)

    if len(game.paylines) != LINES:
        fail("paylines", f"the rules need {LINES} paylines, got {len(game.paylines)}")
    if game.rows != 3 or game.reels != 5:
        fail("grid", "the rules need 5 reels x 3 rows")
    f = load_features(game)
    if "hold_and_spin" in game.options:
        fail("options.hold_and_spin", "is not played under the piggy_bankin_superlock rules")
    for name in ("lockit", "free_games", "selection", "wheel"):
        if getattr(f, name) is None:
            fail(f"options.{name}", "is required by the piggy_bankin_superlock rules")
    if f.lockit.in_free_games:  # its free games start the lock-it from the source free_games
        fail(
            "options.lockit.in_free_games",
            "is not played under the piggy_bankin_superlock rules (its free games' lock-it is the "
            f"source {FREE})",
        )
    if not f.free_games.awards:
        fail("options.free_games.awards", "is required by the piggy_bankin_superlock rules")
    for src in (BASE, FREE, f.selection.lockit_source):
        if src not in f.lockit.sources:
            fail(f"options.lockit.sources.{src}", "is required")
    if f.free_games.max_games is not None:  # the exact free games have no cap on games
        fail("options.free_games.max_games", "is not played under the piggy_bankin_superlock rules")
    if f.free_games.sticky is not None:
        fail("options.free_games.sticky", "is not played under the piggy_bankin_superlock rules")
    if f.selection.symbol != f.free_games.symbol:
        fail("options.selection.symbol", "must be the free-games scatter symbol")
    if f.selection.min_count != f.free_games.min_count:  # one BONUS threshold (rules 4, 3.4)
        fail(
            "options.selection",
            f"the selection starts at {f.selection.min_count} BONUS and "
            f"free games retrigger at {f.free_games.min_count}: the rules use one count",
        )
    for name in ("WILD", "WILD_3"):
        if name not in game.symbol_index:
            fail("symbols", f"symbol {name} is required")
    # WILD and WILD_3 only on reels 2-5 (rules 1.3, 1.4), in every reel set with lines
    for set_name in (BASE_REELS, f.free_games.reels):
        first = game.strips(set_name)[0].symbols
        for k, s in enumerate(first):
            if s in ("WILD", "WILD_3"):
                fail(f"reels.{set_name}[0][{k}]", f"{s} may only appear on reels 2-5")
