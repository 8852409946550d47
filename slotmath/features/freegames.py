"""Free games with retriggers.

Each free spin independently yields a win ``Y`` [integer win units] and a
number ``K`` of extra spins (a retrigger), with a joint distribution
``p[y, k]`` taken from the free-game cycle.  Starting with ``n`` spins, the
feature pays ``multiplier * sum(Y)`` over all spins played.  An optional cap
limits the total number of spins played (awards beyond it are forfeited).

Methods
-------
* Moments, uncapped: spins form a branching process, so the feature from
  ``n`` spins is the sum of ``n`` independent one-spin features and
  ``E[T_n] = n a``, ``E[T_n^2] = n b + n (n - 1) a^2`` with
  ``a = E[Y] / (1 - E[K])`` and
  ``b = (E[Y^2] + 2 a E[Y K] + a^2 E[K (K - 1)]) / (1 - E[K])``.
  Requires ``E[K] < 1``; the expected number of spins is ``n / (1 - E[K])``
  (``n / (1 - n p)`` when ``p`` is the probability of re-awarding ``n``).
* Moments, capped: the recursion ``m1(l) = E[Y] + E[m1(l - 1 + K')]``,
  ``m2(l) = E[Y^2] + 2 E[Y m1(l - 1 + K')] + E[m2(l - 1 + K')]`` over the
  state (spins left ``l``, spins still awardable ``b``), ``K' = min(K, b)``.
* Distribution: forward DP over spins played on (spins left, accumulated
  win), the win axis convolved with the per-spin win distribution.  Finite
  when capped; uncapped it stops once the unfinished mass is below ``tol``
  and reports that mass.

All functions work in float64 or, with int/Fraction inputs and
``exact=True``, in exact rational arithmetic.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property, lru_cache
from math import lcm
from numbers import Rational

import numpy as np

__all__ = [
    "per_spin_table",
    "count_marginals",
    "retrigger_table",
    "uncapped_moments",
    "capped_moments",
    "win_distribution",
    "series_distribution",
    "capped_work",
    "capped_fourier_distribution",
    "fourier_distribution",
    "FreeGames",
    "award_probabilities",
    "capped_probabilities",
    "grid_size",
    "ALIAS_BOUND",
    "MAX_GRID",
]


#: Bound on the award mass folded back by the FFT grid [probability].
ALIAS_BOUND = 1e-12
#: Largest FFT grid of the award law [points].
MAX_GRID = 1 << 25
#: Steps per second on one core of the capped award law's forward DP over the
#: win range and of its recursion on an FFT grid
#: (:func:`~slotmath.features.freegames.capped_work`; measured on a 243-ways
#: game with max_games 100: 1.2e10 DP steps in 30 s, 1.1e9 grid steps in 7.5 s).
DP_STEPS_PER_SECOND = 4e8
GRID_STEPS_PER_SECOND = 1.4e8
#: the capped award law runs on the win range (no wrapped mass) up to this long [s]
DP_SECONDS = 2.0
#: a capped award law estimated above this is refused [s]
MAX_AWARD_SECONDS = 300


def _is_rational(x):
    return isinstance(x, (Rational, np.integer)) and not isinstance(x, (bool, np.bool_))


def per_spin_table(table, exact=False):
    """Validate and normalise a per-spin joint table of (win, extra spins).

    Parameters
    ----------
    table : array_like, shape (n_wins, n_extra)
        ``table[y, k]`` = weight of a free spin winning ``y`` units and awarding
        ``k`` extra spins.  Integers are stop counts (normalised by their total);
        floats or Fractions are probabilities and must sum to 1.
    exact : bool
        Return Fractions (needs int or Fraction entries).

    Returns
    -------
    ndarray, shape (n_wins, n_extra)
        Probabilities [probability], float64 or Fraction objects.
    """
    raw = np.asarray(table, dtype=object)
    if raw.ndim != 2 or raw.size == 0:
        raise ValueError("table must be a non-empty 2-D array indexed [win, extra spins]")
    as_float = raw.astype(float)
    if not np.all(np.isfinite(as_float)) or np.any(as_float < 0):
        raise ValueError("table entries must be finite and non-negative")
    if as_float.sum() <= 0:
        raise ValueError("table has zero total weight")
    rational = all(_is_rational(x) for x in raw.ravel())
    counts = rational and all(Fraction(x).denominator == 1 for x in raw.ravel())
    if exact:
        if not rational:
            raise ValueError("exact mode needs int or Fraction table entries")
        frac = np.vectorize(Fraction, otypes=[object])(raw)
        total = frac.sum()
        if not counts and total != 1:
            raise ValueError(f"probabilities must sum to 1, got {total}")
        return frac / total
    if counts:
        return as_float / as_float.sum()
    if abs(as_float.sum() - 1.0) > 1e-12:
        raise ValueError(
            f"probabilities must sum to 1, got {as_float.sum()!r}; "
            "pass integer counts to have them normalised"
        )
    return as_float


def retrigger_table(joint, awards):
    """Per-spin (win, extra spins) table from a (win, scatter count) table.

    Parameters
    ----------
    joint : array_like, shape (n_wins, n_scatter_counts)
        ``joint[y, s]`` = weight of winning ``y`` units with ``s`` scatters.
    awards : mapping or sequence
        Extra spins for ``s`` scatters, e.g. ``{3: 10, 4: 15, 5: 25}``;
        unlisted counts award nothing.

    Returns
    -------
    ndarray, shape (n_wins, max_award + 1)
        ``table[y, k]`` with the same dtype/weights as ``joint``.
    """
    joint = np.asarray(joint)
    if joint.ndim != 2:
        raise ValueError("joint must be 2-D, indexed [win, scatter count]")
    if not isinstance(awards, dict):
        awards = dict(enumerate(awards))
    extra = [int(awards.get(s, 0)) for s in range(joint.shape[1])]
    if any(k < 0 for k in extra):
        raise ValueError("awards must be non-negative")
    out = np.zeros((joint.shape[0], max(extra) + 1), dtype=joint.dtype)
    for s, k in enumerate(extra):
        out[:, k] = out[:, k] + joint[:, s]
    return out


def _marginals(p):
    y = np.arange(p.shape[0])
    k = np.arange(p.shape[1])
    pk = p.sum(axis=0)  # P(K = k)
    yk = (y[:, None] * p).sum(axis=0)  # E[Y; K = k]
    ey = yk.sum()
    ey2 = ((y * y)[:, None] * p).sum()
    return k, pk, yk, ey, ey2


def count_marginals(wins, extra, counts):
    """Exact per-spin marginals from sparse integer counts.

    Parameters
    ----------
    wins, extra : sequence of int
        Win [win units] and extra spins of each entry.
    counts : sequence of int
        Its weight (stop combinations).

    Returns
    -------
    tuple
        ``(k, P(K = k), E[Y; K = k], E[Y], E[Y^2])`` as Fractions (object
        arrays over ``k = 0..max extra``), the form the moment functions take
        as ``marginals`` instead of a dense table.
    """
    total = sum(counts)
    top = max(extra)
    pk = [0] * (top + 1)
    yk = [0] * (top + 1)
    s1 = s2 = 0
    for y, kk, c in zip(wins, extra, counts, strict=True):
        pk[kk] += c
        yk[kk] += y * c
        s1 += y * c
        s2 += y * y * c
    frac = lambda v: np.array([Fraction(x, total) for x in v], dtype=object)  # noqa: E731
    return np.arange(top + 1), frac(pk), frac(yk), Fraction(s1, total), Fraction(s2, total)


def uncapped_moments(p, spins, marginals=None):
    """Exact ``(E[T], E[T^2], E[S], E[S^2])`` without a cap.

    ``T`` = total win [win units] and ``S`` = spins played, starting from
    ``spins`` spins, for a normalised per-spin table ``p`` (see module notes)
    or its ``marginals`` (:func:`count_marginals`; ``p`` is then unused).
    Raises ValueError unless ``E[K] < 1``.
    """
    k, pk, yk, ey, ey2 = marginals or _marginals(p)
    ek = (k * pk).sum()
    if ek >= 1:
        raise ValueError(
            f"E[extra spins per spin] = {float(ek):.6g} >= 1: the feature would not end (give max_spins)"
        )
    ekk = (k * (k - 1) * pk).sum()
    eyk = (k * yk).sum()
    n = spins
    a = ey / (1 - ek)
    b = (ey2 + 2 * a * eyk + a * a * ekk) / (1 - ek)
    sa = 1 / (1 - ek)
    sb = (1 + 2 * sa * ek + sa * sa * ekk) / (1 - ek)
    return n * a, n * b + n * (n - 1) * a * a, n * sa, n * sb + n * (n - 1) * sa * sa


def capped_moments(p, spins, cap, marginals=None):
    """Exact ``(E[T], E[T^2], E[S], E[S^2])`` when at most ``cap`` spins are played.

    Backward recursion over (spins left ``l``, spins still awardable ``b``),
    processed by ``l + b`` (which drops by one per spin); cost ``O(cap^2 K)``.
    ``marginals`` as in :func:`uncapped_moments`.
    """
    k, pk, yk, ey, ey2 = marginals or _marginals(p)
    if pk.dtype == object and all(isinstance(v, Rational) for v in (*pk, *yk, ey, ey2)):
        return _capped_moments_scaled(k, pk, yk, ey, ey2, spins, cap)
    zero = pk[0] * 0
    dtype = pk.dtype
    # m[s][l] for states with l + b = s; only the previous s is kept.
    m1 = np.array([zero], dtype=dtype)
    m2, n1, n2 = m1.copy(), m1.copy(), m1.copy()
    start = min(spins, cap)
    for s in range(1, cap + 1):
        left = np.arange(1, s + 1)
        new = [np.concatenate([[zero], np.full(s, zero, dtype=dtype)]) for _ in range(4)]
        a1, a2, b1, b2 = (x[1:] for x in new)
        a1 += ey
        a2 += ey2
        b1 += 1
        b2 += 1
        for kk in range(len(k)):
            if pk[kk] == 0:
                continue
            nxt = left - 1 + np.minimum(kk, s - left)
            a1 += pk[kk] * m1[nxt]
            a2 += 2 * yk[kk] * m1[nxt] + pk[kk] * m2[nxt]
            b1 += pk[kk] * n1[nxt]
            b2 += pk[kk] * (2 * n1[nxt] + n2[nxt])
        m1, m2, n1, n2 = new
    return m1[start], m2[start], n1[start], n2[start]


#: (retrigger counts x cap**3 x denominator bits) per second of the exact
#: capped moments on one core (measured: 2 x 1001**3 x 22 in 6.3 s)
MOMENT_STEPS_PER_SECOND = 5e9
#: exact capped moments estimated above this are refused [s]
MAX_MOMENT_SECONDS = 300


def _capped_moments_scaled(k, pk, yk, ey, ey2, spins, cap):
    """:func:`capped_moments` on rationals, in integers: with ``D`` the
    common denominator of the marginals, the moments of level ``s`` (``l + b
    = s``) times ``D**s`` are integers, and each step multiplies them by the
    marginals' numerators (no gcd per operation: a Fraction's would grow
    with the level and cost ``cap**3`` and more).  The last level holds
    every start at once, so awards of different games share one run."""
    den = lcm(*(Fraction(v).denominator for v in (*pk, *yk, ey, ey2)))
    P = tuple(int(Fraction(v) * den) for v in pk)
    Y2 = tuple(2 * int(Fraction(v) * den) for v in yk)
    levels, scale = _scaled_levels(P, Y2, int(Fraction(ey) * den), int(Fraction(ey2) * den), den, cap)
    start = min(spins, cap)
    return tuple(Fraction(x[start], scale) for x in levels)


@lru_cache(maxsize=8)
def _scaled_levels(P, Y2, EY, EY2, den, cap):
    """The last level of :func:`_capped_moments_scaled` (``(m1, m2, n1, n2)``
    by games left, each times ``den**cap``) and ``den**cap``."""
    used = [kk for kk in range(len(P)) if P[kk] != 0]
    seconds = len(used) * cap**3 * den.bit_length() / MOMENT_STEPS_PER_SECOND
    if seconds > MAX_MOMENT_SECONDS:
        from slotmath.engine.limits import EngineTooLarge

        raise EngineTooLarge(
            f"the exact moments of at most {cap:,} games would take about {seconds:,.0f} s on one core "
            f"({len(used)} retrigger counts x {cap:,}**3 levels x {den.bit_length()}-bit denominators; "
            f"above the bound {MAX_MOMENT_SECONDS} s); give a smaller max_games"
        )
    m1 = m2 = n1 = n2 = [0]
    scale = 1  # den ** (s - 1)
    for s in range(1, cap + 1):
        a1, a2, b1, b2 = ([0] * (s + 1) for _ in range(4))
        one = scale * den
        for left in range(1, s + 1):
            x1, x2, y1, y2 = EY * scale, EY2 * scale, one, one
            for kk in used:
                nxt = left - 1 + min(kk, s - left)
                pk_, f1, f2, g1, g2 = P[kk], m1[nxt], m2[nxt], n1[nxt], n2[nxt]
                x1 += pk_ * f1
                x2 += Y2[kk] * f1 + pk_ * f2
                y1 += pk_ * g1
                y2 += pk_ * (2 * g1 + g2)
            a1[left], a2[left], b1[left], b2[left] = x1, x2, y1, y2
        m1, m2, n1, n2 = a1, a2, b1, b2
        scale = one
    return (m1, m2, n1, n2), scale


def win_distribution(p, spins, cap=None, tol=1e-15, max_steps=100_000):
    """Distribution of the total win [win units] by forward DP over spins played.

    Parameters
    ----------
    p : ndarray, shape (n_wins, n_extra)
        Normalised per-spin table (float or Fraction objects).
    spins : int
        Spins awarded at the start.
    cap : int, optional
        Maximum number of spins played in total.
    tol : float
        Stop once the mass of unfinished features is <= ``tol`` (exact capped
        runs always go to the end).
    max_steps : int
        Safety bound on the number of spins simulated.

    Returns
    -------
    probs : ndarray
        ``probs[w]`` = P(total win = w units) [probability].
    leftover : float or Fraction
        Mass of features still running when the DP stopped, plus (float only)
        the mass of negligible long-running paths pruned on the way (each step
        prunes less than ``tol / 1000``).

    Notes
    -----
    Each step costs ``O(L * W * min(nnz(p), log W))`` for ``L`` live spin
    counts and ``W`` win units.  Uncapped float problems with wide supports
    are better served by :func:`series_distribution`.
    """
    exact = p.dtype == object
    zero = Fraction(0) if exact else 0.0
    y_max = p.shape[0] - 1
    by_k = {}
    for y, kk in zip(*np.nonzero(p != 0), strict=True):
        by_k.setdefault(int(kk), []).append((int(y), p[y, kk]))
    k_hi = max(by_k)
    start = spins if cap is None else min(spins, cap)
    live = np.full((start + 1, 1), zero, dtype=p.dtype)  # live[l, w], l >= 1 used
    live[start, 0] = 1
    final = np.full(1, zero, dtype=p.dtype)
    pruned = zero
    for t in range(max_steps):
        mass = live[1:].sum()
        if mass == 0 or ((cap is None or not exact) and mass <= tol):
            return final, mass + pruned
        n_left, width = live.shape
        # after this spin at most ``cap - t - 1`` spins can still be played
        top = n_left - 2 + k_hi if cap is None else min(n_left - 2 + k_hi, cap - t - 1)
        new = np.full((top + 1, width + y_max), zero, dtype=p.dtype)
        for kk, terms in by_k.items():
            if not exact and len(terms) > 8:
                conv = np.zeros((n_left - 1, width + y_max))
                conv[:, : width + y_max] = _convolve_rows(live[1:], p[:, kk])
            else:
                conv = np.full((n_left - 1, width + y_max), zero, dtype=p.dtype)
                for y, w in terms:
                    conv[:, y : y + width] += w * live[1:]
            # spins left l -> l - 1 + kk, clipped at ``top`` (the cap)
            n_free = max(0, min(n_left - 1, top - kk + 1))
            new[kk : kk + n_free] += conv[:n_free]
            if n_free < n_left - 1:
                new[top] += conv[n_free:].sum(axis=0)
        if new.shape[1] > final.shape[0]:
            final = np.concatenate([final, np.full(new.shape[1] - final.shape[0], zero, dtype=p.dtype)])
        final += new[0]
        new[0] = zero
        if not exact:
            # prune the longest-running tails (high spins-left rows) while they hold
            # less than tol / 1000 in total; their mass is reported in ``leftover``
            tail = np.cumsum(new.sum(axis=1)[::-1])
            n_drop = min(int(np.searchsorted(tail, tol * 1e-3, side="right")), len(new) - 1)
            if n_drop:
                pruned += tail[n_drop - 1]
                new = new[: len(new) - n_drop]
        live = new
    raise RuntimeError(f"free games did not finish within {max_steps} spins")


def _convolve_rows(a, g):
    """Full convolution of every row of ``a`` with ``g`` (float, FFT), negatives clipped."""
    from scipy.signal import fftconvolve

    out = fftconvolve(a, g[None, :], axes=1)
    return np.maximum(out, 0.0)


def _series_mul(a, b, n):
    """Product of two power series truncated to ``n`` coefficients."""
    from scipy.signal import fftconvolve

    a, b = a[:n], b[:n]
    out = np.convolve(a, b)[:n] if min(len(a), len(b)) < 256 else fftconvolve(a, b)[:n]
    return np.maximum(out, 0.0)


def series_distribution(p, spins, max_win, tol=1e-15):
    """Distribution of the total win, uncapped, by the branching-process fixed point.

    Uncapped, the feature from ``n`` spins is the sum of ``n`` independent
    one-spin features, whose win probability generating function solves
    ``G(z) = sum_k P_k(z) G(z)^k`` with ``P_k(z) = sum_y p[y, k] z^y``.
    Iterating from ``G = 0`` gives after ``j`` rounds the law restricted to
    retrigger trees of depth < ``j``, missing at most ``E[K]^j`` of the mass;
    every series is truncated at degree ``max_win`` (exact for the kept
    coefficients, since wins are non-negative).  Float only.

    Parameters
    ----------
    p : ndarray of float, shape (n_wins, n_extra)
        Normalised per-spin table.
    spins : int
        Spins awarded at the start.
    max_win : int
        Largest total win kept [win units].
    tol : float
        Bound on the mass lost to truncating the retrigger depth.

    Returns
    -------
    probs : ndarray, shape (max_win + 1,)
        ``P(total win = w)`` [probability]; absolute error about ``1e-16 * depth``.
    leftover : float
        ``1 - probs.sum()``: mass above ``max_win`` plus at most ``tol``.
    """
    p = np.asarray(p, dtype=float)
    n = int(max_win) + 1
    k_vals = np.arange(p.shape[1])
    ek = (k_vals * p.sum(axis=0)).sum()
    if ek >= 1:
        raise ValueError(f"E[extra spins per spin] = {ek:.6g} >= 1: the feature would not end")
    cols = np.zeros((p.shape[1], n))
    m = min(n, p.shape[0])
    cols[:, :m] = p[:m].T
    rounds = 1 if ek == 0 else int(np.ceil(np.log(tol) / np.log(ek))) + 1
    G = np.zeros(n)
    for _ in range(rounds):
        acc = cols[-1].copy()
        for k in range(p.shape[1] - 2, -1, -1):  # Horner in G
            acc = _series_mul(acc, G, n) + cols[k]
        G = acc
    out = np.zeros(n)
    out[0] = 1.0
    base, e = G, int(spins)
    while e:  # G ** spins by squaring
        if e & 1:
            out = _series_mul(out, base, n)
        e >>= 1
        if e:
            base = _series_mul(base, base, n)
    return out, max(0.0, 1.0 - out.sum())


class FreeGames:
    """A free-games feature with retriggers.

    Parameters
    ----------
    table : array_like, shape (n_wins, n_extra)
        Per free spin, joint weights of (win [integer win units], extra spins);
        see :func:`per_spin_table` and :func:`retrigger_table`.
    spins : int
        Free spins awarded at the start.
    multiplier : int, float or Fraction
        Factor applied to every free-spin win.
    max_spins : int, optional
        Cap on the total number of spins played.
    exact : bool
        Exact rational arithmetic.

    Examples
    --------
    "3+ scatters award 10 free spins at x2, retriggerable on the same reels":

    >>> table = retrigger_table(joint, {3: 10, 4: 10, 5: 10})   # doctest: +SKIP
    >>> FreeGames(table, spins=10, multiplier=2).mean            # doctest: +SKIP
    """

    @classmethod
    def from_counts(cls, wins, extra, counts, spins, multiplier=1, *, max_spins=None, exact=True):
        """From sparse integer counts of (win [win units], extra spins): moments
        exact (:func:`count_marginals`, no dense table of Fractions), the
        distribution from the dense float table."""
        table = np.zeros((max(wins) + 1, max(extra) + 1))
        np.add.at(table, (np.asarray(wins), np.asarray(extra)), np.asarray(counts, dtype=float))
        out = cls(table / table.sum(), spins, float(multiplier), max_spins=max_spins)
        if exact:
            out.multiplier = Fraction(multiplier)
            out._marg = count_marginals(wins, extra, counts)
        return out

    def __init__(self, table, spins, multiplier=1, *, max_spins=None, exact=False):
        if int(spins) != spins or spins < 1:
            raise ValueError(f"spins must be a positive integer, got {spins!r}")
        if max_spins is not None and (int(max_spins) != max_spins or max_spins < 1):
            raise ValueError(f"max_spins must be a positive integer, got {max_spins!r}")
        if exact and not _is_rational(multiplier):
            raise ValueError("exact mode needs an int or Fraction multiplier")
        if not exact and not np.isfinite(float(multiplier)):
            raise ValueError("multiplier must be finite")
        self.p = per_spin_table(table, exact=exact)
        self.p.setflags(write=False)
        self.spins = int(spins)
        self.multiplier = Fraction(multiplier) if exact else float(multiplier)
        self.max_spins = None if max_spins is None else int(max_spins)
        self.exact = bool(exact)
        self._marg = None

    @cached_property
    def retrigger_mean(self):
        """Expected extra spins awarded per free spin."""
        if self._marg is not None:
            return (self._marg[0] * self._marg[1]).sum()
        return (np.arange(self.p.shape[1]) * self.p.sum(axis=0)).sum()

    @cached_property
    def _moments(self):
        if self.max_spins is None:
            return uncapped_moments(self.p, self.spins, self._marg)
        return capped_moments(self.p, self.spins, self.max_spins, self._marg)

    @property
    def mean(self):
        """Expected total feature win [multiplier x win units]."""
        return self.multiplier * self._moments[0]

    @property
    def second_moment(self):
        """``E[total win^2]`` [(multiplier x win units)^2]."""
        return self.multiplier**2 * self._moments[1]

    @property
    def variance(self):
        """Variance of the total feature win."""
        return self.second_moment - self.mean**2

    @property
    def spins_mean(self):
        """Expected number of free spins played."""
        return self._moments[2]

    @property
    def spins_variance(self):
        """Variance of the number of free spins played."""
        return self._moments[3] - self._moments[2] ** 2

    def distribution(self, tol=1e-12, max_win=None, max_steps=100_000):
        """Distribution of the total win.

        Exact features use the forward DP (:func:`win_distribution`); capped
        float features the DP while cheap, else the same recursion on an FFT
        grid (:func:`capped_probabilities`, which the round's award law uses
        too); uncapped float features :func:`series_distribution`, doubling
        ``max_win`` (if not given) until the mass beyond it is below ``tol``.

        Returns
        -------
        values : ndarray
            Total win [multiplier x win units] for each support point.
        probs : ndarray
            Probabilities [probability].
        leftover : float or Fraction
            Probability mass not in ``probs`` (0 for exact capped runs; on
            the FFT grid of a capped float feature, ``1 - sum(probs)``: the
            mass the grid wraps stays in ``probs``, below
            :data:`ALIAS_BOUND`, and ``tol``, ``max_steps`` are not read).
        """
        if self.exact:
            probs, leftover = win_distribution(self.p, self.spins, self.max_spins, tol, max_steps)
        elif self.max_spins is not None:
            probs = capped_probabilities(self)
            leftover = max(0.0, 1.0 - float(probs.sum()))
        elif max_win is not None:
            probs, leftover = series_distribution(self.p, self.spins, max_win, tol)
        else:
            sd = max(float(self.variance), 0.0) ** 0.5 / self.multiplier
            size = 1 << int(np.ceil(np.log2(float(self.mean / self.multiplier) + 10 * sd + 2)))
            while True:
                probs, leftover = series_distribution(self.p, self.spins, size - 1, tol)
                if leftover <= 2 * tol:
                    break
                if size >= 1 << 24:
                    raise RuntimeError("win support beyond 2**24 units; pass max_win")
                size *= 2
            nz = np.nonzero(probs)[0]
            probs = probs[: nz[-1] + 1] if nz.size else probs[:1]
        values = np.arange(len(probs)) * self.multiplier
        return values, probs, leftover

    def spins_distribution(self, tol=1e-15, max_steps=100_000):
        """Distribution of the number of spins played: ``(probs, leftover)``, index = spins."""
        one_unit = np.zeros((2, self.p.shape[1]), dtype=self.p.dtype)
        one_unit[0] = self.p.flat[0] * 0
        one_unit[1] = self.p.sum(axis=0)
        return win_distribution(one_unit, self.spins, self.max_spins, tol, max_steps)

    def __repr__(self):
        cap = "" if self.max_spins is None else f", max_spins={self.max_spins}"
        return f"FreeGames(spins={self.spins}, multiplier={self.multiplier}{cap})"


def _capped_steps(p, spins, cap):
    """``(games step, rows of games left)`` of the capped forward recursion
    (:func:`win_distribution`): at step ``t`` the features still running
    have ``1 .. rows - 1`` games left, and at most ``cap - t - 1`` games can
    follow the one they play."""
    k_hi = max(k for k in range(p.shape[1]) if p[:, k].any())
    rows = min(spins, cap) + 1
    for t in range(cap):
        if rows <= 1:
            return
        yield t, rows
        rows = min(rows - 2 + k_hi, cap - t - 1) + 1


def capped_work(p, spins, cap, size):
    """Estimated work of the capped award law [array element updates]:
    ``(forward DP on the win range, recursion on a grid of size points)``.

    The DP (:func:`win_distribution`) convolves every live row with each
    used column of ``p`` over a win range that grows by ``n_wins`` a game
    (``rows x width x log2 width`` each); the grid recursion
    (:func:`capped_fourier_distribution`) multiplies every live row by each
    column's transform (``rows x (size / 2 + 1)`` each)."""
    used = sum(1 for k in range(p.shape[1]) if p[:, k].any())
    y_max = p.shape[0] - 1
    dp = grid = 0.0
    for t, rows in _capped_steps(p, spins, cap):
        width = (t + 1) * y_max + 1
        dp += used * (rows - 1) * width * max(np.log2(width), 1.0)
        grid += used * (rows - 1) * (size // 2 + 1)
    return dp, grid


def capped_fourier_distribution(p, spins, cap, size, block=1 << 15):
    """Distribution of the total win with at most ``cap`` games played, on a
    cyclic grid of ``size`` points.

    The forward recursion of :func:`win_distribution` over the games left,
    run pointwise at the ``size``-th roots of unity: a game's convolution
    with the per-spin law becomes a product with its transform, so a step
    costs ``rows x columns`` per grid point whatever the win range.  The
    grid points are taken ``block`` at a time (memory ``rows x block``
    complex).  Float only.

    Returns
    -------
    probs : ndarray, shape (size,)
        ``P(total win = w)`` [probability] for ``w < size``, clipped at 0;
        absolute error about ``1e-16 x cap x log2(size)`` per point plus the
        mass of wins ``>= size``, which folds back onto ``w mod size``.
    """
    p = np.asarray(p, dtype=float)
    if p.shape[0] > size:
        raise ValueError(f"the per-spin table has {p.shape[0]} win values, more than size={size}")
    used = [k for k in range(p.shape[1]) if p[:, k].any()]
    hat = np.fft.rfft(p[:, used], n=size, axis=0)
    steps = list(_capped_steps(p, spins, cap))
    start = min(spins, cap)
    final = np.zeros(hat.shape[0], dtype=complex)
    for lo in range(0, hat.shape[0], block):
        h = hat[lo : lo + block]
        live = np.zeros((start + 1, h.shape[0]), dtype=complex)
        live[start] = 1.0
        for i, (_, rows) in enumerate(steps):
            top = steps[i + 1][1] - 1 if i + 1 < len(steps) else 0
            new = np.zeros((top + 1, h.shape[0]), dtype=complex)
            for j, kk in enumerate(used):
                moved = live[1:] * h[:, j]
                # games left l -> l - 1 + kk, clipped at ``top`` (the cap)
                n_free = max(0, min(rows - 1, top - kk + 1))
                new[kk : kk + n_free] += moved[:n_free]
                if n_free < rows - 1:
                    new[top] += moved[n_free:].sum(axis=0)
            final[lo : lo + block] += new[0]
            new[0] = 0.0
            live = new
    return np.maximum(np.fft.irfft(final, n=size), 0.0)


def fourier_distribution(p, spins, size):
    """Distribution of the total win, uncapped, on a cyclic grid of ``size`` points.

    The one-spin-feature generating function ``G(z) = sum_k P_k(z) G(z)^k``
    (see :func:`series_distribution`) is solved pointwise at the ``size``-th
    roots of unity by fixed-point iteration (a contraction with factor
    ``E[K] < 1``), raised to the power ``spins`` and transformed back: one FFT
    per column of ``p`` and one inverse FFT, whatever the retrigger depth.
    Float only.

    Parameters
    ----------
    p : ndarray of float, shape (n_wins, n_extra)
        Normalised per-spin table; ``n_wins <= size``.
    spins : int
        Spins awarded at the start.
    size : int
        Grid points; choose it above the wins of interest (a power of two
        is fastest).

    Returns
    -------
    probs : ndarray, shape (size,)
        ``P(total win = w)`` [probability] for ``w < size``, clipped at 0;
        absolute error about ``1e-16 * log2(size)`` per point plus the mass
        of wins ``>= size``, which folds back onto ``w mod size`` (at most
        ``E[T^2] / size^2`` by Chebyshev's inequality, ``T`` in grid units).
    """
    p = np.asarray(p, dtype=float)
    if p.shape[0] > size:
        raise ValueError(f"the per-spin table has {p.shape[0]} win values, more than size={size}")
    k_vals = np.arange(p.shape[1])
    ek = (k_vals * p.sum(axis=0)).sum()
    if ek >= 1:
        raise ValueError(f"E[extra spins per spin] = {ek:.6g} >= 1: the feature would not end")
    used = [k for k in range(p.shape[1]) if p[:, k].any()]
    hat = {k: np.fft.rfft(p[:, k], n=size) for k in used}
    g = np.zeros(size // 2 + 1, dtype=complex)
    change = np.inf
    for _ in range(10_000):
        new = sum(hat[k] * g**k for k in used)
        step = float(np.max(np.abs(new - g)))
        g = new
        # |g| <= 1 on the unit circle: stop at rounding level, or once the
        # change no longer shrinks (rounding noise, a few ulp, was reached)
        if step <= 4 * np.finfo(float).eps or step >= change:
            break
        change = step
    out = np.fft.irfft(g ** int(spins), n=size)
    return np.maximum(out, 0.0)


def award_probabilities(fg: FreeGames) -> np.ndarray:
    """Law of the feature's total win before the multiplier: ``probs[y]`` =
    P(sum Y = y win units) [probability] (float; see the module notes)."""
    from slotmath.engine.limits import EngineTooLarge

    if fg.max_spins is not None:
        return capped_probabilities(fg)
    size = grid_size(fg.p, fg.spins, ALIAS_BOUND)
    if size > MAX_GRID:
        raise EngineTooLarge(
            f"the free-games award law needs {size:,} grid points (more than {MAX_GRID:,}); "
            "give max_games or simulate"
        )
    return _to_last_nonzero(fourier_distribution(fg.p, fg.spins, size))


def _to_last_nonzero(probs: np.ndarray) -> np.ndarray:
    """A grid law cut after its last non-zero point (at least one point)."""
    nz = np.flatnonzero(probs)
    return probs[: nz[-1] + 1] if nz.size else probs[:1]


def capped_probabilities(fg: FreeGames) -> np.ndarray:
    """Law of the capped feature's total win before the multiplier
    [probability, by win unit]: the forward DP over the win range (no
    wrapped mass) where it takes at most :data:`DP_SECONDS`, else the
    cheaper of it and the same recursion on an FFT grid (wrapped mass at
    most :data:`ALIAS_BOUND`, none where the grid holds every win), each
    timed by its estimated work (:func:`~slotmath.features.freegames.capped_work`);
    refused in one line above :data:`MAX_AWARD_SECONDS`."""
    from slotmath.engine.limits import EngineTooLarge

    p = np.asarray(fg.p, dtype=float)
    top = fg.max_spins * (p.shape[0] - 1) + 1  # the largest win + 1 [win units]
    full = 1 << int(np.ceil(np.log2(max(top, 64))))
    extra = float((np.arange(p.shape[1]) * p.sum(axis=0)).sum())
    size = min(full, grid_size(p, fg.spins, ALIAS_BOUND)) if extra < 1 else full
    dp, grid = capped_work(p, fg.spins, fg.max_spins, size)
    dp_s, grid_s = dp / DP_STEPS_PER_SECOND, grid / GRID_STEPS_PER_SECOND
    if size > MAX_GRID:
        grid_s = np.inf
    if dp_s <= max(DP_SECONDS, min(grid_s, MAX_AWARD_SECONDS)):
        probs, _ = win_distribution(fg.p, fg.spins, fg.max_spins, tol=0.0)
        return np.asarray(probs, dtype=float)
    if grid_s <= MAX_AWARD_SECONDS:
        return _to_last_nonzero(capped_fourier_distribution(p, fg.spins, fg.max_spins, size))
    raise EngineTooLarge(
        f"the law of the win of at most {fg.max_spins} games would take about {min(dp_s, grid_s):,.0f} s "
        f"on one core ({dp:.2e} steps over the win range, {grid:.2e} on {size:,} grid points; "
        f"above the bound {MAX_AWARD_SECONDS} s); give a smaller max_games or simulate"
    )


def grid_size(p: np.ndarray, spins: int, bound: float) -> int:
    """FFT grid (a power of two, at least 4 x the per-spin wins) on which the
    uncapped feature's total win ``T`` [win units] exceeds the grid with
    probability at most ``bound``, by Chernoff's bound
    ``P(T >= N) <= E[exp(theta T)] exp(-theta N)``.

    ``E[exp(theta T)] = G^spins`` where ``G`` is the least fixed point of
    ``G = sum_k P_k(e^theta) G^k`` (the one-game feature's generating
    function at ``e^theta``), found by iterating from 0; a theta where it
    does not converge is skipped.  The smallest ``N`` over a range of theta wins.
    """
    y = np.arange(p.shape[0], dtype=float)
    ey = float((y[:, None] * p).sum())
    sd = max(float(((y[:, None] - ey) ** 2 * p).sum()) ** 0.5, 1.0)
    best = np.inf
    for theta in np.geomspace(1e-4, 10.0, 60) / sd:
        if theta * y[-1] > 600:
            break
        pk = (np.exp(theta * y)[:, None] * p).sum(axis=0)
        g = 0.0
        for _ in range(5000):
            with np.errstate(over="ignore", invalid="ignore"):
                new = float(np.polyval(pk[::-1], g))
            if not np.isfinite(new) or new > 1e300:
                g = np.inf
                break
            if abs(new - g) <= 1e-14 * new:
                g = new
                break
            g = new
        else:
            g = np.inf
        if np.isfinite(g):
            best = min(best, (spins * np.log(g) - np.log(bound)) / theta)
    if not np.isfinite(best):
        return MAX_GRID * 2
    return 1 << int(np.ceil(np.log2(max(best, 4 * p.shape[0], 64))))
