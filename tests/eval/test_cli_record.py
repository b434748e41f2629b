"""`python -m rag.eval`: `--out` names where each case's gold was lost; `--record` records every case's run
in the configured history, kept as an evaluation the Evaluate page lists; a history that cannot be used is
a clear error (exit 2), and without `--record` nothing is written to the history."""
from __future__ import annotations

import json

import pytest

from rag.eval.__main__ import main
from rag.eval.results_store import EvalStore
from rag.runs.history import RunHistory
from tests.eval.test_cli import offline, write_set  # noqa: F401 - the fixture

LUMEN = "What is the operating temperature range of the Lumen X2?"
CASES = [
    {"id": "kept", "question": LUMEN, "expected_route": "answer", "expected_sources": ["lumen_x2_manual.md"]},
    {"id": "lost", "question": LUMEN, "expected_route": "answer", "expected_sources": ["nova_thermostat.md"]},
    {"id": "missing", "question": LUMEN, "expected_passages": ["a sentence no document holds, zqx"]},
    {"id": "no_gold", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"},
    {"id": "answered", "question": "How do I reset the Nova?", "hitl_answer": "Nova Thermostat",
     "expected_route": "answer"},
]


@pytest.fixture
def history_file(tmp_path, monkeypatch):
    path = tmp_path / "history.db"
    monkeypatch.setenv("RAG_HISTORY_DB", str(path))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)
    monkeypatch.setenv("RAG_TOP_K", "2")
    return path


def test_out_names_where_each_cases_gold_was_lost(offline, tmp_path, history_file, capsys):  # noqa: F811
    out = tmp_path / "r.json"
    assert main([write_set(tmp_path, CASES), "--out", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text("utf-8"))
    lost = {c["id"]: c["lost_at"] for c in doc["cases"]}
    assert lost == {"kept": "kept", "lost": "top_k", "missing": "not_in_kb", "no_gold": None, "answered": None}
    assert doc["lost_at"]["kept"] == 1 and doc["lost_at"]["top_k"] == 1 and doc["lost_at"]["not_in_kb"] == 1
    assert all(c["run_id"] is None for c in doc["cases"]) and "evaluation" not in doc
    assert not history_file.exists()  # not asked to record: the history is not even created
    printed = capsys.readouterr().out
    assert "recorded:" not in printed
    lines = printed.strip().splitlines()
    assert lines[-5] == "lost_at: not_in_kb=1 sparse=0 dense=0 fusion=0 merge=0 rerank=0 top_k=1 threshold=0 kept=1"
    assert lines[-3].startswith("route_accuracy: ")  # the last lines for scripts stay where they were


def test_record_keeps_every_cases_run_and_the_evaluation(offline, tmp_path, history_file, capsys):  # noqa: F811
    out = tmp_path / "r.json"
    assert main([write_set(tmp_path, CASES), "--out", str(out), "--quiet", "--record"]) == 0
    doc = json.loads(out.read_text("utf-8"))
    printed = capsys.readouterr().out
    assert f"recorded: 6 runs in {history_file} (evaluation {doc['evaluation']})" in printed
    [record] = EvalStore(history_file).group(doc["evaluation"])
    assert [c["run_id"] for c in record.cases] == [c["run_id"] for c in doc["cases"]]
    with RunHistory(history_file) as history:
        runs = history.eval_runs(record.eval_id)
        assert len(runs) == 6  # five cases, the answered one is its main run and the resume
        by_case = {c["id"]: history.get_run(c["run_id"]) for c in doc["cases"]}
        assert by_case["answered"].kind == "resume" and by_case["answered"].route == "answer"
        assert by_case["lost"].settings["top_k"] == 2
    lost = next(c for c in doc["cases"] if c["id"] == "lost")
    assert lost["lost_at"] == "top_k" and lost["retrieval_step"] == 2


def test_record_with_compare_keeps_both_configurations_in_one_group(offline, tmp_path, history_file, capsys):  # noqa: F811
    (tmp_path / "prompts").mkdir()
    assert main([write_set(tmp_path, CASES[:2]), "--quiet", "--record", "--compare", "default"]) == 0
    store = EvalStore(history_file)
    [(group, _when, _set, labels)] = store.groups()
    records = store.group(group)
    assert len(records) == 2 and records[0].eval_id != records[1].eval_id
    with RunHistory(history_file) as history:
        assert [len(history.eval_runs(r.eval_id)) for r in records] == [2, 2]


def test_record_on_a_damaged_history_is_a_clear_error(offline, tmp_path, history_file, capsys):  # noqa: F811
    history_file.write_bytes(b"this is not a database" * 100)
    assert main([write_set(tmp_path, CASES[:1]), "--quiet", "--record"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(history_file) in err and "Traceback" not in err


def test_record_is_refused_with_retrieval_only(offline, tmp_path, history_file, capsys):  # noqa: F811
    with pytest.raises(SystemExit) as exc:
        main([write_set(tmp_path, CASES[:1]), "--retrieval-only", "--record"])
    assert exc.value.code == 2 and "--record records the full evaluation" in capsys.readouterr().err
    assert not history_file.exists()
