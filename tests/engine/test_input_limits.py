"""Every text that reaches retrieval or a model is bounded and valid, and is refused before anything runs:
the question, the HITL answer, the resume snapshot's texts and the question they merge into."""
from __future__ import annotations

import pytest

from rag import SnapshotError, resume_rag_from_hitl, run_rag_graph
from rag.errors import InvalidQuestionError
from rag.schemas import ComplexityResult
from rag.settings import RagSettings

from .fakes import FakeRetriever, FakeRoles, chunk

SNAP = {
    "question": "How long does the Nova battery last?", "route": "clarify", "retrieval_status": "needs_clarification",
    "rewrite_count": 0, "complexity": "simple", "complexity_reason": "fake", "sub_questions": [],
}


def _run(question, settings, retriever=None, roles=None):
    retriever = retriever or FakeRetriever(default=[chunk(1)])
    roles = roles or FakeRoles()
    return run_rag_graph(question, settings=settings, retriever=retriever, roles=roles.roles()), retriever, roles


def _resume(snapshot, answer, settings):
    retriever, roles = FakeRetriever(default=[chunk(1)]), FakeRoles()
    try:
        return resume_rag_from_hitl(snapshot, answer, settings=settings, retriever=retriever, roles=roles.roles())
    finally:
        _resume.last = (retriever, roles)


def _nothing_ran():
    retriever, roles = _resume.last
    return retriever.queries == [] and roles.grader_calls == [] and roles.planner_calls == []


# ----- item 1: the snapshot's question and the merged question are bounded -----------------------

@pytest.mark.parametrize("question", ["Nova " * 200_000, "x" * 4_001], ids=["1M", "4001"])
def test_an_oversized_snapshot_question_is_refused_before_anything_runs(settings, question):
    with pytest.raises(SnapshotError, match="question has .* characters; the limit is 4,000"):
        _resume(dict(SNAP, question=question), "the X1", settings)
    assert _nothing_ran()


def test_a_snapshot_question_at_the_limit_is_accepted(settings):
    result = _resume(dict(SNAP, question="n" * 3_900), "X1", settings)
    assert result["route"] == "answer"


def test_the_merged_question_obeys_the_limit(settings):
    # Each part is within the limit; together they would be 8,000+ characters.
    with pytest.raises(InvalidQuestionError, match="merged with the HITL answer has 8,0.. characters"):
        _resume(dict(SNAP, question="q" * 4_000), "a" * 4_000, settings)
    assert _nothing_ran()


def test_the_merged_question_limit_follows_the_setting():
    small = RagSettings(model_provider="offline", max_question_chars=60)
    with pytest.raises(InvalidQuestionError, match="limit is 60"):
        _resume(SNAP, "the X1 model with the larger battery", small)
    assert _nothing_ran()


@pytest.mark.parametrize(
    "field, value",
    [("sub_questions", ["ok?", "s" * 4_001]), ("complexity_reason", "r" * 4_001)], ids=["sub", "reason"],
)
def test_other_snapshot_texts_are_bounded_too(settings, field, value):
    with pytest.raises(SnapshotError, match=field.split("_")[0]):
        _resume(dict(SNAP, **{field: value}), "X1", settings)
    assert _nothing_ran()


def test_an_oversized_planner_sub_question_never_reaches_retrieval(settings):
    huge = "h" * 4_001
    roles = FakeRoles(planner=ComplexityResult(complexity="complex", sub_questions=["Nova battery?", huge]))
    result, retriever, _ = _run("Compare the Nova and the Lumen across battery and price", settings, roles=roles)
    assert all(len(q) <= settings.max_question_chars for q in retriever.queries)
    assert result["complexity"] == "simple"
    assert result["rag_trace"]["complexity_reason"].startswith("planner_unavailable:")


# ----- item 6: text that is not valid Unicode, or only invisible characters ------------------------

def test_a_lone_surrogate_is_refused_before_anything_runs(settings):
    retriever, roles = FakeRetriever(default=[chunk(1)]), FakeRoles()
    with pytest.raises(InvalidQuestionError, match="not valid Unicode"):
        run_rag_graph("How do I reset \ud800 the Nova?", settings=settings, retriever=retriever, roles=roles.roles())
    assert retriever.queries == [] and roles.planner_calls == []


def test_a_lone_surrogate_in_an_answer_or_a_snapshot_is_refused(settings):
    with pytest.raises(InvalidQuestionError, match="not valid Unicode"):
        _resume(SNAP, "X1 \udfff", settings)
    assert _nothing_ran()
    with pytest.raises(SnapshotError, match="(?i)question.*unicode"):
        _resume(dict(SNAP, question="Nova \ud83d battery?"), "X1", settings)
    assert _nothing_ran()


@pytest.mark.parametrize("question", ["\x00", "\x00\x00 \x00", "\u200b\u200c\u200d", "\ufeff\u2060 \t", "\x00\u200b"])
def test_nul_or_zero_width_only_questions_are_empty(settings, question):
    retriever = FakeRetriever()
    with pytest.raises(InvalidQuestionError, match="is empty"):
        run_rag_graph(question, settings=settings, retriever=retriever, roles=FakeRoles().roles())
    assert retriever.queries == []
    with pytest.raises(InvalidQuestionError, match="is empty"):
        _resume(SNAP, question, settings)
    with pytest.raises(SnapshotError, match="question is empty"):
        _resume(dict(SNAP, question=question), "X1", settings)


def test_nul_characters_inside_a_question_are_removed(settings):
    result, retriever, _ = _run("How long does the\x00 Nova battery last?", settings)
    assert retriever.queries == ["How long does the Nova battery last?"]
    assert "\x00" not in result["question"]


# ----- item 7: the snapshot's rewrite_count is a strict, bounded integer -------------------------

@pytest.mark.parametrize("value", ["1", True, 1.0, 10**5000, 101], ids=["str", "bool", "float", "huge", "101"])
def test_rewrite_count_must_be_a_plain_small_integer(settings, value):
    with pytest.raises(SnapshotError, match="rewrite_count"):
        _resume(dict(SNAP, rewrite_count=value), "X1", settings)
    assert _nothing_ran()


@pytest.mark.parametrize("value", [0, 1, 2])
def test_real_rewrite_counts_are_accepted(settings, value):
    assert _resume(dict(SNAP, rewrite_count=value), "X1", settings)["route"] in ("answer", "clarify")


def test_a_snapshot_object_built_in_code_gets_the_same_checks(settings):
    from rag.schemas import HitlResumeState

    snap = HitlResumeState(question="q" * 5_000, route="clarify", retrieval_status="needs_clarification")
    with pytest.raises(SnapshotError, match="question has 5,000 characters"):
        _resume(snap, "X1", settings)
    assert _nothing_ran()
