"""Tumbles with fresh-draw refills (``options.tumble.refill: fresh``): the
pay-anywhere Markov chain (slotmath.engine.tumble_fresh) against a
plain-Python brute force over every stop vector and every draw of every
gap, the hand-worked example of docs/features.md, the sampler's z-scores
on every pay rule (lines, ways and cluster against a brute-force
expectation by recursion), the refusals."""

from __future__ import annotations

from fractions import Fraction as F
from functools import cache
from itertools import product
from math import prod

import numpy as np
import pytest
import yaml
from test_tumble import (
    ANYWHERE,
    CLUSTER,
    TINY,
    WAYS,
    anywhere_drop,
    check_sampler,
    cluster_drop,
    line_drop,
    ways_drop,
)

from slotmath.engine.payrule import pay_rule
from slotmath.engine.tumble_fresh import fresh_tumbles
from slotmath.errors import EngineTooLarge
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import analyse, round_sampler

from conftest import TEST_DATA

FRESH = TEST_DATA / "tumble_fresh" / "game.yaml"
EXAMPLE = TEST_DATA / "tumble_fresh_example" / "game.yaml"


def _raw(path=FRESH):
    return yaml.safe_load(path.read_text())


def _fall(cols, gone, draw):
    """Each reel's kept cells fall to its bottom; its gaps at the top take
    the symbols of ``draw`` (an iterator, reel by reel, top to bottom)."""
    out = []
    for r, col in enumerate(cols):
        kept = [x for i, x in enumerate(col) if (r, i) not in gone]
        out.append([next(draw) for _ in range(len(col) - len(kept))] + kept)
    return out


def brute_law(raw, max_tumbles, drop=anywhere_drop):
    """{win [coins]: probability} of a fresh-draw spin in plain Python: every
    stop vector, every drop paid and cleared by ``drop``, every gap refilled
    by every symbol of the table (each draw sequence with the product of its
    weights), at most ``max_tumbles`` refills (the drop after the last one
    is paid, then the spin ends)."""
    table = raw["options"]["tumble"]["draws"]["base"]
    total = sum(w for _, w in table)
    prog = raw["options"]["tumble"]["multipliers"]
    strips = raw["reels"]["base"]
    rows = raw["grid"]["rows"]
    out: dict = {}

    def play(cols, k, win, p):
        coins, gone = drop(raw, cols)
        if not coins:
            out[win] = out.get(win, 0) + p
            return
        win += coins * prog[min(k, len(prog) - 1)]
        if k >= max_tumbles:
            out[win] = out.get(win, 0) + p
            return
        for draw in product(table, repeat=len(gone)):
            q = F(prod(w for _, w in draw), total ** len(gone))
            play(_fall(cols, gone, iter(s for s, _ in draw)), k + 1, win, p * q)

    cycle = prod(len(s) for s in strips)
    for stops in product(*(range(len(s)) for s in strips)):
        cols = [[s[(t + i) % len(s)] for i in range(rows)] for s, t in zip(strips, stops, strict=True)]
        play(cols, 0, F(0), F(1, cycle))
    return out


def _law(law):
    out: dict = {}
    for w, c in zip(law.wins.tolist(), law.counts.tolist(), strict=True):
        at = F(int(w), law.unit_den)
        out[at] = out.get(at, 0) + F(int(c), law.cycle)
    return out


@pytest.mark.parametrize("max_tumbles", [0, 1, 2])
def test_chain_matches_brute_force(max_tumbles):
    """The chain's exact law (integer counts) equals the brute force's, entry
    by entry, at most ``max_tumbles`` refills; the float64 pass agrees."""
    game = load_game(FRESH)
    exact = fresh_tumbles(game, 1, max_tumbles=max_tumbles, exact=True)
    assert exact.exact
    want = brute_law(_raw(), max_tumbles)
    assert _law(exact) == want
    floats = _law(fresh_tumbles(game, 1, max_tumbles=max_tumbles, exact=False))
    assert set(floats) == set(want)
    assert all(abs(float(floats[w] - p)) < 1e-15 for w, p in want.items())


def test_chain_that_dies_out_is_exact(tmp_path):
    """Gaps drawn as X, a filler counted toward nothing: a refill never
    raises a count, so after the first refill nothing pays; the chain is
    then exact by default (integer counts, the PAR's RTP a Fraction) and
    equals the brute force at the real cap."""
    raw = _raw()
    raw["symbols"].append({"name": "X"})
    raw["options"]["tumble"]["draws"] = {"base": [["X", 5]]}
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    game = load_game(path)
    law = fresh_tumbles(game, 1)
    assert law.exact and law.drops == 2
    want = brute_law(raw, 500)
    assert _law(law) == want
    assert analyse(game, 1).rtp == sum(w * p for w, p in want.items())


def test_whole_spin_is_the_brute_force_limit():
    """At the real cap the chain (float64, stopped below 2**-60 live mass)
    has the brute force's RTP of 2 refills plus a tail the third refill
    adds; the PAR's RTP is the chain's; its notes state the method."""
    game = load_game(FRESH)
    law = fresh_tumbles(game, 1)
    assert not law.exact and law.stopped < 2**-60 and law.drops < 100
    rtp = sum(w * p for w, p in _law(law).items())
    two = sum(w * p for w, p in brute_law(_raw(), 2).items())
    assert rtp > two  # more refills only add wins
    result = analyse(game, 1)
    assert abs(float(result.rtp) - float(rtp)) < 1e-12
    assert any("float64" in n and "count states" in n for n in result.notes)
    # no figure of the float chain is labelled exact: the max win is the law's top, a lower bound
    # (a longer sequence than the chain follows can pay more)
    assert isinstance(result.rtp, float) and not result.true_max_win.exact
    assert "lower bound" in result.true_max_win.how
    assert not any("is exact" in n or "Exact:" in n for n in result.notes)


def test_hand_worked_example():
    """docs/features.md "Worked example: fresh draws" (tumble_fresh_example).

    3 reels x 1 row, strips [A, B]; AAA pays 5 coins; gaps drawn A 1 : B 1.
    The first window is AAA with probability 1/8; then all three cells go
    and the refill is AAA again with p = 1/8 each time.  N paying drops:
    P(N = n | AAA first) = p**(n - 1) (1 - p).  Win 5 x (1 + 2 + 3 + 3 ...):
    N = 1: 5, N = 2: 15, N = 3: 30, N = n: 15 (n - 1).  Mean given AAA:
    5 (1 + 2p + 3p**2 + 3p**3 / (1 - p)) = 5 (1 + 1/4 + 3/64 + 3/448)
    = 5 x 584/448 = 365/56 coins; RTP = 1/8 x 365/56 = 365/448 = 81.4732 %."""
    p = F(1, 8)
    assert 5 * (1 + 2 * p + 3 * p**2 + 3 * p**3 / (1 - p)) == F(365, 56)
    got = _law(fresh_tumbles(load_game(EXAMPLE), 1))
    want = {
        F(0): F(7, 8),
        F(5): F(1, 8) * F(7, 8),
        F(15): F(1, 8) ** 2 * F(7, 8),
        F(30): F(1, 8) ** 3 * F(7, 8),
    }
    for w, q in want.items():
        assert abs(float(got[w] - q)) < 1e-17, w
    for n in range(4, 12):  # the geometric tail, 15 (n - 1) coins
        assert abs(float(got[F(15 * (n - 1))] - p**n * F(7, 8))) < 1e-17, n
    assert abs(float(sum(w * q for w, q in got.items()) - F(365, 448))) < 1e-15
    result = analyse(load_game(EXAMPLE), 1)
    assert abs(float(result.rtp) - 365 / 448) < 1e-15
    text = (TEST_DATA.parent.parent / "docs" / "features.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example: fresh draws") :]
    assert "5 x 584/448 = 365/56 coins" in section and "365/448 = 81.4732 %" in section
    block = yaml.safe_load(section[section.index("```yaml\n") + 8 : section.index("```\n")])
    raw = _raw(EXAMPLE)
    for key in ("pays_by", "grid", "symbols", "reels", "pays", "options"):
        assert block[key] == raw[key], key


def _z(col, mean):
    return (col.mean() - mean) / (col.std() / len(col) ** 0.5)


def test_sampler_agrees_with_the_chain():
    """The compiled sampler's RTP and hit rate against the chain's: |z| < 4;
    the same seed gives the same rounds."""
    game = load_game(FRESH)
    exact = analyse(game, 1)
    sampler = round_sampler(game, 1)
    n = 300_000
    wins, _, parts = sampler.kernel(np.random.default_rng(5), n, *sampler.args)
    assert abs(_z(wins, float(exact.rtp))) < 4
    hit = (wins > 0).mean()
    assert abs(hit - exact.hit_frequency) < 4 * (hit * (1 - hit) / n) ** 0.5
    again, _, _ = sampler.kernel(np.random.default_rng(5), 1000, *sampler.args)
    assert np.array_equal(again, wins[:1000])


def test_sampler_agrees_with_a_float_chain_through_the_free_games(tmp_path):
    """tests/data/tumble_anywhere with fresh draws that can pay forever (A 2,
    B 2, C 2, WILD 1, SCATTER 3) and free games: the float64 chain keyed by
    the SCATTER count and the plain one round each state's law once, so the
    PAR's checks hold; the sampler against it, |z| < 4 (as below)."""
    raw = _raw(ANYWHERE)
    table = [["A", 2], ["B", 2], ["C", 2], ["WILD", 1], ["SCATTER", 3]]
    raw["options"]["tumble"].update(refill="fresh", draws={"base": table, "free": table})
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert not fresh_tumbles(load_game(path), 1).exact
    check_sampler(path, "anywhere")


def test_sampler_agrees_with_an_exact_chain_through_the_free_games(tmp_path):
    """tests/data/tumble_anywhere with fresh draws of a filler X (the chain
    dies out: exact) on both reel sets: the chain keyed by the first drop's
    SCATTER count carries the free games (their own progression, retriggers);
    every component, the RTP, the hit and trigger rates and each first-drop
    pay row of the sampler against it: |z| < 4."""
    raw = _raw(ANYWHERE)
    raw["symbols"].append({"name": "X"})
    table = [["X", 3], ["SCATTER", 1]]
    raw["options"]["tumble"].update(refill="fresh", draws={"base": table, "free": table})
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert fresh_tumbles(load_game(path), 1).exact
    check_sampler(path, "anywhere")


# ------------------------------------------------------------ lines, ways, cluster
#: each gap draws C 1 : SCATTER 2 (a SCATTER after the first drop is a blocker)
TABLE = [["C", 1], ["SCATTER", 2]]


def _fresh_variant(tmp_path, source):
    raw = _raw(source)
    del raw["options"]["free_games"], raw["options"]["tumble"]["free_multipliers"], raw["reels"]["free"]
    raw["options"]["tumble"].update(refill="fresh", draws={"base": TABLE})
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path, raw


def brute_mean(raw, drop, depth=10, tables=None):
    """Mean pay win [coins] of a spin (scatter pays apart) by recursion:
    E(board, k) = pay(board) x m_k + sum over the draws of the gaps of
    P(draw) E(next board, k + 1), at most ``depth`` refills (each further
    drop pays with probability below 1/4 here: the tail is below 1e-6);
    each gap of reel r drawn from ``tables[r]`` (default :data:`TABLE`)."""
    tables = tables or [TABLE] * raw["grid"]["reels"]
    prog = raw["options"]["tumble"]["multipliers"]
    strips = raw["reels"]["base"]
    rows = raw["grid"]["rows"]

    @cache
    def mean(board, k):
        cols = [list(c) for c in board]
        coins, gone = drop(raw, cols)
        if not coins:
            return F(0)
        won = F(coins * prog[min(k, len(prog) - 1)])
        if k >= depth:
            return won
        gaps = [tables[r] for r in range(len(cols)) for _ in range(sum(g[0] == r for g in gone))]
        for draw in product(*gaps):
            q = prod(F(w, sum(x for _, x in t)) for (_, w), t in zip(draw, gaps, strict=True))
            nxt = _fall(cols, gone, iter(s for s, _ in draw))
            won += q * mean(tuple(tuple(c) for c in nxt), k + 1)
        return won

    out = F(0)
    stops = list(product(*(range(len(s)) for s in strips)))
    for st in stops:
        board = tuple(
            tuple(s[(t + i) % len(s)] for i in range(rows)) for s, t in zip(strips, st, strict=True)
        )
        out += mean(board, 0)
    return out / len(stops)


@pytest.mark.parametrize(
    ("source", "drop", "channel"),
    [(TINY, line_drop, "lines"), (WAYS, ways_drop, "ways"), (CLUSTER, cluster_drop, "cluster")],
    ids=["lines", "ways", "cluster"],
)
def test_sampler_against_brute_force_expectation(tmp_path, source, drop, channel):
    """Fresh draws on the tiny line, ways and cluster games: the sampler's
    pay part against the brute force's mean, |z| < 4; par refuses in one
    line pointing to simulate."""
    path, raw = _fresh_variant(tmp_path, source)
    game = load_game(path)
    want = float(brute_mean(raw, drop)) / (raw["bet"].get("lines") or len(raw["paylines"]))
    sampler = round_sampler(game, 1)
    assert sampler.part_names[0] == channel
    n = 300_000
    _, _, parts = sampler.kernel(np.random.default_rng(7), n, *sampler.args)
    assert abs(_z(parts[:, 0], want)) < 4, (parts[:, 0].mean(), want)
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    text = str(err.value)
    assert "\n" not in text and "pay-anywhere" in text and "slotmath simulate" in text
    assert "options.tumble.refill" in text


def test_sampler_with_a_table_per_reel(tmp_path):
    """tumble_fresh with a table per reel (A 1 : B 1, C alone, A 3 : C 1):
    the sampler's mean against the brute force's (each gap drawn from its
    reel's table, 8 refills at most: 6 and 8 differ by 6e-4 coins, far below
    the sampler's standard error of about 5e-3), |z| < 4; par refuses (one
    table for every reel only)."""
    per_reel = [[["A", 1], ["B", 1]], [["C", 1]], [["A", 3], ["C", 1]]]
    raw = _raw()
    raw["options"]["tumble"]["draws"] = {"base": per_reel}
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    game = load_game(path)
    want = float(brute_mean(raw, anywhere_drop, depth=8, tables=per_reel))
    sampler = round_sampler(game, 1)
    wins, _, _ = sampler.kernel(np.random.default_rng(11), 300_000, *sampler.args)
    assert abs(_z(wins, want)) < 4, (wins.mean(), want)
    with pytest.raises(EngineTooLarge, match="one table for every reel"):
        analyse(game, 1)


def test_sampler_with_board_multipliers(tmp_path):
    """tumble_fresh with a BOMB drawn into the gaps (C 1 : BOMB 1; values x2
    or x3, mean 5/2): a paying spin wins its tumbles x the sum of
    the BOMBs' values on its final board (x1 with none).  The brute force:
    E[P x g(M)] by recursion over every draw (P the tumbles' pay, M the
    final BOMBs, g(0) = 1, g(M) = 5/2 M), ``depth`` = 8 refills at most
    (4 and 8 give means within 1e-5 coins of each other); the sampler's
    mean against it, |z| < 4; par refuses (multiplier symbols)."""
    raw = _raw()
    raw["symbols"].append({"name": "BOMB"})
    table = [["C", 1], ["BOMB", 1]]
    raw["options"]["tumble"]["draws"] = {"base": table}
    values = [{"value": 2, "weight": 1}, {"value": 3, "weight": 1}]
    raw["options"]["tumble"]["multiplier_symbols"] = {"symbol": "BOMB", "values": values, "in": ["base"]}
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    game = load_game(path)
    prog, strips = raw["options"]["tumble"]["multipliers"], raw["reels"]["base"]
    total = sum(w for _, w in table)
    depth = 8

    @cache
    def mean(board, k, paid):
        cols = [list(c) for c in board]
        coins, gone = anywhere_drop(raw, cols)
        if not coins or k > depth:
            m = sum(c.count("BOMB") for c in cols)
            return paid * (F(5, 2) * m if m else 1)
        paid += coins * prog[min(k, len(prog) - 1)]
        out = F(0)
        for draw in product(table, repeat=len(gone)):
            q = F(prod(w for _, w in draw), total ** len(gone))
            nxt = _fall(cols, gone, iter(x for x, _ in draw))
            out += q * mean(tuple(tuple(c) for c in nxt), k + 1, paid)
        return out

    stops = list(product(*(range(len(x)) for x in strips)))
    boards = [
        tuple(tuple(x[(t + i) % len(x)] for i in range(2)) for x, t in zip(strips, st, strict=True))
        for st in stops
    ]
    want = sum(mean(b, 0, 0) for b in boards) / len(stops)
    sampler = round_sampler(game, 1)
    wins, _, _ = sampler.kernel(np.random.default_rng(13), 300_000, *sampler.args)
    assert abs(_z(wins, float(want))) < 4, (wins.mean(), float(want))
    with pytest.raises(EngineTooLarge, match="multiplier_symbols"):
        analyse(game, 1)


def test_par_command_refuses_in_one_line_and_validate_accepts(tmp_path):
    """`slotmath validate` accepts a fresh-draw line game; `slotmath par`
    refuses it in one line (exit 2, no traceback) naming the reason and
    pointing to `slotmath simulate`."""
    import subprocess
    import sys

    path, _ = _fresh_variant(tmp_path, TINY)
    root = TEST_DATA.parent.parent
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "slotmath"]
    ok = subprocess.run([*run, "validate", str(path)], capture_output=True, text=True, env=env, cwd=root)
    assert ok.returncode == 0, ok.stderr
    par = subprocess.run([*run, "par", str(path)], capture_output=True, text=True, env=env, cwd=root)
    assert par.returncode == 2
    lines = par.stderr.strip().splitlines()
    assert len(lines) == 1 and "pay-anywhere" in lines[0] and "slotmath simulate" in lines[0], par.stderr


# ------------------------------------------------------------ refusals
def _with(tmp_path, change, path=FRESH):
    raw = _raw(path)
    change(raw["options"]["tumble"])
    out = tmp_path / "game.yaml"
    out.write_text(yaml.safe_dump(raw))
    return out


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda t: t.pop("draws"), "options.tumble.draws", "refill: fresh needs draws"),
        (lambda t: t.update(refill="strip"), "options.tumble.draws", "only with refill: fresh"),
        (lambda t: t.update(refill="random"), "options.tumble.refill", "'strip' or 'fresh'"),
        (lambda t: t.update(draws=[["A", 1]]), "options.tumble.draws", "must be a mapping"),
        (lambda t: t.update(draws={}), "options.tumble.draws.base", "missing"),
        (lambda t: t["draws"].update(free=[["A", 1]]), "options.tumble.draws.free", "played on reel sets"),
        (lambda t: t["draws"].update(base=[]), "options.tumble.draws.base", "non-empty list"),
        (lambda t: t["draws"].update(base=[["Z", 1]]), "options.tumble.draws.base[0]", "unknown symbol"),
        (lambda t: t["draws"].update(base=[["A", 0]]), "options.tumble.draws.base[0]", "positive whole"),
        (lambda t: t["draws"].update(base=[["A", 1.5]]), "options.tumble.draws.base[0]", "positive whole"),
        (lambda t: t["draws"].update(base=[["A", 1], ["A", 2]]), "options.tumble.draws.base[1]", "twice"),
        (lambda t: t["draws"].update(base=[["A"]]), "options.tumble.draws.base[0]", "pair"),
        (
            lambda t: t["draws"].update(base=[[["A", 1]], [["B", 1]]]),
            "options.tumble.draws.base",
            "one per reel (3)",
        ),
    ],
)
def test_bad_draws_are_refused(tmp_path, change, field, words):
    with pytest.raises(GameFileError) as err:
        load_game(_with(tmp_path, change))
    text = str(err.value)
    assert field in text and words in text and "\n" not in text, text


def test_weights_are_reduced_and_per_reel_tables_are_read(tmp_path):
    from slotmath.engine.tumble_spec import tumble_spec

    game = load_game(_with(tmp_path, lambda t: t["draws"].update(base=[["A", 2], ["B", 4], ["C", 6]])))
    draws = tumble_spec(game).draws_on("base")
    assert draws.tables[0] == (("A", "B", "C"), (1, 2, 3)) and draws.shared
    per_reel = [[["A", 1], ["B", 1]], [["C", 1]], [["A", 3], ["C", 1]]]
    game = load_game(_with(tmp_path, lambda t: t["draws"].update(base=per_reel)))
    draws = tumble_spec(game).draws_on("base")
    assert not draws.shared and draws.probability(2, "A") == F(3, 4)
    with pytest.raises(EngineTooLarge, match="one table for every reel"):
        analyse(game, 1)


def test_endless_fresh_tumbles_are_refused(tmp_path):
    """A table of A alone: every refill of three A pays again; par refuses in one line."""
    game = load_game(_with(tmp_path, lambda t: t["draws"].update(base=[["A", 1]])))
    with pytest.raises(GameFileError) as err:
        analyse(game, 1)
    text = str(err.value)
    assert "\n" not in text and "would not end" in text and "options.tumble" in text


def test_large_chain_is_refused_by_its_estimate(tmp_path):
    """data/games/candy_anywhere with fresh draws: par refuses in one line
    naming the state estimate, before any work."""
    import time

    raw = yaml.safe_load(
        (TEST_DATA.parent.parent / "data" / "games" / "candy_anywhere" / "game.yaml").read_text()
    )
    symbols = [s["name"] for s in raw["symbols"] if s.get("kind", "regular") == "regular"]
    table = [[s, 1] for s in symbols]
    raw["options"]["tumble"] = {"refill": "fresh", "draws": {"base": table, "free": table}}
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(raw))
    game = load_game(tmp_path)
    start = time.perf_counter()
    with pytest.raises(EngineTooLarge) as err:
        pay_rule(game).distribution(game, 1)
    assert time.perf_counter() - start < 30
    text = str(err.value)
    assert "\n" not in text and "count states" in text and "slotmath simulate" in text
