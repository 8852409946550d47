"""Writing a game file with new reel strips: validated, atomic, with a backup.

Only the strips (and the weights of weight tables under ``options``, when
tuned) change.  The new file is the original text with each changed
strip's list (and weight list), and each changed table weight, replaced in place, so comments, key
order, formatting and every other field stay exactly as they were.  A reel
set kept in a CSV file is rewritten as CSV when the game is written over
itself, and inlined into the YAML when it is written elsewhere; the other
files the game names (CSV reel sets, award tables under ``options``) are
then copied beside the new file under the same names, since a game names
only files inside its folder (with ``--allow-outside`` they are instead
named relative to the new folder).  A copied file under ``options`` is put
in place before the new game file is validated.

Every write goes to a temporary file in the target folder, is loaded back
and validated (schema, names, the rules module's checks) and compared with
the intended strips, and only then replaces the target with ``os.replace``.
An existing target is first copied to ``<file>.<timestamp>.bak``, so
nothing a user had is lost.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
import time
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import yaml

from slotmath.errors import GameWriteError as GameWriteError
from slotmath.io.arguments import UsageError
from slotmath.io.files import allow_outside, default_mode, remove_leftovers, temp_prefix
from slotmath.io.gamefile import GameFileError, load_game, option_file
from slotmath.model import Game, Strip


# ---------------------------------------------------------------- rendering
def _scalar(text: str) -> str:
    """A YAML scalar for a symbol name or path (quoted when needed)."""
    try:
        if yaml.safe_load(text) == text and "," not in text and "#" not in text:
            return text
    except yaml.YAMLError:
        pass
    return json.dumps(text)


def _item(v) -> str:
    """A symbol name (string) or a stop weight (integer) as YAML."""
    return _scalar(v) if isinstance(v, str) else str(int(v))


def flow_list(values) -> str:
    return "[" + ", ".join(_item(v) for v in values) + "]"


def block_list(values, column: int) -> str:
    return ("\n" + " " * column).join(f"- {_item(v)}" for v in values)


def flow_strip(strip: Strip) -> str:
    if strip.weights is None:
        return flow_list(strip.symbols)
    return "{symbols: " + flow_list(strip.symbols) + ", weights: " + flow_list(strip.weights) + "}"


def strips_text(strips, column: int, flow: bool = False) -> str:
    """A reel set written in place of the CSV file name that held it: one
    strip per line (a block list indented to ``column``), as an analyst
    reads and diffs it; inside a flow mapping, one flow list."""
    if flow:
        return "[" + ", ".join(flow_strip(s) for s in strips) + "]"
    return "".join(f"\n{' ' * column}- {flow_strip(s)}" for s in strips)


def _node_end(node) -> int:
    """End index of a node's own text (block collections end at their last child)."""
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _node_end(node.value[-1])
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _node_end(node.value[-1][1])
    return node.end_mark.index


def _list_replacement(node, values) -> tuple:
    if not isinstance(node, yaml.SequenceNode):
        raise GameWriteError(f"expected a list at line {node.start_mark.line + 1}")
    text = (
        flow_list(values) if node.flow_style or not node.value else block_list(values, node.start_mark.column)
    )
    return node.start_mark.index, _node_end(node), text


def _get(mapping_node, key: str):
    for k, v in mapping_node.value:
        if k.value == key:
            return v
    return None


def _strip_replacements(node, strip: Strip) -> list:
    if isinstance(node, yaml.SequenceNode):
        if strip.weights is not None:
            return [(node.start_mark.index, _node_end(node), flow_strip(strip))]
        return [_list_replacement(node, strip.symbols)]
    if isinstance(node, yaml.MappingNode):
        out = [_list_replacement(_get(node, "symbols"), strip.symbols)]
        wnode = _get(node, "weights")
        if strip.weights is not None:
            if wnode is None:
                raise GameWriteError("a weighted strip needs its weights key")
            out.append(_list_replacement(wnode, strip.weights))
        elif wnode is not None:
            raise GameWriteError("cannot drop the weights of a weighted strip")
        return sorted(out)
    raise GameWriteError(f"unexpected strip at line {node.start_mark.line + 1}")


def strips_csv(strips) -> str:
    """A reel set as CSV: columns reel1..reelR (and weight1..weightR when weighted)."""
    weighted = any(s.weights is not None for s in strips)
    header = [f"reel{r + 1}" for r in range(len(strips))]
    if weighted:
        header += [f"weight{r + 1}" for r in range(len(strips))]
    n = max(len(s) for s in strips)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for i in range(n):
        row = [s.symbols[i] if i < len(s) else "" for s in strips]
        if weighted:
            row += [(s.stop_weights()[i] if i < len(s) else "") for s in strips]
        w.writerow(row)
    return buf.getvalue()


@lru_cache(maxsize=8)
def _compose(text: str):
    """The YAML node tree of ``text`` (read only; a workbench renders the same
    saved file after every change)."""
    return yaml.compose(text)


def _weight_replacements(root, weights: dict) -> list:
    """Edits that set the weights of each weight table ``{path: weights}``
    (``options.hold_and_spin.values``: ``{prize, weight}`` rows or
    ``[value, weight]`` pairs), each changed weight's scalar replaced in place."""
    edits = []
    for path, values in weights.items():
        node = root
        for key in path.split("."):
            node = _get(node, key) if isinstance(node, yaml.MappingNode) else None
            if node is None:
                raise GameWriteError(f"no weight table {path} in the game file")
        if not isinstance(node, yaml.SequenceNode) or len(node.value) != len(values):
            raise GameWriteError(f"{path}: not a list of {len(values)} weighted entries")
        for row, w in zip(node.value, values, strict=True):
            cell = _get(row, "weight") if isinstance(row, yaml.MappingNode) else row.value[1]
            if not isinstance(cell, yaml.ScalarNode):
                raise GameWriteError(f"{path}: a weight at line {row.start_mark.line + 1} is not a number")
            if yaml.safe_load(cell.value) != w:
                edits.append((cell.start_mark.index, cell.end_mark.index, str(int(w))))
    return edits


def _value_replacements(root, values: dict) -> list:
    """Edits that set single numbers under ``options`` ``{path: text}``
    (``options.selection.choices.0.prize``: a list's entry by its index),
    each scalar replaced in place."""
    edits = []
    for path, new in values.items():
        node = root
        for key in path.split("."):
            if isinstance(node, yaml.MappingNode):
                node = _get(node, key)
            elif isinstance(node, yaml.SequenceNode) and key.isdigit() and int(key) < len(node.value):
                node = node.value[int(key)]
            else:
                node = None
            if node is None:
                raise GameWriteError(f"no value {path} in the game file")
        if not isinstance(node, yaml.ScalarNode):
            raise GameWriteError(f"{path}: not a number at line {node.start_mark.line + 1}")
        edits.append((node.start_mark.index, node.end_mark.index, str(new)))
    return edits


def render(
    source: Path, strips_by_set: dict, target: Path, weights: dict | None = None, values: dict | None = None
) -> tuple:
    """New YAML text for ``target`` and CSV files to write ``{path: text}``.

    ``source`` is the game file the strips were read from; ``weights``
    ``{table path: weights}`` sets weight tables (:func:`_weight_replacements`);
    ``values`` ``{path: text}`` single numbers (:func:`_value_replacements`).
    """
    text = source.read_text(encoding="utf-8")
    root = _compose(text)
    reels = _get(root, "reels")
    if reels is None:
        raise GameWriteError(f"{source}: no reels mapping")
    same_folder = source.parent.resolve() == target.parent.resolve()
    # a game names only files inside its folder: written elsewhere, the files
    # it names go along (unless files outside are allowed: then they are
    # named relative to the new folder)
    copy_files = not allow_outside()
    in_place = source.resolve() == target.resolve()
    edits, csv_files = [], {}
    if in_place:
        _check_shared_csv(source, reels, strips_by_set)
    for key_node, set_node in reels.value:
        name = key_node.value
        if isinstance(set_node, yaml.ScalarNode):  # a CSV file
            csv_path = source.parent / set_node.value
            if name in strips_by_set and in_place:
                csv_files[csv_path] = strips_csv(strips_by_set[name])
            elif name in strips_by_set:
                flow = bool(reels.flow_style)  # a block list starts right after the key's colon
                start = set_node.start_mark.index if flow else text.index(":", key_node.end_mark.index) + 1
                edits.append(
                    (
                        start,
                        set_node.end_mark.index,
                        strips_text(strips_by_set[name], key_node.start_mark.column + 2, flow),
                    )
                )
            elif not same_folder and copy_files:  # the file goes along, same name
                csv_files[target.parent / set_node.value] = _exact_text(csv_path)
            elif not same_folder:
                rel = os.path.relpath(csv_path.resolve(), target.parent.resolve())
                edits.append((set_node.start_mark.index, set_node.end_mark.index, _scalar(rel)))
            continue
        if name not in strips_by_set:
            continue
        strips = strips_by_set[name]
        if len(strips) != len(set_node.value):
            raise GameWriteError(f"reel set {name}: {len(strips)} strips for {len(set_node.value)} reels")
        for node, strip in zip(set_node.value, strips, strict=True):
            edits += _strip_replacements(node, strip)
    edits += _weight_replacements(root, weights or {})
    edits += _value_replacements(root, values or {})
    if not same_folder and copy_files:
        for name in _option_files(root, source):
            csv_files[target.parent / name] = _exact_text(source.parent / name)
    elif not same_folder:
        edits += _moved_file_references(root, text, source, target)
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text, csv_files


def _check_shared_csv(source: Path, reels, strips_by_set: dict) -> None:
    """Refuse to rewrite in place a CSV file that several reel sets read
    when their new strips differ (one file cannot hold both): written
    elsewhere, each changed set is written inline."""
    sharing: dict = {}
    for key_node, set_node in reels.value:
        if isinstance(set_node, yaml.ScalarNode):
            sharing.setdefault(set_node.value, []).append(key_node.value)
    for file, names in sharing.items():
        written = [n for n in names if n in strips_by_set]
        if not written or len(names) == 1:
            continue
        texts = {strips_csv(strips_by_set[n]) for n in written}
        if len(texts) > 1 or len(written) < len(names):
            others = ", ".join(n for n in names if n != written[0])
            raise GameFileError(
                source,
                f"reels.{written[0]}",
                f"{file} also holds reel set {others}, whose strips would change with it or differ: "
                "write the game to another file (--out), where each changed set is written inline",
            )


def _exact_text(path: Path) -> str:
    """The text of ``path`` with its line endings as they are."""
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def _option_files(root, source: Path) -> list:
    """Names of the files beside ``source`` that strings under ``options`` name."""
    names, stack = [], [_get(root, "options")]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack += [v for _, v in node.value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
        elif (
            isinstance(node, yaml.ScalarNode)
            and node.tag == "tag:yaml.org,2002:str"
            and option_file(source.parent, node.value) is not None
            and node.value not in names
        ):
            names.append(node.value)
    return names


def _moved_file_references(root, text: str, source: Path, target: Path) -> list:
    """Edits that point every string under ``options`` naming a file beside
    ``source`` (an award table) at that file from ``target``'s folder, so a
    game written elsewhere still reads the same files.  An aliased value is
    edited once (at its anchor); the anchor or tag before a value is kept."""
    edits, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for _, value in node.value:
                visit(value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                visit(item)
        elif (
            isinstance(node, yaml.ScalarNode)
            and node.tag == "tag:yaml.org,2002:str"
            and not os.path.isabs(node.value)
            and option_file(source.parent, node.value) is not None
        ):
            start, end = node.start_mark.index, node.end_mark.index
            raw = text[start:end]
            form = next(
                (f for f in (node.value, f'"{node.value}"', f"'{node.value}'") if raw.endswith(f)), None
            )
            if form is None:
                raise GameWriteError(
                    f"{source}: line {node.start_mark.line + 1}: cannot "
                    f"rewrite the file name {node.value!r} for another folder"
                )
            rel = os.path.relpath((source.parent / node.value).resolve(), target.parent.resolve())
            edits.append((end - len(form), end, _scalar(rel)))

    options = _get(root, "options")
    if options is not None:
        visit(options)
    return edits


# ---------------------------------------------------------------- writing
def backup_path(path: Path) -> Path:
    """``<file>.<YYYYmmdd-HHMMSS>.bak`` (with a counter if taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    k = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{stamp}-{k}.bak")
        k += 1
    return candidate


def _temp_beside(path: Path, text: str, suffix: str) -> Path:
    """A temporary file beside ``path`` holding ``text`` (umask permissions;
    killed runs' leftovers for ``path`` are removed first)."""
    remove_leftovers(path.parent, path.name)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=suffix, dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.chmod(tmp, default_mode())
    return Path(tmp)


def _same_strips(a, b) -> bool:
    return len(a) == len(b) and all(
        tuple(x.symbols) == tuple(y.symbols)
        and (None if x.weights is None else tuple(x.weights))
        == (None if y.weights is None else tuple(y.weights))
        for x, y in zip(a, b, strict=True)
    )


def write_game(
    game: Game,
    strips_by_set: dict,
    path=None,
    backup: bool = True,
    weights: dict | None = None,
    values: dict | None = None,
) -> Path:
    """Write ``game`` with the reel sets in ``strips_by_set`` (and the weight tables in ``weights``) replaced.

    Parameters
    ----------
    game : Game
        A game loaded from a file (its ``source`` is the template).
    strips_by_set : dict
        ``{reel set name: sequence of Strip}``.
    path : str or Path, optional
        Target file (a folder means ``<folder>/game.yaml``); default the
        game's own file.
    backup : bool
        Copy an existing target (and any CSV rewritten) to a ``.bak`` first.
    weights : dict, optional
        ``{table path: weights}``: weight tables under ``options`` set
        (``options.hold_and_spin.values``), each weight replaced in place.
    values : dict, optional
        ``{path: text}``: single numbers under ``options`` set
        (``options.selection.choices.0.prize``), each replaced in place.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    GameFileError
        The result does not validate (nothing is written).
    """
    source = Path(game.source)
    target = Path(path) if path is not None else source
    if target.is_dir():
        target = target / "game.yaml"
    _check_target(source, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    text, csv_files = render(source, strips_by_set, target, weights, values)
    if any(target.resolve() == p.resolve() for p in csv_files):
        raise UsageError(f"{target}: the written game names a file of this name beside it; write elsewhere")
    temps = {}
    try:
        # temporary CSVs first; a temporary YAML that points at them
        check_text = text
        for csv_path, csv_text in csv_files.items():
            csv_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = _temp_beside(csv_path, csv_text, ".csv")
            temps[csv_path] = tmp
            pointed = _point_csv(check_text, csv_path, tmp, target)
            if pointed == check_text:  # a file under options goes in place first (a copy)
                if backup and csv_path.exists() and _exact_text(csv_path) != csv_text:
                    shutil.copy2(csv_path, backup_path(csv_path))
                os.replace(temps.pop(csv_path), csv_path)
            check_text = pointed
        tmp_yaml = _temp_beside(target, check_text, ".yaml")
        temps[target] = tmp_yaml
        try:
            loaded = load_game(tmp_yaml)
        except GameFileError as exc:
            raise GameFileError(target, exc.field, exc.problem) from None
        for name, strips in strips_by_set.items():
            if not _same_strips(loaded.strips(name), strips):
                raise GameWriteError(f"{target}: reel set {name} did not read back as written")
        for table, table_weights in (weights or {}).items():
            if _table_weights(loaded.options, table) != [int(w) for w in table_weights]:
                raise GameWriteError(f"{target}: weight table {table} did not read back as written")
        for where, new in (values or {}).items():
            if Fraction(str(options_node(loaded.options, where.split(".")[1:]))) != Fraction(str(new)):
                raise GameWriteError(f"{target}: {where} did not read back as written")
        if check_text != text:  # the final YAML names the real CSV files
            tmp_yaml.write_text(text, encoding="utf-8")
        if target.exists() and target.read_text(encoding="utf-8") == text:
            temps.pop(target).unlink()  # the YAML itself is unchanged
        for dest, tmp in list(temps.items()):
            if backup and dest.exists():
                shutil.copy2(dest, backup_path(dest))
            os.replace(tmp, dest)
            del temps[dest]
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
    return target


def options_node(options, keys) -> object:
    """The node at ``keys`` in an options mapping, each key matched by its
    text (bet levels are numbers in the file, text in a table's path; a
    list's entry by its index)."""
    node = options
    for key in keys:
        if isinstance(node, list):
            node = node[int(key)]
            continue
        node = node[key] if key in node else next(v for k, v in node.items() if str(k) == key)
    return node


def _table_weights(options, path: str) -> list:
    node = options_node(options, path.split(".")[1:])
    return [row["weight"] if isinstance(row, dict) else row[1] for row in node]


def read_files(source: Path) -> list:
    """The files the game file ``source`` names (CSV reel sets, files under
    ``options``), as paths beside it."""
    root = _compose(source.read_text(encoding="utf-8"))
    reels = _get(root, "reels")
    names = [n.value for _, n in (reels.value if reels is not None else []) if isinstance(n, yaml.ScalarNode)]
    return [source.parent / name for name in names + _option_files(root, source)]


def _check_target(source: Path, target: Path) -> None:
    """Refuse to write a game over a file it reads (its reel-set CSV, an
    award table): only the game file itself may be replaced."""
    if target.exists() and target.resolve() == source.resolve():
        return
    for path in read_files(source):
        if path.exists() and target.exists() and path.resolve() == target.resolve():
            raise UsageError(
                f"{target}: is a file the game {source} reads ({path.name}); write the tuned game "
                "over its game file or into another file"
            )


def _point_csv(text: str, csv_path: Path, tmp: Path, target: Path) -> str:
    """Make the YAML refer to ``tmp`` wherever it refers to ``csv_path``
    (several reel sets may name one file)."""
    root = yaml.compose(text)
    rel = _scalar(os.path.relpath(tmp, target.parent))
    nodes = [
        node
        for _, node in _get(root, "reels").value
        if isinstance(node, yaml.ScalarNode) and (target.parent / node.value).resolve() == csv_path.resolve()
    ]
    for node in reversed(nodes):
        text = text[: node.start_mark.index] + rel + text[node.end_mark.index :]
    return text


def planned_files(game: Game, strips_by_set: dict, path=None) -> dict:
    """``{path: new text}`` of every file :func:`write_game` would write."""
    source = Path(game.source)
    target = Path(path) if path is not None else source
    text, csv_files = render(source, strips_by_set, target)
    return {target: text, **csv_files}


def diff(game: Game, strips_by_set: dict, path=None, context: int = 1) -> str:
    """Unified diff between the files on disk and what would be written."""
    from difflib import unified_diff

    out = []
    for file, new in planned_files(game, strips_by_set, path).items():
        old = file.read_text(encoding="utf-8") if file.exists() else ""
        out += unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"{file} (saved)",
            tofile=f"{file} (tuned)",
            n=context,
        )
    return "".join(out)
