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
