"""Tests for slotmath.features.holdspin: the value-per-coin hold-and-spin.

Numbers are proved three ways: a 1x3 game worked by hand (the working is in
the comments), brute force of the respins and of the base window on 2x2
games, and the compiled sampler against the exact figures (z-scores).
"""

import functools
import itertools
import re
from fractions import Fraction as Fr
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from slotmath.features.holdspin import (
    COINS_TABLE,
    final_count_laws,
    hold_and_spin_awards,
    hold_and_spin_means,
    load_hold_and_spin,
    trigger_keys,
)
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.testing.holdspin_round import hold_and_spin_par, hold_and_spin_rtp

ROOT = Path(__file__).resolve().parents[1]


def write_game(tmp_path, data, name="game"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return load_game(folder / "game.yaml")


# ----------------------------------------------------------------------------
# 1 row x 3 reels, worked by hand
# ----------------------------------------------------------------------------
def hand_game_data():
    return {
        "name": "hand",
        "title": "hand-worked hold-and-spin",
        "grid": {"reels": 3, "rows": 1},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "COIN", "kind": "special"}],
        "paylines": [[0, 0, 0]],
        "pays": [{"symbol": "A", "count": 3, "pay": 5}],
        "reels": {"base": [["COIN", "A", "B"], ["COIN", "A", "B", "B"], ["A", "COIN"]]},
        "options": {
            "jackpots": {"GRAND": 10},
            "hold_and_spin": {
                "symbol": "COIN",
                "trigger": 1,
                "respins": 1,
                "rule": "reset",
                "respin": "cells",
                "probabilities": [["1/2", "1/2", "1/2"]],
                "values": [{"prize": 1, "weight": 3}, {"prize": 4, "weight": 1}],
                "start_values": [{"prize": 2, "weight": 1}],
                "full_screen": "GRAND",
            },
        },
    }


@pytest.fixture
def hand(tmp_path):
    return write_game(tmp_path, hand_game_data())


def test_hand_worked_final_counts(hand):
    # One coin held, two empty cells, each lands with 1/2, one respin, reset:
    #   both land (1/4) -> full;  one lands (1/2) -> reset to 1 respin with one
    #   empty cell, which lands (1/2) -> full or not (1/2) -> 2 coins;
    #   none lands (1/4) -> ends with 1 coin.
    #   P(3) = 1/4 + 1/2 * 1/2 = 1/2,  P(2) = 1/4,  P(1) = 1/4.
    spec = load_hold_and_spin(hand)
    laws = final_count_laws(hand, spec)
    assert list(laws[(1, 0, 0)]) == [0, Fr(1, 4), Fr(1, 4), Fr(1, 2)]
    assert list(laws[(0, 0, 1)]) == [0, Fr(1, 4), Fr(1, 4), Fr(1, 2)]  # symmetric cells
    # two coins, one empty cell, one respin: full with 1/2
    assert list(laws[(1, 1, 0)]) == [0, 0, Fr(1, 2), Fr(1, 2)]
    assert list(laws[(1, 1, 1)]) == [0, 0, 0, 1]


def test_hand_worked_means_and_rtp(hand):
    spec = load_hold_and_spin(hand)
    # E[S] = 2 (start coins), E[V] = (3 x 1 + 1 x 4) / 4 = 7/4, GRAND = 10.
    # one coin:  E[n] = 3/2 + 1/2 + 1/4 = 9/4;
    #            mean = 1 x 2 + (9/4 - 1) x 7/4 + 1/2 x 10 = 147/16
    # two coins: E[n] = 5/2; mean = 2 x 2 + 1/2 x 7/4 + 1/2 x 10 = 79/8
    # three:     mean = 3 x 2 + 10 = 16
    means = hold_and_spin_means(hand, 1, spec)
    assert means[(1, 0, 0)] == Fr(147, 16)
    assert means[(0, 1, 1)] == Fr(79, 8)
    assert means[(1, 1, 1)] == 16
    # P(coin) per reel: 1/3, 1/4, 1/2.
    #   P(1 coin) = 1/3*3/4*1/2 + 2/3*1/4*1/2 + 2/3*3/4*1/2 = 11/24
    #   P(2 coins) = 1/3*1/4*1/2 + 1/3*3/4*1/2 + 2/3*1/4*1/2 = 6/24,  P(3) = 1/24
    #   P(trigger) = 11/24 + 6/24 + 1/24 = 3/4 (no coin: 2/3 x 3/4 x 1/2 = 1/4)
    keys = trigger_keys(hand, spec)
    assert keys[(1, 0, 0)] == Fr(1, 8)
    assert sum(p for k, p in keys.items() if sum(k) == 1) == Fr(11, 24)
    # feature RTP = (11 x 147/16 + 6 x 79/8 + 16) / 24 = 2821/384;
    # lines: A A A with 1/3 x 1/4 x 1/2 = 1/24 pays 5 (total bet 1): 5/24 = 80/384
    rtp = hold_and_spin_rtp(hand, 1, spec)
    assert rtp == {"lines": Fr(5, 24), "hold_and_spin": Fr(2821, 384)}
    par = hold_and_spin_par(hand, 1)
    assert par.rtp == Fr(2901, 384)
    # coins at the end given a trigger (3/4): one start coin 11/24, two 6/24, three 1/24
    #   n = 1: 11/24 x 1/4 / (3/4) = 11/72
    #   n = 2: (11/24 x 1/4 + 6/24 x 1/2) / (3/4) = 23/72
    #   n = 3: (11/24 x 1/2 + 6/24 x 1/2 + 1/24) / (3/4) = 38/72
    coins = par.tables["Hold-and-spin: coins on screen given a trigger"]
    assert coins["coins"].tolist() == [1, 2, 3]
    assert coins["probability given a trigger: coins at the trigger"].tolist() == pytest.approx(
        [11 / 18, 6 / 18, 1 / 18], rel=1e-15
    )
    assert coins["probability given a trigger: coins at the end"].tolist() == pytest.approx(
        [11 / 72, 23 / 72, 38 / 72], rel=1e-15
    )
    assert par.features["hold_and_spin"]["trigger_probability_exact"] == "3/4"


def test_hand_worked_award_law(hand):
    # One start coin (prize 2):
    #   n = 1 (1/4): 2
    #   n = 2 (1/4): 2 + V -> 3 (3/4), 6 (1/4)
    #   n = 3 (1/2): 2 + V + V + 10; V + V = 2 (9/16), 5 (6/16), 8 (1/16)
    #                -> 14, 17, 20
    spec = load_hold_and_spin(hand)
    d = hold_and_spin_awards(hand, 1, spec)[(1, 0, 0)]
    law = dict(zip((d.wins // d.unit_den).tolist(), d.weights.tolist(), strict=True))
    want = {2: 1 / 4, 3: 3 / 16, 6: 1 / 16, 14: 9 / 32, 17: 6 / 32, 20: 1 / 32}
    assert law.keys() == want.keys()
    for k, p in want.items():
        assert law[k] == pytest.approx(p, rel=1e-15)
    # the round: A A A (no coin) pays 5 with 1/24; a round win of 16 needs three
    # coins (start prizes 2 + 2 + 2, full: +10): P = 1/24
    par = hold_and_spin_par(hand, 1)
    rd = dict(zip(par.distribution.x.tolist(), par.distribution.probabilities.tolist(), strict=True))
    assert rd[16.0] == pytest.approx(1 / 24, rel=1e-14)
    assert rd[5.0] == pytest.approx(1 / 24, rel=1e-14)
    assert rd[20.0] == pytest.approx(11 / 24 / 32, rel=1e-14)
    assert par.distribution.mean == pytest.approx(2901 / 384, rel=1e-14)


# ----------------------------------------------------------------------------
# brute force on 2 x 2 grids
# ----------------------------------------------------------------------------
BASE_2X2 = [["COIN", "COIN", "A", "B"], ["A", "COIN", "B"]]


def small_game_data(feature):
    hs = {
        "symbol": "COIN",
        "trigger": 2,
        "respins": 2,
        "values": [{"prize": 1, "weight": 2}, {"prize": 3, "weight": 1}, {"prize": "MINI", "weight": 1}],
        "full_screen": "GRAND",
        **feature,
    }
    return {
        "name": "small",
        "title": "2x2 hold-and-spin",
        "grid": {"reels": 2, "rows": 2},
        "bet": {"levels": [1, 2]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "COIN", "kind": "special"}],
        "paylines": [[0, 0], [1, 1]],
        "pays": [{"symbol": "A", "count": 2, "pay": 3}],
        # the respin reel set only where the feature reads it (validate refuses an unread set)
        "reels": {"base": BASE_2X2, **({"feature": FEATURE_2X2} if "reels" in feature else {})},
        "options": {"jackpots": {"MINI": 5, "GRAND": 20}, "hold_and_spin": hs},
    }


CELLS = {"rule": "reset", "respin": "cells", "probabilities": [["1/2", "1/3"], ["1/4", "2/5"]]}
REELS = {"rule": "countdown", "respin": "reels", "reels": "feature"}
STRIP_CELLS = {"rule": "reset", "respin": "cells", "reels": "feature"}


FEATURE_2X2 = [["COIN", "B", "B"], ["COIN", "COIN", "B", "A", "B"]]


def respin_outcomes(feature, held, rows=2, strips=FEATURE_2X2):
    """Every outcome of one respin: (probability, landed mask), played literally
    (bit ``reel * rows + row``; ``strips`` the feature reel set)."""
    cells = [(k, r) for r in range(len(strips)) for k in range(rows)]
    if feature["respin"] == "cells":
        if "probabilities" in feature:
            p = [[Fr(x) for x in row] for row in feature["probabilities"]]
        else:  # each cell spins its own copy of its reel's strip: COIN share
            p = [[Fr(s.count("COIN"), len(s)) for s in strips]] * rows
        empty = [(k, r) for k, r in cells if not held >> (r * rows + k) & 1]
        for lands in itertools.product((0, 1), repeat=len(empty)):
            prob, new = Fr(1), 0
            for (k, r), x in zip(empty, lands, strict=True):
                prob *= p[k][r] if x else 1 - p[k][r]
                new |= x << (r * rows + k)
            yield prob, new
    else:  # whole reels on the feature strips: rows k show strip[(s + k) % n]
        each = Fr(1, int(np.prod([len(s) for s in strips])))
        for stops in itertools.product(*(range(len(s)) for s in strips)):
            new = 0
            for k, r in cells:
                if strips[r][(stops[r] + k) % len(strips[r])] == "COIN":
                    new |= 1 << (r * rows + k)
            yield each, new & ~held


def final_masks(feature, mask, left, respins, rows=2, strips=FEATURE_2X2):
    """Law of the final mask from ``mask`` with ``left`` respins (recursion over
    outcomes, each (mask, respins left) worked once)."""

    @functools.cache
    def law(mask, left):
        if left == 0 or mask == (1 << rows * len(strips)) - 1:
            return {mask: Fr(1)}
        out = {}
        for p, new in respin_outcomes(feature, mask, rows, strips):
            if new:
                nxt = respins if feature["rule"] == "reset" else left - 1
            else:
                nxt = left - 1
            for m, q in law(mask | new, nxt).items():
                out[m] = out.get(m, 0) + p * q
        return out

    return law(mask, left)


@functools.cache
def award_law(k0, n, cells=4):
    """Award law given k0 start and n final coins, by listing every prize draw."""
    table = [(Fr(1), Fr(2, 4)), (Fr(3), Fr(1, 4)), (Fr(5), Fr(1, 4))]  # 1, 3, MINI = 5
    out = {}
    for draws in itertools.product(table, repeat=n):
        v = sum(d[0] for d in draws) + (20 if n == cells else 0)
        p = Fr(1)
        for d in draws:
            p *= d[1]
        out[v] = out.get(v, 0) + p
    return out


def brute_force(feature):
    """Per key: P(key) and the award law, from every base stop combination."""
    keys = {}
    for s0, s1 in itertools.product(range(4), range(3)):
        mask = 0
        for r, (strip, stop) in enumerate(zip(BASE_2X2, (s0, s1), strict=True)):
            for k in range(2):
                if strip[(stop + k) % len(strip)] == "COIN":
                    mask |= 1 << (r * 2 + k)
        key = (bin(mask & 3).count("1"), bin(mask >> 2).count("1"))
        if sum(key) < 2:
            continue
        p_key, law = keys.get(key, (0, {}))
        for m, q in final_masks(feature, mask, 2, 2).items():
            for v, pv in award_law(sum(key), bin(m).count("1")).items():
                law[v] = law.get(v, 0) + Fr(1, 12) * q * pv
        keys[key] = (p_key + Fr(1, 12), law)
    return {k: (p, {v: q / p for v, q in law.items()}) for k, (p, law) in keys.items()}


@pytest.mark.parametrize("feature", [CELLS, REELS, STRIP_CELLS], ids=["cells", "reels", "strip-cells"])
def test_brute_force_small_grid(tmp_path, feature):
    game = write_game(tmp_path, small_game_data(feature))
    spec = load_hold_and_spin(game)
    ref = brute_force(feature)
    probs = trigger_keys(game, spec)
    assert probs == {k: p for k, (p, _) in ref.items()}
    means = hold_and_spin_means(game, 2, spec)
    awards = hold_and_spin_awards(game, 2, spec)  # total bet 4 coins
    for key, (_, law) in ref.items():
        assert means[key] == sum(v * q for v, q in law.items())  # exact Fractions
        d = awards[key]
        got = dict(zip((d.x).tolist(), d.weights.tolist(), strict=True))
        assert got.keys() == {float(v) for v in law}
        for v, q in law.items():
            assert got[float(v)] == pytest.approx(float(q), rel=1e-13)
    # the round: lines (A A on a line pays 3 coins of a total bet of 4)
    # plus the feature, exact; the distribution agrees with the RTP
    par = hold_and_spin_par(game, 2)
    feature_rtp = sum(p * sum(v * q for v, q in law.items()) for p, law in ref.values())
    assert par.components["hold_and_spin"] == feature_rtp
    assert par.distribution.mean == pytest.approx(float(par.rtp), rel=1e-13)


# base reels where a triggering window may pay a line: given the per-reel
# counts (1, 1), COIN on row 0 of both reels pays A A on row 1, COIN on rows 0
# and 1 pays nothing
BASE_ROWS = [["COIN", "A", "COIN", "B"], ["A", "COIN", "B", "COIN", "A"]]


def round_law_brute_force(feature, base_reels, rows=2, strips=FEATURE_2X2):
    """Law of the round's win [x total bet = rows lines at level 1] played
    literally: every base stop combination, the lines paid on its window (A A
    on a row pays 3 coins), then, when 2+ COIN show, every respin outcome from
    *that window's* coins (:func:`final_masks`) and every prize draw
    (:func:`award_law`)."""
    law: dict = {}
    stops = list(itertools.product(*(range(len(s)) for s in base_reels)))
    cells = rows * len(base_reels)
    for pair in stops:
        window = [[s[(t + k) % len(s)] for k in range(rows)] for s, t in zip(base_reels, pair, strict=True)]
        base = Fr(3 * sum(window[0][k] == window[1][k] == "A" for k in range(rows)), rows)
        mask = sum(1 << (r * rows + k) for r in range(2) for k in range(rows) if window[r][k] == "COIN")
        k0 = bin(mask).count("1")
        awards = {Fr(0): Fr(1)}
        if k0 >= 2:
            awards = {}
            for m, q in final_masks(feature, mask, 2, 2, rows, strips).items():
                for v, pv in award_law(k0, bin(m).count("1"), cells).items():
                    awards[v] = awards.get(v, 0) + q * pv
        for v, q in awards.items():
            law[base + v] = law.get(base + v, 0) + Fr(1, len(stops)) * q
    return law


def assert_round_laws(game, want):
    """The round's win law of the generic round of rules: lines and of the
    standalone hold_and_spin_par equal ``want`` to 1e-12 per point."""
    from slotmath.rules.linegame import analyse

    for d in (hold_and_spin_par(game, 1).distribution, analyse(game, 1).distribution):
        got = dict(zip(d.x.tolist(), d.probabilities.tolist(), strict=True))
        assert got.keys() == {float(v) for v, q in want.items() if q}
        for v, q in want.items():
            assert abs(got[float(v)] - float(q)) < 1e-12, v


@pytest.mark.parametrize("base_reels", [BASE_ROWS, BASE_2X2], ids=["rows", "2x2"])
@pytest.mark.parametrize("feature", [CELLS, REELS, STRIP_CELLS], ids=["cells", "reels", "strip-cells"])
def test_brute_force_round_distribution(tmp_path, feature, base_reels):
    """The round's win law against the literal round, point by point.  Under
    CELLS (probabilities differ by row) and REELS the award depends on the rows
    of the coins and so does the line win (A and COIN share the rows): given
    only the per-reel counts they are correlated, so both round laws must key
    the base win by the row pattern.  Two are checked: the generic round of
    rules: lines and the standalone round of hold_and_spin_par."""
    data = small_game_data(feature)
    data["reels"]["base"] = base_reels
    assert_round_laws(write_game(tmp_path, data), round_law_brute_force(feature, base_reels))


def test_row_keys_award_equals_its_mixture(tmp_path):
    """Keyed by row pattern (CELLS: probabilities differ by row), the award of
    one key (played when another feature shares the key) is the mixture of
    the (start coins, final count) parts the round convolves; its mean is the
    exact mean of the key, and keys with the same counts differ."""
    from slotmath.features.holdspin import hold_and_spin_feature

    data = small_game_data(CELLS)
    data["reels"]["base"] = BASE_ROWS
    f = hold_and_spin_feature(write_game(tmp_path, data), 1)
    assert f.trigger.rows
    parts = f.parts()
    for key in [(1, 1), (2, 1), (1, 2), (3, 0), (3, 3)]:  # row patterns, bit k: row k
        a, w = f.award(key), f.mixture([key])[0]
        mix: dict = {}
        for p, part in zip(w, parts, strict=True):
            for x, q in zip(part.x.tolist(), part.probabilities.tolist(), strict=True):
                mix[x] = mix.get(x, 0) + p * q
        got = dict(zip(a.x.tolist(), a.probabilities.tolist(), strict=True))
        assert got == pytest.approx({x: q for x, q in mix.items() if q}, abs=1e-15)
        assert isinstance(f.mean(key), Fr) and a.mean == pytest.approx(float(f.mean(key)), rel=1e-13)
    assert f.mean((1, 1)) != f.mean((2, 2))  # one coin a reel, on row 0 or on row 1


# 3 rows x 2 reels: whole reels respin (respin: reels).  With 2 rows a reel
# holding one coin has one empty cell, which lands COIN with the strip's COIN
# share whatever its row, so whole reels need 3 rows to depend on the rows:
# with one coin held on a reel the two empty cells are adjacent (coin on row 0
# or 2) or not (row 1), and strip 1 lands COIN COIN on adjacent rows only.  On
# these base reels the line win given the per-reel counts depends on the rows
# of the coins too, so pairing by counts alone is wrong (a test of the pairing:
# it fails when the base win and the award are convolved per count key)
BASE_3X2 = [["COIN", "A", "COIN", "B", "A"], ["A", "COIN", "B", "A", "COIN", "B"]]
FEATURE_3X2 = [["COIN", "COIN", "B", "B", "A"], ["COIN", "B", "B", "COIN", "A", "B", "B"]]


@pytest.mark.parametrize("rule", ["reset", "countdown"])
def test_brute_force_round_distribution_whole_reels(tmp_path, rule):
    feature = {"rule": rule, "respin": "reels", "reels": "feature"}
    data = small_game_data(feature)
    data["grid"]["rows"] = 3
    data["paylines"] = [[0, 0], [1, 1], [2, 2]]
    data["reels"] = {"base": BASE_3X2, "feature": FEATURE_3X2}
    want = round_law_brute_force(feature, BASE_3X2, 3, FEATURE_3X2)
    assert_round_laws(write_game(tmp_path, data), want)


@pytest.mark.parametrize("rule", ["reset", "countdown"])
def test_count_chain_equals_mask_chain(rule):
    """3 x 3, one landing probability per reel: the chain on per-reel counts
    gives, from every start, the mask chain's exact value of a prize that
    depends on the final count (here n**2 + 7 [full])."""
    from slotmath.features.holdspin_chain import count_chain_values, count_grid
    from slotmath.features.landing import popcount
    from slotmath.features.lockit import Landing, LockIt

    H, R = 3, 3
    p = [Fr(1, 3), Fr(2, 7), Fr(1, 10)]
    chain = LockIt(Landing.from_cells([p] * H), 2, rule, exact=True)
    pc = popcount(H * R)
    f_mask = np.array([int(n) ** 2 for n in pc], dtype=object)
    f_mask[-1] += 7
    masks = chain.values(f_mask)[0]
    f = count_grid(H, R) ** 2
    f[(H,) * R] += 7
    counts = count_chain_values(p, H, 2, rule, f)
    for key in itertools.product(range(H + 1), repeat=R):
        mask = sum(((1 << c) - 1) << (r * H) for r, c in enumerate(key))  # lowest rows held
        assert counts[key] == masks[mask]


def test_float_chain_matches_exact(tmp_path):
    game = write_game(tmp_path, small_game_data(REELS))
    spec = load_hold_and_spin(game)
    exact = hold_and_spin_means(game, 1, spec, exact=True)
    approx = hold_and_spin_means(game, 1, spec, exact=False)
    for k, v in exact.items():
        assert isinstance(v, Fr) and isinstance(approx[k], float)
        assert approx[k] == pytest.approx(float(v), rel=1e-14)


# ----------------------------------------------------------------------------
# the example game and the sampler
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def example():
    game = load_game("hold_and_spin")
    return game, hold_and_spin_par(game, 1)


def test_example_game_figures(example):
    game, par = example
    assert set(par.components) == {"lines", "scatters", "hold_and_spin"}
    assert all(isinstance(v, Fr) for v in par.components.values())  # cells land alike per reel: exact
    assert 0.95 < float(par.rtp) < 0.96
    assert game.variant == f"{float(par.rtp):.2%}".replace("%", " %")
    assert par.distribution.mean == pytest.approx(float(par.rtp), rel=1e-12)
    f = par.features["hold_and_spin"]
    assert f["trigger_probability"] == pytest.approx(float(Fr(f["trigger_probability_exact"])), rel=1e-15)
    assert f["rtp"] == pytest.approx(float(par.components["hold_and_spin"]), rel=1e-12)
    # prizes are [x total bet]: the same figures at every bet level
    assert hold_and_spin_par(game, 10).rtp == pytest.approx(float(par.rtp), rel=1e-12)


def test_line_rules_play_the_feature(example):
    """`slotmath par` of the example (rules: lines, the generic round) gives the
    figures of the standalone round PAR: exact RTP by component, odds, the
    round's win law."""
    from slotmath.rules.par import par as rules_par

    game, own = example
    lines = rules_par(game, 1)
    assert lines.rtp == own.rtp and isinstance(lines.rtp, Fr)
    assert lines.components == own.components
    assert lines.features["event_rates"] == pytest.approx(own.features["event_rates"], rel=1e-12)
    for k, v in own.features["hold_and_spin"].items():
        if isinstance(v, float):
            assert lines.features["hold_and_spin"][k] == pytest.approx(v, rel=1e-12), k
    # the generic round convolves by FFT and drops points below 1e-15 [probability]
    # (far in the tail: 1e-15 x 1000**2 moves E[X**2] by 1e-9)
    a, b = lines.distribution, own.distribution
    assert a.mean == pytest.approx(b.mean, rel=1e-9) and a.sd == pytest.approx(b.sd, rel=1e-8)
    assert a.hit_frequency == pytest.approx(b.hit_frequency, rel=1e-12)
    assert a.max_win <= b.max_win  # the standalone law resolves the tail to 1e-58
    # the generic round keys the feature by the total count, the standalone round by per-reel counts
    pd.testing.assert_frame_equal(lines.tables[COINS_TABLE], own.tables[COINS_TABLE], rtol=1e-12)


def test_sampler_agrees_with_exact(example):
    """The simulation command's machinery: RTP, feature frequency, feature RTP
    (the award sum in prize steps of 0.5 x total bet) and every line and
    scatter pay against the exact figures."""
    from slotmath.analysis.simulation import simulate_game

    game, par = example
    sim = simulate_game(game, 2_000_000, seed=2026, workers=1, progress=False, exact="par")
    report = sim.convergence
    assert abs(report.figures.set_index("figure").loc["RTP", "z"]) < 4
    events = report.events.set_index("event")
    for name in ("hold_and_spin triggers", "hold_and_spin award [grid]", "hold_and_spin full screens"):
        assert events.loc[name, "exact"] > 0
        assert abs(events.loc[name, "z"]) < 4, name
    assert events.loc["hold_and_spin award [grid]", "exact"] * 0.5 == pytest.approx(
        float(par.components["hold_and_spin"]), rel=1e-12
    )
    line_events = events[events.index.str.startswith(("line", "scatter"))]
    assert len(line_events) > 20 and (line_events["z"].abs() < 4).all()
    parts = report.components.set_index("figure")
    assert len(parts) == 3 and (parts["z"].abs() < 4).all()  # lines, scatters, hold_and_spin
    assert parts.loc["RTP: hold_and_spin", "exact"] == pytest.approx(float(par.components["hold_and_spin"]))
    # the round's win law (win bands) against the simulated rounds
    bins = report.histogram.dropna(subset=["z"])
    assert len(bins) > 8 and (bins["z"].abs() < 4).all()


@pytest.mark.parametrize("feature", [CELLS, REELS], ids=["cells", "reels"])
def test_sampler_small_grid(tmp_path, feature):
    from slotmath.montecarlo.run import run_chunk
    from slotmath.rules.linegame import round_sampler

    game = write_game(tmp_path, small_game_data(feature))
    par = hold_and_spin_par(game, 1)
    sampler = round_sampler(game, 1)
    n = 400_000
    stats = run_chunk(sampler, 7, 0, n)
    rtp, _ = stats.rtp_interval()
    assert abs(rtp - float(par.rtp)) / (par.sd / n**0.5) < 4
    units, se = stats.event_rate(sampler.event_names.index("hold_and_spin award [grid]"))
    assert abs(units - float(par.components["hold_and_spin"])) / se < 4  # grid 1
    full, se = stats.event_rate(sampler.event_names.index("hold_and_spin full screens"))
    assert abs(full - par.features["hold_and_spin"]["full_screen_probability"]) / se < 4
    # jackpots: every coin draws MINI with 1/4 (weights 2, 1, 1), a full screen pays GRAND
    hs, rates = par.features["hold_and_spin"], par.features["event_rates"]
    coins = hs["coins_at_end_mean"] * hs["trigger_probability"]  # coins drawn per round
    assert rates["hold_and_spin jackpot MINI"] == pytest.approx(coins / 4, rel=1e-12)
    assert rates["hold_and_spin jackpot GRAND"] == pytest.approx(hs["full_screen_probability"], rel=1e-12)
    for name in ("hold_and_spin jackpot MINI", "hold_and_spin jackpot GRAND"):
        got, se = stats.event_rate(sampler.event_names.index(name))
        assert abs(got - rates[name]) / se < 4, name


# ----------------------------------------------------------------------------
# bad input: one line naming the file and the field
# ----------------------------------------------------------------------------
HS = "options.hold_and_spin"
BAD = [
    ({"respinz": 3}, "options.hold_and_spin.respinz", "unknown key"),
    ({"symbol": "NOPE"}, "options.hold_and_spin.symbol", "unknown symbol"),
    ({"symbol": "A"}, "options.hold_and_spin.symbol", "line pays"),
    ({"trigger": 5}, "options.hold_and_spin.trigger", "do not fit"),
    ({"trigger": 0}, "options.hold_and_spin.trigger", "positive"),
    ({"respins": 1.5}, "options.hold_and_spin.respins", "whole number"),
    ({"rule": "sticky"}, "options.hold_and_spin.rule", "reset"),
    ({"respin": "ways"}, "options.hold_and_spin.respin", "cells"),
    ({"reels": "nosuch"}, "options.hold_and_spin", "exactly one"),
    ({"probabilities": [["1/2", "3/2"], ["0", "0"]]}, f"{HS}.probabilities[0][1]", "at most 1"),
    ({"probabilities": [["1/2"], ["0", "0"]]}, "options.hold_and_spin.probabilities[0]", "list of 2"),
    ({"probabilities": [["x", "0"], ["0", "0"]]}, "options.hold_and_spin.probabilities[0][0]", "number"),
    ({"values": []}, "options.hold_and_spin.values", "non-empty"),
    ({"values": [{"prize": "MEGA", "weight": 1}]}, f"{HS}.values[0].prize", "unknown jackpot"),
    ({"values": [{"prize": 1, "weight": 0}]}, "options.hold_and_spin.values", "all weights are zero"),
    ({"values": [{"prize": -1, "weight": 1}]}, "options.hold_and_spin.values[0].prize", "at least 0"),
    ({"values": [{"prize": 1}]}, "options.hold_and_spin.values[0].weight", "required"),
    ({"full_screen": "MEGA"}, "options.hold_and_spin.full_screen", "unknown jackpot"),
]


def bad_game(tmp_path, change):
    """The small game file with ``change`` made to its hold_and_spin; its path."""
    data = small_game_data(CELLS)
    hs = data["options"]["hold_and_spin"]
    if "reels" not in change:
        for k in change:
            hs.pop(k, None)
    hs.update(change)  # with "reels": both reels and probabilities
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder / "game.yaml"


@pytest.mark.parametrize(("change", "field", "problem"), BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_input(tmp_path, change, field, problem):
    path = bad_game(tmp_path, change)
    with pytest.raises(GameFileError) as err:
        load_game(path)  # the line rules check the hold-and-spin they play
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: {field}: ")
    assert problem in msg


def test_bad_input_command_line(tmp_path):
    """`slotmath validate` and `slotmath par`: one line naming file and field, exit 2."""
    import subprocess
    import sys

    path = bad_game(tmp_path, {"rule": "sticky"})
    for command in ("validate", "par"):
        proc = subprocess.run(
            [sys.executable, "-m", "slotmath", command, str(path)], capture_output=True, text=True, cwd=ROOT
        )
        assert proc.returncode == 2, proc.stderr
        problem = "must be 'reset' or 'countdown', got 'sticky'"
        want = f"slotmath: error: {path}: options.hold_and_spin.rule: {problem}"
        assert proc.stderr.strip() == want
        assert "Traceback" not in proc.stderr


def test_trigger_impossible(tmp_path):
    data = small_game_data(CELLS)
    data["reels"]["base"] = [["COIN", "A", "B", "B"], ["A", "B", "COIN"]]  # at most one coin per window
    data["options"]["hold_and_spin"]["trigger"] = 3
    with pytest.raises(GameFileError, match=r"hold_and_spin\.trigger: no window .* shows 3 or more COIN"):
        write_game(tmp_path, data)


def test_refusals_of_what_is_not_computed(tmp_path):
    data = small_game_data(CELLS)
    data["options"]["jackpots"]["MAJOR"] = 100
    with pytest.raises(GameFileError, match=r"jackpots\.MAJOR: is declared but no hold-and-spin prize"):
        write_game(tmp_path, data, "unused")
    data = small_game_data(CELLS)
    del data["options"]["hold_and_spin"]
    # jackpots alone: nothing awards them (a wheel, a selection or a hold-and-spin would)
    with pytest.raises(GameFileError, match=r"options\.jackpots\.MINI: is not awarded by any wheel segment"):
        write_game(tmp_path, data, "none")
    data = small_game_data(CELLS)
    data["options"]["hold_and_spin"]["respin"] = "reels"  # per-cell probabilities need cells
    with pytest.raises(GameFileError, match=r"probabilities: per-cell probabilities need respin: cells"):
        write_game(tmp_path, data, "model")
    # the standalone round PAR refuses features it does not play
    data = small_game_data(CELLS)
    data["options"]["round_cap"] = 50
    game = write_game(tmp_path, data, "cap")
    with pytest.raises(GameFileError, match=r"options\.round_cap: unknown key"):
        hold_and_spin_par(game, 1)
    # the line rules' round sampler plays it with the cap (tests/test_round_sampler.py)
    from slotmath.rules.linegame import round_sampler

    assert round_sampler(game, 1).part_names[-2:] == ("hold_and_spin", "round_cap")


# ----------------------------------------------------------------------------
# docs/features.md: the worked example is this file's hand-worked game
# ----------------------------------------------------------------------------
def test_docs_worked_example(tmp_path):
    text = (ROOT / "docs" / "features.md").read_text()
    section = text[text.index("## `hold_and_spin`") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    options = yaml.safe_load(block)["options"]
    data = hand_game_data()
    assert options == data["options"]
    for figure in ("147/16", "79/8", "2821/384", "2901/384", "3/4"):
        assert figure in section
    game = write_game(tmp_path, data)
    par = hold_and_spin_par(game, 1)
    assert par.rtp == Fr(2901, 384)
    assert par.components["hold_and_spin"] == Fr(2821, 384)


@pytest.mark.parametrize("base_reels", [BASE_ROWS, BASE_2X2], ids=["rows", "2x2"])
@pytest.mark.parametrize("feature", [CELLS, REELS], ids=["cells", "reels"])
def test_max_win_equals_brute_force(tmp_path, feature, base_reels):
    """The true maximum win of the round (the largest win with non-zero
    probability) and its odds equal the top point of the literal round's law
    (every base window, respin outcome and prize draw), exactly."""
    from slotmath.rules.linegame import analyse

    data = small_game_data(feature)
    data["reels"]["base"] = base_reels
    law = round_law_brute_force(feature, base_reels)
    top = max(v for v, q in law.items() if q)
    got = analyse(write_game(tmp_path, data), 1).true_max_win
    assert got.value == top
    assert got.exact and got.probability == law[top]
