"""The full report: papermill run of the notebook, the standalone page in
headless Chromium, the workbook read back, and atomic failure handling."""

import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from test_report import check_workbook_matches_json

from slotmath.report.notebook import NOTEBOOK, REPORT_FILES, ReportError, external_references, run_report
from slotmath.report.workbook import read_workbook

pytestmark = pytest.mark.slow  # runs a notebook kernel and a browser

TOY = Path(__file__).parent / "data" / "report_toy"
CHROMIUM = Path("/usr/bin/chromium")
SECTIONS = (
    "Identification",
    "Reel strips",
    "Symbols and counts per reel",
    "Pay table",
    "Paylines",
    "Combination table",
    "Summary",
    "Volatility",
    "Win distribution",
    "Player sessions",
    "Feature sheets",
    "Monte Carlo cross-check",
    "Notes",
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    return run_report(str(TOY), out, level=2, spins=5_000, seed=11, progress=False)


def test_notebook_is_diff_friendly():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    # literals only: every line is `name = literal  # comment`
    names = []
    for line in params[0].source.splitlines():
        name, value = line.split("#")[0].split("=", 1)
        names.append(name.strip())
        compile(value.strip(), "<parameter>", "eval")
        assert re.fullmatch(r'"[^"]*"|None|[0-9_]+', value.strip())
    assert names == ["game", "bet", "spins", "seed", "out"]
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None
            # no math in the notebook: it only calls the package
            assert all(
                line.startswith(
                    ("sheet", "from slotmath.report.sheet", "game", "bet", "spins", "seed", "out")
                )
                or not line.strip()
                for line in c.source.splitlines()
            )


def test_report_files(built):
    assert built.name == "report_toy"
    for name in REPORT_FILES:
        assert (built / name).stat().st_size > 0
    assert sorted(p.name for p in built.iterdir()) == sorted(REPORT_FILES)
    assert not [p for p in built.parent.iterdir() if p.name.startswith(".")]  # no leftovers
    data = json.loads((built / "par.json").read_text())
    assert data["bet"] == 2 and data["rtp_exact"] == "7553/8192"


def test_workbook_read_back(built):
    check_workbook_matches_json(built / "par.xlsx", built / "par.json")
    book = read_workbook(built / "par.xlsx")
    params = book["Identification"]["Notebook parameters"].set_index("figure")["value"]
    assert params["parameter Monte Carlo rounds"] == 5_000 and params["parameter bet level"] == 2


def test_html_is_standalone_and_hides_code(built):
    html = (built / "par.html").read_text()
    assert external_references(html) == []
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert "sheet.show" not in html and "par_sheet(" not in html
    assert "<title>PAR sheet: Report Toy</title>" in html
    for title in SECTIONS:
        assert title in html
    assert html.count('src="data:image/png;base64,') >= 6


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium missing (.ci/run installs it)")
def test_page_in_headless_chromium(built, tmp_path):
    from PIL import Image
    from playwright.sync_api import sync_playwright

    requests, errors = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto((built / "par.html").resolve().as_uri(), wait_until="load")
            height = page.evaluate("document.body.scrollHeight")
            images = page.evaluate("Array.from(document.images).map(i => i.naturalWidth)")
            shot = tmp_path / "page.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert errors == []
    # the page itself is the only request: nothing from the network
    assert requests == [(built / "par.html").resolve().as_uri()]
    assert height > 3000 and len(images) >= 6 and min(images) > 100  # every figure decoded
    pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert pixels.shape[0] > 3000
    assert (pixels < 250).mean() > 0.03  # not blank: ink on a good share of the page
    assert pixels.std() > 20


def _notebook_with(cells, tmp_path) -> Path:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])] + [
        nbformat.v4.new_code_cell(src, id=f"cell{i}") for i, src in enumerate(cells)
    ]
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    return path


def test_failure_keeps_the_previous_report(built, tmp_path):
    before = {name: (built / name).read_bytes() for name in REPORT_FILES}
    out = built.parent
    broken = _notebook_with(["raise RuntimeError('strips do not load')"], tmp_path)
    with pytest.raises(ReportError) as err:
        run_report(str(TOY), out, spins=0, notebook=broken, progress=False)
    e = err.value
    assert (e.game, e.step, e.status) == ("report_toy", "execute notebook", 1)
    assert "RuntimeError: strips do not load" in str(e) and "report report_toy" in str(e)
    # a notebook that ends without writing the files fails the output check
    silent = _notebook_with(["x = 1"], tmp_path)
    with pytest.raises(ReportError) as err:
        run_report(str(TOY), out, spins=0, notebook=silent, progress=False)
    assert err.value.step == "check outputs" and "par.json" in str(err.value)
    after = {name: (built / name).read_bytes() for name in REPORT_FILES}
    assert after == before
    assert sorted(p.name for p in out.iterdir()) == ["report_toy"]


# ------------------------------------------------------------ a report one can publish
def test_rebuild_is_byte_identical(built):
    # the same game, parameters and folder: every file is the same, byte for byte
    before = {name: (built / name).read_bytes() for name in REPORT_FILES}
    again = run_report(str(TOY), built.parent, level=2, spins=5_000, seed=11, progress=False)
    changed = [name for name in REPORT_FILES if (again / name).read_bytes() != before[name]]
    assert changed == []


def test_publishable(built):
    from report_checks import (
        allowed_names,
        code_names,
        failing_checks,
        payback_problems,
        paylines_problems,
        probability_problems,
        workbook_problems,
    )

    html = (built / "par.html").read_text()
    assert code_names(html, allowed_names(built, TOY)) == []
    assert workbook_problems(built / "par.xlsx") == []
    assert probability_problems(built / "par.xlsx") == []
    assert payback_problems(built) == []
    assert failing_checks(built / "par.xlsx") == []
    assert paylines_problems(built) == []
    # the contents line links every section heading
    for key in ("identification", "paylines", "simulation"):
        assert f'href="#sec-{key}"' in html and f'id="sec-{key}"' in html
    assert "par-scroll" not in html  # strips in full, no scroll boxes


def test_code_names_are_found():
    from report_checks import code_names

    page = "<p>hit_probability 0.5</p><p>WILD_3 on reel 1</p><style>.a_b {}</style>"
    assert code_names(page) == ["hit_probability"]
    assert code_names("<td>expected turnover between wins</td>") == []
    assert code_names("<td>report_toy</td>", allowed=["report_toy"]) == []


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium missing (.ci/run installs it)")
def test_printed_pages(built, tmp_path):
    from report_checks import print_pdf, print_problems, printed_table_problems, section_headings

    pdf = tmp_path / "par.pdf"
    print_pdf(built / "par.html", pdf)
    headings, intros = section_headings((built / "par.html").read_text(encoding="utf-8"))
    assert len(headings) == 13  # every section of a line game
    pages, problems = print_problems(pdf, headings, "PAR sheet: Report Toy", intros)
    assert problems == []
    assert printed_table_problems(pdf, (built / "par.html").read_text(encoding="utf-8")) == []
    assert 8 <= pages <= 20  # the toy game's 13 sections on A4
