"""Time travel moves the graph: a past step is drawn in its own graph (main run or HITL resume),
with what had run by then and what ran next."""
from __future__ import annotations

from rag.demo import load_demo_questions
from tests.support.apptest import press, travel_to_step
from tests.ui.test_debugger_apptest import CURRENT_FILL, DONE_FILL, dot_of, node_fill, problems, texts


def test_travelling_to_step_one_draws_step_one(app_test):
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "run")
    assert node_fill(dot_of(at), "__end__") == DONE_FILL  # finished

    travel_to_step(at, 0)
    assert "nothing was re-run" in texts(at)
    dot = dot_of(at)
    assert node_fill(dot, "classify_complexity") == DONE_FILL
    assert node_fill(dot, "retrieve_initial") == CURRENT_FILL  # what ran next
    assert node_fill(dot, "grade_documents") is None and node_fill(dot, "__end__") not in (DONE_FILL, CURRENT_FILL)

    travel_to_step(at, 1)
    dot = dot_of(at)
    assert node_fill(dot, "retrieve_initial") == DONE_FILL and node_fill(dot, "grade_documents") == CURRENT_FILL


def test_after_a_resume_a_main_run_step_draws_the_main_graph(app_test):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.hitl_answer)
    at = app_test.run()
    at.button(key=f"demo_{demo.id}").click().run()
    press(at, "continue")
    main_steps = len(at.session_state["debug_session"].current.stepper.steps)
    at.text_input(key="hitl_text").input(demo.hitl_answer)
    at.button(key="hitl_submit").click().run()
    press(at, "step")
    assert not problems(at), problems(at)
    assert "HITL resume path" in dot_of(at) and '"restore_from_snapshot"' in dot_of(at)

    travel_to_step(at, main_steps - 1)  # the main run's last step
    dot = dot_of(at)
    assert "RAG workflow" in dot and '"restore_from_snapshot"' not in dot
    assert node_fill(dot, "grade_documents") == DONE_FILL and node_fill(dot, "__end__") == DONE_FILL

    travel_to_step(at, main_steps)  # the resume's first step
    dot = dot_of(at)
    assert "HITL resume path" in dot and node_fill(dot, "restore_from_snapshot") == DONE_FILL
    assert node_fill(dot, "retrieve_targeted") == CURRENT_FILL
