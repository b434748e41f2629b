"""An OpenAI-compatible embeddings endpoint replaces the local model when configured (issue 3)."""
from __future__ import annotations

import hashlib
import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from rag.ingest.paths import BUNDLED_INDEX_DIR
from rag.retrieval import retriever_factory
from tests.retrieval.conftest import FIXTURE_KB, make_settings

KEY = "sk-embed-SECRET-93d1"
DIM = 64


def fake_vector(text: str) -> list[float]:
    """Deterministic bag-of-characters vector: texts sharing characters are close."""
    v = np.zeros(DIM)
    for ch in text.lower():
        v[int(hashlib.md5(ch.encode()).hexdigest(), 16) % DIM] += 1.0
    return v.tolist()


class EmbeddingsServer:
    def __init__(self):
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": fake_vector(str(t))} for i, t in enumerate(inputs)]
                payload = json.dumps({"object": "list", "data": data, "model": body["model"],
                                      "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = EmbeddingsServer()
    yield s
    s.stop()


def test_endpoint_embeds_the_kb_and_the_query(server, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, kb)
    settings = make_settings(kb_dir=kb, embeddings_model="emb-test", openai_base_url=server.url, openai_api_key=KEY)
    retriever_factory.clear_cache()
    result = retriever_factory.build_retriever(settings).search("heroes")
    assert result.trace_fields["retrieval_mode"] == "hybrid"
    paths = {r["path"] for r in server.requests}
    assert paths == {"/v1/embeddings"}
    assert all(r["body"]["model"] == "emb-test" for r in server.requests)
    assert len(server.requests) >= 2  # passages at ingest, then the query
    assert server.requests[-1]["auth"] == f"Bearer {KEY}"
    assert result.chunks


def test_endpoint_down_at_query_time_degrades_without_leaking_the_key(server, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, kb)
    settings = make_settings(kb_dir=kb, embeddings_model="emb-test", openai_base_url=server.url,
                             openai_api_key=KEY, model_max_retries=0, model_timeout_seconds=1)
    retriever_factory.clear_cache()
    retriever = retriever_factory.build_retriever(settings)
    server.stop()
    result = retriever.search("How do I reset the Gadget Z9?")
    assert result.trace_fields["retrieval_mode"] in ("sparse_only", "dense_fallback")
    assert result.chunks  # the sparse leg still answers
    assert KEY not in json.dumps(result.trace_fields, default=str)


def test_bundled_index_is_never_rewritten_with_endpoint_vectors(server):
    before = {p.name: p.stat().st_mtime_ns for p in BUNDLED_INDEX_DIR.iterdir()}
    settings = make_settings(embeddings_model="emb-test", openai_base_url=server.url, openai_api_key=KEY)
    retriever_factory.clear_cache()
    assert retriever_factory.build_retriever(settings).search("丹瑾").trace_fields["retrieval_mode"] == "hybrid"
    assert {p.name: p.stat().st_mtime_ns for p in BUNDLED_INDEX_DIR.iterdir()} == before
    retriever_factory.clear_cache()
