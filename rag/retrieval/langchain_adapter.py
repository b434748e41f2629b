"""Bring your own LangChain retriever (Chroma, PGVector, Elasticsearch, an EnsembleRetriever, your
own `BaseRetriever`) behind our `Retriever` protocol.

The wrapped retriever does the recall; everything after it is ours and identical to the embedded
backend (`pipeline.finish`: auto-merge, rrf_rank, HTTP rerank or score order, top_k, min score),
so the trace has the same 25 fields with the same meaning. What we cannot know, we do not invent:

- `retrieval_mode`: declared by the caller (`mode=`), else inferred for the retrievers whose recall
  we know (`EnsembleRetriever` → hybrid; a vector store's retriever → dense_fallback, i.e. dense
  only; BM25 / TF-IDF → sparse_only, each with the reason in `retrieval_error`); for any other
  retriever it is None (unknown: absent from the normalized trace) rather than a guess.
  A retriever that raises gives "failed" with the error.
- `candidate_k`: LangChain retrievers pick their own k (`search_kwargs={"k": ...}`); we cap what
  they return at candidate_k, so set their k >= candidate_k. `recall_count` is what they returned
  (after the cap).
- `score`: a Document's `metadata["score"]` (or `relevance_score` / `similarity_score`) when the
  retriever puts one there; otherwise the reciprocal-rank score 1/(rrf_k + rank) of its single
  ranked list, the same scale as the embedded backend's fused scores, so `min_score` means the
  same thing. A retriever's own scores may be on another scale: set `min_score` accordingly.
- Auto-merge needs parents' text: pass `parents=` (chunk id → dict with text/filename/level/...),
  e.g. `KnowledgeBase.parent`, when the documents carry `chunk_id` / `parent_id` metadata;
  without it, `auto_merge_applied` stays false.
"""
from __future__ import annotations

import os
from typing import Any, Optional

from rag.retrieval.pipeline import ParentLookup, base_fields, failed_result, finish, record_mode
from rag.schemas import RetrievalMode, RetrievalResult
from rag.settings import RagSettings

SCORE_KEYS = ("score", "relevance_score", "similarity_score", "_score")
FILENAME_KEYS = ("filename", "source", "file_path", "path", "url")


def infer_mode(retriever: Any) -> tuple[Optional[str], Optional[str]]:
    """(mode, reason) for the retriever classes whose recall is known; (None, None) otherwise."""
    names = {cls.__name__ for cls in type(retriever).__mro__}
    if "EnsembleRetriever" in names:
        return "hybrid", None
    if "VectorStoreRetriever" in names:
        return "dense_fallback", f"{type(retriever).__name__} searches vectors only (no sparse leg)"
    if names & {"BM25Retriever", "TFIDFRetriever"}:
        return "sparse_only", f"{type(retriever).__name__} is a sparse retriever (no dense leg)"
    return None, None


def _int_or_none(value: Any) -> Optional[int]:
    try:
        return int(value) if value is not None and str(value).strip() != "" else None
    except (TypeError, ValueError):
        return None


def _float_or_none(value: Any) -> Optional[float]:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def document_to_chunk(doc: Any, rank: int, *, rrf_k: int = 60, page_base: int = 0) -> dict:
    """One LangChain `Document` as a candidate dict (Chunk fields). `page_base` is the base of
    `metadata["page"]`: 0 for LangChain's PDF loaders (PyPDFLoader, PyMuPDFLoader), which we turn
    1-based; `metadata["page_number"]` is taken as already 1-based."""
    meta = dict(getattr(doc, "metadata", None) or {})
    filename = next((str(meta[k]) for k in FILENAME_KEYS if meta.get(k)), "") or "(unknown source)"
    if meta.get("filename") is None and ("/" in filename or os.sep in filename) and "://" not in filename:
        filename = os.path.basename(filename) or filename
    page = _int_or_none(meta.get("page_number"))
    if page is None and (zero_based := _int_or_none(meta.get("page"))) is not None:
        page = zero_based + (1 - page_base)
    score = next((_float_or_none(meta[k]) for k in SCORE_KEYS if _float_or_none(meta.get(k)) is not None), None)
    return {
        "chunk_id": str(meta.get("chunk_id") or getattr(doc, "id", None) or "") or None,
        "filename": filename,
        "page_number": page,
        "text": getattr(doc, "page_content", "") or "",
        "score": score if score is not None else 1.0 / (rrf_k + rank),
        "parent_id": meta.get("parent_id"),
        "level": _int_or_none(meta.get("level")),
    }


class LangChainRetriever:
    """`Retriever` over any LangChain `BaseRetriever`; `name` is "langchain:<class name>"."""

    def __init__(self, retriever: Any, *, settings: RagSettings, mode: Optional[RetrievalMode] = None,
                 parents: Optional[ParentLookup] = None, page_base: int = 0):
        if not callable(getattr(retriever, "invoke", None)):
            raise TypeError(f"expected a LangChain BaseRetriever, got {type(retriever).__name__}")
        self.retriever = retriever
        self.settings = settings
        self.parents = parents
        self.page_base = page_base
        inferred, self._mode_reason = infer_mode(retriever)
        self.mode = mode or inferred
        if mode:
            self._mode_reason = None
        self.name = f"langchain:{type(retriever).__name__}"

    def search(self, query: str) -> RetrievalResult:
        fields = base_fields(self.settings)
        try:
            documents = list(self.retriever.invoke(query))
        except Exception as exc:  # any backend error: the trace says failed and why
            return failed_result(self.settings, f"{self.name} failed: {type(exc).__name__}: {exc}")
        record_mode(fields, self.mode, [self._mode_reason] if self._mode_reason else [])
        docs = [document_to_chunk(d, rank, rrf_k=self.settings.rrf_k, page_base=self.page_base)
                for rank, d in enumerate(documents[: fields["candidate_k"]], 1)]
        return finish(query, docs, fields, self.settings, self.parents)
