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
    # (the rules' round kernel, and the plain line kernel on the same game)
    from slotmath.features.wildmult import drawn_symbols
    from slotmath.montecarlo.linesim import line_kernel_wide, line_sampler
    from slotmath.rules.linegame import round_sampler

    game = tiny_game(write_game, combine)
    assert drawn_too_large(game)
    law = brute_law([s.symbols for s in game.strips("base")], TINY_TABLE, combine)
    plain = line_sampler(drawn_symbols(game), 1)
    assert plain.kernel is line_kernel_wide  # the pair table reads no window
    for sampler in (round_sampler(game, 1), plain):
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


SMALL_TABLE = {2: 4, 3: 3, 5: 2}  # total 9: every profile's weights fit 2**53 (numba laws)


@pytest.mark.parametrize(
    ("combine", "table", "dense"),
    [
        ("add", TINY_TABLE, True),
        ("multiply", TINY_TABLE, True),
        ("add", SMALL_TABLE, True),
        ("add", SMALL_TABLE, False),
        ("multiply", SMALL_TABLE, False),
    ],
)
def test_the_spin_law_without_the_rewrite_equals_the_brute_force(
    write_game, monkeypatch, combine, table, dense
):
    # every stop vector (5 x 4 x 5) and every draw of every W in the window
    # (x2, x3, x5): the float64 law from the windows' draw profiles equals
    # the brute force's Fractions within its stated relative error bound,
    # win by win.  The tiny table's weights (total ~2**32) keep profiles of
    # two cells or more in Python integers; the small one's go to numba
    # (affine convolutions, the mixed lines' draws); without the dense
    # combine every law is listed and summed by a dict
    from slotmath.features import drawnlaw
    from slotmath.features.drawnlaw import drawn_law_cost, drawn_spin_law

    if not dense:
        monkeypatch.setattr(drawnlaw, "MAX_DENSE", 0)
    game = tiny_game(write_game, combine, table)
    law = brute_law([s.symbols for s in game.strips("base")], table, combine)
    assert drawn_law_cost(game) == 5 * 4 * 5  # stop vectors listed
    dist, bound = drawn_spin_law(game, 1)
    assert not dist.exact and dist.unit_den == 1 and dist.total_bet == 3
    got = {int(w): float(p) for w, p in zip(dist.wins, dist.weights, strict=True)}
    want = {w: p for w, p in law.items() if p}
    assert set(got) == set(want)
    assert bound < 1e-14
    for w, p in want.items():
        assert abs(F(got[w]) - p) <= p * F(bound), (w, got[w], float(p))


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_par_of_the_tiny_game_gives_the_brute_force_law(write_game, combine):
    # `par` without the rewrite: the RTP exact (the brute force's mean, as a
    # Fraction), the distribution the brute force's within the stated bound,
    # and the sheet's note stating it
    from slotmath.rules.linegame import analyse

    game = tiny_game(write_game, combine)
    law = brute_law([s.symbols for s in game.strips("base")], TINY_TABLE, combine)
    result = analyse(game, 1)
    assert result.rtp == sum(w * p for w, p in law.items()) / 3
    assert result.components == {"lines": result.rtp}
    assert sum(result.combinations["rtp_exact"], F(0)) == result.rtp
    hit = float(sum(p for w, p in law.items() if w > 0))
    assert result.hit_frequency == pytest.approx(hit, rel=1e-13)
    sd = float(sum((F(w, 3) - result.rtp) ** 2 * p for w, p in law.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-12)
    top = max(w for w, p in law.items() if p)
    assert result.true_max_win.value == F(top, 3)
    assert result.true_max_win.probability == pytest.approx(float(law[top]), rel=1e-13)
    assert any("float64 over every window and the law of its draw profile" in n for n in result.notes)


def test_a_law_above_its_cost_bound_is_refused_in_one_line_with_the_exact_rtp(write_game, monkeypatch):
    # the bound set below the tiny game's stop vectors: `par` refuses in one
    # line that names the windows and gives the exact RTP
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import drawnlaw
    from slotmath.rules.linegame import analyse, components

    game = tiny_game(write_game, "add")
    cost = drawnlaw.drawn_law_cost(game)
    monkeypatch.setattr(drawnlaw, "MAX_DRAWN_WINDOWS", cost - 1)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    rtp = components(game, 1)["lines"]
    assert "\n" not in message
    assert f"the law of reel set 'base' would list {cost:.3g} windows" in message
    assert f"the round's exact RTP is {float(rtp):.6%}" in message


def test_a_law_above_its_draw_bound_is_refused_in_one_line(write_game, monkeypatch):
    # the draws of the distinct profiles above their bound: one line naming
    # the field, the draws and the profiles
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import drawnlaw

    game = tiny_game(write_game, "multiply")
    monkeypatch.setattr(drawnlaw, "MAX_DRAW_TERMS", 10)
    with pytest.raises(EngineTooLarge) as err:
        drawnlaw.drawn_spin_law(game, 1)
    message = str(err.value)
    assert "\n" not in message and "options.wild_multipliers.table" in message
    assert "draws over its" in message and "draw profiles, above 1e+01" in message


def test_the_lines_game_round_law_has_its_exact_rtp(monkeypatch):
    # drawn_wild_lines: its free reels list 50 x 53**3 x 50 = 3.72e+08 windows
    # (within the bound; 3 to 8 minutes on the shared 2-core machine).  The free
    # spin's law (win, scatter count) has the exact mean of a free spin --
    # the counted wilds' line RTP with the draws plus the scatters' -- within
    # its stated bound; par's round RTP is the exact components' sum
    import dataclasses

    from slotmath.engine.cache import clear
    from slotmath.engine.combinations import combination_table
    from slotmath.features import drawnlaw
    from slotmath.features.wilddraws import drawn_line_figures
    from slotmath.rules.linegame import analyse, components

    from conftest import TEST_DATA

    game = load_game(TEST_DATA / "drawn_wild_lines")
    assert drawnlaw.drawn_law_cost(game, "free") == 50 * 53**3 * 50 <= drawnlaw.MAX_DRAWN_WINDOWS
    clear()  # an earlier test of the process (the simulation's exact figures) may hold the analysis
    laws = []
    keyed = drawnlaw.drawn_keyed_law
    monkeypatch.setattr(drawnlaw, "drawn_keyed_law", lambda *a, **k: laws.append(keyed(*a, **k)) or laws[-1])
    result = analyse(game, 1)
    (law,) = laws
    bet = game.bet(1).total_bet
    undrawn = dataclasses.replace(
        game, options={k: v for k, v in game.options.items() if k != "wild_multipliers"}
    )
    table = combination_table(undrawn, 1, "free")
    exact = drawn_line_figures(game, 1, "free").rtp + sum(
        table.loc[table["kind"] == "scatter", "rtp_exact"], F(0)
    )
    mean = F(float(np.dot(law.wins.astype(float), law.probabilities))) / (law.unit * bet)
    assert law.bound < 1e-14 and abs(mean - exact) <= 2 * law.bound * exact, (float(mean), float(exact))
    rtp = sum(components(game, 1).values(), F(0))
    assert result.rtp == rtp and f"{float(rtp):.6%}" == "98.456994%"
    # the distribution's mean: the RTP less the unresolved tail of the
    # unlimited retriggers (its note: probabilities below 1e-15 dropped, mass
    # 5.9e-12, at wins up to some 2e4 x bet: about 1.2e-7 of the RTP)
    dist = result.distribution
    total = float(np.dot(dist.wins.astype(float), dist.probabilities)) / dist.unit_den / bet
    assert total <= float(rtp) and total == pytest.approx(float(rtp), rel=1e-6)
    assert any("probabilities below 1e-15 are not resolved" in n for n in result.notes)
    assert 0 < result.hit_frequency < 1 and result.sd > 0
    # the figures docs/features.md states for it
    from conftest import ROOT

    page = " ".join((ROOT / "docs" / "features.md").read_text(encoding="utf-8").split())
    assert f"hit frequency `{result.hit_frequency:.6%}`".replace("%", " %") in page
    assert f"SD `{result.sd:.6g}`" in page


def test_one_window_and_draw_worked_by_hand(tmp_path):
    # docs/features.md, "the spin law without the rewrite" (its game is the
    # tiny one, with combine: add; 100 stop vectors): stops (1, 1, 0)
    # show reel 1 W B, reel 2 B W, reel 3 W A; W drawn x5, x3, x2 (reels 1-3).
    # Row 0 W B W pays 3 x B = 5 x (5 + 2) = 35; row 1 B W A nothing; the V
    # W W W max(3 x W = 100, 3 x A = 8 x (5 + 3 + 2) = 80) = 100: 135 coins
    from slotmath.features.drawnlaw import drawn_law_cost
    from slotmath.features.wildmult import drawn_symbols, load_wild_multipliers, variant_name
    from slotmath.montecarlo.linesim import evaluation_args, window_line_win

    from conftest import docs_example

    declared, _ = docs_example(tmp_path, "### Worked example: the spin law without the rewrite")
    spec = load_wild_multipliers(declared)
    assert spec is not None and dict(spec.table) == TINY_TABLE and spec.combine == "add"
    assert [s.symbols for s in declared.strips("base")][1] == ("A", "B", "W", "X")
    assert drawn_too_large(declared) and drawn_law_cost(declared) == 100
    game = drawn_symbols(declared)
    (dims, sym, cells, codes, offsets, label_coins, *_), names = evaluation_args(game, 1)
    window = np.concatenate([sym[0, 1], sym[1, 1], sym[2, 0]]).copy()
    drawn = {0: 5, 3: 3, 4: 2}  # cell reel x rows + row -> multiplier
    for cell, m in drawn.items():
        assert window[cell] == game.symbol_index["W"]
        window[cell] = game.symbol_index[variant_name("W", m)]
    events = np.zeros(len(names), dtype=np.int64)
    assert round(window_line_win(window, dims, cells, codes, offsets, label_coins, events) * 3) == 135
    grid = [["W", "B"], ["B", "W"], ["W", "A"]]
    mult = {(c // 2, c % 2): m for c, m in drawn.items()}
    brute = sum(
        brute_line([grid[r][line[r]] for r in range(3)], [mult.get((r, line[r])) for r in range(3)], "add")
        for line in TINY_LINES
    )
    assert brute == 135


def test_a_ways_game_whose_draws_do_not_fit_draws_them_in_the_window(write_game):
    # a ways game whose draws do not fit as stops: the sampler draws each W's
    # multiplier in the window (tests/test_drawn_ways_sampler.py); here the
    # mean of 400,000 rounds against the exact ways RTP, |z| < 4.  W on every
    # A way: 3 x A pays 8 per way, 8 coins bet
    from slotmath.features.drawnways import drawn_ways_figures
    from slotmath.rules.linegame import round_sampler

    text = """
pays_by: ways
grid: {reels: 3, rows: 2}
bet: {levels: [1], lines: 8}
symbols: [{name: A}, {name: X, kind: blank}, {name: W, kind: wild, substitutes: all}]
reels:
  base: [[A, W, W, X], [A, W, X, X], [A, A, W, X]]
pays: [{symbol: A, count: 3, pay: 8}]
options:
  wild_multipliers: {symbol: W, table: [[2, 3221225473], [3, 1073741824]]}
"""
    game = load_game(write_game(text))
    assert drawn_too_large(game)
    x = sampled_wins(round_sampler(game, 1), 400_000, 9)
    assert abs(z_of(x, float(drawn_ways_figures(game, 1).rtp))) < 4
