"""Both debugger pages have one controller (rag_debugger/ui/step_controller.py): at the same place of a run
the Step debugger (the RAG workflow) and the Your graph page (any graph) draw the same buttons on and off,
the ones the one rule says, and a click on a button that is off does nothing on either."""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag_debugger.ui.panels.controls import PENDING_ACTION_KEY
from rag_debugger.views.control_rule import ControlState, enabled_buttons
from tests.support.apptest import controls_shown, inspector_html, press

EXPECTED = {
    "not started": ControlState(started=False, finished=False),
    "paused": ControlState(started=True, finished=False),
    "waiting for an answer": ControlState(started=True, finished=True, waiting=True),
    "finished": ControlState(started=True, finished=True),
}
"""What each place of a run is, for the rule (a page shows no Stop button unless a step runs)."""


def _shown(at) -> dict[str, bool]:
    assert not at.exception, at.exception
    return controls_shown(inspector_html(at))


def _rule(place: str) -> dict[str, bool]:
    return {k: v for k, v in enabled_buttons(EXPECTED[place]).items() if k != "stop"}


def _rag_page(app_test, place: str):
    at = app_test.run()
    if place == "not started":
        return at
    route = "clarify" if place == "waiting for an answer" else "answer"
    demo = next(d for d in load_demo_questions() if d.expected_route == route)
    at.text_area(key="question").set_value(demo.question).run()
    press(at, "step")
    if place != "paused":
        press(at, "continue")
    return at


def _graph_page(graph_app, place: str):
    if place == "waiting for an answer":
        at = graph_app("rag_debugger.examples.approval:graph", RAG_DEBUG_INPUT="rag_debugger/examples/approval_input.json")
        return press(at, "continue")
    at = graph_app("rag_debugger.examples.chain:graph")
    if place == "not started":
        return at
    press(at, "step")
    if place != "paused":
        press(at, "continue")
    return at


@pytest.mark.parametrize("place", list(EXPECTED))
def test_the_step_debugger_turns_on_what_the_rule_says(app_test, place):
    assert _shown(_rag_page(app_test, place)) == _rule(place)


@pytest.mark.parametrize("place", list(EXPECTED))
def test_the_your_graph_page_turns_on_the_same(graph_app, place):
    """The same place of a run as the test above: the same buttons, whatever graph the page steps."""
    assert _shown(_graph_page(graph_app, place)) == _rule(place)


@pytest.mark.parametrize("page", ["rag", "graph"])
def test_a_click_on_a_button_that_is_off_does_nothing(app_test, graph_app, page):
    """A stale click (sent by a page drawn before the run finished) on Step of a finished run: no step, no
    message, on either page."""
    at = _rag_page(app_test, "finished") if page == "rag" else _graph_page(graph_app, "finished")
    key = "debug_session" if page == "rag" else "any_graph_session"
    steps = len(at.session_state[key].all_steps())
    at.session_state[PENDING_ACTION_KEY] = "step"
    at.run()
    assert not at.exception
    assert len(at.session_state[key].all_steps()) == steps
    assert PENDING_ACTION_KEY not in at.session_state
    assert not at.warning and not at.error


@pytest.mark.parametrize("page", ["rag", "graph"])
def test_a_run_that_cannot_start_says_why_the_same_way_on_both_pages(app_test, graph_app, page):
    """A user error (the RAG page's `UserInputError`, the graph page's `DebuggerUserError`) is one warning,
    never a traceback, and starts nothing."""
    if page == "rag":
        at = app_test.run()
        at.text_area(key="question").set_value("   ").run()
        key, words = "debug_session", "empty"
    else:
        at = graph_app("rag_debugger.examples.chain:graph")
        next(w for w in at.text_area if w.label.startswith("log")).input("[not json").run()
        key, words = "any_graph_session", "log: not valid JSON"
    press(at, "run")
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and words in warnings[0], warnings
    assert not any("Traceback" in e.value for e in at.error)
    assert not at.session_state[key].segments
