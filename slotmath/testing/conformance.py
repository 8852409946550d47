"""The conformance check of a rules class: what every registered rules must
satisfy on its games (run by the tests on every registered rules, and by a
rules package's own tests; see ``docs/rules-packages.md``).

:func:`check_rules` raises :class:`ConformanceError` naming the first broken
promise of the contract (:class:`slotmath.rules.contract.Rules`);
:func:`rules_checks` yields the same checks one by one, by name (the keys of
:data:`CHECKS`), and :func:`parametrize_with_checks` makes each its own
pytest test, so a report lists every broken promise, not only the first:

* the game passes ``check``, and ``check`` refuses an option key the rules
  do not read (GameFileError naming ``options.<key>``);
* ``analyse`` returns a :class:`~slotmath.rules.result.ParResult` whose
  components sum to its RTP and whose win distribution is a probability
  law (weights sum to 1, no negative win) with mean equal to the RTP less
  the ``unpaid_components`` (e.g. a progressive meter's contribution);
* ``components`` equal the analysis's components, key by key;
* ``figures`` give the analysis's RTP (and its SD, when given);
* ``equivalent_levels`` maps every level to a level with the same figures;
* ``tuning_constraints`` name only ``rtp_figures`` and ``bands``;
* ``exact_events`` are non-negative rates;
* with a round sampler: the kernel returns ``n`` finite wins in
  [0, max win], one non-negative count per event name and, when it names
  parts, each round's win by part (summing to the win), and the mean of
  ``rounds`` simulated rounds is within 5 standard errors of the
  distribution's mean.

Exact figures (Fractions) must agree exactly; float64 figures to a relative
``tolerance`` (default 1e-9); a float distribution that leaves mass
unresolved counts its ``distribution_shortfall`` into its mean.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from slotmath.errors import ConformanceError as ConformanceError
from slotmath.io.gamefile import GameFileError
from slotmath.model import Game
from slotmath.rules.contract import Rules
from slotmath.rules.result import ParResult

#: An option key no rules reads (the check must refuse it).
PROBE_KEY = "no_such_option_for_conformance"


def _same(a, b, tolerance: float) -> bool:
    """Exact equality for two Fractions/ints, else relative ``tolerance``."""
    if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
        return a == b
    a, b = float(a), float(b)
    return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)


def _require(ok: bool, where: str, problem: str) -> None:
    if not ok:
        raise ConformanceError(f"{where}: {problem}")


class _Case:
    """One (rules, game, level) under check; the analysis is computed once,
    by the first check that needs it, and shared by the others."""

    def __init__(self, rules: Rules, game: Game, level: int | None, rounds: int, tolerance: float):
        self.rules, self.game, self.rounds, self.tolerance = rules, game, rounds, tolerance
        self.level = game.bet(level).level
        self.name = type(rules).__name__
        self._result: ParResult | None = None

    @property
    def result(self) -> ParResult:
        if self._result is None:
            self._result = self.rules.analyse(self.game, self.level)
        return self._result


def _check_contract(case: _Case) -> None:
    rules, name = case.rules, case.name
    _require(isinstance(rules, Rules), name, "is not a slotmath.rules.contract.Rules")
    _require(
        isinstance(rules.options, frozenset) and all(isinstance(k, str) for k in rules.options),
        f"{name}.options",
        "must be a frozenset of option keys",
    )
    _require(rules.own_options <= rules.options, f"{name}.own_options", "must be a subset of options")


def _check_options(case: _Case) -> None:
    _check_check(case.rules, case.game, case.name)


def _check_analyse(case: _Case) -> None:
    name, result = case.name, case.result
    unpaid = case.rules.unpaid_components(case.game)
    _require(
        unpaid <= set(result.components), f"{name}.unpaid_components", f"{set(unpaid)} are not components"
    )
    _check_analysis(result, f"{name}.analyse", unpaid, case.tolerance)


def _check_components(case: _Case) -> None:
    name, result = case.name, case.result
    comps = case.rules.components(case.game, case.level)
    _require(
        list(comps) == list(result.components),
        f"{name}.components",
        f"keys {list(comps)} differ from analyse's {list(result.components)}",
    )
    for key, value in comps.items():
        _require(
            _same(value, result.components[key], case.tolerance),
            f"{name}.components",
            f"{key!r} is {value}, analyse gives {result.components[key]}",
        )


def _check_figures(case: _Case) -> None:
    name, result = case.name, case.result
    figs = case.rules.figures(case.game, case.level)
    _require("rtp" in figs, f"{name}.figures", "give no 'rtp'")
    _require(
        _same(figs["rtp"], result.rtp, case.tolerance),
        f"{name}.figures",
        f"rtp {figs['rtp']} != {result.rtp}",
    )
    if figs.get("sd") is not None:
        _require(_same(figs["sd"], result.sd, 1e-6), f"{name}.figures", f"sd {figs['sd']} != {result.sd}")


def _check_levels(case: _Case) -> None:
    game = case.game
    eq = case.rules.equivalent_levels(game)
    _require(
        set(eq) == set(game.levels) and all(v in game.levels and eq[v] == v for v in eq.values()),
        f"{case.name}.equivalent_levels",
        f"{eq} must map every level to a representative level that maps to itself",
    )


def _check_tuning_constraints(case: _Case) -> None:
    stated = case.rules.tuning_constraints(case.game) or {}
    _require(
        set(stated) <= {"rtp_figures", "bands"},
        f"{case.name}.tuning_constraints",
        f"unknown keys {sorted(set(stated) - {'rtp_figures', 'bands'})}",
    )


def _check_events(case: _Case) -> None:
    events = case.rules.exact_events(case.game, case.level)
    _require(
        all(float(v) >= 0 for v in events.values()), f"{case.name}.exact_events", "rates must be non-negative"
    )


def _check_round_sampler(case: _Case) -> None:
    if case.rules.has_round_sampler:
        _check_sampler(case.rules, case.game, case.level, case.result, case.rounds, case.name)


#: The checks by name, in the order :func:`check_rules` runs them.
CHECKS = {
    "contract": _check_contract,
    "options": _check_options,
    "analyse": _check_analyse,
    "components": _check_components,
    "figures": _check_figures,
    "equivalent_levels": _check_levels,
    "tuning_constraints": _check_tuning_constraints,
    "exact_events": _check_events,
    "round_sampler": _check_round_sampler,
}


def rules_checks(
    rules: Rules, game: Game, level: int | None = None, *, rounds: int = 20_000, tolerance: float = 1e-9
) -> Iterator[tuple[str, Callable[[], None]]]:
    """The conformance checks of ``rules`` on ``game``, one by one.

    Nothing is computed until a check is called; the analysis is computed
    once and shared.  Use :func:`parametrize_with_checks` to run each as
    its own test.

    Parameters
    ----------
    rules, game, level, rounds, tolerance
        As in :func:`check_rules`.

    Yields
    ------
    name : str
        The check's name (a key of :data:`CHECKS`).
    check : callable
        Called without arguments; raises :class:`ConformanceError` naming
        the method and the broken promise.
    """
    case = _Case(rules, game, level, rounds, tolerance)
    for name, check in CHECKS.items():
        yield name, functools.partial(check, case)


def parametrize_with_checks(cases: Iterable, *, rounds: int = 20_000, tolerance: float = 1e-9) -> Any:
    """A ``pytest.mark.parametrize`` of every conformance check of every case,
    each a test of its own named ``<rules>-<game>-<level>-<check>``.

    Parameters
    ----------
    cases : iterable of (rules, game) or (rules, game, level)
    rounds, tolerance
        As in :func:`check_rules`.

    Returns
    -------
    pytest.MarkDecorator
        Parametrizes the argument ``check`` (call it in the test).

    Examples
    --------
    >>> from slotmath.testing import parametrize_with_checks
    >>> @parametrize_with_checks([(MyRules(), load_game("my_game"))])  # doctest: +SKIP
    ... def test_my_rules(check):
    ...     check()
    """
    import pytest

    params, ids = [], []
    for case in cases:
        rules, game, *rest = case
        level = game.bet(rest[0] if rest else None).level
        for name, check in rules_checks(rules, game, level, rounds=rounds, tolerance=tolerance):
            params.append(check)
            ids.append(f"{type(rules).__name__}-{game.name}-{level}-{name}")
    return pytest.mark.parametrize("check", params, ids=ids)


def check_rules(
    rules: Rules, game: Game, level: int | None = None, *, rounds: int = 20_000, tolerance: float = 1e-9
) -> ParResult:
    """Check that ``rules`` keep the rules contract on ``game`` at bet ``level``:
    every check of :func:`rules_checks`, stopping at the first failure.

    Parameters
    ----------
    rules : Rules
    game : Game
        A valid game of these rules.
    level : int, optional
        Bet level (default: the lowest).
    rounds : int
        Rounds simulated with the round sampler (0: shape checks only).
    tolerance : float
        Relative tolerance of float64 figures.

    Returns
    -------
    ParResult
        The analysis (for further checks by the caller).

    Raises
    ------
    ConformanceError
        Naming the method and the broken promise.
    """
    case = _Case(rules, game, level, rounds, tolerance)
    for check in CHECKS.values():
        check(case)
    return case.result


def _check_check(rules: Rules, game: Game, name: str) -> None:
    try:
        rules.check(game)
    except GameFileError as exc:
        raise ConformanceError(f"{name}.check: refuses its own game: {exc}") from None
    probe = dataclasses.replace(game, options={**(game.options or {}), PROBE_KEY: 1})
    try:
        rules.check(probe)
    except GameFileError as exc:
        _require(
            exc.field == f"options.{PROBE_KEY}",
            f"{name}.check",
            f"an unknown option key is refused naming {exc.field!r}, not options.{PROBE_KEY}",
        )
    else:
        raise ConformanceError(f"{name}.check: accepts an option key the rules do not read ({PROBE_KEY})")


def _check_analysis(result, where: str, unpaid: frozenset, tolerance: float) -> None:
    _require(isinstance(result, ParResult), where, f"returned {type(result).__name__}, not a ParResult")
    total = sum(result.components.values(), Fraction(0))
    _require(
        _same(total, result.rtp, tolerance),
        where,
        f"components sum to {float(total)!r}, RTP is {float(result.rtp)!r}",
    )
    d = result.distribution
    weights = np.asarray(d.weights)
    _require(bool((weights >= 0).all()), where, "the distribution has a negative weight")
    if d.exact:  # integer hit counts
        _require(int(weights.sum()) > 0, where, "the distribution's hit counts sum to 0")
    else:
        _require(
            math.isclose(float(weights.sum()), 1.0, rel_tol=1e-9),
            where,
            f"distribution weights sum to {float(weights.sum())!r}, not 1",
        )
    _require(bool((np.asarray(d.wins) >= 0).all()), where, "the distribution has a negative win")
    paid = result.rtp - sum((result.components[k] for k in unpaid), Fraction(0))
    mean = result.paid_rtp
    _require(
        _same(mean, paid, tolerance),
        where,
        f"distribution mean {float(mean)!r} (with its shortfall) != RTP {float(result.rtp)!r}"
        + (f" less {', '.join(sorted(unpaid))}" if unpaid else ""),
    )
    _require(0 <= result.hit_frequency <= 1, where, f"hit frequency {result.hit_frequency} outside [0, 1]")


def _check_sampler(rules: Rules, game: Game, level: int, result, rounds: int, name: str) -> None:
    from slotmath.montecarlo.run import as_sampler

    where = f"{name}.round_sampler"
    sampler = as_sampler(rules.round_sampler(game, level))
    rng = np.random.default_rng(20_260_101)
    n = 256
    out = sampler.kernel(rng, n, *sampler.args)
    parts_named = len(sampler.part_names)
    _require(
        len(out) == (3 if parts_named else 2),
        where,
        f"kernel returned {len(out)} arrays, not (wins, events{', parts' if parts_named else ''})",
    )
    wins, events = np.asarray(out[0]), np.asarray(out[1])
    if parts_named:
        parts = np.asarray(out[2])
        _require(
            parts.shape == (n, parts_named),
            where,
            f"kernel returned parts of shape {parts.shape}, not ({n}, {parts_named})",
        )
        _require(
            bool(np.allclose(parts.sum(axis=1), wins, rtol=1e-12, atol=1e-12)),
            where,
            "the parts of a round's win do not add up to its win",
        )
    _require(wins.shape == (n,), where, f"kernel returned wins of shape {wins.shape}, not ({n},)")
    _require(
        events.shape == (len(sampler.event_names),),
        where,
        f"kernel returned events of shape {events.shape}, not ({len(sampler.event_names)},)",
    )
    _require(events.dtype.kind in "iu" and bool((events >= 0).all()), where, "event counts must be counts")
    top = float(result.distribution.max_win) * (1 + 1e-9)
    _require(
        bool(np.isfinite(wins).all() and (wins >= 0).all() and (wins <= top).all()),
        where,
        f"a win outside [0, max win {float(result.distribution.max_win):g}]",
    )
    if rounds <= 0:
        return
    total, done = 0.0, 0
    while done < rounds:
        m = min(8192, rounds - done)
        total += float(np.sum(sampler.kernel(rng, m, *sampler.args)[0]))
        done += m
    se = result.sd / math.sqrt(rounds)
    mean = float(result.paid_rtp)
    z = (total / rounds - mean) / se if se > 0 else 0.0
    _require(
        abs(z) < 5,
        where,
        f"mean win of {rounds:,} rounds {total / rounds:.6g} is {z:+.2f} SE from {mean:.6g}",
    )
