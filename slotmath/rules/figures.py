"""Exact tuning figures the rules layer can give without the analysis layer:
the fast figures of a line game (:func:`line_figures`) and the figures of a
PAR result (:func:`par_figures`).  :mod:`slotmath.analysis.metrics` documents
each figure's name and re-exports these; the rules contract
(:mod:`slotmath.rules.contract`) uses them as its defaults.
"""

from __future__ import annotations

from fractions import Fraction

from slotmath.engine.combinations import line_rtp_parts
from slotmath.engine.distribution import (
    VI_CONFIDENCE,
    z_value,
)
from slotmath.engine.joint import spin_distribution
from slotmath.engine.lines import pay_tensor
from slotmath.engine.moments import line_moments
from slotmath.engine.scatters import scatter_code_distribution
from slotmath.errors import EngineMismatch as EngineMismatch
from slotmath.model import Game
from slotmath.rules.result import ParResult

__all__ = [
    "CORE_FIGURES",
    "DISTRIBUTION_FIGURES",
    "LIVE_FIGURES",
    "MOMENT_FIGURES",
    "EngineMismatch",
    "line_figures",
    "line_rtp_parts",
    "par_figures",
    "rule_rtp_figures",
    "RTP_FIGURES",
    "feature_figures",
    "round_figures",
    "scatter_code_distribution",
    "shared_pay_tensor",
]

#: Figures of a line game beyond its RTP (from the moments or the joint distribution).
DISTRIBUTION_FIGURES = frozenset({"hit_frequency", "sd", "vi", "max_win"})
#: Those the exact moments give without the distribution (:mod:`slotmath.engine.moments`).
MOMENT_FIGURES = frozenset({"hit_frequency", "sd", "vi"})
#: The figures the workbench keeps live (every source gives them fast).
LIVE_FIGURES = frozenset({"rtp", "hit_frequency", "sd", "vi", "feature_frequency"})
#: Figures every source provides.
CORE_FIGURES = ("rtp", "hit_frequency", "sd", "vi")


def shared_pay_tensor(game: Game, level: int):
    """:func:`slotmath.engine.lines.pay_tensor` (cached on the pay table, so games
    that differ only in their strips share one tensor)."""
    return pay_tensor(game, level)


def line_figures(game: Game, level: int, reel_set: str = "base", needed=None) -> dict:
    """Exact figures of a line game (see the module notes).

    Parameters
    ----------
    needed : iterable of str, optional
        Figures wanted (default: all figures).  Hit frequency, SD and VI come
        from the moments; the joint distribution is computed only for
        ``max_win`` (and for the default, every figure).
    """
    parts = line_rtp_parts(game, level, reel_set)
    rtp = parts["lines"] + parts["scatters"]
    figs = {"rtp": rtp, "rtp:lines": parts["lines"]}
    if game.scatter_pays:
        figs["rtp:scatters"] = parts["scatters"]
        figs["feature_frequency"] = parts["feature_frequency"]
    wanted = DISTRIBUTION_FIGURES if needed is None else DISTRIBUTION_FIGURES & set(needed)
    if wanted - MOMENT_FIGURES:
        dist = spin_distribution(game, level, reel_set)
        if dist.mean != rtp:
            raise EngineMismatch(
                f"{game.name}: contracted RTP {rtp} differs from the joint distribution's mean {dist.mean}"
            )
        figs.update(
            hit_frequency=dist.hit_frequency,
            sd=dist.sd,
            vi=dist.volatility_index(VI_CONFIDENCE),
            max_win=dist.max_win,
        )
    elif wanted:
        m = line_moments(game, level, reel_set)
        if m.mean != rtp:
            raise EngineMismatch(f"{game.name}: contracted RTP {rtp} differs from the moments' mean {m.mean}")
        figs.update(hit_frequency=m.hit_frequency, sd=m.sd, vi=z_value(VI_CONFIDENCE) * m.sd)
    return figs


#: the RTP figures :func:`rule_rtp_figures` gives (with ``rtp:<the rule's channel>``)
RTP_FIGURES = frozenset({"rtp", "rtp:scatters"})


def rule_rtp_figures(game: Game, level: int, reel_set: str = "base") -> dict:
    """The RTP and its components of a game without options [x total bet,
    exact]: its pay rule's fastest exact RTP
    (:meth:`~slotmath.engine.pays.PayRule.fast_rtp`) and the scatter
    pays', the same as the PAR sheet's (a ways game's tuning skips its
    distribution this way)."""
    from slotmath.engine.payrule import pay_rule

    rule = pay_rule(game)
    channel = rule.fast_rtp(game, level, reel_set)
    scat = rule.scatter_rtp(game, level, reel_set)
    figs = {"rtp": channel + scat, f"rtp:{rule.channel}": channel}
    if game.scatter_pays:
        figs["rtp:scatters"] = scat
    return figs


def par_figures(result: ParResult) -> dict:
    """The tuning figures of a PAR result."""
    figs = {
        "rtp": result.rtp,
        "hit_frequency": result.distribution.hit_frequency,
        "sd": result.sd,
        "vi": result.distribution.volatility_index(VI_CONFIDENCE),
        "max_win": result.distribution.max_win,
    }
    for name, value in result.components.items():
        figs[f"rtp:{name}"] = value
    figs.update(feature_figures(result.features if isinstance(result.features, dict) else {}))
    return figs


def feature_figures(features: dict) -> dict:
    """The named figures of a PAR result's ``features``: ``feature_frequency``
    when given, every number as ``feature:<key>`` and every number one level
    down as ``feature:<key>.<sub>``."""
    figs = {}
    ff = features.get("feature_frequency")
    if _is_number(ff):
        figs["feature_frequency"] = ff
    for key, value in features.items():
        if _is_number(value):
            figs[f"feature:{key}"] = value
        elif isinstance(value, dict):
            for sub, v in value.items():
                if _is_number(v):
                    figs[f"feature:{key}.{sub}"] = v
    return figs


def round_figures(game: Game, level: int, reel_set: str = "base") -> dict | None:
    """The figures of a feature round for tuning without its distribution
    (:func:`slotmath.rules.linegame.fast_round`): those of :func:`par_figures`
    but ``max_win``; ``rtp`` and every ``rtp:<component>`` the same exact
    values, ``hit_frequency``, ``sd`` and ``vi`` from the round's moments
    (float64).  None when the round needs its full analysis."""
    from slotmath.rules.linegame import fast_round

    parts = fast_round(game, level, reel_set)
    if parts is None:
        return None
    rtp, components, features, moments, paid = parts
    sd = max(moments.second_moment - float(paid) ** 2, 0.0) ** 0.5
    figs = {
        "rtp": rtp,
        "hit_frequency": moments.hit_frequency,
        "sd": sd,
        "vi": z_value(VI_CONFIDENCE) * sd,
    }
    figs.update({f"rtp:{name}": value for name, value in components.items()})
    figs.update(feature_figures(features))
    return figs


def _is_number(value) -> bool:
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)
