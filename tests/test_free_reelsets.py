"""Free games whose reel set is chosen by the trigger count
(``awards.<count>.reels``): exact figures worked by hand and against brute
force over every base stop and every free-game path, the rule that a
retrigger keeps the running set, the refusals, and the compiled round
sampler's z-scores."""

from __future__ import annotations

from fractions import Fraction as F
from functools import cache
from itertools import product

import pytest

from slotmath.io.gamefile import GameFileError, load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse

# 3 reels x 1 row, one line, total bet 1 coin.  2 S start 1 game on `low`
# (the declared reels), 3 S 1 game on `high`; a retrigger (2 or 3 S) adds 1
# game on the running set.
GAME = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: S, kind: scatter}]
reels:
  base: [[A, S, X, X], [A, S, X, X], [A, S, X, X]]
  low: [[A, S, X, X], [A, S, X, X], [A, S, X, X]]
  high: [[A, A, S, S], [A, A, S, S], [A, A, S, S]]
paylines: [[0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 8}]
scatters: [{symbol: S, count: 3, pay: 1}]
options:
  free_games:
    symbol: S
    reels: low
    awards: {2: {games: 1}, 3: {games: 1, reels: high, multiplier: 2}}EXTRA
"""

STRIPS = {
    "base": ["A", "S", "X", "X"],
    "low": ["A", "S", "X", "X"],
    "high": ["A", "A", "S", "S"],
}
GAMES = {2: 1, 3: 1}  # awards and retrigger awards by count of S
MULT = {2: 1, 3: 2}
SET = {2: "low", 3: "high"}


def game(write_game, extra=""):
    return load_game(write_game(GAME.replace("EXTRA", extra)))


def spins(name: str) -> list:
    """(win, count of S) of every stop combination of reel set ``name``."""
    out = []
    for window in product(STRIPS[name], repeat=3):
        s = window.count("S")
        out.append((8 * (window == ("A", "A", "A")) + (s == 3), s))
    return out


def brute_round(cap: int | None, retrigger: bool = True, switch: bool = False) -> dict:
    """Law of the round's win by literal enumeration: every base stop, then
    every path of free stops, the running set kept by a retrigger (``switch``:
    the rule not played, a retrigger moving to its count's set; at most
    ``cap`` games in a feature)."""

    @cache
    def games_law(name: str, left: int, played: int) -> tuple:
        if left == 0 or (cap is not None and played == cap):
            return ((F(0), F(1)),)
        law: dict = {}
        table = spins(name)
        for y, s in table:
            added = GAMES.get(min(s, 3), 0) if retrigger and s >= 2 else 0
            after = SET[min(s, 3)] if switch and added else name
            for rest, q in games_law(after, left - 1 + added, played + 1):
                law[y + rest] = law.get(y + rest, 0) + q / len(table)
        return tuple(law.items())

    law: dict = {}
    base = spins("base")
    for y, s in base:
        if s < 2:
            law[F(y)] = law.get(F(y), 0) + F(1, len(base))
            continue
        for fg, q in games_law(SET[s], GAMES[s], 0):
            x = y + MULT[s] * fg
            law[x] = law.get(x, 0) + q / len(base)
    return law


def test_worked_by_hand(write_game):
    # A spin of base or low: P(A A A) = 1/64 pays 8, S S S 1/64 pays 1: E[Y] = 9/64.
    # low: 2 or more S with 3 (1/4)^2 (3/4) + (1/4)^3 = 10/64, E[K] = 5/32, a game worth
    #   (9/64) / (27/32) = 1/6.  high: P(A) = P(S) = 1/2, E[Y] = 8/8 + 1/8 = 9/8,
    #   E[K] = 3/8 + 1/8 = 1/2, a game worth 9/4 (the retriggers stay on high).
    # free games: P(2 S) 1 x 1/6 + P(3 S) x2 x 9/4 = 9/64 x 1/6 + 1/64 x 9/2 = 3/128 + 9/128.
    result = analyse(game(write_game), 1)
    assert result.components["free_games"] == F(3, 32)
    assert result.rtp == F(1, 8) + F(1, 64) + F(3, 32) == F(15, 64)
    fg = result.features["free_games"]
    assert fg["by_count"]["2"]["reels"] == "low" and fg["by_count"]["3"]["reels"] == "high"
    assert fg["by_reel_set"]["high"]["extra_games_per_game"] == 0.5
    assert fg["by_count"]["3"]["mean_award"] == pytest.approx(4.5)


@pytest.mark.parametrize(
    ("extra", "cap", "retrigger"),
    [("\n    max_games: 4", 4, True), ("\n    retrigger: false", None, False)],
    ids=["capped", "no_retrigger"],
)
def test_brute_force(write_game, extra, cap, retrigger):
    # the exact RTP and the round's distribution against every base stop x free path
    law = brute_round(cap, retrigger)
    result = analyse(game(write_game, extra), 1)
    assert result.rtp == sum((x * p for x, p in law.items()), F(0))
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(got) == {float(x) for x, p in law.items() if p}
    for x, p in law.items():
        assert got[float(x)] == pytest.approx(float(p), abs=1e-15)


def test_brute_force_uncapped_mean(write_game):
    # uncapped: the RTP is the limit of the capped brute force (the mass past
    # 40 games is below 2**-30 on high)
    law = brute_round(40)
    rtp = sum((x * p for x, p in law.items()), F(0))
    assert abs(float(rtp - analyse(game(write_game), 1).rtp)) < 1e-8


def test_retrigger_keeps_the_running_set(write_game):
    # 3 S in a game on low add a game on low, not on high: the rule that
    # switches sets gives another figure
    exact = analyse(game(write_game, "\n    max_games: 4"), 1).rtp
    keep, switch = (sum((x * p for x, p in brute_round(4, switch=s).items()), F(0)) for s in (False, True))
    assert exact == keep != switch


def plain(text: str) -> str:
    """The game without the high reel set (no set by count reads it)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("  high:"))


def test_same_set_is_the_plain_feature(write_game):
    # every count naming the declared set is the feature without sets by count
    one = analyse(load_game(write_game(plain(GAME.replace(", reels: high", "").replace("EXTRA", "")))), 1)
    named = GAME.replace("reels: high", "reels: low").replace("EXTRA", "")
    assert one.rtp == analyse(load_game(write_game(plain(named))), 1).rtp


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (("reels: high", "reels: nowhere"), "options.free_games.awards.3.reels"),
        (("{2: {games: 1}}", "{2: {games: 1, reels: high}}"), "options.free_games.retrigger_awards.2.reels"),
    ],
    ids=["unknown_set", "retrigger_set"],
)
def test_refused_in_one_line(write_game, change, field):
    text = GAME.replace("EXTRA", "\n    retrigger_awards: {2: {games: 1}}").replace(*change)
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_sampler_agrees(write_game):
    # the compiled round sampler plays each count's set and keeps it on a retrigger
    g = game(write_game)
    exact = analyse(g, 1)
    n = 400_000
    comp = round_components(g, 1, n, 23)
    free = comp[:, COMPONENTS.index("free_games")]
    for sample, e in ((free, exact.components["free_games"]), (comp.sum(axis=1), exact.rtp)):
        z = (sample.mean() - float(e)) / (sample.std() / n**0.5)
        assert abs(z) < 4, (z, float(e))


HOLD = """
  hold_and_spin:
    symbol: C
    trigger: 3
    respins: 1
    rule: reset
    probabilities: [["1/2", "1/2", "1/2"]]
    values: [{prize: 1, weight: 1}]
    in_free_games: true"""


@pytest.mark.parametrize(
    ("extra", "field"),
    [("\n  tumble: {multipliers: [1, 2]}", "options.tumble"), (HOLD, "options.hold_and_spin.in_free_games")],
    ids=["tumble", "hold_and_spin_in_free_games"],
)
def test_refused_beside(write_game, extra, field):
    # a set per count is not computed beside these: one line naming the field
    coins = GAME.replace("kind: scatter}]", "kind: scatter}, {name: C, kind: special}]").replace(
        "base: [[A, S, X, X], [A, S, X, X], [A, S, X, X]]", "base: [[A, S, C, X], [A, S, C, X], [A, S, C, X]]"
    )
    with pytest.raises(GameFileError) as err:
        load_game(write_game(coins.replace("EXTRA", extra)))
    assert field in str(err.value) and "awards" in str(err.value) and "\n" not in str(err.value)


def test_sheet_states_the_rules(write_game):
    # the PAR sheet's free-games tables name each count's reel set and the retrigger rule
    from slotmath.features.freeround import free_games_rules, free_games_tables

    g = game(write_game)
    rules = free_games_rules(g)
    assert rules[1] == "3 or more S anywhere on the base window award 1 free game at x2 on reel set high."
    assert rules[2] == "Free games play on the reel set of the count that starts them."
    assert "on the running feature's reel set" in rules[3]
    tables = free_games_tables(g, analyse(g, 1).features["free_games"], 1.0)
    assert tables["Free games by trigger count"]["reel set"].tolist() == ["low", "high"]
    odds = tables["Free games: trigger and retrigger odds"].set_index("event")["probability"]
    assert odds["a free game on high retriggers"] == 0.5 and odds["a free game on low retriggers"] == 10 / 64
    played = tables["Free games: distribution of games played"]
    assert set(played["reel set"]) == {"low", "high"}


def test_drawn_wild_multipliers_on_one_set(write_game):
    # high shows a wild drawing x2 or x3 (mean 5/2): per reel E[f] = P(A) + P(W) 5/2 = 7/8,
    # E[Y] = 8 (7/8)^3 + 1/8 = 351/64, E[K] = 1/2: a game on high is worth 351/32.
    # Free games 9/64 x 1/6 + 1/64 x 2 x 351/32 = 375/1024, by the counted wilds (components)
    # and by the draws written as stops (analyse), and sampled.
    from slotmath.rules.linegame import components

    text = (
        GAME.replace("kind: scatter}]", "kind: scatter}, {name: W, kind: wild, substitutes: all}]")
        .replace(
            "high: [[A, A, S, S], [A, A, S, S], [A, A, S, S]]",
            "high: [[A, W, S, S], [A, W, S, S], [A, W, S, S]]",
        )
        .replace("EXTRA", "\n  wild_multipliers: {symbol: W, table: [[2, 1], [3, 1]]}")
    )
    g = load_game(write_game(text))
    free = F(9, 64) * F(1, 6) + F(1, 64) * 2 * F(351, 32)
    assert free == F(375, 1024)
    assert components(g, 1)["free_games"] == analyse(g, 1).components["free_games"] == free
    n = 400_000
    comp = round_components(g, 1, n, 29)[:, COMPONENTS.index("free_games")]
    assert abs((comp.mean() - float(free)) / (comp.std() / n**0.5)) < 4
