"""Drawn wild multipliers on ways games (``options.wild_multipliers`` with
``pays_by: ways``): a way's win multiplied by the product or the sum of the
drawn multipliers of the wilds on it.  The exact RTP (from the law of the
drawn wilds' count per way, no rewrite), the spin distribution (the draws
written as stops) and the free games against an independent brute force
over every stop vector and every draw, the worked example of
docs/features.md, the sampler's z-scores and the one-line refusals."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from math import prod

import pytest

from slotmath.features.wildmult import rewrite_refusal
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, components, drawn_components

# 3 reels x 2 rows, 8 ways, 10 coins bet.  A pays 1 / 4 coins per way for
# 2 / 3 of a kind, B 6 for 3.  W substitutes and draws x2 (weight 3) or x3
# (weight 1), mean 9/4; V substitutes and multiplies a way by 2 for one V
# on it, 5 for two or more (by_count).  2+ S anywhere pay 1 x total bet.
GAME = """
pays_by: ways
grid: {reels: 3, rows: 2}
bet: {levels: [1], lines: 10}
symbols:
  - {name: A}
  - {name: B}
  - {name: X, kind: blank}
  - {name: W, kind: wild}
  - {name: V, kind: wild, multiplier: {by_count: [1, 2, 5]}}
  - {name: S, kind: scatter}
reels:
  base: [[A, W, B, S, V], [B, W, W, A, X], [A, B, W, S, X, V]]FREE
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 4}
  - {symbol: B, count: 3, pay: 6}
scatters: [{symbol: S, count: 2, pay: 1}]
options:
  wild_multipliers: {symbol: W, table: [[2, 3], [3, 1]], combine: COMBINE}
"""
TABLE = {2: 3, 3: 1}
PAYS = {"A": {2: 1, 3: 4}, "B": {3: 6}}
V_BY_COUNT = (1, 2, 5)
BASE = [["A", "W", "B", "S", "V"], ["B", "W", "W", "A", "X"], ["A", "B", "W", "S", "X", "V"]]
FREE_STRIPS = [["A", "W", "S", "B", "X"], ["W", "A", "B", "X", "V"], ["B", "W", "A", "V", "S", "X"]]
FREE_GAMES = "  free_games: {symbol: S, reels: free, multiplier: 2, awards: {2: {games: 3}}}\n"


def game_text(combine: str, free: bool = False) -> str:
    text = GAME.replace("COMBINE", combine)
    if not free:
        return text.replace("FREE", "")
    strips = "[" + ", ".join("[" + ", ".join(s) + "]" for s in FREE_STRIPS) + "]"
    return text.replace("FREE", f"\n  free: {strips}") + FREE_GAMES


def window_coins(window, draws, combine, table_pays=PAYS):
    """Coin win of one window (``window[r][h]``) with the drawn multiplier
    ``draws[(r, h)]`` of each W, every way listed: per symbol its longest
    run from reel 1, then every choice of one matching cell per reel of the
    run, each paying pay x (product or sum of its W's draws, x1 without a
    W) x V's multiplier by its count of V."""
    coins = 0
    for sym, pays in table_pays.items():

        def matches(c, sym=sym):
            return c in (sym, "W", "V")

        n = 0
        while n < len(window) and any(matches(c) for c in window[n]):
            n += 1
        if n not in pays:
            continue
        for rows in product(range(len(window[0])), repeat=n):
            cells = [(r, rows[r]) for r in range(n)]
            if not all(matches(window[r][h]) for r, h in cells):
                continue
            drawn = [draws[c] for c in cells if c in draws]
            g = (prod(drawn) if combine == "multiply" else sum(drawn)) if drawn else 1
            v = sum(window[r][h] == "V" for r, h in cells)
            coins += pays[n] * g * V_BY_COUNT[min(v, 2)]
    return coins


def spin_law(strips, combine, table=TABLE, table_pays=PAYS, rows=2, total_bet=10):
    """Law of (spin win [x total bet], S shown) listing every stop vector of
    ``strips`` and every draw of every W in the window (independent, weights
    of ``table``)."""
    law: dict = {}
    cycle = prod(len(s) for s in strips)
    T = sum(table.values())
    for stops in product(*(range(len(s)) for s in strips)):
        window = [
            [s[(stop + k) % len(s)] for k in range(rows)] for s, stop in zip(strips, stops, strict=True)
        ]
        cells = [(r, k) for r in range(len(strips)) for k in range(rows) if window[r][k] == "W"]
        n_s = sum(col.count("S") for col in window)
        for draw in product(table, repeat=len(cells)):
            p = F(1, cycle) * prod((F(table[m], T) for m in draw), start=F(1))
            win = F(window_coins(window, dict(zip(cells, draw, strict=True)), combine, table_pays), total_bet)
            win += 1 if n_s >= 2 else 0
            key = (win, n_s)
            law[key] = law.get(key, 0) + p
    return law


def win_law(law: dict) -> dict:
    out: dict = {}
    for (x, _), p in law.items():
        out[x] = out.get(x, 0) + p
    return {x: p for x, p in out.items() if p}


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_spin_law_equals_enumeration(write_game, combine):
    # every stop vector (5 x 5 x 6) and every draw of every W shown; the
    # exact RTP without the rewrite, the rewritten game's distribution and
    # its combination table against it
    from slotmath.features.drawnways import drawn_ways_figures

    game = load_game(write_game(game_text(combine)))
    law = spin_law(BASE, combine)
    mean = sum(x * p for x, p in win_law(law).items())
    scatters = sum(p for (_, n), p in law.items() if n >= 2)
    ways = mean - scatters
    figures = drawn_ways_figures(game, 1)
    assert figures.rtp == ways
    assert sum((r["rtp_exact"] for r in figures.rows), F(0)) == ways
    assert components(game, 1) == {"ways": ways, "scatters": scatters}
    assert drawn_components(game, 1) == {"ways": ways, "scatters": scatters}
    result = analyse(game, 1)
    assert result.rtp == mean and result.components == {"ways": ways, "scatters": scatters}
    dist = result.distribution
    assert dist.exact  # integer counts over the rewritten cycle
    scale = dist.unit_den * dist.total_bet
    got = {F(int(w), scale): F(int(c), dist.total) for w, c in zip(dist.wins, dist.weights, strict=True)}
    assert got == win_law(law)
    # the rows of both methods: the same symbols and counts, probabilities and RTP
    table = result.combinations[result.combinations["kind"] == "ways"]
    drawn = {r["combination"]: (r["probability"], r["rtp_exact"]) for r in figures.rows}
    assert {r["combination"]: (r["probability"], r["rtp_exact"]) for _, r in table.iterrows()} == drawn
    assert any(n.startswith("Wild multipliers drawn from a table (") for n in result.notes)
    assert f"{'multiplied' if combine == 'multiply' else 'added'} on a way" in " ".join(result.notes)


def renewal_components(combine: str, table: dict = TABLE) -> dict:
    """RTP components of the game with free games from the enumerations of
    the base and the free reels: the free spins draw their W's multipliers
    too (V is on the free reels as well), and
      p = P(2+ S in the free window), E[K] = 3 p (3 games per retrigger),
      E[Y] = E[free spin win] (ways + scatters), P_base = P(2+ S in the base window);
      free_games = P_base x 3 / (1 - 3 p) x 2 x E[Y]   (N / (1 - N p) games at x2)"""
    base, free = spin_law(BASE, combine, table), spin_law(FREE_STRIPS, combine, table)
    p = sum(q for (_, c), q in free.items() if c >= 2)
    mean_y = sum(x * q for (x, _), q in free.items())
    p_base = sum(q for (_, c), q in base.items() if c >= 2)
    return {
        "ways": sum(x * q for (x, _), q in base.items()) - p_base,
        "scatters": p_base,
        "free_games": p_base * F(3) / (1 - 3 * p) * 2 * mean_y,
    }


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_free_games_equal_the_renewal_formula(write_game, combine):
    game = load_game(write_game(game_text(combine, free=True)))
    want = renewal_components(combine)
    assert analyse(game, 1).components == want
    assert components(game, 1) == want
    assert drawn_components(game, 1) == want  # Wald's identity, no rewrite


def test_a_rewritten_free_spin_beyond_the_work_limit_keeps_exact_components(write_game, monkeypatch):
    # added draws as stops: the free spin's ways pass steps 20,008 on reel 3,
    # the game without the draws at most 756; with the work limit at 1,000
    # the components come without the rewrite (Wald's identity) and the
    # distribution is refused in one line carrying them
    from slotmath.engine import ways
    from slotmath.engine.limits import EngineTooLarge

    monkeypatch.setattr(ways, "MAX_WAYS_STEPS", 1000)
    game = load_game(write_game(game_text("add", free=True)))
    want = renewal_components("add")
    assert components(game, 1) == want
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    rtp = sum(want.values(), F(0))
    assert "\n" not in str(err.value) and f"the round's exact RTP is {float(rtp):.6%}" in str(err.value)


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_sampler_agrees_with_the_exact_components(write_game, combine):
    # the compiled round sampler plays the rewritten stops (each W's draw a
    # stop): |z| < 4 on every component
    import numpy as np

    from slotmath.montecarlo.roundsim import round_sampler
    from slotmath.rules.linegame import component_names, played_game

    game = load_game(write_game(game_text(combine, free=True)))
    exact = analyse(game, 1)
    names = component_names(game)
    assert names == ("ways", "scatters", "free_games")
    sampler = round_sampler(played_game(game), 1, names)
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(5)))
    parts = sampler.kernel(rng, 400_000, *sampler.args)[2]
    z = {}
    for j, name in enumerate(names):
        se = parts[:, j].std() / np.sqrt(len(parts))
        z[name] = (parts[:, j].mean() - float(exact.components[name])) / se
    assert exact.components["free_games"] > 0 and exact.components["ways"] > 0
    assert all(abs(v) < 4 for v in z.values()), z


@pytest.mark.parametrize("combine, kernel", [("multiply", "ways_kernel_plain"), ("add", "ways_kernel")])
def test_the_ways_sampler_agrees_on_the_base_game(write_game, combine, kernel):
    # the ways sampler of the rewritten game, without V and 2 x A: multiplied, the variants'
    # cells count their multiplier in ways (the plain kernel); added, their
    # sum is a digit of the ways state (the digit kernel); |z| < 4 against
    # the brute-force mean
    import numpy as np

    from slotmath.montecarlo.wayssim import ways_sampler
    from slotmath.rules.linegame import played_game

    strips = [[c.replace("V", "X") for c in s] for s in BASE]
    text = game_text(combine).replace("  - {symbol: A, count: 2, pay: 1}\n", "")
    text = text.replace("  - {name: V, kind: wild, multiplier: {by_count: [1, 2, 5]}}\n", "")
    text = text.replace(", V]", ", X]")
    game = load_game(write_game(text))
    assert [list(s.symbols) for s in game.strips("base")] == strips
    law = win_law(spin_law(strips, combine, table_pays={"A": {3: 4}, "B": {3: 6}}))
    mean = sum(x * p for x, p in law.items())
    sampler = ways_sampler(played_game(game), 1)
    assert sampler.kernel.__name__ == kernel
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(11)))
    wins = sampler.kernel(rng, 400_000, *sampler.args)[0]
    z = (wins.mean() - float(mean)) / (wins.std() / len(wins) ** 0.5)
    assert abs(z) < 4, z


def spin_law_is(result, law: dict) -> bool:
    """Whether ``result``'s float distribution has the wins of the exact
    ``law`` ({win [x total bet]: probability}), each probability within 1e-12."""
    dist = result.distribution
    scale = dist.unit_den * dist.total_bet
    got = {F(int(w), scale): float(p) for w, p in zip(dist.wins, dist.weights, strict=True)}
    return set(got) == set(law) and all(abs(got[x] - float(p)) <= 1e-12 * float(p) for x, p in law.items())


def test_added_sums_beyond_the_ways_state_get_the_law_without_the_rewrite(write_game):
    # x400 on 3 reels: a way's sum takes 0..1200 (1201 values > 1024), so the
    # draws are not written as stops (once refused in one line): the RTP is
    # the enumeration's, and the spin's law without the rewrite
    # (slotmath.features.drawnwayslaw) is its law point by point
    game = load_game(write_game(game_text("add").replace("[3, 1]]", "[400, 1]]")))
    law = win_law(spin_law(BASE, "add", table={2: 3, 400: 1}))
    rtp = sum(x * p for x, p in law.items())
    assert sum(components(game, 1).values(), F(0)) == rtp
    result = analyse(game, 1)
    assert result.rtp == rtp and spin_law_is(result, law)
    assert "a way's added multipliers take up to 1,201 values" in rewrite_refusal(game)


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_a_rewrite_beyond_the_engine_range_gets_the_law_without_the_rewrite(write_game, combine):
    # a table of total weight 2**31 per wild: written as stops the cycle
    # leaves int64 (once refused in one line); the RTP comes from the law of
    # the drawn wilds' count per way, equal to the enumeration with that
    # table, and the spin's law without the rewrite is the enumeration's
    text = game_text(combine).replace("table: [[2, 3], [3, 1]]", "table: [[2, 2147483647], [3, 1]]")
    game = load_game(write_game(text))
    assert "reel set 'base' with its drawn multipliers written as stops" in rewrite_refusal(game)
    law = win_law(spin_law(BASE, combine, table={2: 2**31 - 1, 3: 1}))
    rtp = sum(x * p for x, p in law.items())
    parts = components(game, 1)
    assert sum(parts.values(), F(0)) == rtp
    result = analyse(game, 1)
    assert result.rtp == rtp and result.components == parts and spin_law_is(result, law)


def test_a_ways_step_beyond_the_work_limit_is_refused_with_the_exact_rtp(write_game, monkeypatch):
    # the rewrite's counts fit, but its ways pass would exceed the work limit
    # (set to 10 steps here): one line with the exact RTP
    from slotmath.engine import ways
    from slotmath.engine.limits import EngineTooLarge

    monkeypatch.setattr(ways, "MAX_WAYS_STEPS", 10)
    game = load_game(write_game(game_text("add")))
    rtp = sum(x * p for x, p in win_law(spin_law(BASE, "add")).items())
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    assert "\n" not in message and f"the round's exact RTP is {float(rtp):.6%}" in message


@pytest.mark.parametrize("pays_by", ["anywhere", "cluster"])
def test_count_pays_still_refuse_drawn_multipliers(write_game, pays_by):
    from slotmath.io.gamefile import GameFileError

    text = """
pays_by: PAYS
grid: {reels: 3, rows: 2}
bet: {levels: [1], lines: 10}
symbols: [{name: A}, {name: B}, {name: W, kind: wild}]
reels:
  base: [[A, W, B], [B, A, W], [A, B, W]]
pays: [{symbol: A, count: 3, pay: 4}]
options:
  wild_multipliers: {symbol: W, table: [[2, 3], [3, 1]]}
""".replace("PAYS", pays_by)
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text))
    message = str(err.value)
    assert f"options.wild_multipliers: is not played on {pays_by} games (pays_by: {pays_by})" in message
    assert "\n" not in message


HEADING = "### Worked example: wild multipliers on ways"


def example_game(tmp_path, combine):
    """The docs example's game (with ``combine``) and its section's text."""
    from conftest import docs_example

    game, section = docs_example(tmp_path, HEADING, combine=None if combine == "multiply" else combine)
    assert game.pays_by == "ways" and game.options["wild_multipliers"].get("combine", "multiply") == combine
    return game, " ".join(section.split())


EXAMPLE = [("multiply", F(2431, 256), "949.6094%"), ("add", F(251, 32), "784.3750%")]


@pytest.mark.parametrize("combine, rtp, shown", EXAMPLE)
def test_worked_example_has_the_figures_the_page_states(tmp_path, combine, rtp, shown):
    # docs/features.md: 3 x A pays 8 per way, 8 ways, 8 coins bet; W draws x2 (3) / x3 (1), mu = 9/4.
    # multiply: E[win] = 8 prod_r (E[a_r] + mu E[w_r]) = 8 (11/4)(13/8)(17/8) = 8 x 2431/256 coins;
    # add: 8 (E[a_1 a_2 a_3] + mu E[sum_r w_r prod_{j != r}(a_j + w_j)]) = 8 (1/4 + (9/4)(27/8)) = 8 x 251/32
    from slotmath.features.drawnways import drawn_ways_figures

    game, words = example_game(tmp_path, combine)
    result = analyse(game, 1)
    assert result.rtp == rtp == drawn_ways_figures(game, 1).rtp and f"{float(rtp):.4%}" == shown
    assert result.cycle == (4 * 4**2) * (4 * 4) * (4 * 4)  # every window's draws written as stops
    assert f"RTP = `{rtp.numerator}/{rtp.denominator}` ({shown[:-1]} %)" in words


@pytest.mark.parametrize("combine, coins", [("multiply", 480), ("add", 320)])
def test_worked_example_window_by_hand(tmp_path, combine, coins):
    # stops (1, 0, 1): reel 1 shows W W (drawn x3, x2), reel 2 A W (x2), reel 3 A W (x3);
    # all 8 ways match A.  multiply: (3 + 2)(1 + 2)(1 + 3) = 60 ways' worth, 8 x 60 = 480;
    # add: each cell is on 4 ways: 4 (3 + 2) + 4 x 2 + 4 x 3 = 40, 8 x 40 = 320
    import numpy as np

    from slotmath.engine.ways import ways_drop, ways_drop_args
    from slotmath.features.wildmult import played_game

    game, words = example_game(tmp_path, combine)
    played = played_game(game)
    shown = [["Wx3", "Wx2"], ["A", "Wx2"], ["A", "Wx3"]]  # reel by reel, rows 0 and 1
    for r, col in enumerate(shown):  # a rewritten stop shows it, with the share of the stops and draws
        strip = played.strips("base")[r]
        weights = strip.stop_weights()
        s = next(s for s in range(len(strip)) if weights[s] and list(strip.symbols[s : s + 2]) == col)
        share = F(int(weights[s]), int(weights.sum()))
        assert share == [F(1, 4) * F(1, 4) * F(3, 4), F(1, 4) * F(3, 4), F(1, 4) * F(1, 4)][r]
    window = np.array([played.symbol_index[x] for col in shown for x in col], dtype=np.int64)
    removed = np.zeros(len(window), dtype=np.int64)
    events = np.zeros(1, dtype=np.int64)
    assert ways_drop(window, ways_drop_args(played, 1), removed, events, False) == coins
    assert f"`8 x {coins // 8} = {coins}` coins ({coins // 8} x total bet)" in words and "9/256" in words


def test_the_win_range_is_the_ways_one(write_game):
    # x102 on 3 reels multiplies a way by up to 102**3 = 1,061,208: beyond the
    # line engine's labels (2**20, refused on lines) but a ways win holds it:
    # played, equal to the enumeration.  x10**6: a spin could win 6 coins x
    # (2 rows x 10**6)**3 ways x 5 (two V) x 2 paying symbols = 4.8e20 coins,
    # beyond 2**53 win units: refused in one line
    from slotmath.io.gamefile import GameFileError

    game = load_game(write_game(game_text("multiply").replace("[[2, 3], [3, 1]]", "[[102, 1]]")))
    law = spin_law(BASE, "multiply", table={102: 1})
    assert analyse(game, 1).rtp == sum(x * p for x, p in win_law(law).items())
    with pytest.raises(GameFileError) as err:
        load_game(write_game(game_text("multiply").replace("[[2, 3], [3, 1]]", "[[1000000, 1]]")))
    message = str(err.value)
    assert "options.wild_multipliers.table: the largest win of one spin (4.8e+20 coins" in message
    assert "\n" not in message
