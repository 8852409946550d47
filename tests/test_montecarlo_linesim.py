"""The compiled line-game sampler (slotmath.montecarlo.linesim) against the reference
evaluator and the exact engine.

* Stop draws: Lemire's method is exactly uniform (every bit pattern
  enumerated) and the stop tables reproduce the integer weights.
* Identical stops: the compiled evaluation equals the reference evaluator
  (slotmath.engine.evaluate) bit for bit, on a toy game with multiplier wilds, a
  group pay, an "anywhere" pay and fractional scatter pays, and on the
  sample line games.
* Statistics: compiled runs agree with the exact figures (RTP, hit
  frequency, SD, every pay's hit rate, the win distribution by bins:
  |z| < 4) and with the reference simulator (two-sample z).
"""

from __future__ import annotations

import numpy as np
import pytest

from slotmath.analysis import simulation
from slotmath.engine.combinations import combination_table
from slotmath.engine.evaluate import line_wins, total_wins
from slotmath.engine.reels import reel_windows
from slotmath.io.gamefile import load_game
from slotmath.montecarlo.convergence import event_key
from slotmath.montecarlo.linesim import evaluate_stops, evaluation_args, lemire, line_sampler, stop_of
from slotmath.montecarlo.results import sample_stops
from slotmath.montecarlo.results import simulate_lines as reference_simulate
from slotmath.rules.par import par

from conftest import GAMES

TOY = {
    "name": "mc_toy",
    "grid": {"reels": 5, "rows": 3},
    "bet": {"levels": [1, 3]},
    "symbols": [
        {"name": "W", "kind": "wild", "multiplier": {"by_count": [1, 2, 3, 5]}},
        {"name": "D", "kind": "wild", "substitutes": ["A", "B"], "multiplier": {"per_wild": 2}},
        {"name": "A"},
        {"name": "B"},
        {"name": "C"},
        {"name": "S", "kind": "scatter"},
        {"name": "X", "kind": "blank"},
    ],
    "groups": {"AB": ["A", "B"]},
    "reels": {
        "base": [
            {
                "symbols": ["A", "B", "W", "C", "S", "X", "A", "C", "D", "B", "X", "C"],
                "weights": [3, 2, 1, 4, 1, 5, 2, 3, 1, 2, 4, 1],
            },
            ["B", "A", "C", "D", "X", "S", "A", "W", "C", "B", "X"],
            ["C", "W", "A", "X", "B", "S", "D", "A", "C", "X", "B", "A", "C"],
            ["A", "X", "C", "B", "S", "W", "C", "A", "X", "B"],
            {
                "symbols": ["B", "C", "A", "S", "X", "D", "C", "A", "W", "X"],
                "weights": [2, 3, 1, 1, 2, 1, 3, 2, 1, 2],
            },
        ]
    },
    "paylines": [
        [1, 1, 1, 1, 1],
        [0, 0, 0, 0, 0],
        [2, 2, 2, 2, 2],
        [0, 1, 2, 1, 0],
        [2, 1, 0, 1, 2],
        [1, 0, 0, 0, 1],
    ],
    "pays": [
        {"symbol": "A", "count": 3, "pay": 5},
        {"symbol": "A", "count": 4, "pay": 15},
        {"symbol": "A", "count": 5, "pay": 60},
        {"symbol": "B", "count": 3, "pay": 4},
        {"symbol": "B", "count": 5, "pay": 40},
        {"symbol": "AB", "count": 4, "pay": 8},
        {"symbol": "C", "count": 2, "pay_by_level": [1, 2]},
        {"symbol": "W", "count": 3, "pay": 25},
        {"anywhere": "C", "exactly": 4, "pay": 7},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/3"}, {"symbol": "S", "count": 3, "pay": 4}],
}


def line_games() -> list:
    """The sample games in data/games played by the line rules (on paylines)."""
    out = []
    for path in sorted(GAMES.glob("*/game.yaml")):
        game = load_game(path)
        if game.rules == "lines" and game.pays_by == "lines":
            out.append(game)
    return out


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    import yaml

    path = tmp_path_factory.mktemp("mc") / "game.yaml"
    path.write_text(yaml.safe_dump(TOY, sort_keys=False))
    return load_game(path)


def games_and_levels(toy):
    return [(toy, lv) for lv in toy.levels] + [
        (g, lv) for g in line_games() for lv in (g.levels[0], g.levels[-1])
    ]


def test_sample_line_games_exist():
    assert {"fruit_classic", "video20"} <= {g.name for g in line_games()}


@pytest.mark.parametrize("w", [1, 2, 3, 7, 63, 100, 200, 255, 256])
def test_lemire_is_exactly_uniform(w):
    # every 8-bit pattern: each value below w is reached by the same number
    # of accepted patterns, and exactly 256 mod w patterns are rejected
    out = np.array([lemire(u, w, 8) for u in range(256)])
    values, counts = np.unique(out[out >= 0], return_counts=True)
    assert values.tolist() == list(range(w))
    assert set(counts.tolist()) == {256 // w}
    assert (out < 0).sum() == 256 % w


@pytest.mark.parametrize("w", [2**31, 3 * 2**40 + 7, 2**62 - 1])
def test_wide_draw_is_uniform(w):
    # weights from 2**31 on draw from 62 bits by rejection: every value is
    # below w, and the thirds [0, w/3), [w/3, 2w/3), [2w/3, w) each hold
    # 1/3 of 60,000 draws up to one part in w (binomial z below 4)
    from slotmath.montecarlo.linesim import uniform_below

    rng = np.random.default_rng(5)
    u = np.array([uniform_below(rng, w) for _ in range(60_000)], dtype=np.int64)
    assert u.min() >= 0 and u.max() < w
    thirds = np.bincount((u // -(-w // 3)).astype(np.int64), minlength=3)
    n, p = len(u), 1 / 3
    assert all(abs(c - n * p) / (n * p * (1 - p)) ** 0.5 < 4 for c in thirds), thirds
    assert u.max() >= 2**31 or w == 2**31  # the high bits are used


@pytest.mark.parametrize("limit", [0, 4096])
def test_stop_lookup_reproduces_the_weights(toy, limit):
    # limit 0 forces the binary search, 4096 the lookup table
    s = line_sampler(toy, 1, table_limit=limit)
    dims, bound, use_table, table, cum, n_stops = s.args[:6]
    for r, strip in enumerate(toy.strips()):
        hits = np.bincount(
            [stop_of(u, r, use_table, table, cum, n_stops) for u in range(bound[r])], minlength=len(strip)
        )
        assert hits.tolist() == strip.stop_weights().tolist()


def test_compiled_evaluation_equals_reference_on_identical_stops(toy):
    for game, level in games_and_levels(toy):
        stops = sample_stops(np.random.default_rng(123), game.strips(), 5_000)
        wins = reel_windows(game)
        windows = np.stack([wins[r][stops[:, r]] for r in range(game.reels)], axis=1)
        args, names = evaluation_args(game, level)
        got, events = evaluate_stops(stops, *args)
        expected = total_wins(game, level, windows)
        assert np.array_equal(got, expected), (game.name, level)
        assert (got > 0).any()
        # the line events account for every coin the reference lines pay
        label_coins = args[5]
        n_line = len(label_coins)
        assert int((events[:n_line] * label_coins).sum()) == int(line_wins(game, level, windows).sum())


def test_prefix_start_and_stop_lookup_do_not_change_results(toy):
    stops = sample_stops(np.random.default_rng(5), toy.strips(), 5_000)
    results = [evaluate_stops(stops, *evaluation_args(toy, 3, first=k)[0]) for k in range(1, 6)]
    for wins, events in results[1:]:
        assert np.array_equal(wins, results[0][0]) and np.array_equal(events, results[0][1])
    a, b = line_sampler(toy, 3), line_sampler(toy, 3, table_limit=0)
    wa, ea, pa = a.kernel(np.random.default_rng(9), 5_000, *a.args)
    wb, eb, pb = b.kernel(np.random.default_rng(9), 5_000, *b.args)
    assert np.array_equal(wa, wb) and np.array_equal(ea, eb) and np.array_equal(pa, pb)
    # the parts (lines, scatters) add up to the win exactly: one addition
    assert np.array_equal(pa.sum(axis=1), wa)


def test_events_cover_the_combination_table(toy):
    for game, level in games_and_levels(toy):
        table = combination_table(game, level)
        keys = {event_key(r.kind, r.combination, int(r.multiplier)) for r in table.itertuples(index=False)}
        names = simulation.round_sampler(game, level).event_names
        assert len(set(names)) == len(names)
        assert keys <= set(names), keys - set(names)


@pytest.mark.parametrize("which", ["toy", "fruit_classic", "video20"])
def test_simulation_agrees_with_exact_figures(toy, which):
    game = toy if which == "toy" else load_game(which)
    level = game.levels[-1]
    result = simulation.simulate_game(
        game, 1_000_000, seed=2024, level=level, workers=1, chunk=250_000, progress=False, exact="par"
    )
    report = result.convergence
    assert report.rounds == 1_000_000
    assert len(report.components) == len(par(game, level).components)  # each RTP component's z
    assert report.events["exact"].notna().all()  # every event has an exact rate
    assert report.histogram["exact"].notna().all()
    assert report.max_abs_z < 4, report.text()
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(result, name)
        assert est.exact is not None and abs(est.z) < 4


def test_compiled_and_reference_simulators_agree(toy):
    for game in (toy, load_game("video20")):
        level = game.levels[0]
        fast = simulation.simulate_game(
            game, 600_000, seed=1, level=level, workers=1, chunk=150_000, progress=False, exact=False
        )
        slow = reference_simulate(game, 100_000, seed=1, level=level)
        for name in ("rtp", "hit_frequency", "sd"):
            a, b = getattr(fast, name), getattr(slow, name)
            z = (a.value - b.value) / (a.se**2 + b.se**2) ** 0.5
            assert abs(z) < 4, (game.name, name, z)
