"""The package's shape: the layer contract (import-linter), no module reaching
another module's private names, a light command line, and no module over 800
lines."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

HEAVY = ("numba", "pandas", "scipy", "matplotlib")


def test_layer_contract_is_kept():
    """``lint-imports`` (contracts in pyproject.toml): every layer imports only
    the layers below it, and the games do not import each other."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    proc = subprocess.run(
        [exe, "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def imported_after(args: list[str], cwd=ROOT) -> set[str]:
    """The top-level modules in ``sys.modules`` after ``slotmath ARGS`` ran in
    a fresh interpreter."""
    code = (
        "import json, sys\nfrom slotmath.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["validate", "video20"],
        ["validate", "grand_spinn_superpot"],
        ["validate", "piggy_bankin_superlock"],
    ],
)
def test_light_commands_import_no_numerics(args):
    """--help, --version and validate import neither numba, pandas, scipy nor
    matplotlib (the rules packages' checks are light; the analysis is not
    imported to validate a game file)."""
    assert not imported_after(args) & set(HEAVY)


GAME_FOLDERS = sorted(
    p.parent
    for p in [*(ROOT / "data" / "games").glob("*/game.yaml"), *(ROOT / "tests" / "data").glob("*/game.yaml")]
    if p.parent.name != "tune_hook"  # its rules are registered by the test that uses it
)


@pytest.mark.parametrize("folder", GAME_FOLDERS, ids=lambda p: p.name)
def test_validate_is_light_on_every_game(folder):
    """``slotmath validate`` on every valid game folder (data/games/*, tests/data/*
    but bad/) says ok, imports neither numba, pandas nor scipy, and takes under
    1 s of CPU: measured inside the process (``time.process_time``, so a busy
    machine does not count) from before ``import slotmath.cli`` to the end of
    ``main`` (interpreter start excluded)."""
    code = (
        "import json, sys, time\nt0 = time.process_time()\nfrom slotmath.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "t = time.process_time() - t0\n"
        "print(json.dumps([t, sorted({m.split('.')[0] for m in sys.modules})]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "validate", str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    seconds, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not set(modules) & {"numba", "pandas", "scipy"}
    assert seconds < 1.0, seconds


def test_version():
    proc = subprocess.run(
        [sys.executable, "-m", "slotmath", "--version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    import slotmath

    assert proc.returncode == 0 and proc.stdout.strip() == f"slotmath {slotmath.__version__}"


def test_help_lists_every_command():
    """The upper layers' commands are listed without importing their modules."""
    proc = subprocess.run(
        [sys.executable, "-m", "slotmath", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0
    for command in ("validate", "par", "simulate", "report", "tune", "sensitivities"):
        assert command in proc.stdout


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_reaches(source: str, module: str, is_package: bool = False) -> list[str]:
    """Each ``from slotmath.X import _name`` (``_name`` not a dunder) and each
    ``alias._name`` of a name imported from slotmath, in ``source`` (the
    module ``module``), where the name belongs to another module: as
    ``"LINE: slotmath.X._name"``."""
    tree = ast.parse(source)
    bound = {}  # local name -> the slotmath module or name it is bound to
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + is_package]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if src.split(".")[0] != "slotmath":
                continue
            for alias in node.names:
                if _private(alias.name) and src != module:
                    found.append((node.lineno, f"{src}.{alias.name}"))
                bound[alias.asname or alias.name] = f"{src}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "slotmath":
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound["slotmath"] = "slotmath"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner, chain = node.value, []
            while isinstance(owner, ast.Attribute):
                chain.insert(0, owner.attr)
                owner = owner.value
            if isinstance(owner, ast.Name) and owner.id in bound:
                target = ".".join([bound[owner.id], *chain])
                if target != module:
                    found.append((node.lineno, f"{target}.{node.attr}"))
    return [f"{line}: {name}" for line, name in sorted(found)]


def test_the_private_name_scan_finds_each_form():
    source = (
        "from slotmath.engine.lines import _pay_tensor, __doc__, pay_tensor\n"
        "from slotmath.engine.lines import (\n    compile_pays,\n    _line_pay as lp,\n)\n"
        "from ._own import _helper\n"
        "from slotmath.rules.piggy_bankin_superlock import analysis as pbs\n"
        "import slotmath.engine.cache\n"
        "pbs._chain(1)\npbs.breakdown(1)\nslotmath.engine.cache._TABLES\n"
    )
    assert private_reaches(source, "slotmath.engine.ways") == [
        "1: slotmath.engine.lines._pay_tensor",
        "2: slotmath.engine.lines._line_pay",
        "6: slotmath.engine._own._helper",
        "9: slotmath.rules.piggy_bankin_superlock.analysis._chain",
        "11: slotmath.engine.cache._TABLES",
    ]
    # a module's own private names, and a package's relative import of its own module
    assert private_reaches("from slotmath.engine.ways import _x\n", "slotmath.engine.ways") == []
    assert private_reaches("from .ways import _x\n", "slotmath.engine", is_package=True) == [
        "1: slotmath.engine.ways._x"
    ]


def test_no_module_reaches_another_modules_private_names():
    """A name another module uses is part of its module's interface: public
    (docs/architecture.md).  Checked in the package, the tests and the
    benchmarks: imports of ``_name`` and ``module._name`` attribute access."""
    found = [
        f"{p.relative_to(ROOT)}:{hit}"
        for folder in ("slotmath", "tests", "benchmarks")
        for p in sorted((ROOT / folder).rglob("*.py"))
        for hit in private_reaches(p.read_text(encoding="utf-8"), _module_name(p), p.name == "__init__.py")
    ]
    assert not found, "\n".join(found)


def pays_by_reads(source: str) -> list:
    """Lines of ``source`` that branch on a game's ``pays_by``: a comparison
    with it, a subscript by it, or a ``.get`` of it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Subscript):
            operands = [node.slice]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            operands = list(node.args)
        else:
            continue
        if any(isinstance(x, ast.Attribute) and x.attr == "pays_by" for x in operands):
            found.append(node.lineno)
    return sorted(found)


def test_the_pays_by_scan_finds_each_form():
    source = (
        "if game.pays_by == 'ways':\n    pass\n"
        "rule = RULES[game.pays_by]\n"
        "rule = RULES.get(g.pays_by)\n"
        "x = 'cluster' in (game.pays_by,)\n"  # a tuple holding it: not a comparison with it
        "words = f'pays_by: {game.pays_by}'\n"
    )
    assert pays_by_reads(source) == [1, 3, 4]


def test_only_the_pay_rules_branch_on_pays_by():
    """Issue 23 point 1: the consumers ask the pay rule
    (:mod:`slotmath.engine.pays`, :mod:`slotmath.engine.payrule`); only the
    rules' registry, the model that holds the field and the game file
    reader read it."""
    allowed = {"slotmath/engine/pays.py", "slotmath/model.py"}
    found = [
        f"{p.relative_to(ROOT).as_posix()}:{line}"
        for p in sorted((ROOT / "slotmath").rglob("*.py"))
        if p.relative_to(ROOT).as_posix() not in allowed
        and not p.relative_to(ROOT).as_posix().startswith("slotmath/io/")
        for line in pays_by_reads(p.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


@pytest.mark.slow  # collects the whole suite
def test_every_listed_slow_test_exists():
    """Each line of ``tests/slow_tests.txt`` (the tests ``make check`` leaves
    out) names a collected test, with or without its parameters: a renamed
    or removed test is not silently kept in the fast tier's list."""
    from conftest import slow_test_ids

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    collected = set(done.stdout.splitlines())
    functions = {node.split("[", 1)[0] for node in collected}
    missing = sorted(i for i in slow_test_ids() if i not in collected and i not in functions)
    assert not missing, f"tests/slow_tests.txt names tests that do not exist: {missing}"
