"""The merged-state exact engine (:mod:`slotmath.engine.joint`): a sparse win table
for huge awards and fractional scatter pays, equality with brute-force
enumeration on multi-line games with long runs of equal windows, a worked
two-line example, and the "still too large" refusal."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from slotmath.engine.evaluate import brute_force_distribution
from slotmath.engine.joint import EngineTooLarge, spin_distribution
from slotmath.io.gamefile import load_game

from conftest import distribution_dict

# 3 reels x 2 rows, two lines (top row, bottom row).  Window of stop s shows
# strip[s] on top and strip[s+1] below.
TWO_LINES = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: S, kind: scatter}]
reels:
  base:
    - [A, X]
    - [A, X]
    - [A, S]
paylines: [[0, 0, 0], [1, 1, 1]]
pays:
  - {symbol: A, count: 3, pay: PAY}
scatters:
  - {symbol: S, count: 1, pay: SCATTER}
"""


def two_lines(write_game, pay="10", scatter="1"):
    return load_game(write_game(TWO_LINES.replace("PAY", pay).replace("SCATTER", scatter)))


def test_two_lines_worked_by_hand(write_game):
    # Windows (top, bottom): reels 1-2 stop 0 = (A, X), stop 1 = (X, A);
    # reel 3 stop 0 = (A, S), stop 1 = (S, A).  Cycle 2 x 2 x 2 = 8.
    # Total bet 2 coins; one S anywhere pays 1 x total bet = 2 coins, and
    # every reel-3 window shows one S, so every spin wins the 2 coins.
    #   top line A A A:    stops (0, 0, 0)          -> 10 coins
    #   bottom line A A A: stops (1, 1, 1)          -> 10 coins
    # So 2 spins win 12 coins, 6 spins win 2 coins: win/total bet 6 and 1.
    game = two_lines(write_game)
    dist = spin_distribution(game, 1)
    assert distribution_dict(dist) == {F(1): 6, F(6): 2}
    assert dist.mean == F(6 * 1 + 2 * 6, 8)
    assert dist.hit_frequency == 1


@pytest.mark.parametrize("pay, scatter", [("10000000", "1"), ("10", "1/999983"), ("10000000", "7/999983")])
def test_sparse_table_equals_brute_force(write_game, pay, scatter):
    # a win table sized by the largest win x the win unit's denominator would
    # need 2e7 x 999983 cells; the sparse table holds the distinct wins only
    game = two_lines(write_game, pay, scatter)
    dist = spin_distribution(game, 1)
    brute = {w: c for w, c in brute_force_distribution(game, 1).items() if c}
    assert distribution_dict(dist) == brute
    assert len(dist.wins) == len(brute) == 2


LONG = """
grid: {reels: 4, rows: 3}
bet: {levels: [1, 3]}
symbols:
  - {name: W, kind: wild, substitutes: all, multiplier: {per_wild: 2}}
  - {name: A}
  - {name: B}
  - {name: C}
  - {name: S, kind: scatter}
reels:
  base:
    - [A, B, C, A, B, S, C, C, A, B]
    - [B, W, A, C, S, A, B, C]
    - [C, A, W, B, A, S, C, B, A]
    - [A, C, B, S, A, B, C]
paylines: [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [0, 1, 2, 1], [2, 1, 0, 1], [1, 0, 0, 2]]
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 5}
  - {symbol: A, count: 4, pay: 50}
  - {symbol: B, count: 3, pay: 4}
  - {symbol: B, count: 4, pay: 30}
  - {symbol: C, count: 3, pay: 3}
  - {symbol: C, count: 4, pay: 20}
scatters:
  - {symbol: S, count: 2, pay: 2}
  - {symbol: S, count: 3, pay: 1/7}
"""


@pytest.mark.parametrize("level", [1, 3])
def test_six_lines_with_multiplier_wild_equals_brute_force(write_game, level):
    # many lines share states (merged) and a multiplier wild keeps lines live
    # to the last reel: every stop combination (10 x 8 x 9 x 7) is enumerated
    game = load_game(write_game(LONG))
    brute = {w: c for w, c in brute_force_distribution(game, level).items() if c}
    assert distribution_dict(spin_distribution(game, level)) == brute


def test_too_large_is_refused_before_the_work(write_game):
    game = load_game(write_game(LONG))
    with pytest.raises(EngineTooLarge, match=r"still too large: reel \d .* line steps"):
        spin_distribution(game, 1, max_line_steps=100)


def test_cli_says_too_large_in_one_line(write_game, monkeypatch, capsys):
    from slotmath import cli
    from slotmath.engine import limits

    path = write_game(LONG)
    monkeypatch.setattr(limits, "MAX_LINE_STEPS", 100)
    assert cli.main(["par", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("slotmath: error: ") and "still too large" in err
    assert "\n" not in err


def brute_keyed(game, level, symbol, per_reel):
    """Every stop combination evaluated: {(win [x total bet], key): weight}."""
    from itertools import product

    from slotmath.engine.evaluate import total_wins, window_at

    strips = game.strips("base")
    s = game.symbol_index[symbol]
    out: dict = {}
    for stops in product(*[range(len(st)) for st in strips]):
        w = window_at(game, stops)
        weight = 1
        for st, i in zip(strips, stops, strict=True):
            weight *= int(st.stop_weights()[i])
        win = F(total_wins(game, level, w[None])[0]).limit_denominator(10**9)
        per = tuple(int(v) for v in (w == s).sum(axis=1))
        key = ((per if per_reel else sum(per)),)
        out[(win, key)] = out.get((win, key), 0) + weight
    return out


@pytest.mark.parametrize("per_reel", [False, True])
@pytest.mark.parametrize("symbol", ["SCATTER", "A", "WILD"])
def test_keyed_law_equals_brute_force(per_reel, symbol):
    # the joint law of (spin win, count of a symbol) by the forward pass with
    # the key as one more state digit, against every window of the cycle
    from slotmath.engine.joint import spin_key_distribution
    from slotmath.features.round import Trigger

    from conftest import TEST_DATA

    game = load_game(TEST_DATA / "classic_free_games")
    kw = spin_key_distribution(game, 1, [Trigger(symbol, per_reel)])
    got: dict = {}
    for w, k, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        got[(F(w, kw.unit_den * kw.total_bet), k)] = got.get((F(w, kw.unit_den * kw.total_bet), k), 0) + c
    assert got == brute_keyed(game, 1, symbol, per_reel)
    marginal = kw.marginal()
    plain = spin_distribution(game, 1)
    assert marginal.wins.tolist() == plain.wins.tolist()
    assert marginal.weights.tolist() == plain.weights.tolist()


def test_keyed_law_two_lines_scatter_key(write_game):
    # the worked two-line game: every reel-3 window shows one S, so the key
    # (S per reel) is (0, 0, 1) on every spin; wins as worked above
    from slotmath.engine.joint import spin_key_distribution
    from slotmath.features.round import Trigger

    game = two_lines(write_game)
    kw = spin_key_distribution(game, 1, [Trigger("S", True), Trigger("A", False)])
    by = {}
    for w, k, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        by[(w, k)] = by.get((w, k), 0) + c
    # A count: reels 1-2 show one A each always; reel 3 shows one A always -> 3
    assert by == {(2, ((0, 0, 1), 3)): 6, (12, ((0, 0, 1), 3)): 2}
