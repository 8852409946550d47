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
* lock-it: the rules in words; each shape's prizes; trigger, full-screen and
  mark odds; the jackpots; the award's mean and share of RTP; the held cells
  at the trigger and at the end;
* wheel and selection: every segment's or choice's odds and value; the start
  odds, mean award and share of RTP; the jackpots.

:func:`feature_of` names the feature a table belongs to (the PAR sheet gives
each feature a section of its own).
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from slotmath.model import Game

ONE_IN = "1 in N rounds"
#: Column of a jackpot's mean spacing: 1 / expected hits per round, not 1 /
#: P(hit) (a feature can pay the same jackpot several times).
PER_HIT = "rounds per hit [1 / hits per round]"
#: Column of a feature's or jackpot's part of the RTP (a fraction of it; shown in %).
SHARE = "share of RTP"


def _one_in(p: float) -> float:
    return 1 / p if p else float("inf")


def _share(value: float, rtp: float) -> float:
    return value / rtp if rtp else 0.0


def feature_tables(game: Game, figures: dict, rtp: float, level: int | None = None) -> dict:
    """{title: DataFrame} of every feature in ``figures`` (the round's
    feature figures), ``rtp`` the round's RTP [x total bet], ``level`` the
    bet level (default the lowest; the lock-it's award tables are per level)."""
    out: dict = {}
    if figures.get("free_games", {}).get("by_count"):
        out.update(free_games_tables(game, figures["free_games"], rtp))
    if "hold_and_spin" in figures:
        inside = figures.get("free_games", {}).get("hold_and_spin_in_free_games")
        out.update(hold_and_spin_tables(game, figures["hold_and_spin"], rtp, inside))
    if "lockit" in figures:
        out.update(lockit_tables(game, figures["lockit"], rtp, game.bet(level).level))
    if "wheel" in figures:
        out.update(wheel_tables(game, figures["wheel"], rtp))
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
        out.update(start_and_jackpot_tables("Selection", sel, rtp, jackpot_values(game)))
    return out


def trigger_row(event: str, p: float) -> dict:
    """A row of a feature's odds table: ``event`` with its probability per
    round and 1 in N rounds."""
    return {"event": event, "probability per round": p, f"odds [{ONE_IN}]": _one_in(p)}


def jackpot_rows(hits: dict, values: dict, rtp: float) -> list:
    """Rows of a jackpots table: each jackpot's value [x total bet] (``values``
    by label), expected hits per round (``hits``), rounds per hit (1 / hits
    per round: a feature can pay a jackpot more than once, so it is not 1 /
    P(hit)) and share of the RTP."""
    return [
        {
            "jackpot": label,
            "value [x total bet]": values.get(label, 0.0),
            "hits per round": n,
            PER_HIT: _one_in(n),
            SHARE: _share(n * values.get(label, 0.0), rtp),
        }
        for label, n in hits.items()
    ]


def start_and_jackpot_tables(title: str, fig: dict, rtp: float, values: dict | None = None) -> dict:
    """A wheel's or selection's start odds and mean award, and its jackpots
    (``fig["jackpots"]``: {label: {per_round, ...}}; ``values`` by label)."""
    p = fig["trigger_probability"]
    out = {
        f"{title}: start odds and award": pd.DataFrame(
            [
                trigger_row(f"the {title.lower()} starts", p)
                | {"mean award [x total bet]": fig["mean_award"], SHARE: _share(p * fig["mean_award"], rtp)}
            ]
        )
    }
    hits = {k: v["per_round"] for k, v in fig.get("jackpots", {}).items()}
    if hits:
        out[f"{title}: jackpots"] = pd.DataFrame(jackpot_rows(hits, values or {}, rtp))
    return out


#: Feature names as table titles start.
TITLES = {
    "free_games": "Free games",
    "hold_and_spin": "Hold-and-spin",
    "lockit": "Lock-it",
    "wheel": "Wheel",
    "selection": "Selection",
}


def feature_of(title: str) -> str | None:
    """The feature a table belongs to, by the name its title starts with
    (:data:`TITLES`: ``Free games: rules`` -> ``free_games``); None for a
    table of no single feature."""
    for name, words in TITLES.items():
        for w in (words, name.replace("_", " ").capitalize()):  # the JSON figures' title too
            if title == w or title.startswith((f"{w}:", f"{w} ")):
                return name
    return None


def award_bands(wins, probs, trigger: float) -> pd.DataFrame:
    """The law of a feature's award given that it starts, by win band
    (:data:`slotmath.engine.distribution.WIN_EDGES`) [x total bet]:
    probability given the trigger, 1 in N features, 1 in N rounds
    (``trigger`` the feature's probability per round).  A band whose float
    probability is below :data:`slotmath.features.round.RESOLVED` is not
    resolved: it shows "< 1e-15" and its odds as "over" their bound."""
    import numpy as np

    from slotmath.engine.distribution import WIN_EDGES
    from slotmath.features.round import RESOLVED

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
            if q >= RESOLVED
            else {
                "award [x total bet]": band,
                "probability given the trigger": f"< {RESOLVED:g}",
                "odds [1 in N features]": f"over {1 / RESOLVED:.3g}",
                f"odds [{ONE_IN}]": f"over {_one_in(RESOLVED * trigger):.3g}",
            }
        )
    return pd.DataFrame(rows)


def free_games_rules(game: Game) -> list:
    """The declared free games in words, one sentence per rule."""
    from slotmath.engine.tumble_spec import tumble_spec
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
    if spec.trigger_lines is not None:
        where = "in a row from the leftmost reel on a payline"
    tumbles = tumble_spec(game)
    if tumbles is not None and tumbles.sequence:
        where = "on the board in any drop of a spin's tumbles"
    for count, (prize, games) in sorted(spec.awards.items()):
        pays = f" and pay {float(prize):g} x total bet" if prize else ""
        at = f" at x{float(spec.multiplier_of(count)):g}" if spec.multipliers else ""
        at += f" on reel set {spec.reels_of(count)}" if spec.reels_by_count else ""
        out.append(f"{count} or more {spec.symbol} {where} award {games} free games{at}{pays}.")
    out.append(
        (
            "Free games play on the reel set of the count that starts them"
            if spec.reels_by_count
            else f"Free games play on reel set {spec.reels}"
        )
        + (
            f"; every win is multiplied by {float(spec.multiplier):g}"
            if spec.multiplier != 1 and not spec.multipliers
            else ""
        )
        + "."
    )
    if tumbles is not None and tumbles.carried:
        out.append(
            "The tumble progression carries on from free game to free game (retriggered games "
            "included); it restarts with the next trigger."
        )
    if spec.retrigger:
        out.append(
            "Free games retrigger: the same counts add games"
            + (" (own retrigger awards)" if spec.retrigger_awards else "")
            + (" at the running feature's multiplier" if spec.multipliers else "")
            + (" on the running feature's reel set" if spec.reels_by_count else "")
            + (" under the same reel condition" if spec.trigger_reels is not None else "")
            + (" on a payline" if spec.trigger_lines is not None else "")
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
                **({"reel set": v["reels"]} if "reels" in v else {}),
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
    for name, per in fg.get("by_reel_set", {}).items():  # a reel set per trigger count
        if "retrigger_probability" not in per:
            continue
        r = per["retrigger_probability"]
        odds.append(
            {
                "event": f"a free game on {name} retriggers",
                "probability": r,
                "odds [1 in N]": _one_in(r),
                "per": "free game",
            }
        )
    out["Free games: trigger and retrigger odds"] = pd.DataFrame(odds)
    played, seen = [], set()
    for v in fg["by_count"].values():
        if (v["games"], v.get("reels")) in seen:  # one law per number of games awarded (and reel set)
            continue
        seen.add((v["games"], v.get("reels")))
        played += [
            {
                "games awarded": v["games"],
                **({"reel set": v["reels"]} if "reels" in v else {}),
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


def _prize_rows(table, head: dict, per: str) -> list:
    """Rows of a weighted prize table (entries with ``label``, ``value`` [x
    total bet] and ``weight``), each led by ``head``, with the probability
    of each prize per ``per`` (a coin, a shape)."""
    total = sum(x.weight for x in table)
    return [
        {
            **head,
            "prize": x.label,
            "value [x total bet]": float(x.value),
            "weight": x.weight,
            f"probability per {per}": float(Fraction(x.weight, total)),
        }
        for x in table
    ]


def hold_and_spin_tables(game: Game, hs: dict, rtp: float, inside: dict | None = None) -> dict:
    """Hold-and-spin: rules, coin prizes, jackpots, full screen; with
    ``inside`` (the figures per round of the features free games start,
    :func:`slotmath.features.holdspin_free.in_free_games_figures`) their odds
    and jackpots beside the base game's, and every jackpot's total."""
    from slotmath.features.holdspin import load_hold_and_spin

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
    rows = _prize_rows(spec.values, {"table": "every coin"}, "coin")
    if spec.start_values != spec.values:
        rows = _prize_rows(spec.start_values, {"table": "coins of the trigger"}, "coin") + rows
    out["Hold-and-spin: coin prizes"] = pd.DataFrame(rows)
    values = {x.label: float(x.value) for x in spec.values + spec.start_values}
    if spec.full_screen:
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
                SHARE: _share(hs["rtp"], rtp),
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
                trigger_row("the feature starts in a free game", inside["starts_per_round"]),
                trigger_row("a full screen in a free game", inside["full_screens_per_round"]),
            ]
        ),
        "Hold-and-spin in free games: award": pd.DataFrame(
            [
                {
                    "free games played per round": inside["free_games_per_round"],
                    "starts per free game [probability]": inside["trigger_probability_per_free_game"],
                    "mean award before the multiplier [x total bet]": inside["mean_award"],
                    "free games' mean multiplier": mult,
                    SHARE: _share(inside["rtp"], rtp),
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
                    PER_HIT: _one_in(v["hits"]),
                    SHARE: _share(v["paid"], rtp),
                }
                for k, v in total.items()
            ]
        ),
    }


def lockit_rules(game: Game) -> list:
    """The declared lock-it (its base-game source) in words."""
    from slotmath.features.lockit_round import load_line_lockit

    lk = load_line_lockit(game)
    if lk is None:
        return []
    spec, src = lk.spec, lk.source
    held = " or ".join(spec.symbols)
    out = [
        f"{spec.trigger} or more {held} anywhere on the base window start the feature; "
        "they hold and every other cell respins.",
        f"{src.spins} respins on reel set {src.reels}; "
        + ("a new held symbol resets them." if spec.rule == "reset" else "they count down whatever lands."),
    ]
    if spec.mark is not None:
        out.append(
            f"{spec.mark} is a held symbol carrying a mark"
            + (f"; once one is on screen the respins use reel set {src.after_mark}" if src.after_mark else "")
            + ("; a mark on screen at the end spins the wheel once" if lk.mark_paid else "")
            + "."
        )
    names = ", ".join(spec.shape_names)
    out.append(
        f"At the end the held cells are packed into the shapes {names} ({spec.packing}, {spec.order} order); "
        f"each shape draws a prize from award table {src.awards}; the feature pays the sum."
    )
    return out


def lockit_tables(game: Game, lk: dict, rtp: float, level: int) -> dict:
    """Lock-it: rules, each shape's prizes, trigger / full-screen / mark odds,
    jackpots and the award's mean and share of RTP."""
    from slotmath.features.lockit_round import load_line_lockit

    line = load_line_lockit(game)
    if line is None:
        return {}
    spec = line.spec
    rows = []
    for shape, awards in zip(spec.shape_names, spec.awards.table(line.source.awards, level), strict=True):
        rows += _prize_rows(awards, {"shape": shape}, "shape")
    p = lk["trigger_probability"]
    odds = [trigger_row("the feature starts", p), trigger_row("a full screen", lk["full_screen_probability"])]
    if spec.mark is not None:
        odds.append(trigger_row(f"a mark ({spec.mark}) on screen at the end", lk["mark_probability"]))
    out = {
        "Lock-it: rules": pd.DataFrame({"rule": lockit_rules(game)}),
        "Lock-it: shape prizes": pd.DataFrame(rows),
        "Lock-it: trigger, full-screen and mark odds": pd.DataFrame(odds),
    }
    values = {name: float(v) for name, v in line.jackpots.items()}
    jackpots = jackpot_rows(lk.get("jackpot_hits_per_round", {}), values, rtp)
    if jackpots:
        out["Lock-it: jackpots"] = pd.DataFrame(jackpots)
    out["Lock-it: held cells given a trigger"] = pd.DataFrame(
        {
            "held cells": [r["cells"] for r in lk["cells_given_trigger"]],
            "probability given a trigger: at the trigger": [
                r["at_trigger"] for r in lk["cells_given_trigger"]
            ],
            "probability given a trigger: at the end": [r["at_end"] for r in lk["cells_given_trigger"]],
        }
    )
    out["Lock-it: award"] = pd.DataFrame(
        [
            {
                "mean award [x total bet]": lk["mean_award"],
                "full screen given a trigger [probability]": lk["full_screen_given_trigger"],
                SHARE: _share(lk["rtp"], rtp),
            }
        ]
    )
    return out


def jackpot_values(game: Game) -> dict:
    """{name: value [x total bet]} of ``options.jackpots`` (a progressive's is 0)."""
    from slotmath.features.options import load_features

    return {name: float(v) for name, v in load_features(game).jackpots.items()}


def wheel_tables(game: Game, wheel: dict, rtp: float) -> dict:
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
    values = jackpot_values(game) | {o["outcome"]: o["value"] for o in wheel["outcomes"]}
    return {"Wheel (one spin)": pd.DataFrame(rows), **start_and_jackpot_tables("Wheel", wheel, rtp, values)}
