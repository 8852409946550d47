"""Run ``slotmath`` commands on many game files in one process (the bulk of
the bad-input corpus): ``python tests/bad_input_runner.py LIMIT_MB CMD... -- GAME...``.

Each GAME is run through each command (``validate``, ``par --json``) by
:func:`slotmath.cli.main` with stdout and stderr captured, under an address
space limit of LIMIT_MB and a 30 s alarm per run; one JSON line per run:
game, command, status, stdout, stderr, seconds, cpu_seconds, error (an exception that
escaped ``main``, with its traceback), peak_mb (the peak RSS so far [MB], to
find a case that needs much memory), and finally the peak RSS [MB].
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import signal
import sys
import time
import traceback


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang("no result within 30 s")


def peak_mb() -> float:
    """Peak RSS of this process [MB]: VmHWM, which is this program's own (the
    rusage maximum survives exec, so it may hold the parent's, e.g. pytest's)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(command: list, game: str) -> dict:
    from slotmath.cli import main

    out, err = io.StringIO(), io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    error = ""
    signal.alarm(30)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([command[0], game, *command[1:]])
    except BaseException:
        status, error = None, traceback.format_exc()
    finally:
        signal.alarm(0)
    return {
        "game": game,
        "command": " ".join(command),
        "status": status,
        "stdout": out.getvalue(),
        "stderr": err.getvalue(),
        "seconds": time.perf_counter() - start,
        "cpu_seconds": time.process_time() - cpu,
        "error": error,
        "peak_mb": peak_mb(),
    }


def main(argv: list) -> None:
    limit = int(argv[0]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _alarm)
    split = argv.index("--")
    commands = [c.split() for c in argv[1:split]]
    for game in argv[split + 1 :]:
        for command in commands:
            print(json.dumps(run(command, game)), flush=True)
    print(json.dumps({"peak_mb": peak_mb()}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
