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
    "check_coins",
]

#: option keys a bought round plays, by bought feature (the base game's other features are not started)
BUY_OPTIONS = {
    "free_games": ("free_games", "round_cap", "wild_multipliers"),
    "hold_and_spin": ("hold_and_spin", "jackpots", "round_cap"),
}


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
    """``game`` with only the options a round buying ``feature`` plays
    (:data:`BUY_OPTIONS`): the base spin and the features it starts are not
    played; bought free games keep a hold-and-spin that triggers in them
    (``in_free_games``) and its jackpots."""
    keep = BUY_OPTIONS[feature]
    held = game.options.get("hold_and_spin")
    in_free = isinstance(held, dict) and held.get("in_free_games") is True
    if feature == "free_games" and in_free:
        keep = (*keep, "hold_and_spin", "jackpots")
    options = {k: v for k, v in game.options.items() if k in keep}
    if feature == "hold_and_spin" and in_free:  # a bought hold-and-spin plays no free games
        options["hold_and_spin"] = {**held, "in_free_games": False}
    return dataclasses.replace(game, options=options)


def check_modes(game: Game, rules) -> None:
    """Check every declared mode's game as ``rules`` (the game's, a
    :class:`~slotmath.rules.contract.Rules`) check a game
    (:meth:`~slotmath.rules.contract.Rules.check`: the options they read,
    then :func:`slotmath.rules.linegame.check`): a problem is one line naming
    ``modes.NAME`` and the field of the mode's game."""
    for name, mode in game.modes.items():
        if mode.buy is not None and mode.buy.coins is not None:
            check_coins(game, name, mode.buy.coins)
            jackpots = {**(game.options or {}), **mode.options}.get("jackpots") or {}
            for jackpot, value in jackpots.items() if isinstance(jackpots, dict) else ():
                if isinstance(value, dict):
                    raise GameFileError(
                        game.source,
                        f"modes.{name}.buy.feature",
                        f"a bought hold-and-spin with a progressive jackpot (options.jackpots.{jackpot}) "
                        "is not computed (the jackpot's return is not a coin win of the round)",
                    )
        try:
            variant = mode_game(game, name)
            rules.check(variant)
            if mode.buy is not None:
                buy_spec(variant, mode)
        except GameFileError as exc:
            raise GameFileError(game.source, f"modes.{name}", f"{exc.field}: {exc.problem}") from None


def check_coins(game: Game, name: str, coins: int) -> None:
    """Refuse a bought hold-and-spin's ``coins`` that do not fit the window
    (one line naming ``modes.NAME.buy.coins``)."""
    cells = game.rows * game.reels
    if game.heights is not None:
        raise GameFileError(
            game.source, f"modes.{name}.buy.feature", "a hold-and-spin is not bought on variable reel heights"
        )
    if not 0 <= coins <= cells:
        raise GameFileError(
            game.source,
            f"modes.{name}.buy.coins",
            f"must be from 0 to the {cells} cells of the {game.reels}x{game.rows} window, got {coins}",
        )


def buy_spec(game: Game, mode: Mode):
    """The feature a buy starts: the declared free games with every count
    starting ``mode.buy.games`` games and no prize (retriggers keep the
    declared retrigger awards); a bought hold-and-spin's declaration as it
    is (:class:`~slotmath.features.holdspin.HoldAndSpinSpec`, started from
    ``mode.buy.coins`` coins)."""
    from slotmath.features.options import load_features

    if mode.buy is not None and mode.buy.feature == "hold_and_spin":
        from slotmath.features.holdspin import load_hold_and_spin

        held = load_hold_and_spin(game)
        if held is None:
            raise GameFileError(
                game.source, "buy.feature", "buys hold_and_spin, which the mode does not declare"
            )
        return held
    spec = load_features(game).free_games
    if spec is None or mode.buy is None or mode.buy.games is None:
        raise GameFileError(game.source, "buy.feature", "buys free_games, which the mode does not declare")
    return dataclasses.replace(
        spec,
        awards={0: (Fraction(0), mode.buy.games)},
        multipliers=None,  # a bought feature plays at the free games' multiplier
        reels_by_count=None,  # and on their declared reels
        retrigger_awards=spec.retrigger_awards or spec.awards,
    )
