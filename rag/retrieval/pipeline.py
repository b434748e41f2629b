"""The part of the retrieval pipeline that every backend shares, after its own recall:
auto-merge → rrf_rank → rerank (HTTP) or score order → top_k → min-score threshold, and the
assembly of the 25 retrieval trace fields.

Why one module: the embedded, Milvus and LangChain backends differ only in how they recall
candidates. Everything after recall (and every field the trace records) must be identical, so a
run's trace means the same thing whichever backend ran; the pure rules live in `stages.py`.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from rag.ingest.models import LEAF_LEVEL
from rag.redaction import redact_url
from rag.retrieval.explain import EXPLAIN_KEY, LEGS_KEY, RECALL_LEGS_KEY, explain_candidates
from rag.retrieval.rerank import call_rerank, rerank_config
from rag.retrieval.stages import apply_min_score, auto_merge, resolve_candidate_k, score_order
from rag.schemas import Chunk, RetrievalResult
from rag.settings import RagSettings
from rag.trace import RETRIEVAL_FIELDS

PIPELINE = "recall_merge_rerank"
ParentLookup = Callable[[str], Optional[dict]]


def base_fields(settings: RagSettings) -> dict[str, Any]:
    """All 25 retrieval fields with their parameter values and zero counts (before recall)."""
    fields = dict.fromkeys(RETRIEVAL_FIELDS)
    top_k = settings.top_k
    cand_k, source, error = resolve_candidate_k(top_k, settings.candidate_k, settings.candidate_multiplier)
    rr = rerank_config(settings)
    fields.update(
        retrieval_pipeline=PIPELINE, candidate_k=cand_k, candidate_k_source=source,
        candidate_k_config_error=error, retrieval_candidate_multiplier=settings.candidate_multiplier,
        retrieval_top_k=top_k, leaf_retrieve_level=LEAF_LEVEL, auto_merge_enabled=settings.auto_merge_enabled,
        auto_merge_applied=False, auto_merge_threshold=settings.auto_merge_threshold,
        auto_merge_replaced_chunks=0, auto_merge_steps=0, rerank_enabled=rr is not None, rerank_applied=False,
        rerank_model=rr.model if rr else None, rerank_endpoint=redact_url(rr.endpoint) if rr else None,
        rerank_timeout_seconds=settings.rerank_timeout_seconds, rerank_min_score=settings.min_score,
        recall_count=0, post_merge_candidate_count=0, candidate_count=0, post_rerank_count=0,
        post_threshold_count=0,
    )
    return fields


def record_mode(fields: dict, mode: Optional[str], errors: Iterable[str] = ()) -> None:
    """Set `retrieval_mode`; the reasons of any non-hybrid mode go to `retrieval_error` (an extra
    raw-trace key: the 25 protocol fields have no slot for it)."""
    fields["retrieval_mode"] = mode
    errors = [e for e in errors if e]
    if errors and mode != "hybrid":
        fields["retrieval_error"] = "; ".join(errors)


def failed_result(settings: RagSettings, error: str) -> RetrievalResult:
    fields = base_fields(settings)
    record_mode(fields, "failed", [error])
    return RetrievalResult(chunks=[], trace_fields=fields)


Rescorer = Callable[[str, list[dict]], list[float]]


def finish(query: str, docs: list[dict], fields: dict, settings: RagSettings,
           parents: Optional[ParentLookup] = None, rescorer: Optional[Rescorer] = None) -> RetrievalResult:
    """Run merge → rerank → threshold on recalled candidates (dicts with Chunk fields, best
    first) and fill the count fields. `parents` gives a parent chunk's dict by id (None: no
    docstore, so auto-merge cannot apply and says so by `auto_merge_applied` false)."""
    fields["recall_count"] = len(docs)
    legs = fields.pop(LEGS_KEY, None)
    recalled = list(docs)
    replaced: list[str] = []
    if settings.auto_merge_enabled and docs and parents is not None:
        docs, replaced, steps = auto_merge(docs, parents, settings.auto_merge_threshold)
        fields.update(auto_merge_applied=bool(replaced), auto_merge_replaced_chunks=len(replaced),
                      auto_merge_steps=steps)
    for rank, d in enumerate(docs, 1):
        d["rrf_rank"] = rank
    merged = list(docs)
    fields["post_merge_candidate_count"] = fields["candidate_count"] = len(docs)
    docs = rerank(query, docs, fields, settings, rescorer)
    reranked = list(docs)
    fields["post_rerank_count"] = len(docs)
    docs = apply_min_score(docs, settings.min_score)
    fields["post_threshold_count"] = len(docs)
    if recalled:  # debugger-side detail: a raw key the normalized trace drops (rag/retrieval/explain.py)
        fields[EXPLAIN_KEY] = explain_candidates(recalled, merged, replaced, reranked, docs, legs, parents)
        # Each leg's own ranking, for `rag.eval.lost_at` (a gold chunk a leg found but fusion cut).
        fields[RECALL_LEGS_KEY] = {leg: list(ids) for leg, ids in (legs or {}).items()}
    return RetrievalResult(chunks=[Chunk(**d) for d in docs], trace_fields=fields)


def rerank(query: str, docs: list[dict], fields: dict, settings: RagSettings,
           rescorer: Optional[Rescorer] = None) -> list[dict]:
    """HTTP rerank when configured; else the optional local re-score (`RAG_LOCAL_RESCORE`) from the
    stored vectors; else (or on any error, recorded) score order; top_k."""
    top_k = settings.top_k
    config = rerank_config(settings)
    if config is None:
        if settings.local_rescore and rescorer is not None and docs:
            return _local_rescore(query, docs, fields, settings, rescorer)
        return score_order(docs)[:top_k]
    if not docs:
        return []
    assert settings.rerank_api_key is not None  # rerank_config gave a config: the key is set
    order, error = call_rerank(config, settings.rerank_api_key.get_secret_value(), query,
                               [d["text"] for d in docs], top_k)
    if error is not None or order is None:
        fields["rerank_error"] = error or "rerank reply empty"
        return score_order(docs)[:top_k]
    fields["rerank_applied"] = True
    return [{**docs[i], "rerank_score": score} for i, score in order[:top_k]]


def _local_rescore(query: str, docs: list[dict], fields: dict, settings: RagSettings,
                   rescorer: Rescorer) -> list[dict]:
    """Re-order the fused candidates by the query's cosine similarity to their stored vectors: a
    second opinion that costs no model call and no network (no cross-encoder ships in a package)."""
    fields.update(rerank_enabled=True, rerank_model=getattr(rescorer, "model", "local-rescore"))
    try:
        scores = list(rescorer(query, docs))
        if len(scores) != len(docs):
            raise ValueError(f"{len(scores)} scores for {len(docs)} candidates")
    except Exception as exc:  # noqa: BLE001 - any failure falls back to score order, recorded
        fields["rerank_error"] = f"local re-score failed: {type(exc).__name__}: {exc}"
        return score_order(docs)[: settings.top_k]
    fields["rerank_applied"] = True
    ranked = sorted(range(len(docs)), key=lambda i: -scores[i])
    return [{**docs[i], "rerank_score": float(scores[i])} for i in ranked[: settings.top_k]]
