"""A case made from a recorded run: the question of the main run, the HITL answer that was given, the
route of the run that answer led to, its evidence files, the link back, and the verdict a person gives by
keeping or changing the route (table tests over RunInfo rows)."""
from __future__ import annotations

import pytest

from rag.eval.from_run import case_from_run, run_facts, split_items
from rag.eval.question_sets import QuestionSetError
from rag.runs.run_info import RunInfo


def run(run_id: str, kind: str = "main", route=None, question="How do I reset the Nova?", answer=None, docs=(),
        parent=None) -> RunInfo:
    trace = {"hitl_answer": answer} if answer else {}
    return RunInfo(run_id=run_id, thread_id=run_id, kind=kind, question=question, route=route, parent_run_id=parent,
                   created_at="2026-12-04T10:00:00+00:00", status="done",
                   result={"route": route, "docs": [{"filename": d} for d in docs], "rag_trace": trace})


MAIN = run("main-1", route="scope_select")
RESUME = run("resume-1", "resume", route="answer", question="How do I reset the Nova? (clarification: Nova Thermostat)",
             answer="Nova Thermostat", docs=("nova_thermostat.md", "nova_thermostat.md", "faq.md"), parent="main-1")


@pytest.mark.parametrize(("chain", "answers", "expected"), [
    # a run that did not ask
    ([run("main-2", route="answer", docs=("a.md",))], [], ("main-2", "How do I reset the Nova?", None, "answer", ("a.md",))),
    # a run that asked, added with the answer given later: the answered run's route and evidence
    ([MAIN], [RESUME], ("main-1", "How do I reset the Nova?", "Nova Thermostat", "answer",
                        ("nova_thermostat.md", "faq.md"))),
    # a run that asked and was never answered
    ([MAIN], [], ("main-1", "How do I reset the Nova?", None, "scope_select", ())),
    # the resume run itself: the main run's question, its own answer
    ([MAIN, RESUME], [], ("resume-1", "How do I reset the Nova?", "Nova Thermostat", "answer",
                          ("nova_thermostat.md", "faq.md"))),
    # a run still running has no route yet
    ([run("main-3")], [], ("main-3", "How do I reset the Nova?", None, None, ())),
])
def test_run_facts(chain, answers, expected):
    facts = run_facts(chain, answers)
    assert (facts.run_id, facts.question, facts.hitl_answer, facts.route, facts.sources) == expected


@pytest.mark.parametrize(("expected_route", "verdict", "case_route", "case_verdict"), [
    (None, None, "answer", "good"),  # kept the run's route: a person says it is right
    ("answer", None, "answer", "good"),
    ("no_knowledge", None, "no_knowledge", "wrong"),  # named another route (the Feedback panel's correction)
    ("no_knowledge", "good", "no_knowledge", "good"),  # an explicit verdict wins
])
def test_case_from_run_route_and_verdict(expected_route, verdict, case_route, case_verdict):
    case = case_from_run(run_facts([MAIN], [RESUME]), expected_route=expected_route, verdict=verdict, tags=["hitl"])
    assert (case.expected_route, case.verdict, case.from_run, case.hitl_answer) == (
        case_route, case_verdict, "main-1", "Nova Thermostat")
    assert case.expected_sources == ["nova_thermostat.md", "faq.md"] and case.tags == ["hitl"]


def test_edited_fields_win_and_an_emptied_answer_is_none():
    case = case_from_run(run_facts([MAIN], [RESUME]), question="Reset the Nova?", hitl_answer="",
                         expected_sources=["x.md"], case_id="mine")
    assert (case.id, case.question, case.hitl_answer, case.expected_sources) == ("mine", "Reset the Nova?", None, ["x.md"])


@pytest.mark.parametrize(("fields", "field"), [
    ({"question": "   "}, "question"), ({"expected_route": "maybe"}, "expected_route"),
])
def test_a_field_a_case_cannot_hold_is_named(fields, field):
    with pytest.raises(QuestionSetError, match=f"field '{field}'"):
        case_from_run(run_facts([MAIN]), **fields)


@pytest.mark.parametrize(("text", "lines", "items"), [
    ("a.md\n\n b.md \na.md", True, ["a.md", "b.md"]), ("en, hitl，zh,,en", False, ["en", "hitl", "zh"]), ("", False, []),
])
def test_split_items(text, lines, items):
    assert split_items(text, lines=lines) == items


def test_a_run_without_a_route_gets_no_verdict():
    case = case_from_run(run_facts([run("main-3")]), expected_route="answer")
    assert (case.expected_route, case.verdict) == ("answer", None)


def test_answers_to_finds_the_resume_runs_of_a_run_in_the_history(tmp_path):
    from rag.eval.from_run import answers_to
    from rag.runs.history import RunHistory

    with RunHistory(tmp_path / "h.db") as history:
        main = history.record_start("How do I reset the Nova?").run_id
        first = history.record_start("answer 1", kind="resume", parent_run_id=main).run_id
        history.record_start("a fork", kind="resume", parent_run_id=main, fork={"step": 1, "field": "route"})
        history.record_start("elsewhere")
        second = history.record_start("answer 2", kind="resume", parent_run_id=main).run_id
        assert [r.run_id for r in answers_to(history, main)] == [first, second]
        assert answers_to(history, first) == []
