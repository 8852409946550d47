"""A pay no spin can win (its symbol, or a wild for it, on no reel set's
reel it needs) is named by ``validate`` in a warning line (exit 0) and in a
note of the PAR sheet, not silently left out of the combination table."""

from __future__ import annotations

import json
from itertools import product

from slotmath.io.gamefile import load_game

from conftest import run_cli_many

GAME = {
    "name": "dead_pay",
    "grid": {"reels": 3, "rows": 1},
    "bet": {"levels": [1]},
    "symbols": [{"name": "A"}, {"name": "W", "kind": "wild"}, {"name": "X", "kind": "blank"}],
    # W on reels 2 and 3 only: 3 x W needs it on reel 1 too
    "reels": {"base": [["A", "X", "A"], ["A", "W", "X"], ["W", "A", "X"]]},
    "paylines": [[0, 0, 0]],
    "pays": [{"symbol": "W", "count": 3, "pay": 50}, {"symbol": "A", "count": 3, "pay": 5}],
}


def test_a_dead_pay_is_warned_by_validate_and_noted_by_par(write_game):
    path = write_game(GAME)
    game = load_game(path)
    # the claim, by every stop of the cycle: no window shows W W W; A A A (wilds helping) does
    windows = list(product(*(s.symbols for s in game.strips("base"))))
    assert not any(w == ("W", "W", "W") for w in windows)
    assert any(all(s in ("A", "W") for s in w) for w in windows)
    (rc, out, err), (prc, pout, perr) = [
        (p.returncode, p.stdout, p.stderr)
        for p in run_cli_many([("validate", path), ("par", path, "--json")])
    ]
    warning = "pays[0]: 3 x W can never hit: W is on reel 1 of no reel set (base)"
    assert rc == 0 and "ok" in out
    assert err.splitlines() == [f"slotmath: warning: {path}: {warning}"]  # only the dead pay: A's lives
    assert prc == 0, perr
    sheet = json.loads(pout)
    assert f"Warning: {warning}." in sheet["notes"]
    assert "3 x W" not in {row["combination"] for row in sheet["combinations"]}
