"""Pay rules: how one window of a spin is paid, as one object per rule.

A game's ``pays_by`` names its pay rule; :func:`base_rule` (the rule of one
drop) and :func:`slotmath.engine.payrule.pay_rule` (the rule a game plays:
under ``options.tumble`` the rule's pays played to the end of their
tumbles) are the one place outside the pay rules (and the game file reader
and the model that hold the field) that reads it.  Every consumer (the line round of
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

``tumbles``, ``drop_pays(game, level, events)``, ``drop_bound(game, top_pay, mult)``
    True when the rule's pays can tumble; the arguments of one drop's
    evaluation for :func:`slotmath.engine.tumble.tumble_units` (the
    ``(line, count, ways, cluster)`` slots, the rule's own filled, the
    others None); the largest win of one drop [coins] with its words, for
    the tumble's bound (:mod:`slotmath.engine.tumble_spec`).
``fresh_chain``
    True when the pays depend on the symbols' counts alone, so that the
    fresh-draw tumbles' count chain computes them
    (:mod:`slotmath.engine.tumble_fresh`).

A spin stage that wraps a rule is a subclass of it too: under
``options.tumble`` :func:`slotmath.engine.payrule.pay_rule` returns the
rule's pays played to the end of their tumbles
(:mod:`slotmath.engine.payrule`, :mod:`slotmath.engine.tumble`).  The
tumble engine asks the rule of one drop (:func:`base_rule`) for its drop
evaluation, so this module imports nothing of the tumbles.

A new pay rule is one more subclass, one line of :data:`PAY_RULES` and its
compiled window evaluation (one entry of
:data:`slotmath.montecarlo.payeval.PAY_EVALUATIONS`); the exact consumers do
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
    "ClusterPays",
    "PAY_RULES",
    "base_rule",
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
    tumbles: ClassVar[bool] = False
    fresh_chain: ClassVar[bool] = False
    #: the rule's pays are the window's own (not a tumble's first drop of many)
    whole_spin: ClassVar[bool] = True
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

    def drop_pays(self, game: Game, level: int, events=None) -> tuple:
        """The ``(line, count, ways, cluster)`` drop arguments of
        :func:`slotmath.engine.tumble.tumble_units`: this rule's in its slot
        (``events``: the samplers' event index of each pay row), None in
        the others."""
        raise NotImplementedError

    def drop_bound(self, game: Game, top_pay: dict, mult: int) -> tuple:
        """(a bound on one drop's win [coins], its words): ``top_pay`` the
        largest pay of each paying symbol [coins], ``mult`` the wilds'
        largest multipliers' product."""
        raise NotImplementedError

    def tuning_form(self, game: Game, level: int):
        """The rule's fast figures for tuning at bet ``level``: the line pay
        tensor (:func:`slotmath.engine.lines.pay_tensor`) or the ways form
        (:class:`slotmath.engine.ways.WaysForm`); refused in one line by a
        rule the tuner does not model."""
        from slotmath.io.gamefile import GameFileError

        raise GameFileError(
            game.source,
            "pays_by",
            f"{self.name!r} pays: slotmath tune is for line and ways games (pays_by: lines or ways); "
            "use slotmath par / simulate",
        )

    def notes(self, game: Game) -> list:
        """Method notes of the PAR sheet for the rule's pays."""
        return []

    def combinations_scope(self, game: Game) -> str:
        """What the combination table's rows cover when it is not the whole
        of the rule's component (the first drop of a tumble), for the
        table's note; empty when its pay rows sum to the component."""
        return ""

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
    tumbles = True
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

    def tuning_form(self, game: Game, level: int):
        """The line pay tensor (:func:`slotmath.engine.lines.pay_tensor`)."""
        from slotmath.engine.lines import pay_tensor

        return pay_tensor(game, level)

    def drop_pays(self, game: Game, level: int, events=None) -> tuple:
        from slotmath.engine.lines import line_drop_args

        return line_drop_args(game, level), None, None, None

    def drop_bound(self, game: Game, top_pay: dict, mult: int) -> tuple:
        return max(top_pay.values(), default=0) * mult * game.ways_or_lines, "line win on every line"

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
    tumbles = True
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

    def drop_pays(self, game: Game, level: int, events=None) -> tuple:
        from slotmath.engine.ways import ways_drop_args

        return None, None, ways_drop_args(game, level, events), None

    def drop_bound(self, game: Game, top_pay: dict, mult: int) -> tuple:
        return sum(top_pay.values()) * mult * game.ways_or_lines, "pay of every symbol on every way"

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

    def tuning_form(self, game: Game, level: int):
        """:class:`slotmath.engine.ways.WaysForm` (refused with reel heights)."""
        from slotmath.engine.ways import ways_form

        if game.heights is not None:
            from slotmath.io.gamefile import GameFileError

            raise GameFileError(
                game.source,
                "grid.heights",
                "slotmath tune does not model reel heights; use slotmath par / simulate",
            )
        return ways_form(game, level, whole_spin=self.whole_spin)

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


class AnywherePays(PayRule):
    """Pays anywhere by count (``pays_by: anywhere``): :mod:`slotmath.engine.anywhere`."""

    name = "anywhere"
    channel = "anywhere"
    pays_words = "pays anywhere"
    sampler_pays = "anywhere"
    tumbles = True
    fresh_chain = True  # the pays read the symbols' counts alone
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

    def drop_pays(self, game: Game, level: int, events=None) -> tuple:
        from slotmath.engine.anywhere import anywhere_drop_args

        return None, anywhere_drop_args(game, level, events), None, None

    def drop_bound(self, game: Game, top_pay: dict, mult: int) -> tuple:
        return sum(top_pay.values()), "pay of every symbol"

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


class ClusterPays(PayRule):
    """Cluster pays (``pays_by: cluster``): :mod:`slotmath.engine.cluster`."""

    name = "cluster"
    channel = "cluster"
    pays_words = "cluster pays"
    sampler_pays = "cluster"
    tumbles = True
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

    def drop_pays(self, game: Game, level: int, events=None) -> tuple:
        from slotmath.engine.cluster import cluster_drop_args

        return None, None, None, cluster_drop_args(game, level, events)

    def drop_bound(self, game: Game, top_pay: dict, mult: int) -> tuple:
        return sum(top_pay.values()) * game.reels * game.rows, "pay of every symbol on a cluster per cell"

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


#: the pay rule of each value of ``pays_by``
PAY_RULES: dict = {
    "lines": LinePays(),
    "ways": WaysPays(),
    "anywhere": AnywherePays(),
    "cluster": ClusterPays(),
}


def base_rule(game: Game) -> PayRule:
    """The pay rule of one window of ``game`` (its ``pays_by``; under
    ``options.tumble`` the rule of each drop)."""
    return PAY_RULES[game.pays_by]
