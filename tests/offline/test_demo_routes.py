"""The contract of the demos: the offline provider, over the bundled knowledge base and the real
graph and retriever, takes every demo question to its documented route, and every HITL demo's
answer resumes into its documented route."""
from __future__ import annotations

import re

import pytest

from rag import resume_rag_from_hitl, run_rag_graph
from rag.demo import load_demo_questions
from rag.models.offline import build_offline_roles

DEMOS = load_demo_questions()


@pytest.fixture(scope="module")
def roles():
    return build_offline_roles()


@pytest.mark.parametrize("demo", DEMOS, ids=[d.id for d in DEMOS])
def test_demo_takes_its_documented_route(demo, roles):
    result = run_rag_graph(demo.question, roles=roles)
    trace = result["rag_trace"]
    assert result["route"] == demo.final_route, trace.get("evidence_reason")
    reasons = [trace.get("evidence_reason")] + [t.get("evidence_reason") for t in trace.get("sub_traces") or []]
    prefix = "[离线规则]" if demo.lang == "zh" else "[offline rules]"  # the question's language
    assert all(r.startswith(prefix) for r in reasons if r), reasons
    if demo.expected_route == "rewrite_then_answer":
        assert trace.get("rewrite_method") == demo.expected_rewrite_method
        assert trace.get("retrieval_stage") == "rewritten"
    elif demo.expected_route == "complex":
        assert trace.get("complexity") == "complex"
        assert len(trace.get("sub_questions") or []) == demo.expected_sub_questions
        assert trace.get("sub_agent_count") == demo.expected_sub_questions
    else:
        assert "rewrite_method" not in trace
    if demo.expected_route in ("clarify", "scope_select"):
        snapshot = result["hitl_resume_state"]
        assert trace.get("hitl_options"), "the UI needs options to offer"
        resumed = resume_rag_from_hitl(snapshot, demo.hitl_answer, roles=roles)
        assert resumed["route"] == demo.expected_resume_route, resumed["rag_trace"].get("evidence_reason")
        assert resumed["rag_trace"]["hitl_resumed"] is True
    else:
        assert "hitl_resume_state" not in result or not result["hitl_resume_state"]


NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


@pytest.mark.parametrize("demo", DEMOS, ids=[d.id for d in DEMOS])
def test_demo_label_claims_only_what_the_run_does(demo, roles):
    """A presenter reads the label aloud before clicking: a count or a path it names must be what
    the result then shows (a label once said "one chunk" for a run that handed over 8)."""
    result = run_rag_graph(demo.question, roles=roles)
    trace = result["rag_trace"]
    label = demo.label.lower()
    assert label.startswith(demo.expected_route.split("_then_")[0]), "the label names the route first"
    if "fast path" in label:
        assert str(trace.get("complexity_reason")).startswith("obvious_simple_fast_path"), trace.get("complexity_reason")
    for count, _ in re.findall(r"\b(\d+|one|two|three|four|five) (chunks?)\b", label):
        assert NUMBERS.get(count, count) in (len(result["docs"]), str(len(result["docs"]))), (label, len(result["docs"]))
    for count in re.findall(r"(\d+) sub-questions", label):
        assert int(count) == len(trace.get("sub_questions") or [])
    if "hyde" in label:
        assert trace.get("rewrite_method") == "hyde"
    if "step-back" in label:
        assert trace.get("rewrite_method") == "step_back"
