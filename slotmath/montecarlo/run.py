"""Monte Carlo at scale: compiled round samplers run in reproducible chunks.

A rules module exposes ``round_sampler(game, level)`` returning an object
with

* ``kernel``: a numba function ``kernel(rng, n, *args) -> (wins, events[, parts])``
  that plays ``n`` independent rounds with the ``numpy.random.Generator``
  ``rng``; ``wins`` is float64[n] [x total bet], ``events`` int64[E] counts
  of named events (each pay's or feature's hits) over the ``n`` rounds;
* ``args``: a tuple of arrays passed after ``n``;
* ``event_names``: a tuple of E names;
* ``part_names`` (optional): a tuple of C names of the win's components
  (the rules' RTP components); the kernel then returns ``(wins, events,
  parts)``, ``parts`` float64[n, C] the win of each round by component
  [x total bet] (a row sums to the round's win).

A run of N rounds is cut into chunks of a fixed size (independent of the
number of workers).  Chunk ``i`` draws from its own stream,
``SeedSequence(seed).spawn(...)[i]`` (built directly as
``SeedSequence(seed, spawn_key=(i,))``, which is the same sequence), and is
played in blocks of :data:`BLOCK` rounds.  Its statistics
(:class:`ChunkStats`) merge exactly: counts are integers and the float
power sums are kept as exact rationals of the per-block float sums, so the
merged figures are bit-identical whatever the number of workers and the
order in which chunks finish.

Chunks run in this process (``workers=1``), on the processes of this
machine (``concurrent.futures``) or on a Dask cluster (``scheduler=``
address or ``distributed.Client``).  A tqdm progress bar shows the ETA and
the running RTP with its 95 % interval; Ctrl-C stops the run and returns the
chunks finished so far, labelled partial.

This loop is the one simulation path: the rules' ``simulate``
(:func:`simulate_sampler`), :func:`slotmath.analysis.simulation.simulate_game`,
the CLI and the report's Monte Carlo section all run it, so the same game,
seed and rounds give the same figures whichever entry is used
(``tests/test_simulation_path.py``).  ``montecarlo.results.simulate_lines``
is not a simulation path but an independent reference evaluator (numpy, the
straightforward line rule) that the compiled samplers are tested against.
"""

from __future__ import annotations

import importlib
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from fractions import Fraction

import numba as nb
import numpy as np

from slotmath.engine.distribution import WIN_EDGES
from slotmath.errors import SchedulerError as SchedulerError
from slotmath.errors import SetupError as SetupError
from slotmath.montecarlo.results import Moments, SimulationResult

#: Rounds per chunk (the unit of work and of reproducibility) by default.
CHUNK = 1_000_000
#: Rounds per kernel call inside a chunk (fixed: part of the result's identity).
BLOCK = 8192
#: Upper edges of the win histogram bins [x total bet]; bin 0 holds zero wins,
#: bin k (k >= 1) wins in [edge k-1, edge k) with edge 0 = 0 (exclusive).
#: A win within this relative distance below an edge counts as on the edge
#: (float rounding of sums such as 4.7 + 0.3 must not move a win of 5 down).
EDGE_TOLERANCE = 1e-12
THRESHOLDS = np.array(WIN_EDGES, dtype=np.float64) * (1 - EDGE_TOLERANCE)
#: Number of histogram bins (zero, below the first edge, between edges, above the last).
N_BINS = len(WIN_EDGES) + 2


def win_bin_labels() -> list:
    """Labels of the histogram bins: ``0``, ``(0, 1)``, ``[1, 2)``, ..."""
    labels = ["0", f"(0, {WIN_EDGES[0]:,})"]
    labels += [f"[{lo:,}, {hi:,})" for lo, hi in itertools.pairwise(WIN_EDGES)]
    return labels + [f"[{WIN_EDGES[-1]:,}, inf)"]


#: Most chunks a run may have (each chunk is a task and a result to merge).
MAX_CHUNKS = 1_000_000


# ---------------------------------------------------------------- samplers
@dataclass(frozen=True, eq=False)
class RoundSampler:
    """A compiled round simulator (see the module docstring).

    Pickles its kernel by reference (module and name) when the kernel is a
    module-level function, so workers load the compiled code from numba's
    cache instead of receiving it.
    """

    kernel: Callable
    args: tuple
    event_names: tuple
    part_names: tuple = ()

    def __reduce__(self):
        return (_rebuild_sampler, (_kernel_ref(self.kernel), self.args, self.event_names, self.part_names))


def _kernel_ref(kernel):
    func = getattr(kernel, "py_func", kernel)
    module, name = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    try:
        if module and getattr(importlib.import_module(module), name) is kernel:
            return (module, name)
    except (ImportError, AttributeError):
        pass
    return kernel


def _rebuild_sampler(ref, args, event_names, part_names=()) -> RoundSampler:
    kernel = getattr(importlib.import_module(ref[0]), ref[1]) if isinstance(ref, tuple) else ref
    return RoundSampler(kernel, args, event_names, part_names)


def as_sampler(obj) -> RoundSampler:
    """Normalise any object with ``kernel``, ``args`` and ``event_names``."""
    if isinstance(obj, RoundSampler):
        return obj
    try:
        return RoundSampler(
            obj.kernel, tuple(obj.args), tuple(obj.event_names), tuple(getattr(obj, "part_names", ()))
        )
    except AttributeError:
        raise TypeError(
            f"{type(obj).__name__} is not a round sampler (needs .kernel, .args and .event_names)"
        ) from None


# ---------------------------------------------------------------- chunks
def plan_chunks(rounds: int, chunk: int = CHUNK) -> list:
    """``(index, size)`` of every chunk of a run of ``rounds`` rounds."""
    if rounds < 0 or chunk < 1:
        raise SetupError("rounds must be >= 0 and chunk >= 1")
    if -(-rounds // chunk) > MAX_CHUNKS:
        raise SetupError(
            f"{rounds:,} rounds in chunks of {chunk:,} make more than "
            f"{MAX_CHUNKS:,} chunks: use larger chunks"
        )
    return [(i, min(chunk, rounds - i * chunk)) for i in range(-(-rounds // chunk))]


def chunks_text(rounds: int, chunks: int, chunk: int) -> str:
    """The chunks as run, in words: a single chunk is as long as the rounds
    it played (not the chunk size), unequal chunks are "of up to" the size."""
    if chunks == 1:
        return f"1 chunk of {rounds:,} rounds"
    upto = "up to " if rounds != chunks * chunk else ""
    return f"{chunks:,} chunks of {upto}{chunk:,} rounds"


def chunk_rng(seed: int, index: int) -> np.random.Generator:
    """The random stream of chunk ``index``: child ``index`` of
    ``SeedSequence(seed)`` (as ``spawn`` would make it) driving PCG64DXSM,
    the bit generator numpy recommends for many parallel streams."""
    return np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(index,))))


@dataclass(frozen=True)
class ChunkStats:
    """Statistics of a set of rounds; :meth:`merge` is exact.

    Attributes
    ----------
    rounds : int
    sums : tuple of Fraction
        Sums of win, win**2, win**3, win**4 [x total bet ** k]: the exact sum
        of the per-block float64 sums.
    hits : int
        Rounds with a win > 0.
    max_win : float
        Largest win seen [x total bet].
    histogram : tuple of int
        Rounds per win bin (:func:`win_bin_labels`).
    events : tuple of int
        Count of each event.
    event_sq, event_cross : tuple of int
        Per event, sums over blocks of count**2 and of count x block size
        (batch means for the events' standard errors).
    block_sq : int
        Sum over blocks of block size**2.
    blocks, chunks : int
        Kernel calls and chunks merged.
    parts, part_sq : tuple of Fraction
        Per win component (the sampler's ``part_names``), the sums of its
        win and of its square [x total bet ** k] (exact sums of per-block
        float64 sums).
    """

    rounds: int
    sums: tuple
    hits: int
    max_win: float
    histogram: tuple
    events: tuple
    event_sq: tuple
    event_cross: tuple
    block_sq: int
    blocks: int
    chunks: int
    parts: tuple = ()
    part_sq: tuple = ()

    @classmethod
    def empty(cls, n_events: int, n_parts: int = 0) -> ChunkStats:
        zeros = (0,) * n_events
        none = (Fraction(0),) * n_parts
        return cls(0, (Fraction(0),) * 4, 0, 0.0, (0,) * (N_BINS), zeros, zeros, zeros, 0, 0, 0, none, none)

    def merge(self, other: ChunkStats) -> ChunkStats:
        """Statistics of both sets of rounds (exact, associative, commutative)."""
        if len(self.events) != len(other.events) or len(self.parts) != len(other.parts):
            raise ValueError("cannot merge statistics with different events or win components")
        add = lambda a, b: tuple(x + y for x, y in zip(a, b, strict=True))  # noqa: E731
        return ChunkStats(
            self.rounds + other.rounds,
            add(self.sums, other.sums),
            self.hits + other.hits,
            max(self.max_win, other.max_win),
            add(self.histogram, other.histogram),
            add(self.events, other.events),
            add(self.event_sq, other.event_sq),
            add(self.event_cross, other.event_cross),
            self.block_sq + other.block_sq,
            self.blocks + other.blocks,
            self.chunks + other.chunks,
            add(self.parts, other.parts),
            add(self.part_sq, other.part_sq),
        )

    @property
    def moments(self) -> Moments:
        """Power sums as floats (correctly rounded from the exact sums)."""
        return Moments(self.rounds, *(float(s) for s in self.sums), self.hits)

    def rtp_interval(self) -> tuple:
        """(RTP, half-width of its 95 % interval) [x total bet]; NaN when empty."""
        n = self.rounds
        if n == 0:
            return float("nan"), float("nan")
        s1, s2 = self.sums[0], self.sums[1]
        var = max(float((s2 - s1 * s1 / n) / n), 0.0)
        return float(s1 / n), 1.96 * (var / n) ** 0.5

    def event_rate(self, k: int) -> tuple:
        """(count per round, its standard error) of event ``k``.

        The standard error comes from batch means over the kernel blocks
        (blocks are independent, rounds inside a block need not be counted
        separately): Var = B/(B-1) sum_b (c_b - p n_b)**2 / n**2.
        """
        n, b = self.rounds, self.blocks
        if n == 0:
            return float("nan"), float("nan")
        p = Fraction(self.events[k], n)
        ss = self.event_sq[k] - 2 * p * self.event_cross[k] + p * p * self.block_sq
        var = float(ss) / n**2 * (b / (b - 1) if b > 1 else 1.0)
        return float(p), max(var, 0.0) ** 0.5

    def part_rtp(self, k: int) -> tuple:
        """(RTP of win component ``k``, its standard error from the run's
        own variance of that component) [x total bet]."""
        n = self.rounds
        if n == 0:
            return float("nan"), float("nan")
        mean = self.parts[k] / n
        var = max(float(self.part_sq[k] / n - mean * mean), 0.0)
        return float(mean), (var / n) ** 0.5


@nb.njit(cache=True)
def win_bin(x, thresholds):
    """Histogram bin of win ``x`` [x total bet] (0 for no win)."""
    if x <= 0.0:
        return 0
    k = 0
    while k < thresholds.shape[0] and x >= thresholds[k]:
        k += 1
    return k + 1


@nb.njit(cache=True)
def _block_stats(wins, thresholds):
    s1 = s2 = s3 = s4 = 0.0
    hits = 0
    bad = 0
    mx = 0.0
    hist = np.zeros(thresholds.shape[0] + 2, dtype=np.int64)  # N_BINS
    for i in range(wins.shape[0]):
        x = wins[i]
        if not (x >= 0.0 and x < np.inf):
            bad += 1
            continue
        x2 = x * x
        s1 += x
        s2 += x2
        s3 += x2 * x
        s4 += x2 * x2
        if x > 0.0:
            hits += 1
        if x > mx:
            mx = x
        hist[win_bin(x, thresholds)] += 1
    return s1, s2, s3, s4, hits, mx, hist, bad


@nb.njit(cache=True)
def column_sums(by_part):
    """Sums of the columns of ``by_part`` (n, C) and of their squares, each
    column added row by row: the same floats as numpy's
    ``by_part.sum(axis=0)`` and ``(by_part * by_part).sum(axis=0)`` for a
    C-contiguous array of two or more columns (numpy reduces across a short
    contiguous row sequentially; a single column it sums pairwise, so
    :func:`part_sums` leaves that case to numpy).  numpy took 0.25 ms a
    call for 8192 x 2 floats, more than a tenth of a line game's chunk."""
    C = by_part.shape[1]
    s = np.zeros(C, dtype=np.float64)
    q = np.zeros(C, dtype=np.float64)
    for i in range(by_part.shape[0]):
        for k in range(C):
            x = by_part[i, k]
            s[k] += x
            q[k] += x * x
    return s, q


def part_sums(by_part: np.ndarray) -> tuple:
    """``(by_part.sum(axis=0), (by_part * by_part).sum(axis=0))``, the same
    floats, compiled where numpy's order is the row-by-row one (:func:`column_sums`)."""
    if (
        by_part.ndim == 2
        and by_part.shape[1] >= 2
        and by_part.dtype == np.float64
        and by_part.flags.c_contiguous
    ):
        return column_sums(by_part)
    return by_part.sum(axis=0), (by_part * by_part).sum(axis=0)


class ExactSum:
    """Exact sum of floats, kept as an integer count of ``2**-1074`` (the
    smallest float's unit): ``value()`` is the same Fraction as the sum of
    ``Fraction(x)`` of every float added, without a Fraction addition (and
    its gcd) per block."""

    __slots__ = ("units",)
    SHIFT = 1074

    def __init__(self) -> None:
        self.units = 0

    def add(self, x: float) -> None:
        num, den = float(x).as_integer_ratio()
        self.units += num << (self.SHIFT - den.bit_length() + 1)

    def value(self) -> Fraction:
        return Fraction(self.units, 1 << self.SHIFT)


def run_chunk(sampler, seed: int, index: int, size: int, block: int = BLOCK) -> ChunkStats:
    """Play chunk ``index`` (``size`` rounds) of a run and return its statistics."""
    rng = chunk_rng(seed, index)
    n_events, n_parts = len(sampler.event_names), len(sampler.part_names)
    sums = [ExactSum() for _ in range(4)]
    parts, part_sq = [ExactSum() for _ in range(n_parts)], [ExactSum() for _ in range(n_parts)]
    hits, mx, blocks, block_sq = 0, 0.0, 0, 0
    hist = np.zeros(N_BINS, dtype=np.int64)
    events = np.zeros(n_events, dtype=np.int64)
    event_sq = np.zeros(n_events, dtype=object)
    event_cross = np.zeros(n_events, dtype=object)
    for start in range(0, size, block):
        n = min(block, size - start)
        out = sampler.kernel(rng, n, *sampler.args)
        wins, ev = np.asarray(out[0]), np.asarray(out[1])
        by_part = np.asarray(out[2]) if n_parts else np.zeros((n, 0))
        if wins.shape != (n,) or ev.shape != (n_events,) or by_part.shape != (n, n_parts):
            raise ValueError(
                f"round sampler returned shapes {wins.shape}, {ev.shape}"
                + (f" and {by_part.shape}" if n_parts else "")
                + f", expected ({n},), ({n_events},)"
                + (f" and ({n}, {n_parts})" if n_parts else "")
            )
        for k, (s, q) in enumerate(zip(*part_sums(by_part), strict=True)):
            parts[k].add(s)
            part_sq[k].add(q)
        b1, b2, b3, b4, h, m, hb, bad = _block_stats(wins.astype(np.float64, copy=False), THRESHOLDS)
        if bad:
            raise ValueError(f"round sampler returned {bad} negative or non-finite wins")
        for k, s in enumerate((b1, b2, b3, b4)):
            sums[k].add(s)
        hits += int(h)
        mx = max(mx, float(m))
        hist += hb
        events += ev
        evo = ev.astype(object)
        event_sq += evo * evo
        event_cross += evo * n
        block_sq += n * n
        blocks += 1
    return ChunkStats(
        size,
        tuple(x.value() for x in sums),
        hits,
        mx,
        tuple(int(v) for v in hist),
        tuple(int(v) for v in events),
        tuple(int(v) for v in event_sq),
        tuple(int(v) for v in event_cross),
        block_sq,
        blocks,
        1,
        tuple(x.value() for x in parts),
        tuple(x.value() for x in part_sq),
    )


# ---------------------------------------------------------------- runs
@dataclass
class Run:
    """Outcome of :func:`run`: merged statistics and how they were obtained."""

    stats: ChunkStats
    event_names: tuple
    seed: int
    rounds_requested: int
    chunk: int
    chunks_planned: int
    chunk_indices: list
    workers: int
    scheduler: str | None
    elapsed: float
    partial: bool = False
    part_names: tuple = ()

    @property
    def rounds(self) -> int:
        return self.stats.rounds

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.elapsed if self.elapsed > 0 else float("nan")


def default_workers() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run(
    sampler,
    rounds: int,
    seed: int = 0,
    *,
    chunk: int = CHUNK,
    workers: int | None = None,
    scheduler=None,
    progress: bool | None = None,
    desc: str = "",
) -> Run:
    """Play ``rounds`` rounds of ``sampler`` in chunks and merge them.

    Parameters
    ----------
    sampler : round sampler
        Object with ``kernel``, ``args`` and ``event_names``.
    rounds : int
    seed : int
        Root of the chunks' seed sequence; with ``rounds`` and ``chunk`` it
        fixes the result, whatever ``workers`` or ``scheduler``.
    chunk : int
        Rounds per chunk.
    workers : int, optional
        Local processes (default: the cores available; 1 runs in this
        process).  Ignored with ``scheduler``.
    scheduler : str or distributed.Client, optional
        Dask scheduler address (``tcp://host:8786``) or a connected client.
    progress : bool, optional
        Show a progress bar (default: when stderr is a terminal or in a
        notebook).

    Returns
    -------
    Run
        ``partial`` is True when Ctrl-C stopped the run; its statistics
        then hold the chunks that finished (listed in ``chunk_indices``).
    """
    sampler = as_sampler(sampler)
    if int(seed) < 0:
        raise SetupError("seed must be >= 0")
    plan = plan_chunks(int(rounds), int(chunk))
    if scheduler is not None:
        runner = _DaskRunner(sampler, plan, seed, scheduler)
    else:
        workers = max(1, min(workers or default_workers(), len(plan)))
        runner = (
            _LocalRunner(sampler, plan, seed) if workers == 1 else _PoolRunner(sampler, plan, seed, workers)
        )
    empty = ChunkStats.empty(len(sampler.event_names), len(sampler.part_names))
    finished: list = []  # (index, stats); one append per chunk, so Ctrl-C cannot split it
    shown = empty  # running total for the progress bar only
    bar = None

    def collect(index: int, stats: ChunkStats) -> None:
        nonlocal shown
        finished.append((index, stats))
        if bar is not None:
            shown = shown.merge(stats)
            rtp, half = shown.rtp_interval()
            bar.update(stats.rounds)
            bar.set_postfix_str(f"RTP {rtp:.4%} ± {half * 100:.4f} pp (95 %)", refresh=False)

    start = time.perf_counter()
    installed, previous = _defer_ctrl_c(runner)
    try:
        with runner:
            bar = _progress_bar(rounds, desc or runner.where, progress)
            for index, stats in runner.results():
                collect(index, stats)
    except KeyboardInterrupt:
        for index, stats in runner.leftovers:
            collect(index, stats)
    finally:
        if installed:
            signal.signal(signal.SIGINT, previous)
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - start
    total = empty
    for _, stats in finished:  # exact merge: any order gives the same total
        total = total.merge(stats)
    done = sorted(index for index, _ in finished)
    return Run(
        total,
        tuple(sampler.event_names),
        int(seed),
        int(rounds),
        int(chunk),
        len(plan),
        done,
        runner.workers,
        runner.scheduler,
        elapsed,
        len(done) < len(plan),
        tuple(sampler.part_names),
    )


def simulate_sampler(
    sampler,
    game,
    level: int,
    spins: int,
    seed: int = 0,
    exact: dict | None = None,
    *,
    chunk: int = CHUNK,
    workers: int | None = 1,
) -> SimulationResult:
    """``spins`` rounds of a compiled round ``sampler`` played by :func:`run`
    (the one simulation loop and random-number scheme: the same ``seed``,
    ``spins`` and ``chunk`` give the same figures as
    :func:`slotmath.analysis.simulation.simulate_game`), with z-scores
    against the ``exact`` figures (``rtp``, ``hit_frequency``, ``sd``)."""
    outcome = run(sampler, spins, seed, chunk=chunk, workers=workers, progress=False)
    return SimulationResult(game.name, level, outcome.rounds, seed, outcome.stats.moments, exact or {})


def _defer_ctrl_c(runner):
    """For a runner that polls ``runner.stop`` (the local pool), turn Ctrl-C
    into setting that flag, so the interruption is raised where the runner
    checks it and never inside the process pool's own locking (which can
    then hang at shutdown).  Returns ``(installed, previous handler)``;
    nothing is installed for other runners, outside the main thread, or
    when SIGINT is ignored (a background job)."""
    stop = getattr(runner, "stop", None)
    if (
        stop is None
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        return False, None
    return True, signal.signal(signal.SIGINT, lambda signum, frame: stop.set())


def _progress_bar(total: int, desc: str, enabled: bool | None):
    if enabled is None:
        enabled = sys.stderr.isatty() or _in_notebook()
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rounds", unit_scale=True, dynamic_ncols=True, smoothing=0.1)


def _in_notebook() -> bool:
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


class _LocalRunner:
    """Plays the chunks in this process.

    Runners are context managers; ``results()`` yields ``(index,
    ChunkStats)`` as chunks finish; after an interruption ``leftovers``
    holds chunks that finished but were not yet yielded.
    """

    scheduler = None

    def __init__(self, sampler, plan, seed, warm: bool = True):
        self.sampler, self.plan, self.seed = sampler, plan, seed
        self.workers, self.where = 1, "1 process"
        self.leftovers: list = []
        if warm:  # compile here, outside the timed run (forked workers inherit it)
            _warm_up(sampler)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(interrupted=exc_type is not None)
        return False

    def results(self):
        for index, size in self.plan:
            yield index, run_chunk(self.sampler, self.seed, index, size)

    def close(self, interrupted: bool) -> None:
        pass


# worker-process state for the local pool
_WORKER_SAMPLER = None


def _init_worker(sampler) -> None:
    global _WORKER_SAMPLER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _WORKER_SAMPLER = sampler


def _pool_chunk(seed, index, size):
    return index, run_chunk(_WORKER_SAMPLER, seed, index, size)


def _mp_context():
    """``fork`` while this process has a single thread (workers inherit the
    compiled kernels), otherwise ``spawn`` (forking a threaded process is
    unsafe)."""
    methods = multiprocessing.get_all_start_methods()
    method = "fork" if "fork" in methods and threading.active_count() == 1 else "spawn"
    return multiprocessing.get_context(method)


def _warm_up(sampler) -> None:
    """Compile (or load) the kernels here so forked workers inherit them."""
    sampler.kernel(np.random.default_rng(0), 1, *sampler.args)
    _block_stats(np.zeros(1), THRESHOLDS)


class _PoolRunner(_LocalRunner):
    """Plays the chunks on ``workers`` processes of this machine, keeping
    two chunks per worker in flight."""

    def __init__(self, sampler, plan, seed, workers):
        super().__init__(sampler, plan, seed)
        self.workers, self.where = workers, f"{workers} processes"
        self.pool = ProcessPoolExecutor(
            workers, mp_context=_mp_context(), initializer=_init_worker, initargs=(sampler,)
        )
        self.pool.submit(int).result()  # start the workers before any other thread
        self.pending: set = set()
        self.ready: list = []
        self.stop = threading.Event()  # set by Ctrl-C (see _defer_ctrl_c)

    def results(self):
        todo = iter(self.plan)
        while True:
            if self.stop.is_set():
                raise KeyboardInterrupt
            while len(self.pending) < 2 * self.workers:
                nxt = next(todo, None)
                if nxt is None:
                    break
                self.pending.add(self.pool.submit(_pool_chunk, self.seed, *nxt))
            if not self.pending and not self.ready:
                return
            finished, self.pending = wait(self.pending, timeout=0.5, return_when=FIRST_COMPLETED)
            self.ready += [f.result() for f in finished]
            while self.ready and not self.stop.is_set():
                yield self.ready.pop(0)

    def close(self, interrupted: bool) -> None:
        if interrupted:
            for fut in self.pending:
                fut.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)
        if interrupted:
            self.leftovers = self.ready + [
                f.result() for f in self.pending if f.done() and not f.cancelled() and f.exception() is None
            ]


def _dask_chunk(sampler, seed, index, size):
    return index, run_chunk(sampler, seed, index, size)


def connect(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (an address or a client).

    Returns ``(client, own)``; ``own`` is True when the client was opened
    here (and should be closed by the caller).  The connect timeout is
    Dask's ``distributed.comm.timeouts.connect`` setting.
    """
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerError(
            "a Dask scheduler needs the 'scale' extra: pip install 'slotmath[scale]'"
        ) from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None


class _DaskRunner(_LocalRunner):
    """Plays the chunks on a Dask cluster (address or connected client)."""

    def __init__(self, sampler, plan, seed, scheduler):
        super().__init__(sampler, plan, seed, warm=False)
        self.client, self.own = connect(scheduler)
        self.scheduler = self.client.scheduler.address
        self.workers = len(self.client.scheduler_info()["workers"])
        self.where = f"dask {self.scheduler}"
        self.futures: dict = {}

    def results(self):
        from distributed import as_completed

        remote = self.client.scatter(self.sampler, broadcast=True, hash=False)
        self.futures = {
            i: self.client.submit(_dask_chunk, remote, self.seed, i, size, pure=False)
            for i, size in self.plan
        }
        for fut in as_completed(list(self.futures.values())):
            index, stats = fut.result()
            del self.futures[index]
            yield index, stats

    def close(self, interrupted: bool) -> None:
        try:
            if interrupted:
                self.leftovers = [f.result() for f in self.futures.values() if f.status == "finished"]
                self.client.cancel(list(self.futures.values()))
        finally:
            if self.own:
                self.client.close()


# ---------------------------------------------------------------- results
@dataclass
class MonteCarloResult(SimulationResult):
    """A compiled, chunked simulation run: the :class:`SimulationResult`
    figures (simulated, with z-scores against the exact values) plus the
    run's provenance and its convergence report.  ``partial`` marks a run
    stopped before all chunks finished."""

    run: Run | None = None
    convergence: object = None

    @property
    def partial(self) -> bool:
        return self.run.partial

    def text(self) -> str:
        r = self.run
        where = f"Dask {r.scheduler}" if r.scheduler else f"{r.workers} process{'es' * (r.workers != 1)}"
        head = [
            f"Simulation (Monte Carlo, compiled sampler): {self.game}, bet level {self.level}",
            f"  {r.rounds:,} rounds in {chunks_text(r.rounds, len(r.chunk_indices), r.chunk)}, "
            f"seed {r.seed}, {where}, {r.elapsed:.1f} s ({r.rounds_per_second:,.0f} rounds/s)",
        ]
        if r.partial:
            head.insert(
                1,
                f"  PARTIAL RESULT: interrupted after {len(r.chunk_indices)} of "
                f"{r.chunks_planned} chunks ({r.rounds:,} of {r.rounds_requested:,} rounds)",
            )
        if r.rounds == 0:
            return "\n".join(head + ["  no chunk finished: nothing to report"])
        body = self.convergence.text() if self.convergence is not None else super().text().split("\n", 1)[1]
        return "\n".join(head) + "\n" + body

    def print_summary(self) -> None:
        print(self.text())

    def _repr_html_(self) -> str:
        head = self.text().split("\n  figure", 1)[0]
        html = "<pre>" + head.replace("&", "&amp;").replace("<", "&lt;") + "</pre>"
        if self.convergence is not None and self.run.rounds:
            html += self.convergence._repr_html_()
        return html

    def to_dict(self) -> dict:
        r = self.run
        out = (
            super().to_dict()
            if r.rounds
            else {"game": self.game, "bet": self.level, "spins": 0, "seed": self.seed, "simulated": True}
        )
        out.update(
            {
                "engine": "compiled",
                "partial": r.partial,
                "rounds": r.rounds,
                "rounds_requested": r.rounds_requested,
                "chunk": r.chunk,
                "chunks": len(r.chunk_indices),
                "chunks_planned": r.chunks_planned,
                "workers": r.workers,
                "scheduler": r.scheduler,
                "elapsed_s": r.elapsed,
                "rounds_per_second": r.rounds_per_second,
            }
        )
        if self.convergence is not None and r.rounds:
            out["convergence"] = self.convergence.to_dict()
        return out
