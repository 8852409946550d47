"""The pay rule and the model agree on whether a game reads its paylines:
the line engine asks the model (``Game.reads_paylines``) so that it need not
look the pay rule up (no import cycle inside ``slotmath.engine``)."""

from __future__ import annotations

import pytest

from slotmath.engine.payrule import pay_rule
from slotmath.io.gamefile import load_game
from slotmath.io.search import bundled_games

GAMES = sorted(p.name for p in bundled_games().iterdir() if p.is_dir())


@pytest.mark.parametrize("name", GAMES)
def test_pay_rule_reads_paylines_as_the_model_says(name):
    game = load_game(bundled_games() / name)
    assert pay_rule(game).has_paylines == game.reads_paylines


@pytest.mark.parametrize(
    "name, trigger",
    [("video20", "SCATTER"), ("tests/data/sticky_ways", "S"), ("tests/data/tumble_ways", None)],
)
def test_key_table_is_the_key_law_undecoded(name, trigger):
    # PayRule.key_table (the sticky wilds' per-mask passes) gives the law of
    # key_distribution as arrays: the same wins and counts, the key's digits
    # those of the decoded keys (a count in total, then one digit per reel)
    import numpy as np

    from slotmath.engine.joint import StopKey
    from slotmath.features.round import Trigger

    from conftest import ROOT

    game = load_game(ROOT / name) if "/" in name else load_game(bundled_games() / name)
    trigger = trigger or game.scatter_pays[0].symbol
    level = game.bet_levels[0].level
    by_stop = StopKey(tuple(np.arange(len(s)) % 2 for s in game.strips("base")), (2,) * game.reels)
    triggers = [Trigger(trigger), by_stop]
    rule = pay_rule(game)
    law = rule.key_distribution(game, level, triggers)
    wins, digits, counts, unit_den = rule.key_table(game, level, triggers)
    assert np.array_equal(wins, law.wins) and counts.tolist() == law.counts and unit_den == law.unit_den
    assert [(k[0], *k[1]) for k in law.keys] == [tuple(d) for d in digits.tolist()]
    assert len({k[1] for k in law.keys}) > 1  # the stop key is read
