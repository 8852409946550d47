"""Every feature beside every other, on lines, ways and pay-anywhere: what
``slotmath validate`` accepts, ``par`` computes or refuses in one line
(exit 2, no traceback) and ``simulate`` plays, its RTP within 4 standard
errors of the exact one; what it refuses is one line naming the field.

One small game per (pay rule, pair of features): 3 reels x 2 rows, A and K
paying 3 (and 2) of a kind, a blank, and each feature's own symbol on every
reel (the drawn wild on reels 2 and 3 only).  The catalogue below writes
each feature as a new user would from docs/features.md; a pair that the
documentation says is not played together (e.g. a wheel with tumbles) must
be refused by ``validate`` in one line, which this test checks too.
"""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from slotmath.cli import main

# feature: (symbol it adds to the reels and its kind, its options line, a scatters line)
FEATURES = {
    "free_games": (
        ("S", "scatter"),
        "free_games: {symbol: S, reels: base, multiplier: 2, awards: {3: {games: 2}}}",
        "scatters: [{symbol: S, count: 3, pay: 2}]",
    ),
    "free_by_count": (
        ("S", "scatter"),
        "free_games: {symbol: S, reels: base, awards: {2: {games: 1}, 3: {games: 2, multiplier: 3}}}",
        None,
    ),
    "sticky_free": (
        ("S", "scatter"),
        "free_games: {symbol: S, reels: base, awards: {3: {games: 2}}, sticky: W, max_games: 6}",
        None,
    ),
    "multiplier_wild": (("W", "wild"), "wild_multipliers: {symbol: W, table: [[2, 3], [3, 1]]}", None),
    # weights too large to write as stops: the law without the rewrite
    "drawn_wild": (
        ("W", "wild"),
        "wild_multipliers: {symbol: W, table: [[2, 3221225473], [3, 1073741824]], combine: add}",
        None,
    ),
    "hold_and_spin": (
        ("C", "special"),
        "hold_and_spin: {symbol: C, trigger: 1, respins: 1, rule: reset, respin: cells, "
        'probabilities: [["1/2", "1/2", "1/2"], ["1/2", "1/2", "1/2"]], '
        "values: [{prize: 1, weight: 3}, {prize: JACKPOT, weight: 1}]}",
        None,
    ),
    "wheel": (
        ("T", "scatter"),
        "wheel: {symbol: T, trigger: 2, segments: [{prize: 1, weight: 5}, {prize: JACKPOT, weight: 3}]}",
        None,
    ),
    "wheel_in_free": (
        ("T", "scatter"),
        "wheel: {symbol: T, trigger: 2, in_free_games: true, "
        "segments: [{prize: 1, weight: 5}, {prize: 4, weight: 3}]}",
        None,
    ),
    "selection": (
        ("U", "scatter"),
        "selection: {symbol: U, trigger: 2, policy: player, "
        "choices: [{name: cash, prize: 10, weight: 2}, {name: more, prize: JACKPOT, weight: 1}]}",
        None,
    ),
    "pick": (
        ("B", "scatter"),
        "pick: {symbol: B, trigger: 2, tiles: [{prize: 1, count: 2}, {prize: 5}, {collect: true, count: 2}]}",
        None,
    ),
    "round_cap": (None, "round_cap: 5", None),
    "tumble": (None, "tumble: {refill: strip}", None),
}
#: features that pay a jackpot (JACKPOT above): the game declares one
#: (fixed) and, in a second variant, a progressive one
JACKPOT_USERS = ("hold_and_spin", "wheel", "selection")
RULES = ("lines", "ways", "anywhere")


def game_text(rule: str, names: tuple, progressive: bool = False) -> str:
    """The small game of ``rule`` with the features ``names``."""
    symbols = ["{name: A}", "{name: K}", "{name: X, kind: blank}"]
    shown: list = []
    for name in names:
        symbol = FEATURES[name][0]
        if symbol is not None and symbol[0] not in shown:
            shown.append(symbol[0])
            wild = ", substitutes: all" if symbol[1] == "wild" else ""
            symbols.append(f"{{name: {symbol[0]}, kind: {symbol[1]}{wild}}}")
    reels = [["A", "K", "X", "A", "K", *(s for s in shown if not (s == "W" and r == 0))] for r in range(3)]
    pays = "[{symbol: A, count: 3, pay: 5}, {symbol: K, count: 3, pay: 2}"
    pays += "]" if rule == "anywhere" else ", {symbol: A, count: 2, pay: 1}]"
    options = [FEATURES[n][1] for n in names]
    if any(n in JACKPOT_USERS for n in names):
        options.append(
            'jackpots: {JACKPOT: {seed: 20, contribution: "1/100", reset: 10}}'
            if progressive
            else "jackpots: {JACKPOT: 20}"
        )
    lines = [
        "name: pair",
        *(["pays_by: " + rule] if rule != "lines" else []),
        "grid: {reels: 3, rows: 2}",
        "bet: {levels: [1]}",
        f"symbols: [{', '.join(symbols)}]",
        "reels:",
        "  base: [" + ", ".join("[" + ", ".join(r) + "]" for r in reels) + "]",
        *(["paylines: [[0, 0, 0], [1, 1, 1]]"] if rule == "lines" else []),
        f"pays: {pays}",
        *(FEATURES[n][2] for n in names if FEATURES[n][2]),
        "options:",
        *("  " + o for o in options),
    ]
    return "\n".join(lines) + "\n"


def cases() -> list:
    """(rule, feature names, progressive) of every pair that can be written
    in one game (one free-games declaration, one wild table, one wheel)."""
    out = []
    free = {"free_games", "free_by_count", "sticky_free"}
    for rule in RULES:
        for names in [(n,) for n in FEATURES] + list(combinations(FEATURES, 2)):
            if len(free & set(names)) > 1 or {"multiplier_wild", "drawn_wild"} <= set(names):
                continue
            if {"wheel", "wheel_in_free"} <= set(names):
                continue
            out.append((rule, names, False))
            if any(n in JACKPOT_USERS for n in names) and len(names) == 1:
                out.append((rule, names, True))
    return out


def one_line_error(err: str) -> str:
    """The one error line of a refusal (no traceback)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("slotmath: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("rule", "names", "progressive"),
    cases(),
    ids=lambda v: (
        "+".join(v) if isinstance(v, tuple) else ("progressive" if v is True else str(v) if v else "fixed")
    ),
)
def test_what_validate_accepts_par_computes_or_refuses_in_one_line(
    tmp_path, capsys, rule, names, progressive
):
    folder = tmp_path / "pair"
    folder.mkdir()
    (folder / "game.yaml").write_text(game_text(rule, names, progressive), encoding="utf-8")
    status = main(["validate", str(folder)])
    out = capsys.readouterr()
    if status != 0:
        assert status == 2
        line = one_line_error(out.err)
        assert "game.yaml: " in line and ("options" in line or "pays_by" in line or "grid" in line), line
        return
    status = main(["par", str(folder), "--json"])
    out = capsys.readouterr()
    exact = None
    if status == 2:
        one_line_error(out.err)
    else:
        assert status == 0, out.err
        exact = json.loads(out.out)
    status = main(["simulate", str(folder), "--spins", "20000", "--seed", "3", "--json"])
    out = capsys.readouterr()
    if status == 2:
        one_line_error(out.err)
        return
    assert status == 0, out.err
    sim = json.loads(out.out)["rtp"]
    if exact is not None and sim.get("z") is not None:
        assert abs(sim["z"]) < 4, (sim, exact.get("rtp"))
