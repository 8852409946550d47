"""Board multiplier symbols on tumbles (``options.tumble.multiplier_symbols``):
the exact (win, first-drop SCATTER count) law and round RTP against a
plain-Python brute force over every stop vector and every draw of the
values, the hand-worked example of docs/features.md, the refusals."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from math import prod

import pytest
import yaml
from test_tumble import (
    CLUSTER,
    TINY,
    WAYS,
    anywhere_drop,
    brute_spin,
    check_sampler,
    cluster_drop,
    kernel_spin,
    line_drop,
    renewal_rtp,
    total_bet_of,
    ways_drop,
)

from slotmath.engine.payrule import pay_rule
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import analyse

from conftest import TEST_DATA

BOMB = TEST_DATA / "tumble_bomb" / "game.yaml"
#: the progressions of tumble_bomb's reel sets
PROGRESSION = {"base": [1, 2, 3], "free": [2, 4]}


def _raw():
    return yaml.safe_load(BOMB.read_text())


def board_law(raw, reel_set, drop=anywhere_drop):
    """{(win [coins], first-drop SCATTER count): probability}: every stop
    vector played to its end in plain Python (each drop paid and cleared by
    ``drop``), then every draw of one value per BOMB on the final board (the
    declared weights, not reduced)."""
    table = [(v["value"], v["weight"]) for v in raw["options"]["tumble"]["multiplier_symbols"]["values"]]
    total = sum(w for _, w in table)
    strips = raw["reels"][reel_set]
    cycle = prod(len(s) for s in strips)
    bet = total_bet_of(raw)
    out: dict = {}
    for stops in product(*(range(len(s)) for s in strips)):
        trace: list = []
        coins, n = brute_spin(raw, reel_set, stops, PROGRESSION[reel_set], trace, drop)
        m = sum(col.count("BOMB") for col in trace[-1])  # trace[-1]: the final board
        scatter = 2 * bet if n >= 3 else 0
        draws = product(table, repeat=m) if coins and m else [((1, 1),)]
        for draw in draws:
            at = (F(coins * sum(v for v, _ in draw) + scatter), n)
            p = F(prod(w for _, w in draw), cycle * (total**m if coins and m else 1))
            out[at] = out.get(at, 0) + p
    return out


def _engine_law(game, reel_set):
    from slotmath.features.round import Trigger

    kw = pay_rule(game).key_distribution(game, 1, (Trigger("SCATTER"),), reel_set)
    out: dict = {}
    for w, key, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        at = (F(w, kw.unit_den), key[0])
        out[at] = out.get(at, 0) + F(c, kw.cycle)
    return out


def bomb_variant(tmp_path, source=TINY):
    """``source`` (tests/data/tumble_tiny: lines on the three rows; or
    tumble_ways: 27 ways, WILD substitutes all; or tumble_cluster: clusters,
    WILD joins A and B) on tumble_bomb's strips and with its BOMB declaration."""
    raw, bomb = yaml.safe_load(source.read_text()), _raw()
    raw["symbols"].append({"name": "BOMB"})
    raw["reels"] = bomb["reels"]
    raw["options"]["tumble"]["multiplier_symbols"] = bomb["options"]["tumble"]["multiplier_symbols"]
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize("reel_set", ["base", "free"])
@pytest.mark.parametrize(
    ("make", "drop"),
    [
        (lambda _: BOMB, anywhere_drop),
        (bomb_variant, line_drop),
        (lambda tmp_path: bomb_variant(tmp_path, WAYS), ways_drop),
        (lambda tmp_path: bomb_variant(tmp_path, CLUSTER), cluster_drop),
    ],
    ids=["anywhere", "lines", "ways", "cluster"],
)
def test_joint_law_matches_brute_force(tmp_path, make, drop, reel_set):
    """The engine's (win, SCATTER count) law equals the brute force's, entry
    by entry, on the pay-anywhere game, a line game, a ways game and a cluster game."""
    path = make(tmp_path)
    game = load_game(path)
    assert _engine_law(game, reel_set) == board_law(yaml.safe_load(path.read_text()), reel_set, drop)


def test_round_rtp_and_spin_law_match_brute_force():
    """The base spin's marginal law and the round's RTP and components, exact Fractions."""
    game = load_game(BOMB)
    raw = _raw()
    base, free = board_law(raw, "base"), board_law(raw, "free")
    dist = pay_rule(game).distribution(game, 1)
    got = {
        F(int(w), dist.unit_den): F(int(c), dist.total)
        for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)
    }
    want: dict = {}
    for (w, _), p in base.items():
        want[w] = want.get(w, 0) + p
    assert got == want
    result = analyse(game, 1)
    feature, rtp = renewal_rtp(base, free, total_bet_of(raw))
    assert result.components["free_games"] == feature
    assert result.rtp == rtp
    bet = total_bet_of(raw)
    scatters = sum((p for (_, n), p in base.items() if n >= 3), F(0)) * 2
    assert result.components["scatters"] == scatters
    assert result.components["anywhere"] == sum(w * p for (w, _), p in base.items()) / bet - scatters


def test_cluster_round_and_sampler_with_board_multipliers(tmp_path):
    """The cluster game with BOMBs: the round's RTP and components, exact
    Fractions against the brute force (base and free reel sets), and the
    sampler's |z| < 4 on each."""
    path = bomb_variant(tmp_path, CLUSTER)
    raw = yaml.safe_load(path.read_text())
    base, free = board_law(raw, "base", cluster_drop), board_law(raw, "free", cluster_drop)
    result = analyse(load_game(path), 1)
    feature, rtp = renewal_rtp(base, free, total_bet_of(raw))
    bet = total_bet_of(raw)
    scatters = sum((p for (_, n), p in base.items() if n >= 3), F(0)) * 2
    assert result.components["free_games"] == feature and result.rtp == rtp
    assert result.components["cluster"] == sum(w * p for (w, _), p in base.items()) / bet - scatters
    check_sampler(path, "cluster")


def test_hand_worked_example():
    """docs/features.md "Worked example: board multipliers": base stops
    (0, 5, 1) of tumble_bomb (total bet 2 coins).

    Drop 1: reel 1 A B C, reel 2 B C B, reel 3 C BOMB B.  B counts 4 (pays
    2), C 3 (pays 1), A 1: 3 coins x 1.  Every B and C go; BOMB stays.  Reel
    1 keeps A under stops 6 (C) and 5 (BOMB): BOMB C A; reel 2, emptied,
    refills from stops 4, 3, 2: WILD C SCATTER (top to bottom); reel 3 keeps
    BOMB under stops 0 (A) and 6 (B): B A BOMB.  Drop 2: A 2 + WILD = 3, B 1
    + WILD = 2, C 2: nothing pays.  Tumble win 3 coins, 2 BOMBs on the final
    board, each x2 (weight 2/3) or x5 (1/3): sums 4, 7, 10 with
    probabilities 4/9, 4/9, 1/9, wins 12, 21, 30 coins; the mean 3 x 2 x 3
    = 18 coins = 9 x total bet (E[value] = (2 x 2 + 5 x 1) / 3 = 3)."""
    raw = _raw()
    trace: list = []
    assert brute_spin(raw, "base", (0, 5, 1), [1, 2, 3], trace, anywhere_drop) == (3, 0)
    assert trace == [
        [["A", "B", "C"], ["B", "C", "B"], ["C", "BOMB", "B"]],
        [["BOMB", "C", "A"], ["WILD", "C", "SCATTER"], ["B", "A", "BOMB"]],
    ]
    text = (TEST_DATA.parent.parent / "docs" / "features.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example: board multipliers") :]
    for k, cols in enumerate(trace):
        assert f"| {k + 1} | " + " | ".join(" ".join(c) for c in cols) + " |" in section
    from slotmath.engine.tumble import board_sums
    from slotmath.engine.tumble_spec import tumble_spec

    board = tumble_spec(load_game(BOMB)).board
    assert board.weights == (2, 1) and board.mean() == 3  # declared 4 and 2: reduced by their gcd
    sums = board_sums(board, 2)[2]
    assert {3 * s: F(w, 9) for s, w in sums.items()} == {12: F(4, 9), 21: F(4, 9), 30: F(1, 9)}
    assert "12, 21, 30 coins" in section and "18 coins = 9 x total bet" in section
    assert kernel_spin(load_game(BOMB), (0, 5, 1)) == (3, 1)


def test_without_free_games_in_defaults_to_the_base_game(tmp_path):
    """No free games and no ``in``: the base game plays the multipliers (its law against the brute force)."""

    def change(raw):
        del raw["options"]["free_games"], raw["options"]["tumble"]["free_multipliers"], _decl(raw)["in"]
        del raw["reels"]["free"]

    path = _board_with(tmp_path, change)
    game = load_game(path)
    assert _engine_law(game, "base") == board_law(yaml.safe_load(path.read_text()), "base")


# ------------------------------------------------------------ refusals
def _board_with(tmp_path, change):
    raw = _raw()
    change(raw)
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _decl(raw):
    return raw["options"]["tumble"]["multiplier_symbols"]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda r: _decl(r).update(symbol="BOOM"), "multiplier_symbols.symbol", "unknown symbol"),
        (lambda r: _decl(r).update(symbol="C"), "multiplier_symbols.symbol", "has a pay"),
        (lambda r: _decl(r).update(symbol="WILD"), "multiplier_symbols.symbol", "regular symbol"),
        (lambda r: _decl(r).update(symbol="SCATTER"), "multiplier_symbols.symbol", "regular symbol"),
        (lambda r: _decl(r).update(values=[]), "multiplier_symbols.values", "non-empty list"),
        (lambda r: _decl(r)["values"][1].update(weight=0), "values[1].weight", "positive whole"),
        (lambda r: _decl(r)["values"][0].update(weight=1.5), "values[0].weight", "positive whole"),
        (lambda r: _decl(r)["values"][0].update(value=-2), "values[0].value", "positive whole"),
        (lambda r: _decl(r)["values"][1].update(value=2), "values[1].value", "listed twice"),
        (lambda r: _decl(r)["values"][0].pop("weight"), "values[0]", "{value, weight}"),
        (lambda r: _decl(r).update(colour=1), "multiplier_symbols.colour", "unknown key"),
        (lambda r: _decl(r).update({"in": ["bonus"]}), "multiplier_symbols.in", "base and free"),
        (lambda r: r["options"]["tumble"].update(multiplier_symbols=3), "multiplier_symbols", "mapping"),
        (lambda r: _decl(r)["values"][0].update(value=10**15), "multiplier_symbols.values", "board values"),
        (lambda r: _decl(r).update({"in": ["base"]}), "reels.free", "'BOMB'"),
    ],
)
def test_bad_declarations_are_refused(tmp_path, change, field, words):
    with pytest.raises(GameFileError) as err:
        load_game(_board_with(tmp_path, change))
    text = str(err.value)
    assert field in text and words in text and "\n" not in text, text


def test_free_only_multipliers_need_free_games_on_their_own_reels(tmp_path):
    def change(raw):
        _decl(raw)["in"] = ["free"]
        raw["options"]["free_games"]["reels"] = "base"
        del raw["options"]["tumble"]["free_multipliers"]

    with pytest.raises(GameFileError) as err:
        load_game(_board_with(tmp_path, change))
    assert "multiplier_symbols.in" in str(err.value) and "reel set of its own" in str(err.value)
