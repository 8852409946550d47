"""Lock-it (hold & respin) features as an absorbing Markov chain on occupancy masks.

During the feature every landed feature symbol is held; the remaining cells are
respun until the spins run out or the screen is full, and the final screen is
paid (e.g. by :mod:`slotmath.shapes`).  The state is the occupancy ``mask``
(bit ``reel * H + row``), a ``flag`` recording whether a *marked* landing (a
symbol that carries an extra award) is on screen, and the spin counter.

Respin model
------------
:class:`Landing` holds, per reel, the distribution of what one respin lands:
the landing ``pattern`` (H-bit set of rows showing a feature symbol) and the
``marks`` (subset of the pattern carrying a mark).  Two sources:

* :meth:`Landing.from_counts` -- integer stop counts from a feature reel strip
  (the whole reel respins under the held cells; a landing under a held cell
  changes nothing).  Cells on one reel are correlated.
* :meth:`Landing.from_cells` -- every cell lands independently with its own
  probability.

Reels are independent, so one spin maps ``mask -> mask | landed`` with a
transition matrix that is the Kronecker product of per-reel ``2^H x 2^H``
matrices.  It is applied to a ``2^(H R)`` vector viewed as an R-axis tensor,
one small matrix product per reel; the dense matrix is never built.

Marks and the flag
------------------
While no mark is on screen (flag 0) respins use the ``landing`` reel set; a
mark landing on a cell that was not already held sets the flag, after which
the ``after_mark`` reel set is used.  Only the first mark matters.  The split
"some reel landed a new mark" vs "none did" is computed branch-wise over the
reels (reel r is the first with a new mark / none so far), so every quantity
is a sum of non-negative products -- no ``T_all - T_none`` subtraction.

Spin rules
----------
``"countdown"``: a fixed number of spins, no reset.  ``"reset"``: the counter
returns to the initial number whenever a spin adds at least one held cell.

Arithmetic
----------
``exact=False`` uses float64.  All forward quantities are sums of products of
non-negative numbers, so each probability carries a relative error of at most
about ``m * 2**-53`` with ``m ~ steps * R * (2**H + 3)`` (about 3e-14 for 5
spins on 3x5); backward values of a signed prize ``f`` are accurate to
``m * 2**-53 * E|f|``.  ``exact=True`` works with Python integers over a common
denominator and returns :class:`fractions.Fraction` object arrays; it needs
integer counts or rational probabilities and is meant for small grids and
verification (a 3x5, 5-spin run takes seconds, not milliseconds).
"""
from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from math import lcm
from numbers import Rational

import numpy as np

__all__ = [
    "RULES",
    "Landing",
    "LockIt",
    "LockItResult",
    "window_counts",
    "screen_distribution",
    "trigger_distribution",
]

RULES = ("countdown", "reset")


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def _is_rational(x):
    return isinstance(x, (Rational, np.integer)) and not isinstance(x, (bool, np.bool_))


def _popcount(n_bits):
    pc = np.zeros(1 << n_bits, dtype=np.int64)
    for b in range(n_bits):
        pc[1 << b:2 << b] = pc[:1 << b] + 1
    return pc


def _as_exact(values):
    """Object array of Fractions from ints/Fractions; ValueError for floats."""
    arr = np.asarray(values, dtype=object)
    flat = arr.ravel()
    out = np.empty(flat.shape, dtype=object)
    for i, x in enumerate(flat):
        if isinstance(x, (float, np.floating)):
            raise ValueError("exact mode needs int or Fraction inputs, got a float")
        if not _is_rational(x):
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
        outside = (pat[None, :] & ~pat[:, None]) != 0          # marks not within pattern
        all_rational = all(_is_rational(x) for x in raw.ravel())
        prob = raw.astype(float)
        if not np.all(np.isfinite(prob)) or np.any(prob < 0):
            raise ValueError("landing weights must be finite and non-negative")
        if np.any(prob[:, outside] > 0):
            raise ValueError("marks must be a subset of the landing pattern")
        totals = prob.sum(axis=(1, 2))
        if np.any(totals <= 0):
            raise ValueError("every reel needs a positive total weight")
        integral = all_rational and all(Fraction(x).denominator == 1 for x in raw.ravel())
        if integral:                                             # stop counts
            self._num = np.vectorize(int, otypes=[object])(raw)
            self._den = [int(self._num[r].sum()) for r in range(self.n_reels)]
        elif all_rational:                                       # exact probabilities
            frac = _as_exact(raw)
            dens = [lcm(*(x.denominator for x in frac[r].ravel())) for r in range(self.n_reels)]
            if any(frac[r].sum() != 1 for r in range(self.n_reels)):
                raise ValueError("landing probabilities must sum to 1 on every reel")
            self._num = np.empty(raw.shape, dtype=object)
            for r in range(self.n_reels):
                for idx, x in np.ndenumerate(frac[r]):
                    self._num[(r,) + idx] = int(x * dens[r])
            self._den = dens
        else:                                                    # float probabilities
            self._check_unit_sum(totals)
            self._num, self._den = None, None
        self.prob = prob / totals[:, None, None]
        self.prob.setflags(write=False)

    @staticmethod
    def _check_unit_sum(totals):
        if np.any(np.abs(totals - 1.0) > 1e-12):
            raise ValueError("landing probabilities must sum to 1 on every reel "
                             f"(got sums {np.round(totals, 15).tolist()}); pass integer "
                             "counts to have them normalised")

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
        if any(not _is_rational(x) or Fraction(x).denominator != 1 for x in arr.ravel()):
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
        if np.any(~np.isfinite(pf)) or np.any(pf < 0) or np.any(pf > 1) \
                or np.any(qf < 0) or np.any(qf > 1):
            raise ValueError("cell probabilities must lie in [0, 1]")
        exact = all(_is_rational(x) for x in np.concatenate([p.ravel(), q.ravel()]))
        if exact:
            p, q = _as_exact(p), _as_exact(q)
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
            D, O, X = mats
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
                            O[held, new] += wt
            out.append((D, O, X))
        return out


# ----------------------------------------------------------------------------
# Kronecker-factored sweeps over the reels
# ----------------------------------------------------------------------------
class _Kron:
    """One respin step for one reel set, applied axis by axis.

    A vector over masks is viewed as an array of shape (P**(R-1-r), P, P**r) to
    expose reel r (P = 2**H); reel r's matrix multiplies that middle axis.
    """

    def __init__(self, mats, n_rows, n_reels, dtype):
        self.n_pat, self.n_reels, self.dtype = 1 << n_rows, n_reels, dtype
        self.D = [np.diag(D).copy() for D, _, _ in mats]
        self.O = [O for _, O, _ in mats]
        self.N = [np.diag(d) + O if dtype is float else _diag_plus(d, O)
                  for d, O in zip(self.D, self.O)]
        self.X = [X if np.any(X != 0) else None for _, _, X in mats]
        self.A = [N if X is None else N + X for N, X in zip(self.N, self.X)]
        self.has_marks = any(X is not None for X in self.X)

    def _view(self, v, r):
        # leading axes (a batch of vectors) are kept
        return v.reshape(v.shape[:-1] + (self.n_pat ** (self.n_reels - 1 - r), self.n_pat,
                                         self.n_pat ** r))

    def fwd(self, v, M, r):                     # v @ kron(..., M, ...)
        return _contract(self._view(v, r), M).reshape(v.shape)

    def bwd(self, g, M, r):                     # kron(..., M, ...) @ g
        return _contract(self._view(g, r), M.T).reshape(g.shape)

    def diag(self, v, r):
        return (self._view(v, r) * self.D[r][:, None]).reshape(v.shape)

    @cached_property
    def stay(self):
        """Probability (or weight) per mask that a spin adds nothing."""
        d = np.ones(1, dtype=self.dtype)
        for r in range(self.n_reels):          # reel r becomes the slowest axis so far
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
                src = _add(s, c)
                k = _add(None if k is None else self.fwd(k, self.A[r], r),
                         None if src is None else self.fwd(src, X, r))
            elif k is not None:
                k = self.fwd(k, self.A[r], r)
            c = _add(None if c is None else self.fwd(c, self.N[r], r),
                     None if s is None else self.fwd(s, self.O[r], r))
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
                s = _add(_add(None if s is None else self.diag(s, r),
                              None if c is None else self.bwd(c, self.O[r], r)), xk)
            c = _add(None if c is None else self.bwd(c, self.N[r], r), xk)
            k = None if k is None else self.bwd(k, self.A[r], r)
        return c if merged else s


def _contract(v3, M):
    """``out[..., j, :] = sum_i v3[..., i, :] M[i, j]`` (axis -2 of ``v3`` times ``M``).

    Float arrays go through one 2-D matrix product (BLAS) on a copy with the
    contracted axis last; object arrays use ``matmul`` directly.
    """
    if v3.dtype == object or M.dtype == object:
        return np.matmul(M.T, v3)
    t = np.ascontiguousarray(np.moveaxis(v3, -2, -1))
    out = (t.reshape(-1, M.shape[0]) @ M).reshape(t.shape)
    return np.moveaxis(out, -1, -2)


def _diag_plus(d, O):
    out = O.copy()
    for i, x in enumerate(d):
        out[i, i] = out[i, i] + x
    return out


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


# ----------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------
class LockItResult:
    """Outcome of a lock-it feature for a given start distribution.

    Attributes
    ----------
    final : ndarray, shape (2, 2**(H R))
        ``final[flag, mask]`` = probability the feature ends on ``mask`` with
        the mark flag ``flag`` [probability].
    spins_mean : float or Fraction
        Expected number of respins played.
    """

    def __init__(self, final, spins_mean, n_rows, n_reels):
        self.final, self.spins_mean = final, spins_mean
        self.n_rows, self.n_reels = n_rows, n_reels

    @property
    def _exact(self):
        return self.final.dtype == object

    @cached_property
    def mask_probabilities(self):
        """Probability of each final mask, flags summed, shape (2**(H R),)."""
        return self.final[0] + self.final[1]

    @property
    def total(self):
        """Total probability (1 up to rounding; exactly 1 in exact mode)."""
        return self.mask_probabilities.sum()

    @property
    def p_full(self):
        """Probability the screen ends full [probability]."""
        return self.mask_probabilities[-1]

    @property
    def p_flag(self):
        """Probability a mark is on screen at the end [probability]."""
        return self.final[1].sum()

    @cached_property
    def coverage(self):
        """Per-cell probability of being held at the end, shape (H, R) [probability]."""
        n_cells = self.n_rows * self.n_reels
        t = self.mask_probabilities.reshape((2,) * n_cells)   # axis 0 = highest cell
        out = np.empty(n_cells, dtype=t.dtype)
        for c in range(n_cells):
            ax = n_cells - 1 - c
            out[c] = np.moveaxis(t, ax, 0)[1].sum()
        return out.reshape(self.n_reels, self.n_rows).T

    @cached_property
    def cell_count_distribution(self):
        """Probability of ending with 0..H R held cells, shape (H R + 1,)."""
        n_cells = self.n_rows * self.n_reels
        pc = _popcount(n_cells)
        p = self.mask_probabilities
        if self._exact:
            out = np.array([Fraction(0)] * (n_cells + 1), dtype=object)
            for n in range(n_cells + 1):
                out[n] = p[pc == n].sum()
            return out
        return np.bincount(pc, weights=p, minlength=n_cells + 1)

    def _prize(self, f):
        f = np.asarray(f, dtype=object if self._exact else float)
        n_masks = self.final.shape[1]
        if f.shape == (n_masks,):
            f = np.stack([f, f])
        if f.shape != (2, n_masks):
            raise ValueError(f"prize must have shape ({n_masks},) or (2, {n_masks})")
        return f

    def expect(self, f):
        """``E[f(final mask, flag)]``; ``f`` of shape (2**(H R),) or (2, 2**(H R))."""
        return (self._prize(f) * self.final).sum()

    def moments(self, f, f2=None):
        """Mean and variance of the final prize.

        Parameters
        ----------
        f : array_like
            Per-state prize, or its conditional mean if the prize is random.
        f2 : array_like, optional
            Per-state conditional second moment; defaults to ``f**2``.
        """
        f = self._prize(f)
        f2 = f * f if f2 is None else self._prize(f2)
        m1 = (f * self.final).sum()
        return m1, (f2 * self.final).sum() - m1 * m1

    def distribution(self, f):
        """Exact distribution of a deterministic prize ``f``: ``(values, probabilities)``."""
        f = self._prize(f)
        vals, inv = np.unique(f.ravel(), return_inverse=True)
        if self._exact:
            probs = np.array([Fraction(0)] * len(vals), dtype=object)
            for i, p in zip(inv, self.final.ravel()):
                probs[i] += p
            return vals, probs
        return vals, np.bincount(inv, weights=self.final.ravel(), minlength=len(vals))


# ----------------------------------------------------------------------------
# the chain
# ----------------------------------------------------------------------------
class LockIt:
    """Hold & respin feature on an H x R grid.

    Parameters
    ----------
    landing : Landing
        Respin reel set used while no mark is on screen.
    spins : int
        Spins awarded (countdown) or the value the counter resets to (reset).
    rule : {"countdown", "reset"}
        Spin rule.
    after_mark : Landing, optional
        Reel set used once a mark is on screen; defaults to ``landing`` (its
        marks then change nothing).
    exact : bool
        Use exact rational arithmetic (see module docstring).

    Examples
    --------
    >>> land = Landing.from_cells([[Fraction(1, 3)]])       # a 1x1 grid
    >>> LockIt(land, 2, exact=True).run([1, 0]).p_full      # 1 - (2/3)**2
    Fraction(5, 9)
    """

    def __init__(self, landing, spins, rule="countdown", *, after_mark=None, exact=False):
        if not isinstance(landing, Landing):
            raise ValueError("landing must be a Landing")
        after_mark = landing if after_mark is None else after_mark
        if not isinstance(after_mark, Landing):
            raise ValueError("after_mark must be a Landing")
        if (after_mark.n_rows, after_mark.n_reels) != (landing.n_rows, landing.n_reels):
            raise ValueError("landing and after_mark must have the same grid")
        if int(spins) != spins or spins < 1:
            raise ValueError(f"spins must be a positive integer, got {spins!r}")
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
        if exact and not (landing.is_exact and after_mark.is_exact):
            raise ValueError("exact mode needs integer counts or rational probabilities")
        self.landing, self.after_mark = landing, after_mark
        self.spins, self.rule, self.exact = int(spins), rule, bool(exact)
        self.n_rows, self.n_reels = landing.n_rows, landing.n_reels
        self.n_cells = self.n_rows * self.n_reels
        if self.n_cells > 24:
            raise ValueError("grid too large: n_rows * n_reels must be <= 24")
        self.n_masks = 1 << self.n_cells
        self.full_mask = self.n_masks - 1

    # -- operators -------------------------------------------------------------
    @cached_property
    def _ops(self):
        """(operator before a mark, operator after a mark, per-spin denominator)."""
        dtype = object if self.exact else float
        if self.exact:
            scale = [lcm(a, b) for a, b in zip(self.landing._den, self.after_mark._den)]
            den = 1
            for s in scale:
                den *= s
        else:
            scale, den = None, 1
        before = self.landing.reel_matrices(self.exact, scale)
        # once a mark is on screen further marks change nothing: fold X into O
        after = [(D, O + X, X * 0) for D, O, X in self.after_mark.reel_matrices(self.exact, scale)]
        return (_Kron(before, self.n_rows, self.n_reels, dtype),
                _Kron(after, self.n_rows, self.n_reels, dtype), den)

    def _initial(self, initial):
        """Validate a start distribution; return (integer numerators or floats, denominator)."""
        arr = np.asarray(initial, dtype=object)
        if arr.shape == (self.n_masks,):
            arr = np.stack([arr, np.zeros_like(arr)])
        if arr.shape != (2, self.n_masks):
            raise ValueError(f"initial must have shape ({self.n_masks},) or (2, {self.n_masks})")
        as_float = arr.astype(float)
        if not np.all(np.isfinite(as_float)) or np.any(as_float < 0):
            raise ValueError("initial probabilities must be finite and non-negative")
        if not self.exact:
            if abs(as_float.sum() - 1.0) > 1e-12:
                raise ValueError(f"initial probabilities must sum to 1, got {as_float.sum()!r}")
            return as_float, 1
        frac = _as_exact(arr)
        if frac.sum() != 1:
            raise ValueError(f"initial probabilities must sum to 1, got {frac.sum()}")
        den = lcm(*(x.denominator for x in frac.ravel()))
        return np.vectorize(lambda x: int(x * den), otypes=[object])(frac), den

    def _zeros(self, *shape):
        if self.exact:
            out = np.empty(shape + (self.n_masks,), dtype=object)
            out[...] = 0
            return out
        return np.zeros(shape + (self.n_masks,))

    # -- forward -----------------------------------------------------------------
    def _step(self, dist):
        """One respin applied to a (2, 2**(H R)) array.

        In exact mode ``dist`` holds integer numerators; the result is over the
        old denominator times the per-spin denominator.
        """
        op0, op1, _ = self._ops
        _, unmarked, marked = op0.forward(dist[0], split_stay=False)
        _, plain, _ = op1.forward(dist[1], split_stay=False)
        out = self._zeros(2) if dist.ndim == 2 else np.zeros_like(dist)
        out[0] = unmarked
        out[1] = _add(marked, plain)
        return out

    def run_batch(self, initial):
        """Countdown feature from several start distributions at once (float mode).

        Parameters
        ----------
        initial : array_like, shape (2, B, 2**(H R))
            ``B`` start distributions over (flag, mask) [probability]; they
            need not be normalised (the chain is linear).

        Returns
        -------
        ndarray, shape (2, B, 2**(H R))
            Final (flag, mask) weights of each start.
        """
        if self.exact or self.rule != "countdown":
            raise ValueError("run_batch needs float mode and the countdown rule")
        v = np.array(initial, dtype=float)
        if v.ndim != 3 or v.shape[0] != 2 or v.shape[2] != self.n_masks:
            raise ValueError(f"initial must have shape (2, B, {self.n_masks})")
        for _ in range(self.spins):
            v = self._step(v)
        return v

    def run(self, initial):
        """Play the feature from a start distribution.

        Parameters
        ----------
        initial : array_like, shape (2**(H R),) or (2, 2**(H R))
            Start distribution over masks (flag 0), or over (flag, mask)
            [probability]; e.g. the trigger screen from the base game.

        Returns
        -------
        LockItResult
        """
        v, den = self._initial(initial)
        if self.rule == "countdown":
            final, spins_num, den = self._run_countdown(v, den)
        else:
            final, spins_num, den = self._run_reset(v, den)
        if self.exact:
            final = np.vectorize(lambda x: Fraction(x, den), otypes=[object])(final)
            spins = Fraction(spins_num, den)
        else:
            spins = float(spins_num)
        return LockItResult(final, spins, self.n_rows, self.n_reels)

    def _run_countdown(self, v, den):
        _, _, spin_den = self._ops
        spins = 0                                  # numerator over ``den``
        for _ in range(self.spins):
            spins += v.sum() - v[:, self.full_mask].sum()
            v = self._step(v)
            den *= spin_den
            spins *= spin_den
        return v, spins, den

    def _run_reset(self, v, den):
        op0, op1, spin_den = self._ops
        n = self.spins
        live = self._zeros(2, n)                 # live[flag, k-1, mask], k spins left
        final = self._zeros(2)
        final[:, self.full_mask] = v[:, self.full_mask]
        v[:, self.full_mask] = 0
        live[:, n - 1] = v
        spins = 0
        for _ in range(n * (self.n_cells + 1) + 1):
            if not np.any(live != 0):
                break
            spins += live.sum()
            nxt = self._zeros(2, n)
            final = final * spin_den
            den *= spin_den
            spins *= spin_den
            for flag, op in ((0, op0), (1, op1)):
                stay = op.stay
                final[flag] += stay * live[flag, 0]
                nxt[flag, :n - 1] = stay * live[flag, 1:]
                _, moved, marked = op.forward(live[flag].sum(axis=0), split_stay=True)
                if moved is not None:
                    nxt[flag, n - 1] += moved
                if marked is not None:
                    nxt[1, n - 1] += marked
            final[:, self.full_mask] += nxt[:, :, self.full_mask].sum(axis=1)
            nxt[:, :, self.full_mask] = 0
            live = nxt
        else:
            raise RuntimeError("reset chain did not absorb within its step bound")
        return final, spins, den

    # -- backward ----------------------------------------------------------------
    def values(self, f, all_spins=False):
        """Value function ``V(flag, mask) = E[f(final) | start state]`` for every start.

        Parameters
        ----------
        f : array_like, shape (2**(H R),) or (2, 2**(H R))
            Prize of each final state [x total bet].
        all_spins : bool
            If True return values for 0..``spins`` spins left (countdown) or on
            the counter (reset), shape (spins + 1, 2, 2**(H R)); index 0 is ``f``.

        Returns
        -------
        ndarray, shape (2, 2**(H R)) or (spins + 1, 2, 2**(H R))
            Values with ``spins`` spins to play (unless ``all_spins``).
        """
        dtype = object if self.exact else float
        f = np.asarray(f, dtype=dtype)
        if f.shape == (self.n_masks,):
            f = np.stack([f, f])
        if f.shape != (2, self.n_masks):
            raise ValueError(f"f must have shape ({self.n_masks},) or (2, {self.n_masks})")
        if self.exact:
            f = _as_exact(f)
        op0, op1, spin_den = self._ops
        norm = (lambda x: x * Fraction(1, spin_den)) if self.exact else (lambda x: x)
        out = [f]
        if self.rule == "countdown":
            for _ in range(self.spins):
                V = out[-1]
                w0 = op0.backward(None, V[0], V[1], merged=True)
                w1 = op1.backward(None, V[1], None, merged=True)
                out.append(np.stack([norm(w0), norm(w1)]))
        else:
            n = self.spins
            V = np.stack([f] * (n + 1))                  # V[k, flag, mask]
            for _ in range(n * (self.n_cells + 1) + 1):
                m0 = op0.backward(None, V[n, 0], V[n, 1])
                m1 = op1.backward(None, V[n, 1], V[n, 1])
                new = V.copy()
                for flag, op, moved in ((0, op0, m0), (1, op1, m1)):
                    new[1:, flag] = norm(op.stay * V[:-1, flag] + moved)
                new[:, :, self.full_mask] = f[:, self.full_mask]
                if np.array_equal(new, V):
                    break
                V = new
            out = list(V)
        return np.stack(out) if all_spins else out[-1]

    def __repr__(self):
        return (f"LockIt({self.n_rows}x{self.n_reels}, spins={self.spins}, "
                f"rule={self.rule!r}, exact={self.exact})")


# ----------------------------------------------------------------------------
# start distributions
# ----------------------------------------------------------------------------
def screen_distribution(landing, exact=False):
    """Distribution of (flag, mask) of one independent spin of every reel.

    Parameters
    ----------
    landing : Landing
        Per-reel window patterns of the base-game reel set.
    exact : bool
        Return Fractions.

    Returns
    -------
    ndarray, shape (2, 2**(H R))
        ``[flag, mask]`` with flag 1 iff some landed symbol is marked [probability].
    """
    chain = LockIt(landing, 1, exact=exact)
    start = np.zeros((2, chain.n_masks), dtype=object)
    start[...] = 0
    start[0, 0] = 1
    if not exact:
        start = start.astype(float)
    return chain.run(start).final


def trigger_distribution(landing, min_cells, exact=False):
    """Trigger probability and start distribution of a feature triggered by
    ``min_cells`` or more feature symbols in one base-game spin.

    Returns
    -------
    p_trigger : float or Fraction
        Probability that a spin triggers [probability].
    initial : ndarray, shape (2, 2**(H R))
        Screen distribution conditional on the trigger [probability].
    """
    screen = screen_distribution(landing, exact=exact)
    pc = _popcount(landing.n_rows * landing.n_reels)
    screen[:, pc < min_cells] = 0
    p = screen.sum()
    if p == 0:
        raise ValueError(f"no screen has {min_cells} or more feature symbols")
    return p, screen / p
