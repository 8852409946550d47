"""The pay rule a game plays: its window's rule (:mod:`slotmath.engine.pays`),
or under ``options.tumble`` that rule's pays played to the end of their
tumbles (:class:`Tumbles`, :mod:`slotmath.engine.tumble`).

:func:`pay_rule` is what every consumer asks (the interface:
:class:`~slotmath.engine.pays.PayRule`); :data:`TUMBLE_RULES` lists the
tumbling rules, one per rule of :data:`~slotmath.engine.pays.PAY_RULES`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar

from slotmath.engine.pays import AnywherePays, ClusterPays, LinePays, PayRule, WaysPays, base_rule
from slotmath.model import Game

if TYPE_CHECKING:
    import pandas as pd

    from slotmath.engine.distribution import WinDistribution
    from slotmath.engine.joint import KeyedWins

__all__ = [
    "Tumbles",
    "LineTumbles",
    "AnywhereTumbles",
    "WaysTumbles",
    "ClusterTumbles",
    "TUMBLE_RULES",
    "pay_rule",
]


class Tumbles(PayRule):
    """A pay rule's pays played to the end of their tumbles (``options.tumble``,
    :mod:`slotmath.engine.tumble`): every stop vector played to the end of
    its tumble sequence, each drop paid and cleared by the rule's own drop
    evaluation.  Subclassed with the rule it wraps (first in the bases):
    the combination table is the rule's first drop; the rule's component
    and the law are the whole sequence's."""

    fast_moments: ClassVar[bool] = False
    whole_spin: ClassVar[bool] = False  # the rule's form is the first drop's
    sampler_pays: ClassVar[str] = "tumbles"  # the round: montecarlo.tumblesim
    #: the cells a paying drop removes (the notes)
    removed: ClassVar[str] = ""

    @staticmethod
    def law(game: Game, level: int, triggers, reel_set: str = "base") -> tuple:
        """The spin's (wins, key codes, counts, unit_den, total_bet, cycle):
        the strip refill's enumeration (:func:`slotmath.engine.tumble.tumble_keyed`)
        or the fresh-draw chain (:func:`slotmath.engine.tumble_fresh.fresh_keyed`)."""
        from slotmath.engine.tumble_spec import tumble_spec

        if tumble_spec(game).draws_on(reel_set) is not None:
            from slotmath.engine.tumble_fresh import fresh_keyed

            return fresh_keyed(game, level, tuple(triggers), reel_set).keyed()
        from slotmath.engine.tumble import tumble_keyed

        return tumble_keyed(game, level, tuple(triggers), reel_set)

    def channel_rtp(self, game: Game, level: int, reel_set: str = "base") -> tuple:
        from slotmath.engine.tumble import tumble_rtp

        return tumble_rtp(game, level, reel_set, self.law(game, level, (), reel_set))[0], []

    def combinations_scope(self, game: Game) -> str:
        return (
            f"First drop only: the {self.channel} rows count the window as it stops, before any tumble; "
            f"the later drops and the tumble multipliers are in the {self.channel} component of the RTP "
            "(Summary), not in these rows or their total. "
        )

    def combination_table(self, game: Game, level: int, reel_set: str = "base") -> pd.DataFrame:
        """The first drop's pay rows; the scatter rows count the first drop,
        or with ``triggers: sequence`` the whole sequence (:func:`slotmath.engine.tumble.scatter_law`)."""
        from slotmath.engine.combinations import combination_table

        rows = self.pay_rows(game, level, reel_set)
        laws = sequence_laws(game, level, reel_set)
        return combination_table(game, level, reel_set, pay_rows=rows, scatter_laws=laws)

    def scatter_rtp(self, game: Game, level: int, reel_set: str = "base") -> Fraction:
        from slotmath.engine.tumble import tumble_rtp

        return tumble_rtp(game, level, reel_set)[1]

    def fast_rtp(self, game: Game, level: int, reel_set: str = "base") -> Fraction:
        return self.channel_rtp(game, level, reel_set)[0]

    def distribution(self, game: Game, level: int, reel_set: str = "base") -> WinDistribution:
        from slotmath.engine.joint import final_distribution

        wins, _, counts, unit_den, total_bet, cycle = self.law(game, level, (), reel_set)
        return final_distribution(wins, counts, unit_den, total_bet, cycle)

    def key_distribution(self, game: Game, level: int, triggers, reel_set: str = "base") -> KeyedWins:
        from slotmath.engine.joint import keyed_wins

        triggers = tuple(triggers)
        return keyed_wins(game, triggers, *self.law(game, level, triggers, reel_set))

    def key_table(self, game: Game, level: int, triggers, reel_set: str = "base") -> tuple:
        from slotmath.engine.joint import key_digits, key_radix

        triggers = tuple(triggers)
        wins, codes, counts, unit_den, _, _ = self.law(game, level, triggers, reel_set)
        return wins, key_digits(codes, key_radix(game, triggers)), counts, unit_den

    def cycle_win(self, game: Game, level: int, reel_set: str = "base") -> int:
        """Not given: the wrapped rule's would be the first drop's alone."""
        raise NotImplementedError

    def pay_grid(self, game: Game, level: int) -> tuple:
        """Not given: the wrapped rule's would be the first drop's alone."""
        raise NotImplementedError

    def unplayed(self, game: Game) -> list:
        """Every option but the tumble and plain free games."""
        options = game.options if isinstance(game.options, dict) else {}
        return [f"options.{k}" for k in options if k not in ("tumble", "free_games")]

    def refusal(self, game: Game) -> tuple | None:
        fields = self.unplayed(game)
        return (fields[0], "is not played with tumbles (options.tumble)") if fields else None

    def notes(self, game: Game) -> list:
        from slotmath.engine.tumble_spec import tumble_spec

        spec = tumble_spec(game)
        prog = "-".join(f"x{m}" for m in spec.multipliers) if spec else ""
        free = "-".join(f"x{m}" for m in spec.free_multipliers) if spec and spec.free_reels else ""
        fresh = spec is not None and spec.draws is not None
        refill = (
            "the gaps are refilled by independent draws of the declared table (refill: fresh)"
            if fresh
            else "refill from the strip above the window"
        )
        return [
            f"Tumbles ({'fresh draws' if fresh else 'strip refill'}): {self.removed} are removed, the reels "
            f"fall and {refill} until nothing pays; tumble k pays x the k-th of {prog}"
            + (f" (free games: {free})" if free else "")
            + (board_note(spec.board) if spec and spec.board else "")
            + (
                ". Computed from the first drop over every stop vector, then the Markov chain of the count "
                "states (slotmath.engine.tumble_fresh): exact or float64 as each reel set's note says"
                if fresh
                else ". Exact: every stop vector of the cycle played to its end (integer counts)"
            )
            + ". The combination "
            f"table is the first drop's; the {self.channel} component and the distribution are the whole "
            "sequence's."
            + (SEQUENCE_NOTE if spec and spec.sequence else "")
            + (CARRIED_NOTE if spec and spec.carried else "")
        ] + (fresh_notes(game) if fresh else [])


def fresh_notes(game: Game) -> list:
    """The fresh-draw chain's method and bound per reel set
    (:meth:`slotmath.engine.tumble_fresh.FreshLaw.note`; cached with the law)."""
    from slotmath.engine.tumble_fresh import fresh_keyed
    from slotmath.engine.tumble_spec import tumble_spec

    level = game.bet_levels[0].level
    return [
        f"Reel set {name}: " + fresh_keyed(game, level, (), name).note() for name in tumble_spec(game).draws
    ]


def sequence_laws(game: Game, level: int, reel_set: str) -> dict | None:
    """{scatter symbol: weight over the cycle by its count over the whole
    tumble sequence} (``triggers: sequence``; None on the first drop)."""
    import numpy as np

    from slotmath.engine.scatters import scatter_symbols
    from slotmath.engine.tumble import scatter_law
    from slotmath.engine.tumble_spec import tumble_spec

    spec = tumble_spec(game)
    if spec is None or not spec.sequence or not game.scatter_pays:
        return None
    hist = scatter_law(game, level, reel_set).tolist()
    radix = game.reels * game.rows + 1
    out = {}
    for j, sym in enumerate(scatter_symbols(game)):
        law = np.zeros(radix, dtype=np.int64)  # weights over the cycle: int64 counts
        for code, w in enumerate(hist):
            law[(code // radix**j) % radix] += w
        out[sym] = law
    return out


#: the notes' sentence on ``triggers: sequence``
SEQUENCE_NOTE = (
    " Scatters over the sequence: the scatter pays (paid once, not multiplied) and the free games' "
    "trigger count read every scatter on the board in any drop (the combination table's scatter rows too)."
)
#: the notes' sentence on ``reset: round``
CARRIED_NOTE = (
    " Progression carried through the free games: a free spin starts where the one before left (a "
    "retrigger's games too); exact by a chain over (games played, games left, position), each free "
    "spin's law enumerated from every start position."
)


def board_note(board) -> str:
    """The notes' sentence on board multiplier symbols."""
    table = ", ".join(f"x{v} weight {w}" for v, w in zip(board.values, board.weights, strict=True))
    games = " and ".join(board.reel_sets)
    return (
        f". Board multipliers on reel sets {games}: each {board.symbol} on a paying spin's final board "
        f"draws a value ({table}; mean {float(board.mean()):g}) and the tumble pays are multiplied "
        "by their sum (x1 with none; scatter pays are not)"
    )


class LineTumbles(Tumbles, LinePays):
    """Line pays with tumbles: the winning line cells go
    (:func:`slotmath.engine.lines.line_drop`)."""

    removed = "the winning line cells"


class AnywhereTumbles(Tumbles, AnywherePays):
    """Pays anywhere with tumbles: every cell counted toward a paying symbol
    goes (:func:`slotmath.engine.anywhere.anywhere_drop`)."""

    removed = "the cells of every paying symbol (and the wilds counted for it)"


class WaysTumbles(Tumbles, WaysPays):
    """Ways pays with tumbles: every cell of a paying way goes (the symbol's
    cells and its wilds on reels 1..n of its paying run,
    :func:`slotmath.engine.ways.ways_drop`)."""

    removed = "the cells of every paying way (the symbol's and its wilds on the run's reels)"


class ClusterTumbles(Tumbles, ClusterPays):
    """Cluster pays with tumbles: every cell of every paying cluster goes
    (its wilds too, once when in two; :func:`slotmath.engine.cluster.cluster_drop`)."""

    removed = "the cells of every paying cluster (its wilds included)"


#: the pay rule of each value of ``pays_by`` under ``options.tumble``
TUMBLE_RULES: dict = {
    "lines": LineTumbles(),
    "ways": WaysTumbles(),
    "anywhere": AnywhereTumbles(),
    "cluster": ClusterTumbles(),
}


def pay_rule(game: Game) -> PayRule:
    """The pay rule of ``game`` (its ``pays_by``; with tumbles the rule that plays them)."""
    rule = base_rule(game)
    if isinstance(game.options, dict) and "tumble" in game.options and rule.tumbles:
        return TUMBLE_RULES[rule.name]
    return rule
