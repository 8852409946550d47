"""Lock-it (hold & respin) features as an absorbing Markov chain on occupancy masks.

During the feature every landed feature symbol is held; the remaining cells are
respun until the spins run out or the screen is full, and the final screen is
paid (e.g. by :mod:`slotmath.features.shapes`).  The state is the occupancy ``mask``
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

import numpy as np

from slotmath.features.landing import (  # noqa: F401  (re-exported)
    Kron,
    Landing,
    add_or_none,
    as_exact,
    contract,
    diag_plus,
    is_rational,
    popcount,
    window_counts,
)

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
        t = self.mask_probabilities.reshape((2,) * n_cells)  # axis 0 = highest cell
        out = np.empty(n_cells, dtype=t.dtype)
        for c in range(n_cells):
            ax = n_cells - 1 - c
            out[c] = np.moveaxis(t, ax, 0)[1].sum()
        return out.reshape(self.n_reels, self.n_rows).T

    @cached_property
    def cell_count_distribution(self):
        """Probability of ending with 0..H R held cells, shape (H R + 1,)."""
        n_cells = self.n_rows * self.n_reels
        pc = popcount(n_cells)
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
            for i, p in zip(inv, self.final.ravel(), strict=True):
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
            scale = [lcm(a, b) for a, b in zip(self.landing._den, self.after_mark._den, strict=True)]
            den = 1
            for s in scale:
                den *= s
        else:
            scale, den = None, 1
        before = self.landing.reel_matrices(self.exact, scale)
        # once a mark is on screen further marks change nothing: fold X into O
        after = [
            (D, no_mark + X, X * 0) for D, no_mark, X in self.after_mark.reel_matrices(self.exact, scale)
        ]
        return (
            Kron(before, self.n_rows, self.n_reels, dtype),
            Kron(after, self.n_rows, self.n_reels, dtype),
            den,
        )

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
        frac = as_exact(arr)
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
        out[1] = add_or_none(marked, plain)
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
        spins = 0  # numerator over ``den``
        for _ in range(self.spins):
            spins += v.sum() - v[:, self.full_mask].sum()
            v = self._step(v)
            den *= spin_den
            spins *= spin_den
        return v, spins, den

    def _run_reset(self, v, den):
        op0, op1, spin_den = self._ops
        n = self.spins
        live = self._zeros(2, n)  # live[flag, k-1, mask], k spins left
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
                nxt[flag, : n - 1] = stay * live[flag, 1:]
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
            f = as_exact(f)
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
            V = np.stack([f] * (n + 1))  # V[k, flag, mask]
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
        return (
            f"LockIt({self.n_rows}x{self.n_reels}, spins={self.spins}, "
            f"rule={self.rule!r}, exact={self.exact})"
        )


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
    pc = popcount(landing.n_rows * landing.n_reels)
    screen[:, pc < min_cells] = 0
    p = screen.sum()
    if p == 0:
        raise ValueError(f"no screen has {min_cells} or more feature symbols")
    return p, screen / p
