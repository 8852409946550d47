"""Checks a published PAR report must pass, shared by the tests of a freshly
built report and of the committed ones (reports/<game>/)."""

from __future__ import annotations

import hashlib
import html as html_lib
import json
import re
import unicodedata
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
#: Code names that once reached a page; none may appear in the visible text.
FORBIDDEN = (
    "hit_probability",
    "expected_turnover_between_wins",
    "line_win",
    "jackpot_without_win",
    "one_in",
    "per_round",
    "by_choice",
    "lockit",
    "free_games",
    "seed_rtp",
    "rtp_exact",
    "max_win",
    "hit_frequency",
    "sd_jackpot",
    "wins_per_year",
    "p_next_within_window",
    "components_by_choice",
    "exact_lattice",
    "NaN",
    "nan%",
    "inf",
    "agrees NO",
    " = super = ",
)
#: A lower-case snake_case name (symbols such as WILD_3 have capitals).
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
#: Text that reads as a number (what a numeric cell stored as text looks like).
NUMBER_TEXT = re.compile(r"^[-+]?[0-9][0-9,]*(\.[0-9]+)?([eE][-+]?[0-9]+)?%?$")


def exact_as_text(text: str) -> bool:
    """An integer the workbook writes as text on purpose: at or beyond
    2**53 (:data:`slotmath.report.sheettable.EXACT_INT_LIMIT`), where a
    spreadsheet's float would lose its last digits."""
    from slotmath.report.sheettable import EXACT_INT_LIMIT

    return text.lstrip("-+").isdigit() and abs(int(text)) >= EXACT_INT_LIMIT


#: Identification rows whose value is a name, not a quantity ("1.0" as a
#: game version is text, like a product code).
TEXT_FIELDS = ("version", "RTP variant", "slotmath version", "git commit")


def visible_text(html: str) -> str:
    """The text a reader sees: no style blocks, tags or embedded images."""
    html = re.sub(r"<style.*?</style>", " ", html, flags=re.DOTALL)
    html = re.sub(r"<[^>]+>", " ", html)
    return html_lib.unescape(html)


def code_names(html: str, allowed=()) -> list:
    """Forbidden names and snake_case identifiers in the visible text of a
    page, except those in ``allowed`` (the game's name and file names)."""
    text = visible_text(html)
    found = [w for w in FORBIDDEN if re.search(rf"(?<![\w.]){re.escape(w)}(?![\w.])", text)]
    found += sorted({w for w in SNAKE.findall(text) if not any(w in a for a in allowed)} - set(found))
    return found


def allowed_names(folder: Path, game_dir: Path | None) -> list:
    """Names a page may show as they are: the game's name, its bet modes'
    names (the author's, as reel set and symbol names are) and its files."""
    data = json.loads((folder / "par.json").read_text())
    names = [data["game"], *data.get("modes", {})]
    if game_dir is not None and game_dir.is_dir():
        names += [p.name for p in game_dir.rglob("*") if p.is_file()]
    return names


def workbook_problems(xlsx: Path) -> list:
    """Cells holding a number as text, 'never' or infinities; worksheets
    without a frozen header."""
    from openpyxl import load_workbook

    wb = load_workbook(xlsx)
    out = []
    for ws in wb.worksheets:
        if ws.tables and ws.freeze_panes is None:
            out.append(f"{ws.title}: no frozen header row")
        for tbl in ws.tables.values():
            rows = [r for r in ws[tbl.ref][1:] if r[0].value not in TEXT_FIELDS]
            columns = list(zip(*rows, strict=True)) if rows else []
            for col in columns:
                # a column holding numbers must not hold text that reads as one
                numeric = any(
                    isinstance(c.value, (int, float)) and not isinstance(c.value, bool) for c in col
                )
                for cell in col:
                    v = cell.value
                    if not isinstance(v, str):
                        continue
                    t = v.strip()
                    if t in ("never", "inf", "-inf", "nan") or (
                        numeric and NUMBER_TEXT.match(t) and len(t) < 17 and not exact_as_text(t)
                    ):
                        out.append(f"{ws.title}!{cell.coordinate}: {v!r} stored as text")
    return out


def payback_problems(folder: Path) -> list:
    """Negative or impossible payback bounds in par.json."""
    data = json.loads((folder / "par.json").read_text())
    top = data.get("distribution_max_win", data["max_win"])  # the payback lies below the wins shown
    return [
        f"payback {r['low']} .. {r['high']} at {r['spins']} spins"
        for r in data["confidence"]
        if r["low"] < 0 or r["high"] > top + 1e-9 or r["low"] > r["high"]
    ]


#: An absolute path as a page or workbook would show it (POSIX or Windows).
ABSOLUTE_PATH = re.compile(r"(?:^|[\s(\"'=,])(?:/[\w.-]+){2,}|\b[A-Z]:\\")


def identification_problems(folder: Path, game_file: Path) -> list:
    """The identification must hash exactly the files the game reads (its read
    set, :func:`slotmath.io.readset.read_set`) and show no absolute path,
    in the workbook and on the page."""
    from slotmath.io.readset import read_set
    from slotmath.report.workbook import read_workbook

    out = []
    book = read_workbook(folder / "par.xlsx")["Identification"]
    values = {str(r.iloc[0]): str(r.iloc[1]) for frame in book.values() for _, r in frame.iterrows()}
    want = {"game file SHA-256"} | {f"data file {p.name} SHA-256" for p in read_set(game_file)[1:]}
    hashed = {k for k in values if k.endswith("SHA-256")}
    out += [f"hashes {k!r}, a file the game does not read" for k in sorted(hashed - want)]
    out += [f"does not hash {k!r}" for k in sorted(want - hashed)]
    out += [f"{k}: absolute path {v!r}" for k, v in values.items() if ABSOLUTE_PATH.search(v)]
    if (folder / "par.html").is_file():  # the notebook's page (sheet.save writes none)
        text = visible_text((folder / "par.html").read_text())
        out += [f"page shows absolute path {m.group(0).strip()!r}" for m in ABSOLUTE_PATH.finditer(text)]
    return out


#: An exact fraction written out, and an abbreviated one.
FRACTION_TEXT = re.compile(r"-?[0-9]+/[0-9]+")
#: (a page writes SHA-256 with a non-breaking hyphen, U+2011)
ABBREVIATED = re.compile(r"(?:exact: )?([0-9]+)-digit fraction, ([-0-9.]+)…?, SHA[-\u2011]256 ([0-9a-f]{16})")


def fraction_problems(html: str) -> list:
    """Long exact fractions on a page: each must be abbreviated ('exact:
    N-digit fraction, first digits, SHA-256 prefix', without 'exact: '
    beside a label saying exact), no cell may say exact twice, written in full once in
    the appendix (numerator and denominator in digit groups, its SHA-256
    matching), and no exact fraction cell may break across lines."""
    from fractions import Fraction

    from slotmath.rules.result import FRACTION_DISPLAY_LIMIT

    text = visible_text(html)
    out = [
        f"exact fraction of {len(m.group(0))} characters written out"
        for m in FRACTION_TEXT.finditer(text)
        if len(m.group(0)) > FRACTION_DISPLAY_LIMIT
    ]
    out += [f"exact said twice: {m.group(0)!r}" for m in re.finditer(r"\bexact\s+exact:", text)]
    cells = re.findall(r'<td class="([^"]*)"[^>]*>\s*(-?[0-9]+/[0-9]+)\s*</td>', html)
    out += [f"fraction cell {v[:20]!r} may break (class {c!r})" for c, v in cells if "exact" not in c.split()]
    if "td.exact" not in html:
        out.append("no style keeps an exact fraction on one line")
    rows = re.findall(
        r"<tr>\s*<td[^>]*>([^<]*)</td>\s*<td[^>]*>([0-9a-f]{16})</td>\s*<td[^>]*>(numerator|denominator)</td>"
        r"\s*<td[^>]*>([0-9 ]+)</td>",
        html,
    )
    parts: dict = {}
    for _, digest, part, digits in rows:
        parts.setdefault(digest, {})[part] = int(digits.replace(" ", ""))
    for n, lead, digest in set(ABBREVIATED.findall(text)):
        whole = parts.get(digest, {})
        if set(whole) != {"numerator", "denominator"}:
            out.append(f"fraction {digest} not in the appendix")
            continue
        value = Fraction(whole["numerator"], whole["denominator"])
        p_q = f"{value.numerator}/{value.denominator}"
        if hashlib.sha256(p_q.encode()).hexdigest()[:16] != digest:
            out.append(f"fraction {digest}: the appendix's digits do not hash to it")
        if len(p_q) - 1 - p_q.startswith("-") != int(n):
            out.append(f"fraction {digest}: {n} digits said, {len(p_q) - 1} in the appendix")
        if not f"{float(value):.17f}".startswith(lead[:12]):
            out.append(f"fraction {digest}: first digits {lead} are not its value {float(value)}")
    return out


#: Tables each feature's section of the sheet must show (by RTP component).
FEATURE_TABLES = {
    "free_games": (
        "Free games: rules",
        "Free games by trigger count",
        "Free games: trigger and retrigger odds",
        "Free games: distribution of games played",
        "Free games: award given a trigger, by size",
    ),
    "hold_and_spin": (
        "Hold-and-spin: rules",
        "Hold-and-spin: coin prizes",
        "Hold-and-spin: trigger and full-screen odds",
        "Hold-and-spin: award",
        "Hold-and-spin: coins on screen given a trigger",
        "Hold-and-spin: award given a trigger, by size",
    ),
    "lockit": (
        "Lock-it: rules",
        "Lock-it: shape prizes",
        "Lock-it: trigger, full-screen and mark odds",
        "Lock-it: award",
        "Lock-it: held cells given a trigger",
        "Lock-it: shapes given a trigger",
        "Lock-it: award given a trigger, by size",
    ),
    "wheel": ("Wheel (one spin)", "Wheel: start odds and award", "Wheel: award given a trigger, by size"),
    "selection": ("Selection: start odds and award", "Selection: award given a trigger, by size"),
}
#: The features whose sampler counts every jackpot (the Monte Carlo events' names start so).
JACKPOT_EVENTS = {
    "hold_and_spin": "hold and spin",
    "lockit": "lock-it",
    "wheel": "wheel",
    "selection": "selection",
}


def section_of(html: str, key: str) -> str:
    """The HTML of section ``key``: from its heading to the next section's."""
    start = html.find(f'id="sec-{key}"')
    if start < 0:
        return ""
    end = html.find('<h2 id="sec-', start)
    return html[start:] if end < 0 else html[start:end]


def feature_problems(html: str, components, rules: str = "lines") -> list:
    """Every feature of a ``rules: lines`` round has its tables on the page
    (``components``: the RTP components of par.json), the summary gives the
    true maximum win beside the largest win shown, and no odds figure is
    given here for what is not an event (see :func:`count_odds_problems`)."""
    text = visible_text(html)
    out = []
    if rules == "lines":
        for name in components:
            if name not in FEATURE_TABLES:
                continue
            own = visible_text(section_of(html, f"features-{name}"))
            if not own:
                out.append(f"{name}: no section of its own")
            out += [f"{name}: no table {t!r} in its section" for t in FEATURE_TABLES[name] if t not in own]
    for label in ("max win (largest with non-zero probability)", "largest win shown in the distribution"):
        if label not in text:
            out.append(f"summary: no {label!r}")
    return out


def jackpot_event_problems(html: str, features: dict, rules: str = "lines") -> list:
    """Every jackpot of a hold-and-spin, lock-it, wheel or selection of a
    ``rules: lines`` round (``features``: par.json's) is a Monte Carlo event
    of the sheet, beside its feature's trigger, with its z and power (a
    rules package's own sampler names its events itself)."""
    sim = visible_text(section_of(html, "simulation"))
    if rules != "lines" or not sim or "Pays and features" not in sim:
        return []  # another sampler, or no simulation run
    out = []
    for name, words in JACKPOT_EVENTS.items():
        fig = features.get(name)
        if not isinstance(fig, dict):
            continue
        labels = fig.get("jackpot_hits_per_round") or fig.get("jackpots") or {}
        start = "triggers" if name in ("hold_and_spin", "lockit") else "starts"
        out += [f"{name}: no Monte Carlo event {e!r}" for e in (f"{words} {start}",) if e not in sim]
        out += [
            f"{name}: no Monte Carlo event for the jackpot {label}"
            for label in labels
            if f"{words} jackpot {label}" not in sim
        ]
    if "power: smallest error detected" not in sim:
        out.append("Monte Carlo: the events table has no power column")
    return out


def count_odds_problems(xlsx: Path) -> list:
    """Monte Carlo rows of a count that is not an event (games played, an
    award in prize steps '[grid]') must give a mean per round and no odds."""
    import math

    from slotmath.report.workbook import read_workbook

    table = (
        read_workbook(xlsx).get("Monte Carlo", {}).get("Pays and features: simulated against exact frequency")
    )
    if table is None:
        return []
    out = []
    for _, row in table.iterrows():
        name = str(row["event"])
        if "[grid]" in name or name.endswith("games played"):
            for col in ("simulated 1 in N", "exact 1 in N"):
                v = row.get(col)
                if v is not None and not (isinstance(v, float) and math.isnan(v)) and str(v).strip():
                    out.append(f"{name}: {col} = {v!r} for a count")
    return out


def is_probability(label) -> bool:
    """Whether a column header or figure name labels a probability: "P(...)",
    "probability" or "[probability]" (hits per spin or round are counts)."""
    text = str(label).strip().lower()
    return text.startswith(("p(", "probability")) or text.endswith("probability") or "[probability]" in text


def probability_problems(xlsx: Path) -> list:
    """Probabilities outside [0, 1] in the workbook: any number in a column
    headed as a probability, or in the row of a (figure, value...) table
    whose figure names one."""
    import math

    from slotmath.report.workbook import read_workbook

    out = []

    def check(where: str, values) -> None:
        for v in values:
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v):
                if not 0 <= v <= 1:
                    out.append(f"{where}: probability {v!r} outside [0, 1]")

    for sheet, tables in read_workbook(xlsx).items():
        for title, frame in tables.items():
            for col in frame.columns:
                if is_probability(col):
                    check(f"{sheet}: {title}: {col}", frame[col])
            if len(frame.columns) and frame.columns[0] == "figure":
                for _, row in frame.iterrows():
                    if is_probability(row.iloc[0]):
                        check(f"{sheet}: {title}: {row.iloc[0]}", row.iloc[1:])
    return out


def failing_checks(xlsx: Path) -> list:
    """Monte Carlo checks that failed (the 'check' column says 'fails')."""
    from slotmath.report.workbook import read_workbook

    book = read_workbook(xlsx).get("Monte Carlo", {})
    return [
        f"{title}: {row.iloc[0]}"
        for title, frame in book.items()
        if "check" in frame
        for _, row in frame.iterrows()
        if row["check"] == "fails"
    ]


def paylines_problems(folder: Path) -> list:
    """The paylines table must list every payline (and a ways, pay-anywhere or cluster game has none)."""
    from slotmath.report.workbook import read_workbook

    data = json.loads((folder / "par.json").read_text())
    lines = read_workbook(folder / "par.xlsx").get("Paylines", {}).get("Paylines")
    if any(c["kind"] in ("ways", "anywhere", "cluster") for c in data["combinations"]):  # no paylines
        return [] if lines is None else ["a paylines table in a game without paylines"]
    if lines is None:
        return ["no paylines table"]
    want = len(data["per_line_rtp"]) or len(lines)
    return [] if len(lines) == want and len(lines) > 0 else [f"{len(lines)} paylines listed"]


def print_pdf(html: Path, pdf: Path) -> None:
    """Print a page to PDF in headless Chromium (A4, the page's own CSS)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        try:
            page = browser.new_page()
            page.goto(html.resolve().as_uri(), wait_until="load")
            page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
        finally:
            browser.close()


def print_problems(pdf: Path, headings, header: str, intros: dict | None = None) -> tuple:
    """(pages, problems) of a printed report: every page carries the running
    header and its number; every section heading has content below it on
    its own page, beyond its introduction (``intros``: heading -> text)."""
    intros = intros or {}
    from pypdf import PdfReader

    pages = [unicodedata.normalize("NFKC", p.extract_text() or "") for p in PdfReader(str(pdf)).pages]
    problems = []
    n = len(pages)
    for i, text in enumerate(pages, start=1):
        if header not in text:
            problems.append(f"page {i}: no page header {header!r}")
        if f"page {i} of {n}" not in text:
            problems.append(f"page {i}: no page number")
    for heading in headings:
        where = [
            (i, t.splitlines())
            for i, t in enumerate(pages, start=1)
            if heading in [line.strip() for line in t.splitlines()]
        ]
        if not where:
            problems.append(f"heading {heading!r} not printed")
            continue
        i, lines = where[0]
        k = [line.strip() for line in lines].index(heading)
        after = "".join(line for line in lines[k + 1 :] if line.strip() != f"page {i} of {n}")
        after = re.sub(r"\s+", "", after)
        intro = re.sub(r"\s+", "", intros.get(heading, ""))
        after = after.removeprefix(intro)  # the introduction alone is not content
        if len(after) < 20:  # e.g. a figure caption or a table title
            problems.append(f"heading {heading!r} alone at the bottom of page {i}")
    return n, problems


def printed_table_problems(pdf: Path, html: str) -> list:
    """Tables of a printed report: no table title ends a page with at most
    its header row after it, and no abbreviated fraction's SHA-256 breaks
    ("SHA-" / "256", or inside its hash)."""
    from pypdf import PdfReader

    pages = [unicodedata.normalize("NFKC", p.extract_text() or "") for p in PdfReader(str(pdf)).pages]
    n = len(pages)
    problems = []
    # each printed title in page order: a table's caption, or a figure's caption
    # (printed under its picture, so it may end a page) of the same words
    kinds: dict = {}
    for m in re.finditer(r'<caption>(.*?)</caption>|<p class="par-caption">(.*?)</p>', html, re.S):
        title = html_lib.unescape(re.sub(r"<[^>]+>", "", m[1] if m[1] is not None else m[2])).strip()
        kinds.setdefault(title, []).append("table" if m[1] is not None else "figure")
    page_lines = [
        [line.strip() for line in text.splitlines() if line.strip() != f"page {i} of {n}"]
        for i, text in enumerate(pages, start=1)
    ]
    printed: dict = {}  # title -> times printed as a line of its own
    for lines in page_lines:
        for line in lines:
            if line in kinds:
                printed[line] = printed.get(line, 0) + 1
    seen: dict = {}
    for i, lines in enumerate(page_lines, start=1):
        for k, line in enumerate(lines):
            if line not in kinds:
                continue
            order = kinds[line]
            kind = order[min(seen.get(line, 0), len(order) - 1)]
            seen[line] = seen.get(line, 0) + 1
            # a title both a table's and a figure's, not printed once each as a line
            # of its own (a caption wrapped or run into its table): which one this
            # line is cannot be told, and a figure's caption may end a page
            if len(set(order)) > 1 and printed[line] != len(order):
                continue
            if kind == "table" and len(lines) - k - 1 <= 1:
                problems.append(f"table {line!r} alone at the bottom of page {i}")
    whole = "\n".join(pages)
    if re.search(r"SHA[-\u2010\u2011]\s*\n", whole):
        problems.append("SHA-256 broken at its hyphen")
    for digest in {m[2] for m in ABBREVIATED.findall(visible_text(html))}:
        if digest not in whole:
            problems.append(f"SHA-256 {digest} broken across lines")
    return problems


def section_headings(html: str) -> tuple:
    """(headings as printed, {heading: introduction}) of the sections a
    report holds, read from its page (a ways game has no paylines section,
    so the numbers differ from game to game)."""
    from slotmath.report.sheet import SECTIONS

    found = re.findall(r'<h2[^>]*\bid="sec-([a-z_-]+)"[^>]*>(.*?)</h2>', html, flags=re.DOTALL)
    heads = [html_lib.unescape(text).strip() for _, text in found]
    intros = {}
    for h, (key, _) in zip(heads, found, strict=True):
        if key in SECTIONS:
            intros[h] = SECTIONS[key][2]
        else:  # a feature's own section: its introduction is on the page
            m = re.search(r'<p class="par-intro">(.*?)</p>', section_of(html, key), flags=re.DOTALL)
            intros[h] = html_lib.unescape(m.group(1)) if m else ""
    return heads, intros
