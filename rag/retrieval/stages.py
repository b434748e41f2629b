"""The pure rules of the retrieval pipeline: candidate_k, reciprocal rank fusion, auto-merge,
score-order fallback and the min-score threshold. No I/O here, so each rule is tested alone.

Candidates are plain dicts with at least chunk_id, parent_id, level, score (a Chunk's fields).
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional


def resolve_candidate_k(top_k: int, explicit: Optional[str], multiplier: int) -> tuple[int, str, Optional[str]]:
    """(candidate_k, source, config_error), as the reference resolves it: an explicit integer wins
    but never goes below top_k (source `env`); no value, or one that is not an integer, gives
    top_k x multiplier (source `multiplier`). Recall must never ask for fewer candidates than the
    answer keeps.

    Deviation, on purpose: the reference clamps a value below top_k silently; here the clamp is
    also written to `candidate_k_config_error`, so the trace says why candidate_k is not the
    configured number."""
    raw = (explicit or "").strip() if explicit is not None else ""
    fallback = max(top_k * multiplier, top_k)
    if not raw:
        return fallback, "multiplier", None
    try:
        value = int(raw)
    except ValueError:
        return fallback, "multiplier", f"RAG_CANDIDATE_K={raw!r} is not an integer; using top_k x multiplier"
    if value < top_k:
        return top_k, "env", f"RAG_CANDIDATE_K={value} is below top_k={top_k}; clamped to top_k"
    return value, "env", None


def rrf_fuse(rankings: Iterable[list[str]], k: int = 60, limit: Optional[int] = None) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(d) = sum over lists of 1 / (k + rank), rank 1-based. Ties keep
    first-seen order, so fusion is deterministic."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    fused = sorted(scores.items(), key=lambda kv: -kv[1])  # stable sort keeps first-seen order on ties
    return fused[:limit] if limit is not None else fused


def merge_one_level(
    docs: list[dict], parents: Callable[[str], Optional[dict]], threshold: int
) -> tuple[list[dict], list[str]]:
    """Replace >= threshold siblings by their parent. The parent takes the FIRST child's place and
    the BEST child score; returns the new list and the ids of the replaced children."""
    groups: dict[str, list[dict]] = {}
    for d in docs:
        pid = d.get("parent_id")
        if pid:
            groups.setdefault(pid, []).append(d)
    merge = {}
    for pid, children in groups.items():
        if len(children) >= threshold:
            parent = parents(pid)
            if parent is not None and (parent.get("text") or "").strip():
                merge[pid] = parent
    if not merge:
        return docs, []
    out: list[dict] = []
    placed: set[str] = set()
    replaced: list[str] = []
    for d in docs:
        pid = d.get("parent_id")
        if pid in merge:
            replaced.append(d["chunk_id"])
            if pid not in placed:
                placed.add(pid)
                best = max((c.get("score") or 0.0) for c in groups[pid])
                out.append({**merge[pid], "score": best})
            continue
        out.append(d)
    return out, replaced


def auto_merge(
    docs: list[dict], parents: Callable[[str], Optional[dict]], threshold: int
) -> tuple[list[dict], list[str], int]:
    """Two passes, L3→L2 then L2→L1. Returns (docs, replaced chunk ids, passes that merged)."""
    replaced: list[str] = []
    steps = 0
    for _ in range(2):
        docs, done = merge_one_level(docs, parents, threshold)
        if done:
            steps += 1
            replaced.extend(done)
    return docs, replaced, steps


def score_order(docs: list[dict]) -> list[dict]:
    """The no-rerank / rerank-fallback order: best score first (stable)."""
    return sorted(docs, key=lambda d: -(d["score"] if d.get("score") is not None else float("-inf")))


def effective_score(doc: dict) -> Optional[float]:
    return doc["rerank_score"] if doc.get("rerank_score") is not None else doc.get("score")


def apply_min_score(docs: list[dict], min_score: Optional[float]) -> list[dict]:
    """Applied last, to the rerank score when there is one, else to the fused score."""
    if min_score is None:
        return docs
    return [d for d in docs if (score := effective_score(d)) is not None and score >= min_score]
