"""Every symbol of a game has its own colour in the pictures (unless the game
file gives two the same), and the tables name symbols by the labels the
pictures show."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotmath.io.gamefile import load_game
from slotmath.pictures.frames import symbol_colours, symbol_style

EXAMPLES = Path(__file__).resolve().parents[1] / "slotmath" / "examples"


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if (p / "game.yaml").is_file()))
def test_each_symbol_has_its_own_colour(name):
    # a colour the game file declares is the author's (fruit_classic colours a
    # 7 and a bar alike on purpose); every other symbol gets a colour of its own
    game = load_game(EXAMPLES / name / "game.yaml")
    declared = {s.color.lower() for s in game.symbols if s.color}
    faces = [symbol_style(game, s.name)[0].lower() for s in game.symbols if s.kind != "blank" and not s.color]
    assert len(set(faces)) == len(faces) and not set(faces) & declared, faces
    assert symbol_colours(game) == [symbol_style(game, i)[0] for i in range(len(game.symbols))]


def test_paytable_shows_labels():
    from slotmath.report.game_sections import symbol_labels, wild_multipliers_text

    game = load_game(EXAMPLES / "ways4096" / "game.yaml")
    shown = symbol_labels(game)
    assert shown("WILD") == "Wild (WILD)" and shown("H1") == "H1"
    assert wild_multipliers_text(game) == "Wild x2 each"
