"""Free games that vary by trigger: a multiplier per trigger count
(``awards.<count>.multiplier``) and a reel condition on the trigger
(``trigger: {reels: [...]}``): exact RTP worked by hand, against brute force
over base x free stops, and the compiled round sampler's z-scores."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse

# 4 reels x 1 row, one line, total bet 1 coin; every reel [A, A, S, X, X]
# (cycle 5^4 = 625).  A x3 pays 2, A x4 pays 10; 3 S give 2 games at x2,
# 4 S give 2 games at x3; a retrigger adds 2 games at the running multiplier.
BY_COUNT = """
grid: {reels: 4, rows: 1}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: S, kind: scatter}]
reels:
  base: [[A, A, S, X, X], [A, A, S, X, X], [A, A, S, X, X], [A, A, S, X, X]]
paylines: [[0, 0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 2}, {symbol: A, count: 4, pay: 10}]
options:
  free_games:
    symbol: S
    reels: base
    awards: {3: {games: 2, multiplier: 2}, 4: {games: 2, multiplier: 3}}EXTRA
"""

# 3 reels x 2 rows, one line on the top row; reels 1 and 2 [S, S, A, A]
# (windows SS, SA, AA, AS: 2, 1, 0, 1 scatters), reel 3 [A, A, A, S]
# (windows AA, AA, AS, SA: 0, 0, 1, 1).  The feature needs an S on each of
# reels 1, 2 and 3; its award is read by the total count.
ON_REELS = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: S, kind: scatter}]
reels:
  base: [[S, S, A, A], [S, S, A, A], [A, A, A, S]]
paylines: [[0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 5}]
options:
  free_games:
    symbol: S
    reels: base
    trigger: {reels: [1, 2, 3]}
    awards: {3: {games: 1}, 4: {games: 2, multiplier: 2}}EXTRA
"""


def game(write_game, text, extra=""):
    return load_game(write_game(text.replace("EXTRA", extra)))


def test_multiplier_by_count_worked_by_hand(write_game):
    # A spin (base or free, one reel set): P(A) = 2/5 per reel, P(S) = 1/5.
    #   E[Y] = P(A A A not-A) x 2 + P(A A A A) x 10 = (8/125)(3/5)(2) + (16/625)(10) = 208/625.
    # Scatter count ~ Binomial(4, 1/5): P(3) = 4 (1/5)^3 (4/5) = 16/625, P(4) = 1/625.
    # Retriggers add 2 games on 3 or 4 S: E[K] = 2 x 17/625 = 34/625, so from n games
    #   E[games played] = n / (1 - E[K]) = 2 x 625/591 and E[sum Y] = 2 x 208/591 = 416/591.
    # The retriggered games play at the running feature's multiplier m_c:
    #   free games = P(3) x 2 x 416/591 + P(4) x 3 x 416/591 = (32 + 3)/625 x 416/591 = 2912/73875.
    e_y, p3, p4 = F(208, 625), F(16, 625), F(1, 625)
    ek = 2 * (p3 + p4)
    per_game = e_y / (1 - ek)
    expect = p3 * 2 * 2 * per_game + p4 * 3 * 2 * per_game
    assert expect == F(2912, 73875)
    result = analyse(game(write_game, BY_COUNT), 1)
    assert result.components["lines"] == e_y
    assert result.components["free_games"] == expect
    assert result.rtp == e_y + expect == F(137488, 369375)  # 37.2218 %
    fg = result.features["free_games"]
    assert fg["by_count"]["3"]["multiplier"] == 2 and fg["by_count"]["4"]["multiplier"] == 3
    assert fg["multiplier"] == pytest.approx(float((p3 * 2 + p4 * 3) / (p3 + p4)))  # its mean given a trigger
    assert fg["by_count"]["4"]["mean_award"] == pytest.approx(float(3 * 2 * per_game))


def _line(row, pays):
    """Line win [coins] of a window row (A from the left; ``pays[n]`` for n A)."""
    n = 0
    while n < len(row) and row[n] == "A":
        n += 1
    return pays.get(n, 0)


def test_multiplier_by_count_brute_force(write_game):
    # Without retriggers, the round over every base stop x every pair of free
    # stops (625 x 625^2): distribution and RTP against the exact round.
    g = game(write_game, BY_COUNT, "\n    retrigger: false")
    strip = ["A", "A", "S", "X", "X"]
    pays = {3: 2, 4: 10}
    spins = [(_line(w, pays), w.count("S")) for w in product(strip, repeat=4)]
    free = np.array([y for y, _ in spins])
    pair = np.bincount((free[:, None] + free[None, :]).ravel())  # sum Y of 2 games, by stops
    law: dict = {}
    for y, c in spins:
        if c < 3:
            law[F(y)] = law.get(F(y), 0) + F(1, 625)
            continue
        m = 2 if c == 3 else 3
        for s, n in enumerate(pair.tolist()):
            if n:
                law[F(y + m * s)] = law.get(F(y + m * s), 0) + F(n, 625**3)
    rtp = sum((x * p for x, p in law.items()), F(0))
    result = analyse(g, 1)
    # hand: E[Y] = 208/625; free games (16/625 x 2 + 1/625 x 3) x 2 x 208/625
    assert result.rtp == rtp == F(208, 625) + F(35, 625) * 2 * F(208, 625)
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(got) == {float(x) for x in law}
    for x, p in law.items():
        assert got[float(x)] == pytest.approx(float(p), abs=1e-15)


def _reel_counts(strip, rows=2):
    """Scatters in the window of each stop of a reel."""
    n = len(strip)
    return [sum(strip[(s + r) % n] == "S" for r in range(rows)) for s in range(n)]


def test_reel_condition_worked_by_hand(write_game):
    # Reels 1, 2 show 0/1/2 S with probability 1/4, 1/2, 1/4; reel 3 shows 0/1 S with 1/2, 1/2.
    # An S on each reel: P = (3/4)(3/4)(1/2) = 9/32.  "3 anywhere" would be
    #   P(reel 3 shows 1) P(r1 + r2 >= 2) + P(reel 3 shows 0) P(r1 + r2 >= 3)
    #   = (1/2)(1 - 1/16 - 1/8 - 1/8) + (1/2)(1/8 + 1/8 + 1/16) = 11/32 + 5/32 = 1/2,
    # and 2 + 1 + 0 (probability (1/4)(1/2)(1/2) = 1/16, and 1 + 2 + 0 as much) is one of those.
    # Given the condition the total is 3 (r1 = r2 = 1: 1/8), 4 (one of them 2: 1/8) or 5 (1/32);
    # 3 gives 1 game x1, 4 and 5 give 2 games x2 (the highest listed count not above).
    # Lines: P(A A A on the top row) = (1/2)(1/2)(3/4) = 3/16, E[Y] = 15/16 (no retrigger):
    #   free games = 15/16 x (1/8 x 1 + (1/8 + 1/32) x 2 x 2) = 15/16 x 3/4 = 45/64.
    g = game(write_game, ON_REELS, "\n    retrigger: false")
    result = analyse(g, 1)
    fg = result.features["free_games"]
    assert fg["trigger_probability"] == 9 / 32
    assert result.components["free_games"] == F(45, 64)
    assert result.rtp == F(15, 16) + F(45, 64)
    # brute force over the 4^3 base stops: the condition, not the count, triggers
    strips = [["S", "S", "A", "A"], ["S", "S", "A", "A"], ["A", "A", "A", "S"]]
    counts = [_reel_counts(s) for s in strips]
    on_each = anywhere = split = F(0)
    for stops in product(range(4), repeat=3):
        c = [counts[r][s] for r, s in enumerate(stops)]
        on_each += F(all(c), 64)
        anywhere += F(sum(c) >= 3, 64)
        split += F(sum(c) >= 3 and not all(c), 64)
    assert on_each == F(9, 32) and anywhere == F(1, 2) and split == F(7, 32)
    plain = analyse(
        game(write_game, ON_REELS.replace("    trigger: {reels: [1, 2, 3]}\n", ""), "\n    retrigger: false"),
        1,
    )
    assert plain.features["free_games"]["trigger_probability"] == float(anywhere)


def test_reel_condition_brute_force_with_retriggers(write_game):
    # With retriggers (same condition in the free games), E[sum Y] from n games is
    # n E[Y] / (1 - E[K]), E[K] = 1/8 x 1 + 5/32 x 2 = 7/16 (a trigger adds games at the
    # running multiplier); brute force of E[Y] and E[K] over the 4^3 free stops.
    strips = [["S", "S", "A", "A"], ["S", "S", "A", "A"], ["A", "A", "A", "S"]]
    counts = [_reel_counts(s) for s in strips]
    e_y = e_k = F(0)
    award = {3: (1, 1), 4: (2, 2), 5: (2, 2)}  # total count -> (games, multiplier)
    fg = F(0)
    for stops in product(range(4), repeat=3):
        top = [strips[r][s] for r, s in enumerate(stops)]
        c = [counts[r][s] for r, s in enumerate(stops)]
        e_y += F(5 * (top == ["A", "A", "A"]), 64)
        if all(c):
            e_k += F(award[sum(c)][0], 64)
    for stops in product(range(4), repeat=3):
        c = [counts[r][s] for r, s in enumerate(stops)]
        if all(c):
            games, mult = award[sum(c)]
            fg += F(1, 64) * mult * games * e_y / (1 - e_k)
    assert e_k == F(7, 16)
    result = analyse(game(write_game, ON_REELS), 1)
    assert result.components["free_games"] == fg == F(15, 16) * F(3, 4) * F(16, 9)


WAYS = ON_REELS.replace("paylines: [[0, 0, 0]]\n", "pays_by: ways\n").replace(
    "{3: {games: 1}, 4:", "{3: {games: 1, multiplier: 3}, 4:"
)


@pytest.mark.parametrize("text", [BY_COUNT, ON_REELS, WAYS], ids=["by_count", "on_reels", "ways"])
def test_sampler_agrees(write_game, text):
    # the compiled round sampler plays the per-count multiplier and the reel condition
    g = game(write_game, text)
    exact = analyse(g, 1)
    n = 400_000
    comp = round_components(g, 1, n, 17)
    paid = comp[:, COMPONENTS.index("lines")]  # lines or ways
    free = comp[:, COMPONENTS.index("free_games")]
    e_paid = exact.components.get("lines", exact.components.get("ways"))
    for sample, e in ((paid, e_paid), (free, exact.components["free_games"]), (comp.sum(axis=1), exact.rtp)):
        z = (sample.mean() - float(e)) / (sample.std() / n**0.5)
        assert abs(z) < 4, (z, float(e))


def test_scalar_form_unchanged(write_game):
    # the same multiplier on every count, per count or once, is one feature
    once = analyse(game(write_game, BY_COUNT.replace("multiplier: 3", "multiplier: 2")), 1)
    text = BY_COUNT.replace(", multiplier: 2}", "}").replace(", multiplier: 3}", "}")
    scalar = analyse(game(write_game, text, "\n    multiplier: 2"), 1)
    assert once.rtp == scalar.rtp
    assert "multiplier" not in scalar.features["free_games"]["by_count"]["3"]


def test_sheet_states_the_rules(write_game):
    # the PAR sheet's free-games tables say the per-count multiplier and the reel condition
    from slotmath.features.freeround import free_games_rules, free_games_tables

    g = game(write_game, ON_REELS)
    rules = free_games_rules(g)
    assert (
        rules[1]
        == "4 or more S on the base window with one on each of reels 1, 2 and 3 award 2 free games at x2."
    )
    assert "at the running feature's multiplier under the same reel condition" in rules[3]
    table = free_games_tables(g, analyse(g, 1).features["free_games"], 1.0)["Free games by trigger count"]
    assert table["multiplier"].tolist() == [1.0, 2.0, 2.0]
    assert table["trigger count"].tolist() == [3, 4, 5]
