"""The URL names the run and the step being viewed; a new browser session (a reload, a bookmark,
a colleague's link) opens that run at that step, and a bad link gets a message."""
from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest

from rag.demo import load_demo_questions
from rag_debugger.ui.panels.inspector import COMPONENT_NAME
from tests.support.apptest import control_enabled, press, travel_to_step
from tests.ui.test_debugger_apptest import CURRENT_FILL, DONE_FILL, dot_of, node_fill, problems, texts
from tests.ui.test_history_apptest import new_app


def link(at) -> dict:
    """The query parameters the inspector writes into the URL ({} for none)."""
    for element in at.main:
        proto = getattr(element, "proto", None)
        if getattr(proto, "component_name", None) == COMPONENT_NAME:
            return {k: v[-1] for k, v in parse_qs(json.loads(proto.json)["link"].lstrip("?")).items()}
    raise AssertionError("no inspector on the page")


def _reload(at, params=None):
    """A new browser session on the page's URL (what F5 or a pasted link gives)."""
    fresh = new_app()
    for key, value in (params or link(at)).items():
        fresh.query_params[key] = value
    return fresh.run()


def _warnings(at) -> str:
    return "\n".join(w.body for w in at.warning)


def test_a_reload_mid_run_opens_the_run_at_the_same_step(env):
    at = new_app().run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "step")
    press(at, "step")
    run_id = at.session_state["debug_session"].current.run_id
    assert link(at) == {"run": run_id, "step": "2"}

    again = _reload(at)
    assert not problems(again), problems(again)
    assert again.text_area(key="question").value == "丹瑾是什么属性？"
    assert "Step 2: retrieve_initial" in texts(again)
    assert "never finished" in texts(again)  # the recording stops where the run was left
    dot = dot_of(again)
    assert node_fill(dot, "retrieve_initial") == DONE_FILL and node_fill(dot, "grade_documents") == CURRENT_FILL
    assert link(again) == {"run": run_id, "step": "2"}


def test_a_link_to_a_past_step_of_a_resumed_run_travels_there(env):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.hitl_answer)
    at = new_app().run()
    at.button(key=f"demo_{demo.id}").click().run()
    press(at, "continue")
    at.text_input(key="hitl_text").input(demo.hitl_answer)
    at.button(key="hitl_submit").click().run()
    press(at, "continue")
    session = at.session_state["debug_session"]
    total = len(session.all_steps())
    assert link(at) == {"run": session.current.run_id, "step": str(total)}
    travel_to_step(at, 1)
    assert link(at)["step"] == "2"

    again = _reload(at)
    assert not problems(again), problems(again)
    assert "Viewing the state after step 2" in texts(again)
    assert "RAG workflow" in dot_of(again)  # the main run's graph, not the resume's
    assert "Result: " in texts(again) or "HITL resume #1 (recorded)" in texts(again)
    assert not control_enabled(again, "run")  # replayed: nothing executes


def test_a_link_into_the_session_itself_travels_live(env):
    at = new_app().run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "continue")
    at.query_params.update({**link(at), "step": "1"})  # the same tab follows a changed link
    at.run()
    assert "Viewing the state after step 1" in texts(at)
    assert not at.session_state["debug_session"].replay_mode


@pytest.mark.parametrize("params, message", [
    ({"run": "main-doesnotexist"}, "not in this app's run history"),
    ({"run": "<img src=x>", "step": "1"}, "is not a run id"),
    ({"run": "main-doesnotexist", "step": "NaN"}, "is not a step number"),
])
def test_a_bad_link_gets_a_message_not_a_traceback(env, params, message):
    at = new_app()
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not problems(at), problems(at)
    assert message in _warnings(at)
    assert "No run yet" in texts(at)
    assert link(at) == {}  # the page no longer claims to show that run


def test_a_step_beyond_the_run_shows_its_last_step(env):
    at = new_app().run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "continue")
    total = len(at.session_state["debug_session"].all_steps())
    again = _reload(at, {**link(at), "step": "999"})
    assert not problems(again)
    assert f"this run has {total} steps" in _warnings(again)
    assert "Result: answer" in texts(again)
    assert link(again)["step"] == str(total)


def test_a_link_is_followed_once_and_never_pulls_the_page_back(env):
    at = new_app().run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "step")
    again = _reload(at)  # Streamlit keeps sending this first query string on every rerun
    assert again.session_state["debug_session"].replay_mode
    again.button(key="exit_replay").click().run()
    demo = next(d for d in load_demo_questions() if d.expected_route == "no_knowledge")
    again.button(key=f"demo_{demo.id}").click().run()
    press(again, "step")
    session = again.session_state["debug_session"]
    assert not session.replay_mode and session.question == demo.question
    assert link(again) == {"run": session.current.run_id, "step": "1"}
