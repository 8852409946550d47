"""Bet modes: the game a mode plays, its exact PAR and its RTP per unit of cost.

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
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from slotmath.errors import ensure
from slotmath.io.gamefile import BASE_MODE, GameFileError
from slotmath.model import KEEP_CAP, Game, Mode

if TYPE_CHECKING:
    from slotmath.rules.par import ParResult

__all__ = [
    "BASE_MODE",
    "ModeResult",
    "mode_names",
    "mode_of",
    "mode_game",
    "mode_reel_sets",
    "per_cost",
    "check_modes",
    "buy_game",
    "buy_spec",
    "check_coins",
    "bought_feature",
    "buy_sampler",
    "buy_analysis",
    "mode_par",
    "all_modes_par",
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


def check_modes(game: Game) -> None:
    """Check every declared mode's game as the line rules check a game
    (:meth:`slotmath.rules.contract.Rules.check`: the options they read,
    then :func:`slotmath.rules.linegame.check`): a problem is one line naming
    ``modes.NAME`` and the field of the mode's game."""
    from slotmath.rules.registry import rules_for

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
            rules_for(variant).check(variant)
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
            f"must be from 0 to the {cells} cells of the {game.rows}x{game.reels} window, got {coins}",
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
        retrigger_awards=spec.retrigger_awards or spec.awards,
    )


def bought_feature(game: Game, mode: Mode, level: int) -> tuple:
    """``(feature, notes, cycle)`` of a bought round: the
    :class:`~slotmath.features.round.Feature` the one-key round starts, the
    notes saying what is bought, and the cycle of the reel set it plays."""
    spec = buy_spec(game, mode)
    ensure(mode.buy is not None, "modes.py: a bought mode has a buy")
    if mode.buy.feature == "hold_and_spin":
        from slotmath.features.holdspin_buy import bought_feature as held
        from slotmath.features.holdspin_buy import bought_notes

        coins = mode.buy.coins or 0
        reels = spec.reels or spec.base_reels
        return held(game, level, spec, coins), bought_notes(game, spec, coins), game.cycle(reels)
    from slotmath.features.freeround import free_games_feature_of

    notes = [
        f"Bought round: {spec.games(0)} free games started at once (no base spin) on reel set "
        f"{spec.reels!r}; the cycle is that set's."
    ]
    return free_games_feature_of(game, level, spec), notes, game.cycle(spec.reels)


def buy_analysis(game: Game, mode: Mode, level: int) -> ParResult:
    """Exact PAR of a bought round (``game`` = :func:`mode_game`): the bought
    feature (:func:`bought_feature`) through the generic round
    (:func:`slotmath.features.round.round_law`) on a base "spin" that always
    pays 0 and starts it.  Free games from ``mode.buy.games`` games: the RTP
    is their mean award from that many games, ``multiplier x E[sum of the
    free spins' wins]`` [x total bet]; a hold-and-spin from ``mode.buy.coins``
    coins (:mod:`slotmath.features.holdspin_buy`): its mean award from them."""
    import numpy as np
    import pandas as pd

    from slotmath.engine.joint import KeyedWins
    from slotmath.features.round import round_law, round_max_win
    from slotmath.rules.linegame import round_cap, round_notes
    from slotmath.rules.par import ParResult

    feature, bought, cycle = bought_feature(game, mode, level)
    keyed = KeyedWins(np.array([0], dtype=np.int64), [(0,)], [1], 1, game.bet(level).total_bet, 1)
    cap = round_cap(game)
    law = round_law(keyed, [feature], cap)
    ensure(law.distribution is not None, "modes.py: the bought round has a distribution")
    figures = dict(law.figures)
    for fig in figures.values():
        fig.pop("event_rates", None)
    columns = ["name", "kind", "count", "pay", "hits", "probability", "one_in", "rtp", "rtp_exact"]
    notes = [*bought, *round_notes(law, cap)]
    return ParResult(
        game=game,
        bet=game.bet(level),
        cycle=cycle,
        rtp=law.rtp,
        components=dict(law.components),
        distribution=law.distribution,  # type: ignore[arg-type]
        combinations=pd.DataFrame(columns=columns),
        features=figures,
        notes=notes,
        distribution_shortfall=law.shortfall,
        max_win=round_max_win(keyed, [feature], cap, law.distribution),
    )


def buy_sampler(game: Game, mode: Mode, level: int):
    """Compiled sampler of a bought round (``game`` = :func:`mode_game`):
    the round kernel's bought free games
    (:func:`slotmath.montecarlo.roundsim.buy_sampler`) or the bought
    hold-and-spin (:func:`slotmath.montecarlo.holdspinsim.bought_sampler`)."""
    spec = buy_spec(game, mode)
    ensure(mode.buy is not None, "modes.py: a bought mode has a buy")
    if mode.buy.feature == "hold_and_spin":
        from slotmath.montecarlo.holdspinsim import bought_sampler

        return bought_sampler(game, level, spec, mode.buy.coins or 0)
    from slotmath.montecarlo.roundsim import buy_sampler as free_sampler

    return free_sampler(game, level, spec)


def per_cost(value, cost: Fraction):
    """``value`` over ``cost``: a Fraction when ``value`` is one, else a float."""
    return value / cost if isinstance(value, Fraction) else float(value) / float(cost)


@dataclass(frozen=True, eq=False)
class ModeResult:
    """A mode's figures: the PAR of its round (``par``, wins [x total bet])
    and its cost [x total bet]; RTP, its components, SD and VI per unit of
    cost."""

    mode: Mode
    par: ParResult

    @property
    def name(self) -> str:
        return self.mode.name

    @property
    def cost(self) -> Fraction:
        """Price of a round [x total bet]."""
        return self.mode.cost

    @property
    def rtp(self) -> Fraction | float:
        """Mean round win over the cost [x cost]; a Fraction when exact."""
        return per_cost(self.par.rtp, self.cost)

    @property
    def components(self) -> dict:
        """RTP by component [x cost]."""
        return {k: per_cost(v, self.cost) for k, v in self.par.components.items()}

    @property
    def round_cap(self):
        """The cap on a round's win [x total bet], or None."""
        from slotmath.rules.linegame import round_cap

        return round_cap(self.par.game)

    def to_dict(self) -> dict:
        """JSON-ready figures: per unit of cost, and the round's whole PAR
        (``round``, [x total bet])."""
        from slotmath.rules.par import fraction_str

        top = self.par.true_max_win
        cost = float(self.cost)
        cap = self.round_cap
        buy = self.mode.buy
        return {
            "mode": self.name,
            "label": self.mode.label,
            "cost": cost,
            "cost_exact": fraction_str(self.cost),
            "buy": None if buy is None else {"feature": buy.feature, "games": buy.games, "coins": buy.coins},
            "rtp": float(self.rtp),
            "rtp_exact": fraction_str(self.rtp),
            "components": {k: float(v) for k, v in self.components.items()},
            "components_exact": {k: fraction_str(v) for k, v in self.components.items()},
            "hit_frequency": self.par.hit_frequency,
            "sd": self.par.sd / cost,
            "volatility_index": {k: v / cost for k, v in self.par.volatility_index.items()},
            "max_win": None if top.value is None else float(top.value),
            "max_win_odds": top.one_in,
            "round_cap": None if cap is None else float(cap),
            "round": self.par.to_dict(),
        }

    def summary_rows(self) -> list:
        """(figure, value) rows of the mode's headline figures, for people."""
        from slotmath.rules.par import fraction_str

        top = self.par.true_max_win
        cap = self.round_cap
        hit = self.par.hit_frequency
        return [
            ("mode", self.name + (f" ({self.mode.label})" if self.mode.label else "")),
            ("cost [x total bet]", f"{float(self.cost):g}"),
            ("RTP [per unit of cost]", f"{float(self.rtp):.6%}"),
            ("RTP exact", fraction_str(self.rtp) or "not a fraction (float64)"),
            ("hit frequency", f"{hit:.6%}" if hit else "0"),
            ("SD [x cost]", f"{self.par.sd / float(self.cost):.6g}"),
            ("max win [x total bet]", "none" if top.value is None else f"{float(top.value):.6g}"),
            ("round cap [x total bet]", "none" if cap is None else f"{float(cap):g}"),
        ]

    def text(self) -> str:
        """The mode's headline figures, then its round's PAR [x total bet]."""
        width = max(len(k) for k, _ in self.summary_rows())
        head = [f"Bet mode {self.name}"] + [f"{k:<{width}}  {v}" for k, v in self.summary_rows()]
        return "\n".join([*head, "", "Round figures [x total bet]:", self.par.text()])


def mode_par(game: Game, name: str, level: int | None = None) -> ModeResult:
    """Exact figures of mode ``name`` of ``game`` at bet ``level`` (default: lowest)."""
    from slotmath.rules.par import par

    mode = mode_of(game, name)
    variant = mode_game(game, name)
    level = game.bet(level).level
    result = buy_analysis(variant, mode, level) if mode.buy is not None else par(variant, level)
    return ModeResult(mode, result)


def all_modes_par(game: Game, level: int | None = None) -> dict:
    """``{name: ModeResult}`` of every mode, the base mode first."""
    return {name: mode_par(game, name, level) for name in mode_names(game)}
