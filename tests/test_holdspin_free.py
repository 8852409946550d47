"""The hold-and-spin triggered in free games (``hold_and_spin.in_free_games``):
the round's exact figures against a literal enumeration, with Fractions, of
every base window, every free game (retriggers up to ``max_games``), every
respin outcome and prize draw on a 3x1 game; the renewal formula carrying
the hold-and-spin's mean without ``max_games``; the compiled sampler
against the exact figures; a bought round of those free games; refusals."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as Fr

import infree_brute
import pytest
from infree_brute import add, windows, write

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

BASE = [["A", "S", "COIN", "X"], ["A", "S", "COIN", "X"], ["A", "S", "X"]]
FREE = [["A", "S", "COIN"], ["A", "COIN", "X"], ["S", "COIN", "A"]]
LAND = [Fr(1, 2), Fr(1, 3), Fr(1, 4)]  # a respin cell of each reel lands a coin
VALUES = [(Fr(1), Fr(1, 2)), (Fr(3), Fr(1, 2))]
FULL = 5
MULT = 2


def game_data(max_games=3, in_free=True):
    free_games = {"symbol": "S", "reels": "free", "multiplier": MULT, "awards": {2: {"games": 2}}}
    if max_games:
        free_games["max_games"] = max_games
    return {
        "name": "hs_in_free",
        "grid": {"reels": 3, "rows": 1},
        "bet": {"levels": [1, 2]},
        "symbols": [
            {"name": "A"},
            {"name": "X", "kind": "blank"},
            {"name": "S", "kind": "scatter"},
            {"name": "COIN", "kind": "special"},
        ],
        "reels": {"base": BASE, "free": FREE},
        "paylines": [[0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": 4}],
        "options": {
            "free_games": free_games,
            "hold_and_spin": {
                "symbol": "COIN",
                "trigger": 2,
                "respins": 1,
                "rule": "reset",
                "probabilities": [[str(p) for p in LAND]],
                "values": [{"prize": 1, "weight": 1}, {"prize": 3, "weight": 1}],
                "full_screen": FULL,
                "in_free_games": in_free,
            },
        },
    }


@functools.cache
def respins(mask: int, left: int) -> tuple:
    """Final masks from ``mask`` with ``left`` respins (reset on a landing):
    every cell's landing listed."""
    if left == 0 or mask == 7:
        return ((mask, Fr(1)),)
    out: dict = {}
    empty = [r for r in range(3) if not mask >> r & 1]
    for lands in itertools.product((0, 1), repeat=len(empty)):
        p, new = Fr(1), 0
        for r, x in zip(empty, lands, strict=True):
            p *= LAND[r] if x else 1 - LAND[r]
            new |= x << r
        for m, q in respins(mask | new, 1 if new else left - 1):
            out[m] = out.get(m, 0) + p * q
    return tuple(out.items())


def held_award(window) -> dict:
    """Law of the hold-and-spin's award from a window (no trigger: 0)."""
    mask = sum(1 << r for r, s in enumerate(window) if s == "COIN")
    if bin(mask).count("1") < 2:
        return {Fr(0): Fr(1)}
    out: dict = {}
    for m, q in respins(mask, 1):
        n = bin(m).count("1")
        law = {Fr(FULL) if n == 3 else Fr(0): Fr(1)}
        for _ in range(n):
            law = add(law, dict(VALUES))
        for v, p in law.items():
            out[v] = out.get(v, 0) + q * p
    return out


def free_game_law() -> dict:
    """Per free game: {(win before the multiplier, extra games): P}."""
    return infree_brute.free_game_law(FREE, held_award)


def brute_round(max_games: int) -> dict:
    """Law of the round's win [x total bet] played literally."""
    return infree_brute.brute_round(max_games, BASE, FREE, held_award, MULT)


def test_round_equals_brute_force(tmp_path):
    game = load_game(write(tmp_path, game_data()))
    want = brute_round(3)
    result = par(game, 2)  # prizes are [x total bet]: any level
    assert result.rtp == sum(v * q for v, q in want.items())  # exact Fractions
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(got) == {float(v) for v in want}
    for v, q in want.items():
        assert got[float(v)] == pytest.approx(float(q), rel=1e-9, abs=1e-15)
    # the base game's hold-and-spin stays its own component; the free games' holds it
    base_held = sum(
        (p * sum(v * q for v, q in held_award(w).items()) for w, p in windows(BASE)),
        Fr(0),
    )
    assert result.components["hold_and_spin"] == base_held
    assert result.true_max_win.value >= max(want)  # a bound with retriggers and max_games


def test_renewal_formula_carries_the_hold_and_spin(tmp_path):
    # uncapped: the free games' award from n games is
    # MULT x n x (E[line] + E[hold-and-spin]) / (1 - E[K]) per free game
    game = load_game(write(tmp_path, game_data(max_games=None)))
    law = free_game_law()
    ey = sum((y * p for (y, _), p in law.items()), Fr(0))
    ek = sum((k * p for (_, k), p in law.items()), Fr(0))
    p_trigger = sum((p for w, p in windows(BASE) if w.count("S") >= 2), Fr(0))
    assert par(game).components["free_games"] == p_trigger * MULT * 2 * ey / (1 - ek)
    assert par(game).features["free_games"]["hold_and_spin_per_free_game"] == pytest.approx(
        float(sum((p * sum(v * q for v, q in held_award(w).items()) for w, p in windows(FREE)), Fr(0)))
    )


def test_sampler_agrees(tmp_path):
    # the round sampler plays the hold-and-spin in the free games: |z| < 4 on
    # the RTP, hit frequency, SD, every component and every event with an
    # exact rate, the free games' features' jackpots among them
    data = game_data()  # a full screen pays GRAND: a jackpot event of each feature
    data["options"]["jackpots"] = {"GRAND": 50}
    data["options"]["hold_and_spin"]["full_screen"] = "GRAND"
    game = load_game(write(tmp_path, data))
    # the features free games start: their starts, full screens and jackpot hits
    events = {
        "hold_and_spin triggers in free games",
        "hold_and_spin full screens in free games",
        "hold_and_spin jackpot GRAND in free games",
    }
    infree_brute.assert_sampler_agrees(game, par(game, 1), 400_000, 11, events)


def test_bought_free_games_play_the_hold_and_spin(tmp_path):
    data = game_data()
    data["modes"] = {"buy": {"cost": 10, "buy": {"feature": "free_games", "games": 2}}}
    game = load_game(write(tmp_path, data))
    law = free_game_law()

    @functools.cache
    def mean(left: int, played: int) -> Fr:
        if left == 0 or played == 3:
            return Fr(0)
        return sum((p * (y + mean(left - 1 + k, played + 1)) for (y, k), p in law.items()), Fr(0))

    infree_brute.assert_bought_round(game, MULT * mean(2, 0))


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (lambda d: d["options"]["hold_and_spin"].update(in_free_games=False), "reels.free[", "'COIN'"),
        (
            lambda d: d["options"]["hold_and_spin"].update(in_free_games="yes"),
            "in_free_games",
            "true or false",
        ),
        (
            lambda d: d["options"].pop("free_games") and d["reels"].pop("free"),
            "options.hold_and_spin.in_free_games",
            "needs options.free_games",
        ),
        (
            lambda d: (
                d["options"].update(jackpots={"GRAND": {"seed": 5, "contribution": 0.01}})
                or d["options"]["hold_and_spin"].update(full_screen="GRAND")
            ),
            "options.hold_and_spin.in_free_games",
            "progressive",
        ),
    ],
    ids=["coin-on-free-reels-not-played", "not-a-bool", "no-free-games", "progressive"],
)
def test_refusals(tmp_path, capsys, change, field, problem):
    data = game_data()
    change(data)
    assert main(["validate", str(write(tmp_path, data))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and problem in err[0], err


def test_bought_hold_and_spin_of_a_game_that_plays_it_in_free_games(tmp_path):
    # the bought round plays no free games: the hold-and-spin from 1 coin on
    # one of the 3 cells (1/3 each), every coin worth E[V] = 2, a full screen 5 more
    from slotmath.rules.modepar import mode_par

    data = game_data()
    data["modes"] = {"hs": {"cost": 4, "buy": {"feature": "hold_and_spin", "coins": 1}}}
    game = load_game(write(tmp_path, data))
    want = sum(
        (
            Fr(1, 3) * q * (2 * bin(m).count("1") + (FULL if m == 7 else 0))
            for cell in range(3)
            for m, q in respins(1 << cell, 1)
        ),
        Fr(0),
    )
    assert mode_par(game, "hs").par.rtp == want and mode_par(game, "hs").rtp == want / 4


def full_screen(window) -> Fr:
    """Probability that the hold-and-spin from ``window`` ends on a full
    screen (0 without a trigger)."""
    mask = sum(1 << r for r, s in enumerate(window) if s == "COIN")
    if bin(mask).count("1") < 2:
        return Fr(0)
    return sum((q for m, q in respins(mask, 1) if m == 7), Fr(0))


def test_jackpots_of_the_features_free_games_start(tmp_path):
    # GRAND (50 x total bet) pays a full screen.  Its hits per round, played
    # literally: the base game's features' P(full screen) over the base
    # windows, and the free games' E[full screens over the free games played]
    # (retriggers up to max_games: 3); each paid x MULT in the free games
    data = game_data()
    data["options"]["jackpots"] = {"GRAND": 50}
    data["options"]["hold_and_spin"]["full_screen"] = "GRAND"
    result = par(load_game(write(tmp_path, data)))

    @functools.cache
    def fulls(left: int, played: int) -> Fr:  # expected full screens in the games left
        if left == 0 or played == 3:
            return Fr(0)
        return sum(
            (
                p * (full_screen(w) + fulls(left - 1 + (2 if w.count("S") >= 2 else 0), played + 1))
                for w, p in windows(FREE)
            ),
            Fr(0),
        )

    base = sum((p * full_screen(w) for w, p in windows(BASE)), Fr(0))
    free = sum((p * fulls(2, 0) for w, p in windows(BASE) if w.count("S") >= 2), Fr(0))
    tables = result.tables
    assert tables["Hold-and-spin: jackpots of the features the base game starts"]["hits per round"][
        0
    ] == pytest.approx(float(base), rel=1e-12)
    inside = tables["Hold-and-spin: jackpots of the features free games start"]
    assert inside["hits per round"][0] == pytest.approx(float(free), rel=1e-12)
    assert inside["share of RTP"][0] == pytest.approx(float(free * MULT * 50 / result.rtp), rel=1e-12)
    every = tables["Hold-and-spin: jackpots of every feature"]
    assert every["hits per round"][0] == pytest.approx(float(base + free), rel=1e-12)
    assert every["share of RTP"][0] == pytest.approx(float((base + free * MULT) * 50 / result.rtp), rel=1e-12)
    odds = tables["Hold-and-spin in free games: odds"].set_index("event")
    # an event a round can hold more than once: a mean count per round, not a probability
    assert odds.loc["a full screen in a free game", "mean per round [events / round]"] == pytest.approx(
        float(free), rel=1e-12
    )
    rates = result.features["event_rates"]
    assert rates["hold_and_spin jackpot GRAND in free games"] == pytest.approx(float(free), rel=1e-12)
    rules = list(tables["Hold-and-spin: rules"]["rule"])
    assert any("free game's window" in r and "apart" in r for r in rules)
    assert "Hold-and-spin: jackpots" not in tables
