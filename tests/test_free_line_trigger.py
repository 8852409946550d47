"""Free games triggered by a count on a payline (``trigger: {payline: true}``):
the awards are read by the longest run of the symbol from the leftmost reel
along a payline.  Exact figures against every base stop and free-game path
enumerated, the refusals, and the compiled round sampler's z-scores."""

from __future__ import annotations

from fractions import Fraction as F
from functools import cache
from itertools import product

import pytest

from slotmath.io.gamefile import GameFileError, load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse

# 3 reels x 2 rows, two lines (top row, bottom row), total bet 2 coins; B runs
# of 2 from the left on a line start 1 game, of 3 start 2 games (retriggers
# alike, on the same reels); B anywhere else does not count.
GAME = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: B, kind: scatter}]
reels:
  base: [[B, A, X, B], [B, X, A, B], [B, A, B, X]]
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 10}]
options:
  free_games:
    symbol: B
    reels: base
    trigger: {payline: true}
    awards: {2: {games: 1}, 3: {games: 2, prize: 1}}EXTRA
"""
STRIPS = [["B", "A", "X", "B"], ["B", "X", "A", "B"], ["B", "A", "B", "X"]]
LINES = [[0, 0, 0], [1, 1, 1]]
GAMES = {2: 1, 3: 2}
PRIZE = {2: 0, 3: 1}  # [x total bet]


def game(write_game, extra=""):
    return load_game(write_game(GAME.replace("EXTRA", extra)))


def spins() -> list:
    """(win [x total bet], the longest B run on a line, B in the window) of every stop combination."""
    out = []
    for stops in product(range(4), repeat=3):
        window = [[STRIPS[r][(s + k) % 4] for k in range(2)] for r, s in enumerate(stops)]
        win = F(0)
        run = 0
        for line in LINES:
            cells = [window[r][row] for r, row in enumerate(line)]
            win += 10 * (cells == ["A", "A", "A"])
            n = 0
            while n < 3 and cells[n] == "B":
                n += 1
            run = max(run, n)
        out.append((win / 2, run, sum(col.count("B") for col in window)))
    return out


def brute_round(cap: int | None) -> dict:
    """Law of the round's win [x total bet]: every base stop, every path of free stops."""
    table = spins()

    @cache
    def games_law(left: int, played: int) -> tuple:
        if left == 0 or (cap is not None and played == cap):
            return ((F(0), F(1)),)
        law: dict = {}
        for y, run, _ in table:
            added = GAMES.get(run, 0)
            for rest, q in games_law(left - 1 + added, played + 1):
                x = y + PRIZE.get(run, 0) + rest
                law[x] = law.get(x, 0) + q / len(table)
        return tuple(law.items())

    law: dict = {}
    for y, run, _ in table:
        outcomes = ((F(0), F(1)),) if run < 2 else games_law(GAMES[run], 0)
        for fg, q in outcomes:
            x = y + PRIZE.get(run, 0) + fg
            law[x] = law.get(x, 0) + q / len(table)
    return law


def test_a_count_anywhere_is_not_a_count_on_a_line():
    # windows with 2 or more B anywhere but a shorter run on every line exist
    assert any(run < 2 <= shown for _, run, shown in spins())


@pytest.mark.parametrize("cap", [3, 5])
def test_brute_force(write_game, cap):
    # the exact RTP and the round's distribution against every base stop x free path
    law = brute_round(cap)
    result = analyse(game(write_game, f"\n    max_games: {cap}"), 1)
    assert result.rtp == sum((x * p for x, p in law.items()), F(0))
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(got) == {float(x) for x, p in law.items() if p}
    for x, p in law.items():
        assert got[float(x)] == pytest.approx(float(p), abs=1e-15)


def test_renewal_mean(write_game):
    # uncapped: free games = sum_c P(c) (prize(c) + games(c) x E[Y] / (1 - E[K])), Y with its
    # retrigger prize, from the enumerated spins
    table = spins()
    n = len(table)
    e_y = sum((y + PRIZE.get(run, 0) for y, run, _ in table), F(0)) / n
    e_k = sum((F(GAMES.get(run, 0)) for _, run, _ in table), F(0)) / n
    free = (
        sum((PRIZE.get(run, 0) + GAMES[run] * e_y / (1 - e_k) for _, run, _ in table if run >= 2), F(0)) / n
    )
    result = analyse(game(write_game), 1)
    assert result.components["free_games"] == free
    assert result.rtp == sum((y for y, _, _ in table), F(0)) / n + free


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (("payline: true", "payline: yes please"), "options.free_games.trigger.payline"),
        (("3: {games: 2, prize: 1}", "4: {games: 2}"), "options.free_games.awards.4"),
        (("paylines: [[0, 0, 0], [1, 1, 1]]", "pays_by: ways"), "options.free_games.trigger.payline"),
    ],
    ids=["not_true", "count_above_reels", "ways"],
)
def test_refused_in_one_line(write_game, change, field):
    with pytest.raises(GameFileError) as err:
        load_game(write_game(GAME.replace("EXTRA", "").replace(*change)))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_sampler_agrees(write_game):
    # the compiled round sampler reads the run along each payline, in the base and free games
    g = game(write_game)
    exact = analyse(g, 1)
    n = 400_000
    comp = round_components(g, 1, n, 31)
    free = comp[:, COMPONENTS.index("free_games")]
    for sample, e in ((free, exact.components["free_games"]), (comp.sum(axis=1), exact.rtp)):
        z = (sample.mean() - float(e)) / (sample.std() / n**0.5)
        assert abs(z) < 4, (z, float(e))


def test_sheet_states_the_rule(write_game):
    from slotmath.features.freeround import free_games_rules

    rules = free_games_rules(game(write_game))
    assert rules[0] == "2 or more B in a row from the leftmost reel on a payline award 1 free game."
    assert "the same counts add games on a payline" in rules[3]


HOLD = """
  hold_and_spin:
    symbol: C
    trigger: 3
    respins: 1
    rule: reset
    probabilities: [["1/2", "1/2", "1/2"], ["1/2", "1/2", "1/2"]]
    values: [{prize: 1, weight: 1}]
    in_free_games: true"""


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("\n  tumble: {multipliers: [1, 2]}", "options.tumble"),
        (HOLD, "options.hold_and_spin.in_free_games"),
        ("\n    sticky: A", "options.free_games.trigger"),
    ],
    ids=["tumble", "hold_and_spin_in_free_games", "sticky"],
)
def test_refused_beside(write_game, extra, field):
    # a count on a payline is not computed beside these: one line naming the field
    text = GAME.replace("kind: scatter}]", "kind: scatter}, {name: C, kind: special}]").replace(
        "[B, A, B, X]]", "[B, A, B, X, C]]"
    )
    text = text.replace("[[B, A, X, B], [B, X, A, B]", "[[B, A, X, B, C], [B, X, A, B, C]")
    if "sticky" in extra:
        text = text.replace("{name: A}", "{name: A, kind: wild, substitutes: all}").replace("EXTRA", extra)
        text = text.replace("reels: base\n", "reels: base\n    retrigger: false\n")
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text.replace("EXTRA", extra)))
    assert field in str(err.value) and "payline" in str(err.value) and "\n" not in str(err.value)
