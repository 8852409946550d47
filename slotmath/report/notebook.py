"""``slotmath report``: PAR sheet reports written atomically per game.

For each game, ``notebooks/par_sheet.ipynb`` is executed with papermill in
a temporary folder beside the target; the notebook computes the sheet
(:func:`slotmath.report.sheet.par_sheet`) and saves ``par.json``, ``par.txt`` and
``par.xlsx``; the executed notebook is exported to a standalone
``par.html`` (code hidden, no script or external resource); the files are
checked and the folder is swapped in for ``reports/<game>/``.  A failure
leaves the previous report in place and names the game, the step and why.
See ``docs/reports.md``.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

from slotmath.errors import ReportError as ReportError
from slotmath.io.files import install_dir, make_temp_dir, write_text_atomic
from slotmath.io.gamefile import GAMES_DIR, GameFileError, check_level, load_game
from slotmath.io.terminal import terminal_text
from slotmath.report.sheet import DEFAULT_SEED, DEFAULT_SPINS, PROGRESS_ENV, ROOT

NOTEBOOK = ROOT / "notebooks" / "par_sheet.ipynb"
TEMPLATES = Path(__file__).resolve().parent / "templates"
REPORTS_DIR = ROOT / "reports"
REPORT_FILES = ("par.html", "par.xlsx", "par.json", "par.txt")


EXTERNAL = re.compile(
    r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|@import|url\(\s*["']?\s*(?:https?:)?//""", re.IGNORECASE
)


def export_html(notebook_path: Path, html_path: Path, title: str) -> list:
    """Export an executed notebook to a standalone page (code hidden, no
    scripts or external resources); returns the notebook's stderr texts,
    which are left out of the page."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(notebook_path, as_version=4)
    stderr = []
    for cell in nb.cells:
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell["id"] = "injected-parameters"  # papermill's id is random: keep rebuilds equal
        if cell.cell_type != "code":
            continue
        kept = []
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream" and o.get("name") == "stderr":
                stderr.append(o.get("text", ""))
            else:
                kept.append(o)
        cell["outputs"] = kept
    nb.metadata["title"] = title
    exporter = HTMLExporter(
        template_name="par_sheet",
        extra_template_basedirs=[str(TEMPLATES)],
        exclude_input=True,
        exclude_markdown=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
        exclude_anchor_links=True,
    )
    body, _ = exporter.from_notebook_node(nb)
    found = external_references(body)
    if found:
        raise ValueError(f"the page refers to external resources: {', '.join(found[:3])}")
    if "<script" in body.lower():
        raise ValueError("the page contains a script")
    write_text_atomic(html_path, body)
    return stderr


def external_references(html: str) -> list:
    """Snippets of ``html`` that would load something over the network."""
    return [html[max(m.start() - 20, 0) : m.end() + 40] for m in EXTERNAL.finditer(html)]


def run_report(
    spec: str,
    out_root: Path,
    level: int | None = None,
    spins: int = DEFAULT_SPINS,
    seed: int = DEFAULT_SEED,
    notebook: Path = NOTEBOOK,
    progress: bool = True,
) -> Path:
    """Build the report of game ``spec`` into ``out_root/<game>/``.

    Everything is built in a temporary folder beside the target and swapped
    in only when every step succeeded; on failure the previous report stays
    and :class:`ReportError` names the game, the step and why.
    """
    import papermill as pm

    step = "load game"
    try:
        game = load_game(spec)
        check_level(game, level)
    except GameFileError as exc:
        raise ReportError(str(spec), step, str(exc), status=2) from None
    out_root = Path(out_root)
    target = out_root / game.name
    try:
        work = make_temp_dir(out_root, game.name)  # removes killed runs' leftovers
    except OSError as exc:
        raise ReportError(game.name, "prepare output folder", str(exc)) from None
    try:
        step = "execute notebook"
        executed = work / "par_sheet.ipynb"
        params = {"game": str(spec), "bet": level, "spins": int(spins), "seed": int(seed), "out": str(work)}
        try:
            # the kernel shows the sheet's steps on the stderr it shares with this process;
            # its sys.path leaves out the working directory (PYTHONSAFEPATH, ignore_cwd), so
            # a slotmath/ folder there is never imported in place of the package
            with (
                environment(PROGRESS_ENV, "1" if progress else "0"),
                environment("PYTHONSAFEPATH", "1"),
                quiet_logs(*QUIET_LOGGERS),
            ):
                pm.execute_notebook(
                    str(notebook),
                    str(executed),
                    parameters=params,
                    kernel_name="python3",
                    progress_bar=False,
                    cwd=os.getcwd(),
                    extra_arguments=[
                        "--IPKernelApp.log_level=CRITICAL",
                        "--IPKernelApp.ignore_cwd=True",
                        "--IPKernelApp.capture_fd_output=False",
                        # the kernel's own shutdown race ("Task was destroyed but it is
                        # pending!") would reach the shared stderr: its asyncio log is off
                        f"--IPKernelApp.exec_lines={[*KERNEL_QUIET, own_package_line()]!r}",
                    ],
                )
        except pm.PapermillExecutionError as exc:  # an input error in the kernel is bad input: 2
            raise ReportError(
                game.name,
                step,
                f"{exc.ename}: {exc.evalue} (notebook cell {exc.cell_index})",
                status=2 if exc.ename in input_error_names() else 1,
            ) from None
        step = "export HTML"
        stderr = export_html(executed, work / "par.html", f"PAR sheet: {game.title}")
        for text in stderr:
            print(
                f"slotmath: note from the {game.name} notebook: {terminal_text(text.strip(), lines=True)}",
                file=sys.stderr,
            )
        executed.unlink()
        step = "check outputs"
        missing = [f for f in REPORT_FILES if not (work / f).is_file() or not (work / f).stat().st_size]
        if missing:
            raise ValueError(f"the notebook did not write {', '.join(missing)}")
        step = "install report"
        install(work, target)
    except Exception as exc:  # a step failed: keep the previous report, say which and why
        shutil.rmtree(work, ignore_errors=True)
        if isinstance(exc, ReportError):
            raise
        raise ReportError(game.name, step, f"{type(exc).__name__}: {exc}") from None
    except BaseException:  # interrupted: leave nothing half-built behind
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def input_error_names() -> set:
    """Class names of every :class:`~slotmath.errors.InputError` (a kernel
    reports the exception of a failed cell by its name only)."""
    from slotmath.errors import InputError

    out, todo = set(), [InputError]
    while todo:
        cls = todo.pop()
        out.add(cls.__name__)
        todo += cls.__subclasses__()
    return out


def build_report(
    game,
    out: str | Path | None = None,
    level: int | None = None,
    spins: int | None = None,
    seed: int | None = None,
    **options,
) -> Path:
    """:func:`run_report` of a game or its spec, with the defaults filled in
    (:func:`slotmath.report`, also ``slotmath.report(...)`` once the
    subpackage is imported: see :mod:`slotmath.report`).

    Parameters
    ----------
    game : str, path or Game
        A Game is reported from the file it was read from.
    out : str or path, optional
        Folder the report folder ``<game>/`` goes into (default: ``reports/``).
    level : int, optional
        Bet level (default: the lowest).
    spins : int, optional
        Simulated rounds of the cross-check [rounds] (default 5e7).
    seed : int, optional
        Seed of the cross-check.
    **options
        Passed to :func:`run_report` (``progress``).

    Returns
    -------
    Path
        The report folder.
    """
    from slotmath.model import Game

    spec = game.source if isinstance(game, Game) else str(game)
    return run_report(
        spec,
        Path(out) if out is not None else REPORTS_DIR,
        level,
        DEFAULT_SPINS if spins is None else int(spins),
        DEFAULT_SEED if seed is None else int(seed),
        **options,
    )


@contextmanager
def environment(name: str, value: str):
    """Set environment variable ``name`` (inherited by a kernel started
    inside the block), then restore it."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


#: Run in the report kernel first: its asyncio logger is silenced.
KERNEL_QUIET = ["import logging as _logging; _logging.getLogger('asyncio').disabled = True"]


def own_package_line() -> str:
    """Kernel start-up line putting the folder that holds this process's
    ``slotmath`` package first on the kernel's ``sys.path`` (when it is not
    there already), so the sheet is computed by the code that runs the
    command.  ``ignore_cwd`` drops the working directory from the kernel's
    path, and with it a ``PYTHONPATH`` entry naming the same folder: run
    from a checkout with ``PYTHONPATH=$PWD``, the kernel imported the
    installed package (another checkout's code and commit) instead.  The
    path is the one the package was imported from, not resolved, so a
    ``slotmath/`` folder in the working directory other than the package
    is still never imported."""
    import slotmath

    folder = str(Path(slotmath.__file__).parent.parent)
    return f"import sys as _sys; {folder!r} in _sys.path or _sys.path.insert(0, {folder!r})"


#: Loggers silenced while the notebook runs: on Ctrl-C the kernel (in the same
#: process group) dies with this process, and the notebook runner logs "Kernel
#: died" and an unretrieved task; the outcome is reported in one line instead.
QUIET_LOGGERS = ("papermill", "nbclient", "asyncio")


@contextmanager
def quiet_logs(*names: str):
    """Disable the loggers ``names`` inside the block.  They stay disabled
    when the block is left by an exception (a task of the dead kernel is
    logged only when collected, after the one-line message)."""
    loggers = [logging.getLogger(n) for n in names]
    saved = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    yield
    for lg, was in zip(loggers, saved, strict=True):
        lg.disabled = was


def install(work: Path, target: Path) -> None:
    """Swap the finished folder ``work`` in for ``target`` (see
    :func:`slotmath.io.files.install_dir`)."""
    install_dir(work, target)


def all_games(games_dir: Path = GAMES_DIR) -> list:
    """Names of the games in ``data/games`` (folders holding game.yaml)."""
    return sorted(p.parent.name for p in Path(games_dir).glob("*/game.yaml"))


def cmd_report(args) -> int:
    from slotmath.io.arguments import UsageError

    games = list(args.game)
    if args.all:
        games += [g for g in all_games() if g not in games]
    if not games:
        raise UsageError("report: name at least one GAME or give --all")
    out_root = Path(args.out) if args.out else REPORTS_DIR
    status = 0
    for i, spec in enumerate(games, start=1):
        if not args.quiet:
            print(f"[{i}/{len(games)}] {spec}", file=sys.stderr, flush=True)
        try:
            target = run_report(spec, out_root, args.bet, args.spins, args.seed, progress=not args.quiet)
        except ReportError as exc:
            print(f"slotmath: error: {terminal_text(exc)}", file=sys.stderr, flush=True)
            status = max(status, exc.status)
            continue
        print(f"{spec}: wrote {', '.join(REPORT_FILES)} in {target}", flush=True)
    return status


def register_cli(subparsers) -> None:
    """Add ``slotmath report`` to the command line."""
    p = subparsers.add_parser(
        "report",
        help="PAR sheet reports (HTML, Excel, JSON, text)",
        description="Run the PAR sheet notebook for each GAME and write "
        "reports/<game>/par.{html,xlsx,json,txt}.",
    )
    p.add_argument("game", nargs="*", help="game folder, file or name in data/games")
    p.add_argument("--all", action="store_true", help="every game in data/games")
    p.add_argument("--out", default=None, help="reports folder (default: reports/)")
    p.add_argument("--bet", type=int, default=None, help="bet level (default: lowest)")
    p.add_argument(
        "--spins",
        type=_spins_or_zero,
        default=DEFAULT_SPINS,
        help=f"Monte Carlo spins of the cross-check (default {DEFAULT_SPINS:,}; 0: none)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"seed of the Monte Carlo cross-check (default {DEFAULT_SEED})",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_report)


def _spins_or_zero(text: str) -> int:
    from slotmath.io.arguments import spin_count

    return 0 if text.strip() in ("0", "0.0") else spin_count(text)
