"""The PAR report: sheet, tables, plots, workbook and the notebook runner."""
