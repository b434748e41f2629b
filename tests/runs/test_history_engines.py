"""The history's engines: a versioned schema migrated on open, the PostgreSQL engine's failures told
clearly and without the password, the person filter, and psycopg kept out of the default app."""
from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rag.errors import HistoryDamagedError, HistoryUnavailableError
from rag.runs import schema
from rag.runs.history import RunHistory
from tests.support.browser import free_port

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "pa55-w0rd-Secret"


#: Every migration's version (not a range: branches add versions in parallel and the numbers may have gaps).
ALL_VERSIONS = [version for version, _what, _sql in schema.MIGRATIONS]


def _versions(history: RunHistory) -> list[int]:
    return [r[0] for r in history.storage.execute("SELECT version FROM schema_version ORDER BY version", ())]


ALL_VERSIONS = [version for version, _what, _sql in schema.MIGRATIONS]
"""Not `range(1, LATEST + 1)`: versions are numbered by the branch that adds them, and may leave gaps."""


@pytest.mark.parametrize(("current", "engine", "expected"), [
    (0, "sqlite", ALL_VERSIONS),
    (1, "postgresql", ALL_VERSIONS[1:]),
    (schema.LATEST, "sqlite", []),
    (schema.LATEST + 5, "postgresql", []),  # a newer app migrated it: nothing to do, nothing undone
])
def test_pending_migrations(current, engine, expected):
    assert [v for v, _what, _sql in schema.pending(current, engine)] == expected


def test_opening_again_migrates_nothing_and_keeps_the_runs(history_target):
    with RunHistory(history_target) as first:
        run = first.record_start("kept?", run_by="ana").run_id
        assert _versions(first) == ALL_VERSIONS
    with RunHistory(history_target) as again:
        assert _versions(again) == ALL_VERSIONS
        assert again.get_run(run).run_by == "ana"


def test_a_history_file_from_before_versioning_is_migrated_in_place(tmp_path):
    """A file written by the app before the schema had versions: its runs stay, the new columns appear."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(schema.MIGRATIONS[0][2]["sqlite"][0] + ";")
    conn.execute("INSERT INTO runs (run_id, thread_id, kind, question, created_at, status) "
                 "VALUES ('main-old', 'main-old', 'main', 'an old question', '2025-01-01T00:00:00+00:00', 'done')")
    conn.commit()
    conn.close()
    with RunHistory(path, server_id="me") as history:
        old = history.get_run("main-old")
        assert old.question == "an old question" and old.run_by == "" and old.server_id == ""
        assert _versions(history) == ALL_VERSIONS
        assert history.mark_abandoned(server_id="me") == []


def test_runs_record_who_ran_them_and_the_list_filters_by_person(history):
    ana = history.record_start("ana's question", run_by=" ana@example.org ").run_id
    bo = history.record_start("bo's question", run_by="Bo").run_id
    nobody = history.record_start("nobody's question").run_id
    assert history.people() == ["Bo", "ana@example.org"]
    assert [r.run_id for r in history.list_runs(run_by="ana@example.org")] == [ana]
    assert [r.run_id for r in history.list_runs(run_by="")] == [nobody]
    assert {r.run_id for r in history.list_runs()} == {ana, bo, nobody}


def test_two_servers_starting_together_on_a_new_database_both_open(postgres_server):
    """The migrations run under an advisory lock: two app servers starting at once do not race."""
    url = postgres_server.new_database()
    opened, errors = [], []

    def start(name):
        try:
            opened.append(RunHistory(url, server_id=name))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(f"server-{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    try:
        assert errors == [] and len(opened) == 3
        run = opened[0].record_start("seen by all?").run_id
        assert all(h.get_run(run).question == "seen by all?" for h in opened)
        assert _versions(opened[1]) == ALL_VERSIONS
    finally:
        for h in opened:
            h.close()


def test_a_database_that_is_down_is_a_clear_error_without_the_password(caplog):
    url = f"postgresql://team:{PASSWORD}@127.0.0.1:{free_port()}/history"
    caplog.set_level(logging.DEBUG)
    with pytest.raises(HistoryUnavailableError) as raised:
        RunHistory(url)
    message = str(raised.value)
    assert "postgresql://127.0.0.1:" in message and "/history" in message
    assert "refused" in message.lower() or "connect" in message.lower()
    assert isinstance(raised.value, HistoryDamagedError)  # the app's memory fallback applies
    assert PASSWORD not in message and PASSWORD not in caplog.text and "team:" not in message


def test_a_refused_login_is_a_clear_error_without_the_password(postgres_server, caplog):
    url = f"postgresql://intruder:{PASSWORD}@127.0.0.1:{postgres_server.port}/postgres"
    caplog.set_level(logging.DEBUG)
    with pytest.raises(HistoryUnavailableError) as raised:
        RunHistory(url)
    message = str(raised.value)
    assert 'role "intruder" does not exist' in message
    assert PASSWORD not in message and PASSWORD not in caplog.text


def test_a_password_in_the_query_string_is_never_shown(postgres_server):
    url = f"postgresql://127.0.0.1:{postgres_server.port}/postgres?user=intruder&password={PASSWORD}"
    with pytest.raises(HistoryUnavailableError) as raised:
        RunHistory(url)
    assert PASSWORD not in str(raised.value)


def test_the_default_app_never_loads_psycopg():
    code = ("import sys, rag_debugger.ui.history_store, rag.runs.history, rag.runs.export; "
            "assert not [m for m in sys.modules if m.startswith(('psycopg', 'langgraph.checkpoint.postgres'))], "
            "sorted(m for m in sys.modules if 'psycopg' in m)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_a_database_that_goes_down_under_the_app_turns_the_history_off(ctx):
    """A server of its own, stopped mid-session: the next statement fails, the history says it is unusable
    (the app then goes on in memory, as for a damaged file), and nothing says the password; an export made
    while it was up holds no trace of the URL."""
    from rag.runs.export import export_run_json
    from rag.runs.history_writes import run_recorded
    from tests.support.postgres import postgres_cluster

    with postgres_cluster() as cluster:
        url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{cluster.port}/postgres"  # trust: the password is unused
        history = RunHistory(url)
        try:
            info = run_recorded(history, "What is the battery life of the X2?", ctx=ctx)
            exported = export_run_json(history, info.run_id)
            assert PASSWORD not in exported and str(cluster.port) not in exported
            assert PASSWORD not in history.location and history.damage is None
            cluster.stop()
            with pytest.raises(Exception):  # noqa: B017 - psycopg's or the pool's error, whichever comes first
                history.list_runs()
            assert history.damage and PASSWORD not in history.damage
        finally:
            history.close()
