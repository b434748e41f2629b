"""The raw trace after each node, stepped through the real compiled graph, as the spec's trace
walkthrough lists it: which fields each stage adds, keeps and overwrites (docs/workflow.md §3)."""
from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from rag import build_rag_graph, build_resume_graph, make_context
from rag.api import initial_state, resume_input
from rag.schemas import ComplexityResult, RewritePlan
from rag.trace import GRADE_FIELDS, RETRIEVAL_FIELDS
from rag_debugger.debugger import GraphStepper

from .fakes import FakeRetriever, FakeRoles, chunk, grade

INITIAL = {"tool_used", "tool_name", "query", "complexity", "complexity_reason", "retrieval_stage",
           "retrieved_chunks", "initial_retrieved_chunks", "retrieval_empty",
           "retrieval_backend"} | set(RETRIEVAL_FIELDS)  # retrieval_backend: raw only, says which backend ran
GRADED = INITIAL | set(GRADE_FIELDS)


def stepper(graph, settings, retriever, roles, inp):
    s = GraphStepper(graph, context=make_context(settings=settings, retriever=retriever, roles=roles.roles()))
    s.start(inp)
    return s


def trace_after(s, node):
    record = s.step()
    assert record.nodes == (node,), record.nodes
    return record.values_after.get("rag_trace")


def test_simple_chain_with_rewrite(settings):
    grades = iter([grade(answerability="partial", route="rewrite"), grade()])
    roles = FakeRoles(grader=lambda _i: next(grades), rewriter=RewritePlan(method="hyde", hyde_document="假设"))
    retriever = FakeRetriever(rules={"假设": [chunk(2, "new")]}, default=[chunk(1, "old")])
    s = stepper(build_rag_graph(InMemorySaver()), settings, retriever, roles, initial_state("丹瑾是什么属性？"))

    assert trace_after(s, "classify_complexity") is None  # only the state changes here

    t = trace_after(s, "retrieve_initial")
    assert set(t) == INITIAL
    assert t["retrieval_backend"] == "fake"
    assert t["retrieval_stage"] == "initial" and "route" not in t

    t = trace_after(s, "grade_documents")
    assert set(t) == GRADED
    assert (t["route"], t["retrieval_status"]) == ("rewrite", "needs_rewrite")
    assert [c["text"] for c in t["retrieved_chunks"]] == ["old"]  # rewrite keeps old evidence for now

    t = trace_after(s, "rewrite_question")
    assert set(t) == GRADED | {"rewrite_method", "rewritten_query", "hyde_document", "rewrite_count"}
    assert t["rewrite_count"] == 1 and t["route"] == "rewrite"  # old grade stays until overwritten

    t = trace_after(s, "retrieve_rewritten")
    assert set(t) == GRADED | {"rewrite_method", "rewritten_query", "hyde_document", "rewrite_count",
                               "rewrite_retrieved_chunks"}
    assert t["retrieval_stage"] == "rewritten" and t["query"] == "丹瑾是什么属性？"
    assert [c["text"] for c in t["initial_retrieved_chunks"]] == ["old"]
    assert [c["text"] for c in t["retrieved_chunks"]] == ["new"]
    assert t["route"] == "rewrite"  # the old grade, until the next node overwrites it

    t = trace_after(s, "grade_documents")
    assert (t["route"], t["retrieval_status"], t["retrieval_stage"]) == ("answer", "answerable", "rewritten")
    assert s.done


def test_complex_chain_parent_trace_starts_at_synthesis(settings):
    roles = FakeRoles(planner=ComplexityResult(complexity="complex", complexity_reason="r", sub_questions=["A?", "B?"]))
    s = stepper(build_rag_graph(InMemorySaver()), settings, FakeRetriever(default=[chunk(1)]), roles,
                initial_state("比较A和B的区别以及各自的优缺点是什么呢"))
    assert trace_after(s, "classify_complexity") is None
    assert trace_after(s, "prepare_sub_questions") is None
    record = s.step()
    assert record.nodes == ("rag_sub_agent",) and len(record.lanes) == 2
    assert record.values_after.get("rag_trace") is None  # parent trace still absent
    subs = record.values_after["sub_results"]
    assert {r["question"] for r in subs} == {"A?", "B?"}
    for r in subs:
        assert set(r) == {"question", "docs", "route", "retrieval_status", "rag_trace"}
        assert set(r["rag_trace"]) == GRADED
        assert r["rag_trace"]["complexity"] is None and r["rag_trace"]["complexity_reason"] is None
    appended = [row for row in record.diff if row.kind == "appended"]
    assert [row.path for row in appended] == ["sub_results[0]", "sub_results[1]"]

    t = trace_after(s, "synthesis")
    assert set(t) == {
        "tool_used", "tool_name", "query", "complexity", "complexity_reason", "sub_questions", "retrieval_stage",
        "retrieved_chunks", "sub_agent_count", "synthesis_merged_count", "sub_traces", "evidence_confidence",
        "route", "retrieval_status", "evidence_relevance", "evidence_answerability", "hitl_prompt", "hitl_options",
    }
    assert t["evidence_confidence"] is None  # null in the raw trace, absent after normalization


def test_resume_trace_before_and_after_targeted_retrieval(settings):
    snap = {"question": "Nova 续航多少？", "route": "clarify", "retrieval_status": "needs_clarification",
            "rewrite_count": 0, "complexity": "simple", "complexity_reason": None, "sub_questions": []}
    s = stepper(build_resume_graph(InMemorySaver()), settings, FakeRetriever(default=[chunk(1)]), FakeRoles(),
                resume_input(snap, "X1", limit=1000))
    t = trace_after(s, "restore_from_snapshot")
    assert set(t) == {"tool_used", "tool_name", "query", "hitl_resumed", "hitl_answer", "hitl_resume_from_route",
                      "hitl_resume_from_status", "complexity"}  # reason and sub-questions had no value
    t = trace_after(s, "retrieve_targeted")
    assert t["retrieval_stage"] == "hitl_targeted_retrieval" and t["hitl_resume_strategy"] == "targeted_retrieval"
    assert t["hitl_targeted_retrieved_chunks"] == t["retrieved_chunks"]
    assert "initial_retrieved_chunks" not in t
    t = trace_after(s, "grade_documents")
    assert t["route"] == "answer" and s.done
