"""Grand Spinn Superpot: Monte Carlo (an independent, literal implementation)
against the exact figures, |z| < 4."""

from __future__ import annotations

import json

import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.rules.grand_spinn_superpot import analysis as gs
from slotmath.rules.grand_spinn_superpot import sampler as gs_sampler

SPINS = 16_000_000  # about 5 Supers at 1 in 3.0 million


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


@pytest.mark.parametrize(
    "event", ["mini", "midi", "super", "line_win", "nudge", "arrow", "jackpot_without_win"]
)
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
    """``round_sampler(game, level)``: kernel(rng, n, *args) -> (wins, events, parts)."""
    s = gs.round_sampler(game, 4)
    wins, events, parts = s.kernel(np.random.default_rng(1), 1000, *s.args)
    assert wins.dtype == np.float64 and wins.shape == (1000,)
    # the parts are the RTP components a round pays (no progressive Super)
    assert s.part_names == ("line wins (landing)", "nudge re-pays", "arrow re-pays", "Mini", "Midi")
    assert parts.shape == (1000, 5) and np.allclose(parts.sum(axis=1), wins, rtol=1e-12, atol=0)
    assert events.dtype == np.int64 and events.shape == (len(s.event_names),)
    assert s.event_names[:3] == ("mini", "midi", "super")
    # wins are [x total bet]: multiples of 1/40 at level 4 (total bet 40 coins)
    assert np.allclose(wins * 40, np.round(wins * 40))


def test_with_the_chunked_framework(game):
    """The sampler runs under slotmath.montecarlo.run when that module is present."""
    mc = pytest.importorskip("slotmath.montecarlo.run")
    sampler = mc.as_sampler(gs.round_sampler(game, 1))
    assert sampler.event_names[0] == "mini"


def test_kernel_plays_the_literal_round_of_its_drawn_stops(game):
    """The fast kernel (line tables, inlined round) gives, round by round,
    the win and events of :func:`play_stops` with every line played
    literally, on the stops the same stream draws."""
    nb = pytest.importorskip("numba")
    s = gs.round_sampler(game, 3)
    totals, stop_of, cum = s.args[:3]
    lengths = s.args[11]

    @nb.njit
    def drawn(rng, n):
        out = np.zeros((n, len(totals)), dtype=np.int64)
        pos = np.zeros(len(totals), dtype=np.int64)
        for i in range(n):
            gs_sampler.sample_stops(rng, pos, totals, stop_of, cum, lengths)
            out[i] = pos
        return out

    n = 300_000
    wins, events, parts = s.kernel(np.random.default_rng(11), n, *s.args)
    out = gs.play_stops(s, drawn(np.random.default_rng(11), n), literal=True)
    assert np.array_equal(wins, out[:, 0] / 30)  # level 3: total bet 30 coins
    landing, pays, arrows, jp, without = out[:, 1], out[:, 2], out[:, 3], out[:, 4], out[:, 5]
    expected = [(jp == k).sum() for k in range(3)] + [
        (landing > 0).sum(),
        (pays > 1).sum(),
        (arrows > 0).sum(),
        without.sum(),
        (pays < 0).sum(),
    ]
    assert events.tolist() == [int(v) for v in expected]
    assert events[3] > 0.2 * n and events[5] > 0  # line wins and arrows were played


def test_chunked_runs_are_reproducible_whatever_the_workers(game):
    """Same seed, rounds and chunk size: identical statistics on 1 and 2
    processes, equal to the exact merge of the chunks played one by one."""
    mc = pytest.importorskip("slotmath.montecarlo.run")
    sampler = gs.round_sampler(game, 1)
    one = mc.run(sampler, 400_000, seed=21, chunk=100_000, workers=1, progress=False)
    two = mc.run(sampler, 400_000, seed=21, chunk=100_000, workers=2, progress=False)
    assert one.stats == two.stats and one.rounds == 400_000
    merged = mc.ChunkStats.empty(len(sampler.event_names), len(sampler.part_names))
    for i in (3, 1, 0, 2):
        merged = merged.merge(mc.run_chunk(sampler, 21, i, 100_000))
    assert merged == one.stats
    assert mc.run(sampler, 400_000, seed=22, chunk=100_000, workers=1, progress=False).stats != one.stats


def test_cli_simulate(capsys):
    from slotmath.cli import main

    assert main(["simulate", "grand_spinn_superpot", "--spins", "100000", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["simulated"] is True
    events = {e["event"]: e for e in out["convergence"]["events"]}
    assert {"mini", "midi", "super", "nudge", "arrow"} <= set(events)
    assert events["mini"]["exact"] == pytest.approx(
        gs.exact_events(load_game("grand_spinn_superpot"), 1)["mini"]
    )
    assert main(["simulate", "grand_spinn_superpot", "--spins", "1e4"]) == 0
    assert "mini" in capsys.readouterr().out
