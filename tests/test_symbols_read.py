"""Every symbol on a paid reel set is read by some rule of the game there,
or ``validate`` refuses it in one line naming the reel set and the symbol
(issue: one round model, point 4): a hold-and-spin COIN placed on the free
games' reels would show and never pay, a silently wrong RTP."""

import shutil
from pathlib import Path

import pytest
import yaml

from slotmath.cli import main
from slotmath.io.gamefile import GameFileError, load_game
from slotmath.rules.linegame import symbols_read

from conftest import ROOT

HOLD_AND_SPIN = ROOT / "data" / "games" / "hold_and_spin"


def with_free_games(tmp_path, free_strips_from: str = "base") -> Path:
    """data/games/hold_and_spin plus free games on reel set ``free``, whose
    strips are those of ``free_strips_from`` with the COIN stops made TEN
    (or kept, for ``base``)."""
    folder = tmp_path / "g"
    shutil.copytree(HOLD_AND_SPIN, folder)
    path = folder / "game.yaml"
    data = yaml.safe_load(path.read_text())
    base = load_game(HOLD_AND_SPIN).strips("base")
    strips = [list(s.symbols) for s in base]
    if free_strips_from == "no coins":
        strips = [["TEN" if x == "COIN" else x for x in s] for s in strips]
    data["reels"]["free"] = strips
    data["options"]["free_games"] = {"symbol": "SCATTER", "reels": "free", "awards": {3: {"games": 5}}}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_coin_on_the_free_reels_is_refused(tmp_path, capsys):
    path = with_free_games(tmp_path)
    with pytest.raises(GameFileError) as err:
        load_game(path)
    assert err.value.field.startswith("reels.free[") and "'COIN'" in err.value.problem
    assert main(["validate", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "reels.free[" in lines[0] and "'COIN'" in lines[0]


def test_the_same_game_without_coins_on_the_free_reels_validates(tmp_path):
    game = load_game(with_free_games(tmp_path, "no coins"))
    read = symbols_read(game)
    # the base set reads the coin (the hold-and-spin's trigger); the free set
    # reads the pays, the wild and the retriggering scatter, not the coin
    assert "COIN" in read["base"] and "COIN" not in read["free"]
    assert {"SCATTER", "TEN"} <= read["free"]
