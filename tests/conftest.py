"""Shared test fixtures: the repository root, the ``slotmath`` command and
small game files written to a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "tests" / "data"
GAMES = ROOT / "data" / "games"

# the toy tuning games' fixtures (small, mid, classic) for every test module
pytest_plugins = ["tuning_games"]


def slotmath_command() -> list:
    """The installed ``slotmath`` console script (falls back to ``python -m slotmath``)."""
    script = Path(sys.executable).parent / "slotmath"
    return [str(script)] if script.exists() else [sys.executable, "-m", "slotmath"]


def run_cli(*args, cwd=ROOT, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``slotmath ARGS`` in a subprocess (in ``cwd``) and capture its text output."""
    return subprocess.run(
        slotmath_command() + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def run_cli_many(invocations: list) -> list:
    """Run several ``slotmath`` invocations (argument tuples) concurrently, one
    per core; CompletedProcess results in order."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(lambda args: run_cli(*args), invocations))


@pytest.fixture
def write_game(tmp_path):
    """``write_game(data, name="game.yaml")``: write a game (dict or YAML text)
    into the test's temporary folder and return its path."""

    def write(data, name: str = "game.yaml") -> Path:
        path = tmp_path / name
        text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
        path.write_text(text, encoding="utf-8")
        return path

    return write


def distribution_dict(dist) -> dict:
    """A :class:`~slotmath.engine.distribution.WinDistribution` with integer weights as
    ``{win [x total bet] as Fraction: hit count}`` (zero counts dropped)."""
    from fractions import Fraction

    scale = dist.unit_den * dist.total_bet
    return {
        Fraction(int(w), scale): int(c)
        for w, c in zip(dist.wins.tolist(), dist.weights.tolist(), strict=True)
        if c
    }


def docs_example(tmp_path, heading, page="features.md", combine=None):
    """The game of the ``docs/<page>`` section ``heading`` (its first YAML
    block) and the section's text, up to the next ``##`` heading;
    ``combine`` (``"add"``) is written into its one-line
    ``wild_multipliers: {...}`` declaration."""
    import re

    from slotmath.io.gamefile import load_game

    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    section = section[: section.index("\n## ")] if "\n## " in section else section
    folder = tmp_path / "example"
    folder.mkdir()
    yaml_text = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    if combine is not None:
        declared = re.compile(r"(wild_multipliers: \{.*)\}$", re.M)
        yaml_text, n = declared.subn(rf"\1, combine: {combine}}}", yaml_text)
        assert n == 1, "one wild_multipliers line"
    (folder / "game.yaml").write_text(yaml_text, encoding="utf-8")
    return load_game(folder), section


# ----------------------------------------------------------------- test tiers
SLOW_LIST = ROOT / "tests" / "slow_tests.txt"


def slow_test_ids() -> frozenset:
    """Node ids of the heavy tests of ``tests/slow_tests.txt`` (comments and
    blank lines left out)."""
    lines = SLOW_LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(s for s in (line.strip() for line in lines) if s and not s.startswith("#"))


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` the tests that ``tests/slow_tests.txt`` lists (a line
    without parameters names every parameter of its test): ``make check``
    deselects them, ``make test`` runs them."""
    slow = slow_test_ids()
    for item in items:
        if item.nodeid in slow or item.nodeid.split("[", 1)[0] in slow:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def refused(monkeypatch):
    """Drawn multipliers' rewrite refused: a written stop may weigh at most 2
    (:func:`slotmath.features.wildmult.rewrite_refusal` reads the limit)."""
    from slotmath.io import gamefile

    monkeypatch.setattr(gamefile, "MAX_WEIGHT", 2)
