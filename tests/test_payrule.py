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
