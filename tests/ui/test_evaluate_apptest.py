"""The Evaluate page under AppTest: a run shows the confusion matrix, the figures and the failures;
two configurations show the cases that regressed; a case opens in the step debugger; results are
kept in the history file and come back in a new app process."""
from __future__ import annotations

import pytest

from rag.eval.results_store import EvalStore
from rag_debugger.ui.evaluate_view import UPLOAD_CHOICE
from tests.support.browser import ROOT

#: Offline results of these on the bundled KB: the first three end as expected; "wrong_on_purpose"
#: expects the wrong route so the page has a failure to show; the two rewrite cases need the
#: default top_k (at top_k 2 the rewrite finds too little and they end in no_knowledge).
CASES = [
    {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?", "expected_route": "answer",
     "expected_sources": ["lumen_x2_manual.md"], "tags": ["en"]},
    {"id": "capital", "question": "What is the capital of Australia?", "expected_route": "no_knowledge", "tags": ["en"]},
    {"id": "nova_answered", "question": "How do I reset the Nova?", "hitl_answer": "Nova Thermostat",
     "expected_route": "answer", "expected_sources": ["nova_thermostat.md"], "tags": ["hitl"]},
    {"id": "wrong_on_purpose", "question": "月卡的价格是多少？", "expected_route": "answer", "tags": ["zh"]},
    {"id": "lantern", "question": "My lantern dies too fast, any tips?", "expected_route": "answer", "tags": ["rewrite"]},
    {"id": "firmware", "question": "Is Lumen X2 firmware 2.1 from 2023-11-02 still supported in 2026?",
     "expected_route": "answer", "tags": ["rewrite"]},
]


@pytest.fixture
def small_set(eval_sets):
    return eval_sets(CASES)


def new_app():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)


def evaluate_page(at):
    return at.switch_page("pages/evaluate.py").run()


def problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def frame_with(at, column: str):
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a {column!r} column")


def test_a_run_shows_the_confusion_matrix_figures_and_failures(small_set, env):
    at = evaluate_page(new_app().run())
    assert at.selectbox(key="eval_set").value == "bundled.jsonl"
    at.button(key="eval_run").click().run()
    assert not problems(at)
    matrix = at.table[0].value
    assert list(matrix.index) == ["answer", "no_knowledge"]
    assert matrix.loc["answer", "answer"] == 4 and matrix.loc["answer", "clarify"] == 1
    assert matrix.loc["answer", "correct"] == "4/5" and matrix.loc["no_knowledge", "correct"] == "1/1"
    assert metrics(at)["Route accuracy"] == "0.833" and metrics(at)["Cases"] == "6"
    assert at.progress[0].value == 100
    # failures only, on by default when there are failures: the one wrong case, with what it got
    cases = frame_with(at, "asked first")
    assert list(cases["id"]) == ["wrong_on_purpose"] and cases["got"][0] == "clarify"
    at.toggle(key=next(t.key for t in at.toggle if t.key.startswith("eval_failures_"))).set_value(False).run()
    cases = frame_with(at, "asked first")
    assert len(cases) == 6
    assert cases.set_index("id").loc["nova_answered", "asked first"] == "scope_select"
    latency = frame_with(at, "p50")
    assert {"retrieve_initial", "grade_documents", "(run)"} <= set(latency["node"])
    tags = frame_with(at, "tag").set_index("tag")
    assert tags.loc["zh", "accuracy"] == "0.000" and tags.loc["rewrite", "accuracy"] == "1.000"
    # kept in the history file, with the configuration it ran
    groups = EvalStore(env / "history.db").groups()
    assert len(groups) == 1 and groups[0][2] == "bundled.jsonl"


def test_two_configurations_show_what_regressed(small_set):
    at = evaluate_page(new_app().run())
    at.toggle(key="eval_compare").set_value(True).run()
    at.number_input(key="eval_b_top_k").set_value(2).run()
    at.button(key="eval_run").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Regressed (right under A, wrong under B): lantern, firmware"]
    m = metrics(at)
    assert m["Regressed"] == "2" and m["Fixed"] == "0"
    assert m["Route accuracy A: top_k 8"] == "0.833" and m["Route accuracy B: top_k 2"] == "0.500"
    matrix = frame_with(at, "change").set_index("id")
    assert matrix.loc["lantern", "change"] == "regressed" and matrix.loc["firmware", "change"] == "regressed"
    assert matrix.loc["temp", "change"] == "same" and matrix.loc["wrong_on_purpose", "change"] == "same"
    assert matrix.loc["lantern", "B: top_k 2"] == "no_knowledge · WRONG"
    side = [t.value for t in at.table if "figure" == t.value.index.name][0]
    assert side.loc["route_accuracy"].tolist() == ["0.833", "0.500"]


def test_a_case_opens_in_the_step_debugger(small_set):
    at = evaluate_page(new_app().run())
    at.button(key="eval_run").click().run()
    key = next(b.key for b in at.button if (b.key or "").startswith("eval_open_"))
    assert at.selectbox(key=key.replace("eval_open_", "eval_pick_")).value == "wrong_on_purpose"
    at.button(key=key).click().run()
    assert not problems(at)
    assert at.session_state["question"] == "月卡的价格是多少？"
    assert any("Opened the evaluation case" in i.value for i in at.info)
    assert at.session_state["debug_session"].question == "月卡的价格是多少？"
    assert at.text_area(key="question").value == "月卡的价格是多少？"  # the debugger's box, on its page


def test_results_come_back_in_a_new_app_process(small_set):
    at = evaluate_page(new_app().run())
    at.button(key="eval_run").click().run()
    again = evaluate_page(new_app().run())
    assert not again.table  # nothing shown until asked
    assert "bundled.jsonl" in again.selectbox(key="eval_past").options[0] or again.selectbox(key="eval_past").value
    again.button(key="eval_show_past").click().run()
    assert again.table[0].value.loc["answer", "correct"] == "4/5"
    assert {b.label for b in again.get("download_button")} == {"Download results (JSON)", "Download cases (CSV)",
                                                                    "Download as HTML", "Download its run as HTML"}


def test_two_grader_models_on_one_endpoint_and_a_rerun_costs_no_call(small_set, monkeypatch, env):
    from tests.support.fake_openai import running_fake_openai

    plan = {"complexity": "simple", "complexity_reason": "one question", "sub_questions": []}
    answer = {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
              "route": "answer", "reason": "stated", "missing_slots": [], "hitl_prompt": "", "hitl_options": []}
    nothing = {**answer, "relevance": "none", "answerability": "none", "route": "no_knowledge", "reason": "no"}
    with running_fake_openai() as fake:
        fake.reply(plan, schema="ComplexityResult")
        fake.reply(nothing, schema="EvidenceGrade", model="picky-model")
        fake.reply(lambda req: nothing if "Australia" in req.text else answer, schema="EvidenceGrade")
        for key, value in {"RAG_MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": fake.base_url,
                           "OPENAI_API_KEY": "sk-test-eval-page-1234", "GRADE_MODEL": "good-model",
                           "RAG_MODEL_MAX_RETRIES": "0", "RAG_CACHE_DIR": str(env / "cache")}.items():
            monkeypatch.setenv(key, value)
        at = evaluate_page(new_app().run())
        at.toggle(key="eval_compare").set_value(True).run()
        assert at.text_input(key="eval_a_model").value == "good-model"
        at.text_input(key="eval_b_model").set_value("picky-model").run()
        at.button(key="eval_run").click().run()
        assert not at.exception
        m = metrics(at)
        assert m["Route accuracy A: good-model"] == "1.000" and m["Route accuracy B: picky-model"] == "0.167"
        matrix = frame_with(at, "change").set_index("id")
        assert matrix.loc["temp", "change"] == "regressed" and matrix.loc["capital", "change"] == "same"
        assert m["Regressed"] == "5"
        assert {r.model for r in fake.requests_for("EvidenceGrade")} == {"good-model", "picky-model"}
        calls = len(fake.requests)
        at.button(key="eval_run").click().run()  # the same two configurations again: all from the cache
        assert len(fake.requests) == calls
        assert metrics(at)["Regressed"] == m["Regressed"]
        assert "sk-test-eval-page-1234" not in str([e.value for e in at.main if hasattr(e, "value")])


def test_a_pydoc_set_defaults_to_the_pydoc_corpus(env):
    at = evaluate_page(new_app().run())
    assert at.selectbox(key="eval_kb_bundled.jsonl").value == "bundled"
    at.selectbox(key="eval_set").set_value("pydoc_holdout.jsonl").run()
    assert at.selectbox(key="eval_kb_pydoc_holdout.jsonl").value == "pydoc"
    assert not at.exception


@pytest.mark.parametrize("content, says", [
    (b'{"id": "a", "question": "What is the Lumen X2?"}\n{"id": "b", "question": "Hi?"}\n', "mine.jsonl: 2 cases read"),
    (b'{"id": "a", "question": "What is the Lumen X2?"}\n{not json\n', "mine.jsonl:2: not valid JSON"),
    (b"", "mine.jsonl: no cases"),
])
def test_an_uploaded_set_is_read_when_it_arrives(small_set, content, says):
    """A broken file says what is wrong before anyone presses Run; a good one says how many cases it has."""
    at = evaluate_page(new_app())
    at.selectbox(key="eval_set").set_value(UPLOAD_CHOICE).run()
    at.file_uploader(key="eval_upload").set_value(("mine.jsonl", content, "application/json")).run()
    shown = [c.value for c in at.caption] + [w.body for w in at.warning]
    assert any(says in text for text in shown), shown
    assert not problems(at)


def test_an_upload_is_read_once_however_often_the_page_reruns(small_set, monkeypatch):
    import rag_debugger.ui.evaluate_view as view

    reads = []
    real = view.cases_from_upload
    monkeypatch.setattr(view, "cases_from_upload", lambda name, data: reads.append(name) or real(name, data))
    at = evaluate_page(new_app())
    at.selectbox(key="eval_set").set_value(UPLOAD_CHOICE).run()
    content = b'{"id": "a", "question": "What is the Lumen X2?"}\n'
    at.file_uploader(key="eval_upload").set_value(("mine.jsonl", content, "application/json")).run()
    at.toggle(key="eval_compare").set_value(True).run()
    assert reads == ["mine.jsonl"]
    assert any("mine.jsonl: 1 case read" in c.value for c in at.caption)
