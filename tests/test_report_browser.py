"""Reports opened in headless Chromium run no script.

Every committed report (``reports/*/par.html``) and the report of the
hostile game ``tests/data/injection`` (built here by ``slotmath report``,
and its sections as one page) are opened with a page-level hook on
``alert``, ``confirm`` and ``prompt`` installed before any of the page runs;
the hostile strings call ``alert`` if they ever become markup.  The test
asserts no call, no ``<script>`` element, no element with an event-handler
attribute and no network request.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT, TEST_DATA

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"), reason="no chromium"),
]

HOOK = """
window.__calls = [];
for (const name of ['alert', 'confirm', 'prompt', 'print', 'open']) {
  window[name] = (...args) => { window.__calls.push([name, String(args[0])]); return null; };
}
"""
HANDLERS = """() => Array.from(document.querySelectorAll('*')).flatMap(
  e => Array.from(e.attributes).filter(a => a.name.toLowerCase().startsWith('on'))
       .map(a => e.tagName + ' ' + a.name))"""
COMMITTED = sorted((ROOT / "reports").glob("*/par.html"))


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def open_page(browser, path: Path) -> dict:
    """Open ``path``; what ran: hooked calls, scripts, handler attributes, requests."""
    context = browser.new_context(java_script_enabled=True)
    requests: list = []

    def local(url: str) -> bool:
        return url.startswith(("file:", "data:"))

    context.on("request", lambda r: None if local(r.url) else requests.append(r.url))
    context.route("**/*", lambda route: route.continue_() if local(route.request.url) else route.abort())
    context.add_init_script(HOOK)
    page = context.new_page()
    try:
        page.goto(path.resolve().as_uri(), wait_until="load")
        page.wait_for_timeout(300)  # a handler such as onload/ontoggle/onerror has had its turn
        return {
            "calls": page.evaluate("window.__calls"),
            "scripts": page.evaluate("document.scripts.length"),
            "handlers": page.evaluate(HANDLERS),
            "requests": requests,
            "title": page.title(),
        }
    finally:
        context.close()


def assert_inert(seen: dict) -> None:
    assert seen["calls"] == [], seen
    assert seen["scripts"] == 0, seen
    assert seen["handlers"] == [], seen
    assert seen["requests"] == [], seen


def test_the_hook_catches_a_script(browser, tmp_path):
    # the check can fail: a page with a handler is caught
    page = tmp_path / "bad.html"
    page.write_text('<img src="data:," onerror="alert(1)"><svg onload="confirm(2)"></svg>', encoding="utf-8")
    seen = open_page(browser, page)
    assert {c[0] for c in seen["calls"]} == {"alert", "confirm"}
    assert len(seen["handlers"]) == 2


@pytest.mark.parametrize("report", COMMITTED, ids=[p.parent.name for p in COMMITTED])
def test_committed_report_runs_no_script(browser, report):
    assert_inert(open_page(browser, report))


def test_injection_sections_run_no_script(browser, tmp_path):
    from slotmath.report.sheet import par_sheet
    from slotmath.report.sheetparts import SECTIONS

    sheet = par_sheet(str(TEST_DATA / "injection"), spins=0)
    body = "\n".join(sheet.section_html(k) for k in ("title", "contents", *SECTIONS))
    page = tmp_path / "sections.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>", "utf-8")
    assert_inert(open_page(browser, page))


def test_injection_report_runs_no_script(browser, tmp_path, monkeypatch):
    from slotmath.report.notebook import run_report

    # the kernel drops its working directory from sys.path (ignore_cwd): run it
    # elsewhere so that a PYTHONPATH naming this checkout's root is kept
    monkeypatch.chdir(tmp_path)
    target = run_report(str(TEST_DATA / "injection"), tmp_path / "reports", spins=1000, progress=False)
    seen = open_page(browser, target / "par.html")
    assert_inert(seen)
    assert "<svg onload=alert(1)>" in seen["title"]  # the title is shown, as text
