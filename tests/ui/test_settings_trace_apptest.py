"""Settings and trace explorer pages under AppTest: a real model endpoint (a local OpenAI-compatible
server) configured in the browser, the key never shown back, the connection test, and the trace view."""
from __future__ import annotations

import pytest

from tests.support.apptest import inspector_text, press
from tests.support.fake_openai import HttpError, running_fake_openai

KEY = "sk-test-SECRET-7c1e55d2b9"
GRADE = {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
         "route": "answer", "reason": "stated by a real-client test model", "missing_slots": [],
         "hitl_prompt": "", "hitl_options": []}


def all_text(at) -> str:
    """Everything the page shows, widgets' values included."""
    parts = []
    for node in at._tree:  # noqa: SLF001 - the whole element tree
        parts.append(str(getattr(node, "proto", "")))
    return "\n".join(parts)


def button(at, label):
    return next(b for b in at.button if b.label == label)


@pytest.fixture
def fake():
    with running_fake_openai() as server:
        yield server


def configure(at, base_url):
    at.switch_page("pages/settings.py").run()
    at.selectbox(key="set_provider").set_value("openai")
    at.text_input(key="set_base_url").input(base_url)
    at.text_input(key="set_api_key").input(KEY)
    at.text_input(key="set_fast_model").input("fast-model")
    at.text_input(key="set_grade_model").input("grade-model")
    at.number_input(key="set_timeout").set_value(2.0)
    at.number_input(key="set_retries").set_value(0)
    button(at, "Save model settings").click().run()
    assert not at.exception


def test_key_is_never_shown_back_and_a_real_endpoint_runs_the_graph(app_test, fake):
    fake.reply({"complexity": "simple", "complexity_reason": "one fact", "sub_questions": []}, schema="ComplexityResult")
    fake.reply(GRADE, schema="EvidenceGrade")
    at = app_test.run()
    configure(at, fake.base_url)
    assert any("saved" in s.body for s in at.success)
    assert at.text_input(key="set_api_key").value == ""
    assert KEY not in all_text(at)
    # the badge names the model and says its health only once a call has told it
    assert any("openai-compatible:fast-model/grade-model" in i.body and "not called yet" in i.body
               for i in at.sidebar.info)
    assert not at.sidebar.success

    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "run")
    assert not at.exception
    assert "Result: answer /" in inspector_text(at)
    assert "Degraded run" not in inspector_text(at)
    assert any("last call OK" in s.body for s in at.sidebar.success)
    assert "stated by a real-client test model" in inspector_text(at)
    assert fake.requests and fake.requests[-1].method == "json_schema"
    assert KEY not in all_text(at)


def test_connection_test_reports_success_with_the_method(app_test, fake):
    fake.reply({"complexity": "simple", "complexity_reason": "ping", "sub_questions": []})
    at = app_test.run()
    configure(at, fake.base_url)
    at.button(key="test_connection").click().run()
    assert any("Connected in" in s.body and "json_schema" in s.body for s in at.success)


def test_connection_test_reports_a_bad_key_readably(app_test, fake):
    fake.script(HttpError.unauthorized(echo_key=True))
    at = app_test.run()
    configure(at, fake.base_url)
    at.button(key="test_connection").click().run()
    assert not at.exception
    errors = [e.body for e in at.error]
    assert errors and errors[0].startswith("auth")
    assert KEY not in all_text(at)


def test_forget_key_and_return_to_offline_rules(app_test, fake):
    at = app_test.run()
    configure(at, fake.base_url)
    at.button(key="forget_key").click().run()
    assert at.session_state["settings_overrides"]["openai_api_key"] is None
    assert at.button(key="forget_key").disabled
    at.selectbox(key="set_provider").set_value("offline")
    button(at, "Save model settings").click().run()
    assert any("Offline mode" in i.body for i in at.sidebar.info)


def test_trace_explorer_shows_groups_states_and_sub_traces(app_test):
    at = app_test.run()
    at.switch_page("pages/trace.py").run()
    assert any("No run yet" in i.body for i in at.info)
    at.switch_page("pages/debugger.py").run()
    at.button(key="demo_zh_complex_two_characters").click().run()
    press(at, "continue")
    at.switch_page("pages/trace.py").run()
    assert not at.exception
    assert any("present" in c.value and "of the 59 protocol fields" in c.value for c in at.caption)
    tables = [t.value for t in at.table]
    fields = {f: s for t in tables for f, s in zip(t["field"], t["state"], strict=False)}
    assert len(fields) == 59
    assert fields["retrieval_stage"] == "present" and fields["sub_traces"] == "present"
    assert fields["evidence_confidence"] == "null"  # null after synthesis, dropped by normalization
    assert fields["rewrite_method"] == "absent"
    assert sum("→" in e.label for e in at.expander) >= 2  # one expander per sub-trace
    assert at.get("download_button")
