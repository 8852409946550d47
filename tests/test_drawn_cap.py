"""A round cap (``options.round_cap``) on a game whose drawn wild multipliers
do not fit as stops: the round's law without the rewrite, capped (every
win above the cap pays the cap), against a plain-Python listing of every
base window, every draw of its wilds and every free game with its
retriggers, capped the same way (the spin alone; free games after base
reels without the drawn wild; free games after base reels showing it),
and the compiled sampler (|z| < 4)."""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest
from test_drawn_base import BET, CASES, brute_round, drawn_game
from test_drawn_free import brute_round_no_retrigger, free_game
from test_drawn_law import TINY_TABLE, brute_law, sampled_wins, tiny_game, z_of

from slotmath.io.gamefile import load_game
from slotmath.rules.linegame import analyse, drawn_law_refusal, drawn_too_large


def with_cap(game, cap: F):
    """``game`` with ``options.round_cap: cap`` [x total bet] written into its file."""
    path = Path(game.source)
    text = path.read_text(encoding="utf-8")
    assert "\noptions:\n" in text
    path.write_text(text.replace("\noptions:\n", f"\noptions:\n  round_cap: {cap}\n"), encoding="utf-8")
    return load_game(path)


def capped(law: dict, cap: F) -> dict:
    """``{min(win, cap): P}`` of ``law`` [x total bet]."""
    out: dict = {}
    for w, p in law.items():
        out[min(w, cap)] = out.get(min(w, cap), 0) + p
    return out


def assert_capped(result, law: dict, cap: F, rel: float) -> None:
    """``result`` is the uncapped brute-force ``law`` [x total bet] capped at
    ``cap``: the RTP E[min(W, cap)] and its round_cap component
    -E[(W - cap)+] within ``rel`` (float, from the float law), the
    distribution win by win within 1e-12, the hit frequency, SD and max win
    (the cap, at the brute force's P(W >= cap))."""
    law_c = capped(law, cap)
    cut = sum(((w - cap) * p for w, p in law.items() if w > cap), F(0))
    assert cut > 0 and max(law) > cap  # the cap bites
    mean = sum((w * p for w, p in law_c.items()), F(0))
    assert mean == sum((w * p for w, p in law.items()), F(0)) - cut
    assert isinstance(result.rtp, float) and result.rtp == pytest.approx(float(mean), rel=rel)
    assert -result.components["round_cap"] == pytest.approx(float(cut), rel=rel)
    uncapped = sum((v for k, v in result.components.items() if k != "round_cap"), F(0))
    assert uncapped == sum((w * p for w, p in law.items()), F(0))  # exact
    dist = result.distribution
    got = {
        F(int(w), dist.unit_den * dist.total_bet): float(p)
        for w, p in zip(dist.wins, dist.probabilities, strict=True)
    }
    for w, p in law_c.items():
        assert abs(got.get(w, 0.0) - float(p)) <= 1e-12, (w, got.get(w), float(p))
    assert sum(p for w, p in got.items() if w not in law_c) < 1e-12
    assert max(got) == cap
    hit = float(sum(p for w, p in law_c.items() if w > 0))
    assert result.hit_frequency == pytest.approx(hit, rel=1e-12)
    sd = float(sum((w - mean) ** 2 * p for w, p in law_c.items())) ** 0.5
    assert result.sd == pytest.approx(sd, rel=1e-10)
    assert result.max_win.value == cap and not result.max_win.exact
    assert result.max_win.probability == pytest.approx(float(law_c[cap]), rel=1e-12)
    assert any(n.startswith("Round cap: a round pays at most") for n in result.notes)


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_a_capped_spin_is_the_brute_force_capped(write_game, combine):
    # tests/test_drawn_law.py's tiny game (no feature; its draws do not fit
    # as stops, the spin law from the draw profiles), capped at 40 x total
    # bet (120 coins: the V W W W pays 100 or 8 x the sum of its three draws)
    game = with_cap(tiny_game(write_game, combine), F(40))
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    law = {
        F(w, 3): p
        for w, p in brute_law([s.symbols for s in game.strips("base")], TINY_TABLE, combine).items()
    }
    assert_capped(result, law, F(40), 1e-13)
    assert any("Under the round cap the RTP is the exact one less the cap's cut" in n for n in result.notes)


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_capped_free_games_after_base_reels_without_the_wild(write_game, combine):
    # tests/test_drawn_free.py's game (the base reels show no W, so the base
    # law is the undrawn game's exact one; the free spin's law float), no
    # retriggers, capped at 20 x total bet (60 coins)
    game = with_cap(free_game(write_game, combine, False), F(20))
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    law = {F(win, 3): p for win, p in brute_round_no_retrigger(game, combine).items()}
    assert_capped(analyse(game, 1), law, F(20), 1e-9)


@pytest.mark.parametrize(("case", "combine"), [("plain", "add"), ("plain", "multiply"), ("prizes", "add")])
def test_a_capped_round_with_drawn_base_reels_is_the_brute_force(write_game, refused, case, combine):
    # tests/test_drawn_base.py's games (the base reels show W: the base law
    # float from its draw profiles; free games retrigger to max_games 3),
    # capped at 30 x total bet (90 coins)
    game = with_cap(drawn_game(write_game, case, combine), F(30))
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    result = analyse(game, 1)
    assert_capped(result, brute_round(game, case, combine), F(30), 1e-9)
    assert any("Under the round cap the RTP is that exact RTP less the cap's cut" in n for n in result.notes)
    assert CASES[case][4] == 3


@pytest.mark.parametrize(("case", "combine"), [("plain", "add"), ("prizes", "multiply")])
def test_the_sampler_agrees_with_the_capped_drawn_round(write_game, refused, case, combine):
    # the compiled round sampler draws each W in the window and caps the
    # round: its mean, hit frequency, P(win = cap) and second moment against
    # `par`'s capped round, |z| < 4 over 300,000 rounds
    from slotmath.rules.linegame import round_sampler

    cap = F(30)
    game = with_cap(drawn_game(write_game, case, combine), cap)
    result = analyse(game, 1)
    x = sampled_wins(round_sampler(game, 1), 300_000, 13)  # [x total bet]
    assert x.max() <= float(cap) + 1e-9
    assert abs(z_of(x, result.rtp)) < 4
    hit = (x > 0).astype(float)
    assert 0 < result.hit_frequency < 1 and abs(z_of(hit, result.hit_frequency)) < 4
    at_cap = (np.abs(x - float(cap)) < 1e-9).astype(float)
    assert at_cap.sum() > 10 and abs(z_of(at_cap, result.max_win.probability)) < 4
    second = result.sd**2 + result.rtp**2
    assert abs(z_of(np.square(x), second)) < 4, (np.square(x).mean(), second)


def test_a_capped_game_refused_by_cost_gives_its_uncapped_exact_rtp(write_game, monkeypatch):
    # above the window bound the distribution (and so the cap's cut) is
    # refused in one line, which gives the exact RTP before the cap
    import slotmath.features.drawnlaw as drawnlaw
    from slotmath.engine.limits import EngineTooLarge

    monkeypatch.setattr(drawnlaw, "MAX_DRAWN_WINDOWS", 99)
    game = with_cap(tiny_game(write_game, "add"), F(40))
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    message = str(err.value)
    assert "\n" not in message and "exact RTP before options.round_cap's cut is" in message
    law = brute_law([s.symbols for s in game.strips("base")], TINY_TABLE, "add")
    rtp = sum((F(w, BET) * p for w, p in law.items()), F(0))
    assert f"{float(rtp):.6%}" in message


def test_the_worked_example_by_hand(tmp_path):
    # docs/features.md, "a round cap on drawn wilds": 8 windows of 1/8,
    # reel 3 must show A; A A A pays 1, W A A and A W A pay m (2 or 4),
    # W W A pays m1 x m2 (4, 8 or 16).  Uncapped RTP (1 + 2 E[m] + E[m]^2) / 8;
    # the cap 5 cuts 8 and 16 by 3 and 11; max win 5 at (2 q2 q4 + q4^2) / 8
    from conftest import docs_example

    game, section = docs_example(tmp_path, "### Worked example: a round cap on drawn wilds")
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    total = 3 * 2**30 + 1 + 2**30
    q2, q4 = F(3 * 2**30 + 1, total), F(2**30, total)
    assert total == 2**32 + 1 and q2 > F(3, 4)
    mean_m = 2 * q2 + 4 * q4
    uncapped = (1 + 2 * mean_m + mean_m**2) / 8
    cut = (3 * 2 * q2 * q4 + 11 * q4**2) / 8
    top = (2 * q2 * q4 + q4**2) / 8
    result = analyse(game, 1)
    assert result.components["lines"] == uncapped  # exact
    assert result.rtp == pytest.approx(float(uncapped - cut), rel=1e-14)
    assert result.components["round_cap"] == pytest.approx(-float(cut), rel=1e-14)
    assert result.hit_frequency == pytest.approx(0.5, rel=1e-14)
    assert result.max_win.value == 5 and result.max_win.probability == pytest.approx(float(top), rel=1e-14)
    # the docs' rounded figures
    text = " ".join(section.split())
    assert f"`{float(uncapped):.5f}`" in text and f"`{float(cut):.7f}`" in text
    assert f"`{float(uncapped - cut):.5%}`".replace("%", " %") in text
    assert f"1 in {float(1 / top):.2f}" in text


@pytest.mark.parametrize("combine", ["multiply", "add"])
def test_a_capped_ways_spin_is_the_brute_force_capped(write_game, combine):
    # tests/test_drawn_ways_law.py's ways game (W drawing x2 / x3 on weights
    # that do not fit as stops, the by_count wild V, 2+ S paying 1 x total
    # bet), capped at half its largest win: the brute force listing of every
    # stop vector and draw, capped
    from test_drawn_ways_sampler import TABLE, WEIGHTS
    from test_wild_multipliers_ways import BASE, game_text, spin_law, win_law

    law = win_law(spin_law(BASE, combine, table=TABLE))
    cap = F(int(max(law)) // 2)
    game = load_game(write_game(game_text(combine).replace("[[2, 3], [3, 1]]", WEIGHTS)))
    game = with_cap(game, cap)
    assert drawn_too_large(game) and drawn_law_refusal(game) is None
    assert_capped(analyse(game, 1), law, cap, 1e-13)
