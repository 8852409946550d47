"""Analyser for plain line-and-scatter games (``rules: lines``)."""
from __future__ import annotations

from fractions import Fraction

from .combinations import combination_table, line_rtp
from .joint import spin_distribution
from .model import Game
from .par import ParResult
from .simulate import SimulationResult, simulate as simulate_spins


def analyse(game: Game, level: int, reel_set: str = "base") -> ParResult:
    """Exact PAR of a line game at bet ``level``: combination table,
    RTP by channel and the distribution of the total spin win."""
    if game.pays_by == "ways":
        from .ways import analyse as analyse_ways
        return analyse_ways(game, level, reel_set)
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
    return ParResult(game=game, bet=bet, cycle=game.cycle(reel_set), rtp=rtp,
                     components=components, distribution=dist, combinations=table,
                     per_line_rtp=per_line)


def simulate(game: Game, level: int, spins: int, seed: int = 0) -> SimulationResult:
    """Monte Carlo run with z-scores against the exact figures."""
    exact = analyse(game, level)
    return simulate_spins(game, spins, seed, level, exact={
        "rtp": float(exact.rtp), "hit_frequency": exact.hit_frequency, "sd": exact.sd})


def round_sampler(game: Game, level: int, reel_set: str = "base"):
    """Compiled round sampler for :mod:`slotmath.montecarlo` (see :mod:`slotmath.linesim`)."""
    from .linesim import line_sampler

    if game.pays_by == "ways":
        from .wayssim import ways_sampler
        return ways_sampler(game, level, reel_set)
    return line_sampler(game, level, reel_set)


def check(game: Game) -> None:
    """Line games need nothing beyond the file format's own checks."""
