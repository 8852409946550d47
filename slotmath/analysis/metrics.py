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
    For line games: P(a scatter pays) [probability]; rules modules define
    their own (a feature trigger).
``rtp:<component>``
    The RTP components of the PAR result [x total bet].
``feature:<key>``, ``feature:<key>.<sub>``
    Numbers in the PAR result's ``features`` (for example the RTP under
    each choice of a feature selection, ``feature:by_choice.lockit``), when
    the figures come from ``par()``.

Where they come from (first that applies):

1. the rules module's ``tuning_figures(game, level[, needed])``
   (``slotmath.rules.<rules>``), which returns a dict with at least ``rtp``
   and any game-specific figures (feature frequencies, the RTP under each
   choice of a feature selection, ...); a hook that takes ``needed`` (the
   figure names wanted, None for all) may leave out figures not asked for;
   ``vi`` is added from ``sd`` when missing;
2. for line games (``rules: lines``), :func:`line_figures`: the RTP by
   contracting the cached pay tensor with the reels' row marginals plus the
   scatter distribution (milliseconds); hit frequency, SD and VI from the
   exact moments (:func:`slotmath.engine.moments.line_moments`: pairwise line
   terms and a no-win count, tens of milliseconds); and -- only when the
   max win is asked for (or every figure, ``needed=None``) -- all four
   from the exact joint distribution (:func:`slotmath.engine.joint.spin_distribution`).
   The mean of either is checked to equal the contracted RTP exactly;
3. otherwise the figures of :func:`slotmath.rules.par.par`.
"""

from __future__ import annotations

import inspect
from fractions import Fraction
from functools import lru_cache

from slotmath.engine.combinations import line_rtp_parts
from slotmath.engine.distribution import (
    VI_CONFIDENCE,
    z_value,
)
from slotmath.engine.joint import spin_distribution
from slotmath.engine.lines import pay_tensor
from slotmath.engine.moments import line_moments
from slotmath.engine.scatters import scatter_code_distribution  # noqa: F401  (re-exported)
from slotmath.model import Game
from slotmath.rules.par import ParResult, par, rules_module

#: Figures of a line game beyond its RTP (from the moments or the joint distribution).
DISTRIBUTION_FIGURES = frozenset({"hit_frequency", "sd", "vi", "max_win"})
#: Those the exact moments give without the distribution (:mod:`slotmath.engine.moments`).
MOMENT_FIGURES = frozenset({"hit_frequency", "sd", "vi"})
#: The figures the workbench keeps live (every source gives them fast).
LIVE_FIGURES = frozenset({"rtp", "hit_frequency", "sd", "vi", "feature_frequency"})
#: Figures every source provides.
CORE_FIGURES = ("rtp", "hit_frequency", "sd", "vi")


class EngineMismatch(AssertionError):
    """Two exact computations of one figure disagree (a defect, never input)."""


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
    features = result.features if isinstance(result.features, dict) else {}
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


def _is_number(value) -> bool:
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def figure_hook(game: Game):
    """The rules module's ``tuning_figures`` function, or None."""
    if game.rules == "lines":
        return None
    return getattr(rules_module(game), "tuning_figures", None)


def fast_figures(game: Game) -> bool:
    """True when ``game`` has a fast exact source of the :data:`LIVE_FIGURES`
    (a rules module's ``tuning_figures`` or the line-game path), so a
    workbench can keep them live; else only ``par()`` gives them."""
    return game.rules == "lines" or figure_hook(game) is not None


@lru_cache(maxsize=32)
def _takes_needed(hook) -> bool:
    """True when a ``tuning_figures`` hook has a ``needed`` parameter."""
    return "needed" in inspect.signature(hook).parameters


def honours_needed(game: Game) -> bool:
    """True when :func:`game_figures` may compute fewer figures for a
    ``needed`` set (line games; a hook with a ``needed`` parameter)."""
    hook = figure_hook(game)
    return game.rules == "lines" or (hook is not None and _takes_needed(hook))


def game_figures(game: Game, level: int, reel_set: str = "base", needed=None) -> dict:
    """Exact named figures of ``game`` at bet ``level`` (see the module notes)."""
    hook = figure_hook(game)
    if hook is not None:
        figs = dict(hook(game, level, needed=needed) if _takes_needed(hook) else hook(game, level))
        if "rtp" not in figs:
            raise TypeError(f"{game.rules}.tuning_figures returned no 'rtp'")
        if "sd" in figs and "vi" not in figs:
            figs["vi"] = z_value(VI_CONFIDENCE) * float(figs["sd"])
        return figs
    if game.rules == "lines" and game.pays_by != "ways":
        return line_figures(game, level, reel_set, needed)
    return par_figures(par(game, level))


def full_figures(game: Game, level: int, reel_set: str = "base") -> dict:
    """Every figure from the full analysis (the workbench's "Full figures"):
    a line game's figures with the joint distribution (adds the max win);
    otherwise the figures of :func:`slotmath.rules.par.par` over those of the rules
    module's ``tuning_figures`` (which the hook's tests show to agree)."""
    if game.rules == "lines" and game.pays_by != "ways":
        return line_figures(game, level, reel_set)
    figs = game_figures(game, level, reel_set) if figure_hook(game) is not None else {}
    figs.update(par_figures(par(game, level)))
    return figs


def equivalent_levels(game: Game) -> dict:
    """Map each bet level to a level with provably the same figures.

    For a line game whose pays are proportional to the bet level (linear
    pay table) every figure per unit of total bet is the same at every
    level; a non-linear pay table makes levels distinct.  A rules module may
    say which of its levels are equivalent with ``equivalent_levels(game)``
    (same mapping); otherwise each level stands alone.
    """
    levels = game.levels
    if game.rules != "lines":
        hook = getattr(rules_module(game), "equivalent_levels", None)
        return dict(hook(game)) if hook is not None else {lv: lv for lv in levels}
    base = levels[0]
    out = {}
    for i, lv in enumerate(levels):
        same = all(lp.pays[i] * base == lp.pays[0] * lv for lp in game.line_pays)
        out[lv] = base if same else lv
    return out


def as_float(value) -> float:
    """A figure as float (None stays None)."""
    return None if value is None else float(value)


def to_float_dict(figs: dict) -> dict:
    return {k: as_float(v) for k, v in figs.items()}
