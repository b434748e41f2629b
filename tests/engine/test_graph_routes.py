"""Every route of the spec end to end through the compiled graph, with injected fakes, checking the
trace fields each stage must (and must not) leave (docs/workflow.md §3)."""
from __future__ import annotations

import pytest

from rag import run_rag_graph
from rag.schemas import ComplexityResult, RewritePlan
from rag.trace import RETRIEVAL_FIELDS

from .fakes import FakeRetriever, FakeRoles, chunk, grade

Q = "丹瑾是什么属性？"  # takes the fast path: no planner call


def run(question, retriever, fake_roles, settings, **kw):
    return run_rag_graph(question, settings=settings, retriever=retriever, roles=fake_roles.roles(), **kw)


def test_answer_keeps_evidence_and_initial_snapshot(settings):
    retriever = FakeRetriever(default=[chunk(1, "丹瑾 属性 湮灭"), chunk(2)])
    roles = FakeRoles(grader=grade())
    result = run(Q, retriever, roles, settings)
    assert result["route"] == "answer" and result["retrieval_status"] == "answerable"
    assert [d["chunk_id"] for d in result["docs"]] == ["c1", "c2"]
    assert "[1] (kb.md, page 1)" in result["context"]
    t = result["rag_trace"]
    assert t["tool_used"] is True and t["tool_name"] == "search_knowledge_base"
    assert t["query"] == Q and t["retrieval_stage"] == "initial"
    assert t["complexity"] == "simple" and t["complexity_reason"].startswith("obvious_simple_fast_path:")
    assert len(t["retrieved_chunks"]) == 2 and t["initial_retrieved_chunks"] == t["retrieved_chunks"]
    assert set(t["retrieved_chunks"][0]) <= {"filename", "page_number", "text", "score", "rrf_rank", "rerank_score"}
    assert t["evidence_relevance"] == "strong" and t["evidence_answerability"] == "sufficient"
    assert t["hitl_prompt"] == "" and t["hitl_options"] == [] and t["missing_slots"] == []
    assert t["retrieval_empty"] is False
    for field in ("retrieval_mode", "candidate_k", "recall_count", "post_threshold_count"):
        assert field in t
    assert "rewrite_method" not in t and "sub_traces" not in t and "hitl_resume_state" not in t
    assert "hitl_resume_state" not in result
    assert roles.planner_calls == []  # fast path


def test_no_docs_skips_the_grader(settings):
    roles = FakeRoles()
    result = run(Q, FakeRetriever(), roles, settings)
    assert result["route"] == "no_knowledge" and result["retrieval_status"] == "no_knowledge"
    t = result["rag_trace"]
    assert t["evidence_reason"] == "no_retrieved_documents" and t["evidence_confidence"] == 1.0
    assert (t["evidence_relevance"], t["evidence_answerability"], t["evidence_ambiguity"]) == ("none", "none", "none")
    assert t["retrieved_chunks"] == [] and t["retrieval_empty"] is True
    assert roles.grader_calls == []
    assert result["docs"] == [] and result["context"] == ""


def test_off_topic_docs_are_no_knowledge_but_candidates_stay_in_trace(settings):
    roles = FakeRoles(grader=grade(relevance="none", answerability="none", route="answer"))
    result = run(Q, FakeRetriever(default=[chunk(1, "unrelated")]), roles, settings)
    assert result["route"] == "no_knowledge"
    assert result["docs"] == []
    assert len(result["rag_trace"]["retrieved_chunks"]) == 1
    assert len(result["rag_trace"]["initial_retrieved_chunks"]) == 1


def test_clarify_empties_chunks_and_leaves_snapshot_at_top_level(settings):
    roles = FakeRoles(grader=grade(answerability="partial", ambiguity="missing_slot", route="clarify",
                                   missing_slots=["平台"]))
    result = run(Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "clarify" and result["retrieval_status"] == "needs_clarification"
    t = result["rag_trace"]
    assert t["retrieved_chunks"] == [] and len(t["initial_retrieved_chunks"]) == 1
    assert t["missing_slots"] == ["平台"] and "平台" in t["hitl_prompt"]
    snap = result["hitl_resume_state"]
    assert snap == {
        "question": Q, "route": "clarify", "retrieval_status": "needs_clarification", "rewrite_count": 0,
        "complexity": "simple", "complexity_reason": "obvious_simple_fast_path:single_fact_marker", "sub_questions": [],
    }
    assert "hitl_resume_state" not in t
    assert result["docs"] == []


def test_scope_select_prefers_the_models_prompt(settings):
    roles = FakeRoles(grader=grade(ambiguity="multiple_candidates", route="scope_select",
                                   hitl_options=["Nova X1", "Nova Pad"], hitl_prompt="Which Nova?"))
    result = run("What is the Nova battery?", FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "scope_select" and result["retrieval_status"] == "needs_scope_selection"
    t = result["rag_trace"]
    assert t["hitl_options"] == ["Nova X1", "Nova Pad"] and t["hitl_prompt"] == "Which Nova?"
    assert result["hitl_resume_state"]["route"] == "scope_select"


def test_scope_select_default_prompt_lists_options(settings):
    roles = FakeRoles(grader=grade(ambiguity="multiple_candidates", route="scope_select",
                                   hitl_options=["Nova X1", "Nova Pad"]))
    result = run("What is the Nova battery?", FakeRetriever(default=[chunk(1)]), roles, settings)
    assert "Nova X1" in result["rag_trace"]["hitl_prompt"] and "Nova Pad" in result["rag_trace"]["hitl_prompt"]


@pytest.mark.parametrize(
    "plan, field, value",
    [
        (RewritePlan(method="step_back", step_back_question="丹瑾的基本资料"), "step_back_question", "丹瑾的基本资料"),
        (RewritePlan(method="hyde", hyde_document="丹瑾是一名湮灭属性的角色。"), "hyde_document", "丹瑾是一名湮灭属性的角色。"),
    ],
)
def test_rewrite_then_answer(settings, plan, field, value):
    first = [chunk(1, "weak")]
    second = [chunk(7, "丹瑾 湮灭"), chunk(8)]
    retriever = FakeRetriever(rules={"丹瑾的基本资料": second, "湮灭属性": second}, default=first)
    grades = iter([grade(answerability="partial", route="rewrite"), grade()])
    roles = FakeRoles(grader=lambda _i: next(grades), rewriter=plan)
    result = run(Q, retriever, roles, settings)
    assert result["route"] == "answer"
    t = result["rag_trace"]
    assert t["query"] == Q  # the ORIGINAL question
    assert t["retrieval_stage"] == "rewritten"
    assert t["rewrite_method"] == plan.method and t[field] == value
    assert t["rewritten_query"].startswith(Q + "\n\n") and value in t["rewritten_query"]
    assert [c["text"] for c in t["initial_retrieved_chunks"]] == ["weak"]
    assert [c["text"] for c in t["rewrite_retrieved_chunks"]] == ["丹瑾 湮灭", "chunk 8"]
    assert t["retrieved_chunks"] == t["rewrite_retrieved_chunks"]
    assert "rewrite_count" not in t  # raw field dropped by normalization
    assert retriever.queries[1] == t["rewritten_query"]
    # the grader always sees the original question
    assert [c.question for c in roles.grader_calls] == [Q, Q]
    assert roles.grader_calls[1].rewrite_count == 1


def test_rewrite_then_clarify_when_still_partial(settings):
    roles = FakeRoles(grader=grade(answerability="partial", route="rewrite"))
    result = run(Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "clarify"
    assert result["hitl_resume_state"]["rewrite_count"] == 1
    assert len(roles.rewriter_calls) == 1  # never a second rewrite


def test_rewrite_then_no_knowledge_when_still_unanswerable(settings):
    roles = FakeRoles(grader=grade(relevance="weak", answerability="none", route="rewrite"))
    result = run(Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "no_knowledge" and result["rag_trace"]["retrieval_stage"] == "rewritten"
    assert len(roles.rewriter_calls) == 1


def complex_roles(grader, subs=("A 的属性", "B 的属性")):
    return FakeRoles(
        planner=ComplexityResult(complexity="complex", complexity_reason="两个对象比较", sub_questions=list(subs)),
        grader=grader,
    )


COMPLEX_Q = "比较A和B的属性与技能有什么区别以及各自的优缺点是什么"


def test_complex_answer_merges_and_deduplicates(settings):
    shared = chunk(5, "shared")
    retriever = FakeRetriever(rules={"A": [chunk(1, "a"), shared], "B": [shared, chunk(2, "b")]})
    result = run(COMPLEX_Q, retriever, complex_roles(grade()), settings)
    assert result["route"] == "answer" and result["retrieval_status"] == "answerable"
    t = result["rag_trace"]
    assert t["complexity"] == "complex" and t["retrieval_stage"] == "synthesis"
    assert t["sub_questions"] == ["A 的属性", "B 的属性"]
    assert t["sub_agent_count"] == 2 and t["synthesis_merged_count"] == 4
    assert [c["text"] for c in t["retrieved_chunks"]] == ["a", "shared", "b"]
    assert [c["rrf_rank"] for c in t["retrieved_chunks"]] == [1, 2, 3]
    assert "evidence_confidence" not in t  # null, dropped by normalization
    for absent in ("evidence_ambiguity", "evidence_reason", "missing_slots", "initial_retrieved_chunks",
                   "recall_count", "candidate_k"):
        assert absent not in t
    assert (t["evidence_relevance"], t["evidence_answerability"]) == ("strong", "sufficient")
    assert t["hitl_prompt"] == "" and t["hitl_options"] == []
    subs = t["sub_traces"]
    assert len(subs) == 2 and {s["query"] for s in subs} == {"A 的属性", "B 的属性"}
    for s in subs:
        assert s["retrieval_stage"] == "initial" and "complexity" not in s and "sub_traces" not in s
        assert "recall_count" in s


def test_complex_partial_sub_result_gives_partial(settings):
    def grader(inp):
        return grade(answerability="partial", route="answer") if "A" in inp.question else grade()

    retriever = FakeRetriever(rules={"A": [chunk(1, "a")], "B": [chunk(2, "b")]})
    result = run(COMPLEX_Q, retriever, complex_roles(grader), settings)
    assert result["route"] == "answer" and result["retrieval_status"] == "partial"
    assert result["rag_trace"]["evidence_answerability"] == "partial"


def test_complex_answer_even_if_one_sub_question_fails(settings):
    retriever = FakeRetriever(rules={"A": [chunk(1, "a")], "B": []})
    result = run(COMPLEX_Q, retriever, complex_roles(grade()), settings)
    assert result["route"] == "answer" and result["retrieval_status"] == "answerable"
    assert [s["route"] for s in result["rag_trace"]["sub_traces"]] == ["answer", "no_knowledge"]


def test_complex_all_sub_questions_empty_is_no_knowledge(settings):
    result = run(COMPLEX_Q, FakeRetriever(), complex_roles(grade()), settings)
    t = result["rag_trace"]
    assert result["route"] == "no_knowledge" and t["retrieved_chunks"] == []
    assert (t["evidence_relevance"], t["evidence_answerability"]) == ("none", "none")
    assert t["sub_agent_count"] == 2 and t["synthesis_merged_count"] == 0
    assert "hitl_resume_state" not in result


def test_complex_sub_question_clarify_is_raised_to_the_top(settings):
    roles = complex_roles(grade(ambiguity="missing_slot", route="clarify", missing_slots=["版本"],
                                hitl_prompt="哪个版本？"))
    result = run(COMPLEX_Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "clarify" and result["retrieval_status"] == "needs_clarification"
    assert result["rag_trace"]["hitl_prompt"] == "哪个版本？"  # merged and de-duplicated
    snap = result["hitl_resume_state"]
    assert snap["complexity"] == "complex" and snap["sub_questions"] == ["A 的属性", "B 的属性"]


def test_complex_scope_select_outranks_clarify_and_merges_options(settings):
    def grader(inp):
        if "A" in inp.question:
            return grade(ambiguity="multiple_candidates", route="scope_select", hitl_options=["X", "Y"])
        return grade(ambiguity="multiple_candidates", route="scope_select", hitl_options=["Y", "Z"])

    result = run(COMPLEX_Q, FakeRetriever(default=[chunk(1)]), complex_roles(grader), settings)
    assert result["route"] == "scope_select"
    assert result["rag_trace"]["hitl_options"] == ["X", "Y", "Z"]


def test_sub_questions_never_rewrite(settings):
    roles = complex_roles(grade(answerability="partial", route="rewrite"))
    result = run(COMPLEX_Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert roles.rewriter_calls == []
    assert [s["retrieval_status"] for s in result["rag_trace"]["sub_traces"]] == ["partial", "partial"]


def test_every_retrieval_field_reaches_the_trace(settings):
    result = run(Q, FakeRetriever(default=[chunk(1)]), FakeRoles(), settings)
    fields = {k for k, v in FakeRetriever(default=[chunk(1)]).search("x").trace_fields.items() if v is not None}
    assert fields <= set(result["rag_trace"]) and fields <= set(RETRIEVAL_FIELDS)


@pytest.mark.parametrize(
    "graded, route",
    [
        (grade(), "answer"),
        (grade(relevance="weak", answerability="none", route="no_knowledge"), "no_knowledge"),
        (grade(relevance="none", answerability="none", route="no_knowledge"), "no_knowledge"),
        (grade(answerability="partial", ambiguity="missing_slot", route="clarify"), "clarify"),
        (grade(ambiguity="multiple_candidates", route="scope_select"), "scope_select"),
        (grade(answerability="partial", route="rewrite"), "clarify"),  # rewritten, graded again, still partial
    ],
)
def test_the_graders_options_are_kept_in_the_trace_on_every_route(settings, graded, route):
    roles = FakeRoles(grader=graded.model_copy(update={"hitl_options": ["Nova X1", "Nova Pad"]}))
    result = run(Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == route
    assert result["rag_trace"]["hitl_options"] == ["Nova X1", "Nova Pad"]
    assert (result["rag_trace"]["hitl_prompt"] == "") is (route not in ("clarify", "scope_select"))


def test_sub_traces_keep_the_graders_options_too(settings):
    roles = complex_roles(grade(hitl_options=["X"]))
    result = run(COMPLEX_Q, FakeRetriever(default=[chunk(1)]), roles, settings)
    assert result["route"] == "answer"
    assert [s["hitl_options"] for s in result["rag_trace"]["sub_traces"]] == [["X"], ["X"]]
    assert result["rag_trace"]["hitl_options"] == []  # a non-HITL synthesis carries none


def test_the_opt_in_extra_markers_reach_the_fast_path(settings):
    question = "丹瑾怎么样"  # 怎么 is only in the opt-in bilingual set
    roles = FakeRoles()
    assert run(question, FakeRetriever(default=[chunk(1)]), roles, settings)["complexity"] == "simple"
    assert roles.planner_calls == []  # the reference lists: fast path
    roles = FakeRoles()
    run(question, FakeRetriever(default=[chunk(1)]), roles, settings.model_copy(update={"fast_path_extra": "bilingual"}))
    assert len(roles.planner_calls) == 1
