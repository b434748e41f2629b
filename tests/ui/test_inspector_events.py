"""What the inspector's browser events do on the server: a timeline click travels (a bad value is
ignored), "back to the latest step" returns, the full-state switch is read back, and a click on
Run / Step / Continue / Restart runs its handler only while that button is on."""
from __future__ import annotations

import types

import pytest

import rag_debugger.ui.panels.controls as controls
import rag_debugger.ui.panels.inspector as inspector
import rag_debugger.ui.panels.time_travel as time_travel
import rag_debugger.views.debugger_controls as buttons
from rag_debugger.views.control_rule import ControlState, enabled_buttons
from rag_debugger.views.inspector_html import inspector_sections
from tests.support.apptest import controls_shown
from tests.support.html_reader import read_html


@pytest.fixture()
def state(monkeypatch):
    fake = types.SimpleNamespace(session_state={})
    monkeypatch.setattr(inspector, "st", fake)
    monkeypatch.setattr(time_travel, "st", fake)
    monkeypatch.setattr(controls, "st", fake)
    return fake.session_state


@pytest.mark.parametrize("sent, travelled", [(2, 2), (0, 0), (2.0, 2), (-1, None), (True, None), ("2", None), (None, None)])
def test_a_timeline_click_travels_and_anything_else_is_ignored(state, sent, travelled):
    state[inspector.KEY] = {"travel": sent}
    inspector._on_travel()
    assert time_travel.travel_step(5) == travelled


def test_back_to_latest_and_a_step_that_no_longer_exists(state):
    state[inspector.KEY] = {"travel": 3}
    inspector._on_travel()
    assert time_travel.travel_step(5) == 3
    assert time_travel.travel_step(2) is None  # after a restart the old step is gone: the latest is shown
    state[inspector.KEY] = {"travel": -1}
    inspector._on_travel()
    assert time_travel.TRAVEL_KEY not in state


def test_the_full_state_switch_is_read_back(state):
    assert not inspector.full_state_wanted()
    state[inspector.KEY] = types.SimpleNamespace(full_state=True, travel=None)  # the component's result object
    assert inspector.full_state_wanted()


@pytest.mark.parametrize("done, has_run, replay, expected", [
    (False, False, False, {"run": True, "step": True, "continue": True, "restart": False}),  # nothing run yet
    (False, True, False, {"run": True, "step": True, "continue": True, "restart": True}),  # mid-run
    (True, True, False, {"run": True, "step": False, "continue": False, "restart": True}),  # finished
    (False, True, True, {"run": False, "step": True, "continue": True, "restart": True}),  # replay mid-way
    (True, True, True, {"run": False, "step": False, "continue": False, "restart": True}),  # replay at its end
])
def test_the_controls_drawn_are_the_ones_the_rule_has_on(done, has_run, replay, expected):
    state = ControlState(started=has_run, finished=done, replay=replay)
    html = buttons.controls_html(state)
    assert controls_shown(html) == expected  # no Stop button unless a step runs
    assert ("Replay:" in html) == replay
    assert "Run exactly one superstep" in html  # the tooltip of Step


@pytest.mark.parametrize("new_question", [False, True])
def test_while_a_step_runs_only_stop_is_drawn_on(new_question):
    """A second Step click must not queue a step, whatever the box says (rag_debugger/ui/step_controller.py)."""
    off = {"run": False, "step": False, "continue": False, "restart": False}
    state = ControlState(started=True, finished=False, new_input=new_question, running=True)
    html = buttons.controls_html(state, box="another question" if new_question else "", loaded="q")
    assert controls_shown(html) == {**off, "stop": True}
    assert 'data-running="1"' in html  # inspector.js then leaves the buttons off while the user types


@pytest.mark.parametrize("sent, queued", [("step", "step"), ("restart", "restart"), ("delete", None),
                                          ("", None), (None, None), (1, None), (["step"], None)])
def test_a_control_click_queues_only_a_known_action(state, sent, queued):
    state[inspector.KEY] = {"action": sent}
    inspector._on_action()
    assert state.get(controls.PENDING_ACTION_KEY) == queued


def test_the_queued_action_runs_once_and_a_disabled_one_not_at_all(state):
    ran = []
    handlers = {a: (lambda a=a: ran.append(a)) for a in controls.ACTIONS}
    on = enabled_buttons(ControlState(started=True, finished=False))
    assert controls.take_action(handlers, on) is None and ran == []  # nothing queued
    state[controls.PENDING_ACTION_KEY] = "step"
    assert controls.take_action(handlers, on) == "step" and ran == ["step"]
    assert controls.take_action(handlers, on) is None and ran == ["step"]  # taken once
    state[controls.PENDING_ACTION_KEY] = "step"
    finished = enabled_buttons(ControlState(started=True, finished=True))
    assert controls.take_action(handlers, finished) is None and ran == ["step"]
    assert controls.PENDING_ACTION_KEY not in state  # a refused click does not linger


def test_the_controls_are_real_buttons_in_page_order():
    page = read_html(buttons.controls_html(ControlState(started=True, finished=False)))
    assert "".join(page.text).strip().startswith("RunStepContinue to endRestart")


def test_the_full_state_switch_adds_the_typed_state_and_a_finished_run_has_its_waterfall(state):
    from rag.demo import load_demo_questions
    from rag_debugger.workbench.session import DebugSession

    session = DebugSession()
    session.start(next(d for d in load_demo_questions() if d.expected_route == "answer").question)
    session.run_to_end()
    off, _ = inspector_sections(session, None, full_state=False)
    on, _ = inspector_sections(session, None, full_state=True)
    assert 'data-id="typed_state"' not in off["step"] and 'data-id="typed_state"' in on["step"]
    assert 'data-field="grade"' in on["step"] and 'data-badge="route"' in on["step"]  # typed, not JSON text
    assert 'data-id="waterfall"' in on["progress"] and 'data-kind="step"' not in on["progress"]  # folded: not built
    opened, _ = inspector_sections(session, None, opened=frozenset({"waterfall"}))
    assert 'id="waterfall"' in opened["progress"] and opened["progress"].count('data-kind="step"') == 3
    assert 'data-mode="extractive"' in on["head"]
