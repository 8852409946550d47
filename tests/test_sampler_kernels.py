"""The faster line and ways kernels play the same rounds as the general ones,
and the chunk loop's compiled sums are numpy's floats (issue 30, point 4).

Each fast path keeps the random stream: the same seed gives the same
statistics, bit for bit, as the general kernel (the draw of a reel below
``2**31`` is the same Lemire draw on the same 32 bits).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from slotmath.io.gamefile import load_game
from slotmath.montecarlo import linesim
from slotmath.montecarlo import run as mc
from slotmath.montecarlo.linesim import line_kernel, line_kernel_wide, line_sampler, narrow
from slotmath.montecarlo.wayssim import ways_kernel, ways_kernel_plain, ways_sampler


def same_stats(a: mc.ChunkStats, b: mc.ChunkStats) -> None:
    assert a == b
    assert a.sums == b.sums and a.parts == b.parts and a.part_sq == b.part_sq


@pytest.mark.parametrize(
    ("name", "table_limit"), [("video20", 4096), ("video20", 0), ("fruit_classic", 4096)]
)
def test_line_kernel_plays_the_general_kernels_rounds(name, table_limit):
    game = load_game(name)
    level = game.levels[0]
    fast = line_sampler(game, level, table_limit=table_limit)
    general = line_sampler(game, level, table_limit=table_limit, fast=False)
    assert fast.kernel is line_kernel and general.kernel is line_kernel_wide
    same_stats(mc.run_chunk(fast, 11, 3, 30_000), mc.run_chunk(general, 11, 3, 30_000))


def test_wide_reels_or_a_large_pair_table_play_the_general_line_kernel(monkeypatch):
    assert narrow(np.array([3, 2**31 - 1])) and not narrow(np.array([3, 2**31]))
    game = load_game("video20")
    assert line_sampler(game, 1).kernel is line_kernel
    monkeypatch.setattr(linesim, "PAIR_LIMIT", 50 * 53 * 20 - 1)
    assert line_sampler(game, 1).kernel is line_kernel_wide


@pytest.mark.parametrize("table_limit", [4096, 0])
def test_plain_ways_kernel_plays_the_general_kernels_rounds(table_limit):
    game = load_game("ways4096")
    fast = ways_sampler(game, 1, table_limit=table_limit)
    general = ways_sampler(game, 1, table_limit=table_limit, plain=False)
    assert fast.kernel is ways_kernel_plain and general.kernel is ways_kernel
    same_stats(mc.run_chunk(fast, 5, 1, 20_000), mc.run_chunk(general, 5, 1, 20_000))
    wins_a, ev_a, parts_a = fast.kernel(mc.chunk_rng(5, 2), 5000, *fast.args)
    wins_b, ev_b, parts_b = general.kernel(mc.chunk_rng(5, 2), 5000, *general.args)
    assert np.array_equal(wins_a, wins_b) and np.array_equal(ev_a, ev_b) and np.array_equal(parts_a, parts_b)


@pytest.mark.parametrize("columns", [1, 2, 3, 5])
@pytest.mark.parametrize("n", [1, 7, 100, 5000, mc.BLOCK])
def test_part_sums_are_numpys(columns, n):
    rng = np.random.default_rng(columns * 10_000 + n)
    x = (
        rng.exponential(size=(n, columns))
        * rng.integers(0, 2, size=(n, columns))
        * 1000.0 ** rng.random((n, columns))
    )
    s, q = mc.part_sums(x)
    assert np.array_equal(s, x.sum(axis=0)) and np.array_equal(q, (x * x).sum(axis=0))


def test_exact_sum_is_the_sum_of_fractions():
    rng = np.random.default_rng(3)
    xs = [0.0, 5e-324, 1.5, 0.1, 1e300, -2.25, 3.0e-200] + list(rng.exponential(size=200) * 1e6)
    acc = mc.ExactSum()
    for x in xs:
        acc.add(x)
    assert acc.value() == sum((Fraction(x) for x in xs), Fraction(0))
    assert mc.ExactSum().value() == 0
