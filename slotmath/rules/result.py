"""PAR results: the figures of a game at one bet level (:class:`ParResult`,
what every rules' analysis returns) and how exact figures are shown
(fractions abbreviated, the max win's rows, the JSON and text forms).
:func:`slotmath.rules.par.par` computes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pandas as pd

from slotmath.engine.distribution import CONFIDENCE_LEVELS, MaxWin, WinDistribution
from slotmath.io.jsontext import json_text
from slotmath.model import BetLevel, Game


def fraction_str(value: object) -> str | None:
    """``"p/q"`` for an exact Fraction, None for a float."""
    return f"{value.numerator}/{value.denominator}" if isinstance(value, Fraction) else None


#: Longest exact fraction a summary or sheet prints in full [characters].
FRACTION_DISPLAY_LIMIT = 60


#: Significant digits of the decimal expansion an abbreviated fraction shows.
FRACTION_DIGITS = 20


def decimal_digits(value: Fraction, digits: int = FRACTION_DIGITS) -> str:
    """The first ``digits`` significant digits of the decimal expansion of
    ``value``, truncated (not rounded), ``"…"`` after them when more follow:
    exact integer arithmetic, no float."""
    sign = "-" if value < 0 else ""
    num, den = abs(value.numerator), value.denominator
    whole, rest = divmod(num, den)
    out = str(whole)
    significant = len(out.lstrip("0"))
    frac = ""
    while rest and significant < digits:
        rest *= 10
        d, rest = divmod(rest, den)
        frac += str(d)
        if significant or d:
            significant += 1
    return sign + out + ("." + frac if frac else "") + ("…" if rest else "")


def fraction_digest(value: Fraction) -> str:
    """SHA-256 of the fraction's text ``"p/q"`` [hex]: names a long exact
    fraction where it is abbreviated (the whole is in the JSON and in the
    sheet's appendix)."""
    import hashlib

    return hashlib.sha256(str(fraction_str(value)).encode()).hexdigest()


def fraction_short(value: Fraction, limit: int = FRACTION_DISPLAY_LIMIT, lead: str = "exact: ") -> str:
    """An exact fraction for people: ``"p/q"`` when at most ``limit``
    characters, else ``"exact: N-digit fraction, 0.95640517…, SHA-256
    1a2b…"`` (N the digits of numerator and denominator together, the first
    :data:`FRACTION_DIGITS` significant digits of its value, the first 16 hex
    digits of :func:`fraction_digest`); ``lead`` starts the abbreviation
    ("" where the label already says exact)."""
    text = str(fraction_str(value))
    if len(text) <= limit:
        return text
    digits = len(text) - 1 - text.startswith("-")
    return f"{lead}{digits}-digit fraction, {decimal_digits(value)}, SHA-256 {fraction_digest(value)[:16]}"


def fraction_display(value: object) -> str:
    """An exact RTP for people, beside a label that says exact ("RTP exact"):
    ``"p/q"`` when short, else abbreviated without repeating "exact"
    (:func:`fraction_short`; the whole fraction is in the JSON); for a float,
    what its error is."""
    if not isinstance(value, Fraction):
        return "not a fraction (float64 computation, relative error below 1e-12)"
    return fraction_short(value, lead="")


@dataclass(frozen=True, eq=False)
class ParResult:
    """Exact figures of one game at one bet level (frozen: a changed result
    is a new one, :func:`dataclasses.replace`).

    Attributes
    ----------
    game : Game
    bet : BetLevel
    cycle : int
        Equally likely outcomes of the base spin.
    rtp : Fraction or float
        Return to player [x total bet]; a Fraction when exact.
    components : dict
        RTP by channel [x total bet]; the values sum to ``rtp``.
    distribution : WinDistribution
        Total win of a spin (or round) over the cycle.
    combinations : DataFrame
        The combination table (see :func:`slotmath.engine.combinations.combination_table`).
    per_line_rtp : list
        RTP of each payline [x line bet].
    features : dict
        Game-specific figures (JSON-ready).
    tables : dict
        Extra named DataFrames for reports.
    notes : list of str
        Conventions and caveats a reader must know.
    distribution_shortfall : float
        Mean win [x total bet] of the probability mass a float
        ``distribution`` leaves unresolved (0 when it is exact or complete):
        ``distribution.mean + distribution_shortfall`` is the paid RTP.
    max_win : MaxWin or None
        The largest win with non-zero probability and its odds, when the
        rules compute it from the round's structure; None: the top of the
        distribution (see :attr:`true_max_win`).
    """

    game: Game
    bet: BetLevel
    cycle: int
    rtp: Fraction | float
    components: dict
    distribution: WinDistribution
    combinations: pd.DataFrame
    per_line_rtp: list = field(default_factory=list)
    features: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    distribution_shortfall: float = 0.0
    max_win: MaxWin | None = None

    # ------------------------------------------------------------ figures
    @property
    def paid_rtp(self) -> Fraction | float:
        """Mean win a round pays [x total bet]: the RTP less any component no
        round pays out (a progressive meter), from the distribution and its
        ``distribution_shortfall``."""
        d = self.distribution.mean
        return d + self.distribution_shortfall if self.distribution_shortfall else d

    @property
    def max_win_label(self) -> str:
        """Name of the distribution's top win: max win, or largest resolved
        win when the distribution leaves a tail unresolved (uncapped
        retriggers have no largest win)."""
        return "largest resolved win" if self.distribution_shortfall else "max win"

    @property
    def true_max_win(self) -> MaxWin:
        """The largest win with non-zero probability [x total bet] and its
        odds: :attr:`max_win` when the rules give it, else the top of the
        distribution (exact when its weights are hit counts and it leaves no
        tail)."""
        if self.max_win is not None:
            return self.max_win
        top = self.distribution.top()
        if self.distribution_shortfall:
            return MaxWin(top.value, top.probability, False, "largest resolved win (a lower bound)")
        return top

    @property
    def hit_frequency(self) -> float:
        """Probability that a round pays [probability]."""
        return float(self.distribution.hit_frequency)

    @property
    def sd(self) -> float:
        """Standard deviation of a round's win [x total bet]."""
        return self.distribution.sd

    @property
    def volatility_index(self) -> dict:
        """Volatility index by confidence ``{"90": vi, ...}`` [x total bet]."""
        return {str(round(c * 100)): self.distribution.volatility_index(c) for c in CONFIDENCE_LEVELS}

    def confidence_table(self) -> pd.DataFrame:
        """Payback range after N spins at 90/95/99 % [x total bet]."""
        rtp = float(self.rtp)
        frames = []
        for c in CONFIDENCE_LEVELS:
            t = self.distribution.confidence_table(confidence=c)
            shift = rtp - float(self.distribution.mean)
            t["low"] += shift
            t["high"] += shift
            t.insert(0, "confidence", c)
            frames.append(t)
        return pd.concat(frames, ignore_index=True)

    @property
    def summary(self) -> pd.DataFrame:
        """The headline figures as numbers, to compute on.

        Returns
        -------
        DataFrame
            Index ``figure``, the figure's name with its unit (``"RTP [x total
            bet]"``, ``"RTP lines [x total bet]"`` per component, ``"hit
            frequency [probability]"``, ``"SD [x total bet]"``, ``"max win [x
            total bet]"`` (the true maximum, :attr:`true_max_win`; NaN when
            there is none), ...); one float column ``value``.  The exact RTP is :attr:`rtp`; formatted figures
            are shown by :meth:`print_summary` and in a notebook.
        """
        d = self.distribution
        top = self.true_max_win
        rows: list[tuple[str, object]] = [
            ("total bet [coins]", self.bet.total_bet),
            ("cycle [outcomes]", self.cycle),
            ("RTP [x total bet]", self.rtp),
        ]
        rows += [(f"RTP {k} [x total bet]", v) for k, v in self.components.items()]
        rows += [
            ("hit frequency [probability]", self.hit_frequency),
            ("SD [x total bet]", self.sd),
        ]
        rows += [(f"volatility index {k} % [x total bet]", v) for k, v in self.volatility_index.items()]
        rows += [
            ("max win [x total bet]", top.value),
            ("max win probability [probability]", top.probability),
            ("largest win shown in the distribution [x total bet]", d.max_win),
            ("largest win shown in the distribution: probability [probability]", d.max_win_probability),
        ]
        index = pd.Index([name for name, _ in rows], name="figure")
        # NaN where the figure does not exist (no largest win under unlimited retriggers)
        values = [float("nan") if v is None else float(v) for _, v in rows]  # type: ignore[arg-type]
        return pd.DataFrame({"value": values}, index=index)

    def _summary_display(self) -> pd.DataFrame:
        """The headline figures formatted for people, a (figure, value) table of text."""
        d = self.distribution
        rows = [
            ("game", self.game.title),
            ("bet level", self.bet.level),
            ("total bet [coins]", self.bet.total_bet),
            ("cycle", self.cycle),
            ("RTP", f"{float(self.rtp):.6%}"),
            ("RTP exact", fraction_display(self.rtp)),
        ]
        # round-off below the last digit (a round cap that never binds) is 0, not -0.000000%
        rows += [
            (f"  {k}", f"{float(v):.6%}".replace("-0.000000%", "0.000000%"))
            for k, v in self.components.items()
        ]
        rows += [
            (
                "hit frequency",
                f"{self.hit_frequency:.6%} (1 in {1 / self.hit_frequency:.4g})"
                if self.hit_frequency
                else "0",
            ),
            ("SD [x total bet]", f"{self.sd:.6g}"),
        ]
        rows += [(f"VI {k} %", f"{v:.6g}") for k, v in self.volatility_index.items()]
        p = float(d.max_win_probability)
        shown = "largest win shown in the distribution"
        rows += [
            (f"{shown} [x total bet]", f"{float(d.max_win):.6g}"),
            (f"{shown}: odds", f"1 in {1 / p:.6g}" if p else "n/a"),
        ]
        rows += max_win_rows(self.true_max_win)
        return pd.DataFrame(rows, columns=["figure", "value"])

    def print_summary(self) -> None:
        """Print the summary, the combination table and the notes."""
        print(self.text())

    def text(self) -> str:
        """Readable plain-text PAR summary."""
        parts = [
            f"PAR sheet: {self.game.title} ({self.game.name}), bet level {self.bet.level}",
            summary_text(self._summary_display()),
            "",
            "Combination table",
            format_combinations(self.combinations),
        ]
        for name, table in self.tables.items():
            parts += ["", name, table_text(table)]
        if self.notes:
            parts += ["", "Notes"] + [f"- {n}" for n in self.notes]
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        """The summary, combination table and notes, formatted, for a notebook."""
        html = [
            f"<h3>{self.game.title}: bet level {self.bet.level}</h3>",
            self._summary_display().to_html(index=False, header=False),
            "<h4>Combination table</h4>",
            self.combinations.drop(columns="rtp_exact").to_html(index=False),
        ]
        html += [f"<p>{n}</p>" for n in self.notes]
        return "\n".join(html)

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """JSON-ready figures (the ``slotmath par --json`` object)."""
        d = self.distribution
        comb = self.combinations.drop(columns="rtp_exact").to_dict(orient="records")
        return {
            "game": self.game.name,
            "title": self.game.title,
            "bet": self.bet.level,
            "bet_levels": self.game.levels,
            "total_bet": self.bet.total_bet,
            "rtp": float(self.rtp),
            "rtp_exact": fraction_str(self.rtp),
            "hit_frequency": self.hit_frequency,
            "sd": self.sd,
            "volatility_index": self.volatility_index,
            **max_win_json(self.true_max_win),
            "distribution_max_win": float(d.max_win),
            "distribution_max_win_probability": float(d.max_win_probability),
            "cycle": self.cycle,
            "components": {k: float(v) for k, v in self.components.items()},
            "components_exact": {k: fraction_str(v) for k, v in self.components.items()},
            "per_line_rtp": [float(v) for v in self.per_line_rtp],
            "confidence": self.confidence_table().to_dict(orient="records"),
            "combinations": comb,
            "features": self.features,
            "notes": self.notes,
        }

    def to_json(self, **kw: Any) -> str:
        return json_text(self.to_dict(), **kw)


#: Summary label of the true maximum win.
MAX_WIN_LABEL = "max win (largest with non-zero probability)"


def summary_text(rows: pd.DataFrame) -> str:
    """A (figure, value) table as text: the figures in one column, the values
    left-aligned after them (a long value does not push the others right)."""
    width = max(len(str(f)) for f in rows["figure"])
    return "\n".join(f"{f!s:<{width}}  {v}" for f, v in zip(rows["figure"], rows["value"], strict=True))


def max_win_rows(top: MaxWin) -> list:
    """(figure, value) rows of the true maximum win: value [x total bet],
    odds, and how it was found."""
    if top.value is None:
        value = "none: no largest win"
    else:
        value = (
            f"{float(top.value):.6g}"
            if top.probability is not None
            else f"at most {float(top.value):.6g} (a bound)"
        )
    odds = f"1 in {top.one_in:.6g}" if top.one_in else "not computed"
    if top.one_in and not top.exact:
        odds += " (float)"
    return [
        (f"{MAX_WIN_LABEL} [x total bet]", value),
        (f"{MAX_WIN_LABEL}: odds", odds),
        (f"{MAX_WIN_LABEL}: how", ("exact: " if top.exact else "") + top.how),
    ]


def max_win_json(top: MaxWin) -> dict:
    """JSON fields of the true maximum win (``max_win`` [x total bet],
    ``max_win_odds`` [1 in N], exact fractions when exact)."""
    return {
        "max_win": None if top.value is None else float(top.value),
        "max_win_exact": fraction_str(top.value),
        "max_win_probability": None if top.probability is None else float(top.probability),
        "max_win_probability_exact": fraction_str(top.probability),
        "max_win_odds": top.one_in,
        "max_win_is_exact": top.exact,
        "max_win_how": top.how,
    }


def table_text(table: pd.DataFrame) -> str:
    """A report table as aligned text; a ``share of RTP`` column in %.  The
    numbers of a column that also holds words ("< 1e-15", "over 1e+15") are
    written with 7 significant digits, as pandas writes a column of small
    numbers (its fixed notation would print 1.3e-07 as 0.0)."""
    t = table.copy()
    for c in t.columns:
        if str(c).startswith("share of RTP"):
            t[c] = t[c].map(lambda v: f"{v:.4%}")
        elif t[c].dtype == object and any(isinstance(v, float) for v in t[c]):
            t[c] = pd.Series([f"{v:.6e}" if isinstance(v, float) else v for v in t[c]], t.index, dtype=object)
    return t.to_string(index=False)


#: Columns of the combination table: hits / cycle is the expected number of
#: hits per spin summed over all lines (it can exceed 1), not a probability.
WIN_COINS = "win [coins]"
HITS_PER_SPIN = "hits per spin [hits / cycle]"
SPINS_PER_HIT = "spins per hit [cycle / hits]"


def format_combinations(table: pd.DataFrame) -> str:
    """The combination table as aligned text, its columns named with their
    units as on the sheet (:data:`WIN_COINS`, :data:`HITS_PER_SPIN`,
    :data:`SPINS_PER_HIT`; a line game's hits / cycle sums its lines: it can
    exceed 1).  An empty table (a bought round: no base spin) is one line
    saying so, not pandas' ``Empty DataFrame`` dump."""
    if table.empty:
        return "(none: no pay of the pay table or the scatter pays is paid on a base spin of this round)"
    t = table.drop(columns="rtp_exact").copy()
    t["probability"] = t["probability"].map(lambda v: f"{v:.6e}")
    t["one_in"] = t["one_in"].map(lambda v: f"{v:,.2f}")
    t["rtp"] = t["rtp"].map(lambda v: f"{v:.6%}")
    names = {"win": WIN_COINS, "probability": HITS_PER_SPIN, "one_in": SPINS_PER_HIT, "rtp": "RTP"}
    return t.rename(columns=names).to_string(index=False)
