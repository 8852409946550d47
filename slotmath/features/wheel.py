"""Weighted prize wheels, optionally preceded by a jackpot draw.

A wheel spin first awards the *before* jackpot with probability ``q``
(and then the wheel is not spun); otherwise one segment is drawn with
probability proportional to its weight.  Values are [x total bet].
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class WheelSpec:
    """A prize wheel: segments ``(label, value [x total bet], weight)`` and an
    optional jackpot awarded before the wheel with ``pre_probability``."""

    segments: tuple
    pre_prize: Fraction = Fraction(0)
    pre_probability: Fraction = Fraction(0)
    pre_name: str = ""


def outcomes(wheel: WheelSpec) -> list:
    """Every outcome of one wheel award: ``(label, value [x total bet], probability)``
    as Fractions, the before-jackpot first when declared."""
    total = sum(w for _, _, w in wheel.segments)
    q = wheel.pre_probability
    out = [(wheel.pre_name, wheel.pre_prize, q)] if q else []
    out += [(label, value, (1 - q) * Fraction(w, total)) for label, value, w in wheel.segments]
    return out


def moments(wheel: WheelSpec):
    """Mean [x total bet] and second moment of one wheel award (Fractions)."""
    o = outcomes(wheel)
    return sum(v * p for _, v, p in o), sum(v * v * p for _, v, p in o)


def distribution(wheel: WheelSpec, unit: Fraction = Fraction(1)) -> np.ndarray:
    """``p[j]`` = P(award = j * unit) [probability], float64."""
    o = outcomes(wheel)
    top = max(int(v / unit) for _, v, _ in o)
    p = np.zeros(top + 1)
    for _, v, prob in o:
        j = v / unit
        if j.denominator != 1:
            raise ValueError(f"wheel value {v} is not a multiple of {unit}")
        p[int(j)] += float(prob)
    return p


def table(wheel: WheelSpec) -> pd.DataFrame:
    """The wheel as a table: outcome, value [x total bet], weight, probability, 1 in N."""
    import pandas as pd

    total = sum(w for _, _, w in wheel.segments)
    rows = []
    for label, value, prob in outcomes(wheel):
        weight = next((w for lab, _, w in wheel.segments if lab == label), None)
        rows.append(
            {
                "outcome": label,
                "value": float(value),
                "weight": weight if label != wheel.pre_name or not wheel.pre_probability else None,
                "probability": float(prob),
                "one_in": float(1 / prob) if prob else np.inf,
                "rtp_share": float(value * prob),
            }
        )
    df = pd.DataFrame(rows)
    df.attrs["total_weight"] = total
    return df
