"""The spin law of a ways game whose drawn wild multipliers do not fit as
stops, without the rewrite (:mod:`slotmath.features.drawnwayslaw`): point by
point against plain-Python brute forces listing every stop vector and
every draw of every drawn wild cell (added and multiplied, with ``by_count``
and ``per_wild`` wilds beside the drawn one), its mean against the exact
ways RTP, the compiled sampler against it (|z| < 4), the worked example of
docs/features.md and the one-line refusals."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from math import prod

import numpy as np
import pytest
from test_drawn_law import z_of
from test_drawn_ways_sampler import TABLE, WEIGHTS
from test_wild_multipliers_ways import BASE, FREE_STRIPS, game_text, spin_law, win_law

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, drawn_too_large

TOL = 1e-12


def law_of(result) -> dict:
    """{win [x total bet, Fraction]: probability [float]} of a par result's distribution."""
    dist = result.distribution
    scale = dist.unit_den * dist.total_bet
    return {F(int(w), scale): float(p) for w, p in zip(dist.wins, dist.weights, strict=True)}


def assert_same_law(got: dict, want: dict) -> None:
    """Every win of ``want`` (exact Fractions) and no other, each probability within TOL relative."""
    assert set(got) == set(want)
    for x, p in want.items():
        assert abs(got[x] - float(p)) <= TOL * float(p), (x, got[x], float(p))


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_the_spin_law_is_the_brute_force(write_game, combine):
    # tests/test_wild_multipliers_ways.py's game (3 reels x 2 rows, W drawing
    # x2 / x3 on weights that do not fit as stops, the by_count wild V, 2+ S
    # paying 1 x total bet): `par`'s distribution, each of its 114 / 123 wins
    # and probabilities, against the enumeration of every stop vector (150)
    # and every draw of every W shown; its mean the exact RTP (within the
    # stated bound)
    from slotmath.features.drawnways import drawn_ways_figures
    from slotmath.features.drawnwayslaw import drawn_ways_law

    game = load_game(write_game(game_text(combine).replace("[[2, 3], [3, 1]]", WEIGHTS)))
    assert drawn_too_large(game)
    want = spin_law(BASE, combine, table=TABLE)
    result = analyse(game, 1)
    assert_same_law(law_of(result), win_law(want))
    exact = drawn_ways_figures(game, 1).rtp + sum(p for (_, n), p in want.items() if n >= 2)
    assert result.rtp == exact == sum(x * p for x, p in win_law(want).items())
    law = drawn_ways_law(game, 1, key="S")
    assert law.bound < 1e-14
    assert abs(float(result.distribution.mean) - float(exact)) <= 4 * law.bound * float(exact)
    # the law keyed by the S count, point by point
    got = {
        (F(int(w), law.unit * 10), int(k)): p
        for w, k, p in zip(law.wins, law.keys, law.probabilities, strict=True)
    }
    assert_same_law(got, want)
    notes = " ".join(result.notes)
    assert "not written as stops" in notes and "on each way" in notes


# 3 reels x 2 rows, 10 coins bet.  W is the drawn wild and substitutes for A
# only; K substitutes for A and B and multiplies each way through it by 2
# (per_wild); A pays 1 / 5 per way for 2 / 3, B 2 / 8.  3+ S pay 2 x total
# bet.  W draws x2, x3 or x5 (about 3/4, 1/4, 1/8 of 9/8: not fit as stops).
GAME2 = """
pays_by: ways
grid: {reels: 3, rows: 2}
bet: {levels: [1], lines: 10}
symbols:
  - {name: A}
  - {name: B}
  - {name: X, kind: blank}
  - {name: W, kind: wild, substitutes: [A]}
  - {name: K, kind: wild, substitutes: [A, B], multiplier: {per_wild: 2}}
  - {name: S, kind: scatter}
reels:
  base: [[A, W, B, K, W, S], [W, B, A, X, W, K], [A, W, S, B, K, X, W]]
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 5}
  - {symbol: B, count: 2, pay: 2}
  - {symbol: B, count: 3, pay: 8}
scatters: [{symbol: S, count: 3, pay: 2}]
options:
  wild_multipliers:
    {symbol: W, table: [[2, 3221225473], [3, 1073741824], [5, 536870912]], combine: COMBINE}
"""
STRIPS2 = [
    ["A", "W", "B", "K", "W", "S"],
    ["W", "B", "A", "X", "W", "K"],
    ["A", "W", "S", "B", "K", "X", "W"],
]
TABLE2 = {2: 3221225473, 3: 1073741824, 5: 536870912}
PAYS2 = {"A": {2: 1, 3: 5}, "B": {2: 2, 3: 8}}
SUBST2 = {"W": {"A"}, "K": {"A", "B"}}


def brute_law(strips, combine, table=TABLE2, rows=2, total_bet=10) -> dict:
    """{spin win [x total bet]: probability} of GAME2 listing every stop
    vector and every draw of every W cell: per symbol its longest run from
    reel 1, every way of it listed, paying pay x (product or sum of its W's
    draws, x1 without a W) x 2 per K on it; 3+ S pay 2 x total bet."""
    law: dict = {}
    cycle = prod(len(s) for s in strips)
    T = sum(table.values())
    for stops in product(*(range(len(s)) for s in strips)):
        window = [
            [s[(stop + k) % len(s)] for k in range(rows)] for s, stop in zip(strips, stops, strict=True)
        ]
        cells = [(r, k) for r in range(len(strips)) for k in range(rows) if window[r][k] == "W"]
        scatter = 2 if sum(col.count("S") for col in window) >= 3 else 0
        for draw in product(table, repeat=len(cells)):
            mult = dict(zip(cells, draw, strict=True))
            coins = 0
            for sym, pays in PAYS2.items():

                def matches(c, sym=sym):
                    return c == sym or sym in SUBST2.get(c, ())

                n = 0
                while n < len(window) and any(matches(c) for c in window[n]):
                    n += 1
                if n not in pays:
                    continue
                for way in product(range(rows), repeat=n):
                    on = [(r, way[r]) for r in range(n)]
                    if not all(matches(window[r][h]) for r, h in on):
                        continue
                    drawn = [mult[c] for c in on if c in mult]
                    g = (prod(drawn) if combine == "multiply" else sum(drawn)) if drawn else 1
                    coins += pays[n] * g * 2 ** sum(window[r][h] == "K" for r, h in on)
            p = F(1, cycle) * prod((F(table[m], T) for m in draw), start=F(1))
            x = F(coins, total_bet) + scatter
            law[x] = law.get(x, 0) + p
    return law


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_a_partial_substitute_and_a_fixed_multiplier_wild_are_the_brute_force(write_game, combine):
    # GAME2: W substitutes for A only (B's runs never draw), the per_wild K
    # doubles the ways through it, a three-value table; every one of the
    # 252 stop vectors and every draw (up to 5**3 for three W)
    from slotmath.features.drawnways import drawn_ways_figures

    game = load_game(write_game(GAME2.replace("COMBINE", combine)))
    assert drawn_too_large(game)
    want = brute_law(STRIPS2, combine)
    result = analyse(game, 1)
    assert_same_law(law_of(result), want)
    mean = sum(x * p for x, p in want.items())
    assert result.rtp == mean
    assert result.components["ways"] == drawn_ways_figures(game, 1).rtp


def test_the_sampler_draws_the_law(write_game):
    # a 5 x 3 game (243 ways) whose W draws x2 / x3 / x5 on weights that do not
    # fit as stops: the compiled ways sampler drawing in the window
    # (ways_kernel_drawn, 1,000,000 rounds) against the law without the
    # rewrite: the mean, P(no win) and P(win >= 1, 5, 20, 100 x total bet)
    # within |z| < 4, the law's mean the exact RTP
    from slotmath.features.wildmult import drawn_symbols
    from slotmath.montecarlo.wayssim import ways_sampler

    game = load_game(write_game(bigger_game("multiply")))
    assert drawn_too_large(game)
    result = analyse(game, 1)
    law = law_of(result)
    assert abs(sum(float(x) * p for x, p in law.items()) - float(result.rtp)) < 1e-12 * float(result.rtp)
    sampler = ways_sampler(drawn_symbols(game), 1)
    assert sampler.kernel.__name__ == "ways_kernel_drawn"
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(31)))
    x = sampler.kernel(rng, 1_000_000, *sampler.args)[0]
    assert abs(z_of(x, float(result.rtp))) < 4
    for edge in (0, 1, 5, 20, 100):
        p = sum(q for w, q in law.items() if (w == 0 if edge == 0 else w >= edge))
        hit = (x == 0) if edge == 0 else (x >= edge)
        assert 0 < p < 1 and abs(z_of(hit.astype(float), p)) < 4, (edge, hit.mean(), p)


STRIPS5 = [
    "A B W C D A Q B C W D A C B Q D",
    "B A C W D Q A C B D W A Q C D B",
    "C W A B D C Q A W B D C A B Q D",
    "A D B W C Q A B D C W A Q B C D",
    "D A C B W Q D A B C Q D W A B C",
]


def bigger_game(combine: str) -> str:
    """5 reels x 3 rows, 16 stops a reel, 25 coins bet: A-D pay 3/4/5 of a
    kind, W substitutes for all and draws x2 / x3 / x5, Q a scatter (3+ pay
    2 x total bet)."""
    reels = "[" + ", ".join("[" + ", ".join(s.split()) + "]" for s in STRIPS5) + "]"
    pays = "\n".join(
        f"  - {{symbol: {s}, count: {n}, pay: {p}}}"
        for s, row in {"A": (2, 5, 20), "B": (2, 6, 25), "C": (3, 8, 30), "D": (4, 10, 50)}.items()
        for n, p in zip((3, 4, 5), row, strict=True)
    )
    return f"""pays_by: ways
grid: {{reels: 5, rows: 3}}
bet: {{levels: [1], lines: 25}}
symbols:
  - {{name: A}}
  - {{name: B}}
  - {{name: C}}
  - {{name: D}}
  - {{name: W, kind: wild}}
  - {{name: Q, kind: scatter}}
reels:
  base: {reels}
pays:
{pays}
scatters: [{{symbol: Q, count: 3, pay: 2}}]
options:
  wild_multipliers:
    {{symbol: W, table: [[2, 3221225473], [3, 1073741824], [5, 536870912]], combine: {combine}}}
"""


HEADING = "### Worked example: the ways law without the rewrite"


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_worked_example_law(tmp_path, combine):
    # docs/features.md: the ways example drawn in the window (8 ways, 8
    # coins bet, only 3 x A pays 8 per way; W drawing x2 with probability
    # p = 3221225473/4294967297, x3 with q = 1073741824/4294967297).
    #  - P(no win) = 1/4: only reel 2's stop 2 (X X) shows neither A nor W;
    #    a draw never takes a way's multiplier to 0.
    #  - the largest win: stops (1, 0, 1) (probability 1/64), every W drawn
    #    x3.  Multiplied: 8 x (3 + 3)(1 + 3)(1 + 3) = 768 coins = 96 x total
    #    bet; added: each cell is on 4 ways, 8 x 4 x (3 + 3 + 3 + 3) = 384
    #    coins = 48 x total bet.  Its probability (1/64) q**4.
    #  - the mean is the exact RTP, 2431/256 (multiplied) or 251/32 (added)
    #    at the law x2 3/4, x3 1/4; here that of p and q.
    from conftest import docs_example

    game, section = docs_example(tmp_path, HEADING, combine=None if combine == "multiply" else combine)
    assert drawn_too_large(game)
    result = analyse(game, 1)
    law = law_of(result)
    assert abs(law[F(0)] - 0.25) <= TOL * 0.25
    q = F(1073741824, 4294967297)
    top = F(96) if combine == "multiply" else F(48)
    assert max(law) == top and abs(law[top] - float(q**4 / 64)) <= TOL * float(q**4 / 64)
    p = 1 - q
    mu = 2 * p + 3 * q
    # E[a_r], E[w_r] per reel (1/2, 1), (1/2, 1/2), (1, 1/2), as the section's RTP
    a, w = [F(1, 2), F(1, 2), F(1)], [F(1), F(1, 2), F(1, 2)]
    if combine == "multiply":
        rtp = prod((a[r] + mu * w[r] for r in range(3)), start=F(1))
    else:
        rtp = F(1, 4) + mu * sum(w[r] * prod(a[j] + w[j] for j in range(3) if j != r) for r in range(3))
    assert result.rtp == rtp
    assert abs(float(result.distribution.mean) - float(rtp)) <= TOL * float(rtp)
    words = " ".join(section.split())
    assert "`P(no win) = 1/4`" in words and "`8 x (3 + 3)(1 + 3)(1 + 3) = 768`" in words
    assert "`8 x 4 x (3 + 3 + 3 + 3) = 384`" in words


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_free_games_on_ways_play_the_law_without_the_rewrite(write_game, combine):
    # tests/test_wild_multipliers_ways.py's game with its free games (2+ S
    # award 3 games at x2, retriggered; the free reels show W and V too), W
    # drawing on weights that do not fit as stops.  The round's components
    # are the brute-force renewal formula's (exact); the free spin's float
    # table of (win + prize, extra games) is the enumeration of every free
    # stop vector and every draw, point by point (3 extra games for 2+ S, no
    # retrigger prize); the round's P(no win) is the base spin's (a trigger
    # needs 2 S, which pay), from the enumeration of every base window and draw
    from test_wild_multipliers_ways import renewal_components

    from slotmath.features.drawnwayslaw import drawn_free_spin_table
    from slotmath.features.options import load_features

    game = load_game(write_game(game_text(combine, free=True).replace("[[2, 3], [3, 1]]", WEIGHTS)))
    assert drawn_too_large(game)
    result = analyse(game, 1)
    want = renewal_components(combine, table=TABLE)
    assert result.components == want and result.rtp == sum(want.values(), F(0))
    _, table, unit = drawn_free_spin_table(game, 1, load_features(game).free_games)
    free = {}
    for (x, n_s), p in spin_law(FREE_STRIPS, combine, table=TABLE).items():
        at = (int(x * 10 * unit), 3 if n_s >= 2 else 0)
        free[at] = free.get(at, 0) + p
    got = {(int(w), int(e)): float(table[w, e]) for w, e in zip(*np.nonzero(table), strict=True)}
    assert_same_law(got, free)
    zero = win_law(spin_law(BASE, combine, table=TABLE))[F(0)]
    assert abs(law_of(result)[F(0)] - float(zero)) <= TOL * float(zero)
    assert abs(float(result.distribution.mean) - float(result.rtp)) < 1e-9 * float(result.rtp)


def test_sticky_free_games_on_ways_are_still_refused_in_one_line(write_game, capsys):
    # a sticky free-games wild beside the drawn wild on ways: `par` refuses
    # it in one line (the free games' own refusal, as on lines)
    from slotmath.cli import main

    text = game_text("multiply", free=True).replace("[[2, 3], [3, 1]]", WEIGHTS)
    text = text.replace("multiplier: 2, awards", "sticky: V, max_games: 30, multiplier: 2, awards")
    assert main(["par", str(write_game(text))]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "options.free_games: is not computed with drawn wild multipliers whose draws do not fit" in err


def test_a_law_above_its_cost_bound_is_refused_in_one_line(write_game, monkeypatch, capsys):
    # the terms (class combinations x draw values) estimated before the pass:
    # GAME2's 252 stop vectors' classes and draws above a bound of 100
    from slotmath.cli import main
    from slotmath.features import drawnwayslaw

    path = write_game(GAME2.replace("COMBINE", "add"))
    cost = drawnwayslaw.drawn_ways_cost(load_game(path))
    assert cost > 252  # classes with W take one term per value of their sum
    monkeypatch.setattr(drawnwayslaw, "MAX_WAYS_TERMS", 100)
    assert main(["par", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"the ways law of reel set 'base' would list {cost:.3g} terms" in err


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_free_games_on_ways_whose_base_reels_show_no_drawn_wild(write_game, combine):
    # the game above with W taken off the base reels (each W cell a blank X)
    # and no retrigger: the round is the base spin, plus (2+ S) the sum of 3
    # free spins at x2, each listed with every free stop vector and every
    # draw.  `par`'s distribution is that round's, win by win (the award law
    # on an FFT grid: 1e-12 absolute), its mean the exact RTP
    base = [["X" if c == "W" else c for c in strip] for strip in BASE]
    listed = "[" + ", ".join("[" + ", ".join(s) + "]" for s in base) + "]"
    text = game_text(combine, free=True).replace("[[2, 3], [3, 1]]", WEIGHTS)
    text = text.replace("base: [[A, W, B, S, V], [B, W, W, A, X], [A, B, W, S, X, V]]", f"base: {listed}")
    text = text.replace("awards: {2: {games: 3}}}", "awards: {2: {games: 3}}, retrigger: false}")
    game = load_game(write_game(text))
    assert drawn_too_large(game)
    free: dict = {}
    for (x, _), p in spin_law(FREE_STRIPS, combine, table=TABLE).items():
        free[2 * x] = free.get(2 * x, 0) + p
    award = {F(0): F(1)}
    for _ in range(3):
        step: dict = {}
        for a, p in award.items():
            for x, q in free.items():
                step[a + x] = step.get(a + x, 0) + p * q
        award = step
    want: dict = {}
    for (x, n_s), p in spin_law(base, combine, table=TABLE).items():
        for a, q in award.items() if n_s >= 2 else [(F(0), F(1))]:
            want[x + a] = want.get(x + a, 0) + p * q
    result = analyse(game, 1)
    assert result.rtp == sum((x * p for x, p in want.items()), F(0))
    got = law_of(result)
    for x, p in want.items():
        assert abs(got.get(x, 0.0) - float(p)) <= 1e-12 + TOL * float(p), (x, float(p))
    assert sum(p for x, p in got.items() if x not in want) < 1e-12
