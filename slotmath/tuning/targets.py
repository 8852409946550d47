"""Tuning targets and how far exact figures are from them.

:class:`Targets` states what a tuned game must achieve (an RTP within a
tolerance at every bet level, bands on named figures, figures that must
each equal the target RTP); :func:`assess` judges exact figures against
them, target by target (:class:`Check`), into an :class:`Assessment` whose
``key`` orders candidates: total violation first, then RTP error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from slotmath.model import Game
from slotmath.rules.registry import rules_for

DEFAULT_TOLERANCE = 5e-5  # [x total bet] = 0.005 percentage points
DEFAULT_COMPONENT_SHARE = 0.25  # each RTP component's share within share0 * (1 +- 0.25)
BAND_WEIGHT = 10.0  # a band violation of one band scale counts as 10 tolerances


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
    """

    rtp: Fraction | float
    tolerance: float = DEFAULT_TOLERANCE
    bands: Mapping = field(default_factory=dict)
    rtp_figures: tuple = ("rtp",)
    levels: tuple | None = None

    def __post_init__(self):
        if isinstance(self.rtp, float):
            object.__setattr__(self, "rtp", Fraction(repr(self.rtp)))
        object.__setattr__(self, "bands", {k: tuple(v) for k, v in dict(self.bands).items()})
        object.__setattr__(self, "rtp_figures", tuple(self.rtp_figures))

    def with_game_constraints(self, game: Game) -> Targets:
        """Add the constraints the game's rules state
        (:meth:`slotmath.rules.contract.Rules.tuning_constraints`)."""
        stated = rules_for(game).tuning_constraints(game) or {}
        if not stated:
            return self
        rtp_figs = tuple(dict.fromkeys(tuple(self.rtp_figures) + tuple(stated.get("rtp_figures", ()))))
        bands = {**dict(stated.get("bands", {})), **dict(self.bands)}
        return Targets(self.rtp, self.tolerance, bands, rtp_figs, self.levels)

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
    t, tol = targets.rtp, targets.tolerance
    for level, figs in figures_by_level.items():
        for name in targets.rtp_figures:
            v = figs.get(name)
            if v is None:
                raise KeyError(f"figure {name!r} is not reported for this game")
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


def _exact(v):
    return v if isinstance(v, Fraction) else Fraction(v) if isinstance(v, int) else Fraction(float(v))
