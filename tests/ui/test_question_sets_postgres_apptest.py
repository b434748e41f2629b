"""Question sets on a team's shared PostgreSQL history (the suite's real server): made and edited on the
Evaluate page, added from Run history, seen by a second app session, a concurrent edit refused."""
from __future__ import annotations

from rag.eval.question_sets import QuestionSetStore
from rag.runs.history import RunHistory
from tests.ui.test_question_sets_apptest import by_prefix, evaluate_page, new_app, problems, run_demo, said


def test_sets_on_a_shared_postgresql_history(env, monkeypatch, postgres_server):
    url = postgres_server.new_schema()
    monkeypatch.setenv("RAG_HISTORY_URL", url)
    at = new_app().run()
    demo = run_demo(at, "answer")
    at.switch_page("pages/history.py").run()
    at.session_state["history_add_to_set_folded"] = True
    at.switch_page("pages/history.py").run()
    by_prefix(at.text_input, "history_add_to_set_", "_new_name").set_value("Team set")
    at.button(key="history_add_to_set_add").click()
    at.switch_page("pages/history.py").run()
    assert "Added case q1 to question set “Team set” (1 case)" in said(at) and not problems(at)

    ana, bo = evaluate_page(at), evaluate_page(new_app().run())  # bo: another browser
    assert by_prefix(bo.text_area, "qs_edit_", "_question").value == demo.question
    for person, text in ((ana, "Ana's edit?"), (bo, "Bo's edit?")):
        by_prefix(person.text_area, "qs_edit_", "_question").set_value(text)
        person.button(key="qs_save").click()
        evaluate_page(person)
    assert "Saved case q1." in said(ana) and "nothing was written" in said(bo)
    with RunHistory(url) as history:
        found = QuestionSetStore(history.storage).find("team set")
    assert found.cases[0].case.question == "Ana's edit?" and found.cases[0].case.from_run.startswith("main-")
