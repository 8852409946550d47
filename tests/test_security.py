"""A game file is untrusted input to whoever opens its report: every string
it carries is shown as text, never as markup, a formula or a terminal
control sequence.

The game ``tests/data/injection`` is valid and carries hostile strings in
its title, version, variant, description, reel-set, pay, jackpot, choice
names and symbol labels: a tag with an event handler (``<svg onload=...>``),
an attribute break-out (``" onload="alert(4);//``), spreadsheet formulas
(``=HYPERLINK(...)``, ``@SUM(...)``), a bidi override (U+202E), an escape
sequence (ESC [2J) and mathtext (``$x^2$``).
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from conftest import TEST_DATA

INJECTION = TEST_DATA / "injection"
HOSTILE = ('" onload="alert(4);//', "<svg onload=alert(1)>", '=HYPERLINK("http://x.invalid","y")')


class Elements(HTMLParser):
    """Every start tag of a page with its attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def elements(html: str) -> list:
    parser = Elements()
    parser.feed(html)
    return parser.tags


def assert_no_markup_from_data(html: str) -> None:
    """No event-handler attribute, no tag a game string could bring in, every
    image an embedded PNG."""
    for tag, attrs in elements(html):
        handlers = [a for a in attrs if a.lower().startswith("on")]
        assert not handlers, (tag, attrs)
        assert tag not in ("svg", "details", "script", "iframe", "object", "embed"), (tag, attrs)
        if tag == "img":
            assert set(attrs) == {"alt", "src"} and attrs["src"].startswith("data:image/png;base64,"), attrs


@pytest.fixture(scope="module")
def sheet():
    from slotmath.report.sheet import par_sheet

    return par_sheet(str(INJECTION), spins=0)


def test_escape_escapes_quotes_and_controls():
    from slotmath.report.sheettable import escape

    assert escape('" onload="alert(4);//') == "&quot; onload=&quot;alert(4);//"
    assert escape("<a href='x'>&") == "&lt;a href=&#x27;x&#x27;&gt;&amp;"
    assert escape("\x1b[2J\u202e") == "\\x1b[2J\\u202e"


def test_the_game_is_valid_and_hostile():
    data = yaml.safe_load((INJECTION / "game.yaml").read_text(encoding="utf-8"))
    text = yaml.safe_dump(data)
    for s in HOSTILE:
        assert s in text or s.replace('"', '\\"') in text


def test_report_html_has_no_markup_from_the_game(sheet):
    from slotmath.report.sheetparts import SECTIONS

    page = "\n".join(
        sheet.section_html(k) for k in ("title", "contents", *dict.fromkeys([*SECTIONS, *sheet.sections]))
    )
    assert_no_markup_from_data(page)
    # the strings are there, as text
    text = "".join(t for t in page.split("<"))
    assert "&lt;svg onload=alert(1)&gt;" in page
    assert "&lt;img src=x onerror=alert(3)&gt;" in page  # a symbol label
    assert "&lt;img src=x onerror=alert(6)&gt;" in page  # a jackpot name
    assert "&lt;details open ontoggle=alert(7)&gt;" in page  # a choice name
    assert "\u202e" not in page and "\x1b" not in page and "\\u202e" in text


def test_running_header_cannot_leave_its_style_block(sheet):
    head = sheet.title_html()
    style = head[head.index("<style>") + 7 : head.index("</style>")]
    assert "<" not in style  # '</style>' from a title would end the block early
    assert '\\" onload=\\"' in style  # the quote stays inside the CSS string


def test_table_cells_and_headers_are_escaped():
    import pandas as pd

    from slotmath.report.sheettable import Table

    t = Table("<b>t</b>", pd.DataFrame({"<i>c</i>": ['" onload="x', "<svg onload=1>"]}), note="<u>n</u>")
    html = t.to_html("t0")
    assert_no_markup_from_data(html)
    for tag in ("<b>", "<i>", "<u>", "<svg"):
        assert tag not in html
    assert "&lt;svg onload=1&gt;" in html and '" onload="x' not in html
    assert '" onload="x' in unescape(html)  # the text is kept, as text


def test_workbook_cells_are_text(sheet, tmp_path):
    from openpyxl import load_workbook

    from slotmath.report.workbook import write_workbook

    path = tmp_path / "par.xlsx"
    write_workbook(sheet, path)
    wb = load_workbook(path)
    formulas, seen = [], set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    formulas.append((ws.title, cell.coordinate, cell.value))
                if isinstance(cell.value, str):
                    assert "\x1b" not in cell.value and "\u202e" not in cell.value, cell.value
                    if cell.value.startswith(("=", "+", "-", "@")):
                        assert cell.data_type == "s" and cell.quotePrefix, (cell.coordinate, cell.value)
                        seen.add(cell.value)
    assert not formulas
    # the version, a choice name and a symbol label, each a text cell
    assert '=HYPERLINK("http://x.invalid","y")' in seen
    assert "=1+2" in seen
    assert any(v.startswith("@SUM") for v in seen)


def test_put_cell_keeps_formula_text_as_text():
    from openpyxl import Workbook

    from slotmath.report.workbook import put_cell

    ws = Workbook().active
    for i, text in enumerate(["=1+1", "+1", "-1", "@A1", "\tx", "plain", "a\x07b"], start=1):
        cell = put_cell(ws, i, 1, text)
        assert cell.data_type == "s", text
        assert cell.quotePrefix == text.startswith(("=", "+", "-", "@")), text
    assert ws.cell(7, 1).value == "a\\x07b"  # openpyxl refuses BEL: shown escaped
    assert ws.cell(5, 1).value == "\\x09x"
    assert put_cell(ws, 8, 1, 2.5).data_type == "n"


def test_terminal_text():
    from slotmath.io.terminal import terminal_text

    assert terminal_text("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert terminal_text("x\u202ey\u2066z") == "x\\u202ey\\u2066z"
    assert terminal_text("one\ntwo", lines=True) == "one\ntwo"
    assert terminal_text("one\ntwo") == "one\\x0atwo"
    assert terminal_text("Größe 7 €") == "Größe 7 €"


def test_validate_and_par_print_escaped_text():
    from slotmath.cli import main

    for command in (["validate", str(INJECTION)], ["par", str(INJECTION)]):
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(command) == 0
        text = out.getvalue()
        assert "\x1b" not in text and "\u202e" not in text and "\u202c" not in text, command
        assert "\\x1b[2J" in text and "\\u202e" in text, command


def test_figure_labels_are_plain_text():
    from slotmath.pictures.frames import plain_label

    assert plain_label("$x^2$") == r"\$x^2\$"
    # rendered without a mathtext parse error
    from slotmath.io.gamefile import load_game
    from slotmath.report import plots

    game = load_game(str(INJECTION))
    assert plots.to_png(plots.reel_strips(game)).startswith(b"\x89PNG")
    bars = plots.probability_bars(["$x^2$", "a"], [0.5, 0.5], "$y$", "$t$")
    assert plots.to_png(bars).startswith(b"\x89PNG")


@pytest.mark.parametrize(
    "colour, ok",
    [("#d62728", True), ("#abc", True), ("red", True), ("tab:blue", True), ("k", True)]
    + [("not a colour", False), ("#12345", False), ("<svg>", False), ("", False), ("url(x)", False)],
)
def test_colour_check(colour, ok):
    from matplotlib.colors import is_color_like

    from slotmath.io.colours import is_colour

    assert is_colour(colour) == ok
    if ok:
        assert is_color_like(colour)  # whatever validate accepts, matplotlib draws


def test_validate_refuses_a_bad_colour(write_game):
    from slotmath.io.gamefile import GameFileError, load_game

    data = yaml.safe_load((INJECTION / "game.yaml").read_text(encoding="utf-8"))
    data["symbols"][0]["color"] = "blood"
    path = write_game(data)
    with pytest.raises(GameFileError) as err:
        load_game(str(path))
    assert err.value.field == "symbols[0].color"
    assert "'blood' is not a colour" in err.value.problem


# ---------------------------------------------------------------- writers
def test_a_game_is_never_written_over_a_file_it_reads(tmp_path):
    from slotmath.io.arguments import UsageError
    from slotmath.io.gamefile import load_game
    from slotmath.io.gamewriter import write_game

    (tmp_path / "strips.csv").write_text("reel1,reel2,reel3\nA,A,A\nB,B,B\nX,X,X\n", encoding="utf-8")
    (tmp_path / "game.yaml").write_text(
        "grid: {reels: 3, rows: 1}\nbet: {levels: [1]}\n"
        "symbols: [{name: A}, {name: B}, {name: X, kind: blank}]\n"
        "reels: {base: strips.csv}\npaylines: [[0, 0, 0]]\npays: [{symbol: A, count: 3, pay: 5}]\n",
        encoding="utf-8",
    )
    before = (tmp_path / "strips.csv").read_bytes()
    game = load_game(str(tmp_path))
    strips = {"base": game.strips("base")}
    with pytest.raises(UsageError) as err:
        write_game(game, strips, tmp_path / "strips.csv")
    assert "is a file the game" in str(err.value) and "strips.csv" in str(err.value)
    assert (tmp_path / "strips.csv").read_bytes() == before
    assert load_game(str(tmp_path)).strips("base") == game.strips("base")
    # the game file itself may be rewritten
    assert write_game(game, strips, tmp_path / "game.yaml") == tmp_path / "game.yaml"


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_install_into_a_file_or_symlink_leaves_nothing_behind(tmp_path, kind):
    from slotmath.io.files import install_dir, make_temp_dir

    target = tmp_path / "game"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if kind == "file":
        target.write_text("x", encoding="utf-8")
    else:
        target.symlink_to(elsewhere)
    work = make_temp_dir(tmp_path, "game")
    (work / "par.html").write_text("<p>x</p>", encoding="utf-8")
    with pytest.raises(FileExistsError):
        try:
            install_dir(work, target)
        finally:
            import shutil

            shutil.rmtree(work, ignore_errors=True)  # as run_report does on failure
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "game"]
    assert target.is_symlink() == (kind == "symlink")
    assert list(elsewhere.iterdir()) == []


# ---------------------------------------------------------------- features that cannot start, costs
def test_most_in_window_by_hand():
    from slotmath.features.reach import most_on_reel
    from slotmath.model import Strip

    s = frozenset({"S"})
    # rows 2 on [S, X, S]: stops show (S, X), (X, S), (S, S): at most 2
    assert most_on_reel(Strip(("S", "X", "S")), 2, s) == 2
    # stop 2 of weight 0 never shows (S, S): at most 1
    assert most_on_reel(Strip(("S", "X", "S"), (1, 1, 0)), 2, s) == 1
    # rows 1: the S stops both have weight 0
    assert most_on_reel(Strip(("S", "X", "S"), (0, 1, 0)), 1, s) == 0
    # a window taller than the strip counts each stop once
    assert most_on_reel(Strip(("S", "S")), 2, s) == 2


def test_cost_bounds_by_hand():
    from slotmath.features.cost import MAX_CHAIN_WORK, chain_problem, chain_steps, games_problem, mask_problem

    # reset: at most one restart per cell, 3 respins on 15 cells -> 3 x 16 = 48 steps
    assert chain_steps(3, "reset", 15) == 48 and chain_steps(3, "countdown", 15) == 3
    # the 5x3 hold-and-spin game: 2**15 masks x 48 = 1,572,864 updates, within the float bound
    assert chain_problem("hold-and-spin", 2**15, 3, "reset", 15, exact=False) is None
    assert 2**15 * 48 < MAX_CHAIN_WORK
    # countdown, 1e9 respins on 8 states: 8e9 updates, above the exact bound 2**22
    assert "about 8,000,000,000 state updates" in chain_problem("x", 8, 10**9, "countdown", 3, exact=True)
    assert mask_problem("x", 24) is None and "2**25" in mask_problem("x", 25)
    # max_games 1,000 with awards of 2 games: 1e6 x 3 = 3e6 updates
    assert games_problem(1000, 2, cells=3) is None
    assert "3.000e+12" in games_problem(10**6, 2, cells=3)
    # a sticky wild on 3 cells: 2**3 masks multiply it
    assert "8 sticky masks" in games_problem(10**5, 2, cells=3, sticky=True)


def test_validate_accepts_every_shipped_game(capsys):
    # the new refusals leave every game of data/games valid
    from slotmath.cli import main

    from conftest import GAMES

    for folder in sorted(p for p in GAMES.iterdir() if (p / "game.yaml").is_file()):
        assert main(["validate", str(folder)]) == 0, capsys.readouterr().err


def test_simulate_draws_every_reel_weight_the_schema_allows(write_game):
    """The schema allows stop weights up to 2**32 (par counts them exactly)
    and the compiled simulator draws any total weight below 2**62 exactly
    (62 random bits): a reel of total weight 2**33 + 3 * 2**30 - 5 simulates,
    and agrees with the exact figures (every component's |z| < 4).

    Worked: reel 1 weighs A 2**32, B 2**32 - 5, X 3 * 2**30, so
    P(A) = 2**32 / (11 * 2**30 - 5) ~ 0.3636; reels 2 and 3 are uniform over
    A, B, X; 3 A pay 5: RTP = 5 P(A) / 9 ~ 0.20202, far from the 32-bit
    draw's range (which could not hold the weight at all)."""
    from fractions import Fraction

    from slotmath.analysis.simulation import simulate_game
    from slotmath.io.gamefile import load_game
    from slotmath.rules.par import par

    path = write_game(
        "grid: {reels: 3, rows: 1}\nbet: {levels: [1]}\n"
        "symbols: [{name: A}, {name: B}, {name: X, kind: blank}]\n"
        "reels:\n  base:\n    - {symbols: [A, B, X], weights: [4294967296, 4294967291, 3221225472]}\n"
        "    - [A, B, X]\n    - [A, B, X]\npaylines: [[0, 0, 0]]\npays: [{symbol: A, count: 3, pay: 5}]\n"
    )
    game = load_game(path)
    exact = par(game, 1)
    assert exact.rtp == 5 * Fraction(2**32, 11 * 2**30 - 5) / 9
    result = simulate_game(game, 400_000, seed=11, level=1, workers=1, progress=False, exact="par")
    assert result.convergence.max_abs_z < 4, result.convergence.text()
    assert abs(result.rtp.z) < 4


def test_tune_output_shows_control_characters_escaped(capsys):
    """``slotmath tune`` on the hostile game prints its title through the
    terminal escaping: the ESC sequence and the bidi override reach the
    terminal as visible text, not as controls."""
    from slotmath.cli import main

    main(["tune", str(INJECTION), "--target-rtp", "0.9", "--max-evaluations", "3"])
    out = capsys.readouterr().out
    assert "Reel tuning: <svg onload=alert(1)>" in out
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[2J" in out and "\\u202e" in out


def hold_and_spin_with_first_cell(tmp_path, first: str):
    """data/games/hold_and_spin copied with per-cell landing probabilities,
    the first cell's ``first``, the others 1/20 (its respin reel set dropped:
    validate refuses an unread set)."""
    import shutil

    src = TEST_DATA.parent.parent / "data" / "games" / "hold_and_spin"
    shutil.copytree(src, tmp_path / "g")
    path = tmp_path / "g" / "game.yaml"
    row = '["1/20", "1/20", "1/20", "1/20", "1/20"]'
    declared = f'    probabilities: [["{first}", "1/20", "1/20", "1/20", "1/20"], {row}, {row}]\n'
    text = path.read_text().replace("    reels: feature\n", declared, 1)
    text = "".join(line for line in text.splitlines(True) if not line.startswith("  feature: "))
    path.write_text(text)
    return path


def test_a_cell_probability_validate_accepts_is_simulated(tmp_path, capsys):
    """A landing probability with a denominator of 2**31 or more (here
    3,000,000,001) validates and the compiled sampler draws it exactly
    (62 random bits); a denominator of 2**62 or more, beyond every draw, is
    refused by ``validate`` in one line naming the cell (exit 2)."""
    from slotmath.cli import main

    path = hold_and_spin_with_first_cell(tmp_path / "a", "1/3000000001")
    assert main(["validate", str(path)]) == 0
    assert main(["simulate", str(path), "--spins", "2000"]) == 0
    capsys.readouterr()
    path = hold_and_spin_with_first_cell(tmp_path / "b", f"1/{2**62 + 1}")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "options.hold_and_spin.probabilities[0][0]: " in err[0], err
    assert "not below 2**62" in err[0]


def test_a_pay_table_beyond_memory_is_refused_before_any_allocation(tmp_path, capsys):
    """11 symbols on 8 reels: the line pay tensor would hold 11**8 = 2.14e8
    symbol tuples (about 5 GB). ``validate`` and ``par`` refuse it in one line
    naming the field and the estimate (exit 2), instead of running out of
    memory; 10 symbols (1e8 tuples, the bound) still validate."""
    from slotmath.cli import main

    def game(n_symbols: int) -> Path:
        names = [f"S{i}" for i in range(n_symbols)]
        data = {
            "name": f"wide_{n_symbols}",
            "grid": {"reels": 8, "rows": 1},
            "bet": {"levels": [1]},
            "symbols": [{"name": n} for n in names],
            "reels": {"base": [names] * 8},
            "paylines": [[0] * 8],
            "pays": [{"symbol": n, "count": 8, "pay": 10} for n in names],
        }
        path = tmp_path / f"{n_symbols}.yaml"
        path.write_text(yaml.safe_dump(data))
        return path

    for command in ("validate", "par"):
        assert main([command, str(game(11))]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and ": symbols: " in err[0] and "11**8 = 2.14e+08" in err[0], err
    assert main(["validate", str(game(10))]) == 0
