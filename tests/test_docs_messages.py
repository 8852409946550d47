"""The option errors docs/game-format.md quotes (section 13 and the table
of section 15) are the ones the program prints."""

from __future__ import annotations

import re
import shutil

from conftest import ROOT, run_cli_many

DOC = ROOT / "docs" / "game-format.md"


def quoted(prefix: str) -> set:
    """Every `...` span of the page starting with ``prefix``, its line
    breaks read as spaces."""
    text = DOC.read_text(encoding="utf-8")
    return {" ".join(m.split()) for m in re.findall(f"`({re.escape(prefix)}[^`]*)`", text)}


def test_documented_option_errors_are_printed(tmp_path):
    typo, unplayed = tmp_path / "typo", tmp_path / "unplayed"
    shutil.copytree(ROOT / "tests" / "data" / "format_example", typo)
    shutil.copytree(ROOT / "data" / "games" / "grand_spinn_superpot", unplayed)
    game = typo / "game.yaml"
    game.write_text(
        game.read_text(encoding="utf-8").replace("  free_games:", "  free_gmaes:"), encoding="utf-8"
    )
    game = unplayed / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8") + "  free_games: {symbol: X}\n", encoding="utf-8")
    printed = [p.stderr.strip() for p in run_cli_many([("validate", typo), ("validate", unplayed)])]
    for prefix, line in zip(("options.free_gmaes:", "options.free_games: a feature"), printed, strict=True):
        said = quoted(prefix)
        assert said, prefix
        assert all(line.endswith(f": {s}") for s in said), (line, said)
