"""Analyser for plain line-and-scatter games (``rules: lines``).

Light to import (validating a game file imports it for :func:`check`): the
engine is imported by the functions that use it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from slotmath.model import Game

if TYPE_CHECKING:
    from slotmath.montecarlo.results import SimulationResult
    from slotmath.rules.par import ParResult


def analyse(game: Game, level: int, reel_set: str = "base") -> ParResult:
    """Exact PAR of a line game at bet ``level``: combination table,
    RTP by channel and the distribution of the total spin win."""
    if game.pays_by == "ways":
        return analyse_ways(game, level, reel_set)
    from slotmath.engine.combinations import combination_table, line_rtp
    from slotmath.engine.joint import spin_distribution
    from slotmath.rules.par import ParResult

    bet = game.bet(level)
    table = combination_table(game, level, reel_set)
    lines_rtp, per_line = line_rtp(game, level, reel_set)
    scatter_rtp = sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
    components = {"lines": lines_rtp}
    if game.scatter_pays:
        components["scatters"] = scatter_rtp
    dist = spin_distribution(game, level, reel_set)
    rtp = lines_rtp + scatter_rtp
    assert dist.mean == rtp, "joint distribution disagrees with the combination table"
    return ParResult(
        game=game,
        bet=bet,
        cycle=game.cycle(reel_set),
        rtp=rtp,
        components=components,
        distribution=dist,
        combinations=table,
        per_line_rtp=per_line,
    )


def simulate(game: Game, level: int, spins: int, seed: int = 0) -> SimulationResult:
    """Monte Carlo run with z-scores against the exact figures."""
    from slotmath.montecarlo.results import simulate_lines

    exact = analyse(game, level)
    return simulate_lines(
        game,
        spins,
        seed,
        level,
        exact={"rtp": float(exact.rtp), "hit_frequency": exact.hit_frequency, "sd": exact.sd},
    )


def round_sampler(game: Game, level: int, reel_set: str = "base"):
    """Compiled round sampler for :mod:`slotmath.montecarlo.run` (see :mod:`slotmath.montecarlo.linesim`)."""
    from slotmath.montecarlo.linesim import line_sampler

    if game.pays_by == "ways":
        from slotmath.montecarlo.wayssim import ways_sampler

        return ways_sampler(game, level, reel_set)
    return line_sampler(game, level, reel_set)


def check(game: Game) -> None:
    """Line games need nothing beyond the file format's own checks."""


def analyse_ways(game: Game, level: int, reel_set: str = "base") -> ParResult:
    """Exact PAR of a ways game at bet ``level``."""
    from slotmath.engine.combinations import combination_table
    from slotmath.engine.ways import ways_distribution, ways_table
    from slotmath.rules.par import ParResult

    bet = game.bet(level)
    table = combination_table(
        game, level, reel_set, pay_rows=ways_table(game, level, reel_set).to_dict("records")
    )
    ways_rtp = sum(table.loc[table["kind"] == "ways", "rtp_exact"], Fraction(0))
    scatter_rtp = sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
    components = {"ways": ways_rtp}
    if game.scatter_pays:
        components["scatters"] = scatter_rtp
    dist = ways_distribution(game, level, reel_set)
    rtp = ways_rtp + scatter_rtp
    assert dist.mean == rtp, "ways distribution disagrees with the combination table"
    return ParResult(
        game=game,
        bet=bet,
        cycle=game.cycle(reel_set),
        rtp=rtp,
        components=components,
        distribution=dist,
        combinations=table,
        notes=[
            f"Pays by ways: {game.rows**game.reels:,} ways; a combination's "
            "hits are spins, its win the mean win per hit (pay x mean ways)."
        ],
    )
