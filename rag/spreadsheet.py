"""CSV for spreadsheets, with formula injection neutralised.

Why: a question, a document name or an answer is user text, and a spreadsheet runs a cell that starts
with `=`, `+`, `-` or `@` (or a tab or carriage return before one) as a formula: `=HYPERLINK(...)` in a
question becomes a live link or a data leak in whoever opens the export. As OWASP advises for CSV
exports, such a text cell is written with a leading `'`, which spreadsheets show as the text itself.
Numbers stay numbers: a negative score is not text.
"""
from __future__ import annotations

import csv
import io
from typing import Any, Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def safe_cell(value: Any) -> Any:
    """The value as a spreadsheet should get it: text that could start a formula is quoted with `'`."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(rows: Iterable[Iterable[Any]]) -> str:
    """Rows as CSV text, every cell through `safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()
