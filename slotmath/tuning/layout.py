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
* No run of a spread symbol grows longer than its longest run on the
  original strip (1 for a symbol new to it); with a declared ``max_run``
  no run of any symbol grows longer than that, and a stacked symbol whose
  every stack is at the limit starts a new stack where it is farthest from
  its own kind.  A spread symbol's longer runs are broken by swaps.  Runs
  the original strip already has above a declared limit are left to the
  symbols that do not move.

:func:`spread` scores how evenly a symbol's copies lie: the smallest
distance between the starts of consecutive runs of it over the even
spacing (stops / runs): 1 when evenly spaced, near 0 when clumped.

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


def _add_one(cells: list, sym: str, stacked: bool, limit: int | None) -> None:
    """Place one more copy of ``sym`` (see module rules); a stack grows only
    while it is shorter than ``limit`` (None: no limit)."""
    limit = len(cells) + 1 if limit is None else limit
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
        if best_key is not None and best_key[0] < limit:
            cells.insert(at if at != 0 else n, sym)
            return
    holes = [i for i in range(n) if cells[i] is HOLE]
    if holes:

        def fill(i):
            trial = list(cells)
            trial[i] = sym
            return _run_at(trial, i)[1] <= limit, _distance_to(cells, i, sym), -i

        best = max(holes, key=fill)
        cells[best] = sym
        return
    slots = [i for i in range(n) if _insertion_ok(cells, i)] or list(range(n))

    def score(slot):
        trial = cells[:slot] + [sym] + cells[slot:]
        return _run_at(trial, slot)[1] <= limit, _distance_to(trial, slot, sym), -slot

    best = max(slots, key=score)
    cells.insert(best, sym)


def longest_runs(strip: Sequence[str]) -> dict:
    """Longest run of each symbol in a cyclic strip."""
    out: dict = {}
    for _, length, sym in runs(strip):
        out[sym] = max(out.get(sym, 0), length)
    return out


def run_limits(strip: Sequence[str], symbols, max_run: int | None = None, stacked=()) -> dict:
    """``{symbol: longest run allowed, or None for no limit}`` for
    ``symbols`` laid out from ``strip``: ``max_run`` if given, else the
    symbol's longest run on ``strip`` (1 for a symbol it does not carry),
    and no limit for a ``stacked`` symbol (its stacks grow)."""
    if max_run is not None:
        ensure(max_run >= 1, f"longest run allowed: {max_run} is below 1")
        return {sym: max_run for sym in symbols}
    longest = longest_runs(strip)
    return {sym: None if sym in stacked else longest.get(sym, 1) for sym in symbols}


def spread(strip: Sequence[str], symbols=None) -> dict:
    """How evenly each symbol lies on a cyclic strip.

    For a symbol with ``c >= 2`` runs on ``n`` stops: the smallest distance
    between the starts of two consecutive runs of it, over the even spacing
    ``n / c`` (1: evenly spaced; near 0: clumped).  A stack counts as one
    run, so a stacked symbol is judged by the spacing of its stacks.
    Symbols with fewer than two runs, or not in ``symbols`` (default all),
    are left out.

    Returns
    -------
    dict of str to float
    """
    n = len(strip)
    starts: dict = {}
    for start, _, sym in runs(strip):
        starts.setdefault(sym, []).append(start)
    out = {}
    for sym, st in starts.items():
        if len(st) < 2 or (symbols is not None and sym not in symbols):
            continue
        st = sorted(st)
        gaps = [(b - a) % n for a, b in zip(st, st[1:] + st[:1], strict=True)]
        out[sym] = min(gaps) / (n / len(st))
    return out


def _spread(cells: list, movable: set, allowed: dict) -> None:
    """Break runs longer than ``allowed`` of movable symbols by swapping
    the run's first copy past the limit with a copy of another movable symbol elsewhere:
    a single copy whose swap makes no new run if there is one, else any
    copy whose swap leaves both runs it touches within their limits.  A
    run no swap can break is left (the report shows it)."""
    n = len(cells)
    stuck: set = set()
    for _ in range(n):
        bad = None
        for i in range(n):
            sym = cells[i]
            if sym in movable:
                start, length = _run_at(cells, i)
                past = (start + allowed.get(sym, 1)) % n  # the first cell past the limit
                if length > allowed.get(sym, 1) and length < n and past not in stuck:
                    bad = past
                    break
        if bad is None:
            return
        best = _swap_for(cells, bad, movable, allowed, strict=True)
        if best is None:
            best = _swap_for(cells, bad, movable, allowed, strict=False)
        if best is None:
            stuck.add(bad)
            continue
        cells[bad], cells[best] = cells[best], cells[bad]


def _swap_for(cells: list, bad: int, movable: set, allowed: dict, strict: bool) -> int | None:
    """The position to swap with ``bad`` (see :func:`_spread`), farthest from
    the kinds it moves; None when there is none.  ``strict``: only single
    copies, and no run of two or more is made."""
    n, x = len(cells), cells[bad]
    best_key, best = None, None
    for j in range(n):
        y = cells[j]
        if y == x or y not in movable or (strict and _run_at(cells, j)[1] > 1):
            continue
        trial = list(cells)
        trial[bad], trial[j] = y, x
        if strict:
            if _run_at(trial, j)[1] > 1 or _run_at(trial, bad)[1] > 1:
                continue
        elif _run_at(trial, j)[1] > allowed.get(x, 1) or _run_at(trial, bad)[1] > allowed.get(y, 1):
            continue
        key = (_distance_to(trial, j, x), _distance_to(trial, bad, y), -j)
        if best_key is None or key > best_key:
            best_key, best = key, j
    return best


def lay_out(
    strip: Sequence[str],
    counts: Mapping[str, int],
    stacked: set | None = None,
    pinned=(),
    max_run: int | None = None,
) -> tuple:
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
    max_run : int, optional
        Longest run of one symbol the layout may make; default
        :func:`run_limits` of ``strip`` (each spread symbol's longest run
        there; stacks grow).

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
    limits = run_limits(strip, target, max_run, stacked)
    cells = list(strip)
    order = list(dict.fromkeys(list(strip) + list(target)))  # first appearance
    for sym in order:
        for _ in range(current.get(sym, 0) - target.get(sym, 0)):
            _remove_one(cells, sym, sym in stacked)
    pending = {s: target.get(s, 0) - current.get(s, 0) for s in order}
    while any(v > 0 for v in pending.values()):
        # round robin, the symbol with most copies to place first
        for sym in sorted((s for s in order if pending[s] > 0), key=lambda s: (-pending[s], order.index(s))):
            _add_one(cells, sym, sym in stacked, limits[sym])
            pending[sym] -= 1
    cells = [c for c in cells if c is not HOLE]
    movable = set(target) - stacked - set(pinned)
    _spread(cells, movable, limits)
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
