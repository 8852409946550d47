"""Pieces of the PAR sheet that are not sections: where the sheet comes from
(file digests, git revision, paths relative to the source tree), the words
for odds and volatility, groups of RTP channels, coin values, fixed floats
and figures as HTML."""

from __future__ import annotations

import base64
import hashlib
import math
import os
import subprocess
from fractions import Fraction
from pathlib import Path

from slotmath.io.files import file_digest
from slotmath.model import Game
from slotmath.report import plots
from slotmath.report.sheettable import escape
from slotmath.rules.par import par
from slotmath.rules.result import ParResult

#: Name part of a report folder being built (``reports/.<game>.partial-*``).
PARTIAL = ".partial-"
ROOT = Path(__file__).resolve().parents[2]  # the source tree (slotmath/report/sheet.py)

#: Monte Carlo rounds of the cross-check: enough for its RTP test to detect an
#: error of 1 percentage point on every seed game (4 SD / sqrt(N) = 0.97 pp at
#: Piggy's SD 17.2, the largest; see :func:`slotmath.montecarlo.convergence.detectable_rtp_error`).
DEFAULT_SPINS = 50_000_000
DEFAULT_SEED = 20240601
#: Set to ``1`` (by ``slotmath report``) to show the steps of :func:`par_sheet`.
PROGRESS_ENV = "SLOTMATH_PROGRESS"
FIGURE_NAMES = {"rtp": "RTP [x total bet]", "hit_frequency": "hit frequency", "sd": "SD [x total bet]"}
#: Section key -> (heading, worksheet name, introduction).
SECTIONS = {
    "identification": (
        "Identification",
        "Identification",
        "The game file is identified by its SHA-256 digest; the package version "
        "and commit identify the code that computed the figures.",
    ),
    "reels": (
        "Reel strips",
        "Reel strips",
        "The ordered symbols of every reel, stop 0 first. A stop shows its own position "
        "in the top row and the following positions below it. Weighted (virtual) reels "
        "list the weight of every stop.",
    ),
    "symbols": (
        "Symbols and counts per reel",
        "Symbols",
        "What each symbol is and does, and how many stops (or how much stop weight) each reel gives it.",
    ),
    "paytable": ("Pay table", "Pay table", "Every paying combination with its pay at every bet level."),
    "paylines": (
        "Paylines",
        "Paylines",
        "The row each payline takes on every reel (row 1 is the top row), and the RTP each line returns.",
    ),
    "combinations": (
        "Combination table",
        "Combinations",
        "For every pay: its hits over the full cycle ({hits_over}), probability per "
        "spin, odds and RTP contribution, grouped by pay-table entry with a sub-row "
        "per wild multiplier.",
    ),
    "summary": (
        "Summary",
        "Summary",
        "Theoretical payback and its split by component, hit frequency, volatility, "
        "odds of features, jackpots and the top award, and the same figures at every "
        "bet level the game offers.",
    ),
    "volatility": (
        "Volatility",
        "Volatility",
        "Standard deviation of the total win of a spin, the volatility index VI = "
        "z x SD at 90, 95 and 99 % confidence, and the exact range the payback of N "
        "spins falls in.",
    ),
    "distribution": (
        "Win distribution",
        "Win distribution",
        "How often each size of win occurs and how much of the RTP it pays. The "
        "full distribution is in the workbook.",
    ),
    "sessions": (
        "Player sessions",
        "Sessions",
        "The exact distribution of the result of a session of N spins at this bet, by "
        "convolution of the per-spin distribution.",
    ),
    "features": (
        "Feature sheets",
        "Features",
        "The features' exact figures: trigger odds, awards and their share of the RTP.",
    ),
    "simulation": (
        "Monte Carlo cross-check",
        "Monte Carlo",
        "A seeded simulation with an independent evaluator; each simulated figure is "
        "compared with its exact value by a test that holds for this game.",
    ),
    "notes": ("Notes", "Notes", ""),
}


#: Volatility classes by VI 90 % [x total bet] (upper bounds).
VOLATILITY_CLASSES = ((5, "low"), (10, "medium"), (20, "high"), (math.inf, "very high"))


def volatility_class(vi90: float) -> str:
    """'low' (VI 90 % below 5), 'medium' (5-10), 'high' (10-20) or 'very high'."""
    return next(name for top, name in VOLATILITY_CLASSES if vi90 < top)


def odds_text(one_in: float) -> str:
    """'1 in 4.10', '1 in 81,529.37', '1 in 1.55e17' (scientific from 10 million on)."""
    if not one_in or math.isinf(one_in):
        return "never"
    if one_in >= 1e7:
        mant, exp = f"{one_in:.2e}".split("e")
        return f"1 in {mant}e{int(exp)}"
    return f"1 in {one_in:,.2f}"


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    file_digest(path, h)
    return h.hexdigest()


def last_commit_date(path) -> str | None:
    """Date (UTC) of the last commit that changed ``path``; None when it is
    not in a git checkout or never committed."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(Path(path).parent),
                "log",
                "-1",
                "--format=%cd",
                "--date=format-local:%Y-%m-%d %H:%M UTC",
                "--",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=20,
            env={**os.environ, "TZ": "UTC"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def git_revision(paths) -> str:
    """Commit of the checkout holding the package, noting uncommitted
    changes under ``paths``; 'unknown' outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20
        )
        if head.returncode:
            return "unknown (not a git checkout)"
        status = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", *map(str, paths)],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"
    commit = head.stdout.strip()
    if status.stdout.strip():
        commit += " + uncommitted changes in the game folder or the package"
    return commit


def installed_folder(out, name: str):
    """The report folder as the reader finds it: a temporary build folder
    (``.<game>.partial-*``) is shown as the folder it is installed as."""
    if out is None:
        return None
    p = Path(out)
    if p.name.startswith(f".{name}{PARTIAL}"):
        p = p.parent / name
    return reader_path(p, folder=True)


def reader_path(path: str | Path, folder: bool = False) -> str:
    """``path`` as a reader may see it: relative to the checkout; outside it
    a ``folder`` by its name, a file by its folder and name (never a folder
    of the author's machine above the game's).  Whether it is a folder is
    the caller's word, not the disk's: a report folder does not exist on
    the first build and does on a rebuild, which must be byte-identical."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(Path(p.parent.name, p.name)) if p.parent.name and not folder else p.name


def channel_groups(components: dict, most: int = 12):
    """RTP channels for the chart and its caption: with more than ``most``
    channels, those named ``"group: part"`` are summed per group."""
    caption = "RTP contribution by channel [% of total bet]."
    if len(components) <= most:
        return dict(components), caption
    grouped: dict = {}
    for name, value in components.items():
        key = name.split(": ", 1)[0]
        grouped[key] = grouped.get(key, 0) + value
    return grouped, caption[:-1] + ", channels named 'group: part' summed per group."


def agreement_word(z):
    """'passes' / 'fails' for |z| < 4, '' without an exact value."""
    if z is None or (isinstance(z, float) and math.isnan(z)):
        return ""
    return "passes" if abs(z) < 4 else "fails"


def finite(v):
    """``v`` as a float, None when infinite or missing."""
    return None if v is None or not math.isfinite(float(v)) else float(v)


def coin_values(game: Game) -> tuple:
    """(coin values, currency) the game file gives in ``options.coin_values``
    (currency from ``options.currency`` or ``options.progressive.currency``);
    ((), '') when it gives none."""
    opts = game.options or {}
    coins = opts.get("coin_values") or ()
    prog = opts.get("progressive") if isinstance(opts.get("progressive"), dict) else {}
    currency = opts.get("currency") or prog.get("currency") or "currency units"
    return tuple(sorted(float(Fraction(str(c))) for c in coins)), currency if coins else ""


def fixed_floats(obj, digits: int = 15):
    """``obj`` with every float rounded to ``digits`` significant digits, so
    that a rebuild writes the same text whatever the order of float sums."""
    if isinstance(obj, float):
        return float(f"{obj:.{digits}g}") if math.isfinite(obj) else obj
    if isinstance(obj, dict):
        return {k: fixed_floats(v, digits) for k, v in obj.items()}
    if isinstance(obj, list):
        return [fixed_floats(v, digits) for v in obj]
    return obj


def figure_html(fig, caption: str) -> str:
    """A figure as an embedded PNG with its caption."""
    data = base64.b64encode(plots.to_png(fig)).decode("ascii")
    return (
        f'<div class="par-figure-block"><div class="par-figure"><img alt="{escape(caption)}" '
        f'src="data:image/png;base64,{data}"/></div>'
        f'<p class="par-caption">{escape(caption)}</p></div>'
    )


LEVEL_FIGURES = ("rtp", "hit_frequency", "sd", "vi", "max_win")


def level_figures(game: Game, main: ParResult, bar=None) -> dict:
    """Exact figures at every bet level: {level: figures of
    :func:`slotmath.analysis.metrics.game_figures`}.  The sheet's own level comes from
    ``main``; levels with provably the same figures (a linear pay table) share
    them; the others are computed the cheapest way the rules module offers."""
    from slotmath.analysis.metrics import equivalent_levels, game_figures, par_figures

    same = equivalent_levels(game)
    done = {same[main.bet.level]: par_figures(main)}
    for lv in game.levels:
        if same[lv] not in done:
            if bar is not None:
                bar.set_postfix_str(f"figures at bet level {lv}")
            figs = game_figures(game, lv)
            if any(figs.get(k) is None for k in LEVEL_FIGURES):  # the full analysis has them
                figs = {**par_figures(par(game, lv)), **{k: v for k, v in figs.items() if v is not None}}
            done[same[lv]] = figs
            if bar is not None:
                bar.update()
    return {lv: done[same[lv]] for lv in game.levels}
