"""Who ran each run and the shared history, under AppTest: the Settings name is recorded with a run and the
history page filters by person (on SQLite and on a real PostgreSQL); a signed-in user's e-mail wins over
the name; a database that is down leaves the debugger working in memory, with one notice that never
shows the password."""
from __future__ import annotations

import logging

import pytest

from tests.support.apptest import inspector_text, press
from tests.support.browser import free_port
from tests.ui.test_history_apptest import demo, history_page, new_app, problems, runs
from tests.ui.test_settings_trace_apptest import all_text

PASSWORD = "team-Pa55word-never-shown"


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, monkeypatch, env):
    if request.param == "postgresql":
        monkeypatch.setenv("RAG_HISTORY_URL", request.getfixturevalue("postgres_server").new_schema())
    return request.param


def run_as(name: str, question_route: str = "answer"):
    """A fresh browser session: set a name on Settings, run one demo question to its end."""
    at = new_app().run()
    if name:
        at.switch_page("pages/settings.py").run()
        at.text_input(key="set_run_by").set_value(name).run()
        assert not problems(at)
    at.switch_page("pages/debugger.py").run()
    at.button(key=f"demo_{demo(question_route).id}").click().run()
    press(at, "continue")
    assert "Result: answer" in inspector_text(at)
    return at


def test_runs_record_the_settings_name_and_the_history_filters_by_person(engine):
    run_as("Ana")
    run_as("Bo")
    run_as("")
    at = history_page(new_app().run())
    assert not problems(at)
    table = runs(at)
    assert sorted(table["run by"]) == ["", "Ana", "Bo"]
    picker = at.selectbox(key="history_run_by")
    assert picker.options == ["Everyone", "Ana", "Bo", "(no name)"]
    picker.set_value("Ana").run()
    assert list(runs(at)["run by"]) == ["Ana"]
    at.selectbox(key="history_run_by").set_value("(no name)").run()
    assert list(runs(at)["run by"]) == [""]
    if engine == "postgresql":
        assert any("shared by every app server" in c.value for c in at.caption)


def test_a_signed_in_user_is_recorded_by_e_mail(monkeypatch):
    import streamlit as st

    from rag_debugger.ui import streamlit_state

    class SignedIn(dict):
        is_logged_in = True

    class NoAuth:
        @property
        def is_logged_in(self):
            raise RuntimeError("no [auth] section in secrets.toml")

    monkeypatch.setattr(st, "user", SignedIn(email="ana@example.org", name="Ana"))
    assert streamlit_state.signed_in_email() == "ana@example.org"
    monkeypatch.setattr(st, "user", NoAuth())
    assert streamlit_state.signed_in_email() == ""  # auth not configured: never an error


def test_a_database_that_is_down_keeps_the_debugger_working_without_the_password(env, monkeypatch, caplog):
    monkeypatch.setenv("RAG_HISTORY_URL", f"postgresql://team:{PASSWORD}@127.0.0.1:{free_port()}/history")
    with caplog.at_level(logging.DEBUG):
        at = run_as("Ana")  # debugged, in memory
        notices = [w.body for w in at.sidebar.warning]
        assert len(notices) == 1 and "Run history off" in notices[0] and "postgresql://127.0.0.1:" in notices[0]
        assert "refuses the login" in notices[0]
        page_text = all_text(at)
        at = history_page(at)
    assert not at.exception
    errors = [e.body for e in at.error]
    assert len(errors) == 1 and "cannot be used" in errors[0] and "/history" in errors[0]
    assert any("RAG_HISTORY_URL" in i.body for i in at.info)  # what to do about it
    for text in (page_text, all_text(at), caplog.text):
        assert PASSWORD not in text and "team:" not in text
    assert [r for r in caplog.records if r.name == "rag_debugger.history"]  # the cause is logged, once
