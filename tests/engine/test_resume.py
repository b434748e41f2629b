"""HITL resume: validation, targeted retrieval only, no re-classification, further rounds."""
from __future__ import annotations

import pytest

from rag import SnapshotError, resume_rag_from_hitl, run_rag_graph
from rag.errors import InvalidQuestionError
from rag.schemas import ComplexityResult

from .fakes import FakeRetriever, FakeRoles, chunk, grade

SNAP = {
    "question": "Nova 的电池续航是多少？", "route": "scope_select", "retrieval_status": "needs_scope_selection",
    "rewrite_count": 0, "complexity": "simple", "complexity_reason": "obvious_simple_fast_path:single_fact_marker",
    "sub_questions": [],
}


def resume(snapshot, answer, retriever, roles, settings):
    return resume_rag_from_hitl(snapshot, answer, settings=settings, retriever=retriever, roles=roles.roles())


def test_resume_does_targeted_retrieval_and_grading_only(settings):
    retriever = FakeRetriever(default=[chunk(1, "Nova X1 电池 20 小时")])
    roles = FakeRoles(planner=AssertionError("must not classify"), rewriter=AssertionError("must not rewrite"))
    result = resume(SNAP, "Nova X1", retriever, roles, settings)
    assert result["route"] == "answer" and "hitl_resume_state" not in result
    merged = "Nova 的电池续航是多少？（补充：Nova X1）"
    assert retriever.queries == [merged]
    t = result["rag_trace"]
    assert t["query"] == merged and t["hitl_resumed"] is True and t["hitl_answer"] == "Nova X1"
    assert t["hitl_resume_from_route"] == "scope_select"
    assert t["hitl_resume_from_status"] == "needs_scope_selection"
    assert t["hitl_resume_strategy"] == "targeted_retrieval"
    assert t["retrieval_stage"] == "hitl_targeted_retrieval"
    assert t["hitl_targeted_retrieved_chunks"] == t["retrieved_chunks"] and len(t["retrieved_chunks"]) == 1
    assert t["complexity"] == "simple"
    assert "sub_questions" not in t  # only where it had values
    assert "initial_retrieved_chunks" not in t
    assert roles.grader_calls[0].question == merged


def test_resume_of_a_complex_snapshot_never_fans_out(settings):
    snap = dict(SNAP, complexity="complex", complexity_reason="multi", sub_questions=["A?", "B?"])
    retriever = FakeRetriever(default=[chunk(1)])
    roles = FakeRoles(planner=ComplexityResult(complexity="complex", sub_questions=["x", "y"]))
    result = resume(snap, "Nova X1", retriever, roles, settings)
    assert len(retriever.queries) == 1 and roles.planner_calls == []
    t = result["rag_trace"]
    assert t["complexity"] == "complex" and t["sub_questions"] == ["A?", "B?"]
    assert "sub_traces" not in t and t["retrieval_stage"] == "hitl_targeted_retrieval"


def test_resume_can_ask_again_and_a_second_round_resolves(settings):
    retriever = FakeRetriever(default=[chunk(1)])
    grades = iter([
        grade(answerability="partial", ambiguity="missing_slot", route="clarify", missing_slots=["平台"]),
        grade(),
    ])
    roles = FakeRoles(grader=lambda _i: next(grades))
    first = resume(SNAP, "Nova X1", retriever, roles, settings)
    assert first["route"] == "clarify"
    snap2 = first["hitl_resume_state"]
    assert snap2["question"] == "Nova 的电池续航是多少？（补充：Nova X1）"
    assert snap2["route"] == "clarify" and snap2["complexity"] == "simple"
    second = resume(snap2, "安卓", retriever, roles, settings)
    assert second["route"] == "answer"
    assert second["question"] == "Nova 的电池续航是多少？（补充：Nova X1）（补充：安卓）"
    assert second["rag_trace"]["hitl_resume_from_route"] == "clarify"


def test_resume_may_end_in_rewrite_without_running_it(settings):
    roles = FakeRoles(grader=grade(answerability="partial", route="rewrite"), rewriter=AssertionError("no rewrite"))
    result = resume(SNAP, "Nova X1", FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "rewrite" and result["retrieval_status"] == "needs_rewrite"
    assert roles.rewriter_calls == [] and "hitl_resume_state" not in result


def test_resume_restores_rewrite_budget(settings):
    snap = dict(SNAP, rewrite_count=1)
    roles = FakeRoles(grader=grade(answerability="partial", route="rewrite"))
    result = resume(snap, "Nova X1", FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "clarify"  # budget spent: partial → clarify
    assert result["hitl_resume_state"]["rewrite_count"] == 1


def test_answer_already_in_question_is_not_duplicated(settings):
    retriever = FakeRetriever(default=[chunk(1)])
    result = resume(SNAP, "电池", retriever, FakeRoles(), settings)
    assert retriever.queries == [SNAP["question"]]
    assert result["rag_trace"]["query"] == SNAP["question"]


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda s: s.update(extra="x"), "extra"),
        (lambda s: s.update(route="answer"), "route"),
        (lambda s: s.update(question=""), "question"),
        (lambda s: s.update(question="   "), "question"),
        (lambda s: s.update(rewrite_count=-1), "rewrite_count"),
        (lambda s: s.update(sub_questions=["a", "b", "c", "d", "e"]), "sub_questions"),
        (lambda s: s.update(complexity="medium"), "complexity"),
        (lambda s: s.pop("question"), "question"),
        (lambda s: s.update(retrieval_status="needs_clarification"), "retrieval_status"),
    ],
)
def test_tampered_snapshot_is_refused_naming_the_field(settings, mutate, field):
    snap = dict(SNAP)
    mutate(snap)
    retriever = FakeRetriever(default=[chunk(1)])
    with pytest.raises(SnapshotError, match=field):
        resume(snap, "Nova X1", retriever, FakeRoles(), settings)
    assert retriever.queries == []  # nothing ran


@pytest.mark.parametrize("snapshot", [None, "not a snapshot", ["question"], 42])
def test_foreign_snapshot_is_refused(settings, snapshot):
    with pytest.raises(SnapshotError, match="hitl_resume_state"):
        resume(snapshot, "x", FakeRetriever(), FakeRoles(), settings)


@pytest.mark.parametrize("answer", ["", "   ", None])
def test_empty_answer_is_refused(settings, answer):
    with pytest.raises(InvalidQuestionError):
        resume(SNAP, answer, FakeRetriever(), FakeRoles(), settings)


def test_snapshot_round_trips_from_a_real_run(settings):
    roles = FakeRoles(grader=grade(ambiguity="multiple_candidates", route="scope_select", hitl_options=["a", "b"]))
    first = run_rag_graph("丹瑾是什么属性？", settings=settings, retriever=FakeRetriever(default=[chunk(1)]),
                          roles=roles.roles())
    result = resume(first["hitl_resume_state"], "a", FakeRetriever(default=[chunk(2)]), FakeRoles(), settings)
    assert result["route"] == "answer"
