"""The Settings page on a shared server, as a visitor: a typed base URL without a key gets no server key
(the page says so), a URL with a query string is refused, Test connection shows the status but never the
endpoint's body, and RAG_LOCK_MODEL_SETTINGS=1 shows the model settings read-only and ignores a forged save."""
from __future__ import annotations

import pytest

from tests.support.fake_openai import HttpError, running_fake_openai

ENV_KEY = "sk-server-ONLY-5b3d1f9e7a2c4e6d"
PLAN = {"complexity": "simple", "complexity_reason": "ping", "sub_questions": []}

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")


@pytest.fixture
def server(monkeypatch):
    from rag.models.health import forget

    with running_fake_openai() as own:
        forget(own.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", own.base_url)
        monkeypatch.delenv("RAG_LOCK_MODEL_SETTINGS", raising=False)
        own.reply(PLAN)
        yield own


def settings_page(app_test):
    at = app_test.run()
    return at.switch_page("pages/settings.py").run()


def save(at, base_url: str):
    at.text_input(key="set_base_url").input(base_url)
    next(b for b in at.button if b.label == "Save model settings").click().run()
    assert not at.exception
    return at


def test_a_visitor_url_gets_no_server_key_and_the_page_says_so(app_test, server):
    with running_fake_openai() as visitor:
        visitor.reply(PLAN)
        at = save(settings_page(app_test), visitor.base_url)
        assert any("not the server's endpoint" in w.body for w in at.warning)
        at.button(key="test_connection").click().run()
        assert visitor.requests and all(r._bearer != ENV_KEY for r in visitor.requests)


def test_a_url_with_a_query_string_is_refused(app_test, server):
    at = save(settings_page(app_test), server.base_url + "/admin?next=")
    assert any("query string" in e.body for e in at.error)
    assert "openai_base_url" not in (at.session_state["settings_overrides"] if "settings_overrides" in
                                     at.session_state else {})


def test_the_endpoints_body_is_never_shown(app_test, server):
    with running_fake_openai() as internal:
        internal.script(HttpError(500, "INTERNAL: admin token abc-DEF-123", type="server_error"))
        at = save(settings_page(app_test), internal.base_url)
        at.button(key="test_connection").click().run()
        shown = "\n".join(e.body for e in at.error)
        assert "HTTP 500" in shown and "INTERNAL" not in shown and "abc-DEF-123" not in shown


def test_locked_model_settings_are_read_only_and_a_forged_save_changes_nothing(app_test, server, monkeypatch):
    monkeypatch.setenv("RAG_LOCK_MODEL_SETTINGS", "1")
    at = settings_page(app_test)
    assert any("locked" in i.body for i in at.info)
    assert at.text_input(key="set_base_url").disabled and at.text_input(key="set_api_key").disabled
    with running_fake_openai() as visitor:
        visitor.reply(PLAN)
        at.session_state["settings_overrides"] = {"openai_base_url": visitor.base_url}  # a forged session value
        at.button(key="test_connection").click().run()
        assert not visitor.requests
    assert server.requests and server.requests[-1]._bearer == ENV_KEY
