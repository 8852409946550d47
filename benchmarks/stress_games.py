"""Stress variants of the sample games for the exact-engine benchmarks.

Each variant is written as a game folder under a scratch directory and
loaded from there (nothing is written into ``data/games``):

* ``video20_x{k}``: video20 with every strip repeated ``k`` times;
* ``video20_x{k}_50``: the same with 50 paylines (video20's 20, then the
  other 5x3 row patterns in a fixed pseudo-random order);
* ``video20_bigpay``: five H1 pay 1e7 coins per coin;
* ``video20_scatter_prime``: three scatters pay 1/999983 total bet;
* ``grid54_40``: a 5x4 40-line game with 100-stop strips (video20's symbol
  mix, strips drawn with a fixed seed);
* ``grand_spinn_x4``: Grand Spinn Superpot with every weighted strip
  repeated four times (its own rules module, same figures per stop weight);
* ``rand{N}_{L}``: a 5x3 game with video20's pays, ``L`` lines and strips of
  ``N`` stops drawn with a fixed seed (for growth in strip length and lines);
* ``piggy_lines``: Piggy Bankin' Superlock's base reels, pays and lock-it
  (its base-game source only, with its wheel) under ``rules: lines``;
* ``hold_and_spin_free25``: the 5x3 hold-and-spin game of issue 28: Hold
  and Spin with 25 lines and free games (3+ SCATTER: 8 games, retriggered)
  on a reel set ``free`` of their own (a copy of the base strips), in which
  the hold-and-spin triggers too; ``hold_and_spin_free25_base``: the same
  free games played on the base reels;
* ``big{R}{H}_{L}_{N}``: an R-reel, H-row game of ``L`` lines with strips of
  ``N`` stops drawn with a fixed seed (issue 30 point 3): ten paying symbols
  (H1-H4, A, K, Q, J, TEN, NINE) paying 3 to R of a kind, a WILD on the inner
  reels and a SCATTER paying 3+ anywhere, e.g. ``big54_40_400``, ``big65_50_200``.
"""

from __future__ import annotations

import csv
import itertools
import random
import shutil
from pathlib import Path

import yaml

from slotmath.io.gamefile import GAMES_DIR, load_game


def _video20() -> dict:
    return yaml.safe_load((GAMES_DIR / "video20" / "game.yaml").read_text())


def _lines(rows: int, reels: int, n: int, first: list) -> list:
    rest = [list(p) for p in itertools.product(range(rows), repeat=reels) if list(p) not in first]
    random.Random(7).shuffle(rest)
    return (first + rest)[:n]


def _random_strips(g: dict, n: int, seed: int) -> list:
    """Five strips of ``n`` stops drawn from video20's symbol mix, a stack
    of three WILD on reels 2-4."""
    rng = random.Random(seed)
    pool = [s for strip in g["reels"]["base"] for s in strip if s != "WILD"]
    strips = []
    for r in range(5):
        strip = [rng.choice(pool) for _ in range(n)]
        if 1 <= r <= 3:
            strip[10:13] = ["WILD"] * 3
        strips.append(strip)
    return strips


#: (symbol, draws per 100 stops, pay for 3, 4, 5, 6 of a kind [coins per line coin])
_BIG_SYMBOLS = (
    ("H1", 4, (50, 200, 1000, 2500)),
    ("H2", 5, (40, 150, 500, 1500)),
    ("H3", 6, (30, 100, 300, 1000)),
    ("H4", 7, (25, 75, 250, 750)),
    ("A", 9, (15, 40, 150, 400)),
    ("K", 10, (12, 30, 120, 300)),
    ("Q", 11, (10, 25, 100, 250)),
    ("J", 12, (8, 20, 80, 200)),
    ("TEN", 13, (5, 15, 60, 150)),
    ("NINE", 14, (5, 10, 50, 100)),
    ("SCATTER", 3, ()),
    ("WILD", 3, ()),
)


def big_grid(name: str) -> dict:
    """The game-file dict of ``big{R}{H}_{L}_{N}`` (see the module notes)."""
    shape, lines, n = name[3:].split("_")
    reels, rows, n_lines, n_stops = int(shape[0]), int(shape[1]), int(lines), int(n)
    rng = random.Random(reels * 10**6 + rows * 10**4 + n_stops)
    strips = []
    for r in range(reels):
        pool = [s for s, k, _ in _BIG_SYMBOLS for _ in range(k) if s != "WILD" or 0 < r < reels - 1]
        strips.append([rng.choice(pool) for _ in range(n_stops)])
    pays = [
        {"symbol": s, "count": c, "pay": p}
        for s, _, table in _BIG_SYMBOLS
        for c, p in zip(range(3, reels + 1), table, strict=False)
    ]
    return {
        "name": name,
        "title": f"{reels}x{rows}, {n_lines} lines, {n_stops}-stop random strips",
        "grid": {"reels": reels, "rows": rows},
        "bet": {"levels": [1]},
        "symbols": [
            {"name": "WILD", "kind": "wild", "substitutes": "all"},
            {"name": "SCATTER", "kind": "scatter"},
        ]
        + [{"name": s} for s, _, t in _BIG_SYMBOLS if t],
        "reels": {"base": strips},
        "paylines": _lines(rows, reels, n_lines, [[r] * reels for r in range(rows)]),
        "pays": pays,
        "scatters": [{"symbol": "SCATTER", "count": c, "pay": p} for c, p in ((3, 2), (4, 10), (5, 50))],
    }


def variant(name: str) -> dict:
    """The game-file dict of stress variant ``name`` (see the module notes)."""
    if name.startswith("big"):
        return big_grid(name)
    g = _video20()
    g["name"] = name
    if name.startswith("video20_x"):
        k = int(name.split("_")[1][1:])
        g["reels"]["base"] = [s * k for s in g["reels"]["base"]]
        if name.endswith("_50"):
            g["paylines"] = _lines(3, 5, 50, g["paylines"])
    elif name == "video20_bigpay":
        for p in g["pays"]:
            if p["symbol"] == "H1" and p["count"] == 5:
                p["pay"] = 10**7
    elif name == "video20_scatter_prime":
        g["scatters"][0]["pay"] = "1/999983"
    elif name == "grid54_40":
        g["grid"] = {"reels": 5, "rows": 4}
        g["reels"]["base"] = _random_strips(g, 100, 54)
        g["paylines"] = _lines(4, 5, 40, [[r] * 5 for r in range(4)])
    elif name.startswith("rand"):
        n, lines = (int(x) for x in name[4:].split("_"))
        g["reels"]["base"] = _random_strips(g, n, n)
        g["paylines"] = _lines(3, 5, lines, g["paylines"])
    else:
        raise KeyError(name)
    return g


def _grand_spinn_x4(folder: Path):
    """Copy Grand Spinn into ``folder`` with every strip (and weight) repeated x4."""
    src = GAMES_DIR / "grand_spinn_superpot"
    shutil.copytree(src, folder, dirs_exist_ok=True)
    with open(src / "reels.csv", newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    cols = [[r[j] for r in body if j < len(r) and r[j] != ""] for j in range(len(head))]
    cols = [c * 4 for c in cols]
    n = max(len(c) for c in cols)
    with open(folder / "reels.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for i in range(n):
            w.writerow([c[i] if i < len(c) else "" for c in cols])
    return load_game(folder)


def _piggy_lines(folder: Path):
    """Piggy's base game and base-game lock-it as a ``rules: lines`` game in ``folder``."""
    src = GAMES_DIR / "piggy_bankin_superlock"
    g = yaml.safe_load((src / "game.yaml").read_text())
    g["rules"], g["name"] = "lines", "piggy_lines"
    lockit = g["options"]["lockit"]
    lockit["sources"] = {"base_game": lockit["sources"]["base_game"]}
    g["options"] = {k: g["options"][k] for k in ("jackpots", "lockit", "wheel")}
    g["reels"] = {k: v for k, v in g["reels"].items() if k != "free_games"}
    for name in [*g["reels"].values(), lockit["awards"]]:
        shutil.copy(src / name, folder / name)
    (folder / "game.yaml").write_text(yaml.safe_dump(g, sort_keys=False))
    return load_game(folder)


def _hold_and_spin_free25(folder: Path, own_set: bool):
    """Hold and Spin with 25 lines and free games in ``folder`` (module notes)."""
    src = GAMES_DIR / "hold_and_spin"
    g = yaml.safe_load((src / "game.yaml").read_text())
    g["name"] = "hold_and_spin_free25" + ("" if own_set else "_base")
    g["paylines"] = _lines(3, 5, 25, g["paylines"])
    for name in g["reels"].values():
        shutil.copy(src / name, folder / name)
    if own_set:  # a file of its own, so that the base strips are written alone
        shutil.copy(src / g["reels"]["base"], folder / "reels_free.csv")
        g["reels"]["free"] = "reels_free.csv"
    g["options"]["free_games"] = {
        "symbol": "SCATTER",
        "reels": "free" if own_set else "base",
        "awards": {3: {"games": 8}},
        "retrigger": True,
    }
    g["options"]["hold_and_spin"]["in_free_games"] = True
    (folder / "game.yaml").write_text(yaml.safe_dump(g, sort_keys=False))
    return load_game(folder)


def stress_game(name: str, scratch: Path):
    """Write variant ``name`` under ``scratch`` and load it."""
    folder = Path(scratch) / name
    folder.mkdir(parents=True, exist_ok=True)
    if name == "grand_spinn_x4":
        return _grand_spinn_x4(folder)
    if name == "piggy_lines":
        return _piggy_lines(folder)
    if name.startswith("hold_and_spin_free25"):
        return _hold_and_spin_free25(folder, own_set=not name.endswith("_base"))
    (folder / "game.yaml").write_text(yaml.safe_dump(variant(name), sort_keys=False))
    return load_game(folder)
