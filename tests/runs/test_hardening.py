"""What an adversarial review found in the run history and its export / import: credentials inside
URLs, hostile import files (deep nesting, odd run ids), and what the export's check protects against."""
from __future__ import annotations

import json

import pytest

from rag.api import make_context
from rag.errors import RunImportError
from rag.runs.export import export_run_json
from rag.runs.history import RunHistory
from rag.runs.history_writes import run_recorded
from rag.runs.importing import import_run
from rag.settings import RagSettings
from tests.engine.fakes import FakeRoles
from tests.runs.conftest import QUESTION

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
    from rag.errors import HistoryDamagedError

    path = damaged_history_file(tmp_path / "history.db")
    _damage(path)
    with pytest.raises(HistoryDamagedError, match="history.db is damaged or unreadable .*integrity check"):
        RunHistory(path)


def test_a_file_that_is_not_a_database_is_refused_at_open(tmp_path):
    from rag.errors import HistoryDamagedError

    path = tmp_path / "history.db"
    path.write_bytes(b"this is a text file, not SQLite\n" * 200)
    with pytest.raises(HistoryDamagedError, match="not a database"):
        RunHistory(path)


def test_damage_met_after_opening_moves_the_debugger_to_memory(tmp_path, caplog):
    """Bigger than SQLite's page cache, so the damaged pages are read from the disk after opening."""
    from rag_debugger.ui import history_store
    from rag_debugger.workbench.session import DebugSession
    from tests.engine.fakes import FakeRetriever, chunk

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


# ----- hostile import files (items 8, 10, 11) ---------------------------------------------------------

@pytest.fixture
def exported(history, ctx) -> dict:
    info = run_recorded(history, QUESTION, ctx=ctx)
    return json.loads(export_run_json(history, info.run_id))


def _resealed(doc: dict) -> dict:
    from rag.runs.run_document import checksum

    doc = dict(doc)
    doc["sha256"] = checksum(doc)
    return doc


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000, "[" * 500 + "]" * 500],
                         ids=["open-100k", "closed-50k", "balanced-500"])
def test_deeply_nested_files_get_the_readable_import_error(tmp_path, text, caplog):
    from rag_debugger.ui.history_view import import_upload

    with RunHistory(tmp_path / "h.db") as history:
        with caplog.at_level("DEBUG"):
            with pytest.raises(ValueError, match="nests more than 64 levels deep") as err:
                import_upload(history, "deep.json", text.encode())
        assert history.list_runs() == []
    assert "recursion" not in str(err.value).lower()
    assert not [r for r in caplog.records if r.exc_info], "no traceback in the log"


def test_a_deeply_nested_value_inside_a_real_export_is_refused(tmp_path, exported):
    deep: list = []
    for _ in range(100):
        deep = [deep]
    doc = _resealed(dict(exported, label=None, result=dict(exported["result"] or {}, extra=deep)))
    with RunHistory(tmp_path / "h.db") as history:
        with pytest.raises(RunImportError, match="nests more than 64"):
            import_run(doc, history)


@pytest.mark.parametrize(
    "run_id", ["", "\x00", "../..", "..", "a/b", "x" * 5_000, " main-1", "main 1", "主-1"],
    ids=["empty", "nul", "dotdot-slash", "dotdot", "slash", "5000", "leading-space", "space", "non-ascii"],
)
def test_an_imported_run_id_must_be_a_safe_short_name(tmp_path, exported, run_id):
    doc = _resealed(dict(exported, run=dict(exported["run"], run_id=run_id)))
    with RunHistory(tmp_path / "h.db") as history:
        with pytest.raises(RunImportError, match="run.run_id: .* is not a run id"):
            import_run(doc, history)
        assert history.list_runs() == []


def test_a_parent_run_id_is_checked_too_and_good_ids_import(tmp_path, exported):
    bad = _resealed(dict(exported, run=dict(exported["run"], parent_run_id="../../etc")))
    good = _resealed(dict(exported, run=dict(exported["run"], run_id="demo-zh_answer.v2")))
    with RunHistory(tmp_path / "h.db") as history:
        with pytest.raises(RunImportError, match="run.parent_run_id"):
            import_run(bad, history)
        assert import_run(good, history).run_id == "demo-zh_answer.v2"


def test_the_export_check_catches_accidents_and_is_not_a_signature(tmp_path, exported):
    """What the sha256 protects against: accidents. It is not a signature (a re-sealed edit imports, as
    docs/decisions.md says); the history page says so too (tests/ui/test_hardening_apptest.py)."""
    damaged = dict(exported, label="edited by hand")
    truncated = json.dumps(exported)[:-200]
    with RunHistory(tmp_path / "h.db") as history:
        with pytest.raises(RunImportError, match="does not match its integrity check"):
            import_run(damaged, history)
        with pytest.raises(RunImportError, match="not valid JSON"):
            import_run(truncated, history)
        assert import_run(_resealed(damaged), history).run_id  # re-sealed: accepted, as documented
