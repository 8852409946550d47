"""Features triggered inside free games (``options.<key>.in_free_games: true``).

A feature whose :class:`~slotmath.features.kinds.FeatureKind` gives
``free_feature`` can start on a free game's window as it starts on the base
window: its own trigger rule read on the free games' reel set.  Its award is
part of that free game's win, so the free games' multiplier (the running
feature's, by trigger count where declared) multiplies it, and it is paid in
the ``free_games`` component.

The free games (:mod:`slotmath.features.freeround`) ask :func:`inside_feature`
for the one feature their windows play and key the free spin by its trigger
beside the retrigger count; the mean award of a free game gains
``E[H] = sum_key P(key) mean(key)`` and, by Wald's identity, the feature from
``n`` games gains ``multiplier x E[games played] x E[H]`` (exact).  The
hold-and-spin (:mod:`slotmath.features.holdspin_free`), the lock-it
(:mod:`slotmath.features.lockit_round`), the wheel and the selection
(:mod:`slotmath.features.prizes`) are its instances.

At most one feature plays in free games: two would need the joint law of
their triggers on a free window (not computed, refused in one line).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from slotmath.model import Game

__all__ = [
    "in_free_games_event",
    "register_kinds",
    "inside_kind",
    "inside_feature",
    "check_in_free_games",
    "per_round_figures",
    "in_free_tables",
]

#: The registered feature kinds, set by :mod:`slotmath.features.registry`
#: when it is imported (:func:`register_kinds`): the registry imports the
#: free games, so the free games cannot import it (not even in a function:
#: the layers' contract forbids an import cycle).
_KINDS: list = []


def register_kinds(kinds) -> None:
    """Record the registry's feature kinds (:data:`~slotmath.features.registry.KINDS`)."""
    _KINDS[:] = list(kinds)


def in_free_games_event(name: str) -> str:
    """The sampler's event ``name`` of a feature, counted for the features
    free games start."""
    return f"{name} in free games"


def inside_kind(game: Game):
    """The :class:`~slotmath.features.kinds.FeatureKind` the free games'
    windows play (declared, with ``in_free_games`` on its parsed spec), or None."""
    from slotmath.errors import ensure

    options = game.options if isinstance(game.options, dict) else {}
    if not any(isinstance(v, dict) and "in_free_games" in v for v in options.values()):
        return None  # nothing declares it (the registry need not be imported)
    ensure(bool(_KINDS), "infree.py: the feature registry (slotmath.features.registry) is not imported")
    for kind in _KINDS:
        if kind.free_feature is not None and kind.declared(game) and kind.in_free_games(game):
            return kind
    return None


def inside_feature(game: Game, level: int, free_reels: str) -> tuple:
    """``(kind, feature)``: the feature a free game's window plays, as a
    :class:`~slotmath.features.round.Feature` keyed on the free reel set
    ``free_reels``, and its kind; ``(None, None)`` when none does."""
    kind = inside_kind(game)
    if kind is None:
        return None, None
    return kind, kind.free_feature(game, level, free_reels)


def check_in_free_games(game: Game, field: str, reach: Callable[[str], str | None]) -> None:
    """Refuse ``field`` (``options.<key>.in_free_games``) where it is not
    computed, in one line naming it: without ``options.free_games``, with a
    sticky or expanding wild, a reel set per trigger count or a count on a
    payline in the free games, tumbles, variable reel heights, a progressive
    jackpot, beside another feature played in free games, or when
    ``reach(free reel set)`` names a problem (no free window can start it)."""
    from slotmath.features.declaration import Reader
    from slotmath.features.options import load_features

    rd = Reader(game)
    free = load_features(game).free_games
    if free is None:
        rd.fail(field, "needs options.free_games (the free games it triggers in)")
    if free.sticky is not None or free.nudge is not None:
        rd.fail(field, "is not computed with a sticky or expanding wild in the free games")
    if free.reels_by_count is not None:
        rd.fail(field, "is not computed with a reel set per trigger count (awards.<count>.reels)")
    if free.trigger_lines is not None:
        rd.fail(field, "is not computed with a count on a payline (free_games.trigger.payline)")
    if "tumble" in game.options or game.heights is not None:
        rd.fail(field, "is not computed with tumbles or variable reel heights")
    jackpots = game.options.get("jackpots")
    if isinstance(jackpots, dict) and any(isinstance(v, dict) for v in jackpots.values()):
        rd.fail(field, "is not computed with a progressive jackpot (its return counts base-game hits)")
    others = [
        f"options.{k}.in_free_games"
        for k, v in game.options.items()
        if isinstance(v, dict) and v.get("in_free_games") is True and f"options.{k}.in_free_games" != field
    ]
    if others:
        rd.fail(field, f"is not computed beside {others[0]} (one feature plays in free games)")
    problem = reach(free.reels)
    if problem is not None:
        rd.fail(field, problem)


def per_round_figures(per_game: dict, games: Fraction, weighted: Fraction) -> dict:
    """Figures per round of a feature free games start (a hold-and-spin, a
    lock-it: a kind's ``free_figures``), from ``per_game`` (its odds per free
    game, of the free reel set's keys: ``trigger_probability``,
    ``full_screen_probability``, ``mean_award``, ``rtp``,
    ``jackpot_hits_per_round``, ``event_rates``), ``games`` = E[free games
    played per round] and ``weighted`` = E[free games played x their
    multiplier per round] (exact).  Hits, starts and events are expected
    counts per round (Wald's identity); ``rtp`` [x total bet] is the awards'
    part of the ``free_games`` component."""
    g = float(games)
    return {
        "trigger_probability_per_free_game": per_game["trigger_probability"],
        "free_games_per_round": g,
        "starts_per_round": g * per_game["trigger_probability"],
        "full_screens_per_round": g * per_game["full_screen_probability"],
        "mean_award": per_game["mean_award"],
        "mean_multiplier": float(weighted / games) if games else 1.0,
        "rtp": float(weighted) * per_game["rtp"],
        "jackpot_hits_per_round": {k: g * v for k, v in per_game["jackpot_hits_per_round"].items()},
        "event_rates": {in_free_games_event(k): g * v for k, v in per_game["event_rates"].items()},
    }


def in_free_tables(game: Game, title: str, inside: dict, rtp: float) -> dict:
    """``{title} in free games``: the starts of a feature in free games
    (``inside``, its figures per round: odds per round), its award and share
    of the RTP ``rtp`` [x total bet]; its jackpots there (paid times the free
    games' mean multiplier)."""
    import pandas as pd

    from slotmath.features.sheetrows import SHARE, jackpot_rows, jackpot_values, rate_row, share

    mult = inside["mean_multiplier"]
    out = {
        f"{title} in free games: odds and award": pd.DataFrame(
            [
                rate_row(f"the {title.lower()} starts in a free game", inside["starts_per_round"])
                | {
                    "free games played per round": inside["free_games_per_round"],
                    "starts per free game [probability]": inside["trigger_probability_per_free_game"],
                    "mean award before the multiplier [x total bet]": inside["mean_award"],
                    "free games' mean multiplier": mult,
                    "RTP [x total bet]": inside["rtp"],
                    SHARE: share(inside["rtp"], rtp),
                }
            ]
        )
    }
    hits = inside["jackpot_hits_per_round"]
    if hits:
        paid = {k: v * mult for k, v in jackpot_values(game).items()}
        out[f"{title} in free games: jackpots"] = pd.DataFrame(jackpot_rows(hits, paid, rtp)).rename(
            columns={"value [x total bet]": "paid, with the free games' mean multiplier [x total bet]"}
        )
    return out
