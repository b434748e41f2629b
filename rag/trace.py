"""The `rag_trace` protocol: its 59 field names and `normalize_rag_trace` (docs/workflow.md §3.12, §5.1).

Normalization is what a client sees. It keeps only protocol fields, drops keys whose value is None
and keeps false / 0 / "" / [], so "absent", "null in the raw state" and "[]" stay distinguishable.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

TOOL_FIELDS = (
    "tool_used", "tool_name", "query", "retrieval_stage", "retrieved_chunks",
    "initial_retrieved_chunks", "rewrite_retrieved_chunks", "retrieval_empty",
)
GRADE_FIELDS = (
    "route", "retrieval_status", "evidence_relevance", "evidence_answerability", "evidence_ambiguity",
    "evidence_confidence", "evidence_reason", "missing_slots", "hitl_prompt", "hitl_options",
)
REWRITE_FIELDS = ("rewrite_method", "rewritten_query", "step_back_question", "hyde_document")
COMPLEX_FIELDS = (
    "complexity", "complexity_reason", "sub_questions", "sub_agent_count", "synthesis_merged_count",
    "sub_traces",
)
HITL_FIELDS = (
    "hitl_resumed", "hitl_answer", "hitl_resume_strategy", "hitl_resume_from_status",
    "hitl_resume_from_route", "hitl_targeted_retrieved_chunks",
)
RETRIEVAL_FIELDS = (
    "retrieval_mode", "retrieval_pipeline", "candidate_k", "candidate_k_source", "candidate_k_config_error",
    "retrieval_candidate_multiplier", "retrieval_top_k", "recall_count", "post_merge_candidate_count",
    "candidate_count", "leaf_retrieve_level", "auto_merge_enabled", "auto_merge_applied",
    "auto_merge_threshold", "auto_merge_replaced_chunks", "auto_merge_steps", "rerank_enabled",
    "rerank_applied", "rerank_model", "rerank_endpoint", "rerank_error", "rerank_timeout_seconds",
    "rerank_min_score", "post_rerank_count", "post_threshold_count",
)

#: Field groups in the order of the spec; the trace explorer shows them grouped like this.
FIELD_GROUPS: dict[str, tuple[str, ...]] = {
    "tool and retrieval": TOOL_FIELDS,
    "grade and route": GRADE_FIELDS,
    "rewrite": REWRITE_FIELDS,
    "complex chain": COMPLEX_FIELDS,
    "HITL resume": HITL_FIELDS,
    "retrieval parameters and counts": RETRIEVAL_FIELDS,
}

RAG_TRACE_FIELDS: tuple[str, ...] = tuple(f for group in FIELD_GROUPS.values() for f in group)
assert len(RAG_TRACE_FIELDS) == 59 and len(set(RAG_TRACE_FIELDS)) == 59

EVIDENCE_ITEM_FIELDS = ("filename", "page_number", "text", "score", "rrf_rank", "rerank_score")
CHUNK_LIST_FIELDS = frozenset(
    {"retrieved_chunks", "initial_retrieved_chunks", "rewrite_retrieved_chunks", "hitl_targeted_retrieved_chunks"}
)


def normalize_evidence_item(item: Any) -> Optional[dict]:
    """Whitelist copy of one evidence item; items without a filename are dropped (None)."""
    if not isinstance(item, Mapping):
        return None
    filename = item.get("filename")
    if not filename:
        return None
    return {k: item[k] for k in EVIDENCE_ITEM_FIELDS if k in item and item[k] is not None}


def normalize_evidence(items: Any) -> list[dict]:
    if not isinstance(items, (list, tuple)):
        return []
    return [n for n in (normalize_evidence_item(i) for i in items) if n is not None]


def normalize_rag_trace(trace: Optional[Mapping[str, Any]], *, _nested: bool = False) -> Optional[dict]:
    """Return the client view of a raw trace, or None when there is no trace yet.

    Sub-traces are normalized too (idempotent, so normalizing twice is harmless) and cannot nest
    further: a sub-trace's own `sub_traces` is dropped.
    """
    if trace is None:
        return None
    if not isinstance(trace, Mapping):
        raise TypeError(f"rag_trace must be a mapping, got {type(trace).__name__}")
    out: dict[str, Any] = {}
    for key in RAG_TRACE_FIELDS:
        if key not in trace:
            continue
        value = trace[key]
        if value is None:
            continue
        if key in CHUNK_LIST_FIELDS:
            value = normalize_evidence(value)
        elif key == "sub_traces":
            if _nested:
                continue
            value = [
                n for n in (normalize_rag_trace(t, _nested=True) for t in (value or []) if isinstance(t, Mapping))
                if n is not None
            ]
        out[key] = value
    return out
