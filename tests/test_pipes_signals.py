"""The command line in pipes and under Ctrl-C: ``slotmath ... | head`` ends
quietly (no traceback), Ctrl-C prints one line and exits with status 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, slotmath_command


def _run_python(code: str, preexec_fn=None) -> subprocess.CompletedProcess:
    """``python -c code`` from the checkout, its output captured."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=preexec_fn,
        check=False,
    )


def test_closed_pipe_is_quiet():
    # stdout is a pipe whose reader is already gone (as after `| head` has
    # read its lines): the first write fails, and nothing is said about it
    code = (
        "import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); "
        "from slotmath.cli import main; sys.exit(main(['par', 'video20']))"
    )
    p = _run_python(code)
    assert p.stderr == b"", p.stderr.decode()
    assert p.returncode == 141  # 128 + SIGPIPE, as a shell tool killed by it


def test_closed_pipe_through_head():
    out = subprocess.run(
        " ".join(slotmath_command()) + " par video20 --json | head -c 10; exit ${PIPESTATUS[0]}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert out.stdout == b'{"game": "' and out.stderr == b""
    assert out.returncode in (0, 141)


def _default_sigint():
    # a test run started in the background (`cmd &` from a shell without job control) hands its
    # children SIGINT ignored, and Python then installs no KeyboardInterrupt; the command a user
    # starts in a terminal has the default disposition, which this restores before the exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("delay", [1.5, 2.5, 3.5])
def test_ctrl_c_prints_one_line_and_exits_130(delay, tmp_path):
    # Piggy's figures take seconds: interrupt while they are computed, with an
    # empty compiled-kernel cache, so the Ctrl-C can also land while a kernel
    # is compiled and cached (where it is only "ignored" by the C callback)
    p = subprocess.Popen(
        slotmath_command() + ["par", "piggy_bankin_superlock"],
        cwd=ROOT,
        env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_default_sigint,
    )
    time.sleep(delay)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert err.decode().splitlines() == ["slotmath: interrupted"]
    assert b"Traceback" not in out + err


def test_ctrl_c_during_a_report(tmp_path):
    # interrupted while the notebook runs: one line, 130, no half-built folder
    out = tmp_path / "reports"
    p = subprocess.Popen(
        slotmath_command()
        + [
            "report",
            str(ROOT / "tests" / "data" / "report_toy"),
            "--out",
            str(out),
            "--spins",
            "0",
            "--quiet",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_default_sigint,
    )
    deadline = time.monotonic() + 120
    while not (out.is_dir() and any(out.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.2)  # the build folder exists: the notebook is on
    time.sleep(2)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert err.decode().splitlines() == ["slotmath: interrupted"]
    assert list(out.iterdir()) == []


def _run_interrupted(setup: str, body: str) -> subprocess.CompletedProcess:
    """``slotmath par video20`` with its command replaced by ``body`` (after the
    module-level ``setup``), in a process with SIGINT at its default, as in a
    terminal."""
    code = (
        "import os, signal, sys\n"
        "import slotmath.cli as cli\n"
        + setup.strip()
        + "\ndef command(args):\n"
        + "".join(f"    {line}\n" for line in body.strip().splitlines())
        + "    return 0\n"
        "cli.cmd_par = command\n"
        "sys.exit(cli.main(['par', 'video20']))\n"
    )
    return _run_python(code, preexec_fn=_default_sigint)


def test_ctrl_c_in_a_callback_from_a_compiled_kernel_ends_at_once():
    # a kernel that returns arrays calls numba.core.serialize._numba_unpickle (Python)
    # from native code as it hands each one over; a KeyboardInterrupt raised there
    # returns NULL to the kernel, which goes on with it (in `par piggy_bankin_superlock`
    # it returned a tuple holding NULL: SIGSEGV and no output).  Here the Ctrl-C lands
    # in that callback (numba's own code, with a Ctrl-C at its start): the command ends
    # at once, with its one line, and nothing is raised inside the callback
    p = _run_interrupted(
        """
import types
import numba
import numpy as np
import numba.core.serialize as serialize

unpickle = serialize._numba_unpickle


def interrupted_unpickle(address, bytedata, hashed):
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        os.write(2, b"raised inside the callback\\n")
        raise
    return unpickle(address, bytedata, hashed)


# the callback's code with numba's module as its globals: a frame of numba.core.serialize
serialize._numba_unpickle = types.FunctionType(
    interrupted_unpickle.__code__, {**vars(serialize), "signal": signal, "os": os, "unpickle": unpickle}
)


@numba.njit
def zeros(n):
    return np.zeros(n)
""",
        "print(zeros(3))",
    )
    assert (p.returncode, p.stderr.decode().splitlines(), p.stdout) == (130, ["slotmath: interrupted"], b"")


def test_second_ctrl_c_ends_at_once_with_one_line():
    # the first Ctrl-C raises where it lands (the command cleans up); a second one
    # during that cleanup ends the command at once and is not raised again
    p = _run_interrupted(
        "",
        """
try:
    signal.raise_signal(signal.SIGINT)
    sum(range(10**6))
except KeyboardInterrupt:
    try:
        signal.raise_signal(signal.SIGINT)
        sum(range(10**6))
    except KeyboardInterrupt:
        sys.exit('raised twice')
    sys.exit('not ended')
sys.exit('not raised')
""",
    )
    assert (p.returncode, p.stderr.decode().splitlines()) == (130, ["slotmath: interrupted"])
