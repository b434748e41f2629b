"""`rag.degradation.run_failures` names the role that failed and the error kind, from a real run's
raw state: what the debugger says at the top of a degraded result."""
from __future__ import annotations

from rag import make_context
from rag.api import _compiled, initial_state
from rag.degradation import run_failures, split_error
from rag.errors import ModelCallError
from rag.schemas import ComplexityResult

from .fakes import FakeRetriever, FakeRoles, chunk, grade, timeout_error

Q = "丹瑾是什么属性？"
PLANNED_Q = "Why does the Nova X1 drain its battery faster after the 2.3 firmware update?"


def _state(settings, roles: FakeRoles, retriever=None, question=Q) -> dict:
    ctx = make_context(settings=settings, retriever=retriever or FakeRetriever(default=[chunk(1)]), roles=roles.roles())
    return _compiled("main").invoke(initial_state(question), context=ctx)


def test_a_healthy_run_reports_nothing(settings):
    assert run_failures(_state(settings, FakeRoles())) == []
    assert run_failures(None) == [] and run_failures({}) == []


def test_grader_failure_names_the_grader_and_the_kind(settings):
    [failure] = run_failures(_state(settings, FakeRoles(grader=ModelCallError("connection", "Connection error."))))
    assert (failure.role, failure.kind, failure.message) == ("grader", "connection", "Connection error.")
    assert "no_knowledge" in failure.consequence


def test_planner_failure_is_reported_even_when_the_run_answers(settings):
    failures = run_failures(_state(settings, FakeRoles(planner=timeout_error()), question=PLANNED_Q))
    assert [(f.role, f.kind) for f in failures] == [("planner", "timeout")]


def test_rewriter_and_retriever_failures(settings):
    roles = FakeRoles(grader=grade(answerability="partial", route="rewrite"), rewriter=ModelCallError("http_500", "boom"))
    assert [(f.role, f.kind) for f in run_failures(_state(settings, roles))] == [("rewriter", "http_500")]
    broken = FakeRetriever(fail=ConnectionError("milvus down"))
    assert [(f.role, f.kind) for f in run_failures(_state(settings, FakeRoles(), retriever=broken))] == [
        ("retriever", "ConnectionError")]


def test_a_failing_sub_question_is_named(settings):
    plan = ComplexityResult(complexity="complex", complexity_reason="two", sub_questions=["a?", "b?"])
    failures = run_failures(_state(settings, FakeRoles(planner=plan, grader=timeout_error()), question=PLANNED_Q))
    assert sorted(f.sub_question for f in failures if f.role == "grader") == ["a?", "b?"]


def test_error_text_splits_into_kind_and_message():
    assert split_error("timeout: took too long") == ("timeout", "took too long")
    assert split_error("knowledge base unavailable: FileNotFoundError: x") == (
        "FileNotFoundError", "knowledge base unavailable: FileNotFoundError: x")
    assert split_error("") == ("error", "")
