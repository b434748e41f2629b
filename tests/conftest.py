"""Fixtures every test folder may use: a real PostgreSQL server, started once per test session."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def postgres_server():
    """A throw-away PostgreSQL cluster (tests/support/postgres.py), started on first use. A server that
    cannot start fails the tests that need it, with the reason: never a silent skip."""
    from tests.support.postgres import postgres_cluster

    try:
        with postgres_cluster() as cluster:
            yield cluster
    except RuntimeError as exc:
        pytest.fail(f"the PostgreSQL test server could not start: {exc}", pytrace=False)


@pytest.fixture(autouse=True)
def _open_shared_state(monkeypatch):
    """Tests run outside a Streamlit server (no `server.address`, read as "every interface"), where visitors would
    be read-only by default (rag/access.py): every test starts as the README's loopback server does, open, with no
    admins and every run visible; the access tests set what they test."""
    monkeypatch.setenv("RAG_SHARED_STATE", "open")
    monkeypatch.delenv("RAG_ADMINS", raising=False)
    monkeypatch.delenv("RAG_RUN_VISIBILITY", raising=False)


_SERVER_HINTS = ("streamlit_server(", "subprocess.Popen", "postgres_server", "postgres_cluster(")


def pytest_collection_modifyitems(config, items):
    """Sort every test into a lane, so the edit-test loop can run `pytest -m fast` (no browser, no server
    process) in well under the full suite's time. A test is `browser` when its file drives Chromium,
    `server` when it starts a process (Streamlit, PostgreSQL) or uses the PostgreSQL fixture, and `fast`
    otherwise; judged from the file, so a new test lands in the right lane without a decorator."""
    seen: dict[str, str] = {}
    for item in items:
        path = str(item.fspath)
        if path not in seen:
            try:
                text = open(path, encoding="utf-8").read()
            except OSError:
                text = ""
            if "real_model_base_url" in text or "/real_model/" in path.replace("\\", "/"):
                seen[path] = "real_model"  # its own lane: a real model on loopback (never in `fast`)
            elif item.fspath.dirpath().basename == "conformance":
                seen[path] = "fast"  # the LangGraph conformance corpus: in-process, and its figure belongs to every run
            elif "chromium_page(" in text or item.fspath.basename.startswith("test_browser"):
                seen[path] = "browser"
            elif any(hint in text for hint in _SERVER_HINTS):
                seen[path] = "server"
            else:
                seen[path] = "fast"
        lane = seen[path]
        if lane == "fast" and "postgres_server" in getattr(item, "fixturenames", ()):
            lane = "server"
        item.add_marker(getattr(pytest.mark, lane))
        if lane == "real_model":
            item.add_marker(pytest.mark.xdist_group("real_model"))  # one worker, so one llama.cpp server
