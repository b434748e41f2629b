"""The retrieval seam: the one interface the graph calls as `search_knowledge_base`.

A retriever returns chunks plus the retrieval parameter / count fields of the trace. Backends
(embedded hybrid, Milvus, any LangChain retriever, a test fake) implement `Retriever.search`.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from rag.schemas import RetrievalResult


@runtime_checkable
class Retriever(Protocol):
    #: A short name recorded with the run ("embedded", "milvus", "langchain:<cls>", ...).
    name: str

    def search(self, query: str) -> RetrievalResult:
        """Search the knowledge base. May raise; the graph records the error and treats the
        retrieval as failed (`retrieval_mode` "failed") instead of crashing."""
        ...
