"""Compiled round simulator for line and scatter games (``rules: lines``).

One round: draw a stop on every reel with exact integer weighting, read the
window, pay every payline and the scatters.  The result is a
:class:`~slotmath.montecarlo.run.RoundSampler` for :mod:`slotmath.montecarlo.run`.

Stops
    A uniform integer ``u`` below the reel's total weight ``W`` comes from
    32 random bits by Lemire's multiply-and-reject method (exactly uniform:
    of the ``2**32`` bit patterns, the ``2**32 mod W`` that would favour
    small values are rejected and redrawn).  The bits are the top 32 of the
    53 of ``rng.random()``, the fastest draw numba offers on a
    ``numpy.random.Generator``.  Weights of ``2**31`` up to ``2**62`` draw
    from 62 bits by plain rejection, as exactly.  ``u`` maps to the stop whose cumulative
    weight range holds it: a lookup table when ``W <= TABLE_LIMIT``,
    otherwise a binary search.

Lines
    The line rules are decided once, by :func:`slotmath.engine.lines.line_pay`,
    through the pay tensor.  Each symbol tuple's outcome is coded as 0 (no
    win) or 1 + the index of its (pay-table entry, wild multiplier) label,
    and :func:`slotmath.engine.lines.prefix_determined` tabulates, for every prefix
    of 1..R symbols, the outcome when the rest of the line cannot change it.
    A line is read left to right until its prefix decides it, usually after
    two or three reels.  :func:`line_kernel` reads the first two symbols of
    every line at once from a table by the stops of the first two reels
    (:func:`pair_codes`); a game whose table would be too large, or whose
    reels weigh ``2**31`` or more, plays :func:`line_kernel_wide` (the same
    rounds for the same random stream).

Events
    One per line label (hits summed over lines, as in the combination
    table) and one per scatter pay entry, named by
    :func:`slotmath.montecarlo.convergence.event_key` after the combination table rows.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.limits import MAX_DRAW
from slotmath.engine.lines import line_outcome, line_outcomes
from slotmath.engine.reels import windows
from slotmath.engine.scatters import scatter_entry, scatter_pay, scatter_symbols
from slotmath.io.gamefile import GameFileError
from slotmath.model import Game
from slotmath.montecarlo.convergence import event_key
from slotmath.montecarlo.run import RoundSampler

#: Reels whose total stop weight is at most this draw by table lookup.
TABLE_LIMIT = 4096
_BITS = 32
#: weights from this on draw from 62 bits (:func:`uniform_below`)
_WIDE = 2**31
_SPAN = MAX_DRAW


@nb.njit(cache=True)
def lemire(u, w, bits):
    """Map ``u``, uniform on [0, 2**bits), to [0, w) or reject it (-1).

    Accepted values are exactly uniform: each result has the same number of
    accepted ``u``.  Needs ``w <= 2**bits`` and ``u * w < 2**63``.
    """
    m = u * w
    low = m & ((1 << bits) - 1)
    if low < w:
        if low < ((1 << bits) - w) % w:
            return -1
    return m >> bits


@nb.njit(cache=True)
def uniform_below(rng, w):
    """Exactly uniform integer in [0, w) (``0 < w <= MAX_REEL_WEIGHT``) from ``rng``.

    Below ``2**31``: Lemire's method on 32 random bits.  From ``2**31`` on:
    62 random bits (the top 31 of two ``rng.random()`` draws) and plain
    rejection, ``u < w * (2**62 // w)`` accepted and reduced mod ``w`` (each
    result has ``2**62 // w`` accepted ``u``; under half are rejected).
    """
    if w < _WIDE:
        while True:
            # rng.random() is k * 2**-53 with k the top 53 bits of a 64-bit draw;
            # scaling by 2**32 and truncating keeps its top 32 bits exactly.
            u = np.int64(rng.random() * 4294967296.0)
            v = lemire(u, w, _BITS)
            if v >= 0:
                return v
    if w > _SPAN:
        raise ValueError("uniform_below: a total weight above 2**62")
    limit = (_SPAN // w) * w
    while True:
        hi = np.int64(rng.random() * 2147483648.0)
        lo = np.int64(rng.random() * 2147483648.0)
        u = (hi << 31) | lo
        if u < limit:
            return u % w


@nb.njit(cache=True, inline="always")
def narrow_below(rng, w):
    """:func:`uniform_below` for ``w < 2**31`` (Lemire's method on 32 random
    bits, :func:`lemire` written out): the same draw, the same random stream,
    inlined into the line and ways kernels."""
    while True:
        u = np.int64(rng.random() * 4294967296.0)
        m = u * w
        low = m & 0xFFFFFFFF
        if low < w:
            if low < (4294967296 - w) % w:
                continue
        return m >> 32


@nb.njit(cache=True, inline="always")
def draw_narrow(rng, stop, bound, use_table, table, cum, n_stops):
    """:func:`draw_stops` for reels whose total weights are all below
    ``2**31`` (:func:`narrow_below`), inlined into its kernel.

    A called draw (:func:`draw_stops`) cost 100 ns of a 5-reel line round's
    270 ns, and an inlined draw that can also take the wide path (62 bits,
    :func:`uniform_below`) made the whole line kernel as slow, even where
    no reel is that wide (benchmarks/bench_sampler_reference.py).
    """
    R = stop.shape[0]
    for r in range(bound.shape[0]):
        u = narrow_below(rng, bound[r])
        if use_table[r] & 1:
            at = table[r, u]
        else:
            lo, hi = 0, n_stops[r]  # the first stop with cum > u (searchsorted side="right")
            while lo < hi:
                mid = (lo + hi) >> 1
                if cum[r, mid] > u:
                    hi = mid
                else:
                    lo = mid + 1
            at = lo
        if r < R:
            stop[r] = at
        else:  # a top reel's window (draw_args): its block on every covered reel
            for k in range(R):
                if use_table[k] & 2:
                    stop[k] += at * n_stops[k]


@nb.njit(cache=True)
def stop_of(u, r, use_table, table, cum, n_stops):
    """Stop of reel ``r`` whose cumulative weight range holds ``u``."""
    if use_table[r] & 1:
        return table[r, u]
    return np.searchsorted(cum[r, : n_stops[r]], u, side="right")  # first stop with cum > u


# The evaluation steps are inlined into their callers (numba IR inlining): a
# call passing a dozen arrays costs a reference-count update per array, more
# than the evaluation of a 20-line window (Piggy's sampler 2.4 -> 4.9 M rounds/s,
# video20's line sampler 5.9 -> 9.8 M; benchmarks/results.md).
@nb.njit(cache=True, inline="always")
def play_stops(
    stop, window, dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event, events
):
    """Win of the window at ``stop`` [x total bet]; adds its events to ``events``.

    ``window`` is scratch space for the window's R x rows symbols.
    """
    return line_win(stop, window, dims, sym, cells, codes, offsets, label_coins, events) + scatter_win(
        stop, sc_count, sc_pay, sc_event, events
    )


@nb.njit(cache=True, inline="always")
def play_evaluation(stop, window, evaluation, events):
    """:func:`play_stops` with ``evaluation`` the tuple of :func:`evaluation_args`
    (an inlined function cannot be called with ``*evaluation``)."""
    dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event = evaluation
    return play_stops(
        stop, window, dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event, events
    )


@nb.njit(cache=True, inline="always")
def line_win(stop, window, dims, sym, cells, codes, offsets, label_coins, events):
    """Line win of the window at ``stop`` [x total bet]; adds its line events."""
    R, rows = dims[0], dims[6]
    for r in range(R):
        for k in range(rows):
            window[r * rows + k] = sym[r, stop[r], k]
    return window_line_win(window, dims, cells, codes, offsets, label_coins, events)


#: index in ``dims`` (:func:`evaluation_args`) of the drawn multiplier wild,
#: present only on a reel set that shows it unrewritten (:func:`drawn_dims`)
DRAWN = 8


@nb.njit(cache=True)
def draw_wilds(rng, window, dims):
    """Write a drawn multiplier into every cell of ``window`` showing the
    multiplier wild ``dims[DRAWN]``: its variant symbol, drawn independently
    per cell by :func:`uniform_below` on the table's cumulative weights
    (``dims[DRAWN + 1]`` rows: variants, then cumulative weights)."""
    w, K = dims[DRAWN], dims[DRAWN + 1]
    total = dims[DRAWN + 1 + 2 * K]
    for c in range(window.shape[0]):
        if window[c] == w:
            u = uniform_below(rng, total)
            j = 0
            while dims[DRAWN + 2 + K + j] <= u:  # the first row with cumulative weight > u
                j += 1
            window[c] = dims[DRAWN + 2 + j]


@nb.njit(cache=True, inline="always")
def drawn_line_win(rng, stop, window, dims, sym, cells, codes, offsets, label_coins, events):
    """:func:`line_win` with the drawn multiplier wilds of the window drawn
    first (:func:`draw_wilds`; none when ``dims`` carries no table: the
    same win and the same random stream as :func:`line_win`)."""
    R, rows = dims[0], dims[6]
    for r in range(R):
        for k in range(rows):
            window[r * rows + k] = sym[r, stop[r], k]
    if dims.shape[0] > DRAWN:
        draw_wilds(rng, window, dims)
    return window_line_win(window, dims, cells, codes, offsets, label_coins, events)


@nb.njit(cache=True, inline="always")
def window_line_win(window, dims, cells, codes, offsets, label_coins, events):
    """Line win of ``window`` (cell ``reel x rows + row`` -> symbol) [x total bet];
    adds its line events."""
    L, S, total_bet, first = dims[1], dims[2], dims[3], dims[7]
    coins = 0
    for line in range(L):
        v = line_outcome(window, line, cells, S, first, codes, offsets)
        if v > 0:
            coins += label_coins[v - 1]
            events[v - 1] += 1
    return coins / total_bet


@nb.njit(cache=True)
def draw_stops(rng, stop, bound, use_table, table, cum, n_stops):
    """Fill ``stop`` (R,) with one weighted random stop per reel; a last
    row beyond the R reels is a top reel's window (:func:`draw_args`)."""
    # stop_of's two lines written out: calling it here made the draw several
    # times slower (benchmarks/bench_piggy.py)
    R = stop.shape[0]
    for r in range(bound.shape[0]):
        u = uniform_below(rng, bound[r])
        at = table[r, u] if use_table[r] & 1 else np.searchsorted(cum[r, : n_stops[r]], u, side="right")
        if r < R:
            stop[r] = at
        else:  # the window's block on every covered reel
            for k in range(R):
                if use_table[k] & 2:
                    stop[k] += at * n_stops[k]


@nb.njit(cache=True, inline="always")
def draw_any(rng, stop, bound, use_table, table, cum, n_stops):
    """:func:`draw_narrow` when every total weight of ``bound`` is below
    ``2**31`` (the same draw, the same random stream), else
    :func:`draw_stops` (called, not inlined: the wide path's code stays out
    of the kernel)."""
    for r in range(bound.shape[0]):
        if bound[r] >= _WIDE:
            draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
            return
    draw_narrow(rng, stop, bound, use_table, table, cum, n_stops)


@nb.njit(cache=True)
def weighted_index(rng, cum, n):
    """Index drawn with cumulative integer weights ``cum[:n]`` (exactly uniform
    in the total weight, :func:`uniform_below`)."""
    return np.searchsorted(cum[:n], uniform_below(rng, cum[n - 1]), side="right")


@nb.njit(cache=True, inline="always")
def scatter_win(stop, sc_count, sc_pay, sc_event, events):
    """Scatter win of the window at ``stop`` [x total bet]; adds its events."""
    scatter = 0.0
    for j in range(sc_count.shape[0]):
        c = 0
        for r in range(stop.shape[0]):
            c += sc_count[j, r, stop[r]]
        scatter += sc_pay[j, c]
        if sc_event[j, c] >= 0:
            events[sc_event[j, c]] += 1
    return scatter


@nb.njit(cache=True, inline="always")
def key_count(stop, trig, need):
    """The trigger count awards are read by: the count in the window, 0 unless
    every reel with ``need`` set shows the symbol (a reel condition)."""
    c = 0
    ok = True
    for r in range(stop.shape[0]):
        n = trig[r, stop[r]]
        c += n
        if need[r] and n == 0:
            ok = False
    return c if ok else 0


@nb.njit(cache=True)
def line_kernel(
    rng,
    n,
    dims,
    bound,
    use_table,
    table,
    cum,
    n_stops,
    sym,
    cells,
    codes,
    offsets,
    label_coins,
    sc_count,
    sc_pay,
    sc_event,
    pair,
    line_rows,
):
    """Play ``n`` rounds: (wins [x total bet], event counts, wins by part:
    lines, then scatters when the game has scatter symbols).

    Every reel's total weight is below ``2**31`` (:func:`draw_narrow`), and
    ``pair`` (:func:`pair_codes`) holds every line's outcome code for each
    (stop of reel 1, stop of reel 2), or its two-symbol prefix where the
    line goes on: a line is then read from reel 3 on in the prefix tables
    ``codes``/``offsets``, symbol by symbol from ``sym`` at the line's rows
    ``line_rows``, until its prefix decides it (the window is never
    copied).  The outcomes are those of :func:`line_win`;
    :func:`line_kernel_wide` plays any other line game.
    """
    R, L, S, total_bet = dims[0], dims[1], dims[2], dims[3]
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, 1 + (sc_count.shape[0] > 0)), dtype=np.float64)
    events = np.zeros(dims[5], dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    for i in range(n):
        draw_narrow(rng, stop, bound, use_table, table, cum, n_stops)
        coins = 0
        row = pair[stop[0], stop[1]]
        for line in range(L):
            v = np.int64(row[line])
            if v < 0:
                p = -1 - v
                r = 2
                while v < 0:
                    p = p * S + sym[r, stop[r], line_rows[line, r]]
                    v = codes[offsets[r] + p]
                    r += 1
            if v > 0:
                coins += label_coins[v - 1]
                events[v - 1] += 1
        wins[i] = split_win(
            parts[i], coins / total_bet, scatter_win(stop, sc_count, sc_pay, sc_event, events)
        )
    return wins, events, parts


#: Most entries (first-reel stops x second-reel stops x lines) of the table
#: of :func:`pair_codes` (int32: 4 MB); a larger game plays :func:`line_kernel_wide`.
PAIR_LIMIT = 2**20


def pair_codes(dims, sym, cells, codes, offsets, n_stops) -> tuple | None:
    """``(pair, line_rows)`` of :func:`line_kernel` from the arrays of
    :func:`evaluation_args`, or None when the game has fewer than two reels
    or the table would exceed :data:`PAIR_LIMIT` entries.

    ``pair[s0, s1, line]`` is the line's outcome code when its first two
    symbols (reel 1 at stop ``s0``, reel 2 at ``s1``) decide it (the prefix
    table of length 2, as :func:`slotmath.engine.lines.line_outcome` reads
    it), else ``-1 - p`` with ``p`` the prefix's index; ``line_rows[line,
    r]`` is the line's row on reel r.
    """
    R, L, S, rows = int(dims[0]), int(dims[1]), int(dims[2]), int(dims[6])
    if R < 2 or int(n_stops[0]) * int(n_stops[1]) * max(L, 1) > PAIR_LIMIT:
        return None
    line_rows = np.ascontiguousarray(cells - np.arange(R)[None, :] * rows, dtype=np.int64)
    n0, n1 = int(n_stops[0]), int(n_stops[1])
    pair = np.empty((n0, n1, L), dtype=np.int32)
    for line in range(L):
        p = sym[0, :n0, line_rows[line, 0]][:, None] * S + sym[1, :n1, line_rows[line, 1]][None, :]
        v = codes[offsets[1] + p]
        pair[:, :, line] = np.where(v >= 0, v, -1 - p)
    return pair, line_rows


@nb.njit(cache=True)
def line_kernel_wide(
    rng,
    n,
    dims,
    bound,
    use_table,
    table,
    cum,
    n_stops,
    sym,
    cells,
    codes,
    offsets,
    label_coins,
    sc_count,
    sc_pay,
    sc_event,
):
    """:func:`line_kernel` for reels of any total weight (:func:`draw_stops`),
    and for drawn multiplier wilds (:func:`drawn_line_win`)."""
    R = dims[0]
    wins = np.empty(n, dtype=np.float64)
    parts = np.empty((n, 1 + (sc_count.shape[0] > 0)), dtype=np.float64)
    events = np.zeros(dims[5], dtype=np.int64)
    stop = np.empty(R, dtype=np.int64)
    window = np.empty(R * dims[6], dtype=np.int64)
    for i in range(n):
        draw_stops(rng, stop, bound, use_table, table, cum, n_stops)
        lines = drawn_line_win(rng, stop, window, dims, sym, cells, codes, offsets, label_coins, events)
        wins[i] = split_win(parts[i], lines, scatter_win(stop, sc_count, sc_pay, sc_event, events))
    return wins, events, parts


@nb.njit(cache=True, inline="always")
def split_win(part, paid, scatter):
    """Round win ``paid + scatter`` [x total bet], kept by part in ``part``
    (line or ways win, then the scatter win when ``part`` has room)."""
    part[0] = paid
    if part.shape[0] > 1:
        part[1] = scatter
    return paid + scatter


@nb.njit(cache=True)
def evaluate_stops(stops, dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event):
    """Wins of given stop vectors, shape (n, R), and their event counts."""
    wins = np.empty(stops.shape[0], dtype=np.float64)
    events = np.zeros(dims[5], dtype=np.int64)
    window = np.empty(dims[0] * dims[6], dtype=np.int64)
    for i in range(stops.shape[0]):
        wins[i] = play_stops(
            stops[i],
            window,
            dims,
            sym,
            cells,
            codes,
            offsets,
            label_coins,
            sc_count,
            sc_pay,
            sc_event,
            events,
        )
    return wins, events


def line_sampler(
    game: Game, level: int, reel_set: str = "base", table_limit: int = TABLE_LIMIT, fast: bool = True
) -> RoundSampler:
    """Compiled round sampler of a line game at bet ``level``: :func:`line_kernel`
    when every reel's total weight is below ``2**31``, the table of
    :func:`pair_codes` is small enough and ``fast`` is true, else
    :func:`line_kernel_wide` (the same rounds).

    ``args`` are ``(dims, bound, use_table, table, cum, n_stops)`` (the stop
    draw) followed by :func:`evaluation_args` (without its ``dims``), then,
    for :func:`line_kernel`, :func:`pair_codes`.
    """
    draw = draw_args(game, reel_set, table_limit)
    evaluation, names = evaluation_args(game, level, reel_set)
    args = (evaluation[0],) + draw + evaluation[1:]
    dims, sym, cells, codes, offsets = evaluation[:5]
    fast = fast and len(dims) == DRAWN  # the pair table reads no window: no draws
    pair = pair_codes(dims, sym, cells, codes, offsets, draw[4]) if fast and narrow(draw[0]) else None
    if pair is None:
        return RoundSampler(line_kernel_wide, args, names, part_names(game, "lines"))
    return RoundSampler(line_kernel, args + pair, names, part_names(game, "lines"))


def narrow(bound: np.ndarray) -> bool:
    """Whether every total weight of ``bound`` draws by :func:`narrow_below`
    (below ``2**31``): the kernels that draw so are the faster ones."""
    return bool(len(bound) == 0 or int(np.max(bound)) < _WIDE)


def part_names(game: Game, paid_by: str) -> tuple:
    """Names of a line or ways sampler's win parts, the RTP components of
    :mod:`slotmath.rules.linegame`: ``paid_by`` ("lines" or "ways"), then
    "scatters" when the game has scatter symbols."""
    return (paid_by, "scatters") if scatter_symbols(game) else (paid_by,)


#: a total weight the compiled simulator draws below (:func:`uniform_below`)
MAX_REEL_WEIGHT = MAX_DRAW


def draw_args(game: Game, reel_set: str = "base", table_limit: int = TABLE_LIMIT) -> tuple:
    """``(bound, use_table, table, cum, n_stops)``: the arrays of the stop draw.

    A top reel's samplers' game (:class:`~slotmath.model.TopDraw`) draws
    one more row, the top window ``t``: a covered reel (``use_table`` bit
    2) draws its stop in its first block, moved to block ``t``."""
    strips = game.strips(reel_set)
    top = game.heights.draw if game.heights is not None else None
    rows = [s.stop_weights() for s in strips]
    coupled = np.zeros(len(rows), dtype=np.int64)
    if top is not None:
        n_windows = len(top.weights[reel_set])
        for r in top.over:
            rows[r] = rows[r][: len(rows[r]) // n_windows]
            coupled[r] = 2
        rows.append(np.array(top.weights[reel_set], dtype=np.int64))
        coupled = np.append(coupled, 0)
    R = len(rows)
    n_max = max(len(w) for w in rows)
    bound = np.array([int(w.sum()) for w in rows], dtype=np.int64)
    if bound.max() >= MAX_REEL_WEIGHT:
        r = int(np.argmax(bound))
        # one line naming the reel (the schema allows larger weights: par counts them exactly)
        raise GameFileError(
            game.source or game.name,
            f"reels.{reel_set}[{r}].weights",
            f"the reel's total stop weight {int(bound[r]):,} is not below 2**62, the compiled "
            "simulator's exact uniform draw (par computes the game exactly; give smaller weights "
            "to simulate it)",
        )
    use_table = bound <= table_limit
    table = np.zeros((R, int(max(bound[use_table], default=1))), dtype=np.int32)
    cum = np.zeros((R, n_max), dtype=np.int64)
    n_stops = np.array([len(w) for w in rows], dtype=np.int64)
    for r, w in enumerate(rows):
        cum[r, : len(w)] = np.cumsum(w)
        if use_table[r]:
            table[r, : bound[r]] = np.repeat(np.arange(len(w)), w)
    return bound, use_table.astype(np.int64) + coupled, table, cum, n_stops


def window_symbols(game: Game, reel_set: str = "base") -> np.ndarray:
    """The symbols of the window at every stop of ``reel_set``, shape (reels,
    longest strip, rows), padded with 0."""
    strips = game.strips(reel_set)
    sym = np.zeros((game.reels, max(len(s) for s in strips), game.rows), dtype=np.int64)
    for r, strip in enumerate(strips):
        sym[r, : len(strip)] = windows(game, strip)
    return sym


def evaluation_args(game: Game, level: int, reel_set: str = "base", first: int = 3):
    """Arrays for :func:`play_stops` and :func:`evaluate_stops`, and the event names.

    Returns
    -------
    args : tuple
        ``(dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay,
        sc_event)``; ``dims`` = (reels, lines, symbols, total bet [coins],
        scatter symbols, events, rows, first), where ``first`` (at most the
        reels) is the prefix length read before the first table look-up.
    names : tuple of str
    """
    bet = game.bet(level)
    R, S, L = game.reels, len(game.symbols), len(game.paylines)
    sym = window_symbols(game, reel_set)
    cells, codes, offsets, entries, mults, label_coins = line_outcomes(game, level)
    names = line_event_names(game, entries, mults)

    sc_count, sc_pay, sc_event = scatter_args(game, reel_set, names)
    dims = np.array(
        [R, L, S, bet.total_bet, len(sc_count), len(names), game.rows, max(1, min(first, R))]
        + drawn_dims(game, sym),
        dtype=np.int64,
    )
    return (dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event), tuple(names)


def drawn_dims(game: Game, sym: np.ndarray) -> list:
    """The entries of ``dims`` from :data:`DRAWN` on: ``[wild, K, variants
    (K), cumulative weights (K)]`` when ``game`` is played with its drawn
    multipliers' variant symbols and declared strips
    (:func:`slotmath.features.wildmult.drawn_symbols`) and the windows
    ``sym`` show the wild; else none (no draw, :func:`drawn_line_win`)."""
    drawn = drawn_table(game, sym)
    if drawn is None:
        return []
    w, variants, cum = drawn
    return [w, len(variants), *variants, *cum]


def drawn_table(game: Game, sym: np.ndarray) -> tuple | None:
    """``(wild, variants, cumulative weights)`` of the multiplier table of a
    game played with its drawn multipliers' variant symbols and declared
    strips (:func:`slotmath.features.wildmult.drawn_symbols`) whose windows
    ``sym`` show the wild (symbol indices, python ints); None otherwise
    (rewritten stops, a reel set without the wild, no drawn multipliers).
    A table of total weight above ``2**62`` (the exact uniform draw) is
    refused in one line (:class:`~slotmath.errors.SetupError`)."""
    from slotmath.errors import SetupError
    from slotmath.features.wildmult import WildMultipliers, variant_name

    spec = game.options.get("wild_multipliers") if isinstance(game.options, dict) else None
    if not isinstance(spec, WildMultipliers):
        return None
    w = game.symbol_index[spec.symbol]
    if not (sym == w).any():
        return None
    if spec.total > MAX_DRAW:
        raise SetupError(
            f"{game.source or game.name}: options.wild_multipliers.table: total weight {spec.total:.4g} "
            "(reduced) is above 2**62, the compiled simulator's exact uniform draw, so `simulate` cannot"
        )
    variants = [game.symbol_index[variant_name(spec.symbol, m)] for m, _ in spec.table]
    cum = np.cumsum(np.array([x for _, x in spec.table], dtype=np.int64)).tolist()
    return w, variants, cum


def line_event_names(game: Game, entries, mults) -> list:
    """Event names of the line labels of :func:`slotmath.engine.lines.line_outcomes`
    (the combination table's rows, :func:`event_key`)."""
    return [
        event_key("line", game.line_pays[e].name, int(m))
        for e, m in zip(entries.tolist(), mults.tolist(), strict=True)
    ]


def no_line_args(game: Game, level: int, reel_set: str, names: list) -> tuple:
    """Arguments of :func:`play_stops` that pay no line (a game whose pay rule
    is not lines: its pays are evaluated by its own rule), with the real
    windows ``sym`` (the round's triggers read them) and the scatters; the
    scatter events are appended to ``names`` and ``dims[5]`` counts them all."""
    R = game.reels
    sym = window_symbols(game, reel_set)
    cells = np.zeros((0, R), dtype=np.int64)
    codes = np.zeros(1, dtype=np.int32)
    offsets = np.zeros(R, dtype=np.int64)
    label_coins = np.zeros(0, dtype=np.int64)
    sc_count, sc_pay, sc_event = scatter_args(game, reel_set, names)
    dims = np.array(
        [R, 0, len(game.symbols), game.bet(level).total_bet, len(sc_count), len(names), game.rows, 1],
        dtype=np.int64,
    )
    return (dims, sym, cells, codes, offsets, label_coins, sc_count, sc_pay, sc_event)


def scatter_args(game: Game, reel_set: str, names: list) -> tuple:
    """``(sc_count, sc_pay, sc_event)`` for :func:`scatter_win`: scatters per
    (symbol, reel, stop), pay [x total bet] and event index per count; the
    scatter events are appended to ``names``."""
    strips = game.strips(reel_set)
    R = game.reels
    n_max = max(len(s) for s in strips)
    scatters = scatter_symbols(game)
    n_cells = R * game.rows
    sc_count = np.zeros((len(scatters), R, n_max), dtype=np.int64)
    sc_pay = np.zeros((len(scatters), n_cells + 1), dtype=np.float64)
    sc_event = np.full((len(scatters), n_cells + 1), -1, dtype=np.int64)
    for j, name in enumerate(scatters):
        s = game.symbol_index[name]
        for r, strip in enumerate(strips):
            sc_count[j, r, : len(strip)] = (windows(game, strip) == s).sum(axis=1)
        for c in range(n_cells + 1):
            pay = scatter_pay(game, name, c)
            sc_pay[j, c] = float(pay)
            if pay:
                key = event_key("scatter", scatter_entry(game, name, c), 1)
                if key not in names:
                    names.append(key)
                sc_event[j, c] = names.index(key)
    return sc_count, sc_pay, sc_event
