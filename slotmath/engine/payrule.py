"""Pay rules: how one window of a spin is paid, as one object per rule.

A game's ``pays_by`` names its pay rule; :func:`pay_rule` is the one place
outside the pay rules (and the game file reader and the model that hold
the field) that reads it.  Every consumer (the line round of
:mod:`slotmath.rules.linegame`, the free games of
:mod:`slotmath.features.freeround`, the samplers, the rules contract's
figures, the simulation's fast figures, the report, and the line engine's
stop for line-only paths such as tuning) asks the rule object instead of
branching on the field.

The interface (:class:`PayRule`)
--------------------------------
``name``, ``channel``, ``pays_words``
    The ``pays_by`` value, the name of the RTP component the rule pays
    (``"lines"``, ``"ways"``, ``"anywhere"``, ``"cluster"``) and its pays in
    words for the sheet's notes (``"line pays"``, ``"cluster pays"``).
``pay_rows(game, level, reel_set)``
    Rows of the combination table for the rule's pays
    (:func:`slotmath.engine.combinations.combination_row`'s form); the
    scatter rows are added by ``combination_table(game, level, reel_set)``.
``scatter_rtp(game, level, reel_set)``
    The scatter pays' RTP [x total bet, exact Fraction] as the rule reads
    the scatters (tumbles with ``triggers: sequence``: the whole sequence's).
``channel_rtp(game, level, reel_set)``
    The rule's RTP [x total bet, exact Fraction] and the RTP of each
    payline [x line bet] (an empty list where the rule has no paylines).
``fast_rtp(game, level, reel_set)``
    The rule's RTP [x total bet, exact Fraction] by the quickest exact
    method (tuning and the RTP parts of a simulation).
``distribution(game, level, reel_set)``
    Exact law of the spin's total win (the rule's pays plus scatter pays)
    over the full cycle (:class:`~slotmath.engine.distribution.WinDistribution`).
``key_distribution(game, level, triggers, reel_set)``
    Exact joint law of (spin win, key) (:class:`~slotmath.engine.joint.KeyedWins`):
    the key counts trigger symbols anywhere in the window, in total or by
    reel (:func:`slotmath.engine.joint.key_codes`), as one more digit of
    the forward pass's state.  Every base-triggered feature of the round
    and the retriggers of free games read it, so a feature built on it
    composes with every pay rule.
``key_table(game, level, triggers, reel_set)``
    The law of ``key_distribution`` as arrays, keys not decoded: (wins,
    key digits, counts, win units per coin) (lines and ways; the sticky
    wilds' per-mask passes, :mod:`slotmath.features.sticky`).
``cycle_win(game, level, reel_set)``
    The rule's pays summed over the cycle [coins, exact integer] (lines
    and ways: the sticky wilds' mean per mask).
``pay_grid(game, level)``
    (the coin values one pay can take, a bound on the rule's win of one
    window [coins]) (lines and ways: the sticky wilds' win grid).
``reads_rows``
    True when the pays read which rows of a reel show a symbol (lines);
    False when only each reel's symbol counts matter (ways, pays
    anywhere), so that sticky cells reduce reel by reel.
``fast_moments``
    True when the line moments (:mod:`slotmath.engine.moments`) give the
    hit frequency and SD without the distribution (tuning's fast figures).
``has_paylines``
    True when the game's ``paylines`` are read.
``unplayed(game)``, ``refusal(game)``
    The declared option fields the rule cannot pay exactly (dotted paths
    under ``options``), and the (field, problem) the rules' check refuses
    in one line.
``notes(game)``
    The PAR sheet's method notes for the rule's pays.
``sheet``
    The PAR sheet's words for the rule (:class:`SheetWords`): the coin bet's
    label, the pay table's title, column and note, what the combination
    table's hits are summed over and its note.
``sampler_pays``
    Name of the compiled window evaluation of the samplers
    (:mod:`slotmath.montecarlo.linesim` for ``"lines"``,
    :mod:`slotmath.montecarlo.wayssim` for ``"ways"``,
    :mod:`slotmath.montecarlo.anywheresim` for ``"anywhere"``,
    :mod:`slotmath.montecarlo.clustersim` for ``"cluster"``; ``"tumbles"``:
    the whole round is :mod:`slotmath.montecarlo.tumblesim`'s); the round
    sampler plays any (:mod:`slotmath.montecarlo.roundsim`).

A spin stage that wraps a rule is a subclass of it too: under
``options.tumble`` :func:`pay_rule` returns :class:`LineTumbles`,
:class:`WaysTumbles`, :class:`AnywhereTumbles` or :class:`ClusterTumbles`
(the rule's pays played to the end of their tumbles,
:mod:`slotmath.engine.tumble`, by the shared :class:`Tumbles`; :data:`TUMBLE_RULES`).

A new pay rule (pay anywhere by count, clusters) is one more subclass, one
line of :data:`PAY_RULES` and its compiled window evaluation (one branch of
:func:`slotmath.montecarlo.roundsim.evaluation`); the exact consumers do
not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar

from slotmath.model import Game

if TYPE_CHECKING:
    import pandas as pd

    from slotmath.engine.distribution import WinDistribution
    from slotmath.engine.joint import KeyedWins

__all__ = [
    "PayRule",
    "SheetWords",
    "LinePays",
    "WaysPays",
    "AnywherePays",
    "Tumbles",
    "LineTumbles",
    "AnywhereTumbles",
    "WaysTumbles",
    "ClusterTumbles",
    "ClusterPays",
    "PAY_RULES",
    "TUMBLE_RULES",
    "pay_rule",
]


@dataclass(frozen=True)
class SheetWords:
    """A pay rule's words on the PAR sheet.

    Attributes
    ----------
    bet : str
        Label of the coin bet the pays are per [coins].
    paytable : str
        Title of the pay table [coins at each bet level].
    form : str
        Heading of the pay table's column that shows each pay's symbols.
    paytable_note : str
        How a pay table row pays.
    where : str
        Where a pay by count is counted (``"anywhere"``, ``"in one cluster"``;
        empty for lines and ways).
    hits_over : str
        What a combination row's hits are summed over (``"all lines"``).
    combinations_note : str
        The combination table's note: what a row's hits, probability and win are.
    """

    bet: str
    paytable: str
    form: str
    paytable_note: str
    where: str
    hits_over: str
    combinations_note: str


#: The coin bet of the rules whose pays are per coin rather than per line.
_PER_COIN = "coin bet (the {} pays are per coin) [coins]"


class PayRule:
    """One pay rule (see the module notes for the interface)."""

    name: ClassVar[str] = ""
    channel: ClassVar[str] = ""
    pays_words: ClassVar[str] = ""
    fast_moments: ClassVar[bool] = False
    has_paylines: ClassVar[bool] = False
    sampler_pays: ClassVar[str] = ""
    reads_rows: ClassVar[bool] = True
    sheet: ClassVar[SheetWords]

    def pay_rows(self, game: Game, level: int, reel_set: str = "base") -> list:
        """Combination-table rows of the rule's pays (no scatter rows)."""
        raise NotImplementedError

    def combination_table(self, game: Game, level: int, reel_set: str = "base") -> pd.DataFrame:
        """The combination table: the rule's rows and the scatter rows
        (:func:`slotmath.engine.combinations.combination_table`)."""
        from slotmath.engine.combinations import combination_table

        return combination_table(game, level, reel_set, pay_rows=self.pay_rows(game, level, reel_set))

    def scatter_rtp(self, game: Game, level: int, reel_set: str = "base") -> Fraction:
        """The scatter pays' RTP [x total bet, exact] (the window's scatters)."""
        from slotmath.engine.combinations import scatter_rtp

        return scatter_rtp(game, level, reel_set)[0]

    def channel_rtp(self, game: Game, level: int, reel_set: str = "base") -> tuple:
        """(RTP of the rule's pays [x total bet, Fraction], RTP per payline [x line bet])."""
        raise NotImplementedError

    def fast_rtp(self, game: Game, level: int, reel_set: str = "base") -> Fraction:
        """The rule's RTP [x total bet, exact] by the quickest exact method."""
        return self.channel_rtp(game, level, reel_set)[0]

    def distribution(self, game: Game, level: int, reel_set: str = "base") -> WinDistribution:
        """Exact law of the spin's total win (pays + scatters)."""
        raise NotImplementedError

    def key_distribution(self, game: Game, level: int, triggers, reel_set: str = "base") -> KeyedWins:
        """Exact joint law of (spin win, key of ``triggers``)."""
        raise NotImplementedError

    def key_table(self, game: Game, level: int, triggers, reel_set: str = "base") -> tuple:
        """(wins [1/unit_den coins], key digits (entries, digits), counts, unit_den):
        the law of :meth:`key_distribution`, keys not decoded."""
        raise NotImplementedError

    def cycle_win(self, game: Game, level: int, reel_set: str = "base") -> int:
        """The rule's pays summed over the cycle [coins, exact]."""
        raise NotImplementedError

    def pay_grid(self, game: Game, level: int) -> tuple:
        """(the coin values one pay can take (their gcd divides every win of
        the rule), a bound on the rule's win of one window) [coins]."""
        raise NotImplementedError

    def notes(self, game: Game) -> list:
        """Method notes of the PAR sheet for the rule's pays."""
        return []

    def unplayed(self, game: Game) -> list:
        """Fields under ``options`` (dotted, e.g. ``"options.free_games.nudge"``) that
        ``game`` declares and the rule does not pay; empty when all are played."""
        return []

    def refusal(self, game: Game) -> tuple | None:
        """(field, problem) of the first field of :meth:`unplayed`, or None."""
        fields = self.unplayed(game)
        if not fields:
            return None
        return fields[0], f"is not played on {self.channel} games (pays_by: {self.name})"


class LinePays(PayRule):
    """Pays along the paylines (``pays_by: lines``): the line engine
    (:mod:`slotmath.engine.lines`, :mod:`slotmath.engine.joint`)."""

    name = "lines"
    channel = "lines"
    pays_words = "line pays"
    fast_moments = True
    has_paylines = True
    sampler_pays = "lines"
    sheet = SheetWords(
        bet="line bet [coins]",
        paytable="Line pays [coins per line at each bet level]",
        form="symbols (from reel 1)",
        paytable_note="Only the highest win per line is paid; wins are paid left to right on adjacent reels.",
        where="",
        hits_over="all lines",
        combinations_note="Hits are summed over all lines; hits per spin is hits / cycle, the "
        "expected number of hits in a spin, not a probability (several lines can "
        "hit in one spin, so it can pass 1). The multiplier is the wild "
        "multiplier on the line; an entry paid at several multipliers has a row for "
        "all of them, then a sub-row per multiplier.",
    )

    def pay_rows(self, game: Game, level: int, reel_set: str = "base") -> list:
        from slotmath.engine.combinations import line_rows

        return line_rows(game, level, reel_set)

    def channel_rtp(self, game: Game, level: int, reel_set: str = "base") -> tuple:
        from slotmath.engine.combinations import line_rtp

        return line_rtp(game, level, reel_set)

    def fast_rtp(self, game: Game, level: int, reel_set: str = "base") -> Fraction:
        from slotmath.engine.combinations import line_rtp_parts

        return line_rtp_parts(game, level, reel_set, scatters=False)["lines"]

    def distribution(self, game: Game, level: int, reel_set: str = "base") -> WinDistribution:
        from slotmath.engine.joint import spin_distribution

        return spin_distribution(game, level, reel_set)

    def key_distribution(self, game: Game, level: int, triggers, reel_set: str = "base") -> KeyedWins:
        from slotmath.engine.joint import spin_key_distribution

        return spin_key_distribution(game, level, triggers, reel_set)

    def key_table(self, game: Game, level: int, triggers, reel_set: str = "base") -> tuple:
        from slotmath.engine.joint import spin_key_table

        return spin_key_table(game, level, triggers, reel_set)

    def cycle_win(self, game: Game, level: int, reel_set: str = "base") -> int:
        from slotmath.engine.lines import pay_tensor
        from slotmath.engine.multilinear import cycle_line_win

        return int(cycle_line_win(game, pay_tensor(game, level).reshaped(), reel_set))

    def pay_grid(self, game: Game, level: int) -> tuple:
        """(the distinct line wins of the pay tensor, the largest x the paylines)."""
        import numpy as np

        from slotmath.engine.lines import pay_tensor

        lines = np.unique(pay_tensor(game, level).wins)
        return [int(v) for v in lines.tolist()], int(lines.max()) * len(game.paylines)


class WaysPays(PayRule):
    """Pays by ways (``pays_by: ways``): :mod:`slotmath.engine.ways`."""

    name = "ways"
    channel = "ways"
    pays_words = "ways pays"
    sampler_pays = "ways"
    reads_rows = False
    sheet = SheetWords(
        bet=_PER_COIN.format("ways"),
        paytable="Ways pays [coins per way at each bet level]",
        form="symbols (from reel 1)",
        paytable_note="Each symbol pays its longest run from reel 1 on adjacent reels, "
        "in any row, times the number of ways (the product of its "
        "matching cells per reel, wild multipliers per way).",
        where="",
        hits_over="all ways",
        combinations_note="Pays by ways: a row's hits are the spins paying that n of a kind (any number "
        "of ways); probability is hits / cycle; the win is the mean win per hit (the pay "
        "times the mean number of ways, wild multipliers included).",
    )

    def pay_rows(self, game: Game, level: int, reel_set: str = "base") -> list:
        from slotmath.engine.ways import ways_table

        return ways_table(game, level, reel_set).to_dict("records")

    def channel_rtp(self, game: Game, level: int, reel_set: str = "base") -> tuple:
        rows = self.pay_rows(game, level, reel_set)
        return sum((r["rtp_exact"] for r in rows), Fraction(0)), []

    def distribution(self, game: Game, level: int, reel_set: str = "base") -> WinDistribution:
        from slotmath.engine.ways import ways_distribution

        return ways_distribution(game, level, reel_set)

    def key_distribution(self, game: Game, level: int, triggers, reel_set: str = "base") -> KeyedWins:
        from slotmath.engine.ways import ways_key_distribution

        return ways_key_distribution(game, level, triggers, reel_set)

    def key_table(self, game: Game, level: int, triggers, reel_set: str = "base") -> tuple:
        from slotmath.engine.ways import ways_key_table

        return ways_key_table(game, level, triggers, reel_set)

    def cycle_win(self, game: Game, level: int, reel_set: str = "base") -> int:
        """The ways RTP x total bet x cycle (a window's ways win is whole coins)."""
        total = self.channel_rtp(game, level, reel_set)[0] * game.bet(level).total_bet * game.cycle(reel_set)
        if total.denominator != 1:
            raise ValueError(f"{game.name}: the ways win summed over the cycle is not whole coins")
        return int(total)

    def pay_grid(self, game: Game, level: int) -> tuple:
        """(the ways pays, every paying symbol's largest pay x the most ways of
        a window: every cell a wild of the largest ``per_wild`` and ``by_count`` factor)."""
        from slotmath.engine.ways import compile_ways

        wp = compile_ways(game, level)
        values = sorted({int(v) for v in wp.pay.ravel().tolist() if v})
        ways = (int(wp.weight.max(initial=1)) * game.rows) ** game.reels * int(wp.factor.max())
        return values, int(wp.pay.max(axis=1, initial=0).sum()) * ways

    def refusal(self, game: Game) -> tuple | None:
        """Also the features not computed with reel heights: every option
        but the free games (without an expanding wild, which would fill the
        cells below the height) and the round cap."""
        options = game.options if isinstance(game.options, dict) else {}
        if game.heights is not None:
            free = options.get("free_games")
            fields = [f"options.{k}" for k in options if k not in ("free_games", "round_cap")]
            if isinstance(free, dict):
                fields += [f"options.free_games.{k}" for k in ("nudge", "sticky") if free.get(k) is not None]
            if fields:
                return fields[0], (
                    "is not computed with reel heights (grid.heights): free games without a nudge "
                    "or a sticky wild, and a round cap, are"
                )
        return super().refusal(game)

    def notes(self, game: Game) -> list:
        return [
            f"Pays by ways: {game.ways_or_lines_text}; a combination's "
            "hits are spins, its win the mean win per hit (pay x mean ways)."
        ]


class Tumbles(PayRule):
    """A pay rule's pays played to the end of their tumbles (``options.tumble``,
    :mod:`slotmath.engine.tumble`): every stop vector played to the end of
    its tumble sequence, each drop paid and cleared by the rule's own drop
    evaluation.  Subclassed with the rule it wraps (first in the bases):
    the combination table is the rule's first drop; the rule's component
    and the law are the whole sequence's."""

    fast_moments: ClassVar[bool] = False
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


class AnywherePays(PayRule):
    """Pays anywhere by count (``pays_by: anywhere``): :mod:`slotmath.engine.anywhere`."""

    name = "anywhere"
    channel = "anywhere"
    pays_words = "pays anywhere"
    sampler_pays = "anywhere"
    reads_rows = False
    sheet = SheetWords(
        bet=_PER_COIN.format("count"),
        paytable="Pays anywhere by count [coins at each bet level]",
        form="count in the window",
        paytable_note="Each symbol pays by its count anywhere in the window (wilds counted toward "
        "the symbols they substitute for); a row pays the counts from its own up to the "
        "next row's, the top row every count above it.",
        where="anywhere",
        hits_over="the symbol's count in the window",
        combinations_note="Pays anywhere by count: a row's hits are the spins whose count of the symbol "
        "(wilds included) falls in its range; probability is hits / cycle; the win is the row's pay.",
    )

    def pay_rows(self, game: Game, level: int, reel_set: str = "base") -> list:
        from slotmath.engine.anywhere import anywhere_table

        return anywhere_table(game, level, reel_set)

    def channel_rtp(self, game: Game, level: int, reel_set: str = "base") -> tuple:
        from slotmath.engine.anywhere import anywhere_rtp

        return anywhere_rtp(game, level, reel_set), []

    def distribution(self, game: Game, level: int, reel_set: str = "base") -> WinDistribution:
        from slotmath.engine.anywhere import anywhere_distribution

        return anywhere_distribution(game, level, reel_set)

    def key_distribution(self, game: Game, level: int, triggers, reel_set: str = "base") -> KeyedWins:
        from slotmath.engine.anywhere import anywhere_key_distribution

        return anywhere_key_distribution(game, level, triggers, reel_set)

    def unplayed(self, game: Game) -> list:
        """Drawn wild multipliers (their law is per payline or way) and the
        free games' sticky and expanding (``nudge``) wilds."""
        options = game.options if isinstance(game.options, dict) else {}
        out = ["options.wild_multipliers"] if "wild_multipliers" in options else []
        free = options.get("free_games")
        if isinstance(free, dict):
            out += [f"options.free_games.{k}" for k in ("sticky", "nudge") if free.get(k) is not None]
        return out

    def notes(self, game: Game) -> list:
        return [
            "Pays anywhere by count: a symbol's count is its cells in the window plus the "
            "wilds substituting for it; a row pays the counts from its own up to the next "
            "row's; hits are spins. RTP by a count convolution per symbol, the law by "
            "inclusion-exclusion over the sets of symbols that all pay (exact)."
        ]


class AnywhereTumbles(Tumbles, AnywherePays):
    """Pays anywhere with tumbles: every cell counted toward a paying symbol
    goes (:func:`slotmath.engine.anywhere.anywhere_drop`)."""

    removed = "the cells of every paying symbol (and the wilds counted for it)"


class WaysTumbles(Tumbles, WaysPays):
    """Ways pays with tumbles: every cell of a paying way goes (the symbol's
    cells and its wilds on reels 1..n of its paying run,
    :func:`slotmath.engine.ways.ways_drop`)."""

    removed = "the cells of every paying way (the symbol's and its wilds on the run's reels)"


class ClusterPays(PayRule):
    """Cluster pays (``pays_by: cluster``): :mod:`slotmath.engine.cluster`."""

    name = "cluster"
    channel = "cluster"
    pays_words = "cluster pays"
    sampler_pays = "cluster"
    sheet = SheetWords(
        bet=_PER_COIN.format("count"),
        paytable="Cluster pays by size [coins at each bet level]",
        form="cluster size",
        paytable_note="Each cluster (orthogonally adjacent cells of one symbol, a wild joining every "
        "cluster it touches) pays the row of its size; every cluster pays.",
        where="in one cluster",
        hits_over="all clusters",
        combinations_note="Cluster pays: a row's hits are the clusters (groups of orthogonally adjacent "
        "cells of the symbol, wilds joining every cluster they touch) whose size falls in its range, "
        "summed over the cycle; probability is hits / cycle; the win is the row's pay.",
    )

    def pay_rows(self, game: Game, level: int, reel_set: str = "base") -> list:
        from slotmath.engine.cluster import cluster_table

        return cluster_table(game, level, reel_set)

    def channel_rtp(self, game: Game, level: int, reel_set: str = "base") -> tuple:
        from slotmath.engine.cluster import cluster_rtp

        return cluster_rtp(game, level, reel_set), []

    def distribution(self, game: Game, level: int, reel_set: str = "base") -> WinDistribution:
        from slotmath.engine.cluster import cluster_distribution

        return cluster_distribution(game, level, reel_set)

    def key_distribution(self, game: Game, level: int, triggers, reel_set: str = "base") -> KeyedWins:
        from slotmath.engine.cluster import cluster_key_distribution

        return cluster_key_distribution(game, level, triggers, reel_set)

    def unplayed(self, game: Game) -> list:
        """As for pays anywhere."""
        return AnywherePays().unplayed(game)

    def notes(self, game: Game) -> list:
        return [
            "Cluster pays: a cluster is a largest group of orthogonally adjacent cells showing one "
            "symbol or a wild substituting for it (at least one of the symbol); a wild joins every "
            "cluster it touches; each cluster pays the row of its size; hits are clusters. Exact: "
            "every stop vector of the cycle flood-filled (stops showing the same window column "
            "merged; integer counts)."
        ]


class ClusterTumbles(Tumbles, ClusterPays):
    """Cluster pays with tumbles: every cell of every paying cluster goes
    (its wilds too, once when in two; :func:`slotmath.engine.cluster.cluster_drop`)."""

    removed = "the cells of every paying cluster (its wilds included)"


#: the pay rule of each value of ``pays_by``
PAY_RULES: dict = {
    "lines": LinePays(),
    "ways": WaysPays(),
    "anywhere": AnywherePays(),
    "cluster": ClusterPays(),
}
#: the pay rule of each value of ``pays_by`` under ``options.tumble``
TUMBLE_RULES: dict = {
    "lines": LineTumbles(),
    "ways": WaysTumbles(),
    "anywhere": AnywhereTumbles(),
    "cluster": ClusterTumbles(),
}


def pay_rule(game: Game) -> PayRule:
    """The pay rule of ``game`` (its ``pays_by``; with tumbles the rule that plays them)."""
    if isinstance(game.options, dict) and "tumble" in game.options and game.pays_by in TUMBLE_RULES:
        return TUMBLE_RULES[game.pays_by]
    return PAY_RULES[game.pays_by]
