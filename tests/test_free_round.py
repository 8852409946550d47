"""The generic feature round of ``rules: lines`` with declared free games:
exact RTP against hand-worked renewal formulas, the round distribution
against brute-force enumeration of base x free spins, the compiled
sampler's z-scores by component, and refusal of what the round does not play."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest

from slotmath.engine.evaluate import total_wins, window_at
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse

from conftest import TEST_DATA

# 3 reels x 1 row, one line, total bet 1 coin.  Every reel is [A, A, S, X]:
# cycle 4^3 = 64.  A A A pays 8 coins; 3 S anywhere pay 2 x total bet and
# award GAMES free games at x3, retriggerable, on the same reels.
TINY = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: S, kind: scatter}]
reels:
  base: [[A, A, S, X], [A, A, S, X], [A, A, S, X]]
paylines: [[0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 8}]
scatters: [{symbol: S, count: 3, pay: 2}]
options:
  free_games: {symbol: S, reels: base, multiplier: 3, awards: {3: {games: GAMES}}EXTRA}
"""


def tiny(write_game, games=2, extra="", more="", edit=("", "")):
    """The tiny game with ``extra`` free-games keys and ``more`` lines under ``options``."""
    text = TINY.replace("GAMES", str(games)).replace("EXTRA", extra) + more
    return load_game(write_game(text.replace(*edit)))


def test_renewal_formula_worked_by_hand(write_game):
    # Per spin: P(A A A) = (2/4)^3 = 8/64 pays 8; P(S S S) = 1/64 pays 2, so
    #   E[spin win] = (8 x 8 + 2 x 1) / 64 = 66/64 = 33/32 [x total bet], p = 1/64.
    # Games played from N = 2: N / (1 - N p) = 2 / (1 - 2/64) = 64/31.
    # Free games award: 64/31 x 3 x 33/32 = 198/31.
    # Round RTP: 33/32 + (1/64)(198/31) = (33 x 62 + 198) / 1984 = 2244/1984 = 561/496.
    result = analyse(tiny(write_game), 1)
    assert result.components["lines"] == F(64, 64)
    assert result.components["scatters"] == F(2, 64)
    assert result.components["free_games"] == F(1, 64) * F(198, 31)
    assert result.rtp == F(561, 496)
    fg = result.features["free_games"]
    assert fg["trigger_one_in"] == pytest.approx(64)
    assert fg["mean_games"] == pytest.approx(64 / 31)
    assert fg["mean_award"] == pytest.approx(198 / 31)
    assert fg["retrigger_probability"] == pytest.approx(1 / 64)
    assert abs(float(result.distribution.mean) - 561 / 496) < 1e-12


def test_classic_free_games_by_hand():
    # tests/data/classic_free_games: E[spin win] = lines 1.55 + scatters 0.054 =
    # 1.604 (the combination table; checked by enumeration in
    # test_piggy_features), p(3 S) = 27/1000, N = 5, x3:
    #   free games = 27/1000 x 5 / (1 - 5 x 27/1000) x 3 x 1.604 = 32481/43250,
    #   RTP = 1.604 + 32481/43250 = 50927/21625 (235.50 %).
    result = analyse(load_game(TEST_DATA / "classic_free_games"), 1)
    assert result.components["lines"] + result.components["scatters"] == F(1604, 1000)
    assert result.components["free_games"] == F(27, 1000) * 5 / (1 - F(5 * 27, 1000)) * 3 * F(1604, 1000)
    assert result.rtp == F(50927, 21625)


def per_spin_outcomes(game):
    """Every window of one spin: (win [x total bet] as Fraction, S count, weight)."""
    out = []
    for stops in product(*[range(len(s)) for s in game.strips("base")]):
        w = window_at(game, stops)
        win = F(total_wins(game, 1, w[None])[0]).limit_denominator(1000)
        out.append((win, int((w == game.symbol_index["S"]).sum()), 1))
    return out


def test_no_retrigger_equals_literal_enumeration(write_game):
    # without retriggers a round is the base spin and then exactly 2 free spins
    # when it shows 3 S: every one of the 64 x 64 x 64 sequences, literally
    game = tiny(write_game, 2, ", retrigger: false")
    outcomes = per_spin_outcomes(game)
    dist: dict = {}
    for b, c, _ in outcomes:
        if c < 3:
            dist[b] = dist.get(b, 0) + 64 * 64
            continue
        for (y1, _, _), (y2, _, _) in product(outcomes, outcomes):
            t = b + 3 * (y1 + y2)
            dist[t] = dist.get(t, 0) + 1
    total = 64**3
    result = analyse(game, 1)
    assert result.rtp == sum(w * n for w, n in dist.items()) / total
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(np.round(list(got), 9)) == set(np.round([float(w) for w in dist], 9))
    for w, n in dist.items():
        assert got[float(w)] == pytest.approx(n / total, abs=1e-14)


def brute_capped(outcomes, games, cap):
    """Law of the free games' total (before x3) with retriggers of ``games``
    and at most ``cap`` spins, by recursion over every spin's 64 outcomes."""
    memo: dict = {}

    def play(left, played):
        if left == 0 or played == cap:
            return {F(0): F(1)}
        if (left, played) in memo:
            return memo[(left, played)]
        out: dict = {}
        for y, c, _ in outcomes:
            more = games if c >= 3 else 0
            for t, q in play(left - 1 + more, played + 1).items():
                out[y + t] = out.get(y + t, 0) + q / len(outcomes)
        memo[(left, played)] = out
        return out

    return play(games, 0)


def test_capped_retriggers_equal_brute_force(write_game):
    # retriggerable, at most 7 games: the whole round law by recursion over the
    # 64 outcomes of every spin (base, then up to 7 free spins)
    game = tiny(write_game, 2, ", max_games: 7")
    outcomes = per_spin_outcomes(game)
    feature = brute_capped(outcomes, 2, 7)
    dist: dict = {}
    for b, c, _ in outcomes:
        if c < 3:
            dist[b] = dist.get(b, 0) + F(1, 64)
            continue
        for t, q in feature.items():
            dist[b + 3 * t] = dist.get(b + 3 * t, 0) + q / 64
    result = analyse(game, 1)
    assert result.rtp == sum(w * q for w, q in dist.items())  # exact capped recursion
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    for w, q in dist.items():
        assert got.get(float(w), 0.0) == pytest.approx(float(q), abs=1e-14)


def test_round_cap_equals_brute_force(write_game):
    # no retriggers, round capped at 20 x total bet: E[min(T, 20)] by enumeration
    game = tiny(write_game, 2, ", retrigger: false", "  round_cap: 20\n")
    outcomes = per_spin_outcomes(game)
    expect = F(0)
    for b, c, _ in outcomes:
        if c < 3:
            expect += b * 64 * 64
            continue
        for (y1, _, _), (y2, _, _) in product(outcomes, outcomes):
            expect += min(b + 3 * (y1 + y2), 20)
    expect /= 64**3
    result = analyse(game, 1)
    assert float(result.rtp) == pytest.approx(float(expect), abs=1e-12)
    assert result.distribution.max_win == 20
    assert float(result.distribution.mean) == pytest.approx(float(expect), abs=1e-12)


def z_scores(game, level, n, seed):
    exact = analyse(game, level)
    comp = round_components(game, level, n, seed)
    out = {}
    for j, name in enumerate(COMPONENTS):
        e = float(exact.components.get(name, 0))
        se = comp[:, j].std() / n**0.5
        out[name] = 0.0 if se == 0 else (comp[:, j].mean() - e) / se
        assert se > 0 or comp[:, j].mean() == e == 0
    total = comp.sum(axis=1)
    out["rtp"] = (total.mean() - float(exact.rtp)) / (total.std() / n**0.5)
    return out


def test_sampler_agrees_classic():
    z = z_scores(load_game(TEST_DATA / "classic_free_games"), 1, 1_000_000, 11)
    assert all(abs(v) < 4 for v in z.values()), z


def test_sampler_agrees_with_every_option(write_game, tmp_path):
    # own free reels with an expanding wild, retrigger awards by count, no
    # scatter pays inside free games, a cap on games and on the round
    text = """
grid: {reels: 3, rows: 2}
bet: {levels: [1, 2]}
symbols: [{name: A}, {name: B}, {name: W, kind: wild, substitutes: all}, {name: S, kind: scatter}]
reels:
  base: [[A, B, S, B, A, W], [B, A, S, B, B, A], [A, S, B, A, B, B]]
  free: [[A, W, S, B], [B, S, A, W], [S, A, B, B]]
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 10}, {symbol: B, count: 3, pay: 4}]
scatters: [{symbol: S, count: 2, pay: 1}, {symbol: S, count: 3, pay: 5}]
options:
  round_cap: 150
  free_games:
    symbol: S
    reels: free
    multiplier: 2
    nudge: W
    scatter_pays: false
    max_games: 30
    awards: {2: {games: 3}, 3: {games: 6, prize: 1}}
    retrigger_awards: {2: {games: 1}, 3: {games: 3, prize: "1/2"}}
"""
    game = load_game(write_game(text))
    z = z_scores(game, 2, 1_000_000, 5)
    assert all(abs(v) < 4 for v in z.values()), z
    result = analyse(game, 2)
    assert result.components["round_cap"] < 0
    assert result.distribution.max_win == 150
    assert float(result.distribution.mean) == pytest.approx(float(result.rtp), abs=1e-9)


@pytest.mark.parametrize(
    "extra, more, edit, field",
    [
        (", free_gmaes: 1", "", ("", ""), "options.free_games.free_gmaes"),
        ("", "", ("reels: base,", "reels: nosuchset,"), "options.free_games.reels"),
        ("", "", ("multiplier: 3", "multiplier: -3"), "options.free_games.multiplier"),
        ("", "  wild_multipliers: {W: 2}\n", ("", ""), "options.wild_multipliers"),
        ("", "  lockit: {}\n", ("", ""), "options.lockit"),
        ("", "  round_cap: 0\n", ("", ""), "options.round_cap"),
    ],
)
def test_declarations_not_played_are_refused(write_game, extra, more, edit, field):
    with pytest.raises(GameFileError) as err:
        tiny(write_game, 2, extra, more, edit)
    assert field in str(err.value) and "\n" not in str(err.value)


def test_components_without_the_distribution(write_game):
    # linegame.components: the same exact figures as analyse, from the trigger
    # count's law (per-reel counts multiplied, totals convolved)
    from slotmath.features.round import Trigger, trigger_key_probability
    from slotmath.rules.linegame import components

    game = tiny(write_game)
    assert components(game, 1) == analyse(game, 1).components
    per = trigger_key_probability(game, Trigger("S", True))
    assert per[(1, 1, 1)] == F(1, 64) and sum(per.values()) == 1 and len(per) == 8
    classic = load_game(TEST_DATA / "classic_free_games")
    assert sum(components(classic, 1).values()) == F(50927, 21625)


def test_never_ending_free_games_are_refused(write_game):
    # 3 S with probability 1/64 add 40 games: E[K] = 40/64 < 1 is fine; 80 games
    # give E[K] = 80/64 >= 1 and the feature would never end
    assert analyse(tiny(write_game, 40), 1).rtp > 0
    with pytest.raises(GameFileError, match="options.free_games.awards: free games would never end"):
        analyse(tiny(write_game, 80), 1)
    assert analyse(tiny(write_game, 80, ", max_games: 100"), 1).rtp > 0


def test_free_games_table_shows_the_games_played_under_max_games(write_game):
    # 2 games awarded, no retrigger can happen before the cap of 1 game:
    # the table gives the 2 awarded and the 1 played
    fg = analyse(tiny(write_game, 2, ", max_games: 1"), 1).features["free_games"]["by_count"]["3"]
    assert fg["games"] == 2 and fg["mean_games_played"] == 1
    # uncapped, the renewal formula: 2 / (1 - 2/64) = 64/31 games played
    fg = analyse(tiny(write_game), 1).features["free_games"]["by_count"]["3"]
    assert fg["mean_games_played"] == pytest.approx(64 / 31, rel=1e-15)


def test_validate_refuses_never_ending_free_games(write_game):
    # `slotmath validate` refuses what `par` would: E[K] = 80/64 >= 1, one line, exit 2
    from conftest import run_cli

    folder = write_game(TINY.replace("GAMES", "80").replace("EXTRA", "")).parent
    done = run_cli("validate", str(folder))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "options.free_games.awards: free games would never end" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_round_accepts_any_feature_with_a_trigger(write_game):
    # a table feature keyed by the per-reel counts of A: (1, 1, 1) on the
    # 1x3 window of the tiny game (A A A, 8 of 64) pays 10 or 30 x total bet
    # with probability 1/2 each (mean 20); with the free games in the same round:
    #   RTP = 561/496 + (8/64) x 20 = 561/496 + 5/2
    from slotmath.engine.distribution import WinDistribution
    from slotmath.engine.joint import spin_key_distribution
    from slotmath.features.freeround import free_games_feature_of
    from slotmath.features.options import load_features
    from slotmath.features.round import Trigger, feature_from_tables, round_law, round_triggers

    game = tiny(write_game)
    prize = WinDistribution(np.array([10, 30]), np.array([0.5, 0.5]), 1, 1)
    feats = [
        free_games_feature_of(game, 1, load_features(game).free_games),
        feature_from_tables("table", Trigger("A", True), {(1, 1, 1): prize}, {(1, 1, 1): F(20)}),
    ]
    keyed = spin_key_distribution(game, 1, round_triggers(feats))
    law = round_law(keyed, feats)
    assert law.rtp == F(561, 496) + F(5, 2)
    assert law.components["table"] == F(5, 2)
    assert float(law.distribution.mean) == pytest.approx(float(law.rtp), abs=1e-12)
    # A A A pays 8 and the table 10 or 30: 18 with 4/64 (no free-games round
    # makes 18: 2 + 3y = 18 has no whole y), 38 with 4/64 plus the free-games
    # rounds 2 + 3 x 12; a win of 8 keeps only its free-games rounds (2 + 3 x 2)
    got = dict(zip(law.distribution.x.tolist(), law.distribution.probabilities.tolist(), strict=True))
    assert got[18.0] == pytest.approx(4 / 64, abs=1e-14) and got[38.0] > 4 / 64
    alone = analyse(game, 1).distribution
    before = dict(zip(alone.x.tolist(), alone.probabilities.tolist(), strict=True))
    assert got[8.0] == pytest.approx(before[8.0] - 8 / 64, abs=1e-14)


def test_round_cap_alone(write_game):
    # no free games, rounds capped at 5 x total bet: A A A (8 of 64) pays 8 -> 5,
    # S S S (1 of 64) pays 2: RTP = (8 x 5 + 2) / 64 = 42/64, cut -(8 x 3)/64
    declared = "  free_games: {symbol: S, reels: base, multiplier: 3, awards: {3: {games: GAMES}}EXTRA}\n"
    text = TINY.replace(declared, "")
    game = load_game(write_game(text + "  round_cap: 5\n"))
    result = analyse(game, 1)
    assert result.rtp == pytest.approx(42 / 64, abs=1e-15)
    assert result.components["round_cap"] == pytest.approx(-24 / 64, abs=1e-15)
    assert result.distribution.max_win == 5
    comp = round_components(game, 1, 200_000, 2)
    free, cut = COMPONENTS.index("free_games"), COMPONENTS.index("round_cap")
    assert comp[:, free].sum() == 0 and comp.sum(axis=1).max() == 5
    assert comp[:, cut].min() == -3


def test_max_win_equals_brute_force_without_retrigger(write_game):
    # no retriggers, 2 free games at x3 on the base reels: the largest round
    # win by listing every base window and every pair of free spins; A A A
    # pays 8, S S S pays 2 (and triggers), so a triggering window pays 2 and
    # two free spins at most 3 x 8 each: 2 + 48 = 50 x total bet, with
    # probability P(S S S) x P(A A A)^2 = 1/64 x (8/64)^2 = 1/4096
    game = tiny(write_game, 2, ", retrigger: false")
    outcomes = per_spin_outcomes(game)
    law: dict = {}
    for b, c, q in outcomes:
        if c < 3:
            law[b] = law.get(b, 0) + F(q, 64)
            continue
        for (y1, _, q1), (y2, _, q2) in product(outcomes, outcomes):
            t = b + 3 * (y1 + y2)
            law[t] = law.get(t, 0) + F(q * q1 * q2, 64**3)
    top = max(w for w, q in law.items() if q)
    top_win = analyse(game, 1).true_max_win
    assert (top, law[top]) == (50, F(1, 4096))
    assert top_win.exact and (top_win.value, top_win.probability) == (top, law[top])


def test_max_win_of_retriggered_games(write_game):
    # retriggers without max_games: no largest win; with max_games exact (below)
    result = analyse(tiny(write_game), 1)
    assert result.true_max_win.value is None and result.to_dict()["max_win"] is None
    capped = analyse(tiny(write_game, 2, ", max_games: 4"), 1).true_max_win
    # 4 games at A A A (8) is out of reach: a fourth game needs a retrigger (S S S, 2)
    assert capped.value < 2 + 3 * 4 * 8 and capped.exact


def capped_brute_force(outcomes, start: int, cap: int) -> dict:
    """Law of the free games' total win [x total bet, before the
    multiplier] from ``start`` games at most ``cap`` played, by listing every
    sequence of free spins (3 S add ``start`` games again, the awards'
    games; beyond the cap forfeited)."""
    law: dict = {}

    def walk(played, left, total, p):
        if left == 0:
            law[total] = law.get(total, 0) + p
            return
        for y, c, q in outcomes:
            more = start if c >= 3 else 0
            walk(played + 1, min(left - 1 + more, cap - played - 1), total + y, p * F(q, 64))

    walk(0, min(start, cap), F(0), F(1))
    return law


@pytest.mark.parametrize("games, cap", [(2, 4), (2, 5), (1, 4), (3, 3)])
def test_max_win_with_max_games_equals_brute_force(write_game, games, cap):
    # retriggers capped by max_games: the largest round win and its exact odds
    # against every sequence of free spins listed literally; by hand for
    # (2, 4): S S S then A A A three times, or A A A, S S S, A A A, A A A:
    # 2 + 3 x (2 + 3 x 8) = 80 with 1/64 x 2 x (1/64)(8/64)^3 = 1/1048576
    game = tiny(write_game, games, f", max_games: {cap}")
    outcomes = per_spin_outcomes(game)
    law: dict = {}
    for b, c, q in outcomes:
        if c < 3:
            law[b] = law.get(b, 0) + F(q, 64)
            continue
        for y, p in capped_brute_force(outcomes, games, cap).items():
            law[b + 3 * y] = law.get(b + 3 * y, 0) + F(q, 64) * p
    top = max(w for w, q in law.items() if q)
    got = analyse(game, 1).true_max_win
    assert got.exact and (got.value, got.probability) == (top, law[top])
    if (games, cap) == (2, 4):
        assert (top, law[top]) == (80, F(1, 1048576))


def test_sampler_free_games_trigger_rates_against_exact():
    """The round sampler's free-games triggers and games played per round
    against their exact rates (features.free_games.event_rates), by z: the
    trigger is an event (odds), the games played a count (a mean per round)."""
    from slotmath.analysis.simulation import simulate_game
    from slotmath.montecarlo.convergence import is_count

    game = load_game(TEST_DATA / "classic_free_games")
    exact = analyse(game, 1)
    rates = exact.features["event_rates"]
    # P(3 SCATTER) = 27/1000; games played per round = p x 5 / (1 - 5 p)
    assert rates["free_games"] == pytest.approx(27 / 1000)
    assert rates["free_games_played"] == pytest.approx(27 / 1000 * 5 / (1 - 5 * 27 / 1000))
    sim = simulate_game(game, 400_000, seed=31, workers=1, progress=False, exact="par")
    events = sim.convergence.events.set_index("event")
    for name in ("free_games", "free_games_played"):
        assert events.loc[name, "exact"] == pytest.approx(rates[name])
        assert abs(events.loc[name, "z"]) < 4, (name, events.loc[name])
    assert not is_count("free_games") and is_count("free_games_played")
    assert is_count("hold_and_spin award [grid]")


def test_rules_text_counts_one_game_in_the_singular(write_game):
    # "award 1 free games", "at most 1 games in all" read wrong on a sheet
    from slotmath.features.freeround import free_games_rules

    one = " ".join(free_games_rules(tiny(write_game, 1, ", max_games: 1")))
    assert "award 1 free game at" in one or "award 1 free game." in one
    assert "at most 1 game in all." in one
    many = " ".join(free_games_rules(tiny(write_game, 2, ", max_games: 7")))
    assert "award 2 free games" in many and "at most 7 games in all." in many
