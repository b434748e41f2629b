"""Shared fixtures: offline settings, scripted collaborators, a history on a temp file."""
from __future__ import annotations

import pytest

from rag.api import make_context
from rag.runs.history import RunHistory
from rag.settings import RagSettings
from tests.engine.fakes import FakeRetriever, FakeRoles, chunk, grade

#: Long enough and with "difference" so that the planner model (not the fast path) decides.
QUESTION = "What is the difference between the X2 battery and the X1 battery in daily use?"


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch, tmp_path):
    """Tests never pick up a developer's real keys or prompt folder from the environment."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RERANK_API_KEY", "RAG_PROMPT_VERSION", "RAG_MODEL_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAG_PROMPT_DIR", str(tmp_path / "prompt_versions"))


@pytest.fixture
def settings() -> RagSettings:
    return RagSettings(model_provider="offline")


@pytest.fixture
def retriever() -> FakeRetriever:
    return FakeRetriever(default=[chunk(1, "The X2 battery lasts 20 hours."), chunk(2, "The X1 lasts 12 hours.")])


def rewrite_then_answer():
    """A grader that asks for one rewrite, then answers (exercises the whole simple chain)."""
    calls = {"n": 0}

    def grader(_inp):
        calls["n"] += 1
        if calls["n"] == 1:
            return grade(relevance="weak", answerability="partial", route="rewrite", reason="too specific")
        return grade(reason="good after rewrite")

    return grader


@pytest.fixture
def ctx(settings, retriever):
    return make_context(settings=settings, retriever=retriever, roles=FakeRoles(grader=rewrite_then_answer()).roles())


@pytest.fixture(params=["sqlite", "postgresql"])
def history_target(request, tmp_path):
    """Where a test's history lives, once per engine: an SQLite file, or a fresh schema of the session's
    real PostgreSQL server (tests/conftest.py)."""
    if request.param == "sqlite":
        return str(tmp_path / "history.db")
    return request.getfixturevalue("postgres_server").new_schema()


@pytest.fixture
def history(history_target):
    h = RunHistory(history_target)
    yield h
    h.close()
