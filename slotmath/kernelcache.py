"""Where numba keeps slotmath's compiled kernels: one folder per version of
the kernels' source.

numba checks a cached kernel against the time stamp of the file that
defines it, not of the files whose functions it calls or inlines: after a
change to :func:`slotmath.montecarlo.linesim.draw_stops` a kernel of another
module that inlines it would load its old machine code and play the old
rule, silently.  :func:`use_kernel_cache` therefore points numba
(``NUMBA_CACHE_DIR``, unless the environment sets it) at a folder named by a
hash of every module that compiles kernels and of every module of the
package those import, so that any change to one of them starts from an
empty cache; the other modules' changes keep it.  Run
at ``import slotmath``, before numba is imported (it reads the variable
once); it reads the source files only (about 1 MB, milliseconds).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

__all__ = ["kernel_sources", "kernel_cache_dir", "use_kernel_cache"]

#: the package's folder
ROOT = Path(__file__).resolve().parent
#: a module that compiles kernels imports numba
IMPORTS_NUMBA = re.compile(rb"^(?:import numba|from numba)\b", re.MULTILINE)
#: the package's modules a module imports (``from slotmath.x import ...``, ``import slotmath.x``)
IMPORTS_PACKAGE = re.compile(rb"^\s*(?:from|import) (slotmath(?:\.\w+)+)", re.MULTILINE)


def kernel_sources(root: Path = ROOT) -> list:
    """The modules below ``root`` that import numba and every module of the
    package they import, at any depth (a kernel may bake in a constant of a
    module that compiles nothing, such as :data:`slotmath.engine.limits.MAX_DRAW`),
    sorted by path."""
    texts = {p: p.read_bytes() for p in root.rglob("*.py")}
    found = {p for p, text in texts.items() if IMPORTS_NUMBA.search(text)}
    todo = list(found)
    while todo:
        for name in IMPORTS_PACKAGE.findall(texts[todo.pop()]):
            parts = name.decode().split(".")[1:]
            for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
                if path in texts and path not in found:
                    found.add(path)
                    todo.append(path)
    return sorted(found)


def kernel_cache_dir(root: Path = ROOT) -> Path:
    """The cache folder of the kernels' current source: ``__pycache__/kernels-HASH``
    in the package, or in the user's cache folder where the package cannot be written."""
    digest = hashlib.sha256()
    for path in kernel_sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    name = f"kernels-{digest.hexdigest()[:16]}"
    if os.access(root, os.W_OK):
        return root / "__pycache__" / name
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return home / "slotmath" / name


def use_kernel_cache() -> None:
    """Set ``NUMBA_CACHE_DIR`` to :func:`kernel_cache_dir` unless it is set."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = str(kernel_cache_dir())
