"""Laying symbols out on a reel strip for a new symbol composition.

Tuning decides how many of each symbol a reel carries; this module decides
where they go.  The rules, applied to the strip the game file holds:

* Intended stacks are kept.  A *stack* is a run of two or more equal
  symbols (cyclically).  A symbol whose every copy sits in a stack is
  *stacked*: it gains copies by lengthening its shortest stack and loses
  them from its longest one, so its stacks keep their shape.
* Every other symbol is spread.  A copy to remove is taken where that
  symbol is most crowded (the single copy nearest another copy of itself);
  a copy to add goes where it is farthest from its own kind, never inside a
  stack of another symbol.  Freed positions are filled before the strip
  grows, so a change of k copies moves about k positions.
* Symbols whose count does not change never move relative to each other,
  except that positions may shift when the strip length changes.

The result depends only on the original strip and the target counts, so a
tuning run is reproducible from the game file and its targets.  All ties
are broken by the lowest strip position.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from slotmath.errors import ensure

HOLE = None


def runs(strip: Sequence[str]) -> list:
    """Maximal runs of equal symbols of a cyclic strip.

    Returns
    -------
    list of (start, length, symbol)
        ``start`` is a strip position; a run may wrap past the end.  A strip
        of one symbol is a single run of the whole length.
    """
    n = len(strip)
    if n == 0:
        return []
    if all(s == strip[0] for s in strip):
        return [(0, n, strip[0])]
    first = next(i for i in range(n) if strip[i] != strip[i - 1])  # a run boundary
    out = []
    i = first
    while True:
        j = 1
        while j < n and strip[(i + j) % n] == strip[i]:
            j += 1
        out.append((i % n, j, strip[i]))
        i = (i + j) % n
        if i == first:
            return out


def stacked_symbols(strip: Sequence[str]) -> set:
    """Symbols all of whose copies lie in runs of two or more."""
    single, stacked = set(), set()
    for _, length, sym in runs(strip):
        (stacked if length >= 2 else single).add(sym)
    return stacked - single


def _run_at(cells: list, i: int) -> tuple:
    """(start, length) of the run of ``cells[i]`` in a list with holes (cyclic)."""
    n, sym = len(cells), cells[i]
    if all(c == sym for c in cells):
        return 0, n
    start = i
    while cells[(start - 1) % n] == sym:
        start = (start - 1) % n
    length = 1
    while cells[(start + length) % n] == sym:
        length += 1
    return start, length


def _distance_to(cells: list, pos: int, sym: str, skip: int | None = None) -> int:
    """Cyclic distance from ``pos`` to the nearest other ``sym`` (len if none)."""
    n = len(cells)
    for d in range(1, n // 2 + 1):
        for q in ((pos + d) % n, (pos - d) % n):
            if q != skip and cells[q] == sym:
                return d
    return n


def _remove_one(cells: list, sym: str, stacked: bool) -> None:
    """Turn one copy of ``sym`` into a hole (see module rules)."""
    n = len(cells)
    positions = [i for i in range(n) if cells[i] == sym]
    singles = [i for i in positions if _run_at(cells, i)[1] == 1]
    if singles and not stacked:
        best = min(singles, key=lambda i: (_distance_to(cells, i, sym, skip=i), i))
    else:
        # shrink the longest run: drop its last cell
        best_key, best = None, None
        for i in positions:
            start, length = _run_at(cells, i)
            if start == i or length == n:
                key = (-length, start)
                if best_key is None or key < best_key:
                    best_key, best = key, (start + length - 1) % n
    cells[best] = HOLE


def _insertion_ok(cells: list, slot: int) -> bool:
    """A new cell may go between ``slot - 1`` and ``slot`` unless that splits a stack."""
    n = len(cells)
    a, b = cells[(slot - 1) % n], cells[slot % n]
    return not (a is not HOLE and a == b)


def _add_one(cells: list, sym: str, stacked: bool) -> None:
    """Place one more copy of ``sym`` (see module rules)."""
    n = len(cells)
    if stacked and sym in cells:
        # lengthen the shortest stack: insert after its last cell
        best_key, at = None, None
        for i in range(n):
            if cells[i] == sym:
                start, length = _run_at(cells, i)
                if start == i:
                    key = (length, start)
                    if best_key is None or key < best_key:
                        best_key, at = key, (start + length) % n
        cells.insert(at if at != 0 else n, sym)
        return
    holes = [i for i in range(n) if cells[i] is HOLE]
    if holes:
        best = max(holes, key=lambda i: (_distance_to(cells, i, sym), -i))
        cells[best] = sym
        return
    slots = [i for i in range(n) if _insertion_ok(cells, i)] or list(range(n))

    def score(slot):
        trial = cells[:slot] + [sym] + cells[slot:]
        return _distance_to(trial, slot, sym), -slot

    best = max(slots, key=score)
    cells.insert(best, sym)


def _max_run(strip: Sequence[str]) -> dict:
    """Longest run of each symbol in a cyclic strip."""
    out: dict = {}
    for _, length, sym in runs(strip):
        out[sym] = max(out.get(sym, 0), length)
    return out


def _spread(cells: list, movable: set, allowed: dict) -> None:
    """Break runs longer than ``allowed`` of movable symbols by swapping
    a copy with another movable single copy elsewhere (no new runs)."""
    n = len(cells)
    for _ in range(n):
        bad = None
        for i in range(n):
            sym = cells[i]
            if sym in movable:
                start, length = _run_at(cells, i)
                if length > allowed.get(sym, 1) and length < n:
                    bad = (start + length - 1) % n  # last cell of the run
                    break
        if bad is None:
            return
        x = cells[bad]
        best_key, best = None, None
        for j in range(n):
            y = cells[j]
            if y == x or y not in movable or _run_at(cells, j)[1] > 1:
                continue
            trial = list(cells)
            trial[bad], trial[j] = y, x
            if _run_at(trial, j)[1] > 1 or _run_at(trial, bad)[1] > 1:
                continue
            key = (_distance_to(trial, j, x), _distance_to(trial, bad, y), -j)
            if best_key is None or key > best_key:
                best_key, best = key, j
        if best is None:
            return
        cells[bad], cells[best] = cells[best], x


def lay_out(strip: Sequence[str], counts: Mapping[str, int], stacked: set | None = None, pinned=()) -> tuple:
    """A strip with ``counts`` copies of each symbol, edited from ``strip``.

    Parameters
    ----------
    strip : sequence of str
        The current cyclic strip (symbol names).
    counts : mapping of str to int
        Target number of copies of every symbol; symbols missing from the
        mapping keep their current count.  The new length is the sum.
    stacked : set of str, optional
        Symbols laid out as stacks; default :func:`stacked_symbols`.
    pinned : iterable of str
        Symbols that never swap places to spread others (for example
        scatters held fixed).

    Returns
    -------
    tuple of str
        The new strip; equal to ``strip`` when the counts do not change.
    """
    current = Counter(strip)
    target = dict(current)
    for sym, c in counts.items():
        if c < 0:
            raise ValueError(f"negative count {c} for {sym!r}")
        target[sym] = int(c)
    target = {s: c for s, c in target.items() if c > 0}
    if sum(target.values()) == 0:
        raise ValueError("a strip needs at least one stop")
    if all(current.get(s, 0) == c for s, c in target.items()) and len(strip) == sum(target.values()):
        return tuple(strip)
    stacked = stacked_symbols(strip) if stacked is None else set(stacked)
    cells = list(strip)
    order = list(dict.fromkeys(list(strip) + list(target)))  # first appearance
    for sym in order:
        for _ in range(current.get(sym, 0) - target.get(sym, 0)):
            _remove_one(cells, sym, sym in stacked)
    pending = {s: target.get(s, 0) - current.get(s, 0) for s in order}
    while any(v > 0 for v in pending.values()):
        # round robin, the symbol with most copies to place first
        for sym in sorted((s for s in order if pending[s] > 0), key=lambda s: (-pending[s], order.index(s))):
            _add_one(cells, sym, sym in stacked)
            pending[sym] -= 1
    cells = [c for c in cells if c is not HOLE]
    movable = set(target) - stacked - set(pinned)
    _spread(cells, movable, _max_run(strip))
    out = tuple(cells)
    ensure(Counter(out) == Counter(target), "layout lost a symbol")
    return out


def changed_positions(old: Sequence[str], new: Sequence[str]) -> int:
    """Edit distance: stops replaced, inserted or deleted to turn ``old`` into ``new``."""
    prev = list(range(len(new) + 1))
    for i, a in enumerate(old, 1):
        cur = [i] + [0] * len(new)
        for j, b in enumerate(new, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b))
        prev = cur
    return prev[-1]
