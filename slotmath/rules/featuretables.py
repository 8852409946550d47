"""PAR tables of each feature of a round: what a test lab reads per feature.

Built from the round's figures (:attr:`slotmath.features.round.RoundLaw.figures`)
and the feature declarations; every table's title starts with the feature's
name and every column carries its unit (``[x total bet]``, ``[1 in N rounds]``,
``[% of RTP]``, ``[probability]``).  ``slotmath par`` prints them and the PAR
sheet shows them in its features section.

* free games: the rules in words; trigger odds and games awarded and played
  by trigger count; retrigger odds; the distribution of games played;
* hold-and-spin: the rules in words; the coin prize tables; the jackpots
  (hits per round, 1 in N rounds, share of RTP); the coins at the trigger and
  at the end; the full-screen odds;
* wheel and selection: every segment's or choice's odds and value.
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from slotmath.model import Game

ONE_IN = "1 in N rounds"
#: Column of a feature's or jackpot's part of the RTP (a fraction of it; shown in %).
SHARE = "share of RTP"


def _one_in(p: float) -> float:
    return 1 / p if p else float("inf")


def _share(value: float, rtp: float) -> float:
    return value / rtp if rtp else 0.0


def feature_tables(game: Game, figures: dict, rtp: float) -> dict:
    """{title: DataFrame} of every feature in ``figures`` (the round's
    feature figures), ``rtp`` the round's RTP [x total bet]."""
    out: dict = {}
    if figures.get("free_games", {}).get("by_count"):
        out.update(free_games_tables(game, figures["free_games"], rtp))
    if "hold_and_spin" in figures:
        out.update(hold_and_spin_tables(game, figures["hold_and_spin"], rtp))
    if "wheel" in figures:
        out.update(wheel_tables(figures["wheel"], rtp))
    if "selection" in figures:
        sel = figures["selection"]
        rows = [
            {
                "choice": name,
                "probability given the selection": v["probability"],
                "mean value [x total bet]": v["mean_value"],
            }
            for name, v in sel["choices"].items()
        ]
        out[f"Selection choices (policy {sel['policy']})"] = pd.DataFrame(rows)
    return out


#: Feature names as table titles start.
TITLES = {
    "free_games": "Free games",
    "hold_and_spin": "Hold-and-spin",
    "lockit": "Lock-it",
    "wheel": "Wheel",
    "selection": "Selection",
}


def award_bands(wins, probs, trigger: float) -> pd.DataFrame:
    """The law of a feature's award given that it starts, by win band
    (:data:`slotmath.engine.distribution.WIN_EDGES`) [x total bet]:
    probability given the trigger, 1 in N features, 1 in N rounds
    (``trigger`` the feature's probability per round)."""
    import numpy as np

    from slotmath.engine.distribution import WIN_EDGES

    edges = [0.0, *WIN_EDGES, float("inf")]
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = (wins >= lo - 1e-12) & (wins < hi - 1e-12)
        q = float(np.sum(probs[inside]))
        if q <= 0:
            continue
        band = f"{lo:g} to under {hi:g}" if np.isfinite(hi) else f"{lo:g} or more"
        rows.append(
            {
                "award [x total bet]": band,
                "probability given the trigger": q,
                "odds [1 in N features]": 1 / q,
                f"odds [{ONE_IN}]": _one_in(q * trigger),
            }
        )
    return pd.DataFrame(rows)


def free_games_rules(game: Game) -> list:
    """The declared free games in words, one sentence per rule."""
    from slotmath.features.options import load_features

    spec = load_features(game).free_games
    if spec is None:
        return []
    out = []
    where = "anywhere on the base window"
    if spec.trigger_reels is not None:
        reels = [str(r + 1) for r in spec.trigger_reels]
        listed = reels[0] if len(reels) == 1 else ", ".join(reels[:-1]) + " and " + reels[-1]
        where = f"on the base window with one on each of reels {listed}"
    for count, (prize, games) in sorted(spec.awards.items()):
        pays = f" and pay {float(prize):g} x total bet" if prize else ""
        at = f" at x{float(spec.multiplier_of(count)):g}" if spec.multipliers else ""
        out.append(f"{count} or more {spec.symbol} {where} award {games} free games{at}{pays}.")
    out.append(
        f"Free games play on reel set {spec.reels}"
        + (
            f"; every win is multiplied by {float(spec.multiplier):g}"
            if spec.multiplier != 1 and not spec.multipliers
            else ""
        )
        + "."
    )
    if spec.retrigger:
        out.append(
            "Free games retrigger: the same counts add games"
            + (" (own retrigger awards)" if spec.retrigger_awards else "")
            + (" at the running feature's multiplier" if spec.multipliers else "")
            + (" under the same reel condition" if spec.trigger_reels is not None else "")
            + (f", at most {spec.max_games} games in all." if spec.max_games else ", without a limit.")
        )
    else:
        out.append("Free games do not retrigger.")
    if spec.sticky:
        out.append(f"{spec.sticky} stays in place for the rest of the free games.")
    return out


def free_games_tables(game: Game, fg: dict, rtp: float) -> dict:
    """Free games: rules, by trigger count, retrigger odds, games played."""
    rows = []
    for c, v in fg["by_count"].items():
        p = v["probability"]
        rows.append(
            {
                "trigger count": int(c),
                "probability per round": p,
                f"odds [{ONE_IN}]": _one_in(p),
                "games awarded": v["games"],
                **({"multiplier": v["multiplier"]} if "multiplier" in v else {}),
                "mean games played": v["mean_games_played"],
                "mean award [x total bet]": v["mean_award"],
                SHARE: _share(p * v["mean_award"], rtp),
            }
        )
    out = {
        "Free games: rules": pd.DataFrame({"rule": free_games_rules(game)}),
        "Free games by trigger count": pd.DataFrame(rows),
    }
    odds = [
        {
            "event": "free games start (per round)",
            "probability": fg["trigger_probability"],
            "odds [1 in N]": _one_in(fg["trigger_probability"]),
            "per": "round",
        }
    ]
    if "retrigger_probability" in fg:  # (with a sticky wild the retrigger odds change from game to game)
        r = fg["retrigger_probability"]
        odds.append(
            {
                "event": "a free game retriggers",
                "probability": r,
                "odds [1 in N]": _one_in(r),
                "per": "free game",
            }
        )
    out["Free games: trigger and retrigger odds"] = pd.DataFrame(odds)
    played, seen = [], set()
    for v in fg["by_count"].values():
        if v["games"] in seen:  # one law per number of games awarded
            continue
        seen.add(v["games"])
        played += [
            {
                "games awarded": v["games"],
                "games played": g["games"],
                "probability given the trigger": g["probability"],
            }
            for g in v.get("games_played", [])
        ]
    if played:
        out["Free games: distribution of games played"] = pd.DataFrame(played)
    return out


def hold_and_spin_rules(spec) -> list:
    """The declared hold-and-spin in words."""
    out = [
        f"{spec.trigger} or more {spec.symbol} anywhere on the base window start the feature; "
        f"the {spec.symbol} hold and every other cell respins.",
        f"{spec.respins} respins; "
        + ("a new coin resets them." if spec.rule == "reset" else "they count down whatever lands."),
        ("Every empty cell spins alone." if spec.respin == "cells" else "Whole reels respin.")
        + (f" Respins use reel set {spec.reels}." if spec.reels else ""),
        "Each coin shows a prize drawn from its value table; the feature pays the sum of the held prizes.",
    ]
    if spec.full_screen:
        out.append(f"A full screen adds {spec.full_screen_label} ({float(spec.full_screen):g} x total bet).")
    return out


def _prize_rows(table, which: str) -> list:
    total = sum(x.weight for x in table)
    return [
        {
            "table": which,
            "prize": x.label,
            "value [x total bet]": float(x.value),
            "weight": x.weight,
            "probability per coin": float(Fraction(x.weight, total)),
        }
        for x in table
    ]


def hold_and_spin_tables(game: Game, hs: dict, rtp: float) -> dict:
    """Hold-and-spin: rules, coin prizes, jackpots, full screen."""
    from slotmath.features.holdspin import load_hold_and_spin

    spec = load_hold_and_spin(game)
    out = {"Hold-and-spin: rules": pd.DataFrame({"rule": hold_and_spin_rules(spec)})}
    rows = _prize_rows(spec.values, "every coin")
    if spec.start_values != spec.values:
        rows = _prize_rows(spec.start_values, "coins of the trigger") + rows
    out["Hold-and-spin: coin prizes"] = pd.DataFrame(rows)
    values = {x.label: float(x.value) for x in spec.values + spec.start_values}
    if spec.full_screen:
        values[spec.full_screen_label] = float(spec.full_screen)
    jackpots = []
    for label, hits in hs.get("jackpot_hits_per_round", {}).items():
        value = values.get(label, 0.0)
        jackpots.append(
            {
                "jackpot": label,
                "value [x total bet]": value,
                "hits per round": hits,
                f"odds [{ONE_IN}]": _one_in(hits),
                SHARE: _share(hits * value, rtp),
            }
        )
    if jackpots:
        out["Hold-and-spin: jackpots"] = pd.DataFrame(jackpots)
    p, full = hs["trigger_probability"], hs["full_screen_probability"]
    out["Hold-and-spin: trigger and full-screen odds"] = pd.DataFrame(
        [
            {"event": "the feature starts", "probability per round": p, f"odds [{ONE_IN}]": _one_in(p)},
            {"event": "a full screen", "probability per round": full, f"odds [{ONE_IN}]": _one_in(full)},
        ]
    )
    out["Hold-and-spin: award"] = pd.DataFrame(
        [
            {
                "mean award [x total bet]": hs["mean_award"],
                "mean coins at the trigger": hs["coins_at_trigger_mean"],
                "mean coins at the end": hs["coins_at_end_mean"],
                "full screen given a trigger [probability]": full / p if p else 0.0,
                SHARE: _share(hs["rtp"], rtp),
            }
        ]
    )
    return out


def wheel_tables(wheel: dict, rtp: float) -> dict:
    """Wheel: every segment's value and odds per spin."""
    rows = [
        {
            "segment": o["outcome"],
            "value [x total bet]": o["value"],
            "probability per spin": o["probability"],
            "odds [1 in N spins of the wheel]": _one_in(o["probability"]),
        }
        for o in wheel["outcomes"]
    ]
    return {"Wheel (one spin)": pd.DataFrame(rows)}
