"""The +-1 sensitivity table: hand-worked cases and independent recomputation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from slotmath.io.gamefile import load_game
from slotmath.model import Strip
from slotmath.rules.par import par
from slotmath.tuning.layout import lay_out
from slotmath.tuning.reelspace import with_strips
from slotmath.tuning.sensitivity import format_sensitivities, sensitivities

from conftest import TEST_DATA

TINY = """
name: tiny
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols: [{name: A}, {name: B}]
paylines: [[0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 10}]
reels:
  base: [[A, B], [A, B], [A, B]]
"""


def test_hand_worked_tiny_game(write_game):
    game = load_game(write_game(TINY))
    t = sensitivities(game, figures=("rtp", "hit_frequency", "sd"))
    row = t[(t.reel == 1) & (t.unit == "A")].iloc[0]
    # now: P(A A A) = 1/8, RTP = 10/8, hit frequency 1/8, SD = 10 sqrt(1/8 * 7/8)
    # +1 A on reel 1: strip A B A, P = 2/3 * 1/2 * 1/2 = 1/6: RTP 10/6, change 10/6 - 10/8 = 5/12
    assert row["rtp +1"] == pytest.approx(5 / 12, abs=1e-15)
    assert row["hit_frequency +1"] == pytest.approx(1 / 6 - 1 / 8, abs=1e-15)
    assert row["sd +1"] == pytest.approx(10 * (1 / 6 * 5 / 6) ** 0.5 - 10 * (1 / 8 * 7 / 8) ** 0.5)
    # -1 A on reel 1: strip B, no win at all: RTP change -10/8
    assert row["rtp -1"] == pytest.approx(-10 / 8, abs=1e-15)
    row_b = t[(t.reel == 1) & (t.unit == "B")].iloc[0]
    # +1 B on reel 1: strip A B B, P = 1/3 * 1/4: RTP 10/12, change 10/12 - 10/8 = -5/12
    assert row_b["rtp +1"] == pytest.approx(-5 / 12, abs=1e-15)
    # -1 B on reel 1: strip A, P = 1/4: RTP 10/4, change +10/8
    assert row_b["rtp -1"] == pytest.approx(10 / 8, abs=1e-15)
    assert t.attrs["base"]["rtp"] == Fraction(10, 8)
    assert "+41.6667 pp" in format_sensitivities(t)


def test_entries_equal_the_engine_on_explicit_strips():
    game = load_game(TEST_DATA / "tune_small")
    t = sensitivities(game, figures=("rtp", "hit_frequency", "sd"))
    assert len(t) == 3 * 7  # every symbol is on every reel
    base = par(game, 1)
    for reel, unit, step in ((1, "SEVEN", +1), (2, "WILD", -1), (3, "BLANK", +1)):
        strip = game.strips()[reel - 1]
        counts = {unit: strip.symbols.count(unit) + step}
        new = lay_out(strip.symbols, counts, pinned={"STAR"})
        strips = list(game.strips())
        strips[reel - 1] = Strip(new)
        result = par(with_strips(game, "base", strips), 1)
        row = t[(t.reel == reel) & (t.unit == unit)].iloc[0]
        assert row[f"rtp {step:+d}"] == float(result.rtp) - float(base.rtp)
        assert row[f"hit_frequency {step:+d}"] == result.hit_frequency - base.hit_frequency
        assert row[f"sd {step:+d}"] == pytest.approx(result.sd - base.sd, abs=1e-12)


def test_weighted_reels_are_changed_stop_by_stop():
    game = load_game(TEST_DATA / "tune_classic")
    t = sensitivities(game, level=1, figures=("rtp",))
    assert len(t) == 3 * 12 and t.iloc[0]["unit"] == "stop 0 SEVEN"
    # +1 weight on reel 1, stop 0 (SEVEN): the cycle grows from 64**3 to 65 * 64**2 and the
    # line sum grows by 900 + 616 + 30 = 1546 coins (see test_tune.py for the working)
    old = par(game, 1).rtp
    line_sum = old * 64**3
    new = (line_sum + 1546) / (65 * 64**2)
    assert t.iloc[0]["rtp +1"] == pytest.approx(float(new - old), abs=1e-15)
