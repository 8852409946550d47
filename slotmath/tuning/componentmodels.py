"""How the RTP components of a feature game follow its tuned reel set.

A line game with features reports its RTP as components (``rtp:lines``,
``rtp:scatters``, one per feature) that add up to the RTP.  Tuning one reel
set with no bet modes, each component is modelled by the tuned set's line
form ``L`` (:class:`~slotmath.tuning.linearmodels.LineForms`, the line RTP
[x total bet]) with its own scale, and by finite differences of what that
form does not explain:

* ``rtp:lines`` is the line form itself (scale 1, exact); a ways game's
  ``rtp:ways`` is its ways form (:class:`~slotmath.tuning.linearmodels.WaysForms`).
* A feature whose games play the tuned set (free games on the base reels)
  pays ``F = p G m s``: the trigger probability ``p``, the mean games played
  ``G``, the multiplier ``m`` and the free spin's mean win ``s`` [x total
  bet], which is the tuned set's ``L`` plus its scatter pays.  By the
  product rule ``dF = (F / s) dL + (F / p) (1 + p G'(p) / G) dp``: the value
  factor ``F / s`` is the scale of ``L`` (:func:`line_form_scales`); the
  trigger factor moves only with the symbols that start the feature, which
  the tuner holds, and with the weights of the stops whose window shows them.
* Every other component (scatter pays, a hold-and-spin started by held
  coins) does not follow ``L``: scale 0.
* The RTP is their sum: scale ``1 + sum F / s``.

What the scales do not explain (the trigger odds, the scatter pays, a held
symbol's landing) depends on a unit only through the held symbols its
window shows (:func:`unit_classes`; a released scatter is a class of its
own): one finite difference per class of a reel gives it for every unit
of the class, a few evaluations per reel instead of one per stop.
"""

from __future__ import annotations

import numpy as np

from slotmath.engine.payrule import pay_rule
from slotmath.features.registry import declared_kinds
from slotmath.rules.registry import rules_for
from slotmath.tuning.reelspace import HELD_KINDS, ReelSpace
from slotmath.tuning.targets import Targets, rtp_components


def channel_figure(game) -> str:
    """The RTP component the tuned set's form is: ``rtp:<the pay rule's
    channel>`` (``rtp:lines``, ``rtp:ways``)."""
    return f"rtp:{pay_rule(game).channel}"


def line_form_scales(space: ReelSpace, targets: Targets, figs: dict) -> dict | None:
    """``{figure: scale}``: the change of each RTP figure (``rtp`` and every
    ``rtp:<component>``) per unit change of the tuned set's line RTP, at the
    point whose exact figures are ``figs`` (module notes); None when the
    run is not one reel set of a line game with feature components and no
    bet modes (the solver's general models apply)."""
    if targets.modes or len(space.reel_sets) > 1 or not rules_for(space.game).plays_feature_kinds:
        return None
    parts = rtp_components(figs, targets)
    channel = channel_figure(space.game)
    if channel not in parts or len(parts) < 2:
        return None
    riding = {}
    for kind in declared_kinds(space.game):
        comp = kind.component
        if comp is None or f"rtp:{comp}" not in parts or space.reel_set not in kind.reel_sets(space.game):
            continue
        s = figs.get(f"feature:{comp}.free_spin_mean")
        if s is not None and float(s) > 0:
            riding[f"rtp:{comp}"] = float(parts[f"rtp:{comp}"]) / float(s)
    out = {name: riding.get(name, 1.0 if name == channel else 0.0) for name in parts}
    rtp = 1.0 + sum(riding.values())
    out["rtp"] = rtp
    for name in targets.rtp_figures:
        out[name] = rtp
    return out


def unit_classes(space: ReelSpace, r: int) -> list:
    """The units of reel ``r`` that may move, in classes (lists of unit
    indices) of the same held symbols shown: per symbol held, or of a kind
    held by default (scatters and special symbols, which start features,
    even when released), how many times the window of one unit shows it (a
    symbol count's unit: the symbol itself).  Units at a fixed value are
    left out."""
    rv = space.reels[r]
    held = [i for i, s in enumerate(space.game.symbols) if s.name in space.held or s.kind in HELD_KINDS]
    shows = rv.incidence[:, :, held].sum(axis=1) if held else np.zeros((rv.size, 0), dtype=np.int64)
    classes: dict = {}
    for u in range(rv.size):
        if rv.lo[u] != rv.hi[u]:
            classes.setdefault(tuple(int(c) for c in shows[u]), []).append(u)
    return list(classes.values())
