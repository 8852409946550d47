"""Features on ways games (``pays_by: ways``): the generic round of the line
rules played on the ways pay rule, against an independent brute force
(every stop of the base and free reel sets, the renewal formula written out
here), the compiled sampler's z-scores on ``data/games/ways_free_spins``,
feature components that do not read the pays equal to the line game's, and
the one-line refusals of what ways games do not play."""

from __future__ import annotations

import copy
import itertools
import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from slotmath.io.gamefile import build_game, load_game
from slotmath.rules.linegame import analyse, component_names, components

from conftest import ROOT, docs_example, run_cli

GAMES = ROOT / "data" / "games"

# 3 reels x 2 rows, 1 to 2^3 = 8 ways; the free reels carry a x2 wild (W2).
# 2 or more S anywhere pay 1 x total bet, 2 S award 2 free games, 3 S 5; the
# free games retrigger with the same awards.
FREE = {
    "name": "ways_free32",
    "pays_by": "ways",
    "grid": {"reels": 3, "rows": 2},
    "bet": {"levels": [1], "lines": 10},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild"},
        {"name": "W2", "kind": "wild", "multiplier": {"per_wild": 2}},
        {"name": "S", "kind": "scatter"},
    ],
    "reels": {
        "base": [["A", "B", "S", "B", "A", "B"], ["B", "W", "A", "S", "B", "A"], ["A", "S", "B", "B", "A"]],
        "free": [
            ["A", "S", "B", "A", "B", "B"],
            ["W2", "B", "A", "B", "A"],
            ["B", "A", "S", "W2", "B", "A", "B"],
        ],
    },
    "pays": [
        {"symbol": "A", "count": 2, "pay": 1},
        {"symbol": "A", "count": 3, "pay": 3},
        {"symbol": "B", "count": 3, "pay": 5},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": 1}],
    "options": {
        "free_games": {
            "symbol": "S",
            "reels": "free",
            "awards": {2: {"games": 2}, 3: {"games": 5}},
            "retrigger": True,
        }
    },
}

#: The exact RTP of FREE (docs/features.md, "Features on ways games").
FREE_RTP = {
    "ways": Fraction(44, 75),
    "scatters": Fraction(13, 45),
    "free_games": Fraction(64, 45),
}


FREE_GAMES = FREE["options"]["free_games"]


def make_game(data: dict):
    return build_game(data, Path("test.yaml"), "t")


# ---------------------------------------------------------------------------
# the independent brute force
# ---------------------------------------------------------------------------
def window_of(strips, stops, rows):
    """Symbol of each (reel, row) of the window at ``stops``."""
    return [
        [strip[(s + k) % len(strip)] for k in range(rows)] for strip, s in zip(strips, stops, strict=True)
    ]


def ways_win(data, window) -> Fraction:
    """Ways win of ``window`` [coins]: per paying symbol, its longest run from
    reel 1, ``pay x prod_r (matching cells of reel r, a x2 wild counting 2)``."""
    wild = {
        s["name"]: s.get("multiplier", {}).get("per_wild", 1)
        for s in data["symbols"]
        if s.get("kind") == "wild"
    }
    pays = {(p["symbol"], p["count"]): p["pay"] for p in data["pays"]}
    total = Fraction(0)
    for x in {p["symbol"] for p in data["pays"]}:
        ways, n = 1, 0
        for column in window:
            c = sum(1 if cell == x else wild.get(cell, 0) for cell in column)
            if c == 0:
                break
            ways, n = ways * c, n + 1
        total += pays.get((x, n), 0) * ways
    return total


def spin_law(data, reel_set, nudge=None):
    """Every stop combination of ``reel_set``: (ways win, scatter win, S count),
    wins [x total bet]; equally likely.  A ``nudge`` wild in a reel's window
    fills that reel."""
    bet = data["bet"]["lines"]
    strips = data["reels"][reel_set]
    rows = data["grid"]["rows"]
    scatter = {p["count"]: p["pay"] for p in data["scatters"]}
    out = []
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        window = window_of(strips, stops, rows)
        window = [[nudge] * rows if nudge in column else column for column in window]
        n = sum(cell == "S" for column in window for cell in column)
        paid = max((c for c in scatter if c <= n), default=None)  # the highest count not above n
        out.append((ways_win(data, window) / bet, Fraction(scatter[paid] if paid else 0), n))
    return out


def games(awards: dict, n: int) -> int:
    """Games of the highest award count not above ``n``."""
    return max((v["games"] for c, v in awards.items() if c <= n), default=0)


def brute_force_free(data) -> dict:
    """The round's RTP by component by brute force and renewal: a free game
    pays ``Y`` (its ways + scatter win) and adds ``K`` games; ``n`` games play
    ``E[N] = n / (1 - E[K])`` games in all and pay ``E[N] x E[Y]`` (Wald)."""
    awards = data["options"]["free_games"]["awards"]
    base, free = spin_law(data, "base"), spin_law(data, "free", data["options"]["free_games"].get("nudge"))
    ey = sum((w + s for w, s, _ in free), Fraction(0)) / len(free)
    ek = Fraction(sum(games(awards, n) for _, _, n in free), len(free))
    assert ek < 1
    return {
        "ways": sum((w for w, _, _ in base), Fraction(0)) / len(base),
        "scatters": sum((s for _, s, _ in base), Fraction(0)) / len(base),
        "free_games": sum((games(awards, n) / (1 - ek) * ey for _, _, n in base), Fraction(0)) / len(base),
    }


# ---------------------------------------------------------------------------
# exact figures
# ---------------------------------------------------------------------------
def test_brute_force_is_the_documented_value():
    assert brute_force_free(FREE) == FREE_RTP


def test_documented_figures_are_the_tested_ones(tmp_path):
    """docs/features.md, "Free spins on a ways game: worked example": its
    game is FREE and its figures are the brute force's."""
    doc_game, section = docs_example(tmp_path, "### Free spins on a ways game: worked example")
    assert components(doc_game, 1) == FREE_RTP
    for v in FREE_RTP.values():
        assert f"**{v}**" in section
    text = (ROOT / "docs" / "features.md").read_text()
    game = load_game(GAMES / "ways_free_spins")
    assert str(sum(components(game, 1).values(), Fraction(0))) in text


@pytest.mark.parametrize("reel_set", ["base", "free"])
def test_ways_key_law_by_reel_equals_the_brute_force(reel_set):
    """The ways pass's joint law of (spin win, key) with the key by reel (S
    per reel) and in total (B anywhere): every (win, key) count equals the
    enumeration's."""
    from collections import Counter

    from slotmath.engine.payrule import pay_rule
    from slotmath.features.round import Trigger

    game = make_game(FREE)
    keyed = pay_rule(game).key_distribution(game, 1, [Trigger("S", per_reel=True), Trigger("B")], reel_set)
    strips = FREE["reels"][reel_set]
    want: Counter = Counter()
    law = spin_law(FREE, reel_set)
    for (w, sc, _), stops in zip(law, itertools.product(*(range(len(s)) for s in strips)), strict=True):
        window = window_of(strips, stops, 2)
        key = (tuple(column.count("S") for column in window), sum(column.count("B") for column in window))
        want[(w + sc, key)] += 1
    scale = keyed.unit_den * keyed.total_bet
    got: Counter = Counter()
    for win, key, c in zip(keyed.wins.tolist(), keyed.keys, keyed.counts, strict=True):
        got[(Fraction(win, scale), key)] += c
    assert got == want


def test_free_spins_on_ways_equal_the_brute_force():
    game = make_game(FREE)
    assert component_names(game) == ("ways", "scatters", "free_games")
    assert components(game, 1) == FREE_RTP
    result = analyse(game, 1)
    assert result.components == FREE_RTP
    assert result.rtp == sum(FREE_RTP.values())
    # the round distribution (float) has the exact mean
    assert abs(result.distribution.mean + result.distribution_shortfall - float(result.rtp)) < 1e-9


def test_free_spins_without_retriggers_on_ways():
    data = copy.deepcopy(FREE)
    data["options"]["free_games"]["retrigger"] = False
    awards = data["options"]["free_games"]["awards"]
    base, free = spin_law(FREE, "base"), spin_law(FREE, "free")
    ey = sum((w + s for w, s, _ in free), Fraction(0)) / len(free)
    want = sum((games(awards, n) * ey for _, _, n in base), Fraction(0)) / len(base)
    assert components(make_game(data), 1)["free_games"] == want


def test_expanding_wild_in_free_spins_on_ways():
    """A W2 that shows fills its reel in free spins (``nudge``): every cell of
    the reel then counts 2 ways; exact and sampled against the brute force."""
    import numpy as np

    from slotmath.montecarlo.roundsim import round_sampler

    data = copy.deepcopy(FREE)
    data["options"]["free_games"]["nudge"] = "W2"
    want = brute_force_free(data)
    assert want["free_games"] != FREE_RTP["free_games"]
    game = make_game(data)
    assert components(game, 1) == want
    sampler = round_sampler(game, 1, component_names(game))
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(3)))
    parts = sampler.kernel(rng, 400_000, *sampler.args)[2]
    mean, se = parts[:, 2].mean(), parts[:, 2].std() / np.sqrt(len(parts))
    assert abs(mean - float(want["free_games"])) < 4 * se


def test_round_cap_on_ways_equals_the_brute_force():
    data = {k: v for k, v in FREE.items() if k != "options"}
    data["options"] = {"round_cap": 1}
    base = spin_law(FREE, "base")
    over = sum((max(w + s - 1, 0) for w, s, _ in base), Fraction(0)) / len(base)
    result = analyse(make_game(data), 1)
    assert result.components["round_cap"] == pytest.approx(-float(over), abs=1e-15)
    assert result.rtp == pytest.approx(float(FREE_RTP["ways"] + FREE_RTP["scatters"] - over), abs=1e-15)


def as_ways(folder: Path, tmp_path: Path) -> Path:
    """The line game of ``folder`` paid by ways (its pays per way, 20 coins
    per bet level, no paylines), written to ``tmp_path`` with its files."""
    data = yaml.safe_load((folder / "game.yaml").read_text())
    data["pays_by"] = "ways"
    data.pop("paylines")
    data["bet"]["lines"] = 20
    for f in folder.glob("*.csv"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return tmp_path / "game.yaml"


@pytest.mark.parametrize(
    "folder, unread",
    [("hold_and_spin", ("hold_and_spin",)), ("pick_and_wheel", ("wheel",))],
)
def test_features_that_read_no_pays_are_the_line_games(folder, unread, tmp_path):
    """A hold-and-spin (with its jackpots) and a wheel read the window's
    symbols, not its pays: on the same reels paid by ways their exact
    components equal the line game's (tested against brute force there)."""
    lines = components(load_game(GAMES / folder), 1)
    ways = components(load_game(as_ways(GAMES / folder, tmp_path)), 1)
    assert "ways" in ways and "lines" not in ways
    for name in unread:
        assert ways[name] == lines[name] and ways[name] > 0


def test_selection_on_ways_is_the_mixture_of_its_choices(tmp_path):
    """pick_and_wheel's selection (5 S, the player's choice weights 2:1:1):
    40 x total bet, 15 free games at x2, or 3 wheel spins; the free games'
    mean from the renewal formula of the ways game's free spin."""
    from slotmath.features.freeround import extra_games_mean
    from slotmath.features.options import load_features
    from slotmath.features.round import Trigger, trigger_key_probability
    from slotmath.rules.linegame import channel_components

    game = load_game(as_ways(GAMES / "pick_and_wheel", tmp_path))
    out = components(game, 1)
    ey = sum(channel_components(game, 1).values(), Fraction(0))
    ek = extra_games_mean(game, load_features(game).free_games)
    p5 = trigger_key_probability(game, Trigger("SCATTER"))
    p = sum((q for c, q in p5.items() if c >= 5), Fraction(0))
    wheel_spin = out["wheel"] / sum((q for c, q in p5.items() if c >= 4), Fraction(0))
    choice = (2 * Fraction(40) + 15 * 2 * ey / (1 - ek) + 3 * wheel_spin) / 4
    assert out["selection"] == p * choice


# ---------------------------------------------------------------------------
# the data game and the sampler
# ---------------------------------------------------------------------------
def test_data_game_is_exact_and_near_its_target():
    game = load_game(GAMES / "ways_free_spins")
    out = components(game, 1)
    assert set(out) == {"ways", "scatters", "free_games"}
    assert all(isinstance(v, Fraction) for v in out.values())
    assert 0.96 < sum(out.values()) < 0.97


def test_sampler_agrees_with_the_exact_round_on_the_data_game():
    spins = ("--spins", "1000000", "--seed", "23", "--workers", "1")
    out = run_cli("simulate", GAMES / "ways_free_spins", *spins, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    rows = {r["figure"]: r for r in result["convergence"]["components"]}
    assert set(rows) == {"RTP: ways", "RTP: scatters", "RTP: free_games"}
    assert all(abs(r["z"]) < 4 for r in rows.values()), rows
    assert abs(result["rtp"]["z"]) < 4


def test_sampler_of_the_small_game_plays_the_free_games():
    """Its components match the brute force (|z| < 4) on the small game."""
    import numpy as np

    from slotmath.montecarlo.roundsim import round_sampler

    game = make_game(FREE)
    sampler = round_sampler(game, 1, component_names(game))
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(7)))
    parts = sampler.kernel(rng, 400_000, *sampler.args)[2]
    for j, name in enumerate(component_names(game)):
        mean, se = parts[:, j].mean(), parts[:, j].std() / np.sqrt(len(parts))
        assert abs(mean - float(FREE_RTP[name])) < 4 * se, name


# ---------------------------------------------------------------------------
# what ways games once refused they now play (their own tests prove the figures:
# test_sticky_ways.py, test_wild_multipliers_ways.py, test_lockit_round.py)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"free_games": {**FREE_GAMES, "sticky": "W2", "max_games": 9}},
        {**FREE["options"], "wild_multipliers": {"symbol": "W", "table": [[2, 1], [3, 1]]}},
    ],
    ids=["sticky", "wild_multipliers"],
)
def test_ways_games_validate_the_features_they_play(options, tmp_path):
    data = {**FREE, "options": options}
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(copy.deepcopy(data), sort_keys=False))
    out = run_cli("validate", tmp_path / "game.yaml")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("folder", ["hold_and_spin", "pick_and_wheel"])
def test_sampler_plays_every_feature_on_ways(folder, tmp_path):
    """The line games' features on the same reels paid by ways: the compiled
    round agrees with the exact components (|z| < 4 on each)."""
    path = as_ways(GAMES / folder, tmp_path)
    out = run_cli("simulate", path, "--spins", "400000", "--seed", "9", "--workers", "1", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    rows = {r["figure"]: r for r in result["convergence"]["components"]}
    names = component_names(load_game(path))
    assert set(rows) == {f"RTP: {n}" for n in names} and names[0] == "ways"
    assert all(abs(r["z"]) < 4 for r in rows.values()), rows
