"""A hash table of (row, win) keys with int64 counts, shared by the exact
forward passes (lines, ways, pay anywhere, clusters): open addressing with
linear probing, two slots per entry, grown by doubling."""

from __future__ import annotations

import numba as nb
import numpy as np


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


@nb.njit(cache=True)
def dict_arrays(table):
    """The keys and values of a numba typed ``Dict[int64, int64]`` as two
    int64 arrays, in the dict's order."""
    keys = np.empty(len(table), dtype=np.int64)
    values = np.empty(len(table), dtype=np.int64)
    j = 0
    for k, v in table.items():
        keys[j] = k
        values[j] = v
        j += 1
    return keys, values
