"""The contract of a feature: :class:`FeatureKind`, one object per feature.

A feature a game file declares under ``options.<key>`` is one
:class:`FeatureKind`, defined in the feature's own module and listed once in
:mod:`slotmath.features.registry`.  Every consumer (the rules' checks, the
exact round, the sheet's notes and tables, the reel sets and symbols a game
reads) iterates the registry; none branches on a feature's name.

Adding a feature
----------------
1. Write its module in :mod:`slotmath.features`: the parser of its
   declaration (a frozen spec, cached per game, every error one line naming
   its field: :class:`~slotmath.features.declaration.Reader`), its exact
   method as a :class:`~slotmath.features.round.Feature` of the round, and
   one ``FeatureKind`` tying them together.
2. Add one line to :data:`slotmath.features.registry.KINDS`.
3. Document the key in ``docs/features.md`` with a worked example that is
   also a test, and name a game declaring it in ``example``: the
   conformance check (:func:`slotmath.testing.featurecheck.feature_checks`)
   runs every check on it by name.
4. State its tunable tables (``tunables``: every weighted table its exact
   method reads, the components it moves): ``slotmath tune --table``
   offers them, and the conformance check moves each on the example.

Every callable takes the :class:`~slotmath.model.Game` (and the bet level
where figures depend on it); ``law`` is the round's
:class:`~slotmath.features.round.RoundLaw`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Buy", "FeatureKind"]


def _nothing(*args) -> Any:
    return None


@dataclass(frozen=True, eq=False)
class Buy:
    """How a bet mode buys the feature (``modes.NAME.buy: {feature: KEY,
    START: n}``): the feature started at once from a given state, with no
    base spin (docs/features.md, Bet modes).

    Attributes
    ----------
    start : str
        The key of ``buy`` giving the state it starts from (``games``,
        ``coins``); the game-file reader's ``BUYABLE`` names the same (a
        conformance check).
    options : callable
        ``options(game) -> dict``: the ``options`` a bought round of
        ``game`` plays: the feature's own and what plays beside or inside
        it (the base game's other features are not started).
    spec : callable
        ``spec(game, start) -> spec``: the declaration the buy starts
        (``game``: the mode's game); raises GameFileError naming
        ``buy.feature`` when the game does not declare it.
    feature : callable
        ``feature(game, level, spec, start) -> (Feature, notes, cycle,
        key)``: the round's :class:`~slotmath.features.round.Feature`
        started from ``start``, notes saying what is bought, the cycle of the
        reel set it plays and the key of the one "window" that starts it.
    sampler : str
        ``"module:function"`` of its compiled sampler,
        ``function(game, level, spec, start)``: it lives in
        :mod:`slotmath.montecarlo`, a layer above the features, so it is
        named here and imported where a simulation asks for it.
    check : callable
        ``check(game, mode, start)``: refuses a start the game cannot play
        (GameFileError naming ``modes.MODE.buy...``).  Default: none.
    """

    start: str
    options: Callable[..., dict]
    spec: Callable[..., Any]
    feature: Callable[..., tuple]
    sampler: str
    check: Callable[..., None] = _nothing


@dataclass(frozen=True, eq=False)
class FeatureKind:
    """One feature of a line (or ways) round, declared under ``options.<key>``.

    Attributes
    ----------
    key : str
        Its key under ``options:``.
    title : str
        Its name in words (sheet headings, messages).
    parse : callable
        ``parse(game) -> spec``: validates the declaration and returns its
        frozen spec (cached per game); raises
        :class:`~slotmath.io.gamefile.GameFileError` naming the field.
    component : str or None
        The RTP component [x total bet] the feature's awards are paid in, or
        None for a feature that modifies the others' (a cap, drawn
        multipliers, jackpots priced by the features that pay them).
    starts : callable
        ``starts(game) -> bool``: the round plays it as a feature of its own
        (the component is on the sheet).  Default: never.
    exact : callable or None
        ``exact(game, level) -> Feature``: the exact method, a
        :class:`~slotmath.features.round.Feature` of the round (trigger,
        mean and law of its award given the base window's key).
    combines : callable
        ``combines(game)``: refuses, before any feature's declaration is
        read, what the line round does not play beside it (raises
        GameFileError naming the field).  Default: none.
    check : callable
        ``check(game)``: checks beyond the declaration (combinations,
        cost estimates); raises GameFileError.  Default: none.
    reel_sets : callable
        ``reel_sets(game) -> set``: the reel sets it plays on.  Default: none.
    in_free_games : callable
        ``in_free_games(game) -> bool``: the free games' spins play it, so
        their reel set reads the symbols its declaration names.  Default:
        no (a base-game feature).
    free_feature : callable or None
        ``free_feature(game, level, free_reels) -> Feature``: the feature as
        a free game's window starts it, its trigger read on the free reel set
        ``free_reels`` (:mod:`slotmath.features.infree`); played when
        ``in_free_games(game)``.  None: never played inside free games.
    free_figures : callable
        ``free_figures(per_game, games, weighted) -> dict``: its figures per
        round in free games from ``per_game`` (its ``odds`` of the free reel
        set's keys, per free game), ``games`` = E[free games played per
        round] and ``weighted`` = E[games played x their multiplier per
        round] (exact); ``rtp`` [x total bet] and ``event_rates`` (named by
        :func:`~slotmath.features.infree.in_free_games_event`) among them.
    free_sets : callable
        ``free_sets(game) -> set``: the reel sets it reads in free games
        besides theirs (a hold-and-spin's respin set).  Default: none.
    rtp_method, law_method : callable
        ``f(law) -> str``: its words in the round's method notes on the RTP
        and on the distribution (empty when it adds nothing).
    notes : callable
        ``notes(game, law) -> list[str]``: method notes of its own.
    tables : callable
        ``tables(game, figures, rtp, level) -> dict``: its PAR tables,
        ``{title: DataFrame}``, from the round's feature ``figures``, the
        round's ``rtp`` [x total bet] and the bet ``level``; each title
        starts with its capitalised ``title``
        (:mod:`slotmath.rules.featuretables`).
    sampled : bool
        The compiled round sampler plays it, by a slot of its own or by
        ``draws`` (else ``simulate`` refuses a game declaring it, in one line).
    draws : callable or None
        ``draws(game, level) -> (symbol, trigger, values, probabilities)``:
        the sampler part of a feature started by ``trigger`` or more
        ``symbol`` anywhere in the base window whose award does not depend on
        the window: the compiled round's generic slot
        (:func:`slotmath.montecarlo.roundsim.drawn_args`) draws the award
        [x total bet] from this law.  The sampler then checks the trigger
        and the round around the feature, not the award's law (which the
        feature's own tests prove, e.g. by brute force).
    slot : str or None
        ``"module:NAME"`` of its :class:`~slotmath.montecarlo.slots.SamplerSlot`:
        how the compiled round sampler reads its start off the base window,
        plays it (inside free games too) and silences it in a bought round.
        It lives in :mod:`slotmath.montecarlo`, a layer above the features
        (which import no numba), so it is named here; the round kernel
        iterates the slots in the registry's order
        (:mod:`slotmath.montecarlo.roundsim`).  None: no slot of its own.
    example : str or None
        A game file declaring it (path from the repository root), for the
        conformance check.
    schema : dict or None
        The JSON-schema fragment of ``options.<key>`` for the game file's
        schema (``slotmath/io/schema/game.schema.json``, written from the
        registry by ``python -m slotmath.features.registry``); the
        conformance check requires one.
    buy : Buy or None
        How a bet mode buys it, or None: not for sale.
    tunables : callable
        ``tunables(game) -> tuple[Tunable]``: the weight tables its exact
        method reads from the game file, each with the RTP components it
        moves and its degree in the draw probabilities
        (:mod:`slotmath.features.tunables`); the tuner offers these and no
        other list.  Default: none.
    """

    key: str
    title: str
    parse: Callable[..., Any]
    component: str | None = None
    starts: Callable[..., bool] = lambda game: False
    exact: Callable[..., Any] | None = None
    combines: Callable[..., None] = _nothing
    check: Callable[..., None] = _nothing
    reel_sets: Callable[..., set] = lambda game: set()
    in_free_games: Callable[..., bool] = lambda game: False
    free_feature: Callable[..., Any] | None = None
    free_figures: Callable[..., dict] = lambda per_game, games, weighted: {}
    free_sets: Callable[..., set] = lambda game: set()
    rtp_method: Callable[..., str] = lambda law: ""
    law_method: Callable[..., str] = lambda law: ""
    notes: Callable[..., list] = lambda game, law: []
    tables: Callable[..., dict] = lambda game, figures, rtp, level: {}
    sampled: bool = True
    draws: Callable[..., tuple] | None = None
    slot: str | None = None
    example: str | None = None
    schema: dict | None = None
    buy: Buy | None = None
    tunables: Callable[..., tuple] = lambda game: ()

    def declared(self, game) -> bool:
        """The game declares it (``options`` has its key)."""
        return isinstance(game.options, dict) and self.key in game.options
