"""The forward pass of the line distribution on live line sets.

:mod:`slotmath.engine.joint` walks the reels on merged states.  Here a state
after reels 1..k is (*line set*, scatter/key code, decided win) with an
integer weight, where the line set is the multiset of the lines still live
(their win can still change), each given only by what its future depends on:

* its *row suffix*: the rows it reads on reels k+1..R (two paylines that
  agree on the rest of the grid are one; dead lines are dropped), and
* its state in the pay automaton (:func:`slotmath.engine.moments.pay_automaton`).

So two windows whose live lines match up suffix for suffix are one state even
when they differ on lines that have already settled, and a set of 40 lines of
which three are still live is three numbers, not forty.

A reel is applied set by set: every stop class of the reel (its window up to
symbols the automaton cannot tell apart, :func:`slotmath.engine.joint.stop_classes`),
as seen on the rows the set's live lines read
(:func:`slotmath.engine.joint.projections`), moves the live lines to their
next automaton states; classes that give every line the same next state and
the same scatter code are one *move* (weights summed), and only then is the
next set built (lines that cannot change any more settle: their win is
added).  A set of one or two live lines meets a few moves where the reel has
hundreds of classes.  Every state of the set is then moved by the set's
moves, and equal results merge in a hash table.  A state whose set is empty
is finished with the pre-convolved scatter suffix, as in
:mod:`slotmath.engine.joint`.

Cost of reel k+1: ``sum_s m_s x J(s)`` line steps (``m_s`` live lines of
distinct set ``s``, ``J(s)`` classes on its rows) plus one hash insertion per
state and move, at most ``sum_s E_s x J(s)`` (``E_s`` states of set ``s``);
:func:`check_cost` refuses above the bound before the step.  Counts are int64
(exact while the cycle is below 2**62, checked by the caller).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slotmath.engine import limits
from slotmath.engine.hashtable import add_entry, new_table
from slotmath.model import Game

__all__ = ["line_set_pass", "line_suffixes"]


# ===========================================================================
# interned line sets: sorted entries (row suffix x n_q + automaton state)
# ===========================================================================
@nb.njit(cache=True, inline="always")
def _set_hash(buf, m):
    h = np.uint64(14695981039346656037)
    p = np.uint64(1099511628211)
    for i in range(m):
        h = (h ^ np.uint64(buf[i] + 1)) * p
    h = (h ^ np.uint64(m)) * p
    return h ^ (h >> np.uint64(29))


@nb.njit(cache=True)
def _new_store(entries, sets):
    """An empty set store for about ``sets`` sets of ``entries`` entries in all:
    ``(data, start, size, slots, counters)`` with ``counters = [sets, entries used]``."""
    c = 16
    while c < sets:
        c *= 2
    data = np.empty(max(entries, 16), dtype=np.int64)
    start = np.empty(c, dtype=np.int64)
    size = np.empty(c, dtype=np.int64)
    slots = np.full(2 * c, -1, dtype=np.int64)
    return data, start, size, slots, np.zeros(2, dtype=np.int64)


@nb.njit(cache=True)
def _grow_sets(data, start, size, n):
    """Double the set index (start, size) and re-slot its ``n`` sets."""
    cap = 2 * start.shape[0]
    s2 = np.empty(cap, dtype=np.int64)
    z2 = np.empty(cap, dtype=np.int64)
    s2[:n] = start[:n]
    z2[:n] = size[:n]
    slots = np.full(2 * cap, -1, dtype=np.int64)
    mask = np.uint64(slots.shape[0] - 1)
    for i in range(n):
        h = _set_hash(data[s2[i] :], z2[i]) & mask
        while slots[h] >= 0:
            h = (h + np.uint64(1)) & mask
        slots[h] = i
    return s2, z2, slots


@nb.njit(cache=True)
def _intern(data, start, size, slots, counters, buf, m):
    """Index of the set ``buf[:m]`` in the store, added when new; returns the
    (possibly grown) store and the index."""
    mask = np.uint64(slots.shape[0] - 1)
    h = _set_hash(buf, m) & mask
    while True:
        i = slots[h]
        if i < 0:
            break
        if size[i] == m:
            s0 = start[i]
            same = True
            for t in range(m):
                if data[s0 + t] != buf[t]:
                    same = False
                    break
            if same:
                return data, start, size, slots, i
        h = (h + np.uint64(1)) & mask
    n, used = counters[0], counters[1]
    if used + m > data.shape[0]:
        d2 = np.empty(2 * data.shape[0] + m, dtype=data.dtype)
        d2[:used] = data[:used]
        data = d2
    data[used : used + m] = buf[:m]
    if n + 1 > start.shape[0]:
        start, size, slots = _grow_sets(data, start, size, n)
        mask = np.uint64(slots.shape[0] - 1)
        h = _set_hash(buf, m) & mask
        while slots[h] >= 0:
            h = (h + np.uint64(1)) & mask
    slots[h] = n
    start[n] = used
    size[n] = m
    counters[0] = n + 1
    counters[1] = used + m
    return data, start, size, slots, n


# ===========================================================================
# the moves of one set by one reel
# ===========================================================================
@nb.njit(cache=True, inline="always")
def _row_mask(k, data, s0, m, row_of, nq, p_len):
    """Rows of reel ``k`` read by the ``m`` live lines at ``data[s0:]``, as a
    bit mask; the full mask when that row subset has no projection."""
    mask = 0
    for t in range(m):
        mask |= 1 << row_of[k, data[s0 + t] // nq]
    return mask if p_len[mask] >= 0 else p_len.shape[0] - 1


@nb.njit(cache=True)
def _moves(k, s, sets, nxt, proj, row_of, next_sid, trans, lo, hi, unit, nq, scratch):
    """Merged moves of set ``s`` (store ``sets``) by every stop class of reel
    ``k`` as seen on the rows its live lines read (``proj``: :func:`slotmath.engine.joint.projections`):
    next set (-1: no live line; interned in ``nxt``), code added, win added
    [1/unit coins] and summed class weight in ``scratch``; returns the next
    store and the number of moves."""
    data, start, size = sets[0], sets[1], sets[2]
    cls_sym, cls_w, cls_code, p_start, p_len = proj
    nd, ns, nz, nsl, nc = nxt
    buf, tr_id, tr_code, tr_win, tr_w, tr_slot, tslots, qv = scratch
    tmask = np.uint64(tslots.shape[0] - 1)
    m, s0 = size[s], start[s]
    T = 0
    mask = _row_mask(k, data, s0, m, row_of, nq, p_len)
    for j in range(p_start[mask], p_start[mask] + p_len[mask]):
        # the lines' next automaton states decide the move: classes equal on
        # them are one move (the set and the win are built once per move)
        code = cls_code[j]
        h = (np.uint64(14695981039346656037) ^ np.uint64(code)) * np.uint64(1099511628211)
        for t in range(m):
            e = data[s0 + t]
            sid = e // nq
            q2 = trans[k, e - sid * nq, cls_sym[j, row_of[k, sid]]]
            qv[T, t] = q2
            h = (h ^ np.uint64(q2 + 1)) * np.uint64(1099511628211)
        h = (h ^ (h >> np.uint64(29))) & tmask
        found = False
        while True:
            i = tslots[h]
            if i < 0:
                break
            if tr_code[i] == code:
                same = True
                for t in range(m):
                    if qv[i, t] != qv[T, t]:
                        same = False
                        break
                if same:
                    tr_w[i] += cls_w[j]
                    found = True
                    break
            h = (h + np.uint64(1)) & tmask
        if found:
            continue
        added = 0
        mm = 0
        for t in range(m):
            q2 = qv[T, t]
            if lo[k + 1, q2] == hi[k + 1, q2]:
                added += lo[k + 1, q2] * unit
            else:
                v = next_sid[k, data[s0 + t] // nq] * nq + q2
                pos = mm
                while pos > 0 and buf[pos - 1] > v:
                    buf[pos] = buf[pos - 1]
                    pos -= 1
                buf[pos] = v
                mm += 1
        nid = -1
        if mm > 0:
            nd, ns, nz, nsl, nid = _intern(nd, ns, nz, nsl, nc, buf, mm)
        tslots[h] = T
        tr_id[T], tr_code[T], tr_win[T], tr_w[T], tr_slot[T] = nid, code, added, cls_w[j], h
        T += 1
    for i in range(T):
        tslots[tr_slot[i]] = -1
    return (nd, ns, nz, nsl, nc), T


def _scratch(n_classes: int, width: int) -> tuple:
    """Scratch arrays of :func:`_moves` for up to ``n_classes`` moves of sets of
    up to ``width`` lines."""
    c = 16
    while c < 2 * n_classes:
        c *= 2
    J = max(n_classes, 1)
    return (
        np.empty(max(width, 1), dtype=np.int64),
        np.empty(J, dtype=np.int64),
        np.empty(J, dtype=np.int64),
        np.empty(J, dtype=np.int64),
        np.empty(J, dtype=np.int64),
        np.empty(J, dtype=np.int64),
        np.full(c, -1, dtype=np.int64),
        np.empty((J, max(width, 1)), dtype=np.int64),
    )


@nb.njit(cache=True)
def _set_costs(k, sets, st_set, n, row_of, nq, p_len):
    """The step's line steps (live lines x their sets' projected classes) and
    the bound on its moves (states x their sets' projected classes)."""
    data, start, size, counters = sets[0], sets[1], sets[2], sets[4]
    per_set = np.bincount(st_set[:n], minlength=counters[0])
    steps, moves = 0, 0
    for s in range(counters[0]):
        J = p_len[_row_mask(k, data, start[s], size[s], row_of, nq, p_len)]
        steps += size[s] * J
        moves += per_set[s] * J
    return steps, moves


@nb.njit(cache=True)
def _step(
    k,
    sets,
    nxt,
    keys,
    wins,
    counts,
    n,
    proj,
    row_of,
    next_sid,
    trans,
    lo,
    hi,
    unit,
    nq,
    scratch,
    suffix,
    suffix_nz,
    pay_units,
    final,
    n_sc,
):
    """Move the ``n`` states (``keys[i] = (set, code)``, ``wins``, ``counts``)
    by reel ``k``, set by set; finished states go to the final table
    ``final`` (keyed by key code when it has a key column).  Returns the next
    store, the new states and the final table."""
    fkeys, fwins, fcounts, fslots, fn = final
    keyed = fkeys.shape[1] > 0
    frow = np.zeros(fkeys.shape[1], dtype=fkeys.dtype)
    row = np.empty(2, dtype=np.int64)
    order = np.argsort(keys[:n, 0], kind="mergesort")
    nk, nw, nc, nsl = new_table(2, max(16, n), keys[0])
    m = 0
    tr_id, tr_code, tr_win, tr_w = scratch[1], scratch[2], scratch[3], scratch[4]
    a = 0
    while a < n:
        s = keys[order[a], 0]
        b = a
        while b < n and keys[order[b], 0] == s:
            b += 1
        nxt, T = _moves(k, s, sets, nxt, proj, row_of, next_sid, trans, lo, hi, unit, nq, scratch)
        for x in range(a, b):
            i = order[x]
            for t in range(T):
                w = counts[i] * tr_w[t]
                win = wins[i] + tr_win[t]
                code = keys[i, 1] + tr_code[t]
                if tr_id[t] >= 0:
                    row[0] = tr_id[t]
                    row[1] = code
                    nk, nw, nc, nsl, m = add_entry(nk, nw, nc, nsl, m, row, win, w)
                    continue
                for u in range(suffix_nz.shape[1]):
                    c2 = suffix_nz[k + 1, u]
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
        a = b
    return nxt, nk, nw, nc, m, (fkeys, fwins, fcounts, fslots, fn)


# ===========================================================================
# the pass
# ===========================================================================
def line_suffixes(lines: np.ndarray) -> tuple:
    """Row suffixes of the paylines ``(L, R)``: ``sid[k, l]`` numbers the
    distinct ``lines[:, k:]``; ``row_of[k, i]`` is the row suffix ``i`` reads on
    reel ``k`` and ``next_sid[k, i]`` its suffix from reel ``k + 1`` (0 on the
    last reel)."""
    L, R = lines.shape
    sid = np.zeros((R, L), dtype=np.int64)
    row_of = np.zeros((R, max(L, 1)), dtype=np.int64)
    next_sid = np.zeros((R, max(L, 1)), dtype=np.int64)
    for k in range(R if L else 0):
        _, first, sid[k] = np.unique(lines[:, k:], axis=0, return_index=True, return_inverse=True)
        row_of[k, : len(first)] = lines[first, k]
    for k in range(R - 1 if L else 0):
        next_sid[k, sid[k]] = sid[k + 1]
    return sid, row_of, next_sid


def check_cost(game: Game, reel: int, sets: tuple, states: int, steps: int, moves: int, limit: int) -> None:
    """Refuse (:class:`slotmath.engine.limits.EngineTooLarge`) a step of
    ``reel`` (0-based) above ``limit``: ``steps`` (live lines x projected
    classes) plus the bound on the states' moves."""
    limits.check_line_set_cost(game, reel, int(sets[4][0]), int(sets[4][1]), states, steps, moves, limit)


def line_set_pass(
    game: Game, auto, lines, reel_classes, codes_suffix, unit_den: int, n_sc: int, keyed: bool, limit
):
    """The forward pass on line sets: the states left after the last reel
    (0), and the finished table's wins [1/unit_den coins], key codes and counts.

    Parameters
    ----------
    auto : PayAutomaton
        The line pay automaton; its start state must not be decided.
    lines : ndarray of int, shape (L, R)
        Payline rows.
    reel_classes : callable
        ``reel_classes(k)``: the stop classes of reel ``k`` on subsets of its
        rows (:func:`slotmath.engine.joint.projections`).
    codes_suffix : tuple
        ``(suffix, suffix_nz, pay_units)`` of :func:`slotmath.engine.scatters.suffix_scatter`.
    unit_den, n_sc : int
        Win unit [1/unit_den coins] and the number of scatter codes.
    keyed : bool
        Key the finished table by key code (``code // n_sc``).
    limit : int
        Work bound per reel [line steps].
    """
    suffix, suffix_nz, pay_units = codes_suffix
    L, R = lines.shape
    nq = int(auto.trans.shape[1])
    sid, row_of, next_sid = line_suffixes(lines)
    sets = _new_store(L, 1)
    buf = np.sort(sid[0] * nq).astype(np.int64)  # every line in the start state 0
    *store, _ = _intern(*sets, buf, L)
    sets = (*store, sets[4])
    keys, wins, counts, _ = new_table(2, 1, np.zeros(1, dtype=np.int64))
    keys[0] = 0
    wins[0] = 0
    counts[0] = 1
    n = 1
    final = (*new_table(1 if keyed else 0, 64, np.zeros(1, dtype=np.int64)), 0)
    for k in range(R):
        proj = reel_classes(k)
        steps, moves = _set_costs(k, sets, keys[:, 0], n, row_of, nq, proj[4])
        check_cost(game, k, sets, n, int(steps), int(moves), limit)
        args = (proj, row_of, next_sid, auto.trans, auto.lo, auto.hi, unit_den, nq)
        scratch = _scratch(int(proj[4].max()), L)
        nxt = _new_store(int(sets[4][1]), int(sets[4][0]))
        nxt, keys, wins, counts, n, final = _step(
            k, sets, nxt, keys, wins, counts, n, *args, scratch, suffix, suffix_nz, pay_units, final, n_sc
        )
        sets = nxt
    fkeys, fwins, fcounts, _, fn = final
    fcodes = fkeys[:fn, 0].astype(np.int64) if keyed else np.zeros(fn, dtype=np.int64)
    return n, fwins[:fn], fcodes, fcounts[:fn]
