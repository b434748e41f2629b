"""Issue 24, finding 10: no page shows a path of the server (the README and the server log may).
Every page is rendered under AppTest, with the history file, the cache and the prompt folder in
this test's tmp folder, and every element (text, captions, help, labels, the inspector's HTML) is
searched for that folder and for the repository's own path; also with a damaged history file,
whose notice named the file by its absolute path."""
from __future__ import annotations

import pytest

from rag.ingest.kbs import create_kb
from tests.support.apptest import inspector_html
from tests.support.browser import ROOT

PAGES = ["pages/debugger.py", "pages/history.py", "pages/knowledge_bases.py", "pages/playground.py",
         "pages/evaluate.py", "pages/settings.py", "pages/trace.py", "pages/your_graph.py"]


def everything_shown(at) -> str:
    """The text of every element of the page, as the browser receives it (protobuf text format)."""
    parts = [inspector_html(at)]

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at._tree)
    return "\n".join(parts)


@pytest.fixture
def server(env, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(env / "cache"))
    monkeypatch.setenv("RAG_HISTORY_DB", str(env / "hist" / "history.db"))
    monkeypatch.setenv("RAG_PROMPT_DIR", str(env / "prompts"))
    monkeypatch.setenv("RAG_DENSE_ENABLED", "false")
    create_kb("team-docs")
    return env


def leaks(text: str, env) -> list[str]:
    return [p for p in (str(env), str(ROOT), "/tmp/") if p in text]


def render_all(env) -> dict[str, list[str]]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    found = {"app.py": leaks(everything_shown(at), env)}
    for page in PAGES:
        at.switch_page(page).run()
        found[page] = leaks(everything_shown(at), env)
    return {page: where for page, where in found.items() if where}


def test_no_page_shows_a_server_path(server):
    assert render_all(server) == {}


def test_a_damaged_history_file_is_reported_without_its_path(server):
    (server / "hist").mkdir(parents=True, exist_ok=True)
    (server / "hist" / "history.db").write_bytes(b"this is not a SQLite database" * 100)

    assert render_all(server) == {}
