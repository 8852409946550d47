"""Cluster pays (``pays_by: cluster``): the exact engine against a plain
Python flood fill over every stop combination (law, keyed law, RTP and the
combination table's cluster hits), the hand-worked example of
docs/features.md, the compiled samplers' z-scores and the refusals."""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from slotmath.engine.cluster import cluster_distribution, cluster_key_distribution, cluster_rtp, cluster_table
from slotmath.engine.reels import windows
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.errors import EngineTooLarge
from slotmath.features.round import Trigger
from slotmath.io.gamefile import GameFileError, build_game, check_rules
from slotmath.rules.par import par
from slotmath.rules.registry import rules_for
from slotmath.testing import parametrize_with_checks


def make_game(data: dict):
    return build_game(data, Path("test.yaml"), "t")


# 3 reels x 3 rows: A, B pay by cluster size, W joins both, S a scatter, X a blank
SMALL = {
    "name": "cluster33",
    "pays_by": "cluster",
    "grid": {"reels": 3, "rows": 3},
    "bet": {"levels": [1, 2], "lines": 4},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "W", "kind": "wild"},
        {"name": "S", "kind": "scatter"},
        {"name": "X", "kind": "blank"},
    ],
    "reels": {
        "base": [
            ["A", "B", "W", "S", "A", "X", "B"],
            ["B", "A", "A", "W", "B", "S", "A"],
            ["A", "S", "B", "B", "W", "A", "X", "A"],
        ]
    },
    "pays": [
        {"symbol": "A", "count": 3, "pay": 1},
        {"symbol": "A", "count": 4, "pay": 4},
        {"symbol": "A", "count": 6, "pay": 30},
        {"symbol": "B", "count": 3, "pay": 6},
        {"symbol": "B", "count": 5, "pay": 11},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/2"}],
}

# free games on two or more S, on a reel set of their own
FREE = copy.deepcopy(SMALL) | {"name": "cluster_free"}
FREE["reels"] = {
    "base": SMALL["reels"]["base"],
    "free": [["A", "A", "B", "S", "W"], ["A", "B", "S", "A", "X", "B"], ["B", "A", "S", "X", "A"]],
}
FREE["options"] = {
    "free_games": {"symbol": "S", "reels": "free", "awards": {2: {"games": 3}}, "max_games": 30}
}

# a wheel on two or more S (1 x 3 + 2 x 1 over weight 3: mean prize 5/3 x total bet)
WHEEL = copy.deepcopy(SMALL) | {"name": "cluster_wheel"}
WHEEL["options"] = {
    "wheel": {"symbol": "S", "trigger": 2, "segments": [{"prize": 3, "weight": 1}, {"prize": 1, "weight": 2}]}
}


def pay_of(game, level, symbol, size) -> int:
    """Coin pay of a cluster of ``size`` ``symbol``: the listed row of the highest count not above it."""
    best = (0, 0)
    for lp in game.line_pays:
        n = len(lp.positions)
        if next(iter(lp.positions[0])) == symbol and best[0] < n <= size:
            best = (n, lp.pays[game.level_index(level)])
    return best[1]


def clusters(grid, symbol, joins):
    """Sizes of the clusters of ``symbol`` in ``grid`` (a dict (reel, row) ->
    name): a breadth-first search from each unvisited cell of the symbol
    over the orthogonal neighbours showing it or a symbol of ``joins``."""
    sizes, seen = [], set()
    for start, name in grid.items():
        if name != symbol or start in seen:
            continue
        seen.add(start)
        queue, size = [start], 0
        while queue:
            r, h = queue.pop(0)
            size += 1
            for nxt in ((r - 1, h), (r + 1, h), (r, h - 1), (r, h + 1)):
                if nxt in grid and nxt not in seen and (grid[nxt] == symbol or grid[nxt] in joins):
                    seen.add(nxt)
                    queue.append(nxt)
        sizes.append(size)
    return sizes


def brute(game, level, reel_set="base"):
    """(win [x total bet] -> count, (win, S count) -> count, pay row name ->
    cluster hits) over every stop combination."""
    wins = [windows(game, s) for s in game.strips(reel_set)]
    names = game.symbol_names
    bet = game.bet(level).total_bet
    paying = list(dict.fromkeys(next(iter(lp.positions[0])) for lp in game.line_pays))
    law: Counter = Counter()
    keyed: Counter = Counter()
    hits: Counter = Counter()
    for stops in itertools.product(*[range(len(w)) for w in wins]):
        grid = {(r, h): names[i] for r, s in enumerate(stops) for h, i in enumerate(wins[r][s])}
        cells = list(grid.values())
        win = Fraction(0)
        for x in paying:
            joins = {s.name for s in game.symbols if s.wild and x in s.wild.substitutes}
            for size in clusters(grid, x, joins):
                pay = pay_of(game, level, x, size)
                win += pay
                if pay:
                    row = max(
                        (
                            lp
                            for lp in game.line_pays
                            if next(iter(lp.positions[0])) == x and len(lp.positions) <= size
                        ),
                        key=lambda lp: len(lp.positions),
                    )
                    hits[row.name] += 1
        win = win / bet + sum(scatter_pay(game, s, cells.count(s)) for s in scatter_symbols(game))
        law[win] += 1
        keyed[(win, cells.count("S"))] += 1
    return law, keyed, hits


def as_counter(d) -> Counter:
    return Counter(
        {Fraction(int(w), d.unit_den * d.total_bet): int(c) for w, c in zip(d.wins, d.weights, strict=True)}
    )


@pytest.mark.parametrize("data, level, reel_set", [(SMALL, 1, "base"), (SMALL, 2, "base"), (FREE, 1, "free")])
def test_engine_equals_brute_force(data, level, reel_set):
    """The law of the spin win, the (win, trigger count) law, the RTP and
    every row's cluster hits equal a plain flood fill of every stop combination."""
    game = make_game(data)
    law, keyed, hits = brute(game, level, reel_set)
    assert as_counter(cluster_distribution(game, level, reel_set)) == law
    kw = cluster_key_distribution(game, level, (Trigger("S"),), reel_set)
    got: Counter = Counter()
    for w, k, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        got[(Fraction(int(w), kw.unit_den * kw.total_bet), k[0])] += c
    assert got == keyed
    table = {r["combination"]: r["hits"] for r in cluster_table(game, level, reel_set)}
    assert table == dict(hits)
    total = sum(law.values())
    scatters = sum((Fraction(scatter_pay(game, "S", k[1])) * c for k, c in keyed.items()), Fraction(0))
    assert cluster_rtp(game, level, reel_set) == sum((w * c for w, c in law.items()), Fraction(0)) / total - (
        scatters / total
    )


def test_round_with_free_games_composes():
    """Free games by scatter count on a cluster game: par's RTP is the base
    spin plus the free games' component, above the base spin's."""
    game = make_game(FREE)
    r = par(game)
    assert set(r.components) == {"cluster", "scatters", "free_games"}
    assert r.components["free_games"] > 0
    assert r.rtp == sum(r.components.values(), Fraction(0))


def test_wheel_reads_the_scatter_count():
    """A base feature on a cluster game: the wheel's component is
    P(2+ S) x 5/3, P(2+ S) counted by the brute force."""
    game = make_game(WHEEL)
    _, keyed, _ = brute(game, 1)
    p = Fraction(sum(c for (_, k), c in keyed.items() if k >= 2), sum(keyed.values()))
    assert par(game).components["wheel"] == p * Fraction(5, 3)


@pytest.mark.parametrize("data", [SMALL, FREE, WHEEL])
def test_simulation_agrees_with_exact_figures(data):
    """The compiled samplers (the spin, and the round with free games): RTP,
    hit frequency, SD, every component and every event rate within 4 standard errors."""
    from slotmath.analysis import simulation

    game = make_game(data)
    result = simulation.simulate_game(
        game, 400_000, seed=26, workers=1, chunk=200_000, progress=False, exact="par"
    )
    report = result.convergence
    assert report.max_abs_z < 4, report.text()
    shown = " ".join(map(str, report.components.to_numpy().ravel())) + " ".join(
        map(str, report.components.index)
    )
    assert "cluster" in shown and "scatters" in shown, report.components  # the components' z are in max_abs_z
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(result, name)
        assert est.exact is not None and abs(est.z) < 4


def test_too_large_is_refused_before_the_work():
    game = make_game(SMALL)
    with pytest.raises(EngineTooLarge, match="slotmath simulate") as e:
        cluster_distribution(game, 1, limit=10)
    assert e.value.field == "reels.base"


@pytest.mark.parametrize(
    "change, field, words",
    [
        (
            lambda d: d["pays"].append({"symbol": "A", "count": 1, "pay": 1}),
            "pays[5].count",
            "at least 2 cells",
        ),
        (
            lambda d: d["pays"].append({"symbol": "B", "count": 10, "pay": 1}),
            "pays[5].count",
            "window of 9 cells",
        ),
        (
            lambda d: d["pays"].append({"symbol": "W", "count": 3, "pay": 1}),
            "pays[5].symbol",
            "not a paying symbol",
        ),
        (lambda d: d["pays"].append({"pattern": ["A", "A"], "pay": 1}), "pays[5]", "pays_by: cluster"),
        (lambda d: d.update(paylines=[[0, 0, 0]]), "paylines", "not used with pays_by: cluster"),
        (lambda d: d["symbols"][2].update(multiplier={"per_wild": 2}), "symbols[2].multiplier", "cluster"),
    ],
)
def test_refusals(change, field, words):
    data = copy.deepcopy(SMALL)
    change(data)
    with pytest.raises(GameFileError, match=words) as e:
        make_game(data)
    assert e.value.field == field


def test_tumble_beside_another_feature_is_refused():
    """Cluster tumbles play (tests/test_tumble.py); a wheel beside them is refused in one line."""
    data = copy.deepcopy(WHEEL)
    data["options"]["tumble"] = {"refill": "strip"}
    with pytest.raises(GameFileError, match="is not played with tumbles") as e:
        check_rules(make_game(data))
    assert e.value.field == "options.wheel"


@parametrize_with_checks([(rules_for(make_game(d)), make_game(d)) for d in (SMALL, FREE)], rounds=20_000)
def test_cluster_games_conform(check):
    """The rules contract's conformance checks on the cluster games."""
    check()


def test_docs_worked_example(tmp_path):
    """docs/features.md, "Worked example: cluster pays": 2, 3, 4 coins with
    probabilities 1/4, 1/2, 1/4; hits 4, 2, 6 clusters; RTP 3/4."""
    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: cluster pays")
    d = cluster_distribution(game, 1)
    assert as_counter(d) == Counter({Fraction(2, 4): 2, Fraction(3, 4): 4, Fraction(4, 4): 2})
    table = par(game).combinations
    hits = dict(zip(table["combination"], table["hits"], strict=True))
    assert hits == {"2 x A": 4, "3+ x A": 2, "2+ x B": 6}
    assert cluster_rtp(game, 1) == Fraction(3, 4) and "**3/4**" in section
    assert as_counter(d) == brute(game, 1)[0]


def cluster_cells(grid, symbol, joins):
    """The cells of each cluster of ``symbol`` in ``grid`` (as :func:`clusters`, cells not sizes)."""
    found, seen = [], set()
    for start, name in grid.items():
        if name != symbol or start in seen:
            continue
        seen.add(start)
        queue, cells = [start], []
        while queue:
            r, h = queue.pop(0)
            cells.append((r, h))
            for nxt in ((r - 1, h), (r + 1, h), (r, h - 1), (r, h + 1)):
                if nxt in grid and nxt not in seen and (grid[nxt] == symbol or grid[nxt] in joins):
                    seen.add(nxt)
                    queue.append(nxt)
        found.append(cells)
    return found


@pytest.mark.parametrize("reels, rows", [(7, 7), (5, 5), (6, 5), (1, 4), (8, 8), (9, 7)])
def test_flood_fills_equal_a_plain_search(reels, rows):
    """Both compiled flood fills (bit boards up to BOARD_CELLS cells, the
    cell-by-cell search on any window; window_cluster_win picks by size)
    against the plain-Python breadth-first search on seeded random windows:
    the coin win, the event of every paying cluster and the removed cells.
    Symbols: A, B, C pay (A from 3 cells, B from 2, C from 4; the rows
    grow with the size), W joins A and B (not C), X joins nothing."""
    import numpy as np

    from slotmath.engine.cluster import (
        BOARD_CELLS,
        board_clusters,
        flood_scratch,
        search_clusters,
        window_cluster_win,
    )

    names = ["A", "B", "C", "W", "X"]
    joins = {"A": {"W"}, "B": {"W"}, "C": set()}
    C = reels * rows
    natural = np.array([0, 1, 2], dtype=np.int64)
    weight = np.zeros((5, 3), dtype=np.int64)
    for p, x in enumerate("ABC"):
        weight[p, p] = 1
        weight[3, p] = int(x in "AB")
    low = {"A": 3, "B": 2, "C": 4}
    pay = np.zeros((3, C + 1), dtype=np.int64)
    for p, x in enumerate("ABC"):
        for n in range(low[x], C + 1):
            pay[p, n] = (p + 1) * 10 + n  # any pay that tells the sizes apart
    event = np.arange(3 * (C + 1), dtype=np.int64).reshape(3, C + 1)
    rng = np.random.default_rng(reels * 100 + rows)
    mix = np.array([0.3, 0.25, 0.2, 0.1, 0.15])  # clusters of every size, wilds in two at once
    fills = [window_cluster_win, search_clusters] + ([board_clusters] if C <= BOARD_CELLS else [])
    scratch = {fill: flood_scratch(reels, rows, 5) for fill in fills}  # kept from window to window
    for _ in range(300):
        cells = rng.choice(5, size=C, p=mix).astype(np.int64)
        grid = {(c // rows, c % rows): names[int(s)] for c, s in enumerate(cells)}
        coins, events, removed = 0, Counter(), set()
        for p, x in enumerate("ABC"):
            for cl in cluster_cells(grid, x, joins[x]):
                if pay[p, len(cl)]:
                    coins += int(pay[p, len(cl)])
                    events[int(event[p, len(cl)])] += 2
                    removed |= {r * rows + h for r, h in cl}
        for fill in fills:
            stack, seen, edges = scratch[fill]
            got_events = np.zeros(event.size, dtype=np.int64)
            got_removed = np.zeros(C, dtype=np.int64)
            head = (cells, rows, weight, natural, pay, event)
            tail = (got_events, 2, got_removed)
            if fill is window_cluster_win:
                won = fill(*head, (stack, seen, edges), *tail)
            elif fill is search_clusters:
                won = fill(*head, stack, seen, *tail)
            else:
                won = fill(*head, seen, edges, *tail)
            assert won == coins, fill
            assert {i: int(v) for i, v in enumerate(got_events) if v} == dict(events), fill
            assert set(np.flatnonzero(got_removed).tolist()) == removed, fill
