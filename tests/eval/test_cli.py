"""The CLI offline: the exit code gates on route accuracy, parallel runs give the same results,
HITL answers are given and the resumed run is judged."""
from __future__ import annotations

import json

import pytest

from rag.eval.__main__ import main


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    for key in ("RERANK_MODEL", "RERANK_API_KEY", "RERANK_HOST", "RAG_CANDIDATE_K", "RAG_MIN_SCORE",
                "RAG_PROMPT_VERSION"):
        monkeypatch.delenv(key, raising=False)


def write_set(tmp_path, cases) -> str:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n", "utf-8")
    return str(path)


#: Two cases the offline rules get right, one whose expectation is wrong on purpose: accuracy 2/3.
CASES = [
    {"id": "ok_answer", "question": "What is the operating temperature range of the Lumen X2?", "expected_route": "answer"},
    {"id": "ok_none", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"},
    {"id": "wrong_on_purpose", "question": "How do I reset the Nova?", "expected_route": "answer"},
]


@pytest.mark.parametrize("threshold, code", [(0.9, 1), (0.66, 0), (None, 0)])
def test_exit_code_follows_min_route_accuracy(offline, tmp_path, capsys, threshold, code):
    args = [write_set(tmp_path, CASES), "--quiet"] + ([] if threshold is None else ["--min-route-accuracy", str(threshold)])
    assert main(args) == code
    captured = capsys.readouterr()
    assert captured.out.strip().splitlines()[-3] == "route_accuracy: 0.667"
    assert ("under --min-route-accuracy" in captured.err) is (code == 1)


def test_bad_arguments_exit_2(offline, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main([write_set(tmp_path, CASES), "--min-route-accuracy", "90"])
    assert exc.value.code == 2
    assert main([write_set(tmp_path, CASES), "--kb", str(tmp_path / "nowhere")]) == 2


def test_hitl_answer_resumes_and_the_resumed_run_is_judged(offline, tmp_path, capsys):
    out_file = tmp_path / "r.json"
    cases = [{"id": "asked", "question": "How do I reset the Nova?", "expected_route": "scope_select"},
             {"id": "answered", "question": "How do I reset the Nova?", "hitl_answer": "Nova Thermostat",
              "expected_route": "answer", "expected_sources": ["nova_thermostat.md"]}]
    assert main([write_set(tmp_path, cases), "--out", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "ok   answered: expected answer, got answer (asked scope_select, answered)  sources: hit" in out
    doc = {c["id"]: c for c in json.loads(out_file.read_text("utf-8"))["cases"]}
    assert doc["asked"]["asked_route"] is None and doc["answered"]["asked_route"] == "scope_select"
    assert doc["answered"]["reciprocal_rank"] == 1.0
    nodes = {n for n, _ in doc["answered"]["node_ms"]}
    assert {"retrieve_initial", "restore_from_snapshot", "retrieve_targeted"} <= nodes  # both runs timed


def test_parallel_runs_give_the_results_of_a_sequential_run(offline, tmp_path, capsys):
    from pathlib import Path

    bundled = str(Path(__file__).resolve().parents[2] / "rag" / "data" / "eval" / "bundled.jsonl")
    outs = []
    for n in ("1", "4"):
        out_file = tmp_path / f"r{n}.json"
        assert main([bundled, "--quiet", "--concurrency", n, "--out", str(out_file)]) == 0
        doc = json.loads(out_file.read_text("utf-8"))
        outs.append([(c["id"], c["route"], c["sources"]) for c in doc["cases"]])
    assert outs[0] == outs[1]
    err = capsys.readouterr().err
    assert "26/26" in err  # the progress bar reached the end
