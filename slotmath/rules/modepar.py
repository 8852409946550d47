"""Exact figures of a bet mode: the PAR of the game it plays
(:func:`slotmath.rules.modes.mode_game`) through the one pipeline
(:func:`slotmath.rules.par.par`), or of a bought feature's round (the
feature started at once, no base spin: :func:`buy_analysis`); the mode's RTP
is its mean round win over its cost, ``RTP = E[round win] / cost`` [x total
bet per unit of cost] (exact where the mean is).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from slotmath.errors import ensure
from slotmath.model import Game, Mode
from slotmath.rules.modes import bought_start, buy_spec, mode_game, mode_names, mode_of
from slotmath.rules.result import ParResult

__all__ = [
    "ModeResult",
    "per_cost",
    "bought_feature",
    "buy_sampler",
    "buy_analysis",
    "mode_par",
    "all_modes_par",
]


def bought_feature(game: Game, mode: Mode, level: int) -> tuple:
    """``(feature, notes, cycle, key)`` of a bought round (its feature's
    ``Buy.feature``): the :class:`~slotmath.features.round.Feature` the
    one-key round starts, the notes saying what is bought, the cycle of the
    reel set it plays and the key of the one "window" that starts it."""
    from slotmath.features.registry import bought_kind

    spec = buy_spec(game, mode)
    ensure(mode.buy is not None, "modes.py: a bought mode has a buy")
    return bought_kind(mode.buy.feature).buy.feature(game, level, spec, bought_start(mode))


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

    feature, bought, cycle, key = bought_feature(_played(game), mode, level)
    keyed = KeyedWins(np.array([0], dtype=np.int64), [(key,)], [1], 1, game.bet(level).total_bet, 1)
    cap = round_cap(game)
    law = round_law(keyed, [feature], cap, source=game.source or game.name)
    ensure(law.distribution is not None, "modes.py: the bought round has a distribution")
    figures = dict(law.figures)
    for fig in figures.values():
        fig.pop("event_rates", None)
    columns = ["name", "kind", "count", "pay", "hits", "probability", "one_in", "rtp", "rtp_exact"]
    notes = list(dict.fromkeys([*bought, *round_notes(game, law, bought=True)]))  # each note once
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


def _played(game: Game) -> Game:
    """The game a bought round plays: its drawn wild multipliers written into
    the stops and reel heights into the strips, as every other round reads
    them; when the draws do not fit as stops, the game as declared (its free
    spins' law then comes from the draw profiles of their windows,
    :func:`slotmath.features.freeround.drawn_game`), or a refusal in one line
    (:func:`slotmath.rules.linegame.drawn_law_refusal`, as the base round's)."""
    from slotmath.rules.linegame import drawn_law_refusal, drawn_too_large, played_game

    if not drawn_too_large(game):
        return played_game(game)
    reason = drawn_law_refusal(game)
    if reason is not None:
        from slotmath.engine.limits import EngineTooLarge

        raise EngineTooLarge(
            f"the bought round with drawn wild multipliers is not computed: {reason}",
            file=game.source or game.name,
            field="options.wild_multipliers.table",
        )
    return game


def buy_sampler(game: Game, mode: Mode, level: int):
    """Compiled sampler of a bought round (``game`` = :func:`mode_game`):
    the one its feature's ``Buy.sampler`` names, e.g. the round kernel's
    bought free games (:func:`slotmath.montecarlo.buysim.free_games_buy_sampler`) or
    the bought hold-and-spin
    (:func:`slotmath.montecarlo.holdspinsim.bought_sampler`)."""
    from importlib import import_module

    from slotmath.features.registry import bought_kind
    from slotmath.rules.linegame import drawn_too_large, sampled_drawn_game

    if drawn_too_large(game):  # the draws do not fit as stops: drawn in the window
        game = sampled_drawn_game(game)
    spec = buy_spec(game, mode)
    ensure(mode.buy is not None, "modes.py: a bought mode has a buy")
    module, name = bought_kind(mode.buy.feature).buy.sampler.split(":")
    return getattr(import_module(module), name)(game, level, spec, bought_start(mode))


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
        from slotmath.rules.result import fraction_str

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
        from slotmath.rules.result import fraction_display

        top = self.par.true_max_win
        cap = self.round_cap
        hit = self.par.hit_frequency
        return [
            ("mode", self.name + (f" ({self.mode.label})" if self.mode.label else "")),
            ("cost [x total bet]", f"{float(self.cost):g}"),
            ("RTP [per unit of cost]", f"{float(self.rtp):.6%}"),
            ("RTP exact", fraction_display(self.rtp)),
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
