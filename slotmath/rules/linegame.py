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

    table = combination_table(game, level, reel_set)
    lines_rtp, per_line = line_rtp(game, level, reel_set)
    dist = spin_distribution(game, level, reel_set)
    return _par_result(game, level, reel_set, table, "lines", lines_rtp, dist, per_line_rtp=per_line)


def _par_result(game, level, reel_set, table, channel, channel_rtp, dist, **extra) -> ParResult:
    """PAR of a line or ways game from its combination ``table``, the RTP of its
    pay ``channel`` ("lines" or "ways") [x total bet] and the spin-win ``dist``;
    checks that the distribution's mean equals the table's RTP."""
    from slotmath.rules.par import ParResult

    scatter_rtp = sum(table.loc[table["kind"] == "scatter", "rtp_exact"], Fraction(0))
    components = {channel: channel_rtp}
    if game.scatter_pays:
        components["scatters"] = scatter_rtp
    rtp = channel_rtp + scatter_rtp
    assert dist.mean == rtp, f"{channel} distribution disagrees with the combination table"
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

    table = combination_table(
        game, level, reel_set, pay_rows=ways_table(game, level, reel_set).to_dict("records")
    )
    ways_rtp = sum(table.loc[table["kind"] == "ways", "rtp_exact"], Fraction(0))
    dist = ways_distribution(game, level, reel_set)
    return _par_result(
        game,
        level,
        reel_set,
        table,
        "ways",
        ways_rtp,
        dist,
        notes=[
            f"Pays by ways: {game.ways_or_lines_text}; a combination's "
            "hits are spins, its win the mean win per hit (pay x mean ways)."
        ],
    )


def components(game: Game, level: int, reel_set: str = "base") -> dict:
    """RTP by pay channel [x total bet, exact Fractions], as :func:`analyse`
    gives them but without the spin-win distribution: "lines" (contracted
    pay tensor) or "ways" (the ways table), and "scatters" when the game
    has scatter pays."""
    from slotmath.engine.combinations import scatter_rtp

    if game.pays_by == "ways":
        from slotmath.engine.ways import ways_table

        out = {"ways": sum(ways_table(game, level, reel_set)["rtp_exact"], Fraction(0))}
    else:
        from slotmath.engine.combinations import line_rtp_parts

        out = {"lines": line_rtp_parts(game, level, reel_set, scatters=False)["lines"]}
    if game.scatter_pays:
        out["scatters"] = scatter_rtp(game, level, reel_set)[0]
    return out
