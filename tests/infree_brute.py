"""A literal round of the tiny 3x1 games whose free games play a feature
inside them (tests/test_holdspin_free.py, tests/test_wheel_in_free.py,
tests/test_lockit_in_free.py):
every base window, every free window with retriggers up to ``max_games``
and every award of the feature, in Fractions.  One line pays: A A A, 4 x
total bet; 2+ S start 2 free games (and retrigger 2 more)."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as Fr

import yaml


def write(tmp_path, data, name="game"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return folder


def add(law: dict, other: dict) -> dict:
    """Law of the sum of two independent wins."""
    out: dict = {}
    for a, p in law.items():
        for b, q in other.items():
            out[a + b] = out.get(a + b, 0) + p * q
    return out


def windows(strips):
    """Every window of ``strips`` (one row) with its probability."""
    each = Fr(1, len(strips[0]) * len(strips[1]) * len(strips[2]))
    for window in itertools.product(*strips):
        yield window, each


def line(window) -> Fr:
    """The one line's win [x total bet]."""
    return Fr(4) if window == ("A", "A", "A") else Fr(0)


def free_game_law(free, award, retrigger: bool = True) -> dict:
    """Per free game on strips ``free``: {(win before the multiplier, extra
    games): P}, ``award(window)`` the law of the feature's award there."""
    out: dict = {}
    for window, p in windows(free):
        extra = 2 if retrigger and window.count("S") >= 2 else 0
        for v, q in award(window).items():
            at = (line(window) + v, extra)
            out[at] = out.get(at, 0) + p * q
    return out


def games_mean(game_law: dict, games: int, max_games: int) -> Fr:
    """Mean win before the multiplier of ``games`` free games (a bought
    round), per game ``game_law`` (:func:`free_game_law`), at most
    ``max_games`` played."""

    @functools.cache
    def mean(left: int, played: int) -> Fr:
        if left == 0 or played == max_games:
            return Fr(0)
        return sum((p * (y + mean(left - 1 + k, played + 1)) for (y, k), p in game_law.items()), Fr(0))

    return mean(games, 0)


def games_law(game_law: dict, games: int, max_games: int) -> dict:
    """Law ``{sum of the wins: P}`` of ``games`` free games played literally,
    per game ``game_law`` = {(win, extra games): P}, each game's extra games
    added to those left, at most ``max_games`` played."""

    @functools.cache
    def left_law(left: int, played: int) -> tuple:
        if left == 0 or played == max_games:
            return ((0, Fr(1)),)
        out: dict = {}
        for (y, k), p in game_law.items():
            for rest, q in left_law(left - 1 + k, played + 1):
                out[y + rest] = out.get(y + rest, 0) + p * q
        return tuple(out.items())

    return dict(left_law(games, 0))


def brute_round(max_games: int, base, free, award, mult, retrigger: bool = True, free_award=None) -> dict:
    """Law of the round's win [x total bet] played literally: the base
    window's line and ``award``, and with 2+ S two free games at ``mult``
    playing ``free_award`` (default ``award``)."""
    played = games_law(free_game_law(free, free_award or award, retrigger), 2, max_games)
    law: dict = {}
    for window, p in windows(base):
        win = add({line(window): Fr(1)}, award(window))
        if window.count("S") >= 2:
            win = add(win, {mult * y: q for y, q in played.items()})
        for v, q in win.items():
            law[v] = law.get(v, 0) + p * q
    return law


def hold_and_spin(symbol: str, **extra) -> dict:
    """A one-respin hold-and-spin on ``symbol`` (2 start it, each cell lands
    with probability 1/2, every coin pays 1)."""
    return {
        "symbol": symbol,
        "trigger": 2,
        "respins": 1,
        "probabilities": [["1/2", "1/2", "1/2"]],
        "values": [{"prize": 1, "weight": 1}],
        **extra,
    }


def assert_sampler_agrees(game, exact, rounds: int, seed: int, events: set) -> None:
    """The round sampler against the exact PAR ``exact``: |z| < 4 on the RTP,
    hit frequency, SD, every component and every event with an exact rate,
    ``events`` (the features' events in free games) among them."""
    import pytest

    from slotmath.analysis.simulation import simulate_game

    report = simulate_game(game, rounds, seed=seed, workers=1, progress=False, exact=exact).convergence
    figures = report.figures.set_index("figure")
    for f in ("RTP", "hit frequency", "SD"):
        assert abs(figures.loc[f, "z"]) < 4, (f, figures.loc[f])
    parts = report.components.set_index("figure")
    assert set(parts.index) == {f"RTP: {n}" for n in exact.components}
    for name, value in exact.components.items():
        row = parts.loc[f"RTP: {name}"]
        assert row["exact"] == pytest.approx(float(value), rel=1e-12)
        assert abs(row["z"]) < 4, (name, row)
    rated = report.events.dropna(subset=["z"])
    assert (rated["z"].abs() < 4).all(), rated
    assert events <= set(rated["event"])


def assert_bought_round(game, mean: Fr, cost: int = 10) -> None:
    """The bought round of mode ``buy`` (at ``cost`` x total bet): its exact
    RTP is ``mean`` (per round) and ``mean / cost`` (per unit of cost), and
    the sampler's RTP is within 4 standard errors of it."""
    from slotmath.analysis.simulation import cross_check_mode
    from slotmath.rules.modepar import mode_par

    result = mode_par(game, "buy")
    assert result.par.rtp == mean and result.rtp == mean / cost
    sim = cross_check_mode(game, "buy", None, 200_000, seed=2, workers=1)
    assert abs(sim.result.rtp.z) < 4
