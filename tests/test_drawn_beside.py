"""A wheel beside the free games of a game whose drawn wild multipliers do
not fit as stops: the base law without the rewrite keyed by the free
games' trigger and the wheel's (:func:`slotmath.features.drawnlaw.key_codes`
of both), convolved with the wheel's award per key, against a plain-Python
listing of every base window, every draw of its wilds, every free game
with its retriggers and every wheel prize (under a round cap too), and the
compiled sampler (|z| < 4)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from test_drawn_base import BET, assert_round, brute_round, drawn_game
from test_drawn_cap import assert_capped, with_cap
from test_drawn_law import sampled_wins, z_of

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, drawn_law_refusal, drawn_too_large

# 2 or more B anywhere in the base window (B also pays 3 x B = 5 on a line)
# spin the wheel once: 1 x total bet (weight 3) or 6 x total bet (weight 1)
WHEEL_TEXT = "  wheel: {symbol: B, trigger: 2, segments: [{prize: 1, weight: 3}, {prize: 6, weight: 1}]}\n"
WHEEL = ("B", 2, {F(1): F(3, 4), F(6): F(1, 4)})


def with_wheel(game):
    """``game`` with the wheel :data:`WHEEL_TEXT` written under its options."""
    from pathlib import Path

    path = Path(game.source)
    text = path.read_text(encoding="utf-8")
    assert "\noptions:\n" in text
    path.write_text(text.replace("\noptions:\n", "\noptions:\n" + WHEEL_TEXT), encoding="utf-8")
    return load_game(path)


@pytest.mark.parametrize(("case", "combine"), [("plain", "add"), ("plain", "multiply"), ("prizes", "add")])
def test_a_wheel_beside_drawn_free_games_is_the_brute_force(write_game, refused, case, combine):
    # tests/test_drawn_base.py's games (the base reels show W and B; free
    # games on 2 / 3 S retrigger to max_games 3) with the wheel on 2+ B: the
    # base law keyed by (S count, B count); RTP exact, the distribution, hit
    # frequency and SD the brute force's
    game = with_wheel(drawn_game(write_game, case, combine))
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    law = brute_round(game, case, combine, WHEEL)
    assert_round(result, law)
    assert set(result.components) >= {"free_games", "wheel"}
    assert any("base spin's law of (win, S count and B count)" in n for n in result.notes)


def test_a_wheel_beside_capped_drawn_free_games_is_the_brute_force(write_game, refused):
    # the same round capped at 30 x total bet
    game = with_cap(with_wheel(drawn_game(write_game, "plain", "add")), F(30))
    assert drawn_law_refusal(game) is None
    law = brute_round(game, "plain", "add", WHEEL)
    assert_capped(analyse(game, 1), law, F(30), 1e-9)


def test_the_sampler_agrees_with_the_wheel_beside_drawn_free_games(write_game, refused):
    # the compiled round sampler (each W drawn in the window, the wheel spun
    # on 2+ B): mean, hit frequency and second moment against `par`, |z| < 4
    # over 300,000 rounds
    from slotmath.rules.linegame import round_sampler

    game = with_wheel(drawn_game(write_game, "prizes", "multiply"))
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 300_000, 17)  # [x total bet]
    assert abs(z_of(x, float(result.rtp))) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4
    second = result.sd**2 + float(result.rtp) ** 2
    assert abs(z_of(np.square(x), second)) < 4, (np.square(x).mean(), second)


def test_a_wheel_on_ways_or_inside_the_free_games_is_still_refused(write_game, refused):
    # the wheel beside is computed on paylines only, and not inside the free
    # games: its refusal names the field in one line
    from slotmath.errors import EngineTooLarge
    from slotmath.rules.linegame import DRAWN_LAW_SCOPE

    game = with_wheel(drawn_game(write_game, "plain", "add"))
    path = game.source
    text = open(path, encoding="utf-8").read().replace("weight: 1}]}", "weight: 1}], in_free_games: true}")
    open(path, "w", encoding="utf-8").write(text)
    inside = load_game(path)
    reason = drawn_law_refusal(inside)
    assert reason is not None and reason.endswith(f"options.wheel: {DRAWN_LAW_SCOPE}")
    with pytest.raises(EngineTooLarge) as err:
        analyse(inside, 1)
    assert "\n" not in str(err.value) and "options.wheel" in str(err.value)
    assert BET == 3


def test_the_worked_example_by_hand(tmp_path):
    # docs/features.md, "a wheel beside drawn wilds": reel 3 shows A (the
    # line pays 1, m or m1 x m2 by reels 1 and 2: A A, W A / A W, W W) or B
    # (the wheel pays 1 or 6 x total bet at 3/4, 1/4), each at 1/2
    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: a wheel beside drawn wilds")
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    total = 2**32 + 1
    q = {2: F(3 * 2**30 + 1, total), 4: F(2**30, total)}
    law: dict = {F(1): F(1, 8)}
    for m, p in q.items():
        law[F(m)] = law.get(F(m), 0) + 2 * p / 8
        for n, r in q.items():
            law[F(m * n)] = law.get(F(m * n), 0) + p * r / 8
    for prize, p in ((F(1), F(3, 8)), (F(6), F(1, 8))):
        law[prize] = law.get(prize, 0) + p
    assert sum(law.values()) == 1
    result = analyse(game, 1)
    assert result.components["wheel"] == F(9, 8)
    assert result.rtp == sum((w * p for w, p in law.items()), F(0))
    assert result.hit_frequency == pytest.approx(1.0, rel=1e-15)
    sd = float(sum((w - result.rtp) ** 2 * p for w, p in law.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-12)
    assert result.max_win.value == 16
    assert result.max_win.probability == pytest.approx(float(law[F(16)]), rel=1e-12)
    text = " ".join(section.split())
    assert f"`{float(result.rtp):.3%}`".replace("%", " %") in text
    assert f"1 in {round(1 / float(law[F(16)]))}" in text
