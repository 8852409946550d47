"""The pay tensor: the prefix-pruned build equals the tuple-by-tuple build,
and the cache is keyed on the pay table (not on the game object or strips)."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from slotmath.engine.lines import (
    compile_pays,
    pay_table_key,
    pay_tensor,
    pay_tensor_by_tuple,
    pay_tensor_pruned,
)
from slotmath.io.gamefile import load_game
from slotmath.model import Strip

from test_engine_properties import SETTINGS, games, load


def both(game, level):
    cp = compile_pays(game, level)
    S, R = len(game.symbols), game.reels
    return pay_tensor_by_tuple(S, R, cp.arrays), pay_tensor_pruned(S, R, cp.arrays)


@SETTINGS
@given(data=games(), pick=st.integers(0, 2))
def test_pruned_build_equals_the_full_build(data, pick):
    game = load(data)
    full, pruned = both(game, game.levels[pick % len(game.levels)])
    for a, b in zip(full, pruned, strict=True):  # wins, entries, multipliers
        np.testing.assert_array_equal(a, b)


def test_pruned_build_on_the_sample_games():
    for name in ("video20", "fruit_classic"):
        game = load_game(name)
        for level in game.levels:
            full, pruned = both(game, level)
            for a, b in zip(full, pruned, strict=True):
                np.testing.assert_array_equal(a, b)


def test_cache_is_keyed_on_the_pay_table():
    game = load_game("video20")
    level = game.levels[0]
    tensor = pay_tensor(game, level)
    # other strips and another name: the same pay table, the same tensor
    strips = list(game.strips("base"))
    strips[0] = Strip(tuple(reversed(strips[0].symbols)))
    moved = dataclasses.replace(game, name="other", reel_sets={**game.reel_sets, "base": tuple(strips)})
    assert pay_table_key(moved, level) == pay_table_key(game, level)
    assert pay_tensor(moved, level) is tensor
    # a changed pay: a new tensor with the new win where that entry pays
    lps = list(game.line_pays)
    lps[0] = dataclasses.replace(lps[0], pays=tuple(p + 1 for p in lps[0].pays))
    repaid = dataclasses.replace(game, line_pays=tuple(lps))
    other = pay_tensor(repaid, level)
    assert other is not tensor
    hit = tensor.entries == 0
    assert hit.any()
    np.testing.assert_array_equal(
        other.wins[~hit & (other.entries != 0)], tensor.wins[~hit & (other.entries != 0)]
    )
    assert (other.wins[other.entries == 0] > 0).all()
    # another bet level of a non-linear table is another key
    classic = load_game("fruit_classic")
    assert pay_table_key(classic, 1) != pay_table_key(classic, 3)
