"""Line pays: the pay table compiled to arrays and the line pay function.

The whole rule set for one payline lives in :func:`line_pay`: a tuple of
symbols (left to right) is matched against every pay-table entry, wilds
substitute where allowed, multiplier wilds multiply (or add, for the
kinds of :attr:`slotmath.model.WildRule.summed`), and only the highest
win is paid (the first entry in file order wins a tie).  Everything else in
the engine (combination tables, the joint distribution, tuning) reads the
pay tensor this module builds, so rule subtleties are decided once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numba as nb
import numpy as np

from slotmath.engine.cache import ValueCache
from slotmath.engine.limits import check_pay_tuples
from slotmath.model import Game


@dataclass(frozen=True)
class CompiledPays:
    """The line pay table as arrays for one bet level.

    Attributes
    ----------
    natural : ndarray of bool, shape (E, R, S)
        ``natural[e, i, s]``: symbol ``s`` matches position ``i`` of entry ``e``.
    substitute : ndarray of bool, shape (E, R, S)
        ``substitute[e, i, s]``: wild ``s`` stands in at position ``i``.
    length : ndarray of int, shape (E,)
        Symbols the entry needs from the left (0 for ``anywhere`` entries).
    anywhere, exactly : ndarray of int, shape (E,)
        Symbol index and exact count of "k of X anywhere" entries (-1, 0 otherwise).
    pay : ndarray of int64, shape (E,)
        Coin win at this bet level before wild multipliers [coins].
    own_multiplied : ndarray of bool, shape (E,)
        Natural wilds multiply this entry (a wild's own pay with
        ``multiply_own_pays``).
    wild_kind : ndarray of int, shape (S,)
        Index of the symbol's multiplier rule, -1 for non-wilds.
    mult_table : ndarray of int64, shape (K, R + 1)
        ``mult_table[k, c]``: multiplier for ``c`` counted wilds of kind ``k``.
    add_table : ndarray of int64, shape (K, R + 1)
        ``add_table[k, c]``: what ``c`` counted wilds of a summed kind ``k`` add
        to the line's summed multiplier (0 for the other kinds); a line is
        multiplied by ``prod_k mult_table[k, c_k] x (sum_k add_table[k, c_k] or 1)``.
    """

    natural: np.ndarray
    substitute: np.ndarray
    length: np.ndarray
    anywhere: np.ndarray
    exactly: np.ndarray
    pay: np.ndarray
    own_multiplied: np.ndarray
    wild_kind: np.ndarray
    mult_table: np.ndarray
    add_table: np.ndarray
    names: tuple

    @property
    def arrays(self) -> tuple:
        """Positional arguments for the numba kernels."""
        return (
            self.natural,
            self.substitute,
            self.length,
            self.anywhere,
            self.exactly,
            self.pay,
            self.own_multiplied,
            self.wild_kind,
            self.mult_table,
            self.add_table,
        )


def compile_pays(game: Game, level: int) -> CompiledPays:
    """Compile ``game``'s line pay table at bet ``level``."""
    S, R, E = len(game.symbols), game.reels, len(game.line_pays)
    li = game.level_index(level)
    idx = game.symbol_index
    natural = np.zeros((max(E, 1), R, S), dtype=np.bool_)
    substitute = np.zeros((max(E, 1), R, S), dtype=np.bool_)
    length = np.zeros(max(E, 1), dtype=np.int64)
    anywhere = np.full(max(E, 1), -1, dtype=np.int64)
    exactly = np.zeros(max(E, 1), dtype=np.int64)
    pay = np.zeros(max(E, 1), dtype=np.int64)
    own = np.zeros(max(E, 1), dtype=np.bool_)
    wilds = [s for s in game.symbols if s.wild]
    wild_kind = np.full(S, -1, dtype=np.int64)
    mult_table = np.ones((max(len(wilds), 1), R + 1), dtype=np.int64)
    add_table = np.zeros_like(mult_table)
    for k, w in enumerate(wilds):
        wild_kind[idx[w.name]] = k
        mult_table[k], add_table[k] = np.array([w.wild.factors(c) for c in range(R + 1)]).T
    for e, lp in enumerate(game.line_pays):
        pay[e] = lp.pays[li]
        if lp.anywhere is not None:
            anywhere[e], exactly[e] = idx[lp.anywhere], lp.exactly
            continue
        length[e] = len(lp.positions)
        for i, allowed in enumerate(lp.positions):
            for name in allowed:
                natural[e, i, idx[name]] = True
            for w in wilds:
                if not natural[e, i, idx[w.name]] and allowed & w.wild.substitutes:
                    substitute[e, i, idx[w.name]] = True
        if lp.wild_own:
            own[e] = game.symbol(next(iter(lp.positions[0]))).wild.multiply_own_pays
    if E == 0:
        length[0] = R + 1  # an entry no line can match
    return CompiledPays(
        natural,
        substitute,
        length,
        anywhere,
        exactly,
        pay,
        own,
        wild_kind,
        mult_table,
        add_table,
        tuple(lp.name for lp in game.line_pays),
    )


@nb.njit(cache=True, inline="always")
def line_outcome(window, line, cells, S, first, codes, offsets):
    """Outcome code of payline ``line`` on ``window`` (cell ``reel x rows +
    row`` -> symbol): 0 no win, else 1 + the label index.  The first
    ``first`` symbols are read at once (a line is rarely decided sooner),
    then one reel at a time until the prefix decides the line
    (``codes``/``offsets``: :func:`prefix_determined`'s tables)."""
    p = 0
    for r in range(first):
        p = p * S + window[cells[line, r]]
    v = codes[offsets[first - 1] + p]
    r = first
    while v < 0:
        p = p * S + window[cells[line, r]]
        v = codes[offsets[r] + p]
        r += 1
    return v


@nb.njit(cache=True)
def line_pay(x, rule):
    """Highest win of one line.

    Parameters
    ----------
    x : ndarray of int, shape (R,)
        Symbol indices along the line, leftmost reel first.
    rule : tuple of ndarray
        ``CompiledPays.arrays``.

    Returns
    -------
    win : int
        Coin win after wild multipliers [coins].
    entry : int
        Winning pay-table entry, -1 for no win.
    multiplier : int
        Wild multiplier applied to the entry.
    """
    return line_pay_scratch(x, np.zeros(rule[8].shape[0], dtype=np.int64), rule)


@nb.njit(cache=True)
def wild_factor(counts, mult_table, add_table) -> int:
    """Multiplier of a line whose counted wilds number ``counts[k]`` of kind
    ``k``: the product of the multiplying kinds' factors times the sum of the
    summed kinds' multipliers (1 when none is counted)."""
    m, added = 1, 0
    for k in range(mult_table.shape[0]):
        m *= mult_table[k, counts[k]]
        added += add_table[k, counts[k]]
    return m * added if added > 0 else m


@nb.njit(cache=True)
def count_of(x, n, symbol) -> int:
    """How many of ``x[:n]`` are ``symbol`` (an exactly-k-anywhere entry's count)."""
    c = 0
    for i in range(n):
        if x[i] == symbol:
            c += 1
    return c


@nb.njit(cache=True)
def line_pay_scratch(x, counts, rule):
    """:func:`line_pay` with a caller-provided scratch array ``counts``."""
    natural, substitute, length, anywhere, exactly = rule[:5]
    pay, own_multiplied, wild_kind, mult_table, add_table = rule[5:]
    R = x.shape[0]
    best, best_e, best_m = 0, -1, 1
    for e in range(pay.shape[0]):
        if pay[e] <= 0:
            continue
        if anywhere[e] >= 0:
            if count_of(x, R, anywhere[e]) != exactly[e]:
                continue
            m = 1
        else:
            n = length[e]
            if n > R:
                continue
            counts[:] = 0
            ok = True
            for i in range(n):
                s = x[i]
                if natural[e, i, s]:
                    if own_multiplied[e] and wild_kind[s] >= 0:
                        counts[wild_kind[s]] += 1
                elif substitute[e, i, s]:
                    counts[wild_kind[s]] += 1
                else:
                    ok = False
                    break
            if not ok:
                continue
            m = wild_factor(counts, mult_table, add_table)
        if pay[e] * m > best:
            best, best_e, best_m = pay[e] * m, e, m
    return best, best_e, best_m


@nb.njit(cache=True, inline="always")
def tuple_digits(j, S, x):
    """Write the symbols of reels 2..R of symbol tuple number ``j`` (base
    ``S``, the last reel the fastest) into ``x[1:]``; ``x[0]`` is untouched."""
    rem = j
    for i in range(x.shape[0] - 1, 0, -1):
        x[i] = rem % S
        rem //= S


@nb.njit(parallel=True, cache=True)
def pay_tensor_by_tuple(S, R, rule):
    """Win, entry and multiplier of every symbol tuple (C order), tuple by tuple."""
    block = S ** (R - 1)
    wins = np.zeros(S * block, dtype=np.int64)
    entries = np.full(S * block, -1, dtype=np.int64)
    mults = np.ones(S * block, dtype=np.int64)
    for first in nb.prange(S):
        x = np.zeros(R, dtype=np.int64)
        counts = np.zeros(rule[8].shape[0], dtype=np.int64)
        x[0] = first
        for j in range(block):
            tuple_digits(j, S, x)
            t = first * block + j
            wins[t], entries[t], mults[t] = line_pay_scratch(x, counts, rule)
    return wins, entries, mults


@nb.njit(cache=True)
def pay_tensor_pruned(S, R, rule):
    """:func:`pay_tensor_by_tuple` by a depth-first walk over symbol prefixes that
    fills a whole block as soon as the prefix decides the line: every
    entry still matching has all its positions filled (its multiplier is
    then fixed too) and no "exactly k anywhere" entry is open.  The highest
    win is taken as in :func:`line_pay_scratch` (first entry wins a tie)."""
    natural, substitute, length, anywhere, exactly = rule[:5]
    pay, own_multiplied, wild_kind, mult_table, add_table = rule[5:]
    E = pay.shape[0]
    K = mult_table.shape[0]
    n = S**R
    wins = np.zeros(n, dtype=np.int64)
    entries = np.full(n, -1, dtype=np.int64)
    mults = np.ones(n, dtype=np.int64)
    alive = np.zeros((R + 1, E), dtype=np.bool_)
    counts = np.zeros((R + 1, E, K), dtype=np.int64)
    for e in range(E):
        alive[0, e] = pay[e] > 0 and (anywhere[e] >= 0 or length[e] <= R)
    sym = np.full(R, -1, dtype=np.int64)
    base = np.zeros(R + 1, dtype=np.int64)  # tuple index of the prefix
    d = 0
    while d >= 0:
        sym[d] += 1
        if sym[d] >= S:
            sym[d] = -1
            d -= 1
            continue
        s = sym[d]
        base[d + 1] = base[d] * S + s
        open_ = False
        for e in range(E):
            ok = alive[d, e]
            if ok:
                for k in range(K):
                    counts[d + 1, e, k] = counts[d, e, k]
                if anywhere[e] >= 0:
                    pass  # open to the last reel; counted when decided
                elif d < length[e]:
                    if natural[e, d, s]:
                        if own_multiplied[e] and wild_kind[s] >= 0:
                            counts[d + 1, e, wild_kind[s]] += 1
                    elif substitute[e, d, s]:
                        counts[d + 1, e, wild_kind[s]] += 1
                    else:
                        ok = False
            alive[d + 1, e] = ok
            if ok and (anywhere[e] >= 0 or length[e] > d + 1):
                open_ = True
        if open_ and d + 1 < R:
            d += 1
            continue
        # decided (or a full tuple): the block of every completion
        best, best_e, best_m = 0, -1, 1
        for e in range(E):
            if not alive[d + 1, e]:
                continue
            if anywhere[e] >= 0:
                if count_of(sym, d + 1, anywhere[e]) != exactly[e]:
                    continue
                m = 1
            else:
                m = wild_factor(counts[d + 1, e], mult_table, add_table)
            if pay[e] * m > best:
                best, best_e, best_m = pay[e] * m, e, m
        span = S ** (R - 1 - d)
        start = base[d + 1] * span
        for t in range(start, start + span):
            wins[t] = best
            entries[t] = best_e
            mults[t] = best_m
    return wins, entries, mults


@dataclass(frozen=True)
class PayTensor:
    """Line win of every symbol tuple, flattened in C order over (reel 1 .. reel R).

    ``wins[t]`` [coins], ``entries[t]`` (winning entry, -1 none) and
    ``mults[t]`` (its wild multiplier) for tuple index
    ``t = sum_i x_i * S**(R-1-i)``.
    """

    wins: np.ndarray
    entries: np.ndarray
    mults: np.ndarray
    n_symbols: int
    n_reels: int
    compiled: CompiledPays

    def reshaped(self) -> np.ndarray:
        """Wins as an R-dimensional (S, ..., S) array."""
        return self.wins.reshape((self.n_symbols,) * self.n_reels)


def pay_table_key(game: Game, level: int) -> tuple:
    """Everything the line pay table at bet ``level`` depends on: the reel
    count, the symbols (with their wild rules), the line pays and the level's
    position among the bet levels -- not the strips or the game's name."""
    return (game.reels, game.symbols, game.line_pays, game.level_index(level))


_TENSORS = ValueCache(maxsize=64)


def pay_tensor(game: Game, level: int) -> PayTensor:
    """Line win of every symbol tuple at bet ``level``.

    Cached on :func:`pay_table_key` (least recently used of 64 pay tables
    dropped), so games that differ only in their strips -- every tuning
    candidate, every workbench change -- share one tensor.  Built by the
    prefix-pruned walk :func:`pay_tensor_pruned` (equal to the tuple-by-tuple
    :func:`pay_tensor_by_tuple`, which tests keep as the reference).
    """
    if not game.reads_paylines:  # every line-only path (tuning, line moments) stops here
        from slotmath.io.gamefile import GameFileError

        raise GameFileError(
            game.source,
            "pays_by",
            f"{game.pays_by!r} pays are not on paylines, so the line engine (line "
            "figures, line tuning) does not apply; use slotmath par / simulate",
        )
    key = pay_table_key(game, level)
    tensor = _TENSORS.get(key)
    if tensor is not None:
        return tensor
    check_pay_tuples(game)  # bounded memory: one line naming the field, before allocating
    cp = compile_pays(game, level)
    S, R = len(game.symbols), game.reels
    wins, entries, mults = pay_tensor_pruned(S, R, cp.arrays)
    return _TENSORS.put(key, PayTensor(wins, entries, mults, S, R, cp))


pay_tensor.cache_clear = _TENSORS.clear


def prefix_determined(tensor: PayTensor) -> list:
    """For k = 1..R, the line win of each k-symbol prefix when the rest of
    the line cannot change it, else -1.

    ``out[k-1]`` has ``S**k`` entries; ``out[R-1]`` is the full tensor.
    """
    S, R = tensor.n_symbols, tensor.n_reels
    full = tensor.wins.reshape(S**R)
    out = []
    for k in range(1, R + 1):
        block = full.reshape(S**k, S ** (R - k))
        lo, hi = block.min(axis=1), block.max(axis=1)
        out.append(np.where(lo == hi, lo, -1).astype(np.int64))
    return out


def line_outcomes(game: Game, level: int) -> tuple:
    """The compiled line evaluation of :func:`line_outcome`: ``(cells, codes,
    offsets, entries, mults, label_coins)``.  ``cells[line, r]`` is the
    window cell (``reel x rows + row``) of each payline's symbol on reel r;
    every (pay entry, wild multiplier) pair a line can win is one label,
    coded ``1 + index`` in the prefix tables ``codes``/``offsets``
    (:func:`prefix_determined`, 0: no win); ``entries``, ``mults`` and
    ``label_coins`` [coins] are each label's entry, multiplier and win."""
    R, L = game.reels, len(game.paylines)
    rows = np.array(game.paylines, dtype=np.int64).reshape(L, R)
    cells = np.arange(R)[None, :] * game.rows + rows
    tensor = pay_tensor(game, level)
    win_mask = tensor.entries >= 0
    keys = tensor.entries * (1 << 20) + tensor.mults
    labels = np.unique(keys[win_mask])
    outcome = np.where(win_mask, np.searchsorted(labels, keys) + 1, 0).astype(np.int64)
    tables = prefix_determined(replace(tensor, wins=outcome))
    offsets = np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64)
    codes = np.concatenate(tables).astype(np.int32)
    entries, mults = labels >> 20, labels & ((1 << 20) - 1)
    label_coins = (tensor.compiled.pay[entries] * mults).astype(np.int64)
    return cells, codes, offsets, entries, mults, label_coins


# ------------------------------------------------------------ one drop of a tumble
@nb.njit(cache=True, inline="always")
def line_drop(window, pays, removed, events, count):
    """The line rule's part of one tumble drop (:mod:`slotmath.engine.tumble`):
    the coin win of every paying line of ``window`` [coins]; sets
    ``removed[c] = 1`` on the cells of every paying line combination (the
    line's cells on its first ``n`` reels, ``n`` the length of the winning
    entry).  With ``count`` each paying line adds one to ``events`` at its
    label.  ``pays``: :func:`line_drop_args` (no lines: pays nothing)."""
    cells, codes, offsets, label_coins, label_len, shape = pays
    S, first = shape[0], shape[1]
    coins = 0
    for line in range(cells.shape[0]):
        v = line_outcome(window, line, cells, S, first, codes, offsets)
        if v > 0:
            coins += label_coins[v - 1]
            if count:
                events[v - 1] += 1
            for j in range(label_len[v - 1]):
                removed[cells[line, j]] = 1
    return coins


def line_drop_args(game: Game, level: int, first: int = 3) -> tuple:
    """Arguments of :func:`line_drop`: ``(cells, codes, offsets, label_coins,
    label_len, (symbols, first))`` of :func:`line_outcomes`, ``label_len`` the
    cells each label's entry removes (``first``: reels read at once)."""
    cells, codes, offsets, entries, _, label_coins = line_outcomes(game, level)
    label_len = np.array([len(game.line_pays[e].positions) for e in entries.tolist()], dtype=np.int64)
    shape = np.array([len(game.symbols), max(1, min(first, game.reels))], dtype=np.int64)
    return cells, codes, offsets, label_coins, label_len, shape
