"""A wheel beside the free games of a game whose drawn wild multipliers do
not fit as stops: the base law without the rewrite keyed by the free
games' trigger and the wheel's (:func:`slotmath.features.drawnlaw.key_codes`
of both), convolved with the wheel's award per key, against a plain-Python
listing of every base window, every draw of its wilds, every free game
with its retriggers and every wheel prize (under a round cap too), and the
compiled sampler (|z| < 4)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from test_drawn_base import assert_round, brute_round, drawn_game
from test_drawn_cap import assert_capped, with_cap
from test_drawn_law import sampled_wins, z_of

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, drawn_law_refusal, drawn_too_large

# 2 or more B anywhere in the base window (B also pays 3 x B = 5 on a line)
# spin the wheel once: 1 x total bet (weight 3) or 6 x total bet (weight 1)
WHEEL_TEXT = "  wheel: {symbol: B, trigger: 2, segments: [{prize: 1, weight: 3}, {prize: 6, weight: 1}]}\n"
WHEEL = ("B", 2, {F(1): F(3, 4), F(6): F(1, 4)})


def wheel_award(cells: tuple) -> dict:
    """The law {prize [x total bet]: P} :data:`WHEEL` adds to a base window
    showing B on ``cells``."""
    return WHEEL[2] if len(cells) >= WHEEL[1] else {F(0): F(1)}


def with_options(game, lines: str):
    """``game`` with the option ``lines`` written under its options."""
    from pathlib import Path

    path = Path(game.source)
    text = path.read_text(encoding="utf-8")
    assert "\noptions:\n" in text
    path.write_text(text.replace("\noptions:\n", "\noptions:\n" + lines), encoding="utf-8")
    return load_game(path)


def with_wheel(game):
    """``game`` with the wheel :data:`WHEEL_TEXT` written under its options."""
    return with_options(game, WHEEL_TEXT)


@pytest.mark.parametrize(("case", "combine"), [("plain", "add"), ("plain", "multiply"), ("prizes", "add")])
def test_a_wheel_beside_drawn_free_games_is_the_brute_force(write_game, refused, case, combine):
    # tests/test_drawn_base.py's games (the base reels show W and B; free
    # games on 2 / 3 S retrigger to max_games 3) with the wheel on 2+ B: the
    # base law keyed by (S count, B count); RTP exact, the distribution, hit
    # frequency and SD the brute force's
    game = with_wheel(drawn_game(write_game, case, combine))
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    law = brute_round(game, case, combine, ("B", wheel_award))
    assert_round(result, law)
    assert set(result.components) >= {"free_games", "wheel"}
    assert any("base spin's law of (win, S count and B count)" in n for n in result.notes)


def test_a_wheel_beside_capped_drawn_free_games_is_the_brute_force(write_game, refused):
    # the same round capped at 30 x total bet
    game = with_cap(with_wheel(drawn_game(write_game, "plain", "add")), F(30))
    assert drawn_law_refusal(game) is None
    law = brute_round(game, "plain", "add", ("B", wheel_award))
    assert_capped(analyse(game, 1), law, F(30), 1e-9)


@pytest.mark.parametrize("pays_by", ["lines", "ways", "ways, hold-and-spin"])
def test_the_sampler_agrees_with_the_wheel_beside_drawn_free_games(write_game, refused, pays_by):
    # the compiled round sampler (each W drawn in the window, the wheel spun
    # on 2+ B), on lines and on ways (S on reels 1 and 3), and on ways with
    # the hold-and-spin below (its landing by row) in place of the wheel:
    # mean, hit frequency and second moment against `par`, |z| < 4 over
    # 300,000 rounds
    from test_drawn_free_triggers import ways_game

    from slotmath.rules.linegame import round_sampler

    if pays_by == "lines":
        game = with_wheel(drawn_game(write_game, "prizes", "multiply"))
    elif pays_by == "ways":
        game = ways_wheel_game(write_game, "reels", "multiply")
    else:
        game = with_hold(ways_game(write_game, "anywhere", "add", WAYS_BESIDE), "rows")
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 300_000, 17)  # [x total bet]
    assert abs(z_of(x, float(result.rtp))) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4
    second = result.sd**2 + float(result.rtp) ** 2
    assert abs(z_of(np.square(x), second)) < 4, (np.square(x).mean(), second)


@pytest.mark.parametrize("heading", ["a wheel beside drawn wilds", "a wheel beside drawn wilds on ways"])
def test_the_worked_example_by_hand(tmp_path, heading):
    # docs/features.md, "a wheel beside drawn wilds" (and "... on ways", one
    # row: one way per window, paying as the line): reel 3 shows A (the
    # line pays 1, m or m1 x m2 by reels 1 and 2: A A, W A / A W, W W) or B
    # (the wheel pays 1 or 6 x total bet at 3/4, 1/4), each at 1/2
    from conftest import docs_example

    game, section = docs_example(tmp_path, f"### Worked example: {heading}\n")
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    total = 2**32 + 1
    q = {2: F(3 * 2**30 + 1, total), 4: F(2**30, total)}
    law: dict = {F(1): F(1, 8)}
    for m, p in q.items():
        law[F(m)] = law.get(F(m), 0) + 2 * p / 8
        for n, r in q.items():
            law[F(m * n)] = law.get(F(m * n), 0) + p * r / 8
    for prize, p in ((F(1), F(3, 8)), (F(6), F(1, 8))):
        law[prize] = law.get(prize, 0) + p
    assert sum(law.values()) == 1
    result = analyse(game, 1)
    assert result.components["wheel"] == F(9, 8)
    assert result.rtp == sum((w * p for w, p in law.items()), F(0))
    assert result.hit_frequency == pytest.approx(1.0, rel=1e-15)
    sd = float(sum((w - result.rtp) ** 2 * p for w, p in law.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-12)
    assert result.max_win.value == 16
    assert result.max_win.probability == pytest.approx(float(law[F(16)]), rel=1e-12)
    text = " ".join(section.split())
    assert f"`{float(result.rtp):.3%}`".replace("%", " %") in text
    assert f"1 in {round(1 / float(law[F(16)]))}" in text


# free games on ways for the wheel beside them, as tests/test_drawn_free_triggers.py's
# WAYS_CASES (and read by its brute_round) but at most 2 games played (its
# brute force over 4 games takes minutes): 2+ S anywhere start 2 games at
# x2, retriggered; or S on reels 1 and 3 start 1 game, a retrigger there
# adding 1 game and 1/2 x total bet
WAYS_BESIDE = {
    "anywhere": (
        "{symbol: S, reels: free, multiplier: 2, max_games: 2, awards: {2: {games: 2}}}",
        ("anywhere",),
        {2: (0, 2, "free")},
        {2: (0, 2)},
        2,
        2,
        True,
    ),
    "reels": (
        "{symbol: S, reels: free, multiplier: 2, max_games: 2, awards: {2: {games: 1}}, "
        "trigger: {reels: [1, 3]}, retrigger_awards: {2: {games: 1, prize: 1/2}}}",
        ("reels", (0, 2)),
        {2: (0, 1, "free")},
        {2: (F(1, 2), 1)},
        2,
        2,
        True,
    ),
}


def ways_wheel_game(write_game, case: str, combine: str):
    """tests/test_drawn_free_triggers.py's ways game with the free games
    ``WAYS_BESIDE[case]`` and the wheel :data:`WHEEL_TEXT`."""
    from test_drawn_free_triggers import ways_game

    return with_wheel(ways_game(write_game, case, combine, WAYS_BESIDE))


def brute_ways_round(game, case: str, combine: str) -> dict:
    """The ways round of :func:`ways_wheel_game` played literally
    (:func:`test_drawn_free_triggers.brute_round`, the wheel beside)."""
    from test_drawn_free_triggers import brute_round as brute_free_round
    from test_drawn_free_triggers import ways_coins, ways_scatter

    return brute_free_round(
        game, WAYS_BESIDE, case, combine, 10, ways_scatter, ways_coins(combine), ("B", wheel_award)
    )


@pytest.mark.parametrize(
    ("case", "combine"), [("anywhere", "add"), ("anywhere", "multiply"), ("reels", "add")]
)
def test_a_wheel_beside_drawn_free_games_on_ways_is_the_brute_force(write_game, refused, case, combine):
    # tests/test_drawn_free_triggers.py's ways game (3 reels x 2 rows, W
    # drawing x2 / x3 at 3 / 1 on the base and free reels, 2+ S pay 1 x total
    # bet of 10 coins), free games WAYS_BESIDE, the wheel on 2+ B (B on every
    # base reel; 3 x B pays 6 per way): the ways law keyed by (S count or S
    # per reel, B count), the wheel convolved per key; RTP exact, the
    # distribution, hit frequency and SD the brute force's
    from test_drawn_free_triggers import assert_round as assert_ways_round

    game = ways_wheel_game(write_game, case, combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    assert_ways_round(result, brute_ways_round(game, case, combine))
    assert set(result.components) >= {"free_games", "wheel"}
    assert any("and B count) over the draw profiles" in n for n in result.notes)


# A hold-and-spin on 2+ coins C beside the free games (3 x 2 grid, 6
# cells; C in place of the blank X on the base reels): one respin, reset by
# a landing; each empty cell lands a coin with the probability of its row
# (HOLD_PROBS: "cells", every cell 1/2: keyed by the coin count; "rows", 1/2
# on row 1 and 1/4 on row 2: keyed by the coins' rows per reel); a start
# coin pays 2, a landed one 1 or 4 (weights 3 / 1), a full screen 10 more
# [x total bet]
HOLD_PROBS = {"cells": (F(1, 2), F(1, 2)), "rows": (F(1, 2), F(1, 4))}


def hold_text(rows: str) -> str:
    probs = ", ".join("[" + ", ".join([f'"{p}"'] * 3) + "]" for p in HOLD_PROBS[rows])
    return (
        f"  hold_and_spin: {{symbol: C, trigger: 2, respins: 1, rule: reset, respin: cells, "
        f"probabilities: [{probs}], values: [{{prize: 1, weight: 3}}, {{prize: 4, weight: 1}}], "
        "start_values: [{prize: 2, weight: 1}], full_screen: 10}\n"
    )


def with_hold(game, rows: str):
    """``game`` with the coin C in place of X on its base reels and the
    hold-and-spin :func:`hold_text` written under its options."""
    import re
    from pathlib import Path

    path = Path(game.source)
    text = path.read_text(encoding="utf-8")
    blank = "  - {name: X, kind: blank}\n"
    assert text.count(blank) == 1
    text = text.replace(blank, blank + "  - {name: C}\n")
    text = re.sub(r"^  base: .*$", lambda m: m.group(0).replace("X", "C"), text, count=1, flags=re.M)
    path.write_text(text.replace("\noptions:\n", "\noptions:\n" + hold_text(rows)), encoding="utf-8")
    return load_game(path)


def hold_award(rows: str):
    """``award(cells)``: the hold-and-spin's law {award [x total bet]: P}
    played literally from the start coins on ``cells`` ((reel, row) pairs):
    every subset of the empty cells that lands in a respin (each cell by its
    row's probability), a landing resetting the one respin, until a respin
    lands none or the screen is full; the start coins pay 2 each, every
    landed coin 1 or 4 (3/4, 1/4), a full screen 10."""
    from functools import cache
    from itertools import combinations

    from infree_brute import add

    grid = [(r, k) for r in range(3) for k in range(2)]
    prob = HOLD_PROBS[rows]

    @cache
    def final(held: frozenset) -> tuple:
        empty = [c for c in grid if c not in held]
        if not empty:
            return ((len(held), F(1)),)
        out: dict = {}
        for n in range(len(empty) + 1):
            for landed in combinations(empty, n):
                q = F(1)
                for c in empty:
                    q *= prob[c[1]] if c in landed else 1 - prob[c[1]]
                ends = ((len(held), F(1)),) if n == 0 else final(held | frozenset(landed))
                for count, r in ends:
                    out[count] = out.get(count, 0) + q * r
        return tuple(out.items())

    @cache
    def award(cells: tuple) -> dict:
        if len(cells) < 2:
            return {F(0): F(1)}
        law: dict = {}
        for count, q in final(frozenset(cells)):
            paid = {F(2 * len(cells) + (10 if count == len(grid) else 0)): F(1)}
            for _ in range(count - len(cells)):
                paid = add(paid, {F(1): F(3, 4), F(4): F(1, 4)})
            for v, r in paid.items():
                law[v] = law.get(v, 0) + q * r
        return law

    return award


@pytest.mark.parametrize(
    ("pays_by", "case", "combine", "rows"),
    [
        ("lines", "plain", "add", "cells"),
        ("lines", "prizes", "multiply", "rows"),
        ("ways", "anywhere", "multiply", "cells"),
        ("ways", "reels", "add", "rows"),
    ],
)
def test_a_hold_and_spin_beside_drawn_free_games_is_the_brute_force(
    write_game, refused, pays_by, case, combine, rows
):
    # the lines and ways games above with the hold-and-spin on 2+ C in place
    # of the wheel: its award reads only its trigger key (the coin count, or
    # the coins' rows per reel when the landing differs down a reel), so the
    # base law is keyed by the free games' and its key and convolved with
    # its award per key; the round is the brute force's (each start screen's
    # respins played cell by cell)
    if pays_by == "lines":
        game = with_hold(drawn_game(write_game, case, combine), rows)
    else:
        from test_drawn_free_triggers import ways_game

        game = with_hold(ways_game(write_game, case, combine, WAYS_BESIDE), rows)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    beside = ("C", hold_award(rows))
    if pays_by == "lines":
        assert_round(result, brute_round(game, case, combine, beside))
    else:
        from test_drawn_free_triggers import assert_round as assert_ways_round
        from test_drawn_free_triggers import brute_round as brute_free_round
        from test_drawn_free_triggers import ways_coins, ways_scatter

        law = brute_free_round(
            game, WAYS_BESIDE, case, combine, 10, ways_scatter, ways_coins(combine), beside
        )
        assert_ways_round(result, law)
    assert set(result.components) >= {"free_games", "hold_and_spin"}
    words = "C rows per reel" if rows == "rows" else "C count"
    assert any(f"and {words}) over the draw profiles" in n for n in result.notes), result.notes


# A selection (no choice of free games) and a pick beside drawn free games:
# their awards read no wild's multiplier, so their RTP components are the
# undrawn game's (linegame.DRAWN_RTP_BESIDE); the round's distribution is
# still refused beside them (only the RTP is computed).
SELECTION_TEXT = (
    "  selection: {symbol: B, trigger: 2, policy: player, choices: "
    "[{name: cash, prize: 10, weight: 2}, {name: less, prize: 3, weight: 1}]}\n"
)
PICK_TEXT = (
    "  pick: {symbol: B, trigger: 2, tiles: [{prize: 1, count: 2}, {prize: 5}, {collect: true, count: 2}]}\n"
)


def pick_law() -> dict:
    """Pick until collect over the tiles 1, 1, 5, collect, collect, every
    order equally likely (plain Python): {sum of the prizes before the first
    collect [x total bet]: P}; its mean is (1 + 1 + 5) / 3 = 7/3 (a prize
    tile is taken when it comes before both collects: 1 in 3)."""
    from itertools import permutations

    tiles = (1, 1, 5, None, None)
    orders = list(permutations(range(5)))
    law: dict = {}
    for order in orders:
        won = F(0)
        for i in order:
            if tiles[i] is None:
                break
            won += tiles[i]
        law[won] = law.get(won, 0) + F(1, len(orders))
    assert sum(w * p for w, p in law.items()) == F(7, 3)
    return law


@pytest.mark.parametrize(
    ("text", "award"),
    [(SELECTION_TEXT, {F(10): F(2, 3), F(3): F(1, 3)}), (PICK_TEXT, None)],
    ids=["selection", "pick"],
)
def test_a_prize_feature_beside_drawn_free_games_adds_its_undrawn_rtp(write_game, refused, text, award):
    # the exact RTP (components without the rewrite) against the brute-force
    # round's mean: every base window and draw, the free games, and the
    # feature's award law when 2 or more B show
    from slotmath.errors import EngineTooLarge
    from slotmath.rules.linegame import drawn_components

    law = pick_law() if award is None else award
    game = with_options(drawn_game(write_game, "plain", "add"), text)
    brute = brute_round(game, "plain", "add", ("B", lambda cells: law if len(cells) >= 2 else {F(0): F(1)}))
    mean = sum(w * p for w, p in brute.items())
    parts = drawn_components(game, 1)
    assert sum(parts.values()) == mean
    assert drawn_law_refusal(game) is not None  # the distribution stays refused, in one line
    with pytest.raises(EngineTooLarge, match="the round's exact RTP is"):
        analyse(game, 1)


def test_a_selection_with_a_choice_of_free_games_beside_drawn_wilds_is_refused(write_game, refused):
    # its free games play on reels that draw: refused in one line naming the file and the field
    from slotmath.errors import EngineTooLarge
    from slotmath.rules.linegame import drawn_components

    chosen = SELECTION_TEXT.replace("name: less, prize: 3", "name: spins, free_games: 2")
    game = with_options(drawn_game(write_game, "plain", "add"), chosen)
    with pytest.raises(EngineTooLarge, match=r"game\.yaml: options\.selection: is not computed with drawn"):
        drawn_components(game, 1)
