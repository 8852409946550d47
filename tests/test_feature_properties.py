"""Property tests of the feature round: on random small feature games the
exact RTP of ``rules: lines`` equals a brute-force reference.

* Free games on lines: every stop combination of a 3-reel game is listed;
  with ``p`` the probability of the trigger (3 scatters), ``n`` the games
  awarded, ``m`` the multiplier and ``Y`` a spin's win [x total bet], the
  round's RTP is ``E[Y] + p n m E[Y] / (1 - n p)`` (each free spin awards
  ``n`` more games with probability ``p``: a branching process with mean
  ``n p < 1`` games per game, so ``n / (1 - n p)`` games in all).
* Ways: the spin's RTP equals the listed windows (ways counted cell by
  cell), and free games on a ways game follow the same formula as on lines
  (the trigger being 3 or more S anywhere in the 3x2 window).
* Hold-and-spin on lines: the generic round equals
  :func:`slotmath.testing.holdspin_round.hold_and_spin_par`, the same round
  composed independently (direct convolutions of the base win and the award
  given the trigger key): RTP and components exactly; on ways, the same
  feature on the game's one-row ways twin equals the line game's direct round.
* Wheel on lines and on ways: ``E[Y] + P(trigger) x mean segment``, with
  ``E[Y]`` and the trigger odds from the listed cycle.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from slotmath.engine.evaluate import line_wins, window_at
from slotmath.io.gamefile import build_game, check_rules
from slotmath.rules.par import par
from slotmath.testing.holdspin_round import hold_and_spin_par

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(data):
    game = build_game(data, Path("random.yaml"), data["name"])
    check_rules(game)
    return game


# ---------------------------------------------------------------- free games
def pays_and_free_games(draw, least_b: int, most_games: int) -> dict:
    """Pays of A and B for 3 of a kind, a pay for 3 or more S and free games
    on the base reels for 3 or more S (the keys of a game file)."""
    return {
        "pays": [
            {"symbol": "A", "count": 3, "pay": draw(st.integers(1, 20))},
            {"symbol": "B", "count": 3, "pay": draw(st.integers(least_b, 10))},
        ],
        "scatters": [{"symbol": "S", "count": 3, "pay": draw(st.integers(0, 5))}],
        "options": {
            "free_games": {
                "symbol": "S",
                "reels": "base",
                "multiplier": draw(st.integers(1, 3)),
                "awards": {3: {"games": draw(st.integers(1, most_games))}},
            }
        },
    }


@st.composite
def free_games_games(draw):
    """3 reels x 1 row, one line, symbols A, B, a wild and a scatter S on
    random strips; 3 S pay and award free games on the base reels."""
    rows = 1
    names = ["A", "B", "W", "S"]
    strip = st.lists(st.sampled_from(names), min_size=3, max_size=5).filter(lambda s: "S" in s)
    reels = [draw(strip) for _ in range(3)]
    lines = [[0, 0, 0]]
    return {
        "name": "free_games_property",
        "grid": {"reels": 3, "rows": rows},
        "bet": {"levels": [1]},
        "symbols": [
            {"name": "A"},
            {"name": "B"},
            {"name": "W", "kind": "wild", "substitutes": "all"},
            {"name": "S", "kind": "scatter"},
        ],
        "reels": {"base": reels},
        "paylines": lines,
        **pays_and_free_games(draw, least_b=0, most_games=4),
    }


def line_spin_rtp(game, data) -> tuple:
    """(``E[Y]`` [x total bet], ``p``) of one spin of the 3x1 line game by
    listing every stop combination: ``Y`` the line win plus the scatter pay
    of 3 S, ``p`` the probability of 3 S."""
    scatter_pay = data["scatters"][0]["pay"]
    total_bet = game.bet(1).total_bet
    strips = game.strips("base")
    s = game.symbol_index["S"]
    win, hits, cycle = Fraction(0), 0, 0
    for stops in product(*[range(len(strip)) for strip in strips]):
        w = window_at(game, stops)
        coins = int(line_wins(game, 1, w[None]).sum())
        scatters = int((w == s).sum())
        win += Fraction(coins, total_bet) + (scatter_pay if scatters >= 3 else 0)
        hits += scatters >= 3
        cycle += 1
    return win / cycle, Fraction(hits, cycle)


def free_games_oracle(game, data) -> tuple:
    """(``E[Y] + p n m E[Y] / (1 - n p)``, ``n p``) by listing every stop combination."""
    spec = data["options"]["free_games"]
    n, m = spec["awards"][3]["games"], spec["multiplier"]
    ey, p = line_spin_rtp(game, data)
    if n * p >= 1:  # no finite mean
        return None, n * p
    return ey + p * n * m * ey / (1 - n * p), n * p


@SETTINGS
@given(free_games_games())
def test_free_games_on_lines_equal_the_listed_cycle(data):
    n = data["options"]["free_games"]["awards"][3]["games"]
    p = Fraction(1)
    for strip in data["reels"]["base"]:
        p *= Fraction(strip.count("S"), len(strip))
    assume(n * p < Fraction(9, 10))  # else the free games never end (the loader refuses)
    game = load(data)
    oracle, games_per_game = free_games_oracle(game, data)
    assert games_per_game == n * p
    assert par(game, 1).rtp == oracle


# ------------------------------------------------------------- hold-and-spin
@st.composite
def hold_and_spin_games(draw):
    """1 row x 3 reels with a coin symbol: random strips, per-cell landing
    probabilities, respins, prize values and a full-screen jackpot."""
    strip = st.lists(st.sampled_from(["A", "B", "COIN"]), min_size=2, max_size=4).filter(
        lambda s: "COIN" in s
    )
    prob = st.sampled_from(["1/4", "1/3", "1/2", "2/3"])
    values = draw(
        st.lists(
            st.fixed_dictionaries({"prize": st.integers(1, 5), "weight": st.integers(1, 3)}),
            min_size=1,
            max_size=3,
            unique_by=lambda v: v["prize"],
        )
    )
    return {
        "name": "hold_and_spin_property",
        "grid": {"reels": 3, "rows": 1},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "COIN", "kind": "special"}],
        "paylines": [[0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": draw(st.integers(1, 10))}],
        "reels": {"base": [draw(strip) for _ in range(3)]},
        "options": {
            "jackpots": {"GRAND": draw(st.integers(5, 50))},
            "hold_and_spin": {
                "symbol": "COIN",
                "trigger": draw(st.integers(1, 2)),
                "respins": draw(st.integers(1, 3)),
                "rule": "reset",
                "respin": "cells",
                "probabilities": [[draw(prob) for _ in range(3)]],
                "values": values,
                "full_screen": "GRAND",
            },
        },
    }


@SETTINGS
@given(hold_and_spin_games())
def test_hold_and_spin_on_lines_equals_the_direct_convolution(data):
    game = load(data)
    generic = par(game, 1)
    direct = hold_and_spin_par(game, 1)
    assert generic.rtp == direct.rtp
    assert generic.components == direct.components


# ------------------------------------------------------------------ ways
@st.composite
def free_games_ways_games(draw):
    """3 reels x 2 rows paid by ways (A, B and a wild W substituting for
    both), a scatter S: 3 or more S anywhere pay and declare free games."""
    strip = st.lists(st.sampled_from(["A", "B", "W", "S"]), min_size=3, max_size=5).filter(lambda s: "S" in s)
    return {
        "name": "free_games_ways_property",
        "grid": {"reels": 3, "rows": 2},
        "pays_by": "ways",
        "bet": {"levels": [1], "lines": 10},
        "symbols": [
            {"name": "A"},
            {"name": "B"},
            {"name": "W", "kind": "wild", "substitutes": "all"},
            {"name": "S", "kind": "scatter"},
        ],
        "reels": {"base": [draw(strip) for _ in range(3)]},
        **pays_and_free_games(draw, least_b=1, most_games=3),
    }


def ways_windows(strips, rows):
    """Every stop combination's window as names by reel (row ``r`` of a reel
    stopped at ``s`` shows ``strip[(s + r) % len(strip)]``), equally likely."""
    for stops in product(*[range(len(strip)) for strip in strips]):
        yield [
            [strip[(s + r) % len(strip)] for r in range(rows)] for strip, s in zip(strips, stops, strict=True)
        ]


def ways_spin_rtp(data) -> tuple:
    """(``E[Y]`` [x total bet], ``p``) of one spin by listing every window: a
    symbol's win is its pay times the product over the 3 reels of its cells
    (or wilds') on each reel; 3 or more S anywhere pay their scatter pay and
    start the free games (``p`` their probability)."""
    pays = {p["symbol"]: p["pay"] for p in data["pays"]}
    total_bet = data["bet"]["lines"]
    win, hits, cycle = Fraction(0), 0, 0
    for window in ways_windows(data["reels"]["base"], data["grid"]["rows"]):
        coins = 0
        for symbol, pay in pays.items():
            ways = 1
            for reel in window:
                ways *= sum(cell in (symbol, "W") for cell in reel)
            coins += pay * ways
        scatters = sum(cell == "S" for reel in window for cell in reel)
        win += Fraction(coins, total_bet) + (data["scatters"][0]["pay"] if scatters >= 3 else 0)
        hits += scatters >= 3
        cycle += 1
    return win / cycle, Fraction(hits, cycle)


@SETTINGS
@given(free_games_ways_games())
def test_free_games_on_ways_equal_the_listed_cycle(data):
    """Free games on a ways game (every feature plays on every pay rule):
    the round's RTP equals ``E[Y] + p n m E[Y] / (1 - n p)`` of the listed
    windows (free spins on the base reels, so each retriggers with ``p``);
    without the feature the round is the spin."""
    ey, p = ways_spin_rtp(data)
    spec = data["options"]["free_games"]
    n, m = spec["awards"][3]["games"], spec["multiplier"]
    plain = {k: v for k, v in data.items() if k != "options"}
    assert par(load(plain), 1).rtp == ey
    assume(n * p < Fraction(9, 10))  # else the free games never end (the loader refuses)
    assert par(load(data), 1).rtp == ey + p * n * m * ey / (1 - n * p)


# ------------------------------------------------------------------ wheel
def wheel_option(draw, symbol: str) -> dict:
    """A wheel on ``symbol`` at a random trigger count: 1-3 segments of cash
    prizes and a MINI jackpot [x total bet] with random weights."""
    segments = draw(
        st.lists(
            st.fixed_dictionaries({"prize": st.integers(1, 9), "weight": st.integers(1, 4)}),
            min_size=1,
            max_size=3,
            unique_by=lambda v: v["prize"],
        )
    )
    segments.append({"prize": "MINI", "weight": draw(st.integers(1, 3))})
    return {
        "jackpots": {"MINI": draw(st.integers(10, 40))},
        "wheel": {"symbol": symbol, "trigger": draw(st.integers(2, 3)), "segments": segments},
    }


def wheel_mean(options: dict) -> Fraction:
    """Mean award of one wheel spin [x total bet]: the weighted mean of the
    segments, a jackpot segment worth its declared prize."""
    jackpots = options["jackpots"]
    segments = options["wheel"]["segments"]
    total = sum(s["weight"] for s in segments)
    return sum(Fraction(s["weight"] * jackpots.get(s["prize"], s["prize"]), total) for s in segments)


@st.composite
def wheel_line_games(draw):
    """The free-games line game's reels and pays (3 reels x 1 row, one
    line), its free games replaced by a wheel on S."""
    data = draw(free_games_games())
    data["name"] = "wheel_lines_property"
    data["options"] = wheel_option(draw, "S")
    return data


@st.composite
def wheel_ways_games(draw):
    """The ways game above (3 reels x 2 rows) with a wheel on S."""
    data = draw(free_games_ways_games())
    data["name"] = "wheel_ways_property"
    data["options"] = wheel_option(draw, "S")
    return data


def listed_trigger_odds(data) -> Fraction:
    """P(``trigger`` or more S in the window) by listing every stop combination."""
    t = data["options"]["wheel"]["trigger"]
    hits, cycle = 0, 0
    for window in ways_windows(data["reels"]["base"], data["grid"]["rows"]):
        hits += sum(cell == "S" for reel in window for cell in reel) >= t
        cycle += 1
    return Fraction(hits, cycle)


@SETTINGS
@given(wheel_line_games())
def test_wheel_on_lines_equals_the_listed_cycle(data):
    """RTP = ``E[Y] + P(trigger) x mean segment``, ``E[Y]`` the spin's line
    and scatter win of the listed cycle (the free-games oracle without free
    games) and the wheel spun once when the window shows its trigger count."""
    p = listed_trigger_odds(data)
    assume(p > 0)  # a wheel that cannot start is refused by the loader
    ey, _ = line_spin_rtp(load(data), data)
    assert par(load(data), 1).rtp == ey + p * wheel_mean(data["options"])


@SETTINGS
@given(wheel_ways_games())
def test_wheel_on_ways_equals_the_listed_cycle(data):
    """The same on the ways game: ``E[Y]`` from the listed windows (ways
    counted cell by cell), the wheel on ``trigger`` or more S anywhere."""
    p = listed_trigger_odds(data)
    assume(p > 0)
    ey, _ = ways_spin_rtp(data)
    assert par(load(data), 1).rtp == ey + p * wheel_mean(data["options"])


@SETTINGS
@given(hold_and_spin_games())
def test_hold_and_spin_on_ways_equals_its_line_twin(data):
    """One row paid by ways is one line: ways of 3 of a kind on a 3x1 window
    are 1 exactly when the line shows 3 of a kind.  The same hold-and-spin on
    the ways twin (``pays_by: ways``, a bet of 1 way) equals the line game's
    round composed by direct convolutions, RTP and every component but the
    pay rule's own (``ways`` for ``lines``)."""
    direct = hold_and_spin_par(load(data), 1)
    twin = {k: v for k, v in data.items() if k != "paylines"}
    ways = par(load({**twin, "pays_by": "ways", "bet": {"levels": [1], "lines": 1}}), 1)
    assert ways.rtp == direct.rtp
    renamed = {("ways" if k == "lines" else k): v for k, v in direct.components.items()}
    assert ways.components == renamed
