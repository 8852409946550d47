"""The registry of rules: which :class:`~slotmath.rules.contract.Rules`
analyses ``rules: NAME``.

Three sources, in this order of precedence:

1. rules a program or test registers with :func:`register`;
2. the built-in rules (:data:`BUILT_IN`);
3. rules installed distributions declare under the entry-point group
   ``slotmath.rules`` (``my_rules = "my_package.rules:MyRules"`` in their
   ``pyproject.toml``'s ``[project.entry-points."slotmath.rules"]``).

A game file names its rules only by a registered name: nothing else is
imported.  Light to import: a rules class is imported when its name is first
looked up, and the classes' modules import no analysis code.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points

from slotmath.errors import UnknownRules as UnknownRules
from slotmath.model import Game

#: Entry-point group under which installed distributions register rules.
GROUP = "slotmath.rules"

#: Built-in rules: name -> "module:class".
BUILT_IN = {
    "lines": "slotmath.rules.contract:LineRules",
    "grand_spinn_superpot": "slotmath.rules.grand_spinn_superpot.rules:GrandSpinnSuperpotRules",
    "piggy_bankin_superlock": "slotmath.rules.piggy_bankin_superlock.rules:PiggyBankinSuperlockRules",
}

_REGISTERED: dict = {}  # name -> Rules instance (register())
_LOADED: dict = {}  # name -> Rules instance (built-in and entry-point rules, once loaded)


@lru_cache(maxsize=1)
def _entry_points() -> dict:
    """Installed ``slotmath.rules`` entry points by name (read once)."""
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def forget_installed() -> None:
    """Forget the installed rules read so far: the entry points are read
    again and their rules loaded again on next use (after a distribution is
    installed while the process runs)."""
    for name in set(_LOADED) - set(BUILT_IN):
        del _LOADED[name]
    _entry_points.cache_clear()


def known_rules() -> list[str]:
    """Every registered rules name, sorted."""
    return sorted(set(_REGISTERED) | set(BUILT_IN) | set(_entry_points()))


def register(name: str, rules) -> None:
    """Register ``rules`` (a :class:`~slotmath.rules.contract.Rules` subclass
    or instance) under ``name`` for this process; it takes precedence over a
    built-in or installed rules of that name.

    Raises
    ------
    TypeError
        ``rules`` is not a Rules subclass or instance, or ``name`` is not an
        identifier.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"a rules name must be an identifier, got {name!r}")
    _REGISTERED[name] = _instance(rules, name)


def unregister(name: str) -> None:
    """Forget rules registered with :func:`register` (a no-op otherwise)."""
    _REGISTERED.pop(name, None)


def _instance(rules, name: str):
    from slotmath.rules.contract import Rules

    if isinstance(rules, type) and issubclass(rules, Rules):
        return rules()
    if isinstance(rules, Rules):
        return rules
    raise TypeError(f"rules {name!r}: {rules!r} is not a slotmath.rules.contract.Rules subclass or instance")


def _load(target: str):
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def get_rules(name: str):
    """The Rules registered under ``name``.

    Raises
    ------
    UnknownRules
        ``name`` is not registered (the message lists the registered
        names), or its entry point does not load a Rules class.
    """
    if isinstance(name, str) and name in _REGISTERED:
        return _REGISTERED[name]
    if isinstance(name, str) and name in _LOADED:
        return _LOADED[name]
    if isinstance(name, str) and name in BUILT_IN:
        rules = _instance(_load(BUILT_IN[name]), name)
    elif isinstance(name, str) and name in _entry_points():
        point = _entry_points()[name]
        try:
            rules = _instance(point.load(), name)
        except (ImportError, AttributeError, TypeError) as exc:  # the installed package is broken
            problem = " ".join(str(exc).split())[:200]
            raise UnknownRules(
                f"rules {name!r} do not load (entry point {point.value!r}: {type(exc).__name__}: {problem})"
            ) from None
    else:
        raise UnknownRules(f"unknown rules {str(name)[:100]!r} (known rules: {', '.join(known_rules())})")
    _LOADED[name] = rules
    return rules


def rules_for(game: Game):
    """The :class:`~slotmath.rules.contract.Rules` that analyses ``game``
    (its ``rules`` name looked up in the registry, then
    :meth:`~slotmath.rules.contract.Rules.for_game`)."""
    return get_rules(game.rules).for_game(game)
