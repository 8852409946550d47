"""Bet modes: each mode's exact RTP against hand-worked and brute-force
values on a tiny game, the buy's RTP against the renewal formula, the
command line, and the samplers against the exact figures (z-scores)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest
import yaml

from slotmath.cli import main
from slotmath.io.gamefile import load_game
from slotmath.rules.modepar import mode_par
from slotmath.rules.modes import mode_game, mode_names
from slotmath.rules.par import par

# 3 reels x 1 row, one payline, total bet 1 at level 1; 3 A pay 4.
# base reels [A, A, S, X]; ante reels [A, S, S, X]; free reels [A, X] (no
# retrigger) or [A, S, X, X] (retrigger).  3 S start 2 free games at x2.
TOY = {
    "name": "toy_modes",
    "grid": {"reels": 3, "rows": 1},
    "bet": {"levels": [1]},
    "symbols": [{"name": "A"}, {"name": "S", "kind": "scatter"}, {"name": "X", "kind": "blank"}],
    "reels": {
        "base": [["A", "A", "S", "X"]] * 3,
        "ante": [["A", "S", "S", "X"]] * 3,
        "free": [["A", "X"]] * 3,
    },
    "paylines": [[0, 0, 0]],
    "pays": [{"symbol": "A", "count": 3, "pay": 4}],
    "options": {
        "free_games": {"symbol": "S", "reels": "free", "multiplier": 2, "awards": {3: {"games": 2}}},
    },
    "modes": {
        "ante": {"cost": 1.25, "label": "ante", "reels": {"base": "ante"}},
        "buy": {"cost": 4, "buy": {"feature": "free_games", "games": 3}},
        "buy_capped": {"cost": 4, "buy": {"feature": "free_games", "games": 3}, "round_cap": 10},
    },
}


def write(tmp_path, data, name="toy"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return folder


@pytest.fixture
def toy(tmp_path):
    return load_game(write(tmp_path, TOY))


def brute_base_mean(strips, free_mean: Fraction) -> Fraction:
    """Mean round win by listing every stop: 4 for 3 A, ``free_mean`` for 3 S."""
    total, n = Fraction(0), 0
    for window in product(*strips):
        n += 1
        total += 4 if window == ("A", "A", "A") else 0
        total += free_mean if window == ("S", "S", "S") else 0
    return total / n


def test_each_mode_rtp_is_the_hand_worked_value(toy):
    # a free spin on [A, X]^3: 3 A with 1/8, paying 4 x 2 = 8; mean 1 per free game
    # base: 3 A with (2/4)^3 = 1/8 -> 4/8; 3 S with 1/64 -> 2 games -> 2/64: 17/32
    # ante: 3 A with 1/64 -> 1/16; 3 S with 1/8 -> 2/8; 5/16 per round over cost 5/4: 1/4
    # buy: 3 free games, mean 3 x 1 = 3 over cost 4: 3/4
    assert mode_names(toy) == ("base", "ante", "buy", "buy_capped")
    figures = {name: mode_par(toy, name) for name in ("base", "ante", "buy")}
    assert figures["base"].rtp == Fraction(17, 32) == par(toy).rtp
    assert figures["ante"].rtp == Fraction(1, 4)
    assert figures["ante"].par.rtp == Fraction(5, 16)
    assert figures["buy"].rtp == Fraction(3, 4)
    # brute force over the cycle agrees (the feature's mean 2 = 2 games x 1)
    for name, strips in (("base", TOY["reels"]["base"]), ("ante", TOY["reels"]["ante"])):
        assert figures[name].par.rtp == brute_base_mean(strips, Fraction(2))
    # the ante plays its reels on the base spin only: the free games keep 'free'
    ante = mode_game(toy, "ante")
    assert ante.strips("base") == toy.strips("ante") and ante.strips("free") == toy.strips("free")
    assert "ante" not in ante.reel_sets


def test_buy_round_distribution_max_win_and_cap(toy):
    # award = 8 x Binomial(3, 1/8): P(0) = 343/512, max 24 with (1/8)^3 = 1/512
    buy = mode_par(toy, "buy").par
    assert buy.hit_frequency == pytest.approx(1 - 343 / 512, abs=1e-12)
    top = buy.true_max_win
    assert top.value == 24 and top.probability == Fraction(1, 512)
    # capped at 10: E = 8 P(1) + 10 P(>=2) = 8 x 147/512 + 10 x 22/512 = 349/128
    capped = mode_par(toy, "buy_capped")
    assert float(capped.par.rtp) == pytest.approx(349 / 128, abs=1e-12)
    assert float(capped.rtp) == pytest.approx(349 / 512, abs=1e-12)
    assert capped.round_cap == 10 and capped.par.true_max_win.value == 10


def test_buy_rtp_is_the_renewal_mean_over_the_cost(tmp_path):
    # free reels [A, S, X, X]^3: a free spin pays 4 x 2 with 1/64 (E[Y] = 4/64
    # before the x2) and 3 S (1/64) add 2 games: E[K] = 2/64 = 1/32.  From n
    # games E[games played] = n / (1 - E[K]) = 32 n / 31 and the award is
    # 2 x E[Y] x 32 n / 31 = 4 n / 31; buying 5 games at cost 1: 20/31.
    data = yaml.safe_load(yaml.safe_dump(TOY))
    data["reels"] = {"base": TOY["reels"]["base"], "free": [["A", "S", "X", "X"]] * 3}
    data["modes"] = {"buy": {"cost": 1, "buy": {"feature": "free_games", "games": 5}}}
    game = load_game(write(tmp_path, data))
    result = mode_par(game, "buy")
    assert result.rtp == Fraction(20, 31)
    assert result.par.features["free_games"]["mean_games"] == pytest.approx(5 * 32 / 31)


def test_buy_under_a_reel_condition_keeps_it_for_retriggers(tmp_path):
    # the same renewal as above with trigger: {reels: [1, 2, 3]}: three S on three
    # reels need one on each, so E[K] and the award are unchanged (20/31); the
    # bought round's key is a count per reel (a TypeError before)
    data = yaml.safe_load(yaml.safe_dump(TOY))
    data["reels"] = {"base": TOY["reels"]["base"], "free": [["A", "S", "X", "X"]] * 3}
    data["options"]["free_games"]["trigger"] = {"reels": [1, 2, 3]}
    data["modes"] = {"buy": {"cost": 1, "buy": {"feature": "free_games", "games": 5}}}
    game = load_game(write(tmp_path, data))
    assert mode_par(game, "buy").rtp == Fraction(20, 31)


@pytest.mark.parametrize("kind", ["drawn", "heights"])
def test_buy_plays_the_game_as_played(tmp_path, kind):
    # a bought round reads the game with its drawn wild multipliers written
    # into the stops (its exact RTP ignored them: 10.85 against the sampler's
    # 46.57) or its reel heights into the strips; the buy of the games 3 S
    # award equals the base round's free games component over P(3 S)
    from slotmath.engine.reels import height_game
    from slotmath.features.options import load_features
    from slotmath.features.round import trigger_key_probability
    from slotmath.rules.registry import rules_for

    data = {
        "name": "buy_played",
        "grid": {"reels": 3, "rows": 1},
        "bet": {"levels": [1]},
        "symbols": [
            {"name": "A"},
            {"name": "X", "kind": "blank"},
            {"name": "S", "kind": "scatter"},
            {"name": "W", "kind": "wild", "substitutes": "all"},
        ],
        "reels": {
            "base": [["A", "W", "W", "X", "S"], ["A", "W", "X", "X", "S"], ["A", "A", "W", "X", "S"]],
            "free": [["A", "W", "S", "X"]] * 3,
        },
        "paylines": [[0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": 8}],
        "options": {
            "free_games": {"symbol": "S", "reels": "free", "awards": {3: {"games": 5}}},
            "wild_multipliers": {"symbol": "W", "table": [[2, 3], [3, 1]]},
        },
        "modes": {"buy": {"cost": 1, "buy": {"feature": "free_games", "games": 5}}},
    }
    if kind == "heights":
        del data["paylines"], data["options"]["wild_multipliers"]
        data.update(pays_by="ways")
        data["grid"] = {"reels": 3, "rows": 2, "heights": {"weights": [[1, 1], [2, 3]]}}
    game = load_game(write(tmp_path, data))
    fg = rules_for(game).components(game, 1)["free_games"]
    played = height_game(game)  # the game itself without heights
    p3 = trigger_key_probability(played, load_features(game).free_games.trigger).get(3, 0)
    assert mode_par(game, "buy").rtp == fg / p3


def test_game_without_modes_has_the_base_mode(tmp_path):
    data = {k: v for k, v in TOY.items() if k != "modes"}
    data["reels"] = {"base": TOY["reels"]["base"], "free": TOY["reels"]["free"]}
    game = load_game(write(tmp_path, data))
    assert mode_names(game) == ("base",)
    assert mode_par(game, "base").rtp == par(game).rtp == Fraction(17, 32)


def test_cli_par_modes(tmp_path, capsys):
    folder = write(tmp_path, TOY)
    assert main(["par", str(folder), "--all-modes", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rtp = {name: m["rtp_exact"] for name, m in out["modes"].items()}
    assert rtp["base"] == "17/32" and rtp["ante"] == "1/4" and rtp["buy"] == "3/4"
    assert out["modes"]["ante"]["cost_exact"] == "5/4" and out["modes"]["buy_capped"]["round_cap"] == 10
    assert main(["par", str(folder), "--mode", "ante"]) == 0
    text = capsys.readouterr().out
    assert "Bet mode ante" in text and "25.000000%" in text
    assert main(["par", str(folder), "--mode", "nope"]) == 2
    assert "no mode 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["ante", "buy"])
def test_sampler_agrees_with_each_mode(toy, name):
    from slotmath.analysis.simulation import cross_check_mode

    result = cross_check_mode(toy, name, None, 200_000, seed=3, workers=1)
    rtp = result.result.rtp
    assert rtp.exact == pytest.approx(float(mode_par(toy, name).par.rtp))
    assert abs(rtp.z) < 4
    assert result.to_dict()["rtp_per_cost_exact"] == pytest.approx(float(mode_par(toy, name).rtp))
    # a bought round is reported as any other run: the figures' table with
    # the exact hit frequency and SD of the bought round and their z-scores,
    # each component, the win bins against the bought round's exact law
    text = result.text()
    exact = mode_par(toy, name).par
    assert "figure            simulated" in text and "Win distribution [x total bet]" in text
    assert result.result.hit_frequency.exact == pytest.approx(exact.hit_frequency, rel=1e-12)
    assert result.result.sd.exact == pytest.approx(exact.sd, rel=1e-12)
    assert abs(result.result.sd.z) < 4 and abs(result.result.hit_frequency.z) < 4
    for part in exact.components:
        assert f"RTP: {part}" in text


def test_example_game_modes(capsys):
    # data/games/modes_free_spins: the buy's RTP is the free games' mean award
    # from 38 games over 100: 38 x (the award from 10 games) / 10, linear in n
    game = load_game("modes_free_spins")
    base = par(game)
    ten = base.features["free_games"]["mean_award"]  # from 10 games, no prize
    buy = mode_par(game, "buy")
    assert float(buy.rtp) == pytest.approx(38 * ten / 10 / 100, rel=1e-12)
    assert mode_par(game, "ante").rtp > 0 and mode_par(game, "base").rtp == base.rtp


def test_par_sheet_shows_every_mode(tmp_path, toy):
    # the sheet's summary lists every mode; the workbook has a sheet per declared mode
    from slotmath.report.sheet import par_sheet
    from slotmath.report.workbook import read_workbook

    sheet = par_sheet(toy, spins=0, session_lengths=(10,))
    table = next(t for t in sheet.sections["summary"].tables if t.title == "Bet modes")
    assert list(table.frame["mode"]) == ["base", "ante", "buy", "buy_capped"]
    assert list(table.frame["RTP exact"][:3]) == ["17/32", "1/4", "3/4"]
    sheet.save(tmp_path / "out")
    book = read_workbook(tmp_path / "out" / "par.xlsx")
    assert {"Mode ante", "Mode buy", "Mode buy_capped"} <= set(book)
    figures = book["Mode ante"]["Mode ante: headline figures"].set_index("figure")["value"]
    assert figures["RTP exact"] == "1/4" and figures["cost [x total bet]"] == 1.25
    data = json.loads((tmp_path / "out" / "par.json").read_text())
    assert data["modes"]["buy"]["rtp_exact"] == "3/4" and "round" not in data["modes"]["base"]
    # par.txt: the base mode's PAR, then each mode's headline figures
    text = (tmp_path / "out" / "par.txt").read_text()
    assert text.startswith(sheet.par.text())
    modes = text[text.index("Bet modes (RTP per unit of cost") :]
    assert [line.split()[1] for line in modes.splitlines() if line.startswith("mode ")] == [
        "base",
        "ante",
        "buy",
        "buy_capped",
    ]
    assert [line.split()[-1] for line in modes.splitlines() if line.startswith("RTP exact")][2] == "3/4"


def test_each_declared_mode_has_a_section_on_the_page(toy):
    # the sheet (not only the workbook) shows what differs in each declared
    # mode: its headline figures per unit of cost, its round's wins by size
    # (the same law as its PAR: probabilities summing to 1, shares of its
    # mean round win summing to 1) and what the mode changes, in words
    from slotmath.report.sheet import par_sheet

    sheet = par_sheet(toy, spins=0, session_lengths=(10,))
    assert sheet.group("modes") == ["modes-ante", "modes-buy", "modes-buy_capped"]
    keys = list(sheet.sections)
    assert keys.index("features") < keys.index("modes-ante") < keys.index("simulation")
    buy = sheet.sections["modes-buy"]
    assert buy.text.startswith("Costs ") and "Buys the free games at once" in buy.text
    bands = next(t for t in buy.tables if t.title == "Mode buy: round win by size [x total bet]").frame
    law = mode_par(toy, "buy").par.distribution
    assert bands["probability"].sum() == pytest.approx(1, abs=1e-12)
    assert bands["probability"][0] == pytest.approx(float(law.probabilities[law.x == 0].sum()), abs=1e-15)
    assert bands["RTP share"].fillna(0).sum() == pytest.approx(1, abs=1e-12)
    html = sheet.section_html("modes-ante")
    assert "Bet mode ante" in html and "Mode ante: headline figures" in html
    assert sheet.group("features")[-1] == "features" and not any(
        k.startswith("modes-") for k in sheet.group("features")
    )


@pytest.mark.parametrize(("q", "resolved"), [(1000, True), (10**8, False)])
def test_capped_max_win_odds_are_the_caps_or_none(tmp_path, q, resolved):
    # a bought hold-and-spin on a 3x1 window: 1 coin (prize 1) held, 1
    # countdown respin in which each of the 2 other cells lands a coin
    # (prize 1) with 1/q; a full screen adds 1000, so the round wins 3 + 1000
    # > the cap 500 with (1/q)^2, 2 with 2 (1/q)(1 - 1/q), else 1.  q = 1000:
    # P(cap) = 1e-6, resolved by the float distribution; q = 1e8: 1e-16 is
    # below its resolution (1e-15), and its top is the 2 x win, whose odds
    # (1 in 5e7) the sheet gave as the cap's
    data = {
        "name": "capped_buy",
        "grid": {"reels": 3, "rows": 1},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "X", "kind": "blank"}, {"name": "C", "kind": "special"}],
        "reels": {"base": [["A", "X", "C"]] * 3},
        "paylines": [[0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": 5}],
        "options": {
            "hold_and_spin": {
                "symbol": "C",
                "trigger": 3,
                "respins": 1,
                "rule": "countdown",
                "probabilities": [[f"1/{q}"] * 3],
                "values": [{"prize": 1, "weight": 1}],
                "full_screen": 1000,
            }
        },
        "modes": {"hs": {"cost": 2, "buy": {"feature": "hold_and_spin", "coins": 1}, "round_cap": 500}},
    }
    par_ = mode_par(load_game(write(tmp_path, data)), "hs").par
    top = par_.true_max_win
    assert top.value == 500
    if resolved:
        assert top.probability == pytest.approx(1 / q**2, rel=1e-9)
    else:
        assert float(par_.distribution.max_win) == 2  # the top it resolves
        assert top.probability is None


def test_bought_round_text_has_no_pandas_dump(toy):
    # a bought round has no base spin, so no combination table: the text
    # sheet (slotmath par --mode buy) says so in one line, not pandas'
    # "Empty DataFrame / Columns: [...] / Index: []"
    text = mode_par(toy, "buy").par.text()
    assert "Empty DataFrame" not in text and "Index: []" not in text
    assert "Combination table\n(none: " in text


def test_bought_round_notes_say_it_has_no_base_spin(toy):
    # the bought round's notes said "Bought round: ... (no base spin)" and then
    # "Round = base spin (line pays and scatters) followed by ..."; the round
    # method note now says what the round is, and the base mode's keeps its words
    notes = mode_par(toy, "buy").par.notes
    assert not any(n.startswith("Round = base spin") for n in notes)
    lead = "Round = the bought feature alone (no base spin). RTP by component"
    assert any(n.startswith(lead) for n in notes)
    assert any(n.startswith("Round = base spin") for n in mode_par(toy, "base").par.notes)


def test_capped_round_without_a_largest_win_has_the_cap_as_max_win():
    # tests/data/capped_free_spins: free games retriggered without a limit
    # have no largest win, but the round cap 500 pays every win above it, so
    # the round's largest win is 500 (the sheet said "none: no largest win");
    # the capped distribution resolves the cap (its top), whose odds it gives
    from conftest import TEST_DATA

    result = par(load_game(TEST_DATA / "capped_free_spins"))
    top = result.true_max_win
    assert top.value == 500 and float(result.distribution.max_win) == 500
    assert top.probability == float(result.distribution.max_win_probability) > 0
