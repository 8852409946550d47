"""The top reel of variable-height ways games (``grid.top_reel``): the exact
law (the mix over the top strip's stops) against brute force over every
height vector, stop vector and top stop, the free games on their own top
strip, a hand-worked game (docs/features.md), the sampler's refusal and the
bad input."""

from __future__ import annotations

import copy
import itertools
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from test_ways import brute_win

from slotmath.io.gamefile import GameFileError, build_game
from slotmath.rules.par import par


def make_game(data: dict):
    return build_game(data, Path("test.yaml"), "t")


# 4 reels, heights 1-3 (one table per reel), a top reel over reels 2-3 with
# a weighted 5-stop strip holding a wild, a scatter and a blank
TOP = {
    "name": "top4",
    "pays_by": "ways",
    "grid": {
        "reels": 4,
        "rows": 3,
        "heights": {
            "reels": [[[1, 1], [2, 2], [3, 1]], [[1, 3], [3, 1]], [[1, 2], [2, 1]], [[2, 1], [3, 1]]]
        },
        "top_reel": {
            "over": [2, 3],
            "strips": {"base": {"symbols": ["A", "W", "S", "B", "X"], "weights": [2, 1, 1, 3, 1]}},
        },
    },
    "bet": {"levels": [1, 2], "lines": 5},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild"},
        {"name": "S", "kind": "scatter"},
        {"name": "X", "kind": "blank"},
    ],
    "reels": {
        "base": [
            ["A", "B", "S", "A"],
            {"symbols": ["B", "W", "A", "S"], "weights": [1, 2, 3, 1]},
            ["A", "B", "B", "W", "X"],
            ["B", "A", "S"],
        ]
    },
    "pays": [
        {"symbol": "A", "count": 2, "pay": 1},
        {"symbol": "A", "count": 3, "pay": 5},
        {"symbol": "A", "count": 4, "pay": 9},
        {"symbol": "B", "count": 3, "pay": 8},
        {"symbol": "B", "count": 4, "pay": 20},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/2"}, {"symbol": "S", "count": 3, "pay": 3}],
}


def spins(game, reel_set="base"):
    """Every (count, cells per reel) of the cycle: height vector x stop
    vector x top stop; a covered reel shows the top stop's cell above its own."""
    tables, strips = game.heights.tables, game.strips(reel_set)
    top = game.heights.top
    tstrip = top.strips[reel_set]
    for hs in itertools.product(*tables):
        for stops in itertools.product(*[range(len(s)) for s in strips]):
            for t in range(len(tstrip)):
                count = int(tstrip.stop_weights()[t])
                cols = []
                for r, ((h, wh), s) in enumerate(zip(hs, stops, strict=True)):
                    strip = strips[r]
                    count *= wh * int(strip.stop_weights()[s])
                    cells = [strip.symbols[(s + k) % len(strip)] for k in range(h)]
                    if r in top.over:
                        cells = [tstrip.symbols[(t + top.over.index(r)) % len(tstrip)], *cells]
                    cols.append(cells)
                if count:
                    yield count, cols


def brute_distribution(game, level, reel_set="base") -> Counter:
    """Win [coins] -> count over the whole cycle (:func:`spins`)."""
    out: Counter = Counter()
    for count, cols in spins(game, reel_set):
        out[brute_win(game, level, cols)] += count
    return out


def law(result) -> Counter:
    d = result.distribution
    return Counter({Fraction(int(w), d.unit_den): int(c) for w, c in zip(d.wins, d.weights, strict=True)})


@pytest.mark.parametrize("level", [1, 2])
def test_exact_law_equals_brute_force(level):
    game = make_game(TOP)
    # cycle: reels (4 x 4) (4 x 7) (3 x 5) (2 x 3), top strip weight 8
    assert game.cycle() == 16 * 28 * 15 * 6 * 8
    brute = brute_distribution(game, level)
    assert sum(brute.values()) == game.cycle()
    result = par(game, level)
    assert law(result) == +brute
    rtp = sum(w * c for w, c in brute.items()) / (game.cycle() * game.bet(level).total_bet)
    assert result.rtp == rtp and result.cycle == game.cycle()
    assert sum(result.combinations["rtp_exact"]) == rtp
    # ways most: 3 x (3 + 1) x (2 + 1) x 3
    assert game.ways_or_lines_text == "up to 108 ways"


def test_combination_rows_equal_brute_force():
    """Each ways row's hits and each scatter row's hits, by brute force."""
    game = make_game(TOP)
    hits: Counter = Counter()
    for count, cols in spins(game):
        for x in ("A", "B"):
            n = 0
            while n < 4 and any(c in (x, "W") for c in cols[n]):
                n += 1
            if n >= (2 if x == "A" else 3):
                hits[f"{n} x {x}"] += count
        s = sum(col.count("S") for col in cols)
        if s >= 2:
            hits["2 x S" if s == 2 else "3+ x S"] += count
    table = par(game, 1).combinations
    assert dict(zip(table["combination"], table["hits"], strict=True)) == dict(hits)


FREE = copy.deepcopy(TOP)
FREE["name"] = "top4_free"
FREE["reels"]["free"] = [["A", "W", "S", "B"], ["B", "A", "S", "A"], ["W", "B", "A", "S"], ["A", "B", "S"]]
FREE["grid"]["top_reel"]["strips"]["free"] = ["W", "A", "S"]
FREE["options"] = {
    "free_games": {
        "symbol": "S",
        "reels": "free",
        "awards": {2: {"games": 3}, 3: {"games": 5}},
        "retrigger": False,
    }
}
RETRIGGER = copy.deepcopy(FREE)
RETRIGGER["options"]["free_games"].update(retrigger=True, max_games=30)


def test_free_games_play_their_own_top_strip():
    """The free games' component: P(trigger count) on the base cycle (base
    top strip) x games x the mean free spin win on the free cycle (free top
    strip), both by brute force; the base spin's law stays the base one."""
    game = make_game(FREE)
    counts: Counter = Counter()
    for count, cols in spins(game):
        counts[sum(col.count("S") for col in cols)] += count
    free = brute_distribution(game, 1, "free")
    free_cycle = sum(free.values())
    assert free_cycle == game.cycle("free")
    mean_free = sum(w * c for w, c in free.items()) / free_cycle
    games = {2: 3, 3: 5}
    want = sum(Fraction(c, game.cycle()) * games[min(n, 3)] * mean_free for n, c in counts.items() if n >= 2)
    result = par(game, 1)
    assert result.components["free_games"] == want / game.bet(1).total_bet
    base = brute_distribution(game, 1)
    assert result.components["ways"] + result.components["scatters"] == sum(
        w * c for w, c in base.items()
    ) / (game.cycle() * game.bet(1).total_bet)


def scaled(data: dict, reel_bits: tuple, top_bits: int) -> dict:
    """``data`` with reel r's stop weights times ``2**reel_bits[r]`` and the
    top strips' times ``2**top_bits``: the same game on a larger cycle."""
    out = copy.deepcopy(data)

    def times(s, f):
        if isinstance(s, list):
            return {"symbols": s, "weights": [f] * len(s)}
        return {**s, "weights": [w * f for w in s["weights"]]}

    for name, strips in out["reels"].items():
        out["reels"][name] = [times(s, 2**b) for s, b in zip(strips, reel_bits, strict=True)]
    tops = out["grid"]["top_reel"]["strips"]
    for name, s in tops.items():
        tops[name] = times(s, 2**top_bits)
    return out


@pytest.mark.parametrize(
    "data, reel_bits, top_bits",
    [
        # every window alone beyond int64: each pass weighted in Python ints
        (TOP, (11, 11, 11, 11), 11),
        (FREE, (11, 11, 11, 11), 11),
        # base cycle 40320 x 2**45 (about 1.42e18): windows merged in groups
        # of weight 3 at most (top weights 2, 1, 1, 3, 1: groups 2+1, 1, 3, 1)
        (TOP, (11, 11, 11, 12), 0),
    ],
)
def test_cycle_beyond_int64(data, reel_bits, top_bits):
    """The law and figures on a cycle beyond 2**62 (each top window's cycle
    below it): exactly the unscaled game's, counts times the scale."""
    small, big = make_game(data), make_game(scaled(data, reel_bits, top_bits))
    factor = 2 ** (sum(reel_bits) + top_bits)
    assert big.cycle() == small.cycle() * factor and big.cycle() >= 2**62
    a, b = par(small, 1), par(big, 1)
    assert b.rtp == a.rtp and b.components == a.components and b.cycle == big.cycle()
    assert law(b) == Counter({w: c * factor for w, c in law(a).items()})


# Hand-worked (docs/features.md, "Top reel: worked example"): 3 reels,
# reels 1 and 3 strip [A, A] (height 1), reel 2 strip [A, B] (height 1 or
# 2, weights 1 and 1); a top reel over reel 2 with strip [A, B] (B a
# blank); A x3 pays 1 coin per way, 1 coin bet.
# Reel 2's A cells by (height, stop, top stop), 8 equally likely:
#   h1 s0 (A):   top A -> 2 ; top B -> 1
#   h1 s1 (B):   top A -> 1 ; top B -> 0
#   h2 s0 (A B): top A -> 2 ; top B -> 1
#   h2 s1 (B A): top A -> 2 ; top B -> 1
# Reels 1 and 3 always show one A: win = reel 2's A cells (1 x n x 1 ways).
# Cycle 2 x 4 x 2 x 2 = 32 (each of the 8 above on 2 x 2 stops of reels
# 1 and 3); law: 0 (1 x 4 = 4), 1 (4 x 4 = 16), 2 (3 x 4 = 12);
# RTP = (16 x 1 + 12 x 2) / 32 = 40/32 = 5/4.
HAND = {
    "name": "top_hand",
    "pays_by": "ways",
    "grid": {
        "reels": 3,
        "rows": 2,
        "heights": {"reels": [[[1, 1]], [[1, 1], [2, 1]], [[1, 1]]]},
        "top_reel": {"over": [2], "strips": {"base": ["A", "B"]}},
    },
    "bet": {"levels": [1], "lines": 1},
    "symbols": [{"name": "A"}, {"name": "B", "kind": "blank"}],
    "reels": {"base": [["A", "A"], ["A", "B"], ["A", "A"]]},
    "pays": [{"symbol": "A", "count": 3, "pay": 1}],
}


def test_hand_worked():
    result = par(make_game(HAND), 1)
    assert result.cycle == 32
    assert result.rtp == Fraction(5, 4)
    assert law(result) == {0: 4, 1: 16, 2: 12}


def test_documented_example_is_the_hand_worked_one(tmp_path):
    """docs/features.md, "Top reel: worked example": its game is HAND and its
    figures are the hand-worked ones."""
    from conftest import docs_example

    doc_game, section = docs_example(tmp_path, "### Top reel: worked example")
    result = par(doc_game, 1)
    assert result.rtp == Fraction(5, 4) and result.cycle == 32
    assert law(result) == {0: 4, 1: 16, 2: 12}
    assert "**5/4**" in section and "**32**" in section


@pytest.mark.parametrize("data", [TOP, FREE, RETRIGGER])
def test_simulation_agrees_with_exact_figures(data):
    """The compiled sampler draws the top window once per spin and moves every
    covered reel to its block (free spins on the free top strip): RTP, hit
    frequency, SD, every component, event and win band within 4 standard errors."""
    from slotmath.analysis import simulation

    game = make_game(data)
    result = simulation.simulate_game(
        game, 400_000, seed=21, workers=1, chunk=200_000, progress=False, exact="par"
    )
    report = result.convergence
    assert report.max_abs_z < 4, report.text()
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(result, name)
        assert est.exact is not None and abs(est.z) < 4


def test_sampled_game_draws_the_mix():
    """The samplers' draw: every (window, covered stops) pair has the top
    window's weight x the covered stops' weights (exact: the draw tables)."""
    from slotmath.engine.reels import height_game
    from slotmath.engine.topreel import sampled_game, top_games
    from slotmath.montecarlo.linesim import draw_args

    written = height_game(make_game(TOP))
    sampled = sampled_game(written)
    bound, use_table, _, cum, n_stops = draw_args(sampled, "base")
    games = top_games(written, "base")
    assert bound.tolist()[-1] == 8 and len(bound) == 5  # top strip weight 2+1+1+3+1, one more row
    assert [int(u) >> 1 for u in use_table.tolist()] == [0, 1, 1, 0, 0]
    for r in (1, 2):  # a covered reel: block t of its strip is game_t's strip
        block = n_stops[r]
        strip = sampled.strips()[r]
        assert len(strip) == block * len(games)
        for t, (_, g) in enumerate(games):
            assert strip.symbols[t * block : (t + 1) * block] == g.strips()[r].symbols
        assert int(cum[r, block - 1]) == written.strips()[r].total_weight


def top_change(**spec):
    def change(d):
        d["grid"]["top_reel"].update(spec)

    return change


@pytest.mark.parametrize(
    "change, match",
    [
        (top_change(over=[1, 2]), r"over\[0\]: reel 1 is outside 2..3"),
        (top_change(over=[3, 4]), r"over\[1\]: reel 4 is outside 2..3"),
        (top_change(over=[3, 2]), "not consecutive"),
        (top_change(strips={"base": ["A", "Q"]}), r"strips.base\[1\]: unknown symbol 'Q'"),
        (top_change(strips={"base": ["A"]}), "fewer than the 2 rows"),
        (top_change(strips={"base": ["A", "B"], "bonus": ["A", "B"]}), "no reel set 'bonus'"),
        (top_change(strips={}), "top_reel.strips"),
        (top_change(reels=[2]), "top_reel"),
        (lambda d: d["grid"].pop("heights"), "needs variable reel heights"),
        (lambda d: d.update(pays_by="anywhere"), "heights are computed on ways games only"),
        (lambda d: d.update(pays_by="cluster"), "heights are computed on ways games only"),
        (lambda d: d["reels"].update(free=d["reels"]["base"]), "has no strip for reel set 'free'"),
        (
            lambda d: (
                d["symbols"].append({"name": "M", "kind": "special"}),
                d["grid"]["top_reel"].update(strips={"base": ["A", "M"]}),
            ),
            r"strips.base\[1\]: 'M' is read by no rule",
        ),
    ],
)
def test_bad_input(change, match):
    data = copy.deepcopy(TOP)
    change(data)
    with pytest.raises(GameFileError, match=match):
        make_game(data)


def test_trigger_on_a_covered_reel_is_refused():
    """A trigger on named reels reads each reel's own cells; a covered reel's
    top cell would be left out, so naming one is refused (an uncovered one computes)."""
    data = copy.deepcopy(FREE)
    over = data["grid"]["top_reel"]["over"]
    data["options"]["free_games"]["trigger"] = {"reels": [over[0]]}
    with pytest.raises(GameFileError, match=rf"trigger.reels: reel {over[0]} is covered by the top reel"):
        make_game(data)


def test_bad_input_is_one_line_exit_2(tmp_path):
    import yaml

    data = copy.deepcopy(TOP)
    data["grid"]["top_reel"]["over"] = [1, 2]
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "slotmath", "validate", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "grid.top_reel.over[0]" in lines[0] and "Traceback" not in run.stderr


def test_cost_refusal_names_the_top_reel_windows(monkeypatch):
    """Each top window's pass is bounded by its share of the ways step
    limit: a refusal in one line naming the windows (monkeypatched bound)."""
    import slotmath.engine.ways as ways
    from slotmath.engine.cache import clear
    from slotmath.errors import EngineTooLarge

    clear()
    monkeypatch.setattr(ways, "MAX_WAYS_STEPS", 5 * 60)  # 5 windows: 60 steps each
    with pytest.raises(EngineTooLarge, match="each of 5 top-reel windows is still too large") as info:
        par(make_game(TOP), 1)
    assert "\n" not in str(info.value)
    clear()


def test_retriggered_games_read_the_free_top_strip():
    """E[games added by one free game] (validate's endless-games check)
    from the free reel set with its top strip, against brute force; without
    max_games the endless free games are refused in one line."""
    from slotmath.features.freeround import extra_games_mean
    from slotmath.features.options import load_features

    game = make_game(RETRIGGER)
    spec = load_features(game).free_games
    counts: Counter = Counter()
    for count, cols in spins(game, "free"):
        counts[sum(col.count("S") for col in cols)] += count
    games = {2: 3, 3: 5}
    want = sum(Fraction(c, game.cycle("free")) * games[min(n, 3)] for n, c in counts.items() if n >= 2)
    assert extra_games_mean(game, spec) == want
    endless = copy.deepcopy(RETRIGGER)
    del endless["options"]["free_games"]["max_games"]
    from slotmath.api import validate

    with pytest.raises(GameFileError, match="free games would never end"):
        validate(make_game(endless))
