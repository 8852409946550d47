"""Piggy Bankin' Superlock: the PAR-sheet feature tables (coverage heat maps,
shapes, wheel, free games), checked against figures worked out another way."""

from fractions import Fraction as Fr

import numpy as np
import pytest

from slotmath.engine.reels import windows
from slotmath.features.expanding import nudged_strip
from slotmath.features.options import load_features
from slotmath.io.gamefile import load_game
from slotmath.report.featuresheet import feature_tables
from slotmath.rules.piggy_bankin_superlock import analysis as pbs


@pytest.fixture(scope="module")
def game():
    return load_game("piggy_bankin_superlock")


@pytest.fixture(scope="module")
def result(game):
    return pbs.analyse(game, 1, distribution=False)


def _mean_cells(final):
    """E[held cells at the end] from a final (flag, mask) distribution by popcount."""
    p = final.sum(axis=0)
    cells = np.array([bin(m).count("1") for m in range(len(p))])
    return float(p @ cells) / float(p.sum())


def test_coverage_mean_is_expected_cells(game, result):
    # mean of the 15 per-cell probabilities = E[covered cells] / 15 (linearity)
    st = pbs.structure(game)
    for name, key in (
        ("base game", ("base_game", "base_game", None, None)),
        ("free games", ("free_games", "free_games", None, None)),
    ):
        frame = result.tables[f"Lock-it coverage: {name} [P(cell covered at the end)]"]
        assert frame.shape == (3, 5) and list(frame.columns) == [f"reel {j}" for j in range(1, 6)]
        final, _, _ = st.final(key)
        assert abs(frame.to_numpy().mean() - _mean_cells(final) / 15) < 1e-12
    # selection: BONUS counts weighted by their base-game stop counts
    sel = load_features(game).selection
    by = st.base_screens.sum(axis=(0, 1))
    num = sum(
        int(by[b])
        * _mean_cells(st.final((sel.lockit_source, "base_game", b, sel.options[b].lockit_spins))[0])
        for b in sel.options
    )
    expect = num / sum(int(by[b]) for b in sel.options) / 15
    frame = result.tables["Lock-it coverage: selection [P(cell covered at the end)]"]
    assert abs(frame.to_numpy().mean() - expect) < 1e-12
    # the JSON figures hold the same grids
    assert np.allclose(
        result.features["lockit_coverage"]["base_game"],
        result.tables["Lock-it coverage: base game [P(cell covered at the end)]"],
    )


def test_shapes_per_feature_cover_the_cells(game, result):
    # sum over shapes of (count per feature x cells of the shape) = E[covered cells]
    t = result.tables["Lock-it shapes"]
    lk = load_features(game).lockit
    area = {name: a * b for name, (a, b) in zip(lk.shape_names, lk.shapes, strict=True)}
    st = pbs.structure(game)
    final, _, _ = st.final(("base_game", "base_game", None, None))
    base = t[t["source"] == "base game"]
    assert abs(sum(base["per feature"] * base["shape"].map(area)) - _mean_cells(final)) < 1e-9
    # per round = per feature x features per round; 1 in N = 1 / per round
    odds = pbs.breakdown(game, 1).odds
    assert np.allclose(base["per round"], base["per feature"] * odds["lockit base game"], rtol=1e-12)
    ok = t["per round"] > 0
    assert np.allclose(t.loc[ok, "1 in [rounds]"].astype(float), 1 / t.loc[ok, "per round"])
    fg = t[t["source"] == "free games"]
    final_fg, _, _ = st.final(("free_games", "free_games", None, None))
    assert abs(sum(fg["per feature"] * fg["shape"].map(area)) - _mean_cells(final_fg)) < 1e-9


def test_wheel_table(game, result):
    t = result.tables["Superlock wheel"].set_index("segment")
    w = load_features(game).wheel
    total = sum(wt for _, _, wt in w.segments)
    q = w.pre_probability
    for label, _value, wt in w.segments:
        assert t.loc[label, "weight"] == wt
        assert abs(t.loc[label, "probability"] - float((1 - q) * Fr(wt, total))) < 1e-15
    # by hand: MINI weight 300 of 997, after the 1/500 Superlock chance:
    # 499/500 * 300/997 = 0.30030090..., worth 10 x that = 3.0030090...
    assert abs(t.loc["MINI", "probability"] - 499 * 300 / (500 * 997)) < 1e-15
    assert abs(t.loc["MINI", "expected value [x total bet]"] - 10 * 499 * 300 / (500 * 997)) < 1e-13
    assert t.loc["MINI", "prize"] == "MINI" and t.loc["25", "prize"] == "25x"
    assert t.loc["SUPERLOCK", "probability"] == 1 / 500
    assert abs(t["probability"].sum() - 1) < 1e-14
    # rule 7.2 weights: 20 + 499/500 x (300x10 + 60x100 + 4x1000 + 2500 + 250x25 + 150x50
    # + 100x75 + 50x150 + 30x200 + 20x250 + 12x300 + 8x350 + 6x400 + 4x500 + 2x750) / 997
    # = 20 + 499/500 x 67550 / 997
    assert abs(t["expected value [x total bet]"].sum() - (20 + 499 / 500 * 67550 / 997)) < 1e-12


def _fg_bonus_distribution(game):
    """P(BONUS count) of one free spin by convolving the per-reel counts of the
    WILD_3-expanded strips (independent of the screen enumeration)."""
    fgs = load_features(game).free_games
    bonus = game.symbol_index[fgs.symbol]
    dist = np.array([1], dtype=object)
    for strip in game.strips(fgs.reels):
        ns = nudged_strip(game, strip, fgs.nudge) if fgs.nudge else strip
        w = windows(game, ns)
        weights = ns.weights if ns.weights is not None else [1] * len(ns)
        per = np.zeros(game.rows + 1, dtype=object)
        for k, wt in zip((w == bonus).sum(axis=1), weights, strict=True):
            per[k] += int(wt)
        dist = np.convolve(dist, per)
    return [Fr(int(c), int(sum(dist))) for c in dist]


def test_free_games_table(game, result):
    t = result.tables["Free games"].set_index("BONUS")
    b = pbs.breakdown(game, 1)
    p = _fg_bonus_distribution(game)
    q = float(sum(p[3:]))
    ek = float(10 * p[3] + 15 * p[4] + 25 * p[5])  # games added per free game
    for n_bonus, games in ((3, 10), (4, 15), (5, 25)):
        row = t.loc[n_bonus]
        assert row["games awarded"] == games and row["multiplier"] == 2
        assert abs(row["retrigger probability per game"] - q) < 1e-15
        assert abs(row["P(at least one retrigger)"] - (1 - (1 - q) ** games)) < 1e-12
        assert abs(row["games played (mean)"] - games / (1 - ek)) < 1e-9
        assert abs(row["win per feature [x total bet]"] - b.values[f"free games selection {n_bonus}"]) < 1e-9
        assert (
            abs(
                row["win per feature [x total bet]"]
                - row["games played (mean)"] * row["win per free game [x total bet]"]
            )
            < 1e-9
        )
    assert list(t["prize [x total bet]"]) == [2, 15, 100]


def test_tables_render_with_heat_maps(game, result):
    tables = feature_tables(result.features, result.tables, game)
    shown = {t.title: t for t in tables if t.html}
    for name in ("base game", "free games", "selection"):
        t = shown[f"Lock-it coverage: {name} [P(cell covered at the end)]"]
        assert len(t.figures) == 1
        fig = t.figures[0][1]()
        assert fig.axes and "<table" in t.to_html("cov")
    assert {"Lock-it shapes", "Superlock wheel", "Free games"} <= set(shown)
    # the JSON grids are not shown twice on the page
    assert not any(t.title.startswith("Lockit coverage") for t in tables if t.html)


# ---------------------------------------------------------------------------
# feature-screen enumeration against brute force on a small grid
# ---------------------------------------------------------------------------
SMALL = (
    ["PIGGY", "PIGGY", "GUARD", "BONUS", "K", "PIGGY", "Q", "GUARD", "J", "A"],
    ["PIGGY", "WILD", "GUARD", "BONUS", "PIGGY", "PIGGY", "K", "WILD_3", "WILD_3", "WILD_3", "Q"],
    ["PIGGY_WHEEL", "PIGGY", "GUARD", "WILD", "BONUS", "Q", "PIGGY", "GUARD", "J"],
    ["PIGGY", "PIGGY", "K", "BONUS", "GUARD", "WILD", "Q", "PIGGY", "A", "GUARD"],
    ["GUARD", "PIGGY", "PIGGY", "BONUS", "WILD", "K", "GUARD", "J", "PIGGY"],
)


@pytest.fixture(scope="module")
def small_game(game):
    """The game with short base strips (9-11 stops) on which features are common."""
    from dataclasses import replace

    from slotmath.model import Strip

    sets = dict(game.reel_sets)
    sets["base"] = tuple(Strip(tuple(s), None) for s in SMALL)
    return replace(game, reel_sets=sets)


def _every_screen(g):
    """Line win [coins at bet 1], BONUS, WHEEL flag, PIGGY mask and "a feature
    starts" of every base stop combination of ``g``, by brute force."""
    from itertools import product

    from slotmath.engine.evaluate import line_wins

    wins = [windows(g, s) for s in g.strips("base")]
    combos = np.array(list(product(*[range(len(s)) for s in g.strips("base")])))
    win = np.stack([wins[r][combos[:, r]] for r in range(5)], axis=1)  # (n, R, H)
    units = line_wins(g, 1, win).sum(axis=1)  # [coins at bet 1] = [u]
    pig = np.isin(win, [g.symbol_index["PIGGY"], g.symbol_index["PIGGY_WHEEL"]])
    bonus = (win == g.symbol_index["BONUS"]).sum(axis=(1, 2))
    flag = (win == g.symbol_index["PIGGY_WHEEL"]).any(axis=(1, 2)).astype(int)
    bit = 1 << (3 * np.arange(5)[:, None] + np.arange(3)[None, :])  # cell (r, k)
    mask = (pig * bit).sum(axis=(1, 2))
    feature = (pig.sum(axis=(1, 2)) >= 6) | (bonus >= 3)
    return units, bonus, flag, mask, feature


def test_feature_screens_brute_force(small_game):
    g = small_game
    units, bonus, flag, mask, feature = _every_screen(g)
    expect = {}
    for key in zip(units[feature], bonus[feature], flag[feature], mask[feature], strict=True):
        key = tuple(int(x) for x in key)
        expect[key] = expect.get(key, 0) + 1
    sc = pbs.screens(g, "base")
    got = {
        (int(w), int(b), int(f), int(m)): int(c)
        for w, b, f, m, c in zip(sc.win, sc.bonus, sc.flag, sc.mask, sc.count, strict=True)
    }
    assert len(expect) > 50 and got == expect
    plain = np.bincount(units[~feature], minlength=len(sc.plain))
    assert np.array_equal(sc.plain, plain) and sc.cycle == len(units)


def test_feature_screen_sums_brute_force(small_game):
    """The walk with suffix tables (prefixes whose lines are all fixed are
    not expanded): sum of win x f and of [win = 0] x q over the feature
    starts, f and q random functions of (flag, BONUS, mask) that vanish off
    the feature starts, against every stop combination."""
    g = small_game
    units, bonus, flag, mask, feature = _every_screen(g)
    rng = np.random.default_rng(7)
    n_b = 16
    starts = np.zeros((2, n_b, 1 << 15), dtype=bool)
    starts[flag[feature], bonus[feature], mask[feature]] = True
    f = rng.random(starts.shape) * starts
    q = rng.integers(1, 1000, starts.shape) * starts
    expect_f = float((units * f[flag, bonus, mask]).sum())
    expect_q = int(q[flag, bonus, mask][units == 0].sum())
    win_f, quiet_q = pbs.feature_screen_sums(pbs.window_game(g, "base"), "base", 1, f, q)
    assert abs(win_f / expect_f - 1) < 1e-12 and quiet_q == expect_q
    assert expect_f > 0 and 0 < expect_q < int(q[flag, bonus, mask].sum())


@pytest.mark.parametrize("bonus,spins", [(None, None), (4, 8), (5, 10)])
def test_group_finals_equal_single_runs(game, bonus, spins):
    # base trigger: one chain run per distinct win; selection 4 and 5 BONUS
    # have fewer distinct starts than wins: one run per start, mixed per win.
    # Either way each win's final equals a run of the chain from its own start.
    source = "base_game" if bonus is None else "selection"
    groups = pbs.group_finals(game, "base", source, bonus, spins)
    sc = pbs.screens(game, "base")
    pigs = pbs.popcount15()[sc.mask] >= 6
    sel = (pigs & (sc.bonus < 3)) if bonus is None else (sc.bonus == bonus)
    chain = pbs.game_lockit_chain(game, source, spins)
    for w, cnt, fin in groups[:3] + groups[-2:]:
        rows = sel & (sc.win == w)
        start = np.zeros((2, 1 << 15))
        np.add.at(start, (sc.flag[rows], sc.mask[rows]), sc.count[rows].astype(float))
        assert cnt == int(sc.count[rows].sum())
        ref = chain.run(start / start.sum()).final
        assert np.allclose(fin, ref, rtol=1e-12, atol=1e-15)
