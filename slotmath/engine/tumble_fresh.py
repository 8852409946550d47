"""Tumbles with fresh-draw refills (``options.tumble.refill: fresh``): the
exact Markov chain of a pay-anywhere game.

The rule (docs/features.md "Fresh draws")
-----------------------------------------
The first window comes from the strips (the stop vector, as with the strip
refill).  After a paying drop the paid cells go and the kept cells fall,
as with the strip refill, and every gap is refilled by an independent draw
from the reel set's table (``options.tumble.draws``: one table for every
reel or one per reel; integer weights).  A spin ends when a drop pays
nothing, or after :data:`~slotmath.engine.tumble_spec.MAX_TUMBLES`
refills (the strip kernel's cap: at most ``MAX_TUMBLES + 1`` paying
drops, the last one paid); a game whose spins still pay at the cap with a
probability above :data:`FLOAT_EPS` is refused as endless.

Method
------
On a pay-anywhere game a drop's pays and the cells it removes depend only
on the counts per symbol on the board; with one table for every reel the
next board's counts are the survivors' plus a multinomial draw of the
gaps.  Symbols counted alike toward every paying symbol (a scatter and a
filler: no count) are one *class*; a state is the survivors' counts per
class.  The first drop is the strips': a convolution of the reels' window
class counts with their scatter and trigger codes (exact integer weights
over the cycle).  Then the law of the win the later drops add is computed
per state, backward over the drop index (:func:`_backward`: one matrix per
coin value of a drop), and mixed with the first drops (:func:`_combine`).
When no state can pay again forever (no cycle of paying moves,
:func:`_longest`) the chain dies out: the weights are exact integers over
``cycle x T**(cells x steps)`` (``T`` the table's total weight; below
``2**EXACT_BITS``), the RTP a ``Fraction``.  Otherwise the pass is float64
and stops when the probability that every further drop up to the cap pays
is below :data:`FLOAT_EPS` (from then on the cap does not bind); each
state's law is rounded once to integer counts over ``2**62``, so the law
is integer counts over ``cycle x 2**62`` whatever the trigger key (each
probability within ``2**-62`` plus the stopped mass; the RTP below the
chain's by at most the stopped mass x its largest further win), both
stated in the notes (:meth:`FreshLaw.note`), and the PAR's RTP is a float.
The cost is estimated first (:func:`fresh_cost`: count states x draw
outcomes) and refused above :data:`MAX_FRESH_STEPS` in one line, as is a
law array above :data:`MAX_FRESH_CELLS` cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb, factorial

import numpy as np

from slotmath.engine.anywhere import compile_anywhere
from slotmath.engine.cache import game_cache
from slotmath.engine.pays import base_rule
from slotmath.engine.reels import pack_reels
from slotmath.engine.tumble_spec import MAX_TUMBLES, tumble_spec
from slotmath.errors import EngineTooLarge, GameFileError, ensure
from slotmath.model import Game

__all__ = [
    "FreshLaw",
    "fresh_cost",
    "check_fresh_exact",
    "fresh_tumbles",
    "fresh_keyed",
    "MAX_FRESH_STEPS",
    "FLOAT_EPS",
]

#: count states x draw outcomes (an upper bound) the chain takes on before it refuses
MAX_FRESH_STEPS = 2_000_000
#: (state, win) cells of the backward pass's law array before it refuses
MAX_FRESH_CELLS = 20_000_000
#: bits of the exact denominator above which the pass is float64
EXACT_BITS = 900
#: live probability below which the float64 pass stops [probability]
FLOAT_EPS = 2.0**-60
#: the float64 law's integer counts are over this total
FLOAT_TOTAL = 2**62


@dataclass(frozen=True)
class FreshLaw:
    """The chain's law in the form of :func:`slotmath.engine.tumble.enumerated_tumbles`
    (``wins`` [1/unit_den coins], key codes, counts over ``cycle``) and how it
    was computed: ``exact`` (integer counts), else float64 with ``stopped``
    live mass [probability] and the RTP bound ``rtp_bound`` [x total bet]."""

    wins: np.ndarray
    codes: np.ndarray
    counts: np.ndarray
    unit_den: int
    total_bet: int
    cycle: int
    exact: bool
    states: int
    drops: int
    stopped: float = 0.0
    rtp_bound: float = 0.0

    def keyed(self) -> tuple:
        """``(wins, codes, counts, unit_den, total_bet, cycle)``."""
        return self.wins, self.codes, self.counts, self.unit_den, self.total_bet, self.cycle

    def note(self) -> str:
        """The notes' sentence on the method."""
        how = (
            "exact integer counts"
            if self.exact
            else f"float64 (stopped where all further drops pay with probability {self.stopped:.2e}; each "
            f"probability within 2**-62 of the chain's plus that; RTP low by at most {self.rtp_bound:.2e} "
            "x total bet)"
        )
        return (
            f"Fresh draws: the Markov chain over {self.states:,} count states (the survivors' counts "
            f"per symbol class), {self.drops} drops computed; {how}."
        )


def _where(game: Game) -> str:
    return game.source or game.name


def check_fresh_exact(game: Game, reel_set: str = "base") -> None:
    """Refuse (:class:`EngineTooLarge`, one line pointing to ``slotmath
    simulate``) a fresh-draw game the chain does not compute: another pay
    rule than pay-anywhere, a table per reel that differ, board multiplier
    symbols, or a cost estimate (:func:`fresh_cost`) above :data:`MAX_FRESH_STEPS`."""
    spec = tumble_spec(game)
    draws = spec.draws_on(reel_set) if spec else None
    ensure(draws is not None, "tumble_fresh.py: expected fresh draws")
    why = None
    rule = base_rule(game)
    if not rule.fresh_chain:
        why = (
            f"is computed exactly on pay-anywhere games only (pays_by: {rule.name}: "
            "the pays depend on the cells' places)"
        )
    elif not draws.shared:
        why = "is computed exactly with one table for every reel only (the counts then suffice)"
    elif spec.board_on(reel_set) is not None:
        why = "is not computed exactly with multiplier_symbols"
    if why is not None:
        raise EngineTooLarge(
            f"the law of fresh-draw refills on reel set {reel_set!r} {why}; run `slotmath simulate` instead",
            file=_where(game),
            field="options.tumble.refill",
        )
    states, outcomes = fresh_cost(game, reel_set)
    if states * outcomes > MAX_FRESH_STEPS:
        raise EngineTooLarge(
            f"the fresh-draw chain on reel set {reel_set!r} could hold {states:,} count states x "
            f"{outcomes:,} draw outcomes = {states * outcomes:.3g} steps, above the bound "
            f"{MAX_FRESH_STEPS:.3g}; run `slotmath simulate` instead",
            file=_where(game),
            field="options.tumble.draws",
        )


def _classes(game: Game, level: int, reel_set: str) -> tuple:
    """(class of each symbol index (-1: never shown or drawn), class weight
    rows (K, P), the table's class weights (K,)): symbols with the same
    count weight toward every paying symbol are one class."""
    ap = compile_anywhere(game, level)
    win, _, n_stops = pack_reels(game, reel_set)
    shown = {int(s) for r in range(game.reels) for s in np.unique(win[r, : n_stops[r]])}
    symbols, weights = tumble_spec(game).draws_on(reel_set).tables[0]
    drawn = {game.symbol_index[s]: w for s, w in zip(symbols, weights, strict=True)}
    rows: dict = {}
    of = np.full(len(game.symbols), -1, dtype=np.int64)
    for s in sorted(shown | set(drawn)):
        of[s] = rows.setdefault(tuple(ap.weight[s].tolist()), len(rows))
    table = [0] * len(rows)
    for s, w in drawn.items():
        table[of[s]] += w
    return of, np.array(list(rows), dtype=np.int64).reshape(len(rows), -1), table, ap


def fresh_cost(game: Game, reel_set: str = "base", level: int | None = None) -> tuple:
    """(count states, draw outcomes of the fullest refill): the states are
    the multisets of at most ``cells`` cells over the symbol classes, the
    outcomes the multisets of ``cells`` draws over the table's classes."""
    level = game.bet_levels[0].level if level is None else level
    _, rows, table, _ = _classes(game, level, reel_set)
    cells, K, Kt = game.reels * game.rows, len(rows), sum(w > 0 for w in table)
    return comb(cells + K, K), comb(cells + Kt - 1, Kt - 1)


def _outcomes(g: int, table: list, scale: int) -> list:
    """Every multiset of ``g`` draws over the classes: (counts, weight),
    the weight ``g! / prod n! x prod w**n`` times ``scale`` (integers)."""
    classes = [k for k, w in enumerate(table) if w > 0]
    out = []
    for cut in combinations_with_replacement(classes, g):
        counts = [0] * len(table)
        for k in cut:
            counts[k] += 1
        weight = factorial(g)
        for k in classes:
            weight = weight // factorial(counts[k]) * table[k] ** counts[k]
        out.append((tuple(counts), weight * scale))
    return out


def _evaluate(board: tuple, rows: np.ndarray, pay: np.ndarray) -> tuple:
    """(coins, survivors) of a board given as counts per class: each paying
    symbol's count is the classes' weighted sum; every class counted toward
    a paying symbol goes."""
    counts = np.asarray(board, dtype=np.int64) @ rows
    paid = [p for p in range(pay.shape[0]) if pay[p, counts[p]] > 0]
    coins = int(sum(int(pay[p, counts[p]]) for p in paid))
    if not coins:
        return 0, board
    gone = rows[:, paid].sum(axis=1) > 0
    return coins, tuple(0 if gone[k] else n for k, n in enumerate(board))


def _first_boards(game: Game, level: int, reel_set: str, triggers: tuple, of: np.ndarray, K: int):
    """{(class counts, scatter code, key code): stop weight} of the first
    drop over the cycle (reel by reel), and (scatter units, keys, unit_den)."""
    from slotmath.engine.tumble import first_drop

    weights, sc_code, sc_units, key_code, n_keys, unit_den = first_drop(game, level, reel_set, triggers)
    win, _, n_stops = pack_reels(game, reel_set)
    law: dict = {((0,) * K, 0, 0): 1}
    for r in range(game.reels):
        step: dict = {}
        for s in range(int(n_stops[r])):
            w = int(weights[r, s])
            if not w:
                continue
            v = [0] * K
            for x in win[r, s].tolist():
                v[of[x]] += 1
            for (b, sc, key), c in law.items():
                at = (
                    tuple(a + d for a, d in zip(b, v, strict=True)),
                    sc + int(sc_code[r, s]),
                    key + int(key_code[r, s]),
                )
                step[at] = step.get(at, 0) + c * w
        law = step
    return law, np.asarray(sc_units, dtype=np.int64), n_keys, unit_den


def _moves(first: dict, rows: np.ndarray, pay: np.ndarray, table: list, cells: int, win_of) -> tuple:
    """(per count state reached after a paying drop, its draws merged by
    (coins, next state; -1 when the drop pays nothing) with their weights
    over ``T**cells``; the first drop's {(state or -1, win, key code,
    unit_den): stop weight}, ``win_of(coins, scatter code)`` its win
    [1/unit_den coins]), every state reached from the first drop's survivors."""
    index: dict = {}
    boards: list = []

    def at(board: tuple) -> int:
        if board not in index:
            index[board] = len(boards)
            boards.append(board)
        return index[board]

    starts: dict = {}
    for (board, sc, key), w in first.items():
        coins, kept = _evaluate(board, rows, pay)
        win, unit = win_of(coins, sc)
        where = (at(kept) if coins else -1, win, key, unit)
        starts[where] = starts.get(where, 0) + w
    T, outcomes, moves = sum(table), {}, []
    while len(moves) < len(boards):
        kept = boards[len(moves)]
        g = cells - sum(kept)
        if g not in outcomes:
            outcomes[g] = _outcomes(g, table, T ** (cells - g))
        merged: dict = {}
        for d, dw in outcomes[g]:
            coins, after = _evaluate(tuple(a + b for a, b in zip(kept, d, strict=True)), rows, pay)
            to = at(after) if coins else -1
            merged[(coins, to)] = merged.get((coins, to), 0) + dw
        moves.append(sorted(merged.items()))
    return moves, starts


def _longest(moves: list) -> int | None:
    """Most paying drops after the first one from any state (None when some
    state can pay again forever, a cycle of paying moves: the chain then
    never dies out before the cap)."""
    if _has_cycle(moves):
        return None
    depth: list = [None] * len(moves)
    order: list = []
    seen = [False] * len(moves)
    for root in range(len(moves)):  # post-order, iteratively
        stack = [(root, False)]
        while stack:
            s, done = stack.pop()
            if done:
                order.append(s)
            elif not seen[s]:
                seen[s] = True
                stack.append((s, True))
                stack += [(to, False) for (_, to), _ in moves[s] if to >= 0 and not seen[to]]
    for s in order:
        depth[s] = 1 + max((depth[to] for (_, to), _ in moves[s] if to >= 0), default=0)
    return max(depth, default=0)


def _has_cycle(moves: list) -> bool:
    """True when some state can pay again forever (a cycle of paying moves)."""
    colour = [0] * len(moves)  # 0 new, 1 on the path, 2 done
    for root in range(len(moves)):
        if colour[root]:
            continue
        stack = [(root, iter(moves[root]))]
        colour[root] = 1
        while stack:
            s, it = stack[-1]
            for (_, to), _ in it:
                if to < 0:
                    continue
                if colour[to] == 1:
                    return True
                if colour[to] == 0:
                    colour[to] = 1
                    stack.append((to, iter(moves[to])))
                    break
            else:
                colour[s] = 2
                stack.pop()
    return False


def _backward(moves, T, cells, mults, max_tumbles, exact):
    """The law of the win the drops after the first one add [coins x
    multiplier], per count state, backward over the drop index ``k`` (cap
    down to 1): ``H_k[s] = P(no pay) d0 + sum_c P_c[s, to] shift(H_{k+1}[to],
    c x m_k)``, ``H_{cap+1} = d0``, one matrix ``P_c`` per coin value.  Beside
    it ``A_k[s]``, the probability that drops ``k .. cap`` all pay; once the
    progression has reached its last value and ``max A_k`` is 0 (exact) or
    below :data:`FLOAT_EPS` (float64) the cap no longer binds and ``H_k`` is
    every earlier ``H_j`` of the last value.  Returns (H_1 (state, units),
    its denominator (exact: ``T**(cells x steps)``; float64: 1.0), steps
    played, the stopped mass ``max A``, ``A_1`` per state)."""
    dtype = object if exact else np.float64
    S = len(moves)
    full = T**cells
    stop = np.zeros(S, dtype=dtype)
    paying: dict = {}
    for s, m in enumerate(moves):
        for (coins, to), dw in m:
            p = dw if exact else dw / full
            if to < 0:
                stop[s] += p
            else:
                paying.setdefault(coins, np.zeros((S, S), dtype=dtype))[s, to] += p
    one = 1 if exact else 1.0
    H = np.full((S, 1), one, dtype=dtype)
    alive = np.full(S, one, dtype=dtype)
    den, steps, k, last = 1 if exact else 1.0, 0, max_tumbles, len(mults) - 1
    while k >= 1:
        m = mults[min(k, last)]
        width = H.shape[1] + max(paying, default=0) * m
        if S * width > MAX_FRESH_CELLS:
            raise EngineTooLarge(
                f"the fresh-draw chain's law array reaches {S:,} states x {width:,} wins at drop index {k}, "
                f"above the bound {MAX_FRESH_CELLS:,} cells; run `slotmath simulate` instead",
                field="options.tumble.draws",
            )
        nxt = np.zeros((S, width), dtype=dtype)
        nxt[:, 0] = stop * den
        again = np.zeros(S, dtype=dtype)
        for coins, matrix in paying.items():
            nxt[:, coins * m : coins * m + H.shape[1]] += matrix.dot(H)
            again += matrix.dot(alive)
        used = np.flatnonzero(nxt.any(axis=0))
        H, alive = nxt[:, : int(used[-1]) + 1 if used.size else 1], again
        if exact:
            den *= full
        steps += 1
        k -= 1
        settled = not alive.any() if exact else float(alive.max(initial=0.0)) < FLOAT_EPS
        if settled and k >= last:  # every H_j of the last multiplier is this one
            k = min(k, last - 1)
    return H, den, steps, 0.0 if exact else float(alive.max(initial=0.0)), alive


def _combine(starts, H, den, n_keys, exact) -> tuple:
    """({(win [1/unit_den coins], key code): integer count}, total): each
    first drop (its win, key and survivors' state, or none) followed by its
    state's chain law; in float64 each state's law is first rounded once to
    integer counts over :data:`FLOAT_TOTAL` (its largest entry taking the
    remainder), so every keying sums the same integers."""
    if exact:
        G, total = H, den
    else:
        G = np.empty(H.shape, dtype=object)
        for s, row in enumerate(H):
            q = [int(c) for c in np.rint(row / row.sum() * FLOAT_TOTAL)]
            q[int(np.argmax(row))] += FLOAT_TOTAL - sum(q)
            G[s] = q
        total = FLOAT_TOTAL
    out: dict = {}
    for (s, win, key, unit), w in starts.items():
        if s < 0:
            out[(win, key)] = out.get((win, key), 0) + w * total
            continue
        for j in np.flatnonzero(G[s] != 0).tolist():
            at = (win + j * unit, key)
            out[at] = out.get(at, 0) + w * int(G[s, j])
    return out, total


def fresh_tumbles(
    game: Game, level: int, triggers=(), reel_set: str = "base", max_tumbles: int = MAX_TUMBLES, exact=None
) -> FreshLaw:
    """The law of (spin win, first-drop key) of a fresh-draw tumble spin on
    a pay-anywhere game (the module's method), ``max_tumbles`` refills at
    most; ``exact`` True or False forces the integer or the float64 pass
    (default: integers when no state can pay forever and the denominator
    fits :data:`EXACT_BITS` bits, else float64)."""
    from slotmath.engine.joint import INT64_SAFE

    check_fresh_exact(game, reel_set)
    of, rows, table, ap = _classes(game, level, reel_set)
    K, cells, T = len(rows), game.reels * game.rows, sum(table)
    first, sc_units, n_keys, unit_den = _first_boards(game, level, reel_set, tuple(triggers), of, K)
    cycle = game.cycle(reel_set)
    ensure(sum(first.values()) == cycle, "tumble_fresh.py: the first drops must sum to the cycle")
    mults = tumble_spec(game).progression(reel_set)

    def win_of(coins: int, sc: int) -> tuple:
        return coins * mults[0] * unit_den + int(sc_units[sc]), unit_den

    moves, starts = _moves(first, rows, ap.pay, table, cells, win_of)
    longest = _longest(moves)
    if exact is None:  # integers when the chain dies out and its denominator stays small
        bits = (cycle * T ** (cells * min(longest or 0, max_tumbles))).bit_length()
        exact = longest is not None and bits <= EXACT_BITS
    H, den, drops, stopped, alive = _backward(moves, T, cells, mults, max_tumbles, exact)
    capped = sum(w * float(alive[s]) for (s, _, _, _), w in starts.items() if s >= 0) / cycle
    if max_tumbles == MAX_TUMBLES and capped > FLOAT_EPS:
        raise GameFileError(
            _where(game),
            "options.tumble",
            f"fresh-draw spins still pay after {MAX_TUMBLES} tumbles on reel set {reel_set!r} "
            f"(probability {capped:.3g}); the sequence would not end",
        )
    finished, total = _combine(starts, H, den, n_keys, exact)
    keys = sorted(finished)
    wins = np.array([w for w, _ in keys], dtype=object)
    codes = np.array([c for _, c in keys], dtype=np.int64)
    top = max((int(w) for w in wins.tolist()), default=0)
    if top >= INT64_SAFE:
        raise EngineTooLarge(
            f"a fresh-draw spin's win ({top:.3e} win units) does not fit int64; lower the multipliers",
            file=_where(game),
            field="options.tumble.multipliers",
        )
    total_bet = game.bet(level).total_bet
    counts = np.array([int(finished[a]) for a in keys], dtype=object)
    ensure(int(counts.sum()) == total * cycle, "tumble_fresh.py: the counts must sum to the total")
    if exact:
        return FreshLaw(
            wins.astype(np.int64), codes, counts, unit_den, total_bet, total * cycle, True, len(moves), drops
        )
    from slotmath.engine.tumble import drop_top, tumble_args

    further = drop_top(tumble_args(game, level, reel_set)[3]) * max(mults) * (max_tumbles + 1)
    return FreshLaw(
        wins.astype(np.int64),
        codes,
        counts,
        unit_den,
        total_bet,
        total * cycle,
        False,
        len(moves),
        drops,
        stopped,
        stopped * further / total_bet,
    )


def _reel_set_of(game, level, triggers, reel_set) -> tuple:
    return (reel_set,)


@game_cache(_reel_set_of, maxsize=8)
def fresh_keyed(game: Game, level: int, triggers: tuple, reel_set: str = "base") -> FreshLaw:
    """:func:`fresh_tumbles` (cached on the game's value, the level, the
    triggers and the reel set)."""
    return fresh_tumbles(game, level, tuple(triggers), reel_set)
