"""Your graph at full power under AppTest: breakpoints (Continue pauses before a chosen node, Continue again
runs on; Run ignores them), what-if (edit a field after a past step, run forward as a fork, the fork beside
the original with both final states compared), and the page's own breakpoints kept apart from the RAG
debugger's."""
from __future__ import annotations

from rag_debugger.ui.graph_page import BREAKPOINT_SCOPE, SESSION_KEY
from rag_debugger.ui.panels.breakpoint_picker import BREAKPOINTS_KEY
from tests.support.apptest import inspector_html, inspector_table, inspector_text, press

MY_BREAKPOINTS = BREAKPOINT_SCOPE + BREAKPOINTS_KEY


def typed(at, label: str, value: str):
    at.text_input(key=next(w.key for w in at.text_input if w.label == label)).input(value)
    at.run()
    return at


def test_continue_pauses_before_a_breakpoint_then_runs_on_and_run_ignores_it(graph_app):
    at = typed(graph_app("rag_debugger.examples.chain:graph"), "text · str", "a b c")
    at.session_state[MY_BREAKPOINTS] = ["shout"]
    press(at, "continue")
    assert "paused before shout" in inspector_text(at)
    assert any("Breakpoint: paused before `shout`" in i.body for i in at.info)
    press(at, "continue")
    assert "finished" in inspector_text(at)
    press(at, "run")
    assert "finished" in inspector_text(at) and "3 steps" in inspector_text(at)


def test_the_rag_debuggers_breakpoints_do_not_stop_your_graph(graph_app):
    at = typed(graph_app("rag_debugger.examples.chain:graph"), "text · str", "a")
    at.session_state[BREAKPOINTS_KEY] = ["count"]  # picked on the RAG debugger, same browser session
    press(at, "continue")
    assert "finished" in inspector_text(at)


def test_the_breakpoint_picker_offers_the_graphs_own_nodes(graph_app):
    at = graph_app("rag_debugger.examples.chain:graph")
    at.session_state[BREAKPOINT_SCOPE + "breakpoints_folded"] = True
    at.run()
    picker = at.multiselect(key=BREAKPOINT_SCOPE + "breakpoint_pick")
    assert picker.options == ["clean", "count", "shout"]
    picker.select("count").run()
    assert at.session_state[MY_BREAKPOINTS] == ["count"]


def test_a_what_if_fork_runs_forward_and_is_compared_with_the_original(graph_app):
    at = typed(graph_app("rag_debugger.examples.chain:graph"), "text · str", "one two three")
    press(at, "run")
    at.session_state["yg_what_if_folded"] = True
    at.run()
    at.number_input(key="yg_what_if_step").set_value(1).run()
    field = at.selectbox(key="yg_what_if_field")
    assert "log" not in field.options  # an appending reducer cannot be replaced
    field.select("text").run()
    at.text_area(key="yg_what_if_value_0_text").input('"just two"').run()
    at.button(key="yg_what_if_run").click().run()
    assert not at.exception
    assert any("what-if #1" in s.value and "edited after step 1" in s.value for s in at.success)
    html = inspector_html(at)
    assert "rdi-fork" in html and "Final states compared: original → fork" in html
    diff = inspector_table(at, "fork_diff")
    changed = dict(zip(diff["field"], diff["kind"], strict=False))
    assert changed["words"] == "changed" and changed["shouted"] == "changed"
    session = at.session_state[SESSION_KEY]
    assert session.fork_comparison()[1]["shouted"] == "JUST TWO"
    assert [seg.label for seg in session.segments] == ["run", "what-if #1"]
    assert "5 steps" not in inspector_text(at)  # the position counts the fork's own steps
    assert len(session.all_steps()) == 5  # the original's three stay in the timeline
    timeline = inspector_table(at, "timeline")
    assert list(timeline["run"]) == ["run"] * 3 + ["what-if #1"] * 2  # the fork's rows say they are the fork's

