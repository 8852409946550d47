"""Analyser for plain line-and-scatter games (``rules: lines``).

Light to import (validating a game file imports it for :func:`check`): the
engine is imported by the functions that use it.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, NoReturn

from slotmath.errors import EngineTooLarge, ensure
from slotmath.model import Game

if TYPE_CHECKING:
    from slotmath.montecarlo.results import SimulationResult
    from slotmath.rules.result import ParResult

#: what the round law without the drawn multipliers' rewrite covers (the end
#: of each refusal of :func:`drawn_law_refusal`)
DRAWN_LAW_SCOPE = (
    "the law without the rewrite is computed on paylines and ways, for a spin with free games at most "
    "(a wheel or a hold-and-spin beside them or inside them too), under a round cap or not (still "
    "refused: reel heights, any other feature beside or inside the free games, its exact RTP "
    "given, and free games with a sticky wild, a nudge or the drawn wild as their trigger)"
)
#: features computed beside the free games of a drawn round: their award
#: reads only the base window's trigger key (none reads the wilds; a
#: hold-and-spin's is its coin count, per-reel counts or per-reel rows,
#: whichever its landing needs, its coin values drawn from its tables), so
#: the round is the base law keyed by their trigger too, convolved with
#: their award law per key (paylines and ways); inside the free games too
#: (``in_free_games``: the free spin's law keyed by their trigger beside the
#: retrigger's, :func:`slotmath.features.drawnlaw.drawn_free_table`)
DRAWN_BESIDE = ("wheel", "hold_and_spin")
#: features whose RTP component beside drawn wild multipliers is the undrawn
#: game's (:func:`drawn_components`), beside the free games or inside them
#: (``in_free_games``): none reads a wild's multiplier (the round's
#: distribution is computed beside or inside them with :data:`DRAWN_BESIDE` only)
DRAWN_RTP_BESIDE = (*DRAWN_BESIDE, "pick", "selection")
#: relative tolerance [x RTP] of the check of a drawn round's distribution
#: mean (with its unresolved tail) against its exact RTP, beyond the base
#: law's stated bound: the award laws' float rounding (FFT grids, whose
#: wrapped mass is below 1e-12)
ROUND_MEAN_TOLERANCE = 1e-9


def analyse(game: Game, level: int, reel_set: str = "base") -> ParResult:
    """Exact PAR of a line game at bet ``level``: combination table,
    RTP by channel and the distribution of the total spin win."""
    try:
        return _fresh_floats(game, level, _analyse(game, level, reel_set))
    except EngineTooLarge as e:  # a refusal naming its field but not yet the game's file
        if not e.field or e.file:
            raise
        raise EngineTooLarge(e.problem, file=game.source or game.name, field=e.field) from None


def _fresh_floats(game: Game, level: int, result: ParResult) -> ParResult:
    """``result`` with its RTP and components as float64 when a fresh-draw
    tumble chain was computed in float64 (its notes state the bound): a
    fraction of the rounded law would read as exact."""
    tumble = game.options.get("tumble") if isinstance(game.options, dict) else None
    if not isinstance(tumble, dict) or tumble.get("refill") != "fresh":
        return result
    from slotmath.engine.distribution import MaxWin
    from slotmath.engine.tumble_fresh import fresh_keyed

    if all(fresh_keyed(game, level, (), name).exact for name in tumble.get("draws", {})):
        return result
    components = {k: float(v) for k, v in result.components.items()}
    top = result.true_max_win
    top = MaxWin(
        top.value,
        None if top.probability is None else float(top.probability),
        False,
        "largest win of the float64 fresh-draw chain's law (a lower bound: the chain stops where "
        "every further drop pays with the probability its notes give)",
    )
    # the round's notes describe the strip-refill engine's exact laws: say what this game used
    words = {
        "RTP by component is exact": "RTP by component is float64 (fresh draws)",
        "itself exact from the pay rule's pass": "itself float64 from the fresh-draw chain (reel set notes)",
    }
    notes = []
    for n in result.notes:
        for old, new in words.items():
            n = n.replace(old, new)
        notes.append(n)
    return dataclasses.replace(result, rtp=float(result.rtp), components=components, max_win=top, notes=notes)


def _analyse(game: Game, level: int, reel_set: str) -> ParResult:
    if drawn_too_large(game):
        reason = drawn_law_refusal(game, reel_set)
        if reason is not None:
            _refuse_drawn_distribution(game, level, reason)
        return _analyse_drawn(game, level, reel_set)
    if game.heights is not None and not game.heights.written:
        from slotmath.engine.reels import height_game

        result = _analyse_lines(height_game(game), level, reel_set)
        return dataclasses.replace(result, game=game, notes=[*result.notes, heights_note(game, result.cycle)])
    played = played_game(game)
    if played is game:
        return _analyse_lines(game, level, reel_set)
    from slotmath.engine.limits import EngineTooLarge

    try:
        result = _analyse_lines(played, level, reel_set)
    except EngineTooLarge as exc:  # the draws as stops: too many states
        _refuse_drawn_distribution(game, level, str(exc).split(": ", 1)[-1])
    channel, unit = _drawn_channel(game)
    drawn = drawn_channel_rtp(game, level, reel_set)
    ensure(drawn == result.components[channel], "drawn multipliers: the two methods disagree")
    how = "multiplied" if played.options["wild_multipliers"].combine == "multiply" else "added"
    note = (
        f"Wild multipliers drawn from a table ({how} on a {unit}): every draw is written into the stops "
        f"(cycle {result.cycle:,} is the rewritten one); the figures are exact over it, and the {channel} "
        f"RTP equals the one from the law of the counted wilds on each {unit}."
    )
    return dataclasses.replace(result, notes=[*result.notes, note])


def drawn_law_refusal(game: Game, reel_set: str = "base") -> str | None:
    """Why the round law of a game whose drawn multipliers do not fit as stops
    is not computed from the draw profiles of its windows
    (:func:`slotmath.features.drawnlaw.drawn_keyed_law`), or None when it
    is: the rewrite's reason, then what is still refused -- a reel set above
    :data:`~slotmath.features.drawnlaw.MAX_DRAWN_WINDOWS` windows (on ways
    :func:`_drawn_ways_cost_refusal`), reel
    heights, any feature but free games (a feature beside or inside them,
    ``in_free_games`` named by that field: only its RTP is computed,
    :func:`drawn_components`), and free games with a sticky wild, a nudge or
    the drawn wild as their trigger.  Free games with retrigger prizes, a reel set per trigger
    count, unpaid scatters (``scatter_pays: false``), trigger reels or a
    count on a payline, base reels that show the drawn wild, a round cap and
    a wheel or a hold-and-spin beside the free games or inside them
    (:func:`_drawn_beside`) are computed."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.drawnlaw import (
        MAX_DRAWN_SECONDS,
        MAX_DRAWN_WINDOWS,
        WINDOWS_PER_SECOND,
        drawn_law_cost,
        shows_wild,
    )
    from slotmath.features.options import load_features
    from slotmath.features.registry import declared_kinds
    from slotmath.features.wildmult import load_wild_multipliers, rewrite_refusal

    reason = rewrite_refusal(game)
    names = sorted(reel_sets_read(game) | {reel_set})
    spec = load_wild_multipliers(game)
    ensure(spec is not None, "linegame.py: expected spec is not None")
    beside = _drawn_beside(game, spec.symbol)
    if not pay_rule(game).has_paylines:
        over_ways = _drawn_ways_cost_refusal(game, reason, names, beside)
        if over_ways is not None:
            return over_ways
        costs = {}
    else:
        costs = {name: drawn_law_cost(game, name) for name in names}
    over = {name: cost for name, cost in costs.items() if cost > MAX_DRAWN_WINDOWS and shows_wild(game, name)}
    if over:
        name, cost = max(over.items(), key=lambda item: item[1])
        return (
            f"{reason}; the law of reel set {name!r} would list {cost:.3g} windows, "
            f"above {MAX_DRAWN_WINDOWS:.2g} ({MAX_DRAWN_SECONDS} s at {WINDOWS_PER_SECOND:.2g} a second)"
        )
    others = [
        k
        for k in game.options
        if k in played_options() and k not in ("wild_multipliers", "free_games", "round_cap", *beside)
    ]
    if game.heights is not None or others:
        inside = {kind.key for kind in declared_kinds(game) if kind.in_free_games(game)}
        fields = [f"options.{k}" + (".in_free_games" if k in inside else "") for k in others]
        what = "reel heights" if game.heights is not None else ", ".join(fields)
        return f"{reason}; {what}: {DRAWN_LAW_SCOPE}"
    free = load_features(game).free_games
    if free is None:
        return None
    simple = free.sticky is None and free.nudge is None and isinstance(free.symbol, str)
    if not simple or free.symbol == spec.symbol:
        return f"{reason}; options.free_games: {DRAWN_LAW_SCOPE}"
    return None


def _drawn_beside(game: Game, wild: str) -> tuple:
    """Keys of the declared features of :data:`DRAWN_BESIDE` the drawn law
    computes beside the free games (and inside them, ``in_free_games``):
    started by the base window, by a symbol other than the drawn ``wild``."""
    from slotmath.features.registry import declared_kinds

    return tuple(
        kind.key
        for kind in declared_kinds(game)
        if kind.key in DRAWN_BESIDE
        and kind.starts(game)
        and getattr(kind.parse(game), "symbol", None) != wild
    )


def _drawn_ways_cost_refusal(game: Game, reason: str | None, names: list, beside: tuple = ()) -> str | None:
    """The part of :func:`drawn_law_refusal` proper to a ways game: a reel
    set of ``names`` showing the drawn wild whose spin law without the
    rewrite (:func:`slotmath.features.drawnwayslaw.drawn_ways_law`, keyed by
    the free games' trigger key and those of the features ``beside`` them,
    :func:`_drawn_beside`) would list more than
    :data:`~slotmath.features.drawnwayslaw.MAX_WAYS_TERMS` terms, or None."""
    from slotmath.features.drawnlaw import MAX_DRAWN_SECONDS, shows_wild
    from slotmath.features.drawnwayslaw import MAX_WAYS_TERMS, WAYS_TERMS_PER_SECOND, drawn_ways_cost
    from slotmath.features.options import load_features
    from slotmath.features.registry import declared_kinds
    from slotmath.features.round import round_triggers

    if game.heights is not None:
        return None  # refused by drawn_law_refusal's next check
    free = load_features(game).free_games
    started = [free] if free is not None and isinstance(free.symbol, str) else []
    kinds = {kind.key: kind for kind in declared_kinds(game)}
    started += [kinds[name].exact(game, game.levels[0]) for name in beside]
    key = _drawn_key(round_triggers(started))
    costs = {name: drawn_ways_cost(game, name, key) for name in names if shows_wild(game, name)}
    over = {name: cost for name, cost in costs.items() if cost > MAX_WAYS_TERMS}
    if not over:
        return None
    name, cost = max(over.items(), key=lambda item: item[1])
    return (
        f"{reason}; the ways law of reel set {name!r} would list {cost:.3g} terms (window classes x "
        f"draw values), above {MAX_WAYS_TERMS:.2g} ({MAX_DRAWN_SECONDS} s at {WAYS_TERMS_PER_SECOND:.2g} "
        "a second)"
    )


def _analyse_drawn(game: Game, level: int, reel_set: str) -> ParResult:
    """:func:`analyse` of a line or ways game whose drawn multipliers do not
    fit as stops: the RTP and combination table exact from the law of the
    counted wilds (:func:`slotmath.features.wilddraws.drawn_line_figures`;
    on ways :func:`slotmath.features.drawnways.drawn_ways_figures`, hits
    over the game's own cycle), the spin's law float64 from the draw
    profiles of its windows (:func:`slotmath.features.drawnlaw.drawn_keyed_law`;
    on ways :func:`slotmath.features.drawnwayslaw.drawn_ways_law`),
    its mean checked against the exact RTP within its stated bound.  With
    free games the free spin's float table with the draws
    (:func:`slotmath.features.drawnlaw.drawn_free_table`) and the base spin's
    law of (win, trigger count): the undrawn game's exact one when the base
    reels do not show the drawn wild, else the float one from the draw
    profiles (:func:`_drawn_round`); the round's RTP is exact and checked
    equal to :func:`drawn_components`'s."""
    from slotmath.engine.combinations import combination_table
    from slotmath.engine.distribution import MaxWin
    from slotmath.features.drawnlaw import drawn_keyed_law, shows_wild
    from slotmath.features.round import round_triggers
    from slotmath.features.wilddraws import drawn_line_figures
    from slotmath.rules.result import ParResult

    undrawn = dataclasses.replace(
        game, options={k: v for k, v in game.options.items() if k != "wild_multipliers"}
    )
    channel, unit = _drawn_channel(game)
    if unit == "way":
        from slotmath.features.drawnways import drawn_ways_figures

        figures = drawn_ways_figures(game, level, reel_set)
        per_line: list = []
    else:
        figures = drawn_line_figures(game, level, reel_set)
        per_line = figures.per_line
    table = combination_table(undrawn, level, reel_set, pay_rows=figures.rows)
    components = {channel: figures.rtp}
    if game.scatter_pays:
        components["scatters"] = sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
    rtp = sum(components.values(), Fraction(0))
    features = round_features(game, level) if reel_set == "base" else []
    cap = round_cap(game) if reel_set == "base" else None
    how = "multiplied" if load_drawn(game).combine == "multiply" else "added"
    if features and not shows_wild(game, reel_set):
        from slotmath.engine.payrule import pay_rule

        # the base reels do not show the drawn wild: the undrawn game's exact law is the drawn one
        keyed = pay_rule(undrawn).key_distribution(undrawn, level, round_triggers(features), reel_set)
        base = _par_result(
            game,
            level,
            reel_set,
            table,
            channel,
            figures.rtp,
            keyed.marginal(),
            per_line_rtp=per_line,
            notes=pay_rule_notes(game),
        )
        result = _with_round(game, level, base, keyed, features, cap)
        exact = sum(drawn_components(game, level).values(), Fraction(0))
        uncapped = sum((v for k, v in result.components.items() if k != "round_cap"), Fraction(0))
        ensure(
            uncapped == exact and (cap is not None or result.rtp == exact),
            "drawn law: the round's RTP != the law of the counted wilds'",
        )
        note = (
            f"Wild multipliers drawn from a table ({how} on a {unit}), not written as stops: the RTP is "
            f"exact from the law of the counted wilds on each {unit}; the free spin's law (win, retrigger "
            "count) is float64 over the draw profiles of its windows (each probability within the relative "
            "error its module states, about 1e-15), its mean checked against the exact one."
        )
        return dataclasses.replace(result, notes=[*result.notes, note])
    key = _drawn_key(round_triggers(features))
    if unit == "way":
        from slotmath.features.drawnwayslaw import drawn_ways_law

        law = drawn_ways_law(game, level, reel_set, key)
    else:
        law = drawn_keyed_law(game, level, reel_set, key)
    dist, bound = law.marginal(game.bet(level).total_bet)
    ensure(abs(float(dist.mean) - float(rtp)) <= 4 * bound * float(rtp) + 1e-15, "drawn law: mean != RTP")
    words = "the distribution (hit frequency, SD, VI, max win)" if not features else "the base spin's law"
    note = (
        f"Wild multipliers drawn from a table ({how} on a {unit}), not written as stops: the RTP and the "
        f"combination table are exact from the law of the counted wilds on each {unit} (cycle "
        f"{game.cycle(reel_set):,}); {words} is float64 over every window and the law of its draw profile, "
        f"each probability within relative error {bound:.1e}."
    )
    if unit == "line":
        note += (
            " In the combination table a row's multiplier is the mean over the draws of the wilds its "
            "line counts (1 when it counts none) and its win [coins] the pay times that mean; a row naming "
            "several pays ('2 x A or 3 x A') is a line whose best pay depends on the draws, its multiplier "
            "its mean win over the largest of those pays."
        )
    if cap is not None and not features:
        note += (
            " Under the round cap the RTP is the exact one less the cap's cut E[(win - cap)+], float64 "
            "from that law (within the same relative bound)."
        )
    base = ParResult(
        game=game,
        bet=game.bet(level),
        cycle=game.cycle(reel_set),
        rtp=rtp,
        components=components,
        distribution=dist,
        combinations=table,
        per_line_rtp=per_line,
        notes=[*pay_rule_notes(game), note],
        max_win=MaxWin(
            dist.max_win,
            float(dist.max_win_probability),
            False,
            "largest win over every window and every draw (exact); its probability float64",
        ),
    )
    if not features:
        return base if cap is None else _capped_spin(base, dist, cap)
    return _drawn_round(game, level, base, undrawn, law, features, cap)


def _drawn_round(
    game: Game, level: int, base: ParResult, undrawn: Game, law, features: list, cap=None
) -> ParResult:
    """The round of free games after a base spin whose reels show the drawn
    wild (:func:`_analyse_drawn`): the RTP, components and feature figures
    exact (the trigger counts' probabilities are the undrawn game's: no
    trigger reads the draws; the base spin's RTP is ``base``'s, from the
    counted wilds), the distribution float64 from the base spin's float law
    of (win, trigger count) ``law`` (:class:`~slotmath.features.drawnlaw.DrawnLaw`,
    each probability within its bound) and the features' award laws, its
    mean checked against the exact RTP.  Under a round ``cap`` [x total
    bet] the distribution is the capped one and the RTP (float) the exact
    one less the cap's cut ``E[(win - cap)+]`` (component ``round_cap``,
    float, from the uncapped distribution)."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.round import RoundLaw, round_distribution, round_law, round_triggers

    source = game.source or game.name
    bet = game.bet(level).total_bet
    exact_keys = pay_rule(undrawn).key_distribution(undrawn, level, round_triggers(features), "base")
    counted = round_law(exact_keys, features, distribution=False, source=source)
    keyed = law.keyed(bet)  # float probabilities over a cycle of 1
    dist, dropped, shortfall, over = round_distribution(keyed, features, source, cap)
    rtp = base.rtp + sum(counted.components.values(), Fraction(0))
    ensure(
        rtp == sum(drawn_components(game, level).values(), Fraction(0)),
        "drawn law: the round's RTP != the law of the counted wilds'",
    )
    # the base part's mean is within 4 x bound of its exact RTP (checked by
    # _analyse_drawn); the awards' float laws add their own (FFT) rounding
    tolerance = 4 * law.bound * float(base.rtp) + ROUND_MEAN_TOLERANCE * float(rtp)
    mean = float(dist.mean) + shortfall + over  # the uncapped round's
    ensure(
        abs(mean - float(rtp)) <= tolerance,
        f"drawn law: the round's mean {mean!r} is not its RTP {float(rtp)!r}",
    )
    parts = counted.components if cap is None else {**counted.components, "round_cap": -over}
    shown = rtp if cap is None else float(rtp) - over
    round_ = RoundLaw(shown, parts, dist, counted.key_probability, dropped, counted.figures, shortfall)
    result = _with_round(game, level, base, keyed, features, cap, round_)
    note = (
        "Wild multipliers drawn on the base reels too, not written as stops: the RTP, its components and "
        f"the trigger odds are exact (the counted wilds on each {_drawn_channel(game)[1]}; no trigger reads "
        "the draws); float64: "
        f"the base spin's law of (win, {_round_key_words(features)}) over the draw profiles of its "
        f"windows (each probability within relative error {law.bound:.1e}), the free spin's law of (win, "
        "retrigger count) likewise (within the bound its module states, about 1e-15) and the round's "
        "distribution built from them, its mean (with the unresolved tail) checked against the exact RTP "
        f"within {ROUND_MEAN_TOLERANCE:g} relative."
    )
    if cap is not None:
        note += (
            " Under the round cap the RTP is that exact RTP less the cap's cut E[(win - cap)+], float64 "
            "from the uncapped distribution."
        )
    return dataclasses.replace(result, notes=[*result.notes, note])


def _drawn_key(triggers: list):
    """The trigger key of a drawn base law (:func:`slotmath.features.drawnlaw.key_codes`)
    for the round's distinct ``triggers`` (:func:`~slotmath.features.round.round_triggers`):
    None without one, the one, or the tuple of several (a feature beside
    the free games, :data:`DRAWN_BESIDE`)."""
    if not triggers:
        return None
    return triggers[0] if len(triggers) == 1 else tuple(triggers)


def _round_key_words(features: list) -> str:
    """The round's trigger keys in words (:func:`_key_words`), joined."""
    from slotmath.features.round import round_triggers

    return " and ".join(_key_words(t) for t in round_triggers(features))


def _key_words(trigger) -> str:
    """What a trigger key is, in words: ``"S count"``, ``"S count per reel"``
    (a reel condition) or ``"S rows per reel"`` (a count on a payline)."""
    what = "rows" if trigger.rows else "count"
    return f"{trigger.symbol} {what}" + (" per reel" if trigger.per_reel else "")


def load_drawn(game: Game):
    """The parsed ``options.wild_multipliers`` of ``game``."""
    from slotmath.features.wildmult import load_wild_multipliers

    spec = load_wild_multipliers(game)
    ensure(spec is not None, "linegame.py: expected spec is not None")
    return spec


def pay_rule_notes(game: Game) -> list:
    """The pay rule's notes on ``game`` and its dead pays' warnings."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.reach import dead_pays

    return [*pay_rule(game).notes(game), *(f"Warning: {d}." for d in dead_pays(game))]


def _drawn_channel(game: Game) -> tuple:
    """(pay channel, "line" or "way") of a game with drawn wild multipliers."""
    from slotmath.engine.payrule import pay_rule

    rule = pay_rule(game)
    return rule.channel, "line" if rule.has_paylines else "way"


def drawn_channel_rtp(game: Game, level: int, reel_set: str = "base") -> Fraction:
    """The pay channel's RTP [x total bet, exact] of a game with drawn wild
    multipliers from the law of the counted wilds on each line or way, no
    rewrite (:func:`slotmath.features.wilddraws.drawn_line_figures`,
    :func:`slotmath.features.drawnways.drawn_ways_figures`)."""
    if _drawn_channel(game)[1] == "way":
        from slotmath.features.drawnways import drawn_ways_figures

        return drawn_ways_figures(game, level, reel_set).rtp
    from slotmath.features.wilddraws import drawn_line_figures

    return drawn_line_figures(game, level, reel_set).rtp


def sampled_drawn_game(game: Game) -> Game:
    """The game the compiled sampler plays when the drawn multipliers do not
    fit as stops (:func:`drawn_too_large`): the multiplier's variant symbols
    with the declared strips (:func:`slotmath.features.wildmult.drawn_symbols`),
    each wild's multiplier drawn in the window
    (:func:`slotmath.montecarlo.linesim.draw_wilds`; on ways
    :func:`slotmath.montecarlo.wayssim.draw_window_features`).  No sticky
    free-games wild (its held window is not drawn): else refused in one
    line (:class:`~slotmath.errors.SetupError`)."""
    from slotmath.errors import SetupError
    from slotmath.features.options import load_features
    from slotmath.features.wildmult import drawn_symbols, rewrite_refusal

    free = load_features(game).free_games
    if free is not None and free.sticky is not None:
        raise SetupError(
            f"{game.source or game.name}: options.wild_multipliers.table: {rewrite_refusal(game)}; "
            "the compiled sampler does not draw the multipliers of a sticky free-games wild, so `simulate` "
            "cannot"
        )
    return drawn_symbols(game)


def drawn_too_large(game: Game) -> bool:
    """True when ``game`` declares drawn wild multipliers whose draws written
    as stops leave the engine's counts (:func:`slotmath.features.wildmult.rewrite_refusal`)."""
    if not game.options or "wild_multipliers" not in game.options:
        return False
    from slotmath.features.wildmult import rewrite_refusal

    return rewrite_refusal(game) is not None


def _refuse_drawn_distribution(game: Game, level: int, reason: str | None) -> NoReturn:
    """Refuse the round distribution of a game whose drawn multipliers do not
    fit the rewrite (``reason``), in one line that gives its exact RTP
    (:func:`drawn_components`)."""
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.rules.result import fraction_display

    parts = drawn_components(game, level)
    rtp = sum(parts.values(), Fraction(0))
    shown = ", ".join(f"{k} {float(v):.6%}" for k, v in parts.items())
    which = "exact RTP" if round_cap(game) is None else "exact RTP before options.round_cap's cut"
    raise EngineTooLarge(
        "the round distribution with drawn wild multipliers is not computed: "
        f"{reason}; the round's {which} is {float(rtp):.6%} = {fraction_display(rtp)} "
        f"({shown}), from the law of the counted wilds on each {_drawn_channel(game)[1]}",
        file=game.source or game.name,
        field="options.wild_multipliers.table",
    )


def drawn_components(game: Game, level: int) -> dict:
    """RTP by component [x total bet, exact Fractions] of a game with drawn
    wild multipliers, without writing the draws into the stops.

    The game without the draws (its wild worth x1) gives every component;
    the pay channel's (lines or ways) is replaced by :func:`drawn_channel_rtp`,
    and a free game's by Wald's identity: a free spin's mean win moves by
    ``d`` = the channel's RTP with the draws less the one without (free reel
    set), and a feature of ``G`` games at multiplier ``m`` moves by
    ``m x E[G] x d``, ``E[G]`` (from the undrawn free spin's law of extra
    games) unchanged by the draws, which no trigger reads.  The features of
    :data:`DRAWN_RTP_BESIDE` read no wild's multiplier (their triggers read
    symbols, their awards their own tables), so their components are the
    undrawn game's.  So too inside the free games (``in_free_games``): the
    free games' component is the undrawn one (the feature's award per free
    game, times the free games' multiplier, by Wald's identity) plus the
    draws' shift, since the games played do not depend on the draws and
    the feature's trigger is not the drawn wild (refused by ``validate``:
    a wheel's or selection's ``symbol``, a hold-and-spin's coin that is a
    wild); a selection with a choice of free games (played on
    reels that draw), any other feature or a sticky or nudged free game is
    refused (:class:`~slotmath.engine.limits.EngineTooLarge`).  A round cap
    is left out: these are the uncapped round's components (the cap's cut
    needs the round's distribution, :func:`_analyse_drawn`).
    """
    from dataclasses import replace

    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features.options import load_features
    from slotmath.features.prizes import load_line_prizes

    free = load_features(game).free_games
    sel = load_line_prizes(game).selection if "selection" in game.options else None
    chosen_games = sel is not None and any(c.free_games for c in sel.choices)
    for name in feature_names(game):
        if (
            name not in ("free_games", *DRAWN_RTP_BESIDE)
            or (name == "free_games" and (free.sticky is not None or free.nudge is not None))
            or (name == "selection" and chosen_games)
        ):
            raise EngineTooLarge(
                f"{game.source}: options.{name}: is not computed with drawn wild multipliers whose draws do "
                "not fit as stops (free games without sticky wilds or nudges; a wheel, a hold-and-spin and a "
                "selection without a choice of free games, beside or inside them; a pick are)"
            )
    left = ("wild_multipliers", "round_cap")  # the undrawn, uncapped round
    undrawn = replace(game, options={k: v for k, v in game.options.items() if k not in left})
    out = components(undrawn, level)
    out[_drawn_channel(game)[0]] = drawn_channel_rtp(game, level)
    if "free_games" in out:
        out["free_games"] += _free_games_shift(game, undrawn, level, free)
    return out


def _free_games_shift(game: Game, undrawn: Game, level: int, spec) -> Fraction:
    """What the drawn multipliers add to the free-games component [x total bet]
    (:func:`drawn_components`): ``sum_count P(count) x m x E[G | games(count)] x d``."""
    from slotmath.features.freegames import FreeGames
    from slotmath.features.freeround import free_games_feature, free_spin_counts
    from slotmath.features.round import trigger_key_probability

    channel = _drawn_channel(game)[0]

    @cache
    def played_on(reels: str) -> tuple:  # (d, the free-spin table) of one reel set
        d = drawn_channel_rtp(game, level, reels) - channel_components(undrawn, level, reels)[channel]
        return d, free_spin_counts(undrawn, level, spec.playing(reels))[:3]

    shift = Fraction(0)
    feature = free_games_feature(undrawn, level)
    for key, p in trigger_key_probability(undrawn, feature.trigger).items():
        if p and feature.triggers(key):
            count = spec.count_of(key)
            n, mult = spec.games(count), spec.multiplier_of(count)
            d, (wins, extra, counts) = played_on(spec.reels_of(count))
            law = FreeGames.from_counts(wins, extra, counts, n, mult, max_spins=spec.max_games)
            shift += p * mult * law.spins_mean * d
    return shift


def _analyse_lines(game: Game, level: int, reel_set: str) -> ParResult:
    """:func:`analyse` of a game paid by its pay rule
    (:func:`slotmath.engine.payrule.pay_rule`; drawn wild multipliers
    already written in)."""
    from slotmath.engine.payrule import pay_rule

    rule = pay_rule(game)
    table = rule.combination_table(game, level, reel_set)
    lines_rtp, per_line = rule.channel_rtp(game, level, reel_set)
    features = round_features(game, level) if reel_set == "base" else []
    cap = round_cap(game) if reel_set == "base" else None
    notes = pay_rule_notes(game)
    if not features:
        dist = rule.distribution(game, level, reel_set)
        result = _par_result(
            game, level, reel_set, table, rule.channel, lines_rtp, dist, per_line_rtp=per_line, notes=notes
        )
        return result if cap is None else _capped_spin(result, dist, cap)
    from slotmath.features.round import round_triggers

    keyed = rule.key_distribution(game, level, round_triggers(features), reel_set)
    result = _par_result(
        game,
        level,
        reel_set,
        table,
        rule.channel,
        lines_rtp,
        keyed.marginal(),
        per_line_rtp=per_line,
        notes=notes,
    )
    return _with_round(game, level, result, keyed, features, cap)


def _capped_spin(result: ParResult, dist, cap: Fraction) -> ParResult:
    """``result``, the PAR of a spin without features whose distribution is
    ``dist`` (exact counts, or float64: a drawn spin law), under the round
    ``cap`` [x total bet]: the capped distribution, the ``round_cap``
    component ``-E[(win - cap)+]`` (float, from ``dist``), the RTP less it
    (float) and the max win (the cap where passed: :func:`capped_top`
    exact, :func:`~slotmath.features.round.cap_max_win` from a float law)."""
    from slotmath.features.round import cap_distribution, cap_max_win, cap_note

    capped, over = cap_distribution(dist, cap)
    if dist.exact:
        top = capped_top(dist, cap)
    else:
        top = result.max_win if dist.max_win <= cap else cap_max_win(cap, capped)
    return dataclasses.replace(
        result,
        distribution=capped,
        components={**result.components, "round_cap": -over},
        rtp=float(result.rtp) - over,
        notes=[*result.notes, cap_note(cap)],
        max_win=top,
    )


def _with_round(game: Game, level: int, result: ParResult, keyed, features: list, cap, law=None) -> ParResult:
    """``result`` (the base spin's PAR) completed with the round of
    ``features`` started from the base spin's keyed law ``keyed``: the
    round's RTP, components, distribution, feature figures and tables
    (``law``: the round's :class:`~slotmath.features.round.RoundLaw` when
    already computed)."""
    from slotmath.features.round import round_law, round_max_win

    try:
        law = law if law is not None else round_law(keyed, features, cap, source=game.source or game.name)
    except EngineTooLarge as e:  # the base spin's own wins: its pays, or its tumbles' progression
        if e.field:
            raise
        tumbles = isinstance(game.options, dict) and "tumble" in game.options
        field = "options.tumble.multipliers" if tumbles else "pays"
        raise EngineTooLarge(e.problem, file=e.file, field=field) from None
    rtp, components, figures = round_summary(game, level, law)
    notes = [*result.notes, *round_notes(game, law)]
    from slotmath.rules.featuretables import feature_tables as par_tables

    if "progressive" in figures:
        notes.append(_progressive_note(figures["progressive"]))
    return dataclasses.replace(
        result,
        rtp=rtp,
        components={**result.components, **components},
        distribution=law.distribution,
        distribution_shortfall=law.shortfall,
        features=figures,
        tables={
            **result.tables,
            **par_tables(game, figures, float(rtp), level),
            **award_tables(law, features),
            **progressive_tables(figures.get("progressive", {})),
        },
        notes=notes,
        max_win=round_max_win(keyed, features, cap, law.distribution),
    )


def round_summary(game: Game, level: int, law) -> tuple:
    """``(rtp, components, features)`` of a round from its
    :class:`~slotmath.features.round.RoundLaw`: the RTP [x total bet] with
    the progressive jackpots' returns, the features' and jackpots' RTP
    components [x total bet], and the PAR's ``features`` (each feature's
    odds, the expected events per round, the progressive jackpots' figures)."""
    figures = dict(law.figures)
    rates = {k: v for fig in figures.values() for k, v in fig.pop("event_rates", {}).items()}
    if rates:  # expected count per round of the round sampler's feature events
        figures["event_rates"] = rates
    jackpot_rates = progressive_rates(game, level)
    progressive = progressive_components(game, level, jackpot_rates)
    if progressive:
        figures["progressive"] = progressive_par_figures(game, jackpot_rates)
    rtp = law.rtp + sum(progressive.values(), Fraction(0))
    return rtp, {**law.components, **progressive}, figures


def fast_round(game: Game, level: int, reel_set: str = "base") -> tuple | None:
    """The figures of a feature round without its distribution:
    ``(rtp, components, features, moments, paid)`` -- the exact RTP and
    components [x total bet] and ``features`` as :func:`analyse` gives them
    (:func:`round_summary`), the round's hit frequency and second moment
    (:func:`slotmath.features.round.round_moments`, float64) and the mean
    win a round pays [x total bet] (the RTP less the progressive jackpots'
    returns).  None when the figures need the full analysis: another reel
    set than ``base``, a round cap, reel heights or drawn wild multipliers,
    or no feature."""
    if (
        reel_set != "base"
        or round_cap(game) is not None
        or drawn_too_large(game)
        or played_game(game) is not game
    ):
        return None
    features = round_features(game, level)
    if not features:
        return None
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.round import round_law, round_moments, round_triggers

    keyed = pay_rule(game).key_distribution(game, level, round_triggers(features), reel_set)
    law = round_law(keyed, features, None, distribution=False, source=game.source or game.name)
    rtp, components, figures = round_summary(game, level, law)
    return (
        rtp,
        {**channel_components(game, level), **components},
        figures,
        round_moments(keyed, features),
        law.rtp,
    )


def progressive_jackpots(game: Game) -> dict:
    """``{name: ProgressiveJackpot}`` of ``options.jackpots`` (empty without)."""
    if not game.options or "jackpots" not in game.options:
        return {}
    from slotmath.features.options import load_features

    return load_features(game).progressive


def progressive_rates(game: Game, level: int) -> dict:
    """Expected hits per round of each progressive jackpot [exact Fraction
    where the feature means are]: the change of the round's coin-win
    components when the jackpot's coin value goes from 0 to 1 x total bet
    (every feature mean is linear in it)."""
    progs = progressive_jackpots(game)
    if not progs:
        return {}

    def coin_rtp(g: Game):
        return sum(
            (v for k, v in _round_components(g, level).items() if not k.startswith(PROGRESSIVE)), Fraction(0)
        )

    base = coin_rtp(game)
    out = {}
    for name in progs:
        unit = dataclasses.replace(
            game, options={**game.options, "jackpots": {**game.options["jackpots"], name: 1}}
        )
        out[name] = coin_rtp(unit) - base
    return out


#: prefix of a progressive jackpot's RTP component (``progressive GRAND``)
PROGRESSIVE = "progressive "


def progressive_components(game: Game, level: int, rates: dict | None = None) -> dict:
    """``{"progressive NAME": return [x total bet]}`` of the progressive
    jackpots (:func:`slotmath.features.prizes.progressive_component` at
    ``rates``, default :func:`progressive_rates`); a jackpot never won is refused."""
    from slotmath.features.prizes import progressive_component

    progs = progressive_jackpots(game)
    out = {}
    for name, rate in (progressive_rates(game, level) if rates is None else rates).items():
        if not rate:
            from slotmath.io.gamefile import GameFileError

            raise GameFileError(game.source, f"options.jackpots.{name}", "is never won (0 hits per round)")
        out[PROGRESSIVE + name] = progressive_component(progs[name], rate)
    return out


def progressive_par_figures(game: Game, rates: dict) -> dict:
    """PAR figures of each progressive jackpot at its expected hits per round
    ``rates`` (:func:`slotmath.features.prizes.progressive_figures`)."""
    from slotmath.features.prizes import progressive_figures

    progs = progressive_jackpots(game)
    return {name: progressive_figures(progs[name], rate) for name, rate in rates.items()}


def progressive_tables(figures: dict) -> dict:
    """Sheet table ``Progressive NAME (reference bet)`` of each progressive
    jackpot: its renewal-reward figures at a total bet of 1, as Grand Spinn
    Superpot's ``Super progressive (reference bet)``."""
    import pandas as pd

    return {
        f"Progressive {name} (reference bet)": pd.DataFrame(
            [(k, f"{v:,.6g}" if isinstance(v, float) else v) for k, v in fig["reference"].items()],
            columns=["figure", "value"],
        )
        for name, fig in figures.items()
    }


def _progressive_note(figures: dict) -> str:
    parts = ", ".join(
        f"{k}: 1 in {f['one_in']:,.6g} rounds, E[J] {f['reference']['expected_jackpot']:,.6g} x total bet, "
        f"RTP {f['rtp']:.6%} (contribution {f['contribution']:.4%} "
        f"+ reset part {f['reference']['seed_rtp']:.6%})"
        for k, f in figures.items()
    )
    from slotmath.features.prizes import PROGRESSIVE_CONVENTION

    return f"Progressive jackpots ({PROGRESSIVE_CONVENTION}): {parts}."


def capped_top(dist, cap: Fraction):
    """The largest win of an exact spin distribution under a round ``cap``
    [x total bet] and its exact odds (every win at or above the cap pays it)."""
    from slotmath.engine.distribution import MaxWin

    if dist.max_win <= cap:
        return dist.top()
    above = sum(
        int(c)
        for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)
        if Fraction(int(w), dist.unit_den * dist.total_bet) >= cap
    )
    return MaxWin(
        Fraction(cap), Fraction(above, dist.total), True, "the round cap: every win at or above it pays it"
    )


def components(game: Game, level: int) -> dict:
    """RTP by component [x total bet] without the round's distribution:
    ``lines`` (or ``ways``), ``scatters`` (:func:`channel_components`) and
    each declared feature's exact mean contribution (Fractions); with a
    ``round_cap`` the capped round is analysed in full (its ``round_cap``
    component is float)."""
    return {**_round_components(game, level), **progressive_components(game, level)}


def _round_components(game: Game, level: int) -> dict:
    """:func:`components` without the progressive jackpots' returns."""
    if round_cap(game) is not None:  # the cap's cut needs the round's distribution
        return dict(analyse(game, level).components)
    if drawn_too_large(game):
        return drawn_components(game, level)
    if _tumbles_read_the_round(game):  # the round's key law is the tumbles' own
        fast = fast_round(game, level)
        return dict(fast[1]) if fast is not None else channel_components(game, level)
    played = played_game(game)  # the free games' spins draw their wilds' multipliers too
    try:
        out = channel_components(played, level)
        features = round_features(played, level)
        if features:
            from slotmath.features.round import feature_means, trigger_key_probability

            keys = {f.name: trigger_key_probability(played, f.trigger) for f in features}
            out.update(feature_means(features, keys))
    except EngineTooLarge:  # the draws as stops fit the counts but not the work limit
        if game.heights is not None or played is game:
            raise
        return drawn_components(game, level)
    return out


def _tumbles_read_the_round(game: Game) -> bool:
    """True when the tumbles' triggers count the whole sequence or their
    progression carries through the free games (``options.tumble``): the
    window's trigger law and independent free spins do not give the round."""
    from slotmath.engine.tumble_spec import tumble_spec

    spec = tumble_spec(game)
    return spec is not None and (spec.sequence or spec.carried)


def heights_note(game: Game, cycle: int) -> str:
    """The PAR sheet's note on the reel heights of ``game``."""
    tables = game.heights.tables if game.heights else ()
    shown = "; ".join(f"reel {r + 1}: " + ", ".join(f"{h} ({w})" for h, w in t) for r, t in enumerate(tables))
    top = game.heights.top if game.heights else None
    on_top = ""
    if top is not None:
        sets = ", ".join(
            f"{name}: {len(strip)} stops, {len(top.windows(name))} distinct windows"
            for name, strip in top.strips.items()
        )
        on_top = (
            f" A top reel over reels {top.over[0] + 1}-{top.over[-1] + 1} ({sets}) shows one more cell "
            "on each; the figures are the mix over its windows (each window's weight x the reels' "
            "cycle), exact."
        )
    return (
        f"Reel heights drawn per reel and spin, height (weight): {shown}. Every (height, stop) pair "
        f"of a reel is one stop of weight height weight x stop weight (cycle {cycle:,}); the ways "
        "of a spin are the product of the matching cells shown per reel, exact over that cycle." + on_top
    )


def played_game(game: Game) -> Game:
    """``game`` with its reel heights written into its strips
    (:func:`slotmath.engine.reels.height_game`) and drawn wild multipliers
    into its symbols and stops (:func:`slotmath.features.wildmult.played_game`);
    itself without them."""
    if game.heights is not None:
        from slotmath.engine.reels import height_game

        return height_game(game)
    if not game.options or "wild_multipliers" not in game.options:
        return game
    from slotmath.features.wildmult import played_game as rewrite

    return rewrite(game)


def has_round(game: Game) -> bool:
    """True when the game declares a feature or cap the line rules play."""
    return bool(game.options) and any(k in game.options for k in played_options())


def feature_names(game: Game) -> tuple:
    """Names (RTP components) of the base-triggered features ``game``
    declares, in the order the round plays them (the exact round and the
    compiled sampler alike), from the declarations alone: each declared
    feature of the registry (:mod:`slotmath.features.registry`) that starts."""
    if not game.options:
        return ()
    from slotmath.features.registry import declared_kinds

    return tuple(kind.component for kind in declared_kinds(game) if kind.starts(game))


def round_features(game: Game, level: int) -> list:
    """The features of the generic round that ``game`` declares (each a
    :class:`slotmath.features.round.Feature`, the exact method of its
    :class:`~slotmath.features.kinds.FeatureKind`), in the order they are
    played (:func:`feature_names`)."""
    if not game.options:
        return []
    from slotmath.features.registry import declared_kinds

    return [kind.exact(game, level) for kind in declared_kinds(game) if kind.starts(game)]


def component_names(game: Game) -> tuple:
    """Names of the RTP components of ``game``'s round, in order (the keys of
    :func:`components` and of ``analyse(game, level).components``), from the
    declarations alone: the pay channel, ``scatters`` when the game has
    scatter pays, each feature of :func:`feature_names` and ``round_cap``."""
    from slotmath.engine.payrule import pay_rule

    channel = (pay_rule(game).channel,) + (("scatters",) if game.scatter_pays else ())
    return channel + feature_names(game) + (("round_cap",) if round_cap(game) is not None else ())


def round_cap(game: Game):
    """Cap on the total win of a round [x total bet] (``options.round_cap``), or None."""
    if not game.options or "round_cap" not in game.options:
        return None
    from slotmath.features.options import load_features

    return load_features(game).round_cap


def award_tables(law, features) -> dict:
    """Per feature, the law of its award given that it starts, by win band
    (:func:`slotmath.rules.featuretables.award_bands`)."""
    from slotmath.features.round import award_given_trigger, started_keys
    from slotmath.features.sheetrows import award_bands
    from slotmath.rules.featuretables import TITLES

    out = {}
    for f in features:
        started = started_keys(law.key_probability, features, f)
        if not started:
            continue
        wins, probs = award_given_trigger(f, started)
        title = f"{TITLES.get(f.name, f.name)}: award given a trigger, by size"
        out[title] = award_bands(wins, probs, float(sum(started.values())))
    return out


def round_notes(game: Game, law, bought: bool = False) -> list:
    """Method notes of the round's figures: the round's method, with each
    declared feature's words on it (its kind's ``rtp_method`` and
    ``law_method``), then each feature's own notes (``notes``), once each;
    ``bought``: the round is a bought feature alone (no base spin)."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.registry import declared_kinds
    from slotmath.features.round import RESOLVED

    kinds = declared_kinds(game)
    capped = round_cap(game) is not None
    law_words = "".join(kind.law_method(law) for kind in kinds) + (
        f"probabilities below {RESOLVED:g} are not resolved (mass dropped: {law.dropped:.2g})."
    )
    what = (
        "Round = the bought feature alone (no base spin)"
        if bought
        else f"Round = base spin ({pay_rule(game).pays_words} and scatters) followed by the "
        "features its window triggers"
    )
    notes = [
        f"{what}. RTP by component is exact"
        + "".join(kind.rtp_method(law) for kind in kinds)
        + (" except the round cap." if capped else "."),
        "Round distribution (hit frequency, SD, VI, max win): float64. "
        + law_words[:1].upper()
        + law_words[1:],
    ]
    for kind in kinds:
        notes += [n for n in kind.notes(game, law) if n not in notes]
    return notes


def _par_result(game, level, reel_set, table, channel, channel_rtp, dist, **extra) -> ParResult:
    """PAR of a line or ways game from its combination ``table``, the RTP of its
    pay ``channel`` ("lines" or "ways") [x total bet] and the spin-win ``dist``;
    checks that the distribution's mean equals the table's RTP."""
    from slotmath.rules.result import ParResult

    scatter_rtp = sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
    components = {channel: channel_rtp}
    if game.scatter_pays:
        components["scatters"] = scatter_rtp
    rtp = channel_rtp + scatter_rtp
    ensure(dist.mean == rtp, f"{channel} distribution disagrees with the combination table")
    return ParResult(
        game=game,
        bet=game.bet(level),
        cycle=game.cycle(reel_set),
        rtp=rtp,
        components=components,
        distribution=dist,
        combinations=table,
        **extra,
    )


def simulate(game: Game, level: int, spins: int, seed: int = 0) -> SimulationResult:
    """Monte Carlo run of the compiled round sampler (:func:`round_sampler`)
    by the one simulation loop (:func:`slotmath.montecarlo.run.simulate_sampler`),
    with z-scores against the exact RTP, hit frequency and SD."""
    from slotmath.montecarlo.run import simulate_sampler

    exact = analyse(game, level)
    figures = {"rtp": float(exact.rtp), "hit_frequency": exact.hit_frequency, "sd": exact.sd}
    return simulate_sampler(round_sampler(game, level), game, level, spins, seed, figures)


def round_sampler(game: Game, level: int, reel_set: str = "base"):
    """Compiled round sampler for :mod:`slotmath.montecarlo.run`: a game with
    features or a round cap plays its whole round, every feature together
    (:mod:`slotmath.montecarlo.roundsim`, its win split into
    :func:`component_names`); otherwise the line or ways sampler of ``reel_set``
    (:mod:`slotmath.montecarlo.linesim`).  A top reel (``grid.top_reel``) is
    drawn with its covered reels (:func:`slotmath.engine.topreel.sampled_game`).
    A declared feature the compiled round does not play (its kind's
    ``sampled`` False) is refused (:class:`~slotmath.errors.SetupError`, one
    line naming it)."""
    from slotmath.engine.payrule import pay_rule
    from slotmath.engine.topreel import has_top, sampled_game
    from slotmath.errors import SetupError
    from slotmath.features.registry import declared_kinds

    for kind in declared_kinds(game):
        if not kind.sampled:
            raise SetupError(
                f"{game.source or game.name}: options.{kind.key}: the {kind.title} is computed exactly by "
                "`slotmath par` but the compiled sampler does not play it yet, so `simulate` cannot"
            )
    from slotmath.montecarlo.linesim import line_sampler

    game = sampled_drawn_game(game) if drawn_too_large(game) else played_game(game)
    if has_top(game):
        game = sampled_game(game)
    pays = pay_rule(game).sampler_pays
    if reel_set == "base" and pays == "tumbles":
        from slotmath.montecarlo.tumblesim import tumble_sampler

        return tumble_sampler(game, level)
    if reel_set == "base" and has_round(game):
        from slotmath.montecarlo.roundsim import round_sampler as sampler_of_round

        return sampler_of_round(game, level, component_names(game))
    if pays == "ways":
        from slotmath.montecarlo.wayssim import ways_sampler

        return ways_sampler(game, level, reel_set)
    if pays == "anywhere":
        from slotmath.montecarlo.anywheresim import anywhere_sampler

        return anywhere_sampler(game, level, reel_set)
    if pays == "cluster":
        from slotmath.montecarlo.anywheresim import cluster_sampler

        return cluster_sampler(game, level, reel_set)
    return line_sampler(game, level, reel_set)


#: spin stages of ``options`` the line rules play beside the features
#: (:mod:`slotmath.features.registry`): the tumble (:mod:`slotmath.engine.tumble_spec`)
STAGE_OPTIONS = ("tumble",)


def played_options() -> tuple:
    """Keys of ``options`` the line rules play: every registered feature's and
    the spin stages' (:data:`STAGE_OPTIONS`)."""
    from slotmath.features.registry import feature_keys

    return feature_keys() + STAGE_OPTIONS


def check(game: Game, unread: bool = True) -> None:
    """Validate a line (or ways) game's declarations beyond the file format:
    its features (:func:`check_features`), then (with ``unread``; rules
    that read keys of their own skip it) that every reel set is read by some
    rule of the game (:func:`reel_sets_read`) and every feature's symbol is
    read where it shows (:func:`check_symbols_read`): what nothing plays is
    refused in one line naming it, never ignored."""
    check_features(game)
    from slotmath.engine.payrule import pay_rule

    if pay_rule(game).has_paylines:  # the line pay tensor fits in memory
        from slotmath.engine.limits import check_pay_tuples

        check_pay_tuples(game)
    if not unread:
        return
    from slotmath.io.gamefile import GameFileError

    read = reel_sets_read(game) | {s for mode in game.modes.values() for s in mode.reels.values()}
    check_symbols_read(game)
    for name in game.reel_sets:
        if name not in read:
            raise GameFileError(
                game.source,
                f"reels.{name}",
                "no rule of the game reads this reel set (the base game plays 'base'; free games, "
                "hold-and-spin and lock-it read the sets their options name: "
                f"{', '.join(sorted(read))})",
            )


def named_symbols(game: Game, value) -> set:
    """The symbol names a declaration (``options`` or a part of it) mentions
    anywhere, as a key or a value."""
    names = {s.name for s in game.symbols}
    found: set = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            found |= {v} & names
        elif isinstance(v, dict):
            stack += list(v.keys()) + list(v.values())
        elif isinstance(v, (list, tuple)):
            stack += list(v)
    return found


def symbols_read(game: Game) -> dict:
    """``{reel set: symbols the rules read on it}`` for the reel sets a spin
    is paid on: the base set and the free games' set.  Every spin reads the
    symbols of the pay table (line pays and their groups, scatter pays),
    the wilds and the blanks, and the board multiplier symbol of the games
    it names (``options.tumble.multiplier_symbols.in``); the base set also every symbol a feature's
    declaration names (its trigger, its coins, ...); the free games' set the
    symbols named by the features the free spins play (each kind's
    ``in_free_games``: the free games themselves, drawn multipliers, a
    hold-and-spin, lock-it, wheel or selection with ``in_free_games``); the
    base game's other features are not played in free games."""
    paid = {s.name for s in game.symbols if s.wild is not None or s.kind == "blank"}
    for pay in game.line_pays:
        paid |= set().union(*pay.positions) if pay.positions else set()
        paid |= {pay.anywhere} if pay.anywhere else set()
    paid |= {p.symbol for p in game.scatter_pays}
    options = game.options if isinstance(game.options, dict) else {}
    tumble = options.get("tumble")
    board = tumble.get("multiplier_symbols") if isinstance(tumble, dict) else None
    board = board if isinstance(board, dict) else {}
    games_in = board.get("in", ["base", "free"])
    games_in = games_in if isinstance(games_in, list) else []
    on = {g: named_symbols(game, board.get("symbol")) if g in games_in else set() for g in ("base", "free")}
    draws = tumble.get("draws") if isinstance(tumble, dict) else None
    for g in on:  # the fresh-draw tables' symbols (a filler drawn into the gaps is read)
        on[g] |= named_symbols(game, draws)
    out = {
        "base": paid | named_symbols(game, {k: v for k, v in options.items() if k != "tumble"}) | on["base"]
    }
    free = options.get("free_games")
    if isinstance(free, dict) and isinstance(free.get("reels"), str) and free["reels"] != "base":
        from slotmath.features.registry import declared_kinds

        played = [options[k.key] for k in declared_kinds(game) if k.in_free_games(game)]
        out[free["reels"]] = paid | named_symbols(game, played) | on["free"]
    return out


def check_symbols_read(game: Game) -> None:
    """Refuse a feature's symbol on a paid reel set (:func:`symbols_read`)
    where no rule reads it: a hold-and-spin coin, a lock-it, wheel or
    selection symbol on the free games' reels when that feature is played
    from the base game only would show and never pay, a silently wrong game.
    One line naming the reel set and the symbol.  A symbol no declaration
    names and no pay reads is a filler, as a blank is, and is not refused."""
    from slotmath.io.gamefile import reel_error

    options = game.options if isinstance(game.options, dict) else {}
    roles = named_symbols(game, options)
    for name, read in symbols_read(game).items():
        for r, strip in enumerate(game.strips(name)):
            for k, symbol in enumerate(strip.symbols):
                if symbol in roles and symbol not in read:
                    raise reel_error(
                        game,
                        f"reels.{name}[{r}][{k}]",
                        f"symbol {symbol!r} is on reel set {name!r} but no rule of the game reads it there "
                        "(it is in no pay or scatter pay, and no feature played on this reel set names it)",
                    )


def reel_sets_read(game: Game) -> set:
    """The reel sets the line rules play: ``base`` and those each declared
    feature reads (its kind's ``reel_sets``: the free games' set, the
    hold-and-spin's respins, the lock-it's sources and after-mark sets)."""
    out = {"base"}
    if not game.options:
        return out
    from slotmath.features.registry import declared_kinds

    for kind in declared_kinds(game):
        out |= kind.reel_sets(game)
    return out


def check_features(game: Game) -> None:
    """Validate the features a line game declares under ``options``: the
    tumble stage, the pay rule's refusals, then every declared feature of the
    registry (its kind's ``combines``, then every declaration, then each
    kind's ``check``); anything the
    rules do not play is refused (:class:`~slotmath.io.gamefile.GameFileError`
    naming the field), never ignored."""
    if not game.options:
        return
    from slotmath.engine.payrule import pay_rule
    from slotmath.features.options import load_features
    from slotmath.features.registry import declared_kinds
    from slotmath.io.gamefile import GameFileError

    if "tumble" in game.options:  # the declaration (its cost is estimated before the enumeration)
        from slotmath.engine.tumble_spec import tumble_spec

        tumble_spec(game)
    refused = pay_rule(game).refusal(game)
    if refused is not None:  # a feature the pay rule does not pay: one line naming the field
        raise GameFileError(game.source, *refused)
    kinds = declared_kinds(game)
    for kind in kinds:  # what the line round does not play beside a feature, first
        kind.combines(game)
    load_features(game)  # validates every declared feature's fields
    for kind in kinds:
        kind.parse(game)
        kind.check(game)


def channel_components(game: Game, level: int, reel_set: str = "base") -> dict:
    """RTP by pay channel [x total bet, exact Fractions], as :func:`analyse`
    gives them but without the spin-win distribution: "lines" (contracted
    pay tensor) or "ways" (the ways table), and "scatters" when the game
    has scatter pays (the pay rule's :meth:`~slotmath.engine.pays.PayRule.fast_rtp`)."""
    from slotmath.engine.payrule import pay_rule

    rule = pay_rule(game)
    out = {rule.channel: rule.fast_rtp(game, level, reel_set)}
    if game.scatter_pays:
        out["scatters"] = rule.scatter_rtp(game, level, reel_set)
    return out
