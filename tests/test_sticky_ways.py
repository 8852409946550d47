"""Sticky wilds in free games on ways games (``pays_by: ways``,
``options.free_games.sticky``): the exact RTP (a Fraction) and the round
distribution against an independent plain-Python brute force over every
stop sequence of the free spins, the sticky cells carried from spin to
spin; the per-reel reduction of the sticky cells; the compiled sampler's
z-scores; the one-line refusals of what is still not played."""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest
import yaml

from slotmath.io.gamefile import build_game
from slotmath.rules.linegame import analyse, component_names, components

from conftest import run_cli
from test_ways_round import ways_win

# 3 reels x 2 rows, 1 to 2^3 = 8 ways, 2 coins bet.  A pays 3 coins per way
# for 3 of a kind, B 1 / 2 for 2 / 3; W (wild, substitutes all) only on the
# free reels.  2 S anywhere pay 1/2 x total bet, 3 S pay 2 and award free
# games at x2 (2, or those of tiny(games)); 4 stops a reel: a free spin has
# 64 stop vectors.
TINY = {
    "name": "sticky_ways",
    "pays_by": "ways",
    "grid": {"reels": 3, "rows": 2},
    "bet": {"levels": [1], "lines": 2},
    "symbols": [
        {"name": "A"},
        {"name": "B"},
        {"name": "X", "kind": "blank"},
        {"name": "W", "kind": "wild", "substitutes": "all"},
        {"name": "S", "kind": "scatter"},
    ],
    "reels": {
        "base": [["A", "X", "S", "B"], ["A", "S", "X", "B"], ["B", "X", "S", "A"]],
        "free": [["A", "W", "S", "X"], ["B", "X", "S", "W"], ["W", "A", "S", "B"]],
    },
    "pays": [
        {"symbol": "A", "count": 3, "pay": 3},
        {"symbol": "B", "count": 2, "pay": 1},
        {"symbol": "B", "count": 3, "pay": 2},
    ],
    "scatters": [{"symbol": "S", "count": 2, "pay": "1/2"}, {"symbol": "S", "count": 3, "pay": 2}],
    "options": {
        "free_games": {
            "symbol": "S",
            "reels": "free",
            "multiplier": 2,
            "awards": {3: {"games": 2}},
            "sticky": "W",
        }
    },
}


#: 3 rows: free reels of 5 stops where the rows are not alike (the middle
#: row's neighbours are not the top's), W once a reel
TALL = [["A", "W", "S", "X", "B"], ["B", "X", "S", "W", "A"], ["W", "A", "S", "B", "X"]]


def tiny(games: int = 2, per_wild: int = 1, tall: bool = False, **free) -> dict:
    data = copy.deepcopy(TINY)
    data["options"]["free_games"]["awards"] = {3: {"games": games}}
    data["options"]["free_games"].update(free)
    if per_wild > 1:
        data["symbols"][3]["multiplier"] = {"per_wild": per_wild}
    if tall:
        data["grid"]["rows"] = 3
        data["reels"]["free"] = copy.deepcopy(TALL)
    return data


def nudged() -> dict:
    """:func:`tiny` with a second wild N on free reel 3 that expands to its
    whole reel (``nudge``; first, then the sticky cells), scatters unpaid in
    free games, retriggers up to 4 games."""
    data = tiny(2, max_games=4, nudge="N", scatter_pays=False)
    data["symbols"].append({"name": "N", "kind": "wild", "substitutes": "all"})
    data["reels"]["free"][2] = ["W", "A", "S", "N"]
    return data


def make_game(data: dict):
    return build_game(copy.deepcopy(data), Path("test.yaml"), "t")


# ---------------------------------------------------------------------------
# the independent brute force: windows, ways and scatters written from the rules
# ---------------------------------------------------------------------------
def windows(strips, rows):
    """Every stop vector's window (a tuple of columns), equally likely."""
    return [
        tuple(
            tuple(strip[(s + k) % len(strip)] for k in range(rows))
            for strip, s in zip(strips, stops, strict=True)
        )
        for stops in itertools.product(*(range(len(s)) for s in strips))
    ]


def window_win(data, window, scatters: bool = True) -> F:
    """Ways and scatter win of ``window`` [x total bet]: per paying symbol its
    longest run from reel 1, pay x the product of its matching cells per reel
    (a wild cell counting its ``per_wild``); scatters by count anywhere
    (unless ``scatters`` is false)."""
    coins = ways_win(data, window)
    s = sum(cell == "S" for column in window for cell in column)
    scatter = max((F(p["pay"]) for p in data["scatters"] if p["count"] <= s), default=F(0))
    return coins / data["bet"]["lines"] + (scatter if scatters else 0)


def brute_feature(data, start=frozenset()) -> dict:
    """Law {sum of free spin wins [x total bet]: probability} of one feature,
    by recursion over every stop vector of every free spin: a ``nudge`` wild
    in a reel's window fills that reel first; then the sticky cells ((reel,
    row), ``start`` at first) show W, every W landing joins them; 3 S
    (sticky W may cover an S) add the award's games again when the games
    retrigger, up to ``max_games`` played; scatters pay unless
    ``scatter_pays`` is false."""
    fg = data["options"]["free_games"]
    games = fg["awards"][3]["games"]
    cap = fg.get("max_games")
    again = fg.get("retrigger", True)
    rows = data["grid"]["rows"]
    nudge = fg.get("nudge")
    free = [
        tuple((nudge,) * rows if nudge in col else col for col in window)
        for window in windows(data["reels"]["free"], rows)
    ]
    memo: dict = {}

    def play(left, played, sticky):
        if left == 0 or (cap is not None and played == cap):
            return {F(0): F(1)}
        if (left, played, sticky) not in memo:
            out: dict = {}
            for raw in free:
                shown = tuple(
                    tuple("W" if (r, k) in sticky else x for k, x in enumerate(col))
                    for r, col in enumerate(raw)
                )
                y = window_win(data, shown, fg.get("scatter_pays", True))
                n = sum(x == "S" for col in shown for x in col)
                more = games if again and n >= 3 else 0
                held = sticky | {(r, k) for r, col in enumerate(raw) for k, x in enumerate(col) if x == "W"}
                for t, q in play(left - 1 + more, played + 1, frozenset(held)).items():
                    out[y + t] = out.get(y + t, 0) + q / len(free)
            memo[(left, played, sticky)] = out
        return memo[(left, played, sticky)]

    return play(games, 0, start)


def brute_round(data) -> dict:
    """Law {round win [x total bet]: probability}: every base stop vector, its
    trigger followed by the feature's law at x2."""
    feature = brute_feature(data)
    base = windows(data["reels"]["base"], data["grid"]["rows"])
    dist: dict = {}
    for window in base:
        b = window_win(data, window)
        if sum(x == "S" for col in window for x in col) < 3:
            dist[b] = dist.get(b, 0) + F(1, len(base))
            continue
        for t, q in feature.items():
            dist[b + 2 * t] = dist.get(b + 2 * t, 0) + q / len(base)
    return dist


CASES = [
    (tiny(3, retrigger=False), "exactly 3 free spins"),
    (tiny(2, max_games=5), "retriggers, at most 5 spins"),
    (tiny(2, retrigger=False, max_games=1), "the cap below the award"),
    (tiny(2, per_wild=2, max_games=4), "a x2 sticky wild (a cell of it counts 2 ways), retriggers"),
    (tiny(2, tall=True, max_games=3), "3 rows not alike, retriggers"),
    (nudged(), "an expanding wild N beside, scatters unpaid in free games"),
]


@pytest.mark.parametrize("data, what", CASES, ids=[c[1] for c in CASES])
def test_sticky_ways_round_equals_literal_play(data, what):
    dist = brute_round(data)
    result = analyse(make_game(data), 1)
    assert result.rtp == sum(w * q for w, q in dist.items())  # exact, as a Fraction
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(np.round(list(got), 9)) == set(np.round([float(w) for w in dist], 9))
    for w, q in dist.items():
        assert got[float(w)] == pytest.approx(float(q), abs=1e-14)


def test_the_sticky_rule_changes_the_figure():
    # without the rule (independent free spins) the free games pay less, so the
    # literal play above tells a method ignoring it apart
    data = tiny(3, retrigger=False)
    plain = copy.deepcopy(data)
    del plain["options"]["free_games"]["sticky"]
    assert components(make_game(plain), 1)["free_games"] < components(make_game(data), 1)["free_games"]


def test_reels_reduce_to_classes_that_play_alike():
    # per reel, patterns of one class leave the same law of the rest of the
    # feature: literal play of 2 more spins from each mask of canonical
    # patterns and from every mask it stands for, compared exactly
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    data = tiny(2, retrigger=False)
    game = make_game(data)
    sg = sticky_games(game, 1, load_features(game).free_games)
    assert sg.canon is not None
    # the free reels' W lands in either row of each reel: every 2-row pattern
    # is reachable (4 a reel) and, here, the rows are alike: a reel's class is
    # its number of sticky cells (3 a reel), 27 masks instead of 64
    assert [len(c) for c in sg.canon] == [4, 4, 4]
    assert [len(set(c.values())) for c in sg.canon] == [3, 3, 3]
    assert len(sg.moves) == 27
    for r, canon in enumerate(sg.canon):
        for p, rep in canon.items():
            if p == rep:
                continue
            mask = frozenset((r, k) for k in range(2) if p >> k & 1)
            same = frozenset((r, k) for k in range(2) if rep >> k & 1)
            assert brute_feature(data, mask) == brute_feature(data, same)
    # and the notes state the state and its size
    notes = " ".join(analyse(game, 1).notes)
    assert "by its number of sticky cells; 3 x 3 x 3 per reel" in notes and "27 sticky masks" in notes


def test_reels_reduce_where_rows_are_not_alike():
    # 3 rows, W once on each 5-stop free reel: the top and the bottom row
    # held leave the same law (the two cells beside each other below or
    # above), the middle row held another (its two cells apart), and any two
    # rows held leave one cell, whichever: 8 patterns to 5 classes a reel,
    # not by count; each pattern plays as its class's (literal play, exact)
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    data = tiny(2, tall=True, retrigger=False)
    game = make_game(data)
    sg = sticky_games(game, 1, load_features(game).free_games)
    top, middle, bottom = 1, 2, 4
    for canon in sg.canon:
        assert canon[top] == canon[bottom] != canon[middle]
        assert canon[top | middle] == canon[top | bottom] == canon[middle | bottom]
        assert len(set(canon.values())) == 5
    assert len(sg.moves) == 125
    for r, canon in enumerate(sg.canon):
        for p, rep in canon.items():
            if p != rep:
                mask = frozenset((r, k) for k in range(3) if p >> k & 1)
                same = frozenset((r, k) for k in range(3) if rep >> k & 1)
                assert brute_feature(data, mask) == brute_feature(data, same)
    # and a reduction by count would be wrong here: the top and the middle
    # row held leave different laws (with the same mean)
    assert brute_feature(data, frozenset({(0, 0)})) != brute_feature(data, frozenset({(0, 1)}))
    notes = " ".join(analyse(game, 1).notes)
    assert "by partition refinement; 5 x 5 x 5 per reel, from 24 reachable patterns" in notes


def test_fast_moves_equal_the_keyed_engine():
    # the mean's per-mask (new mask, games) counts and win sums (the ways table,
    # the reels multiplied) equal the keyed ways engine's joint law, mask by mask
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    for data in (tiny(2, max_games=5), tiny(2, per_wild=2, max_games=4, scatter_pays=False)):
        game = make_game(data)
        sg = sticky_games(game, 1, load_features(game).free_games)
        for m, steps in sg.steps.items():
            assert sg.moves[m] == {key: int(cs.sum()) for key, (_, cs) in steps.items()}
            assert sg.wins[m] == sum(
                int(y) * int(c) for ys, cs in steps.values() for y, c in zip(ys, cs, strict=True)
            )


@pytest.mark.parametrize(
    "data", [tiny(2, per_wild=2, max_games=6), nudged()], ids=["x2 wild", "nudge beside"]
)
def test_sampler_agrees(data):
    # the compiled round plays the sticky cells literally on the ways window
    # (a nudge wild expanded first): |z| < 4 on every component
    from slotmath.montecarlo.roundsim import round_sampler

    game = make_game(data)
    names = component_names(game)
    exact = components(game, 1)
    sampler = round_sampler(game, 1, names)
    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(11)))
    parts = sampler.kernel(rng, 400_000, *sampler.args)[2]
    for j, name in enumerate(names):
        mean, se = parts[:, j].mean(), parts[:, j].std() / np.sqrt(len(parts))
        assert abs(mean - float(exact[name])) < 4 * se, (name, mean, float(exact[name]), se)


@pytest.mark.parametrize(
    "edit, field, problem",
    [
        ({"pays_by": "anywhere"}, "options.free_games.sticky", "is not played on anywhere games"),
        (
            {"grid": {"reels": 3, "rows": 2, "heights": {"weights": [[1, 1], [2, 1]]}}},
            "options.free_games.sticky",
            "reel heights",
        ),
    ],
)
def test_what_is_not_played_is_refused_in_one_line(edit, field, problem, tmp_path):
    data = {**tiny(2, retrigger=False), **edit}
    if data["pays_by"] == "anywhere":
        data["pays"] = [{"symbol": "A", "count": 3, "pay": 3}]
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = run_cli("validate", tmp_path / "game.yaml")
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert field in out.stderr and problem in out.stderr, out.stderr


def test_a_law_past_the_bound_is_refused_before_the_keyed_passes(monkeypatch):
    # above the rough bound (every mask, game state and the longest spin win)
    # the round law is refused in one line naming it, before any keyed ways
    # pass (the odds' classes would need one per mask); the exact RTP stays
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import sticky

    def no_pass(*args):
        raise AssertionError("a keyed pass ran before the bound")

    game = make_game(tiny(2, max_games=5))
    monkeypatch.setattr(sticky, "MAX_ROUGH_CELLS", 100)
    monkeypatch.setattr(sticky, "keyed_steps", no_pass)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    msg = str(err.value)
    assert "more than 100 " in msg and "27 sticky masks x 4 game states" in msg and "\n" not in msg
    assert components(game, 1)["free_games"] > 0
