"""Make docs/_static/reel_tuning_workbench.png: the reel-tuning workbench as a
person sees it in JupyterLab.

The notebook runs on the small tuning test game in a JupyterLab server on
localhost (the server of the real-browser test, tests/test_browser_tuning.py),
Debian's headless Chromium runs every cell and photographs the workbench.
Run from the repository root when the workbench's look changes:

    .venv/bin/python docs/workbench_picture.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "_static" / "reel_tuning_workbench.png"
sys.path.insert(0, str(ROOT / "tests"))

from test_browser_tuning import CHROMIUM, CHROMIUM_ARGS, KERNEL_READY, jupyterlab  # noqa: E402

WORKBENCH = ".jp-OutputArea-output .widget-vbox"  # the ReelTuner's outer box
RTP_CHANGED = "b => { const e = document.querySelector('.slotmath-rtp'); return !!e && e.innerText !== b; }"


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        server = jupyterlab.__wrapped__(Path(tmp))  # the test's server, as a generator
        url, _game, _log = next(server)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(180_000)
                page.goto(f"{url}/lab/tree/reel_tuning.ipynb?reset")
                page.wait_for_function(KERNEL_READY)
                page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
                page.locator(".slotmath-rtp").wait_for(state="visible")
                page.wait_for_selector("text=rtp +1")
                # one more WILD on reel 1: the figures show the change against the saved file
                before = page.locator(".slotmath-rtp").inner_text()
                box = page.locator(".slotmath-count-r1-WILD input")
                box.fill(str(int(box.input_value()) + 1))
                box.press("Enter")
                page.wait_for_function(RTP_CHANGED, arg=before)
                page.locator("text=no change: the strips are as saved").wait_for(state="detached")
                page.wait_for_timeout(2000)  # the history plot is redrawn after the figures
                page.add_style_tag(content=".Toastify { display: none !important; }")  # news pop-up
                page.locator(WORKBENCH).first.screenshot(path=str(OUT))
                browser.close()
        finally:
            server.close()
    print(OUT)


if __name__ == "__main__":
    main()
