"""Why a chunk is in or out of a retrieval: one row per recalled candidate with its rank in each
recall leg, its fused RRF score, whether auto-merge replaced it (by which parent), its rerank score,
and what cut it (top-k or the min-score threshold).

Why a raw trace key (`retrieval_candidates`) and not protocol fields: the 25 retrieval fields are
the reference's contract and stay as they are; this is debugger-side detail that
`normalize_rag_trace` drops with the other raw-only keys. Pure functions of the pipeline's lists.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping, Optional

EXPLAIN_KEY = "retrieval_candidates"
LEGS_KEY = "_recall_legs"
"""Where a backend leaves {leg name: [chunk ids, best first]} for `finish` (popped there)."""
RECALL_LEGS_KEY = "retrieval_recall_legs"
"""The raw trace key `finish` keeps those rankings under (dropped by the normalized trace, like EXPLAIN_KEY)."""
OUTCOMES = ("kept", "cut by top-k", "cut by threshold", "merged into parent")


def leg_ranks(legs: Mapping[str, Iterable[str]]) -> dict[str, dict[str, int]]:
    """{chunk id: {"sparse_rank": 1, "dense_rank": 4}} (1-based) from each leg's ranking."""
    out: dict[str, dict[str, int]] = {}
    for leg, ids in legs.items():
        for rank, cid in enumerate(ids, 1):
            out.setdefault(cid, {}).setdefault(f"{leg}_rank", rank)
    return out


def explain_candidates(recalled: list[dict], merged: list[dict], replaced: Iterable[str], reranked: list[dict],
                       kept: list[dict], legs: Optional[Mapping[str, Iterable[str]]] = None,
                       parents: Optional[Callable[[str], Optional[dict]]] = None) -> list[dict]:
    """One row per recalled candidate (in recall order), then one per parent auto-merge brought in.

    `recalled`: the fused candidates (score = RRF score); `merged`: after auto-merge (in rrf_rank
    order); `reranked`: after rerank and top-k; `kept`: after the threshold."""
    ranks = leg_ranks(legs or {})
    replaced = set(replaced)
    by_parent = {d.get("chunk_id") for d in merged}
    after_rerank = {d.get("chunk_id"): d for d in reranked}
    kept_ids = {d.get("chunk_id") for d in kept}
    rrf_rank = {d.get("chunk_id"): i for i, d in enumerate(merged, 1)}

    def row(d: dict, *, merged_into: Optional[str] = None, via_merge: bool = False) -> dict:
        cid = d.get("chunk_id")
        r = after_rerank.get(cid, {})
        if merged_into:
            outcome = "merged into parent"
        elif cid in kept_ids:
            outcome = "kept"
        elif cid in after_rerank:
            outcome = "cut by threshold"
        else:
            outcome = "cut by top-k"
        return {
            "chunk_id": cid, "filename": d.get("filename"), "page_number": d.get("page_number"),
            "level": d.get("level"), **{k: (ranks.get(cid, {}) if cid is not None else {}).get(k)
                                        for k in ("sparse_rank", "dense_rank")},
            "rrf_score": None if via_merge else d.get("score"), "merged_into": merged_into,
            "from_merge": via_merge, "rrf_rank": None if merged_into else rrf_rank.get(cid),
            "rerank_score": r.get("rerank_score"), "outcome": outcome,
        }

    rows = []
    for d in recalled:
        cid = d.get("chunk_id")
        rows.append(row(d, merged_into=_top_parent(d, merged, parents) if cid in replaced else None))
    recalled_ids = {d.get("chunk_id") for d in recalled}
    for d in merged:
        if d.get("chunk_id") not in recalled_ids and d.get("chunk_id") in by_parent:
            rows.append(row(d, via_merge=True))
    return rows


def _top_parent(child: dict, merged: list[dict], parents: Optional[Callable[[str], Optional[dict]]]) -> Optional[str]:
    """The parent that holds a replaced child's place in the final list: its direct parent, or an
    ancestor when the parent itself was merged again (L3 -> L2 -> L1)."""
    present = {d.get("chunk_id") for d in merged}
    pid = child.get("parent_id")
    seen = set()
    while pid and pid not in present and parents is not None and pid not in seen:
        seen.add(pid)
        parent = parents(pid)
        pid = parent.get("parent_id") if parent else None
    return pid if pid in present else child.get("parent_id")
