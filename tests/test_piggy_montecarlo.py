"""Piggy Bankin' Superlock: Monte Carlo of the rules played literally (the
compiled round sampler) against the exact figures."""

import json

import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.piggy_bankin_superlock import analysis as pbs

from conftest import run_cli

ROUNDS = 2_000_000


@pytest.fixture(scope="module")
def game():
    return load_game("piggy_bankin_superlock")


@pytest.fixture(scope="module")
def runs(game):
    out = {}
    for policy, level, seed in (("lockit", 1, 11), ("free_games", 10, 12)):
        s = pbs.round_sampler(game, level, policy)
        wins, events, parts = s.kernel(np.random.default_rng(seed), ROUNDS, *s.args)
        assert s.part_names == pbs.PARTS[policy] and parts.shape == (ROUNDS, 4)
        assert np.allclose(parts.sum(axis=1), wins, rtol=1e-12, atol=0)
        out[policy] = (level, wins, dict(zip(s.event_names, events.tolist(), strict=True)))
    return out


@pytest.mark.parametrize("policy", pbs.POLICIES)
def test_rtp_agrees(game, runs, policy):
    level, wins, _ = runs[policy]
    exact = pbs.breakdown(game, level).rtp[policy]
    z = (wins.mean() - exact) / (wins.std() / np.sqrt(len(wins)))
    assert abs(z) < 4, z


@pytest.mark.parametrize("policy", pbs.POLICIES)
def test_event_rates_agree(game, runs, policy):
    # counts per round; SE from the count (Poisson) -- features are rare events
    level, _, events = runs[policy]
    exact = pbs.exact_events(game, level, policy)
    for name in (
        "lockit_base_game",
        "selection",
        "lockit_selection",
        "free_games",
        "lockit_free_games",
        "wheel",
        "MINI",
        "MINOR",
        "full_screen",
    ):
        expected = exact[name] * ROUNDS
        if expected == 0:
            assert events[name] == 0, name
            continue
        z = (events[name] - expected) / np.sqrt(max(expected, 1.0))
        assert abs(z) < 4, (name, events[name], expected)


@pytest.mark.slow
def test_round_distribution_and_cli(game, runs):
    # the exact round distribution (lock-it policy): mean = RTP, hit frequency
    # against the simulation; `slotmath par --json` carries by_choice
    level, wins, _ = runs["lockit"]
    dist = pbs.win_distribution(game, level, "lockit")
    rtp = pbs.breakdown(game, level).rtp["lockit"]
    assert abs(float(dist.mean) - rtp) < 1e-9
    assert abs(float(dist.total) - 1) < 1e-12
    p = float(dist.hit_frequency)
    z = ((wins > 0).mean() - p) / np.sqrt(p * (1 - p) / len(wins))
    assert abs(z) < 4, z
    # every feature pays, so P(no win) = P(no line win and no feature), by enumeration
    sc = pbs.screens(game, "base")
    assert abs(1 - p - sc.plain[0] / sc.cycle) < 1e-12
    res = run_cli("par", "piggy_bankin_superlock", "--bet", "5", "--json", timeout=1800)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert set(d["by_choice"]) == {"lockit", "free_games"}
    assert all(abs(v - 0.9403) <= 5e-5 for v in d["by_choice"].values())
    assert abs(d["rtp"] - sum(d["components"].values())) < 1e-12
    assert d["odds"]["lockit base game"]["one_in"] > 1


def test_simulate_compares_every_part(game):
    # `slotmath simulate` without the PAR: each part of the round win
    # (PARTS) has its exact value from the fast path (they are not the PAR's
    # finer components: the rules' part_components), the RTP is their sum
    from slotmath.analysis import simulation

    result = simulation.simulate_game(
        game, 200_000, seed=3, level=1, chunk=100_000, workers=1, progress=False
    )
    rep = result.convergence
    exact = pbs.components(game, 1)
    parts = rep.components.set_index("figure")
    assert list(parts.index) == [f"RTP: {name}" for name in pbs.PARTS["lockit"]]
    for name, value in exact.items():
        assert parts.loc[f"RTP: {name}", "exact"] == pytest.approx(float(value), rel=1e-12)
        assert abs(parts.loc[f"RTP: {name}", "z"]) < 4, name
    figs = rep.figures.set_index("figure")
    assert figs.loc["RTP", "exact"] == pytest.approx(pbs.breakdown(game, 1).rtp["lockit"], rel=1e-12)
    assert abs(figs.loc["RTP", "z"]) < 4
