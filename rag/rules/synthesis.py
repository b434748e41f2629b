"""Synthesis of sub-question results (docs/workflow.md §3.10, §5.6)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

USABLE_STATUSES = frozenset({"answerable", "partial"})


def chunk_key(chunk: Mapping[str, Any]) -> str:
    """The chunk id, else filename|page|text: the same chunk found by two sub-questions is one chunk."""
    cid = chunk.get("chunk_id")
    if cid:
        return f"id:{cid}"
    return f"{chunk.get('filename')}|{chunk.get('page_number')}|{chunk.get('text')}"


def _better(a: Any, b: Any) -> bool:
    return b is not None and (a is None or b > a)


def dedupe_chunks(chunks: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Keep first occurrences in order; a duplicate lends its better score to the first copy;
    `rrf_rank` is renumbered 1.. afterwards."""
    out: list[dict] = []
    index: dict[str, int] = {}
    for chunk in chunks:
        key = chunk_key(chunk)
        if key in index:
            first = out[index[key]]
            if _better(first.get("score"), chunk.get("score")):
                first["score"] = chunk.get("score")
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


def synthesize(sub_results: list[Mapping[str, Any]]) -> dict[str, Any]:
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
    hitl = [r for r in sub_results if r.get("route") in ("clarify", "scope_select")]
    out.update(relevance="none", answerability="none")
    if hitl:
        selects = [r for r in hitl if r.get("route") == "scope_select"]
        chosen = selects or hitl
        route = "scope_select" if selects else "clarify"
        traces = [r.get("rag_trace") or {} for r in chosen]
        out.update(
            route=route,
            retrieval_status="needs_scope_selection" if selects else "needs_clarification",
            hitl_prompt="\n".join(unique_texts(t.get("hitl_prompt", "") for t in traces)),
            hitl_options=unique_texts(o for t in traces for o in (t.get("hitl_options") or [])),
        )
        return out
    out.update(route="no_knowledge", retrieval_status="no_knowledge")
    return out
