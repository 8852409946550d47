"""Pays anywhere by count (``pays_by: anywhere``): the exact engine against
brute force over every stop combination (RTP, law, keyed law), the
hand-worked example of docs/features.md, the compiled samplers' z-scores
and the refusals."""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from slotmath.engine.anywhere import anywhere_distribution, anywhere_key_distribution, anywhere_rtp
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.reels import windows
from slotmath.engine.scatters import scatter_pay, scatter_symbols
from slotmath.features.round import Trigger
from slotmath.io.gamefile import GameFileError, build_game
from slotmath.rules.par import par


def make_game(data: dict):
    return build_game(data, Path("test.yaml"), "t")


# 3 reels x 3 rows: A, B pay by count, W counts toward both, S a scatter, X a blank
SMALL = {
    "name": "anywhere33",
    "pays_by": "anywhere",
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
            ["A", "B", "W", "S", "A", "X"],
            ["B", "A", "A", "X", "B", "S", "A"],
            ["A", "S", "B", "B", "W", "A", "X", "A"],
        ]
    },
    "pays": [
        {"symbol": "A", "count": 4, "pay": 1},
        {"symbol": "A", "count": 5, "pay": 4},
        {"symbol": "A", "count": 7, "pay": 30},
        {"symbol": "B", "count": 4, "pay": 6},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/2"}],
}

# no wild; free games on two or more S
FREE = copy.deepcopy(SMALL) | {"name": "anywhere_free"}
FREE["symbols"] = [s for s in SMALL["symbols"] if s["name"] != "W"]
FREE["reels"] = {
    "base": [[("A" if c == "W" else c) for c in strip] for strip in SMALL["reels"]["base"]],
    "free": [["A", "A", "B", "S", "X"], ["A", "B", "S", "A", "X", "B"], ["B", "A", "S", "X", "A"]],
}
FREE["options"] = {
    "free_games": {"symbol": "S", "reels": "free", "awards": {2: {"games": 3}}, "max_games": 30}
}


def pay_of(game, level, symbol, count) -> int:
    """Coin pay of ``count`` ``symbol``: the listed row of the highest count not above it."""
    best = (0, 0)
    for lp in game.line_pays:
        n = len(lp.positions)
        if next(iter(lp.positions[0])) == symbol and best[0] < n <= count:
            best = (n, lp.pays[game.level_index(level)])
    return best[1]


def brute(game, level, reel_set="base"):
    """(win [x total bet] -> count, (win, S count) -> count) over every stop combination."""
    wins = [windows(game, s) for s in game.strips(reel_set)]
    names = game.symbol_names
    bet = game.bet(level).total_bet
    paying = list(dict.fromkeys(next(iter(lp.positions[0])) for lp in game.line_pays))
    law: Counter = Counter()
    keyed: Counter = Counter()
    for stops in itertools.product(*[range(len(w)) for w in wins]):
        cells = [names[i] for r, s in enumerate(stops) for i in wins[r][s]]
        win = Fraction(0)
        for x in paying:
            subs = {s.name for s in game.symbols if s.wild and x in s.wild.substitutes}
            win += pay_of(game, level, x, sum(c == x or c in subs for c in cells))
        win = win / bet + sum(scatter_pay(game, s, cells.count(s)) for s in scatter_symbols(game))
        law[win] += 1
        keyed[(win, cells.count("S"))] += 1
    return law, keyed


def as_counter(d) -> Counter:
    return Counter(
        {Fraction(int(w), d.unit_den * d.total_bet): int(c) for w, c in zip(d.wins, d.weights, strict=True)}
    )


@pytest.mark.parametrize("data, level", [(SMALL, 1), (SMALL, 2), (FREE, 1)])
def test_engine_equals_brute_force(data, level):
    """RTP, the law of the spin win and the (win, trigger count) law equal
    the enumeration of every stop combination."""
    game = make_game(data)
    law, keyed = brute(game, level)
    d = anywhere_distribution(game, level)
    assert as_counter(d) == law
    total = sum(law.values())
    scatters = sum((Fraction(scatter_pay(game, "S", k[1])) * c for k, c in keyed.items()), Fraction(0))
    assert (
        anywhere_rtp(game, level)
        == sum((w * c for w, c in law.items()), Fraction(0)) / total - scatters / total
    )
    kw = anywhere_key_distribution(game, level, (Trigger("S"),))
    got = Counter()
    for w, k, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        got[(Fraction(int(w), kw.unit_den * kw.total_bet), k[0])] += c
    assert got == keyed


def test_rows_pay_up_to_the_next_row():
    """A row pays from its count up to the next row's: the names say so."""
    game = make_game(SMALL)
    assert [lp.name for lp in game.line_pays] == ["4 x A", "5-6 x A", "7+ x A", "4+ x B"]
    table = par(game).combinations
    assert set(table.loc[table["kind"] == "anywhere", "combination"]) <= {lp.name for lp in game.line_pays}


def test_round_with_free_games_composes():
    """The round (free games triggered by S) is exact: par's RTP is the
    base spin plus the free games' component, and it is above the base spin's."""
    game = make_game(FREE)
    r = par(game)
    assert set(r.components) == {"anywhere", "scatters", "free_games"}
    assert r.components["free_games"] > 0
    assert r.rtp == sum(r.components.values(), Fraction(0))


@pytest.mark.parametrize("data", [SMALL, FREE])
def test_simulation_agrees_with_exact_figures(data):
    """The compiled sampler (the spin sampler, and the round sampler with free
    games): RTP, hit frequency, SD and every event rate within 4 standard errors."""
    from slotmath.analysis import simulation

    game = make_game(data)
    result = simulation.simulate_game(
        game, 400_000, seed=26, workers=1, chunk=200_000, progress=False, exact="par"
    )
    report = result.convergence
    assert report.max_abs_z < 4, report.text()
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(result, name)
        assert est.exact is not None and abs(est.z) < 4


def test_data_game_rtp_agrees_with_simulation():
    """The 6x5 data game: the sampled RTP of the round within 4 standard errors of the exact one."""
    from slotmath.analysis import simulation
    from slotmath.io.gamefile import load_game

    game = load_game(Path(__file__).parents[1] / "data" / "games" / "candy_anywhere" / "game.yaml")
    result = simulation.simulate_game(
        game, 300_000, seed=7, workers=1, chunk=300_000, progress=False, exact="par"
    )
    assert result.rtp.exact is not None and abs(result.rtp.z) < 4, result.rtp


def test_too_large_is_refused_before_the_work():
    game = make_game(SMALL)
    with pytest.raises(EngineTooLarge, match="pay-anywhere law is too large"):
        anywhere_distribution(game, 1, max_steps=10)


@pytest.mark.parametrize(
    "change, field, words",
    [
        (
            lambda d: d["pays"].append({"symbol": "S", "count": 3, "pay": 1}),
            "pays[4].symbol",
            "'S' is a scatter, not a paying symbol: with pays_by: anywhere",
        ),
        (
            lambda d: d["pays"].append({"symbol": "W", "count": 3, "pay": 1}),
            "pays[4].symbol",
            "not a paying symbol",
        ),
        (
            lambda d: d["pays"].append({"symbol": "B", "count": 10, "pay": 1}),
            "pays[4].count",
            "window of 9 cells",
        ),
        (lambda d: d.update(paylines=[[0, 0, 0]]), "paylines", "not used with pays_by: anywhere"),
        (lambda d: d["pays"].append({"pattern": ["A", "A"], "pay": 1}), "pays[4]", "of one symbol"),
        (lambda d: d["symbols"][2].update(multiplier={"per_wild": 2}), "symbols[2].multiplier", "anywhere"),
    ],
)
def test_refusals(change, field, words):
    data = copy.deepcopy(SMALL)
    change(data)
    with pytest.raises(GameFileError, match=words) as e:
        make_game(data)
    assert e.value.field == field


def test_docs_worked_example(tmp_path):
    """docs/features.md, "Worked example: pays anywhere": 3 coins with
    probability 2/3, 5 with 1/3; RTP 11/3 = A 7/3 + B 4/3."""
    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: pays anywhere")
    d = anywhere_distribution(game, 1)
    assert as_counter(d) == Counter({Fraction(3): 4, Fraction(5): 2})
    table = par(game).combinations
    rtp = dict(zip(table["combination"], table["rtp_exact"], strict=True))
    assert rtp == {"2 x A": Fraction(4, 6), "3+ x A": Fraction(10, 6), "2+ x B": Fraction(8, 6)}
    assert anywhere_rtp(game, 1) == Fraction(11, 3) and "11/3" in section
