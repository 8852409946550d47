"""The compiled kernels' cache folder follows the kernels' source (slotmath.kernelcache)."""

from __future__ import annotations

import os
import subprocess
import sys

from slotmath.kernelcache import kernel_cache_dir, kernel_sources


def _tree(tmp_path):
    root = tmp_path / "pkg"
    (root / "engine").mkdir(parents=True)
    (root / "engine" / "kernel.py").write_text("import numba as nb\n\n\ndef f():\n    return 1\n")
    (root / "engine" / "caller.py").write_text("from numba import njit\n\nfrom slotmath.limits import TOP\n")
    (root / "limits.py").write_text("TOP = 5\n")
    (root / "rules.py").write_text('"""import numba in a docstring is not an import."""\n')
    return root


def test_kernel_sources_are_the_numba_modules_and_what_they_import(tmp_path):
    root = _tree(tmp_path)
    assert [p.relative_to(root).as_posix() for p in kernel_sources(root)] == [
        "engine/caller.py",
        "engine/kernel.py",
        "limits.py",
    ]


def test_a_kernel_change_moves_the_cache_and_another_change_does_not(tmp_path):
    root = _tree(tmp_path)
    first = kernel_cache_dir(root)
    assert first.parent == root / "__pycache__" and first.name.startswith("kernels-")
    (root / "rules.py").write_text("x = 2\n")
    assert kernel_cache_dir(root) == first
    (root / "limits.py").write_text("TOP = 6\n")  # a constant a kernel may bake in
    second = kernel_cache_dir(root)
    assert second != first
    (root / "engine" / "kernel.py").write_text("import numba as nb\n\n\ndef f():\n    return 2\n")
    assert kernel_cache_dir(root) not in (first, second)


def test_a_read_only_package_caches_in_the_users_folder(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert kernel_cache_dir(root).parent == tmp_path / "cache" / "slotmath"


def _cache_dir_after_import(env: dict) -> str:
    code = "import os, slotmath; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_sets_the_cache_folder_unless_the_environment_does(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    assert _cache_dir_after_import(env) == str(kernel_cache_dir())
    assert _cache_dir_after_import({**env, "NUMBA_CACHE_DIR": str(tmp_path)}) == str(tmp_path)
