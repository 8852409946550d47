"""The compiled sampler of a ways game whose drawn wild multipliers do not
fit as stops (``options.wild_multipliers`` on ``pays_by: ways``, the
rewrite refused): every drawn wild cell of the window draws its
multiplier.  Its window evaluation against the plain-Python brute force of
every window and every draw, its draws' law against the brute force's
spin law (|z| < 4), and every component of the round with free games
against the exact Fractions of the law of the drawn wilds' count per way
(|z| < 4)."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest
from test_drawn_law import z_of
from test_wild_multipliers_ways import BASE, game_text, renewal_components, spin_law, win_law, window_coins

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import drawn_components, drawn_too_large

# the test game of tests/test_wild_multipliers_ways.py (3 reels x 2 rows, W
# drawing x2 or x3, the by_count wild V, scatter S) with about the law x2
# 3/4, x3 1/4 on weights that do not fit as stops: a rewritten stop showing
# two W would weigh (3 x 2**30 + 1)**2 >= 2**32
WEIGHTS = "[[2, 3221225473], [3, 1073741824]]"
TABLE = {2: 3 * 2**30 + 1, 3: 2**30}


def unfit_game(write_game, combine: str, free: bool = False):
    game = load_game(write_game(game_text(combine, free).replace("[[2, 3], [3, 1]]", WEIGHTS)))
    assert drawn_too_large(game)
    return game


def rounds(sampler, n: int, seed: int) -> tuple:
    """(wins, parts) of ``n`` rounds of ``sampler`` [x total bet]."""
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed)))
    wins, _, parts = sampler.kernel(rng, n, *sampler.args)
    return wins, parts


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_every_window_and_draw_pays_the_brute_force(write_game, combine):
    # the sampler's evaluation without its random draw: for every stop
    # vector (5 x 5 x 6) and every variant of every W cell shown, the stop
    # features plus each W cell's variant's (drawn_ways_args), evaluated by
    # ways_win, pay the brute force's coins (every way listed, the drawn
    # multipliers multiplied or added, x V's by_count factor)
    from slotmath.engine.reels import pack_reels
    from slotmath.engine.ways import compile_ways, stop_features
    from slotmath.features.wildmult import drawn_symbols
    from slotmath.montecarlo.wayssim import drawn_ways_args, ways_win

    game = drawn_symbols(unfit_game(write_game, combine))
    wp = compile_ways(game, 1)
    win, _, n_stops = pack_reels(game, "base")
    feat = np.stack([stop_features(wp, win[k]) for k in range(3)])
    drawn = drawn_ways_args(game, 1, win)
    assert drawn is not None
    n_wild, delta, cum = drawn
    assert cum.tolist() == [3 * 2**30 + 1, 2**32 + 1]
    multipliers = list(TABLE)  # the variants in the table's order
    at = np.zeros(3, dtype=np.int64)
    vec, out = np.zeros(len(wp.factor), dtype=np.int64), np.zeros(len(wp.factor), dtype=np.int64)
    events = np.zeros(int(wp.pay.astype(bool).sum()), dtype=np.int64)
    event = np.cumsum(wp.pay.astype(bool)).reshape(wp.pay.shape) - 1
    checked = 0
    for stops in product(*(range(int(n)) for n in n_stops)):
        window = [[BASE[r][(s + k) % len(BASE[r])] for k in range(2)] for r, s in enumerate(stops)]
        cells = [(r, k) for r in range(3) for k in range(2) if window[r][k] == "W"]
        assert [int(n_wild[r, s]) for r, s in enumerate(stops)] == [
            sum(c[0] == r for c in cells) for r in range(3)
        ]
        for draw in product(range(len(multipliers)), repeat=len(cells)):
            one = np.stack([feat[r, s] for r, s in enumerate(stops)])[:, None, :].copy()
            for (r, _), j in zip(cells, draw, strict=True):
                one[r, 0] += delta[j]
            got = ways_win(at, one, wp.pay, event, wp.step, wp.factor, 1, vec, out, events)
            mult = {c: multipliers[j] for c, j in zip(cells, draw, strict=True)}
            assert got == window_coins(window, mult, combine), (stops, mult)
            checked += 1
    assert checked > 5 * 5 * 6  # windows with W take one case per draw


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_the_sampled_law_is_the_brute_force(write_game, combine):
    # the rules' round kernel and the plain ways kernel (the same rounds) on
    # the declared strips, each W cell drawing x2 / x3: the mean, P(no win)
    # and P(win >= 2, 10, 40 x total bet) against the spin law listing every
    # stop vector and every draw (|z| < 4, 400,000 rounds), the ways part
    # against the exact ways RTP without the rewrite
    from slotmath.features.drawnways import drawn_ways_figures
    from slotmath.features.wildmult import drawn_symbols
    from slotmath.montecarlo.wayssim import ways_sampler
    from slotmath.rules.linegame import round_sampler

    game = unfit_game(write_game, combine)
    law = win_law(spin_law(BASE, combine, table=TABLE))
    mean = sum(x * p for x, p in law.items())
    ways_rtp = drawn_ways_figures(game, 1).rtp
    assert drawn_components(game, 1) == {"ways": ways_rtp, "scatters": mean - ways_rtp}
    plain = ways_sampler(drawn_symbols(game), 1)
    assert plain.kernel.__name__ == "ways_kernel_drawn"
    runs = [rounds(sampler, 400_000, 13) for sampler in (round_sampler(game, 1), plain)]
    assert np.array_equal(runs[0][0], runs[1][0])  # one random stream, one evaluation
    x, parts = runs[1]
    assert abs(z_of(x, float(mean))) < 4
    assert abs(z_of(parts[:, 0], float(ways_rtp))) < 4
    for edge in (0, 2, 10, 40):
        p = float(sum(q for w, q in law.items() if (w == 0 if edge == 0 else w >= edge)))
        hit = (x == 0) if edge == 0 else (x >= edge)
        assert 0 < p < 1 and abs(z_of(hit.astype(float), p)) < 4, (edge, hit.mean(), p)


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_the_round_with_free_games_simulates_its_exact_components(write_game, combine):
    # base and free reels both show W (its draws not written as stops): the
    # round sampler draws them in every window; each component of 1,000,000
    # rounds within |z| < 4 of the exact Fractions (ways from the law of the
    # drawn wilds' count per way, free games by Wald's identity), themselves
    # the brute-force renewal formula's
    from slotmath.analysis.simulation import simulate_game

    game = unfit_game(write_game, combine, free=True)
    exact = drawn_components(game, 1)
    assert exact == renewal_components(combine, table=TABLE)
    result = simulate_game(game, 1_000_000, seed=5, workers=1, progress=False)
    stats, names = result.run.stats, result.run.part_names
    assert set(names) == set(exact) == {"ways", "scatters", "free_games"}
    assert float(result.rtp.exact) == pytest.approx(float(sum(exact.values(), F(0))))
    for k, name in enumerate(names):
        got, se = stats.part_rtp(k)
        assert abs((got - float(exact[name])) / se) < 4, (name, got, float(exact[name]))


def test_cli_simulate_plays_the_drawn_ways_game(write_game, capsys):
    # `simulate` was refused on ways ("paylines only"): it now plays and
    # compares the RTP with the exact one
    import json

    from slotmath.cli import main

    path = write_game(game_text("add").replace("[[2, 3], [3, 1]]", WEIGHTS))
    assert main(["simulate", str(path), "--spins", "200000", "--seed", "2", "--workers", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    mean = sum(x * p for x, p in win_law(spin_law(BASE, "add", table=TABLE)).items())
    assert out["rtp"]["exact"] == pytest.approx(float(mean)) and abs(out["rtp"]["z"]) < 4


def test_a_sticky_free_games_wild_is_still_refused_in_one_line(write_game):
    # the held window of a sticky wild is not drawn: `simulate` refused in one line
    from slotmath.errors import SetupError
    from slotmath.rules.linegame import round_sampler

    text = game_text("multiply", free=True).replace("[[2, 3], [3, 1]]", WEIGHTS)
    text = text.replace("multiplier: 2, awards", "sticky: V, max_games: 30, multiplier: 2, awards")
    game = load_game(write_game(text))
    assert drawn_too_large(game)
    with pytest.raises(SetupError) as err:
        round_sampler(game, 1)
    message = str(err.value)
    assert "\n" not in message and "options.wild_multipliers.table" in message
    assert "does not draw the multipliers of a sticky free-games wild" in message


HEADING = "### Worked example: wild multipliers on ways, drawn in the window"


@pytest.mark.parametrize("combine, cells, coins", [("multiply", [5, 3, 4], 480), ("add", [0, 1, 1], 320)])
def test_worked_example_window_in_the_sampler(tmp_path, combine, cells, coins):
    # docs/features.md: stops (1, 0, 1), reel 1's W drawn x3 and x2, reel 2's x2,
    # reel 3's x3.  The drawn window's A cells per reel (multiplied: plain
    # cells + (m - 1) per drawn W; added: the plain A cells only, the W in the
    # sum digits) and its win, 8 x 60 = 480 or 8 x 40 = 320 coins; and the
    # sampled mean of 400,000 rounds against the exact RTP (|z| < 4)
    from slotmath.engine.reels import pack_reels
    from slotmath.engine.ways import compile_ways, stop_features
    from slotmath.features.drawnways import drawn_ways_figures
    from slotmath.features.wildmult import drawn_symbols
    from slotmath.montecarlo.wayssim import drawn_ways_args, ways_win
    from slotmath.rules.linegame import round_sampler

    from conftest import docs_example

    game, section = docs_example(tmp_path, HEADING, combine=None if combine == "multiply" else combine)
    assert drawn_too_large(game)  # the rewrite is refused
    played = drawn_symbols(game)
    wp = compile_ways(played, 1)
    win, _, _ = pack_reels(played, "base")
    n_wild, delta, _ = drawn_ways_args(played, 1, win)
    x2, x3 = 0, 1  # the variants in the table's order
    window = np.stack([stop_features(wp, win[r])[s] for r, s in enumerate((1, 0, 1))])[:, None, :].copy()
    assert [int(n_wild[r, s]) for r, s in enumerate((1, 0, 1))] == [2, 1, 1]
    for r, j in ((0, x3), (0, x2), (1, x2), (2, x3)):
        window[r, 0] += delta[j]
    assert window[:, 0, 0].tolist() == cells  # A's weighted plain cells per reel
    M = len(wp.factor)
    events = np.zeros(1, dtype=np.int64)
    got = ways_win(
        np.zeros(3, dtype=np.int64),
        window,
        wp.pay,
        np.zeros_like(wp.pay),
        wp.step,
        wp.factor,
        1,
        np.zeros(M, dtype=np.int64),
        np.zeros(M, dtype=np.int64),
        events,
    )
    assert got == coins
    words = " ".join(section.split())
    shown = "`8 x 5 x 3 x 4 = 480` coins" if combine == "multiply" else "`8 x 40 = 320` coins"
    assert shown in words and "weigh `(3 x 2**30 + 1)^2 >= 2**32`" in words
    x = rounds(round_sampler(game, 1), 400_000, 21)[0]
    assert abs(z_of(x, float(drawn_ways_figures(game, 1).rtp))) < 4


@pytest.mark.parametrize("pays_by", ["ways", "lines"])
def test_a_table_beyond_the_exact_draw_is_refused_in_one_line(write_game, pays_by):
    # reduced total weight 2**62 + 2**62 + 1 > 2**62: the sampler's exact
    # uniform draw cannot draw it, so `simulate` is refused in one line
    # (the line sampler read the same table: its cumulative weights wrapped
    # past int64, 2**62 + 2**62 + 1 -> -2**63 + 1, before this check)
    from test_drawn_law import tiny_game

    from slotmath.errors import SetupError
    from slotmath.rules.linegame import round_sampler

    table = {2: 2**62, 3: 2**62 + 1}
    if pays_by == "ways":
        rows = f"[[2, {2**62}], [3, {2**62 + 1}]]"
        game = load_game(write_game(game_text("add").replace("[[2, 3], [3, 1]]", rows)))
    else:
        game = tiny_game(write_game, "add", table)
    assert drawn_too_large(game)
    with pytest.raises(SetupError) as err:
        round_sampler(game, 1)
    message = str(err.value)
    assert "\n" not in message and "options.wild_multipliers.table: total weight 9.223e+18" in message
    assert "above 2**62, the compiled simulator's exact uniform draw, so `simulate` cannot" in message
