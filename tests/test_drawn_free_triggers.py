"""Drawn wild multipliers that do not fit as stops, with free games whose
scatters do not pay (``scatter_pays: false``), started by a reel condition
(``trigger: {reels: [...]}``) or by a count on a payline (``trigger:
{payline: true}``): `par`'s round (the base spin's and the free spin's
float laws keyed by the free games' own trigger key) against a plain-Python
listing of every base window, every free window and every draw of their
wilds, with retriggers up to ``max_games``, on lines and ways, ``add`` and
``multiply``."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from math import prod

import pytest
from infree_brute import add, games_law
from test_drawn_base import MORE
from test_drawn_base import TEXT as LINES_TEXT
from test_drawn_law import TINY_LINES, brute_line, sampled_wins, z_of
from test_wild_multipliers_ways import game_text, window_coins

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, drawn_components, drawn_law_refusal, drawn_too_large

# W draws x2 / x3 / x5 at weights 2 / 1 / 1 on lines (tests/test_drawn_base.py's
# game: W on every base and free reel, S on every base reel and on free
# reels 1 and 3; 2 / 3 S anywhere pay 1 / 4 x total bet of 3 coins), x2 / x3
# at 3 / 1 on ways (tests/test_wild_multipliers_ways.py's game: 2+ S pay 1 x
# total bet of 10 coins).  The rewrite is refused by a stop-weight limit of 2
# (the `refused` fixture), so `par` computes the law without it.
LINES_TABLE = {2: 2, 3: 1, 5: 1}
WAYS_TABLE = {2: 3, 3: 1}

# Each case: the free games as declared, and for the brute force the count
# rule (``anywhere``, ``reels`` with the listed reels 0-based, ``payline``),
# awards {count: (prize [x total bet], games, reel set)}, retrigger awards
# {count: (prize [x total bet], games)}, multiplier, max_games, scatters paid
# in free games.
LINE_CASES = {
    # S pay in the base game only; they still retrigger (2 / 3 games)
    "unpaid": (
        "{symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 3}}, multiplier: 2, max_games: 3, "
        "scatter_pays: false}",
        ("anywhere",),
        {2: (0, 2, "free"), 3: (0, 3, "free")},
        {2: (0, 2), 3: (0, 3)},
        2,
        3,
        False,
    ),
    # S on reels 1 and 3 start the games (their count read as the total);
    # a retrigger needs S on free reels 1 and 3 too: 1 game and 1 x total bet
    "reels": (
        "{symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 3, prize: 1}}, multiplier: 2, "
        "max_games: 3, trigger: {reels: [1, 3]}, retrigger_awards: {2: {games: 1, prize: 1}}}",
        ("reels", (0, 2)),
        {2: (0, 2, "free"), 3: (1, 3, "free")},
        {2: (1, 1), 3: (1, 1)},
        2,
        3,
        True,
    ),
    # a run of S from reel 1 on a payline; 3 start their games on the set
    # "more" (S on its every reel: a retrigger on a payline too), 2 on
    # "free" (no S on its reel 2: no retrigger); scatters unpaid there
    "payline": (
        "{symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 3, reels: more}}, max_games: 3, "
        "trigger: {payline: true}, scatter_pays: false}",
        ("payline",),
        {2: (0, 2, "free"), 3: (0, 3, "more")},
        {2: (0, 2), 3: (0, 3)},
        1,
        3,
        False,
    ),
}
WAYS_FREE = "{symbol: S, reels: free, multiplier: 2, awards: {2: {games: 3}}}"
WAYS_CASES = {
    "unpaid": (
        "{symbol: S, reels: free, multiplier: 2, max_games: 4, awards: {2: {games: 3}}, scatter_pays: false}",
        ("anywhere",),
        {2: (0, 3, "free")},
        {2: (0, 3)},
        2,
        4,
        False,
    ),
    "reels": (
        "{symbol: S, reels: free, multiplier: 2, max_games: 4, awards: {2: {games: 3}}, "
        "trigger: {reels: [1, 3]}, retrigger_awards: {2: {games: 1, prize: 1/2}}}",
        ("reels", (0, 2)),
        {2: (0, 3, "free")},
        {2: (F(1, 2), 1)},
        2,
        4,
        True,
    ),
}


def line_game(write_game, case: str, combine: str):
    rows = "[" + ", ".join(f"[{m}, {w}]" for m, w in LINES_TABLE.items()) + "]"
    text = (
        LINES_TEXT.replace("TABLE", rows).replace("COMBINE", combine).replace("OPTIONS", LINE_CASES[case][0])
    )
    return load_game(write_game(text.replace("MORE", MORE if case == "payline" else "")))


def ways_game(write_game, case: str, combine: str, cases: dict = WAYS_CASES):
    text = game_text(combine, free=True)
    return load_game(write_game(text.replace(WAYS_FREE, cases[case][0])))


def brute_windows(strips: list, table: dict, coins, also: str | None = None) -> dict:
    """``{(coins, S rows per reel): P}`` of one spin: every stop vector
    (uniform stops, 2 rows) and every draw of every W in its window (each its
    own draw from ``table``); ``coins(window, draws)`` the line or way win,
    ``draws[(reel, row)]`` the multiplier of each W; the S rows a bit mask
    per reel (bit k: row k).  With ``also`` the key is ``(S rows, the
    (reel, row) cells showing also)``."""
    total = sum(table.values())
    cycle = prod(len(s) for s in strips)
    out: dict = {}
    for stops in product(*(range(len(s)) for s in strips)):
        window = [[s[(i + k) % len(s)] for k in range(2)] for s, i in zip(strips, stops, strict=True)]
        cells = [(r, k) for r in range(len(strips)) for k in range(2) if window[r][k] == "W"]
        rows = tuple(sum(1 << k for k in range(2) if window[r][k] == "S") for r in range(len(strips)))
        if also is not None:
            rows = (rows, tuple((r, k) for r in range(len(strips)) for k in range(2) if window[r][k] == also))
        for draw in product(table, repeat=len(cells)):
            p = F(1, cycle) * prod((F(table[m], total) for m in draw), start=F(1))
            at = (coins(window, dict(zip(cells, draw, strict=True))), rows)
            out[at] = out.get(at, 0) + p
    return out


def line_coins(combine: str):
    def coins(window, draws) -> int:
        return sum(
            brute_line(
                [window[r][line[r]] for r in range(3)], [draws.get((r, line[r])) for r in range(3)], combine
            )
            for line in TINY_LINES
        )

    return coins


def ways_coins(combine: str):
    return lambda window, draws: window_coins(window, draws, combine)


def count_of(rule: tuple, rows: tuple) -> int:
    """The count the awards are read by: every S anywhere; under a reel
    condition the same when every listed reel shows S, else 0; on a payline
    the longest run of S from reel 1 along one of the three lines."""
    shown = sum(bin(m).count("1") for m in rows)
    if rule[0] == "anywhere":
        return shown
    if rule[0] == "reels":
        return shown if all(rows[r] for r in rule[1]) else 0
    best = 0
    for line in TINY_LINES:
        n = 0
        while n < 3 and rows[n] >> line[n] & 1:
            n += 1
        best = max(best, n)
    return best


def lookup(awards: dict, count: int):
    """The entry of the highest listed count not above ``count`` (None below them)."""
    listed = [c for c in sorted(awards) if c <= count]
    return awards[listed[-1]] if listed else None


def brute_round(
    game, cases: dict, case: str, combine: str, bet: int, scatter, coins, beside=None, inside: bool = False
) -> dict:
    """Law ``{round win [x total bet]: P}`` played literally: the base
    window (lines or ways, plus its scatter pay ``scatter(S shown)``
    [coins]); its count (:func:`count_of`) pays its prize and starts its
    games on its reel set, each free game every window and draw of that set,
    paying its win (with the scatter pay only when the scatters pay in free
    games) plus the retrigger prize of its count and adding that count's
    games, at most ``max_games`` played (:func:`infree_brute.games_law`),
    all at the multiplier.  ``beside`` = ``(symbol, award)``: a feature
    beside the free games (tests/test_drawn_beside.py), ``award(cells)``
    the law ``{prize [x total bet]: P}`` it adds given the (reel, row)
    cells of the base window showing symbol (``{0: 1}`` when it does not
    start); ``inside``: the feature plays in the free games too
    (``in_free_games``), each free game adding its award from its window's
    cells (times the multiplier)."""
    _, rule, awards, again, mult, cap, paid = cases[case]
    also = beside[0] if beside is not None and inside else None
    per_game = {}
    for name in {reels for _, _, reels in awards.values()}:
        table: dict = {}
        for (win, key), p in brute_windows(
            [s.symbols for s in game.strips(name)], TABLES[bet], coins, also
        ).items():
            rows, seen = key if also else (key, ())
            shown = sum(bin(m).count("1") for m in rows)
            prize, games = lookup(again, count_of(rule, rows)) or (0, 0)
            for v, r in (beside[1](seen) if also else {F(0): F(1)}).items():
                at = (win + (scatter(shown) if paid else 0) + prize * bet + v * bet, games)
                table[at] = table.get(at, 0) + p * r
        per_game[name] = table
    law: dict = {}
    base = brute_windows([s.symbols for s in game.strips("base")], TABLES[bet], coins, beside and beside[0])
    for (win, key), p in base.items():
        rows, seen = key if beside else (key, 0)
        shown = sum(bin(m).count("1") for m in rows)
        award = {F(0): F(1)}
        entry = lookup(awards, count_of(rule, rows))
        if entry is not None:
            prize, games, reels = entry
            award = {prize * bet + mult * y: q for y, q in games_law(per_game[reels], games, cap).items()}
        if beside is not None:
            award = add(award, {v * bet: r for v, r in beside[1](seen).items()})
        for y, q in award.items():
            total = F(win + scatter(shown), bet) + F(y, bet)
            law[total] = law.get(total, 0) + p * q
    return law


TABLES = {3: LINES_TABLE, 10: WAYS_TABLE}  # by total bet: lines 3 coins, ways 10


def line_scatter(shown: int) -> int:
    return {0: 0, 1: 0, 2: 3, 3: 12}[shown]  # 1 and 4 x total bet 3


def ways_scatter(shown: int) -> int:
    return 10 if shown >= 2 else 0  # 2+ S: 1 x total bet 10


def assert_round(result, law: dict) -> None:
    """``result``'s RTP is the brute force's mean exactly (and the exact RTP
    `par` gave before in its refusal), its distribution the brute force's
    win by win within 1e-12, its mean the RTP, its hit frequency and SD."""
    game = result.game
    rtp = sum((w * p for w, p in law.items()), F(0))
    assert result.rtp == rtp == sum(drawn_components(game, 1).values(), F(0))
    dist = result.distribution
    scale = dist.unit_den * dist.total_bet
    got = {F(int(w), scale): float(p) for w, p in zip(dist.wins, dist.probabilities, strict=True)}
    for w, p in law.items():
        assert abs(got.get(w, 0.0) - float(p)) <= 1e-12, (w, got.get(w), float(p))
    assert sum(p for w, p in got.items() if w not in law) < 1e-12
    assert abs(float(dist.mean) - float(rtp)) <= 1e-9 * float(rtp)
    hit = float(sum(p for w, p in law.items() if w > 0))
    assert result.hit_frequency == pytest.approx(hit, rel=1e-12)
    sd = float(sum((w - rtp) ** 2 * p for w, p in law.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-10)


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_unpaid_scatters_in_drawn_free_games_on_lines(write_game, refused, combine):
    # scatter_pays: false: the free spin's law leaves the S pays out (its
    # table point by point, within its bound), S still retrigger; the round
    # is the brute force's
    from slotmath.features.drawnlaw import drawn_free_table, drawn_keyed_law
    from slotmath.features.options import load_features

    game = line_game(write_game, "unpaid", combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    spec = load_features(game).free_games
    _, table, unit = drawn_free_table(game, 1, spec)
    bound = drawn_keyed_law(game, 1, "free", spec.trigger, scatters=False).bound
    free = brute_windows([s.symbols for s in game.strips("free")], LINES_TABLE, line_coins(combine))
    want: dict = {}
    for (win, rows), p in free.items():
        at = (win * unit, (lookup(LINE_CASES["unpaid"][3], count_of(("anywhere",), rows)) or (0, 0))[1])
        want[at] = want.get(at, 0) + p
    got = {(int(y), int(k)): float(table[y, k]) for y, k in zip(*table.nonzero(), strict=True)}
    assert set(got) == {at for at, p in want.items() if p}
    for at, p in want.items():
        assert abs(F(got[at]) - p) <= p * F(bound), (at, got[at], float(p))
    result = analyse(game, 1)
    assert_round(
        result, brute_round(game, LINE_CASES, "unpaid", combine, 3, line_scatter, line_coins(combine))
    )


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_trigger_reels_in_drawn_free_games_on_lines(write_game, refused, combine):
    # S on reels 1 and 3 start the games, in the base game (whose reels show
    # W: the base law keyed by S per reel) and for a retrigger; a trigger
    # and a retrigger prize
    game = line_game(write_game, "reels", combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    assert_round(
        result, brute_round(game, LINE_CASES, "reels", combine, 3, line_scatter, line_coins(combine))
    )
    assert any("base spin's law of (win, S count per reel)" in n for n in result.notes)
    # the trigger odds: S on base reel 1 (2 of 5 stops) and reel 3 (2 of 6)
    assert result.features["free_games"]["trigger_probability"] == float(F(2, 5) * F(1, 3))


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_a_count_on_a_payline_in_drawn_free_games(write_game, refused, combine):
    # a run of S from reel 1 on a payline, base and free games keyed by S's
    # rows per reel; scatters unpaid in the free games
    game = line_game(write_game, "payline", combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    law = brute_round(game, LINE_CASES, "payline", combine, 3, line_scatter, line_coins(combine))
    assert_round(result, law)
    assert any("base spin's law of (win, S rows per reel)" in n for n in result.notes)


@pytest.mark.parametrize(
    ("case", "combine"), [("unpaid", "add"), ("unpaid", "multiply"), ("reels", "add"), ("reels", "multiply")]
)
def test_drawn_free_games_on_ways(write_game, refused, case, combine):
    # ways: 2+ S (anywhere, or on reels 1 and 3) start 3 games at x2, at
    # most 4 played; the base reels show W (the base law keyed by the S
    # count, or per reel)
    game = ways_game(write_game, case, combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    assert_round(result, brute_round(game, WAYS_CASES, case, combine, 10, ways_scatter, ways_coins(combine)))


def test_the_sampler_agrees_with_the_round_with_trigger_reels(write_game, refused):
    # the compiled round sampler draws each W in the window and starts the
    # free games on S on reels 1 and 3: its mean and P(win > 0) against
    # `par`'s round, |z| < 4 over 300,000 rounds
    from slotmath.rules.linegame import round_sampler

    game = line_game(write_game, "reels", "add")
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 300_000, 23)  # [x total bet]
    assert abs(z_of(x, float(result.rtp))) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4


def test_the_worked_example_by_hand(tmp_path):
    # docs/features.md, "drawn free games on a reel condition, scatters
    # unpaid": the trigger odds (2/5)(1/3) = 2/15 worked from the reels, the
    # keys of the windows worked by hand (S per reel) and the counts they
    # award by; the free window (3, 0, 2) pays no line and, its scatters
    # unpaid, nothing: the free spin's law puts its key's whole probability
    # (2/5)(1)(1/3) on wins its lines alone give
    from slotmath.features.drawnlaw import drawn_keyed_law
    from slotmath.features.options import load_features

    from conftest import docs_example

    declared, section = docs_example(tmp_path, "### Worked example: drawn free games on a reel condition")
    spec = load_features(declared).free_games
    assert spec.trigger_reels == (0, 2) and not spec.scatter_pays
    assert drawn_too_large(declared) and drawn_law_refusal(declared) is None

    def window(reel_set: str, stops: tuple) -> list:
        strips = [s.symbols for s in declared.strips(reel_set)]
        return [[s[(i + k) % len(s)] for k in range(2)] for s, i in zip(strips, stops, strict=True)]

    def key(grid) -> tuple:
        return tuple(col.count("S") for col in grid)

    base = [s.symbols for s in declared.strips("base")]
    shows = [sum("S" in (r[i], r[(i + 1) % len(r)]) for i in range(len(r))) for r in base]
    p = F(shows[0], len(base[0])) * F(shows[2], len(base[2]))
    assert shows == [2, 2, 2] and p == F(2, 15)
    assert key(window("base", (1, 2, 0))) == (1, 1, 1) and spec.games(spec.count_of((1, 1, 1))) == 3
    assert key(window("base", (1, 2, 1))) == (1, 1, 0) and spec.count_of((1, 1, 0)) == 0
    grid = window("free", (3, 0, 2))
    assert grid == [["S", "X"], ["A", "B"], ["S", "B"]] and key(grid) == (1, 0, 1)
    assert spec.retrigger_games(spec.count_of((1, 0, 1))) == 2
    assert line_coins("add")(grid, {}) == 0
    law = drawn_keyed_law(declared, 1, "free", spec.trigger, scatters=False)
    on_key = [
        (int(w), float(q))
        for w, k, q in zip(law.wins, law.key_items(), law.probabilities, strict=True)
        if k == (1, 0, 1)
    ]
    assert sum(q for _, q in on_key) == pytest.approx(float(F(2, 5) * F(1, 3)), rel=1e-14)
    # every S window of the free reels shows at most one S per reel: its
    # scatter pay would be 1 x total bet (3 coins); unpaid, the zero win keeps mass
    assert any(w == 0 for w, _ in on_key)
    result = analyse(declared, 1)
    assert result.features["free_games"]["trigger_probability"] == float(p)
    assert "trigger probability `0.1333`" in " ".join(section.split())
    assert result.rtp == sum(drawn_components(declared, 1).values(), F(0))


def test_the_cross_check_compares_no_drawn_mean_row_with_an_event(tmp_path):
    # the docs' example above: its combination table lists "2 x A" lines
    # with one W at the draws' mean multiplier (x2, x3, x5 at 3/4, 1/4, 1/8
    # of 2**32 + 1 weights: 2.56), while the sampler names each drawn sum
    # ("line: 2 x A (x2)", "(x3)", ...).  The mean rows give no event rate
    # (before: 2.56 read as x2, exact 0.12 against the drawn x2's 0.08, z
    # about -59 "fails" on the sheet); every event compared passes
    from slotmath.analysis.simulation import simulate_game
    from slotmath.montecarlo.convergence import exact_event_rates

    from conftest import docs_example

    game, _ = docs_example(tmp_path, "### Worked example: drawn free games on a reel condition")
    result = analyse(game, 1)
    table = result.combinations
    assert any(not float(m).is_integer() for m in table["multiplier"])  # the mean rows exist
    rates = exact_event_rates(result)
    assert "line: 2 x A (x2)" not in rates and "line: 2 x A" in rates
    run = simulate_game(game, 100_000, 3, 1, exact=result, workers=1)
    events = run.convergence.events
    compared = events[events["z"].notna()]
    assert len(compared) > 0 and (compared["z"].abs() < 4).all(), compared
