"""Piggy Bankin' Superlock: 5x3, 20 lines, lock-it feature, free games, wheel.

The numbered rules are in ``docs/games/piggy_bankin_superlock.md``; this
module implements them from the features the game file declares
(:mod:`slotmath.features.options`): lock-it chains (:mod:`slotmath.features.lockit`) with
shape packing (:mod:`slotmath.features.shapes`), free games with retriggers
(:mod:`slotmath.features.freegames`) and the Superlock wheel (:mod:`slotmath.features.wheel`).

Units
-----
Line pays are linear in the bet multiplier, so a line win is a whole number
of *line-bet units* ``u`` = 1/20 of the total bet, the same at every bet.
Feature awards are whole multiples of the total bet (= 20 u).  Round
distributions are built on the ``u`` grid.

Structure of a round (rule numbers refer to the rules document)
---------------------------------------------------------------
::

    base spin -> line wins + (6+ PIGGY: lock-it from the base game)
              + (3+ BONUS: selection prize + chosen feature (lock-it or free games)).

Every quantity that depends on the screen depends on it through
``(line win, PIGGY mask, WHEEL flag, BONUS count)``; the exact RTP uses the
per-reel factorisation of ``(mask, flag, count)`` (integer stop counts) and
linearity; the distribution conditions on the line win by enumerating every
stop combination that starts a feature.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from slotmath.engine.cache import clear as clear_caches  # noqa: F401  (benchmarks)
from slotmath.engine.combinations import combination_table, line_rtp
from slotmath.engine.distribution import WinDistribution
from slotmath.errors import InternalError
from slotmath.features.options import load_features  # noqa: F401  (the notebook reads the features here)
from slotmath.model import Game
from slotmath.rules.piggy_bankin_superlock.cache import feature_sets, game_referenced_files, this_set  # noqa: F401
from slotmath.rules.piggy_bankin_superlock.check import (  # noqa: F401
    BASE,
    BASE_REELS,
    BATCH,
    FREE,
    LINES,
    PARTS,
    POLICIES,
    SELECT,
    check,
)
from slotmath.rules.piggy_bankin_superlock.rtp import (  # noqa: F401  (re-exported)
    ROUND_FIGURES,
    Breakdown,
    ScreenValues,
    breakdown,
    components,
    features_always_pay,
    fg_per_spin,
    free_games_value,
    line_game_rtp,
    lines_rtp,
    lockit_second_values,
    lockit_values,
    per_awarded_game,
    per_free_spin,
    round_moments,
    screen_values,
    tuning_figures,
)
from slotmath.rules.piggy_bankin_superlock.sampler import (  # noqa: F401  (re-exported)
    EVENTS,
    JACKPOT_ORDER,
    exact_events,
    pack,
    piggy_kernel,
    round_sampler,
    sample_lockit,
    screen_args,
    simulate,
    spin_wheel,
)
from slotmath.rules.piggy_bankin_superlock.screens import (  # noqa: F401  (re-exported)
    PrizeDistributions,
    RoundDistribution,
    Screens,
    add_shifted,
    candidate_table,
    feature_screen_sums,
    feature_screens,
    free_spin_table,
    group_finals,
    lines_given_bonus,
    lockit_shape_classes,
    prefix_tables,
    reel_set_screens,
    round_distribution,
    run_feature_walk,
    run_groups,
    screens,
    stop_classes,
    suffix_step,
    suffix_tables,
    upsample,
    walk_feature_screens,
    win_distribution,
    window_game,
)
from slotmath.rules.piggy_bankin_superlock.steps import (  # noqa: F401  (re-exported)
    LockItStep,
    award_table,
    coverage,
    coverage_frame,
    draw_index,
    draw_lockit,
    free_game_summary,
    free_games_frame,
    play_lockit,
    shapes_table,
    wheel_table,
)
from slotmath.rules.piggy_bankin_superlock.structure import (  # noqa: F401  (re-exported)
    Prizes,
    ReelData,
    ScreenTotals,
    Structure,
    features_of,
    final_law,
    final_sets,
    game_lockit_chain,
    joint_screen_counts,
    lockit_shape_counts,
    popcount15,
    prize_moments,
    prizes,
    reel_classes,
    reel_data,
    reel_set_screen_counts,
    screen_counts,
    screen_totals,
    structure,
    symbol_set,
    weighted_total,
)
from slotmath.rules.result import ParResult


# ===========================================================================
# PAR
# ===========================================================================
class PiggyParResult(ParResult):
    """:class:`~slotmath.rules.result.ParResult` with the figures of both selection choices."""

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["by_choice"] = self.features["by_choice"]
        d["components_by_choice"] = self.features["components_by_choice"]
        d["odds"] = self.features["odds"]
        d["policy"] = self.features["policy"]
        return d


def _one_in(p: float):
    return float(1 / p) if p > 0 else None


def analyse(game: Game, level: int, policy: str = "lockit", distribution: bool = True) -> PiggyParResult:
    """Exact PAR at bet ``level``: RTP by channel for both selection choices,
    the round distribution (under ``policy``) and the feature odds."""
    bet = game.bet(level)
    b = breakdown(game, level)
    table = combination_table(game, level, BASE_REELS)
    _, per_line = line_rtp(game, level, BASE_REELS)
    comps = b.components[policy]
    rtp = sum(float(v) for v in comps.values())
    if distribution:
        dist = win_distribution(game, level, policy)
        if abs(float(dist.mean) - rtp) > 1e-9:
            raise InternalError(f"round distribution mean {float(dist.mean)} != RTP {rtp}")
    else:
        dist = WinDistribution(np.zeros(1, dtype=np.int64), np.ones(1), 1, bet.total_bet)
    odds = {k: {"per_round": float(v), "one_in": _one_in(float(v))} for k, v in b.odds.items()}
    feats = {
        "policy": policy,
        "by_choice": {p: b.rtp[p] for p in POLICIES},
        "components_by_choice": {p: {k: float(v) for k, v in c.items()} for p, c in b.components.items()},
        "odds": odds,
        "feature_values": {k: float(v) for k, v in b.values.items()},
        "lockit_shapes": b.shapes.to_dict(orient="records"),
    }
    sel_source = features_of(game).selection.lockit_source
    cov = {
        name: coverage(game, src)
        for name, src in (("base game", BASE), ("free games", FREE), ("selection", sel_source))
    }
    feats["lockit_coverage"] = {k.replace(" ", "_"): v.tolist() for k, v in cov.items()}
    wheel_t = wheel_table(game)
    fg_t = free_games_frame(game, level)
    feats["wheel"] = wheel_t.to_dict(orient="records")
    feats["free_games"] = fg_t.to_dict(orient="records")
    shapes = shapes_table(b)
    values = pd.DataFrame([{"feature": k, "value [x total bet]": float(v)} for k, v in b.values.items()])
    odds_t = pd.DataFrame(
        [{"event": k, "per round": v["per_round"], "1 in": v["one_in"]} for k, v in odds.items()]
    )
    choice = pd.DataFrame([{"policy": p, "rtp": r} for p, r in b.rtp.items()])
    notes = [
        f"RTP and distribution under the selection policy '{policy}'; by_choice gives the "
        "RTP of each pure policy (always lock-it, always free games).",
        "Line and selection-prize parts are exact fractions; lock-it, wheel and free-game "
        "parts are float64 (relative error below 1e-12).",
        "'1 in' figures are expected occurrences per round (base spin and every feature it "
        "leads to); jackpots count shape awards and wheel segments.",
    ]
    return PiggyParResult(
        game=game,
        bet=bet,
        cycle=game.cycle(BASE_REELS),
        rtp=rtp,
        components=comps,
        distribution=dist,
        combinations=table,
        per_line_rtp=per_line,
        features=feats,
        tables={
            "RTP by choice": choice,
            "Feature values": values,
            "Odds": odds_t,
            "Lock-it shapes": shapes,
            **{
                f"Lock-it coverage: {k} [P(cell covered at the end)]": coverage_frame(v)
                for k, v in cov.items()
            },
            "Superlock wheel": wheel_t,
            "Free games": fg_t,
        },
        notes=notes,
    )


# ===========================================================================
# reel tuning hooks (slotmath.tuning.tune)
# ===========================================================================
# (tuning_figures: see "tuning figures" above, next to breakdown)
def tuning_constraints(game: Game) -> dict:
    """Both choices of the feature selection must pay the target RTP."""
    return {"rtp_figures": [f"feature:by_choice.{pol}" for pol in POLICIES]}
