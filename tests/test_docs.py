"""The documentation site: the getting-started game gives the figures the page
states, and the site builds offline with warnings as errors (notebooks
executed) and shows in headless Chromium with no broken internal link and no
missing image."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

from conftest import ROOT, docs_example

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
DOCS = ROOT / "docs"
BUILD_S = 900


def test_getting_started_game_has_the_figures_the_page_states(tmp_path):
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    yaml_text = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    folder = tmp_path / "first_game"
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml_text, encoding="utf-8")
    result = par(load_game(folder))
    # 64 stop combinations, one each of 3 SEVEN (40), 3 BAR (10), 3 CHERRY (5)
    assert result.rtp == Fraction(55, 64)
    assert "Fraction(55, 64)" in text and "85.9375 %" in text
    # the page's top-level calls give the same figures
    import slotmath

    assert slotmath.par(folder).rtp == slotmath.par(slotmath.load(folder), level=1).rtp == result.rtp
    assert result.summary.loc["RTP [x total bet]", "value"] == 0.859375
    assert '"RTP [x total bet]" 0.859375' in text and "RTP 85.937500%" in text


class _Page(HTMLParser):
    """The ids, link targets and image sources of one HTML page."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.images = set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_references(site: Path) -> list:
    """Every internal link (file and #anchor) and image of the site that leads nowhere."""
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    broken = []
    for path, page in pages.items():
        for ref in page.links + page.images:
            url = urlsplit(ref)
            if url.scheme or url.netloc:  # external: not checked offline
                continue
            target = (path.parent / unquote(url.path)).resolve() if url.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{path.relative_to(site)}: {ref}")
            elif url.fragment and target.suffix == ".html":
                if url.fragment not in pages[target].ids:
                    broken.append(f"{path.relative_to(site)}: {ref} (no such anchor)")
    return broken


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site as `make docs` builds it (-W: any warning fails the build)."""
    out = tmp_path_factory.mktemp("docs") / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_S, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-5000:]
    return out


@pytest.mark.slow
def test_site_has_every_page_and_no_broken_reference(site):
    for page in [
        "index",
        "getting-started",
        "game-format",
        "features",
        "engine",
        "reports",
        "tuning",
        "api",
        "changelog",
        "games/grand_spinn_superpot",
        "games/piggy_bankin_superlock",
        "examples/grand_spinn_superpot",
        "examples/piggy_bankin_superlock",
        "examples/par_sheet",
        "examples/reel_tuning",
        "examples/workbench",
        "generated/slotmath.rules.par.par",
        "generated/slotmath.io.gamefile.load_game",
    ]:
        assert (site / f"{page}.html").is_file(), page
    assert broken_references(site) == []


@pytest.mark.slow
def test_api_pages_show_the_docstrings(site):
    page = (site / "generated" / "slotmath.rules.par.par.html").read_text(encoding="utf-8")
    assert 'class="sig-name descname"' in page and "Exact PAR figures of" in page
    result = (site / "generated" / "slotmath.rules.result.ParResult.html").read_text(encoding="utf-8")
    assert "Exact figures of one game at one bet level" in result and "Attributes" in result
    assert ".. auto" not in page + result  # reStructuredText shown as text


@pytest.mark.slow
def test_notebooks_are_rendered_with_their_outputs(site):
    for name in ["grand_spinn_superpot", "piggy_bankin_superlock", "par_sheet"]:
        page = _parse(site / "examples" / f"{name}.html")
        figures = [src for src in page.images if src.endswith(".png") or src.startswith("data:image/png")]
        assert figures, f"{name}: no figure output"
    # the Grand Spinn walk-through prints its exact RTP from par()
    text = (site / "examples" / "grand_spinn_superpot.html").read_text(encoding="utf-8")
    assert "96.2" in text
    assert "reel_tuning_workbench.png" in (site / "examples" / "workbench.html").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium; .ci/run does this)",
)
@pytest.mark.parametrize(
    "page", ["index.html", "generated/slotmath.rules.par.par.html", "examples/grand_spinn_superpot.html"]
)
def test_page_shows_in_chromium_with_every_image_and_link(site, page):
    from playwright.sync_api import sync_playwright

    failed, external = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            tab = browser.new_page()
            tab.on("requestfailed", lambda r: failed.append(r.url))
            tab.on("request", lambda r: external.append(r.url) if r.url.startswith("http") else None)
            tab.goto((site / page).as_uri())
            tab.wait_for_load_state("load")
            title = tab.title()
            images = tab.eval_on_selector_all(
                "img", "els => els.map(e => [e.getAttribute('src'), e.complete && e.naturalWidth > 0])"
            )
            links = tab.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        finally:
            browser.close()
    assert "slotmath" in title
    assert failed == [], f"requests that failed: {failed}"
    assert external == [], f"the page asks the network for {external}"
    assert all(shown for _, shown in images), [src for src, shown in images if not shown]
    internal = [urlsplit(u) for u in links if u.startswith("file:")]
    assert internal, "no internal links"
    missing = [u.path for u in internal if not Path(unquote(u.path)).exists()]
    assert missing == []


def test_broken_reference_check_finds_a_missing_page_anchor_and_image(tmp_path):
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#here">ok</a><a href="#top">ok</a>'
        '<a href="c.html">no page</a><a href="b.html#gone">no anchor</a>'
        '<img src="pic.png"><a href="https://example.org/x">external</a>',
        encoding="utf-8",
    )
    (tmp_path / "b.html").write_text('<p id="here">B</p>', encoding="utf-8")
    assert broken_references(tmp_path) == [
        "a.html: c.html",
        "a.html: b.html#gone (no such anchor)",
        "a.html: pic.png",
    ]


def test_free_games_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "Worked example: free games": E[spin win] = 33/32,
    # p = 1/64, 2 games at x3: RTP = 33/32 + (1/64) x 2/(1 - 2/64) x 3 x 33/32 = 561/496
    game, section = docs_example(tmp_path, "### Worked example: free games")
    result = par(game)
    assert result.rtp == Fraction(561, 496)
    assert result.components == {"lines": 1, "scatters": Fraction(1, 32), "free_games": Fraction(99, 992)}
    assert "`561/496`" in section and "113.1048 %" in section and f"{float(result.rtp):.4%}" == "113.1048%"


def test_free_games_by_trigger_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "Free games by trigger: worked example": E[Y] = 15/16,
    # E[K] = 1/8 + 5/32 x 2 = 7/16; free games (1/8 + 5/32 x 2 x 2) x E[Y] / (1 - E[K]) = 5/4
    game, section = docs_example(tmp_path, "### Free games by trigger: worked example")
    result = par(game)
    e_y, ek = Fraction(15, 16), Fraction(1, 8) + Fraction(5, 32) * 2
    assert result.components == {
        "lines": e_y,
        "free_games": (Fraction(1, 8) + Fraction(5, 32) * 4) * e_y / (1 - ek),
    }
    assert result.rtp == Fraction(35, 16)
    assert "`35/16`" in section and "218.7500 %" in section and f"{float(result.rtp):.4%}" == "218.7500%"


def test_reel_set_per_trigger_count_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "A reel set per trigger count: worked example": a game on low is
    # worth (9/64) / (1 - 5/32) = 1/6, on high (9/8) / (1 - 1/2) = 9/4 (retriggers keep the set);
    # free games 9/64 x 1/6 + 1/64 x 2 x 9/4 = 3/32, RTP 1/8 + 1/64 + 3/32 = 15/64
    game, section = docs_example(tmp_path, "### A reel set per trigger count: worked example")
    result = par(game)
    low, high = Fraction(9, 64) / (1 - Fraction(5, 32)), Fraction(9, 8) / (1 - Fraction(1, 2))
    assert (low, high) == (Fraction(1, 6), Fraction(9, 4))
    free = Fraction(9, 64) * low + Fraction(1, 64) * 2 * high
    assert result.components == {"lines": Fraction(1, 8), "scatters": Fraction(1, 64), "free_games": free}
    assert result.rtp == Fraction(15, 64)
    assert "`15/64`" in section and "23.4375 %" in section and f"{float(result.rtp):.4%}" == "23.4375%"
    everything_low = docs_game_text(section).replace(", reels: high", "")
    lines = [ln for ln in everything_low.splitlines() if not ln.startswith("  high:")]
    (tmp_path / "low").mkdir()
    (tmp_path / "low" / "game.yaml").write_text("\n".join(lines), encoding="utf-8")
    low_only = par(load_game(tmp_path / "low")).components["free_games"]
    assert low_only == Fraction(9, 64) * low + Fraction(1, 64) * 2 * low == Fraction(11, 384)
    assert "= 11/384`" in section


def test_count_on_a_payline_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "A count on a payline: worked example": E[Y] = 1/8, a run of 2 with
    # 3/64, of 3 with 1/64, E[K] = 5/64; free games (3/64 + 2/64) x (1/8) / (59/64) = 5/472
    game, section = docs_example(tmp_path, "### A count on a payline: worked example")
    result = par(game)
    worth = Fraction(1, 8) / (1 - Fraction(5, 64))
    assert worth == Fraction(8, 59)
    assert result.components == {"lines": Fraction(1, 8), "free_games": Fraction(5, 64) * worth}
    assert result.components["free_games"] == Fraction(5, 472) and result.rtp == Fraction(8, 59)
    assert "`8/59`" in section and "13.5593 %" in section and f"{float(result.rtp):.4%}" == "13.5593%"
    anywhere = docs_game_text(section).replace("    trigger: {payline: true}\n", "")
    (tmp_path / "anywhere").mkdir()
    (tmp_path / "anywhere" / "game.yaml").write_text(anywhere, encoding="utf-8")
    assert par(load_game(tmp_path / "anywhere")).components["free_games"] == Fraction(11, 424)
    assert "`11/424`" in section


def docs_game_text(section: str) -> str:
    """The first YAML block of a docs section."""
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def test_max_win_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "Worked example: maximum win": 2 + 2 x 3 x 8 = 50 x
    # total bet with probability 1/64 x (8/64)^2 = 1/4096
    game, section = docs_example(tmp_path, "### Worked example: maximum win")
    top = par(game).true_max_win
    assert top.exact and (top.value, top.probability) == (50, Fraction(1, 4096))
    assert "`2 + 48 = 50`" in section and "1/4096" in section


def test_sticky_wilds_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "Sticky wilds: worked example": free spins worth
    # 19/32 then 3029/2048 (the sticky reels binomial(3, 1/4)), x2, trigger 1/64:
    # RTP = 1/16 + 1/32 + (1/64) x 2 x 4245/2048 = 10389/65536; top win 42 at 1/4096
    game, section = docs_example(tmp_path, "### Sticky wilds: worked example")
    result = par(game)
    assert result.rtp == Fraction(10389, 65536)
    assert result.components == {
        "lines": Fraction(1, 16),
        "scatters": Fraction(1, 32),
        "free_games": Fraction(1, 64) * 2 * (Fraction(19, 32) + Fraction(3029, 2048)),
    }
    assert result.distribution.max_win == 42
    assert result.distribution.probabilities[-1] == pytest.approx(1 / 4096, abs=1e-15)
    assert "`10389/65536`" in section and f"{float(result.rtp):.4%}" == "15.8524%" and "15.8524 %" in section
    # lumping: the reels are alike, so the masks group by their number of sticky reels
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    classes = sticky_games(game, 1, load_features(game).free_games).classes
    by_count = {
        bin(m).count("1"): {c for n, c in classes.items() if bin(n).count("1") == bin(m).count("1")}
        for m in classes
    }
    assert (
        len(classes) == 8 and all(len(c) == 1 for c in by_count.values()) and len(set(classes.values())) == 4
    )
    assert "the 8 masks lump\n  to 4 classes" in section


def test_sticky_ways_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "Sticky wilds on a ways game: worked example": a free
    # reel's A-or-W cells c = 2, 1, 0, 1 (mean 1); after spin 1 a reel holds 1
    # sticky cell with probability 1/2 (c = 2, 1, 1, 2: mean 3/2), so spin 2 is
    # worth (1/2 x 1 + 1/2 x 3/2)^3 = (5/4)^3 = 125/64; trigger 1/8:
    # RTP = 1/8 + 1/8 + (1/8)(1 + 125/64) = 317/512; top 1 + 1 + 8 + 8 = 18 at
    # (1/64)(1/64)(1/8) = 1/32768
    game, section = docs_example(tmp_path, "### Sticky wilds on a ways game: worked example")
    result = par(game)
    assert result.components == {
        "ways": Fraction(1, 8),
        "scatters": Fraction(1, 8),
        "free_games": Fraction(1, 8) * (1 + Fraction(5, 4) ** 3),
    }
    assert result.rtp == Fraction(317, 512)
    assert "`317/512`" in section and f"{float(result.rtp):.4%}" == "61.9141%" and "61.9141 %" in section
    assert "`189/512`" in section and "`1 + 125/64 = 189/64`" in section
    assert result.distribution.max_win == 18
    assert result.distribution.probabilities[-1] == pytest.approx(1 / 32768, abs=1e-15)
    assert "`1 + 1 + 8 + 8 = 18`" in section and "`1/32768`" in section
    # the state: 3 classes a reel (by count), 27 masks, lumped to 10 (the reels' permutations)
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    sg = sticky_games(game, 1, load_features(game).free_games)
    assert [sorted(set(c.values())) for c in sg.canon] == [[0, 1, 3]] * 3  # none, one cell, both
    assert len(sg.moves) == 27 and len(set(sg.classes.values())) == 10
    assert "27 masks lumped to 10 classes" in section
    assert any("27 sticky masks, lumped to 10 classes" in note for note in result.notes)


def test_lockit_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, lockit, "Worked example: lock-it": lines 1/2; keys (1, 1) at 1/16
    # (award 10) and (1, 0), (0, 1) at 3/16 each (mean 3/4 x 10 + 1/4 x 2 = 8):
    # lockit = 10/16 + 6/16 x 8 = 29/8, RTP = 33/8, P(full) = 1/16 + 6/16 x 3/4 = 11/32
    game, section = docs_example(tmp_path, "### Worked example: lock-it")
    result = par(game)
    assert result.rtp == Fraction(33, 8)
    assert result.components == {"lines": Fraction(1, 2), "lockit": Fraction(29, 8)}
    fig = result.features["lockit"]
    assert fig["trigger_probability_exact"] == "7/16"
    assert fig["full_screen_probability"] == pytest.approx(11 / 32, rel=1e-15)
    assert "`33/8`" in section and "412.5000 %" in section and f"{float(result.rtp):.4%}" == "412.5000%"


def test_bet_modes_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md, "Worked example: bet modes": ante E = 3/8 + (1/8)(198/31)
    # = 291/248 over 5/4 = 291/310; buy 198/31 over 13/2 = 396/403
    from slotmath.rules.modepar import all_modes_par

    game, section = docs_example(tmp_path, "### Worked example: bet modes")
    rtp = {name: m.rtp for name, m in all_modes_par(game).items()}
    assert rtp == {"base": Fraction(561, 496), "ante": Fraction(291, 310), "buy": Fraction(396, 403)}
    for value, shown in ((291 / 310, "93.8710 %"), (396 / 403, "98.2630 %")):
        assert f"{value:.4%}" == shown.replace(" ", "") and shown in section
    assert all(f"`{r.numerator}/{r.denominator}`" in section for r in rtp.values())
