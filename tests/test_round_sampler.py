"""The compiled round sampler of ``rules: lines`` plays every feature of the
round together (free games, hold-and-spin, lock-it, wheel, selection,
jackpots, round cap) and agrees with the exact round: z-scores of the RTP, the hit
frequency, every RTP component and the features' events, on small games
whose every component is far from zero (a component the sampler dropped or
mis-added would show)."""

from __future__ import annotations

import json

import pytest

from slotmath.analysis.simulation import simulate_game
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, component_names, components, round_sampler

from conftest import GAMES, TEST_DATA, run_cli

# 3 reels x 2 rows, lines on both rows, total bet 2 coins.  S (scatter) pays
# and starts free games; C (coin) starts the hold-and-spin on 3+ anywhere
# (6 cells, every one held pays the GRAND); K (bonus) spins the wheel on 2+
# and, with SELECTION, starts a selection on 3.  The wheel, the coins and a
# selection choice share the MINI jackpot.
GAME = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols:
  - {name: A}
  - {name: B}
  - {name: X, kind: blank}
  - {name: S, kind: scatter}
  - {name: C, kind: special}
  - {name: K, kind: special}
reels:
  base: [[A, B, S, C, C, X, K, A], [A, C, S, B, C, X, K, B], [B, A, C, S, X, C, K, A]]
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 10}, {symbol: B, count: 3, pay: 6}]
scatters: [{symbol: S, count: 2, pay: 1}, {symbol: S, count: 3, pay: 5}]
options:
  jackpots: {MINI: 10, GRAND: 50}
  free_games: {symbol: S, reels: base, multiplier: 2, awards: {2: {games: 3}}}
  hold_and_spin:
    symbol: C
    trigger: 3
    respins: 2
    rule: reset
    respin: cells
    probabilities: [["1/4", "1/5", "1/4"], ["1/4", "1/5", "1/4"]]
    values: [{prize: 1, weight: 3}, {prize: 2, weight: 2}, {prize: MINI, weight: 1}]
    full_screen: GRAND
  wheel:
    symbol: K
    trigger: 2
    segments: [{prize: 2, weight: 3}, {prize: 5, weight: 2}, {prize: MINI, weight: 1}]
"""
SELECTION = """  selection:
    symbol: K
    trigger: 3
    policy: player
    choices:
      - {name: cash, prize: MINI, weight: 2}
      - {name: spins, free_games: 2, multiplier: 3, weight: 1}
      - {name: wheel, wheel: 2, weight: 1}
"""


def simulated(game, rounds: int, seed: int):
    """The simulation command's run (exact figures: the whole PAR) and the PAR."""
    par = analyse(game, 1)
    sim = simulate_game(game, rounds, seed=seed, workers=1, progress=False, exact=par)
    return sim.convergence, par


def assert_agrees(report, par, names):
    """|z| < 4 on the RTP, hit frequency and SD, on every component (each of
    ``names``, all of the PAR's, none tiny) and on every event with an exact rate."""
    figures = report.figures.set_index("figure")
    for f in ("RTP", "hit frequency", "SD"):
        assert abs(figures.loc[f, "z"]) < 4, (f, figures.loc[f])
    parts = report.components.set_index("figure")
    assert list(parts.index) == [f"RTP: {n}" for n in names] and set(names) == set(par.components)
    for name in names:
        row = parts.loc[f"RTP: {name}"]
        assert abs(float(par.components[name])) > 0.05, name  # far from zero: dropping it would show
        assert row["exact"] == pytest.approx(float(par.components[name]), rel=1e-12)
        assert abs(row["z"]) < 4, (name, row)
    events = report.events.dropna(subset=["z"]).set_index("event")
    assert (events["z"].abs() < 4).all(), events[events["z"].abs() >= 4]
    return events


def test_hold_and_spin_with_free_games_wheel_and_jackpots(write_game):
    game = load_game(write_game("name: combo\n" + GAME))
    names = ("lines", "scatters", "free_games", "hold_and_spin", "wheel")
    assert round_sampler(game, 1).part_names == names == component_names(game)
    report, par = simulated(game, 1_000_000, 12)
    events = assert_agrees(report, par, names)
    features = (
        "hold_and_spin triggers",
        "hold_and_spin full screens",
        "hold_and_spin award [grid]",
        "free_games",
        "free_games_played",
    )
    features += (
        "hold_and_spin jackpot MINI",  # a coin's prize
        "hold_and_spin jackpot GRAND",  # the full screen's
        "wheel starts",
        "wheel jackpot MINI",  # a segment
    )
    for name in features:
        assert events.loc[name, "exact"] > 0, name  # the feature's events are checked too
    # and the line (2) and scatter (2) pays: every event is one of those
    assert len(events) == len(features) + 4


def test_every_feature_under_a_round_cap(write_game):
    # the same round with a selection on 3 K, capped at 20 x total bet: the cap
    # cuts the hold-and-spin's GRAND (50) and the large combined rounds
    game = load_game(write_game("name: capped\n" + GAME + SELECTION + "  round_cap: 20\n"))
    names = ("lines", "scatters", "free_games", "hold_and_spin", "wheel", "selection", "round_cap")
    assert round_sampler(game, 1).part_names == names == component_names(game)
    report, par = simulated(game, 1_000_000, 5)
    assert par.components["round_cap"] < -0.05
    assert_agrees(report, par, names)


# tests/data/lockit_tiny's lock-it (2 rows x 3 reels; 3+ P or M start 2
# countdown respins, the final screen packed into 2x2, 2x1, 1x1 shapes; an M
# on screen spins the wheel at the end; the 2x2 and the wheel may give the
# MINI) beside free games (2+ S: 3 free spins x2 on the base reels, scatter
# pays inside) and a round cap of 30 x total bet that cuts full screens.
LOCKIT = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols:
  - {name: A}
  - {name: B}
  - {name: P, kind: special}
  - {name: M, kind: special}
  - {name: S, kind: scatter}
reels:
  base: [[A, P, S, B, M, A, B], [P, A, B, S, P, B], [B, P, A, S, A, M]]
  respin: [[P, A, B, A], [B, P, A], [A, B, P, M]]
  respin_after: [[P, A, B], [B, P, P], [A, P, B, M]]
paylines: [[0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 10}, {symbol: B, count: 3, pay: 5}]
scatters: [{symbol: S, count: 2, pay: 2}]
options:
  jackpots: {MINI: 20}
  free_games: {symbol: S, reels: base, multiplier: 2, awards: {2: {games: 3}}}
  round_cap: 30
  lockit:
    symbols: [P, M]
    mark: M
    mark_award: wheel
    trigger: 3
    rule: countdown
    shapes: [[2, 2], [2, 1], [1, 1]]
    awards:
      trigger:
        1: {"2x2": [[10, 1], [MINI, 1]], "2x1": [[3, 2], [4, 1]], "1x1": [[1, 3], [2, 1]]}
    sources:
      base_game: {spins: 2, reels: respin, after_mark: respin_after, awards: trigger}
  wheel:
    segments: [{prize: 5, weight: 3}, {prize: MINI, weight: 1}]
"""


def test_lockit_with_free_games_wheel_jackpots_and_a_round_cap(write_game):
    game = load_game(write_game("name: lockit_all\n" + LOCKIT))
    names = ("lines", "scatters", "free_games", "lockit", "round_cap")
    assert round_sampler(game, 1).part_names == names == component_names(game)
    report, par = simulated(game, 600_000, 3)
    assert par.components["round_cap"] < -0.05
    events = assert_agrees(report, par, names)
    for name in ("lockit triggers", "lockit full screens", "lockit marks", "lockit award [grid]"):
        assert events.loc[name, "exact"] > 0, name  # the lock-it's events are checked too


@pytest.mark.parametrize(
    "path",
    [
        GAMES / "hold_and_spin",
        GAMES / "classic_free_spins",
        GAMES / "pick_and_wheel",
        GAMES / "video20",
        TEST_DATA / "classic_free_games",
    ],
    ids=lambda p: p.name,
)
def test_component_names_follow_the_declarations(path):
    """The sampler's parts are named from the declarations alone, and they are
    the exact components' names, in order."""
    game = load_game(path)
    assert component_names(game) == tuple(components(game, 1))


def test_cli_simulates_the_hold_and_spin_example():
    spins = ("--spins", "200000", "--seed", "3", "--workers", "1")
    out = run_cli("simulate", GAMES / "hold_and_spin", *spins, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    rows = {r["figure"]: r for r in result["convergence"]["components"]}
    assert set(rows) == {"RTP: lines", "RTP: scatters", "RTP: hold_and_spin"}
    assert all(abs(r["z"]) < 4 for r in rows.values())
    assert abs(result["rtp"]["z"]) < 4


def test_round_cap_on_a_ways_game_is_played(tmp_path):
    # the ways pay rule plays the round: the cap is a component of the round
    text = (GAMES / "ways4096" / "game.yaml").read_text() + "options:\n  round_cap: 5\n"
    (tmp_path / "game.yaml").write_text(text)
    out = run_cli("validate", tmp_path / "game.yaml")
    assert out.returncode == 0, out.stderr
    assert component_names(load_game(tmp_path / "game.yaml")) == ("ways", "scatters", "round_cap")
