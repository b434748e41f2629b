"""The retrieval seam: the one interface the graph calls as `search_knowledge_base`.

A retriever returns chunks plus the retrieval parameter / count fields of the trace. Backends
(embedded hybrid, Milvus, any LangChain retriever, a test fake) implement `Retriever.search`.
"""
from __future__ import annotations

from typing import Any, Optional, Protocol, Sequence, runtime_checkable

from pydantic import BaseModel, Field

from rag.schemas import RetrievalResult


class CorpusStats(BaseModel):
    """How common the words of a text are in the knowledge base: `df[token]` is the number of
    indexed chunks holding the token (0: the corpus never uses it), out of `documents`. Tokens are
    the sparse leg's (lower-cased words, jieba words). A token absent from `df` is unknown, not 0."""

    documents: int = Field(0, ge=0)
    df: dict[str, int] = Field(default_factory=dict)
    #: chunk id -> whether BOTH recall legs rank the chunk (or one of its leaves) among their first
    #: `candidate_k` for the text: two independent kinds of evidence agreeing (empty without a dense leg).
    both_legs: dict[str, bool] = Field(default_factory=dict)


def corpus_stats_of(retriever: Any, text: str, chunk_ids: Sequence[Optional[str]] = ()) -> Optional[CorpusStats]:
    """The optional `corpus_stats(text, chunk_ids)` capability of a retriever (the embedded one has
    it; a LangChain or Milvus backend need not). Never raises: statistics are a hint for the
    judge, and a run must not fail for want of them. Missing ids (a chunk without one) are dropped."""
    fn = getattr(retriever, "corpus_stats", None)
    if not callable(fn):
        return None
    try:
        stats = fn(text, [c for c in chunk_ids if c])
        return stats if stats is None or isinstance(stats, CorpusStats) else CorpusStats.model_validate(stats)
    except Exception:  # noqa: BLE001 - a hint, not a requirement
        return None


@runtime_checkable
class Retriever(Protocol):
    #: A short name recorded with the run ("embedded", "milvus", "langchain:<cls>", ...).
    name: str

    def search(self, query: str) -> RetrievalResult:
        """Search the knowledge base. May raise; the graph records the error and treats the
        retrieval as failed (`retrieval_mode` "failed") instead of crashing."""
        ...
