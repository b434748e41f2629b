"""Question sets in the app under AppTest: "Add to a question set" from Run history and from the debugger,
the Evaluate page's set editor (create, add, edit, remove, rename, delete), upload (a good file, a bad line
refused with its line and field, a taken name), two people editing one case at once (the second is told,
nothing is lost), and a stored set run on Evaluate with the agreement between the judge and people."""
from __future__ import annotations

import json

import pytest

from rag.demo import load_demo_questions
from rag.eval.question_sets import QuestionSetStore
from rag.runs.history import RunHistory
from tests.support.apptest import press
from tests.support.browser import ROOT


def new_app():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)


def problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def said(at) -> str:
    return "\n".join([m.body for m in at.success] + [m.body for m in at.warning] + [m.body for m in at.info])


def evaluate_page(at):
    return at.switch_page("pages/evaluate.py").run()


def sets(env) -> QuestionSetStore:
    history = RunHistory(env / "history.db")
    return QuestionSetStore(history.storage)


def by_prefix(widgets, prefix: str, suffix: str):
    return next(w for w in widgets if w.key and w.key.startswith(prefix) and w.key.endswith(suffix))


def run_demo(at, route: str):
    demo = next(d for d in load_demo_questions() if d.expected_route == route)
    at.switch_page("pages/debugger.py").run()
    at.button(key=f"demo_{demo.id}").click().run()
    press(at, "continue")
    assert not problems(at)
    return demo


def test_add_a_run_to_a_new_set_from_run_history(env):
    at = new_app().run()
    demo = run_demo(at, "answer")
    at.switch_page("pages/history.py").run()
    at.session_state["history_add_to_set_folded"] = True  # open the folded panel, as a click does
    at.switch_page("pages/history.py").run()
    assert not problems(at)
    question = by_prefix(at.text_area, "history_add_to_set_", "_question")
    assert question.value == demo.question
    route = by_prefix(at.selectbox, "history_add_to_set_", "_route")
    assert route.value == "answer"  # the run's route
    sources = by_prefix(at.text_area, "history_add_to_set_", "_sources").value
    assert sources  # the run's evidence files, one a line
    by_prefix(at.text_input, "history_add_to_set_", "_new_name").set_value("Regressions")
    route.set_value("no_knowledge")
    by_prefix(at.text_input, "history_add_to_set_", "_tags").set_value("en, from-history")
    at.button(key="history_add_to_set_add").click()
    at.switch_page("pages/history.py").run()
    assert not problems(at)
    assert "Added case q1 to question set “Regressions” (1 case)" in said(at)
    found = sets(env).find("regressions")
    case = found.cases[0].case
    runs = RunHistory(env / "history.db").list_runs()
    assert (case.question, case.expected_route, case.verdict, case.tags) == (
        demo.question, "no_knowledge", "wrong", ["en", "from-history"])
    assert case.from_run == runs[0].run_id and case.expected_sources == sources.splitlines()
    # the same name again is refused, said in the panel, nothing stored
    at.session_state["history_add_to_set_folded"] = True
    by_prefix(at.selectbox, "history_add_to_set_", "_set").set_value("__new_set__")
    at.switch_page("pages/history.py").run()
    by_prefix(at.text_input, "history_add_to_set_", "_new_name").set_value("REGRESSIONS")
    at.button(key="history_add_to_set_add").click()
    at.switch_page("pages/history.py").run()
    assert "a question set named 'REGRESSIONS' already exists" in said(at)
    assert [s.name for s in sets(env).list_sets()] == ["Regressions"]


def test_add_the_debugged_run_to_an_existing_set_from_the_debugger(env):
    store = sets(env)
    made = store.create("Smoke")
    at = new_app().run()
    demo = run_demo(at, "scope_select")
    at.session_state["debugger_add_to_set_folded"] = True
    at.switch_page("pages/debugger.py").run()
    assert not problems(at)
    assert by_prefix(at.selectbox, "debugger_add_to_set_", "_set").value == made.set_id
    assert by_prefix(at.selectbox, "debugger_add_to_set_", "_route").value == "scope_select"
    by_prefix(at.text_input, "debugger_add_to_set_", "_hitl").set_value("Nova Thermostat")
    by_prefix(at.selectbox, "debugger_add_to_set_", "_route").set_value("answer")
    at.button(key="debugger_add_to_set_add").click()
    at.switch_page("pages/debugger.py").run()
    assert not problems(at)
    assert "Added case q1 to question set “Smoke” (1 case)" in said(at)
    case = sets(env).get(made.set_id).cases[0].case
    assert (case.question, case.hitl_answer, case.expected_route, case.verdict) == (
        demo.question, "Nova Thermostat", "answer", "wrong")
    assert case.from_run and case.from_run.startswith("main-")


def test_the_set_editor_creates_edits_renames_and_deletes(env):
    at = evaluate_page(new_app().run())
    assert "No question set yet." in said(at)
    at.text_input(key="qs_new_name").set_value("Editor")
    at.button(key="qs_create").click()
    evaluate_page(at)
    assert "Created question set “Editor”." in said(at)
    at.text_area(key="qs_add_question").set_value("What is the capital of Australia?")
    at.selectbox(key="qs_add_route").set_value("no_knowledge")
    at.text_input(key="qs_add_tags").set_value("geo")
    at.button(key="qs_add").click()
    evaluate_page(at)
    assert "Added case q1." in said(at)
    table = next(df.value for df in at.dataframe if "expected route" in df.value.columns)
    assert list(table["question"]) == ["What is the capital of Australia?"]
    # edit it
    at.text_area(key=next(t.key for t in at.text_area if t.key.endswith("_question") and "qs_edit_" in t.key)) \
        .set_value("What is the capital of Austria?")
    at.button(key="qs_save").click()
    evaluate_page(at)
    assert "Saved case q1." in said(at) and not problems(at)
    store = sets(env)
    found = store.find("Editor")
    assert found.cases[0].case.question == "What is the capital of Austria?" and found.cases[0].version == 2
    # a blank question is refused with the field named
    at.text_area(key=next(t.key for t in at.text_area if t.key.endswith("_question") and "qs_edit_" in t.key)) \
        .set_value("   ")
    at.button(key="qs_save").click()
    evaluate_page(at)
    assert "field 'question'" in said(at)
    # rename, then delete after confirming
    at.text_input(key=f"qs_rename_{found.set_id}").set_value("Editor 2")
    at.button(key="qs_rename").click()
    evaluate_page(at)
    assert "Renamed the set to “Editor 2”." in said(at)
    at.button(key="qs_remove").click()
    evaluate_page(at)
    assert "Removed case q1." in said(at) and store.find("Editor 2").cases == []
    at.button(key="qs_delete").click()
    evaluate_page(at)
    at.button(key="qs_delete_confirm").click()
    evaluate_page(at)
    assert "Deleted the question set." in said(at) and store.list_sets() == []


def test_two_people_editing_one_case_the_second_is_told(env):
    store = sets(env)
    made = store.create("Shared")
    store.add_case(made.set_id, __import__("rag.eval.cases", fromlist=["EvalCase"]).EvalCase(question="Original?"))
    ana, bo = evaluate_page(new_app().run()), evaluate_page(new_app().run())

    def edit(at, text: str):
        at.text_area(key=next(t.key for t in at.text_area if t.key.endswith("_question") and "qs_edit_" in t.key)) \
            .set_value(text)
        at.button(key="qs_save").click()
        return evaluate_page(at)

    edit(ana, "Ana's question?")
    edit(bo, "Bo's question?")
    assert "Saved case q1." in said(ana)
    assert "case 'q1' was changed by someone at" in said(bo) and "nothing was written" in said(bo)
    assert store.get(made.set_id).cases[0].case.question == "Ana's question?"
    # Bo's form now shows the stored case: saving again is Bo's deliberate choice and is written
    shown = next(t for t in bo.text_area if t.key.endswith("_question") and "qs_edit_" in t.key)
    assert shown.value == "Ana's question?"
    edit(bo, "Bo's question?")
    assert store.get(made.set_id).cases[0].case.question == "Bo's question?"
    # a set deleted by one is refused to the other's delete, not a traceback
    ana.button(key="qs_delete").click()
    evaluate_page(ana)
    bo.button(key="qs_delete").click()
    evaluate_page(bo)
    ana.button(key="qs_delete_confirm").click()
    evaluate_page(ana)
    bo.button(key="qs_delete_confirm").click()
    evaluate_page(bo)
    assert not problems(bo) and "No question set yet." in said(bo)


GOOD = [{"id": "a", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"}]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.jsonl", b'{"question": "ok?"}\n{"question": "bad", "expected_route": "maybe"}\n',
     "bad.jsonl:2: field 'expected_route'"),
    ("bad.jsonl", b'{"question": "ok?"}\n{"question": "x", "from_run": "not a run id!"}\n',
     "bad.jsonl:2: field 'from_run'"),
    ("bad.jsonl", b'{"question": "ok?"}\n{"question": "x", "verdict": "meh"}\n', "bad.jsonl:2: field 'verdict'"),
    ("bad.jsonl", b'{"question": "ok?"}\nnot json\n', "bad.jsonl:2: not valid JSON"),
    ("bad.jsonl", b'\xff\xfe', "bad.jsonl:1: not UTF-8 text"),
    ("bad.csv", b"question,expected_route\nok?,answer\nbad,maybe\n", "bad.csv:3: field 'expected_route'"),
])
def test_an_uploaded_set_with_a_bad_line_is_refused_with_its_line_and_field(env, name, content, message):
    at = evaluate_page(new_app().run())
    at.file_uploader(key="qs_upload").set_value((name, content, "application/json"))
    at.button(key="qs_upload_create").click()
    evaluate_page(at)
    assert message in said(at) and not problems(at)
    assert sets(env).list_sets() == []


def test_an_upload_makes_a_set_and_a_taken_name_is_refused(env):
    at = evaluate_page(new_app().run())
    content = "\n".join(json.dumps(c) for c in GOOD).encode()
    at.file_uploader(key="qs_upload").set_value(("mine.jsonl", content, "application/json"))
    at.button(key="qs_upload_create").click()
    evaluate_page(at)
    assert "Created question set “mine” from the file: 1 case." in said(at)
    at.button(key="qs_upload_create").click()
    evaluate_page(at)
    assert "a question set named 'mine' already exists" in said(at)
    assert [(s.name, s.cases) for s in sets(env).list_sets()] == [("mine", 1)]


def test_a_stored_set_runs_on_evaluate_with_agreement_and_links_back(env):
    from rag.eval.cases import EvalCase

    store = sets(env)
    made = store.create("Judged", [
        EvalCase(id="agree", question="What is the capital of Australia?", expected_route="no_knowledge",
                 verdict="good", from_run="main-0000aaaa"),
        EvalCase(id="disagree", question="What is the operating temperature range of the Lumen X2?",
                 expected_route="no_knowledge", verdict="wrong", from_run="main-0000bbbb"),
        EvalCase(id="gold", question="What is the capital of Australia?", expected_route="no_knowledge")])
    at = evaluate_page(new_app().run())
    at.button(key="qs_evaluate").click()
    evaluate_page(at)
    assert at.selectbox(key="eval_set").value == f"stored:{made.set_id}"
    at.button(key="eval_run").click().run()
    assert not problems(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Route accuracy"] == "0.667"
    assert metrics["Agreed"] == "1/2" and metrics["Cohen's kappa"] == "0.000"
    wrong = next(df.value for df in at.dataframe if "person" in df.value.columns)
    assert list(wrong["id"]) == ["disagree"] and wrong["judge"][0] == "answer"
    assert wrong["from run"][0] == "debugger?run=main-0000bbbb"
    cases = next(df.value for df in at.dataframe if "asked first" in df.value.columns)
    assert cases.set_index("id").loc["disagree", "from run"] == "debugger?run=main-0000bbbb"
    # the failing case is the one picked below the table: a link opens the run it came from
    assert [(b.label, b.url) for b in at.get("link_button")] == [
        ("Open the run it came from (main-0000bbbb)", "debugger?run=main-0000bbbb")]


def test_one_route_only_says_kappa_is_undefined(env):
    from rag.eval.cases import EvalCase

    sets(env).create("Same", [EvalCase(question="What is the capital of Australia?", expected_route="no_knowledge",
                                       verdict="good")])
    at = evaluate_page(new_app().run())
    at.button(key="qs_evaluate").click()
    evaluate_page(at)
    at.button(key="eval_run").click().run()
    assert {m.label: m.value for m in at.metric}["Cohen's kappa"] == "undefined"
    assert "same route (no_knowledge)" in said(at)


def test_markup_in_a_set_name_and_a_case_is_shown_as_text(env):
    """A set name is typed by people: markup in it must not fetch an image or restyle the page."""
    from rag.eval.cases import EvalCase

    name = "![x](http://127.0.0.2/x.png) **loud**"
    sets(env).create(name, [EvalCase(question="What is the capital of Australia? ![y](http://127.0.0.2/y.png)",
                                     expected_route="no_knowledge", verdict="good")])
    at = evaluate_page(new_app().run())
    at.button(key="qs_evaluate").click()
    evaluate_page(at)
    at.button(key="eval_run").click().run()
    assert not problems(at)
    heading = next(h.value for h in at.subheader if "on bundled" in h.value)
    assert "![x](" not in heading and "**loud**" not in heading  # markdown would read both
    assert heading.startswith("!\\[x\\](http://127.0.0.2/x.png) \\*\\*loud\\*\\*")


def test_the_sets_section_and_agreement_in_chinese_show_no_english(env):
    """The set editor and the agreement section, read in Chinese."""
    from rag import i18n
    from rag.eval.cases import EvalCase
    from tests.support.i18n import english_controls, english_phrases
    from tests.ui.test_chinese_everywhere_apptest import _texts, _unwrapped_english

    sets(env).create("Judged", [
        EvalCase(id="agree", question="What is the capital of Australia?", expected_route="no_knowledge",
                 verdict="good", from_run="main-0000aaaa"),
        EvalCase(id="disagree", question="What is the operating temperature range of the Lumen X2?",
                 expected_route="no_knowledge", verdict="wrong", from_run="main-0000bbbb")])
    i18n.forget_missing_keys()
    at = new_app()
    at.query_params["lang"] = "zh"
    evaluate_page(at.run())
    at.button(key="qs_evaluate").click()
    evaluate_page(at)
    at.button(key="eval_run").click().run()
    assert not problems(at)
    found: dict[str, list[str]] = {"controls": [], "text": []}
    _texts(at._tree, found)
    assert "评判器与人工的一致度" in "\n".join(found["text"])
    assert english_controls(found["controls"]) == []
    assert english_phrases("\n".join(found["text"] + found["controls"])) == []
    questions = {c for c in ("What is the capital of Australia?",
                             "What is the operating temperature range of the Lumen X2?")}
    assert [e for e in _unwrapped_english(found["text"] + found["controls"])
            if not any(e in q for q in questions)] == []
    assert sorted(m for lang, m in i18n.missing_keys() if lang == "zh") == []


def test_the_debugger_panel_adds_the_run_of_the_position_shown(env):
    """After a HITL answer the session holds two runs; travelling back to the main run's steps adds that run."""
    from tests.support.apptest import travel_to_step

    at = new_app().run()
    run_demo(at, "scope_select")
    at.button(key="hitl_opt_0").click().run()
    press(at, "continue")
    runs = {r.kind: r.run_id for r in RunHistory(env / "history.db").list_runs()}
    at.session_state["debugger_add_to_set_folded"] = True
    at.switch_page("pages/debugger.py").run()
    captions = "\n".join(c.value for c in at.caption)
    assert f"The case links back to run {runs['resume']}." in captions
    travel_to_step(at, 0)
    captions = "\n".join(c.value for c in at.caption)
    assert f"The case links back to run {runs['main']}." in captions
    # either way the case carries the answer that was given and expects the answered run's route
    assert by_prefix(at.text_input, f"debugger_add_to_set_{runs['main']}", "_hitl").value
    assert by_prefix(at.selectbox, f"debugger_add_to_set_{runs['main']}", "_route").value == "answer"


def test_an_edit_keeps_the_fields_the_form_does_not_show(env):
    from rag.eval.cases import EvalCase

    store = sets(env)
    made = store.create("Gold", [EvalCase(id="g", question="What is the capital of Australia?",
                                          expected_passages=["chunk:abc"], tags=["geo"])])
    at = evaluate_page(new_app().run())
    by_prefix(at.text_input, "qs_edit_", "_tags").set_value("geo, capital")
    at.button(key="qs_save").click()
    evaluate_page(at)
    case = store.get(made.set_id).cases[0].case
    assert (case.tags, case.expected_passages) == (["geo", "capital"], ["chunk:abc"])
