"""The rules contract: what every game's rules give the rest of slotmath.

A game file names its rules (``rules: lines``, ``rules: piggy_bankin_superlock``,
or a name an installed package registers, see :mod:`slotmath.rules.registry`);
:func:`slotmath.rules.registry.rules_for` returns the :class:`Rules` object
that analyses it.  Callers (the PAR command, simulation, tuning, the
workbench, reports) use only the methods and capability flags below: no
caller asks which rules a game has.

A rules class overrides :meth:`Rules.analyse` (the one method without a
default) and what it can do better than the defaults, and says so with its
capability flags.  Every amount is in units of the total bet [x total bet],
every probability per round [probability]; a figure is a
:class:`fractions.Fraction` when exact, a float64 otherwise (with the error
bound stated in the rules' notes).

Light to import: validating a game file imports this module and the rules'
checks only; the engine is imported by the methods that use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from slotmath.errors import did_you_mean
from slotmath.model import Game
from slotmath.rules import linegame

if TYPE_CHECKING:
    from slotmath.rules.result import ParResult

__all__ = [
    "Rules",
    "LineRules",
    "LineRoundRules",
    "PackageRules",
    "option_parsers",
    "check_options",
    "LINE_OPTIONS",
]


def option_parsers() -> dict[str, Callable[[Game], Any]]:
    """Option key -> the parser that validates ``options.<key>``: each
    registered feature's own (:mod:`slotmath.features.registry`), never the
    rules' that read it."""
    from slotmath.features.registry import feature_kinds

    return {kind.key: kind.parse for kind in feature_kinds()}


def check_options(game: Game, rules: Rules, name: str) -> None:
    """Check that every key under ``options:`` is one ``rules`` reads
    (:attr:`Rules.options`), then run each declared feature's own parser.

    Raises
    ------
    GameFileError
        One line naming the file and ``options.<key>``: a key no rules
        read (with the nearest known key), or a feature these rules do not
        play (listing the keys they read).
    """
    from slotmath.io.gamefile import GameFileError

    opts = game.options or {}
    if not isinstance(opts, dict):
        raise GameFileError(game.source, "options", "must be a mapping (key: value pairs)")
    reads = sorted(rules.options)
    said = f"rules {name!r} read {', '.join(reads)}" if reads else f"rules {name!r} read no options"
    parsers = option_parsers()
    for key in opts:
        if key in rules.options:
            continue
        if key in parsers:
            problem = f"a feature these rules do not play ({said})"
        else:
            problem = f"unknown option ({did_you_mean(key, set(parsers) | rules.options)}{said})"
        raise GameFileError(game.source, f"options.{key}", problem)
    for key in opts:
        if key not in rules.own_options and key in parsers:
            parsers[key](game)
    if "jackpots" in opts and "jackpots" not in rules.own_options:  # the feature parser read them
        from slotmath.features.options import load_features

        for jackpot in load_features(game).progressive:  # the line round alone adds its return
            problem = f"is progressive, which rules {name!r} do not play (rules: lines does)"
            raise GameFileError(game.source, f"options.jackpots.{jackpot}", problem)


class Rules:
    """The rules of a game: exact analysis, tuning figures, sampler, checks.

    Subclasses override :meth:`analyse` and whatever they can do better
    than the defaults, and set the capability flags accordingly.  Instances
    hold no game: every method takes the :class:`~slotmath.model.Game` and
    the bet ``level`` (a value of ``game.levels``).

    Attributes
    ----------
    options : frozenset of str
        The keys under the game file's ``options:`` these rules read; any
        other key is an error (:func:`check_options`).  Features are parsed
        by their own parsers (:func:`option_parsers`) unless listed in
        ``own_options``.
    own_options : frozenset of str
        Keys of ``options`` these rules parse themselves in :meth:`check_game`
        (a key they give a meaning of their own, not a feature's).
    fast_figures : bool
        :meth:`figures` is fast enough to recompute after every change of a
        reel strip (the workbench keeps the live figures up to date).  False:
        :meth:`figures` is the full analysis, computed on request only.
    figures_honour_needed : bool
        :meth:`figures` computes fewer figures when given ``needed`` (so a
        cache of figures must key on it).
    rtp_is_line_form : bool
        The RTP is the line-and-scatter RTP of the reels alone (no feature
        adds to it), so the tuner's line forms model it exactly.
    has_round_sampler : bool
        :meth:`round_sampler` gives a compiled sampler for
        :mod:`slotmath.montecarlo.run`; else :meth:`simulate` is the only
        simulation.
    has_stop_values : bool
        :meth:`stop_values` gives figures exactly multilinear in the stop
        weights (used by the tuner when every tuned reel is weighted).
    plays_feature_kinds : bool
        The game's features are the registry's
        (:mod:`slotmath.features.registry`), played by the generic round,
        so each RTP component is a feature kind's (the tuner models each
        by its kind: :mod:`slotmath.tuning.componentmodels`).
    """

    options: frozenset = frozenset()
    own_options: frozenset = frozenset()
    fast_figures: bool = False
    figures_honour_needed: bool = False
    rtp_is_line_form: bool = False
    has_round_sampler: bool = False
    has_stop_values: bool = False
    plays_feature_kinds: bool = False

    # ----------------------------------------------------------------- checks
    def for_game(self, game: Game) -> Rules:
        """The rules that analyse this particular ``game`` (default: these);
        a rules name whose games differ in kind returns a more specific
        :class:`Rules` here (``lines`` returns its feature round)."""
        return self

    def check(self, game: Game) -> None:
        """Check the game file against these rules: the option keys and each
        declared feature (:func:`check_options`), then :meth:`check_game`.

        Raises
        ------
        GameFileError
            One line naming the file, the field and the problem.
        """
        check_options(game, self, game.rules)
        self.check_game(game)

    def check_game(self, game: Game) -> None:
        """Rule-specific checks beyond the options (default: none)."""

    # ------------------------------------------------------------ exact figures
    def analyse(self, game: Game, level: int) -> ParResult:
        """Exact PAR figures at bet ``level``.

        Returns
        -------
        ParResult
            RTP [x total bet] with its ``components`` summing to it, the
            win distribution of a round, combination table, features,
            report tables and notes.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define analyse()")

    def components(self, game: Game, level: int) -> dict:
        """RTP by component [x total bet] (the same keys and values as
        ``analyse(game, level).components``), computed as cheaply as the
        rules allow.  Default: from :meth:`analyse`."""
        return dict(self.analyse(game, level).components)

    def part_components(self, game: Game, level: int) -> dict:
        """Exact mean of each part of the round sampler's win [x total bet],
        keyed by the sampler's ``part_names``.  Default: :meth:`components`
        (rules whose sampler splits its win as the PAR does)."""
        return self.components(game, level)

    def unpaid_components(self, game: Game) -> frozenset:
        """Names of RTP components that are not a win of the round (for
        example a progressive jackpot's meter contribution): the mean of
        ``analyse(...).distribution`` is the RTP less these (default: none)."""
        return frozenset()

    def feature_tables(self, game: Game, level: int) -> dict:
        """Report tables of the features ``{title: DataFrame}`` (the
        ``tables`` of :meth:`analyse`)."""
        return dict(self.analyse(game, level).tables)

    def exact_events(self, game: Game, level: int) -> dict:
        """Expected count per round of each event the round sampler reports
        beyond the combination table [1/round] (default: none)."""
        return {}

    # --------------------------------------------------------------- sampling
    def round_sampler(self, game: Game, level: int):
        """Compiled round sampler (:class:`slotmath.montecarlo.run.Sampler`)
        when :attr:`has_round_sampler`."""
        raise NotImplementedError(f"rules {game.rules!r} have no compiled round sampler")

    def simulate(self, game: Game, level: int, spins: int, seed: int = 0):
        """Monte Carlo run of ``spins`` rounds with z-scores against the exact
        figures, for rules without a compiled round sampler."""
        raise NotImplementedError(f"rules {game.rules!r} have no simulation")

    # ----------------------------------------------------------------- tuning
    def figures(self, game: Game, level: int, reel_set: str = "base", needed: Iterable | None = None) -> dict:
        """Named exact figures for tuning (see :mod:`slotmath.analysis.metrics`):
        at least ``rtp``; ``needed`` (figure names, None for all) may let
        :attr:`figures_honour_needed` rules skip work.  Default: the figures
        of :meth:`analyse` (:func:`slotmath.rules.figures.par_figures`)."""
        from slotmath.rules.figures import par_figures

        return par_figures(self.analyse(game, level))

    def full_figures(self, game: Game, level: int, reel_set: str = "base") -> dict:
        """Every figure of the full analysis: :meth:`figures` (when fast)
        overlaid with the figures of :meth:`analyse`."""
        from slotmath.rules.figures import par_figures

        figs = self.figures(game, level, reel_set) if self.fast_figures else {}
        figs.update(par_figures(self.analyse(game, level)))
        return figs

    def stop_values(self, game: Game, level: int, reel_set: str = "base") -> dict:
        """``{figure: [a_0, a_1, ...]}``: per reel, the coefficients of each
        stop weight in the figures that are exactly multilinear in the stop
        weights (see :class:`slotmath.tuning.linearmodels.StopForms`), when
        :attr:`has_stop_values`."""
        raise NotImplementedError(f"rules {game.rules!r} give no stop values")

    def tuning_constraints(self, game: Game) -> dict:
        """Targets the rules add to every tuning: ``{"rtp_figures": [...],
        "bands": {figure: (lo, hi)}}`` (default: none)."""
        return {}

    def equivalent_levels(self, game: Game) -> dict:
        """Map each bet level to a level with provably the same figures
        (default: each level stands alone)."""
        return {lv: lv for lv in game.levels}


#: Option keys ``rules: lines`` reads (the features its round plays); a
#: feature that joins the line round adds its key here.
LINE_OPTIONS: frozenset = frozenset(linegame.played_options())


class LineRules(Rules):
    """``rules: lines``: line (or ways) and scatter pays on one reel set.

    Delegates to the functions of :mod:`slotmath.rules.linegame`; its
    tuning figures are the fast exact line figures
    (:func:`slotmath.rules.figures.line_figures`: contraction and moments).
    """

    options = LINE_OPTIONS
    own_options = LINE_OPTIONS  # parsed by linegame.check, feature by feature
    fast_figures = True
    figures_honour_needed = True
    rtp_is_line_form = True
    has_round_sampler = True
    plays_feature_kinds = True

    def check_game(self, game: Game) -> None:
        """The line round's feature checks (:func:`slotmath.rules.linegame.check`)
        on the options it plays; keys a subclass adds are the subclass's."""
        extra = self.options - LINE_OPTIONS
        if extra and game.options:
            game = dataclasses.replace(
                game, options={k: v for k, v in game.options.items() if k not in extra}
            )
        # a subclass's own keys may read reel sets and symbols the line round does not
        linegame.check(game, unread=not extra)
        if game.modes:  # each mode's game, checked as a game of these rules
            from slotmath.rules.modes import check_modes

            check_modes(game, self)

    def analyse(self, game: Game, level: int) -> ParResult:
        return linegame.analyse(game, level)

    def components(self, game: Game, level: int) -> dict:
        """Lines (or ways), scatters and each declared feature's exact mean,
        without the round's distribution (:func:`slotmath.rules.linegame.components`)."""
        return linegame.components(game, level)

    def part_components(self, game: Game, level: int) -> dict:
        """:meth:`components` less the progressive jackpots' returns, which no
        round pays (:meth:`unpaid_components`)."""
        unpaid = self.unpaid_components(game)
        return {k: v for k, v in self.components(game, level).items() if k not in unpaid}

    def unpaid_components(self, game: Game) -> frozenset:
        """``progressive NAME`` of each progressive jackpot: its return is not
        a coin win of the round (:func:`slotmath.rules.linegame.progressive_components`)."""
        return frozenset(linegame.PROGRESSIVE + name for name in linegame.progressive_jackpots(game))

    def for_game(self, game: Game) -> Rules:
        """A line game that declares features (or a round cap) plays the
        generic feature round: :data:`LINE_ROUND`."""
        return LINE_ROUND if linegame.has_round(game) else self

    def round_sampler(self, game: Game, level: int):
        return linegame.round_sampler(game, level)

    def simulate(self, game: Game, level: int, spins: int, seed: int = 0):
        return linegame.simulate(game, level, spins, seed)

    def figures(self, game: Game, level: int, reel_set: str = "base", needed: Iterable | None = None) -> dict:
        from slotmath.engine.payrule import pay_rule

        rule = pay_rule(game)
        if not rule.fast_moments:
            from slotmath.rules.figures import RTP_FIGURES, rule_rtp_figures

            if (
                needed is not None
                and not game.options
                and set(needed) <= RTP_FIGURES | {f"rtp:{rule.channel}"}
            ):
                return rule_rtp_figures(game, level, reel_set)
            return super().figures(game, level, reel_set, needed)
        from slotmath.rules.figures import line_figures

        return line_figures(game, level, reel_set, needed)

    def full_figures(self, game: Game, level: int, reel_set: str = "base") -> dict:
        """Line games: every line figure with the joint distribution (adds
        the max win); ways games: the figures of :meth:`analyse`."""
        return self.figures(game, level, reel_set)

    def equivalent_levels(self, game: Game) -> dict:
        """Levels whose pays are proportional to the level share the figures
        of the lowest level (every figure is per unit of total bet)."""
        levels = game.levels
        base = levels[0]
        out = {}
        for i, lv in enumerate(levels):
            same = all(lp.pays[i] * base == lp.pays[0] * lv for lp in game.line_pays)
            out[lv] = base if same else lv
        return out


class LineRoundRules(LineRules):
    """``rules: lines`` with declared features: a base spin followed by the
    features its window triggers (:mod:`slotmath.features.round`).  Its
    full figures are those of the whole round's exact analysis; its tuning
    figures skip the round's distribution when ``needed`` allows
    (:meth:`figures`); its RTP is not multilinear in the stops."""

    rtp_is_line_form = False

    def for_game(self, game: Game) -> Rules:
        return self

    def figures(self, game: Game, level: int, reel_set: str = "base", needed: Iterable | None = None) -> dict:
        """With ``needed`` that leaves out ``max_win``: the round's figures
        without its distribution (:func:`slotmath.rules.figures.round_figures`:
        the same exact RTP and components, hit frequency, SD and VI from the
        round's moments); else, or where the round needs it, those of the
        full analysis."""
        from slotmath.rules.figures import par_figures, round_figures

        if needed is not None and "max_win" not in set(needed):
            figs = round_figures(game, level, reel_set)
            if figs is not None:
                return figs
        return par_figures(self.analyse(game, level))

    def full_figures(self, game: Game, level: int, reel_set: str = "base") -> dict:
        return self.figures(game, level, reel_set)


#: The generic feature round of ``rules: lines`` (see :meth:`LineRules.for_game`).
LINE_ROUND = LineRoundRules()


class PackageRules(Rules):
    """Rules whose analysis is a module of their own package, imported when
    first used (validating a game imports only the rules' checks).

    ``analysis`` names that module; it provides ``analyse``,
    ``exact_events``, ``round_sampler`` and ``simulate`` with the
    contract's signatures, to which these methods delegate.
    """

    #: dotted name of the analysis module (set by the subclass)
    analysis: str = ""
    plays_feature_kinds = False  # a game's own package plays its own features

    def module(self) -> Any:
        """The analysis module (imported on first use)."""
        import importlib

        return importlib.import_module(self.analysis)

    def analyse(self, game: Game, level: int) -> ParResult:
        return self.module().analyse(game, level)

    def exact_events(self, game: Game, level: int) -> dict:
        return self.module().exact_events(game, level)

    def round_sampler(self, game: Game, level: int):
        return self.module().round_sampler(game, level)

    def simulate(self, game: Game, level: int, spins: int, seed: int = 0):
        return self.module().simulate(game, level, spins, seed)
