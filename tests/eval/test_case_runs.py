"""An evaluation's cases recorded as runs of the history (SQLite here; PostgreSQL in
test_case_runs_postgres.py): each case's run is marked with the evaluation, a HITL case is its main run
and the resume, the link's step is the run's last retrieval as the replay numbers it, and where the
gold was lost is judged on that retrieval."""
from __future__ import annotations

import pytest

from rag.eval.case_runs import last_retrieval_step
from rag.eval.cases import EvalCase
from rag.eval.runner import run_cases
from rag.runs.history import RunHistory
from rag.settings import RagSettings

LUMEN = "What is the operating temperature range of the Lumen X2?"

CASES = [
    EvalCase(id="kept", question=LUMEN, expected_route="answer", expected_sources=["lumen_x2_manual.md"]),
    EvalCase(id="hitl", question="How do I reset the Nova?", hitl_answer="Nova Thermostat", expected_route="answer",
             expected_sources=["nova_thermostat.md"]),
    EvalCase(id="no_gold", question="What is the capital of Australia?", expected_route="no_knowledge"),
    EvalCase(id="too_long", question="x" * 5000, expected_route="answer"),
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch, tmp_path):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RERANK_API_KEY", "RAG_PROMPT_VERSION", "RERANK_MODEL",
                 "RAG_CANDIDATE_K", "RAG_MIN_SCORE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAG_PROMPT_DIR", str(tmp_path / "prompt_versions"))


def settings(**overrides) -> RagSettings:
    return RagSettings(model_provider="offline", **overrides)


@pytest.mark.parametrize(("runs", "expected"), [
    ([], None),
    ([[("classify_complexity",), ("grade_documents",)]], None),
    ([[("classify_complexity",), ("retrieve_initial",), ("grade_documents",)]], 2),
    # a rewrite: the second retrieval is the one the route was decided on
    ([[("classify_complexity",), ("retrieve_initial",), ("grade_documents",), ("rewrite_question",),
       ("retrieve_rewritten",), ("grade_documents",)]], 5),
    # a HITL resume: its steps follow the main run's, as the debugger's timeline numbers them
    ([[("classify_complexity",), ("retrieve_initial",), ("grade_documents",)],
      [("restore_from_snapshot",), ("retrieve_targeted",), ("grade_documents",)]], 5),
    # a resume that ran no retrieval keeps the main run's
    ([[("classify_complexity",), ("retrieve_initial",), ("grade_documents",)], [("grade_documents",)]], 2),
])
def test_the_last_retrieval_step(runs, expected):
    assert last_retrieval_step(runs) == expected


def check_recorded(history: RunHistory) -> None:
    """Shared by the SQLite and the PostgreSQL test: what an evaluation leaves in the history."""
    from rag_debugger.workbench.session import DebugSession

    results = {r.id: r for r in run_cases(CASES, settings(), history=history, eval_id="eval-1", run_by="ana")}
    marked = history.eval_runs("eval-1")
    # one run per case, two for the answered HITL case, none for the question refused before it ran
    assert len(marked) == 4 and {r.eval_id for r in marked} == {"eval-1"} and {r.run_by for r in marked} == {"ana"}
    assert results["too_long"].run_id is None and "InvalidQuestionError" in results["too_long"].error
    resume = history.get_run(results["hitl"].run_id)
    assert resume.kind == "resume" and history.get_run(resume.parent_run_id).eval_id == "eval-1"
    assert results["hitl"].route == "answer" and results["hitl"].asked_route == "scope_select"
    for case_id in ("kept", "hitl", "no_gold"):
        info = history.get_run(results[case_id].run_id)
        assert info.status == "done" and info.route == results[case_id].route
    assert history.eval_runs("another evaluation") == []
    # the link's step is the last retrieval in the replay the link opens
    for case_id, node in (("kept", "retrieve_initial"), ("hitl", "retrieve_targeted")):
        session = DebugSession(settings(), history=history)
        session.open_replay(history, results[case_id].run_id)
        steps = [step for seg in session.segments for step in seg.stepper.all_steps]  # the timeline's steps
        assert node in steps[results[case_id].retrieval_step - 1].nodes
        assert not any(n.startswith("retrieve_") for s in steps[results[case_id].retrieval_step:] for n in s.nodes)
    assert results["kept"].lost_at == "kept" and results["hitl"].lost_at == "kept"
    assert results["no_gold"].lost_at is None  # the case names no gold


def test_an_evaluation_records_its_cases_runs_in_the_history(tmp_path):
    with RunHistory(tmp_path / "history.db") as history:
        check_recorded(history)


def test_without_a_history_nothing_is_recorded_and_lost_at_is_still_judged(tmp_path):
    cases = [EvalCase(id="wrong_file", question=LUMEN, expected_sources=["nova_thermostat.md"]),
             EvalCase(id="not_in_kb", question=LUMEN, expected_passages=["a sentence no document holds, zqx"]),
             EvalCase(id="kept", question=LUMEN, expected_passages=["Lumen X2"])]
    results = {r.id: r for r in run_cases(cases, settings(top_k=2))}
    assert {k: r.lost_at for k, r in results.items()} == {"wrong_file": "top_k", "not_in_kb": "not_in_kb",
                                                           "kept": "kept"}
    assert all(r.run_id is None and r.retrieval_step is None for r in results.values())


def test_a_lost_case_names_the_stage_of_its_runs_retrieval(tmp_path):
    with RunHistory(tmp_path / "history.db") as history:
        [lost] = run_cases([EvalCase(id="lost", question=LUMEN, expected_sources=["nova_thermostat.md"])],
                           settings(top_k=2, candidate_k="4"), history=history, eval_id="e")
        assert lost.lost_at == "fusion" and lost.retrieval_step == 2
        assert history.get_run(lost.run_id).settings["top_k"] == 2  # the run carries the settings it was judged on


def test_an_imported_copy_of_a_case_run_is_not_the_evaluations(tmp_path):
    from rag.runs.export import export_run
    from rag.runs.importing import import_run

    with RunHistory(tmp_path / "a.db") as history:
        [res] = run_cases(CASES[:1], settings(), history=history, eval_id="e")
        doc = export_run(history, res.run_id)
    with RunHistory(tmp_path / "b.db") as other:
        copy = import_run(doc, other)
        assert copy.eval_id is None and other.eval_runs("e") == []


def test_a_case_result_keeps_its_run_through_the_store(tmp_path):
    from rag.eval.scoring import CaseResult

    res = CaseResult(id="a", expected_route="answer", route="answer", run_id="main-1", lost_at="top_k",
                     retrieval_step=2)
    assert CaseResult.from_dict(res.to_dict()) == res
    old = {k: v for k, v in res.to_dict().items() if k not in ("run_id", "lost_at", "retrieval_step")}
    assert CaseResult.from_dict(old).run_id is None  # results saved before runs were recorded still load
