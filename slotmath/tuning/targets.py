"""Tuning targets and how far exact figures are from them.

:class:`Targets` states what a tuned game must achieve (an RTP within a
tolerance at every bet level, bands on named figures, figures that must
each equal the target RTP); :func:`assess` judges exact figures against
them, target by target (:class:`Check`), into an :class:`Assessment` whose
``key`` orders candidates: total violation first, then RTP error.

Bet modes: the plain figure names are those of the mode tuned
(``Targets.mode``, default the game as declared); another mode's figures
are named ``MODE/FIGURE`` (``buy/rtp``, ``buy/hit_frequency``), and
``Targets.mode_rtp`` gives each other mode its own target RTP (per unit of
its cost), which its ``MODE/rtp`` figure must meet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from slotmath.errors import BoundsError
from slotmath.io.gamefile import BASE_MODE
from slotmath.model import Game
from slotmath.rules.registry import rules_for

DEFAULT_TOLERANCE = 5e-5  # [x total bet] = 0.005 percentage points
DEFAULT_COMPONENT_SHARE = 0.25  # each RTP component's share within share0 * (1 +- 0.25)
BAND_WEIGHT = 10.0  # a band violation of one band scale counts as 10 tolerances
MODE_SEP = "/"  # a figure of another bet mode: MODE/FIGURE


def mode_figure(mode: str, name: str) -> str:
    """The name of figure ``name`` of bet mode ``mode`` (``buy/rtp``)."""
    return f"{mode}{MODE_SEP}{name}"


def split_figure(name: str) -> tuple:
    """``(mode, figure)`` of a figure name: ``buy/rtp`` -> ``("buy", "rtp")``;
    a plain name (the mode tuned) -> ``(None, name)``."""
    mode, sep, rest = name.partition(MODE_SEP)
    return (mode, rest) if sep and mode.isidentifier() and rest else (None, name)


@dataclass(frozen=True)
class Targets:
    """What a tuned game must achieve.

    Attributes
    ----------
    rtp : Fraction or float
        Target RTP [x total bet].
    tolerance : float
        Allowed ``|RTP - target|`` [x total bet] (default 5e-5, i.e. 0.005
        percentage points).
    bands : mapping
        ``{figure: (lo, hi)}``; either side may be None (open).
    rtp_figures : tuple of str
        Figures that must each equal ``rtp`` within ``tolerance``.
    levels : tuple of int or None
        Bet levels the targets apply to (None: every level).
    mode : str or None
        The bet mode whose figures the plain names are (``rtp`` is then its
        RTP per unit of cost); None: the game as declared, by the figures of
        the tuned reel set (the base mode when other modes are targeted).
    mode_rtp : mapping
        ``{mode: target RTP per unit of its cost}`` of other bet modes, met
        at once: each adds its figure ``MODE/rtp`` to ``rtp_figures``.
        Bands on another mode's figures are named ``MODE/FIGURE``.
    """

    rtp: Fraction | float
    tolerance: float = DEFAULT_TOLERANCE
    bands: Mapping = field(default_factory=dict)
    rtp_figures: tuple = ("rtp",)
    levels: tuple | None = None
    mode: str | None = None
    mode_rtp: Mapping = field(default_factory=dict)

    def __post_init__(self):
        if isinstance(self.rtp, float):
            object.__setattr__(self, "rtp", Fraction(repr(self.rtp)))
        prefix = mode_figure(self.primary, "")  # a figure of the mode tuned is named plainly

        def plain(name: str) -> str:
            return name[len(prefix) :] if name.startswith(prefix) else name

        object.__setattr__(self, "bands", {plain(k): tuple(v) for k, v in dict(self.bands).items()})
        figs = [plain(f) for f in self.rtp_figures]
        mode_rtp = {str(m): _fraction(v) for m, v in dict(self.mode_rtp).items()}
        if self.primary in mode_rtp:
            raise BoundsError(
                f"target RTP of mode {self.primary!r} given twice "
                "(it is the mode tuned: give it as the target RTP)"
            )
        object.__setattr__(self, "mode_rtp", mode_rtp)
        extra = tuple(mode_figure(m, "rtp") for m in mode_rtp)
        object.__setattr__(self, "rtp_figures", tuple(dict.fromkeys((*figs, *extra))))

    @property
    def primary(self) -> str:
        """The bet mode whose figures the plain names are."""
        return self.mode if self.mode is not None else BASE_MODE

    @property
    def modes(self) -> tuple:
        """Every bet mode the targets judge, the mode tuned first; empty
        when they name none (the game's figures as before modes)."""
        named = [split_figure(n)[0] for n in (*self.rtp_figures, *self.bands)]
        others = [m for m in (*self.mode_rtp, *named) if m is not None and m != self.primary]
        if self.mode is None and not others:
            return ()
        return tuple(dict.fromkeys((self.primary, *others)))

    def target_of(self, name: str) -> Fraction:
        """The target RTP of RTP figure ``name`` (its mode's, else :attr:`rtp`)."""
        mode = split_figure(name)[0]
        return self.mode_rtp[mode] if mode in self.mode_rtp else self.rtp

    def with_game_constraints(self, game: Game) -> Targets:
        """Add the constraints the game's rules state
        (:meth:`slotmath.rules.contract.Rules.tuning_constraints`)."""
        stated = rules_for(game).tuning_constraints(game) or {}
        if not stated:
            return self
        rtp_figs = tuple(dict.fromkeys(tuple(self.rtp_figures) + tuple(stated.get("rtp_figures", ()))))
        bands = {**dict(stated.get("bands", {})), **dict(self.bands)}
        return dataclasses.replace(self, bands=bands, rtp_figures=rtp_figs)

    @property
    def figures(self) -> tuple:
        return tuple(dict.fromkeys(tuple(self.rtp_figures) + tuple(self.bands)))


@dataclass(frozen=True)
class Check:
    """One target at one bet level, judged on exact figures."""

    level: int
    figure: str
    value: object
    lo: object
    hi: object
    miss: float  # distance outside the allowed range (0 when met) [figure units]
    scale: float  # what one unit of violation is measured in
    weight: float

    @property
    def ok(self) -> bool:
        return self.miss == 0

    @property
    def violation(self) -> float:
        return self.weight * self.miss / self.scale


def band_scale(lo, hi) -> float:
    """Unit in which a band violation is measured."""
    if lo is not None and hi is not None and hi > lo:
        return float(hi - lo)
    ref = abs(float(lo if lo is not None else hi or 0.0))
    return max(0.05 * ref, 1e-9)


@dataclass(frozen=True)
class Assessment:
    """How far exact figures are from the targets."""

    checks: tuple
    rtp_error: float  # sum of |figure - target RTP| / tolerance over RTP figures and levels

    @property
    def violation(self) -> float:
        return float(sum(c.violation for c in self.checks))

    @property
    def feasible(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def key(self) -> tuple:
        return (round(self.violation, 9), round(self.rtp_error, 9))

    def better_than(self, other: Assessment) -> bool:
        return self.key < other.key


def assess(figures_by_level: dict, targets: Targets) -> Assessment:
    """Judge exact figures (``{level: {figure: value}}``) against ``targets``."""
    checks, err = [], 0.0
    tol = targets.tolerance
    for level, figs in figures_by_level.items():
        for name in targets.rtp_figures:
            v = figs.get(name)
            if v is None:
                raise KeyError(f"figure {name!r} is not reported for this game")
            t = targets.target_of(name)
            diff = abs(_exact(v) - _exact(t))
            err += float(diff) / tol
            miss = max(float(diff) - tol, 1e-300) if diff > Fraction(str(tol)) else 0.0
            checks.append(Check(level, name, v, float(t) - tol, float(t) + tol, miss, tol, 1.0))
        for name, (lo, hi) in targets.bands.items():
            v = figs.get(name)
            if v is None:
                raise KeyError(f"figure {name!r} is not reported for this game")
            fv = float(v)
            miss = max(0.0, (lo - fv) if lo is not None else 0.0, (fv - hi) if hi is not None else 0.0)
            checks.append(Check(level, name, v, lo, hi, miss, band_scale(lo, hi), BAND_WEIGHT))
    return Assessment(tuple(checks), err)


def rtp_components(figs: dict, targets: Targets) -> dict:
    """``{figure: value}`` of the ``rtp:<component>`` figures that add up to
    the RTP (lines, scatters, each feature); empty when the reported
    ``rtp:`` figures are not such a decomposition (e.g. the RTP under each
    choice of a selection) or there is only one."""
    parts = {
        k: v
        for k, v in figs.items()
        if k.startswith("rtp:") and k not in targets.rtp_figures and v is not None
    }
    if len(parts) < 2 or "rtp" not in figs:
        return {}
    total = sum(_exact(v) for v in parts.values())
    if abs(float(total - _exact(figs["rtp"]))) > 1e-12 * max(1.0, abs(float(figs["rtp"]))):
        return {}
    return {k: v for k, v in parts.items() if v != 0}


def component_share_bands(figs: dict, targets: Targets, band: float | None) -> dict:
    """Bands that keep each RTP component's share of the RTP within
    ``share0 * (1 +- band)`` once the RTP is on target: ``{figure: (lo, hi)}``
    [x total bet] for the components of :func:`rtp_components` that no
    band of ``targets`` names already."""
    if band is None:
        return {}
    parts = rtp_components(figs, targets)
    rtp, t = float(figs.get("rtp", 0)), float(targets.rtp)
    out = {}
    for name, v in parts.items():
        if name in targets.bands or rtp <= 0:
            continue
        share = float(v) / rtp
        out[name] = (share * (1 - band) * t, share * (1 + band) * t)
    return out


def _fraction(v) -> Fraction:
    return Fraction(repr(v)) if isinstance(v, float) else Fraction(v)


def _exact(v):
    return v if isinstance(v, Fraction) else Fraction(v) if isinstance(v, int) else Fraction(float(v))
