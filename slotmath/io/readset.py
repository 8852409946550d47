"""The read set of a game: exactly the files its analysis reads.

A game reads its game file, the CSV file of every reel set given as a file
name (``reels: {base: reels_base.csv}``) and every file a string under
``options`` names (award tables); nothing else in its folder (a generator
script, scratch output) is part of it.  The PAR sheet identifies a game by
the SHA-256 digests of these files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from slotmath.io.gamefile import load_yaml, named_file, option_file


def option_files(folder: str | Path, options) -> list[Path]:
    """Files in ``folder`` that string values of ``options`` name (award
    tables), in the order the options list them, each once."""
    out: list[Path] = []
    stack = [options]
    while stack:
        node = stack.pop(0)
        if isinstance(node, Mapping):
            stack[:0] = list(node.values())
        elif isinstance(node, list):
            stack[:0] = node
        else:
            path = option_file(Path(folder), node)
            if path is not None and path not in out:
                out.append(path)
    return out


def read_set(game_path: str | Path) -> list[Path]:
    """The files a game reads: the game file first, then its reel CSV files
    (in reel-set order), then the files its options name, then those its
    bet modes' options name.

    Parameters
    ----------
    game_path : str or Path
        The game file (``Game.source``); it must load (see
        :func:`slotmath.io.gamefile.load_game`).
    """
    path = Path(game_path)
    data = load_yaml(path)
    out = [path]
    for name, spec in (data.get("reels") or {}).items():
        if isinstance(spec, str):
            csv_path = named_file(path, spec, f"reels.{name}")
            if csv_path not in out:
                out.append(csv_path)
    out += [p for p in option_files(path.parent, data.get("options") or {}) if p not in out]
    modes = data.get("modes") or {}
    out += [
        p for p in option_files(path.parent, [m.get("options") or {} for m in modes.values()]) if p not in out
    ]
    return out
