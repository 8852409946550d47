"""The ``slotmath`` command line.

Every command takes GAME as a path to a game folder or file, or the name of
a folder in ``data/games``.  Invalid input prints one line naming the file,
the field and the problem, and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import signal
import sys

from slotmath import __version__
from slotmath.errors import InputError, UsageError
from slotmath.io.arguments import game_and_level, positive_int, spin_count
from slotmath.io.files import ALLOW_OUTSIDE_ENV
from slotmath.io.gamefile import load_game
from slotmath.io.jsontext import json_text
from slotmath.io.terminal import terminal_text

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader went away (``| head``)
ALLOW_OUTSIDE = "--allow-outside"


def cmd_validate(args) -> int:
    from slotmath.features.reach import dead_pays

    game = load_game(args.game)
    cycle = game.cycle()
    print(
        f"{terminal_text(game.source)}: ok: {terminal_text(game.title)}, {game.reels}x{game.rows}, "
        + f"{game.ways_or_lines_text}, "
        + f"reel sets {', '.join(game.reel_sets)}, "
        f"bet levels {', '.join(map(str, game.levels))}, base cycle {cycle:,}"
        + "".join(
            f"; mode {terminal_text(m.name)} costs {float(m.cost):g} x total bet" for m in game.modes.values()
        )
    )
    for dead in dead_pays(game):  # a listed pay no spin can win: the game stays valid
        print(f"slotmath: warning: {terminal_text(game.source)}: {terminal_text(dead)}", file=sys.stderr)
    return 0


def cmd_par(args) -> int:
    from slotmath.rules.par import par

    game, level = game_and_level(args.game, args.bet)
    if args.mode is not None or args.all_modes:
        return _par_modes(game, level, args)
    result = par(game, level)
    if args.json:
        print(result.to_json())
    else:
        print(terminal_text(result.text(), lines=True))
    return 0


def _par_modes(game, level, args) -> int:
    """``par --mode NAME`` / ``--all-modes``: the figures of bet modes."""
    from slotmath.rules.modepar import all_modes_par, mode_par

    if args.mode is not None and args.all_modes:
        raise UsageError("give --mode NAME or --all-modes, not both")
    results = all_modes_par(game, level) if args.all_modes else {args.mode: mode_par(game, args.mode, level)}
    if args.json:
        out = {name: r.to_dict() for name, r in results.items()}
        print(json_text({"game": game.name, "modes": out} if args.all_modes else out[args.mode]))
    else:
        print(terminal_text("\n\n".join(r.text() for r in results.values()), lines=True))
    return 0


def cmd_simulate(args) -> int:
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    from functools import partial

    from slotmath.analysis.simulation import cross_check, cross_check_mode
    from slotmath.montecarlo.run import SetupError

    game, level = game_and_level(args.game, args.bet)
    # a bet mode's cross-check, or the game's as declared
    check = cross_check if args.mode is None else partial(cross_check_mode, name=args.mode)
    import warnings

    try:
        with warnings.catch_warnings(record=True) as notes:  # e.g. no exact figures to compare with
            warnings.simplefilter("always", UserWarning)
            result = check(
                game,
                level=level,
                spins=args.spins,
                seed=args.seed,
                chunk=args.chunk,
                workers=args.workers,
                scheduler=args.scheduler,
                progress=args.progress,
            )
    except SetupError as exc:
        raise UsageError(str(exc)) from None
    for note in notes:
        if issubclass(note.category, UserWarning):
            print(f"slotmath: note: {terminal_text(str(note.message))}", file=sys.stderr)
    print(json_text(result.to_dict()) if args.json else terminal_text(result.text(), lines=True))
    run = result if args.mode is None else result.result  # a mode's: the run of its round
    return 130 if getattr(run, "partial", False) else 0


CORE_COMMANDS = ("validate", "par", "simulate")


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The argument parser.  The upper layers' commands (:data:`EXTRA_COMMANDS`)
    are read from their modules only when ``argv`` runs one of them; otherwise
    they are listed by name (importing their modules costs seconds)."""
    parser = argparse.ArgumentParser(
        prog="slotmath",
        description="Slot-game mathematics: exact PAR figures, Monte Carlo cross-checks, reports and "
        "reel tuning.  GAME is a game folder or file, or the name of a folder in data/games.",
    )
    parser.add_argument("--version", action="version", version=f"slotmath {__version__}")
    parser.add_argument(
        ALLOW_OUTSIDE,
        action="store_true",
        help="let game files name files outside their folder (any position)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "validate",
        help="check a game file",
        description="Check a game file: one line 'ok' with its shape, or one line naming the file, the "
        "field and the problem (exit 2); a warning line for each pay that can never hit.",
    )
    p.add_argument("game", help="game folder, file or name in data/games")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("par", help="exact PAR figures", description="The exact PAR figures of a game.")
    p.add_argument("game", help="game folder, file or name in data/games")
    p.add_argument("--bet", type=int, default=None, help="bet level (default: lowest)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--mode", default=None, metavar="NAME", help="figures of bet mode NAME (base: the game)")
    p.add_argument("--all-modes", action="store_true", help="figures of every bet mode")
    p.set_defaults(func=cmd_par)

    p = sub.add_parser(
        "simulate",
        help="Monte Carlo cross-check",
        description="Simulate rounds and compare each figure, pay and feature rate with the exact one "
        "(z-scores).",
    )
    p.add_argument("game", help="game folder, file or name in data/games")
    p.add_argument("--spins", type=spin_count, required=True, help="rounds to simulate (e.g. 1e6)")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same result")
    p.add_argument("--bet", type=int, default=None, help="bet level (default: lowest)")
    p.add_argument("--mode", default=None, metavar="NAME", help="simulate bet mode NAME")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument(
        "--scheduler", default=None, metavar="tcp://HOST:8786", help="run the chunks on this Dask cluster"
    )
    p.add_argument("--workers", type=positive_int, default=None, help="local processes (default: all cores)")
    p.add_argument(
        "--chunk",
        type=spin_count,
        default=1_000_000,
        help="rounds per chunk; with --seed it fixes the result (default 1e6)",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    p.set_defaults(func=cmd_simulate)

    argv = sys.argv[1:] if argv is None else argv
    command = next((a for a in argv if not a.startswith("-")), None)
    wanted = {module for name, (module, _) in EXTRA_COMMANDS.items() if name == command}
    for module in sorted(wanted):  # the command's own arguments
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).register_cli(sub)
    if command not in CORE_COMMANDS:  # listed in --help, modules not imported
        for name, (_, help_text) in EXTRA_COMMANDS.items():
            if name not in sub.choices:
                sub.add_parser(name, help=help_text)
    return parser


#: commands of the upper layers: name -> (module with ``register_cli``, help);
#: a module (pandas, numba, ...) is imported only to run one of its commands
EXTRA_COMMANDS = {
    "report": ("slotmath.report.notebook", "PAR sheet reports (HTML, Excel, JSON, text)"),
    "tune": ("slotmath.cli.tune", "tune reel strips to a target RTP and bands"),
    "sensitivities": ("slotmath.cli.tune", "figure changes for +-1 of each symbol per reel"),
    "warmup": ("slotmath.cli.warmup", "compile the numba kernels into the cache (make install runs it)"),
}


#: packages whose Python code runs inside native code (numba's compiler and the
#: kernels it compiles, llvmlite's callbacks from LLVM): no exception may be raised there
NATIVE_PACKAGES = ("numba", "llvmlite")


def _inside_native(frame) -> bool:
    """Whether ``frame`` or any frame that called it is numba's or llvmlite's code."""
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).partition(".")[0] in NATIVE_PACKAGES:
            return True
        frame = frame.f_back
    return False


class _Interrupt:
    """Ctrl-C (SIGINT) during a command.

    The first one raises KeyboardInterrupt where it lands, so the command can
    clean up (``report`` removes its half-built folder) and :func:`main` says
    one line and exits 130 -- except where raising would break native code:
    with a numba or llvmlite frame on the stack the command ends at once (its
    files are written to temporary names and renamed, so it leaves no
    half-written file; the next run removes a killed run's temporaries).
    Why: Python code that native code calls back cannot pass an exception
    on.  A compiled kernel that returns arrays calls
    ``numba.core.serialize._numba_unpickle`` (for the array type) as it hands
    each one over; raised there, the kernel returns a tuple holding NULL and
    the process dies with SIGSEGV and no output when Python unpacks it
    (``par piggy_bankin_superlock``, an empty kernel cache: 4 of about 260
    runs interrupted at 1-7 s; gdb: ``Py_INCREF(NULL)`` in ``tupleiter_next``
    under ``wins, entries, mults = pay_tensor_pruned(...)``; the traced run
    had the handler inside ``_numba_unpickle``, the compiler lock free).
    llvmlite's object-cache callbacks only "ignore" it and LLVM goes on
    half-done; inside numba's compiler it leaves LLVM objects half-built that
    crash the process at exit.

    A later Ctrl-C never raises again (the first one's cleanup and its line
    are under way): it ends the command at once.  The line is said once."""

    seen = False
    said = False

    @classmethod
    def install(cls):
        """Take over Ctrl-C for one command; returns the function that gives
        the previous handler (and unraisable hook) back."""
        cls.seen = cls.said = False  # main() may run more than once in a process
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return lambda: None  # an ignored (inherited) or custom SIGINT is respected
        signal.signal(signal.SIGINT, cls._on_sigint)
        default_hook = sys.unraisablehook

        def hook(unraisable):
            # a Ctrl-C landing in a finalizer is only "ignored" there (the
            # command still ends as interrupted: ``seen``); after it, finalizers
            # of objects it left half-built may fail at exit: the command
            # already said "interrupted"
            if not cls.seen and not isinstance(unraisable.exc_value, KeyboardInterrupt):
                default_hook(unraisable)

        sys.unraisablehook = hook

        def restore():
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.unraisablehook = default_hook

        return restore

    @classmethod
    def say(cls) -> None:
        """The one line of an interrupted command (once)."""
        if not cls.said:
            cls.said = True
            print("slotmath: interrupted", file=sys.stderr, flush=True)

    @classmethod
    def _on_sigint(cls, signum, frame):
        first, cls.seen = not cls.seen, True
        compiling = sys.modules.get("numba.core.compiler_lock")
        in_compiler = compiling is not None and compiling.global_compiler_lock.is_locked()
        if first and not in_compiler and not _inside_native(frame):
            raise KeyboardInterrupt
        cls.say()
        os._exit(EXIT_INTERRUPTED)


def main(argv=None) -> int:
    """Run one command; bad input, Ctrl-C and a closed output pipe end with
    one line (or none) and an exit status, never a traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    restore = _Interrupt.install()
    try:
        if ALLOW_OUTSIDE in argv:  # accepted anywhere on the line
            argv = [a for a in argv if a != ALLOW_OUTSIDE]
            os.environ[ALLOW_OUTSIDE_ENV] = "1"  # report kernels inherit it
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        status = args.func(args)
        sys.stdout.flush()
        if _Interrupt.seen:  # swallowed where it landed: the command still was interrupted
            raise KeyboardInterrupt
        return status
    except InputError as exc:  # a game file, an argument, an engine limit, ...
        print(f"slotmath: error: {terminal_text(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        _Interrupt.say()
        return EXIT_INTERRUPTED
    except MemoryError:
        print(
            "slotmath: error: out of memory (the game's figures need more memory than this process may use)",
            file=sys.stderr,
        )
        return 1
    except BrokenPipeError:
        # nothing more can be written to stdout: point it at /dev/null so the
        # interpreter's final flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception:
        if _Interrupt.seen:  # the Ctrl-C broke the computation it landed in
            _Interrupt.say()
            return EXIT_INTERRUPTED
        raise
    finally:
        # a caller in this process gets its Ctrl-C back; an interrupted
        # command's process is ending: a further Ctrl-C ends it quietly
        if not _Interrupt.seen:
            restore()


if __name__ == "__main__":
    sys.exit(main())
