"""Where the gold was lost: follow a case's gold chunks through the stages one retrieval trace
records and name the first stage that lost them.

Why pure functions over the trace (and the knowledge base's chunk list): the same rule then reads
a retrieval-only pass, a recorded run and a hand-made trace in a table test, and nothing here
runs a search. The stages are the pipeline's order (rag/retrieval/pipeline.py):

    not_in_kb · sparse · dense · fusion · merge · rerank · top_k · threshold · kept

- `not_in_kb`: a gold passage matches no chunk of the knowledge base (the set is wrong, not the
  retrieval: reported as such, never counted as a plain miss).
- `sparse` / `dense`: no recall leg ranked any gold leaf among its candidate_k. The stage named
  is the LAST leg that ran (sparse-only: `sparse`; hybrid: `dense`, the leg meant to catch what
  BM25 misses; a failed retrieval ran no leg and counts as `sparse`).
- `fusion`: a leg found it, but RRF's cut at candidate_k dropped it.
- `merge`: auto-merge replaced it by a parent that was then cut.
- `rerank`: a rerank (HTTP or local re-score) ordered it below top_k; `top_k`: the same cut in
  plain score order (no rerank ran).
- `threshold`: cut by RAG_MIN_SCORE.
- `kept`: in the final list, with its 1-based rank.

A case with several gold items is `kept` when any item is kept (at its best rank); otherwise a gold
item missing from the knowledge base makes it `not_in_kb`; otherwise it is the stage the gold
got furthest before being lost.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence

from rag.retrieval.explain import EXPLAIN_KEY
from rag.retrieval.explain import RECALL_LEGS_KEY as LEGS_KEY

STAGES = ("not_in_kb", "sparse", "dense", "fusion", "merge", "rerank", "top_k", "threshold", "kept")
CHUNK_PREFIX = "chunk:"


def collapse(text: str) -> str:
    """Whitespace collapsed to single spaces, so a passage copied from a rendered page matches."""
    return re.sub(r"\s+", " ", text or "").strip()


def file_name(path: str) -> str:
    return str(path).replace("\\", "/").rsplit("/", 1)[-1].lower()


@dataclass(frozen=True)
class GoldItem:
    """One thing the case says the right evidence contains: `key` is how the set names it
    (`chunk:<id>`, a passage, or `file:<name>`); `covers` the chunk ids (leaves and their
    ancestors) that count as finding it. Empty `covers`: not in the knowledge base."""

    key: str
    covers: frozenset[str]

    @property
    def in_kb(self) -> bool:
        return bool(self.covers)


class GoldIndex:
    """The knowledge base's chunks indexed once for gold lookups (children, ancestors, collapsed
    text, leaves per file): resolving a case's gold must not rescan a large corpus per case."""

    def __init__(self, chunks: Iterable):
        self.chunks = list(chunks)
        self.by_id = {c.chunk_id: c for c in self.chunks}
        self.children: dict[str, list[str]] = {}
        for c in self.chunks:
            if c.parent_id:
                self.children.setdefault(c.parent_id, []).append(c.chunk_id)
        self.texts = [(c, collapse(c.text)) for c in self.chunks]
        self.by_file: dict[str, set[str]] = {}
        for c in self.chunks:
            if c.chunk_id not in self.children:
                self.by_file.setdefault(file_name(c.filename), set()).add(c.chunk_id)

    def leaves_under(self, cid: str) -> set[str]:
        kids = self.children.get(cid)
        if not kids:
            return {cid}
        out: set[str] = set()
        for k in kids:
            out |= self.leaves_under(k)
        return out

    def covering(self, leaves: set[str]) -> frozenset[str]:
        out = set(leaves)
        for leaf in leaves:
            pid = self.by_id[leaf].parent_id if leaf in self.by_id else None
            while pid and pid not in out:
                out.add(pid)
                pid = self.by_id[pid].parent_id if pid in self.by_id else None
        return frozenset(out)

    def passage(self, passage: str) -> GoldItem:
        if passage.startswith(CHUNK_PREFIX):
            cid = passage[len(CHUNK_PREFIX):].strip()
            leaves = self.leaves_under(cid) if cid in self.by_id else set()
        else:
            needle = collapse(passage)
            matches = [c for c, text in self.texts if needle and needle in text]
            deepest = max((c.level for c in matches), default=None)
            leaves = set()
            for c in matches:
                if c.level == deepest:
                    leaves |= self.leaves_under(c.chunk_id)
        return GoldItem(passage, self.covering(leaves))

    def source(self, source: str) -> GoldItem:
        return GoldItem(f"file:{source}", self.covering(self.by_file.get(file_name(source), set())))

    def resolve(self, passages: Sequence[str], sources: Sequence[str]) -> list[GoldItem]:
        return [*(self.passage(p) for p in passages), *(self.source(s) for s in sources)]


def resolve_gold(passages: Sequence[str], sources: Sequence[str], chunks: Iterable) -> list[GoldItem]:
    """Each `expected_passages` entry and each `expected_sources` file as a gold item.

    `chunks` are the knowledge base's chunk records (any object with chunk_id, parent_id, level,
    filename, text). A passage's leaves are the leaves whose text contains it; a passage that
    spans leaves matches the smallest parents containing it and takes their leaves. An item is
    covered by its leaves and every ancestor of them (a merged parent carries the leaf's text).
    Many cases on one knowledge base: build a `GoldIndex` once and call its `resolve`."""
    return GoldIndex(chunks).resolve(passages, sources)


@dataclass(frozen=True)
class LostAt:
    stage: str
    rank: Optional[int] = None
    missing: tuple[str, ...] = ()
    """Gold items that match no chunk of the knowledge base (named per case)."""


def _item_stage(item: GoldItem, trace: Mapping, final_ids: Sequence[str]) -> tuple[str, Optional[int]]:
    if not item.in_kb:
        return "not_in_kb", None
    for rank, cid in enumerate(final_ids, 1):
        if cid in item.covers:
            return "kept", rank
    rows = [r for r in trace.get(EXPLAIN_KEY) or [] if not r.get("from_merge")]
    parents = {r.get("chunk_id"): r for r in trace.get(EXPLAIN_KEY) or [] if r.get("from_merge")}
    legs: Mapping[str, Sequence[str]] = trace.get(LEGS_KEY) or {}
    gold_rows = [r for r in rows if r.get("chunk_id") in item.covers]
    if not gold_rows:
        if any(cid in item.covers for ids in legs.values() for cid in ids):
            return "fusion", None
        return ("dense" if "dense" in legs else "sparse"), None
    cut_by = "rerank" if trace.get("rerank_applied") else "top_k"
    best = "sparse"
    for r in gold_rows:
        outcome = r.get("outcome")
        if outcome == "merged into parent":
            parent = parents.get(r.get("merged_into")) or {}
            stage = "kept" if parent.get("outcome") == "kept" else "merge"
        elif outcome == "kept":
            stage = "kept"
        elif outcome == "cut by threshold":
            stage = "threshold"
        else:
            stage = cut_by
        if STAGES.index(stage) > STAGES.index(best):
            best = stage
    return best, None


def lost_at(items: Sequence[GoldItem], trace: Mapping, final_ids: Sequence[str]) -> Optional[LostAt]:
    """The stage where the case's gold was lost (None when the case names no gold). `trace` holds
    the raw retrieval fields (`retrieval_candidates`, `retrieval_recall_legs`, `rerank_applied`);
    `final_ids` the chunk ids the retrieval returned, in order."""
    if not items:
        return None
    per = [_item_stage(i, trace, final_ids) for i in items]
    missing = tuple(i.key for i in items if not i.in_kb)
    kept = [rank for stage, rank in per if stage == "kept" and rank is not None]
    if kept:
        return LostAt("kept", min(kept), missing)
    if missing:
        return LostAt("not_in_kb", None, missing)
    return LostAt(max((s for s, _ in per), key=STAGES.index), None, missing)


def funnel(stages: Iterable[Optional[str]]) -> dict[str, int]:
    """stage -> number of cases, every stage present (0 included) and in pipeline order."""
    out = dict.fromkeys(STAGES, 0)
    for s in stages:
        if s is not None:
            out[s] += 1
    return out


def format_funnel(counts: Mapping[str, int]) -> str:
    """The CLI's script line: `lost_at: not_in_kb=N sparse=N ... kept=N`."""
    return "lost_at: " + " ".join(f"{s}={counts.get(s, 0)}" for s in STAGES)


def stage_rankings(trace: Mapping, final_ids: Sequence[str]) -> dict[str, list[str]]:
    """The ranked chunk ids at each stage, for the metrics: each recall leg, after fusion
    (candidate_k), after merge, after rerank/top_k (before the threshold) and the final list."""
    rows = list(trace.get(EXPLAIN_KEY) or [])
    legs: Mapping[str, Sequence[str]] = trace.get(LEGS_KEY) or {}
    out: dict[str, list[str]] = {leg: list(legs[leg]) for leg in ("sparse", "dense") if leg in legs}
    out["fusion"] = [r["chunk_id"] for r in rows if not r.get("from_merge")]
    merged = sorted((r for r in rows if r.get("rrf_rank") is not None), key=lambda r: r["rrf_rank"])
    out["merge"] = [r["chunk_id"] for r in merged]
    survivors = [r for r in merged if r.get("outcome") in ("kept", "cut by threshold")]
    if trace.get("rerank_applied"):
        survivors.sort(key=lambda r: -(r.get("rerank_score") or 0.0))
    out["top_k"] = [r["chunk_id"] for r in survivors]
    out["final"] = list(final_ids)
    return out


__all__ = ["STAGES", "GoldItem", "GoldIndex", "LostAt", "resolve_gold", "lost_at", "funnel", "format_funnel",
           "stage_rankings", "collapse"]
