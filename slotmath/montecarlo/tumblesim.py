"""Compiled round sampler of a game with tumbles (``options.tumble``; line,
pay-anywhere, ways or cluster pays).

One round: draw the base stops (:func:`slotmath.montecarlo.linesim.draw_any`),
play the tumble sequence to its end (:func:`slotmath.engine.tumble.tumble_units`,
the exact enumeration's own step), multiply a paying sequence by the
board multiplier symbols' drawn values (with ``refill: fresh`` every gap
refilled by a draw of the declared table, :func:`fresh_units`), pay the
first drop's scatters and, when
``options.free_games`` is declared, play the free games its scatter count
awards one by one on the free reel set (its progression, its retriggers,
at most ``max_games``), times the free games' multiplier.  Parts
[x total bet]: the pay rule's channel (``lines``, ``anywhere``, ``ways`` or ``cluster``),
``scatters`` (when the game has scatter symbols), ``free_games`` (when
declared); events: the first drop's pays and scatter pays (the combination
table's rows), ``free_games`` (triggers) and ``free_games_played``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine.lines import line_outcomes
from slotmath.engine.pays import base_rule
from slotmath.engine.scatters import scatter_symbols
from slotmath.engine.tumble import drop_pays, drop_window, fall, tumble_args, tumble_units
from slotmath.engine.tumble_spec import tumble_spec
from slotmath.model import Game
from slotmath.montecarlo.linesim import (
    draw_any,
    draw_args,
    key_count,
    line_event_names,
    part_names,
    scatter_args,
    scatter_win,
    weighted_index,
)
from slotmath.montecarlo.payeval import PAY_EVALUATIONS
from slotmath.montecarlo.run import RoundSampler

__all__ = ["tumble_sampler", "tumble_kernel", "tumble_rounds", "fresh_units", "fresh_args"]


@nb.njit(cache=True, inline="always")
def fresh_units(rng, window, dims, pays, mults, removed, events, draws):
    """:func:`tumble_units` with fresh-draw refills: every gap is filled by an
    independent draw of reel ``r``'s table, ``draws`` = (cumulative integer
    weights (R, K), symbols (R, K), table sizes (R,)); the same cap."""
    R, H = dims[0], dims[1]
    M = mults.shape[0]
    cum, sym, size = draws
    total = 0
    k = 0
    while True:
        coins = drop_pays(window, pays, removed, events, k == 0 and events.shape[0] > 0)
        if coins == 0:
            return total, k
        total += coins * mults[min(k, M - 1)]
        k += 1
        if k > dims[2]:
            return total, -1
        for r in range(R):
            for w in range(fall(window, removed, r, H)):
                window[r * H + w] = sym[r, weighted_index(rng, cum[r], size[r])]


@nb.njit(cache=True, inline="always")
def _sequence_scatter_win(seen, sc_sym, sc_pay, sc_event, events, cells):
    """Scatter win [x total bet] of the scatters ``seen`` over a whole
    sequence (by symbol; each count read capped at ``cells``); adds its events."""
    scatter = 0.0
    for j in range(sc_sym.shape[0]):
        c = min(seen[sc_sym[j]], cells)
        scatter += sc_pay[j, c]
        if sc_event[j, c] >= 0:
            events[sc_event[j, c]] += 1
    return scatter


@nb.njit(cache=True, inline="always")
def _tumble_spin(rng, stop, window, ptr, removed, side, scatter_part, need, events, start, seen, held):
    """One spin (draw, tumbles, board multipliers, scatters) of a reel set
    ``side`` = (draw, tumble, scatter arrays, trigger counts, total bet,
    board multipliers' (cumulative weights, values), (trigger symbol,
    scatter symbols), fresh draws of :func:`fresh_args`): (pay win, scatter win) [x total bet], the trigger
    count (0 unless every reel with ``need`` set shows the symbol) and the
    paying drops; the first drop's pays and the scatter pays are counted in
    ``events``.  The progression starts at its ``start``-th value.  A paying
    spin's pays are multiplied by the sum of one drawn value per multiplier
    symbol (``dims[3]``) on its final board (x1 with none).  With ``seen``
    not empty (``triggers: sequence``) the trigger count and the scatter
    pays read every cell on the board in any drop, counted there by symbol.
    With fresh draws (``refill: fresh``) the gaps are refilled by
    :func:`fresh_units`.  ``held`` >= 0: the running total of persistent
    board multipliers before the spin (the spin adds its values and pays x
    ``max(held, 1)``); -1: none.  Also returns the total after the spin."""
    draw, tumble, scatter_arrays, trig, total_bet, board, seq_syms, fresh = side
    bound, use_table, table, cum, n_draw = draw
    strip, n_stops, dims, pays, mults = tumble
    sc_count, sc_pay, sc_event = scatter_arrays
    trig_sym, sc_sym = seq_syms
    draw_any(rng, stop, bound, use_table, table, cum, n_draw)
    sequence = seen.shape[0] > 0
    count = 0
    scatter = 0.0
    if not sequence:
        count = key_count(stop, trig, need)
        scatter = scatter_win(stop, sc_count, sc_pay, sc_event, events) if scatter_part else 0.0
    drop_window(stop, window, ptr, strip, n_stops, dims[1])
    cells = window.shape[0]
    if sequence:
        seen[:] = 0
        for c in range(cells):
            seen[window[c]] += 1
    at = min(start, mults.shape[0] - 1)
    if fresh[2][0] > 0:  # fresh-draw refills (the triggers read the first drop)
        units, k = fresh_units(rng, window, dims, pays, mults[at:], removed, events, fresh)
    else:
        units, k = tumble_units(window, ptr, strip, n_stops, dims, pays, mults[at:], removed, events, seen)
    if k < 0:
        k = dims[2]
    if sequence:
        count = min(seen[trig_sym[0]], cells) if trig_sym[0] >= 0 else 0
        if scatter_part:
            scatter = _sequence_scatter_win(seen, sc_sym, sc_pay, sc_event, events, cells)
    if units > 0 and dims[3] >= 0:  # each multiplier symbol on the final board: a drawn value
        board_cum, board_values = board
        total = 0
        for c in range(window.shape[0]):
            if window[c] == dims[3]:
                total += board_values[weighted_index(rng, board_cum, board_cum.shape[0])]
        if held >= 0:  # persistent: the values add to the round's running total
            held += total
            total = held
        units *= max(total, 1)
    return units / total_bet, scatter, count, k, held


@nb.njit(cache=True)
def tumble_kernel(
    rng, n, base, free, games, prize, free_setup, retrigger, retrigger_prize, mults, need, sizes
):
    """Play ``n`` rounds: (wins [x total bet], event counts, wins by part).
    ``games``, ``prize`` [x total bet] and ``mults`` (the feature's
    multiplier) of the base trigger count and ``retrigger``,
    ``retrigger_prize`` of a free spin's, by count; ``need``: the reels a
    trigger needs; ``free_setup`` = (declared, max games (0: none), scatter
    pays in free games, the progression carried through the free games
    (``reset: round``), scatters and triggers read over the whole sequence
    (``triggers: sequence``), the board multipliers persisting through the
    free games, a bought round: no base spin, count 0's games at once);
    ``sizes`` = (events, the free spins' scratch
    events, symbols).  Events: the base spin's first-drop pays, then the free games'
    triggers and games played (the last two)."""
    n_events = sizes[0]
    R, H = base[1][2][0], base[1][2][1]
    has_scatters = base[2][0].shape[0] > 0
    n_parts = 1 + has_scatters + (free_setup[0] > 0)
    wins = np.empty(n, dtype=np.float64)
    parts = np.zeros((n, n_parts), dtype=np.float64)
    events = np.zeros(n_events, dtype=np.int64)
    free_events = np.zeros(max(sizes[0], sizes[1]), dtype=np.int64)  # free spins' pays: not base events
    scratch = (
        np.empty(R, dtype=np.int64),
        np.empty(R * H, dtype=np.int64),
        np.empty(R, dtype=np.int64),
        np.empty(R * H, dtype=np.int64),
        np.zeros(sizes[2] if free_setup[4] > 0 else 0, dtype=np.int64),
    )
    tumble_rounds(
        rng,
        base,
        free,
        games,
        prize,
        free_setup,
        retrigger,
        retrigger_prize,
        mults,
        need,
        wins,
        parts,
        events,
        free_events,
        scratch,
    )
    return wins, events, parts


@nb.njit(cache=True, _nrt=False)
def tumble_rounds(
    rng,
    base,
    free,
    games,
    prize,
    free_setup,
    retrigger,
    retrigger_prize,
    mults,
    need,
    wins,
    parts,
    events,
    free_events,
    scratch,
):
    """The rounds of :func:`tumble_kernel` (its arguments), written into
    ``wins`` (n,), ``parts`` (n, parts) and ``events``; ``free_events`` and
    ``scratch`` = (stops (R,), window (R x H,), next stops (R,), removed
    cells (R x H,), symbols seen) are work arrays.

    Compiled without numba's reference counting (``_nrt=False``: it
    allocates nothing, the caller holds every array): with it, each
    unpacking of an argument tuple and each call taking arrays paid atomic
    increments and decrements of their counts, about 0.1 us a drop, most of
    a round's time (cluster7 0.62 -> 1.5 M rounds/s per core, candy_tumble
    0.80 -> 2.6 M; benchmarks/results.md).  Everything it calls must
    allocate nothing either (a slice copy ``a[:] = b`` does: write loops)."""
    n = wins.shape[0]
    n_events = events.shape[0]
    n_parts = parts.shape[1]
    has_scatters = base[2][0].shape[0] > 0
    stop, window, ptr, removed, seen = scratch
    for i in range(n):
        if free_setup[6] > 0:  # a bought round: no base spin, the bought games start at once
            pays, scatter, count = 0.0, 0.0, 0
        else:
            pays, scatter, count, _, _ = _tumble_spin(
                rng, stop, window, ptr, removed, base, True, need, events, 0, seen, -1
            )
        parts[i, 0] = pays
        if has_scatters:
            parts[i, 1] = scatter
        feature = 0.0
        if free_setup[0] > 0 and games[count] > 0:
            events[n_events - 2] += 1
            won = 0.0
            left = games[count]
            played = 0
            at = 0  # the progression's position (reset: round carries it through the free games)
            held = 0 if free_setup[5] > 0 else -1  # persistent board multipliers' running total
            while left > 0 and (free_setup[1] == 0 or played < free_setup[1]):
                fl, fs, fc, k, held = _tumble_spin(
                    rng,
                    stop,
                    window,
                    ptr,
                    removed,
                    free,
                    free_setup[2] > 0,
                    need,
                    free_events,
                    at,
                    seen,
                    held,
                )
                won += fl + fs + retrigger_prize[fc]
                left += retrigger[fc] - 1
                played += 1
                if free_setup[3] > 0:
                    at += k
            # a retrigger adds games at the running feature's multiplier
            feature = prize[count] + won * mults[count]
            events[n_events - 1] += played
            parts[i, n_parts - 1] = feature
        wins[i] = pays + scatter + feature


def _side(game: Game, level: int, reel_set: str, symbol: str | None, names: list) -> tuple:
    """The arrays of one reel set for :func:`_tumble_spin` (on a pay-anywhere,
    ways or cluster game its pay rows' events, then its scatter events, are appended
    to ``names``; a line game's line events are its labels, already named)."""
    from slotmath.engine.reels import reel_windows

    draw = draw_args(game, reel_set)
    event = None
    evaluation = PAY_EVALUATIONS.get(base_rule(game).sampler_pays)
    if evaluation is not None:
        event = evaluation.build(game, level, reel_set, names, None)[evaluation.events_at]
    tumble = tumble_args(game, level, reel_set, event)
    scatter = scatter_args(game, reel_set, names)
    n_max = tumble[0].shape[1]
    trig = np.zeros((game.reels, n_max), dtype=np.int64)
    if symbol is not None:
        for r, w in enumerate(reel_windows(game, reel_set)):
            trig[r, : len(w)] = (w == game.symbol_index[symbol]).sum(axis=1)
    total_bet = np.int64(game.bet(level).total_bet)
    spec = tumble_spec(game).board_on(reel_set)
    board = (
        np.cumsum(np.array(spec.weights if spec else [1], dtype=np.int64)),
        np.array(spec.values if spec else [1], dtype=np.int64),
    )
    seq_syms = (
        np.array([game.symbol_index[symbol] if symbol is not None else -1], dtype=np.int64),
        np.array([game.symbol_index[s] for s in scatter_symbols(game)], dtype=np.int64),
    )
    return draw, tumble, scatter, trig, total_bet, board, seq_syms, fresh_args(game, reel_set)


def fresh_args(game: Game, reel_set: str) -> tuple:
    """The ``draws`` of :func:`fresh_units` on ``reel_set``: (cumulative
    integer weights (R, K), symbol indices (R, K), table sizes (R,)); sizes
    0 with a strip refill."""
    spec = tumble_spec(game).draws_on(reel_set)
    tables = spec.tables if spec is not None else ()
    K = max((len(t[0]) for t in tables), default=1)
    cum = np.zeros((game.reels, K), dtype=np.int64)
    sym = np.zeros((game.reels, K), dtype=np.int64)
    size = np.zeros(game.reels, dtype=np.int64)
    for r, (symbols, weights) in enumerate(tables):
        cum[r, : len(weights)] = np.cumsum(weights)
        sym[r, : len(symbols)] = [game.symbol_index[s] for s in symbols]
        size[r] = len(symbols)
    return cum, sym, size


def tumble_sampler(game: Game, level: int, bought=None) -> RoundSampler:
    """Compiled round sampler of a tumble game at bet ``level``.

    ``bought``: the free games of a bought round (a
    :class:`~slotmath.features.options.FreeGamesSpec` whose every count starts
    the bought games with no prize): each round plays them at once, with no
    base spin (its parts and first-drop events stay 0)."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.options import load_features

    spec = load_features(game).free_games if bought is None else bought
    tumbles = tumble_spec(game)
    cells = game.reels * game.rows + 1
    symbol = spec.symbol if spec is not None else None
    names: list = []
    if game.reads_paylines:  # the first drop's line pays: the combination table's rows, by label
        _, _, _, entries, label_mults, _ = line_outcomes(game, level)
        names = line_event_names(game, entries, label_mults)
    base = _side(game, level, "base", symbol, names)
    free_names = list(names)  # the free reel set's own scatter events: not counted
    free = _side(game, level, spec.reels, symbol, free_names) if spec is not None else base
    games = np.array([spec.games(c) if spec else 0 for c in range(cells)], dtype=np.int64)
    retrigger = np.array(
        [spec.retrigger_games(c) if spec and spec.retrigger else 0 for c in range(cells)], dtype=np.int64
    )
    prize = np.array([float(spec.prize(c)) if spec else 0.0 for c in range(cells)])
    again = np.array([float(spec.retrigger_prize(c)) if spec else 0.0 for c in range(cells)])
    setup = np.array(
        [
            int(spec is not None),
            (spec.max_games or 0) if spec else 0,
            int(spec.scatter_pays) if spec else 1,
            int(tumbles.carried),
            int(tumbles.sequence),
            int(tumbles.board is not None and tumbles.board.persist),
            int(bought is not None),
        ],
        dtype=np.float64,
    )
    parts = part_names(game, pay_rule(game).channel) + (("free_games",) if spec else ())
    mults = np.array([float(spec.multiplier_of(c)) if spec else 1.0 for c in range(cells)])
    need = np.zeros(game.reels, dtype=np.int64)
    for r in (spec.trigger_reels or ()) if spec else ():
        need[r] = 1
    names += ["free_games", "free_games_played"]
    sizes = np.array([len(names), len(free_names), len(game.symbols)], dtype=np.int64)
    args = (base, free, games, prize, setup, retrigger, again, mults, need, sizes)
    return RoundSampler(tumble_kernel, args, tuple(names), parts)
