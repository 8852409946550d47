"""The chunked Monte Carlo framework (slotmath.montecarlo.run) on samplers whose
answers are known by hand.

* ``dice``: a round wins k [x total bet] with k uniform on {0, 1, 2, 3}:
  RTP = (0+1+2+3)/4 = 1.5, hit frequency = 3/4, E[X^2] = (0+1+4+9)/4 = 3.5,
  SD = sqrt(3.5 - 1.5^2) = sqrt(1.25).  Event "three" counts rounds with
  k = 3 (rate 1/4); event "pair" adds 2 per such round (rate 1/2, per-round
  variance 2^2 * 1/4 * 3/4 = 0.75) to check the batch-means standard error.
* ``uniform``: a win uniform on [0, 1) (non-integer float sums for the
  exact-merge checks).
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction
from types import SimpleNamespace

import numba as nb
import numpy as np
import pytest

from slotmath.montecarlo import run as mc
from slotmath.montecarlo.convergence import rounds_for_precision


@nb.njit(cache=True)
def dice_kernel(rng, n, sides):
    wins = np.empty(n)
    events = np.zeros(2, dtype=np.int64)
    for i in range(n):
        k = np.int64(rng.random() * sides[0])
        wins[i] = k
        if k == sides[0] - 1:
            events[0] += 1
            events[1] += 2
    return wins, events


@nb.njit(cache=True)
def uniform_kernel(rng, n):
    wins = np.empty(n)
    for i in range(n):
        wins[i] = rng.random()
    return wins, np.zeros(0, dtype=np.int64)


DICE = mc.RoundSampler(dice_kernel, (np.array([4]),), ("three", "pair"))
UNIFORM = mc.RoundSampler(uniform_kernel, (), ())


def replay(sampler, seed, index, size):
    """The wins and per-block event counts of one chunk, replayed directly."""
    rng = mc.chunk_rng(seed, index)
    wins, events = [], []
    for start in range(0, size, mc.BLOCK):
        w, e = sampler.kernel(rng, min(mc.BLOCK, size - start), *sampler.args)
        wins.append(w)
        events.append(e)
    return np.concatenate(wins), np.array(events)


def test_plan_chunks():
    assert mc.plan_chunks(10, 4) == [(0, 4), (1, 4), (2, 2)]
    assert mc.plan_chunks(8, 4) == [(0, 4), (1, 4)]
    assert mc.plan_chunks(0, 4) == []
    with pytest.raises(mc.SetupError):
        mc.plan_chunks(10, 0)
    with pytest.raises(mc.SetupError, match="use larger chunks"):
        mc.plan_chunks(10**12, 1000)


def test_chunk_streams_are_the_spawned_children():
    children = np.random.SeedSequence(42).spawn(5)
    for i, child in enumerate(children):
        ours = np.random.SeedSequence(42, spawn_key=(i,))
        assert np.array_equal(ours.generate_state(8), child.generate_state(8))
    a = mc.chunk_rng(42, 3).random(4)
    b = np.random.Generator(np.random.PCG64DXSM(children[3])).random(4)
    assert np.array_equal(a, b)
    assert not np.array_equal(mc.chunk_rng(42, 2).random(4), a)


def test_chunk_statistics_count_exactly():
    size = 3 * mc.BLOCK + 123  # four blocks, the last one short
    stats = mc.run_chunk(DICE, 7, 0, size)
    wins, events = replay(DICE, 7, 0, size)
    assert stats.rounds == size and stats.blocks == 4 and stats.chunks == 1
    # integer wins: every float sum is exact, so the sums are the true ones
    for k in range(4):
        assert stats.sums[k] == int((wins.astype(np.int64) ** (k + 1)).sum())
    assert stats.hits == int((wins > 0).sum())
    assert stats.max_win == 3.0
    # bins: 0 | (0, 1) | [1, 2) | [2, 5) | ...
    hist = stats.histogram
    assert hist[:4] == (int((wins == 0).sum()), 0, int((wins == 1).sum()), int((wins >= 2).sum()))
    assert sum(hist) == size
    assert stats.events == tuple(int(v) for v in events.sum(axis=0))
    assert stats.event_sq == tuple(int(v) for v in (events.astype(object) ** 2).sum(axis=0))
    sizes = [mc.BLOCK] * 3 + [123]
    assert stats.block_sq == sum(b * b for b in sizes)
    assert stats.event_cross[0] == sum(int(e) * b for e, b in zip(events[:, 0], sizes, strict=True))


def test_merge_is_exact_in_any_order():
    parts = [mc.run_chunk(UNIFORM, 3, i, 20_000) for i in range(4)]
    a, b, c, d = parts
    left = a.merge(b).merge(c).merge(d)
    right = d.merge(c.merge(b.merge(a)))
    tree = a.merge(c).merge(b.merge(d))
    assert left == right == tree
    assert left.sums[0] == sum((p.sums[0] for p in parts), Fraction(0))
    assert left.rounds == 80_000 and left.chunks == 4 and left.blocks == sum(p.blocks for p in parts)
    # the exact sum of the block sums is within float rounding of the data's sum
    wins = np.concatenate([replay(UNIFORM, 3, i, 20_000)[0] for i in range(4)])
    assert abs(float(left.sums[0]) - math.fsum(wins)) < 1e-9
    assert left.max_win == wins.max()
    assert mc.ChunkStats.empty(0).merge(left) == left


def test_dice_agrees_with_hand_worked_values():
    result = mc.run(DICE, 400_000, seed=1, chunk=100_000, workers=1, progress=False)
    s = result.stats
    assert not result.partial and result.chunk_indices == [0, 1, 2, 3]
    n = s.rounds
    m = s.moments
    mean = m.s1 / n
    sd = math.sqrt(m.s2 / n - mean**2)
    assert abs(mean - 1.5) / (sd / math.sqrt(n)) < 4
    assert abs(s.hits / n - 0.75) / math.sqrt(0.75 * 0.25 / n) < 4
    assert abs(sd - math.sqrt(1.25)) < 0.01
    rate, se = s.event_rate(0)
    assert abs(rate - 0.25) / se < 4
    rate, se = s.event_rate(1)
    assert abs(rate - 0.5) / se < 4
    # batch means estimate the true standard error sqrt(0.75 / n) closely
    assert abs(se / math.sqrt(0.75 / n) - 1) < 0.2
    rtp, half = s.rtp_interval()
    assert rtp == pytest.approx(mean) and half == pytest.approx(1.96 * sd / math.sqrt(n), rel=1e-9)


def test_same_seed_same_result_different_seed_different_result():
    a = mc.run(UNIFORM, 50_000, seed=5, chunk=20_000, workers=1, progress=False)
    b = mc.run(UNIFORM, 50_000, seed=5, chunk=20_000, workers=1, progress=False)
    c = mc.run(UNIFORM, 50_000, seed=6, chunk=20_000, workers=1, progress=False)
    assert a.stats == b.stats and a.stats != c.stats


def test_bad_sampler_output_is_refused():
    @nb.njit
    def short(rng, n):
        return np.zeros(n - 1), np.zeros(0, dtype=np.int64)

    @nb.njit
    def negative(rng, n):
        return np.full(n, -1.0), np.zeros(0, dtype=np.int64)

    with pytest.raises(ValueError, match="shapes"):
        mc.run_chunk(mc.RoundSampler(short, (), ()), 0, 0, 10)
    with pytest.raises(ValueError, match="negative or non-finite"):
        mc.run_chunk(mc.RoundSampler(negative, (), ()), 0, 0, 10)
    with pytest.raises(TypeError, match="not a round sampler"):
        mc.as_sampler(object())


def test_any_object_following_the_protocol_is_a_sampler():
    foreign = SimpleNamespace(kernel=dice_kernel, args=[np.array([4])], event_names=["a", "b"])
    s = mc.as_sampler(foreign)
    assert s.event_names == ("a", "b")
    assert (
        mc.run(foreign, 1000, seed=2, workers=1, progress=False).stats
        == mc.run(DICE, 1000, seed=2, workers=1, progress=False).stats
    )


def test_sampler_pickles_its_kernel_by_reference():
    back = pickle.loads(pickle.dumps(DICE))
    assert back.kernel is dice_kernel
    assert back.event_names == DICE.event_names
    assert np.array_equal(back.args[0], DICE.args[0])


def test_interrupted_run_keeps_the_finished_chunks(monkeypatch):
    calls = []
    real = mc.run_chunk

    def flaky(sampler, seed, index, size, block=mc.BLOCK):
        calls.append(index)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(sampler, seed, index, size, block)

    monkeypatch.setattr(mc, "run_chunk", flaky)
    result = mc.run(DICE, 100_000, seed=3, chunk=10_000, workers=1, progress=False)
    monkeypatch.undo()
    assert result.partial
    assert result.chunk_indices == [0, 1, 2] and result.chunks_planned == 10
    # the partial result is exactly the first three chunks
    assert result.stats == mc.run(DICE, 30_000, seed=3, chunk=10_000, workers=1, progress=False).stats


def test_rounds_for_precision_worked_by_hand():
    # SD 5 [x total bet]: (1.96 * 5 / 0.0001)^2 = 98,000^2 = 9.604e9 rounds
    assert rounds_for_precision(5.0) == pytest.approx(9.604e9, rel=1e-12)
    # halving the precision quadruples the rounds
    assert rounds_for_precision(5.0, 5e-5) == pytest.approx(4 * 9.604e9, rel=1e-12)


def test_progress_bar_shows_the_running_rtp(capsys):
    mc.run(DICE, 40_000, seed=1, chunk=10_000, workers=1, progress=True, desc="dice")
    err = capsys.readouterr().err
    assert "dice" in err and "40.0k/40.0k" in err and "RTP 1" in err and "pp (95 %)" in err
