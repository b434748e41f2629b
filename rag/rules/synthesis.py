"""Synthesis of sub-question results (docs/workflow.md §3.10, §5.6)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

from rag.rules.hitl import is_hitl_result

USABLE_STATUSES = frozenset({"answerable", "partial"})
#: The reference joins the prompts of several HITL sub-results with a full-width semicolon.
HITL_PROMPT_SEPARATOR = "；"


def chunk_key(chunk: Mapping[str, Any]) -> str:
    """The chunk id, else filename|page|text: the same chunk found by two sub-questions is one chunk."""
    cid = str(chunk.get("chunk_id") or "").strip()
    if cid:
        return f"id:{cid}"
    return f"{chunk.get('filename')}|{chunk.get('page_number')}|{chunk.get('text')}"


def effective_score(chunk: Mapping[str, Any]) -> Optional[float]:
    """The score a chunk ranks by: its rerank score when it has one, else its retrieval score."""
    if chunk.get("rerank_score") is not None:
        return float(chunk["rerank_score"])
    if chunk.get("score") is not None:
        return float(chunk["score"])
    return None


def keep_better_score(first: dict, duplicate: Mapping[str, Any]) -> None:
    """Give `first` the better effective score of the two copies (SPEC 5, de-duplication): when
    either copy has a rerank score, `rerank_score` becomes the max of the two effective scores;
    otherwise `score` takes the max. A duplicate without any score changes nothing."""
    incoming = effective_score(duplicate)
    if incoming is None:
        return
    if first.get("rerank_score") is not None or duplicate.get("rerank_score") is not None:
        mine = effective_score(first)
        first["rerank_score"] = incoming if mine is None else max(mine, incoming)
        return
    mine = first.get("score")
    first["score"] = incoming if mine is None else max(float(mine), incoming)


def dedupe_chunks(chunks: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Keep first occurrences in order; a duplicate lends its better effective score to the first
    copy; `rrf_rank` is renumbered 1.. afterwards (the merged list is a new ranking)."""
    out: list[dict] = []
    index: dict[str, int] = {}
    for chunk in chunks:
        key = chunk_key(chunk)
        if key in index:
            keep_better_score(out[index[key]], chunk)
            continue
        index[key] = len(out)
        out.append(dict(chunk))
    for rank, chunk in enumerate(out, start=1):
        chunk["rrf_rank"] = rank
    return out


def unique_texts(items: Iterable[str]) -> list[str]:
    """Stripped, non-empty, first occurrence kept: for prompts, options and sub-questions."""
    seen: dict[str, None] = {}
    for item in items:
        item = (item or "").strip()
        if item and item not in seen:
            seen[item] = None
    return list(seen)


def synthesize(sub_results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Decide the parent outcome from the sub-results, with no model call.

    Returns docs, merged_count (before de-duplication), route, retrieval_status, relevance,
    answerability, hitl_prompt and hitl_options.
    """
    usable = [r for r in sub_results if r.get("retrieval_status") in USABLE_STATUSES]
    merged = [c for r in usable for c in (r.get("docs") or [])]
    docs = dedupe_chunks(merged)
    out: dict[str, Any] = {"docs": docs, "merged_count": len(merged), "hitl_prompt": "", "hitl_options": []}
    if docs:
        partial = any(r.get("retrieval_status") == "partial" for r in usable)
        out.update(
            route="answer",
            retrieval_status="partial" if partial else "answerable",
            relevance="strong",
            answerability="partial" if partial else "sufficient",
        )
        return out
    hitl = [r for r in sub_results if is_hitl_result(r)]
    out.update(relevance="none", answerability="none")
    if hitl:
        select = any(_needs_scope_selection(r) for r in hitl)
        traces = [r.get("rag_trace") or {} for r in hitl]
        out.update(
            route="scope_select" if select else "clarify",
            retrieval_status="needs_scope_selection" if select else "needs_clarification",
            # ALL HITL sub-results, whichever kind each one was (SPEC 5, "Synthesis HITL").
            hitl_prompt=HITL_PROMPT_SEPARATOR.join(unique_texts(t.get("hitl_prompt") or "" for t in traces)),
            hitl_options=unique_texts(o for t in traces for o in (t.get("hitl_options") or [])),
        )
        return out
    out.update(route="no_knowledge", retrieval_status="no_knowledge")
    return out


def _needs_scope_selection(result: Mapping[str, Any]) -> bool:
    trace = result.get("rag_trace") or {}
    route = result.get("route") or trace.get("route")
    status = result.get("retrieval_status") or trace.get("retrieval_status")
    return route == "scope_select" or status == "needs_scope_selection"
