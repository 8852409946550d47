"""The tuning notebook in a real browser: JupyterLab on localhost, headless Chromium.

JupyterLab is started on a free local port (a random token, XSRF checks on, a temporary root
folder holding a copy of the notebook and of a small test game), the
notebook is opened in Debian's Chromium driven by Playwright, all cells
are run, one symbol count is changed in the page and the displayed RTP must
change to the exact RTP of the new strips.  The server is always shut down.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.io.gamefile import load_game
from slotmath.tuning.reelspace import ReelSpace

from conftest import ROOT, TEST_DATA

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
SERVER_START_S = 120
CELLS_RUN_S = 180
CHANGE_S = 60

pytestmark = pytest.mark.slow

# the notebook panel's kernel session is connected and idle
KERNEL_READY = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const ctx = w && w.sessionContext;
  const k = ctx && ctx.session && ctx.session.kernel;
  return !!(ctx && ctx.isReady && k && k.connectionStatus === 'connected' && k.status === 'idle');
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(url: str, proc: subprocess.Popen, log: Path, token: str) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited early:\n{log.read_text()[-3000:]}")
        try:
            request = urllib.request.Request(url + "/api/status", headers={"Authorization": f"token {token}"})
            with urllib.request.urlopen(request, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer within {SERVER_START_S} s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture
def jupyterlab(tmp_path):
    """A JupyterLab server serving a copy of the notebook, behind a random
    token; yields (url, game folder, log, token)."""
    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(ROOT / "notebooks" / "reel_tuning.ipynb", root / "reel_tuning.ipynb")
    game = root / "game"
    shutil.copytree(TEST_DATA / "tune_small", game)
    port = free_port()
    token = secrets.token_hex(24)
    env = dict(
        os.environ,
        SLOTMATH_TUNING_GAME=str(game),
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTER_DATA_DIR=str(tmp_path / "data"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
    )
    log = tmp_path / "jupyterlab.log"
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    with log.open("w") as fh:
        proc = subprocess.Popen(
            cmd, cwd=root, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_server(url, proc, log, token)
        yield url, game, log, token
    finally:
        stop(proc)


@pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium; .ci/run does this)",
)
def test_change_a_count_in_the_page_and_see_the_rtp_change(jupyterlab, tmp_path):
    from playwright.sync_api import sync_playwright

    url, game_dir, log, token = jupyterlab
    with pytest.raises(urllib.error.HTTPError) as refused:  # no token, no access
        urllib.request.urlopen(url + "/api/contents", timeout=5)
    assert refused.value.code == 403
    game = load_game(game_dir)
    space = ReelSpace(game)
    wild = game.symbol_index["WILD"]
    xs = space.x0
    before = f"{float(game_figures(game, 1, needed={'rtp'})['rtp']):.6%}"
    xs[0][wild] += 1  # reel 1: one more WILD
    expected = f"{float(game_figures(space.game_for(xs), 1, needed={'rtp'})['rtp']):.6%}"
    assert expected != before

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            page.set_default_timeout(CELLS_RUN_S * 1000)
            page.goto(f"{url}/lab/tree/reel_tuning.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook")
            page.wait_for_function("window.jupyterapp && window.jupyterapp.commands")
            # run every cell once the kernel is there
            page.wait_for_function(KERNEL_READY)
            # start the command, do not wait for its promise (it resolves only after all cells)
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            rtp = page.locator(".slotmath-rtp")
            rtp.wait_for(state="visible")
            assert rtp.inner_text().strip() == before
            box = page.locator(".slotmath-count-r1-WILD input")
            assert box.input_value() == str(int(space.x0[0][wild]))
            box.fill(str(int(xs[0][wild])))
            box.press("Enter")
            page.wait_for_function(
                "b => document.querySelector('.slotmath-rtp').innerText.trim() !== b",
                arg=before,
                timeout=CHANGE_S * 1000,
            )
            assert rtp.inner_text().strip() == expected
            # the last cell shows the sensitivities of the current strips on request
            page.locator(".slotmath-sensitivity-button").click()
            page.wait_for_selector("text=rtp +1")
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"screenshot: {tmp_path / 'failure.png'}; server log: {log}")
            raise
        finally:
            browser.close()


@pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium; .ci/run does this)",
)
def test_switch_game_solve_and_save_in_the_page(jupyterlab, tmp_path):
    """Switch game -> the target follows the new game's RTP; switch back,
    solve -> progress is shown -> targets met; save -> the file loads and
    the previous one is kept as a backup.  ``SLOTMATH_SCREENSHOTS`` (a folder)
    keeps screenshots of each step."""
    from playwright.sync_api import sync_playwright

    url, game_dir, log, token = jupyterlab
    shots = os.environ.get("SLOTMATH_SCREENSHOTS")
    game = load_game(game_dir)
    own = round(float(game_figures(game, 1, needed={"rtp"})["rtp"]) * 100, 4)
    other = load_game("fruit_classic")
    other_rtp = round(float(game_figures(other, other.levels[0], needed={"rtp"})["rtp"]) * 100, 4)
    assert own != other_rtp

    def shot(name):
        if shots:
            page.screenshot(path=str(Path(shots) / f"{name}.png"), full_page=True)
            for part in ("plot", "reel-tuner"):
                page.locator(f".slotmath-{part}").first.screenshot(
                    path=str(Path(shots) / f"{name}-{part}.png")
                )

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
            page.set_default_timeout(CELLS_RUN_S * 1000)
            page.goto(f"{url}/lab/tree/reel_tuning.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook")
            page.wait_for_function("window.jupyterapp && window.jupyterapp.commands")
            page.wait_for_function(KERNEL_READY)
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            target = page.locator(".slotmath-target-rtp input")
            target.wait_for(state="visible")
            page.wait_for_function(
                "t => Number(document.querySelector('.slotmath-target-rtp input').value) === t", arg=own
            )
            shot("1-loaded")
            picker = page.locator(".slotmath-game select")
            picker.select_option(label="fruit_classic")
            page.wait_for_function(
                "t => Number(document.querySelector('.slotmath-target-rtp input').value) === t",
                arg=other_rtp,
                timeout=CHANGE_S * 1000,
            )
            shot("2-switched")
            picker.select_option(index=0)  # back to the temporary copy
            page.wait_for_function(
                "t => Number(document.querySelector('.slotmath-target-rtp input').value) === t",
                arg=own,
                timeout=CHANGE_S * 1000,
            )
            # solve to 95 % (18-stop toy reels 4 pp away: the shape is released)
            page.locator(".slotmath-keep-shape input").uncheck()
            target.fill("95")
            target.press("Enter")
            # the kernel has the new target (a widget's value reaches it asynchronously,
            # and a click sent before it would solve to the old one)
            page.wait_for_function(
                "() => document.querySelector('.slotmath-progress').innerText"
                ".includes('target RTP 95.0000 %')",
                timeout=CHANGE_S * 1000,
            )
            page.locator(".slotmath-solve").click()
            page.wait_for_function(
                "() => document.querySelector('.slotmath-progress').innerText.includes('exact evaluations')",
                timeout=CHANGE_S * 1000,
            )
            page.wait_for_function(
                "() => document.querySelector('.slotmath-status').innerText.startsWith('targets')",
                timeout=CELLS_RUN_S * 1000,
            )
            status = page.locator(".slotmath-status").inner_text()
            shot("3-solved")
            assert status.startswith("targets met"), status
            page.locator(".slotmath-save").click()
            page.wait_for_function(
                "() => document.querySelector('.slotmath-status').innerText.startsWith('saved')",
                timeout=CHANGE_S * 1000,
            )
            shot("4-saved")
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"screenshot: {tmp_path / 'failure.png'}; server log: {log}")
            raise
        finally:
            browser.close()
    saved = load_game(game_dir)  # valid: loads and checks
    rtp = game_figures(saved, 1, needed={"rtp"})["rtp"]
    assert abs(float(rtp) - 0.95) <= 5e-5
    backups = list(game_dir.glob("game.yaml.*.bak"))
    assert (
        len(backups) == 1 and backups[0].read_text() == (TEST_DATA / "tune_small" / "game.yaml").read_text()
    )
