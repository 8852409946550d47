"""The feature conformance check: every :class:`~slotmath.features.kinds.FeatureKind`
of the registry keeps the contract its consumers rely on.

:func:`feature_checks` yields the checks of one feature by name (nothing is
computed until a check is called; the example game's analysis is computed
once and shared); :func:`parametrize_with_feature_checks` makes each its own
pytest test, ``<key>-<check>``, as scikit-learn's ``parametrize_with_checks``.
Each check runs on the feature's ``example`` game and raises
:class:`~slotmath.errors.ConformanceError` naming the feature and the broken
promise.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from slotmath.errors import ConformanceError, SetupError
from slotmath.features.kinds import FeatureKind
from slotmath.features.registry import feature_kinds

__all__ = ["FEATURE_CHECKS", "feature_checks", "parametrize_with_feature_checks"]

#: the repository root (the examples' paths are relative to it)
ROOT = Path(__file__).resolve().parents[2]


class _Case:
    def __init__(self, kind: FeatureKind):
        self.kind = kind

    def fail(self, problem: str):
        raise ConformanceError(f"feature {self.kind.key!r}: {problem}")

    @functools.cached_property
    def game(self):
        from slotmath.io.gamefile import load_game

        if self.kind.example is None:
            self.fail("names no example game (FeatureKind.example)")
        return load_game(ROOT / self.kind.example)

    @functools.cached_property
    def par(self):
        from slotmath.rules.linegame import analyse

        return analyse(self.game, self.game.levels[0])


def _identity(case: _Case) -> None:
    """The key is an identifier, no other feature's; the component, if any, is no other's."""
    kind = case.kind
    others = [k for k in feature_kinds() if k is not kind]
    if not kind.key.isidentifier() or kind.key in {k.key for k in others}:
        case.fail(f"key {kind.key!r} is not an identifier or is another feature's")
    if kind.component is not None and kind.component in {k.component for k in others}:
        case.fail(f"component {kind.component!r} is another feature's")
    if (kind.component is None) != (kind.exact is None):
        case.fail("has a component but no exact method, or an exact method but no component")


def _declared(case: _Case) -> None:
    """Its example game declares it and the declaration parses, once (cached)."""
    game = case.game
    if not case.kind.declared(game):
        case.fail(f"its example {case.kind.example} does not declare options.{case.kind.key}")
    spec = case.kind.parse(game)
    if spec is None or case.kind.parse(game) is not spec:
        case.fail("parse gives None on its example, or a new object on every call (not cached)")
    case.kind.check(game)


def _reel_sets(case: _Case) -> None:
    """The reel sets it reads are reel sets of the game."""
    extra = case.kind.reel_sets(case.game) - set(case.game.reel_sets)
    if extra:
        case.fail(f"reads reel sets the game does not declare: {sorted(extra)}")


def _exact(case: _Case) -> None:
    """A feature that starts has an exact method whose round feature carries its component,
    and the analysis of its example shows that component."""
    kind, game = case.kind, case.game
    if not kind.starts(game):
        return
    feature = kind.exact(game, game.levels[0])
    if feature.name != kind.component:
        case.fail(f"its exact method's feature is named {feature.name!r}, not {kind.component!r}")
    if kind.component not in case.par.components:
        case.fail(f"the analysis of {game.name} has no component {kind.component!r}")


def _sheet(case: _Case) -> None:
    """Its notes are strings, each on the sheet; its tables are on the sheet
    (both read from the feature figures of the example's analysis)."""
    from types import SimpleNamespace

    kind, par = case.kind, case.par
    law = SimpleNamespace(figures=par.features, components=par.components)
    notes = kind.notes(case.game, law)
    if not all(isinstance(n, str) and n in par.notes for n in notes):
        case.fail("a note it gives is not a string on the sheet")
    for title in kind.tables(case.game, par.features, float(par.rtp), case.game.levels[0]):
        if title not in par.tables:
            case.fail(f"its table {title!r} is not on the sheet")


def _sampled(case: _Case) -> None:
    """A sampled feature is a column of the compiled round; one that is not
    is refused by the sampler in one line naming its key."""
    from slotmath.rules.linegame import round_sampler

    kind = case.kind
    if kind.sampled:
        from slotmath.montecarlo.roundsim import COMPONENTS

        if kind.component is not None and kind.component not in COMPONENTS and kind.draws is None:
            case.fail(f"says it is sampled but the compiled round has no slot for {kind.component!r}")
        return
    try:
        round_sampler(case.game, case.game.levels[0])
    except SetupError as e:
        if f"options.{kind.key}" not in str(e):
            case.fail(f"the sampler's refusal does not name options.{kind.key}: {e}")
    else:
        case.fail("says it is not sampled but the sampler builds")


def _slot(case: _Case) -> None:
    """A kind with a ``slot`` names a :class:`~slotmath.montecarlo.slots.SamplerSlot`
    paid in a column of the compiled round; on a game not declaring it (the
    library's ``fruit_classic``) its args start it on no base window and name
    no event, and on its example they have the same numba type (one compiled
    kernel serves every game)."""
    kind = case.kind
    if kind.slot is None:
        return
    import numba as nb
    import numpy as np

    from slotmath.io.gamefile import load_game
    from slotmath.montecarlo.roundsim import COMPONENTS
    from slotmath.montecarlo.slots import load_slot

    try:
        slot = load_slot(kind.slot)
    except (ImportError, AttributeError, TypeError, ValueError) as e:
        case.fail(f"its slot {kind.slot!r} is not an importable SamplerSlot: {e}")
    if kind.component not in COMPONENTS or kind.draws is not None or not kind.sampled:
        case.fail(f"has a slot but its component {kind.component!r} is no column of the compiled round")
    plain = load_game(ROOT / "data" / "games" / "fruit_classic")
    args, names = slot.args(plain, plain.levels[0], 0, None)
    if names:
        case.fail(f"its slot names events {names} on a game not declaring it")
    stop = np.zeros(plain.reels, dtype=np.int64)
    for index in np.ndindex(*(len(s) for s in plain.strips("base"))):
        stop[:] = index
        if slot.start.py_func(stop, args) != -1:
            case.fail(f"its slot starts at stops {index} of a game not declaring it")
    declared, _ = slot.args(case.game, case.game.levels[0], 0, None)
    if str(nb.typeof(declared)) != str(nb.typeof(args)) or nb.typeof(slot.silent(args)) != nb.typeof(args):
        case.fail("its slot's args differ in numba type between games (or when silenced)")


def _schema(case: _Case) -> None:
    """It gives its schema fragment (a mapping of named keys refuses unknown
    ones), and the game file's schema holds it (written by ``python -m
    slotmath.features.registry``)."""
    import json
    from importlib import resources

    fragment = case.kind.schema
    if not isinstance(fragment, dict) or (
        "properties" in fragment and fragment.get("additionalProperties") is not False
    ):
        case.fail("gives no schema fragment, or one that lets unknown keys through (FeatureKind.schema)")
    text = resources.files("slotmath").joinpath("io/schema/game.schema.json").read_text()
    if json.loads(text)["properties"]["options"]["properties"].get(case.kind.key) != fragment:
        case.fail(
            "the game file's schema does not hold its fragment: run python -m slotmath.features.registry"
        )


def _buy(case: _Case) -> None:
    """For sale or not as the game-file reader says (its ``BUYABLE``, with the
    same start key); a buy names a sampler that exists."""
    from importlib import import_module

    from slotmath.io.gamefile import BUYABLE

    buy = case.kind.buy
    if (buy.start if buy is not None else None) != BUYABLE.get(case.kind.key):
        case.fail(
            f"the game-file reader's BUYABLE says {BUYABLE.get(case.kind.key)!r}, its Buy "
            f"{buy.start if buy is not None else None!r}"
        )
    if buy is not None:
        module, _, name = buy.sampler.partition(":")
        if not callable(getattr(import_module(module), name, None)):
            case.fail(f"its Buy names the sampler {buy.sampler!r}, which does not exist")


def _components_with(case: _Case, tunable, xs) -> dict:
    """The RTP components [x total bet] of the example at the tunable's first
    level, with the table's weights ``xs``: ``{name: Fraction}``."""
    from fractions import Fraction

    from slotmath.analysis.metrics import game_figures
    from slotmath.tuning.tablespace import TableSpace

    space = TableSpace(case.game, [tunable.path], None)
    level = tunable.levels[0] if tunable.levels else case.game.levels[0]
    figs = game_figures(space.game_for([xs]), level, "base", ("rtp",))
    return {k.removeprefix("rtp:"): Fraction(v) for k, v in figs.items() if k.startswith("rtp:")}


def _tunables(case: _Case) -> None:
    """Each table it states as tunable is in its example's ``options`` with
    the weights it states, and moving weight between its entries (the total
    held) changes some of the components it names and no other."""
    import numpy as np

    from slotmath.tuning.tablespace import table_rows

    for t in case.kind.tunables(case.game):
        try:
            rows = table_rows(case.game.options, t.keys)
        except (KeyError, TypeError, StopIteration):
            case.fail(f"states the tunable {t.path}, which its example's options do not hold")
        weights = tuple(r["weight"] if isinstance(r, dict) else r[1] for r in rows)
        if weights != t.weights:
            case.fail(f"states weights {t.weights} for {t.path}; the example has {weights}")
        x = 2 * np.array(t.weights, dtype=np.int64)  # the same law, room to move one unit
        h = int(np.argmax(x))
        before, changed = _components_with(case, t, x), set()
        for k in range(len(x)):
            if k != h:
                y = x.copy()
                y[h], y[k] = y[h] - 1, y[k] + 1
                after = _components_with(case, t, y)
                changed |= {c for c in set(before) | set(after) if before.get(c, 0) != after.get(c, 0)}
        if not changed or not changed <= set(t.components):
            case.fail(
                f"moving {t.path} changes the components {sorted(changed)}, "
                f"not some of those it names {list(t.components)}"
            )


def _sensitivity(case: _Case) -> None:
    """The exact derivatives of the components with respect to each tunable
    weight (:func:`slotmath.tuning.sensitivity.table_derivatives`) agree
    with an exact finite difference: weights times ``K``, one unit moved
    from the heaviest entry ``h`` to entry ``k`` and back, the total held:
    ``K (f(+) - f(-)) / 2 = D_k - D_h``, exactly at degree 1 (the figures
    linear in the draw probabilities), within ``1e-6`` relative otherwise
    (the cubic remainder)."""
    import numpy as np

    from slotmath.tuning.sensitivity import table_derivatives

    K = 1000
    for t in case.kind.tunables(case.game):
        if t.degree is None:
            continue  # no exact derivative (a round cap)
        level = t.levels[0] if t.levels else case.game.levels[0]
        d = table_derivatives(case.game, level, t.path)
        x = K * np.array(t.weights, dtype=np.int64)
        h = int(np.argmax(x))
        for k in range(len(x)):
            if k == h:
                continue
            up, down = x.copy(), x.copy()
            up[h], up[k] = up[h] - 1, up[k] + 1
            down[h], down[k] = down[h] + 1, down[k] - 1
            fu, fd = _components_with(case, t, up), _components_with(case, t, down)
            for c in set(fu) | set(fd):
                diff = K * (fu.get(c, 0) - fd.get(c, 0)) / 2
                want = d[f"rtp:{c}"][k] - d[f"rtp:{c}"][h]
                tol = 0 if t.degree == 1 else 1e-6 * max(abs(want), abs(diff), 1e-12)
                if abs(diff - want) > tol:
                    case.fail(
                        f"d rtp:{c} / d weight of {t.path} [{t.labels[k]}] - [{t.labels[h]}] is "
                        f"{float(want):.12g}; the exact finite difference gives {float(diff):.12g}"
                    )


#: The checks, by name.
FEATURE_CHECKS: dict[str, Callable[[_Case], None]] = {
    "identity": _identity,
    "schema": _schema,
    "declared": _declared,
    "reel_sets": _reel_sets,
    "exact": _exact,
    "sheet": _sheet,
    "sampled": _sampled,
    "slot": _slot,
    "buy": _buy,
    "tunables": _tunables,
    "sensitivity": _sensitivity,
}


def feature_checks(kind: FeatureKind) -> Iterator[tuple[str, Callable[[], None]]]:
    """The conformance checks of ``kind``, by name (:data:`FEATURE_CHECKS`)."""
    case = _Case(kind)
    for name, check in FEATURE_CHECKS.items():
        yield name, functools.partial(check, case)


def parametrize_with_feature_checks(kinds: Iterable[FeatureKind] | None = None) -> Any:
    """A ``pytest.mark.parametrize`` of every check of every feature
    (default: the registry's), each a test named ``<key>-<check>``."""
    import pytest

    params, ids = [], []
    for kind in feature_kinds() if kinds is None else kinds:
        for name, check in feature_checks(kind):
            params.append(check)
            ids.append(f"{kind.key}-{name}")
    return pytest.mark.parametrize("check", params, ids=ids)
