"""Free games with a sticky wild (``options.free_games.sticky``), exact.

Rule: during one feature's free games every ``W`` (the sticky wild) that
lands stays in its cell for the rest of that feature's free games,
retriggered games included; a spin is evaluated (lines or ways, scatters,
trigger count) on its window with every sticky cell showing ``W``.  Sticky cells
start empty at each feature.

The free spins are no longer independent: the state of the feature is
(games left ``l``, games still awardable ``b``, sticky mask ``M``), ``M``
the set of cells (bit ``reel x rows + row``) holding ``W``.  Per mask the
free reel set is played with ``M``'s cells forced to ``W``
(:func:`masked_game`, via :func:`slotmath.engine.reels.window_game`):

* for the mean (:func:`mask_moves`), the spin win summed over the cycle
  (lines by the multilinear form of the row marginals, ways by the ways
  table, scatters and prizes by count) and the counts of (new mask
  ``M'``, games added ``K``), the reels' laws of (pattern of ``W``, symbol
  counts) multiplied;
* for the distribution (:func:`keyed_steps`), the exact joint law of (spin
  win ``Y``, ``K``, ``M'``) from the pay rule's keyed forward pass
  (:func:`slotmath.engine.joint.spin_key_table` or
  :func:`slotmath.engine.ways.ways_key_table`), ``M'`` read per
  reel as one key digit (:class:`~slotmath.engine.joint.StopKey`): the
  pattern of ``W`` in that reel's window.

Masks only grow; the reachable ones are found from the empty mask.

The pay rule (:func:`slotmath.engine.payrule.pay_rule`: lines or ways)
gives the per-mask pieces: its keyed pass (``key_table``), its win summed
over the cycle (``cycle_win``) and its win grid (``pay_grid``).  Ways read
only each reel's symbol counts (``reads_rows`` False), so each reel's
patterns are first reduced to classes (:func:`reel_classes`, exact) and a
mask holds each reel's class pattern: on the docs' 3x2 example 27 masks
instead of 64.

Games: a spin uses one game and adds ``K' = min(K, b)`` games (``K`` those
of the trigger count, ``b = max_games - played - l``), so ``l + b`` drops
by one per spin and the feature ends at ``l = 0``.  Retriggers need
``max_games`` (the options refuse them otherwise).

* Mean (exact Fraction): backward over ``s = l + b``,
  ``V_s(l, M) = E[Y | M] + sum P(M', K | M) V_(s-1)(l - 1 + K', M')``,
  in integer numerators over ``cycle^s`` (no rational arithmetic).
* Lumping (:attr:`StickyGames.classes`): masks with the same law of
  (``Y``, ``K``, class of ``M'``) are one class (partition refinement from
  one class, integer counts compared), exact for the rest of the feature;
  the distribution's DP runs on one mask per class.
* Distribution (float64): forward over spins played, carrying per state
  (class, ``l``, ``b``) the law of the win so far on its own support; the
  laws of one class are stacked, their spectrum taken once and convolved
  with each transition's ``Y`` law, and dropped once consumed.  Refused
  (:class:`EngineTooLarge`) above :data:`MAX_ROUGH_CELLS` cells of a bound
  checked before any keyed pass, and above :data:`MAX_CELLS` cells held at
  once by the DP's own supports (:meth:`StickyGames.plan`).  Both refuse
  above :data:`MAX_MASKS` masks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property, reduce
from math import gcd

import numpy as np

from slotmath.engine.cache import ValueCache, game_key
from slotmath.engine.limits import EngineTooLarge
from slotmath.errors import ensure
from slotmath.features.cost import MAX_STICKY_MASKS
from slotmath.features.expanding import nudged_game
from slotmath.features.options import FreeGamesSpec
from slotmath.features.round import Feature, Trigger
from slotmath.model import Game

__all__ = [
    "MAX_MASKS",
    "MAX_CELLS",
    "MAX_ROUGH_CELLS",
    "StickyGames",
    "sticky_games",
    "sticky_feature_of",
    "masked_game",
]

#: Most sticky masks the exact method visits.
MAX_MASKS = MAX_STICKY_MASKS
#: Most float cells (state x win point) the distribution holds at once.
MAX_CELLS = 100_000_000
#: Most cells of the bound checked before any engine pass (every mask and game state, the longest win).
MAX_ROUGH_CELLS = 10_000_000_000
#: Transitions with at most this many distinct spin wins are convolved term by term, not by FFT.
SPARSE = 16

_CACHE = ValueCache(maxsize=8)


def masked_game(g: Game, reel_set: str, wild: str, mask: int) -> Game:
    """``g`` with every cell of ``mask`` (bit ``reel x rows + row``) showing
    ``wild`` in every window of ``reel_set`` (equal windows merged)."""
    from slotmath.engine.reels import window_game

    H = g.rows

    def held(r, window):
        return tuple(wild if mask >> (r * H + k) & 1 else x for k, x in enumerate(window))

    return window_game(g, reel_set, held)


def wild_patterns(g: Game, reel_set: str, wild: str, canon: tuple | None = None):
    """Per reel, ``(codes, patterns)``: the index of every stop's pattern of
    ``wild`` (bit ``row``) in the distinct ``patterns`` of that reel (with
    ``canon``, each pattern replaced by its class's, :func:`reel_classes`)."""
    from slotmath.engine.reels import windows

    bits = 1 << np.arange(g.rows)
    out = []
    for r, strip in enumerate(g.strips(reel_set)):
        pat = ((windows(g, strip) == g.symbol_index[wild]) * bits).sum(axis=1)
        patterns, codes = np.unique(_canonical(pat, canon, r), return_inverse=True)
        out.append((codes.astype(np.int64), patterns.tolist()))
    return out


def _canonical(pat: np.ndarray, canon: tuple | None, r: int) -> np.ndarray:
    """Reel ``r``'s patterns ``pat`` as their classes' (unchanged without ``canon``;
    a pattern no reachable mask shows, on a weight-0 stop, stays)."""
    if canon is None:
        return pat
    return np.array([canon[r].get(p, p) for p in pat.tolist()], dtype=np.int64)


def reel_classes(g: Game, reel_set: str, wild: str) -> tuple:
    """Per reel, ``{pattern: its class's pattern}`` over the patterns of
    ``wild`` (bit ``row``) reachable from none: two patterns are one class
    when the reel's law of (symbol counts of the window with the pattern's
    cells showing ``wild``, class of the new pattern) is the same from each
    (partition refinement from one class, integer stop weights compared);
    a class's pattern is its smallest.  Exact for a pay rule that reads only
    each reel's symbol counts (ways): reels are independent, so masks whose
    reels' patterns are alike play alike for the rest of the feature."""
    from slotmath.engine.reels import windows

    H, wi = g.rows, g.symbol_index[wild]
    bits = 1 << np.arange(H)
    out = []
    for strip in g.strips(reel_set):
        keep = strip.stop_weights() > 0
        win, weights = windows(g, strip)[keep], strip.stop_weights()[keep].tolist()
        lands = ((win == wi) * bits).sum(axis=1).tolist()
        seen, todo = {0}, [0]
        while todo:
            p = todo.pop()
            for q in {p | x for x in lands} - seen:
                seen.add(q)
                todo.append(q)
        pats = sorted(seen)
        shown = {}  # per pattern and stop: (sorted window with its cells held, new pattern, weight)
        for p in pats:
            held = np.where((p >> np.arange(H)) & 1, wi, win)
            counts = map(tuple, np.sort(held, axis=1).tolist())
            shown[p] = list(zip(counts, [p | x for x in lands], weights, strict=True))
        cls = dict.fromkeys(pats, 0)
        while True:
            ids: dict = {}
            new = {}
            for p in pats:
                law: dict = {}
                for counts, q, w in shown[p]:
                    law[(counts, cls[q])] = law.get((counts, cls[q]), 0) + w
                new[p] = ids.setdefault((cls[p], tuple(sorted(law.items()))), len(ids))
            if len(ids) == len(set(cls.values())):
                break
            cls = new
        first: dict = {}
        for p in pats:
            first.setdefault(cls[p], p)
        out.append({p: first[cls[p]] for p in pats})
    return tuple(out)


@dataclass(frozen=True, eq=False)
class StickyGames:
    """Exact per-mask transitions of the sticky free games.

    Attributes
    ----------
    moves : dict
        ``moves[M][(M', K)]``: stop combinations of the spins from mask ``M``
        that leave mask ``M'`` and add ``K`` games.
    wins : dict
        ``wins[M]``: sum over the cycle of the spin win ``Y`` from mask ``M``
        [1/den coins] (before the multiplier).
    cycle : int
        Stop combinations of one free spin.
    den : int
        Win units per coin.
    game, level, spec :
        What the laws (:attr:`steps`) are built from.
    canon : tuple or None
        Per reel ``{pattern: its class's pattern}`` (:func:`reel_classes`)
        where the pay rule reads only each reel's symbol counts (ways): the
        masks are then those of the classes' patterns.  None (lines): every
        mask is its own.
    """

    moves: dict
    wins: dict
    cycle: int
    den: int
    game: Game
    level: int
    spec: FreeGamesSpec
    canon: tuple | None = None
    known: dict = field(default_factory=dict)  # means by games awarded

    def _layer(self, reward: dict, top: int) -> dict:
        """Per mask, the numerators (over ``cycle^top``) of the expected total of
        ``reward[M]`` (over ``cycle``, per game played) by games left ``l = 0..top``
        with ``top - l`` games still awardable."""
        C = self.cycle
        prev = {m: np.zeros(1, dtype=object) for m in self.moves}
        for s in range(1, top + 1):
            left = np.arange(1, s + 1)
            cur = {}
            for m, trans in self.moves.items():
                v = np.zeros(s + 1, dtype=object)
                v[1:] = reward[m] * C ** (s - 1)
                for (m2, k), c in trans.items():
                    v[1:] += c * prev[m2][left - 1 + np.minimum(k, s - left)]
                cur[m] = v
            prev = cur
        return prev

    def start(self, games: int) -> tuple:
        """``(l, b)`` of a feature awarded ``games`` games."""
        cap = self.spec.max_games
        if cap is None:
            return games, 0
        return min(games, cap), (cap - min(games, cap)) if self.spec.retrigger else 0

    def means(self, games: int) -> tuple:
        """Exact ``(E[sum Y] [1/den coins], E[games played])`` of a feature of ``games`` games."""
        if games not in self.known:
            self.known[games] = self._means(games)
        return self.known[games]

    def _means(self, games: int) -> tuple:
        l0, b0 = self.start(games)
        s = l0 + b0
        wins = self._layer(self.wins, s)[0][l0]
        games = self._layer({m: self.cycle for m in self.moves}, s)[0][l0]
        return Fraction(wins, self.cycle**s), Fraction(games, self.cycle**s)

    @cached_property
    def steps(self) -> dict:
        """``steps[M][(M', K)]`` = ``(ys, counts)``: :attr:`moves` split by the
        spin win ``ys`` [1/den coins] (the pay rule's keyed engine, one pass per mask)."""
        return {m: keyed_steps(self.game, self.level, self.spec, m, self.canon) for m in self.moves}

    @cached_property
    def classes(self) -> dict:
        """``{M: class}``: the coarsest partition of the masks in which masks of
        one class have the same law of (spin win, games added, class of the new
        mask), so that one class stands for them all in the forward DP (exact
        lumping: partition refinement from one class, integer counts compared)."""
        cls = dict.fromkeys(self.steps, 0)
        while True:
            ids: dict = {}
            new = {m: ids.setdefault((cls[m], self._signature(m, cls)), len(ids)) for m in sorted(self.steps)}
            if len(ids) == len(set(cls.values())):
                return new
            cls = new

    def _signature(self, m: int, cls: dict) -> tuple:
        """Mask ``m``'s law of (win, games added, class of the new mask) as bytes."""
        return tuple((c2, k, ys.tobytes(), cs.tobytes()) for (c2, k), (ys, cs) in self.lumped(m, cls).items())

    def lumped(self, m: int, cls: dict) -> dict:
        """:attr:`steps` of ``m`` with the new masks replaced by their class
        ``cls[M']``: ``{(class, K): (ys, counts)}``, keys and ``ys`` ascending."""
        tr = self.steps[m]
        keys = list(tr)
        parts = [
            (np.full(len(tr[key][0]), cls[key[0]]), np.full(len(tr[key][0]), key[1]), *tr[key])
            for key in keys
        ]
        return _grouped(*(np.concatenate(x) for x in zip(*parts, strict=True)))

    @cached_property
    def grid(self) -> tuple:
        """``(unit, top)``: a divisor of every spin win (the gcd of every line,
        scatter and prize value) and a bound on the spin win [units], both [1/den coins]."""
        from slotmath.engine.payrule import pay_rule
        from slotmath.engine.scatters import scatter_symbols

        g, spec, den = self.game, self.spec, self.den
        total_bet = g.bet(self.level).total_bet
        pays, most = pay_rule(g).pay_grid(g, self.level)
        paid = {s: [sp.pay for sp in g.scatter_pays if sp.symbol == s] for s in scatter_symbols(g)}
        prizes = [spec.retrigger_prize(c) for c in range(g.reels * g.rows + 1)]
        bets = [x * total_bet * den for xs in [*paid.values(), prizes] for x in xs]
        values = [v * den for v in pays] + [int(x) for x in bets]
        unit = reduce(gcd, values, 0) or 1
        top = most * den
        top += sum(max(xs) * total_bet * den for xs in paid.values())
        return unit, int(top + max(prizes) * total_bet * den) // unit

    @cached_property
    def chain(self) -> dict:
        """The forward DP's chain on the :attr:`classes`: per class, its
        transitions ``(class', K, ys [units], probabilities, length)``, ``ys``
        the spin wins on the grid of :attr:`grid`'s unit."""
        unit = self.grid[0]
        reps: dict = {}
        for m, c in sorted(self.classes.items(), reverse=True):
            reps[c] = m  # the smallest mask stands for its class
        out = {}
        for c, m in reps.items():
            out[c] = []
            for (c2, k), (ys, cs) in self.lumped(m, self.classes).items():
                ensure(not (ys % unit).any(), "sticky.py: expected every spin win on the unit grid")
                out[c].append((c2, k, ys // unit, cs / self.cycle, int(ys[-1] // unit) + 1))
        return out

    def state(self) -> str:
        """The state of the law's forward DP and its size (for the notes)."""
        n, k = len(self.moves), len(set(self.classes.values()))
        lumped = f"lumped to {k:,} classes" if k < n else "none lumped (no two masks alike)"
        return (
            f"Sticky wild {self.spec.sticky}: {self._reels()}{n:,} sticky masks, {lumped}; free-games "
            "law by the forward DP over (class, games left, games awardable), each state's law on its own "
            "support."
        )

    def _reels(self) -> str:
        """The notes' words on the per-reel reduction (ways; empty for lines)."""
        if self.canon is None:
            return ""
        sizes = [len(set(c.values())) for c in self.canon]
        by_count = all(
            len({bin(p).count("1") for p in c.values()}) == len(set(c.values())) for c in self.canon
        )
        how = "by its number of sticky cells" if by_count else "by partition refinement"
        return (
            f"ways read each reel's symbol counts only, so each reel's sticky cells reduce to classes "
            f"({how}; {' x '.join(map(str, sizes))} per reel, from {sum(len(c) for c in self.canon):,} "
            "reachable patterns); "
        )

    def plan(self, games: int) -> tuple:
        """``(cells, states, width)`` of the forward DP of a feature of ``games``
        games: the most float cells held at once (the live laws and the next
        spin's, both whole, and the finished law), the most (class, game state)
        laws of one spin, the longest law [win points] (the finished one: the
        largest sum of spin wins plus one); from the supports alone, no law computed."""
        l0, b0 = self.start(games)
        chain = self.chain
        live = {self.classes[0]: {(l0, b0): 1}}
        cells = states = width = final = 0
        while live:
            new: dict = {}
            for c, rows in live.items():
                for c2, k, _, _, n in chain[c]:
                    for (left, b), w in rows.items():
                        k2 = min(k, b)
                        if left - 1 + k2:
                            box = new.setdefault(c2, {})
                            nxt = (left - 1 + k2, b - k2)
                            box[nxt] = max(box.get(nxt, 0), w + n - 1)
                        else:
                            final = max(final, w + n - 1)
            now = [final] + [w for rows in (*live.values(), *new.values()) for w in rows.values()]
            cells = max(cells, sum(now))
            states = max(states, sum(len(rows) for rows in live.values()))
            width = max([width, *now])
            live = new
        return cells, states, width

    def check_rough(self, games: int) -> None:
        """Refuse (:class:`EngineTooLarge`, one line) the law of a feature of
        ``games`` games above :data:`MAX_ROUGH_CELLS` cells of a bound read
        before any keyed engine pass: every mask, every game state, the
        longest spin win."""
        l0, b0 = self.start(games)
        top = self.grid[1]
        rough = len(self.moves) * (b0 + 1) * ((l0 + b0) * top + 1)
        if rough > MAX_ROUGH_CELLS:
            raise EngineTooLarge(
                f"the sticky free games' win law may need up to {rough:,} cells ({len(self.moves)} sticky "
                f"masks x {b0 + 1} game states x {(l0 + b0) * top + 1:,} win points), more than "
                f"{MAX_ROUGH_CELLS:,} (lower max_games); `slotmath simulate` gives the exact RTP "
                "beside a simulated distribution"
            )

    def distribution(self, games: int) -> np.ndarray:
        """``probs[j]`` = P(sum Y = j x :meth:`unit` [1/den coins]) [probability], float64."""
        from scipy import fft

        l0, b0 = self.start(games)
        self.check_rough(games)
        cells, states, width = self.plan(games)
        if cells > MAX_CELLS:
            raise EngineTooLarge(
                f"the sticky free games' win law needs {cells:,} cells at once ({len(self.moves)} sticky "
                f"masks in {len(self.chain)} classes, up to {states:,} game states a spin, laws up to "
                f"{width:,} win points), more than {MAX_CELLS:,} (lower max_games); `slotmath simulate` "
                "gives the exact RTP beside a simulated distribution"
            )
        live = {self.classes[0]: {(l0, b0): np.ones(1)}}
        final = np.zeros(1)
        while live:
            new: dict = {}
            for c in sorted(live):
                rows = live.pop(c)  # consumed: its memory goes before the next class's
                at = list(rows)
                lens = [len(rows[lb]) for lb in at]
                stack = np.zeros((len(at), max(lens)))
                for i, lb in enumerate(at):
                    law = rows.pop(lb)
                    stack[i, : len(law)] = law
                size = fft.next_fast_len(stack.shape[1] + max(t[4] for t in self.chain[c]) - 1, real=True)
                spectrum = None
                for c2, k, ys, ps, n in self.chain[c]:
                    if len(ys) <= SPARSE:
                        conv = _direct(stack, ys, ps, n)
                    else:  # the stack's spectrum once per class, each transition's law's once
                        if spectrum is None:
                            spectrum = fft.rfft(stack, size, axis=1)
                        h = np.zeros(n)
                        h[ys] = ps
                        conv = fft.irfft(spectrum * fft.rfft(h, size), size, axis=1)[
                            :, : stack.shape[1] + n - 1
                        ]
                    for i, (left, b) in enumerate(at):
                        k2 = min(k, b)
                        nxt = (left - 1 + k2, b - k2)
                        law = conv[i, : lens[i] + n - 1]  # the row's own support
                        if nxt[0] == 0:
                            final = _add(final, law)
                        else:
                            box = new.setdefault(c2, {})
                            box[nxt] = _add(box[nxt], law) if nxt in box else law.copy()
            live = new
        return np.clip(final, 0.0, None)


def _direct(stack: np.ndarray, ys: np.ndarray, ps: np.ndarray, n: int) -> np.ndarray:
    """Each row of ``stack`` convolved with the law ``ps`` at ``ys`` (length ``n``), term by term."""
    out = np.zeros((stack.shape[0], stack.shape[1] + n - 1))
    for y, p in zip(ys.tolist(), ps.tolist(), strict=True):
        out[:, y : y + stack.shape[1]] += p * stack
    return out


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(b) > len(a):
        a, b = b.copy(), a
    a[: len(b)] += b
    return a


def _mask_game(game: Game, spec: FreeGamesSpec, mask: int) -> Game:
    return masked_game(nudged_game(game, spec.reels, spec.nudge), spec.reels, spec.sticky, mask)


def keyed_steps(game: Game, level: int, spec: FreeGamesSpec, mask: int, canon: tuple | None = None) -> dict:
    """``{(M', K): (ys, counts)}`` of the spins from ``mask``: the distinct
    spin wins ``ys`` [1/den coins] (int64, ascending) and their stop
    combinations ``counts`` (int64), from the pay rule's keyed engine (lines
    or ways) on the masked free reel set, one key digit per reel for its
    pattern of the sticky wild (its class's with ``canon``; the key decoded
    array-wise)."""
    from slotmath.engine.joint import StopKey
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.freespin import free_spin_triggers, spin_win_terms

    mg = _mask_game(game, spec, mask)
    per_reel = wild_patterns(mg, spec.reels, spec.sticky, canon)
    key = StopKey(tuple(c for c, _ in per_reel), tuple(len(p) for _, p in per_reel))
    ensure(not spec.trigger.per_reel, "sticky.py: the trigger count of a sticky wild's games is one digit")
    triggers = free_spin_triggers(mg, spec, (key,))
    wins, digits, counts, unit_den = pay_rule(mg).key_table(mg, level, triggers, spec.reels)
    step, prize, cut = spin_win_terms(game, mg, level, spec, unit_den, at=1)
    R, H = mg.reels, mg.rows
    n = digits[:, R]  # key item 1 (the trigger count) is the digit after the R pattern digits
    y = wins * step + np.asarray(prize, dtype=np.int64)[n]
    for item, pays in cut:
        y -= np.asarray(pays, dtype=np.int64)[digits[:, R + item - 1]]
    m2 = np.zeros(len(y), dtype=np.int64)
    for r, (_, patterns) in enumerate(per_reel):
        m2 |= np.asarray(patterns, dtype=np.int64)[digits[:, r]] << (r * H)
    added = np.array([spec.retrigger_games(c) for c in range(R * H + 1)], dtype=np.int64)[n]
    return _grouped(m2, added, y, counts)


def _grouped(m2: np.ndarray, added: np.ndarray, y: np.ndarray, counts: np.ndarray) -> dict:
    """``{(m2, added): (ys, counts)}``: ``counts`` summed by equal ``(m2, added, y)``, ``ys`` ascending."""
    order = np.lexsort((y, added, m2))
    m2, added, y, counts = m2[order], added[order], y[order], np.asarray(counts, dtype=np.int64)[order]
    new = np.ones(len(y), dtype=bool)
    new[1:] = (m2[1:] != m2[:-1]) | (added[1:] != added[:-1]) | (y[1:] != y[:-1])
    at = np.flatnonzero(new)
    m2, added, y, counts = m2[at], added[at], y[at], np.add.reduceat(counts, at)
    cut = np.flatnonzero((m2[1:] != m2[:-1]) | (added[1:] != added[:-1])) + 1
    out = {}
    for lo, hi in zip([0, *cut.tolist()], [*cut.tolist(), len(y)], strict=True):
        out[(int(m2[lo]), int(added[lo]))] = (y[lo:hi], counts[lo:hi])
    return out


def mask_moves(
    game: Game, level: int, spec: FreeGamesSpec, mask: int, den: int, canon: tuple | None = None
) -> tuple:
    """``({(M', K): count}, sum of Y [1/den coins])`` of the spins from ``mask``
    without the joint law of the win: the pay rule's win summed over the
    cycle (lines: the multilinear form of the row marginals; ways: the ways
    table), and (new mask, its reels' patterns as their classes' with
    ``canon``; scatter and trigger counts) by multiplying the reels' laws."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.engine.reels import windows
    from slotmath.engine.scatters import scatter_pay, scatter_symbols

    mg = _mask_game(game, spec, mask)
    total_bet = game.bet(level).total_bet
    paid = scatter_symbols(mg) if spec.scatter_pays else []
    counted = [spec.symbol] + [s for s in paid if s != spec.symbol]
    bits = 1 << np.arange(mg.rows)
    joint = {(0, (0,) * len(counted)): 1}  # (mask bits of reels so far, counts) -> stop combinations
    for r, strip in enumerate(mg.strips(spec.reels)):
        win = windows(mg, strip)
        pat = _canonical(((win == mg.symbol_index[spec.sticky]) * bits).sum(axis=1), canon, r) << (
            r * mg.rows
        )
        cnt = np.stack([(win == mg.symbol_index[s]).sum(axis=1) for s in counted], axis=1)
        reel: dict = {}
        stops = zip(pat.tolist(), map(tuple, cnt.tolist()), strip.stop_weights().tolist(), strict=True)
        for p, c, w in stops:
            if w:
                reel[(p, c)] = reel.get((p, c), 0) + w
        out: dict = {}
        for (m, c), w in joint.items():
            for (p, c2), w2 in reel.items():
                at = (m | p, tuple(a + b for a, b in zip(c, c2, strict=True)))
                out[at] = out.get(at, 0) + w * w2
        joint = out
    moves: dict = {}
    total = pay_rule(mg).cycle_win(mg, level, spec.reels) * den
    for (m2, c), w in joint.items():
        n = c[0]
        pay = spec.retrigger_prize(n) + sum(scatter_pay(mg, s, c[counted.index(s)]) for s in paid)
        total += w * pay * total_bet * den
        at = (m2, spec.retrigger_games(n))
        moves[at] = moves.get(at, 0) + w
    ensure(Fraction(total).denominator == 1, "sticky.py: expected Fraction(total).denominator == 1")
    return moves, int(total)


def _sticky_games(game: Game, level: int, spec: FreeGamesSpec) -> StickyGames:
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.freespin import free_spin_den

    g = nudged_game(game, spec.reels, spec.nudge)
    den = free_spin_den(g, level, spec)
    canon = None if pay_rule(g).reads_rows else reel_classes(g, spec.reels, spec.sticky)
    moves: dict = {}
    wins: dict = {}
    todo = [0]
    while todo:
        m = todo.pop()
        if m in moves:
            continue
        if len(moves) >= MAX_MASKS:
            raise EngineTooLarge(
                f"sticky wild {spec.sticky}: more than {MAX_MASKS:,} sticky masks (sets of cells "
                "where it lands); simulate"
            )
        moves[m], wins[m] = mask_moves(game, level, spec, m, den, canon)
        todo += [m2 for m2, _ in moves[m] if m2 not in moves]
    return StickyGames(moves, wins, g.cycle(spec.reels), den, game, level, spec, canon)


def sticky_games(game: Game, level: int, spec: FreeGamesSpec) -> StickyGames:
    """The :class:`StickyGames` of ``spec`` (``spec.sticky`` set) at bet ``level``
    (cached on the game's value and the declaration)."""
    key = (game_key(game, (spec.reels,)), level, repr(spec))
    return _CACHE.get(key) or _CACHE.put(key, _sticky_games(game, level, spec))


def sticky_feature_of(game: Game, level: int, spec: FreeGamesSpec) -> Feature:
    """The declared free games with a sticky wild as a round :class:`Feature`
    (component ``free_games``; see :func:`slotmath.features.freeround.free_games_feature_of`)."""
    from slotmath.features.freespin import award_distribution

    sg = sticky_games(game, level, spec)
    total_bet = game.bet(level).total_bet
    scale = sg.den * total_bet

    def mean(count):
        return spec.prize(count) + spec.multiplier_of(count) * sg.means(spec.games(count))[0] / scale

    @cache
    def award_of(n: int, prize: Fraction, mult: Fraction):
        return award_distribution(sg.distribution(n), sg.grid[0], sg.den, mult, prize, total_bet)

    def odds(key_p: dict) -> dict:
        p = sum(key_p.values(), Fraction(0))
        if p == 0:
            return {"trigger_probability": 0.0}
        for c in key_p:  # a law the bound refuses is refused before the keyed passes of the classes
            sg.check_rough(spec.games(c))
        spin_mean = Fraction(sg.wins[0], sg.cycle * scale)
        return {
            "trigger_probability": float(p),
            "trigger_one_in": float(1 / p),
            "mean_games": float(sum(q * sg.means(spec.games(c))[1] for c, q in key_p.items()) / p),
            "mean_award": float(sum(q * mean(c) for c, q in key_p.items()) / p),
            "multiplier": float(sum(q * spec.multiplier_of(c) for c, q in key_p.items()) / p),
            "sticky": spec.sticky,
            "sticky_masks": len(sg.moves),
            "sticky_classes": len(set(sg.classes.values())),
            "sticky_state": sg.state(),
            "first_free_spin_mean": float(spin_mean),
            "by_count": {
                str(c): {
                    "probability": float(q),
                    "games": spec.games(c),
                    "mean_games_played": float(sg.means(spec.games(c))[1]),
                    "mean_award": float(mean(c)),
                }
                for c, q in sorted(key_p.items())
            },
        }

    return Feature(
        "free_games",
        Trigger(spec.symbol),
        lambda count: spec.games(count) > 0,
        mean,
        lambda count: award_of(spec.games(count), spec.prize(count), spec.multiplier_of(count)),
        lambda count: (spec.games(count), spec.prize(count), spec.multiplier_of(count)),
        odds,
    )
