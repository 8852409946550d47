"""The cache registry: every memoised result of slotmath, keyed on values.

A cached function of a game is keyed on the value parts of the game that it
reads -- its rules (grid, symbols, paylines, pay table, bet levels, options
and the files the options name) and the strips of the reel sets it reads --
never on the identity of a :class:`~slotmath.model.Game` object: two games
equal in those parts share a result (every tuning candidate shares the
results that do not read its new base reels), and an edited award file is a
new key.  :func:`clear` forgets every registered cache at once (benchmarks of
fresh games, tests).
"""

from __future__ import annotations

import hashlib
import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache, wraps
from pathlib import Path

from slotmath.io.files import file_digest

_REGISTRY: list = []  # objects with a clear() method

#: Game fields the rules key holds (everything but the reel strips).
RULES_FIELDS = (
    "name",
    "rules",
    "reels",
    "rows",
    "symbols",
    "paylines",
    "line_pays",
    "scatter_pays",
    "bet_levels",
    "options",
    "source",
    "heights",  # reel heights and the top reel's strips (grid.top_reel)
)


class ValueCache:
    """A least-recently-used map from a value key to a result (registered)."""

    def __init__(self, maxsize: int):
        self.maxsize, self._data = maxsize, OrderedDict()
        _REGISTRY.append(self)

    def get(self, key):
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key, value):
        self._data[key] = value
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


def memo(maxsize: int = 64) -> Callable:
    """``functools.lru_cache`` for a function of hashable values, registered
    with :func:`clear`."""

    def decorate(fn):
        cached = lru_cache(maxsize=maxsize)(fn)
        _REGISTRY.append(cached)
        return cached

    return decorate


def referenced_files(folder, options) -> list[Path]:
    """Files in ``folder`` that string values of ``options`` name (award
    tables; :func:`slotmath.io.readset.option_files`)."""
    from slotmath.io.readset import option_files

    return option_files(folder, options)


_DIGESTS = ValueCache(maxsize=64)
#: per Game object, the text of its rules fields (a game is frozen: computed once)
_TEXTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_REGISTRY.append(_TEXTS)


def _rules_text(game) -> tuple:
    """``repr`` of :data:`RULES_FIELDS` of ``game`` and the files its options
    name (:func:`referenced_files`), once per game object (their contents
    are stamped on every lookup)."""
    found = _TEXTS.get(game)
    if found is None:
        text = repr(tuple(getattr(game, name) for name in RULES_FIELDS))
        files = referenced_files(Path(game.source).parent, dict(game.options or {})) if game.source else []
        found = _TEXTS[game] = (text, tuple(files))
    return found


def rules_key(game) -> str:
    """Digest of everything but the reel strips that an analysis reads:
    :data:`RULES_FIELDS` and the content of the files the options name."""
    text, files = _rules_text(game)
    stamp = (text, tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files))
    digest = _DIGESTS.get(stamp)
    if digest is None:
        h = hashlib.sha256(text.encode())
        for path in files:  # checked for size
            h.update(path.name.encode())
            file_digest(path, h)
        digest = _DIGESTS.put(stamp, h.hexdigest())
    return digest


def all_sets(game, *args) -> tuple:
    """Every reel set of the game (a result that may read any strip)."""
    return tuple(sorted(game.reel_sets))


def no_sets(game, *args) -> tuple:
    """No reel set (a result of the rules and options only)."""
    return ()


def game_key(game, sets) -> tuple:
    """The value key of ``game`` for a result that reads the strips of ``sets``."""
    return (rules_key(game),) + tuple((n, game.strips(n)) for n in sets)


class _Keyed:
    """A game compared and hashed by its value key only."""

    __slots__ = ("game", "key", "_hash")

    def __init__(self, game, sets):
        self.game, self.key = game, game_key(game, sets)
        self._hash = hash(self.key)

    def __eq__(self, other):
        return isinstance(other, _Keyed) and self.key == other.key

    def __hash__(self):
        return self._hash


def game_cache(sets: Callable = all_sets, maxsize: int = 32) -> Callable:
    """Cache a function of ``(game, *args)`` on the game's value key for the
    reel sets ``sets(game, *args)`` names (default: all), and ``args``."""

    def decorate(fn):
        cached = lru_cache(maxsize=maxsize)(lambda k, *args: fn(k.game, *args))
        _REGISTRY.append(cached)

        @wraps(fn)
        def wrapper(game, *args):
            return cached(_Keyed(game, sets(game, *args)), *args)

        wrapper.cache_clear = cached.cache_clear
        wrapper.cache_info = cached.cache_info
        return wrapper

    return decorate


def clear() -> None:
    """Forget every cached result (compiled numba kernels stay)."""
    for cache in _REGISTRY:
        if hasattr(cache, "cache_clear"):
            cache.cache_clear()
        else:
            cache.clear()
