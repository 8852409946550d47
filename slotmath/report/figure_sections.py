"""Sections of a PAR sheet that hold the game's figures: summary, odds and
bet levels, volatility, win distribution, player sessions, feature sheets,
the Monte Carlo cross-check and notes.  Each builder takes the
:class:`~slotmath.report.sheet.ParSheet` and returns a
:class:`~slotmath.report.sheettable.Section` or a table.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import pandas as pd

from slotmath.engine.distribution import CONFIDENCE_LEVELS, WIN_EDGES, MaxWin, z_value
from slotmath.montecarlo.convergence import is_count
from slotmath.report import plots
from slotmath.report.featuresheet import feature_tables, walk_estimates, walk_scalars
from slotmath.report.sheetparts import (
    FIGURE_NAMES,
    agreement_word,
    channel_groups,
    coin_values,
    finite,
    volatility_class,
)
from slotmath.report.sheettable import (
    Section,
    Table,
    exact_str,
    figure_table,
    format_value,
    human,
    label,
)
from slotmath.rules.result import (
    FRACTION_DISPLAY_LIMIT,
    MAX_WIN_LABEL,
    fraction_digest,
    fraction_display,
    fraction_str,
)

if TYPE_CHECKING:
    from slotmath.report.sheet import ParSheet

#: Least gap between the RTP and the mean win a round pays [x total bet] that
#: the sheet reports as RTP no round pays (a progressive meter); below it the
#: gap is the float rounding of a float round law (about 1e-12 and less).
UNPAID_TOLERANCE = 1e-9


#: Label of the top of the distribution the sheet shows (float distributions
#: drop probabilities below 1e-15, so it may lie below the true maximum).
SHOWN_TOP = "largest win shown in the distribution"


def max_win_figures(top: MaxWin) -> list:
    """Summary rows (label, value, format) of the true maximum win."""
    if top.value is None:
        value: tuple = (f"{MAX_WIN_LABEL} [x total bet]", "none: no largest win", "text")
    elif top.probability is None:
        value = (f"{MAX_WIN_LABEL} [x total bet]", f"at most {float(top.value):,.6g} (a bound)", "text")
    else:
        value = (f"{MAX_WIN_LABEL} [x total bet]", float(top.value), "x")
    odds = (f"{MAX_WIN_LABEL}: 1 in N spins", top.one_in, "odds")
    if top.one_in is None:
        odds = (odds[0], "not computed", "text")
    how = (f"{MAX_WIN_LABEL}: how found", ("exact: " if top.exact else "float: ") + top.how, "text")
    return [value, odds, how]


def largest_net(top: MaxWin, spins: int, lower_bound: bool = False):
    """Largest net result of ``spins`` spins [x total bet]: ``spins x (max win
    - 1)`` of the true maximum win, worded as the summary words it (a bound
    says "at most", a ``lower_bound`` "at least", no largest win "none")."""
    if top.value is None:
        return "none: unbounded (no largest win)"
    net = spins * (float(top.value) - 1.0)
    if lower_bound:
        return f"at least {net:,.6g} (a lower bound)"
    return net if top.probability is not None else f"at most {net:,.6g} (a bound)"


def payback_limits(top: MaxWin, lower_bound: bool = False) -> str:
    """The range of a session's payback [x amount bet] in words: from 0 to
    the true maximum win (or its bound, or without a top)."""
    if top.value is None:
        return "the payback is at least 0, with no upper limit (the game has no largest win)"
    if lower_bound:
        return f"the payback is at least 0; the max win is at least {float(top.value):,.6g}"
    if top.probability is None:
        return f"the payback is between 0 and at most {float(top.value):,.6g} (a bound on the max win)"
    return f"the payback stays between 0 and the max win, {float(top.value):,.6g}"


def max_win_is_lower_bound(par) -> bool:
    """Whether the true maximum win of ``par`` (a ParResult) is only the
    largest win its float distribution resolves (a lower bound)."""
    return par.max_win is None and bool(par.distribution_shortfall)


def summary(sheet: ParSheet) -> Section:
    r, d = sheet.par, sheet.par.distribution
    rtp = float(r.rtp)
    hit = r.hit_frequency
    pmax = float(d.max_win_probability)
    vi = r.volatility_index
    rows = [
        ("RTP [x total bet]", rtp, "pct6"),
        (
            "RTP exact",
            fraction_display(r.rtp),
            "text",
        ),
        ("hit frequency: paying spins [probability]", hit, "pct"),
        ("hit frequency: 1 in N spins", 1 / hit if hit else None, "odds"),
        ("SD [x total bet]", r.sd, "num"),
    ]
    rows += [(f"VI {k} % [x total bet]", v, "num") for k, v in vi.items()]
    rows += [
        ("volatility class (by VI 90 %)", volatility_class(vi["90"]), "text"),
        (f"{SHOWN_TOP} [x total bet]", float(d.max_win), "x"),
        (f"{SHOWN_TOP}: 1 in N spins", 1 / pmax if pmax else None, "odds"),
        *max_win_figures(r.true_max_win),
        ("cycle", r.cycle, "int"),
        ("total bet [coins]", r.bet.total_bet, "int"),
    ]
    coins, currency = coin_values(sheet.game)
    if coins:
        rows.append(
            (
                f"total bet [{currency}] at coin values {coins[0]:.2f} to {coins[-1]:.2f}",
                f"{coins[0] * r.bet.total_bet:,.2f} to {coins[-1] * r.bet.total_bet:,.2f}",
                "text",
            )
        )
    feats = r.features if isinstance(r.features, dict) else {}
    if isinstance(feats.get("policy"), str):
        rows.append(
            (
                "player choice assumed by every figure of this sheet",
                f"always {human(feats['policy'])}",
                "text",
            )
        )
        for pol, value in (feats.get("by_choice") or {}).items():
            rows.append((f"RTP if the player always chooses {human(pol)}", float(value), "pct6"))
    headline = figure_table(
        "Headline figures",
        rows,
        note=(
            "Hit frequency counts spins (rounds, where features follow a spin) paying "
            "anything: all lines, scatters and features together, not per-line hits. "
            "Volatility class: low below VI 90 % = 5, medium 5 to 10, high 10 to 20, very "
            "high above 20."
        ),
    )
    channels = pd.DataFrame(
        {
            "component": [human(k) for k in r.components] + ["total"],
            "RTP [x total bet]": [float(v) for v in r.components.values()] + [rtp],
            "share of RTP": [float(v) / rtp if rtp else 0.0 for v in r.components.values()]
            + [1.0 if rtp else 0.0],
            "exact": [exact_str(v) for v in r.components.values()] + [exact_str(r.rtp)],
        }
    )
    shown, caption = channel_groups(r.components)
    by_channel = Table(
        "RTP by component",
        channels,
        {"RTP [x total bet]": "pct6", "share of RTP": "pct", "exact": "text"},
        total_row=True,
        figures=[(caption, lambda: plots.rtp_by_channel(shown, r.rtp))],
        note="'exact' is blank where a component is computed in float64.",
    )
    tables = [
        headline,
        by_channel,
        Table(
            "Plays per feature and per jackpot",
            odds_frame(sheet),
            {"1 in N spins": "odds", "probability per spin": "prob"},
        ),
        Table(
            "Figures by bet level",
            levels_frame(sheet),
            {
                "RTP": "pct6",
                "RTP exact": "text",
                "hit frequency": "pct",
                "SD [x total bet]": "num",
                "VI 90 % [x total bet]": "num",
                f"{SHOWN_TOP} [x total bet]": "x",
                "total bet [coins]": "int",
            },
        ),
    ]
    return sheet._section("summary", tables)


def odds_frame(sheet: ParSheet) -> pd.DataFrame:
    """Plays per feature, jackpot and top award: 1 in N spins.  An event
    the rules module reports under several names is listed once."""
    rows = []
    c = sheet.par.combinations
    if len(c):
        top = c.loc[c["win"].astype(float).idxmax()]
        mult = f" (x{top['multiplier']})" if top["multiplier"] != 1 else ""
        rows.append((f"top award: {top['combination']}{mult}", float(top["one_in"]), "combination table"))
    for _, row in c[~c["kind"].isin(["line", "ways", "anywhere", "cluster", "scatter"])].iterrows():
        rows.append(
            (f"{human(row['kind'])}: {row['combination']}", float(row["one_in"]), "combination table")
        )
    seen: set = set()  # 1 in N values already listed: one event under several keys
    for path, value in walk_scalars(sheet.par.features):
        leaf = path[-1]
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and (leaf == "one_in" or leaf.endswith("_one_in") or leaf.startswith("plays_per"))
        ):
            key = f"{float(value):.12g}"
            if key in seen:
                continue
            seen.add(key)
            parts = [human(p) for p in path if p not in ("one_in", "odds")]
            if leaf.endswith("_one_in"):
                parts[-1] = human(leaf[: -len("_one_in")])
            rows.append((": ".join(parts), float(value), "features"))
    pmax = float(sheet.par.distribution.max_win_probability)
    rows.append(
        (
            f"{SHOWN_TOP} ({float(sheet.par.distribution.max_win):g}x total bet)",
            1 / pmax if pmax else None,
            "win distribution",
        )
    )
    top = sheet.par.true_max_win
    if top.value is not None and top.one_in is not None:
        rows.append(
            (
                f"{MAX_WIN_LABEL} ({float(top.value):g}x total bet)",
                top.one_in,
                "exact support" if top.exact else "support of the round (float)",
            )
        )
    return pd.DataFrame(
        {
            "event": [r[0] for r in rows],
            "1 in N spins": [r[1] for r in rows],
            "probability per spin": [1 / r[1] if r[1] else 0.0 for r in rows],
            "source": [r[2] for r in rows],
        }
    )


def levels_frame(sheet: ParSheet) -> pd.DataFrame:
    """RTP, hit frequency, SD, VI 90 % and max win at every bet level."""
    rows = []
    for lv, figs in sheet.levels.items():
        rows.append(
            {
                "bet level": lv,
                "total bet [coins]": sheet.game.bet(lv).total_bet,
                "RTP": float(figs["rtp"]),
                "RTP exact": exact_str(figs["rtp"]) or "float64",
                "hit frequency": float(figs["hit_frequency"]),
                "SD [x total bet]": float(figs["sd"]),
                "VI 90 % [x total bet]": float(figs["vi"]),
                f"{SHOWN_TOP} [x total bet]": float(figs["max_win"]),
            }
        )
    return pd.DataFrame(rows)


def volatility(sheet: ParSheet) -> Section:
    r = sheet.par
    rows = [("SD [x total bet]", None, r.sd, "num")]
    rows += [
        (f"VI {round(c * 100)} %", z_value(c), r.volatility_index[str(round(c * 100))], "num")
        for c in CONFIDENCE_LEVELS
    ]
    vol = figure_table(
        "Standard deviation and volatility index",
        rows,
        columns=("figure", "z", "value [x total bet]"),
        note="VI = z x SD of the total win of a spin; z is the two-sided normal quantile.",
    )
    conf = payback_table(sheet)
    wide = pd.DataFrame({"spins N": sorted(set(conf["spins"]))})
    formats = {"spins N": "int"}
    for c in CONFIDENCE_LEVELS:
        t = conf[conf["confidence"] == c].set_index("spins")
        for side in ("low", "high"):
            col = f"{c:.0%} {side}"
            wide[col] = wide["spins N"].map(t[side])
            formats[col] = "pct2"
    d = r.distribution
    note = (
        "Exact: the low and high ends are the (1 - c)/2 and (1 + c)/2 quantiles of the "
        "payback (total win / amount bet) of N spins, from the N-fold convolution of "
        "the exact per-spin distribution (see Player sessions for its error bound); "
        f"{payback_limits(r.true_max_win, max_win_is_lower_bound(r))}. The normal approximation RTP +- "
        "VI / sqrt(N) is not used: it fails for heavy-tailed wins."
    )
    paid = float(r.paid_rtp)
    if abs(float(r.rtp) - paid) > UNPAID_TOLERANCE:
        note += (
            f" The payback counts the wins paid to the player ({paid:.4%} "
            f"of the bet on average), not the {float(r.rtp) - paid:.4%} of "
            "the RTP that is not a spin win."
        )
    band = Table(
        "Payback range after N spins",
        wide,
        formats,
        note=note,
        figures=[
            (
                "Payback range after N spins at 90, 95 and 99 % confidence (exact quantiles).",
                lambda: plots.confidence_band(conf, d.mean),
            )
        ],
    )
    return sheet._section("volatility", [vol, band])


def payback_table(sheet: ParSheet) -> pd.DataFrame:
    """Exact payback interval after each session length at 90/95/99 %:
    columns confidence, spins, low, high [x amount bet]."""
    rows = [(c, s.spins, *s.payback_interval(c)) for c in CONFIDENCE_LEVELS for s in sheet.sessions]
    return pd.DataFrame(rows, columns=["confidence", "spins", "low", "high"])


def win_bands(d) -> pd.DataFrame:
    """A win law (:class:`~slotmath.engine.distribution.WinDistribution`) by
    win size: no win, then each range of :data:`WIN_EDGES` [x total bet],
    with its probability, 1 in N, share of the paid RTP and cumulative share."""
    x, p = d.x, d.probabilities
    rtp = float(d.mean)
    rows = [{"win [x total bet]": "no win", "probability": float(p[x == 0].sum())}]
    edges = [e for e in (0, *WIN_EDGES) if e < x.max()] + [math.inf]
    for lo, hi in itertools.pairwise(edges):
        m = (x > lo) & (x < hi) if lo == 0 else (x >= lo) & (x < hi)
        label = (
            f"above 0, below {hi:g}"
            if lo == 0
            else f"{lo:g} to below {hi:g}"
            if hi != math.inf
            else f"{lo:g} and above"
        )
        rows.append(
            {
                "win [x total bet]": label,
                "probability": float(p[m].sum()),
                "RTP share": float((x[m] * p[m]).sum()) / rtp if rtp else 0.0,
            }
        )
    bands = pd.DataFrame(rows)
    bands["1 in N"] = [1 / v if v else math.inf for v in bands["probability"]]
    bands["cumulative RTP share"] = bands["RTP share"].fillna(0).cumsum()
    bands = bands[["win [x total bet]", "probability", "1 in N", "RTP share", "cumulative RTP share"]]
    return bands


def distribution(sheet: ParSheet) -> Section:
    d = sheet.par.distribution
    x, p = d.x, d.probabilities
    rtp = float(d.mean)
    bands = win_bands(d)
    ex = d.exceedance_table(exceedance_ladder(float(x.max()), float(d.max_win)))
    ex.columns = ["win at least [x total bet]", "probability", "1 in N"]
    full = d.to_frame()
    full = pd.DataFrame(
        {
            "win [x total bet]": full["win"],
            "weight": full["weight"],
            "probability": full["probability"],
            "P(win >= x)": full["probability"][::-1].cumsum()[::-1],
        }
    )
    figures = [
        ("Probability per spin by win size (log scales).", lambda: plots.win_histogram(x, p)),
        (
            "Cumulative share of the RTP paid by wins up to each size.",
            lambda: plots.cumulative_rtp(x, p, rtp),
        ),
    ]
    paid = float(sheet.par.rtp) - rtp
    share_note = (
        ""
        if abs(paid) < 1e-12
        else f"Shares are of the return paid as spin wins ({rtp:.4%}); the other "
        f"{paid:.4%} of the RTP is not a spin win (see the RTP by channel)."
    )
    tables = [
        Table(
            "Wins by size",
            bands,
            BAND_FORMATS,
            figures=figures,
            note=share_note,
        ),
        Table(
            "P(win >= x)",
            ex,
            {"win at least [x total bet]": "x", "probability": "prob", "1 in N": "odds"},
        ),
        Table(
            "Distribution of the total win of a spin",
            full,
            {
                "win [x total bet]": "x",
                "probability": "prob",
                "P(win >= x)": "prob",
                "weight": "int" if d.exact else "prob",
            },
            html=False,
            note="Weights are hit counts over the cycle."
            if d.exact
            else "Weights are probabilities (float64).",
        ),
    ]
    return sheet._section("distribution", tables)


#: Note on the probabilities a session table cannot resolve.
BELOW_BOUND = ' A probability below its own error bound is shown as "< bound".'


def exceedance_ladder(top: float, max_win: float) -> list:
    """Thresholds of the P(win >= x) table [x total bet]: 0.01 and the win
    bands up to ``top`` (the largest win), then the max win, each once."""
    return sorted({*(t for t in (0.01, *WIN_EDGES) if t <= top), max_win})


def resolved(probability: float, bound: float):
    """A computed probability as shown: the number, or ``"< bound"`` when
    it is below its own error bound (not resolved by the float64 FFT)."""
    return probability if probability >= bound else f"< {format_value(bound, 'pctp')}"


#: Label of a session's largest net result from the distribution's top win
#: (float distributions drop probabilities below 1e-15, so it may lie below
#: the true largest result).
SESSION_TOP = "largest net result resolved in the distribution"


def sessions(sheet: ParSheet) -> Section:
    top, lower = sheet.par.true_max_win, max_win_is_lower_bound(sheet.par)
    labels = [f"{s.spins:,} spins" for s in sheet.sessions]
    spec = [
        ("expected net result [x total bet]", lambda s: s.mean, "x"),
        ("SD of the net result [x total bet]", lambda s: s.sd, "x"),
        ("P(ahead: net result > 0)", lambda s: resolved(s.p_ahead, s.cdf_error_bound), "pctp"),
        ("P(exactly even)", lambda s: resolved(s.p_even, s.error_bound), "pctp"),
        (
            "P(lose half the stake or more)",
            lambda s: resolved(s.p_at_most(-s.spins / 2), s.cdf_error_bound),
            "pctp",
        ),
    ]
    spec += [
        (f"{q:.0%} quantile of the net result [x total bet]", lambda s, q=q: s.quantile(q), "x")
        for q in (0.05, 0.25, 0.5, 0.75, 0.95)
    ]
    spec += [
        ("largest possible net result [x total bet]", lambda s: largest_net(top, s.spins, lower), "x"),
        (f"{SESSION_TOP} [x total bet]", lambda s: s.max_net, "x"),
        ("top of the exact lattice [x total bet]", lambda s: s.upper, "x"),
        ("P(net result above the top of the lattice)", lambda s: s.tail, "prob"),
        ("bound on the error of a probability", lambda s: s.error_bound, "prob"),
        ("bound on the error of a cumulative probability", lambda s: s.cdf_error_bound, "prob"),
    ]
    rows = [(name, *[f(s) for s in sheet.sessions], fmt) for name, f, fmt in spec]
    exact = all(s.exact_lattice for s in sheet.sessions)
    note = (
        "Exact lattice convolution of the per-spin distribution (FFT, float64), over the "
        "whole range from losing every bet to the top of the lattice; the probability "
        "above it (up to the largest net result resolved in the distribution, N x (its "
        "largest win - 1)) is one figure; the largest possible net result is N x (max win "
        "- 1) of the game's true max win. "
        "The error bounds follow from the float64 FFT error of each product." + BELOW_BOUND
        if exact
        else "Some wins were moved to a coarser lattice (mean kept) to bound the size; "
        "quantiles are approximate to one lattice step per spin." + BELOW_BOUND
    )
    table = figure_table("Net result of a session", rows, note=note, columns=("figure", *labels))
    return sheet._section(
        "sessions",
        [table],
        [
            (
                "Distribution of the payback of each session length, over the whole range up to "
                "the largest win resolved in the distribution.",
                lambda: plots.session_cdf(sheet.sessions),
            )
        ],
    )


def features(sheet: ParSheet) -> list:
    """The feature sheets: a numbered section per declared feature, holding the
    tables whose titles name it (:func:`slotmath.rules.featuretables.feature_of`),
    in the order of the rules' tables, then (key ``features``) the figures no
    single feature owns; a game without features has the ``features`` section
    alone, saying so."""
    from slotmath.rules.featuretables import TITLES, feature_of

    groups: dict = {}
    rest: list = []
    for t in feature_tables(sheet.par.features, sheet.par.tables, sheet.game):
        name = feature_of(t.title)
        (rest if name is None else groups.setdefault(name, [])).append(t)
    out = [
        Section(
            f"features-{name}",
            f"Feature: {TITLES[name]}",
            TITLES[name][:31],
            tables,
            text=f"{TITLES[name]}: the rules in words, then the exact odds and awards "
            "(per round of the base game unless a column says otherwise).",
        )
        for name, tables in groups.items()
    ]
    if rest or not out:
        text = "" if rest else "This game has no feature beyond its line and scatter pays."
        section = sheet._section("features", rest, text=text)
        if out:
            section.title = "Other feature figures"
        out.append(section)
    return out


#: Column of the events' table: the power of each event's check.
POWER = "power: smallest error detected [% of exact rate]"


def simulation(sheet: ParSheet) -> Section:
    from slotmath.montecarlo.convergence import (
        EXACT_COUNT_BELOW,
        Z_PASS,
        detectable_rate_error,
        detectable_rtp_error,
    )
    from slotmath.montecarlo.run import chunks_text

    sim = sheet.simulation
    if sim is None:
        return sheet._section("simulation", text="No simulation was run (Monte Carlo spins = 0).")
    if isinstance(sim, str):  # the sampler refused the game
        return sheet._section("simulation", text=f"No simulation was run: {sim.split(': ', 1)[-1]}.")
    d = sim.to_dict()
    head = (
        f"Simulated: {d.get('spins', 0):,} rounds, seed {d.get('seed')}"
        + (
            f", {chunks_text(d['rounds'], d['chunks'], d['chunk'])} (the "
            "result does not depend on the number of processes)"
            if "chunks" in d
            else ""
        )
        + "."
    )
    conv = getattr(sim, "convergence", None)
    if conv is None:
        return sheet._section("simulation", [estimates_table(sheet, d)], text=head)
    f = conv.figures
    paid = float(sheet.par.paid_rtp)
    differs = abs(float(sheet.par.rtp) - paid) > UNPAID_TOLERANCE
    names = {
        "RTP": "RTP paid as round wins" if differs else "RTP",
        "hit frequency": "hit frequency",
        "SD": "SD",
    }
    row_fmt = {"RTP": "pct6", "hit frequency": "pct6", "SD": "num"}
    figures = pd.DataFrame(
        {
            "figure": [names[x] for x in f["figure"]],
            "exact": f["exact"],
            "simulated": f["simulated"],
            "standard error": f["se"],
            "95 % CI low": f["ci_low"],
            "95 % CI high": f["ci_high"],
            "z": f["z"],
        }
    )
    figures["check"] = [agreement_word(z) for z in f["z"]]
    rows_fmt = [row_fmt[x] for x in f["figure"]]
    table = Table(
        "RTP, hit frequency and SD",
        figures,
        {"z": "z", "check": "text"},
        row_formats=rows_fmt,
        note="z = (simulated - exact) / standard error; a check passes when "
        f"|z| < {Z_PASS:g}. Standard errors are those of the exact "
        "distribution: the RTP's is SD / sqrt(N); the SD's comes from the "
        "exact fourth moment mu4 of the round win, sqrt((mu4 - SD^4) / N) "
        "/ (2 SD), which holds for heavy-tailed wins.",
    )
    tables = [table]
    parts = conv.components
    if len(parts):
        tables.append(
            Table(
                "RTP by component: simulated against exact",
                pd.DataFrame(
                    {
                        "component": [human(x.removeprefix("RTP: ")) for x in parts["figure"]],
                        "exact": parts["exact"],
                        "simulated": parts["simulated"],
                        "standard error": parts["se"],
                        "z": parts["z"],
                        "check": [agreement_word(z) for z in parts["z"]],
                    }
                ),
                {"exact": "pct6", "simulated": "pct6", "standard error": "pct6", "z": "z", "check": "text"},
                note="Each round's win split by component [x total bet]; standard error "
                "from the run's own variance of the component, sqrt(var / N).",
            )
        )
    sd = float(sheet.par.distribution.sd)
    power = [
        ("rounds simulated", int(conv.rounds), "int"),
        (
            "smallest RTP error the check detects (|z| >= 4) [x total bet]",
            detectable_rtp_error(sd, conv.rounds),
            "pct",
        ),
        ("rounds for the RTP to +-0.01 percentage points at 95 %", conv.rounds_needed, "odds"),
    ]
    tables.append(figure_table("Power of the check", power))
    e = conv.events
    if len(e):
        counts = [is_count(x) for x in e["event"]]  # no odds for what is not an event
        events = pd.DataFrame(
            {
                "event": [human(x) for x in e["event"]],
                "hits": e["hits"],
                "simulated per round": [finite(float(v)) for v in e["per_round"]],
                "exact per round": [None if v is None else finite(float(v)) for v in e["exact"]],
                "simulated 1 in N": [
                    None if c else finite(v) for c, v in zip(counts, e["one_in"], strict=True)
                ],
                "exact 1 in N": [
                    None if c else finite(v) for c, v in zip(counts, e["exact_one_in"], strict=True)
                ],
                "z": e["z"],
                "check": [agreement_word(z) for z in e["z"]],
                POWER: [
                    detectable_rate_error(None if x is None else float(x), float(se), int(conv.rounds))
                    for x, se in zip(e["exact"], e["se"], strict=True)
                ],
            }
        )
        tables.append(
            Table(
                "Pays and features: simulated against exact frequency",
                events,
                {
                    "hits": "int",
                    "simulated per round": "num",
                    "exact per round": "num",
                    "simulated 1 in N": "odds",
                    "exact 1 in N": "odds",
                    "z": "z",
                    "check": "text",
                    POWER: "pct",
                },
                note=f"Events expected fewer than {EXACT_COUNT_BELOW} times are "
                "tested with the exact Poisson tail probability (its z is "
                "the equivalent normal quantile); 1 in N is blank for an "
                "event never seen, and for a count that is not an event (games "
                "played, the award in prize steps), whose figure is its mean per round. "
                f"Power: the smallest error of the rate the check flags (|z| >= {Z_PASS:g}), "
                "as a % of the exact rate (Z x standard error / exact). Jackpot rows count "
                "every jackpot the sampler pays (its hits per round).",
            )
        )
    h = conv.histogram
    h = h[(h["rounds"] > 0) | (h["exact"].fillna(0) > 0)]
    tables.append(
        Table(
            "Rounds by win size [x total bet]",
            pd.DataFrame(
                {
                    "win [x total bet]": ["no win" if b == "0" else b for b in h["bin"]],
                    "rounds": h["rounds"].tolist(),
                    "simulated": h["probability"].tolist(),
                    "exact": h["exact"].tolist(),
                    "z": h["z"].tolist(),
                    "check": [agreement_word(z) for z in h["z"]],
                }
            ),
            {"rounds": "int", "simulated": "prob", "exact": "prob", "z": "z", "check": "text"},
            note=f"Largest |z| over all rows: {conv.max_abs_z:.2f}.",
        )
    )
    notes = [n for n in conv.notes]
    failing = [
        f"{t.title}: {row[0]}"
        for t in tables
        if "check" in t.frame.columns
        for row in t.frame.itertuples(index=False)
        if row[-1] == "fails"
    ]
    text = head
    if notes:
        text += " " + " ".join(notes)
    if failing:
        text += (
            f" {len(failing)} check{'s' * (len(failing) != 1)} failed ("
            + "; ".join(failing[:5])
            + "): a failing check means the simulation and "
            "the exact figures disagree by more than chance allows; the sheet must "
            "not be published until the cause is found."
        )
    return sheet._section("simulation", tables, text=text)


def estimates_table(sheet: ParSheet, d: dict) -> Table:
    rows = []
    for path, est in walk_estimates(d):
        z = est.get("z")
        lo, hi = est.get("ci95") or (None, None)
        rows.append(
            {
                "figure": " / ".join(FIGURE_NAMES.get(p, label(p)) for p in path),
                "exact": est.get("exact"),
                "simulated": est["value"],
                "standard error": est.get("se"),
                "95 % CI low": lo,
                "95 % CI high": hi,
                "z": z,
                "agrees (|z| < 4)": agreement_word(z),
            }
        )
    fmt = {c: "num" for c in ("exact", "simulated", "standard error", "95 % CI low", "95 % CI high")}
    fmt["z"] = "odds"
    return Table(
        "Simulated figures", pd.DataFrame(rows), fmt, note="z = (simulated - exact) / standard error."
    )


def notes(sheet: ParSheet) -> Section:
    notes = [human(n) for n in sheet.par.notes] + [
        "Figures are per spin (or per round, where a feature follows the spin) and relative "
        "to the total bet unless a unit says otherwise.",
        "Exact figures come from full-cycle counting with integer hit counts; the RTP is "
        "given as an exact fraction where all inputs are integers.",
        "Simulated figures are marked as such and only cross-check the exact ones.",
    ]
    tables = [Table("Notes", pd.DataFrame({"note": notes}))]
    long = long_fractions(sheet)
    if long:
        rows = []
        for name, value in long:
            digest = fraction_digest(value)[:16]
            rows.append(
                {"figure": name, "SHA-256": digest, "part": "numerator", "digits": grouped(value.numerator)}
            )
            rows.append(
                {
                    "figure": name,
                    "SHA-256": digest,
                    "part": "denominator",
                    "digits": grouped(value.denominator),
                }
            )
        tables.append(
            Table(
                APPENDIX,
                pd.DataFrame(rows),
                note="Each exact fraction the sheet abbreviates ('exact: N-digit fraction'), "
                "named by the first 16 hex digits of the SHA-256 of its text 'p/q', "
                "digits in groups of ten; par.json holds them as 'p/q' too.",
            )
        )
    return sheet._section("notes", tables)


#: Title of the appendix of the exact fractions the sheet abbreviates.
APPENDIX = "Appendix: exact fractions in full"


def grouped(n: int, size: int = 10) -> str:
    """The digits of the integer ``n`` in groups of ``size`` from the left,
    separated by spaces (a line breaks only between groups)."""
    text = str(n)
    return " ".join(text[i : i + size] for i in range(0, len(text), size))


def long_fractions(sheet: ParSheet) -> list:
    """(figure, Fraction) of every exact fraction the sheet abbreviates
    (longer than :data:`FRACTION_DISPLAY_LIMIT` as ``p/q``), each once: the
    RTP, its components, the RTP at every bet level and the combination
    table's RTP contributions, and each bet mode's RTP per unit of cost."""
    r = sheet.par
    found = [("RTP", r.rtp)]
    found += [(f"RTP of bet mode {name} [x cost]", m.rtp) for name, m in sheet.modes.items()]
    found += [(f"RTP: {human(k)}", v) for k, v in r.components.items()]
    found += [(f"RTP at bet level {lv}", figs["rtp"]) for lv, figs in sheet.levels.items()]
    if "rtp_exact" in r.combinations:
        found += [
            (f"RTP of {name} x{m}", v)
            for name, m, v in zip(
                r.combinations["combination"],
                r.combinations["multiplier"],
                r.combinations["rtp_exact"],
                strict=True,
            )
        ]
        found.append(("RTP of the combination table", sum(r.combinations["rtp_exact"], Fraction(0))))
    out, seen = [], set()
    for name, value in found:
        if isinstance(value, Fraction) and len(str(fraction_str(value))) > FRACTION_DISPLAY_LIMIT:
            if value not in seen:
                seen.add(value)
                out.append((name, value))
    return out


def modes_table(sheet: ParSheet) -> Table:
    """Every bet mode of the game side by side: cost, RTP per unit of cost,
    hit frequency, SD per unit of cost, max win and cap (docs/features.md, Bet modes)."""
    rows = []
    for name, m in sheet.modes.items():
        top = m.par.true_max_win
        cap = m.round_cap
        rows.append(
            {
                "mode": name,
                "label": m.mode.label,
                "cost [x total bet]": float(m.cost),
                "RTP [x cost]": float(m.rtp),
                "RTP exact": exact_str(m.rtp),
                "hit frequency [probability]": m.par.hit_frequency,
                "SD [x cost]": m.par.sd / float(m.cost),
                "max win [x total bet]": None if top.value is None else float(top.value),
                "round cap [x total bet]": None if cap is None else float(cap),
            }
        )
    return Table(
        "Bet modes",
        pd.DataFrame(rows),
        formats={"RTP [x cost]": "pct6", "hit frequency [probability]": "pct", "SD [x cost]": "num"},
        note=(
            "Each mode's RTP is its mean round win over its cost; a buy's round is the bought "
            "feature alone (no base spin). The sections before the bet modes' own are the base "
            "mode's; each other mode has a section (and a worksheet) with the figures that differ."
        ),
    )


#: formats of the win-size table of a distribution
BAND_FORMATS = {"probability": "prob", "1 in N": "odds", "RTP share": "pct", "cumulative RTP share": "pct"}


def mode_sections(sheet: ParSheet) -> list:
    """A section per declared bet mode (on the page and in the workbook):
    what differs from the base mode, its headline figures per unit of cost,
    its round's wins by size and its feature tables."""
    out = []
    for name, m in sheet.modes.items():
        if name == "base":
            continue
        r = m.par
        top = r.true_max_win
        rows = [
            ("cost [x total bet]", float(m.cost), "num"),
            ("RTP [x cost]", float(m.rtp), "pct6"),
            ("RTP exact", exact_str(m.rtp, lead=""), "text"),
            ("mean round win [x total bet]", float(r.rtp), "num"),
            ("hit frequency: paying rounds [probability]", r.hit_frequency, "pct"),
            ("SD [x cost]", r.sd / float(m.cost), "num"),
            *[(f"{label(k)}: RTP [x cost]", float(v), "pct6") for k, v in m.components.items()],
            *max_win_figures(top),
            ("round cap [x total bet]", "none" if m.round_cap is None else float(m.round_cap), "text"),
        ]
        tables = [
            figure_table(f"Mode {name}: headline figures", rows, note=m.mode.label),
            Table(
                f"Mode {name}: round win by size [x total bet]",
                win_bands(r.distribution),
                BAND_FORMATS,
                note="Shares are of the mode's mean round win.",
            ),
        ]
        tables += [Table(f"Mode {name}: {title}", frame) for title, frame in r.tables.items()]
        text = mode_changes(m.mode)
        out.append(Section(f"modes-{name}", f"Bet mode {name}", f"Mode {name}"[:31], tables, text=text))
    return out


def mode_changes(mode) -> str:
    """What a bet mode changes from the base game, in words (its section's
    introduction)."""
    parts = [f"Costs {float(mode.cost):g} x total bet."]
    if mode.buy is not None:
        start = f"{mode.buy.games} free games" if mode.buy.games is not None else f"{mode.buy.coins} coins"
        parts.append(f"Buys the {mode.buy.feature.replace('_', ' ')} at once from {start} (no base spin).")
    parts += [f"Plays reel set {new!r} in place of {old!r}." for old, new in mode.reels.items()]
    if mode.options:
        parts.append(f"Replaces the options {', '.join(sorted(mode.options))}.")
    return " ".join(parts)
