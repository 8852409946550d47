"""Runs on a Dask cluster equal the single-process result exactly.

One ``LocalCluster`` of two worker processes serves every test: through a
connected client, through its address (as ``--scheduler tcp://...`` gives
it) and through the ``slotmath simulate`` command.
"""

from __future__ import annotations

import json
import os

import pytest

from slotmath.analysis import simulation
from slotmath.io.gamefile import load_game
from slotmath.montecarlo import run as mc

from conftest import run_cli

distributed = pytest.importorskip("distributed")

TIMING = {"elapsed_s", "rounds_per_second", "workers", "scheduler"}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


@pytest.fixture(scope="module")
def video():
    game = load_game("video20")
    return game, simulation.round_sampler(game, game.levels[0])


def test_cluster_run_equals_single_process_run(cluster, video):
    _, sampler = video
    here = mc.run(sampler, 1_000_000, seed=4, chunk=125_000, workers=1, progress=False)
    with distributed.Client(cluster) as client:
        there = mc.run(sampler, 1_000_000, seed=4, chunk=125_000, scheduler=client, progress=False)
    assert there.workers == 2 and there.scheduler == cluster.scheduler_address
    assert there.stats == here.stats
    assert there.chunk_indices == here.chunk_indices == list(range(8))
    assert not there.partial


def test_scheduler_address_and_full_result(cluster, video):
    game, _ = video
    here = simulation.simulate_game(game, 300_000, 21, chunk=100_000, workers=1, progress=False)
    there = simulation.simulate_game(
        game, 300_000, 21, chunk=100_000, scheduler=cluster.scheduler_address, progress=False
    )
    assert there.run.stats == here.run.stats
    a = {k: v for k, v in here.to_dict().items() if k not in TIMING}
    b = {k: v for k, v in there.to_dict().items() if k not in TIMING}
    assert a == b
    assert f"Dask {cluster.scheduler_address}" in there.text()


def test_cli_scheduler_option(cluster):
    proc = run_cli(
        "simulate",
        "video20",
        "--spins",
        "2e5",
        "--chunk",
        "5e4",
        "--seed",
        "3",
        "--scheduler",
        cluster.scheduler_address,
        "--json",
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["scheduler"] == cluster.scheduler_address and out["workers"] == 2
    game = load_game("video20")
    here = simulation.simulate_game(game, 200_000, 3, chunk=50_000, workers=1, progress=False)
    assert out["rtp"] == json.loads(json.dumps(here.to_dict()))["rtp"]
    assert out["convergence"]["max_abs_z"] < 4


def test_cli_unreachable_scheduler_is_one_clear_error():
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    import subprocess

    from conftest import ROOT, slotmath_command

    proc = subprocess.run(
        slotmath_command() + ["simulate", "video20", "--spins", "1000", "--scheduler", "tcp://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in proc.stderr
    assert "Traceback" not in proc.stderr
