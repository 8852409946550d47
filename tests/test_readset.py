"""The read set of a game (slotmath.io.readset): exactly the files it reads,
which the PAR sheet's identification hashes."""

from __future__ import annotations

import shutil
from pathlib import Path

from slotmath.io.gamefile import load_game
from slotmath.io.readset import read_set

EXAMPLES = Path(__file__).resolve().parents[1] / "slotmath" / "examples"


def names(paths) -> list:
    return [p.name for p in paths]


def test_read_set_lists_the_game_file_its_reels_and_option_files():
    assert names(read_set(EXAMPLES / "hold_and_spin" / "game.yaml")) == [
        "game.yaml",
        "reels_base.csv",
        "reels_feature.csv",
    ]
    # Piggy's folder also holds its generator script and drafts: not read
    piggy = read_set(EXAMPLES / "piggy_bankin_superlock" / "game.yaml")
    assert names(piggy)[0] == "game.yaml" and "awards.csv" in names(piggy)
    assert "design.py" not in names(piggy) and all(p.is_file() for p in piggy)
    assert len(set(piggy)) == len(piggy)


def test_scratch_files_are_not_in_the_read_set(tmp_path):
    folder = tmp_path / "hold_and_spin"
    shutil.copytree(EXAMPLES / "hold_and_spin", folder)
    (folder / "make_reels.py").write_text("print('generator')\n")
    (folder / "scratch.csv").write_text("reel1\nA\n")
    game = load_game(folder / "game.yaml")
    assert names(read_set(game.source)) == ["game.yaml", "reels_base.csv", "reels_feature.csv"]
