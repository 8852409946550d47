"""Wilds whose multiplier is drawn from a weighted table (``options.wild_multipliers``),
the multipliers on a line multiplied or added: exact RTP worked by hand, the
spin distribution and the combination table against enumeration of every
window with every draw of its wilds' multipliers, the samplers' z-scores
(with free games on the same wilds too), a hold-and-spin beside them, and
refusals."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotmath.io.gamefile import GameFileError, load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse, components

from test_engine_properties import SETTINGS, games, load

SETTINGS_FEW = settings(SETTINGS, max_examples=30)

# 3 reels x 2 rows, lines on row 0 and row 1 (total bet 2 coins); A A A pays 8
# per line; W substitutes and draws x2 (weight 3) or x3 (weight 1): mean 9/4.
GAME = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: W, kind: wild, substitutes: all}S_SYMBOL]
reels:
  base: [[A, W, W, X], [A, W, X, X], [A, A, W, X]]FREE
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 8}]
options:
  wild_multipliers: {symbol: W, table: [[2, 3], [3, 1]]COMBINE}
"""
TABLE = {2: 3, 3: 1}


def game_of(write_game, combine="", free="", s_symbol="", more=""):
    text = GAME.replace("COMBINE", combine).replace("FREE", free).replace("S_SYMBOL", s_symbol)
    return load_game(write_game(text + more))


def test_rtp_worked_by_hand(write_game):
    # A line pays 8 x prod over reels of f_r, f_r = 1 for A, the drawn multiplier
    # for W, 0 for X; the reels and the draws are independent, so
    #   E[line win] = 8 x prod_r E[f_r],  E[f_r] = P(A) + P(W) x 9/4:
    #   reel 1: 1/4 + (2/4)(9/4) = 11/8; reel 2: 1/4 + (1/4)(9/4) = 13/16;
    #   reel 3: 2/4 + (1/4)(9/4) = 17/16.
    # Each row's symbol has the strip's law, so both lines have this mean and
    #   RTP = 2 x 8 x (11/8)(13/16)(17/16) / 2 coins = 2431/256.
    game = game_of(write_game)
    result = analyse(game, 1)
    assert result.rtp == F(2431, 256)
    assert components(game, 1) == {"lines": F(2431, 256)}


def test_add_rtp_worked_by_hand(write_game):
    # combine: add. A line of A/W pays 8 x g, g = the sum of its W's multipliers
    # (1 without a W); with a_r = P(A), w_r = P(W) on reel r and mean 9/4:
    #   E[line win] = 8 x (P(A A A) + sum_r (9/4) w_r prod_{j != r} (a_j + w_j))
    #   (a, w) = (1/4, 2/4), (1/4, 1/4), (2/4, 1/4): P(A A A) = 2/64 = 8/256,
    #   sum_r w_r prod_{j != r}(a_j + w_j) = (12 + 9 + 6)/64 = 27/64, x 9/4 = 243/256;
    #   E[line win] = 8 x 251/256 = 251/32; two lines over 2 coins: RTP = 251/32
    game = game_of(write_game, combine=", combine: add")
    result = analyse(game, 1)
    assert result.rtp == F(251, 32)
    assert any(n.startswith("Wild multipliers drawn from a table (added on a line)") for n in result.notes)
    assert components(game, 1) == {"lines": F(251, 32)}


def spin_law(strips, combine):
    """Law of (spin win [x total bet], S shown) of GAME's lines on ``strips``,
    listing every stop of every reel and every multiplier of every W in the
    window (drawn independently from TABLE); a line of A/W pays 8 x the
    drawn multipliers of its W multiplied or added (x1 without a W)."""
    join = np.prod if combine == "multiply" else sum
    law: dict = {}
    cycle = np.prod([len(s) for s in strips])
    for stops in product(*(range(len(s)) for s in strips)):
        window = [[s[(stop + k) % len(s)] for k in range(2)] for s, stop in zip(strips, stops, strict=True)]
        cells = [(r, k) for r in range(3) for k in range(2) if window[r][k] == "W"]
        scatters = sum(col.count("S") for col in window)
        for draw in product(TABLE, repeat=len(cells)):
            mult = dict(zip(cells, draw, strict=True))
            p = F(1, int(cycle))
            for m in draw:
                p *= F(TABLE[m], 4)
            win = 0
            for k in range(2):
                row = [window[r][k] for r in range(3)]
                drawn = [mult[(r, k)] for r in range(3) if (r, k) in mult]
                if all(s in ("A", "W") for s in row):
                    win += 8 * (join(drawn) if drawn else 1)
            key = (F(int(win), 2), scatters)
            law[key] = law.get(key, 0) + p
    return law


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_spin_law_equals_enumeration(write_game, combine):
    # every stop of every reel (4^3), every multiplier of every W in the window
    # (weights 3 and 1 of 4), both lines paid literally
    game = game_of(write_game, combine=f", combine: {combine}")
    law: dict = {}
    for (x, _), p in spin_law([s.symbols for s in game.strips("base")], combine).items():
        law[x] = law.get(x, 0) + p
    result = analyse(game, 1)
    assert result.rtp == sum(x * p for x, p in law.items())
    dist = result.distribution
    assert dist.exact  # integer counts over the rewritten cycle
    scale = dist.unit_den * dist.total_bet
    got = {F(int(w), scale): F(int(c), dist.total) for w, c in zip(dist.wins, dist.weights, strict=True)}
    assert got == {x: p for x, p in law.items() if p}


FREE_STRIPS = [["A", "W", "S", "X", "X", "A"], ["W", "A", "X", "S", "X", "X"], ["A", "X", "W", "W", "X", "S"]]


def free_game(write_game, combine):
    """GAME with an S on every base reel and free games on their own reels
    with W too: 2+ S give 3 games at x2, retriggerable."""
    text = GAME.replace("COMBINE", f", combine: {combine}").replace("S_SYMBOL", ", {name: S, kind: scatter}")
    free = "[" + ", ".join("[" + ", ".join(s) + "]" for s in FREE_STRIPS) + "]"
    text = text.replace("W, X]]FREE", f"W, X, S]]\n  free: {free}")
    text = text.replace("[A, W, W, X]", "[A, W, W, X, S]").replace("[A, W, X, X]", "[A, W, X, X, S]")
    more = "  free_games: {symbol: S, reels: free, multiplier: 2, awards: {2: {games: 3}}}\n"
    game = load_game(write_game(text + more))
    assert [len(s) for s in game.strips("base")] == [5, 5, 5]
    return game


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_free_games_with_drawn_multipliers_equal_the_renewal_formula(write_game, combine):
    # The free spins draw their wilds' multipliers too.  From the literal
    # enumerations of spin_law (base reels, free reels):
    #   p  = P(2+ S in the free window), E[K] = 3 p (3 games per retrigger),
    #   E[Y] = E[free spin win], P_base = P(2+ S in the base window);
    #   free_games = P_base x 3 / (1 - 3 p) x 2 x E[Y]   (N / (1 - N p) games at x2)
    game = free_game(write_game, combine)
    base = spin_law([s.symbols for s in game.strips("base")], combine)
    free = spin_law(FREE_STRIPS, combine)
    p = sum(q for (_, c), q in free.items() if c >= 2)
    mean_y = sum(x * q for (x, _), q in free.items())
    p_base = sum(q for (_, c), q in base.items() if c >= 2)
    want = p_base * F(3) / (1 - 3 * p) * 2 * mean_y
    lines = sum(x * q for (x, _), q in base.items())
    result = analyse(game, 1)
    assert result.components == {"lines": lines, "free_games": want}
    assert components(game, 1) == {"lines": lines, "free_games": want}
    assert result.rtp == lines + want


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_sampler_agrees_with_drawn_multipliers_in_free_games(write_game, combine):
    game = free_game(write_game, combine)
    exact = analyse(game, 1)
    n = 1_000_000
    comp = round_components(game, 1, n, 3)
    z = {}
    for j, name in enumerate(COMPONENTS):
        e = float(exact.components.get(name, 0))
        se = comp[:, j].std() / n**0.5
        assert se > 0 or comp[:, j].mean() == e == 0, name
        z[name] = 0.0 if se == 0 else (comp[:, j].mean() - e) / se
    assert exact.components["free_games"] > 0
    assert all(abs(v) < 4 for v in z.values()), z


@pytest.mark.parametrize(
    "edit, field",
    [
        (("[3, 1]]}", "[2, 1]]}"), "wild_multipliers.table[1][0]: multiplier 2 is listed twice"),
        (("[[2, 3], [3, 1]]", "[[1.5, 3]]"), "wild_multipliers.table[0][0]: must be a whole number"),
        (("[[2, 3], [3, 1]]", "[[2, 0]]"), "wild_multipliers.table: all weights are zero"),
        (("table: [[2, 3], [3, 1]]", "table: 2"), "options.wild_multipliers.table: must be a non-empty list"),
        (("symbol: W, table", "symbol: A, table"), "wild_multipliers.symbol: 'A' must be a wild symbol"),
        (("symbol: W, table", "wild: W, table"), "options.wild_multipliers.wild: unknown key"),
        (("[3, 1]]}", "[3, 1]], combine: sum}"), "combine: 'sum' is not one of ['multiply', 'add']"),
        (("all}", "all, multiplier: {per_wild: 2}}"), "options.wild_multipliers.symbol: 'W' already"),
        # x102 on each of 3 reels: 102**3 = 1,061,208 >= 2**20 (added: 3 x 102 = 306, played below)
        (("[[2, 3], [3, 1]]", "[[102, 3]]"), "table: a line's multiplier reaches 1,061,208; the engine"),
    ],
)
def test_bad_declarations_are_one_line(write_game, edit, field):
    text = GAME.replace("COMBINE", "").replace("FREE", "").replace("S_SYMBOL", "")
    assert edit[0] in text
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text.replace(*edit)))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_a_top_win_beyond_the_exact_range_is_refused(write_game):
    # 1e9 coins at bet level 1, 1e11 at level 100, x100 drawn on 3 reels (100**3 = 1e6 < 2**20),
    # 2 lines: 2e17 coins reach 2**53 win units (undrawn, 2e11 coins do not)
    text = GAME.replace("[[2, 3], [3, 1]]", "[[100, 1]]").replace("pay: 8}", "pay: 1000000000}")
    text = text.replace("levels: [1]", "levels: [1, 100]").replace("COMBINE", "")
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text.replace("FREE", "").replace("S_SYMBOL", "")))
    assert "options.wild_multipliers.table: the largest win of one spin (2e+17 coins" in str(err.value)
    assert "\n" not in str(err.value)


def test_added_multipliers_keep_a_table_the_product_would_overflow(write_game):
    # x102 drawn on 3 reels: at most 3 x 102 = 306 added on a line (multiplied: refused above);
    # every W draws x102, so the RTP is the worked-by-hand one with the W's mean 9/4 -> 102:
    #   8 x (P(A A A) + 102 x 27/64) = 8 x (2 + 2754)/64 = 689/2
    text = GAME.replace("[[2, 3], [3, 1]]", "[[102, 3]]").replace("COMBINE", ", combine: add")
    game = load_game(write_game(text.replace("FREE", "").replace("S_SYMBOL", "")))
    assert analyse(game, 1).rtp == F(689, 2)


def test_a_feature_triggered_by_the_multiplier_wild_is_refused(write_game):
    more = "  free_games: {symbol: W, reels: base, awards: {3: {games: 1}}}\n"
    with pytest.raises(GameFileError, match="options.free_games.symbol: 'W' has drawn multipliers"):
        game_of(write_game, more=more)


def test_a_cycle_beyond_the_engine_range_keeps_its_exact_rtp(write_game):
    # a table of total weight 2**31 per wild: written as stops the cycle
    # leaves int64, so the distribution is listed without the rewrite
    # (float64, tests/test_drawn_law.py), and the RTP is the worked-by-hand
    # one with the mean (2 (2**31 - 1) + 3) / 2**31:
    #   RTP = 8 x (1/4 + (2/4) mu)(1/4 + (1/4) mu)(2/4 + (1/4) mu)
    text = GAME.replace("table: [[2, 3], [3, 1]]", "table: [[2, 2147483647], [3, 1]]")
    game = load_game(write_game(text.replace("COMBINE", "").replace("FREE", "").replace("S_SYMBOL", "")))
    mu = F(2 * (2**31 - 1) + 3, 2**31)
    want = 8 * (F(1, 4) + F(2, 4) * mu) * (F(1, 4) + F(1, 4) * mu) * (F(2, 4) + F(1, 4) * mu)
    assert components(game, 1) == {"lines": want}
    result = analyse(game, 1)
    assert result.rtp == want and not result.distribution.exact
    assert float(result.distribution.mean) == pytest.approx(float(want), rel=1e-13)
    assert any("not written as stops" in n for n in result.notes)


@pytest.mark.parametrize("weights", [(2**62, 2**62 + 1), (2**63, 2**63)])
def test_weights_beyond_int64_validate_and_keep_the_exact_rtp(write_game, weights):
    # weights summing to 2**63 and more: Python integers throughout; the
    # second table reduces by its gcd 2**63 to weights 1 and 1 (mean 5/2),
    # whose rewrite fits (the distribution is computed, over the cycle of
    # the table [[2, 1], [3, 1]]); the first keeps its weights
    from conftest import run_cli

    text = GAME.replace("table: [[2, 3], [3, 1]]", f"table: [[2, {weights[0]}], [3, {weights[1]}]]")
    path = write_game(text.replace("COMBINE", "").replace("FREE", "").replace("S_SYMBOL", ""))
    proc = run_cli("validate", path.parent)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    game = load_game(path)
    mu = F(2 * weights[0] + 3 * weights[1], sum(weights))
    want = 8 * (F(1, 4) + F(2, 4) * mu) * (F(1, 4) + F(1, 4) * mu) * (F(2, 4) + F(1, 4) * mu)
    assert components(game, 1) == {"lines": want}
    if weights[0] == weights[1]:
        assert analyse(game, 1).rtp == want and analyse(game, 1).cycle == (4 * 2**2) * (4 * 2) * (4 * 2)


def test_table_weights_are_reduced_by_their_gcd(write_game):
    # weights 30 and 10 are the law of 3 and 1: the same figures and the same
    # (rewritten) cycle 16384 as the worked example
    text = GAME.replace("[[2, 3], [3, 1]]", "[[2, 30], [3, 10]]").replace("COMBINE", "")
    game = load_game(write_game(text.replace("FREE", "").replace("S_SYMBOL", "")))
    from slotmath.features.wildmult import load_wild_multipliers

    assert load_wild_multipliers(game).table == ((2, 3), (3, 1))
    result = analyse(game, 1)
    assert result.rtp == F(2431, 256) and result.cycle == 16384


def test_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md "Worked example: wild multipliers": RTP 2431/256 (949.6094 %), cycle 16384
    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: wild multipliers")
    result = analyse(game, 1)
    assert result.rtp == F(2431, 256) and f"{float(result.rtp):.4%}" == "949.6094%"
    assert result.cycle == 16384 and "= 2431/256`" in section and "= 16384`" in section


def test_added_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md "Worked example: wild multipliers added": RTP 251/32 (784.3750 %),
    # and its window by hand: stops (1, 0, 1), reel 1 draws x3 (row 0) and x2 (row 1),
    # reels 2 and 3 draw x2 and x3: row 0 pays 8 x 3 = 24, row 1 8 x (2 + 2 + 3) = 56
    from slotmath.engine.evaluate import line_wins, window_at
    from slotmath.engine.lines import pay_tensor
    from slotmath.features.wildmult import played_game

    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: wild multipliers added")
    assert game.options["wild_multipliers"]["combine"] == "add"
    result = analyse(game, 1)
    assert result.rtp == F(251, 32) and f"{float(result.rtp):.4%}" == "784.3750%"
    assert result.cycle == 16384 and "RTP = `251/32` (784.3750 %" in section
    played = played_game(game)
    idx = played.symbol_index
    drawn = [["Wx3", "Wx2"], ["A", "Wx2"], ["A", "Wx3"]]  # reel by reel, rows 0 and 1
    stops = []
    for r, col in enumerate(drawn):  # the rewritten stop showing that window, and its share
        strip = played.strips("base")[r]
        weights = strip.stop_weights()
        s = next(s for s in range(len(strip)) if weights[s] and list(strip.symbols[s : s + 2]) == col)
        stops.append(s)
        share = F(int(weights[s]), int(weights.sum()))
        assert share == [F(1, 4) * F(1, 4) * F(3, 4), F(1, 4) * F(3, 4), F(1, 4) * F(1, 4)][r]
    assert line_wins(played, 1, window_at(played, stops)[None]).tolist() == [[24, 56]]
    tensor = pay_tensor(played, 1).reshaped()
    assert tensor[idx["Wx3"], idx["A"], idx["A"]] == 24 and tensor[idx["Wx2"], idx["Wx2"], idx["Wx3"]] == 56
    assert "`8 x 3 = 24`" in section and "`8 x (2 + 2 + 3) = 56`" in section and "9/256" in section


def test_a_reel_without_the_wild_keeps_its_strip(write_game):
    # reel 3 [A, A, X, X] shows no W: E[f_3] = 2/4, so
    #   RTP = 8 x (11/8)(13/16)(1/2) = 143/32; reel 3 is not rewritten (4 stops, unweighted)
    text = GAME.replace("[A, A, W, X]", "[A, A, X, X]").replace("COMBINE", "").replace("FREE", "")
    text = text.replace("S_SYMBOL", "")
    game = load_game(write_game(text))
    result = analyse(game, 1)
    assert result.rtp == F(143, 32)
    assert result.cycle == (4 * 4**2) * (4 * 4) * 4


# the 2x2 hold-and-spin of test_holdspin (lines on rows 0 and 1, A A pays 3 coins
# of a total bet of 2; 2+ COIN start 2 respins) with W on the base reels (two
# in one window of reel 1) and on the feature reels (in place of a B: the
# COIN stops, which alone decide the respins, are unchanged)
HS_BASE = [["COIN", "W", "W", "A", "COIN", "B"], ["A", "COIN", "W", "B", "W"]]
HS_FEATURE = [["COIN", "W", "B"], ["COIN", "COIN", "W", "A", "B"]]


def hold_and_spin_game(tmp_path, feature, combine):
    from test_holdspin import small_game_data
    from test_holdspin import write_game as write_folder

    data = small_game_data(feature)
    data["symbols"].append({"name": "W", "kind": "wild", "substitutes": "all"})
    # the respin reel set only where the feature reads it (validate refuses an unread set)
    data["reels"] = {"base": HS_BASE, **({"feature": HS_FEATURE} if "reels" in feature else {})}
    data["options"]["wild_multipliers"] = {"symbol": "W", "table": [[2, 3], [3, 1]], "combine": combine}
    return write_folder(tmp_path, data)


def hold_and_spin_round_law(feature, combine):
    """Law of the round's win [x total bet]: every base stop pair, every
    draw of every W in the window (weights 3 and 1 of 4), the lines paid
    literally, then the award law of the window's coins (test_holdspin's
    enumeration of every respin and prize)."""
    from test_holdspin import award_law, final_masks

    join = np.prod if combine == "multiply" else sum
    law: dict = {}
    for stops in product(range(6), range(5)):
        window = [[s[(stop + k) % len(s)] for k in range(2)] for s, stop in zip(HS_BASE, stops, strict=True)]
        mask = sum(1 << (r * 2 + k) for r in range(2) for k in range(2) if window[r][k] == "COIN")
        awards = {F(0): F(1)}
        if bin(mask).count("1") >= 2:
            awards = {}
            for m, q in final_masks(feature, mask, 2, 2).items():
                for v, pv in award_law(bin(mask).count("1"), bin(m).count("1")).items():
                    awards[v] = awards.get(v, 0) + q * pv  # prizes [x total bet]
        cells = [(r, k) for r in range(2) for k in range(2) if window[r][k] == "W"]
        for draw in product(TABLE, repeat=len(cells)):
            mult = dict(zip(cells, draw, strict=True))
            p = F(1, 30)
            for m in draw:
                p *= F(TABLE[m], 4)
            coins = 0
            for k in range(2):
                drawn = [mult[(r, k)] for r in range(2) if (r, k) in mult]
                if all(window[r][k] in ("A", "W") for r in range(2)):
                    coins += 3 * (join(drawn) if drawn else 1)
            for v, q in awards.items():
                law[F(coins, 2) + v] = law.get(F(coins, 2) + v, 0) + p * q
    return law


@pytest.mark.parametrize("combine", ["multiply", "add"])
@pytest.mark.parametrize("name", ["CELLS", "REELS", "STRIP_CELLS"])
def test_beside_a_hold_and_spin_equals_enumeration(tmp_path, name, combine):
    # the round's exact RTP (a Fraction) and its win law against the literal round.
    # CELLS' landing probabilities differ by row and REELS lands whole reels, so
    # the award depends on the rows of the coins: the round keys the base win by
    # their row pattern (the per-reel counts alone would pair them wrongly)
    import test_holdspin

    feature = getattr(test_holdspin, name)
    game = hold_and_spin_game(tmp_path, feature, combine)
    law = hold_and_spin_round_law(feature, combine)
    result = analyse(game, 1)
    assert isinstance(result.rtp, F) and result.rtp == sum(x * p for x, p in law.items())
    assert set(result.components) == {"lines", "hold_and_spin"}
    d = result.distribution
    got = dict(zip(d.x.tolist(), d.probabilities.tolist(), strict=True))
    assert got.keys() == {float(x) for x, p in law.items() if p}
    for x, p in law.items():
        assert got[float(x)] == pytest.approx(float(p), rel=1e-12)


def test_beside_a_hold_and_spin_the_sampler_agrees(tmp_path):
    # the compiled hold-and-spin sampler on the rewritten stops: 1e6 rounds
    from test_holdspin import REELS

    from slotmath.rules.linegame import simulate

    game = hold_and_spin_game(tmp_path, REELS, "add")
    sim = simulate(game, 1, 1_000_000, seed=11)
    assert abs(sim.rtp.z) < 4 and abs(sim.hit_frequency.z) < 4, (sim.rtp, sim.hit_frequency)


# 3 reels x 2 rows, lines on each row (total bet 2 coins).  W substitutes for
# everything and multiplies its own pay 3 W (multiply_own_pays); V substitutes
# for A only with a fixed x2 per V; W draws x1 (weight 1), x2 (3) or x5 (1).
RICH = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols:
  - {name: A}
  - {name: B}
  - {name: X, kind: blank}
  - {name: W, kind: wild, substitutes: all, multiply_own_pays: true}
  - {name: V, kind: wild, substitutes: [A], multiplier: {per_wild: 2}}
reels:
  base: [[A, W, W, B, V], [W, A, B, V, X], [A, W, B, W, X]]
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 8}, {symbol: B, count: 3, pay: 5}, {symbol: W, count: 3, pay: 20}]
options:
  wild_multipliers: {symbol: W, table: [[1, 1], [2, 3], [5, 1]], combine: COMBINE}
"""
RICH_TABLE = {1: 1, 2: 3, 5: 1}


def rich_line(row, drawn, combine):
    """Highest (win [coins], pay name, multiplier) of one line, from the rules
    as written: a symbol pays where it shows or a wild stands in for it; a W
    counts where it stands in, and in 3 W (its own pay, multiply_own_pays);
    the counted W's drawn multipliers are multiplied or added (x1 without
    one), each V standing in multiplies by 2."""
    stands_in = {"A": ("W", "V"), "B": ("W",), "W": ()}
    best = (0, None, 1)
    for name, symbol, pay in (("3 x A", "A", 8), ("3 x B", "B", 5), ("3 x W", "W", 20)):
        if not all(s == symbol or s in stands_in[symbol] for s in row):
            continue
        counted = [m for s, m in zip(row, drawn, strict=True) if s == "W"]
        factor = 2 ** row.count("V") if symbol == "A" else 1
        if counted:
            factor *= int(np.prod(counted)) if combine == "multiply" else sum(counted)
        if pay * factor > best[0]:
            best = (pay * factor, name, factor)
    return best


def rich_enumeration(game, combine):
    """Law of the spin win [x total bet] and expected hits per spin of every
    (pay, multiplier), listing every stop combination and every draw of
    every W in the window (independent draws of RICH_TABLE)."""
    strips = [s.symbols for s in game.strips("base")]
    total = sum(RICH_TABLE.values())
    law: dict = {}
    hits: dict = {}
    for stops in product(*(range(len(s)) for s in strips)):
        window = [[s[(stop + k) % len(s)] for k in range(2)] for s, stop in zip(strips, stops, strict=True)]
        cells = [(r, k) for r in range(3) for k in range(2) if window[r][k] == "W"]
        for draw in product(RICH_TABLE, repeat=len(cells)):
            mult = dict(zip(cells, draw, strict=True))
            p = F(1, len(strips[0]) * len(strips[1]) * len(strips[2]))
            for m in draw:
                p *= F(RICH_TABLE[m], total)
            win = 0
            for k in range(2):
                row = [window[r][k] for r in range(3)]
                coins, name, factor = rich_line(row, [mult.get((r, k)) for r in range(3)], combine)
                win += coins
                if coins:
                    hits[(name, factor)] = hits.get((name, factor), 0) + p
            law[F(win, 2)] = law.get(F(win, 2), 0) + p
    return law, hits


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_own_pays_and_a_fixed_wild_equal_enumeration(write_game, combine):
    # the RTP, the spin distribution and every combination-table row (one per
    # pay and multiplier) against the literal rules of rich_line
    game = load_game(write_game(RICH.replace("COMBINE", combine)))
    law, hits = rich_enumeration(game, combine)
    result = analyse(game, 1)
    assert result.rtp == sum(x * p for x, p in law.items())
    dist = result.distribution
    scale = dist.unit_den * dist.total_bet
    got = {F(int(w), scale): F(int(c), dist.total) for w, c in zip(dist.wins, dist.weights, strict=True)}
    assert got == {x: p for x, p in law.items() if p}
    rows = {
        (r.combination, int(r.multiplier)): F(int(r.hits), result.cycle)
        for r in result.combinations.itertuples()
        if r.kind == "line"
    }
    assert rows == hits
    if combine == "add":  # sums no product makes: 3 W drawn x1 pay 20 x (1 + 1 + 1); 2 + 5 = 7
        assert ("3 x W", 3) in rows and ("3 x A", 7) in rows and ("3 x B", 7) in rows


def test_simulate_command_agrees_with_added_multipliers(write_game):
    # `slotmath simulate` plays the rewritten stops with the compiled sampler:
    # 1e6 rounds, RTP and hit frequency within 4 standard errors of the exact
    # figures (17.5312 = 10957/625 and 0.696, from the enumeration above)
    import json

    from conftest import run_cli

    path = write_game(RICH.replace("COMBINE", "add"))
    game = load_game(path)
    result = analyse(game, 1)
    proc = run_cli("simulate", path.parent, "--spins", "1000000", "--seed", "5", "--json", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rtp"]["exact"] == pytest.approx(float(result.rtp), rel=1e-12)
    assert out["hit_frequency"]["exact"] == pytest.approx(result.hit_frequency, rel=1e-12)
    assert abs(out["rtp"]["z"]) < 4 and abs(out["hit_frequency"]["z"]) < 4, (out["rtp"], out["hit_frequency"])


@SETTINGS_FEW
@given(data=games(), pick=st.integers(0, 2), summed=st.integers(0, 7))
def test_pay_tensor_adds_the_summed_kinds(data, pick, summed):
    # random small games whose wilds without a by_count table are made summed
    # kinds by the bits of `summed`: both builds of the pay tensor equal the
    # rule written out here -- each candidate pay x the product of the other
    # kinds' multipliers x (the sum of per_wild over its counted summed wilds, or 1)
    import dataclasses

    from slotmath.engine.lines import compile_pays, pay_tensor_by_tuple, pay_tensor_pruned

    from test_engine_properties import rule_line_win

    game = load(data)
    wilds = [s.name for s in game.symbols if s.wild and s.wild.by_count is None]
    marked = {w for i, w in enumerate(wilds) if summed >> i & 1}
    symbols = tuple(
        dataclasses.replace(s, wild=dataclasses.replace(s.wild, summed=True)) if s.name in marked else s
        for s in game.symbols
    )
    game = dataclasses.replace(game, symbols=symbols)
    level = game.levels[pick % len(game.levels)]
    li = game.level_index(level)

    cp = compile_pays(game, level)
    S, R = len(game.symbols), game.reels
    full, pruned = pay_tensor_by_tuple(S, R, cp.arrays), pay_tensor_pruned(S, R, cp.arrays)
    for a, b in zip(full, pruned, strict=True):
        np.testing.assert_array_equal(a, b)
    names = game.symbol_names
    for t in range(0, S**R, max(1, S**R // 1500)):
        x = [names[i] for i in np.unravel_index(t, (S,) * R)]
        assert full[0][t] == rule_line_win(game, li, x), x


# 3 reels x 2 rows, lines on each row (total bet 2 coins).  W substitutes for
# A and B and pays 3 W = 30 of its own, not multiplied (no multiply_own_pays);
# V stands in for A only at a fixed x2 per V; W draws x1 (weight 1), x2 (3)
# or x5 (1).  A line W W W pays the larger of 30 and 3 x A = 8 x M: which pay
# wins depends on the draws (add: M = 3 .. 15, multiply: M = 1 .. 125), as
# it does for W W V (30 against 8 x 2 x M(2)).
MIXED = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols:
  - {name: A}
  - {name: B}
  - {name: X, kind: blank}
  - {name: W, kind: wild, substitutes: [A, B]}
  - {name: V, kind: wild, substitutes: [A], multiplier: {per_wild: 2}}
reels:
  base: [[A, W, W, B, V, X], [W, A, B, V, X, W], [A, W, B, W, X, V]]
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 8}, {symbol: B, count: 3, pay: 5}, {symbol: W, count: 3, pay: 30}]
options:
  wild_multipliers: {symbol: W, table: [[1, 1], [2, 3], [5, 1]], combine: COMBINE}
"""


def mixed_line(row, drawn, combine):
    """Highest win [coins] of one MIXED line from the rules as written: A
    pays where A, W or V show (x2 per V, W's draws multiplied or added), B
    where B or W show (W's draws), 3 W its 30 unmultiplied."""
    best = 30 if row == ["W", "W", "W"] else 0
    for symbol, pay, stands_in in (("A", 8, ("W", "V")), ("B", 5, ("W",))):
        if all(s == symbol or s in stands_in for s in row):
            counted = [m for s, m in zip(row, drawn, strict=True) if s == "W"]
            factor = 2 ** row.count("V")
            if counted:
                factor *= int(np.prod(counted)) if combine == "multiply" else sum(counted)
            best = max(best, pay * factor)
    return best


def enumerate_lines(strips, table, line_win, combine):
    """Mean spin win [coins] of a 3x2 two-line game: every stop combination
    and every draw of every W in the window (independent draws of ``table``)."""
    total = sum(table.values())
    mean = F(0)
    cycle = int(np.prod([len(s) for s in strips]))
    for stops in product(*(range(len(s)) for s in strips)):
        window = [[s[(stop + k) % len(s)] for k in range(2)] for s, stop in zip(strips, stops, strict=True)]
        cells = [(r, k) for r in range(3) for k in range(2) if window[r][k] == "W"]
        for draw in product(table, repeat=len(cells)):
            mult = dict(zip(cells, draw, strict=True))
            p = F(1, cycle)
            for m in draw:
                p *= F(table[m], total)
            for k in range(2):
                row = [window[r][k] for r in range(3)]
                mean += p * line_win(row, [mult.get((r, k)) for r in range(3)], combine)
    return mean


@pytest.mark.parametrize("combine", ["multiply", "add"])
@pytest.mark.parametrize("which", ["GAME", "RICH", "MIXED"])
def test_counted_wilds_law_equals_enumeration(write_game, combine, which):
    # the line figures from the law of the counted wilds (no rewrite) against
    # every stop combination x every draw: the RTP, each line's RTP, the
    # combination rows summing to it with integer hits over the game's own
    # cycle; on GAME and RICH also the rewrite's RTP (where it fits)
    from slotmath.features.wilddraws import drawn_line_figures

    text = {
        "GAME": GAME.replace("COMBINE", f", combine: {combine}").replace("FREE", "").replace("S_SYMBOL", ""),
        "RICH": RICH.replace("COMBINE", combine),
        "MIXED": MIXED.replace("COMBINE", combine),
    }[which]
    game = load_game(write_game(text))
    strips = [s.symbols for s in game.strips("base")]
    if which == "GAME":  # spin_law's wins are per total bet (2 coins)
        want = sum((x * p for (x, _), p in spin_law(strips, combine).items()), F(0))
    else:
        line = mixed_line if which == "MIXED" else (lambda *a: rich_line(*a)[0])
        want = enumerate_lines(strips, RICH_TABLE, line, combine) / 2
    drawn = drawn_line_figures(game, 1)
    assert drawn.rtp == want
    assert drawn.per_line == [want, want]  # both rows show each strip's law
    assert sum((r["rtp_exact"] for r in drawn.rows), F(0)) == want
    assert all(isinstance(r["hits"], int) and 0 < r["hits"] <= 2 * game.cycle() for r in drawn.rows)
    if which == "MIXED":  # a draw decides W W W between 3 x W and 3 x A (3 x B matches too)
        assert any(r["combination"] == "3 x A or 3 x B or 3 x W" for r in drawn.rows)
    assert analyse(game, 1).rtp == want  # the rewrite fits these: the same RTP


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_free_games_without_the_rewrite_equal_the_renewal_formula(write_game, combine):
    # drawn_components (the free spin's mean moved by the drawn lines, Wald's
    # identity) against the enumeration and the renewal formula of
    # test_free_games_with_drawn_multipliers_equal_the_renewal_formula
    from slotmath.rules.linegame import drawn_components

    game = free_game(write_game, combine)
    base = spin_law([s.symbols for s in game.strips("base")], combine)
    free = spin_law(FREE_STRIPS, combine)
    p = sum(q for (_, c), q in free.items() if c >= 2)
    mean_y = sum(x * q for (x, _), q in free.items())
    p_base = sum(q for (_, c), q in base.items() if c >= 2)
    lines = sum(x * q for (x, _), q in base.items())
    assert drawn_components(game, 1) == {
        "lines": lines,
        "free_games": p_base * F(3) / (1 - 3 * p) * 2 * mean_y,
    }


def test_count_laws_are_the_k_fold_sums_and_products():
    # x2 (weight 3) and x3 (weight 1): two wilds added give 4, 5, 6 with
    # probabilities 9/16, 6/16, 1/16 (mean 2 x 9/4 = 9/2); multiplied 4, 6, 9
    # (mean (9/4)**2 = 81/16); no wild: x1
    from slotmath.features.wilddraws import count_law, count_mean
    from slotmath.features.wildmult import WildMultipliers

    add, mul = (
        WildMultipliers("W", ((2, 3), (3, 1)), "add"),
        WildMultipliers("W", ((2, 3), (3, 1)), "multiply"),
    )
    assert count_law(add, 2) == {4: F(9, 16), 5: F(6, 16), 6: F(1, 16)} and count_mean(add, 2) == F(9, 2)
    assert count_law(mul, 2) == {4: F(9, 16), 6: F(6, 16), 9: F(1, 16)} and count_mean(mul, 2) == F(81, 16)
    for spec in (add, mul):
        assert count_law(spec, 0) == {1: 1} and count_mean(spec, 0) == 1
        for k in range(4):
            assert sum(m * p for m, p in count_law(spec, k).items()) == count_mean(spec, k)


LINES_GAME = "drawn_wild_lines"  # tests/data: 5x3, 20 lines, free-spin wilds draw x2/x3/x5/x10 added


def test_a_lines_game_with_drawn_free_spin_wilds_computes_in_seconds(monkeypatch):
    # written as stops its free reels' cycle is 3.7e+19 (with 48 stop classes
    # of 44 million states on reel 5 even where the counts fit): the exact RTP
    # comes from the counted wilds' law in seconds; with the window bound set
    # below its free reels' 3.72e+08 windows (its distribution takes minutes:
    # tests/test_drawn_law.py) the distribution is refused in one line that
    # gives it
    import time

    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import drawnlaw

    from conftest import TEST_DATA

    monkeypatch.setattr(drawnlaw, "MAX_DRAWN_WINDOWS", 10**8)

    game = load_game(TEST_DATA / LINES_GAME)
    components(game, 1)  # compiles the kernel
    start = time.perf_counter()
    parts = components(game, 1)
    took = time.perf_counter() - start
    assert took < 30, took
    assert set(parts) == {"lines", "scatters", "free_games"} and all(isinstance(v, F) for v in parts.values())
    rtp = sum(parts.values(), F(0))
    assert 0.9 < rtp < 1.0 and 0 < parts["free_games"] < F(1, 20)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    assert "\n" not in message and f"the round's exact RTP is {float(rtp):.6%} = {rtp.numerator}/" in message
    # the figures docs/features.md states for it
    from conftest import ROOT

    page = " ".join((ROOT / "docs" / "features.md").read_text(encoding="utf-8").split())
    stated = [
        f"{float(rtp):.6%}",
        *(
            f"{name} `{float(parts[k]):.6%}"
            for name, k in [("lines", "lines"), ("scatters", "scatters"), ("free games", "free_games")]
        ),
    ]
    for text in stated:
        assert text.replace("%", " %") in page, text


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_the_lines_game_free_spin_law_agrees_with_sampled_draws(tmp_path, combine):
    # independent check of the free reels' line RTP: 300,000 free windows,
    # every M drawing its multiplier, each line paid by the rewrite's pay
    # tensor (each drawn M as its variant Mx2 .. Mx10); |z| < 4 (the game as
    # given, and with its multipliers multiplied)
    import dataclasses

    from slotmath.engine.lines import pay_tensor
    from slotmath.features.wilddraws import drawn_line_figures
    from slotmath.features.wildmult import played_game, variant_name
    from slotmath.model import Strip

    from conftest import TEST_DATA

    text = (TEST_DATA / LINES_GAME / "game.yaml").read_text(encoding="utf-8")
    (tmp_path / "game.yaml").write_text(text.replace("combine: add", f"combine: {combine}"), encoding="utf-8")
    game = load_game(tmp_path / "game.yaml")
    exact = drawn_line_figures(game, 1, "free").rtp
    # the pay tensor depends on the symbols and pays only: rewrite a copy on tiny strips
    tiny = {name: tuple(Strip(s.symbols[:3]) for s in strips) for name, strips in game.reel_sets.items()}
    played = played_game(dataclasses.replace(game, reel_sets=tiny))
    tensor = pay_tensor(played, 1).reshaped()
    idx, S = played.symbol_index, len(played.symbols)
    spec = played.options["wild_multipliers"]
    rng = np.random.default_rng(23)
    n, R, H = 300_000, game.reels, game.rows
    cells = np.empty((n, R, H), dtype=np.int64)
    for r, strip in enumerate(game.strips("free")):
        sym = np.array([idx[x] for x in strip.symbols])
        stops = rng.integers(0, len(sym), n)
        cells[:, r, :] = sym[(stops[:, None] + np.arange(H)) % len(sym)]
    values = np.array([m for m, _ in spec.table])
    p = np.array([w for _, w in spec.table], dtype=float)
    draws = rng.choice(len(values), size=cells.shape, p=p / p.sum())
    variants = np.array([idx[variant_name("M", int(m))] for m in values])
    cells = np.where(cells == idx["M"], variants[draws], cells)
    win = np.zeros(n)
    for line in game.paylines:
        win += tensor[tuple(cells[:, r, line[r]] for r in range(R))]
    x = win / game.bet(1).total_bet
    z = (x.mean() - float(exact)) / (x.std() / n**0.5)
    assert abs(z) < 4, (x.mean(), float(exact), z)
    assert S == len(game.symbols) + len(spec.table)


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_beside_a_hold_and_spin_without_the_rewrite_equals_enumeration(tmp_path, combine):
    # drawn_components keeps the hold-and-spin of the game without the draws
    # (its coins are not wilds): equal to the literal round's mean
    import test_holdspin

    from slotmath.rules.linegame import drawn_components

    game = hold_and_spin_game(tmp_path, test_holdspin.REELS, combine)
    law = hold_and_spin_round_law(test_holdspin.REELS, combine)
    parts = drawn_components(game, 1)
    assert set(parts) == {"lines", "hold_and_spin"}
    assert sum(parts.values(), F(0)) == sum(x * p for x, p in law.items())


def test_a_rewrite_beyond_the_work_limit_is_refused_with_the_exact_rtp(write_game, monkeypatch):
    # the rewrite's counts fit, but its joint pass would exceed the engine's
    # work limit (set to 10 line steps here): one line with the exact RTP 251/32
    from slotmath.engine import limits
    from slotmath.engine.limits import EngineTooLarge

    monkeypatch.setattr(limits, "MAX_LINE_STEPS", 10)
    game = game_of(write_game, combine=", combine: add")
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    assert "\n" not in message and "the exact distribution is still too large" in message
    assert "the round's exact RTP is 784.375000% = 251/32 (lines 784.375000%)" in message


def test_a_round_cap_beside_unfitting_draws_gives_the_capped_components(write_game):
    # a capped round is not linear in the line wins: with draws that do not
    # fit as stops its components are the capped law's (the law without the
    # rewrite, tests/test_drawn_cap.py), never the uncapped ones: the lines
    # exact from the counted wilds, the cap's cut float and negative (A A A
    # pays 8 coins, x2 or x3 per W: above the cap of 10 coins)
    from slotmath.rules.linegame import drawn_channel_rtp

    text = GAME.replace("table: [[2, 3], [3, 1]]", "table: [[2, 2147483647], [3, 1]]")
    text = text.replace("COMBINE", "").replace("FREE", "").replace("S_SYMBOL", "")
    game = load_game(write_game(text + "  round_cap: 5\n"))
    parts = components(game, 1)
    assert set(parts) == {"lines", "round_cap"}
    assert isinstance(parts["lines"], F) and parts["lines"] == drawn_channel_rtp(game, 1)
    assert isinstance(parts["round_cap"], float) and parts["round_cap"] < 0
    assert analyse(game, 1).rtp == pytest.approx(float(parts["lines"]) + parts["round_cap"], rel=1e-15)
