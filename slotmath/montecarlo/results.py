"""Monte Carlo simulation of line games, a cross-check of the exact engine.

Draws reel stops with exact integer weighting (a uniform integer below the
reel's total weight, located in the cumulative weights), builds the windows
and evaluates them with the independent reference evaluator
(:mod:`slotmath.engine.evaluate`).  Seeded and reproducible: the same seed and spin
count give the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from slotmath.engine.evaluate import total_wins
from slotmath.engine.reels import reel_windows
from slotmath.model import Game

BATCH = 50_000


@dataclass
class Moments:
    """Running power sums of a per-spin quantity: n, sum x, ..., sum x^4, hits."""

    n: int = 0
    s1: float = 0.0
    s2: float = 0.0
    s3: float = 0.0
    s4: float = 0.0
    hits: int = 0

    def add(self, x: np.ndarray) -> None:
        self.n += len(x)
        self.s1 += float(x.sum())
        self.s2 += float((x**2).sum())
        self.s3 += float((x**3).sum())
        self.s4 += float((x**4).sum())
        self.hits += int((x > 0).sum())

    def merge(self, other: Moments) -> Moments:
        return Moments(
            self.n + other.n,
            self.s1 + other.s1,
            self.s2 + other.s2,
            self.s3 + other.s3,
            self.s4 + other.s4,
            self.hits + other.hits,
        )


@dataclass
class Estimate:
    """A simulated figure with its standard error and 95 % interval."""

    value: float
    se: float
    exact: float | None = None

    @property
    def ci95(self) -> tuple:
        return (self.value - 1.96 * self.se, self.value + 1.96 * self.se)

    @property
    def z(self) -> float | None:
        """(simulated - exact) / se, None without an exact value."""
        if self.exact is None or self.se == 0:
            return None
        return (self.value - self.exact) / self.se

    def to_dict(self) -> dict:
        lo, hi = self.ci95
        return {"value": self.value, "se": self.se, "ci95": [lo, hi], "exact": self.exact, "z": self.z}


@dataclass
class SimulationResult:
    """Simulated RTP, hit frequency and SD (all [x total bet], simulated)."""

    game: str
    level: int
    spins: int
    seed: int
    moments: Moments
    exact: dict = field(default_factory=dict)

    @property
    def rtp(self) -> Estimate:
        m = self.moments
        mean = m.s1 / m.n
        var = max(m.s2 / m.n - mean**2, 0.0)
        return Estimate(mean, (var / m.n) ** 0.5, self.exact.get("rtp"))

    @property
    def hit_frequency(self) -> Estimate:
        p = self.moments.hits / self.moments.n
        return Estimate(p, (p * (1 - p) / self.moments.n) ** 0.5, self.exact.get("hit_frequency"))

    @property
    def sd(self) -> Estimate:
        m = self.moments
        n = m.n
        mu = m.s1 / n
        c2 = m.s2 / n - mu**2
        c4 = m.s4 / n - 4 * mu * m.s3 / n + 6 * mu**2 * m.s2 / n - 3 * mu**4
        sd = max(c2, 0.0) ** 0.5
        se_var = max(c4 - c2**2, 0.0) ** 0.5 / n**0.5
        return Estimate(sd, se_var / (2 * sd) if sd else 0.0, self.exact.get("sd"))

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "bet": self.level,
            "spins": self.spins,
            "seed": self.seed,
            "simulated": True,
            "rtp": self.rtp.to_dict(),
            "hit_frequency": self.hit_frequency.to_dict(),
            "sd": self.sd.to_dict(),
        }

    def text(self) -> str:
        rows = [
            f"Simulation (Monte Carlo, {self.spins:,} spins, seed {self.seed}): "
            f"{self.game}, bet level {self.level}"
        ]
        for name in ("rtp", "hit_frequency", "sd"):
            e = getattr(self, name)
            lo, hi = e.ci95
            z = "" if e.z is None else f"  exact {e.exact:.6f}  z = {e.z:+.2f}"
            rows.append(f"  {name:<14} {e.value:.6f}  95% CI [{lo:.6f}, {hi:.6f}]{z}")
        return "\n".join(rows)


def sample_stops(rng: np.random.Generator, strips, n: int) -> np.ndarray:
    """``n`` stop vectors, shape (n, R), weighted by the strips' stop weights."""
    out = np.empty((n, len(strips)), dtype=np.int64)
    for r, strip in enumerate(strips):
        if strip.weights is None:
            out[:, r] = rng.integers(0, len(strip), size=n)
        else:
            cum = np.cumsum(strip.stop_weights())
            out[:, r] = np.searchsorted(cum, rng.integers(0, cum[-1], size=n), side="right")
    return out


def simulate_lines(
    game: Game,
    spins: int,
    seed: int = 0,
    level: int | None = None,
    reel_set: str = "base",
    exact: dict | None = None,
) -> SimulationResult:
    """Simulate ``spins`` spins of a line game (reference evaluator)."""
    level = game.bet(level).level
    rng = np.random.default_rng(seed)
    strips = game.strips(reel_set)
    wins = reel_windows(game, reel_set)
    moments = Moments()
    done = 0
    while done < spins:
        n = min(BATCH, spins - done)
        stops = sample_stops(rng, strips, n)
        windows = np.stack([wins[r][stops[:, r]] for r in range(game.reels)], axis=1)
        moments.add(total_wins(game, level, windows))
        done += n
    return SimulationResult(game.name, level, spins, seed, moments, exact or {})
