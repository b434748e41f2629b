"""Normalization keeps exactly the protocol; absent / null / [] stay three different states."""
from __future__ import annotations

import pytest

from rag import RAG_TRACE_FIELDS, normalize_rag_trace
from rag.errors import InvalidTraceError
from rag.trace import RagSubTrace, RagTrace


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


# The reference's normalize_rag_trace, row by row (SPEC 5): raw trace -> client view.
NORMALIZE_TABLE = [
    # no trace yet: None, never {}
    (None, None),
    ({}, None),
    ([("query", "q")], None),  # not a mapping
    ("query", None),
    # typed coercion of kept fields
    ({"candidate_k": "8", "retrieval_top_k": 8.0}, {"candidate_k": 8, "retrieval_top_k": 8}),
    ({"evidence_confidence": "0.5", "rerank_timeout_seconds": 3}, {"evidence_confidence": 0.5, "rerank_timeout_seconds": 3.0}),
    ({"tool_used": "true", "retrieval_empty": 0}, {"tool_used": True, "retrieval_empty": False}),
    ({"rewrite_method": "hyde", "hyde_document": "d"}, {"rewrite_method": "hyde", "hyde_document": "d"}),
    # only unknown keys: an empty client view (the raw trace was not empty)
    ({"rewrite_error": "timeout: slow", "made_up": 1}, {}),
    # None values dropped; falsy kept
    ({"query": "q", "evidence_confidence": None, "hitl_prompt": "", "missing_slots": []},
     {"query": "q", "hitl_prompt": "", "missing_slots": []}),
    # chunk lists: a non-list (None included) becomes []; items without a filename and None items dropped
    ({"retrieved_chunks": None, "initial_retrieved_chunks": [None, {"filename": "a", "rrf_rank": "2"}]},
     {"retrieved_chunks": [], "initial_retrieved_chunks": [{"filename": "a", "rrf_rank": 2}]}),
    ({"rewrite_retrieved_chunks": "junk", "hitl_targeted_retrieved_chunks": [{"text": "no file"}]},
     {"rewrite_retrieved_chunks": [], "hitl_targeted_retrieved_chunks": []}),
    ({"retrieved_chunks": [{"filename": "a", "page_number": "iv", "score": None, "chunk_id": "x"}]},
     {"retrieved_chunks": [{"filename": "a", "page_number": "iv"}]}),
    # sub-traces: normalized the same way; empty / non-mapping ones dropped; no nesting; a non-list is []
    ({"sub_traces": [{}, None, "x", {"query": "a", "candidate_k": "3", "sub_traces": [{"query": "deep"}]}]},
     {"sub_traces": [{"query": "a", "candidate_k": 3}]}),
    ({"sub_traces": None}, {"sub_traces": []}),
    ({"sub_traces": [{"rewrite_count": 1}]}, {"sub_traces": [{}]}),  # not empty before normalization: kept
]


@pytest.mark.parametrize("raw, normalized", NORMALIZE_TABLE)
def test_normalize_rag_trace(raw, normalized):
    assert normalize_rag_trace(raw) == normalized


@pytest.mark.parametrize(
    "raw, field",
    [
        ({"rewrite_method": "paraphrase"}, "rewrite_method"),
        ({"candidate_k": "many"}, "candidate_k"),
        ({"recall_count": 2.5}, "recall_count"),
        ({"query": 42}, "query"),
        ({"hitl_options": "a, b"}, "hitl_options"),
        ({"retrieved_chunks": [{"filename": "a", "score": "high"}]}, "retrieved_chunks.0.score"),
        ({"sub_traces": [{"evidence_confidence": "sure"}]}, "evidence_confidence"),
    ],
)
def test_a_wrong_type_is_an_error_naming_the_field(raw, field):
    with pytest.raises(InvalidTraceError, match=field.replace(".", r"\.")) as err:
        normalize_rag_trace(raw)
    assert isinstance(err.value, ValueError)


def test_every_protocol_field_has_a_type():
    assert set(RagTrace.model_fields) == set(RAG_TRACE_FIELDS)
    assert set(RagSubTrace.model_fields) == set(RAG_TRACE_FIELDS) - {"sub_traces"}


def test_a_result_without_a_trace_carries_none():
    from rag import build_result

    for state in ({"question": "q"}, {"question": "q", "rag_trace": {}}, {"question": "q", "rag_trace": None}):
        result = build_result(state)
        assert result["rag_trace"] is None and "hitl_resume_state" not in result
