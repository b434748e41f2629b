"""The step debugger page under Streamlit's AppTest: demos of every route, stepping with diffs and
the highlighted node, HITL answered with an option button and with text, bad input."""
from __future__ import annotations

import re

import pytest

from rag.demo import load_demo_questions
from tests.support.apptest import (
    control_enabled,
    graph_svg,
    inspector_dot,
    inspector_html,
    inspector_marks,
    inspector_sections,
    inspector_table,
    inspector_text,
    press,
    travel_to_step,
)

CURRENT_FILL = "#ffb74d"
DONE_FILL = "#a5d6a7"


def dot_of(at) -> str:
    """The DOT source of the graph view, shown under the picture with the same marks."""
    return inspector_dot(at)


def node_fill(dot: str, node: str) -> str | None:
    m = re.search(rf'^\s*"{node}" \[.*?fillcolor="(#[0-9a-f]+)"', dot, re.M)
    return m.group(1) if m else None


def diff_frame(at):
    return inspector_table(at, "diff")


def timeline_frame(at):
    return inspector_table(at, "timeline")


def texts(at) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n" + inspector_text(at)


def problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def result_line(at) -> str:
    for line in inspector_text(at).splitlines():
        if "Result:" in line:
            return line
    return ""


def test_page_loads_with_graph_and_demo_buttons(app_test):
    at = app_test.run()
    assert not problems(at)
    dot = dot_of(at)
    for node in ("classify_complexity", "retrieve_initial", "grade_documents", "rewrite_question",
                 "retrieve_rewritten", "prepare_sub_questions", "rag_sub_agent", "synthesis"):
        assert f'"{node}"' in dot
    assert "style=\"dashed\"" in dot and "Send" in dot
    assert "about to run" in inspector_text(at) and "already run" in inspector_text(at)  # the legend
    assert graph_svg(inspector_sections(at)["graph"]).count("<title>") > 10  # laid out on the server
    labels = {b.label for b in at.button}
    for demo in load_demo_questions():
        assert demo.label in labels
    assert any("Offline mode" in i.body for i in at.sidebar.info)


def test_step_shows_diff_and_moves_the_highlight(app_test):
    at = app_test.run()
    assert [control_enabled(at, a) for a in ("run", "step", "continue", "restart")] == [True, True, True, False]
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "step")
    assert not problems(at)
    dot = dot_of(at)
    assert node_fill(dot, "classify_complexity") == DONE_FILL
    assert node_fill(dot, "retrieve_initial") == CURRENT_FILL
    diff = diff_frame(at)
    row = diff[diff["field"] == "complexity"].iloc[0]
    assert (row["before"], row["after"], row["kind"]) == ("null", '"simple"', "changed")
    assert "Step 1: classify_complexity" in texts(at)
    assert "1 step · paused before retrieve_initial" in texts(at)
    hidden = inspector_table(at, "diff", include_hidden=True)
    assert "unchanged" in set(hidden["kind"]) and "unchanged" not in set(diff["kind"])  # shown on demand

    press(at, "step")  # retrieve_initial
    diff = diff_frame(at)
    trace_rows = diff[diff["field"].str.startswith("rag_trace.")]
    assert set(trace_rows["kind"]) == {"added"}
    assert "rag_trace.retrieval_stage" in set(diff["field"])
    assert node_fill(dot_of(at), "grade_documents") == CURRENT_FILL

    press(at, "continue")
    assert "Result: answer" in result_line(at)
    assert node_fill(dot_of(at), "__end__") == DONE_FILL
    # a finished run can only be restarted (or run again); Step is off, as a disabled button is
    assert [control_enabled(at, a) for a in ("run", "step", "continue", "restart")] == [True, False, False, True]
    with pytest.raises(AssertionError, match="disabled"):
        press(at, "step")
    timeline = timeline_frame(at)
    assert list(timeline["nodes"]) == ["classify_complexity", "retrieve_initial", "grade_documents"]
    # each decision shows on the step that made it only: retrieval decides nothing
    decisions = list(timeline["decision"])
    assert decisions[0] == "complexity=simple" and decisions[1] == "" and decisions[2].startswith("route=answer")


def test_time_travel_views_an_old_step_without_rerunning(app_test):
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "run")
    steps_before = len(timeline_frame(at))
    latest = diff_frame(at)
    travel_to_step(at, 0)
    assert not problems(at)
    assert "nothing was re-run" in texts(at)
    assert len(timeline_frame(at)) == steps_before
    assert "Step 1: classify_complexity" in texts(at)
    assert 'class="rdi-selected"' in inspector_html(at)  # the row travelled to is marked
    assert not diff_frame(at).equals(latest)
    press(at, "restart")  # moving on returns to the latest state
    assert "nothing was re-run" not in texts(at)


def _finish(at):
    press(at, "continue")
    assert not problems(at), problems(at)


@pytest.mark.parametrize("demo", load_demo_questions(), ids=lambda d: d.id)
def test_every_demo_reaches_its_route_in_the_app(app_test, demo):
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    assert at.text_area(key="question").value == demo.question
    _finish(at)
    if demo.expected_route in ("clarify", "scope_select"):
        assert any("The workflow asks you" in m.value for m in at.markdown)
        return
    expected = {"rewrite_then_answer": "answer", "complex": None}.get(demo.expected_route, demo.expected_route)
    if expected:
        assert f"Result: {expected} /" in result_line(at)
    if demo.expected_route == "complex":
        timeline = timeline_frame(at)
        assert "rag_sub_agent" in set(timeline["nodes"])
        assert int(timeline[timeline["nodes"] == "rag_sub_agent"]["lanes"].iloc[0]) == demo.expected_sub_questions


def _hitl_demo(route: str):
    return next(d for d in load_demo_questions() if d.expected_route == route and d.hitl_answer)


def test_scope_select_answered_with_an_option_button_resumes(app_test):
    demo = _hitl_demo("scope_select")
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    _finish(at)
    options = [b for b in at.button if b.key and b.key.startswith("hitl_opt_")]
    assert len(options) >= 2
    choice = next((b for b in options if b.label == demo.hitl_answer), options[0])
    choice.click().run()
    assert not problems(at)
    assert "HITL resume #1" in texts(at)
    assert '"restore_from_snapshot"' in dot_of(at)
    assert node_fill(dot_of(at), "restore_from_snapshot") == CURRENT_FILL
    _finish(at)
    assert f"Result: {demo.expected_resume_route} /" in result_line(at)
    timeline = timeline_frame(at)
    assert list(timeline["run"]).count("HITL resume #1") == 3


def test_clarify_answered_with_text_resumes(app_test):
    demo = _hitl_demo("clarify")
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    _finish(at)
    at.text_input(key="hitl_text").input(demo.hitl_answer)
    at.button(key="hitl_submit").click().run()
    _finish(at)
    assert f"Result: {demo.expected_resume_route} /" in result_line(at)


@pytest.mark.parametrize("question, message", [("", "empty"), ("   ", "empty"), ("问" * 100_000, "100,000 characters")])
def test_bad_questions_get_a_message_not_an_exception(app_test, question, message):
    at = app_test.run()
    at.text_area(key="question").set_value(question).run()
    press(at, "run")
    assert not at.exception
    assert any(message in w.body for w in at.warning)
    assert result_line(at) == ""


def test_empty_hitl_answer_gets_a_message(app_test):
    demo = _hitl_demo("clarify")
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    _finish(at)
    at.button(key="hitl_submit").click().run()
    assert not at.exception
    assert any("empty" in w.body for w in at.warning)


def test_run_streams_progress_into_a_status_box(app_test):
    at = app_test.run()
    at.button(key="demo_zh_complex_two_characters").click().run()
    press(at, "continue")
    assert not problems(at)
    status = at.status[0]
    assert status.state == "complete" and "steps run" in status.label
    lines = [m.value for m in status.markdown]
    assert any("Sub-question 1/2" in line for line in lines)
    assert any("Synthesis" in line for line in lines)
    assert sum("Retrieval (initial)" in line for line in lines) == 2  # one per parallel lane


def test_without_any_layout_program_the_graph_is_a_marked_list_in_its_column(app_test, monkeypatch):
    import rag_debugger.views.inspector_html as inspector

    monkeypatch.setattr(inspector, "layout_svg", lambda dot: None)  # neither graphviz-pure nor `dot`
    inspector._marked_picture.cache_clear()
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "step")
    assert not problems(at)
    assert not at.get("graphviz_chart")  # nothing drawn below the page any more
    graph = inspector_sections(at)["graph"]
    assert "<img" not in graph and '<li data-node="retrieve_initial" class="rdi-current">' in graph
    assert inspector_marks(at) == {"current": ["retrieve_initial"], "done": ["__start__", "classify_complexity"]}
    inspector._marked_picture.cache_clear()


def test_each_step_moves_the_marks_on_a_picture_laid_out_once(app_test, monkeypatch):
    import rag_debugger.views.inspector_html as inspector
    import rag_debugger.views.svg as svg_mod

    calls = []
    real_run = svg_mod.subprocess.run
    monkeypatch.setattr(svg_mod.subprocess, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    svg_mod.layout_svg.cache_clear()
    inspector._marked_picture.cache_clear()
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "step")
    first = graph_svg(inspector_sections(at)["graph"])
    assert inspector_marks(at) == {"current": ["retrieve_initial"], "done": ["__start__", "classify_complexity"],
                                   "send": {"prepare_sub_questions->rag_sub_agent": "Send"}}
    press(at, "step")
    assert inspector_marks(at)["current"] == ["grade_documents"]
    assert "retrieve_initial" in inspector_marks(at)["done"]
    unmarked = [re.sub(r' class="node rdi-\w+"', ' class="node"', graph_svg(inspector_sections(at)["graph"])), first]
    unmarked[1] = re.sub(r' class="node rdi-\w+"', ' class="node"', unmarked[1])
    assert unmarked[0] == unmarked[1]  # the same layout, only the marks moved
    assert len(calls) == 1, "the graph was laid out once, not once per Step"


def test_a_fan_out_step_shows_one_lane_per_sub_question(app_test):
    demo = next(d for d in load_demo_questions() if d.expected_route == "complex")
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    for _ in range(3):  # classify, prepare, the Send fan-out
        press(at, "step")
    text = texts(at)
    assert f"{demo.expected_sub_questions} parallel lanes" in text
    for i in range(1, demo.expected_sub_questions + 1):
        lane = inspector_table(at, f"lane{i}")
        assert list(lane["field"]) == ["sub_results"] and list(lane["kind"]) == ["added"]
    assert "paused before synthesis" in text


def test_clarify_offers_one_button_per_option_and_a_button_resumes(app_test):
    demo = _hitl_demo("clarify")
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    _finish(at)
    options = [b for b in at.button if b.key and b.key.startswith("hitl_opt_")]
    assert demo.hitl_answer in [b.label for b in options] and len(options) >= 2
    assert at.text_input(key="hitl_text")  # free text stays available
    next(b for b in options if b.label == demo.hitl_answer).click().run()
    assert not problems(at)
    assert "HITL resume #1" in texts(at)
    _finish(at)
    assert f"Result: {demo.expected_resume_route} /" in result_line(at)


def target_line(at) -> str:
    m = re.search(r'<p class="rdi-target"[^>]*>(.*?)</p>', inspector_html(at))
    return re.sub(r"<[^>]+>", "", m.group(1)) if m else ""


def test_a_new_question_after_a_finished_run_is_what_the_controls_run(app_test):
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "run")
    assert "The controls act on the loaded run: “丹瑾是什么属性？”" in target_line(at)
    assert not control_enabled(at, "step")
    new = "What is the capital of Australia?"
    at.text_area(key="question").set_value(new).run()
    # the controls say they will start the box's question, and Step / Continue are on again
    assert f"start the question in the box: “{new}”" in target_line(at)
    assert control_enabled(at, "step") and control_enabled(at, "continue")
    press(at, "step")
    assert not problems(at)
    assert "1 step · paused before" in texts(at)
    assert "The controls act on the loaded run: “What is the capital of Australia?”" in target_line(at)
    # Restart restarts what the box shows, never an older question
    other = "今天北京的天气怎么样？"
    at.text_area(key="question").set_value(other).run()
    press(at, "restart")
    assert "0 steps · paused before" in texts(at)
    assert f"loaded run: “{other}”" in target_line(at)
    press(at, "continue")
    assert "Result: no_knowledge /" in result_line(at)


def test_the_question_box_survives_a_visit_to_another_page(app_test):
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾的大招叫什么？").run()
    at.switch_page("pages/settings.py").run()
    at.switch_page("pages/debugger.py").run()
    assert at.text_area(key="question").value == "丹瑾的大招叫什么？"


def test_a_refused_question_shows_only_the_error_not_the_old_result(app_test):
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "run")
    assert "Result: answer /" in result_line(at)
    at.text_area(key="question").set_value("问" * 5_000).run()
    press(at, "run")
    assert any("5,000 characters" in w.body for w in at.warning)
    assert result_line(at) == "" and "No run yet" in texts(at)
