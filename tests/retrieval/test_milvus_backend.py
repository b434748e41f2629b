"""Milvus-only behaviour (the shared contract is in test_embedded_trace.py, run on both backends):
incremental sync of a collection with the local store, the factory's `retriever_backend="milvus"`,
and configuration errors that must answer "failed" with the reason instead of crashing."""
from __future__ import annotations

import shutil

import pytest

from rag.retrieval.retriever_factory import build_retriever
from rag.trace import RETRIEVAL_FIELDS
from tests.retrieval.conftest import FIXTURE_KB, make_settings, milvus_missing_reason

pytestmark = pytest.mark.skipif(bool(milvus_missing_reason()), reason=milvus_missing_reason() or "")


class FakeEmbedder:
    """Deterministic 8-dim vectors: syncing must never need the real model."""

    model_id = "fake-8"

    def embed_passages(self, texts):
        import numpy as np

        out = np.array([[(hash(t) >> s) % 7 + 1 for s in range(8)] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_sync_is_incremental_and_follows_the_store(tmp_path):
    from rag.ingest import ingest_folder
    from rag.ingest.store import Store
    from rag.retrieval.milvus_backend import _existing, connect, sync_collection

    kb, store_dir = tmp_path / "kb", tmp_path / "store"
    shutil.copytree(FIXTURE_KB, kb)
    ingest_folder(kb, store_dir, embedder=None)  # sparse-only store first: zero vectors
    client = connect(str(tmp_path / "m.db"))
    try:
        leaves = len(Store.load(store_dir).leaves())
        assert sync_collection(client, "c", Store.load(store_dir)) == {"inserted": leaves, "deleted": 0, "unchanged": 0}
        assert sync_collection(client, "c", Store.load(store_dir))["inserted"] == 0  # nothing changed: no write
        ingest_folder(kb, store_dir, embedder=FakeEmbedder())  # vectors arrive: every row is rewritten
        counts = sync_collection(client, "c2", Store.load(store_dir))
        assert counts["inserted"] == leaves
        (kb / "gadget.txt").unlink()
        ingest_folder(kb, store_dir, embedder=FakeEmbedder())
        counts = sync_collection(client, "c2", Store.load(store_dir))
        assert counts["deleted"] > 0 and counts["inserted"] == 0
        assert set(_existing(client, "c2")) == {c.chunk_id for c in Store.load(store_dir).leaves()}
    finally:
        client.close()


def test_vectors_arriving_after_a_sparse_sync_replace_zero_rows(tmp_path):
    from rag.ingest import ingest_folder
    from rag.ingest.store import Store
    from rag.retrieval.milvus_backend import connect, sync_collection

    kb, store_dir = tmp_path / "kb", tmp_path / "store"
    shutil.copytree(FIXTURE_KB, kb)
    ingest_folder(kb, store_dir, embedder=None)
    client = connect(str(tmp_path / "m.db"))
    try:
        sync_collection(client, "c", Store.load(store_dir), dim=8)
        ingest_folder(kb, store_dir, embedder=FakeEmbedder())
        counts = sync_collection(client, "c", Store.load(store_dir))
        assert counts["deleted"] == counts["inserted"] == len(Store.load(store_dir).leaves())
    finally:
        client.close()


def test_factory_builds_a_hybrid_milvus_retriever(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, kb)
    settings = make_settings(kb_dir=kb, retriever_backend="milvus", milvus_uri=str(tmp_path / "lite" / "kb.db"),
                             milvus_collection="factory_test", top_k=2, auto_merge_enabled=False)
    r = build_retriever(settings)
    assert r.name == "milvus"
    res = r.search("What is the cooldown of Sunfall?")
    assert res.trace_fields["retrieval_mode"] == "hybrid" and "twenty-five seconds" in res.chunks[0].text
    assert build_retriever(settings).search("how to reset the Z9").chunks[0].filename == "gadget.txt"


def test_missing_uri_answers_failed_with_reason(tmp_path):
    r = build_retriever(make_settings(retriever_backend="milvus", milvus_uri=None, kb_dir=FIXTURE_KB))
    res = r.search("anything")
    f = res.trace_fields
    assert r.name == "milvus" and res.chunks == [] and f["retrieval_mode"] == "failed"
    assert "MILVUS_URI is not set" in f["retrieval_error"] and set(RETRIEVAL_FIELDS) <= set(f)


def test_unreachable_server_answers_failed(tmp_path, monkeypatch):
    import rag.retrieval.milvus_backend as mb

    def refuse(uri, token=None):
        raise ConnectionError(f"cannot reach {uri}")

    monkeypatch.setattr(mb, "connect", refuse)
    r = build_retriever(make_settings(retriever_backend="milvus", milvus_uri="http://127.0.0.1:1", kb_dir=FIXTURE_KB))
    f = r.search("anything").trace_fields
    assert f["retrieval_mode"] == "failed" and "ConnectionError: cannot reach http://127.0.0.1:1" in f["retrieval_error"]
