"""An evaluation says which calls its runs degraded around, by role and kind (`grader: truncated`,
`planner: timeout`): in each case's result, the CLI's case line and summary, the HTML report and the stored
results. Against a real model a wrong route alone does not say whether the model was cut at its cap or ran
out of time."""
from __future__ import annotations

import pytest

from rag.api import make_context
from rag.errors import ModelCallError
from rag.eval.__main__ import case_line
from rag.eval.cases import EvalCase
from rag.eval.report import evaluation_html
from rag.eval.runner import run_cases
from rag.eval.scoring import CaseResult, degraded_kinds
from rag.runs.history import RunHistory
from rag.settings import RagSettings
from tests.engine.fakes import FakeRetriever, FakeRoles, chunk, timeout_error

QUESTION = "What is the operating temperature range of the Lumen X2?"


def truncated() -> ModelCallError:
    return ModelCallError("truncated", "the reply was cut at its cap of 640 tokens (RAG_MAX_TOKENS_GRADER)")


def context(roles: FakeRoles):
    settings = RagSettings(model_provider="offline", fast_path_extra="")
    return make_context(settings=settings, retriever=FakeRetriever(default=[chunk(1)]), roles=roles.roles())


@pytest.mark.parametrize("recorded", [False, True])
def test_each_case_names_the_calls_it_degraded_around(tmp_path, recorded):
    cases = [EvalCase(id="both", question=QUESTION, expected_route="answer")]
    ctx = context(FakeRoles(planner=timeout_error(), grader=truncated()))
    if recorded:
        with RunHistory(tmp_path / "history.db") as history:
            [res] = run_cases(cases, ctx.settings, ctx=ctx, history=history, eval_id="e")
    else:
        [res] = run_cases(cases, ctx.settings, ctx=ctx)
    assert res.degraded == ("planner: timeout", "grader: truncated")
    assert res.route == "no_knowledge" and res.error is None  # degraded, not failed


def test_a_healthy_case_names_none():
    [res] = run_cases([EvalCase(id="ok", question=QUESTION)], RagSettings(), ctx=context(FakeRoles()))
    assert res.degraded == ()


@pytest.mark.parametrize("degraded,expected", [
    ([(), ()], {}),
    ([("grader: truncated",), ("grader: truncated", "planner: timeout")], {"grader: truncated": 2,
                                                                          "planner: timeout": 1}),
    ([("rewriter: invalid_output",), ("grader: timeout",)], {"grader: timeout": 1, "rewriter: invalid_output": 1}),
])
def test_degraded_kinds_are_counted_most_first(degraded, expected):
    results = [CaseResult(id=f"c{i}", expected_route=None, route="no_knowledge", degraded=d)
               for i, d in enumerate(degraded)]
    counts = degraded_kinds(results)
    assert counts == expected and list(counts) == list(expected)


def test_the_report_the_case_line_and_the_store_keep_them():
    hit = CaseResult(id="cut", expected_route="answer", route="no_knowledge", degraded=("grader: truncated",))
    clean = CaseResult(id="fine", expected_route="answer", route="answer")
    text = evaluation_html(["A"], [[hit, clean]], set_name="s.jsonl", kb="bundled")
    assert "Calls the runs degraded around" in text and "grader: truncated" in text
    assert "Calls the runs degraded around" not in evaluation_html(["A"], [[clean]], set_name="s.jsonl")
    assert case_line(hit).endswith("degraded: grader: truncated") and "degraded" not in case_line(clean)
    assert CaseResult.from_dict(hit.to_dict()) == hit
    assert CaseResult.from_dict({k: v for k, v in clean.to_dict().items() if k != "degraded"}) == clean
