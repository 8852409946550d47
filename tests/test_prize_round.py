"""Jackpots, a triggered prize wheel and a feature selection in the round of
``rules: lines``: exact RTP worked by hand, the round distribution against
enumeration of every base window with every wheel draw and free spin, the
compiled sampler's z-scores by component, and refusal of bad declarations."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import pytest

from slotmath.engine.evaluate import total_wins, window_at
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.montecarlo.roundsim import COMPONENTS, round_components
from slotmath.rules.linegame import analyse, components

from conftest import docs_example

# 3 reels x 1 row, one line, total bet 1 coin; every reel is [A, A, S, X]
# (cycle 4^3 = 64).  A A A pays 8 (8 of 64 windows); S pays nothing itself.
# S on a reel with probability 1/4: P(2 S) = 3 (1/4)^2 (3/4) = 9/64,
# P(3 S) = 1/64, so P(at least 2 S) = 10/64.
GAME = """
grid: {reels: 3, rows: 1}
bet: {levels: [1]}
symbols: [{name: A}, {name: X, kind: blank}, {name: S, kind: scatter}]
reels:
  base: [[A, A, S, X], [A, A, S, X], [A, A, S, X]]
paylines: [[0, 0, 0]]
pays: [{symbol: A, count: 3, pay: 8}]
options:
"""

# one wheel draw: before prize 1000 with 1/100, else segments 1 (5), 4 (3),
# MAJOR = 200 (2) of total weight 10:
#   E[draw] = 1000/100 + (99/100)(5 x 1 + 3 x 4 + 2 x 200)/10 = 10 + 41283/1000 = 51283/1000
WHEEL = """  jackpots: {MAJOR: 200}
  wheel:
    TRIGGER
    segments: [{prize: 1, weight: 5}, {prize: 4, weight: 3}, {prize: MAJOR, weight: 2}]
    before: {name: SUPER, prize: 1000, probability: "1/100"}
"""
DRAW_MEAN = F(51283, 1000)

SELECTION = """  free_games:
    {symbol: S, reels: base, multiplier: 3, awards: {3: {games: 2}}, retrigger: RETRIGGER}
  selection:
    symbol: S
    trigger: 2
    policy: POLICY
    choices:
      - {name: cash, prize: 10WEIGHT2}
      - {name: spins, free_games: 5, multiplier: 2WEIGHT1}
      - {name: wheel, wheel: 2WEIGHT1}
"""


def game_of(write_game, wheel_trigger="", policy=None, retrigger="false", more=""):
    text = GAME + WHEEL.replace("TRIGGER", wheel_trigger)
    if policy is not None:
        text += SELECTION.replace("POLICY", policy).replace("RETRIGGER", retrigger)
        for w in ("1", "2"):
            text = text.replace(f"WEIGHT{w}", f", weight: {w}" if policy == "player" else "")
    return load_game(write_game(text + more))


def windows(game):
    """Every base window: (win [x total bet], S count), each of probability 1/64."""
    out = []
    for stops in product(*[range(len(s)) for s in game.strips("base")]):
        w = window_at(game, stops)
        win = F(total_wins(game, 1, w[None])[0]).limit_denominator(1000)
        out.append((win, int((w == game.symbol_index["S"]).sum())))
    return out


def conv(a: dict, b: dict) -> dict:
    out: dict = {}
    for (x, p), (y, q) in product(a.items(), b.items()):
        out[x + y] = out.get(x + y, 0) + p * q
    return out


def mix(parts) -> dict:
    out: dict = {}
    for q, law in parts:
        for x, p in law.items():
            out[x] = out.get(x, 0) + q * p
    return out


def times(law: dict, n: int) -> dict:
    """Law of the sum of ``n`` independent copies."""
    out = {F(0): F(1)}
    for _ in range(n):
        out = conv(out, law)
    return out


# one wheel draw and one free spin (A A A pays 8 on 8 of 64 windows), exactly
DRAW = {
    F(1000): F(1, 100),
    F(1): F(99, 100) * F(5, 10),
    F(4): F(99, 100) * F(3, 10),
    F(200): F(99, 100) * F(2, 10),
}
SPIN = {F(8): F(8, 64), F(0): F(56, 64)}


def round_law(game, award) -> dict:
    """Exact round law: every base window (1/64) with ``award(count)`` (a law or None)."""
    out: dict = {}
    for win, count in windows(game):
        law = {win: F(1, 64)}
        for extra in award(count):
            law = conv(law, extra)
        out = mix([(1, out), (1, law)])
    return out


def assert_same_law(result, exact: dict):
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert result.rtp == sum(x * p for x, p in exact.items())
    assert sum(exact.values()) == 1
    for x, p in exact.items():
        assert got.get(float(x), 0.0) == pytest.approx(float(p), abs=1e-14), x
    assert len(got) == sum(1 for p in exact.values() if p)


def test_wheel_worked_by_hand(write_game):
    # at least 2 S (10/64) spin the wheel once: wheel = (10/64) x 51283/1000
    # = 51283/6400; lines = (8/64) x 8 = 1; RTP = 1 + 51283/6400 = 57683/6400
    result = analyse(game_of(write_game, "symbol: S\n    trigger: 2"), 1)
    assert result.components == {"lines": 1, "wheel": F(10, 64) * DRAW_MEAN}
    assert result.rtp == F(57683, 6400)
    odds = result.features["wheel"]
    assert odds["trigger_one_in"] == pytest.approx(6.4)
    # SUPER: 10/64 x 1/100; MAJOR: 10/64 x 99/100 x 2/10
    assert odds["jackpots"]["SUPER"]["per_round"] == pytest.approx(10 / 6400)
    assert odds["jackpots"]["MAJOR"]["per_round"] == pytest.approx(10 / 64 * 0.99 * 0.2)
    assert components(game_of(write_game, "symbol: S\n    trigger: 2"), 1) == result.components


def test_wheel_spins_equal_enumeration(write_game):
    # 3 S (1/64) spin it twice: wheel = (1/64) x 2 x 51283/1000 = 51283/32000;
    # the law: each base window with the sum of two draws when it shows 3 S
    game = game_of(write_game, "symbol: S\n    trigger: 3\n    spins: 2")
    result = analyse(game, 1)
    assert result.components["wheel"] == F(51283, 32000)
    assert_same_law(result, round_law(game, lambda c: [times(DRAW, 2)] if c == 3 else []))


def selection_law(policy_q, retrigger_free=False) -> dict:
    """The selection's award: cash 10, 5 free spins x2, or two wheel draws."""
    return mix(
        [
            (policy_q[0], {F(10): F(1)}),
            (policy_q[1], {2 * x: p for x, p in times(SPIN, 5).items()}),
            (policy_q[2], times(DRAW, 2)),
        ]
    )


# choice means: cash 10; spins 5 x E[spin] x 2 = 5 x 1 x 2 = 10 (no retriggers);
# wheel 2 x 51283/1000 = 51283/500 (the highest: max_rtp takes it)
@pytest.mark.parametrize(
    "policy, q",
    [
        ("player", (F(2, 4), F(1, 4), F(1, 4))),
        ("uniform", (F(1, 3), F(1, 3), F(1, 3))),
        ("max_rtp", (F(0), F(0), F(1))),
    ],
)
def test_selection_policies_equal_enumeration(write_game, policy, q):
    # round: base window; 2+ S start the selection (10/64); 3 S also start the
    # declared free games (2 spins x3, 1/64)
    #   RTP = 1 + (1/64) x 2 x 1 x 3 + (10/64) x sum_i q_i mean_i
    game = game_of(write_game, policy=policy)
    result = analyse(game, 1)
    choice_mean = q[0] * 10 + q[1] * 10 + q[2] * 2 * DRAW_MEAN
    assert result.components == {"lines": 1, "free_games": F(6, 64), "selection": F(10, 64) * choice_mean}
    free = {3 * x: p for x, p in times(SPIN, 2).items()}
    sel = selection_law(q)
    exact = round_law(game, lambda c: ([sel] if c >= 2 else []) + ([free] if c == 3 else []))
    assert_same_law(result, exact)
    odds = result.features["selection"]
    assert [v["probability"] for v in odds["choices"].values()] == pytest.approx([float(x) for x in q])
    assert components(game, 1) == result.components


def test_selection_free_games_use_the_renewal_mean(write_game):
    # retriggerable: 3 S (1/64) in a free spin add 2 games (the declared awards), so
    # 5 games play 5 / (1 - 2/64) = 160/31 on average; the choice is worth
    # 160/31 x 1 x 2 = 320/31; uniform: selection = (10/64)(10 + 320/31 + 51283/500)/3
    result = analyse(game_of(write_game, policy="uniform", retrigger="true"), 1)
    assert result.features["selection"]["choices"]["spins"]["mean_value"] == pytest.approx(320 / 31)
    assert result.components["selection"] == F(10, 64) * (10 + F(320, 31) + 2 * DRAW_MEAN) / 3
    # the law: free-games award on an FFT grid (wrapped mass < 1e-12), points < 1e-15 dropped
    assert float(result.distribution.mean) == pytest.approx(float(result.rtp), rel=1e-11)


def z_scores(game, level, n, seed):
    exact = analyse(game, level)
    comp = round_components(game, level, n, seed)
    out = {}
    for j, name in enumerate(COMPONENTS):
        e = float(exact.components.get(name, 0))
        se = comp[:, j].std() / n**0.5
        assert se > 0 or comp[:, j].mean() == e == 0, name
        out[name] = 0.0 if se == 0 else (comp[:, j].mean() - e) / se
    total = comp.sum(axis=1)
    out["rtp"] = (total.mean() - float(exact.rtp)) / (total.std() / n**0.5)
    return out, exact


@pytest.mark.parametrize("policy", ["player", "max_rtp"])
def test_sampler_agrees_with_wheel_and_selection(write_game, policy):
    # every part at once: wheel on 3 S, selection on 2+ S (free games retriggerable),
    # the declared free games on 3 S, a round cap of 300
    game = game_of(write_game, "symbol: S\n    trigger: 3", policy, "true", "  round_cap: 300\n")
    z, exact = z_scores(game, 1, 1_000_000, 7)
    assert all(abs(v) < 4 for v in z.values()), z
    assert exact.components["round_cap"] < 0 and exact.components["wheel"] > 0


@pytest.mark.parametrize(
    "edit, field",
    [
        (("TRIGGER", "trigger: 2"), "options.wheel.symbol: is required"),
        (("TRIGGER", "symbol: S\n    trigger: 4"), "options.wheel.trigger: 4 symbols do not fit"),
        (("TRIGGER", "symbol: S\n    trigger: 2\n    spin: 2"), "options.wheel.spin: unknown key"),
        (("TRIGGER", "symbol: S\n    trigger: 2\n    spins: 0"), "options.wheel.spins: must be positive"),
        (("TRIGGER", "spins: 2"), "options.wheel.spins: is given but the wheel has no trigger"),
        (("wheel: 2", "prize: 3"), "options.wheel: has no symbol/trigger and no selection choice spins it"),
        (("prize: MAJOR", "prize: MAXI"), "options.wheel.segments[2].prize: unknown jackpot 'MAXI'"),
        (("{MAJOR: 200}", "{MAJOR: 200, MINI: 5}"), "options.jackpots.MINI: is not awarded"),
        (("policy: player", "policy: best"), "options.selection.policy: must be one of"),
        (("prize: 10, weight: 2", "prize: 10"), "options.selection.choices[0].weight: is required"),
        (("{name: cash, prize: 10, weight: 2}", "{name: cash, weight: 2}"), "selection.choices[0]: must"),
        (("name: wheel,", "name: cash,"), "options.selection.choices[2].name: choice 'cash' is listed twice"),
        (("free_games: 5, multiplier", "wheel: 1, multiplier"), "choices[1].multiplier: is given but"),
        (("free_games: 5,", "free_games: -5,"), "selection.choices[1].free_games: must be at least 0"),
        (("policy: player", "policy: player\n    weights: 1"), "options.selection.weights: unknown key"),
    ],
)
def test_bad_declarations_are_one_line(write_game, edit, field):
    text = GAME + WHEEL + SELECTION.replace("POLICY", "player").replace("RETRIGGER", "true")
    text = text.replace("WEIGHT2", ", weight: 2").replace("WEIGHT1", ", weight: 1")
    assert edit[0] in text
    load_game(write_game(text.replace("TRIGGER", "")))  # the declaration before the edit is valid
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text.replace(*edit, 1).replace("TRIGGER", "")))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_choices_need_their_features_declared(write_game):
    text = GAME + "  selection: {symbol: S, trigger: 2, policy: uniform, choices: [CHOICE]}\n"
    for choice, field in [
        ("{prize: 1}, {free_games: 3}", "options.selection.choices[1].free_games: needs options.free_games"),
        ("{prize: 1}, {wheel: 1}", "options.selection.choices[1].wheel: needs options.wheel"),
        ("{prize: 1}, {prize: 2, weight: 1}", "choices[1].weight: is used only with policy: player"),
        ("{prize: 1}", "options.selection.choices: must be a list of at least two"),
    ]:
        with pytest.raises(GameFileError, match=field.replace("[", r"\[").replace("]", r"\]")):
            load_game(write_game(text.replace("CHOICE", choice)))


def test_wheel_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs: P(2+ S) = 10/64, one spin 237/10: RTP = 1 + 237/64 = 301/64 (470.3125 %)
    game, section = docs_example(tmp_path, "### Worked example: wheel")
    result = analyse(game, 1)
    assert result.components == {"lines": 1, "wheel": F(237, 64)}
    assert result.rtp == F(301, 64) and f"{float(result.rtp):.4%}" == "470.3125%"
    assert "`301/64` (470.3125 %)" in section
    jackpots = result.features["wheel"]["jackpots"]
    assert jackpots["MINI"]["one_in"] == jackpots["MAJOR"]["one_in"] == pytest.approx(64)


def test_selection_worked_example_has_the_figures_the_page_states(tmp_path):
    # docs: choices 10, 10, 417/5; player (2, 1, 1): 567/20; RTP = 1 + 3/32 + 567/128 = 707/128;
    # max_rtp: the wheel, RTP = 1 + 3/32 + 417/32 = 113/8
    game, section = docs_example(tmp_path, "### Worked example: selection")
    result = analyse(game, 1)
    assert result.components == {"lines": 1, "free_games": F(3, 32), "selection": F(567, 128)}
    assert result.rtp == F(707, 128) and f"{float(result.rtp):.4%}" == "552.3438%"
    assert "`1 + 3/32 + 567/128 = 707/128` (552.3438 %)" in section
    means = {k: v["mean_value"] for k, v in result.features["selection"]["choices"].items()}
    assert means == pytest.approx({"cash": 10, "spins": 10, "wheel": 417 / 5})
    best = load_game(write_text(game, "policy: player", "policy: max_rtp"))
    assert analyse(best, 1).rtp == F(113, 8) and "`1 + 3/32 + 417/32 = 113/8`" in section


def write_text(game, old, new):
    """The folder of ``game`` with ``old`` replaced by ``new`` and player weights dropped."""
    import re
    from pathlib import Path

    path = Path(game.source)
    text = path.read_text(encoding="utf-8").replace(old, new)
    path.write_text(re.sub(r"(- \{name: [^\n]*?), weight: \d+", r"\1", text), encoding="utf-8")
    return path.parent


def test_wheel_beside_a_hold_and_spin(tmp_path):
    # the 2x2 hold-and-spin game of test_holdspin plus a wheel on 2+ COIN that
    # shares its MINI jackpot.  Base windows: reel 1 [COIN, COIN, A, B] shows
    # 2, 1, 0, 1 COIN; reel 2 [A, COIN, B] shows 1, 1, 0:
    #   P(2+ COIN) = P(reel 1 shows 2) + P(1) P(1) = 1/4 + (1/2)(2/3) = 7/12;
    # one spin: (2 + MINI 5) / 2 = 7/2; wheel = (7/12)(7/2) = 49/24
    from test_holdspin import CELLS, small_game_data
    from test_holdspin import write_game as write_folder

    data = small_game_data(CELLS)
    alone = analyse(write_folder(tmp_path, data, "alone"), 1)
    segments = [{"prize": 2, "weight": 1}, {"prize": "MINI", "weight": 1}]
    data["options"]["wheel"] = {"symbol": "COIN", "trigger": 2, "segments": segments}
    both = analyse(write_folder(tmp_path, data, "both"), 1)
    assert both.components == {**alone.components, "wheel": F(49, 24)}
    assert both.rtp == alone.rtp + F(49, 24)
    assert float(both.distribution.mean) == pytest.approx(float(both.rtp), rel=1e-9)


def test_free_games_played_only_by_a_selection_choice(write_game):
    # options.free_games without awards: the base window never starts them, the
    # choice does (5 games x2, no retriggers: 5 x E[spin] 1 x 2 = 10); uniform
    # between a prize of 10 and the games: selection = (10/64) x 10 = 25/16,
    # RTP = 1 + 25/16 = 41/16
    text = GAME + (
        "  free_games: {symbol: S, reels: base}\n"
        "  selection: {symbol: S, trigger: 2, policy: uniform,\n"
        "              choices: [{prize: 10}, {free_games: 5, multiplier: 2}]}\n"
    )
    game = load_game(write_game(text))
    result = analyse(game, 1)
    assert result.components == {"lines": 1, "selection": F(25, 16)} and result.rtp == F(41, 16)
    z, _ = z_scores(game, 1, 300_000, 4)
    assert all(abs(v) < 4 for v in z.values()), z
    alone = GAME + "  free_games: {symbol: S, reels: base}\n"
    with pytest.raises(GameFileError, match=r"options\.free_games\.awards: is required"):
        load_game(write_game(alone))


def test_pick_and_wheel_example_game():
    # data/games/pick_and_wheel: the components without the distribution equal the
    # full analysis's, the distribution's mean its RTP, and the sampler agrees
    game = load_game("pick_and_wheel")
    z, exact = z_scores(game, 1, 1_000_000, 12)
    assert components(game, 1) == exact.components
    assert set(exact.components) == {"lines", "scatters", "free_games", "wheel", "selection"}
    # the law drops points below 1e-15 (4.8e-12 of mass, wins up to thousands of
    # total bets, in the free games' tail): its mean is short by about 1.5e-8
    short = float(exact.rtp) - float(exact.distribution.mean)
    assert 0 <= short < 1e-7
    assert all(abs(v) < 4 for v in z.values()), z


def test_sampler_counts_wheel_and_selection_jackpots(write_game):
    """The sampler counts the wheel's and the selection's starts and every
    jackpot they pay (the SUPER before prize, the MAJOR segment), each
    against its rate worked by hand: wheel on 3 S (1/64), one draw; selection
    on 2+ S (10/64), choice 'wheel' (weight 1 of 4) spins it twice; a draw is
    SUPER with 1/100 and MAJOR with (99/100)(2/10)."""
    from slotmath.montecarlo.run import run_chunk
    from slotmath.rules.linegame import round_sampler

    game = game_of(write_game, "symbol: S\n    trigger: 3", "player")
    super_, major = F(1, 100), F(99, 100) * F(2, 10)
    hand = {
        "wheel starts": F(1, 64),
        "wheel jackpot SUPER": F(1, 64) * super_,
        "wheel jackpot MAJOR": F(1, 64) * major,
        "selection starts": F(10, 64),
        "selection jackpot SUPER": F(10, 64) * F(1, 4) * 2 * super_,
        "selection jackpot MAJOR": F(10, 64) * F(1, 4) * 2 * major,
    }
    rates = analyse(game, 1).features["event_rates"]
    sampler = round_sampler(game, 1)
    n = 400_000
    stats = run_chunk(sampler, 5, 0, n)
    for name, rate in hand.items():
        assert rates[name] == pytest.approx(float(rate), rel=1e-12), name
        got, se = stats.event_rate(sampler.event_names.index(name))
        assert abs(got - float(rate)) / se < 4, (name, got, float(rate))
