"""The wheel triggered in free games (``wheel.in_free_games``): the round's
exact figures against a literal enumeration, with Fractions, of every base
window, every free window (retriggers up to ``max_games``) and every wheel
draw on a 3x1 game; the worked example of docs/features.md; the compiled
sampler against the exact figures; refusals in one line."""

from __future__ import annotations

import functools
from fractions import Fraction as Fr

import infree_brute
import pytest
from infree_brute import windows, write

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

BASE = [["A", "S", "W", "X"], ["A", "S", "W", "X"], ["A", "S", "X"]]
FREE = [["A", "S", "W"], ["A", "W", "X"], ["S", "W", "A"]]
SEGMENTS = [(Fr(1), 3), (Fr(5), 1), (Fr(20), 1)]  # the last is MINI = 20 x total bet
MULT = 2


def game_data(max_games=3, in_free=True, symbol="W", retrigger=True):
    free_games = {"symbol": "S", "reels": "free", "multiplier": MULT, "awards": {2: {"games": 2}}}
    if max_games:
        free_games["max_games"] = max_games
    if not retrigger:
        free_games["retrigger"] = False
    return {
        "name": "wheel_in_free",
        "grid": {"reels": 3, "rows": 1},
        "bet": {"levels": [1, 2]},
        "symbols": [
            {"name": "A"},
            {"name": "X", "kind": "blank"},
            {"name": "S", "kind": "scatter"},
            {"name": "W", "kind": "special"},
        ],
        "reels": {"base": BASE, "free": FREE},
        "paylines": [[0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": 4}],
        "options": {
            "free_games": free_games,
            "jackpots": {"MINI": 20},
            "wheel": {
                "symbol": symbol,
                "trigger": 2,
                "segments": [
                    {"prize": 1, "weight": 3},
                    {"prize": 5, "weight": 1},
                    {"prize": "MINI", "weight": 1},
                ],
                "in_free_games": in_free,
            },
        },
    }


def wheel_award(window, symbol: str) -> dict:
    """Law of the wheel's award from a window: one draw of the segments by
    weight when it shows 2 or more ``symbol``, else 0."""
    if window.count(symbol) < 2:
        return {Fr(0): Fr(1)}
    total = sum(w for _, w in SEGMENTS)
    return {v: Fr(w, total) for v, w in SEGMENTS}


def free_game_law(symbol: str, retrigger: bool) -> dict:
    """Per free game: {(win before the multiplier, extra games): P}."""
    return infree_brute.free_game_law(FREE, functools.partial(wheel_award, symbol=symbol), retrigger)


def brute_round(max_games: int, symbol: str = "W", retrigger: bool = True) -> dict:
    """Law of the round's win [x total bet] played literally."""
    award = functools.partial(wheel_award, symbol=symbol)
    return infree_brute.brute_round(max_games, BASE, FREE, award, MULT, retrigger)


@pytest.mark.parametrize("symbol", ["W", "S"], ids=["own-symbol", "free-games-symbol"])
def test_round_equals_brute_force(tmp_path, symbol):
    game = load_game(write(tmp_path, game_data(symbol=symbol)))
    want = brute_round(3, symbol)
    result = par(game, 2)  # prizes are [x total bet]: any level
    assert result.rtp == sum(v * q for v, q in want.items())  # exact Fractions
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(got) == {float(v) for v in want}
    for v, q in want.items():
        assert got[float(v)] == pytest.approx(float(q), rel=1e-9, abs=1e-15)
    # the base game's wheel stays its own component; the free games' wheels are in free_games
    base_wheel = sum(
        (p * sum(v * q for v, q in wheel_award(w, symbol).items()) for w, p in windows(BASE)), Fr(0)
    )
    assert result.components["wheel"] == base_wheel


def test_worked_example(tmp_path):
    # docs/features.md, "Features inside features", the wheel in free games.
    # No retrigger: 2 free games at x2 on every trigger.
    # P(trigger) = P(2+ S on the base window), reels 1/4, 1/4, 1/3:
    #   (1/4)(1/4)(2/3) + 2 (1/4)(3/4)(1/3) + (1/4)(1/4)(1/3) = (2 + 6 + 1)/48 = 3/16
    # A free window shows 2+ W: reels 1/3 each, 3 (1/3)^2 (2/3) + (1/3)^3 = 7/27;
    # the wheel's mean draw (3 x 1 + 5 + 20) / 5 = 28/5, so E[H] = 7/27 x 28/5 = 196/135
    # per free game.  Wheel in free games: 3/16 x 2 games x 2 x 196/135 = 49/45.
    # Line pays in free games: 3/16 x 2 x 2 x (1/27 x 4) = 1/9; free_games = 1/9 + 49/45 = 6/5.
    result = par(load_game(write(tmp_path, game_data(max_games=None, retrigger=False))))
    assert result.components["free_games"] == Fr(6, 5)
    inside = result.features["free_games"]["wheel_in_free_games"]
    assert inside["rtp"] == pytest.approx(49 / 45, rel=1e-12)
    assert inside["trigger_probability_per_free_game"] == pytest.approx(7 / 27, rel=1e-12)
    assert inside["starts_per_round"] == pytest.approx(3 / 16 * 2 * 7 / 27, rel=1e-12)
    table = result.tables["Wheel in free games: odds and award"]
    assert table["RTP [x total bet]"][0] == pytest.approx(49 / 45, rel=1e-12)
    # starts per round: a mean count (a round can start it in several free games)
    assert table["mean per round [events / round]"][0] == pytest.approx(3 / 16 * 2 * 7 / 27, rel=1e-12)
    # MINI in free games: 3/16 x 2 games x 7/27 x 1/5 hits per round
    jackpots = result.tables["Wheel in free games: jackpots"]
    assert jackpots["hits per round"][0] == pytest.approx(3 / 16 * 2 * 7 / 27 / 5, rel=1e-12)
    rates = result.features["event_rates"]
    assert rates["wheel starts in free games"] == pytest.approx(3 / 16 * 2 * 7 / 27, rel=1e-12)


@pytest.mark.parametrize("feature", ["wheel", "selection"])
def test_sampler_agrees(tmp_path, feature):
    # the round sampler plays the wheel (or selection) in the free games:
    # |z| < 4 on the RTP, hit frequency, SD, every component and every event
    # with an exact rate, the free games' starts and jackpots among them
    game = load_game(write(tmp_path, game_data() if feature == "wheel" else selection_data()))
    events = {f"{feature} starts in free games", f"{feature} jackpot MINI in free games"}
    infree_brute.assert_sampler_agrees(game, par(game, 1), 200_000, 11, events)


def test_bought_free_games_play_the_wheel(tmp_path):
    # a bought round of 2 free games (no base spin) plays the wheel in them:
    # its mean from the brute-force per-game law, and the sampler |z| < 4
    data = game_data()
    data["modes"] = {"buy": {"cost": 10, "buy": {"feature": "free_games", "games": 2}}}
    game = load_game(write(tmp_path, data))
    games = infree_brute.games_mean(free_game_law("W", True), 2, 3)
    infree_brute.assert_bought_round(game, MULT * games)


def _with_hold(d):
    d["options"]["hold_and_spin"] = infree_brute.hold_and_spin("W", in_free_games=True)


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (lambda d: d["options"]["wheel"].update(in_free_games=False), "reels.free[", "'W'"),
        (
            lambda d: d["options"]["wheel"].update(in_free_games="yes"),
            "options.wheel.in_free_games",
            "true or",
        ),
        (
            lambda d: d["options"].pop("free_games") and d["reels"].pop("free"),
            "options.wheel.in_free_games",
            "needs options.free_games",
        ),
        (
            lambda d: d["options"]["wheel"].update(symbol="S", trigger=3),
            "options.wheel.in_free_games",
            "reel set 'free'",
        ),
        (_with_hold, "in_free_games", "one feature plays in free games"),
    ],
    ids=["symbol-on-free-reels-not-played", "not-a-bool", "no-free-games", "unreachable", "two"],
)
def test_refusals(tmp_path, capsys, change, field, problem):
    data = game_data()
    change(data)
    assert main(["validate", str(write(tmp_path, data))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and problem in err[0], err


def selection_data():
    """The game with a selection (a prize of 2 or one wheel spin, 1 : 1) on
    2+ W in place of the wheel's trigger, in free games too."""
    data = game_data()
    wheel = data["options"]["wheel"]
    del wheel["symbol"], wheel["trigger"], wheel["in_free_games"]
    data["options"]["selection"] = {
        "symbol": "W",
        "trigger": 2,
        "policy": "player",
        "choices": [{"prize": 2, "weight": 1}, {"wheel": 1, "weight": 1}],
        "in_free_games": True,
    }
    return data


def test_selection_in_free_games(tmp_path):
    # a selection of prizes and wheel spins in free games: the same
    # brute force, the selection's award law a mixture of its choices
    game = load_game(write(tmp_path, selection_data()))
    # the selection's award: 2 or a wheel draw, 1/2 each
    total = sum(w for _, w in SEGMENTS)
    pick = {Fr(2): Fr(1, 2)}
    for v, w in SEGMENTS:
        pick[v] = pick.get(v, 0) + Fr(w, 2 * total)
    want = infree_brute.brute_round(
        3, BASE, FREE, lambda w: pick if w.count("W") >= 2 else {Fr(0): Fr(1)}, MULT
    )
    assert par(game).rtp == sum(v * q for v, q in want.items())
