"""The samplers' compiled window evaluation of each pay rule not paid by
paylines: one table (:data:`PAY_EVALUATIONS`) keyed by the rule's
``sampler_pays`` (:class:`slotmath.engine.pays.PayRule`), read by the
round sampler (:func:`slotmath.montecarlo.roundsim.evaluation`) and the
tumble sampler (:mod:`slotmath.montecarlo.tumblesim`).  A new pay rule's
sampler is one entry here; line pays are :mod:`slotmath.montecarlo.linesim`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from slotmath.model import Game
from slotmath.montecarlo.anywheresim import anywhere_args, no_anywhere_args
from slotmath.montecarlo.clustersim import cluster_args, no_cluster_args
from slotmath.montecarlo.wayssim import no_ways_args, ways_args

__all__ = ["PayEvaluation", "PAY_EVALUATIONS", "pays_args"]


@dataclass(frozen=True)
class PayEvaluation:
    """One rule's window evaluation in the samplers.

    Attributes
    ----------
    build : callable
        ``(game, level, reel_set, names, win)``: its arguments for a reel set,
        one event per pay row appended to ``names`` (``win``: windows that
        replace the reel set's, or None).
    none : callable
        ``(game)``: arguments of the same types that pay nothing.
    events_at : int
        Place of the pay rows' event indices in the arguments.
    """

    build: Callable
    none: Callable
    events_at: int


#: each rule's evaluation, in the order of the round's (ways, count, cluster) arguments
PAY_EVALUATIONS: dict = {
    "ways": PayEvaluation(ways_args, no_ways_args, 2),
    "anywhere": PayEvaluation(anywhere_args, no_anywhere_args, 3),
    "cluster": PayEvaluation(cluster_args, no_cluster_args, 4),
}


def pays_args(
    game: Game, level: int, reel_set: str, sampler: str, names: list, win: np.ndarray | None = None
) -> tuple:
    """The round's (ways, count, cluster) arguments of ``reel_set``: the
    evaluation of the rule named ``sampler`` built (its events appended to
    ``names``), every other one paying nothing (all of them for line pays)."""
    return tuple(
        e.build(game, level, reel_set, names, win) if name == sampler else e.none(game)
        for name, e in PAY_EVALUATIONS.items()
    )
