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


# ----- a damaged history file (item 4) ---------------------------------------------------------------

def damaged_history_file(path, runs: int = 30, ctx=None):
    """A real history file with `runs` recorded runs, then a few of its pages overwritten with garbage
    (what a disk error or an interrupted copy leaves): it still opens as SQLite, and reading or writing
    the damaged pages fails with "database disk image is malformed"."""
    import sqlite3

    from tests.engine.fakes import FakeRetriever, chunk

    ctx = ctx or make_context(settings=RagSettings(model_provider="offline"),
                              retriever=FakeRetriever(default=[chunk(1)]), roles=FakeRoles().roles())
    with RunHistory(path) as history:
        for i in range(runs):
            run_recorded(history, f"question number {i} about the Nova battery life", ctx=ctx)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file
    conn.close()
    return path


def _damage(path) -> None:
    data = bytearray(path.read_bytes())
    for offset in range(4096 * 3, 4096 * 7):
        data[offset] = (offset * 7) & 0xFF
    with open(path, "r+b") as f:
        f.write(data)


def test_a_damaged_history_file_is_refused_at_open_naming_the_file(tmp_path):
    from rag.runs.history import HistoryDamagedError

    path = damaged_history_file(tmp_path / "history.db")
    _damage(path)
    with pytest.raises(HistoryDamagedError, match="history.db is damaged or unreadable .*integrity check"):
        RunHistory(path)


def test_a_file_that_is_not_a_database_is_refused_at_open(tmp_path):
    from rag.runs.history import HistoryDamagedError

    path = tmp_path / "history.db"
    path.write_bytes(b"this is a text file, not SQLite\n" * 200)
    with pytest.raises(HistoryDamagedError, match="not a database"):
        RunHistory(path)


def test_damage_met_after_opening_moves_the_debugger_to_memory(tmp_path, caplog):
    """Bigger than SQLite's page cache, so the damaged pages are read from the disk after opening."""
    from tests.engine.fakes import FakeRetriever, chunk
    from ui import history_store
    from ui.session import DebugSession

    path = damaged_history_file(tmp_path / "history.db", runs=100)
    store = history_store.history(path)
    try:
        _damage(path)
        session = DebugSession(RagSettings(model_provider="offline"), retriever=FakeRetriever(default=[chunk(1)]),
                               roles=FakeRoles().roles(), history=store)
        session.start("How long does the Nova battery last?")
        session.run_to_end()
        assert session.done and session.result()["route"] == "answer"  # debugged in memory
        assert session.history is None and store.damage and "malformed" in store.damage
        with caplog.at_level("ERROR"):
            with pytest.raises(Exception, match="damaged"):
                history_store.history(path)
            assert "malformed" in (history_store.problem(path) or "")
        assert [r.levelname for r in caplog.records if "malformed" in r.getMessage()].count("ERROR") >= 1
    finally:
        history_store.close_all()
