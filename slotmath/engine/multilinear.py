"""Line figures as multilinear forms in the per-reel stop weights.

A payline reads row ``rho_l(r)`` of reel ``r``.  The weighted number of
stops of reel ``r`` that show symbol ``x`` in row ``k`` is the row marginal
``m[r][k, x]`` (an integer; see :func:`slotmath.engine.reels.row_marginal`).  For
any function ``f`` of a line's symbol tuple -- the line win, its square,
"the line wins" -- the sum of ``f`` over the whole cycle is

    F = sum_l sum_x f(x) prod_r m[r][rho_l(r), x_r],

a contraction of the tensor ``f`` (shape ``(S,) * R``) with one marginal per
reel.  ``F`` is linear in each reel's marginals while the other reels are
held, and the marginals are linear in the reel's tuning variables (a
symbol's count on an unweighted strip, a stop's weight on a weighted one).
:func:`reel_gradient` returns that linear form; the tuner solves integer
programmes over it one reel at a time.

Exactness: integer tensors are contracted in int64 when the largest
possible partial sum (``max |f| x`` product of the contracted reels'
weights) stays below 2**62, otherwise in Python integers.  Cost per
contraction O(S**R); lines with equal marginals on every reel share one.
"""

from __future__ import annotations

import numpy as np

from slotmath.engine.reels import windows
from slotmath.model import Game, Strip

INT64_SAFE = 2**62


def row_marginals(game: Game, strip: Strip) -> np.ndarray:
    """Weighted stop count of each symbol in each window row, shape (rows, S)."""
    win = windows(game, strip)
    w = strip.stop_weights()
    out = np.zeros((game.rows, len(game.symbols)), dtype=np.int64)
    for k in range(game.rows):
        np.add.at(out[k], win[:, k], w)
    return out


def _exact_dtype(values: np.ndarray, totals) -> object:
    """int64 when no partial sum can overflow, else object (Python ints)."""
    if values.dtype.kind == "f":
        return np.float64
    bound = float(max(abs(int(values.max(initial=0))), abs(int(values.min(initial=0)))))
    for t in totals:
        bound *= float(t)
    return np.int64 if bound < INT64_SAFE else object


def contract(values: np.ndarray, vectors: list, skip: int | None = None) -> np.ndarray:
    """Contract axis r of ``values`` (shape (S,)*R) with ``vectors[r]``.

    Axis ``skip`` is left open; the result is then a vector over it (else
    a 0-d array).  Integer inputs give exact integer results.
    """
    R = values.ndim
    totals = [int(np.sum(v)) for r, v in enumerate(vectors) if r != skip]
    dtype = _exact_dtype(values, totals)
    out = values.astype(dtype, copy=False)
    for r in range(R - 1, -1, -1):
        if r == skip:
            continue
        vec = np.asarray(vectors[r]).astype(dtype, copy=False)
        out = np.tensordot(out, vec, axes=([r], [0]))
    return out


def line_total(values: np.ndarray, marginals: list, paylines) -> int | float:
    """Sum over the cycle and over all paylines of ``values[x]``.

    Parameters
    ----------
    values : ndarray, shape (S,) * R
        A function of the line's symbol tuple (e.g. the pay tensor).
    marginals : list of ndarray (rows, S)
        Row marginals of every reel (:func:`row_marginals`).
    paylines : sequence of row tuples
    """
    cache: dict = {}
    total = 0
    for line in paylines:
        vecs = [marginals[r][row] for r, row in enumerate(line)]
        key = b"".join(v.tobytes() for v in vecs)
        if key not in cache:
            v = contract(values, vecs)
            cache[key] = v.item() if hasattr(v, "item") else v
        total += cache[key]
    return total


def cycle_line_win(game: Game, values: np.ndarray, reel_set: str = "base") -> int | float:
    """:func:`line_total` of ``values`` (e.g. the pay tensor's wins, shape
    (S,) * R) over the strips of ``reel_set``: the line win summed over the
    cycle and the paylines [coins]."""
    margs = [row_marginals(game, s) for s in game.strips(reel_set)]
    return line_total(values, margs, game.paylines)


def reel_gradient(values: np.ndarray, marginals: list, paylines, reel: int) -> np.ndarray:
    """Linear form of :func:`line_total` in reel ``reel``'s row marginals.

    Returns
    -------
    ndarray, shape (rows, S)
        ``G`` with ``line_total = sum_k G[k] . marginals[reel][k]`` while the
        other reels are held (exact integers for integer ``values``).
    """
    rows, S = marginals[reel].shape
    G = None
    cache: dict = {}
    for line in paylines:
        vecs = [marginals[r][row] for r, row in enumerate(line)]
        key = b"".join(v.tobytes() for r, v in enumerate(vecs) if r != reel)
        if key not in cache:
            cache[key] = contract(values, vecs, skip=reel)
        g = cache[key]
        if G is None:
            G = np.zeros((rows, S), dtype=g.dtype)
        G[line[reel]] += g
    return G


def unit_coefficients(G: np.ndarray, incidence: np.ndarray) -> np.ndarray:
    """Coefficient of each tuning unit: ``a[u] = sum_k G[k] . incidence[u, k]``.

    ``incidence[u, k, x]`` is 1 when unit ``u`` adds a stop weight showing
    symbol ``x`` in row ``k``.
    """
    U = incidence.shape[0]
    a = np.zeros(U, dtype=G.dtype)
    for u in range(U):
        k, x = np.nonzero(incidence[u])
        a[u] = G[k, x].sum()
    return a
