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

    page = "\n".join(sheet.section_html(k) for k in ("title", "contents", *SECTIONS))
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
