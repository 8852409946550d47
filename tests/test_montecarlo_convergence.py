"""The convergence report: exact event rates, the win-distribution bins,
the rounds needed for +-0.01 pp, and that a wrong exact figure is caught."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import pytest

from slotmath.analysis import simulation
from slotmath.io.gamefile import load_game
from slotmath.montecarlo.convergence import (
    convergence_report,
    event_key,
    exact_event_rates,
    exact_figures,
    rounds_for_precision,
)
from slotmath.rules.par import par


@pytest.fixture(scope="module")
def video():
    game = load_game("video20")
    level = game.levels[0]
    exact = par(game, level)
    result = simulation.simulate_game(
        game, 500_000, seed=77, level=level, chunk=125_000, workers=1, progress=False, exact=exact
    )
    return game, level, exact, result


def test_event_key_names():
    assert event_key("line", "5 x A") == "line: 5 x A"
    assert event_key("line", "3 x H1", 4) == "line: 3 x H1 (x4)"
    assert event_key("scatter", "3+ x S", 1) == "scatter: 3+ x S"


def test_exact_event_rates_are_hits_over_cycle(video):
    game, level, exact, _ = video
    rates = exact_event_rates(exact, {"bonus": 0.25})
    row = exact.combinations.iloc[0]
    key = event_key(row["kind"], row["combination"], int(row["multiplier"]))
    assert rates[key] == Fraction(int(row["hits"]), game.cycle())
    assert rates["bonus"] == 0.25
    # scatter rows too: P(3+ scatters) as an exact fraction
    sc = exact.combinations[exact.combinations["kind"] == "scatter"]
    assert sum(rates[event_key("scatter", c)] for c in sc["combination"]) == Fraction(
        int(sc["hits"].sum()), game.cycle()
    )


def test_report_compares_every_figure(video):
    game, level, exact, result = video
    rep = result.convergence
    figs = rep.figures.set_index("figure")
    assert figs.loc["RTP", "exact"] == float(exact.rtp)
    assert figs.loc["hit frequency", "exact"] == exact.hit_frequency
    assert figs.loc["SD", "exact"] == pytest.approx(exact.sd, rel=1e-12)
    # hit frequency z uses the exact binomial standard error
    hf = exact.hit_frequency
    assert figs.loc["hit frequency", "se"] == pytest.approx(math.sqrt(hf * (1 - hf) / 500_000))
    assert rep.histogram["exact"].sum() == pytest.approx(1.0, abs=1e-12)
    assert rep.histogram["rounds"].sum() == 500_000
    assert rep.rounds_needed == pytest.approx((1.96 * exact.sd / 1e-4) ** 2)
    assert rep.sd_source == "exact"
    assert rep.max_abs_z < 4
    text = result.text()
    assert "line: 5 x H1" in text and "Win distribution" in text and "z" in text


def test_wrong_exact_value_is_caught(video):
    # compare the run with the exact figures of a game whose 3 x TEN pays
    # twice as much: the RTP z-score must flag it
    game, level, exact, result = video
    i = next(k for k, lp in enumerate(game.line_pays) if lp.name == "3 x TEN")
    pays = list(game.line_pays)
    pays[i] = replace(pays[i], pays=tuple(2 * p for p in pays[i].pays))
    wrong = par(replace(game, line_pays=tuple(pays)), level)
    rep = convergence_report(result.run.stats, result.run.event_names, wrong)
    rtp = rep.figures.set_index("figure").loc["RTP"]
    assert rtp["z"] < -4


def test_components_not_paid_by_rounds_are_noted(video):
    # a game whose RTP holds a contribution no round pays (a progressive
    # meter) is compared on the round win's mean, with a note
    game, level, exact, result = video
    with_meter = replace(exact, rtp=exact.rtp + Fraction(27, 1000))
    assert exact_figures(with_meter)["rtp"] == float(exact.rtp)
    rep = convergence_report(result.run.stats, result.run.event_names, with_meter)
    assert rep.figures.set_index("figure").loc["RTP", "exact"] == float(exact.rtp)
    assert any("+2.70000% that no round pays out" in n for n in rep.notes)


def test_report_without_exact_values(video):
    _, _, _, result = video
    rep = convergence_report(result.run.stats, result.run.event_names, None)
    assert rep.figures["exact"].isna().all() and rep.figures["z"].isna().all()
    assert rep.sd_source == "simulated"
    sd = rep.figures.set_index("figure").loc["SD", "simulated"]
    assert rep.rounds_needed == pytest.approx(rounds_for_precision(sd))
    assert rep.max_abs_z == 0.0


def test_components_of_the_rules_equal_the_par_components():
    # the rules' fast components are the PAR's, exactly (line, ways and Grand Spinn)
    from slotmath.rules.registry import rules_for

    for name in ("fruit_classic", "video20", "ways4096", "grand_spinn_superpot"):
        game = load_game(name)
        level = game.levels[-1]
        assert rules_for(game).components(game, level) == par(game, level).components, name


def test_piggy_components_group_the_breakdown():
    # Piggy's fast components group the breakdown's channels: lines and
    # selection prizes exactly, the lock-it parts (shapes, wheel, Superlock)
    # to float rounding, under both selection policies
    from slotmath.rules.piggy_bankin_superlock import analysis as pbs

    game = load_game("piggy_bankin_superlock")
    b = pbs.breakdown(game, 1)
    for policy in pbs.POLICIES:
        fast = pbs.components(game, 1, policy)
        assert list(fast) == list(pbs.PARTS[policy])
        full = b.components[policy]
        assert (
            fast["base lines"] == full["base lines"] and fast["selection prizes"] == full["selection prizes"]
        )
        rest = sum(float(v) for k, v in full.items() if k not in ("base lines", "selection prizes"))
        assert fast["lock-it base game"] + fast[pbs.PARTS[policy][3]] == pytest.approx(rest, rel=1e-12)
        base = [k for k in full if k.startswith("lock-it base game")]
        assert fast["lock-it base game"] > sum(float(full[k]) for k in base)  # plus its wheel share


def test_quick_comparison_uses_rtp_components_and_cheap_moments(video):
    # the default comparison: no PAR, the RTP by component and the exact
    # moments (hit frequency, SD); each part of the round win has its z
    game, level, exact, _ = video
    result = simulation.simulate_game(
        game, 200_000, seed=5, level=level, chunk=100_000, workers=1, progress=False
    )
    rep = result.convergence
    figs = rep.figures.set_index("figure")
    assert figs.loc["RTP", "exact"] == float(exact.rtp)
    assert figs.loc["hit frequency", "exact"] == pytest.approx(exact.hit_frequency, rel=1e-12)
    assert figs.loc["SD", "exact"] == pytest.approx(exact.sd, rel=1e-12)
    parts = rep.components.set_index("figure")
    assert list(parts.index) == ["RTP: lines", "RTP: scatters"]
    for name, value in exact.components.items():
        assert parts.loc[f"RTP: {name}", "exact"] == float(value)
        assert abs(parts.loc[f"RTP: {name}", "z"]) < 4
    # the parts add up to the simulated RTP
    assert parts["simulated"].sum() == pytest.approx(figs.loc["RTP", "simulated"], rel=1e-12)
    assert rep.histogram["exact"].isna().all()
    assert any("not the whole PAR" in n for n in rep.notes)
    assert "RTP: scatters" in result.text()


def test_wrong_component_is_caught(video):
    # the lines component of a game whose 3 x TEN pays twice as much: its
    # part's z flags it, the scatters' does not
    game, level, exact, result = video
    i = next(k for k, lp in enumerate(game.line_pays) if lp.name == "3 x TEN")
    pays = list(game.line_pays)
    pays[i] = replace(pays[i], pays=tuple(2 * p for p in pays[i].pays))
    wrong = simulation.round_figures(replace(game, line_pays=tuple(pays)), level)
    stats, names, parts = result.run.stats, result.run.event_names, result.run.part_names
    rep = convergence_report(stats, names, wrong, part_names=parts).components.set_index("figure")
    assert rep.loc["RTP: lines", "z"] < -4 and abs(rep.loc["RTP: scatters", "z"]) < 4
