"""Normalization keeps exactly the protocol; absent / null / [] stay three different states."""
from __future__ import annotations

from rag import RAG_TRACE_FIELDS, normalize_rag_trace


def test_protocol_has_59_unique_fields():
    assert len(RAG_TRACE_FIELDS) == 59 == len(set(RAG_TRACE_FIELDS))


def test_normalization_drops_none_and_unknown_keeps_falsy():
    raw = {
        "tool_used": False, "retrieval_top_k": 0, "hitl_prompt": "", "hitl_options": [], "evidence_confidence": None,
        "rewrite_count": 1, "grading_error": "x", "made_up": 1,
    }
    assert normalize_rag_trace(raw) == {"tool_used": False, "retrieval_top_k": 0, "hitl_prompt": "", "hitl_options": []}


def test_evidence_items_keep_six_fields_and_need_a_filename():
    raw = {"retrieved_chunks": [
        {"filename": "a.md", "page_number": 2, "text": "t", "score": 0.5, "rrf_rank": 1, "rerank_score": None,
         "chunk_id": "x", "parent_id": "p"},
        {"text": "orphan"},
        "junk",
    ]}
    assert normalize_rag_trace(raw) == {"retrieved_chunks": [
        {"filename": "a.md", "page_number": 2, "text": "t", "score": 0.5, "rrf_rank": 1}
    ]}


def test_sub_traces_are_normalized_and_cannot_nest():
    raw = {"sub_traces": [{"query": "a", "rewrite_count": 0, "sub_traces": [{"query": "deep"}]}, None]}
    assert normalize_rag_trace(raw) == {"sub_traces": [{"query": "a"}]}


def test_none_trace_stays_none_and_normalization_is_idempotent():
    assert normalize_rag_trace(None) is None
    raw = {"query": "q", "retrieved_chunks": [{"filename": "a", "text": "t"}], "sub_traces": [{"query": "s"}]}
    once = normalize_rag_trace(raw)
    assert normalize_rag_trace(once) == once
