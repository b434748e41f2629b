"""Where a case's links go (pure rules of rag_debugger/ui/eval_runs_view.py, as tables)."""
from __future__ import annotations

import pandas as pd
import pytest

from rag.eval.scoring import CaseResult
from rag_debugger.ui.eval_runs_view import compare_url, run_url, with_compare_links, with_run_links


def case(run_id="main-1", lost_at=None, step=None, **kw) -> CaseResult:
    return CaseResult(id=kw.pop("id", "c"), expected_route="answer", route="answer", run_id=run_id, lost_at=lost_at,
                      retrieval_step=step, **kw)


@pytest.mark.parametrize(("result", "lang", "url"), [
    (case(), None, "debugger?run=main-1"),  # the run's last step
    (case(lost_at="kept", step=2), None, "debugger?run=main-1"),  # the gold was kept: nothing to see there
    (case(lost_at=None, step=2), None, "debugger?run=main-1"),  # no gold named
    (case(lost_at="top_k", step=2), None, "debugger?run=main-1&step=2"),
    (case(lost_at="not_in_kb", step=5), "zh", "debugger?run=main-1&step=5&lang=zh"),
    (case(lost_at="fusion", step=None), None, "debugger?run=main-1"),  # a fan-out: no single retrieval step
    (case(run_id=None, lost_at="top_k", step=2), None, None),  # never recorded
])
def test_a_cases_run_link(result, lang, url):
    assert run_url(result, lang) == url


@pytest.mark.parametrize(("a", "b", "status", "url"), [
    (case("main-a"), case("main-b"), "regressed", "compare?compare=main-a%2Cmain-b"),
    (case("main-a"), case("main-b"), "fixed", "compare?compare=main-a%2Cmain-b"),
    (case("main-a"), case("main-b"), "same", None),
    (case("main-a"), case("main-b"), "unjudged", None),
    (case("main-a"), case(None), "regressed", None),
    (None, case("main-b"), "fixed", None),
])
def test_a_changed_cases_compare_link(a, b, status, url):
    assert compare_url(a, b, status) == url


def test_links_are_added_by_case_id_whatever_the_rows_order():
    results = [case("main-1", id="x"), case("main-2", id="y")]
    frame = with_run_links(pd.DataFrame({"id": ["y", "x", "z"]}), results)
    assert list(frame["run"].fillna("")) == ["debugger?run=main-2", "debugger?run=main-1", ""]
    assert with_run_links(pd.DataFrame({"id": []}), results).empty
    matrix = pd.DataFrame({"id": ["x", "y"], "change": ["same", "regressed"]})
    after = [case("main-3", id="x"), case("main-4", id="y")]
    assert list(with_compare_links(matrix, results, after)["compare"].fillna("")) == [
        "", "compare?compare=main-2%2Cmain-4"]
