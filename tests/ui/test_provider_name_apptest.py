"""One name for the offline provider wherever a person reads it. The Settings page said "offline" in its
provider choice and "offline-rules" as the active provider; the sidebar said neither. The environment keeps
RAG_MODEL_PROVIDER=offline, which the choice's help names."""
from __future__ import annotations

import re

import pytest

from rag.settings import OFFLINE_PROVIDER


def code_spans(text: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", text))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_settings_page_and_the_sidebar_name_the_offline_provider_alike(app_test, lang):
    at = app_test
    at.query_params["lang"] = lang
    at.run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception
    choice = at.selectbox(key="set_provider")
    assert choice.label == {"en": "Provider", "zh": "提供方"}[lang]
    assert choice.value == "offline"  # what the environment says, and what is saved
    assert choice.options == ["auto", OFFLINE_PROVIDER, "openai"]  # what the page shows
    assert "RAG_MODEL_PROVIDER=auto" in choice.help and OFFLINE_PROVIDER in choice.help
    active = next(m.value for m in at.markdown if "`" in m.value and ("provider" in m.value or "提供方" in m.value))
    assert code_spans(active) == {OFFLINE_PROVIDER}
    assert any(code_spans(i.body) == {OFFLINE_PROVIDER} for i in at.info)  # "Running on `offline-rules`…"
    sidebar = [i.body for i in at.sidebar.info if code_spans(i.body) == {OFFLINE_PROVIDER}]
    assert len(sidebar) == 1, [i.body for i in at.sidebar.info]  # the sidebar's badge in offline mode


def test_the_run_result_names_the_provider_the_settings_page_shows(app_test):
    from tests.support.apptest import inspector_text

    from .test_failures_apptest import run_question

    at = app_test.run()
    run_question(at)
    assert f"provider {OFFLINE_PROVIDER}" in inspector_text(at)
    assert any(code_spans(i.body) == {OFFLINE_PROVIDER} for i in at.sidebar.info)
