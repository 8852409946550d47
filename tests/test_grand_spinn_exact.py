"""Grand Spinn Superpot: the exact analysis.

* the published RTP at every bet level, components summing to it;
* the enumeration equals a plain-Python brute force (every stop combination
  played step by step) on random small games, and the simulator's literal
  round on every stop combination of the real game;
* the distribution's figures against the enumeration's totals;
* ``slotmath par --json`` carries the figures.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotmath.io.gamefile import GAMES_DIR, load_game
from slotmath.model import Strip
from slotmath.rules.grand_spinn_superpot import analysis as gs
from slotmath.rules.par import par
from slotmath.tuning.reelspace import with_strips

TARGET, TOLERANCE = Fraction(9621, 10000), Fraction(5, 100000)  # 96.21 % +- 0.005 pp


@pytest.fixture(scope="module")
def game():
    return load_game("grand_spinn_superpot")


@pytest.fixture(scope="module")
def result(game):
    return par(game, 1)


def test_rtp_is_96_21_at_every_bet_level(game):
    rtps = {}
    for level in game.levels:
        res = gs.analyse(game, level)
        assert isinstance(res.rtp, Fraction)
        assert abs(res.rtp - TARGET) <= TOLERANCE, (level, float(res.rtp))
        assert sum(res.components.values(), Fraction(0)) == res.rtp
        rtps[level] = res.rtp
    # every coin amount is proportional to the level, so the RTP is the same fraction
    assert len(set(rtps.values())) == 1


def test_components_and_convention(game, result):
    comp = result.components
    assert list(comp) == [gs.LANDING, gs.NUDGES, gs.ARROWS, "Mini", "Midi", "Super"]
    assert comp["Super"] == Fraction(27, 1000)  # 2.16 % + 0.54 %
    base = result.rtp - comp["Super"]
    assert result.distribution.mean == base  # the coin win excludes the Super
    assert result.features["rtp_excluding_progressive_exact"] == f"{base.numerator}/{base.denominator}"
    # Mini / Midi: probability x 40 (200) x level coins over 10 x level coins
    for name, coins in (("Mini", 40), ("Midi", 200)):
        p = Fraction(result.features["jackpots"][name]["probability_exact"])
        assert comp[name] == p * coins / 10
    # the landing line wins equal the engine's line RTP
    from slotmath.engine.combinations import line_rtp

    assert comp[gs.LANDING] == line_rtp(game, 1)[0]


def test_distribution_against_totals(game, result):
    rules = gs.compile_rules(game, 1)
    rounds = gs.play_all(rules)
    w = rounds.weight.astype(object)
    cycle = game.cycle()
    assert int(rounds.weight.sum()) == cycle == result.cycle
    d = result.distribution
    assert int(sum(d.weights)) == cycle
    # hit frequency: weight of rounds with a coin win
    assert d.hit_frequency == Fraction(int(rounds.weight[rounds.win > 0].sum()), cycle)
    # mean and second moment straight from the rounds (Python integers)
    wins = rounds.win.astype(object)
    assert d.mean == Fraction(int((w * wins).sum()), cycle * 10)
    assert d.second_moment == Fraction(int((w * wins * wins).sum()), cycle * 100)
    # max win and its odds
    top = int(rounds.win.max())
    assert d.max_win == Fraction(top, 10)
    assert d.max_win_probability == Fraction(int(rounds.weight[rounds.win == top].sum()), cycle)
    assert result.features["max_win_coins"] == top


# ---------------------------------------------------------------- brute force
def brute_force(game, level):
    """{coin win: weight} playing every stop combination with play_steps."""
    strips = game.strips()
    out = {}
    jp = {}
    for stops in product(*(range(len(s)) for s in strips)):
        steps = gs.play_steps(game, level, stops)
        w = 1
        for s, k in zip(strips, stops, strict=True):
            w *= int(s.stop_weights()[k])
        out[steps[-1].total] = out.get(steps[-1].total, 0) + w
        for s in steps:
            if s.kind == "jackpot":
                name = s.text.split()[0]
                jp[name] = jp.get(name, 0) + w
    return out, jp


SYMS = ["CHERRY", "LEMON", "SEVEN", "WILD", "BLANK", "ARROW", "MINI", "MIDI", "SUPER"]


@st.composite
def small_strips(draw):
    reels = []
    for _ in range(3):
        strip = []
        while len(strip) < draw(st.integers(4, 9)):
            sym = draw(st.sampled_from(SYMS))
            strip += [sym] * draw(st.integers(1, 3 if sym in ("CHERRY", "LEMON", "SEVEN") else 1))
        if all(s == strip[0] for s in strip):
            strip.append("BLANK")
        weights = [draw(st.integers(1, 3)) for _ in strip]
        reels.append({"symbols": strip, "weights": weights})
    return reels


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_strips())
def test_enumeration_equals_brute_force(tmp_path_factory, reels):
    data = yaml.safe_load((GAMES_DIR / "grand_spinn_superpot" / "game.yaml").read_text())
    data["reels"] = {"base": reels}
    folder = tmp_path_factory.mktemp("random")
    (folder / "game.yaml").write_text(yaml.safe_dump(data))
    game = load_game(folder)
    ex = gs.enumerate_cycle(gs.compile_rules(game, 2))
    expected, jp = brute_force(game, 2)
    got = {c: int(v) for c, v in enumerate(ex.hist) if v}
    assert got == {c: v for c, v in expected.items() if v}
    for k, j in enumerate(gs.parse_options(game).jackpots):
        assert int(ex.jp_counts[:, k].sum()) == jp.get(j.name, 0)


def test_simulator_round_equals_exact_round_everywhere(game):
    """The literal (simulator) round and the exact path agree on all stop
    combinations, with the line tables and with every line played literally."""
    rules = gs.compile_rules(game, 3)
    rounds = gs.play_all(rules)
    assert rounds.win.shape == tuple(len(s) for s in game.strips())
    stops = np.indices(rounds.win.shape).reshape(game.reels, -1).T
    sampler = gs.round_sampler(game, 3)
    for literal in (False, True):
        out = gs.play_stops(sampler, stops, literal=literal)
        assert np.array_equal(out[:, 0], rounds.win.ravel())
        assert np.array_equal(out[:, 4], rounds.jackpot.ravel())


def test_outcomes_reweighed_equal_a_fresh_play(game):
    """The rounds are not kept by the enumeration, only the weight of each
    distinct outcome; the outcome numbers kept for tuning, totalled with
    other stop weights, give what a fresh play with those weights gives."""
    rules = gs.compile_rules(game, 1)
    kept = gs.play_outcomes(rules, keep=True)
    streamed = gs.play_outcomes(rules)
    assert streamed.codes is None and np.array_equal(streamed.table, kept.table)
    assert np.array_equal(streamed.weight, kept.weight)
    # the losing outcome's weight includes the rounds skipped by dead prefixes
    assert int(kept.weight.sum()) == game.cycle() and kept.weight[0] > 0
    assert np.array_equal(kept.table[0], [0, -1, 0, 0, -1])
    rng = np.random.default_rng(3)
    strips = [Strip(s.symbols, tuple(int(w) for w in rng.integers(1, 9, len(s)))) for s in game.strips()]
    other_game = with_strips(game, "base", strips)
    other = gs.compile_rules(other_game, 1)
    fresh = gs.play_outcomes(other)
    again = gs.reweigh(other, kept)
    assert np.array_equal(again.table, fresh.table) and np.array_equal(again.weight, fresh.weight)
    a, b = gs.enumerate_cycle(other, again), gs.enumerate_cycle(other)
    assert a.cycle == b.cycle == other_game.cycle() != game.cycle()
    for name in a.__dataclass_fields__:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_outcome_numbers_too_many_for_the_narrow_type(game, monkeypatch):
    # the real game has about 1,000 distinct outcomes: with one byte per round they do not
    # fit, so the play is done again with the next type, and every round keeps its outcome
    from slotmath.rules.grand_spinn_superpot import enumeration

    rules = gs.compile_rules(game, 1)
    wide = gs.play_outcomes(rules, keep=True)
    assert wide.codes.dtype == np.uint16 and 256 < len(wide.table) <= 2**16
    monkeypatch.setattr(enumeration, "CODE_TYPES", (np.uint8, np.uint32))
    again = gs.play_outcomes(rules, keep=True)
    assert again.codes.dtype == np.uint32
    assert np.array_equal(again.codes, wide.codes) and np.array_equal(again.table, wide.table)


def test_cycle_beyond_int64_sums(game, result):
    """Every stop weight x 256: cycle 2**54 (10 lines: 1.8e17 < 2**62, so the
    file is valid), and weight x coin sums reach 2**54 x 4000 x 10 > 2**63
    (the enumeration refused this with OverflowError).  Every probability is
    the original game's, so every figure is too."""
    strips = [Strip(s.symbols, tuple(256 * int(w) for w in s.stop_weights())) for s in game.strips()]
    big = with_strips(game, "base", strips)
    assert big.cycle() == 2**54 == game.cycle() * 2**24
    res = par(big, 1)
    assert res.rtp == result.rtp and res.components == result.components
    d, e = res.distribution, result.distribution
    assert (d.hit_frequency, d.sd, d.max_win) == (e.hit_frequency, e.sd, e.max_win)
    assert res.features["nudge"]["repay_factor_exact"] == result.features["nudge"]["repay_factor_exact"]
    assert res.features["jackpots"] == result.features["jackpots"]


def test_steps_agree_with_exact_round_on_a_sample(game):
    rules = gs.compile_rules(game, 1)
    rounds = gs.play_all(rules)
    rng = np.random.default_rng(7)
    lengths = [len(s) for s in game.strips()]
    # every winning symbol and jackpot path at least once, plus random stops
    picks = [tuple(rng.integers(0, n) for n in lengths) for _ in range(300)]
    for cond in (rounds.arrow_pays > 0, rounds.jackpot >= 0, rounds.nudges >= 4):
        idx = np.argwhere(cond)
        picks += [tuple(int(v) for v in idx[i]) for i in rng.choice(len(idx), 30)]
    for stops in picks:
        steps = gs.play_steps(game, 1, stops)
        assert steps[-1].total == rounds.win[stops]
        assert any(s.kind == "arrow" for s in steps) == (rounds.arrow_pays[stops] > 0)
        if rounds.landing[stops] > 0:
            moves = sum(s.kind in ("nudge", "arrow") for s in steps)
            assert 1 + moves == rounds.pays[stops]


# ---------------------------------------------------------------- CLI / JSON
def test_par_json_carries_everything(capsys, result):
    from slotmath.cli import main

    assert main(["par", "grand_spinn_superpot", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "grand_spinn_superpot" and out["bet_levels"] == list(range(1, 11))
    assert abs(out["rtp"] - 0.9621) <= 0.00005
    assert sum(out["components"].values()) == pytest.approx(out["rtp"], abs=1e-12)
    assert set(out["components"]) == {gs.LANDING, gs.NUDGES, gs.ARROWS, "Mini", "Midi", "Super"}
    assert out["hit_frequency"] == pytest.approx(result.hit_frequency)
    assert set(out["volatility_index"]) == {"90", "95", "99"}
    f = out["features"]
    assert set(f["jackpots"]) == {"Mini", "Midi", "Super"}
    for j in f["jackpots"].values():
        assert j["one_in"] == pytest.approx(1 / j["probability"])
    sup = f["super"]["reference"]
    assert sup["expected_jackpot"] > 5000 and 0 < sup["p_next_within_window"] < 1
    assert f["super"]["seed_rtp_by_bet"]
    chain = f["nudge"]["markov_chain"]
    assert max(chain["agreement"].values()) <= 1e-12
    assert f["rtp_by_level"] and len(f["rtp_by_level"]) == 10
    # the readable form too
    assert main(["par", "grand_spinn_superpot", "--bet", "5"]) == 0
    text = capsys.readouterr().out
    assert "nudge re-pays" in text and "Pays per winning spin" in text


def test_documented_claims(game, result):
    """Statements of docs/games/grand_spinn_superpot.md about our strips and figures."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "games" / "grand_spinn_superpot.md").read_text()
    # A13: no window shows two jackpot symbols on one reel
    jp = {"MINI", "MIDI", "SUPER"}
    for strip in game.strips():
        n = len(strip)
        for s in range(n):
            assert sum(strip.symbols[(s + k) % n] in jp for k in range(3)) <= 1
    # the headline figures printed in section 4
    d = result.distribution
    hf = float(d.hit_frequency)
    assert f"| hit frequency | {hf:.2%} (1 in {1 / hf:.2f}) |" in doc
    assert f"| max win | {float(d.max_win):,.0f} x total bet" in doc
    assert f"1 in {1 / float(d.max_win_probability):,.0f} |" in doc
    assert f"| standard deviation [x total bet] | {d.sd:.3f} |" in doc
    assert (
        f"| **total** | **{float(result.rtp):.4%}** | "
        f"{result.rtp.numerator}/{result.rtp.denominator} |" in doc
    )
    for name, j in result.features["jackpots"].items():
        assert f"| {name} |" in doc and f"| {j['one_in']:,.0f} |" in doc
    lengths = " x ".join(str(len(s)) for s in game.strips())
    assert lengths in doc
