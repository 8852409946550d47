"""Tuning a selection's choice prizes (``slotmath tune --value``).

``tests/data/sel_values`` (3x1, one line; its file shows the working): lines
1/4, free games on 3 S 3/128, a selection on 2+ S (``P = 10/64``) between
cash 2, spins (prize 1 + 5 free games x2) and wheel (prize 1/2 + one spin of
mean 31/10), player weights 2, 1, 1: RTP 181/256.  The RTP is affine in the
prizes, ``d RTP / d prize_i = P q_i = (5/64, 5/128, 5/128)``.  The tests
check the tuner against a plain-Python brute force over every window and
against ``slotmath par`` on the written file.
"""

from __future__ import annotations

import itertools
import json
import re
from fractions import Fraction

import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.tuning.valuetune import choice_values, prize_derivatives, tune_values, with_prizes

from conftest import TEST_DATA

GAME = TEST_DATA / "sel_values"
ALL = "options.selection.choices"
STRIP = ["A", "A", "S", "X"]
WHEEL = (Fraction(5 * 1 + 3 * 2 + 2 * 10), 10)  # segment prizes x weights, total weight


def brute_rtp(cash, spins, wheel) -> Fraction:
    """The RTP by every window of the 3x1 game (64 equally likely stop vectors)."""
    windows = list(itertools.product(STRIP, repeat=3))
    line = [Fraction(2) if w == ("A", "A", "A") else Fraction(0) for w in windows]
    free_game = sum(line, Fraction(0)) / 64  # one free game's mean line win, multiplier 1
    wheel_mean = WHEEL[0] / WHEEL[1]
    values = [cash, spins + 5 * 2 * free_game, wheel + wheel_mean]
    selection = sum(Fraction(w) * v for w, v in zip((2, 1, 1), values, strict=True)) / 4
    total = Fraction(0)
    for w, pay in zip(windows, line, strict=True):
        s = w.count("S")
        total += pay + (2 * 3 * free_game if s == 3 else 0) + (selection if s >= 2 else 0)
    return total / 64


def with_policy(text: str, policy: str) -> str:
    """The game file's text with ``policy`` (the choices' weights dropped)."""
    text = text.replace("policy: player", f"policy: {policy}")
    return "\n".join(
        re.sub(r", weight: \d+}", "}", line) if "{name:" in line else line for line in text.splitlines()
    )


def par_rtp(path, capsys) -> Fraction:
    assert main(["par", str(path), "--json"]) == 0
    return Fraction(json.loads(capsys.readouterr().out)["rtp_exact"])


def test_brute_force_agrees_with_the_file(capsys):
    assert brute_rtp(Fraction(2), Fraction(1), Fraction(1, 2)) == Fraction(181, 256) == par_rtp(GAME, capsys)


def test_exact_derivative_is_the_exact_finite_difference():
    game = load_game(GAME)
    grads = prize_derivatives(game, 1)
    # hand: P = 10/64 (9 windows with two S, one with three), q = 2/4, 1/4, 1/4
    assert grads == [Fraction(10, 64) * q for q in (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))]
    base = brute_rtp(Fraction(2), Fraction(1), Fraction(1, 2))
    prizes = [Fraction(2), Fraction(1), Fraction(1, 2)]
    for i in range(3):
        up = list(prizes)
        up[i] += Fraction(7, 100)
        assert (brute_rtp(*up) - base) / Fraction(7, 100) == grads[i]
        moved = game_figures(with_prizes(game, {i: up[i]}), 1)["rtp"]
        assert moved - base == grads[i] * Fraction(7, 100)


def test_uniform_policy_derivative(tmp_path):
    # hand: q = 1/3 each, so d RTP / d prize = 10/64 x 1/3 = 5/96 for every choice
    text = with_policy(GAME.joinpath("game.yaml").read_text(), "uniform")
    (tmp_path / "game.yaml").write_text(text)
    game = load_game(tmp_path)
    assert prize_derivatives(game, 1) == [Fraction(5, 96)] * 3
    moved = game_figures(with_prizes(game, {1: Fraction(13, 10)}), 1)["rtp"] - game_figures(game, 1)["rtp"]
    assert moved == Fraction(5, 96) * Fraction(3, 10)


def test_tuned_to_the_target_recomputed_with_par(tmp_path, capsys):
    # hand: need 3/4 - 181/256 = 11/256; a common factor 1 + t on the prizes
    # moves the RTP by t (5/64 x 2 + 5/128 x 1 + 5/128 x 1/2) = t 55/256: t = 1/5,
    # prizes 2.4, 1.2, 0.6 (on the 1/100 grid)
    out = tmp_path / "game.yaml"
    code = main(["tune", str(GAME), "--target-rtp", "75%", "--value", ALL, "--out", str(out), "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["targets_met"]
    assert [v["after"] for v in res["values"]] == [2.4, 1.2, 0.6]
    assert (
        par_rtp(out, capsys) == Fraction(3, 4) == brute_rtp(Fraction(12, 5), Fraction(6, 5), Fraction(3, 5))
    )
    old = GAME.joinpath("game.yaml").read_text().splitlines()
    diff = [(a, b) for a, b in zip(old, out.read_text().splitlines(), strict=True) if a != b]
    assert diff == [
        (
            "      - {name: cash, prize: 2, weight: 2}   # the cash choice",
            "      - {name: cash, prize: 2.4, weight: 2}   # the cash choice",
        ),
        (
            "      - {name: spins, prize: 1, free_games: 5, multiplier: 2, weight: 1}",
            "      - {name: spins, prize: 1.2, free_games: 5, multiplier: 2, weight: 1}",
        ),
        (
            "      - {name: wheel, prize: 0.5, wheel: 1, weight: 1}",
            "      - {name: wheel, prize: 0.6, wheel: 1, weight: 1}",
        ),
    ]


def test_one_prize_and_the_grid():
    # only cash moves: 2 + (3/4 - 181/256) / (5/64) = 2 + 11/20 = 2.55
    res = tune_values(load_game(GAME), Fraction(3, 4), [f"{ALL}.cash.prize"])
    assert res.feasible and res.after == [Fraction(51, 20)] and res.rtp_after == Fraction(3, 4)
    # 75.01 %: one step of cash moves 5/64 x 1/100 = 0.078 pp, so 75 % is the nearest: stated
    res = tune_values(load_game(GAME), Fraction(7501, 10000), [ALL])
    assert not res.feasible and "grid" in res.why and res.rtp_after == Fraction(3, 4)


def test_wheel_spins_with_the_cash_prize(tmp_path, capsys):
    # hand: d RTP / d spin = P q_wheel E[spin] = 10/64 x 1/4 x 31/10 = 31/256.
    # 85 % needs 0.85 - 181/256 = 36.6/256: one more spin (31/256) and cash
    # + 5.6/256 / (5/64) = +0.28 move 1.28 in all, less than cash alone (+1.83)
    game = load_game(GAME)
    res = tune_values(game, Fraction(85, 100), [f"{ALL}.wheel.wheel", f"{ALL}.cash.prize"])
    assert res.derivatives == [Fraction(31, 256), Fraction(5, 64)]
    assert res.feasible and res.after == [2, Fraction(57, 25)]
    spun = game_figures(with_prizes(game, {2: 2}, key="wheel"), 1)["rtp"]
    assert spun - Fraction(181, 256) == Fraction(31, 256)  # the exact finite difference
    out = res.write(tmp_path / "game.yaml", backup=False)
    assert load_game(out).options["selection"]["choices"][2]["wheel"] == 2
    assert par_rtp(out, capsys) == Fraction(85, 100)


def test_every_choice_worth_the_same(tmp_path, capsys):
    # hand: a common value V with 64/256 + 6/256 + (10/64) V = 4/5 gives V = 3.37:
    # cash 3.37, spins 3.37 - 5/2 = 0.87, wheel 3.37 - 31/10 = 0.27
    game = load_game(GAME)
    res = tune_values(game, Fraction(4, 5), [ALL], equal_values=True)
    assert res.feasible and res.after == [Fraction(337, 100), Fraction(87, 100), Fraction(27, 100)]
    assert choice_values(res.tuned(), 1) == [0, 0, 0]
    out = res.write(tmp_path / "game.yaml", backup=False)
    assert par_rtp(out, capsys) == Fraction(4, 5)
    # at 75 % V = 3.05 and the wheel's prize would be -0.05: below its limit 0.25
    res = tune_values(game, Fraction(3, 4), [ALL], equal_values=True)
    assert not res.feasible and res.binding == [f"{ALL}.wheel.prize below its lower limit 0.25 (needs -0.05)"]


def test_infeasible_names_the_binding_limits(capsys):
    # hand: every prize at twice its value adds 55/256: at most 236/256 = 59/64
    code = main(["tune", str(GAME), "--target-rtp", "95%", "--value", ALL, "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 1 and res["feasibility"] == "infeasible" and res["rtp_after"] == 59 / 64
    assert res["binding"] == [
        f"{ALL}.{n}.prize at its upper limit {x}" for n, x in (("cash", 4), ("spins", 2), ("wheel", 1))
    ]
    assert brute_rtp(Fraction(4), Fraction(2), Fraction(1)) == Fraction(59, 64)


def max_rtp(text: str) -> str:
    return with_policy(text, "max_rtp")


@pytest.mark.parametrize(
    ("args", "change", "message"),
    [
        ([f"{ALL}.nope.prize"], None, "no choice 'nope' (choices: cash, spins, wheel)"),
        ([f"{ALL}.cash.free_games"], None, "a choice's free_games count is not tuned"),
        ([f"{ALL}.cash.wheel"], None, "choice 'cash' spins no wheel"),
        ([f"{ALL}.cash.prize=0.001:0.002"], None, "no multiple of 0.01 within its limits"),
        ([f"{ALL}.cash.prize=-1:3"], None, "limits '-1:3' must be 0 <= LO <= HI"),
        (
            [f"{ALL}.cash.prize"],
            ("prize: 2, weight", "prize: MAJOR, weight"),
            "pays the jackpot 'MAJOR', not a number",
        ),
        ([ALL], max_rtp, "policy is max_rtp"),
        ([ALL, "--table", "options.wheel.segments"], None, "--table not with --value"),
    ],
)
def test_careless_input_is_one_line(args, change, message, tmp_path, capsys):
    game = GAME
    if change is not None:
        text = GAME.joinpath("game.yaml").read_text()
        text = change(text) if callable(change) else text.replace(*change)
        (tmp_path / "game.yaml").write_text(text)
        game = tmp_path
    code = main(["tune", str(game), "--target-rtp", "75%", "--value", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and message in err
