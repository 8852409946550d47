"""The one JSON writer of every ``--json`` output and ``par.json``: strict
JSON, a figure that is not a number (NaN, an infinite odds) written as
``null``."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any


def finite_or_none(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float (numpy's too) replaced by
    None, in dicts, lists and tuples at any depth."""
    if isinstance(obj, dict):
        return {k: finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_none(v) for v in obj]
    if hasattr(obj, "item") and getattr(obj, "shape", None) == ():  # a numpy scalar
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _default(obj: Any) -> Any:
    if isinstance(obj, Fraction):
        value = float(obj)
        return value if math.isfinite(value) else None
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def json_text(data: Any, **kw: Any) -> str:
    """``data`` as strict JSON text (``allow_nan=False``): NaN and infinities
    as null, a Fraction as a float; ``kw`` as for :func:`json.dumps`."""
    return json.dumps(finite_or_none(data), default=_default, allow_nan=False, **kw)
