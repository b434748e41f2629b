"""Fixtures for the app's tests: AppTest on the real app (the browser harness is in tests/support)."""
from __future__ import annotations

import pytest

from tests.support.browser import ROOT


@pytest.fixture
def app_test(monkeypatch):
    """The real app under AppTest, offline provider, a long timeout for the cold LangGraph import."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    return at


@pytest.fixture(autouse=True)
def _isolated_history(monkeypatch, tmp_path):
    """Every app test gets its own run history and prompt folder (never ~/.cache or the repo);
    set on os.environ, so `streamlit run` servers started by browser tests inherit them."""
    monkeypatch.setenv("RAG_HISTORY_DB", str(tmp_path / "history.db"))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)  # a developer's team database is never touched
    monkeypatch.delenv("RAG_SERVER_ID", raising=False)
    monkeypatch.setenv("RAG_PROMPT_DIR", str(tmp_path / "prompt_versions"))
    yield
    from rag_debugger.ui.history_store import close_all

    close_all()


@pytest.fixture
def env(monkeypatch, tmp_path):
    """Offline, no keys from the developer's environment, this test's own history file and prompt
    folder (see `_isolated_history`); yields the test's tmp folder."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RERANK_API_KEY", "RAG_PROMPT_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    monkeypatch.chdir(ROOT)
    return tmp_path


@pytest.fixture
def eval_sets(env, monkeypatch):
    """`eval_sets(cases)`: the Evaluate page's shipped-sets folder pointed at one set, `bundled.jsonl`,
    holding `cases` (AppTest runs the page in this process). Returns the folder."""
    import json

    import rag_debugger.ui.evaluate_view as view

    def write(cases: list[dict]):
        folder = env / "sets"
        folder.mkdir(exist_ok=True)
        (folder / "bundled.jsonl").write_text(
            "\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n", "utf-8")
        monkeypatch.setattr(view, "SETS_DIR", folder)
        return folder

    return write


@pytest.fixture
def graph_app(app_test, monkeypatch):
    """`graph_app(spec, lang=None, **env)`: the app started with a graph (`RAG_DEBUG_GRAPH`, what
    `-- --graph` also sets), in `lang` when given (`?lang=`), run once and checked for exceptions."""
    from rag.i18n import forget_missing_keys

    def open_(spec: str, *, lang: str | None = None, **env: str):
        monkeypatch.setenv("RAG_DEBUG_GRAPH", spec)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        if lang:
            app_test.query_params["lang"] = lang
            forget_missing_keys()  # the test then asks which keys this run looked up and missed
        app_test.run()
        assert not app_test.exception, app_test.exception
        return app_test

    return open_
