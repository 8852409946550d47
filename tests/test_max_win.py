"""The true maximum win (the largest win with non-zero probability) of a
game without features: the top of the exact distribution against every stop
combination evaluated literally; the sheet's labels and the JSON fields.
Free-games and hold-and-spin rounds are checked in test_free_round.py and
test_holdspin.py."""

from __future__ import annotations

from fractions import Fraction as F

from slotmath.engine.evaluate import brute_force_distribution
from slotmath.io.gamefile import load_game
from slotmath.rules.par import par
from slotmath.rules.result import MAX_WIN_LABEL

from conftest import TEST_DATA


def test_max_win_of_a_line_game_equals_brute_force():
    game = load_game(TEST_DATA / "report_toy")
    for level in (1, 2):
        law = brute_force_distribution(game, level)
        top = max(w for w, c in law.items() if c)
        got = par(game, level).true_max_win
        assert got.exact
        assert (got.value, got.probability) == (top, F(law[top], sum(law.values())))


def test_max_win_in_summary_and_json():
    result = par(load_game(TEST_DATA / "report_toy"), 1)
    shown = result._summary_display()
    rows = dict(zip(shown["figure"], shown["value"], strict=True))
    top = result.true_max_win
    assert rows[f"{MAX_WIN_LABEL} [x total bet]"] == f"{float(top.value):.6g}"
    assert rows[f"{MAX_WIN_LABEL}: odds"] == f"1 in {1 / float(top.probability):.6g}"
    assert "largest win shown in the distribution [x total bet]" in rows
    numbers = result.summary["value"]  # the same figures as numbers
    assert numbers["max win [x total bet]"] == float(top.value)
    assert numbers["max win probability [probability]"] == float(top.probability)
    data = result.to_dict()
    assert data["max_win"] == float(top.value)
    assert data["max_win_odds"] == 1 / float(top.probability)
    assert data["max_win_probability_exact"] == f"{top.probability.numerator}/{top.probability.denominator}"


def test_max_win_under_a_round_cap(tmp_path):
    # every win at or above the cap pays it: the maximum is the cap, with the
    # probability of the wins at or above it (listed stop by stop)
    text = (TEST_DATA / "report_toy" / "game.yaml").read_text()
    text = text.replace("name: report_toy", "name: capped_toy") + "options:\n  round_cap: 20\n"
    folder = tmp_path / "capped_toy"
    folder.mkdir()
    (folder / "game.yaml").write_text(text)
    game = load_game(folder / "game.yaml")
    law = brute_force_distribution(game, 1)
    got = par(game, 1).true_max_win
    assert got.exact and got.value == 20
    assert got.probability == F(sum(c for w, c in law.items() if w >= 20), sum(law.values()))
