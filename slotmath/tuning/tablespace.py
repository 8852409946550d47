"""What the table tuner may change: the weights of a game's weighted feature tables.

A *weight table* is a list under ``options`` whose every entry carries an
integer draw weight and that a feature reads: ``{prize, weight}`` rows
(hold-and-spin ``values`` and ``start_values``, wheel ``segments``, a
player's ``selection.choices``) or ``[value, weight]`` pairs
(``wild_multipliers.table``, lock-it award tables).  Its path names it,
``options.hold_and_spin.values``; :func:`weight_tables` asks each feature
the game declares for the tables it states as tunable
(:attr:`~slotmath.features.kinds.FeatureKind.tunables`), so a weighted list
no feature reads is never offered (a table read from a CSV file is not one).

Each non-zero weight is one integer variable.  Limits (shape bounds, as the
reel tuner's stop weights): each weight within a factor of its value in the
game file (:func:`slotmath.tuning.reelspace.factor_limits`, at least +-1,
never below 1 so no prize or jackpot disappears), a weight of 0 held, and
each table's total weight held (only the draw probabilities
``weight / total`` matter, so a change of total adds nothing a move between
entries does not give; with it held, a figure linear in the draw
probabilities is exactly linear in the weights).  A table whose total is
small moves in coarse steps (one unit of a total of 100 is 1 % of the
draws): ``scale`` multiplies every weight first, the same law in finer
steps.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

import numpy as np

from slotmath.errors import BoundsError
from slotmath.features.registry import declared_kinds
from slotmath.features.tunables import Tunable
from slotmath.io.gamewriter import options_node
from slotmath.model import Game
from slotmath.rules.registry import rules_for
from slotmath.tuning.reelspace import factor_limits

ALL_TABLES = "all"  # every weight table of the game
PREFIX = "options"


@dataclass(frozen=True)
class WeightTable:
    """One weight table: its path (``options.hold_and_spin.values``), the
    label of each entry (its prize, name or value), the weights in the game
    file, whether the rows are ``[value, weight]`` pairs, and the feature's
    :class:`~slotmath.features.tunables.Tunable` (the components it moves)."""

    path: str
    labels: tuple
    x0: np.ndarray
    pairs: bool
    tunable: Tunable

    @property
    def keys(self) -> tuple:
        """The keys under ``options`` leading to the table."""
        return tuple(self.path.split(".")[1:])


def weight_tables(game: Game) -> dict:
    """``{path: WeightTable}`` of every weight table the game's features
    state as tunable (:attr:`~slotmath.features.kinds.FeatureKind.tunables`),
    in the round's order of the features.  Under rules that play their own
    features (not the registry's round: Piggy Bankin'), what a feature
    states of its components and degree is not theirs: the table is
    offered with neither (``components`` empty, ``degree`` None)."""
    own = not rules_for(game).plays_feature_kinds
    out = {}
    for kind in declared_kinds(game):
        for t in kind.tunables(game):
            if own:
                t = dataclasses.replace(t, components=(), degree=None)
            out[t.path] = WeightTable(t.path, t.labels, np.array(t.weights, dtype=np.int64), t.pairs, t)
    return out


def table_rows(options, keys: tuple) -> list:
    """The rows of the table at ``keys`` in an options mapping (a key
    matches by its text: bet levels are numbers in the file)."""
    return options_node(options, keys)  # type: ignore[return-value]  # a table's path names a list


class TableSpace:
    """The tuning variables of one or more weight tables of ``game``.

    ``x0[t]``, ``lo[t]``, ``hi[t]``: the weights of table ``t`` in the game
    file and their limits; a unit with ``lo == hi`` is held.  The duck type
    of a reel space that :class:`slotmath.tuning.linearmodels.Evaluator`
    reads (``game``, ``reel_set``, ``reel_sets``, :meth:`game_for`): every
    reel strip is the game file's.
    """

    reel_set = "base"
    reel_sets = ("base",)

    def __init__(self, game: Game, paths, weight_factor: float | None = 2.0, scale: int = 1):
        if scale < 1:
            raise BoundsError(f"--table-scale: {scale} is below 1")
        self.game = game
        self.scale = scale
        known = weight_tables(game)
        names = [str(p) for p in paths]
        if ALL_TABLES in names:
            if len(names) > 1:
                raise BoundsError(f"--table {ALL_TABLES} names every weight table: give it alone")
            names = list(known)
            if not names:
                raise BoundsError(f"{game.name} declares no weight table under options (--table)")
        listed = ", ".join(known) or "none"
        for i, p in enumerate(names):
            if p not in known:
                raise BoundsError(
                    f"--table {p}: {game.name} has no such weight table (weight tables: {listed})"
                )
            if p in names[:i]:
                raise BoundsError(f"--table {p}: named twice")
        self.tables = tuple(known[p] for p in names)
        self.weight_factor = weight_factor
        self.x0 = [t.x0 * scale for t in self.tables]  # times scale: the same draw law, finer steps
        self.lo, self.hi = [], []
        for x in self.x0:
            lo = np.where(x > 0, 1, 0).astype(np.int64)
            hi = np.where(x > 0, int(x.sum()), 0).astype(np.int64)  # the table's total is held
            lo, hi = factor_limits(x, lo, hi, weight_factor)
            self.lo.append(np.maximum(lo, np.where(x > 0, 1, 0)))
            self.hi.append(hi)

    @property
    def units(self) -> list:
        """``(table index, entry index)`` of every unit that may move."""
        return [
            (t, i)
            for t, (lo, hi) in enumerate(zip(self.lo, self.hi, strict=True))
            for i in np.flatnonzero(lo < hi)
        ]

    def label(self, t: int, i: int) -> str:
        return f"{self.tables[t].path} {self.tables[t].labels[i]}"

    def game_for(self, xs) -> Game:
        """The game with table weights ``xs`` (one array per table)."""
        options = copy.deepcopy(dict(self.game.options))
        for table, x in zip(self.tables, xs, strict=True):
            rows = table_rows(options, table.keys)
            for row, w in zip(rows, x, strict=True):
                if isinstance(row, dict):
                    row["weight"] = int(w)
                else:
                    row[1] = int(w)
        return dataclasses.replace(self.game, options=options)

    def binding(self, xs) -> list:
        """``(unit label, text)`` of every movable weight at a limit."""
        out = []
        for t, (x, lo, hi) in enumerate(zip(xs, self.lo, self.hi, strict=True)):
            for i in range(len(x)):
                if lo[i] == hi[i]:
                    continue
                if x[i] <= lo[i]:
                    out.append((self.label(t, i), f"at its lower limit {lo[i]}"))
                elif x[i] >= hi[i]:
                    out.append((self.label(t, i), f"at its upper limit {hi[i]}"))
        return out
