"""The committed reports under reports/ are those of the games in data/games
and still agree with the engine (regenerate with `make report`)."""

import json
import math

import pytest

from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.report.notebook import REPORT_FILES, REPORTS_DIR, all_games
from slotmath.report.workbook import read_workbook
from slotmath.rules.par import par

pytestmark = pytest.mark.slow  # the exact analysis of every game
GAMES = all_games()
TOL = 1e-12


def differences(committed, engine, path="") -> list:
    """Where two JSON values differ: numbers beyond 1e-12 (relative, or
    absolute near zero), anything else unequal."""
    if isinstance(committed, dict) and isinstance(engine, dict):
        out = [f"{path}.{k}: only in one of them" for k in committed.keys() ^ engine.keys()]
        for k in committed.keys() & engine.keys():
            out += differences(committed[k], engine[k], f"{path}.{k}")
        return out
    if isinstance(committed, list) and isinstance(engine, list):
        if len(committed) != len(engine):
            return [f"{path}: {len(committed)} entries committed, {len(engine)} now"]
        return [
            d
            for i, (a, b) in enumerate(zip(committed, engine, strict=True))
            for d in differences(a, b, f"{path}[{i}]")
        ]
    numbers = (int, float)
    if (
        isinstance(committed, numbers)
        and isinstance(engine, numbers)
        and not isinstance(committed, bool)
        and not isinstance(engine, bool)
    ):
        if isinstance(committed, int) and isinstance(engine, int):
            return [] if committed == engine else [f"{path}: {committed} committed, {engine} now"]
        if math.isclose(committed, engine, rel_tol=TOL, abs_tol=TOL):
            return []
        return [f"{path}: {committed!r} committed, {engine!r} now"]
    return [] if committed == engine else [f"{path}: {committed!r} committed, {engine!r} now"]


def test_differences_finds_changes():
    base = {"rtp": 0.95, "rtp_exact": "19/20", "components": {"lines": 0.95}, "cycle": 10}
    assert differences(base, json.loads(json.dumps(base))) == []
    assert differences(base, {**base, "rtp": 0.95 + 1e-10})[0].startswith(".rtp: 0.95 committed")
    assert differences(base, {**base, "rtp_exact": "19/21"})
    assert differences(base, {**base, "components": {"lines": 0.9, "scatters": 0.05}})
    assert differences(base, {**base, "cycle": 11})
    assert differences(base, {**base, "rtp": 0.95 * (1 + 1e-14)}) == []


def test_every_game_has_a_committed_report():
    assert GAMES, "data/games holds no game"
    for game in GAMES:
        missing = [f for f in REPORT_FILES if not (REPORTS_DIR / game / f).is_file()]
        assert not missing, f"reports/{game} lacks {missing}: run `make report`"
    orphans = sorted(
        p.name
        for p in REPORTS_DIR.iterdir()
        if p.is_dir() and not p.name.startswith(".") and p.name not in GAMES
    )
    assert not orphans, f"reports without a game in data/games: {orphans}"


@pytest.mark.parametrize("game", GAMES)
def test_committed_json_matches_the_engine(game):
    path = REPORTS_DIR / game / "par.json"
    if not path.is_file():
        pytest.fail(f"reports/{game}/par.json is missing: run `make report`")
    committed = json.loads(path.read_text())
    now = json.loads(par(load_game(game), committed["bet"]).to_json())
    # the headline figures first, for a readable failure
    assert committed["rtp_exact"] == now["rtp_exact"]
    for key in ("rtp", "hit_frequency", "sd"):
        assert math.isclose(committed[key], now[key], rel_tol=TOL, abs_tol=TOL), key
    assert not differences(committed["max_win"], now["max_win"])  # None: no largest win
    assert committed["components"].keys() == now["components"].keys()
    for key, value in committed["components"].items():
        assert math.isclose(value, now["components"][key], rel_tol=TOL, abs_tol=TOL), key
    # the report's payback ranges are exact quantiles (never below 0), not the
    # command's normal approximation: checked by test_committed_report_is_publishable
    committed.pop("confidence")
    now.pop("confidence")
    # a game with bet modes: each mode's figures against its exact PAR (the
    # base mode's round is the rest of the file)
    modes = committed.pop("modes", None)
    if modes is not None:
        from slotmath.rules.modepar import all_modes_par

        engine = {name: m.to_dict() for name, m in all_modes_par(load_game(game), committed["bet"]).items()}
        engine["base"].pop("round")
        assert modes.keys() == engine.keys()
        diffs = differences(json.loads(json.dumps(modes)), json.loads(json.dumps(engine)))
        assert not diffs, f"reports/{game}/par.json modes are stale (run `make report`): {diffs[:10]}"
    diffs = differences(committed, now)
    assert not diffs, f"reports/{game}/par.json is stale (run `make report`): {diffs[:10]}"


@pytest.mark.parametrize("game", GAMES)
def test_committed_workbook_matches_its_json(game):
    folder = REPORTS_DIR / game
    if not (folder / "par.xlsx").is_file():
        pytest.fail(f"reports/{game}/par.xlsx is missing: run `make report`")
    from test_report import check_workbook_matches_json

    check_workbook_matches_json(folder / "par.xlsx", folder / "par.json")
    assert read_workbook(folder / "par.xlsx")["Identification"]


# ------------------------------------------------------------ publishable reports
def _folder(game):
    folder = REPORTS_DIR / game
    if not (folder / "par.json").is_file():
        pytest.fail(f"reports/{game} is missing: run `make report`")
    return folder


@pytest.mark.parametrize("game", GAMES)
def test_committed_report_is_publishable(game):
    from report_checks import (
        allowed_names,
        code_names,
        count_odds_problems,
        failing_checks,
        feature_problems,
        fraction_problems,
        identification_problems,
        jackpot_event_problems,
        payback_problems,
        paylines_problems,
        probability_problems,
        workbook_problems,
    )

    folder = _folder(game)
    html = (folder / "par.html").read_text()
    assert code_names(html, allowed_names(folder, GAMES_DIR / game)) == []
    assert workbook_problems(folder / "par.xlsx") == []
    assert probability_problems(folder / "par.xlsx") == []
    assert payback_problems(folder) == []
    assert failing_checks(folder / "par.xlsx") == []
    assert paylines_problems(folder) == []
    assert identification_problems(folder, GAMES_DIR / game / "game.yaml") == []
    assert fraction_problems(html) == []
    components = json.loads((folder / "par.json").read_text())["components"]
    assert feature_problems(html, components, load_game(game).rules) == []
    features = json.loads((folder / "par.json").read_text()).get("features") or {}
    assert jackpot_event_problems(html, features, load_game(game).rules) == []
    assert count_odds_problems(folder / "par.xlsx") == []
    assert "par-scroll" not in html


@pytest.mark.parametrize("game", GAMES)
def test_committed_report_prints(game, tmp_path):
    from report_checks import CHROMIUM, print_pdf, print_problems, printed_table_problems, section_headings

    if not CHROMIUM.exists():
        pytest.skip("Debian chromium missing (.ci/run installs it)")
    folder = _folder(game)
    pdf = tmp_path / "par.pdf"
    print_pdf(folder / "par.html", pdf)
    title = json.loads((folder / "par.json").read_text())["title"]
    headings, intros = section_headings((folder / "par.html").read_text(encoding="utf-8"))
    assert len(headings) >= 12  # every section (a ways game has no paylines section)
    pages, problems = print_problems(pdf, headings, f"PAR sheet: {title}", intros)
    assert problems == []
    assert printed_table_problems(pdf, (folder / "par.html").read_text(encoding="utf-8")) == []
    assert pages <= 60
