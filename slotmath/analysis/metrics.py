"""Named figures of a game at one bet level: what tuning reads and targets.

Every figure is exact (computed over the full cycle by the engine):

``rtp``
    Return to player [x total bet] (a Fraction when exact).
``hit_frequency``
    P(the spin or round wins anything) [probability].
``sd``, ``vi``
    Standard deviation and 90 % volatility index of the win [x total bet].
``max_win``
    Largest win [x total bet].
``feature_frequency``
    For line games: P(a scatter pays) [probability]; other rules define
    their own (a feature trigger).
``rtp:<component>``
    The RTP components of the PAR result [x total bet].
``feature:<key>``, ``feature:<key>.<sub>``
    Numbers in the PAR result's ``features`` (for example the RTP under
    each choice of a feature selection, ``feature:by_choice.lockit``), when
    the figures come from ``par()``.

Where they come from: the game's rules
(:meth:`slotmath.rules.contract.Rules.figures`, with ``needed``: the figure
names wanted, None for all; ``vi`` is added from ``sd`` when missing).
For line games (``rules: lines``) they are :func:`line_figures`: the RTP by
contracting the cached pay tensor with the reels' row marginals plus the
scatter distribution (milliseconds); hit frequency, SD and VI from the exact
moments (:func:`slotmath.engine.moments.line_moments`: pairwise line terms
and a no-win count, tens of milliseconds); and -- only when the max win is
asked for (or every figure, ``needed=None``) -- all four from the exact joint
distribution (:func:`slotmath.engine.joint.spin_distribution`).  The mean of
either is checked to equal the contracted RTP exactly.  Rules without fast
figures give those of their full analysis (:func:`par_figures`).
"""

from __future__ import annotations

from slotmath.engine.distribution import VI_CONFIDENCE, z_value
from slotmath.model import Game
from slotmath.rules.figures import (  # noqa: F401  (re-exported: the figures' home before the rules contract)
    CORE_FIGURES,
    DISTRIBUTION_FIGURES,
    LIVE_FIGURES,
    MOMENT_FIGURES,
    EngineMismatch,
    line_figures,
    line_rtp_parts,
    par_figures,
    scatter_code_distribution,
    shared_pay_tensor,
)
from slotmath.rules.registry import rules_for


def fast_figures(game: Game) -> bool:
    """True when ``game``'s rules give the :data:`LIVE_FIGURES` fast
    (:attr:`slotmath.rules.contract.Rules.fast_figures`), so a workbench can
    keep them live; else only the full analysis gives them."""
    return rules_for(game).fast_figures


def honours_needed(game: Game) -> bool:
    """True when :func:`game_figures` may compute fewer figures for a
    ``needed`` set (:attr:`slotmath.rules.contract.Rules.figures_honour_needed`)."""
    return rules_for(game).figures_honour_needed


def game_figures(game: Game, level: int, reel_set: str = "base", needed=None) -> dict:
    """Exact named figures of ``game`` at bet ``level`` (see the module notes)."""
    rules = rules_for(game)
    figs = dict(rules.figures(game, level, reel_set, needed))
    if "rtp" not in figs:
        raise TypeError(f"rules {game.rules!r}: figures() returned no 'rtp'")
    if "sd" in figs and "vi" not in figs:
        figs["vi"] = z_value(VI_CONFIDENCE) * float(figs["sd"])
    return figs


#: figures that are per unit of a mode's cost (the others are probabilities or [x total bet])
PER_COST_FIGURES = ("rtp", "sd", "vi")


def mode_figures(game: Game, name: str, level: int, needed=None) -> dict:
    """Exact named figures of bet mode ``name`` of ``game`` at bet ``level``:
    those of :func:`game_figures` of the game the mode plays
    (:func:`slotmath.rules.modes.mode_game`; a buy: its bought round,
    :func:`slotmath.rules.modepar.mode_par`), with ``rtp``, each
    ``rtp:<component>``, ``sd`` and ``vi`` per unit of the mode's cost, as
    ``slotmath par --mode`` gives them.  The base mode is the game itself."""
    from slotmath.rules.modepar import mode_par, per_cost
    from slotmath.rules.modes import mode_game, mode_of

    mode = mode_of(game, name)
    if mode.buy is None:
        figs = game_figures(mode_game(game, name), level, "base", needed)
    else:
        figs = par_figures(mode_par(game, name, level).par)
    return {
        k: per_cost(v, mode.cost) if v is not None and (k in PER_COST_FIGURES or k.startswith("rtp:")) else v
        for k, v in figs.items()
    }


def full_figures(game: Game, level: int, reel_set: str = "base") -> dict:
    """Every figure from the full analysis (the workbench's "Full figures"):
    :meth:`slotmath.rules.contract.Rules.full_figures` (a line game's figures
    with the joint distribution, which adds the max win; otherwise the
    figures of the PAR result over those of the rules' fast figures)."""
    return rules_for(game).full_figures(game, level, reel_set)


def equivalent_levels(game: Game) -> dict:
    """Map each bet level to a level with provably the same figures
    (:meth:`slotmath.rules.contract.Rules.equivalent_levels`: for a line
    game whose pays are proportional to the bet level, every figure per
    unit of total bet is the same at every level)."""
    return dict(rules_for(game).equivalent_levels(game))


def as_float(value) -> float:
    """A figure as float (None stays None)."""
    return None if value is None else float(value)


def to_float_dict(figs: dict) -> dict:
    return {k: as_float(v) for k, v in figs.items()}
