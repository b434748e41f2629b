"""The debugger page while a Step calls a model that streams (rag_debugger/ui/step_controller.py): the running
call is shown with its tokens, every control but Stop is off, Stop leaves the run where it was with
a quiet line saying so, and the offline rules still step on the page."""
from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from rag.settings import RagSettings
from rag_debugger.ui.streamlit_state import FLASH_KEY, SESSION_KEY
from rag_debugger.workbench.session import DebugSession
from tests.support.apptest import controls_shown, finish_live_step, inspector_html, inspector_text, live_job, press
from tests.support.live_fake_model import StreamingFake

QUESTION = "丹瑾和青棠分别使用什么武器？"


def open_debugger(app_test, fake):
    session = DebugSession(RagSettings(model_provider="offline"), roles=fake.roles(), checkpointer=InMemorySaver())
    app_test.session_state[SESSION_KEY] = session
    at = app_test.run()
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value(QUESTION).run()
    return at, session


def test_a_running_step_shows_its_call_turns_the_controls_off_and_stop_leaves_the_run(app_test):
    fake = StreamingFake()
    fake.hold.clear()
    at, session = open_debugger(app_test, fake)
    press(at, "step", wait=False)
    assert not at.exception
    assert fake.started.wait(20)
    at.run()  # what the page's poll draws
    shown = controls_shown(inspector_html(at))
    assert shown == {"run": False, "step": False, "continue": False, "restart": False, "stop": True}
    text = inspector_text(at)
    assert "Running classify_complexity" in text and "planner" in text and "2 tokens" in text
    assert '{"complexity' in text  # the text so far
    # a click on the (disabled) Step that reaches the server anyway queues nothing
    at.session_state["pending_action"] = "step"
    at.run()
    assert live_job(at) is not None and len(session.current.stepper.steps) == 0

    press(at, "stop", wait=False)
    finish_live_step(at)
    assert not at.exception
    text = inspector_text(at)
    assert "Stopped: planner call cancelled after" in text
    assert "0 steps · paused before classify_complexity" in text
    assert controls_shown(inspector_html(at))["step"]
    assert "stop" not in controls_shown(inspector_html(at))

    # Step again runs the step to its end, and the note is gone
    fake.hold.set()
    press(at, "step")
    text = inspector_text(at)
    assert "1 step · paused before prepare_sub_questions" in text and "Stopped:" not in text


def test_a_stop_during_the_fan_out_names_the_lanes(app_test):
    fake = StreamingFake()
    at, session = open_debugger(app_test, fake)
    press(at, "step")
    press(at, "step")
    assert "paused before rag_sub_agent" in inspector_text(at)
    fake.hold.clear()
    fake.started.clear()
    press(at, "step", wait=False)
    assert fake.started.wait(20)
    at.run()
    text = inspector_text(at)
    assert "Lane 1: 丹瑾是什么属性？" in text and "Lane 2: 寒砚用什么武器？" in text and "grader" in text
    press(at, "stop", wait=False)
    finish_live_step(at)
    text = inspector_text(at)
    assert "Stopped: grader call cancelled" in text and "2 steps · paused before rag_sub_agent" in text


def test_the_offline_rules_step_on_the_page(app_test):
    at = app_test.run()
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value(QUESTION).run()
    press(at, "step", wait=False)
    assert live_job(at) is None  # nothing runs off the page: the step is done when the page is drawn
    assert "1 step · paused before" in inspector_text(at)



def test_a_click_refused_while_a_step_runs_says_why_at_once(app_test):
    """A demo or a new question refused meanwhile (rag_debugger/workbench/live_step.py `refuse_if_busy`) says so
    in the live view, not only once the step has ended."""
    fake = StreamingFake()
    fake.hold.clear()
    at, session = open_debugger(app_test, fake)
    press(at, "step", wait=False)
    assert fake.started.wait(20)
    at.session_state[FLASH_KEY] = ("warning", "a step is still running: wait for it or press Stop")  # what on_demo flashes
    at.run()
    assert "a step is still running: wait for it or press Stop" in inspector_text(at)
    fake.hold.set()
    finish_live_step(at)
    assert "1 step · paused before" in inspector_text(at)
    assert any("a step is still running" in w.body for w in at.warning)  # drawn once more, then gone
