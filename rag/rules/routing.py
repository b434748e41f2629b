"""Deterministic route correction and route → status (docs/workflow.md §1, §3.3, §3.4).

The grading model only proposes a route. These rules decide, in the reference's order, so that a
model that says "answer" on weak evidence cannot end a run with a confident answer, and so that
sub-questions never rewrite.
"""
from __future__ import annotations

from rag.schemas import EvidenceGrade, Route

HITL_ROUTES = frozenset({"clarify", "scope_select"})

_STATUS = {
    "rewrite": "needs_rewrite",
    "clarify": "needs_clarification",
    "scope_select": "needs_scope_selection",
    "no_knowledge": "no_knowledge",
}


def resolve_route(grade: EvidenceGrade, *, has_docs: bool, is_sub_agent: bool, rewrite_count: int) -> Route:
    """Correct the grader's proposal. Each branch is one row of the spec's order."""
    if not has_docs or grade.relevance == "none":
        return "no_knowledge"
    if grade.ambiguity == "multiple_candidates":
        return "scope_select"
    if grade.ambiguity == "missing_slot":
        return "clarify"
    supported = grade.relevance == "strong" and grade.answerability == "sufficient"
    if grade.route == "answer" and supported:
        return "answer"
    if is_sub_agent:
        return "answer" if grade.answerability in ("partial", "sufficient") else "no_knowledge"
    if grade.route == "rewrite":
        if rewrite_count < 1:
            return "rewrite"
        return "clarify" if grade.answerability == "partial" else "no_knowledge"
    if grade.answerability == "partial":
        return "rewrite" if rewrite_count < 1 else "clarify"
    if supported:
        return "answer"
    return "no_knowledge"


def retrieval_status_for_route(route: str, answerability: str | None = None) -> str:
    """The display form of a route; `partial` only when an answer is partly supported."""
    if route == "answer":
        return "partial" if answerability == "partial" else "answerable"
    try:
        return _STATUS[route]
    except KeyError:
        raise ValueError(f"unknown route {route!r}") from None


def grade_for_no_docs() -> EvidenceGrade:
    """No evidence: decided without a model call."""
    return EvidenceGrade(
        relevance="none", answerability="none", ambiguity="none", confidence=1.0,
        route="no_knowledge", reason="no_retrieved_documents",
    )


def grade_unavailable() -> EvidenceGrade:
    """The grader failed: fail closed (no answer on unjudged evidence)."""
    return EvidenceGrade(
        relevance="weak", answerability="none", ambiguity="none", confidence=0.0,
        route="no_knowledge", reason="evidence_grading_unavailable",
    )


def is_hitl_route(route: str | None) -> bool:
    return route in HITL_ROUTES
