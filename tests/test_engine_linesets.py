"""The line-set pass of the line distribution (:mod:`slotmath.engine.linesets`):
row suffixes and projected stop classes worked by hand, equality with
brute-force enumeration where many lines share their rows (merged into one
set entry) and on a 7-row grid (beyond the table of row subsets), and the
refusal above the work bound in one line."""

from __future__ import annotations

import numpy as np
import pytest

from slotmath.engine.evaluate import brute_force_distribution
from slotmath.engine.joint import (
    ALL_SUBSETS_ROWS,
    EngineTooLarge,
    projections,
    spin_distribution,
    spin_key_distribution,
)
from slotmath.engine.linesets import line_suffixes
from slotmath.io.gamefile import load_game

from conftest import distribution_dict


def test_line_suffixes_worked_by_hand():
    # lines (rows per reel): 0 = (0,1,2), 1 = (1,1,2), 2 = (0,1,0), 3 = (0,0,0)
    # reel 1 on: all four differ -> ids in lexicographic order of the rows:
    #   (0,0,0)=0, (0,1,0)=1, (0,1,2)=2, (1,1,2)=3 -> sid[0] = [2, 3, 1, 0]
    # reel 2 on: (1,2), (1,2), (1,0), (0,0) -> lines 0 and 1 are one suffix:
    #   (0,0)=0, (1,0)=1, (1,2)=2 -> sid[1] = [2, 2, 1, 0]
    # reel 3 on: (2), (2), (0), (0) -> sid[2] = [1, 1, 0, 0]
    lines = np.array([[0, 1, 2], [1, 1, 2], [0, 1, 0], [0, 0, 0]])
    sid, row_of, next_sid = line_suffixes(lines)
    assert sid.tolist() == [[2, 3, 1, 0], [2, 2, 1, 0], [1, 1, 0, 0]]
    # suffix i at reel k reads row row_of[k, i] and continues as next_sid[k, i]
    assert row_of[0, :4].tolist() == [0, 0, 0, 1]
    assert row_of[1, :3].tolist() == [0, 1, 1]
    assert row_of[2, :2].tolist() == [0, 2]
    assert next_sid[0, :4].tolist() == [0, 1, 2, 2]  # (0,1,2) and (1,1,2) both go on as (1,2)
    assert next_sid[1, :3].tolist() == [0, 0, 1]


def test_projections_worked_by_hand():
    # three stop classes of a 2-row reel (symbols 0..3; symbols 2 and 3 are one
    # symbol class), codes 0/0/1, weights 1/2/4:
    #   class 0: rows (0, 2) code 0 w 1;  class 1: (0, 3) code 0 w 2;  class 2: (1, 2) code 1 w 4
    # row 0 alone: {symbol 0, code 0}: 1 + 2 = 3; {symbol 1, code 1}: 4
    # row 1 alone: {class of 2 = class of 3, code 0}: 1 + 2 = 3; {same class, code 1}: 4
    # both rows: classes 0 and 1 are one (3), class 2 alone (4)
    sym = np.array([[0, 2], [0, 3], [1, 2]])
    w = np.array([1, 2, 4])
    code = np.array([0, 0, 1])
    sym_class = np.array([0, 1, 2, 2])
    p_sym, p_w, p_code, start, length = projections(sym, w, code, sym_class)
    assert length.tolist() == [-1, 2, 2, 2]
    for mask in (1, 2, 3):
        at = slice(start[mask], start[mask] + length[mask])
        got = sorted(zip(p_code[at].tolist(), p_w[at].tolist(), strict=True))
        assert got == [(0, 3), (1, 4)]
        assert p_w[at].sum() == w.sum()


SHARED = """
grid: {reels: 4, rows: 3}
bet: {levels: [1, 2]}
symbols:
  - {name: W, kind: wild, substitutes: all, multiplier: {per_wild: 2}}
  - {name: A}
  - {name: B}
  - {name: C}
  - {name: S, kind: scatter}
reels:
  base:
    - [A, B, C, A, W, S, C, A, B]
    - [B, W, A, C, S, A, A, C]
    - [C, A, W, B, A, S, C, B, A]
    - [A, C, B, S, A, W, C]
paylines:
  - [0, 0, 0, 0]
  - [1, 0, 0, 0]
  - [2, 0, 0, 0]
  - [0, 1, 1, 1]
  - [1, 1, 1, 1]
  - [2, 1, 1, 1]
  - [0, 2, 1, 1]
  - [1, 2, 2, 0]
  - [2, 2, 2, 0]
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 5}
  - {symbol: A, count: 4, pay: 50}
  - {symbol: B, count: 3, pay: 4}
  - {symbol: B, count: 4, pay: 30}
  - {symbol: C, count: 3, pay: 3}
  - {symbol: C, count: 4, pay: 20}
  - {symbol: W, count: 4, pay: 100}
scatters:
  - {symbol: S, count: 2, pay: 2}
  - {symbol: S, count: 3, pay: 1/3}
"""


@pytest.mark.parametrize("level", [1, 2])
def test_lines_sharing_rows_equal_brute_force(write_game, level):
    # groups of three lines agree from reel 2 on (and two from reel 3 on), so
    # their live lines merge into one suffix entry per automaton state; every
    # stop combination (9 x 8 x 9 x 7) is enumerated
    game = load_game(write_game(SHARED))
    brute = {w: c for w, c in brute_force_distribution(game, level).items() if c}
    assert distribution_dict(spin_distribution(game, level)) == brute


def test_lines_sharing_rows_keyed_by_scatter_count(write_game):
    # the key (the scatter count anywhere) rides in the code through the merged
    # moves: the joint law of (win, key) against every stop combination
    from fractions import Fraction as F
    from itertools import product

    from slotmath.engine.evaluate import total_wins, window_at
    from slotmath.features.round import Trigger

    game = load_game(write_game(SHARED))
    kw = spin_key_distribution(game, 1, [Trigger("S", False)])
    got: dict = {}
    for w, k, c in zip(kw.wins.tolist(), kw.keys, kw.counts, strict=True):
        at = (F(w, kw.unit_den * kw.total_bet), k)
        got[at] = got.get(at, 0) + c
    s = game.symbol_index["S"]
    windows = np.array([window_at(game, stops) for stops in product(*map(range, map(len, game.strips())))])
    brute: dict = {}
    for window, win in zip(windows, total_wins(game, 1, windows), strict=True):
        at = (F(win).limit_denominator(10**9), (int((window == s).sum()),))
        brute[at] = brute.get(at, 0) + 1
    assert got == brute


TALL = """
grid: {reels: 3, rows: 7}
bet: {levels: [1]}
symbols:
  - {name: W, kind: wild, substitutes: all}
  - {name: A}
  - {name: B}
  - {name: S, kind: scatter}
reels:
  base:
    - [A, B, A, S, B, B, A, A]
    - [B, W, A, B, S, A, B]
    - [A, A, B, W, B, S, A, B, B]
paylines:
  - [0, 0, 0]
  - [3, 3, 3]
  - [6, 6, 6]
  - [0, 3, 6]
  - [6, 3, 0]
  - [1, 5, 2]
  - [2, 4, 4]
pays:
  - {symbol: A, count: 2, pay: 1}
  - {symbol: A, count: 3, pay: 7}
  - {symbol: B, count: 3, pay: 5}
scatters:
  - {symbol: S, count: 3, pay: 4}
"""


def test_seven_rows_beyond_the_subset_table_equal_brute_force(write_game):
    # 7 rows > ALL_SUBSETS_ROWS: a set reading two or more rows uses the
    # whole-window classes, one row its single-row projection
    assert ALL_SUBSETS_ROWS < 7
    game = load_game(write_game(TALL))
    brute = {w: c for w, c in brute_force_distribution(game, 1).items() if c}
    assert distribution_dict(spin_distribution(game, 1)) == brute


def test_refusal_names_line_sets_in_one_line(write_game):
    game = load_game(write_game(SHARED))
    with pytest.raises(EngineTooLarge) as err:
        spin_distribution(game, 1, max_line_steps=50)
    message = str(err.value)
    assert "\n" not in message and "still too large: reel" in message and "line sets" in message
    assert "simulate instead" in message
