"""Where game folders are found: the games search path.

A game named by a bare name (``slotmath par video20``) is looked for, in order,
in

1. each folder of the ``SLOTMATH_GAMES`` environment variable (separated by
   ``os.pathsep``),
2. ``data/games`` of the current project (the working directory or the
   nearest parent folder holding one),
3. the example games bundled with the package (``slotmath/examples``, read
   through :mod:`importlib.resources`, so an installed wheel has them).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

ENV = "SLOTMATH_GAMES"
PROJECT_GAMES = Path("data") / "games"


def project_games(start: Path | None = None) -> Path | None:
    """``data/games`` of the project holding ``start`` (default: the working
    directory), or None."""
    here = Path.cwd() if start is None else Path(start)
    for folder in (here, *here.resolve().parents):
        candidate = folder / PROJECT_GAMES
        if candidate.is_dir():
            return candidate
    return None


def bundled_games() -> Path:
    """The folder of the example games shipped with the package."""
    # in a source tree the link slotmath/examples -> data/games (named as its target)
    return Path(str(resources.files("slotmath").joinpath("examples"))).resolve()


def games_path() -> list[Path]:
    """The games search path, first match wins (see the module docstring)."""
    folders = [Path(p) for p in os.environ.get(ENV, "").split(os.pathsep) if p]
    project = project_games()
    if project is not None:
        folders.append(project)
    folders.append(bundled_games())
    return folders


def default_games_dir() -> Path:
    """The first folder of the search path that exists (where ``--all``
    commands list games and the workbench opens)."""
    for folder in games_path():
        if folder.is_dir():
            return folder
    return bundled_games()
