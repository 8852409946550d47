"""Lock-it landings: the respin model of one spin (which cells land, by reel)
and the Kronecker-factored sweeps over the reels that the chain
(:mod:`slotmath.features.lockit`) runs; float64 or exact, as described
there."""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from math import lcm
from numbers import Rational

import numpy as np


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def is_rational(x):
    return isinstance(x, (Rational, np.integer)) and not isinstance(x, (bool, np.bool_))


def popcount(n_bits):
    pc = np.zeros(1 << n_bits, dtype=np.int64)
    for b in range(n_bits):
        pc[1 << b : 2 << b] = pc[: 1 << b] + 1
    return pc


def reel_average(T, mats):
    """Average a stack of per-window values over each reel's window law.

    ``T`` has shape (G,) + (2**H,) * R, reel r's window pattern on axis
    ``1 + R - 1 - r`` (the layout of a mask ``sum_r pattern_r << (r H)``);
    ``mats[r]`` is (K, 2**H): a law of reel r's pattern for each of K cases
    (e.g. P(pattern | held count)).  Returns shape (G,) + (K,) * R, the same
    axis order; object (Fraction) arrays stay exact."""
    R = len(mats)
    for r, Q in enumerate(mats):
        ax = 1 + (R - 1 - r)
        T = np.moveaxis(np.tensordot(T, Q, axes=([ax], [1])), -1, ax)
    return T


def as_exact(values):
    """Object array of Fractions from ints/Fractions; ValueError for floats."""
    arr = np.asarray(values, dtype=object)
    flat = arr.ravel()
    out = np.empty(flat.shape, dtype=object)
    for i, x in enumerate(flat):
        if isinstance(x, (float, np.floating)):
            raise ValueError("exact mode needs int or Fraction inputs, got a float")
        if not is_rational(x):
            raise ValueError(f"exact mode needs int or Fraction inputs, got {type(x).__name__}")
        out[i] = Fraction(x)
    return out.reshape(arr.shape)


def window_counts(hits, n_rows, marks=None):
    """Count landing patterns over all stops of one reel strip.

    Parameters
    ----------
    hits : array_like of bool, shape (N,)
        ``hits[i]`` is True if strip position ``i`` shows a feature symbol.
    n_rows : int
        Window height H.  At stop ``s`` row ``k`` shows position ``(s + k) % N``.
    marks : array_like of bool, shape (N,), optional
        ``marks[i]`` is True if the feature symbol at position ``i`` is marked
        (ignored where ``hits`` is False).

    Returns
    -------
    ndarray of int64, shape (2**H,) or (2**H, 2**H)
        Number of stops per landing pattern (bit k = row k), or, if ``marks``
        is given, per ``(pattern, mark pattern)``.
    """
    hits = np.asarray(hits, dtype=bool)
    if hits.ndim != 1 or hits.size == 0:
        raise ValueError("hits must be a non-empty 1-D boolean strip")
    n = hits.size
    idx = (np.arange(n)[:, None] + np.arange(n_rows)[None, :]) % n
    weights = 1 << np.arange(n_rows)
    pattern = (hits[idx] * weights).sum(axis=1)
    if marks is None:
        return np.bincount(pattern, minlength=1 << n_rows).astype(np.int64)
    marks = np.asarray(marks, dtype=bool)
    if marks.shape != hits.shape:
        raise ValueError("marks must have the same length as hits")
    mark_pat = ((hits & marks)[idx] * weights).sum(axis=1)
    out = np.zeros((1 << n_rows, 1 << n_rows), dtype=np.int64)
    np.add.at(out, (pattern, mark_pat), 1)
    return out


# ----------------------------------------------------------------------------
# respin model
# ----------------------------------------------------------------------------
class Landing:
    """Per-reel distribution of one respin's landing pattern and marks.

    Parameters
    ----------
    n_rows : int
        Rows H per reel.
    table : array_like, shape (R, 2**H, 2**H)
        ``table[r, pattern, marks]`` = weight of reel ``r`` landing feature
        symbols on the rows in ``pattern`` (bit k = row k), of which those in
        ``marks`` are marked; ``marks`` must be a subset of ``pattern``.
        Either non-negative integers (stop counts, normalised per reel) or
        probabilities [probability] summing to 1 per reel.

    Notes
    -----
    Use :meth:`from_counts` or :meth:`from_cells` rather than the raw table.
    """

    def __init__(self, n_rows, table):
        if int(n_rows) != n_rows or n_rows < 1:
            raise ValueError(f"n_rows must be a positive integer, got {n_rows!r}")
        self.n_rows = int(n_rows)
        n_pat = 1 << self.n_rows
        raw = np.asarray(table, dtype=object)
        if raw.ndim != 3 or raw.shape[1:] != (n_pat, n_pat) or raw.shape[0] < 1:
            raise ValueError(f"table must have shape (R, {n_pat}, {n_pat}), got {raw.shape}")
        self.n_reels = raw.shape[0]
        pat = np.arange(n_pat)
        outside = (pat[None, :] & ~pat[:, None]) != 0  # marks not within pattern
        all_rational = all(is_rational(x) for x in raw.ravel())
        prob = raw.astype(float)
        if not np.all(np.isfinite(prob)) or np.any(prob < 0):
            raise ValueError("landing weights must be finite and non-negative")
        if np.any(prob[:, outside] > 0):
            raise ValueError("marks must be a subset of the landing pattern")
        totals = prob.sum(axis=(1, 2))
        if np.any(totals <= 0):
            raise ValueError("every reel needs a positive total weight")
        integral = all_rational and all(Fraction(x).denominator == 1 for x in raw.ravel())
        if integral:  # stop counts
            self._num = np.vectorize(int, otypes=[object])(raw)
            self._den = [int(self._num[r].sum()) for r in range(self.n_reels)]
        elif all_rational:  # exact probabilities
            frac = as_exact(raw)
            dens = [lcm(*(x.denominator for x in frac[r].ravel())) for r in range(self.n_reels)]
            if any(frac[r].sum() != 1 for r in range(self.n_reels)):
                raise ValueError("landing probabilities must sum to 1 on every reel")
            self._num = np.empty(raw.shape, dtype=object)
            for r in range(self.n_reels):
                for idx, x in np.ndenumerate(frac[r]):
                    self._num[(r,) + idx] = int(x * dens[r])
            self._den = dens
        else:  # float probabilities
            self._check_unit_sum(totals)
            self._num, self._den = None, None
        self.prob = prob / totals[:, None, None]
        self.prob.setflags(write=False)

    @staticmethod
    def _check_unit_sum(totals):
        if np.any(np.abs(totals - 1.0) > 1e-12):
            raise ValueError(
                "landing probabilities must sum to 1 on every reel "
                f"(got sums {np.round(totals, 15).tolist()}); pass integer "
                "counts to have them normalised"
            )

    @classmethod
    def from_counts(cls, counts, n_rows=None):
        """Build from integer stop counts.

        Parameters
        ----------
        counts : array_like of int, shape (R, 2**H) or (R, 2**H, 2**H)
            Per reel, number of stops per landing pattern, or per
            ``(pattern, mark pattern)`` (see :func:`window_counts`).
        n_rows : int, optional
            H; inferred from the pattern axis length if omitted.
        """
        arr = np.asarray(counts)
        if arr.dtype.kind not in "iuO" or arr.ndim not in (2, 3):
            raise ValueError("counts must be an integer array of shape (R, 2**H[, 2**H])")
        h = int(np.log2(arr.shape[1])) if arr.shape[1] > 0 else 0
        if (1 << h) != arr.shape[1] or (n_rows is not None and n_rows != h):
            raise ValueError(f"pattern axis length {arr.shape[1]} does not match 2**n_rows")
        if any(not is_rational(x) or Fraction(x).denominator != 1 for x in arr.ravel()):
            raise ValueError("counts must be integers")
        if arr.ndim == 2:
            full = np.zeros(arr.shape + (arr.shape[1],), dtype=object)
            full[:, :, 0] = arr
            arr = full
        return cls(h, arr)

    @classmethod
    def from_cells(cls, p, p_mark=None):
        """Independent cells: each empty cell lands with its own probability.

        Parameters
        ----------
        p : array_like, shape (H, R)
            Landing probability of cell (row, reel) [probability]; floats, or
            ints/Fractions for exact mode.
        p_mark : array_like, shape (H, R), optional
            Probability that a landing in that cell is marked [probability].
        """
        p = np.asarray(p, dtype=object)
        if p.ndim != 2:
            raise ValueError("p must have shape (n_rows, n_reels)")
        q = np.zeros(p.shape, dtype=object) if p_mark is None else np.asarray(p_mark, dtype=object)
        if q.shape != p.shape:
            raise ValueError("p_mark must have the same shape as p")
        pf, qf = p.astype(float), q.astype(float)
        if np.any(~np.isfinite(pf)) or np.any(pf < 0) or np.any(pf > 1) or np.any(qf < 0) or np.any(qf > 1):
            raise ValueError("cell probabilities must lie in [0, 1]")
        exact = all(is_rational(x) for x in np.concatenate([p.ravel(), q.ravel()]))
        if exact:
            p, q = as_exact(p), as_exact(q)
        else:
            p, q = pf, qf
        n_rows, n_reels = p.shape
        n_pat = 1 << n_rows
        table = np.zeros((n_reels, n_pat, n_pat), dtype=object)
        for r in range(n_reels):
            for pattern in range(n_pat):
                for marks in range(n_pat):
                    if marks & ~pattern:
                        continue
                    w = 1
                    for k in range(n_rows):
                        if not pattern >> k & 1:
                            w = w * (1 - p[k, r])
                        elif marks >> k & 1:
                            w = w * p[k, r] * q[k, r]
                        else:
                            w = w * p[k, r] * (1 - q[k, r])
                    table[r, pattern, marks] = w
        if not exact:
            table = table.astype(float)
        return cls(n_rows, table)

    @property
    def is_exact(self):
        """True if the weights are rational (usable with ``exact=True``)."""
        return self._num is not None

    @cached_property
    def has_marks(self):
        """True if any landing carries a mark."""
        return bool(np.any(self.prob[:, :, 1:] > 0))

    def reel_matrices(self, exact=False, scale=None):
        """Per-reel split transition matrices.

        Returns
        -------
        list of tuple
            Per reel ``(D, O, X)``, each ``2**H x 2**H`` with ``[held, new_held]``:
            ``D`` diagonal (nothing new), ``O`` new cells without a new mark,
            ``X`` new cells including a new mark.  ``D + O + X`` is row-stochastic
            (float), or has row sums ``scale[r]`` (exact, Python ints).
        """
        n_pat = 1 << self.n_rows
        out = []
        for r in range(self.n_reels):
            if exact:
                if self._num is None:
                    raise ValueError("exact mode needs integer counts or rational probabilities")
                mult = 1 if scale is None else scale[r] // self._den[r]
                w = self._num[r] * mult
                mats = [np.zeros((n_pat, n_pat), dtype=object) for _ in range(3)]
            else:
                w = self.prob[r]
                mats = [np.zeros((n_pat, n_pat)) for _ in range(3)]
            D, no_mark, X = mats
            for held in range(n_pat):
                for pattern in range(n_pat):
                    for marks in range(n_pat):
                        wt = w[pattern, marks]
                        if not wt:
                            continue
                        new = held | pattern
                        if new == held:
                            D[held, held] += wt
                        elif marks & ~held:
                            X[held, new] += wt
                        else:
                            no_mark[held, new] += wt
            out.append((D, no_mark, X))
        return out


# ----------------------------------------------------------------------------
# Kronecker-factored sweeps over the reels
# ----------------------------------------------------------------------------
class Kron:
    """One respin step for one reel set, applied axis by axis.

    A vector over masks is viewed as an array of shape (P**(R-1-r), P, P**r) to
    expose reel r (P = 2**H); reel r's matrix multiplies that middle axis.
    """

    def __init__(self, mats, n_rows, n_reels, dtype):
        self.n_pat, self.n_reels, self.dtype = 1 << n_rows, n_reels, dtype
        self.D = [np.diag(D).copy() for D, _, _ in mats]
        self.O = [no_mark for _, no_mark, _ in mats]
        self.N = [
            np.diag(d) + no_mark if dtype is float else diag_plus(d, no_mark)
            for d, no_mark in zip(self.D, self.O, strict=True)
        ]
        self.X = [X if np.any(X != 0) else None for _, _, X in mats]
        self.A = [N if X is None else N + X for N, X in zip(self.N, self.X, strict=True)]
        self.has_marks = any(X is not None for X in self.X)

    def _view(self, v, r):
        # leading axes (a batch of vectors) are kept
        return v.reshape(v.shape[:-1] + (self.n_pat ** (self.n_reels - 1 - r), self.n_pat, self.n_pat**r))

    def fwd(self, v, M, r):  # v @ kron(..., M, ...)
        return contract(self._view(v, r), M).reshape(v.shape)

    def bwd(self, g, M, r):  # kron(..., M, ...) @ g
        return contract(self._view(g, r), M.T).reshape(g.shape)

    def diag(self, v, r):
        return (self._view(v, r) * self.D[r][:, None]).reshape(v.shape)

    @cached_property
    def stay(self):
        """Probability (or weight) per mask that a spin adds nothing."""
        d = np.ones(1, dtype=self.dtype)
        for r in range(self.n_reels):  # reel r becomes the slowest axis so far
            d = np.multiply.outer(self.D[r], d).reshape(-1)
        return d

    def forward(self, v, split_stay):
        """Branches of ``v @ T``: ``(stay, moved, marked)`` or ``(None, unmarked, marked)``.

        ``stay`` = nothing new, ``moved`` = new cells but no new mark,
        ``marked`` = a new mark landed.  Without ``split_stay`` the first two
        are merged into ``unmarked``.  ``None`` stands for a zero branch.
        """
        s, c, k = (v, None, None) if split_stay else (None, v, None)
        for r in range(self.n_reels):
            X = self.X[r]
            if X is not None:
                src = add_or_none(s, c)
                k = add_or_none(
                    None if k is None else self.fwd(k, self.A[r], r),
                    None if src is None else self.fwd(src, X, r),
                )
            elif k is not None:
                k = self.fwd(k, self.A[r], r)
            c = add_or_none(
                None if c is None else self.fwd(c, self.N[r], r),
                None if s is None else self.fwd(s, self.O[r], r),
            )
            if s is not None:
                s = self.diag(s, r)
        return s, c, k

    def backward(self, h_stay, h_moved, h_marked, merged=False):
        """Expected terminal branch value from each start mask (transpose of :meth:`forward`).

        ``h_*`` are per-mask values collected at the end of the sweep in each
        branch (``None`` = 0); returns the value for the ``stay`` start branch.
        With ``merged`` the stay branch is folded into ``moved`` (``h_stay`` is
        ignored) and the value of the merged start branch is returned.
        """
        s, c, k = (None if merged else h_stay), h_moved, h_marked
        for r in range(self.n_reels):
            X = self.X[r]
            xk = None if (X is None or k is None) else self.bwd(k, X, r)
            if not merged:
                s = add_or_none(
                    add_or_none(
                        None if s is None else self.diag(s, r),
                        None if c is None else self.bwd(c, self.O[r], r),
                    ),
                    xk,
                )
            c = add_or_none(None if c is None else self.bwd(c, self.N[r], r), xk)
            k = None if k is None else self.bwd(k, self.A[r], r)
        return c if merged else s


def contract(v3, M):
    """``out[..., j, :] = sum_i v3[..., i, :] M[i, j]`` (axis -2 of ``v3`` times ``M``).

    Float arrays go through one 2-D matrix product (BLAS) on a copy with the
    contracted axis last; object arrays use ``matmul`` directly.
    """
    if v3.dtype == object or M.dtype == object:
        return np.matmul(M.T, v3)
    t = np.ascontiguousarray(np.moveaxis(v3, -2, -1))
    out = (t.reshape(-1, M.shape[0]) @ M).reshape(t.shape)
    return np.moveaxis(out, -1, -2)


def diag_plus(d, no_mark):
    out = no_mark.copy()
    for i, x in enumerate(d):
        out[i, i] = out[i, i] + x
    return out


def add_or_none(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def start_state(key: tuple, H: int) -> tuple:
    """(flag, mask) of the trigger window of ``key`` (mask bit ``reel * H + row``)."""
    low = (1 << H) - 1
    mask = sum((d & low) << (r * H) for r, d in enumerate(key))
    return int(any(d >> H for d in key)), mask
