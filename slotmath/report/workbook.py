"""PAR sheets as Excel workbooks (openpyxl).

A worksheet per section (and one per bet mode); every table is an Excel table (filter buttons,
banded rows) with its title in the cell above and its note below; numbers
are stored as numbers with the number format of their column or row.
:func:`read_workbook` reads the tables back by their titles.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from slotmath.io.files import atomic_path
from slotmath.io.terminal import terminal_text
from slotmath.report.sheettable import FORMATS, excel_value, format_value

if TYPE_CHECKING:
    from slotmath.report.sheet import ParSheet


def sheet_title(title: str, taken: set) -> str:
    """``title`` cut to Excel's 31 characters and made unique among ``taken``
    (case-insensitive, as Excel compares them; added to it): two long bet-mode
    names sharing their first characters get ``~2``, ``~3``, ... instead of
    openpyxl's renaming past 31 characters, which Excel refuses to open."""
    out, k = title[:31], 1
    while out.lower() in taken:
        k += 1
        out = f"{title[: 31 - len(str(k)) - 1]}~{k}"
    taken.add(out.lower())
    return out


def write_workbook(sheet: ParSheet, path: Path) -> None:
    """Write the sheet as an Excel workbook: a worksheet per section, each
    table an Excel table with its title above and its note below, numbers
    stored as numbers with number formats."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.table import Table as XlTable
    from openpyxl.worksheet.table import TableStyleInfo

    wb = Workbook()
    wb.remove(wb.active)
    title_font = Font(bold=True, size=14, color="1F5F99")
    caption_font = Font(bold=True, size=11)
    note_font = Font(italic=True, size=9, color="5C6B7A")
    total_font = Font(bold=True)
    n_table = 0
    taken: set = set()
    for sec in sheet.workbook_sections():
        ws = wb.create_sheet(sheet_title(sec.sheet, taken))
        frozen = False
        put_cell(
            ws, 1, 1, f"{sec.title}: {sheet.game.title}, bet level {sheet.par.bet.level}"
        ).font = title_font
        widths: dict = {}
        row = 3
        if sec.text:
            put_cell(ws, row, 1, sec.text)
            row += 2
        for t in sec.tables:
            put_cell(ws, row, 1, t.title).font = caption_font
            row += 1
            frame = t.frame
            for j, col in enumerate(frame.columns, start=1):
                cell = put_cell(ws, row, j, str(col))
                cell.alignment = Alignment(wrap_text=True, vertical="top")
                widths[j] = max(widths.get(j, 8), min(len(str(col)), 28))
            first = row
            if not frozen:  # the first table's header stays in view
                ws.freeze_panes = ws.cell(row + 1, 1)
                frozen = True
            for i in range(len(frame)):
                row += 1
                for j, col in enumerate(frame.columns, start=1):
                    v = frame[col].iat[i]
                    key = t.format_key(col, i)
                    value = excel_value(v)
                    if isinstance(value, float) and value < 0 and not format_value(v, key).startswith("-"):
                        value = 0.0  # round-off below the shown digits: no "-0.000000%"
                    cell = put_cell(ws, row, j, value)
                    if isinstance(cell.value, (int, float)) and not isinstance(cell.value, bool):
                        cell.number_format = FORMATS["general" if key == "auto" else key][0]
                    if t.total_row and i == len(frame) - 1:
                        cell.font = total_font
                    widths[j] = max(widths.get(j, 8), min(len(format_value(v, key)) + 3, 60))
            if len(frame):
                n_table += 1
                ref = f"A{first}:{get_column_letter(len(frame.columns))}{row}"
                xt = XlTable(displayName=f"T{n_table}_{re.sub(r'[^A-Za-z0-9]', '', sec.key)}", ref=ref)
                xt.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
                ws.add_table(xt)
            else:
                row += 1
            if t.note:
                row += 1
                put_cell(ws, row, 1, t.note).font = note_font
            row += 3
        for j, w in widths.items():
            ws.column_dimensions[get_column_letter(j)].width = w
    with atomic_path(path, suffix=".xlsx") as tmp:
        wb.save(tmp)
        reproducible_zip(tmp)


#: First characters that make a spreadsheet read a cell's text as a formula
#: (OWASP, CSV injection): such text is stored as text, marked quote-prefixed.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def put_cell(ws, row: int, column: int, value):
    """Write ``value`` into cell (``row``, ``column``) of worksheet ``ws``;
    returns the cell.  Text is always a text cell (data type ``s``): text
    starting with ``=``, ``+``, ``-``, ``@``, a tab or a CR (which a
    spreadsheet would read as a formula) is kept as text and quote-prefixed,
    and control characters (which a workbook cannot hold) are shown as
    visible escapes (``\x1b``)."""
    cell = ws.cell(row, column)
    if isinstance(value, str):
        text = terminal_text(value, lines=True)
        cell.value = text
        cell.data_type = "s"  # never a formula
        if text.startswith(FORMULA_STARTS):
            cell.quotePrefix = True
    else:
        cell.value = value
    return cell


#: Date written into the workbook's properties and zip entries (none of a build).
FIXED_DATE = "2000-01-01T00:00:00Z"


def reproducible_zip(path) -> None:
    """Rewrite an .xlsx so that two builds of the same sheet are byte-identical:
    fixed dates in ``docProps/core.xml`` and on every zip entry."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        entries = [(info.filename, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            if name == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(created|modified)[^>]*>)[^<]*", rb"\g<1>" + FIXED_DATE.encode(), data
                )
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o600 << 16
            z.writestr(info, data)


def read_workbook(path: str | Path) -> dict:
    """Read a report workbook back: {sheet: {table title: DataFrame}}."""
    from openpyxl import load_workbook

    wb = load_workbook(path, data_only=True)
    out = {}
    for ws in wb.worksheets:
        tables = {}
        for tbl in ws.tables.values():
            cells = ws[tbl.ref]
            header = [c.value for c in cells[0]]
            top = cells[0][0].row
            title = ws.cell(top - 1, 1).value
            tables[title] = pd.DataFrame([[c.value for c in r] for r in cells[1:]], columns=header)
        out[ws.title] = tables
    return out
