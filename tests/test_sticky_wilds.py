"""Sticky wilds in free games (``options.free_games.sticky``): the exact RTP
and round distribution against free spins played literally, stop by stop,
with the sticky cells carried from spin to spin; the compiled sampler's
z-scores; refusal of what the sticky wild cannot be."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest

from slotmath.engine.evaluate import total_wins, window_at
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import analyse

# 3 reels x 2 rows, two lines (top, bottom), total bet 2 coins.  Base reels
# [A, X, S, X] each; free reels carry W (wild, substitutes all) on every reel.
# 3 S anywhere pay 2 x total bet and award GAMES free games at x2.
TINY = """
grid: {reels: 3, rows: 2}
bet: {levels: [1]}
symbols:
  [{name: A}, {name: X, kind: blank}, {name: W, kind: wild, substitutes: all}, {name: S, kind: scatter}]
reels:
  base: [[A, X, S, X], [A, X, S, X], [A, X, S, X]]
  free: [[A, W, S, X], [A, X, S, W], [W, A, S, X]]
paylines: [[0, 0, 0], [1, 1, 1]]
pays: [{symbol: A, count: 3, pay: 8}, {symbol: W, count: 3, pay: 20}]
scatters: [{symbol: S, count: 2, pay: "1/2"}, {symbol: S, count: 3, pay: 2}]
options:
  free_games: {symbol: S, reels: free, multiplier: 2, awards: {3: {games: GAMES}}, sticky: W EXTRA}
"""


def tiny(write_game, games=2, extra=""):
    return load_game(write_game(TINY.replace("GAMES", str(games)).replace("EXTRA", extra)))


def spin_outcomes(game, reel_set):
    """Every stop combination of ``reel_set``: its (R, H) window (equal weights)."""
    stops = product(*[range(len(s)) for s in game.strips(reel_set)])
    return [window_at(game, at, reel_set) for at in stops]


def win_of(game, window):
    return F(total_wins(game, 1, window[None])[0]).limit_denominator(1000)


def brute_feature(game, games, cap, retrigger, start=frozenset()):
    """Law {sum of free spin wins [x total bet]: probability} of a feature of
    ``games`` games, by recursion over every stop combination of every free
    spin; the sticky cells (a set of (reel, row), ``start`` at first) show W,
    every W landing joins them."""
    windows = spin_outcomes(game, "free")
    w, s = game.symbol_index["W"], game.symbol_index["S"]
    memo: dict = {}

    def play(left, played, sticky):
        if left == 0 or (cap is not None and played == cap):
            return {F(0): F(1)}
        at = (left, played, sticky)
        if at in memo:
            return memo[at]
        out: dict = {}
        for raw in windows:
            shown = raw.copy()
            for r, k in sticky:
                shown[r, k] = w
            y = win_of(game, shown)
            n = int((shown == s).sum())
            more = games if retrigger and n >= 3 else 0
            held = sticky | frozenset((int(r), int(k)) for r, k in np.argwhere(raw == w))
            for t, q in play(left - 1 + more, played + 1, held).items():
                out[y + t] = out.get(y + t, 0) + q / len(windows)
        memo[at] = out
        return out

    return play(games, 0, start)


def brute_round(game, games, cap, retrigger):
    feature = brute_feature(game, games, cap, retrigger)
    base = spin_outcomes(game, "base")
    s = game.symbol_index["S"]
    dist: dict = {}
    for window in base:
        b = win_of(game, window)
        if (window == s).sum() < 3:
            dist[b] = dist.get(b, 0) + F(1, len(base))
            continue
        for t, q in feature.items():
            dist[b + 2 * t] = dist.get(b + 2 * t, 0) + q / len(base)
    return dist


@pytest.mark.parametrize(
    "games, extra, cap, retrigger",
    [
        (3, ", retrigger: false", None, False),  # exactly 3 free spins
        (2, ", max_games: 5", 5, True),  # retriggers, at most 5 spins
        (2, ", retrigger: false, max_games: 1", 1, False),  # the cap below the award
    ],
)
def test_sticky_round_equals_literal_play(write_game, games, extra, cap, retrigger):
    game = tiny(write_game, games, extra)
    dist = brute_round(game, games, cap, retrigger)
    result = analyse(game, 1)
    assert result.rtp == sum(w * q for w, q in dist.items())  # exact, as a Fraction
    got = dict(zip(result.distribution.x.tolist(), result.distribution.probabilities.tolist(), strict=True))
    assert set(np.round(list(got), 9)) == set(np.round([float(w) for w in dist], 9))
    for w, q in dist.items():
        assert got[float(w)] == pytest.approx(float(q), abs=1e-14)


def test_sticky_wild_changes_the_figure(write_game):
    # the rule matters on this game: without it (independent free spins) the
    # RTP is lower, so the literal play above tells a method ignoring it apart
    sticky = analyse(tiny(write_game, 3, ", retrigger: false"), 1)
    text = TINY.replace("GAMES", "3").replace(", sticky: W EXTRA", ", retrigger: false")
    plain = load_game(write_game(text))
    assert analyse(plain, 1).rtp < sticky.rtp


@pytest.mark.parametrize(
    "edit, extra, problem",
    [
        ("sticky: W", ", nudge: W, max_games: 4", "also the expanding wild"),
        ("sticky: A", ", max_games: 4", "must be a wild symbol"),
        ("sticky: Q", ", max_games: 4", "unknown symbol"),
        ("sticky: W", "", "need max_games"),  # retriggers on, no cap
    ],
)
def test_sticky_declarations_refused(write_game, edit, extra, problem):
    text = TINY.replace("GAMES", "2").replace("EXTRA", extra).replace("sticky: W", edit)
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text))
    msg = str(err.value)
    assert "options.free_games.sticky" in msg and problem in msg and "\n" not in msg


def test_sticky_wild_missing_from_the_free_reels(write_game):
    text = TINY.replace("GAMES", "2").replace("EXTRA", ", retrigger: false")
    text = text.replace(
        "[[A, W, S, X], [A, X, S, W], [W, A, S, X]]", "[[A, X, S, X], [A, X, S, X], [A, A, S, X]]"
    )
    with pytest.raises(GameFileError) as err:
        load_game(write_game(text))
    assert "options.free_games.sticky" in str(err.value) and "no reel of the free reel set" in str(err.value)


def test_sampler_agrees(write_game):
    # own free reels, retriggers by count with a prize, scatter pays off in
    # free games, capped games, a round cap: |z| < 4 on every component
    from test_free_round import z_scores

    again = "retrigger_awards: {2: {games: 1}, 3: {games: 2, prize: 1}}"
    text = TINY.replace("GAMES", "3").replace("EXTRA", f", scatter_pays: false, max_games: 8, {again}")
    game = load_game(write_game(text + "  round_cap: 60\n"))
    z = z_scores(game, 1, 1_000_000, 3)
    assert all(abs(v) < 4 for v in z.values()), z


def test_fast_moves_equal_the_keyed_engine(write_game):
    # the mean's per-mask (new mask, games) counts and win sums (row marginals,
    # reels multiplied) equal the keyed line engine's joint law, mask by mask
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    again = "retrigger_awards: {2: {games: 1, prize: 1}}"
    for extra in (", max_games: 5", f", scatter_pays: false, max_games: 5, {again}"):
        game = tiny(write_game, 2, extra)
        sg = sticky_games(game, 1, load_features(game).free_games)
        assert len(sg.moves) == 64  # W can land in both rows of every reel: 2^6 masks
        for m, steps in sg.steps.items():
            assert sg.moves[m] == {key: int(cs.sum()) for key, (_, cs) in steps.items()}
            assert sg.wins[m] == sum(
                int(y) * int(c) for ys, cs in steps.values() for y, c in zip(ys, cs, strict=True)
            )


@pytest.mark.parametrize(
    "bound, expected",
    [
        # before any engine pass: 64 masks x 4 game states (b = 0..3) x (5 x top + 1) win points
        ("MAX_ROUGH_CELLS", "64 sticky masks x 4 game states"),
        # after the passes, the laws' own supports: the 64 masks in their classes
        ("MAX_CELLS", "64 sticky masks in CLASSES classes"),
    ],
)
def test_too_large_law_is_refused_in_one_line(write_game, monkeypatch, bound, expected):
    # the exact RTP stays; the round law is refused naming the bound
    from slotmath.engine.limits import EngineTooLarge
    from slotmath.features import sticky
    from slotmath.features.options import load_features

    game = tiny(write_game, 2, ", max_games: 5")
    sg = sticky.sticky_games(game, 1, load_features(game).free_games)
    expected = expected.replace("CLASSES", str(len(set(sg.classes.values()))))
    monkeypatch.setattr(sticky, bound, 100)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    msg = str(err.value)
    assert "more than 100 " in msg and expected in msg and "\n" not in msg
    from slotmath.rules.linegame import components

    assert components(game, 1)["free_games"] > 0  # the exact RTP needs no law


def test_plan_is_the_law_support(write_game):
    # the DP's memory check reads the laws' supports before computing them: its
    # longest law is the finished one, whose last point is the largest total
    # win (positive probability); brute force: the largest total of literal play
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    game = tiny(write_game, 2, ", max_games: 5")
    sg = sticky_games(game, 1, load_features(game).free_games)
    cells, states, width = sg.plan(2)
    probs = sg.distribution(2)
    assert width == len(probs) and probs[-1] > 0 and cells >= width
    top = max(brute_feature(game, 2, 5, True))  # [x total bet]; total bet 2 coins, den from the 1/2 pay
    assert F(width - 1) * sg.grid[0] / (sg.den * 2) == top
    # the notes state the DP's state and its size
    state = f"{len(sg.moves)} sticky masks, lumped to {len(set(sg.classes.values()))} classes"
    assert any(state in note for note in analyse(game, 1).notes)


def test_lumped_masks_play_alike(write_game):
    # masks of one class must leave the same law of the rest of the feature:
    # literal play of 2 more spins from each mask's sticky cells, every stop
    # combination, compared exactly (Fractions) within each class; and the
    # partition is not trivial on this game (W pays 3 of a kind on a line, so
    # e.g. a reel whose two cells stick makes both lines read W there alike)
    from slotmath.features.options import load_features
    from slotmath.features.sticky import sticky_games

    game = tiny(write_game, 2, ", retrigger: false")
    sg = sticky_games(game, 1, load_features(game).free_games)
    by_class: dict = {}
    for m, c in sg.classes.items():
        cells = frozenset(
            (b // game.rows, b % game.rows) for b in range(game.reels * game.rows) if m >> b & 1
        )
        by_class.setdefault(c, []).append(brute_feature(game, 2, None, False, cells))
    assert len(by_class) < len(sg.moves)
    for laws in by_class.values():
        assert all(law == laws[0] for law in laws[1:])
    # and two classes differ: the partition is not one class either
    assert len({tuple(sorted(laws[0].items())) for laws in by_class.values()}) == len(by_class)


def test_piggy_rules_refuse_a_sticky_wild():
    # Piggy's own free games do not play sticky cells: the game file is refused naming the field
    from dataclasses import replace

    from slotmath.rules.piggy_bankin_superlock.check import check

    game = load_game("piggy_bankin_superlock")
    opts = dict(game.options)
    opts["free_games"] = {**opts["free_games"], "sticky": "WILD", "retrigger": False}
    with pytest.raises(GameFileError) as err:
        check(replace(game, options=opts))
    assert err.value.field == "options.free_games.sticky" and "piggy_bankin_superlock" in str(err.value)


def test_a_wild_with_drawn_multipliers_cannot_stick(write_game):
    text = TINY.replace("GAMES", "2").replace("EXTRA", ", retrigger: false")
    more = "  wild_multipliers: {symbol: W, table: [[2, 1], [3, 1]]}\n"
    with pytest.raises(GameFileError) as err:
        analyse(load_game(write_game(text + more)), 1)
    assert "options.free_games.sticky" in str(err.value) and "drawn multipliers" in str(err.value)


def test_sampler_agrees_with_a_nudge_wild_beside(write_game):
    # a second wild N expands on its reel first, then the sticky cells of W
    # show W: exact and literal play must agree (|z| < 4)
    from test_free_round import z_scores

    text = TINY.replace("GAMES", "3").replace("EXTRA", ", nudge: N, retrigger: false")
    text = text.replace("{name: S, kind: scatter}]", "{name: S, kind: scatter}, {name: N, kind: wild}]")
    text = text.replace("[W, A, S, X]]", "[W, A, S, N]]")
    game = load_game(write_game(text))
    z = z_scores(game, 1, 1_000_000, 8)
    assert all(abs(v) < 4 for v in z.values()), z
