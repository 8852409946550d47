"""Drawn wild multipliers that do not fit as stops, shown on the base reels
of a game with free games (its base spin's law of (win, trigger count) from
the draw profiles of its windows, :func:`slotmath.features.drawnlaw.drawn_keyed_law`),
with retrigger prizes and a reel set per trigger count: `par`'s round
against a plain-Python listing of every base window, every draw of its
wilds and every free game with retriggers up to ``max_games``."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from infree_brute import add, games_law
from test_drawn_free import TEXT as FREE_TEXT
from test_drawn_free import brute_spin, brute_spin_undrawn

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, drawn_law_refusal, drawn_too_large

# 3 reels x 2 rows, the lines and pays of tests/test_drawn_law.py (W
# substitutes for A and B, 3 x W pays 100, not multiplied), total bet 3
# coins; S pays 1 / 4 x total bet for 2 / 3 anywhere (tests/test_drawn_free.py's
# game and brute_spin, its base reels showing W too); W draws x2 / x3 / x5 at
# weights 2 / 1 / 1 (TABLE), on the base reels and on the free reels.
# OPTIONS is the free games.  The rewrite is refused by a stop-weight limit
# of 2 (the `refused` fixture), so `par` computes the law without it (the
# brute force's Fractions stay small).
TEXT = (
    FREE_TEXT.replace(
        "base: [[A, S, B, X], [A, B, S, X], [S, A, B, X, A]]",
        "base: [[A, W, S, B, X], [A, B, S, W, X], [S, A, W, B, X, A]]",
    )
    .replace("paylines:", "MOREpaylines:")
    .replace(
        "{symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 3}}, retrigger: RETRIGGER}", "OPTIONS"
    )
)
assert TEXT.count("W, S, B") == 1 and "MORE" in TEXT and "OPTIONS" in TEXT  # each change made
BET = 3  # coins
TABLE = {2: 2, 3: 1, 5: 1}
# the reel set of the case "by_count" (all three reels show S)
MORE = "  more: [[W, S, A, X], [S, W, B, X], [A, S, W, X]]\n"

# The games each case declares, and the same rules written out for the brute
# force: awards {count: (prize [x total bet], games, reel set)}, retrigger
# awards {count: (prize [x total bet], games)} (a free spin's prize is paid
# at the running multiplier), the multiplier and max_games.
CASES = {
    # plain free games, retriggers to max_games 3, at x2
    "plain": (
        "{symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 3}}, multiplier: 2, max_games: 3}",
        {2: (0, 2, "free"), 3: (0, 3, "free")},
        {2: (0, 2), 3: (0, 3)},
        2,
        3,
    ),
    # a trigger prize, and a retrigger prize (2 S in a free game, the most
    # its reels show: 1 game and 1/6 x total bet, half a coin)
    "prizes": (
        "{symbol: S, reels: free, awards: {2: {games: 2, prize: 1}, 3: {games: 3}}, max_games: 3, "
        "retrigger_awards: {2: {games: 1, prize: 1/6}}}",
        {2: (1, 2, "free"), 3: (0, 3, "free")},
        {2: (F(1, 6), 1)},
        1,
        3,
    ),
    # 3 S start their games on the reel set "more" (whose 3 reels all show S)
    "by_count": (
        "{symbol: S, reels: free, awards: {2: {games: 2}, 3: {games: 2, reels: more}}, max_games: 3, "
        "retrigger_awards: {2: {games: 1, prize: 1}, 3: {games: 1, prize: 2}}, multiplier: 3}",
        {2: (0, 2, "free"), 3: (0, 2, "more")},
        {2: (1, 1), 3: (2, 1)},
        3,
        3,
    ),
}


def drawn_game(write_game, case: str, combine: str):
    rows = "[" + ", ".join(f"[{m}, {w}]" for m, w in TABLE.items()) + "]"
    text = TEXT.replace("TABLE", rows).replace("COMBINE", combine).replace("OPTIONS", CASES[case][0])
    text = text.replace("MORE", MORE if case == "by_count" else "")
    return load_game(write_game(text))


def brute_round(game, case: str, combine: str, beside: tuple | None = None) -> dict:
    """Law ``{round win [x total bet]: P}`` played literally: every base
    window and draw (:func:`test_drawn_free.brute_spin`); a count of S in
    the awards pays its prize and starts its games on its reel set, each
    free game every window and draw of that set, paying its win plus the
    retrigger prize of its S count and adding that count's games, at most
    ``max_games`` played (:func:`infree_brute.games_law`), all at the
    multiplier.  ``beside`` = ``(symbol, award)``: a feature beside the
    free games (tests/test_drawn_beside.py), ``award(cells)`` the law
    ``{prize [x total bet]: P}`` it adds given the (reel, row) cells of the
    base window showing symbol (``{0: 1}`` when it does not start)."""
    _, awards, again, mult, cap = CASES[case]
    sets = ("base", "free", "more") if case == "by_count" else ("base", "free")
    strips = {name: [s.symbols for s in game.strips(name)] for name in sets}
    per_game = {}
    for name in sets[1:]:
        table: dict = {}
        for (win, count), p in brute_spin(strips[name], combine, TABLE).items():
            prize, games = again.get(count, (0, 0))
            at = (win + prize * BET, games)
            table[at] = table.get(at, 0) + p
        per_game[name] = table
    law: dict = {}
    for (win, key), p in brute_spin(strips["base"], combine, TABLE, beside and beside[0]).items():
        count, seen = (key, ()) if beside is None else key
        award = {F(0): F(1)}
        if count in awards:
            prize, games, reels = awards[count]
            award = {prize * BET + mult * y: q for y, q in games_law(per_game[reels], games, cap).items()}
        if beside is not None:
            award = add(award, {v * BET: r for v, r in beside[1](seen).items()})
        for y, q in award.items():
            total = F(win + y, BET)
            law[total] = law.get(total, 0) + p * q
    return law


def assert_round(result, law: dict) -> None:
    """``result``'s RTP is the brute force's mean exactly, its distribution
    the brute force's win by win within 1e-12, its hit frequency and SD."""
    assert result.rtp == sum((w * p for w, p in law.items()), F(0))
    dist = result.distribution
    got = {
        F(int(w), dist.unit_den * BET): float(p) for w, p in zip(dist.wins, dist.probabilities, strict=True)
    }
    for w, p in law.items():
        assert abs(got.get(w, 0.0) - float(p)) <= 1e-12, (w, got.get(w), float(p))
    assert sum(p for w, p in got.items() if w not in law) < 1e-12
    hit = float(sum(p for w, p in law.items() if w > 0))
    assert result.hit_frequency == pytest.approx(hit, rel=1e-12)
    sd = float(sum((w - result.rtp) ** 2 * p for w, p in law.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-10)


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_the_round_with_drawn_base_reels_is_the_brute_force(write_game, refused, combine):
    # the base reels show W (up to three per window, 27 draws): the base
    # spin's law of (win, S count) is float from its draw profiles, the
    # round's RTP exact, its law the brute force's
    game = drawn_game(write_game, "plain", combine)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    law = brute_round(game, "plain", combine)
    assert_round(result, law)
    assert any("base spin's law of (win, S count)" in n and "float64" in n for n in result.notes)
    # the max win: a bound (every free game at the top free-game win)
    assert result.max_win.value >= max(law) and not result.max_win.exact
    # the draws' mean shift of one free spin [x total bet], on the sheet with its method
    assert any(
        "multiplier x the mean games played x their exact mean per free spin" in n for n in result.notes
    )
    shift = result.features["free_games"]["drawn_multipliers_per_free_game"]
    free = [s.symbols for s in game.strips("free")]
    drawn = sum((w * p for (w, _), p in brute_spin(free, combine, TABLE).items()), F(0))
    assert shift == pytest.approx(float((drawn - brute_spin_undrawn(free)) / BET), rel=1e-12)


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_retrigger_prizes_in_drawn_free_games_are_the_brute_force(write_game, refused, combine):
    # a trigger prize of 1 x total bet (2 S), and a retrigger prize of 1/6 x
    # total bet (half a coin: the free table's unit is 1/2 coin) with 1 more
    # game (2 S in a free game): the free spin's drawn table adds the prize
    # of its S count to its win (else its mean check and the distribution
    # fail), the round is the brute force's
    game = drawn_game(write_game, "prizes", combine)
    assert drawn_law_refusal(game) is None
    assert_round(analyse(game, 1), brute_round(game, "prizes", combine))


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_a_reel_set_per_count_in_drawn_free_games_is_the_brute_force(write_game, refused, combine):
    # 2 S start 2 games on "free", 3 S 2 games on "more" (each set's drawn
    # table its own), retriggers with prizes to max_games 3, at x3
    game = drawn_game(write_game, "by_count", combine)
    assert drawn_law_refusal(game) is None
    result = analyse(game, 1)
    assert_round(result, brute_round(game, "by_count", combine))
    by_set = result.features["free_games"]["by_reel_set"]
    assert set(by_set) == {"free", "more"}
    # each set's drawn mean shift per free spin, and the RTP note's Wald sentence
    assert all(by_set[name]["drawn_multipliers_per_free_game"] > 0 for name in by_set)
    assert any("their exact mean per free spin" in n for n in result.notes)


@pytest.mark.parametrize(("case", "combine"), [("plain", "add"), ("prizes", "multiply"), ("by_count", "add")])
def test_the_sampler_agrees_with_the_drawn_round(write_game, refused, case, combine):
    # the compiled round sampler draws each W in the window, base and free
    # games alike: its mean, hit frequency and second moment (SD) against
    # `par`'s round, |z| < 4 over 300,000 rounds
    import numpy as np
    from test_drawn_law import sampled_wins, z_of

    from slotmath.rules.linegame import round_sampler

    game = drawn_game(write_game, case, combine)
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 300_000, 5)  # [x total bet]
    assert abs(z_of(x, float(result.rtp))) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4
    second = result.sd**2 + float(result.rtp) ** 2
    assert abs(z_of(np.square(x), second)) < 4, (np.square(x).mean(), second)


def test_what_is_still_refused_is_listed_in_one_line(write_game, refused):
    # free games with a nudged wild N (a second wild, on free reel 2): the
    # law's refusal names the field and lists every case still refused, and
    # `par` refuses in one line (the exact components refuse a nudge too);
    # unpaid scatters, trigger reels and a count on a payline are computed
    # (tests/test_drawn_free_triggers.py)
    from slotmath.errors import EngineTooLarge
    from slotmath.rules.linegame import DRAWN_LAW_SCOPE

    rows = "[" + ", ".join(f"[{m}, {w}]" for m, w in TABLE.items()) + "]"
    options = CASES["plain"][0].replace("max_games: 3", "max_games: 3, nudge: N")
    text = TEXT.replace("TABLE", rows).replace("COMBINE", "add").replace("OPTIONS", options)
    text = text.replace("MORE", "").replace(
        "  - {name: W, kind: wild, substitutes: all}",
        "  - {name: W, kind: wild, substitutes: all}\n  - {name: N, kind: wild, substitutes: all}",
    )
    text = text.replace("[A, B, W, X], [W, A, S", "[A, B, W, X, N], [W, A, S")
    assert "X, N]" in text and "name: N" in text
    game = load_game(write_game(text))
    reason = drawn_law_refusal(game)
    assert reason is not None and reason.endswith(f"options.free_games: {DRAWN_LAW_SCOPE}")
    still_refused = DRAWN_LAW_SCOPE.split("still refused:", 1)[1]
    for still in ("reel heights", "sticky wild", "nudge", "the drawn wild as their trigger"):
        assert still in still_refused
    for computed in ("trigger reels", "unpaid"):
        assert computed not in DRAWN_LAW_SCOPE
    assert "round cap" not in still_refused  # tests/test_drawn_cap.py
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    assert "\n" not in message
    assert "options.free_games: is not computed with drawn wild multipliers" in message


def test_the_worked_example_by_hand(tmp_path):
    # docs/features.md, "drawn wilds on the base reels, with free games" (the
    # "plain" case with the tiny table of tests/test_drawn_law.py, whose
    # draws do not fit as stops): the trigger probability 8/25 worked from
    # the reels, and one base window and draw, stops (1, 2, 0), W drawn x5
    # (reel 1) and x2 (reel 2): 3 S pay 12 coins, the V W W S pays
    # 1 x (5 + 2) = 7: 19 coins, by the compiled window evaluation
    import numpy as np
    from test_drawn_law import TINY_TABLE, brute_line

    from slotmath.features.wildmult import drawn_symbols, load_wild_multipliers, variant_name
    from slotmath.montecarlo.linesim import evaluation_args, window_line_win

    from conftest import docs_example

    declared, section = docs_example(tmp_path, "### Worked example: drawn wilds on the base reels")
    spec = load_wild_multipliers(declared)
    assert spec is not None and dict(spec.table) == TINY_TABLE and spec.combine == "add"
    assert drawn_too_large(declared) and drawn_law_refusal(declared) is None
    strips = [s.symbols for s in declared.strips("base")]
    shows = [sum("S" in (r[i], r[(i + 1) % len(r)]) for i in range(len(r))) for r in strips]
    assert shows == [2, 2, 2] and [len(r) for r in strips] == [5, 5, 6]
    p = F(2, 5) * F(2, 5) * F(1, 3) + F(2, 5) * F(2, 5) * F(2, 3) + 2 * F(2, 5) * F(3, 5) * F(1, 3)
    assert p == F(8, 25)
    result = analyse(declared, 1)
    assert result.features["free_games"]["trigger_probability"] == float(p)
    assert "trigger probability `0.32`" in " ".join(section.split())
    game = drawn_symbols(declared)
    (dims, sym, cells, codes, offsets, label_coins, *_), names = evaluation_args(game, 1)
    window = np.concatenate([sym[0, 1], sym[1, 2], sym[2, 0]]).copy()
    for cell, m in {0: 5, 3: 2}.items():  # cell = reel x rows + row
        assert window[cell] == game.symbol_index["W"]
        window[cell] = game.symbol_index[variant_name("W", m)]
    events = np.zeros(len(names), dtype=np.int64)
    assert round(window_line_win(window, dims, cells, codes, offsets, label_coins, events) * 3) == 7
    grid = [["W", "S"], ["S", "W"], ["S", "A"]]
    lines = sum(
        brute_line(
            [grid[r][line[r]] for r in range(3)],
            [{(0, 0): 5, (1, 1): 2}.get((r, line[r])) for r in range(3)],
            "add",
        )
        for line in ([0, 0, 0], [1, 1, 1], [0, 1, 0])
    )
    assert lines == 7 and sum(row.count("S") for row in grid) == 3  # + 4 x 3 coins of scatters: 19


def test_the_workbench_figures_of_a_game_whose_draws_do_not_fit(tmp_path):
    # The workbench and `slotmath tune` read the figures of
    # slotmath.analysis.metrics.game_figures.  The fast round
    # (linegame.fast_round) is for games played as declared or rewritten; on
    # the docs' game (draws that do not fit as stops) it once tried the
    # rewrite and raised, so the workbench opened on a traceback.  It now
    # leaves the figures to the full analysis: the same exact RTP as `par`.
    from slotmath.analysis.metrics import game_figures
    from slotmath.rules.linegame import fast_round

    from conftest import docs_example

    game, _ = docs_example(tmp_path, "### Worked example: drawn wilds on the base reels")
    assert drawn_too_large(game) and fast_round(game, 1) is None
    figs = game_figures(game, 1)
    result = analyse(game, 1)
    assert figs["rtp"] == result.rtp and isinstance(figs["rtp"], F)
    assert figs["hit_frequency"] == pytest.approx(0.68, abs=1e-12)  # the sheet's 68 %


def test_the_combination_table_multiplier_is_the_mean_over_the_draws(tmp_path):
    # The drawn combination table's `multiplier` is a mean, as the sheet's
    # note says: a row of one pay counting k drawn wilds (added) shows
    # k x E[M] (1 when k = 0), E[M] = sum m w / sum w of the table, and its
    # win [coins] is that mean times the pay; a row naming several pays is
    # a line whose best pay depends on the draws, its multiplier its mean
    # win over the largest of those pays (3 x W pays 100 coins).
    from conftest import docs_example

    game, _ = docs_example(tmp_path, "### Worked example: drawn wilds on the base reels")
    result = analyse(game, 1)
    table = dict(load_game(game.source).options["wild_multipliers"]["table"])
    mean = F(sum(m * w for m, w in table.items()), sum(table.values()))
    assert float(mean) == pytest.approx(23 / 9, rel=1e-9)  # weights about 6 : 2 : 1
    pay = {p.name: p.pays[0] for p in game.line_pays}
    rows = result.combinations[result.combinations["kind"] == "line"]
    for r in rows.itertuples():
        names = r.combination.split(" or ")
        assert r.win == pytest.approx(r.multiplier * max(pay[n] for n in names), rel=1e-12)
        if len(names) == 1:
            assert min(abs(r.multiplier - (k * float(mean) if k else 1.0)) for k in range(3)) < 1e-9
        else:
            assert names == ["2 x A", "3 x A", "3 x B", "3 x W"] and 1 < r.multiplier < float(mean)
    assert {round(float(m), 6) for m in rows["multiplier"]} == {1.0, 2.555556, 5.111111, 1.000604}
    note = next(n for n in result.notes if n.startswith("Wild multipliers drawn from a table"))
    assert "a row's multiplier is the mean over the draws" in note
