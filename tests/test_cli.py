"""The ``slotmath`` command line on the sample games: the ``par --json``
object, GAME given as a folder, a file or a name, reproducible simulations
and Monte Carlo agreement with the exact figures (|z| < 4)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from slotmath.engine.distribution import z_value
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

from conftest import GAMES, run_cli, run_cli_many

REQUIRED = {
    "game",
    "bet",
    "bet_levels",
    "rtp",
    "rtp_exact",
    "hit_frequency",
    "sd",
    "volatility_index",
    "max_win",
    "cycle",
    "components",
}


# every CLI call of this file, run concurrently once (each call pays the start-up cost)
CALLS = {
    "par by name": ("par", "fruit_classic", "--json"),
    "par by file, bet 3": ("par", "data/games/fruit_classic/game.yaml", "--bet", "3", "--json"),
    "par by folder": ("par", str(GAMES / "video20"), "--json"),
    "par text": ("par", "data/games/fruit_classic"),
    "seed 7": ("simulate", "fruit_classic", "--spins", "20000", "--seed", "7", "--json"),
    "seed 7 again": ("simulate", "fruit_classic", "--spins", "20000", "--seed", "7", "--json"),
    "seed 8": ("simulate", "fruit_classic", "--spins", "20000", "--seed", "8", "--json"),
    "mc fruit_classic": ("simulate", "fruit_classic", "--spins", "400000", "--seed", "2024", "--json"),
    "mc video20": ("simulate", "video20", "--spins", "400000", "--seed", "2024", "--json"),
}


@pytest.fixture(scope="module")
def cli():
    return dict(zip(CALLS, run_cli_many(list(CALLS.values())), strict=True))


def output(cli, call: str, as_json: bool = True):
    proc = cli[call]
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout) if as_json else proc.stdout  # one JSON object on stdout


def check_par_object(obj: dict, name: str, level: int):
    game = load_game(name)
    exact = par(game, level)
    assert REQUIRED <= obj.keys()
    assert obj["game"] == name
    assert obj["bet"] == level and obj["bet_levels"] == game.levels
    # rtp_exact is "p/q", the same number as the engine's Fraction and as rtp
    p, q = obj["rtp_exact"].split("/")
    assert Fraction(int(p), int(q)) == exact.rtp
    assert obj["rtp"] == float(exact.rtp)
    assert obj["cycle"] == game.cycle() == math.prod(s.total_weight for s in game.strips())
    assert 0 < obj["hit_frequency"] <= 1 and obj["hit_frequency"] == float(exact.distribution.hit_frequency)
    assert obj["sd"] == pytest.approx(float(exact.distribution.variance) ** 0.5, rel=1e-12)
    assert set(obj["volatility_index"]) == {"90", "95", "99"}
    for key, conf in (("90", 0.90), ("95", 0.95), ("99", 0.99)):
        assert obj["volatility_index"][key] == pytest.approx(z_value(conf) * obj["sd"], rel=1e-12)
    assert obj["volatility_index"]["90"] == pytest.approx(1.6448536 * obj["sd"], rel=1e-6)
    assert obj["max_win"] == float(exact.distribution.max_win)
    assert math.isclose(sum(obj["components"].values()), obj["rtp"], rel_tol=1e-12)
    return exact


def test_par_json_by_name(cli):
    check_par_object(output(cli, "par by name"), "fruit_classic", 1)


def test_par_json_by_file_with_bet_level(cli):
    # fruit_classic's top award is non-linear in coins: the RTP depends on the level
    exact = check_par_object(output(cli, "par by file, bet 3"), "fruit_classic", 3)
    assert exact.rtp != par(load_game("fruit_classic"), 1).rtp


def test_par_json_by_folder_video20(cli):
    obj = output(cli, "par by folder")
    exact = check_par_object(obj, "video20", 1)
    assert set(obj["components"]) == {"lines", "scatters"}
    s = exact.components["scatters"]
    assert obj["components_exact"]["scatters"] == f"{s.numerator}/{s.denominator}"
    assert len(obj["per_line_rtp"]) == 20


def test_game_name_resolves_from_any_folder(tmp_path):
    proc = run_cli("validate", "fruit_classic", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""
    assert str(GAMES / "fruit_classic" / "game.yaml") in proc.stdout and "ok" in proc.stdout


def test_par_text_output(cli):
    text = output(cli, "par text", as_json=False)
    exact = par(load_game("fruit_classic"))
    assert "Combination table" in text and cli["par text"].stderr == ""
    assert f"{float(exact.rtp):.6%}" in text


def test_simulate_is_reproducible_with_a_seed(cli):
    a, b, c = (output(cli, k) for k in ("seed 7", "seed 7 again", "seed 8"))
    for key in ("rtp", "hit_frequency", "sd"):
        assert a[key] == b[key]
    assert a["rtp"]["value"] != c["rtp"]["value"]
    assert a["simulated"] is True and a["spins"] == 20000 and a["seed"] == 7


@pytest.mark.parametrize("name", ["fruit_classic", "video20"])
def test_monte_carlo_agrees_with_exact(cli, name):
    obj = output(cli, f"mc {name}")
    exact = par(load_game(name))
    for key, value in (("rtp", float(exact.rtp)), ("hit_frequency", exact.hit_frequency), ("sd", exact.sd)):
        est = obj[key]
        assert est["exact"] == pytest.approx(value, rel=1e-12)
        assert est["se"] > 0
        z = (est["value"] - value) / est["se"]
        assert est["z"] == pytest.approx(z, rel=1e-9, abs=1e-12)
        assert abs(z) < 4, (key, est)
        lo, hi = est["ci95"]
        assert lo < est["value"] < hi


@pytest.mark.parametrize("name, spins", [("fruit_classic", 400_000), ("video20", 100_000)])
def test_reference_simulator_agrees_with_exact(name, spins):
    # The reference simulator evaluates whole windows with slotmath.engine.evaluate, a code path
    # independent of the pay tensor the exact engine (and the compiled sampler) share.
    from slotmath.montecarlo.results import simulate_lines as simulate

    game = load_game(name)
    exact = par(game)
    values = {"rtp": float(exact.rtp), "hit_frequency": exact.hit_frequency, "sd": exact.sd}
    result = simulate(game, spins, seed=11, exact=values)
    for key in values:
        est = getattr(result, key)
        assert est.se > 0 and abs(est.z) < 4, (key, est)


def test_validate_names_the_ways_or_the_lines():
    # Game.ways_or_lines: rows ** reels for a ways game (4 ** 6), else the paylines
    assert load_game("ways4096").ways_or_lines == 4096 and load_game("video20").ways_or_lines == 20
    assert "4,096 ways, reel sets" in run_cli("validate", "ways4096").stdout
    assert "20 lines, reel sets" in run_cli("validate", "video20").stdout


def test_warmup_is_a_listed_command(capsys):
    """``slotmath warmup`` (run by ``make install``) is listed and parses;
    its work, compiling every kernel, is what ``make install`` times."""
    from slotmath.cli import build_parser
    from slotmath.cli.warmup import PAR_GAMES
    from slotmath.io.search import bundled_games

    assert "warmup" in build_parser(["--help"]).format_help()
    args = build_parser(["warmup"]).parse_args(["warmup"])
    assert args.func.__module__ == "slotmath.cli.warmup"
    assert all((bundled_games() / name / "game.yaml").is_file() for name in PAR_GAMES)
