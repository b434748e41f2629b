"""Test connection on the Settings page tests what is typed (saved or not), finds a method that works, and
offers it for the session; the reply caps and the parallel calls are settings of the page too."""
from __future__ import annotations

import pytest

from tests.support.fake_openai import HttpError, running_fake_openai

KEY = "sk-typed-7c1e9a3b5d2f4a6c"
PLAN = {"complexity": "simple", "complexity_reason": "ping", "sub_questions": []}

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")


@pytest.fixture
def fake():
    from rag.models.health import forget

    with running_fake_openai() as server:
        forget(server.base_url)
        yield server


def type_endpoint(at, base_url: str):
    """Fill the model form without saving it."""
    at.switch_page("pages/settings.py").run()
    at.selectbox(key="set_provider").set_value("openai")
    at.text_input(key="set_base_url").input(base_url)
    at.text_input(key="set_api_key").input(KEY)
    at.text_input(key="set_fast_model").input("fast-model")
    at.number_input(key="set_timeout").set_value(5.0)
    return at


def test_typed_settings_are_tested_without_saving_them(app_test, fake):
    fake.reply(PLAN)
    at = type_endpoint(app_test.run(), fake.base_url)
    at.button(key="test_connection").click().run()
    assert not at.exception
    assert any("Connected in" in s.body for s in at.success)
    [req] = fake.requests
    assert req._bearer == KEY and req.model == "fast-model", "the typed key and model were used"
    saved = at.session_state["settings_overrides"] if "settings_overrides" in at.session_state else {}
    assert "openai_base_url" not in saved, "a test saves nothing"
    assert at.text_input(key="set_api_key").value == "", "the typed key is not kept in the widget"


def test_a_method_that_works_is_offered_for_the_session(app_test, fake):
    fake.script(HttpError.llama_cpp_json_schema(), method="json_schema")
    fake.reply(PLAN)
    at = type_endpoint(app_test.run(), fake.base_url)
    at.button(key="test_connection").click().run()
    assert any("RAG_STRUCTURED_OUTPUT_METHOD=function_calling" in i.body for i in at.info)
    at.button(key="use_tested_method").click().run()
    assert not at.exception
    overrides = at.session_state["settings_overrides"]
    assert overrides["structured_output_method"] == "function_calling"
    assert overrides["openai_base_url"] == fake.base_url, "the tested settings are the ones used"
    assert overrides["openai_api_key"].get_secret_value() == KEY
    assert any("function_calling" in s.body for s in at.success)


def test_reply_caps_and_parallel_calls_are_saved(app_test, fake):
    at = type_endpoint(app_test.run(), fake.base_url)
    at.number_input(key="set_max_tokens_grader").set_value(900)
    at.number_input(key="set_concurrency").set_value(2)
    next(b for b in at.button if b.label == "Save model settings").click().run()
    assert not at.exception
    overrides = at.session_state["settings_overrides"]
    assert overrides["max_tokens_grader"] == 900 and overrides["model_concurrency"] == 2
    assert overrides["max_tokens_planner"] is None, "an untouched cap stays the role's default"


def test_a_typed_url_with_a_query_string_is_not_tested(app_test):
    with running_fake_openai() as server:
        at = type_endpoint(app_test.run(), server.base_url + "?x=1")
        at.button(key="test_connection").click().run()
        assert any("query string" in e.body for e in at.error)
        assert not server.requests


def test_the_sidebar_badge_follows_the_runs_calls_after_the_connection_test(app_test, fake):
    fake.reply(PLAN, schema="ComplexityResult")
    fake.reply({"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
                "route": "answer", "reason": "Danjin", "missing_slots": [], "hitl_prompt": "", "hitl_options": []},
               schema="EvidenceGrade")
    fake.reply({"answer": "Havoc [1]"}, method="plain")
    at = type_endpoint(app_test.run(), fake.base_url)
    next(b for b in at.button if b.label == "Save model settings").click().run()
    at.text_input(key="set_api_key").input(KEY)
    at.button(key="test_connection").click().run()
    assert any("connection test" in s.body for s in at.sidebar.success)
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value("What is the attribute of Danjin in the game?").run()
    from tests.support.apptest import press

    press(at, "run")
    assert not at.exception
    badges = [s.body for s in at.sidebar.success]
    assert badges and "connection test" not in badges[-1], badges
    assert any(role in badges[-1] for role in ("grader", "answerer")), badges
