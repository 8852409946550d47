"""The distribution of a win: a lattice histogram and its statistics.

Wins are whole multiples of a win unit (``1/unit_den`` coin).  Weights are
either integer hit counts over the full cycle (exact; statistics are
``Fraction``) or float64 probabilities (from features; statistics are
floats with relative error of order ``support size x 2**-53``).
Statistics are per unit of total bet: ``X = win / total_bet``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
#: confidence of the volatility index [probability]
VI_CONFIDENCE = 0.90
#: The win-band ladder [x total bet]: lower edges of the bands above zero that
#: the PAR sheet and the simulation statistics count wins in.
WIN_EDGES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)
SESSION_SPINS = tuple(10**k for k in range(3, 9))


def z_value(confidence: float) -> float:
    """Two-sided normal quantile for ``confidence`` (0.90 -> 1.6449)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True)
class MaxWin:
    """The largest win with non-zero probability and its odds.

    Attributes
    ----------
    value : Fraction or None
        Largest win [x total bet]; None when there is no largest win
        (retriggered free games without a limit).
    probability : Fraction, float or None
        Probability of that win [probability] per spin or round; None when
        not computed (``value`` is then a bound).
    exact : bool
        True when ``value`` and ``probability`` are exact (Fractions).
    how : str
        How they were found (support of an exact law, or a bound that the
        feature's structure gives), in words.
    """

    value: Fraction | None
    probability: Fraction | float | None
    exact: bool
    how: str

    @property
    def one_in(self) -> float | None:
        """Odds of the largest win: 1 in this many spins or rounds."""
        if not self.probability:
            return None
        try:  # 1/p exactly, then as a float: a Fraction below the float range is not 0
            return float(1 / self.probability)
        except (OverflowError, ZeroDivisionError):
            return None


@dataclass(frozen=True, eq=False)
class WinDistribution:
    """Distribution of a win over its support.

    Attributes
    ----------
    wins : ndarray of int64
        Distinct wins, ascending [1/unit_den coins].
    weights : ndarray
        Integer hit counts (object dtype, exact) or float probabilities.
    unit_den : int
        Win units per coin.
    total_bet : int
        Total bet the statistics are relative to [coins].
    """

    wins: np.ndarray
    weights: np.ndarray
    unit_den: int
    total_bet: int

    # ------------------------------------------------------------ builders
    @classmethod
    def from_histogram(cls, hist: np.ndarray, unit_den: int, total_bet: int) -> WinDistribution:
        """From a dense histogram indexed by win [units]."""
        nz = np.flatnonzero(hist)
        weights = hist[nz]
        if weights.dtype.kind in "iuO":
            weights = np.array([int(v) for v in weights], dtype=object)
        return cls(nz.astype(np.int64), weights, unit_den, total_bet)

    @classmethod
    def from_grid(
        cls, hist: np.ndarray, step: Fraction, total_bet: int, normalise: bool = False
    ) -> WinDistribution:
        """From float probabilities ``hist`` indexed by win [grid steps of
        ``step`` coins]; with ``normalise`` scaled to sum to 1."""
        nz = np.flatnonzero(hist)
        p = hist[nz]
        return cls(
            nz.astype(np.int64) * step.numerator, p / p.sum() if normalise else p, step.denominator, total_bet
        )

    @classmethod
    def from_pairs(cls, pairs, unit_den: int, total_bet: int) -> WinDistribution:
        """From ``(win_units, weight)`` pairs; equal wins are merged."""
        acc: dict = {}
        for w, c in pairs:
            acc[int(w)] = acc.get(int(w), 0) + c
        keys = sorted(k for k, v in acc.items() if v)
        vals = [acc[k] for k in keys]
        exact = all(isinstance(v, int) for v in vals)
        weights = np.array(vals, dtype=object if exact else np.float64)
        return cls(np.array(keys, dtype=np.int64), weights, unit_den, total_bet)

    # ------------------------------------------------------------ basics
    @property
    def exact(self) -> bool:
        """True when the weights are integer hit counts."""
        return self.weights.dtype == object

    @cached_property
    def total(self):
        """Sum of weights: the cycle (exact) or 1.0."""
        return sum(self.weights.tolist()) if self.exact else float(self.weights.sum())

    @cached_property
    def probabilities(self) -> np.ndarray:
        """Probability of each win [probability]."""
        return (
            np.array([float(Fraction(int(c), self.total)) for c in self.weights])
            if self.exact
            else self.weights / self.total
        )

    @property
    def x(self) -> np.ndarray:
        """Wins [x total bet]."""
        return self.wins / (self.unit_den * self.total_bet)

    def _moment(self, k: int):
        scale = self.unit_den * self.total_bet
        if self.exact:
            s = sum(
                int(w) ** k * int(c) for w, c in zip(self.wins.tolist(), self.weights.tolist(), strict=True)
            )
            return Fraction(s, self.total * scale**k)
        return float(np.dot((self.wins / scale) ** k, self.weights) / self.total)

    # ------------------------------------------------------------ statistics
    @cached_property
    def mean(self):
        """Expected win = RTP [x total bet]."""
        return self._moment(1)

    @cached_property
    def second_moment(self):
        """E[X^2] [(x total bet)^2]."""
        return self._moment(2)

    @cached_property
    def variance(self):
        """Var X [(x total bet)^2]."""
        return self.second_moment - self.mean**2

    @property
    def sd(self) -> float:
        """Standard deviation of the win [x total bet]."""
        return float(self.variance) ** 0.5

    def volatility_index(self, confidence: float = 0.90) -> float:
        """VI = z * sd at a two-sided ``confidence`` [x total bet]."""
        return z_value(confidence) * self.sd

    @cached_property
    def hit_frequency(self):
        """P(win > 0) [probability]."""
        paying = self.wins > 0
        if self.exact:
            return Fraction(sum(self.weights[paying].tolist()), self.total)
        return float(self.weights[paying].sum() / self.total)

    @property
    def max_win(self) -> Fraction:
        """Largest win [x total bet]."""
        return Fraction(int(self.wins[-1]), self.unit_den * self.total_bet)

    @property
    def max_win_probability(self):
        """Probability of the largest win [probability]."""
        w = self.weights[-1]
        return Fraction(int(w), self.total) if self.exact else float(w / self.total)

    def top(self, how: str = "largest win of the exact distribution over the cycle") -> MaxWin:
        """The largest win of the support and its probability; exact when
        the weights are hit counts."""
        if self.exact:
            return MaxWin(self.max_win, self.max_win_probability, True, how)
        return MaxWin(
            self.max_win,
            float(self.max_win_probability),
            False,
            "largest win the float distribution resolves (a lower bound)",
        )

    def exceedance(self, x_bet: float) -> float:
        """P(win >= x_bet total bets) [probability]."""
        return float(self.probabilities[self.x >= x_bet - 1e-12].sum())

    # ------------------------------------------------------------ tables
    def confidence_table(self, spins=SESSION_SPINS, confidence: float = 0.90) -> pd.DataFrame:
        """Payback range after N spins: RTP +- VI/sqrt(N) [x total bet]."""
        import pandas as pd

        rtp, vi = float(self.mean), self.volatility_index(confidence)
        half = np.array([vi / np.sqrt(n) for n in spins])
        return pd.DataFrame({"spins": list(spins), "low": rtp - half, "high": rtp + half})

    def exceedance_table(self, thresholds=(0.01, *WIN_EDGES)) -> pd.DataFrame:
        """P(win >= x) for a ladder of x [x total bet] (default: the win-band
        ladder :data:`WIN_EDGES` and 0.01)."""
        import pandas as pd

        rows = []
        for t in thresholds:
            p = self.exceedance(t)
            rows.append({"win_at_least": t, "probability": p, "one_in": (1 / p) if p > 0 else float("inf")})
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """One row per distinct win: win [x total bet], weight, probability."""
        import pandas as pd

        return pd.DataFrame({"win": self.x, "weight": self.weights, "probability": self.probabilities})
