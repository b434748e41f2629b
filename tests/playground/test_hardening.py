"""What an adversarial review found in the run history and its export / import: credentials inside
URLs, hostile import files (deep nesting, odd run ids), and what the export's check protects against."""
from __future__ import annotations

import json

import pytest

from rag.api import make_context
from rag.runs.export import RunImportError, export_run_json, import_run
from rag.runs.history import RunHistory, run_recorded
from rag.settings import RagSettings
from tests.engine.fakes import FakeRoles
from tests.playground.conftest import QUESTION

PASSWORD = "PASSW0RD-9f3e71"
QUERY_KEY = "QUERYSECRET-77a1c0"
RERANK_TOKEN = "RRTOKEN-88761234"
MILVUS_PASSWORD = "MILVUSPW-33214"


def test_credentials_inside_urls_reach_neither_the_history_nor_an_export(tmp_path, retriever):
    settings = RagSettings(
        model_provider="offline",
        openai_base_url=f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY_KEY}&api-version=2024-06-01",
        rerank_host=f"https://rr.example/v1?token={RERANK_TOKEN}",
        milvus_uri=f"http://root:{MILVUS_PASSWORD}@127.0.0.1:19530",
    )
    ctx = make_context(settings=settings, retriever=retriever, roles=FakeRoles().roles())
    with RunHistory(tmp_path / "urls.db") as history:
        info = run_recorded(history, QUESTION, ctx=ctx)
        stored = history.get_run(info.run_id).settings
        text = export_run_json(history, info.run_id)  # no settings passed: nothing to redact with
    db_bytes = b"".join(p.read_bytes() for p in tmp_path.glob("urls.db*"))
    for secret in (PASSWORD, QUERY_KEY, RERANK_TOKEN, MILVUS_PASSWORD):
        assert secret not in text and secret.encode() not in db_bytes
    assert "alice" not in json.dumps(stored) and "root:" not in json.dumps(stored)
    assert stored["openai_base_url"] == "http://127.0.0.1:9/v1?api-key=***&api-version=2024-06-01"
    assert stored["milvus_uri"] == "http://127.0.0.1:19530"
    assert json.loads(text)["settings"] == stored
