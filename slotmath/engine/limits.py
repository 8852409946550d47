"""How much work the exact engine takes on before it refuses (no heavy imports,
so the command line can name the error without loading the engine)."""

from __future__ import annotations

MAX_LINE_STEPS = 2 * 10**10  # about 3 minutes on one core
LINE_STEPS_PER_SECOND = 1e8  # measured on video20 and its stress variants (one core)


class EngineTooLarge(RuntimeError):
    """An exact computation would exceed its work limit (the message says
    by how much and the estimated time)."""
