"""Simulating a game: its rules' compiled round sampler run by
:func:`slotmath.montecarlo.run.run`, compared with the exact figures.

The sampling machinery (:mod:`slotmath.montecarlo`) knows no rules; this
module picks the sampler a game's rules provide
(:meth:`slotmath.rules.contract.Rules.round_sampler`) and the exact figures
the comparison needs.
"""

from __future__ import annotations

import warnings

from slotmath.analysis.metrics import as_float, game_figures
from slotmath.engine.limits import EngineTooLarge
from slotmath.engine.payrule import pay_rule
from slotmath.montecarlo.convergence import RoundFigures, convergence_report, exact_figures
from slotmath.montecarlo.run import CHUNK, MonteCarloResult, SetupError, as_sampler, connect, plan_chunks, run
from slotmath.rules.par import par
from slotmath.rules.registry import rules_for
from slotmath.rules.result import ParResult


def round_sampler(game, level: int | None = None):
    """The compiled round sampler of ``game``'s rules, or None when they
    have none (:attr:`slotmath.rules.contract.Rules.has_round_sampler`)."""
    rules = rules_for(game)
    return as_sampler(rules.round_sampler(game, game.bet(level).level)) if rules.has_round_sampler else None


def round_figures(game, level: int) -> RoundFigures:
    """The exact figures a simulation needs, without the whole PAR: the RTP
    by the parts of the round sampler's win, the rules'
    ``part_components(game, level)`` (their fast path)
    and, when the rules give them cheaply, the hit frequency and SD of the
    round win (the rules' fast :meth:`~slotmath.rules.contract.Rules.figures`; a line game's exact moments,
    :func:`slotmath.engine.moments.line_moments`).  A ways game has no cheap
    hit frequency or SD (its figures come from its distribution).  The
    components no round pays out (``rules.unpaid_components``, a progressive
    jackpot's return) are kept apart, so the report can say that the game's
    RTP holds them and the round win does not."""
    rules = rules_for(game)
    components = rules.part_components(game, level)
    names = rules.unpaid_components(game)
    unpaid = {k: v for k, v in rules.components(game, level).items() if k in names} if names else {}
    cheap = rules.fast_figures and pay_rule(game).fast_moments
    try:
        figs = game_figures(game, level, needed=("hit_frequency", "sd")) if cheap else {}
    except EngineTooLarge:  # the round's law is too large to compute: the RTP parts still are exact
        figs = {}
    return RoundFigures(components, as_float(figs.get("hit_frequency")), as_float(figs.get("sd")), unpaid)


def simulate_game(
    game,
    spins: int,
    seed: int = 0,
    level: int | None = None,
    *,
    chunk: int = CHUNK,
    workers: int | None = None,
    scheduler=None,
    progress: bool | None = None,
    exact=True,
    sampler=None,
    rules_rates: bool = True,
) -> MonteCarloResult:
    """Simulate ``spins`` rounds of ``game`` with its compiled round sampler.

    Parameters
    ----------
    game : Game
    spins : int
        Rounds to play.
    seed : int
        Fixes the result (with ``spins`` and ``chunk``) whatever the workers.
    level : int, optional
        Bet level (default: the lowest).
    chunk, workers, scheduler, progress
        See :func:`run`.
    exact : bool, "par", ParResult or RoundFigures
        Compare with exact figures: True, those of :func:`round_figures`
        (the RTP and its components, the hit frequency and SD when cheap);
        "par", the whole PAR (:func:`slotmath.rules.par.par`); False, none.
        With a PAR, events are compared with the combination table and
        ``features["event_rates"]``; with either, with the rules'
        ``exact_events(game, level)`` (expected count per
        round by event name).  The sampler's win parts are compared with
        the rules' ``part_components(game, level)``.
    sampler : round sampler, optional
        Default: ``round_sampler(game, level)`` of the game's rules.
    rules_rates : bool
        Compare with the rules' event rates and components (the game's own
        round).  False for a sampler of another round (a bought feature):
        its exact figures are ``exact``'s alone.

    Returns
    -------
    MonteCarloResult
    """
    level = game.bet(level).level
    plan_chunks(int(spins), int(chunk))  # refuse an impossible plan before any work
    sampler = as_sampler(sampler) if sampler is not None else round_sampler(game, level)
    if sampler is None:
        raise LookupError(f"rules {game.rules!r} have no compiled round sampler")
    client, own = connect(scheduler) if scheduler is not None else (None, False)
    try:  # connect first: an unreachable scheduler fails before the exact analysis
        if exact is True:
            try:
                exact_par = round_figures(game, level)
            except EngineTooLarge as exc:  # the exact RTP is past its bound: the run alone
                warnings.warn(f"no exact figures to compare with: {exc}", stacklevel=2)
                exact_par = None
        else:
            exact_par = par(game, level) if exact == "par" else (exact or None)
        rules = rules_for(game)
        exact_events = rules.exact_events(game, level) if exact_par is not None and rules_rates else None
        components = None
        if isinstance(exact_par, ParResult) and sampler.part_names:
            components = rules.part_components(game, level) if rules_rates else dict(exact_par.components)
        outcome = run(
            sampler,
            spins,
            seed,
            chunk=chunk,
            workers=workers,
            scheduler=client,
            progress=progress,
            desc=game.name,
        )
    finally:
        if own:
            client.close()
    figures = {} if exact_par is None else exact_figures(exact_par, sampler.part_names)
    report = (
        convergence_report(
            outcome.stats,
            outcome.event_names,
            exact_par,
            exact_events,
            outcome.rounds_per_second,
            sampler.part_names,
            components,
        )
        if outcome.rounds
        else None
    )
    return MonteCarloResult(
        game.name,
        level,
        outcome.rounds,
        outcome.seed,
        outcome.stats.moments,
        figures,
        run=outcome,
        convergence=report,
    )


def cross_check(game, level: int | None, spins: int, seed: int = 0, *, exact=True, **options):
    """Simulate ``game`` to cross-check its exact figures: the compiled,
    chunked run (:func:`simulate_game`) when its rules have a round sampler, else the
    rules' own ``simulate``.

    ``options`` are :func:`simulate_game`'s ``chunk``, ``workers``, ``scheduler``
    and ``progress``; the last two need a compiled sampler (SetupError).
    """
    level = game.bet(level).level
    sampler = round_sampler(game, level)
    if sampler is None:
        if options.get("scheduler") or options.get("workers"):
            raise SetupError(
                f"rules {game.rules!r} have no compiled round sampler; --scheduler and --workers need one"
            )
        return rules_for(game).simulate(game, level, spins, seed)
    return simulate_game(game, spins, seed, level, exact=exact, sampler=sampler, **options)


class ModeSimulation:
    """A simulated bet mode: the run of its round (``result``, figures
    [x total bet] with z-scores against the mode's exact ones) and its cost."""

    def __init__(self, mode, result):
        self.mode, self.result = mode, result

    def to_dict(self) -> dict:
        rtp = self.result.rtp
        cost = float(self.mode.cost)
        return {
            "mode": self.mode.name,
            "cost": cost,
            "rtp_per_cost": rtp.value / cost,
            "rtp_per_cost_exact": None if rtp.exact is None else rtp.exact / cost,
            "round": self.result.to_dict(),
        }

    def text(self) -> str:
        rtp = self.result.rtp
        cost = float(self.mode.cost)
        exact = "" if rtp.exact is None else f" (exact {rtp.exact / cost:.6%})"
        return (
            f"Bet mode {self.mode.name}: cost {cost:g} x total bet; simulated RTP per unit of cost "
            f"{rtp.value / cost:.6%}{exact}\nRound figures [x total bet]:\n{self.result.text()}"
        )


def cross_check_mode(game, name: str, level: int | None, spins: int, seed: int = 0, **options):
    """Simulate bet mode ``name`` of ``game`` against its exact figures
    (:func:`slotmath.rules.modepar.mode_par`): a mode that plays a base spin by
    :func:`cross_check` on its game; a bought round by its own sampler
    (:func:`slotmath.rules.modepar.buy_sampler`) through :func:`simulate_game`
    (the one simulation loop), compared with the bought round's exact PAR
    (:func:`slotmath.rules.modepar.buy_analysis`: its RTP, components, hit
    frequency, SD and win bins; not the base round's event rates)."""
    from slotmath.rules.modes import mode_game, mode_of

    level = game.bet(level).level
    mode = mode_of(game, name)
    variant = mode_game(game, name)
    if mode.buy is None:
        return ModeSimulation(mode, cross_check(variant, level, spins, seed, **options))
    from slotmath.rules.modepar import buy_analysis, buy_sampler

    if options.get("scheduler"):
        raise SetupError("a bought round is simulated by local processes only (no --scheduler)")
    exact = buy_analysis(variant, mode, level)
    sampler = buy_sampler(variant, mode, level)
    options = {"chunk": options.get("chunk") or CHUNK, "workers": options.get("workers") or 1} | {
        k: v for k, v in options.items() if k == "progress"
    }
    result = simulate_game(
        variant, spins, seed, level, exact=exact, sampler=sampler, rules_rates=False, **options
    )
    return ModeSimulation(mode, result)
