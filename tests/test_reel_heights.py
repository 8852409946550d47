"""Variable reel heights (``grid.heights``): the exact ways engine over the
(height, stop) cycle against brute force over every height vector and stop
vector, a hand-worked game, the free games through the key law, the
compiled sampler's z-scores and the bad input."""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from test_ways import brute_win

from slotmath.engine.reels import height_game
from slotmath.io.gamefile import GameFileError, build_game
from slotmath.rules.par import par


def make_game(data: dict):
    return build_game(data, Path("test.yaml"), "t")


# 3 reels, heights 1-3 (reel 2 its own table), a wild, a scatter
TINY = {
    "name": "heights3",
    "pays_by": "ways",
    "grid": {
        "reels": 3,
        "rows": 3,
        "heights": {"reels": [[[1, 1], [2, 2], [3, 1]], [[2, 3], [3, 1]], [[1, 2], [3, 1]]]},
    },
    "bet": {"levels": [1, 2], "lines": 5},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild"},
        {"name": "S", "kind": "scatter"},
    ],
    "reels": {
        "base": [
            ["A", "B", "S", "A"],
            {"symbols": ["B", "W", "A", "A", "S"], "weights": [1, 2, 1, 3, 1]},
            ["A", "B", "B", "W"],
        ]
    },
    "pays": [
        {"symbol": "A", "count": 2, "pay": 1},
        {"symbol": "A", "count": 3, "pay": 5},
        {"symbol": "B", "count": 3, "pay": 8},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/2"}],
}


def brute_distribution(game, level) -> Counter:
    """Win [coins] -> count over every height vector and stop vector: the
    count of one is the product over reels of height weight x stop weight."""
    tables = game.heights.tables
    strips = game.strips()
    out: Counter = Counter()
    for hs in itertools.product(*tables):
        for stops in itertools.product(*[range(len(s)) for s in strips]):
            count = 1
            cols = []
            for r, ((h, wh), s) in enumerate(zip(hs, stops, strict=True)):
                strip = strips[r]
                count *= wh * int(strip.stop_weights()[s])
                cols.append([strip.symbols[(s + k) % len(strip)] for k in range(h)])
            if count:
                out[brute_win(game, level, cols)] += count
    return out


@pytest.mark.parametrize("level", [1, 2])
def test_exact_law_equals_brute_force(level):
    game = make_game(TINY)
    # cycle: reel 1 (1+2+1) x 4 stops, reel 2 (3+1) x 8 weight, reel 3 (2+1) x 4 stops
    assert game.cycle() == 16 * 32 * 12
    brute = brute_distribution(game, level)
    assert sum(brute.values()) == game.cycle()
    result = par(game, level)
    d = result.distribution
    engine = Counter({Fraction(int(w), d.unit_den): int(c) for w, c in zip(d.wins, d.weights, strict=True)})
    assert engine == +brute
    rtp = sum(w * c for w, c in brute.items()) / (game.cycle() * game.bet(level).total_bet)
    assert result.rtp == rtp and result.cycle == game.cycle()
    assert sum(result.combinations["rtp_exact"]) == rtp
    assert result.game is game


# Hand-worked (docs/features.md, "Variable reel heights"): 2 reels of 2 rows,
# reel 1 strip [A, B] (height 1 or 2, weights 1 and 1), reel 2 strip [A, A]
# (height 1 or 2, weights 1 and 3); A A pays 1 coin per way, 1 coin bet.
# Reel 1: height 1 shows A (stop 0) or B; height 2 shows A B or B A: A shows
#   1 cell on 3 of its 4 (height, stop) pairs, 0 cells on 1.
# Reel 2: every stop shows A; 1 cell (height 1, weight 1 x 2 stops = 2) or
#   2 cells (height 2, weight 3 x 2 stops = 6).
# Cycle 4 x 8 = 32; win = ways: 1 x 1 (3 x 2 = 6 spins), 1 x 2 (3 x 6 = 18
# spins), 0 (1 x 8 = 8 spins); RTP = (6 x 1 + 18 x 2) / 32 = 42/32 = 21/16.
HAND = {
    "name": "heights_hand",
    "pays_by": "ways",
    "grid": {"reels": 2, "rows": 2, "heights": {"reels": [[[1, 1], [2, 1]], [[1, 1], [2, 3]]]}},
    "bet": {"levels": [1], "lines": 1},
    "symbols": [{"name": "A"}, {"name": "B"}],
    "reels": {"base": [["A", "B"], ["A", "A"]]},
    "pays": [{"symbol": "A", "count": 2, "pay": 1}],
}


def test_hand_worked():
    game = make_game(HAND)
    result = par(game, 1)
    assert result.cycle == 32
    assert result.rtp == Fraction(21, 16)
    d = result.distribution
    law = {Fraction(int(w), d.unit_den): int(c) for w, c in zip(d.wins, d.weights, strict=True)}
    assert law == {0: 8, 1: 6, 2: 18}
    assert game.ways_or_lines_text == "up to 4 ways"


FREE = copy.deepcopy(TINY)
FREE["name"] = "heights3_free"
FREE["reels"]["base"][2] = ["A", "B", "S", "W"]
FREE["reels"]["free"] = [["A", "W", "S", "B"], ["B", "A", "S", "A"], ["W", "B", "A", "S"]]
FREE["options"] = {
    "free_games": {
        "symbol": "S",
        "reels": "free",
        "awards": {2: {"games": 3}, 3: {"games": 5}},
        "retrigger": True,
        "max_games": 12,
    }
}


def test_free_games_compose_through_the_key_law():
    """The free games' component equals the one computed by hand from the
    brute-force trigger law: P(count) x games x mean free spin win, with the
    free spins' own law from the rewritten free reel set."""
    game = make_game(FREE)
    result = par(game, 1)
    assert "free_games" in result.components
    # brute-force trigger law of the base scatters over (heights, stops)
    tables, strips = game.heights.tables, game.strips()
    counts: Counter = Counter()
    for hs in itertools.product(*tables):
        for stops in itertools.product(*[range(len(s)) for s in strips]):
            w, c = 1, 0
            for r, ((h, wh), s) in enumerate(zip(hs, stops, strict=True)):
                w *= wh * int(strips[r].stop_weights()[s])
                c += [strips[r].symbols[(s + k) % len(strips[r])] for k in range(h)].count("S")
            counts[c] += w
    p_trigger = Fraction(sum(v for k, v in counts.items() if k >= 2), game.cycle())
    from slotmath.features.round import trigger_key_probability
    from slotmath.rules.linegame import round_features

    written = height_game(game)
    key = trigger_key_probability(written, round_features(written, 1)[0].trigger)
    assert sum(p for k, p in key.items() if (sum(k) if isinstance(k, tuple) else k) >= 2) == p_trigger


@pytest.mark.parametrize("data", [TINY, FREE])
def test_simulation_agrees_with_exact_figures(data):
    """The compiled sampler on the (height, stop) draw: RTP, hit frequency,
    SD, every component and every event rate within 4 standard errors."""
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


def test_windows_of_unwritten_heights_are_refused():
    from slotmath.engine.reels import windows
    from slotmath.errors import InternalError

    game = make_game(TINY)
    with pytest.raises(InternalError, match="height_game"):
        windows(game, game.strips()[0])


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda d: d["grid"].update(heights={"weights": [[0, 1], [2, 1]]}), "outside 1..3"),
        (lambda d: d["grid"].update(heights={"weights": [[4, 1]]}), "outside 1..3"),
        (lambda d: d["grid"].update(heights={"weights": [[2, 0]]}), "not positive"),
        (lambda d: d["grid"].update(heights={"weights": [[2, -1]]}), "not positive"),
        (lambda d: d["grid"].update(heights={"weights": [[2, 1], [2, 3]]}), "listed twice"),
        (lambda d: d["grid"].update(heights={"reels": [[[2, 1]]]}), "has 1 tables"),
        (lambda d: d["grid"].update(heights={"weights": [[2, 1]], "reels": [[[2, 1]]] * 3}), "exactly one"),
        (lambda d: d["grid"].update(heights={"weight": [[2, 1]]}), "heights"),
        (lambda d: d.update(pays_by="lines"), "on ways games only"),
        (lambda d: d.update(pays_by="anywhere"), "on ways games only"),
        (lambda d: d.update(pays_by="cluster"), "on ways games only"),
        (
            lambda d: d.update(
                options={"wheel": {"symbol": "S", "trigger": 2, "segments": [{"value": 1, "weight": 1}]}}
            ),
            "not computed with reel heights",
        ),
    ],
)
def test_bad_input(change, match):
    data = copy.deepcopy(TINY)
    change(data)
    with pytest.raises(GameFileError, match=match):
        from slotmath.api import validate

        validate(make_game(data))


def test_documented_example_is_the_hand_worked_one(tmp_path):
    """docs/features.md, "Variable reel heights: worked example": its game is
    HAND and its figures are the hand-worked ones."""
    from conftest import docs_example

    doc_game, section = docs_example(tmp_path, "### Variable reel heights: worked example")
    result = par(doc_game, 1)
    assert result.rtp == Fraction(21, 16) and result.cycle == 32
    assert "**21/16**" in section and "**32**" in section


def test_retriggered_free_games_read_the_heights():
    # validate reads E[added games] of retriggered free games: with reel heights
    # it is read off the (height, stop) pairs (an internal error before),
    # under a reel condition too; brute force over heights and stops
    from slotmath.features.freeround import extra_games_mean
    from slotmath.features.options import load_features

    data = {
        "pays_by": "ways",
        "grid": {"reels": 2, "rows": 2, "heights": {"reels": [[[1, 1], [2, 1]], [[1, 2], [2, 1]]]}},
        "bet": {"levels": [1], "lines": 1},
        "symbols": [{"name": "A"}, {"name": "S", "kind": "scatter"}],
        "reels": {"base": [["A", "S", "A"], ["S", "A"]]},
        "pays": [{"symbol": "A", "count": 2, "pay": 1}],
        "options": {
            "free_games": {
                "symbol": "S",
                "reels": "base",
                "awards": {2: {"games": 3}},
                "retrigger_awards": {2: {"games": 1}},
                "trigger": {"reels": [1, 2]},
            }
        },
    }
    game = make_game(data)
    spec = load_features(game).free_games
    strips = [["A", "S", "A"], ["S", "A"]]
    tables = [[(1, 1), (2, 1)], [(1, 2), (2, 1)]]
    want, total = Fraction(0), 0
    for (h1, w1), (h2, w2), s1, s2 in itertools.product(tables[0], tables[1], range(3), range(2)):
        shown = [[strips[0][(s1 + k) % 3] for k in range(h1)], [strips[1][(s2 + k) % 2] for k in range(h2)]]
        per_reel = [cells.count("S") for cells in shown]
        n = sum(per_reel) if all(per_reel) else 0
        want += w1 * w2 * (1 if n >= 2 else 0)
        total += w1 * w2
    assert extra_games_mean(game, spec) == want / total
