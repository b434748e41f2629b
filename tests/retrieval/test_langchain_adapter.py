"""Any LangChain BaseRetriever behind our Retriever protocol: Documents become chunks, the 25
trace fields are filled with what is known, rerank / threshold / auto-merge are ours."""
from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from rag.retrieval.langchain_adapter import LangChainRetriever, document_to_chunk, infer_mode
from rag.retrieval.retriever import Retriever
from rag.trace import RETRIEVAL_FIELDS, normalize_rag_trace
from tests.retrieval.conftest import make_settings

DOCS = [
    Document(page_content="The kettle boils water in ninety seconds.",
             metadata={"source": "/srv/docs/kettle.pdf", "page": 0, "chunk_id": "k.0.0", "parent_id": "k.0", "level": 3}),
    Document(page_content="Descale the kettle monthly with citric acid.",
             metadata={"source": "/srv/docs/kettle.pdf", "page": 0, "chunk_id": "k.0.1", "parent_id": "k.0", "level": 3}),
    Document(page_content="The lamp dims to ten percent at night.", metadata={"filename": "lamp.md"}),
    Document(page_content="Warranty lasts two years.", metadata={"source": "warranty.txt", "page_number": 4}),
]


class ListRetriever(BaseRetriever):
    """Returns its documents in order; `fail` makes it raise like a backend that is down."""

    docs: list[Document]
    fail: bool = False
    calls: list[str] = []

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        self.calls.append(query)
        if self.fail:
            raise ConnectionError("vector store unreachable")
        return list(self.docs)


class ScoredRetriever(ListRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return [Document(page_content=d.page_content, metadata={**d.metadata, "score": s})
                for d, s in zip(self.docs, (0.2, 0.9, 0.5, 0.1), strict=False)]


def search(retriever, query="kettle", **overrides):
    return LangChainRetriever(retriever, settings=make_settings(**overrides)).search(query)


def test_documents_become_chunks_with_every_field_set():
    r = LangChainRetriever(ListRetriever(docs=DOCS), settings=make_settings(top_k=3, auto_merge_enabled=False))
    assert isinstance(r, Retriever) and r.name == "langchain:ListRetriever"
    res = r.search("kettle")
    f = res.trace_fields
    assert set(RETRIEVAL_FIELDS) <= set(f)
    assert f["retrieval_mode"] is None and "retrieval_error" not in f  # unknown recall: not guessed
    assert "retrieval_mode" not in normalize_rag_trace(f)
    assert f["retrieval_pipeline"] == "recall_merge_rerank" and f["leaf_retrieve_level"] == 3
    assert (f["candidate_k"], f["candidate_k_source"], f["retrieval_top_k"]) == (9, "multiplier", 3)
    assert f["recall_count"] == f["candidate_count"] == f["post_merge_candidate_count"] == 4
    assert f["post_rerank_count"] == f["post_threshold_count"] == 3
    first, third = res.chunks[0], res.chunks[2]
    assert (first.filename, first.page_number, first.chunk_id) == ("kettle.pdf", 1, "k.0.0")
    assert third.filename == "lamp.md" and third.page_number is None
    assert [c.rrf_rank for c in res.chunks] == [1, 2, 3]
    assert first.score == pytest.approx(1 / 61) and res.chunks[1].score == pytest.approx(1 / 62)


def test_metadata_scores_are_used_and_order_by_them():
    res = search(ScoredRetriever(docs=DOCS), top_k=2, auto_merge_enabled=False)
    assert [c.score for c in res.chunks] == [0.9, 0.5]
    assert [c.rrf_rank for c in res.chunks] == [2, 3]  # position in the retriever's own list


def test_candidate_k_caps_what_the_retriever_returned():
    f = search(ListRetriever(docs=DOCS), top_k=1, candidate_k="2", auto_merge_enabled=False).trace_fields
    assert (f["candidate_k"], f["candidate_k_source"], f["recall_count"]) == (2, "env", 2)


def test_page_numbers_base_and_unknown_source():
    assert document_to_chunk(Document(page_content="x", metadata={"page": 3}), 1)["page_number"] == 4
    assert document_to_chunk(Document(page_content="x", metadata={"page": 3}), 1, page_base=1)["page_number"] == 3
    c = document_to_chunk(Document(page_content="x", metadata={"page": "n/a", "score": "bad"}), 2)
    assert c["filename"] == "(unknown source)" and c["page_number"] is None and c["score"] == pytest.approx(1 / 62)
    assert document_to_chunk(Document(page_content="x", metadata={"source": "https://a.b/c.html"}), 1)["filename"] == "https://a.b/c.html"


def test_retriever_error_gives_failed_with_reason():
    res = search(ListRetriever(docs=DOCS, fail=True))
    f = res.trace_fields
    assert res.chunks == [] and f["retrieval_mode"] == "failed" and set(RETRIEVAL_FIELDS) <= set(f)
    assert f["retrieval_error"] == "langchain:ListRetriever failed: ConnectionError: vector store unreachable"
    assert f["recall_count"] == f["post_threshold_count"] == 0


def test_declared_and_inferred_modes():
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever

    hybrid = LangChainRetriever(ListRetriever(docs=DOCS), settings=make_settings(), mode="hybrid")
    assert hybrid.search("x").trace_fields["retrieval_mode"] == "hybrid"
    bm25 = BM25Retriever.from_documents(DOCS, k=4)
    assert infer_mode(bm25)[0] == "sparse_only"
    f = search(bm25, top_k=2).trace_fields
    assert f["retrieval_mode"] == "sparse_only" and "no dense leg" in f["retrieval_error"]
    ens = EnsembleRetriever(retrievers=[bm25, ListRetriever(docs=DOCS)], weights=[0.5, 0.5])
    f = search(ens).trace_fields
    assert f["retrieval_mode"] == "hybrid" and "retrieval_error" not in f


def test_vector_store_retriever_is_dense_only():
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore.from_documents(DOCS, DeterministicFakeEmbedding(size=8))
    f = search(store.as_retriever(search_kwargs={"k": 4})).trace_fields
    assert f["retrieval_mode"] == "dense_fallback" and "vectors only" in f["retrieval_error"]


def test_auto_merge_with_parents_and_without():
    parents = {"k.0": {"chunk_id": "k.0", "filename": "kettle.pdf", "page_number": 1, "level": 2,
                       "parent_id": None, "text": "Kettle: boils in ninety seconds; descale monthly."}}.get
    r = LangChainRetriever(ListRetriever(docs=DOCS), settings=make_settings(top_k=3), parents=parents)
    res = r.search("kettle")
    f = res.trace_fields
    assert f["auto_merge_applied"] is True and f["auto_merge_replaced_chunks"] == 2 and f["auto_merge_steps"] == 1
    assert res.chunks[0].chunk_id == "k.0" and res.chunks[0].level == 2 and f["candidate_count"] == 3
    f = search(ListRetriever(docs=DOCS), top_k=3).trace_fields
    assert f["auto_merge_enabled"] is True and f["auto_merge_applied"] is False and f["candidate_count"] == 4


def test_rerank_and_min_score_are_ours(rerank_server):
    rerank_server.favour = "Warranty"
    res = search(ListRetriever(docs=DOCS), "warranty", top_k=2, min_score=0.5, auto_merge_enabled=False,
                 rerank_model="m", rerank_api_key="sk-secret-1", rerank_host=rerank_server.url)
    f = res.trace_fields
    assert f["rerank_applied"] is True and f["post_rerank_count"] == 2 and f["post_threshold_count"] == 1
    assert res.chunks[0].filename == "warranty.txt" and res.chunks[0].rerank_score == pytest.approx(0.9, abs=0.01)
    rerank_server.mode = "error"
    f = search(ListRetriever(docs=DOCS), "warranty", top_k=2, auto_merge_enabled=False,
               rerank_model="m", rerank_api_key="sk-secret-1", rerank_host=rerank_server.url).trace_fields
    assert f["rerank_applied"] is False and "HTTP 500" in f["rerank_error"] and f["post_rerank_count"] == 2


def test_not_a_retriever_is_rejected():
    with pytest.raises(TypeError, match="BaseRetriever"):
        LangChainRetriever(object(), settings=make_settings())


def kettle_retriever() -> ListRetriever:
    """The factory `RAG_LANGCHAIN_RETRIEVER` points at in the settings test below."""
    return ListRetriever(docs=DOCS[:2])


def test_settings_choose_a_langchain_retriever_by_import_path():
    from rag.retrieval.retriever_factory import build_retriever

    settings = make_settings(retriever_backend="langchain",
                             langchain_retriever="tests.retrieval.test_langchain_adapter:kettle_retriever")
    retriever = build_retriever(settings)
    assert retriever.name == "langchain:ListRetriever"
    result = retriever.search("kettle")
    assert [c.filename for c in result.chunks][:1] == ["kettle.pdf"]


@pytest.mark.parametrize("path", [None, "no_colon_here", "tests.retrieval.test_langchain_adapter:missing",
                                  "not.a.module:factory"])
def test_a_bad_langchain_import_path_is_a_failed_retrieval_with_the_reason(path):
    from rag.retrieval.retriever_factory import build_retriever

    settings = make_settings(retriever_backend="langchain", langchain_retriever=path)
    result = build_retriever(settings).search("kettle")
    assert result.trace_fields["retrieval_mode"] == "failed"
    assert "LangChain retriever unavailable" in result.trace_fields["retrieval_error"]
