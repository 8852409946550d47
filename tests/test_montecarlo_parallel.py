"""Parallel runs on the processes of this machine, interruption, and the
``slotmath simulate`` command.

For a given seed, spin count and chunk size the result is identical
whatever the number of workers; Ctrl-C returns the finished chunks,
labelled partial, and those are exactly the chunks listed.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time

import pytest

from slotmath.analysis import simulation
from slotmath.io.gamefile import load_game
from slotmath.montecarlo import run as mc

from conftest import GAMES, ROOT, run_cli, slotmath_command

TIMING = {"elapsed_s", "rounds_per_second", "workers"}


@pytest.fixture(scope="module")
def video():
    game = load_game("video20")
    return game, simulation.round_sampler(game, game.levels[0])


def test_one_and_two_workers_give_identical_results(video):
    game, sampler = video
    one = mc.run(sampler, 1_200_000, seed=99, chunk=150_000, workers=1, progress=False)
    two = mc.run(sampler, 1_200_000, seed=99, chunk=150_000, workers=2, progress=False)
    assert two.workers == 2 and one.workers == 1
    assert one.stats == two.stats
    assert one.chunk_indices == two.chunk_indices == list(range(8))
    assert not one.partial and not two.partial


def test_workers_never_exceed_chunks(video):
    _, sampler = video
    result = mc.run(sampler, 1000, seed=1, chunk=1000, workers=4, progress=False)
    assert result.workers == 1 and result.rounds == 1000


class InterruptingBar:
    """A progress bar whose second update raises KeyboardInterrupt, as
    Ctrl-C would in the collecting loop."""

    def __init__(self, *args, **kw):
        self.updates = 0

    def update(self, n):
        self.updates += 1
        if self.updates == 2:
            raise KeyboardInterrupt

    def set_postfix_str(self, *args, **kw):
        pass

    def close(self):
        pass


def test_interrupted_pool_run_reports_exactly_the_finished_chunks(video, monkeypatch):
    _, sampler = video
    monkeypatch.setattr(mc, "_progress_bar", lambda *a, **k: InterruptingBar())
    result = mc.run(sampler, 4_000_000, seed=8, chunk=100_000, workers=2, progress=True)
    monkeypatch.undo()
    assert result.partial
    assert 2 <= len(result.chunk_indices) < result.chunks_planned == 40
    assert result.rounds == 100_000 * len(result.chunk_indices)
    expected = mc.ChunkStats.empty(len(sampler.event_names), len(sampler.part_names))
    for i in result.chunk_indices:
        expected = expected.merge(mc.run_chunk(sampler, 8, i, 100_000))
    assert result.stats == expected


def test_partial_result_is_labelled(video, monkeypatch):
    game, _ = video
    monkeypatch.setattr(mc, "_progress_bar", lambda *a, **k: InterruptingBar())
    result = simulation.simulate_game(game, 1_000_000, seed=2, chunk=100_000, workers=1, progress=True)
    monkeypatch.undo()
    assert result.partial and result.spins == 200_000
    assert "PARTIAL RESULT: interrupted after 2 of 10 chunks (200,000 of 1,000,000 rounds)" in result.text()
    d = result.to_dict()
    assert d["partial"] is True and d["rounds"] == 200_000 and d["rounds_requested"] == 1_000_000
    assert d["simulated"] is True


def cli_json(*args):
    proc = run_cli("simulate", *args, "--json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_cli_simulate_json_equals_the_single_process_library_run():
    proc = run_cli(
        "simulate",
        "video20",
        "--spins",
        "4e5",
        "--chunk",
        "1e5",
        "--seed",
        "12",
        "--workers",
        "2",
        "--json",
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    two = json.loads(proc.stdout)
    game = load_game("video20")
    one = json.loads(
        json.dumps(
            simulation.simulate_game(game, 400_000, 12, chunk=100_000, workers=1, progress=False).to_dict()
        )
    )
    assert one["workers"] == 1 and two["workers"] == 2
    assert {k: v for k, v in one.items() if k not in TIMING} == {
        k: v for k, v in two.items() if k not in TIMING
    }
    assert two["simulated"] is True and two["engine"] == "compiled" and two["partial"] is False
    assert two["spins"] == 400_000 and two["chunks"] == 4 and two["seed"] == 12
    for name in ("rtp", "hit_frequency", "sd"):
        assert two[name]["exact"] is not None and abs(two[name]["z"]) < 4
    conv = two["convergence"]
    assert conv["max_abs_z"] < 4 and conv["rounds_needed"] > 1e8
    assert any(e["event"] == "scatter: 3 x SCATTER" for e in conv["events"])


def test_cli_simulate_text_names_the_run():
    proc = run_cli(
        "simulate", "fruit_classic", "--spins", "2e5", "--bet", "3", "--workers", "1", "--no-progress"
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Simulation (Monte Carlo, compiled sampler): fruit_classic, bet level 3" in out
    assert "200,000 rounds in 1 chunk of 200,000 rounds, seed 0, 1 process" in out
    assert "Rounds for RTP +-0.01 pp at 95 %" in out and "line: 3 x R7" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (("--workers", "0"), "must be >= 1"),
        (("--chunk", "0"), "must be a whole number >= 1"),
        (("--seed", "-1"), "--seed must be >= 0"),
        (("--spins", "1e12", "--chunk", "1000"), "more than 1,000,000 chunks: use larger chunks"),
    ],
)
def test_cli_simulate_rejects_bad_options(args, message):
    proc = run_cli("simulate", "video20", "--spins", "1000", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_ctrl_c_stops_the_command_and_prints_the_partial_result():
    # Ctrl-C in a terminal signals the whole process group: the command and
    # its workers.  The workers ignore it; the command stops and reports.
    proc = subprocess.Popen(
        slotmath_command()
        + ["simulate", "video20", "--spins", "1e9", "--workers", "2", "--chunk", "2e5", "--progress"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # a terminal's command takes Ctrl-C; a background job (as this suite may be) inherits
        # SIGINT ignored, so give the command the terminal's default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    err = b""
    deadline = time.monotonic() + 300
    try:
        while b"RTP" not in err:  # the running RTP shows once a chunk has finished
            assert time.monotonic() < deadline and proc.poll() is None, err.decode()
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                err += os.read(proc.stderr.fileno(), 65536)
        os.killpg(proc.pid, signal.SIGINT)
        out, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err += rest
    assert proc.returncode == 130
    text = out.decode()
    assert "PARTIAL RESULT: interrupted after" in text and "of 5000 chunks" in text
    assert "RTP" in text and "Traceback" not in err.decode()


def test_interrupted_before_any_chunk_finished(video, monkeypatch):
    game, _ = video

    def stop(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(mc, "run_chunk", stop)
    result = simulation.simulate_game(game, 1_000_000, seed=2, chunk=100_000, workers=1, progress=False)
    monkeypatch.undo()
    assert result.partial and result.spins == 0 and result.convergence is None
    assert "PARTIAL RESULT: interrupted after 0 of 10 chunks" in result.text()
    assert "no chunk finished" in result.text()
    d = result.to_dict()
    assert d["partial"] is True and d["rounds"] == 0 and "rtp" not in d
    assert "<pre>" in result._repr_html_()


def feature_games() -> list:
    """Sample games with rules of their own (each provides a round sampler)."""
    return [p.parent.name for p in sorted(GAMES.glob("*/game.yaml")) if load_game(p).rules != "lines"]


@pytest.mark.parametrize("name", feature_games())
def test_any_rules_modules_sampler_runs_reproducibly(name):
    # the framework takes the seed games' samplers as they are: same
    # statistics on 1 and 2 processes, every event counted
    game = load_game(name)
    sampler = simulation.round_sampler(game)
    if sampler is None:
        pytest.skip(f"{name}: its rules have no round sampler yet")
    one = mc.run(sampler, 9_000, seed=3, chunk=3_000, workers=1, progress=False)
    two = mc.run(sampler, 9_000, seed=3, chunk=3_000, workers=2, progress=False)
    assert one.stats == two.stats and one.rounds == 9_000
    assert len(one.stats.events) == len(sampler.event_names) > 0
    assert sum(one.stats.histogram) == 9_000 and one.stats.hits > 0
