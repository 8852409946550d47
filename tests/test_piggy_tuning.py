"""Piggy Bankin' Superlock: caches shared by games that differ only in their
base reels, and the tuning hook (exact figures fast after a base-reel change)."""

from dataclasses import replace
from fractions import Fraction as Fr

import numpy as np
import pytest

from slotmath.analysis.metrics import game_figures
from slotmath.engine.cache import rules_key
from slotmath.engine.reels import windows
from slotmath.io.gamefile import load_game
from slotmath.model import Strip
from slotmath.rules.piggy_bankin_superlock import analysis as pbs


@pytest.fixture(scope="module")
def game():
    return load_game("piggy_bankin_superlock")


def with_strip(game, reel_set, reel, symbols):
    sets = dict(game.reel_sets)
    strips = list(game.strips(reel_set))
    strips[reel] = Strip(tuple(symbols))
    sets[reel_set] = tuple(strips)
    return replace(game, reel_sets=sets)


@pytest.fixture(scope="module")
def changed(game):
    """Base reel 1 rotated by 5 stops, one K added and one PIGGY more."""
    s = game.strips("base")[0].symbols
    return with_strip(game, "base", 0, s[5:] + s[:5] + ("K", "PIGGY"))


def test_feature_caches_shared_across_base_reels(game, changed):
    pbs.breakdown(game, 1)
    pbs.breakdown(changed, 1)
    # feature parts are the same objects; base-game parts are recomputed
    assert pbs.game_lockit_chain(changed, "base_game", None) is pbs.game_lockit_chain(game, "base_game", None)
    assert pbs.prizes(changed, "trigger", 1) is pbs.prizes(game, "trigger", 1)
    key = ("free_games", "free_games", None, None)
    assert pbs.final_law(changed, key) is pbs.final_law(game, key)
    base_key = ("base_game", "base_game", None, None)
    assert pbs.final_law(changed, base_key) is not pbs.final_law(game, base_key)
    assert not np.array_equal(pbs.screen_counts(changed, "base"), pbs.screen_counts(game, "base"))
    # a new feature reel or award table is a new key
    f = game.strips("feature")[0].symbols
    feat = with_strip(game, "feature", 0, f[1:] + f[:1])
    assert pbs.game_lockit_chain(feat, "base_game", None) is not pbs.game_lockit_chain(
        game, "base_game", None
    )
    opts = dict(game.options)
    opts["jackpots"] = dict(opts["jackpots"], MINI=11)
    assert rules_key(replace(game, options=opts)) != rules_key(game)
    assert rules_key(changed) == rules_key(game)


def _feature_count(game):
    """Base stop combinations with 6+ PIGGY or 3+ BONUS, from each reel's
    (PIGGY, BONUS) window counts convolved (independent of the screen counts)."""
    pig = [game.symbol_index["PIGGY"], game.symbol_index["PIGGY_WHEEL"]]
    bonus = game.symbol_index["BONUS"]
    joint = np.zeros((16, 16), dtype=object)
    joint[0, 0] = 1
    for strip in game.strips("base"):
        w = windows(game, strip)
        per = np.zeros((4, 4), dtype=object)
        for p, b in zip(np.isin(w, pig).sum(axis=1), (w == bonus).sum(axis=1), strict=True):
            per[p, b] += 1
        new = np.zeros_like(joint)
        for p, b in zip(*np.nonzero(per), strict=True):
            new[p:, b:] += per[p, b] * joint[: 16 - p, : 16 - b]
        joint = new
    total = int(joint.sum())
    feature = int(joint[6:, :].sum() + joint[:6, 3:].sum())
    trig = int(joint[6:, :].sum())
    sel = int(joint[:, 3:].sum())
    return feature, trig, sel, total


@pytest.mark.parametrize("which", ["committed", "changed"])
def test_hook_equals_breakdown(game, changed, which):
    g = game if which == "committed" else changed
    for level in (1, 10):
        h = pbs.tuning_figures(g, level)
        b = pbs.breakdown(g, level)
        assert abs(h["rtp"] - b.rtp["lockit"]) < 1e-12
        for policy in pbs.POLICIES:
            assert abs(h[f"feature:by_choice.{policy}"] - b.rtp[policy]) < 1e-12
        assert h["rtp:base lines"] == b.components["lockit"]["base lines"]
        assert h["rtp:selection prizes"] == b.components["lockit"]["selection prizes"]
    feature, trig, sel, total = _feature_count(g)
    assert total == g.cycle("base")
    assert h["feature_frequency"] == Fr(feature, total)
    assert h["lockit_one_in"] == Fr(total, trig)
    assert h["selection_one_in"] == Fr(total, sel)
    assert abs(float(h["lockit_one_in"]) * b.odds["lockit base game"] - 1) < 1e-12


def test_figures_come_from_the_hook(changed):
    figs = game_figures(changed, 1)
    hook = pbs.tuning_figures(changed, 1)
    assert figs["rtp"] == hook["rtp"]
    # every figure asked for (needed=None): the whole round's from round_moments
    moments = pbs.round_moments(changed, 1, hook["rtp"])
    for name in ("hit_frequency", "sd", "vi"):
        assert figs[name] == hook[name] == moments[name]
    # only the RTP asked for: the round moments are not computed
    rtp_only = game_figures(changed, 1, needed={"rtp"})
    assert rtp_only["rtp"] == hook["rtp"] and "sd" not in rtp_only
    assert game_figures(changed, 1, needed={"rtp", "sd"})["sd"] == hook["sd"]


@pytest.mark.slow  # two round distributions, ~15-40 s each
@pytest.mark.parametrize("which", ["committed", "changed"])
def test_round_moments_equal_the_round_distribution(game, changed, which):
    """Hit frequency and SD of the whole round from the moments (no
    distribution) against the round distribution of ``analyse`` (policy
    lock-it); they share only the chains' value/forward runs' inputs."""
    g = game if which == "committed" else changed
    rtp = pbs.tuning_figures(g, 1)["rtp"]
    m = pbs.round_moments(g, 1, rtp)
    d = pbs.win_distribution(g, 1, "lockit")
    assert abs(float(d.mean) - rtp) < 1e-9
    assert abs(float(m["hit_frequency"]) / float(d.hit_frequency) - 1) < 1e-9
    assert abs(m["second_moment"] / float(d.second_moment) - 1) < 1e-9
    assert abs(m["sd"] / d.sd - 1) < 1e-9
    assert abs(m["vi"] / d.volatility_index(0.90) - 1) < 1e-9
    # every feature start pays: the hit frequency is the line hits plus the
    # feature starts with no line win, an exact fraction of the cycle
    assert pbs.features_always_pay(g, 1)
    assert isinstance(m["hit_frequency"], Fr)
    assert (m["hit_frequency"] * g.cycle("base")).denominator == 1


@pytest.mark.slow  # one tuning run on exact round figures, ~40 s
def test_a_vi_band_is_met_on_the_exact_round_figures(game, tmp_path, capsys):
    """``slotmath tune piggy_bankin_superlock --vi 27.9:28.4``: the committed
    base reels have VI 28.26 (bet 1) to 28.45 (bet 10), so the bet-10 VI
    must fall; the hook gives the whole round's VI exactly on every
    candidate.  The written game (in another folder: its award table is
    still found) meets the band and the RTP at every bet level."""
    from slotmath.cli import main

    before = {lv: pbs.tuning_figures(game, lv)["vi"] for lv in game.levels}
    assert before[10] > 28.4 and all(27.9 <= v for v in before.values())
    out = tmp_path / "tuned" / "game.yaml"
    argv = [
        "tune",
        "piggy_bankin_superlock",
        "--target-rtp",
        "94.03%",
        "--vi",
        "27.9:28.4",
        "--out",
        str(out),
    ]
    assert main(argv) == 0, capsys.readouterr().out
    tuned = load_game(out)
    assert tuned.strips("base") != game.strips("base")
    for lv in tuned.levels:
        figs = pbs.tuning_figures(tuned, lv)
        assert 27.9 <= figs["vi"] <= 28.4
        for name in ("rtp", "feature:by_choice.lockit", "feature:by_choice.free_games"):
            assert abs(figs[name] - 0.9403) <= 0.00005


def test_screen_values_read_the_chains_value_functions(game):
    """E[F | screen] and E[F^2 | screen] on three screens, against the value
    functions of the chains (layouts [flag, BONUS, mask] and [flag, mask,
    BONUS]): 6 PIGGY with a WHEEL and no BONUS play the base lock-it only; 2
    PIGGY and 3 BONUS the selection (its prize + its lock-it); 2 PIGGY and 2
    BONUS nothing."""
    f = pbs.structure(game).features
    lk, sel = f.lockit, f.selection
    sv = pbs.screen_values(game, 1, (0, 1, 2, 3, 4, 5))
    v = pbs.lockit_values(game, pbs.BASE, None, lk.sources[pbs.BASE].awards, 1)
    v2 = pbs.lockit_second_values(game, pbs.BASE, None, lk.sources[pbs.BASE].awards, 1)
    six, two = 0b111111, 0b11  # cells 1-6, cells 1-2
    assert sv.ef_fbm[1, 0, six] == v[1, six] > 0 and sv.ef2_fmb[1, six, 0] == v2[1, six]
    assert sv.ef_fbm[0, 0, six] == v[0, six] != v[1, six]  # the WHEEL counts
    o = sel.option(3)
    w = pbs.lockit_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, 1)
    w2 = pbs.lockit_second_values(game, sel.lockit_source, o.lockit_spins, o.lockit_awards, 1)
    p = float(o.prize)
    assert sv.ef_fbm[0, 3, two] == pytest.approx(p + w[0, two], rel=1e-15)
    assert sv.ef2_fmb[0, two, 3] == pytest.approx(p * p + 2 * p * w[0, two] + w2[0, two], rel=1e-15)
    assert sv.ef_fbm[0, 2, two] == sv.ef2_fmb[0, two, 2] == 0
    assert [sv.starts_fbm[1, 0, six], sv.starts_fbm[0, 3, two], sv.starts_fbm[0, 2, two]] == [1, 1, 0]
