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
    "check_modes",
    "buy_game",
    "buy_spec",
    "buy_analysis",
    "mode_par",
    "all_modes_par",
]

#: option keys a bought free-games round plays (the base game's own features are not started)
BUY_OPTIONS = ("free_games", "round_cap", "wild_multipliers")


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
        variant = buy_game(variant)
    read = reel_sets_read(variant)
    return dataclasses.replace(variant, reel_sets={k: v for k, v in sets.items() if k in read})


def buy_game(game: Game) -> Game:
    """``game`` with only the options a bought free-games round plays
    (:data:`BUY_OPTIONS`): the base spin and the features it starts are not played."""
    return dataclasses.replace(game, options={k: v for k, v in game.options.items() if k in BUY_OPTIONS})


def check_modes(game: Game) -> None:
    """Check every declared mode's game as the line rules check a game
    (:meth:`slotmath.rules.contract.Rules.check`: the options they read,
    then :func:`slotmath.rules.linegame.check`): a problem is one line naming
    ``modes.NAME`` and the field of the mode's game."""
    from slotmath.rules.registry import rules_for

    for name, mode in game.modes.items():
        try:
            variant = mode_game(game, name)
            rules_for(variant).check(variant)
            if mode.buy is not None:
                buy_spec(variant, mode)
        except GameFileError as exc:
            raise GameFileError(game.source, f"modes.{name}", f"{exc.field}: {exc.problem}") from None


def buy_spec(game: Game, mode: Mode):
    """The free games a buy starts: the declared ones with every count
    starting ``mode.buy.games`` games and no prize (retriggers keep the
    declared retrigger awards)."""
    from slotmath.features.options import load_features

    spec = load_features(game).free_games
    if spec is None or mode.buy is None:
        raise GameFileError(game.source, "buy.feature", "buys free_games, which the mode does not declare")
    return dataclasses.replace(
        spec,
        awards={0: (Fraction(0), mode.buy.games)},
        multipliers=None,  # a bought feature plays at the free games' multiplier
        retrigger_awards=spec.retrigger_awards or spec.awards,
    )


def buy_analysis(game: Game, mode: Mode, level: int) -> ParResult:
    """Exact PAR of a bought round (``game`` = :func:`mode_game`): the free
    games from ``mode.buy.games`` games, through the generic round
    (:func:`slotmath.features.round.round_law`) on a base "spin" that always
    pays 0 and starts them; its RTP is the free games' mean award from that
    many games, ``multiplier x E[sum of the free spins' wins]`` [x total bet]."""
    import numpy as np
    import pandas as pd

    from slotmath.engine.joint import KeyedWins
    from slotmath.features.freeround import free_games_feature_of
    from slotmath.features.round import round_law, round_max_win
    from slotmath.rules.linegame import played_game, round_cap, round_notes
    from slotmath.rules.par import ParResult

    # the game as played: drawn wild multipliers written into the stops and reel
    # heights into the strips, as the sampler and every other round read them
    played = played_game(game)
    spec = buy_spec(played, mode)
    feature = free_games_feature_of(played, level, spec)
    # one "window" paying 0 whose key starts the bought games: count 0, or under a
    # reel condition (retriggers keep it) no trigger symbol on any reel
    item = (0,) * game.reels if spec.trigger_reels is not None else 0
    keyed = KeyedWins(np.array([0], dtype=np.int64), [(item,)], [1], 1, game.bet(level).total_bet, 1)
    cap = round_cap(game)
    law = round_law(keyed, [feature], cap, source=game.source or game.name)
    ensure(law.distribution is not None, "modes.py: the bought round has a distribution")
    figures = dict(law.figures)
    for fig in figures.values():
        fig.pop("event_rates", None)
    columns = ["name", "kind", "count", "pay", "hits", "probability", "one_in", "rtp", "rtp_exact"]
    notes = [
        f"Bought round: {spec.games(0)} free games started at once (no base spin) on reel set "
        f"{spec.reels!r}; the cycle is that set's.",
        *round_notes(law, cap),
    ]
    return ParResult(
        game=game,
        bet=game.bet(level),
        cycle=played.cycle(spec.reels),
        rtp=law.rtp,
        components=dict(law.components),
        distribution=law.distribution,  # type: ignore[arg-type]
        combinations=pd.DataFrame(columns=columns),
        features=figures,
        notes=notes,
        distribution_shortfall=law.shortfall,
        max_win=round_max_win(keyed, [feature], cap, law.distribution),
    )


def _per_cost(value, cost: Fraction):
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
        return _per_cost(self.par.rtp, self.cost)

    @property
    def components(self) -> dict:
        """RTP by component [x cost]."""
        return {k: _per_cost(v, self.cost) for k, v in self.par.components.items()}

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
            "buy": None if buy is None else {"feature": buy.feature, "games": buy.games},
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
