"""The depth-first walk over reel stops, shared by the exact kernels.

A walk visits stop combinations reel by reel with an explicit stack (any
number of reels): ``pos[r]`` is the position reached on reel ``r`` and
``end[r]`` the end of its range; a position is a stop, or an index into a
list of candidate stops the caller keeps.  A kernel written on it reads::

    level = enter_reel(pos, end, 0, first, last)
    while level >= 0:
        if not next_stop(pos, end, level):
            level -= 1  # reel done: back to the reel before it
            continue
        ...  # visit pos[level]; to go one reel deeper:
        level = enter_reel(pos, end, level + 1, first, last)

What a kernel does at a stop -- the line states it carries, the prefixes it
skips because their outcome is fixed, what it adds up at the last reel --
is its own (:mod:`slotmath.engine.moments`, the Grand Spinn enumeration, the
Piggy feature screens).  The two steps are inlined into each kernel (a
kernel taking its visit as a function argument would be compiled again by
every process: numba does not cache such specialisations).
"""

from __future__ import annotations

import numba as nb


@nb.njit(cache=True, inline="always")
def enter_reel(pos, end, level, first, last):
    """Start reel ``level`` on the positions ``[first, last)``; returns ``level``."""
    pos[level] = first - 1
    end[level] = last
    return level


@nb.njit(cache=True, inline="always")
def next_stop(pos, end, level):
    """Move reel ``level`` to its next position; False when its range is
    done (the walk then goes back to the reel before it)."""
    pos[level] += 1
    return pos[level] < end[level]
