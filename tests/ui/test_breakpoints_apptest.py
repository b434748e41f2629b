"""Breakpoints under AppTest: Continue pauses before a node that has one (before the fan-out on
rag_sub_agent), Continue again runs to the end; Run ignores them."""
from __future__ import annotations

from rag.demo import load_demo_questions
from rag_debugger.debugger.breakpoints import breakpoint_hit
from rag_debugger.ui.panels.breakpoint_picker import BREAKPOINTS_KEY
from tests.support.apptest import inspector_text, press


def test_the_rule_matches_the_next_superstep():
    assert breakpoint_hit(("rag_sub_agent", "rag_sub_agent"), {"rag_sub_agent"}) == "rag_sub_agent"
    assert breakpoint_hit(("synthesis",), {"grade_documents"}) is None


def load(at, demo_id: str):
    at.run()
    at.text_area(key="question").set_value(next(d for d in load_demo_questions() if d.id == demo_id).question).run()
    return at


def test_continue_pauses_at_a_breakpoint_before_the_fanout_then_runs_on(app_test):
    at = load(app_test, "en_complex_two_products")
    at.session_state[BREAKPOINTS_KEY] = ["rag_sub_agent"]
    press(at, "continue")
    text = inspector_text(at)
    assert "paused before rag_sub_agent ×2 (parallel)" in text
    assert any("Breakpoint: paused before `rag_sub_agent`" in i.body for i in at.info)
    press(at, "continue")
    assert "Result:" in inspector_text(at) and "finished" in inspector_text(at)


def test_run_ignores_breakpoints(app_test):
    at = load(app_test, "en_answer_temperature")
    at.session_state[BREAKPOINTS_KEY] = ["grade_documents"]
    press(at, "run")
    assert "Result: answer" in inspector_text(at)
