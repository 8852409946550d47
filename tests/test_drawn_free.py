"""Free games whose wilds draw multipliers that do not fit as stops: the
free spin's law of (win, extra games) from the windows' draw profiles
(:func:`slotmath.features.drawnlaw.drawn_free_table`) and the round's
distribution of `par`, against a plain-Python listing of every base window,
every free window and every draw of its wilds (``add`` and ``multiply``)."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import pytest
from infree_brute import add as convolve
from test_drawn_law import TINY_LINES, TINY_TABLE, brute_line

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import drawn_too_large

# 3 reels x 2 rows, the three lines and pays of tests/test_drawn_law.py (W
# substitutes for A and B, its own 3 x W pays 100, not multiplied), total bet
# 3 coins; S pays 1 / 4 x total bet for 2 / 3 anywhere and starts 2 / 3 free
# games on reels whose W draws x2 / x3 / x5 (weights that do not fit as stops);
# the base reels show no W.
TEXT = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols:
  - {name: A}
  - {name: B}
  - {name: X, kind: blank}
  - {name: S, kind: scatter}
  - {name: W, kind: wild, substitutes: all}
reels:
  base: [[A, S, B, X], [A, B, S, X], [S, A, B, X, A]]
  free: [[A, W, B, S, X], [A, B, W, X], [W, A, S, B, X, A]]
paylines: [[0, 0, 0], [1, 1, 1], [0, 1, 0]]
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 8}
  - {symbol: B, count: 3, pay: 5}
  - {symbol: W, count: 3, pay: 100}
scatters:
  - {symbol: S, count: 2, pay: 1}
  - {symbol: S, count: 3, pay: 4}
options:
  free_games: {symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 3}}, retrigger: RETRIGGER}
  wild_multipliers: {symbol: W, table: TABLE, combine: COMBINE}
"""
SCATTER_COINS = {0: 0, 1: 0, 2: 3, 3: 12}  # 1 and 4 x total bet 3
GAMES = {2: 2, 3: 3}


def free_game(write_game, combine: str, retrigger: bool):
    rows = "[" + ", ".join(f"[{m}, {w}]" for m, w in TINY_TABLE.items()) + "]"
    text = TEXT.replace("TABLE", rows).replace("COMBINE", combine)
    return load_game(write_game(text.replace("RETRIGGER", "true" if retrigger else "false")))


def brute_spin(strips: list, combine: str, table: dict = TINY_TABLE, also: str | None = None) -> dict:
    """``{(spin win [coins], S count): probability}``: every stop vector
    (uniform stops) and every draw of every W in its window (each its own
    draw from ``table``), the lines by :func:`test_drawn_law.brute_line`,
    S paid by its count anywhere; with ``also`` the key is ``(S count,
    the (reel, row) cells showing also)``."""
    total = sum(table.values())
    out: dict = {}
    for stops in product(*(range(len(s)) for s in strips)):
        grid = [[s[(i + k) % len(s)] for k in range(2)] for s, i in zip(strips, stops, strict=True)]
        p_stop = F(1, len(strips[0]) * len(strips[1]) * len(strips[2]))
        wilds = [(r, k) for r in range(3) for k in range(2) if grid[r][k] == "W"]
        count = sum(row.count("S") for row in grid)
        key = (
            count
            if also is None
            else (count, tuple((r, k) for r in range(3) for k in range(2) if grid[r][k] == also))
        )
        for draw in product(table, repeat=len(wilds)):
            mult = dict(zip(wilds, draw, strict=True))
            p = p_stop
            for m in draw:
                p *= F(table[m], total)
            win = SCATTER_COINS[count] + sum(
                brute_line(
                    [grid[r][line[r]] for r in range(3)], [mult.get((r, line[r])) for r in range(3)], combine
                )
                for line in TINY_LINES
            )
            out[win, key] = out.get((win, key), 0) + p
    return out


@pytest.mark.parametrize("combine", ["add", "multiply"])
@pytest.mark.parametrize("retrigger", [False, True])
def test_the_free_spin_table_equals_the_brute_force(write_game, combine, retrigger):
    # every free stop vector (5 x 4 x 6) and draw: the table of (win, extra
    # games) equals the brute force's Fractions within the stated bound, and
    # the exact shift of its mean is the brute force's mean less the undrawn one
    from slotmath.features.drawnlaw import drawn_free_table, drawn_keyed_law
    from slotmath.features.options import load_features

    game = free_game(write_game, combine, retrigger)
    assert drawn_too_large(game)
    spec = load_features(game).free_games
    d, table, unit = drawn_free_table(game, 1, spec)
    bound = drawn_keyed_law(game, 1, "free", "S").bound
    assert unit == 1 and bound < 1e-14
    spin = brute_spin([s.symbols for s in game.strips("free")], combine)
    want: dict = {}
    for (win, count), p in spin.items():
        k = GAMES.get(count, 0) if retrigger else 0
        want[win, k] = want.get((win, k), 0) + p
    got = {(y, k): float(table[y, k]) for y, k in zip(*table.nonzero(), strict=True)}
    assert set(got) == {key for key, p in want.items() if p}
    for key, p in want.items():
        assert abs(F(got[key]) - p) <= p * F(bound), (key, got[key], float(p))
    # d: the brute force's mean line win with the draws less without (W x1)
    undrawn = brute_spin_undrawn([s.symbols for s in game.strips("free")])
    mean = sum((F(w) * p for (w, _), p in spin.items()), F(0))
    assert d == (mean - undrawn) / 3


def brute_round_no_retrigger(game, combine: str) -> dict:
    """Law ``{round win [coins]: P}`` of :func:`free_game` without
    retriggers, listed: every base window (:func:`brute_spin`), then for 2
    or 3 S the sum of 2 or 3 free spins (each every free window and draw)."""
    base = brute_spin([s.symbols for s in game.strips("base")], combine)
    free: dict = {}
    for (win, _), p in brute_spin([s.symbols for s in game.strips("free")], combine).items():
        free[win] = free.get(win, 0) + p
    award = {2: convolve(free, free)}
    award[3] = convolve(award[2], free)
    law: dict = {}
    for (win, count), p in base.items():
        for extra, q in award[count].items() if count in GAMES else [(0, F(1))]:
            law[win + extra] = law.get(win + extra, 0) + p * q
    return law


def brute_spin_undrawn(strips: list) -> F:
    """Mean spin win [coins] of ``strips`` with every W worth x1 (the
    undrawn game: its line pays as listed, the scatters)."""
    total, n = F(0), 0
    for stops in product(*(range(len(s)) for s in strips)):
        grid = [[s[(i + k) % len(s)] for k in range(2)] for s, i in zip(strips, stops, strict=True)]
        total += SCATTER_COINS[sum(row.count("S") for row in grid)]
        total += sum(
            brute_line([grid[r][line[r]] for r in range(3)], [1, 1, 1], "multiply") for line in TINY_LINES
        )
        n += 1
    return total / n


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_par_of_the_free_games_gives_the_brute_force_round(write_game, combine):
    # without retriggers: the round is the base spin, plus (2 or 3 S) the sum
    # of 2 or 3 free spins listed by the brute force; `par`'s RTP is the
    # brute force's mean exactly, its distribution the brute force's win by
    # win (the award law on an FFT grid: 1e-12 absolute), its SD and hit rate
    from slotmath.rules.linegame import analyse

    game = free_game(write_game, combine, False)
    law = brute_round_no_retrigger(game, combine)
    result = analyse(game, 1)
    assert result.rtp == sum((F(w, 3) * p for w, p in law.items()), F(0))
    dist = result.distribution
    got = {F(int(w), dist.unit_den): float(p) for w, p in zip(dist.wins, dist.probabilities, strict=True)}
    for w, p in law.items():
        assert abs(got.get(F(w), 0.0) - float(p)) <= 1e-12 + 1e-12 * float(p), (w, float(p))
    assert sum(p for w, p in got.items() if F(w) not in law) < 1e-12
    hit = float(sum(p for w, p in law.items() if w > 0))
    assert result.hit_frequency == pytest.approx(hit, rel=1e-12)
    sd = float(sum((F(w, 3) - result.rtp) ** 2 * p for w, p in law.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-10)
    assert any("free spin's law (win, retrigger count) is float64" in n for n in result.notes)


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_the_sampler_agrees_with_the_exact_round(write_game, combine):
    # retriggers on: `par`'s round (RTP exact, distribution from the drawn
    # free spin table) against the compiled sampler, which draws each W in
    # the window: mean, hit frequency and second moment (SD) |z| < 4 over
    # 400,000 rounds
    import numpy as np
    from test_drawn_law import sampled_wins, z_of

    from slotmath.rules.linegame import analyse, round_sampler

    game = free_game(write_game, combine, True)
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 400_000, 11)  # [x total bet]
    assert abs(z_of(x, float(result.rtp))) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4
    second = result.sd**2 + float(result.rtp) ** 2
    assert abs(z_of(np.square(x), second)) < 4, (np.square(x).mean(), second)


def test_max_games_too_many_is_refused_before_the_draws_law(write_game, monkeypatch):
    # the games' exact moments cost (retrigger counts) x max_games**3 x (bits
    # of the spin table's denominator), known before the draws' law (which
    # takes minutes on real reels): at 15,000 games the refusal comes first,
    # the draws' law never starts
    import slotmath.features.drawnwayslaw as drawnwayslaw
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.rules.linegame import analyse

    def never(*args, **kwargs):
        raise AssertionError("the draws' law started before the refusal")

    monkeypatch.setattr(drawnwayslaw, "drawn_free_spin_table", never)
    rows = "[" + ", ".join(f"[{m}, {w}]" for m, w in TINY_TABLE.items()) + "]"
    text = TEXT.replace("TABLE", rows).replace("COMBINE", "add")
    text = text.replace("RETRIGGER", "true, max_games: 15000")
    game = load_game(write_game(text))
    with pytest.raises(EngineTooLarge) as exc:
        analyse(game, 1)
    assert exc.value.field == "options.free_games.max_games"
    assert "exact moments of at most 15,000 games" in str(exc.value)
