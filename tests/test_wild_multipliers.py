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

from slotmath.io.gamefile import GameFileError, load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse, components

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
    assert analyse(game, 1).rtp == F(251, 32)
    assert components(game, 1) == {"lines": F(251, 32)}


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_spin_law_equals_enumeration(write_game, combine):
    # every stop of every reel (4^3), every multiplier of every W in the window
    # (drawn independently, weights 3 and 1 of 4), both lines paid literally:
    # the drawn multipliers of the W on a line multiplied or added
    game = game_of(write_game, combine=f", combine: {combine}")
    join = np.prod if combine == "multiply" else sum
    strips = [s.symbols for s in game.strips("base")]
    law: dict = {}
    for stops in product(range(4), repeat=3):
        window = [[strips[r][(stops[r] + k) % 4] for k in range(2)] for r in range(3)]
        cells = [(r, k) for r in range(3) for k in range(2) if window[r][k] == "W"]
        for draw in product(TABLE, repeat=len(cells)):
            mult = dict(zip(cells, draw, strict=True))
            p = F(1, 64)
            for m in draw:
                p *= F(TABLE[m], 4)
            win = 0
            for k in range(2):
                row = [window[r][k] for r in range(3)]
                drawn = [mult[(r, k)] for r in range(3) if (r, k) in mult]
                if all(s in ("A", "W") for s in row):
                    win += 8 * (join(drawn) if drawn else 1)
            x = F(int(win), 2)
            law[x] = law.get(x, 0) + p
    result = analyse(game, 1)
    assert result.rtp == sum(x * p for x, p in law.items())
    dist = result.distribution
    assert dist.exact  # integer counts over the rewritten cycle
    scale = dist.unit_den * dist.total_bet
    got = {F(int(w), scale): F(int(c), dist.total) for w, c in zip(dist.wins, dist.weights, strict=True)}
    assert got == {x: p for x, p in law.items() if p}


def test_sampler_agrees_with_drawn_multipliers_in_free_games(write_game):
    # an S on every base reel; free games on their own reels with W too:
    # 2+ S give 3 games at x2, retriggerable
    text = GAME.replace("COMBINE", "").replace("S_SYMBOL", ", {name: S, kind: scatter}")
    free = "[[A, W, S, X, X, A], [W, A, X, S, X, X], [A, X, W, W, X, S]]"
    text = text.replace("W, X]]FREE", f"W, X, S]]\n  free: {free}")
    text = text.replace("[A, W, W, X]", "[A, W, W, X, S]").replace("[A, W, X, X]", "[A, W, X, X, S]")
    more = "  free_games: {symbol: S, reels: free, multiplier: 2, awards: {2: {games: 3}}}\n"
    game = load_game(write_game(text + more))
    assert [len(s) for s in game.strips("base")] == [5, 5, 5]
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
        (("[3, 1]]}", "[3, 1]], combine: sum}"), "wild_multipliers.combine: must be one of multiply, add"),
        (("all}", "all, multiplier: {per_wild: 2}}"), "options.wild_multipliers.symbol: 'W' already"),
    ],
)
def test_bad_declarations_are_one_line(write_game, edit, field):
    text = GAME.replace("COMBINE", "").replace("FREE", "").replace("S_SYMBOL", "")
    assert edit[0] in text
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text.replace(*edit)))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_a_feature_triggered_by_the_multiplier_wild_is_refused(write_game):
    more = "  free_games: {symbol: W, reels: base, awards: {3: {games: 1}}}\n"
    with pytest.raises(GameFileError, match="options.free_games.symbol: 'W' has drawn multipliers"):
        game_of(write_game, more=more)


def test_cycle_beyond_the_engine_range_is_refused(write_game):
    # a table of total weight 2**31 per wild: the rewritten cycle leaves int64
    edit = "table: [[2, 2147483647], [3, 1]]"
    with pytest.raises(GameFileError, match="options.wild_multipliers.table: reel set 'base'"):
        load_game(
            write_game(
                GAME.replace("table: [[2, 3], [3, 1]]", edit)
                .replace("COMBINE", "")
                .replace("FREE", "")
                .replace("S_SYMBOL", "")
            )
        )


def test_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs/features.md "Worked example: wild multipliers": RTP 2431/256 (949.6094 %), cycle 16384
    from test_prize_round import docs_example

    game, section = docs_example(tmp_path, "### Worked example: wild multipliers")
    result = analyse(game, 1)
    assert result.rtp == F(2431, 256) and f"{float(result.rtp):.4%}" == "949.6094%"
    assert result.cycle == 16384 and "= 2431/256`" in section and "= 16384`" in section


def test_a_reel_without_the_wild_keeps_its_strip(write_game):
    # reel 3 [A, A, X, X] shows no W: E[f_3] = 2/4, so
    #   RTP = 8 x (11/8)(13/16)(1/2) = 143/32; reel 3 is not rewritten (4 stops, unweighted)
    text = GAME.replace("[A, A, W, X]", "[A, A, X, X]").replace("COMBINE", "").replace("FREE", "")
    text = text.replace("S_SYMBOL", "")
    game = load_game(write_game(text))
    result = analyse(game, 1)
    assert result.rtp == F(143, 32)
    assert result.cycle == (4 * 4**2) * (4 * 4) * 4


def test_beside_a_hold_and_spin_is_refused(tmp_path):
    from test_holdspin import CELLS, small_game_data
    from test_holdspin import write_game as write_folder

    data = small_game_data(CELLS)
    data["symbols"].append({"name": "W", "kind": "wild", "substitutes": "all"})
    data["options"]["wild_multipliers"] = {"symbol": "W", "table": [[2, 1]]}
    with pytest.raises(GameFileError, match="wild_multipliers: is not played together with options.hold_and"):
        write_folder(tmp_path, data)
