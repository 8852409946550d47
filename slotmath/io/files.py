"""Safe file handling: atomic writes that recover, size limits, game folders.

Every file is written to a temporary file in the target's folder and moved
over the target with :func:`os.replace` only once it is complete, so a
reader sees either the old file or the new one.  Temporary names carry the
writer's process id (``.<name>.tmp-<pid>-<random>``), so the next run can
tell leftovers of a killed run (their process is gone) from files a running
process is still writing, and removes them.  A finished folder is swapped
in for the previous one with one atomic exchange where the system has it
(Linux ``renameat2``), so the target always holds the old or the new
result.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: Largest game file, reel CSV or option file read [bytes].
MAX_FILE_BYTES = 20 * 2**20
#: Environment variable that lets a game name files outside its folder
#: (set by ``slotmath --allow-outside``; inherited by report kernels).
ALLOW_OUTSIDE_ENV = "SLOTMATH_ALLOW_OUTSIDE"
TEMP = ".tmp-"  # temporary files: .<name>.tmp-<pid>-<random>
PARTIAL = ".partial-"  # report folders being built: .<name>.partial-<pid>-<random>
OLD = ".old-"  # a previous result moved aside: .<name>.old-<pid>


def default_mode(directory: bool = False) -> int:
    """Permission bits a new file (or folder) gets under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return (0o777 if directory else 0o666) & ~mask


def temp_prefix(name: str, kind: str = TEMP) -> str:
    """Prefix of this process's temporary files for target ``name``."""
    return f".{name}{kind}{os.getpid()}-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def leftovers(folder: str | Path, name: str, kind: str = TEMP) -> list:
    """Temporary files or folders for target ``name`` in ``folder`` whose
    writing process is gone (left by a killed run)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    pattern = re.compile(re.escape(f".{name}{kind}") + r"(\d+)(?:-|$)")
    out = []
    for p in folder.iterdir():
        m = pattern.match(p.name)
        if m and not _alive(int(m[1])):
            out.append(p)
    return sorted(out)


def remove_leftovers(folder: str | Path, name: str) -> None:
    """Remove what killed runs left for target ``name`` in ``folder``; a
    previous result moved aside (``.<name>.old-<pid>``) is put back when the
    target is missing."""
    folder = Path(folder)
    target = folder / name
    for old in leftovers(folder, name, OLD):
        if not target.exists() and not target.is_symlink():
            os.replace(old, target)
        else:
            _remove(old)
    for kind in (TEMP, PARTIAL):
        for tmp in leftovers(folder, name, kind):
            _remove(tmp)


@contextmanager
def atomic_path(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block succeeds the
    temporary file replaces ``path`` (with the umask's permissions), when it
    fails it is removed."""
    path = Path(path)
    remove_leftovers(path.parent, path.name)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path.name), suffix=suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def make_temp_dir(folder: str | Path, name: str, kind: str = PARTIAL) -> Path:
    """A new folder beside target ``folder/name`` (after removing killed
    runs' leftovers), with the umask's permissions."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    remove_leftovers(folder, name)
    work = Path(tempfile.mkdtemp(dir=folder, prefix=temp_prefix(name, kind)))
    os.chmod(work, default_mode(directory=True))
    return work


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap paths ``a`` and ``b`` (Linux renameat2
    RENAME_EXCHANGE); False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return rc == 0


def install_dir(work: Path, target: Path) -> None:
    """Swap the finished folder ``work`` in for ``target``: one atomic
    exchange (the old result then sits in ``work`` and is removed), else
    two renames whose interruption the next :func:`remove_leftovers` repairs."""
    work, target = Path(work), Path(target)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        # an exchange would leave the link or file behind under the temporary name
        kind = "a symbolic link" if target.is_symlink() else "a file"
        raise FileExistsError(f"{target} is {kind}, not a folder: remove it or write elsewhere")
    if not target.exists():
        os.replace(work, target)
        return
    if _exchange(work, target):
        _remove(work)
        return
    old = target.with_name(f".{target.name}{OLD}{os.getpid()}")
    _remove(old)
    os.replace(target, old)
    try:
        os.replace(work, target)
    except BaseException:
        os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- reading
def allow_outside() -> bool:
    """True when game files may name files outside their folder."""
    return os.environ.get(ALLOW_OUTSIDE_ENV, "") not in ("", "0")


def inside(folder: str | Path, path: str | Path) -> bool:
    """True when ``path`` (symlinks followed) lies inside ``folder`` or
    outside files are allowed."""
    if allow_outside():
        return True
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a bad name
        return False


def size_problem(path: str | Path, limit: int = MAX_FILE_BYTES) -> str | None:
    """Why ``path`` cannot be read (not a regular file, larger than
    ``limit``), or None."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot read file: {exc.strerror}"
    import stat

    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_size > limit:
        return f"the file is {st.st_size / 2**20:.1f} MB, larger than the {limit / 2**20:.0f} MB limit"
    return None


def file_digest(path: str | Path, h: Any) -> None:
    """Feed the bytes of ``path`` to hash ``h`` (a :mod:`hashlib` object) in blocks."""
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            h.update(block)
