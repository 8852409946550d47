"""A wheel, a hold-and-spin or a selection inside the free games
(``in_free_games: true``) of a game with drawn wild multipliers.

Where the draws do not fit as stops the exact RTP (:func:`slotmath.rules.linegame.drawn_components`)
is the undrawn game's plus the draws' shift of the free spins (the feature's
award reads no wild's multiplier, and the games played do not depend on
the draws), against a plain-Python listing of every base window, every draw
of its wilds, every free game and every award of the feature; the round's
distribution is refused in one line naming ``options.<feature>.in_free_games``
and giving that RTP; the compiled sampler agrees with it (|z| < 4).  Where
the draws fit as stops the round's distribution is computed (the rewrite)
and equals the listing's law."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from infree_brute import add, games_law
from test_drawn_base import BET, CASES, TABLE, assert_round, drawn_game
from test_drawn_beside import SELECTION_TEXT, hold_award, hold_text, with_options
from test_drawn_free import brute_spin

from slotmath.errors import EngineTooLarge
from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import (
    DRAWN_LAW_SCOPE,
    analyse,
    drawn_components,
    drawn_law_refusal,
    drawn_too_large,
)

# the wheel of tests/test_drawn_beside.py (2+ B: 1 x total bet at weight 3,
# 6 at weight 1) spun on the free games' windows too
WHEEL_IN = (
    "  wheel: {symbol: B, trigger: 2, segments: [{prize: 1, weight: 3}, {prize: 6, weight: 1}], "
    "in_free_games: true}\n"
)
SELECTION_IN = SELECTION_TEXT.replace("weight: 1}]}", "weight: 1}], in_free_games: true}")
assert SELECTION_IN != SELECTION_TEXT


def started(law: dict, trigger: int = 2):
    """``award(cells)``: ``law`` {prize [x total bet]: P} when ``trigger`` or
    more cells show the feature's symbol, else nothing."""
    return lambda cells: law if len(cells) >= trigger else {F(0): F(1)}


def with_hold_in_free(game):
    """``game`` (tests/test_drawn_base.py) with a coin C in place of the
    blank X on its base and free reels and the hold-and-spin of
    tests/test_drawn_beside.py (each empty cell lands a coin at 1/2) played
    in the free games too."""
    import re
    from pathlib import Path

    path = Path(game.source)
    text = path.read_text(encoding="utf-8")
    blank = "  - {name: X, kind: blank}\n"
    assert text.count(blank) == 1
    text = text.replace(blank, blank + "  - {name: C}\n")
    for name in ("base", "free"):
        text = re.sub(rf"^  {name}: .*$", lambda m: m.group(0).replace("X", "C"), text, count=1, flags=re.M)
    hold = hold_text("cells").replace("full_screen: 10}", "full_screen: 10, in_free_games: true}")
    assert "in_free_games" in hold
    path.write_text(text.replace("\noptions:\n", "\noptions:\n" + hold), encoding="utf-8")
    return load_game(path)


FEATURES = {
    # feature text, its symbol, award(cells) [x total bet]
    "wheel": (WHEEL_IN, "B", started({F(1): F(3, 4), F(6): F(1, 4)})),
    "selection": (SELECTION_IN, "B", started({F(10): F(2, 3), F(3): F(1, 3)})),
    "hold_and_spin": (None, "C", hold_award("cells")),
}


def infree_game(write_game, name: str, case: str = "plain", combine: str = "add"):
    """tests/test_drawn_base.py's game ``case`` with the feature ``name``
    of :data:`FEATURES` in its free games too."""
    game = drawn_game(write_game, case, combine)
    text = FEATURES[name][0]
    return with_hold_in_free(game) if text is None else with_options(game, text)


def brute_round(game, name: str, case: str = "plain", combine: str = "add") -> tuple:
    """``(law, free)``: the law ``{round win [x total bet]: P}`` played
    literally, and the mean of its free games' part [x total bet].  Every
    base window and draw (:func:`test_drawn_free.brute_spin`) pays its win
    and the feature's award from its cells; its count of S starts its free
    games, each one every free window and draw paying its win, the retrigger
    prize of its S count and the feature's award from its cells, adding the
    count's games (at most ``max_games`` played,
    :func:`infree_brute.games_law`), the sum of the games at the free
    games' multiplier."""
    _, symbol, award = FEATURES[name]
    _, awards, again, mult, cap = CASES[case]
    strips = {n: [s.symbols for s in game.strips(n)] for n in ("base", "free")}
    per_game: dict = {}  # (free-game win with the award [coins], extra games): P
    for (win, (count, cells)), p in brute_spin(strips["free"], combine, TABLE, symbol).items():
        prize, games = again.get(count, (0, 0))
        for v, q in award(cells).items():
            at = (win + prize * BET + v * BET, games)
            per_game[at] = per_game.get(at, 0) + p * q
    law: dict = {}
    free = F(0)
    played: dict = {}
    for (win, (count, cells)), p in brute_spin(strips["base"], combine, TABLE, symbol).items():
        won = add({F(win): F(1)}, {v * BET: q for v, q in award(cells).items()})  # [coins]
        if count in awards:
            prize, games, _ = awards[count]
            if games not in played:
                played[games] = games_law(per_game, games, cap)
            games_won = {prize * BET + mult * y: q for y, q in played[games].items()}
            free += p * sum((y * q for y, q in games_won.items()), F(0)) / BET
            won = add(won, games_won)
        for y, q in won.items():
            law[y / BET] = law.get(y / BET, 0) + p * q
    return law, free


@pytest.mark.parametrize(
    ("name", "combine"),
    [("wheel", "add"), ("wheel", "multiply"), ("selection", "add"), ("hold_and_spin", "add")],
)
def test_the_exact_rtp_of_a_feature_in_drawn_free_games_is_the_brute_force(
    write_game, refused, name, combine
):
    # the draws do not fit as stops: the exact RTP (no rewrite, no law) and
    # the free games' component (the feature's award in them included) equal
    # the brute force's
    game = infree_game(write_game, name, combine=combine)
    assert drawn_too_large(game)
    law, free = brute_round(game, name, combine=combine)
    parts = drawn_components(game, 1)
    assert sum(parts.values(), F(0)) == sum((w * p for w, p in law.items()), F(0))
    assert parts["free_games"] == free


@pytest.mark.parametrize(
    ("name", "case", "combine"),
    [("wheel", "plain", "add"), ("wheel", "prizes", "multiply"), ("hold_and_spin", "plain", "add")],
)
def test_the_round_with_a_feature_in_drawn_free_games_is_the_brute_force(
    write_game, refused, name, case, combine
):
    # a wheel or a hold-and-spin in the free games: the free spin's law from
    # the draw profiles keyed by the retrigger and the feature's trigger, its
    # award law added per key; the round's RTP exact, its distribution, hit
    # frequency and SD the brute force's
    game = infree_game(write_game, name, case, combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    law, free = brute_round(game, name, case, combine)
    result = analyse(game, 1)
    assert_round(result, law)
    assert result.components["free_games"] == free
    figures = result.features["free_games"]
    assert figures[f"{name}_per_free_game"] > 0 and figures["drawn_multipliers_per_free_game"] > 0


def test_a_wheel_in_drawn_free_games_on_ways_is_the_brute_force(write_game, refused):
    # tests/test_drawn_beside.py's ways game (3 x 2, S anywhere starts 2
    # games at x2, retriggered to max_games 2) with its wheel on 2+ B in the
    # free games too: the ways law of the free spin keyed by (S count, B
    # count), the wheel convolved per key
    from test_drawn_beside import WAYS_BESIDE, ways_wheel_game, wheel_award
    from test_drawn_free_triggers import assert_round as assert_ways_round
    from test_drawn_free_triggers import brute_round as brute_free_round
    from test_drawn_free_triggers import ways_coins, ways_scatter

    game = ways_wheel_game(write_game, "anywhere", "add")
    text = open(game.source, encoding="utf-8").read()
    with open(game.source, "w", encoding="utf-8") as f:
        f.write(text.replace("weight: 1}]}", "weight: 1}], in_free_games: true}"))
    game = load_game(game.source)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    beside = ("B", wheel_award)
    law = brute_free_round(
        game, WAYS_BESIDE, "anywhere", "add", 10, ways_scatter, ways_coins("add"), beside, inside=True
    )
    result = analyse(game, 1)
    assert_ways_round(result, law)


def test_a_selection_in_drawn_free_games_is_refused_with_its_rtp(write_game, refused):
    # a selection is not computed beside drawn free games' law (its RTP is):
    # the round's distribution is refused in one line naming the field and
    # giving the exact RTP
    game = infree_game(write_game, "selection")
    rtp = sum(drawn_components(game, 1).values(), F(0))
    reason = drawn_law_refusal(game)
    assert reason is not None and "options.selection.in_free_games: " in reason
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    assert "\n" not in message and "options.selection.in_free_games" in message
    assert f"the round's exact RTP is {float(rtp):.6%}" in message
    computed, refused_ = DRAWN_LAW_SCOPE.split("still refused:", 1)
    assert reason.endswith(f"options.selection.in_free_games: {DRAWN_LAW_SCOPE}")
    assert "a wheel or a hold-and-spin beside them or inside them too" in computed
    assert "any other feature beside or inside the free games, its exact RTP given" in refused_


@pytest.mark.parametrize("name", ["wheel", "hold_and_spin"])
def test_a_feature_in_free_games_whose_draws_fit_as_stops_is_the_brute_force(write_game, name):
    # the same games, their draws written as stops (no `refused`): the
    # round's distribution is computed, the rewritten game's, and equals the
    # brute force's law (RTP exact, each win within 1e-12, hit frequency, SD)
    game = infree_game(write_game, name)
    assert not drawn_too_large(game)
    law, free = brute_round(game, name)
    result = analyse(game, 1)
    assert_round(result, law)
    assert result.components["free_games"] == free


@pytest.mark.parametrize(
    ("name", "old"), [("wheel", "wheel: {symbol: B"), ("hold_and_spin", "hold_and_spin: {symbol: C")]
)
def test_a_feature_in_free_games_on_the_drawn_wild_is_refused(write_game, refused, name, old):
    # the argument needs a trigger that is not the drawn wild: a wheel on W,
    # or a hold-and-spin whose coin W is a wild, is refused by `validate` in
    # one line naming the field
    from slotmath.io.gamefile import GameFileError

    path = infree_game(write_game, name).source
    text = open(path, encoding="utf-8").read()
    assert old in text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, old.split("{")[0] + "{symbol: W"))
    with pytest.raises(GameFileError) as err:
        load_game(path)
    assert "\n" not in str(err.value) and f"options.{name}.symbol" in str(err.value), str(err.value)


def test_the_sampler_plays_the_wheel_in_drawn_free_games(tmp_path):
    # the worked example (its draws do not fit as stops): the compiled
    # round sampler draws each W in the window and spins the wheel on the
    # base and free windows; its mean and each component against the exact
    # ones, |z| < 4 over 400,000 rounds
    from slotmath.analysis.simulation import simulate_game

    from conftest import docs_example

    game, _ = docs_example(tmp_path, HEADING)
    parts = drawn_components(game, 1)
    report = simulate_game(game, 400_000, seed=3, workers=1, progress=False).convergence
    figures = report.figures.set_index("figure")
    assert figures.loc["RTP", "exact"] == pytest.approx(float(sum(parts.values())), rel=1e-12)
    assert abs(figures.loc["RTP", "z"]) < 4
    rows = report.components.set_index("figure")
    for name, value in parts.items():
        assert rows.loc[f"RTP: {name}", "exact"] == pytest.approx(float(value), rel=1e-12)
        assert abs(rows.loc[f"RTP: {name}", "z"]) < 4, (name, rows.loc[f"RTP: {name}"])
    assert "wheel starts in free games" in set(report.events["event"])


def test_the_sampler_plays_the_hold_and_spin_in_drawn_free_games(write_game, refused):
    # the 3 x 2 game with the hold-and-spin in its free games (W drawn in
    # the window, the respins played after each free spin showing 2+ C):
    # mean, hit frequency and second moment against `par`, |z| < 4 over
    # 300,000 rounds
    import numpy as np
    from test_drawn_law import sampled_wins, z_of

    from slotmath.rules.linegame import round_sampler

    game = infree_game(write_game, "hold_and_spin", "prizes", "multiply")
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 300_000, 11)  # [x total bet]
    assert abs(z_of(x, float(result.rtp))) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4
    second = result.sd**2 + float(result.rtp) ** 2
    assert abs(z_of(np.square(x), second)) < 4, (np.square(x).mean(), second)


HEADING = "### Worked example: a wheel in drawn free games\n"


def test_the_worked_example_by_hand(tmp_path):
    # docs/features.md, "a wheel in drawn free games": reels 1 and 2 show A
    # or W (1/2 each), so a line A ? ? with reel 3 at A pays 1, m (W A, A W)
    # or m1 x m2 (W W), each 1/4: E = (1 + E[m])^2 / 4, E[m] = 2 q2 + 4 q4;
    # base reel 3 shows A at 1/2, B at 1/4, S at 1/4; free reel 3 A or B at 1/2
    from conftest import docs_example

    game, section = docs_example(tmp_path, HEADING)
    assert drawn_too_large(game)
    total = 2**32 + 1
    q2, q4 = F(3 * 2**30 + 1, total), F(2**30, total)
    em = 2 * q2 + 4 * q4
    line = (1 + em) ** 2 / 4  # given reel 3 shows A
    wheel = F(3 * 1 + 1 * 6, 4)  # 9/4 a spin
    parts = drawn_components(game, 1)
    assert parts["lines"] == F(1, 2) * line
    assert parts["wheel"] == F(1, 4) * wheel == F(9, 16)
    # S at 1/4 starts 2 games at x2, each paying its line and its wheel
    in_free = F(1, 4) * 2 * 2 * (F(1, 2) * wheel)
    assert in_free == F(9, 8)
    assert parts["free_games"] == F(1, 4) * 2 * 2 * (F(1, 2) * line) + in_free
    rtp = sum(parts.values(), F(0))
    assert float(rtp) == pytest.approx(4.75, abs=1e-9)
    assert rtp == F(1401952550194631409727, 295147905316791779344)
    # every round wins; the max win: 2 free games at W W A drawn x4, x4 (16), times 2
    result = analyse(game, 1)
    assert result.rtp == rtp and result.components == parts
    assert result.hit_frequency == pytest.approx(1.0, rel=1e-15)
    top = F(1, 4) * (q4**2 / 8) ** 2
    assert result.max_win.value == 64
    assert result.max_win.probability == pytest.approx(float(top), rel=1e-12)
    assert round(1 / float(top)) == 65536
    text = " ".join(section.split())
    for shown in (
        "`9/8`",
        "`wheel = 9/16`",
        "about `1.53125`",
        "about `2.65625`",
        "about `475 %`",
        "1 in 65,536",
    ):
        assert shown in text, shown
    assert "1401952550194631409727/295147905316791779344" in text
