"""slotmath's compiled samplers against a simple compiled reference (issue 30, point 4).

The reference is the least a compiled sampler of the same game must do per
round, written as plainly as numba allows and kept here so that the ratio
is measured in one run:

* an inline xoshiro256** generator (no ``numpy.random.Generator``, no call
  through a function pointer), one 64-bit draw per reel;
* a uniform stop below the reel's total stop weight by Lemire's method on
  the top 32 bits (exactly uniform, rejection included), mapped to the stop
  by the reel's lookup table (``linesim.draw_args``: the same table);
* lines: the window read from the per-stop symbol table and every payline
  looked up in slotmath's prefix tables (``engine.lines.line_outcomes``, read
  through ``linesim.evaluation_args``) with the same early exit on the line
  prefix, plus the scatter pays;
* ways: per symbol on the first reel, the product of its weighted cells per
  reel (a wild counts its per-wild multiplier) until a reel has none, then the
  pay, plus the scatter pays.

It returns only the sum and the sum of squares of the round wins, so its
mean can be checked against the exact RTP (the run fails when they differ
by more than 4 standard errors: the reference does the game's work).

slotmath's side is the chunk loop of ``slotmath simulate``
(``montecarlo.run.run_chunk`` on the game's round sampler: the blocks of
8192 rounds, their statistics, the events and win parts).  Both run in one
process, interleaved, ``--repeat`` times; each rate is rounds per CPU-second
of this process (``time.process_time``), and the figure to read is the
ratio of the medians (robust to the shared machine's load; the absolute
rates are not).

Usage: ``python benchmarks/bench_sampler_reference.py [--rounds N]
[--ways-rounds N] [--repeat K] [--games video20 ways4096]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numba as nb
import numpy as np

from slotmath.analysis import simulation
from slotmath.io.gamefile import load_game
from slotmath.montecarlo import run as mc
from slotmath.montecarlo.linesim import draw_args, evaluation_args, scatter_args
from slotmath.rules.registry import rules_for

MASK32 = np.uint64(0xFFFFFFFF)


# ---------------------------------------------------------------- xoshiro256**
@nb.njit(cache=True, inline="always")
def rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True, inline="always")
def next_u64(s):
    """xoshiro256** step on the state ``s`` (4,) uint64."""
    result = rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return result


@nb.njit(cache=True, inline="always")
def draw_below(s, w):
    """Exactly uniform integer in [0, w) (w < 2**31) by Lemire's method on 32 bits."""
    while True:
        u = np.int64(next_u64(s) >> np.uint64(32))
        m = u * w
        low = m & 0xFFFFFFFF
        if low < w:
            if low < (4294967296 - w) % w:
                continue
        return m >> 32


def seed_state(seed: int) -> np.ndarray:
    """xoshiro256** state from ``seed`` (SplitMix64 of the seed, never all zero)."""
    out, x = [], seed & (2**64 - 1)
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        out.append(z ^ (z >> 31))
    return np.array(out, dtype=np.uint64)


# ---------------------------------------------------------------- line reference
@nb.njit(cache=True)
def line_reference(
    s, n, bound, table, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, total_bet, first, S
):
    """``n`` rounds of a line game: (sum of wins, sum of squared wins) [x total bet]."""
    R, rows = sym.shape[0], sym.shape[2]
    L = cells.shape[0]
    stop = np.empty(R, dtype=np.int64)
    window = np.empty(R * rows, dtype=np.int64)
    s1 = 0.0
    s2 = 0.0
    for _ in range(n):
        for r in range(R):
            st = table[r, draw_below(s, bound[r])]
            stop[r] = st
            for k in range(rows):
                window[r * rows + k] = sym[r, st, k]
        coins = 0
        for line in range(L):
            p = 0
            for r in range(first):
                p = p * S + window[cells[line, r]]
            v = codes[offsets[first - 1] + p]
            r = first
            while v < 0:
                p = p * S + window[cells[line, r]]
                v = codes[offsets[r] + p]
                r += 1
            if v > 0:
                coins += label_coins[v - 1]
        win = coins / total_bet
        for j in range(sc_count.shape[0]):
            c = 0
            for r in range(R):
                c += sc_count[j, r, stop[r]]
            win += sc_pay[j, c]
        s1 += win
        s2 += win * win
    return s1, s2


def line_reference_args(game, level: int) -> tuple:
    bound, use_table, table, _, _ = draw_args(game)
    if not use_table.all():
        raise SystemExit("the reference draws by table: every reel's total weight must be <= 4096")
    (dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, _), _ = evaluation_args(game, level)
    return (
        bound,
        table,
        sym,
        cells,
        codes,
        offsets,
        label_coins,
        sc_count,
        sc_pay,
        float(dims[3]),
        int(dims[7]),
        int(dims[2]),
    )


# ---------------------------------------------------------------- ways reference
@nb.njit(cache=True)
def ways_reference(s, n, bound, table, present, n_present, cells, pay, sc_count, sc_pay, total_bet):
    """``n`` rounds of a ways game whose wilds multiply per wild: (sum of wins,
    sum of squared wins) [x total bet].  ``cells[r, stop, p]``: weighted cells
    of paying symbol p; ``present[stop, :n_present[stop]]``: the paying
    symbols on the first reel's window."""
    R = cells.shape[0]
    stop = np.empty(R, dtype=np.int64)
    s1 = 0.0
    s2 = 0.0
    for _ in range(n):
        for r in range(R):
            stop[r] = table[r, draw_below(s, bound[r])]
        coins = 0
        s0 = stop[0]
        for i in range(n_present[s0]):
            p = present[s0, i]
            ways = cells[0, s0, p]
            k = 1
            while k < R:
                c = cells[k, stop[k], p]
                if c == 0:
                    break
                ways *= c
                k += 1
            coins += pay[p, k] * ways
        win = coins / total_bet
        for j in range(sc_count.shape[0]):
            c = 0
            for r in range(R):
                c += sc_count[j, r, stop[r]]
            win += sc_pay[j, c]
        s1 += win
        s2 += win * win
    return s1, s2


def ways_reference_args(game, level: int) -> tuple:
    from slotmath.engine.reels import pack_reels
    from slotmath.engine.ways import compile_ways

    wp = compile_ways(game, level)
    if wp.step.shape[0] != 1:
        raise SystemExit("the ways reference plays wilds that multiply per wild only")
    bound, use_table, table, _, _ = draw_args(game)
    if not use_table.all():
        raise SystemExit("the reference draws by table: every reel's total weight must be <= 4096")
    win, _, _ = pack_reels(game, "base")
    cells = wp.weight[win].sum(axis=2)  # (R, N, P): weighted cells per stop and paying symbol
    first = cells[0]
    n_present = (first > 0).sum(axis=1).astype(np.int64)
    present = np.zeros((first.shape[0], max(1, int(n_present.max()))), dtype=np.int64)
    for st in range(first.shape[0]):
        idx = np.nonzero(first[st])[0]
        present[st, : len(idx)] = idx
    sc_count, sc_pay, _ = scatter_args(game, "base", [])
    return (
        bound,
        table,
        present,
        n_present,
        np.ascontiguousarray(cells),
        wp.pay,
        sc_count,
        sc_pay,
        float(game.bet(level).total_bet),
    )


# ---------------------------------------------------------------- measurement
def bench(name: str, rounds: int, repeat: int) -> dict:
    game = load_game(name)
    level = game.levels[0]
    sampler = simulation.round_sampler(game, level)
    if game.pays_by == "ways":
        kernel, args = ways_reference, ways_reference_args(game, level)
    else:
        kernel, args = line_reference, line_reference_args(game, level)
    exact = float(sum(rules_for(game).part_components(game, level).values()))

    mc.run_chunk(sampler, 0, 0, 1000)  # compile or load both
    kernel(seed_state(0), 1000, *args)
    ours, ref = [], []
    s1 = s2 = 0.0
    for i in range(repeat):
        c = time.process_time()
        mc.run_chunk(sampler, 7, i, rounds)
        ours.append(rounds / (time.process_time() - c))
        state = seed_state(1000 + i)
        c = time.process_time()
        a, b = kernel(state, rounds, *args)
        ref.append(rounds / (time.process_time() - c))
        s1, s2 = s1 + a, s2 + b
    n = rounds * repeat
    mean = s1 / n
    se = (max(s2 / n - mean * mean, 0.0) / n) ** 0.5
    z = (mean - exact) / se
    if abs(z) > 4:
        raise SystemExit(
            f"{name}: the reference's mean win {mean:.6f} is not the exact RTP {exact:.6f} (z = {z:.1f})"
        )
    return {
        "game": name,
        "ours": statistics.median(ours),
        "ref": statistics.median(ref),
        "ratio": statistics.median(ours) / statistics.median(ref),
        "ours_all": ours,
        "ref_all": ref,
        "mean": mean,
        "exact": exact,
        "z": z,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=["video20", "ways4096"])
    ap.add_argument("--rounds", type=float, default=2e6, help="rounds per repeat of a line game")
    ap.add_argument("--ways-rounds", type=float, default=1e6, help="rounds per repeat of a ways game")
    ap.add_argument("--repeat", type=int, default=7)
    opts = ap.parse_args(argv)
    print(f"load average before: {os.getloadavg()}")
    print(
        "| game | slotmath chunk loop [M rounds/CPU-s] | reference [M rounds/CPU-s] | ratio "
        "| reference mean win | exact RTP | z |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in opts.games:
        ways = load_game(name).pays_by == "ways"
        row = bench(name, int(opts.ways_rounds if ways else opts.rounds), opts.repeat)
        print(
            f"| {row['game']} | {row['ours'] / 1e6:.2f} | {row['ref'] / 1e6:.2f} | {row['ratio']:.2f} | "
            f"{row['mean']:.6f} | {row['exact']:.6f} | {row['z']:+.2f} |",
            flush=True,
        )
        print("  slotmath:", " ".join(f"{x / 1e6:.2f}" for x in row["ours_all"]))
        print("  reference:", " ".join(f"{x / 1e6:.2f}" for x in row["ref_all"]))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
