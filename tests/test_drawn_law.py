"""Drawn wild multipliers that do not fit as stops (``options.wild_multipliers``
whose rewrite leaves the engine's counts): the compiled sampler draws each
wild's multiplier in the window, checked against an independent plain-Python
brute force over every stop vector and every draw of a tiny game, and on the
20-line test game against its exact RTP components (|z| < 4)."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from math import prod

import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import drawn_too_large

# 3 reels x 2 rows, three lines (row 0, row 1, the V 0-1-0), total bet 3 coins.
# W substitutes for A and B and has its own 3 x W pay (not multiplied); its
# multiplier is drawn from a table whose weights do not fit as stops
# (x2, x3, x5 at 3 x 2**30 + 1, 2**30, 2**29: a rewritten stop weighs >= 2**32).
TINY = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols: [{name: A}, {name: B}, {name: X, kind: blank}, {name: W, kind: wild, substitutes: all}]
reels:
  base: [[A, W, B, W, X], [A, B, W, X], [W, A, B, X, A]]
paylines: [[0, 0, 0], [1, 1, 1], [0, 1, 0]]
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 8}
  - {symbol: B, count: 3, pay: 5}
  - {symbol: W, count: 3, pay: 100}
options:
  wild_multipliers: {symbol: W, table: TABLE, combine: COMBINE}
"""
TINY_TABLE = {2: 3 * 2**30 + 1, 3: 2**30, 5: 2**29}
TINY_PAYS = [("A", 2, 1), ("A", 3, 8), ("B", 3, 5), ("W", 3, 100)]
TINY_LINES = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]


def tiny_game(write_game, combine: str, table: dict = TINY_TABLE):
    rows = "[" + ", ".join(f"[{m}, {w}]" for m, w in table.items()) + "]"
    return load_game(write_game(TINY.replace("TABLE", rows).replace("COMBINE", combine)))


def brute_line(symbols: list, drawn: list, combine: str) -> int:
    """Coins one line pays: every pay entry it matches from the left (a W
    substituting for A or B, or W's own pay on W's only), each weighed by the
    sum or product of the drawn multipliers of the W substituting in it (x1
    without); the line pays the largest."""
    join = sum if combine == "add" else prod
    best = 0
    for symbol, count, pay in TINY_PAYS:
        head = symbols[:count]
        if symbol == "W":
            if all(s == "W" for s in head):
                best = max(best, pay)
            continue
        if all(s in (symbol, "W") for s in head):
            ms = [m for s, m in zip(head, drawn[:count], strict=True) if s == "W"]
            best = max(best, pay * (join(ms) if ms else 1))
    return best


def brute_law(strips: list, table: dict, combine: str) -> dict:
    """Law ``{spin win [coins]: probability}`` of the tiny game: every stop
    vector (uniform stops) and every draw of every W in the window (each W
    its own draw from ``table``), the three lines paid by :func:`brute_line`."""
    total = sum(table.values())
    cycle = prod(len(s) for s in strips)
    law: dict = {}
    for stops in product(*(range(len(s)) for s in strips)):
        window = [[s[(stop + k) % len(s)] for k in range(2)] for s, stop in zip(strips, stops, strict=True)]
        cells = [(r, k) for r in range(3) for k in range(2) if window[r][k] == "W"]
        for draw in product(table, repeat=len(cells)):
            p = F(1, cycle)
            for m in draw:
                p *= F(table[m], total)
            mult = dict(zip(cells, draw, strict=True))
            win = 0
            for line in TINY_LINES:
                symbols = [window[r][line[r]] for r in range(3)]
                win += brute_line(symbols, [mult.get((r, line[r])) for r in range(3)], combine)
            law[win] = law.get(win, 0) + p
    return law


def sampled_wins(sampler, n: int, seed: int) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed)))
    return sampler.kernel(rng, n, *sampler.args)[0]


def z_of(x: np.ndarray, exact: float) -> float:
    return float((x.mean() - exact) / (x.std() / len(x) ** 0.5))


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_the_sampler_draws_the_multipliers_as_the_brute_force(write_game, combine):
    # the rewrite does not fit (a stop weight >= 2**32): the sampler plays the
    # declared strips and draws each W's multiplier in the window.  Its mean,
    # P(no win), P(win >= 10 coins) and P(win >= 40 coins) against the brute
    # force's law, |z| < 4 over 400,000 rounds
    from slotmath.rules.linegame import round_sampler

    game = tiny_game(write_game, combine)
    assert drawn_too_large(game)
    law = brute_law([s.symbols for s in game.strips("base")], TINY_TABLE, combine)
    sampler = round_sampler(game, 1)
    x = sampled_wins(sampler, 400_000, 7) * 3  # [coins]
    assert abs(z_of(x, float(sum(w * p for w, p in law.items())))) < 4
    for edge in (0, 10, 40):
        p = float(sum(q for w, q in law.items() if (w == 0 if edge == 0 else w >= edge)))
        hit = (x == 0) if edge == 0 else (x >= edge)
        assert 0 < p < 1 and abs(z_of(hit.astype(float), p)) < 4, (edge, hit.mean(), p)


def test_the_lines_game_simulates_its_exact_components(tmp_path):
    # tests/data/drawn_wild_lines: the free reels' draws written as stops
    # would have cycle 3.7e+19; the sampler draws them in the window.  Every
    # RTP component of 2,000,000 rounds (seed 3) within |z| < 4 of the exact
    # Fractions from the law of the counted wilds
    from slotmath.analysis.simulation import simulate_game
    from slotmath.rules.linegame import components

    from conftest import TEST_DATA

    game = load_game(TEST_DATA / "drawn_wild_lines")
    assert drawn_too_large(game)
    exact = components(game, 1)
    result = simulate_game(game, 2_000_000, seed=3, workers=1, progress=False)
    assert float(result.rtp.exact) == pytest.approx(float(sum(exact.values(), F(0))))
    stats = result.run.stats
    names = result.run.part_names
    assert set(names) == set(exact)
    for k, name in enumerate(names):
        mean, se = stats.part_rtp(k)
        z = (mean - float(exact[name])) / se
        assert abs(z) < 4, (name, mean, float(exact[name]), z)
