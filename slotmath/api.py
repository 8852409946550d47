"""The public API: six functions a notebook user needs.

>>> import slotmath
>>> game = slotmath.load("video20")          # doctest: +SKIP
>>> slotmath.par(game).print_summary()        # doctest: +SKIP

Each function delegates to the module that does the work and imports it only
when called, so ``import slotmath`` stays light (no numba, pandas or scipy).
A game may be given as a :class:`~slotmath.model.Game` or as a spec: a path
to a game folder or file, or the name of a folder on the games search path.
Wins and RTPs are in [x total bet] unless stated.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slotmath.errors import BoundsError

if TYPE_CHECKING:  # pragma: no cover
    from slotmath.model import Game
    from slotmath.rules.modepar import ModeResult
    from slotmath.rules.result import ParResult
    from slotmath.tuning.jointtune import JointTuning
    from slotmath.tuning.tabletune import TableTuning
    from slotmath.tuning.targets import Targets
    from slotmath.tuning.tune import TuningResult

#: What :func:`par` computes: the whole PAR (a ParResult), the RTP by
#: component (a dict), or the named tuning figures (a dict).
PAR_WHAT = ("par", "components", "figures")


def _game(game: Game | str | Path) -> Game:
    from slotmath.model import Game

    return game if isinstance(game, Game) else load(game)


def _level(game: Game, level: int | None) -> int:
    from slotmath.io.gamefile import check_level

    check_level(game, level)
    return game.bet(level).level


def load(game: str | Path, games_dir: str | Path | None = None) -> Game:
    """Read and validate a game file.

    Parameters
    ----------
    game : str or path
        A game folder, a game file (``game.yaml``), or the name of a folder
        in the games search path (``data/games``).
    games_dir : str or path, optional
        Folder to look names up in (default: the games search path).

    Returns
    -------
    Game
        The validated game: reel strips [stops], pays [coins per line bet],
        bet levels [coins].

    Raises
    ------
    slotmath.errors.GameFileError
        Naming the file, the field and the problem.
    """
    from slotmath.io.gamefile import load_game

    return load_game(game, None if games_dir is None else Path(games_dir))


def validate(game: str | Path | Game) -> Game:
    """Check a game file as ``slotmath validate`` does: its schema, meaning
    and its rules' checks.  Light: imports no numerics.

    Parameters
    ----------
    game : str, path or Game
        A game spec (see :func:`load`), or a game to check against its rules.

    Returns
    -------
    Game
        The valid game.

    Raises
    ------
    slotmath.errors.GameFileError
        Naming the file, the field and the problem.
    """
    from slotmath.io.gamefile import check_rules
    from slotmath.model import Game

    if isinstance(game, Game):
        check_rules(game)
        return game
    return load(game)


def par(
    game: str | Path | Game, level: int | None = None, mode: str | None = None, what: str = "par"
) -> ParResult | ModeResult | dict:
    """Exact figures of a game at one bet level, in one bet mode.

    Parameters
    ----------
    game : str, path or Game
        The game or its spec (see :func:`load`).
    level : int, optional
        Bet level (default: the lowest).
    mode : str, optional
        A bet mode of the game's ``modes`` (``"base"`` is every game's
        implicit one); given, the result is the mode's
        :class:`~slotmath.rules.modepar.ModeResult` (its cost [x total bet],
        RTP per unit of cost, and the PAR of its round).
    what : {"par", "components", "figures"}
        ``"par"``: the whole PAR sheet; ``"components"``: only the RTP by
        component, as cheaply as the game's rules allow; ``"figures"``: the
        named figures the tuner uses (at least ``rtp``).  With ``mode``,
        only ``"par"``.

    Returns
    -------
    ParResult, ModeResult or dict
        ``"par"``: a :class:`~slotmath.rules.result.ParResult` (RTP
        [x total bet], exact as a Fraction; hit frequency [probability];
        SD [x total bet]; combination table; features), or with ``mode``
        a :class:`~slotmath.rules.modepar.ModeResult`.  ``"components"``:
        ``{component: RTP [x total bet]}`` summing to the RTP.
        ``"figures"``: ``{figure: value}`` (see :mod:`slotmath.analysis.metrics`).

    Raises
    ------
    slotmath.errors.GameFileError
        An invalid game file, a bet level or mode the game does not offer.
    slotmath.errors.EngineTooLarge
        The exact figures would need more memory or time than allowed.
    ValueError
        An unknown ``what``, or ``what`` other than ``"par"`` with ``mode``.
    """
    if what not in PAR_WHAT:
        raise ValueError(f"what must be one of {', '.join(PAR_WHAT)}, got {what!r}")
    if mode is not None and what != "par":
        raise ValueError(f"a bet mode's figures are its whole PAR (what='par'), got {what!r}")
    game = _game(game)
    level = _level(game, level)
    if mode is not None:
        from slotmath.rules.modepar import mode_par

        return mode_par(game, mode, level)
    if what == "par":
        from slotmath.rules.par import par as exact_par

        return exact_par(game, level)
    from slotmath.rules.registry import rules_for

    rules = rules_for(game)
    return rules.components(game, level) if what == "components" else rules.figures(game, level)


def simulate(
    game: str | Path | Game, spins: int, seed: int = 0, level: int | None = None, **options: Any
) -> Any:
    """Monte Carlo cross-check of a game's exact figures (``slotmath simulate``).

    Parameters
    ----------
    game : str, path or Game
        The game or its spec (see :func:`load`).
    spins : int
        Rounds to play [rounds].
    seed : int
        Fixes the result (with ``spins`` and ``chunk``) whatever the workers.
    level : int, optional
        Bet level (default: the lowest).
    **options
        ``chunk`` [rounds per chunk], ``workers`` [processes], ``scheduler``
        (a Dask address), ``progress`` (bool), ``exact`` (what to compare
        with; see :func:`slotmath.analysis.simulation.simulate_game`).

    Returns
    -------
    MonteCarloResult or SimulationResult
        Simulated figures (RTP [x total bet], hit frequency [probability]),
        each with its standard error and z-score against the exact value.
    """
    from slotmath.analysis.simulation import cross_check

    game = _game(game)
    return cross_check(game, _level(game, level), spins, seed, **options)


def tune(
    game: str | Path | Game,
    targets: Targets | float | Mapping[str, Any],
    bounds: Any = None,
    mode: str | None = None,
    tables: Any = None,
    **options: Any,
) -> TuningResult | TableTuning | JointTuning:
    """Tune a game's reel strips, its feature weight tables, or both, to targets (``slotmath tune``).

    Parameters
    ----------
    game : str, path or Game
        The game or its spec (see :func:`load`).
    targets : Targets, float or mapping
        What the tuned game must achieve; a number is a target RTP
        [x total bet] with the default tolerance (5e-5); a mapping
        ``{mode: RTP}`` gives bet modes their RTP per unit of cost, all met
        at once (``{"base": 0.96, "buy": 0.962}``; the mode tuned is
        ``mode``, else the first).
    bounds : Bounds, optional
        Limits on what may change (:class:`slotmath.tuning.reelspace.Bounds`).
    mode : str, optional
        The bet mode tuned: the plain figures (``rtp``, ``hit_frequency``,
        ``vi``) are its, the RTP per unit of its cost; the reel set tuned
        defaults to the one it plays (``Targets.mode``).
    tables : sequence of str, optional
        Tune these weight tables instead, the strips held (``slotmath tune
        --table``; ``["options.hold_and_spin.values"]`` or ``["all"]``):
        :func:`slotmath.tuning.tabletune.tune_tables`, which ``**options``
        then go to (``weight_factor``, ``component_share``, ``scale``, ...);
        ``bounds`` must be None.  With ``reel_set`` in ``**options`` too,
        the strips of that set and the tables move together
        (``slotmath tune --reel-set NAME --table PATH``:
        :func:`slotmath.tuning.jointtune.tune_joint`, ``bounds`` the strips').
    **options
        Passed to :func:`slotmath.tuning.tune.tune` (``reel_set``: one set,
        several tuned at once, ``("base", "free")``, or ``"all"``;
        ``max_evaluations``, ``time_limit`` [s], ``progress``, ...).

    Returns
    -------
    TuningResult, TableTuning or JointTuning
        The tuned strips (or weights, or both), their exact figures before and
        after, and the moves.

    Raises
    ------
    slotmath.errors.InfeasibleTuning
        Bounds that name an unknown symbol or reel, or contradict each other;
        a bet mode the game does not have, or one that does not play the
        reel set tuned (several sets: one of them); a reel set the game does
        not have, named twice, or played by no mode judged.
    """
    import dataclasses

    from slotmath.tuning.targets import Targets
    from slotmath.tuning.tune import tune as tune_reels

    if isinstance(targets, Mapping):
        goals = dict(targets)
        mode = mode if mode is not None else next(iter(goals), None)
        if mode not in goals:
            raise BoundsError(f"targets: no target RTP for the bet mode tuned, {mode!r}")
        targets = Targets(rtp=goals.pop(mode), mode=mode, mode_rtp=goals)
    elif not isinstance(targets, Targets):
        targets = Targets(rtp=targets, mode=mode)
    elif mode is not None:
        targets = dataclasses.replace(targets, mode=mode)
    tables = [tables] if isinstance(tables, str) else tables
    if tables is not None and options.get("reel_set") is not None:
        from slotmath.tuning.jointtune import tune_joint

        return tune_joint(_game(game), targets, tables, bounds, **options)
    if tables is not None:
        from slotmath.tuning.tabletune import tune_tables

        if bounds is not None:
            raise BoundsError("tables: reel-strip bounds do not apply when weight tables are tuned")
        return tune_tables(_game(game), targets, tables, **options)
    return tune_reels(_game(game), targets, bounds, **options)


def report(
    game: str | Path | Game,
    out: str | Path | None = None,
    level: int | None = None,
    spins: int | None = None,
    seed: int | None = None,
    **options: Any,
) -> Path:
    """Build a game's PAR report (``slotmath report``): HTML, Excel, JSON, text.

    Parameters
    ----------
    game : str, path or Game
        The game or its spec (see :func:`load`); a Game is reported from
        the file it was read from.
    out : str or path, optional
        Folder the report folder ``<game>/`` goes into (default: ``reports/``).
    level : int, optional
        Bet level (default: the lowest).
    spins : int, optional
        Simulated rounds of the cross-check [rounds] (default 5e7).
    seed : int, optional
        Seed of the cross-check.
    **options
        Passed to :func:`slotmath.report.notebook.run_report` (``progress``).

    Returns
    -------
    Path
        The report folder.

    Raises
    ------
    slotmath.errors.ReportError
        Naming the game, the step that failed and why.
    """
    from slotmath.report.notebook import build_report

    return build_report(game, out, level, spins, seed, **options)
