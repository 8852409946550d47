"""Piggy Bankin' Superlock: the numbered rules of docs/games/piggy_bankin_superlock.md."""

from fractions import Fraction as Fr

import numpy as np
import pytest

from slotmath.engine.combinations import line_rtp
from slotmath.engine.lines import compile_pays, line_pay
from slotmath.engine.reels import windows
from slotmath.features import shapes
from slotmath.features.options import load_features
from slotmath.io.gamefile import load_game
from slotmath.rules.piggy_bankin_superlock import analysis as pbs

TARGET, TOL = 0.9403, 0.00005  # 94.03 % +- 0.005 percentage points


@pytest.fixture(scope="module")
def game():
    return load_game("piggy_bankin_superlock")


def pay(game, names, level=1):
    x = np.array([game.symbol_index[n] for n in names])
    return line_pay(x, compile_pays(game, level).arrays)[0]


def test_line_examples(game):
    # rule 1.4: WILD_3 stands in for WILD's symbols: 4 x GUARD = 250 x line bet
    assert pay(game, ["GUARD", "WILD_3", "WILD_3", "GUARD", "J"]) == 250
    # rule 1.3: WILD substitutes; 5 of a kind DOG with two wilds = 500
    assert pay(game, ["DOG", "WILD", "DOG", "WILD_3", "DOG"]) == 500
    # rule 1.2: GUARD pays 2 of a kind (2), other symbols need 3
    assert pay(game, ["GUARD", "WILD", "J", "J", "J"]) == 2
    assert pay(game, ["A", "A", "K", "K", "K"]) == 0
    # rule 1.5: PIGGY and BONUS end a run; on reel 1 they pay nothing
    assert pay(game, ["Q", "Q", "PIGGY", "Q", "Q"]) == 0
    assert pay(game, ["BONUS", "WILD", "WILD", "WILD", "WILD"]) == 0
    # the simulator's line evaluation (the generic play_stops of
    # slotmath.montecarlo.linesim) agrees with the pay rules on whole windows
    # (20 lines) of the base reels and of the free-game reels, whose WILD_3
    # covers its reel (rule 3.3)
    from slotmath.montecarlo.linesim import play_stops

    rng = np.random.default_rng(3)
    s = pbs.round_sampler(game, 1)
    base, free = s.args[1], s.args[2]
    w3 = game.symbol_index["WILD_3"]
    for spin in (base, free):
        ev = spin[1]
        sym = ev[1]  # (reel, stop, row) window symbols
        n_stops = spin[0][4]
        for _ in range(100):
            stop = np.array([rng.integers(0, n) for n in n_stops], dtype=np.int64)
            win = sym[np.arange(5), stop]  # (reel, row)
            expect = sum(
                pay(game, [game.symbols[win[r, row]].name for r, row in enumerate(line)])
                for line in game.paylines
            )
            events = np.zeros(ev[0][5] + 1, dtype=np.int64)
            got = play_stops(stop, np.empty(15, dtype=np.int64), *ev, events)
            assert abs(got * 20 - expect) < 1e-9
            if spin is free:
                assert all((win[r] == w3).all() or not (win[r] == w3).any() for r in range(5))
    assert (free[1][1] == w3).sum() > (base[1][1] == w3).sum()  # the nudge did cover reels


def test_line_pays_scale_with_bet(game):
    # rule 1.1: pays x bet multiplier -> the same line RTP at every bet
    rtps = {lv: line_rtp(game, lv, "base")[0] for lv in game.levels}
    assert len(set(rtps.values())) == 1


def test_trigger_probability_by_enumeration(game):
    # rule 2.1: P(6+ PIGGY) from the Kronecker screen counts equals a direct
    # convolution of per-reel PIGGY counts (an independent route).
    sc = pbs.screen_counts(game, "base")
    pc = pbs.popcount15()
    via_masks = int(sc[:, pc >= 6, :].sum())
    pig = [game.symbol_index["PIGGY"], game.symbol_index["PIGGY_WHEEL"]]
    dist = np.array([1], dtype=object)
    for strip in game.strips("base"):
        n = np.isin(windows(game, strip), pig).sum(axis=1)
        dist = np.convolve(dist, np.bincount(n, minlength=4).astype(object))
    assert via_masks == int(dist[6:].sum())
    assert int(sc.sum()) == game.cycle("base")


def test_both_triggers_impossible(game):
    # rule 4.4: a window with BONUS shows no PIGGY and PIGGY runs are <= 2 long,
    # so 3+ BONUS leave at most 4 PIGGY: no screen has both triggers.
    st = pbs.structure(game)
    pc = pbs.popcount15()
    for screens in (st.base_screens, st.fg_screens):
        assert int(screens[:, pc >= 6, 3:].sum()) == 0
        assert int(screens[:, :, 3:].sum()) > 0 and int(screens[:, pc >= 6, :].sum()) > 0


def test_at_most_one_wheel(game):
    # rule 2.5: PIGGY_WHEEL only on reel 3 of `base` and `feature_wheel`, at
    # most one per window; none on `feature` or `free_games`.
    w = game.symbol_index["PIGGY_WHEEL"]
    for name in game.reel_sets:
        for r, strip in enumerate(game.strips(name)):
            per_window = (windows(game, strip) == w).sum(axis=1)
            assert per_window.max() <= 1
            if name in ("feature", "free_games") or r != 2:
                assert per_window.max() == 0, (name, r)


def test_free_game_lockit_has_no_wheel(game):
    # rule 3.6: lock-it features from free games respin on reels without WHEEL
    f = load_features(game)
    src = f.lockit.sources["free_games"]
    assert src.reels == "feature" and not src.mark_award
    final, _, _ = pbs.structure(game).final(("free_games", "free_games", None, None))
    assert final[1].sum() == 0


def test_shape_examples(game):
    # rule 5.2 worked examples (rows x reels, greedy, reel-major scan)
    lk = load_features(game).lockit
    names = lk.shape_names

    def packed(pic):
        m, _, _ = shapes.mask_from_picture(pic)
        return sorted((names[s], top, left) for s, top, left in shapes.pack(m, 3, 5, lk.shapes, lk.order))

    assert packed("XXX.. XXX.. .XX..") == [("2x1", 0, 0), ("3x2", 0, 1)]
    assert packed("XX.XX XX.XX XXXXX") == [("1x1", 2, 2), ("3x2", 0, 0), ("3x2", 0, 3)]
    assert packed("XXXXX XXXXX XXXXX") == [("3x5", 0, 0)]
    assert packed("..... ..... XXXXX") == [("1x1", 2, r) for r in range(5)]
    # every held cell is in exactly one shape, for every mask
    counts = pbs.structure(game).shape_counts
    cells = np.array([a * b for a, b in lk.shapes])
    assert np.array_equal(counts @ cells, pbs.popcount15())


PUBLISHED = {
    "3x5": (100, 2500, {"GRAND", "MAJOR", "MINOR"}),
    "3x4": (50, 1000, {"MAJOR", "MINOR"}),
    "2x5": (40, 1000, {"MAJOR", "MINOR", "MINI"}),
    "3x3": (30, 1000, {"MINOR", "MINI"}),
    "2x4": (15, 100, {"MINOR", "MINI"}),
    "3x2": (12, 100, {"MINOR", "MINI"}),
    "2x3": (12, 100, {"MINOR", "MINI"}),
    "2x2": (4, 100, {"MINOR", "MINI"}),
    "3x1": (5, 5, set()),
    "2x1": (3, 3, set()),
    "1x1": (1, 1, set()),
}


def test_award_tables_respect_published_ranges(game):
    f = load_features(game)
    assert f.jackpots == {"MINI": 10, "MINOR": 100, "MAJOR": 1000, "GRAND": 2500}
    for name in f.lockit.awards.tables:
        for lv in game.levels:
            for shape, awards in zip(f.lockit.shape_names, f.lockit.awards.table(name, lv), strict=True):
                lo, hi, jps = PUBLISHED[shape]
                for a in awards:
                    if a.label in f.jackpots:
                        assert a.label in jps, (name, lv, shape, a.label)
                    else:
                        assert lo <= a.value <= hi, (name, lv, shape, a.value)
    # rule 6.2: jackpot chance grows with the bet, the mean award does not move
    lk = f.lockit
    for s, shape in enumerate(lk.shape_names[:8]):
        p_jp = [
            sum(a.weight for a in lk.awards.table("trigger", lv)[s] if a.label in f.jackpots)
            for lv in game.levels
        ]
        assert p_jp == sorted(p_jp) and p_jp[0] < p_jp[-1], shape
        means = [float(lk.awards.moments("trigger", lv)[0][s]) for lv in game.levels]
        assert max(means) - min(means) <= 1e-5 * means[0]


def test_wheel(game):
    # rule 7: 1/500 SUPERLOCK (10,000x) before the wheel, else a weighted segment
    from slotmath.features import wheel

    w = load_features(game).wheel
    assert (w.pre_prize, w.pre_probability) == (10000, Fr(1, 500))
    out = wheel.outcomes(w)
    assert sum(p for _, _, p in out) == 1
    assert {lab for lab, _, _ in out} >= {"MINI", "MINOR", "MAJOR", "GRAND", "SUPERLOCK"}
    assert sorted(int(v) for lab, v, _ in out if lab.isdigit()) == [
        25,
        50,
        75,
        150,
        200,
        250,
        300,
        350,
        400,
        500,
        750,
    ]
    mean, _ = wheel.moments(w)
    # by hand (rule 7.2): sum of weight x value over the segments
    #   MINI 300x10 + MINOR 60x100 + MAJOR 4x1000 + GRAND 1x2500 = 15,500
    #   25x250 + 50x150 + 75x100 + 150x50 + 200x30 + 250x20 = 39,750
    #   300x12 + 350x8 + 400x6 + 500x4 + 750x2 = 12,300          -> 67,550 over weight 997
    #   mean = 10000/500 + 499/500 * 67550/997 = 20 + 33,707,450/498,500 = 873,549/9,970
    #        = 87.6178 x total bet
    assert sum(wt for *_, wt in w.segments) == 997
    assert sum(v * wt for _, v, wt in w.segments) == 67550
    assert mean == Fr(873549, 9970)


@pytest.fixture(scope="module")
def breakdowns(game):
    return {lv: pbs.breakdown(game, lv) for lv in game.levels}


def test_rtp_every_bet_and_policy(breakdowns):
    for lv, b in breakdowns.items():
        for policy, rtp in b.rtp.items():
            assert abs(rtp - TARGET) <= TOL, (lv, policy, rtp)
            assert abs(sum(float(v) for v in b.components[policy].values()) - rtp) < 1e-12


def test_choices_are_worth_the_same(breakdowns):
    # rule 4.3: for 3, 4, 5 BONUS the lock-it and the free games have equal value; the free
    # games are worth 10, 15, 25 awarded games x one game's value (2.8886 x total bet, x2
    # and retriggers included): 28.886, 43.329, 72.215 as the rules document quotes them
    for b in breakdowns.values():
        one = b.values["free game (one, incl. retriggers)"]
        assert round(one, 4) == 2.8886
        for n, games, quoted in ((3, 10, 28.886), (4, 15, 43.329), (5, 25, 72.215)):
            lk, fg = b.values[f"lockit selection {n}"], b.values[f"free games selection {n}"]
            assert fg == pytest.approx(games * one, rel=1e-15)
            assert abs(lk - fg) <= 1.4e-6 * fg, (n, lk, fg)
            assert round(lk, 3) == round(fg, 3) == quoted


def test_selection_tables(game):
    # rules 6.2 and 6.3: each shape's mean award is the same at every bet to 8e-6 relative
    # (integer weights); the selection tables' means are the trigger table's x 0.89673,
    # 0.53684, 0.60745 (to 1e-5) for shapes 1-8 (lower), equal for 3x1, 2x1, 1x1; jackpot weights of
    # shapes 1-3 are the trigger table's x 1, 1.25, 1.5 (e.g. 3x5 GRAND at bet 1:
    # 10000, 12500, 15000)
    awards = load_features(game).lockit.awards
    names = ("trigger", "selection_3", "selection_4", "selection_5")
    means = {t: np.array([[float(m) for m in awards.moments(t, lv)[0]] for lv in game.levels]) for t in names}
    for t in names:
        spread = (means[t].max(axis=0) - means[t].min(axis=0)) / means[t].min(axis=0)
        assert spread.max() < 8e-6, t
    factors = {"selection_3": (0.89673, 1), "selection_4": (0.53684, 1.25), "selection_5": (0.60745, 1.5)}
    for t, (factor, jackpot) in factors.items():
        ratio = means[t] / means["trigger"]
        assert np.abs(ratio[:, :8] - factor).max() < 1e-5, t
        assert np.array_equal(ratio[:, 8:], np.ones((len(game.levels), 3))), t
        for lv in game.levels:
            for s in range(3):
                base = {a.label: a.weight for a in awards.table("trigger", lv)[s] if not a.label.isdigit()}
                sel = {a.label: a.weight for a in awards.table(t, lv)[s] if not a.label.isdigit()}
                assert set(base) == set(sel) and base
                assert all(sel[k] == round(jackpot * base[k]) for k in base), (t, lv, s)


def test_components_named_by_channel(breakdowns):
    comps = breakdowns[1].components
    assert {"base lines", "selection prizes", "wheel", "Superlock jackpot"} <= set(comps["lockit"])
    assert any(k.startswith("lock-it base game: ") for k in comps["lockit"])
    assert any(k.startswith("lock-it selection 3: ") for k in comps["lockit"])
    assert any(k.startswith("lock-it free games: ") for k in comps["free_games"])
    assert {"free games lines", "free games prizes"} <= set(comps["free_games"])
    # selection prizes by hand: P(3) 2 + P(4) 15 + P(5) 100 from the BONUS counts
    st = pbs.structure(breakdowns[1].shapes.attrs.get("game") or load_game("piggy_bankin_superlock"))
    by = st.base_screens.sum(axis=(0, 1))
    cyc = st.cycles["base_game"]
    assert comps["lockit"]["selection prizes"] == Fr(2 * int(by[3]) + 15 * int(by[4]) + 100 * int(by[5]), cyc)


def test_one_bonus_threshold_is_required(tmp_path):
    # The selection (base game) and the free-games retrigger both start at 3 BONUS (rules 4,
    # 3.4); the exact engine counts feature starts with one threshold, so a file where the
    # selection starts at 4 is refused with one line naming the field, exit status 2.
    import shutil
    import subprocess
    import sys

    src = load_game("piggy_bankin_superlock").source
    folder = tmp_path / "piggy"
    shutil.copytree(__import__("pathlib").Path(src).parent, folder)
    text = (folder / "game.yaml").read_text()
    bad = text.replace("      3: {prize: 2, lockit: {spins: 5, awards: selection_3}, free_games: 10}\n", "")
    assert bad != text
    (folder / "game.yaml").write_text(bad)
    proc = subprocess.run(
        [sys.executable, "-m", "slotmath.cli", "validate", str(folder)], capture_output=True, text=True
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "options.selection" in lines[0] and "Traceback" not in proc.stderr
    assert "starts at 4 BONUS" in lines[0]


def test_free_games_cap_is_refused(game):
    # the exact free games of these rules have no cap on games: a declared
    # max_games would be ignored, so the game file is refused naming it
    from dataclasses import replace

    from slotmath.io.gamefile import GameFileError
    from slotmath.rules.piggy_bankin_superlock.check import check

    opts = dict(game.options)
    opts["free_games"] = {**opts["free_games"], "max_games": 50}
    with pytest.raises(GameFileError) as err:
        check(replace(game, options=opts))
    assert err.value.field == "options.free_games.max_games"
