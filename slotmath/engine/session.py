"""Player sessions: the distribution of the net result after N spins.

Spins are independent and identically distributed, so the total win after
``N`` spins is the ``N``-fold convolution of the per-spin win distribution
(:class:`slotmath.engine.distribution.WinDistribution`).  Wins live on a lattice:
every win is a multiple of ``g`` win units, ``g`` the greatest common
divisor of the wins, so the total win after ``N`` spins is ``g k`` for an
integer ``k`` and the convolution power is computed on that lattice by
binary exponentiation with FFT products (:func:`scipy.signal.fftconvolve`).

Wins are never negative, so the probability of a total ``k`` depends only
on per-spin wins up to ``k``: truncating every product at ``k_max`` leaves
the probabilities of ``0..k_max`` unchanged.  The distribution is therefore
computed on the net-result range ``[-N, upper]`` [x total bet] only, and the
mass above it is kept as one number (:attr:`SessionDistribution.tail`).  A
rare huge win (a jackpot) costs nothing: it only moves mass into the tail.

Range: by default (``upper=None``) the computed range grows (doubling)
until the mass above it is below :data:`TAIL_LIMIT` or it reaches the
largest total the game can pay, ``N x max win``; the mass above it is
reported with that top, so a session's figures cover the whole range.

Accuracy: float64 throughout.  An FFT product of two probability vectors
(2-norm at most 1) has a 2-norm error of at most ``c eps log2(M)`` (``M``
the FFT length, ``c = 5`` a conservative constant); convolving an error
with a probability vector does not enlarge its 2-norm, and a squaring at
most doubles it, so after the binary exponentiation the 2-norm error of the
probabilities is at most ``(2 N) c eps log2(M)``
(:attr:`SessionDistribution.error_bound`), which also bounds every single
probability; a CDF value is within ``sqrt(size)`` times that
(:attr:`SessionDistribution.cdf_error_bound`).  Negative round-off is
clipped to 0.
``tests/test_session.py`` checks the result against exact integer
convolution.  Should the lattice exceed :data:`MAX_POINTS` points, wins are
moved to a coarser lattice by splitting each win's probability between the
two neighbouring lattice points so that the mean is kept; the result then
says ``exact_lattice = False``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, reduce
from math import gcd

import numpy as np
import pandas as pd
from scipy.signal import fftconvolve

from slotmath.engine.distribution import WinDistribution

SESSION_LENGTHS = (100, 1000, 10_000, 100_000)
QUANTILES = (0.05, 0.25, 0.50, 0.75, 0.95)
MAX_POINTS = 1 << 22
#: The default range grows until the probability above it is below this.
TAIL_LIMIT = 1e-7
#: Constant of the FFT error bound (see the module docstring).
FFT_ERROR_CONSTANT = 5.0


def probability(p: float) -> float:
    """A probability computed in float64 clipped to [0, 1] (round-off of a
    sum, within its error bound, can leave the range) [probability]."""
    return min(max(p, 0.0), 1.0)


@dataclass(frozen=True, eq=False)
class SessionDistribution:
    """Net result of a session of ``spins`` spins at a fixed total bet.

    Attributes
    ----------
    spins : int
        Spins in the session.
    step : int
        Lattice step of the total win [win units, 1/unit_den coin].
    probabilities : ndarray of float64
        ``probabilities[k]``: probability that the total win is ``k * step``
        units, for ``k = 0..k_max`` [probability].
    tail : float
        Probability that the total win is above ``k_max * step`` [probability].
    stake : int
        Total amount bet in the session, ``spins * total_bet`` [win units].
    units_per_bet : int
        Win units per total bet.
    mean : float
        Expected net result (exact, from the RTP) [x total bet].
    sd : float
        Standard deviation of the net result [x total bet].
    exact_lattice : bool
        False when the wins had to be moved to a coarser lattice.
    max_net : float
        Largest net result of the distribution, ``spins x (its max win - 1)``
        [x total bet] (below the game's true largest when the float
        distribution drops wins); the tail lies between :attr:`upper` and it.
    error_bound : float
        Bound on the 2-norm (hence on each) error of ``probabilities``
        from float64 FFT products [probability].
    """

    spins: int
    step: int
    probabilities: np.ndarray
    tail: float
    stake: int
    units_per_bet: int
    mean: float
    sd: float
    exact_lattice: bool = True
    max_net: float = float("nan")
    error_bound: float = 0.0

    @property
    def cdf_error_bound(self) -> float:
        """Bound on the error of any cumulative probability [probability]."""
        return float(np.sqrt(len(self.probabilities)) * self.error_bound)

    @cached_property
    def net(self) -> np.ndarray:
        """Net result of each lattice point [x total bet]."""
        k = np.arange(len(self.probabilities), dtype=np.float64)
        return (k * self.step - self.stake) / self.units_per_bet

    @property
    def upper(self) -> float:
        """Largest net result with its own probability [x total bet]."""
        return float(self.net[-1])

    def _mass(self, mask: np.ndarray) -> float:
        return probability(float(self.probabilities[mask].sum()))

    @cached_property
    def _k(self) -> np.ndarray:
        # total win of each lattice point [units], exact integers for comparisons
        return np.arange(len(self.probabilities), dtype=np.int64) * self.step

    @property
    def p_ahead(self) -> float:
        """P(net result > 0): the player ends ahead [probability]."""
        return probability(self._mass(self._k > self.stake) + self.tail)

    @property
    def p_even(self) -> float:
        """P(net result = 0) [probability]."""
        return self._mass(self._k == self.stake)

    def p_at_most(self, net_bets: float) -> float:
        """P(net result <= ``net_bets``) [probability]; needs ``net_bets <= upper``."""
        if net_bets > self.upper + 1e-12:
            raise ValueError(f"{net_bets} is above the computed range (up to {self.upper})")
        return self._mass(self.net <= net_bets + 1e-12)

    @cached_property
    def _cdf(self) -> np.ndarray:
        return np.minimum(np.cumsum(self.probabilities), 1.0)

    def quantile(self, q: float) -> float:
        """Smallest net result x with P(net <= x) >= q [x total bet];
        ``inf`` when x lies above the computed range."""
        i = int(np.searchsorted(self._cdf, q - 1e-13))
        return float(self.net[i]) if i < len(self._cdf) else float("inf")

    def payback_quantile(self, q: float) -> float:
        """Smallest payback y with P(payback <= y) >= q [x amount bet];
        payback = total win / amount bet, between 0 and the distribution's max win."""
        return 1.0 + self.quantile(q) / self.spins

    def payback_interval(self, confidence: float) -> tuple:
        """Two-sided interval holding the payback with at least
        ``confidence``: the (1-c)/2 and (1+c)/2 quantiles [x amount bet]."""
        a = (1 - confidence) / 2
        return self.payback_quantile(a), self.payback_quantile(1 - a)

    def summary(self) -> dict:
        """Headline figures of the session (JSON-ready)."""
        row = {
            "spins": self.spins,
            "expected_net": self.mean,
            "sd_net": self.sd,
            "p_ahead": self.p_ahead,
            "p_even": self.p_even,
            "p_lose_half_or_more": self.p_at_most(-self.spins / 2),
            "p_above_range": self.tail,
            "range_top": self.upper,
            "largest_possible_net": self.max_net,
            "error_bound": self.error_bound,
            "cdf_error_bound": self.cdf_error_bound,
        }
        row.update({f"q{round(q * 100):02d}": self.quantile(q) for q in QUANTILES})
        return row

    def to_frame(self) -> pd.DataFrame:
        """Lattice points with non-negligible probability: net result and probability."""
        keep = self.probabilities > 0
        return pd.DataFrame(
            {
                "net": self.net[keep],
                "probability": self.probabilities[keep],
                "cdf": self._cdf[keep],
            }
        )


def win_lattice(dist: WinDistribution) -> int:
    """Greatest common divisor of the wins [win units] (the total bet when
    nothing pays)."""
    return reduce(gcd, (int(w) for w in dist.wins if w), 0) or dist.unit_den * dist.total_bet


def power_truncated(p: np.ndarray, n: int, size: int) -> np.ndarray:
    """First ``size`` terms of the ``n``-fold convolution of ``p`` with itself.

    ``p`` is a probability vector on ``0, 1, 2, ...``; every product is cut at
    ``size`` terms, which is exact for those terms because the support is
    non-negative.
    """
    if n < 1:
        raise ValueError("n must be >= 1")

    def mul(a, b):
        c = fftconvolve(a, b)[:size]
        return np.clip(c, 0.0, None)

    base = p[:size].astype(np.float64)
    result = None
    while n:
        if n & 1:
            result = base.copy() if result is None else mul(result, base)
        n >>= 1
        if n:
            base = mul(base, base)
    return result


def session(
    dist: WinDistribution, spins: int, upper: float | None = None, max_points: int = MAX_POINTS
) -> SessionDistribution:
    """Distribution of the net result after ``spins`` spins.

    Parameters
    ----------
    dist : WinDistribution
        Total win of one spin (or round).
    spins : int
        Session length [spins].
    upper : float, optional
        Top of the computed net-result range [x total bet].  Default: grown
        from ``spins x (RTP - 1) + 8 SD sqrt(spins)`` by doubling until the
        mass above it is below :data:`TAIL_LIMIT`, it holds every total the
        game can pay, or the lattice would exceed ``max_points``.
    max_points : int
        Largest lattice size before wins are moved to a coarser lattice.
    """
    if spins < 1:
        raise ValueError("spins must be >= 1")
    units_per_bet = dist.unit_den * dist.total_bet
    max_net = spins * (float(dist.max_win) - 1.0)
    step = win_lattice(dist)  # once: every pass of the doubling uses the same lattice
    if upper is not None:
        if upper < 0:
            raise ValueError("upper must be >= 0 (the tail is counted as ahead)")
        return _session(dist, spins, float(upper), max_points, step)
    top = min(max_net, max(spins * (float(dist.mean) - 1.0) + 8 * dist.sd * np.sqrt(spins), 1.0))
    while True:
        s = _session(dist, spins, top, max_points, step)
        fits = (spins * units_per_bet + 2 * top * units_per_bet) // step + 1 <= max_points
        if s.tail < TAIL_LIMIT or top >= max_net or not fits:
            return s
        top = min(2 * top + 1, max_net)


def _session(
    dist: WinDistribution, spins: int, upper: float, max_points: int, step: int
) -> SessionDistribution:
    """The session distribution up to ``upper``; ``step`` is :func:`win_lattice` of ``dist``."""
    units_per_bet = dist.unit_den * dist.total_bet
    stake = spins * units_per_bet
    top_units = stake + int(np.floor(upper * units_per_bet))
    exact_lattice = True
    if top_units // step + 1 > max_points:
        step = -(-top_units // (max_points - 1))
        exact_lattice = False
    size = top_units // step + 1
    probs = np.asarray(dist.probabilities, dtype=np.float64)
    p = np.zeros(size, dtype=np.float64)
    if exact_lattice:
        k = dist.wins // step
        inside = k < size
        np.add.at(p, k[inside], probs[inside])
    else:
        # mean-preserving split between the two neighbouring lattice points
        pos = dist.wins / step
        lo = np.floor(pos).astype(np.int64)
        frac = pos - lo
        for idx, mass in ((lo, probs * (1 - frac)), (lo + 1, probs * frac)):
            inside = idx < size
            np.add.at(p, idx[inside], mass[inside])
    pk = power_truncated(p, spins, size)
    tail = max(0.0, 1.0 - float(pk.sum()))
    mean = spins * (float(dist.mean) - 1.0)
    sd = float(np.sqrt(spins) * dist.sd)
    max_net = spins * (float(dist.max_win) - 1.0)
    bound = 2 * spins * FFT_ERROR_CONSTANT * np.finfo(float).eps * np.log2(max(2 * size, 2))
    return SessionDistribution(
        spins,
        int(step),
        pk,
        tail,
        stake,
        units_per_bet,
        mean,
        sd,
        exact_lattice,
        max_net,
        float(min(bound, 1.0)),
    )


def session_table(dist: WinDistribution, lengths=SESSION_LENGTHS) -> pd.DataFrame:
    """One row of session figures per session length (see
    :meth:`SessionDistribution.summary`) [x total bet, probability]."""
    return pd.DataFrame([session(dist, n).summary() for n in lengths])
