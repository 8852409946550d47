"""The errors slotmath raises on purpose: one family, :class:`SlotmathError`.

Catch :class:`SlotmathError` to catch any of them.  Each carries ``file``,
``field`` and ``problem``; its text is the line the command line prints
after ``slotmath: error:`` (``file: field: problem``, the parts that are
known).  Input errors (:class:`InputError`) end a command with exit
status 2; :class:`InternalError` is a defect of slotmath, never of the input.
Errors that replace a built-in one keep it as a second base (a
:class:`GameFileError` is a ``ValueError``), so existing handlers still
catch them.  The classes are importable where they were defined too
(``slotmath.io.gamefile.GameFileError``, ...).

===========================  ===========================================
Class                        Raised when
===========================  ===========================================
:class:`GameFileError`       a game file is invalid (file, field, problem)
:class:`UsageError`          a command-line argument is invalid
:class:`UnknownRules`        a game names rules no source registers
:class:`EngineTooLarge`      an exact computation would exceed its limit
:class:`SetupError`          a simulation cannot be set up as asked
:class:`SchedulerError`      the Dask scheduler is unreachable
:class:`InfeasibleTuning`    tuning limits contradict each other or the game
:class:`BoundsError`         tuning limits name an unknown symbol or reel
:class:`ReportError`         a report step failed (game, step, why)
:class:`InternalError`       a consistency check failed (a defect)
:class:`EngineMismatch`      two exact computations of a figure disagree
:class:`GameWriteError`      a rewritten game file does not read back
:class:`ConformanceError`    a rules object breaks the rules contract
===========================  ===========================================
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

__all__ = [
    "SlotmathError",
    "InputError",
    "GameFileError",
    "UsageError",
    "UnknownRules",
    "EngineTooLarge",
    "SetupError",
    "SchedulerError",
    "InfeasibleTuning",
    "BoundsError",
    "ReportError",
    "InternalError",
    "EngineMismatch",
    "GameWriteError",
    "ConformanceError",
    "ensure",
]


class SlotmathError(Exception):
    """Base of every error slotmath raises on purpose.

    Parameters
    ----------
    problem : str
        What is wrong.
    file : str, optional
        The file (or game) it concerns.
    field : str, optional
        Where in it: a field path such as ``reels.base[2][14]``.

    Attributes
    ----------
    file, field, problem : str
        As given ("" when not known); ``str(error)`` joins the known ones
        with ": ", the line the command line prints.
    """

    def __init__(self, problem: str = "", *, file: object = "", field: str = ""):
        self.file, self.field, self.problem = str(file), field, problem
        super().__init__(": ".join(part for part in (self.file, field, problem) if part))

    def __reduce__(self) -> tuple:
        # rebuilt from its state, whatever the subclass's arguments (errors cross process pools)
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls: type, args: tuple, state: dict) -> SlotmathError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InputError(SlotmathError):
    """Invalid input: the command line names it and exits with status 2."""


class GameFileError(InputError, ValueError):
    """An invalid game file: ``file``, ``field`` (a path like
    ``reels.base[2][14]``) and ``problem``."""

    def __init__(self, file: object, field: str, problem: str):
        super().__init__(problem, file=file, field=field)


class UsageError(InputError):
    """Bad command-line input (exit status 2)."""


class UnknownRules(InputError, LookupError):
    """A rules name that no source registers (or whose installed entry
    point does not load)."""


class EngineTooLarge(InputError, RuntimeError):
    """An exact computation would exceed its work limit (the message says
    by how much and the estimated time)."""


class SetupError(InputError, ValueError):
    """A simulation that cannot be set up as asked (a plan, a worker count,
    a sampler the rules lack)."""


class SchedulerError(SetupError):
    """The Dask scheduler cannot be reached or used."""


class InfeasibleTuning(InputError, ValueError):
    """Tuning targets or limits that no reel strips can meet."""


class BoundsError(InfeasibleTuning):
    """Limits that name an unknown symbol or reel, or contradict each other."""


class ReportError(SlotmathError):
    """A report step failed: ``game``, ``step`` and ``why``; ``status`` is
    the exit status (2 for bad input).  ``file`` is the game, ``field`` the step."""

    def __init__(self, game: str, step: str, why: str, status: int = 1):
        self.game, self.step, self.why, self.status = game, step, why, status
        SlotmathError.__init__(self, why, file=game, field=step)
        self.args = (f"report {game}: {step} failed: {why}",)

    def __str__(self) -> str:
        return str(self.args[0])


class InternalError(SlotmathError, AssertionError):
    """A consistency check of slotmath failed: a defect, never the input."""


class EngineMismatch(InternalError):
    """Two exact computations of one figure disagree (a defect, never input)."""


class GameWriteError(InternalError, RuntimeError):
    """The rewritten file did not read back as intended (a defect, not input)."""


class ConformanceError(SlotmathError, AssertionError):
    """A rules object breaks a promise of the rules contract."""


def ensure(
    condition: object,
    problem: str = "consistency check failed",
    error: Callable[..., Exception] = InternalError,
    *,
    file: object = "",
    field: str = "",
) -> None:
    """Raise ``error(problem, file=..., field=...)`` unless ``condition`` holds.

    A check that must hold in production (``assert`` is removed by
    ``python -O``).

    Parameters
    ----------
    condition : object
        Tested for truth.
    problem : str
        The message.
    error : callable
        Builds the error from ``(problem, file=, field=)``: a
        :class:`SlotmathError` class (default :class:`InternalError`).
    file, field : optional
        Where, as in :class:`SlotmathError`.
    """
    if not condition:
        raise error(problem, file=file, field=field)


def did_you_mean(key: object, choices) -> str:
    """``"did you mean 'x'? "`` for the choice nearest ``key`` (difflib), or
    '' when none is near."""
    near = difflib.get_close_matches(str(key), sorted(map(str, choices)), n=1)
    return f"did you mean {near[0]!r}? " if near else ""


def unknown_key(key: object, allowed) -> str:
    """The problem of an unknown key: ``unknown key (did you mean 'x'?
    allowed: a, b, ...)``, the allowed keys in the order given."""
    return f"unknown key ({did_you_mean(key, allowed)}allowed: {', '.join(map(str, allowed))})"
