"""Project housekeeping: environment.yml lists every dependency of
pyproject.toml (extras included) for conda users, the version is written in
one place, the changelog keeps its form, and pre-commit runs the checks of
``make lint``."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import slotmath

from conftest import ROOT

# A pip extra that conda-forge ships as a package of its own.
CONDA_EXTRAS = {("dask", "distributed"): "distributed"}
CONDA_ENTRY = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def required() -> dict:
    """Every requirement of the package and its extras: {conda-style name: specifier}
    (an extra of another package, such as dask[distributed], adds that package)."""
    project = pyproject()["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs += extra
    names: dict = {}
    for text in specs:
        req = Requirement(text)
        if canonicalize_name(req.name) == "slotmath":  # dev = slotmath[...]: the extras above
            continue
        names[canonicalize_name(req.name)] = str(req.specifier)
        for extra in req.extras:
            names[CONDA_EXTRAS[(canonicalize_name(req.name), extra)]] = str(req.specifier)
    return names


def environment() -> tuple[dict, dict]:
    """environment.yml as ({conda package: specifier}, {pip package: specifier})."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert env["channels"] == ["conda-forge"]

    def parse(entry: str) -> tuple[str, str]:
        name, spec = CONDA_ENTRY.match(entry).groups()
        return canonicalize_name(name), spec.replace(" ", "")

    conda, pip = {}, {}
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            pip.update(parse(e) for e in entry["pip"])
        else:
            conda.update([parse(entry)])
    return conda, pip


def test_required_names_cover_the_extras():
    names = required()
    # worked from pyproject.toml: 8 runtime, 7 notebook, dask + distributed,
    # 7 test (pytest-xdist for make check), 5 docs and 7 lint requirements
    assert len(names) == 8 + 7 + 2 + 7 + 5 + 7
    assert {"numpy", "numba", "jupyterlab", "dask", "distributed", "sphinx", "ruff"} <= set(names)


def test_environment_lists_every_dependency_with_pyprojects_bounds():
    conda, pip = environment()
    listed = conda | pip
    missing = sorted(set(required()) - set(listed))
    assert not missing, f"environment.yml lacks {missing}"
    wrong = {n: (listed[n], s) for n, s in required().items() if listed[n] != s}
    assert not wrong, f"environment.yml bounds differ from pyproject.toml: {wrong}"


def test_runtime_and_notebook_libraries_come_from_conda_forge():
    conda, _ = environment()
    project = pyproject()["project"]
    for text in project["dependencies"] + project["optional-dependencies"]["notebook"]:
        assert canonicalize_name(Requirement(text).name) in conda, text
    assert {"python", "dask", "distributed"} <= set(conda)


def test_environment_installs_the_package_without_dependencies():
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert "pip install -e . --no-deps" in text


def test_version_is_written_once():
    project = pyproject()
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "slotmath.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", slotmath.__version__)
    # the installed distribution carries the same number (pip install -e . read it there)
    assert importlib.metadata.version("slotmath") == slotmath.__version__


def test_changelog_keeps_a_changelog_form():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings[0] == "[Unreleased]"
    for h in headings[1:]:
        assert re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", h), h
    sections = set(re.findall(r"^### (.*)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    assert sections


def test_pre_commit_runs_the_checks_of_make_lint():
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [h["entry"] for repo in hooks["repos"] for h in repo["hooks"]]
    lint = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nlint:")[1].split("\n\n")[0]
    for command in ("ruff check", "ruff format --check", "mypy"):
        assert any(e.startswith(command) for e in entries), command
        assert f"-m {command}" in lint, command
