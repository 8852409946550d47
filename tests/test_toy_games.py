"""Toy games worked by hand: every expected number below is derived in the
comments from the strips and the pay table, then compared with the exact
engine (:func:`slotmath.rules.par.par`), exactly (``Fraction``).

Notation: ``X`` = total win of a spin [x total bet]; ``C`` = cycle.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from slotmath.engine.evaluate import brute_force_distribution
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

from conftest import ROOT, distribution_dict


@pytest.fixture
def game(write_game):
    """``game(yaml_text)`` -> a validated Game."""
    return lambda text: load_game(write_game(text))


def line_hits(result) -> dict:
    """{(combination, multiplier): hits} of the line rows with hits."""
    t = result.combinations
    t = t[(t["kind"] == "line") & (t["hits"] > 0)]
    return {(c, int(m)): int(h) for c, m, h in zip(t["combination"], t["multiplier"], t["hits"], strict=True)}


def scatter_hits(result) -> dict:
    t = result.combinations
    t = t[(t["kind"] == "scatter") & (t["hits"] > 0)]
    return dict(zip(t["combination"], t["hits"].astype(int), strict=True))


def check(result, *, cycle, dist, rtp, hit, var):
    """Compare the headline figures and the whole distribution, and check the
    distribution against brute-force enumeration too."""
    assert result.cycle == cycle
    assert distribution_dict(result.distribution) == dist
    assert sum(dist.values()) == cycle
    assert result.rtp == rtp and result.distribution.mean == rtp
    assert result.distribution.hit_frequency == hit
    assert result.distribution.variance == var
    assert sum(result.components.values()) == rtp
    brute = {w: c for w, c in brute_force_distribution(result.game, result.bet.level).items() if c}
    assert brute == dist


# ---------------------------------------------------------------------------
# 1. A 3-reel, 1-line game with tiny unweighted strips
# ---------------------------------------------------------------------------
TOY_3REEL = """
grid: {reels: 3, rows: 1}
bet: {levels: [1, 2]}
symbols: [{name: A}, {name: B}, {name: X, kind: blank}]
reels:
  base:
    - [A, A, B, X]
    - [A, B, X]
    - [A, B, B, X]
pays:
  - {symbol: A, count: 3, pay: 10}
  - {symbol: B, count: 3, pay: 5}
  - {symbol: A, count: 2, pay: 1}
"""


@pytest.mark.parametrize("level", [1, 2])
def test_three_reel_single_line(game, level):
    # Symbol counts per reel (A, B, X): reel 1 (2, 1, 1), reel 2 (1, 1, 1), reel 3 (1, 2, 1).
    # C = 4 * 3 * 4 = 48.
    #   3 x A: 2 * 1 * 1                 =  2 hits, win 10
    #   3 x B: 1 * 1 * 2                 =  2 hits, win  5
    #   2 x A: A A then not A: 2 * 1 * 3 =  6 hits, win  1  (A A A pays 10, the higher)
    # A linear pay table scales wins and bet alike, so X is the same at both levels.
    # Total win 2*10 + 2*5 + 6*1 = 36 -> RTP = 36/48 = 3/4; hits 10 -> 10/48 = 5/24.
    # E[X^2] = (2*100 + 2*25 + 6*1)/48 = 256/48 = 16/3; Var = 16/3 - 9/16 = 229/48.
    r = par(game(TOY_3REEL), level)
    check(r, cycle=48, dist={0: 38, 1: 6, 5: 2, 10: 2}, rtp=F(3, 4), hit=F(5, 24), var=F(229, 48))
    assert line_hits(r) == {("3 x A", 1): 2, ("3 x B", 1): 2, ("2 x A", 1): 6}
    row = r.combinations.set_index("combination").loc["3 x A"]
    assert row["win"] == 10 * level and row["one_in"] == 24 and row["rtp_exact"] == F(2 * 10, 48)
    assert r.per_line_rtp == [F(3, 4)]
    assert r.distribution.max_win == 10 and r.distribution.max_win_probability == F(2, 48)


# ---------------------------------------------------------------------------
# 2. Weighted stops (virtual reels)
# ---------------------------------------------------------------------------
TOY_WEIGHTED = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols: [{name: A}, {name: B}, {name: X, kind: blank}]
reels:
  base:
    - {symbols: [A, B, X], weights: [1, 2, 3]}
    - {symbols: [A, B, X], weights: [2, 1, 1]}
    - {symbols: [A, X], weights: [1, 4]}
pays:
  - {symbol: A, count: 3, pay: 20}
  - {symbol: A, count: 2, pay: 2}
  - {symbol: B, count: 2, pay: 4}
"""


def test_weighted_stops(game):
    # Reel weights 6, 4, 5: C = 120.  Weighted counts: A 1/2/1, B 2/1/-, X 3/1/4.
    #   3 x A: 1 * 2 * 1 =  2 hits, win 20
    #   2 x A: 1 * 2 * 4 =  8 hits, win  2  (third reel not A)
    #   2 x B: 2 * 1 * 5 = 10 hits, win  4  (any third reel)
    # Total 40 + 16 + 40 = 96 -> RTP 96/120 = 4/5; hits 20/120 = 1/6.
    # E[X^2] = (2*400 + 8*4 + 10*16)/120 = 992/120 = 124/15; Var = 124/15 - 16/25 = 572/75.
    r = par(game(TOY_WEIGHTED))
    check(r, cycle=120, dist={0: 100, 2: 8, 4: 10, 20: 2}, rtp=F(4, 5), hit=F(1, 6), var=F(572, 75))
    assert line_hits(r) == {("3 x A", 1): 2, ("2 x A", 1): 8, ("2 x B", 1): 10}


TOY_WINDOW = """
grid: {reels: 2, rows: 2}
bet: {levels: [1]}
symbols: [{name: A}, {name: B}, {name: C}]
reels:
  base:
    - {symbols: [A, B, C], weights: [1, 2, 3]}
    - [A, B]
paylines: [[0, 0], [1, 1]]
pays:
  - {symbol: A, count: 2, pay: 6}
"""


def test_window_convention_with_weights(game):
    # A stop s shows strip positions s, s+1 (top, bottom); its weight is the weight
    # listed at position s.
    #   reel 1: stop 0 A/B (w 1), stop 1 B/C (w 2), stop 2 C/A (w 3)
    #           -> A in the top row with weight 1, in the bottom row with weight 3
    #   reel 2: stop 0 A/B, stop 1 B/A -> A top 1, A bottom 1
    # C = 6 * 2 = 12, total bet 2 (two lines).
    #   top line A A:    1 * 1 = 1 hit (stops 0, 0)
    #   bottom line A A: 3 * 1 = 3 hits (stops 2, 1); never together with the top line.
    # Win 6 coins = 3 x total bet on 4 of 12 -> RTP = 1, hit 1/3, Var = 9/3 - 1 = 2.
    # Per line [x line bet]: top 6/12 = 1/2, bottom 18/12 = 3/2.
    r = par(game(TOY_WINDOW))
    check(r, cycle=12, dist={0: 8, 3: 4}, rtp=F(1), hit=F(1, 3), var=F(2))
    assert r.per_line_rtp == [F(1, 2), F(3, 2)]


# ---------------------------------------------------------------------------
# 3. Non-linear pay table (max-coin bonus)
# ---------------------------------------------------------------------------
TOY_NONLINEAR = TOY_3REEL.replace("bet: {levels: [1, 2]}", "bet: {levels: [1, 2, 3]}").replace(
    "{symbol: A, count: 3, pay: 10}", "{symbol: A, count: 3, pay_by_level: [10, 20, 50]}"
)


@pytest.mark.parametrize(
    "level, rtp, dist",
    [
        # Hits as in toy 1 (3xA 2, 3xB 2, 2xA 6 of 48); coin wins per level:
        #   level 1: 10, 5, 1  -> (20 + 10 + 6)/(48*1)  = 36/48  = 3/4
        #   level 2: 20, 10, 2 -> (40 + 20 + 12)/(48*2) = 72/96  = 3/4
        #   level 3: 50, 15, 3 -> (100 + 30 + 18)/(48*3) = 148/144 = 37/36  (the bonus)
        (1, F(3, 4), {0: 38, 1: 6, 5: 2, 10: 2}),
        (2, F(3, 4), {0: 38, 1: 6, 5: 2, 10: 2}),
        (3, F(37, 36), {0: 38, 1: 6, 5: 2, F(50, 3): 2}),
    ],
)
def test_non_linear_pay_table(game, level, rtp, dist):
    r = par(game(TOY_NONLINEAR), level)
    # Var at level 3: E[X^2] = (2*(50/3)^2 + 2*25 + 6)/48 = (5000/9 + 56)/48 = 5504/432
    var = sum(F(c, 48) * x * x for x, c in dist.items()) - rtp**2
    if level == 3:
        assert var == F(5504, 432) - F(37, 36) ** 2
    check(r, cycle=48, dist=dist, rtp=rtp, hit=F(10, 48), var=var)
    assert r.bet.total_bet == level


# ---------------------------------------------------------------------------
# 4. Multiplier wild: the wild run against the substituted win, after multipliers
# ---------------------------------------------------------------------------
TOY_WILD = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols:
  - {name: W, kind: wild, multiplier: {per_wild: 2}}
  - {name: A}
  - {name: X, kind: blank}
reels:
  base: [[W, A, X], [W, A, X], [W, A, X]]
pays:
  - {symbol: W, count: 3, pay: 100}
  - {symbol: W, count: 2, pay: 30}
  - {symbol: A, count: 3, pay: 10}
  - {symbol: A, count: 2, pay: 2}
"""


def test_multiplier_wild_against_wild_run(game):
    # C = 27.  Candidates per line: 3xW 100 and 2xW 30 (own pays, not multiplied),
    # 3xA 10 and 2xA 2 times 2 per wild on the matched positions; the highest pays.
    #   A A A 10 | A A W 20 | A W A 20 | W A A 20           (3xA x1, x2)
    #   A W W 40 | W A W 40 | W W A max(30, 10*4) = 40       (3xA x4: beats 2xW after x4)
    #   W W W max(100, 10*8) = 100                           (the wild run wins)
    #   A A X 2  | A W X 4  | W A X 4                        (2xA x1, x2)
    #   W W X max(30, 2*4) = 30                              (2xW)
    #   the other 15 tuples (a blank in reel 1 or 2) pay 0.
    # Sum 330 -> RTP 330/27 = 110/9; hits 12/27 = 4/9.
    # E[X^2] = (100 + 3*400 + 3*1600 + 10000 + 4 + 2*16 + 900)/27 = 17036/27;
    # Var = 17036/27 - (110/9)^2 = 39008/81.
    r = par(game(TOY_WILD))
    check(
        r,
        cycle=27,
        dist={0: 15, 2: 1, 4: 2, 10: 1, 20: 3, 30: 1, 40: 3, 100: 1},
        rtp=F(110, 9),
        hit=F(4, 9),
        var=F(39008, 81),
    )
    assert line_hits(r) == {
        ("3 x W", 1): 1,
        ("2 x W", 1): 1,
        ("3 x A", 1): 1,
        ("3 x A", 2): 3,
        ("3 x A", 4): 3,
        ("2 x A", 1): 1,
        ("2 x A", 2): 2,
    }


def test_multiplier_wild_multiplies_own_pays(game):
    # As above with multiply_own_pays: 2xW pays 30*4 = 120 and 3xW 100*8 = 800.
    #   W W A max(120, 40) = 120, W W X max(120, 8) = 120, W W W 800; the rest unchanged.
    # Sum 330 - 40 - 30 - 100 + 120 + 120 + 800 = 1200 -> RTP 1200/27 = 400/9.
    text = TOY_WILD.replace(
        "multiplier: {per_wild: 2}}", "multiplier: {per_wild: 2}, multiply_own_pays: true}"
    )
    r = par(game(text))
    dist = {0: 15, 2: 1, 4: 2, 10: 1, 20: 3, 40: 2, 120: 2, 800: 1}
    var = sum(F(c, 27) * x * x for x, c in dist.items()) - F(400, 9) ** 2
    check(r, cycle=27, dist=dist, rtp=F(400, 9), hit=F(4, 9), var=var)
    assert line_hits(r)[("3 x W", 8)] == 1 and line_hits(r)[("2 x W", 4)] == 2


def test_multiplier_wild_by_count_and_ties(game):
    # by_count [1, 3, 5, 10]: 1 wild x3, 2 wilds x5, 3 wilds x10.
    #   A A W, A W A, W A A: 10*3 = 30     A W W, W A W: 10*5 = 50
    #   W W A: max(30, 50) = 50            W W W: max(100, 10*10 = 100) = 100, a tie:
    #                                       the entry listed first (3 x W) takes the hit
    #   A W X, W A X: 2*3 = 6              W W X: max(30, 2*5) = 30;  A A A 10, A A X 2
    # Sum 10 + 90 + 150 + 100 + 12 + 30 + 2 = 394 -> RTP 394/27, hits 12/27.
    text = TOY_WILD.replace("{per_wild: 2}", "{by_count: [1, 3, 5, 10]}")
    r = par(game(text))
    dist = {0: 15, 2: 1, 6: 2, 10: 1, 30: 4, 50: 3, 100: 1}
    var = sum(F(c, 27) * x * x for x, c in dist.items()) - F(394, 27) ** 2
    check(r, cycle=27, dist=dist, rtp=F(394, 27), hit=F(4, 9), var=var)
    hits = line_hits(r)
    assert hits[("3 x W", 1)] == 1 and ("3 x A", 10) not in hits
    assert hits[("3 x A", 3)] == 3 and hits[("3 x A", 5)] == 3 and hits[("2 x W", 1)] == 1


def test_two_wild_kinds_multiply_together(game):
    # W2 (x2 per wild) and W3 (x3 per wild), both substitute for A only; one line, 3 reels.
    # Reel 1 [W2, A], reel 2 [W3, A], reel 3 [A]: C = 4, pay 3xA = 1.
    #   A A A 1 | W2 A A 2 | A W3 A 3 | W2 W3 A 2*3 = 6  -> sum 12, RTP 3, hits 4/4
    text = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols:
  - {name: W2, kind: wild, substitutes: [A], multiplier: {per_wild: 2}}
  - {name: W3, kind: wild, substitutes: [A], multiplier: {per_wild: 3}}
  - {name: A}
reels:
  base: [[W2, A], [W3, A], [A]]
pays:
  - {symbol: A, count: 3, pay: 1}
"""
    r = par(game(text))
    check(r, cycle=4, dist={1: 1, 2: 1, 3: 1, 6: 1}, rtp=F(3), hit=F(1), var=F(50, 4) - 9)


# ---------------------------------------------------------------------------
# 5. Cherries anywhere on the line (wilds do not count as cherries)
# ---------------------------------------------------------------------------
TOY_CHERRIES = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols:
  - {name: C}
  - {name: A}
  - {name: W, kind: wild}
  - {name: X, kind: blank}
reels:
  base:
    - [C, A, X, X]
    - [C, A, W]
    - [C, C, A, X]
pays:
  - {anywhere: C, exactly: 3, pay: 10}
  - {anywhere: C, exactly: 2, pay: 5}
  - {anywhere: C, exactly: 1, pay: 2}
  - {symbol: A, count: 3, pay: 20}
"""


def test_cherries_anywhere(game):
    # Cherries per reel (of 4, 3, 4 stops): 1, 1, 2; not-cherry 3, 2, 2.  C = 48.
    #   exactly 3: 1*1*2                         =  2 hits, win 10
    #   exactly 2: CC- 1*1*2 + C-C 1*2*2 + -CC 3*1*2 = 2 + 4 + 6 = 12 hits, win 5
    #   exactly 1: C-- 1*2*2 + -C- 3*1*2 + --C 3*2*2 = 4 + 6 + 12 = 22 hits, win 2
    # The wild on reel 2 is "not a cherry" (anywhere pays count the symbol itself only)
    # but completes A W A:  3 x A = A * {A, W} * A = 1*2*1 = 2 hits, win 20.
    # Sum 20 + 60 + 44 + 40 = 164 -> RTP 164/48 = 41/12; hits 38/48 = 19/24.
    # E[X^2] = (200 + 300 + 88 + 800)/48 = 1388/48 = 347/12; Var = 347/12 - (41/12)^2 = 2483/144.
    r = par(game(TOY_CHERRIES))
    check(
        r, cycle=48, dist={0: 10, 2: 22, 5: 12, 10: 2, 20: 2}, rtp=F(41, 12), hit=F(19, 24), var=F(2483, 144)
    )
    assert line_hits(r) == {
        ("3 C anywhere", 1): 2,
        ("2 C anywhere", 1): 12,
        ("1 C anywhere", 1): 22,
        ("3 x A", 1): 2,
    }


# ---------------------------------------------------------------------------
# 6. Group pays ("any bar"), exact ordered mixes and group patterns
# ---------------------------------------------------------------------------
TOY_BARS = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols: [{name: B1}, {name: B2}, {name: B3}, {name: X, kind: blank}]
groups:
  ANYBAR: [B1, B2, B3]
reels:
  base: [[B1, B2, B3, X], [B1, B2, B3, X], [B1, B2, B3, X]]
pays:
  - {symbol: B3, count: 3, pay: 40}
  - {pattern: [B3, B2, B1], pay: 30, name: "B3 B2 B1"}
  - {symbol: B2, count: 3, pay: 20}
  - {symbol: B1, count: 3, pay: 10}
  - {symbol: ANYBAR, count: 3, pay: 5, name: "any 3 bars"}
  - {pattern: [ANYBAR, ANYBAR], pay: 1, name: "any 2 bars"}
"""


def test_group_and_mixed_pays(game):
    # C = 4^3 = 64.  27 all-bar tuples: B3B3B3 40, B2B2B2 20, B1B1B1 10, the ordered
    # mix B3 B2 B1 30, and the other 23 mixes "any 3 bars" 5.
    # bar, bar, blank: 3 * 3 * 1 = 9 hits of "any 2 bars" 1.
    # Sum 40 + 20 + 10 + 30 + 115 + 9 = 224 -> RTP 224/64 = 7/2; hits 36/64 = 9/16.
    # E[X^2] = (1600 + 400 + 100 + 900 + 23*25 + 9)/64 = 3584/64 = 56; Var = 56 - 49/4 = 175/4.
    r = par(game(TOY_BARS))
    check(
        r,
        cycle=64,
        dist={0: 28, 1: 9, 5: 23, 10: 1, 20: 1, 30: 1, 40: 1},
        rtp=F(7, 2),
        hit=F(9, 16),
        var=F(175, 4),
    )
    assert line_hits(r) == {
        ("3 x B3", 1): 1,
        ("B3 B2 B1", 1): 1,
        ("3 x B2", 1): 1,
        ("3 x B1", 1): 1,
        ("any 3 bars", 1): 23,
        ("any 2 bars", 1): 9,
    }


def test_positional_pattern_with_wild(game):
    # "any red, any white, any blue": reds {R7, B3}, whites {W7, B2}, blues {B7, B1}; a wild
    # that substitutes for B2 only fills the white position (it covers a member of the set).
    # Reels: [R7, B3, X] [W7, WB, X] [B7, X]  ->  C = 3 * 3 * 2 = 18.
    #   red {R7, B3}: 2 stops; white {W7, WB}: 2 stops; blue {B7}: 1 stop -> 2*2*1 = 4 hits.
    #   With WB x2 per wild: red-WB-B7 pays 20 * 2 = 40 (2 hits), red-W7-B7 pays 20 (2 hits).
    # Sum 40 + 80 = 120 -> RTP 120/18 = 20/3; hits 4/18 = 2/9.
    # E[X^2] = (2*400 + 2*1600)/18 = 4000/18 = 2000/9; Var = 2000/9 - 400/9 = 1600/9.
    text = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols:
  - {name: R7}
  - {name: W7}
  - {name: B7}
  - {name: B3}
  - {name: B2}
  - {name: B1}
  - {name: WB, kind: wild, substitutes: [B2], multiplier: {per_wild: 2}}
  - {name: X, kind: blank}
groups: {RED: [R7, B3], WHITE: [W7, B2], BLUE: [B7, B1]}
reels:
  base: [[R7, B3, X], [W7, WB, X], [B7, X]]
pays:
  - {pattern: [RED, WHITE, BLUE], pay: 20, name: "any red, any white, any blue"}
"""
    r = par(game(text))
    check(r, cycle=18, dist={0: 14, 20: 2, 40: 2}, rtp=F(20, 3), hit=F(2, 9), var=F(1600, 9))
    assert line_hits(r) == {("any red, any white, any blue", 1): 2, ("any red, any white, any blue", 2): 2}


# ---------------------------------------------------------------------------
# 7. Correlated lines on a 3x3 grid with stacked symbols
# ---------------------------------------------------------------------------
TOY_STACKED = """
grid: {reels: 3, rows: 3}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}]
reels:
  base: [[A, A, A, X, X, X], [A, A, A, X, X, X], [A, A, A, X, X, X]]
paylines: [[0, 0, 0], [1, 1, 1], [2, 2, 2]]
pays:
  - {symbol: A, count: 3, pay: 10}
"""


def test_correlated_lines(game):
    # Windows of one reel (rows 0-2) by stop: AAA, AAX, AXX, XXX, XXA, XAA, so the set of rows
    # holding A is {012}, {01}, {0}, {}, {2}, {12}.  Per row P(A) = 3/6 = 1/2.
    # A line pays 10 when its row holds A on all three reels: N = number of such rows,
    # total win 10 N coins, total bet 3, X = 10 N / 3.  C = 6^3 = 216.
    #   P(row r on a reel) = 1/2          -> P(line r wins) = 1/8, E[N] = 3/8, RTP = 10/3 * 3/8 = 5/4
    #   P(rows 0,1 both) = P(rows 1,2) = 2/6, P(rows 0,2) = 1/6, P(all three) = 1/6 (per reel)
    #   -> over three reels: 1/27, 1/27, 1/216 and 1/216.
    #   P(N >= 1) = 3/8 - (8 + 8 + 1)/216 + 1/216 = (81 - 17 + 1)/216 = 65/216
    #   P(N = 3) = 1/216; P(N = 2) = 17/216 - 3/216 = 14/216; P(N = 1) = 65 - 14 - 1 = 50/216.
    #   E[N^2] = (50 + 4*14 + 9)/216 = 115/216; Var X = 100/9 * 115/216 - 25/16 = 16925/3888.
    # Per-line variances sum to 3 * 100/9 * (1/8)(7/8) = 175/48 = 14175/3888 < 16925/3888:
    # the stacks correlate the lines, so the sum of per-line variances understates the spread.
    r = par(game(TOY_STACKED))
    check(
        r,
        cycle=216,
        dist={0: 151, F(10, 3): 50, F(20, 3): 14, 10: 1},
        rtp=F(5, 4),
        hit=F(65, 216),
        var=F(16925, 3888),
    )
    per_line_var = 3 * F(100, 9) * F(1, 8) * F(7, 8)
    assert per_line_var == F(14175, 3888) != r.distribution.variance
    assert r.per_line_rtp == [F(5, 4)] * 3
    # every line wins 27 of 216 times: hits over all lines 3 * 27 = 81
    assert line_hits(r) == {("3 x A", 1): 81}


# ---------------------------------------------------------------------------
# 8. Scatter pays in units of the total bet, with fractional coin wins
# ---------------------------------------------------------------------------
TOY_SCATTER = """
grid: {reels: 3, rows: 2}
bet: {levels: [1, 3]}
symbols: [{name: S, kind: scatter}, {name: X, kind: blank}]
reels:
  base: [[S, X, X], [S, X, X], [S, X, X]]
pays: []
scatters:
  - {symbol: S, count: 2, pay: "1/2"}
  - {symbol: S, count: 3, pay: 5}
"""


@pytest.mark.parametrize("level", [1, 3])
def test_scatter_pays(game, level):
    # Two-row windows by stop: S/X, X/X, X/S -> a reel shows one S with probability 2/3.
    # K = scatters in the window ~ Binomial(3, 2/3): C = 27, counts 1, 6, 12, 8 for K = 0..3.
    # Pays [x total bet]: K = 2 -> 1/2, K = 3 -> 5 (at level 3 that is 3/2 and 15 coins).
    # RTP = 12/27 * 1/2 + 8/27 * 5 = 46/27; hits 20/27.
    # E[X^2] = 12/27 * 1/4 + 8/27 * 25 = 203/27; Var = 203/27 - (46/27)^2 = 3365/729.
    r = par(game(TOY_SCATTER), level)
    check(r, cycle=27, dist={0: 7, F(1, 2): 12, 5: 8}, rtp=F(46, 27), hit=F(20, 27), var=F(3365, 729))
    # "2 x S" is exactly two (3 has its own pay); the top listed count reads "3+"
    assert scatter_hits(r) == {"2 x S": 12, "3+ x S": 8}
    assert r.components["scatters"] == F(46, 27) and r.components["lines"] == 0


# ---------------------------------------------------------------------------
# 9. The documented example (docs/game-format.md) and its worked lines
# ---------------------------------------------------------------------------
EXAMPLE = ROOT / "tests" / "data" / "format_example"


def fenced_blocks(text: str, lang: str) -> list:
    """Contents of the ```lang fenced blocks of a Markdown text."""
    parts = text.split(f"```{lang}\n")[1:]
    return [p.split("```", 1)[0] for p in parts]


def test_documented_example_is_the_test_game():
    doc = (ROOT / "docs" / "game-format.md").read_text(encoding="utf-8")
    assert fenced_blocks(doc, "yaml")[0] == (EXAMPLE / "game.yaml").read_text(encoding="utf-8")
    assert fenced_blocks(doc, "csv")[0] == (EXAMPLE / "free_reels.csv").read_text(encoding="utf-8")
    game = load_game(EXAMPLE)
    assert [len(s) for s in game.strips("free")] == [7, 8, 7, 8, 7]
    assert game.strips("free")[0].weights == (1, 3, 4, 6, 2, 1, 3)
    assert f"base cycle {game.cycle():,}" in doc


# (line, level, coin win, winning entry, multiplier), worked in docs/game-format.md 11.6:
#   WILD x2 per wild, substitutes for all but BELL; STAR x3 (1) / x5 (2+) for R7 and B7 only,
#   own pays multiplied.  Pays per coin: 5/3/2 x WILD 5000/100/5, 2 x STAR 2,
#   3 x R7 6/12/40 coins at levels 1/2/5, 4 x R7 20, 5 x R7 60, any 3 sevens 3, R7 B7 R7 8,
#   red BAR red 4, 3 x BAR 5, 2 x BELL 1, exactly 2 cherries anywhere 4.
DOC_LINES = [
    ("R7 R7 R7 BAR BLANK", 1, 6, "3 x R7", 1),  # 6 > any 3 sevens 3
    ("R7 WILD R7 BLANK BAR", 1, 16, "R7 B7 R7", 2),  # 8*2 > 3xR7 6*2, red BAR red 4*2
    ("WILD WILD WILD BELL BAR", 1, 100, "3 x WILD", 1),  # own 100 > R7 B7 R7 8*8 = 64
    ("WILD WILD R7 BELL BAR", 1, 32, "R7 B7 R7", 4),  # 8*4 > 2 x WILD 5, 3xR7 6*4
    ("WILD WILD WILD WILD WILD", 1, 5000, "5 x WILD", 1),  # 5000 > 5 x R7 60*32 = 1920
    ("STAR STAR B7 BAR BELL", 1, 15, "any 3 sevens", 5),  # 3*5 > 2 x STAR 2*5 (own, x5)
    ("STAR STAR BELL BAR BELL", 1, 10, "2 x STAR", 5),
    ("WILD STAR R7 BLANK BLANK", 1, 48, "R7 B7 R7", 6),  # x2 * x3; > 3xR7 36, 2xSTAR 12
    ("CHERRY BAR CHERRY BLANK BELL", 1, 4, "red BAR red", 1),  # tie with 2 cherries: first listed
    ("CHERRY BLANK BELL CHERRY BLANK", 1, 4, "2 CHERRY anywhere", 1),
    ("CHERRY CHERRY CHERRY BAR BLANK", 1, 0, None, 1),  # three is not "exactly 2"
    ("BELL WILD BELL BAR BAR", 1, 0, None, 1),  # WILD does not stand in for BELL
    ("BELL BELL WILD WILD WILD", 1, 1, "2 x BELL", 1),
    ("R7 WILD R7 BLANK BAR", 5, 80, "3 x R7", 2),  # 40*2 ties 8*5*2: first listed
    ("WILD STAR R7 BLANK BLANK", 5, 240, "3 x R7", 6),  # 40*6 ties 8*5*6
]


@pytest.mark.parametrize("line, level, win, entry, mult", DOC_LINES)
def test_documented_line_examples(line, level, win, entry, mult):
    import numpy as np

    from slotmath.engine.evaluate import line_wins
    from slotmath.engine.lines import compile_pays, line_pay

    game = load_game(EXAMPLE)
    x = np.array([game.symbol_index[s] for s in line.split()])
    cp = compile_pays(game, level)
    got_win, got_entry, got_mult = line_pay(x, cp.arrays)
    assert got_win == win
    assert (cp.names[got_entry] if got_entry >= 0 else None) == entry
    assert got_mult == mult
    # the reference evaluator on a window showing the line on every row
    window = np.repeat(x[None, :, None], game.rows, axis=2)
    assert (line_wins(game, level, window) == win).all()
