"""Exact distribution of the total win of a spin (all lines and scatters).

Method: a forward pass over the reels on merged states.  After reels
1..k a *state* is

* the state of every payline in the line pay automaton
  (:func:`slotmath.engine.moments.pay_automaton`: two symbol prefixes are one
  state when every completion pays them the same); a line whose win can no
  longer change is *decided*: its win moves into the decided win and its
  state becomes -1;
* the scatter code of reels 1..k (:func:`slotmath.engine.scatters.scatter_counts`);
* the decided win so far [1/unit_den coins],

with an integer weight: the number of stop combinations of reels 1..k
that reach it.  Reel k+1 is applied by grouping its stops into *stop
classes* (equal window up to symbols the automaton cannot tell apart at
that reel, equal scatter code; weights summed), stepping every state by
every class and merging equal results in a hash table.  A state whose lines
are all decided is finished at once: only the scatter win of the remaining
reels can change, whose distribution is pre-convolved, and it is added to
the sparse win table (distinct win -> count).

Complexity: ``sum_k E_k x J_(k+1) x L`` steps, where ``E_k`` is the number
of merged states after reel ``k`` (with live lines), ``J_k`` the number of
stop classes of reel ``k`` and ``L`` the number of paylines; memory
``O(max_k E_k x L)`` plus the distinct wins.  Neither depends on the cycle
``prod N_r`` itself.  :func:`state_estimate` gives the state counts before
the work starts.  Counts are int64, exact while the cycle is below 2**62
(checked: every state's weight and every win's count is at most the cycle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from slotmath.engine import limits
from slotmath.engine.distribution import WinDistribution
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.moments import pay_automaton, unique_rows
from slotmath.engine.reels import pack_reels, reel_digits, reel_radix
from slotmath.engine.scatters import scatter_counts, suffix_scatter, win_denominator
from slotmath.errors import ensure
from slotmath.model import Game

__all__ = [
    "INT64_SAFE",
    "EngineTooLarge",
    "KeyedWins",
    "keyed_wins",
    "StopKey",
    "pack_reels",
    "spin_distribution",
    "spin_key_distribution",
    "stop_classes",
    "suffix_scatter",
]

INT64_SAFE = 2**62


def check_cost(game: Game, reel: int, n_states: int, n_classes: int, limit: int) -> None:
    """Raise :class:`EngineTooLarge` (with the estimated time) when the step
    of ``reel`` (0-based) would exceed ``limit`` line steps."""
    limits.check_step_cost(game, reel, n_states, n_classes, len(game.paylines), limit)


# ===========================================================================
# a hash table of (row, win) keys with int64 counts
# ===========================================================================
@nb.njit(cache=True)
def _hash(row, win):
    h = np.uint64(14695981039346656037)
    p = np.uint64(1099511628211)
    for v in row:
        h = (h ^ np.uint64(np.int64(v) + 1)) * p
    h = (h ^ np.uint64(win)) * p
    return h ^ (h >> np.uint64(29))


@nb.njit(cache=True)
def new_table(width, cap, dtype_probe):
    """Empty table for at least ``cap`` entries (a power of two; 2 slots per entry)."""
    c = 16
    while c < cap:
        c *= 2
    cap = c
    keys = np.empty((cap, width), dtype=dtype_probe.dtype)
    wins = np.empty(cap, dtype=np.int64)
    counts = np.empty(cap, dtype=np.int64)
    slots = np.full(2 * cap, -1, dtype=np.int64)
    return keys, wins, counts, slots


@nb.njit(cache=True)
def _grow(keys, wins, counts, slots, n):
    """Double the table (entries and slots), re-slotting the ``n`` entries."""
    cap = 2 * keys.shape[0]
    k2 = np.empty((cap, keys.shape[1]), dtype=keys.dtype)
    w2 = np.empty(cap, dtype=np.int64)
    c2 = np.empty(cap, dtype=np.int64)
    k2[:n] = keys[:n]
    w2[:n] = wins[:n]
    c2[:n] = counts[:n]
    s2 = np.full(2 * cap, -1, dtype=np.int64)
    mask = np.uint64(s2.shape[0] - 1)
    for i in range(n):
        h = _hash(k2[i], w2[i]) & mask
        while s2[h] >= 0:
            h = (h + np.uint64(1)) & mask
        s2[h] = i
    return k2, w2, c2, s2


@nb.njit(cache=True)
def _find(keys, wins, slots, row, win):
    """Slot of ``(row, win)``: the entry there is the key, or the slot is empty."""
    mask = np.uint64(slots.shape[0] - 1)
    h = _hash(row, win) & mask
    W = row.shape[0]
    while True:
        i = slots[h]
        if i < 0:
            return h
        if wins[i] == win:
            same = True
            for j in range(W):
                if keys[i, j] != row[j]:
                    same = False
                    break
            if same:
                return h
        h = (h + np.uint64(1)) & mask


@nb.njit(cache=True, inline="always")
def add_entry(keys, wins, counts, slots, n, row, win, w):
    """Add count ``w`` to the entry (``row``, ``win``) of a table of ``n``
    entries, growing it when full; returns the table and its new size
    (inlined where it is called: a call per insert costs the line engine
    more than twice its time)."""
    if n + 1 > keys.shape[0]:
        keys, wins, counts, slots = _grow(keys, wins, counts, slots, n)
    h = _find(keys, wins, slots, row, win)
    e = slots[h]
    if e < 0:
        slots[h] = n
        keys[n] = row
        wins[n] = win
        counts[n] = w
        n += 1
    else:
        counts[e] += w
    return keys, wins, counts, slots, n


# ===========================================================================
# the forward pass
# ===========================================================================
@nb.njit(cache=True)
def _advance(
    keys,
    wins,
    counts,
    n,
    k,
    cls_sym,
    cls_w,
    cls_code,
    lines,
    trans,
    lo,
    hi,
    unit,
    suffix,
    suffix_nz,
    pay_units,
    fkeys,
    fwins,
    fcounts,
    fslots,
    fn,
    n_sc,
):
    """Step the ``n`` states after reel ``k`` by every stop class of reel
    ``k + 1``; finished states go to the final win table ``f*``.

    Codes are scatter code + ``n_sc`` x key code; the final table is keyed by
    (key code, win) when it has one key column, by win alone otherwise.
    Returns the new states (keys, wins, counts, count) and the final table.
    """
    L = lines.shape[0]
    W = keys.shape[1]
    cap = max(16, n)
    nk, nw, nc, ns = new_table(W, cap, keys[0])
    m = 0
    row = np.empty(W, dtype=keys.dtype)
    frow = np.zeros(fkeys.shape[1], dtype=fkeys.dtype)
    keyed = fkeys.shape[1] > 0
    for i in range(n):
        for j in range(cls_w.shape[0]):
            w = counts[i] * cls_w[j]
            win = wins[i]
            live = False
            for line in range(L):
                q = keys[i, line]
                if q < 0:
                    row[line] = -1
                    continue
                q2 = trans[k, q, cls_sym[j, lines[line, k]]]
                if lo[k + 1, q2] == hi[k + 1, q2]:
                    win += lo[k + 1, q2] * unit
                    row[line] = -1
                else:
                    row[line] = q2
                    live = True
            code = keys[i, L] + cls_code[j]
            if live:
                row[L] = code
                nk, nw, nc, ns, m = add_entry(nk, nw, nc, ns, m, row, win, w)
            else:
                for t in range(suffix_nz.shape[1]):
                    c2 = suffix_nz[k + 1, t]
                    if c2 < 0:
                        break
                    if keyed:
                        frow[0] = (code + c2) // n_sc
                    fkeys, fwins, fcounts, fslots, fn = add_entry(
                        fkeys,
                        fwins,
                        fcounts,
                        fslots,
                        fn,
                        frow,
                        win + pay_units[code + c2],
                        w * suffix[k + 1, c2],
                    )
    return nk, nw, nc, m, fkeys, fwins, fcounts, fslots, fn


def symbol_classes(trans: np.ndarray, n_states: int) -> np.ndarray:
    """Per symbol, its class at one reel: symbols with equal transitions
    from every automaton state before that reel share a class."""
    _, inv = unique_rows(np.ascontiguousarray(trans[:n_states].T))
    return inv


def stop_classes(win: np.ndarray, weights: np.ndarray, codes: np.ndarray, classes: np.ndarray):
    """Stops of one reel grouped by (symbol class per row, scatter code).

    Returns a representative window ``(J, H)``, the summed stop weight ``(J,)``
    and the scatter code ``(J,)`` of each class (stops of weight 0 dropped).
    """
    _, first, w = group_stops(np.column_stack([classes[win], codes]), weights)
    return win[first], w, codes[first]


def group_stops(key: np.ndarray, weights: np.ndarray) -> tuple:
    """Stops of one reel grouped by their ``key`` row (``(N, K)``; stops of
    weight 0 dropped): the distinct keys ``(J, K)``, a stop of each class
    ``(J,)`` and the summed stop weight of each class ``(J,)``."""
    keep = np.flatnonzero(weights)
    uniq, inv = unique_rows(key[keep])
    first = np.empty(len(uniq), dtype=np.int64)
    first[inv] = keep  # any stop of a class represents it
    w = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(w, inv, weights[keep])
    return uniq, first, w


def final_distribution(
    wins: np.ndarray, counts: np.ndarray, unit_den: int, total_bet: int, cycle: int
) -> WinDistribution:
    """The finished table as a win distribution, wins ascending; its counts
    must sum to the full ``cycle`` [spins]. ``wins`` are in [1/unit_den coins]."""
    order = np.argsort(wins, kind="stable")
    dist = WinDistribution(
        wins[order].copy(), np.array(counts[order].tolist(), dtype=object), unit_den, total_bet
    )
    ensure(dist.total == cycle, "joint.py: expected dist.total == cycle")
    return dist


def spin_distribution(
    game: Game, level: int, reel_set: str = "base", max_line_steps: int | None = None
) -> WinDistribution:
    """Exact distribution of the total win of one spin (lines + scatters).

    Parameters
    ----------
    max_line_steps : int, optional
        Refuse (:class:`EngineTooLarge`) before a reel step costing more
        line steps (states x stop classes x lines) than this (default
        :data:`slotmath.engine.limits.MAX_LINE_STEPS`).

    Returns
    -------
    WinDistribution
        Integer hit counts over the full cycle by total win, with the win
        unit [coins] and the total bet [coins] of ``level``.
    """
    wins, _, counts, unit_den, total_bet, cycle = _forward(game, level, reel_set, (), max_line_steps)
    return final_distribution(wins, counts, unit_den, total_bet, cycle)


@dataclass(frozen=True, eq=False)
class KeyedWins:
    """Exact joint law of (spin win, key) over the full cycle.

    Attributes
    ----------
    wins : ndarray of int64
        Win of each entry [1/unit_den coins].
    keys : list of tuple
        Key of each entry: one item per trigger, the count of its symbol in
        the window (an int) or its counts per reel (a tuple).
    counts : list of int
        Stop combinations of each (win, key) entry (exact).
    unit_den, total_bet, cycle : int
    """

    wins: np.ndarray
    keys: list
    counts: list
    unit_den: int
    total_bet: int
    cycle: int

    def marginal(self) -> WinDistribution:
        """Distribution of the spin win alone (equal to :func:`spin_distribution`)."""
        return WinDistribution.from_pairs(
            zip(self.wins.tolist(), self.counts, strict=True), self.unit_den, self.total_bet
        )

    def by_key(self) -> dict:
        """Per key, the win distribution of the spins showing it (weights:
        stop combinations, summing to the key's count)."""
        groups: dict = {}
        for w, k, c in zip(self.wins.tolist(), self.keys, self.counts, strict=True):
            groups.setdefault(k, []).append((w, c))
        return {
            k: WinDistribution.from_pairs(pairs, self.unit_den, self.total_bet)
            for k, pairs in sorted(groups.items())
        }

    def key_counts(self) -> dict:
        """Stop combinations of each key."""
        out: dict = {}
        for k, c in zip(self.keys, self.counts, strict=True):
            out[k] = out.get(k, 0) + c
        return dict(sorted(out.items()))


def spin_key_distribution(
    game: Game,
    level: int,
    triggers,
    reel_set: str = "base",
    max_line_steps: int | None = None,
) -> KeyedWins:
    """Exact joint law of (total spin win, key) in one forward pass.

    The key counts symbols anywhere in the window: one item per trigger in
    ``triggers`` (objects with ``symbol`` and ``per_reel``, e.g.
    :class:`slotmath.features.round.Trigger`), the total count of
    ``symbol`` (``per_reel`` False) or the tuple of its counts per reel.
    The key is one more mixed-radix digit group of the state's scatter code
    (codes add reel by reel without carry), so the pass is the one of
    :func:`spin_distribution` with the key carried along; when the trigger
    symbol is a paying scatter counted in total, the states do not grow.
    """
    triggers = tuple(triggers)
    if not triggers:
        raise ValueError("give at least one trigger")
    return keyed_wins(game, triggers, *_forward(game, level, reel_set, triggers, max_line_steps))


def keyed_wins(game: Game, triggers, wins, codes, counts, unit_den, total_bet, cycle) -> KeyedWins:
    """The :class:`KeyedWins` of a forward pass's finished (wins, key codes,
    counts) (every pay rule's pass: :func:`key_codes` digits)."""
    radix = key_radix(game, triggers)
    keys = [decode_key(int(c), triggers, radix, game.reels) for c in codes.tolist()]
    return KeyedWins(wins.copy(), keys, [int(c) for c in counts.tolist()], unit_den, total_bet, cycle)


@dataclass(frozen=True, eq=False)
class StopKey:
    """A key item given stop by stop: reel ``r``'s digit of stop ``s`` is
    ``codes[r][s]`` in ``range(radix[r])``; the key item is the tuple of
    digits per reel (e.g. which cells of each reel show a wild)."""

    codes: tuple
    radix: tuple
    per_reel: bool = True


def key_radix(game: Game, triggers) -> list:
    """Radix of each key digit: per trigger one digit (total count, radix
    ``reels x rows + 1``) or one per reel (radix ``rows + 1``; a
    :class:`StopKey`'s own radix)."""
    out = []
    for t in triggers:
        if isinstance(t, StopKey):
            out += list(t.radix)
        else:
            out += [reel_radix(game, t)] * game.reels if t.per_reel else [game.reels * game.rows + 1]
    return out


def key_codes(game: Game, reel_set: str, triggers) -> tuple:
    """Per reel the key code of every stop, and the number of key codes."""
    radix = key_radix(game, triggers)
    place = np.cumprod([1] + radix[:-1]).astype(np.int64)
    out = []
    for r, strip in enumerate(game.strips(reel_set)):
        code = np.zeros(len(strip), dtype=np.int64)
        d = 0
        for t in triggers:
            count = t.codes[r] if isinstance(t, StopKey) else reel_digits(game, strip, t)
            code += count * place[d + r if t.per_reel else d]
            d += game.reels if t.per_reel else 1
        out.append(code)
    return out, int(np.prod(radix))


def decode_key(code: int, triggers, radix: list, reels: int) -> tuple:
    """The key (one item per trigger) of a key code."""
    digits = []
    for r in radix:
        digits.append(code % r)
        code //= r
    out, d = [], 0
    for t in triggers:
        if t.per_reel:
            out.append(tuple(digits[d : d + reels]))
            d += reels
        else:
            out.append(digits[d])
            d += 1
    return tuple(out)


def pass_inputs(game: Game, level: int, reel_set: str) -> tuple:
    """What every forward pass over ``reel_set``'s cycle starts from:
    ``(bet, unit_den, scatter counts, win, weights, n_stops, cycle)`` (the
    win unit [1/unit_den coins], :func:`slotmath.engine.scatters.scatter_counts`,
    :func:`slotmath.engine.reels.pack_reels`); the cycle must keep int64 counts exact."""
    bet = game.bet(level)
    unit_den = win_denominator(game, bet.total_bet)
    sc = scatter_counts(game, reel_set, bet.total_bet, unit_den)
    win, weights, n_stops = pack_reels(game, reel_set)
    cycle = game.cycle(reel_set)
    if cycle >= INT64_SAFE:
        raise OverflowError(f"cycle {cycle} is too large for exact int64 counts")
    return bet, unit_den, sc, win, weights, n_stops, cycle


def check_win_bound(max_total: int, unit_den: int) -> None:
    """Refuse a pass whose largest win [1/unit_den coins] would leave int64."""
    if max_total >= INT64_SAFE:
        raise OverflowError(f"largest win {max_total} [1/{unit_den} coins] is too large for int64")


def _forward(game: Game, level: int, reel_set: str, triggers: tuple, max_line_steps: int | None):
    """The forward pass: finished (wins, key codes, counts) with the win unit,
    total bet and cycle.  Without ``triggers`` the key codes are all 0 and the
    final table is keyed by win alone (the marginal)."""
    auto = pay_automaton(game, level)
    bet, unit_den, sc, win, weights, n_stops, cycle = pass_inputs(game, level, reel_set)
    lines = np.array(game.paylines, dtype=np.int64).reshape(len(game.paylines), game.reels)
    L, R = len(lines), game.reels
    max_total = int(auto.value.max()) * L * unit_den + int(sc.pay_units.max())
    check_win_bound(max_total, unit_den)
    n_sc = len(sc.pay_units)
    codes, pay_units = sc.codes, sc.pay_units
    if triggers:
        kcodes, n_keys = key_codes(game, reel_set, triggers)
        codes = [c + n_sc * k for c, k in zip(codes, kcodes, strict=True)]
        pay_units = np.tile(pay_units, n_keys)
    suffix, suffix_nz = suffix_scatter(codes, weights, len(pay_units))
    width = L + 1
    dtype = np.int16 if max(max(auto.n_states), len(pay_units)) < 2**15 else np.int32
    probe = np.zeros(1, dtype=dtype)
    fkeys, fwins, fcounts, fslots = new_table(1 if triggers else 0, 64, probe)
    fn = 0
    if auto.lo[0, 0] == auto.hi[0, 0]:  # every line decided before the first reel
        start = int(auto.lo[0, 0]) * L * unit_den
        merged: dict = {}
        for code in np.flatnonzero(suffix[0]).tolist():
            at = (int(start + pay_units[code]), code // n_sc)
            merged[at] = merged.get(at, 0) + int(suffix[0][code])
        pairs = np.array(list(merged), dtype=np.int64).reshape(-1, 2)
        fcounts = np.array(list(merged.values()), dtype=np.int64)
        return pairs[:, 0], pairs[:, 1], fcounts, unit_den, bet.total_bet, cycle
    # the start: every line in the automaton's initial state
    keys, wins, counts, _ = new_table(width, 1, probe)
    keys[0] = 0
    wins[0] = 0
    counts[0] = 1
    n = 1
    for k in range(R):
        classes = symbol_classes(auto.trans[k], auto.n_states[k])
        cls_win, cls_w, cls_code = stop_classes(
            win[k, : n_stops[k]], weights[k, : n_stops[k]], codes[k], classes
        )
        check_cost(game, k, n, len(cls_w), max_line_steps or limits.MAX_LINE_STEPS)
        keys, wins, counts, n, fkeys, fwins, fcounts, fslots, fn = _advance(
            keys,
            wins,
            counts,
            n,
            k,
            cls_win,
            cls_w,
            cls_code,
            lines,
            auto.trans,
            auto.lo,
            auto.hi,
            unit_den,
            suffix,
            suffix_nz,
            pay_units,
            fkeys,
            fwins,
            fcounts,
            fslots,
            fn,
            n_sc,
        )
    ensure(n == 0, "joint.py: expected n == 0")
    fcodes = fkeys[:fn, 0].astype(np.int64) if triggers else np.zeros(fn, dtype=np.int64)
    return fwins[:fn], fcodes, fcounts[:fn], unit_den, bet.total_bet, cycle
