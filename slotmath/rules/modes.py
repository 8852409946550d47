"""Bet modes: the game a mode plays and its checks
(:mod:`slotmath.rules.modepar`: its exact PAR and its RTP per unit of cost).

A mode (``modes.NAME`` of a line or ways game; docs/game-format.md, Bet
modes) is the game with its changes applied (:func:`mode_game`): reel sets
played in place of others, option keys replaced whole, its own round cap.
Its figures are those of the one PAR pipeline on that game
(:func:`slotmath.rules.par.par`), so every figure of a round comes with it;
a bought feature's round is the feature started at once from the bought
state, with no base spin (:func:`buy_analysis`).  A round's wins stay
[x total bet]; the mode's RTP is its mean round win over its cost:
``RTP = E[round win] / cost`` (exact where the mean is).  A game without
``modes`` has the one mode :data:`BASE_MODE` at cost 1: the game itself.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from slotmath.errors import ensure
from slotmath.io.gamefile import BASE_MODE, GameFileError
from slotmath.model import KEEP_CAP, Game, Mode

__all__ = [
    "BASE_MODE",
    "mode_names",
    "mode_of",
    "mode_game",
    "mode_reel_sets",
    "check_modes",
    "buy_game",
    "buy_spec",
    "bought_start",
]


def mode_names(game: Game) -> tuple:
    """The modes of ``game``: :data:`BASE_MODE` first, then the declared ones."""
    return (BASE_MODE, *game.modes)


def mode_of(game: Game, name: str) -> Mode:
    """The mode ``name`` (the base mode: cost 1, no change)."""
    if name == BASE_MODE:
        return Mode(BASE_MODE, Fraction(1))
    if name not in game.modes:
        raise GameFileError(
            game.source, "modes", f"no mode {name[:40]!r} (modes: {', '.join(mode_names(game))})"
        )
    return game.modes[name]


def mode_game(game: Game, name: str) -> Game:
    """The game mode ``name`` plays: each reel set of the mode's ``reels``
    replaced by the set it names (wherever the game reads it), its
    ``options`` keys replacing the game's, its ``round_cap``; the reel sets
    then read by no rule dropped.  The base mode is ``game`` itself."""
    mode = mode_of(game, name)
    if name == BASE_MODE:
        return game
    from slotmath.rules.linegame import reel_sets_read

    sets = {k: game.reel_sets[mode.reels.get(k, k)] for k in game.reel_sets}
    options = {**(game.options or {}), **mode.options}
    if mode.round_cap is None:
        options.pop("round_cap", None)
    elif mode.round_cap != KEEP_CAP:
        options["round_cap"] = str(mode.round_cap)
    variant = dataclasses.replace(
        game, reel_sets=sets, options=options, modes={}, title=f"{game.title} [mode {name}]"
    )
    if mode.buy is not None:
        variant = buy_game(variant, mode.buy.feature)
    read = reel_sets_read(variant)
    return dataclasses.replace(variant, reel_sets={k: v for k, v in sets.items() if k in read})


def mode_reel_sets(game: Game, name: str) -> dict:
    """``{reel set the rules of mode name's game read: declared reel set
    whose strips it plays}``: what a change of a declared reel set reaches
    in that mode (a buy plays only its bought feature's sets)."""
    from slotmath.rules.linegame import reel_sets_read

    mode = mode_of(game, name)
    variant = mode_game(game, name)
    read = buy_spec(variant, mode).reel_sets() if mode.buy is not None else reel_sets_read(variant)
    return {k: mode.reels.get(k, k) for k in sorted(read)}


def buy_game(game: Game, feature: str = "free_games") -> Game:
    """``game`` with only the options a round buying ``feature`` plays (its
    :class:`~slotmath.features.kinds.Buy`'s ``options``): the base spin and
    the features it starts are not played."""
    from slotmath.features.registry import bought_kind

    return dataclasses.replace(game, options=bought_kind(feature).buy.options(game))


def bought_start(mode: Mode) -> int:
    """The state a mode's buy starts from (``buy.games``, ``buy.coins``: the
    key its feature's :class:`~slotmath.features.kinds.Buy` names)."""
    from slotmath.features.registry import bought_kind

    ensure(mode.buy is not None, "modes.py: a bought mode has a buy")
    start = getattr(mode.buy, bought_kind(mode.buy.feature).buy.start)
    ensure(start is not None, "modes.py: the game-file reader requires the bought state")
    return int(start)


def check_modes(game: Game, rules) -> None:
    """Check every declared mode's game as ``rules`` (the game's, a
    :class:`~slotmath.rules.contract.Rules`) check a game
    (:meth:`~slotmath.rules.contract.Rules.check`: the options they read,
    then :func:`slotmath.rules.linegame.check`) and a buy's start (its
    feature's ``Buy.check``): a problem is one line naming ``modes.NAME``
    and the field of the mode's game."""
    from slotmath.features.registry import bought_kind

    for name, mode in game.modes.items():
        if mode.buy is not None:
            bought_kind(mode.buy.feature).buy.check(game, mode, bought_start(mode))
        try:
            variant = mode_game(game, name)
            rules.check(variant)
            if mode.buy is not None:
                buy_spec(variant, mode)
        except GameFileError as exc:
            raise GameFileError(game.source, f"modes.{name}", f"{exc.field}: {exc.problem}") from None


def buy_spec(game: Game, mode: Mode):
    """The declaration a buy starts (``game``: the mode's game): its
    feature's ``Buy.spec`` from the bought state (free games: every count
    starting ``buy.games`` games with no prize, retriggers as declared; a
    hold-and-spin: its declaration, started from ``buy.coins`` coins)."""
    from slotmath.features.registry import bought_kind

    ensure(mode.buy is not None, "modes.py: a bought mode has a buy")
    return bought_kind(mode.buy.feature).buy.spec(game, bought_start(mode))
