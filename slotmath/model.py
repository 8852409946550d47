"""Validated game model: the thin containers every evaluator reads.

A game file is parsed and checked by :mod:`slotmath.io.gamefile`; the result is
a frozen :class:`Game`.  Nothing here computes probabilities.

Conventions
-----------
* Window: ``rows`` x ``reels``; row 0 is the top row.
* A stop ``s`` of a strip of length ``N`` shows strip positions
  ``s, s+1, ..., s+rows-1`` (mod ``N``) from top to bottom, so the symbol in
  row ``k`` is ``strip[(s + k) % N]``.
* A stop's weight (virtual reel) is the weight of stop ``s``; unweighted
  strips give every stop weight 1.  The cycle is the product of the reels'
  total weights.
* Pays: ``pay`` [coins per coin bet per line] is multiplied by the bet level
  (linear pay table); ``pay_by_level`` [coins] gives the coin win at each
  bet level explicitly (non-linear pay table).  Scatter pays are
  [x total bet].
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

SYMBOL_KINDS = ("regular", "wild", "scatter", "blank", "special")


@dataclass(frozen=True)
class WildRule:
    """What a wild substitutes for and how it multiplies a line win.

    Attributes
    ----------
    substitutes : frozenset of str
        Symbols this wild stands in for (already resolved from
        ``all``/``except`` lists; may contain other wilds).
    per_wild : int
        Factor per substituting wild of this kind, multiplied together
        (x2 per wild gives 2/4/8); 1 for none.
    by_count : tuple of int or None
        Explicit multiplier by the number of substituting wilds of this kind
        on the line (index 0 = no wild); overrides ``per_wild``.
    multiply_own_pays : bool
        Whether the multiplier also applies to the wild's own pays.
    summed : bool
        The wilds of every ``summed`` kind on a line add their ``per_wild``
        (``count x per_wild`` per kind) and the sum, when not 0, multiplies
        the line once (drawn multipliers with ``combine: add``); the other
        kinds' multipliers multiply it.
    """

    substitutes: frozenset
    per_wild: int = 1
    by_count: tuple | None = None
    multiply_own_pays: bool = False
    summed: bool = False

    def multiplier(self, count: int) -> int:
        """Line multiplier for ``count`` substituting wilds of this kind."""
        if self.by_count is not None:
            return self.by_count[min(count, len(self.by_count) - 1)]
        return self.per_wild**count

    def factors(self, count: int) -> tuple:
        """``(factor, summand)`` of ``count`` counted wilds of this kind: the
        line's win is ``pay x prod(factors) x (sum(summands) or 1)``."""
        if self.summed:
            return 1, count * self.per_wild
        return self.multiplier(count), 0


@dataclass(frozen=True)
class Symbol:
    """One symbol of the game."""

    name: str
    kind: str = "regular"
    wild: WildRule | None = None
    label: str = ""
    color: str = ""


@dataclass(frozen=True)
class LinePay:
    """One pay-table entry for line wins.

    Attributes
    ----------
    name : str
        Label used in the combination table.
    positions : tuple of frozenset
        Allowed symbols per position, from the leftmost reel; length = the
        number of symbols the entry needs.  Empty for ``anywhere`` entries.
    anywhere : str or None
        For "exactly k of X anywhere on the line" entries, the symbol X.
    exactly : int
        With ``anywhere``: the exact count k.
    pays : tuple of int
        Coin win per bet level (already scaled for linear tables) [coins].
    wild_own : bool
        True when the entry is a wild's own pay (natural wilds only).
    """

    name: str
    positions: tuple
    pays: tuple
    anywhere: str | None = None
    exactly: int = 0
    wild_own: bool = False


@dataclass(frozen=True)
class ScatterPay:
    """Scatter pay: ``count`` or more ``symbol`` anywhere in the window.

    The highest listed count not above the number shown applies.
    ``pay`` is [x total bet].
    """

    symbol: str
    count: int
    pay: Fraction


@dataclass(frozen=True)
class Strip:
    """One cyclic reel strip with optional integer stop weights."""

    symbols: tuple
    weights: tuple | None = None

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def total_weight(self) -> int:
        """Sum of stop weights (the reel's share of the cycle)."""
        return len(self.symbols) if self.weights is None else sum(self.weights)

    def stop_weights(self) -> np.ndarray:
        """Weight of every stop as int64."""
        if self.weights is None:
            return np.ones(len(self.symbols), dtype=np.int64)
        return np.asarray(self.weights, dtype=np.int64)


@dataclass(frozen=True)
class BetLevel:
    """A bet level: its coin bet per line and the total bet [coins]."""

    level: int
    line_bet: int
    total_bet: int


@dataclass(frozen=True)
class Buy:
    """A bought feature: the round is ``feature`` started at once, with no
    base spin: the free games from ``games`` games, or the hold-and-spin
    from ``coins`` coins held on cells drawn uniformly (``coins`` 0: an empty
    screen that still gets its respins)."""

    feature: str
    games: int | None = None
    coins: int | None = None


#: A mode's ``round_cap`` when it keeps the game's cap.
KEEP_CAP = "keep"


@dataclass(frozen=True)
class Mode:
    """A bet mode (``modes.NAME``): what a round costs and what it changes.

    Attributes
    ----------
    name : str
    cost : Fraction
        Price of a round [x total bet]; the mode's RTP is its mean round win
        over it.
    label : str
    reels : Mapping
        ``{declared reel set: set played in its place}``.
    options : Mapping
        Option keys replaced whole (``free_games`` with other awards, ...).
    round_cap : Fraction, None or KEEP_CAP
        The mode's cap on a round's win [x total bet]; None: no cap;
        :data:`KEEP_CAP`: the game's.
    buy : Buy or None
    """

    name: str
    cost: Fraction
    label: str = ""
    reels: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    round_cap: Any = KEEP_CAP
    buy: Buy | None = None


@dataclass(frozen=True)
class TopReel:
    """The extra horizontal reel of a variable-height ways game
    (``grid.top_reel``): each spin one stop of its reel set's strip is drawn
    (by its stop weight) and shows ``len(over)`` consecutive symbols, stop
    ``s`` showing ``strip[s + k]`` on top of reel ``over[k]``; a covered reel
    shows that cell above its own ``h`` cells.

    Attributes
    ----------
    over : tuple of int
        The covered reels (0-based, consecutive, increasing).
    strips : Mapping
        ``{reel set: Strip}``, one top strip per reel set.
    """

    over: tuple
    strips: Mapping[str, Strip]

    def total(self, reel_set: str) -> int:
        """Total stop weight of ``reel_set``'s top strip (its factor of the cycle)."""
        return self.strips[reel_set].total_weight

    def windows(self, reel_set: str) -> dict:
        """``{cells: weight}``: the distinct top cells (one symbol name per
        covered reel) of ``reel_set``'s strip and their total stop weight."""
        strip = self.strips[reel_set]
        n, w = len(strip), strip.stop_weights()
        out: dict = {}
        for stop in range(n):
            if w[stop]:
                cells = tuple(strip.symbols[(stop + k) % n] for k in range(len(self.over)))
                out[cells] = out.get(cells, 0) + int(w[stop])
        return out


@dataclass(frozen=True)
class TopDraw:
    """The compiled samplers' draw of a top reel
    (:func:`slotmath.engine.topreel.sampled_game`): every covered reel's
    strip is one block per top window, one after the other; a spin draws a
    window ``t`` by ``weights[reel_set]`` and each covered reel's stop in its
    ``t``-th block.

    Attributes
    ----------
    over : tuple of int
        The covered reels (0-based).
    weights : Mapping
        ``{reel set: (weight of window 0, ...)}`` [stop weights].
    """

    over: tuple
    weights: Mapping[str, tuple]


@dataclass(frozen=True)
class ReelHeights:
    """Variable reel heights (``grid.heights``): each spin, reel r shows
    ``h`` cells (rows 0..h-1) with probability ``w / sum of its weights``.

    Attributes
    ----------
    tables : tuple of tuple of (int, int)
        Per reel, its (height [cells], weight) pairs, heights increasing.
    written : bool
        True on the game whose strips already carry the heights
        (:func:`slotmath.engine.reels.height_game`): every stop is one
        (height, stop) pair, the cells below the height the padding symbol.
    top : TopReel or None
        The extra horizontal reel (``grid.top_reel``); once written, row 0
        of every covered reel is its cell (:func:`slotmath.engine.topreel.top_games`).
    draw : TopDraw or None
        The samplers' game only: its covered reels' blocks (:class:`TopDraw`).
    """

    tables: tuple
    written: bool = False
    top: TopReel | None = None
    draw: TopDraw | None = None

    @property
    def max_heights(self) -> tuple:
        """Largest number of cells every reel shows [cells] (its largest
        height, plus the top reel's cell on a covered reel)."""
        over = self.top.over if self.top is not None else ()
        return tuple(max(h for h, _ in t) + (r in over) for r, t in enumerate(self.tables))

    def describe(self) -> str:
        """``", heights 2-7 per reel (weighted)"``: the grid's text suffix."""
        lo = min(h for t in self.tables for h, _ in t)
        hi = max(max(h for h, _ in t) for t in self.tables)
        top = ""
        if self.top is not None:
            top = f", a top reel over reels {self.top.over[0] + 1}-{self.top.over[-1] + 1}"
        return f", heights {lo}-{hi} per reel (weighted){top}"

    def total(self, reel: int) -> int:
        """Sum of reel ``reel``'s height weights (its factor of the cycle)."""
        return sum(w for _, w in self.tables[reel])


@dataclass(frozen=True, eq=False)
class Game:
    """A validated slot game.

    Construct through :func:`slotmath.io.gamefile.load_game`; fields are
    already consistent (every name resolves, shapes agree).
    """

    name: str
    title: str
    reels: int
    rows: int
    symbols: tuple
    reel_sets: Mapping[str, tuple]
    paylines: tuple
    line_pays: tuple
    scatter_pays: tuple
    bet_levels: tuple
    rules: str = "lines"
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    description: str = ""
    version: str = ""
    variant: str = ""
    pays_by: str = "lines"  # "ways": engine.ways; "anywhere": engine.anywhere; "cluster": engine.cluster
    modes: Mapping[str, Mode] = field(default_factory=dict)  # beside the implicit "base"
    heights: ReelHeights | None = None  # variable reel heights (ways games)
    reel_files: Mapping[str, str] = field(default_factory=dict)  # reel set -> its CSV file, if read from one

    # ----------------------------------------------------------- look-ups
    @cached_property
    def symbol_index(self) -> dict:
        """Map symbol name -> index into :attr:`symbols`."""
        return {s.name: i for i, s in enumerate(self.symbols)}

    @cached_property
    def symbol_names(self) -> tuple:
        return tuple(s.name for s in self.symbols)

    def symbol(self, name: str) -> Symbol:
        return self.symbols[self.symbol_index[name]]

    def bet(self, level: int | None = None) -> BetLevel:
        """The bet level ``level`` (default: the lowest)."""
        if level is None:
            return self.bet_levels[0]
        for b in self.bet_levels:
            if b.level == level:
                return b
        raise KeyError(level)

    @property
    def levels(self) -> list:
        return [b.level for b in self.bet_levels]

    def strips(self, reel_set: str = "base") -> tuple:
        return self.reel_sets[reel_set]

    def cycle(self, reel_set: str = "base") -> int:
        """Number of equally likely outcomes (product of reel weights; with
        declared reel heights, each reel's times its height weights; with a
        top reel, times its strip's total weight)."""
        c = 1
        for r, s in enumerate(self.reel_sets[reel_set]):
            c *= s.total_weight
            if self.heights is not None and not self.heights.written:
                c *= self.heights.total(r)
        if self.heights is not None and self.heights.top is not None:
            c *= self.heights.top.total(reel_set)
        return c

    def level_index(self, level: int) -> int:
        return self.levels.index(level)

    @property
    def reads_paylines(self) -> bool:
        """True when the game pays along its ``paylines`` (``pays_by: lines``,
        with or without tumbles): the question the line engine asks before
        it builds a pay tensor, answered here so that the engine need not
        look the pay rule up."""
        return self.pays_by == "lines"

    @property
    def pays_by_count(self) -> bool:
        """True when a pay row is a symbol and a count of cells (``pays_by``
        anywhere or cluster), not cells along a line."""
        return self.pays_by in ("anywhere", "cluster")

    @property
    def ways_or_lines(self) -> int:
        """Ways a spin pays on (``pays_by: ways``: rows ** reels; with reel
        heights the most, the product of the largest heights), the cells a
        count is taken over (``pays_by: anywhere``, ``cluster``) or the paylines."""
        if self.heights is not None:
            return int(np.prod(self.heights.max_heights))
        if self.pays_by_count:
            return self.rows * self.reels
        return self.rows**self.reels if self.pays_by == "ways" else len(self.paylines)

    @property
    def ways_or_lines_text(self) -> str:
        """``"243 ways"``, ``"up to 117,649 ways"`` (reel heights), ``"20 lines"``
        or ``"pays anywhere (30 cells)"``."""
        if self.pays_by == "anywhere":
            return f"pays anywhere ({self.ways_or_lines} cells)"
        if self.pays_by == "cluster":
            return f"cluster pays ({self.ways_or_lines} cells)"
        upto = "up to " if self.heights is not None else ""
        return f"{upto}{self.ways_or_lines:,} {'ways' if self.pays_by == 'ways' else 'lines'}"
