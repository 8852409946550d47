"""Rows and tables shared by the features' PAR tables: odds rows, jackpot
rows, start-and-award tables, award bands, prize rows.  Every column carries
its unit (``[x total bet]``, ``[1 in N rounds]``, ``[probability]``); a
feature's own tables are built in its module (its
:class:`~slotmath.features.kinds.FeatureKind` ``tables``), from these.
Imported by the table builders only (pandas), never when a game is validated.
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from slotmath.model import Game

__all__ = [
    "ONE_IN",
    "PER_HIT",
    "SHARE",
    "one_in",
    "share",
    "trigger_row",
    "jackpot_rows",
    "start_and_jackpot_tables",
    "award_bands",
    "jackpot_values",
    "prize_rows",
    "progressive_rows",
]
ONE_IN = "1 in N rounds"
#: Column of a jackpot's mean spacing: 1 / expected hits per round, not 1 /
#: P(hit) (a feature can pay the same jackpot several times).
PER_HIT = "rounds per hit [1 / hits per round]"
#: Column of a feature's or jackpot's part of the RTP (a fraction of it; shown in %).
SHARE = "share of RTP"


def one_in(p: float) -> float:
    return 1 / p if p else float("inf")


def share(value: float, rtp: float) -> float:
    return value / rtp if rtp else 0.0


def trigger_row(event: str, p: float) -> dict:
    """A row of a feature's odds table: ``event`` with its probability per
    round and 1 in N rounds."""
    return {"event": event, "probability per round": p, f"odds [{ONE_IN}]": one_in(p)}


#: columns of an event that can happen more than once a round (a feature
#: started in free games): its mean count per round and rounds per event
PER_ROUND = "mean per round [events / round]"
ROUNDS_PER = "rounds per event [1 / mean per round]"


def rate_row(event: str, n: float) -> dict:
    """A row of a feature's odds table for an event a round can hold more
    than once: its mean count per round (not a probability) and rounds per
    event."""
    return {"event": event, PER_ROUND: n, ROUNDS_PER: one_in(n)}


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
            PER_HIT: one_in(n),
            SHARE: share(n * values.get(label, 0.0), rtp),
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
                | {"mean award [x total bet]": fig["mean_award"], SHARE: share(p * fig["mean_award"], rtp)}
            ]
        )
    }
    hits = {k: v["per_round"] for k, v in fig.get("jackpots", {}).items()}
    if hits:
        out[f"{title}: jackpots"] = pd.DataFrame(jackpot_rows(hits, values or {}, rtp))
    return out


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
                f"odds [{ONE_IN}]": one_in(q * trigger),
            }
            if q >= RESOLVED
            else {
                "award [x total bet]": band,
                "probability given the trigger": f"< {RESOLVED:g}",
                "odds [1 in N features]": f"over {1 / RESOLVED:.3g}",
                f"odds [{ONE_IN}]": f"over {one_in(RESOLVED * trigger):.3g}",
            }
        )
    return pd.DataFrame(rows)


def jackpot_values(game: Game) -> dict:
    """{name: value [x total bet]} of ``options.jackpots`` (a progressive's is 0)."""
    from slotmath.features.options import load_features

    return {name: float(v) for name, v in load_features(game).jackpots.items()}


def prize_rows(table, head: dict, per: str) -> list:
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


#: The value column of the jackpot and prize tables.
VALUE = "value [x total bet]"
#: Label columns whose rows may name a jackpot.
_LABELS = ("jackpot", "segment", "prize", "outcome")


def progressive_rows(table: pd.DataFrame, meters: dict, rtp: float) -> pd.DataFrame:
    """``table`` with each row that names a progressive jackpot labelled so.

    ``meters`` = {name: mean meter at a win [x total bet]} (the progressive
    jackpots' ``E[J]``).  A feature pays a progressive no coins (its coin
    value is 0), so a jackpots table (``hits per round``) shows the meter's
    mean at a win as its value and ``hits x E[J] / rtp`` as its share of the
    RTP (the shares of every feature paying it add up to the component
    ``progressive NAME``); a prize table keeps the coin value 0 and says the
    meter pays it."""
    label = next((c for c in _LABELS if c in table.columns), None)
    if not meters or label is None or VALUE not in table.columns:
        return table
    out = table.copy()
    jackpots = "hits per round" in out.columns
    for i, name in out[label].items():
        if name not in meters:
            continue
        if jackpots:
            out.at[i, label] = f"{name} (progressive; value: mean meter at a win)"
            out.at[i, VALUE] = meters[name]
            if SHARE in out.columns:
                out.at[i, SHARE] = share(out.at[i, "hits per round"] * meters[name], rtp)
        else:
            out.at[i, label] = f"{name} (progressive: paid by its meter, not in the award)"
    return out
