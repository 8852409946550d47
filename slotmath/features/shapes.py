"""Rectangle-shape decomposition of an occupancy mask.

At the end of a hold-and-respin feature the held symbols are grouped into
rectangular *shapes*, each shape paying its own prize.  This module turns an
occupancy mask into a list of placed shapes and tabulates, for every possible
mask of a grid, how many shapes of each kind it decomposes into.

Grid convention (shared with :mod:`slotmath.features.lockit`): ``H`` rows by ``R``
reels, cell ``c = reel * H + row`` is bit ``c`` of an integer mask; row 0 is
the top row, reel 0 the leftmost reel.  A shape is a ``(rows, reels)``
rectangle with fixed orientation.

Two packing rules are provided:

* ``"greedy"`` -- shapes are tried in priority order (list order); for each
  shape the anchor positions (top-left cells) are scanned in a fixed order and
  the shape is placed wherever all of its cells are still unassigned.
  ``order="reel-major"`` scans reels left to right and, within a reel, rows top
  to bottom; ``order="row-major"`` scans rows top to bottom, then reels.
* ``"optimal"`` -- an exact cover maximising the sum of a given per-shape prize
  (ties broken towards the higher-priority shape at the lowest free cell).

Both rules require the 1x1 shape in the list, so that every held cell ends up
in exactly one shape.
"""

from __future__ import annotations

from functools import cache

import numba
import numpy as np

from slotmath.engine.cache import memo
from slotmath.features.declaration import ORDERS

__all__ = [
    "ORDERS",
    "cell_index",
    "rect_mask",
    "mask_from_picture",
    "picture",
    "placements",
    "pack",
    "shape_count_table",
    "shape_prize_moments",
]


# ----------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------
def cell_index(row, reel, n_rows):
    """Bit index of cell (row, reel): ``reel * n_rows + row``."""
    return reel * n_rows + row


def rect_mask(n_rows, top, left, rows, reels):
    """Mask of the ``rows x reels`` rectangle whose top-left cell is (top, left)."""
    column = ((1 << rows) - 1) << top
    mask = 0
    for reel in range(left, left + reels):
        mask |= column << (reel * n_rows)
    return mask


def mask_from_picture(picture_text):
    """Parse a grid picture into ``(mask, n_rows, n_reels)``.

    Parameters
    ----------
    picture_text : str or sequence of str
        One string per row, top row first, one character per reel; ``'X'``
        (or ``'x'``, ``'#'``, ``'1'``) marks a held cell, anything else
        (conventionally ``'.'``) an empty cell.  Whitespace is ignored.
    """
    if isinstance(picture_text, str):
        lines = picture_text.split()
    else:
        lines = ["".join(line.split()) for line in picture_text]
    lines = [line for line in lines if line]
    if not lines or len({len(line) for line in lines}) != 1:
        raise ValueError("picture must have rows of equal, non-zero length")
    n_rows, n_reels = len(lines), len(lines[0])
    mask = 0
    for row, line in enumerate(lines):
        for reel, ch in enumerate(line):
            if ch in "Xx#1":
                mask |= 1 << cell_index(row, reel, n_rows)
    return mask, n_rows, n_reels


def picture(mask, n_rows, n_reels):
    """Render a mask as rows of ``'X'``/``'.'`` (inverse of :func:`mask_from_picture`)."""
    return "\n".join(
        "".join("X" if mask >> cell_index(row, reel, n_rows) & 1 else "." for reel in range(n_reels))
        for row in range(n_rows)
    )


def _check_grid(n_rows, n_reels):
    for name, value in (("n_rows", n_rows), ("n_reels", n_reels)):
        if int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if n_rows * n_reels > 26:
        raise ValueError("grid too large to tabulate: n_rows * n_reels must be <= 26")


def _check_shapes(shapes, n_rows, n_reels):
    shapes = tuple((int(a), int(b)) for a, b in shapes)
    if not shapes:
        raise ValueError("shapes must not be empty")
    for rows, reels in shapes:
        if rows < 1 or reels < 1:
            raise ValueError(f"shape {(rows, reels)} must have positive sides")
    if len(set(shapes)) != len(shapes):
        raise ValueError("shapes must be distinct")
    if (1, 1) not in shapes:
        raise ValueError("shapes must include the 1x1 shape so that every cell is covered")
    return shapes


@memo(maxsize=64)
def _placements(n_rows, n_reels, shapes, order):
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    out = []
    for s, (rows, reels) in enumerate(shapes):
        anchors = [(top, left) for left in range(n_reels - reels + 1) for top in range(n_rows - rows + 1)]
        if order == "row-major":
            anchors.sort()
        out.extend((s, top, left, rect_mask(n_rows, top, left, rows, reels)) for top, left in anchors)
    return tuple(out)


def placements(n_rows, n_reels, shapes, order="reel-major"):
    """All in-grid placements in greedy trial order.

    Returns
    -------
    list of tuple
        ``(shape_index, top_row, left_reel, cell_mask)``, grouped by shape in
        priority order and, within a shape, by anchor in scan ``order``.
    """
    _check_grid(n_rows, n_reels)
    shapes = _check_shapes(shapes, n_rows, n_reels)
    return list(_placements(n_rows, n_reels, shapes, order))


# ----------------------------------------------------------------------------
# single mask
# ----------------------------------------------------------------------------
def pack(mask, n_rows, n_reels, shapes, order="reel-major", *, rule="greedy", prize=None):
    """Decompose one occupancy mask into shapes.

    Parameters
    ----------
    mask : int
        Held cells (bit ``reel * n_rows + row``).
    n_rows, n_reels : int
        Grid size.
    shapes : sequence of (int, int)
        ``(rows, reels)`` rectangles in priority order; must contain ``(1, 1)``.
    order : {"reel-major", "row-major"}
        Anchor scan order for the greedy rule.
    rule : {"greedy", "optimal"}
        Packing rule (see module docstring).
    prize : array_like, optional
        Per-shape prize [any unit]; required for ``rule="optimal"``.

    Returns
    -------
    list of tuple
        ``(shape_index, top_row, left_reel)`` for each placed shape.
    """
    _check_grid(n_rows, n_reels)
    shapes = _check_shapes(shapes, n_rows, n_reels)
    mask = int(mask)
    if mask < 0 or mask >> (n_rows * n_reels):
        raise ValueError("mask has bits outside the grid")
    if rule == "greedy":
        free, placed = mask, []
        for s, top, left, cells in _placements(n_rows, n_reels, shapes, order):
            if cells & free == cells:
                free ^= cells
                placed.append((s, top, left))
        return placed
    if rule == "optimal":
        prize = _check_prize(prize, len(shapes))
        by_cell = _anchored(n_rows, n_reels, shapes)

        @cache
        def best(free):
            if free == 0:
                return 0.0, ()
            cell = (free & -free).bit_length() - 1
            top_val, top_list = -np.inf, ()
            for s, cells in by_cell[cell]:
                if cells & free == cells:
                    val, rest = best(free ^ cells)
                    if val + prize[s] > top_val:
                        top_val, top_list = val + prize[s], ((s, cell),) + rest
            return top_val, top_list

        _, chosen = best(mask)
        return [(s, cell % n_rows, cell // n_rows) for s, cell in chosen]
    raise ValueError(f"rule must be 'greedy' or 'optimal', got {rule!r}")


def _check_prize(prize, n_shapes):
    if prize is None:
        raise ValueError("rule='optimal' needs a per-shape prize vector")
    prize = np.asarray(prize, dtype=float)
    if prize.shape != (n_shapes,) or not np.all(np.isfinite(prize)):
        raise ValueError(f"prize must be a finite vector of length {n_shapes}")
    return prize


def _anchored(n_rows, n_reels, shapes):
    """Per cell: placements whose top-left cell is that cell, in priority order."""
    by_cell = [[] for _ in range(n_rows * n_reels)]
    for s, top, left, cells in _placements(n_rows, n_reels, shapes, "reel-major"):
        by_cell[cell_index(top, left, n_rows)].append((s, cells))
    return by_cell


# ----------------------------------------------------------------------------
# all masks
# ----------------------------------------------------------------------------
@numba.njit(cache=True)
def _optimal_table(n_cells, n_shapes, start, place_shape, place_cells, prize):
    """Exact-cover DP over all masks in increasing order.

    Any rectangle covering the lowest free cell must have it as its top-left
    cell, and ``mask ^ cells < mask``, so ``best[mask ^ cells]`` is final.
    """
    n_masks = 1 << n_cells
    best = np.zeros(n_masks)
    counts = np.zeros((n_masks, n_shapes), dtype=np.int64)
    for mask in range(1, n_masks):
        low = mask & -mask
        cell = 0
        while (low >> cell) != 1:
            cell += 1
        pick = -1
        top = -np.inf
        for p in range(start[cell], start[cell + 1]):
            cells = place_cells[p]
            if cells & mask == cells:
                val = prize[place_shape[p]] + best[mask ^ cells]
                if val > top:
                    top = val
                    pick = p
        best[mask] = top
        rest = mask ^ place_cells[pick]
        for s in range(n_shapes):
            counts[mask, s] = counts[rest, s]
        counts[mask, place_shape[pick]] += 1
    return counts


def shape_count_table(n_rows, n_reels, shapes, order="reel-major", *, rule="greedy", prize=None):
    """Number of shapes of each kind in the decomposition of every mask.

    Parameters
    ----------
    n_rows, n_reels, shapes, order, rule, prize
        As in :func:`pack`.

    Returns
    -------
    ndarray of int64, shape (2**(n_rows*n_reels), n_shapes)
        ``table[mask, s]`` = number of shapes ``s`` placed for ``mask``.
        Row sums of ``table * cell_count(shape)`` equal the popcount of ``mask``.
    """
    _check_grid(n_rows, n_reels)
    shapes = _check_shapes(shapes, n_rows, n_reels)
    n_cells, n_shapes = n_rows * n_reels, len(shapes)
    if rule == "greedy":
        # Vectorised over masks: the placement loop is sequential, masks are not.
        free = np.arange(1 << n_cells, dtype=np.int64)
        table = np.zeros((1 << n_cells, n_shapes), dtype=np.int64)
        for s, _, _, cells in _placements(n_rows, n_reels, shapes, order):
            fits = (free & cells) == cells
            free[fits] ^= cells
            table[fits, s] += 1
        return table
    if rule == "optimal":
        prize = _check_prize(prize, n_shapes)
        by_cell = _anchored(n_rows, n_reels, shapes)
        start = np.cumsum([0] + [len(b) for b in by_cell]).astype(np.int64)
        flat = [item for b in by_cell for item in b]
        place_shape = np.array([s for s, _ in flat], dtype=np.int64)
        place_cells = np.array([c for _, c in flat], dtype=np.int64)
        return _optimal_table(n_cells, n_shapes, start, place_shape, place_cells, prize)
    raise ValueError(f"rule must be 'greedy' or 'optimal', got {rule!r}")


def shape_prize_moments(table, mean, second):
    """Per-mask prize moments when every placed shape draws its prize independently.

    Parameters
    ----------
    table : ndarray, shape (n_masks, n_shapes)
        Output of :func:`shape_count_table`.
    mean, second : array_like, shape (n_shapes,)
        First and second moment of one shape's prize [x total bet], [(x total bet)^2].

    Returns
    -------
    m1, m2 : ndarray, shape (n_masks,)
        ``E[f | mask]`` and ``E[f^2 | mask]`` for ``f`` = sum of the shape prizes:
        ``m1 = n @ mean``, ``m2 = m1^2 + n @ (second - mean^2)``.
    """
    table = np.asarray(table)
    mean = np.asarray(mean, dtype=float)
    second = np.asarray(second, dtype=float)
    if mean.shape != (table.shape[1],) or second.shape != mean.shape:
        raise ValueError("mean and second must have one entry per shape")
    var = second - mean**2
    if np.any(var < -1e-9 * np.maximum(1.0, second)):
        raise ValueError("second moment must be >= mean**2 for every shape")
    m1 = table @ mean
    return m1, m1**2 + table @ np.maximum(var, 0.0)
