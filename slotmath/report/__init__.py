"""The PAR report: sheet, tables, plots, workbook and the notebook runner.

The package is also callable: importing it makes ``slotmath.report`` this
package rather than the top-level function :func:`slotmath.api.report`, so
``slotmath.report(game, ...)`` calls
:func:`slotmath.report.notebook.build_report` either way.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    """``slotmath.report(...)``: :func:`slotmath.report.notebook.build_report`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from slotmath.report.notebook import build_report

        return build_report(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
