"""Progressive jackpots declared in a game file (``options.jackpots.NAME:
{seed, contribution, reset}``): the renewal-reward figures of
:mod:`slotmath.features.progressive` at the jackpot's exact hit rate per round."""

from __future__ import annotations

import copy
import re
from fractions import Fraction as Fr

import pytest
from test_holdspin import hand_game_data, write_game

from slotmath.features.options import load_features
from slotmath.features.progressive import ProgressiveJackpot
from slotmath.io.gamefile import GameFileError
from slotmath.rules import linegame
from slotmath.rules.par import par

from conftest import docs_example

PROGRESSIVE = {"seed": 20, "contribution": "1/50", "reset": 10}


def progressive_hand_data(spec=None) -> dict:
    """The hand-worked 3x1 hold-and-spin of ``tests/test_holdspin.py`` whose
    full screen wins a progressive GRAND (``spec``, default :data:`PROGRESSIVE`)."""
    data = hand_game_data()
    data["options"]["jackpots"] = {"GRAND": copy.deepcopy(spec or PROGRESSIVE)}
    return data


def test_declaration_is_parsed_once_into_a_frozen_spec(tmp_path):
    game = write_game(tmp_path, progressive_hand_data())
    declared = load_features(game)
    assert declared.progressive == {"GRAND": ProgressiveJackpot("GRAND", Fr(20), Fr(1, 50), Fr(10))}
    assert declared.jackpots == {"GRAND": 0}  # not a coin win of the round
    funding = declared.progressive["GRAND"].funding
    assert (funding.meter_rate, funding.reserve_rate, funding.reseed) == (Fr(1, 50), 0, 10)
    # reset defaults to the seed
    game = write_game(tmp_path, progressive_hand_data({"seed": 7, "contribution": 0.01}), "default")
    assert load_features(game).progressive["GRAND"].reset == 7


def test_hold_and_spin_full_screen_progressive_equals_the_hand_renewal_reward(tmp_path):
    """Hand-worked (the game of ``test_holdspin.test_hand_worked_means_and_rtp``).

    A COIN shows on reel 1, 2, 3 with 1/3, 1/4, 1/2: one, two, three coins at
    the trigger with 11/24, 6/24, 1/24.  From one coin the screen fills with
    1/2, from two with 1/2, from three it is full: the GRAND is won with
        h = 11/24 x 1/2 + 6/24 x 1/2 + 1/24 = 19/48 per round.
    Coin win of the round (GRAND counts 0): with GRAND = 10 the feature is
    2821/384, so without it 2821/384 - 10 x 19/48 = 1301/384; lines 5/24.
    Progressive (seed 20, contribution 1/50, reset 10), renewal-reward:
        E[rounds between wins] = 48/19,
        E[J] = reset + contribution x 48/19 = 10 + 24/475 [x total bet],
        its return h x E[J] = 1/50 + 19/48 x 10 = 2387/600,
        first win after start-up: 20 + 24/475.
    RTP = 5/24 + 1301/384 + 2387/600 = 72717/9600.
    """
    game = write_game(tmp_path, progressive_hand_data())
    result = par(game)
    assert result.components == {
        "lines": Fr(5, 24),
        "hold_and_spin": Fr(1301, 384),
        "progressive GRAND": Fr(2387, 600),
    }
    assert result.rtp == Fr(72717, 9600)
    assert linegame.components(game, 1) == result.components  # the fast path agrees
    assert linegame.progressive_rates(game, 1) == {"GRAND": Fr(19, 48)}
    fig = result.features["progressive"]["GRAND"]
    assert fig["hit_probability_exact"] == "19/48"
    assert fig["rtp_exact"] == "2387/600"
    assert fig["expected_first_jackpot"] == pytest.approx(20 + 24 / 475, rel=1e-15)
    ref = fig["reference"]
    assert ref["expected_jackpot"] == pytest.approx(10 + 24 / 475, rel=1e-15)
    assert ref["contribution_rtp"] == pytest.approx(1 / 50, rel=1e-15)
    assert ref["seed_rtp"] == pytest.approx(190 / 48, rel=1e-15)
    # SD of the meter at a win: contribution x sqrt(1 - h) / h = 1/50 x sqrt(29/48) x 48/19
    assert ref["sd_jackpot"] == pytest.approx(1 / 50 * (29 / 48) ** 0.5 * 48 / 19, rel=1e-12)
    assert "Progressive GRAND (reference bet)" in result.tables
    assert any(n.startswith("Progressive jackpots (renewal-reward") for n in result.notes)
    # the coin-win distribution leaves the progressive out
    assert result.distribution.mean == pytest.approx(float(Fr(5, 24) + Fr(1301, 384)), rel=1e-13)


def test_a_full_screen_progressive_is_in_the_rules_the_jackpots_table_and_the_events(tmp_path):
    """The hand-worked game above (its full screen wins the progressive GRAND).

    GRAND is won with h = 19/48 per round, its meter at a win has mean
    E[J] = 10 + 24/475, so the hold-and-spin's jackpots table shows it at that
    value with share h x E[J] / RTP = (2387/600) / (72717/9600) = 38192/72717
    (the component progressive GRAND over the RTP), and the rules say a full
    screen wins it.  Before the fix the full screen's label was dropped when
    its coin value is 0: no rule, no GRAND row, no sampler event
    (`hold_and_spin jackpot GRAND`), which the round sampler must count at
    the rate 19/48 per round too (|z| < 4).
    """
    import numpy as np

    from slotmath.features.holdspin import jackpot_event

    game = write_game(tmp_path, progressive_hand_data())
    result = par(game)
    rules = list(result.tables["Hold-and-spin: rules"]["rule"])
    assert any("full screen wins the progressive GRAND" in r for r in rules), rules
    jackpots = result.tables["Hold-and-spin: jackpots"].set_index("jackpot")
    grand = jackpots.loc["GRAND (progressive; value: mean meter at a win)"]
    assert grand["hits per round"] == pytest.approx(19 / 48, rel=1e-12)
    assert grand["value [x total bet]"] == pytest.approx(10 + 24 / 475, rel=1e-12)
    assert grand["share of RTP"] == pytest.approx(38192 / 72717, rel=1e-12)
    event = jackpot_event("GRAND")
    sampler = linegame.round_sampler(game, 1)
    names = list(sampler.event_names)
    assert any(n.endswith(event) for n in names), names
    k = next(i for i, n in enumerate(names) if n.endswith(event))
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(17)))
    n = 200_000
    hits = int(sampler.kernel(rng, n, *sampler.args)[1][k])  # events summed over the rounds
    h = 19 / 48  # at most one full screen a round: binomial
    assert abs((hits - n * h) / (n * h * (1 - h)) ** 0.5) < 4


def test_progressive_with_reset_equal_to_a_fixed_prize_adds_exactly_its_contribution(tmp_path):
    # same game with a fixed GRAND of 10: RTP 2901/384 (tests/test_holdspin.py), unchanged;
    # a progressive resetting to 10 returns the same 10 x 19/48 plus the contribution 1/50
    fixed = par(write_game(tmp_path, hand_game_data(), "fixed"))
    assert fixed.rtp == Fr(2901, 384)
    assert fixed.components == {"lines": Fr(5, 24), "hold_and_spin": Fr(2821, 384)}
    assert "progressive" not in fixed.features
    prog = par(write_game(tmp_path, progressive_hand_data(), "prog"))
    assert prog.rtp == fixed.rtp + Fr(1, 50)


@pytest.mark.parametrize(
    ("spec", "field", "problem"),
    [
        ({"seed": 20, "contribution": 1}, "contribution", "must be below 1"),
        ({"seed": 20, "contribution": 0}, "contribution", "must be positive"),
        ({"seed": 20, "contribution": "x"}, "contribution", "must be a number"),
        ({"seed": -5, "contribution": 0.01}, "seed", "must be positive"),
        ({"seed": 1e12, "contribution": 0.01}, "seed", "1e+12 is above the bound 1e+09"),
        ({"seed": 20, "contribution": 0.01, "reset": -1}, "reset", "must be positive"),
        ({"seed": 20, "contribution": 0.01, "meter": 1}, "meter", "unknown key"),
        ({"contribution": 0.01}, "seed", "is required"),
        ({"seed": 20}, "contribution", "is required"),
    ],
)
def test_bad_declarations_name_the_field(tmp_path, spec, field, problem):
    with pytest.raises(GameFileError, match=rf"options\.jackpots\.GRAND\.{field}: {re.escape(problem)}"):
        write_game(tmp_path, progressive_hand_data(spec))


def test_round_cap_beside_a_progressive_is_refused(tmp_path):
    data = progressive_hand_data()
    data["options"]["round_cap"] = 50
    with pytest.raises(GameFileError, match=r"options\.round_cap: cannot be combined with a progressive"):
        write_game(tmp_path, data)


def test_docs_worked_example_progressive_wheel(tmp_path):
    # docs/features.md, "Worked example: progressive jackpot": the wheel spins on
    # 10/64 of the rounds, GRAND is 1 segment in 10: h = 1/64; coin wheel
    # (10/64) x (5 + 12 + 20 + 0)/10 = 37/64; progressive 1/100 + 50/64 = 633/800;
    # RTP = 1 + 37/64 + 633/800 = 3791/1600; E[J] = 50 + 64/100 = 50.64
    game, section = docs_example(tmp_path, "### Worked example: progressive jackpot")
    result = par(game)
    assert result.components == {"lines": 1, "wheel": Fr(37, 64), "progressive GRAND": Fr(633, 800)}
    assert result.rtp == Fr(3791, 1600)
    fig = result.features["progressive"]["GRAND"]
    assert fig["reference"]["expected_jackpot"] == pytest.approx(50.64, rel=1e-15)
    assert fig["expected_first_jackpot"] == pytest.approx(100.64, rel=1e-15)
    for figure in ("`3791/1600`", "236.9375 %", "633/800", "37/64", "50.64", "100.64", "1 in 64"):
        assert figure in section
    assert f"{float(result.rtp):.4%}" == "236.9375%"


def test_quick_simulation_says_the_progressive_return_is_not_a_round_win(tmp_path):
    # `slotmath simulate` compares the run with the rules' fast path (RTP by
    # component, not the whole PAR).  The docs' progressive wheel game: the
    # rounds pay lines 1 + wheel 37/64 = 101/64 (GRAND counts 0 in the coin
    # win); the game's RTP 3791/1600 also holds progressive GRAND 633/800
    # (hand-worked in the test above), which no round pays.  The report must
    # compare the run with 101/64 and say why the RTP it quotes is 633/800
    # (79.12500 %) below the game's; before the fix it said nothing.
    from slotmath.analysis.simulation import simulate_game

    game, _ = docs_example(tmp_path, "### Worked example: progressive jackpot")
    result = simulate_game(game, 20_000, seed=3, workers=1, progress=False)
    report = result.convergence
    assert report.figures.set_index("figure").loc["RTP", "exact"] == pytest.approx(101 / 64, rel=1e-15)
    assert any("+79.12500% that no round pays out" in note for note in report.notes), report.notes
    assert abs(report.max_abs_z) < 4


def test_sheet_tables_value_a_progressive_at_its_meter_and_share_the_whole_rtp(tmp_path):
    # The same worked example's sheet.  The wheel's jackpots table values GRAND at
    # its meter's mean at a win, E[J] = 50.64, and its share of the RTP is
    # h x E[J] / RTP = (1/64 x 50.64) / (3791/1600) = 0.79125 / 2.369375 = 33.395 %,
    # the component progressive GRAND (633/800 = 0.79125) over the RTP; MINI's
    # share is (10/64 x 1/10) x 20 / (3791/1600) = 0.3125 / 2.369375; the wheel's
    # (37/64) / (3791/1600).  The segment table keeps GRAND's coin value 0 and says
    # the meter pays it.
    game, _ = docs_example(tmp_path, "### Worked example: progressive jackpot")
    tables = par(game).tables
    jackpots = tables["Wheel: jackpots"].set_index("jackpot")
    grand = jackpots.loc["GRAND (progressive; value: mean meter at a win)"]
    assert grand["value [x total bet]"] == pytest.approx(50.64, rel=1e-12)
    assert grand["share of RTP"] == pytest.approx(0.79125 / 2.369375, rel=1e-12)
    assert jackpots.loc["MINI", "share of RTP"] == pytest.approx(0.3125 / 2.369375, rel=1e-12)
    start = tables["Wheel: start odds and award"].iloc[0]
    assert start["share of RTP"] == pytest.approx(float(Fr(37, 64) / Fr(3791, 1600)), rel=1e-12)
    segments = tables["Wheel (one spin)"].set_index("segment")
    grand_segment = "GRAND (progressive: paid by its meter, not in the award)"
    assert segments.loc[grand_segment, "value [x total bet]"] == 0


def test_line_rules_keep_the_contract_with_a_progressive(tmp_path):
    # the progressive's return is an unpaid component: the distribution's mean is
    # the RTP less it, and the round sampler's parts leave it out
    from slotmath.rules.contract import LINE_ROUND
    from slotmath.testing.conformance import check_rules

    game = write_game(tmp_path, progressive_hand_data())
    assert LINE_ROUND.unpaid_components(game) == {"progressive GRAND"}
    assert "progressive GRAND" not in LINE_ROUND.part_components(game, 1)
    check_rules(LINE_ROUND, game, rounds=20_000)


def test_rules_that_do_not_play_a_progressive_refuse_it(tmp_path):
    # Piggy Bankin' Superlock reads options.jackpots through the feature parser
    # but would pay a progressive as 0: refused, naming the field
    import shutil

    from slotmath.io.gamefile import load_game

    from conftest import ROOT

    folder = tmp_path / "piggy"
    shutil.copytree(ROOT / "data" / "games" / "piggy_bankin_superlock", folder)
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    fixed = "GRAND: 2500}"
    assert fixed in text
    path.write_text(text.replace(fixed, "GRAND: {seed: 2500, contribution: 0.01}}"), encoding="utf-8")
    with pytest.raises(GameFileError, match=r"options\.jackpots\.GRAND: is progressive, which rules 'piggy"):
        load_game(folder)


def test_ways_game_gives_the_same_progressive_figures(tmp_path):
    # one row of three reels: the 1 x 1 x 1 = 1 way is the one payline, so the
    # ways game has the line game's figures (h = 19/48, RTP 72717/9600)
    data = progressive_hand_data()
    del data["paylines"]
    data["pays_by"] = "ways"
    result = par(write_game(tmp_path, data))
    assert result.components == {
        "ways": Fr(5, 24),
        "hold_and_spin": Fr(1301, 384),
        "progressive GRAND": Fr(2387, 600),
    }
    assert result.rtp == Fr(72717, 9600)


def test_selection_choice_awarding_a_progressive(tmp_path):
    """The game of the docs example with a selection in place of the wheel:
    2+ S (10/64 of the rounds) offer GRAND or 4, uniform policy.
        h = 10/64 x 1/2 = 5/64; coin selection 10/64 x (0 + 4)/2 = 5/16;
        progressive 1/100 + 5/64 x 50 = 3133/800;
        RTP = 1 + 5/16 + 3133/800 = 4183/800; E[J] = 50 + (1/100) x 64/5 = 50.128.
    """
    import yaml

    game, _ = docs_example(tmp_path, "### Worked example: progressive jackpot")
    data = yaml.safe_load((tmp_path / "example" / "game.yaml").read_text(encoding="utf-8"))
    del data["options"]["wheel"], data["options"]["jackpots"]["MINI"]
    data["options"]["selection"] = {
        "symbol": "S",
        "trigger": 2,
        "policy": "uniform",
        "choices": [{"prize": "GRAND"}, {"prize": 4}],
    }
    result = par(write_game(tmp_path, data))
    assert result.components == {"lines": 1, "selection": Fr(5, 16), "progressive GRAND": Fr(3133, 800)}
    assert result.rtp == Fr(4183, 800)
    ref = result.features["progressive"]["GRAND"]["reference"]
    assert ref["expected_jackpot"] == pytest.approx(50.128, rel=1e-15)
