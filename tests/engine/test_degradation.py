"""Model and retriever failures degrade to defined routes, visible in the trace; runs never crash."""
from __future__ import annotations

import pytest

from rag import run_rag_graph
from rag.errors import InvalidQuestionError

from .fakes import FakeRetriever, FakeRoles, chunk, grade, timeout_error

Q = "丹瑾是什么属性？"
SLOW_Q = "Why does the Nova X1 drain its battery faster after the 2.3 firmware update?"


@pytest.mark.parametrize("failure", [timeout_error(), ValueError("invalid json"), {"relevance": "maybe"}])
def test_grader_failure_fails_closed(settings, failure):
    roles = FakeRoles(grader=failure)
    result = run_rag_graph(Q, settings=settings, retriever=FakeRetriever(default=[chunk(1)]), roles=roles.roles())
    assert result["route"] == "no_knowledge" and result["docs"] == []
    t = result["rag_trace"]
    assert t["evidence_reason"] == "evidence_grading_unavailable"
    assert (t["evidence_relevance"], t["evidence_answerability"]) == ("weak", "none")


def test_grader_error_is_visible_in_raw_trace_and_progress(settings):
    from rag import make_context
    from rag.api import _compiled, initial_state

    steps = []
    ctx = make_context(settings=settings, retriever=FakeRetriever(default=[chunk(1)]),
                       roles=FakeRoles(grader=timeout_error()).roles(), progress=steps.append)
    state = _compiled("main").invoke(initial_state(Q), context=ctx)
    assert state["rag_trace"]["grading_error"].startswith("timeout:")
    assert any("timeout" in s.detail for s in steps)


@pytest.mark.parametrize("failure", [timeout_error(), ValueError("bad"), {"complexity": "unknown"}])
def test_planner_failure_falls_back_to_simple(settings, failure):
    roles = FakeRoles(planner=failure)
    result = run_rag_graph(SLOW_Q, settings=settings, retriever=FakeRetriever(default=[chunk(1)]), roles=roles.roles())
    assert result["route"] == "answer"
    assert result["rag_trace"]["complexity"] == "simple"
    assert result["rag_trace"]["complexity_reason"].startswith("planner_unavailable:")


@pytest.mark.parametrize(
    "failure, kind",
    [(timeout_error(), "timeout"), (ValueError("bad"), "ValueError"), ({"method": "hyde"}, "ValidationError")],
)
def test_rewriter_failure_ends_the_rewrite_as_no_knowledge(settings, failure, kind):
    retriever = FakeRetriever(default=[chunk(1)])
    roles = FakeRoles(grader=grade(answerability="partial", route="rewrite", hitl_options=["A", "B"]), rewriter=failure)
    result = run_rag_graph(Q, settings=settings, retriever=retriever, roles=roles.roles())
    assert result["route"] == "no_knowledge" and result["retrieval_status"] == "no_knowledge"
    assert len(retriever.queries) == 1  # no second retrieval
    t = result["rag_trace"]
    assert "rewrite_method" not in t
    # visible in the 59 protocol fields, not only in the raw `rewrite_error` key
    assert t["evidence_reason"].startswith(f"rewrite_unavailable:{kind}")
    assert t["hitl_options"] == ["A", "B"] and t["hitl_prompt"] == ""


def test_a_graded_no_knowledge_keeps_the_graders_reason(settings):
    roles = FakeRoles(grader=grade(relevance="weak", answerability="none", route="no_knowledge", reason="off topic"))
    result = run_rag_graph(Q, settings=settings, retriever=FakeRetriever(default=[chunk(1)]), roles=roles.roles())
    assert result["route"] == "no_knowledge" and result["rag_trace"]["evidence_reason"] == "off topic"


def test_failing_retriever_is_no_knowledge_with_mode_failed(settings):
    roles = FakeRoles()
    result = run_rag_graph(Q, settings=settings, retriever=FakeRetriever(fail=ConnectionError("milvus down")),
                           roles=roles.roles())
    assert result["route"] == "no_knowledge"
    assert result["rag_trace"]["retrieval_mode"] == "failed"
    assert roles.grader_calls == []


def test_broken_progress_sink_never_fails_a_run(settings):
    def sink(_step):
        raise RuntimeError("ui went away")

    result = run_rag_graph(Q, settings=settings, retriever=FakeRetriever(default=[chunk(1)]),
                           roles=FakeRoles().roles(), progress=sink)
    assert result["route"] == "answer"


@pytest.mark.parametrize("question", ["", "   \n", None, 42])
def test_empty_or_wrong_question_is_a_clear_error(settings, question):
    with pytest.raises(InvalidQuestionError):
        run_rag_graph(question, settings=settings, retriever=FakeRetriever(), roles=FakeRoles().roles())


def test_huge_question_is_refused_before_running(settings):
    retriever = FakeRetriever()
    with pytest.raises(InvalidQuestionError, match="100,000 characters"):
        run_rag_graph("问" * 100_000, settings=settings, retriever=retriever, roles=FakeRoles().roles())
    assert retriever.queries == []
