"""What a newcomer's walk through the demo found, each a case: a what-if fork that writes a route over a HITL
stop no longer breaks the page; a resume or a fork with no step of its own does not say "Nothing has run
yet" beside the timeline of the run before it; a fork that changes nothing says so instead of an empty table
headed "This step changed no state field"."""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from rag.settings import RagSettings
from rag_debugger.views.inspector_html import inspector_sections, position_html
from rag_debugger.workbench.session import DebugSession
from tests.support.html_reader import read_html


@pytest.fixture
def history(tmp_path):
    h = RunHistory(tmp_path / "history.db")
    yield h
    h.close()


def _demo(route: str):
    return next(d for d in load_demo_questions() if d.expected_route == route)


def _text(session) -> str:
    sections, _values = inspector_sections(session, None, interactive=False)
    return " ".join(" ".join(read_html(html).text) for html in sections.values() if isinstance(html, str))


def test_a_fork_that_writes_no_knowledge_over_a_clarify_stop_ends_in_that_route_and_asks_nothing(history):
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(_demo("clarify").question)
    session.run_to_end()
    assert session.result()["hitl_resume_state"]["route"] == "clarify"
    last = len(session.all_steps()) - 1
    session.fork(last, "route", "no_knowledge")  # raised a HitlResumeState validation error; the page stayed broken
    result = session.result()
    assert result["route"] == "no_knowledge" and "hitl_resume_state" not in result
    assert "The workflow asks you" not in _text(session)


def test_a_resume_before_its_first_step_points_at_the_timeline_not_at_nothing(history):
    demo = _demo("clarify")
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(demo.question)
    session.run_to_end()
    before = len(session.all_steps())
    session.answer_hitl(demo.hitl_answer)
    text = _text(session)
    assert "Nothing has run yet" not in text
    assert "has not run a step yet" in text and "restore_from_snapshot" in text
    assert f"The {before} steps before it are in the timeline." in text


def test_a_fork_with_nothing_left_to_run_and_no_difference_says_both_plainly(history):
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(_demo("complex").question)
    session.run_to_end()
    last = len(session.all_steps()) - 1
    route = session.current.stepper.current_values()["route"]
    session.fork(last, "route", route)  # the What-if panel's defaults: the last step, the route, its own value
    position = " ".join(read_html(position_html(session)).text)
    assert "nothing was left to run" in position
    text = _text(session)
    assert "Nothing has run yet" not in text and "Press Step" not in text  # Step is off on a finished fork
    assert "Nothing was left to run in" in text
    assert "the fork ends in the same state as the original (no field differs)" in text
    assert "This step changed no state field" not in text


def test_a_first_visit_keeps_the_plain_note(history):
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(_demo("answer").question)
    assert "Nothing has run yet" in _text(session)  # nothing before it: the plain words are true


def _outcome_line(history, a_id: str, b_id: str) -> list[str]:
    from rag.runs.divergence import compare_sides, side_from_history
    from rag_debugger.views.compare_content import comparison_blocks

    a, b = side_from_history(history, a_id), side_from_history(history, b_id)
    return [blk.text for blk in comparison_blocks(compare_sides(a, b), a, b, show_all=False)]


def test_compare_names_a_run_that_never_finished_instead_of_an_empty_route(history):
    demo = _demo("clarify")
    ids = []
    for _i in range(2):  # two visitors who stepped once and left: the sweep marks both abandoned
        session = DebugSession(RagSettings(model_provider="offline"), history=history)
        session.start(demo.question)
        session.step()
        ids.append(session.current.run_id)
    history.mark_abandoned(ids)
    texts = _outcome_line(history, *ids)
    route = next(t for t in texts if t.startswith("Route:"))
    assert "``" not in route and route.count("none (the run did not finish)") == 2
    assert "evidence" not in route  # neither reached the answerer: no "same evidence for the answer"

    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(demo.question)
    session.run_to_end()
    main = session.current.run_id
    session.answer_hitl(demo.hitl_answer)  # answered, then left before the resume's first step
    history.mark_abandoned([session.current.run_id])
    texts = _outcome_line(history, main, session.current.run_id)
    route = next(t for t in texts if t.startswith("Route:"))
    assert route == "Route: `clarify` → none (the run did not finish)"
    assert not any("no divergence" in t for t in texts)


def test_the_evaluate_page_shows_answer_accuracy_beside_route_accuracy(eval_sets):
    """Routes all right, one answer wrong: the page's figures must not read 1.000 across the board."""
    from streamlit.testing.v1 import AppTest

    from tests.support.browser import ROOT

    eval_sets([
        {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?",
         "expected_route": "answer", "expected_answer_contains": ["-10 °C", "45 °C"]},
        {"id": "temp_wrong", "question": "What is the operating temperature range of the Lumen X2?",
         "expected_route": "answer", "expected_answer_contains": ["80 °C"]},
        {"id": "capital", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"},
    ])
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/evaluate.py").run()
    at.button(key="eval_run").click().run()
    assert not at.exception
    figures = {m.label: m.value for m in at.metric}
    assert figures["Route accuracy"] == "1.000"
    assert figures["Answer accuracy"] == "0.500"  # one of the two cases with expected words


def test_a_run_that_stops_on_a_question_says_it_waits_for_the_answer_not_only_finished(history):
    demo = _demo("clarify")
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(demo.question)
    session.run_to_end()
    position = " ".join(read_html(position_html(session)).text)
    assert "finished: it waits for your answer" in position
    session.answer_hitl(demo.hitl_answer)
    session.run_to_end()
    position = " ".join(read_html(position_html(session)).text)
    assert position.endswith("· finished")  # answered: nothing waits any more


def test_with_no_run_loaded_the_page_says_so_once(history):
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    text = _text(session)
    assert text.count("No run yet") == 1
    assert "Nothing has run yet" not in text  # the same advice a third time, under the position line


def test_a_replay_before_its_first_step_names_the_controls_a_replay_has(history):
    demo = _demo("answer")
    recorded = DebugSession(RagSettings(model_provider="offline"), history=history)
    recorded.start(demo.question)
    recorded.run_to_end()
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.open_replay(history, recorded.current.run_id)
    text = " ".join(_text(session).split())
    assert "or Run to run to the end" not in text  # Run is off in a replay
    assert "Step walks it one step at a time, Continue plays it to the end." in text
