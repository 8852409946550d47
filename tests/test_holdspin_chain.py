"""Tests for slotmath.features.holdspin_chain: the hold-and-spin's respin
chain on the total count and on per-reel counts.

Proved against the mask chain (:class:`slotmath.features.lockit.LockIt`,
exact Fractions) on small random grids and on the example game, by hand
(a closed form of the countdown rule and a 2-cell reset chain worked in the
comments), and by the refusals of the cost check.
"""

import itertools
import random
import time
from fractions import Fraction as Fr

import numpy as np
import pytest
import yaml

from slotmath.features.holdspin import (
    chain_state,
    count_laws,
    final_count_laws,
    hold_and_spin_means,
    load_hold_and_spin,
    mask_final_count_laws,
    mask_means,
    trigger_keys,
)
from slotmath.features.holdspin_chain import (
    count_chain_values,
    count_grid,
    reel_count_laws,
    total_count_laws,
    total_count_values,
)
from slotmath.features.landing import popcount
from slotmath.features.lockit import Landing, LockIt
from slotmath.io.gamefile import GameFileError, load_game


def mask_laws(p_cells, respins, rule):
    """Exact law of the final count from every mask: shape (cells + 1, 2**cells)."""
    H, R = len(p_cells), len(p_cells[0])
    chain = LockIt(Landing.from_cells([list(r) for r in p_cells]), respins, rule, exact=True)
    pc = popcount(H * R)
    return np.stack(
        [chain.values(np.array([int(x == n) for x in pc], dtype=object))[0] for n in range(H * R + 1)]
    )


def key_mask(key, H):
    """A start mask (lowest rows held) with per-reel counts ``key``."""
    return sum(((1 << c) - 1) << (r * H) for r, c in enumerate(key))


GRIDS = [(1, 3), (2, 2), (2, 3), (3, 2), (1, 5), (3, 1)]


@pytest.mark.parametrize("rule", ["reset", "countdown"])
@pytest.mark.parametrize("seed", range(3))
def test_count_chains_equal_mask_chain_on_random_grids(seed, rule):
    """Random grids of at most 6 cells, random per-reel probabilities and
    respins: the per-reel count chain's final-count law from every start
    equals the mask chain's exactly; with one probability for every cell, so
    does the total-count chain."""
    rng = random.Random(100 * seed + len(rule))
    H, R = GRIDS[rng.randrange(len(GRIDS))]
    respins = rng.randint(1, 3)
    p = [Fr(rng.randint(1, 9), 10) for _ in range(R)]
    V = mask_laws([p] * H, respins, rule)
    laws = reel_count_laws(p, H, respins, rule, exact=True)
    for key in itertools.product(range(H + 1), repeat=R):
        assert list(laws[key]) == list(V[:, key_mask(key, H)])
    q = p[0]
    V = mask_laws([[q] * R] * H, respins, rule)
    total = total_count_laws(q, H * R, respins, rule, exact=True)
    for mask in range(1 << (H * R)):
        assert list(total[bin(mask).count("1")]) == list(V[:, mask])


def game_data(H, R, feature, rng):
    base = [["COIN", "A", "B", "COIN", "B", "A"][: rng.randint(3, 6)] for _ in range(R)]
    return {
        "name": "chain",
        "title": "random hold-and-spin",
        "grid": {"reels": R, "rows": H},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "B"}, {"name": "COIN", "kind": "special"}],
        "paylines": [[k] * R for k in range(H)],
        "pays": [{"symbol": "A", "count": R, "pay": 4}],
        "reels": {"base": base},
        "options": {
            "jackpots": {"GRAND": 50},
            "hold_and_spin": {
                "symbol": "COIN",
                "trigger": 1,
                "values": [{"prize": 1, "weight": 3}, {"prize": 2, "weight": 1}],
                "start_values": [{"prize": 3, "weight": 1}, {"prize": 1, "weight": 1}],
                "full_screen": "GRAND",
                **feature,
            },
        },
    }


def write_game(tmp_path, data):
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return load_game(tmp_path / "game.yaml")


@pytest.mark.parametrize("alike", [True, False], ids=["total", "reels"])
@pytest.mark.parametrize("seed", range(3))
def test_game_laws_and_rtp_equal_mask_chain(tmp_path, seed, alike):
    """Small random games: the final-count law of every triggering key and
    the feature's exact RTP (sum of P(key) x mean) from the count chains
    equal the mask chain's (exact Fractions, start masks averaged over the
    base strips) exactly."""
    rng = random.Random(seed)
    H, R = GRIDS[rng.randrange(len(GRIDS))]
    p = [f"{rng.randint(1, 9)}/10" for _ in range(R)]
    if alike:
        p = [p[0]] * R
    feature = {"respins": rng.randint(1, 3), "rule": rng.choice(["reset", "countdown"])}
    feature["probabilities"] = [p] * H
    game = write_game(tmp_path, game_data(H, R, feature, rng))
    spec = load_hold_and_spin(game)
    assert (
        chain_state(game, spec).kind == "total"
        if alike
        else chain_state(game, spec).kind in ("total", "reels")
    )
    new = final_count_laws(game, spec, exact=True)
    old = mask_final_count_laws(game, spec, True)
    assert new.keys() == old.keys() and new
    for key in new:
        assert list(new[key]) == list(old[key])
    probs = trigger_keys(game, spec)
    means = hold_and_spin_means(game, 1, spec)
    by_mask = mask_means(game, spec, exact=True)
    # the mask chain's RTP: per key, the mask means averaged over the start masks the base strips give
    rtp_masks = Fr(0)
    from slotmath.features.holdspin import pattern_counts

    pats = pattern_counts(game, spec.base_reels, spec.symbol)
    total = 1
    for row in pats:
        total *= int(row.sum())
    for choice in itertools.product(range(1 << H), repeat=R):
        w = 1
        for r, pat in enumerate(choice):
            w *= int(pats[r][pat])
        mask = sum(pat << (r * H) for r, pat in enumerate(choice))
        if w and bin(mask).count("1") >= spec.trigger:
            rtp_masks += Fr(w, total) * by_mask[mask]
    rtp = sum((probs[k] * means[k] for k in probs), Fr(0))
    assert isinstance(rtp, Fr) and rtp == rtp_masks


def test_example_game_total_chain():
    """data/games/hold_and_spin: every cell lands a COIN with 1/20, so the
    chain runs on the total count (16 states); its laws equal the float64
    mask chain's (2**15 masks) to 1e-12 and its exact means equal the
    per-reel count chain's (1,024 states) exactly."""
    game = load_game("hold_and_spin")
    spec = load_hold_and_spin(game)
    state = chain_state(game, spec)
    assert (state.kind, state.states) == ("total", 16)
    new = final_count_laws(game, spec)
    old = mask_final_count_laws(game, spec, False)
    for key in new:
        assert np.allclose(np.array(new[key], dtype=float), old[key], rtol=1e-12, atol=1e-15)
    ev, _ = spec.table_moments(spec.values)
    f = count_grid(3, 5) * ev
    f[(3,) * 5] += spec.full_screen
    V = count_chain_values([Fr(1, 20)] * 5, 3, spec.respins, spec.rule, f)
    means = hold_and_spin_means(game, 1, spec)
    assert all(V[k] == means[k] for k in means)  # start values = values here


def test_countdown_closed_form_on_64_cells():
    """Countdown: a cell empty at the start fills within N respins with
    1 - (1 - p)^N, independently of the others, so the final count from n is
    n + Binomial(64 - n, 1 - (1 - p)^N)."""
    from math import comb

    p, N, cells = Fr(1, 20), 3, 64
    L = total_count_laws(p, cells, N, "countdown")
    q = 1 - (1 - p) ** N
    for n in (0, 6, 40, 64):
        want = [Fr(0)] * n + [
            comb(cells - n, k) * q**k * (1 - q) ** (cells - n - k) for k in range(cells - n + 1)
        ]
        assert list(L[n]) == want


def test_reset_by_hand():
    """2 cells, p = 1/2, 1 respin, reset, from 0 coins:
    the respin lands 0 coins (1/4: ends with 0), 1 coin (1/2: then 1 respin on
    one cell: 1/2 ends with 1, 1/2 with 2) or 2 (1/4), so
    P(0) = 1/4, P(1) = 1/4, P(2) = 1/4 + 1/4 = 1/2.  With 2 respins from 1 coin:
    P(1) = (1/2)^2 = 1/4, P(2) = 3/4."""
    L = total_count_laws(Fr(1, 2), 2, 1, "reset")
    assert list(L[0]) == [Fr(1, 4), Fr(1, 4), Fr(1, 2)]
    assert list(total_count_laws(Fr(1, 2), 2, 2, "reset")[1]) == [0, Fr(1, 4), Fr(3, 4)]
    f = np.array([Fr(0), Fr(1), Fr(10)], dtype=object)
    assert total_count_values(Fr(1, 2), 2, 1, "reset", f)[0] == Fr(1, 4) + 5  # 1/4 x 1 + 1/2 x 10


def big_game(tmp_path, H, R, feature):
    data = game_data(H, R, {"respins": 3, "rule": "reset", **feature}, random.Random(1))
    data["options"]["hold_and_spin"]["trigger"] = 6
    data["reels"]["base"] = [["COIN", "COIN", "A", "B", "COIN", "B"] * 2] * R
    return write_game(tmp_path, data)


def test_large_grids_exact_and_fast(tmp_path):
    """6x5 and 8x8 with every cell alike run on the total count: the exact
    mean of every triggering count (Fractions) in well under 10 s."""
    from slotmath.features.holdspin import total_means

    for H, R in ((5, 6), (8, 8)):
        game = big_game(tmp_path, H, R, {"probabilities": [["1/20"] * R] * H})
        spec = load_hold_and_spin(game)
        state = chain_state(game, spec)
        assert (state.kind, state.states) == ("total", H * R + 1)
        start = time.process_time()
        means = total_means(game, spec)
        assert time.process_time() - start < 10
        assert all(isinstance(m, Fr) for m in means.values())
        L = count_laws(game, spec)
        assert np.allclose(np.array(L, dtype=float).sum(axis=1), 1, rtol=1e-12)


@pytest.mark.parametrize(
    "grid, feature, field, words",
    [
        (
            (8, 8),
            {"probabilities": [[f"1/{20 + r}" for r in range(8)]] * 8},
            "probabilities",
            "43,046,721 states",
        ),
        ((5, 6), {"respin": "reels", "reels": "base"}, "respin", "2**30"),
        ((5, 6), {"probabilities": [["1/20"] * 6] * 4 + [["1/10"] * 6]}, "probabilities", "masks"),
    ],
)
def test_cost_refused_in_one_line(tmp_path, grid, feature, field, words):
    """Validation refuses a chain above its bound, naming the field and the
    estimate (the command line: exit 2, one line, no traceback)."""
    import subprocess
    import sys

    with pytest.raises(GameFileError) as err:
        big_game(tmp_path, *grid, feature)  # loading validates
    assert err.value.field == f"options.hold_and_spin.{field}" and words in err.value.problem
    done = subprocess.run(
        [sys.executable, "-m", "slotmath", "validate", str(tmp_path / "game.yaml")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and field in done.stderr


def test_per_reel_chain_accepted_on_6x5(tmp_path):
    """Reels that differ on 6x5: 6**6 = 46,656 per-reel count states, accepted."""
    from slotmath.rules.linegame import check

    game = big_game(tmp_path, 5, 6, {"probabilities": [[f"1/{20 + r}" for r in range(6)]] * 5})
    check(game)  # no refusal
    state = chain_state(game, load_hold_and_spin(game))
    assert (state.kind, state.states) == ("reels", 46_656)


@pytest.mark.parametrize("grid", [(5, 6), (8, 8)], ids=["6x5", "8x8"])
def test_sampler_on_counts_agrees_with_exact(tmp_path, grid):
    """The compiled round sampler plays the feature on per-reel counts (64
    cells do not fit a mask): its feature RTP and full-screen rate agree with
    the exact figures (|z| < 4)."""
    from slotmath.montecarlo.run import run_chunk
    from slotmath.rules.linegame import components, round_sampler

    H, R = grid
    game = big_game(tmp_path, H, R, {"probabilities": [["1/4"] * R] * H})
    exact = components(game, 1)["hold_and_spin"]
    sampler = round_sampler(game, 1)
    stats = run_chunk(sampler, 11, 0, 200_000)
    units, se = stats.event_rate(sampler.event_names.index("hold_and_spin award [grid]"))
    assert se > 0 and abs(units - float(exact)) / se < 4  # prize grid 1
    trig, se = stats.event_rate(sampler.event_names.index("hold_and_spin triggers"))
    assert trig > 0.01
