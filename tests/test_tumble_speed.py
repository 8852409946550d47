"""The tumble samplers' faster inner loops give the very same results.

:func:`slotmath.engine.anywhere.anywhere_drop` reads the counts from the
window's histogram by symbol: checked against a plain-Python drop (each
cell counted toward every paying symbol it joins, the cells of the paying
symbols removed) on seeded windows of data/games/candy_anywhere (with
tumbles) and tests/data/tumble_anywhere (with a wild).
:func:`slotmath.montecarlo.linesim.draw_any` draws the same stops from the
same random stream as :func:`slotmath.montecarlo.linesim.draw_stops`, on
narrow (below 2**31) and wide total weights.
:func:`slotmath.engine.tumble.drop_pays` compiles only the game's own pay
rule (the others' arguments are ``None``): checked against that rule's drop
function called alone, on every pay rule's tumble test game.
:func:`slotmath.montecarlo.tumblesim.tumble_rounds`, the round loop, is
compiled without numba's reference counting: every rule's drop, the fresh
draws and the board multipliers compile into it (nothing there may allocate).
So is the exact enumeration's loop (:func:`slotmath.engine.tumble.tumble_vectors`),
which hands the entries above the dense counts back in a spill and resumes:
with every entry spilled, 3 at a time, it gives the law of
:func:`slotmath.engine.tumble.enumerate_tumbles` entry for entry.
"""

from __future__ import annotations

import numpy as np
import pytest

from slotmath.engine.anywhere import anywhere_drop, anywhere_drop_args
from slotmath.engine.cluster import cluster_drop
from slotmath.engine.lines import line_drop
from slotmath.engine.tumble import (
    drop_pays,
    enumerate_tumbles,
    first_drop,
    sequence_args,
    tumble_args,
    tumble_vectors,
)
from slotmath.engine.ways import ways_drop
from slotmath.io.gamefile import load_game
from slotmath.montecarlo.linesim import draw_any, draw_stops
from slotmath.montecarlo.tumblesim import tumble_kernel, tumble_rounds
from slotmath.rules.linegame import round_sampler

from conftest import GAMES, TEST_DATA


def plain_drop(window, weight, pay, event):
    """(coins, removed cells, events) of one pay-anywhere drop, cell by cell."""
    S, P = weight.shape
    counts = [sum(int(weight[s, p]) for s in window) for p in range(P)]
    coins = sum(int(pay[p, counts[p]]) for p in range(P))
    events = [int(event[p, counts[p]]) for p in range(P) if pay[p, counts[p]] > 0]
    paying = [p for p in range(P) if pay[p, counts[p]] > 0]
    removed = [int(any(weight[s, p] > 0 for p in paying)) for s in window]
    return coins, removed, events


@pytest.mark.parametrize("path", [GAMES / "candy_tumble", TEST_DATA / "tumble_anywhere"])
def test_anywhere_drop_matches_plain_count(path):
    game = load_game(path / "game.yaml")
    weight, pay, _, counts, by_symbol = anywhere_drop_args(game, 1)
    P = weight.shape[1]
    event = np.arange(pay.size, dtype=np.int64).reshape(pay.shape)  # one event per (symbol, count)
    pays = (weight, pay, event, counts, by_symbol)
    rng = np.random.default_rng(7)
    S, C = weight.shape[0], game.reels * game.rows
    paid = 0
    for _ in range(400):
        # few symbols per window, so that many windows pay
        window = rng.choice(rng.choice(S, size=min(S, 4), replace=False), size=C).astype(np.int64)
        removed = np.zeros(C, dtype=np.int64)
        events = np.zeros(pay.size, dtype=np.int64)
        coins = anywhere_drop(window, pays, removed, events, True)
        want_coins, want_removed, want_events = plain_drop(window.tolist(), weight, pay, event)
        assert coins == want_coins
        assert removed.tolist() == want_removed
        assert np.flatnonzero(events).tolist() == sorted(want_events)
        assert events.sum() == len(want_events) <= P
        paid += coins > 0
    assert paid > 50  # the check saw paying windows, not only blank ones


@pytest.mark.parametrize("scale", [1, 1 << 30])
def test_draw_any_is_draw_stops(scale):
    """Same stops, same stream after: per reel cumulative weights of 3-7
    stops (times ``scale``: total weights below and above 2**31)."""
    rng = np.random.default_rng(11)
    R, K = 5, 7
    n_stops = rng.integers(3, K + 1, size=R).astype(np.int64)
    cum = np.zeros((R, K), dtype=np.int64)
    for r in range(R):
        cum[r, : n_stops[r]] = np.cumsum(rng.integers(1, 9, size=n_stops[r])) * scale
    bound = np.array([cum[r, n_stops[r] - 1] for r in range(R)], dtype=np.int64)
    use_table = np.zeros(R, dtype=np.int64)
    table = np.zeros((R, 1), dtype=np.int64)
    assert (bound.max() >= 2**31) == (scale > 1)
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    sa, sb = np.zeros(R, dtype=np.int64), np.zeros(R, dtype=np.int64)
    seen = set()
    for _ in range(300):
        draw_any(a, sa, bound, use_table, table, cum, n_stops)
        draw_stops(b, sb, bound, use_table, table, cum, n_stops)
        assert sa.tolist() == sb.tolist()
        seen.add(tuple(sa.tolist()))
    assert a.random() == b.random()
    assert len(seen) > 100


@pytest.mark.parametrize(
    "path, rule",
    [
        (TEST_DATA / "tumble_tiny", 0),
        (TEST_DATA / "tumble_anywhere", 1),
        (TEST_DATA / "tumble_ways", 2),
        (TEST_DATA / "tumble_cluster", 3),
    ],
)
def test_drop_pays_plays_the_games_rule_alone(path, rule):
    """Same coins, removed cells and events as the rule's own drop, on
    seeded windows of the game's symbols; the other rules' arguments are None."""
    game = load_game(path / "game.yaml")
    pays = tumble_args(game, 1)[3]
    assert [p is None for p in pays] == [r != rule for r in range(4)]
    drop = (line_drop, anywhere_drop, ways_drop, cluster_drop)[rule]
    rng = np.random.default_rng(3)
    S, C = len(game.symbols), game.reels * game.rows
    n_events = 64
    paid = 0
    for _ in range(300):
        window = rng.choice(rng.choice(S, size=min(S, 3), replace=False), size=C).astype(np.int64)
        removed, want_removed = np.ones(C, dtype=np.int64), np.zeros(C, dtype=np.int64)
        events, want_events = np.zeros(n_events, dtype=np.int64), np.zeros(n_events, dtype=np.int64)
        coins = drop_pays(window, pays, removed, events, True)
        assert coins == drop(window, pays[rule], want_removed, want_events, True)
        assert removed.tolist() == want_removed.tolist()
        assert events.tolist() == want_events.tolist()
        paid += coins > 0
    assert paid > 30  # paying windows were seen


@pytest.mark.parametrize(
    "name",
    [
        "tumble_tiny",
        "tumble_anywhere",
        "tumble_ways",
        "tumble_cluster",
        "tumble_fresh",
        "tumble_bomb",
        "tumble_persist",
    ],
)
def test_round_loop_compiles_without_reference_counts(name):
    """Each rule's sampler plays its rounds in the loop compiled with
    ``_nrt=False`` (a drop that allocated would fail to compile there); a
    round's parts add up to its win and the rounds pay something."""
    assert tumble_rounds.targetoptions["_nrt"] is False
    sampler = round_sampler(load_game(TEST_DATA / name / "game.yaml"), 1)
    assert sampler.kernel is tumble_kernel
    wins, events, parts = sampler.kernel(np.random.default_rng(4), 2000, *sampler.args)
    assert np.allclose(parts.sum(axis=1), wins, rtol=1e-12, atol=1e-12)
    assert wins.sum() > 0 and events.sum() > 0


@pytest.mark.parametrize("name", ["tumble_tiny", "tumble_cluster"])
def test_enumeration_resumes_after_each_spill(name):
    game = load_game(TEST_DATA / name / "game.yaml")
    strip, n_stops, dims, pays, mults = tumble_args(game, 1)
    weights, sc_code, sc_units, key_code, _, unit_den = first_drop(game, 1, "base", ())
    seq = sequence_args(game)
    none = np.zeros((0, game.reels), dtype=np.int64)
    dense, keys, counts, endless, evaluations, sc_hist = enumerate_tumbles(
        strip, weights, n_stops, dims, pays, mults, sc_code, sc_units, key_code, 1, unit_den, none, 1, seq, 1
    )
    want = {a: int(c) for a, c in enumerate(dense.tolist()) if c}
    for a, c in zip(keys.tolist(), counts.tolist(), strict=True):
        want[a] = want.get(a, 0) + c
    R, C = game.reels, game.reels * game.rows
    # keys, trigger keys, scatter codes, codes, dense units 0 (every entry spills), unit_den, board, drops
    sizes = np.array([1, 1, 1, 1, 0, unit_den, 1, 1], dtype=np.int64)
    work = tuple(np.zeros(k, dtype=np.int64) for k in (0, C, R, C, 0, R, 4))
    got_hist = np.zeros_like(sc_hist)
    spill = (np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64))
    got: dict = {}
    calls = 0
    while work[6][3] == 0:
        m = tumble_vectors(
            strip, weights, n_stops, dims, pays, mults, sc_code, sc_units, key_code, none, seq, sizes,
            work, got_hist, np.zeros(0, dtype=np.int64), spill,
        )  # fmt: skip
        for a, c in zip(spill[0][:m].tolist(), spill[1][:m].tolist(), strict=True):
            got[a] = got.get(a, 0) + c
        calls += 1
    assert got == want
    assert got_hist.tolist() == sc_hist.tolist()
    assert work[6][1:3].tolist() == [endless, evaluations]
    assert calls > 10  # it stopped and resumed many times
