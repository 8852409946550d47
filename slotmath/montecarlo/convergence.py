"""Convergence report: a simulation run against the exact figures.

For the RTP, the hit frequency and the SD, each pay's and feature's hit
rate and the win distribution by bins, the report puts the simulated value,
its standard error and 95 % interval beside the exact value and the z-score
``(simulated - exact) / se``.  It also states how many rounds a simulation
needs to pin the RTP down as tightly as the exact engine does to
+-0.01 percentage points at 95 %: ``N = (1.96 sigma / 0.0001)**2`` with
``sigma`` the SD of a round's win [x total bet].

Events and exact rates
    A sampler's event named ``event_key(kind, combination, multiplier)``
    after a row of the exact combination table is compared with that row's
    probability (expected hits per round, summed over lines).  Any other
    event is compared with ``ParResult.features["event_rates"][name]``
    (expected count per round) when the rules module provides it.

Standard errors and tests
    Every test is of the exact value (the null hypothesis), so standard
    errors come from the exact distribution where there is one.  RTP: the
    exact SD over sqrt(n).  SD: the sample variance has variance
    ``(mu4 - sigma**4) / n`` (``mu4`` the exact central fourth moment), so
    the SD's standard error is ``sqrt((mu4 - sigma**4) / n) / (2 sigma)``
    (delta method); without exact figures, the sample's own moments.  Hit
    frequency, histogram bins and events: a count; when its expected value
    is below :data:`EXACT_COUNT_BELOW` the z is the normal quantile of the
    exact two-sided Poisson tail probability (:func:`count_z`), so a rare
    event seen once is not called a failure; else binomial (events: batch
    means over the kernel blocks, as a round may count an event several
    times).  A check passes when ``|z| <`` :data:`Z_PASS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.montecarlo.results import SimulationResult

#: RTP precision of the exact engine the simulation is compared with:
#: +-0.01 percentage points [x total bet].
PRECISION = 1e-4
#: Two-sided 95 % normal quantile used by the rounds-needed formula.
Z95 = 1.96
#: A check passes when |z| is below this.
Z_PASS = 4.0
#: Counts expected below this many times are tested with the exact Poisson tail.
EXACT_COUNT_BELOW = 100


def count_z(count: int, expected: float) -> float:
    """z-equivalent of observing ``count`` where ``expected`` is the exact
    mean count: the normal quantile of the two-sided Poisson tail
    probability, signed (0 when the count is the most likely one)."""
    from scipy.special import ndtri, pdtr, pdtrc  # lighter to import than scipy.stats

    if expected <= 0:
        return 0.0 if count == 0 else math.inf
    low = pdtr(count, expected)  # P(N <= count)
    high = pdtrc(count - 1, expected) if count > 0 else 1.0  # P(N >= count)
    p = min(1.0, 2 * min(low, high))
    z = -float(ndtri(p / 2)) if p < 1 else 0.0
    return z if count > expected else -z


def central_fourth_moment(dist) -> float:
    """E[(X - mean)^4] of a win distribution [(x total bet)^4] (exact
    arithmetic when the distribution is exact)."""
    scale = dist.unit_den * dist.total_bet
    if dist.exact:
        mean = Fraction(
            sum(int(w) * int(c) for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)),
            dist.total * scale,
        )
        acc = sum(
            (Fraction(int(w), scale) - mean) ** 4 * int(c)
            for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)
        )
        return float(acc / dist.total)
    x = dist.wins / scale
    p = dist.weights / dist.total
    return float(np.dot((x - np.dot(x, p)) ** 4, p))


def sd_standard_error(sd: float, mu4: float, n: int) -> float:
    """Standard error of the sample SD of ``n`` rounds from the exact SD and
    central fourth moment: ``sqrt((mu4 - sd**4) / n) / (2 sd)``."""
    return math.sqrt(max(mu4 - sd**4, 0.0) / n) / (2 * sd) if sd > 0 else 0.0


def detectable_rtp_error(sd: float, n: int) -> float:
    """Smallest RTP error the check flags with |z| >= Z_PASS after ``n``
    rounds: ``Z_PASS sd / sqrt(n)`` [x total bet]."""
    return Z_PASS * sd / math.sqrt(n)


def detectable_rate_error(exact: float | None, se: float | None, n: int) -> float | None:
    """Smallest relative error of an event's rate [fraction of the exact
    rate] the check flags with |z| >= Z_PASS after ``n`` rounds:
    ``Z_PASS se / exact``, with the run's standard error ``se`` or, where the
    run gives none (an event never or always seen alike), the Poisson one
    ``sqrt(exact / n)``; None without an exact rate."""
    if not exact or exact <= 0 or n <= 0:
        return None
    if se is None or not se > 0:
        se = math.sqrt(exact / n)
    return Z_PASS * se / exact


def rounds_for_rtp_error(sd: float, error: float) -> float:
    """Rounds after which an RTP error of ``error`` gives |z| >= Z_PASS."""
    return (Z_PASS * sd / error) ** 2


#: Events of the base-triggered free games (after the base spin's): the
#: triggers (an event) and the games played (a count).
FREE_GAMES_EVENTS = ("free_games", "free_games_played")
#: What marks an award counted in prize-grid steps (a count per round).
GRID = "[grid]"


def is_count(name: str) -> bool:
    """True for a sampler event that counts a quantity per round (games
    played, an award in prize steps ``[grid]``), not an event: it has a mean
    per round but no odds."""
    return GRID in name or name == FREE_GAMES_EVENTS[1]


def event_key(kind: str, combination: str, multiplier: int = 1) -> str:
    """Name of the event matching a combination-table row:
    ``"line: 5 x A"``, ``"line: 3 x H1 (x4)"``, ``"scatter: 3 x SCATTER"``."""
    return f"{kind}: {combination}" + (f" (x{multiplier})" if multiplier != 1 else "")


def pay_row_events(kind: str, pay_names: list, pay: np.ndarray, entry: np.ndarray, names: list) -> np.ndarray:
    """Event index of every (symbol, count or size) cell of a count-pay table
    that pays (``pay`` non-zero; ``entry`` the index of its pay row in
    ``pay_names``), -1 elsewhere; one event name per pay row appended to
    ``names`` (:func:`event_key` of ``kind``)."""
    event = np.full(pay.shape, -1, dtype=np.int64)
    for p, c in zip(*np.nonzero(pay), strict=True):
        key = event_key(kind, pay_names[entry[p, c]], 1)
        if key not in names:
            names.append(key)
        event[p, c] = names.index(key)
    return event


def rounds_for_precision(sd: float, precision: float = PRECISION, z: float = Z95) -> float:
    """Rounds after which the RTP's ``z`` interval is +-``precision``:
    ``(z sd / precision)**2``."""
    return (z * sd / precision) ** 2


@dataclass(frozen=True)
class RoundFigures:
    """The exact figures a simulation is compared with when the whole PAR is
    not computed: the RTP components [x total bet] of the rules' fast path
    and, when the rules give them cheaply, the round win's hit frequency
    [probability] and SD [x total bet] (None: not compared); ``unpaid``,
    the RTP components no round pays out [x total bet] (a progressive
    jackpot's return), which the game's RTP holds and the round win does not."""

    components: dict
    hit_frequency: float | None = None
    sd: float | None = None
    unpaid: dict = field(default_factory=dict)

    @property
    def rtp(self):
        """The game's RTP [x total bet]: the sum of the components, those no
        round pays out included."""
        return sum(self.components.values()) + sum(self.unpaid.values())


def paid_rtp(figures: RoundFigures, part_names=()) -> float:
    """RTP paid by the rounds [x total bet]: the components the sampler's
    win parts name (all of them for a sampler without parts)."""
    names = [k for k in figures.components if not part_names or k in part_names]
    return float(sum(figures.components[k] for k in names))


def exact_figures(par, part_names=()) -> dict:
    """Exact RTP, hit frequency and SD of the simulated round win.

    Taken from the distribution of the round win, which is what a sampler
    draws from; ``par.rtp`` may also hold components no round pays out
    (such as contributions to a progressive meter).  For
    :class:`RoundFigures`, the components that the sampler's
    ``part_names`` name, and the hit frequency and SD when known.
    """
    if isinstance(par, RoundFigures):
        out = {"rtp": paid_rtp(par, part_names)}
        out.update({k: float(v) for k in ("hit_frequency", "sd") if (v := getattr(par, k)) is not None})
        return out
    d = par.distribution
    return {"rtp": float(par.paid_rtp), "hit_frequency": float(d.hit_frequency), "sd": float(d.sd)}


def sample_fourth_moment(moments) -> float:
    """Central fourth moment of a run's round win from its power sums
    [(x total bet)^4] (simulated)."""
    n = moments.n
    mu = moments.s1 / n
    return moments.s4 / n - 4 * mu * moments.s3 / n + 6 * mu**2 * moments.s2 / n - 3 * mu**4


def exact_event_rates(par, extra: dict | None = None) -> dict:
    """Expected count per round of every exact event: ``{name: Fraction or float}``.

    From the combination table rows (named by :func:`event_key`),
    ``par.features["event_rates"]`` and ``extra`` (later sources win);
    only ``extra`` for :class:`RoundFigures`.  A row whose multiplier is
    not whole (the mean over drawn multipliers of the lines or ways it
    counts) is no single event of the sampler, which names each drawn
    multiplier: it gives no rate.
    """
    out: dict = {}
    if isinstance(par, RoundFigures):
        par = None
    table = getattr(par, "combinations", None)
    if table is not None and len(table):
        cycle = par.cycle
        for row in table.itertuples(index=False):
            if not float(row.multiplier).is_integer():
                continue
            key = event_key(row.kind, row.combination, int(row.multiplier))
            hits = row.hits
            rate = (
                Fraction(int(hits), int(cycle))
                if isinstance(hits, (int, np.integer)) and isinstance(cycle, (int, np.integer))
                else float(row.probability)
            )
            out[key] = out.get(key, 0) + rate
    rates = dict((getattr(par, "features", None) or {}).get("event_rates", {}))
    rates.update(extra or {})
    for name, value in rates.items():
        out[name] = Fraction(value) if isinstance(value, str) else value
    return out


def _z(value, exact, se):
    if exact is None or se is None or not se > 0:
        return None
    return (value - exact) / se


@dataclass
class ConvergenceReport:
    """Simulated figures against exact ones (all rates per round).

    Attributes
    ----------
    rounds : int
    figures : DataFrame
        RTP, hit frequency, SD: ``simulated, se, ci_low, ci_high, exact, z``.
    components : DataFrame
        The same columns for the RTP of each part of the round win
        (figure ``"RTP: <component>"``), when the sampler reports parts.
    events : DataFrame
        Per event: ``hits, per_round, se, exact, one_in, exact_one_in, z``.
    histogram : DataFrame
        Rounds per win bin [x total bet]: ``rounds, probability, se, exact, z``.
    sd : float
        SD of a round's win used for ``rounds_needed`` [x total bet].
    sd_source : str
        ``"exact"`` or ``"simulated"``.
    rounds_needed : float
        Rounds for the RTP's 95 % interval to be +-0.01 pp.
    rounds_per_second : float or None
        Speed of the run, for the time the rounds needed would take.
    notes : list of str
    """

    rounds: int
    figures: pd.DataFrame
    events: pd.DataFrame
    histogram: pd.DataFrame
    sd: float
    sd_source: str
    rounds_needed: float
    rounds_per_second: float | None = None
    notes: list = field(default_factory=list)
    components: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def max_abs_z(self) -> float:
        """Largest |z| over figures, events and bins (0 if none)."""
        parts = [self.figures, self.events, self.histogram] + (
            [self.components] if len(self.components) else []
        )
        zs = pd.concat([t["z"] for t in parts])
        zs = pd.to_numeric(zs, errors="coerce").abs().dropna()
        return float(zs.max()) if len(zs) else 0.0

    @property
    def summary(self) -> pd.DataFrame:
        return self.figures

    def text(self) -> str:
        f = pd.concat([self.figures, self.components]) if len(self.components) else self.figures
        width = max([15] + [len(name) + 1 for name in f["figure"]])
        rows = ["  " + "figure".ljust(width) + "  simulated      95 % CI                    exact         z"]
        for r in f.itertuples(index=False):
            pct = r.figure != "SD"
            fmt = (lambda v: f"{v:.5%}") if pct else (lambda v: f"{v:.5f}")
            exact = "" if r.exact is None or pd.isna(r.exact) else fmt(r.exact)
            z = "" if r.z is None or pd.isna(r.z) else f"{r.z:+.2f}"
            rows.append(
                f"  {r.figure:<{width}}{fmt(r.simulated):>12}  [{fmt(r.ci_low)}, "
                f"{fmt(r.ci_high)}]  {exact:>12}  {z:>6}"
            )
        parts = ["\n".join(rows)]
        e = self.events
        # an event with no hit in the run and no exact rate says nothing (a drawn
        # multiplier's line labels, one per product or sum, are mostly such)
        silent = (e["hits"] == 0) & e["exact"].isna() if len(e) else None
        if len(e) and silent.any():
            e = e[~silent]
        if len(e):
            e = e.copy()
            counts = e["event"].map(is_count)  # no odds for what is not an event
            for col in ("one_in", "exact_one_in"):
                e[col] = [
                    "" if c else f"{v:,.2f}" if v and np.isfinite(v) else "-"
                    for v, c in zip(e[col], counts, strict=True)
                ]
            e["z"] = e["z"].map(lambda v: "" if v is None or pd.isna(v) else f"{v:+.2f}")
            parts += [
                "Pays and features (hits per round, simulated vs exact)",
                e[["event", "hits", "one_in", "exact_one_in", "z"]].to_string(index=False),
            ]
            if counts.any():
                parts.append(
                    "(one_in blank: a count per round, not an event: free games played, or an "
                    f"award {GRID} summed in steps of its prize grid)"
                )
        if silent is not None and silent.any():
            parts.append(
                f"({int(silent.sum()):,} events with no hit in the run and no exact rate are not listed)"
            )
        h = self.histogram.copy()
        h = h[(h["rounds"] > 0) | (h["exact"].fillna(0) > 0)]
        h["probability"] = h["probability"].map(lambda v: f"{v:.6e}")
        h["exact"] = h["exact"].map(lambda v: "" if pd.isna(v) else f"{v:.6e}")
        h["z"] = h["z"].map(lambda v: "" if v is None or pd.isna(v) else f"{v:+.2f}")
        parts += [
            "Win distribution [x total bet]",
            h[["bin", "rounds", "probability", "exact", "z"]].to_string(index=False),
        ]
        need = (
            f"Rounds for RTP +-0.01 pp at 95 %: (1.96 x {self.sd:.4f} / 0.0001)^2 = "
            f"{self.rounds_needed:.4g} (SD {self.sd_source})"
        )
        if self.rounds_per_second:
            need += f", {_duration(self.rounds_needed / self.rounds_per_second)} at this run's speed"
        parts += [need, f"Largest |z|: {self.max_abs_z:.2f}"] + self.notes
        return "\n".join(parts)

    def print_summary(self) -> None:
        print(self.text())

    def _repr_html_(self) -> str:
        return "\n".join(
            [
                self.figures.to_html(index=False),
                self.components.to_html(index=False) if len(self.components) else "",
                "<h4>Pays and features</h4>",
                self.events.to_html(index=False),
                "<h4>Win distribution</h4>",
                self.histogram.to_html(index=False),
                f"<p>Rounds for RTP +-0.01 pp at 95 %: {self.rounds_needed:.4g}</p>",
            ]
        )

    def to_dict(self) -> dict:
        def clean(df):
            return [{k: _jsonable(v) for k, v in r.items()} for r in df.to_dict(orient="records")]

        return {
            "rounds": self.rounds,
            "figures": clean(self.figures),
            "events": clean(self.events),
            "histogram": clean(self.histogram),
            "components": clean(self.components),
            "sd": self.sd,
            "sd_source": self.sd_source,
            "precision": PRECISION,
            "rounds_needed": self.rounds_needed,
            "max_abs_z": self.max_abs_z,
            "notes": self.notes,
        }


def _quick_notes(exact: dict, part_names, exact_events) -> list:
    """What a comparison with :class:`RoundFigures` leaves out, and how its
    standard errors are found."""
    notes = [
        "Exact figures: the RTP and its components (the rules' fast path), not the whole PAR; "
        + ("pays, features and " if not exact_events else "")
        + "win bins have no exact values here (slotmath par, the PAR sheet compare them)."
    ]
    missing = [k.replace("_", " ") for k in ("hit_frequency", "sd") if k not in exact]
    if missing:
        notes.append(f"No {' or '.join(missing)} z: the rules give no cheap exact value.")
    if "sd" in exact:
        notes.append("SD z: standard error from the exact SD and the run's own fourth moment.")
    else:
        notes.append("RTP z: standard error from the run's own SD.")
    if part_names:
        notes.append("Component z: standard error from the run's own variance of the component.")
    return notes


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if not math.isfinite(v) else float(v)
    return v


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def convergence_report(
    stats,
    event_names,
    par=None,
    exact_events: dict | None = None,
    rounds_per_second: float | None = None,
    part_names=(),
    components: dict | None = None,
) -> ConvergenceReport:
    """Compare merged run statistics with the exact figures.

    Parameters
    ----------
    stats : ChunkStats
        Merged statistics of the run (at least one round).
    event_names : sequence of str
    par : ParResult or RoundFigures, optional
        Exact figures; without them the report has no z-scores and the SD
        for the rounds needed is the simulated one.  With
        :class:`RoundFigures` (no distribution) the SD's standard error uses
        the run's own fourth moment, and the win bins have no exact values.
    exact_events : dict, optional
        Exact count per round of events not in the combination table
        (see :func:`exact_event_rates`).
    rounds_per_second : float, optional
    part_names : sequence of str
        Names of the win parts in ``stats.parts``: each is compared with
        the exact RTP component of that name (standard error from the run's
        own variance of the part).
    components : dict, optional
        Exact RTP components by name [x total bet] (default: those of ``par``).
    """
    from slotmath.montecarlo.run import THRESHOLDS, win_bin, win_bin_labels

    n = stats.rounds
    quick = isinstance(par, RoundFigures)
    exact = {} if par is None else exact_figures(par, part_names)
    sim = SimulationResult("", 0, n, 0, stats.moments, exact)
    rows = []
    if par is None:
        mu4 = None
    else:
        mu4 = sample_fourth_moment(stats.moments) if quick else central_fourth_moment(par.distribution)
    for label, name in (("RTP", "rtp"), ("hit frequency", "hit_frequency"), ("SD", "sd")):
        est = getattr(sim, name)
        se = est.se
        z = None
        if est.exact is not None:
            if name == "rtp":
                se = exact["sd"] / math.sqrt(n) if "sd" in exact else est.se
            elif name == "sd":
                se = sd_standard_error(exact["sd"], mu4, n)
            else:
                se = math.sqrt(est.exact * (1 - est.exact) / n)
            z = _z(est.value, est.exact, se)
            if name == "hit_frequency" and n * est.exact < EXACT_COUNT_BELOW:
                z = count_z(round(est.value * n), n * est.exact)
        lo, hi = est.value - Z95 * se, est.value + Z95 * se
        rows.append((label, est.value, se, lo, hi, est.exact, z))
    if components is None:
        components = {} if par is None else par.components
    part_rows = []
    for k, name in enumerate(part_names):
        value, se = stats.part_rtp(k)
        ex = components.get(name)
        ex = None if ex is None else float(ex)
        part_rows.append(
            (f"RTP: {name}", value, se, value - Z95 * se, value + Z95 * se, ex, _z(value, ex, se))
        )
    columns = ["figure", "simulated", "se", "ci_low", "ci_high", "exact", "z"]
    figures = pd.DataFrame(rows, columns=columns)

    rates = exact_event_rates(par, exact_events) if par is not None else dict(exact_events or {})
    ev_rows = []
    for k, name in enumerate(event_names):
        rate, se = stats.event_rate(k)
        ex = rates.get(name)
        exf = None if ex is None else float(ex)
        if not se > 0 and exf:
            se = math.sqrt(exf / n)
        z = _z(rate, exf, se)
        if exf is not None and n * exf < EXACT_COUNT_BELOW:
            z = count_z(int(stats.events[k]), n * exf)
        ev_rows.append(
            (
                name,
                stats.events[k],
                rate,
                se,
                exf,
                # odds only of events: a count per round (is_count) has none (NaN)
                math.nan if is_count(name) else 1 / rate if rate else math.inf,
                math.nan if is_count(name) else 1 / exf if exf else math.inf,
                z,
            )
        )
    events = pd.DataFrame(
        ev_rows, columns=["event", "hits", "per_round", "se", "exact", "one_in", "exact_one_in", "z"]
    )

    bins = win_bin_labels()
    exact_bins = None
    if par is not None and not quick:
        d = par.distribution
        exact_bins = [Fraction(0)] * len(bins) if d.exact else [0.0] * len(bins)
        scale = d.unit_den * d.total_bet
        for w, p in zip(d.wins.tolist(), d.weights.tolist(), strict=True):
            exact_bins[win_bin(float(Fraction(int(w), scale)), THRESHOLDS)] += p
        exact_bins = [float(Fraction(b) / d.total) if d.exact else b / d.total for b in exact_bins]
    h_rows = []
    for k, label in enumerate(bins):
        c = stats.histogram[k]
        p = c / n
        ex = None if exact_bins is None else exact_bins[k]
        q = p if ex is None else ex
        se = math.sqrt(q * (1 - q) / n)
        z = _z(p, ex, se)
        if ex is not None and n * ex < EXACT_COUNT_BELOW:
            z = count_z(int(c), n * ex)
        h_rows.append((label, c, p, se, ex, z))
    histogram = pd.DataFrame(h_rows, columns=["bin", "rounds", "probability", "se", "exact", "z"])

    sd, source = (exact["sd"], "exact") if "sd" in exact else (sim.sd.value, "simulated")
    notes = _quick_notes(exact, part_names, exact_events) if quick else []
    if par is not None and abs(float(par.rtp) - exact["rtp"]) > 1e-9:
        notes.append(
            f"The game's RTP {float(par.rtp):.5%} includes "
            f"{float(par.rtp) - exact['rtp']:+.5%} that no round pays out "
            "(e.g. progressive contributions); the simulated RTP is compared "
            "with the round win's exact mean."
        )
    return ConvergenceReport(
        n,
        figures,
        events,
        histogram,
        float(sd),
        source,
        rounds_for_precision(float(sd)),
        rounds_per_second,
        notes,
        pd.DataFrame(part_rows, columns=columns),
    )
