"""Exact distribution of the total win of a spin (all lines and scatters).

Method: a forward pass over the reels on merged states.  After reels
1..k a *state* is

* the *line set*: the lines whose win can still change, each given by its
  state in the line pay automaton (:func:`slotmath.engine.moments.pay_automaton`:
  two symbol prefixes are one state when every completion pays them the
  same) and the rows it reads on the remaining reels; a line whose win can
  no longer change is *decided*: its win moves into the decided win and the
  line leaves the set;
* the scatter code of reels 1..k (:func:`slotmath.engine.scatters.scatter_counts`);
* the decided win so far [1/unit_den coins],

with an integer weight: the number of stop combinations of reels 1..k
that reach it.  Reel k+1 is applied by grouping its stops into *stop
classes* (equal window up to symbols the automaton cannot tell apart at
that reel, equal scatter code; weights summed), moving every state by the
classes as seen on the rows its live lines read and merging equal results
in a hash table (:mod:`slotmath.engine.linesets`).  A state whose lines
are all decided is finished at once: only the scatter win of the remaining
reels can change, whose distribution is pre-convolved, and it is added to
the sparse win table (distinct win -> count).

Complexity: per reel, the live lines of the distinct line sets times their
stop classes plus the states times their sets' moves
(:mod:`slotmath.engine.linesets`); neither depends on the cycle ``prod N_r``
itself.  Counts are int64, exact while the cycle is below 2**62 (checked:
every state's weight and every win's count is at most the cycle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slotmath.engine import limits
from slotmath.engine.distribution import WinDistribution
from slotmath.engine.hashtable import add_entry as add_entry
from slotmath.engine.hashtable import new_table as new_table
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.linesets import line_set_pass
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
    "spin_key_table",
    "stop_classes",
    "suffix_scatter",
]

INT64_SAFE = 2**62


# ===========================================================================
# the forward pass (its reel steps: slotmath.engine.linesets)
# ===========================================================================
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


#: rows up to which every subset of a reel's rows gets its projected classes
#: (above it: single rows and the whole window only)
ALL_SUBSETS_ROWS = 6


def projections(cls_sym: np.ndarray, cls_w: np.ndarray, cls_code: np.ndarray, sym_class: np.ndarray) -> tuple:
    """A reel's stop classes as seen on subsets of its rows.

    For a row mask ``mu``, the classes ``J`` grouped by (symbol class on the
    rows of ``mu``, code), weights summed: ``(sym, w, code, start, length)``
    with mask ``mu``'s classes at ``start[mu]:start[mu] + length[mu]``
    (``length[mu] = -1``: not tabulated; the whole window ``2**H - 1`` always is).
    """
    H = cls_sym.shape[1]
    full = (1 << H) - 1
    if H <= ALL_SUBSETS_ROWS:
        masks = range(1, full + 1)
    else:
        masks = sorted({1 << h for h in range(H)} | {full})
    start = np.zeros(full + 1, dtype=np.int64)
    length = np.full(full + 1, -1, dtype=np.int64)
    parts, at = [], 0
    for mu in masks:
        rows = [h for h in range(H) if mu >> h & 1]
        key = np.column_stack([sym_class[cls_sym[:, rows]], cls_code])
        _, first, w = group_stops(key, cls_w)
        parts.append((cls_sym[first], w, cls_code[first]))
        start[mu], length[mu] = at, len(w)
        at += len(w)
    sym, w, code = (np.concatenate([p[i] for p in parts]) for i in range(3))
    return sym, w, code, start, length


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
        line steps (live lines x stop classes plus state moves,
        :mod:`slotmath.engine.linesets`) than this (default
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
    """Joint law of (spin win, key) over the full cycle: exact integer
    counts, or float64 probabilities over a ``cycle`` of 1 where a spin's law
    is float (:meth:`slotmath.features.drawnlaw.DrawnLaw.keyed`, read by
    :func:`slotmath.features.round.round_distribution` only).

    Attributes
    ----------
    wins : ndarray of int64
        Win of each entry [1/unit_den coins].
    keys : list of tuple
        Key of each entry: one item per trigger, the count of its symbol in
        the window (an int) or its counts per reel (a tuple).
    counts : list of int (or float)
        Stop combinations of each (win, key) entry (exact), or its
        probability (float64, ``cycle`` 1).
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


def spin_key_table(
    game: Game, level: int, triggers, reel_set: str = "base", max_line_steps: int | None = None
) -> tuple:
    """The law of :func:`spin_key_distribution` as arrays, keys not decoded.

    Returns
    -------
    wins : ndarray of int64
        Win of each entry [1/unit_den coins].
    digits : ndarray of int64, shape (entries, digits)
        The entry's key digits, one column per digit of :func:`key_radix`
        (a :class:`StopKey` or per-reel trigger: one per reel, reel 1 first).
    counts : ndarray of int64
        Stop combinations of each entry (exact: at most the cycle < 2**62).
    unit_den : int
        Win units per coin.
    """
    triggers = tuple(triggers)
    wins, codes, counts, unit_den, _, _ = _forward(game, level, reel_set, triggers, max_line_steps)
    return wins, key_digits(codes, key_radix(game, triggers)), counts, unit_den


def key_digits(codes: np.ndarray, radix: list) -> np.ndarray:
    """The mixed-radix digits ``(len(codes), len(radix))`` of key codes (least significant first)."""
    out = np.empty((len(codes), len(radix)), dtype=np.int64)
    rest = np.asarray(codes, dtype=np.int64)
    for i, r in enumerate(radix):
        rest, out[:, i] = np.divmod(rest, r)
    return out


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
    L = len(lines)
    max_total = int(auto.value.max()) * L * unit_den + int(sc.pay_units.max())
    check_win_bound(max_total, unit_den)
    n_sc = len(sc.pay_units)
    codes, pay_units = sc.codes, sc.pay_units
    if triggers:
        kcodes, n_keys = key_codes(game, reel_set, triggers)
        codes = [c + n_sc * k for c, k in zip(codes, kcodes, strict=True)]
        pay_units = np.tile(pay_units, n_keys)
    suffix, suffix_nz = suffix_scatter(codes, weights, len(pay_units))
    if auto.lo[0, 0] == auto.hi[0, 0]:  # every line decided before the first reel
        start = int(auto.lo[0, 0]) * L * unit_den
        merged: dict = {}
        for code in np.flatnonzero(suffix[0]).tolist():
            at = (int(start + pay_units[code]), code // n_sc)
            merged[at] = merged.get(at, 0) + int(suffix[0][code])
        pairs = np.array(list(merged), dtype=np.int64).reshape(-1, 2)
        fcounts = np.array(list(merged.values()), dtype=np.int64)
        return pairs[:, 0], pairs[:, 1], fcounts, unit_den, bet.total_bet, cycle

    def reel_classes(k: int) -> tuple:
        classes = symbol_classes(auto.trans[k], auto.n_states[k])
        found = stop_classes(win[k, : n_stops[k]], weights[k, : n_stops[k]], codes[k], classes)
        return projections(*found, classes)

    n, fwins, fcodes, fcounts = line_set_pass(
        game,
        auto,
        lines,
        reel_classes,
        (suffix, suffix_nz, pay_units),
        unit_den,
        n_sc,
        bool(triggers),
        max_line_steps or limits.MAX_LINE_STEPS,
    )
    ensure(n == 0, "joint.py: expected n == 0")
    return fwins, fcodes, fcounts, unit_den, bet.total_bet, cycle
