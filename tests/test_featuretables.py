"""PAR tables per feature (slotmath.rules.featuretables): every feature of a
round has its rules in words and its odds tables, with units, and the
figures agree with the round's exact ones."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from slotmath.features.sheetrows import PER_HIT
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse

from conftest import TEST_DATA

EXAMPLES = Path(__file__).resolve().parents[1] / "slotmath" / "examples"


def test_free_games_tables():
    result = analyse(load_game(TEST_DATA / "classic_free_games"), 1)
    t = result.tables
    rules = " ".join(t["Free games: rules"]["rule"])
    assert "3 or more SCATTER" in rules and "5 free games" in rules and "multiplied by 3" in rules
    by = t["Free games by trigger count"].set_index("trigger count")
    # P(3 SCATTER) = 27/1000 (tests/test_free_round.py), 5 games awarded
    assert by.loc[3, "probability per round"] == pytest.approx(27 / 1000)
    assert by.loc[3, "odds [1 in N rounds]"] == pytest.approx(1000 / 27)
    assert by.loc[3, "games awarded"] == 5
    share = by["share of RTP"].sum()
    assert share == pytest.approx(float(result.components["free_games"] / result.rtp))
    table = t["Free games: distribution of games played"]
    # the counts shown (probability at least 1e-9), then one row for the rest
    other = table["games played"].map(lambda g: isinstance(g, str))
    played, rest = table[~other], table[other]
    assert rest["games played"].tolist() == ["any other (each below 1e-09)"]
    assert played["games played"].min() == 5 and played["games played"].iloc[1] == 10
    # games played 5, 10, ... : P(5) = (1 - p)^5 with p = 27/1000 (no retrigger in 5 games)
    assert played["probability given the trigger"].iloc[0] == pytest.approx((1 - 27 / 1000) ** 5)
    assert table["probability given the trigger"].sum() == pytest.approx(1, abs=1e-12)
    # the games left start at 5; each game uses one and adds 5 with p = 27/1000, so by the
    # hitting-time theorem P(N = 5m) = (5 / 5m) P(5 Binomial(5m, p) = 5m - 5)
    # = (1/m) C(5m, m - 1) p^(m-1) (1 - p)^(4m + 1): the row "any other" is the tail beyond
    # the last count shown
    p = 27 / 1000
    law = {5 * m: math.comb(5 * m, m - 1) * p ** (m - 1) * (1 - p) ** (4 * m + 1) / m for m in range(1, 60)}
    last = played["games played"].max()
    assert [law[g] for g in played["games played"]] == pytest.approx(
        played["probability given the trigger"].tolist(), rel=1e-9
    )
    assert rest["probability given the trigger"].iloc[0] == pytest.approx(
        sum(q for g, q in law.items() if g > last), rel=1e-6
    )
    # its mean is the renewal formula's 5 / (1 - 5 p)
    mean = (played["games played"] * played["probability given the trigger"]).sum()
    assert mean == pytest.approx(5 / (1 - 5 * 27 / 1000), rel=1e-7)
    odds = t["Free games: trigger and retrigger odds"].set_index("event")
    assert odds.loc["a free game retriggers", "probability"] == pytest.approx(27 / 1000)


def test_hold_and_spin_tables():
    result = analyse(load_game(EXAMPLES / "hold_and_spin"), 1)
    t, hs = result.tables, result.features["hold_and_spin"]
    assert "6 or more COIN" in " ".join(t["Hold-and-spin: rules"]["rule"])
    prizes = t["Hold-and-spin: coin prizes"]
    assert prizes["probability per coin"].sum() == pytest.approx(1)
    jackpots = t["Hold-and-spin: jackpots"].set_index("jackpot")
    assert set(jackpots.index) == {"MINI", "MINOR", "MAJOR", "GRAND"}
    # the GRAND is paid by a full screen: its hits per round are the full-screen odds
    assert jackpots.loc["GRAND", "hits per round"] == pytest.approx(hs["full_screen_probability"])
    assert jackpots.loc["GRAND", PER_HIT] == pytest.approx(1 / hs["full_screen_probability"])
    # a MINI can hit several times in one feature: its column is rounds per hit, not odds
    assert not any("odds" in c or "1 in N" in c for c in jackpots.columns)
    assert PER_HIT == "rounds per hit [1 / hits per round]"
    # jackpots' share of RTP is part of the feature's
    feature_share = float(result.components["hold_and_spin"] / result.rtp)
    assert 0 < jackpots["share of RTP"].sum() < feature_share
    award = t["Hold-and-spin: award"].iloc[0]
    assert award["share of RTP"] == pytest.approx(feature_share)
    assert unit_problems(t) == []


#: Columns that are names or counts (no unit to carry).
PLAIN = ("event", "per", "jackpot", "table", "prize", "weight", "rule", "segment", "choice", "shape", "coins")
#: Column starts that say what the figure is per (a probability, a count per round, ...).
SAID = (
    "share of RTP",
    "mean coins",
    "hits per",
    "games ",
    "trigger count",
    "probability",
    "mean games",
    "held cells",
    "expected shapes per feature",
)


def unit_problems(tables: dict) -> list:
    """Every feature table's column is a name, a count or carries its unit
    ([x total bet], [1 in N rounds], ...)."""
    from slotmath.rules.featuretables import feature_of

    return [
        (name, c)
        for name, frame in tables.items()
        if feature_of(name) is not None
        for c in frame.columns
        if not (c in PLAIN or "[" in c or c.startswith(SAID))
    ]


@pytest.mark.parametrize(
    "folder", [TEST_DATA / "lockit_tiny", EXAMPLES / "pick_and_wheel"], ids=["lockit", "wheel_selection"]
)
def test_every_feature_table_has_units(folder):
    tables = analyse(load_game(folder), 1).tables
    assert unit_problems(tables) == []
    assert unit_problems({"Wheel: x": pd.DataFrame({"value": [1]})})  # it can fail


def test_par_text_shows_each_feature():
    from slotmath.rules.par import par

    text = par(load_game(EXAMPLES / "hold_and_spin"), 1).text()
    assert "Hold-and-spin: jackpots" in text and "Hold-and-spin: trigger and full-screen odds" in text
    assert "%" in text.split("Hold-and-spin: jackpots")[1].split("\n\n")[0]


def test_sheet_of_a_feature_game(tmp_path):
    """The sheet of a free-games game: every feature's tables, the true and
    the shown maximum win, and no odds for the games played (a count)."""
    from report_checks import count_odds_problems, feature_problems, fraction_problems

    from slotmath.report.sheet import par_sheet

    sheet = par_sheet(str(TEST_DATA / "classic_free_games"), level=1, spins=100_000, seed=3)
    html = "\n".join(sheet.section_html(k) for k in sheet.sections)
    assert feature_problems(html, sheet.par.components) == []
    assert [p for p in fraction_problems(html) if "style" not in p] == []
    sheet.save(tmp_path)
    assert count_odds_problems(tmp_path / "par.xlsx") == []
    # the checks can fail
    assert feature_problems("<p>none</p>", ["free_games", "hold_and_spin"])
    # the free games' tables in a section of their own, which the contents link to
    assert (
        "features-free_games" in sheet.sections
        and "features" not in sheet.sections
        or (sheet.sections["features"].title == "Other feature figures")
    )
    assert 'href="#sec-features-free_games"' in sheet.contents_html()


@pytest.mark.parametrize(
    "folder, name, sheet_name",
    [
        (TEST_DATA / "lockit_tiny", "lockit", "Lock-it"),
        (EXAMPLES / "hold_and_spin", "hold_and_spin", "Hold-and-spin"),
    ],
    ids=["lockit", "hold_and_spin"],
)
def test_each_feature_has_its_section_and_jackpot_events(tmp_path, folder, name, sheet_name):
    """A feature's section holds every table of its kind (and only its own),
    its worksheet the same tables; its jackpots are Monte Carlo events with z
    and power."""
    from report_checks import FEATURE_TABLES, feature_problems, jackpot_event_problems

    from slotmath.report.sheet import par_sheet
    from slotmath.report.workbook import read_workbook
    from slotmath.rules.featuretables import feature_of

    sheet = par_sheet(str(folder), level=1, spins=200_000, seed=5)
    key = f"features-{name}"
    assert sheet.group("features")[0] == key  # show("features") shows every feature's section
    section = sheet.sections[key]
    assert {feature_of(t.title) for t in section.tables} == {name}
    html = "\n".join(sheet.section_html(k) for k in sheet.sections)
    assert feature_problems(html, sheet.par.components) == []
    assert jackpot_event_problems(html, sheet.par.features) == []
    assert jackpot_event_problems(html.replace("jackpot MINI", "jackpot"), sheet.par.features)
    sheet.save(tmp_path)
    book = read_workbook(tmp_path / "par.xlsx")[sheet_name]
    assert set(FEATURE_TABLES[name]) <= set(book)
    events = read_workbook(tmp_path / "par.xlsx")["Monte Carlo"][
        "Pays and features: simulated against exact frequency"
    ]
    jackpots = events[events["event"].str.contains("jackpot")]
    assert len(jackpots) and (jackpots["z"].abs() < 4).all()
    assert (jackpots["power: smallest error detected [% of exact rate]"] > 0).all()


def test_feature_of_a_title():
    from slotmath.rules.featuretables import feature_of

    assert feature_of("Free games: rules") == "free_games"
    assert feature_of("Free games by trigger count") == "free_games"
    assert feature_of("Hold and spin: coins given trigger") == "hold_and_spin"  # the JSON figures' title
    assert feature_of("Wheel (one spin)") == "wheel"
    assert feature_of("Free gamesx") is None and feature_of("Event rates") is None


@pytest.mark.parametrize(
    "folder, name",
    [(TEST_DATA / "classic_free_games", "free_games"), (EXAMPLES / "hold_and_spin", "hold_and_spin")],
    ids=["free_games", "hold_and_spin"],
)
def test_award_given_a_trigger(folder, name):
    """The award law given a trigger (mixed over the trigger keys) has the
    feature's exact mean award; its bands sum to 1."""
    import numpy as np

    from slotmath.engine.joint import spin_key_distribution
    from slotmath.features.round import award_given_trigger, round_law, round_triggers, started_keys
    from slotmath.rules.linegame import round_features

    game = load_game(folder)
    features = round_features(game, 1)
    keyed = spin_key_distribution(game, 1, round_triggers(features))
    law = round_law(keyed, features, distribution=False)
    f = next(x for x in features if x.name == name)
    started = started_keys(law.key_probability, features, f)
    wins, probs = award_given_trigger(f, started)
    p = float(sum(started.values()))
    assert probs.sum() == pytest.approx(1, abs=1e-9)
    # free games: the award law is resolved to 1e-12 (Chernoff bound on the FFT grid)
    assert float(np.dot(wins, probs)) == pytest.approx(float(law.components[name]) / p, rel=1e-9)
    bands = analyse(game, 1).tables[
        f"{'Free games' if name == 'free_games' else 'Hold-and-spin'}: award given a trigger, by size"
    ]
    # a band below the 1e-15 resolution reads "< 1e-15": less than 1e-15 each
    assert pd.to_numeric(bands["probability given the trigger"], errors="coerce").sum() == pytest.approx(
        1, abs=1e-9
    )


def test_rounds_per_hit_is_shown_as_odds_not_as_a_probability():
    from slotmath.report.featuresheet import name_format

    assert name_format(PER_HIT) == "odds"
    assert name_format("hits per round") == "prob"
    # a feature started in free games: its mean starts per round and rounds per start
    from slotmath.features.sheetrows import PER_ROUND, ROUNDS_PER

    assert name_format(ROUNDS_PER) == "odds"
    assert name_format(PER_ROUND) == "prob"


def test_award_bands_below_the_resolution_are_not_printed_as_numbers():
    from slotmath.features.sheetrows import award_bands

    # a 3000 x award at 2e-18 given the trigger: below the 1e-15 the float
    # laws resolve, so no figure of its band is a number
    bands = award_bands(np.array([1.0, 3000.0]), np.array([1 - 2e-18, 2e-18]), 0.01)
    bands = bands.set_index("award [x total bet]")
    assert bands.loc["1 to under 2", "probability given the trigger"] == 1 - 2e-18
    row = bands.loc["2000 to under 5000"]
    assert row["probability given the trigger"] == "< 1e-15"
    assert row["odds [1 in N features]"] == "over 1e+15"
    assert row["odds [1 in N rounds]"] == "over 1e+17"


def test_award_bands_text_keeps_small_probabilities():
    """A band table whose last band is unresolved ("< 1e-15") mixes words and
    numbers in one column; its text must still show a band of 1.3e-7 as
    such (pandas' fixed notation printed it 0.0 beside odds of 1 in 7.7e6)."""
    from slotmath.features.sheetrows import award_bands
    from slotmath.rules.result import table_text

    wins = np.array([3.0, 700.0, 3000.0, 6000.0])
    probs = np.array([1 - 1.3e-7 - 1e-17, 1.3e-7, 1e-17, 0.0])
    table = award_bands(wins, probs, trigger=0.01)
    text = table_text(table)
    row = next(line for line in text.splitlines() if "500 to under 1000" in line)
    assert "1.300000e-07" in row and "7.692308e+06" in row  # 1 / 1.3e-7 features
    assert " 0.0 " not in text
    assert "< 1e-15" in text  # the 2000-5000 band, unresolved


def test_text_tables_keep_whole_numbers_beside_none():
    """A column of whole weights with a None (Piggy's Superlock wheel) is not a
    column of numbers and words: it prints as it is (300, not 300.0; None, not NaN)."""
    from slotmath.rules.result import table_text

    weights = pd.Series([None, 300], dtype=object)  # as the wheel's table holds them
    text = table_text(pd.DataFrame({"segment": ["SUPERLOCK", "MINI"], "weight": weights}))
    assert "None" in text and " 300" in text and "300.0" not in text and "NaN" not in text
