"""The `rag_trace` protocol: its 59 field names and `normalize_rag_trace` (docs/workflow.md §3.12, §5.1).

Normalization is what a client sees. It keeps only protocol fields, drops keys whose value is None
and keeps false / 0 / "" / [], so "absent", "null in the raw state" and "[]" stay distinguishable.
"""
from __future__ import annotations

from typing import Any, Iterable, Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict, ValidationError

from rag.errors import InvalidTraceError
from rag.i18n import _
from rag.schemas import EvidenceItem

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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RagSubTrace(_Strict):
    """The typed trace: every protocol field but `sub_traces` (a sub-trace cannot nest further).
    Types as the reference declares them: lax pydantic coercion ("8" -> 8 for an int), and a wrong
    type is an error."""

    # tool and retrieval
    tool_used: Optional[bool] = None
    tool_name: Optional[str] = None
    query: Optional[str] = None
    retrieval_stage: Optional[str] = None
    retrieved_chunks: Optional[list[EvidenceItem]] = None
    initial_retrieved_chunks: Optional[list[EvidenceItem]] = None
    rewrite_retrieved_chunks: Optional[list[EvidenceItem]] = None
    retrieval_empty: Optional[bool] = None
    # grade and route
    route: Optional[str] = None
    retrieval_status: Optional[str] = None
    evidence_relevance: Optional[str] = None
    evidence_answerability: Optional[str] = None
    evidence_ambiguity: Optional[str] = None
    evidence_confidence: Optional[float] = None
    evidence_reason: Optional[str] = None
    missing_slots: Optional[list[str]] = None
    hitl_prompt: Optional[str] = None
    hitl_options: Optional[list[str]] = None
    # rewrite
    rewrite_method: Optional[Literal["step_back", "hyde"]] = None
    rewritten_query: Optional[str] = None
    step_back_question: Optional[str] = None
    hyde_document: Optional[str] = None
    # complex chain (sub_traces: RagTrace only)
    complexity: Optional[str] = None
    complexity_reason: Optional[str] = None
    sub_questions: Optional[list[str]] = None
    sub_agent_count: Optional[int] = None
    synthesis_merged_count: Optional[int] = None
    # HITL resume
    hitl_resumed: Optional[bool] = None
    hitl_answer: Optional[str] = None
    hitl_resume_strategy: Optional[str] = None
    hitl_resume_from_status: Optional[str] = None
    hitl_resume_from_route: Optional[str] = None
    hitl_targeted_retrieved_chunks: Optional[list[EvidenceItem]] = None
    # retrieval parameters and counts
    retrieval_mode: Optional[str] = None
    retrieval_pipeline: Optional[str] = None
    candidate_k: Optional[int] = None
    candidate_k_source: Optional[str] = None
    candidate_k_config_error: Optional[str] = None
    retrieval_candidate_multiplier: Optional[int] = None
    retrieval_top_k: Optional[int] = None
    recall_count: Optional[int] = None
    post_merge_candidate_count: Optional[int] = None
    candidate_count: Optional[int] = None
    leaf_retrieve_level: Optional[int] = None
    auto_merge_enabled: Optional[bool] = None
    auto_merge_applied: Optional[bool] = None
    auto_merge_threshold: Optional[int] = None
    auto_merge_replaced_chunks: Optional[int] = None
    auto_merge_steps: Optional[int] = None
    rerank_enabled: Optional[bool] = None
    rerank_applied: Optional[bool] = None
    rerank_model: Optional[str] = None
    rerank_endpoint: Optional[str] = None
    rerank_error: Optional[str] = None
    rerank_timeout_seconds: Optional[float] = None
    rerank_min_score: Optional[float] = None
    post_rerank_count: Optional[int] = None
    post_threshold_count: Optional[int] = None


class RagTrace(RagSubTrace):
    """A normalized top-level trace: the 59 protocol fields."""

    sub_traces: Optional[list[RagSubTrace]] = None


assert set(RagTrace.model_fields) == set(RAG_TRACE_FIELDS)
assert set(EvidenceItem.model_fields) == set(EVIDENCE_ITEM_FIELDS)


def normalize_evidence_item(item: Any) -> Optional[dict]:
    """Whitelist copy of one evidence item, typed; items without a filename are dropped (None)."""
    if not isinstance(item, Mapping) or not item.get("filename"):
        return None
    return {k: item[k] for k in EVIDENCE_ITEM_FIELDS if k in item}


def normalize_evidence(items: Any) -> list[dict]:
    """Any value that is not a list (None included) is an empty list, as in the reference; items that
    are not mappings, or have no filename, are dropped."""
    if not isinstance(items, (list, tuple)):
        return []
    return [n for n in (normalize_evidence_item(i) for i in items) if n is not None]


def _whitelist(trace: Mapping[str, Any], fields: Iterable[str]) -> dict:
    kept = {k: trace[k] for k in fields if k in trace}
    for key in CHUNK_LIST_FIELDS & kept.keys():
        kept[key] = normalize_evidence(kept[key])
    return kept


def _validated(schema: type[BaseModel], data: dict, where: str) -> dict:
    try:
        return schema.model_validate(data).model_dump(exclude_none=True)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err.get('loc', ())) or '(trace)'}: {err.get('msg')}"
            for err in exc.errors(include_url=False)[:6]
        )
        raise InvalidTraceError(_("invalid {where}: {problems}").format(where=where, problems=problems)) from None


def normalize_rag_sub_trace(trace: Any) -> Optional[dict]:
    """A sub-trace's client view; None for a missing, non-mapping or empty one."""
    if not isinstance(trace, Mapping) or not trace:
        return None
    return _validated(RagSubTrace, _whitelist(trace, RagSubTrace.model_fields), "sub-trace")


def normalize_rag_trace(trace: Any) -> Optional[dict]:
    """Return the client view of a raw trace, as the reference's `normalize_rag_trace` does.

    - None for a missing, non-mapping or EMPTY trace (there is no trace yet), never `{}`;
    - only the protocol fields are kept (raw-only keys such as `rewrite_error` are dropped), then
      validated and coerced by the typed schema (`RagTrace`): "8" becomes 8 where the field is an
      int, and a wrong type (an unknown `rewrite_method`, text in a count) raises
      `InvalidTraceError`, a `ValueError` naming the fields;
    - evidence lists keep items with a filename, each with its 6 fields; a chunk list that is not a
      list (None included) becomes [];
    - `sub_traces` are normalized the same way (a non-list is []), cannot nest further, and empty or
      non-mapping ones are dropped;
    - None values are dropped; false, 0, "" and [] are kept, so "absent", "null in the raw state"
      and "[]" stay distinguishable.
    """
    if not isinstance(trace, Mapping) or not trace:
        return None
    kept = _whitelist(trace, RagTrace.model_fields)
    if "sub_traces" in kept:
        subs = kept["sub_traces"] if isinstance(kept["sub_traces"], (list, tuple)) else []
        kept["sub_traces"] = [n for n in (normalize_rag_sub_trace(t) for t in subs) if n is not None]
    return _validated(RagTrace, kept, "rag_trace")
