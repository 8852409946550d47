"""Static figures of a PAR sheet (matplotlib).

Every function returns a :class:`matplotlib.figure.Figure` built without
pyplot (no global state, nothing shown by side effect); :func:`to_png`
renders one for a report.  The figures only draw numbers computed
elsewhere.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, PercentFormatter

from slotmath.model import Game
from slotmath.pictures.frames import plain_label, symbol_style

INK = "#1d2733"
ACCENT = "#1f5f99"
BAND_COLOURS = {0.90: "#1f5f99", 0.95: "#5b8fc7", 0.99: "#a9c6e8"}


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig


def _style(ax, grid_axis="y") -> None:
    ax.spines[["top", "right"]].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#9aa5b1")
    ax.tick_params(colors=INK, labelsize=9)
    ax.xaxis.label.set_color(INK)
    ax.yaxis.label.set_color(INK)
    if grid_axis:
        ax.grid(axis=grid_axis, color="#dde3ea", linewidth=0.7, which="major")
        ax.set_axisbelow(True)


def to_png(fig: Figure, dpi: int = 110) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    # no 'Software' entry: the bytes depend only on the figure
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white", metadata={"Software": None})
    return buf.getvalue()


def _plain_log_labels(axis, label) -> None:
    """Plain-text labels on major ticks only (no mathtext, which is slow)."""
    axis.set_major_formatter(FuncFormatter(lambda v, _: label(v)))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _count_label(v: float) -> str:
    """1000 -> '1k', 1e6 -> '1M' (plain text: no mathtext)."""
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


# ---------------------------------------------------------------- reel strips
#: Most stops drawn in one reel-strip picture; longer strips are split.
STOPS_PER_PICTURE = 30


def strip_blocks(n_stops: int, most: int = STOPS_PER_PICTURE) -> list:
    """(first, stop after last) stop ranges splitting ``n_stops`` stops into
    near-equal blocks of at most ``most``."""
    k = -(-n_stops // most)
    size = -(-n_stops // k)
    return [(a, min(a + size, n_stops)) for a in range(0, n_stops, size)]


def reel_strips(game: Game, reel_set: str = "base", first: int = 0, stop: int | None = None) -> Figure:
    """Stops ``first`` to ``stop - 1`` of the strips of ``reel_set`` as
    columns of coloured symbol cells, the first stop at the top; the stop
    weight is printed beside weighted stops.  The cells keep one readable
    size whatever the strip length (split long strips with
    :func:`strip_blocks`).  Symbols are coloured as in every window picture
    (:func:`slotmath.pictures.frames.symbol_style`)."""
    strips = game.strips(reel_set)
    style = {s.name: symbol_style(game, s.name) for s in game.symbols}
    n_max = max(len(s) for s in strips)
    stop = n_max if stop is None else min(stop, n_max)
    rows = stop - first
    weighted = any(s.weights is not None for s in strips)
    longest = max(len(style[sym][1]) for s in strips for sym in s.symbols)
    cell_h, font = 0.22, 7.5
    cell_w = max(0.92, 0.1 * longest * font / 8)
    col_w = cell_w + (0.35 if weighted else 0.08)
    fig = _figure(max(4.0, 0.9 + col_w * len(strips)), 0.9 + cell_h * rows)
    ax = fig.add_subplot()
    for r, strip in enumerate(strips):
        x = r * col_w
        for k in range(first, min(stop, len(strip))):
            fill, label, ink = style[strip.symbols[k]]
            ax.add_patch(Rectangle((x, k), cell_w, 0.92, facecolor=fill, edgecolor="white", linewidth=0.5))
            ax.text(x + cell_w / 2, k + 0.47, label, ha="center", va="center", fontsize=font, color=ink)
            if strip.weights is not None:
                ax.text(
                    x + cell_w + 0.04,
                    k + 0.47,
                    str(strip.weights[k]),
                    ha="left",
                    va="center",
                    fontsize=font * 0.85,
                    color="#5c6b7a",
                )
    ax.set_xlim(-0.1, col_w * len(strips))
    ax.set_ylim(stop + 0.1, first - 0.1)
    ax.set_xticks(
        [r * col_w + cell_w / 2 for r in range(len(strips))], [f"reel {r + 1}" for r in range(len(strips))]
    )
    ax.xaxis.tick_top()
    ticks = range(first - first % 5, stop, 5)
    ax.set_yticks([k + 0.47 for k in ticks if k >= first], [str(k) for k in ticks if k >= first])
    ax.set_ylabel("stop")
    ax.tick_params(length=0, labelsize=8, colors=INK)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig


def paylines(game: Game, per_row: int = 10) -> Figure:
    """Every payline as a small window picture: the line's cell on each
    reel filled and joined, the line number above."""
    lines = game.paylines
    cols = min(per_row, len(lines))
    rows = -(-len(lines) // cols)
    w = 0.24 * game.reels + 0.25
    h = 0.24 * game.rows + 0.35
    fig = _figure(max(3.0, w * cols), h * rows)
    for i, line in enumerate(lines):
        ax = fig.add_subplot(rows, cols, i + 1)
        for r in range(game.reels):
            for c in range(game.rows):
                on = line[r] == c
                ax.add_patch(
                    Rectangle(
                        (r, c),
                        0.9,
                        0.9,
                        facecolor=ACCENT if on else "#eef2f6",
                        edgecolor="white",
                        linewidth=0.5,
                    )
                )
        ax.plot(
            [r + 0.45 for r in range(game.reels)], [c + 0.45 for c in line], color="#c0392b", linewidth=1.0
        )
        ax.set_xlim(-0.1, game.reels)
        ax.set_ylim(game.rows, -0.1)
        ax.set_title(f"line {i + 1}", fontsize=7.5, color=INK, pad=2)
        ax.set_aspect("equal")
        ax.axis("off")
    return fig


# ---------------------------------------------------------------- summary
def rtp_by_channel(components: dict, rtp: float) -> Figure:
    """Horizontal bars: RTP contribution of each channel [% of total bet]."""
    names = list(components)
    values = [float(components[k]) for k in names]
    fig = _figure(7.0, 0.8 + 0.42 * (len(names) + 1))
    ax = fig.add_subplot()
    y = np.arange(len(names) + 1)
    bars = values + [float(rtp)]
    cols = [ACCENT] * len(names) + [INK]
    ax.barh(y, bars, color=cols, height=0.62)
    for yi, v in zip(y, bars, strict=True):
        ax.text(v, yi, f"  {v:.4%}", va="center", fontsize=9, color=INK)
    ax.set_yticks(y, [plain_label(n) for n in names] + ["total RTP"])
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlim(min(0.0, min(bars)) * 1.1, max(bars) * 1.22 if max(bars) > 0 else 1)
    ax.set_xlabel("RTP contribution [% of total bet]")
    _style(ax, grid_axis="x")
    return fig


# ---------------------------------------------------------------- volatility
def confidence_band(table, rtp: float) -> Figure:
    """Payback range after N spins at each confidence level (exact
    quantiles of the session distribution); ``table`` has columns
    confidence, spins, low, high."""
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    for c in sorted(set(table["confidence"]), reverse=True):
        t = table[table["confidence"] == c].sort_values("spins")
        ax.fill_between(
            t["spins"],
            t["low"],
            t["high"],
            color=BAND_COLOURS.get(c, "#a9c6e8"),
            alpha=0.85,
            linewidth=0,
            label=f"{c:.0%} range",
        )
        ax.plot(
            t["spins"],
            t["low"],
            "o",
            t["spins"],
            t["high"],
            "o",
            markersize=3,
            color=BAND_COLOURS.get(c, "#a9c6e8"),
        )
    ax.axhline(float(rtp), color=INK, linewidth=1.2, label=f"RTP {float(rtp):.4%}")
    ax.set_xscale("log")
    _plain_log_labels(ax.xaxis, _count_label)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("spins played N")
    ax.set_ylabel("payback after N spins")
    ax.legend(fontsize=8, frameon=False, loc="upper right")
    _style(ax, grid_axis="both")
    return fig


# ---------------------------------------------------------------- win distribution
def _log_bins(x: np.ndarray) -> np.ndarray:
    lo = np.floor(np.log10(x.min()) * 4) / 4
    hi = np.ceil(np.log10(x.max()) * 4) / 4 + 0.25
    return 10 ** np.arange(lo, hi + 1e-9, 0.25)


def win_histogram(x: np.ndarray, p: np.ndarray) -> Figure:
    """Probability of a paying spin by win size, logarithmic bins (4 per
    decade) on both axes; ``x`` wins [x total bet], ``p`` probabilities."""
    x, p = np.asarray(x, float), np.asarray(p, float)
    pay = x > 0
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    if pay.any():
        bins = _log_bins(x[pay])
        h, edges = np.histogram(x[pay], bins=bins, weights=p[pay])
        keep = h > 0
        ax.bar(
            edges[:-1][keep],
            h[keep],
            width=np.diff(edges)[keep],
            align="edge",
            color=ACCENT,
            edgecolor="white",
            linewidth=0.6,
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(numticks=12))
        _plain_log_labels(ax.yaxis, lambda v: f"{v:.0e}".replace("e-0", "e-"))
    p0 = float(p[~pay].sum())
    ax.set_title(f"P(no win) = {p0:.4%} (not drawn)", fontsize=9, color="#5c6b7a", loc="right")
    _plain_log_labels(ax.xaxis, lambda v: f"{v:g}x")
    ax.set_xlabel("win [x total bet], 4 bins per decade")
    ax.set_ylabel("probability per spin")
    _style(ax)
    return fig


def cumulative_rtp(x: np.ndarray, p: np.ndarray, rtp: float) -> Figure:
    """Share of the RTP paid by wins up to each size [% of RTP]."""
    x, p = np.asarray(x, float), np.asarray(p, float)
    pay = x > 0
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    if pay.any() and rtp > 0:
        share = np.cumsum(x[pay] * p[pay]) / float(rtp)
        ax.step(np.r_[x[pay][0], x[pay]], np.r_[0.0, share], where="post", color=ACCENT, linewidth=1.6)
        ax.set_xscale("log")
        for level in (0.5, 0.9):
            i = int(np.searchsorted(share, level))
            if i < len(share):
                ax.axhline(level, color="#9aa5b1", linewidth=0.8, linestyle="--")
                ax.annotate(
                    f"{level:.0%} of RTP from wins <= {x[pay][i]:g}x",
                    (x[pay][i], level),
                    xytext=(6, -12),
                    textcoords="offset points",
                    fontsize=8,
                    color=INK,
                )
    ax.set_ylim(0, 1.02)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    _plain_log_labels(ax.xaxis, lambda v: f"{v:g}x")
    ax.set_xlabel("win size [x total bet]")
    ax.set_ylabel("cumulative share of RTP")
    _style(ax, grid_axis="both")
    return fig


# ---------------------------------------------------------------- sessions
def session_cdf(sessions) -> Figure:
    """Cumulative distribution of the payback (total win / amount bet) of
    each session (:class:`slotmath.engine.session.SessionDistribution`) over the
    whole range the game can pay: linear up to 1 x the amount bet, then
    logarithmic up to the largest win resolved in the distribution (a
    float distribution drops wins below 1e-15, so it may lie below the true
    max win)."""
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    top = 1.0
    # five colours for up to five sessions: fewer sessions use the first ones
    for s, colour in zip(sessions, (ACCENT, "#c0392b", "#27ae60", "#7d3c98", "#b9770e"), strict=False):
        cdf = np.cumsum(s.probabilities)
        payback = 1.0 + s.net / s.spins
        most = 1.0 + s.max_net / s.spins
        top = max(top, most)
        x = np.append(payback, most)
        y = np.append(cdf, 1.0)
        ax.step(
            x,
            y,
            where="post",
            color=colour,
            linewidth=1.4,
            label=f"{s.spins:,} spins: P(ahead) = {s.p_ahead:.2%}",
        )
    ax.axvline(1.0, color=INK, linewidth=0.9)
    ax.set_xscale("symlog", linthresh=1.0, linscale=1.5)
    ax.set_xlim(0, top * 1.05)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("payback of the session (total win / amount bet), up to the largest resolved win")
    ax.set_ylabel("P(payback <= x)")
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    _style(ax, grid_axis="both")
    return fig


# ---------------------------------------------------------------- features
def grid_heatmap(values, title: str = "", fmt: str = "{:.2%}") -> Figure:
    """A per-cell figure of the window (rows x reels) as a heat map."""
    v = np.asarray(values, dtype=float)
    fig = _figure(1.2 + 1.1 * v.shape[1], 0.9 + 0.8 * v.shape[0])
    ax = fig.add_subplot()
    im = ax.imshow(v, cmap="Blues", aspect="auto")
    span = (np.nanmax(v) - np.nanmin(v)) or 1.0
    for (i, j), val in np.ndenumerate(v):
        shade = (val - np.nanmin(v)) / span
        ax.text(
            j,
            i,
            fmt.format(val),
            ha="center",
            va="center",
            fontsize=8,
            color="white" if shade > 0.55 else INK,
        )
    ax.set_xticks(range(v.shape[1]), [f"reel {j + 1}" for j in range(v.shape[1])])
    ax.set_yticks(range(v.shape[0]), [f"row {i + 1}" for i in range(v.shape[0])])
    ax.tick_params(length=0, labelsize=8, colors=INK)
    fig.colorbar(im, ax=ax, shrink=0.85)
    if title:
        ax.set_title(plain_label(title), fontsize=10, color=INK, loc="left")
    return fig


def probability_bars(x, p, xlabel: str, title: str = "") -> Figure:
    """Bar chart of a small discrete distribution (value -> probability)."""
    fig = _figure(6.5, 3.0)
    ax = fig.add_subplot()
    labels = [f"{v:g}" if isinstance(v, (int, float, np.number)) else plain_label(v) for v in x]
    ax.bar(range(len(labels)), np.asarray(p, float), color=ACCENT, width=0.7)
    ax.set_xticks(range(len(labels)), labels, rotation=0 if len(labels) < 16 else 90)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(plain_label(xlabel))
    ax.set_ylabel("probability")
    if title:
        ax.set_title(plain_label(title), fontsize=10, color=INK, loc="left")
    _style(ax)
    return fig
