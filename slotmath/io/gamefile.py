"""Read and validate game files into a :class:`slotmath.model.Game`.

A game lives in ``data/games/<name>/game.yaml`` (long strips may sit in CSV
files beside it).  Structure is checked against the JSON Schema shipped in
``slotmath/io/schema/game.schema.json``; meaning (names resolve, rows fit the
grid, weights are usable, ...) is checked here.  Every problem raises
:class:`GameFileError` naming the file, the field and the problem.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
import sys
import typing
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from math import prod
from pathlib import Path

# jsonschema eagerly imports the optional IRI format checker rfc3987_syntax,
# which builds dozens of parsers at import time (seconds per CLI call;
# python-jsonschema/jsonschema#1428).  Game files use no "format" keywords,
# so keep it out unless something in this process already loaded jsonschema.
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

import jsonschema
import yaml

from slotmath.errors import GameFileError, unknown_key
from slotmath.io.colours import is_colour
from slotmath.io.files import inside, size_problem
from slotmath.io.search import default_games_dir, games_path
from slotmath.io.terminal import terminal_text
from slotmath.model import (
    KEEP_CAP,
    BetLevel,
    Buy,
    Game,
    LinePay,
    Mode,
    ReelHeights,
    ScatterPay,
    Strip,
    Symbol,
    TopReel,
    WildRule,
)

#: the first existing folder of the games search path (see :mod:`slotmath.io.search`)
GAMES_DIR = default_games_dir()
EXACT_LIMIT = 2**62  # cycle x lines must stay below this (int64 hit counts)
GAME_FILE = "game.yaml"
#: Most values (scalars, lists, mappings; aliases expanded) one YAML file may hold.
MAX_NODES = 250_000
#: Deepest nesting of lists and mappings in a game file.
MAX_DEPTH = 64
#: Largest win of one spin in the smallest win unit (coins over the scatter
#: pays' common denominator): every win and hit-count product stays exact.
MAX_WIN_UNITS = 2**53
#: Largest stop weight.
MAX_WEIGHT = 2**32
#: Largest denominator of a fractional scatter pay (and of their common
#: multiple): 1/2, 3/10, 0.05 and 1/999983 pass.  The exact engine's win table
#: is sparse, so a fine win unit costs no memory; the bound keeps every win
#: in win units below :data:`MAX_WIN_UNITS` for realistic pays.
MAX_PAY_DENOMINATOR = 10**6
#: Dearest bet mode (``modes.NAME.cost``) [x total bet]: the bound of every
#: amount [x total bet] a game file gives (prizes, jackpots, caps).
MAX_MODE_COST = 10**9
#: Most bet modes beside the base mode.
MAX_MODES = 32
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=1)
def game_schema() -> dict:
    """The game-file JSON Schema."""
    text = resources.files("slotmath").joinpath("io/schema/game.schema.json").read_text()
    return json.loads(text)


def option_file(folder: Path, value) -> Path | None:
    """The file a game option's string ``value`` names (relative to the game
    file's ``folder``), or None when it names no existing file inside the
    folder (see :func:`slotmath.io.files.inside`) no larger than the file limit
    (not a string, empty, multi-line, too long for a path)."""
    if not isinstance(value, str) or not value or len(value) >= 256 or "\n" in value:
        return None
    try:
        path, problem, _ = file_problem(folder, value)
    except (OSError, ValueError):  # not a usable path
        return None
    return None if problem else path


def named_file(game_path: Path, value: str, field: str) -> Path:
    """The file ``value`` (relative to the game file's folder) that field
    ``field`` of ``game_path`` names, checked: it exists, lies inside the
    game's folder (unless ``--allow-outside``) and is within the size limit."""
    path, problem, in_file = file_problem(Path(game_path).parent, value)
    if problem:
        raise GameFileError(path if in_file else game_path, field, problem)
    return path


def file_problem(folder: Path, value: str) -> tuple:
    """``(path, problem, in_file)`` of the file ``value`` names relative to
    ``folder``: ``problem`` is None, or says that it is not found, lies
    outside the folder (:func:`slotmath.io.files.inside`), is not a regular
    file (a folder, a device, a pipe: never opened) or is too large;
    ``in_file`` is True for a problem of the file itself (its size)."""
    path = Path(folder) / value
    try:
        exists, regular = path.exists(), path.is_file()
    except (OSError, ValueError):
        exists = regular = False
    if not exists:
        return path, f"file {str(value)[:100]!r} not found", False
    if not inside(folder, path):
        return (
            path,
            f"file {str(value)[:100]!r} is outside the game's folder (pass --allow-outside to allow it)",
            False,
        )
    if not regular:
        return path, f"{str(value)[:100]!r} is not a regular file (a folder, a device or a pipe)", False
    problem = size_problem(path)
    return path, problem, problem is not None


def resolve_game_path(spec: str | Path, games_dir: Path | None = None) -> Path:
    """Find the game file for ``spec``: a file, a folder holding
    ``game.yaml``, or a folder name in ``games_dir`` or else on the games
    search path (:func:`slotmath.io.search.games_path`)."""
    p = Path(spec)
    candidates = [p, p / GAME_FILE]
    if len(p.parts) == 1:
        for base in [Path(games_dir)] if games_dir else games_path():
            candidates += [base / p / GAME_FILE, base / f"{p}.yaml"]
    for c in candidates:
        if c.is_file():
            return c
    raise GameFileError(
        spec, "", f"no such game file or game folder (looked for {', '.join(str(c) for c in candidates)})"
    )


def field_path(parts) -> str:
    """Format a JSON path (``['reels', 'base', 2]``) as ``reels.base[2]``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML loader (libyaml when present) that rejects a key repeated
    in one mapping (plain YAML keeps the last one silently, dropping e.g. a
    whole reel set)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, (str, int, float, bool, type(None))):
                raise yaml.constructor.ConstructorError(
                    None, None, "a key must be a plain value, not a list or mapping", key_node.start_mark
                )
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {str(key)[:40]!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# YAML 1.1 (PyYAML) reads ``1e300`` and ``1.0e3`` as strings (its floats need
# a dot and a signed exponent); YAML 1.2 and every spreadsheet read them as
# numbers, as a game file's author does.  Resolved after the ints and floats.
UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def _children(node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return node.value if isinstance(node, yaml.SequenceNode) else []


def check_nodes(root, path: Path) -> None:
    """Refuse a YAML node graph that expands (aliases followed) to more than
    :data:`MAX_NODES` values, nests deeper than :data:`MAX_DEPTH` or refers
    to itself; counted without expanding, so an alias bomb is refused fast."""
    size: dict = {}
    height: dict = {}
    open_: set = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        kids = _children(node)
        if done:
            open_.discard(key)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            if size[key] > MAX_NODES:
                raise GameFileError(
                    path, "", f"the document holds more than {MAX_NODES:,} values (aliases expanded)"
                )
            if height[key] > MAX_DEPTH:
                raise GameFileError(
                    path,
                    "",
                    f"lists and mappings nest deeper than {MAX_DEPTH} "
                    f"levels (line {node.start_mark.line + 1})",
                )
        elif key in open_:
            raise GameFileError(
                path, "", f"an alias refers to its own anchor (line {node.start_mark.line + 1})"
            )
        elif key not in size:
            open_.add(key)
            stack.append((node, True))
            stack += [(k, False) for k in kids if id(k) not in size]


def load_yaml(path: Path):
    """The data in YAML file ``path``, within the loading limits (size,
    values, depth, no duplicate keys)."""
    problem = size_problem(path)
    if problem:
        raise GameFileError(path, "", problem)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise GameFileError(path, "", f"cannot read file: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise GameFileError(path, "", f"not UTF-8 text (byte {exc.start})") from None
    if text.count(",") + text.count("\n") > MAX_NODES:  # a value per comma or line, roughly
        raise GameFileError(path, "", f"the document holds more than {MAX_NODES:,} values")
    loader = UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_nodes(node, path)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())[:200]
        raise GameFileError(path, "", f"malformed YAML: {where}{problem}") from None
    finally:
        loader.dispose()


def check_numbers(data, path: Path) -> None:
    """Refuse non-finite numbers (``.nan``, ``.inf``) anywhere in the file."""
    stack: list = [(data, [])]
    while stack:
        value, where = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise GameFileError(
                path, field_path(where), f"non-finite number {value} (every number must be finite)"
            )
        if isinstance(value, dict):
            stack += [(v, where + [str(k)]) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, where + [i]) for i, v in enumerate(value)]


def load_game(spec: str | Path, games_dir: Path | None = None) -> Game:
    """Load, validate and return the game named or located by ``spec``."""
    path = resolve_game_path(spec, games_dir)
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise GameFileError(path, "", "the file must hold a mapping (key: value pairs)")
    check_numbers(data, path)
    default_name = path.parent.name if path.name == GAME_FILE else path.stem
    if not NAME.fullmatch(default_name):  # a folder name that is no plain identifier
        default_name = re.sub(r"\W", "_", default_name, flags=re.ASCII)
        default_name = default_name if NAME.fullmatch(default_name) else f"_{default_name}"
    game = build_game(data, path, default_name)
    check_rules(game)
    return game


def check_level(game: Game, level: int | None) -> None:
    """Raise :class:`GameFileError` unless ``level`` is None (the default
    level) or one of the game's bet levels."""
    if level is not None and level not in game.levels:
        raise GameFileError(
            game.source,
            "bet.levels",
            f"bet level {level} is not offered (levels: {', '.join(map(str, game.levels))})",
        )


def ways_problem(game: Game) -> tuple | None:
    """(field, problem) when ``game``'s pays cannot be paid by ways, else None."""
    for i, lp in enumerate(game.line_pays):
        if lp.anywhere is not None:
            return f"pays[{i}]", "an 'anywhere' pay does not apply with pays_by: ways"
        first = lp.positions[0]
        if len(first) != 1 or any(p != first for p in lp.positions):
            return f"pays[{i}]", "with pays_by: ways a pay must be n of a kind of one symbol"
        kind = game.symbol(next(iter(first))).kind
        if kind in ("wild", "scatter"):
            return f"pays[{i}]", f"a {kind}'s own pay is not supported with pays_by: ways"
    counts: dict = {}
    for lp in game.line_pays:
        counts.setdefault(next(iter(lp.positions[0])), []).append(len(lp.positions))
    for name, ns in counts.items():
        if sorted(ns) != list(range(min(ns), game.reels + 1)):
            return "pays", (
                f"with pays_by: ways {name}'s pays must list every count from "
                f"{min(ns)} to {game.reels} (listed: {sorted(ns)})"
            )
    return None


def check_rules(game: Game) -> None:
    """Check that ``game.rules`` is a registered rules name
    (:mod:`slotmath.rules.registry`), then run those rules' checks
    (:meth:`slotmath.rules.contract.Rules.check`: the options they read and
    their own rules)."""
    from slotmath.rules.registry import UnknownRules, get_rules  # the one upward look-up (see pyproject)

    try:
        rules = get_rules(game.rules)
    except UnknownRules as exc:
        raise GameFileError(game.source, "rules", str(exc)) from None
    rules.check(game)


def _is_integer(checker, value) -> bool:
    """An integer is written as one: 2.0 is not an integer (nor is True)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(checker, value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@lru_cache(maxsize=1)
def game_validator():
    """The JSON-Schema validator of game files (integers written as integers,
    finite numbers)."""
    base = jsonschema.Draft202012Validator
    types = base.TYPE_CHECKER.redefine_many({"integer": _is_integer, "number": _is_number})
    return jsonschema.validators.extend(base, type_checker=types)(game_schema())


def not_an_integer(value) -> str:
    """The problem of ``value`` where an integer is required (a whole
    number is written without a decimal point, docs/game-format.md 15.1)."""
    if isinstance(value, float) and value.is_integer():
        return (
            f"{value!r} is not an integer (write {int(value)}: "
            "whole numbers are written without a decimal point)"
        )
    return f"must be a whole number written as an integer, got {value!r}"


def _misspelt_instead(error, errors: list):
    """The unknown-key error of the mapping ``error`` finds a required key
    missing from, when one of its unknown keys is that key misspelt
    (``gird:`` for ``grid:``, ``cots:`` for a mode's ``cost:``), else
    ``error``: the misspelt key, named with the nearest allowed one, is the
    mistake the user made; "'grid' is a required property" names neither."""
    import difflib

    if error.validator != "required" or not isinstance(error.instance, dict):
        return error
    missing = [k for k in error.validator_value if k not in error.instance]
    for other in errors:
        here = list(other.absolute_path) == list(error.absolute_path)
        if other.validator != "additionalProperties" or not here:
            continue
        allowed = other.schema.get("properties", {})
        unknown = [str(k) for k in other.instance if k not in allowed]
        if any(difflib.get_close_matches(k, missing, n=1) for k in unknown):
            return other
    return error


_TYPE_WORDS = {
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
}


def _form(branch: dict) -> str:
    """One accepted form of a ``oneOf``/``anyOf`` branch, in words: ``a list
    of strings``, ``a mapping with keys symbols (required), weights``."""
    if "const" in branch:
        return repr(branch["const"])
    word = _TYPE_WORDS.get(str(branch.get("type")), "a value")
    if branch.get("type") == "array" and isinstance(branch.get("items"), dict):
        item = _TYPE_WORDS.get(str(branch["items"].get("type")), "")
        ref = str(branch["items"].get("$ref", "")).rpartition("/")[2]
        word += f" of {item[2:]}s" if item.startswith("a ") else f" of {ref}s" if ref else ""
    if branch.get("type") == "object" and branch.get("properties"):
        required = set(branch.get("required", ()))
        keys = [f"{k} (required)" if k in required else k for k in branch["properties"]]
        word += " with keys " + ", ".join(keys)
    return f"{word} ({branch['description']})" if "description" in branch else word


def _none_of(error) -> str | None:
    """The problem of a value matching none of a ``oneOf``/``anyOf``'s
    forms, naming the forms (jsonschema's "is not valid under any of the
    given schemas" names none), else None."""
    branches = error.validator_value if error.validator in ("oneOf", "anyOf") else None
    if not branches or not all(isinstance(b, dict) for b in branches):
        return None
    shown = repr(error.instance)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{shown} is none of: " + "; ".join(_form(b) for b in branches)


def check_schema(data: dict, path: Path) -> None:
    """Raise the most relevant JSON-Schema violation as a GameFileError."""
    errors = list(game_validator().iter_errors(data))
    error = jsonschema.exceptions.best_match(errors)
    if error is None:
        return
    error = _misspelt_instead(error, errors)
    value, message = error.instance, error.message
    if (
        error.validator == "type"
        and isinstance(value, float)
        and value.is_integer()
        and "integer" in str(error.validator_value)
    ):
        message = not_an_integer(value)
    elif (forms := _none_of(error)) is not None:
        message = forms
    elif len(message) > 200 or "\n" in message:  # never echo a large value
        message = " ".join(message.split())[:100] + " ..."
    where = list(error.absolute_path)
    allowed = sorted(error.schema.get("properties", {})) if error.validator == "additionalProperties" else []
    extra = [k for k in value if k not in allowed] if allowed and isinstance(value, dict) else []
    if extra:  # name the key, and the nearest allowed one
        where.append(str(extra[0])[:100])
        message = unknown_key(str(extra[0])[:100], allowed)
    raise GameFileError(path, field_path(where), message)


def build_game(data: dict, path: Path, default_name: str) -> Game:
    """Turn parsed YAML ``data`` into a validated :class:`Game`."""
    check_schema(data, path)

    def fail(field, problem):
        raise GameFileError(path, field, problem)

    n_reels, n_rows = data["grid"]["reels"], data["grid"]["rows"]

    # symbols ------------------------------------------------------------
    names = [s["name"] for s in data["symbols"]]
    seen = set()
    for i, n in enumerate(names):
        if n in seen:
            fail(f"symbols[{i}].name", f"duplicate symbol name {n!r}")
        seen.add(n)
    groups = {g: list(m) for g, m in (data.get("groups") or {}).items()}
    for g, members in groups.items():
        if g in seen:
            fail(f"groups.{g}", "a group may not share its name with a symbol")
        for j, m in enumerate(members):
            if m not in seen:
                fail(f"groups.{g}[{j}]", f"unknown symbol {m!r}")
    kinds = {s["name"]: s.get("kind", "regular") for s in data["symbols"]}
    symbols = [build_symbol(i, s, names, kinds, fail) for i, s in enumerate(data["symbols"])]
    symbols = close_substitution(symbols)

    # reels --------------------------------------------------------------
    reel_sets, reel_files = {}, {}
    for set_name, spec in data["reels"].items():
        field = f"reels.{set_name}"
        set_fail = fail
        if isinstance(spec, str):
            csv_path = named_file(path, spec, field)
            spec = read_strip_csv(csv_path, path, field)

            reel_files[set_name] = str(csv_path)

            def set_fail(f, problem, csv_path=csv_path):  # errors name the CSV file and line
                raise GameFileError(csv_path, f, problem + csv_cell(f))

        if len(spec) != n_reels:
            set_fail(field, f"has {len(spec)} reels, the grid has {n_reels}")
        reel_sets[set_name] = tuple(
            build_strip(strip, f"{field}[{r}]", seen, n_rows, set_fail) for r, strip in enumerate(spec)
        )

    # paylines -----------------------------------------------------------
    pays_by = data.get("pays_by", "lines")
    ways = pays_by in ("ways", "anywhere", "cluster")  # no paylines
    if ways and data.get("rules", "lines") != "lines":
        fail(
            "pays_by",
            f"pays_by: {pays_by} needs rules: lines (the rules module "
            f"{str(data['rules'])[:100]!r} evaluates its own pays)",
        )
    if ways and "paylines" in data:
        fail("paylines", f"paylines are not used with pays_by: {pays_by} (remove them)")
    paylines = [] if ways else data.get("paylines") or [[n_rows // 2] * n_reels]
    for i, line in enumerate(paylines):
        if len(line) != n_reels:
            fail(f"paylines[{i}]", f"has {len(line)} rows, need one per reel ({n_reels})")
        for r, row in enumerate(line):
            if not 0 <= row < n_rows:
                fail(f"paylines[{i}][{r}]", f"row {row} is outside the grid (rows 0..{n_rows - 1})")

    heights = build_heights(data["grid"].get("heights"), n_reels, n_rows, pays_by == "ways", fail)
    if "top_reel" in data["grid"]:
        heights = build_top_reel(data, heights, reel_sets, seen, fail)
    # counts over the cycle are int64: keep cycle x lines inside its range
    for set_name, strips in reel_sets.items():
        # with a top reel: the cycle of each of its windows (mixed in Python ints)
        cycle = prod(s.total_weight * (heights.total(r) if heights else 1) for r, s in enumerate(strips))
        if heights is not None and cycle >= EXACT_LIMIT:
            fail(
                "grid.heights",
                f"the cycle of reels.{set_name} (product of each reel's total stop weight x its "
                f"height weights) is {cycle:.4g}, not below 2**62, the range of exact integer counting",
            )
        if cycle * max(len(paylines), 1) >= EXACT_LIMIT:
            times = f"times {len(paylines)} lines it exceeds" if paylines else "it is not below"
            fail(
                f"reels.{set_name}",
                f"the cycle (product of the reels' total weights) is "
                f"{cycle:.4g}; {times} 2**62, the range of exact integer counting",
            )

    # bet ----------------------------------------------------------------
    bet = data["bet"]
    lines_bet = bet.get("lines", len(paylines) or 1)  # ways: coins bet per bet level
    if lines_bet != len(paylines) and not ways:
        fail("bet.lines", f"is {lines_bet} but the game defines {len(paylines)} paylines")
    levels = list(bet["levels"])
    bet_levels = tuple(BetLevel(level=lv, line_bet=lv, total_bet=lv * lines_bet) for lv in levels)

    # pays ---------------------------------------------------------------
    line_pays = tuple(
        build_line_pay(i, p, n_reels, levels, seen, groups, kinds, fail, n_reels * n_rows, pays_by)
        if pays_by in ("anywhere", "cluster")
        else build_line_pay(i, p, n_reels, levels, seen, groups, kinds, fail)
        for i, p in enumerate(data.get("pays") or [])
    )
    if pays_by in ("anywhere", "cluster"):
        for i, spec in enumerate(data.get("pays") or []):
            if "symbol" not in spec:
                fail(f"pays[{i}]", f"with pays_by: {pays_by} a pay is {{symbol, count, pay}} of one symbol")
            if pays_by == "cluster" and spec.get("count", 2) < 2:
                fail(f"pays[{i}].count", f"a cluster has at least 2 cells, got {spec['count']}")
        line_pays = anywhere_names(line_pays, data.get("pays") or [])
    first: dict[tuple, int] = {}
    for i, lp in enumerate(line_pays):
        j = first.setdefault((lp.positions, lp.anywhere, lp.exactly), i)
        if j != i:
            fail(f"pays[{i}]", f"pays for the same combination as pays[{j}] ({line_pays[j].name!r})")
    scatter_pays = []
    for i, sp in enumerate(data.get("scatters") or []):
        for j, other in enumerate((data.get("scatters") or [])[:i]):
            if (other["symbol"], other["count"]) == (sp["symbol"], sp["count"]):
                fail(f"scatters[{i}]", f"{sp['count']} x {sp['symbol']} is already paid by scatters[{j}]")
        if sp["symbol"] not in seen:
            fail(f"scatters[{i}].symbol", f"unknown symbol {sp['symbol']!r}")
        if kinds[sp["symbol"]] != "scatter":
            fail(f"scatters[{i}].symbol", f"{sp['symbol']!r} is not of kind 'scatter'")
        if sp["count"] > n_reels * n_rows:
            fail(f"scatters[{i}].count", f"{sp['count']} symbols do not fit a {n_reels}x{n_rows} window")
        scatter_pays.append(
            ScatterPay(sp["symbol"], sp["count"], scatter_fraction(sp["pay"], f"scatters[{i}].pay", fail))
        )
    game = Game(
        name=data.get("name", default_name),
        title=data.get("title", default_name),
        reels=n_reels,
        rows=n_rows,
        symbols=tuple(symbols),
        reel_sets=reel_sets,
        paylines=tuple(tuple(p) for p in paylines),
        line_pays=line_pays,
        scatter_pays=tuple(scatter_pays),
        bet_levels=bet_levels,
        rules=data.get("rules", "lines"),
        options=data.get("options") or {},
        source=str(path),
        description=data.get("description", ""),
        version=str(data.get("version", "")),
        variant=str(data.get("variant", "")),
        pays_by=data.get("pays_by", "lines"),
        modes=build_modes(data, reel_sets, fail),
        heights=heights,
        reel_files=reel_files,
    )
    check_top_win(line_pays, scatter_pays, symbols, game.ways_or_lines, bet_levels, fail)
    if heights is not None and heights.top is not None:
        check_top_reel_symbols(game, fail)
    if ways:
        problem = ways_problem(game) if pays_by == "ways" else anywhere_problem(game, pays_by)
        if problem:
            fail(*problem)
    return game


#: the mode every game has: its declarations as written, at cost 1
BASE_MODE = "base"
#: features a mode may buy, and the key giving the state each starts from
BUYABLE = {"free_games": "games", "hold_and_spin": "coins"}


def build_modes(data: dict, reel_sets: dict, fail) -> dict:
    """``{name: Mode}`` of ``data["modes"]`` (docs/game-format.md, Bet modes):
    a positive exact cost, reel sets that exist, a buy of a declared
    buyable feature; the mode's options are checked with the game it makes
    (:func:`slotmath.rules.modes.check_modes`)."""
    out = {}
    modes = data.get("modes") or {}
    if modes and data.get("rules", "lines") != "lines":
        fail("modes", f"bet modes are played by rules: lines only, not {str(data['rules'])[:100]!r}")
    if len(modes) > MAX_MODES:
        fail("modes", f"{len(modes):,} bet modes, more than {MAX_MODES} (par --all-modes analyses each)")
    for name, spec in modes.items():
        at = f"modes.{name}"
        if name == BASE_MODE:
            fail(at, f"{BASE_MODE!r} is the game as declared (cost 1); give the mode another name")
        cost = spec["cost"]
        if isinstance(cost, str) and not re.fullmatch(r"[0-9]{1,12}(/[0-9]{1,12})?", cost.strip()):
            fail(f"{at}.cost", f'{cost[:40]!r} is not a number (give 1.25, 100 or "5/4")')
        cost = scatter_fraction(cost.strip() if isinstance(cost, str) else cost, f"{at}.cost", fail)
        if cost <= 0:
            fail(f"{at}.cost", f"must be above 0 (a price in total bets), got {spec['cost']}")
        if cost > MAX_MODE_COST:
            fail(f"{at}.cost", f"{float(cost):.4g} is above the bound {MAX_MODE_COST:.0e} [x total bet]")
        reels = dict(spec.get("reels") or {})
        for old, new in reels.items():
            for where, set_name in ((f"{at}.reels", old), (f"{at}.reels.{old}", new)):
                if set_name not in reel_sets:
                    fail(where, f"unknown reel set {set_name[:40]!r} (declared: {', '.join(reel_sets)})")
        options = dict(spec.get("options") or {})
        if "round_cap" in options:
            fail(f"{at}.options.round_cap", f"give the mode's cap as {at}.round_cap")
        cap = spec.get("round_cap", KEEP_CAP)
        if cap is not None and cap != KEEP_CAP:
            cap = scatter_fraction(cap, f"{at}.round_cap", fail)
            if cap <= 0:
                fail(f"{at}.round_cap", f"must be above 0 [x total bet], got {spec['round_cap']}")
        buy = None
        if "buy" in spec:
            feature = spec["buy"]["feature"]
            declared = {**(data.get("options") or {}), **options}
            if feature not in BUYABLE:
                fail(
                    f"{at}.buy.feature", f"{feature[:40]!r} cannot be bought (buyable: {', '.join(BUYABLE)})"
                )
            if feature not in declared:
                fail(
                    f"{at}.buy.feature",
                    f"buys {feature!r}, which the game does not declare (options.{feature})",
                )
            key = BUYABLE[feature]
            for other in set(BUYABLE.values()) - {key}:
                if other in spec["buy"]:
                    fail(f"{at}.buy.{other}", f"buying {feature} takes '{key}', not '{other}'")
            if key not in spec["buy"]:
                fail(f"{at}.buy", f"buying {feature} needs '{key}' (the state it starts from)")
            buy = Buy(feature, **{key: spec["buy"][key]})
        out[name] = Mode(name, cost, spec.get("label", ""), reels, options, cap, buy)
    return out


def anywhere_problem(game: Game, pays_by: str = "anywhere") -> tuple | None:
    """(field, problem) when ``game``'s pays cannot be paid by count
    (``pays_by`` anywhere or cluster), else None."""
    for i, lp in enumerate(game.line_pays):
        if (
            lp.anywhere is not None
            or len({frozenset(p) for p in lp.positions}) != 1
            or len(lp.positions[0]) != 1
        ):
            return f"pays[{i}]", f"with pays_by: {pays_by} a pay is {{symbol, count, pay}} of one symbol"
        name = next(iter(lp.positions[0]))
        kind = game.symbol(name).kind
        if kind != "regular":
            return f"pays[{i}].symbol", not_a_count_pay(name, kind, pays_by)
    for i, s in enumerate(game.symbols):
        if s.wild is not None and (s.wild.per_wild != 1 or s.wild.by_count is not None):
            return f"symbols[{i}].multiplier", f"a wild multiplier is not supported with pays_by: {pays_by}"
    return None


def not_a_count_pay(name: str, kind: str, pays_by: str) -> str:
    """The problem of a count or cluster pay (``pays_by`` anywhere or cluster)
    for a symbol of ``kind`` other than regular."""
    return (
        f"{name!r} is a {kind}, not a paying symbol: with pays_by: {pays_by} only regular "
        "symbols pay by count (a wild counts toward the symbols it substitutes for)"
    )


def range_label(count: int, next_count: int | None, symbol: str) -> str:
    """Name of a count row: ``"8 x H1"``, ``"9-10 x H1"``, the top row ``"14+ x H1"``."""
    if next_count is None:
        return f"{count}+ x {symbol}"
    return f"{count} x {symbol}" if next_count == count + 1 else f"{count}-{next_count - 1} x {symbol}"


def anywhere_names(line_pays: tuple, specs: list) -> tuple:
    """Count pays named by their count range (``"8 x H1"``, ``"9-10 x H1"``,
    ``"14+ x H1"``) unless the file names them."""
    counts: dict = {}
    for lp in line_pays:
        if lp.positions and len(lp.positions[0]) == 1:
            counts.setdefault(next(iter(lp.positions[0])), []).append(len(lp.positions))
    out = []
    for lp, spec in zip(line_pays, specs, strict=True):
        if "name" in spec or not lp.positions or len(lp.positions[0]) != 1:
            out.append(lp)
            continue
        symbol, n = next(iter(lp.positions[0])), len(lp.positions)
        above = [c for c in counts[symbol] if c > n]
        out.append(dataclasses.replace(lp, name=range_label(n, min(above) if above else None, symbol)))
    return tuple(out)


def scatter_fraction(value, field, fail) -> Fraction:
    """A scatter pay [x total bet] (a number or a string ``"n"`` / ``"n/d"``)
    as an exact Fraction, its denominator at most :data:`MAX_PAY_DENOMINATOR`."""
    if isinstance(value, str):
        num, _, den = value.partition("/")
        if den and int(den) == 0:
            fail(field, f"{value!r} divides by zero")
        pay = Fraction(int(num), int(den or 1))
    else:
        pay = Fraction(str(value))  # the decimal as written: 0.1 is 1/10
    if pay.denominator > MAX_PAY_DENOMINATOR:
        d = pay.denominator
        digits = str(d)
        power = f"10**{len(digits) - 1}"
        shown = digits if d < 10**12 else power if digits.rstrip("0") == "1" else f"more than {power}"
        fail(
            field,
            f"{value!r} has denominator {shown}, more than "
            f"{MAX_PAY_DENOMINATOR:,} (write it with fewer decimals)",
        )
    return pay


def check_top_win(line_pays, scatter_pays, symbols, n_lines, bet_levels, fail) -> None:
    """Refuse pays whose largest possible win of one spin, in the smallest
    win unit, reaches :data:`MAX_WIN_UNITS` (exact integer arithmetic)."""
    mult = 1
    for s in symbols:
        if s.wild:
            mult *= max(s.wild.multiplier(c) for c in range(10))
    top_line = max((max(lp.pays) for lp in line_pays), default=0) * mult * n_lines
    den = math.lcm(*(sp.pay.denominator for sp in scatter_pays)) if scatter_pays else 1
    if den > MAX_PAY_DENOMINATOR:
        fail("scatters", f"the scatter pays' common denominator {den} exceeds {MAX_PAY_DENOMINATOR:,}")
    top_total_bet = max(b.total_bet for b in bet_levels)
    top_scatter = sum(sp.pay for sp in scatter_pays) * top_total_bet
    top = (top_line + top_scatter) * den
    if top >= MAX_WIN_UNITS:
        fail(
            "scatters" if top_line * den < MAX_WIN_UNITS // 2 else "pays",
            f"the largest win of one spin ({float(top_line + top_scatter):.4g} coins, "
            f"with wild multipliers and every line) reaches 2**53 win units; pays "
            "must keep it below (exact arithmetic)",
        )


def build_symbol(i, spec, names, kinds, fail) -> Symbol:
    kind = spec.get("kind", "regular")
    if "color" in spec and not is_colour(spec["color"]):
        fail(
            f"symbols[{i}].color",
            f"{terminal_text(repr(spec['color'][:40]))} is not a colour (give #rrggbb, #rgb, "
            "a CSS colour name such as 'red' or a Tableau name such as 'tab:blue')",
        )
    wild_keys = {"substitutes", "except", "multiplier", "multiply_own_pays"} & spec.keys()
    if kind != "wild":
        if wild_keys:
            fail(f"symbols[{i}].{sorted(wild_keys)[0]}", f"only wild symbols take this (kind is {kind!r})")
        return Symbol(spec["name"], kind, None, spec.get("label", ""), spec.get("color", ""))
    subs = spec.get("substitutes", "all")
    if subs != "all" and "except" in spec:
        fail(f"symbols[{i}].except", "'except' only goes with 'substitutes: all'")
    for key, lst in (
        ("substitutes", subs if isinstance(subs, list) else []),
        ("except", spec.get("except", [])),
    ):
        for j, n in enumerate(lst):
            if n not in kinds:
                fail(f"symbols[{i}].{key}[{j}]", f"unknown symbol {n!r}")
            if n == spec["name"]:
                fail(f"symbols[{i}].{key}[{j}]", "a wild cannot substitute for itself")
            if key == "substitutes" and kinds[n] in ("scatter", "blank"):
                fail(
                    f"symbols[{i}].{key}[{j}]",
                    f"{n!r} is a {kinds[n]}; wilds substitute "
                    "only in line pays, and scatters and blanks never pay on a line",
                )
    if subs == "all":
        excluded = set(spec.get("except", [])) | {spec["name"]}
        # 'all' means every paying symbol: regular ones and other wilds
        subs = [n for n in names if n not in excluded and kinds[n] in ("regular", "wild")]
    mult = spec.get("multiplier", {})
    if "per_wild" in mult and "by_count" in mult:
        fail(f"symbols[{i}].multiplier", "give either 'per_wild' or 'by_count', not both")
    if mult.get("by_count", [1])[0] != 1:
        fail(
            f"symbols[{i}].multiplier.by_count[0]",
            f"is {mult['by_count'][0]}, must be 1 (by_count[c] is the multiplier "
            "for c wilds on the line, so entry 0 applies to lines without one)",
        )
    by_count = tuple(mult["by_count"]) if "by_count" in mult else None
    rule = WildRule(frozenset(subs), mult.get("per_wild", 1), by_count, spec.get("multiply_own_pays", False))
    return Symbol(spec["name"], kind, rule, spec.get("label", ""), spec.get("color", ""))


def close_substitution(symbols: list) -> list:
    """A wild that substitutes for another wild also covers what that one
    covers (``WILD_3`` substitutes for ``WILD`` -> also for ``WILD``'s
    symbols)."""
    subs = {s.name: set(s.wild.substitutes) for s in symbols if s.wild}
    changed = True
    while changed:
        changed = False
        for name, cover in subs.items():
            extra = set().union(*(subs[w] for w in cover if w in subs)) - cover - {name}
            if extra:
                cover |= extra
                changed = True
    return [
        Symbol(
            s.name,
            s.kind,
            WildRule(frozenset(subs[s.name]), s.wild.per_wild, s.wild.by_count, s.wild.multiply_own_pays),
            s.label,
            s.color,
        )
        if s.wild
        else s
        for s in symbols
    ]


def build_heights(spec, n_reels: int, n_rows: int, ways: bool, fail) -> ReelHeights | None:
    """The reel heights of ``grid.heights`` (``weights``: one table for every
    reel, or ``reels``: one per reel; each a list of [height, weight] pairs),
    or None when absent."""
    if spec is None:
        return None
    if not ways:
        fail("grid.heights", "reel heights are computed on ways games only (pays_by: ways)")
    if ("weights" in spec) == ("reels" in spec):
        fail("grid.heights", "give exactly one of weights (every reel) and reels (one table per reel)")
    if "weights" in spec:
        given, fields = [spec["weights"]] * n_reels, ["grid.heights.weights"] * n_reels
    else:
        given = spec["reels"]
        if len(given) != n_reels:
            fail("grid.heights.reels", f"has {len(given)} tables, the grid has {n_reels} reels")
        fields = [f"grid.heights.reels[{r}]" for r in range(n_reels)]
    tables = []
    for table, field in zip(given, fields, strict=True):
        seen: set = set()
        for i, (h, w) in enumerate(table):
            if not 1 <= h <= n_rows:
                fail(f"{field}[{i}]", f"height {h} is outside 1..{n_rows} (the grid's rows)")
            if w <= 0:
                fail(f"{field}[{i}]", f"weight {w} is not positive")
            if h in seen:
                fail(f"{field}[{i}]", f"height {h} is listed twice")
            seen.add(h)
        if sum(w for _, w in table) > MAX_WEIGHT:
            fail(field, f"the height weights sum to more than {MAX_WEIGHT} (2**32)")
        tables.append(tuple(sorted((int(h), int(w)) for h, w in table)))
    return ReelHeights(tuple(tables))


def build_top_reel(data: dict, heights: ReelHeights | None, reel_sets: dict, known, fail) -> ReelHeights:
    """``heights`` with the top reel of ``grid.top_reel`` (``over``: the
    covered reels, consecutive numbers from 1, not the first nor the last;
    ``strips``: one strip per reel set, exactly the game's)."""
    spec, field = data["grid"]["top_reel"], "grid.top_reel"
    if heights is None:
        fail(field, "a top reel needs variable reel heights (grid.heights)")
    n_reels = data["grid"]["reels"]
    over = list(spec["over"])
    for i, r in enumerate(over):
        if not 2 <= r <= n_reels - 1:
            fail(
                f"{field}.over[{i}]",
                f"reel {r} is outside 2..{n_reels - 1} (not the first nor the last reel)",
            )
    if over != list(range(over[0], over[0] + len(over))):
        fail(f"{field}.over", f"{over} are not consecutive increasing reel numbers")
    for name in spec["strips"]:
        if name not in reel_sets:
            fail(
                f"{field}.strips.{str(name)[:40]}",
                f"no reel set {str(name)[:40]!r} (reel sets: {', '.join(reel_sets)})",
            )
    for name in reel_sets:
        if name not in spec["strips"]:
            fail(f"{field}.strips", f"has no strip for reel set {name!r}")
    if data.get("modes"):
        fail("modes", "bet modes are not computed with a top reel (grid.top_reel)")

    def mapping(value) -> dict:
        return value if isinstance(value, dict) else {}

    trigger = mapping(mapping(mapping(data.get("options")).get("free_games")).get("trigger"))
    named = trigger.get("reels")
    covered = [r for r in named if r in over] if isinstance(named, list) else []
    if covered:
        fail(
            "options.free_games.trigger.reels",
            f"reel {covered[0]} is covered by the top reel (grid.top_reel.over): a trigger on named reels "
            "is computed on uncovered reels only",
        )
    strips = {
        name: build_strip(strip, f"{field}.strips.{name}", known, len(over), fail)
        for name, strip in spec["strips"].items()
    }
    ensure_weights = [n for n, st in strips.items() if st.total_weight > MAX_WEIGHT]
    if ensure_weights:
        fail(f"{field}.strips.{ensure_weights[0]}", f"the stop weights sum to more than {MAX_WEIGHT} (2**32)")
    top = TopReel(tuple(r - 1 for r in over), strips)
    return dataclasses.replace(typing.cast(ReelHeights, heights), top=top)  # not None: refused above


def check_top_reel_symbols(game: Game, fail) -> None:
    """Refuse a top-strip symbol that no rule reads: it must be a wild, a
    blank (a filler), paid by a ways pay or a scatter pay, or the free
    games' trigger symbol."""
    top = game.heights.top if game.heights is not None else None
    if top is None:
        return
    read = {s.name for s in game.symbols if s.kind in ("wild", "blank")}
    read |= {name for lp in game.line_pays for pos in lp.positions for name in pos}
    read |= {sp.symbol for sp in game.scatter_pays}
    free = game.options.get("free_games") if isinstance(game.options, dict) else None
    if isinstance(free, dict) and isinstance(free.get("symbol"), str):
        read.add(free["symbol"])
    for name, strip in top.strips.items():
        for k, sym in enumerate(strip.symbols):
            if sym not in read:
                fail(
                    f"grid.top_reel.strips.{name}[{k}]",
                    f"{sym!r} is read by no rule (not paid, not a wild, blank or trigger symbol)",
                )


def build_strip(spec, field, known, rows, fail) -> Strip:
    if isinstance(spec, dict):
        syms, weights = spec["symbols"], spec.get("weights")
    else:
        syms, weights = spec, None
    if not syms:
        fail(field, "the strip is empty")
    if len(syms) < rows:
        fail(field, f"has {len(syms)} stops, fewer than the {rows} rows of the window")
    for k, s in enumerate(syms):
        if s not in known:
            fail(f"{field}[{k}]", f"unknown symbol {str(s)[:40]!r}")
    if weights is not None:
        if len(weights) != len(syms):
            fail(f"{field}.weights", f"has {len(weights)} weights for {len(syms)} stops")
        for k, w in enumerate(weights):
            if w < 0:
                fail(f"{field}.weights[{k}]", f"negative weight {w}")
            if w > MAX_WEIGHT:
                fail(
                    f"{field}.weights[{k}]",
                    f"weight {w} is above the largest stop weight {MAX_WEIGHT} (2**32)",
                )
        if sum(weights) == 0:
            fail(f"{field}.weights", "all weights are zero")
        weights = tuple(weights)
    return Strip(tuple(syms), weights)


def csv_cell(field: str) -> str:
    """`` (column reelN, line L)`` of a reel CSV's cell for the field of a
    stop (``reels.SET[r][k]``, ``reels.SET[r].weights[k]``), else ''."""
    m = re.fullmatch(r"reels\.[^\[]+\[(\d+)\](\.weights)?\[(\d+)\]", field)
    if not m:
        return ""
    return f" (column {'weight' if m[2] else 'reel'}{int(m[1]) + 1}, line {int(m[3]) + 2})"


def reel_error(game: Game, field: str, problem: str) -> GameFileError:
    """The error at ``field`` (``reels.SET...``): naming the reel set's CSV
    file and cell when the set was read from one, else the game file."""
    name = re.match(r"reels\.([^\[.]+)", field)
    csv_path = game.reel_files.get(name[1]) if name else None
    if csv_path is None:
        return GameFileError(game.source, field, problem)
    return GameFileError(csv_path, field, problem + csv_cell(field))


def read_strip_csv(csv_path: Path, game_path: Path, field: str) -> list:
    """Read a reel set from CSV: columns ``reel1..reelR`` of symbols and
    optional ``weight1..weightR``; shorter reels leave trailing cells empty."""
    if not csv_path.is_file():
        raise GameFileError(game_path, field, f"CSV file {csv_path} not found")

    def fail(where, problem):
        raise GameFileError(csv_path, where, problem)

    problem = size_problem(csv_path)
    if problem:
        fail("", problem)
    try:
        with csv_path.open(newline="", encoding="utf-8-sig") as fh:
            table = list(csv.reader(fh))
    except UnicodeDecodeError as exc:
        fail("", f"cannot read CSV: not UTF-8 text (byte {exc.start})")
    except (OSError, csv.Error) as exc:
        fail("", f"cannot read CSV: {' '.join(str(exc).split())[:200]}")
    if not table:
        fail("header", "the file is empty; needs columns reel1, reel2, ...")
    header = [h.strip() for h in table[0]]
    cols = {}
    for j, h in enumerate(header):
        m = re.fullmatch(r"(reel|weight)([1-9][0-9]*)", h)
        if m is None:  # the cell is not echoed: the file may be anything
            fail(
                "header",
                f"column {j + 1} is not a reel or weight column (expected "
                "reel1, reel2, ... and optional weight1, weight2, ...)",
            )
        if h in cols:
            fail("header", f"column {h!r} appears twice")
        cols[h] = j
    n_reels = sum(h.startswith("reel") for h in cols)
    for h in cols:
        if int(re.sub(r"\D", "", h)) > n_reels:
            fail("header", f"column {h!r} but the reel columns are reel1..reel{n_reels}")

    def column(h):
        j = cols[h]
        return [(row[j].strip() if j < len(row) else "") for row in table[1:]]

    out = []
    for r in range(1, n_reels + 1):
        syms = column(f"reel{r}")
        n = len(syms)
        while n and not syms[n - 1]:
            n -= 1
        if "" in syms[:n]:
            fail(f"reel{r}", f"empty cell on line {syms.index('') + 2} before the end of the strip")
        entry = {"symbols": syms[:n]}
        if f"weight{r}" in cols:
            cells = column(f"weight{r}")
            for k, c in enumerate(cells):
                if (k < n) != bool(c):
                    fail(
                        f"weight{r}",
                        f"line {k + 2}: " + ("missing weight" if k < n else "a weight without a symbol"),
                    )
            for k, c in enumerate(cells[:n]):
                if not re.fullmatch(r"[+-]?[0-9]{1,12}", c):
                    fail(
                        f"weight{r}", f"line {k + 2}: weight {c[:20]!r} is not an integer (at most 12 digits)"
                    )
            entry["weights"] = [int(c) for c in cells[:n]]
        out.append(entry)
    return out


def build_line_pay(
    i, spec, n_reels, levels, known, groups, kinds, fail, cells=None, pays_by="lines"
) -> LinePay:
    """One entry of ``pays``; ``cells`` (pays anywhere by count or by cluster,
    ``pays_by``): a count may be up to the window's cells instead of the reels."""
    field = f"pays[{i}]"
    forms = [k for k in ("symbol", "pattern", "anywhere") if k in spec]
    if len(forms) != 1:
        fail(field, "give exactly one of 'symbol' (with 'count'), 'pattern' or 'anywhere' (with 'exactly')")
    if ("pay" in spec) == ("pay_by_level" in spec):
        fail(field, "give exactly one of 'pay' and 'pay_by_level'")
    if "pay" in spec:
        pays = tuple(spec["pay"] * lv for lv in levels)
    else:
        if len(spec["pay_by_level"]) != len(levels):
            fail(
                f"{field}.pay_by_level",
                f"has {len(spec['pay_by_level'])} values for {len(levels)} bet levels",
            )
        pays = tuple(spec["pay_by_level"])

    def members(name, where):
        if name in groups:
            return frozenset(groups[name])
        if name not in known:
            fail(where, f"unknown symbol or group {name!r}")
        return frozenset([name])

    if "anywhere" in spec:
        if "exactly" not in spec:
            fail(f"{field}.exactly", "an 'anywhere' pay needs 'exactly'")
        if spec["anywhere"] not in known:
            fail(f"{field}.anywhere", f"unknown symbol {spec['anywhere']!r}")
        if spec["exactly"] > n_reels:
            fail(f"{field}.exactly", f"{spec['exactly']} symbols on a line of {n_reels} reels")
        name = spec.get("name", f"{spec['exactly']} {spec['anywhere']} anywhere")
        return LinePay(name, (), pays, anywhere=spec["anywhere"], exactly=spec["exactly"])
    if "symbol" in spec:
        if "count" not in spec:
            fail(f"{field}.count", "a 'symbol' pay needs 'count'")
        if cells is not None and spec["count"] > cells:
            fail(f"{field}.count", f"a pay for {spec['count']} symbols in a window of {cells} cells")
        if cells is None and spec["count"] > n_reels:
            fail(f"{field}.count", f"a pay for {spec['count']} symbols on {n_reels} reels")
        allowed = members(spec["symbol"], f"{field}.symbol")
        positions = (allowed,) * spec["count"]
        name = spec.get("name", f"{spec['count']} x {spec['symbol']}")
        own = len(allowed) == 1 and kinds[next(iter(allowed))] == "wild"
    else:
        if len(spec["pattern"]) > n_reels:
            fail(f"{field}.pattern", f"a pay for {len(spec['pattern'])} symbols on {n_reels} reels")
        positions = tuple(members(p, f"{field}.pattern[{j}]") for j, p in enumerate(spec["pattern"]))
        name = spec.get("name", " ".join(spec["pattern"]))
        own = False
    for pos in positions:
        for s in pos:
            if kinds[s] in ("scatter", "blank"):
                if cells is not None:
                    fail(f"{field}.symbol", not_a_count_pay(s, kinds[s], pays_by))
                fail(f"{field}", f"{s!r} is a {kinds[s]} and cannot pay on a line")
    return LinePay(name, positions, pays, wild_own=own)
