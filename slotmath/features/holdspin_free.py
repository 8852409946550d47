"""The hold-and-spin triggered in free games (``hold_and_spin.in_free_games: true``).

Each free game's window may trigger the declared hold-and-spin as the base
window does: ``trigger`` or more coins on the free games' reel set (after
their own reels, the same respins, prizes and full-screen prize).  Its award
is part of that free game's win, so the free games' multiplier (the running
feature's) multiplies it, and it is paid inside the ``free_games``
component.

Exact: the feature on the free reel set is the base one with its trigger read
off that set (:func:`free_hold_and_spin`); the free spin's law is keyed by
its trigger beside the retrigger count in the pay rule's one forward pass
(:func:`slotmath.features.freespin.keyed_free_spins` with a lead trigger).
The mean award of a free game gains ``E[H] = sum_key P(key) mean(key)``
over the free reel set, and by Wald's identity (whether game ``i`` is played
depends only on the games before it) the free games' mean award from ``n``
games gains ``multiplier x E[games played] x E[H]``, exact; the award law
puts each key's hold-and-spin award law into the per-game (win, extra games)
table (float64).
"""

from __future__ import annotations

import dataclasses

from slotmath.errors import ensure
from slotmath.features.cost import counted
from slotmath.features.holdspin import (
    COINS_TABLE,
    HoldAndSpinSpec,
    chain_state,
    check_jackpots,
    coins_table,
    hold_and_spin_feature,
    load_hold_and_spin,
)
from slotmath.features.infree import in_free_games_event, per_round_figures
from slotmath.features.kinds import Buy, FeatureKind
from slotmath.features.tunables import inline_table
from slotmath.io.gamefile import GameFileError
from slotmath.model import Game, Mode

__all__ = [
    "plays_in_free_games",
    "free_hold_and_spin",
    "check_in_free_games",
    "in_free_games_event",
]


def plays_in_free_games(game: Game) -> HoldAndSpinSpec | None:
    """The declared hold-and-spin when it also triggers in free games, else None."""
    if not isinstance(game.options, dict) or "hold_and_spin" not in game.options:
        return None
    spec = load_hold_and_spin(game)
    return spec if spec is not None and spec.in_free_games else None


def free_hold_and_spin(game: Game, level: int, free_reels: str):
    """The hold-and-spin of a free game as a
    :class:`~slotmath.features.round.Feature` keyed on the free reel set
    ``free_reels`` (None when it is not played in free games)."""
    spec = plays_in_free_games(game)
    if spec is None:
        return None
    return hold_and_spin_feature(game, level, dataclasses.replace(spec, base_reels=free_reels))


def check_in_free_games(game: Game) -> None:
    """Refuse ``in_free_games`` where it is not computed, in one line naming
    the field (:func:`slotmath.features.infree.check_in_free_games`), or
    when no free window shows ``trigger`` coins."""
    from slotmath.features.holdspin import trigger_possible
    from slotmath.features.infree import check_in_free_games as refuse

    spec = plays_in_free_games(game)
    if spec is None:
        return

    def reach(free_reels: str) -> str | None:
        if trigger_possible(game, dataclasses.replace(spec, base_reels=free_reels)):
            return None
        return (
            f"no window of the free games' reel set {free_reels!r} shows {spec.trigger} or more {spec.symbol}"
        )

    refuse(game, "options.hold_and_spin.in_free_games", reach)


# ---------------------------------------------------------------------------
# PAR tables (the feature object's ``tables``)
# ---------------------------------------------------------------------------
def hold_and_spin_rules(spec) -> list:
    """The declared hold-and-spin in words."""
    out = [
        f"{spec.trigger} or more {spec.symbol} anywhere on the base window start the feature; "
        f"the {spec.symbol} hold and every other cell respins.",
        f"{counted(spec.respins, 'respin')}; "
        + ("a new coin resets them." if spec.rule == "reset" else "they count down whatever lands."),
        ("Every empty cell spins alone." if spec.respin == "cells" else "Whole reels respin.")
        + (f" Respins use reel set {spec.reels}." if spec.reels else ""),
        "Each coin shows a prize drawn from its value table; the feature pays the sum of the held prizes.",
    ]
    if spec.full_screen:
        out.append(f"A full screen adds {spec.full_screen_label} ({float(spec.full_screen):g} x total bet).")
    elif spec.full_screen_pays:  # a progressive jackpot: no coins of the award
        out.append(f"A full screen wins the progressive {spec.full_screen_label} (paid by its meter).")
    return out


def hold_and_spin_tables(game: Game, hs: dict, rtp: float, inside: dict | None = None) -> dict:
    """Hold-and-spin: rules, coin prizes, jackpots, full screen; with
    ``inside`` (the figures per round of the features free games start,
    :func:`slotmath.features.infree.per_round_figures`) their odds
    and jackpots beside the base game's, and every jackpot's total."""
    import pandas as pd

    from slotmath.features.holdspin import load_hold_and_spin
    from slotmath.features.sheetrows import SHARE, jackpot_rows, prize_rows, share, trigger_row

    spec = load_hold_and_spin(game)
    rules = hold_and_spin_rules(spec)
    if spec.in_free_games:
        rules += [
            "It also starts on a free game's window (on the free games' reel set); such a feature's "
            "award is part of that free game's win, times the free games' multiplier, and is paid in "
            "the free games' component.  The tables give the features the base game starts and those "
            "free games start apart (hits and odds per round), and every jackpot's hits in all.",
        ]
    out = {"Hold-and-spin: rules": pd.DataFrame({"rule": rules})}
    rows = prize_rows(spec.values, {"table": "every coin"}, "coin")
    if spec.start_values != spec.values:
        rows = prize_rows(spec.start_values, {"table": "coins of the trigger"}, "coin") + rows
    out["Hold-and-spin: coin prizes"] = pd.DataFrame(rows)
    values = {x.label: float(x.value) for x in spec.values + spec.start_values}
    if spec.full_screen_pays:
        values[spec.full_screen_label] = float(spec.full_screen)
    base_hits = hs.get("jackpot_hits_per_round", {})
    jackpots = jackpot_rows(base_hits, values, rtp)
    if jackpots:
        title = "jackpots" if inside is None else "jackpots of the features the base game starts"
        out[f"Hold-and-spin: {title}"] = pd.DataFrame(jackpots)
    p, full = hs["trigger_probability"], hs["full_screen_probability"]
    out["Hold-and-spin: trigger and full-screen odds"] = pd.DataFrame(
        [trigger_row("the feature starts", p), trigger_row("a full screen", full)]
    )
    out["Hold-and-spin: award"] = pd.DataFrame(
        [
            {
                "mean award [x total bet]": hs["mean_award"],
                "mean coins at the trigger": hs["coins_at_trigger_mean"],
                "mean coins at the end": hs["coins_at_end_mean"],
                "full screen given a trigger [probability]": full / p if p else 0.0,
                SHARE: share(hs["rtp"], rtp),
            }
        ]
    )
    if inside is not None:
        out.update(free_game_starts_tables(inside, base_hits, values, rtp))
    return out


def free_game_starts_tables(inside: dict, base_hits: dict, values: dict, rtp: float) -> dict:
    """The hold-and-spin started in free games (``inside``, its figures per
    round): its odds and award, its jackpots (paid times the free games'
    mean multiplier) and every jackpot's hits in all (``base_hits`` the base
    game's features', ``values`` [x total bet] by label)."""
    import pandas as pd

    from slotmath.features.sheetrows import PER_HIT, SHARE, jackpot_rows, one_in, rate_row, share

    mult = inside["mean_multiplier"]
    paid = {k: v * mult for k, v in values.items()}
    free_hits = inside["jackpot_hits_per_round"]
    total = {
        k: {"hits": base_hits.get(k, 0.0) + free_hits.get(k, 0.0), "paid": 0.0}
        for k in {**base_hits, **free_hits}
    }
    for hits, worth in ((base_hits, values), (free_hits, paid)):
        for k, n in hits.items():
            total[k]["paid"] += n * worth.get(k, 0.0)
    out = {
        "Hold-and-spin in free games: odds": pd.DataFrame(
            [
                rate_row("the feature starts in a free game", inside["starts_per_round"]),
                rate_row("a full screen in a free game", inside["full_screens_per_round"]),
            ]
        ),
        "Hold-and-spin in free games: award": pd.DataFrame(
            [
                {
                    "free games played per round": inside["free_games_per_round"],
                    "starts per free game [probability]": inside["trigger_probability_per_free_game"],
                    "mean award before the multiplier [x total bet]": inside["mean_award"],
                    "free games' mean multiplier": mult,
                    SHARE: share(inside["rtp"], rtp),
                }
            ]
        ),
    }
    if not total:
        return out
    return out | {
        "Hold-and-spin: jackpots of the features free games start": pd.DataFrame(
            jackpot_rows(free_hits, paid, rtp)
        ).rename(columns={"value [x total bet]": "paid, with the free games' mean multiplier [x total bet]"}),
        "Hold-and-spin: jackpots of every feature": pd.DataFrame(
            [
                {
                    "jackpot": k,
                    "hits per round": v["hits"],
                    PER_HIT: one_in(v["hits"]),
                    SHARE: share(v["paid"], rtp),
                }
                for k, v in total.items()
            ]
        ),
    }


# ---------------------------------------------------------------------------
# the feature object (slotmath.features.registry)
# ---------------------------------------------------------------------------
def _check_hold_and_spin(game: Game) -> None:
    from slotmath.features.options import plays_prizes

    spec = load_hold_and_spin(game)  # parsing checks the chain's cost (holdspin_chain.check_cost)
    ensure(spec is not None, "holdspin.py: expected spec is not None")
    if not plays_prizes(game):  # else the prizes' check counts every feature's jackpots
        check_jackpots(game, spec)
    check_in_free_games(game)


def _hold_and_spin_notes(game: Game, law) -> list:
    notes = []
    if "hold_and_spin" in law.figures:
        notes.append(
            "Hold-and-spin: the respin chain of the held coins on its coarsest exact state, its award "
            "the held prizes (convolutions of the value tables given the coins at the trigger and at "
            "the end) plus the full-screen prize; means exact on the total count, on per-reel counts "
            "when the chain is small, or on masks of at most 6 cells, else float64 (relative error "
            "below about 1e-12)."
        )
        notes.append(chain_state(game, load_hold_and_spin(game)).describe())  # the chain's state and size
    if "hold_and_spin_per_free_game" in law.figures.get("free_games", {}):
        notes.append(
            "Hold-and-spin in free games: a free game's window triggers it on the free reel set; its "
            "award is part of that game's win (times the free games' multiplier, in the free_games "
            "component); mean exact by Wald's identity (E[games played] x E[award per free game]), "
            "award law through the per-game (win, extra games) table (float64)."
        )
    return notes


def _hold_tables(game: Game, figures: dict, rtp: float, level: int) -> dict:
    odds = figures.get("hold_and_spin")
    if not odds:
        return {}
    inside = figures.get("free_games", {}).get("hold_and_spin_in_free_games")
    return {**hold_and_spin_tables(game, odds, rtp, inside), COINS_TABLE: coins_table(odds)}


#: the options a bought hold-and-spin round plays (no free games: a
#: hold-and-spin that also plays in free games is bought alone)
BOUGHT_WITH = ("hold_and_spin", "jackpots", "round_cap")


def _bought_options(game: Game) -> dict:
    options = {k: v for k, v in game.options.items() if k in BOUGHT_WITH}
    held = options.get("hold_and_spin")
    if isinstance(held, dict) and held.get("in_free_games") is True:
        options["hold_and_spin"] = {**held, "in_free_games": False}
    return options


def _bought_spec(game: Game, coins: int) -> HoldAndSpinSpec:
    spec = load_hold_and_spin(game)
    if spec is None:
        raise GameFileError(game.source, "buy.feature", "buys hold_and_spin, which the mode does not declare")
    return spec


def _bought_round(game: Game, level: int, spec: HoldAndSpinSpec, coins: int) -> tuple:
    from slotmath.features.holdspin_buy import bought_feature, bought_notes

    feature = bought_feature(game, level, spec, coins)
    return feature, bought_notes(game, spec, coins), game.cycle(spec.reels or spec.base_reels), 0


def _check_buy(game: Game, mode: Mode, coins: int) -> None:
    """Refuse ``coins`` that do not fit the window, reel heights and a
    progressive jackpot beside the bought feature (one line naming
    ``modes.NAME.buy...``)."""
    cells = game.rows * game.reels
    at = f"modes.{mode.name}.buy"
    if game.heights is not None:
        raise GameFileError(
            game.source, f"{at}.feature", "a hold-and-spin is not bought on variable reel heights"
        )
    if not 0 <= coins <= cells:
        raise GameFileError(
            game.source,
            f"{at}.coins",
            f"must be from 0 to the {cells} cells of the {game.reels}x{game.rows} window, got {coins}",
        )
    jackpots = {**(game.options or {}), **mode.options}.get("jackpots") or {}
    for jackpot, value in jackpots.items() if isinstance(jackpots, dict) else ():
        if isinstance(value, dict):
            raise GameFileError(
                game.source,
                f"{at}.feature",
                f"a bought hold-and-spin with a progressive jackpot (options.jackpots.{jackpot}) "
                "is not computed (the jackpot's return is not a coin win of the round)",
            )


def _hold_tunables(game: Game) -> tuple:
    """The coin value tables (``values``, ``start_values``): each coin's prize
    is one draw, so the feature's RTP is linear in their draw probabilities;
    played inside free games they move those too."""
    moves = ("hold_and_spin", "free_games") if load_hold_and_spin(game).in_free_games else ("hold_and_spin",)
    found = (inline_table(game.options, ("hold_and_spin", key), moves) for key in ("values", "start_values"))
    return tuple(t for t in found if t is not None)


HOLD_AND_SPIN = FeatureKind(
    key="hold_and_spin",
    title="hold-and-spin",
    parse=load_hold_and_spin,
    component="hold_and_spin",
    starts=lambda game: load_hold_and_spin(game) is not None,
    exact=lambda game, level: hold_and_spin_feature(game, level),
    check=_check_hold_and_spin,
    reel_sets=lambda game: load_hold_and_spin(game).reel_sets(),
    in_free_games=lambda game: load_hold_and_spin(game).in_free_games,
    free_feature=free_hold_and_spin,
    free_figures=per_round_figures,
    free_sets=lambda game: {s} if (s := load_hold_and_spin(game).reels) else set(),
    notes=_hold_and_spin_notes,
    tables=_hold_tables,
    tunables=_hold_tunables,
    example="data/games/hold_and_spin/game.yaml",
    schema={
        "type": "object",
        "description": "Hold-and-spin with a value per coin (rules: lines): docs/features.md.",
        "additionalProperties": False,
        "properties": {
            "symbol": {},
            "trigger": {},
            "respins": {},
            "rule": {},
            "respin": {},
            "reels": {},
            "probabilities": {},
            "values": {},
            "start_values": {},
            "full_screen": {},
            "in_free_games": {},
        },
    },
    buy=Buy(
        start="coins",
        options=_bought_options,
        spec=_bought_spec,
        feature=_bought_round,
        sampler="slotmath.montecarlo.holdspinsim:bought_sampler",
        check=_check_buy,
    ),
    slot="slotmath.montecarlo.holdspinsim:HOLD_AND_SPIN_SLOT",
)
