"""Tests for slotmath.features.lockit_round: the shape-award lock-it in the
round of ``rules: lines``.

Numbers are proved by brute force (every base window and every respin of a
2x3 game played literally, packing by a literal greedy scan), by Piggy
Bankin' Superlock's own base-game lock-it part, and by the compiled sampler
(z-scores).
"""

import itertools
import subprocess
import sys
from fractions import Fraction as Fr
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import yaml

from slotmath.features.lockit_round import group_laws, lockit_awards, lockit_means
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules import linegame

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "data" / "lockit_tiny" / "game.yaml"
DATA = yaml.safe_load(TINY.read_text())
H, R = 2, 3
HELD = ("P", "M")
FULL = (1 << (H * R)) - 1


# ----------------------------------------------------------------------------
# brute force: the rules of the tiny game played literally
# ----------------------------------------------------------------------------
def window(strip, stop):
    return [strip[(stop + k) % len(strip)] for k in range(H)]


def screen(windows):
    """(held mask, flag) of per-reel windows; bit reel * H + row."""
    mask, flag = 0, 0
    for r, w in enumerate(windows):
        for k, sym in enumerate(w):
            if sym in HELD:
                mask |= 1 << (r * H + k)
            flag |= sym == "M"
    return mask, int(flag)


@cache
def finals(mask, flag, left):
    """{(final mask, flag): probability} after ``left`` countdown respins."""
    if left == 0 or mask == FULL:
        return {(mask, flag): Fr(1)}
    reels = DATA["reels"]["respin_after" if flag else "respin"]
    n = int(np.prod([len(s) for s in reels]))
    out: dict = {}
    for stops in itertools.product(*(range(len(s)) for s in reels)):
        m, f = mask, flag
        for r, s in enumerate(stops):
            for k, sym in enumerate(window(reels[r], s)):
                bit = 1 << (r * H + k)
                if sym in HELD and not m & bit:  # a landing under a held cell changes nothing
                    m |= bit
                    f |= sym == "M"
        for state, p in finals(m, int(f), left - 1).items():
            out[state] = out.get(state, 0) + p / n
    return out


def pack(mask):
    """Shapes placed by the greedy rule: each shape in listed order at every
    anchor, reels left to right, rows top to bottom, where all its cells are
    held and free."""
    free = mask
    placed = []
    for rows, reels in DATA["options"]["lockit"]["shapes"]:
        for left in range(R):
            for top in range(H):
                if top + rows > H or left + reels > R:
                    continue
                cells = [(left + c) * H + top + k for c in range(reels) for k in range(rows)]
                if all(free >> c & 1 for c in cells):
                    for c in cells:
                        free &= ~(1 << c)
                    placed.append(f"{rows}x{reels}")
    assert free == 0
    return placed


def table_law(entries):
    jackpots = DATA["options"]["jackpots"]
    total = sum(w for _, w in entries)
    out: dict = {}
    for award, w in entries:
        v = Fr(jackpots[award]) if award in jackpots else Fr(award)
        out[v] = out.get(v, 0) + Fr(w, total)
    return out


def add_law(a, b):
    out: dict = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def award_law(mask, flag, level):
    """Law {award [x total bet]: probability} of a final screen."""
    tables = DATA["options"]["lockit"]["awards"]["trigger"][level]
    law = {Fr(0): Fr(1)}
    for shape in pack(mask):
        law = add_law(law, table_law(tables[shape]))
    if flag:
        segs = [(s["prize"], s["weight"]) for s in DATA["options"]["wheel"]["segments"]]
        law = add_law(law, table_law(segs))
    return law


def brute(level):
    """{key: (P(key), {award: P(award | key)})} and the line RTP."""
    base = DATA["reels"]["base"]
    n = int(np.prod([len(s) for s in base]))
    by_key: dict = {}
    lines = Fr(0)
    pays = {(p["symbol"], p["count"]): p["pay"] for p in DATA["pays"]}
    for stops in itertools.product(*(range(len(s)) for s in base)):
        ws = [window(base[r], s) for r, s in enumerate(stops)]
        top = [w[0] for w in ws]  # the one payline, row 0
        if len(set(top)) == 1:
            lines += Fr(pays.get((top[0], 3), 0), n)
        mask, flag = screen(ws)
        # per reel: rows showing a held symbol (bit k = row k), + 4 when it shows the mark
        key = tuple(sum(1 << k for k, sym in enumerate(w) if sym in HELD) + 4 * ("M" in w) for w in ws)
        if bin(mask).count("1") < 3:
            continue
        p_key, law = by_key.setdefault(key, [Fr(0), {}])
        by_key[key][0] += Fr(1, n)
        for (m, f), p in finals(mask, flag, 2).items():
            for v, q in award_law(m, f, level).items():
                law[v] = law.get(v, 0) + p * q / n
    return {k: (p, {v: q / p for v, q in law.items()}) for k, (p, law) in by_key.items()}, lines


@pytest.fixture(scope="module")
def tiny():
    return load_game(TINY)


@pytest.mark.parametrize("level", [1, 2])
def test_brute_force_means_and_rtp(tiny, level):
    keys, lines = brute(level)
    means = lockit_means(tiny, level)
    assert set(means) == set(keys)
    for key, (_, law) in keys.items():
        assert means[key] == sum(v * p for v, p in law.items())  # exact Fractions
    lockit = sum(p * sum(v * q for v, q in law.items()) for p, law in keys.values())
    par = linegame.analyse(tiny, level)
    assert par.components == {"lines": lines, "lockit": lockit}
    assert par.rtp == lines + lockit
    assert linegame.components(tiny, level) == {"lines": lines, "lockit": lockit}


def test_brute_force_award_laws(tiny):
    keys, _ = brute(1)
    awards = lockit_awards(tiny, 1)
    for key, (_, law) in keys.items():
        d = awards[key]
        got = dict(zip((d.wins / (d.unit_den * d.total_bet)).tolist(), d.probabilities.tolist(), strict=True))
        want = {float(v): float(p) for v, p in law.items() if p}
        assert got.keys() == want.keys()
        for v, p in want.items():
            assert got[v] == pytest.approx(p, rel=1e-12)


def test_brute_force_round_distribution(tiny):
    """The round's win law (base line win + award) against every base window
    and respin played literally: the key fixes the start, so given it the
    award is independent of the line win and the law is exact to rounding."""
    base = DATA["reels"]["base"]
    n = int(np.prod([len(s) for s in base]))
    pays = {(p["symbol"], p["count"]): p["pay"] for p in DATA["pays"]}
    law: dict = {}
    for stops in itertools.product(*(range(len(s)) for s in base)):
        ws = [window(base[r], s) for r, s in enumerate(stops)]
        top = [w[0] for w in ws]
        line = Fr(pays.get((top[0], 3), 0)) if len(set(top)) == 1 else Fr(0)
        mask, flag = screen(ws)
        if bin(mask).count("1") < 3:
            law[line] = law.get(line, 0) + Fr(1, n)
            continue
        for (m, f), p in finals(mask, flag, 2).items():
            for v, q in award_law(m, f, 1).items():
                law[line + v] = law.get(line + v, 0) + p * q / n
    d = linegame.analyse(tiny, 1).distribution
    got = dict(zip((d.wins / (d.unit_den * d.total_bet)).tolist(), d.probabilities.tolist(), strict=True))
    want = {float(v): float(p) for v, p in law.items() if p}
    assert got.keys() == want.keys()
    for v, p in want.items():
        assert got[v] == pytest.approx(p, rel=1e-12, abs=1e-16)


def test_brute_force_odds(tiny):
    keys, _ = brute(1)
    fig = linegame.analyse(tiny, 1).features["lockit"]
    p = sum(q for q, _ in keys.values())
    assert fig["trigger_probability_exact"] == f"{p.numerator}/{p.denominator}"
    # P(full) and P(mark at the end) from the literal respins
    full = mark = Fr(0)
    start: dict = {}  # held cells at the trigger and at the end, per round
    end: dict = {}
    base = DATA["reels"]["base"]
    n = int(np.prod([len(s) for s in base]))
    for stops in itertools.product(*(range(len(s)) for s in base)):
        mask, flag = screen([window(base[r], s) for r, s in enumerate(stops)])
        if bin(mask).count("1") >= 3:
            start[bin(mask).count("1")] = start.get(bin(mask).count("1"), 0) + Fr(1, n)
            for (m, f), q in finals(mask, flag, 2).items():
                full += q * (m == FULL) / n
                mark += q * f / n
                end[bin(m).count("1")] = end.get(bin(m).count("1"), 0) + q / n
    assert fig["full_screen_probability"] == pytest.approx(float(full), rel=1e-12)
    assert fig["mark_probability"] == pytest.approx(float(mark), rel=1e-12)
    for row in fig["cells_given_trigger"]:  # the distribution of held cells given a trigger
        assert row["at_trigger"] == pytest.approx(float(start.get(row["cells"], 0) / p), rel=1e-12, abs=1e-15)
        assert row["at_end"] == pytest.approx(float(end.get(row["cells"], 0) / p), rel=1e-12, abs=1e-15)
    shapes = {row["shape"]: row["expected"] for row in fig["shapes_given_trigger"]}
    assert sum(shapes.values()) > 0
    assert group_laws(tiny).exact


def test_float_chain_matches_exact(tiny):
    exact = lockit_means(tiny, 1, True)
    flt = lockit_means(tiny, 1, False)
    for key, v in exact.items():
        assert flt[key] == pytest.approx(float(v), rel=1e-13)


# ----------------------------------------------------------------------------
# Piggy Bankin' Superlock: its base reels and lock-it as a lines game
# ----------------------------------------------------------------------------
def test_piggy_base_game_lockit_part(tmp_path):
    from slotmath.rules.piggy_bankin_superlock.rtp import base_parts, components

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from stress_games import stress_game

    game = stress_game("piggy_lines", tmp_path)
    piggy = load_game(ROOT / "data" / "games" / "piggy_bankin_superlock" / "game.yaml")
    ours = linegame.components(game, 1)
    theirs = components(piggy, 1)
    assert ours["lines"] == theirs["base lines"]
    assert float(ours["lockit"]) == pytest.approx(theirs["lock-it base game"], rel=1e-12)
    # the whole round: trigger odds as Piggy's base-game lock-it starts, the
    # distribution's mean (plus the unresolved tail) equal to the RTP
    par = linegame.analyse(game, 1)
    starts = base_parts(piggy, 1)[2]
    assert par.features["lockit"]["trigger_probability_exact"] == str(Fr(starts, piggy.cycle("base")))
    assert par.distribution.mean + par.distribution_shortfall == pytest.approx(float(par.rtp), rel=1e-12)


# ----------------------------------------------------------------------------
# bad input: one line naming the field
# ----------------------------------------------------------------------------
def bad_game(tmp_path, change):
    d = yaml.safe_load(TINY.read_text())
    change(d)
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(d, sort_keys=False))
    return folder / "game.yaml"


def _src(d):
    return d["options"]["lockit"]["sources"]["base_game"]


BAD = [
    (lambda d: d["options"]["lockit"]["sources"].update(free_games=dict(_src(d))),
     "options.lockit.sources.free_games", "base window only"),
    (lambda d: _src(d).update(spinz=3), "options.lockit.sources.base_game", "spinz"),
    (lambda d: _src(d).update(reels="nosuch"), "options.lockit.sources.base_game.reels", "nosuch"),
    (lambda d: _src(d).update(after_mark="nosuch"), "options.lockit.sources.base_game.after_mark", "nosuch"),
    (lambda d: _src(d).update(awards="nosuch"), "options.lockit.sources.base_game.awards", "nosuch"),
    (lambda d: d["options"]["lockit"]["awards"]["trigger"][1].update({"2x2": [["GRAND", 1]]}),
     "options.lockit.awards.trigger.1.2x2[0]", "GRAND"),
    (lambda d: d["options"]["lockit"].pop("mark_award"), "options.wheel", "mark_award"),
    (lambda d: d["options"]["jackpots"].update(MAJOR=100), "options.jackpots.MAJOR", "not awarded"),
    (lambda d: d["options"]["lockit"].update(trigger=7), "options.lockit.trigger", "7"),
    (lambda d: d["options"].update(selection={}), "options.selection", "not played"),
    (lambda d: d["options"]["lockit"].update(packing="optimal"), "options.lockit.packing", "greedy only"),
    (lambda d: _src(d).update(mark_award=False), "options.lockit.sources.base_game.mark_award", "never"),
    (lambda d: d["options"]["lockit"].pop("mark"), "options.lockit.mark_award", "no mark"),
    (lambda d: (d["options"]["lockit"].pop("mark"), d["options"]["lockit"].pop("mark_award"),
                d["options"].pop("wheel")), "options.lockit.sources.base_game.after_mark", "no mark"),
]  # fmt: skip


@pytest.mark.parametrize("change,field,problem", BAD)
def test_bad_input(tmp_path, change, field, problem):
    path = bad_game(tmp_path, change)
    with pytest.raises(GameFileError) as err:
        game = load_game(path)
        linegame.check(game)
    msg = str(err.value)
    assert field in msg and problem in msg and "\n" not in msg


def test_bad_input_command_line(tmp_path):
    path = bad_game(tmp_path, lambda d: _src(d).update(reels="nosuch"))
    out = subprocess.run(
        [sys.executable, "-m", "slotmath", "validate", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "options.lockit.sources.base_game.reels" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


# ----------------------------------------------------------------------------
# the compiled sampler against the exact figures
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["countdown", "reset"])
def test_sampler_agrees_with_exact(tmp_path, rule):
    from slotmath.montecarlo.roundsim import round_kernel
    from slotmath.montecarlo.run import run_chunk

    game = load_game(bad_game(tmp_path, lambda d: d["options"]["lockit"].update(rule=rule)))
    par = linegame.analyse(game, 2)
    sampler = linegame.round_sampler(game, 2)
    assert sampler.kernel is round_kernel  # the one round kernel, a lock-it as one of its slots
    n = 300_000
    stats = run_chunk(sampler, 11, 0, n)
    rtp, _ = stats.rtp_interval()
    assert abs(rtp - float(par.rtp)) / (par.sd / n**0.5) < 4
    fig = par.features["lockit"]
    rates = par.features["event_rates"]
    for name in ("lockit triggers", "lockit full screens", "lockit marks", "lockit award [grid]"):
        got, se = stats.event_rate(sampler.event_names.index(name))
        assert rates[name] > 0
        assert abs(got - rates[name]) / se < 4, name
    # the MINI: half the 2x2 shapes' awards and a quarter of the mark's wheel spins (weights 3, 1)
    per_round = fig["trigger_probability"]
    two = next(s for s in fig["shapes_given_trigger"] if s["shape"] == "2x2")["expected"] * per_round
    mini = two / 2 + fig["mark_probability"] / 4
    assert [n for n in sampler.event_names if "jackpot" in n] == ["lockit jackpot MINI"]
    assert rates["lockit jackpot MINI"] == pytest.approx(mini, rel=1e-12)
    got, se = stats.event_rate(sampler.event_names.index("lockit jackpot MINI"))
    assert abs(got - mini) / se < 4
    # grid 1 x total bet (every award and wheel segment is whole): the award sum is the component
    assert rates["lockit award [grid]"] == pytest.approx(float(par.components["lockit"]), rel=1e-12)
    assert fig["full_screen_probability"] == rates["lockit full screens"]
    assert sampler.part_names == ("lines", "lockit")
    for k, name in enumerate(sampler.part_names):  # every component
        got, se = stats.part_rtp(k)
        assert abs(got - float(par.components[name])) / se < 4, name


def test_lockit_beside_free_games(tmp_path):
    """A window may start the lock-it and free games together: those keys take
    the per-key award law, the others the lock-it's mixture of group laws; the
    distribution's mean is the exact RTP either way."""
    data = {
        "name": "lockit_free",
        "grid": {"reels": 2, "rows": 1},
        "bet": {"levels": [1]},
        "symbols": [{"name": "A"}, {"name": "X", "kind": "blank"}, {"name": "P", "kind": "special"},
                    {"name": "S", "kind": "scatter"}],
        "reels": {"base": [["P", "A", "X", "S"], ["P", "S", "A", "X"]],
                  "respin": [["P", "X"], ["P", "X", "X"]]},
        "paylines": [[0, 0]],
        "pays": [{"symbol": "A", "count": 2, "pay": 4}],
        "options": {
            "free_games": {"symbol": "S", "reels": "base", "multiplier": 2, "awards": {1: {"games": 1}}},
            "lockit": {
                "symbols": ["P"], "trigger": 1, "shapes": [[1, 2], [1, 1]],
                "awards": {"main": {1: {"1x2": [[10, 1]], "1x1": [[1, 1], [3, 1]]}}},
                "sources": {"base_game": {"spins": 2, "reels": "respin", "awards": "main"}},
            },
        },
    }  # fmt: skip
    folder = tmp_path / "lockit_free"
    folder.mkdir()
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    game = load_game(folder)
    par = linegame.analyse(game, 1)
    assert set(par.components) == {"lines", "free_games", "lockit"}
    assert par.distribution.mean + par.distribution_shortfall == pytest.approx(float(par.rtp), rel=1e-12)
    # the lock-it's mean does not depend on the free games: P(a P on reel r) = 1/4;
    # a lone P fills the other cell in 2 respins with 1 - (2/3)^2 = 5/9 (reel 2's
    # respin strip lands P 1/3) or 1 - (1/2)^2 = 3/4 (reel 1's), else a 1x1 (mean 2)
    one_on_1 = Fr(5, 9) * 10 + Fr(4, 9) * 2  # P on reel 1, reel 2 respins
    one_on_2 = Fr(3, 4) * 10 + Fr(1, 4) * 2  # P on reel 2, reel 1 respins
    assert par.components["lockit"] == Fr(1, 16) * 10 + Fr(3, 16) * one_on_1 + Fr(3, 16) * one_on_2


def test_shapes_table_rows_add_up_to_the_lockit_component(tiny):
    # every shape's expected count x its mean award, plus the mark's wheel spin
    # (P(mark) x the wheel's mean), is the feature's whole RTP contribution
    from slotmath.rules.linegame import analyse

    result = analyse(tiny, 1)
    rows = result.features["lockit"]["shapes_given_trigger"]
    assert rows[-1]["shape"] == "wheel (mark)"
    assert sum(r["rtp"] for r in rows) == pytest.approx(float(result.components["lockit"]), rel=1e-12)


# ----------------------------------------------------------------------------
# the same lock-it paid by ways, anywhere and by clusters (every feature on
# every pay rule): the key and the chain do not read the pays
# ----------------------------------------------------------------------------
PAYS = {p["symbol"]: p["pay"] for p in DATA["pays"]}  # A 10, B 5 (3 of a kind, 3+ cells)


def ways_win(ws):
    """Each symbol's pay times its ways: the product of its cells per reel."""
    return sum(pay * int(np.prod([w.count(sym) for w in ws])) for sym, pay in PAYS.items())


def anywhere_win(ws):
    """Each symbol's pay when it shows on 3 or more cells anywhere."""
    cells = [sym for w in ws for sym in w]
    return sum(pay for sym, pay in PAYS.items() if cells.count(sym) >= 3)


def cluster_win(ws):
    """Each orthogonally connected group of 3 or more cells of one symbol pays its pay."""
    seen, win = set(), 0
    for start in itertools.product(range(R), range(H)):
        sym = ws[start[0]][start[1]]
        if start in seen or sym not in PAYS:
            continue
        group, todo = {start}, [start]
        while todo:
            r, k = todo.pop()
            for nb in ((r + 1, k), (r - 1, k), (r, k + 1), (r, k - 1)):
                if 0 <= nb[0] < R and 0 <= nb[1] < H and nb not in group and ws[nb[0]][nb[1]] == sym:
                    group.add(nb)
                    todo.append(nb)
        seen |= group
        win += PAYS[sym] if len(group) >= 3 else 0
    return win


WINS = {"ways": ways_win, "anywhere": anywhere_win, "cluster": cluster_win}


@pytest.fixture(scope="module", params=sorted(WINS))
def tiny_paid(request, tmp_path_factory):
    data = {k: v for k, v in DATA.items() if k != "paylines"}
    data.update(name=f"lockit_{request.param}", pays_by=request.param)
    folder = tmp_path_factory.mktemp(f"lockit_{request.param}")
    (folder / "game.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return request.param, load_game(folder)


def test_pay_rules_round_equals_brute_force(tiny_paid):
    """The lock-it keyed on a ways, pay-anywhere or cluster window: its
    component is the lines game's, and the pay rule's component and the
    round's law equal every base window and respin played literally."""
    rule, game = tiny_paid
    base = DATA["reels"]["base"]
    n = int(np.prod([len(s) for s in base]))
    law: dict = {}
    paid = Fr(0)
    for stops in itertools.product(*(range(len(s)) for s in base)):
        ws = [window(base[r], s) for r, s in enumerate(stops)]
        win = Fr(WINS[rule](ws))
        paid += win / n
        mask, flag = screen(ws)
        if bin(mask).count("1") < 3:
            law[win] = law.get(win, 0) + Fr(1, n)
            continue
        for (m, f), p in finals(mask, flag, 2).items():
            for v, q in award_law(m, f, 1).items():
                law[win + v] = law.get(win + v, 0) + p * q / n
    keys, _ = brute(1)
    lockit = sum(p * sum(v * q for v, q in kl.items()) for p, kl in keys.values())
    par = linegame.analyse(game, 1)
    assert par.components == {rule: paid, "lockit": lockit}
    assert par.rtp == sum(v * p for v, p in law.items())
    d = par.distribution
    got = dict(zip((d.wins / (d.unit_den * d.total_bet)).tolist(), d.probabilities.tolist(), strict=True))
    want = {float(v): float(p) for v, p in law.items() if p}
    assert got.keys() == want.keys()
    for v, p in want.items():
        assert got[v] == pytest.approx(p, rel=1e-12, abs=1e-16)


def test_pay_rules_sampler_agrees_with_exact(tiny_paid):
    from slotmath.montecarlo.run import run_chunk

    rule, game = tiny_paid
    par = linegame.analyse(game, 1)
    sampler = linegame.round_sampler(game, 1)
    stats = run_chunk(sampler, 5, 0, 300_000)
    assert sampler.part_names == (rule, "lockit")
    for k, name in enumerate(sampler.part_names):
        got, se = stats.part_rtp(k)
        assert abs(got - float(par.components[name])) / se < 4, name
    got, se = stats.event_rate(sampler.event_names.index("lockit triggers"))
    assert abs(got - par.features["event_rates"]["lockit triggers"]) / se < 4
