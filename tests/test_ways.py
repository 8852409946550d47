"""Ways pays (``pays_by: ways``): the exact engine against brute force over
every stop combination, a hand-worked game, the compiled sampler's z-scores
and the bad input."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotmath.engine.reels import windows
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.engine.ways import ways_distribution
from slotmath.io.gamefile import GameFileError, build_game
from slotmath.rules.par import par


def make_game(data: dict):
    return build_game(data, Path("test.yaml"), "t")


# 3 reels x 2 rows, one plain wild, a scatter, a blank
SMALL = {
    "name": "ways32",
    "pays_by": "ways",
    "grid": {"reels": 3, "rows": 2},
    "bet": {"levels": [1, 3], "lines": 5},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild"},
        {"name": "S", "kind": "scatter"},
        {"name": "X", "kind": "blank"},
    ],
    "reels": {
        "base": [["A", "B", "W", "S", "A"], ["B", "A", "X", "X", "A", "W"], ["A", "S", "B", "B", "W", "A"]]
    },
    "pays": [
        {"symbol": "A", "count": 2, "pay": 1},
        {"symbol": "A", "count": 3, "pay": 4},
        {"symbol": "B", "count": 3, "pay": 7},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/3"}],
}

# 4 reels x 3 rows: a plain wild, a x2-per-wild wild and a by-count wild
MULTI = {
    "name": "ways43",
    "pays_by": "ways",
    "grid": {"reels": 4, "rows": 3},
    "bet": {"levels": [1], "lines": 10},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "C"},
        {"name": "W", "kind": "wild"},
        {"name": "M", "kind": "wild", "multiplier": {"per_wild": 2}},
        {"name": "X", "kind": "wild", "substitutes": ["A"], "multiplier": {"by_count": [1, 3, 5]}},
        {"name": "S", "kind": "scatter"},
    ],
    "reels": {
        "base": [
            ["A", "B", "C", "W", "A", "S", "B", "C"],
            ["B", "M", "A", "C", "X", "B", "A"],
            ["C", "A", "X", "B", "M", "S", "A", "C", "B"],
            ["A", "C", "B", "W", "B", "B", "B", "X", "C", "B"],
        ]
    },
    "pays": [
        {"symbol": "A", "count": 3, "pay": 2},
        {"symbol": "A", "count": 4, "pay": 6},
        {"symbol": "B", "count": 2, "pay": 1},
        {"symbol": "B", "count": 3, "pay": 2},
        {"symbol": "B", "count": 4, "pay": 5},
        {"symbol": "C", "count": 3, "pay": 3},
        {"symbol": "C", "count": 4, "pay": 8},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": 2}],
}


def brute_win(game, level, cols) -> Fraction:
    """Win of one window [coins] by listing every way cell by cell.

    ``cols[r]`` are the symbol names shown on reel r.  For each paying symbol
    the run is the longest n with a matching cell on reels 1..n; every way
    (one cell per reel) is listed, its wilds counted per kind and its
    multiplier taken as on a payline (``WildRule.multiplier`` per kind).
    """
    li = game.level_index(level)
    total = Fraction(0)
    pays = {}
    for lp in game.line_pays:
        pays[(next(iter(lp.positions[0])), len(lp.positions))] = lp.pays[li]
    for x in {s for s, _ in pays}:

        def match(name, x=x):
            s = game.symbol(name)
            return name == x or (s.wild is not None and x in s.wild.substitutes)

        n = 0
        while n < game.reels and any(match(c) for c in cols[n]):
            n += 1
        if (x, n) not in pays:
            continue
        for way in itertools.product(*[[c for c in cols[r] if match(c)] for r in range(n)]):
            kinds = Counter(c for c in way if c != x)
            m = 1
            for name, count in kinds.items():
                m *= game.symbol(name).wild.multiplier(count)
            total += pays[(x, n)] * m
    for s in scatter_symbols(game):
        total += scatter_pay(game, s, sum(col.count(s) for col in cols)) * game.bet(level).total_bet
    return total


def brute_distribution(game, level) -> Counter:
    """Win [coins] -> count over every stop combination."""
    wins = [windows(game, s) for s in game.strips()]
    names = game.symbol_names
    out: Counter = Counter()
    for stops in itertools.product(*[range(len(w)) for w in wins]):
        cols = [[names[i] for i in wins[r][s]] for r, s in enumerate(stops)]
        out[brute_win(game, level, cols)] += 1
    return out


def engine_distribution(game, level) -> Counter:
    d = ways_distribution(game, level)
    return Counter({Fraction(int(w), d.unit_den): int(c) for w, c in zip(d.wins, d.weights, strict=True)})


@pytest.mark.parametrize("data, level", [(SMALL, 1), (SMALL, 3), (MULTI, 1)])
def test_engine_equals_brute_force(data, level):
    game = make_game(data)
    brute = brute_distribution(game, level)
    assert engine_distribution(game, level) == +brute
    result = par(game, level)
    mean = sum(w * c for w, c in brute.items()) / (game.cycle() * game.bet(level).total_bet)
    assert result.rtp == mean
    # the combination table (per symbol and count) adds up to the same RTP
    assert sum(result.combinations["rtp_exact"]) == mean


def test_ways_count_without_wilds():
    """6 reels x 4 rows of one symbol: 4**6 = 4096 ways on every spin."""
    data = {
        "name": "full",
        "pays_by": "ways",
        "grid": {"reels": 6, "rows": 4},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}],
        "reels": {"base": [["A"] * 5] * 6},
        "pays": [{"symbol": "A", "count": 6, "pay": 1}],
    }
    d = ways_distribution(make_game(data), 1)
    assert d.wins.tolist() == [4096] and d.weights.tolist() == [5**6]


def test_hand_worked():
    """A 3x2 game worked by hand.

    Reels (2 rows, windows of stops 0, 1, 2 read top-bottom):
      reel 1 strip [A, B, A]: windows AB, BA, AA
      reel 2 strip [A, W]   : windows AW, WA
      reel 3 strip [B, A]   : windows BA, AB
    Pays per way: 3 x A pays 2; 2 x B pays 1, 3 x B pays 3 (W substitutes for all).
    Reel 2 always shows one A and one W: 2 cells match A, 1 matches B (the W);
    reel 3 always shows one A and one B.
      reel 1 AB (1 A, 1 B): A: 3 x A, ways 1*2*1 = 2 -> 2*2 = 4 coins;
              B: 3 x B, ways 1*1*1 = 1 -> 3 coins; total 7.
      reel 1 BA: the same, 7.
      reel 1 AA (2 A): A ways 2*2*1 = 4 -> 8 coins; no B on reel 1; total 8.
    Wins: 7 on 2 windows x 2 x 2 = 8 combinations, 8 on 1 x 2 x 2 = 4.
    RTP = (7*8 + 8*4) / (12 combinations x 1 coin bet) = 88/12 = 22/3.
    """
    data = {
        "name": "hand",
        "pays_by": "ways",
        "grid": {"reels": 3, "rows": 2},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "W", "kind": "wild"}],
        "reels": {"base": [["A", "B", "A"], ["A", "W"], ["B", "A"]]},
        "pays": [
            {"symbol": "A", "count": 3, "pay": 2},
            {"symbol": "B", "count": 2, "pay": 1},
            {"symbol": "B", "count": 3, "pay": 3},
        ],
    }
    game = make_game(data)
    assert engine_distribution(game, 1) == Counter({7: 8, 8: 4})
    assert par(game).rtp == Fraction(22, 3)


def test_bad_input_paylines_with_ways(tmp_path):
    import subprocess
    import sys

    data = dict(SMALL, paylines=[[0, 0, 0]])
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(GameFileError, match="paylines"):
        make_game(data)
    run = subprocess.run(
        [sys.executable, "-m", "slotmath", "validate", str(path)], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "paylines" in run.stderr
    assert "Traceback" not in run.stderr


def test_bad_input_anywhere_pay_with_ways():
    data = dict(SMALL, pays=[{"anywhere": "A", "exactly": 2, "pay": 1}])
    with pytest.raises(GameFileError, match="anywhere"):
        make_game(data)


@pytest.mark.parametrize("data", [SMALL, MULTI])
def test_simulation_agrees_with_exact_figures(data):
    """The compiled ways sampler: RTP, hit frequency, SD and every combination
    table row's rate within 4 standard errors of the exact figures."""
    from slotmath.analysis import simulation

    game = make_game(data)
    result = simulation.simulate_game(
        game, 400_000, seed=15, workers=1, chunk=200_000, progress=False, exact="par"
    )
    report = result.convergence
    ev = report.events
    assert ev.loc[ev["hits"] > 0, "exact"].notna().all()  # every event seen has an exact rate
    assert report.max_abs_z < 4, report.text()
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(result, name)
        assert est.exact is not None and abs(est.z) < 4
    table = par(game).combinations
    keys = {f"{k}: {c}" for k, c in zip(table["kind"], table["combination"], strict=True)}
    assert keys <= set(report.events["event"]), keys


def test_too_large_is_refused_before_the_work():
    """The cost check names the states and the estimated time and stops."""
    from slotmath.engine.limits import EngineTooLarge

    game = make_game(MULTI)
    with pytest.raises(EngineTooLarge, match="reel 2 would step"):
        ways_distribution(game, 1, max_steps=100)


WILD_SPECS = [
    {"name": "W", "kind": "wild"},
    {"name": "W", "kind": "wild", "multiplier": {"per_wild": 3}},
    {"name": "W", "kind": "wild", "substitutes": ["A"], "multiplier": {"by_count": [1, 2, 7]}},
]


@st.composite
def ways_games(draw):
    """Small random ways games: 2-4 reels, 1-3 rows, strips of 1-5 stops over
    two paying symbols (at least as many stops as rows), one wild (plain, per-wild or by-count), a scatter and
    a blank; pays for every count from a random smallest one."""
    reels, rows = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    names = ["A", "B", "W", "S", "X"]
    strips = [draw(st.lists(st.sampled_from(names), min_size=rows, max_size=5)) for _ in range(reels)]
    pays = []
    for sym in ("A", "B"):
        low = draw(st.integers(1, reels))
        pays += [{"symbol": sym, "count": n, "pay": draw(st.integers(0, 9))} for n in range(low, reels + 1)]
    return {
        "name": "hyp",
        "pays_by": "ways",
        "grid": {"reels": reels, "rows": rows},
        "bet": {"levels": [1], "lines": draw(st.integers(1, 3))},
        "symbols": [
            {"name": "A"},
            {"name": "B"},
            draw(st.sampled_from(WILD_SPECS)),
            {"name": "S", "kind": "scatter"},
            {"name": "X", "kind": "blank"},
        ],
        "reels": {"base": strips},
        "pays": pays,
        "scatters": [{"symbol": "S", "count": 2, "pay": "1/2"}],
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ways_games())
def test_random_games_equal_brute_force(data):
    game = make_game(data)
    assert engine_distribution(game, 1) == +brute_distribution(game, 1)


def test_par_json_and_sheet_of_a_ways_game(tmp_path):
    """`slotmath par --json` and the PAR sheet work for a ways game: exact RTP
    equal to brute force, no per-line RTP, no paylines section."""
    import json
    import subprocess
    import sys

    from slotmath.report.sheet import par_sheet

    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(MULTI))
    run = subprocess.run(
        [sys.executable, "-m", "slotmath", "par", str(path), "--json"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    game = make_game(MULTI)
    brute = brute_distribution(game, 1)
    rtp = sum(w * c for w, c in brute.items()) / (game.cycle() * game.bet(1).total_bet)
    assert Fraction(out["rtp_exact"]) == rtp
    assert out["per_line_rtp"] == []
    assert {c["kind"] for c in out["combinations"]} == {"ways", "scatter"}
    sheet = par_sheet(str(path), spins=0)
    assert "paylines" not in sheet.sections
    assert f"{3**4} ways" in sheet.title_html()
    html = "".join(sheet.section_html(key) for key in sheet.sections)  # every section renders
    assert "Ways pays [coins per way" in html and "Payline" not in html
    # the pay rule's words: the coin bet, and what a combination row's hits are over
    assert "coin bet (the ways pays are per coin) [coins]" in html and "line bet" not in html
    assert "hits over the full cycle (all ways)" in html and "(all lines)" not in html
    assert sheet.section_html("paylines") == ""  # the report notebook asks for every section
    with pytest.raises(KeyError):
        sheet.section_html("no_such_section")


def test_bad_input_ways_with_a_rules_module():
    with pytest.raises(GameFileError, match="pays_by"):
        make_game(dict(SMALL, rules="grand_spinn"))


def test_example_game_simulation_agrees_with_exact_figures():
    """data/games/ways4096 (6x4, 4096 ways): the compiled sampler's RTP, hit
    frequency, SD and pay rates within 4 standard errors of the exact PAR."""
    from slotmath.analysis import simulation
    from slotmath.io.gamefile import load_game

    game = load_game("ways4096")
    assert game.pays_by == "ways" and game.rows**game.reels == 4096
    result = simulation.simulate_game(
        game, 1_000_000, seed=4096, workers=1, chunk=500_000, progress=False, exact="par"
    )
    report = result.convergence
    assert report.max_abs_z < 4, report.text()
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(result, name)
        assert est.exact is not None and abs(est.z) < 4
