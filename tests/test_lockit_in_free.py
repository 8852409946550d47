"""The lock-it triggered in free games (``lockit.in_free_games``): the round's
exact figures against a literal enumeration, with Fractions, of every base
window, every free window (retriggers up to ``max_games``), every respin and
every award draw of a 3x1 game (tests/data/lockit_free); the worked example
of docs/features.md; the compiled sampler against the exact figures;
refusals in one line."""

from __future__ import annotations

import copy
import itertools
import shutil
from fractions import Fraction as Fr
from functools import cache
from pathlib import Path

import infree_brute
import pytest
import yaml
from infree_brute import add, windows, write

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "tests" / "data" / "lockit_free" / "game.yaml"
DATA = yaml.safe_load(GAME.read_text())
HELD = ("P", "M")
MULT = 2


# ----------------------------------------------------------------------------
# brute force: the lock-it of the 3x1 game played literally
# ----------------------------------------------------------------------------
@cache
def finals(held: tuple, flag: bool, left: int) -> dict:
    """{(final held cells, mark flag): P} after ``left`` countdown respins:
    every reel draws a stop of ``respin`` (``respin_after`` once a mark is
    on screen); a held symbol landing on an empty cell is held."""
    if left == 0 or all(held):
        return {(held, flag): Fr(1)}
    strips = DATA["reels"]["respin_after" if flag else "respin"]
    each = Fr(1, len(strips[0]) * len(strips[1]) * len(strips[2]))
    out: dict = {}
    for shown in itertools.product(*strips):
        h, f = list(held), flag
        for r, sym in enumerate(shown):
            if sym in HELD and not h[r]:
                h[r], f = True, f or sym == "M"
        for state, p in finals(tuple(h), f, left - 1).items():
            out[state] = out.get(state, 0) + each * p
    return out


def pack(held: tuple) -> list:
    """Greedy: a 1x2 wherever two neighbouring held cells are both free,
    reels left to right, then a 1x1 on every held cell left."""
    free = list(held)
    placed = []
    for left in (0, 1):
        if free[left] and free[left + 1]:
            free[left] = free[left + 1] = False
            placed.append("1x2")
    return placed + ["1x1"] * sum(free)


def table_law(entries) -> dict:
    """{award [x total bet]: P} of a weighted table (jackpots by name)."""
    jackpots = DATA["options"]["jackpots"]
    total = sum(w for _, w in entries)
    out: dict = {}
    for award, w in entries:
        v = Fr(jackpots[award]) if award in jackpots else Fr(award)
        out[v] = out.get(v, 0) + Fr(w, total)
    return out


def lockit_award(window) -> dict:
    """Law of the lock-it's award from a window (base or free): 2+ held
    symbols start it; each final shape draws its award, a mark at the end
    one wheel spin."""
    held = tuple(s in HELD for s in window)
    if sum(held) < 2:
        return {Fr(0): Fr(1)}
    tables = DATA["options"]["lockit"]["awards"]["main"][1]
    wheel = [(s["prize"], s["weight"]) for s in DATA["options"]["wheel"]["segments"]]
    out: dict = {}
    for (final, flag), p in finals(held, "M" in window, 2).items():
        law = {Fr(0): Fr(1)}
        for shape in pack(final):
            law = add(law, table_law(tables[shape]))
        if flag:
            law = add(law, table_law(wheel))
        for v, q in law.items():
            out[v] = out.get(v, 0) + p * q
    return out


def mean(law: dict) -> Fr:
    return sum((v * q for v, q in law.items()), Fr(0))


@pytest.fixture(scope="module")
def game():
    return load_game(GAME)


def test_round_equals_brute_force(game):
    base, free = DATA["reels"]["base"], DATA["reels"]["free"]
    want = infree_brute.brute_round(3, base, free, lockit_award, MULT)
    result = par(game)
    assert result.rtp == mean(want)  # exact Fractions
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(got) == {float(v) for v in want}
    for v, q in want.items():
        assert got[float(v)] == pytest.approx(float(q), rel=1e-9, abs=1e-15)
    # the base game's lock-it stays its own component; the free games' are in free_games
    base_lockit = sum((p * mean(lockit_award(w)) for w, p in windows(base)), Fr(0))
    lines = sum((p * infree_brute.line(w) for w, p in windows(base)), Fr(0))
    assert result.components["lockit"] == base_lockit
    assert result.components["free_games"] == mean(want) - base_lockit - lines
    # E[H]: the lock-it's mean award per free game, before the multiplier
    per_game = sum((p * mean(lockit_award(w)) for w, p in windows(free)), Fr(0))
    assert result.features["free_games"]["lockit_per_free_game"] == pytest.approx(float(per_game), rel=1e-12)


def test_no_lockit_in_free_games_is_the_base_lockit_alone(game, tmp_path):
    # without in_free_games (and no held symbol on the free reels) the
    # free games play no lock-it: the same brute force with no award there
    data = copy.deepcopy(DATA)
    data["options"]["lockit"]["in_free_games"] = False
    data["reels"]["free"] = [["A", "X", "S"], ["X", "A", "X", "X"], ["S", "X", "A"]]
    want = infree_brute.brute_round(
        3,
        data["reels"]["base"],
        data["reels"]["free"],
        lockit_award,
        MULT,
        free_award=lambda w: {Fr(0): Fr(1)},
    )
    assert par(load_game(write(tmp_path, data))).rtp == mean(want)


def test_worked_example(tmp_path):
    # docs/features.md, "Lock-it in free games" (its YAML is the game).
    # From 2 P the one respin lands P on the empty cell with 1/2: a full
    # screen (one 1x3, 10), else two 1x1 (2): mean 6; from 3 P, 10.
    # Base: P on each reel 1/4: 2 P with 3 (1/4)^2 (3/4) = 9/64, 3 P 1/64:
    #   lockit = 9/64 x 6 + 1/64 x 10 = 1.
    # Free window: P on each reel 1/3: 2 P with 3 (1/3)^2 (2/3) = 2/9, 3 P 1/27:
    #   E[H] = 2/9 x 6 + 1/27 x 10 = 46/27 per free game.
    # Free games: 2+ S (1/4 each) = 3 (1/16)(3/4) + 1/64 = 5/32, 2 games at x2:
    #   lock-it in free games = 5/32 x 2 x 2 x 46/27 = 115/108;
    #   their line (A A A 1/27, pays 4) = 5/32 x 4 x 4/27 = 5/54;
    #   free_games = 5/54 + 115/108 = 125/108.
    # Base line: 1/64 x 4 = 1/16; RTP = 1/16 + 1 + 125/108 = 959/432.
    # Starts in free games: 5/32 x 2 x (2/9 + 1/27) = 35/432 per round.
    from conftest import docs_example

    game, section = docs_example(tmp_path, "#### Lock-it in free games")
    assert "959/432" in section and "35/432" in section
    result = par(game)
    assert result.components["lockit"] == 1
    assert result.components["free_games"] == Fr(125, 108)
    assert result.rtp == Fr(959, 432)
    inside = result.features["free_games"]["lockit_in_free_games"]
    assert inside["rtp"] == pytest.approx(115 / 108, rel=1e-12)
    assert inside["trigger_probability_per_free_game"] == pytest.approx(7 / 27, rel=1e-12)
    assert inside["starts_per_round"] == pytest.approx(35 / 432, rel=1e-12)
    # full screens in free games: 5/32 x 2 x (2/9 x 1/2 + 1/27) = 5/32 x 2 x 4/27
    assert inside["full_screens_per_round"] == pytest.approx(5 / 32 * 2 * 4 / 27, rel=1e-12)
    table = result.tables["Lock-it in free games: odds and award"]
    assert table["RTP [x total bet]"][0] == pytest.approx(115 / 108, rel=1e-12)
    assert result.features["event_rates"]["lockit triggers in free games"] == pytest.approx(
        35 / 432, rel=1e-12
    )


def test_sampler_agrees(game):
    # the round sampler plays the lock-it in the free games: |z| < 4 on the
    # RTP, hit frequency, SD, every component and every event with an exact
    # rate, the free games' lock-it triggers, marks and jackpots among them
    events = {
        "lockit triggers in free games",
        "lockit marks in free games",
        "lockit jackpot MINI in free games",
    }
    infree_brute.assert_sampler_agrees(game, par(game), 200_000, 13, events)


def test_bought_free_games_play_the_lockit(tmp_path):
    # a bought round of 2 free games (no base spin) plays the lock-it in
    # them: its mean from the brute-force per-game law, and the sampler |z| < 4
    data = copy.deepcopy(DATA)
    data["modes"] = {"buy": {"cost": 10, "buy": {"feature": "free_games", "games": 2}}}
    game = load_game(write(tmp_path, data))
    games = infree_brute.games_mean(infree_brute.free_game_law(DATA["reels"]["free"], lockit_award), 2, 3)
    infree_brute.assert_bought_round(game, MULT * games)


def _with_hold(d):
    d["options"]["hold_and_spin"] = infree_brute.hold_and_spin("P")


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (
            lambda d: d["options"]["lockit"].update(in_free_games="yes"),
            "options.lockit.in_free_games",
            "true or",
        ),
        (lambda d: d["options"]["lockit"].update(in_free_games=False), "reels.free[", "'P'"),
        (
            lambda d: d["options"].pop("free_games") and d["reels"].pop("free"),
            "options.lockit.in_free_games",
            "needs options.free_games",
        ),
        (
            lambda d: d["options"]["lockit"].update(trigger=3) or d["reels"]["free"][0].remove("P"),
            "options.lockit.in_free_games",
            "no window of the free games' reel set 'free' shows 3 or more P or M",
        ),
        (
            lambda d: d["options"]["free_games"].update(trigger={"payline": True}),
            "options.lockit.in_free_games",
            "count on a payline",
        ),
        (_with_hold, "options.hold_and_spin", "beside options.lockit"),
    ],
    ids=["not-a-bool", "symbol-on-free-reels-not-played", "no-free-games", "unreachable", "payline", "hold"],
)
def test_refusals(tmp_path, capsys, change, field, problem):
    data = copy.deepcopy(DATA)
    change(data)
    assert main(["validate", str(write(tmp_path, data))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and problem in err[0], err


def test_refused_under_piggy_rules(tmp_path, capsys):
    # Piggy Bankin' Superlock plays its free games' lock-it from its own
    # source free_games: in_free_games there would be a second, unplayed rule
    folder = tmp_path / "piggy"
    shutil.copytree(ROOT / "data" / "games" / "piggy_bankin_superlock", folder)
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  lockit:\n", "  lockit:\n    in_free_games: true\n", 1), encoding="utf-8")
    assert main(["validate", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1 and "options.lockit.in_free_games" in err[0] and "piggy_bankin_superlock" in err[0]
    ), err
