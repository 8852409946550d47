"""Tumbles with a strip refill (``options.tumble``, slotmath.engine.tumble):
the compiled enumeration against a plain-Python brute force (every stop
vector, every tumble) on a tiny game, for the spin's law, its joint law with
the trigger count and the round's RTP; the hand-worked example of
docs/features.md; the sampler's z-scores; the refusals."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import pytest
import yaml

from slotmath.engine.payrule import pay_rule
from slotmath.engine.tumble_spec import tumble_spec
from slotmath.errors import EngineTooLarge
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import analyse

from conftest import TEST_DATA

TINY = TEST_DATA / "tumble_tiny" / "game.yaml"
ANYWHERE = TEST_DATA / "tumble_anywhere" / "game.yaml"
WAYS = TEST_DATA / "tumble_ways" / "game.yaml"
CLUSTER = TEST_DATA / "tumble_cluster" / "game.yaml"


# ------------------------------------------------------------ brute force
def _raw(path=TINY):
    return yaml.safe_load(path.read_text())


def _line_win(symbols, pays, wild):
    """(coins, cells removed) of one line in plain Python: the highest pay
    whose first n symbols are its symbol or the wild (first entry on a tie)."""
    best, n_best = 0, 0
    for p in pays:
        n = p["count"]
        if all(s in (p["symbol"], wild) for s in symbols[:n]) and p["pay"] > best:
            best, n_best = p["pay"], n
    return best, n_best


def line_drop(raw, cols):
    """(coins, cells removed) of one drop of a line game: every paying line
    pays, its first n cells go."""
    coins, gone = 0, set()
    for line in raw["paylines"]:
        c, n = _line_win([cols[r][line[r]] for r in range(len(cols))], raw["pays"], "WILD")
        coins += c
        gone |= {(r, line[r]) for r in range(n)}
    return coins, gone


def anywhere_drop(raw, cols):
    """(coins, cells removed) of one drop of a pay-anywhere game: each symbol's
    count is its cells plus the wilds substituting for it; the row with the
    largest count not above it pays; every cell counted toward a paying symbol goes."""
    subs = {s["name"]: s["substitutes"] for s in raw["symbols"] if s.get("kind") == "wild"}

    def counts_for(x, sym):  # the paying symbols are regular: ``all`` stands in for each
        return x == sym or (x in subs and (subs[x] == "all" or sym in subs[x]))

    coins, paying = 0, set()
    for sym in {p["symbol"] for p in raw["pays"]}:
        n = sum(counts_for(x, sym) for col in cols for x in col)
        rows = [p for p in raw["pays"] if p["symbol"] == sym and p["count"] <= n]
        if rows:
            coins += max(rows, key=lambda p: p["count"])["pay"]
            paying.add(sym)
    gone = {
        (r, i)
        for r, col in enumerate(cols)
        for i, x in enumerate(col)
        if any(counts_for(x, sym) for sym in paying)
    }
    return coins, gone


def _wild_multiplier(raw):
    """The WILD's multiplier for ``c`` of it on one way: ``per_wild**c`` or
    ``by_count[c]`` (its last entry beyond the table); x1 undeclared."""
    mult = next(s for s in raw["symbols"] if s["name"] == "WILD").get("multiplier", {})
    table = mult.get("by_count")
    if table:
        return lambda c: table[min(c, len(table) - 1)]
    return lambda c: mult.get("per_wild", 1) ** c


def ways_drop(raw, cols):
    """(coins, cells removed) of one drop of a ways game (WILD substitutes
    all), way by way: a symbol's run is the reels 1..n each showing it or a
    WILD; each way (one such cell on each run reel) pays the run's pay x its
    WILD multiplier; the run's matching cells go when it pays."""
    multiplier = _wild_multiplier(raw)
    coins, gone = 0, set()
    for sym in {p["symbol"] for p in raw["pays"]}:
        run = []
        for col in cols:
            match = [i for i, x in enumerate(col) if x in (sym, "WILD")]
            if not match:
                break
            run.append(match)
        pay = {p["count"]: p["pay"] for p in raw["pays"] if p["symbol"] == sym}.get(len(run), 0)
        if pay:
            for way in product(*run):
                coins += pay * multiplier(sum(cols[r][i] == "WILD" for r, i in enumerate(way)))
            gone |= {(r, i) for r, match in enumerate(run) for i in match}
    return coins, gone


def cluster_drop(raw, cols):
    """(coins, cells removed) of one drop of a cluster game, by breadth-first
    search: for each paying symbol, each largest orthogonally connected group
    of its cells and the wilds substituting for it (holding one of its own)
    pays the row of the largest count not above its size; every cell of a
    paying cluster goes (a wild in two paying clusters once)."""
    subs = {s["name"]: s["substitutes"] for s in raw["symbols"] if s.get("kind") == "wild"}
    cells = {(r, i): x for r, col in enumerate(cols) for i, x in enumerate(col)}
    coins, gone = 0, set()
    for sym in {p["symbol"] for p in raw["pays"]}:
        joins = {c for c, x in cells.items() if x == sym or sym in subs.get(x, ())}
        seen: set = set()
        for start in sorted(c for c in joins if cells[c] == sym):
            if start in seen:
                continue
            group, queue = {start}, [start]
            while queue:
                r, i = queue.pop(0)
                for nb in ((r - 1, i), (r + 1, i), (r, i - 1), (r, i + 1)):
                    if nb in joins and nb not in group:
                        group.add(nb)
                        queue.append(nb)
            seen |= group
            rows = [p for p in raw["pays"] if p["symbol"] == sym and p["count"] <= len(group)]
            if rows:
                coins += max(rows, key=lambda p: p["count"])["pay"]
                gone |= group
    return coins, gone


def brute_spin(raw, reel_set, stops, prog, trace=None, drop=line_drop):
    """(win [coins] of the whole tumble sequence, scatters shown on the first
    drop), each drop paid and cleared by ``drop``; each drop's columns are
    appended to ``trace`` when given."""
    strips = raw["reels"][reel_set]
    rows = raw["grid"]["rows"]
    cols = [
        [strip[(s + k) % len(strip)] for k in range(rows)] for strip, s in zip(strips, stops, strict=True)
    ]
    nxt = [(s - 1) % len(strip) for strip, s in zip(strips, stops, strict=True)]
    scatters = sum(c.count("SCATTER") for c in cols)
    total, k = 0, 0
    while True:
        if trace is not None:
            trace.append([list(c) for c in cols])
        coins, gone = drop(raw, cols)
        if not coins:
            return total, scatters
        total += coins * prog[min(k, len(prog) - 1)]
        k += 1
        for r, strip in enumerate(strips):
            kept = [cols[r][i] for i in range(rows) if (r, i) not in gone]
            new = []
            while len(new) + len(kept) < rows:
                new.insert(0, strip[nxt[r]])  # the symbol above the window falls lowest
                nxt[r] = (nxt[r] - 1) % len(strip)
            cols[r] = new + kept


def total_bet_of(raw):
    """Coins bet: ``bet.lines`` when given, else one per payline."""
    return raw["bet"].get("lines") or len(raw["paylines"])


def brute_law(raw, reel_set, prog, drop=line_drop):
    """{(win [coins], scatter count): stop vectors} over the whole cycle."""
    total_bet = total_bet_of(raw)
    out: dict = {}
    for stops in product(*(range(len(s)) for s in raw["reels"][reel_set])):
        coins, n = brute_spin(raw, reel_set, stops, prog, drop=drop)
        win = coins + (2 * total_bet if n >= 3 else 0)  # 3+ SCATTER pay 2 x total bet
        out[(win, n)] = out.get((win, n), 0) + 1
    return out


#: the tiny games (each 3 SCATTER pay 2 x total bet and award 3 free games on
#: the free reels, progressions x1-x2-x3 and x2-x4) and their drops
GAMES = [
    pytest.param(TINY, line_drop, id="lines"),
    pytest.param(ANYWHERE, anywhere_drop, id="anywhere"),
    pytest.param(WAYS, ways_drop, id="ways"),
    pytest.param(CLUSTER, cluster_drop, id="cluster"),
]


def _engine_law(game, reel_set, keyed):
    from slotmath.features.round import Trigger

    kw = pay_rule(game).key_distribution(game, 1, (Trigger("SCATTER"),), reel_set)
    ensure_unit = kw.unit_den
    out: dict = {}
    for w, key, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        at = (F(w, ensure_unit), key[0]) if keyed else F(w, ensure_unit)
        out[at] = out.get(at, 0) + c
    return out


@pytest.mark.parametrize(("path", "drop"), GAMES)
@pytest.mark.parametrize(("reel_set", "prog"), [("base", [1, 2, 3]), ("free", [2, 4])])
def test_joint_law_matches_brute_force(path, drop, reel_set, prog):
    """The kernel's (win, first-drop SCATTER count) law equals the plain-Python one, entry by entry."""
    game = load_game(path)
    brute = {(F(w), n): c for (w, n), c in brute_law(_raw(path), reel_set, prog, drop).items()}
    assert _engine_law(game, reel_set, True) == brute


@pytest.mark.parametrize(("path", "drop"), GAMES)
def test_spin_distribution_and_round_rtp_match_brute_force(path, drop):
    """The base spin's law (marginal) and the round's RTP: pays + scatters
    + free games = P(3+ S) x 3 / (1 - E[K]) x E[Y], Y the free spin's win
    and K = 3 on a retrigger (renewal, multiplier 1)."""
    game = load_game(path)
    raw = _raw(path)
    base = brute_law(raw, "base", [1, 2, 3], drop)
    free = brute_law(raw, "free", [2, 4], drop)
    dist = pay_rule(game).distribution(game, 1)
    got = {
        F(int(w), dist.unit_den): int(c)
        for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)
    }
    want: dict = {}
    for (w, _), c in base.items():
        want[F(w)] = want.get(F(w), 0) + c
    assert got == want
    feature, rtp = renewal_rtp(base, free, total_bet_of(raw))
    result = analyse(game, 1)
    assert result.components["free_games"] == feature
    assert result.rtp == rtp


def renewal_rtp(base, free, bet):
    """(free games component, round RTP) [x total bet] of the base and free
    spins' laws {(win [coins], SCATTER count): weight}: P(3+ S) x 3 / (1 -
    E[K]) x E[Y], Y the free spin's win and K = 3 on a retrigger (renewal,
    multiplier 1), plus the base spin's mean."""
    cycle, fcycle = sum(base.values()), sum(free.values())
    ey = F(sum(w * c for (w, _), c in free.items()), fcycle * bet)  # [x total bet]
    ek = F(sum(3 * c for (_, n), c in free.items() if n >= 3), fcycle)
    p = F(sum(c for (_, n), c in base.items() if n >= 3), cycle)
    spin = F(sum(w * c for (w, _), c in base.items()), cycle * bet)
    return p * 3 / (1 - ek) * ey, spin + p * 3 / (1 - ek) * ey


def _buy_game(tmp_path, path, games=4, cost=10):
    """The tiny game ``path`` with a mode ``buy`` of ``games`` free games at ``cost``."""
    raw = _raw(path)
    raw["modes"] = {"buy": {"cost": cost, "buy": {"feature": "free_games", "games": games}}}
    out = tmp_path / "game.yaml"
    out.write_text(yaml.safe_dump(raw))
    return load_game(out), raw


@pytest.mark.parametrize(("path", "drop"), GAMES)
def test_bought_free_games_tumble(tmp_path, path, drop):
    """A bought round is the free games started at once: they tumble as every
    free spin does.  From n = 4 games the award is 4 / (1 - E[K]) x E[Y] (the
    renewal mean; Y the free spin's whole tumble sequence at x2-x4 plus its
    scatter pay, K = 3 games on 3+ SCATTER), over the cost 10.  (Before: the
    buy dropped options.tumble and paid the first drop of each free spin at
    x1 only, in par and in simulate alike.)"""
    from slotmath.rules.modepar import mode_par

    game, raw = _buy_game(tmp_path, path)
    free = brute_law(raw, "free", [2, 4], drop)
    fcycle, bet = sum(free.values()), total_bet_of(raw)
    ey = F(sum(w * c for (w, _), c in free.items()), fcycle * bet)
    ek = F(sum(3 * c for (_, n), c in free.items() if n >= 3), fcycle)
    assert mode_par(game, "buy").rtp == 4 / (1 - ek) * ey / 10


def test_bought_tumble_round_sampler_agrees(tmp_path):
    """The compiled sampler of the bought round plays the tumbles too: its
    RTP is within 4 standard errors of the exact one (the exact one is
    proven against brute force above)."""
    from slotmath.analysis.simulation import cross_check_mode

    game, _ = _buy_game(tmp_path, CLUSTER)
    rtp = cross_check_mode(game, "buy", None, 200_000, seed=5, workers=1).result.rtp
    assert abs(rtp.z) < 4


def test_hand_worked_example():
    """docs/features.md "Tumbles": base stops (0, 0, 0) of tumble_tiny.

    Drop 1 (reels top to bottom): reel 1 A B C, reel 2 B A WILD, reel 3 A C B.
    Top line A B A: no pay; middle B A C: no pay; bottom C WILD B: 2 x C pays
    1 coin, its cells (reel 1 and 2, bottom row) go.  Tumble 1 pays 1 x 1.
    Reel 1 falls to C(stop 5) A B, reel 2 to C(stop 6) B A, reel 3 unchanged.
    Drop 2: top C C A: 2 x C pays 1; middle A B C: none; bottom B A B: none.
    Tumble 2 pays 1 x 2 = 2.  Reel 1 falls to A(stop 4) A B, reel 2 to
    B(stop 5) B A.  Drop 3: top A B A, middle A B C, bottom B A B: nothing
    pays.  Spin win = 1 + 2 = 3 coins = 1 x total bet (3 lines)."""
    trace: list = []
    assert brute_spin(_raw(), "base", (0, 0, 0), [1, 2, 3], trace) == (3, 0)
    text = (TEST_DATA.parent.parent / "docs" / "features.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example: tumbles") :]
    for k, cols in enumerate(trace):  # the page's table shows every drop the brute force plays
        assert f"| {k + 1} | " + " | ".join(" ".join(c) for c in cols) + " |" in section
    assert len(trace) == 3 and "1 + 2 = 3 coins = 1 x total bet" in section
    assert kernel_spin(load_game(TINY), (0, 0, 0)) == (3, 2)


def kernel_spin(game, stops, reel_set="base"):
    """(win [coins x multiplier], paying drops) of the compiled kernel at ``stops`` of ``reel_set``."""
    import numpy as np

    from slotmath.engine.tumble import drop_window, tumble_args, tumble_units

    strip, n_stops, dims, *rest = tumble_args(game, 1, reel_set)
    R, H = game.reels, game.rows
    window = np.zeros(R * H, dtype=np.int64)
    ptr = np.zeros(R, dtype=np.int64)
    drop_window(np.array(stops, dtype=np.int64), window, ptr, strip, n_stops, H)
    removed, no_events = np.zeros(R * H, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return tumble_units(window, ptr, strip, n_stops, dims, *rest, removed, no_events, no_events)


def test_hand_worked_example_anywhere():
    """docs/features.md "Worked example: pay-anywhere tumbles": base stops
    (0, 0, 0) of tumble_anywhere (total bet 2 coins; WILD counts toward A
    and B).

    Drop 1: reel 1 A B C, reel 2 B A WILD, reel 3 A C B.  A counts 3 + the
    WILD = 4 (pays 3), B 3 + WILD = 4 (pays 2), C 2 (no pay): 5 coins x 1.
    Every A, B and the WILD go; reel 1 keeps C, refilled from stops 5 (C)
    and 4 (A): A C C; reel 2 keeps nothing: stops 6, 5, 4 give SCATTER B C;
    reel 3 keeps C, stops 5 (B) and 4 (A): A B C.  Drop 2: C counts 4 (3+
    pays 1), A 2, B 2: 1 coin x 2.  The four C go: reel 1 keeps A under
    stops 3, 2: C SCATTER A; reel 2 keeps SCATTER B under stop 3: C SCATTER
    B; reel 3 keeps A B under stop 3: SCATTER A B.  Drop 3: A 2, B 2, C 2:
    nothing pays (its three SCATTERs count for nothing: scatters are read on
    the first drop).  Spin win 5 + 2 = 7 coins = 3.5 x total bet."""
    raw = _raw(ANYWHERE)
    trace: list = []
    assert brute_spin(raw, "base", (0, 0, 0), [1, 2, 3], trace, anywhere_drop) == (7, 0)
    assert trace == [
        [["A", "B", "C"], ["B", "A", "WILD"], ["A", "C", "B"]],
        [["A", "C", "C"], ["SCATTER", "B", "C"], ["A", "B", "C"]],
        [["C", "SCATTER", "A"], ["C", "SCATTER", "B"], ["SCATTER", "A", "B"]],
    ]
    assert [anywhere_drop(raw, cols)[0] for cols in trace] == [5, 1, 0]
    text = (TEST_DATA.parent.parent / "docs" / "features.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example: pay-anywhere tumbles") :]
    for k, cols in enumerate(trace):  # the page's table shows every drop the brute force plays
        assert f"| {k + 1} | " + " | ".join(" ".join(c) for c in cols) + " |" in section
    assert "5 + 2 = 7 coins = 3.5 x total bet" in section
    block = yaml.safe_load(section[section.index("```yaml\n") + 8 : section.index("```\n\nAt base")])
    for key in ("pays_by", "bet", "symbols", "pays"):  # the page's game is the test's
        assert block[key] == raw[key], key
    assert block["reels"]["base"] == raw["reels"]["base"]
    assert block["options"]["tumble"]["multipliers"] == raw["options"]["tumble"]["multipliers"]
    assert kernel_spin(load_game(ANYWHERE), (0, 0, 0)) == (7, 2)


def test_hand_worked_example_ways():
    """docs/features.md "Worked example: ways tumbles": free stops (0, 0, 0)
    of tumble_ways (total bet 10 coins, progression x2, x4).

    Drop 1: A B C / C A WILD / A D B.  A: 1 x 2 x 1 = 2 ways x 4 = 8; B: 1
    x 1 x 1 (the same WILD) x 2 = 2; C: no C or WILD on reel 3, and 2 x C
    does not pay: 10 x 2 = 20.  Every A, B and the WILD go, the two C stay.
    Drop 2: B D C / D C C / SCATTER C D.  C: 1 x 2 x 1 = 2 ways x 3 = 6, x4
    = 24.  Drop 3: SCATTER B D / D SCATTER D / D SCATTER D: nothing.  Spin
    win 20 + 24 = 44 coins = 4.4 x total bet."""
    raw = _raw(WAYS)
    trace: list = []
    assert brute_spin(raw, "free", (0, 0, 0), [2, 4], trace, ways_drop) == (44, 0)
    assert trace == [
        [["A", "B", "C"], ["C", "A", "WILD"], ["A", "D", "B"]],
        [["B", "D", "C"], ["D", "C", "C"], ["SCATTER", "C", "D"]],
        [["SCATTER", "B", "D"], ["D", "SCATTER", "D"], ["D", "SCATTER", "D"]],
    ]
    assert [ways_drop(raw, cols)[0] for cols in trace] == [10, 6, 0]
    text = (TEST_DATA.parent.parent / "docs" / "features.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example: ways tumbles") :]
    for k, cols in enumerate(trace):  # the page's table shows every drop the brute force plays
        assert f"| {k + 1} | " + " | ".join(" ".join(c) for c in cols) + " |" in section
    assert "10 x 2 = 20" in section and "6 x 4 = 24" in section
    assert "20 + 24 = 44 coins = 4.4 x total bet" in section
    assert kernel_spin(load_game(WAYS), (0, 0, 0), "free") == (44, 2)


def test_hand_worked_example_cluster():
    """docs/features.md "Worked example: cluster tumbles": base stops
    (0, 1, 1) of tumble_cluster (total bet 2 coins; WILD joins A and B).

    Drop 1 (rows): A A C / B WILD B / C C SCATTER.  A cluster {A, A, WILD}
    size 3 pays 2, B cluster {B, WILD, B} size 3 pays 1 (the WILD in both);
    the two bottom C (size 2) and the lone top C do not pay: 3 x 1.  The
    five cells go, the WILD once.  Drop 2: A C A / C B C / C C SCATTER: C
    cluster of 3 (reel 1 rows 2-3, reel 2 row 3) pays 1, x2.  Drop 3: C B A
    / SCATTER C C / A B SCATTER: nothing.  Spin win 3 + 2 = 5 coins = 2.5 x
    total bet; one SCATTER on the first drop."""
    raw = _raw(CLUSTER)
    trace: list = []
    assert brute_spin(raw, "base", (0, 1, 1), [1, 2, 3], trace, cluster_drop) == (5, 1)
    assert trace == [
        [["A", "B", "C"], ["A", "WILD", "C"], ["C", "B", "SCATTER"]],
        [["A", "C", "C"], ["C", "B", "C"], ["A", "C", "SCATTER"]],
        [["C", "SCATTER", "A"], ["B", "C", "B"], ["A", "C", "SCATTER"]],
    ]
    assert [cluster_drop(raw, cols)[0] for cols in trace] == [3, 1, 0]
    assert cluster_drop(raw, trace[0])[1] == {(0, 0), (0, 1), (1, 0), (1, 1), (2, 1)}
    text = (TEST_DATA.parent.parent / "docs" / "features.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example: cluster tumbles") :]
    for k, cols in enumerate(trace):  # the page's table shows every drop the brute force plays
        assert f"| {k + 1} | " + " | ".join(" ".join(c) for c in cols) + " |" in section
        grid = "\n".join("  ".join(f"{c[i]:<7}" for c in cols).rstrip() for i in range(3))
        assert grid in section, grid  # and draws it row by row
    assert "3 x 1 = 3" in section and "1 x 2 = 2" in section
    assert "3 + 2 = 5 coins = 2.5 x total bet" in section
    assert kernel_spin(load_game(CLUSTER), (0, 1, 1)) == (5, 2)


# ------------------------------------------------------------ refusals
def _with(tumble=None, **options):
    raw = _raw()
    if tumble is not None:
        raw["options"]["tumble"] = tumble
    raw["options"].update(options)
    return raw


@pytest.mark.parametrize(
    ("tumble", "field", "words"),
    [
        ({"refill": "fresh"}, "options.tumble.draws", "refill: fresh needs draws"),
        ({"refill": "cells"}, "options.tumble.refill", "'strip' or 'fresh'"),
        ({"multipliers": [1, 0]}, "options.tumble.multipliers[1]", "positive whole"),
        ({"multipliers": []}, "options.tumble.multipliers", "non-empty"),
        ({"reset": "feature"}, "options.tumble.reset", "one of spin, round"),
        ({"triggers": "window"}, "options.tumble.triggers", "one of first_drop, sequence"),
        ({"cascade": 1}, "options.tumble.cascade", "unknown key"),
        (
            {"refill": "fresh", "draws": {}, "triggers": "sequence"},
            "options.tumble.triggers",
            "not computed with refill: fresh",
        ),
        (
            {"refill": "fresh", "draws": {}, "reset": "round"},
            "options.tumble.reset",
            "not computed with refill",
        ),
    ],
)
def test_bad_declarations_are_refused(tmp_path, tumble, field, words):
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(_with(tumble)))
    with pytest.raises(GameFileError) as err:
        load_game(path)
    assert field in str(err.value) and words in str(err.value)


def test_free_progression_needs_its_own_reel_set(tmp_path):
    raw = _raw()
    raw["options"]["free_games"]["reels"] = "base"
    del raw["reels"]["free"]
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(GameFileError, match="options.tumble.free_multipliers"):
        load_game(path)


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        (TINY, "3 lines"),
        (ANYWHERE, "9 cells x 3 paying symbols"),
        (WAYS, "9 cells x 3 paying symbols"),
        (CLUSTER, "9 cells x 3 paying symbols"),
    ],
)
def test_cost_bound_refuses_in_one_line(path, steps):
    from slotmath.engine.tumble import check_tumble_cost

    game = load_game(path)
    with pytest.raises(EngineTooLarge) as err:
        check_tumble_cost(game, 1, limit=10)
    text = str(err.value)
    assert "\n" not in text and "stop vectors" in text and "slotmath simulate" in text
    assert f"evaluations x {steps} =" in text


def test_large_anywhere_tumble_game_is_refused_by_its_estimate(tmp_path):
    """data/games/candy_anywhere with tumbles (78**6 stop vectors): par refuses
    in one line naming the estimate, before any enumeration."""
    import time

    raw = yaml.safe_load(
        (TEST_DATA.parent.parent / "data" / "games" / "candy_anywhere" / "game.yaml").read_text()
    )
    raw["options"]["tumble"] = {"multipliers": [1, 2, 3, 5]}
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(raw))
    game = load_game(tmp_path)
    start = time.perf_counter()
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    assert time.perf_counter() - start < 30
    text = str(err.value)
    assert "\n" not in text and "options.tumble" in text and "30 cells x 9 paying symbols" in text
    assert "slotmath simulate" in text


def test_large_cluster_tumble_game_is_refused_by_its_estimate(tmp_path):
    """tumble_cluster on a 7x7 grid with 40-stop strips (40**7 stop vectors):
    par refuses in one line naming the estimate (cells x paying symbols per
    evaluation), before any enumeration."""
    import time

    raw = _raw(CLUSTER)
    _no_free_games(raw)
    raw["grid"] = {"reels": 7, "rows": 7}
    cycle = ["A", "B", "C", "A", "WILD", "B", "C", "SCATTER"] * 5
    raw["reels"] = {name: [cycle[r:] + cycle[:r] for r in range(7)] for name in raw["reels"]}
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(raw))
    game = load_game(tmp_path / "game.yaml")
    start = time.perf_counter()
    with pytest.raises(EngineTooLarge) as err:
        analyse(game, 1)
    assert time.perf_counter() - start < 30
    text = str(err.value)
    assert "\n" not in text and "options.tumble" in text and "49 cells x 3 paying symbols" in text
    assert "slotmath simulate" in text


def _no_free_games(raw):
    del raw["options"]["free_games"], raw["options"]["tumble"]["free_multipliers"], raw["reels"]["free"]


def _anywhere_with(tmp_path, change):
    raw = _raw(ANYWHERE)
    change(raw)
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize("path", [ANYWHERE, CLUSTER], ids=["anywhere", "cluster"])
def test_tumbles_that_never_end_are_refused(tmp_path, path):
    """Every strip all A (A pays on every drop): par refuses in one line naming options.tumble."""
    raw = _raw(path)
    for reel_set in raw["reels"].values():
        for strip in reel_set:
            strip[:] = ["A"] * len(strip)
    _no_free_games(raw)
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(raw))
    game = load_game(tmp_path / "game.yaml")
    with pytest.raises(GameFileError) as err:
        analyse(game, 1)
    text = str(err.value)
    assert "\n" not in text and "options.tumble" in text and "would not end" in text


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (
            lambda r: r["options"]["tumble"].update(multipliers=[2**60]),
            "options.tumble.multipliers",
            "every symbol",
        ),
        (lambda r: r["options"]["free_games"].update(nudge="WILD"), "options.tumble", "nudge"),
        (lambda r: r["options"].update(round_cap=100), "options.round_cap", "not played with tumbles"),
    ],
)
def test_anywhere_tumble_refusals_name_the_field(tmp_path, change, field, words):
    with pytest.raises(GameFileError) as err:
        load_game(_anywhere_with(tmp_path, change))
    assert field in str(err.value) and words in str(err.value) and "\n" not in str(err.value)


def test_anywhere_variant_matches_brute_force(tmp_path):
    """A wild counted toward every symbol (it goes whenever anything pays), C
    paying from 2, no scatter pays and no free games: the base law against
    the brute force."""

    def change(raw):
        raw["symbols"][0]["substitutes"] = "all"
        raw["pays"][-1]["count"] = 2
        del raw["scatters"]
        _no_free_games(raw)

    path = _anywhere_with(tmp_path, change)
    game = load_game(path)
    dist = pay_rule(game).distribution(game, 1)
    got = {
        F(int(w), dist.unit_den): int(c)
        for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)
    }
    want: dict = {}
    raw = _raw(path)
    for (w, n), c in brute_law(raw, "base", [1, 2, 3], anywhere_drop).items():
        w -= 2 * total_bet_of(raw) if n >= 3 else 0  # no scatter pays here
        want[F(w)] = want.get(F(w), 0) + c
    assert got == want


def test_spec():
    from slotmath.engine.payrule import TUMBLE_RULES
    from slotmath.engine.pays import PAY_RULES

    spec = tumble_spec(load_game(TINY))
    assert spec.progression("base") == (1, 2, 3) and spec.progression("free") == (2, 4)
    # the declaration accepts what a rule plays: a tumbling rule for every rule that says it tumbles
    assert set(TUMBLE_RULES) == {name for name, rule in PAY_RULES.items() if rule.tumbles}
    for name, rule in TUMBLE_RULES.items():
        assert isinstance(rule, type(PAY_RULES[name]))  # the tumbles wrap the rule of one drop
    assert type(pay_rule(load_game(ANYWHERE))).__name__ == "AnywhereTumbles"
    assert type(pay_rule(load_game(WAYS))).__name__ == "WaysTumbles"
    assert type(pay_rule(load_game(CLUSTER))).__name__ == "ClusterTumbles"


# ------------------------------------------------------------ sampler
@pytest.mark.parametrize(
    ("path", "channel"),
    [
        (TINY, "lines"),
        (ANYWHERE, "anywhere"),
        (WAYS, "ways"),
        (CLUSTER, "cluster"),
        (TEST_DATA / "tumble_bomb" / "game.yaml", "anywhere"),
    ],
    ids=["lines", "anywhere", "ways", "cluster", "board-multipliers"],
)
def test_sampler_agrees_with_the_exact_round(path, channel):
    """The compiled tumble sampler (base tumbles, board multipliers drawn
    value by value, scatters, free games with their own progression)
    against the exact components: |z| < 4 each."""
    check_sampler(path, channel)


def check_sampler(path, channel):
    """|z| < 4 of the tumble sampler's every component, RTP, hit rate,
    trigger rate and first-drop pay row rate against the exact figures."""
    import numpy as np

    from slotmath.rules.linegame import round_sampler

    game = load_game(path)
    exact = analyse(game, 1)
    sampler = round_sampler(game, 1)
    n = 400_000
    wins, events, parts = sampler.kernel(np.random.default_rng(3), n, *sampler.args)
    assert sampler.part_names == (channel, "scatters", "free_games")
    z = {}
    for j, name in enumerate(sampler.part_names):
        col = parts[:, j]
        z[name] = (col.mean() - float(exact.components[name])) / (col.std() / n**0.5)
    z["rtp"] = (wins.mean() - float(exact.rtp)) / (wins.std() / n**0.5)
    hit = (wins > 0).mean()
    z["hit"] = (hit - exact.hit_frequency) / (hit * (1 - hit) / n) ** 0.5
    assert all(abs(v) < 4 for v in z.values()), z
    names = sampler.event_names
    triggers = events[names.index("free_games")]
    p = exact.features["free_games"]["trigger_probability"]
    assert abs(triggers / n - p) < 4 * (triggers**0.5) / n
    # the first drop's pays are events: each combination row's rate (binomial z < 4)
    from slotmath.montecarlo.convergence import event_key

    for row in pay_rule(game).combination_table(game, 1).itertuples(index=False):
        hits = events[names.index(event_key(row.kind, row.combination, int(row.multiplier)))]
        p = float(row.probability)
        assert abs(hits / n - p) <= 4 * (p * (1 - p) / n) ** 0.5 + 1 / n, (row.combination, hits / n, p)


def test_ways_tumbles_with_reel_heights_are_refused(tmp_path):
    raw = _raw(WAYS)
    raw["grid"]["heights"] = {"weights": [[2, 1], [3, 1]]}
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(GameFileError) as err:
        load_game(path)
    text = str(err.value)
    assert "options.tumble" in text and "reel heights" in text and "\n" not in text


@pytest.mark.parametrize(
    "multiplier", [{"per_wild": 2}, {"by_count": [1, 3, 4]}], ids=["per-wild", "by-count"]
)
def test_ways_wild_multipliers_match_brute_force(tmp_path, multiplier):
    """tumble_ways' WILD multiplying its ways (x2 per WILD on the way, or x3
    for one and x4 for two or more), no free games: the base law (win,
    first-drop SCATTER count) against the way-by-way brute force."""
    raw = _raw(WAYS)
    raw["symbols"][0]["multiplier"] = multiplier
    _no_free_games(raw)
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    brute = {(F(w), n): c for (w, n), c in brute_law(raw, "base", [1, 2, 3], ways_drop).items()}
    assert _engine_law(load_game(path), "base", True) == brute


def test_sampler_plays_the_trigger_counts_multiplier_and_reel_condition(tmp_path):
    """The tiny game with its free games at x2 for 3 SCATTER (the count's own
    multiplier, not the scalar x1), two SCATTERs on reel 1's strip and a
    SCATTER needed on each of reels 1-3:
    the sampler's free-games part and trigger rate agree with the exact round
    (|z| < 4), which reads both."""
    import numpy as np

    from slotmath.rules.linegame import round_sampler

    raw = _raw()
    # reel 1 may show two SCATTERs, so 2 + 1 + 0 has 3 but does not trigger
    raw["reels"]["base"][0] = ["A", "SCATTER", "SCATTER", "C", "A", "C"]
    raw["options"]["free_games"]["awards"] = {3: {"games": 3, "multiplier": 2}}
    path = tmp_path / "anywhere.yaml"
    path.write_text(yaml.safe_dump(raw))
    anywhere = analyse(load_game(path), 1).features["free_games"]["trigger_probability"]
    raw["options"]["free_games"]["trigger"] = {"reels": [1, 2, 3]}
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(raw))
    game = load_game(path)
    exact = analyse(game, 1)
    assert exact.features["free_games"]["trigger_probability"] < anywhere  # the condition bites
    sampler = round_sampler(game, 1)
    n = 400_000
    wins, events, parts = sampler.kernel(np.random.default_rng(4), n, *sampler.args)
    col = parts[:, sampler.part_names.index("free_games")]
    z = (col.mean() - float(exact.components["free_games"])) / (col.std() / n**0.5)
    assert abs(z) < 4, z
    z_rtp = (wins.mean() - float(exact.rtp)) / (wins.std() / n**0.5)
    assert abs(z_rtp) < 4, z_rtp
    triggers = events[sampler.event_names.index("free_games")]
    p = exact.features["free_games"]["trigger_probability"]
    assert abs(triggers / n - p) < 4 * (p * (1 - p) / n) ** 0.5, (triggers / n, p)


@pytest.mark.parametrize("path", [ANYWHERE, TEST_DATA / "tumble_bomb" / "game.yaml"], ids=["plain", "board"])
def test_anywhere_tumble_game_conforms_to_the_rules_contract(path):
    """Every conformance check of the rules (components, figures, levels,
    events, the round sampler against the exact figures) on tumble_anywhere
    and on tumble_bomb (its board multipliers)."""
    from slotmath.rules.registry import rules_for
    from slotmath.testing.conformance import rules_checks

    game = load_game(path)
    for _, check in rules_checks(rules_for(game), game, rounds=20_000):
        check()
