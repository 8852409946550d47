"""Grand Spinn Superpot: Monte Carlo (an independent, literal implementation)
against the exact figures, |z| < 4."""
from __future__ import annotations

import json

import numpy as np
import pytest

from slotmath.gamefile import load_game
from slotmath.games import grand_spinn_superpot as gs

SPINS = 16_000_000   # about 5 Supers at 1 in 3.0 million


@pytest.fixture(scope="module")
def game():
    return load_game("grand_spinn_superpot")


@pytest.fixture(scope="module")
def run(game):
    return gs.simulate(game, 2, SPINS, seed=20261130)


def test_rtp_hit_frequency_and_sd(run):
    for name in ("rtp", "hit_frequency", "sd"):
        est = getattr(run, name)
        assert est.exact is not None and abs(est.z) < 4, (name, est)


@pytest.mark.parametrize("event", ["mini", "midi", "super", "line_win", "nudge", "arrow",
                                   "jackpot_without_win"])
def test_event_frequencies(run, event):
    est = run.event(event)
    assert est.exact > 0
    assert abs(est.z) < 4, (event, run.events[event], est)


def test_no_endless_nudge(run):
    assert run.events["endless_nudge"] == 0


def test_seeded_and_reproducible(game):
    a = gs.simulate(game, 1, 200_000, seed=5)
    b = gs.simulate(game, 1, 200_000, seed=5)
    c = gs.simulate(game, 1, 200_000, seed=6)
    assert a.moments == b.moments and a.events == b.events
    assert a.moments != c.moments


def test_sampler_interface(game):
    """``round_sampler(game, level)``: kernel(rng, n, *args) -> (wins, events)."""
    s = gs.round_sampler(game, 4)
    wins, events = s.kernel(np.random.default_rng(1), 1000, *s.args)
    assert wins.dtype == np.float64 and wins.shape == (1000,)
    assert events.dtype == np.int64 and events.shape == (len(s.event_names),)
    assert s.event_names[:3] == ("mini", "midi", "super")
    # wins are [x total bet]: multiples of 1/40 at level 4 (total bet 40 coins)
    assert np.allclose(wins * 40, np.round(wins * 40))


def test_with_the_chunked_framework(game):
    """The sampler runs under slotmath.montecarlo when that module is present."""
    mc = pytest.importorskip("slotmath.montecarlo")
    sampler = mc.as_sampler(gs.round_sampler(game, 1))
    assert sampler.event_names[0] == "mini"


def test_cli_simulate(capsys):
    from slotmath.cli import main

    assert main(["simulate", "grand_spinn_superpot", "--spins", "100000", "--seed", "3",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["simulated"] is True
    events = {e["event"]: e for e in out["convergence"]["events"]}
    assert {"mini", "midi", "super", "nudge", "arrow"} <= set(events)
    assert events["mini"]["exact"] == pytest.approx(gs.exact_events(
        load_game("grand_spinn_superpot"), 1)["mini"])
    assert main(["simulate", "grand_spinn_superpot", "--spins", "1e4"]) == 0
    assert "mini" in capsys.readouterr().out
